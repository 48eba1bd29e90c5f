"""Streamed reports of Parquet predictions: a file, a directory of files or a glob.

The dataset is read file by file and, within a file, record batch by record batch (a
row group at most at a time), each batch going through the
:class:`~skcalib.streaming.CalibrationAccumulator` of its group (model, ``--by`` values).
The batches are read and added one after the other, in file order.  Memory is bounded
by the size of a row group and the number of groups, never by the number of rows; the
equal-width numbers (ECE, MCE, SCE, the reliability curve, Brier score, accuracy) are
those of the in-memory report on the same rows.

Labels are encoded once per batch, by hashing against the sorted classes found by a first
pass over the label column alone (or given with ``--labels``); the accumulators see
integer codes ``0..k-1``.  Integer labels are first tried as the classes 0 and 1, which
are their own codes, without that pass (:func:`_speculate_binary`).

Two functions are the seams for other ways of producing batches or accumulators (a Dask
cluster): :func:`accumulate_batches` takes *any* iterable of ``pyarrow.RecordBatch`` (or
``(batch, source)`` pairs) and a :class:`StreamSpec`; :func:`report_from_accumulators`
turns ``{row name: CalibrationAccumulator}`` -- e.g. the merged partition accumulators of a
Dask DataFrame -- into the :class:`~skcalib.report.CalibrationReport` that
``skcalib report`` prints.
"""

from __future__ import annotations

import glob
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from ..streaming import CalibrationAccumulator
from ._io import (
    RENORMALIZE_TOLERANCE,
    PredictionsFileError,
    _check_range,
    _list,
    _one_line,
    _py,
    _renormalize,
    _type_labels,
    check_group_columns,
    class_plan,
    code_dtype,
    resolve_proba_columns,
)
from ._report import CalibrationReport, _metric_columns

__all__ = [
    "StreamSpec",
    "accumulate_batches",
    "batch_rows",
    "is_dataset_path",
    "open_dataset",
    "report_from_accumulators",
    "stream_report",
]

#: bytes of the columns of one record batch read from a Parquet file (fixed-width
#: values; a variable-width value counts :data:`VARIABLE_WIDTH` bytes), and the fewest
#: and most rows of a batch (see :func:`batch_rows`)
BATCH_BYTES = 8 << 20
VARIABLE_WIDTH = 32
MIN_BATCH_ROWS = 1 << 12
MAX_BATCH_ROWS = 1 << 20

_GLOB_CHARS = re.compile(r"[*?\[]")


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.dataset as ds
    except ImportError as exc:
        raise PredictionsFileError(
            "reading Parquet files needs pyarrow (pip install pyarrow, or "
            "pip install 'skcalib[parquet]'); or save the predictions as .csv or .npz"
        ) from exc
    return pa, pc, ds


def is_dataset_path(path):
    """Whether ``path`` is read as a Parquet dataset: a .parquet/.pq file, a directory,
    or a glob pattern that is not itself an existing file."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return True
    if os.path.splitext(path)[1].lower() in (".parquet", ".pq"):
        return True
    return bool(_GLOB_CHARS.search(path)) and not os.path.exists(path)


def open_dataset(path):
    """The Parquet files of ``path`` as a ``pyarrow.dataset.Dataset``, and a title.

    A file; a directory (every Parquet file below it, Hive partitions ``key=value``
    becoming columns); or a glob (``preds/*.parquet``, ``**`` recursive).
    """
    pa, _, ds = _pyarrow()
    path = os.fspath(path)
    if os.path.isdir(path):
        files = sorted(
            f
            for pattern in ("**/*.parquet", "**/*.pq", "**/*.PARQUET")
            for f in glob.glob(os.path.join(path, pattern), recursive=True)
        )
        if not files:
            raise PredictionsFileError(
                "is a directory without .parquet files (expected a predictions file, a "
                "directory of Parquet files or a glob)"
            )
        source, title = path, os.path.basename(os.path.normpath(path))
        kwargs = {"partitioning": "hive"}
    elif os.path.exists(path):
        source, title, kwargs = path, os.path.splitext(os.path.basename(path))[0], {}
    else:
        files = sorted(glob.glob(path, recursive=True))
        if not files:
            raise PredictionsFileError(
                "no such file" if not _GLOB_CHARS.search(path) else "no file matches the glob"
            )
        dirs = [f for f in files if os.path.isdir(f)]
        if dirs:
            raise PredictionsFileError(f"the glob matches a directory: {dirs[0]!r}")
        source, kwargs = files, {}
        title = os.path.splitext(os.path.basename(path))[0] or "dataset"
    try:
        dataset = ds.dataset(source, format="parquet", **kwargs)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise PredictionsFileError(f"not a readable Parquet dataset: {_one_line(exc)}") from exc
    return dataset, title


def batch_rows(schema, columns):
    """Rows per record batch of ``columns`` of ``schema``: about :data:`BATCH_BYTES`.

    Wide rows (many probability columns) come in fewer rows, so that the memory of a
    batch does not grow with the number of classes; narrow rows (binary predictions) in
    up to :data:`MAX_BATCH_ROWS`, so that the fixed work of a batch is spread over many
    rows.

    Examples
    --------
    >>> import pyarrow as pa
    >>> schema = pa.schema([("y", pa.int8()), ("1", pa.float32())])
    >>> batch_rows(schema, ["y", "1"])
    1048576
    >>> wide = pa.schema([("y", pa.string())] + [(str(k), pa.float64()) for k in range(100)])
    >>> batch_rows(wide, wide.names)
    10082
    """
    width = 0
    for name in columns:
        try:
            width += max(schema.field(name).type.bit_width // 8, 1)
        except ValueError:  # strings and other variable-width values
            width += VARIABLE_WIDTH
    return int(min(MAX_BATCH_ROWS, max(MIN_BATCH_ROWS, BATCH_BYTES // max(width, 1))))


def _columns(schema):
    """The data columns of a schema (pandas' stored index columns left out)."""
    index = set()
    meta = schema.pandas_metadata if schema.metadata else None
    if meta:
        index = {c for c in meta.get("index_columns", []) if isinstance(c, str)}
    return [n for n in schema.names if n not in index and not n.startswith("__index_level_")]


@dataclass
class StreamSpec:
    """What to read from each batch and how to encode it (see :func:`make_spec`)."""

    label_col: str
    #: probability columns in class order
    proba_cols: list
    #: the probability columns as given (for messages)
    given_cols: list
    proba_cols_given: bool
    model_col: object
    by: list
    #: the sorted distinct labels, a pyarrow array, and their index in ``classes``
    present: object
    lut: object
    #: the classes of the codes (None: labels passed as they are, see ClassPlan)
    classes: object
    pos_label: object = None
    pos_index: object = None
    renormalize: bool = False
    n_bins: int = 15
    #: the columns to read
    read: list = field(default_factory=list)


def _label_type_kind(pa, typ):
    if pa.types.is_dictionary(typ):
        typ = typ.value_type
    if pa.types.is_boolean(typ):
        return "b"
    if pa.types.is_integer(typ):
        return "i"
    if pa.types.is_floating(typ):
        return "f"
    return "U"


def _decode(pa, arr):
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr


def _present_labels(pa, pc, dataset, label_col):
    """Sorted distinct labels: a pass over the label column alone."""
    return _sorted_labels([_distinct_labels(pa, pc, _fragment_batches(dataset, [label_col]))])


def _distinct_labels(pa, pc, items):
    """The distinct values (a pyarrow array, None without rows) of the label column, the
    only column of the batches of ``items`` (``(batch, (file name, first row))``); an
    empty label raises :class:`PredictionsFileError` naming its row."""
    seen = None
    for batch, (where, offset) in items:
        col = _decode(pa, batch.column(0))
        if col.null_count:
            i = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
            raise PredictionsFileError(
                f"label column {batch.schema.names[0]!r} is empty at row {i + offset} of {where}"
            )
        u = pc.unique(col)
        seen = u if seen is None else pc.unique(pa.concat_arrays([seen, u.cast(seen.type)]))
    return seen


def _sorted_labels(parts):
    """The sorted distinct labels of the :func:`_distinct_labels` of parts of a dataset."""
    pa, pc, _ = _pyarrow()
    parts = [u for u in parts if u is not None]
    if not parts:
        raise PredictionsFileError("the dataset has no rows")
    seen = pc.unique(pa.concat_arrays([u.cast(parts[0].type) for u in parts]))
    values = seen.to_numpy(zero_copy_only=False)
    if values.dtype.kind == "O":
        values = values.astype(str)
    return np.sort(values)


def make_spec(
    dataset,
    *,
    label_col="y",
    proba_cols=None,
    model_col=None,
    by=(),
    labels=None,
    renormalize=False,
    n_bins=15,
    present=None,
):
    """Check the columns of a dataset and find its classes (a pass over the labels).

    ``present``: the sorted distinct labels, when known (no pass over the labels).
    """
    pa, pc, _ = _pyarrow()
    schema = dataset.schema
    names = _columns(schema)
    by = list(by)
    reserved = check_group_columns(names, label_col, model_col, by)
    proba_cols, given = resolve_proba_columns(
        names, proba_cols, reserved, label_col=label_col, model_col=model_col, where="dataset"
    )
    for c in proba_cols:
        typ = schema.field(c).type
        if not (pa.types.is_floating(typ) or pa.types.is_integer(typ)):
            raise PredictionsFileError(
                f"probability column {c!r} is not numeric (type {typ}) (name the probability "
                "columns with --proba-cols if other columns are present)"
            )
    kind = _label_type_kind(pa, schema.field(label_col).type)
    if present is not None:
        pass
    elif labels is None:
        present = _present_labels(pa, pc, dataset, label_col)
    else:
        typed = _type_labels(labels) if kind in "if" else np.array(labels, dtype=str)
        if kind == "b":
            typed = np.array([str(v).lower() in ("true", "1") for v in labels])
        if kind == "i" and typed.dtype.kind != "i":
            raise PredictionsFileError(
                f"--labels must be integers: the labels in column {label_col!r} are integers"
            )
        present = np.unique(typed.astype(np.float64) if kind == "f" else typed)
    plan = class_plan(proba_cols, present, label_col)
    value_type = schema.field(label_col).type
    if pa.types.is_dictionary(value_type):
        value_type = value_type.value_type
    return StreamSpec(
        label_col=label_col,
        proba_cols=[proba_cols[j] for j in plan.order],
        given_cols=list(proba_cols),
        proba_cols_given=given,
        model_col=model_col,
        by=by,
        present=pa.array(present.tolist(), type=value_type),
        lut=plan.lut,
        classes=plan.classes,
        pos_label=plan.pos_label,
        pos_index=plan.pos_index,
        renormalize=renormalize,
        n_bins=n_bins,
        read=[label_col, *proba_cols, *by, *([model_col] if model_col else [])],
    )


def _name(fragment):
    return os.path.basename(getattr(fragment, "path", "") or "") or "the dataset"


_AT = re.compile(r"(y_proba\[)(\d+)((?:, \d+)?\])|(\b(?:row|index) )(\d+)")


def _locate(message, rows, offset, where, columns):
    """Turn the row numbers of a chunk's message into rows of the file, naming the column
    of a ``y_proba[i, j]`` entry."""
    column = []

    def sub(m):
        if m.group(1):
            i = int(m.group(2))
            j = re.findall(r"\d+", m.group(3))
            if j and int(j[0]) < len(columns):
                column.append(columns[int(j[0])])
            return f"{m.group(1)}{_file_row(i, rows, offset)}{m.group(3)}"
        return f"{m.group(4)}{_file_row(int(m.group(5)), rows, offset)}"

    out = _AT.sub(sub, message)
    extra = f", column {column[0]!r}" if column else ""
    return f"{out} (rows of {where}{extra})"


def _file_row(i, rows, offset):
    return offset + (int(rows[i]) if rows is not None and i < len(rows) else i)


def accumulate_batches(batches, spec, *, accumulators=None, progress=None):
    """Feed record batches to one accumulator per group; return ``{group: accumulator}``.

    Each batch's statistics are computed and merged into the accumulators of its
    groups before the next batch is read: the result does not depend on how the rows are
    cut into batches, up to the order of floating-point additions, and the first bad
    batch raises.

    Parameters
    ----------
    batches : iterable
        ``pyarrow.RecordBatch`` objects holding the columns ``spec.read``, or pairs
        ``(batch, (source name, first row of the batch in it))`` for messages.
    spec : StreamSpec
        The columns and the encoding of the labels (:func:`make_spec`).
    accumulators : dict, default=None
        Accumulators to add to (the result of an earlier call); a new dict when None.
    progress : Progress, default=None
        Told the number of rows of each batch.

    Returns
    -------
    dict
        Row name (``"model"`` without groups; ``"col=value, model"`` with them) to
        :class:`~skcalib.streaming.CalibrationAccumulator`, in order of first appearance.
    """
    accs = {} if accumulators is None else accumulators
    row = 0
    for item in batches:
        batch, (where, offset) = item if isinstance(item, tuple) else (item, ("the dataset", row))
        row += batch.num_rows
        if batch.num_rows == 0:
            continue
        _batch_accumulators(batch, spec, where, offset, into=accs)
        if progress is not None:
            progress.update(batch.num_rows)
    return accs


def _batch_accumulators(batch, spec, where, offset, into=None):
    """``{group: accumulator}`` of the rows of one batch (groups in order of first
    appearance); a bad batch raises :class:`PredictionsFileError` naming its rows.

    ``into``: a dict of accumulators to which each group's accumulator is merged as soon
    as it is computed (and returned), rather than a new dict.
    """
    pa, pc, _ = _pyarrow()
    group_cols = [*spec.by, *([spec.model_col] if spec.model_col else [])]
    n_classes = None if spec.classes is None else len(spec.classes)
    codes = _codes(pa, pc, batch, spec, where, offset)
    P = _proba(pa, batch, spec, where, offset)
    if spec.renormalize and P.ndim == 2:
        P = _renormalize(P, offset)
    accs = {} if into is None else into
    for name, rows in _groups(pa, pc, batch, group_cols, spec.model_col):
        acc = _new_accumulator(spec, n_classes)
        y_g = codes if rows is None else codes[rows]
        P_g = P if rows is None else P[rows]
        try:
            acc.update(y_g, P_g)
        except ValueError as exc:
            msg = _locate(str(exc), rows, offset, where, spec.proba_cols)
            if group_cols:
                msg = f"model {name!r}: {msg}"
            raise PredictionsFileError(msg) from exc
        _add_accumulator(accs, name, acc)
    return accs


def _add_accumulator(accs, name, acc):
    """Merge ``acc`` into ``accs[name]``, or store it there (a new group)."""
    if name in accs:
        accs[name].merge(acc)
    else:
        accs[name] = acc


def _new_accumulator(spec, n_classes):
    if n_classes is None:
        return CalibrationAccumulator(n_bins=spec.n_bins, pos_label=spec.pos_label)
    return CalibrationAccumulator(
        n_bins=spec.n_bins, labels=np.arange(n_classes), pos_label=spec.pos_index
    )


def _codes(pa, pc, batch, spec, where, offset):
    col = _decode(pa, batch.column(spec.label_col))
    if col.null_count:
        i = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise PredictionsFileError(
            f"label column {spec.label_col!r} is empty at row {i + offset} of {where}"
        )
    if spec.classes is not None and pa.types.is_integer(col.type) and _identity_codes(spec):
        # the labels are their own codes 0..k-1: a range check instead of a lookup
        codes = col.to_numpy()
        if codes.min() >= 0 and codes.max() < len(spec.present):
            return codes
    if not col.type.equals(spec.present.type):
        col = col.cast(spec.present.type)
    idx = pc.index_in(col, value_set=spec.present)
    if idx.null_count:
        i = int(np.flatnonzero(idx.is_null().to_numpy(zero_copy_only=False))[0])
        raise PredictionsFileError(
            f"label {_py(col[i].as_py())!r} at row {i + offset} of {where} is not among the "
            f"classes {_list(spec.present.to_pylist())} (given with --labels)"
        )
    idx = idx.to_numpy()
    if spec.classes is None:  # labels passed as they are
        return spec.present.to_numpy(zero_copy_only=False)[idx]
    return spec.lut[idx].astype(code_dtype(len(spec.classes)), copy=False)


def _identity_codes(spec):
    """Whether the integer labels are the codes ``0..k-1`` themselves."""
    present = spec.present.to_numpy(zero_copy_only=False)
    k = len(present)
    return (
        present.dtype.kind in "iu"
        and np.array_equal(present, np.arange(k))
        and np.array_equal(spec.lut, np.arange(k))
    )


def _proba(pa, batch, spec, where, offset):
    arrays = []
    for c in spec.proba_cols:
        arr = batch.column(c)
        if arr.null_count:
            i = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
            raise PredictionsFileError(
                f"probability column {c!r} is empty at row {i + offset} of {where}"
            )
        arrays.append(arr.to_numpy(zero_copy_only=False))
    upper = 1.0 if len(arrays) == 1 else 1.0 + RENORMALIZE_TOLERANCE
    for c, a in zip(spec.proba_cols, arrays, strict=True):
        if a.size and a.min() >= 0 and a.max() <= upper:  # False for NaN
            continue
        _check_range(
            a,
            c,
            None,
            spec.given_cols,
            spec.proba_cols_given,
            upper,
            offset=offset,
            where=f" of {where}",
        )
    if len(arrays) == 1:
        a = arrays[0]
        return a if a.dtype.kind == "f" else a.astype(np.float64)
    dtype = np.float32 if all(a.dtype == np.float32 for a in arrays) else np.float64
    P = np.empty((batch.num_rows, len(arrays)), dtype=dtype)
    for j, a in enumerate(arrays):
        P[:, j] = a
    return P


def _groups(pa, pc, batch, group_cols, model_col):
    """``(name, rows)`` of each group in a batch (``rows`` None: the whole batch)."""
    if not group_cols:
        yield "model", None
        return
    combined, names = None, None
    for c in group_cols:
        enc = pc.dictionary_encode(_decode(pa, batch.column(c)), null_encoding="encode")
        enc = enc.combine_chunks() if isinstance(enc, pa.ChunkedArray) else enc
        codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        values = [str(v) for v in enc.dictionary.to_pylist()]
        shown = [v if c == model_col else f"{c}={v}" for v in values]
        if combined is None:
            combined, names = codes, shown
        else:
            combined = combined * len(shown) + codes
            names = [f"{a}, {b}" for a in names for b in shown]
    # a stable sort keeps the rows of each group in ascending order
    order = np.argsort(combined, kind="stable")
    sorted_codes = combined[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    bounds = np.r_[starts, len(order)]
    # groups in order of first appearance in the batch
    firsts = [int(order[s]) for s in starts]
    for g in np.argsort(firsts, kind="stable"):
        yield names[int(sorted_codes[bounds[g]])], order[bounds[g] : bounds[g + 1]]


def _files(dataset):
    """``(path, file system, Hive partition values, name)`` of each file of a dataset."""
    import pyarrow.dataset as ds

    for fragment in dataset.get_fragments():
        keys = ds.get_partition_keys(fragment.partition_expression) or {}
        yield fragment.path, fragment.filesystem, keys, _name(fragment)


def _open(path, filesystem):
    import pyarrow.parquet as pq

    return pq.ParquetFile(path, filesystem=filesystem, pre_buffer=False)


def _row_group_batches(pf, rg, columns, keys, rows, where, offset):
    """``(batch, (file name, first row))`` of row group ``rg`` of an open file, whose
    first row is row ``offset`` of the file, in batches of ``rows`` rows; Hive partition
    values (``keys``) become constant columns."""
    import pyarrow as pa

    own = [c for c in columns if c not in keys]
    # one row group per reader: a reader of the whole file reads ahead
    for batch in pf.iter_batches(batch_size=rows, row_groups=[rg], columns=own):
        if keys:
            arrays = [
                batch.column(c) if c not in keys else pa.array([keys[c]] * batch.num_rows)
                for c in columns
            ]
            batch = pa.RecordBatch.from_arrays(arrays, names=columns)
        yield batch, (where, offset)
        offset += batch.num_rows


def _fragment_batches(dataset, columns):
    """``(batch, (file name, first row))`` of every file of a dataset, in order.

    Read synchronously, one row group at a time, with ``ParquetFile.iter_batches``
    (decoded batch by batch, :func:`batch_rows` rows at a time): the dataset scanner
    (and a reader of a whole file) reads ahead without limit when its consumer is slower
    than the disk, which would hold the whole file in memory.  Hive partition values
    (directory names ``key=value``) become constant columns.
    """
    rows = batch_rows(dataset.schema, columns)
    for path, filesystem, keys, where in _files(dataset):
        pf = _open(path, filesystem)
        offset = 0
        for rg in range(pf.num_row_groups):
            yield from _row_group_batches(pf, rg, columns, keys, rows, where, offset)
            offset += pf.metadata.row_group(rg).num_rows


def stream_report(
    path,
    *,
    label_col=None,
    proba_cols=None,
    model_col=None,
    by=(),
    labels=None,
    renormalize=False,
    n_bins=15,
    progress=None,
):
    """The report of a Parquet file, directory or glob, streamed batch by batch.

    Returns
    -------
    CalibrationReport
    """
    pa, _, _ = _pyarrow()
    dataset, title = open_dataset(path)
    options = {
        "label_col": "y" if label_col is None else label_col,
        "proba_cols": proba_cols,
        "model_col": model_col,
        "by": by,
        "renormalize": renormalize,
        "n_bins": n_bins,
    }
    if progress is not None:
        try:
            progress.total = dataset.count_rows()
        except pa.ArrowException:  # pragma: no cover - metadata without row counts
            progress.total = None
    try:
        accs = spec = None
        if labels is None:
            accs, spec = _speculate_binary(pa, dataset, options, progress)
        if accs is None:
            spec = make_spec(dataset, labels=labels, **options)
            try:
                accs = accumulate_batches(
                    _fragment_batches(dataset, spec.read), spec, progress=progress
                )
            except pa.ArrowException as exc:
                raise PredictionsFileError(
                    f"not a readable Parquet dataset: {_one_line(exc)}"
                ) from exc
    finally:
        if progress is not None:
            progress.close()
    if not accs:
        raise PredictionsFileError("the dataset has no rows")
    return report_from_accumulators(accs, n_bins=n_bins, title=title, classes=spec.classes)


def _speculate_binary(pa, dataset, options, progress):
    """Stream a dataset of integer labels as if they were 0 and 1, without the first pass
    over the labels; ``(accumulators, spec)``, or ``(None, None)`` when they are not.

    The result is the one of the first pass exactly when the labels are 0 and 1, both
    present: every batch checks that its labels are among them (a range check), and
    the counts of the accumulators tell that both classes occurred.  Anything else --
    other labels, one class only, a bad value, an unreadable file -- returns
    ``(None, None)``, and the caller starts again with the first pass, which finds the
    classes or the error as it always does.
    """
    schema = dataset.schema
    label_col = options["label_col"]
    if label_col not in schema.names or not pa.types.is_integer(schema.field(label_col).type):
        return None, None
    present = np.array([0, 1], dtype=schema.field(label_col).type.to_pandas_dtype())
    try:
        spec = make_spec(dataset, present=present, **options)
        if spec.classes is None or len(spec.classes) != 2:
            return None, None
        accs = accumulate_batches(_fragment_batches(dataset, spec.read), spec, progress=progress)
    except (PredictionsFileError, pa.ArrowException):
        accs = None
    if accs:
        seen = [acc.bin_stats() for acc in accs.values()]
        n_pos = sum(float(st.sum_true.sum()) for st in seen)
        n = sum(acc.n_samples_ for acc in accs.values())
        if 0 < n_pos < n:
            return accs, spec
    if progress is not None:
        progress.done = 0
    return None, None


def report_from_accumulators(accumulators, *, n_bins, title=None, classes=None, streamed=True):
    """A :class:`~skcalib.report.CalibrationReport` of ``{row name: accumulator}``.

    Parameters
    ----------
    accumulators : dict
        Row (model or group) name to a fed
        :class:`~skcalib.streaming.CalibrationAccumulator`; all with ``n_bins`` bins.
    n_bins : int
        Number of bins.
    title : str, default=None
        Name of the data set.
    classes : array-like, default=None
        The classes, when the accumulators saw integer codes ``0..k-1`` (then
        ``classes[code]`` names each class in the report).
    streamed : bool, default=True
        Say in the table that the equal-mass edges come from the accumulators' fine
        histogram.

    Returns
    -------
    CalibrationReport
    """
    models = [str(m) for m in accumulators]
    values, n_samples, cls, positive, curves = {}, {}, {}, {}, {}
    for m, acc in zip(models, accumulators.values(), strict=True):
        if acc.n_bins != n_bins:
            raise ValueError(f"accumulator {m!r} has n_bins={acc.n_bins}, expected {n_bins}")
        out = acc.compute()
        n_samples[m] = int(out.pop("n_samples"))
        values[m] = {k: float(v) for k, v in out.items()}
        own = np.asarray(acc.classes_)
        names = own if classes is None else np.asarray(classes)[own.astype(int)]
        cls[m] = names
        pos = None
        if len(own) == 2:
            if acc.pos_label is not None:
                pos = int(np.flatnonzero(own == acc.pos_label)[0])
            else:
                pos = int(np.argmax(own)) if own.dtype.kind in "biuf" else 1
            pos = _py(names[pos])
        positive[m] = pos
        curves[m] = acc.reliability_curve()
    multiclass = any(len(cls[m]) > 2 for m in models)
    columns = _metric_columns(n_bins, multiclass, streamed=streamed)
    for m in models:
        values[m].setdefault("static_calibration_error", math.nan)
        values[m] = {c.key: values[m][c.key] for c in columns}
    report = CalibrationReport(
        title=title,
        models=models,
        columns=columns,
        values=values,
        n_samples=n_samples,
        classes=cls,
        positive_class=positive,
        curves=curves,
        n_bins=n_bins,
    )
    # the HTML page and the PNG diagrams draw intervals and class-wise curves from these
    report._accumulators = dict(zip(models, accumulators.values(), strict=True))
    return report
