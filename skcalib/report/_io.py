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

CSV files are read with the standard library (pandas is not needed); Parquet files need
pandas and pyarrow.
"""

from __future__ import annotations

import csv
import math
import os
import re
import zipfile
from dataclasses import dataclass, field

import numpy as np

__all__ = ["PredictionsFileError", "Predictions", "read_predictions"]

#: Largest deviation of a row sum from 1 that ``renormalize=True`` accepts.
RENORMALIZE_TOLERANCE = 0.01


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


def read_predictions(path, *, label_col=None, proba_cols=None, model_col=None, renormalize=False):
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
    if ext == ".npz":
        for opt, val in (
            ("--label-col", label_col),
            ("--proba-cols", proba_cols),
            ("--model-col", model_col),
        ):
            if val is not None:
                raise PredictionsFileError(
                    f"{opt} applies to .csv and .parquet tables, not to .npz files "
                    "(which hold arrays y_true, y_proba and optionally labels)"
                )
        pred = _read_npz(path, stem)
    elif ext in (".csv", ".parquet", ".pq"):
        if ext == ".csv":
            columns, lines = _read_csv(path)
            text = True
        else:
            columns, lines = _read_parquet(path), None
            text = False
        pred = _table_to_predictions(
            columns,
            lines,
            text=text,
            title=stem,
            label_col="y" if label_col is None else label_col,
            proba_cols=proba_cols,
            model_col=model_col,
        )
    else:
        raise PredictionsFileError(
            f"unsupported file type {ext or '(no extension)'!r}: expected .csv, .parquet or .npz"
        )
    if renormalize:
        pred.y_proba = {m: _renormalize(p) for m, p in pred.y_proba.items()}
    return pred


# ------------------------------------------------------------------------------ readers
def _read_csv(path):
    """Columns of a CSV file as lists of stripped strings, and each row's line number."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            while header is not None and not any(h.strip() for h in header):
                header = next(reader, None)  # leading blank lines
            if header is None:
                raise PredictionsFileError("the file is empty (expected a header row)")
            header = [h.strip() for h in header]
            _check_names(header)
            rows, lines = [], []
            for row in reader:
                if not row or not any(v.strip() for v in row):
                    continue
                if len(row) != len(header):
                    raise PredictionsFileError(
                        f"line {reader.line_num} has {len(row)} fields but the header has "
                        f"{len(header)}"
                    )
                rows.append(row)
                lines.append(reader.line_num)
    except UnicodeDecodeError as exc:
        raise PredictionsFileError(f"not a UTF-8 text CSV file ({exc.reason})") from exc
    except csv.Error as exc:
        raise PredictionsFileError(f"not a valid CSV file: {exc}") from exc
    if not rows:
        raise PredictionsFileError("the file has a header but no data rows")
    cols = [[v.strip() for v in col] for col in zip(*rows, strict=True)]
    return dict(zip(header, cols, strict=True)), np.asarray(lines)


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


def _check_names(names):
    for i, name in enumerate(names):
        if not name:
            raise PredictionsFileError(f"column {i + 1} of the header has no name")
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


def _parse_labels(values, name, lines):
    """Type a text label column: integers, else finite floats, else strings."""
    for i, v in enumerate(values):
        if v == "":
            raise PredictionsFileError(f"label column {name!r} is empty at {_where(lines, i)}")
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


def _parse_numbers(values, name, lines, text):
    """A probability column as float64, or an error naming the first bad cell."""
    if not text:
        arr = np.asarray(values)
        if arr.dtype.kind in "biuf":
            return arr.astype(np.float64, copy=False)
        values = list(arr)
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    for i, v in enumerate(values):
        try:
            float(v)
        except (TypeError, ValueError):
            what = "an empty cell" if v == "" or v is None else repr(v)
            raise PredictionsFileError(
                f"probability column {name!r} is not numeric: {what} at {_where(lines, i)} "
                "(name the probability columns with --proba-cols if other columns are present)"
            ) from None
    raise PredictionsFileError(f"probability column {name!r} is not numeric")  # pragma: no cover


def _class_of_column(name, y, label_col):
    """The class label (typed as the labels) that probability column ``name`` stands for."""
    kind = y.dtype.kind
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
        for v in np.unique(y):
            if _key(v) == k:
                return v
        return name
    raise PredictionsFileError(
        f"probability column {name!r} does not name a class: the labels in column "
        f"{label_col!r} are {'booleans' if kind == 'b' else 'numbers'} "
        "(name the probability columns with --proba-cols if other columns are present)"
    )


def _table_to_predictions(columns, lines, *, text, title, label_col, proba_cols, model_col):
    names = list(columns)
    if label_col not in columns:
        raise PredictionsFileError(
            f"no label column {label_col!r} (choose it with --label-col); the columns are "
            f"{_list(names)}"
        )
    if model_col is not None:
        if model_col not in columns:
            raise PredictionsFileError(
                f"no model column {model_col!r}; the columns are {_list(names)}"
            )
        if model_col == label_col:
            raise PredictionsFileError("the model column and the label column are the same")
    reserved = {label_col, model_col}
    if proba_cols is None:
        proba_cols = [c for c in names if c not in reserved]
    else:
        for c in proba_cols:
            if c not in columns:
                raise PredictionsFileError(
                    f"no probability column {c!r}; the columns are {_list(names)}"
                )
            if c in reserved:
                raise PredictionsFileError(
                    f"column {c!r} cannot be both a probability column and the "
                    f"{'label' if c == label_col else 'model'} column"
                )
        if len(set(proba_cols)) != len(proba_cols):
            raise PredictionsFileError("--proba-cols names a column twice")
    if not proba_cols:
        raise PredictionsFileError(
            f"no probability columns: the file has only {_list(names)}; give one column of "
            "predicted probabilities per class, named by the class"
        )

    y = (
        _parse_labels(columns[label_col], label_col, lines)
        if text
        else np.asarray(columns[label_col])
    )
    P = np.column_stack([_parse_numbers(columns[c], c, lines, text) for c in proba_cols])
    classes = [_class_of_column(c, y, label_col) for c in proba_cols]
    keys = [_key(c) for c in classes]
    for i, ki in enumerate(keys):
        if ki in keys[:i]:
            j = keys.index(ki)
            raise PredictionsFileError(
                f"columns {proba_cols[j]!r} and {proba_cols[i]!r} name the same class"
            )
    try:
        present = np.unique(y)
    except TypeError:  # mixed objects in a Parquet column
        present = np.unique(y.astype(str))
    col_keys = set(keys)
    missing = [v for v in present if _key(v) not in col_keys]

    pos_label = None
    labels = None
    if len(proba_cols) == 1:
        pos_label = classes[0]
        others = [v for v in present if _key(v) != keys[0]]
        if _key(pos_label) not in {_key(v) for v in present} and len(present) >= 2:
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
        P = P[:, 0]
    else:
        if missing:
            raise PredictionsFileError(
                f"labels in column {label_col!r} without a probability column: "
                f"{_list([_py(v) for v in missing])} (the probability columns are "
                f"{_list(proba_cols)})"
            )
        order = sorted(range(len(classes)), key=lambda j: keys[j])
        P = P[:, order]
        cls = [classes[j] for j in order]
        labels = np.array(cls, dtype=y.dtype if y.dtype.kind in "biuf" else None)
        if labels.dtype.kind not in "biuf":
            labels = np.array(cls, dtype=object) if y.dtype.kind == "O" else np.array(cls)

    if model_col is None:
        return Predictions(
            title=title,
            y_true=y,
            y_proba={"model": P},
            labels=labels,
            pos_label=_py(pos_label),
            lines={"model": lines} if lines is not None else {},
        )
    mv = np.array([str(v) for v in columns[model_col]])
    uniq, first, inverse = np.unique(mv, return_index=True, return_inverse=True)
    y_true, y_proba, model_lines = {}, {}, {}
    for u in np.argsort(first, kind="stable"):
        mask = inverse == u
        m = str(uniq[u])
        y_true[m] = y[mask]
        y_proba[m] = P[mask]
        if lines is not None:
            model_lines[m] = lines[mask]
    return Predictions(
        title=title,
        y_true=y_true,
        y_proba=y_proba,
        labels=labels,
        pos_label=_py(pos_label),
        lines=model_lines,
    )


def _renormalize(P):
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        return P
    s = P.sum(axis=1)
    bad = ~(np.abs(s - 1) <= RENORMALIZE_TOLERANCE)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PredictionsFileError(
            f"--renormalize only fixes rounding: row {i} sums to {float(s[i])!r}, more than "
            f"{RENORMALIZE_TOLERANCE} away from 1"
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
