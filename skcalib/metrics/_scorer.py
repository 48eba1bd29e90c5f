"""scikit-learn scorers for every skcalib metric that compares predictions with outcomes.

``get_scorer(name, **options)`` returns a scorer made with
:func:`sklearn.metrics.make_scorer`; ``get_scorer_names()`` lists the names.  After
``import skcalib`` the same names are also valid ``scoring=`` strings everywhere in
scikit-learn (see :func:`skcalib.metrics.register_scorers`).

A name means one scorer everywhere: skcalib's names are distinct from scikit-learn's
(the Brier score is ``"brier"``; ``"neg_brier_score"`` is scikit-learn's), and a name
that scikit-learn's registry holds for a scorer that is not skcalib's is resolved by
:func:`get_scorer` to that scorer, exactly as ``scoring=name`` would be in
scikit-learn.

Four kinds of scorer
--------------------
* **Probabilistic classification** (``"ece"``, ``"brier"``, ``"nll"``, ...): the metric
  is called on ``predict_proba`` of the evaluation fold, with ``labels=estimator.classes_``
  so that a fold that misses a class, string labels and ``pos_label`` all work.  For a
  binary classifier scikit-learn passes the positive-class column (``pos_label``, default
  ``classes_[1]``), so ``"ece"`` is the calibration of the positive-class probability
  (``multiclass="auto"``), as :class:`sklearn.calibration.CalibrationDisplay`.
* **Ensembles** (``"iscv"``, ``"waic"``, ``"psis_loo"``): the members of a fitted bagging ensemble,
  forest or soft-voting ensemble are evaluated on the fold and the information criterion
  is computed from their log-likelihood matrix (member probabilities clipped to
  ``[eps, 1]``, ``eps`` the float64 machine epsilon).
* **Normal regression forecasts** (``"neg_crps_normal"``, ``"gaussian_nll"``): the metric
  is called on ``predict(X, return_std=True)``.
* **Predictive distributions of regressors** (``"crps"``, ``"log_score"``,
  ``"miscalibration_area"``, ``"regression_calibration_error"``,
  ``"weighted_interval_score"``): the metric is called on ``predict_distribution(X)``
  when the regressor has it (any form of the regression metrics), else on
  ``scipy.stats.norm(*predict(X, return_std=True))``.

Signs: every scorer is "greater is better", as every scikit-learn scorer.  Errors and
losses are negated (``neg_*`` names; the short aliases return the same negated values).
``"iscv"``, ``"waic"`` and ``"psis_loo"`` are log predictive densities per sample, already
"higher is better", and are returned as they are (not negated).

Implementation note: scikit-learn computes the predictions inside the method
``_score(method_caller, estimator, X, y_true, **kwargs)`` of the class of
``make_scorer(...)`` (stable since scikit-learn 1.3).  The scorer classes below
subclass that class through :class:`~skcalib.utils._sklearn_compat.ScorerBase` and
override that one step (``score_estimator``), to reach the fitted estimator
(``classes_``, ensemble members, ``return_std``, ``predict_distribution``); everything
else (signs, metadata routing, ``set_score_request``, caching in multi-metric scoring,
``repr``) is scikit-learn's own.  The registration of the names checks the hook's
signature and warns if a future scikit-learn changes it.

The table of names (``_SPECS``) refers to the metric functions themselves.  It also
says which scorer to use for a metric function, which is not a scorer: scikit-learn
calls a scorer as ``scorer(estimator, X, y)``, a metric as ``metric(y_true, y_proba)``.
:func:`get_scorer` rejects a metric function of ``_SPECS`` with a ``ValueError`` that
names its scorer (``scoring='ece'`` for :func:`expected_calibration_error`).  The metric
functions carry no check of their own: given to scikit-learn directly
(``scoring=expected_calibration_error``), they fail when called with the estimator.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats
from sklearn.metrics import get_scorer as _sklearn_get_scorer
from sklearn.metrics import get_scorer_names as _sklearn_get_scorer_names

from ..utils._sklearn_compat import (
    ScorerBase,
    build_scorer,
    parameter_constraints,
    validate_parameter_constraints,
    validate_params,
)
from ._calibration._binned import (
    adaptive_calibration_error,
    expected_calibration_error,
    general_calibration_error,
    max_calibration_error,
    root_mean_squared_calibration_error,
    static_calibration_error,
    thresholded_adaptive_calibration_error,
)
from ._calibration._semiparametric import semiparametric_calibration_error
from ._calibration._smooth import smooth_calibration_error
from ._ensembles._information_criteria import (
    importance_sampling_cross_validation,
    negative_waic,
    psis_loo,
)
from ._ensembles._members import check_member_ensemble, log_likelihood_matrix
from ._groups._cumulative import cumulative_calibration_error
from ._regression._metrics import (
    crps,
    log_score,
    miscalibration_area,
    regression_calibration_error,
    weighted_interval_score,
)
from ._regression._scores import crps_normal, normal_negative_log_likelihood
from ._scoring._scoring_rules import brier_score, negative_log_likelihood
from ._selective import area_under_risk_coverage, oracle_collaborative_accuracy

__all__ = ["get_scorer", "get_scorer_names"]


# --------------------------------------------------------------------------------------
# score functions of the ensemble and regression scorers
# --------------------------------------------------------------------------------------


class _FittedMembers(NamedTuple):
    """What the ensemble scorers pass as ``y_pred``: the fitted ensemble and the fold."""

    estimator: object
    X: object


def _log_lik(y_true, y_pred, labels):
    if isinstance(y_pred, _FittedMembers):
        return log_likelihood_matrix(y_true, y_pred.estimator, y_pred.X, labels=labels)
    return log_likelihood_matrix(y_true, y_pred, labels=labels)


def iscv_of_members(y_true, y_pred, *, labels=None, sample_weight=None):
    """ISCV of an ensemble from its members' probabilities of the true labels.

    ``y_pred``: the fitted ensemble and the fold (what the scorer passes), or member
    probabilities of shape (n_members, n_samples, n_classes).
    """
    log_lik = _log_lik(y_true, y_pred, labels)
    return importance_sampling_cross_validation(log_lik, sample_weight=sample_weight).value


def waic_of_members(y_true, y_pred, *, waic_type="waic1", labels=None, sample_weight=None):
    """nWAIC of an ensemble from its members' probabilities of the true labels."""
    log_lik = _log_lik(y_true, y_pred, labels)
    return negative_waic(log_lik, waic_type=waic_type, sample_weight=sample_weight).value


def psis_loo_of_members(y_true, y_pred, *, r_eff=1.0, labels=None, sample_weight=None):
    """PSIS-LOO of an ensemble from its members' probabilities of the true labels."""
    log_lik = _log_lik(y_true, y_pred, labels)
    return psis_loo(log_lik, r_eff=r_eff, sample_weight=sample_weight).value


def crps_of_normal_forecast(y_true, y_pred, *, sample_weight=None):
    """CRPS of the Normal forecasts ``y_pred = (mean, std)``."""
    mean, std = y_pred
    return crps_normal(y_true, mean, std, sample_weight=sample_weight)


def nll_of_normal_forecast(y_true, y_pred, *, sample_weight=None):
    """Gaussian negative log-likelihood of the forecasts ``y_pred = (mean, std)``."""
    mean, std = y_pred
    return normal_negative_log_likelihood(y_true, mean, std, sample_weight=sample_weight)


# --------------------------------------------------------------------------------------
# the names
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    name: str | None  # scikit-learn style name ("neg_" + metric name for losses)
    alias: str | None  # short alias, same values
    metric: Callable  # the public function of skcalib.metrics behind the scorer
    kind: str  # "proba", "ensemble" or "regression"
    greater_is_better: bool = False
    score_func: Callable | None = None  # a wrapper above (ensemble, regression)

    @property
    def names(self):
        return [n for n in (self.name, self.alias) if n]


_SPECS = (
    # calibration-error family (skcalib.metrics._calibration._binned)
    _Spec("neg_expected_calibration_error", "ece", expected_calibration_error, "proba"),
    _Spec("neg_max_calibration_error", "mce", max_calibration_error, "proba"),
    _Spec(
        "neg_root_mean_squared_calibration_error",
        "rmsce",
        root_mean_squared_calibration_error,
        "proba",
    ),
    _Spec("neg_static_calibration_error", "sce", static_calibration_error, "proba"),
    _Spec("neg_adaptive_calibration_error", "ace", adaptive_calibration_error, "proba"),
    _Spec(
        "neg_thresholded_adaptive_calibration_error",
        "tace",
        thresholded_adaptive_calibration_error,
        "proba",
    ),
    _Spec("neg_general_calibration_error", "gce", general_calibration_error, "proba"),
    # statistical calibration (skcalib.metrics._calibration._smooth, _semiparametric)
    _Spec("neg_smooth_calibration_error", "smece", smooth_calibration_error, "proba"),
    _Spec(
        "neg_semiparametric_calibration_error",
        "spce",
        semiparametric_calibration_error,
        "proba",
    ),
    # calibration across groups: the binning-free cumulative calibration error
    _Spec("neg_cumulative_calibration_error", "ecce", cumulative_calibration_error, "proba"),
    # proper scoring rules
    # no long name: "neg_brier_score" is scikit-learn's (brier_score_loss), and a name
    # never means two scorers
    _Spec(None, "brier", brier_score, "proba"),
    _Spec("neg_negative_log_likelihood", "nll", negative_log_likelihood, "proba"),
    # selective prediction: AURC is a loss (negated), OCA an accuracy (as it is)
    _Spec("neg_area_under_risk_coverage", "aurc", area_under_risk_coverage, "proba"),
    _Spec(
        "oracle_collaborative_accuracy",
        "oca",
        oracle_collaborative_accuracy,
        "proba",
        True,
    ),
    # ensembles: log predictive densities, higher is better, not negated
    _Spec(
        "importance_sampling_cross_validation",
        "iscv",
        importance_sampling_cross_validation,
        "ensemble",
        True,
        iscv_of_members,
    ),
    _Spec("negative_waic", "waic", negative_waic, "ensemble", True, waic_of_members),
    _Spec("psis_loo", None, psis_loo, "ensemble", True, psis_loo_of_members),
    # Normal regression forecasts
    _Spec("neg_crps_normal", None, crps_normal, "regression", False, crps_of_normal_forecast),
    _Spec(
        "neg_normal_negative_log_likelihood",
        "gaussian_nll",
        normal_negative_log_likelihood,
        "regression",
        False,
        nll_of_normal_forecast,
    ),
    # predictive distributions of regressors (predict_distribution or return_std)
    _Spec("neg_crps", "crps", crps, "distribution"),
    _Spec("neg_log_score", "log_score", log_score, "distribution"),
    _Spec("neg_miscalibration_area", "miscalibration_area", miscalibration_area, "distribution"),
    _Spec(
        "neg_regression_calibration_error",
        "regression_calibration_error",
        regression_calibration_error,
        "distribution",
    ),
    _Spec(
        "neg_weighted_interval_score",
        "weighted_interval_score",
        weighted_interval_score,
        "distribution",
    ),
)

_BY_NAME = {n: s for s in _SPECS for n in s.names}
#: the short name of the scorer of each predictive-distribution metric (for messages)
_BY_METRIC = {s.metric: s.names[-1] for s in _SPECS if s.kind == "distribution"}

# arguments that are data, never options of a scorer
_DATA_ARGS = frozenset(
    {
        "y_true",
        "y_proba",
        "y_pred",
        "y_proba_members",
        "y_mean",
        "y_std",
        "sample_weight",
        "uncertainty",  # per-sample data of the selective-prediction metrics
    }
)


@validate_params({}, prefer_skip_nested_validation=True)
def get_scorer_names():
    """Return the names of all skcalib scorers.

    Each name works with :func:`get_scorer` and, after ``import skcalib``, as a
    ``scoring=`` string in scikit-learn.  None of them is a scikit-learn name: the
    Brier score is ``"brier"`` (``"neg_brier_score"`` is scikit-learn's own scorer).

    Returns
    -------
    list of str
        Sorted names: the scikit-learn style ``neg_*`` names and the short aliases
        (``"ece"``, ``"mce"``, ``"rmsce"``, ``"sce"``, ``"ace"``, ``"tace"``,
        ``"brier"``, ``"nll"``, ``"iscv"``, ``"waic"``, ``"crps"``, ...).

    Examples
    --------
    >>> from skcalib.metrics import get_scorer_names
    >>> "ece" in get_scorer_names()
    True
    """
    return sorted(_BY_NAME)


# --------------------------------------------------------------------------------------
# scorer classes
# --------------------------------------------------------------------------------------


@functools.cache
def _accepts(func, param):
    try:
        return param in inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


@functools.cache
def _default(func, param):
    try:
        return inspect.signature(func).parameters[param].default
    except (KeyError, TypeError, ValueError):  # pragma: no cover
        return inspect.Parameter.empty


class _ProbaScorer(ScorerBase):
    """``make_scorer(metric, response_method="predict_proba")`` that also passes
    ``labels=estimator.classes_`` to the metric (unless the user fixed ``labels``), and,
    for a binary classifier, ``pos_label=classes_[1]``: the class whose probability
    column scikit-learn passes when no ``pos_label`` is given."""

    def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
        classes = getattr(estimator, "classes_", None)
        if classes is not None and np.ndim(classes) == 1:
            classes = np.asarray(classes)
            if self._unset("labels", kwargs):
                kwargs["labels"] = classes
            if (
                len(classes) == 2
                and self._unset("pos_label", kwargs)
                and _default(self.score_func, "pos_label") is None
            ):
                kwargs["pos_label"] = classes[1]
        return super().score_estimator(method_caller, estimator, X, y_true, **kwargs)

    def _unset(self, param, kwargs):
        return (
            param not in self.score_options
            and param not in kwargs
            and _accepts(self.score_func, param)
        )


class _EnsembleScorer(ScorerBase):
    """Scores a fitted ensemble by its members' log-likelihoods on the fold."""

    def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
        check_member_ensemble(
            estimator,
            "the ensemble scorers ('iscv', 'waic', 'psis_loo') score the members of a "
            "fitted ensemble by their log-likelihoods",
        )
        _check_equal_weights(estimator)
        score_kwargs = {**self.score_options, **kwargs}
        return self.sign * self.score_func(y_true, _FittedMembers(estimator, X), **score_kwargs)


class _NormalForecastScorer(ScorerBase):
    """Scores a regressor by its Normal forecasts ``predict(X, return_std=True)``."""

    def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
        y_pred = _predict_mean_std(estimator, X, self.score_func)
        score_kwargs = {**self.score_options, **kwargs}
        return self.sign * self.score_func(y_true, y_pred, **score_kwargs)


class _DistributionScorer(ScorerBase):
    """Scores a regressor by its predictive distributions on the fold:
    ``predict_distribution(X)`` (any form of the regression metrics), else the Normal
    distributions of ``predict(X, return_std=True)``."""

    def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
        y_pred = _predict_distribution(estimator, X, self.score_func)
        score_kwargs = {**self.score_options, **kwargs}
        return self.sign * self.score_func(y_true, y_pred, **score_kwargs)


def _predict_distribution(estimator, X, score_func):
    """The predictive distributions of a fitted regressor for ``X``."""
    if hasattr(estimator, "predict_distribution"):
        return estimator.predict_distribution(X)
    name = _BY_METRIC.get(score_func, "this scorer")
    mean, std = _predict_mean_std(
        estimator,
        X,
        score_func,
        what=f"scoring={name!r}",
        needs="a regressor with predict_distribution(X), or whose predict(X, return_std=True)",
    )
    mean = np.asarray(mean, dtype=np.float64).reshape(-1)
    std = np.asarray(std, dtype=np.float64).reshape(-1)
    return stats.norm(mean, std)


def _check_equal_weights(estimator):
    est = estimator
    while hasattr(est, "steps"):  # Pipeline
        est = est.steps[-1][1]
    weights = getattr(est, "weights", None) if hasattr(est, "voting") else None
    if weights is not None and len(set(np.asarray(weights, dtype=float).tolist())) > 1:
        raise ValueError(
            "the ensemble scorers ('iscv', 'waic') treat the members as equally weighted "
            f"posterior draws; {type(est).__name__}(weights={list(weights)!r}) is not "
            "supported"
        )


def _predict_mean_std(estimator, X, score_func, what=None, needs=None):
    name = type(estimator).__name__
    if what is None:
        what = {
            crps_of_normal_forecast: "'neg_crps_normal'",
            nll_of_normal_forecast: "'gaussian_nll'",
        }.get(score_func, "this scorer")
        what = f"scoring={what}"
    if needs is None:
        needs = "a regressor whose predict(X, return_std=True)"
    msg = (
        f"{what} needs {needs} returns the mean and standard deviation of a Normal "
        "predictive distribution (e.g. GaussianProcessRegressor, BayesianRidge, "
        "ARDRegression)"
    )
    try:
        out = estimator.predict(X, return_std=True)
    except TypeError as exc:
        if "return_std" not in str(exc):
            raise
        raise ValueError(f"{msg}; {name}.predict does not accept return_std") from exc
    if not (isinstance(out, tuple) and len(out) == 2):
        raise ValueError(f"{msg}; {name}.predict(X, return_std=True) returned {type(out)}")
    return out


_KINDS = {
    "proba": (_ProbaScorer, "predict_proba"),
    "ensemble": (_EnsembleScorer, "predict_proba"),
    "regression": (_NormalForecastScorer, "predict"),
    "distribution": (_DistributionScorer, "predict"),
}


def _option_names(score_func):
    params = inspect.signature(score_func).parameters.values()
    return sorted(
        p.name
        for p in params
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in _DATA_ARGS
    )


def _check_options(name, spec, score_func, options):
    metric = spec.metric
    allowed = _option_names(score_func)
    if spec.kind == "ensemble":  # the columns are the ensemble's classes_
        allowed = [a for a in allowed if a != "labels"]
    if spec.kind == "distribution":  # a scorer returns one number
        allowed = [a for a in allowed if a != "aggregate"]
    unknown = sorted(set(options) - set(allowed))
    if "sample_weight" in unknown:
        raise ValueError(
            f"sample_weight is data, not an option of the {name!r} scorer: pass it at "
            "scoring time, e.g. with metadata routing "
            "(get_scorer(...).set_score_request(sample_weight=True))"
        )
    if unknown:
        raise ValueError(
            f"the {name!r} scorer ({metric.__name__}) does not accept the option(s) "
            f"{', '.join(unknown)}; valid options: {', '.join(allowed) or 'none'}"
        )
    # validate the values now rather than in every fold of a search
    constraints = parameter_constraints(metric)
    if constraints and options:
        validate_parameter_constraints(
            {k: constraints[k] for k in options if k in constraints},
            {k: v for k, v in options.items() if k in constraints},
            caller_name=metric.__name__,
        )


def _build(name, spec, options):
    score_func = spec.metric if spec.score_func is None else spec.score_func
    _check_options(name, spec, score_func, options)
    cls, response_method = _KINDS[spec.kind]
    return build_scorer(
        cls,
        score_func,
        response_method=response_method,
        greater_is_better=spec.greater_is_better,
        **options,
    )


def is_skcalib_scorer(obj):
    """True for a scorer made by :func:`get_scorer` (also before a module reload)."""
    return type(obj).__module__ == __name__


def _spec_of_metric(obj):
    """The spec whose metric function ``obj`` is (also before a module reload), or None."""
    key = (getattr(obj, "__module__", None), getattr(obj, "__qualname__", None))
    for spec in _SPECS:
        if key == (spec.metric.__module__, spec.metric.__qualname__):
            return spec
    return None


def _metric_is_not_a_scorer(spec):
    """The message for the metric of ``spec`` passed where a scorer is expected."""
    metric = spec.metric.__name__
    params = inspect.signature(spec.metric).parameters.values()
    data_args = ", ".join(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD)
    name, *other = spec.names[::-1]  # the short alias first, when there is one
    instead = (
        f"pass scoring={name!r} (a name registered by `import skcalib`) or "
        f"scoring=skcalib.metrics.get_scorer({name!r})"
    )
    if other:
        instead += f"; its other name is {other[0]!r}"
    return (
        f"{metric} is a metric function, not a scorer: it is called as "
        f"{metric}({data_args}, ...), whereas scikit-learn calls a scorer as "
        f"scorer(estimator, X, y). To use it for model selection, {instead}."
    )


def _taken_by_another_scorer(name):
    """True when scikit-learn resolves ``name`` to a scorer that is not skcalib's (a
    name a future scikit-learn, or another library, defines): it then keeps that
    meaning in :func:`get_scorer` too."""
    try:
        taken = name in _sklearn_get_scorer_names()
    except Exception:  # a scikit-learn whose registry is broken: skcalib's scorer
        return False
    return taken and not is_skcalib_scorer(_sklearn_get_scorer(name))


@validate_params({"scoring": [str, callable, None]}, prefer_skip_nested_validation=False)
def get_scorer(scoring, **options):
    """Return a scikit-learn scorer from a skcalib (or scikit-learn) scorer name.

    Parameters
    ----------
    scoring : str, callable or None
        A name from :func:`get_scorer_names` (e.g. ``"ece"``,
        ``"neg_expected_calibration_error"``, ``"brier"``, ``"iscv"``, ``"crps"``), or
        any scikit-learn scorer name (returned by :func:`sklearn.metrics.get_scorer`:
        a name scikit-learn defines, such as ``"neg_brier_score"``, always means
        scikit-learn's scorer, here as in ``scoring=``).
        A scorer (callable) is returned as it is and None gives None, as in
        scikit-learn.  A skcalib metric function (which is not a scorer) raises a
        ValueError saying which name to pass instead.
    **options
        Options of the metric, fixed for every call of the scorer, e.g.
        ``get_scorer("ece", n_bins=20)``, ``get_scorer("ece", pos_label="yes")``,
        ``get_scorer("waic", waic_type="waic2")``, ``get_scorer("sce", labels=[...])``.
        Unknown options raise a ValueError listing the valid ones; the values are
        validated here, not at scoring time.  ``sample_weight`` is data: route it with
        ``scorer.set_score_request(sample_weight=True)``.

    Returns
    -------
    scorer : callable
        A new scorer made with :func:`sklearn.metrics.make_scorer` (every call returns an
        independent object), called as ``scorer(estimator, X, y)``; greater is better.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcalib.metrics import get_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> scorer = get_scorer("ece", n_bins=10)
    >>> scorer
    make_scorer(expected_calibration_error, greater_is_better=False,
                response_method='predict_proba', n_bins=10)
    >>> scores = cross_val_score(GaussianNB(), X, y, scoring=scorer)
    >>> bool(-0.2 < scores.mean() <= 0)
    True
    """
    if scoring is None or (callable(scoring) and not isinstance(scoring, str)):
        spec = _spec_of_metric(scoring)
        if spec is not None:
            raise ValueError(_metric_is_not_a_scorer(spec))
        if options:
            raise ValueError("options can only be given with a scorer name")
        return scoring
    if not isinstance(scoring, str):
        raise TypeError(f"scoring must be a str, a callable or None, got {type(scoring)}")
    spec = _BY_NAME.get(scoring)
    if spec is not None and not _taken_by_another_scorer(scoring):
        return _build(scoring, spec, options)
    try:
        scorer = _sklearn_get_scorer(scoring)
    except ValueError:
        raise ValueError(
            f"{scoring!r} is not a valid scoring value. skcalib names: "
            f"{', '.join(get_scorer_names())}; scikit-learn names: "
            "sklearn.metrics.get_scorer_names()"
        ) from None
    if options:
        raise ValueError(
            f"{scoring!r} is a scikit-learn scorer; options can only be given to skcalib "
            "scorers (use sklearn.metrics.make_scorer)"
        )
    return scorer
