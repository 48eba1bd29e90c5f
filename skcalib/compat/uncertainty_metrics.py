r"""Reproduce the calibration errors of Google's ``uncertainty_metrics`` 0.0.82.

The ensemble functions of its TensorFlow backend (``negative_waic``,
``importance_sampling_cross_validation``, ``ensemble_cross_entropy``,
``gibbs_cross_entropy``, ``model_uncertainty`` and the diversity functions) are
reproduced too, in NumPy; their differences from :mod:`skcalib.metrics` are listed in
the private module ``skcalib/compat/_um_ensembles.py`` and in ``doc/compat.rst``.

The functions here have the signatures, argument order (``labels`` first, then
``probs``), defaults and numerical behaviour of ``uncertainty_metrics.numpy``
(``general_calibration_error.py`` of version 0.0.82), so that numbers published with
that library can be reproduced without installing it.  For new work use
:mod:`skcalib.metrics` (:func:`skcalib.metrics.general_calibration_error` and its named
special cases), whose binning, normalisation and input handling follow the papers and
scikit-learn; ``doc/compat.rst`` lists every difference with a table of numbers.

Reproduced behaviour of the reference (all of it deliberate)
-------------------------------------------------------------
1. **Input shapes.**  ``probs`` of shape ``(N,)`` or ``(N, 1)`` is the probability of
   class 1 of a binary problem and becomes ``[[1 - p, p]]`` (``K = 2``); ``(N, K)``
   with ``K >= 2`` is used as is.  ``labels`` are integer *column indices*
   ``0..K-1`` (not arbitrary class labels).  Probabilities are not validated: no range
   check, no row-sum check (rows need not sum to 1), no clipping.
2. **Bins** (:mod:`skcalib.compat._um_binning`): left-closed
   ``np.digitize`` bins.  ``"even"`` uses the upper edges ``linspace(0, 1, M+1)[1:]``
   and puts ``p >= 1`` into an **extra bin** ``[1, inf)`` (``M + 1`` bins); float
   edges such as ``0.30000000000000004`` (``M = 10``) move the literals 0.3, 0.6 and
   0.7 one bin down.  ``"adaptive"`` uses ``get_adaptive_bins`` (edges at the sorted
   values ``round(linspace(0, n, M, endpoint=False))``, round-half-to-even), computed
   per group on the kept values.
3. **Threshold** keeps the probabilities *strictly* greater than ``threshold``, so the
   default ``0.0`` still drops exact zeros, and NaN probabilities are silently dropped
   (a NaN in a row also makes that row's argmax, so the row leaves the top-label
   variants).
4. **Normalisation by the kept count.**  Each group (the pooled values, or one class)
   is weighted by ``n_gb / N_g`` where ``N_g`` is the number of values of that group
   *kept* by the threshold, not the number of samples.
5. **Class-conditional averaging over all K columns**, including classes with no kept
   value (which contribute 0).  With ``max_prob=True`` the class of a row is its
   argmax (first maximal column on ties), so every predicted class gets weight
   ``1/K`` whatever its size.
6. **eps.**  The bin counts get ``eps = 2.220446049250313e-16`` added before dividing
   (so empty bins give 0, not NaN), and the weights use the same ``n_gb + eps``.
7. **l2** is ``sqrt`` of the count-weighted mean of squared gaps, the square root being
   taken after the class average.  There is no ``max`` norm (MCE).
8. ``datapoints_per_bin`` sets ``num_bins = int(N / datapoints_per_bin)`` (``N`` rows
   before thresholding; 0 gives a single bin) and requires ``"adaptive"``.
9. Empty input returns ``0.0``.

Where the reference crashes or silently computes garbage, this module raises a
:class:`ValueError` instead (the reference raises ``UnboundLocalError``,
``IndexError`` or returns a wrong number): unknown ``binning_scheme`` or ``norm`` (the
reference checks ``norm`` only when a group is non-empty); labels that are not integers
(integer-valued floats such as ``1.0``, which the reference rejects with
``IndexError``, and booleans are accepted as indices here), negative or ``>= K``
(negative indices silently wrap around in the reference), not 1-D (one-hot label
matrices silently give wrong numbers in the reference) or of a different length than
``probs``; ``probs`` with more than 2 dimensions, no column, or an infinite entry
(the reference returns ``inf``/``nan``); ``num_bins < 1`` with ``"even"``;
``datapoints_per_bin`` with ``"even"``.  Empty 1-D ``probs`` return ``0.0`` (the
reference raises ``IndexError``).  The functions return Python floats.
:class:`GeneralCalibrationError` *accumulates* over ``update_state`` calls (the
reference's recomputes from the last call only).

Every other public name of ``uncertainty_metrics.numpy`` and
``uncertainty_metrics.tensorflow`` 0.0.82 is here too: the streaming
:class:`ExpectedCalibrationError`, :class:`OracleCollaborativeAccuracy` and
:class:`AUC`, :func:`bayesian_expected_calibration_error`, the scoring rules, SPCE and
CCE, and the three plots (with functions returning the curves they draw).

References
----------
Nixon, Dusenberry, Zhang, Jerfel and Tran, "Measuring Calibration in Deep Learning",
CVPR Workshops 2019.  https://arxiv.org/abs/1904.01685

uncertainty_metrics 0.0.82, ``uncertainty_metrics/numpy/general_calibration_error.py``
(Apache-2.0), https://github.com/google/uncertainty-metrics
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from . import _um_ensembles, _um_keras, _um_scoring, _um_semiparametric, _um_visualization
from ._um_binning import (
    um_adaptive_upper_edges,
    um_assign_bins,
    um_bin_stats,
    um_even_upper_edges,
)
from ._um_common import int_labels, probs_2d
from ._um_ensembles import *  # noqa: F403  (the TensorFlow backend's ensemble functions)
from ._um_keras import *  # noqa: F403  (its streaming metrics)
from ._um_scoring import *  # noqa: F403  (its scoring rules and Bayesian ECE)
from ._um_semiparametric import *  # noqa: F403  (SPCE and CCE of the NumPy backend)
from ._um_visualization import *  # noqa: F403  (plots: matplotlib is imported when drawn)

__all__ = [
    "gce", "general_calibration_error", "ece", "rmsce", "root_mean_squared_calibration_error",
    "sce", "static_calibration_error", "ace", "adaptive_calibration_error", "tace",
    "thresholded_adaptive_calibration_error", "compute_all_metrics", "ALL_METRIC_PARAMETERS",
    "GeneralCalibrationError", *_um_semiparametric.__all__, *_um_visualization.__all__,
    *_um_keras.__all__, *_um_scoring.__all__, *_um_ensembles.__all__,
]  # fmt: skip

#: float64 machine epsilon, added by the reference to every bin count.
_EPS = float(np.finfo(np.float64).eps)

_DATA = {"labels": ["array-like"], "probs": ["array-like"]}
_NUM_BINS = [Interval(numbers.Integral, 0, None, closed="left")]
_THRESHOLD = [Interval(numbers.Real, None, None, closed="neither")]
_DPB = [Interval(numbers.Real, 0, None, closed="neither"), None]
_OPTIONS = {
    "binning_scheme": [StrOptions({"even", "adaptive"})],
    "max_prob": ["boolean"],
    "class_conditional": ["boolean"],
    "norm": [StrOptions({"l1", "l2"})],
    "num_bins": _NUM_BINS,
    "threshold": _THRESHOLD,
    "datapoints_per_bin": _DPB,
}


def _check_swapped(labels, probs):
    """ValueError when ``labels`` are float probabilities and ``probs`` integer labels.

    uncertainty_metrics' README calls ``um.ece(probs, labels)``, the wrong way round.
    """
    try:
        y, P = np.asarray(labels), np.asarray(probs)
    except ValueError:
        return
    if y.dtype.kind != "f" or P.dtype.kind not in "iu" or P.ndim != 1:
        return
    if y.ndim == 2 or (y.ndim == 1 and np.any(y != np.floor(y))):
        raise ValueError(
            f"labels (float, shape {y.shape}) and probs (integers, shape {P.shape}) look "
            "swapped: the order is (labels, probs), e.g. ece(labels, probs), labels first "
            "as in uncertainty_metrics' code (its README's um.ece(probs, labels) has them "
            "the wrong way round)"
        )


def _inputs(labels, probs):
    _check_swapped(labels, probs)
    P = probs_2d(probs, allow_nan=True)
    return int_labels(labels, P.shape[:1], P.shape[1]), P


def _sums_error(sums, total, *, norm, bins=None):
    """One group's ``sum_b (n'_b / N_g) |gap_b|`` (l1) or ``... gap_b^2`` (l2) from its
    per-bin ``sums`` (count, sum of values, sum of outcomes; shape ``(3, B)``) and its
    kept count ``total``.

    With a list ``bins``, the group's ``(counts, confidences, accuracies)`` (counts
    without the reference's eps) are appended to it.
    """
    counts = sums[0] + _EPS
    # overflow only for absurd values (probs are not range-checked); the caller turns a
    # non-finite result into a ValueError
    with np.errstate(over="ignore", invalid="ignore"):
        confidences, accuracies = sums[1] / counts, sums[2] / counts
        if bins is not None:
            bins.append((sums[0], confidences, accuracies))
        gaps = accuracies - confidences
        normed = gaps if norm == "l1" else np.square(gaps)
        return np.sum(np.abs(normed * (counts / total)))


def _group_error(v, t, *, binning_scheme, num_bins, norm, bins=None):
    """One group's error (:func:`_sums_error`) of its kept values ``v`` and outcomes ``t``."""
    if v.shape[0] == 0:
        if bins is not None:
            bins.append((np.zeros(num_bins if binning_scheme == "even" else max(num_bins, 1)),) * 3)
        return 0.0
    even = binning_scheme == "even"
    upper = um_even_upper_edges(num_bins) if even else um_adaptive_upper_edges(v, num_bins)
    stats = um_bin_stats(v, t, upper, num_bins)
    sums = np.stack([stats.count[0], stats.sum_proba[0], stats.sum_true[0]])
    return _sums_error(sums, stats.total_weight, norm=norm, bins=bins)


def _groups(y, P, *, max_prob, class_conditional):
    """The (values, outcomes) pairs of each group: one, or one per column of ``P``."""
    n, k = P.shape
    if max_prob:
        pred = np.argmax(P, axis=1)
        v, t = P[np.arange(n), pred], pred == y
        return [(v[pred == j], t[pred == j]) for j in range(k)] if class_conditional else [(v, t)]
    if class_conditional:
        return [(P[:, j], y == j) for j in range(k)]
    return [(P.ravel(), (y[:, None] == np.arange(k)).ravel())]


def _continued(sums, b, v, t):
    """The per-bin ``sums`` (count, sum of ``v``, sum of ``t``; shape ``(3, B)``)
    continued by the values ``v`` in bins ``b``, in order.

    ``np.bincount`` adds its weights in input order, so each sum is the one a single pass
    over all the data gives, bit for bit (as the reference's one ``np.bincount``).
    """
    idx = np.concatenate([np.arange(sums.shape[1]), b])
    columns = zip(sums, (np.ones(v.shape[0]), v, t), strict=True)
    return np.stack([np.bincount(idx, np.concatenate(c), sums.shape[1]) for c in columns])


def _combine(errors, *, norm):
    """The class average (``errors`` already divided by ``K``) or the one group's error,
    with the l2 root."""
    error = np.sum(errors) if len(errors) > 1 else errors[0]
    error = np.sqrt(error) if norm == "l2" else error
    if not np.isfinite(error):
        raise ValueError(
            "the calibration error is not finite: probs contains values too large to "
            "be summed (probabilities are not range-checked, as in the reference)"
        )
    return float(error)


def _gce(
    y, P, *, binning_scheme, max_prob, class_conditional, norm, num_bins, threshold, bins=None
):
    """General calibration error of validated input (P of shape (N, K), y indices).

    The options are those of :func:`gce`, keyword-only so that every call names them.
    With a list ``bins``, each group's per-bin ``(counts, confidences, accuracies)`` is
    appended to it (one group, or one per class).
    """
    if P.shape[0] == 0:
        return 0.0
    groups = _groups(y, P, max_prob=max_prob, class_conditional=class_conditional)
    binning = {"binning_scheme": binning_scheme, "num_bins": num_bins, "norm": norm, "bins": bins}
    errors = []
    for v, t in groups:
        keep = v > float(threshold)
        errors.append(_group_error(v[keep], t[keep], **binning) / len(groups))
    return _combine(errors, norm=norm)


def _num_bins(n_rows, *, binning_scheme, num_bins, datapoints_per_bin):
    """The number of bins (``n_rows / datapoints_per_bin`` when that is set)."""
    if datapoints_per_bin is not None:
        if binning_scheme != "adaptive":
            raise ValueError("To set datapoints_per_bin, binning_scheme must be 'adaptive'.")
        return int(n_rows / datapoints_per_bin)
    if binning_scheme == "even" and num_bins < 1:
        raise ValueError(f"num_bins must be >= 1 with binning_scheme='even', got {num_bins}")
    return num_bins


# --------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------


@validate_params({**_DATA, **_OPTIONS}, prefer_skip_nested_validation=True)
def gce(
    labels,
    probs,
    binning_scheme,
    max_prob,
    class_conditional,
    norm,
    num_bins=30,
    threshold=0.0,
    datapoints_per_bin=None,
):
    r"""General calibration error exactly as uncertainty_metrics 0.0.82 computes it.

    With groups ``g`` (one pooled group, or one per class when ``class_conditional``;
    ``G`` = 1 or ``K``), ``N_g`` the number of values of group ``g`` kept by the
    threshold and, per bin, ``n_gb`` the count, ``acc_gb`` the mean outcome and
    ``conf_gb`` the mean value (``eps`` added to the counts, see the module notes):

    .. math::

        \mathrm{GCE}_{\ell_1} = \frac{1}{G}\sum_g\sum_b \frac{n_{gb}}{N_g}
            \lvert \mathrm{acc}_{gb} - \mathrm{conf}_{gb}\rvert, \qquad
        \mathrm{GCE}_{\ell_2} = \Bigl(\frac{1}{G}\sum_g\sum_b \frac{n_{gb}}{N_g}
            (\mathrm{acc}_{gb} - \mathrm{conf}_{gb})^2\Bigr)^{1/2}.

    What is binned: ``max_prob=True, class_conditional=False``: the top-label
    confidence against correctness (ECE).  ``max_prob=False,
    class_conditional=False``: all ``N K`` entries pooled against the one-hot labels.
    ``class_conditional=True``: column ``j`` against ``labels == j`` (or, with
    ``max_prob``, the rows predicted as ``j``).

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.
    binning_scheme : {"even", "adaptive"}
        Equal-width bins (with the extra ``[1, inf)`` bin) or ``get_adaptive_bins``.
    max_prob : bool
        Use only the largest probability of each row.
    class_conditional : bool
        Bin each class separately and average over the ``K`` classes.
    norm : {"l1", "l2"}
        Mean absolute gap (ECE-like) or root of the mean squared gap (RMSCE-like).
    num_bins : int, default=30
        Number of bins ``M`` (0 gives a single bin with ``"adaptive"``).
    threshold : float, default=0.0
        Keep only values strictly greater than ``threshold``.
    datapoints_per_bin : float or None, default=None
        If given, ``num_bins = int(N / datapoints_per_bin)``; needs ``"adaptive"``.

    Returns
    -------
    float
        The calibration error (0.0 for empty input).

    See Also
    --------
    skcalib.metrics.general_calibration_error : The definition of skcalib itself (right-closed
        bins, normalisation by ``N``, sample weights, any label encoding).

    References
    ----------
    Nixon et al., "Measuring Calibration in Deep Learning", CVPR Workshops 2019.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import gce
    >>> labels = [1, 0, 1, 1, 0, 1, 0, 0]
    >>> probs = [.91, .32, .66, .67, .57, .98, .41, .19]
    >>> gce(labels, probs, 'even', True, False, 'l1')
    0.18125
    >>> gce(labels, probs, 'adaptive', False, True, 'l2')
    0.3287286114715297
    """
    y, P = _inputs(labels, probs)
    binning = {"binning_scheme": binning_scheme, "num_bins": num_bins}
    binning["num_bins"] = _num_bins(P.shape[0], **binning, datapoints_per_bin=datapoints_per_bin)
    options = {"max_prob": max_prob, "class_conditional": class_conditional, "norm": norm}
    return _gce(y, P, threshold=threshold, **binning, **options)


general_calibration_error = gce


@validate_params({**_DATA, "num_bins": _NUM_BINS}, prefer_skip_nested_validation=True)
def ece(labels, probs, num_bins=30):
    r"""Expected calibration error of uncertainty_metrics 0.0.82.

    ``gce(labels, probs, 'even', max_prob=True, class_conditional=False, norm='l1')``:

    .. math::

        \mathrm{ECE} = \sum_b \frac{n_b}{N'}\,\lvert \mathrm{acc}_b - \mathrm{conf}_b\rvert

    over the top-label confidences ``> 0`` (``N'`` of them) in left-closed equal-width
    bins plus an extra bin for confidence 1.

    Differences from :func:`skcalib.metrics.expected_calibration_error`: default 30
    bins (skcalib: 15); left-closed bins and the extra ``[1, inf)`` bin (skcalib:
    right-closed, 1 in the last bin); a binary problem is measured top-label
    (skcalib's default ``multiclass="auto"`` measures the positive-class probability);
    labels are column indices; no validation of the probabilities; no weights.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.
    num_bins : int, default=30
        Number of bins ``M`` (0 gives a single bin with ``"adaptive"``).

    Returns
    -------
    float
        The calibration error (0.0 for empty input).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import ece
    >>> probs = [[0.31, 0.32, 0.27], [0.37, 0.33, 0.30], [0.30, 0.31, 0.39],
    ...          [0.61, 0.38, 0.01], [0.10, 0.65, 0.25], [0.91, 0.05, 0.04]]
    >>> labels = [1, 0, 0, 1, 0, 0]
    >>> ece(labels, probs, num_bins=10)
    0.37833333333333...
    >>> ece([0, 1], [1.0, 0.95], num_bins=10)  # 1.0 has a bin of its own
    0.525
    """
    return gce(labels, probs, "even", True, False, "l1", num_bins)


@validate_params(
    {**_DATA, "num_bins": _NUM_BINS, "datapoints_per_bin": _DPB},
    prefer_skip_nested_validation=True,
)
def rmsce(labels, probs, num_bins=30, datapoints_per_bin=None):
    r"""Root-mean-squared calibration error of uncertainty_metrics 0.0.82.

    ``gce(labels, probs, 'adaptive', max_prob=True, class_conditional=False,
    norm='l2')``:

    .. math::

        \mathrm{RMSCE} = \Bigl(\sum_b \frac{n_b}{N'}
            (\mathrm{acc}_b - \mathrm{conf}_b)^2\Bigr)^{1/2}

    over the top-label confidences in ``get_adaptive_bins`` equal-mass bins.

    Differences from :func:`skcalib.metrics.root_mean_squared_calibration_error`:
    default 30 bins (skcalib: 15); ``get_adaptive_bins`` edges (round-half-to-even
    positions, left-closed bins; skcalib: inverted-CDF quantiles, right-closed bins);
    top-label for binary problems; ``datapoints_per_bin``; no weights.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.
    num_bins : int, default=30
        Number of bins ``M`` (0 gives a single bin with ``"adaptive"``).
    datapoints_per_bin : float or None, default=None
        If given, ``num_bins = int(N / datapoints_per_bin)``.

    Returns
    -------
    float
        The calibration error (0.0 for empty input).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import rmsce
    >>> probs = [[0.31, 0.32, 0.27], [0.37, 0.33, 0.30], [0.30, 0.31, 0.39],
    ...          [0.61, 0.38, 0.01], [0.10, 0.65, 0.25], [0.91, 0.05, 0.04]]
    >>> rmsce([1, 0, 0, 1, 0, 0], probs, num_bins=10)
    0.54986361945486...
    """
    return gce(labels, probs, "adaptive", True, False, "l2", num_bins, 0.0, datapoints_per_bin)


root_mean_squared_calibration_error = rmsce


@validate_params({**_DATA, "num_bins": _NUM_BINS}, prefer_skip_nested_validation=True)
def sce(labels, probs, num_bins=30):
    r"""Static calibration error of uncertainty_metrics 0.0.82.

    ``gce(labels, probs, 'even', max_prob=False, class_conditional=True, norm='l1')``:

    .. math::

        \mathrm{SCE} = \frac{1}{K}\sum_{k=1}^{K}\sum_b \frac{n_{kb}}{N_k}
            \lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb}\rvert

    where ``N_k`` is the number of rows with ``p_k > 0``.

    Differences from :func:`skcalib.metrics.static_calibration_error`: each class is
    normalised by its count of non-zero probabilities ``N_k`` (skcalib: by ``N``, so
    exact zeros count, as in Nixon et al.); bins as in :func:`ece`; 30 bins.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.
    num_bins : int, default=30
        Number of bins ``M`` (0 gives a single bin with ``"adaptive"``).

    Returns
    -------
    float
        The calibration error (0.0 for empty input).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import sce
    >>> sce([0, 1, 2], [[.2, .3, .5], [.1, .8, .1], [.3, .3, .4]], num_bins=10)
    0.28888888888888...
    """
    return gce(labels, probs, "even", False, True, "l1", num_bins)


static_calibration_error = sce


@validate_params({**_DATA, "num_bins": _NUM_BINS}, prefer_skip_nested_validation=True)
def ace(labels, probs, num_bins=30):
    r"""Adaptive calibration error of uncertainty_metrics 0.0.82.

    ``gce(labels, probs, 'adaptive', max_prob=False, class_conditional=True,
    norm='l1')``: the formula of :func:`sce` with ``get_adaptive_bins`` equal-mass bins
    computed per class on its probabilities ``> 0``.

    Differences from :func:`skcalib.metrics.adaptive_calibration_error`: edges
    (round-half-to-even positions, left-closed bins; skcalib: inverted-CDF quantiles,
    right-closed bins); exact zeros dropped and normalisation by the kept count per
    class (skcalib: all values binned, normalisation by ``N``); 30 bins.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.
    num_bins : int, default=30
        Number of bins ``M`` (0 gives a single bin with ``"adaptive"``).

    Returns
    -------
    float
        The calibration error (0.0 for empty input).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import ace
    >>> probs = [[0.31, 0.32, 0.27], [0.37, 0.33, 0.30], [0.30, 0.31, 0.39],
    ...          [0.61, 0.38, 0.01], [0.10, 0.65, 0.25], [0.91, 0.05, 0.04]]
    >>> ace([1, 0, 0, 1, 0, 0], probs, num_bins=10)
    0.39666666666666...
    """
    return gce(labels, probs, "adaptive", False, True, "l1", num_bins)


adaptive_calibration_error = ace


@validate_params(
    {**_DATA, "num_bins": _NUM_BINS, "threshold": _THRESHOLD},
    prefer_skip_nested_validation=True,
)
def tace(labels, probs, num_bins=30, threshold=0.01):
    r"""Thresholded adaptive calibration error of uncertainty_metrics 0.0.82.

    ``gce(labels, probs, 'adaptive', max_prob=False, class_conditional=True,
    norm='l1', threshold=threshold)``:

    .. math::

        \mathrm{TACE} = \frac{1}{K}\sum_{k=1}^{K}\sum_b \frac{n_{kb}}{N_k}
            \lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb}\rvert,
        \qquad N_k = \#\{i : p_{ik} > \epsilon\}.

    Differences from :func:`skcalib.metrics.thresholded_adaptive_calibration_error`:
    the sum of class ``k`` is divided by its kept count ``N_k`` (skcalib: by ``N``, as
    the ``1/(N K)`` of Nixon et al.), so removing small probabilities *raises* the
    weight of the remaining ones here; edges as in :func:`ace`; 30 bins.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.
    num_bins : int, default=30
        Number of bins ``M`` (0 gives a single bin with ``"adaptive"``).
    threshold : float, default=0.01
        Keep only probabilities strictly greater than ``threshold``.

    Returns
    -------
    float
        The calibration error (0.0 for empty input).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import tace
    >>> probs = [[0.31, 0.32, 0.27], [0.37, 0.33, 0.30], [0.30, 0.31, 0.39],
    ...          [0.61, 0.38, 0.01], [0.10, 0.65, 0.25], [0.91, 0.05, 0.04]]
    >>> tace([1, 0, 0, 1, 0, 0], probs, num_bins=10)
    0.41
    """
    return gce(labels, probs, "adaptive", False, True, "l1", num_bins, threshold)


thresholded_adaptive_calibration_error = tace

#: The 32 variants of :func:`compute_all_metrics`, in the reference's order:
#: ``itertools.product(binning_scheme, max_prob, class_conditional, threshold, norm)``.
ALL_METRIC_PARAMETERS = tuple(
    itertools.product(["even", "adaptive"], [True, False], [True, False], [0.0, 0.01], ["l1", "l2"])
)


@validate_params(_DATA, prefer_skip_nested_validation=True)
def compute_all_metrics(labels, probs):
    """Compute all 32 general calibration errors of uncertainty_metrics 0.0.82 (30 bins).

    The order is that of ``itertools.product(['even', 'adaptive'], [True, False]
    (max_prob), [True, False] (class_conditional), [0.0, 0.01] (threshold), ['l1',
    'l2'])``, available as :data:`ALL_METRIC_PARAMETERS`.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer column indices of the true classes (``0..K-1``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities; 1-D or one column: probability of class 1 of a binary problem.

    Returns
    -------
    ndarray of shape (32,)
        The 32 calibration errors, in the order of :data:`ALL_METRIC_PARAMETERS`.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import compute_all_metrics
    >>> values = compute_all_metrics([1, 0, 1, 1, 0, 1, 0, 0],
    ...                              [.91, .32, .66, .67, .57, .98, .41, .19])
    >>> values.shape
    (32,)
    >>> float(values[4])  # even, max_prob, not class-conditional, threshold 0, l1
    0.18125
    """
    y, P = _inputs(labels, probs)
    names = ("binning_scheme", "max_prob", "class_conditional", "threshold", "norm")
    variants = [dict(zip(names, v, strict=True)) for v in ALL_METRIC_PARAMETERS]
    return np.array([_gce(y, P, num_bins=30, **options) for options in variants])


class GeneralCalibrationError:
    r"""The general calibration error of uncertainty_metrics 0.0.82, accumulating.

    The options and the number are those of :func:`gce`.  Unlike the reference, whose
    ``update_state`` recomputes the metric from its last call only (so the README's loop
    over ensemble members keeps the last member), ``update_state`` here *accumulates*:
    after several calls, :meth:`result` equals :func:`gce` on the concatenated data,
    bit for bit, and the per-bin arrays describe all of it.  With ``"even"`` bins the
    state is each group's per-bin count, sum of values and sum of outcomes (``O(K M)``
    memory), continued in input order by every update (so the float sums are those of
    one pass over all the data) and read in ``O(K M)``.  With ``"adaptive"`` bins the
    edges are order statistics of all the data, so the batches are kept (``O(N K)``
    memory) and the number is computed once when first read after an update.  Either
    way ``n`` updates cost about one update of all the rows (the cost is linear in the
    number of updates, not quadratic).

    Parameters
    ----------
    binning_scheme : {"even", "adaptive"}
        Equal-width or equal-mass (``get_adaptive_bins``) bins.
    max_prob : bool
        Bin the top-label confidence only.
    class_conditional : bool
        Bin each class separately and average over the ``K`` columns.
    norm : {"l1", "l2"}
        Mean absolute or root mean squared gap.
    num_bins : int, default=30
        Number of bins.
    threshold : float, default=0.0
        Keep only the probabilities strictly greater than ``threshold``.
    datapoints_per_bin : float, default=None
        If given, ``num_bins = int(N / datapoints_per_bin)`` with ``N`` all the rows seen
        so far (``"adaptive"`` only).
    distribution : object, default=None
        Free-text metadata, stored and unused (as in the reference).

    Attributes
    ----------
    calibration_error : float or None
        The last :meth:`result` (None before any update).
    counts, confidences, accuracies, calibration_errors : ndarray or None
        Per-bin number of values (without the reference's eps), mean value, mean
        outcome and ``accuracies - confidences`` of everything seen; shape ``(B,)``
        for one group (``class_conditional=False``), ``(K, B)`` per class otherwise
        (the reference keeps the last group's bins only).  ``B`` is ``num_bins``, or
        ``num_bins + 1`` when an ``"even"`` value equals 1 (the extra bin).
    num_bins : int
        The number of bins used (from ``datapoints_per_bin`` when given).

    See Also
    --------
    gce : The same number in one call.
    skcalib.streaming.CalibrationAccumulator : Mergeable calibration statistics of skcalib.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import GeneralCalibrationError, gce
    >>> rng = np.random.default_rng(0)
    >>> members = rng.dirichlet(np.ones(3), size=(4, 50))  # 4 ensemble members
    >>> labels = rng.integers(0, 3, size=50)
    >>> metric = GeneralCalibrationError("even", True, False, "l1", num_bins=10)
    >>> for probs in members:
    ...     metric.update_state(labels, probs)
    >>> metric.result() == gce(np.tile(labels, 4), members.reshape(-1, 3),
    ...                        "even", True, False, "l1", num_bins=10)
    True
    >>> int(metric.counts.sum())
    200
    """

    @validate_params(
        {**_OPTIONS, "distribution": "no_validation"}, prefer_skip_nested_validation=True
    )
    def __init__(
        self,
        binning_scheme,
        max_prob,
        class_conditional,
        norm,
        num_bins=30,
        threshold=0.0,
        datapoints_per_bin=None,
        distribution=None,
    ):
        binning = {"binning_scheme": binning_scheme, "num_bins": num_bins}
        _num_bins(0, **binning, datapoints_per_bin=datapoints_per_bin)  # the checks
        self.binning_scheme, self.norm = binning_scheme, norm
        self.max_prob, self.class_conditional = bool(max_prob), bool(class_conditional)
        self.num_bins, self.threshold = int(num_bins), float(threshold)
        self.datapoints_per_bin, self.distribution = datapoints_per_bin, distribution
        self.reset_state()

    def reset_state(self):
        """Forget all data: the result and every per-bin array go back to None."""
        self._labels, self._probs, self._n_rows, self._computed = [], [], 0, (None,) * 5
        self._n_columns = self._sums = self._kept = None

    reset_states = reset_state

    def update_state(self, labels, probs):
        """Add a batch (``"even"``: to the per-bin sums; ``"adaptive"``: to the kept data).

        Parameters
        ----------
        labels : array-like of shape (N,)
            Integer column indices of the true classes (``0..K-1``).
        probs : array-like of shape (N,), (N, 1) or (N, K)
            Probabilities; 1-D or one column: probability of class 1 of a binary
            problem.  ``K`` must be the same in every call.
        """
        y, P = _inputs(labels, probs)
        if self._n_columns not in (None, P.shape[1]):
            raise ValueError(
                f"probs has {P.shape[1]} columns but the earlier batches had {self._n_columns}"
            )
        self._n_columns, self._computed = P.shape[1], None
        self._n_rows += P.shape[0]
        if self.datapoints_per_bin is not None:
            self.num_bins = int(self._n_rows / self.datapoints_per_bin)
        if self.binning_scheme == "adaptive":  # edges: order statistics of all the data
            self._labels.append(y)
            self._probs.append(P)
            return
        groups = _groups(y, P, max_prob=self.max_prob, class_conditional=self.class_conditional)
        if self._sums is None:
            self._sums = np.zeros((len(groups), 3, self.num_bins + 1))  # + the extra bin
            self._kept = np.zeros(len(groups), dtype=np.int64)
        upper = um_even_upper_edges(self.num_bins)
        for g, (v, t) in enumerate(groups):
            keep = v > self.threshold
            self._sums[g] = _continued(
                self._sums[g], um_assign_bins(v[keep], upper), v[keep], t[keep]
            )
            self._kept[g] += np.count_nonzero(keep)

    def _even_error(self, bins):
        """The error of the accumulated per-bin sums of each group (``"even"``)."""
        errors = []
        for sums, kept in zip(self._sums, self._kept, strict=True):
            if kept == 0:
                bins.append((np.zeros(self.num_bins),) * 3)
                errors.append(0.0)
                continue
            sums = sums if sums[0, -1] > 0 else sums[:, :-1]  # the extra bin when used
            errors.append(
                _sums_error(sums, float(kept), norm=self.norm, bins=bins) / len(self._kept)
            )
        return _combine(errors, norm=self.norm)

    def _state(self):
        """``(calibration_error, counts, confidences, accuracies, calibration_errors)``."""
        if self._computed is None:
            groups = []
            if self.binning_scheme == "even":
                error = self._even_error(groups) if self._n_rows else 0.0
            else:
                y, P = np.concatenate(self._labels), np.concatenate(self._probs)
                self._labels, self._probs = [y], [P]  # one array: the next read is one pass
                names = ("binning_scheme", "max_prob", "class_conditional", "norm", "num_bins")
                options = {name: getattr(self, name) for name in (*names, "threshold")}
                error = _gce(y, P, bins=groups, **options)
            if not groups:  # no row at all
                size = max(self.num_bins, 1)
                groups = [(np.zeros(size),) * 3] * (
                    self._n_columns if self.class_conditional else 1
                )
            arrays = np.zeros((3, len(groups), max(g[0].shape[0] for g in groups)))
            for i, group in enumerate(groups):
                for j, values in enumerate(group):
                    arrays[j, i, : values.shape[0]] = values
            counts, conf, acc = arrays if self.class_conditional else arrays[:, 0]
            self._computed = (error, counts, conf, acc, acc - conf)
        return self._computed

    @property
    def calibration_error(self):
        """The calibration error of everything seen (None before any update)."""
        return self._state()[0]

    @property
    def counts(self):
        """Number of values in each bin, without the reference's eps (None before any update)."""
        return self._state()[1]

    @property
    def confidences(self):
        """Mean value in each bin (None before any update)."""
        return self._state()[2]

    @property
    def accuracies(self):
        """Mean outcome in each bin (None before any update)."""
        return self._state()[3]

    @property
    def calibration_errors(self):
        """``accuracies - confidences`` in each bin (None before any update)."""
        return self._state()[4]

    def result(self):
        """The calibration error of everything seen (None before any update).

        Returns
        -------
        float or None
            The value (None before any update).
        """
        return self.calibration_error

    def __repr__(self):
        return (
            f"GeneralCalibrationError({self.binning_scheme!r}, {self.max_prob}, "
            f"{self.class_conditional}, {self.norm!r}, num_bins={self.num_bins})"
        )
