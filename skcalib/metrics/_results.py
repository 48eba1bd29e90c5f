"""Result classes of the statistical calibration functions.

As the results of :mod:`scipy.stats` (``TtestResult``, ``BinomTestResult``,
``ConfidenceInterval``), each result unpacks as a short tuple of its main values —
``statistic, pvalue = spiegelhalter_test(y, p)`` and
``low, high = calibration_error_ci(metric, y, p)`` — and carries everything else as
attributes that are not unpacked.  The results are frozen dataclasses: attributes can be
read, not reassigned.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

__all__ = [
    "BootstrapConfidenceInterval",
    "CalibrationTestResult",
    "ConfidenceInterval",
    "ConsistencyResamplingResult",
    "HosmerLemeshowResult",
    "SquaredErrorConfidenceInterval",
]


def _short_repr(value):
    """Readable repr of one attribute: arrays summarised after six values."""
    if isinstance(value, np.ndarray):
        body = np.array2string(value, threshold=6, edgeitems=3, separator=", ")
        return f"array({body})"
    return repr(value)


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b, equal_nan=True))
    return a == b or (a != a and b != b)  # NaN equals NaN, as in np.array_equal


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
