"""Tree reductions of :class:`~skcalib.streaming.CalibrationAccumulator` over Dask chunks.

Each chunk (a block of rows of a Dask array, a partition of a Dask DataFrame) becomes an
accumulator on the worker that holds it; the accumulators are merged in a tree of fan-in
:data:`SPLIT_EVERY`, and only the root travels to the client.  Merging is exact and
associative, so the result is the accumulator of all the rows, whatever the chunking.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..streaming import CalibrationAccumulator

__all__ = ["accumulate", "accumulate_dataframe"]

#: number of accumulators merged by one task of the tree
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
# tasks (run on the workers)
# --------------------------------------------------------------------------------------


def _chunk_accumulator(params, y_true, y_proba, sample_weight):
    """The accumulator of one chunk."""
    acc = CalibrationAccumulator(**params)
    return acc.update(y_true, y_proba, sample_weight=sample_weight)


def _merge(params, *accumulators):
    """A new accumulator holding the statistics of ``accumulators`` (left untouched)."""
    out = CalibrationAccumulator(**params)
    for acc in accumulators:
        out.merge(acc)
    return out


def _merge_groups(params, *dicts):
    """Merge ``{group: accumulator}`` dicts; groups keep their order of first appearance."""
    out = {}
    for d in dicts:
        for key, acc in d.items():
            if key not in out:
                out[key] = CalibrationAccumulator(**params)
            out[key].merge(acc)
    return out


def _py(value):
    return value.item() if isinstance(value, np.generic) else value


def _group_rows(part, by):
    """``[(key, rows)]`` of the groups of a pandas partition, in order of first appearance."""
    import pandas as pd

    cols = [by] if isinstance(by, str) else list(by)
    combined, uniques = None, []
    for c in cols:
        codes, values = pd.factorize(part[c])
        if (codes < 0).any():
            i = int(np.flatnonzero(codes < 0)[0])
            raise ValueError(
                f"by column {c!r} has a missing value (at row {part.index[i]!r} of a "
                "partition): fill it in or drop the row before grouping"
            )
        uniques.append(values)
        n = max(len(values), 1)
        combined = codes.astype(np.int64) if combined is None else combined * n + codes
    if combined is None or combined.size == 0:
        return []
    group, firsts = pd.factorize(combined)
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    out = []
    for g, rows in enumerate(np.split(order, bounds)):
        code = int(firsts[g])
        parts = []
        for values in reversed(uniques):
            n = max(len(values), 1)
            parts.append(_py(values[code % n]))
            code //= n
        parts.reverse()
        out.append((parts[0] if isinstance(by, str) else tuple(parts), rows))
    return out


def _partition_accumulators(part, label_col, proba_cols, weight_col, by, params):
    """The accumulator of a pandas partition, or ``{group: accumulator}`` with ``by``."""
    y = part[label_col].to_numpy()
    P = part[proba_cols].to_numpy()
    w = None if weight_col is None else part[weight_col].to_numpy()
    if by is None:
        return _chunk_accumulator(params, y, P, w)
    out = {}
    for key, rows in _group_rows(part, by):
        out[key] = _chunk_accumulator(params, y[rows], P[rows], None if w is None else w[rows])
    return out


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
    CalibrationAccumulator(**params)  # validates n_bins and labels
    return dict(params)


def _check_classes(params, n_columns, ndim):
    """Raise for a multiclass problem without ``labels`` or with a wrong number of them."""
    labels = params.get("labels")
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


def _distinct(values):
    """The sorted distinct values of one or more arrays or pandas objects."""
    arrays = [np.asarray(v).ravel() for v in values]
    return np.unique(np.concatenate(arrays) if arrays else np.array([]))


def _binary_classes(dask, blocks, params):
    """Fix the classes of a binary problem without ``labels``: the distinct labels of all
    the rows (a tree of ``np.unique`` on the cluster), so that every chunk sees the same
    classes."""
    if params.get("labels") is not None:
        return params
    task = dask.delayed(_distinct, pure=True)
    level = [task([b]) for b in blocks]
    while len(level) > 1:
        level = [task(level[i : i + SPLIT_EVERY]) for i in range(0, len(level), SPLIT_EVERY)]
    if not level:
        return params
    (values,) = dask.compute(level[0])
    if len(values) == 2:
        params = {**params, "labels": values}
    return params


def _tree(dask, leaves, merge, params):
    """The root of a tree of ``merge`` tasks over the delayed ``leaves``."""
    delayed = dask.delayed(merge, pure=True)
    level = list(leaves)
    if not level:
        raise ValueError("the collection has no chunks")
    if len(level) == 1:
        level = [delayed(params, level[0])]
    while len(level) > 1:
        level = [
            delayed(params, *level[i : i + SPLIT_EVERY]) for i in range(0, len(level), SPLIT_EVERY)
        ]
    return level[0]


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
    """Accumulate the calibration statistics of Dask arrays, chunk by chunk.

    One :class:`~skcalib.streaming.CalibrationAccumulator` is fed per block of rows, on
    the worker holding it, and the accumulators are merged in a tree; only accumulators
    (``O(n_bins x n_classes)`` numbers and a fine histogram each) travel, never
    predictions.  The result equals an accumulator fed all the rows at once, so
    :meth:`~skcalib.streaming.CalibrationAccumulator.compute` gives the numbers of the
    batch metrics on the whole arrays.

    Parameters
    ----------
    y_true : dask array of shape (n_samples,)
        True labels.  Rechunked to the row chunks of ``y_proba`` when they differ.
    y_proba : dask array of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities, chunked along the rows only: the class axis must be one
        chunk (``y_proba.rechunk({1: -1})``).  1-D: probability of the positive class.
    sample_weight : dask array of shape (n_samples,), default=None
        Sample weights, rechunked as ``y_true``.
    **accumulator_params
        ``n_bins``, ``labels``, ``pos_label`` of
        :class:`~skcalib.streaming.CalibrationAccumulator`.  ``labels`` is required
        for more than two classes; for two classes without it, a first pass over
        ``y_true`` on the cluster finds them (pass ``labels`` to skip it).

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
    NumPy arrays are accepted too (wrapped in Dask arrays of ``2**20`` rows per chunk,
    or chunked as the Dask inputs).  With unknown chunk sizes (arrays made from
    DataFrames), the three arrays must have the same number of chunks; each chunk is
    then checked on its worker.  The computation runs on the current Dask scheduler:
    the ``distributed.Client`` created last, or the one set with ``dask.config.set``.

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
    params = _accumulator_params(accumulator_params)
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
    w = None
    if sample_weight is not None:
        w = _as_dask_array(da, sample_weight, "sample_weight", rows, n_rows)
        if w.ndim != 1:
            raise ValueError(f"sample_weight must be 1-D, got shape {w.shape}")
    n_columns = P.shape[1] if P.ndim == 2 else 1
    _check_classes(params, n_columns, P.ndim)
    blocks_y = y.to_delayed(optimize_graph=False).ravel()
    if P.ndim == 1 or n_columns == 2:
        params = _binary_classes(dask, blocks_y, params)
    blocks_p = P.to_delayed(optimize_graph=False).ravel()
    blocks_w = [None] * len(blocks_p) if w is None else w.to_delayed(optimize_graph=False).ravel()
    chunk = dask.delayed(_chunk_accumulator, pure=True)
    leaves = [
        chunk(params, yb, pb, wb) for yb, pb, wb in zip(blocks_y, blocks_p, blocks_w, strict=True)
    ]
    (acc,) = dask.compute(_tree(dask, leaves, _merge, params))
    return acc


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
    """Accumulate the calibration statistics of the columns of a Dask DataFrame.

    Each partition gives a :class:`~skcalib.streaming.CalibrationAccumulator` (with
    ``by``: one per group of the partition) on its worker; they are merged in a tree,
    so the calibration of every group comes from one pass over the data.

    Parameters
    ----------
    df : dask DataFrame
        The predictions, one row per sample (a pandas DataFrame is wrapped in a Dask
        DataFrame of one partition).
    label_col : str
        Column of the true labels.
    proba_cols : str or list of str
        The probability columns: a list of two or more names, in the order of the
        classes (``labels``); or a single name, the probability of the positive class of
        a binary problem.
    weight_col : str, default=None
        Column of sample weights.
    by : str or list of str, default=None
        Group the rows by the values of this column (or of these columns; the keys are
        then tuples) and return one accumulator per group.  A missing value in it is an
        error.
    **accumulator_params
        ``n_bins``, ``labels``, ``pos_label`` of
        :class:`~skcalib.streaming.CalibrationAccumulator`.  ``labels`` is required
        for more than two classes; for two classes without it, the distinct values of
        ``label_col`` (all groups together) are computed first.

    Returns
    -------
    CalibrationAccumulator or dict
        The accumulator of all the rows; with ``by``, ``{group value: accumulator}`` in
        order of first appearance.

    See Also
    --------
    accumulate : The same for Dask arrays.

    Examples
    --------
    >>> import dask
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from skcalib.dask import accumulate_dataframe
    >>> pdf = pd.DataFrame(
    ...     {"y": [0, 1, 1, 0, 1, 0], "p": [0.2, 0.7, 0.9, 0.4, 0.6, 0.1],
    ...      "shop": ["a", "a", "b", "b", "a", "b"]}
    ... )
    >>> df = dd.from_pandas(pdf, npartitions=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     per_shop = accumulate_dataframe(df, label_col="y", proba_cols="p", by="shop")
    >>> {shop: round(acc.compute()["brier_score"], 4) for shop, acc in per_shop.items()}
    {'a': 0.0967, 'b': 0.06}
    """
    dask, _ = _dask()
    dd = _dask_dataframe()
    import pandas as pd

    if isinstance(df, pd.DataFrame):
        df = dd.from_pandas(df, npartitions=1)
    if not isinstance(df, dd.DataFrame):
        raise ValueError(f"df must be a Dask DataFrame, got {type(df).__name__}")
    params = _accumulator_params(accumulator_params)
    columns = list(df.columns)
    _check_column(columns, "label_col", label_col)
    reserved = {label_col: "label column"}
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
    if by is not None:
        group_cols = [by] if isinstance(by, str) else by
        if not isinstance(group_cols, (list, tuple)) or not group_cols:
            raise ValueError(f"by must be a column name or a list of them, got {by!r}")
        if len(set(group_cols)) != len(group_cols):
            raise ValueError(f"by names a column twice: {list(group_cols)!r}")
        for c in group_cols:
            _check_column(columns, "by", c, reserved=reserved)
        by = by if isinstance(by, str) else list(by)
    else:
        group_cols = []
    _check_classes(params, n_columns, ndim)
    if n_columns <= 2:
        params = _binary_classes(dask, df[label_col].to_delayed(), params)

    needed = [label_col, *([probas] if ndim == 1 else probas)]
    needed += [*([weight_col] if weight_col is not None else []), *group_cols]
    parts = df[needed].to_delayed()
    task = dask.delayed(_partition_accumulators, pure=True)
    leaves = [task(part, label_col, probas, weight_col, by, params) for part in parts]
    merge = _merge if by is None else _merge_groups
    (out,) = dask.compute(_tree(dask, leaves, merge, params))
    return out
