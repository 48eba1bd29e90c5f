"""CalibrationAccumulator: streamed numbers equal the batch metrics on the concatenated
data, whatever the chunking; bounded state; exact merges; persistence."""

import copy
import dataclasses
import json
import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcalib._core._binning import COUNT, SUM_PROBA, SUM_TRUE, SUM_WEIGHT_SQ, quantile_edges
from skcalib.metrics import (
    BrierDecompositionResult,
    ReliabilityCurveResult,
    brier_decomposition,
    brier_score,
    expected_calibration_error,
    max_calibration_error,
    negative_log_likelihood,
    reliability_curve,
    root_mean_squared_calibration_error,
    static_calibration_error,
)
from skcalib.report import calibration_report
from skcalib.streaming import CalibrationAccumulator, fine_bin_edges

RTOL = 1e-12


def _case(kind, n, rng, dtype=np.float64):
    if kind == "binary_1d":
        p = rng.random(n).astype(dtype)
        p[: n // 10] = rng.integers(0, 16, n // 10) / 15  # values on bin edges
        y = (rng.random(n) < p).astype(int)
        return y, p, None
    k = 2 if kind == "binary_2d" else 5
    P = rng.dirichlet(np.ones(k) * 0.5, size=n).astype(dtype)
    if dtype == np.float32:
        P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row / row.sum()) for row in P.astype(np.float64)])
    return y, P, np.arange(k)


def _chunks(n, rng):
    """Random chunk boundaries with empty and one-row chunks."""
    cuts = np.sort(rng.integers(0, n + 1, 8))
    cuts = np.concatenate(([0], cuts, [cuts[-1], min(cuts[-1] + 1, n), n]))
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def _batch(y, P, w, labels):
    out = {
        "expected_calibration_error": expected_calibration_error(
            y, P, sample_weight=w, labels=labels
        ),
        "max_calibration_error": max_calibration_error(y, P, sample_weight=w, labels=labels),
        "brier_score": brier_score(y, P, sample_weight=w, labels=labels),
        "negative_log_likelihood": negative_log_likelihood(y, P, sample_weight=w, labels=labels),
    }
    if P.ndim == 2 and P.shape[1] > 2:
        out["static_calibration_error"] = static_calibration_error(
            y, P, sample_weight=w, labels=labels
        )
    return out


@pytest.mark.parametrize("kind", ["binary_1d", "binary_2d", "multiclass"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", [0, 1])
def test_streamed_equals_batch_for_any_chunking(kind, weighted, dtype, seed):
    rng = np.random.default_rng(seed)
    n = 3000
    y, P, labels = _case(kind, n, rng, dtype)
    w = rng.random(n) * 3 if weighted else None
    if weighted:
        w[rng.random(n) < 0.1] = 0.0
    acc = CalibrationAccumulator(labels=labels)
    for a, b in _chunks(n, rng):
        acc.update(y[a:b], P[a:b], sample_weight=None if w is None else w[a:b])
    got = acc.compute()
    want = _batch(y, P, w, labels)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=RTOL, abs=1e-15), key
    assert got["n_samples"] == n
    report = calibration_report(y, P, sample_weight=w, labels=labels)
    assert got["accuracy"] == pytest.approx(report.values["model"]["accuracy"], rel=RTOL)
    curve = acc.reliability_curve(confidence_level=0.9)
    ref = reliability_curve(y, P, sample_weight=w, labels=labels, confidence_level=0.9)
    for name in ("prob_true", "prob_pred", "bin_count", "prob_true_low", "prob_true_high"):
        assert_allclose(
            getattr(curve, name), getattr(ref, name), rtol=RTOL, atol=1e-15, equal_nan=True
        )
    assert_array_equal(curve.bin_edges, ref.bin_edges)
    # the binned Brier decomposition (equal-width bins), whose terms add up to the score
    # (of the positive class; the two float32 columns sum to 1 within float32 rounding)
    d = acc.brier_decomposition()
    _assert_decomposition_equal(
        d, brier_decomposition(y, P, sample_weight=w, labels=labels, n_bins=15)
    )
    terms = d.reliability - d.resolution + d.uncertainty
    terms += d.within_bin_variance - d.within_bin_covariance
    rel = 1e-6 if kind == "binary_2d" and dtype == np.float32 else 1e-12
    assert terms == pytest.approx(want["brier_score"], rel=rel)
    if kind == "multiclass":
        cw = acc.reliability_curve(multiclass="classwise")
        ref = reliability_curve(y, P, sample_weight=w, labels=labels, multiclass="classwise")
        assert_allclose(cw.bin_count, ref.bin_count, rtol=RTOL)
        assert_allclose(cw.prob_true, ref.prob_true, rtol=RTOL, equal_nan=True)


def _assert_decomposition_equal(got, want):
    """The terms of two Brier decompositions agree to 1e-12, relative for the terms of the
    bins, absolute for the within-bin terms (differences of totals of p^2 and p * o of
    the order of the Brier score, computed in another order)."""
    assert type(got) is type(want)
    for field in dataclasses.fields(want):
        name, value = field.name, getattr(want, field.name)
        if name.startswith("within_bin"):
            assert getattr(got, name) == pytest.approx(value, rel=0, abs=1e-12), name
        else:
            assert getattr(got, name) == pytest.approx(value, rel=RTOL, abs=1e-15), name


def test_curve_and_decomposition_unpack_as_the_batch_results():
    """Regression: both were Bunches, whose unpacking gave their keys; they unpack as
    the batch functions' results: (prob_true, prob_pred) and (unc, res, rel)."""
    rng = np.random.default_rng(3)
    p = rng.random(400)
    y = (rng.random(400) < p**1.4).astype(int)
    acc = CalibrationAccumulator(n_bins=5).update(y[:150], p[:150]).update(y[150:], p[150:])
    curve = acc.reliability_curve()
    assert type(curve) is ReliabilityCurveResult and not isinstance(curve, dict)
    prob_true, prob_pred = curve
    want_true, want_pred = reliability_curve(y, p, n_bins=5)
    assert_allclose(prob_true, want_true, rtol=RTOL)
    assert_allclose(prob_pred, want_pred, rtol=RTOL)
    assert curve.prob_true_low is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        curve.prob_true = prob_pred
    d = acc.brier_decomposition()
    assert type(d) is BrierDecompositionResult
    unc, res, rel = d
    want_unc, want_res, want_rel = brier_decomposition(y, p, n_bins=5)
    assert (unc, res, rel) == pytest.approx((want_unc, want_res, want_rel), rel=RTOL)
    assert rel - res + unc + d.within_bin_variance - d.within_bin_covariance == pytest.approx(
        brier_score(y, p), rel=1e-12
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.reliability = 0.0


def _exact_rmsce_with_edges(conf, outcome, w, edges):
    """RMSCE of the pairs binned right-closed with the given (possibly repeated) edges."""
    b = np.searchsorted(edges[1:-1], conf, side="left")
    m = edges.size - 1
    ww = np.ones_like(conf, dtype=float) if w is None else w
    cnt = np.bincount(b, weights=ww, minlength=m)
    gap = np.bincount(b, weights=ww * (outcome - conf), minlength=m)
    nz = cnt > 0
    return float(np.sqrt(np.sum(gap[nz] ** 2 / cnt[nz]) / ww.sum()))


@pytest.mark.parametrize("weighted", [False, True])
def test_equal_mass_edges_lie_in_the_fine_cell_of_the_exact_quantile(weighted):
    # an accurate network: a quarter of the confidences above 0.99, many near 1
    rng = np.random.default_rng(7)
    n, k = 20_000, 10
    logits = rng.standard_normal((n, k))
    logits[:, 0] += rng.choice([1.0, 4.0, 9.0], size=n, p=[0.5, 0.25, 0.25]) * 1.2
    P = np.exp(logits - logits.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = np.where(rng.random(n) < P[:, 0], 0, rng.integers(1, k, n))
    y[:k] = np.arange(k)
    conf = P.max(axis=1)
    assert np.mean(conf > 0.99) > 0.2
    w = rng.random(n) + 0.5 if weighted else None
    acc = CalibrationAccumulator(labels=np.arange(k))
    for a, b in _chunks(n, rng):
        acc.update(y[a:b], P[a:b], sample_weight=None if w is None else w[a:b])
    stats = acc.equal_mass_bin_stats()
    edges = stats.bin_edges[0]
    exact = quantile_edges(conf, 15, w)
    cells = fine_bin_edges()
    cell = np.searchsorted(cells[1:], exact[1:-1], side="left")  # right-closed cells
    # the documented bound: each streamed inner edge is the upper edge of the fine cell
    # that holds the exact inverted-CDF quantile
    assert_array_equal(edges[1:-1], cells[cell + 1])
    outcome = (P.argmax(axis=1) == y).astype(float)
    streamed = acc.compute()["root_mean_squared_calibration_error"]
    # ... and the streamed RMSCE is exactly that of the data binned with those edges
    assert streamed == pytest.approx(_exact_rmsce_with_edges(conf, outcome, w, edges), rel=1e-10)
    batch = root_mean_squared_calibration_error(y, P, sample_weight=w)
    assert streamed == pytest.approx(batch, abs=2e-3)


def test_bad_chunk_leaves_the_state_untouched():
    rng = np.random.default_rng(1)
    y, P, labels = _case("multiclass", 500, rng)
    acc = CalibrationAccumulator(labels=labels).update(y, P)
    before = acc.to_dict()
    bad = P[:10].copy()
    bad[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        acc.update(y[:10], bad)
    with pytest.raises(ValueError, match=r"labels not in labels \[0, 1, 2, 3, 4\]: 7"):
        acc.update(np.full(10, 7), P[:10])
    with pytest.raises(ValueError, match="different numbers of samples"):
        acc.update(y[:9], P[:10])
    assert acc.to_dict() == before
    # an empty chunk is a no-op
    assert acc.update([], np.empty((0, 5))).to_dict() == before


def test_multiclass_stream_needs_its_classes():
    P = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    with pytest.raises(ValueError, match="multiclass stream needs its classes.*labels="):
        CalibrationAccumulator().update([0, 2], P)
    acc = CalibrationAccumulator(labels=["a", "b", "c"]).update(["a", "c"], P)
    assert_array_equal(acc.classes_, ["a", "b", "c"])
    assert acc.compute()["n_samples"] == 2


def test_binary_classes_fixed_by_the_first_chunk():
    acc = CalibrationAccumulator().update([0, 0], [0.1, 0.4])  # one class seen
    assert_array_equal(acc.classes_, [0, 1])
    acc.update([1, 1], [0.8, 0.6])
    assert acc.compute()["expected_calibration_error"] == pytest.approx(
        expected_calibration_error([0, 0, 1, 1], [0.1, 0.4, 0.8, 0.6]), rel=RTOL
    )
    with pytest.raises(ValueError, match="pos_label"):
        CalibrationAccumulator().update(["a", "b"], [0.1, 0.4])
    acc = CalibrationAccumulator(pos_label="b").update(["a", "b"], [0.1, 0.4])
    assert acc.compute()["brier_score"] == pytest.approx(
        brier_score(["a", "b"], [0.1, 0.4], pos_label="b")
    )


def test_merge_is_exact_associative_and_commutative():
    rng = np.random.default_rng(3)
    y, P, labels = _case("multiclass", 2000, rng)
    parts = [
        CalibrationAccumulator(labels=labels).update(y[a:b], P[a:b])
        for a, b in [(0, 300), (300, 1100), (1100, 2000)]
    ]
    ab_c = pickle.loads(pickle.dumps(parts[0])).merge(parts[1]).merge(parts[2]).compute()
    c_ba = (
        pickle.loads(pickle.dumps(parts[2]))
        .merge(pickle.loads(pickle.dumps(parts[1])).merge(parts[0]))
        .compute()
    )
    whole = CalibrationAccumulator(labels=labels).update(y, P).compute()
    for key in whole:
        assert ab_c[key] == pytest.approx(whole[key], rel=RTOL)
        assert c_ba[key] == pytest.approx(whole[key], rel=RTOL)
    merged = pickle.loads(pickle.dumps(parts[2])).merge(parts[0]).merge(parts[1])
    _assert_decomposition_equal(
        merged.brier_decomposition(), brier_decomposition(y, P, n_bins=15, labels=labels)
    )
    # an empty accumulator is the identity
    empty = CalibrationAccumulator(labels=labels)
    assert empty.merge(parts[0]).compute() == parts[0].compute()
    assert parts[0].merge(CalibrationAccumulator(labels=labels)).n_samples_ == 300


def test_merge_leaves_the_other_accumulator_alone():
    # merging adds into the accumulator's own arrays: never into the other's, and never
    # into arrays that the other accumulator goes on updating
    rng = np.random.default_rng(7)
    y, P, labels = _case("multiclass", 900, rng)
    b = CalibrationAccumulator(labels=labels).update(y[:300], P[:300])
    b_alone = b.compute()
    a = CalibrationAccumulator(labels=labels).merge(b)
    a.update(y[300:600], P[300:600])
    assert b.compute() == b_alone
    a_alone = a.compute()
    b.update(y[600:], P[600:])
    assert a.compute() == a_alone
    # copies are independent too
    for copy_of in (copy.copy, copy.deepcopy, lambda acc: pickle.loads(pickle.dumps(acc))):
        d = copy_of(a)
        d.update(y[:50], P[:50]).merge(b)
        assert a.compute() == a_alone
        assert d.n_samples_ == a.n_samples_ + 50 + b.n_samples_
    c = CalibrationAccumulator(labels=labels).update(y[300:600], P[300:600]).merge(b)
    whole = CalibrationAccumulator(labels=labels).update(y, P).compute()
    for key, value in c.compute().items():
        assert value == pytest.approx(whole[key], rel=RTOL), key


def test_concurrent_updates_in_threads_equal_sequential_ones():
    # the kernel shares no state between threads
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(8)
    chunks = []
    for i in range(12):
        n = int(rng.integers(1, 150_000))
        p = rng.random(n).astype(np.float32 if i % 2 else np.float64)
        chunks.append(((rng.random(n) < p).astype(np.int8), p))

    def one(chunk):
        return CalibrationAccumulator(labels=[0, 1]).update(*chunk).compute()

    sequential = [one(c) for c in chunks]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(one, chunks))
    assert threaded == sequential


@pytest.mark.parametrize("n", [0, 1, 200, 100_000])
def test_pickle_is_exact_and_small_for_small_chunks(n):
    rng = np.random.default_rng(10)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    acc = CalibrationAccumulator(labels=[0, 1])
    if n:
        acc.update(y, p, sample_weight=rng.random(n) if n == 200 else None)
    text = pickle.dumps(acc)
    back = pickle.loads(text)
    assert back.to_dict() == acc.to_dict()
    if n:
        assert_array_equal(back._stats.fine, acc._stats.fine)
        assert back._stats.fine.flags.writeable
        back.merge(acc)  # a restored state can be added to
        assert back.n_samples_ == 2 * n
    # a fine histogram with few non-empty cells travels by them (256 KiB dense)
    assert len(text) < {0: 2_000, 1: 3_000, 200: 20_000, 100_000: 300_000}[n]


def test_merge_refuses_other_settings():
    a = CalibrationAccumulator(n_bins=10).update([0, 1], [0.2, 0.7])
    with pytest.raises(ValueError, match="different n_bins"):
        a.merge(CalibrationAccumulator(n_bins=15).update([0, 1], [0.2, 0.7]))
    with pytest.raises(ValueError, match="different classes"):
        a.merge(CalibrationAccumulator(n_bins=10).update([-1, 1], [0.2, 0.7]))
    with pytest.raises(TypeError, match="CalibrationAccumulator"):
        a.merge({"n_bins": 10})


def test_to_dict_json_round_trip_and_bounded_size():
    rng = np.random.default_rng(4)
    sizes = []
    for n in (1_000, 100_000):
        y, P, labels = _case("multiclass", n, rng)
        acc = CalibrationAccumulator(labels=labels).update(y, P)
        text = json.dumps(acc.to_dict())
        back = CalibrationAccumulator.from_dict(json.loads(text))
        assert back.compute() == acc.compute()
        assert back.brier_decomposition() == acc.brier_decomposition()
        assert_array_equal(back.classes_, acc.classes_)
        sizes.append(len(text))
        # tomorrow's data merges into the stored state
        back.merge(CalibrationAccumulator(labels=labels).update(y[:10], P[:10]))
        assert back.n_samples_ == n + 10
    # the state does not grow with the number of samples (the fine histogram is bounded)
    assert sizes[1] < 600_000
    with pytest.raises(ValueError, match="not a CalibrationAccumulator state"):
        CalibrationAccumulator.from_dict({"version": 99})
    # a state of version 1 (without the Brier decomposition's totals) is refused by name
    with pytest.raises(ValueError, match="of version 3: dict with version 1"):
        CalibrationAccumulator.from_dict({**acc.to_dict(), "version": 1})


def test_compute_before_update_and_bad_options():
    with pytest.raises(ValueError, match="no data"):
        CalibrationAccumulator().compute()
    with pytest.raises(ValueError, match="n_bins"):
        CalibrationAccumulator(n_bins=0)
    acc = CalibrationAccumulator().update([0, 1], [0.3, 0.6])
    with pytest.raises(ValueError, match="more than two classes"):
        acc.reliability_curve(multiclass="classwise")
    with pytest.raises(ValueError, match="multiclass"):
        acc.bin_stats(multiclass="top")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fine_cell_index_is_the_right_closed_bin(dtype):
    # the log-odds formula with its fix-up equals the binary search of the binning core on
    # every edge, its neighbouring floats, 0, 1, values crowded near 0 and 1, and values
    # above 1 within the rounding tolerance of 2-D input
    from skcalib._core._binning import bin_index_unclipped
    from skcalib.metrics._statistics import fine_cell

    rng = np.random.default_rng(0)
    edges = fine_bin_edges()
    x = np.concatenate(
        [
            edges,
            np.nextafter(edges, 2.0),
            np.nextafter(edges, -1.0)[1:],
            rng.random(50_000),
            1 / (1 + np.exp(-rng.normal(size=50_000) * 12)),
            [0.0, 1.0, 1e-300, 1 - 1e-16, 1 + 1e-5],
        ]
    ).astype(dtype)
    x = x[x >= 0]
    assert_array_equal(fine_cell(x), bin_index_unclipped(x, edges, uniform=False))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_bins", [1, 2, 10, 15, 100, 5000])
def test_unit_weights_give_the_statistics_of_no_weights(dtype, n_bins):
    # one kernel for weighted and unweighted chunks: unit weights give the same cells,
    # bins and sums, on values placed on every kind of edge (of the fine cells and of the
    # equal-width bins), and the numbers of the batch functions
    rng = np.random.default_rng(5)
    edges = fine_bin_edges()
    uniform = np.linspace(0, 1, n_bins + 1)
    p = np.concatenate(
        [
            edges,
            np.nextafter(edges, 2.0)[:-1],
            np.nextafter(edges, -1.0)[1:],
            uniform,
            np.nextafter(uniform, 2.0)[:-1],
            np.nextafter(uniform, -1.0)[1:],
            [0.0, 0.5, 1.0, 1e-30, 1 - 1e-12],
            rng.random(20_000),
            1 / (1 + np.exp(-rng.normal(size=20_000) * 8)),
        ]
    ).astype(dtype)
    p = np.clip(p, 0, 1)
    y = (rng.random(p.size) < p).astype(np.int8)
    plain = CalibrationAccumulator(n_bins=n_bins, labels=[0, 1]).update(y, p)
    unit = CalibrationAccumulator(n_bins=n_bins, labels=[0, 1]).update(
        y, p, sample_weight=np.ones(p.size)
    )
    a, b = plain._stats, unit._stats
    assert not a.weighted and b.weighted
    for key in ("bins", "fine"):
        ta, tb = getattr(a, key), getattr(b, key)
        assert_array_equal(ta[:, COUNT], tb[:, COUNT], key)
        assert_array_equal(ta[:, SUM_TRUE], tb[:, SUM_TRUE], key)
        assert_array_equal(ta[:, SUM_WEIGHT_SQ], tb[:, SUM_WEIGHT_SQ], key)
        assert_allclose(ta[:, SUM_PROBA], tb[:, SUM_PROBA], rtol=1e-13, atol=1e-300)
    assert_array_equal(a.correct, b.correct)
    for key in ("brier_sum", "log_loss_sum", "sum_ff", "sum_fo"):
        assert_allclose(getattr(a, key), getattr(b, key), rtol=1e-13, err_msg=key)
    got = plain.compute()
    want = {
        "expected_calibration_error": expected_calibration_error(y, p, n_bins=n_bins),
        "max_calibration_error": max_calibration_error(y, p, n_bins=n_bins),
        "brier_score": brier_score(y, p),
        "negative_log_likelihood": negative_log_likelihood(y, p),
    }
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=RTOL, abs=1e-15), key
    _assert_decomposition_equal(
        plain.brier_decomposition(), brier_decomposition(y, p, n_bins=n_bins)
    )
