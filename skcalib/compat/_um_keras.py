r"""The streaming (Keras) metrics of Google's ``uncertainty_metrics`` 0.0.82, in NumPy.

``ExpectedCalibrationError`` (``tensorflow/calibration.py``),
``OracleCollaborativeAccuracy`` (``tensorflow/accuracy.py``) and ``AUC``
(``tensorflow/auc.py``, a plain subclass of ``tf.keras.metrics.AUC``), with the Keras
metric protocol: ``update_state`` accumulates, ``result`` reads the state,
``reset_state`` (and the old name ``reset_states``) zeroes it, and calling the object
runs ``update_state`` and returns ``result()``.  Re-exported by
:mod:`skcalib.compat.uncertainty_metrics`.

Binning (``ExpectedCalibrationError``, ``OracleCollaborativeAccuracy``)
----------------------------------------------------------------------
TensorFlow's ``tf.histogram_fixed_width_bins(x, [0, 1], nbins=M)``:
``bin = clip(floor(M x), 0, M - 1)``, computed in the metric's dtype (float32 by
default, as Keras).  Bins are left-closed; ``p = 1`` falls into the last bin (the NumPy
functions of the reference, :func:`skcalib.compat.uncertainty_metrics.ece`, give it an
extra bin) and values ``<= 0`` into the first.  The per-bin state is a
:class:`skcalib.metrics.BinStats` (``count``, ``sum_proba`` = the summed confidences,
``sum_true`` = the number correct); every ``update_state`` merges the statistics of its
batch into it, so the result of several updates equals that of one update on the
concatenated data.

Where the reference computes garbage, a ValueError is raised instead: NaN or infinite
probabilities or binning scores (undefined bin ids in TensorFlow), labels that are not
numbers, a ``custom_binning_score`` of the wrong length, ``AUC`` predictions outside
``[0, 1]``.  ``sample_weight`` is accepted and ignored by ``ExpectedCalibrationError``
and ``OracleCollaborativeAccuracy`` (as in the reference), and used by ``AUC``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from ..metrics import BinStats
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._um_common import real, two_columns

__all__ = ["AUC", "ExpectedCalibrationError", "OracleCollaborativeAccuracy"]


def _check_dtype(dtype):
    """The metric's float dtype: float32 by default (the Keras default), or float64."""
    try:
        dt = np.dtype(np.float32 if dtype is None else getattr(dtype, "as_numpy_dtype", dtype))
    except TypeError:
        dt = None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
    return dt


_POSITIVE = [Interval(numbers.Integral, 1, None, closed="left")]


def tf_fixed_width_bins(x, num_bins):
    """``tf.histogram_fixed_width_bins(x, [0, 1], nbins=num_bins)``.

    ``clip(floor(num_bins * x), 0, num_bins - 1)`` in the dtype of ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat._um_keras import tf_fixed_width_bins
    >>> tf_fixed_width_bins(np.array([0.0, 0.3, 0.99, 1.0]), 10)
    array([0, 3, 9, 9])
    """
    x = np.asarray(x)
    scaled = np.floor(x * x.dtype.type(num_bins))
    return np.clip(scaled, 0, num_bins - 1).astype(np.intp)


class ExpectedCalibrationError:
    r"""Streaming top-label ECE of uncertainty_metrics 0.0.82 (a Keras metric there).

    .. math::

        \mathrm{ECE} = \sum_{b:\, n_b > 0} \frac{n_b}{N}
            \left\lvert \frac{c_b}{n_b} - \frac{s_b}{n_b} \right\rvert

    with, per bin ``b`` of the TensorFlow fixed-width rule, ``n_b`` the count, ``c_b``
    the number of correct predictions and ``s_b`` the sum of the confidences.  Empty
    bins are skipped; without data the result is 0.

    Parameters
    ----------
    num_bins : int, default=15
        Number of equal-width bins on [0, 1].
    name : str, default=None
        Name of the metric (Keras' ``name``; default ``"expected_calibration_error"``).
    dtype : {None, "float32", "float64"}, default=None
        Dtype of the state and of the binning arithmetic (None: float32, as Keras).

    Attributes
    ----------
    counts, correct_sums, prob_sums : ndarray of shape (num_bins,)
        The per-bin state: number of predictions, number correct, sum of confidences.
    bin_stats : skcalib.metrics.BinStats
        The same state as skcalib's sufficient statistics (float64).
    variables : list of ndarray
        ``[correct_sums, prob_sums, counts]``, Keras' variables.

    See Also
    --------
    skcalib.metrics.expected_calibration_error : The ECE of skcalib (right-closed bins).
    skcalib.streaming.CalibrationAccumulator : Streaming calibration metrics of skcalib.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import ExpectedCalibrationError
    >>> ece = ExpectedCalibrationError(num_bins=10, dtype="float64")
    >>> p = [0.51, 0.45, 0.39, 0.66, 0.68, 0.29, 0.81, 0.85]
    >>> y = [0, 0, 0, 1, 0, 1, 1, 1]
    >>> ece.update_state(y[:4], p[:4])
    >>> round(ece(y[4:], p[4:]), 10)  # update_state, then result()
    0.145
    >>> ece.counts
    array([0., 0., 0., 0., 0., 2., 3., 1., 2., 0.])
    """

    _name = "expected_calibration_error"

    @validate_params(
        {"num_bins": _POSITIVE, "name": [str, None], "dtype": "no_validation"},
        prefer_skip_nested_validation=True,
    )
    def __init__(self, num_bins=15, name=None, dtype=None):
        self.num_bins = int(num_bins)
        self.name = name if name is not None else self._name
        self.dtype = _check_dtype(dtype)
        self.reset_state()

    def reset_state(self):
        """Zero the state."""
        self.bin_stats = self._batch_stats(np.zeros(0, np.intp), np.zeros(0), np.zeros(0))

    reset_states = reset_state

    def _batch_stats(self, b, conf, correct):
        M = self.num_bins
        sums = [np.bincount(b, w, M).astype(np.float64)[None, :] for w in (None, conf, correct)]
        edges = np.linspace(0.0, 1.0, M + 1)[None, :]
        return BinStats(*sums, bin_edges=edges, total_weight=float(b.shape[0]))

    @property
    def counts(self):
        """Number of predictions in each bin."""
        return self.bin_stats.count[0].astype(self.dtype)

    @property
    def correct_sums(self):
        """Number of correct predictions in each bin."""
        return self.bin_stats.sum_true[0].astype(self.dtype)

    @property
    def prob_sums(self):
        """Sum of the confidences (top-label probabilities) in each bin."""
        return self.bin_stats.sum_proba[0].astype(self.dtype)

    @property
    def variables(self):
        """The state arrays, in Keras' order."""
        return [self.correct_sums, self.prob_sums, self.counts]

    def update_state(self, labels, probabilities, custom_binning_score=None, **kwargs):
        """Accumulate a batch.

        Parameters
        ----------
        labels : array-like
            Integer class indices (floats are truncated to integers, as the
            reference's cast), flattened to ``(N,)``.
        probabilities : array-like
            ``(N, K)`` probabilities; any other shape is reshaped to ``(N, -1)``, and one
            column ``p`` becomes ``[1 - p, p]``.
        custom_binning_score : array-like of shape (N,), default=None
            Score that chooses the bin of each prediction instead of its confidence (the
            confidence is still what is summed).
        **kwargs : dict
            Ignored (e.g. ``sample_weight``), as in the reference.
        """
        y = real(labels, "labels").reshape(-1)
        n = y.shape[0]
        P = real(probabilities, "probabilities", dtype=self.dtype)
        if P.ndim != 2 or P.shape[0] != n:
            if n == 0 or P.size % n:
                raise ValueError(
                    f"probabilities of shape {P.shape} cannot be reshaped to ({n}, -1) "
                    f"for {n} labels"
                )
            P = P.reshape(n, -1)
        P = two_columns(P)
        pred = np.argmax(P, axis=1)
        conf = P[np.arange(n), pred]
        correct = pred == y.astype(np.int64)
        score = conf
        if custom_binning_score is not None:
            score = real(custom_binning_score, "custom_binning_score", dtype=self.dtype).ravel()
            if score.shape[0] != n:
                raise ValueError(f"custom_binning_score has {score.shape[0]} values for {n} labels")
        b = tf_fixed_width_bins(score, self.num_bins)
        batch = self._batch_stats(b, conf.astype(np.float64), correct)
        self.bin_stats = self.bin_stats.merge(batch)

    def result(self):
        """The ECE of everything accumulated since the last reset (0.0 without data).

        Returns
        -------
        float
            The value.
        """
        n, c, s = self.counts, self.correct_sums, self.prob_sums
        keep = n != 0
        if not keep.any():
            return 0.0
        n, c, s = n[keep], c[keep], s[keep]
        return float(np.sum(n / n.sum() * np.abs(c / n - s / n)))

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then ``result()``."""
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self):
        return f"{type(self).__name__}(num_bins={self.num_bins}, dtype={self.dtype.name!r})"


class OracleCollaborativeAccuracy(ExpectedCalibrationError):
    r"""Oracle-collaborative accuracy of uncertainty_metrics 0.0.82 (streaming).

    The ``O = int(N * fraction)`` least confident predictions are referred to an oracle,
    which answers them correctly; the model answers the rest.  Walking the bins of
    :class:`ExpectedCalibrationError` from the least confident one, whole bins go to
    the oracle while its budget lasts (``collab_b = n_b``), the bin in which it ends is
    split (``collab_b = r + (n_b - r) c_b / n_b`` for the oracle's ``r`` predictions
    there) and the remaining bins keep their correct count; the result is
    ``sum_b collab_b / N``.  ``fraction=0`` gives the accuracy.

    Parameters
    ----------
    fraction : float in [0, 1], default=0.01
        Fraction of the predictions referred to the oracle (truncated to a whole number).
    num_bins : int, default=100
        Number of equal-width confidence bins.
    name : str, default=None
        Name of the metric.
    dtype : {None, "float32", "float64"}, default=None
        Dtype of the state (None: float32).

    Attributes
    ----------
    counts, correct_sums, prob_sums : ndarray of shape (num_bins,)
        As :class:`ExpectedCalibrationError`.
    collab_correct_sums : ndarray of shape (num_bins,)
        The per-bin correct answers of the collaboration, set by :meth:`result`.

    See Also
    --------
    skcalib.metrics.oracle_collaborative_accuracy : The version of skcalib (right-closed
        bins, an exact version without bins, sample weights).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import OracleCollaborativeAccuracy
    >>> oca = OracleCollaborativeAccuracy(fraction=0.4, num_bins=10, dtype="float64")
    >>> oca([0, 0, 0, 1, 0, 1, 1, 1], [0.51, 0.45, 0.39, 0.66, 0.68, 0.29, 0.81, 0.85])
    0.7916666666666666
    """

    _name = "oracle_collaborative_accuracy"

    @validate_params(
        {"fraction": [Interval(numbers.Real, 0, 1, closed="both")], "num_bins": _POSITIVE,
         "name": [str, None], "dtype": "no_validation"},
        prefer_skip_nested_validation=True,
    )  # fmt: skip
    def __init__(self, fraction=0.01, num_bins=100, name=None, dtype=None):
        self.fraction = float(fraction)
        super().__init__(num_bins=num_bins, name=name, dtype=dtype)

    def reset_state(self):
        """Zero the state."""
        super().reset_state()
        self.collab_correct_sums = np.zeros(self.num_bins, dtype=self.dtype)

    reset_states = reset_state

    @property
    def variables(self):
        """The state arrays, in Keras' order."""
        return [self.correct_sums, self.prob_sums, self.counts, self.collab_correct_sums]

    def result(self):
        """The oracle-collaborative accuracy of everything accumulated (0.0 without data).

        Returns
        -------
        float
            The value.
        """
        counts, correct = self.counts, self.correct_sums
        total = counts.sum()
        budget = int(total * self.dtype.type(self.fraction))
        collab = np.zeros_like(counts)
        so_far = 0
        for b in range(self.num_bins):
            n_b = counts[b]
            if so_far + n_b <= budget:
                collab[b] = n_b
                so_far += int(n_b)
            elif so_far < budget:
                r = budget - so_far
                collab[b] = r + (n_b - r) * (correct[b] / n_b)
                so_far = budget
            else:
                collab[b] = correct[b]
        self.collab_correct_sums = collab
        if total == 0:
            return 0.0
        keep = counts > 0
        return float(collab[keep].sum() / counts[keep].sum())

    def __repr__(self):
        return (
            f"{type(self).__name__}(fraction={self.fraction}, num_bins={self.num_bins}, "
            f"dtype={self.dtype.name!r})"
        )


class AUC:
    r"""``tf.keras.metrics.AUC``, uncertainty_metrics 0.0.82's ``AUC``.

    Streaming area under the ROC or precision-recall curve, approximated on a grid of
    thresholds: a prediction is positive at threshold ``t`` when ``y_pred > t``
    (strict), and the confusion counts at every threshold accumulate over
    ``update_state`` calls.  The thresholds are ``(i + 1) / (num_thresholds - 1)`` for
    ``i < num_thresholds - 2`` (or the sorted ``thresholds``), with ``-1e-7`` and
    ``1 + 1e-7`` added at the ends.  ``summation_method="interpolation"`` averages the
    heights of neighbouring thresholds (for ``curve="PR"`` it interpolates precision as
    Davis and Goadrich, 2006), ``"minoring"``/``"majoring"`` take their min/max.

    The reference subclasses ``tf.keras.metrics.AUC`` without adding code, so its
    signature is that of the installed TensorFlow; this is the complete one (TensorFlow
    2.6 and later).  With ``multi_label=False`` the ``(N, L)`` labels and predictions are
    flattened into one problem, each prediction of column ``l`` weighted by
    ``label_weights[l]``; with ``multi_label=True`` each column has its own counts
    (shape ``(num_thresholds, L)``) and its own AUC, and the result is their mean, or
    their ``label_weights``-weighted mean (0 when the weights sum to 0).

    Parameters
    ----------
    num_thresholds : int > 1, default=200
        Number of thresholds (ignored when ``thresholds`` is given).
    curve : {"ROC", "PR"}, default="ROC"
        The curve whose area is computed.
    summation_method : {"interpolation", "minoring", "majoring"}, default="interpolation"
        Riemann sum of the curve.
    name : str, default=None
        Name of the metric.
    dtype : {None, "float32", "float64"}, default=None
        Dtype of the confusion counts (None: float32).
    thresholds : array-like of float in [0, 1], default=None
        Explicit thresholds.
    multi_label : bool, default=False
        One AUC per label column (inputs of shape ``(N, L)``), averaged.
    num_labels : int, default=None
        ``L``, to create the per-label state before the first update (only with
        ``multi_label=True``; otherwise taken from the first batch).
    label_weights : array-like of shape (L,), default=None
        Non-negative weight of each label column (see above).
    from_logits : bool, default=False
        ``y_pred`` are logits: the sigmoid is applied first.

    Attributes
    ----------
    thresholds : list of float
        The thresholds, ends included.
    true_positives, true_negatives, false_positives, false_negatives : ndarray
        Weighted confusion counts at each threshold, shape ``(num_thresholds,)`` or
        ``(num_thresholds, L)`` with ``multi_label`` (None until the first update when
        ``num_labels`` is not given).

    See Also
    --------
    sklearn.metrics.roc_auc_score : The exact ROC AUC.
    skcalib.metrics.uncertainty_auc : How well an uncertainty score detects errors.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import AUC
    >>> auc = AUC(num_thresholds=3)
    >>> auc.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    >>> auc.result()
    0.75
    >>> per_label = AUC(num_thresholds=5, multi_label=True)
    >>> per_label([[0, 0], [0, 0], [1, 1], [1, 1]],
    ...           [[0, 0.1], [0.5, 0.2], [0.3, 0.3], [0.9, 0.4]])  # (0.875 + 1) / 2
    0.9375
    """

    _COUNTS = ("true_positives", "true_negatives", "false_positives", "false_negatives")

    @validate_params(
        {
            "num_thresholds": [Interval(numbers.Integral, 2, None, closed="left")],
            "curve": [StrOptions({"ROC", "PR"})],
            "summation_method": [StrOptions({"interpolation", "minoring", "majoring"})],
            "name": [str, None],
            "dtype": "no_validation",
            "thresholds": ["array-like", None],
            "multi_label": ["boolean"],
            "num_labels": [*_POSITIVE, None],
            "label_weights": ["array-like", None],
            "from_logits": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        self.curve, self.summation_method = curve, summation_method
        self.name = name if name is not None else "auc"
        self.dtype = _check_dtype(dtype)
        if thresholds is None:
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        else:
            t = real(thresholds, "thresholds").reshape(-1)
            if ((t < 0) | (t > 1)).any():
                raise ValueError("thresholds must lie in [0, 1]")
            inner = sorted(float(v) for v in t)
        self.num_thresholds = len(inner) + 2
        self.thresholds = [0.0 - 1e-7, *inner, 1.0 + 1e-7]
        if num_labels is not None and not multi_label:
            raise ValueError("num_labels is needed only when multi_label is True")
        self.multi_label, self.from_logits, self.label_weights = multi_label, from_logits, None
        if label_weights is not None:
            lw = real(label_weights, "label_weights")
            if lw.ndim != 1 or lw.shape[0] == 0:
                raise ValueError(f"label_weights must be 1-D and non-empty, got shape {lw.shape}")
            if (lw < 0).any():
                raise ValueError("All values of label_weights must be non-negative")
            if num_labels is not None and lw.shape[0] != num_labels:
                raise ValueError(
                    f"label_weights has {lw.shape[0]} values but num_labels is {num_labels}"
                )
            self.label_weights = lw.astype(self.dtype)
        self.num_labels = num_labels
        self.reset_state()

    def reset_state(self):
        """Zero the confusion counts."""
        if self.multi_label and self.num_labels is None:
            shape = None  # built by the first update, as Keras
        elif self.multi_label:
            shape = (self.num_thresholds, self.num_labels)
        else:
            shape = (self.num_thresholds,)
        for name in self._COUNTS:
            setattr(self, name, None if shape is None else np.zeros(shape, dtype=self.dtype))

    reset_states = reset_state

    @property
    def variables(self):
        """The state arrays, in Keras' order."""
        return [getattr(self, name) for name in self._COUNTS]

    def _inputs(self, y_true, y_pred, sample_weight):
        yt = np.asarray(y_true)
        if yt.dtype.kind not in "biuf":
            raise ValueError(f"y_true must contain numbers or booleans, got dtype {yt.dtype}")
        yp = real(y_pred, "y_pred")
        per_label = self.multi_label or self.label_weights is not None
        if per_label:
            if yp.ndim != 2 or yt.shape != yp.shape:
                raise ValueError(
                    "y_true and y_pred must both have shape (N, L) with multi_label or "
                    f"label_weights, got {yt.shape} and {yp.shape}"
                )
            L = yp.shape[1]
            if self.label_weights is not None and self.label_weights.shape[0] != L:
                raise ValueError(
                    f"label_weights has {self.label_weights.shape[0]} values but the "
                    f"inputs have {L} labels"
                )
            if self.multi_label and self.num_labels is not None and self.num_labels != L:
                raise ValueError(f"the inputs have {L} labels, the metric {self.num_labels}")
        elif yt.size != yp.size:
            raise ValueError(f"y_true has {yt.size} values but y_pred has {yp.size}")
        if self.from_logits:
            yp = special.expit(yp)
        if ((yp < 0) | (yp > 1)).any():
            raise ValueError("y_pred must lie in [0, 1]")
        if sample_weight is None:
            w = np.ones(yp.shape)
        else:
            w = real(sample_weight, "sample_weight")
            if w.ndim == yp.ndim - 1 and w.ndim > 0:
                w = w[..., None]  # one weight per example, as Keras expands it
            try:
                w = np.broadcast_to(w, yp.shape)
            except ValueError as exc:
                raise ValueError(
                    f"sample_weight of shape {w.shape} does not broadcast to {yp.shape}"
                ) from exc
            if (w < 0).any():
                raise ValueError("sample_weight must be non-negative")
        if self.label_weights is not None and not self.multi_label:
            w = w * self.label_weights.astype(np.float64)
        return yt != 0, yp, w

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the confusion counts of a batch.

        Parameters
        ----------
        y_true : array-like
            Labels; any non-zero value is positive.  Flattened, or of shape ``(N, L)``
            with ``multi_label`` or ``label_weights``.
        y_pred : array-like of the same shape
            Scores in [0, 1] (logits with ``from_logits``).
        sample_weight : array-like, default=None
            Non-negative weight of each prediction (broadcast to its shape; a weight
            per example with ``(N, L)`` inputs).
        """
        pos, yp, w = self._inputs(y_true, y_pred, sample_weight)
        if not self.multi_label:  # one column
            pos, yp, w = (a.reshape(-1, 1) for a in (pos, yp, w))
        elif self.true_positives is None:
            self.num_labels = yp.shape[1]
            self.reset_state()
        for j in range(yp.shape[1]):
            at = (slice(None), j) if self.multi_label else slice(None)
            for mask, hit, miss in (
                (pos[:, j], self.true_positives, self.false_negatives),
                (~pos[:, j], self.false_positives, self.true_negatives),
            ):
                order = np.argsort(yp[mask, j], kind="stable")
                cw = np.concatenate([[0.0], np.cumsum(w[mask, j][order])])
                # the weight of the predictions <= each threshold (negative there)
                below = cw[np.searchsorted(yp[mask, j][order], self.thresholds, side="right")]
                hit[at] += (cw[-1] - below).astype(self.dtype)
                miss[at] += below.astype(self.dtype)

    def result(self):
        """The area under the curve of the accumulated counts.

        Returns
        -------
        float
            The value (the mean or weighted mean of the per-label areas with
            ``multi_label``; 0.0 before the first update).
        """
        if self.true_positives is None:
            return 0.0
        tp, fp = self.true_positives.astype(np.float64), self.false_positives.astype(np.float64)
        fn, tn = self.false_negatives.astype(np.float64), self.true_negatives.astype(np.float64)

        def div(a, b):
            out = np.zeros(np.broadcast(a, b).shape)
            np.divide(a, b, out=out, where=b != 0)
            return out

        if self.curve == "PR" and self.summation_method == "interpolation":
            dtp = tp[:-1] - tp[1:]
            P = tp + fp
            dP = P[:-1] - P[1:]
            slope = div(dtp, np.maximum(dP, 0))
            intercept = tp[1:] - slope * P[1:]
            both = (P[:-1] > 0) & (P[1:] > 0)
            ratio = np.where(both, div(P[:-1], np.maximum(P[1:], 0)), 1.0)
            with np.errstate(divide="ignore"):
                log_ratio = np.log(ratio)
            terms = div(slope * (dtp + intercept * log_ratio), np.maximum(tp[1:] + fn[1:], 0))
        else:
            recall = div(tp, tp + fn)
            if self.curve == "ROC":
                x, y = div(fp, fp + tn), recall
            else:
                x, y = recall, div(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[:-1] + y[1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = np.minimum(y[:-1], y[1:])
            else:
                heights = np.maximum(y[:-1], y[1:])
            terms = (x[:-1] - x[1:]) * heights
        if not self.multi_label:
            return float(np.sum(terms))
        by_label = np.sum(terms, axis=0)
        if self.label_weights is None:
            return float(np.mean(by_label))
        lw = self.label_weights.astype(np.float64)
        total = float(np.sum(lw))
        return float(np.sum(by_label * lw) / total) if total != 0 else 0.0

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then ``result()``."""
        self.update_state(*args, **kwargs)
        return self.result()

    def __repr__(self):
        return (
            f"AUC(num_thresholds={self.num_thresholds}, curve={self.curve!r}, "
            f"summation_method={self.summation_method!r}, multi_label={self.multi_label})"
        )
