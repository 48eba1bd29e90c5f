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
from ._report import CalibrationReport

__all__ = ["render_html", "write_html"]

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1150px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #444}h2{font-size:1.35em;margin-top:2em;
border-bottom:1px solid #aaa}h3{font-size:1.1em}
table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .7em;border:1px solid #ccc}
th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.txt{text-align:left}p.note{color:#555;font-size:.92em}
.panels{display:flex;flex-wrap:wrap;gap:1em}.panels img{max-width:100%;height:auto}
figure{margin:0}figcaption{font-size:.9em;color:#555}
code{background:#f5f5f5;padding:0 .2em}dl{display:grid;grid-template-columns:max-content auto;
gap:.2em 1em}dt{font-weight:bold}dd{margin:0}
"""

#: Confidence level of the per-bin intervals of the reliability diagrams.
CONFIDENCE_LEVEL = 0.95


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


def _per_model(x, model):
    if isinstance(x, Mapping):
        return x[model]
    return x


def _model_inputs(inputs, model):
    """The arguments of the metric functions for one model (``inputs`` as documented)."""
    return {
        "y_true": _per_model(inputs["y_true"], model),
        "y_proba": _per_model(inputs["y_proba"], model),
        "sample_weight": _per_model(inputs.get("sample_weight"), model),
        "labels": inputs.get("labels"),
        "pos_label": inputs.get("pos_label"),
    }


def _table(report, digits):
    head = ["model", "n"] + [c.header for c in report.columns]
    out = ['<table class="metrics">', "<thead><tr>"]
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
    out.append("</tbody></table>")
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


def _reliability_panel(curve, name, positive, error):
    """One model's reliability diagram with its bin counts below, as a data URI."""
    from ..display import ReliabilityDisplay
    from ..display._base import headless_figure

    fig = headless_figure(figsize=(4.6, 5.4), layout="constrained")
    ax, ax_count = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    ReliabilityDisplay(
        curve.prob_true,
        curve.prob_pred,
        curve.bin_count,
        curve.bin_edges,
        calibration_error=error,
        prob_true_low=curve.get("prob_true_low"),
        prob_true_high=curve.get("prob_true_high"),
        multiclass="top_label" if positive is None else "binary",
        pos_label=positive,
        estimator_name=name,
    ).plot(ax=ax, hist_ax=ax_count)
    return _png_data_uri(fig)


def _reliability_section(report, inputs):
    out = ["<h3>Reliability diagrams</h3>"]
    panels = []
    for m in report.models:
        pos = report.positive_class[m]
        if inputs is not None:
            kw = _model_inputs(inputs, m)
            curve = _metrics.reliability_curve(
                kw.pop("y_true"),
                kw.pop("y_proba"),
                n_bins=report.n_bins,
                strategy="quantile",
                confidence_level=CONFIDENCE_LEVEL,
                **kw,
            )
            strategy = "quantile"
        else:
            curve = report.curves[m]
            strategy = "uniform"
        uri = _reliability_panel(curve, m, pos, report.values[m].get("expected_calibration_error"))
        what = "equal-mass" if strategy == "quantile" else "equal-width"
        panels.append(
            f"<figure>{_img(uri, f'reliability diagram of {m}')}"
            f"<figcaption>{_e(m)}: {report.n_bins} {what} bins</figcaption></figure>"
        )
    out.append('<div class="panels">' + "".join(panels) + "</div>")
    if inputs is not None:
        out.append(
            f'<p class="note">Each point is one of {report.n_bins} bins holding equal numbers '
            "of samples (equal-mass bins, so every bin has data at any sample size): the mean "
            "predicted probability against the observed frequency, with its "
            f"{CONFIDENCE_LEVEL:.0%} Wilson interval. The dotted diagonal is perfect "
            "calibration; the bars below count the samples of each bin. The ECE in the legend "
            f"is the table's ({report.n_bins} equal-width bins).</p>"
        )
    else:
        out.append(
            f'<p class="note">{report.n_bins} equal-width bins, the bins of the ECE and MCE '
            "columns (the predictions were streamed, so the equal-mass bins with intervals, "
            "the rejection curves and the calibration tests, which need the predictions in "
            "memory, are not shown). The bars below count the samples of each bin.</p>"
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


def _section(report, inputs, digits):
    title = report.title or "predictions"
    out = [f"<section><h2>{_e(title)}</h2>", f"<p>{_e(report._describe_problem())}</p>"]
    out.append("<h3>Metrics</h3>")
    out.append(_table(report, digits))
    out.append(f'<p class="note">{_e(_binning_note(report))}</p>')
    out.append(_reliability_section(report, inputs))
    if inputs is not None:
        out.append(_rejection_section(report, inputs))
        out.append(_tests_section(report, inputs, digits))
    out.append("</section>")
    return "".join(out)


def _provenance(reports, inputs, source, command):
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
    rules = (
        f"ECE, MCE and the streamed diagrams: {', '.join(map(str, bins))} equal-width bins "
        f"(right-closed); RMSCE: equal-mass bins; reliability diagrams of in-memory "
        f"predictions: equal-mass bins (strategy='quantile') with {CONFIDENCE_LEVEL:.0%} "
        "Wilson intervals; binary problems: probability of the positive class, otherwise "
        "the top label."
    )
    items.append(("binning", rules))
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


def render_html(reports, *, inputs=None, source=None, command=None, digits=4, title=None):
    """Return one self-contained HTML page of calibration reports, as a string.

    See :func:`write_html` for the parameters.

    Returns
    -------
    str
        The page.
    """
    reports, inputs = _as_lists(reports, inputs)
    title = title or "Calibration report"
    body = [f"<h1>{_e(title)}</h1>"]
    body += [_section(r, i, digits) for r, i in zip(reports, inputs, strict=True)]
    body.append(_provenance(reports, inputs, source, command))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def write_html(reports, path, *, inputs=None, source=None, command=None, digits=4, title=None):
    """Write one self-contained HTML page of calibration reports (needs matplotlib).

    For each report: the metrics table (the numbers of the printed table), one reliability
    diagram per model with the bin counts below, and, when the predictions are given
    (``inputs``), equal-mass bins with 95 % Wilson intervals per bin, the rejection curves
    and the Spiegelhalter and Hosmer-Lemeshow tests; then a provenance section (versions,
    binning rules, input, command line).  Without ``inputs`` (e.g. a streamed report) the
    diagrams are those of :attr:`CalibrationReport.curves` (equal-width bins).

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

    Returns
    -------
    str
        ``path``, as given.

    Examples
    --------
    >>> import os, tempfile
    >>> from skcalib.report import calibration_report, write_html
    >>> y, p = [0, 1, 1, 0, 1, 0], [0.1, 0.9, 0.8, 0.3, 0.7, 0.2]
    >>> report = calibration_report(y, {"model <b>": p}, n_bins=2)
    >>> path = os.path.join(tempfile.mkdtemp(), "report.html")
    >>> _ = write_html(report, path, inputs={"y_true": y, "y_proba": {"model <b>": p}})
    >>> text = open(path, encoding="utf-8").read()
    >>> "model &lt;b&gt;" in text, "<script" in text, "data:image/png;base64," in text
    (True, False, True)
    """
    page = render_html(
        reports, inputs=inputs, source=source, command=command, digits=digits, title=title
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
