"""Statistical calibration: confidence intervals, tests of calibration, Bayesian ECE.

A calibration error computed on a few hundred predictions is a noisy number.  This module
puts error bars on any metric of skcalib (:func:`calibration_error_ci`), tests the null
hypothesis "the probabilities are calibrated" (:func:`spiegelhalter_test`,
:func:`hosmer_lemeshow_test`, :func:`consistency_resampling_test`) and draws from the
posterior distribution of the ECE (:func:`bayesian_expected_calibration_error`).

Everything binned is computed from the :class:`~skcalib.metrics.BinStats` of the one
binning core (:mod:`skcalib._core._binning`); the bin-level bootstrap of
:func:`calibration_error_ci` resamples those sufficient statistics instead of the
samples.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np
from scipy import special, stats
from sklearn.utils import check_random_state

from ..._core._binning import (
    STRATEGIES,
    bin_stats,
    check_bin_edges,
    check_n_bins,
    probability_outcome,
    resolve_multiclass,
)
from ..._core._validation import (
    ClassificationInput,
    _to_numpy,
    check_classification_input,
)
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import (
    BootstrapConfidenceInterval,
    CalibrationTestResult,
    ConsistencyResamplingResult,
    HosmerLemeshowResult,
)
from ._binned import (
    NORMS,
    _error,
    expected_calibration_error,
    general_calibration_error,
    max_calibration_error,
)

__all__ = [
    "bayesian_expected_calibration_error",
    "calibration_error_ci",
    "consistency_resampling_test",
    "hosmer_lemeshow_test",
    "spiegelhalter_test",
]

_DATA = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
}
#: binary (positive-class) or top-label calibration; class-wise has no single outcome
_BINARY_OR_TOP = {"multiclass": [StrOptions({"auto", "top_label"})]}
_CLASSES = np.array([0, 1])


# --------------------------------------------------------------------------------------
# shared helpers
# --------------------------------------------------------------------------------------


def conf_outcome(data, multiclass):
    """(probability, 0/1 outcome) pairs of validated input as float64 and uint8: the
    positive-class probability and outcome (binary), or the confidence and correctness
    (top-label)."""
    conf, outcome = probability_outcome(data, resolve_multiclass(multiclass, data))
    return np.asarray(conf, dtype=np.float64), np.asarray(outcome, dtype=np.uint8)


def binary_input(conf, outcome, sample_weight):
    """The (probability, outcome) pairs as validated binary input of the binning core."""
    return ClassificationInput(
        y=outcome,
        proba=conf,
        classes=_CLASSES,
        pos_index=1,
        sample_weight=sample_weight,
        binary_1d=True,
    )


def _validated(y_true, y_proba, sample_weight, labels, pos_label, multiclass):
    data = check_classification_input(
        y_true, y_proba, sample_weight=sample_weight, labels=labels, pos_label=pos_label
    )
    conf, outcome = conf_outcome(data, multiclass)
    return conf, outcome, data.sample_weight


# --------------------------------------------------------------------------------------
# confidence intervals
# --------------------------------------------------------------------------------------

#: metrics computed from fixed-edge BinStats, whose bootstrap can resample the bins
_FIXED_BIN_METRICS = {
    expected_calibration_error: "l1",
    max_calibration_error: "max",
    general_calibration_error: None,  # norm from the options
}


def _bin_level_options(metric, kwargs):
    """Binning options when ``metric`` with ``kwargs`` is a fixed-edge binned metric
    of one group (binary or top-label) without debiasing; None otherwise."""
    if metric not in _FIXED_BIN_METRICS:
        return None
    norm = _FIXED_BIN_METRICS[metric] or kwargs.get("norm", "l1")
    if kwargs.get("debias", False):
        return None
    if kwargs.get("strategy", "uniform") != "uniform" and kwargs.get("bins") is None:
        return None
    if kwargs.get("multiclass", "auto") == "classwise":
        return None
    allowed = {
        "n_bins",
        "multiclass",
        "labels",
        "pos_label",
        "norm",
        "strategy",
        "threshold",
        "bins",
        "debias",
    }
    unknown = set(kwargs) - allowed
    if unknown:
        return None  # let the metric itself report the unknown option
    return norm


def _errors_of_cells(cnt0, cnt1, sp0, sp1, total, norm):
    """Calibration errors of resampled (bin, outcome) cells, one per row.

    ``cnt*`` and ``sp*`` are (n_resamples, n_bins) weights and weighted probability sums
    of the cells with outcome 0 and 1; ``total`` the total weight of each resample.
    The same aggregation as the binned metrics (one group).
    """
    count = cnt0 + cnt1
    diff = cnt1 - (sp0 + sp1)
    if norm == "l1":
        return np.abs(diff).sum(axis=1) / total
    nz = count > 0
    gap = np.zeros_like(diff)
    np.divide(diff, count, out=gap, where=nz)
    if norm == "max":
        return np.abs(gap).max(axis=1)
    return np.sqrt(np.maximum((count * gap**2).sum(axis=1) / total, 0.0))


class _Cells:
    """Per-(bin, outcome) cells of the data, from the binning core's BinStats.

    Each row falls in exactly one cell: (bin, outcome 0), (bin, outcome 1), or the cell
    of the rows removed by a ``threshold``.  ``rows`` counts the rows of positive
    weight, ``weight`` and ``sum_proba`` their weighted sums.
    """

    def __init__(self, conf, outcome, sw, edges, threshold):
        n_bins = edges.shape[0] - 1
        opts = dict(n_bins=n_bins, bins=edges, threshold=threshold)
        positive = outcome.astype(np.float64) if sw is None else sw * outcome
        full = bin_stats(binary_input(conf, outcome, sw), **opts)
        one = bin_stats(binary_input(conf, outcome, positive), **opts)
        w1, s1 = one.count[0], one.sum_proba[0]
        w0, s0 = full.count[0] - w1, full.sum_proba[0] - s1
        removed = full.total_weight - full.count[0].sum()
        self.weight = np.concatenate([w0, w1, [max(removed, 0.0)]])
        self.sum_proba = np.concatenate([s0, s1, [0.0]])
        if sw is None:
            self.rows = self.weight.copy()
        else:
            kept = (sw > 0).astype(np.float64)
            r_full = bin_stats(binary_input(conf, outcome, kept), **opts)
            r_one = bin_stats(binary_input(conf, outcome, kept * outcome), **opts)
            r1 = r_one.count[0]
            r0 = r_full.count[0] - r1
            r_removed = r_full.total_weight - r_full.count[0].sum()
            self.rows = np.concatenate([r0, r1, [max(r_removed, 0.0)]])
        self.rows = np.rint(self.rows)
        self.n_bins = n_bins
        self.n_rows = int(self.rows.sum())
        nz = self.rows > 0
        self.mean_weight = np.zeros_like(self.weight)
        self.mean_proba = np.zeros_like(self.weight)
        np.divide(self.weight, self.rows, out=self.mean_weight, where=nz)
        np.divide(self.sum_proba, self.rows, out=self.mean_proba, where=nz)

    def errors(self, rows, norm):
        """Errors of data with ``rows`` (n_resamples, n_cells) rows in each cell."""
        m = self.n_bins
        w = rows * self.mean_weight
        sp = rows * self.mean_proba
        total = w.sum(axis=1)
        return _errors_of_cells(w[:, :m], w[:, m : 2 * m], sp[:, :m], sp[:, m : 2 * m], total, norm)

    def resample(self, n_resamples, rng):
        return rng.multinomial(self.n_rows, self.rows / self.n_rows, size=n_resamples)

    def jackknife(self, norm):
        """Leave-one-row-out values of each non-empty cell and their multiplicities."""
        cells = np.flatnonzero(self.rows > 0)
        rows = np.broadcast_to(self.rows, (cells.shape[0], self.rows.shape[0])).copy()
        rows[np.arange(cells.shape[0]), cells] -= 1
        ok = (rows * self.mean_weight).sum(axis=1) > 0
        return self.errors(rows[ok], norm), self.rows[cells][ok]


def _accepts(func, name):
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def _as_float_value(value, metric):
    v = getattr(value, "value", value)  # (value, sem) result of the information criteria
    if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real):
        raise ValueError(
            f"metric {getattr(metric, '__name__', metric)!r} must return a real number, "
            f"got {type(value).__name__}"
        )
    return float(v)


def _interval(boot, estimate, alpha, method, jack=None, jack_weight=None):
    """Percentile or BCa interval of the bootstrap values ``boot``."""
    if method == "percentile":
        lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
        return float(lo), float(hi)
    B = boot.shape[0]
    below = (np.count_nonzero(boot < estimate) + 0.5 * np.count_nonzero(boot == estimate)) / B
    below = min(max(below, 0.5 / B), 1 - 0.5 / B)
    z0 = special.ndtri(below)
    if jack_weight is None:
        jack_weight = np.ones_like(jack)
    mean = np.sum(jack_weight * jack) / np.sum(jack_weight)
    d = mean - jack
    den = 6.0 * np.sum(jack_weight * d**2) ** 1.5
    a = float(np.sum(jack_weight * d**3) / den) if den > 0 else 0.0
    out = []
    for q in (alpha / 2, 1 - alpha / 2):
        zq = special.ndtri(q)
        t = z0 + zq
        adj = float(special.ndtr(z0 + t / (1 - a * t)))
        out.append(float(np.quantile(boot, min(max(adj, 0.0), 1.0))))
    return out[0], out[1]


@validate_params(
    {
        "metric": [callable],
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "n_resamples": [Interval(numbers.Integral, 2, None, closed="left")],
        "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
        "method": [StrOptions({"percentile", "bca"})],
        "resample": [StrOptions({"auto", "bins", "samples"})],
        "sample_weight": ["array-like", None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def calibration_error_ci(
    metric,
    y_true,
    y_proba,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    method="percentile",
    resample="auto",
    sample_weight=None,
    random_state=None,
    **metric_kwargs,
):
    r"""Bootstrap confidence interval of a calibration error (or of any metric).

    The data are resampled with replacement ``n_resamples`` times, the metric is
    recomputed on each resample, and the interval is read from the bootstrap
    distribution: the percentile interval ``[q_{\alpha/2}, q_{1-\alpha/2}]`` with
    ``alpha = 1 - confidence_level``, or the bias-corrected and accelerated (BCa)
    interval of Efron (1987), whose quantile levels are

    .. math::

        \alpha_{1,2} = \Phi\Bigl(z_0 + \frac{z_0 + z_{\alpha/2,\,1-\alpha/2}}
            {1 - a\,(z_0 + z_{\alpha/2,\,1-\alpha/2})}\Bigr),

    with ``z_0`` the normal quantile of the fraction of bootstrap values below the
    estimate and ``a`` the acceleration, from jackknife values ``theta_(i)``:
    ``a = sum (mean - theta_(i))^3 / (6 (sum (mean - theta_(i))^2)^(3/2))``.

    **Bin-level resampling.**  For the fixed-bin metrics
    (:func:`expected_calibration_error`, :func:`max_calibration_error`, and
    :func:`general_calibration_error` with equal-width bins or explicit ``bins``, binary
    or top-label, without ``debias``) every row falls in one (bin, outcome) cell of the
    :class:`~skcalib.metrics.BinStats`.  A bootstrap resample of the rows is then a
    multinomial draw of the number of rows in each cell, and the resampled error
    follows from the cell counts: 1,000 resamples of a million predictions cost about
    as much as a few ECE computations.  The number of rows in each (bin, outcome) cell
    is drawn exactly as the row bootstrap draws it; each drawn row carries its cell's
    mean probability (and, with weights, its cell's mean weight), so the spread of the
    probabilities within a bin (at most one bin width) is not resampled.  The
    jackknife of BCa is exact at the same resolution (one row removed from each cell).
    ``resample="samples"`` forces the row bootstrap.

    **Weights.**  Rows are resampled with their weights (the rows, not the units of
    weight, are the sampling units); bin-level resampling draws the rows of positive
    weight.

    Parameters
    ----------
    metric : callable
        ``metric(y_true, y_proba, **metric_kwargs)`` returning a real number (or a
        result with a ``value``): any metric of :mod:`skcalib.metrics`.  It is passed
        ``sample_weight`` when given, and ``labels`` (the classes of the full data) when
        it accepts them and ``metric_kwargs`` does not fix them, so that a resample
        missing a class keeps the columns of ``y_proba``.
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    n_resamples : int, default=1000
        Number of bootstrap resamples, at least 2.
    confidence_level : float in (0, 1), default=0.95
        Coverage of the interval.
    method : {"percentile", "bca"}, default="percentile"
        Percentile or bias-corrected and accelerated interval.
    resample : {"auto", "bins", "samples"}, default="auto"
        "auto": the bin-level bootstrap for the fixed-bin metrics, the row bootstrap
        otherwise.  "bins" raises a ValueError for other metrics.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights, resampled with their rows.
    random_state : int, RandomState instance or None, default=None
        Seed of the resampling.
    **metric_kwargs
        Options of ``metric`` (``n_bins``, ``labels``, ``pos_label``, ...).

    Returns
    -------
    result : BootstrapConfidenceInterval
        Unpacks as ``(low, high)``, the interval.  Its other attributes:
        ``estimate`` (the metric on the data), ``standard_error`` (standard deviation of
        the bootstrap values), ``bootstrap_distribution`` (ndarray of shape
        (n_resamples,)), ``confidence_level``, ``method`` and ``resample`` ("bins" or
        "samples").

    References
    ----------
    Efron, "Better Bootstrap Confidence Intervals", Journal of the American Statistical
    Association 82(397), 1987.
    Efron and Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import calibration_error_ci, expected_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> y = (rng.random(2000) < p**2).astype(int)
    >>> ci = calibration_error_ci(
    ...     expected_calibration_error, y, p, n_bins=10, random_state=0
    ... )
    >>> round(ci.estimate, 3), ci.resample
    (0.168, 'bins')
    >>> low, high = ci
    >>> bool(low < ci.estimate < high)
    True
    """
    alpha = 1.0 - confidence_level
    rng = check_random_state(random_state)
    norm = _bin_level_options(metric, metric_kwargs)
    if resample == "bins" and norm is None:
        raise ValueError(
            "resample='bins' needs a fixed-bin metric (expected_calibration_error, "
            "max_calibration_error, or general_calibration_error with equal-width bins or "
            "explicit bins, binary or top-label, without debias); got "
            f"{getattr(metric, '__name__', metric)!r} with options {sorted(metric_kwargs)}"
        )
    weight_kw = {} if sample_weight is None else {"sample_weight": sample_weight}
    estimate = _as_float_value(metric(y_true, y_proba, **weight_kw, **metric_kwargs), metric)

    if norm is not None and resample != "samples":
        boot, jack, jack_w = _bin_level_bootstrap(
            y_true, y_proba, sample_weight, metric_kwargs, norm, n_resamples, rng, method
        )
        used = "bins"
    else:
        boot, jack, jack_w = _row_bootstrap(
            metric, y_true, y_proba, sample_weight, metric_kwargs, n_resamples, rng, method
        )
        used = "samples"
    if not np.isfinite(boot).all():
        raise ValueError("the metric is not finite on some bootstrap resamples")
    low, high = _interval(boot, estimate, alpha, method, jack, jack_w)
    return BootstrapConfidenceInterval(
        low=low,
        high=high,
        estimate=estimate,
        standard_error=float(np.std(boot, ddof=1)),
        bootstrap_distribution=boot,
        confidence_level=float(confidence_level),
        method=method,
        resample=used,
    )


def _bin_level_bootstrap(y_true, y_proba, sample_weight, kw, norm, n_resamples, rng, method):
    conf, outcome, sw = _validated(
        y_true,
        y_proba,
        sample_weight,
        kw.get("labels"),
        kw.get("pos_label"),
        kw.get("multiclass", "auto"),
    )
    if kw.get("bins") is not None:
        edges = check_bin_edges(kw["bins"])
    else:
        edges = np.linspace(0.0, 1.0, check_n_bins(kw.get("n_bins", 15)) + 1)
    cells = _Cells(conf, outcome, sw, edges, kw.get("threshold", 0.0))
    boot = cells.errors(cells.resample(n_resamples, rng), norm)
    jack = jack_w = None
    if method == "bca":
        jack, jack_w = cells.jackknife(norm)
    return boot, jack, jack_w


def _row_bootstrap(metric, y_true, y_proba, sample_weight, kw, n_resamples, rng, method):
    y = _to_numpy(y_true, "y_true")
    P = _to_numpy(y_proba, "y_proba")
    n = y.shape[0] if y.ndim else 0
    if n == 0:
        raise ValueError("y_true is empty: need at least one sample")
    sw = None if sample_weight is None else np.asarray(_to_numpy(sample_weight, "sample_weight"))
    kw = dict(kw)
    if "labels" not in kw and _accepts(metric, "labels"):
        # a resample that misses a class keeps the columns of y_proba
        data = check_classification_input(y, P, labels=None, pos_label=kw.get("pos_label"))
        kw["labels"] = data.classes
    if sw is not None:
        # weight 0 is removal: resample the rows of positive weight, as the bin-level
        # bootstrap does (a resample of zero-weight rows only has no metric value)
        if sw.shape != (n,):
            raise ValueError(f"sample_weight must have shape ({n},) like y_true, got {sw.shape}")
        keep = np.asarray(sw, dtype=np.float64) > 0
        if not keep.any():
            raise ValueError("sample_weight sums to zero: pass at least one positive weight")
        if not keep.all():
            y, P, sw = y[keep], P[keep], sw[keep]
            n = y.shape[0]

    def value(idx):
        wk = {} if sw is None else {"sample_weight": sw[idx]}
        return _as_float_value(metric(y[idx], P[idx], **wk, **kw), metric)

    boot = np.empty(n_resamples)
    for r in range(n_resamples):
        boot[r] = value(rng.randint(0, n, n))
    jack = None
    if method == "bca":
        # leave-one-out jackknife; delete-a-group jackknife with 200 groups above that
        groups = np.arange(n) if n <= 200 else rng.permutation(n) % 200
        n_groups = int(groups.max()) + 1
        jack = np.empty(n_groups)
        for g in range(n_groups):
            jack[g] = value(np.flatnonzero(groups != g))
    return boot, jack, None


# --------------------------------------------------------------------------------------
# tests of calibration
# --------------------------------------------------------------------------------------


@validate_params({**_DATA, **_BINARY_OR_TOP}, prefer_skip_nested_validation=True)
def spiegelhalter_test(
    y_true,
    y_proba,
    *,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Test calibration with Spiegelhalter's z statistic.

    Under the null hypothesis that each outcome ``y_i`` is a Bernoulli draw with
    probability ``p_i``, the statistic

    .. math::

        Z = \frac{\sum_i w_i (y_i - p_i)(1 - 2 p_i)}
            {\sqrt{\sum_i w_i (1 - 2 p_i)^2\, p_i (1 - p_i)}}

    is asymptotically standard normal; the two-sided p-value is ``2 Phi(-|Z|)``.  The
    numerator is the difference between the observed and the expected Brier score, so
    the test has power against miscalibration, not against poor discrimination.  When
    every ``p_i`` is 0, 1/2 or 1 the variance is 0: ``Z`` is then 0 if the numerator is
    0 and infinite otherwise.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    multiclass : {"auto", "top_label"}, default="auto"
        "auto": the positive-class probability of a binary problem, the top-label
        confidence against correctness otherwise.  "top_label" forces the latter.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights: weight ``w`` counts as ``w`` repetitions of the sample (the
        statistic grows like the square root of the total weight).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    result : CalibrationTestResult
        Unpacks as ``(statistic, pvalue)``: ``statistic`` (Z) and ``pvalue``
        (two-sided), floats, also readable as attributes.

    References
    ----------
    Spiegelhalter, "Probabilistic prediction in patient management and clinical
    trials", Statistics in Medicine 5(5), 1986.

    Examples
    --------
    >>> from skcalib.metrics import spiegelhalter_test
    >>> res = spiegelhalter_test([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.3])
    >>> res
    CalibrationTestResult(statistic=-0.19518..., pvalue=0.84525...)
    >>> statistic, pvalue = res
    >>> round(statistic, 4), round(pvalue, 4)
    (-0.1952, 0.8453)
    """
    p, y, w = _validated(y_true, y_proba, sample_weight, labels, pos_label, multiclass)
    a = 1.0 - 2.0 * p
    num_terms = (y - p) * a
    var_terms = a * a * p * (1.0 - p)
    if w is not None:
        num_terms *= w
        var_terms *= w
    num = float(num_terms.sum())
    var = float(var_terms.sum())
    if var > 0:
        z = num / np.sqrt(var)
    else:
        z = 0.0 if abs(num) <= 1e-12 * max(1.0, float(np.abs(num_terms).sum())) else np.inf
        z = float(np.copysign(z, num))
    pvalue = float(2.0 * special.ndtr(-abs(z)))
    return CalibrationTestResult(statistic=float(z), pvalue=pvalue)


@validate_params(
    {
        **_DATA,
        **_BINARY_OR_TOP,
        "n_groups": [Interval(numbers.Integral, 3, None, closed="left")],
        "df": [
            Interval(numbers.Integral, 1, None, closed="left"),
            StrOptions({"holdout", "in_sample"}),
        ],
        "strategy": [StrOptions({"quantile", "uniform"})],
    },
    prefer_skip_nested_validation=True,
)
def hosmer_lemeshow_test(
    y_true,
    y_proba,
    *,
    n_groups=10,
    df="holdout",
    strategy="quantile",
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Hosmer-Lemeshow goodness-of-fit test ("deciles of risk").

    The predictions are grouped by the quantiles of the predicted probability (the
    equal-mass bins of :func:`compute_bin_stats`, ``strategy="quantile"``: right-closed,
    all copies of a tied value in one group).  With ``n_g`` the (weighted) size of group
    ``g``, ``O_g`` its observed and ``E_g = sum p_i`` its expected number of events,

    .. math::

        \hat C = \sum_{g:\,n_g>0} \frac{(O_g - E_g)^2}{E_g\,(1 - E_g / n_g)},

    which is compared with a chi-squared distribution with ``df`` degrees of freedom.
    With ``G`` the number of non-empty groups (``n_groups`` unless heavy ties leave
    groups empty), the reference depends on where the probabilities come from:

    * ``df="holdout"`` (default): probabilities that were not fitted on these data
      (a held-out test set, external validation, a model fitted elsewhere).  Each
      ``O_g`` is then a sum of independent Bernoulli draws with mean ``E_g`` and the
      statistic is asymptotically chi-squared with ``G`` degrees of freedom (Hosmer,
      Lemeshow and Sturdivant 2013, assessment of fit via external validation).  At
      the 5% level it rejects perfectly calibrated held-out predictions about 5% of
      the time.
    * ``df="in_sample"``: the in-sample fitted probabilities of a logistic regression
      fitted by maximum likelihood on the same data, the setting of Hosmer and
      Lemeshow (1980), whose simulations give the reference ``G - 2``.  Used on
      held-out predictions it rejects calibrated ones too often (about 12% instead of
      5% at the 5% level for 500 predictions with ``p ~ Beta(2, 3)``).
    * an int: that number of degrees of freedom.

    A group whose variance ``E_g (1 - E_g/n_g)`` is 0
    (all its probabilities 0 or 1) contributes 0 if ``O_g = E_g`` and makes the
    statistic infinite (p-value 0) otherwise.

    With ``strategy="uniform"`` the groups are instead the ``n_groups`` equal-width
    bins of ``[0, 1]`` (the bins of :func:`compute_bin_stats`, ``strategy="uniform"``,
    those of the expected calibration error); the statistic and its reference are the
    same, over the non-empty bins.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    n_groups : int, default=10
        Number of groups, at least 3.
    df : {"holdout", "in_sample"} or int, default="holdout"
        Degrees of freedom of the chi-squared reference: ``G`` for probabilities not
        fitted on these data ("holdout"), ``G - 2`` for the in-sample fit of a logistic
        regression ("in_sample"), or the given number.
    strategy : {"quantile", "uniform"}, default="quantile"
        "quantile": groups of equal (weighted) size, the deciles of risk of Hosmer and
        Lemeshow; "uniform": the ``n_groups`` equal-width bins of ``[0, 1]`` (bins that
        no prediction falls in are left out of the sum and of ``G``).
    multiclass : {"auto", "top_label"}, default="auto"
        "auto": the positive-class probability of a binary problem, the top-label
        confidence against correctness otherwise.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights (weight ``w`` counts as ``w`` repetitions of the sample; the
        groups are weighted quantiles).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    result : HosmerLemeshowResult
        Unpacks as ``(statistic, pvalue)``.  Its other attributes: ``df``, and per
        group ``observed``, ``expected`` and ``count`` (arrays over the non-empty
        groups).

    References
    ----------
    Hosmer and Lemeshow, "Goodness of fit tests for the multiple logistic regression
    model", Communications in Statistics - Theory and Methods 9(10), 1980.
    Hosmer, Lemeshow and Sturdivant, "Applied Logistic Regression", 3rd ed., Wiley,
    2013, chapter 5: section 5.2.2 (the test, ``G - 2`` for the fitted model) and the
    assessment of fit via external validation (``G`` for data the model was not
    fitted on).

    Examples
    --------
    >>> from skcalib.metrics import hosmer_lemeshow_test
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> p = [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.6, 0.8, 0.85, 0.9]
    >>> res = hosmer_lemeshow_test(y, p, n_groups=5)
    >>> statistic, pvalue = res
    >>> round(statistic, 4), res.df, round(pvalue, 4)
    (3.337, 5, 0.6482)
    >>> in_sample = hosmer_lemeshow_test(y, p, n_groups=5, df="in_sample")
    >>> in_sample.df, round(in_sample.pvalue, 4)
    (3, 0.3425)
    >>> uniform = hosmer_lemeshow_test(y, p, n_groups=5, strategy="uniform")
    >>> uniform.count.tolist(), round(uniform.pvalue, 4)
    ([2.0, 2.0, 3.0, 1.0, 2.0], 0.9059)
    """
    p, y, w = _validated(y_true, y_proba, sample_weight, labels, pos_label, multiclass)
    st = bin_stats(binary_input(p, y, w), n_bins=n_groups, strategy=strategy)
    return _hosmer_lemeshow(st.count[0], st.sum_true[0], st.sum_proba[0], df)


def _hosmer_lemeshow(count, observed, expected, df):
    """The Hosmer-Lemeshow statistic and p-value of per-bin sums.

    ``count``, ``observed`` and ``expected``: the (weighted) number of predictions, of
    events and the sum of the predicted probabilities of each bin (1-D arrays, empty
    bins allowed); ``df``: ``"holdout"``, ``"in_sample"`` or an int, as in
    :func:`hosmer_lemeshow_test`.  Returns a :class:`HosmerLemeshowResult`.
    """
    count, observed, expected = (np.asarray(a, dtype=float) for a in (count, observed, expected))
    nz = count > 0
    n_g, obs, exp = count[nz], observed[nz], expected[nz]
    G = int(nz.sum())
    if df == "holdout":
        df = G
    elif df == "in_sample":
        df = G - 2
        if df < 1:
            raise ValueError(
                f"hosmer_lemeshow_test with df='in_sample' needs at least 3 non-empty "
                f"groups, got {G}: the predicted probabilities take too few distinct "
                "values; lower n_groups or pass df as an int"
            )
    var = exp * (1.0 - exp / n_g)
    dev = (obs - exp) ** 2
    tol = 1e-9 * np.maximum(n_g, 1.0)
    degenerate = var <= tol * 1e-3
    if np.any(degenerate & (np.abs(obs - exp) > tol)):
        statistic = np.inf
    else:
        terms = np.zeros_like(var)
        np.divide(dev, var, out=terms, where=~degenerate)
        statistic = float(terms.sum())
    pvalue = float(stats.chi2.sf(statistic, df))
    return HosmerLemeshowResult(
        statistic=float(statistic),
        pvalue=pvalue,
        df=int(df),
        observed=obs,
        expected=exp,
        count=n_g,
    )


@validate_params(
    {
        **_DATA,
        **_BINARY_OR_TOP,
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "strategy": [StrOptions(set(STRATEGIES))],
        "norm": [StrOptions(set(NORMS))],
        "n_resamples": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def consistency_resampling_test(
    y_true,
    y_proba,
    *,
    n_bins=10,
    strategy="uniform",
    norm="l1",
    multiclass="auto",
    n_resamples=1000,
    sample_weight=None,
    labels=None,
    pos_label=None,
    random_state=None,
):
    r"""Consistency-resampling test of calibration for a binned calibration error.

    Bröcker and Smith (2007): under the null hypothesis that the probabilities are
    calibrated, an outcome is a Bernoulli draw of its probability.  Each of the
    ``n_resamples`` surrogate data sets draws ``n`` rows with replacement (each with its
    weight) and a surrogate outcome ``y*_i ~ Bernoulli(p_i)`` for each, and the binned
    calibration error (:func:`general_calibration_error` with ``n_bins``, ``strategy``
    and ``norm``) of the surrogate is computed.  The p-value is the fraction of
    surrogate errors at least as large as the observed one,

    .. math::

        \text{p-value} = \frac{1 + \#\{r : \mathrm{CE}^*_r \ge \mathrm{CE}\}}
            {1 + R},

    which is valid (never below its nominal level under the null).  Unlike reading the
    error against 0, the test accounts for the positive bias of a binned error on
    finite data.  Binary problems test the positive-class probability; multiclass ones
    (or ``multiclass="top_label"``) the top-label confidence against correctness.  The
    cost is that of ``n_resamples`` binned errors of ``n`` samples.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-mass bins (recomputed on each surrogate).
    norm : {"l1", "l2", "max"}, default="l1"
        Aggregation of the per-bin gaps (ECE, RMSCE-style, MCE).
    multiclass : {"auto", "top_label"}, default="auto"
        What is tested; see above.
    n_resamples : int, default=1000
        Number of surrogate data sets.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, carried by their rows into the surrogates.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
    random_state : int, RandomState instance or None, default=None
        Seed of the surrogates.

    Returns
    -------
    result : ConsistencyResamplingResult
        Unpacks as ``(statistic, pvalue)``: ``statistic`` (the observed calibration
        error) and ``pvalue``.  Its other attribute: ``null_distribution`` (ndarray of
        shape (n_resamples,), the surrogate errors).

    References
    ----------
    Bröcker and Smith, "Increasing the Reliability of Reliability Diagrams", Weather and
    Forecasting 22(3), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import consistency_resampling_test
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(500)
    >>> calibrated = (rng.random(500) < p).astype(int)
    >>> overconfident = (rng.random(500) < 0.5 + 0.5 * (p - 0.5)).astype(int)
    >>> consistency_resampling_test(calibrated, p, n_resamples=200, random_state=0).pvalue > 0.05
    True
    >>> ece, pvalue = consistency_resampling_test(
    ...     overconfident, p, n_resamples=200, random_state=0
    ... )
    >>> round(ece, 4), pvalue
    (0.1..., 0.004975...)
    """
    p, y, w = _validated(y_true, y_proba, sample_weight, labels, pos_label, multiclass)
    n_bins = check_n_bins(n_bins)
    opts = dict(n_bins=n_bins, strategy=strategy)
    statistic = _error(bin_stats(binary_input(p, y, w), **opts), norm)
    rng = check_random_state(random_state)
    if w is not None:  # weight 0 is removal: resample the rows of positive weight
        keep = w > 0
        p, y, w = p[keep], y[keep], w[keep]
    n = p.shape[0]
    null = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.randint(0, n, n)
        ps = p[idx]
        ys = (rng.random_sample(n) < ps).astype(np.uint8)
        ws = None if w is None else w[idx]
        null[r] = _error(bin_stats(binary_input(ps, ys, ws), **opts), norm)
    # ties within rounding count as "at least as large"
    tol = 1e-12 * max(1.0, abs(statistic))
    pvalue = (1.0 + np.count_nonzero(null >= statistic - tol)) / (1.0 + n_resamples)
    return ConsistencyResamplingResult(
        statistic=float(statistic), pvalue=float(pvalue), null_distribution=null
    )


# --------------------------------------------------------------------------------------
# Bayesian ECE
# --------------------------------------------------------------------------------------


@validate_params(
    {
        **_DATA,
        **_BINARY_OR_TOP,
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_samples": [Interval(numbers.Integral, 1, None, closed="left")],
        "weighting": [StrOptions({"bin", "correct"})],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_expected_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=10,
    n_samples=500,
    weighting="bin",
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
    random_state=None,
):
    r"""Posterior samples of the expected calibration error (Bayesian ECE).

    The generative model of uncertainty_metrics' ``bayesian_expected_calibration_error``
    (``uncertainty_metrics/tensorflow/calibration.py``, described in its
    ``g3doc/bayesian-ece.md``): with ``M = n_bins`` equal-width bins, each prediction
    falls in one of the ``2M`` cells (outcome ``z`` in {0, 1}, bin ``b``) with
    probabilities ``q``, and its probability is a draw around the bin's mean ``mu_b``.
    The posterior factorises into

    * ``q ~ Dirichlet(C + 1/M)``, with ``C[z, b]`` the (weighted) number of predictions
      with outcome ``z`` in bin ``b``;
    * ``mu_b ~ TruncatedNormal(m_b, s_b^2)`` on the bin's interval, with
      ``m_b = (c_b + n_b pbar_b) / (n_b + 1)``, ``s_b^2 = sigma^2 / (n_b + 1)``, ``c_b``
      the bin centre, ``pbar_b`` the mean probability and ``n_b`` the weight in the
      bin, and ``sigma^2 = 1 / (12 M)`` (the reference's prior variance, kept as is; the
      variance of a uniform draw on a bin would be ``1 / (12 M^2)``).

    Each posterior draw gives one ECE:

    .. math::

        \mathrm{ECE} = \sum_b \pi_b\,\Bigl\lvert \frac{q_{1b}}{q_{0b} + q_{1b}}
            - \mu_b \Bigr\rvert, \qquad
        \pi_b = q_{0b} + q_{1b} \ (\texttt{weighting="bin"}), \quad
        \pi_b = \frac{q_{1b}}{\sum_{b'} q_{1b'}} \ (\texttt{weighting="correct"}).

    The default weights each bin by its probability ``P(bin)``, as the frequentist ECE
    does.  uncertainty_metrics weights by ``P(bin | correct)`` instead (an undocumented
    deviation from its own description); ``weighting="correct"`` reproduces it.

    Differences from uncertainty_metrics: the bins are skcalib's right-closed
    equal-width bins (float64), binary problems default to the positive-class
    probability (``multiclass="top_label"`` gives the reference's top-label view), and
    draws are seeded by ``random_state``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    n_bins : int, default=10
        Number of equal-width bins ``M``.
    n_samples : int, default=500
        Number of posterior draws.
    weighting : {"bin", "correct"}, default="bin"
        Bin weights: ``P(bin)`` or the reference's ``P(bin | correct)``.
    multiclass : {"auto", "top_label"}, default="auto"
        "auto": the positive-class probability of a binary problem, the top-label
        confidence against correctness otherwise.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights: the counts ``C`` and ``n_b`` are sums of weights, so the
        posterior concentrates as for ``w`` repetitions of a sample.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
    random_state : int, RandomState instance or None, default=None
        Seed of the posterior draws.

    Returns
    -------
    samples : ndarray of shape (n_samples,)
        Posterior draws of the ECE, in [0, 1].  Summarise them with quantiles (for
        example the 1%, 50% and 99% percentiles).

    References
    ----------
    Google uncertainty_metrics, ``uncertainty_metrics/tensorflow/calibration.py``
    (``bayesian_expected_calibration_error``) and ``g3doc/bayesian-ece.md``.
    Naeini, Cooper and Hauskrecht, "Obtaining Well Calibrated Probabilities Using
    Bayesian Binning", AAAI 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import bayesian_expected_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(5000)
    >>> y = (rng.random(5000) < p).astype(int)
    >>> draws = bayesian_expected_calibration_error(y, p, random_state=0)
    >>> draws.shape
    (500,)
    >>> bool(np.quantile(draws, 0.99) < 0.05)
    True
    """
    p, y, w = _validated(y_true, y_proba, sample_weight, labels, pos_label, multiclass)
    M = check_n_bins(n_bins)
    st = bin_stats(binary_input(p, y, w), n_bins=M)
    n_b = st.count[0]
    c1 = st.sum_true[0]
    c0 = np.maximum(n_b - c1, 0.0)
    pbar = np.zeros(M)
    np.divide(st.sum_proba[0], n_b, out=pbar, where=n_b > 0)
    rng = check_random_state(random_state)
    return _bayesian_ece_draws(c0, c1, n_b, pbar, M, n_samples, weighting, rng)


def _bayesian_ece_draws(c0, c1, n_b, pbar, M, n_samples, weighting, rng):
    """Posterior ECE draws from the (outcome, bin) counts (kernel)."""
    alpha = 1.0 / M
    q = rng.dirichlet(np.concatenate([c0, c1]) + alpha, size=n_samples)
    q0, q1 = q[:, :M], q[:, M:]
    edges = np.linspace(0.0, 1.0, M + 1)
    lo, hi = edges[:-1], edges[1:]
    centre = (np.arange(M) + 0.5) / M
    sigma2 = (1.0 / M) / 12.0
    mean = (centre + n_b * pbar) / (n_b + 1.0)
    sd = np.sqrt(sigma2 / (n_b + 1.0))
    a, b = (lo - mean) / sd, (hi - mean) / sd
    mu = stats.truncnorm.rvs(a, b, loc=mean, scale=sd, size=(n_samples, M), random_state=rng)
    mass = q0 + q1
    acc = q1 / mass
    if weighting == "bin":
        weight = mass
    else:
        weight = q1 / q1.sum(axis=1, keepdims=True)
    ece = (weight * np.abs(acc - mu)).sum(axis=1)
    return np.clip(ece, 0.0, 1.0)
