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
Everything is numpy: an exact right-closed bin index by arithmetic on the edges and
weighted ``np.bincount`` over a combined (bin, outcome) or (class, bin) index, in
cache-sized chunks of rows (:func:`_pair_sums`, :func:`_classwise_sums`).  With fixed
edges the data is read once: each chunk is checked (when the caller passes
:func:`~skcalib._core._validation.checked_rows`), reduced to its (probability,
outcome) pairs or class-wise sums, and binned while it is in cache.

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
from ._array_api import max_float_dtype, to_numpy, weighted_bincount
from ._validation import (
    ClassificationInput,
    _as_float,
    _to_numpy,
    check_classification_labels,
    check_sample_weight,
    checked_rows,
    iter_row_chunks,
    row_chunks,
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

    With no value of positive weight the equal-width edges are returned.
    """
    x = np.asarray(x)
    if sample_weight is not None:
        keep = sample_weight > 0
        if not keep.all():
            x, sample_weight = x[keep], sample_weight[keep]
    n = x.shape[0]
    if n == 0:
        return _uniform_edges(n_bins)
    inner = np.empty(n_bins - 1, dtype=np.float64)
    if n_bins > 1:
        k = np.arange(1, n_bins)
        if sample_weight is None:
            # smallest order statistic with rank >= k n / n_bins (exact integer arithmetic)
            kth = -((-k * n) // n_bins) - 1
            part = np.partition(x, np.unique(kth))
            inner[:] = part[kth]
        else:
            w = sample_weight / sample_weight.max()  # scale-free; no overflow of cum * n_bins
            order = np.argsort(x, kind="stable")
            xs = x[order]
            cum = np.cumsum(w[order])
            total = cum[-1]
            # first index with cum >= k * total / n_bins.  Compared without division and
            # with a relative slack of the order of the cumsum's rounding error, so that
            # exact ties (integer weights, or integer weights times any scale) resolve as
            # in exact arithmetic: weights w give the edges of the sample repeated w times.
            rtol = max(64, xs.shape[0]) * np.finfo(np.float64).eps
            idx = np.searchsorted(cum * n_bins, k * total * (1 - rtol), side="left")
            inner[:] = xs[np.minimum(idx, xs.shape[0] - 1)]
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
    return np.array_equal(edges, _uniform_edges(edges.shape[0] - 1))


# --------------------------------------------------------------------------------------
# bin assignment
# --------------------------------------------------------------------------------------


def bin_index_unclipped(x, edges, *, uniform):
    """Bin index under the right-closed rule, in ``[0, n_bins]``, C-ordered.

    Index ``n_bins`` is returned only for values above ``edges[-1]`` (a 2-D probability
    within the rounding tolerance above 1): the accumulating kernels give those an extra
    slot and fold it into the last bin, which costs nothing, instead of clipping every
    index.  ``x`` may have any memory layout; the result is a fresh C-contiguous array.
    """
    n_bins = edges.shape[0] - 1
    if n_bins == 1:
        b = np.zeros(x.shape, dtype=np.intp)
        if x.size and x.max() > edges[-1]:
            b[x > edges[-1]] = 1
        return b
    if not uniform:
        return np.searchsorted(edges[1:], x, side="left").astype(np.intp, copy=False)
    # t = x * n_bins; away from integers, floor(t) is the exact bin.  Within a few ulps
    # of an integer (x on or next to an edge, including 0 and 1) the rounding of the
    # product (and of the linspace edges) can move a value across an edge, so those few
    # values are placed by an exact binary search against the float64 edges.
    t = np.multiply(x, n_bins, dtype=np.float64, order="C")
    b = t.astype(np.intp)
    r = np.rint(t)
    np.subtract(t, r, out=r)
    np.abs(r, out=r)
    near = r < 4 * n_bins * np.finfo(np.float64).eps
    if near.any():
        idx = np.flatnonzero(near)  # C-order flat indices, as b's
        xv = np.ravel(x, order="C")[idx]
        bv = np.searchsorted(edges[1:], xv, side="left")
        np.put(b, idx, bv)
    return b


def assign_bins(x, edges):
    """Bin index of each value of ``x`` under the right-closed rule.

    Bin ``m`` holds ``edges[m] < x <= edges[m + 1]``; values ``<= edges[1]`` go to bin 0
    and values above ``edges[-2]`` to the last bin.

    Parameters
    ----------
    x : ndarray (any shape and memory layout), float32 or float64
        Validated probabilities.
    edges : ndarray of shape (n_bins + 1,)
        Non-decreasing edges from 0 to 1.

    Returns
    -------
    ndarray of intp
        Same shape as ``x``, values in ``[0, n_bins - 1]``.
    """
    b = bin_index_unclipped(x, edges, uniform=_is_uniform(edges))
    return np.minimum(b, edges.shape[0] - 2, out=b)


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
# accumulation: pure kernels on chunks of validated values
# --------------------------------------------------------------------------------------

#: rows of the sums returned by the chunk kernels
COUNT, SUM_PROBA, SUM_TRUE, SUM_WEIGHT_SQ = range(4)


def _pair_sums(b, conf, outcome, weight, size, threshold):
    """Per-bin sums of one chunk of (probability, 0/1 outcome, weight) triples.

    ``b`` is the bin index of each probability in ``[0, size - 1]`` (a fresh array, which
    is modified).  Returns an array of shape (4, size): per bin the weight (count), the
    weighted sums of the probabilities and of the outcomes, and the sum of the squared
    weights (the count without weights).  With the ``n_bins + 1`` slots of
    :func:`bin_index_unclipped`, the extra last slot holds the values above ``edges[-1]``
    and :func:`_fold` moves it into the last bin.  Probabilities ``<= threshold`` are
    left out.
    """
    if threshold > 0:
        b[~(conf > threshold)] = size  # a slot past the end, dropped below
    cell = b << 1  # (bin, outcome) cell: one bincount gives counts and outcome sums
    np.add(cell, outcome, out=cell, casting="unsafe")  # outcome of any integer dtype
    per_cell = np.bincount(cell, weights=weight, minlength=2 * size + 2)
    out = np.empty((4, size))
    out[SUM_TRUE] = per_cell[1 : 2 * size : 2]
    np.add(per_cell[0 : 2 * size : 2], out[SUM_TRUE], out=out[COUNT])
    weighted_conf = conf if weight is None else conf * weight
    out[SUM_PROBA] = np.bincount(b, weights=weighted_conf, minlength=size + 1)[:size]
    if weight is None:
        out[SUM_WEIGHT_SQ] = out[COUNT]
    else:
        out[SUM_WEIGHT_SQ] = np.bincount(b, weights=weight * weight, minlength=size + 1)[:size]
    return out


def _classwise_sums(P, y, weight, edges, uniform, threshold):
    """Per-class, per-bin sums of one chunk of rows, all classes sharing ``edges``.

    One bincount over the combined (class, bin) index of the chunk gives the counts and
    the probability sums of every class; the outcome sums need only the cell of each
    row's true class.  Returns an array of shape (4, n_classes, n_bins + 1), laid out as
    :func:`_pair_sums` for each class.
    """
    m, k = P.shape
    stride = edges.shape[0]  # n_bins + 1 slots per class
    size = k * stride
    cell = bin_index_unclipped(P, edges, uniform=uniform)
    cell += np.arange(0, size, stride, dtype=np.intp)
    if threshold > 0:
        cell[~(P > threshold)] = size  # a slot past the end, dropped below
    true_cell = cell[np.arange(m), y]
    flat_cell = cell.ravel()
    flat_P = np.ravel(P, order="C")  # the order of flat_cell: a copy only if P is not C
    out = np.empty((4, size))
    if weight is None:
        out[COUNT] = np.bincount(flat_cell, minlength=size + 1)[:size]
        out[SUM_PROBA] = np.bincount(flat_cell, weights=flat_P, minlength=size + 1)[:size]
        out[SUM_TRUE] = np.bincount(true_cell, minlength=size + 1)[:size]
        out[SUM_WEIGHT_SQ] = out[COUNT]
    else:
        flat_w = np.broadcast_to(weight[:, None], P.shape).ravel()
        out[COUNT] = np.bincount(flat_cell, weights=flat_w, minlength=size + 1)[:size]
        weighted_P = (P * weight[:, None]).ravel()
        out[SUM_PROBA] = np.bincount(flat_cell, weights=weighted_P, minlength=size + 1)[:size]
        out[SUM_TRUE] = np.bincount(true_cell, weights=weight, minlength=size + 1)[:size]
        out[SUM_WEIGHT_SQ] = np.bincount(flat_cell, weights=flat_w * flat_w, minlength=size + 1)[
            :size
        ]
    return out.reshape(4, k, stride)


def _fold(sums):
    """Fold the extra slot (values above 1 within tolerance) into the last bin."""
    sums[..., -2] += sums[..., -1]
    return sums[..., :-1]


def accumulate_pairs(conf, outcome, sample_weight, edges, threshold=0.0, *, bin_index=None):
    """Per-bin sums of validated (probability, 0/1 outcome) pairs, chunk by chunk.

    Returns an array of shape (4, n_bins): count, sum of probabilities, sum of outcomes
    and sum of squared weights per bin (rows :data:`COUNT`, :data:`SUM_PROBA`,
    :data:`SUM_TRUE`, :data:`SUM_WEIGHT_SQ`).  ``bin_index(x)`` computes the bins of a
    chunk as :func:`bin_index_unclipped` does for ``edges`` (a faster exact rule for a
    grid of known shape); by default :func:`bin_index_unclipped` itself.
    """
    if bin_index is None:
        uniform = _is_uniform(edges)

        def bin_index(x):
            return bin_index_unclipped(x, edges, uniform=uniform)

    size = edges.shape[0]  # n_bins + 1 slots
    sums = np.zeros((4, size))
    for start, stop in iter_row_chunks(conf.shape[0], 8):
        c = conf[start:stop]
        weight = None if sample_weight is None else sample_weight[start:stop]
        sums += _pair_sums(bin_index(c), c, outcome[start:stop], weight, size, threshold)
    return _fold(sums)


def _as_2col(p, pos_index):
    """(n, 2) matrix in class order from a 1-D positive-class vector."""
    out = np.empty((p.shape[0], 2), dtype=p.dtype)
    out[:, pos_index] = p
    out[:, 1 - pos_index] = 1 - p
    return out


def _top_label_chunk(P, y, pos_index, conf, outcome):
    """Confidence (largest probability) and correctness of the predicted class of a
    chunk of rows, written to ``conf`` and ``outcome``; the first largest column is the
    prediction, as ``argmax``."""
    if P.ndim == 1:  # binary, positive-class probability; column order = class order
        neg = 1 - P
        pred_pos = P > neg if pos_index == 1 else P >= neg
        np.copyto(conf, np.where(pred_pos, P, neg))
        np.equal(y == pos_index, pred_pos, out=outcome)
        return
    pred = P.argmax(axis=1)
    conf[:] = P[_row_index(P.shape[0]), pred]
    np.equal(pred, y, out=outcome)


def _row_index(m):
    """``np.arange(m)`` (read-only, cached: one per chunk size)."""
    rows = _ROWS.get(m)
    if rows is None:
        if len(_ROWS) > 16:
            _ROWS.clear()
        rows = _ROWS[m] = np.arange(m)
        rows.flags.writeable = False
    return rows


_ROWS: dict = {}


def probability_outcome(data, multiclass, rows=None):
    """(probability, outcome) pairs of binary or top-label calibration.

    ``multiclass`` is "binary" (the positive-class probability against the positive
    class) or "top_label" (the largest probability against whether its class is the
    true one).  ``rows`` are the chunks of ``data.proba`` to read
    (:func:`~skcalib._core._validation.checked_rows` when the values are not checked
    yet); by default the plain chunks of validated data.
    """
    P = data.proba
    if rows is None:
        rows = row_chunks(P)
    if multiclass == "binary":
        for _ in rows:  # reads (and so checks) every chunk
            pass
        conf = P if data.binary_1d else P[:, data.pos_index]
        if data.pos_index == 1 and data.y.dtype.kind in "biu":
            return conf, data.y  # indices are 0/1 and 1 is the positive class: no copy
        return conf, data.y == data.pos_index
    conf = np.empty(data.n_samples, dtype=P.dtype)
    outcome = np.empty(data.n_samples, dtype=bool)
    for start, stop, chunk in rows:
        _top_label_chunk(
            chunk, data.y[start:stop], data.pos_index, conf[start:stop], outcome[start:stop]
        )
    return conf, outcome


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


def _kept(values, weight, threshold):
    """The values (and weights) kept by the threshold, whose quantiles are the edges."""
    if threshold <= 0:
        return values, weight
    keep = values > threshold
    return values[keep], None if weight is None else weight[keep]


def bin_stats(
    data: ClassificationInput,
    rows=None,
    *,
    multiclass="auto",
    n_bins=15,
    strategy="uniform",
    bins=None,
    threshold=0.0,
):
    """:class:`BinStats` of validated input: the kernel behind every binned metric.

    ``rows`` are the chunks of ``data.proba`` to read: by default the plain chunks of
    data whose values are checked; :func:`stats_of_input` passes
    :func:`~skcalib._core._validation.checked_rows`, which checks each chunk as it is
    read.  Options are validated by the public callers (``bins`` already checked by
    :func:`check_bin_edges`).  The rows are read once: binary calibration with fixed
    edges bins each chunk as it is read; top-label calibration first reduces the rows to
    their (confidence, correctness) pairs, class-wise calibration with shared edges sums
    each chunk's (class, bin) cells.
    """
    mode = resolve_multiclass(multiclass, data)
    if rows is None:
        rows = row_chunks(data.proba)
    if data.xp is not None:
        return _bin_stats_xp(data, rows, mode, n_bins, strategy, bins, threshold)
    sw = data.sample_weight
    # a float64 scalar, so that float32 probabilities are compared with the threshold
    # itself (a Python float would be rounded to float32 first: NEP 50)
    threshold = np.float64(threshold)
    total_weight = float(data.n_samples if sw is None else sw.sum())
    if bins is not None:
        edges = bins
    elif strategy == "uniform":
        edges = _uniform_edges(n_bins)
    else:
        edges = None  # equal-mass: the quantiles of what is binned
    if mode == "classwise":
        sums, all_edges = _classwise_stats(data, rows, edges, n_bins, threshold)
    elif mode == "binary" and edges is not None:
        # one pass: each chunk of the positive-class probability is binned in cache
        uniform = _is_uniform(edges)
        sums = np.zeros((4, edges.shape[0]))
        for start, stop, chunk in rows:
            conf, outcome = _binary_chunk(data, chunk, start, stop)
            weight = None if sw is None else sw[start:stop]
            b = bin_index_unclipped(conf, edges, uniform=uniform)
            sums += _pair_sums(b, conf, outcome, weight, edges.shape[0], threshold)
        sums = _fold(sums)[:, None, :]
        all_edges = edges[None, :]
    else:
        # top-label: the (confidence, correctness) pairs first (one pass over the
        # rows), then the bins of those n values, in long chunks
        conf, outcome = probability_outcome(data, mode, rows)
        if edges is None:
            values, weight = _kept(conf, sw, threshold)
            edges = quantile_edges(values, n_bins, weight)
        sums = accumulate_pairs(conf, outcome, sw, edges, threshold)[:, None, :]
        all_edges = edges[None, :]
    return BinStats(
        count=sums[COUNT],
        sum_proba=sums[SUM_PROBA],
        sum_true=sums[SUM_TRUE],
        bin_edges=np.array(all_edges, dtype=np.float64),
        total_weight=total_weight,
        sum_weight_sq=None if sw is None else sums[SUM_WEIGHT_SQ],
    )


def _binary_chunk(data, chunk, start, stop):
    """Positive-class probabilities and outcomes of one chunk of rows."""
    y = data.y[start:stop]
    conf = chunk if data.binary_1d else chunk[:, data.pos_index]
    if data.pos_index == 1 and y.dtype.kind in "biu":
        return conf, y  # indices are 0/1 and 1 is the positive class: no copy
    return conf, y == data.pos_index


def _classwise_stats(data, rows, edges, n_bins, threshold):
    """Sums (4, n_classes, n_bins) and edges (n_classes, n_bins + 1) of every class."""
    sw = data.sample_weight
    y = data.y.astype(np.intp, copy=False)
    if edges is not None:  # shared edges: one pass over the rows
        uniform = _is_uniform(edges)
        k = data.n_classes
        sums = np.zeros((4, k, edges.shape[0]))
        for start, stop, chunk in rows:
            if chunk.ndim == 1:
                chunk = _as_2col(chunk, data.pos_index)
            weight = None if sw is None else sw[start:stop]
            sums += _classwise_sums(chunk, y[start:stop], weight, edges, uniform, threshold)
        return _fold(sums), np.broadcast_to(edges, (k, edges.shape[0]))
    for _ in rows:  # equal-mass edges per class: check every chunk first
        pass
    P = data.proba if not data.binary_1d else _as_2col(data.proba, data.pos_index)
    parts, all_edges = [], []
    for j in range(P.shape[1]):
        col = np.ascontiguousarray(P[:, j])
        values, weight = _kept(col, sw, threshold)
        all_edges.append(quantile_edges(values, n_bins, weight))
        parts.append(accumulate_pairs(col, y == j, sw, all_edges[-1], threshold))
    return np.stack(parts, axis=1), np.stack(all_edges)


# --------------------------------------------------------------------------------------
# array API input: the same sums, computed in the input's namespace and on its device
# --------------------------------------------------------------------------------------


def _bin_stats_xp(data, rows, mode, n_bins, strategy, bins, threshold):
    """:func:`bin_stats` of array-API input (``data.xp`` not None).

    The O(n) work runs in the namespace, on the device: the bin index by
    ``searchsorted`` against the edges (the right-closed rule, exact: the probabilities
    and the edges are compared in the widest float of the device), the per-bin sums by
    :func:`~skcalib._core._array_api.weighted_bincount` over the same combined (bin,
    outcome) and (class, bin) cells as the numpy kernels.  Equal-mass edges are order
    statistics taken on the device (only the ``n_bins + 1`` edges travel).  The
    resulting ``(4, n_groups, n_bins)`` sums are moved to the host: a :class:`BinStats`
    is a small numpy object, mergeable with the statistics of any other source.
    """
    xp, device, sw = data.xp, data.device, data.sample_weight
    for _ in rows:  # reads (and so checks) the array
        pass
    P = data.proba
    dtype = max_float_dtype(xp, device)
    if mode == "binary":
        conf = P if data.binary_1d else P[:, data.pos_index]
        groups = [(conf, data.y == data.pos_index)]
    elif mode == "top_label":
        P2 = _as_2col_xp(P, data.pos_index, xp) if P.ndim == 1 else P
        pred = xp.argmax(P2, axis=1)
        conf = xp.max(P2, axis=1)
        groups = [(conf, xp.astype(pred, data.y.dtype) == data.y)]
    else:
        P2 = _as_2col_xp(P, data.pos_index, xp) if P.ndim == 1 else P
        groups = [(P2[:, j], data.y == j) for j in range(P2.shape[1])]
    sums, all_edges = [], []
    for conf, outcome in groups:
        if bins is not None:
            edges = bins
        elif strategy == "uniform":
            edges = _uniform_edges(n_bins)
        else:
            edges = _quantile_edges_xp(conf, n_bins, sw, threshold, xp)
        all_edges.append(edges)
        sums.append(_pair_sums_xp(conf, outcome, sw, edges, threshold, xp, device, dtype))
    sums = np.stack(sums, axis=1)
    return BinStats(
        count=sums[COUNT],
        sum_proba=sums[SUM_PROBA],
        sum_true=sums[SUM_TRUE],
        bin_edges=np.array(np.stack(all_edges), dtype=np.float64),
        total_weight=float(data.n_samples if sw is None else xp.sum(sw)),
        sum_weight_sq=None if sw is None else sums[SUM_WEIGHT_SQ],
    )


def _as_2col_xp(p, pos_index, xp):
    """:func:`_as_2col` in the namespace ``xp``."""
    cols = [1 - p, p] if pos_index == 1 else [p, 1 - p]
    return xp.stack(cols, axis=1)


def _pair_sums_xp(conf, outcome, weight, edges, threshold, xp, device, dtype):
    """Per-bin sums (4, n_bins) of (probability, outcome, weight) triples of ``xp``, as a
    host float64 array: :func:`_pair_sums` and :func:`_fold` in the namespace."""
    n_bins = edges.shape[0] - 1
    x = xp.astype(conf, dtype)
    inner = xp.asarray(edges[1:-1], dtype=dtype, device=device)
    b = xp.searchsorted(inner, x, side="left")  # right-closed: e_m < p <= e_m+1
    if threshold > 0:
        b = xp.where(x > threshold, b, xp.full_like(b, n_bins))  # a dropped slot
    cell = b * 2 + xp.astype(outcome, b.dtype)
    w = None if weight is None else xp.astype(weight, dtype)
    per_cell = weighted_bincount(cell, w, 2 * n_bins + 2, xp, device)
    wp = x if w is None else x * w
    sum_proba = weighted_bincount(b, wp, n_bins + 1, xp, device)
    out = np.empty((4, n_bins))
    cells = to_numpy(per_cell, xp).astype(np.float64)
    out[SUM_TRUE] = cells[1 : 2 * n_bins : 2]
    out[COUNT] = cells[0 : 2 * n_bins : 2] + out[SUM_TRUE]
    out[SUM_PROBA] = to_numpy(sum_proba, xp)[:n_bins]
    if w is None:
        out[SUM_WEIGHT_SQ] = out[COUNT]
    else:
        out[SUM_WEIGHT_SQ] = to_numpy(weighted_bincount(b, w * w, n_bins + 1, xp, device), xp)[
            :n_bins
        ]
    return out


def _quantile_edges_xp(values, n_bins, weight, threshold, xp):
    """:func:`quantile_edges` of the values of ``xp`` kept by ``threshold``: the same
    inverted-CDF order statistics, selected on the device (``sort``, and for weights
    ``cumulative_sum`` and ``searchsorted``); only the edges travel to the host."""
    keep = values > threshold if threshold > 0 else None
    if weight is not None:
        positive = weight > 0
        keep = positive if keep is None else keep & positive
    if keep is not None:
        values = values[keep]
        weight = None if weight is None else weight[keep]
    n = values.shape[0]
    if n == 0:
        return _uniform_edges(n_bins)
    if n_bins == 1:
        return _uniform_edges(1)
    k = np.arange(1, n_bins)
    order = xp.argsort(values, stable=True)
    xs = xp.take(values, order)
    if weight is None:
        kth = -((-k * n) // n_bins) - 1
    else:
        w = xp.take(weight, order)
        w = w / xp.max(w)
        cum = xp.cumulative_sum(w)
        total = float(cum[-1])
        rtol = max(64, n) * float(xp.finfo(cum.dtype).eps)
        targets = xp.asarray(k * total * (1 - rtol), dtype=cum.dtype, device=cum.device)
        kth = to_numpy(xp.searchsorted(cum * n_bins, targets, side="left"), xp)
        kth = np.minimum(kth, n - 1)
    idx = xp.asarray(kth.astype(np.int64), device=xs.device)
    inner = to_numpy(xp.take(xs, idx), xp).astype(np.float64)
    edges = np.concatenate(([0.0], inner, [1.0]))
    return np.clip(edges, 0.0, 1.0)


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

    The labels, shapes and weights are checked first; the probability values are checked
    chunk by chunk as the binning pass reads them (:func:`checked_rows`), so that the
    data is read from memory once.
    """
    edges = None if bins is None else check_bin_edges(bins)
    n_bins = check_n_bins(n_bins)
    data = check_classification_labels(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        array_api=True,
    )
    rows = checked_rows(data.proba, name=data.proba_name, tolerance=data.tolerance)
    return bin_stats(
        data,
        rows,
        multiclass=multiclass,
        n_bins=n_bins,
        strategy=strategy,
        bins=edges,
        threshold=threshold,
    )
