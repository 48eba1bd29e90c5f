"""Reading saved predictions for ``skcalib report``: CSV, Parquet and NumPy ``.npz`` files.

File format
-----------
CSV and Parquet: one row per sample; a label column (``label_col``, default ``"y"``) and
one probability column per class, *named by the class* (``0``, ``1``, ... or ``cat``,
``dog``, ...).  Column names are matched to the label values by value, so integer labels
``0, 1`` match columns ``"0", "1"`` (or ``"0.0", "1.0"``).  A binary problem may give a
single probability column named after its positive class.  Optionally a model column
(``model_col``) holds the name of the model of each row (several models in one file).
Every other column is a probability column unless ``proba_cols`` names them.

NPZ: arrays ``y_true`` (n_samples,) and ``y_proba`` ((n_samples,) or
(n_samples, n_classes)), optionally ``labels`` (the classes in column order).

CSV files are read with pandas' C parser when pandas is installed, else with the standard
library's ``csv`` module; the standard-library reader is the reference (its messages name the
file line of a bad row), so any input the fast reader does not accept exactly is read again
by it.  The separator (``,``, ``;`` or tab) is detected from the first lines unless given.  A
first column without a name (the index ``pandas.DataFrame.to_csv`` writes by default) is
ignored.  Parquet files need pandas and pyarrow.

Labels are encoded once: the label column is factorised (hashing, not sorting), the few
distinct values are typed and matched with the probability columns, and
:attr:`Predictions.y_codes` holds each row's index in :attr:`Predictions.classes`, so the
metrics never sort the labels again.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import zipfile
from dataclasses import dataclass, field

import numpy as np

__all__ = ["PredictionsFileError", "Predictions", "read_predictions"]

#: Largest deviation of a row sum from 1 that ``renormalize=True`` accepts.
RENORMALIZE_TOLERANCE = 0.01

#: Separators tried when none is given, in order of preference on a tie.
SEPARATORS = (",", ";", "\t")

#: Names ``--sep`` accepts for the tab character.
_TAB_NAMES = ("\\t", "tab", "TAB")


class PredictionsFileError(ValueError):
    """A predictions file that cannot be used; the message names what is wrong."""


@dataclass
class Predictions:
    """Predictions read from a file, in the input format of :func:`calibration_report`."""

    title: str
    y_true: object
    y_proba: dict
    labels: object = None
    pos_label: object = None
    #: model name -> file line number of each row (CSV only), for error messages
    lines: dict = field(default_factory=dict)
    #: the classes (ndarray), when the labels were encoded once: then ``y_codes[model]`` is
    #: the index of each row's label in ``classes`` and the probability columns are in
    #: ``classes`` order (``pos_index``: the positive class of a single column)
    classes: object = None
    y_codes: dict = field(default_factory=dict)
    pos_index: object = None
    #: True when read by the fast (pandas) CSV reader, whose rows have no line numbers
    fast: bool = False


def read_predictions(
    path,
    *,
    label_col=None,
    proba_cols=None,
    model_col=None,
    renormalize=False,
    sep=None,
    by=(),
    fast=True,
):
    """Read a predictions file (.csv, .parquet or .npz).

    Parameters
    ----------
    path : str or path-like
    label_col : str, default=None
        Label column of a table (default ``"y"``).  Not used by .npz files.
    proba_cols : list of str, default=None
        Probability columns of a table (default: every column other than the label and
        model columns).
    model_col : str, default=None
        Column holding the model name of each row.
    renormalize : bool, default=False
        Divide each probability row by its sum (for probabilities rounded when saved);
        rows whose sum differs from 1 by more than 0.01 are still rejected.
    by : list of str, default=()
        Columns whose values split the rows into groups (one row of the report each,
        within each model).
    sep : str, default=None
        Separator of a CSV file (``","``, ``";"``, ``"\\t"``...); detected when None.
    fast : bool, default=True
        Read CSV files with pandas when it is installed; False: with the ``csv`` module
        (slower, and the reference: its messages name file lines).

    Returns
    -------
    Predictions

    Raises
    ------
    PredictionsFileError
        With a one-line message for anything wrong with the file.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise PredictionsFileError("no such file")
    if os.path.isdir(path):
        raise PredictionsFileError("is a directory, expected a predictions file")
    base = os.path.basename(path)
    stem, ext = os.path.splitext(base)
    ext = ext.lower()
    if sep is not None and ext != ".csv":
        raise PredictionsFileError(f"--sep applies to .csv files, not to {ext or 'this'} files")
    if ext == ".npz":
        for opt, val in (
            ("--label-col", label_col),
            ("--proba-cols", proba_cols),
            ("--model-col", model_col),
            ("--by", list(by) or None),
        ):
            if val is not None:
                raise PredictionsFileError(
                    f"{opt} applies to .csv and .parquet tables, not to .npz files "
                    "(which hold arrays y_true, y_proba and optionally labels)"
                )
        pred = _read_npz(path, stem)
    elif ext in (".csv", ".parquet", ".pq"):
        label_col = "y" if label_col is None else label_col
        fast_read = False
        if ext == ".csv":
            sep = _check_sep(sep) if sep is not None else _detect_sep(path)
            columns = None
            if fast:
                columns = _read_csv_pandas(path, sep, label_col, model_col, by)
            if columns is None:
                columns, lines = _read_csv(path, sep)
            else:
                lines, fast_read = None, True
            text = True
        else:
            columns, lines = _read_parquet(path), None
            text = False
        try:
            pred = _table_to_predictions(
                columns,
                lines,
                text=text,
                title=stem,
                label_col=label_col,
                proba_cols=proba_cols,
                model_col=model_col,
                by=list(by),
            )
        except PredictionsFileError:
            if not fast_read:
                raise
            # the reference reader gives the message (with the file line)
            return read_predictions(
                path,
                label_col=label_col,
                proba_cols=proba_cols,
                model_col=model_col,
                renormalize=renormalize,
                sep=sep,
                by=by,
                fast=False,
            )
        pred.fast = fast_read
    else:
        raise PredictionsFileError(
            f"unsupported file type {ext or '(no extension)'!r}: expected .csv, .parquet or .npz"
        )
    if renormalize:
        pred.y_proba = {m: _renormalize(p) for m, p in pred.y_proba.items()}
    return pred


# ------------------------------------------------------------------------------ readers
def _check_sep(sep):
    if sep in _TAB_NAMES:
        return "\t"
    if len(sep) != 1 or sep in '"\r\n' or sep.isalnum() or sep in ".-+":
        raise PredictionsFileError(
            f"--sep must be one character such as ',', ';' or '\\t' (tab), got {sep!r}"
        )
    return sep


def _detect_sep(path, n_lines=50):
    """The separator of a CSV file: the one of :data:`SEPARATORS` that splits the header
    into the most fields, every one of the first lines into that many (',' when none does
    better than one field)."""
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
        if not rows:
            continue
        n = len(rows[0])
        complete = rows[:-1] if len(rows) > 1 and not sample.endswith("\n") else rows
        if n > best_n and all(len(r) == n for r in complete):
            best, best_n = sep, n
    return best


def _header_names(header):
    """Stripped column names; a first column without a name (a pandas index) is dropped.

    Returns ``(names, skip_first)``.
    """
    header = [h.strip() for h in header]
    skip_first = len(header) > 1 and header[0] == "" and any(header[1:])
    if skip_first:
        header = header[1:]
    _check_names(header, offset=1 if skip_first else 0)
    return header, skip_first


def _read_csv(path, sep=","):
    """Columns of a CSV file as lists of stripped strings, and each row's line number."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter=sep)
            header = next(reader, None)
            while header is not None and not any(h.strip() for h in header):
                header = next(reader, None)  # leading blank lines
            if header is None:
                raise PredictionsFileError("the file is empty (expected a header row)")
            n_fields = len(header)
            header, skip_first = _header_names(header)
            rows, lines = [], []
            for row in reader:
                if not row or not any(v.strip() for v in row):
                    continue
                if len(row) != n_fields:
                    raise PredictionsFileError(
                        f"line {reader.line_num} has {len(row)} fields but the header has "
                        f"{n_fields}"
                    )
                rows.append(row[1:] if skip_first else row)
                lines.append(reader.line_num)
    except UnicodeDecodeError as exc:
        raise PredictionsFileError(f"not a UTF-8 text CSV file ({exc.reason})") from exc
    except csv.Error as exc:
        raise PredictionsFileError(f"not a valid CSV file: {exc}") from exc
    if not rows:
        raise PredictionsFileError("the file has a header but no data rows")
    cols = [[v.strip() for v in col] for col in zip(*rows, strict=True)]
    return dict(zip(header, cols, strict=True)), np.asarray(lines)


def _read_csv_pandas(path, sep, label_col, model_col, by=()):
    """Columns of a CSV file read by pandas' C parser, or None.

    None when pandas is not installed, or the file is anything but a clean table whose
    probability columns pandas parses as numbers: then :func:`_read_csv`, the reference,
    reads it (and names the line of what is wrong).  Label and model columns are read as
    text, exactly as the reference reader does.
    """
    try:
        import pandas as pd
    except ImportError:
        return None
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            header = next(csv.reader(f, delimiter=sep), None)
        if not header or not any(h.strip() for h in header):
            return None
        names, skip_first = _header_names(header)
    except (UnicodeDecodeError, csv.Error, PredictionsFileError):
        return None
    text_cols = [c for c in (label_col, model_col, *by) if c in names]
    kwargs = {}
    if int(pd.__version__.split(".")[0]) < 3:
        kwargs["float_precision"] = "round_trip"  # exact, as Python's float()
    try:
        df = pd.read_csv(
            path,
            sep=sep,
            header=0,
            names=(["\0index"] if skip_first else []) + names,
            usecols=names,
            dtype={c: str for c in text_cols},
            keep_default_na=False,
            na_filter=False,
            encoding="utf-8-sig",
            engine="c",
            skipinitialspace=False,
            **kwargs,
        )
    except Exception:  # noqa: BLE001 - any problem: the reference reader explains it
        return None
    if df.shape[0] == 0:
        return None
    out = {}
    for name in names:
        col = df[name]
        if name in text_cols:
            out[name] = col.to_numpy(dtype=object)
        elif col.dtype.kind in "iuf":
            out[name] = col.to_numpy()
        else:
            out[name] = col.to_numpy(dtype=object)  # typed (or rejected) as text
    return out


def _read_parquet(path):
    try:
        import pandas as pd
    except ImportError as exc:
        raise PredictionsFileError(
            "reading .parquet files needs pandas and pyarrow (pip install pandas pyarrow); "
            "or save the predictions as .csv or .npz"
        ) from exc
    try:
        df = pd.read_parquet(path)
    except ImportError as exc:
        raise PredictionsFileError(
            "reading .parquet files needs pyarrow (pip install pyarrow); or save the "
            "predictions as .csv or .npz"
        ) from exc
    except (OSError, ValueError, TypeError) as exc:
        raise PredictionsFileError(f"not a readable Parquet file: {_one_line(exc)}") from exc
    if df.shape[0] == 0:
        raise PredictionsFileError("the table has no rows")
    names = [str(c) for c in df.columns]
    _check_names(names)
    return {name: df[c].to_numpy() for name, c in zip(names, df.columns, strict=True)}


def _read_npz(path, title):
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
            files = list(npz.files)
            missing = [k for k in ("y_true", "y_proba") if k not in files]
            if missing:
                raise PredictionsFileError(
                    f"missing array {missing[0]!r}: a .npz file needs arrays 'y_true' and "
                    f"'y_proba' (and optionally 'labels'); it has {', '.join(files) or 'none'}"
                )
            y_true = npz["y_true"]
            y_proba = npz["y_proba"]
            labels = npz["labels"] if "labels" in files else None
    except PredictionsFileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise PredictionsFileError(f"not a readable .npz file: {_one_line(exc)}") from exc
    if y_proba.dtype.kind not in "biuf":
        raise PredictionsFileError(f"array 'y_proba' is not numeric (dtype {y_proba.dtype})")
    return Predictions(title=title, y_true=y_true, y_proba={"model": y_proba}, labels=labels)


def _check_names(names, offset=0):
    for i, name in enumerate(names):
        if not name:
            raise PredictionsFileError(f"column {i + 1 + offset} of the header has no name")
    seen = set()
    for name in names:
        if name in seen:
            raise PredictionsFileError(f"the header has two columns named {name!r}")
        seen.add(name)


# ------------------------------------------------------------------------------ parsing
_INT_RE = re.compile(r"[+-]?\d+")


def _key(v):
    """Value used to match a class label with a column name: numbers match numerically."""
    if isinstance(v, bool | np.bool_):
        return ("bool", bool(v))
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ("str", str(v))
    if math.isfinite(f):
        return ("num", f)
    return ("str", str(v))


def _where(lines, i):
    return f"line {int(lines[i])}" if lines is not None else f"row {i}"


def _factorize(values):
    """``(codes, uniques)`` of a column: hashing, uniques in order of first appearance.

    pandas' ``factorize`` when pandas is installed, else a dict (text) or
    :func:`numpy.unique` (numbers; then the uniques are sorted).
    """
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        arr = values if isinstance(values, np.ndarray) else np.array(values, dtype=object)
        codes, uniques = pd.factorize(arr)
        return codes, np.asarray(uniques, dtype=arr.dtype if arr.dtype.kind != "O" else object)
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1), uniques
    seen = {}
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), np.intp, len(values))
    uniques = np.empty(len(seen), dtype=object)
    uniques[:] = list(seen)
    return codes, uniques


def _merge(codes, values):
    """Map ``codes`` (into ``values``) onto the sorted distinct ``values``."""
    try:
        merged, lut = np.unique(values, return_inverse=True)
    except TypeError:  # mixed objects in a Parquet column
        merged, lut = np.unique(values.astype(str), return_inverse=True)
    return lut.reshape(-1)[codes], merged


def _text_codes(values):
    """Factorise a text column; ``(codes, stripped distinct values)``, first-appearance order."""
    codes, uniques = _factorize(values)
    stripped = [str(u).strip() for u in uniques]
    if len(set(stripped)) == len(stripped):
        out = np.empty(len(stripped), dtype=object)
        out[:] = stripped
        return codes, out
    first = {}
    lut = np.array([first.setdefault(v, len(first)) for v in stripped], dtype=np.intp)
    out = np.empty(len(first), dtype=object)
    out[:] = list(first)
    return lut[codes], out


def _type_labels(values):
    """Type the distinct text labels: integers, else finite floats, else strings."""
    values = [str(v) for v in values]
    if all(_INT_RE.fullmatch(v) for v in values):
        try:
            return np.array([int(v) for v in values], dtype=np.int64)
        except OverflowError:
            pass
    try:
        arr = np.array(values, dtype=np.float64)
        if np.isfinite(arr).all():
            return arr
    except ValueError:
        pass
    return np.array(values, dtype=str)


def _label_codes(values, name, lines, text):
    """Encode the label column once.

    Returns ``(codes, present)``: the sorted distinct labels (typed as integers, floats or
    strings for text input; the column's own type otherwise) and each row's index in them.
    """
    if text:
        codes, uniques = _text_codes(values)
        empty = np.flatnonzero(uniques == "")
        if empty.size:
            i = int(np.flatnonzero(codes == empty[0])[0])
            raise PredictionsFileError(f"label column {name!r} is empty at {_where(lines, i)}")
        return _merge(codes, _type_labels(uniques))
    arr = np.asarray(values)
    codes, uniques = _factorize(arr)
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise PredictionsFileError(f"label column {name!r} is empty at {_where(lines, i)}")
    if uniques.dtype.kind == "O" and all(isinstance(u, str) for u in uniques):
        uniques = uniques.astype(str)
    return _merge(codes, uniques)


def _parse_numbers(values, name, lines, text):
    """A probability column as float64, or an error naming the first bad cell."""
    arr = np.asarray(values) if not isinstance(values, list) else None
    if arr is not None and arr.dtype.kind in "biuf":
        return arr.astype(np.float64, copy=False)
    if arr is not None:
        values = list(arr)
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    for i, v in enumerate(values):
        try:
            float(v)
        except (TypeError, ValueError):
            what = "an empty cell" if v is None or str(v).strip() == "" else repr(v)
            raise PredictionsFileError(
                f"probability column {name!r} is not numeric: {what} at {_where(lines, i)} "
                "(name the probability columns with --proba-cols if other columns are present)"
            ) from None
    raise PredictionsFileError(f"probability column {name!r} is not numeric")  # pragma: no cover


def _check_range(p, name, lines, proba_cols, given, upper, offset=0, where=None):
    """A probability column with values outside [0, upper] is named, with its first bad row.

    ``upper`` leaves room for rounding (1 + the tolerance of ``--renormalize`` for one of
    several columns; the metrics check the row sums exactly).  NaN is left to the metrics.
    """
    bad = (p < 0) | (p > upper)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    at = _where(lines, i) if lines is not None else f"row {i + offset}{where or ''}"
    msg = f"probability column {name!r} has {float(p[i])!r} at {at}, outside [0, 1]"
    others = [c for c in proba_cols if c != name]
    if not given and others:
        msg += (
            f"; if {name!r} is not a probability column (an id, a feature), list the "
            f"probability columns with --proba-cols (e.g. --proba-cols {','.join(others)})"
        )
    raise PredictionsFileError(msg)


def _class_of_column(name, present, label_col):
    """The class label (typed as the labels) that probability column ``name`` stands for."""
    kind = present.dtype.kind
    k = _key(name)
    if kind == "b":
        low = name.strip().lower()
        if low in ("true", "1", "1.0"):
            return True
        if low in ("false", "0", "0.0"):
            return False
    elif kind in "iu":
        if k[0] == "num" and float(k[1]).is_integer():
            return int(k[1])
    elif kind == "f":
        if k[0] == "num":
            return float(k[1])
    else:
        for v in present:
            if _key(v) == k:
                return v
        return name
    raise PredictionsFileError(
        f"probability column {name!r} does not name a class: the labels in column "
        f"{label_col!r} are {'booleans' if kind == 'b' else 'numbers'} "
        "(name the probability columns with --proba-cols if other columns are present)"
    )


@dataclass
class ClassPlan:
    """How the probability columns map to the classes (shared by every reader)."""

    #: the probability columns in class order (indices into the given columns)
    order: list
    #: the classes of the encoded labels, or None when only the positive class of a single
    #: column occurs (the metrics then name the negative class)
    classes: object
    #: index in ``classes`` of each distinct label (``present``), or None
    lut: object
    labels: object = None
    pos_label: object = None
    pos_index: object = None


def code_dtype(n_classes):
    """The integer dtype of the label codes."""
    return np.int8 if n_classes < 128 else np.int32


def class_plan(proba_cols, present, label_col):
    """Match the probability columns with the sorted distinct labels ``present``.

    Raises PredictionsFileError for a column that names no class, two columns of one
    class, labels without a column, or a single column not of the positive class.
    """
    classes = [_class_of_column(c, present, label_col) for c in proba_cols]
    keys = [_key(c) for c in classes]
    for i, ki in enumerate(keys):
        if ki in keys[:i]:
            j = keys.index(ki)
            raise PredictionsFileError(
                f"columns {proba_cols[j]!r} and {proba_cols[i]!r} name the same class"
            )
    present_keys = [_key(v) for v in present]
    col_keys = set(keys)
    missing = [v for v, k in zip(present, present_keys, strict=True) if k not in col_keys]
    if len(proba_cols) == 1:
        pos_label = classes[0]
        others = [v for v, k in zip(present, present_keys, strict=True) if k != keys[0]]
        if keys[0] not in present_keys and len(present) >= 2:
            raise PredictionsFileError(
                f"the only probability column {proba_cols[0]!r} must be named after the "
                f"positive class, one of the labels in column {label_col!r}: "
                f"{_list(present.tolist())}"
            )
        if len(others) > 1:
            raise PredictionsFileError(
                f"a single probability column ({proba_cols[0]!r}) is the positive-class "
                f"probability of a binary problem, but column {label_col!r} has "
                f"{len(present)} labels: {_list(present.tolist())}; give one column per class"
            )
        if len(present) == 2:
            return ClassPlan(
                [0],
                present,
                np.arange(2),
                pos_label=_py(pos_label),
                pos_index=present_keys.index(keys[0]),
            )
        if keys[0] not in present_keys:  # one label, not the positive class
            pair = sorted([present[0], pos_label], key=_key)
            return ClassPlan(
                [0],
                np.array(pair, dtype=present.dtype),
                np.array([pair.index(present[0])]),
                pos_label=_py(pos_label),
                pos_index=pair.index(pos_label),
            )
        # only the positive class occurs: the metrics name the negative class
        return ClassPlan([0], None, None, pos_label=_py(pos_label))
    if missing:
        raise PredictionsFileError(
            f"labels in column {label_col!r} without a probability column: "
            f"{_list([_py(v) for v in missing])} (the probability columns are "
            f"{_list(proba_cols)})"
        )
    order = sorted(range(len(classes)), key=lambda j: keys[j])
    cls = [classes[j] for j in order]
    labels = np.array(cls, dtype=present.dtype if present.dtype.kind in "biuf" else None)
    if labels.dtype.kind not in "biuf":
        labels = np.array(cls, dtype=object) if present.dtype.kind == "O" else np.array(cls)
    sorted_keys = [keys[j] for j in order]
    lut = np.array([sorted_keys.index(k) for k in present_keys], dtype=np.intp)
    return ClassPlan(order, labels, lut, labels=labels)


def _group_codes(columns, group_cols, text, model_col=None):
    """Each row's group (by-column values and model, in that order) and the group names,
    in order of first appearance: ``"region=EU, A"``."""
    group_cols = [c for c in group_cols if c is not None]
    combined, names = None, None
    for c in group_cols:
        if text:
            codes, values = _text_codes(columns[c])
        else:
            codes, values = _factorize(np.array([str(v) for v in columns[c]]))
        shown = [str(v) if c == model_col else f"{c}={v}" for v in values]
        if combined is None:
            combined, names = codes, shown
            continue
        pair = combined.astype(np.int64) * len(shown) + codes
        uniq, first, inv = np.unique(pair, return_index=True, return_inverse=True)
        rank = np.empty(len(uniq), dtype=np.intp)
        rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
        combined = rank[inv.reshape(-1)]
        ordered = uniq[np.argsort(first, kind="stable")]
        names = [f"{names[u // len(shown)]}, {shown[u % len(shown)]}" for u in ordered]
    return combined, np.array(names, dtype=object)


def check_group_columns(names, label_col, model_col, by):
    """Check the label, model and --by columns; the set of reserved column names."""
    if label_col not in names:
        raise PredictionsFileError(
            f"no label column {label_col!r} (choose it with --label-col); the columns are "
            f"{_list(names)}"
        )
    if model_col is not None:
        if model_col not in names:
            raise PredictionsFileError(
                f"no model column {model_col!r}; the columns are {_list(names)}"
            )
        if model_col == label_col:
            raise PredictionsFileError("the model column and the label column are the same")
    for c in by:
        if c not in names:
            raise PredictionsFileError(f"no --by column {c!r}; the columns are {_list(names)}")
        if c in (label_col, model_col):
            raise PredictionsFileError(
                f"--by column {c!r} is the {'label' if c == label_col else 'model'} column"
            )
    if len(set(by)) != len(by):
        raise PredictionsFileError("--by names a column twice")
    return {label_col, model_col, *by}


def resolve_proba_columns(names, proba_cols, reserved, *, label_col, model_col, where):
    """The probability columns of a table with the columns ``names``, and whether the
    caller gave them: ``proba_cols`` checked, or every column not ``reserved`` (label,
    model and ``--by`` columns).  ``where`` names the input in messages ("file")."""
    given = proba_cols is not None
    if proba_cols is None:
        proba_cols = [c for c in names if c not in reserved]
    else:
        for c in proba_cols:
            if c not in names:
                raise PredictionsFileError(
                    f"no probability column {c!r}; the columns are {_list(names)}"
                )
            if c in reserved:
                role = "label" if c == label_col else "model" if c == model_col else "--by"
                raise PredictionsFileError(
                    f"column {c!r} cannot be both a probability column and the {role} column"
                )
        if len(set(proba_cols)) != len(proba_cols):
            raise PredictionsFileError("--proba-cols names a column twice")
    if not proba_cols:
        raise PredictionsFileError(
            f"no probability columns: the {where} has only {_list(names)}; give one column "
            "of predicted probabilities per class, named by the class"
        )
    return list(proba_cols), given


def _table_to_predictions(columns, lines, *, text, title, label_col, proba_cols, model_col, by=()):
    names = list(columns)
    reserved = check_group_columns(names, label_col, model_col, by)
    proba_cols, given = resolve_proba_columns(
        names, proba_cols, reserved, label_col=label_col, model_col=model_col, where="file"
    )

    # the labels are encoded once: the rows' codes index ``present``, the sorted labels
    codes, present = _label_codes(columns[label_col], label_col, lines, text)
    upper = 1.0 if len(proba_cols) == 1 else 1.0 + RENORMALIZE_TOLERANCE
    cols = []
    for c in proba_cols:
        cols.append(_parse_numbers(columns[c], c, lines, text))
    plan = class_plan(proba_cols, present, label_col)
    for c, p in zip(proba_cols, cols, strict=True):
        _check_range(p, c, lines, proba_cols, given, upper)
    P = cols[plan.order[0]] if len(cols) == 1 else np.column_stack([cols[j] for j in plan.order])
    del cols
    if plan.classes is None:
        y = present[codes]
        codes = None
    else:
        codes = plan.lut[codes].astype(code_dtype(len(plan.classes)), copy=False)
        y = plan.classes[codes]
    labels, pos_label, pos_index = plan.labels, plan.pos_label, plan.pos_index
    enc_classes = plan.classes

    if model_col is None and not by:
        return Predictions(
            title=title,
            y_true=y,
            y_proba={"model": P},
            labels=labels,
            pos_label=_py(pos_label),
            lines={"model": lines} if lines is not None else {},
            classes=enc_classes,
            y_codes={"model": codes} if codes is not None else {},
            pos_index=pos_index,
        )
    model_codes, model_names = _group_codes(columns, [*by, model_col], text, model_col)
    order = np.argsort(model_codes, kind="stable")
    bounds = np.searchsorted(model_codes[order], np.arange(len(model_names) + 1))
    y_true, y_proba, model_lines, y_codes = {}, {}, {}, {}
    for u in range(len(model_names)):
        rows = order[bounds[u] : bounds[u + 1]]
        m = str(model_names[u])
        y_true[m] = y[rows]
        y_proba[m] = P[rows]
        if codes is not None:
            y_codes[m] = codes[rows]
        if lines is not None:
            model_lines[m] = lines[rows]
    return Predictions(
        title=title,
        y_true=y_true,
        y_proba=y_proba,
        labels=labels,
        pos_label=_py(pos_label),
        lines=model_lines,
        classes=enc_classes,
        y_codes=y_codes,
        pos_index=pos_index,
    )


def _renormalize(P, offset=0):
    P = np.asarray(P, dtype=np.float64)
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


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def _list(items, limit=8):
    items = [str(_py(v)) for v in items]
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__
