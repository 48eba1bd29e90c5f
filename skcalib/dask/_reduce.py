"""The tasks of the Dask reductions: a block of rows -> partial statistics -> merged.

A block (a block of rows of Dask arrays, a partition of a Dask DataFrame) is validated
as the batch metrics validate and turned into the core's statistics by the one kernel,
:func:`~skcalib.metrics._statistics.chunk_statistics` (with group codes when the rows
are grouped: one counting pass fills every group).  The statistics travel as a small
:class:`Partial`, which also carries what a block knows of the classes and of the group
keys, so that both are found in the same pass as the statistics:

* **classes**: with ``labels``, every block is validated against them.  Without them (a
  binary problem), a block holding both classes fixes them; a block holding a single
  label ``v`` cannot tell whether ``v`` is the first or the second of the two classes,
  so it keeps the statistics of both cases (``v`` coded 0, ``v`` coded 1, with the
  positive class placed accordingly), and the merge keeps the one that the other blocks
  decide.  The labels seen are validated when they are combined (the batch metrics'
  checks and messages, run on the distinct labels alone).
* **group keys**: each block codes the keys it holds (its own codes); merging takes the
  sorted union of the keys of its inputs and adds each input's statistics at the
  positions of its keys in the union.  No pass over the key columns comes first, and
  the codes of the result are those of the sorted keys.

A block without rows, or whose sample weights are all zero, adds nothing (as in
:meth:`~skcalib.streaming.CalibrationAccumulator.update`); the rows of a group whose
weights in a block are all zero are left out of that block's statistics likewise.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from .._core._validation import _to_numpy, check_classification_input
from ..metrics._statistics import CalibrationStatistics, chunk_statistics
from ..streaming import CalibrationAccumulator
from ..streaming._accumulator import _all_zero, _same_classes

__all__ = [
    "Partial",
    "Problem",
    "block_partial",
    "finish",
    "merge_grouped",
    "merge_partials",
    "partition_partial",
    "reduce_items",
]


@dataclasses.dataclass(frozen=True)
class Problem:
    """What every task needs to know: the accumulator's settings and the input's shape."""

    n_bins: int
    labels: object  # validated classes, or None (a binary problem: found from the data)
    pos_label: object
    ndim: int  # of y_proba
    n_columns: int

    def accumulator(self):
        return CalibrationAccumulator(
            n_bins=self.n_bins, labels=self.labels, pos_label=self.pos_label
        )


class Partial:
    """Statistics of some blocks, with their classes and group keys.

    ``classes`` and ``pos_index``: the classes once known (None while every row seen has
    the one label ``only``: then ``stats`` are the statistics with ``only`` coded 0 and
    ``alt`` with ``only`` coded 1).  ``keys``: the group key of each entry of the group
    axis (None without groups).  ``stats`` is None when no row had weight.
    """

    __slots__ = ("alt", "classes", "keys", "only", "pos_index", "stats")

    def __init__(self, *, classes=None, pos_index=None, only=None, keys=None, stats, alt=None):
        self.classes = classes
        self.pos_index = pos_index
        self.only = only
        self.keys = keys
        self.stats = stats
        self.alt = alt

    def __getstate__(self):
        # Dask moves partials between processes as pickles: the fine histogram (8,194
        # cells a group) travels by its non-empty cells
        state = {name: getattr(self, name) for name in self.__slots__}
        state["stats"], state["alt"] = _pack(self.stats), _pack(self.alt)
        return state

    def __setstate__(self, state):
        for name in self.__slots__:
            setattr(self, name, state[name])
        self.stats, self.alt = _unpack(self.stats), _unpack(self.alt)


def _pack(st):
    if st is None:
        return None
    fields = {name: getattr(st, name) for name in st.summed_fields()}
    cells = np.flatnonzero(st.fine.any(axis=(0, 1)))
    fields["fine"] = (st.fine.shape, cells, st.fine[:, :, cells])
    return st.n_bins, st.mode, st.weighted, fields


def _unpack(packed):
    if packed is None:
        return None
    n_bins, mode, weighted, fields = packed
    shape, cells, values = fields["fine"]
    fine = np.zeros(shape)
    fine[:, :, cells] = values
    fields = {**fields, "fine": fine}
    return CalibrationStatistics(n_bins=n_bins, mode=mode, weighted=weighted, **fields)


# --------------------------------------------------------------------------------------
# one block
# --------------------------------------------------------------------------------------


def _single_label(y):
    """The label of a 1-D ``y`` holding one distinct value, else None."""
    if y.ndim != 1 or y.shape[0] == 0:
        return None
    try:
        u = np.unique(y)
    except TypeError:  # unorderable labels: the validation says what is wrong
        return None
    return u[0] if u.shape[0] == 1 else None


def _positive_index(problem, only, j):
    """Index of the positive class when ``only`` is class ``j`` of two sorted classes."""
    if problem.ndim == 2 and problem.pos_label is None:
        return 1  # the greater class
    pos = problem.pos_label
    if pos is None:  # 1-D: the positive class is 1 (True for booleans)
        pos = True if np.asarray(only).dtype.kind == "b" else 1
    return j if only == pos else 1 - j


def _statistics(data, n_bins, codes, n_groups):
    """``chunk_statistics`` of validated data, the rows of weightless groups left out."""
    if codes is None:
        return chunk_statistics(data, n_bins)
    sw = data.sample_weight
    if sw is not None:
        keep = (np.bincount(codes, sw, n_groups) > 0)[codes]
        if not keep.all():
            codes = codes[keep]
            data = dataclasses.replace(
                data, y=data.y[keep], proba=data.proba[keep], sample_weight=sw[keep]
            )
    return chunk_statistics(data, n_bins, groups=codes, n_groups=n_groups)


def block_partial(problem, y_true, y_proba, sample_weight=None, codes=None, keys=None):
    """The :class:`Partial` of one block of rows (None for a block without rows).

    ``codes``: the group (an index into ``keys``) of each row, or None.
    """
    y = _to_numpy(y_true, "y_true")
    P = _to_numpy(y_proba, "y_proba")
    if y.ndim >= 1 and y.shape[0] == 0 and P.ndim >= 1 and P.shape[0] == 0:
        return None
    zero = _all_zero(sample_weight, y.shape[0] if y.ndim == 1 else -1)
    weights = None if zero else sample_weight
    n_groups = None if keys is None else len(keys)
    only = None if problem.labels is not None else _single_label(y)
    if only is None:
        data = check_classification_input(
            y, P, sample_weight=weights, labels=problem.labels, pos_label=problem.pos_label
        )
        stats = None if zero else _statistics(data, problem.n_bins, codes, n_groups)
        return Partial(classes=data.classes, pos_index=data.pos_index, keys=keys, stats=stats)
    cases = []
    for j in (0, 1):  # ``only`` is the first, or the second, of the two classes
        data = check_classification_input(
            np.full(y.shape[0], j),
            P,
            sample_weight=weights,
            labels=np.array([0, 1]),
            pos_label=_positive_index(problem, only, j),
        )
        cases.append(None if zero else _statistics(data, problem.n_bins, codes, n_groups))
    return Partial(only=only, keys=keys, stats=cases[0], alt=cases[1])


def _key(value):
    """A group key as a Python value; every null (None, NaN, NA, NaT) is None."""
    import pandas as pd

    if value is None or (np.ndim(value) == 0 and pd.isna(value)):
        return None
    return _py(value)


def group_codes(frame, by):
    """``(codes, keys)`` of the rows of a pandas frame grouped by the column ``by`` (a
    key is its value) or the columns ``by`` (a list: a key is a tuple of values)."""
    import pandas as pd

    cols = [by] if not isinstance(by, list) else by
    combined, per_column = None, []
    for c in cols:
        codes, values = pd.factorize(frame[c], use_na_sentinel=False)
        per_column.append((codes, values))
        # codes of the combinations seen so far, kept below the number of rows
        combined = codes if combined is None else pd.factorize(combined * len(values) + codes)[0]
    combined = np.asarray(combined, dtype=np.intp)
    _, first = np.unique(combined, return_index=True)
    keys = []
    for row in first:
        key = tuple(_key(values[codes[row]]) for codes, values in per_column)
        keys.append(key if isinstance(by, list) else key[0])
    return combined, keys


def partition_partial(frame, *, problem, label_col, proba_cols, weight_col, by):
    """The :class:`Partial` of a pandas partition (None without rows)."""
    if len(frame) == 0:
        return None
    codes, keys = (None, None) if by is None else group_codes(frame, by)
    w = None if weight_col is None else frame[weight_col].to_numpy()
    P = frame[proba_cols].to_numpy()
    return block_partial(problem, frame[label_col].to_numpy(), P, w, codes, keys)


# --------------------------------------------------------------------------------------
# merging
# --------------------------------------------------------------------------------------


def _union(arrays):
    """The labels of ``arrays`` in one array (an object array when their kinds differ,
    so that the validation sees the mix rather than numbers turned into strings)."""
    arrays = [np.asarray(a) for a in arrays]
    numeric = all(a.dtype.kind in "biuf" for a in arrays)
    if numeric or len({a.dtype.kind for a in arrays}) == 1:
        return np.concatenate(arrays)
    return np.concatenate([a.astype(object) for a in arrays])


def _classes_of(problem, labels):
    """``(classes, pos_index)`` of data holding ``labels`` (the batch metrics' rule and
    errors, run on the distinct labels with placeholder probabilities)."""
    m = labels.shape[0]
    shape = (m,) if problem.ndim == 1 else (m, problem.n_columns)
    placeholder = np.full(shape, 1.0 / (2 if problem.ndim == 1 else problem.n_columns))
    data = check_classification_input(
        labels, placeholder, labels=problem.labels, pos_label=problem.pos_label
    )
    return data.classes, data.pos_index


def _py(value):
    return value.item() if isinstance(value, np.generic) else value


def _index_in(classes, value):
    hits = [i for i, c in enumerate(classes.tolist()) if c == _py(value)]
    return hits[0] if hits else None


def _resolve(problem, parts):
    """``(classes, pos_index, [statistics of each part])``; classes None when every
    part still holds the one same label (then the statistics are pairs of cases)."""
    known = [p for p in parts if p.classes is not None]
    singles = [p.only for p in parts if p.classes is None]
    if not known and len({_py(v) for v in singles}) == 1:
        return None, None, [(p.stats, p.alt) for p in parts]
    if known:
        classes, pos_index = known[0].classes, known[0].pos_index
        clash = any(not _same_classes(classes, p.classes) for p in known[1:])
        clash = clash or any(_index_in(classes, v) is None for v in singles)
    if not known or clash:
        labels = _union([*(p.classes for p in known), *(np.asarray([v]) for v in singles)])
        classes, pos_index = _classes_of(problem, labels)  # raises for a mix of labels
    chosen = []
    for p in parts:
        if p.classes is not None:
            chosen.append(p.stats)
        else:
            chosen.append(p.alt if _index_in(classes, p.only) == 1 else p.stats)
    return classes, pos_index, chosen


def _sort_key(key):
    """Order of group keys: by value, nulls last; values of unorderable types apart."""

    def one(v):
        kind = "number" if isinstance(v, numbers.Number) else type(v).__name__
        return (v is None, kind, v) if v is not None else (True, "", 0)

    return tuple(one(v) for v in key) if isinstance(key, tuple) else one(key)


def merge_grouped(items):
    """``(keys, statistics)`` of ``[(keys, statistics)]`` (statistics may be None)."""
    present = [(k, s) for k, s in items if s is not None]
    keys = None
    if items[0][0] is not None:
        keys = sorted({k for ks, _ in items for k in ks}, key=_sort_key)
    if not present:
        return keys, None
    first = present[0][1]
    if keys is None or all(ks == keys for ks, _ in present):
        out = first.copy()
        for _, s in present[1:]:
            out.merge(s)
        return keys, out
    position = {k: i for i, k in enumerate(keys)}
    fields = {}
    for name in CalibrationStatistics.summed_fields():
        shape = (len(keys), *getattr(first, name).shape[1:])
        out = np.zeros(shape, dtype=getattr(first, name).dtype)
        for ks, s in present:
            out[[position[k] for k in ks]] += getattr(s, name)
        fields[name] = out
    weighted = any(s.weighted for _, s in present)
    return keys, CalibrationStatistics(
        n_bins=first.n_bins, mode=first.mode, weighted=weighted, **fields
    )


def merge_partials(parts, problem):
    """One :class:`Partial` of a list of them (None entries: blocks without rows)."""
    parts = [p for p in _as_list(parts) if p is not None]
    if not parts:
        return None
    classes, pos_index, chosen = _resolve(problem, parts)
    if classes is None:  # one label so far: both cases merged
        keys, stats = merge_grouped([(p.keys, s) for p, (s, _) in zip(parts, chosen, strict=True)])
        _, alt = merge_grouped([(p.keys, a) for p, (_, a) in zip(parts, chosen, strict=True)])
        return Partial(only=parts[0].only, keys=keys, stats=stats, alt=alt)
    keys, stats = merge_grouped([(p.keys, s) for p, s in zip(parts, chosen, strict=True)])
    return Partial(classes=classes, pos_index=pos_index, keys=keys, stats=stats)


def _as_list(parts):
    """The partials handed to a merge: a list (arrays), or a pandas Series of them (the
    concatenated results of a DataFrame reduction)."""
    return parts.tolist() if hasattr(parts, "tolist") else list(parts)


def _accumulator(problem, classes, pos_index, stats, *, copy=False):
    acc = problem.accumulator()
    if stats is not None and int(stats.n_samples.sum()) > 0:
        acc._add(stats, classes, pos_index, copy=copy)
    elif acc.classes_ is None:
        acc.classes_ = classes
    return acc


def finish(parts, problem, grouped):
    """The accumulator of all the rows (``{key: accumulator}`` in key order when
    ``grouped``), from the partials of the last level of the tree."""
    part = merge_partials(parts, problem)
    if part is None:
        return {} if grouped else problem.accumulator()
    if part.classes is None:  # every row has one label: the batch rule places it
        classes, pos_index = _classes_of(problem, np.asarray([part.only]))
        stats = part.alt if _index_in(classes, part.only) == 1 else part.stats
    else:
        classes, pos_index, stats = part.classes, part.pos_index, part.stats
    if not grouped:
        return _accumulator(problem, classes, pos_index, stats)
    return {
        key: _accumulator(
            problem, classes, pos_index, None if stats is None else stats.group(g), copy=True
        )
        for g, key in enumerate(part.keys)
    }


# --------------------------------------------------------------------------------------
# a sequence of items (the row groups of a Parquet dataset)
# --------------------------------------------------------------------------------------


def _leaves(partition, leaf, merge):
    """A bag partition of items -> a partition holding their one merged result."""
    return [merge([leaf(item) for item in partition])]


def _single(partition):
    (result,) = partition
    return result


def reduce_items(items, leaf, merge, *, client, done=None, split_every=8):
    """``merge([leaf(item) for item in items])``, computed on a Dask cluster.

    One task per item runs ``leaf`` on a worker, and Dask's tree reduction
    (``dask.bag.Bag.reduction``) merges the results ``split_every`` at a time, in item
    order; only the root travels to the client.

    Parameters
    ----------
    items : list
        Picklable descriptions of the work (e.g. a file and a row group).
    leaf : callable
        ``leaf(item)``: the partial result of an item (run on a worker).
    merge : callable
        ``merge(list of partial results, in item order)``: one partial result; it must
        leave its inputs unchanged.
    client : distributed.Client
    done : callable, default=None
        ``done(i)`` is called on the client when the leaf of ``items[i]`` is computed.
    split_every : int, default=8
        Fan-in of the tree.

    Returns
    -------
    object
        The merged result (``merge([])`` without items).

    Raises
    ------
    Exception
        The error of the first failed leaf in item order.
    """
    import dask.bag as db
    from distributed import as_completed, futures_of

    if not items:
        return merge([])
    bag = db.from_sequence(items, npartitions=len(items))
    bag = client.persist(bag.map_partitions(_leaves, leaf, merge))
    futures = sorted(futures_of(bag), key=lambda f: f.key[1])
    try:
        for future in as_completed(futures):
            if done is not None and future.status == "finished":
                done(future.key[1])
        for future in futures:
            if future.status != "finished":
                future.result()  # the first error in item order
        total = bag.reduction(_single, merge, split_every=split_every)
        return client.compute(total).result()
    finally:
        client.cancel(futures)
