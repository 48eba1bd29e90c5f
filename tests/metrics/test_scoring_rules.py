"""Tests of the classification scoring rules: brier_score, negative_log_likelihood,
brier_decomposition, score_decomposition."""

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.utils.fixes import parse_version

from skcalib.metrics import (
    BrierDecompositionResult,
    ScoreDecompositionResult,
    brier_decomposition,
    brier_score,
    negative_log_likelihood,
    score_decomposition,
)
from tests.metrics._result_checks import check_unpackable_result
from tests.utils.array_api_cases import CASE_IDS, Case, no_host_copy_of_the_data

#: sklearn's brier_score_loss accepts 2-D (multiclass) probabilities from 1.7 on
SKLEARN_GE_17 = parse_version(sklearn.__version__) >= parse_version("1.7")
needs_multiclass_brier = pytest.mark.skipif(
    not SKLEARN_GE_17, reason="sklearn < 1.7 has no multiclass brier_score_loss"
)

SEEDS = [0, 1, 2]


# --------------------------------------------------------------------------------------
# helpers: random data and slow, obviously-correct reference implementations
# --------------------------------------------------------------------------------------


def _multiclass(rng, n, k, ties=False):
    P = rng.dirichlet(np.ones(k), size=n)
    if ties:
        # few distinct forecast vectors
        P = P[rng.integers(0, 6, n)]
    y = np.array([rng.choice(k, p=p) for p in P])
    return y, P


def _binary(rng, n, ties=False):
    p = rng.random(n)
    if ties:
        p = np.round(p, 1)
    y = (rng.random(n) < p).astype(int)
    return y, p


def brier_loop(y_idx, P, w=None):
    """Element-wise Brier definition, a Python loop.  P 1-D: binary (y_idx in {0, 1})."""
    n = len(y_idx)
    w = np.ones(n) if w is None else np.asarray(w, float)
    total = 0.0
    for i in range(n):
        if P.ndim == 1:
            s = (P[i] - (y_idx[i] == 1)) ** 2
        else:
            k = P.shape[1]
            s = sum((P[i, j] - (y_idx[i] == j)) ** 2 for j in range(k))
            if k == 2:
                s *= 0.5
        total += w[i] * s
    return total / w.sum()


def murphy_loop(y_idx, P, w=None):
    """Murphy decomposition grouping identical forecast rows, with a dict (slow)."""
    n = len(y_idx)
    w = np.ones(n) if w is None else np.asarray(w, float)
    if P.ndim == 1:
        F = P[:, None]
        onehot = (np.asarray(y_idx) == 1).astype(float)[:, None]
    else:
        F = P
        onehot = np.eye(P.shape[1])[y_idx]
    groups = {}
    for i in range(n):
        groups.setdefault(tuple(F[i]), []).append(i)
    W = w.sum()
    clim = (w[:, None] * onehot).sum(axis=0) / W
    rel = res = 0.0
    for key, idx in groups.items():
        ng = w[idx].sum()
        if ng == 0:
            continue
        og = (w[idx, None] * onehot[idx]).sum(axis=0) / ng
        rel += ng * np.sum((np.array(key) - og) ** 2)
        res += ng * np.sum((og - clim) ** 2)
    return np.sum(clim * (1 - clim)), res / W, rel / W


def corp_reference(x, o, w, scoring):
    """CORP components with sklearn's IsotonicRegression (ties pooled), slow scores."""
    w = np.ones(len(x)) if w is None else np.asarray(w, float)
    keep = w > 0
    x, o, w = x[keep], o[keep].astype(float), w[keep]
    iso = IsotonicRegression(y_min=0, y_max=1, increasing=True, out_of_bounds="clip")
    xr = iso.fit(x, o, sample_weight=w).predict(x)
    clim = np.sum(w * o) / np.sum(w)

    def mean_score(p):
        p = np.broadcast_to(p, o.shape)
        if scoring == "brier":
            s = (p - o) ** 2
        else:
            s = np.array(
                [
                    -np.log(pi) if oi == 1 else -np.log(1 - pi) if pi < 1 else np.inf
                    for pi, oi in zip(p, o, strict=True)
                ]
            )
        return np.sum(w * s) / np.sum(w)

    eps = np.finfo(np.float64).eps
    xs = np.clip(x, eps, 1 - eps) if scoring == "log_loss" else x
    s_x, s_r, s_c = mean_score(xs), mean_score(xr), mean_score(clim)
    return s_x, s_x - s_r, s_c - s_r, s_c


# --------------------------------------------------------------------------------------
# brier_score
# --------------------------------------------------------------------------------------


def test_brier_toy_values():
    # sklearn's documented examples (hand-checkable)
    assert brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]) == pytest.approx(0.0375)
    assert brier_score([0, 1, 1, 0], [0.9, 0.1, 0.2, 0.7], pos_label=0) == pytest.approx(0.0375)
    assert brier_score(
        ["eggs", "ham", "spam"],
        [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]],
        labels=["eggs", "ham", "spam"],
    ) == pytest.approx(0.44 / 3)
    # perfect and worst forecasts
    assert brier_score([0, 1], [0.0, 1.0]) == 0.0
    assert brier_score([0, 1], [1.0, 0.0]) == 1.0
    assert brier_score([0, 1, 2], np.eye(3)[[1, 2, 0]]) == 2.0


def test_brier_uncertainty_metrics_is_conventional_minus_one():
    # uncertainty_metrics 0.0.82's brier_score (uncertainty_metrics/tensorflow/
    # scoring_rules.py) is the conventional score minus 1: on this input it gives
    # [-0.86, -0.94, -0.46, -0.38] per example, mean -0.66.
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]])
    y = [0, 1, 2, 1]
    assert brier_score(y, P) == pytest.approx(-0.66 + 1, abs=1e-12)
    um_per_example = np.array([-0.86, -0.94, -0.46, -0.38])
    for i in range(4):
        assert brier_score([y[i]], P[i : i + 1], labels=[0, 1, 2]) == pytest.approx(
            um_per_example[i] + 1, abs=1e-12
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_brier_matches_sklearn_binary(seed):
    rng = np.random.default_rng(seed)
    y, p = _binary(rng, 200)
    w = rng.random(200)
    assert brier_score(y, p) == pytest.approx(brier_score_loss(y, p), rel=1e-12)
    assert brier_score(y, p, sample_weight=w) == pytest.approx(
        brier_score_loss(y, p, sample_weight=w), rel=1e-12
    )
    # -1/1 labels, pos_label, strings with pos_label
    ypm = 2 * y - 1
    assert brier_score(ypm, p) == pytest.approx(brier_score_loss(ypm, p), rel=1e-12)
    assert brier_score(y, 1 - p, pos_label=0) == pytest.approx(
        brier_score_loss(y, 1 - p, pos_label=0), rel=1e-12
    )
    ys = np.where(y == 1, "spam", "ham")
    assert brier_score(ys, p, pos_label="spam") == pytest.approx(
        brier_score_loss(ys, p, pos_label="spam"), rel=1e-12
    )
    # no default positive class for string labels (as in sklearn): pos_label is required
    with pytest.raises(ValueError, match=r"takes values in \{'ham', 'spam'\}.*pass pos_label="):
        brier_score(ys, p)
    # two columns: half the two-column sum, the 1-D value
    P2 = np.column_stack([1 - p, p])
    if SKLEARN_GE_17:
        assert brier_score(y, P2) == pytest.approx(brier_score_loss(y, P2), rel=1e-12)
    assert brier_score(y, P2) == pytest.approx(brier_score(y, p), rel=1e-12)
    assert brier_score(y, p) == pytest.approx(brier_loop(y, p), rel=1e-12)


@needs_multiclass_brier
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [3, 5])
def test_brier_matches_sklearn_multiclass(seed, k):
    rng = np.random.default_rng(seed)
    y, P = _multiclass(rng, 300, k)
    w = rng.random(300)
    assert brier_score(y, P) == pytest.approx(brier_score_loss(y, P), rel=1e-12)
    assert brier_score(y, P, sample_weight=w) == pytest.approx(
        brier_score_loss(y, P, sample_weight=w), rel=1e-12
    )
    assert brier_score(y, P, sample_weight=w) == pytest.approx(brier_loop(y, P, w), rel=1e-12)
    names = np.array(["a", "b", "c", "d", "e"])[:k]
    assert brier_score(names[y], P) == pytest.approx(brier_score_loss(names[y], P), rel=1e-12)
    # labels= with a class absent from y_true
    y_sub = np.where(y == 0, 1, y)
    assert brier_score(y_sub, P, labels=np.arange(k)) == pytest.approx(
        brier_score_loss(y_sub, P, labels=np.arange(k)), rel=1e-12
    )


@needs_multiclass_brier
def test_brier_long_input_is_chunked_exactly():
    rng = np.random.default_rng(3)
    y, P = _multiclass(rng, 20_000, 4)  # several chunks
    assert brier_score(y, P) == pytest.approx(brier_score_loss(y, P), rel=1e-11)
    yb, p = _binary(rng, 300_000)
    assert brier_score(yb, p) == pytest.approx(brier_score_loss(yb, p), rel=1e-11)


def test_brier_accurate_for_near_perfect_forecasts():
    # no sum(p^2) - 2 p_y + 1 cancellation: the tiny score is accurate
    d = 1e-9
    P = np.array([[1 - 2 * d, d, d], [d, 1 - 2 * d, d]])
    expected = 4 * d * d + 2 * d * d  # per row, both rows the same
    assert brier_score([0, 1], P, labels=[0, 1, 2]) == pytest.approx(expected, rel=1e-6)


def test_brier_float32():
    rng = np.random.default_rng(4)
    y, P = _multiclass(rng, 500, 3)
    P32 = P.astype(np.float32)
    assert brier_score(y, P32) == pytest.approx(brier_loop(y, P32.astype(np.float64)), rel=1e-10)
    assert isinstance(brier_score(y, P32), float)


@pytest.mark.parametrize(
    "y_true, y_proba, kwargs, match",
    [
        ([0, 1], [0.1, np.nan], {}, "y_proba contains NaN"),
        ([0, 1], [0.1, 1.2], {}, "y_proba must contain probabilities"),
        ([0, 1, 2], [[0.5, 0.5, 0.5]] * 3, {}, "rows must sum to 1"),
        ([0, 1], [0.1, 0.2, 0.3], {}, "different numbers of samples"),
        ([0, 1, 2], [0.1, 0.2, 0.3], {}, "1-D"),
        ([0, 1], [0.1, 0.2], {"pos_label": 3}, "pos_label"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, -1]}, "sample_weight"),
        ([0, 3], [[0.5, 0.5], [0.5, 0.5]], {"labels": [0, 1]}, "labels"),
        ([], [], {}, "empty"),
    ],
)
def test_brier_bad_input(y_true, y_proba, kwargs, match):
    with pytest.raises(ValueError, match=match):
        brier_score(y_true, y_proba, **kwargs)


# --------------------------------------------------------------------------------------
# negative_log_likelihood
# --------------------------------------------------------------------------------------


def test_nll_toy_values():
    assert negative_log_likelihood([0, 1], [0.5, 0.5]) == pytest.approx(np.log(2))
    assert negative_log_likelihood([1, 0], [0.8, 0.1]) == pytest.approx(
        -(np.log(0.8) + np.log(0.9)) / 2
    )
    assert negative_log_likelihood(
        ["spam", "ham", "ham", "spam"], [[0.1, 0.9], [0.9, 0.1], [0.8, 0.2], [0.35, 0.65]]
    ) == pytest.approx(0.21616, abs=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_nll_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    y, p = _binary(rng, 200)
    w = rng.random(200)
    assert negative_log_likelihood(y, p) == pytest.approx(log_loss(y, p), rel=1e-12)
    assert negative_log_likelihood(y, p, sample_weight=w) == pytest.approx(
        log_loss(y, p, sample_weight=w), rel=1e-12
    )
    P2 = np.column_stack([1 - p, p])
    assert negative_log_likelihood(y, P2) == pytest.approx(log_loss(y, P2), rel=1e-12)
    ys = np.where(y == 1, "yes", "no")
    assert negative_log_likelihood(ys, p, pos_label="yes") == pytest.approx(
        log_loss(ys, p), rel=1e-12
    )
    for k in (3, 6):
        ym, P = _multiclass(rng, 300, k)
        assert negative_log_likelihood(ym, P) == pytest.approx(log_loss(ym, P), rel=1e-12)
        wm = rng.random(300)
        assert negative_log_likelihood(ym, P, sample_weight=wm) == pytest.approx(
            log_loss(ym, P, sample_weight=wm), rel=1e-12
        )
        assert negative_log_likelihood(ym, P, labels=np.arange(k)) == pytest.approx(
            log_loss(ym, P, labels=np.arange(k)), rel=1e-12
        )
        # slow reference: -mean log p_true
        ref = -np.mean([np.log(P[i, ym[i]]) for i in range(len(ym))])
        assert negative_log_likelihood(ym, P) == pytest.approx(ref, rel=1e-12)


def test_nll_clipping_matches_sklearn_dtype_eps():
    y = [0, 1, 2, 1]
    P = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    assert negative_log_likelihood(y, P) == pytest.approx(log_loss(y, P), rel=1e-12)
    eps64 = np.finfo(np.float64).eps
    assert negative_log_likelihood(y, P) == pytest.approx(
        -(np.log(eps64) + 0 + np.log(eps64) + np.log(eps64)) / 4, rel=1e-12
    )
    P32 = P.astype(np.float32)
    eps32 = float(np.finfo(np.float32).eps)
    assert negative_log_likelihood(y, P32) == pytest.approx(-(3 * np.log(eps32)) / 4, rel=1e-6)
    assert negative_log_likelihood(y, P32) == pytest.approx(log_loss(y, P32), rel=1e-6)
    # binary 1-D with exact 0/1
    yb, pb = [1, 0, 1], np.array([0.0, 1.0, 1.0])
    assert negative_log_likelihood(yb, pb) == pytest.approx(log_loss(yb, pb), rel=1e-12)


def test_nll_float32_matches_sklearn():
    rng = np.random.default_rng(7)
    y, P = _multiclass(rng, 400, 4)
    P32 = (P / P.sum(axis=1, keepdims=True)).astype(np.float32)
    assert negative_log_likelihood(y, P32) == pytest.approx(log_loss(y, P32), rel=1e-6)


def test_nll_eps_option():
    y = [0, 1]
    p = np.array([0.0, 0.5])
    assert negative_log_likelihood(y, p, eps=1e-3) == pytest.approx(
        -(np.log(1 - 1e-3) + np.log(0.5)) / 2
    )
    assert negative_log_likelihood([1, 1], [0.0, 0.5], eps=1e-3) == pytest.approx(
        -(np.log(1e-3) + np.log(0.5)) / 2
    )
    assert negative_log_likelihood([1, 1], [0.0, 0.5], eps=0) == np.inf
    with pytest.raises(ValueError, match="eps"):
        negative_log_likelihood(y, p, eps=0.7)
    with pytest.raises(ValueError, match="eps"):
        negative_log_likelihood(y, p, eps="tiny")


def test_nll_bad_input():
    with pytest.raises(ValueError, match="y_proba contains NaN"):
        negative_log_likelihood([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="rows must sum to 1"):
        negative_log_likelihood([0, 1], [[0.2, 0.2], [0.5, 0.5]])
    with pytest.raises(ValueError, match="different numbers of samples"):
        negative_log_likelihood([0, 1, 1], [0.2, 0.3])


# --------------------------------------------------------------------------------------
# brier_decomposition
# --------------------------------------------------------------------------------------


def test_brier_decomposition_toy():
    d = brier_decomposition([0, 0, 1, 1, 1], [0.2, 0.2, 0.2, 0.8, 0.8])
    # groups p=0.2: o=1/3 (3 samples); p=0.8: o=1 (2 samples); climatology 0.6
    assert d.uncertainty == pytest.approx(0.24)
    assert d.reliability == pytest.approx((3 * (0.2 - 1 / 3) ** 2 + 2 * 0.2**2) / 5)
    assert d.resolution == pytest.approx((3 * (1 / 3 - 0.6) ** 2 + 2 * 0.4**2) / 5)
    assert d.within_bin_variance == 0.0 and d.within_bin_covariance == 0.0


def test_brier_decomposition_versus_uncertainty_metrics():
    # uncertainty_metrics 0.0.82 (uncertainty_metrics/tensorflow/scoring_rules.py) gives
    # brier_score -0.66 and brier_decomposition (unc, res, rel) = (-0.375, 0.375, 0.19),
    # whose unc - res + rel = -0.56 != -0.66.  Ours: conventional score 0.34 = UM + 1 and
    # an exact decomposition; the uncertainty is UM's + 1 (UM drops the constant 1).
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]])
    y = [0, 1, 2, 1]
    d = brier_decomposition(y, P)
    assert d.uncertainty == pytest.approx(-0.375 + 1, abs=1e-12)
    assert d.reliability - d.resolution + d.uncertainty == pytest.approx(0.34, abs=1e-12)
    # all forecasts distinct: each group is one sample, so RES = UNC and REL = BS
    assert d.resolution == pytest.approx(d.uncertainty, abs=1e-12)
    assert d.reliability == pytest.approx(0.34, abs=1e-12)


def _terms(d):
    """Every term of a decomposition result, by name (the unpacked ones and the others)."""
    return {f.name: getattr(d, f.name) for f in dataclasses.fields(d)}


def test_brier_decomposition_unpacks_as_uncertainty_resolution_reliability():
    """Regression: the decomposition was a Bunch, whose unpacking gave its five keys.  It
    unpacks as the documented (and uncertainty_metrics') order of Murphy's terms."""
    y, p = [0, 0, 1, 1, 1], [0.2, 0.2, 0.2, 0.8, 0.8]
    d = brier_decomposition(y, p)
    unc, res, rel = d
    assert unc == pytest.approx(0.24, abs=1e-15)
    assert res == pytest.approx((3 * (1 / 3 - 0.6) ** 2 + 2 * 0.4**2) / 5, abs=1e-15)
    assert rel == pytest.approx((3 * (0.2 - 1 / 3) ** 2 + 2 * 0.2**2) / 5, abs=1e-15)
    assert rel - res + unc == pytest.approx(brier_score(y, p), abs=1e-15)
    names = ("uncertainty", "resolution", "reliability")
    check_unpackable_result(d, BrierDecompositionResult, names)
    assert (d.within_bin_variance, d.within_bin_covariance) == (0.0, 0.0)
    binned = brier_decomposition(y, [0.1, 0.3, 0.2, 0.8, 0.9], n_bins=2)
    assert len(binned) == 3 and binned.within_bin_variance > 0  # an attribute only


def test_score_decomposition_unpacks_as_its_four_terms():
    d = score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    score, mcb, dsc, unc = d
    # PAV of y = [0, 1, 0, 1] (sorted by forecast) gives [0, .5, .5, 1]: 0.125
    assert (score, mcb, dsc, unc) == pytest.approx((0.275, 0.15, 0.125, 0.25), abs=1e-15)
    names = ("score", "miscalibration", "discrimination", "uncertainty")
    check_unpackable_result(d, ScoreDecompositionResult, names)


def _identity(d):
    return (
        d.reliability
        - d.resolution
        + d.uncertainty
        + d.within_bin_variance
        - d.within_bin_covariance
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["binary", "binary2", "multiclass"])
@pytest.mark.parametrize(
    "n_bins, strategy",
    [(None, "uniform"), (1, "uniform"), (7, "uniform"), (1, "quantile"), (7, "quantile")],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_brier_decomposition_identity(seed, kind, n_bins, strategy, weighted):
    rng = np.random.default_rng(seed)
    if kind == "multiclass":
        y, P = _multiclass(rng, 400, 4, ties=seed == 0)
    else:
        y, P = _binary(rng, 400, ties=seed == 0)
        if kind == "binary2":
            P = np.column_stack([1 - P, P])
    w = rng.random(400) * (rng.random(400) > 0.1) if weighted else None
    d = brier_decomposition(y, P, n_bins=n_bins, strategy=strategy, sample_weight=w)
    assert _identity(d) == pytest.approx(brier_score(y, P, sample_weight=w), abs=1e-12)
    assert d.reliability >= 0 and d.resolution >= -1e-15 and d.within_bin_variance >= 0
    assert all(isinstance(v, float) for v in _terms(d).values())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_brier_decomposition_matches_loop(seed, kind):
    rng = np.random.default_rng(seed)
    if kind == "multiclass":
        y, P = _multiclass(rng, 300, 3, ties=True)
    else:
        y, P = _binary(rng, 300, ties=True)
    w = rng.random(300)
    for sw in (None, w):
        d = brier_decomposition(y, P, sample_weight=sw)
        unc, res, rel = murphy_loop(y, P, sw)
        assert d.uncertainty == pytest.approx(unc, abs=1e-12)
        assert d.resolution == pytest.approx(res, abs=1e-12)
        assert d.reliability == pytest.approx(rel, abs=1e-12)


def test_brier_decomposition_binned_binary_matches_bins():
    # binned decomposition: groups are the bins of the uniform rule
    p = np.array([0.05, 0.15, 0.55, 0.6, 0.95, 1.0])
    y = np.array([0, 0, 1, 0, 1, 1])
    d = brier_decomposition(y, p, n_bins=2)
    # bins (-, 0.5] -> {0.05, 0.15}, (0.5, 1] -> {0.55, 0.6, 0.95, 1.0}
    f = np.array([0.1, 0.775])
    o = np.array([0.0, 0.75])
    nb = np.array([2, 4])
    assert d.reliability == pytest.approx(np.sum(nb * (f - o) ** 2) / 6)
    assert d.resolution == pytest.approx(np.sum(nb * (o - 0.5) ** 2) / 6)
    wbv = (0.05**2 + 0.15**2 - 2 * 0.1**2 + np.sum(p[2:] ** 2) - 4 * 0.775**2) / 6
    assert d.within_bin_variance == pytest.approx(wbv)
    # identical forecasts within each bin: binned == exact
    q = np.array([0.2, 0.2, 0.7, 0.7, 0.7])
    yq = np.array([0, 1, 1, 1, 0])
    a, b = brier_decomposition(yq, q), brier_decomposition(yq, q, n_bins=10)
    assert tuple(a) == pytest.approx(tuple(b), abs=1e-15)
    assert b.within_bin_variance == pytest.approx(0, abs=1e-15)
    assert b.within_bin_covariance == pytest.approx(0, abs=1e-15)


def test_brier_decomposition_invariances():
    rng = np.random.default_rng(11)
    y, P = _multiclass(rng, 60, 3, ties=True)
    w = rng.integers(0, 4, 60)
    d = brier_decomposition(y, P, sample_weight=w)
    rep = np.repeat(np.arange(60), w)
    d_rep = brier_decomposition(y[rep], P[rep])
    perm = rng.permutation(60)
    d_perm = brier_decomposition(y[perm], P[perm], sample_weight=w[perm])
    names = np.array(["x", "y", "z"])
    d_names = brier_decomposition(pd.Series(names[y]), pd.DataFrame(P), sample_weight=w)
    for other in (d_rep, d_perm, d_names):
        assert _terms(other) == pytest.approx(_terms(d), abs=1e-12)


def test_brier_decomposition_bad_input():
    with pytest.raises(ValueError, match="n_bins"):
        brier_decomposition([0, 1], [0.2, 0.3], n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        brier_decomposition([0, 1], [0.2, 0.3], n_bins=3, strategy="bogus")
    with pytest.raises(ValueError, match="y_proba contains NaN"):
        brier_decomposition([0, 1], [0.2, np.nan])


# --------------------------------------------------------------------------------------
# score_decomposition (CORP)
# --------------------------------------------------------------------------------------


def test_score_decomposition_toy():
    # PAV of y = [0, 1, 0, 1] (sorted by forecast) gives [0, .5, .5, 1]
    d = score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    assert d.score == pytest.approx(0.275)
    assert d.miscalibration == pytest.approx(0.275 - 0.125)
    assert d.discrimination == pytest.approx(0.25 - 0.125)
    assert d.uncertainty == pytest.approx(0.25)
    dl = score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], scoring="log_loss")
    s_rc = 0.5 * np.log(2)  # two samples at 0.5, two at exactly 0 / 1 (0 log 0 = 0)
    assert dl.uncertainty == pytest.approx(np.log(2))
    assert dl.discrimination == pytest.approx(np.log(2) - s_rc)
    assert dl.score == pytest.approx(log_loss([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]))
    assert np.isfinite(list(_terms(dl).values())).all()


def test_score_decomposition_calibrated_forecast_has_zero_mcb():
    # a forecast that is its own isotonic recalibration: MCB = 0
    p = np.array([0.0, 0.0, 0.5, 0.5, 1.0])
    y = np.array([0, 0, 0, 1, 1])
    for scoring in ("brier", "log_loss"):
        d = score_decomposition(y, p, scoring=scoring)
        assert d.miscalibration == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scoring", ["brier", "log_loss"])
@pytest.mark.parametrize("weighted", [False, True])
def test_score_decomposition_binary(seed, scoring, weighted):
    rng = np.random.default_rng(seed)
    y, p = _binary(rng, 300, ties=seed == 1)
    p = np.clip(p * 0.8 + 0.05, 0, 1)  # miscalibrated
    w = (rng.random(300) * (rng.random(300) > 0.1)) if weighted else None
    d = score_decomposition(y, p, scoring=scoring, sample_weight=w)
    ref = corp_reference(p, y == 1, w, scoring)
    assert [d.score, d.miscalibration, d.discrimination, d.uncertainty] == pytest.approx(
        list(ref), abs=1e-12
    )
    assert d.miscalibration - d.discrimination + d.uncertainty == pytest.approx(d.score, abs=1e-12)
    assert d.miscalibration >= -1e-15 and d.discrimination >= -1e-15
    metric = brier_score if scoring == "brier" else negative_log_likelihood
    assert d.score == pytest.approx(metric(y, p, sample_weight=w), abs=1e-12)
    # two columns: the same decomposition of the positive class
    d2 = score_decomposition(y, np.column_stack([1 - p, p]), scoring=scoring, sample_weight=w)
    assert _terms(d2) == pytest.approx(_terms(d), abs=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_score_decomposition_log_loss_two_columns_reads_the_negative_column(dtype):
    # Rows that sum to 1 only within the tolerance: the log score of a negative sample
    # must use its own column, as negative_log_likelihood (and sklearn's log_loss) do,
    # not 1 - the positive column (which differed by up to 1e-4 for float32 input).
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(0, 2, n)
    q = 1 - rng.random(n) ** 10  # positive-class probability, often close to 1
    P = np.column_stack([1 - q, q])
    P[:, 0] *= 1 + rng.uniform(-5e-9, 5e-9, n)  # rows sum to 1 within 1.5e-8 (float64)
    P = P.astype(dtype)
    for w in (None, rng.random(n)):
        d = score_decomposition(y, P, scoring="log_loss", sample_weight=w)
        nll = negative_log_likelihood(y, P, sample_weight=w)
        assert d.score == pytest.approx(nll, rel=1e-13, abs=0)
        assert d.score == pytest.approx(log_loss(y, P, sample_weight=w), rel=1e-6)
        assert d.miscalibration - d.discrimination + d.uncertainty == pytest.approx(
            d.score, abs=1e-12
        )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("scoring", ["brier", "log_loss"])
def test_score_decomposition_multiclass_one_vs_rest(seed, scoring):
    rng = np.random.default_rng(seed)
    y, P = _multiclass(rng, 250, 4)
    w = rng.random(250)
    d = score_decomposition(y, P, scoring=scoring, sample_weight=w)
    refs = np.array([corp_reference(P[:, j], y == j, w, scoring) for j in range(4)])
    assert [d.score, d.miscalibration, d.discrimination, d.uncertainty] == pytest.approx(
        list(refs.sum(axis=0)), abs=1e-12
    )
    assert d.miscalibration - d.discrimination + d.uncertainty == pytest.approx(d.score, abs=1e-12)
    if scoring == "brier":
        assert d.score == pytest.approx(brier_score(y, P, sample_weight=w), abs=1e-12)


def test_score_decomposition_invariances():
    rng = np.random.default_rng(5)
    y, p = _binary(rng, 80, ties=True)
    w = rng.integers(0, 4, 80)
    for scoring in ("brier", "log_loss"):
        d = score_decomposition(y, p, scoring=scoring, sample_weight=w)
        rep = np.repeat(np.arange(80), w)
        d_rep = score_decomposition(y[rep], p[rep], scoring=scoring)
        perm = rng.permutation(80)
        d_perm = score_decomposition(y[perm], p[perm], scoring=scoring, sample_weight=w[perm])
        d_str = score_decomposition(
            np.where(y == 1, "b", "a"),
            list(p),
            scoring=scoring,
            sample_weight=list(w),
            pos_label="b",
        )
        for other in (d_rep, d_perm, d_str):
            assert _terms(other) == pytest.approx(_terms(d), abs=1e-12)


def test_score_decomposition_bad_input():
    with pytest.raises(ValueError, match="scoring"):
        score_decomposition([0, 1], [0.2, 0.3], scoring="crps")
    with pytest.raises(ValueError, match="y_proba must contain probabilities"):
        score_decomposition([0, 1], [0.2, -0.3])


@needs_multiclass_brier
def test_assume_finite_skips_value_checks_only():
    from sklearn import config_context

    rng = np.random.default_rng(12)
    y, P = _multiclass(rng, 100, 3)
    with config_context(assume_finite=True):
        assert brier_score(y, P) == pytest.approx(brier_score_loss(y, P), rel=1e-12)
        assert negative_log_likelihood(y, P) == pytest.approx(log_loss(y, P), rel=1e-12)
        with pytest.raises(ValueError, match="different numbers of samples"):
            brier_score(y[:-1], P)


# --------------------------------------------------------------------------------------
# property-based: the decompositions give finite, consistent results or a ValueError
# --------------------------------------------------------------------------------------


@st.composite
def _cls_inputs(draw):
    n = draw(st.integers(1, 10))
    k = draw(st.sampled_from([1, 2, 3]))
    levels = st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]) | st.floats(0, 1)
    if k == 1:
        P = draw(hnp.arrays(np.float64, n, elements=levels | st.floats()))
    else:
        raw = draw(hnp.arrays(np.float64, (n, k), elements=levels))
        with np.errstate(all="ignore"):
            P = raw / raw.sum(axis=1, keepdims=True)
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, max(k - 1, 1))))
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=st.floats(0, 5)))
    return y, P, w


@settings(max_examples=100, deadline=None)
@given(
    data=_cls_inputs(),
    n_bins=st.none() | st.integers(1, 4),
    scoring=st.sampled_from(["brier", "log_loss"]),
)
def test_decompositions_finite_and_exact_or_value_error(data, n_bins, scoring):
    y, P, w = data
    try:
        bs = brier_score(y, P, sample_weight=w)
    except ValueError:
        with pytest.raises(ValueError):
            brier_decomposition(y, P, sample_weight=w, n_bins=n_bins)
        with pytest.raises(ValueError):
            score_decomposition(y, P, sample_weight=w, scoring=scoring)
        return
    d = brier_decomposition(y, P, sample_weight=w, n_bins=n_bins)
    assert np.isfinite(list(_terms(d).values())).all()
    assert _identity(d) == pytest.approx(bs, abs=1e-12)
    c = score_decomposition(y, P, sample_weight=w, scoring=scoring)
    assert np.isfinite(list(_terms(c).values())).all()
    assert c.miscalibration >= -1e-12 and c.discrimination >= -1e-12
    assert c.miscalibration - c.discrimination + c.uncertainty == pytest.approx(c.score, abs=1e-12)


# --------------------------------------------------------------------------------------
# the decompositions on array API input (doc/array_api.rst)
# --------------------------------------------------------------------------------------


def _tied_data(kind, n=160, seed=21):
    """Labels, probabilities with few distinct forecasts, and weights (some zero).

    Multiclass rows are the 24 orders of (0.4, 0.3, 0.2, 0.1), which share values in
    every column (so that a group is a run of the lexicographic order of whole rows,
    not of some columns), and a row with -0.0 (the same forecast as 0.0)."""
    rng = np.random.default_rng(seed)
    if kind == "multiclass":
        rows = np.array(
            [
                *itertools.permutations([0.4, 0.3, 0.2, 0.1]),
                [0.0, 0.5, 0.5, 0.0],
                [-0.0, 0.5, 0.5, 0.0],
            ]
        )
        P = rows[rng.integers(0, len(rows), n)]
        y = rng.integers(0, 4, n)
    else:
        y, P = _binary(rng, n, ties=True)
        P[:5] = -0.0
        if kind == "binary2":
            P = np.column_stack([1 - P, P])
    w = rng.random(n)
    w[::9] = 0.0
    return y, P, w


DECOMPOSITION_CALLS = {
    "brier_exact": (brier_decomposition, {}),
    "brier_uniform_bins": (brier_decomposition, {"n_bins": 7}),
    "brier_quantile_bins": (brier_decomposition, {"n_bins": 7, "strategy": "quantile"}),
    "corp_brier": (score_decomposition, {"scoring": "brier"}),
    "corp_log_loss": (score_decomposition, {"scoring": "log_loss"}),
}


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("kind", ["binary", "binary2", "multiclass"])
@pytest.mark.parametrize("call", sorted(DECOMPOSITION_CALLS))
def test_decomposition_array_api_equals_numpy_without_a_host_copy(
    dispatch, monkeypatch, case_id, kind, call
):
    """Under array_api_dispatch=True the decompositions compute on the device (no
    array as long as the data goes to the host) and give the numpy values of the same
    (dtype-rounded) numbers: to 1e-10 in float64, 1e-5 in float32; with and without
    weights, labels on the device or the host, ties and -0.0."""
    case = Case(case_id)
    metric, options = DECOMPOSITION_CALLS[call]
    y, P, w = _tied_data(kind)
    no_host_copy_of_the_data(monkeypatch, len(y))
    for y_dev, sw, sw_dev in [
        (case.asarray(y), None, None),
        (y, case.rounded(w), case.asarray(w)),
        (case.asarray(y), case.rounded(w), case.asarray(w)),
    ]:
        expected = metric(y, case.rounded(P), sample_weight=sw, **options)
        got = metric(y_dev, case.asarray(P), sample_weight=sw_dev, **options)
        assert type(got) is type(expected)
        for key, value in _terms(expected).items():
            assert type(getattr(got, key)) is float
            assert getattr(got, key) == pytest.approx(value, rel=case.tolerance, abs=case.tolerance)


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_score_decomposition_array_api_distinct_forecasts(dispatch, case_id, kind):
    """Continuous forecasts (every group one sample, the groups as long as the data)
    and a weight-0 sample: the numpy values."""
    case = Case(case_id)
    rng = np.random.default_rng(22)
    if kind == "multiclass":
        y, P = _multiclass(rng, 150, 4)
    else:
        y, P = _binary(rng, 150)
    w = rng.random(150)
    w[3] = 0.0
    for scoring in ("brier", "log_loss"):
        for sw, sw_dev in [(None, None), (case.rounded(w), case.asarray(w))]:
            expected = score_decomposition(y, case.rounded(P), scoring=scoring, sample_weight=sw)
            got = score_decomposition(
                case.asarray(y), case.asarray(P), scoring=scoring, sample_weight=sw_dev
            )
            assert _terms(got) == pytest.approx(
                _terms(expected), rel=case.tolerance, abs=case.tolerance
            )


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_decomposition_array_api_golden_values(dispatch, case_id):
    """The toy values of the docstrings, computed on the device: Murphy's components
    of groups p=0.2 (3 samples, frequency 1/3) and p=0.8 (2 samples, frequency 1),
    climatology 0.6; CORP of y = [0, 1, 0, 1] on increasing forecasts, whose PAV fit is
    [0, .5, .5, 1] (Dimitriadis, Gneiting and Jordan 2021, eq. (3))."""
    case = Case(case_id)
    d = brier_decomposition(
        case.asarray(np.array([0, 0, 1, 1, 1])), case.asarray([0.2, 0.2, 0.2, 0.8, 0.8])
    )
    tol = case.tolerance
    assert d.uncertainty == pytest.approx(0.24, abs=tol)
    assert d.reliability == pytest.approx((3 * (0.2 - 1 / 3) ** 2 + 2 * 0.2**2) / 5, abs=tol)
    assert d.resolution == pytest.approx((3 * (1 / 3 - 0.6) ** 2 + 2 * 0.4**2) / 5, abs=tol)
    c = score_decomposition(
        case.asarray(np.array([0, 1, 0, 1])), case.asarray([0.1, 0.2, 0.3, 0.4])
    )
    assert (c.score, c.miscalibration, c.discrimination, c.uncertainty) == pytest.approx(
        (0.275, 0.15, 0.125, 0.25), abs=tol
    )
