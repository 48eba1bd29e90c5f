"""Calibration of probabilistic regression from probability integral transform values.

The PIT values of :func:`pit_normal` and :func:`pit_ensemble` are uniform on [0, 1] when
the forecasts are calibrated.  :func:`pit_histogram` bins them (with the one binning
core) and gives the band a uniform sample of the same size stays in;
:func:`quantile_calibration_curve` gives, for each nominal level ``tau``, the fraction of
observations below the predicted ``tau``-quantile.  Both are what
:class:`skcalib.display.PITDisplay` draws.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.stats import binom

from ..._core._binning import _uniform_edges, bin_index_unclipped, check_n_bins
from ..._core._validation import (
    _check_real_array,
    _find_nonfinite,
    _to_numpy,
    check_sample_weight,
    iter_row_chunks,
)
from ...utils._sklearn_compat import Interval, validate_params
from .._results import PITHistogramResult, QuantileCalibrationCurveResult

__all__ = ["pit_histogram", "quantile_calibration_curve"]


def _check_pit(pit_values, sample_weight):
    """1-D PIT array and validated weights (None or float64).

    The values themselves are checked chunk by chunk by :func:`_check_pit_chunk`, in
    the pass that counts them.
    """
    pit = _check_real_array(pit_values, "pit_values")
    if sample_weight is not None and not isinstance(sample_weight, numbers.Number):
        shape = np.shape(_to_numpy(sample_weight, "sample_weight"))
        if len(shape) == 1 and shape[0] != pit.shape[0]:
            raise ValueError(
                f"sample_weight has {shape[0]} elements but pit_values has {pit.shape[0]} values"
            )
    sw = check_sample_weight(sample_weight, pit.shape[0])
    return pit, sw


def _check_pit_chunk(chunk, start, pit):
    """Raise a ValueError naming the first NaN, infinity or value outside [0, 1]."""
    if chunk.min() >= 0 and chunk.max() <= 1:  # NaN fails both comparisons
        return
    _find_nonfinite(pit[start : start + chunk.shape[0]], "pit_values")
    bad = start + int(np.flatnonzero((chunk < 0) | (chunk > 1))[0])
    raise ValueError(
        f"pit_values must lie in [0, 1] (they are values of a CDF); "
        f"pit_values[{bad}] = {float(pit[bad])!r}"
    )


def _chunked_counts(pit, sw, n_cells, index):
    """Weighted counts of ``index(chunk)`` over ``n_cells`` cells, one checked pass."""
    counts = np.zeros(n_cells)
    for start, stop in iter_row_chunks(pit.shape[0], pit.itemsize):
        c = pit[start:stop]
        _check_pit_chunk(c, start, pit)
        w = None if sw is None else sw[start:stop]
        counts += np.bincount(index(c), weights=w, minlength=n_cells)
    return counts


#: Up to this many levels, counting the levels below each value by comparisons (one
#: vectorised pass per level over a cached chunk) beats a binary search per value.
_MAX_LEVELS_BY_COMPARISON = 64


def _levels_below(tau_sorted):
    """``c -> searchsorted(tau_sorted, c, side="left")``: the number of levels ``< c``."""
    if tau_sorted.shape[0] > _MAX_LEVELS_BY_COMPARISON:
        return lambda c: np.searchsorted(tau_sorted, c, side="left")

    def below(c):
        idx = np.zeros(c.shape, dtype=np.uint8)
        for t in tau_sorted:
            np.add(idx, c > t, out=idx)
        return idx

    return below


def _effective_size(sw, n):
    """Number of samples, or Kish's effective sample size ``(sum w)^2 / sum w^2``."""
    if sw is None:
        return float(n)
    return float(sw.sum() ** 2 / np.dot(sw, sw))


def _binomial_band(n_eff, p, confidence_level):
    """Central ``confidence_level`` range of Binomial(m, p) / m, m = floor(n_eff) >= 1."""
    m = max(int(np.floor(n_eff + 1e-9)), 1)
    alpha = 1.0 - confidence_level
    low = binom.ppf(alpha / 2, m, p) / m
    high = binom.ppf(1 - alpha / 2, m, p) / m
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


@validate_params(
    {
        "pit_values": ["array-like"],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def pit_histogram(pit_values, *, n_bins=10, confidence_level=0.95, sample_weight=None):
    r"""Histogram of PIT values, with the band of a uniform sample of the same size.

    The ``n_bins`` equal-width bins on [0, 1] are those of the rest of skcalib (edges
    ``np.linspace(0, 1, n_bins + 1)``, right-closed, the first bin also holds 0).  The
    height of bin ``b`` is a density,

    .. math::

        h_b = B \, \frac{\sum_{i \in b} w_i}{\sum_i w_i},

    which is 1 in every bin for perfectly uniform values.  Calibrated forecasts give
    uniform PIT values, so each bin's share is then Binomial(n, 1/B) / n; the band is
    its central ``confidence_level`` range (binomial quantiles, times B), pointwise per
    bin.  Bins outside the band point at miscalibration: a U shape means over-confident
    forecasts (predictive distributions too narrow), a hump under-confident ones, a
    slope a biased mean.

    Parameters
    ----------
    pit_values : array-like of shape (n_samples,)
        PIT values in [0, 1], e.g. from :func:`pit_normal` or :func:`pit_ensemble`.
    n_bins : int, default=10
        Number of bins.
    confidence_level : float in (0, 1), default=0.95
        Level of the band of a uniform sample.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.  The band then uses the effective sample size
        ``n = (sum w)^2 / sum w^2`` (Kish), rounded down, instead of the number of
        samples.

    Returns
    -------
    hist : PITHistogramResult
        Unpacks as ``(density, bin_edges)``, as :func:`numpy.histogram` with
        ``density=True``.  With the attributes:

        - ``density``: ndarray of shape (n_bins,), the height of each bin (1 for a
          uniform histogram).
        - ``bin_count``: ndarray of shape (n_bins,), the total weight in each bin (the
          number of values without weights).
        - ``bin_edges``: ndarray of shape (n_bins + 1,).
        - ``band_low``, ``band_high``: floats, the density range that each bin of a
          uniform sample of the same (effective) size stays in with probability
          ``confidence_level``.

    See Also
    --------
    quantile_calibration_curve : The cumulative view of the same values.

    References
    ----------
    T. Gneiting, F. Balabdaoui and A. E. Raftery, "Probabilistic forecasts, calibration
    and sharpness", Journal of the Royal Statistical Society B 69(2), 2007.
    T. M. Hamill, "Interpretation of rank histograms for verifying ensemble forecasts",
    Monthly Weather Review 129(3), 2001.

    Examples
    --------
    >>> from skcalib.metrics import pit_histogram
    >>> density, bin_edges = pit_histogram([0.05, 0.3, 0.35, 0.8], n_bins=2)
    >>> bin_edges
    array([0. , 0.5, 1. ])
    >>> hist = pit_histogram([0.05, 0.3, 0.35, 0.8], n_bins=2)
    >>> hist.density
    array([1.5, 0.5])
    >>> hist.bin_count
    array([3., 1.])
    >>> float(hist.band_low), float(hist.band_high)
    (0.0, 2.0)
    """
    n_bins = check_n_bins(n_bins)
    pit, sw = _check_pit(pit_values, sample_weight)
    edges = _uniform_edges(n_bins)
    # the bin index of the binning core (right-closed bins, exact on the edges); values
    # are in [0, 1], so the core's extra slot for values above 1 stays empty
    count = _chunked_counts(
        pit, sw, n_bins + 1, lambda c: bin_index_unclipped(c, edges, uniform=True)
    )
    count = count[:n_bins]
    total = count.sum()
    density = count * (n_bins / total)
    n_eff = _effective_size(sw, pit.shape[0])
    low, high = _binomial_band(n_eff, 1.0 / n_bins, confidence_level)
    return PITHistogramResult(
        density=density,
        bin_edges=edges,
        bin_count=count,
        band_low=float(low) * n_bins,
        band_high=float(high) * n_bins,
    )


@validate_params(
    {
        "pit_values": ["array-like"],
        "levels": ["array-like", None],
        "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def quantile_calibration_curve(
    pit_values, *, levels=None, confidence_level=None, sample_weight=None
):
    r"""Observed frequency below each predicted quantile, from PIT values.

    For a nominal level :math:`\tau`, the observation falls below the predicted
    :math:`\tau`-quantile exactly when its PIT value is at most :math:`\tau`, so the
    observed frequency is the (weighted) empirical CDF of the PIT values,

    .. math::

        \hat F(\tau) = \frac{\sum_i w_i \, [\mathrm{PIT}_i \le \tau]}{\sum_i w_i}.

    Calibrated forecasts give :math:`\hat F(\tau) \approx \tau` (the diagonal); a curve
    below the diagonal at low levels and above it at high levels (an S shape) means
    over-confident forecasts, the mirror shape under-confident ones.  This is the
    calibration plot of regression of Kuleshov, Fenner and Ermon (2018).

    Parameters
    ----------
    pit_values : array-like of shape (n_samples,)
        PIT values in [0, 1], e.g. from :func:`pit_normal` or :func:`pit_ensemble`.
    levels : array-like of shape (n_levels,), default=None
        Nominal levels in [0, 1]; default ``np.linspace(0, 1, 21)``.
    confidence_level : float in (0, 1), default=None
        When given, also return the pointwise band of calibrated forecasts: the central
        ``confidence_level`` range of Binomial(n, tau) / n at each level, with ``n`` the
        number of samples (with weights, the effective sample size
        ``(sum w)^2 / sum w^2``, rounded down).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.

    Returns
    -------
    curve : QuantileCalibrationCurveResult
        Unpacks as ``(observed_frequency, levels)``, observed then nominal as
        :func:`reliability_curve` (``prob_true, prob_pred``).  With the attributes
        ``observed_frequency`` (ndarray of shape (n_levels,)), ``levels`` (same shape,
        float64) and ``band_low`` and ``band_high`` (same shape; None without
        ``confidence_level``).

    See Also
    --------
    pit_histogram : The binned view of the same values.

    References
    ----------
    V. Kuleshov, N. Fenner and S. Ermon, "Accurate Uncertainties for Deep Learning Using
    Calibrated Regression", ICML 2018.
    T. Gneiting, F. Balabdaoui and A. E. Raftery, "Probabilistic forecasts, calibration
    and sharpness", Journal of the Royal Statistical Society B 69(2), 2007.

    Examples
    --------
    >>> from skcalib.metrics import quantile_calibration_curve
    >>> curve = quantile_calibration_curve([0.05, 0.3, 0.35, 0.8], levels=[0.25, 0.5, 0.9])
    >>> observed, levels = curve
    >>> observed, levels
    (array([0.25, 0.75, 1.  ]), array([0.25, 0.5 , 0.9 ]))
    >>> curve.band_low is None
    True
    """
    pit, sw = _check_pit(pit_values, sample_weight)
    if levels is None:
        tau = np.linspace(0.0, 1.0, 21)
    else:
        tau = np.asarray(_check_real_array(levels, "levels"), dtype=np.float64)
        _find_nonfinite(tau, "levels")
        if not (tau.min() >= 0 and tau.max() <= 1):
            raise ValueError(f"levels must lie in [0, 1], got {tau.tolist()!r}")
    # one pass over the values, no sort: the number of (sorted) levels below each value,
    # counted per level and accumulated: below[j] = weight of {i : pit_i <= levels[j]}
    order = np.argsort(tau, kind="stable")
    tau_sorted = tau[order]
    counts = _chunked_counts(pit, sw, tau.shape[0] + 1, _levels_below(tau_sorted))
    cum = np.cumsum(counts)
    below = np.empty(tau.shape[0])
    below[order] = cum[:-1]
    observed = np.minimum(below / cum[-1], 1.0)
    band_low = band_high = None
    if confidence_level is not None:
        n_eff = _effective_size(sw, pit.shape[0])
        band_low, band_high = _binomial_band(n_eff, tau, confidence_level)
    return QuantileCalibrationCurveResult(
        observed_frequency=observed, levels=tau, band_low=band_low, band_high=band_high
    )
