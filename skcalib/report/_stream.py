"""The report of a CSV or Parquet table, computed record batch by record batch.

Each batch is read once (:meth:`~skcalib.report._io.Table.batches`), its labels are
encoded to the class codes ``0..k-1`` and its groups (model, ``--by`` values) to integer
codes by running key -> code dicts (a few Python operations per *distinct* value of a
batch, never per row), and one call of
:func:`~skcalib.metrics._statistics.chunk_statistics` with those group codes gives the
statistics of every group of the batch, merged into those of the batches before.  Memory
is bounded by the size of a batch and the number of groups, never by the number of rows;
the equal-width numbers (ECE, MCE, SCE, the reliability curve, Brier score, accuracy) are
those of the in-memory metrics on the same rows, and the equal-mass RMSCE takes its edges
on the fine histogram of :class:`~skcalib.streaming.CalibrationAccumulator`.

Group keys are values: a null is a group of its own (shown ``null``; a text value that
could be confused with it, or holds ``", "`` or ``"="``, is shown quoted), several
columns make a tuple.  Groups are reported sorted by key, followed by the overall row
(one per model with a model column).
"""

from __future__ import annotations

import copy
import dataclasses
import re

import numpy as np

from .._core._validation import check_classification_input
from ..metrics._calibration._binned import curve_from_bin_stats
from ..metrics._calibration._statistical import _hosmer_lemeshow
from ..metrics._groups._by_group import adjust_pvalues
from ..metrics._statistics import chunk_statistics
from ..streaming import CalibrationAccumulator
from ._io import (
    RENORMALIZE_TOLERANCE,
    PredictionsFileError,
    _is_number,
    _pyarrow,
    label_key,
    listed,
    one_line,
)
from ._io import renormalize as _renormalize
from ._report import CalibrationReport, MetricColumn, _metric_columns

__all__ = ["TableReport", "report_from_accumulators", "stream_report"]

_INT_RE = re.compile(r"[+-]?\d+")
_NUMBERS_HINT = "(name the probability columns with --proba-cols if other columns are present)"


class _Labels:
    """Label values -> class codes, by a dict over the distinct values of each batch."""

    def __init__(self, proba_cols, label_col, given, labels=None, text=True):
        self.cols, self.label_col, self.given = list(proba_cols), label_col, given
        self.text = text  # labels read as text (CSV): typed from their values
        keys = [label_key(c) for c in proba_cols]
        for i, k in enumerate(keys):
            if k in keys[:i]:
                raise PredictionsFileError(
                    f"columns {proba_cols[keys.index(k)]!r} and {proba_cols[i]!r} name the "
                    "same class"
                )
        order = sorted(range(len(keys)), key=lambda j: keys[j])
        self.order = order  # probability columns in class order
        self.index = {keys[j]: i for i, j in enumerate(order)}
        self.pos_key = keys[0] if len(keys) == 1 else None
        self.allowed = None if labels is None else {label_key(v): v for v in labels}
        self.seen = {}  # label value -> code
        self.values = {}  # key -> first label value of that key

    @property
    def single(self):
        return len(self.cols) == 1

    def encode(self, arr, where):
        pa, pc, _, _ = _pyarrow()
        if arr.null_count:
            i = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
            raise _Located(f"label column {self.label_col!r} is empty at {{row {i}}}", where)
        enc = pc.dictionary_encode(arr)
        if isinstance(enc, pa.ChunkedArray):
            enc = enc.combine_chunks()
        values = enc.dictionary.to_pylist()
        new = [v for v in values if v not in self.seen]
        for v in new:
            k = label_key(v)
            if self.allowed is not None and k not in self.allowed:
                i = int(np.flatnonzero(np.asarray(arr.to_pylist(), dtype=object) == v)[0])
                raise _Located(
                    f"label {v!r} at {{row {i}}} is not among the classes "
                    f"{listed(self.allowed.values())} (given with --labels)",
                    where,
                )
            if v == "":
                i = values.index(v)
                i = int(np.flatnonzero(enc.indices.to_numpy(zero_copy_only=False) == i)[0])
                raise _Located(f"label column {self.label_col!r} is empty at {{row {i}}}", where)
            self.values.setdefault(k, v)
        if new:
            self._check()
            for v in new:
                k = label_key(v)
                self.seen[v] = int(k == self.pos_key) if self.single else self.index[k]
        lut = np.array(
            [self.seen[v] for v in values], dtype=np.int32 if len(values) > 127 else np.int8
        )
        return lut[enc.indices.to_numpy(zero_copy_only=False)]

    def _check(self):
        """Raise for labels that fit no column (the messages name every label seen)."""
        keys = list(self.values)
        numbers = all(k[0] == "num" for k in keys)
        shown = listed(self._typed(sorted(keys)))
        if self.single:
            name, (kind, _) = self.cols[0], self.pos_key
            others = [k for k in keys if k != self.pos_key]
            if (
                kind == "str"
                and numbers
                and self.given
                and set(keys) <= {("num", 0.0), ("num", 1.0), ("num", -1.0)}
                and not {("num", 0.0), ("num", -1.0)} <= set(keys)
            ):
                self.pos_key = ("num", 1.0)  # P(class 1), as the metrics' default
                return
            if kind == "str" and numbers:
                hint = _NUMBERS_HINT
                if set(keys) <= {("num", 0.0), ("num", 1.0), ("num", -1.0)}:
                    hint = (
                        f"(if it is the probability of class 1, give it with --proba-cols {name}; "
                        "if other columns are present, name the probability columns with "
                        "--proba-cols)"
                    )
                raise PredictionsFileError(
                    f"probability column {name!r} does not name a class: the labels in "
                    f"column {self.label_col!r} are numbers {hint}"
                )
            if others and self.pos_key not in keys and len(keys) >= 2:
                raise PredictionsFileError(
                    f"the only probability column {name!r} must be named after the positive "
                    f"class, one of the labels in column {self.label_col!r}: {shown}"
                )
            if len(others) > 1:
                raise PredictionsFileError(
                    f"a single probability column ({name!r}) is the positive-class "
                    f"probability of a binary problem, but column {self.label_col!r} has "
                    f"{len(keys)} labels: {shown}; give one column per class"
                )
            return
        if numbers:
            for c in self.cols:
                if label_key(c)[0] == "str":
                    raise PredictionsFileError(
                        f"probability column {c!r} does not name a class: the labels in "
                        f"column {self.label_col!r} are numbers {_NUMBERS_HINT}"
                    )
        missing = [k for k in sorted(keys) if k not in self.index]
        if missing:
            raise PredictionsFileError(
                f"labels in column {self.label_col!r} without a probability column: "
                f"{listed(self._typed(missing))} (the probability columns are "
                f"{listed(self.cols)})"
            )

    def _typed(self, keys):
        """The labels of ``keys``, as integers, floats, booleans or text."""
        vals = [
            self.values.get(k, self.cols[self.order[self.index[k]]] if k in self.index else k[1])
            for k in keys
        ]
        if all(isinstance(v, bool) for v in vals) and vals:
            return vals
        if not self.text and any(isinstance(v, str) for v in self.values.values()):
            return [str(v) for v in vals]
        if all(k[0] == "num" for k in keys):
            ints = all(
                isinstance(v, int) or (isinstance(v, str) and _INT_RE.fullmatch(v)) for v in vals
            )
            return [int(k[1]) if ints else float(k[1]) for k in keys]
        return [str(v) for v in vals]

    def classes(self):
        """The classes in code order, and the positive class (binary) or None."""
        if not self.single:
            keys = sorted(self.index)
            seen = [k for k in keys if k in self.values]
            kinds = self._typed(seen) if seen else []
            typed = dict(zip(seen, kinds, strict=True))
            if seen and all(isinstance(v, int | float) and not isinstance(v, bool) for v in kinds):
                f = int if all(isinstance(v, int) for v in kinds) else float
                return [typed.get(k, f(k[1])) if k[0] == "num" else k[1] for k in keys], None
            return [typed.get(k, self.cols[self.order[i]]) for i, k in enumerate(keys)], None
        keys = list(self.values)
        if self.pos_key not in keys:
            keys.append(self.pos_key)
        typed = dict(zip(keys, self._typed(keys), strict=True))
        pos = typed[self.pos_key]
        neg = [typed[k] for k in keys if k != self.pos_key]
        if not neg:  # the negative class never occurs: named as the metrics name it
            try:
                data = check_classification_input([pos], [0.5], pos_label=pos)
                neg = [v for v in data.classes.tolist() if v != pos]
            except ValueError:
                neg = [f"not {pos}"]
        return [neg[0], pos], pos


class _Located(PredictionsFileError):
    """A message with a ``{row i}`` placeholder, located in its file by the reader."""

    def __init__(self, message, where):
        super().__init__(message)
        self.message, self.where = message, where


def _show(value):
    """A group value as shown in a row name (nulls and confusable text quoted)."""
    if value is None:
        return "null"
    if isinstance(value, str) and (
        value in ("null", "") or ", " in value or "=" in value or value[:1] in "'\""
    ):
        return repr(value)
    return str(value)


def _sort_key(key):
    return tuple((v is None, "" if v is None else v) for v in key)


class _Groups:
    """Group key (a tuple of values of the group columns) -> group code, by batch."""

    def __init__(self, columns):
        self.columns, self.keys, self.index = list(columns), [], {}

    def encode(self, batch):
        if not self.columns:
            return None
        pa, pc, _, _ = _pyarrow()
        parts = []
        for c in self.columns:
            enc = pc.dictionary_encode(batch.column(c), null_encoding="encode")
            if isinstance(enc, pa.ChunkedArray):
                enc = enc.combine_chunks()
            parts.append(
                (
                    enc.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                    enc.dictionary.to_pylist(),
                )
            )
        packed, values = parts[0][0], [(v,) for v in parts[0][1]]
        for idx, vals in parts[1:]:
            packed = packed * len(vals) + idx
            values = [a + (b,) for a in values for b in vals]
        if len(parts) > 1:  # the combinations that occur, by hashing
            enc = pc.dictionary_encode(pa.array(packed))
            packed = enc.indices.to_numpy(zero_copy_only=False)
            values = [values[u] for u in enc.dictionary.to_pylist()]
        for key in values:
            if key not in self.index:
                self.index[key] = len(self.keys)
                self.keys.append(key)
        lut = np.array([self.index[k] for k in values], dtype=np.intp)
        return lut[packed]


def _grow(st, n_groups):
    """``st`` with empty groups appended up to ``n_groups``."""
    if st.n_groups == n_groups:
        return st
    fields = {}
    for name in st.summed_fields():
        a = getattr(st, name)
        fields[name] = np.concatenate([a, np.zeros((n_groups - a.shape[0], *a.shape[1:]), a.dtype)])
    return _derived(st, fields)


def _derived(st, fields):
    """``st`` with the tables ``fields``, computed from its validated tables (empty groups
    appended, groups selected or summed): valid by construction, so not validated again,
    which would read every table of every group once more."""
    out = copy.copy(st)  # a dataclass copy: no __post_init__
    out.__dict__.update(fields)
    return out


def _add_statistics(st, data, n_bins, g, n_groups):
    """Add the statistics of validated rows of group codes ``g`` (or None) into ``st``,
    in place: with groups, ``chunk_statistics(out=st)`` adds each chunk of rows at the
    (group, bin) cells it occupies only, whatever the number of groups."""
    if g is None:
        st.merge(chunk_statistics(data, n_bins))
    else:
        chunk_statistics(data, n_bins, groups=g, n_groups=n_groups, out=st)


def _sum_groups(st, groups):
    """The statistics of the union of ``groups`` (one group)."""
    if len(groups) == 1:  # one group: views of its tables
        g = groups[0]
        return _derived(st, {name: getattr(st, name)[g : g + 1] for name in st.summed_fields()})
    every = len(groups) == st.n_groups  # the overall row: no copy of the tables
    fields = {
        name: (getattr(st, name) if every else getattr(st, name)[groups]).sum(axis=0, keepdims=True)
        for name in st.summed_fields()
    }
    return _derived(st, fields)


_AT = re.compile(r"(y_proba\[)(\d+)((?:, \d+)?\])|(\b(?:row|index) )(\d+)")


class TableReport:
    """The statistics of a table, batch by batch (see the module docstring).

    Parameters
    ----------
    table : Table
        The opened table (:func:`~skcalib.report._io.open_table`).
    label_col, proba_cols, model_col, by, labels, renormalize, n_bins
        As the options of ``skcalib report``.
    keep_rows : bool, default=False
        Also keep the encoded rows (for the figures of in-memory predictions).
    """

    def __init__(self, table, *, label_col=None, proba_cols=None, model_col=None, by=(),
                 labels=None, renormalize=False, n_bins=15, keep_rows=False):  # fmt: skip
        self.table, self.n_bins, self.renormalize = table, n_bins, renormalize
        self.label_col = "y" if label_col is None else label_col
        self.model_col, self.by = model_col, list(by)
        names = table.names
        reserved = _check_columns(names, self.label_col, model_col, self.by)
        given = proba_cols is not None
        if proba_cols is None:
            proba_cols = [c for c in names if c not in reserved and self._numeric(c)]
        else:
            for c in proba_cols:
                if c not in names:
                    raise PredictionsFileError(
                        f"no probability column {c!r}; the columns are {listed(names)}"
                    )
                if c in reserved:
                    role = "label" if c == self.label_col else "model" if c == model_col else "--by"
                    raise PredictionsFileError(
                        f"column {c!r} cannot be both a probability column and the {role} column"
                    )
            if len(set(proba_cols)) != len(proba_cols):
                raise PredictionsFileError("--proba-cols names a column twice")
            if table.fmt == "parquet":
                for c in proba_cols:
                    if c not in table.numeric:
                        typ = table.dataset.schema.field(c).type
                        raise PredictionsFileError(
                            f"probability column {c!r} is not numeric (type {typ}) {_NUMBERS_HINT}"
                        )
        if not proba_cols:
            raise PredictionsFileError(
                f"no probability columns: the file has only {listed(names)}; give one column "
                "of predicted probabilities per class, named by the class"
            )
        self.proba_cols, self.given = list(proba_cols), given
        self.labels = _Labels(proba_cols, self.label_col, given, labels, table.fmt == "csv")
        self.groups = _Groups([*self.by, *([model_col] if model_col else [])])
        self.keep = [] if keep_rows else None
        self.stats = self.data = None
        self.n_rows = 0

    def _numeric(self, c):
        """Whether column ``c`` can be a probability column: numbers (Parquet); for CSV,
        a column pyarrow reads as numbers or whose first values hold a number."""
        if c in self.table.numeric:
            return True
        if self.table.fmt == "parquet":
            return False
        batch, _ = next(self.table.batches([c], rows=1000), (None, None))
        if batch is None:
            return True
        values = [v for v in batch.column(0).to_pylist()[:1000] if v is not None]
        return not values or any(_is_number(v) for v in values)

    @property
    def columns(self):
        """The columns read from each batch."""
        return [self.label_col, *self.proba_cols, *self.groups.columns]

    def run(self, progress=None):
        """Read and add every batch; returns self."""
        t = self.table
        text = [self.label_col, *self.groups.columns] if t.fmt == "csv" else []
        self.add(t.batches(self.columns, text=text, floats=self.proba_cols), progress)
        if self.n_rows == 0:
            raise PredictionsFileError(
                "the file has a header but no data rows"
                if t.fmt == "csv"
                else "the table has no rows"
            )
        return self

    def add(self, batches, progress=None):
        """Add ``(batch, (file name, first row))`` items; returns self."""
        pa = _pyarrow()[0]
        try:
            for batch, (where, offset) in batches:
                try:
                    self._add(batch, where, offset)
                except _Located as exc:
                    raise PredictionsFileError(self._where(exc.message, where, offset)) from None
                if progress is not None:
                    progress.update(batch.num_rows)
        except pa.ArrowException as exc:
            raise PredictionsFileError(f"not a readable table: {one_line(exc)}") from exc
        return self

    def _where(self, message, where, offset):
        """``{row i}`` of a message as the file line (CSV) or row of the file."""

        def at(i):
            line = self.table.line(where, offset + i)
            return f"line {line}" if line is not None else f"row {offset + i} of {where}"

        return re.sub(r"\{row (\d+)\}", lambda m: at(int(m.group(1))), message)

    def _add(self, batch, where, offset):
        y = self.labels.encode(batch.column(self.label_col), where)
        P = self._proba(batch)
        if self.renormalize:
            P = _renormalize(P, offset)
        g = self.groups.encode(batch)
        n_groups = max(len(self.groups.keys), 1)
        self._g = g
        k = 2 if self.labels.single else len(self.proba_cols)
        try:
            data = check_classification_input(
                y, P, labels=np.arange(k), pos_label=1 if k == 2 and P.ndim == 1 else None
            )
        except ValueError as exc:
            raise PredictionsFileError(self._locate(str(exc), where, offset)) from exc
        self.data = self.data or (data.classes, data.pos_index)
        if self.stats is None:  # empty statistics of the mode and classes of the data
            first = dataclasses.replace(
                data, y=data.y[:1], proba=data.proba[:1], sample_weight=None
            )
            self.stats = chunk_statistics(first, self.n_bins)
            for name in self.stats.summed_fields():
                getattr(self.stats, name)[...] = 0
        self.stats = _grow(self.stats, n_groups)
        _add_statistics(self.stats, data, self.n_bins, g, n_groups)
        self.n_rows += batch.num_rows
        self._keep(y, P, g)

    def _keep(self, y, P, g):
        if self.keep is not None:
            self.keep.append((y, P, g))

    def _locate(self, message, where, offset):
        column = []

        def sub(m):
            if m.group(1):
                j = re.findall(r"\d+", m.group(3))
                if j:
                    column.append(self.proba_cols[self.labels.order[int(j[0])]])
                return f"{m.group(1)}{{row {m.group(2)}}}{m.group(3)}"
            return f"{m.group(4)}{{row {m.group(5)}}}"

        out = _AT.sub(sub, message)
        first = re.findall(r"\{row (\d+)\}", out)
        if first and self._g is not None:
            key = self.groups.keys[self._g[int(first[0])]]
            out = f"model {self._row_name(key)!r}: {out}"
        if self.table.fmt == "csv":
            lines = re.findall(r"\{row (\d+)\}", out)
            out = re.sub(r"\{row (\d+)\}", lambda m: str(offset + int(m.group(1))), out)
            if lines:
                line = self._where("{row " + lines[0] + "}", where, offset)
                out += f" (row {offset + int(lines[0])} is {line} of the file)"
            return out
        out = re.sub(r"\{row (\d+)\}", lambda m: str(offset + int(m.group(1))), out)
        return f"{out} (rows of {where}{f', column {column[0]!r}' if column else ''})"

    def _proba(self, batch):
        cols = [self.proba_cols[j] for j in self.labels.order]
        arrays = []
        for c in cols:
            arr = batch.column(c)
            if arr.null_count:
                i = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
                raise _Located(
                    f"probability column {c!r} is not numeric: an empty cell at {{row {i}}} "
                    + _NUMBERS_HINT
                    if self.table.fmt == "csv"
                    else f"probability column {c!r} is empty at {{row {i}}}",
                    None,
                )
            arrays.append(arr.to_numpy(zero_copy_only=False))
        upper = 1.0 if len(arrays) == 1 else 1.0 + RENORMALIZE_TOLERANCE
        for c, a in zip(cols, arrays, strict=True):
            if a.min() >= 0 and a.max() <= upper:  # False for NaN
                continue
            bad = np.flatnonzero((a < 0) | (a > upper))
            if bad.size:
                i = int(bad[0])
                msg = f"probability column {c!r} has {float(a[i])!r} at {{row {i}}}, outside [0, 1]"
                others = [o for o in self.proba_cols if o != c]
                if not self.given and others:
                    msg += (
                        f"; if {c!r} is not a probability column (an id, a feature), list the "
                        "probability columns with --proba-cols (e.g. --proba-cols "
                        f"{','.join(others)})"
                    )
                raise _Located(msg, None)
        if len(arrays) == 1:
            return (
                arrays[0].astype(np.float64, copy=False)
                if arrays[0].dtype.kind != "f"
                else arrays[0]
            )
        dtype = np.float32 if all(a.dtype == np.float32 for a in arrays) else np.float64
        P = np.empty((batch.num_rows, len(arrays)), dtype=dtype)
        for j, a in enumerate(arrays):
            P[:, j] = a
        return P

    # ------------------------------------------------------------------------- results
    def rows(self):
        """``[(row name, group key or None for an overall row, group codes)]``, groups
        sorted by key and then the overall row(s)."""
        keys = self.groups.keys
        if not keys:
            return [("model", None, [0])]
        order = sorted(range(len(keys)), key=lambda g: _sort_key(keys[g]))
        model = self.model_col is not None
        out = []
        for g in order:
            out.append((self._row_name(keys[g]), keys[g], [g]))
        if not self.by:
            return out
        if not model:
            return [*out, ("overall", None, list(range(len(keys))))]
        models = sorted({k[-1] for k in keys}, key=lambda v: (v is None, "" if v is None else v))
        for m in models:
            out.append(
                (str(m) if m is not None else "null", None, [g for g in order if keys[g][-1] == m])
            )
        return out

    def _row_name(self, key):
        parts = [f"{c}={_show(v)}" for c, v in zip(self.by, key, strict=False)]
        if self.model_col is not None:
            parts.append(str(key[-1]) if key[-1] is not None else "null")
        return ", ".join(parts)

    def report(self):
        """The :class:`~skcalib.report.CalibrationReport` of the rows read."""
        classes, pos = self.labels.classes()
        codes, pos_index = self.data
        accs, groups = {}, {}
        for name, key, members in self.rows():
            st = _sum_groups(self.stats, members)
            acc = CalibrationAccumulator(n_bins=self.n_bins, labels=codes, pos_label=pos_index)
            acc._add(st, codes, pos_index, copy=False)
            accs[name], groups[name] = acc, key
        report = report_from_accumulators(
            accs, n_bins=self.n_bins, title=self.table.title, classes=classes
        )
        if pos is not None:
            report.positive_class = dict.fromkeys(report.models, pos)
            for m in report.models:
                report.classes[m] = np.array(
                    sorted(classes, key=label_key), dtype=object if isinstance(pos, str) else None
                )
        report.groups = groups
        report.group_columns = list(self.groups.columns)
        if self.by:
            family = (lambda key: key[-1]) if self.model_col is not None else (lambda key: None)
            _add_hosmer_lemeshow(report, accs, groups, family)
        return report

    def inputs(self, report):
        """The predictions of each row of ``report`` (kept rows), for the figures."""
        y = np.concatenate([k[0] for k in self.keep])
        P = np.concatenate([k[1] for k in self.keep])
        g = None if self.keep[0][2] is None else np.concatenate([k[2] for k in self.keep])
        k = 2 if self.labels.single else len(self.proba_cols)
        out = {
            "y_true": {},
            "y_proba": {},
            "labels": np.arange(k),
            "pos_label": 1 if P.ndim == 1 else None,
        }
        for name, _, members in self.rows():
            rows = slice(None) if g is None else np.isin(g, members)
            out["y_true"][name], out["y_proba"][name] = y[rows], P[rows]
        return out


#: keys of the p-value columns of a grouped report
HL_PVALUE, HL_HOLM = "hosmer_lemeshow_pvalue", "hosmer_lemeshow_pvalue_holm"


def _add_hosmer_lemeshow(report, accs, groups, family):
    """Add the Hosmer-Lemeshow p-value of each row of a grouped ``report`` and, for the
    group rows, the p-value adjusted by Holm's step-down over the groups of one family
    (one model: ``family(key)``); the overall rows get NaN for the adjusted one.

    The test runs on each row's equal-width bins (the streamed sums of
    :meth:`~skcalib.streaming.CalibrationAccumulator.bin_stats`: binary positive class
    or top label, as the rest of the report), so its p-value is that of
    ``hosmer_lemeshow_test(y, p, n_groups=n_bins, strategy="uniform")`` on the rows.
    """
    pvalues = {}
    for name, acc in accs.items():
        bs = acc.bin_stats()
        pvalues[name] = _hosmer_lemeshow(
            bs.count[0], bs.sum_true[0], bs.sum_proba[0], "holdout"
        ).pvalue
    adjusted = dict.fromkeys(accs, float("nan"))
    families = {}
    for name, key in groups.items():
        if key is not None:
            families.setdefault(family(key), []).append(name)
    for names in families.values():
        adj = adjust_pvalues([pvalues[n] for n in names], method="holm")
        adjusted.update(zip(names, adj.tolist(), strict=True))
    width = f"{report.n_bins} equal-width bins"
    report.columns = [
        *report.columns,
        MetricColumn(HL_PVALUE, "HL p", True, "Hosmer-Lemeshow calibration test p-value", width),
        MetricColumn(
            HL_HOLM,
            "HL p (Holm)",
            True,
            "Hosmer-Lemeshow p-value adjusted for the number of groups (Holm)",
            width,
        ),
    ]
    for name in accs:
        report.values[name][HL_PVALUE] = float(pvalues[name])
        report.values[name][HL_HOLM] = float(adjusted[name])


def _check_columns(names, label_col, model_col, by):
    """Check the label, model and --by columns; the set of reserved column names."""
    if label_col not in names:
        raise PredictionsFileError(
            f"no label column {label_col!r} (choose it with --label-col); the columns are "
            + listed(names)
        )
    if model_col is not None:
        if model_col not in names:
            raise PredictionsFileError(
                f"no model column {model_col!r}; the columns are {listed(names)}"
            )
        if model_col == label_col:
            raise PredictionsFileError("the model column and the label column are the same")
    for c in by:
        if c not in names:
            raise PredictionsFileError(f"no --by column {c!r}; the columns are {listed(names)}")
        if c in (label_col, model_col):
            raise PredictionsFileError(
                f"--by column {c!r} is the {'label' if c == label_col else 'model'} column"
            )
    if len(set(by)) != len(by):
        raise PredictionsFileError("--by names a column twice")
    return {label_col, model_col, *by}


def stream_report(path, *, label_col=None, proba_cols=None, model_col=None, by=(), labels=None,
                  renormalize=False, n_bins=15, sep=None, progress=None):  # fmt: skip
    """The report of a CSV or Parquet file, directory or glob, read batch by batch.

    Returns
    -------
    CalibrationReport
        With ``groups`` (row name -> group key, None for an overall row).
    """
    from ._io import open_table

    table = open_table(path, sep=sep)
    run = TableReport(table, label_col=label_col, proba_cols=proba_cols, model_col=model_col,
                      by=by, labels=labels, renormalize=renormalize, n_bins=n_bins)  # fmt: skip
    if progress is not None and table.fmt == "parquet":
        progress.total = table.dataset.count_rows()
    try:
        run.run(progress)
    finally:
        if progress is not None:
            progress.close()
    return run.report()


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
            pos = names[pos].item() if isinstance(names[pos], np.generic) else names[pos]
        positive[m] = pos
        curves[m] = curve_from_bin_stats(acc.bin_stats())  # no parameter check a group
    multiclass = any(len(cls[m]) > 2 for m in models)
    columns = _metric_columns(n_bins, multiclass, streamed=streamed)
    for m in models:
        values[m].setdefault("static_calibration_error", float("nan"))
        values[m] = {c.key: values[m][c.key] for c in columns}
    report = CalibrationReport(
        title=title, models=models, columns=columns, values=values, n_samples=n_samples,
        classes=cls, positive_class=positive, curves=curves, n_bins=n_bins,
    )  # fmt: skip
    # the HTML page and the PNG diagrams draw intervals and class-wise curves from these
    report._accumulators = dict(zip(models, accumulators.values(), strict=True))
    return report
