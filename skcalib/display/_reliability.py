"""Reliability diagrams in scikit-learn's Display idiom."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._core._binning import bin_stats
from ..metrics import BinStats, calibration_error_from_bin_stats
from ..metrics._calibration._binned import _wilson_interval
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._base import (
    check_kind,
    check_matplotlib,
    classifier_proba,
    estimator_name,
    legend_label,
    merge_style,
    select_classes,
    validated_input,
)

__all__ = ["ReliabilityDisplay"]

KINDS = ("line", "bar")
REF_LABEL = "Perfectly calibrated"
GAP_LABEL = "Gap to the mean prediction"
ARTISTS = ("line_", "bars_", "gap_bars_", "errorbar_", "hist_", "ref_line_")


#: Fewest and most bins of ``n_bins="auto"``.
AUTO_BINS = (5, 15)


def auto_n_bins(n_samples):
    """The bins of ``n_bins="auto"``: ``min(15, max(5, ceil((2 n) ** (1/3))))``.

    ``ceil((2 n) ** (1/3))`` is the bin count of the oversmoothed histogram (Terrell and
    Scott, "Oversmoothed nonparametric density estimates", JASA 80(389), 1985), clipped
    to scikit-learn's 5 bins and the metrics' 15.
    """
    k = math.ceil(round((2.0 * n_samples) ** (1.0 / 3.0), 9))
    return int(min(AUTO_BINS[1], max(AUTO_BINS[0], k)))


def _group(stats, g):
    """The :class:`BinStats` of one group (one class of class-wise binning)."""
    sq = None if stats.sum_weight_sq is None else stats.sum_weight_sq[g : g + 1]
    return BinStats(
        stats.count[g : g + 1],
        stats.sum_proba[g : g + 1],
        stats.sum_true[g : g + 1],
        stats.bin_edges[g : g + 1],
        stats.total_weight,
        sq,
    )


@dataclass(frozen=True)
class _Panel:
    """What one panel of a reliability diagram draws (the arrays of one group)."""

    prob_true: np.ndarray
    prob_pred: np.ndarray
    count: np.ndarray
    edges: np.ndarray
    low: np.ndarray | None
    high: np.ndarray | None
    error: float | None
    cls: object  # the class of the panel (axis labels, legend title), or None

    @property
    def keep(self):
        """The non-empty bins."""
        return self.count > 0

    @property
    def has_interval(self):
        return self.low is not None and self.high is not None


def _as_axes_list(ax, n, what):
    """A list of ``n`` Axes from a single Axes or an array of them."""
    axes = list(np.ravel(np.asarray(ax, dtype=object)))
    if len(axes) != n:
        raise ValueError(f"{what} must hold {n} Axes (one per panel), got {len(axes)}")
    return axes


def _split_for_histogram(ax):
    """Split an existing Axes: the diagram on top, a histogram Axes below it.

    A subplot is split with a sub-gridspec (so that constrained or tight layout still
    places the labels of both); a free-standing Axes with an axes divider.
    """
    spec = ax.get_subplotspec()
    if spec is not None:
        gs = spec.subgridspec(2, 1, height_ratios=[3, 1], hspace=0.05)
        ax.set_subplotspec(gs[0])
        return ax.figure.add_subplot(gs[1], sharex=ax)
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    return make_axes_locatable(ax).append_axes("bottom", size="33%", pad=0.1, sharex=ax)


def place_legend(ax, title=None):
    """The legend above the Axes, outside the data area, so that it never hides data.

    An invisible child Axes covers the legend (its extent is read at draw time), so a
    title set later with ``ax.set_title`` is placed above the legend by matplotlib's
    automatic title placement instead of overlapping it.
    """
    legend = ax.legend(
        loc="lower left",
        bbox_to_anchor=(0.0, 1.01),
        borderaxespad=0.0,
        fontsize="small",
        title=title,
        title_fontsize="medium",
        frameon=False,
    )
    if not any(getattr(child, "_legend_spacer", False) for child in ax.child_axes):
        spacer = ax.inset_axes([0.0, 1.0, 1.0, 0.0])
        spacer.set_axis_off()
        spacer._legend_spacer = True
        spacer.set_axes_locator(_LegendExtent(ax))
    return legend


class _LegendExtent:
    """Axes locator: the box from the top of ``ax`` to the top of its legend."""

    def __init__(self, ax):
        self.ax = ax

    def __call__(self, _spacer, renderer):
        from matplotlib.transforms import Bbox

        box = self.ax.get_window_extent(renderer)
        legend = self.ax.get_legend()
        top = box.y1 + 1.0
        if legend is not None and legend.get_visible():
            top = max(top, legend.get_window_extent(renderer).y1)
        extent = Bbox.from_extents(box.x0, box.y1, box.x1, top)
        return extent.transformed(self.ax.get_figure(root=False).transFigure.inverted())


def _new_axes(n_panels, show_histogram):
    """New pyplot figure with one diagram (and histogram below it) per panel."""
    import matplotlib.pyplot as plt

    ncols = min(n_panels, 3)
    nrows = math.ceil(n_panels / ncols)
    height = 5.4 if show_histogram else 4.4
    fig = plt.figure(figsize=(4.4 * ncols, height * nrows + 0.3), layout="constrained")
    if show_histogram:
        gs = fig.add_gridspec(2 * nrows, ncols, height_ratios=[3, 1] * nrows)
    else:
        gs = fig.add_gridspec(nrows, ncols)
    axes, hist_axes = [], []
    for i in range(nrows * ncols):
        r, c = divmod(i, ncols)
        if show_histogram:
            a = fig.add_subplot(gs[2 * r, c])
            h = fig.add_subplot(gs[2 * r + 1, c], sharex=a)
        else:
            a, h = fig.add_subplot(gs[r, c]), None
        if i >= n_panels:
            a.set_axis_off()
            if h is not None:
                h.set_axis_off()
            continue
        axes.append(a)
        hist_axes.append(h)
    return axes, hist_axes


class ReliabilityDisplay:
    """Reliability diagram: observed frequency (or accuracy) against predicted probability.

    It is recommended to use :meth:`from_estimator` or :meth:`from_predictions` to
    create a ``ReliabilityDisplay``; all parameters are stored as attributes of the same
    name.  The arrays are those of :func:`skcalib.metrics.reliability_curve`: every
    point, bar, interval and the calibration error in the legend come from the same
    bins.

    Read more in the :ref:`displays` section of the user guide.

    Parameters
    ----------
    prob_true : ndarray of shape (n_bins,) or (n_panels, n_bins)
        Observed frequency (accuracy for top-label) of each bin; NaN for empty bins.
    prob_pred : ndarray of the same shape
        Mean predicted probability (confidence) of each bin; NaN for empty bins.
    bin_count : ndarray of the same shape
        Number of samples (total sample weight) of each bin.
    bin_edges : ndarray of shape (n_bins + 1,) or (n_panels, n_bins + 1)
        Bin edges.
    calibration_error : float or ndarray of shape (n_panels,), default=None
        Calibration error of the bins (shown in the legend when given).
    prob_true_low, prob_true_high : ndarray of the shape of ``prob_true``, default=None
        Confidence interval of each bin's observed frequency (drawn when given).
    multiclass : {"binary", "top_label", "classwise"}, default="binary"
        What was binned: the positive-class probability, the top-label confidence, or
        every class's probability (one panel per class, 2-D arrays).
    class_labels : array-like of shape (n_panels,), default=None
        The class of each panel (``multiclass="classwise"``).
    pos_label : int, float, bool or str, default=None
        Positive class of a binary diagram (shown in the axis labels).
    estimator_name : str, default=None
        Name of the model, used in the legend.
    calibration_error_name : str, default="ECE"
        How the calibration error is called in the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes or ndarray of Axes
        The diagram's Axes.  One rule, set by the layout and never by the data: a
        single-panel diagram (``multiclass="binary"`` or ``"top_label"``) has a single
        Axes, and the small multiples of ``multiclass="classwise"`` have a 1-D object
        ndarray of Axes, one per panel, always, even for a single class.  The
        attributes below follow the same rule.
    hist_ax_ : matplotlib Axes, ndarray of Axes or None
        The histogram Axes below the diagram; None when no histogram is drawn.
    figure_ : matplotlib Figure
        Figure containing the diagram.
    line_ : matplotlib Line2D, ndarray of Line2D or None
        The reliability curve (``kind="line"``; None for ``kind="bar"``).
    bars_ : matplotlib BarContainer, ndarray of them or None
        The observed-frequency bars (``kind="bar"``; None for ``kind="line"``).
    gap_bars_ : matplotlib BarContainer, ndarray of them or None
        The gap bars between observed frequency and mean prediction (``kind="bar"``).
    errorbar_ : matplotlib ErrorbarContainer, ndarray of them or None
        The confidence intervals; None when there are none.
    hist_ : matplotlib StepPatch, ndarray of them or None
        The histogram of the number of samples per bin; None when not drawn.
    ref_line_ : matplotlib Line2D, ndarray of them or None
        The diagonal, if this call drew it (it is drawn once per Axes); with small
        multiples an array with None for the panels that had it already.

    See Also
    --------
    skcalib.metrics.reliability_curve : The numbers behind the diagram.
    ConfidenceHistogramDisplay : Distribution of the confidences.
    sklearn.calibration.CalibrationDisplay : The line-style binary diagram of sklearn.

    References
    ----------
    C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of Modern Neural
    Networks", ICML 2017 (bar style with gaps, top-label accuracy).
    A. Niculescu-Mizil and R. Caruana, "Predicting Good Probabilities with Supervised
    Learning", ICML 2005 (observed frequency of the positive class).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcalib.display import ReliabilityDisplay
    >>> from skcalib.metrics import expected_calibration_error
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    >>> clf = GaussianNB().fit(X_train, y_train)
    >>> disp = ReliabilityDisplay.from_estimator(clf, X_test, y_test, show_histogram=True)
    >>> disp.bin_count.shape  # n_bins="auto": 143 test samples, ceil(286 ** (1/3)) bins
    (7,)
    >>> ece = expected_calibration_error(y_test, clf.predict_proba(X_test), n_bins=7)
    >>> abs(disp.calibration_error - ece) < 1e-12  # the ECE of the very same bins
    True
    >>> int(disp.bin_count.sum()) == len(y_test)
    True
    >>> plt.close("all")
    """

    def __init__(
        self,
        prob_true,
        prob_pred,
        bin_count,
        bin_edges,
        *,
        calibration_error=None,
        prob_true_low=None,
        prob_true_high=None,
        multiclass="binary",
        class_labels=None,
        pos_label=None,
        estimator_name=None,
        calibration_error_name="ECE",
    ):
        self.prob_true = prob_true
        self.prob_pred = prob_pred
        self.bin_count = bin_count
        self.bin_edges = bin_edges
        self.calibration_error = calibration_error
        self.prob_true_low = prob_true_low
        self.prob_true_high = prob_true_high
        self.multiclass = multiclass
        self.class_labels = class_labels
        self.pos_label = pos_label
        self.estimator_name = estimator_name
        self.calibration_error_name = calibration_error_name

    # ------------------------------------------------------------------ drawing
    def _small_multiples(self):
        """Whether the layout is one panel per class (then every Axes is in an array)."""
        return self.multiclass == "classwise"

    def _panels(self):
        """The :class:`_Panel` of each panel: one, or one per class for small multiples."""

        def floats(a):
            return None if a is None else np.asarray(a, dtype=float)

        arrays = [
            floats(a)
            for a in (
                self.prob_true,
                self.prob_pred,
                self.bin_count,
                self.bin_edges,
                self.prob_true_low,
                self.prob_true_high,
            )
        ]
        if not self._small_multiples():
            error = None if self.calibration_error is None else float(self.calibration_error)
            return [_Panel(*arrays, error=error, cls=self.pos_label)]
        n = arrays[0].shape[0]
        errors = (
            [None] * n
            if self.calibration_error is None
            else np.asarray(self.calibration_error, dtype=float)
        )
        labels = self.class_labels if self.class_labels is not None else range(n)
        return [
            _Panel(
                *(None if a is None else a[i] for a in arrays),
                error=None if errors[i] is None else float(errors[i]),
                cls=lab,
            )
            for i, lab in enumerate(labels)
        ]

    def _axis_labels(self, cls):
        if self.multiclass == "top_label":
            return "Confidence (highest predicted probability)", "Accuracy"
        if cls is None:  # built by hand without a positive class
            return "Mean predicted probability", "Observed frequency"
        return f"Predicted probability of class {cls}", f"Observed frequency of class {cls}"

    def plot(
        self,
        ax=None,
        *,
        name=None,
        kind="line",
        ref_line=True,
        show_histogram=False,
        hist_ax=None,
        **kwargs,
    ):
        """Draw the diagram; nothing is computed here.

        Extra keyword arguments go to :meth:`matplotlib.axes.Axes.plot`
        (``kind="line"``) or to :meth:`matplotlib.axes.Axes.bar` for the
        observed-frequency bars (``kind="bar"``).

        Parameters
        ----------
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw: one Axes, or one per panel for ``multiclass="classwise"``
            (e.g. the ``ax_`` of another display, to draw several models together).
            When None, a new figure is created with :mod:`matplotlib.pyplot`.
        name : str, default=None
            Name of the model in the legend; default ``estimator_name``.
        kind : {"line", "bar"}, default="line"
            "line": markers at (mean predicted probability, observed frequency) of the
            non-empty bins joined by a line, as :class:`sklearn.calibration.CalibrationDisplay`
            (best for several models on one axis).  "bar": one bar per bin up to the
            observed frequency and a hatched "gap" bar up to the mean predicted
            probability, as Guo et al. (2017).
        ref_line : bool, default=True
            Draw the diagonal (perfect calibration), once per Axes.
        show_histogram : bool, default=False
            Draw the number of samples per bin in a histogram below the diagram.
        hist_ax : matplotlib Axes or array of Axes, default=None
            Where to draw the histogram (e.g. the ``hist_ax_`` of another display).
            When None and ``ax`` is given, the bottom third of ``ax`` is split off.
        **kwargs : dict
            Style keywords of the curve (or bars).  They override the display's own
            style, aliases included as in scikit-learn's displays: ``ls="--"`` replaces
            the default ``linestyle``, ``c="k"`` the default ``color``.  Giving both an
            alias and its long name (``ls`` and ``linestyle``) is a ValueError.

        Returns
        -------
        display : ReliabilityDisplay
            The object itself, with the attributes ``ax_``, ``figure_`` and the
            artists set: single artists for a single panel, 1-D object arrays (one
            entry per panel) for ``multiclass="classwise"``.
        """
        check_matplotlib("ReliabilityDisplay.plot")
        check_kind(kind, KINDS)
        panels = self._panels()
        n = len(panels)
        show_histogram = show_histogram or hist_ax is not None
        if ax is None and hist_ax is not None:
            raise ValueError("hist_ax needs ax: pass the Axes of the diagram too")
        if ax is None:
            axes, hist_axes = _new_axes(n, show_histogram)
        else:
            axes = _as_axes_list(ax, n, "ax")
            if hist_ax is not None:
                hist_axes = _as_axes_list(hist_ax, n, "hist_ax")
            elif show_histogram:
                hist_axes = [_split_for_histogram(a) for a in axes]
            else:
                hist_axes = [None] * n
        name = self.estimator_name if name is None else name

        drawn = [
            self._draw_panel(panel, a, h, name=name, kind=kind, ref_line=ref_line, style=kwargs)
            for panel, a, h in zip(panels, axes, hist_axes, strict=True)
        ]

        def pick(values):
            if not self._small_multiples():
                return values[0]
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out

        self.ax_ = pick(axes)
        self.hist_ax_ = pick(hist_axes) if show_histogram else None
        self.figure_ = axes[0].figure
        for key in ARTISTS:
            values = [d[key] for d in drawn]
            setattr(self, key, pick(values) if any(v is not None for v in values) else None)
        return self

    def _draw_panel(self, panel, ax, hist_ax, *, name, kind, ref_line, style):
        """Draw one panel on ``ax`` (and its histogram on ``hist_ax``); its artists."""
        out = dict.fromkeys(ARTISTS)
        label = name
        if panel.error is not None:
            label = legend_label(name, panel.error, self.calibration_error_name)
        if ref_line and REF_LABEL not in ax.get_legend_handles_labels()[1]:
            (out["ref_line_"],) = ax.plot(
                [0, 1], [0, 1], linestyle=":", color="k", label=REF_LABEL, zorder=4
            )
        defaults = {} if label is None else {"label": label}
        if kind == "line":
            out["line_"], x, color = self._draw_line(panel, ax, defaults, style)
            hist_color = color
        else:
            out["bars_"], out["gap_bars_"], x, hist_color = self._draw_bars(
                panel, ax, defaults, style
            )
            color = "k"
        if panel.has_interval:
            out["errorbar_"] = self._draw_interval(panel, ax, x, color)

        xlabel, ylabel = self._axis_labels(panel.cls)
        ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), ylabel=ylabel)
        place_legend(ax, f"Class {panel.cls}" if self._small_multiples() else None)
        if hist_ax is None:
            ax.set_xlabel(xlabel)
            return out
        ax.set_xlabel("")
        ax.tick_params(labelbottom=False)
        out["hist_"] = hist_ax.stairs(
            panel.count, panel.edges, fill=True, alpha=0.35, color=hist_color
        )
        hist_ax.stairs(panel.count, panel.edges, color=hist_color, linewidth=1)
        hist_ax.set(xlim=(-0.02, 1.02), xlabel=xlabel, ylabel="Samples per bin")
        return out

    @staticmethod
    def _draw_line(panel, ax, defaults, style):
        """The curve through the non-empty bins; ``(line, x of the bins, its colour)``."""
        keep = panel.keep
        line_kw = merge_style(
            {"marker": "s", "linestyle": "-", "markersize": 5, "zorder": 3, **defaults},
            style,
        )
        (line,) = ax.plot(panel.prob_pred[keep], panel.prob_true[keep], **line_kw)
        return line, panel.prob_pred, line.get_color()

    @staticmethod
    def _draw_bars(panel, ax, defaults, style):
        """Observed-frequency and gap bars; ``(bars, gaps, x of the bins, bar colour)``."""
        keep, edges = panel.keep, panel.edges
        widths = np.diff(edges)
        height = np.where(keep, panel.prob_true, 0.0)
        bar_kw = merge_style(
            {"color": "tab:blue", "edgecolor": "k", "linewidth": 0.8, "zorder": 2, **defaults},
            style,
        )
        bars = ax.bar(edges[:-1], height, width=widths, align="edge", **bar_kw)
        gaps = ax.bar(
            edges[:-1],
            np.where(keep, panel.prob_pred - panel.prob_true, 0.0),
            bottom=height,
            width=widths,
            align="edge",
            color="tab:red",
            alpha=0.3,
            edgecolor="tab:red",
            hatch="//",
            linewidth=0.8,
            label=GAP_LABEL,
            zorder=2,
        )
        color = bars.patches[0].get_facecolor()[:3] if bars.patches else "tab:blue"
        return bars, gaps, (edges[:-1] + edges[1:]) / 2, color

    @staticmethod
    def _draw_interval(panel, ax, x, color):
        """The confidence interval of each non-empty bin's observed frequency."""
        keep, pt = panel.keep, panel.prob_true
        yerr = np.vstack([pt[keep] - panel.low[keep], panel.high[keep] - pt[keep]])
        return ax.errorbar(
            x[keep],
            pt[keep],
            yerr=yerr,
            fmt="none",
            ecolor=color,
            elinewidth=1,
            capsize=2.5,
            alpha=0.8,
            zorder=3,
        )

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        n_bins="auto",
        strategy="uniform",
        multiclass="auto",
        classes=None,
        confidence_level=None,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        kind="line",
        ref_line=True,
        show_histogram=False,
        **kwargs,
    ):
        """Plot the reliability diagram of a fitted classifier on data.

        Calls ``estimator.predict_proba(X)`` and :meth:`from_predictions` with the
        estimator's ``classes_`` as ``labels``.

        Parameters
        ----------
        estimator : fitted classifier
            A classifier with ``predict_proba`` (a pipeline ending with one works).
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            True labels.
        n_bins : int or "auto", default="auto"
            Number of bins; "auto" chooses it from the number of samples (see
            :meth:`from_predictions`).
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width or equal-mass bins.
        multiclass : {"auto", "top_label", "classwise"}, default="auto"
            What is binned; see :meth:`from_predictions`.
        classes : array-like, default=None
            With ``multiclass="classwise"``, the classes to draw (one panel each, in
            this order), matched exactly against the estimator's ``classes_``;
            default all.
        confidence_level : float in (0, 1), default=None
            Draw the Wilson score interval of each bin at this level.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        pos_label : int, float, bool or str, default=None
            Positive class of a binary problem (default: the greater label; a 1-D
            ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
        name : str, default=None
            Name in the legend; default the estimator's class name.
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw; a new figure when None.
        kind : {"line", "bar"}, default="line"
            Line style (as sklearn) or bar style with gaps (as Guo et al. 2017).
        ref_line : bool, default=True
            Draw the diagonal.
        show_histogram : bool, default=False
            Draw the number of samples per bin below the diagram.
        **kwargs : dict
            Style keywords of the curve (or bars); aliases such as ``ls`` and ``c``
            override the display's defaults (see :meth:`plot`).

        Returns
        -------
        display : ReliabilityDisplay
            The display, drawn.
        """
        proba, est_classes = classifier_proba(estimator, X, "ReliabilityDisplay.from_estimator")
        return cls.from_predictions(
            y,
            proba,
            n_bins=n_bins,
            strategy=strategy,
            multiclass=multiclass,
            classes=classes,
            confidence_level=confidence_level,
            sample_weight=sample_weight,
            labels=est_classes,
            pos_label=pos_label,
            name=estimator_name(estimator) if name is None else name,
            ax=ax,
            kind=kind,
            ref_line=ref_line,
            show_histogram=show_histogram,
            **kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_proba": ["array-like"],
            "n_bins": [Interval(numbers.Integral, 1, None, closed="left"), StrOptions({"auto"})],
            "strategy": [StrOptions({"uniform", "quantile"})],
            "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
            "classes": ["array-like", None],
            "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither"), None],
            "sample_weight": ["array-like", None],
            "labels": ["array-like", None],
            "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
            "name": [str, None],
            "kind": [StrOptions(set(KINDS))],
            "ref_line": ["boolean"],
            "show_histogram": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def from_predictions(
        cls,
        y_true,
        y_proba,
        *,
        n_bins="auto",
        strategy="uniform",
        multiclass="auto",
        classes=None,
        confidence_level=None,
        sample_weight=None,
        labels=None,
        pos_label=None,
        name=None,
        ax=None,
        kind="line",
        ref_line=True,
        show_histogram=False,
        **kwargs,
    ):
        """Plot the reliability diagram of predicted probabilities.

        The bins are those of :func:`skcalib.metrics.reliability_curve` with the same
        options, and the calibration error in the legend is computed from those very
        bins (:func:`skcalib.metrics.calibration_error_from_bin_stats`): with the
        default equal-width bins it equals
        :func:`skcalib.metrics.expected_calibration_error` with the same ``n_bins``
        (with ``n_bins=15``, the metric's default ECE).  The input is validated once,
        then binned.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels (ints, strings, bools ...).
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities: of the positive class (1-D), or one column per
            class in ``labels`` order, as returned by ``predict_proba``.
        n_bins : int or "auto", default="auto"
            Number of bins.  "auto": :math:`\\min(15, \\max(5, \\lceil (2n)^{1/3}
            \\rceil))` for ``n`` samples, the number of bins of the oversmoothed
            histogram of Terrell and Scott (1985), the fewest that a density with the
            spread of the data can need, kept between scikit-learn's 5 bins of
            :class:`sklearn.calibration.CalibrationDisplay` and the 15 bins of every
            metric of :mod:`skcalib.metrics`: 62 samples or fewer get 5 bins, 500 get
            10, 1,373 and more get 15.  With fewer bins each point rests on more samples,
            so a small test set draws a smooth curve instead of a zig-zag of noise.  Pass
            ``n_bins=15`` for the bins (and the legend's ECE) of the metrics' defaults.
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width bins (edges ``np.linspace(0, 1, n_bins + 1)``) or equal-mass
            bins; the legend then shows the calibration error of the equal-mass bins.
        multiclass : {"auto", "top_label", "classwise"}, default="auto"
            What is binned, and so what the y axis shows.  "auto": for a binary
            problem the positive-class probability against the observed frequency of
            the positive class (the traditional diagram), otherwise "top_label".
            "top_label": the confidence (highest probability) against the accuracy
            (Guo et al. 2017).  "classwise": one panel per class, its probability
            against its observed frequency (small multiples).
        classes : array-like, default=None
            With ``multiclass="classwise"``, the classes to draw, one panel each in
            this order (default all).  They are matched exactly against the labels
            (the class ``1`` is not the class ``"1"``); an unknown class is a
            ValueError listing the available ones.  A single class gives an array of
            one panel (``ax_`` is an array for class-wise diagrams, always).
        confidence_level : float in (0, 1), default=None
            Draw the Wilson score interval of each bin's observed frequency at this
            level (see :func:`skcalib.metrics.reliability_curve`).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        labels : array-like, default=None
            Classes in the column order of ``y_proba``.
        pos_label : int, float, bool or str, default=None
            Positive class of a binary problem (default: the greater label; a 1-D
            ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw; a new figure when None.
        kind : {"line", "bar"}, default="line"
            Line style (as sklearn) or bar style with gaps (as Guo et al. 2017).
        ref_line : bool, default=True
            Draw the diagonal.
        show_histogram : bool, default=False
            Draw the number of samples per bin below the diagram.
        **kwargs : dict
            Style keywords of the curve (or bars); aliases such as ``ls`` and ``c``
            override the display's defaults (see :meth:`plot`).

        Returns
        -------
        display : ReliabilityDisplay
            The display, drawn.
        """
        if classes is not None and multiclass != "classwise":
            raise ValueError(
                "classes selects the panels of multiclass='classwise'; got "
                f"multiclass={multiclass!r}"
            )
        data, mode, pos = validated_input(
            y_true,
            y_proba,
            multiclass,
            sample_weight=sample_weight,
            labels=labels,
            pos_label=pos_label,
        )
        if n_bins == "auto":
            n_bins = auto_n_bins(data.n_samples)
        stats = bin_stats(
            data,
            multiclass=mode,
            n_bins=n_bins,
            strategy=strategy,
        )
        # the arrays of skcalib.metrics.reliability_curve, from the same statistics
        prob_true, prob_pred = stats.prob_true, stats.prob_pred
        low = high = None
        if confidence_level is not None:
            low, high = _wilson_interval(prob_true, stats.effective_count, confidence_level)
        if mode == "classwise":
            idx = (
                np.arange(stats.n_groups)
                if classes is None
                else select_classes(classes, data.classes)
            )
            error = np.array([calibration_error_from_bin_stats(_group(stats, g)) for g in idx])
            class_labels = np.asarray(data.classes)[idx]
        else:
            idx = 0  # one group: 1-D arrays
            error = calibration_error_from_bin_stats(stats)
            class_labels = None
        disp = cls(
            prob_true[idx],
            prob_pred[idx],
            stats.count[idx],
            stats.bin_edges[idx],
            calibration_error=error,
            prob_true_low=None if low is None else low[idx],
            prob_true_high=None if high is None else high[idx],
            multiclass=mode,
            class_labels=class_labels,
            pos_label=pos,
            estimator_name=name,
            calibration_error_name="ECE" if strategy == "uniform" else "ECE (equal-mass bins)",
        )
        return disp.plot(
            ax=ax, name=name, kind=kind, ref_line=ref_line, show_histogram=show_histogram, **kwargs
        )
