"""Exact, mergeable uncertainty statistics of a stream of regression forecasts.

A :class:`RegressionAccumulator` keeps, for predictive distributions of any form (see
:func:`skcalib.metrics.crps`), the statistics the batch regression metrics are functions
of: the weights of the PIT values between the calibration levels (both kinds), a fine
PIT histogram, the weights inside the central intervals at a few coverages and the sums
of their widths, and the sums of the CRPS, the log score and the predictive variance.
Its size depends on the number of levels and bins only; two accumulators merge exactly.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.utils import check_random_state

from .._core._binning import _uniform_edges, bin_index_unclipped
from ..metrics._regression._forms import PredictionInterval, _weighted_sum
from ..metrics._regression._metrics import (
    RegressionCalibrationCurveResult,
    _read,
    calibration_errors,
    curve_from_counts,
    level_counts,
)
from ..metrics._regression._pit import _binomial_band, _chunked_counts
from ..metrics._results import PITHistogramResult
from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = ["RegressionAccumulator"]

#: format version of :meth:`RegressionAccumulator.to_dict`
STATE_VERSION = 1
#: the largest ``n_levels`` and ``n_pit_bins`` a state may hold
_MAX_CELLS = 100_000
#: the sums kept (None once a chunk's form could not give the quantity)
_SUMS = ("crps", "log_score", "variance")


def _check_int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")
    return int(value)


def _check_coverages(coverages):
    c = np.atleast_1d(np.asarray(coverages, dtype=np.float64))
    if c.ndim != 1 or c.size == 0:
        raise ValueError(f"coverages must be a non-empty 1-D list, got {coverages!r}")
    if not (np.all(np.isfinite(c)) and c.min() > 0 and c.max() < 1):
        raise ValueError(f"coverages must lie strictly between 0 and 1, got {c.tolist()!r}")
    if c.size > 1 and not np.all(np.diff(c) > 0):
        raise ValueError(f"coverages must be strictly increasing, got {c.tolist()!r}")
    return c


class RegressionAccumulator:
    r"""Mergeable uncertainty statistics of regression forecasts seen chunk by chunk.

    Feed it chunks of observations and predictive distributions (any form:
    ``scipy.stats`` distributions, :class:`~skcalib.metrics.PredictiveSamples`,
    :class:`~skcalib.metrics.PredictiveQuantiles`,
    :class:`~skcalib.metrics.PredictionInterval`) with :meth:`update`, or combine
    accumulators with :meth:`merge`; :meth:`compute` then gives the numbers of the batch
    functions on all the data seen:

    * ``crps``, ``log_score`` (:func:`~skcalib.metrics.crps`,
      :func:`~skcalib.metrics.log_score`) and ``sharpness``;
    * ``regression_calibration_error`` (MACE), ``root_mean_squared_calibration_error``
      (RMSCE), ``max_calibration_error`` and ``miscalibration_area`` of the
      ``n_levels`` central intervals (``kind="interval"``), and the same four of the
      quantiles with the ``quantile_`` prefix;
    * ``interval_coverage`` and ``mean_interval_width`` at each of ``coverages`` (keys
      ``interval_coverage_0.9``, ...), and ``n_samples``.

    A quantity that a chunk's form cannot give (the log score of samples, the PIT of
    intervals) is left out of the results from then on.  Every number equals the batch
    function on the concatenated data up to the order of floating-point additions
    (for :class:`PredictiveSamples` the randomised PIT draws other uniforms than one
    batch call, so the curve agrees in distribution).  Equal-mass or min-max bins of the
    predicted spread (ENCE, UCE) need all the data and are not kept.

    Parameters
    ----------
    n_levels : int, default=100
        Levels of the calibration curves, ``np.linspace(0, 1, n_levels)`` (as the batch
        functions' ``n_levels``).
    coverages : array-like of float, default=(0.5, 0.8, 0.9, 0.95)
        Coverages of the central intervals whose coverage and width are kept.
    n_pit_bins : int, default=1000
        Equal-width bins of the fine PIT histogram (:meth:`pit_histogram` gives any
        number of bins that divides it).
    random_state : int, RandomState instance or None, default=None
        Seeds the randomised PIT of samples.

    Attributes
    ----------
    n_samples_ : int
        Number of samples seen.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import crps
    >>> from skcalib.streaming import RegressionAccumulator
    >>> rng = np.random.default_rng(0)
    >>> mu, y = rng.normal(size=1000), rng.normal(size=1000)
    >>> acc = RegressionAccumulator()
    >>> for part in np.array_split(np.arange(1000), 4):
    ...     acc = acc.update(y[part], norm(mu[part], 1.5))
    >>> result = acc.compute()
    >>> bool(np.isclose(result["crps"], crps(y, norm(mu, 1.5))))
    True
    """

    def __init__(
        self, *, n_levels=100, coverages=(0.5, 0.8, 0.9, 0.95), n_pit_bins=1000, random_state=None
    ):
        self.n_levels = _check_int(n_levels, "n_levels", 2, _MAX_CELLS)
        self.coverages = _check_coverages(coverages)
        self.n_pit_bins = _check_int(n_pit_bins, "n_pit_bins", 1, _MAX_CELLS)
        self.random_state = random_state
        self._rng = check_random_state(random_state)
        self.n_samples_ = 0
        self._reset()

    def _reset(self):
        L, k = self.n_levels + 1, self.coverages.shape[0]
        self._weight = 0.0
        self._weight_sq = 0.0
        self._interval_counts = np.zeros(L)
        self._quantile_counts = np.zeros(L)
        self._pit_hist = np.zeros(self.n_pit_bins)
        self._covered = np.zeros(k)
        self._width = np.zeros(k)
        self._has_pit = True
        self._has_cover = np.ones(k, dtype=bool)
        self._sums = dict.fromkeys(_SUMS, 0.0)

    # ----------------------------------------------------------------------------------
    # feeding
    # ----------------------------------------------------------------------------------

    def update(self, y_true, y_pred, *, sample_weight=None):
        """Add a chunk of observations and predictive distributions.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Observed values.
        y_pred : predictive distributions
            Any form the batch metrics take, one row per observation.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights.

        Returns
        -------
        self : RegressionAccumulator
            The accumulator.
        """
        y, pred, sw = _read(y_true, y_pred, sample_weight)
        part = {}
        part["weight"] = float(y.shape[0] if sw is None else sw.sum())
        part["weight_sq"] = float(y.shape[0] if sw is None else np.dot(sw, sw))
        # PIT: both level counts and the fine histogram
        try:
            values = pred.pit(y, random_state=self._rng)
        except ValueError:
            part["pit"] = None
        else:
            edges = _uniform_edges(self.n_pit_bins)
            hist = _chunked_counts(
                values,
                sw,
                self.n_pit_bins + 1,
                lambda c: bin_index_unclipped(c, edges, uniform=True),
            )[: self.n_pit_bins]
            quant = level_counts(values.copy(), sw, self.n_levels, "quantile")
            inter = level_counts(values, sw, self.n_levels, "interval")
            part["pit"] = (inter, quant, hist)
        covered = np.full(self.coverages.shape[0], np.nan)
        width = np.full(self.coverages.shape[0], np.nan)
        for j, c in enumerate(self.coverages):
            if isinstance(pred, PredictionInterval) and not math.isclose(
                c, pred.coverage, rel_tol=1e-9, abs_tol=1e-12
            ):
                continue
            lo, hi = pred.interval(c)
            inside = lo <= y
            inside &= y <= hi
            hi -= lo  # the widths (the bounds are this call's own arrays)
            if sw is None:
                covered[j] = np.count_nonzero(inside)
                width[j] = hi.sum()
            else:
                covered[j] = sw[inside].sum()
                width[j] = np.dot(hi, sw)
        part["covered"], part["width"] = covered, width
        sums = {}
        for name, f in (
            ("crps", lambda: pred._crps(y)),
            ("log_score", lambda: -pred.logpdf(y)),
            ("variance", pred.var),
        ):
            try:
                sums[name] = _weighted_sum(f(), sw)
            except ValueError:
                sums[name] = None
        part["sums"] = sums
        self._add(part, y.shape[0])
        return self

    def _add(self, part, n):
        self._weight += part["weight"]
        self._weight_sq += part["weight_sq"]
        if part["pit"] is None:
            self._has_pit = False
        elif self._has_pit:
            inter, quant, hist = part["pit"]
            self._interval_counts += inter
            self._quantile_counts += quant
            self._pit_hist += hist
        ok = ~np.isnan(part["covered"])
        self._has_cover &= ok
        self._covered[ok] += part["covered"][ok]
        self._width[ok] += part["width"][ok]
        for name in _SUMS:
            v = part["sums"][name]
            if v is None or self._sums[name] is None:
                self._sums[name] = None
            else:
                self._sums[name] += v
        self.n_samples_ += int(n)

    def _part(self):
        """This accumulator's statistics in the form :meth:`_add` takes."""
        covered = np.where(self._has_cover, self._covered, np.nan)
        width = np.where(self._has_cover, self._width, np.nan)
        pit = (
            (self._interval_counts, self._quantile_counts, self._pit_hist)
            if self._has_pit
            else None
        )
        return {
            "weight": self._weight,
            "weight_sq": self._weight_sq,
            "pit": pit,
            "covered": covered,
            "width": width,
            "sums": dict(self._sums),
        }

    def merge(self, other):
        """Add the statistics of another accumulator (of other data), in place.

        Parameters
        ----------
        other : RegressionAccumulator
            An accumulator with the same ``n_levels``, ``coverages`` and ``n_pit_bins``.

        Returns
        -------
        self : RegressionAccumulator
            The accumulator, holding the statistics of both.
        """
        if not isinstance(other, RegressionAccumulator):
            raise TypeError(f"can only merge a RegressionAccumulator, got {type(other).__name__}")
        for name in ("n_levels", "n_pit_bins"):
            if getattr(other, name) != getattr(self, name):
                raise ValueError(
                    f"cannot merge accumulators with different {name} "
                    f"({getattr(self, name)} and {getattr(other, name)})"
                )
        if not np.array_equal(other.coverages, self.coverages):
            raise ValueError(
                f"cannot merge accumulators with different coverages "
                f"({self.coverages.tolist()} and {other.coverages.tolist()})"
            )
        if other.n_samples_ == 0:
            return self
        self._add(other._part(), other.n_samples_)
        return self

    # ----------------------------------------------------------------------------------
    # results
    # ----------------------------------------------------------------------------------

    def _require_data(self):
        if self.n_samples_ == 0:
            raise ValueError("the accumulator has seen no data: call update() first")

    @validate_params(
        {"kind": [StrOptions({"interval", "quantile"})]}, prefer_skip_nested_validation=True
    )
    def regression_calibration_curve(self, *, kind="interval"):
        """Return the calibration curve of all the data seen.

        Parameters
        ----------
        kind : {"interval", "quantile"}, default="interval"
            Central intervals or quantiles.

        Returns
        -------
        RegressionCalibrationCurveResult
            As :func:`skcalib.metrics.regression_calibration_curve` with ``n_levels``.
        """
        self._require_data()
        if not self._has_pit:
            raise ValueError("a chunk's predictive distributions had no PIT values")
        counts = self._interval_counts if kind == "interval" else self._quantile_counts
        tau, observed = curve_from_counts(counts)
        return RegressionCalibrationCurveResult(expected=tau, observed=observed, kind=kind)

    @validate_params(
        {
            "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
            "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
        },
        prefer_skip_nested_validation=True,
    )
    def pit_histogram(self, *, n_bins=10, confidence_level=0.95):
        """Return the PIT histogram of all the data seen.

        Parameters
        ----------
        n_bins : int, default=10
            Number of bins; must divide ``n_pit_bins``.
        confidence_level : float in (0, 1), default=0.95
            Level of the band of a uniform sample.

        Returns
        -------
        PITHistogramResult
            As :func:`skcalib.metrics.pit_histogram` of the PIT values.
        """
        self._require_data()
        if not self._has_pit:
            raise ValueError("a chunk's predictive distributions had no PIT values")
        if self.n_pit_bins % n_bins:
            raise ValueError(f"n_bins={n_bins} must divide n_pit_bins={self.n_pit_bins}")
        count = self._pit_hist.reshape(n_bins, -1).sum(axis=1)
        density = count * (n_bins / count.sum())
        low, high = _binomial_band(
            self._weight**2 / self._weight_sq, 1.0 / n_bins, confidence_level
        )
        return PITHistogramResult(
            density=density,
            bin_edges=_uniform_edges(n_bins),
            bin_count=count,
            band_low=float(low) * n_bins,
            band_high=float(high) * n_bins,
        )

    def compute(self):
        """Compute the metrics of all the data seen, as a dict of floats.

        Returns
        -------
        dict
            The keys listed in the class description that the forms seen could give,
            and ``n_samples`` (an int).
        """
        self._require_data()
        W = self._weight
        out = {}
        for name, key in (("crps", "crps"), ("log_score", "log_score")):
            if self._sums[name] is not None:
                out[key] = self._sums[name] / W
        if self._sums["variance"] is not None:
            out["sharpness"] = math.sqrt(max(self._sums["variance"], 0.0) / W)
        if self._has_pit:
            names = {
                "l1": "regression_calibration_error",
                "l2": "root_mean_squared_calibration_error",
                "max": "max_calibration_error",
                "area": "miscalibration_area",
            }
            for prefix, counts in (
                ("", self._interval_counts),
                ("quantile_", self._quantile_counts),
            ):
                errors = calibration_errors(*curve_from_counts(counts))
                for k, v in errors.items():
                    out[prefix + names[k]] = v
        for j, c in enumerate(self.coverages):
            if self._has_cover[j]:
                out[f"interval_coverage_{c:g}"] = float(self._covered[j] / W)
                out[f"mean_interval_width_{c:g}"] = float(self._width[j] / W)
        out["n_samples"] = int(self.n_samples_)
        return out

    # ----------------------------------------------------------------------------------
    # state
    # ----------------------------------------------------------------------------------

    def to_dict(self):
        """Return the state as a JSON-serialisable dict (see :meth:`from_dict`).

        The random state of the PIT of samples is not part of it: a rebuilt accumulator
        draws from ``random_state`` anew.

        Returns
        -------
        dict
            Settings and statistics.
        """
        return {
            "version": STATE_VERSION,
            "n_levels": self.n_levels,
            "coverages": self.coverages.tolist(),
            "n_pit_bins": self.n_pit_bins,
            "n_samples": int(self.n_samples_),
            "weight": self._weight,
            "weight_sq": self._weight_sq,
            "interval_counts": self._interval_counts.tolist() if self._has_pit else None,
            "quantile_counts": self._quantile_counts.tolist() if self._has_pit else None,
            "pit_histogram": self._pit_hist.tolist() if self._has_pit else None,
            "covered": [
                float(v) if ok else None
                for v, ok in zip(self._covered, self._has_cover, strict=True)
            ],
            "width": [
                float(v) if ok else None for v, ok in zip(self._width, self._has_cover, strict=True)
            ],
            "sums": dict(self._sums),
        }

    @classmethod
    def from_dict(cls, d, *, random_state=None):
        """Rebuild an accumulator from :meth:`to_dict`, validating every field.

        Parameters
        ----------
        d : dict
            The output of :meth:`to_dict` (possibly through JSON).
        random_state : int, RandomState instance or None, default=None
            Seeds the randomised PIT of samples in later updates.

        Returns
        -------
        RegressionAccumulator
            An accumulator with the saved statistics.

        Raises
        ------
        ValueError
            If ``d`` is not a valid state (the message names the field).
        """
        if not isinstance(d, dict) or d.get("version") != STATE_VERSION:
            raise ValueError(
                f"not a RegressionAccumulator state of version {STATE_VERSION}: "
                f"{type(d).__name__} with version "
                f"{d.get('version') if isinstance(d, dict) else None!r}"
            )
        known = {"version", "n_levels", "coverages", "n_pit_bins", "n_samples", "weight"}
        known |= {"weight_sq", "interval_counts", "quantile_counts", "pit_histogram"}
        known |= {"covered", "width", "sums"}
        missing = sorted(known - set(d))
        if missing:
            raise ValueError(f"the state lacks the fields {missing}")
        acc = cls(
            n_levels=d["n_levels"],
            coverages=d["coverages"],
            n_pit_bins=d["n_pit_bins"],
            random_state=random_state,
        )
        n = d["n_samples"]
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"n_samples must be a non-negative int, got {n!r}")
        acc.n_samples_ = int(n)
        acc._weight = _finite_nonneg(d["weight"], "weight")
        acc._weight_sq = _finite_nonneg(d["weight_sq"], "weight_sq")
        if (acc.n_samples_ == 0) != (acc._weight == 0):
            raise ValueError("weight must be positive exactly when n_samples is")
        arrays = [d[k] for k in ("interval_counts", "quantile_counts", "pit_histogram")]
        if all(a is None for a in arrays):
            acc._has_pit = False
        else:
            sizes = (acc.n_levels + 1, acc.n_levels + 1, acc.n_pit_bins)
            names = ("interval_counts", "quantile_counts", "pit_histogram")
            parsed = [
                _counts(a, name, size, acc._weight)
                for a, name, size in zip(arrays, names, sizes, strict=True)
            ]
            acc._interval_counts, acc._quantile_counts, acc._pit_hist = parsed
        k = acc.coverages.shape[0]
        for name in ("covered", "width"):
            v = d[name]
            if not isinstance(v, list) or len(v) != k:
                raise ValueError(f"{name} must be a list of {k} numbers or None")
        for j in range(k):
            c, wd = d["covered"][j], d["width"][j]
            if (c is None) != (wd is None):
                raise ValueError(f"covered[{j}] and width[{j}] must both be None or numbers")
            if c is None:
                acc._has_cover[j] = False
                continue
            acc._covered[j] = _finite_nonneg(c, f"covered[{j}]")
            acc._width[j] = _finite_nonneg(wd, f"width[{j}]")
            if acc._covered[j] > acc._weight * (1 + 1e-9):
                raise ValueError(f"covered[{j}] exceeds the total weight")
        sums = d["sums"]
        if not isinstance(sums, dict) or set(sums) != set(_SUMS):
            raise ValueError(f"sums must be a dict with the keys {sorted(_SUMS)}")
        for name in _SUMS:
            v = sums[name]
            if v is None:
                acc._sums[name] = None
            elif name == "log_score":
                if isinstance(v, bool) or not isinstance(v, numbers.Real) or math.isnan(v):
                    raise ValueError(f"sums['{name}'] must be a number or None, got {v!r}")
                acc._sums[name] = float(v)
            else:
                acc._sums[name] = _finite_nonneg(v, f"sums['{name}']")
        return acc

    def __repr__(self):
        return f"RegressionAccumulator(n_levels={self.n_levels}, n_samples_={self.n_samples_})"


def _optional(values, ok):
    return [float(v) if k else None for v, k in zip(values, ok, strict=True)]


def _finite_nonneg(v, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be a finite non-negative number, got {v!r}")
    return float(v)


def _counts(values, name, size, total):
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a list of {size} numbers") from exc
    if a.shape != (size,):
        raise ValueError(f"{name} must hold {size} numbers, got shape {a.shape}")
    if not (np.all(np.isfinite(a)) and a.min() >= 0):
        raise ValueError(f"{name} must hold finite non-negative numbers")
    if not math.isclose(float(a.sum()), total, rel_tol=1e-9, abs_tol=1e-12):
        raise ValueError(f"{name} sums to {float(a.sum())!r}, not the total weight {total!r}")
    return a
