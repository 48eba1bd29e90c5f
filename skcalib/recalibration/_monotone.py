"""Monotone one-vs-rest calibrators: isotonic regression (Zadrozny and Elkan 2002) and
beta calibration (Kull, Silva Filho and Flach 2017)."""

from __future__ import annotations

import numpy as np
from sklearn.isotonic import IsotonicRegression

from ._base import BaseCalibrator, renormalise, two_columns
from ._logistic import fit_logistic, logistic_predict

__all__ = ["BetaCalibration", "IsotonicCalibration"]


class _OneVsRest(BaseCalibrator):
    """A binary calibrator of the positive-class probability, one-vs-rest for more
    classes with the rows renormalised."""

    _native = "proba"

    def _fit(self, data):
        P, y, sw = data.Z, data.y, data.sample_weight
        if P.ndim == 1:
            self._store([self._fit_one(P, y == 1, sw)])
        else:
            self._store([self._fit_one(P[:, j], y == j, sw) for j in range(P.shape[1])])

    def _store(self, fitted):
        self.calibrators_ = fitted

    def _fitted(self):
        return self.calibrators_

    def _predict_native(self, P):
        fitted = self._fitted()
        if P.ndim == 1:
            return two_columns(self._predict_one(fitted[0], P).astype(P.dtype))
        Q = np.column_stack([self._predict_one(c, P[:, j]) for j, c in enumerate(fitted)]).astype(
            P.dtype
        )
        return renormalise(Q)


class IsotonicCalibration(_OneVsRest):
    r"""Isotonic calibration: a non-decreasing map of the probabilities (Zadrozny, Elkan 2002).

    For a binary problem, the calibrated probability of the positive class is
    :math:`\hat f(p)`, where :math:`\hat f` is the non-decreasing function minimising
    the weighted squared error :math:`\sum_i w_i (o_i - f(p_i))^2` (pool adjacent
    violators, :class:`sklearn.isotonic.IsotonicRegression` with values clipped to
    [0, 1] and linear interpolation between the fitted points, constant beyond them).
    For more classes one function per class is fitted one-vs-rest and every row is
    divided by its sum (a row of zeros becomes uniform), as
    :class:`sklearn.calibration.CalibratedClassifierCV` does with
    ``method="isotonic"``.  Probabilities are read from ``X``; logits
    (``input="logits"``) are turned into probabilities with a softmax (1-D: the
    sigmoid).

    Parameters
    ----------
    input : {"auto", "proba", "logits"}, default="auto"
        How ``X`` is read; see :class:`TemperatureScaling`.

    classes : array-like of shape (n_classes,), default=None
        The classes, in the column order of ``X`` (for a 1-D ``X``: the two classes,
        the positive one, whose output ``X`` holds, last).  Default: the sorted labels
        of ``y``, which must then hold one class per column.  Pass it when the
        calibration data miss a class (:class:`RecalibratedClassifier` passes its
        classifier's ``classes_``).

    Attributes
    ----------
    calibrators_ : list of IsotonicRegression
        One fitted isotonic regression per class (one for binary problems).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    References
    ----------
    B. Zadrozny and C. Elkan (2002). Transforming classifier scores into accurate
    multiclass probability estimates. KDD, 694-699.

    Examples
    --------
    >>> from skcalib.recalibration import IsotonicCalibration
    >>> iso = IsotonicCalibration().fit([0.1, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    >>> iso.predict_proba([0.1, 0.8])[:, 1]
    array([0., 1.])
    """

    def __init__(self, *, input="auto", classes=None):
        self.input = input
        self.classes = classes

    @staticmethod
    def _fit_one(p, t, sw):
        iso = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0, increasing=True)
        return iso.fit(p.astype(np.float64), t.astype(np.float64), sample_weight=sw)

    @staticmethod
    def _predict_one(iso, p):
        return iso.predict(p.astype(np.float64))


class BetaCalibration(_OneVsRest):
    r"""Beta calibration (Kull, Silva Filho and Flach 2017).

    The calibrated probability of the positive class is

    .. math::

        \hat p = \frac{1}{1 + 1 / \left(e^{c}\, \frac{p^a}{(1 - p)^b}\right)}
        = \sigma\bigl(a \log p - b \log(1 - p) + c\bigr),

    a logistic regression on the features :math:`\log p` and :math:`-\log(1 - p)`
    fitted by weighted maximum likelihood, with :math:`a, b \ge 0` so that the map is
    non-decreasing: when the unconstrained fit gives :math:`a < 0` (or :math:`b < 0`)
    that feature is dropped and the model refitted, as in the authors' ``betacal``
    package (``betacal/beta_calibration.py``, the default ``parameters="abm"``).  When
    the slope left is negative too (scores that point the wrong way; ``betacal`` would
    return it), it is set to 0 as well: :math:`a = b = 0`, the constant map whose value
    is the weighted frequency of the class.  ``p`` is
    clipped to ``[eps, 1 - eps]`` (float64 machine epsilon).  The family contains the
    identity (:math:`a = b = 1, c = 0`) and the logistic (Platt) maps of the log-odds
    (:math:`a = b`).  For more classes one map per class is fitted one-vs-rest and
    the rows are renormalised.

    Parameters
    ----------
    input : {"auto", "proba", "logits"}, default="auto"
        How ``X`` is read; see :class:`TemperatureScaling`.

    classes : array-like of shape (n_classes,), default=None
        The classes, in the column order of ``X`` (for a 1-D ``X``: the two classes,
        the positive one, whose output ``X`` holds, last).  Default: the sorted labels
        of ``y``, which must then hold one class per column.  Pass it when the
        calibration data miss a class (:class:`RecalibratedClassifier` passes its
        classifier's ``classes_``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_groups, 3)
        ``(a, b, c)`` of each class (one row for binary problems).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    References
    ----------
    M. Kull, T. M. Silva Filho and P. Flach (2017). Beyond sigmoids: how to obtain
    well-calibrated probabilities from binary classifiers with beta calibration.
    Electronic Journal of Statistics 11(2), 5052-5080.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.recalibration import BetaCalibration
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> y = (rng.random(2000) < p).astype(int)  # already calibrated
    >>> np.round(BetaCalibration().fit(p, y).coef_, 1)
    array([[ 1., 1., -0.]])
    """

    def __init__(self, *, input="auto", classes=None):
        self.input = input
        self.classes = classes

    @staticmethod
    def _features(p):
        eps = np.finfo(np.float64).eps
        q = np.clip(p.astype(np.float64), eps, 1 - eps)
        return np.column_stack([np.log(q), -np.log1p(-q), np.ones(q.shape[0])])

    def _fit_one(self, p, t, sw):
        F = self._features(p)
        coef = fit_logistic(F, t, sw)
        if coef[0] >= 0 and coef[1] >= 0:
            return coef
        # betacal's rule: drop the negative slope (a first) and refit the other
        keep = 1 if coef[0] < 0 else 0
        slope, intercept = fit_logistic(F[:, [keep, 2]], t, sw)
        coef = np.zeros(3)
        if slope >= 0:
            coef[keep], coef[2] = slope, intercept
        else:
            # the slope left points the wrong way too (betacal would keep it): a = b = 0,
            # the constant map, the weighted frequency of the class
            (coef[2],) = fit_logistic(F[:, 2:], t, sw)
        return coef

    def _predict_one(self, coef, p):
        return logistic_predict(self._features(p), coef)

    def _store(self, fitted):
        self.coef_ = np.array(fitted)

    def _fitted(self):
        return list(self.coef_)
