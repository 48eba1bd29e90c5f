"""Confidence histogram in scikit-learn's Display idiom."""

from __future__ import annotations

import numbers

import numpy as np

from .._core._binning import bin_stats
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._base import (
    check_matplotlib,
    classifier_proba,
    estimator_name,
    merge_style,
    new_figure,
    validated_input,
)
from ._reliability import place_legend

__all__ = ["ConfidenceHistogramDisplay"]


class ConfidenceHistogramDisplay:
    """Distribution of the confidences, with the average accuracy and confidence.

    The bars are the share of samples in each bin of
    :func:`skcalib.metrics.reliability_curve`; the two vertical lines are the average
    accuracy (the share of correct top-label predictions) and the average confidence.
    A model whose average confidence lies right of its accuracy is over-confident on
    average (Guo et al. 2017, Figure 1).  With ``multiclass="auto"`` on a binary
    problem the positive-class probability is shown instead, with the observed
    frequency of the positive class and the mean predicted probability.

    It is recommended to use :meth:`from_estimator` or :meth:`from_predictions`; all
    parameters are stored as attributes of the same name.

    Parameters
    ----------
    bin_fraction : ndarray of shape (n_bins,)
        Share of the samples (of the sample weight) in each bin.
    bin_edges : ndarray of shape (n_bins + 1,)
        Bin edges.
    accuracy : float
        Average accuracy (observed frequency of the positive class for binary).
    confidence : float
        Average confidence (mean predicted probability of the positive class).
    multiclass : {"top_label", "binary"}, default="top_label"
        What was binned.
    pos_label : int, float, bool or str, default=None
        Positive class (``multiclass="binary"``).
    estimator_name : str, default=None
        Name of the model, used in the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes
        The Axes drawn on: one panel, so always a single Axes (and single artists).
    figure_ : matplotlib Figure
        Figure containing the histogram.
    hist_ : matplotlib StepPatch
        The histogram.
    accuracy_line_ : matplotlib Line2D
        The vertical line at the average accuracy.
    confidence_line_ : matplotlib Line2D
        The vertical line at the average confidence.

    See Also
    --------
    ReliabilityDisplay : The reliability diagram of the same bins.

    References
    ----------
    C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of Modern Neural
    Networks", ICML 2017.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcalib.display import ConfidenceHistogramDisplay
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = GaussianNB().fit(X[::2], y[::2])
    >>> disp = ConfidenceHistogramDisplay.from_estimator(clf, X[1::2], y[1::2])
    >>> bool(disp.confidence > disp.accuracy)  # over-confident on average
    True
    >>> plt.close("all")
    """

    def __init__(
        self,
        bin_fraction,
        bin_edges,
        accuracy,
        confidence,
        *,
        multiclass="top_label",
        pos_label=None,
        estimator_name=None,
    ):
        self.bin_fraction = bin_fraction
        self.bin_edges = bin_edges
        self.accuracy = accuracy
        self.confidence = confidence
        self.multiclass = multiclass
        self.pos_label = pos_label
        self.estimator_name = estimator_name

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the histogram and the two average lines; nothing is computed here.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new :mod:`matplotlib.pyplot` figure when None.
        name : str, default=None
            Name of the model in the legend; default ``estimator_name``.
        **kwargs : dict
            Style keywords of :meth:`matplotlib.axes.Axes.stairs` (the histogram).
            They override the display's own style, aliases included (``lw=2``
            replaces the default ``linewidth``, ``ec="r"`` the default
            ``edgecolor``); an alias and its long name together are a ValueError.

        Returns
        -------
        display : ConfidenceHistogramDisplay
            The object itself, with ``ax_``, ``figure_`` and the artists set.
        """
        check_matplotlib("ConfidenceHistogramDisplay.plot")
        if ax is None:
            _, axes = new_figure(figsize=(5.0, 4.0))
            ax = axes[0, 0]
        name = self.estimator_name if name is None else name
        binary = self.multiclass == "binary"
        hist_kw = {"fill": True, "alpha": 0.6, "edgecolor": "k", "linewidth": 0.8}
        if name is not None:
            hist_kw["label"] = name
        self.hist_ = ax.stairs(self.bin_fraction, self.bin_edges, **merge_style(hist_kw, kwargs))
        acc_name = f"Frequency of class {self.pos_label}" if binary else "Accuracy"
        conf_name = "Mean predicted probability" if binary else "Average confidence"
        self.accuracy_line_ = ax.axvline(
            self.accuracy,
            color="tab:green",
            linestyle="--",
            linewidth=2,
            label=f"{acc_name} = {self.accuracy:.3f}",
        )
        self.confidence_line_ = ax.axvline(
            self.confidence,
            color="tab:red",
            linestyle=":",
            linewidth=2,
            label=f"{conf_name} = {self.confidence:.3f}",
        )
        xlabel = (
            f"Predicted probability of class {self.pos_label}"
            if binary
            else "Confidence (highest predicted probability)"
        )
        ax.set(xlim=(-0.02, 1.02), xlabel=xlabel, ylabel="Fraction of samples")
        ax.set_ylim(bottom=0)
        place_legend(ax)
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        n_bins=15,
        multiclass="top_label",
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the confidence histogram of a fitted classifier on data.

        Parameters
        ----------
        estimator : fitted classifier
            A classifier with ``predict_proba``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            True labels.
        n_bins : int, default=15
            Number of equal-width bins (15, as every metric of :mod:`skcalib.metrics`).
        multiclass : {"top_label", "auto"}, default="top_label"
            "top_label": the highest probability and the accuracy; "auto": for a binary
            problem the positive-class probability, otherwise "top_label".
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        pos_label : int, float, bool or str, default=None
            Positive class of a binary problem (default: the greater label; a 1-D
            ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
        name : str, default=None
            Name in the legend; default the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Style keywords of the histogram (see :meth:`plot`).

        Returns
        -------
        display : ConfidenceHistogramDisplay
            The display, drawn.
        """
        proba, classes = classifier_proba(estimator, X, "ConfidenceHistogramDisplay.from_estimator")
        return cls.from_predictions(
            y,
            proba,
            n_bins=n_bins,
            multiclass=multiclass,
            sample_weight=sample_weight,
            labels=classes,
            pos_label=pos_label,
            name=estimator_name(estimator) if name is None else name,
            ax=ax,
            **kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_proba": ["array-like"],
            "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
            "multiclass": [StrOptions({"auto", "top_label"})],
            "sample_weight": ["array-like", None],
            "labels": ["array-like", None],
            "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
            "name": [str, None],
        },
        prefer_skip_nested_validation=True,
    )
    def from_predictions(
        cls,
        y_true,
        y_proba,
        *,
        n_bins=15,
        multiclass="top_label",
        sample_weight=None,
        labels=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the confidence histogram of predicted probabilities.

        The bins, the averages and the shares all come from the
        :class:`~skcalib.metrics.BinStats` of :func:`skcalib.metrics.reliability_curve`
        (equal-width bins, the 15 of every metric by default): the average accuracy
        is the sum of the outcomes over the total weight, the average confidence the
        sum of the binned probabilities over the total weight.  The input is validated
        once, then binned.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities, as for :func:`skcalib.metrics.reliability_curve`.
        n_bins : int, default=15
            Number of equal-width bins (15, as every metric of :mod:`skcalib.metrics`).
        multiclass : {"top_label", "auto"}, default="top_label"
            "top_label": the highest probability and the accuracy; "auto": for a binary
            problem the positive-class probability, otherwise "top_label".
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        labels : array-like, default=None
            Classes in the column order of ``y_proba``.
        pos_label : int, float, bool or str, default=None
            Positive class of a binary problem (default: the greater label; a 1-D
            ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Style keywords of the histogram (see :meth:`plot`).

        Returns
        -------
        display : ConfidenceHistogramDisplay
            The display, drawn.
        """
        data, mode, pos = validated_input(
            y_true,
            y_proba,
            multiclass,
            sample_weight=sample_weight,
            labels=labels,
            pos_label=pos_label,
        )
        stats = bin_stats(data, multiclass=mode, n_bins=n_bins)
        count = stats.count[0]
        total = stats.total_weight
        binary = mode == "binary"
        disp = cls(
            count / total,
            stats.bin_edges[0],
            float(stats.sum_true.sum() / total),
            float(stats.sum_proba.sum() / total),
            multiclass="binary" if binary else "top_label",
            pos_label=pos,
            estimator_name=name,
        )
        return disp.plot(ax=ax, name=name, **kwargs)
