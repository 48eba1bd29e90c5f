"""The one binning core of skcalib.

Every binned quantity of the library (calibration errors, reliability curves, the bars of
a reliability diagram, histogram-binning recalibration, streamed results) is computed from
a :class:`BinStats`: per group (one group for binary / top-label calibration, one per
class for class-wise calibration) and per bin, the (weighted) count, the sum of predicted
probabilities and the sum of outcomes.  ``BinStats`` objects with the same edges can be
merged, which is what makes chunked and streamed computation exact.

Binning rule (API.md)
---------------------
``n_bins`` equal-width bins have edges ``e_k = k / n_bins`` computed as
``np.arange(n_bins + 1) / n_bins``.  Bins are right-closed: bin ``m`` holds
``e_m < p <= e_{m+1}``; the first bin also holds ``p = 0``.  The bin index is computed by
arithmetic (``ceil(p * n_bins) - 1``) followed by an exact fix-up against the float64
edges, so a probability that equals an edge always lands where the rule says, whatever
the rounding of ``p * n_bins``.

Equal-mass bins (``strategy="quantile"``) use the inverted-CDF quantiles of the binned
values: inner edge ``k`` is the smallest value ``v`` with ``F(v) >= k / n_bins``, where
``F`` is the (sample-weighted) empirical CDF.  With right-closed bins each bin then holds
the same mass up to one sample (or one sample's weight).  Ties are deterministic: all
copies of a value land in the lowest bin whose upper edge equals it, so heavy ties can
leave later bins empty (reported with count 0).  The outer edges are 0 and 1.  Without
weights the edges come from one ``np.partition`` (a selection, not a sort).

The different rules of reference systems (uncertainty_metrics' left-closed bins with an
extra ``[1, inf)`` bin and ``get_adaptive_bins``; TFP's nearest-rank quantile buckets)
live in the separate compatibility section :mod:`skcalib.metrics._binning_compat`, which
accumulates into the same :class:`BinStats`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_proba_chunk, iter_row_chunks, row_sum_tolerance  # noqa: F401

__all__ = [
    "BinStats",
    "uniform_bin_edges",
    "quantile_bin_edges",
    "check_bin_edges",
    "assign_bins",
    "compute_bin_stats",
]


def uniform_bin_edges(n_bins):
    """Equal-width edges ``np.arange(n_bins + 1) / n_bins``."""
    return np.arange(n_bins + 1) / n_bins


def quantile_bin_edges(x, n_bins, sample_weight=None):
    """Equal-mass (inverted-CDF quantile) edges of the values ``x``.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Values in [0, 1].
    n_bins : int
    sample_weight : ndarray of shape (n,) or None

    Returns
    -------
    edges : ndarray of shape (n_bins + 1,)
        ``[0, q_1, ..., q_{n_bins-1}, 1]`` with ``q_k`` the smallest value whose weighted
        empirical CDF is at least ``k / n_bins``.
    """
    x = np.asarray(x)
    n = x.shape[0]
    inner = np.empty(n_bins - 1, dtype=np.float64)
    if n_bins > 1 and n > 0:
        k = np.arange(1, n_bins)
        if sample_weight is None:
            # smallest order statistic with rank >= k n / n_bins (exact integer arithmetic)
            kth = -((-k * n) // n_bins) - 1
            kth_u = np.unique(kth)
            part = np.partition(x, kth_u)
            inner[:] = part[kth]
        else:
            w = np.asarray(sample_weight, dtype=np.float64)
            w = w / w.max()  # edges are scale-free; avoids overflow of cum * n_bins
            keep = w > 0
            xs, ws = (x[keep], w[keep]) if not keep.all() else (x, w)
            order = np.argsort(xs, kind="stable")
            xs = xs[order]
            cum = np.cumsum(ws[order])
            total = cum[-1]
            # first index with cum >= k * total / n_bins.  Compared without division and
            # with a relative slack of the order of the cumsum's rounding error, so that
            # exact ties (integer weights, or integer weights times any scale) resolve as
            # in exact arithmetic: weights w give the edges of the sample repeated w times.
            rtol = max(64, xs.shape[0]) * np.finfo(np.float64).eps
            idx = np.searchsorted(cum * n_bins, k * total * (1 - rtol), side="left")
            idx = np.minimum(idx, xs.shape[0] - 1)
            inner[:] = xs[idx]
    edges = np.concatenate(([0.0], inner, [1.0]))
    # edges must be non-decreasing and inside [0, 1]
    np.clip(edges, 0.0, 1.0, out=edges)
    return edges


def check_bin_edges(bins):
    """Validate explicit edges: 1-D, finite, strictly increasing, covering [0, 1]."""
    edges = np.asarray(bins, dtype=np.float64)
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
    n_bins = edges.shape[0] - 1
    return np.array_equal(edges, uniform_bin_edges(n_bins))


def assign_bins(x, edges, *, uniform=None):
    """Bin index of each value of ``x`` under the right-closed rule.

    Bin ``m`` holds ``edges[m] < x <= edges[m + 1]``; values ``<= edges[1]`` go to bin 0 and
    values above ``edges[-2]`` to the last bin.

    Parameters
    ----------
    x : ndarray (any shape), float32 or float64
    edges : ndarray of shape (n_bins + 1,)
    uniform : bool or None
        Whether ``edges`` are ``uniform_bin_edges(n_bins)``; detected when None.  The
        uniform case uses arithmetic with an exact fix-up instead of a binary search.

    Returns
    -------
    ndarray of intp, same shape as ``x``
    """
    n_bins = edges.shape[0] - 1
    if uniform is None:
        uniform = _is_uniform(edges)
    if n_bins == 1:
        return np.zeros(x.shape, dtype=np.intp)
    if not uniform:
        return np.searchsorted(edges[1:-1], x, side="left").astype(np.intp, copy=False)
    # t = x * n_bins; away from integers, ceil(t) - 1 == floor(t) is the exact bin.  Within
    # a few ulps of an integer (x on or next to an edge, including 0 and 1) the rounding
    # of the product can move a value across an edge, so those few values are placed by
    # an exact binary search against the float64 edges.
    t = np.multiply(x, n_bins, dtype=np.float64)
    b = t.astype(np.intp)
    r = np.rint(t)
    np.subtract(t, r, out=r)
    np.abs(r, out=r)
    near = r < 4 * n_bins * np.finfo(np.float64).eps
    if near.any():
        idx = np.flatnonzero(near.ravel())
        xv = x.ravel()[idx]
        bv = np.searchsorted(edges, xv, side="left") - 1
        np.clip(bv, 0, n_bins - 1, out=bv)
        if b.ndim == 1:
            b[idx] = bv
        else:
            b.ravel()[idx] = bv  # b is a fresh C-contiguous array, so ravel is a view
    return b


@dataclass
class BinStats:
    """Per-group, per-bin sufficient statistics of a reliability diagram.

    Attributes
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
    sum_gap : ndarray of shape (n_groups, n_bins) or None
        Weighted sum of ``outcome - probability``; set (and the three sums above None)
        only by ``compute_bin_stats(..., gap_only=True)``.
    """

    count: np.ndarray | None
    sum_proba: np.ndarray | None
    sum_true: np.ndarray | None
    bin_edges: np.ndarray
    total_weight: float
    sum_gap: np.ndarray | None = None

    @property
    def n_groups(self):
        return self.bin_edges.shape[0]

    @property
    def n_bins(self):
        return self.bin_edges.shape[1] - 1

    @property
    def gap(self):
        """Per-bin weighted sum of ``outcome - probability``."""
        if self.sum_gap is not None:
            return self.sum_gap
        return self.sum_true - self.sum_proba

    @property
    def complete(self):
        """Whether count, sum_proba and sum_true are available (not a gap-only result)."""
        return self.count is not None

    def merge(self, other):
        """Return the statistics of the union of the two samples (edges must match)."""
        if not isinstance(other, BinStats):
            raise TypeError(f"can only merge BinStats, got {type(other).__name__}")
        if self.bin_edges.shape != other.bin_edges.shape or not np.array_equal(
            self.bin_edges, other.bin_edges
        ):
            raise ValueError("cannot merge BinStats with different bin edges")
        if self.complete and other.complete:
            return BinStats(
                count=self.count + other.count,
                sum_proba=self.sum_proba + other.sum_proba,
                sum_true=self.sum_true + other.sum_true,
                bin_edges=self.bin_edges.copy(),
                total_weight=self.total_weight + other.total_weight,
            )
        return BinStats(
            None,
            None,
            None,
            bin_edges=self.bin_edges.copy(),
            total_weight=self.total_weight + other.total_weight,
            sum_gap=self.gap + other.gap,
        )

    __add__ = merge

    def _mean(self, s):
        if not self.complete:
            raise ValueError("this BinStats holds only gap sums (gap_only=True)")
        out = np.full(s.shape, np.nan)
        nz = self.count > 0
        np.divide(s, self.count, out=out, where=nz)
        return out

    @property
    def prob_true(self):
        """Observed frequency (accuracy) per bin; NaN for empty bins."""
        return self._mean(self.sum_true)

    @property
    def prob_pred(self):
        """Mean predicted probability (confidence) per bin; NaN for empty bins."""
        return self._mean(self.sum_proba)


# --------------------------------------------------------------------------------------
# accumulation
# --------------------------------------------------------------------------------------


def _as_2col(p, pos_index):
    """(n, 2) view-like matrix in class order from a 1-D positive-class vector."""
    out = np.empty((p.shape[0], 2), dtype=p.dtype)
    out[:, pos_index] = p
    out[:, 1 - pos_index] = 1 - p
    return out


def _binary_conf_outcome(data):
    """Positive-class probability and outcome of a binary problem."""
    if data.binary_1d:
        conf = data.proba
    else:
        conf = data.proba[:, data.pos_index]
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
            check_proba_chunk(P)
        # column order is the class order; first maximal column wins ties
        pos = data.pos_index if data.pos_index is not None else 0
        neg_p = 1 - P
        if pos == 1:
            pred_pos = P > neg_p
        else:
            pred_pos = P >= neg_p
        conf = np.where(pred_pos, P, neg_p)
        outcome = (data.y == pos) == pred_pos
        return conf, outcome
    k = P.shape[1]
    conf = np.empty(n, dtype=P.dtype)
    outcome = np.empty(n, dtype=bool)
    ones = np.ones(k, dtype=P.dtype)
    for start, stop in iter_row_chunks(n, k * P.itemsize):
        c = P[start:stop]
        if check:
            check_proba_chunk(c, start, row_sums=c @ ones)
        am = c.argmax(axis=1)
        conf[start:stop] = np.take_along_axis(c, am[:, None], axis=1)[:, 0]
        np.equal(am, data.y[start:stop], out=outcome[start:stop])
    return conf, outcome


def _group_edges(strategy, n_bins, bins, values=None, weight=None):
    if bins is not None:
        return bins
    if strategy == "uniform":
        return uniform_bin_edges(n_bins)
    return quantile_bin_edges(values, n_bins, weight)


def _weighted_bincount(idx, weights, size):
    return np.bincount(idx, weights=weights, minlength=size)[:size]


def _bin_1d(
    conf,
    outcome,
    sw,
    edges,
    threshold,
    stats_out,
    group=0,
    uniform=None,
    check=False,
    gap_only=False,
):
    """Accumulate one group's (conf, outcome) pairs into ``stats_out`` (chunked).

    ``outcome`` holds 0/1 values (bool or any integer dtype).  With ``check`` the values
    of ``conf`` are validated chunk by chunk as they are read.  With ``gap_only`` only the
    per-bin sums of ``outcome - conf`` are accumulated (into ``stats_out[3]``): one
    bincount instead of two, all that the l1 calibration error needs.
    """
    count, sum_proba, sum_true, sum_gap = stats_out
    n_bins = edges.shape[0] - 1
    if uniform is None:
        uniform = _is_uniform(edges)
    trash = n_bins if gap_only else 2 * n_bins
    for start, stop in iter_row_chunks(conf.shape[0], 8):
        c = conf[start:stop]
        if check:
            check_proba_chunk(c, start)
        b = assign_bins(c, edges, uniform=uniform)
        o = outcome[start:stop]
        w = None if sw is None else sw[start:stop]
        if gap_only:
            if threshold > 0:
                b[~(c > threshold)] = trash
            g = np.subtract(o, c, dtype=np.float64)
            if w is not None:
                g *= w
            sum_gap[group] += _weighted_bincount(b, g, n_bins)
            continue
        b <<= 1
        b += o
        if threshold > 0:
            b[~(c > threshold)] = trash
        cnt = np.bincount(b, weights=w, minlength=trash + 1)
        count[group] += cnt[0:trash:2] + cnt[1:trash:2]
        sum_true[group] += cnt[1:trash:2]
        b >>= 1
        sum_proba[group] += _weighted_bincount(b, c if w is None else c * w, n_bins)


def _empty_stats(n_groups, n_bins, gap_only=False):
    if gap_only:
        return None, None, None, np.zeros((n_groups, n_bins))
    return (
        np.zeros((n_groups, n_bins)),
        np.zeros((n_groups, n_bins)),
        np.zeros((n_groups, n_bins)),
        None,
    )


def compute_bin_stats(
    data,
    *,
    multiclass="auto",
    n_bins=15,
    strategy="uniform",
    bins=None,
    threshold=0.0,
    check_values=True,
    gap_only=False,
):
    """Compute :class:`BinStats` from validated input.

    Parameters
    ----------
    data : ClassificationInput
        Output of :func:`check_classification_input` (with ``check_values=False`` when
        ``check_values`` here is True: values are checked in the same pass).
    multiclass : {"auto", "binary", "top_label", "classwise"}
        "auto" is "binary" (positive-class calibration) for two classes and "top_label"
        otherwise.
    n_bins : int
    strategy : {"uniform", "quantile"}
    bins : ndarray or None
        Explicit, validated edges (overrides ``n_bins`` and ``strategy``).
    threshold : float
        Only probabilities strictly greater than ``threshold`` are binned (they still
        count in ``total_weight``).
    check_values : bool
        Check probability values (NaN/inf, range, row sums) while reading them.
    gap_only : bool
        Only compute the per-bin sums of ``outcome - probability`` (``BinStats.sum_gap``),
        which is all the l1 calibration error needs; ``count``, ``sum_proba`` and
        ``sum_true`` are then None.  Saves one bincount pass (class-wise calibration
        with equal-mass bins ignores it).

    Returns
    -------
    BinStats
    """
    from sklearn import get_config

    check = check_values and not get_config()["assume_finite"]
    mode = resolve_multiclass(multiclass, data)
    sw = data.sample_weight
    total_weight = float(data.n_samples if sw is None else sw.sum())
    if bins is not None:
        n_bins = bins.shape[0] - 1

    if mode in ("binary", "top_label"):
        fused_check = False
        if mode == "binary":
            conf, outcome = _binary_conf_outcome(data)
            if check:
                # equal-width or explicit bins: 1-D values are checked while binning
                fused_check = data.binary_1d and (strategy == "uniform" or bins is not None)
                if not fused_check:
                    check_full(data.proba)
        else:
            conf, outcome = _top_label_conf_outcome(data, check)
        edges = _group_edges(strategy, n_bins, bins, conf, sw)
        stats = _empty_stats(1, n_bins, gap_only)
        _bin_1d(conf, outcome, sw, edges, threshold, stats, check=fused_check, gap_only=gap_only)
        return BinStats(
            *stats[:3], bin_edges=edges[None, :].copy(), total_weight=total_weight, sum_gap=stats[3]
        )

    # class-wise: one group per class
    P = data.proba
    if P.ndim == 1:
        P = _as_2col(P, data.pos_index if data.pos_index is not None else 1)
        if check:
            check_proba_chunk(data.proba)
        check = False
    k = P.shape[1]
    if strategy == "uniform" or bins is not None:
        edges = _group_edges(strategy, n_bins, bins)
        stats = _classwise_shared_edges(P, data.y, sw, edges, threshold, check, gap_only)
        all_edges = np.broadcast_to(edges, (k, n_bins + 1)).copy()
    else:
        if check:
            check_full(P)
        stats = _empty_stats(k, n_bins)
        all_edges = np.empty((k, n_bins + 1))
        for j in range(k):
            col = np.ascontiguousarray(P[:, j])
            vals = col if threshold <= 0 else col[col > threshold]
            wv = sw if (sw is None or threshold <= 0) else sw[col > threshold]
            all_edges[j] = quantile_bin_edges(vals, n_bins, wv)
            _bin_1d(col, data.y == j, sw, all_edges[j], threshold, stats, group=j, uniform=False)
        stats = stats[:3]
    if stats[0] is None:
        return BinStats(
            None,
            None,
            None,
            bin_edges=all_edges,
            total_weight=total_weight,
            sum_gap=stats[2] - stats[1],
        )
    return BinStats(*stats, bin_edges=all_edges, total_weight=total_weight)


def check_full(P):
    """Chunked value check of a whole probability array."""
    row_bytes = P.itemsize * (P.shape[1] if P.ndim == 2 else 1)
    for start, stop in iter_row_chunks(P.shape[0], row_bytes):
        check_proba_chunk(P[start:stop], start)


def _classwise_shared_edges(P, y, sw, edges, threshold, check, gap_only=False):
    """Class-wise statistics with the same edges for every class, chunked over rows.

    Counts and probability sums need one bincount over the (class, bin) index of the
    n x k chunk; the outcome sums need only the bin of each row's true-class probability,
    a bincount over n.
    """
    n, k = P.shape
    n_bins = edges.shape[0] - 1
    size = k * n_bins
    uniform = _is_uniform(edges)
    count, sum_proba, sum_true = np.zeros(size + 1), np.zeros(size + 1), np.zeros(size + 1)
    col_offset = (np.arange(k, dtype=np.intp) * n_bins)[None, :]
    ones = np.ones(k, dtype=P.dtype)
    for start, stop in iter_row_chunks(n, k * P.itemsize):
        c = P[start:stop]
        if check:
            check_proba_chunk(c, start, row_sums=c @ ones)
        b = assign_bins(c, edges, uniform=uniform)
        b += col_offset
        if threshold > 0:
            b[~(c > threshold)] = size
        yc = y[start:stop].astype(np.intp)
        bt = b[np.arange(stop - start), yc]
        if sw is None:
            if not gap_only:
                count += np.bincount(b.ravel(), minlength=size + 1)
            sum_proba += np.bincount(b.ravel(), weights=c.ravel(), minlength=size + 1)
            sum_true += np.bincount(bt, minlength=size + 1)
        else:
            w = sw[start:stop]
            if not gap_only:
                bw = np.broadcast_to(w[:, None], c.shape).ravel()
                count += np.bincount(b.ravel(), weights=bw, minlength=size + 1)
            sum_proba += np.bincount(
                b.ravel(), weights=(c * w[:, None]).ravel(), minlength=size + 1
            )
            sum_true += np.bincount(bt, weights=w, minlength=size + 1)
    shape = (k, n_bins)
    return (
        None if gap_only else count[:size].reshape(shape),
        sum_proba[:size].reshape(shape),
        sum_true[:size].reshape(shape),
    )


def resolve_multiclass(multiclass, data):
    """Map ``multiclass`` to one of "binary", "top_label", "classwise"."""
    if multiclass == "auto":
        return "binary" if data.is_binary else "top_label"
    if multiclass == "binary":
        if not data.is_binary:
            raise ValueError(
                f"multiclass='binary' needs a binary problem, got {data.n_classes} classes"
            )
        return "binary"
    if multiclass in ("top_label", "classwise"):
        return multiclass
    raise ValueError(
        f"multiclass must be one of 'auto', 'top_label', 'classwise', got {multiclass!r}"
    )
