"""Golden values, toy cases and slow-vs-fast agreement for the calibration-error family."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.calibration import calibration_curve

from skcalib._core._binning import assign_bins, bin_stats, stats_of_input, uniform_bin_edges
from skcalib._core._validation import check_classification_input
from skcalib.metrics import (
    BinStats,
    ReliabilityCurveResult,
    adaptive_calibration_error,
    calibration_error_from_bin_stats,
    compute_bin_stats,
    expected_calibration_error,
    general_calibration_error,
    max_calibration_error,
    quantile_bin_edges,
    reliability_curve,
    root_mean_squared_calibration_error,
    static_calibration_error,
    thresholded_adaptive_calibration_error,
)

from ._result_checks import check_unpackable_result
from ._slow_calibration import slow_gce

# --------------------------------------------------------------------------------------
# golden values from independent sources
# --------------------------------------------------------------------------------------

# google/uncertainty-metrics, uncertainty_metrics/tensorflow/calibration_test.py,
# testECEBinaryClassification (num_bins=10, ECE 0.145): binary, top-label confidences
# away from every edge, so the TensorFlow bins equal ours.
UM_PRED = np.array([0.51, 0.45, 0.39, 0.66, 0.68, 0.29, 0.81, 0.85])
UM_LAB = np.array([0, 0, 0, 1, 0, 1, 1, 1])


def test_um_tf_binary_top_label_golden():
    ece = expected_calibration_error(UM_LAB, UM_PRED, n_bins=10, multiclass="top_label")
    assert ece == pytest.approx(0.145, abs=1e-12)
    curve = reliability_curve(UM_LAB, UM_PRED, n_bins=10, multiclass="top_label")
    assert_array_equal(curve.bin_count, [0, 0, 0, 0, 0, 2, 3, 1, 2, 0])
    sums_true = np.nan_to_num(curve.prob_true * curve.bin_count)
    assert_allclose(sums_true, [0, 0, 0, 0, 0, 1, 2, 0, 2, 0], atol=1e-12)
    sums_pred = np.nan_to_num(curve.prob_pred * curve.bin_count)
    expected = [0, 0, 0, 0, 0, 0.51 + 0.55, 0.61 + 0.66 + 0.68, 0.71, 0.81 + 0.85, 0]
    assert_allclose(sums_pred, expected, atol=1e-12)


def test_tfp_legacy_expected_calibration_error_golden():
    # tensorflow-probability, tfp.stats.expected_calibration_error test (num_bins=3,
    # probs [[.3, .7], [.9, .1], [.4, .6]], labels [1, 0, 0]) -> 0.33333333
    P = np.array([[0.3, 0.7], [0.9, 0.1], [0.4, 0.6]])
    assert expected_calibration_error([1, 0, 0], P, n_bins=3, multiclass="top_label") == (
        pytest.approx(1 / 3, abs=1e-12)
    )


def test_hand_computed_binary():
    # bins (0, .5], (.5, 1]: {0.1, 0.4} -> acc 0, conf .25 ; {0.8, 0.6} -> acc 1, conf .7
    y, p = [0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4]
    assert expected_calibration_error(y, p, n_bins=2) == pytest.approx(0.275, abs=1e-15)
    assert max_calibration_error(y, p, n_bins=2) == pytest.approx(0.3, abs=1e-15)
    l2 = general_calibration_error(y, p, n_bins=2, norm="l2")
    assert l2 == pytest.approx(np.sqrt(0.5 * 0.25**2 + 0.5 * 0.3**2), abs=1e-15)
    # debiased: acc 0 and 1 have zero variance, so same as the plug-in
    assert general_calibration_error(y, p, n_bins=2, norm="l2", debias=True) == pytest.approx(l2)


def test_hand_computed_debias():
    # one bin, outcomes [1, 0, 1, 0], conf 0.5 everywhere: plug-in 0, debiased
    # 0 - 0.25/3 < 0 -> clipped to 0.  With conf 0.2: gap .3, sq .09 - .25/3
    y = [1, 0, 1, 0]
    p = [0.2, 0.2, 0.2, 0.2]
    v = general_calibration_error(y, p, n_bins=1, norm="l2", debias=True)
    assert v == pytest.approx(np.sqrt(0.09 - 0.25 / 3), abs=1e-15)
    v0 = general_calibration_error(y, [0.5] * 4, n_bins=1, norm="l2", debias=True)
    assert v0 == 0.0


def test_hand_computed_multiclass_top_label_and_classwise():
    P = [[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6]]
    y = [0, 2, 2]
    # top-label confidences .7 (correct), .6 (wrong), .6 (correct)
    # bins of width .1: (.6,.7] -> |1-.7| ; (.5,.6] -> acc .5 conf .6
    # class 1 is missing from y: the classes are given
    ece = expected_calibration_error(y, P, n_bins=10, labels=[0, 1, 2])
    assert ece == pytest.approx((0.3 + 0.2) / 3)
    # class-wise, Nixon normalisation: sum_k sum_b n_kb/N |acc - conf| / K
    P2 = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    sce = static_calibration_error([0, 1, 2], P2, n_bins=10)
    assert sce == pytest.approx((1.2 / 3 + 0.8 / 3 + 1.2 / 3) / 3)


def test_equal_mass_rmsce_one_point_per_bin():
    # with one point per bin, RMSCE = sqrt(mean (z - c)^2) by its definition
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(3), size=9)
    y = rng.integers(0, 3, size=9)
    conf = P.max(axis=1)
    z = P.argmax(axis=1) == y
    expected = np.sqrt(np.mean((z - conf) ** 2))
    assert root_mean_squared_calibration_error(y, P, n_bins=9) == pytest.approx(expected)


@pytest.mark.parametrize("n_bins", [5, 10, 15, 20])
@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_sklearn_calibration_curve(n_bins, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(500)
    p[:20] = np.round(p[:20] * n_bins) / n_bins  # values exactly on edges
    p[20] = 0.0
    p[21] = 1.0
    y = (rng.random(500) < p**1.3).astype(int)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins)
    curve = reliability_curve(y, p, n_bins=n_bins)
    nz = curve.bin_count > 0
    assert_allclose(curve.prob_true[nz], prob_true, rtol=1e-12)
    assert_allclose(curve.prob_pred[nz], prob_pred, rtol=1e-12)
    # and the ECE is the count-weighted mean gap of those bins
    counts = curve.bin_count[nz]
    ece = np.sum(counts * np.abs(prob_true - prob_pred)) / counts.sum()
    assert expected_calibration_error(y, p, n_bins=n_bins) == pytest.approx(ece, rel=1e-12)


# --------------------------------------------------------------------------------------
# the binning rule
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_bins", [1, 2, 3, 7, 10, 15, 30, 100])
def test_uniform_assignment_exact_on_edges(n_bins):
    edges = uniform_bin_edges(n_bins)
    assert_array_equal(edges, np.linspace(0, 1, n_bins + 1))
    x = np.concatenate([edges, np.nextafter(edges, 2), np.nextafter(edges, -1)])
    x = np.clip(x, 0, 1)
    b = assign_bins(x, edges)
    ref = np.clip(np.searchsorted(edges, x, side="left") - 1, 0, n_bins - 1)
    assert_array_equal(b, ref)
    # right-closed: edge k/n (k >= 1) belongs to bin k-1; 0 to bin 0, 1 to the last bin
    assert_array_equal(assign_bins(edges, edges), np.r_[0, np.arange(n_bins)])
    x32 = x.astype(np.float32)
    ref32 = np.clip(np.searchsorted(edges, x32.astype(np.float64), side="left") - 1, 0, n_bins - 1)
    assert_array_equal(assign_bins(x32, edges), ref32)


def test_uniform_assignment_random_matches_searchsorted():
    rng = np.random.default_rng(0)
    for n_bins in (3, 10, 15, 37):
        x = rng.random(10000)
        x[::7] = rng.integers(0, n_bins + 1, x[::7].size) / n_bins
        edges = uniform_bin_edges(n_bins)
        ref = np.clip(np.searchsorted(edges, x, side="left") - 1, 0, n_bins - 1)
        assert_array_equal(assign_bins(x, edges), ref)


def test_quantile_edges_equal_mass_and_ties():
    x = np.arange(1, 11) / 10.0  # 10 distinct values
    e = quantile_bin_edges(x, 5)
    assert_allclose(e, [0, 0.2, 0.4, 0.6, 0.8, 1.0])
    b = assign_bins(x, e)
    assert_array_equal(np.bincount(b, minlength=5), [2, 2, 2, 2, 2])
    # ties go to the lowest bin whose upper edge equals them -> empty later bins
    x = np.array([0.5] * 5 + [0.9])
    e = quantile_bin_edges(x, 3)
    assert_allclose(e, [0, 0.5, 0.5, 1.0])
    b = assign_bins(x, e)
    assert_array_equal(np.bincount(b, minlength=3), [5, 0, 1])


def test_quantile_edges_weighted_equals_repetition():
    rng = np.random.default_rng(1)
    x = rng.random(50)
    w = rng.integers(0, 4, 50)
    w[0] = 1
    for n_bins in (1, 2, 3, 7, 10):
        assert_array_equal(
            quantile_bin_edges(x, n_bins, sample_weight=w.astype(float)),
            quantile_bin_edges(np.repeat(x, w), n_bins),
        )


@pytest.mark.parametrize("n", [1, 2, 5, 499, 500, 501])
def test_quantile_bins_sizes_differ_by_at_most_one(n):
    rng = np.random.default_rng(n)
    x = rng.random(n)
    for n_bins in (1, 2, 3, 10, 30):
        e = quantile_bin_edges(x, n_bins)
        counts = np.bincount(assign_bins(x, e), minlength=n_bins)
        assert counts.sum() == n
        if n >= n_bins:
            assert counts.max() - counts.min() <= 1


# --------------------------------------------------------------------------------------
# fast kernels vs the slow loop implementation
# --------------------------------------------------------------------------------------


def _random_case(rng, n, k, *, with_edges=True):
    if k == 1:
        p = rng.random(n)
        if with_edges:
            p[: n // 10] = rng.integers(0, 16, n // 10) / 15
        y = (rng.random(n) < p).astype(int)
        return y, p
    P = rng.dirichlet(np.ones(k) * 0.7, size=n)
    if with_edges:
        # some rows with exact edge values and ties
        m = n // 10
        P[:m] = 0
        P[:m, 0] = 0.4
        P[:m, 1] = 0.4
        P[:m, 2 % k] += 0.2
    y = np.array([rng.choice(k, p=row) for row in P])
    y[-k:] = np.arange(k)  # every class occurs: the classes are those of y
    return y, P


CASES = [
    dict(),
    dict(norm="l2"),
    dict(norm="max"),
    dict(norm="l2", debias=True),
    dict(strategy="quantile"),
    dict(strategy="quantile", norm="l2"),
    dict(multiclass="top_label"),
    dict(multiclass="classwise"),
    dict(multiclass="classwise", strategy="quantile"),
    dict(multiclass="classwise", strategy="quantile", threshold=0.05),
    dict(multiclass="classwise", threshold=0.1, norm="max"),
    dict(threshold=0.3),
    dict(n_bins=1),
    dict(n_bins=7, strategy="quantile", multiclass="top_label"),
    dict(bins=[0, 0.1, 0.5, 0.55, 1.0]),
]


@pytest.mark.parametrize("kwargs", CASES, ids=[str(c) for c in CASES])
@pytest.mark.parametrize("k", [1, 2, 3, 6])
@pytest.mark.parametrize("weighted", [False, True])
def test_fast_matches_slow(kwargs, k, weighted):
    for seed in range(4):
        rng = np.random.default_rng(seed + 100 * k)
        n = int(rng.integers(5, 120))
        y, P = _random_case(rng, n, k)
        sw = rng.random(n) * 3 if weighted else None
        if weighted:
            sw[rng.random(n) < 0.2] = 0.0
            sw[0] = 1.0
        fast = general_calibration_error(y, P, sample_weight=sw, **kwargs)
        slow = slow_gce(
            list(y),
            [list(r) if k > 1 else r for r in P],
            sample_weight=None if sw is None else list(sw),
            **kwargs,
        )
        assert fast == pytest.approx(slow, rel=1e-9, abs=1e-12), (seed, n)


def test_named_metrics_are_their_general_form():
    rng = np.random.default_rng(7)
    y, P = _random_case(rng, 300, 4)
    assert expected_calibration_error(y, P) == general_calibration_error(y, P)
    assert max_calibration_error(y, P) == general_calibration_error(y, P, norm="max")
    assert root_mean_squared_calibration_error(y, P) == general_calibration_error(
        y, P, strategy="quantile", norm="l2"
    )
    assert static_calibration_error(y, P) == general_calibration_error(y, P, multiclass="classwise")
    assert adaptive_calibration_error(y, P) == general_calibration_error(
        y, P, multiclass="classwise", strategy="quantile"
    )
    assert thresholded_adaptive_calibration_error(y, P) == general_calibration_error(
        y, P, multiclass="classwise", strategy="quantile", threshold=0.01
    )
    assert expected_calibration_error(y, P, multiclass="classwise", n_bins=10) == (
        static_calibration_error(y, P, n_bins=10)
    )


def test_binary_1d_equals_two_columns():
    rng = np.random.default_rng(2)
    y, p = _random_case(rng, 200, 1)
    P = np.column_stack([1 - p, p])
    for mc in ("auto", "top_label", "classwise"):
        for strategy in ("uniform", "quantile"):
            a = general_calibration_error(y, p, multiclass=mc, strategy=strategy)
            b = general_calibration_error(y, P, multiclass=mc, strategy=strategy)
            assert a == pytest.approx(b, abs=1e-12), (mc, strategy)


def test_pos_label_selects_the_positive_class():
    y = np.array(["a", "b", "b", "a", "b"])
    p_b = np.array([0.2, 0.7, 0.9, 0.4, 0.6])
    # string labels: the class of a 1-D y_proba must be named, as in scikit-learn
    with pytest.raises(ValueError, match=r"takes values in \{'a', 'b'\} and pos_label is not"):
        expected_calibration_error(y, p_b, n_bins=5)
    default = expected_calibration_error(y, p_b, n_bins=5, pos_label="b")
    # same thing seen from the other class
    flipped = expected_calibration_error(y, 1 - p_b, n_bins=5, pos_label="a")
    slow = slow_gce(list(y), list(p_b), n_bins=5, pos_label="b")
    assert default == pytest.approx(slow)
    slow_a = slow_gce(list(y), list(1 - p_b), n_bins=5, pos_label="a")
    assert flipped == pytest.approx(slow_a)


# --------------------------------------------------------------------------------------
# BinStats
# --------------------------------------------------------------------------------------


def test_bin_stats_merge_equals_batch():
    rng = np.random.default_rng(5)
    y, P = _random_case(rng, 1000, 5)
    for mc in ("top_label", "classwise"):
        full = compute_bin_stats(y, P, multiclass=mc)
        parts = [
            compute_bin_stats(y[s], P[s], labels=range(5), multiclass=mc)
            for s in (slice(0, 137), slice(137, 600), slice(600, 1000))
        ]
        merged = parts[0].merge(parts[1]) + parts[2]
        assert_allclose(merged.count, full.count)
        assert_allclose(merged.sum_proba, full.sum_proba)
        assert_allclose(merged.sum_true, full.sum_true)
        assert merged.total_weight == full.total_weight
        assert calibration_error_from_bin_stats(merged) == pytest.approx(
            calibration_error_from_bin_stats(full)
        )


def test_bin_stats_merge_rejects_different_edges():
    a = BinStats(
        np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), np.array([[0, 0.5, 1.0]]), 1.0
    )
    b = BinStats(
        np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), np.array([[0, 0.4, 1.0]]), 1.0
    )
    with pytest.raises(ValueError, match="different bin edges"):
        a.merge(b)
    with pytest.raises(TypeError):
        a.merge(3)


def test_reliability_curve_shapes_and_consistency():
    rng = np.random.default_rng(9)
    y, P = _random_case(rng, 400, 4)
    c = reliability_curve(y, P, n_bins=10)
    assert c.prob_true.shape == c.prob_pred.shape == c.bin_count.shape == (10,)
    assert c.bin_edges.shape == (11,)
    nz = c.bin_count > 0
    assert np.isnan(c.prob_true[~nz]).all()
    ece = np.sum(c.bin_count[nz] * np.abs(c.prob_true[nz] - c.prob_pred[nz])) / 400
    assert ece == pytest.approx(expected_calibration_error(y, P, n_bins=10))
    cw = reliability_curve(y, P, n_bins=10, multiclass="classwise")
    assert cw.prob_true.shape == (4, 10)
    assert cw.bin_edges.shape == (4, 11)
    assert_allclose(cw.bin_count.sum(axis=1), 400)


@pytest.mark.parametrize("n_bins", [4, 10])
def test_reliability_curve_unpacks_as_calibration_curve(n_bins):
    """Regression: the curve was a Bunch, a dict: ``prob_true, prob_pred = curve``
    raised "too many values to unpack" (it has five or seven keys)."""
    rng = np.random.default_rng(n_bins)
    p = rng.random(600)
    y = (rng.random(600) < p**1.5).astype(int)
    want_true, want_pred = calibration_curve(y, p, n_bins=n_bins)
    curve = reliability_curve(y, p, n_bins=n_bins)
    assert (curve.bin_count > 0).all()  # calibration_curve drops empty bins
    prob_true, prob_pred = curve
    assert_allclose(prob_true, want_true, rtol=1e-12)
    assert_allclose(prob_pred, want_pred, rtol=1e-12)
    assert not np.allclose(prob_true, prob_pred)  # the order matters on this data
    check_unpackable_result(curve, ReliabilityCurveResult, ("prob_true", "prob_pred"))
    # everything else is an attribute, with its former value
    assert_allclose(curve.bin_count.sum(), 600)
    assert_allclose(curve.bin_edges, np.linspace(0, 1, n_bins + 1))
    assert_allclose(curve.bin_stats.count[0], curve.bin_count)
    assert curve.prob_true_low is None and curve.prob_true_high is None
    with_ci = reliability_curve(y, p, n_bins=n_bins, confidence_level=0.9)
    assert len(with_ci) == 2  # the intervals are attributes, not unpacked
    assert (with_ci.prob_true_low <= prob_true).all()
    assert (prob_true <= with_ci.prob_true_high).all()
    # results compare by value (the BinStats included), not by identity
    assert reliability_curve(y, p, n_bins=n_bins) == curve
    assert reliability_curve(y, p, n_bins=n_bins + 1) != curve
    assert with_ci != curve


def test_reliability_curve_classwise_unpacks_the_rows():
    rng = np.random.default_rng(5)
    y, P = _random_case(rng, 300, 3)
    prob_true, prob_pred = reliability_curve(y, P, n_bins=5, multiclass="classwise")
    assert prob_true.shape == prob_pred.shape == (3, 5)
    for k in range(3):
        mask = reliability_curve(y, P, n_bins=5, multiclass="classwise").bin_count[k] > 0
        want_true, want_pred = calibration_curve(y == k, P[:, k], n_bins=5)
        assert_allclose(prob_true[k][mask], want_true, rtol=1e-12)
        assert_allclose(prob_pred[k][mask], want_pred, rtol=1e-12)


# --------------------------------------------------------------------------------------
# options and errors
# --------------------------------------------------------------------------------------


def test_bad_options():
    y, p = [0, 1, 1], [0.2, 0.6, 0.9]
    with pytest.raises(ValueError, match="n_bins"):
        expected_calibration_error(y, p, n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        general_calibration_error(y, p, strategy="kmeans")
    with pytest.raises(ValueError, match="norm"):
        general_calibration_error(y, p, norm="l3")
    with pytest.raises(ValueError, match="multiclass"):
        general_calibration_error(y, p, multiclass="ovr")
    with pytest.raises(ValueError, match="debias"):
        general_calibration_error(y, p, debias=True)
    with pytest.raises(ValueError, match="threshold"):
        general_calibration_error(y, p, threshold=1.5)
    with pytest.raises(ValueError, match="bins must be strictly increasing"):
        general_calibration_error(y, p, bins=[0, 0.5, 0.5, 1])
    with pytest.raises(ValueError, match="cover"):
        general_calibration_error(y, p, bins=[0.1, 0.5, 1])
    with pytest.raises(ValueError, match="bins"):
        general_calibration_error(y, p, bins=[[0, 1]])


def test_threshold_one_class_left_gives_zero_not_nan():
    # everything below the threshold: nothing binned -> 0
    v = general_calibration_error(
        [0, 1], [0.1, 0.2], threshold=0.5, multiclass="top_label", norm="max"
    )
    # top-label: .9 (correct, gap .1) and .8 (wrong, gap .8) are kept
    assert v == pytest.approx(0.8)
    v = general_calibration_error([0, 1], [0.1, 0.2], threshold=0.95, norm="l2")
    assert v == 0.0


@pytest.mark.parametrize("mc", ["auto", "top_label", "classwise"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
def test_checked_pass_equals_kernel_on_validated_input(mc, strategy, weighted):
    # the public entry checks the values while it bins them; the kernel on validated
    # input reads the same chunks: the two give the same statistics
    rng = np.random.default_rng(12)
    y, P = _random_case(rng, 70_000, 3)  # several chunks
    sw = rng.random(70_000) if weighted else None
    data = check_classification_input(y, P, sample_weight=sw)
    opts = dict(multiclass=mc, strategy=strategy, n_bins=7, threshold=0.1)
    kernel = bin_stats(data, **opts)
    public = stats_of_input(y, P, sample_weight=sw, **opts)
    for name in ("count", "sum_proba", "sum_true", "bin_edges"):
        assert_array_equal(getattr(public, name), getattr(kernel, name))
    assert (public.sum_weight_sq is None) == (not weighted)
    assert public.total_weight == kernel.total_weight


# --------------------------------------------------------------------------------------
# regression tests: inputs that once gave wrong numbers or crashed
# --------------------------------------------------------------------------------------

_EDGE_Y = np.array([0, 2, 1])
_EDGE_P = np.array([[0.6, 0.0, 0.4], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])


def _layouts(P):
    """The same probabilities in C order, F order, as a strided view and a DataFrame."""
    import pandas as pd

    wide = np.zeros((P.shape[0], 2 * P.shape[1]))
    wide[:, ::2] = P
    return {
        "C": np.ascontiguousarray(P),
        "F": np.asfortranarray(P),
        "strided": wide[:, ::2],
        "DataFrame": pd.DataFrame(P),
    }


@pytest.mark.parametrize("layout", ["C", "F", "strided", "DataFrame"])
def test_classwise_values_on_edges_any_memory_layout(layout):
    P = _layouts(_EDGE_P)[layout]
    # by hand: class 0 has 0.6 (wrong) in bin 2 and 1.0 (right) in bin 4 -> 0.6 + 0;
    # class 1: 0 (wrong) twice in bin 0 and 1.0 (right) -> 0; class 2: 0.4 (right) in
    # bin 1 -> 0.6; zeros elsewhere.  (0.6 + 0.6 + 0.4) / (3 * 3) = 0.1777...; the
    # class-2 zeros of rows 1 and 2 sit in bin 0 with y=0: gap 0.
    ref = slow_gce(_EDGE_Y.tolist(), _EDGE_P.tolist(), n_bins=5, multiclass="classwise")
    assert static_calibration_error(_EDGE_Y, P, n_bins=5) == pytest.approx(0.5333333333333333)
    assert ref == pytest.approx(0.5333333333333333)
    curve = reliability_curve(_EDGE_Y, P, n_bins=5, multiclass="classwise")
    assert curve.bin_count.sum() == 9  # every probability lands in a bin


def test_onevsrest_fortran_proba_matches_c_order():
    from sklearn.datasets import load_wine
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.neighbors import KNeighborsClassifier

    X, y = load_wine(return_X_y=True)
    P = OneVsRestClassifier(KNeighborsClassifier(4)).fit(X, y).predict_proba(X)
    assert P.flags.f_contiguous and not P.flags.c_contiguous
    C = np.ascontiguousarray(P)
    assert static_calibration_error(y, P) == static_calibration_error(y, C)
    assert static_calibration_error(y, C) == pytest.approx(slow_gce(y, C, multiclass="classwise"))


@pytest.mark.parametrize("dtype, excess", [(np.float64, 1e-8), (np.float32, 3e-4)])
def test_entries_slightly_above_one_are_binned_as_one(dtype, excess):
    y = np.array([0, 1, 2])
    P = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    ref = expected_calibration_error(y, P.astype(dtype), n_bins=10)
    assert ref == pytest.approx(1 / 3)
    over = P.astype(dtype)
    over[1, 0] = dtype(1) + dtype(excess)
    assert over[1, 0] > 1
    for mc in ("auto", "classwise"):
        got = general_calibration_error(y, over, n_bins=10, multiclass=mc)
        assert got == pytest.approx(
            general_calibration_error(y, P.astype(dtype), n_bins=10, multiclass=mc), abs=1e-3
        )
        assert reliability_curve(y, over, n_bins=10, multiclass=mc).bin_count.sum() == (
            3 if mc == "auto" else 9
        )
    with pytest.raises(ValueError, match="probabilities in|sum to 1"):
        expected_calibration_error(y, np.array([[1.01, 0, 0], [1, 0, 0], [0, 0, 1]]))


def test_thresholded_quantile_with_zero_weight_class():
    y = [0, 1, 2]
    P = [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]
    w = [1, 1, 0]
    v = thresholded_adaptive_calibration_error(y, P, n_bins=2, threshold=0.5, sample_weight=w)
    ref = thresholded_adaptive_calibration_error(
        y[:2], P[:2], n_bins=2, threshold=0.5, labels=[0, 1, 2]
    )
    assert v == pytest.approx(ref)
    assert v == pytest.approx((0.2 + 0.2) / (2 * 3))
    curve = reliability_curve(
        y,
        P,
        n_bins=2,
        strategy="quantile",
        multiclass="classwise",
        threshold=0.5,
        sample_weight=w,
    )
    # the class with no kept value of positive weight gets the equal-width edges
    assert_array_equal(curve.bin_edges[2], [0.0, 0.5, 1.0])
    assert_array_equal(curve.bin_count[2], [0.0, 0.0])


def test_debias_does_not_depend_on_the_scale_of_the_weights():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(3), size=300)
    y = np.where(rng.random(300) < 0.5, P.argmax(axis=1), rng.integers(0, 3, 300))
    kw = dict(norm="l2", debias=True, n_bins=5)
    ref = general_calibration_error(y, P, **kw)
    assert ref > 0
    n = len(y)
    assert general_calibration_error(y, P, sample_weight=np.full(n, 1 / n), **kw) == (
        pytest.approx(ref, rel=1e-12)
    )
    w = rng.random(n)
    assert general_calibration_error(y, P, sample_weight=w, **kw) == pytest.approx(
        general_calibration_error(y, P, sample_weight=w * 1e-6, **kw), rel=1e-12
    )
    assert general_calibration_error(y, P, sample_weight=w, **kw) == pytest.approx(
        slow_gce(y, P, sample_weight=w, **kw), rel=1e-10
    )


def test_uniform_edges_are_sklearns_linspace():
    # 5/12 lies on the linspace edge 0.41666666666666663 < 5/12 = 0.4166666666666667:
    # the arange(n + 1) / n edges would put it in another bin than calibration_curve
    y, p = [1, 1, 0, 0], [5 / 12, 5 / 12, 0.40, 0.45]
    assert expected_calibration_error(y, p, n_bins=12) == pytest.approx(0.2791666666666667)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=12)
    curve = reliability_curve(y, p, n_bins=12)
    keep = curve.bin_count > 0
    assert_array_equal(curve.prob_true[keep], prob_true)
    assert_allclose(curve.prob_pred[keep], prob_pred, rtol=1e-15)


def test_uniform_edges_match_calibration_curve_on_every_edge():
    for n_bins in range(1, 101):
        edges = np.linspace(0, 1, n_bins + 1)
        p = np.concatenate([edges, np.nextafter(edges[1:], 0), np.nextafter(edges[:-1], 1)])
        y = (np.arange(p.size) % 2).astype(int)
        prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins)
        curve = reliability_curve(y, p, n_bins=n_bins)
        keep = curve.bin_count > 0
        assert_array_equal(curve.prob_true[keep], prob_true)
        assert_allclose(curve.prob_pred[keep], prob_pred, rtol=1e-14)


def test_quantile_bin_edges_strict():
    with pytest.raises(ValueError, match="x is empty"):
        quantile_bin_edges(np.array([]), 5)
    with pytest.raises(ValueError, match=r"x must contain probabilities in \[0, 1\]"):
        quantile_bin_edges([0.2, 1.5], 2)
    with pytest.raises(ValueError, match="n_bins"):
        quantile_bin_edges([0.2, 0.5], 0)
    with pytest.raises(ValueError, match="n_bins"):
        uniform_bin_edges(0)
    with pytest.raises(ValueError, match="n_bins"):
        uniform_bin_edges(True)


def test_threshold_quantiles_are_those_of_the_kept_values_everywhere():
    p = np.linspace(0.01, 0.99, 99)
    y = (np.arange(99) % 2).astype(int)
    for mc in ("auto", "top_label", "classwise"):
        curve = reliability_curve(y, p, n_bins=4, strategy="quantile", threshold=0.5, multiclass=mc)
        counts = np.atleast_2d(curve.bin_count)[-1]  # the positive class / the group
        assert (counts > 0).all(), (mc, counts)
        # top-label confidences come in tied pairs (p and 1 - p)
        assert counts.max() - counts.min() <= (2 if mc == "top_label" else 1)


def test_default_positive_class_is_the_greater_label():
    y, p = [1, 0, 0, 1], [0.1, 0.2, 0.3, 0.9]
    ref = expected_calibration_error(y, p, n_bins=2)
    assert ref == pytest.approx(0.125)
    assert expected_calibration_error(y, p, n_bins=2, labels=[1, 0]) == ref
    P2 = np.column_stack([1 - np.array(p), p])
    assert expected_calibration_error(y, P2, n_bins=2) == ref
    assert expected_calibration_error(y, P2[:, ::-1], n_bins=2, labels=[1, 0]) == ref
    s = np.array(["no", "yes"])[y]
    assert expected_calibration_error(s, p, n_bins=2, pos_label="yes") == ref


@pytest.mark.parametrize("bad", [True, False, 0, -3, 2.0, "3"])
def test_n_bins_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="n_bins"):
        expected_calibration_error([0, 1], [0.2, 0.7], n_bins=bad)
    with pytest.raises(ValueError, match="n_bins"):
        compute_bin_stats([0, 1], [0.2, 0.7], n_bins=bad)


def test_uint64_labels_beyond_int64():
    big = np.array([2**63, 2**63 + 1, 2**63 + 1, 2**63], dtype=np.uint64)
    p = [0.1, 0.8, 0.6, 0.4]
    ece = expected_calibration_error(big, p, n_bins=2, pos_label=2**63 + 1)
    assert ece == expected_calibration_error([0, 1, 1, 0], p, n_bins=2)
    P = np.array([[0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.6, 0.4]])
    assert static_calibration_error(big, P, n_bins=2) == static_calibration_error(
        [0, 1, 1, 0], P, n_bins=2
    )


def test_public_helpers_are_strict():
    stats = compute_bin_stats([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    with pytest.raises(ValueError, match="norm"):
        calibration_error_from_bin_stats(stats, norm="L1")
    with pytest.raises(ValueError, match="debias"):
        calibration_error_from_bin_stats(stats, norm="max", debias=True)
    with pytest.raises(ValueError, match="strategy"):
        compute_bin_stats([0, 1], [0.2, 0.7], strategy="kmeans")
    with pytest.raises(ValueError, match="multiclass"):
        compute_bin_stats([0, 1], [0.2, 0.7], multiclass="binary")
    with pytest.raises(ValueError, match="stats"):
        calibration_error_from_bin_stats(np.zeros(3))
    assert calibration_error_from_bin_stats(stats, norm="l2") == pytest.approx(
        general_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2, norm="l2")
    )


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, bool])
def test_binary_unsigned_and_small_integer_labels_in_full_bin_stats(dtype):
    # the (bin, outcome) cell index adds the 0/1 label to an intp array: a uint64 label
    # array (numpy promotes uint64 + int64 to float64) used to crash every metric that
    # needs the full BinStats (MCE, reliability curve); any integer dtype gives the
    # values of int64 labels
    y = np.array([0, 1, 1, 0, 1, 0])
    p = np.array([0.1, 0.8, 0.6, 0.3, 0.35, 0.9])
    for metric in (max_calibration_error, root_mean_squared_calibration_error):
        assert metric(y.astype(dtype), p, n_bins=5) == pytest.approx(metric(y, p, n_bins=5))
    got = reliability_curve(y.astype(dtype), p, n_bins=5)
    want = reliability_curve(y, p, n_bins=5)
    np.testing.assert_array_equal(got.prob_true, want.prob_true)
    assert max_calibration_error(y.astype(dtype), p, n_bins=5) == pytest.approx(0.9)
