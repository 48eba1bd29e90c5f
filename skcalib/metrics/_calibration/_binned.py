"""The calibration-error family: ECE, MCE, RMSCE, SCE, ACE, TACE and their general form.

Every function here validates its options at the boundary, builds the per-bin sufficient
statistics with the one binning core (:mod:`skcalib._core._binning`) and aggregates
them; nothing else is binned anywhere, so the printed errors, :func:`reliability_curve`
and the diagrams drawn from it always agree.
"""

from __future__ import annotations

import numbers
from dataclasses import fields, replace

import numpy as np
from scipy.special import betaincinv, ndtri

from ..._core._array_api import get_namespace_and_device, max_float_dtype
from ..._core._binning import (
    MULTICLASS_OPTIONS,
    STRATEGIES,
    BinStats,
    bin_stats,
    stats_of_input,
)
from ..._core._validation import check_classification_input
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import ReliabilityCurveResult

__all__ = [
    "adaptive_calibration_error",
    "calibration_error_from_bin_stats",
    "expected_calibration_error",
    "general_calibration_error",
    "max_calibration_error",
    "monotonic_sweep_calibration_error",
    "reliability_curve",
    "root_mean_squared_calibration_error",
    "static_calibration_error",
    "thresholded_adaptive_calibration_error",
]

NORMS = ("l1", "l2", "max")
INTERVALS = ("wilson", "clopper_pearson")

_DATA = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
}
_N_BINS = {"n_bins": [Interval(numbers.Integral, 1, None, closed="left")]}
_MULTICLASS = {"multiclass": [StrOptions(set(MULTICLASS_OPTIONS))]}
_THRESHOLD = {"threshold": [Interval(numbers.Real, 0, 1, closed="left")]}


# --------------------------------------------------------------------------------------
# aggregation of the per-bin statistics
# --------------------------------------------------------------------------------------


def _error(stats, norm, debias=False):
    """Calibration error of :class:`BinStats` (options validated by the caller)."""
    W = stats.total_weight
    G = stats.bin_edges.shape[0]
    diff = stats.sum_true - stats.sum_proba
    if norm == "l1":
        return float(np.abs(diff).sum() / (W * G))
    nz = stats.count > 0
    if not nz.any():
        return 0.0
    cnt = stats.count[nz]
    gap = diff[nz] / cnt
    if norm == "max":
        return float(np.abs(gap).max())
    sq = cnt * gap**2
    if debias:
        acc = stats.sum_true[nz] / cnt
        n_eff = stats.effective_count[nz]
        big = n_eff > 1
        var = np.zeros_like(cnt)
        var[big] = acc[big] * (1 - acc[big]) / (n_eff[big] - 1)
        sq = np.where(big, sq - cnt * var, 0.0)
    total = sq.sum() / (W * G)
    return float(np.sqrt(max(total, 0.0)))


@validate_params(
    {
        "stats": [BinStats],
        "norm": [StrOptions(set(NORMS))],
        "debias": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def calibration_error_from_bin_stats(stats, *, norm="l1", debias=False):
    r"""Calibration error of precomputed :class:`BinStats`.

    With ``G`` groups (1, or the number of classes for class-wise calibration), total
    sample weight ``W``, and per bin the weight ``n_gb``, mean outcome ``acc_gb`` and
    mean probability ``conf_gb``:

    .. math::

        \mathrm{CE}_{\ell_1} = \frac{1}{G}\sum_{g,b} \frac{n_{gb}}{W}
            \lvert \mathrm{acc}_{gb} - \mathrm{conf}_{gb} \rvert, \quad
        \mathrm{CE}_{\ell_2} = \Bigl(\frac{1}{G}\sum_{g,b}\frac{n_{gb}}{W}
            (\mathrm{acc}_{gb} - \mathrm{conf}_{gb})^2\Bigr)^{1/2}, \quad
        \mathrm{CE}_{\max} = \max_{g,b:\,n_{gb}>0}
            \lvert \mathrm{acc}_{gb} - \mathrm{conf}_{gb} \rvert.

    With ``debias=True`` (``norm="l2"`` only) each squared gap is reduced by
    ``acc_gb (1 - acc_gb) / (m_gb - 1)``, the debiased estimator of Kumar, Liang and Ma
    (2019), where ``m_gb`` is the bin's effective sample size
    (:attr:`BinStats.effective_count`: the number of samples without weights, and
    ``(sum w)^2 / sum w^2`` with weights, so that the result does not depend on the
    scale of the weights).  Bins with ``m_gb <= 1`` contribute 0 and the sum is clipped
    at 0 before the square root.

    Parameters
    ----------
    stats : BinStats
        Statistics from :func:`compute_bin_stats` (or merged ones).
    norm : {"l1", "l2", "max"}, default="l1"
        How the per-bin gaps are aggregated.
    debias : bool, default=False
        Debiased estimator of the squared error; requires ``norm="l2"``.

    Returns
    -------
    float
        The calibration error, in [0, 1].

    References
    ----------
    Kumar, Liang and Ma, "Verified Uncertainty Calibration", NeurIPS 2019.

    Examples
    --------
    >>> from skcalib.metrics import calibration_error_from_bin_stats, compute_bin_stats
    >>> stats = compute_bin_stats([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> calibration_error_from_bin_stats(stats)
    0.275
    >>> calibration_error_from_bin_stats(stats, norm="max")
    0.3
    """
    _check_debias(debias, norm)
    return _error(stats, norm, debias)


def _check_debias(debias, norm):
    if debias and norm != "l2":
        raise ValueError(f"debias=True requires norm='l2', got norm={norm!r}")


def _binned_error(y_true, y_proba, *, norm, debias=False, **options):
    return _error(stats_of_input(y_true, y_proba, **options), norm, debias)


# --------------------------------------------------------------------------------------
# the general form
# --------------------------------------------------------------------------------------


@validate_params(
    {
        **_DATA,
        **_N_BINS,
        **_MULTICLASS,
        **_THRESHOLD,
        "strategy": [StrOptions(set(STRATEGIES))],
        "norm": [StrOptions(set(NORMS))],
        "debias": ["boolean"],
        "bins": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def general_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=15,
    strategy="uniform",
    multiclass="auto",
    norm="l1",
    threshold=0.0,
    debias=False,
    bins=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""General calibration error: the whole binned calibration-error family.

    Predictions are grouped (``multiclass``), binned (``n_bins``, ``strategy``,
    ``bins``), and the gaps between the observed frequency and the mean predicted
    probability of each bin are aggregated (``norm``):

    .. math::

        \mathrm{CE}_{\ell_1} = \frac{1}{G}\sum_{g=1}^{G}\sum_{b=1}^{B}
            \frac{n_{gb}}{N}\,\lvert \mathrm{acc}_{gb} - \mathrm{conf}_{gb} \rvert,
        \qquad
        \mathrm{CE}_{\ell_2} = \Bigl(\frac{1}{G}\sum_{g,b}\frac{n_{gb}}{N}
            (\mathrm{acc}_{gb} - \mathrm{conf}_{gb})^2\Bigr)^{1/2},
        \qquad
        \mathrm{CE}_{\max} = \max_{g,b:\,n_{gb}>0}\lvert \mathrm{acc}_{gb}-\mathrm{conf}_{gb}\rvert,

    where ``N`` is the total sample weight, ``n_gb`` the weight in bin ``b`` of group
    ``g``, ``acc_gb`` the weighted mean outcome and ``conf_gb`` the weighted mean
    predicted probability in that bin.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels (ints, strings, bools, pandas Series ...).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the positive class (1-D, binary), or one column per
        class in ``labels`` order, as returned by ``predict_proba``.  Rows must sum to 1
        within 3.45e-4 (float32 precision, for any dtype).
    n_bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        "uniform": edges ``np.linspace(0, 1, n_bins + 1)``, bins right-closed
        (``e_m < p <= e_{m+1}``, the first bin also holds 0), exactly as
        :func:`sklearn.calibration.calibration_curve`.  "quantile": equal-mass bins at
        the (weighted) inverted-CDF quantiles of the binned probabilities (per class
        for class-wise calibration; of the kept values with a ``threshold``).
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned (``G`` groups).  "auto": for a binary problem the probability of
        the positive class against the observed frequency of the positive class
        (``G = 1``; sklearn's ``calibration_curve``); otherwise top-label.
        "top_label": the confidence ``max_k p_k`` against whether the argmax (first
        maximal column on ties) is correct (``G = 1``; Guo et al. 2017).
        "classwise": every class's probability against the indicator of that class
        (``G = n_classes``; Nixon et al. 2019).
    norm : {"l1", "l2", "max"}, default="l1"
        How the per-bin gaps are aggregated (formulas above).
    threshold : float in [0, 1), default=0.0
        Only probabilities strictly greater than ``threshold`` are binned (0 keeps all).
        The normalisation still uses the total weight ``N`` of all samples (Nixon et al.).
    debias : bool, default=False
        With ``norm="l2"``, the debiased estimator of the squared error of Kumar, Liang
        and Ma (2019): each bin's squared gap minus ``acc (1 - acc) / (m_gb - 1)``, with
        ``m_gb`` the bin's effective sample size (the count without weights,
        ``(sum w)^2 / sum w^2`` with weights: the result does not depend on the scale of
        the weights); bins with ``m_gb <= 1`` contribute 0.
    bins : array-like of shape (n_bins + 1,), default=None
        Explicit increasing bin edges covering [0, 1]; overrides ``n_bins`` and
        ``strategy``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; weight ``w`` is the same as repeating the sample ``w``
        times (except for the effective sample size of ``debias``).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``; default the sorted unique labels of
        ``y_true``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The calibration error, in [0, 1].

    See Also
    --------
    reliability_curve : The per-bin values behind the error.
    calibration_error_from_bin_stats : The same aggregation of precomputed statistics.

    References
    ----------
    Guo, Pleiss, Sun and Weinberger, "On Calibration of Modern Neural Networks", ICML 2017.
    Nixon, Dusenberry, Zhang, Jerfel and Tran, "Measuring Calibration in Deep Learning",
    CVPR Workshops 2019.
    Kumar, Liang and Ma, "Verified Uncertainty Calibration", NeurIPS 2019.

    Examples
    --------
    >>> from skcalib.metrics import general_calibration_error
    >>> y_true = [0, 1, 1, 0]
    >>> y_proba = [0.1, 0.8, 0.6, 0.4]
    >>> general_calibration_error(y_true, y_proba, n_bins=2)
    0.275
    >>> general_calibration_error(y_true, y_proba, n_bins=2, norm="max")
    0.3
    """
    _check_debias(debias, norm)
    return _binned_error(
        y_true,
        y_proba,
        norm=norm,
        debias=debias,
        n_bins=n_bins,
        strategy=strategy,
        multiclass=multiclass,
        threshold=threshold,
        bins=bins,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


# --------------------------------------------------------------------------------------
# the monotonic sweep
# --------------------------------------------------------------------------------------


def _is_monotone(stats):
    """Whether every group's non-empty bins have non-decreasing observed frequencies."""
    for acc, cnt in zip(stats.prob_true, stats.count, strict=True):
        a = acc[cnt > 0]
        if (np.diff(a) < 0).any():
            return False
    return True


def _monotonic_sweep(data, multiclass):
    """Chosen number of bins and its :class:`BinStats` of validated ``data``.

    Equal-mass bins ``b = 1, 2, ...`` (the edges of ``strategy="quantile"``) are tried in
    turn; the sweep stops at the first ``b`` whose observed frequencies are not
    non-decreasing (or at the number of samples of positive weight) and returns the
    last monotone ``b``.
    """
    sw = data.sample_weight
    b_max = data.n_samples if sw is None else int(np.count_nonzero(sw > 0))
    b_max = max(b_max, 1)
    best = bin_stats(data, multiclass=multiclass, n_bins=1, strategy="quantile")
    b = 1
    while b < b_max:
        stats = bin_stats(data, multiclass=multiclass, n_bins=b + 1, strategy="quantile")
        if not _is_monotone(stats):
            break
        best, b = stats, b + 1
    return b, best


@validate_params(
    {**_DATA, **_MULTICLASS, "norm": [StrOptions(set(NORMS))]},
    prefer_skip_nested_validation=True,
)
def monotonic_sweep_calibration_error(
    y_true,
    y_proba,
    *,
    norm="l1",
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Monotonic-sweep calibration error (ECE_sweep of Roelofs et al., 2022).

    The calibration error with equal-mass bins whose number is chosen from the data: the
    largest number of bins ``b*`` such that the observed frequencies of the bins are
    monotonically non-decreasing.  For a calibrated model the true reliability curve is
    the identity, which is increasing, so more bins than the data can show to be
    monotone only add noise; the sweep keeps as many bins as the data supports.

    The rule, exactly: for ``b = 1, 2, ...`` the samples are binned into ``b``
    equal-mass bins (the edges of :func:`general_calibration_error` with
    ``strategy="quantile"``: weighted inverted-CDF quantiles, right-closed bins); the
    sweep stops at the first ``b`` whose non-empty bins do not have non-decreasing
    observed frequencies :math:`\mathrm{acc}_1 \le \mathrm{acc}_2 \le \dots` (in every
    class for ``multiclass="classwise"``), or at ``b`` = the number of samples of
    positive weight, and ``b*`` is the last monotone ``b`` (``b* >= 1``).  Then

    .. math::

        \mathrm{ECE}_{\mathrm{sweep}} = \mathrm{CE}_{\text{norm}}\bigl(
            b^* \text{ equal-mass bins}\bigr)
        = \Bigl(\frac{1}{G}\sum_{g}\sum_{b=1}^{b^*} \frac{n_{gb}}{N}
            \lvert \mathrm{acc}_{gb} - \mathrm{conf}_{gb} \rvert^p\Bigr)^{1/p},

    with ``p = 1`` for ``norm="l1"`` (the default), ``p = 2`` for ``norm="l2"`` (the
    paper's :math:`\ell_2` variant), and the largest gap for ``norm="max"``: the value of
    ``general_calibration_error(..., n_bins=b*, strategy="quantile", norm=norm)``.

    The sweep bins the data once per tried ``b``; it usually stops after a few dozen
    bins, but data whose outcomes are sorted by the probability (perfectly separable)
    keeps every ``b`` monotone and costs ``O(n^2)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the positive class (1-D, binary), or one column per
        class in ``labels`` order, as returned by ``predict_proba``.
    norm : {"l1", "l2", "max"}, default="l1"
        How the per-bin gaps are aggregated; see :func:`general_calibration_error`.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned; see :func:`general_calibration_error`.  With "classwise" one
        number of bins is chosen for all classes (monotone in every class).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The calibration error, in [0, 1].

    See Also
    --------
    general_calibration_error : The same error with a fixed number of bins.

    References
    ----------
    Roelofs, Cain, Shlens and Mozer, "Mitigating Bias in Calibration Error Estimation",
    AISTATS 2022.

    Examples
    --------
    >>> from skcalib.metrics import monotonic_sweep_calibration_error
    >>> y_true = [0, 0, 1, 0, 1, 1]
    >>> y_proba = [0.1, 0.2, 0.3, 0.6, 0.7, 0.9]
    >>> round(monotonic_sweep_calibration_error(y_true, y_proba), 4)
    0.1333
    """
    data = check_classification_input(
        y_true, y_proba, sample_weight=sample_weight, labels=labels, pos_label=pos_label
    )
    _, stats = _monotonic_sweep(data, multiclass)
    return _error(stats, norm)


# --------------------------------------------------------------------------------------
# the named members of the family
# --------------------------------------------------------------------------------------


@validate_params({**_DATA, **_N_BINS, **_MULTICLASS}, prefer_skip_nested_validation=True)
def expected_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=15,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Expected calibration error (ECE) with equal-width bins.

    .. math::

        \mathrm{ECE} = \sum_{b=1}^{B} \frac{n_b}{N}\,
            \lvert \mathrm{acc}_b - \mathrm{conf}_b \rvert

    with ``B = n_bins`` equal-width, right-closed bins (edges
    ``np.linspace(0, 1, n_bins + 1)``), ``n_b`` the (weighted) number of predictions in
    bin ``b``, ``N`` the total, ``acc_b`` the observed frequency and ``conf_b`` the mean
    predicted probability in the bin.  For a binary problem the positive-class
    probability is binned (as :func:`sklearn.calibration.calibration_curve`); for more
    classes the top-label confidence (Guo et al. 2017).  Same as
    ``general_calibration_error(strategy="uniform", norm="l1")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned; see :func:`general_calibration_error`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The ECE, in [0, 1].

    See Also
    --------
    general_calibration_error : The general form, with every option.

    References
    ----------
    Naeini, Cooper and Hauskrecht, "Obtaining Well Calibrated Probabilities Using
    Bayesian Binning", AAAI 2015.
    Guo, Pleiss, Sun and Weinberger, "On Calibration of Modern Neural Networks", ICML 2017.

    Examples
    --------
    >>> from skcalib.metrics import expected_calibration_error
    >>> expected_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    0.275
    >>> P = [[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6]]
    >>> expected_calibration_error([0, 2, 2], P, labels=[0, 1, 2], n_bins=10)  # top-label
    0.1666...
    """
    return _binned_error(
        y_true,
        y_proba,
        norm="l1",
        n_bins=n_bins,
        strategy="uniform",
        multiclass=multiclass,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


@validate_params({**_DATA, **_N_BINS, **_MULTICLASS}, prefer_skip_nested_validation=True)
def max_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=15,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Maximum calibration error (MCE): the largest gap over non-empty equal-width bins.

    .. math::

        \mathrm{MCE} = \max_{b:\,n_b>0} \lvert \mathrm{acc}_b - \mathrm{conf}_b \rvert

    Same as ``general_calibration_error(strategy="uniform", norm="max")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned; see :func:`general_calibration_error`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The MCE, in [0, 1].

    See Also
    --------
    general_calibration_error : The general form, with every option.

    References
    ----------
    Naeini, Cooper and Hauskrecht, "Obtaining Well Calibrated Probabilities Using
    Bayesian Binning", AAAI 2015.

    Examples
    --------
    >>> from skcalib.metrics import max_calibration_error
    >>> max_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    0.3
    """
    return _binned_error(
        y_true,
        y_proba,
        norm="max",
        n_bins=n_bins,
        strategy="uniform",
        multiclass=multiclass,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


@validate_params({**_DATA, **_N_BINS, **_MULTICLASS}, prefer_skip_nested_validation=True)
def root_mean_squared_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=15,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Root-mean-squared calibration error (RMSCE) with equal-mass bins.

    .. math::

        \mathrm{RMSCE} = \Bigl(\sum_{b=1}^{B} \frac{n_b}{N}
            (\mathrm{acc}_b - \mathrm{conf}_b)^2\Bigr)^{1/2}

    with ``B = n_bins`` equal-mass bins (weighted inverted-CDF quantiles of the binned
    probabilities).  Same as ``general_calibration_error(strategy="quantile",
    norm="l2")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned; see :func:`general_calibration_error`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The RMSCE, in [0, 1].

    See Also
    --------
    general_calibration_error : The general form, with every option.

    References
    ----------
    Hendrycks, Mu, Cubuk, Zoph, Gilmer and Lakshminarayanan, "AugMix: A Simple Data
    Processing Method to Improve Robustness and Uncertainty", ICLR 2020.
    Nixon, Dusenberry, Zhang, Jerfel and Tran, "Measuring Calibration in Deep Learning",
    CVPR Workshops 2019.

    Examples
    --------
    >>> from skcalib.metrics import root_mean_squared_calibration_error
    >>> root_mean_squared_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=4)
    0.3041...
    """
    return _binned_error(
        y_true,
        y_proba,
        norm="l2",
        n_bins=n_bins,
        strategy="quantile",
        multiclass=multiclass,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


@validate_params({**_DATA, **_N_BINS}, prefer_skip_nested_validation=True)
def static_calibration_error(
    y_true, y_proba, *, n_bins=15, sample_weight=None, labels=None, pos_label=None
):
    r"""Static calibration error (SCE): class-wise ECE with equal-width bins.

    .. math::

        \mathrm{SCE} = \frac{1}{K}\sum_{k=1}^{K}\sum_{b=1}^{B}\frac{n_{kb}}{N}
            \lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb} \rvert

    where the probability of every class ``k`` is binned on its own (``n_kb``
    predictions of class ``k`` in bin ``b``, ``acc_kb`` the frequency of class ``k``
    among them, ``conf_kb`` their mean probability of class ``k``).  Same as
    ``general_calibration_error(strategy="uniform", multiclass="classwise")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem given as 1-D probabilities (default: 1; the
        labels must then be in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The SCE, in [0, 1].

    See Also
    --------
    general_calibration_error : The general form, with every option.

    References
    ----------
    Nixon, Dusenberry, Zhang, Jerfel and Tran, "Measuring Calibration in Deep Learning",
    CVPR Workshops 2019.

    Examples
    --------
    >>> from skcalib.metrics import static_calibration_error
    >>> P = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    >>> static_calibration_error([0, 1, 2], P, n_bins=10)
    0.3555...
    """
    return _binned_error(
        y_true,
        y_proba,
        norm="l1",
        n_bins=n_bins,
        strategy="uniform",
        multiclass="classwise",
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


@validate_params({**_DATA, **_N_BINS}, prefer_skip_nested_validation=True)
def adaptive_calibration_error(
    y_true, y_proba, *, n_bins=15, sample_weight=None, labels=None, pos_label=None
):
    r"""Adaptive calibration error (ACE): class-wise ECE with equal-mass bins.

    .. math::

        \mathrm{ACE} = \frac{1}{K}\sum_{k=1}^{K}\sum_{b=1}^{B}\frac{n_{kb}}{N}
            \lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb} \rvert

    with equal-mass bins computed per class (weighted inverted-CDF quantiles of that
    class's probabilities).  Same as ``general_calibration_error(strategy="quantile",
    multiclass="classwise")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem given as 1-D probabilities (default: 1; the
        labels must then be in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The ACE, in [0, 1].

    See Also
    --------
    general_calibration_error : The general form, with every option.

    References
    ----------
    Nixon, Dusenberry, Zhang, Jerfel and Tran, "Measuring Calibration in Deep Learning",
    CVPR Workshops 2019.

    Examples
    --------
    >>> from skcalib.metrics import adaptive_calibration_error
    >>> P = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    >>> adaptive_calibration_error([0, 1, 2], P, n_bins=3)
    0.3555...
    """
    return _binned_error(
        y_true,
        y_proba,
        norm="l1",
        n_bins=n_bins,
        strategy="quantile",
        multiclass="classwise",
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


@validate_params({**_DATA, **_N_BINS, **_THRESHOLD}, prefer_skip_nested_validation=True)
def thresholded_adaptive_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=15,
    threshold=0.01,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Thresholded adaptive calibration error (TACE).

    .. math::

        \mathrm{TACE} = \frac{1}{K}\sum_{k=1}^{K}\sum_{b=1}^{B}\frac{n_{kb}}{N}
            \lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb} \rvert,\quad
            \text{only } p_{ik} > \epsilon \text{ binned}

    Class-wise, with equal-mass bins computed on the kept probabilities
    (``p > threshold``) only; the sum is normalised by the total weight ``N`` of all
    samples and the number of classes ``K``, as in the paper (uncertainty_metrics
    normalises by the kept count instead; see :mod:`skcalib.compat.uncertainty_metrics`).
    Same as ``general_calibration_error(strategy="quantile", multiclass="classwise",
    threshold=threshold)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    threshold : float in [0, 1), default=0.01
        Only probabilities strictly greater than ``threshold`` are binned.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem given as 1-D probabilities (default: 1; the
        labels must then be in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The TACE, in [0, 1].

    See Also
    --------
    general_calibration_error : The general form, with every option.

    References
    ----------
    Nixon, Dusenberry, Zhang, Jerfel and Tran, "Measuring Calibration in Deep Learning",
    CVPR Workshops 2019.

    Examples
    --------
    >>> from skcalib.metrics import thresholded_adaptive_calibration_error
    >>> P = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]
    >>> thresholded_adaptive_calibration_error([0, 1, 2], P, n_bins=3, threshold=0.15)
    0.3333...
    """
    return _binned_error(
        y_true,
        y_proba,
        norm="l1",
        n_bins=n_bins,
        strategy="quantile",
        multiclass="classwise",
        threshold=threshold,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )


# --------------------------------------------------------------------------------------
# the reliability curve
# --------------------------------------------------------------------------------------


@validate_params(
    {
        **_DATA,
        **_N_BINS,
        **_MULTICLASS,
        **_THRESHOLD,
        "strategy": [StrOptions(set(STRATEGIES))],
        "bins": ["array-like", None],
        "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "interval": [StrOptions(set(INTERVALS))],
    },
    prefer_skip_nested_validation=True,
)
def reliability_curve(
    y_true,
    y_proba,
    *,
    n_bins=15,
    strategy="uniform",
    multiclass="auto",
    threshold=0.0,
    bins=None,
    confidence_level=None,
    interval="wilson",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Per-bin observed frequency and mean predicted probability (a reliability diagram).

    Every binned metric and display of skcalib is computed from the same statistics, so
    the numbers here are exactly those behind :func:`general_calibration_error` with the
    same options.  With equal-width bins the non-empty bins equal those of
    :func:`sklearn.calibration.calibration_curve` bit for bit.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-mass bins; see :func:`general_calibration_error`.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned; see :func:`general_calibration_error`.
    threshold : float in [0, 1), default=0.0
        Only probabilities strictly greater than ``threshold`` are binned.
    bins : array-like of shape (n_bins + 1,), default=None
        Explicit increasing bin edges covering [0, 1].
    confidence_level : float in (0, 1), default=None
        When given, also return an interval of each bin's observed frequency at this
        level (``prob_true_low`` and ``prob_true_high``).
    interval : {"wilson", "clopper_pearson"}, default="wilson"
        Which interval ``confidence_level`` gives: the Wilson score interval or the
        Clopper-Pearson (exact binomial) interval; see Notes.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    curve : ReliabilityCurveResult
        Unpacks as ``(prob_true, prob_pred)``, exactly as
        :func:`sklearn.calibration.calibration_curve`; everything is an attribute:

        - ``prob_true``: ndarray of shape (n_bins,) or (n_classes, n_bins), the weighted
          mean outcome per bin (observed frequency, or accuracy for top-label); NaN for
          empty bins.
        - ``prob_pred``: ndarray of the same shape, the weighted mean predicted
          probability per bin; NaN for empty bins.
        - ``bin_count``: ndarray of the same shape, the total sample weight per bin (the
          number of samples without weights).
        - ``bin_edges``: ndarray of shape (n_bins + 1,) or (n_classes, n_bins + 1).
        - ``bin_stats``: the underlying :class:`BinStats` sufficient statistics.
        - ``prob_true_low``, ``prob_true_high``: ndarrays of the shape of
          ``prob_true``, the Wilson (or Clopper-Pearson) interval of each bin's observed
          frequency (NaN for empty bins); None without ``confidence_level``.

        The arrays are 2-D (one row per class) only for ``multiclass="classwise"``.
        Unlike :func:`sklearn.calibration.calibration_curve`, empty bins are kept (with
        count 0 and NaN means) so that every array has one entry per bin.  For array
        API input under ``array_api_dispatch=True`` (:doc:`/array_api`) the arrays are
        of the input's namespace and device; ``bin_stats`` stays a numpy object.

    Notes
    -----
    The Wilson score interval (Wilson 1927) of a bin with observed frequency
    :math:`\hat p` among :math:`n` samples, with :math:`z` the
    :math:`(1 + \text{confidence\_level}) / 2` quantile of the standard Normal, is

    .. math::

        \frac{\hat p + \frac{z^2}{2n}}{1 + \frac{z^2}{n}} \pm
        \frac{z}{1 + \frac{z^2}{n}}
        \sqrt{\frac{\hat p (1 - \hat p)}{n} + \frac{z^2}{4 n^2}}.

    Unlike the Normal-approximation interval it stays inside [0, 1] and does not
    collapse to a point when :math:`\hat p` is 0 or 1, which matters for the sparsely
    filled bins at the ends of a reliability diagram.  With ``sample_weight``,
    :math:`\hat p` is the weighted frequency and :math:`n` the bin's effective sample
    size :math:`(\sum w)^2 / \sum w^2` (Kish), as in :attr:`BinStats.effective_count`:
    with equal weights this is the count, the interval does not depend on the scale of
    the weights, and a bin dominated by a few heavy samples gets a wide interval.  (With
    integer weights meant as repetitions, pass repeated rows instead to get the interval
    of the repeated sample.)

    The Clopper-Pearson interval (``interval="clopper_pearson"``; Clopper and Pearson
    1934) inverts two one-sided binomial tests.  With :math:`\alpha = 1 -
    \text{confidence\_level}`, :math:`k = \hat p\, n` successes among :math:`n`
    (effective) samples and :math:`B(q; a, b)` the :math:`q` quantile of the Beta
    distribution,

    .. math::

        \Bigl[B\bigl(\tfrac{\alpha}{2}; k, n - k + 1\bigr),\;
        B\bigl(1 - \tfrac{\alpha}{2}; k + 1, n - k\bigr)\Bigr],

    with lower end 0 when :math:`k = 0` and upper end 1 when :math:`k = n`.  It covers
    the true frequency with at least the nominal probability (it is conservative, so
    wider than Wilson's); with weights :math:`k` and :math:`n` need not be integers and
    the Beta quantiles are those of the real parameters.

    References
    ----------
    E. B. Wilson, "Probable Inference, the Law of Succession, and Statistical
    Inference", Journal of the American Statistical Association 22(158), 1927.
    L. D. Brown, T. T. Cai and A. DasGupta, "Interval Estimation for a Binomial
    Proportion", Statistical Science 16(2), 2001.
    L. Kish, "Survey Sampling", Wiley, 1965 (effective sample size).
    C. J. Clopper and E. S. Pearson, "The Use of Confidence or Fiducial Limits
    Illustrated in the Case of the Binomial", Biometrika 26(4), 1934.

    Examples
    --------
    >>> from skcalib.metrics import reliability_curve
    >>> prob_true, prob_pred = reliability_curve([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> prob_true
    array([0., 1.])
    >>> prob_pred
    array([0.25, 0.7 ])
    >>> curve = reliability_curve([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> curve.bin_count
    array([2., 2.])
    >>> curve = reliability_curve(
    ...     [0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2, confidence_level=0.95
    ... )
    >>> curve.prob_true_low.round(3), curve.prob_true_high.round(3)
    (array([0.   , 0.342]), array([0.658, 1.   ]))
    >>> curve = reliability_curve(
    ...     [0, 1, 1, 0],
    ...     [0.1, 0.8, 0.6, 0.4],
    ...     n_bins=2,
    ...     confidence_level=0.95,
    ...     interval="clopper_pearson",
    ... )
    >>> curve.prob_true_low.round(3), curve.prob_true_high.round(3)
    (array([0.   , 0.158]), array([0.842, 1.   ]))
    """
    stats = stats_of_input(
        y_true,
        y_proba,
        n_bins=n_bins,
        strategy=strategy,
        multiclass=multiclass,
        threshold=threshold,
        bins=bins,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )
    curve = curve_from_bin_stats(
        stats,
        classwise=multiclass == "classwise",
        confidence_level=confidence_level,
        interval=interval,
    )
    xp, device = get_namespace_and_device(y_proba)
    if xp is not None:  # array API input: the curve in its namespace, on its device
        dtype = max_float_dtype(xp, device)
        arrays = {
            f.name: getattr(curve, f.name)
            for f in fields(curve)
            if f.name != "bin_stats" and getattr(curve, f.name) is not None
        }
        curve = replace(
            curve,
            **{k: xp.asarray(v, dtype=dtype, device=device) for k, v in arrays.items()},
        )
    return curve


def curve_from_bin_stats(stats, *, classwise=False, confidence_level=None, interval="wilson"):
    """The :func:`reliability_curve` result of :class:`BinStats` (one group unless
    ``classwise``), with Wilson or Clopper-Pearson (``interval``) intervals at
    ``confidence_level`` when it is given."""
    if interval not in INTERVALS:
        raise ValueError(
            f"interval must be one of {', '.join(map(repr, INTERVALS))}, got {interval!r}"
        )

    def pick(a):
        return a if classwise else a[0]

    prob_true = stats.prob_true
    low = high = None
    if confidence_level is not None:
        kernel = _wilson_interval if interval == "wilson" else _clopper_pearson_interval
        low, high = kernel(prob_true, stats.effective_count, confidence_level)
        low, high = pick(low), pick(high)
    return ReliabilityCurveResult(
        prob_true=pick(prob_true),
        prob_pred=pick(stats.prob_pred),
        bin_count=pick(stats.count.copy()),
        bin_edges=pick(stats.bin_edges.copy()),
        bin_stats=stats,
        prob_true_low=low,
        prob_true_high=high,
    )


def _wilson_interval(p, n, confidence_level):
    """Wilson score interval of frequencies ``p`` among ``n`` (effective) samples.

    NaN where ``n`` is 0.  ``p`` is clipped to [0, 1] (a weighted mean may leave it by
    a rounding error), and the interval always contains ``p`` (at ``p`` = 0 or 1 one
    end equals ``p`` in exact arithmetic; rounding must not move it past ``p``).
    """
    z = float(ndtri(0.5 + confidence_level / 2))
    z2 = z * z
    low = np.full(p.shape, np.nan)
    high = np.full(p.shape, np.nan)
    ok = n > 0
    pk = np.clip(p[ok], 0.0, 1.0)
    nk = n[ok]
    denom = 1.0 + z2 / nk
    center = (pk + z2 / (2 * nk)) / denom
    half = z / denom * np.sqrt(pk * (1 - pk) / nk + z2 / (4 * nk * nk))
    low[ok] = np.clip(np.minimum(center - half, pk), 0.0, 1.0)
    high[ok] = np.clip(np.maximum(center + half, pk), 0.0, 1.0)
    return low, high


def _clopper_pearson_interval(p, n, confidence_level):
    """Clopper-Pearson interval of frequencies ``p`` among ``n`` (effective) samples.

    ``k = p n`` successes, possibly non-integer; low = ``B(alpha/2; k, n - k + 1)`` (0
    at ``k = 0``), high = ``B(1 - alpha/2; k + 1, n - k)`` (1 at ``k = n``), with ``B``
    the Beta quantile.  NaN where ``n`` is 0; ``p`` clipped to [0, 1], and the interval
    always contains ``p``.
    """
    alpha = 1.0 - confidence_level
    low = np.full(p.shape, np.nan)
    high = np.full(p.shape, np.nan)
    ok = n > 0
    pk = np.clip(p[ok], 0.0, 1.0)
    nk = n[ok]
    k = pk * nk
    lo = np.zeros_like(pk)
    hi = np.ones_like(pk)
    has = k > 0
    lo[has] = betaincinv(k[has], nk[has] - k[has] + 1, alpha / 2)
    below = k < nk
    hi[below] = betaincinv(k[below] + 1, nk[below] - k[below], 1 - alpha / 2)
    low[ok] = np.clip(np.minimum(lo, pk), 0.0, 1.0)
    high[ok] = np.clip(np.maximum(hi, pk), 0.0, 1.0)
    return low, high
