"""Exact, mergeable calibration statistics of a stream of predictions.

A :class:`CalibrationAccumulator` keeps the sufficient statistics of the metrics of
:func:`skcalib.report.calibration_report` -- per-bin sums (:class:`~skcalib.metrics.BinStats`),
sums of the per-sample Brier score and log-loss, the weight of the correct predictions --
and a fine histogram of the binned probabilities for the equal-mass metrics.  Its size
depends on the number of bins and classes only, never on the number of samples, and two
accumulators merge exactly (the statistics of the union of their data).
"""

from __future__ import annotations

import numbers
import threading

import numpy as np

from .._core._binning import (
    COUNT,
    SUM_PROBA,
    SUM_TRUE,
    SUM_WEIGHT_SQ,
    BinStats,
    accumulate_pairs,
    bin_index_unclipped,
    bin_stats,
    check_n_bins,
    probability_outcome,
    resolve_multiclass,
    uniform_bin_edges,
)
from .._core._validation import (
    _check_labels,
    _to_numpy,
    check_classification_input,
    iter_row_chunks,
    rows_per_chunk,
)
from ..metrics._calibration._binned import _error, curve_from_bin_stats
from ..metrics._scoring._scoring_rules import (
    _binned_totals,
    _brier_sum,
    _log_loss_sum,
    binned_decomposition,
)
from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = ["CalibrationAccumulator", "fine_bin_edges"]

#: format version of :meth:`CalibrationAccumulator.to_dict`
STATE_VERSION = 2

#: number of cells of the fine histogram and half-width of its log-odds range
FINE_CELLS = 8192
FINE_LOGIT_RANGE = 20.0


def fine_bin_edges(n_cells=FINE_CELLS, logit_range=FINE_LOGIT_RANGE):
    r"""Return the edges of the fine histogram behind the streamed equal-mass metrics.

    ``n_cells`` cells of equal width in log-odds between ``-logit_range`` and
    ``logit_range``, plus one cell from 0 and one cell to 1:

    .. math::

        e_0 = 0,\quad e_j = \sigma\Bigl(-L + 2L\,\frac{j - 1}{M}\Bigr)\ (j = 1..M + 1),
        \quad e_{M+2} = 1,

    with :math:`\sigma` the logistic function.  Cells are narrow where probabilities
    crowd: near 0 and 1 a cell spans a fraction ``2 L / M`` of ``p (1 - p)`` (about 0.5%
    by default), so the confidences of an accurate network (many above 0.99) are
    resolved as finely as those near 0.5.

    Parameters
    ----------
    n_cells : int, default=8192
        Number of cells of equal log-odds width.
    logit_range : float, default=20.0
        Half-width ``L`` of the log-odds range (``sigma(20) = 1 - 2.1e-9``).

    Returns
    -------
    edges : ndarray of shape (n_cells + 3,)
        Increasing float64 edges from 0 to 1.

    Examples
    --------
    >>> from skcalib.streaming import fine_bin_edges
    >>> edges = fine_bin_edges(4, 2.0)
    >>> edges.round(4)
    array([0.    , 0.1192, 0.2689, 0.5   , 0.7311, 0.8808, 1.    ])
    """
    t = np.linspace(-logit_range, logit_range, n_cells + 1)
    return np.concatenate(([0.0], 1.0 / (1.0 + np.exp(-t)), [1.0]))


_FINE_EDGES = fine_bin_edges()
_FINE_EDGES.flags.writeable = False


#: cells of the fine histogram (above 0.5 from this one on: the edge is 0.5 exactly)
_HALF_CELL = FINE_CELLS // 2 + 1
assert _FINE_EDGES[_HALF_CELL] == 0.5

#: the log-odds of a value, scaled to cells: ``t * _SCALE + _OFFSET`` lies within
#: ``_SLACK`` of ``1 + `` the (fractional) grid position of the value.  Rounding of the
#: logarithm (in the input's dtype) and of the scaling moves it by less than 0.003 cell
#: for float32 input, far less than the slack.
_SCALE = FINE_CELLS / (2 * FINE_LOGIT_RANGE)
_SLACK = 1.0 / 64
_OFFSET = FINE_LOGIT_RANGE * _SCALE + 1.0 - _SLACK


def _floor_to(edges, dtype):
    """The largest values of ``dtype`` <= ``edges``: for ``x`` of that dtype,
    ``x > floor(e)`` exactly when ``x > e``."""
    out = edges.astype(dtype)
    above = out.astype(np.float64) > edges
    out[above] = np.nextafter(out[above], dtype.type(-np.inf))
    return out


#: upper edge of each cell (index ``FINE_CELLS + 1``: 1), per input dtype
_UPPER = {
    np.dtype(np.float64): _FINE_EDGES[1:].copy(),
    np.dtype(np.float32): _floor_to(_FINE_EDGES[1:], np.dtype(np.float32)),
}
for _edges in _UPPER.values():
    _edges.flags.writeable = False


def _fine_cell(x, *, at_most_one=False, out=None):
    """Cell of :func:`fine_bin_edges` holding each probability (right-closed cells, as
    :func:`~skcalib._core._binning.bin_index_unclipped`; index ``FINE_CELLS + 2`` for
    values above 1 within the rounding tolerance).

    The cells are equal-width in log-odds, so the cell is computed from the log-odds of
    ``x`` (in its dtype, float32 or float64), shifted down by a slack larger than their
    rounding error: the result is then the cell or the one below it, which one exact
    comparison with the upper edge of the cell decides.  ``at_most_one``: the caller
    knows that no value exceeds 1 (a pass saved).  ``out``: work arrays ``(t, cell,
    above)`` of the shape of ``x``, of its dtype, of intp and of bool (the result is
    ``cell``); a stream reuses them from chunk to chunk: a cast or a logarithm into a fresh
    array of a chunk's size takes several times as long as into a reused one, and longer
    still where the allocator returns freed memory to the system at once (Dask's worker
    processes set ``MALLOC_TRIM_THRESHOLD_=65536``).
    """
    x = np.asarray(x)
    if x.dtype not in _UPPER:
        x = x.astype(np.float64)
    if out is None:
        out = np.empty_like(x), np.empty(x.shape, np.intp), np.empty(x.shape, bool)
    t, cell, above = out
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        np.subtract(1, x, out=t)
        np.divide(x, t, out=t)  # odds: inf at 1, negative above 1
        np.log(t, out=t)  # -inf at 0, NaN above 1
    np.multiply(t, _SCALE, out=t)
    np.add(t, _OFFSET, out=t)
    np.clip(t, 0.0, FINE_CELLS + 1, out=t)
    if not at_most_one:
        t[np.isnan(t)] = FINE_CELLS + 1  # above 1: the last cell, moved up below
    np.copyto(cell, t, casting="unsafe")  # truncation: t >= 0
    # mode="clip": the cells are valid indices, and np.take buffers ``out`` (a copy of
    # the chunk) in its default mode "raise"
    np.take(_UPPER[x.dtype], cell, out=t, mode="clip")
    # the values above the upper edge of their cell: one cell up
    cell += np.greater(x, t, out=above)
    return cell


def _log_loss_clip(dtype):
    """The clip of the log-loss's probabilities in ``dtype`` (as ``_log_loss_sum``)."""
    eps = dtype.type(np.finfo(dtype).eps)
    return float(eps), float(dtype.type(1) - eps)


_PLANS: dict = {}

#: the binary kernel's chunks: ``rows_per_chunk(_KERNEL_ROW_BYTES)`` (65,536) rows
_KERNEL_ROW_BYTES = 4
_WORK = threading.local()


def _work_arrays(dtype):
    """Work arrays of the binary kernel for one chunk of input of ``dtype``: ``(t, cell,
    x64, flag)`` of that dtype, intp, float64 and bool.

    Kept per thread and reused from call to call (and from chunk to chunk, see
    :func:`_fine_cell`): arrays allocated for each call cost page faults on their first
    use, which made ``update`` of 100,000 rows a third slower than of 1,000,000 rows a
    row (a Dask partition or a row group is often that small).  1.6 MiB per thread that
    ran the kernel, per input dtype.
    """
    arrays = getattr(_WORK, "arrays", None)
    if arrays is None:
        arrays = _WORK.arrays = {}
    if dtype not in arrays:
        rows = rows_per_chunk(_KERNEL_ROW_BYTES)
        arrays[dtype] = (
            np.empty(rows, dtype),
            np.empty(rows, np.intp),
            np.empty(rows),
            np.empty(rows, bool),
        )
    return arrays[dtype]


def _coarse_plan(n_bins):
    """How the ``n_bins`` equal-width bins are made of fine cells.

    Returns ``(lo_bin, split, split_edge, bounds)``: the bin of the values of each cell
    (a non-decreasing array; of the values at or below ``split_edge`` for a cell that
    holds an equal-width edge, whose values above it go to the next bin), and the first
    cell of each bin (bin ``b`` is made of the cells ``bounds[b]:bounds[b + 1]``, none
    empty); None when a cell holds two edges or a bin holds no cell (very many bins).
    """
    if n_bins not in _PLANS:
        edges = uniform_bin_edges(n_bins)
        cells = _FINE_EDGES
        # bin of the values just above a cell's lower edge, and of its upper edge
        lowest = np.nextafter(cells[:-1], 2.0)
        lowest[0] = 0.0
        lo_bin = bin_index_unclipped(lowest, edges, uniform=True)
        hi_bin = bin_index_unclipped(cells[1:], edges, uniform=True)
        np.minimum(lo_bin, n_bins - 1, out=lo_bin)
        np.minimum(hi_bin, n_bins - 1, out=hi_bin)
        plan = None
        if (hi_bin - lo_bin).max() <= 1 and np.bincount(lo_bin, minlength=n_bins).all():
            split = hi_bin > lo_bin
            split_edge = np.where(split, edges[hi_bin], np.inf)
            bounds = np.searchsorted(lo_bin, np.arange(n_bins), side="left")
            plan = lo_bin, split, split_edge, bounds
            for a in plan:
                a.flags.writeable = False
        _PLANS[n_bins] = plan
    return _PLANS[n_bins]


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

    :meth:`reliability_curve` and :meth:`brier_decomposition` give the Bunches of the
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
    on :func:`fine_bin_edges` (8,194 cells, each 0.5% of ``p (1 - p)`` wide) with the
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
        self._state = None  # dict of arrays and sums, created by the first update

    # ----------------------------------------------------------------------------------
    # feeding
    # ----------------------------------------------------------------------------------

    def update(self, y_true, y_proba, *, sample_weight=None):
        """Add a chunk of labels and predicted probabilities.

        The chunk is validated as by the batch metrics; an invalid chunk raises a
        ValueError and leaves the accumulator unchanged.  An empty chunk does nothing.

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
        data = check_classification_input(
            y, P, sample_weight=sample_weight, labels=self.classes_, pos_label=self.pos_label
        )
        part = self._statistics(data)
        if self._state is None:
            self._state = part
        else:
            self._check_compatible(part)
            _add_state(self._state, part)
        self.classes_ = data.classes
        self.n_samples_ += data.n_samples
        return self

    def _statistics(self, data):
        """The statistics of one validated chunk (a new state dict)."""
        mode = resolve_multiclass("auto", data)
        sw = data.sample_weight
        if (
            mode == "binary"
            and data.binary_1d
            and data.pos_index == 1
            and sw is None
            and data.y.dtype.kind in "biu"
            and _coarse_plan(self.n_bins) is not None
        ):
            return self._binary_statistics(data)
        conf, outcome = probability_outcome(data, mode)
        stats = accumulate_pairs(conf, outcome, sw, uniform_bin_edges(self.n_bins))
        fine = accumulate_pairs(conf, outcome, sw, _FINE_EDGES, bin_index=_fine_cell)
        if mode == "top_label":
            correct = _weighted_sum(outcome, sw)
        else:
            correct = _weighted_sum(probability_outcome(data, "top_label")[1], sw)
        state = {
            "classes": data.classes,
            "pos_index": data.pos_index,
            "mode": mode,
            "weighted": sw is not None,
            "total_weight": float(data.n_samples if sw is None else sw.sum()),
            "stats": stats,
            "fine": fine,
            "classwise": None,
            "brier_sum": _brier_sum(data),
            "log_loss_sum": _log_loss_sum(data, "auto"),
            "correct": correct,
        }
        state["sum_ff"], state["sum_fo"] = _binned_totals(data)
        if data.n_classes > 2:
            cw = bin_stats(data, multiclass="classwise", n_bins=self.n_bins)
            state["classwise"] = np.stack([cw.count, cw.sum_proba, cw.sum_true, _weight_sq(cw)])
        return state

    def _binary_statistics(self, data):
        """:meth:`_statistics` of unweighted 1-D positive-class probabilities with 0/1
        labels (the common stream), in one pass over cache-sized chunks.

        Each chunk's values go to their fine cell and the (cell, label) counts and
        probability sums are added in place (``np.add.at``: no chunk-sized temporary);
        the equal-width bins are unions of fine cells, except the few cells that hold an
        equal-width edge, whose values are split by one exact comparison
        (:func:`_coarse_plan`).  The accuracy is read
        from the cells too (the positive class is predicted above 0.5, a fine edge).  The
        Brier score and the log-loss are summed per chunk exactly as the batch functions
        compute them per sample.
        """
        p, y = data.proba, data.y
        lo, hi = _log_loss_clip(p.dtype)
        size = FINE_CELLS + 2
        per_cell = np.zeros(2 * size, dtype=np.intp)  # (cell, label) counts
        sum_proba = np.zeros(2 * size)  # (cell, label) sums of the probabilities
        moved = []  # values of the split cells above their equal-width edge
        brier = log_loss = sum_ff = 0.0
        lo_bin, split, split_edge, bounds = _coarse_plan(self.n_bins)
        chunks = iter_row_chunks(p.shape[0], _KERNEL_ROW_BYTES)
        t_buf, cell_buf, x64_buf, split_buf = _work_arrays(p.dtype)
        for start, stop in chunks:
            k = stop - start
            x, yc = p[start:stop], y[start:stop]
            t, x64 = t_buf[:k], x64_buf[:k]
            cell = _fine_cell(x, at_most_one=True, out=(t, cell_buf[:k], split_buf[:k]))
            s = np.flatnonzero(np.take(split, cell, out=split_buf[:k], mode="clip"))
            if s.size:
                xs = x[s]
                up = xs > split_edge[cell[s]]
                moved.append((lo_bin[cell[s][up]], xs[up], yc[s][up]))
            np.copyto(x64, x)
            cell <<= 1
            cell += yc
            np.add.at(sum_proba, cell, x64)
            np.add.at(per_cell, cell, 1)
            sum_ff += float(np.einsum("i,i->", x64, x64))
            # Brier: (p - y)^2 in float64; log-loss: -log of the probability of the
            # observed class, 1 - p in the input dtype, clipped as the batch function
            d = np.subtract(x64, yc, out=x64)
            brier += float(np.einsum("i,i->", d, d))
            q = np.subtract(1, yc, out=t)
            np.subtract(x, q, out=q)
            np.abs(q, out=q)
            np.clip(q, lo, hi, out=q)
            log_loss -= float(np.log(q, out=x64, dtype=np.float64).sum())
        fine = np.empty((4, size))
        np.add(per_cell[0::2], per_cell[1::2], out=fine[COUNT])
        fine[SUM_TRUE] = per_cell[1::2]
        np.add(sum_proba[0::2], sum_proba[1::2], out=fine[SUM_PROBA])
        fine[SUM_WEIGHT_SQ] = fine[COUNT]
        stats = np.add.reduceat(fine[:3], bounds, axis=1)  # bins as unions of cells
        if moved:
            b = np.concatenate([m[0] for m in moved])
            xs = np.concatenate([m[1] for m in moved]).astype(np.float64)
            ys = np.concatenate([m[2] for m in moved]).astype(np.float64)
            for r, w in ((COUNT, None), (SUM_PROBA, xs), (SUM_TRUE, ys)):
                part = np.bincount(b, weights=w, minlength=self.n_bins).astype(np.float64)
                stats[r] -= part
                stats[r][1:] += part[:-1]
        stats = np.concatenate([stats, stats[COUNT][None]])
        correct = fine[SUM_TRUE][_HALF_CELL:].sum() + (
            fine[COUNT][:_HALF_CELL].sum() - fine[SUM_TRUE][:_HALF_CELL].sum()
        )
        return {
            "classes": data.classes,
            "pos_index": data.pos_index,
            "mode": "binary",
            "weighted": False,
            "total_weight": float(data.n_samples),
            "stats": stats,
            "fine": fine,
            "classwise": None,
            "brier_sum": brier,
            "log_loss_sum": log_loss,
            "correct": float(correct),
            "sum_ff": sum_ff,
            "sum_fo": float(sum_proba[1::2].sum()),
        }

    def _check_compatible(self, other):
        mine = self._state
        if mine["mode"] != other["mode"] or mine["pos_index"] != other["pos_index"]:
            raise ValueError(
                "cannot combine binary (positive-class) and top-label statistics, or two "
                "positive classes: pass the same labels and pos_label to every chunk"
            )
        if not _same_classes(mine["classes"], other["classes"]):
            raise ValueError(
                f"the classes {_jsonable(other['classes'])!r} differ from those of the "
                f"accumulator {_jsonable(mine['classes'])!r}; pass labels="
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
        if other._state is None:
            if self.classes_ is None:
                self.classes_ = other.classes_
            return self
        if self._state is None:
            self._state = _copy_state(other._state)
        else:
            self._check_compatible(other._state)
            _add_state(self._state, other._state)
        self.classes_ = other.classes_ if self.classes_ is None else self.classes_
        self.n_samples_ += other.n_samples_
        return self

    # ----------------------------------------------------------------------------------
    # results
    # ----------------------------------------------------------------------------------

    def _require_data(self):
        if self._state is None:
            raise ValueError("the accumulator has seen no data: call update() first")
        return self._state

    def _bin_stats(self, sums, edges):
        st = self._state
        sums = np.asarray(sums)
        if sums.ndim == 2:  # one group
            sums, edges = sums[:, None, :], edges[None, :]
        return BinStats(
            count=sums[COUNT].copy(),
            sum_proba=sums[SUM_PROBA].copy(),
            sum_true=sums[SUM_TRUE].copy(),
            bin_edges=np.array(edges, dtype=np.float64),
            total_weight=st["total_weight"],
            sum_weight_sq=sums[SUM_WEIGHT_SQ].copy() if st["weighted"] else None,
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
            if st["classwise"] is None:
                raise ValueError("class-wise statistics are kept for more than two classes only")
            k = st["classwise"].shape[1]
            return self._bin_stats(st["classwise"], np.broadcast_to(edges, (k, edges.size)))
        if multiclass != "auto":
            raise ValueError(f"multiclass must be 'auto' or 'classwise', got {multiclass!r}")
        return self._bin_stats(st["stats"], edges)

    def equal_mass_bin_stats(self):
        """Return the :class:`~skcalib.metrics.BinStats` of ``n_bins`` equal-mass bins.

        The edges are taken on the fine histogram (see Notes of the class).

        Returns
        -------
        BinStats
            The per-bin statistics; the edges are edges of :func:`fine_bin_edges`.
        """
        st = self._require_data()
        fine = st["fine"]
        cells = _FINE_EDGES
        # inverted-CDF quantiles on the cells, with the rule of the batch edges
        # (quantile_edges): the first cell whose cumulative weight reaches k W / n_bins
        count = fine[COUNT]
        cum = np.cumsum(count)
        total = cum[-1]
        k = np.arange(1, self.n_bins)
        rtol = max(64, count.size) * np.finfo(np.float64).eps
        idx = np.searchsorted(cum * self.n_bins, k * total * (1 - rtol), side="left")
        idx = np.minimum(idx, count.size - 1)
        edges = np.concatenate(([0.0], cells[idx + 1], [1.0]))
        # the coarse bins are unions of cells: bin j holds cells bounds[j]..bounds[j+1]-1
        bounds = np.concatenate(([0], idx + 1, [count.size]))
        # (a zero cell past the end: an edge in the last cell starts an empty last bin)
        padded = np.concatenate([fine, np.zeros((4, 1))], axis=1)
        sums = np.stack([np.add.reduceat(padded[r], bounds[:-1]) for r in range(4)])
        empty = bounds[:-1] >= bounds[1:]  # repeated edges: an empty bin
        sums[:, empty] = 0.0
        return self._bin_stats(sums, edges)

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
        W = st["total_weight"]
        out = {
            "expected_calibration_error": _error(stats, "l1"),
            "max_calibration_error": _error(stats, "max"),
            "root_mean_squared_calibration_error": _error(self.equal_mass_bin_stats(), "l2"),
        }
        if st["classwise"] is not None:
            out["static_calibration_error"] = _error(self.bin_stats(multiclass="classwise"), "l1")
        out["brier_score"] = float(st["brier_sum"] / W)
        out["negative_log_likelihood"] = float(st["log_loss_sum"] / W)
        out["accuracy"] = float(st["correct"] / W)
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

        The same Bunch as :func:`skcalib.metrics.reliability_curve` on the concatenated
        data.

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
        Bunch
            ``prob_true``, ``prob_pred``, ``bin_count``, ``bin_edges``, ``bin_stats``
            (and ``prob_true_low``, ``prob_true_high`` with ``confidence_level``).
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

        The same Bunch as :func:`skcalib.metrics.brier_decomposition` with
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
        Bunch
            ``uncertainty``, ``resolution``, ``reliability``, ``within_bin_variance``,
            ``within_bin_covariance``.

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
        multiclass = "auto" if st["classwise"] is None else "classwise"
        return binned_decomposition(
            self.bin_stats(multiclass=multiclass), st["sum_ff"], st["sum_fo"]
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
        d = {
            "version": STATE_VERSION,
            "n_bins": self.n_bins,
            "labels": None if self.labels is None else _jsonable(self.labels),
            "pos_label": _jsonable([self.pos_label])[0] if self.pos_label is not None else None,
            "classes": None if self.classes_ is None else _jsonable(self.classes_),
            "n_samples": int(self.n_samples_),
            "state": None,
        }
        st = self._state
        if st is not None:
            nz = _nonempty_cells(st["fine"])
            d["state"] = {
                "pos_index": st["pos_index"],
                "mode": st["mode"],
                "weighted": st["weighted"],
                "total_weight": st["total_weight"],
                "stats": st["stats"].tolist(),
                "fine_cells": nz.tolist(),
                "fine": st["fine"][:, nz].tolist(),
                "classwise": None if st["classwise"] is None else st["classwise"].tolist(),
                "brier_sum": st["brier_sum"],
                "log_loss_sum": st["log_loss_sum"],
                "correct": st["correct"],
                "sum_ff": st["sum_ff"],
                "sum_fo": st["sum_fo"],
            }
        return d

    @classmethod
    def from_dict(cls, d):
        """Rebuild an accumulator from :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            The output of :meth:`to_dict` (possibly through ``json.dumps`` /
            ``json.loads``).

        Returns
        -------
        CalibrationAccumulator
            An accumulator equal to the one that was saved.
        """
        if not isinstance(d, dict) or d.get("version") != STATE_VERSION:
            raise ValueError(
                f"not a CalibrationAccumulator state of version {STATE_VERSION}: "
                f"{type(d).__name__} with version {getattr(d, 'get', lambda k: None)('version')!r}"
            )
        acc = cls(n_bins=d["n_bins"], labels=d["labels"], pos_label=d["pos_label"])
        acc.classes_ = None if d["classes"] is None else np.asarray(d["classes"])
        acc.n_samples_ = int(d["n_samples"])
        s = d["state"]
        if s is not None:
            fine = _dense_fine(np.asarray(s["fine_cells"], dtype=np.intp), s["fine"])
            acc._state = {
                "classes": acc.classes_,
                "pos_index": s["pos_index"],
                "mode": s["mode"],
                "weighted": bool(s["weighted"]),
                "total_weight": float(s["total_weight"]),
                "stats": np.asarray(s["stats"], dtype=np.float64),
                "fine": fine,
                "classwise": None
                if s["classwise"] is None
                else np.asarray(s["classwise"], dtype=np.float64),
                "brier_sum": float(s["brier_sum"]),
                "log_loss_sum": float(s["log_loss_sum"]),
                "correct": float(s["correct"]),
                "sum_ff": float(s["sum_ff"]),
                "sum_fo": float(s["sum_fo"]),
            }
        return acc

    def __copy__(self):
        # merges add into the state's arrays in place: a copy gets arrays of its own
        new = self.__class__.__new__(self.__class__)
        new.__dict__.update(self.__dict__)
        new._state = None if self._state is None else _copy_state(self._state)
        return new

    def __getstate__(self):
        # pickles (Dask moves accumulators between processes as pickles) hold the fine
        # histogram by its non-empty cells when fewer than half are: an accumulator of
        # a small chunk or group pickles to a few KiB instead of 256 KiB
        d = self.__dict__.copy()
        st = d["_state"]
        if st is not None:
            nz = _nonempty_cells(st["fine"])
            if nz.size < st["fine"].shape[1] // 2:
                d["_state"] = {**st, "fine": (nz, st["fine"][:, nz])}
        return d

    def __setstate__(self, d):
        st = d["_state"]
        if st is not None and isinstance(st["fine"], tuple):
            d["_state"] = {**st, "fine": _dense_fine(*st["fine"])}
        self.__dict__.update(d)

    def __repr__(self):
        return f"CalibrationAccumulator(n_bins={self.n_bins}, n_samples_={self.n_samples_})"


def _weighted_sum(outcome, sample_weight):
    if sample_weight is None:
        return float(np.count_nonzero(outcome))
    return float(np.dot(np.asarray(outcome, dtype=np.float64), sample_weight))


def _weight_sq(stats):
    return stats.count if stats.sum_weight_sq is None else stats.sum_weight_sq


def _same_classes(a, b):
    return len(a) == len(b) and _jsonable(a) == _jsonable(b)


_SUMMED = (
    "total_weight",
    "stats",
    "fine",
    "classwise",
    "brier_sum",
    "log_loss_sum",
    "correct",
    "sum_ff",
    "sum_fo",
)


def _nonempty_cells(fine):
    """The cells of a fine histogram holding anything (how states are stored sparsely)."""
    return np.flatnonzero((fine != 0).any(axis=0))


def _dense_fine(cells, values):
    """The fine histogram whose cells ``cells`` hold ``values`` (4 rows), the others 0."""
    fine = np.zeros((4, FINE_CELLS + 2))
    fine[:, cells] = np.asarray(values, dtype=np.float64).reshape(4, -1)
    return fine


def _copy_state(state):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()}


def _add_state(state, other):
    """Add the statistics of a compatible state to ``state``, in place (the arrays of a
    state belong to one accumulator: :func:`_copy_state` copies them)."""
    for key in _SUMMED:
        if isinstance(state[key], np.ndarray):
            state[key] += other[key]
        elif state[key] is not None:
            state[key] = state[key] + other[key]
    state["weighted"] = state["weighted"] or other["weighted"]
