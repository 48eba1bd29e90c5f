"""The reliability diagrams of ``skcalib report`` (PNG files and the HTML page).

One figure per report: one panel per model (small multiples, so that several models never
share an axis), each with its per-bin intervals and the count histogram below; or, on
request, one figure per model with one panel per class.  The curves come from
:func:`skcalib.metrics.reliability_curve` (in-memory predictions) or from the
:class:`~skcalib.streaming.CalibrationAccumulator` of a streamed report, and are drawn by
:class:`~skcalib.display.ReliabilityDisplay`; nothing is binned here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .. import metrics as _metrics

__all__ = [
    "CONFIDENCE_LEVEL",
    "DIAGRAM_STRATEGIES",
    "INTERVALS",
    "classwise_figure",
    "diagram_n_bins",
    "model_inputs",
    "reliability_figure",
]

#: Confidence level of the per-bin intervals of the reliability diagrams.
CONFIDENCE_LEVEL = 0.95
#: ``--strategy`` of the diagrams: equal-mass (default) or equal-width bins.
DIAGRAM_STRATEGIES = ("quantile", "uniform")
#: ``--intervals`` of the diagrams (the ``interval=`` of ``reliability_curve``, or none).
INTERVALS = ("wilson", "clopper_pearson", "none")

#: Samples per bin the default bin count of the diagrams aims at.
SAMPLES_PER_BIN = 50
#: Fewest bins of a diagram (unless there are fewer samples).
MIN_DIAGRAM_BINS = 5


def diagram_n_bins(n_samples, n_bins):
    """The bin count of a reliability diagram of ``n_samples`` predictions.

    ``min(n_bins, max(5, n_samples // 50), n_samples)``: about 50 samples per bin, at
    least 5 bins (at most one per sample) and at most ``n_bins`` (``--n-bins``, the bins
    of the metrics table).  143 samples get 5 bins, 450 get 9, 750 and more get 15.
    """
    return max(1, min(n_bins, max(MIN_DIAGRAM_BINS, n_samples // SAMPLES_PER_BIN), n_samples))


def _per_model(x, model):
    return x[model] if isinstance(x, Mapping) else x


def model_inputs(inputs, model):
    """The arguments of the metric functions for one model (``inputs`` as documented)."""
    return {
        "y_true": _per_model(inputs["y_true"], model),
        "y_proba": _per_model(inputs["y_proba"], model),
        "sample_weight": _per_model(inputs.get("sample_weight"), model),
        "labels": inputs.get("labels"),
        "pos_label": inputs.get("pos_label"),
    }


def _interval_kwargs(interval):
    if interval == "none":
        return {"confidence_level": None}
    return {"confidence_level": CONFIDENCE_LEVEL, "interval": interval}


def _curve(report, inputs, model, *, strategy, interval, classwise):
    """The reliability curve of one model and the strategy it was binned with."""
    multiclass = "classwise" if classwise else "auto"
    if inputs is not None:
        kw = model_inputs(inputs, model)
        n_bins = diagram_n_bins(report.n_samples[model], report.n_bins)
        curve = _metrics.reliability_curve(
            kw.pop("y_true"),
            kw.pop("y_proba"),
            n_bins=n_bins,
            strategy=strategy,
            multiclass=multiclass,
            **_interval_kwargs(interval),
            **kw,
        )
        return curve, strategy, n_bins
    acc = getattr(report, "_accumulators", {}).get(model)
    if acc is not None:
        curve = acc.reliability_curve(multiclass=multiclass, **_interval_kwargs(interval))
        return curve, "uniform", report.n_bins
    if classwise:
        raise ValueError("class-wise diagrams need the predictions (inputs) or accumulators")
    return report.curves[model], "uniform", report.n_bins


def _display(curve, report, model, *, classwise, error=None):
    from ..display import ReliabilityDisplay

    pos = report.positive_class[model]
    if classwise:
        mode, classes = "classwise", np.asarray(report.classes[model])
    else:
        mode, classes = ("top_label" if pos is None else "binary"), None
    return ReliabilityDisplay(
        curve.prob_true,
        curve.prob_pred,
        curve.bin_count,
        curve.bin_edges,
        calibration_error=error,
        prob_true_low=curve.prob_true_low,
        prob_true_high=curve.prob_true_high,
        multiclass=mode,
        class_labels=classes,
        pos_label=pos,
        estimator_name=model,
    )


def _bins_text(n_bins, strategy):
    return f"{n_bins} {'equal-mass' if strategy == 'quantile' else 'equal-width'} bins"


def reliability_figure(report, inputs=None, *, strategy="quantile", interval="wilson"):
    """One figure of a report's reliability diagrams: one panel per model, counts below.

    Parameters
    ----------
    report : CalibrationReport
    inputs : dict or None
        The predictions behind the report (see :func:`~skcalib.report.write_html`);
        None for a streamed report (its accumulators give fixed equal-width bins) or
        to draw :attr:`CalibrationReport.curves`.
    strategy : {"quantile", "uniform"}
    interval : {"wilson", "clopper_pearson", "none"}

    Returns
    -------
    figure : matplotlib Figure
    captions : list of str
        What each panel shows (model: bin count and kind).
    """
    from ..display._base import headless_figure

    models = report.models
    ncols = min(len(models), 3)
    nrows = math.ceil(len(models) / ncols)
    fig = headless_figure(figsize=(3.7 * ncols, 4.4 * nrows), layout="constrained")
    grid = fig.add_gridspec(2 * nrows, ncols, height_ratios=[3, 1] * nrows)
    captions = []
    for i, m in enumerate(models):
        r, c = divmod(i, ncols)
        ax = fig.add_subplot(grid[2 * r, c])
        hist_ax = fig.add_subplot(grid[2 * r + 1, c], sharex=ax)
        curve, used, n_bins = _curve(
            report, inputs, m, strategy=strategy, interval=interval, classwise=False
        )
        error = report.values[m].get("expected_calibration_error")
        _display(curve, report, m, classwise=False, error=error).plot(ax=ax, hist_ax=hist_ax)
        ax.set_xlabel("")
        captions.append(f"{m}: {_bins_text(n_bins, used)}")
    return fig, captions


def classwise_figure(report, inputs, model, *, strategy="quantile", interval="wilson"):
    """One figure of the class-wise reliability diagrams of one model (a panel per class).

    Parameters as :func:`reliability_figure`, and ``model``, the row of the report.

    Returns
    -------
    figure : matplotlib Figure
    caption : str
    """
    from ..display._base import headless_figure

    curve, used, n_bins = _curve(
        report, inputs, model, strategy=strategy, interval=interval, classwise=True
    )
    k = len(curve.prob_true)
    ncols = min(k, 5)
    nrows = math.ceil(k / ncols)
    fig = headless_figure(figsize=(max(2.6 * ncols, 6.0), 3.2 * nrows + 0.6), layout="constrained")
    grid = fig.add_gridspec(2 * nrows, ncols, height_ratios=[3, 1] * nrows)
    axes, hist_axes = [], []
    for j in range(k):
        r, c = divmod(j, ncols)
        axes.append(fig.add_subplot(grid[2 * r, c]))
        hist_axes.append(fig.add_subplot(grid[2 * r + 1, c], sharex=axes[-1]))
    _display(curve, report, model, classwise=True).plot(ax=axes, hist_ax=hist_axes)
    classes = np.asarray(report.classes[model])
    for j, (a, h) in enumerate(zip(axes, hist_axes, strict=True)):
        a.set_title(f"class {classes[j]}", fontsize="medium")
        a.set_xlabel("")
        h.set_xlabel("")
        a.set_ylabel("")
        h.set_ylabel("")
        legend = a.get_legend()
        if legend is not None:
            legend.remove()
    fig.suptitle(f"{model}: class-wise reliability", fontsize="medium")
    fig.supxlabel("Predicted probability of the class")
    fig.supylabel("Observed frequency; samples per bin")
    return fig, f"{model}, class-wise: {_bins_text(n_bins, used)} per class"
