"""The calibration-error family: ECE, MCE, RMSCE, SCE, ACE, TACE and their general form."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils import Bunch

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._binning import BinStats, check_bin_edges, compute_bin_stats, quantile_bin_edges  # noqa: F401
from ._guard import scorer_misuse_guard
from ._validation import check_classification_input

__all__ = [
    "general_calibration_error",
    "expected_calibration_error",
    "max_calibration_error",
    "root_mean_squared_calibration_error",
    "static_calibration_error",
    "adaptive_calibration_error",
    "thresholded_adaptive_calibration_error",
    "reliability_curve",
    "calibration_error_from_bin_stats",
]

_COMMON_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
    "strategy": [StrOptions({"uniform", "quantile"})],
    "bins": ["array-like", None],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
}


def calibration_error_from_bin_stats(stats, *, norm="l1", debias=False):
    """Calibration error of precomputed :class:`BinStats`.

    With ``G`` groups (1, or the number of classes for class-wise calibration), total
    sample weight ``W``, and per bin ``n_gb`` (weight), ``acc_gb`` (mean outcome) and
    ``conf_gb`` (mean probability):

    * ``l1``:  ``(1/G) sum_g sum_b (n_gb / W) |acc_gb - conf_gb|``
    * ``l2``:  ``sqrt((1/G) sum_g sum_b (n_gb / W) (acc_gb - conf_gb)^2)``; with
      ``debias=True`` each squared gap is reduced by ``acc_gb (1 - acc_gb) / (n_gb - 1)``
      (Kumar, Liang and Ma 2019; bins with ``n_gb <= 1`` contribute 0) and the sum is
      clipped at 0 before the square root.
    * ``max``: ``max_{g,b: n_gb > 0} |acc_gb - conf_gb|``.
    """
    W = stats.total_weight
    G = stats.n_groups
    diff = stats.gap
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
        big = cnt > 1
        var = np.zeros_like(cnt)
        var[big] = acc[big] * (1 - acc[big]) / (cnt[big] - 1)
        sq = np.where(big, sq - cnt * var, 0.0)
    total = sq.sum() / (W * G)
    return float(np.sqrt(max(total, 0.0)))


def _prepare_bins(bins):
    return None if bins is None else check_bin_edges(bins)


@scorer_misuse_guard
@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
        "norm": [StrOptions({"l1", "l2", "max"})],
        "threshold": [Interval(numbers.Real, 0, 1, closed="left")],
        "debias": ["boolean"],
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
        class in ``labels`` order, as returned by ``predict_proba``.
    n_bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        "uniform": edges ``k / n_bins``, bins right-closed (``e_m < p <= e_{m+1}``, the
        first bin also holds 0), as :func:`sklearn.calibration.calibration_curve`.
        "quantile": equal-mass bins at the (weighted) inverted-CDF quantiles of the
        binned probabilities (per class for class-wise calibration).
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned (``G`` groups).  "auto": for a binary problem the probability of
        the positive class against the observed frequency of the positive class
        (``G = 1``; sklearn's ``calibration_curve``); otherwise top-label.
        "top_label": the confidence ``max_k p_k`` against whether the argmax (first
        maximal column on ties) is correct (``G = 1``; Guo et al. 2017).
        "classwise": every class's probability against the indicator of that class
        (``G = n_classes``; Nixon et al. 2019).
    norm : {"l1", "l2", "max"}, default="l1"
    threshold : float in [0, 1), default=0.0
        Only probabilities strictly greater than ``threshold`` are binned (0 keeps all).
        The normalisation still uses the total weight ``N`` of all samples (Nixon et al.).
    debias : bool, default=False
        With ``norm="l2"``, use the debiased estimator of the squared error of Kumar,
        Liang and Ma (2019): each bin's squared gap minus
        ``acc (1 - acc) / (n_gb - 1)``.
    bins : array-like of shape (n_bins + 1,), default=None
        Explicit increasing bin edges covering [0, 1]; overrides ``n_bins`` and
        ``strategy``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; weight ``w`` is the same as repeating the sample ``w``
        times.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``; default the sorted unique labels of
        ``y_true``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label).

    Returns
    -------
    float
        The calibration error, in [0, 1].

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
    if debias and norm != "l2":
        raise ValueError(f"debias=True requires norm='l2', got norm={norm!r}")
    stats = _compute_stats(
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
        gap_only=norm == "l1",
    )
    return calibration_error_from_bin_stats(stats, norm=norm, debias=debias)


def _compute_stats(
    y_true,
    y_proba,
    *,
    n_bins,
    strategy,
    multiclass,
    threshold,
    bins,
    sample_weight,
    labels,
    pos_label,
    gap_only=False,
) -> BinStats:
    edges = _prepare_bins(bins)
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        check_values=False,
    )
    return compute_bin_stats(
        data,
        multiclass=multiclass,
        n_bins=n_bins,
        strategy=strategy,
        bins=edges,
        threshold=threshold,
        check_values=True,
        gap_only=gap_only,
    )


_NAMED_DOC = """
    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input).
    n_bins : int, default={n_bins}
        Number of bins.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label).

    Returns
    -------
    float

    See Also
    --------
    general_calibration_error : the general form, with every option.
"""


def _named(
    name,
    summary,
    formula,
    example,
    *,
    strategy,
    multiclass,
    norm,
    threshold=0.0,
    n_bins=15,
    extra="",
):
    constraints = {**_COMMON_CONSTRAINTS}
    for key in ("strategy", "bins"):
        constraints.pop(key)
    if threshold:
        constraints["threshold"] = [Interval(numbers.Real, 0, 1, closed="left")]

        def metric(
            y_true,
            y_proba,
            *,
            n_bins=n_bins,
            threshold=threshold,
            sample_weight=None,
            labels=None,
            pos_label=None,
        ):
            stats = _compute_stats(
                y_true,
                y_proba,
                n_bins=n_bins,
                strategy=strategy,
                multiclass=multiclass,
                threshold=threshold,
                bins=None,
                sample_weight=sample_weight,
                labels=labels,
                pos_label=pos_label,
                gap_only=norm == "l1",
            )
            return calibration_error_from_bin_stats(stats, norm=norm)
    else:
        constraints["multiclass"] = [StrOptions({"auto", "top_label", "classwise"})]

        def metric(
            y_true,
            y_proba,
            *,
            n_bins=n_bins,
            multiclass=multiclass,
            sample_weight=None,
            labels=None,
            pos_label=None,
        ):
            stats = _compute_stats(
                y_true,
                y_proba,
                n_bins=n_bins,
                strategy=strategy,
                multiclass=multiclass,
                threshold=0.0,
                bins=None,
                sample_weight=sample_weight,
                labels=labels,
                pos_label=pos_label,
                gap_only=norm == "l1",
            )
            return calibration_error_from_bin_stats(stats, norm=norm)

    metric.__name__ = metric.__qualname__ = name
    params = _NAMED_DOC.format(n_bins=n_bins)
    if threshold:
        params = params.replace(
            "    sample_weight :",
            f"    threshold : float, default={threshold}\n"
            "        Only probabilities strictly greater than ``threshold`` are binned.\n"
            "    sample_weight :",
        )
    else:
        params = params.replace(
            "    sample_weight :",
            f"    multiclass : {{'auto', 'top_label', 'classwise'}}, default={multiclass!r}\n"
            "        What is binned; see :func:`general_calibration_error`.\n"
            "    sample_weight :",
        )
    metric.__doc__ = (
        f"{summary}\n\n    .. math::\n\n        {formula}\n\n{extra}"
        f"    Same as ``general_calibration_error(strategy={strategy!r}, "
        f"multiclass={multiclass!r}, norm={norm!r}"
        + (f", threshold={threshold}" if threshold else "")
        + ")``.\n"
        + params
        + "\n    Examples\n    --------\n"
        + example
    )
    metric.__module__ = __name__
    return scorer_misuse_guard(
        validate_params(constraints, prefer_skip_nested_validation=True)(metric)
    )


expected_calibration_error = _named(
    "expected_calibration_error",
    "Expected calibration error (ECE) with equal-width bins.",
    r"\mathrm{ECE} = \sum_{b=1}^{B} \frac{n_b}{N}\,"
    r"\lvert \mathrm{acc}_b - \mathrm{conf}_b \rvert",
    "    >>> from skcalib.metrics import expected_calibration_error\n"
    "    >>> expected_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)\n"
    "    0.275\n"
    "    >>> P = [[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6]]\n"
    "    >>> expected_calibration_error([0, 2, 2], P, n_bins=10)  # top-label\n"
    "    0.1666...\n",
    strategy="uniform",
    multiclass="auto",
    norm="l1",
    extra="    For a binary problem the positive-class probability is binned (as\n"
    "    :func:`sklearn.calibration.calibration_curve`); for more classes the top-label\n"
    "    confidence (Guo et al. 2017).\n\n",
)

max_calibration_error = _named(
    "max_calibration_error",
    "Maximum calibration error (MCE): the largest gap over non-empty equal-width bins.",
    r"\mathrm{MCE} = \max_{b:\,n_b>0} \lvert \mathrm{acc}_b - \mathrm{conf}_b \rvert",
    "    >>> from skcalib.metrics import max_calibration_error\n"
    "    >>> max_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)\n"
    "    0.3\n",
    strategy="uniform",
    multiclass="auto",
    norm="max",
)

root_mean_squared_calibration_error = _named(
    "root_mean_squared_calibration_error",
    "Root-mean-squared calibration error (RMSCE) with equal-mass bins.",
    r"\mathrm{RMSCE} = \Bigl(\sum_{b=1}^{B} \frac{n_b}{N}"
    r"(\mathrm{acc}_b - \mathrm{conf}_b)^2\Bigr)^{1/2}",
    "    >>> from skcalib.metrics import root_mean_squared_calibration_error\n"
    "    >>> root_mean_squared_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4],\n"
    "    ...                                     n_bins=4)\n"
    "    0.3041...\n",
    strategy="quantile",
    multiclass="auto",
    norm="l2",
)

static_calibration_error = _named(
    "static_calibration_error",
    "Static calibration error (SCE): class-wise ECE with equal-width bins (Nixon et al.).",
    r"\mathrm{SCE} = \frac{1}{K}\sum_{k=1}^{K}\sum_{b=1}^{B}\frac{n_{kb}}{N}"
    r"\lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb} \rvert",
    "    >>> from skcalib.metrics import static_calibration_error\n"
    "    >>> P = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]\n"
    "    >>> static_calibration_error([0, 1, 2], P, n_bins=10)\n"
    "    0.3555...\n",
    strategy="uniform",
    multiclass="classwise",
    norm="l1",
)

adaptive_calibration_error = _named(
    "adaptive_calibration_error",
    "Adaptive calibration error (ACE): class-wise ECE with equal-mass bins (Nixon et al.).",
    r"\mathrm{ACE} = \frac{1}{K}\sum_{k=1}^{K}\sum_{b=1}^{B}\frac{n_{kb}}{N}"
    r"\lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb} \rvert",
    "    >>> from skcalib.metrics import adaptive_calibration_error\n"
    "    >>> P = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]\n"
    "    >>> adaptive_calibration_error([0, 1, 2], P, n_bins=3)\n"
    "    0.3555...\n",
    strategy="quantile",
    multiclass="classwise",
    norm="l1",
)

thresholded_adaptive_calibration_error = _named(
    "thresholded_adaptive_calibration_error",
    "Thresholded adaptive calibration error (TACE; Nixon et al. 2019).",
    r"\mathrm{TACE} = \frac{1}{K}\sum_{k=1}^{K}\sum_{b=1}^{B}\frac{n_{kb}}{N}"
    r"\lvert \mathrm{acc}_{kb} - \mathrm{conf}_{kb} \rvert,\quad"
    r"\text{only } p_{ik} > \epsilon \text{ binned}",
    "    >>> from skcalib.metrics import thresholded_adaptive_calibration_error\n"
    "    >>> P = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]]\n"
    "    >>> thresholded_adaptive_calibration_error([0, 1, 2], P, n_bins=3, threshold=0.15)\n"
    "    0.3333...\n",
    strategy="quantile",
    multiclass="classwise",
    norm="l1",
    threshold=0.01,
    extra="    Class-wise, equal-mass bins computed on the kept probabilities only; the sum\n"
    "    is normalised by the total weight ``N`` of all samples and the number of classes\n"
    "    ``K`` as in the paper (uncertainty_metrics normalises by the kept count instead;\n"
    "    see :mod:`skcalib.compat.uncertainty_metrics`).\n\n",
)


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
        "threshold": [Interval(numbers.Real, 0, 1, closed="left")],
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
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    """Per-bin observed frequency and mean predicted probability (a reliability diagram).

    Every binned metric and display of skcalib is computed from the same statistics, so
    the numbers here are exactly those behind :func:`general_calibration_error` with the
    same options.

    Parameters
    ----------
    y_true, y_proba, n_bins, strategy, multiclass, threshold, bins, sample_weight, labels, \
pos_label
        As in :func:`general_calibration_error`.

    Returns
    -------
    curve : sklearn.utils.Bunch
        With the attributes:

        - ``prob_true``: ndarray of shape (n_bins,) or (n_classes, n_bins), the weighted
          mean outcome per bin (observed frequency, or accuracy for top-label); NaN for
          empty bins.
        - ``prob_pred``: ndarray of the same shape, the weighted mean predicted
          probability per bin; NaN for empty bins.
        - ``bin_count``: ndarray of the same shape, the total sample weight per bin (the
          number of samples without weights).
        - ``bin_edges``: ndarray of shape (n_bins + 1,) or (n_classes, n_bins + 1).
        - ``bin_stats``: the underlying :class:`BinStats` sufficient statistics.

    The arrays are 2-D (one row per class) only for ``multiclass="classwise"``.
    Unlike :func:`sklearn.calibration.calibration_curve`, empty bins are kept (with
    count 0 and NaN means) so that every array has one entry per bin.

    Examples
    --------
    >>> from skcalib.metrics import reliability_curve
    >>> curve = reliability_curve([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> curve.prob_true
    array([0., 1.])
    >>> curve.prob_pred
    array([0.25, 0.7 ])
    >>> curve.bin_count
    array([2., 2.])
    """
    stats = _compute_stats(
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
    squeeze = stats.n_groups == 1 and multiclass != "classwise"
    pick = (lambda a: a[0]) if squeeze else (lambda a: a)
    return Bunch(
        prob_true=pick(stats.prob_true),
        prob_pred=pick(stats.prob_pred),
        bin_count=pick(stats.count.copy()),
        bin_edges=pick(stats.bin_edges),
        bin_stats=stats,
    )
