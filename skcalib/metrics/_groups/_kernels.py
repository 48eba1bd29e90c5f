"""Kernels of the calibration of groups: the (probability, outcome, weight) pairs of
validated input, the range of the cumulative differences of every group in one pass,
the null standard deviations, and the distribution of the range of Brownian motion.

Everything takes validated numpy arrays; the public functions validate.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..._core._binning import _as_2col, probability_outcome, resolve_multiclass

__all__ = [
    "SortedPairs",
    "brownian_range_sf",
    "calibration_pairs",
    "code_dtype",
    "cumulative_ranges",
    "null_terms",
    "null_variances",
    "packed_order",
    "sorted_runs",
]


def calibration_pairs(data, multiclass):
    """The (probability, outcome, weight, class) arrays that are calibrated.

    Binary (the positive-class probability against the positive class) and top-label
    (the largest probability against whether its class is the true one): one pair a
    sample, ``classes`` None.  Class-wise: one pair a sample and a class (row-major, the
    pair of sample ``i`` and class ``k`` at ``i * n_classes + k``), ``classes`` the
    class index of each pair.

    Returns
    -------
    p : float64 ndarray, outcome : uint8 ndarray (0 or 1), weight : float64 ndarray
    or None, classes : intp ndarray or None, n_classes : int (1 unless class-wise)
    """
    mode = resolve_multiclass(multiclass, data)
    w = data.sample_weight
    if mode != "classwise":
        conf, outcome = probability_outcome(data, mode)
        p = np.asarray(conf, dtype=np.float64)
        return p, np.asarray(outcome, dtype=np.uint8), w, None, 1
    P = data.proba
    if data.binary_1d:
        P = _as_2col(np.asarray(P), data.pos_index)
    P = np.asarray(P, dtype=np.float64)
    n, k = P.shape
    onehot = np.zeros((n, k), dtype=np.uint8)
    onehot[np.arange(n), data.y] = 1
    classes = np.tile(np.arange(k), n)
    weight = None if w is None else np.repeat(w, k)
    return P.ravel(), onehot.ravel(), weight, classes, k


def code_dtype(n_groups):
    """The smallest unsigned type of the codes: numpy sorts 8- and 16-bit integers
    stably by radix sort, in linear time."""
    if n_groups <= 1 << 8:
        return np.dtype(np.uint8)
    return np.dtype(np.uint16 if n_groups <= 1 << 16 else np.intp)


def packed_order(p, codes=None, n_groups=1):
    """Indices that sort the pairs by ``(codes, p)`` (ties of both in any order), the
    sorted codes, and where each run of equal ``(code, p)`` ends.

    One ``np.sort`` of unsigned 64-bit keys, which numpy sorts many times faster than
    it argsorts floats: each key packs the group code (high bits), the leading bits of
    the probability's IEEE-754 pattern (which orders non-negative floats as integers),
    and the row index (low bits).  Pairs whose truncated probabilities collide are then
    re-sorted exactly by their full probabilities (a lexicographic sort of those few
    rows only), so the order is exact; the ends of the runs are read from the keys,
    and from the probabilities of the colliding rows only.  Falls back to a
    lexicographic sort when the index and the codes leave fewer than 20 bits for the
    probability.

    Returns
    -------
    order : intp ndarray of shape (n,)
    sorted_codes : ndarray of shape (n,) or None
        ``codes[order]`` (None without codes).
    last : bool ndarray of shape (n,)
        Whether position ``j`` of the order ends a run of equal code and probability.
    """
    n = p.shape[0]
    idx_bits = max(1, (n - 1).bit_length())
    code_bits = 0 if codes is None else max(1, (n_groups - 1).bit_length())
    p_bits = min(62, 64 - idx_bits - code_bits)
    last = np.empty(n, dtype=bool)
    if n:
        last[-1] = True
    if p_bits < 20:
        keys = (p,) if codes is None else (p, codes)
        order = np.lexsort(keys)
        ps = p[order] + 0.0
        np.not_equal(ps[1:], ps[:-1], out=last[:-1])
        sorted_codes = None
        if codes is not None:
            sorted_codes = codes[order]
            last[:-1] |= sorted_codes[1:] != sorted_codes[:-1]
        return order, sorted_codes, last
    bits = (p + 0.0).view(np.uint64)  # + 0.0: -0.0 becomes 0.0
    key = bits >> np.uint64(62 - p_bits)
    del bits
    key <<= np.uint64(idx_bits)
    key |= np.arange(n, dtype=np.uint64)
    if codes is not None:
        key |= codes.astype(np.uint64) << np.uint64(idx_bits + p_bits)
    key.sort()
    order = (key & np.uint64((1 << idx_bits) - 1)).astype(np.intp)
    key >>= np.uint64(idx_bits)  # the bucket: code and truncated probability
    np.not_equal(key[1:], key[:-1], out=last[:-1])
    collide = np.flatnonzero(~last[:-1])
    if collide.shape[0]:
        member = np.zeros(n, dtype=bool)
        member[collide] = True
        member[collide + 1] = True
        pos = np.flatnonzero(member)
        rows = order[pos]
        order[pos] = rows[np.lexsort((p[rows], key[pos]))]
        # within a bucket, a run ends where the full probability changes
        last[collide] = (p[order[collide + 1]] + 0.0) != (p[order[collide]] + 0.0)
    sorted_codes = None
    if codes is not None:
        sorted_codes = key >> np.uint64(p_bits)
    return order, sorted_codes, last


def sorted_runs(p):
    """``(order, run)``: the indices that sort ``p`` (:func:`packed_order`) and, in that
    order, the index of each value's run of tied values (non-decreasing from 0)."""
    order, _, last = packed_order(p)
    new_run = np.empty(p.shape[0], dtype=bool)
    if p.shape[0]:
        new_run[0] = False
        new_run[1:] = last[:-1]
    return order, np.cumsum(new_run)


class SortedPairs:
    """Pairs sorted once by probability, for the cumulative sums of many groupings.

    ``order`` and ``run`` are :func:`sorted_runs` of ``p``; ``residual`` the residuals
    in that order.  :meth:`take` puts any per-pair array in that order (group codes:
    then every grouping of the same pairs costs one radix sort of its codes, and no
    sort by probability).
    """

    def __init__(self, p, residual):
        self.order, self.run = sorted_runs(p)
        self.residual = residual[self.order]
        self.n = p.shape[0]
        # no tied probabilities: every position of the walk is read
        self.distinct = self.n == 0 or int(self.run[-1]) == self.n - 1

    def take(self, values):
        return values[self.order]

    def ranges(self, codes=None, n_groups=1):
        r"""Range of the cumulative residuals of every group (see
        :func:`cumulative_ranges`), ``codes`` given in the sorted order."""
        n = self.n
        out = np.zeros(n_groups)
        if n == 0:
            return out
        last = np.empty(n, dtype=bool)
        last[-1] = True
        if codes is None:
            cs = np.cumsum(self.residual)
            np.not_equal(self.run[1:], self.run[:-1], out=last[:-1])
            v = cs[last]
            out[0] = max(float(v.max()), 0.0) - min(float(v.min()), 0.0)
            return out
        cg = codes.astype(code_dtype(n_groups), copy=False)
        perm = np.argsort(cg, kind="stable")
        counts = np.bincount(cg, minlength=n_groups)
        del cg
        nonempty = np.flatnonzero(counts)
        starts = (np.cumsum(counts) - counts)[nonempty]
        cs = np.cumsum(self.residual[perm])
        base = np.zeros(starts.shape[0])
        base[1:] = cs[starts[1:] - 1]
        if self.distinct:  # every position ends a run
            del perm
            v, seg = cs, starts
        else:
            r = self.run[perm]
            del perm
            np.not_equal(r[1:], r[:-1], out=last[:-1])
            del r
            last[starts[1:] - 1] = True  # the end of each group
            ends = np.flatnonzero(last)
            seg = np.searchsorted(ends, starts)
            v = cs[ends]
        # the extremes of S_j - base over each group's positions, and S_0 = 0
        high = np.maximum(np.maximum.reduceat(v, seg) - base, 0.0)
        low = np.minimum(np.minimum.reduceat(v, seg) - base, 0.0)
        out[nonempty] = high - low
        return out


def cumulative_ranges(p, residual, codes=None, n_groups=1):
    r"""Range of the cumulative residuals of every group, in one pass.

    Within group ``g``, with its pairs sorted by ``p`` and ``S_j`` the sum of the
    residuals of its first ``j`` pairs (``S_0 = 0``), the range
    ``max_j S_j - min_j S_j``, where ``j`` runs over 0 and the ends of the runs of tied
    probabilities (the statistic does not depend on the order of tied pairs).

    One sort by ``(group, p)`` for all groups (:func:`packed_order`), one cumulative
    sum, and segment reductions (``reduceat``) for the extremes of every group; no loop
    over groups.

    Parameters
    ----------
    p : float64 ndarray of shape (n,)
    residual : float64 ndarray of shape (n,)
        ``w * (y - p)`` of each pair.
    codes : int ndarray of shape (n,), default=None
        Group of each pair in ``[0, n_groups)``; None: one group.
    n_groups : int, default=1

    Returns
    -------
    ranges : float64 ndarray of shape (n_groups,)
        0 for empty groups.
    """
    n = p.shape[0]
    out = np.zeros(n_groups)
    if n == 0:
        return out
    order, sorted_codes, last = packed_order(p, codes, n_groups)
    cs = np.cumsum(residual[order])
    del order
    if sorted_codes is None:
        v = cs[last]
        out[0] = max(float(v.max()), 0.0) - min(float(v.min()), 0.0)
        return out
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(sorted_codes[1:], sorted_codes[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    del first
    base = np.zeros(starts.shape[0])
    base[1:] = cs[starts[1:] - 1]
    ends = np.flatnonzero(last)
    del last
    seg = np.searchsorted(ends, starts)
    v = cs[ends]
    high = np.maximum(np.maximum.reduceat(v, seg) - base, 0.0)
    low = np.minimum(np.minimum.reduceat(v, seg) - base, 0.0)
    out[sorted_codes[starts].astype(np.intp)] = high - low
    return out


def null_terms(p, weight):
    """``w_i^2 p_i (1 - p_i)`` of each pair: its residual's variance under calibration."""
    v = p * (1.0 - p)
    if weight is not None:
        v *= weight * weight
    return v


def null_variances(p, weight, codes=None, n_groups=1):
    r"""``sum_i w_i^2 p_i (1 - p_i)`` of every group: the variance of the sum of the
    residuals ``w_i (y_i - p_i)`` when the outcomes are Bernoulli(``p_i``)."""
    v = null_terms(p, weight)
    if codes is None:
        return np.array([float(v.sum())])
    return np.bincount(codes, v, minlength=n_groups)


#: below this, ``1 - CDF`` of the small-argument series; above, Feller's series of the
#: tail (both converge to full double precision there within a few dozen terms)
_SWITCH = 1.5


def _range_cdf(x):
    """CDF of the range of standard Brownian motion on [0, 1] (Feller 1951), the
    series that converges fast for small ``x``."""
    k = np.arange(60)[:, None] + 0.5
    a = (k * np.pi) ** 2
    terms = (8.0 / x**2 + 2.0 / a) * np.exp(-2.0 * a / x**2)
    return terms.sum(axis=0)


def _range_sf_tail(x):
    """Survival function of the range, Feller's series
    ``8 sum_k (-1)^(k-1) k Q(k x)`` (``Q`` the standard normal survival function),
    which converges fast for large ``x`` and keeps its relative precision."""
    k = np.arange(1, 40)[:, None]
    sign = np.where(k % 2 == 1, 1.0, -1.0)
    return 8.0 * (sign * k * special.ndtr(-k * x)).sum(axis=0)


def brownian_range_sf(x):
    r"""Survival function of the range of standard Brownian motion on [0, 1].

    ``P(max_t B_t - min_t B_t > x)`` (Feller 1951, "The asymptotic distribution of the
    range of sums of independent random variables"): the limit distribution of the
    cumulative calibration error over its null standard deviation (Arrieta-Ibarra et
    al. 2022; Tygert 2023, "Calibration of P-values for calibration and for deviation
    of a subpopulation from the full population"):

    .. math::

        P(R \le x) = \sum_{k \ge 0} \Bigl(\frac{8}{x^2} + \frac{2}{\pi^2 (k + 1/2)^2}\Bigr)
            e^{-2 \pi^2 (k + 1/2)^2 / x^2},
        \qquad P(R > x) = 8 \sum_{k \ge 1} (-1)^{k-1} k\, Q(k x),

    the first series for ``x < 1.5``, the second (which keeps the relative precision of
    tiny p-values) above.
    """
    x = np.asarray(x, dtype=np.float64)
    flat = np.atleast_1d(x).ravel()
    out = np.ones_like(flat)
    pos = flat > 0
    small = pos & (flat < _SWITCH)
    if small.any():
        out[small] = np.clip(1.0 - _range_cdf(flat[small]), 0.0, 1.0)
    big = flat >= _SWITCH
    if big.any():
        out[big] = np.clip(_range_sf_tail(flat[big]), 0.0, 1.0)
    out[np.isnan(flat)] = np.nan
    return out.reshape(x.shape) if x.ndim else float(out[0])
