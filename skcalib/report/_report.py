"""One-call calibration report: accuracy and calibration metrics of one or several models.

Every number comes from the public functions of :mod:`skcalib.metrics` (and the
reliability curves from :func:`skcalib.metrics.reliability_curve`), so the report always
agrees with calling the metrics directly.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .. import metrics as _metrics
from .._core._validation import check_classification_input
from ..utils._sklearn_compat import Interval, validate_params

__all__ = ["CalibrationReport", "MetricColumn", "calibration_report"]


@dataclass(frozen=True)
class MetricColumn:
    """One column of a :class:`CalibrationReport`.

    A frozen dataclass: each parameter is stored as the attribute of the same name.

    Parameters
    ----------
    key : str
        Name of the metric function in :mod:`skcalib.metrics` (or ``"accuracy"``, or the
        ``"hosmer_lemeshow_pvalue"`` and ``"hosmer_lemeshow_pvalue_holm"`` columns of a
        grouped file report); the column name of the CSV and JSON files.
    header : str
        Short name printed in the table (``"ECE"``).
    greater_is_better : bool
        Whether a greater value is better (True for accuracy and for the test p-values,
        a greater one being less evidence of miscalibration: every calibration error and
        proper scoring rule of the report is lower-is-better).
    description : str
        What the metric is, in words.
    binning : str or None, default=None
        How the metric bins the probabilities (None for unbinned metrics).

    Examples
    --------
    >>> from skcalib.report import calibration_report
    >>> report = calibration_report([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.4], n_bins=2)
    >>> report.columns[1]
    MetricColumn(key='expected_calibration_error', header='ECE', greater_is_better=False,
                 description='expected calibration error', binning='2 equal-width bins')
    """

    key: str
    header: str
    greater_is_better: bool
    description: str
    binning: str | None = None


def _metric_columns(n_bins, multiclass, streamed=False):
    """The columns of the report, in table order.

    ``streamed``: the equal-mass edges of RMSCE were taken on the fine histogram of a
    :class:`~skcalib.streaming.CalibrationAccumulator` (each in the fine cell of the
    exact edge), which the table says.
    """
    width = f"{n_bins} equal-width bins"
    cols = [
        MetricColumn("accuracy", "accuracy", True, "fraction of correct top-label predictions"),
        MetricColumn(
            "expected_calibration_error", "ECE", False, "expected calibration error", width
        ),
        MetricColumn("max_calibration_error", "MCE", False, "maximum calibration error", width),
        MetricColumn(
            "root_mean_squared_calibration_error",
            "RMSCE",
            False,
            "root-mean-squared calibration error",
            f"{n_bins} equal-mass bins"
            + (" (streamed: edges on a fine histogram)" if streamed else ""),
        ),
    ]
    if multiclass:
        cols.append(
            MetricColumn(
                "static_calibration_error",
                "SCE",
                False,
                "static calibration error",
                f"class-wise, {width}",
            )
        )
    cols.append(MetricColumn("brier_score", "Brier", False, "Brier score"))
    cols.append(
        MetricColumn("negative_log_likelihood", "NLL", False, "negative log-likelihood (log loss)")
    )
    return cols


def _accepts(func, name):
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
        return False


class CalibrationReport:
    """Accuracy and calibration metrics of one or several models on labelled data.

    Returned by :func:`calibration_report`; not meant to be built by hand.  Each
    (keyword-only) parameter is stored as the attribute of the same name.

    Parameters
    ----------
    title : str or None
        Name of the data set (printed above the table).
    models : list of str
        Model names, in row order.
    columns : list of MetricColumn
        The metric columns, in table order.
    values : dict
        ``values[model][column.key]`` is a Python float.
    n_samples : dict
        Number of samples each model was evaluated on.
    classes : dict
        ``classes[model]``: ndarray of the classes, in the column order of its ``y_proba``.
    positive_class : dict
        ``positive_class[model]``: the positive class of a binary problem, else None.
    curves : dict
        ``curves[model]``: the :func:`~skcalib.metrics.reliability_curve` result behind
        the model's ECE and MCE (equal-width bins, positive class of a binary problem,
        top label otherwise).
    n_bins : int
        Number of equal-width bins of the binned metrics and of :attr:`curves`.

    Examples
    --------
    >>> from skcalib.report import calibration_report
    >>> report = calibration_report([0, 1, 1, 0], [0.1, 0.8, 0.7, 0.4], n_bins=2)
    >>> report.models, report.n_bins
    (['model'], 2)
    >>> round(report.values["model"]["brier_score"], 4)
    0.075
    """

    def __init__(
        self, *, title, models, columns, values, n_samples, classes, positive_class, curves, n_bins
    ):
        self.title = title
        self.models = list(models)
        self.columns = list(columns)
        self.values = values
        self.n_samples = n_samples
        self.classes = classes
        self.positive_class = positive_class
        self.curves = curves
        self.n_bins = n_bins

    # ---------------------------------------------------------------------- tabular forms
    def rows(self):
        """Return one dict per model, in row order.

        Returns
        -------
        list of dict
            Each with the keys ``model``, ``n_samples`` and one float per metric key.
        """
        return [
            {
                "model": m,
                "n_samples": self.n_samples[m],
                **{c.key: self.values[m][c.key] for c in self.columns},
            }
            for m in self.models
        ]

    def to_frame(self):
        """Return the rows as a :class:`pandas.DataFrame` indexed by model (needs pandas).

        Returns
        -------
        pandas.DataFrame
            One row per model, one column per metric key (and ``n_samples``).
        """
        import pandas as pd

        return pd.DataFrame(self.rows()).set_index("model")

    def to_dict(self):
        """Return a JSON-serialisable dict: settings, metric rows and reliability curves.

        NaN (the mean of an empty bin) and infinite values become None.

        Returns
        -------
        dict
            With the keys ``title``, ``n_bins``, ``columns``, ``rows``, ``classes``,
            ``positive_class`` and ``reliability_curves``.
        """

        def clean(a):
            return [_finite_or_none(v) for v in np.asarray(a, dtype=float).tolist()]

        return {
            "title": self.title,
            "n_bins": self.n_bins,
            "columns": [
                {
                    "key": c.key,
                    "header": c.header,
                    "greater_is_better": c.greater_is_better,
                    "description": c.description,
                    "binning": c.binning,
                }
                for c in self.columns
            ],
            "rows": [{k: _finite_or_none(v) for k, v in row.items()} for row in self.rows()],
            "classes": {m: np.asarray(self.classes[m]).tolist() for m in self.models},
            "positive_class": {m: _py(self.positive_class[m]) for m in self.models},
            "reliability_curves": {
                m: {
                    "prob_true": clean(self.curves[m].prob_true),
                    "prob_pred": clean(self.curves[m].prob_pred),
                    "bin_count": clean(self.curves[m].bin_count),
                    "bin_edges": clean(self.curves[m].bin_edges),
                }
                for m in self.models
            },
        }

    def _describe_problem(self):
        first = self.models[0]
        classes = [np.asarray(self.classes[m]).tolist() for m in self.models]
        same = all(c == classes[0] for c in classes)
        n = {self.n_samples[m] for m in self.models}
        n_txt = f"{n.pop()} samples" if len(n) == 1 else "samples as listed"
        if not same:
            return f"{n_txt}, classes differ between models"
        k = len(classes[0])
        cls = [str(c) for c in classes[0]]
        shown = ", ".join(cls if k <= 6 else cls[:3] + ["...", cls[-1]])
        if self.positive_class[first] is not None:
            what = f"binary: calibration of P(class {self.positive_class[first]})"
        else:
            what = "top-label calibration"
        return f"{n_txt}, {k} classes [{shown}]; {what}"

    def to_string(self, *, digits=4):
        """Format the report as an aligned plain-text table.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Returns
        -------
        str
            The table, with a title line above and a note on the metrics below.
        """
        header = ["model", "n"] + [c.header for c in self.columns]
        body = []
        for m in self.models:
            vals = [self.values[m][c.key] for c in self.columns]
            body.append([m, str(self.n_samples[m])] + [_fmt(v, digits) for v in vals])
        widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]

        def line(cells):
            out = [cells[0].ljust(widths[0])]
            out += [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
            return "  ".join(out).rstrip()

        lines = []
        if self.title:
            lines.append(f"{self.title}: {self._describe_problem()}")
        else:
            lines.append(self._describe_problem()[:1].upper() + self._describe_problem()[1:])
        lines.append(line(header))
        lines.append("  ".join("-" * w for w in widths))
        lines.extend(line(r) for r in body)
        better = [c.header for c in self.columns if c.greater_is_better]
        text = "Lower is better" + (f", except {', '.join(better)}. " if better else ". ")
        groups = {}
        for c in self.columns:
            if c.binning:
                groups.setdefault(c.binning, []).append(c.header)
        text += "; ".join(f"{', '.join(h)}: {b}" for b, h in groups.items())
        lines.extend(_wrap(text.rstrip() + ("." if groups else "")))
        return "\n".join(lines)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        metrics = ", ".join(c.header for c in self.columns)
        title = f"{self.title!r}, " if self.title else ""
        return f"<CalibrationReport {title}models={self.models!r}, metrics: {metrics}>"

    # ---------------------------------------------------------------------- plotting
    def plot(self, ax=None, *, hist_ax=None):
        """Draw the reliability curves of all models on one axis (needs matplotlib).

        One :class:`~skcalib.display.ReliabilityDisplay` per model, built from
        :attr:`curves` and drawn on the same Axes: points are the (mean predicted
        probability, observed frequency) of each non-empty bin, the dotted diagonal is
        perfect calibration and the legend gives each model's ECE.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure (``matplotlib.pyplot``) when None.
        hist_ax : matplotlib Axes, default=None
            Where to draw the number of samples per bin of each model (not drawn when
            None).

        Returns
        -------
        ax : matplotlib Axes
            The axis drawn on.
        """
        from ..display import ReliabilityDisplay

        for m in self.models:
            c = self.curves[m]
            pos = self.positive_class[m]
            disp = ReliabilityDisplay(
                c.prob_true,
                c.prob_pred,
                c.bin_count,
                c.bin_edges,
                calibration_error=self.values[m].get("expected_calibration_error"),
                multiclass="top_label" if pos is None else "binary",
                pos_label=pos,
                estimator_name=m,
            ).plot(ax=ax, hist_ax=hist_ax)
            ax, hist_ax = disp.ax_, disp.hist_ax_
        title = f"Reliability diagram{': ' + self.title if self.title else ''} ({self.n_bins} bins)"
        ax.get_legend().set_title(title)
        return ax


def _finite_or_none(v):
    """NaN and infinities (not representable in JSON) become None."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


def _fmt(v, digits):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "nan"
    return f"{v:.{digits}f}"


def _wrap(text, width=92):
    import textwrap

    return textwrap.wrap(text, width=width, break_on_hyphens=False)


def _per_model(x, model, name):
    if isinstance(x, Mapping):
        if model not in x:
            raise ValueError(f"{name} is a dict without an entry for model {model!r}")
        return x[model]
    return x


@validate_params(
    {
        "y_true": ["array-like", Mapping],
        "y_proba": ["array-like", Mapping],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "sample_weight": ["array-like", Mapping, None],
        "labels": ["array-like", None],
        "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
        "title": [str, None],
    },
    prefer_skip_nested_validation=True,
)
def calibration_report(
    y_true,
    y_proba,
    *,
    n_bins=15,
    sample_weight=None,
    labels=None,
    pos_label=None,
    title=None,
):
    """Accuracy and calibration metrics of one or several models, as a table.

    For each model: accuracy, expected calibration error (ECE), maximum calibration error
    (MCE), root-mean-squared calibration error (RMSCE), the static (class-wise)
    calibration error (SCE) when there are more than two classes, and the Brier score and
    negative log-likelihood.  Each number is the corresponding public function of
    :mod:`skcalib.metrics` called with the default options and ``n_bins``; accuracy is the
    weighted fraction of samples whose top-label prediction (first maximal column on
    ties) is the true class.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,), or dict of such arrays
        True labels.  A dict ``{model name: labels}`` when the models were evaluated on
        different samples (its keys must cover those of ``y_proba``).
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes), or dict
        Predicted probabilities of one model (named ``"model"``), or a dict
        ``{model name: probabilities}``, in the format of every skcalib metric (1-D:
        probability of the positive class of a binary problem; 2-D: ``predict_proba``
        columns in ``labels`` order).
    n_bins : int, default=15
        Number of bins of every binned metric and of the reliability curves.
    sample_weight : array-like of shape (n_samples,), dict or None, default=None
        Sample weights (a dict per model when ``y_true`` is a dict).
    labels : array-like, default=None
        Classes in the column order of ``y_proba`` (default: sorted labels).
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
    title : str, default=None
        Name of the data set, printed above the table.

    Returns
    -------
    CalibrationReport
        ``str(report)`` or ``report.to_string()`` is the table; ``report.values``,
        ``report.rows()``, ``report.to_dict()``, ``report.to_frame()`` give the numbers,
        ``report.curves`` the reliability curves and ``report.plot()`` draws them.

    Raises
    ------
    ValueError
        For invalid input, with the message of the skcalib metric that rejected it,
        prefixed by the model name when there are several models.

    See Also
    --------
    skcalib.metrics.expected_calibration_error : The ECE column, computed directly.
    skcalib.metrics.reliability_curve : The curves behind the ECE and MCE columns.

    Examples
    --------
    >>> from skcalib.report import calibration_report
    >>> y_true = [0, 1, 1, 0, 1, 0]
    >>> proba = {"sharp": [0.1, 0.9, 0.8, 0.3, 0.7, 0.2],
    ...          "timid": [0.4, 0.6, 0.6, 0.5, 0.55, 0.45]}
    >>> report = calibration_report(y_true, proba, n_bins=5)
    >>> round(report.values["sharp"]["expected_calibration_error"], 4)
    0.2
    >>> report.values["timid"]["accuracy"]
    1.0
    >>> print(report.to_string(digits=3))   # doctest: +ELLIPSIS
    6 samples, 2 classes [0, 1]; binary: calibration of P(class 1)
    model  n  accuracy    ECE    MCE  RMSCE...
    -----  -  --------  -----  -----  -----...
    sharp  6     1.000  0.200  0.300  0.214...
    timid  6     1.000  0.117  0.400  0.435...
    Lower is better, except accuracy. ECE, MCE: 5 equal-width bins; RMSCE: 5 equal-mass bins.
    """
    if isinstance(y_proba, Mapping):
        models = [str(m) for m in y_proba]
        if not models:
            raise ValueError("y_proba is an empty dict: give at least one model")
        probas = {str(m): p for m, p in y_proba.items()}
        if len(probas) != len(y_proba):
            raise ValueError("y_proba has model names that are equal as strings")
    else:
        models = ["model"]
        probas = {"model": y_proba}
    if isinstance(y_true, Mapping):
        y_true = {str(m): v for m, v in y_true.items()}
    if isinstance(sample_weight, Mapping):
        sample_weight = {str(m): v for m, v in sample_weight.items()}

    values, n_samples, classes, positive, curves, inputs = {}, {}, {}, {}, {}, {}
    for m in models:
        y_m = _per_model(y_true, m, "y_true")
        sw_m = _per_model(sample_weight, m, "sample_weight")
        try:
            data = check_classification_input(
                y_m,
                probas[m],
                sample_weight=sw_m,
                labels=labels,
                pos_label=pos_label,
            )
        except ValueError as exc:
            if len(models) == 1:
                raise
            raise ValueError(f"model {m!r}: {exc}") from exc
        inputs[m] = (y_m, probas[m], sw_m, data)
        n_samples[m] = int(data.n_samples)
        classes[m] = data.classes
        positive[m] = _py(data.classes[data.pos_index]) if data.pos_index is not None else None

    multiclass = any(len(classes[m]) > 2 for m in models)
    columns = _metric_columns(n_bins, multiclass)
    for m in models:
        y_m, p_m, sw_m, data = inputs[m]
        common = {"sample_weight": sw_m, "labels": labels, "pos_label": pos_label}
        try:
            top = _metrics.reliability_curve(y_m, p_m, n_bins=1, multiclass="top_label", **common)
            curves[m] = _metrics.reliability_curve(y_m, p_m, n_bins=n_bins, **common)
            row = {"accuracy": float(top.prob_true[0])}
            for col in columns[1:]:
                func = getattr(_metrics, col.key)
                row[col.key] = float(_call_metric(func, y_m, p_m, data, n_bins, common))
        except ValueError as exc:
            if len(models) == 1:
                raise
            raise ValueError(f"model {m!r}: {exc}") from exc
        values[m] = row
    return CalibrationReport(
        title=title,
        models=models,
        columns=columns,
        values=values,
        n_samples=n_samples,
        classes=classes,
        positive_class=positive,
        curves=curves,
        n_bins=n_bins,
    )


def _call_metric(func, y, proba, data, n_bins, common):
    """Call a public metric with the options it accepts.

    A metric without ``pos_label`` (e.g. the negative log-likelihood) gets a 1-D binary
    probability vector as the equivalent two-column matrix with the classes in order,
    so that an explicit ``pos_label`` keeps its meaning.
    """
    kwargs = {k: v for k, v in common.items() if _accepts(func, k)}
    if _accepts(func, "n_bins"):
        kwargs["n_bins"] = n_bins
    if common["pos_label"] is not None and data.binary_1d and not _accepts(func, "pos_label"):
        p = np.asarray(data.proba, dtype=np.float64)
        proba = np.empty((p.shape[0], 2))
        proba[:, data.pos_index] = p
        proba[:, 1 - data.pos_index] = 1.0 - p
        if _accepts(func, "labels"):
            kwargs["labels"] = data.classes
    return func(y, proba, **kwargs)
