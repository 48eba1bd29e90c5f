"""Platt scaling (Platt 1999): a logistic map of a classifier's scores, as scikit-learn's
``CalibratedClassifierCV(method="sigmoid")`` fits it."""

from __future__ import annotations

import numpy as np

from ._base import BaseCalibrator, renormalise, sigmoid, two_columns
from ._logistic import fit_logistic

__all__ = ["PlattScaling", "fit_platt"]


def fit_platt(f, positive, sample_weight=None):
    """Slope and intercept of ``sigmoid(slope * f + intercept)`` fitted by Platt's method.

    The weighted cross-entropy is minimised against Platt's smoothed targets
    ``(N+ + 1) / (N+ + 2)`` for the positive samples and ``1 / (N- + 2)`` for the
    negative ones (``N+``, ``N-``: their total weights), which keep the fit finite on
    separable scores; Newton's method to machine precision (the problem is convex).
    ``sklearn.calibration._sigmoid_calibration`` minimises the same loss (with
    L-BFGS) and returns ``(a, b) = (-slope, -intercept)``.
    """
    f = f.astype(np.float64, copy=False)
    w = np.ones(f.shape[0]) if sample_weight is None else sample_weight
    n_pos = float(w[positive].sum())
    n_neg = float(w[~positive].sum())
    target = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    F = np.column_stack([f, np.ones(f.shape[0])])
    return fit_logistic(F, target, sample_weight, l2=0.0)


class PlattScaling(BaseCalibrator):
    r"""Platt scaling: a sigmoid of the classifier's score (Platt 1999).

    For a binary problem, the calibrated probability of the positive class is

    .. math::

        \hat p = \sigma(\alpha f + \beta) = \frac{1}{1 + \exp(-(\alpha f + \beta))},

    where ``f`` is the classifier's score of the positive class, and
    :math:`\alpha, \beta` minimise the weighted cross-entropy against Platt's smoothed
    targets :math:`(N_+ + 1) / (N_+ + 2)` for the positive and :math:`1 / (N_- + 2)`
    for the negative samples (:math:`N_\pm` their total weights; the targets keep the
    fit finite on separable scores).  For more classes one sigmoid is fitted per class,
    one-vs-rest, on that class's column, and every row is divided by its sum (a row of
    zeros becomes uniform).  This is exactly scikit-learn's
    ``CalibratedClassifierCV(method="sigmoid")`` (``sklearn/calibration.py``:
    ``_sigmoid_calibration``, whose ``a_, b_`` are :math:`-\alpha, -\beta`), solved to
    machine precision by Newton's method.

    The score ``f`` is ``X`` as given, never transformed, as scikit-learn feeds it:

    * a 1-D ``X``: the score of the positive class, e.g. ``decision_function`` of a
      binary classifier or ``predict_proba(X)[:, 1]``;
    * a 2-D ``X`` of probabilities: column ``j`` is the score of class ``j`` (for two
      classes, column 1 alone, as ``predict_proba(X)[:, 1]``);
    * a 2-D ``X`` of logits: column ``j`` is the score of class ``j``
      (``decision_function`` of a multiclass classifier); for two classes, the
      log-odds ``X[:, 1] - X[:, 0]``.

    :class:`RecalibratedClassifier` reads ``decision_function`` when the classifier
    has one and ``predict_proba`` otherwise, as scikit-learn does, so that
    ``RecalibratedClassifier(clf, method="sigmoid")`` gives the probabilities of
    ``CalibratedClassifierCV(clf, method="sigmoid")``.

    Parameters
    ----------
    input : {"auto", "proba", "logits"}, default="auto"
        What ``X`` holds (see :class:`TemperatureScaling`): probabilities are checked
        as such; the choice also decides how two columns are read (above).
    classes : array-like of shape (n_classes,), default=None
        The classes, in the column order of ``X`` (for a 1-D ``X``: the two classes,
        the positive one, whose output ``X`` holds, last).  Default: the sorted labels
        of ``y``, which must then hold one class per column.  Pass it when the
        calibration data miss a class (:class:`RecalibratedClassifier` passes its
        classifier's ``classes_``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_groups, 2)
        :math:`(\alpha, \beta)` of each class (one row for binary problems).
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : Its ``method="sigmoid"``.
    ScalingBinning : Platt scaling of the log-odds of probabilities, then binning.

    References
    ----------
    J. Platt (1999). Probabilistic outputs for support vector machines and comparisons
    to regularized likelihood methods. Advances in Large Margin Classifiers, 61-74.

    Examples
    --------
    >>> from skcalib.recalibration import PlattScaling
    >>> scores = [-3.0, -1.0, -0.5, 0.2, 1.0, 2.5]
    >>> platt = PlattScaling().fit(scores, [0, 0, 1, 0, 1, 1])
    >>> platt.coef_.round(4)  # sklearn's _sigmoid_calibration: a, b = -0.5415, -0.0642
    array([[0.5415, 0.0642]])
    >>> platt.predict_proba([0.0]).round(4)
    array([[0.484, 0.516]])
    """

    _native = "scores"

    def __init__(self, *, input="auto", classes=None):
        self.input = input
        self.classes = classes

    def _scores(self, Z):
        """The score of each one-vs-rest group: one column for binary problems."""
        if Z.ndim == 1:
            return [Z]
        if Z.shape[1] == 2:
            return [Z[:, 1] if self.input_type_ == "proba" else Z[:, 1] - Z[:, 0]]
        return [Z[:, j] for j in range(Z.shape[1])]

    def _fit(self, data):
        y, sw = data.y, data.sample_weight
        groups = self._scores(data.Z)
        targets = [y == 1] if len(groups) == 1 else [y == j for j in range(len(groups))]
        self.coef_ = np.array([fit_platt(f, t, sw) for f, t in zip(groups, targets, strict=True)])

    def _predict_native(self, Z):
        cols = [
            sigmoid(self.coef_[j, 0] * f.astype(np.float64) + self.coef_[j, 1])
            for j, f in enumerate(self._scores(Z))
        ]
        if len(cols) == 1:
            return two_columns(cols[0].astype(Z.dtype))
        return renormalise(np.column_stack(cols).astype(Z.dtype))
