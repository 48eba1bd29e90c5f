"""Result classes of the functions of :mod:`skcalib.metrics` that return several values.

As the results of :mod:`scipy.stats` (``TtestResult``, ``BinomTestResult``,
``ConfidenceInterval``), each result unpacks as a short tuple of its main values —
``statistic, pvalue = spiegelhalter_test(y, p)``,
``low, high = calibration_error_ci(metric, y, p)``,
``prob_true, prob_pred = reliability_curve(y, p)`` (as
:func:`sklearn.calibration.calibration_curve`) — and carries everything else as
attributes that are not unpacked.  The results are frozen dataclasses: attributes can be
read, not reassigned.  They are not dicts: ``res["x"]`` indexes the unpacked tuple,
never a name (read ``res.x``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import ClassVar

import numpy as np

__all__ = [
    "BootstrapConfidenceInterval",
    "BrierDecompositionResult",
    "CalibrationErrorQuantilesResult",
    "CalibrationTestResult",
    "ConfidenceInterval",
    "ConsistencyResamplingResult",
    "CumulativeCalibrationTestResult",
    "GroupCalibrationResult",
    "HosmerLemeshowResult",
    "InformationCriterionResult",
    "MulticalibrationResult",
    "PITHistogramResult",
    "PSISLOOResult",
    "PairwiseDiversityResult",
    "QuantileCalibrationCurveResult",
    "RejectionCurveResult",
    "ReliabilityCurveResult",
    "ScoreDecompositionResult",
    "SmoothReliabilityCurveResult",
    "SquaredErrorConfidenceInterval",
    "UncertaintyDecompositionResult",
]


def _short_repr(value):
    """Readable repr of one attribute: arrays summarised after six values."""
    if isinstance(value, np.ndarray):
        body = np.array2string(value, threshold=6, edgeitems=3, separator=", ")
        return f"array({body})"
    return repr(value)


def _same(a, b):
    if a is b:
        return True
    if is_dataclass(a) and not isinstance(a, type):  # e.g. the BinStats of a curve
        return type(a) is type(b) and all(
            _same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a)
        )
    if _is_array(a) or _is_array(b):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
        except (TypeError, ValueError, RuntimeError):  # arrays without a host copy
            return False
    return a == b or (a != a and b != b)  # NaN equals NaN, as in np.array_equal


def _is_array(x):
    # numpy arrays and the arrays of other array API namespaces (curves of torch input)
    return isinstance(x, np.ndarray) or hasattr(x, "__array_namespace__")


@dataclass(frozen=True, eq=False, repr=False)
class _UnpackableResult:
    """A frozen result that unpacks as the tuple of its ``_unpacked`` attributes."""

    _unpacked: ClassVar[tuple[str, ...]] = ()

    def __iter__(self):
        return iter(tuple(getattr(self, name) for name in self._unpacked))

    def __len__(self):
        return len(self._unpacked)

    def __getitem__(self, key):
        return tuple(self)[key]

    def __eq__(self, other):
        # equal when of the same class with equal attributes (arrays compared by value)
        if type(other) is not type(self):
            return NotImplemented
        return all(_same(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    __hash__ = None  # results hold arrays: not hashable, as a tuple of arrays is not

    def __repr__(self):
        body = ", ".join(f"{f.name}={_short_repr(getattr(self, f.name))}" for f in fields(self))
        return f"{type(self).__name__}({body})"


@dataclass(frozen=True, eq=False, repr=False)
class CalibrationTestResult(_UnpackableResult):
    """Result of a test of calibration: unpacks as ``(statistic, pvalue)``.

    Returned by :func:`~skcalib.metrics.spiegelhalter_test`; the results of the other
    tests are subclasses with more attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    statistic : float
        The test statistic.
    pvalue : float
        The p-value: a small value is evidence against "the probabilities are
        calibrated".

    See Also
    --------
    HosmerLemeshowResult : Result of :func:`~skcalib.metrics.hosmer_lemeshow_test`.
    ConsistencyResamplingResult : Result of
        :func:`~skcalib.metrics.consistency_resampling_test`.

    Examples
    --------
    >>> from skcalib.metrics import spiegelhalter_test
    >>> res = spiegelhalter_test([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.3])
    >>> res
    CalibrationTestResult(statistic=-0.1951800145897..., pvalue=0.8452...)
    >>> statistic, pvalue = res
    >>> statistic == res.statistic and pvalue == res[1]
    True
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("statistic", "pvalue")

    statistic: float
    pvalue: float


@dataclass(frozen=True, eq=False, repr=False)
class HosmerLemeshowResult(CalibrationTestResult):
    """Result of :func:`~skcalib.metrics.hosmer_lemeshow_test`.

    Unpacks as ``(statistic, pvalue)``; the degrees of freedom and the table of
    groups are attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    statistic : float
        The Hosmer-Lemeshow statistic.
    pvalue : float
        Chi-squared tail probability of ``statistic`` with ``df`` degrees of freedom.
    df : int
        Degrees of freedom of the chi-squared reference.
    observed : ndarray of shape (n_nonempty_groups,)
        (Weighted) number of events of each non-empty group.
    expected : ndarray of shape (n_nonempty_groups,)
        Expected number of events of each group (sum of its probabilities).
    count : ndarray of shape (n_nonempty_groups,)
        (Weighted) size of each group.

    Examples
    --------
    >>> from skcalib.metrics import hosmer_lemeshow_test
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> p = [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.6, 0.8, 0.85, 0.9]
    >>> statistic, pvalue = hosmer_lemeshow_test(y, p, n_groups=5)
    >>> round(statistic, 4), round(pvalue, 4)
    (3.337, 0.6482)
    >>> hosmer_lemeshow_test(y, p, n_groups=5).count
    array([2., 2., 2., 2., 2.])
    """

    df: int
    observed: np.ndarray
    expected: np.ndarray
    count: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class ConsistencyResamplingResult(CalibrationTestResult):
    """Result of :func:`~skcalib.metrics.consistency_resampling_test`.

    Unpacks as ``(statistic, pvalue)``; the surrogate errors are an attribute.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    statistic : float
        The observed binned calibration error.
    pvalue : float
        Fraction (plus one, over ``n_resamples`` plus one) of surrogate errors at least
        as large as ``statistic``.
    null_distribution : ndarray of shape (n_resamples,)
        The calibration errors of the surrogate data sets.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import consistency_resampling_test
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(300)
    >>> y = (rng.random(300) < p).astype(int)
    >>> res = consistency_resampling_test(y, p, n_resamples=99, random_state=0)
    >>> ece, pvalue = res
    >>> res.null_distribution.shape
    (99,)
    """

    null_distribution: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class ConfidenceInterval(_UnpackableResult):
    """A confidence interval: unpacks as ``(low, high)``.

    The base class of the intervals of :mod:`skcalib.metrics`; the functions return the
    subclasses :class:`BootstrapConfidenceInterval` and
    :class:`SquaredErrorConfidenceInterval`, which add how the interval was obtained.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    low : float
        Lower end of the interval.
    high : float
        Upper end of the interval.
    estimate : float
        The point estimate (the metric on the data).
    confidence_level : float
        Nominal coverage of the interval.

    Examples
    --------
    >>> from skcalib.metrics import ConfidenceInterval
    >>> ci = ConfidenceInterval(low=0.1, high=0.3, estimate=0.2, confidence_level=0.95)
    >>> low, high = ci
    >>> low, high, ci.estimate
    (0.1, 0.3, 0.2)
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("low", "high")

    low: float
    high: float
    estimate: float
    confidence_level: float


@dataclass(frozen=True, eq=False, repr=False)
class BootstrapConfidenceInterval(ConfidenceInterval):
    """Result of :func:`~skcalib.metrics.calibration_error_ci`: unpacks as ``(low, high)``.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    low : float
        Lower end of the interval.
    high : float
        Upper end of the interval.
    estimate : float
        The metric on the data.
    confidence_level : float
        Nominal coverage of the interval.
    standard_error : float
        Standard deviation (``ddof=1``) of the bootstrap values.
    bootstrap_distribution : ndarray of shape (n_resamples,)
        The metric on each bootstrap resample.
    method : {"percentile", "bca"}
        How the interval was read from the bootstrap distribution.
    resample : {"bins", "samples"}
        What was resampled: the (bin, outcome) cells or the rows.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import calibration_error_ci, expected_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(500)
    >>> y = (rng.random(500) < p).astype(int)
    >>> ci = calibration_error_ci(expected_calibration_error, y, p, n_bins=5, random_state=0)
    >>> low, high = ci
    >>> bool(low <= ci.estimate <= high), ci.resample, ci.bootstrap_distribution.shape
    (True, 'bins', (1000,))
    """

    standard_error: float
    bootstrap_distribution: np.ndarray
    method: str
    resample: str


@dataclass(frozen=True, eq=False, repr=False)
class SquaredErrorConfidenceInterval(ConfidenceInterval):
    """Interval of a root-mean-squared error from a normal interval of its square.

    Returned by :func:`~skcalib.metrics.semiparametric_calibration_error_ci` and
    :func:`~skcalib.metrics.censored_calibration_error_ci`.  With ``z`` the normal
    quantile of ``confidence_level``, the interval is
    ``(sqrt(max(estimate_squared - z se, 0)), sqrt(max(estimate_squared + z se, 0)))``,
    ``se = standard_error_squared``.  Unpacks as ``(low, high)``.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    low : float
        Lower end of the interval (square-root scale).
    high : float
        Upper end of the interval (square-root scale).
    estimate : float
        The error on the square-root scale, ``sqrt(max(estimate_squared, 0))``.
    confidence_level : float
        Nominal coverage of the interval.
    estimate_squared : float
        The estimate of the squared error (may be slightly negative).
    standard_error_squared : float
        Bootstrap standard error of ``estimate_squared``.

    Examples
    --------
    >>> from skcalib.metrics import SquaredErrorConfidenceInterval
    >>> ci = SquaredErrorConfidenceInterval(
    ...     low=0.0, high=0.25, estimate=0.2, confidence_level=0.95,
    ...     estimate_squared=0.04, standard_error_squared=0.01,
    ... )
    >>> tuple(ci)
    (0.0, 0.25)
    """

    estimate_squared: float
    standard_error_squared: float


# --------------------------------------------------------------------------------------
# curves
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class ReliabilityCurveResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.reliability_curve`.

    Unpacks as ``(prob_true, prob_pred)``, the two arrays of
    :func:`sklearn.calibration.calibration_curve` in its order; the bin counts, edges and
    statistics and the intervals are attributes.  Also returned by
    :meth:`CalibrationAccumulator.reliability_curve
    <skcalib.streaming.CalibrationAccumulator.reliability_curve>`.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    prob_true : ndarray of shape (n_bins,) or (n_classes, n_bins)
        Weighted mean outcome per bin (observed frequency, or accuracy for top-label);
        NaN for empty bins.
    prob_pred : ndarray of the shape of ``prob_true``
        Weighted mean predicted probability per bin; NaN for empty bins.
    bin_count : ndarray of the shape of ``prob_true``
        Total sample weight per bin (the number of samples without weights).
    bin_edges : ndarray of shape (n_bins + 1,) or (n_classes, n_bins + 1)
        Edges of the bins.
    bin_stats : BinStats
        The sufficient statistics the curve was computed from.
    prob_true_low : ndarray of the shape of ``prob_true`` or None, default=None
        Lower end of the interval of each bin's observed frequency (NaN for empty bins);
        None when no ``confidence_level`` was asked for.
    prob_true_high : ndarray of the shape of ``prob_true`` or None, default=None
        Upper end of that interval; None when no ``confidence_level`` was asked for.

    Examples
    --------
    >>> from skcalib.metrics import reliability_curve
    >>> curve = reliability_curve([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> prob_true, prob_pred = curve
    >>> prob_true, prob_pred
    (array([0., 1.]), array([0.25, 0.7 ]))
    >>> curve.bin_count, curve.prob_true_low is None
    (array([2., 2.]), True)
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("prob_true", "prob_pred")

    prob_true: np.ndarray
    prob_pred: np.ndarray
    bin_count: np.ndarray
    bin_edges: np.ndarray
    bin_stats: object
    prob_true_low: np.ndarray | None = None
    prob_true_high: np.ndarray | None = None


@dataclass(frozen=True, eq=False, repr=False)
class SmoothReliabilityCurveResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.smooth_reliability_curve`.

    Unpacks as ``(prob_true, prob_pred)``, in the order of
    :func:`~skcalib.metrics.reliability_curve`; the density, the bandwidth and the
    smooth ECE are attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    prob_true : ndarray of shape (n_points,)
        The smoothed observed frequency at each point, clipped to [0, 1]; NaN where
        the density of the predictions is below 1e-9 of its maximum.
    prob_pred : ndarray of shape (n_points,)
        The evaluation points, evenly spaced on [0, 1].
    density : ndarray of shape (n_points,)
        Kernel density of the predictions at each point (integrating to 1 on [0, 1]).
    bandwidth : float
        The kernel bandwidth used.
    smece : float
        The smooth ECE at that bandwidth.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import smooth_reliability_curve
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)
    >>> y = (rng.random(1000) < p).astype(int)
    >>> prob_true, prob_pred = smooth_reliability_curve(y, p, n_points=3, bandwidth=0.1)
    >>> prob_pred
    array([0. , 0.5, 1. ])
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("prob_true", "prob_pred")

    prob_true: np.ndarray
    prob_pred: np.ndarray
    density: np.ndarray
    bandwidth: float
    smece: float


@dataclass(frozen=True, eq=False, repr=False)
class CalibrationErrorQuantilesResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.expected_calibration_error_quantiles`.

    Unpacks as ``(ece, bin_accuracy, bin_confidence, bin_count, bin_edges_log, bin)``:
    the six outputs of ``tfp.stats.expected_calibration_error_quantiles``, in its order.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    ece : float
        The expected calibration error.
    bin_accuracy : ndarray of shape (n_bins,)
        Fraction of hits per bucket (0 for empty buckets).
    bin_confidence : ndarray of shape (n_bins,)
        Mean predicted probability per bucket (0 for empty buckets).
    bin_count : ndarray of shape (n_bins,)
        Number of samples per bucket (float).
    bin_edges_log : ndarray of shape (n_bins + 1,)
        Bucket edges as log probabilities.
    bin : ndarray of shape (n_samples,)
        Bucket of each sample.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import expected_calibration_error_quantiles
    >>> hit = [0, 0, 1, 0, 1, 1]
    >>> log_p = np.log([0.1, 0.05, 0.5, 0.2, 0.99, 0.99])
    >>> ece, acc, conf, count, edges, bucket = expected_calibration_error_quantiles(
    ...     hit, log_p, n_bins=3
    ... )
    >>> round(ece, 3), count
    (0.145, array([2., 1., 3.]))
    """

    _unpacked: ClassVar[tuple[str, ...]] = (
        "ece",
        "bin_accuracy",
        "bin_confidence",
        "bin_count",
        "bin_edges_log",
        "bin",
    )

    ece: float
    bin_accuracy: np.ndarray
    bin_confidence: np.ndarray
    bin_count: np.ndarray
    bin_edges_log: np.ndarray
    bin: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class RejectionCurveResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.rejection_curve`.

    Unpacks as ``(fraction_rejected, accuracy, thresholds)``: the x values, the y
    values and the thresholds, as :func:`sklearn.metrics.roc_curve` unpacks as
    ``(fpr, tpr, thresholds)``; the oracle, the coverage and the base accuracy are
    attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    fraction_rejected : ndarray of shape (n_thresholds,)
        Fraction of the total weight rejected, increasing (the first point rejects
        nothing).
    accuracy : ndarray of shape (n_thresholds,)
        Accuracy of the kept predictions.
    thresholds : ndarray of shape (n_thresholds,)
        Uncertainty threshold of each point (the largest uncertainty kept); with the
        default uncertainty, ``1 - confidence``.
    oracle_accuracy : ndarray of shape (n_thresholds,)
        The best accuracy any ranking reaches when the same fraction is rejected.
    coverage : ndarray of shape (n_thresholds,)
        ``1 - fraction_rejected``.
    base_accuracy : float
        Accuracy with nothing rejected (the expected accuracy of random rejection).

    Examples
    --------
    >>> from skcalib.metrics import rejection_curve
    >>> curve = rejection_curve([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4])
    >>> fraction_rejected, accuracy, thresholds = curve
    >>> fraction_rejected, accuracy
    (array([0.  , 0.5 , 0.75]), array([0.75, 1.  , 1.  ]))
    >>> curve.base_accuracy
    0.75
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("fraction_rejected", "accuracy", "thresholds")

    fraction_rejected: np.ndarray
    accuracy: np.ndarray
    thresholds: np.ndarray
    oracle_accuracy: np.ndarray
    coverage: np.ndarray
    base_accuracy: float


@dataclass(frozen=True, eq=False, repr=False)
class PITHistogramResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.pit_histogram`.

    Unpacks as ``(density, bin_edges)``, as :func:`numpy.histogram` with
    ``density=True``; the counts and the band of a uniform sample are attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    density : ndarray of shape (n_bins,)
        Height of each bin (1 for a uniform histogram).
    bin_edges : ndarray of shape (n_bins + 1,)
        Edges of the bins.
    bin_count : ndarray of shape (n_bins,)
        Total weight in each bin (the number of values without weights).
    band_low : float
        Lower end of the density range that each bin of a uniform sample of the same
        (effective) size stays in with probability ``confidence_level``.
    band_high : float
        Upper end of that range.

    Examples
    --------
    >>> from skcalib.metrics import pit_histogram
    >>> hist = pit_histogram([0.05, 0.3, 0.35, 0.8], n_bins=2)
    >>> density, bin_edges = hist
    >>> density, bin_edges
    (array([1.5, 0.5]), array([0. , 0.5, 1. ]))
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("density", "bin_edges")

    density: np.ndarray
    bin_edges: np.ndarray
    bin_count: np.ndarray
    band_low: float
    band_high: float


@dataclass(frozen=True, eq=False, repr=False)
class QuantileCalibrationCurveResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.quantile_calibration_curve`.

    Unpacks as ``(observed_frequency, levels)``: observed then nominal, in the order of
    :func:`~skcalib.metrics.reliability_curve` (``prob_true, prob_pred``); the band is
    an attribute.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    observed_frequency : ndarray of shape (n_levels,)
        Fraction of the (weighted) PIT values at most each level.
    levels : ndarray of shape (n_levels,)
        The nominal levels (float64).
    band_low : ndarray of shape (n_levels,) or None, default=None
        Lower end of the pointwise band of calibrated forecasts at each level; None
        when no ``confidence_level`` was asked for.
    band_high : ndarray of shape (n_levels,) or None, default=None
        Upper end of that band; None when no ``confidence_level`` was asked for.

    Examples
    --------
    >>> from skcalib.metrics import quantile_calibration_curve
    >>> curve = quantile_calibration_curve([0.05, 0.3, 0.35, 0.8], levels=[0.25, 0.5, 0.9])
    >>> observed, levels = curve
    >>> observed, levels
    (array([0.25, 0.75, 1.  ]), array([0.25, 0.5 , 0.9 ]))
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("observed_frequency", "levels")

    observed_frequency: np.ndarray
    levels: np.ndarray
    band_low: np.ndarray | None = None
    band_high: np.ndarray | None = None


# --------------------------------------------------------------------------------------
# decompositions
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class BrierDecompositionResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.brier_decomposition`.

    Unpacks as ``(uncertainty, resolution, reliability)``, the order of Murphy's terms
    in the function's documentation and of ``uncertainty_metrics.brier_decomposition``;
    the two within-bin terms (0 without bins) are attributes.  Also returned by
    :meth:`CalibrationAccumulator.brier_decomposition
    <skcalib.streaming.CalibrationAccumulator.brier_decomposition>`.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    uncertainty : float
        The uncertainty of the outcomes (a property of the data).
    resolution : float
        The resolution (>= 0, higher is better).
    reliability : float
        The reliability (>= 0, lower is better).
    within_bin_variance : float
        The within-bin variance of the forecasts (0.0 without bins).
    within_bin_covariance : float
        The within-bin covariance of outcomes and forecasts (0.0 without bins).

    Examples
    --------
    >>> from skcalib.metrics import brier_decomposition
    >>> unc, res, rel = brier_decomposition([0, 0, 1, 1, 1], [0.2, 0.2, 0.2, 0.8, 0.8])
    >>> round(unc, 4), round(res, 4), round(rel, 4)
    (0.24, 0.1067, 0.0267)
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("uncertainty", "resolution", "reliability")

    uncertainty: float
    resolution: float
    reliability: float
    within_bin_variance: float
    within_bin_covariance: float


@dataclass(frozen=True, eq=False, repr=False)
class ScoreDecompositionResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.score_decomposition`.

    Unpacks as ``(score, miscalibration, discrimination, uncertainty)``, with
    ``score = miscalibration - discrimination + uncertainty``.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    score : float
        The mean score of the forecasts.
    miscalibration : float
        Score of the forecasts minus that of their isotonic recalibration (>= 0).
    discrimination : float
        Score of the climatological forecast minus that of the recalibrated forecasts
        (>= 0).
    uncertainty : float
        Score of the climatological forecast.

    Examples
    --------
    >>> from skcalib.metrics import score_decomposition
    >>> score, mcb, dsc, unc = score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    >>> score, mcb, dsc, unc
    (0.275, 0.15, 0.125, 0.25)
    """

    _unpacked: ClassVar[tuple[str, ...]] = (
        "score",
        "miscalibration",
        "discrimination",
        "uncertainty",
    )

    score: float
    miscalibration: float
    discrimination: float
    uncertainty: float


@dataclass(frozen=True, eq=False, repr=False)
class UncertaintyDecompositionResult(_UnpackableResult):
    """Decomposition of the predictive uncertainty: unpacks as ``(total, data, model)``.

    Returned by :func:`~skcalib.metrics.model_uncertainty` and
    :func:`~skcalib.metrics.knowledge_uncertainty`; the terms of
    ``total = data + model`` in the order of the documented identity.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    total : ndarray of shape (n_samples,)
        Entropy of the averaged (expected) prediction.
    data : ndarray of shape (n_samples,)
        Expected entropy (aleatoric uncertainty).
    model : ndarray of shape (n_samples,)
        Mutual information (epistemic, knowledge uncertainty), at least 0.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import model_uncertainty
    >>> total, data, model = model_uncertainty([[[0.9, 0.1]], [[0.1, 0.9]]])
    >>> np.round([total, data, model], 4)
    array([[0.6931],
           [0.3251],
           [0.3681]])
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("total", "data", "model")

    total: np.ndarray
    data: np.ndarray
    model: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class PairwiseDiversityResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.average_pairwise_diversity`.

    Unpacks as ``(disagreement, double_fault, kl_divergence, cosine_distance,
    lp_distance)``, the five averages in the order of their documentation.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    disagreement : float
        Mean :func:`~skcalib.metrics.disagreement` over the pairs of members.
    double_fault : float
        Mean :func:`~skcalib.metrics.double_fault`.
    kl_divergence : float
        Mean :func:`~skcalib.metrics.kl_divergence`, over the ordered pairs.
    cosine_distance : float
        Mean :func:`~skcalib.metrics.cosine_distance`.
    lp_distance : float
        Mean :func:`~skcalib.metrics.lp_distance`.

    Examples
    --------
    >>> from skcalib.metrics import average_pairwise_diversity
    >>> members = [[[0.9, 0.1], [0.4, 0.6]], [[0.6, 0.4], [0.7, 0.3]]]
    >>> dis, df, kl, cos, lp = average_pairwise_diversity([0, 1], members)
    >>> dis, df
    (0.5, 0.0)
    """

    _unpacked: ClassVar[tuple[str, ...]] = (
        "disagreement",
        "double_fault",
        "kl_divergence",
        "cosine_distance",
        "lp_distance",
    )

    disagreement: float
    double_fault: float
    kl_divergence: float
    cosine_distance: float
    lp_distance: float


# --------------------------------------------------------------------------------------
# information criteria
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class InformationCriterionResult(_UnpackableResult):
    """Result of an information criterion: unpacks as ``(value, sem)``.

    Returned by :func:`~skcalib.metrics.negative_waic` and
    :func:`~skcalib.metrics.importance_sampling_cross_validation`; the per-sample terms
    are an attribute.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    value : float
        The mean of the per-sample terms (higher is better).
    sem : float
        Its standard error (NaN when a single sample has a non-zero weight).
    pointwise : ndarray of shape (n_samples,)
        The per-sample terms.

    See Also
    --------
    PSISLOOResult : Result of :func:`~skcalib.metrics.psis_loo`.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import negative_waic
    >>> log_lik = np.log([[0.5, 0.25, 0.4], [0.1, 0.3, 0.2], [0.9, 0.6, 0.8]])
    >>> value, sem = negative_waic(log_lik)
    >>> round(value, 6), negative_waic(log_lik).pointwise.shape
    (-1.103774, (3,))
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("value", "sem")

    value: float
    sem: float
    pointwise: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class PSISLOOResult(InformationCriterionResult):
    """Result of :func:`~skcalib.metrics.psis_loo`.

    Unpacks as ``(value, sem)``; the per-sample terms and the Pareto shapes are
    attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    value : float
        The mean leave-one-out log predictive density per sample (higher is better).
    sem : float
        Its standard error (NaN when a single sample has a non-zero weight).
    pointwise : ndarray of shape (n_samples,)
        The leave-one-out log predictive density of each sample.
    pareto_k : ndarray of shape (n_samples,)
        The fitted Pareto shape of each sample (above 0.7: unreliable).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import psis_loo
    >>> rng = np.random.default_rng(0)
    >>> mu = rng.normal(0.0, 0.1, size=200)
    >>> log_lik = -0.5 * (np.array([[-0.3], [0.1], [0.4]]) - mu) ** 2
    >>> result = psis_loo(log_lik)
    >>> value, sem = result
    >>> value == result.value, result.pareto_k.shape
    (True, (3,))
    """

    pareto_k: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class CumulativeCalibrationTestResult(CalibrationTestResult):
    """Result of :func:`~skcalib.metrics.cumulative_calibration_test`.

    Unpacks as ``(statistic, pvalue)``; the standardised statistic and the null
    standard deviation are attributes.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    statistic : float
        The cumulative calibration error (ECCE), as
        :func:`~skcalib.metrics.cumulative_calibration_error`.
    pvalue : float
        ``P(R > sigma)`` for ``R`` the range of standard Brownian motion on [0, 1]
        (class-wise: Bonferroni over the classes).
    sigma : float
        The statistic over its standard deviation under calibration (class-wise: the
        largest over the classes).
    null_std : float
        That standard deviation (class-wise: of the class with the largest ``sigma``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import cumulative_calibration_test
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> y = (rng.random(2000) < p).astype(int)
    >>> res = cumulative_calibration_test(y, p)
    >>> ecce, pvalue = res
    >>> bool(res.sigma == ecce / res.null_std), bool(pvalue > 0.05)
    (True, True)
    """

    sigma: float
    null_std: float


@dataclass(frozen=True, eq=False, repr=False)
class MulticalibrationResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.multicalibration_error`.

    Unpacks as ``(mce, pvalue)``; everything else is an attribute.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    mce : float
        The multicalibration error on the absolute scale of MCGrad (Guy et al. 2025):
        ``sigma`` times the null standard deviation of the whole population's ECCE.
    pvalue : float
        p-value of "every segment is calibrated", valid for the number of segments
        tested (Bonferroni: the smallest per-segment p-value times the number of
        segments, capped at 1; the Holm-adjusted smallest p-value).
    sigma : float
        The largest per-segment ECCE over its null standard deviation.
    pvalue_unadjusted : float
        The smallest per-segment p-value (MCGrad's ``mce_pvalue``), not valid for the
        number of segments tested.
    mde : float
        Minimum detectable error: 5 times the null standard deviation of the whole
        population's ECCE.
    worst_segment : dict
        ``{feature: value}`` of the segment with the largest ``sigma`` (``{}`` for
        the whole population).
    n_segments : int
        Number of segments tested (the whole population included).
    segment_sigma : ndarray of shape (n_segments,)
        Each segment's ECCE over its null standard deviation.
    segment_ecce : ndarray of shape (n_segments,)
        Each segment's ECCE.
    segment_size : ndarray of shape (n_segments,)
        Each segment's number of samples.
    segments : list of dict
        Each segment as ``{feature: value}``, in the order of the arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import multicalibration_error
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n)])
    >>> p = rng.uniform(0.1, 0.9, n)
    >>> y = (rng.random(n) < p).astype(int)
    >>> res = multicalibration_error(y, p, X)
    >>> mce, pvalue = res
    >>> res.n_segments, bool(pvalue > 0.05)
    (12, True)
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("mce", "pvalue")

    mce: float
    pvalue: float
    sigma: float
    pvalue_unadjusted: float
    mde: float
    worst_segment: dict
    n_segments: int
    segment_sigma: np.ndarray
    segment_ecce: np.ndarray
    segment_size: np.ndarray
    segments: list


@dataclass(frozen=True, eq=False, repr=False)
class GroupCalibrationResult(_UnpackableResult):
    """Per-group calibration table of :func:`~skcalib.metrics.calibration_by_group`.

    Returned with ``as_frame=False`` or without pandas (with pandas the function
    returns a ``DataFrame`` of the same columns).

    Unpacks as ``(groups, columns)``.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    groups : list
        The group keys (values of ``groups``; tuples for several columns), then the
        label of the overall row.
    columns : dict of str to ndarray
        One array per column, rows in the order of ``groups``.

    Examples
    --------
    >>> from skcalib.metrics import calibration_by_group
    >>> res = calibration_by_group(
    ...     [0, 1, 1, 0], [0.2, 0.7, 0.9, 0.4], ["a", "a", "b", "b"], as_frame=False
    ... )
    >>> res.groups
    ['a', 'b', '(overall)']
    >>> res.columns["n"]
    array([2, 2, 4])
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("groups", "columns")

    groups: list
    columns: dict
