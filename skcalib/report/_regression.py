"""``skcalib report --regression``: uncertainty metrics of saved regression predictions.

File format
-----------
CSV and Parquet (read by the report's reader, :func:`~skcalib.report._io.open_table`,
record batch by record batch): one row per sample, a label column (``--label-col``,
default ``"y"``) holding the observed value, and the predictive distribution in one of
three forms, detected from the column names or named with options:

* ``mean`` and ``std`` columns (``--mean-col``, ``--std-col``): Normal distributions
  ``scipy.stats.norm(mean, std)``;
* quantile columns named by their level, ``q0.05``, ``q0.5``, ``q0.95``
  (``--quantile-cols``): :class:`~skcalib.metrics.PredictiveQuantiles`;
* ``lower`` and ``upper`` columns (``--interval-cols LOWER,UPPER``) with ``--coverage``:
  :class:`~skcalib.metrics.PredictionInterval`.

Every number but the ENCE comes from a :class:`~skcalib.streaming.RegressionAccumulator`
per group (``--model-col`` and ``--by`` values, grouped by the reader's group codes),
updated batch by batch and merged for the overall rows, so memory is bounded by a batch
and the number of groups; the accumulator's numbers are those of the batch functions
of :mod:`skcalib.metrics`.  The ENCE bins the predicted standard deviations by equal
count, which needs every row: it is computed on the rows of a CSV file (read into
memory) and left out of a streamed Parquet table, as the table says.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys

import numpy as np

from .. import metrics as _metrics
from ..metrics._regression._forms import as_predictive
from ..streaming import RegressionAccumulator
from ._io import PredictionsFileError, _pyarrow, listed, one_line, open_table
from ._report import MetricColumn, _finite_or_none, _wrap
from ._stream import TableReport, _check_columns, _Groups

__all__ = [
    "RegressionReport",
    "RegressionTableReport",
    "regression_spec",
    "run_regression_report",
    "wants_regression",
]

#: Coverages of the central intervals whose coverage and mean width are reported.
COVERAGES = (0.5, 0.9)
#: Levels of the calibration curve behind the miscalibration area (the batch default).
N_LEVELS = 100
#: Bins of the ENCE (the batch default).
ENCE_BINS = 10
#: Rows of each group kept for the prediction-interval plot (the first ones read).
PLOT_ROWS = 300
#: Most calibration-curve panels of a page or PNG (overall rows first, then the groups
#: with the largest miscalibration area).
MAX_PANELS = 9

CSV_NAME = "regression_report.csv"
JSON_NAME = "regression_report.json"

_QUANTILE_NAME = re.compile(r"^[qQ](\d*\.?\d+(?:[eE]-?\d+)?)$")
_NA = "n/a"


# ------------------------------------------------------------------------------ columns
def _level(name):
    """The level of a quantile column named ``q<level>`` (or ``<level>``), else None."""
    m = _QUANTILE_NAME.match(name.strip())
    text = m.group(1) if m else name.strip()
    try:
        v = float(text)
    except ValueError:
        return None
    return v if 0.0 < v < 1.0 else None


class RegressionSpec:
    """The form of the predictive distributions of a table and the columns holding them.

    ``form`` is ``"normal"`` (``columns = [mean, std]``), ``"quantiles"`` (``columns``
    in increasing ``levels``) or ``"interval"`` (``columns = [lower, upper]`` and
    ``coverage``).
    """

    def __init__(self, form, columns, levels=None, coverage=None):
        self.form, self.columns = form, list(columns)
        self.levels, self.coverage = levels, coverage

    def describe(self):
        cols = ", ".join(self.columns)
        if self.form == "normal":
            return f"Normal predictive distributions (mean, std columns: {cols})"
        if self.form == "quantiles":
            return f"predictive quantiles at {len(self.columns)} levels ({cols})"
        return f"central {self.coverage:g} prediction intervals ({cols})"

    def predictive(self, arrays):
        """The predictive distributions of ``arrays`` (one float array per column)."""
        from scipy import stats

        if self.form == "normal":
            mean, std = arrays
            if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(std))):
                col = self.columns[0] if not np.all(np.isfinite(mean)) else self.columns[1]
                i = int(np.flatnonzero(~np.isfinite(arrays[self.columns.index(col)]))[0])
                raise ValueError(f"column {col!r} holds a missing or infinite value at {{row {i}}}")
            bad = ~(std > 0)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"std column {self.columns[1]!r} must be > 0, got {float(std[i])!r} at "
                    f"{{row {i}}}"
                )
            return stats.norm(mean, std)
        if self.form == "quantiles":
            return _metrics.PredictiveQuantiles(np.column_stack(arrays), self.levels)
        return _metrics.PredictionInterval(arrays[0], arrays[1], self.coverage)


def _split(text):
    return [c.strip() for c in text.split(",") if c.strip()] if text else []


def regression_spec(
    names,
    *,
    label_col="y",
    mean_col=None,
    std_col=None,
    quantile_cols=None,
    interval_cols=None,
    coverage=None,
    reserved=(),
    required=True,
):
    """The :class:`RegressionSpec` of a table with columns ``names``.

    Columns named with options are used as given (one form only); otherwise the form is
    detected: ``mean`` and ``std`` columns, quantile columns ``q<level>`` (two or more),
    or ``lower`` and ``upper`` columns.  Several forms found, or none (when
    ``required``), is a :class:`~skcalib.report._io.PredictionsFileError` naming the
    columns; with ``required=False`` None is returned when there is no form or several.

    Examples
    --------
    >>> from skcalib.report._regression import regression_spec
    >>> spec = regression_spec(["y", "q0.9", "q0.1", "q0.5", "region"])
    >>> spec.form, spec.columns, spec.levels.tolist()
    ('quantiles', ['q0.1', 'q0.5', 'q0.9'], [0.1, 0.5, 0.9])
    >>> regression_spec(["y", "lower", "upper"], coverage=0.8).describe()
    'central 0.8 prediction intervals (lower, upper)'
    >>> regression_spec(["y", "mean", "std", "lower", "upper"], required=False) is None
    True
    """
    names = list(names)
    free = [c for c in names if c not in set(reserved) and c != label_col]
    given = {}
    if mean_col is not None or std_col is not None:
        given["normal"] = [mean_col or "mean", std_col or "std"]
    if quantile_cols:
        given["quantiles"] = list(quantile_cols)
    if interval_cols:
        if len(interval_cols) != 2:
            raise PredictionsFileError(
                f"--interval-cols takes two columns, LOWER,UPPER; got {','.join(interval_cols)!r}"
            )
        given["interval"] = list(interval_cols)
    if len(given) > 1:
        raise PredictionsFileError(
            "give the predictive distribution in one form: "
            + " or ".join(_OPTIONS[f] for f in given)
            + ", not several"
        )
    if given:
        ((form, cols),) = given.items()
    else:
        found = {}
        if "mean" in free and "std" in free:
            found["normal"] = ["mean", "std"]
        qs = [c for c in free if _QUANTILE_NAME.match(c) and _level(c) is not None]
        if len(qs) >= 2:
            found["quantiles"] = qs
        if "lower" in free and "upper" in free:
            found["interval"] = ["lower", "upper"]
        if len(found) > 1:
            if not required:
                return None
            what = "; ".join(f"{', '.join(c)} ({_OPTIONS[f]})" for f, c in found.items())
            raise PredictionsFileError(
                f"ambiguous predictive distribution: the columns hold several forms: {what}; "
                "choose one with its option"
            )
        if not found:
            if not required:
                return None
            raise PredictionsFileError(
                "no regression prediction columns: expected 'mean' and 'std', quantile "
                "columns 'q0.05', 'q0.5', ... or 'lower' and 'upper' (or name them with "
                f"--mean-col/--std-col, --quantile-cols or --interval-cols); the columns are "
                f"{listed(names)}"
            )
        ((form, cols),) = found.items()
    for c in cols:
        if c not in names:
            raise PredictionsFileError(
                f"no column {c!r} ({_OPTIONS[form]}); the columns are {listed(names)}"
            )
        if c == label_col or c in set(reserved):
            raise PredictionsFileError(
                f"column {c!r} cannot be both a prediction column and the label, model or "
                "--by column"
            )
    if len(set(cols)) != len(cols):
        raise PredictionsFileError(f"{_OPTIONS[form]} names a column twice")
    if form == "normal":
        return RegressionSpec(form, cols)
    if form == "quantiles":
        levels = [_level(c) for c in cols]
        bad = [c for c, v in zip(cols, levels, strict=True) if v is None]
        if bad:
            raise PredictionsFileError(
                f"quantile column {bad[0]!r} is not named by its level in (0, 1), as 'q0.05' "
                "or '0.05'"
            )
        if len(cols) < 2:
            raise PredictionsFileError("--quantile-cols needs at least two quantile columns")
        order = np.argsort(levels, kind="stable")
        levels = np.asarray(levels)[order]
        if np.any(np.diff(levels) <= 0):
            raise PredictionsFileError(
                f"two quantile columns have the same level: {', '.join(cols)}"
            )
        return RegressionSpec(form, [cols[i] for i in order], levels=levels)
    if coverage is None:
        raise PredictionsFileError(
            f"the interval columns {cols[0]!r}, {cols[1]!r} need their nominal coverage: "
            "give --coverage (e.g. --coverage 0.9)"
        )
    if not 0.0 < coverage < 1.0:
        raise PredictionsFileError(f"--coverage must lie strictly between 0 and 1, got {coverage}")
    return RegressionSpec(form, cols, coverage=float(coverage))


_OPTIONS = {
    "normal": "--mean-col/--std-col",
    "quantiles": "--quantile-cols",
    "interval": "--interval-cols with --coverage",
}


# ------------------------------------------------------------------------------ report
def regression_columns(coverages, *, streamed):
    """The :class:`~skcalib.report.MetricColumn` list of a regression report."""
    levels = f"{N_LEVELS} levels of the central-interval calibration curve"
    cols = [
        MetricColumn("crps", "CRPS", False, "continuous ranked probability score"),
        MetricColumn("log_score", "log score", False, "negative log predictive density"),
        MetricColumn("miscalibration_area", "MA", False, "miscalibration area", levels),
    ]
    for c in coverages:
        p = f"{100 * c:g}"
        cols.append(
            MetricColumn(
                f"interval_coverage_{c:g}", f"cov{p}", True, f"coverage of the central {p}% "
                f"intervals (nominal {c:g})"
            )
        )  # fmt: skip
        cols.append(
            MetricColumn(
                f"mean_interval_width_{c:g}", f"width{p}", False,
                f"mean width of the central {p}% intervals",
            )
        )  # fmt: skip
    cols.append(MetricColumn("sharpness", "sharpness", False, "root mean predictive variance"))
    ence_bins = (
        "not computed on streamed data (equal-count bins of the predicted std need every row)"
        if streamed
        else f"{ENCE_BINS} equal-count bins of the predicted std, on the rows in memory"
    )
    cols.append(
        MetricColumn(
            "expected_normalized_calibration_error", "ENCE", False,
            "expected normalized calibration error", ence_bins,
        )
    )  # fmt: skip
    return cols


class RegressionReport:
    """Uncertainty metrics of regression predictions, one row per model or group.

    Made by :class:`RegressionTableReport`; the attributes mirror those of
    :class:`~skcalib.report.CalibrationReport` (``title``, ``models``, ``columns``,
    ``values``, ``n_samples``) with the form of the predictions (``spec``), the curves
    behind the miscalibration area (``curves``, None for intervals) and ``groups`` (row
    name to group key, None for an overall row).
    """

    def __init__(self, *, title, models, columns, values, n_samples, spec, curves, groups,
                 streamed):  # fmt: skip
        self.title, self.models, self.columns = title, list(models), list(columns)
        self.values, self.n_samples, self.spec = values, n_samples, spec
        self.curves, self.groups, self.streamed = curves, groups, streamed

    def rows(self):
        """One dict per row: ``model``, ``n_samples`` and one float per metric key."""
        return [
            {
                "model": m,
                "n_samples": self.n_samples[m],
                **{c.key: self.values[m].get(c.key, math.nan) for c in self.columns},
            }
            for m in self.models
        ]

    def to_dict(self):
        """A JSON-serialisable dict: form, columns, rows and calibration curves."""
        return {
            "title": self.title,
            "task": "regression",
            "form": self.spec.form,
            "prediction_columns": self.spec.columns,
            "columns": [
                {
                    "key": c.key,
                    "header": c.header,
                    "greater_is_better": c.greater_is_better,
                    "description": c.description,
                    "binning": c.binning,
                }
                for c in self.columns
            ],  # fmt: skip
            "rows": [{k: _finite_or_none(v) for k, v in r.items()} for r in self.rows()],
            "calibration_curves": {
                m: {"expected": c.expected.tolist(), "observed": c.observed.tolist()}
                for m, c in (self.curves or {}).items()
            },
        }

    def to_string(self, *, digits=4):
        """The report as an aligned plain-text table, with notes below."""
        header = ["model", "n"] + [c.header for c in self.columns]
        body = []
        for m in self.models:
            cells = [m, str(self.n_samples[m])]
            for c in self.columns:
                v = self.values[m].get(c.key, math.nan)
                cells.append(_NA if v is None or math.isnan(v) else f"{v:.{digits}f}")
            body.append(cells)
        widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

        def line(cells):
            out = [cells[0].ljust(widths[0])]
            out += [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
            return "  ".join(out).rstrip()

        n = {self.n_samples[m] for m in self.models}
        n_txt = f"{n.pop()} samples" if len(n) == 1 else "samples as listed"
        lines = [f"{self.title + ': ' if self.title else ''}{n_txt}, {self.spec.describe()}"]
        lines += [line(header), "  ".join("-" * w for w in widths), *map(line, body)]
        lines.extend(_wrap(" ".join(self.notes())))
        return "\n".join(lines)

    def notes(self):
        """The sentences printed below the table."""
        cov = ", ".join(f"{c.header}: {c.key.rsplit('_', 1)[1]}" for c in self.columns
                        if c.key.startswith("interval_coverage_"))  # fmt: skip
        out = [f"Lower is better, except coverage: it should be near its nominal level ({cov})."]
        if self.spec.form != "interval":
            out.append(f"MA: the {N_LEVELS}-level central-interval calibration curve.")
        if self.spec.form == "quantiles":
            out.append(
                "CRPS: the pinball approximation; the log score is infinite where an "
                "observation lies outside the support of the linearly extended quantiles."
            )
        undefined = {
            "interval": "An interval gives no distribution: CRPS, log score, MA, sharpness "
            "and ENCE are n/a, and only its own coverage is kept.",
        }
        if self.spec.form in undefined:
            out.append(undefined[self.spec.form])
        if self.spec.form == "interval":
            pass
        elif self.streamed:
            out.append(
                "ENCE: n/a on streamed data (its equal-count bins of the predicted std need "
                "every row; compute it with skcalib.metrics.expected_normalized_calibration_error)."
            )
        else:
            out.append(f"ENCE: {ENCE_BINS} equal-count bins of the predicted std (batch).")
        return out

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<RegressionReport {self.title!r}, rows={self.models!r}>"


class RegressionTableReport:
    """The regression report of a table, batch by batch.

    Parameters
    ----------
    table : Table
        The opened table.
    spec : RegressionSpec
        The form and columns of the predictions.
    label_col, model_col, by
        As the options of ``skcalib report``.
    keep_rows : bool, default=False
        Keep every row (the ENCE is computed on them).
    """

    rows = TableReport.rows
    _row_name = TableReport._row_name

    def __init__(self, table, spec, *, label_col="y", model_col=None, by=(), keep_rows=False):
        self.table, self.spec = table, spec
        self.label_col, self.model_col, self.by = label_col, model_col, list(by)
        self.groups = _Groups([*self.by, *([model_col] if model_col else [])])
        coverages = set(COVERAGES)
        if spec.form == "interval":
            coverages = {c for c in coverages if math.isclose(c, spec.coverage)}
            coverages.add(spec.coverage)
        self.coverages = tuple(sorted(coverages))
        self.accs = {}
        self.sample = {}  # group code -> (y, arrays) of its first PLOT_ROWS rows
        self.keep = [] if keep_rows else None
        self.head = []  # (y, arrays, group codes) of the first PLOT_ROWS rows
        self.n_rows = 0

    @property
    def columns(self):
        return [self.label_col, *self.spec.columns, *self.groups.columns]

    def run(self, progress=None):
        """Read and add every batch; returns self."""
        t = self.table
        text = list(self.groups.columns) if t.fmt == "csv" else []
        floats = [self.label_col, *self.spec.columns] if t.fmt == "csv" else []
        pa = _pyarrow()[0]
        try:
            for batch, (where, offset) in t.batches(self.columns, text=text, floats=floats):
                try:
                    self._add(batch)
                except ValueError as exc:
                    msg = TableReport._where(self, str(exc), where, offset)
                    raise PredictionsFileError(msg) from exc
                if progress is not None:
                    progress.update(batch.num_rows)
        except pa.ArrowException as exc:
            raise PredictionsFileError(f"not a readable table: {one_line(exc)}") from exc
        except PredictionsFileError as exc:  # the reader's words for a non-numeric cell
            msg = str(exc)
            if not msg.startswith("probability column"):
                raise
            msg = msg.replace("probability column", "column", 1).split(" (name the")[0]
            raise PredictionsFileError(msg) from exc
        if self.n_rows == 0:
            raise PredictionsFileError(
                "the file has a header but no data rows"
                if t.fmt == "csv"
                else "the table has no rows"
            )
        return self

    def _floats(self, batch, c):
        col = batch.column(c)
        pa = _pyarrow()[0]
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
                or pa.types.is_boolean(col.type)):  # fmt: skip
            raise PredictionsFileError(f"column {c!r} is not numeric (type {col.type})")
        x = col.cast(pa.float64()).to_numpy(zero_copy_only=False)
        bad = np.isnan(x)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"column {c!r} holds a missing value at {{row {i}}}")
        return x

    def _add(self, batch):
        y = self._floats(batch, self.label_col)
        arrays = [self._floats(batch, c) for c in self.spec.columns]
        pred = self.spec.predictive(arrays)  # validates the whole batch once
        g = self.groups.encode(batch)
        codes = [0] if g is None else np.unique(g).tolist()
        for code in codes:
            rows = slice(None) if g is None else np.flatnonzero(g == code)
            acc = self.accs.get(code)
            if acc is None:
                acc = self.accs[code] = RegressionAccumulator(
                    n_levels=N_LEVELS, coverages=self.coverages, random_state=0
                )
            part = pred if g is None else self.spec.predictive([a[rows] for a in arrays])
            acc.update(y[rows], part)
            have = self.sample.get(code)
            need = PLOT_ROWS - (0 if have is None else have[0].shape[0])
            if need > 0:
                new = (y[rows][:need], [a[rows][:need] for a in arrays])
                if have is not None:
                    cols = [np.concatenate(p) for p in zip(have[1], new[1], strict=True)]
                    new = (np.concatenate([have[0], new[0]]), cols)
                self.sample[code] = new
        if self.keep is not None:
            self.keep.append((y, arrays, g))
        if self.n_rows < PLOT_ROWS:  # the first rows of the table, for the overall rows
            k = PLOT_ROWS - self.n_rows
            self.head.append((y[:k], [a[:k] for a in arrays], None if g is None else g[:k]))
        self.n_rows += batch.num_rows

    def _ence(self, members):
        if self.keep is None or self.spec.form == "interval":
            return math.nan
        y = np.concatenate([k[0] for k in self.keep])
        arrays = [
            np.concatenate([k[1][j] for k in self.keep]) for j in range(len(self.spec.columns))
        ]
        if self.keep[0][2] is not None:
            g = np.concatenate([k[2] for k in self.keep])
            rows = np.isin(g, members)
            y, arrays = y[rows], [a[rows] for a in arrays]
        try:
            return _metrics.expected_normalized_calibration_error(
                y, self.spec.predictive(arrays), n_bins=ENCE_BINS
            )
        except ValueError:
            return math.nan

    def _sample(self, key, members):
        """The rows drawn for a row of the table: a group's first rows, or an overall
        row's rows among the first rows of the table."""
        if key is not None or len(members) == 1:
            return self.sample[members[0]]
        y = np.concatenate([h[0] for h in self.head])
        arrays = [
            np.concatenate([h[1][j] for h in self.head]) for j in range(len(self.spec.columns))
        ]
        if self.head[0][2] is not None:
            rows = np.isin(np.concatenate([h[2] for h in self.head]), members)
            y, arrays = y[rows], [a[rows] for a in arrays]
        return y, arrays

    def report(self):
        """The :class:`RegressionReport` of the rows read."""
        models, values, n, curves, groups, samples = [], {}, {}, {}, {}, {}
        for name, key, members in self.rows():
            members = [m for m in members if m in self.accs] or [0]
            acc = RegressionAccumulator(n_levels=N_LEVELS, coverages=self.coverages)
            for m in members:
                acc.merge(self.accs[m])
            out = acc.compute()
            out["expected_normalized_calibration_error"] = self._ence(members)
            models.append(name)
            values[name], n[name], groups[name] = out, out["n_samples"], key
            if self.spec.form != "interval":
                curves[name] = acc.regression_calibration_curve(kind="interval")
            samples[name] = self._sample(key, members)
        report = RegressionReport(
            title=self.table.title, models=models,
            columns=regression_columns(self.coverages, streamed=self.keep is None),
            values=values, n_samples=n, spec=self.spec, curves=curves or None, groups=groups,
            streamed=self.keep is None,
        )  # fmt: skip
        report.samples = samples
        return report


# ------------------------------------------------------------------------------ figures
def _panels(report):
    """The rows drawn: overall rows first, then the groups by decreasing area."""
    overall = [m for m in report.models if report.groups.get(m) is None]
    rest = [m for m in report.models if m not in overall]
    rest.sort(key=lambda m: -_nan0(report.values[m].get("miscalibration_area")))
    return (overall + rest)[:MAX_PANELS]


def _nan0(v):
    return 0.0 if v is None or math.isnan(v) else v


def calibration_figure(report):
    """A figure of the calibration curves (one panel per drawn row), or None."""
    if not report.curves:
        return None
    from ..display import RegressionCalibrationDisplay
    from ..display._base import headless_figure

    models = _panels(report)
    ncols = min(len(models), 3)
    nrows = math.ceil(len(models) / ncols)
    fig = headless_figure(figsize=(3.9 * ncols, 3.9 * nrows), layout="constrained")
    for i, m in enumerate(models):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        curve = report.curves[m]
        RegressionCalibrationDisplay(
            curve.expected, curve.observed,
            miscalibration_area=report.values[m].get("miscalibration_area"),
            sharpness=report.values[m].get("sharpness"), kind="interval",
        ).plot(ax=ax)  # fmt: skip
        ax.set_title(m, fontsize=10)
    return fig


def interval_figure(report, coverage=0.9):
    """A figure of the prediction intervals of the first rows of each drawn row."""
    from ..display import PredictionIntervalDisplay
    from ..display._base import headless_figure

    spec = report.spec
    c = spec.coverage if spec.form == "interval" else coverage
    models = _panels(report)
    fig = headless_figure(figsize=(7.0, 3.2 * len(models)), layout="constrained")
    for i, m in enumerate(models):
        ax = fig.add_subplot(len(models), 1, i + 1)
        y, arrays = report.samples[m]
        pred = as_predictive(spec.predictive(arrays))
        lo, hi = pred.interval(c)
        center = (lo + hi) / 2.0 if spec.form == "interval" else pred.ppf([0.5])[:, 0]
        order = np.argsort(center, kind="stable")
        PredictionIntervalDisplay(
            y[order], center[order], lo[order], hi[order], coverage=c,
            observed_coverage=report.values[m].get(f"interval_coverage_{c:g}"),
        ).plot(ax=ax)  # fmt: skip
        ax.set_title(f"{m}: {y.shape[0]} rows", fontsize=10)
    return fig


def render_regression_html(report, *, source=None, command=None, digits=4):
    """One self-contained HTML page of a regression report, as a string."""
    from .. import __version__
    from ._html import _e, _Figures, _page, _table

    figures = _Figures()
    body = [
        f"<h1>{_e('Regression report' + (': ' + report.title if report.title else ''))}</h1>",
        '<section id="regression">',
        f"<h2>Regression uncertainty</h2><p>{_e(report.spec.describe())}.</p>",
        _table(report, digits, na="n/a"),
        "".join(f'<p class="note">{_e(t)}</p>' for t in report.notes()),
        "<dl>" + "".join(f"<dt>{_e(c.header)}</dt><dd>{_e(c.description)}"
                         + (f" ({_e(c.binning)})" if c.binning else "") + "</dd>"
                         for c in report.columns) + "</dl>",
    ]  # fmt: skip
    fig = calibration_figure(report)
    if fig is not None:
        body.append("<h3>Calibration curves</h3>")
        body.append(
            figures(
                fig, "regression calibration curves",
                "Observed fraction of observations inside their central intervals against the "
                "level (diagonal: calibrated; below it: intervals too narrow).",
            )
        )  # fmt: skip
    else:
        body.append(
            '<p class="note">No calibration curve: intervals at one coverage give no PIT.</p>'
        )
    c = report.spec.coverage if report.spec.form == "interval" else 0.9
    body.append("<h3>Prediction intervals</h3>")
    body.append(
        figures(
            interval_figure(report), "prediction intervals",
            f"Central {c:g} intervals of the first rows read (at most {PLOT_ROWS} per row of "
            "the table; an overall row: its rows among the first "
            f"{PLOT_ROWS} of the file), ordered by prediction; the coverage in the legend is "
            "that of all its rows.",
        )
    )  # fmt: skip
    body.append("</section>")
    prov = [("skcalib", __version__), ("input", source), ("command", command),
            ("rows", sum(report.n_samples[m] for m in report.models
                         if report.groups.get(m) is None) or None)]  # fmt: skip
    body.append(
        "<h2>Provenance</h2><dl>"
        + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in prov if v is not None)
        + "</dl>"
    )
    return _page("Regression report", body)


# ------------------------------------------------------------------------------ command
def _options_given(args):
    return any(
        getattr(args, a, None) is not None
        for a in ("mean_col", "std_col", "quantile_cols", "interval_cols", "coverage")
    )


def wants_regression(args):
    """Whether ``skcalib report`` runs the regression report for ``args``.

    With ``--regression`` or a regression column option; otherwise when the table (a
    CSV or Parquet file) has the label column and the columns of exactly one form of
    predictive distribution, and no classification option is given.
    """
    if getattr(args, "regression", False) or _options_given(args):
        return True
    if args.demo or args.predictions is None or args.proba_cols is not None:
        return False
    if args.labels is not None or args.renormalize or args.classwise:
        return False
    src = os.fspath(args.predictions)
    if os.path.splitext(src)[1].lower() == ".npz":
        return False
    try:
        table = open_table(src, sep=args.sep)
    except (ValueError, OSError):
        return False  # the classification path reports it
    label = "y" if args.label_col is None else args.label_col
    if label not in table.names:
        return False
    reserved = [args.model_col, *_by(args)]
    try:
        spec = regression_spec(table.names, label_col=label, reserved=reserved, required=False)
    except PredictionsFileError:
        return True  # one form detected but unusable (e.g. no --coverage): say why
    return spec is not None


def _by(args):
    out = []
    for v in args.by or ():
        out += _split(v)
    return out


def regression_report(src, args, progress=None):
    """The :class:`RegressionReport` of a file, directory or glob for parsed options."""
    if os.path.splitext(os.fspath(src))[1].lower() == ".npz":
        raise PredictionsFileError("--regression reads .csv and .parquet tables, not .npz files")
    if args.scheduler is not None or args.dask:
        raise PredictionsFileError("--regression runs in this process: drop --scheduler/--dask")
    for opt, val in (("--proba-cols", args.proba_cols), ("--labels", args.labels)):
        if val is not None:
            raise PredictionsFileError(f"{opt} applies to classification, not to --regression")
    table = open_table(src, sep=args.sep)
    label = "y" if args.label_col is None else args.label_col
    by = _by(args)
    _check_columns(table.names, label, args.model_col, by)
    spec = regression_spec(
        table.names, label_col=label, mean_col=args.mean_col, std_col=args.std_col,
        quantile_cols=_split(args.quantile_cols) or None,
        interval_cols=_split(args.interval_cols) or None, coverage=args.coverage,
        reserved=[args.model_col, *by],
    )  # fmt: skip
    run = RegressionTableReport(table, spec, label_col=label, model_col=args.model_col, by=by,
                                keep_rows=table.fmt == "csv")  # fmt: skip
    return run.run(progress).report()


def run_regression_report(args, *, error, message, slug):
    """Run ``skcalib report`` on regression predictions; return the exit status.

    ``error``, ``message`` and ``slug`` are the command's helpers (print an error line
    and return the status 2; an exception's text; a file-name part of a title).
    """
    from ._progress import Progress

    _error, _message, _slug = error, message, slug

    if args.demo:
        args._parser.error("--demo reports classifiers; it does not take --regression")
    src = args.predictions
    progress = Progress()
    try:
        report = regression_report(src, args, progress)
    except (ValueError, OSError) as exc:
        return _error(f"{src}: {_message(exc)}")
    finally:
        progress.close()
    print(report.to_string(digits=args.digits))
    from ..display._base import has_matplotlib

    if args.out is not None:
        try:
            os.makedirs(args.out, exist_ok=True)
            written = _write_outputs(report, args.out, _slug, has_matplotlib())
        except OSError as exc:
            return _error(f"cannot write to {args.out!r}: {_message(exc)}")
        print()
        for path in written:
            print(f"wrote {path}")
    if args.html is not None:
        if not has_matplotlib():
            return _error("--html needs matplotlib (pip install matplotlib)")
        from ._html import command_line

        page = render_regression_html(
            report, source=os.fspath(src), command=command_line(args), digits=args.digits
        )
        try:
            os.makedirs(os.path.dirname(os.path.abspath(args.html)), exist_ok=True)
            with open(args.html, "w", encoding="utf-8") as f:
                f.write(page)
        except OSError as exc:
            return _error(f"cannot write to {args.html!r}: {_message(exc)}")
        print(f"wrote {args.html}")
    return 0


def _write_outputs(report, out_dir, slug, draw):
    import csv

    from .. import __version__

    keys = [c.key for c in report.columns]
    path = os.path.join(out_dir, CSV_NAME)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["report", "model", "n_samples", *keys])
        for row in report.rows():
            w.writerow([report.title or "", row["model"], row["n_samples"],
                        *("" if math.isnan(row[k]) else repr(row[k]) for k in keys)])  # fmt: skip
    written = [path]
    path = os.path.join(out_dir, JSON_NAME)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"skcalib_version": __version__, "reports": [report.to_dict()]}, f, indent=1,
                  allow_nan=False)  # fmt: skip
    written.append(path)
    if not draw:
        print("skcalib: note: matplotlib is not installed, so no figure was drawn", file=sys.stderr)
        return written
    name = slug(report.title, set())
    fig = calibration_figure(report)
    if fig is not None:
        path = os.path.join(out_dir, f"regression_calibration_{name}.png")
        fig.savefig(path, dpi=100)
        written.append(path)
    path = os.path.join(out_dir, f"prediction_intervals_{name}.png")
    interval_figure(report).savefig(path, dpi=100)
    written.append(path)
    return written
