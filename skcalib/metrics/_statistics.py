"""The sufficient statistics of every streamed calibration number, as one typed object.

:class:`CalibrationStatistics` declares each statistic once: per group (a leading group
axis, one group when nobody asked for groups) the per-bin sums of binary or top-label
calibration, a fine histogram of the binned probabilities (for equal-mass bins), the
class-wise per-bin sums (more than two classes), and the totals of the Brier score, the
log-loss, the correct predictions and the two within-bin totals of the Brier
decomposition.  :func:`chunk_statistics` builds it from one chunk of validated input
(weighted or not, binary or multiclass, with or without group codes); ``merge`` adds
two of them field by field; construction validates every field, so that a state read
from disk cannot produce a wrong number.

The batch metrics and the statistics share their kernels (the per-bin sums of the
binning core, the Brier and log-loss sums of the scoring rules): a streamed number equals
the batch one on the concatenated data by construction, up to the order of
floating-point additions.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, fields

import numpy as np

from .._core._binning import (
    COUNT,
    SUM_PROBA,
    SUM_TRUE,
    SUM_WEIGHT_SQ,
    accumulate_pairs,
    add_classwise_occupied,
    classwise_sums,
    probability_outcome,
    resolve_multiclass,
    uniform_bin_edges,
)
from .._core._validation import PROBA_TOLERANCE
from ._scoring._scoring_rules import _binned_totals, _brier_sum, _log_loss_sum

__all__ = [
    "FINE_CELLS",
    "FINE_EDGES",
    "CalibrationStatistics",
    "chunk_statistics",
    "fine_bin_edges",
    "fine_cell",
]

#: number of cells of the fine histogram and half-width of its log-odds range
FINE_CELLS = 8192
FINE_LOGIT_RANGE = 20.0

#: largest ``n_bins`` and number of classes of a state built from outside data
#: (:meth:`CalibrationStatistics.from_dict`), and largest number of numbers of its
#: tables (groups x classes x bins): a corrupted state cannot allocate without bound
MAX_BINS = 100_000
MAX_CLASSES = 100_000
MAX_TABLE_SIZE = 100_000_000


def fine_bin_edges(n_cells=FINE_CELLS, logit_range=FINE_LOGIT_RANGE):
    r"""Return the edges of the fine histogram behind the streamed equal-mass metrics.

    ``n_cells`` cells of equal width in log-odds between ``-logit_range`` and
    ``logit_range``, plus one cell from 0 and one cell to 1:

    .. math::

        e_0 = 0,\quad e_j = \sigma\Bigl(-L + 2L\,\frac{j - 1}{M}\Bigr)\ (j = 1..M + 1),
        \quad e_{M+2} = 1,

    with :math:`\sigma` the logistic function.  Cells are narrow where probabilities
    crowd: a cell inside the log-odds range spans at most a fraction
    :math:`2L/M` of :math:`p(1 - p)` at any of its points, up to a factor
    :math:`e^{2L/M}` (0.49% by default), so the confidences of an accurate network (many
    above 0.99) are resolved as finely as those near 0.5.  The two end cells are the
    exception: ``[0, sigma(-L)]`` and ``[sigma(L), 1]`` hold every probability within
    :math:`\sigma(-L)` (2.1e-9 by default) of 0 or of 1, however close to the end.

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


FINE_EDGES = fine_bin_edges()
FINE_EDGES.flags.writeable = False

#: cells of the fine histogram (edges + the cell of values above 1 within tolerance)
_N_FINE = FINE_CELLS + 2

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
    np.dtype(np.float64): FINE_EDGES[1:].copy(),
    np.dtype(np.float32): _floor_to(FINE_EDGES[1:], np.dtype(np.float32)),
}
for _edges in _UPPER.values():
    _edges.flags.writeable = False


def fine_cell(x):
    """Cell of :func:`fine_bin_edges` holding each probability (right-closed cells, as
    :func:`~skcalib._core._binning.bin_index_unclipped`; index ``FINE_CELLS + 2`` for
    values above 1 within the rounding tolerance).

    The cells are equal-width in log-odds, so the cell is computed from the log-odds of
    ``x`` (in its dtype, float32 or float64), shifted down by a slack larger than their
    rounding error: the result is then the cell or the one below it, which one exact
    comparison with the upper edge of the cell decides.  12 times faster than a binary
    search (``np.searchsorted``) against the 8,195 edges, which is its test oracle.
    """
    x = np.asarray(x)
    if x.dtype not in _UPPER:
        x = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.subtract(1, x)
        np.divide(x, t, out=t)  # odds: inf at 1, negative above 1
        np.log(t, out=t)  # -inf at 0, NaN above 1
    np.multiply(t, _SCALE, out=t)
    np.add(t, _OFFSET, out=t)
    np.clip(t, 0.0, FINE_CELLS + 1, out=t)
    t[np.isnan(t)] = FINE_CELLS + 1  # above 1: the last cell, moved up below
    cell = t.astype(np.intp)  # truncation: t >= 0
    # the values above the upper edge of their cell: one cell up
    cell += x > np.take(_UPPER[x.dtype], cell, mode="clip")
    return cell


# --------------------------------------------------------------------------------------
# the object
# --------------------------------------------------------------------------------------


def _summed(shape):
    """A field added by :meth:`CalibrationStatistics.merge`; ``shape`` names its axes."""
    return field(metadata={"summed": True, "shape": shape})


#: fields that are weights or sums of non-negative values
_NON_NEGATIVE = (
    "total_weight",
    "n_samples",
    "bins",
    "fine",
    "classwise",
    "brier_sum",
    "log_loss_sum",
    "correct",
    "sum_ff",
    "sum_fo",
)


@dataclass(eq=False)
class CalibrationStatistics:
    """Mergeable sufficient statistics of the streamed calibration metrics, per group.

    Every array has a leading group axis of length ``n_groups``.  The per-bin tables
    hold four rows, as :class:`~skcalib.metrics.BinStats`: the weight (count), the
    weighted sums of the binned probabilities and of the outcomes, and the sum of the
    squared weights.

    Parameters
    ----------
    n_bins : int
        Number of equal-width bins.
    mode : {"binary", "top_label"}
        What ``bins`` and ``fine`` bin: the positive-class probability against the
        positive class, or the largest probability against a correct prediction.
    weighted : bool
        Whether any sample weight was given (the sums of squared weights then differ
        from the counts).
    total_weight : ndarray of shape (n_groups,)
        Total sample weight.
    n_samples : ndarray of shape (n_groups,), int64
        Number of samples.
    bins : ndarray of shape (n_groups, 4, n_bins)
        Per-bin sums of the equal-width bins.
    fine : ndarray of shape (n_groups, 4, FINE_CELLS + 2)
        Per-cell sums of the cells of :func:`fine_bin_edges`.
    classwise : ndarray of shape (n_groups, 4, n_classes, n_bins)
        Per-class, per-bin sums of every class's probability (``n_classes = 0`` for
        binary problems).
    brier_sum, log_loss_sum, correct : ndarray of shape (n_groups,)
        Weighted sums of the per-sample Brier score and log-loss, and the weight of the
        correct top-label predictions.
    sum_ff, sum_fo : ndarray of shape (n_groups,)
        Weighted sums of ``p^2`` and of ``p * outcome`` of the binned probabilities (the
        within-bin terms of the Brier decomposition).

    Raises
    ------
    ValueError
        When a field has the wrong type or shape, is not finite, is negative where it
        sums non-negative values, or contradicts another field (outcome sums above the
        counts, bins that do not add up to the total weight); the message names the
        field.
    """

    n_bins: int
    mode: str
    weighted: bool
    total_weight: np.ndarray = _summed("g")
    n_samples: np.ndarray = _summed("g")
    bins: np.ndarray = _summed("g4b")
    fine: np.ndarray = _summed("g4f")
    classwise: np.ndarray = _summed("g4kb")
    brier_sum: np.ndarray = _summed("g")
    log_loss_sum: np.ndarray = _summed("g")
    correct: np.ndarray = _summed("g")
    sum_ff: np.ndarray = _summed("g")
    sum_fo: np.ndarray = _summed("g")

    def __post_init__(self):
        _check_statistics(self)

    @property
    def n_groups(self):
        """Length of the group axis."""
        return self.total_weight.shape[0]

    @property
    def n_classes(self):
        """Number of classes of the class-wise tables (0 for binary problems)."""
        return self.classwise.shape[2]

    @classmethod
    def summed_fields(cls):
        """Names of the fields that :meth:`merge` adds."""
        return tuple(f.name for f in fields(cls) if f.metadata.get("summed"))

    def merge(self, other):
        """Add the statistics of other data, in place; returns ``self``.

        Parameters
        ----------
        other : CalibrationStatistics
            Statistics with the same ``n_bins``, ``mode``, groups and classes.

        Returns
        -------
        self : CalibrationStatistics
        """
        if not isinstance(other, CalibrationStatistics):
            raise TypeError(f"can only merge CalibrationStatistics, got {type(other).__name__}")
        if (self.n_bins, self.mode) != (other.n_bins, other.mode):
            raise ValueError(
                "cannot combine binary (positive-class) and top-label statistics, or "
                f"statistics of different n_bins: {self.mode!r} with n_bins={self.n_bins} "
                f"and {other.mode!r} with n_bins={other.n_bins}"
            )
        for name in self.summed_fields():
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine.shape != theirs.shape:
                raise ValueError(
                    f"cannot merge statistics whose {name} have shapes {mine.shape} and "
                    f"{theirs.shape} (different groups or classes)"
                )
            mine += theirs
        self.weighted = self.weighted or other.weighted
        return self

    def copy(self):
        """A deep copy (merges add in place)."""
        return CalibrationStatistics(
            n_bins=self.n_bins,
            mode=self.mode,
            weighted=self.weighted,
            **{name: getattr(self, name).copy() for name in self.summed_fields()},
        )

    def group(self, g):
        """The statistics of group ``g`` alone (a one-group object; views, no copy)."""
        return CalibrationStatistics(
            n_bins=self.n_bins,
            mode=self.mode,
            weighted=self.weighted,
            **{name: getattr(self, name)[g : g + 1] for name in self.summed_fields()},
        )

    # ----------------------------------------------------------------------------------
    # serialisation: read from the fields
    # ----------------------------------------------------------------------------------

    def to_dict(self):
        """A JSON-serialisable dict of the fields (arrays as nested lists); the fine
        histogram is stored by its non-empty cells (``fine_cells``, ``fine``)."""
        out = {"n_bins": self.n_bins, "mode": self.mode, "weighted": self.weighted}
        for name in self.summed_fields():
            if name != "fine":
                out[name] = getattr(self, name).tolist()
        cells = np.flatnonzero((self.fine != 0).any(axis=(0, 1)))
        out["fine_cells"] = cells.tolist()
        out["fine"] = self.fine[:, :, cells].tolist()
        return out

    @classmethod
    def from_dict(cls, d):
        """Rebuild from :meth:`to_dict`, validating every field.

        Parameters
        ----------
        d : dict
            The output of :meth:`to_dict`, possibly through JSON.

        Returns
        -------
        CalibrationStatistics

        Raises
        ------
        ValueError
            For any malformed field (see the class), naming it.
        """
        if not isinstance(d, dict):
            raise ValueError(f"statistics must be a dict, got {type(d).__name__}")
        expected = {"n_bins", "mode", "weighted", "fine_cells", *cls.summed_fields()}
        missing = sorted(expected - set(d))
        if missing:
            raise ValueError(f"the statistics lack the fields {missing}")
        unknown = sorted(set(d) - expected)
        if unknown:
            raise ValueError(f"the statistics have unknown fields {unknown}")
        n_bins = _check_int(d["n_bins"], "n_bins", 1, MAX_BINS)
        arrays = {}
        for name in cls.summed_fields():
            if name != "fine":
                arrays[name] = _float_array(d[name], name)
        arrays["n_samples"] = _counts(arrays["n_samples"])
        tw = arrays["total_weight"]
        if tw.ndim != 1 or tw.shape[0] < 1:
            raise ValueError(
                f"total_weight must be a 1-D array with one value per group, got {tw.shape}"
            )
        g = tw.shape
        if arrays["classwise"].shape == (*g, 4, 0):  # no class: JSON loses the bin axis
            arrays["classwise"] = np.zeros((*g, 4, 0, n_bins))
        arrays["fine"] = _dense_fine(d["fine_cells"], d["fine"], arrays["total_weight"].shape)
        return cls(n_bins=n_bins, mode=d["mode"], weighted=d["weighted"], **arrays)


def _check_int(value, name, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")
    return int(value)


def _float_array(values, name):
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers") from None
    if arr.size > MAX_TABLE_SIZE:
        raise ValueError(f"{name} has {arr.size} numbers, more than {MAX_TABLE_SIZE}")
    return arr


def _counts(arr):
    if not np.isfinite(arr).all() or (arr < 0).any() or (arr != np.round(arr)).any():
        raise ValueError("n_samples must hold non-negative integers")
    return arr.astype(np.int64)


def _dense_fine(cells, values, group_shape):
    """The fine histogram whose cells ``cells`` hold ``values``, the others 0."""
    try:
        cells = np.asarray(cells)
    except (TypeError, ValueError):
        raise ValueError("fine_cells must be an array of cell indices") from None
    if cells.ndim != 1 or (cells.size and cells.dtype.kind not in "iu"):
        raise ValueError("fine_cells must be a 1-D array of integer cell indices")
    if cells.size and (cells.min() < 0 or cells.max() >= _N_FINE):
        raise ValueError(f"fine_cells must lie in [0, {_N_FINE}), got {cells.min()}..{cells.max()}")
    if cells.size > 1 and not (np.diff(cells) > 0).all():
        raise ValueError("fine_cells must be strictly increasing (no duplicated cell)")
    values = _float_array(values, "fine")
    want = (*group_shape, 4, cells.size)
    if values.shape != want:
        raise ValueError(f"fine must have shape {want} (groups, 4, fine cells), got {values.shape}")
    fine = np.zeros((*group_shape, 4, _N_FINE))
    fine[:, :, cells] = values
    return fine


def _check_statistics(st):
    """Validate every field of ``st`` (see :class:`CalibrationStatistics`)."""
    _check_int(st.n_bins, "n_bins", 1, MAX_BINS)
    if st.mode not in ("binary", "top_label"):
        raise ValueError(f"mode must be 'binary' or 'top_label', got {st.mode!r}")
    if not isinstance(st.weighted, bool | np.bool_):
        raise ValueError(f"weighted must be a bool, got {st.weighted!r}")
    st.weighted = bool(st.weighted)
    tw = st.total_weight
    if not isinstance(tw, np.ndarray) or tw.ndim != 1 or tw.shape[0] < 1:
        raise ValueError(
            f"total_weight must be a 1-D array with one value per group, got {np.shape(tw)}"
        )
    g = tw.shape[0]
    k = st.classwise.shape[2] if getattr(st.classwise, "ndim", 0) == 4 else None
    if k is None or k > MAX_CLASSES or k == 1 or k == 2:
        raise ValueError(
            "classwise must have shape (groups, 4, n_classes, n_bins) with no class (binary) "
            f"or 3 to {MAX_CLASSES} classes, got {np.shape(st.classwise)}"
        )
    shapes = {
        "g": (g,),
        "g4b": (g, 4, st.n_bins),
        "g4f": (g, 4, _N_FINE),
        "g4kb": (g, 4, k, st.n_bins),
    }
    for f in fields(st):
        if not f.metadata.get("summed"):
            continue
        arr = getattr(st, f.name)
        want = shapes[f.metadata["shape"]]
        if not isinstance(arr, np.ndarray) or arr.shape != want:
            raise ValueError(f"{f.name} must be an array of shape {want}, got {np.shape(arr)}")
        if f.name != "n_samples" and arr.dtype != np.float64:
            raise ValueError(f"{f.name} must be float64, got {arr.dtype}")
        if not np.isfinite(arr).all():
            raise ValueError(f"{f.name} contains NaN or infinity")
    if st.n_samples.dtype != np.int64:
        raise ValueError(f"n_samples must be int64, got {st.n_samples.dtype}")
    for name in _NON_NEGATIVE:
        if (getattr(st, name) < 0).any():
            raise ValueError(f"{name} contains a negative value")
    # consistency: sums of outcomes and of probabilities within the weights
    slack = 1e-9
    top = 1 + PROBA_TOLERANCE
    for name in ("bins", "fine", "classwise"):
        t = getattr(st, name)
        count = t[:, COUNT]
        tol = slack * (count + 1e-300)
        if (t[:, SUM_TRUE] > count + tol).any():
            raise ValueError(f"{name}: a sum of outcomes exceeds its count")
        if (t[:, SUM_PROBA] > top * count + tol).any():
            raise ValueError(f"{name}: a sum of probabilities exceeds its count")
        if not st.weighted and not np.array_equal(t[:, SUM_WEIGHT_SQ], count):
            raise ValueError(f"{name}: unweighted statistics must have sums of squares = counts")
        totals = count.sum(axis=-1)
        if name == "classwise":
            totals = totals.reshape(g, -1) if k else np.broadcast_to(tw[:, None], (g, 0))
        want = tw if name != "classwise" else np.broadcast_to(tw[:, None], totals.shape)
        if not np.allclose(totals, want, rtol=1e-9, atol=1e-300):
            raise ValueError(f"{name}: the counts do not add up to total_weight")
    bound = tw * (1 + slack)
    if (st.correct > bound).any():
        raise ValueError("correct exceeds total_weight")
    if (st.sum_fo > top * bound).any() or (st.sum_ff > top * top * bound).any():
        raise ValueError("sum_ff or sum_fo exceeds what probabilities of that weight can give")
    if ((tw > 0) != (st.n_samples > 0)).any():
        raise ValueError("total_weight and n_samples disagree on which groups have data")


# --------------------------------------------------------------------------------------
# the one kernel
# --------------------------------------------------------------------------------------


def chunk_statistics(data, n_bins, groups=None, n_groups=1, out=None):
    """The statistics of one chunk of validated (numpy) input.

    Parameters
    ----------
    data : ClassificationInput
        Validated labels, probabilities (values checked) and weights.
    n_bins : int
        Number of equal-width bins.
    groups : ndarray of shape (n_samples,) of ints in ``[0, n_groups)``, default=None
        The group of each sample; None: one group.
    n_groups : int, default=1
        Length of the group axis.
    out : CalibrationStatistics, default=None
        Statistics of ``n_bins``, the mode and classes of ``data`` and ``n_groups``
        groups to add the statistics of the chunk into, in place (as ``out.merge``
        of them would).  With groups (or ``out``), the per-bin tables are added at the
        (group, bin) cells the rows occupy only, so that the cost of a chunk is
        proportional to its rows, not to ``n_groups`` times the cells of a group.

    Returns
    -------
    CalibrationStatistics
        ``out`` when given.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib._core._validation import check_classification_input
    >>> data = check_classification_input(np.array([0, 1, 1]), np.array([0.2, 0.7, 0.9]))
    >>> st = chunk_statistics(data, 5, groups=np.array([0, 1, 1]), n_groups=3)
    >>> st.n_samples.tolist()
    [1, 2, 0]
    >>> chunk_statistics(data, 5, groups=np.array([2, 2, 2]), n_groups=3, out=st) is st
    True
    >>> st.n_samples.tolist(), st.bins[2, 0].tolist()
    ([1, 2, 3], [1.0, 0.0, 0.0, 1.0, 1.0])
    """
    mode = resolve_multiclass("auto", data)
    sw = data.sample_weight
    grouping = {} if groups is None else {"groups": groups, "n_groups": n_groups}
    conf, outcome = probability_outcome(data, mode)
    if mode == "top_label":
        correct = outcome
    else:
        correct = probability_outcome(data, "top_label")[1]
    if out is not None or groups is not None:
        return _add_chunk(data, n_bins, mode, conf, outcome, correct, groups, n_groups, out)
    bins = accumulate_pairs(conf, outcome, sw, uniform_bin_edges(n_bins), **grouping)
    fine = accumulate_pairs(conf, outcome, sw, FINE_EDGES, bin_index=fine_cell, **grouping)
    if groups is None:
        bins, fine = bins[:, None], fine[:, None]
        n = np.array([data.n_samples], dtype=np.int64)
        total = np.array([float(data.n_samples if sw is None else sw.sum())])
        ok = np.array([float(np.count_nonzero(correct) if sw is None else np.dot(correct, sw))])
    else:
        n = np.bincount(groups, minlength=n_groups).astype(np.int64)
        total = n.astype(np.float64) if sw is None else np.bincount(groups, sw, n_groups)
        ok = np.bincount(groups[correct], None if sw is None else sw[correct], n_groups)
    k = data.n_classes
    if k > 2:
        classwise = _classwise_tables(data, n_bins, groups, n.shape[0])
    else:
        classwise = np.zeros((n.shape[0], 4, 0, n_bins))
    brier = _brier_sum(data, **grouping)
    log_loss = _log_loss_sum(data, "auto", **grouping)
    ff, fo = _binned_totals(data, **grouping)
    return CalibrationStatistics(
        n_bins=n_bins,
        mode=mode,
        weighted=sw is not None,
        total_weight=np.asarray(total, dtype=np.float64),
        n_samples=n,
        bins=np.ascontiguousarray(np.moveaxis(bins, 0, 1)),
        fine=np.ascontiguousarray(np.moveaxis(fine, 0, 1)),
        classwise=classwise,
        brier_sum=np.atleast_1d(np.asarray(brier, dtype=np.float64)),
        log_loss_sum=np.atleast_1d(np.asarray(log_loss, dtype=np.float64)),
        correct=np.asarray(ok, dtype=np.float64),
        sum_ff=np.atleast_1d(np.asarray(ff, dtype=np.float64)),
        sum_fo=np.atleast_1d(np.asarray(fo, dtype=np.float64)),
    )


def _empty_statistics(n_bins, mode, weighted, n_groups, n_classes):
    """All-zero statistics (valid by construction, so not validated: the check would
    read every cell of every group)."""
    st = object.__new__(CalibrationStatistics)
    g = (n_groups,)
    st.__dict__.update(
        n_bins=n_bins,
        mode=mode,
        weighted=weighted,
        total_weight=np.zeros(g),
        n_samples=np.zeros(g, dtype=np.int64),
        bins=np.zeros((*g, 4, n_bins)),
        fine=np.zeros((*g, 4, _N_FINE)),
        classwise=np.zeros((*g, 4, n_classes, n_bins)),
        brier_sum=np.zeros(g),
        log_loss_sum=np.zeros(g),
        correct=np.zeros(g),
        sum_ff=np.zeros(g),
        sum_fo=np.zeros(g),
    )
    return st


def _add_chunk(data, n_bins, mode, conf, outcome, correct, groups, n_groups, out):
    """:func:`chunk_statistics` added into ``out`` (new zero statistics when None) at
    the occupied cells only (``accumulate_pairs(out=)``)."""
    sw = data.sample_weight
    k = data.n_classes if data.n_classes > 2 else 0
    if groups is None:
        groups, n_groups = np.zeros(data.n_samples, dtype=np.intp), 1
    if out is None:
        out = _empty_statistics(n_bins, mode, sw is not None, n_groups, k)
    elif (out.n_bins, out.mode, out.n_groups, out.n_classes) != (n_bins, mode, n_groups, k):
        raise ValueError(
            f"out holds statistics of n_bins={out.n_bins}, mode {out.mode!r}, "
            f"{out.n_groups} groups and {out.n_classes} classes; the chunk has n_bins="
            f"{n_bins}, mode {mode!r}, {n_groups} groups and {k} classes"
        )
    accumulate_pairs(conf, outcome, sw, uniform_bin_edges(n_bins), groups=groups, out=out.bins)
    accumulate_pairs(
        conf, outcome, sw, FINE_EDGES, bin_index=fine_cell, groups=groups, out=out.fine
    )
    if k:
        add_classwise_occupied(out.classwise, data, uniform_bin_edges(n_bins), groups)
    n = np.bincount(groups, minlength=n_groups)
    out.n_samples += n
    out.total_weight += n if sw is None else np.bincount(groups, sw, n_groups)
    out.correct += np.bincount(groups[correct], None if sw is None else sw[correct], n_groups)
    grouping = {"groups": groups, "n_groups": n_groups}
    out.brier_sum += _brier_sum(data, **grouping)
    out.log_loss_sum += _log_loss_sum(data, "auto", **grouping)
    ff, fo = _binned_totals(data, **grouping)
    out.sum_ff += ff
    out.sum_fo += fo
    out.weighted = out.weighted or sw is not None
    return out


def _classwise_tables(data, n_bins, groups, n_groups):
    """Per-group, per-class, per-bin sums (n_groups, 4, n_classes, n_bins), by the
    class-wise kernel of the batch metrics with the combined (group, class, bin) index."""
    sums = classwise_sums(data, uniform_bin_edges(n_bins), groups, n_groups)
    return np.ascontiguousarray(np.moveaxis(sums, 0, 1))
