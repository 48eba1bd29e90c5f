"""RecalibratedClassifier: a classifier and a calibrator fitted together."""

from __future__ import annotations

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import check_cv
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import get_tags, indexable
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import check_array, check_is_fitted, has_fit_parameter

from .._core._validation import check_sample_weight
from ..utils._sklearn_compat import HasMethods, StrOptions, fit_context
from ._base import BaseCalibrator, check_targets
from ._histogram import HistogramBinning, ScalingBinning
from ._monotone import BetaCalibration, IsotonicCalibration
from ._platt import PlattScaling
from ._scaling import MatrixScaling, VectorScaling
from ._temperature import EnsembleTemperatureScaling, TemperatureScaling

__all__ = ["METHODS", "RecalibratedClassifier"]

#: The calibrators ``method`` names (with scikit-learn's names for its methods:
#: ``"sigmoid"``, ``"isotonic"``, ``"temperature"``).
METHODS = {
    "sigmoid": PlattScaling,
    "temperature": TemperatureScaling,
    "vector": VectorScaling,
    "matrix": MatrixScaling,
    "ensemble_temperature": EnsembleTemperatureScaling,
    "histogram": HistogramBinning,
    "isotonic": IsotonicCalibration,
    "beta": BetaCalibration,
    "scaling_binning": ScalingBinning,
}


class _SortedNames(frozenset):
    """A set of names that iterates in sorted order, so that the message of a
    ``StrOptions`` constraint lists the choices sorted."""

    def __iter__(self):
        return iter(sorted(frozenset.__iter__(self)))


def _take(a, idx):
    """Rows ``idx`` of an array-like (numpy, pandas, sparse, list)."""
    if hasattr(a, "iloc"):
        return a.iloc[idx]
    if hasattr(a, "shape") and hasattr(a, "__getitem__"):
        return a[idx]
    return np.asarray(a)[idx]


def _rows(params, idx, n):
    """Index the sample-aligned values of a dict of fit parameters."""
    out = {}
    for key, value in params.items():
        if hasattr(value, "__array__") and not hasattr(value, "__len__"):
            value = np.asarray(value)
        if value is not None and not isinstance(value, str | bytes):
            try:
                length = len(value)
            except TypeError:
                length = None
            if length == n:
                value = _take(value, idx)
        out[key] = value
    return out


class RecalibratedClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A classifier whose probabilities are recalibrated by a post-hoc calibrator.

    In the spirit of :class:`sklearn.calibration.CalibratedClassifierCV`, with any
    calibrator of :mod:`skcalib.recalibration`.  The calibrator is fitted on
    predictions for data the classifier was not trained on:

    * with ``cv`` (default 5-fold, stratified): for every split the classifier is
      fitted on the training part and the calibrator on its output for the test part.
      With ``ensemble=True`` every (classifier, calibrator) pair is kept and
      ``predict_proba`` averages their probabilities; with ``ensemble=False`` the
      out-of-fold outputs of all splits are pooled to fit one calibrator, and the
      classifier is refitted on all the data.  The pooled outputs are those of the
      samples some split holds out: every sample when the splits partition the data
      (K-fold), the test part of a single split (a list ``[(train, test)]``,
      ``ShuffleSplit(n_splits=1)``), the samples of a test fold of a
      :class:`~sklearn.model_selection.PredefinedSplit`.  A sample held out by more
      than one split (``ShuffleSplit(n_splits=5)``) would have several outputs: a
      ValueError, with ``ensemble=False`` only;
    * with an already fitted classifier wrapped in :class:`sklearn.frozen.FrozenEstimator`
      (``ensemble="auto"`` then means False): the classifier is not refitted and the
      calibrator is fitted on its output for all of ``X, y``, which must then be
      held-out data.  ``y`` may miss some of the classifier's classes; ``classes_``
      are the classifier's.

    Every calibrator is told the classifier's ``classes_`` (its ``classes``
    parameter), so that a calibration fold missing a class is still read right.  The
    classifier's output is taken from ``decision_function`` for the calibrators of
    logits (temperature, vector, matrix and ensemble temperature scaling) and for
    Platt scaling (as scikit-learn does), and from ``predict_proba`` for the
    calibrators of probabilities (histogram binning, isotonic, beta,
    scaling-binning), falling back to the other method when the classifier lacks the
    preferred one; a calibrator instance whose ``input`` is ``"proba"`` or
    ``"logits"`` sets the preference.

    Parameters
    ----------
    estimator : estimator instance, default=None
        The classifier (with ``fit`` and ``predict_proba`` or ``decision_function``);
        ``None`` means :class:`~sklearn.linear_model.LogisticRegression`.
    method : str or calibrator instance, default="temperature"
        ``"temperature"``, ``"sigmoid"`` (:class:`PlattScaling`), ``"vector"``,
        ``"matrix"``, ``"ensemble_temperature"``, ``"histogram"``, ``"isotonic"``,
        ``"beta"``, ``"scaling_binning"`` (the calibrator of that name with its
        default parameters; ``"sigmoid"``, ``"isotonic"`` and ``"temperature"`` are
        also scikit-learn's names), or an unfitted calibrator of
        :mod:`skcalib.recalibration` such as ``HistogramBinning(n_bins=10)`` (cloned;
        its ``input`` and ``classes`` are set when it is fitted).
    cv : int, cross-validation generator or iterable, default=5
        The splits, as in :func:`sklearn.model_selection.cross_val_predict`; an int is
        a :class:`~sklearn.model_selection.StratifiedKFold`.  Ignored for a
        :class:`~sklearn.frozen.FrozenEstimator`.
    ensemble : bool or "auto", default="auto"
        Keep one (classifier, calibrator) pair per split (True) or one of each
        (False: the calibrator is fitted on the pooled out-of-fold outputs, which
        needs every sample held out by at most one split); ``"auto"``: True, except
        for a
        :class:`~sklearn.frozen.FrozenEstimator`, which is never refitted and always
        gives one pair.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels (of a frozen classifier: its ``classes_``).
    calibrated_classifiers_ : list of (estimator, calibrator) tuples
        The fitted pairs whose probabilities ``predict_proba`` averages.
    response_method_ : {"decision_function", "predict_proba"}
        The method of the classifier the calibrators read.
    n_features_in_ : int
        Number of features seen during ``fit`` (when the classifier records it).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during ``fit`` (when the classifier records them).

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : Sigmoid, isotonic and temperature
        calibration of a classifier.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skcalib.recalibration import RecalibratedClassifier
    >>> X, y = make_classification(n_samples=500, random_state=0)
    >>> clf = RecalibratedClassifier(LogisticRegression(), method="temperature")
    >>> clf.fit(X, y).predict_proba(X[:2]).shape
    (2, 2)
    >>> len(clf.calibrated_classifiers_)
    5
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"]), None],
        "method": [StrOptions(_SortedNames(METHODS)), BaseCalibrator],
        "cv": ["cv_object"],
        "ensemble": ["boolean", StrOptions({"auto"})],
    }

    def __init__(self, estimator=None, *, method="temperature", cv=5, ensemble="auto"):
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.ensemble = ensemble

    def _get_estimator(self):
        return LogisticRegression() if self.estimator is None else self.estimator

    def _get_calibrator(self):
        if isinstance(self.method, str):
            if self.method not in METHODS:  # (parameter validation was skipped)
                raise ValueError(
                    f"method must be one of {sorted(METHODS)} or a calibrator of "
                    f"skcalib.recalibration; got {self.method!r}"
                )
            return METHODS[self.method]()
        return clone(self.method)

    def _response(self, estimator, calibrator):
        """(method name, input type) of the classifier's output the calibrator reads."""
        preferred = calibrator.get_params().get("input", "auto")
        if preferred == "auto":
            preferred = "proba" if calibrator._native == "proba" else "logits"
        order = ["decision_function", "predict_proba"]
        if preferred == "proba":
            order.reverse()
        for name in order:
            if hasattr(estimator, name):
                return name, "logits" if name == "decision_function" else "proba"
        raise ValueError(
            f"the estimator {type(estimator).__name__} has neither predict_proba nor "
            "decision_function"
        )

    def _check_classes(self, estimator, y_classes):
        """The classifier must know every label of ``y`` (and, in cross-validation,
        have been trained on all of them)."""
        got = getattr(estimator, "classes_", None)
        if got is None or not np.isin(y_classes, got).all():
            raise ValueError(
                f"the classifier was fitted on the classes {list(np.asarray(got).tolist())} "
                f"but y has the classes {list(y_classes.tolist())}: every class must be "
                "in every training split (use fewer splits), and y must only hold labels "
                "the frozen classifier knows"
            )

    @fit_context(
        # the classifier and the calibrator given as parameters are validated when
        # they are fitted
        prefer_skip_nested_validation=False
    )
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier and the calibrator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (calibration data for a frozen classifier).
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, used by the calibrator and passed to the classifier's
            ``fit`` when it accepts them (with metadata routing enabled: when the
            classifier requests them).
        **fit_params : dict
            Other parameters of the classifier's ``fit`` (routed with metadata
            routing enabled).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        # the classifier validates X; checked here for the messages of empty input
        check_array(
            X,
            accept_sparse=True,
            ensure_all_finite=False,
            dtype=None,
            ensure_2d=False,
            allow_nd=True,
        )
        X, y = indexable(X, y)
        y_arr = check_targets(y)
        y_classes = LabelEncoder().fit(y_arr).classes_
        if len(y_classes) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; y has 1 class "
                f"{y_classes[0]!r}"
            )
        n = y_arr.shape[0]
        sw = check_sample_weight(sample_weight, n)
        estimator = self._get_estimator()
        calibrator = self._get_calibrator()

        if get_config().get("enable_metadata_routing", False):
            routed = process_routing(self, "fit", sample_weight=sample_weight, **fit_params)
            est_params = dict(routed.estimator.fit)
            split_params = dict(routed.splitter.split)
        else:
            est_params = dict(fit_params)
            if sample_weight is not None and has_fit_parameter(estimator, "sample_weight"):
                est_params["sample_weight"] = sw
            split_params = {}

        def fit_calibrator(est, kind, pred, rows):
            """The calibrator fitted on the classifier's output for ``rows``."""
            cal = clone(calibrator).set_params(input=kind, classes=est.classes_)
            return cal.fit(pred, y_arr[rows], None if sw is None else sw[rows])

        frozen = isinstance(estimator, FrozenEstimator)
        ensemble = (not frozen) if self.ensemble == "auto" else bool(self.ensemble)
        pairs = []
        if frozen:
            est = estimator
            self._check_classes(est, y_classes)
            classes = np.asarray(est.classes_)
            name, kind = self._response(est, calibrator)
            pairs.append((est, fit_calibrator(est, kind, getattr(est, name)(X), slice(None))))
        else:
            classes = y_classes
            cv = check_cv(self.cv, y_arr, classifier=True)
            name = kind = None
            oof = None
            held = np.zeros(n, dtype=bool)  # (ensemble=False) held out by a split so far
            for train, test in cv.split(X, y_arr, **split_params):
                test = np.arange(n)[test]  # (also for a boolean mask)
                if not ensemble:
                    self._check_held_out_once(held, test)
                    held[test] = True
                est = clone(estimator).fit(
                    _take(X, train), _take(y_arr, train), **_rows(est_params, train, n)
                )
                self._check_classes(est, y_classes)
                if name is None:
                    name, kind = self._response(est, calibrator)
                pred = getattr(est, name)(_take(X, test))
                if ensemble:
                    pairs.append((est, fit_calibrator(est, kind, pred, test)))
                else:
                    if oof is None:
                        oof = np.zeros((n,) + pred.shape[1:], dtype=pred.dtype)
                    oof[test] = pred
            if not ensemble:
                est = clone(estimator).fit(X, y_arr, **est_params)
                self._check_classes(est, y_classes)
                # only the rows some split held out have an out-of-fold output
                pairs.append((est, fit_calibrator(est, kind, oof[held], held)))
        self.classes_ = classes
        self.calibrated_classifiers_ = pairs
        self.response_method_ = name
        first = pairs[0][0]
        if hasattr(first, "n_features_in_"):
            self.n_features_in_ = first.n_features_in_
        if hasattr(first, "feature_names_in_"):
            self.feature_names_in_ = first.feature_names_in_
        return self

    @staticmethod
    def _check_held_out_once(held, test):
        """ensemble=False pools the out-of-fold outputs of the splits: a row may be held
        out by one split at most (a partition of the rows, or of a part of them)."""
        again = held[test]
        if not again.any() and np.unique(test).shape[0] == test.shape[0]:
            return
        if again.any():
            row = int(test[again][0])
        else:
            ordered = np.sort(test)
            row = int(ordered[np.flatnonzero(np.diff(ordered) == 0)[0]])
        raise ValueError(
            f"cv holds out sample {row} more than once; with ensemble=False the "
            "out-of-fold outputs of the splits are pooled to fit one calibrator, so every "
            "sample must be held out by at most one split (KFold, StratifiedKFold, a "
            "single train/test split, ShuffleSplit(n_splits=1), PredefinedSplit). Pass "
            "such a cv, or ensemble=True to fit one calibrator per split"
        )

    def predict_proba(self, X):
        """Calibrated class probabilities, averaged over the fitted pairs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; rows sum to 1.
        """
        check_is_fitted(self)
        total = None
        for est, cal in self.calibrated_classifiers_:
            p = cal.predict_proba(getattr(est, self.response_method_)(X))
            total = p.astype(np.float64) if total is None else total + p
        total /= len(self.calibrated_classifiers_)
        return total

    def predict(self, X):
        """The class of highest calibrated probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def get_metadata_routing(self):
        """Routing of ``fit``'s metadata to the classifier and the splitter.

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
                splitter=check_cv(self.cv, classifier=True),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self._get_estimator()).input_tags.sparse
        return tags
