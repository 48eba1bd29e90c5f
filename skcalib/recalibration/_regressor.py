"""RecalibratedRegressor: a probabilistic regressor and a recalibrator fitted together."""

from __future__ import annotations

import numpy as np
from scipy import stats
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import BayesianRidge
from sklearn.model_selection import check_cv
from sklearn.utils import get_tags, indexable
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d, has_fit_parameter

from .._core._validation import _find_nonfinite, check_sample_weight
from ..metrics._regression._forms import (
    PredictionInterval,
    PredictiveQuantiles,
    _check_levels,
    as_predictive,
)
from ..utils._sklearn_compat import HasMethods, StrOptions, fit_context
from ._classifier import RecalibratedClassifier, _rows, _SortedNames, _take
from ._regression import ConformalInterval, QuantileRecalibration, StdScaling, _check_coverage

__all__ = ["REGRESSION_METHODS", "RecalibratedRegressor", "predictive_distribution"]

#: The recalibrators by ``method`` name.
REGRESSION_METHODS = {
    "std_scaling": StdScaling,
    "isotonic": QuantileRecalibration,
    "conformal": ConformalInterval,
}


def predictive_distribution(estimator, X, *, points=False, caller="RecalibratedRegressor"):
    """The predictive distribution of a fitted regressor for ``X``.

    ``estimator.predict_distribution(X)`` when it has that method (any form of the
    regression metrics); else ``scipy.stats.norm(*estimator.predict(X,
    return_std=True))``; else, with ``points``, the point predictions
    ``estimator.predict(X)`` (a float64 array).
    """
    if hasattr(estimator, "predict_distribution"):
        return estimator.predict_distribution(X)
    try:
        out = estimator.predict(X, return_std=True)
    except TypeError as exc:
        if "return_std" not in str(exc) and "unexpected keyword" not in str(exc):
            raise
        out = None
    if isinstance(out, tuple) and len(out) == 2:
        mean, std = out
        return stats.norm(
            np.asarray(mean, dtype=np.float64).reshape(-1),
            np.asarray(std, dtype=np.float64).reshape(-1),
        )
    if points:
        return np.asarray(estimator.predict(X), dtype=np.float64).reshape(-1)
    raise ValueError(
        f"{caller} needs a regressor that gives a predictive distribution: a "
        "predict_distribution(X) method, or predict(X, return_std=True) returning the mean "
        "and the standard deviation (GaussianProcessRegressor, BayesianRidge, "
        f"ARDRegression); {type(estimator).__name__} has neither (method='conformal' "
        "works with point predictions)"
    )


def _numeric(X):
    """An object ndarray of numbers as float64 (as scikit-learn's validation reads it):
    some regressors validate ``X`` in ``predict`` but not in its ``return_std`` branch."""
    if isinstance(X, np.ndarray) and X.dtype == object:
        try:
            return X.astype(np.float64)
        except (TypeError, ValueError):
            return X
    return X


class _QuantileSet(RegressorMixin, BaseEstimator):
    """One quantile regressor per level, read as :class:`PredictiveQuantiles`.

    Each clone of ``estimator`` gets its level through the parameter ``quantile``
    (:class:`~sklearn.linear_model.QuantileRegressor`,
    :class:`~sklearn.ensemble.HistGradientBoostingRegressor` with ``loss="quantile"``)
    or ``alpha`` (:class:`~sklearn.ensemble.GradientBoostingRegressor` with
    ``loss="quantile"``).  Crossing quantiles are sorted in each row (the monotone
    rearrangement of Chernozhukov, Fernandez-Val and Galichon 2010, which never increases
    the pinball loss).
    """

    def __init__(self, estimator, levels):
        self.estimator = estimator
        self.levels = levels

    def _level_parameter(self):
        params = self.estimator.get_params(deep=False)
        loss = params.get("loss", "quantile")
        if loss != "quantile":
            raise ValueError(
                f"quantile_levels needs quantile regressors: {type(self.estimator).__name__}"
                f" has loss={loss!r}; set loss='quantile'"
            )
        for name in ("quantile", "alpha"):
            if name in params:
                return name
        raise ValueError(
            f"quantile_levels needs a quantile regressor with a 'quantile' or 'alpha' "
            f"parameter (QuantileRegressor, GradientBoostingRegressor(loss='quantile'), "
            f"HistGradientBoostingRegressor(loss='quantile')); "
            f"{type(self.estimator).__name__} has neither"
        )

    def fit(self, X, y, sample_weight=None, **fit_params):
        if sample_weight is not None and has_fit_parameter(self.estimator, "sample_weight"):
            fit_params["sample_weight"] = sample_weight
        levels = _check_levels(self.levels, "quantile_levels")
        if levels.shape[0] < 2 or np.any(np.diff(levels) <= 0):
            raise ValueError(
                "quantile_levels must hold at least 2 strictly increasing levels, got "
                f"{levels.tolist()!r}"
            )
        name = self._level_parameter()
        self.levels_ = levels
        self.estimators_ = [
            clone(self.estimator).set_params(**{name: float(tau)}).fit(X, y, **fit_params)
            for tau in levels
        ]
        first = self.estimators_[0]
        if hasattr(first, "n_features_in_"):
            self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        return self

    def predict_distribution(self, X):
        check_is_fitted(self)
        q = np.column_stack(
            [np.asarray(e.predict(X), dtype=np.float64).reshape(-1) for e in self.estimators_]
        )
        return PredictiveQuantiles(np.sort(q, axis=1), self.levels_)

    def predict(self, X):
        return as_predictive(self.predict_distribution(X)).ppf([0.5])[:, 0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags


class RecalibratedRegressor(MetaEstimatorMixin, RegressorMixin, BaseEstimator):
    """A probabilistic regressor whose predictive distribution is recalibrated.

    The regression counterpart of :class:`RecalibratedClassifier`.  The regressor gives
    a predictive distribution through ``predict_distribution(X)`` (any form of the
    regression metrics of :mod:`skcalib.metrics`) or ``predict(X, return_std=True)``
    (a Normal distribution: :class:`~sklearn.gaussian_process.GaussianProcessRegressor`,
    :class:`~sklearn.linear_model.BayesianRidge`,
    :class:`~sklearn.linear_model.ARDRegression`); ``method="conformal"`` also takes a
    regressor with point predictions only.  The recalibrator is fitted on predictions
    for data the regressor was not trained on:

    * with ``cv`` (default 5-fold): for every split the regressor is fitted on the
      training part and predicts the test part; the recalibrator is fitted once on
      the pooled out-of-fold predictions (each reduced to one number per sample: the
      standardised residual, the PIT value or the conformity score, so that the folds'
      distributions never need to be merged), and the regressor is refitted on all the
      data.  A sample held out by more than one split is a ValueError;
    * with an already fitted regressor wrapped in :class:`sklearn.frozen.FrozenEstimator`:
      the regressor is not refitted and the recalibrator is fitted on its predictions
      for all of ``X, y``, which must then be held-out data.

    With ``quantile_levels``, ``estimator`` is a quantile regressor
    (:class:`~sklearn.linear_model.QuantileRegressor`,
    :class:`~sklearn.ensemble.GradientBoostingRegressor` or
    :class:`~sklearn.ensemble.HistGradientBoostingRegressor` with ``loss="quantile"``):
    one clone is fitted per level (its ``quantile`` or ``alpha`` set to the level), and
    their predictions, sorted in each row where they cross, are the predictive
    distribution (:class:`~skcalib.metrics.PredictiveQuantiles`, linear between the
    levels).

    Parameters
    ----------
    estimator : estimator instance, default=None
        The regressor; ``None`` means :class:`~sklearn.linear_model.BayesianRidge`.
    method : {"std_scaling", "isotonic", "conformal"} or recalibrator, default="std_scaling"
        :class:`StdScaling`, :class:`QuantileRecalibration` or
        :class:`ConformalInterval` with default parameters, or an unfitted instance of
        one of them (cloned).
    cv : int, cross-validation generator or iterable, default=5
        The splits, as in :func:`sklearn.model_selection.cross_val_predict` (an int is
        a :class:`~sklearn.model_selection.KFold`).  Ignored for a
        :class:`~sklearn.frozen.FrozenEstimator`.
    quantile_levels : array-like of shape (n_levels,), default=None
        Levels in (0, 1), at least two, increasing: ``estimator`` is a quantile
        regressor fitted once per level.

    Attributes
    ----------
    estimator_ : estimator instance
        The regressor fitted on all the data (or the frozen one; with
        ``quantile_levels``, the set of quantile regressors, whose ``estimators_`` holds
        one per level and whose ``predict_distribution`` gives their quantiles).
    calibrator_ : StdScaling, QuantileRecalibration or ConformalInterval
        The fitted recalibrator.
    n_features_in_ : int
        Number of features seen during ``fit`` (when the regressor records it).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during ``fit`` (when the regressor records them).

    See Also
    --------
    RecalibratedClassifier : The same for classifiers.

    References
    ----------
    V. Kuleshov, N. Fenner and S. Ermon, "Accurate Uncertainties for Deep Learning Using
    Calibrated Regression", ICML 2018.
    D. Levi, L. Gispan, N. Giladi and E. Fetaya, "Evaluating and Calibrating Uncertainty
    Prediction in Regression Tasks", arXiv:1905.11659, 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import BayesianRidge
    >>> from skcalib.recalibration import RecalibratedRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = RecalibratedRegressor(BayesianRidge(), method="isotonic").fit(X[:300], y[:300])
    >>> reg.predict_quantiles(X[300:302], [0.05, 0.5, 0.95]).shape
    (2, 3)
    >>> interval = reg.predict_interval(X[300:], coverage=0.9)
    >>> bool(0.8 < ((interval.lower <= y[300:]) & (y[300:] <= interval.upper)).mean() < 1)
    True
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "method": [
            StrOptions(_SortedNames(REGRESSION_METHODS)),
            StdScaling,
            QuantileRecalibration,
            ConformalInterval,
        ],
        "cv": ["cv_object"],
        "quantile_levels": ["array-like", None],
    }

    def __init__(self, estimator=None, *, method="std_scaling", cv=5, quantile_levels=None):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.quantile_levels = quantile_levels

    def _get_estimator(self):
        estimator = BayesianRidge() if self.estimator is None else self.estimator
        if self.quantile_levels is not None:
            if isinstance(estimator, FrozenEstimator):
                raise ValueError(
                    "quantile_levels fits one quantile regressor per level: the estimator "
                    "cannot be a FrozenEstimator (give a fitted model's predictive "
                    "quantiles through a predict_distribution method instead)"
                )
            return _QuantileSet(estimator, self.quantile_levels)
        return estimator

    def _get_calibrator(self):
        if isinstance(self.method, str):
            if self.method not in REGRESSION_METHODS:  # (parameter validation skipped)
                raise ValueError(
                    f"method must be one of {sorted(REGRESSION_METHODS)} or a recalibrator "
                    f"of skcalib.recalibration; got {self.method!r}"
                )
            return REGRESSION_METHODS[self.method]()
        return clone(self.method)

    @fit_context(
        # the regressor and the recalibrator given as parameters are validated when
        # they are fitted
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the regressor and the recalibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (calibration data for a frozen regressor).
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, used by the recalibrator and passed to the regressor's
            ``fit`` when it accepts them (with metadata routing enabled: when the
            regressor requests them).
        **fit_params : dict
            Other parameters of the regressor's ``fit`` (routed with metadata routing
            enabled).

        Returns
        -------
        self : object
            The fitted regressor.
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        check_array(
            X,
            accept_sparse=True,
            ensure_all_finite=False,
            dtype=None,
            ensure_2d=False,
            allow_nd=True,
        )
        X, y = indexable(_numeric(X), y)
        y_arr = column_or_1d(
            check_array(y, ensure_2d=False, dtype="numeric", ensure_all_finite=False), warn=True
        ).astype(np.float64)
        _find_nonfinite(y_arr, "y")
        n = y_arr.shape[0]
        sw = check_sample_weight(sample_weight, n)
        estimator = self._get_estimator()
        calibrator = self._get_calibrator()
        points = isinstance(calibrator, ConformalInterval)

        if get_config().get("enable_metadata_routing", False):
            routed = process_routing(self, "fit", sample_weight=sample_weight, **fit_params)
            est_params = dict(routed.estimator.fit)
            split_params = dict(routed.splitter.split)
        else:
            est_params = dict(fit_params)
            if sample_weight is not None and has_fit_parameter(estimator, "sample_weight"):
                est_params["sample_weight"] = sw
            split_params = {}

        def statistic(est, rows_X, rows_y):
            pred = predictive_distribution(est, rows_X, points=points)
            return calibrator._statistic(pred, rows_y)

        if isinstance(estimator, FrozenEstimator):
            check_is_fitted(estimator)
            final = estimator
            calibrator._fit_statistic(statistic(estimator, X, y_arr), sw)
        else:
            cv = check_cv(self.cv, y_arr, classifier=False)
            oof = np.zeros(n)
            held = np.zeros(n, dtype=bool)
            for train, test in cv.split(X, y_arr, **split_params):
                test = np.arange(n)[test]  # (also for a boolean mask)
                RecalibratedClassifier._check_held_out_once(held, test)
                held[test] = True
                est = clone(estimator).fit(
                    _take(X, train), y_arr[train], **_rows(est_params, train, n)
                )
                oof[test] = statistic(est, _take(X, test), y_arr[test])
            calibrator._fit_statistic(oof[held], None if sw is None else sw[held])
            final = clone(estimator).fit(X, y_arr, **est_params)
        self.estimator_ = final
        self.calibrator_ = calibrator
        if hasattr(final, "n_features_in_"):
            self.n_features_in_ = final.n_features_in_
        if hasattr(final, "feature_names_in_"):
            self.feature_names_in_ = final.feature_names_in_
        return self

    def _base(self, X):
        check_is_fitted(self)
        points = isinstance(self.calibrator_, ConformalInterval)
        return predictive_distribution(self.estimator_, _numeric(X), points=points)

    def _conformal_only(self, what):
        raise ValueError(
            f"method='conformal' gives prediction intervals and quantiles, not {what}; use "
            "predict_interval or predict_quantiles, or method='std_scaling' or 'isotonic'"
        )

    def predict_distribution(self, X):
        """Recalibrated predictive distributions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : frozen scipy.stats.norm or RecalibratedDistribution
            ``scipy.stats.norm(mean, scale_ * std)`` for ``"std_scaling"``, a
            :class:`RecalibratedDistribution` for ``"isotonic"``: either is read by
            every regression metric of :mod:`skcalib.metrics`.  ``"conformal"`` has no
            distribution (a ValueError).
        """
        base = self._base(X)
        if isinstance(self.calibrator_, ConformalInterval):
            self._conformal_only("a predictive distribution")
        return self.calibrator_.transform(base)

    def predict(self, X, return_std=False):
        """Predictive means (and standard deviations).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        return_std : bool, default=False
            Also return the standard deviations of the recalibrated distributions.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
            Means of the recalibrated distributions (of the regressor's predictions
            for ``"conformal"``, which does not change them).
        y_std : ndarray of shape (n_samples,)
            Their standard deviations; only with ``return_std=True`` (not for
            ``"conformal"``).
        """
        base = self._base(X)
        if isinstance(self.calibrator_, ConformalInterval):
            if return_std:
                self._conformal_only("standard deviations")
            if isinstance(base, np.ndarray):
                return base
            return np.asarray(as_predictive(base).mean(), dtype=np.float64)
        pred = as_predictive(self.calibrator_.transform(base))
        mean = np.asarray(pred.mean(), dtype=np.float64)
        if return_std:
            return mean, np.asarray(pred.std(), dtype=np.float64)
        return mean

    def predict_quantiles(self, X, levels):
        """Recalibrated quantiles.

        For ``"conformal"`` the quantile at level :math:`\\tau` is the end of the
        conformal interval of coverage :math:`|2\\tau - 1|` on the side of
        :math:`\\tau` (the prediction itself at 0.5).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        levels : float or array-like of shape (n_levels,)
            Levels in (0, 1).

        Returns
        -------
        quantiles : ndarray of shape (n_samples, n_levels)
            The quantiles, one column per level.
        """
        levels = _check_levels(levels)
        base = self._base(X)
        if isinstance(self.calibrator_, ConformalInterval):
            out = []
            for tau in levels:
                c = abs(2.0 * tau - 1.0)
                if c == 0:
                    center = self.calibrator_.transform(base, coverage=0.5)
                    out.append((center.lower + center.upper) / 2.0)
                    continue
                interval = self.calibrator_.transform(base, coverage=c)
                out.append(interval.upper if tau > 0.5 else interval.lower)
            return np.stack(out, axis=1)
        return as_predictive(self.calibrator_.transform(base)).ppf(levels)

    def predict_interval(self, X, coverage=0.9):
        """Recalibrated central prediction intervals.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.
        coverage : float in (0, 1), default=0.9
            Probability content of the intervals.

        Returns
        -------
        interval : PredictionInterval
            ``lower``, ``upper`` and ``coverage``.
        """
        c = _check_coverage(coverage)
        base = self._base(X)
        if isinstance(self.calibrator_, ConformalInterval):
            return self.calibrator_.transform(base, coverage=c)
        lower, upper = as_predictive(self.calibrator_.transform(base)).interval(c)
        return PredictionInterval(lower, upper, c)

    def get_metadata_routing(self):
        """Routing of ``fit``'s metadata to the regressor and the splitter.

        Returns
        -------
        routing : MetadataRouter
            The routing information.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self._get_estimator(),
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
            .add(
                splitter=check_cv(self.cv),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self._get_estimator()).input_tags.sparse
        return tags
