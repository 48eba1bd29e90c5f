"""One self-contained HTML page of calibration reports (``skcalib report --html FILE``).

The page needs nothing but itself: the style sheet is inline, every diagram is a PNG
embedded as a ``data:`` URI (drawn with matplotlib's Agg canvas, no pyplot), there is no
script and no reference to the network, so it opens from an e-mail attachment or a CI
artefact.  Every string that comes from the user (titles, model and class names, file
names, the command line) is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import platform
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

__all__ = ["render_html", "write_html"]

#: Bootstrap resamples of the confidence intervals of the metrics (kept modest: the
#: ECE and MCE resample bin counts, but the Brier score and NLL resample rows).
N_RESAMPLES = 200
#: Folds of the cross-fitted recalibration preview.
N_FOLDS = 5
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
table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .7em;border:1px solid #ccc}
th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.txt{text-align:left}p.note{color:#555;font-size:.92em}
.panels{display:flex;flex-wrap:wrap;gap:1em}.panels img{max-width:100%;height:auto}
.wide{overflow-x:auto}figure{margin:0}figcaption{font-size:.9em;color:#555}
code{background:#f5f5f5;padding:0 .2em}dl{display:grid;grid-template-columns:max-content auto;
gap:.2em 1em}dt{font-weight:bold}dd{margin:0}
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _fmt(v, digits):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return f"{v:.{digits}f}"


def _png_data_uri(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _img(uri, alt):
    return f'<img src="{uri}" alt="{_e(alt)}">'


def _model_inputs(inputs, model):
    return model_inputs(inputs, model)


def _table(report, digits):
    head = ["model", "n"] + [c.header for c in report.columns]
    out = ['<div class="wide"><table class="metrics">', "<thead><tr>"]
    for h, c in zip(head, [None, None, *report.columns], strict=True):
        title = f' title="{_e(c.description)}"' if c is not None else ""
        out.append(f"<th{title}>{_e(h)}</th>")
    out.append("</tr></thead><tbody>")
    for m in report.models:
        out.append(f'<tr><td class="txt">{_e(m)}</td><td class="num">{report.n_samples[m]}</td>')
        for c in report.columns:
            v = report.values[m][c.key]
            out.append(
                f'<td class="num" data-key="{_e(c.key)}" data-value="{_e(repr(float(v)))}">'
                f"{_e(_fmt(v, digits))}</td>"
            )
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


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
    kw = _model_inputs(inputs, model)
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


def _reliability_section(report, inputs, options):
    strategy, interval = options["strategy"], options["intervals"]
    streamed = inputs is None and getattr(report, "_accumulators", None) is not None
    fig, captions = reliability_figure(report, inputs, strategy=strategy, interval=interval)
    out = ["<h3>Reliability diagrams</h3>"]
    out.append(
        f"<figure>{_img(_png_data_uri(fig), 'reliability diagrams, one panel per model')}"
        f"<figcaption>{_e('; '.join(captions))}</figcaption></figure>"
    )
    if options["classwise"] and (inputs is not None or streamed):
        for m in report.models:
            cfig, caption = classwise_figure(
                report, inputs, m, strategy=strategy, interval=interval
            )
            out.append(
                f"<figure>{_img(_png_data_uri(cfig), f'class-wise reliability diagrams of {m}')}"
                f"<figcaption>{_e(caption)}</figcaption></figure>"
            )
    what = {
        "wilson": f"its {CONFIDENCE_LEVEL:.0%} Wilson score interval",
        "clopper_pearson": f"its {CONFIDENCE_LEVEL:.0%} Clopper-Pearson (exact) interval",
        "none": "no interval",
    }[interval]
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
        rule = ""
    else:
        binning = f"the {report.n_bins} equal-width bins of the ECE column"
        rule = ""
        what = "no interval"
    out.append(
        f'<p class="note">One panel per model. Each point is one of {_e(binning)}{_e(rule)}: '
        f"the mean predicted probability against the observed frequency, with {_e(what)}. "
        "The dotted diagonal is perfect calibration; the bars below count the samples of "
        "each bin. The ECE in the legend is the table's.</p>"
    )
    return "".join(out)


def _rejection_section(report, inputs):
    from ..display import RejectionDisplay
    from ..display._base import headless_figure

    fig = headless_figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.subplots()
    single = len(report.models) == 1
    for m in report.models:
        kw = _model_inputs(inputs, m)
        RejectionDisplay.from_predictions(
            kw.pop("y_true"),
            kw.pop("y_proba"),
            name=m,
            ax=ax,
            show_oracle=single,
            show_random=single,
            **kw,
        )
    return (
        "<h3>Rejection curves</h3>"
        + _img(_png_data_uri(fig), "rejection curves")
        + '<p class="note">Accuracy of the predictions kept when the least confident '
        "fraction is rejected (confidence: the top-label probability). A curve that rises "
        "steadily means the confidence ranks the errors well.</p>"
    )


def _tests_section(report, inputs, digits):
    rows = []
    for m in report.models:
        kw = _model_inputs(inputs, m)
        y, p = kw.pop("y_true"), kw.pop("y_proba")
        cells = [f'<td class="txt">{_e(m)}</td>']
        for func in (_metrics.spiegelhalter_test, _metrics.hosmer_lemeshow_test):
            try:
                res = func(y, p, **kw)
                cells.append(f'<td class="num">{_e(_fmt(float(res.statistic), digits))}</td>')
                if hasattr(res, "df"):
                    cells.append(f'<td class="num">{_e(res.df)}</td>')
                cells.append(f'<td class="num">{_e(_fmt(float(res.pvalue), digits))}</td>')
            except ValueError as exc:
                span = 3 if func is _metrics.hosmer_lemeshow_test else 2
                cells.append(f'<td class="txt" colspan="{span}">n/a: {_e(exc)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        "<h3>Calibration tests</h3>"
        '<table class="tests"><thead><tr><th>model</th><th>Spiegelhalter z</th>'
        "<th>p-value</th><th>Hosmer-Lemeshow C</th><th>df</th><th>p-value</th></tr></thead>"
        "<tbody>" + "".join(rows) + "</tbody></table>"
        '<p class="note">Null hypothesis: the model is calibrated; a small p-value is evidence '
        "against it (Hosmer-Lemeshow: 10 groups by predicted probability, top label when "
        "there are more than two classes).</p>"
    )


def _ci_section(report, inputs, options, digits):
    seed = options["random_state"]
    rows = []
    for m in report.models:
        y, p, common = _canonical(inputs, m)
        cells = [f'<td class="txt">{_e(m)}</td>']
        for key, _ in CI_METRICS:
            func = getattr(_metrics, key)
            ci = _metrics.calibration_error_ci(
                func,
                y,
                p,
                n_resamples=N_RESAMPLES,
                random_state=seed,
                **_kwargs_for(func, common, report.n_bins),
            )
            cells.append(
                f'<td class="num" data-key="{_e(key)}" data-low="{_e(repr(float(ci.low)))}" '
                f'data-high="{_e(repr(float(ci.high)))}">{_e(_fmt(float(ci.estimate), digits))} '
                f"[{_e(_fmt(float(ci.low), digits))}, {_e(_fmt(float(ci.high), digits))}]</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th>{_e(h)} [{CONFIDENCE_LEVEL:.0%} CI]</th>" for _, h in CI_METRICS)
    return (
        "<h3>Confidence intervals</h3>"
        f'<table class="ci"><thead><tr><th>model</th>{head}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
        f'<p class="note">Bootstrap percentile intervals ({N_RESAMPLES} resamples, seed '
        f"{_e(seed)}, skcalib.metrics.calibration_error_ci): the ECE resamples the "
        "(bin, outcome) counts of its bins, the Brier score and NLL resample the rows. "
        "They show how much each number would move on another sample of the same size.</p>"
    )


def _decomposition_section(report, inputs, digits):
    """The score decompositions of each model: of the Brier score on the table's bins, and
    of the log score (which needs the predictions: not for streamed ones, ``inputs`` None,
    whose Brier decomposition comes from their accumulators)."""
    rows = []
    for m in report.models:
        if inputs is None:
            b = report._accumulators[m].brier_decomposition()
        else:
            y, p, common = _canonical(inputs, m)
            b = _metrics.brier_decomposition(
                y, p, **_kwargs_for(_metrics.brier_decomposition, common, report.n_bins)
            )
        values = [
            report.values[m]["brier_score"],
            b.reliability,
            b.resolution,
            b.uncertainty,
            b.within_bin_variance,
            b.within_bin_covariance,
        ]
        if inputs is not None:
            s = _metrics.score_decomposition(
                y, p, scoring="log_loss", **_kwargs_for(_metrics.score_decomposition, common, 0)
            )
            values += [s.score, s.miscalibration, s.discrimination, s.uncertainty]
        cells = "".join(f'<td class="num">{_e(_fmt(float(v), digits))}</td>' for v in values)
        rows.append(f'<tr><td class="txt">{_e(m)}</td>{cells}</tr>')
    heads = [
        "Brier",
        "reliability",
        "resolution",
        "uncertainty",
        "within-bin variance",
        "within-bin covariance",
    ]
    if inputs is None:
        log_note = (
            " Streamed predictions: the Brier decomposition comes from the counts and sums "
            "of the bins and two running totals; the decomposition of the log score needs "
            "the predictions in memory."
        )
    else:
        heads += ["log score", "miscalibration", "discrimination", "uncertainty"]
        multiclass = any(report.positive_class[m] is None for m in report.models)
        log_note = (
            " Log score = miscalibration - discrimination + uncertainty (CORP "
            "decomposition, isotonic recalibration, Dimitriadis, Gneiting and Jordan 2021; "
            "skcalib.metrics.score_decomposition)."
        ) + (
            " With more than two classes the log score is decomposed one class against the "
            "rest and summed over the classes, so it is not the NLL column."
            if multiclass
            else " For two classes the log score is the NLL column."
        )
    return (
        "<h3>Score decompositions</h3>"
        '<div class="wide"><table class="decomposition"><thead><tr><th>model</th>'
        + "".join(f"<th>{_e(h)}</th>" for h in heads)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
        '<p class="note">Brier score = reliability - resolution + uncertainty + within-bin '
        "variance - within-bin covariance (Murphy 1973, Stephenson et al. 2008, on the "
        f"table's {report.n_bins} equal-width bins; skcalib.metrics.brier_decomposition)."
        + _e(log_note)
        + "</p>"
    )


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


def _recalibration_section(report, inputs, options, digits):
    from ..recalibration import IsotonicCalibration, TemperatureScaling

    seed = options["random_state"]
    rows, notes = [], []
    for m in report.models:
        y, p, common = _canonical(inputs, m)
        k = p.shape[1]
        ece_kw = _kwargs_for(_metrics.expected_calibration_error, common, report.n_bins)
        nll_kw = _kwargs_for(_metrics.negative_log_likelihood, common, report.n_bins)
        if len(y) < 2 * N_FOLDS:
            rows.append(
                f'<tr><td class="txt">{_e(m)}</td><td class="txt" colspan="6">n/a: fewer '
                f"than {2 * N_FOLDS} samples</td></tr>"
            )
            continue
        ece = [_metrics.expected_calibration_error(y, p, **ece_kw)]
        nll = [_metrics.negative_log_likelihood(y, p, **nll_kw)]
        for cal in (
            TemperatureScaling(input="proba", classes=np.arange(k)),
            IsotonicCalibration(input="proba", classes=np.arange(k)),
        ):
            q, caught = _cross_fitted(y, p, common["sample_weight"], cal, k, seed)
            ece.append(_metrics.expected_calibration_error(y, q, **ece_kw))
            nll.append(_metrics.negative_log_likelihood(y, q, **nll_kw))
            notes += [f"{m}, {type(cal).__name__}: {c}" for c in caught]
        values = ece + nll
        cells = "".join(f'<td class="num">{_e(_fmt(float(v), digits))}</td>' for v in values)
        rows.append(f'<tr><td class="txt">{_e(m)}</td>{cells}</tr>')
    heads = ["ECE", "ECE, temperature", "ECE, isotonic", "NLL", "NLL, temperature"]
    heads.append("NLL, isotonic")
    warn = ""
    if notes:
        warn = (
            '<p class="note">Warnings of the fits: '
            + "; ".join(_e(n) for n in dict.fromkeys(notes))
            + "</p>"
        )
    return (
        "<h3>What recalibration would do</h3>"
        '<table class="recalibration"><thead><tr><th>model</th>'
        + "".join(f"<th>{_e(h)}</th>" for h in heads)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        + warn
        + f'<p class="note">Cross-fitted on the report\'s own predictions: the samples are '
        f"split into {N_FOLDS} folds (seed {_e(seed)}; stratified by class when every class "
        f"has {N_FOLDS} samples), temperature scaling and isotonic calibration "
        "(skcalib.recalibration) are fitted on four folds and applied to the fifth, and "
        "the metrics are computed on these out-of-fold predictions. This estimates what "
        "the recalibrator would give when fitted on held-out data of this size and "
        "applied to new data from the same distribution; it is not a substitute for a "
        "separate test set. ECE on the table's equal-width bins.</p>"
    )


def _streamed_note(report):
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


def _section(report, inputs, digits, options):
    title = report.title or "predictions"
    out = [f"<section><h2>{_e(title)}</h2>", f"<p>{_e(report._describe_problem())}</p>"]
    out.append("<h3>Metrics</h3>")
    out.append(_table(report, digits))
    out.append(f'<p class="note">{_e(_binning_note(report))}</p>')
    if inputs is not None:
        out.append(_ci_section(report, inputs, options, digits))
        out.append(_decomposition_section(report, inputs, digits))
        out.append(_tests_section(report, inputs, digits))
    elif getattr(report, "_accumulators", None) is not None:
        out.append(_decomposition_section(report, None, digits))
    out.append(_reliability_section(report, inputs, options))
    if inputs is not None:
        out.append(_rejection_section(report, inputs))
        out.append(_recalibration_section(report, inputs, options, digits))
    elif getattr(report, "_accumulators", None) is not None:
        out.append(_streamed_note(report))
    out.append("</section>")
    return "".join(out)


def _provenance(reports, inputs, source, command, options):
    from importlib.metadata import version

    import sklearn

    from .. import __version__

    n_rows = sum(sum(r.n_samples.values()) for r in reports)
    items = [
        ("skcalib", __version__),
        ("scikit-learn", sklearn.__version__),
        ("numpy", np.__version__),
        ("matplotlib", version("matplotlib")),
        ("Python", platform.python_version()),
        ("input", source if source is not None else "(in-memory arrays)"),
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
    title = title or "Calibration report"
    body = [f"<h1>{_e(title)}</h1>"]
    body += [_section(r, i, digits, options) for r, i in zip(reports, inputs, strict=True)]
    body.append(_provenance(reports, inputs, source, command, options))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


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

    For each report (one section each, e.g. one per dataset or ``--by`` group):

    * the metrics table (the numbers of the printed table);
    * with the predictions (``inputs``): 95 % bootstrap confidence intervals of the
      ECE, Brier score and NLL (200 resamples, seeded by ``random_state``), the Brier
      (Murphy) and log-score (CORP) decompositions, and the Spiegelhalter and
      Hosmer-Lemeshow tests;
    * the reliability diagrams, one panel per model with per-bin intervals and the bin
      counts below (``strategy`` bins, ``min(n_bins, max(5, n // 50))`` of them);
      class-wise, one panel per class, with ``classwise=True``;
    * with the predictions: the rejection curves and a recalibration preview, the ECE
      and NLL before and after temperature scaling and isotonic calibration fitted
      cross-fitted (5 folds, seeded) on the report's own predictions.

    A report without ``inputs`` that was streamed (``skcalib report`` on Parquet data)
    draws its diagrams from its accumulators (equal-width bins, with intervals) and says
    what needs the predictions in memory; another report without ``inputs`` gets its
    table and the diagrams of :attr:`CalibrationReport.curves`.  A provenance section
    ends the page (versions, binning rules, seed, input, row count, command line).

    The style sheet is inline and the diagrams are PNG ``data:`` URIs: the page loads
    nothing else (no script, no font, no network), so it can be sent as an attachment.
    User-provided strings are HTML-escaped.

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
    >>> "model &lt;b&gt;" in text, "<script" in text, "data:image/png;base64," in text
    (True, False, True)
    """
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
    with open(os.fspath(path), "w", encoding="utf-8") as f:
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
    return shlex.join(words)
