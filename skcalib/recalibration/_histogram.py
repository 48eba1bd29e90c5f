"""Histogram binning (Zadrozny and Elkan 2001) and the scaling-binning calibrator
(Kumar, Liang and Ma 2019), both on the binning core of :mod:`skcalib.metrics`."""

from __future__ import annotations

import numbers

import numpy as np

from .._core._binning import assign_bins, check_bin_edges
from ..metrics import compute_bin_stats
from ..utils._sklearn_compat import Interval, StrOptions
from ._base import BaseCalibrator, renormalise, two_columns
from ._logistic import fit_logistic, logistic_predict

__all__ = ["HistogramBinning", "ScalingBinning"]

#: Ridge on the Platt slope of :class:`ScalingBinning`, relative to the mean log loss:
#: keeps the scaled values of separable data away from exact 0 and 1 (where the
#: equal-mass bins would collapse into ties).
PLATT_L2 = 1e-6


def _fill_empty(values, edges):
    """Empty bins (NaN) take the midpoint of their edges."""
    mid = (edges[..., :-1] + edges[..., 1:]) / 2
    out = values.copy()
    empty = np.isnan(out)
    out[empty] = mid[empty]
    return out


class HistogramBinning(BaseCalibrator):
    r"""Histogram binning: each bin predicts its observed frequency (Zadrozny, Elkan 2001).

    The probabilities are binned with the binning core of :mod:`skcalib.metrics` (the
    bins of :func:`skcalib.metrics.reliability_curve` with the same options), and a
    probability falling in bin :math:`B_m` is replaced by

    .. math::

        \hat p = \frac{\sum_{i \in B_m} w_i\, o_i}{\sum_{i \in B_m} w_i},

    the (weighted) observed frequency of the bin in the calibration data: exactly the
    ``prob_true`` of :func:`~skcalib.metrics.reliability_curve`.  What is binned
    (``multiclass``):

    * ``"binary"`` problems (``"auto"`` with two classes): the positive-class
      probability, against the outcome "positive";
    * ``"top_label"`` (``"auto"`` with more classes): the confidence (maximum
      probability) against "the argmax is right"; the predicted class gets its bin's
      accuracy and the other classes share the rest in proportion to their original
      probabilities;
    * ``"classwise"``: one-vs-rest, every class's probability against "this class";
      the rows are then renormalised to sum to 1 (a row of zeros becomes uniform).

    An empty bin (no calibration sample of positive weight) has no observed
    frequency; it predicts the midpoint of its edges.  Probabilities are read from
    ``X``; logits (``input="logits"``) are turned into probabilities with a softmax
    (1-D: the sigmoid).

    Parameters
    ----------
    n_bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins (edges ``np.linspace(0, 1, n_bins + 1)``, right-closed) or
        equal-mass bins (weighted quantiles of the calibration probabilities).
    bins : array-like of shape (n_bins + 1,), default=None
        Explicit increasing edges covering [0, 1]; override ``n_bins`` and
        ``strategy``.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned (above).
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
    bin_edges_ : ndarray of shape (n_bins + 1,) or (n_classes, n_bins + 1)
        The edges (one row per class for ``"classwise"``).
    bin_values_ : ndarray of shape (n_bins,) or (n_classes, n_bins)
        The value each bin predicts.
    bin_counts_ : ndarray of the shape of ``bin_values_``
        Total calibration weight in each bin.
    multiclass_ : {"binary", "top_label", "classwise"}
        What was binned.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    References
    ----------
    B. Zadrozny and C. Elkan (2001). Obtaining calibrated probability estimates from
    decision trees and naive Bayesian classifiers. ICML, 609-616.

    Examples
    --------
    >>> from skcalib.recalibration import HistogramBinning
    >>> hb = HistogramBinning(n_bins=2).fit([0.1, 0.8, 0.6, 0.4], [0, 1, 1, 0])
    >>> hb.bin_values_
    array([0., 1.])
    >>> hb.predict_proba([0.3, 0.9])
    array([[1., 0.],
           [0., 1.]])
    """

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "strategy": [StrOptions({"uniform", "quantile"})],
        "bins": ["array-like", None],
        "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
    }
    _native = "proba"
    _keep_binary_2d = True

    def __init__(
        self,
        *,
        n_bins=15,
        strategy="uniform",
        bins=None,
        multiclass="auto",
        input="auto",
        classes=None,
    ):
        self.n_bins = n_bins
        self.strategy = strategy
        self.bins = bins
        self.multiclass = multiclass
        self.input = input
        self.classes = classes

    def _mode(self, n_classes):
        if self.multiclass == "auto":
            return "binary" if n_classes == 2 else "top_label"
        return self.multiclass

    def _fit(self, data):
        if self.bins is not None:
            check_bin_edges(self.bins)
        P, k = data.Z, data.n_classes
        mode = self._mode(k)
        if P.ndim == 1 and mode != "binary":
            P = two_columns(P)  # (a 2-column X is kept as given)
        stats = compute_bin_stats(
            data.y,
            P,
            n_bins=self.n_bins,
            strategy=self.strategy,
            bins=self.bins,
            multiclass="auto" if mode == "binary" else mode,
            sample_weight=data.sample_weight,
            labels=np.arange(k),
        )
        pick = (lambda a: a) if mode == "classwise" else (lambda a: a[0])
        self.multiclass_ = mode
        self.bin_edges_ = pick(stats.bin_edges.copy())
        self.bin_counts_ = pick(stats.count.copy())
        self.bin_values_ = _fill_empty(pick(stats.prob_true), self.bin_edges_)

    def _predict_native(self, P):
        mode = self.multiclass_
        dt = P.dtype
        if mode == "binary":
            p = P if P.ndim == 1 else P[:, 1]
            q = self.bin_values_[assign_bins(p, self.bin_edges_)].astype(dt)
            return two_columns(q)
        if P.ndim == 1:
            P = two_columns(P)
        n, k = P.shape
        if mode == "classwise":
            Q = np.empty((n, k), dtype=dt)
            for j in range(k):
                Q[:, j] = self.bin_values_[j][assign_bins(P[:, j], self.bin_edges_[j])]
            return renormalise(Q)
        am = P.argmax(axis=1)
        rows = np.arange(n)
        conf = P[rows, am]
        q = self.bin_values_[assign_bins(conf, self.bin_edges_)]
        # the other classes share 1 - q in proportion to their probabilities
        others = P.astype(np.float64)
        others[rows, am] = 0.0
        rest = others.sum(axis=1)
        scale = np.divide(1 - q, rest, out=np.zeros(n), where=rest > 0)
        others *= scale[:, None]
        flat = rest <= 0  # a one-hot row: the rest is shared equally
        if flat.any():
            others[flat] = ((1 - q[flat]) / (k - 1))[:, None]
        others[rows, am] = q
        return others.astype(dt)


class ScalingBinning(BaseCalibrator):
    r"""The scaling-binning calibrator (Kumar, Liang and Ma 2019).

    Three steps, one-vs-rest for every class (the positive class only for binary
    problems), following the authors' ``PlattBinnerMarginalCalibrator``
    (``p-lambda/verified_calibration``, ``calibration/calibrators.py``):

    1. scaling: Platt scaling of the class probability,
       :math:`g(p) = \sigma(a \log\frac{p}{1-p} + c)`, by weighted maximum likelihood
       (with a ridge of ``1e-6 * a**2 / 2`` added to the mean log loss, so that
       separable data give a finite slope);
    2. binning: equal-mass bins of the scaled values :math:`g(p_i)` (the quantile bins
       of the binning core of :mod:`skcalib.metrics`);
    3. discretisation: a probability in bin :math:`B_m` is replaced by the mean of the
       scaled values in the bin, :math:`\sum_{i \in B_m} w_i g(p_i) / \sum_{i \in B_m}
       w_i` (the ``prob_pred`` of :func:`~skcalib.metrics.reliability_curve` on the
       scaled values).

    The output takes at most ``n_bins`` values per class, so its calibration error can
    be measured reliably, while keeping the sample efficiency of scaling.  As in the
    authors' code, all three steps use all the calibration data.  Multiclass rows are
    renormalised to sum to 1.  Empty bins (ties) predict the midpoint of their edges.

    Parameters
    ----------
    n_bins : int, default=10
        Number of equal-mass bins per class.
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
    coef_ : ndarray of shape (n_groups, 2)
        Platt coefficients ``(a, c)`` of each class (one row for binary problems).
    bin_edges_ : ndarray of shape (n_groups, n_bins + 1)
        Edges of the bins of the scaled values.
    bin_values_ : ndarray of shape (n_groups, n_bins)
        The value each bin predicts.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    References
    ----------
    A. Kumar, P. Liang and T. Ma (2019). Verified uncertainty calibration. NeurIPS 32.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.recalibration import ScalingBinning
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)
    >>> y = (rng.random(1000) < p ** 2).astype(int)
    >>> sb = ScalingBinning(n_bins=5).fit(p, y)
    >>> np.unique(sb.predict_proba(p)[:, 1]).size
    5
    """

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
    }
    _native = "proba"

    def __init__(self, *, n_bins=10, input="auto", classes=None):
        self.n_bins = n_bins
        self.input = input
        self.classes = classes

    @staticmethod
    def _features(p):
        eps = np.finfo(np.float64).eps
        q = np.clip(p.astype(np.float64), eps, 1 - eps)
        return np.column_stack([np.log(q) - np.log1p(-q), np.ones(q.shape[0])])

    def _groups(self, P):
        return [P] if P.ndim == 1 else [P[:, j] for j in range(P.shape[1])]

    def _fit(self, data):
        P, y, sw = data.Z, data.y, data.sample_weight
        groups = self._groups(P)
        targets = [y == 1] if P.ndim == 1 else [y == j for j in range(P.shape[1])]
        coefs, edges, values = [], [], []
        for p, t in zip(groups, targets, strict=True):
            F = self._features(p)
            coef = fit_logistic(F, t, sw, l2=PLATT_L2)
            g = logistic_predict(F, coef)
            stats = compute_bin_stats(
                t.astype(np.intp),
                g,
                n_bins=self.n_bins,
                strategy="quantile",
                sample_weight=sw,
                labels=[0, 1],
            )
            coefs.append(coef)
            edges.append(stats.bin_edges[0])
            values.append(_fill_empty(stats.prob_pred[0], stats.bin_edges[0]))
        self.coef_ = np.array(coefs)
        self.bin_edges_ = np.array(edges)
        self.bin_values_ = np.array(values)

    def _predict_native(self, P):
        groups = self._groups(P)
        cols = []
        for j, p in enumerate(groups):
            g = logistic_predict(self._features(p), self.coef_[j])
            cols.append(self.bin_values_[j][assign_bins(g, self.bin_edges_[j])])
        if P.ndim == 1:
            return two_columns(cols[0].astype(P.dtype))
        return renormalise(np.column_stack(cols).astype(P.dtype))
