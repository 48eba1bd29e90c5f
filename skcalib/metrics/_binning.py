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

Kernels
-------
The accumulating kernels (one group of (probability, outcome) pairs, class-wise sums,
the top-label pass, the bin index) have two implementations that give the same
numbers: compiled C (``_ckernels.c``: one pass that checks, bins and sums each value)
and numpy (chunked vectorised passes, each chunk read from memory once).  The compiled
one is used when it was built (it needs a C compiler at install time);
``SKCALIB_DISABLE_COMPILED=1`` in the environment selects the numpy one.

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
import os
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._validation import (
    PROBA_TOLERANCE,
    ClassificationInput,
    RowCheck,
    _as_float,
    _to_numpy,
    check_classification_input,
    check_proba_chunk,
    check_proba_values,
    check_sample_weight,
    iter_row_chunks,
    raise_first_bad,
    rows_per_chunk,
)

try:
    from . import _ckernels
except ImportError:  # built without a C compiler: the numpy implementation below
    _ckernels = None

#: The compiled kernels of the binning core (``_ckernels.c``), or None when skcalib was
#: built without them or ``SKCALIB_DISABLE_COMPILED=1`` is set; every kernel below then
#: runs its numpy implementation, which gives the same numbers.
KERNELS = None if os.environ.get("SKCALIB_DISABLE_COMPILED", "0") not in ("", "0") else _ckernels

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


def bin_index_unclipped(x, edges, uniform):
    """Bin index under the right-closed rule, in ``[0, n_bins]``, C-ordered.

    Index ``n_bins`` is returned only for values above ``edges[-1]`` (a 2-D probability
    within the rounding tolerance above 1): the accumulating kernels give those an extra
    slot and fold it into the last bin, which costs nothing, instead of clipping every
    index.  ``x`` may have any memory layout; the result is a fresh C-contiguous array.
    """
    n_bins = edges.shape[0] - 1
    if KERNELS is not None and x.ndim == 1 and _kernel_float(x):
        b = np.empty(x.shape[0], dtype=np.intp)
        KERNELS.bin_index(x, _kernel_edges(edges), uniform, b)
        return b
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


def _kernel_float(a):
    """Whether the compiled kernels read this probability array as it is."""
    return a.dtype == np.float64 or a.dtype == np.float32


def _kernel_int(a):
    """Whether the compiled kernels read this label / outcome array as it is."""
    return a.dtype.kind in "biu" and a.dtype.isnative


def _kernel_edges(edges):
    return np.ascontiguousarray(edges, dtype=np.float64)


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
    b = bin_index_unclipped(x, edges, _is_uniform(edges))
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


@dataclass
class GapSums:
    """Per-bin weighted sums of ``outcome - probability`` only: all that the l1
    calibration error needs (one accumulation instead of three).  Internal."""

    sum_gap: np.ndarray
    bin_edges: np.ndarray
    total_weight: float


# --------------------------------------------------------------------------------------
# accumulation
# --------------------------------------------------------------------------------------


def _as_2col(p, pos_index):
    """(n, 2) matrix in class order from a 1-D positive-class vector."""
    out = np.empty((p.shape[0], 2), dtype=p.dtype)
    out[:, pos_index] = p
    out[:, 1 - pos_index] = 1 - p
    return out


def _binary_conf_outcome(data):
    """Positive-class probability and outcome of a binary problem."""
    conf = data.proba if data.binary_1d else data.proba[:, data.pos_index]
    if data.pos_index == 1 and data.y.dtype.kind in "biu":
        outcome = data.y  # indices are 0/1 and 1 is the positive class: no copy
    else:
        outcome = data.y == data.pos_index
    return conf, outcome


def _top_label_conf_outcome(data, check):
    """Confidence (max probability) and correctness, in one chunked pass."""
    P = data.proba
    n = data.n_samples
    if P.ndim == 1:
        if check:
            check_proba_values(P)
        # column order is the class order; the first maximal column wins ties
        pos = data.pos_index
        neg_p = 1 - P
        pred_pos = P > neg_p if pos == 1 else P >= neg_p
        conf = np.where(pred_pos, P, neg_p)
        outcome = (data.y == pos) == pred_pos
        return conf, outcome
    k = P.shape[1]
    conf = np.empty(n, dtype=P.dtype)
    outcome = np.empty(n, dtype=bool)
    if KERNELS is not None and _kernel_float(P) and _kernel_int(data.y):
        # one pass per row: maximum, first column of the maximum, row sum and sign
        bad = KERNELS.top_label(P, data.y, check, PROBA_TOLERANCE, conf, outcome)
        if bad >= 0:
            raise_first_bad(P, bad)
        return conf, outcome
    rows = np.arange(min(n, rows_per_chunk(k * P.itemsize)))
    pred = np.empty(rows.shape[0], dtype=np.intp)
    # argmax and maximum cannot fail on invalid values, so the value check is fused into
    # this pass (RowCheck): each chunk is read from memory once, by the argmax, and the
    # check's row sums and minimum read it again from cache
    with RowCheck(P) if check else nullcontext() as checker:
        for start, stop in iter_row_chunks(n, k * P.itemsize):
            c = P[start:stop]
            m = stop - start
            am = c.argmax(axis=1, out=pred[:m])  # reads the chunk from memory
            conf[start:stop] = c[rows[:m], am]
            np.equal(am, data.y[start:stop], out=outcome[start:stop])
            if check:
                checker.update(c)  # reads it from cache
    return conf, outcome


def _fold(a, n_bins):
    """Fold the extra slot ``n_bins`` (values above 1 within tolerance) into the last bin."""
    a[..., n_bins - 1] += a[..., n_bins]
    return a[..., :n_bins]


def _new_sums(size, sw, *, count, weight_sq):
    """Zeroed (count, sum_proba, sum_true, sum_weight_sq) outputs of a compiled kernel;
    None for a sum that is not accumulated."""
    sq = np.zeros(size) if (count and weight_sq and sw is not None) else None
    return np.zeros(size) if count else None, np.zeros(size), np.zeros(size), sq


def _folded(a, n_bins, k=None):
    """An output of a compiled kernel, folded and shaped as the numpy path returns it."""
    if a is None:
        return None
    return _fold(a if k is None else a.reshape(k, n_bins + 1), n_bins)


def _accumulate_1d(conf, outcome, sw, edges, threshold, *, check, gap_only, weight_sq):
    """Per-bin sums of one group's (conf, outcome) pairs, chunked.

    ``outcome`` holds 0/1 values (bool or any integer dtype).  With ``check`` the values
    of ``conf`` are validated chunk by chunk as they are read.  Returns
    ``(count, sum_proba, sum_true, sum_weight_sq)`` or, with ``gap_only``, the per-bin
    sums of ``outcome - conf``.
    """
    n_bins = edges.shape[0] - 1
    uniform = _is_uniform(edges)
    size = n_bins + 1  # one extra slot for values above 1 (folded at the end)
    if KERNELS is not None and _kernel_float(conf) and _kernel_int(outcome):
        if gap_only:  # the sums of w * (outcome - p) land in sum_true
            sums = (None, None, np.zeros(size), None)
        else:
            sums = _new_sums(size, sw, count=True, weight_sq=weight_sq)
        bad = KERNELS.accumulate_1d(
            conf, outcome, sw, _kernel_edges(edges), uniform, threshold, check, gap_only, *sums
        )
        if bad >= 0:
            raise_first_bad(conf, bad, row_bytes=8)  # the chunks of the loop below
        if gap_only:
            return _folded(sums[2], n_bins)
        return tuple(_folded(a, n_bins) for a in sums)
    if gap_only:
        sum_gap = np.zeros(size)
    else:
        count, sum_proba, sum_true = np.zeros(size), np.zeros(size), np.zeros(size)
        sq = np.zeros(size) if (weight_sq and sw is not None) else None
    trash = 2 * size  # index of values removed by the threshold
    for start, stop in iter_row_chunks(conf.shape[0], 8):
        c = conf[start:stop]
        if check:
            check_proba_chunk(c, start)
        b = bin_index_unclipped(c, edges, uniform)
        o = outcome[start:stop]
        w = None if sw is None else sw[start:stop]
        if threshold > 0:
            b[~(c > threshold)] = size
        if gap_only:
            g = np.subtract(o, c, dtype=np.float64)
            if w is not None:
                g *= w
            sum_gap += np.bincount(b, weights=g, minlength=size + 1)[:size]
            continue
        b2 = b << 1  # (bin, outcome) cell; removed values land at >= trash
        np.add(b2, o, out=b2, casting="unsafe")  # o of any integer dtype (uint64 too)
        cnt = np.bincount(b2, weights=w, minlength=trash + 1)
        count += cnt[0:trash:2] + cnt[1:trash:2]
        sum_true += cnt[1:trash:2]
        sum_proba += np.bincount(b, weights=c if w is None else c * w, minlength=size + 1)[:size]
        if sq is not None:
            sq += np.bincount(b, weights=w * w, minlength=size + 1)[:size]
    if gap_only:
        return _fold(sum_gap, n_bins)
    return tuple(None if a is None else _fold(a, n_bins) for a in (count, sum_proba, sum_true, sq))


def _classwise_shared_edges(P, y, sw, edges, threshold, *, check, gap_only, weight_sq):
    """Class-wise sums with the same edges for every class, chunked over rows.

    Counts and probability sums need one bincount over the (class, bin) index of the
    n x k chunk; the outcome sums need only the bin of each row's true-class
    probability, a bincount over n.
    """
    n, k = P.shape
    n_bins = edges.shape[0] - 1
    uniform = _is_uniform(edges)
    stride = n_bins + 1  # one extra slot per class for values above 1 (folded)
    size = k * stride
    if KERNELS is not None and _kernel_float(P):
        sums = _new_sums(size, sw, count=not gap_only, weight_sq=weight_sq)
        bad = KERNELS.accumulate_classwise(
            P, y, sw, _kernel_edges(edges), uniform, threshold, check, PROBA_TOLERANCE, *sums
        )
        if bad >= 0:
            raise_first_bad(P, bad)
        count, sum_proba, sum_true, sq = (_folded(a, n_bins, k) for a in sums)
        if gap_only:
            return sum_true - sum_proba
        return count, sum_proba, sum_true, sq
    count, sum_proba, sum_true = np.zeros(size + 1), np.zeros(size + 1), np.zeros(size + 1)
    sq = np.zeros(size + 1) if (weight_sq and sw is not None and not gap_only) else None
    col_offset = (np.arange(k, dtype=np.intp) * stride)[None, :]
    for start, stop in iter_row_chunks(n, k * P.itemsize):
        c = P[start:stop]
        if check:
            check_proba_chunk(c, start)
        b = bin_index_unclipped(c, edges, uniform)
        b += col_offset
        if threshold > 0:
            b[~(c > threshold)] = size
        bt = b[np.arange(stop - start), y[start:stop]]
        bf = b.ravel()
        cf = np.ravel(c, order="C")  # the same (C) order as bf: a copy only if c is not C
        if sw is None:
            if not gap_only:
                count += np.bincount(bf, minlength=size + 1)
            sum_proba += np.bincount(bf, weights=cf, minlength=size + 1)
            sum_true += np.bincount(bt, minlength=size + 1)
        else:
            w = sw[start:stop]
            if not gap_only:
                bw = np.broadcast_to(w[:, None], c.shape).ravel()
                count += np.bincount(bf, weights=bw, minlength=size + 1)
                if sq is not None:
                    sq += np.bincount(bf, weights=bw * bw, minlength=size + 1)
            sum_proba += np.bincount(bf, weights=(c * w[:, None]).ravel(), minlength=size + 1)
            sum_true += np.bincount(bt, weights=w, minlength=size + 1)

    def shaped(a):
        return None if a is None else _fold(a[:size].reshape(k, stride), n_bins)

    if gap_only:
        return shaped(sum_true) - shaped(sum_proba)
    return shaped(count), shaped(sum_proba), shaped(sum_true), shaped(sq)


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


def _kept(values, weight, threshold, n_bins):
    """Arguments of :func:`quantile_edges` for the values kept by the threshold."""
    if threshold <= 0:
        return values, n_bins, weight
    keep = values > threshold
    return values[keep], n_bins, None if weight is None else weight[keep]


def bin_stats(
    data: ClassificationInput,
    *,
    multiclass="auto",
    n_bins=15,
    strategy="uniform",
    bins=None,
    threshold=0.0,
    gap_only=False,
    weight_sq=False,
):
    """:class:`BinStats` (or, with ``gap_only``, :class:`GapSums`) of validated input.

    The kernel behind every binned metric: options are validated by the public callers
    (``bins`` already checked by :func:`check_bin_edges`).  The probability values are
    checked in the same pass when ``data.proba_checked`` is False.  ``weight_sq`` also
    accumulates the per-bin sums of squared weights (effective sample sizes).
    """
    check = not data.proba_checked
    mode = resolve_multiclass(multiclass, data)
    sw = data.sample_weight
    # a float64 scalar, so that float32 probabilities are compared with the threshold
    # itself (a Python float would be rounded to float32 first: NEP 50)
    threshold = np.float64(threshold)
    total_weight = float(data.n_samples if sw is None else sw.sum())
    if bins is not None:
        n_bins = bins.shape[0] - 1
    opts = dict(gap_only=gap_only, weight_sq=weight_sq)

    if mode in ("binary", "top_label"):
        if mode == "binary":
            conf, outcome = _binary_conf_outcome(data)
            # 1-D input with fixed edges is checked while it is binned; otherwise first
            fused = check and data.binary_1d and (strategy == "uniform" or bins is not None)
            if check and not fused:
                check_proba_values(data.proba)
        else:
            conf, outcome = _top_label_conf_outcome(data, check)
            fused = False
        if bins is not None:
            edges = bins
        elif strategy == "uniform":
            edges = _uniform_edges(n_bins)
        else:
            edges = quantile_edges(*_kept(conf, sw, threshold, n_bins))
        sums = _accumulate_1d(conf, outcome, sw, edges, threshold, check=fused, **opts)
        edges2 = edges[None, :].copy()
        if gap_only:
            return GapSums(sums[None, :], edges2, total_weight)
        count, sum_proba, sum_true, sq = (None if a is None else a[None, :] for a in sums)
        return BinStats(count, sum_proba, sum_true, edges2, total_weight, sq)

    # class-wise: one group per class
    P = data.proba
    if P.ndim == 1:
        if check:
            check_proba_values(P)
            check = False
        P = _as_2col(P, data.pos_index)
    k = P.shape[1]
    y = data.y.astype(np.intp, copy=False)
    if strategy == "uniform" or bins is not None:
        edges = bins if bins is not None else _uniform_edges(n_bins)
        sums = _classwise_shared_edges(P, y, sw, edges, threshold, check=check, **opts)
        all_edges = np.broadcast_to(edges, (k, n_bins + 1)).copy()
    else:
        if check:
            check_proba_values(P)
        parts = []
        all_edges = np.empty((k, n_bins + 1))
        for j in range(k):
            col = np.ascontiguousarray(P[:, j])
            all_edges[j] = quantile_edges(*_kept(col, sw, threshold, n_bins))
            parts.append(
                _accumulate_1d(
                    col,
                    y == j,
                    sw,
                    all_edges[j],
                    threshold,
                    check=False,
                    gap_only=False,
                    weight_sq=weight_sq,
                )
            )
        sums = tuple(
            None if parts[0][i] is None else np.stack([p[i] for p in parts]) for i in range(4)
        )
        if gap_only:
            sums = sums[2] - sums[1]
    if gap_only:
        return GapSums(sums, all_edges, total_weight)
    return BinStats(*sums[:3], all_edges, total_weight, sums[3])


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
        Positive class of a binary problem (default: the greater label).

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
        weight_sq=True,
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
    gap_only=False,
    weight_sq=False,
):
    """Validate raw data and bin it; the probability values are checked in the binning
    pass.  The one entry point of the public binned functions (options already
    validated by their ``validate_params``)."""
    edges = None if bins is None else check_bin_edges(bins)
    n_bins = check_n_bins(n_bins)
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        check_values=False,
    )
    return bin_stats(
        data,
        multiclass=multiclass,
        n_bins=n_bins,
        strategy=strategy,
        bins=edges,
        threshold=threshold,
        gap_only=gap_only,
        weight_sq=weight_sq,
    )
