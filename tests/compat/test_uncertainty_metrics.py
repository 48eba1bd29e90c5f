"""Conformance tests of skcalib.compat.uncertainty_metrics against uncertainty_metrics 0.0.82.

Golden values come from google/uncertainty-metrics 0.0.82: the test file
``uncertainty_metrics/numpy/general_calibration_error_test.py`` (its data, expected values
and the tests ``test_consistency``, ``test_binary_1d``, ``test_binary_2d``,
``test_correctness_ece``, ``test_correctness_rmsce``, ``test_generatable_metrics`` and
``GetAdaptiveBinsTest``), and values computed by running the reference module
``uncertainty_metrics/numpy/general_calibration_error.py`` (pure NumPy, so these are
exact).  A slow pure-Python implementation written from the reference's code is compared
with the vectorised one on random data.
"""

import math

import numpy as np
import pytest

import skcalib.metrics as skm
from skcalib._core._binning import BinStats
from skcalib.compat import uncertainty_metrics as um
from skcalib.compat._um_binning import (
    um_adaptive_upper_edges,
    um_assign_bins,
    um_bin_stats,
    um_even_upper_edges,
)

# --------------------------------------------------------------------------------------
# shared data of uncertainty_metrics/numpy/general_calibration_error_test.py
# --------------------------------------------------------------------------------------

P3 = np.array(
    [
        [0.42610548, 0.41748077, 0.15641374],
        [0.44766216, 0.47721294, 0.0751249],
        [0.1862702, 0.15139402, 0.66233578],
        [0.05753544, 0.8561222, 0.08634236],
        [0.18697925, 0.29836466, 0.51465609],
    ]
)
L3 = np.array([0, 1, 2, 1, 2])
PB = np.array([0.91, 0.32, 0.66, 0.67, 0.57, 0.98, 0.41, 0.19])
LB = np.array([1, 0, 1, 1, 0, 1, 0, 0])
PM = np.array(
    [
        [0.31, 0.32, 0.27],
        [0.37, 0.33, 0.30],
        [0.30, 0.31, 0.39],
        [0.61, 0.38, 0.01],
        [0.10, 0.65, 0.25],
        [0.91, 0.05, 0.04],
    ]
)
LM = np.array([1, 0, 0, 1, 0, 0])
P3_PADDED = np.hstack([P3, np.zeros((5, 1))])


# --------------------------------------------------------------------------------------
# expected values of general_calibration_error_test.py
# --------------------------------------------------------------------------------------


def test_consistency():
    value = um.gce(
        L3,
        P3,
        num_bins=30,
        binning_scheme="even",
        class_conditional=False,
        max_prob=True,
        norm="l1",
    )
    assert value == pytest.approx(0.412713502, abs=5e-8)
    assert isinstance(value, float)


@pytest.mark.parametrize("probs", [PB, PB.reshape(8, 1)], ids=["1d", "n_by_1"])
def test_binary_1d_and_2d(probs):
    value = um.gce(
        LB,
        probs,
        num_bins=30,
        binning_scheme="even",
        class_conditional=False,
        max_prob=True,
        norm="l1",
    )
    assert round(value, 7) == round(0.18124999999999997, 7)
    assert value == pytest.approx(0.18125, rel=1e-15)


def test_correctness_ece():
    # hand computation of the reference test: bins 3, 6, 9 of 10
    expected = (3 / 6) * abs(2 / 3 - 0.36) + (2 / 6) * abs(0 - 0.63) + (1 / 6) * abs(1 - 0.91)
    assert expected == pytest.approx(0.3783333333333333, rel=1e-15)
    assert um.ece(LM, PM, num_bins=10) == pytest.approx(0.3783333333333333, rel=1e-15)


def test_correctness_rmsce():
    # 6 points, 10 adaptive bins: one point per bin -> sqrt(mean (z - c)^2)
    conf = PM.max(axis=1)
    z = (PM.argmax(axis=1) == LM).astype(float)
    expected = math.sqrt(np.mean((z - conf) ** 2))
    assert expected == pytest.approx(0.5498636194548608, rel=1e-15)
    assert um.rmsce(LM, PM, num_bins=10) == pytest.approx(0.5498636194548608, rel=1e-15)


# --------------------------------------------------------------------------------------
# compute_all_metrics, 32 values each: the data of test_compute_all and
# test_generatable_metrics, values computed by running the reference module
# --------------------------------------------------------------------------------------

# rows: (scheme, max_prob, class_conditional); columns: l1, l2 (both thresholds equal)
TABLE_BINARY = {
    ("even", True, True): (0.28833333333333333, 0.32694036153402645),
    ("even", True, False): (0.18125, 0.21916032943943112),
    ("even", False, True): (0.28374999999999995, 0.3287286114715297),
    ("even", False, False): (0.18124999999999997, 0.21916032943943112),
    ("adaptive", True, True): (0.28833333333333333, 0.32694036153402645),
    ("adaptive", True, False): (0.28374999999999995, 0.3287286114715297),
    ("adaptive", False, True): (0.28374999999999995, 0.3287286114715297),
    ("adaptive", False, False): (0.28375000000000006, 0.3287286114715297),
}
TABLE_PADDED = {
    ("even", True, True): (0.32968275375, 0.4034682156085285),
    ("even", True, False): (0.41271350199999995, 0.441120819722808),
    ("even", False, True): (0.20635675049999996, 0.2801820934066211),
    ("even", False, False): (0.21947823133333333, 0.26815605254013314),
    ("adaptive", True, True): (0.32968275375, 0.4034682156085285),
    ("adaptive", True, False): (0.41271350199999995, 0.441120819722808),
    ("adaptive", False, True): (0.20635675050000002, 0.2801877296023782),
    ("adaptive", False, False): (0.275142334, 0.3235329222191263),
}


def _expected_32(table):
    return np.array(
        [
            table[(scheme, mp, cc)][0 if norm == "l1" else 1]
            for scheme, mp, cc, _thr, norm in um.ALL_METRIC_PARAMETERS
        ]
    )


@pytest.mark.parametrize(
    "labels, probs, table",
    [(LB, PB.reshape(8, 1), TABLE_BINARY), (L3, P3_PADDED, TABLE_PADDED)],
    ids=["binary_t6", "padded_t7"],
)
def test_compute_all_metrics_tables(labels, probs, table):
    values = um.compute_all_metrics(labels, probs)
    assert values.shape == (32,)
    assert ((values >= 0) & (values <= 1)).all()
    np.testing.assert_allclose(values, _expected_32(table), rtol=1e-13, atol=0)
    # every value is also what gce gives for that parameter combination
    for value, (scheme, mp, cc, thr, norm) in zip(values, um.ALL_METRIC_PARAMETERS, strict=True):
        assert value == um.general_calibration_error(
            labels, probs, scheme, mp, cc, norm, threshold=thr
        )


def test_compute_all_metrics_order():
    params = um.ALL_METRIC_PARAMETERS
    assert len(params) == 32
    assert params[0] == ("even", True, True, 0.0, "l1")
    assert params[1] == ("even", True, True, 0.0, "l2")
    assert params[2] == ("even", True, True, 0.01, "l1")
    assert params[-1] == ("adaptive", False, False, 0.01, "l2")


# --------------------------------------------------------------------------------------
# values computed by running the reference module general_calibration_error.py
# --------------------------------------------------------------------------------------


def test_named_functions_ten_bins():
    assert um.sce(LM, PM, num_bins=10) == pytest.approx(0.29111111111111115, rel=1e-15)
    assert um.ace(LM, PM, num_bins=10) == pytest.approx(0.39666666666666667, rel=1e-15)
    assert um.tace(LM, PM, num_bins=10) == pytest.approx(0.41, rel=1e-15)


def test_named_functions_default_bins():
    assert um.ece(LM, PM) == pytest.approx(0.37833333333333335, rel=1e-15)
    assert um.rmsce(LM, PM) == pytest.approx(0.5498636194548607, rel=1e-15)
    assert um.sce(LM, PM) == pytest.approx(0.29111111111111115, rel=1e-15)
    assert um.ace(LM, PM) == pytest.approx(0.3966666666666667, rel=1e-15)
    assert um.tace(LM, PM) == pytest.approx(0.41000000000000003, rel=1e-15)


def test_aliases():
    assert um.general_calibration_error is um.gce
    assert um.root_mean_squared_calibration_error is um.rmsce
    assert um.static_calibration_error is um.sce
    assert um.adaptive_calibration_error is um.ace
    assert um.thresholded_adaptive_calibration_error is um.tace


def test_named_functions_are_gce_special_cases():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(4), size=40)
    y = rng.integers(0, 4, size=40)
    assert um.ece(y, P, 7) == um.gce(y, P, "even", True, False, "l1", 7)
    assert um.rmsce(y, P, 7) == um.gce(y, P, "adaptive", True, False, "l2", 7)
    assert um.sce(y, P, 7) == um.gce(y, P, "even", False, True, "l1", 7)
    assert um.ace(y, P, 7) == um.gce(y, P, "adaptive", False, True, "l1", 7)
    assert um.tace(y, P, 7, 0.2) == um.gce(y, P, "adaptive", False, True, "l1", 7, 0.2)
    assert um.rmsce(y, P, datapoints_per_bin=8) == um.gce(y, P, "adaptive", True, False, "l2", 5)


def test_sce_three_class_derived():
    probs = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    assert um.sce([0, 1, 2], probs, num_bins=10) == pytest.approx(0.28888888888888886, rel=1e-15)


def test_binary_edge_bin_of_one():
    # p = 1.0 has its own extra bin under the NumPy rule: 0.5 * 0.05 + 0.5 * 1
    assert um.ece([0, 1], [1.0, 0.95], num_bins=10) == pytest.approx(0.525, rel=1e-15)
    # skcalib's own top-label ECE puts 1.0 into the last bin: the TF-rule value 0.475
    assert skm.general_calibration_error(
        [0, 1], [1.0, 0.95], n_bins=10, multiclass="top_label"
    ) == pytest.approx(0.475, rel=1e-15)


def test_datapoints_per_bin_zero_bins_single_bin():
    # int(3 / 100) = 0 bins -> one bin over everything
    value = um.gce(
        [0, 1, 1], [0.2, 0.7, 0.9], "adaptive", True, False, "l2", datapoints_per_bin=100
    )
    assert value == pytest.approx(0.2000000000000001, rel=1e-15)
    assert value == um.rmsce([0, 1, 1], [0.2, 0.7, 0.9], datapoints_per_bin=100)


def test_datapoints_per_bin_requires_adaptive():
    with pytest.raises(ValueError, match="binning_scheme must be 'adaptive'"):
        um.gce([0, 1, 1], [0.2, 0.7, 0.9], "even", True, False, "l2", datapoints_per_bin=2)


def test_edge_behaviour_derived():
    # empty input
    assert um.gce(np.array([], int), np.zeros((0, 3)), "even", True, False, "l1") == 0.0
    for scheme, mp, cc, thr, norm in um.ALL_METRIC_PARAMETERS:
        assert um.gce([], np.zeros((0, 3)), scheme, mp, cc, norm, threshold=thr) == 0.0
    assert um.ece([], []) == 0.0  # the reference raises IndexError here
    # NaN rows are dropped by the strict threshold
    assert um.ece([1, 0], [np.nan, 0.3]) == pytest.approx(0.3, rel=1e-15)
    # binary tie p = 0.5: class 0 wins with confidence 0.5
    assert um.ece([0], [0.5]) == pytest.approx(0.5, rel=1e-15)
    assert um.ece([1], [0.5]) == pytest.approx(0.5, rel=1e-15)


def test_zero_threshold_drops_exact_zeros():
    # the zero column of P3_PADDED never counts: same numbers for threshold 0 and 0.01,
    # and class-conditional variants divide by all 4 columns
    a = um.sce(L3, P3_PADDED, 30)
    assert a == pytest.approx(TABLE_PADDED[("even", False, True)][0], rel=1e-13)
    assert a == pytest.approx(um.sce(L3, P3, 30) * 3 / 4, rel=1e-12)


def test_nan_in_row_drops_row_from_top_label():
    P = np.array([[0.2, 0.8], [np.nan, 0.4], [0.7, 0.3]])
    y = [1, 1, 0]
    assert um.ece(y, P, 10) == pytest.approx(um.ece([1, 0], P[[0, 2]], 10), rel=1e-15)
    assert np.isfinite(um.compute_all_metrics(y, P)).all()


# --------------------------------------------------------------------------------------
# binning rules: "even" bins (np.digitize on linspace upper edges) and get_adaptive_bins
# --------------------------------------------------------------------------------------


def test_even_bins_float_edges_m10():
    p = np.arange(11) / 10
    assert um_assign_bins(p, um_even_upper_edges(10)).tolist() == [0, 1, 2, 2, 4, 5, 5, 6, 8, 9, 10]


@pytest.mark.parametrize("M", [15, 30])
def test_even_bins_no_misplaced_edges(M):
    p = np.arange(M + 1) / M
    assert um_assign_bins(p, um_even_upper_edges(M)).tolist() == list(range(M + 1))


def test_even_bins_below_zero_and_extra_bin():
    b = um_assign_bins(np.array([-0.5, 0.0, 0.999, 1.0, 1.5]), um_even_upper_edges(4))
    assert b.tolist() == [0, 0, 3, 4, 4]


@pytest.mark.parametrize(
    "values, M, edges, sizes",
    [
        ([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], 3, [0.3, 0.6], [2, 3, 2]),
        (np.arange(10) / 10, 4, [0.2, 0.5, 0.8], [2, 3, 3, 2]),
        ([0.5] * 5 + [0.9], 3, [0.5, 0.5], [0, 0, 6]),
    ],
)
def test_get_adaptive_bins_derived(values, M, edges, sizes):
    values = np.asarray(values, dtype=float)
    got = um_adaptive_upper_edges(values, M)
    assert got.tolist() == edges
    counts = np.bincount(um_assign_bins(values, got), minlength=M)
    assert counts.tolist() == sizes


def test_get_adaptive_bins_empty():
    assert um_adaptive_upper_edges(np.array([]), 4).tolist() == [0, 0.25, 0.5, 0.75]
    assert um_adaptive_upper_edges(np.array([0.3, 0.1]), 0).tolist() == []


def test_get_adaptive_bins_reference_test():
    # GetAdaptiveBinsTest of general_calibration_error_test.py
    np.random.seed(0)
    predictions = np.random.rand(500)
    cases = [(predictions, m) for m in list(range(1, 50)) + list(range(495, 505))]
    cases.append((np.random.rand(5), 30))
    for pred, m in cases:
        counts = np.bincount(um_assign_bins(pred, um_adaptive_upper_edges(pred, m)))
        assert len(counts) == m
        assert counts.sum() == len(pred)
        assert counts.max() - counts.min() <= 1


def test_um_bin_stats_is_binstats():
    v = np.array([0.05, 0.3, 0.3, 0.95, 1.0])
    t = np.array([0, 1, 0, 1, 1])
    stats = um_bin_stats(v, t, um_even_upper_edges(10), 10)
    assert isinstance(stats, BinStats)
    assert stats.n_groups == 1 and stats.n_bins == 11  # extra bin for 1.0
    assert stats.count[0].tolist() == [1, 0, 2, 0, 0, 0, 0, 0, 0, 1, 1]
    assert stats.sum_true[0].tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1]
    np.testing.assert_allclose(stats.sum_proba[0][[0, 2, 9, 10]], [0.05, 0.6, 0.95, 1.0])
    assert stats.total_weight == 5.0
    assert stats.bin_edges.shape == (1, 12)
    assert stats.bin_edges[0, 0] == -np.inf and stats.bin_edges[0, -1] == np.inf
    # without a value >= 1 the arrays have M entries, the last edge is 1
    stats = um_bin_stats(v[:4], t[:4], um_even_upper_edges(10), 10)
    assert stats.n_bins == 10 and stats.bin_edges[0, -1] == 1.0


# --------------------------------------------------------------------------------------
# brute force: slow pure-Python implementation written from the reference's code
# --------------------------------------------------------------------------------------

EPS = 2.220446049250313e-16


def _slow_kernel(values, targets, upper, num_bins, norm):
    """The reference's per-group kernel (``GeneralCalibrationError``), one value at a time."""
    if len(values) == 0:
        return 0.0
    index = [sum(1 for u in upper if u <= v) for v in values]  # digitize, right=False
    n_bins = max(num_bins, max(index) + 1)
    count, sum_v, sum_t = [0] * n_bins, [0.0] * n_bins, [0.0] * n_bins
    for b, v, t in zip(index, values, targets, strict=True):
        count[b] += 1
        sum_v[b] += v
        sum_t[b] += t
    total = 0.0
    for b in range(n_bins):
        c = count[b] + EPS
        gap = sum_t[b] / c - sum_v[b] / c
        total += (abs(gap) if norm == "l1" else gap * gap) * (c / len(values))
    return total


def _slow_adaptive_upper(values, num_bins):
    """The reference's ``get_adaptive_bins`` (non-empty input)."""
    s = sorted(values)
    n = len(s)
    positions = np.linspace(0, n, num_bins, endpoint=False)
    idx = [min(round(float(x)), n - 1) for x in positions]  # round() is half-to-even
    return [s[i] for i in idx][1:]


def _slow_argmax(row):
    for j, v in enumerate(row):
        if v != v:  # NaN wins, as np.argmax
            return j
    best = 0
    for j, v in enumerate(row):
        if v > row[best]:
            best = j
    return best


def _slow_gce(
    labels, probs, scheme, max_prob, cc, norm, num_bins=30, threshold=0.0, datapoints_per_bin=None
):
    probs = np.asarray(probs)
    if probs.ndim == 2 and probs.shape[1] == 1:
        probs = probs[:, 0]
    if probs.ndim == 1:
        rows = [[1 - float(p), float(p)] for p in probs]
    else:
        rows = [[float(v) for v in r] for r in probs]
    labels = [int(v) for v in labels]
    k = probs.shape[1] if probs.ndim == 2 else 2
    if datapoints_per_bin is not None:
        num_bins = int(len(rows) / datapoints_per_bin)
    if not cc:
        if max_prob:
            pairs = []
            for r, y in zip(rows, labels, strict=True):
                a = _slow_argmax(r)
                pairs.append((r[a], 1.0 if y == a else 0.0))
        else:
            pairs = [
                (r[j], 1.0 if y == j else 0.0)
                for r, y in zip(rows, labels, strict=True)
                for j in range(k)
            ]
        groups = [pairs]
    else:
        groups = []
        for j in range(k):
            groups.append(
                [
                    (r[j], 1.0 if y == j else 0.0)
                    for r, y in zip(rows, labels, strict=True)
                    if not max_prob or _slow_argmax(r) == j
                ]
            )
    errors = []
    for pairs in groups:
        kept = [(v, t) for v, t in pairs if v > threshold]
        values = [v for v, _ in kept]
        if scheme == "even":
            upper = [float(u) for u in np.linspace(0, 1, num_bins + 1)[1:]]
        else:
            upper = _slow_adaptive_upper(values, num_bins) if values else []
        errors.append(_slow_kernel(values, [t for _, t in kept], upper, num_bins, norm))
    error = errors[0] if not cc else sum(e / k for e in errors)
    return math.sqrt(error) if norm == "l2" else error


def _random_case(rng):
    n = int(rng.integers(0, 50))
    shape = rng.choice(["1d", "n1", "2d"])
    k = 2 if shape != "2d" else int(rng.integers(2, 6))
    if shape == "2d":
        P = rng.dirichlet(np.full(k, rng.choice([0.3, 1.0, 3.0])), size=n)
    else:
        P = rng.uniform(size=n)
    style = rng.integers(0, 4)
    if style == 1:  # a grid: ties and values on (or near) the bin edges
        P = np.round(P * 10) / 10
    elif style == 2 and n:  # exact zeros, exact ones and a NaN
        P = P.copy()
        P.flat[rng.integers(0, P.size, size=3)] = 0.0
        P.flat[rng.integers(0, P.size)] = 1.0
        P.flat[rng.integers(0, P.size)] = np.nan
    if shape == "n1":
        P = P.reshape(-1, 1)
    y = rng.integers(0, k, size=n)
    return y, P


@pytest.mark.parametrize("seed", range(12))
def test_against_slow_implementation(seed):
    rng = np.random.default_rng(seed)
    for _ in range(4):
        y, P = _random_case(rng)
        for num_bins in (1, 4, 10, 30):
            for scheme, mp, cc, thr, norm in um.ALL_METRIC_PARAMETERS:
                fast = um.gce(y, P, scheme, mp, cc, norm, num_bins, thr)
                slow = _slow_gce(y, P, scheme, mp, cc, norm, num_bins, thr)
                assert fast == pytest.approx(slow, rel=1e-12, abs=1e-15), (
                    scheme,
                    mp,
                    cc,
                    thr,
                    norm,
                    num_bins,
                )
        # datapoints_per_bin (including 0 bins) and a large threshold
        for dpb in (1, 3, 7, 1000):
            assert um.rmsce(y, P, datapoints_per_bin=dpb) == pytest.approx(
                _slow_gce(y, P, "adaptive", True, False, "l2", datapoints_per_bin=dpb),
                rel=1e-12,
                abs=1e-15,
            )
        assert um.tace(y, P, 5, 0.3) == pytest.approx(
            _slow_gce(y, P, "adaptive", False, True, "l1", 5, 0.3), rel=1e-12, abs=1e-15
        )


def test_float32_input_against_slow_implementation():
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(4), size=60).astype(np.float32)
    y = rng.integers(0, 4, size=60)
    for scheme, mp, cc, thr, norm in um.ALL_METRIC_PARAMETERS:
        assert um.gce(y, P, scheme, mp, cc, norm, 10, thr) == pytest.approx(
            _slow_gce(y, P, scheme, mp, cc, norm, 10, thr), rel=1e-12
        )


# --------------------------------------------------------------------------------------
# relation to skcalib.metrics: equal exactly where the documented differences vanish
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_skcalib_when_no_edge_no_zero(seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(4), size=200)  # continuous: no value on an edge, no zero
    y = rng.integers(0, 4, size=200)
    # top-label ECE: only the bin closure differs, and no value is on an edge
    assert um.ece(y, P, 10) == pytest.approx(
        skm.expected_calibration_error(y, P, n_bins=10), rel=1e-12
    )
    # SCE: with no zero every class keeps all N values, so N_k = N
    assert um.sce(y, P, 10) == pytest.approx(
        skm.static_calibration_error(y, P, n_bins=10), rel=1e-12
    )
    # binary: UM measures top-label, skcalib's "auto" the positive class
    yb = rng.integers(0, 2, size=200)
    p = rng.uniform(size=200)
    assert um.ece(yb, p, 10) == pytest.approx(
        skm.general_calibration_error(yb, p, n_bins=10, multiclass="top_label"), rel=1e-12
    )


def test_threshold_normalisation_differs_from_skcalib():
    # TACE: UM divides class k by its kept count N_k, skcalib by N (Nixon et al.)
    P = np.array([[0.7, 0.3, 0.0], [0.6, 0.0, 0.4], [0.2, 0.8, 0.0], [0.1, 0.1, 0.8]])
    y = np.array([0, 2, 1, 2])
    # one bin per class: per class |sum_t - sum_p| / N_k (UM) or / N (skcalib)
    gaps = [abs(1 - 1.6), abs(1 - 1.2), abs(2 - 1.2)]
    kept = [4, 3, 2]
    expected = sum(g / n for g, n in zip(gaps, kept, strict=True)) / 3
    assert um.tace(y, P, 1) == pytest.approx(expected)
    assert skm.thresholded_adaptive_calibration_error(
        y, P, n_bins=1, threshold=0.01
    ) == pytest.approx(sum(gaps) / 4 / 3)


# --------------------------------------------------------------------------------------
# documentation table (doc/compat.rst)
# --------------------------------------------------------------------------------------


# the example of doc/compat.rst: rows sum to one (skcalib validates them), with an exact
# zero, a confidence of 1.0 next to 0.95, and confidences on bin edges
DOC_P = np.array(
    [
        [0.7, 0.2, 0.1],
        [0.5, 0.5, 0.0],
        [0.1, 0.6, 0.3],
        [0.3, 0.3, 0.4],
        [1.0, 0.0, 0.0],
        [0.95, 0.05, 0.0],
        [0.35, 0.3, 0.35],
        [0.05, 0.15, 0.8],
        [0.6, 0.3, 0.1],
        [0.2, 0.7, 0.1],
    ]
)
DOC_Y = np.array([0, 1, 1, 2, 0, 1, 1, 2, 1, 0])


def test_doc_compat_table():
    P, y = DOC_P, DOC_Y
    rows = {
        "ece": (um.ece(y, P, 10), skm.expected_calibration_error(y, P, n_bins=10)),
        "ece_default": (um.ece(y, P), skm.expected_calibration_error(y, P)),
        "rmsce": (um.rmsce(y, P, 10), skm.root_mean_squared_calibration_error(y, P, n_bins=10)),
        "sce": (um.sce(y, P, 10), skm.static_calibration_error(y, P, n_bins=10)),
        "ace": (um.ace(y, P, 10), skm.adaptive_calibration_error(y, P, n_bins=10)),
        "tace": (um.tace(y, P, 10), skm.thresholded_adaptive_calibration_error(y, P, n_bins=10)),
        "gce_l2": (
            um.gce(y, P, "even", True, False, "l2", 10),
            skm.general_calibration_error(y, P, n_bins=10, norm="l2"),
        ),
        "ece_binary": (um.ece(LB, PB, 10), skm.expected_calibration_error(LB, PB, n_bins=10)),
        "ece_binary_top": (
            um.ece(LB, PB, 10),
            skm.general_calibration_error(LB, PB, n_bins=10, multiclass="top_label"),
        ),
        "ece_edge": (
            um.ece([0, 1], [1.0, 0.95], 10),
            skm.general_calibration_error([0, 1], [1.0, 0.95], n_bins=10, multiclass="top_label"),
        ),
    }
    documented = {
        "ece": (0.3200, 0.2500),
        "ece_default": (0.3200, 0.2500),
        "rmsce": (0.4213, 0.4213),
        "sce": (0.3283, 0.3000),
        "ace": (0.3631, 0.3233),
        "tace": (0.3631, 0.3233),
        "gce_l2": (0.4085, 0.2954),
        "ece_binary": (0.1813, 0.2838),
        "ece_binary_top": (0.1813, 0.1813),  # both 0.18125 up to float rounding
        "ece_edge": (0.5250, 0.4750),
    }
    for name, values in rows.items():
        # each documented figure is the value rounded to 4 decimals; a value that is a
        # float's rounding error away from a half-way point may be rounded either way
        assert np.abs(np.subtract(values, documented[name])).max() <= 5e-5 + 1e-12, name


# --------------------------------------------------------------------------------------
# input validation: ValueError where the reference crashes or computes garbage
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: um.gce(LM, PM, "uniform", True, False, "l1"), "binning_scheme"),
        (lambda: um.gce(LM, PM, "even", True, False, "max"), "norm"),
        (lambda: um.gce(LM, PM, "even", "yes", False, "l1"), "max_prob"),
        (lambda: um.gce(LM, PM, "even", True, None, "l1"), "class_conditional"),
        (lambda: um.ece(LM + 0.5, PM), "integer class indices"),
        (lambda: um.ece(["a"] * 6, PM), "integer class indices"),
        (lambda: um.ece([1, 0, 0, 1, 0, 3], PM), r"\[0, 3\)"),
        (lambda: um.ece([1, 0, 0, 1, 0, -1], PM), r"\[0, 3\)"),
        (lambda: um.ece([0, 2], [0.3, 0.6]), r"\[0, 2\)"),
        (lambda: um.ece(np.eye(3)[LM], PM), "1-D"),
        (lambda: um.ece(LM[:5], PM), r"shape \(5,\), expected \(6,\)"),
        (lambda: um.ece(LM, PM[None]), "1 or 2 dimensions"),
        (lambda: um.ece([0], np.array(0.3)), "1 or 2 dimensions"),
        (lambda: um.ece([0, 1], np.zeros((2, 0))), "no column"),
        (lambda: um.ece([0, 1], [[0.5, np.inf], [0.5, 0.5]]), "infinity"),
        (lambda: um.ece([0, 1], [["a", "b"], ["c", "d"]]), "numbers"),
        (lambda: um.ece([0, 1], [[0.5, 0.5], [0.5]]), "probs"),
        (lambda: um.ece(LM, PM, num_bins=0), "num_bins"),
        (lambda: um.ece(LM, PM, num_bins=-1), "num_bins"),
        (lambda: um.ece(LM, PM, num_bins=2.5), "num_bins"),
        (lambda: um.tace(LM, PM, threshold=np.nan), "threshold"),
        (lambda: um.rmsce(LM, PM, datapoints_per_bin=0), "datapoints_per_bin"),
        (lambda: um.gce(LM, PM, "even", True, False, "l1", 10, 0.0, 2), "adaptive"),
        (lambda: um.compute_all_metrics(LM, PM[:, :, None]), "1 or 2 dimensions"),
    ],
)
def test_invalid_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_label_encodings_accepted():
    # integer-valued floats and booleans are indices (the reference raises IndexError
    # for floats), pandas-like and list input work
    ref = um.ece(LB, PB, 10)
    assert um.ece(LB.astype(float), PB, 10) == ref
    assert um.ece(LB.astype(bool), PB, 10) == ref
    assert um.ece(LB.astype(np.uint8), PB, 10) == ref
    assert um.ece(LB.tolist(), PB.tolist(), 10) == ref


def test_unnormalised_rows_are_not_validated():
    # the reference does not check row sums: scores that do not sum to one are binned
    P = np.array([[0.2, 0.3], [0.9, 0.6], [0.4, 0.1]])
    assert um.ece([1, 0, 0], P, 2) == pytest.approx(
        _slow_gce([1, 0, 0], P, "even", True, False, "l1", 2), rel=1e-15
    )


def test_inputs_not_modified():
    P = PM.copy()
    y = LM.copy()
    um.compute_all_metrics(y, P)
    um.rmsce(y, P, datapoints_per_bin=2)
    np.testing.assert_array_equal(P, PM)
    np.testing.assert_array_equal(y, LM)
    p = PB.reshape(8, 1).copy()
    um.ece(LB, p)
    np.testing.assert_array_equal(p, PB.reshape(8, 1))


def test_internal_options_are_keyword_only():
    # the kernels take their flags by name: _gce(y, P, "adaptive", True, False, "l2", ...)
    # could swap max_prob and class_conditional without an error
    import inspect

    from skcalib.compat import uncertainty_metrics as module

    for func, options in [
        (
            module._gce,
            ["binning_scheme", "max_prob", "class_conditional", "norm", "num_bins", "threshold"],
        ),
        (module._group_error, ["binning_scheme", "num_bins", "norm"]),
        (module._num_bins, ["binning_scheme", "num_bins", "datapoints_per_bin"]),
    ]:
        params = inspect.signature(func).parameters
        for name in options:
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (func.__name__, name)
    y = np.array([1, 0, 1, 1, 0, 1, 0, 0])
    p = np.array([0.91, 0.32, 0.66, 0.67, 0.57, 0.98, 0.41, 0.19])
    P = np.stack([1 - p, p], axis=1)
    with pytest.raises(TypeError):
        module._gce(y, P, "even", True, False, "l1", 30, 0.0)
    options = {"binning_scheme": "even", "norm": "l1", "num_bins": 30, "threshold": 0.0}
    top_label = module._gce(y, P, max_prob=True, class_conditional=False, **options)
    assert top_label == um.gce(y, p, "even", True, False, "l1") == pytest.approx(0.18125)
