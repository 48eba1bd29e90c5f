"""Accuracy-rejection curves in scikit-learn's Display idiom."""

from __future__ import annotations

import numbers

import numpy as np

from ..metrics import rejection_curve
from ..utils._sklearn_compat import validate_params
from ._base import check_matplotlib, classifier_proba, estimator_name, merge_style, new_figure
from ._reliability import place_legend

__all__ = ["RejectionDisplay"]


def _aurc_of_curve(curve):
    """The area under the risk-coverage curve of a :func:`rejection_curve`.

    The points of the curve are the tie groups of
    :func:`skcalib.metrics.area_under_risk_coverage`: each group's step has the width
    of its share of the weight (the increase of the coverage) and the height of the
    error rate of everything kept up to it (one minus the accuracy), so the sum of the
    steps is the metric's AURC without ranking the data a second time.
    """
    coverage = curve.coverage[::-1]  # increasing: the most confident group first
    risk = 1.0 - curve.accuracy[::-1]
    aurc = float(np.dot(np.diff(coverage, prepend=0.0), risk))
    return min(max(aurc, 0.0), 1.0)


class RejectionDisplay:
    """Accuracy of the kept predictions against the fraction rejected by uncertainty.

    A model that may abstain rejects its most uncertain predictions first; the curve
    shows the accuracy of what it keeps, as computed by
    :func:`skcalib.metrics.rejection_curve` (one point per distinct uncertainty value:
    tied predictions are kept or rejected together).  Two references are drawn with
    it: the oracle curve, which rejects the errors first (the best any ranking can do),
    and the horizontal line of random rejection, which keeps the accuracy of all
    predictions on average.  The closer the curve is to the oracle, the better the
    uncertainty ranks the model's mistakes.  The legend gives the area under the
    risk-coverage curve (:func:`skcalib.metrics.area_under_risk_coverage`, lower is
    better) of the same data.

    It is recommended to use :meth:`from_estimator` or :meth:`from_predictions`; all
    parameters are stored as attributes of the same name.

    Parameters
    ----------
    fraction_rejected : ndarray of shape (n_thresholds,)
        Fraction of the predictions (of the sample weight) rejected, increasing from 0.
    accuracy : ndarray of shape (n_thresholds,)
        Accuracy of the kept predictions.
    oracle_accuracy : ndarray of shape (n_thresholds,)
        Accuracy of the kept predictions when the errors are rejected first.
    base_accuracy : float
        Accuracy of all predictions (random rejection keeps it on average).
    aurc : float, default=None
        Area under the risk-coverage curve of the same data, shown in the legend.
    estimator_name : str, default=None
        Name of the model, used in the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes
        The Axes drawn on: one panel, so always a single Axes (and single artists).
    figure_ : matplotlib Figure
        Figure containing the curves.
    line_ : matplotlib Line2D
        The accuracy-rejection curve.
    oracle_line_ : matplotlib Line2D or None
        The oracle curve (None with ``show_oracle=False``).
    random_line_ : matplotlib Line2D or None
        The accuracy of random rejection (None with ``show_random=False``).

    See Also
    --------
    skcalib.metrics.rejection_curve : The values drawn.
    skcalib.metrics.area_under_risk_coverage : The number in the legend.

    References
    ----------
    M. S. A. Nadeem, J.-D. Zucker and B. Hanczar, "Accuracy-Rejection Curves (ARCs)
    for Comparing Classification Methods with a Reject Option", MLSB 2009.

    Y. Geifman, G. Uziel and R. El-Yaniv, "Bias-Reduced Uncertainty Estimation for
    Deep Neural Classifiers", ICLR 2019.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from skcalib.display import RejectionDisplay
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = GaussianNB().fit(X[::2], y[::2])
    >>> disp = RejectionDisplay.from_estimator(clf, X[1::2], y[1::2])
    >>> bool(disp.accuracy[-1] > disp.base_accuracy)  # rejecting helps
    True
    >>> plt.close("all")
    """

    def __init__(
        self,
        fraction_rejected,
        accuracy,
        oracle_accuracy,
        base_accuracy,
        *,
        aurc=None,
        estimator_name=None,
    ):
        self.fraction_rejected = fraction_rejected
        self.accuracy = accuracy
        self.oracle_accuracy = oracle_accuracy
        self.base_accuracy = base_accuracy
        self.aurc = aurc
        self.estimator_name = estimator_name

    def plot(self, ax=None, *, name=None, show_oracle=True, show_random=True, **kwargs):
        """Draw the curve and its references; nothing is computed here.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new :mod:`matplotlib.pyplot` figure when None.  Pass the
            ``ax_`` of another display to compare models on one axis.
        name : str, default=None
            Name of the model in the legend; default ``estimator_name``.
        show_oracle : bool, default=True
            Whether to draw the oracle curve (dashed, in the curve's colour).
        show_random : bool, default=True
            Whether to draw the accuracy of random rejection (dotted, in the curve's
            colour).
        **kwargs : dict
            Style keywords of :meth:`matplotlib.axes.Axes.plot` (the curve).  They
            override the display's own style, aliases included (``lw=1`` replaces the
            default ``linewidth``, ``c="k"`` colours the curve and its references); an
            alias and its long name together are a ValueError.

        Returns
        -------
        display : RejectionDisplay
            The object itself, with ``ax_``, ``figure_`` and the artists set.
        """
        check_matplotlib("RejectionDisplay.plot")
        if ax is None:
            _, axes = new_figure(figsize=(5.2, 4.2))
            ax = axes[0, 0]
        name = self.estimator_name if name is None else name
        label = "Model" if name is None else name
        if self.aurc is not None:
            label = f"{label} (AURC = {self.aurc:.3g})"
        (self.line_,) = ax.plot(
            self.fraction_rejected,
            self.accuracy,
            **merge_style({"label": label, "linewidth": 2}, kwargs),
        )
        color = self.line_.get_color()
        suffix = "" if name is None else f" ({name})"
        self.oracle_line_ = None
        if show_oracle:
            (self.oracle_line_,) = ax.plot(
                self.fraction_rejected,
                self.oracle_accuracy,
                linestyle="--",
                linewidth=1.2,
                color=color,
                label=f"Oracle: errors rejected first{suffix}",
            )
        self.random_line_ = None
        if show_random:
            self.random_line_ = ax.axhline(
                self.base_accuracy,
                linestyle=":",
                linewidth=1.2,
                color=color,
                label=f"Random rejection{suffix}",
            )
        ax.set(
            xlim=(0.0, 1.0),
            xlabel="Fraction of predictions rejected",
            ylabel="Accuracy of the kept predictions",
        )
        # every curve on the Axes stays in view (a second model drawn on the Axes of a
        # better one may lie far below it), the top just above perfect accuracy
        lows = [np.nanmin(ln.get_ydata()) for ln in ax.get_lines() if len(ln.get_ydata())]
        bottom = min(lows)
        ax.set_ylim(bottom - 0.05 * (1.02 - bottom), 1.02)
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
        uncertainty=None,
        sample_weight=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the accuracy-rejection curve of a fitted classifier on data.

        Parameters
        ----------
        estimator : fitted classifier
            A classifier with ``predict_proba``; its prediction is the most probable
            class.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            True labels.
        uncertainty : array-like of shape (n_samples,), default=None
            Any per-sample uncertainty score, higher when the model is less sure;
            default ``1 - max predict_proba``.
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
            Keyword arguments of :meth:`plot`.

        Returns
        -------
        display : RejectionDisplay
            The display, drawn.
        """
        proba, classes = classifier_proba(estimator, X, "RejectionDisplay.from_estimator")
        return cls.from_predictions(
            y,
            proba,
            uncertainty=uncertainty,
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
            "uncertainty": ["array-like", None],
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
        uncertainty=None,
        sample_weight=None,
        labels=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the accuracy-rejection curve of predicted probabilities.

        The curve is :func:`skcalib.metrics.rejection_curve` and the legend's AURC
        :func:`skcalib.metrics.area_under_risk_coverage` of the same arguments, summed
        from the points of the same curve (the input is validated and ranked once).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities (positive class for 1-D input); the prediction is
            the most probable class.
        uncertainty : array-like of shape (n_samples,), default=None
            Any per-sample uncertainty score, higher when the model is less sure (the
            entropy, one minus the margin, an ensemble's
            ``model_uncertainty(...).model``); default ``1 - max y_proba``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        labels : array-like, default=None
            Classes in the column order of ``y_proba``.
        pos_label : int, float, bool or str, default=None
            Positive class of a binary problem with 1-D ``y_proba``.
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Keyword arguments of :meth:`plot`.

        Returns
        -------
        display : RejectionDisplay
            The display, drawn.
        """
        curve = rejection_curve(
            y_true,
            y_proba,
            uncertainty=uncertainty,
            sample_weight=sample_weight,
            labels=labels,
            pos_label=pos_label,
        )
        disp = cls(
            curve.fraction_rejected,
            curve.accuracy,
            curve.oracle_accuracy,
            curve.base_accuracy,
            aurc=_aurc_of_curve(curve),
            estimator_name=name,
        )
        return disp.plot(ax=ax, name=name, **kwargs)
