"""One self-contained HTML page of calibration reports (``skcalib report --html FILE``).

The page needs nothing but itself: the style sheet is inline, every figure is an inline
SVG drawn by matplotlib (no pyplot), the only script is a few lines that sort the summary
table of a grouped report, and nothing refers to the network, so it opens from an e-mail
attachment or a CI artefact.  Every string that comes from the user (titles, model,
group and class names, file names, the command line) is escaped with
:func:`html.escape`.
"""

from __future__ import annotations

import html
import io
import math
import os
import platform
import re
from collections.abc import Mapping

import numpy as np

from .. import metrics as _metrics
from .._core._validation import check_classification_input
from ._figures import (
    CONFIDENCE_LEVEL,
    DIAGRAM_STRATEGIES,
    INTERVALS,
    MIN_DIAGRAM_BINS,
    SAMPLES_PER_BIN,
    classwise_figure,
    model_inputs,
    reliability_figure,
)
from ._report import CalibrationReport
from ._stream import HL_HOLM, _show

__all__ = ["render_html", "write_html"]

#: Bootstrap resamples of the confidence intervals (the ECE resamples bin counts, the
#: Brier score and NLL rows).
N_RESAMPLES = 200
#: Folds of the cross-fitted recalibration preview.
N_FOLDS = 5
#: Simulations of perfectly calibrated outcomes behind the noise floor of a group's ECE.
N_NULL = 10
#: Groups of a grouped report shown in detail (the worst by ECE), besides the overall data.
N_DETAILED = 3
#: Level at which the summary of a grouped report marks a group's Holm-adjusted
#: Hosmer-Lemeshow test as rejecting calibration.
REJECT_LEVEL = 0.05
#: Metrics given a bootstrap confidence interval: (key, header).
CI_METRICS = (
    ("expected_calibration_error", "ECE"),
    ("brier_score", "Brier"),
    ("negative_log_likelihood", "NLL"),
)

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1150px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #444}h2{font-size:1.35em;margin-top:2em;
border-bottom:1px solid #aaa}h3{font-size:1.1em}
table{border-collapse:collapse;margin:.6em 0;max-width:100%}
th,td{padding:.25em .6em;border:1px solid #ccc}th{background:#f0f0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.reject{font-weight:bold;color:#b00020}
td.txt{text-align:left;overflow-wrap:anywhere}p.note{color:#555;font-size:.92em}
.wide{max-width:100%;overflow-x:auto}.scroll{max-height:30em;overflow-y:auto}
figure{margin:.5em 0}figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#555}
code{background:#f5f5f5;padding:0 .2em;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em}
dt{font-weight:bold}dd{margin:0;overflow-wrap:anywhere}
.verdict{background:#f3f7fb;border-left:4px solid #2b6cb0;padding:.6em 1em}
.verdict li{margin:.25em 0}.verdict h2{margin-top:0}table.sortable th{cursor:pointer}
table.sortable th[data-dir=desc]::after{content:" \\25BC"}
table.sortable th[data-dir=asc]::after{content:" \\25B2"}
"""

#: Sorts a table.sortable by the clicked column (cells' data-value: numbers, else
#: text; NaN last), descending first.
_SORT_JS = """
document.querySelectorAll("table.sortable").forEach(function (t) {
  t.tHead.rows[0].querySelectorAll("th").forEach(function (th, i) {
    th.addEventListener("click", function () {
      var dir = th.dataset.dir === "desc" ? 1 : -1;
      t.tHead.querySelectorAll("th").forEach(function (h) { delete h.dataset.dir; });
      th.dataset.dir = dir > 0 ? "asc" : "desc";
      var body = t.tBodies[0], rows = Array.from(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[i].dataset.value, y = b.cells[i].dataset.value;
        var nx = parseFloat(x), ny = parseFloat(y);
        if (isNaN(nx) || isNaN(ny)) {
          if (!isNaN(nx) || !isNaN(ny)) { return isNaN(nx) ? 1 : -1; }
          return dir * String(x).localeCompare(String(y));
        }
        return dir * (nx - ny);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _fmt(v, digits):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return f"{v:.{digits}f}"


def _num(v, digits, key=None):
    """A right-aligned number cell holding its full value in ``data-value``."""
    attr = "" if key is None else f' data-key="{_e(key)}"'
    return f'<td class="num"{attr} data-value="{_e(repr(float(v)))}">{_e(_fmt(v, digits))}</td>'


def _txt(text):
    return f'<td class="txt" data-value="{_e(text)}">{_e(text)}</td>'


def _html_table(cls, heads, rows, *, wrap=True, titles=None):
    """A table of ``rows`` (lists of cell HTML) under ``heads`` (plain strings; ``titles``:
    their tooltips, None or empty for none)."""
    titles = [f' title="{_e(t)}"' if t else "" for t in titles or [None] * len(heads)]
    out = (
        f'<table class="{cls}"><thead><tr>'
        + "".join(f"<th{t}>{_e(h)}</th>" for h, t in zip(heads, titles, strict=True))
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(r) + "</tr>" for r in rows)
        + "</tbody></table>"
    )
    return f'<div class="wide">{out}</div>' if wrap else out


_ID = re.compile(r'(\bid="|url\(#|href="#)')


class _Figures:
    """Renders matplotlib figures as inline SVG, each with its own id prefix."""

    def __init__(self):
        self.count = 0

    def __call__(self, fig, alt, caption=None):
        """The ``<figure>`` of ``fig``: the background of its Axes ``i`` and their lines
        carry the ids ``axes-bg-i`` and ``curve-i-j``, so that a browser can check every
        curve against its Axes."""
        for i, ax in enumerate(fig.axes):
            ax.patch.set_gid(f"axes-bg-{i}")
            for j, line in enumerate(ax.get_lines()):
                line.set_gid(f"curve-{i}-{j}")
        buf = io.StringIO()
        fig.savefig(
            buf, format="svg", metadata=dict.fromkeys(("Creator", "Date", "Format", "Type"))
        )
        self.count += 1
        svg = buf.getvalue()
        svg = svg[svg.index("<svg") :]
        svg = _ID.sub(lambda m: m.group(1) + f"f{self.count}-", svg)
        svg = svg.replace("<svg ", f'<svg role="img" aria-label="{_e(alt)}" ', 1)
        cap = "" if caption is None else f"<figcaption>{_e(caption)}</figcaption>"
        return f'<figure class="fig">{svg}{cap}</figure>'


def _table(report, digits, na="nan"):
    """The metrics table of ``report``: a row per model, a missing value shown as ``na``."""
    heads = ["model", "n", *(c.header for c in report.columns)]
    rows = []
    for m in report.models:
        cells = [_txt(m), _num(report.n_samples[m], 0)]
        for c in report.columns:
            v = report.values[m].get(c.key, math.nan)
            missing = v is None or math.isnan(v)
            cells.append(
                f'<td class="num" data-value="nan">{_e(na)}</td>'
                if missing
                else _num(v, digits, c.key)
            )
        rows.append(cells)
    titles = [None, None, *(c.description for c in report.columns)]
    return _html_table("metrics", heads, rows, titles=titles)


def _page(title, body, script=""):
    """The self-contained HTML document of ``body`` (a list of HTML strings)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + script
        + "\n</body></html>\n"
    )


def _binning_note(report):
    better = [c.header for c in report.columns if c.greater_is_better]
    text = "Lower is better" + (f", except {', '.join(better)}. " if better else ". ")
    groups = {}
    for c in report.columns:
        if c.binning:
            groups.setdefault(c.binning, []).append(c.header)
    text += "; ".join(f"{', '.join(h)}: {b}" for b, h in groups.items())
    return text.rstrip() + ("." if groups else "")


def _canonical(inputs, model):
    """One model's predictions in the form every metric reads alike.

    The label codes ``0..k-1``, the full ``(n, k)`` probability matrix (a 1-D binary
    vector becomes its two columns), ``labels=0..k-1`` and the positive column of a
    binary problem: with these, each metric gives the number of the report's table.
    """
    kw = model_inputs(inputs, model)
    data = check_classification_input(
        kw["y_true"],
        kw["y_proba"],
        sample_weight=kw["sample_weight"],
        labels=kw["labels"],
        pos_label=kw["pos_label"],
    )
    p = np.asarray(data.proba, dtype=np.float64)
    if data.binary_1d:
        full = np.empty((p.shape[0], 2))
        full[:, data.pos_index] = p
        full[:, 1 - data.pos_index] = 1.0 - p
        p = full
    k = p.shape[1]
    return (
        data.y,
        p,
        {
            "sample_weight": data.sample_weight,
            "labels": np.arange(k),
            "pos_label": data.pos_index,
        },
    )


def _kwargs_for(func, common, n_bins):
    import inspect

    params = inspect.signature(func).parameters
    kw = {k: v for k, v in common.items() if k in params and (v is not None or k != "pos_label")}
    if "n_bins" in params:
        kw["n_bins"] = n_bins
    return kw


class _Context:
    """What the sections of one page share: options, figure renderer, computed results."""

    def __init__(self, options, digits):
        self.options, self.digits = options, digits
        self.figure = _Figures()
        self.cache = {}

    def memo(self, what, report, inputs, model, compute):
        """``compute()`` once per page for the same predictions (the sections of the
        overall data and of each group share the arrays, not the report objects)."""
        kw = model_inputs(inputs, model)
        key = (what, report.n_bins, *(id(kw[k]) for k in ("y_true", "y_proba", "sample_weight")))
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


def _reliability_section(ctx, report, inputs):
    strategy, interval = ctx.options["strategy"], ctx.options["intervals"]
    streamed = inputs is None and getattr(report, "_accumulators", None) is not None
    fig, captions = reliability_figure(report, inputs, strategy=strategy, interval=interval)
    out = ["<h3>Reliability diagrams</h3>"]
    out.append(ctx.figure(fig, "reliability diagrams, one panel per model", "; ".join(captions)))
    if ctx.options["classwise"] and (inputs is not None or streamed):
        for m in report.models:
            cfig, caption = classwise_figure(
                report, inputs, m, strategy=strategy, interval=interval
            )
            out.append(ctx.figure(cfig, f"class-wise reliability diagrams of {m}", caption))
    what = {
        "wilson": f"its {CONFIDENCE_LEVEL:.0%} Wilson score interval",
        "clopper_pearson": f"its {CONFIDENCE_LEVEL:.0%} Clopper-Pearson (exact) interval",
        "none": "no interval",
    }[interval]
    rule = ""
    if inputs is not None:
        binning = (
            "bins holding equal numbers of samples (equal-mass bins: every bin has data "
            "at any sample size)"
            if strategy == "quantile"
            else "equal-width bins"
        )
        rule = (
            f"; the bin count is min(--n-bins, max({MIN_DIAGRAM_BINS}, n // "
            f"{SAMPLES_PER_BIN})), about {SAMPLES_PER_BIN} samples per bin"
        )
    elif streamed:
        binning = (
            f"the {report.n_bins} equal-width bins of the streamed accumulators (the bins "
            "of the ECE column; equal-mass bins need the predictions in memory)"
        )
    else:
        binning, what = f"the {report.n_bins} equal-width bins of the ECE column", "no interval"
    out.append(
        f'<p class="note">One panel per model. Each point is one of {_e(binning)}{_e(rule)}: '
        f"the mean predicted probability against the observed frequency, with {_e(what)}. "
        "The dotted diagonal is perfect calibration; the bars below count the samples of "
        "each bin. The ECE in the legend is the table's.</p>"
    )
    return "".join(out)


def _rejection_section(ctx, report, inputs):
    from ..display import RejectionDisplay
    from ..display._base import headless_figure

    fig = headless_figure(figsize=(7.5, 4.6), layout="constrained")
    ax = fig.subplots()
    single = len(report.models) == 1
    for m in report.models:
        kw = model_inputs(inputs, m)
        y, p = kw.pop("y_true"), kw.pop("y_proba")
        RejectionDisplay.from_predictions(
            y, p, name=m, ax=ax, show_oracle=single, show_random=single, **kw
        )
    return (
        "<h3>Rejection curves</h3>"
        + ctx.figure(fig, "rejection curves")
        + '<p class="note">Accuracy of the predictions kept when the least confident '
        "fraction is rejected (confidence: the top-label probability). A curve that rises "
        "steadily means the confidence ranks the errors well.</p>"
    )


def _tests_section(ctx, report, inputs):
    rows, infinite = [], []
    for m in report.models:
        kw = model_inputs(inputs, m)
        y, p = kw.pop("y_true"), kw.pop("y_proba")
        cells = [_txt(m)]
        for func in (_metrics.spiegelhalter_test, _metrics.hosmer_lemeshow_test):
            try:
                res = func(y, p, **kw)
            except ValueError as exc:
                span = 3 if func is _metrics.hosmer_lemeshow_test else 2
                cells.append(f'<td class="txt" colspan="{span}">n/a: {_e(exc)}</td>')
                continue
            cells.append(_num(float(res.statistic), ctx.digits))
            if hasattr(res, "df"):
                cells.append(f'<td class="num">{_e(res.df)}</td>')
                if math.isinf(res.statistic):
                    infinite.append(m)
            cells.append(_num(float(res.pvalue), ctx.digits))
        rows.append(cells)
    heads = ["model", "Spiegelhalter z", "p-value", "Hosmer-Lemeshow C", "df", "p-value"]
    note = ""
    if infinite:
        note = (
            f" Hosmer-Lemeshow C is inf for {', '.join(infinite)}: in at least one of its "
            "10 groups every predicted probability is exactly 1 (or 0), so the group's "
            "variance E(1 - E/n) is zero, and yet the outcome differed at least once. A "
            "probability of exactly 1 is refuted by a single counter-example: the "
            "statistic is infinite and the p-value 0. Probabilities clipped away from 0 "
            "and 1 (or a recalibration) give a finite statistic."
        )
    return (
        "<h3>Calibration tests</h3>"
        + _html_table("tests", heads, rows)
        + '<p class="note">Null hypothesis: the model is calibrated; a small p-value is '
        "evidence against it (Hosmer-Lemeshow: 10 groups by predicted probability, top "
        "label when there are more than two classes)." + _e(note) + "</p>"
    )


def _ci(ctx, report, inputs, m, key):
    """The bootstrap interval of one metric of one model (computed once per page)."""

    def compute():
        y, p, common = _canonical(inputs, m)
        func = getattr(_metrics, key)
        return _metrics.calibration_error_ci(
            func,
            y,
            p,
            n_resamples=N_RESAMPLES,
            random_state=ctx.options["random_state"],
            **_kwargs_for(func, common, report.n_bins),
        )

    return ctx.memo(("ci", key), report, inputs, m, compute)


def _ci_text(ci, digits):
    return f"{_fmt(float(ci.estimate), digits)} [{_fmt(ci.low, digits)}, {_fmt(ci.high, digits)}]"


def _below(ci):
    """A note for an ECE below its own bootstrap interval."""
    if ci.estimate >= ci.low:
        return ""
    return (
        " (below its interval: the resamples add noise, which raises an ECE; the model is "
        "as well calibrated as a sample of this size can show)"
    )


def _ci_cell(ci, digits, key):
    return (
        f'<td class="num" data-key="{_e(key)}" data-value="{_e(repr(float(ci.estimate)))}" '
        f'data-low="{_e(repr(float(ci.low)))}" data-high="{_e(repr(float(ci.high)))}">'
        f"{_e(_ci_text(ci, digits))}</td>"
    )


def _ci_section(ctx, report, inputs):
    rows = [
        [_txt(m)] + [_ci_cell(_ci(ctx, report, inputs, m, k), ctx.digits, k) for k, _ in CI_METRICS]
        for m in report.models
    ]
    heads = ["model"] + [f"{h} [{CONFIDENCE_LEVEL:.0%} CI]" for _, h in CI_METRICS]
    return (
        "<h3>Confidence intervals</h3>"
        + _html_table("ci", heads, rows)
        + f'<p class="note">Bootstrap percentile intervals ({N_RESAMPLES} resamples, seed '
        f"{_e(ctx.options['random_state'])}, skcalib.metrics.calibration_error_ci): the ECE "
        "resamples the (bin, outcome) counts of its bins, the Brier score and NLL resample "
        "the rows. They show how much each number would move on another sample of the "
        "same size. The ECE is biased upward by noise, and so are its resamples: an ECE "
        "below its interval means the model is as well calibrated as a sample of this "
        "size can show.</p>"
    )


def _decomposition_section(ctx, report, inputs):
    """The Brier score's decomposition on the table's bins (from the accumulators of
    streamed predictions, ``inputs`` None) and, with the predictions, the log score's."""
    brier_rows, log_rows = [], []
    for m in report.models:
        if inputs is None:
            b = report._accumulators[m].brier_decomposition()
        else:
            y, p, common = _canonical(inputs, m)
            b = _metrics.brier_decomposition(
                y, p, **_kwargs_for(_metrics.brier_decomposition, common, report.n_bins)
            )
        values = [report.values[m]["brier_score"], b.reliability, b.resolution, b.uncertainty]
        values += [b.within_bin_variance, b.within_bin_covariance]
        brier_rows.append([_txt(m)] + [_num(float(v), ctx.digits) for v in values])
        if inputs is not None:
            s = _metrics.score_decomposition(
                y, p, scoring="log_loss", **_kwargs_for(_metrics.score_decomposition, common, 0)
            )
            values = [s.score, s.miscalibration, s.discrimination, s.uncertainty]
            log_rows.append([_txt(m)] + [_num(float(v), ctx.digits) for v in values])
    heads = ["model", "Brier", "reliability", "resolution", "uncertainty"]
    heads += ["within-bin variance", "within-bin covariance"]
    out = [
        "<h3>Score decompositions</h3>",
        _html_table("decomposition", heads, brier_rows),
        '<p class="note">Brier score = reliability - resolution + uncertainty + within-bin '
        "variance - within-bin covariance (Murphy 1973, Stephenson et al. 2008, on the "
        f"table's {report.n_bins} equal-width bins; skcalib.metrics.brier_decomposition).",
    ]
    if inputs is None:
        out.append(
            " Streamed predictions: the Brier decomposition comes from the counts and sums "
            "of the bins and two running totals; the decomposition of the log score needs "
            "the predictions in memory.</p>"
        )
        return "".join(out)
    multiclass = any(report.positive_class[m] is None for m in report.models)
    out.append("</p>")
    out.append(
        _html_table(
            "log-decomposition",
            ["model", "log score", "miscalibration", "discrimination", "uncertainty"],
            log_rows,
        )
    )
    out.append(
        '<p class="note">Log score = miscalibration - discrimination + uncertainty (CORP '
        "decomposition, isotonic recalibration, Dimitriadis, Gneiting and Jordan 2021; "
        "skcalib.metrics.score_decomposition). "
        + (
            "With more than two classes the log score is decomposed one class against the "
            "rest and summed over the classes, so it is not the NLL column."
            if multiclass
            else "For two classes the log score is the NLL column."
        )
        + "</p>"
    )
    return "".join(out)


def _cross_fitted(y, p, weight, calibrator, n_classes, seed):
    """Out-of-fold probabilities of ``calibrator`` fitted on the other folds."""
    import warnings

    from sklearn.base import clone
    from sklearn.model_selection import KFold, StratifiedKFold

    counts = np.bincount(y, minlength=n_classes)
    if counts.min() >= N_FOLDS:
        folds = StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed).split(p, y)
    else:
        folds = KFold(N_FOLDS, shuffle=True, random_state=seed).split(p)
    out = np.empty_like(p)
    caught = []
    for train, test in folds:
        est = clone(calibrator)
        sw = None if weight is None else weight[train]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            est.fit(p[train], y[train], sample_weight=sw)
            out[test] = est.predict_proba(p[test])
        caught += [str(x.message).split("\n")[0] for x in w]
    return out, sorted(set(caught))


def _recalibrated(ctx, report, inputs, m):
    """ECE and NLL before and after cross-fitted recalibration (None: too few samples)."""
    from ..recalibration import IsotonicCalibration, TemperatureScaling

    def compute():
        y, p, common = _canonical(inputs, m)
        if len(y) < 2 * N_FOLDS:
            return None
        k = p.shape[1]
        ece_kw = _kwargs_for(_metrics.expected_calibration_error, common, report.n_bins)
        nll_kw = _kwargs_for(_metrics.negative_log_likelihood, common, report.n_bins)
        ece = [_metrics.expected_calibration_error(y, p, **ece_kw)]
        nll = [_metrics.negative_log_likelihood(y, p, **nll_kw)]
        notes = []
        for cal in (
            TemperatureScaling(input="proba", classes=np.arange(k)),
            IsotonicCalibration(input="proba", classes=np.arange(k)),
        ):
            q, caught = _cross_fitted(
                y, p, common["sample_weight"], cal, k, ctx.options["random_state"]
            )
            ece.append(_metrics.expected_calibration_error(y, q, **ece_kw))
            nll.append(_metrics.negative_log_likelihood(y, q, **nll_kw))
            notes += [f"{m}, {type(cal).__name__}: {c}" for c in caught]
        return ece, nll, notes

    return ctx.memo("recal", report, inputs, m, compute)


def _recalibration_section(ctx, report, inputs):
    rows, notes = [], []
    for m in report.models:
        r = _recalibrated(ctx, report, inputs, m)
        if r is None:
            rows.append(
                [_txt(m), f'<td class="txt" colspan="6">n/a: fewer than {2 * N_FOLDS} samples</td>']
            )
            continue
        rows.append([_txt(m)] + [_num(float(v), ctx.digits) for v in r[0] + r[1]])
        notes += r[2]
    heads = ["model", "ECE", "ECE, temperature", "ECE, isotonic"]
    heads += ["NLL", "NLL, temperature", "NLL, isotonic"]
    warn = ""
    if notes:
        warn = (
            '<p class="note">Warnings of the fits: '
            + "; ".join(_e(n) for n in dict.fromkeys(notes))
            + "</p>"
        )
    return (
        "<h3>What recalibration would do</h3>"
        + _html_table("recalibration", heads, rows)
        + warn
        + f'<p class="note">Cross-fitted on the report\'s own predictions: the samples are '
        f"split into {N_FOLDS} folds (seed {_e(ctx.options['random_state'])}; stratified by "
        f"class when every class has {N_FOLDS} samples), temperature scaling and isotonic "
        "calibration (skcalib.recalibration) are fitted on four folds and applied to the "
        "fifth, and the metrics are computed on these out-of-fold predictions. This "
        "estimates what the recalibrator would give when fitted on held-out data of this "
        "size and applied to new data from the same distribution; it is not a substitute "
        "for a separate test set. ECE on the table's equal-width bins.</p>"
    )


def _streamed_note():
    return (
        "<h3>Not available for streamed predictions</h3>"
        '<p class="note">These predictions were streamed batch by batch into bounded-'
        "memory accumulators (skcalib.streaming.CalibrationAccumulator), which keep bin "
        "counts and sums, not the predictions. Everything on this page comes from them. "
        "What needs the predictions themselves is not shown: the bootstrap confidence "
        "intervals (resampling rows), the log score's decomposition (isotonic "
        "recalibration), the calibration tests, equal-mass reliability diagrams, the "
        "rejection curves (a sort of all confidences) and the recalibration preview "
        "(fitting on folds of the predictions). Read the file into memory (e.g. as .csv or "
        ".npz) to get them.</p>"
    )


def _section(ctx, report, inputs, heading=None):
    title = heading or report.title or "predictions"
    streamed = inputs is None and getattr(report, "_accumulators", None) is not None
    out = [f"<section><h2>{_e(title)}</h2>", f"<p>{_e(report._describe_problem())}</p>"]
    out += ["<h3>Metrics</h3>", _table(report, ctx.digits)]
    out.append(f'<p class="note">{_e(_binning_note(report))}</p>')
    if inputs is not None:
        out.append(_ci_section(ctx, report, inputs))
    if inputs is not None or streamed:
        out.append(_decomposition_section(ctx, report, inputs))
    if inputs is not None:
        out.append(_tests_section(ctx, report, inputs))
    out.append(_reliability_section(ctx, report, inputs))
    if inputs is not None:
        out.append(_rejection_section(ctx, report, inputs))
        out.append(_recalibration_section(ctx, report, inputs))
    elif streamed:
        out.append(_streamed_note())
    out.append("</section>")
    return "".join(out)


# ------------------------------------------------------------------------------ verdict
def _same_rows(inputs, models):
    """Whether the models were evaluated on the same labels (a paired comparison)."""
    ys = [np.asarray(model_inputs(inputs, m)["y_true"]) for m in models]
    ws = [model_inputs(inputs, m)["sample_weight"] for m in models]
    return all(y.shape == ys[0].shape and np.array_equal(y, ys[0]) for y in ys[1:]) and all(
        w is None for w in ws
    )


def _ece_difference(ctx, report, inputs, best, other):
    """ECE(other) - ECE(best) with its paired bootstrap interval (rows resampled once for
    both models, skcalib.metrics.calibration_error_ci)."""
    y, pb, common = _canonical(inputs, best)
    _, po, _ = _canonical(inputs, other)
    k = pb.shape[1]
    kw = _kwargs_for(_metrics.expected_calibration_error, common, report.n_bins)

    def difference(y_true, both):
        ece = _metrics.expected_calibration_error
        return ece(y_true, both[:, k:], **kw) - ece(y_true, both[:, :k], **kw)

    return _metrics.calibration_error_ci(
        difference,
        y,
        np.hstack([pb, po]),
        n_resamples=N_RESAMPLES,
        resample="samples",
        random_state=ctx.options["random_state"],
    )


def _verdict_items(ctx, report, inputs):
    """The bullet points of one report's verdict (HTML ``<li>`` strings)."""
    d = ctx.digits
    ece = {m: report.values[m]["expected_calibration_error"] for m in report.models}
    models = sorted(report.models, key=lambda m: (math.isnan(ece[m]), ece[m]))
    best = models[0]
    where = f"<b>{_e(report.title)}</b>: " if report.title else ""
    if inputs is None:
        rest = ", ".join(f"{_e(m)} {_e(_fmt(ece[m], d))}" for m in models[1:])
        items = [
            f"{where}lowest ECE: <b>{_e(best)}</b>, {_e(_fmt(ece[best], d))}"
            + (f" (then {rest})" if rest else "")
            + ". Intervals and the recalibration preview need the predictions in memory."
        ]
        return items
    cis = {m: _ci(ctx, report, inputs, m, "expected_calibration_error") for m in models}
    if len(models) == 1:
        who = "" if best in ("model", "overall") else f" of <b>{_e(best)}</b>"
        line = f"{where}ECE{who}: {_e(_ci_text(cis[best], d))}{_e(_below(cis[best]))}"
    else:
        line = (
            f"{where}best calibrated: <b>{_e(best)}</b>, ECE {_e(_ci_text(cis[best], d))}; "
            + "; ".join(f"{_e(m)} {_e(_ci_text(cis[m], d))}" for m in models[1:])
            + "."
        )
        runner = models[1]
        if _same_rows(inputs, [best, runner]):
            diff = _ece_difference(ctx, report, inputs, best, runner)
            clear = diff.low > 0
            line += (
                f" Its ECE is lower than {_e(runner)}'s by {_e(_ci_text(diff, d))} (paired "
                f"bootstrap, {CONFIDENCE_LEVEL:.0%}): "
                + (
                    "a clear lead."
                    if clear
                    else "the interval includes 0, so this sample does not tell them apart."
                )
            )
    items = [line]
    gains, after = [], []
    for m in models:
        r = _recalibrated(ctx, report, inputs, m)
        if r is not None:
            (e0, e_t, e_i), _, _ = r
            gains.append(
                f"{_e(m)} {_e(_fmt(e0, d))} &rarr; {_e(_fmt(e_t, d))} (temperature scaling), "
                f"{_e(_fmt(e_i, d))} (isotonic)"
            )
            after += [(e_t, m, "temperature scaling"), (e_i, m, "isotonic calibration")]
    if gains:
        items.append(
            "Recalibration, ECE before &rarr; after: "
            + "; ".join(gains)
            + f". These are in-sample estimates: each recalibrator is cross-fitted ({N_FOLDS} "
            "folds) on these same predictions, not measured on a separate test set."
        )
    finite = [a for a in after if not math.isnan(a[0])]
    if len(models) > 1 and finite:
        value, m, how = min(finite)
        if m != best and value < ece[best]:
            acc = report.values[m].get("accuracy")
            kept = " (temperature scaling keeps its predicted classes)" * (
                how == "temperature scaling"
            )
            items.append(
                f"Worth trying: <b>{_e(m)}</b> with {how} would be the best calibrated "
                f"(ECE {_e(_fmt(value, d))}, in-sample estimate), with accuracy "
                f"{_e(_fmt(acc, d))}{kept} against {_e(_fmt(report.values[best]['accuracy'], d))}"
                f" for {_e(best)}."
            )
    return items


def _verdict(items):
    return (
        '<section class="verdict" id="verdict"><h2>Verdict</h2><ul>'
        + "".join(f"<li>{i}</li>" for i in items)
        + "</ul></section>"
    )


# ------------------------------------------------------------------------ grouped pages
def _subreport(report, models, title):
    """The rows ``models`` of ``report`` as a report of their own (nothing recomputed)."""
    sub = CalibrationReport(
        title=title,
        models=models,
        columns=report.columns,
        values={m: report.values[m] for m in models},
        n_samples={m: report.n_samples[m] for m in models},
        classes={m: report.classes[m] for m in models},
        positive_class={m: report.positive_class[m] for m in models},
        curves={m: report.curves[m] for m in models},
        n_bins=report.n_bins,
    )
    accs = getattr(report, "_accumulators", None)
    if accs is not None:
        sub._accumulators = {m: accs[m] for m in models}
    return sub


def _subinputs(inputs, models):
    if inputs is None:
        return None
    out = dict(inputs)
    for k in ("y_true", "y_proba", "sample_weight"):
        if isinstance(inputs.get(k), Mapping):
            out[k] = {m: inputs[k][m] for m in models}
    return out


def _group_rows(report):
    """``(rows, overall)``: per group row ``(label, value, model, name)``; the names of
    the overall rows."""
    cols = list(getattr(report, "group_columns", None) or [])
    rows, overall = [], []
    for m in report.models:
        key = report.groups.get(m)
        if key is None:
            overall.append(m)
            continue
        key = tuple(key) if isinstance(key, (tuple, list)) else (key,)
        n = len(cols) or 1
        label = ", ".join(
            f"{c}={_show(v)}" for c, v in zip(cols or ["group"], key[:n], strict=False)
        )
        model = None if len(key) <= n else str(key[n])
        rows.append((label, key[0] if n == 1 else None, model, m))
    return rows, overall


def _axis_values(values):
    """The groups' values as dates or numbers for a trend chart, or None (categories)."""
    if any(v is None for v in values):
        return None
    try:
        return np.array([np.datetime64(str(v).strip().replace(" ", "T")) for v in values])
    except ValueError:
        pass
    try:
        out = np.array([float(v) for v in values])
    except (TypeError, ValueError):
        return None
    return out if np.isfinite(out).all() else None


def _noise_floor(ctx, report, inputs, m):
    """The mean ECE of outcomes drawn from the predictions themselves (``N_NULL`` draws):
    what a perfectly calibrated model would show on these predictions, from noise
    alone.  The outcome of a draw is the positive class with probability ``p`` (binary)
    or a correct top label with probability the confidence (multiclass)."""
    y, p, common = _canonical(inputs, m)
    q = p[:, common["pos_label"]] if p.shape[1] == 2 else p.max(axis=1)
    rng = np.random.default_rng(ctx.options["random_state"])
    draws = [
        _metrics.expected_calibration_error(
            (rng.random(q.shape[0]) < q).astype(int),
            q,
            n_bins=report.n_bins,
            sample_weight=common["sample_weight"],
            labels=[0, 1],
        )
        for _ in range(N_NULL)
    ]
    return float(np.mean(draws))


def _group_chart(ctx, rows, stats, overall_ece, column):
    """The ECE of every group in one chart: a trend over a date or number key (with its
    intervals as a band), else the groups ordered worst first."""
    from ..display._base import headless_figure

    fig = headless_figure(figsize=(11.0, 4.0), layout="constrained")
    ax = fig.subplots()
    models = list(dict.fromkeys(r[2] for r in rows))
    x_all = _axis_values([r[1] for r in rows])
    trend = x_all is not None
    if not trend:
        order = sorted(range(len(rows)), key=lambda i: -np.nan_to_num(stats[i]["ece"], nan=-1))
        position = {i: j for j, i in enumerate(order)}
    for model in models:
        idx = [i for i, r in enumerate(rows) if r[2] == model]
        x = x_all[idx] if trend else np.array([position[i] for i in idx])
        srt = np.argsort(x, kind="stable")
        x = x[srt]
        pick = [idx[i] for i in srt]
        ece = np.array([stats[i]["ece"] for i in pick])
        floor = np.array([stats[i].get("floor", np.nan) for i in pick])
        low = np.array([stats[i].get("low", np.nan) for i in pick])
        high = np.array([stats[i].get("high", np.nan) for i in pick])
        name = model or "ECE"
        if trend:
            (line,) = ax.plot(x, ece, marker="." if len(x) <= 60 else None, label=name)
            if np.isfinite(low).any():
                ax.fill_between(x, low, high, alpha=0.25, color=line.get_color(), linewidth=0)
            if np.isfinite(floor).any():
                ax.plot(x, floor, ":", color="0.4", label=f"{name} if calibrated")
        else:
            (points,) = ax.plot(x, ece, "o", ms=3, label=name)
            if np.isfinite(low).any():  # the interval (the ECE may lie below it)
                ax.vlines(x, low, high, color=points.get_color(), alpha=0.5)
            if np.isfinite(floor).any():
                ax.plot(x, floor, "_", ms=8, color="0.4", label=f"{name} if calibrated")
    for model, value in overall_ece.items():
        label = f"overall {model or ''}".strip()
        ax.axhline(value, color="k", linestyle="--", linewidth=1, label=label)
    if not trend:
        labels = [rows[i][0] for i in order]
        if len(labels) <= 30:
            ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize="small")
        else:
            ax.set_xticks([])
        ax.set_xlabel(f"groups of {column}, worst ECE first")
    else:
        ax.set_xlabel(column)
    tops = [stats[i].get("high", stats[i]["ece"]) for i in range(len(rows))]
    top = np.nanmax(np.r_[tops, list(overall_ece.values()), 0.01])
    ax.set_ylim(0, 1.08 * top)
    ax.set_ylabel("ECE")
    ax.legend(loc="upper left", fontsize="small", ncols=4)
    kind = "trend over " if trend else ""
    return ctx.figure(fig, f"ECE of every group: {kind}{column}")


def _grouped_body(ctx, report, inputs):
    rows, overall = _group_rows(report)
    column = ", ".join(getattr(report, "group_columns", None) or ["group"])
    d = ctx.digits
    stats = []
    for _, _, _, m in rows:
        st = {"ece": report.values[m]["expected_calibration_error"]}
        if inputs is not None and report.n_samples[m] >= 2:
            ci = _ci(ctx, report, inputs, m, "expected_calibration_error")
            st["low"], st["high"] = ci.low, ci.high
            st["ci"] = ci
            st["floor"] = _noise_floor(ctx, report, inputs, m)
        stats.append(st)
    # worst first: the groups by the highest ECE of their models
    worst = {}
    for (label, _, _, _), st in zip(rows, stats, strict=True):
        worst[label] = max(worst.get(label, -1.0), np.nan_to_num(st["ece"], nan=-1.0))
    ranked = sorted(worst, key=lambda g: -worst[g])
    detailed = ranked[:N_DETAILED]
    rank = {g: i for i, g in enumerate(ranked)}
    order = sorted(
        range(len(rows)),
        key=lambda i: (rank[rows[i][0]], -np.nan_to_num(stats[i]["ece"], nan=-1.0)),
    )
    several = any(r[2] is not None for r in rows)
    heads = ["group"] + (["model"] if several else []) + ["n"]
    heads += [c.header for c in report.columns]
    if inputs is not None:
        at = heads.index("ECE") + 1
        heads[at:at] = [f"ECE {CONFIDENCE_LEVEL:.0%} CI", "ECE if calibrated"]
    body = []
    for i in order:
        label, _, model, m = rows[i]
        cells = [_txt(label)] + ([_txt(model or "")] if several else [])
        cells.append(
            f'<td class="num" data-value="{report.n_samples[m]}">{report.n_samples[m]}</td>'
        )
        for c in report.columns:
            v = report.values[m][c.key]
            if c.key == HL_HOLM and v < REJECT_LEVEL:  # NaN compares False
                cells.append(
                    f'<td class="num reject" data-key="{_e(c.key)}" data-value="{_e(repr(v))}"'
                    f" title=\"calibration rejected at {REJECT_LEVEL:.0%} after Holm's "
                    f'adjustment">{_e(_fmt(v, d))} *</td>'
                )
            else:
                cells.append(_num(v, d, c.key))
            if c.key == "expected_calibration_error" and inputs is not None:
                st = stats[i]
                text = f"[{_fmt(st['low'], d)}, {_fmt(st['high'], d)}]" if "ci" in st else "n/a"
                high = _e(repr(float(st.get("high", np.nan))))
                cells.append(f'<td class="num" data-value="{high}">{_e(text)}</td>')
                cells.append(_num(st.get("floor", float("nan")), d))
        body.append("<tr>" + "".join(cells) + "</tr>")
    ths = "".join(
        f'<th{" data-dir=desc" if h == "ECE" else ""} title="click to sort">{_e(h)}</th>'
        for h in heads
    )
    summary = (
        f'<div class="wide scroll"><table class="summary sortable"><thead><tr>{ths}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    overall_ece = {
        (None if m == "overall" and not several else m): report.values[m][
            "expected_calibration_error"
        ]
        for m in overall
    }
    ci_note = (
        f" ECE intervals: bootstrap, {N_RESAMPLES} resamples of each group's bins. Dotted "
        f'("ECE if calibrated" in the table): the mean ECE of {N_NULL} sets of outcomes '
        "drawn from the group's own predictions, the ECE that a perfectly calibrated model "
        "would show on them from noise alone; a group well above it is miscalibrated."
        if inputs is not None
        else " Streamed predictions: no intervals (they need the predictions in memory)."
    )
    out = [
        f"<section><h2>{_e(len(worst))} groups by {_e(column)}</h2>",
        _group_chart(ctx, rows, stats, overall_ece, column),
        '<p class="note">The ECE of each group (dashed: the overall data).'
        + _e(ci_note)
        + " A group's ECE is biased upward by its noise: small groups look worse than they"
        " are; read it with its interval and its n.</p>",
        "<h3>Summary</h3>",
        f'<p class="note">One row per group{" and model" if several else ""}, worst ECE '
        "first; click a column heading to sort by it.</p>",
        summary,
        *(
            [
                '<p class="note">HL p: the p-value of the Hosmer-Lemeshow calibration test on '
                f"the group's {report.n_bins} equal-width bins; HL p (Holm): adjusted for the "
                f"number of groups by Holm's step-down. <b>*</b>: calibration rejected at "
                f"{REJECT_LEVEL:.0%} after the adjustment.</p>"
            ]
            if any(c.key == HL_HOLM for c in report.columns)
            else []
        ),
        "</section>",
    ]
    if overall:  # the overall rows of the report (one per model)
        sub = _subreport(report, overall, report.title)
        heading = f"All {len(worst)} groups together"
        out.append(_section(ctx, sub, _subinputs(inputs, overall), heading=heading))
    rest = len(worst) - len(detailed)
    out.append(
        (
            f'<h2>The {len(detailed)} worst groups</h2><p class="note">The {len(detailed)} '
            "groups with the highest ECE, in detail"
            if len(detailed) > 1
            else '<h2>The worst group</h2><p class="note">The group with the highest ECE, in detail'
        )
        + (f"; the other {rest} are in the summary table above." if rest else ".")
        + "</p>"
    )
    for g in detailed:
        names = [r[3] for r in rows if r[0] == g]
        sub = _subreport(report, names, g)
        out.append(_section(ctx, sub, _subinputs(inputs, names)))
    # the verdict: the overall data's and the groups'
    items = []
    if overall:
        over = _subreport(report, overall, "All data")
        items = _verdict_items(ctx, over, _subinputs(inputs, overall))
    g0 = rows[order[0]]
    st0 = stats[order[0]]
    ece_text = _ci_text(st0["ci"], d) if "ci" in st0 else _fmt(st0["ece"], d)
    finite = [s["ece"] for s in stats if not math.isnan(s["ece"])] or [math.nan]
    items.append(
        f"Across the {len(worst)} groups of {_e(column)}, the ECE goes from "
        f"{_e(_fmt(min(finite), d))} to {_e(_fmt(max(finite), d))} (median "
        f"{_e(_fmt(float(np.median(finite)), d))}); the worst is <b>{_e(g0[0])}</b>"
        + (f" ({_e(g0[2])})" if g0[2] else "")
        + f", ECE {_e(ece_text)} on {report.n_samples[g0[3]]} samples."
    )
    floors = [s["floor"] for s in stats if "floor" in s]
    if floors:
        items.append(
            f"Noise alone: a perfectly calibrated model would show a median group ECE of "
            f"{_e(_fmt(float(np.median(floors)), d))} on these predictions, against "
            f"{_e(_fmt(float(np.median(finite)), d))} observed; the chart shows where the "
            "groups rise above that level."
        )
    return _verdict(items), "".join(out)


def _shown_path(path):
    """A path as the reader should see it: relative to the working directory when it
    lies below it, else its file name (an absolute path says nothing about the data
    and tells where the author keeps files)."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    if not os.path.isabs(text):
        return text
    try:
        rel = os.path.relpath(text)
    except ValueError:  # another drive
        rel = os.pardir
    return os.path.basename(text) if rel.startswith(os.pardir) else rel


def _provenance(reports, inputs, source, command, options):
    from importlib.metadata import version

    import sklearn

    from .. import __version__

    n_rows = 0
    for r in reports:
        groups = getattr(r, "groups", None) or {}
        n_rows += sum(n for m, n in r.n_samples.items() if not groups or groups.get(m) is None)
    items = [
        ("skcalib", __version__),
        ("scikit-learn", sklearn.__version__),
        ("numpy", np.__version__),
        ("matplotlib", version("matplotlib")),
        ("Python", platform.python_version()),
        ("input", _shown_path(source) if source is not None else "(in-memory arrays)"),
        ("rows", f"{n_rows} (samples over all models and groups)"),
    ]
    if command is not None:
        items.append(("command line", command))
    bins = sorted({r.n_bins for r in reports})
    interval = {
        "wilson": f"{CONFIDENCE_LEVEL:.0%} Wilson intervals",
        "clopper_pearson": f"{CONFIDENCE_LEVEL:.0%} Clopper-Pearson intervals",
        "none": "no intervals",
    }[options["intervals"]]
    what = "equal-mass" if options["strategy"] == "quantile" else "equal-width"
    rules = (
        f"ECE, MCE: {', '.join(map(str, bins))} equal-width bins (right-closed); RMSCE: "
        f"equal-mass bins; reliability diagrams: {what} bins (strategy="
        f"'{options['strategy']}'), min(--n-bins, max({MIN_DIAGRAM_BINS}, n // "
        f"{SAMPLES_PER_BIN})) of them, with {interval} (streamed predictions: the "
        "equal-width bins of the accumulators); binary problems: probability of the "
        "positive class, otherwise the top label."
    )
    items.append(("binning", rules))
    if any(i is not None for i in inputs):
        items.append(
            (
                "seeds",
                f"random_state={options['random_state']}: bootstrap ({N_RESAMPLES} "
                f"resamples) and the {N_FOLDS} folds of the recalibration preview",
            )
        )
    dl = "".join(
        f"<dt>{_e(k)}</dt><dd>{'<code>' + _e(v) + '</code>' if k == 'command line' else _e(v)}</dd>"
        for k, v in items
    )
    return f"<section><h2>Provenance</h2><dl>{dl}</dl></section>"


def _as_lists(reports, inputs):
    if isinstance(reports, CalibrationReport):
        reports = [reports]
        inputs = [inputs]
    else:
        reports = list(reports)
        if inputs is None:
            inputs = [None] * len(reports)
        elif isinstance(inputs, Mapping):
            raise ValueError("inputs must be a list (one dict or None per report)")
        inputs = list(inputs)
    if not reports:
        raise ValueError("reports is empty: give at least one CalibrationReport")
    if len(inputs) != len(reports):
        raise ValueError(
            f"inputs has {len(inputs)} entries for {len(reports)} reports (give one per report)"
        )
    for r, i in zip(reports, inputs, strict=True):
        if not isinstance(r, CalibrationReport):
            raise TypeError(f"expected a CalibrationReport, got {type(r).__name__}")
        if i is not None and not (isinstance(i, Mapping) and "y_true" in i and "y_proba" in i):
            raise ValueError("each entry of inputs is None or a dict with y_true and y_proba")
    return reports, inputs


def _options(strategy, intervals, classwise, random_state):
    if strategy not in DIAGRAM_STRATEGIES:
        raise ValueError(f"strategy must be one of {DIAGRAM_STRATEGIES}, got {strategy!r}")
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {INTERVALS}, got {intervals!r}")
    if not isinstance(random_state, int) or isinstance(random_state, bool) or random_state < 0:
        raise ValueError(f"random_state must be an int >= 0, got {random_state!r}")
    return {
        "strategy": strategy,
        "intervals": intervals,
        "classwise": bool(classwise),
        "random_state": random_state,
    }


def render_html(
    reports,
    *,
    inputs=None,
    source=None,
    command=None,
    digits=4,
    title=None,
    strategy="quantile",
    intervals="wilson",
    classwise=False,
    random_state=0,
):
    """Return one self-contained HTML page of calibration reports, as a string.

    See :func:`write_html` for the parameters.

    Returns
    -------
    str
        The page.
    """
    reports, inputs = _as_lists(reports, inputs)
    options = _options(strategy, intervals, classwise, random_state)
    ctx = _Context(options, digits)
    title = title or "Calibration report"
    body = [f"<h1>{_e(title)}</h1>"]
    grouped = None
    keys = getattr(reports[0], "groups", None) or {}
    if len(reports) == 1 and any(k is not None for k in keys.values()):
        grouped = reports[0], inputs[0]
    if grouped is not None:
        verdict, sections = _grouped_body(ctx, *grouped)
        body += [verdict, sections]
    else:
        items = []
        for r, i in zip(reports, inputs, strict=True):
            items += _verdict_items(ctx, r, i)
        body.append(_verdict(items))
        body += [_section(ctx, r, i) for r, i in zip(reports, inputs, strict=True)]
    body.append(_provenance(reports, inputs, source, command, options))
    script = f"<script>{_SORT_JS}</script>" if grouped is not None else ""
    return _page(title, body, script)


def write_html(
    reports,
    path,
    *,
    inputs=None,
    source=None,
    command=None,
    digits=4,
    title=None,
    strategy="quantile",
    intervals="wilson",
    classwise=False,
    random_state=0,
):
    """Write one self-contained HTML page of calibration reports (needs matplotlib).

    The page starts with a verdict: the best calibrated model and its ECE with a 95 %
    bootstrap interval, how much lower its ECE is than the runner-up's (with a paired
    bootstrap interval when both were evaluated on the same rows), and what cross-fitted
    temperature scaling and isotonic calibration would do to each model's ECE
    (in-sample estimates, labelled so), and which model would then be the best
    calibrated when it is another one.  Then, for each report (one section each, e.g.
    one per dataset):

    * the metrics table (the numbers of the printed table);
    * with the predictions (``inputs``): 95 % bootstrap confidence intervals of the
      ECE, Brier score and NLL (200 resamples, seeded by ``random_state``), the Brier
      (Murphy) and log-score (CORP) decompositions, and the Spiegelhalter and
      Hosmer-Lemeshow tests (an infinite statistic is explained);
    * the reliability diagrams, one panel per model with per-bin intervals and the bin
      counts below (``strategy`` bins, ``min(n_bins, max(5, n // 50))`` of them);
      class-wise, one panel per class, with ``classwise=True``;
    * with the predictions: the rejection curves and a recalibration preview, the ECE
      and NLL before and after temperature scaling and isotonic calibration fitted
      cross-fitted (5 folds, seeded) on the report's own predictions.

    **Grouped reports.**  A report of ``--by`` rows (one with ``groups``, a dict of row
    name to group key, None for the overall rows, and ``group_columns``) gets one page
    that starts with a
    summary: a chart of the ECE of every group (a trend with its bootstrap intervals as
    a band when the key is a date or a number, else the groups worst first) and a table
    with one row per group, worst ECE first, sortable by any column with a click (the
    page's only script, a few inline lines).  Beside each group's ECE and its interval
    stands the ECE a perfectly calibrated model would show on the group's predictions
    from noise alone (the mean over 10 sets of outcomes drawn from the predictions
    themselves), so that small groups are not mistaken for bad ones.  Details follow
    only for the overall data
    and the 3 worst groups; the others are in the table.  365 groups of 200 predictions
    make a page of about 0.8 MB.

    A report without ``inputs`` that was streamed (``skcalib report`` on Parquet data)
    draws its diagrams from its accumulators (equal-width bins, with intervals) and says
    what needs the predictions in memory; another report without ``inputs`` gets its
    table and the diagrams of :attr:`CalibrationReport.curves`.  A provenance section
    ends the page (versions, binning rules, seed, input, row count, command line; a path
    is shown relative to the working directory, or by its file name).

    The style sheet is inline and the figures are inline SVG: the page loads nothing
    else (no font, no network), so it can be sent as an attachment.  User-provided
    strings are HTML-escaped.  The file is opened before the page is computed, so an
    unwritable ``path`` fails at once; a page that fails leaves no file.

    Parameters
    ----------
    reports : CalibrationReport or list of CalibrationReport
        The reports, one section each.
    path : str or path-like
        The file to write (UTF-8).
    inputs : dict, list of (dict or None), or None, default=None
        The predictions behind each report: the arguments given to
        :func:`calibration_report`, as a dict with the keys ``y_true`` and ``y_proba``
        (and optionally ``sample_weight``, ``labels``, ``pos_label``); ``y_true``,
        ``y_proba`` and ``sample_weight`` may be dicts by model name.  A list, one entry
        per report, when ``reports`` is a list.
    source : str, default=None
        Name of the input (e.g. the predictions file), shown in the provenance section.
    command : str, default=None
        The command line that made the page, shown in the provenance section.
    digits : int, default=4
        Digits after the decimal point in the tables.
    title : str, default=None
        Page heading (default ``"Calibration report"``).
    strategy : {"quantile", "uniform"}, default="quantile"
        Bins of the reliability diagrams: equal-mass (every bin has data at any sample
        size) or equal-width.
    intervals : {"wilson", "clopper_pearson", "none"}, default="wilson"
        95 % intervals of the observed frequency of each bin of the diagrams.
    classwise : bool, default=False
        Add one figure per model with a reliability diagram per class.
    random_state : int, default=0
        Seed of the bootstrap and of the folds of the recalibration preview.

    Returns
    -------
    str
        ``path``, as given.

    Examples
    --------
    >>> import os, tempfile
    >>> from skcalib.report import calibration_report, write_html
    >>> y = [0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0]
    >>> p = [0.1, 0.9, 0.8, 0.3, 0.7, 0.2, 0.6, 0.4, 0.35, 0.55, 0.85, 0.15]
    >>> report = calibration_report(y, {"model <b>": p}, n_bins=2)
    >>> path = os.path.join(tempfile.mkdtemp(), "report.html")
    >>> _ = write_html(report, path, inputs={"y_true": y, "y_proba": {"model <b>": p}})
    >>> text = open(path, encoding="utf-8").read()
    >>> "model &lt;b&gt;" in text, "<script" in text, "<svg" in text, "Verdict" in text
    (True, False, True, True)
    """
    # the file is opened first: a path that cannot be written fails before the work
    with open(os.fspath(path), "w", encoding="utf-8") as f:
        try:
            page = render_html(
                reports,
                inputs=inputs,
                source=source,
                command=command,
                digits=digits,
                title=title,
                strategy=strategy,
                intervals=intervals,
                classwise=classwise,
                random_state=random_state,
            )
        except BaseException:
            f.close()
            os.remove(os.fspath(path))
            raise
        f.write(page)
    return path


def command_line(args):
    """The ``skcalib report`` command of parsed arguments (options not at their defaults)."""
    import shlex

    parser = args._parser
    words = ["skcalib", "report"]
    for action in parser._actions:
        if not action.option_strings or action.dest in ("help",):
            value = getattr(args, action.dest, None)
            if not action.option_strings and value is not None and action.dest != "help":
                words.append(str(value))
            continue
        value = getattr(args, action.dest, action.default)
        if value == action.default or value is None:
            continue
        opt = action.option_strings[-1]
        if action.nargs == 0:
            words.append(opt)
        elif isinstance(value, list):
            for v in value:
                words += [opt, str(v)]
        else:
            words += [opt, str(value)]
    return shlex.join(_shown_path(w) if os.path.isabs(w) else w for w in words)
