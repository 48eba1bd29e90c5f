"""The calibration statistics of Dask collections, by Dask's own tree reductions.

Dask arrays go through :func:`dask.array.reduction`, Dask DataFrames through
``DataFrame.reduction``: each block of rows (a block of the arrays, a partition) becomes
the core's statistics on the worker that holds it (:mod:`skcalib.dask._reduce`), the
statistics are merged in a tree of fan-in :data:`SPLIT_EVERY`, and only the root
travels to the client.  Merging is exact and associative, so the result is the
accumulator of all the rows, whatever the chunking, up to the order of floating-point
additions.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ..streaming import CalibrationAccumulator
from ._reduce import Problem, block_partial, finish, merge_partials, partition_partial

__all__ = ["accumulate", "accumulate_dataframe"]

#: number of partial statistics merged by one task of the tree
SPLIT_EVERY = 8

#: rows per chunk when a NumPy input is wrapped in a Dask array
NUMPY_CHUNK_ROWS = 1 << 20

#: the keyword arguments of CalibrationAccumulator
ACCUMULATOR_PARAMS = ("n_bins", "labels", "pos_label")


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - the test extra installs dask
        raise ImportError(
            "skcalib.dask needs dask: pip install 'skcalib[dask]' "
            "(dask[array,dataframe] and distributed)"
        ) from exc
    return dask, da


def _dask_dataframe():
    try:
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - the test extra installs dask
        raise ImportError(
            "accumulate_dataframe needs dask.dataframe: pip install 'skcalib[dask]'"
        ) from exc
    return dd


# --------------------------------------------------------------------------------------
# checks (on the client)
# --------------------------------------------------------------------------------------


def _accumulator_params(params):
    unknown = sorted(set(params) - set(ACCUMULATOR_PARAMS))
    if unknown:
        raise ValueError(
            f"unknown accumulator parameter {unknown[0]!r}; CalibrationAccumulator takes "
            f"{', '.join(ACCUMULATOR_PARAMS)}"
        )
    return CalibrationAccumulator(**params)  # validates n_bins and labels


def _problem(acc, n_columns, ndim):
    """The :class:`~skcalib.dask._reduce.Problem` of an empty accumulator and the shape
    of ``y_proba``."""
    _check_classes(acc.labels, n_columns, ndim)
    return Problem(
        n_bins=acc.n_bins,
        labels=acc.labels,
        pos_label=acc.pos_label,
        ndim=ndim,
        n_columns=n_columns,
    )


def _check_classes(labels, n_columns, ndim):
    """Raise for a multiclass problem without ``labels`` or with a wrong number of them."""
    if ndim == 2 and n_columns > 2 and labels is None:
        raise ValueError(
            f"labels is required for {n_columns} classes: a chunk rarely holds every class, "
            "so the classes cannot be read from the labels of each chunk; pass labels= "
            "(the classes in column order, e.g. the classes_ of the model)"
        )
    if ndim == 2 and labels is not None and len(labels) != n_columns:
        raise ValueError(
            f"labels has {len(labels)} classes but there are {n_columns} probability columns"
        )


# --------------------------------------------------------------------------------------
# the tasks of dask.array.reduction
# --------------------------------------------------------------------------------------


def _pack(y, P, w=None):
    """The blocks of one row chunk as the one element of an object block (fused with
    :func:`_chunk` into one task)."""
    out = np.empty(1, dtype=object)
    out[0] = (y, P, w)
    return out


def _chunk(block, axis, keepdims, problem):
    if block.size == 0:  # dask's metadata probe
        return None
    return block_partial(problem, *block[0])


def _combine(parts, axis, keepdims, problem):
    return merge_partials(parts, problem)


def _aggregate(parts, axis, keepdims, problem):
    return finish(parts, problem, grouped=False)


def _known(chunks):
    return not any(np.isnan(c) for c in chunks)


def _as_dask_array(da, x, name, rows, n_rows):
    """``x`` as a Dask array whose row chunks are ``rows`` (rechunked or wrapped)."""
    if not isinstance(x, da.Array):
        x = np.asarray(x)
        if x.ndim == 0:
            raise ValueError(f"{name} must be an array, got a scalar")
        if not _known(rows):
            raise ValueError(
                f"{name} is a NumPy array but the row chunks of the Dask input have unknown "
                "sizes: call compute_chunk_sizes() on it first"
            )
        chunks = (tuple(int(c) for c in rows),) + tuple((s,) for s in x.shape[1:])
        if x.shape[0] != n_rows:
            raise ValueError(f"{name} has {x.shape[0]} rows, expected {n_rows}")
        return da.from_array(x, chunks=chunks)
    if not _known(x.chunks[0]) or not _known(rows):
        if len(x.chunks[0]) != len(rows):
            raise ValueError(
                f"{name} has {len(x.chunks[0])} row chunks and y_proba has {len(rows)}, "
                "of unknown sizes, so they cannot be aligned: call compute_chunk_sizes() on "
                "both (or build them from one DataFrame, or use accumulate_dataframe)"
            )
        return x  # same number of chunks: each chunk is checked on its worker
    if x.shape[0] != n_rows:
        raise ValueError(f"{name} has {x.shape[0]} rows, expected {n_rows}")
    if x.chunks[0] != tuple(rows):
        x = x.rechunk({0: tuple(rows)})
    return x


# --------------------------------------------------------------------------------------
# public
# --------------------------------------------------------------------------------------


def accumulate(y_true, y_proba, *, sample_weight=None, **accumulator_params):
    r"""Accumulate the calibration statistics of Dask arrays, by a Dask tree reduction.

    Each block of rows is validated as the batch metrics validate it and turned into
    the statistics of :class:`~skcalib.streaming.CalibrationAccumulator` on the worker
    holding it; :func:`dask.array.reduction` merges them in a tree of fan-in 8 and only
    the root travels (``O(n_bins x n_classes)`` numbers and a fine histogram), never
    predictions.  Merging adds the statistics,

    .. math::

        S(B_1 \cup \dots \cup B_m) = \sum_{i=1}^m S(B_i),

    so :meth:`~skcalib.streaming.CalibrationAccumulator.compute` gives the numbers of
    the batch metrics on the whole arrays, whatever the chunking (up to the order of
    floating-point additions).

    Parameters
    ----------
    y_true : dask array of shape (n_samples,)
        True labels.  Rechunked to the row chunks of ``y_proba`` when they differ.
    y_proba : dask array of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities, chunked along the rows only: the class axis must be one
        chunk (``y_proba.rechunk({1: -1})``).  1-D: probability of the positive class.
    sample_weight : dask array of shape (n_samples,), default=None
        Sample weights, rechunked as ``y_true``.  A block whose weights are all zero
        adds nothing.
    **accumulator_params
        ``n_bins``, ``labels``, ``pos_label`` of
        :class:`~skcalib.streaming.CalibrationAccumulator`.  ``labels`` is required
        for more than two classes.  For two classes without it, the classes are found
        in the same pass as the statistics (see Notes).

    Returns
    -------
    CalibrationAccumulator
        The accumulator of all the rows.

    See Also
    --------
    accumulate_dataframe : The same for the columns of a Dask DataFrame, per group.
    skcalib.streaming.CalibrationAccumulator : The statistics of one process.

    Notes
    -----
    Without ``labels``, a block holding both classes of a binary problem fixes them; a
    block holding one label keeps its statistics for both places that label can take
    among the two sorted classes (twice the work for such blocks), and the merge keeps
    the one the other blocks decide.  Labels that cannot be the classes of the batch
    metrics (three of them, a mix of types, ``{2, 3}`` with a 1-D ``y_proba`` and no
    ``pos_label``) raise the batch metrics' ValueError when the tree meets them.

    NumPy arrays are accepted too (wrapped in Dask arrays of ``2**20`` rows per chunk,
    or chunked as the Dask inputs).  With unknown chunk sizes (arrays made from
    DataFrames), the three arrays must have the same number of chunks; each chunk is
    then checked on its worker.  The computation runs on the current Dask scheduler:
    the ``distributed.Client`` created last, or the one set with ``dask.config.set``.

    References
    ----------
    .. [1] Dask Development Team, "dask.array.reduction", Dask documentation,
       https://docs.dask.org/en/stable/generated/dask.array.reduction.html

    Examples
    --------
    >>> import dask
    >>> import dask.array as da
    >>> from skcalib.dask import accumulate
    >>> from skcalib.metrics import expected_calibration_error
    >>> y = da.from_array([0, 1, 1, 0, 1], chunks=2)
    >>> p = da.from_array([0.1, 0.8, 0.6, 0.4, 0.9], chunks=3)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     acc = accumulate(y, p, n_bins=2)
    >>> acc
    CalibrationAccumulator(n_bins=2, n_samples_=5)
    >>> acc.compute()["expected_calibration_error"]
    0.24
    >>> expected_calibration_error([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.9], n_bins=2)
    0.24
    """
    dask, da = _dask()
    empty = _accumulator_params(accumulator_params)
    for name, x in (("y_true", y_true), ("y_proba", y_proba), ("sample_weight", sample_weight)):
        if dask.is_dask_collection(x) and not isinstance(x, da.Array):
            raise ValueError(
                f"{name} is a {type(x).__name__}, not a Dask array: use accumulate_dataframe "
                "for DataFrames, or convert it with .to_dask_array(lengths=True)"
            )
    ref = next(
        (x for x in (y_proba, y_true, sample_weight) if isinstance(x, da.Array)),
        None,
    )
    P = y_proba if isinstance(y_proba, da.Array) else np.asarray(y_proba)
    if P.ndim not in (1, 2):
        raise ValueError(f"y_proba must be 1-D or 2-D, got {P.ndim} dimensions")
    if ref is None:
        n = P.shape[0]
        rows = tuple(min(NUMPY_CHUNK_ROWS, n - i) for i in range(0, n, NUMPY_CHUNK_ROWS)) or (0,)
    else:
        rows = ref.chunks[0]
    n_rows = P.shape[0] if ref is None or ref is P else ref.shape[0]
    P = _as_dask_array(da, P, "y_proba", rows, n_rows)
    if P.ndim == 2 and len(P.chunks[1]) > 1:
        raise ValueError(
            f"y_proba is split along the class axis into {len(P.chunks[1])} chunks "
            f"{P.chunks[1]}; each chunk must hold whole rows: y_proba.rechunk({{1: -1}})"
        )
    y = _as_dask_array(da, y_true, "y_true", rows, n_rows)
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y.shape}")
    args = [y, "i", P, "ij" if P.ndim == 2 else "i"]
    if sample_weight is not None:
        w = _as_dask_array(da, sample_weight, "sample_weight", rows, n_rows)
        if w.ndim != 1:
            raise ValueError(f"sample_weight must be 1-D, got shape {w.shape}")
        args += [w, "i"]
    problem = _problem(empty, P.shape[1] if P.ndim == 2 else 1, P.ndim)
    # one object element per row chunk: (y, P, w) blocks, which the reduction's chunk
    # function turns into statistics (the two blockwise steps fuse into one task)
    blocks = da.blockwise(
        _pack,
        "i",
        *args,
        concatenate=True,
        align_arrays=False,
        adjust_chunks={"i": 1},
        dtype=object,
        meta=np.empty((0,), dtype=object),
    )
    total = da.reduction(
        blocks,
        chunk=functools.partial(_chunk, problem=problem),
        combine=functools.partial(_combine, problem=problem),
        aggregate=functools.partial(_aggregate, problem=problem),
        axis=0,
        keepdims=False,
        concatenate=False,
        split_every=SPLIT_EVERY,
        dtype=object,
        meta=np.empty((), dtype=object),
        name="skcalib-accumulate",
    )
    return total.compute()


def _check_column(columns, name, value, *, reserved=()):
    if not isinstance(value, str) and not isinstance(value, numbers.Number):
        raise ValueError(f"{name} must be a column name, got {type(value).__name__}")
    if value not in columns:
        shown = ", ".join(repr(c) for c in columns)
        raise ValueError(f"{name}={value!r} is not a column of df; the columns are {shown}")
    if value in reserved:
        raise ValueError(f"{name}={value!r} is also the {reserved[value]}")


def accumulate_dataframe(
    df, *, label_col, proba_cols, weight_col=None, by=None, **accumulator_params
):
    r"""Accumulate the calibration statistics of the columns of a Dask DataFrame.

    ``DataFrame.reduction`` turns each partition into the statistics of
    :class:`~skcalib.streaming.CalibrationAccumulator` on its worker and merges them in
    a tree, so the calibration of the whole frame, or of every group, comes from one
    pass over the data.  With ``by``, one call of the statistics kernel fills every
    group of a partition (its rows carry integer group codes); the statistics of group
    :math:`g` are those of its rows alone,

    .. math::

        S_g = \sum_{\text{partitions } j} S\bigl(\{i \in j : \mathrm{key}_i = g\}\bigr),

    so each group's accumulator gives the batch metrics on that group's rows.

    Parameters
    ----------
    df : dask DataFrame
        The predictions, one row per sample (a pandas DataFrame is wrapped in a Dask
        DataFrame of one partition).
    label_col : str
        Column of the true labels.
    proba_cols : str or list of str
        The probability columns: a list of two or more names, in the order of the
        classes (``labels``); or a single name (or a list of one), the probability of the
        positive class of a binary problem.
    weight_col : str, default=None
        Column of sample weights.  A partition, or the rows of a group in a partition,
        whose weights are all zero add nothing.
    by : str or list of str, default=None
        Group the rows by the values of this column (or of these columns; the keys are
        then tuples) and return one accumulator per group.  A missing value (None, NaN,
        NA, NaT) is a group of its own, whose key is None (distinct from the string
        ``"None"``).
    **accumulator_params
        ``n_bins``, ``labels``, ``pos_label`` of
        :class:`~skcalib.streaming.CalibrationAccumulator`.  ``labels`` is required
        for more than two classes; for two classes without it, the classes are found
        in the same pass, from the labels of all groups together (see
        :func:`accumulate`).

    Returns
    -------
    CalibrationAccumulator or dict
        The accumulator of all the rows; with ``by``, ``{group key: accumulator}``
        sorted by key (nulls last).

    See Also
    --------
    accumulate : The same for Dask arrays.

    Notes
    -----
    Each partition codes the keys it holds; a merge of the tree takes the sorted union
    of the keys of its inputs and adds each input's statistics at the places of its
    keys, so the codes agree without a first pass over the key columns.  Every group
    costs ``4 x 8,194`` numbers of fine histogram in each partial result (sent by its
    non-empty cells).

    References
    ----------
    .. [1] Dask Development Team, "dask.dataframe.DataFrame.reduction", Dask
       documentation, https://docs.dask.org/en/stable/generated/dask.dataframe.DataFrame.reduction.html

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from skcalib.dask import accumulate_dataframe
    >>> pdf = pd.DataFrame(
    ...     {"y": [0, 1, 1, 0, 1, 0], "p": [0.2, 0.7, 0.9, 0.4, 0.6, 0.1],
    ...      "shop": ["b", "b", "a", "a", "b", "a"]}
    ... )
    >>> df = dd.from_pandas(pdf, npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     per_shop = accumulate_dataframe(df, label_col="y", proba_cols="p", by="shop")
    >>> {shop: round(acc.compute()["brier_score"], 4) for shop, acc in per_shop.items()}
    {'a': 0.06, 'b': 0.0967}
    """
    _dask()
    dd = _dask_dataframe()
    import pandas as pd

    if isinstance(df, pd.DataFrame):
        df = dd.from_pandas(df, npartitions=1)
    if not isinstance(df, dd.DataFrame):
        raise ValueError(f"df must be a Dask DataFrame, got {type(df).__name__}")
    empty = _accumulator_params(accumulator_params)
    columns = list(df.columns)
    _check_column(columns, "label_col", label_col)
    reserved = {label_col: "label column"}
    if isinstance(proba_cols, list | tuple) and len(proba_cols) == 1:
        proba_cols = proba_cols[0]  # a list of one column: the positive-class probability
    if isinstance(proba_cols, str):
        _check_column(columns, "proba_cols", proba_cols, reserved=reserved)
        probas = proba_cols
        n_columns, ndim = 1, 1
        reserved[proba_cols] = "probability column"
    else:
        if not isinstance(proba_cols, (list, tuple)) or len(proba_cols) < 2:
            raise ValueError(
                "proba_cols must be a list of two or more column names (one per class) or "
                f"a single column name (positive-class probability), got {proba_cols!r}"
            )
        if len(set(proba_cols)) != len(proba_cols):
            raise ValueError(f"proba_cols names a column twice: {list(proba_cols)!r}")
        for c in proba_cols:
            _check_column(columns, "proba_cols", c, reserved=reserved)
        probas = list(proba_cols)
        n_columns, ndim = len(probas), 2
        reserved.update({c: "probability column" for c in probas})
    if weight_col is not None:
        _check_column(columns, "weight_col", weight_col, reserved=reserved)
        reserved[weight_col] = "weight column"
    group_cols = []
    if by is not None:
        group_cols = list(by) if isinstance(by, (list, tuple)) else [by]
        if not group_cols:
            raise ValueError(f"by must be a column name or a list of them, got {by!r}")
        if len(set(group_cols)) != len(group_cols):
            raise ValueError(f"by names a column twice: {group_cols!r}")
        for c in group_cols:
            _check_column(columns, "by", c, reserved=reserved)
        by = group_cols if isinstance(by, (list, tuple)) else by
    problem = _problem(empty, n_columns, ndim)
    needed = [label_col, *([probas] if ndim == 1 else probas)]
    needed += [*([weight_col] if weight_col is not None else []), *group_cols]
    total = df[needed].reduction(
        chunk=partition_partial,
        combine=merge_partials,
        aggregate=finish,
        meta=object,
        split_every=SPLIT_EVERY,
        token="skcalib-accumulate-dataframe",
        chunk_kwargs={
            "problem": problem,
            "label_col": label_col,
            "proba_cols": probas,
            "weight_col": weight_col,
            "by": by,
        },
        combine_kwargs={"problem": problem},
        aggregate_kwargs={"problem": problem, "grouped": by is not None},
    )
    return total.compute()
