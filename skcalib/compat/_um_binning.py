"""Binning rules of Google's ``uncertainty_metrics`` 0.0.82 (NumPy backend).

skcalib bins with one rule everywhere (:mod:`skcalib.metrics`: right-closed bins
``e_m < p <= e_{m+1}`` on the edges ``k / n_bins``, ``p = 0`` in the first bin and
``p = 1`` in the last one).  uncertainty_metrics, whose published numbers
:mod:`skcalib.compat.uncertainty_metrics` reproduces, uses a *different* rule.  It is
implemented here, and only here, as edge and bin-assignment functions; the per-bin
accumulation (count, sum of probabilities, sum of outcomes) is a weighted
``np.bincount`` that produces the same :class:`~skcalib.metrics.BinStats` type as the
binning core.  Nothing in :mod:`skcalib.metrics` uses this rule.

The rule (``"even"`` and ``"adaptive"``)
-----------------------------------------
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
"""

from __future__ import annotations

import numpy as np

from ..metrics import BinStats

__all__ = [
    "um_even_upper_edges",
    "um_adaptive_upper_edges",
    "um_assign_bins",
    "um_bin_stats",
]


def um_even_upper_edges(n_bins):
    """Upper edges of uncertainty_metrics' ``"even"`` bins: ``linspace(0, 1, M + 1)[1:]``.

    This is ``np.histogram_bin_edges([], bins=M, range=(0, 1))[1:]``, as the reference
    computes them.

    Examples
    --------
    >>> from skcalib.compat._um_binning import um_even_upper_edges
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
    >>> from skcalib.compat._um_binning import um_adaptive_upper_edges
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
