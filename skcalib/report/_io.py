"""Reading saved predictions for ``skcalib report``: one reader of CSV and Parquet tables.

File format
-----------
CSV and Parquet: one row per sample; a label column (``label_col``, default ``"y"``) and
one probability column per class, *named by the class* (``0``, ``1``, ... or ``cat``,
``dog``, ...).  Column names are matched to the label values by value, so integer labels
``0, 1`` match columns ``"0", "1"`` (or ``"0.0", "1.0"``).  A binary problem may give a
single probability column named after its positive class, or any single column (``score``,
``p``) named with ``--proba-cols`` when the labels are 0 and 1 (or -1 and 1).  Optionally a
model column (``model_col``) holds the name of the model of each row.  Every other numeric
column is a probability column unless ``proba_cols`` names them; a text column never is.

Both formats are read by ``pyarrow.dataset`` (the ``parquet`` extra), record batch by
record batch: a file, a directory of files (Hive ``key=value`` directories become
columns) or a glob.  The separator of a CSV file (``,``, ``;`` or tab) is detected from
its first line unless given; a byte-order mark, quoted headers and CRLF line ends are
read as such, and a first column without a name (the index ``pandas.DataFrame.to_csv``
writes by default) is ignored.  An error in a CSV cell names its file line.

NPZ: arrays ``y_true`` (n_samples,) and ``y_proba`` ((n_samples,) or
(n_samples, n_classes)), optionally ``labels`` (the classes in column order); read into
memory.
"""

from __future__ import annotations

import csv
import glob
import io
import math
import os
import re

import numpy as np

__all__ = ["PredictionsFileError", "Table", "open_table", "read_npz"]

#: Largest deviation of a row sum from 1 that ``renormalize=True`` accepts.
RENORMALIZE_TOLERANCE = 0.01

#: Separators tried when none is given, in order of preference on a tie.
SEPARATORS = (",", ";", "\t")

#: Rows of a record batch: large batches spread the fixed work of a batch (the tables of
#: every group) over many rows.
BATCH_ROWS = 1 << 20

_GLOB = re.compile(r"[*?\[]")
_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


class PredictionsFileError(ValueError):
    """A predictions file that cannot be used; the message names what is wrong."""


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pcsv
        import pyarrow.dataset as ds
    except ImportError as exc:
        raise PredictionsFileError(
            "reading .csv and .parquet files needs pyarrow (pip install 'skcalib[parquet]'); "
            "or save the predictions as .npz"
        ) from exc
    return pa, pc, pcsv, ds


def one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def listed(items, limit=8):
    items = [str(v.item() if isinstance(v, np.generic) else v) for v in items]
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


class Table:
    """A CSV or Parquet dataset opened for reading in record batches.

    Attributes: ``title`` (file or directory name), ``fmt`` (``"csv"`` or ``"parquet"``),
    ``names`` (the data columns), ``numeric`` (the columns read as numbers) and, for a
    CSV file, ``sep``.
    """

    def __init__(self, dataset, title, fmt, names, sep=None, header=None):
        self.dataset, self.title, self.fmt, self.sep = dataset, title, fmt, sep
        self.names, self._header = names, header or {}
        pa = _pyarrow()[0]
        schema = dataset.schema
        self.numeric = {
            n
            for n in names
            if (t := schema.field(self._header.get(n, n)).type) is not None
            and (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t))
        }

    def batches(self, columns, *, text=(), floats=(), rows=BATCH_ROWS):
        """``(batch, (file name, first row))`` of ``columns``, file after file.

        CSV columns ``text`` are read as strings (stripped) and ``floats`` as float64;
        a cell that is not a number raises :class:`PredictionsFileError` naming its line.
        """
        pa, pc, pcsv, ds = _pyarrow()
        dataset = self.dataset
        if self.fmt == "csv":
            types = {self._header.get(c, c): pa.string() for c in text}
            types.update({self._header.get(c, c): pa.float64() for c in floats})
            schema = pa.schema(
                [pa.field(f.name, types.get(f.name, f.type)) for f in dataset.schema]
            )
            fmt = _csv_format(pcsv, ds, self.sep, types)
            dataset = ds.dataset(self.dataset.files, format=fmt, schema=schema)
        proj = {c: ds.field(self._header.get(c, c)) for c in columns}
        for fragment in dataset.get_fragments():
            where = os.path.basename(fragment.path)
            offset = 0
            try:
                for batch in self._fragment_batches(fragment, dataset, proj, rows):
                    if batch.num_rows:
                        if self.fmt == "csv" and text:
                            batch = _strip(pa, pc, batch, text)
                        yield batch, (where, offset)
                        offset += batch.num_rows
            except pa.ArrowInvalid as exc:
                if self.fmt == "csv":
                    self._diagnose(fragment.path, columns, floats)
                raise PredictionsFileError(f"not a readable table: {one_line(exc)}") from exc

    def _fragment_batches(self, fragment, dataset, proj, rows):
        """The batches of one file: a Parquet file row group by row group (a scanner
        reads ahead without bound when its consumer is slower than the disk)."""
        ds = _pyarrow()[3]
        if self.fmt == "csv":
            scanner = ds.Scanner.from_fragment(
                fragment, schema=dataset.schema, columns=proj, batch_size=rows
            )
            yield from scanner.to_batches()
            return
        for piece in self.row_groups([fragment]):
            yield from (b for b, _ in self.piece_batches(piece, list(proj), rows))

    def row_groups(self, fragments=None):
        """``(path, file system, partition values, file name, row group, first row, rows)``
        of every row group of a Parquet dataset, in file order (metadata only)."""
        import pyarrow.parquet as pq

        ds = _pyarrow()[3]
        for fragment in fragments or self.dataset.get_fragments():
            keys = ds.get_partition_keys(fragment.partition_expression) or {}
            meta = pq.ParquetFile(fragment.path, filesystem=fragment.filesystem).metadata
            offset = 0
            for rg in range(meta.num_row_groups):
                n = meta.row_group(rg).num_rows
                where = os.path.basename(fragment.path)
                yield (fragment.path, fragment.filesystem, keys, where, rg, offset, n)
                offset += n

    @staticmethod
    def piece_batches(piece, columns, rows=BATCH_ROWS):
        """``(batch, (file name, first row))`` of one row group (:meth:`row_groups`);
        Hive partition values become constant columns."""
        import pyarrow.parquet as pq

        pa = _pyarrow()[0]
        path, filesystem, keys, where, rg, offset, _ = piece
        own = [c for c in columns if c not in keys]
        pf = pq.ParquetFile(path, filesystem=filesystem, pre_buffer=False)
        for batch in pf.iter_batches(batch_size=rows, row_groups=[rg], columns=own):
            if keys:
                arrays = [
                    batch.column(c) if c not in keys else pa.array([keys[c]] * batch.num_rows)
                    for c in columns
                ]
                batch = pa.RecordBatch.from_arrays(arrays, names=columns)
            yield batch, (where, offset)
            offset += batch.num_rows

    def line(self, where, row):
        """The file line of data row ``row`` of CSV file ``where`` (None for Parquet)."""
        if self.fmt != "csv":
            return None
        path = next(f for f in self.dataset.files if os.path.basename(f) == where)
        for i, (line, _) in enumerate(_csv_rows(path, self.sep)):
            if i == row + 1:  # the header is row 0
                return line
        return None

    def _diagnose(self, path, columns, floats):
        _diagnose_csv(path, self.sep, [self._header.get(c, c) for c in floats], floats)


def _diagnose_csv(path, sep, fields=(), names=()):
    """Raise for the first ragged row or non-numeric cell of ``fields`` of a CSV file."""
    rows = _csv_rows(path, sep)
    _, header = next(rows, (0, []))
    pos = [header.index(h) for h in fields]
    for line, row in rows:
        if len(row) != len(header):
            raise PredictionsFileError(
                f"line {line} has {len(row)} fields but the header has {len(header)}"
            )
        for j, name in zip(pos, names, strict=True):
            v = row[j].strip()
            if not _is_number(v):
                what = "an empty cell" if v == "" else repr(v)
                raise PredictionsFileError(
                    f"probability column {name!r} is not numeric: {what} at line {line} "
                    "(name the probability columns with --proba-cols if other columns are "
                    "present)"
                )


def _is_number(v):
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _strip(pa, pc, batch, text):
    arrays = [
        pc.utf8_trim_whitespace(col) if name in text else col
        for name, col in zip(batch.schema.names, batch.columns, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, names=batch.schema.names)


def _csv_format(pcsv, ds, sep, types=None):
    return ds.CsvFileFormat(
        parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True),
        convert_options=pcsv.ConvertOptions(
            column_types=types or {},
            null_values=[""],
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        ),
        read_options=pcsv.ReadOptions(block_size=8 << 20),
    )


def _csv_rows(path, sep):
    """``(file line, fields)`` of the non-blank rows of a CSV file (the header first)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter=sep)
            for row in reader:
                if any(v.strip() for v in row):
                    yield reader.line_num, row
    except UnicodeDecodeError as exc:
        raise PredictionsFileError(f"not a UTF-8 text CSV file ({exc.reason})") from exc
    except csv.Error as exc:
        raise PredictionsFileError(f"not a valid CSV file: {exc}") from exc


def check_sep(sep):
    if sep in ("\\t", "tab", "TAB"):
        return "\t"
    if len(sep) != 1 or sep in '"\r\n' or sep.isalnum() or sep in ".-+":
        raise PredictionsFileError(
            f"--sep must be one character such as ',', ';' or '\\t' (tab), got {sep!r}"
        )
    return sep


def detect_sep(path, n_lines=50):
    """The separator of :data:`SEPARATORS` that splits the header into the most fields,
    every one of the first lines into that many (',' when none does better than one)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            sample = "".join(line for _, line in zip(range(n_lines), f, strict=False))
    except UnicodeDecodeError as exc:
        raise PredictionsFileError(f"not a UTF-8 text CSV file ({exc.reason})") from exc
    best, best_n = ",", 1
    for sep in SEPARATORS:
        try:
            rows = [r for r in csv.reader(io.StringIO(sample), delimiter=sep) if r]
        except csv.Error:
            continue
        complete = rows[:-1] if len(rows) > 1 and not sample.endswith("\n") else rows
        if rows and len(rows[0]) > best_n and all(len(r) == len(rows[0]) for r in complete):
            best, best_n = sep, len(rows[0])
    return best


def check_names(names, offset=0):
    for i, name in enumerate(names):
        if not name:
            raise PredictionsFileError(f"column {i + 1 + offset} of the header has no name")
    for i, name in enumerate(names):
        if name in names[:i]:
            raise PredictionsFileError(f"the header has two columns named {name!r}")


def _files(path):
    """The format, files (or directory) and title of a file, directory or glob."""
    if os.path.isdir(path):
        found = {}
        for f in sorted(glob.glob(os.path.join(path, "**", "*"), recursive=True)):
            fmt = _FORMATS.get(os.path.splitext(f)[1].lower())
            if fmt and os.path.isfile(f):
                found.setdefault(fmt, []).append(f)
        if not found:
            raise PredictionsFileError(
                "is a directory without .parquet or .csv files (expected a predictions file, "
                "a directory of them or a glob)"
            )
        if len(found) > 1:
            raise PredictionsFileError("the directory holds both .csv and .parquet files")
        ((fmt, files),) = found.items()
        return fmt, files, os.path.basename(os.path.normpath(path)), True
    if os.path.exists(path):
        stem, ext = os.path.splitext(os.path.basename(path))
        if ext.lower() not in _FORMATS:
            raise PredictionsFileError(
                f"unsupported file type {ext.lower() or '(no extension)'!r}: expected .csv, "
                ".parquet or .npz"
            )
        return _FORMATS[ext.lower()], [path], stem, False
    if not _GLOB.search(path):
        raise PredictionsFileError("no such file")
    files = sorted(glob.glob(path, recursive=True))
    if not files:
        raise PredictionsFileError("no file matches the glob")
    fmts = {_FORMATS.get(os.path.splitext(f)[1].lower()) for f in files}
    if None in fmts or len(fmts) > 1 or any(os.path.isdir(f) for f in files):
        raise PredictionsFileError("the glob must match .csv files or .parquet files only")
    title = os.path.splitext(os.path.basename(path))[0] or "dataset"
    return fmts.pop(), files, title, False


def open_table(path, sep=None):
    """Open a CSV or Parquet file, directory or glob as a :class:`Table`."""
    path = os.fspath(path)
    fmt, files, title, is_dir = _files(path)
    if sep is not None and fmt != "csv":
        raise PredictionsFileError("--sep applies to .csv files, not to Parquet files")
    pa, _, pcsv, ds = _pyarrow()
    if fmt == "parquet":
        try:
            dataset = ds.dataset(path if is_dir else files, format="parquet",
                                 partitioning="hive" if is_dir else None)  # fmt: skip
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise PredictionsFileError(f"not a readable Parquet file: {one_line(exc)}") from exc
        names = _parquet_columns(dataset.schema)
        check_names(names)
        return Table(dataset, title, fmt, names)
    sep = check_sep(sep) if sep is not None else detect_sep(files[0])
    header = next(_csv_rows(files[0], sep), None)
    if header is None:
        raise PredictionsFileError("the file is empty (expected a header row)")
    raw = header[1]
    names = [h.strip() for h in raw]
    skip = len(names) > 1 and names[0] == "" and any(names[1:])
    check_names(names[1:] if skip else names, offset=int(skip))
    try:
        dataset = ds.dataset(files, format=_csv_format(pcsv, ds, sep))
        dataset.schema  # noqa: B018 - reads the header and the first block
    except pa.ArrowInvalid as exc:
        _diagnose_csv(files[0], sep)
        raise PredictionsFileError(f"not a valid CSV file: {one_line(exc)}") from exc
    keep = names[1:] if skip else names
    mapping = dict(zip(keep, raw[1:] if skip else raw, strict=True))
    return Table(dataset, title, fmt, keep, sep=sep, header=mapping)


def _parquet_columns(schema):
    """The data columns of a schema (pandas' stored index columns left out)."""
    index = set()
    meta = schema.pandas_metadata if schema.metadata else None
    if meta:
        index = {c for c in meta.get("index_columns", []) if isinstance(c, str)}
    return [n for n in schema.names if n not in index and not n.startswith("__index_level_")]


# ------------------------------------------------------------------------------ NPZ
def read_npz(path):
    """``(y_true, y_proba, labels)`` of a .npz file."""
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic == b"\x93NUMPY":
        raise PredictionsFileError(
            "is a single .npy array, not a .npz archive: save arrays y_true and y_proba with "
            "numpy.savez"
        )
    if not magic.startswith(b"PK"):
        raise PredictionsFileError(
            "not a .npz file (not a zip archive of arrays y_true and y_proba; see numpy.savez)"
        )
    try:
        with np.load(path, allow_pickle=False) as npz:
            missing = [k for k in ("y_true", "y_proba") if k not in npz.files]
            if missing:
                raise PredictionsFileError(
                    f"missing array {missing[0]!r}: a .npz file needs arrays 'y_true' and "
                    f"'y_proba' (it has {listed(npz.files)})"
                )
            arrays = {k: npz[k] for k in ("y_true", "y_proba", "labels") if k in npz.files}
    except PredictionsFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - a zip that is not a valid archive of arrays
        raise PredictionsFileError(f"not a readable .npz file: {one_line(exc)}") from exc
    if arrays["y_proba"].dtype.kind not in "biuf":
        raise PredictionsFileError(
            f"array 'y_proba' is not numeric (dtype {arrays['y_proba'].dtype})"
        )
    return arrays["y_true"], arrays["y_proba"], arrays.get("labels")


# ------------------------------------------------------------------------------ classes
def label_key(v):
    """Value used to match a class label with a column name: numbers (and booleans, as
    0 and 1) match numerically, anything else as text."""
    if isinstance(v, bool | np.bool_):
        return ("num", float(v))
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return ("num", float(v.strip().lower() == "true"))
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ("str", str(v))
    return ("num", f) if math.isfinite(f) else ("str", str(v))


def renormalize(P, offset=0):
    """Rows of ``P`` divided by their sums (within :data:`RENORMALIZE_TOLERANCE` of 1)."""
    if P.ndim != 2:
        return P
    s = P.sum(axis=1)
    bad = ~(np.abs(s - 1) <= RENORMALIZE_TOLERANCE)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PredictionsFileError(
            f"--renormalize only fixes rounding: row {i + offset} sums to {float(s[i])!r}, "
            f"more than {RENORMALIZE_TOLERANCE} away from 1"
        )
    return P / s[:, None]
