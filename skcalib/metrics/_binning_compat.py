"""Binning rules of reference systems (compatibility section of the binning core).

skcalib bins with one rule everywhere (:mod:`skcalib.metrics._binning`: right-closed
bins ``e_m < p <= e_{m+1}`` on the edges ``k / n_bins``, ``p = 0`` in the first bin and
``p = 1`` in the last one).  Two reference libraries whose published numbers users want
to reproduce use *different* rules.  They are implemented here, and only here, as edge
and bin-assignment functions; the per-bin accumulation (count, sum of probabilities, sum
of outcomes) is the same weighted ``np.bincount`` as in the core and produces the same
:class:`~skcalib.metrics._binning.BinStats` type.  Nothing in skcalib's main API uses
these rules.

uncertainty_metrics 0.0.82, NumPy backend (``"even"`` and ``"adaptive"``)
-------------------------------------------------------------------------
The reference describes bins by their *upper* edges ``u`` and assigns
``np.digitize(p, u)`` (``right=False``): the bin index is the number of upper edges
``<= p``.  Bins are therefore left-closed and right-open, ``u[m-1] <= p < u[m]``, and
the first bin has no lower limit.

* ``"even"``: ``u = linspace(0, 1, M + 1)[1:]`` (float64).  A value ``p >= 1`` gets
  index ``M``: an **extra bin** ``[1, inf)``, so the per-bin arrays have ``M + 1``
  entries when such a value occurs (``M`` otherwise).  Literal edge values follow the
  float64 edges: with ``M = 10``, ``linspace`` gives ``0.30000000000000004``, so
  ``p = 0.3`` lands in bin 2, not 3 (likewise 0.6 and 0.7).
* ``"adaptive"`` (``get_adaptive_bins``): with ``n`` values,
  ``idx = round(linspace(0, n, M, endpoint=False))`` (NumPy's round-half-to-even),
  clipped to ``n - 1``; the edges are ``sort(values)[idx]`` and the upper edges are
  ``edges[1:]`` (``M - 1`` of them).  Bin sizes differ by at most one for distinct
  values; every copy of a tied value goes to the highest bin whose lower edge equals
  it, so bins can be empty.  For empty input the reference returns
  ``linspace(0, 1, M + 1)[:-1]`` (lower edges, harmless: callers return early).

tensorflow-probability ``expected_calibration_error_quantiles`` (``"quantile_tfp"``)
------------------------------------------------------------------------------------
``B + 1`` edges are nearest-rank quantiles, ``edge_k = s[clip(rint((n-1) * q_k / 100),
0, n-1)]`` with ``s`` the sorted values and ``q = linspace(0, 100, B + 1)``, all in
float64 exactly as ``tfp.stats.quantiles(..., interpolation='nearest')`` computes them
(the float arithmetic matters: for some ``(n, B)`` the exact rational position is a
half that rounds the other way).  ``edge_0`` is the minimum and ``edge_B`` the
maximum.  Buckets are left-closed, ``edge_k <= x < edge_{k+1}``, except the last one,
which is closed (``edge_{B-1} <= x <= edge_B``); repeated edges leave the buckets
between them empty.
"""

from __future__ import annotations

import numpy as np

from ._binning import BinStats

__all__ = [
    "um_even_upper_edges",
    "um_adaptive_upper_edges",
    "um_assign_bins",
    "um_bin_stats",
    "tfp_quantile_edge_indices",
    "tfp_quantile_bin_edges",
    "tfp_assign_bins",
]

# ======================================================================================
# uncertainty_metrics 0.0.82 (NumPy backend)
# ======================================================================================


def um_even_upper_edges(n_bins):
    """Upper edges of uncertainty_metrics' ``"even"`` bins: ``linspace(0, 1, M + 1)[1:]``.

    This is ``np.histogram_bin_edges([], bins=M, range=(0, 1))[1:]``, as the reference
    computes them.

    Examples
    --------
    >>> from skcalib.metrics._binning_compat import um_even_upper_edges
    >>> um_even_upper_edges(4)
    array([0.25, 0.5 , 0.75, 1.  ])
    >>> float(um_even_upper_edges(10)[2])  # 3 * (1/10), so p = 0.3 lands in bin 2
    0.30000000000000004
    """
    return np.linspace(0.0, 1.0, n_bins + 1)[1:]


def um_adaptive_upper_edges(x, n_bins):
    """uncertainty_metrics' ``get_adaptive_bins``: upper edges of equal-mass bins.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The values to bin (already thresholded; no NaN).
    n_bins : int
        Number of bins ``M`` (0 gives a single bin).

    Returns
    -------
    ndarray of shape (max(M - 1, 0),)
        ``sort(x)[min(round(linspace(0, n, M, endpoint=False)), n - 1)][1:]`` with
        NumPy's round-half-to-even.  For empty ``x``: ``linspace(0, 1, M + 1)[:-1]``
        (the reference's value for that case).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics._binning_compat import um_adaptive_upper_edges
    >>> um_adaptive_upper_edges(np.array([.1, .2, .3, .4, .5, .6, .7]), 3)
    array([0.3, 0.6])
    >>> um_adaptive_upper_edges(np.arange(10) / 10, 4)  # 2.5 -> 2 and 7.5 -> 8
    array([0.2, 0.5, 0.8])
    """
    x = np.asarray(x)
    n = x.shape[0]
    if n == 0:
        return np.linspace(0.0, 1.0, n_bins + 1)[:-1]
    idx = np.round(np.linspace(0, n, n_bins, endpoint=False)).astype(np.intp)
    np.minimum(idx, n - 1, out=idx)
    if idx.shape[0] == 0:
        return x[:0].copy()
    # a selection of the needed order statistics instead of a full sort
    part = np.partition(x, np.unique(idx))
    return part[idx][1:]


def um_assign_bins(x, upper_edges):
    """Bin index ``np.digitize(x, upper_edges)``: the number of upper edges ``<= x``.

    Bins are left-closed and right-open; values below the first upper edge go to bin 0
    and, with the ``"even"`` edges, values ``>= 1`` to the extra bin ``M``.  NaN gets
    index ``len(upper_edges)`` (callers drop NaN before binning).
    """
    return np.digitize(x, upper_edges)


def um_bin_stats(x, target, upper_edges, n_bins):
    """One group's :class:`BinStats` under uncertainty_metrics' rule.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Kept values (probabilities above the threshold), in the reference's order.
    target : ndarray of shape (n,)
        0/1 (or bool) outcome of each value.
    upper_edges : ndarray
        From :func:`um_even_upper_edges` or :func:`um_adaptive_upper_edges`.
    n_bins : int
        The reference's ``minlength``; the arrays have
        ``max(n_bins, largest bin index + 1)`` entries (``n_bins + 1`` when an
        ``"even"`` value is ``>= 1``).

    Returns
    -------
    BinStats
        One group.  ``count`` holds the (integer-valued) counts *without* the
        reference's ``eps``; ``total_weight`` is ``n``, the kept count, which is the
        reference's denominator.  ``bin_edges`` is
        ``[-inf, *upper_edges, inf]`` cut to ``n_bins + 1`` entries, with bin ``m``
        holding ``bin_edges[m] <= x < bin_edges[m + 1]``.
    """
    b = um_assign_bins(x, upper_edges)
    count = np.bincount(b, minlength=n_bins).astype(np.float64)
    size = count.shape[0]
    sum_proba = np.bincount(b, weights=x, minlength=n_bins)
    sum_true = np.bincount(b, weights=target, minlength=n_bins)
    edges = np.concatenate(([-np.inf], np.asarray(upper_edges, dtype=np.float64), [np.inf]))
    edges = edges[: size + 1]
    return BinStats(
        count=count[None, :],
        sum_proba=sum_proba[None, :],
        sum_true=sum_true[None, :],
        bin_edges=edges[None, :],
        total_weight=float(x.shape[0]),
    )


# ======================================================================================
# tensorflow-probability: tfp.stats.quantiles(interpolation='nearest') + _find_bins
# ======================================================================================


def tfp_quantile_edge_indices(n, n_bins):
    """Positions (in sorted order) of TFP's nearest-rank quantile edges.

    ``clip(rint((n - 1) * (linspace(0, 100, B + 1) / 100)), 0, n - 1)`` in float64,
    as ``tfp.stats.percentile`` computes them (``tf.round`` is round-half-to-even).

    Examples
    --------
    >>> from skcalib.metrics._binning_compat import tfp_quantile_edge_indices
    >>> tfp_quantile_edge_indices(6, 3)  # positions 0, 1.667, 3.333, 5
    array([0, 2, 3, 5])
    >>> tfp_quantile_edge_indices(11, 4)  # 2.5 -> 2 and 7.5 -> 8
    array([ 0,  2,  5,  8, 10])
    """
    q = np.linspace(0.0, 100.0, n_bins + 1)
    pos = np.rint(np.float64(n - 1) * (q / 100.0))
    idx = pos.astype(np.intp)
    np.clip(idx, 0, max(n - 1, 0), out=idx)
    return idx


def tfp_quantile_bin_edges(x, n_bins):
    """The ``n_bins + 1`` nearest-rank quantile edges of ``x`` (TFP's rule).

    The edges are order statistics of ``x`` (the first is the minimum, the last the
    maximum), found by one ``np.partition``.
    """
    x = np.asarray(x)
    idx = tfp_quantile_edge_indices(x.shape[0], n_bins)
    part = np.partition(x, np.unique(idx))
    return part[idx]


def tfp_assign_bins(x, edges):
    """TFP's bucket: (index of the first edge strictly greater than ``x``) - 1.

    Bucket ``k`` holds ``edges[k] <= x < edges[k + 1]``; values not below the last edge
    go to the last bucket, which is therefore closed.  Values below the first edge
    (impossible when the edges are quantiles of ``x`` itself) are put in bucket 0.
    """
    n_bins = edges.shape[0] - 1
    b = np.searchsorted(edges, x, side="right")
    b -= 1
    np.clip(b, 0, n_bins - 1, out=b)
    return b
