"""The one binning core of skcalib.

Every binned quantity of the library (calibration errors, reliability curves, the bars of
a reliability diagram, histogram-binning recalibration, streamed results) is computed from
a :class:`BinStats`: per group (one group for binary / top-label calibration, one per
class for class-wise calibration) and per bin, the (weighted) count, the sum of predicted
probabilities and the sum of outcomes.  ``BinStats`` objects with the same edges can be
merged, which is what makes chunked and streamed computation exact.

Binning rule
------------
``n_bins`` equal-width bins have the edges ``np.linspace(0, 1, n_bins + 1)``, exactly as
:func:`sklearn.calibration.calibration_curve`, torchmetrics and netcal compute them, so
that a probability on an edge lands in the same bin as there.  Bins are right-closed: bin
``m`` holds ``e_m < p <= e_{m+1}``; the first bin also holds ``p = 0``.  The bin index is
computed by arithmetic (``floor(p * n_bins)``) followed by an exact fix-up of the values
within a few ulps of an edge (a binary search against the float64 edges), so a
probability that equals an edge always lands where the rule says, whatever the rounding
of ``p * n_bins``.  Entries of a 2-D ``y_proba`` may exceed 1 by the rounding tolerance
of the input checks; they are binned with 1, in the last bin.

Passes
------
Each kernel is written once against the array namespace of its input (numpy's included;
:func:`~skcalib._core._array_api.namespace_and_device`): an exact right-closed bin index
by arithmetic on the edges and weighted bincounts
(:func:`~skcalib._core._array_api.weighted_bincount`: ``np.bincount`` for numpy) over a
combined (group, bin, outcome) or (class, bin) index (:func:`_pair_cells`,
:func:`_classwise_cells`), in cache-sized chunks of rows for numpy (whose temporaries
stay in the reused arrays of a :class:`~skcalib._core._array_api.Workspace`), in 1 MiB
chunks for PyTorch CPU tensors and in one piece on a GPU.  Kernels take validated
arrays.  The public entry point (:func:`stats_of_input`) reads the data once: it checks
each chunk of rows (:func:`~skcalib._core._validation.check_proba_chunk`), reduces it
to its bin sums or (probability, outcome) pairs while it is in cache, and adds up the
per-chunk sums; top-label calibration keeps each chunk's row sums, minimum and
predicted classes and compares the values after the loop
(:func:`~skcalib._core._validation.check_proba_reductions`).

Equal-mass bins (``strategy="quantile"``) use the inverted-CDF quantiles of the binned
values: inner edge ``k`` is the smallest value ``v`` with ``F(v) >= k / n_bins``, where
``F`` is the (sample-weighted) empirical CDF.  With right-closed bins each bin then holds
the same mass up to one sample (or one sample's weight).  Ties are deterministic: all
copies of a value land in the lowest bin whose upper edge equals it, so heavy ties can
leave later bins empty (reported with count 0).  The outer edges are 0 and 1.  Without
weights the edges come from one ``np.partition`` (a selection, not a sort).  With a
``threshold``, the quantiles are those of the kept values (``p > threshold``), for every
kind of calibration.  A group with no value of positive weight to bin gets the
equal-width edges (all its bins are empty).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._array_api import (
    RowCollector,
    Workspace,
    argmax_rows,
    bincount_weights,
    has_bit_views,
    kth_smallest,
    masked_assign,
    masked_fill,
    max_float_dtype,
    min_max,
    min_value,
    namespace_and_device,
    near_integer,
    pair_index,
    row_ranges,
    row_sums,
    scaled,
    take_along_rows,
    to_numpy,
    truncated,
    weighted_bincount,
)
from ._validation import (
    _as_float,
    _to_numpy,
    check_classification_labels,
    check_outcome_chunk,
    check_proba_chunk,
    check_proba_reductions,
    check_proba_values,
    check_sample_weight,
    input_ranges,
)

__all__ = [
    "BinStats",
    "compute_bin_stats",
    "quantile_bin_edges",
    "uniform_bin_edges",
]

MULTICLASS_OPTIONS = ("auto", "top_label", "classwise")
STRATEGIES = ("uniform", "quantile")


# --------------------------------------------------------------------------------------
# edges
# --------------------------------------------------------------------------------------


def check_n_bins(n_bins, name="n_bins"):
    """``n_bins`` as a Python int >= 1; a ValueError naming it otherwise (bools too)."""
    if isinstance(n_bins, bool | np.bool_) or not isinstance(n_bins, numbers.Integral):
        raise ValueError(f"{name} must be an int >= 1, got {n_bins!r}")
    if n_bins < 1:
        raise ValueError(f"{name} must be an int >= 1, got {n_bins!r}")
    return int(n_bins)


def _uniform_edges(n_bins):
    return np.linspace(0.0, 1.0, n_bins + 1)


@validate_params(
    {"n_bins": [Interval(numbers.Integral, 1, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def uniform_bin_edges(n_bins):
    """Equal-width bin edges on [0, 1]: ``np.linspace(0, 1, n_bins + 1)``.

    These are the edges of :func:`sklearn.calibration.calibration_curve` (and of
    torchmetrics and netcal), so that a probability equal to an edge lands in the same
    bin as there.  Bins are right-closed: bin ``m`` holds ``e_m < p <= e_{m+1}`` and the
    first bin also holds 0.

    Parameters
    ----------
    n_bins : int
        Number of bins, at least 1.

    Returns
    -------
    edges : ndarray of shape (n_bins + 1,)
        The float64 edges, from 0 to 1.

    Examples
    --------
    >>> from skcalib.metrics import uniform_bin_edges
    >>> uniform_bin_edges(4)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    return _uniform_edges(check_n_bins(n_bins))


def quantile_edges(x, n_bins, sample_weight=None):
    """Equal-mass edges of validated values (kernel of :func:`quantile_bin_edges`).

    ``x`` and ``sample_weight`` are arrays of one namespace (numpy or another, on any
    device); the order statistics are selected there (numpy: ``np.partition``, no sort,
    without weights) and only the ``n_bins + 1`` host float64 edges are returned.  The
    cumulative weights are summed in the widest float of the device (float64 unless the
    device has none), whatever the dtype of the values.  With no value of positive
    weight the equal-width edges are returned.
    """
    xp, device, top = _context(x)
    if sample_weight is not None:
        keep = sample_weight > 0
        if not bool(xp.all(keep)):
            x, sample_weight = x[keep], sample_weight[keep]
    n = x.shape[0]
    if n == 0 or n_bins == 1:
        return _uniform_edges(n_bins)
    k = np.arange(1, n_bins)
    if sample_weight is None:
        # smallest order statistic with rank >= k n / n_bins (exact integer arithmetic)
        kth = -((-k * n) // n_bins) - 1
        inner = np.asarray(kth_smallest(x, kth, xp), dtype=np.float64)
    else:
        w = xp.astype(sample_weight, top)
        w = w / xp.max(w)  # scale-free; no overflow of cum * n_bins
        order = xp.argsort(x, stable=True)
        xs = xp.take(x, order)
        cum = xp.cumulative_sum(xp.take(w, order))
        total = float(cum[-1])
        # first index with cum >= k * total / n_bins.  Compared without division and
        # with a relative slack of the order of the cumulative sum's rounding error (in
        # its own dtype), so that exact ties (integer weights, or integer weights times
        # any scale) resolve as in exact arithmetic: weights w give the edges of the
        # sample repeated w times.
        rtol = max(64, n) * float(xp.finfo(cum.dtype).eps)
        targets = xp.asarray(k * total * (1 - rtol), dtype=cum.dtype, device=device)
        idx = to_numpy(xp.searchsorted(cum * n_bins, targets, side="left"), xp)
        idx = xp.asarray(np.minimum(idx, n - 1).astype(np.int64), device=device)
        inner = np.asarray(to_numpy(xp.take(xs, idx), xp), dtype=np.float64)
    edges = np.concatenate(([0.0], inner, [1.0]))
    np.clip(edges, 0.0, 1.0, out=edges)  # inner edges of values 1 + tolerance are 1
    return edges


@validate_params(
    {
        "x": ["array-like"],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def quantile_bin_edges(x, n_bins, *, sample_weight=None):
    """Equal-mass bin edges: the (weighted) inverted-CDF quantiles of ``x``.

    Inner edge ``k`` is the smallest value ``v`` of ``x`` whose weighted empirical CDF
    ``F(v)`` is at least ``k / n_bins``; the outer edges are 0 and 1.  With the
    right-closed bins of skcalib every bin then holds ``1 / n_bins`` of the mass, up to
    one sample (ties put every copy of a value in the same bin).  Integer weights give
    the edges of the sample repeated that many times, and rescaling the weights does
    not change the edges.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        The probabilities to bin, in [0, 1]; at least one.
    n_bins : int
        Number of bins, at least 1.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights with a positive sum.

    Returns
    -------
    edges : ndarray of shape (n_bins + 1,)
        Non-decreasing float64 edges ``[0, q_1, ..., q_{n_bins - 1}, 1]``.

    Examples
    --------
    >>> from skcalib.metrics import quantile_bin_edges
    >>> quantile_bin_edges([0.1, 0.2, 0.3, 0.4], 2)
    array([0. , 0.2, 1. ])
    """
    n_bins = check_n_bins(n_bins)
    arr = _as_float(_to_numpy(x, "x"), "x")
    if arr.ndim != 1:
        raise ValueError(f"x must be a 1-D array of probabilities, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError("x is empty: need at least one value to compute quantiles")
    if not (arr.min() >= 0 and arr.max() <= 1):
        bad = np.flatnonzero(~((arr >= 0) & (arr <= 1)))[0]
        raise ValueError(f"x must contain probabilities in [0, 1]; x[{bad}] = {arr[bad]!r}")
    sw = check_sample_weight(sample_weight, arr.shape[0])
    return quantile_edges(arr, n_bins, sw)


def check_bin_edges(bins):
    """Validate explicit edges: 1-D, finite, strictly increasing, covering [0, 1]."""
    edges = np.asarray(_as_float(_to_numpy(bins, "bins"), "bins"), dtype=np.float64)
    if edges.ndim != 1 or edges.shape[0] < 2:
        raise ValueError(f"bins must be a 1-D array of at least 2 edges, got shape {edges.shape}")
    if not np.isfinite(edges).all():
        raise ValueError("bins contains NaN or infinity")
    if not (np.diff(edges) > 0).all():
        raise ValueError(f"bins must be strictly increasing, got {edges.tolist()!r}")
    if edges[0] > 0 or edges[-1] < 1:
        raise ValueError(
            "bins must cover the probability range [0, 1]: "
            f"bins[0] = {edges[0]!r} must be <= 0 and bins[-1] = {edges[-1]!r} must be >= 1"
        )
    return edges


def _is_uniform(edges):
    """Whether ``edges`` are the equal-width edges of their number of bins (a byte
    comparison with the cached ``linspace``: cheap enough to call per chunk)."""
    n_bins = edges.shape[0] - 1
    uniform = _UNIFORM_BYTES.get(n_bins)
    if uniform is None:
        if len(_UNIFORM_BYTES) > 64:
            _UNIFORM_BYTES.clear()
        uniform = _UNIFORM_BYTES[n_bins] = _uniform_edges(n_bins).tobytes()
    return edges.dtype == np.float64 and edges.tobytes() == uniform


_UNIFORM_BYTES: dict = {}


# --------------------------------------------------------------------------------------
# bin assignment
# --------------------------------------------------------------------------------------


def _context(x, xp=None):
    """``(xp, device, widest float)`` of the array ``x``."""
    if xp is None:
        xp, device = namespace_and_device(x)
    else:
        device = "cpu" if isinstance(x, np.ndarray) else x.device
    return xp, device, max_float_dtype(xp, device)


def bin_index_unclipped(x, edges, *, uniform, xp=None, work=None):
    """Bin index under the right-closed rule, in ``[0, n_bins]``, C-ordered.

    Index ``n_bins`` is returned only for values above ``edges[-1]`` (a 2-D probability
    within the rounding tolerance above 1): the accumulating kernels give those an extra
    slot and fold it into the last bin, which costs nothing, instead of clipping every
    index.  ``x`` is an array of any namespace (``xp``, default: its own) and memory
    layout; the result is a C-ordered int64 array of that namespace, on the device of
    ``x``: a fresh one, or one of the arrays of ``work`` (a
    :class:`~skcalib._core._array_api.Workspace`, whose arrays the next chunk reuses).
    The values are compared with the host float64 ``edges`` in the widest float of the
    device.
    """
    xp, device, top = _context(x, xp)
    n_bins = edges.shape[0] - 1
    if n_bins == 1:
        return xp.astype(x > float(edges[-1]), xp.int64)
    if not uniform:
        upper = xp.asarray(edges[1:], dtype=top, device=device)
        return xp.searchsorted(upper, xp.astype(x, top, copy=False), side="left")
    # t = x * n_bins; away from integers, floor(t) is the exact bin.  Within a few ulps
    # of an integer (x on or next to an edge, including 0 and 1) the rounding of the
    # product (and of the linspace edges) can move a value across an edge, so those few
    # values are placed by an exact binary search against the edges.
    shape = tuple(x.shape)
    t = scaled(x, n_bins, top, xp, out=None if work is None else work.get("t", shape, top))
    b = truncated(t, xp, out=None if work is None else work.get("b", shape, xp.int64))
    near = near_integer(t, b, 4 * n_bins * _eps(top, xp), xp, work)
    if near is not None:
        upper = xp.asarray(edges[1:], dtype=top, device=device)
        xv = xp.astype(x[near], top, copy=False)
        b = masked_assign(b, near, xp.searchsorted(upper, xv, side="left"), xp)
    return b


def _eps(dtype, xp):
    """Machine epsilon of the floating ``dtype`` of ``xp``, as a Python float (cached)."""
    key = str(dtype)
    eps = _EPS.get(key)
    if eps is None:
        eps = _EPS[key] = float(xp.finfo(dtype).eps)
    return eps


_EPS: dict = {}


def assign_bins(x, edges):
    """Bin index of each value of ``x`` under the right-closed rule.

    Bin ``m`` holds ``edges[m] < x <= edges[m + 1]``; values ``<= edges[1]`` go to bin 0
    and values above ``edges[-2]`` to the last bin.

    Parameters
    ----------
    x : array (any shape and memory layout), float32 or float64
        Validated probabilities (numpy, or an array of another namespace).
    edges : ndarray of shape (n_bins + 1,)
        Non-decreasing edges from 0 to 1.

    Returns
    -------
    array of int64
        Same shape and namespace as ``x``, values in ``[0, n_bins - 1]``.
    """
    xp = namespace_and_device(x)[0]
    b = bin_index_unclipped(x, edges, uniform=_is_uniform(edges), xp=xp)
    return xp.clip(b, 0, edges.shape[0] - 2)


# --------------------------------------------------------------------------------------
# sufficient statistics
# --------------------------------------------------------------------------------------


@dataclass
class BinStats:
    """Per-group, per-bin sufficient statistics of a reliability diagram.

    Every binned number of skcalib (calibration errors, reliability curves, the bars of
    the displays) is computed from these sums, and two ``BinStats`` with the same edges
    merge exactly (the statistics of the union of the two samples).

    Parameters
    ----------
    count : ndarray of shape (n_groups, n_bins)
        Total sample weight (the number of samples without weights) in each bin.
    sum_proba : ndarray of shape (n_groups, n_bins)
        Weighted sum of the binned probabilities (confidences).
    sum_true : ndarray of shape (n_groups, n_bins)
        Weighted sum of the outcomes (1 when the event / correct prediction happened).
    bin_edges : ndarray of shape (n_groups, n_bins + 1)
        Edges of each group's bins.
    total_weight : float
        Total weight of all samples (including samples removed by a threshold); the
        denominator of the calibration errors.
    sum_weight_sq : ndarray of shape (n_groups, n_bins) or None, default=None
        Sum of the squared weights in each bin, from which the effective sample size
        ``count**2 / sum_weight_sq`` of a bin follows; None for unweighted samples
        (the effective size is then ``count``).

    Examples
    --------
    >>> from skcalib.metrics import compute_bin_stats
    >>> stats = compute_bin_stats([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> stats.count
    array([[2., 2.]])
    >>> (stats + stats).count
    array([[4., 4.]])
    """

    count: np.ndarray
    sum_proba: np.ndarray
    sum_true: np.ndarray
    bin_edges: np.ndarray
    total_weight: float
    sum_weight_sq: np.ndarray | None = None

    @property
    def n_groups(self):
        """Number of groups (1, or the number of classes for class-wise binning)."""
        return self.bin_edges.shape[0]

    @property
    def n_bins(self):
        """Number of bins of each group."""
        return self.bin_edges.shape[1] - 1

    @property
    def effective_count(self):
        """Effective sample size of each bin, ``count**2 / sum_weight_sq`` (Kish).

        Equal to ``count`` without weights or with equal weights, and unchanged when
        all weights are multiplied by the same factor.
        """
        if self.sum_weight_sq is None:
            return self.count
        out = np.zeros_like(self.count)
        np.divide(self.count**2, self.sum_weight_sq, out=out, where=self.sum_weight_sq > 0)
        return out

    def merge(self, other):
        """Merge with the statistics of another sample: those of the union of both.

        Parameters
        ----------
        other : BinStats
            Statistics computed with the same bin edges.

        Returns
        -------
        BinStats
            The merged statistics (a new object).
        """
        if not isinstance(other, BinStats):
            raise TypeError(f"can only merge BinStats, got {type(other).__name__}")
        if self.bin_edges.shape != other.bin_edges.shape or not np.array_equal(
            self.bin_edges, other.bin_edges
        ):
            raise ValueError("cannot merge BinStats with different bin edges")
        sq = None
        if self.sum_weight_sq is not None or other.sum_weight_sq is not None:
            sq = _weight_sq(self) + _weight_sq(other)
        return BinStats(
            count=self.count + other.count,
            sum_proba=self.sum_proba + other.sum_proba,
            sum_true=self.sum_true + other.sum_true,
            bin_edges=self.bin_edges.copy(),
            total_weight=self.total_weight + other.total_weight,
            sum_weight_sq=sq,
        )

    __add__ = merge

    def _mean(self, s):
        out = np.full(s.shape, np.nan)
        np.divide(s, self.count, out=out, where=self.count > 0)
        return out

    @property
    def prob_true(self):
        """Observed frequency (accuracy) per bin; NaN for empty bins."""
        return self._mean(self.sum_true)

    @property
    def prob_pred(self):
        """Mean predicted probability (confidence) per bin; NaN for empty bins."""
        return self._mean(self.sum_proba)


def _weight_sq(stats):
    # unweighted samples: every weight is 1, so the sum of squares is the count
    return stats.count if stats.sum_weight_sq is None else stats.sum_weight_sq


# --------------------------------------------------------------------------------------
# accumulation: kernels on validated arrays of any namespace
# --------------------------------------------------------------------------------------

#: rows of the sums returned by the kernels
COUNT, SUM_PROBA, SUM_TRUE, SUM_WEIGHT_SQ = range(4)


def _pair_cells(
    b, conf, outcome, weight, size, threshold, xp, device, groups=None, n_groups=1, work=None
):
    """Per-(group,) bin sums of (probability, 0/1 outcome, weight) triples, as raw cells.

    ``b`` is the bin index of each probability in ``[0, size - 1]`` (a fresh array or
    an array of ``work``, which may be modified); ``groups`` None or the group code of
    each triple in ``[0, n_groups)``.  Returns ``(pair, proba, square)``: arrays of
    ``xp`` in the widest float of the device, to be added over chunks
    (:func:`_add_cells`) and laid out once by :func:`_pair_table`.  ``pair`` holds
    the weight (count) of each (cell, outcome) pair, so that one bincount gives the
    counts and the outcome sums; ``proba`` the weighted sum of the probabilities of
    each cell; ``square`` the sum of the squared weights of each cell (None without
    weights: the count).  A cell is a (group, slot) and a group has ``size + 1`` slots:
    with the ``n_bins + 1`` slots of :func:`bin_index_unclipped`, slot ``n_bins`` holds
    the values above ``edges[-1]`` (:func:`_fold` moves it into the last bin) and the
    slot past the end the probabilities ``<= threshold``, which are dropped (compared in
    the widest float, so that a float32 probability is compared with the threshold
    itself).
    """
    top = max_float_dtype(xp, device)
    if threshold > 0:
        b = masked_fill(b, ~(xp.astype(conf, top, copy=False) > threshold), size, xp)
    slots = size + 1
    if groups is not None:
        b = b + xp.astype(groups, b.dtype) * slots
    n_cells = n_groups * slots
    out = None if work is None else work.get("pair", tuple(b.shape), b.dtype)
    pair = pair_index(b, outcome, xp, out=out)
    w = None if weight is None else xp.astype(weight, top, copy=False)
    x = bincount_weights(conf, top, xp)
    per_pair = weighted_bincount(pair, w, 2 * n_cells, xp, device)
    proba = weighted_bincount(b, x if w is None else x * w, n_cells, xp, device)
    square = None if w is None else weighted_bincount(b, w * w, n_cells, xp, device)
    return per_pair, proba, square


def _add_cells(total, part):
    """The element-wise sum of two tuples of raw cells (``total`` None: ``part``)."""
    if total is None:
        return part
    return tuple(None if a is None else a + b for a, b in zip(total, part, strict=True))


def _pair_table(cells, n_groups, slots, xp):
    """Host float64 sums (4, n_groups, slots - 1) from the raw cells of
    :func:`_pair_cells` (the slot past the end, of the dropped values, left out)."""
    per_pair, proba, square = (None if c is None else _to_host(c, xp) for c in cells)
    per_pair = per_pair.reshape(n_groups * slots, 2)
    out = np.empty((4, n_groups * slots))
    out[SUM_TRUE] = per_pair[:, 1]
    np.add(per_pair[:, 0], per_pair[:, 1], out=out[COUNT])
    out[SUM_PROBA] = proba
    out[SUM_WEIGHT_SQ] = out[COUNT] if square is None else square
    return out.reshape(4, n_groups, slots)[:, :, : slots - 1]


def _classwise_cells(
    P, y, weight, edges, uniform, threshold, xp, device, work=None, groups=None, n_groups=1
):
    """Per-class, per-bin sums of validated rows, all classes sharing ``edges``, as raw
    cells ``(count, proba, true, square)`` (laid out by :func:`_classwise_table`).

    One bincount over the combined (class, bin) index gives the counts and another the
    probability sums of every class; the outcome sums need only the cell of each row's
    true class.  A class has ``n_bins + 1`` slots as in :func:`_pair_cells`; the cell
    past the last class holds the probabilities ``<= threshold``.  With ``groups`` (the
    group of each row, in ``[0, n_groups)``), the cells of group ``g`` follow those of
    group ``g - 1``: one bincount over the combined (group, class, bin) index.
    """
    top = max_float_dtype(xp, device)
    m, k = P.shape
    stride = edges.shape[0]  # n_bins + 1 slots per class
    cell = bin_index_unclipped(P, edges, uniform=uniform, xp=xp, work=work)
    cell += xp.reshape(xp.arange(0, k * stride, stride, dtype=cell.dtype, device=device), (1, k))
    if groups is not None:
        cell += xp.reshape(xp.astype(groups, cell.dtype) * (k * stride), (m, 1))
    size = n_groups * k * stride
    if threshold > 0:
        cell = masked_fill(cell, ~(xp.astype(P, top, copy=False) > threshold), size, xp)
    true_cell = take_along_rows(cell, y, xp)
    flat_cell = xp.reshape(cell, (-1,))
    flat_P = bincount_weights(xp.reshape(P, (-1,)), top, xp)  # the order of flat_cell
    if weight is None:
        count = weighted_bincount(flat_cell, None, size + 1, xp, device)
        proba = weighted_bincount(flat_cell, flat_P, size + 1, xp, device)
        true = weighted_bincount(true_cell, None, size + 1, xp, device)
        return count, proba, true, None
    w = xp.astype(weight, top, copy=False)
    flat_w = xp.reshape(xp.broadcast_to(w[:, None], (m, k)), (-1,))
    count = weighted_bincount(flat_cell, flat_w, size + 1, xp, device)
    proba = weighted_bincount(flat_cell, flat_P * flat_w, size + 1, xp, device)
    true = weighted_bincount(true_cell, w, size + 1, xp, device)
    square = weighted_bincount(flat_cell, flat_w * flat_w, size + 1, xp, device)
    return count, proba, true, square


def _classwise_table(cells, n_classes, stride, xp):
    """Host float64 sums (4, n_classes, stride) from the raw cells of
    :func:`_classwise_cells`."""
    count, proba, true, square = (None if c is None else _to_host(c, xp) for c in cells)
    out = np.stack([count, proba, true, count if square is None else square])
    return out[:, : n_classes * stride].reshape(4, n_classes, stride)


def classwise_sums(data, edges, groups=None, n_groups=1):
    """Per-group, per-class, per-bin sums of validated 2-D rows, every class on ``edges``:
    an array (4, n_groups, n_classes, n_bins) laid out as :func:`accumulate_pairs`'s,
    read once in cache-sized chunks (:func:`_classwise_cells`)."""
    xp, device = data.namespace
    P, y, sw = data.proba, data.y, data.sample_weight
    uniform = _is_uniform(edges)
    work = Workspace(xp, device)
    cells = None
    for start, stop in input_ranges(data):
        part = _classwise_cells(
            P[start:stop, ...],
            y[start:stop],
            None if sw is None else sw[start:stop],
            edges,
            uniform,
            0.0,
            xp,
            device,
            work,
            None if groups is None else groups[start:stop],
            n_groups,
        )
        cells = _add_cells(cells, part)
    k = P.shape[1]
    table = _fold(_classwise_table(cells, n_groups * k, edges.shape[0], xp))
    return table.reshape(4, n_groups, k, edges.shape[0] - 1)


def add_classwise_occupied(out, data, edges, groups=None):
    """Add the per-group, per-class, per-bin sums of validated numpy rows into ``out``
    (n_groups, 4, n_classes, n_bins), in place, at the occupied cells only.

    The cells are those of :func:`_classwise_cells` (slot ``n_bins``, the values above
    ``edges[-1]``, folded into the last bin as :func:`_fold` does), compressed chunk by
    chunk by ``np.unique``: the work of a chunk is proportional to its rows, whatever
    the number of groups, classes and bins.
    """
    if not (isinstance(out, np.ndarray) and out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous numpy array (n_groups, 4, n_classes, n_bins)")
    P, y, sw = data.proba, data.y, data.sample_weight
    uniform = _is_uniform(edges)
    k = P.shape[1]
    n_bins = edges.shape[0] - 1
    for start, stop in input_ranges(data):
        p = P[start:stop]
        m = p.shape[0]
        cell = np.minimum(bin_index_unclipped(p, edges, uniform=uniform, xp=np), n_bins - 1)
        cell += np.arange(0, k * n_bins, n_bins, dtype=cell.dtype)[None, :]
        if groups is not None:
            cell += np.asarray(groups[start:stop], dtype=cell.dtype)[:, None] * (k * n_bins)
        keys, inv, n = _occupied(cell, out.shape[0] * k * n_bins)
        inv = inv.reshape(m, k)
        true_inv = np.take_along_axis(inv, y[start:stop, None].astype(np.intp), axis=1)[:, 0]
        flat_inv, flat_p = inv.reshape(-1), p.reshape(-1)
        if sw is None:
            count = np.bincount(flat_inv, None, n)
            proba = np.bincount(flat_inv, flat_p, n)
            true = np.bincount(true_inv, None, n)
            square = count
        else:
            w = np.asarray(sw[start:stop], dtype=np.float64)
            flat_w = np.broadcast_to(w[:, None], (m, k)).reshape(-1)
            count = np.bincount(flat_inv, flat_w, n)
            proba = np.bincount(flat_inv, flat_p * flat_w, n)
            true = np.bincount(true_inv, w, n)
            square = np.bincount(flat_inv, flat_w * flat_w, n)
        _add_at(out, keys, (count, proba, true, square))
    return out


def _fold(sums):
    """Fold the extra slot (values above 1 within tolerance) into the last bin: a host
    float64 array of shape (..., n_bins) from the (..., n_bins + 1) slots."""
    sums = np.array(sums, dtype=np.float64)
    sums[..., -2] += sums[..., -1]
    return sums[..., :-1]


def _to_host(sums, xp):
    return np.asarray(to_numpy(sums, xp), dtype=np.float64)


def accumulate_pairs(
    conf,
    outcome,
    sample_weight,
    edges,
    threshold=0.0,
    *,
    bin_index=None,
    groups=None,
    n_groups=1,
    out=None,
):
    """Per-bin sums of validated (probability, 0/1 outcome) pairs.

    Parameters
    ----------
    conf, outcome, sample_weight : arrays of shape (n,) of one namespace
        The probabilities, their 0/1 (or bool) outcomes and weights (or None).
    edges : ndarray of shape (n_bins + 1,)
        Host float64 edges.
    threshold : float, default=0.0
        Only probabilities above it are binned.
    bin_index : callable, default=None
        ``bin_index(x)`` computes the bins of a chunk as :func:`bin_index_unclipped`
        does for ``edges`` (a faster exact rule for a grid of known shape), a fresh
        array; by default :func:`bin_index_unclipped` itself.
    groups : array of int of shape (n,), default=None
        Group code of each pair in ``[0, n_groups)``: the sums of every group in one
        bincount over the combined (group, bin, outcome) index.
    n_groups : int, default=1
    out : ndarray of shape (n_groups, 4, n_bins), default=None
        Host float64 sums (numpy input only) to add the sums into, in place: each
        chunk of pairs is added at the (group, bin) cells it occupies only
        (:func:`_add_occupied`), so that nothing of size ``n_groups * n_bins`` is
        allocated or read per chunk.

    Returns
    -------
    ndarray of shape (4, n_bins), or (4, n_groups, n_bins) with ``groups``
        Host float64 count, sum of probabilities, sum of outcomes and sum of squared
        weights per bin (rows :data:`COUNT`, :data:`SUM_PROBA`, :data:`SUM_TRUE`,
        :data:`SUM_WEIGHT_SQ`).  numpy reads the pairs in long cache-sized chunks,
        whose temporaries stay in the same few work arrays.  With ``out``: ``out``.
    """
    xp, device, _ = _context(conf)
    work = Workspace(xp, device)
    if out is not None:
        if not (isinstance(out, np.ndarray) and out.flags.c_contiguous):
            raise ValueError("out must be a C-contiguous numpy array (n_groups, 4, n_bins)")
        n_bins = edges.shape[0] - 1
        uniform = _is_uniform(edges)
        for start, stop in row_ranges(conf.shape[0], 8, xp):
            c = conf[start:stop]
            _add_occupied(
                out,
                bin_index_unclipped(c, edges, uniform=uniform, xp=xp)
                if bin_index is None
                else bin_index(c),
                c,
                outcome[start:stop],
                None if sample_weight is None else sample_weight[start:stop],
                n_bins,
                threshold,
                None if groups is None else groups[start:stop],
            )
        return out
    if bin_index is None:
        uniform = _is_uniform(edges)

        def bin_index(x):
            return bin_index_unclipped(x, edges, uniform=uniform, xp=xp, work=work)

    size = edges.shape[0]  # n_bins + 1 slots
    cells = None
    for start, stop in row_ranges(conf.shape[0], 8, xp):
        c = conf[start:stop]
        part = _pair_cells(
            bin_index(c),
            c,
            outcome[start:stop],
            None if sample_weight is None else sample_weight[start:stop],
            size,
            threshold,
            xp,
            device,
            None if groups is None else groups[start:stop],
            n_groups,
            work,
        )
        cells = _add_cells(cells, part)
    if cells is None:
        sums = np.zeros((4, n_groups, size))
    else:
        sums = _pair_table(cells, n_groups, size + 1, xp)
    sums = _fold(sums)
    return sums[:, 0, :] if groups is None else sums


def _add_occupied(out, b, conf, outcome, weight, n_bins, threshold, groups):
    """Add the per-(group,) bin sums of one numpy chunk into ``out`` (n_groups, 4,
    n_bins), at the occupied cells only.

    ``b`` holds the ``n_bins + 1`` slots of :func:`bin_index_unclipped`; slot ``n_bins``
    (values above ``edges[-1]``) is the last bin, as :func:`_fold` makes it.  The flat
    (group, bin) index of the kept rows is compressed by ``np.unique`` and the sums
    bincounted over the compressed index, so that the work and memory of a chunk are
    proportional to its rows, whatever the number of groups and bins.
    """
    keep = None if threshold <= 0 else conf > threshold
    cell = np.minimum(b, n_bins - 1)
    if groups is not None:
        cell = cell + np.asarray(groups, dtype=np.intp) * n_bins
    if keep is not None:
        cell, conf, outcome = cell[keep], conf[keep], outcome[keep]
        weight = None if weight is None else weight[keep]
    if cell.size == 0:
        return
    keys, inv, n = _occupied(cell, out.shape[0] * n_bins)
    w = None if weight is None else np.asarray(weight, dtype=np.float64)
    per_pair = np.bincount(2 * inv + outcome, w, 2 * n).reshape(n, 2)
    count = per_pair[:, 0] + per_pair[:, 1]
    proba = np.bincount(inv, conf if w is None else conf * w, n)
    square = count if w is None else np.bincount(inv, w * w, n)
    _add_at(out, keys, (count, proba, per_pair[:, 1], square))


def _occupied(cell, n_cells):
    """``(keys, inv, n)``: the occupied cells of the flat cell indices ``cell`` (sorted),
    the index of each value's key and their number, by ``np.unique``; when the table has
    at most four cells a value (``n_cells <= 4 * cell.size``), every cell is a key
    (``keys`` None, ``inv`` the cells themselves), which is faster up to there (a sort
    of 32,768 values costs about as much as bincounts and strided adds over 4.5 times
    as many cells): the cost is proportional to the chunk's values either way."""
    if n_cells <= 4 * cell.size:
        return None, cell.reshape(-1), n_cells
    keys, inv = np.unique(cell.reshape(-1), return_inverse=True)
    return keys, inv.reshape(-1), keys.shape[0]


def _add_at(out, keys, sums):
    """Add the four sums (rows :data:`COUNT` .. :data:`SUM_WEIGHT_SQ`) of the cells
    ``keys`` (see :func:`_occupied`; None: every cell) into the C-contiguous ``out`` of
    shape (n_groups, 4, ...)."""
    n_groups = out.shape[0]
    cells = out[0, 0].size
    if keys is None:
        view = out.reshape(n_groups, 4, cells)  # a view: out is C-contiguous
        for row, s in enumerate(sums):
            view[:, row, :] += s.reshape(n_groups, cells)
        return
    flat = out.reshape(-1)
    at = keys + (keys // cells) * (3 * cells)  # flat index of (group, COUNT, cell)
    for row, s in enumerate(sums):
        flat[at + row * cells] += s


def _n_columns(data):
    """Number of probability columns of class-wise calibration (2 for a 1-D binary
    ``proba``)."""
    return 2 if data.binary_1d else data.proba.shape[1]


def _as_2col(p, pos_index, xp=None):
    """(n, 2) matrix in class order from a 1-D positive-class vector."""
    xp = namespace_and_device(p)[0] if xp is None else xp
    cols = [1 - p, p] if pos_index == 1 else [p, 1 - p]
    return xp.stack(cols, axis=1)


def probability_outcome(data, multiclass):
    """(probability, outcome) pairs of binary or top-label calibration of validated data.

    ``multiclass`` is "binary" (the positive-class probability against the positive
    class) or "top_label" (the largest probability against whether its class is the
    true one; the first largest column is the prediction, as ``argmax``).  Arrays of
    the namespace of ``data``.
    """
    xp, _ = data.namespace
    return _pairs(data.proba, data.y, data.pos_index, data.binary_1d, multiclass, xp)


def _pairs(P, y, pos, binary_1d, multiclass, xp, y_is_outcome=None):
    """:func:`probability_outcome` of the rows ``P`` and labels ``y``; ``y_is_outcome``
    whether ``y`` already is the binary outcome (integer indices with 1 the positive
    class; found from its dtype when None)."""
    if multiclass == "binary":
        conf = P if binary_1d else P[:, pos]
        if y_is_outcome is None:
            y_is_outcome = pos == 1 and xp.isdtype(y.dtype, "integral")
        if y_is_outcome:
            return conf, y  # indices are 0/1 and 1 is the positive class: no copy
        return conf, y == pos
    if P.ndim == 1:  # binary, positive-class probability; column order = class order
        neg = 1 - P
        pred_pos = P > neg if pos == 1 else P >= neg
        return xp.where(pred_pos, P, neg), (y == pos) == pred_pos
    pred = argmax_rows(P, xp)
    return take_along_rows(P, pred, xp), pred == y


def resolve_multiclass(multiclass, data):
    """Map ``multiclass`` to one of "binary", "top_label", "classwise"."""
    if multiclass == "auto":
        return "binary" if data.is_binary else "top_label"
    if multiclass in ("top_label", "classwise"):
        return multiclass
    if multiclass == "binary" and data.is_binary:  # internal: positive-class binning
        return multiclass
    raise ValueError(
        f"multiclass must be one of {', '.join(map(repr, MULTICLASS_OPTIONS))}, got {multiclass!r}"
    )


def _kept(values, weight, threshold, xp):
    """The values (and weights) kept by the threshold, whose quantiles are the edges
    (compared in the widest float: a float32 value is compared with the threshold
    itself)."""
    if threshold <= 0:
        return values, weight
    top = max_float_dtype(xp, "cpu" if isinstance(values, np.ndarray) else values.device)
    keep = xp.astype(values, top, copy=False) > threshold
    return values[keep], None if weight is None else weight[keep]


def _bin_plan(data, multiclass, n_bins, strategy, bins):
    """``(mode, edges)``: the resolved ``multiclass`` and the fixed edges (None for
    equal-mass edges, which are quantiles of what is binned)."""
    mode = resolve_multiclass(multiclass, data)
    if bins is None and strategy != "uniform":
        return mode, None
    edges = _uniform_edges(n_bins) if bins is None else bins
    return mode, edges


def _by_chunk(mode, edges):
    """Whether the rows are reduced chunk by chunk (:func:`_chunk_kernel`): always for
    top-label calibration (to pairs), with fixed edges for the others (to bin sums)."""
    return mode == "top_label" or edges is not None


class _ChunkPlan:
    """What :func:`_chunk_kernel` needs besides the rows of a chunk, found once per
    call: the mode, the fixed edges, the positive class, the namespace and the
    :class:`~skcalib._core._array_api.Workspace` of the call."""

    __slots__ = (
        "mode",
        "edges",
        "uniform",
        "threshold",
        "pos",
        "binary_1d",
        "y_is_outcome",
        "xp",
        "device",
        "work",
    )

    def __init__(self, data, mode, edges, threshold):
        xp, device = data.namespace
        self.mode, self.edges, self.threshold = mode, edges, threshold
        self.uniform = edges is not None and _is_uniform(edges)
        self.pos, self.binary_1d = data.pos_index, data.binary_1d
        self.y_is_outcome = data.pos_index == 1 and xp.isdtype(data.y.dtype, "integral")
        self.xp, self.device = xp, device
        self.work = Workspace(xp, device)


def _chunk_kernel(P, y, weight, plan):
    """The reduction of one chunk of validated rows (:func:`_by_chunk`; ``P``, ``y``
    and ``weight`` the chunk's rows, ``plan`` a :class:`_ChunkPlan`): the (confidence,
    correctness) pairs of top-label calibration, else the raw cells of binary
    (:func:`_pair_cells`) or class-wise (:func:`_classwise_cells`) calibration with
    fixed edges, arrays of the namespace of the rows."""
    mode, xp, device, work = plan.mode, plan.xp, plan.device, plan.work
    if mode == "top_label":
        return _pairs(P, y, plan.pos, plan.binary_1d, mode, xp)
    edges, threshold = plan.edges, plan.threshold
    if mode == "binary":
        conf, outcome = _pairs(P, y, plan.pos, plan.binary_1d, mode, xp, plan.y_is_outcome)
        b = bin_index_unclipped(conf, edges, uniform=plan.uniform, xp=xp, work=work)
        size = edges.shape[0]
        return _pair_cells(b, conf, outcome, weight, size, threshold, xp, device, work=work)
    if P.ndim == 1:
        P = _as_2col(P, plan.pos, xp)
    return _classwise_cells(P, y, weight, edges, plan.uniform, threshold, xp, device, work)


def _reduce_chunks(data, mode, edges, threshold, check=False):
    """Read the rows of validated labels once, chunk by chunk (:func:`_by_chunk`): with
    ``check``, each chunk's probabilities are checked first
    (:func:`~skcalib._core._validation.check_proba_chunk`), then reduced by
    :func:`_chunk_kernel` while in cache.  Labels taken as outcomes without a check
    (:attr:`~skcalib._core._validation.ClassificationInput.outcome_unchecked`) are
    checked chunk by chunk before their chunk is reduced
    (:func:`~skcalib._core._validation.check_outcome_chunk`).  Returns the list of the chunks' pairs
    (top-label calibration) or the raw cells summed over the chunks."""
    if mode == "top_label" and data.proba.ndim == 2:
        return [_top_label_pairs(data, check)]
    plan = _ChunkPlan(data, mode, edges, threshold)
    xp = plan.xp
    name, tolerance = data.proba_name, data.tolerance
    P, y, sw = data.proba, data.y, data.sample_weight
    unread = data.outcome_unchecked
    pairs, cells = [], None
    for start, stop in input_ranges(data):
        c = P[start:stop, ...]
        if unread:
            check_outcome_chunk(y[start:stop])
        if check:
            check_proba_chunk(c, start, name=name, tolerance=tolerance, xp=xp)
        out = _chunk_kernel(c, y[start:stop], None if sw is None else sw[start:stop], plan)
        if mode == "top_label":
            pairs.append(out)
        else:
            cells = _add_cells(cells, out)
    return pairs if mode == "top_label" else cells


def _top_label_pairs(data, check):
    """(confidence, correctness) pairs of the 2-D probabilities of validated labels
    (:func:`_reduce_chunks`): each chunk's row sums (with ``check``) and predicted
    classes are computed while it is in cache, the values are checked after the loop
    (:func:`~skcalib._core._validation.check_proba_reductions`: nothing read from a
    chunk can fail on an invalid value), then the confidences are gathered.  The row
    sums of wide rows (64 classes or more, at most 1/64 of the input) are kept and
    compared once; those of narrow rows are reduced to their minimum and maximum in
    each chunk (no array of every row).

    The lower bound needs no pass of its own where the arrays have bit views (numpy,
    PyTorch CPU tensors): the predicted class is the argmax of the bit patterns
    (:func:`~skcalib._core._array_api.argmax_rows` with ``bits``), whose gathered
    entries are all ``> 0`` exactly when no entry of any row is negative or NaN (a
    valid row's largest entry is at least ``1 / n_classes``); elsewhere each chunk's
    minimum is kept.  The rare input that fails that test but passes the check of
    every chunk (an entry of -0.0) has its classes predicted again by value."""
    xp, device = data.namespace
    P, y = data.proba, data.y
    n, k = P.shape
    ranges = list(input_ranges(data))
    preds = RowCollector(n, np.int64, xp, device)
    keep = check and k >= 64
    bits = check and has_bit_views(xp, device)
    sums = RowCollector(n, P.dtype, xp, device) if keep else []
    work = Workspace(xp, device)
    mins = []
    for start, stop in ranges:
        c = P[start:stop, ...]
        if keep:
            sums.add(row_sums(c, xp, out=sums.out(start, stop)))
        elif check:
            s = row_sums(c, xp, out=work.get("sums", (stop - start,), P.dtype))
            sums.append(min_max(s, xp))
        if check and not bits:
            mins.append(min_value(c, xp))
        preds.add(argmax_rows(c, xp, out=preds.out(start, stop), bits=bits))
    pred = preds.result()
    conf = take_along_rows(P, pred, xp)
    if check:
        nonnegative = min_value(conf, xp) > 0 if bits else all(lo >= 0 for lo in mins)
        passed = check_proba_reductions(
            P,
            ranges,
            nonnegative,
            sums.result() if keep else sums,
            name=data.proba_name,
            tolerance=data.tolerance,
            xp=xp,
        )
        if not passed:  # only with bits: -0.0 entries
            pred = argmax_rows(P, xp)
            conf = take_along_rows(P, pred, xp)
    return conf, pred == y


def bin_stats(data, *, multiclass="auto", n_bins=15, strategy="uniform", bins=None, threshold=0.0):
    """:class:`BinStats` of validated input (values checked): the kernel behind every
    binned metric.

    Options are validated by the public callers (``bins`` already checked by
    :func:`check_bin_edges`).  The rows are read once, in cache-sized chunks for numpy:
    binary calibration with fixed edges bins each chunk, class-wise calibration with
    shared edges sums each chunk's (class, bin) cells, top-label calibration reduces
    the rows to their (confidence, correctness) pairs first.  Array-API input is
    computed in its namespace, on its device; the small sums travel to the host.
    """
    mode, edges = _bin_plan(data, multiclass, n_bins, strategy, bins)
    parts = None
    if _by_chunk(mode, edges):
        parts = _reduce_chunks(data, mode, edges, threshold)
    return _stats_of_parts(data, mode, edges, n_bins, threshold, parts)


def _stats_of_parts(data, mode, edges, n_bins, threshold, parts):
    """:class:`BinStats` from the result of :func:`_reduce_chunks` (``parts``; None
    when the rows are not read by chunk)."""
    xp, device = data.namespace
    sw = data.sample_weight
    if mode == "top_label":
        conf = xp.concat([c for c, _ in parts]) if len(parts) > 1 else parts[0][0]
        outcome = xp.concat([o for _, o in parts]) if len(parts) > 1 else parts[0][1]
        parts = None
    elif mode == "binary" and parts is None:
        conf, outcome = probability_outcome(data, mode)
    if parts is not None:  # fixed-edge sums of the chunks
        if mode == "binary":
            sums = _pair_table(parts, 1, edges.shape[0] + 1, xp)
        else:
            sums = _classwise_table(parts, _n_columns(data), edges.shape[0], xp)
        sums = _fold(sums)
        all_edges = np.broadcast_to(edges, (sums.shape[1], edges.shape[0]))
    elif mode == "classwise":  # equal-mass edges of each class
        P = data.proba if not data.binary_1d else _as_2col(data.proba, data.pos_index, xp)
        per_class, all_edges = [], []
        for j in range(P.shape[1]):
            col = P[:, j]
            values, weight = _kept(col, sw, threshold, xp)
            all_edges.append(quantile_edges(values, n_bins, weight))
            per_class.append(accumulate_pairs(col, data.y == j, sw, all_edges[-1], threshold))
        sums, all_edges = np.stack(per_class, axis=1), np.stack(all_edges)
    else:  # pairs: top-label, or binary with equal-mass edges
        if edges is None:
            values, weight = _kept(conf, sw, threshold, xp)
            edges = quantile_edges(values, n_bins, weight)
        sums = accumulate_pairs(conf, outcome, sw, edges, threshold)[:, None, :]
        all_edges = edges[None, :]
    return BinStats(
        count=sums[COUNT],
        sum_proba=sums[SUM_PROBA],
        sum_true=sums[SUM_TRUE],
        bin_edges=np.array(all_edges, dtype=np.float64),
        total_weight=float(
            data.n_samples if sw is None else xp.sum(xp.astype(sw, max_float_dtype(xp, device)))
        ),
        sum_weight_sq=None if sw is None else sums[SUM_WEIGHT_SQ],
    )


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "strategy": [StrOptions(set(STRATEGIES))],
        "multiclass": [StrOptions(set(MULTICLASS_OPTIONS))],
        "threshold": [Interval(numbers.Real, 0, 1, closed="left")],
        "bins": ["array-like", None],
        "sample_weight": ["array-like", None],
        "labels": ["array-like", None],
        "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
    },
    prefer_skip_nested_validation=True,
)
def compute_bin_stats(
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
    """The per-bin sufficient statistics behind every binned metric of skcalib.

    The calibration errors, :func:`reliability_curve` and the reliability diagrams are
    all computed from these sums; the result can be merged with the statistics of more
    data computed with the same edges (``stats + other``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the positive class (1-D, binary), or one column per
        class in ``labels`` order, as returned by ``predict_proba``.
    n_bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins (edges ``np.linspace(0, 1, n_bins + 1)``) or equal-mass bins
        (weighted inverted-CDF quantiles of the binned probabilities).
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is binned; see :func:`general_calibration_error`.
    threshold : float in [0, 1), default=0.0
        Only probabilities strictly greater than ``threshold`` are binned (they still
        count in ``total_weight``); equal-mass edges are the quantiles of the kept ones.
    bins : array-like of shape (n_bins + 1,), default=None
        Explicit increasing bin edges covering [0, 1]; overrides ``n_bins`` and
        ``strategy``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    BinStats
        ``count``, ``sum_proba``, ``sum_true`` and ``sum_weight_sq`` (with weights) of
        shape (n_groups, n_bins), and the ``bin_edges`` of each group.

    Examples
    --------
    >>> from skcalib.metrics import compute_bin_stats
    >>> stats = compute_bin_stats([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4], n_bins=2)
    >>> stats.sum_true, stats.sum_proba
    (array([[0., 2.]]), array([[0.5, 1.4]]))
    >>> stats.prob_true
    array([[0., 1.]])
    """
    return stats_of_input(
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


def stats_of_input(
    y_true,
    y_proba,
    *,
    n_bins,
    strategy,
    multiclass,
    threshold=0.0,
    bins=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    """Validate raw data and bin it: the one entry point of the public binned functions
    (whose options are already validated by their ``validate_params``).

    The labels, shapes and weights are checked first.  Where the rows are reduced chunk
    by chunk (:func:`_by_chunk`) the probability values are checked chunk by chunk,
    each chunk just before its reduction, so that the data is read from memory once;
    otherwise the whole array is checked first.  Integer labels of a 1-D
    ``y_proba`` are then checked in the same pass, chunk by chunk, as the 0/1 outcome
    (``outcome_labels`` of
    :func:`~skcalib._core._validation.check_classification_labels`); where they are
    not, they are validated again on their own and the pass is made again.
    """
    edges = None if bins is None else check_bin_edges(bins)
    n_bins = check_n_bins(n_bins)
    fixed = edges is not None or strategy == "uniform"  # rows reduced by chunk
    inputs = dict(sample_weight=sample_weight, labels=labels, pos_label=pos_label, array_api=True)
    data = check_classification_labels(y_true, y_proba, outcome_labels=fixed, **inputs)
    mode, edges = _bin_plan(data, multiclass, n_bins, strategy, edges)
    parts = None
    if _by_chunk(mode, edges):
        try:
            parts = _reduce_chunks(data, mode, edges, threshold, check=True)
        except ValueError:
            if not data.outcome_unchecked:
                raise
            # labels other than 0/1 (or an invalid chunk): the labels' own checks
            # first, as without the shortcut, then the pass again
            data = check_classification_labels(y_true, y_proba, **inputs)
            parts = _reduce_chunks(data, mode, edges, threshold, check=True)
    else:
        check_proba_values(data.proba, name=data.proba_name, tolerance=data.tolerance)
    return _stats_of_parts(data, mode, edges, n_bins, threshold, parts)
