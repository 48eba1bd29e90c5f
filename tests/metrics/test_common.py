"""Common tests: every classification metric goes through the same invariances.

Register a metric in ``CLASSIFICATION_METRICS`` (and its value range in ``RANGES`` if it
is not [0, 1]) and it gets all of these tests for free, as in scikit-learn's
``sklearn/metrics/tests/test_common.py``.
"""

import math
from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import skcalib.metrics as M

CLASSIFICATION_METRICS = {
    "expected_calibration_error": M.expected_calibration_error,
    "expected_calibration_error_top_label": partial(
        M.expected_calibration_error, multiclass="top_label"
    ),
    "max_calibration_error": M.max_calibration_error,
    "root_mean_squared_calibration_error": M.root_mean_squared_calibration_error,
    "static_calibration_error": M.static_calibration_error,
    "adaptive_calibration_error": M.adaptive_calibration_error,
    "thresholded_adaptive_calibration_error": M.thresholded_adaptive_calibration_error,
    "general_calibration_error_l2_debiased": partial(
        M.general_calibration_error, norm="l2", debias=True
    ),
    "general_calibration_error_quantile_top_label_max": partial(
        M.general_calibration_error, strategy="quantile", multiclass="top_label", norm="max"
    ),
    "general_calibration_error_classwise_threshold": partial(
        M.general_calibration_error, multiclass="classwise", threshold=0.2, n_bins=5
    ),
}
for _name in ("brier_score", "negative_log_likelihood"):
    if hasattr(M, _name):
        CLASSIFICATION_METRICS[_name] = getattr(M, _name)

#: metrics whose value depends on the scale of the weights: the debiased estimator's
#: correction uses the bin's total weight as its sample size (frequency weights)
SCALE_DEPENDENT = {"general_calibration_error_l2_debiased"}

#: value range of each metric (default [0, 1])
RANGES = {"negative_log_likelihood": (0.0, math.inf), "brier_score": (0.0, 2.0)}

NAMES = sorted(CLASSIFICATION_METRICS)


def _data(kind, seed=0, n=150):
    rng = np.random.default_rng(seed)
    if kind == "binary_1d":
        p = rng.random(n)
        y = (rng.random(n) < p**1.5).astype(int)
        return y, p
    k = 2 if kind == "binary_2d" else 4
    P = rng.dirichlet(np.ones(k), size=n)
    y = np.array([rng.choice(k, p=r) for r in P])
    return y, P


KINDS = ["binary_1d", "binary_2d", "multiclass"]


def _close(a, b, tol=1e-10):
    assert a == pytest.approx(b, rel=tol, abs=tol)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_returns_python_float_in_range(name, kind):
    y, P = _data(kind)
    v = CLASSIFICATION_METRICS[name](y, P)
    assert type(v) is float
    lo, hi = RANGES.get(name, (0.0, 1.0))
    assert lo <= v <= hi


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_permutation_invariance(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=1)
    w = np.random.default_rng(1).random(len(y))
    perm = np.random.default_rng(2).permutation(len(y))
    _close(metric(y[perm], P[perm]), metric(y, P))
    _close(metric(y[perm], P[perm], sample_weight=w[perm]), metric(y, P, sample_weight=w))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_list_array_pandas_input(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=3)
    ref = metric(y, P)
    assert metric(y.tolist(), P.tolist()) == ref
    Pd = pd.Series(P) if P.ndim == 1 else pd.DataFrame(P)
    assert metric(pd.Series(y), Pd) == ref
    assert metric(pd.Series(y).astype("category"), Pd) == ref


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_label_encoding_invariance(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=4)
    ref = metric(y, P)
    names = np.array(["ant", "bee", "cat", "dog"])
    # strings in the same sorted order
    assert metric(names[y], P) == pytest.approx(ref, abs=1e-15)
    # shifted integers
    assert metric(y + 10, P) == pytest.approx(ref, abs=1e-15)
    # shuffled class order given through labels=
    if P.ndim == 2:
        k = P.shape[1]
        order = np.random.default_rng(5).permutation(k)
        if k == 2:
            order = np.array([1, 0])
            # the positive class stays the same class
            v = metric(names[y], P[:, order], labels=names[:k][order], pos_label=names[1])
        else:
            v = metric(names[y], P[:, order], labels=names[:k][order])
        assert v == pytest.approx(ref, abs=1e-12)
    else:
        # binary 1-D: the probability of the other class with pos_label
        v = metric(names[y], 1 - P, pos_label="ant")
        if name in (
            "expected_calibration_error",
            "max_calibration_error",
            "root_mean_squared_calibration_error",
            "brier_score",
            "negative_log_likelihood",
        ):
            # symmetric metrics: calibration of p(pos) == calibration of p(neg) up to
            # bin-edge placement for equal-width bins (exact for brier / nll)
            if name in ("brier_score", "negative_log_likelihood"):
                assert v == pytest.approx(ref, abs=1e-12)
        v2 = metric(names[y].astype(object), P)
        assert v2 == pytest.approx(ref, abs=1e-15)
    assert metric(y.astype(bool), P) == pytest.approx(ref) if kind != "multiclass" else True


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_sample_weight_is_repetition(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=6, n=80)
    w = np.random.default_rng(6).integers(0, 4, len(y))
    w[:3] = [1, 2, 3]
    ref = metric(np.repeat(y, w), np.repeat(P, w, axis=0))
    _close(metric(y, P, sample_weight=w), ref, tol=1e-9)
    if name not in SCALE_DEPENDENT:
        _close(metric(y, P, sample_weight=w.astype(float) * 0.37), ref, tol=1e-9)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_zero_weight_is_removal(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=7, n=120)
    w = np.ones(len(y))
    w[::3] = 0
    keep = w > 0
    labels = np.unique(y)
    _close(metric(y, P, sample_weight=w), metric(y[keep], P[keep], labels=labels))


@pytest.mark.parametrize("name", [n for n in NAMES if n not in SCALE_DEPENDENT])
@pytest.mark.parametrize("kind", KINDS)
def test_weight_scale_invariance(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=11, n=120)
    w = np.random.default_rng(11).random(len(y))
    _close(metric(y, P, sample_weight=np.full(len(y), 2.5)), metric(y, P))
    _close(metric(y, P, sample_weight=w * 1e3), metric(y, P, sample_weight=w), tol=1e-9)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_float32_matches_float64(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=8)
    v64 = metric(y, P)
    v32 = metric(y, P.astype(np.float32))
    assert type(v32) is float
    assert v32 == pytest.approx(v64, rel=1e-4, abs=1e-5)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_inputs_not_mutated(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=9)
    w = np.random.default_rng(9).random(len(y))
    P.setflags(write=False)
    y.setflags(write=False)
    w.setflags(write=False)
    metric(y, P, sample_weight=w)  # read-only inputs work and are not written to
    Pc = np.array(P)
    metric(y, Pc, sample_weight=np.array(w))
    np.testing.assert_array_equal(Pc, P)


@pytest.mark.parametrize("name", NAMES)
def test_bad_input_raises_value_error(name):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data("multiclass", seed=10, n=20)
    bad = P.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        metric(y, bad)
    with pytest.raises(ValueError, match="different numbers of samples"):
        metric(y[:-1], P)
    with pytest.raises(ValueError, match="empty"):
        metric([], np.zeros((0, 4)))
    with pytest.raises(ValueError, match="sum to 1"):
        metric(y, P * 1.1)


# --------------------------------------------------------------------------------------
# property-based: any input gives a finite value in range or a ValueError
# --------------------------------------------------------------------------------------

_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)
_probs = st.one_of(st.floats(0, 1), _floats)


@st.composite
def _inputs(draw):
    n = draw(st.integers(0, 12))
    k = draw(st.sampled_from([1, 2, 3]))
    if k == 1:
        P = draw(hnp.arrays(np.float64, n, elements=_probs))
    else:
        raw = draw(hnp.arrays(np.float64, (n, k), elements=st.floats(0, 1)))
        with np.errstate(all="ignore"):
            P = raw / raw.sum(axis=1, keepdims=True) if draw(st.booleans()) else raw
        if draw(st.booleans()) and n:
            P[draw(st.integers(0, n - 1)), 0] = draw(_floats)
    y = draw(
        hnp.arrays(
            np.int64,
            draw(st.sampled_from([n, n, max(n - 1, 0)])),
            elements=st.integers(0, max(k - 1, 1)),
        )
    )
    w = None
    if draw(st.booleans()):
        w = draw(hnp.arrays(np.float64, len(y), elements=st.one_of(st.floats(0, 5), _floats)))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    with np.errstate(all="ignore"):
        P = P.astype(dtype)
    return y, P, w


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_inputs())
def test_any_input_finite_in_range_or_value_error(name, data):
    y, P, w = data
    metric = CLASSIFICATION_METRICS[name]
    try:
        with np.errstate(divide="raise", over="raise", invalid="raise"):
            v = metric(y, P, sample_weight=w)
    except ValueError:
        return
    assert type(v) is float
    assert math.isfinite(v) or RANGES.get(name, (0, 1))[1] == math.inf
    lo, hi = RANGES.get(name, (0.0, 1.0))
    assert lo - 1e-12 <= v <= hi + 1e-12
