"""Exact, mergeable calibration statistics of a stream of predictions.

A :class:`CalibrationAccumulator` keeps the sufficient statistics of the metrics of
:func:`skcalib.report.calibration_report` -- one
:class:`~skcalib.metrics._statistics.CalibrationStatistics`: per-bin sums, sums of the
per-sample Brier score and log-loss, the weight of the correct predictions, and a fine
histogram of the binned probabilities for the equal-mass metrics.  Its size depends on
the number of bins and classes only, never on the number of samples, and two
accumulators merge exactly (the statistics of the union of their data).  ``update`` is
"validate, build the statistics of the chunk with the one kernel, merge".
"""

from __future__ import annotations

import numbers

import numpy as np

from .._core._binning import BinStats, check_n_bins, uniform_bin_edges
from .._core._validation import _check_labels, _to_numpy, check_classification_input
from ..metrics._calibration._binned import _error, curve_from_bin_stats
from ..metrics._scoring._scoring_rules import binned_decomposition
from ..metrics._statistics import (
    FINE_EDGES,
    MAX_BINS,
    CalibrationStatistics,
    chunk_statistics,
    fine_bin_edges,
)
from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = ["CalibrationAccumulator", "fine_bin_edges"]

#: format version of :meth:`CalibrationAccumulator.to_dict` (version 2, the format
#: before the group axis, is still read)
STATE_VERSION = 3
_READABLE_VERSIONS = (2, 3)

#: rows of the per-bin tables
COUNT, SUM_PROBA, SUM_TRUE, SUM_WEIGHT_SQ = range(4)


def _jsonable(values):
    """Class labels as JSON values (Python ints, floats, bools and strings)."""
    return [v.item() if isinstance(v, np.generic) else v for v in np.asarray(values).tolist()]


class CalibrationAccumulator:
    r"""Mergeable calibration statistics of predictions seen chunk by chunk.

    Feed it chunks of labels and predicted probabilities with :meth:`update` (or combine
    accumulators of other chunks, workers or days with :meth:`merge`); :meth:`compute`
    then gives the numbers of the batch metrics on all the data seen:

    * ``expected_calibration_error``, ``max_calibration_error``: ``n_bins`` equal-width
      bins, binary calibration of the positive class for two classes, top-label
      calibration for more (as the batch functions' ``multiclass="auto"``);
    * ``static_calibration_error`` (more than two classes): class-wise, ``n_bins``
      equal-width bins;
    * ``brier_score``, ``negative_log_likelihood``, ``accuracy`` (the weighted fraction of
      correct top-label predictions) and ``n_samples``;
    * ``root_mean_squared_calibration_error``: ``n_bins`` equal-mass bins, from a fine
      histogram (see Notes).

    :meth:`reliability_curve` and :meth:`brier_decomposition` give the results of the
    batch functions on the same equal-width bins.

    Every fixed-edge number equals the batch function on the concatenated data, up to
    the order of floating-point additions, whatever the chunking; the state holds
    ``O(n_bins x n_classes)`` numbers plus the fine histogram, never one number per
    sample.

    Parameters
    ----------
    n_bins : int, default=15
        Number of bins of every binned metric.
    labels : array-like, default=None
        The classes, in the column order of ``y_proba``.  Required for more than two
        classes: a chunk of a stream rarely holds every class, so the classes cannot be
        read from the labels.  For a binary problem they default to those of the first
        chunk (``{0, 1}`` or ``{-1, 1}`` with a 1-D ``y_proba``), and every later chunk
        must fit them.
    pos_label : label, default=None
        Positive class of a binary problem, as in the batch metrics.

    Attributes
    ----------
    classes_ : ndarray or None
        The classes, known after the first :meth:`update` (or from ``labels``).
    n_samples_ : int
        Number of samples seen.

    See Also
    --------
    skcalib.metrics.compute_bin_stats : The per-bin statistics of one batch.
    skcalib.report.calibration_report : The same numbers for data in memory.

    Notes
    -----
    Equal-mass bins need the quantiles of all the data, which one pass over a stream
    cannot give exactly.  The accumulator keeps a histogram of the binned probabilities
    on :func:`fine_bin_edges` (8,194 cells; inside the log-odds range [-20, 20] a cell
    is at most 0.49% of ``p (1 - p)`` wide, and the two end cells hold everything within
    2.1e-9 of 0 or 1) with the
    per-cell sums, and takes the equal-mass edges on it: inner edge ``k`` is the upper
    edge of the cell holding the exact inverted-CDF quantile ``q_k`` of the batch
    function.  The streamed RMSCE is therefore *exactly* the RMSCE of the data binned
    with those edges, each of which lies in the same fine cell as the exact one.

    Examples
    --------
    >>> from skcalib.streaming import CalibrationAccumulator
    >>> acc = CalibrationAccumulator(n_bins=2)
    >>> acc.update([0, 1], [0.1, 0.8]).update([1, 0], [0.6, 0.4])  # two chunks
    CalibrationAccumulator(n_bins=2, n_samples_=4)
    >>> acc.compute()["expected_calibration_error"]
    0.275
    >>> from skcalib.metrics import expected_calibration_error
    >>> expected_calibration_error([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    0.275
    """

    def __init__(self, *, n_bins=15, labels=None, pos_label=None):
        self.n_bins = check_n_bins(n_bins)
        self.labels = None if labels is None else _check_labels(labels)
        self.pos_label = pos_label
        self.classes_ = self.labels
        self.n_samples_ = 0
        self._pos_index = None
        self._stats = None  # CalibrationStatistics, created by the first update

    # ----------------------------------------------------------------------------------
    # feeding
    # ----------------------------------------------------------------------------------

    def update(self, y_true, y_proba, *, sample_weight=None):
        """Add a chunk of labels and predicted probabilities.

        The chunk is validated as by the batch metrics; an invalid chunk raises a
        ValueError and leaves the accumulator unchanged.  An empty chunk, and a chunk
        whose sample weights are all zero, change nothing (weight 0 removes a sample).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels of the chunk.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities of the chunk (1-D: of the positive class).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights of the chunk.

        Returns
        -------
        self : CalibrationAccumulator
            The accumulator, updated.
        """
        y = _to_numpy(y_true, "y_true")
        P = _to_numpy(y_proba, "y_proba")
        if y.ndim >= 1 and y.shape[0] == 0 and P.ndim >= 1 and P.shape[0] == 0:
            return self  # streams produce empty chunks
        if self.classes_ is None and P.ndim == 2 and P.shape[1] > 2:
            raise ValueError(
                f"y_proba has {P.shape[1]} columns: a multiclass stream needs its classes "
                "up front, since a chunk rarely holds every class; pass labels= (e.g. the "
                "classes_ of the model) to CalibrationAccumulator"
            )
        zero_weight = _all_zero(sample_weight, y.shape[0] if y.ndim == 1 else -1)
        data = check_classification_input(
            y,
            P,
            sample_weight=None if zero_weight else sample_weight,
            labels=self.classes_,
            pos_label=self.pos_label,
        )
        if zero_weight:
            return self  # validated, and nothing to add
        part = chunk_statistics(data, self.n_bins)
        self._add(part, data.classes, data.pos_index, copy=False)
        return self

    def _add(self, part, classes, pos_index, *, copy):
        """Merge the statistics ``part`` of data of ``classes`` and ``pos_index``."""
        if self._stats is None:
            self._stats = part.copy() if copy else part
        else:
            self._check_compatible(part, classes, pos_index)
            self._stats.merge(part)
        self._pos_index = pos_index
        self.classes_ = classes if self.classes_ is None else self.classes_
        self.n_samples_ += int(part.n_samples.sum())

    def _check_compatible(self, part, classes, pos_index):
        if self._stats.mode != part.mode or self._pos_index != pos_index:
            raise ValueError(
                "cannot combine binary (positive-class) and top-label statistics, or two "
                "positive classes: pass the same labels and pos_label to every chunk"
            )
        if not _same_classes(self.classes_, classes):
            raise ValueError(
                f"the classes {_jsonable(classes)!r} differ from those of the "
                f"accumulator {_jsonable(self.classes_)!r}; pass labels="
            )

    def merge(self, other):
        """Add the statistics of another accumulator (of other data), in place.

        Merging is associative and commutative: the result is the accumulator of the
        union of the data, whatever the order.

        Parameters
        ----------
        other : CalibrationAccumulator
            An accumulator with the same ``n_bins``, classes and positive class.

        Returns
        -------
        self : CalibrationAccumulator
            The accumulator, holding the statistics of both.
        """
        if not isinstance(other, CalibrationAccumulator):
            raise TypeError(f"can only merge a CalibrationAccumulator, got {type(other).__name__}")
        if other.n_bins != self.n_bins:
            raise ValueError(
                f"cannot merge accumulators with different n_bins ({self.n_bins} and "
                f"{other.n_bins})"
            )
        if (
            self.classes_ is not None
            and other.classes_ is not None
            and not _same_classes(self.classes_, other.classes_)
        ):
            raise ValueError(
                f"cannot merge accumulators of different classes: "
                f"{_jsonable(self.classes_)!r} and {_jsonable(other.classes_)!r}"
            )
        if other._stats is None:
            if self.classes_ is None:
                self.classes_ = other.classes_
            return self
        # the arrays of a state belong to one accumulator: copied when taken over
        self._add(other._stats, other.classes_, other._pos_index, copy=True)
        return self

    # ----------------------------------------------------------------------------------
    # results
    # ----------------------------------------------------------------------------------

    def _require_data(self):
        if self._stats is None:
            raise ValueError("the accumulator has seen no data: call update() first")
        return self._stats

    def _bin_stats(self, sums, edges):
        """:class:`BinStats` of tables (4, n_groups, n_bins) on ``edges``."""
        st = self._stats
        return BinStats(
            count=sums[COUNT].copy(),
            sum_proba=sums[SUM_PROBA].copy(),
            sum_true=sums[SUM_TRUE].copy(),
            bin_edges=np.array(edges, dtype=np.float64),
            total_weight=float(st.total_weight[0]),
            sum_weight_sq=sums[SUM_WEIGHT_SQ].copy() if st.weighted else None,
        )

    def bin_stats(self, *, multiclass="auto"):
        """Return the :class:`~skcalib.metrics.BinStats` of the equal-width bins.

        Parameters
        ----------
        multiclass : {"auto", "classwise"}, default="auto"
            Binary (positive class) or top-label calibration, or class-wise (more than
            two classes).

        Returns
        -------
        BinStats
            The per-bin statistics of all the data seen.
        """
        st = self._require_data()
        edges = uniform_bin_edges(self.n_bins)
        if multiclass == "classwise":
            if st.n_classes == 0:
                raise ValueError("class-wise statistics are kept for more than two classes only")
            k = st.n_classes
            return self._bin_stats(st.classwise[0], np.broadcast_to(edges, (k, edges.size)))
        if multiclass != "auto":
            raise ValueError(f"multiclass must be 'auto' or 'classwise', got {multiclass!r}")
        return self._bin_stats(st.bins[0][:, None, :], edges[None, :])

    def equal_mass_bin_stats(self):
        """Return the :class:`~skcalib.metrics.BinStats` of ``n_bins`` equal-mass bins.

        The edges are taken on the fine histogram (see Notes of the class).

        Returns
        -------
        BinStats
            The per-bin statistics; the edges are edges of :func:`fine_bin_edges`.
        """
        st = self._require_data()
        fine = st.fine[0]
        # inverted-CDF quantiles on the cells, with the rule of the batch edges
        # (quantile_edges): the first cell whose cumulative weight reaches k W / n_bins
        count = fine[COUNT]
        cum = np.cumsum(count)
        total = cum[-1]
        k = np.arange(1, self.n_bins)
        rtol = max(64, count.size) * np.finfo(np.float64).eps
        idx = np.searchsorted(cum * self.n_bins, k * total * (1 - rtol), side="left")
        idx = np.minimum(idx, count.size - 1)
        edges = np.concatenate(([0.0], FINE_EDGES[idx + 1], [1.0]))
        # the coarse bins are unions of cells: bin j holds cells bounds[j]..bounds[j+1]-1
        bounds = np.concatenate(([0], idx + 1, [count.size]))
        # (a zero cell past the end: an edge in the last cell starts an empty last bin)
        padded = np.concatenate([fine, np.zeros((4, 1))], axis=1)
        sums = np.add.reduceat(padded, bounds[:-1], axis=1)
        empty = bounds[:-1] >= bounds[1:]  # repeated edges: an empty bin
        sums[:, empty] = 0.0
        return self._bin_stats(sums[:, None, :], edges[None, :])

    def compute(self):
        """Compute the metrics of all the data seen, as a dict of floats.

        Returns
        -------
        dict
            ``expected_calibration_error``, ``max_calibration_error``,
            ``root_mean_squared_calibration_error``, ``static_calibration_error`` (more
            than two classes only), ``brier_score``, ``negative_log_likelihood``,
            ``accuracy`` (floats) and ``n_samples`` (an int).
        """
        st = self._require_data()
        stats = self.bin_stats()
        W = float(st.total_weight[0])
        out = {
            "expected_calibration_error": _error(stats, "l1"),
            "max_calibration_error": _error(stats, "max"),
            "root_mean_squared_calibration_error": _error(self.equal_mass_bin_stats(), "l2"),
        }
        if st.n_classes:
            out["static_calibration_error"] = _error(self.bin_stats(multiclass="classwise"), "l1")
        out["brier_score"] = float(st.brier_sum[0] / W)
        out["negative_log_likelihood"] = float(st.log_loss_sum[0] / W)
        out["accuracy"] = float(st.correct[0] / W)
        out["n_samples"] = int(self.n_samples_)
        return out

    @validate_params(
        {
            "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither"), None],
            "interval": [StrOptions({"wilson", "clopper_pearson"})],
        },
        prefer_skip_nested_validation=True,
    )
    def reliability_curve(self, *, multiclass="auto", confidence_level=None, interval="wilson"):
        """Return the reliability curve of all the data seen.

        The same result as :func:`skcalib.metrics.reliability_curve` on the
        concatenated data.

        Parameters
        ----------
        multiclass : {"auto", "classwise"}, default="auto"
            Binary or top-label calibration, or one curve per class.
        confidence_level : float in (0, 1), default=None
            Add intervals of the observed frequencies, as the batch function.
        interval : {"wilson", "clopper_pearson"}, default="wilson"
            Wilson score or Clopper-Pearson (exact binomial) intervals.

        Returns
        -------
        curve : ~skcalib.metrics.ReliabilityCurveResult
            Unpacks as ``(prob_true, prob_pred)``; ``bin_count``, ``bin_edges``,
            ``bin_stats``, ``prob_true_low`` and ``prob_true_high`` (None without
            ``confidence_level``) are attributes too.
        """
        stats = self.bin_stats(multiclass=multiclass)
        return curve_from_bin_stats(
            stats,
            classwise=multiclass == "classwise",
            confidence_level=confidence_level,
            interval=interval,
        )

    def brier_decomposition(self):
        r"""Return the binned Brier decomposition of all the data seen.

        The same result as :func:`skcalib.metrics.brier_decomposition` with
        ``n_bins=self.n_bins`` (equal-width bins) on the concatenated data: reliability,
        resolution and uncertainty from the bins, and the within-bin variance and
        covariance from two running totals, so that

        .. math::

            \mathrm{BS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC}
                + \mathrm{WBV} - \mathrm{WBC}

        holds exactly.  Binary problems are decomposed on the positive-class
        probability, problems of more than two classes on each class's probability
        (one-vs-rest, summed over the classes).  The terms of the bins agree with the
        batch function to 1e-12 relative; the within-bin terms, differences of totals of
        ``p^2`` and ``p * outcome`` of the order of the Brier score, to 1e-12 absolute.

        Returns
        -------
        result : ~skcalib.metrics.BrierDecompositionResult
            Unpacks as ``(uncertainty, resolution, reliability)``;
            ``within_bin_variance`` and ``within_bin_covariance`` are attributes too.

        Examples
        --------
        >>> from skcalib.metrics import brier_decomposition, brier_score
        >>> from skcalib.streaming import CalibrationAccumulator
        >>> y, p = [0, 0, 1, 1, 1], [0.2, 0.3, 0.2, 0.8, 0.9]
        >>> acc = CalibrationAccumulator(n_bins=2).update(y[:2], p[:2]).update(y[2:], p[2:])
        >>> d = acc.brier_decomposition()
        >>> round(d.reliability, 4), round(d.resolution, 4), round(d.uncertainty, 4)
        (0.015, 0.1067, 0.24)
        >>> round(brier_decomposition(y, p, n_bins=2).reliability, 4)
        0.015
        >>> terms = d.reliability - d.resolution + d.uncertainty
        >>> round(terms + d.within_bin_variance - d.within_bin_covariance, 12)
        0.164
        >>> round(brier_score(y, p), 12)
        0.164
        """
        st = self._require_data()
        multiclass = "auto" if st.n_classes == 0 else "classwise"
        return binned_decomposition(
            self.bin_stats(multiclass=multiclass), float(st.sum_ff[0]), float(st.sum_fo[0])
        )

    # ----------------------------------------------------------------------------------
    # persistence
    # ----------------------------------------------------------------------------------

    def to_dict(self):
        """Return the state as a JSON-serialisable dict (see :meth:`from_dict`).

        Arrays are stored as lists; the fine histogram only by its non-empty cells.

        Returns
        -------
        dict
            Settings, classes and statistics.
        """
        return {
            "version": STATE_VERSION,
            "n_bins": self.n_bins,
            "labels": None if self.labels is None else _jsonable(self.labels),
            "pos_label": _jsonable([self.pos_label])[0] if self.pos_label is not None else None,
            "classes": None if self.classes_ is None else _jsonable(self.classes_),
            "n_samples": int(self.n_samples_),
            "pos_index": self._pos_index,
            "statistics": None if self._stats is None else self._stats.to_dict(),
        }

    @classmethod
    def from_dict(cls, d):
        """Rebuild an accumulator from :meth:`to_dict`, validating every field.

        A monitoring job reads states from disk: every malformed state (wrong shapes,
        NaN or infinity, negative counts, outcome sums above their counts, duplicated
        or out-of-range cells, an unknown mode, ``n_bins`` beyond 100,000 or
        disagreeing with the tables, classes that do not fit the tables) is a
        ValueError that names the field.  States of version 2 (before the group axis)
        are read too.

        Parameters
        ----------
        d : dict
            The output of :meth:`to_dict` (possibly through ``json.dumps`` /
            ``json.loads``).

        Returns
        -------
        CalibrationAccumulator
            An accumulator equal to the one that was saved.

        Raises
        ------
        ValueError
            If ``d`` is not a valid state (the message names the field).
        """
        version = d.get("version") if isinstance(d, dict) else None
        if version not in _READABLE_VERSIONS:
            raise ValueError(
                f"not a CalibrationAccumulator state of version {STATE_VERSION}: "
                f"{type(d).__name__} with version {version!r}"
            )
        if version == 2:
            d = _upgrade_version_2(d)
        known = {"version", "n_bins", "labels", "pos_label", "classes", "n_samples"}
        known |= {"pos_index", "statistics"}
        missing = sorted(known - set(d))
        if missing:
            raise ValueError(f"the state lacks the fields {missing}")
        n_bins = d["n_bins"]
        if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral):
            raise ValueError(f"n_bins must be an int, got {n_bins!r}")
        if not 1 <= n_bins <= MAX_BINS:
            raise ValueError(f"n_bins must be in [1, {MAX_BINS}], got {n_bins!r}")
        for name in ("labels", "classes"):
            if d[name] is not None and not isinstance(d[name], list):
                raise ValueError(f"{name} must be a list of class labels or None")
        acc = cls(n_bins=n_bins, labels=d["labels"], pos_label=d["pos_label"])
        acc.classes_ = None if d["classes"] is None else _check_labels(d["classes"])
        n_samples = d["n_samples"]
        if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral):
            raise ValueError(f"n_samples must be an int, got {n_samples!r}")
        if d["statistics"] is None:
            if n_samples != 0:
                raise ValueError("n_samples must be 0 in a state without statistics")
            return acc
        st = CalibrationStatistics.from_dict(d["statistics"])
        if st.n_bins != n_bins:
            raise ValueError(
                f"n_bins={n_bins} disagrees with the tables of the statistics (n_bins={st.n_bins})"
            )
        if st.n_groups != 1:
            raise ValueError(f"an accumulator holds one group, the state has {st.n_groups}")
        if n_samples != int(st.n_samples.sum()):
            raise ValueError(
                f"n_samples={n_samples} disagrees with the statistics "
                f"({int(st.n_samples.sum())} samples)"
            )
        if acc.classes_ is None:
            raise ValueError("classes must be given in a state with statistics")
        k = len(acc.classes_)
        binary = k == 2
        if (st.n_classes == 0) != binary or (not binary and st.n_classes != k):
            raise ValueError(
                f"classes has {k} labels but the class-wise tables have {st.n_classes} "
                "classes (none for a binary problem)"
            )
        if binary != (st.mode == "binary"):
            raise ValueError(
                f"mode={st.mode!r} does not fit {k} classes (binary: 'binary', more: 'top_label')"
            )
        pos_index = d["pos_index"]
        if binary and pos_index not in (0, 1) or not binary and pos_index is not None:
            raise ValueError(
                f"pos_index must be 0 or 1 for a binary problem and None otherwise, got "
                f"{pos_index!r}"
            )
        acc._stats = st
        acc._pos_index = pos_index
        acc.n_samples_ = int(n_samples)
        return acc

    def __copy__(self):
        # merges add into the statistics' arrays in place: a copy gets arrays of its own
        new = self.__class__.__new__(self.__class__)
        new.__dict__.update(self.__dict__)
        new._stats = None if self._stats is None else self._stats.copy()
        return new

    def __getstate__(self):
        # pickles (Dask moves accumulators between processes as pickles) hold the fine
        # histogram by its non-empty cells when fewer than half are: an accumulator of
        # a small chunk or group pickles to a few KiB instead of 256 KiB, which made
        # `skcalib report --dask --by` with 1,000 groups 2.7x faster (38 s -> 14 s)
        d = self.__dict__.copy()
        st = d["_stats"]
        if st is not None:
            nz = np.flatnonzero((st.fine != 0).any(axis=(0, 1)))
            if nz.size < st.fine.shape[-1] // 2:
                fields = {name: getattr(st, name) for name in st.summed_fields()}
                fields["fine"] = (nz, st.fine[:, :, nz])
                d["_stats"] = (st.n_bins, st.mode, st.weighted, fields)
        return d

    def __setstate__(self, d):
        st = d["_stats"]
        if isinstance(st, tuple):
            n_bins, mode, weighted, fields = st
            cells, values = fields["fine"]
            fine = np.zeros((*values.shape[:2], FINE_EDGES.shape[0] - 1))
            fine[:, :, cells] = values
            fields = {**fields, "fine": fine}
            d["_stats"] = CalibrationStatistics(
                n_bins=n_bins, mode=mode, weighted=weighted, **fields
            )
        self.__dict__.update(d)

    def __repr__(self):
        return f"CalibrationAccumulator(n_bins={self.n_bins}, n_samples_={self.n_samples_})"


def _all_zero(sample_weight, n):
    """Whether ``sample_weight`` is ``n`` finite zeros (a chunk that adds nothing); any
    other value is left to the validation of the weights."""
    if sample_weight is None:
        return False
    try:
        sw = np.asarray(_to_numpy(sample_weight, "sample_weight"), dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return sw.shape == (n,) and n > 0 and not sw.any()


def _same_classes(a, b):
    return len(a) == len(b) and _jsonable(a) == _jsonable(b)


def _upgrade_version_2(d):
    """A state of version 2 (one group, no group axis) in the layout of version 3."""
    if not isinstance(d.get("state", None), dict | type(None)):
        raise ValueError("state must be a dict or None")
    s = d.get("state")
    out = {k: v for k, v in d.items() if k != "state"}
    out["version"] = 3
    if s is None:
        out["pos_index"], out["statistics"] = None, None
        return out
    try:
        n_bins = d["n_bins"]
        classwise = s["classwise"]
        stats = {
            "n_bins": n_bins,
            "mode": s["mode"],
            "weighted": s["weighted"],
            "total_weight": [s["total_weight"]],
            "n_samples": [d["n_samples"]],
            "bins": [s["stats"]],
            "fine_cells": s["fine_cells"],
            "fine": [s["fine"]],
            "classwise": [classwise] if classwise is not None else [[[] for _ in range(4)]],
        }
        for name in ("brier_sum", "log_loss_sum", "correct", "sum_ff", "sum_fo"):
            stats[name] = [s[name]]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"the version-2 state lacks the field {exc}") from None
    if classwise is None and isinstance(n_bins, int) and 1 <= n_bins <= MAX_BINS:
        stats["classwise"] = np.zeros((1, 4, 0, n_bins)).tolist()
    out["pos_index"] = s.get("pos_index")
    out["statistics"] = stats
    return out
