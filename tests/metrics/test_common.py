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
from scipy import stats

import skcalib.metrics as M
from tests.utils.array_api_cases import CASE_IDS, Case, no_host_copy_of_the_data

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
    "monotonic_sweep_calibration_error": M.monotonic_sweep_calibration_error,
    "monotonic_sweep_calibration_error_classwise_l2": partial(
        M.monotonic_sweep_calibration_error, multiclass="classwise", norm="l2"
    ),
    "brier_score": M.brier_score,
    "negative_log_likelihood": M.negative_log_likelihood,
    # statistical calibration
    "smooth_calibration_error": M.smooth_calibration_error,
    "smooth_calibration_error_top_label_bandwidth": partial(
        M.smooth_calibration_error, multiclass="top_label", bandwidth=0.05
    ),
    # calibration across groups: the binning-free cumulative calibration error
    "cumulative_calibration_error": M.cumulative_calibration_error,
    "cumulative_calibration_error_classwise": partial(
        M.cumulative_calibration_error, multiclass="classwise"
    ),
    # selective prediction
    "area_under_risk_coverage": M.area_under_risk_coverage,
    "excess_area_under_risk_coverage": M.excess_area_under_risk_coverage,
    "area_under_generalized_risk_coverage": M.area_under_generalized_risk_coverage,
    "risk_at_coverage": partial(M.risk_at_coverage, coverage=0.7),
    "oracle_collaborative_accuracy": partial(M.oracle_collaborative_accuracy, fraction=0.2),
    "oracle_collaborative_accuracy_exact": partial(
        M.oracle_collaborative_accuracy, fraction=0.2, n_bins=None
    ),
    "uncertainty_auc": M.uncertainty_auc,
    "uncertainty_auc_pr": partial(M.uncertainty_auc, curve="pr"),
}

#: metrics whose value depends on the scale of the weights: the oracle-collaborative
#: accuracy refers floor(fraction * total weight) samples to the oracle, a whole number
#: of samples (uncertainty_metrics' rule), so an integer weight is a repetition but
#: scaling every weight changes the oracle's budget
WEIGHT_SCALE_DEPENDENT = {
    "oracle_collaborative_accuracy",
    "oracle_collaborative_accuracy_exact",
}

#: metrics for which an integer weight is not a repetition of the sample: the debiased
#: estimator's correction uses each bin's effective sample size (sum w)^2 / sum w^2,
#: which makes it independent of the scale of the weights (normalised weights are
#: common) -- a weight of 2 counts as one sample, not two.
NOT_REPETITION = {"general_calibration_error_l2_debiased"}


def _normal(rng, n):
    y = rng.standard_normal(n)
    return (y, y + 0.3 * rng.standard_normal(n), 0.5 + rng.random(n)), {}


def _ensemble(rng, n):
    y = rng.standard_normal(n)
    return (y, y[:, None] + rng.standard_normal((n, 7))), {}


def _on_normal(metric, **fixed):
    """``metric`` of ``scipy.stats.norm(mean, std)`` forecasts, called on the arrays."""

    def f(y_true, y_mean, y_std, **kw):
        return metric(y_true, stats.norm(y_mean, y_std), **fixed, **kw)

    f.__name__ = metric.__name__
    return f


def _on_spread(metric, **fixed):
    """``metric`` of the forecasts alone (no ``y_true``), called on the arrays."""

    def f(y_true, y_mean, y_std, **kw):
        return metric(stats.norm(y_mean, y_std), **fixed, **kw)

    f.__name__ = metric.__name__
    return f


def _on_samples(metric, **fixed):
    """``metric`` of :class:`~skcalib.metrics.PredictiveSamples` forecasts."""

    def f(y_true, y_samples, **kw):
        return metric(y_true, M.PredictiveSamples(y_samples), **fixed, **kw)

    f.__name__ = metric.__name__
    return f


def _interval(rng, n):
    y = rng.standard_normal(n)
    mid = y + 0.3 * rng.standard_normal(n)
    return (y, mid - 1.0, mid + 1.0), {}


def _quantiles(rng, n):
    y = rng.standard_normal(n)
    q = np.array([0.1, 0.5, 0.9])
    return (y, y[:, None] + 0.3 * rng.standard_normal((n, 1)) + [-1.2, 0.0, 1.2]), {"quantiles": q}


def _log_lik(rng, n):
    return (rng.standard_normal((n, 9)) - 2.0,), {}


#: metrics of real-valued forecasts and of log-likelihood matrices: data maker, options,
#: and how the scalar value is read from the result; they get the invariances that
#: apply to a mean over samples (permutation, weight = repetition, zero weight =
#: removal, weight scale, list input, float32, no mutation)
OTHER_METRICS = {
    "crps_normal": (M.crps_normal, _normal, {}, None),
    "normal_negative_log_likelihood": (M.normal_negative_log_likelihood, _normal, {}, None),
    "crps_ensemble": (M.crps_ensemble, _ensemble, {}, None),
    "crps_ensemble_fair": (M.crps_ensemble, _ensemble, {"fair": True}, None),
    "interval_score": (M.interval_score, _interval, {"alpha": 0.2}, None),
    "interval_coverage": (M.interval_coverage, _interval, {}, None),
    "quantile_score": (M.quantile_score, _quantiles, {}, None),
    # the metrics of any predictive distribution, on scipy.stats.norm and on samples
    "crps": (_on_normal(M.crps), _normal, {}, None),
    "crps_samples": (_on_samples(M.crps), _ensemble, {}, None),
    "log_score": (_on_normal(M.log_score), _normal, {}, None),
    "regression_calibration_error": (_on_normal(M.regression_calibration_error), _normal, {}, None),
    "regression_calibration_error_rmsce": (
        _on_normal(M.regression_calibration_error, norm="l2", kind="quantile"),
        _normal,
        {},
        None,
    ),
    "miscalibration_area": (_on_normal(M.miscalibration_area), _normal, {}, None),
    "interval_coverage_of_distributions": (
        _on_normal(M.interval_coverage, coverage=0.8),
        _normal,
        {},
        None,
    ),
    "mean_interval_width": (_on_spread(M.mean_interval_width), _normal, {}, None),
    "sharpness": (_on_spread(M.sharpness), _normal, {}, None),
    "weighted_interval_score": (_on_normal(M.weighted_interval_score), _normal, {}, None),
    "weighted_interval_score_samples": (
        _on_samples(M.weighted_interval_score),
        _ensemble,
        {},
        None,
    ),
    "expected_normalized_calibration_error": (
        _on_normal(M.expected_normalized_calibration_error, strategy="uniform", n_bins=4),
        _normal,
        {},
        None,
    ),
    "uncertainty_calibration_error": (
        _on_normal(M.uncertainty_calibration_error, n_bins=4),
        _normal,
        {},
        None,
    ),
    "negative_waic": (M.negative_waic, _log_lik, {}, "value"),
    "importance_sampling_cross_validation": (
        M.importance_sampling_cross_validation,
        _log_lik,
        {},
        "value",
    ),
}

#: public functions of skcalib.metrics that are not metrics with these invariances,
#: each with the reason and where it is tested instead
NOT_IN_A_REGISTRY = {
    "expected_calibration_error_quantiles": "tensorflow-probability's (hit, log p) API; "
    "tests/metrics/test_calibration_quantiles.py",
    "brier_decomposition": "a result of components; tests/metrics/test_scoring_rules.py",
    "score_decomposition": "a result of components; tests/metrics/test_scoring_rules.py",
    "reliability_curve": "per-bin arrays; tests/metrics/test_calibration.py",
    "compute_bin_stats": "sufficient statistics; tests/metrics/test_calibration.py",
    "calibration_error_from_bin_stats": "takes BinStats; tests/metrics/test_calibration.py",
    "pit_normal": "per-sample PIT values; tests/metrics/test_regression.py",
    "pit_ensemble": "per-sample PIT values; tests/metrics/test_regression.py",
    "pit": "per-sample PIT values; tests/metrics/test_regression_metrics.py",
    "regression_calibration_curve": "curve arrays; tests/metrics/test_regression_metrics.py",
    "member_probabilities": "takes a fitted ensemble; tests/metrics/test_members.py",
    "get_scorer": "scorers; tests/metrics/test_scorer.py",
    "get_scorer_names": "scorers; tests/metrics/test_scorer.py",
    "register_scorers": "scorers; tests/utils/test_sklearn_compat.py",
    "unregister_scorers": "scorers; tests/utils/test_sklearn_compat.py",
    "quantile_bin_edges": "binning helper; tests/metrics/test_calibration.py",
    # statistical calibration: random or test results; tests/metrics/test_statistical.py,
    # test_smooth.py and test_semiparametric.py
    "bayesian_expected_calibration_error": "posterior draws (an array); test_statistical.py",
    "calibration_error_ci": "an interval around any metric; test_statistical.py",
    "consistency_resampling_test": "a test result (statistic, pvalue); test_statistical.py",
    "hosmer_lemeshow_test": "a test result (statistic, pvalue); test_statistical.py",
    "spiegelhalter_test": "a test result (statistic, pvalue); test_statistical.py",
    "smooth_reliability_curve": "curve arrays; test_smooth.py",
    "semiparametric_calibration_error": "cross-fitted on random folds (no permutation "
    "invariance) and no sample_weight; test_semiparametric.py",
    "censored_calibration_error": "survival data (times, event); test_semiparametric.py",
    "semiparametric_calibration_error_ci": "an interval (low, high); test_semiparametric.py",
    "censored_calibration_error_ci": "an interval of survival data; test_semiparametric.py",
    "uniform_bin_edges": "binning helper; tests/metrics/test_calibration.py",
    # PIT curves (drawn by skcalib.display.PITDisplay)
    "pit_histogram": "per-bin arrays of PIT values; tests/metrics/test_pit.py",
    "quantile_calibration_curve": "per-level arrays of PIT values; tests/metrics/test_pit.py",
    # calibration across groups and over time: tests/metrics/test_groups.py,
    # test_cumulative.py
    "cumulative_calibration_test": "a test result (statistic, pvalue); test_cumulative.py",
    "calibration_by_group": "a per-group table; test_groups.py",
    "multicalibration_error": "a result over segments (mce, pvalue); test_groups.py",
    "rejection_curve": "a curve (a result of arrays); tests/metrics/test_selective.py",
    "out_of_distribution_auc": "no y_true (in- and out-of-distribution predictions); "
    "tests/metrics/test_selective.py",
}

# ---- ensembles (PSIS-LOO, member predictions): registered here, tested at the end ----


def _log_lik_40(rng, n):
    # 40 members: a tail of 8 ratios, so that the Pareto smoothing is exercised
    return (rng.normal(-2.0, 0.3, (n, 40)),), {}


OTHER_METRICS["psis_loo"] = (M.psis_loo, _log_lik_40, {}, "value")
NOT_IN_A_REGISTRY.update(
    {
        "model_uncertainty": "per-sample values; tests/metrics/test_ensembles.py",
        "knowledge_uncertainty": "per-sample values; tests/metrics/test_ensembles.py",
        "member_log_likelihood": "takes a fitted ensemble; tests/metrics/test_members.py",
    }
)

#: metrics of member predictions ``y_proba_members`` (members first) or of two members:
#: function, argument kind, options; symmetric: invariant to the order of the members
MEMBER_METRICS = {
    "ensemble_cross_entropy": (M.ensemble_cross_entropy, "members", {}, True),
    "gibbs_cross_entropy": (M.gibbs_cross_entropy, "members", {}, True),
    "variance_bound": (M.variance_bound, "members", {}, True),
    "average_pairwise_diversity": (M.average_pairwise_diversity, "members", {}, True),
    "disagreement": (M.disagreement, "pair", {}, True),
    "double_fault": (M.double_fault, "labels_pair", {}, True),
    "kl_divergence": (M.kl_divergence, "pair", {}, False),
    "cosine_distance": (M.cosine_distance, "pair", {}, True),
    "lp_distance": (M.lp_distance, "pair", {}, True),
    "lp_distance_p1": (M.lp_distance, "pair", {"p": 1}, True),
    "lp_distance_p3": (M.lp_distance, "pair", {"p": 3.5}, True),
}


#: value range of each metric (default [0, 1])
RANGES = {"negative_log_likelihood": (0.0, math.inf), "brier_score": (0.0, 2.0)}

#: binary metrics whose value for 1 - p with the other positive class is only close
MIRROR_APPROXIMATE = {"root_mean_squared_calibration_error"}

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
    y[-k:] = np.arange(k)  # every class occurs
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
    # a 1-D y_proba of labels other than {0, 1} / {-1, 1} needs pos_label (sklearn's rule)
    pos = {"pos_label": names[1]} if P.ndim == 1 else {}
    # strings in the same sorted order
    assert metric(names[y], P, **pos) == pytest.approx(ref, abs=1e-15)
    # shifted integers
    shifted = {"pos_label": 11} if P.ndim == 1 else {}
    assert metric(y + 10, P, **shifted) == pytest.approx(ref, abs=1e-15)
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
        # binary 1-D: the probability of the other class, with pos_label.  Every metric
        # is symmetric in the two classes (no value of these data lies on a bin edge, so
        # mirrored equal-width bins hold the same samples), except that the equal-mass
        # bins of the mirrored values can hold other samples (inverted-CDF quantiles are
        # not symmetric): RMSCE then only agrees approximately.
        v = metric(names[y], 1 - P, pos_label="ant")
        tol = 0.05 if name in MIRROR_APPROXIMATE else 1e-12
        assert v == pytest.approx(ref, abs=tol)
        v2 = metric(names[y].astype(object), P, pos_label="bee")
        assert v2 == pytest.approx(ref, abs=1e-15)
        with pytest.raises(ValueError, match="pos_label"):
            metric(names[y], P)
    if kind == "multiclass":
        # two observed classes for four columns: which columns they are is not known
        with pytest.raises(ValueError, match="labels="):
            metric(y.astype(bool), P)
    else:
        assert metric(y.astype(bool), P) == pytest.approx(ref, abs=1e-15)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_sample_weight_is_repetition(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=6, n=80)
    w = np.random.default_rng(6).integers(0, 4, len(y))
    w[:3] = [1, 2, 3]
    ref = metric(np.repeat(y, w), np.repeat(P, w, axis=0))
    if name in NOT_REPETITION:
        # integer weights are not repetitions here; equal weights still change nothing
        _close(metric(y, P, sample_weight=np.full(len(y), 3)), metric(y, P), tol=1e-9)
        return
    _close(metric(y, P, sample_weight=w), ref, tol=1e-9)
    if name in WEIGHT_SCALE_DEPENDENT:
        return
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


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_weight_scale_invariance(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=11, n=120)
    w = np.random.default_rng(11).random(len(y))
    if name in WEIGHT_SCALE_DEPENDENT:  # unit weights still change nothing
        _close(metric(y, P, sample_weight=np.ones(len(y))), metric(y, P))
        return
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


# --------------------------------------------------------------------------------------
# memory layouts: C, F, strided views and DataFrames give the same numbers (to the
# rounding of the additions), with probabilities exactly on the bin edges
# --------------------------------------------------------------------------------------


def _edge_data(kind, n=120, seed=21):
    """Probabilities on the grid j / 60, which holds every edge of 5, 10, 15, 20 bins."""
    rng = np.random.default_rng(seed)
    k = 1 if kind == "binary_1d" else (2 if kind == "binary_2d" else 4)
    if k == 1:
        p = rng.integers(0, 61, n) / 60
        return rng.integers(0, 2, n), p
    cuts = np.sort(rng.integers(0, 61, (n, k - 1)), axis=1)
    counts = np.diff(np.column_stack([np.zeros(n, int), cuts, np.full(n, 60)]), axis=1)
    P = counts / 60
    P /= P.sum(axis=1, keepdims=True)
    return rng.integers(0, k, n), P


def _layouts(P):
    wide = np.zeros((P.shape[0], 3) + P.shape[1:])
    wide[:, 1] = P
    out = {"C": np.ascontiguousarray(P), "strided": wide[:, 1]}
    if P.ndim == 2:
        out["F"] = np.asfortranarray(P)
        out["DataFrame"] = pd.DataFrame(P)
        out["F_float32"] = np.asfortranarray(P.astype(np.float32))
    else:
        out["Series"] = pd.Series(P)
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_memory_layouts_give_the_same_value(name, kind):
    metric = CLASSIFICATION_METRICS[name]
    y, P = _edge_data(kind)
    w = np.random.default_rng(5).random(len(y))
    ref = metric(y, P)
    ref_w = metric(y, P, sample_weight=w)
    ref32 = metric(y, P.astype(np.float32))
    # the same values are binned alike in every layout; sums may be added in another
    # order (a copy of a non-contiguous chunk, numpy's pairwise summation), so the values
    # agree to the rounding of the additions, not necessarily to the last bit
    for layout, Q in _layouts(P).items():
        want = ref32 if layout.endswith("float32") else ref
        assert metric(y, Q) == pytest.approx(want, rel=1e-12, abs=1e-15), layout
        if not layout.endswith("float32"):
            got = metric(y, Q, sample_weight=w)
            assert got == pytest.approx(ref_w, rel=1e-12, abs=1e-15), layout


# --------------------------------------------------------------------------------------
# every public metric is covered by a registry
# --------------------------------------------------------------------------------------


def _underlying(f):
    while isinstance(f, partial):
        f = f.func
    return f


def test_every_public_metric_is_registered():
    registered = {_underlying(f).__name__ for f in CLASSIFICATION_METRICS.values()}
    registered |= {f.__name__ for f, *_ in OTHER_METRICS.values()}
    registered |= {f.__name__ for f, *_ in MEMBER_METRICS.values()}
    public = {
        n for n in M.__all__ if callable(getattr(M, n)) and not isinstance(getattr(M, n), type)
    }
    missing = public - registered - set(NOT_IN_A_REGISTRY)
    assert not missing, f"public metrics in no invariance registry: {sorted(missing)}"
    stale = (set(NOT_IN_A_REGISTRY) | registered) - public
    assert not stale, f"registered names that are not public: {sorted(stale)}"


def _value(result, attr):
    v = getattr(result, attr) if attr else result
    assert type(v) is float
    return v


@pytest.mark.parametrize("name", sorted(OTHER_METRICS))
def test_other_metrics_invariances(name):
    metric, make, opts, attr = OTHER_METRICS[name]
    rng = np.random.default_rng(31)
    args, extra = make(rng, 60)
    opts = {**opts, **extra}
    n = args[0].shape[0]

    def call(args, **kw):
        return _value(metric(*args, **opts, **kw), attr)

    ref = call(args)
    assert math.isfinite(ref)
    perm = rng.permutation(n)
    _close(call(tuple(a[perm] for a in args)), ref)
    w = rng.integers(0, 4, n)
    w[:3] = [1, 2, 3]
    rep = tuple(np.repeat(a, w, axis=0) for a in args)
    _close(call(args, sample_weight=w), call(rep), tol=1e-9)
    _close(call(args, sample_weight=w * 0.37), call(rep), tol=1e-9)
    keep = w > 0
    _close(call(args, sample_weight=(w > 0).astype(float)), call(tuple(a[keep] for a in args)))
    _close(call(tuple(a.tolist() for a in args)), ref)
    frozen = tuple(np.array(a) for a in args)
    for a in frozen:
        a.setflags(write=False)
    _close(call(frozen), ref)
    v32 = call(tuple(a.astype(np.float32) for a in args))
    assert v32 == pytest.approx(ref, rel=1e-4, abs=1e-5)


# --------------------------------------------------------------------------------------
# metrics of ensemble members: the invariances of a mean over samples, for data with the
# member axis first, plus the order of the members
# --------------------------------------------------------------------------------------


def _member_data(kind, rng, n=50, n_members=5, k=3):
    P = rng.dirichlet(np.ones(k) * 0.7, size=(n_members, n))
    y = np.array([rng.choice(k, p=r) for r in P.mean(axis=0)])
    if kind == "members":
        return [y, P], [0, 1]
    if kind == "pair":
        return [P[0], P[1]], [0, 0]
    return [y, P[0], P[1]], [0, 0, 0]


def _member_value(result):
    if isinstance(result, float):
        return np.array([result])
    values = np.array(tuple(result), dtype=float)  # the measures it unpacks as
    assert len(values) == 5 and all(type(v) is float for v in result)
    return values


def _member_close(a, b, tol=1e-10):
    np.testing.assert_allclose(_member_value(a), _member_value(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(MEMBER_METRICS))
def test_member_metrics_invariances(name):
    metric, kind, opts, symmetric = MEMBER_METRICS[name]
    rng = np.random.default_rng(41)
    args, axes = _member_data(kind, rng)
    n = args[0].shape[0]
    has_labels = kind != "pair"

    def take(args, idx):
        return [np.take(a, idx, axis=ax) for a, ax in zip(args, axes, strict=True)]

    def call(args, **kw):
        return metric(*args, **opts, **kw)

    ref = call(args)
    assert np.all(np.isfinite(_member_value(ref)))
    # permutation of the samples
    perm = rng.permutation(n)
    _member_close(call(take(args, perm)), ref)
    # integer weight = repetition; scale of the weights; zero weight = removal
    w = rng.integers(0, 4, n)
    w[:3] = [1, 2, 3]
    rep = take(args, np.repeat(np.arange(n), w))
    _member_close(call(args, sample_weight=w), call(rep), tol=1e-9)
    _member_close(call(args, sample_weight=w * 0.37), call(rep), tol=1e-9)
    keep = np.flatnonzero(w > 0)
    lab = {"labels": [0, 1, 2]} if has_labels else {}
    _member_close(call(args, sample_weight=(w > 0) * 1.0, **lab), call(take(args, keep), **lab))
    # lists, read-only arrays, float32
    _member_close(call([a.tolist() for a in args]), ref)
    frozen = [np.array(a) for a in args]
    for a in frozen:
        a.setflags(write=False)
    _member_close(call(frozen), ref)
    _member_close(
        call([a if a.dtype.kind == "i" else a.astype(np.float32) for a in args]), ref, 1e-5
    )
    # string labels
    if has_labels:
        names = np.array(["ant", "bee", "cat"])
        _member_close(call([names[args[0]], *args[1:]]), ref)
    # the order of the members
    if symmetric:
        swapped = [args[0], args[1][::-1]] if kind == "members" else args[:-2] + args[-2:][::-1]
        _member_close(call(swapped), ref, tol=1e-12)


@pytest.mark.parametrize("name", sorted(MEMBER_METRICS))
def test_member_metrics_bad_input(name):
    metric, kind, opts, _ = MEMBER_METRICS[name]
    args, _ = _member_data(kind, np.random.default_rng(43), n=10)
    i = 1 if kind == "members" else len(args) - 1
    bad = np.array(args[i])
    bad[..., 0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        metric(*args[:i], bad, *args[i + 1 :], **opts)
    with pytest.raises(ValueError, match="sum to 1"):
        metric(*args[:i], np.array(args[i]) * 1.1, *args[i + 1 :], **opts)
    with pytest.raises(ValueError, match="different numbers of samples|different shapes"):
        metric(*args[:i], np.array(args[i])[..., :-1, :], *args[i + 1 :], **opts)
    with pytest.raises(ValueError, match="sample_weight"):
        metric(*args, sample_weight=-np.ones(10), **opts)


# --------------------------------------------------------------------------------------
# array API inputs (doc/array_api.rst)
# --------------------------------------------------------------------------------------

#: metrics computed in the namespace and on the device of array API input under
#: array_api_dispatch=True; the others accept it and compute on a host copy
ARRAY_API_NATIVE = {
    "expected_calibration_error",
    "expected_calibration_error_top_label",
    "max_calibration_error",
    "root_mean_squared_calibration_error",
    "static_calibration_error",
    "adaptive_calibration_error",
    "thresholded_adaptive_calibration_error",
    "general_calibration_error_l2_debiased",
    "general_calibration_error_quantile_top_label_max",
    "general_calibration_error_classwise_threshold",
    "brier_score",
    "negative_log_likelihood",
    "area_under_risk_coverage",
    "excess_area_under_risk_coverage",
    "area_under_generalized_risk_coverage",
    "risk_at_coverage",
    "oracle_collaborative_accuracy",
    "oracle_collaborative_accuracy_exact",
    "uncertainty_auc",
    "uncertainty_auc_pr",
}


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", KINDS)
def test_array_api_input_gives_the_numpy_value(dispatch, monkeypatch, name, kind, case_id):
    """Under array_api_dispatch=True every metric accepts array API input (labels and
    weights in the namespace, or on the host) and returns a Python float equal to its
    value on the same numbers in numpy: to 1e-10 in float64, 1e-5 in float32.  (More
    samples than the 2 * 100 + 2 bin sums of the binned oracle-collaborative accuracy,
    which may travel, so that the guard tells them from the data.)"""
    case = Case(case_id)
    metric = CLASSIFICATION_METRICS[name]
    y, P = _data(kind, seed=5, n=240)
    w = np.random.default_rng(5).random(len(y))
    P_rounded = case.rounded(P)
    if name in ARRAY_API_NATIVE:
        no_host_copy_of_the_data(monkeypatch, len(y))
    expected = metric(y, P_rounded)
    got = metric(case.asarray(y), case.asarray(P))
    assert type(got) is float
    _close(got, expected, tol=case.tolerance)
    # host labels, namespace weights
    expected_w = metric(y, P_rounded, sample_weight=case.rounded(w))
    got_w = metric(y, case.asarray(P), sample_weight=case.asarray(w))
    assert type(got_w) is float
    _close(got_w, expected_w, tol=case.tolerance)
