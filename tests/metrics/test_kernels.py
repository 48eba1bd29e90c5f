"""The compiled kernels of the binning core against its numpy implementation.

Both implementations of each kernel (``skcalib/metrics/_ckernels.c`` and the numpy code
of ``skcalib/metrics/_binning.py``) must give the same bins, the same sums up to the
order of floating-point additions, and the same error messages, for every dtype, memory
layout, binning rule and option.  The numpy path is also run on the whole test suite
by CI (``SKCALIB_DISABLE_COMPILED=1``).
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import config_context

from skcalib.metrics import (
    _binning,
    adaptive_calibration_error,
    brier_decomposition,
    compute_bin_stats,
    expected_calibration_error,
    general_calibration_error,
    max_calibration_error,
    reliability_curve,
    root_mean_squared_calibration_error,
    static_calibration_error,
    thresholded_adaptive_calibration_error,
    uniform_bin_edges,
)
from skcalib.metrics._binning import _ckernels, assign_bins, bin_index_unclipped
from skcalib.metrics._validation import PROBA_TOLERANCE, raise_first_bad

needs_compiled = pytest.mark.skipif(
    _binning.KERNELS is None, reason="skcalib was built without its compiled kernels"
)


@pytest.fixture
def numpy_path(monkeypatch):
    """Run the block with the numpy implementation of the kernels."""
    monkeypatch.setattr(_binning, "KERNELS", None)


def both(monkeypatch, func):
    """``func()`` with the compiled kernels, then with the numpy ones."""
    compiled = func()
    with monkeypatch.context() as m:
        m.setattr(_binning, "KERNELS", None)
        plain = func()
    return compiled, plain


def test_compiled_kernels_are_built_in_ci():
    # CI installs from source with a C compiler: the optional extension must be there
    # (a build failure would otherwise leave only the numpy path tested)
    if not os.environ.get("CI") or os.environ.get("SKCALIB_DISABLE_COMPILED", "0") != "0":
        pytest.skip("only checked in CI runs of the compiled path")
    assert _ckernels is not None
    assert _binning.KERNELS is _ckernels


def test_disable_switch_is_read_at_import(tmp_path):
    import subprocess
    import sys

    code = "from skcalib.metrics import _binning; print(_binning.KERNELS is None)"
    env = dict(os.environ, SKCALIB_DISABLE_COMPILED="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr


# --------------------------------------------------------------------------------------
# the bin index
# --------------------------------------------------------------------------------------


def _edge_values(edges, dtype):
    """Every edge and its float neighbours (1 and 2 ulps) within [0, 1]."""
    x = [edges]
    for direction in (2.0, -1.0):
        y = edges.copy()
        for _ in range(2):
            y = np.nextafter(y, direction)
            x.append(y)
    x = np.clip(np.concatenate(x), 0, 1).astype(dtype)
    return x


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_bin_index_exact_on_every_edge(dtype):
    for n_bins in list(range(1, 201)) + [255, 256, 1000, 4097, 100_003]:
        edges = uniform_bin_edges(n_bins)
        x = _edge_values(edges, dtype)
        ref = np.searchsorted(edges[1:], x.astype(np.float64), side="left")
        out = np.empty(x.shape[0], dtype=np.intp)
        _ckernels.bin_index(x, edges, True, out)
        assert_array_equal(out, ref, err_msg=f"n_bins={n_bins}")
        _ckernels.bin_index(x, edges, False, out)  # the binary search
        assert_array_equal(out, ref, err_msg=f"n_bins={n_bins} (search)")


@needs_compiled
def test_bin_index_random_values_any_edges():
    rng = np.random.default_rng(0)
    x = rng.random(20_000)
    x[::5] = rng.integers(0, 31, x[::5].size) / 30
    x[::11] = 1 + PROBA_TOLERANCE * rng.random(x[::11].size)  # above 1: the extra slot
    x[0], x[1] = 0.0, -0.0
    for edges in (
        uniform_bin_edges(30),
        np.array([0.0, 1e-3, 0.25, 0.25, 0.5, 0.9, 1.0]),  # repeated edge
        np.sort(np.r_[0.0, rng.random(40), 1.0]),
        np.array([0.0, 1.0]),
    ):
        ref = np.searchsorted(edges[1:], x, side="left")
        out = np.empty(x.shape[0], dtype=np.intp)
        _ckernels.bin_index(x, edges, _binning._is_uniform(edges), out)
        assert_array_equal(out, ref)
        # strided input
        _ckernels.bin_index(x[::3], edges, _binning._is_uniform(edges), out[: x[::3].size])
        assert_array_equal(out[: x[::3].size], ref[::3])


@needs_compiled
def test_assign_bins_same_on_both_paths(monkeypatch):
    rng = np.random.default_rng(1)
    x = np.r_[rng.random(1000), uniform_bin_edges(12)]
    for edges in (uniform_bin_edges(12), np.array([0, 0.1, 0.5, 0.5, 1.0])):
        got, ref = both(monkeypatch, lambda edges=edges: assign_bins(x, edges))
        assert_array_equal(got, ref)
        got, ref = both(monkeypatch, lambda edges=edges: bin_index_unclipped(x[::-2], edges, False))
        assert_array_equal(got, ref)


# --------------------------------------------------------------------------------------
# sums: every metric on both paths
# --------------------------------------------------------------------------------------


def _layouts(P):
    """The same probabilities in C order, Fortran order and as a strided view."""
    wide = np.zeros((P.shape[0], 2 * P.shape[1]), dtype=P.dtype)
    wide[:, ::2] = P
    return {"C": np.ascontiguousarray(P), "F": np.asfortranarray(P), "strided": wide[:, ::2]}


def _multiclass_data(rng, n, k, dtype, n_bins=10):
    P = rng.dirichlet(np.ones(k) * 0.7, size=n)
    # put entries exactly on bin edges, and exact 0 / 1 rows
    i = rng.integers(0, n, n // 5)
    edge = rng.integers(1, n_bins, i.size) / n_bins
    P[i] = 0
    P[i, 0] = edge
    P[i, 1] = 1 - edge
    P[-1] = 0
    P[-1, -1] = 1
    y = rng.integers(0, k, n)
    return y, P.astype(dtype)


METRICS = [
    expected_calibration_error,
    max_calibration_error,
    root_mean_squared_calibration_error,
    static_calibration_error,
    adaptive_calibration_error,
    thresholded_adaptive_calibration_error,
]


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("weighted", [False, True])
def test_metrics_same_on_both_paths_multiclass(monkeypatch, dtype, layout, weighted):
    rng = np.random.default_rng(2)
    y, P = _multiclass_data(rng, 3000, 5, dtype)
    P = _layouts(P)[layout]
    w = rng.integers(0, 4, y.shape[0]).astype(float) if weighted else None
    for metric in METRICS:
        for n_bins in (1, 10, 15):
            got, ref = both(
                monkeypatch, lambda m=metric, b=n_bins: m(y, P, n_bins=b, sample_weight=w)
            )
            assert got == pytest.approx(ref, rel=1e-12, abs=1e-15), (metric.__name__, n_bins)
    for kw in (
        dict(multiclass="classwise", threshold=0.2),
        dict(multiclass="top_label", threshold=0.5),
        dict(multiclass="classwise", strategy="quantile", threshold=0.1),
        dict(multiclass="classwise", bins=[0, 0.05, 0.5, 0.7, 1.0]),
        dict(multiclass="top_label", norm="l2", debias=True),
    ):
        got, ref = both(
            monkeypatch, lambda kw=kw: general_calibration_error(y, P, sample_weight=w, **kw)
        )
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-15), kw


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("y_dtype", [bool, np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_bin_stats_same_on_both_paths_binary(monkeypatch, dtype, y_dtype):
    rng = np.random.default_rng(3)
    n = 5000
    p = rng.random(n)
    p[::4] = rng.integers(0, 16, p[::4].size) / 15  # on the edges of 15 bins
    y = (rng.random(n) < p).astype(y_dtype)
    p = p.astype(dtype)
    w = rng.random(n)
    for kw in (
        {},
        dict(sample_weight=w),
        dict(threshold=0.3),
        dict(strategy="quantile", n_bins=7),
        dict(bins=[0, 0.2, 0.2000001, 0.9, 1]),
        dict(multiclass="top_label"),
        dict(multiclass="classwise", sample_weight=w),
    ):
        for pp in (p, p[::-1][::-1], np.repeat(p, 2)[::2]):  # contiguous and strided

            def stats(kw=kw, pp=pp):
                return compute_bin_stats(y, pp, **kw)

            got, ref = both(monkeypatch, stats)
            if "sample_weight" in kw:  # sums of weights: the order of additions differs
                assert_allclose(got.count, ref.count, rtol=1e-12)
            else:  # counts are exact
                assert_array_equal(got.count, ref.count)
            assert_allclose(got.sum_true, ref.sum_true, rtol=1e-12)
            assert_allclose(got.sum_proba, ref.sum_proba, rtol=1e-12, atol=1e-12)
            assert_array_equal(got.bin_edges, ref.bin_edges)
            if ref.sum_weight_sq is None:
                assert got.sum_weight_sq is None
            else:
                assert_allclose(got.sum_weight_sq, ref.sum_weight_sq, rtol=1e-12)
        got, ref = both(monkeypatch, lambda kw=kw: general_calibration_error(y, p, **kw))
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-15)


@needs_compiled
def test_reliability_curve_and_decomposition_same_on_both_paths(monkeypatch):
    rng = np.random.default_rng(4)
    y, P = _multiclass_data(rng, 2000, 4, np.float64)
    for mc in ("top_label", "classwise"):
        got, ref = both(monkeypatch, lambda mc=mc: reliability_curve(y, P, multiclass=mc))
        assert_allclose(got.prob_true, ref.prob_true, rtol=1e-12)
        assert_allclose(got.prob_pred, ref.prob_pred, rtol=1e-12)
        assert_array_equal(got.bin_count, ref.bin_count)
    got, ref = both(monkeypatch, lambda: brier_decomposition(y, P, n_bins=10))
    for key in ("uncertainty", "resolution", "reliability"):
        assert got[key] == pytest.approx(ref[key], rel=1e-12, abs=1e-15)


@needs_compiled
def test_top_label_ties_signed_zeros_and_long_rows(monkeypatch):
    # the first column holding the maximum wins, as numpy's argmax; -0.0 == 0.0
    k = 1037  # not a multiple of any vector width
    n = 300
    rng = np.random.default_rng(5)
    P = np.zeros((n, k))
    top = rng.integers(0, k, n)
    P[np.arange(n), top] = 0.5
    second = (top + rng.integers(1, k, n)) % k
    P[np.arange(n), second] = 0.5  # a tie: the first of the two columns wins
    P[0] = 0.0
    P[0, :2] = [0.5, 0.5]
    P[1] = -0.0
    P[1, 5] = 1.0
    y = np.minimum(top, second)
    y[0], y[1] = 0, 5
    for dtype in (np.float64, np.float32):
        Pd = P.astype(dtype)
        for data in (Pd, np.asfortranarray(Pd)):
            got, ref = both(
                monkeypatch,
                lambda data=data: compute_bin_stats(y, data, multiclass="top_label", n_bins=4),
            )
            assert_array_equal(got.count, ref.count)
            assert_array_equal(got.sum_true, ref.sum_true)
            assert got.sum_true.sum() == n  # every tie resolved to the first column


@needs_compiled
def test_values_within_tolerance_above_one_go_to_the_last_bin(monkeypatch):
    P = np.array([[1 + PROBA_TOLERANCE / 2, 0.0, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]])
    y = [0, 1, 2]
    for mc in ("top_label", "classwise"):
        got, ref = both(monkeypatch, lambda mc=mc: compute_bin_stats(y, P, multiclass=mc))
        assert_array_equal(got.count, ref.count)
        assert got.count.sum() == ref.count.sum() == (3 if mc == "top_label" else 9)


@needs_compiled
def test_read_only_and_non_native_inputs(monkeypatch):
    rng = np.random.default_rng(6)
    y, P = _multiclass_data(rng, 500, 3, np.float64)
    ref = expected_calibration_error(y, P)
    ro = P.copy()
    ro.flags.writeable = False
    assert expected_calibration_error(y, ro) == ref
    # big-endian data is read by the numpy path (the kernels take native dtypes)
    assert expected_calibration_error(y.astype(">i8"), P.astype(">f8")) == pytest.approx(ref)
    assert static_calibration_error(y, P.astype(">f4")) == pytest.approx(
        static_calibration_error(y, P.astype(np.float32)), rel=1e-12
    )


@needs_compiled
@pytest.mark.parametrize("compiled", [True, False])
def test_threshold_compares_float32_values_exactly(monkeypatch, compiled):
    # float32(0.2) = 0.20000000298... is above the threshold 0.2, so it is binned
    if not compiled:
        monkeypatch.setattr(_binning, "KERNELS", None)
    p = np.array([[0.2, 0.8], [0.8, 0.2]], dtype=np.float32)
    stats = compute_bin_stats([0, 1], p, multiclass="classwise", threshold=0.2, n_bins=5)
    assert stats.count.sum() == 4
    stats = compute_bin_stats([0, 1], p, multiclass="classwise", threshold=0.2000001, n_bins=5)
    assert stats.count.sum() == 2


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_layouts_give_identical_sums(dtype):
    # C order, Fortran order (read column by column) and strided views add the same
    # values in the same order: the same sums to the last bit, over several blocks
    rng = np.random.default_rng(11)
    y, P = _multiclass_data(rng, 20_003, 6, dtype)
    for mc in ("classwise", "top_label"):
        ref = compute_bin_stats(y, P, multiclass=mc)
        for name, Q in _layouts(P).items():
            stats = compute_bin_stats(y, Q, multiclass=mc)
            assert_array_equal(stats.sum_proba, ref.sum_proba, err_msg=f"{mc} {name}")
            assert_array_equal(stats.count, ref.count, err_msg=f"{mc} {name}")
            assert_array_equal(stats.sum_true, ref.sum_true, err_msg=f"{mc} {name}")


@needs_compiled
def test_negative_strides(monkeypatch):
    # reversed views (negative strides) give the numbers of their copies
    rng = np.random.default_rng(10)
    y, P = _multiclass_data(rng, 700, 4, np.float64)
    w = rng.random(700)[::-1]
    views = [
        (P[::-1], np.arange(4)),
        (P[::-1, ::-1], np.arange(4)[::-1]),  # reversed columns: classes in reverse order
        (np.asfortranarray(P)[::-1], np.arange(4)),
    ]
    for mc in ("top_label", "classwise"):
        for view, labels in views:

            def metric(v=view, labels=labels, mc=mc):
                return general_calibration_error(
                    y[::-1], v, multiclass=mc, sample_weight=w, labels=labels
                )

            got, ref = both(monkeypatch, metric)
            copy = metric(np.array(view))
            assert got == pytest.approx(ref, rel=1e-12)
            assert got == pytest.approx(copy, rel=1e-12)
    p = rng.random(500)
    yb = (rng.random(500) < p).astype(int)
    got, ref = both(monkeypatch, lambda: expected_calibration_error(yb[::-1], p[::-1]))
    assert got == pytest.approx(ref, rel=1e-12)
    assert got == pytest.approx(expected_calibration_error(yb, p), rel=1e-12)


@needs_compiled
def test_inputs_not_modified_by_the_kernels():
    rng = np.random.default_rng(7)
    y, P = _multiclass_data(rng, 400, 4, np.float32)
    w = rng.random(400)
    copies = y.copy(), P.copy(), w.copy()
    for mc in ("auto", "classwise"):
        general_calibration_error(y, P, multiclass=mc, sample_weight=w, threshold=0.1)
    for a, b in zip((y, P, w), copies, strict=True):
        assert_array_equal(a, b)


# --------------------------------------------------------------------------------------
# the value checks: same errors on both paths
# --------------------------------------------------------------------------------------


def _error(func):
    with pytest.raises(ValueError) as info:
        func()
    return str(info.value)


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("where", [0, 3, 70_000, 199_999])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -0.1, 1.5])
def test_binary_value_errors_same_on_both_paths(monkeypatch, dtype, where, bad):
    rng = np.random.default_rng(8)
    n = 200_000
    p = rng.random(n).astype(dtype)
    y = (rng.random(n) < 0.5).astype(int)
    p[where] = bad
    got, ref = both(monkeypatch, lambda: _error(lambda: expected_calibration_error(y, p)))
    assert got == ref
    assert f"{where}" in got


@needs_compiled
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("where", [0, 9_000, 29_999])
@pytest.mark.parametrize("kind", ["nan", "inf", "negative", "above", "sum"])
def test_multiclass_value_errors_same_on_both_paths(monkeypatch, dtype, layout, where, kind):
    rng = np.random.default_rng(9)
    n, k = 30_000, 7
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    if kind == "nan":
        P[where, 2] = np.nan
    elif kind == "inf":
        P[where, 3] = np.inf
    elif kind == "negative":
        P[where, :2] = [-0.25, P[where, 0] + P[where, 1] + 0.25]
    elif kind == "above":
        P[where] = 0
        P[where, 1] = 1.01
    else:
        P[where] *= 0.99
    P = _layouts(P.astype(dtype))[layout]
    for metric in (expected_calibration_error, static_calibration_error):
        got, ref = both(monkeypatch, lambda m=metric: _error(lambda: m(y, P)))
        assert got == ref, metric.__name__
        assert str(where) in got


@needs_compiled
def test_assume_finite_skips_the_compiled_checks_too():
    P = np.array([[0.25, 0.2, 0.6], [0.1, 0.8, 0.1]])  # row 0 sums to 1.05
    y = [0, 1]
    with pytest.raises(ValueError, match="sum to 1"):
        expected_calibration_error(y, P)
    with config_context(assume_finite=True):
        for mc in ("top_label", "classwise"):
            assert np.isfinite(general_calibration_error(y, P, multiclass=mc))


def test_raise_first_bad_names_the_float64_sum_when_the_dtype_sum_passes():
    # a compiled check sums rows in float64; should it reject a row whose float32 sum is
    # within the tolerance, the message still names the row and its sum
    row = np.array([[0.5, 0.5 + PROBA_TOLERANCE / 2]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"row 0 sums to 1\.000"):
        raise_first_bad(row, 0)


# --------------------------------------------------------------------------------------
# property: any valid input gives the same statistics on both paths
# --------------------------------------------------------------------------------------


@st.composite
def binning_cases(draw):
    """Probabilities (many on bin edges), labels, weights and binning options."""
    n = draw(st.integers(1, 60))
    k = draw(st.integers(1, 6))
    n_bins = draw(st.integers(1, 25))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if k == 1:
        P = rng.integers(0, n_bins + 1, n) / n_bins if draw(st.booleans()) else rng.random(n)
    else:
        P = rng.dirichlet(np.ones(k) * draw(st.sampled_from([0.1, 1.0, 5.0])), size=n)
        snap = rng.random(n) < 0.5  # rows [e, 1 - e, 0, ...] with e on an edge
        e = rng.integers(0, n_bins + 1, n) / n_bins
        P[snap] = 0
        P[snap, 0] = e[snap]
        P[snap, 1] = 1 - e[snap]
    y = rng.integers(0, max(k, 2), n)
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    P = P.astype(dtype)
    if k > 1:
        P = _layouts(P)[draw(st.sampled_from(["C", "F", "strided"]))]
    weights = draw(st.sampled_from([None, "int", "float"]))
    w = None
    if weights == "int":
        w = rng.integers(0, 3, n).astype(float)
        w[0] = 1
    elif weights == "float":
        w = rng.random(n) + 0.01
    options = dict(
        n_bins=n_bins,
        multiclass=draw(st.sampled_from(["auto", "top_label", "classwise"])),
        strategy=draw(st.sampled_from(["uniform", "quantile"])),
        threshold=draw(st.sampled_from([0.0, 0.0, 0.1, 0.5])),
        sample_weight=w,
        labels=list(range(max(k, 2))),
    )
    return y, P, options


@needs_compiled
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(binning_cases())
def test_property_bin_stats_same_on_both_paths(case):
    y, P, options = case
    compiled = compute_bin_stats(y, P, **options)
    saved = _binning.KERNELS
    _binning.KERNELS = None
    try:
        plain = compute_bin_stats(y, P, **options)
    finally:
        _binning.KERNELS = saved
    assert_array_equal(compiled.bin_edges, plain.bin_edges)
    assert_allclose(compiled.count, plain.count, rtol=1e-12, atol=0)
    assert_allclose(compiled.sum_true, plain.sum_true, rtol=1e-12, atol=0)
    assert_allclose(compiled.sum_proba, plain.sum_proba, rtol=1e-12, atol=1e-15)
    if options["sample_weight"] is None:  # counts of samples: exact
        assert_array_equal(compiled.count, plain.count)
