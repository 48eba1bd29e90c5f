"""Calibration of every group, drawn: per-group bias with intervals and reliability
curves of the worst groups."""

from __future__ import annotations

import numbers

import numpy as np

from ..metrics import calibration_by_group, reliability_curve
from ..metrics._groups._codes import group_codes
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._base import (
    check_matplotlib,
    classifier_proba,
    estimator_name,
    merge_style,
    new_figure,
    validated_input,
)

__all__ = ["GroupCalibrationDisplay"]


def _label(key):
    if isinstance(key, tuple):
        return ", ".join(map(str, key))
    return str(key)


class GroupCalibrationDisplay:
    """Calibration of every group: bias with intervals and the worst groups' curves.

    The left panel shows, for each group of :func:`skcalib.metrics.calibration_by_group`,
    its signed bias ``mean(p) - mean(y)`` (positive: the model over-estimates the
    group) with its confidence interval, sorted by the group's ECCE over its null
    standard deviation (the least calibrated group on top).  Groups whose adjusted
    p-value is below ``alpha`` are drawn filled and in red; groups too small to be
    tested are drawn in grey.  Class-wise (where the bias is 0 by construction) the
    panel shows the ECCE instead.  The right panels are the reliability curves
    (:func:`skcalib.metrics.reliability_curve`) of the ``n_curves`` worst groups, each
    with the curve of the whole population in grey.

    It is recommended to use :meth:`from_estimator` or :meth:`from_predictions`; all
    parameters are stored as attributes of the same name.

    Parameters
    ----------
    groups : list
        Group keys, sorted worst first.
    value : ndarray of shape (n_groups,)
        The bias of each group (or its ECCE when ``value_name`` is ``"ECCE"``).
    low, high : ndarray of shape (n_groups,)
        Bounds of its confidence interval (equal to ``value`` without an interval).
    rejected : ndarray of bool of shape (n_groups,)
        Whether the adjusted test rejects calibration of the group at ``alpha``.
    small : ndarray of bool of shape (n_groups,)
        Whether the group is too small to be tested.
    curves : list of tuple
        ``(prob_true, prob_pred)`` of the reliability curves of the first groups.
    overall_curve : tuple
        ``(prob_true, prob_pred)`` of the whole population.
    value_name : str, default="Bias"
        Name of the value on the axis.
    estimator_name : str, default=None
        Name of the model, used in the title.

    Attributes
    ----------
    ax_ : matplotlib Axes
        The panel of the per-group values.
    curve_axes_ : ndarray of matplotlib Axes
        The panels of the reliability curves (empty with ``n_curves=0``).
    figure_ : matplotlib Figure
        The figure.
    errorbar_ : matplotlib ErrorbarContainer
        The points and intervals of the groups.
    curve_lines_ : list of matplotlib Line2D
        The reliability curves of the groups.

    See Also
    --------
    skcalib.metrics.calibration_by_group : The numbers drawn.
    skcalib.display.ReliabilityDisplay : One reliability diagram.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from skcalib.display import GroupCalibrationDisplay
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> region = rng.choice(["north", "south", "east", "west"], n)
    >>> p = rng.uniform(0.05, 0.95, n)
    >>> y = (rng.random(n) < np.where(region == "east", p * 0.8, p)).astype(int)
    >>> disp = GroupCalibrationDisplay.from_predictions(y, p, region, n_curves=2)
    >>> disp.groups[0], bool(disp.rejected[0])
    ('east', True)
    >>> plt.close("all")
    """

    def __init__(
        self,
        groups,
        value,
        low,
        high,
        rejected,
        small,
        curves,
        overall_curve,
        *,
        value_name="Bias",
        estimator_name=None,
    ):
        self.groups = groups
        self.value = value
        self.low = low
        self.high = high
        self.rejected = rejected
        self.small = small
        self.curves = curves
        self.overall_curve = overall_curve
        self.value_name = value_name
        self.estimator_name = estimator_name

    def plot(self, ax=None, *, n_curves=None, curve_axes=None, name=None, **kwargs):
        """Draw the groups and the reliability curves; nothing is computed here.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw the per-group panel; with None, a new figure holds it and the
            small multiples of the curves.
        n_curves : int, default=None
            Number of reliability curves drawn (the worst groups); default all that
            were computed.  With ``ax`` given, they are drawn only on ``curve_axes``.
        curve_axes : array-like of matplotlib Axes, default=None
            Where to draw the curves when ``ax`` is given.
        name : str, default=None
            Name of the model in the title; default ``estimator_name``.
        **kwargs : dict
            Style keywords of :meth:`matplotlib.axes.Axes.errorbar` (the points).

        Returns
        -------
        display : GroupCalibrationDisplay
            The object itself, with ``ax_``, ``curve_axes_``, ``figure_`` and the
            artists set.
        """
        check_matplotlib("GroupCalibrationDisplay.plot")
        n_curves = len(self.curves) if n_curves is None else min(n_curves, len(self.curves))
        if ax is None:
            ncols = int(np.ceil(np.sqrt(n_curves))) if n_curves else 0
            nrows = int(np.ceil(n_curves / ncols)) if n_curves else 1
            fig, axes = new_figure(
                max(nrows, 1), 1 + ncols, figsize=(4.8 + 2.6 * ncols, max(3.6, 2.6 * nrows))
            )
            gs = axes[0, 0].get_gridspec()
            for a in axes[:, 0]:
                a.remove()
            ax = fig.add_subplot(gs[:, 0])
            spare = list(axes[:, 1:].ravel())
            curve_axes = spare[:n_curves]
            for a in spare[n_curves:]:
                a.remove()
        curve_axes = [] if curve_axes is None else list(np.ravel(curve_axes))[:n_curves]
        name = self.estimator_name if name is None else name
        m = len(self.groups)
        ypos = np.arange(m)[::-1]
        value = np.asarray(self.value, dtype=float)
        err = np.vstack([value - np.asarray(self.low), np.asarray(self.high) - value])
        err = np.where(np.isfinite(err), err, 0.0)
        colors = np.where(self.rejected, "tab:red", np.where(self.small, "0.6", "tab:blue"))
        style = merge_style({"fmt": "none", "ecolor": "0.4", "elinewidth": 1.2}, kwargs)
        self.errorbar_ = ax.errorbar(value, ypos, xerr=err, **style)
        face = [c if r else "white" for c, r in zip(colors, self.rejected, strict=True)]
        ax.scatter(value, ypos, c=face, edgecolors=colors, zorder=3, s=36)
        ax.axvline(0.0, color="0.5", linewidth=0.8, linestyle=":")
        ax.set_yticks(ypos, [_label(g) for g in self.groups])
        xlabel = self.value_name
        if self.value_name == "Bias":
            xlabel = "Bias: mean predicted - observed frequency"
        ax.set(xlabel=xlabel, ylim=(-0.7, m - 0.3))
        title = "Calibration by group (red: rejected after adjustment)"
        ax.set_title(title if name is None else f"{name}: {title.lower()}", fontsize="medium")
        self.curve_lines_ = []
        for i, cax in enumerate(curve_axes):
            prob_true, prob_pred = self.curves[i]
            cax.plot([0, 1], [0, 1], color="0.7", linewidth=0.8, linestyle="--")
            cax.plot(*self.overall_curve[::-1], color="0.6", linewidth=1.0)
            (line,) = cax.plot(prob_pred, prob_true, marker="o", markersize=3, color=colors[i])
            self.curve_lines_.append(line)
            cax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal")
            cax.set_title(_label(self.groups[i]), fontsize="small")
            cax.tick_params(labelsize="x-small")
        self.ax_ = ax
        self.curve_axes_ = np.asarray(curve_axes, dtype=object)
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_estimator(cls, estimator, X, y, groups, *, name=None, ax=None, **kwargs):
        """Plot the calibration of every group of a fitted classifier on data.

        Parameters
        ----------
        estimator : fitted classifier
            A classifier with ``predict_proba``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            True labels.
        groups : array-like of shape (n_samples,) or (n_samples, n_columns)
            Group of each sample (see :func:`skcalib.metrics.calibration_by_group`).
        name : str, default=None
            Name in the title; default the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Keyword arguments of :meth:`from_predictions` and :meth:`plot`.

        Returns
        -------
        display : GroupCalibrationDisplay
            The display, drawn.
        """
        proba, classes = classifier_proba(estimator, X, "GroupCalibrationDisplay.from_estimator")
        return cls.from_predictions(
            y,
            proba,
            groups,
            labels=classes,
            name=estimator_name(estimator) if name is None else name,
            ax=ax,
            **kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_proba": ["array-like"],
            "groups": ["array-like"],
            "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
            "min_group_size": [Interval(numbers.Integral, 1, None, closed="left")],
            "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
            "p_adjust": [StrOptions({"holm", "bh"})],
            "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
            "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
            "max_groups": [Interval(numbers.Integral, 1, None, closed="left"), None],
            "n_curves": [Interval(numbers.Integral, 0, None, closed="left")],
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
        groups,
        *,
        n_bins=10,
        min_group_size=30,
        confidence_level=0.95,
        p_adjust="holm",
        alpha=0.05,
        multiclass="auto",
        max_groups=None,
        n_curves=6,
        sample_weight=None,
        labels=None,
        pos_label=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the calibration of every group of predicted probabilities.

        The numbers are those of :func:`skcalib.metrics.calibration_by_group` (one
        pass over the data for all groups); the curves are
        :func:`skcalib.metrics.reliability_curve` of the ``n_curves`` worst groups.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Predicted probabilities.
        groups : array-like of shape (n_samples,) or (n_samples, n_columns)
            Group of each sample; several columns: their combinations.
        n_bins : int, default=10
            Equal-width bins of the reliability curves.
        min_group_size : int, default=30
            Smaller groups are drawn in grey and not tested.
        confidence_level : float, default=0.95
            Level of the intervals of the bias.
        p_adjust : {"holm", "bh"}, default="holm"
            Adjustment of the groups' p-values for their number.
        alpha : float, default=0.05
            Level at which an adjusted p-value marks a group as rejected.
        multiclass : {"auto", "top_label", "classwise"}, default="auto"
            What is calibrated (class-wise: the panel shows the ECCE).
        max_groups : int, default=None
            Draw only the worst groups; default all.
        n_curves : int, default=6
            Number of reliability curves of the worst groups.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights.
        labels : array-like, default=None
            Classes in the column order of ``y_proba``.
        pos_label : int, float, bool or str, default=None
            Positive class of a binary problem.
        name : str, default=None
            Name of the model in the title.
        ax : matplotlib Axes, default=None
            Where to draw the per-group panel; a new figure when None.
        **kwargs : dict
            Keyword arguments of :meth:`plot`.

        Returns
        -------
        display : GroupCalibrationDisplay
            The display, drawn.
        """
        data, mode, _ = validated_input(
            y_true,
            y_proba,
            multiclass,
            sample_weight=sample_weight,
            labels=labels,
            pos_label=pos_label,
        )
        y = data.classes[data.y]
        proba = np.asarray(data.proba)
        sw = data.sample_weight
        opts = {"sample_weight": sw, "labels": data.classes}
        if data.binary_1d:
            opts["pos_label"] = data.classes[data.pos_index]
        res = calibration_by_group(
            y,
            proba,
            groups,
            n_bins=n_bins,
            min_group_size=min_group_size,
            confidence_level=confidence_level,
            p_adjust=p_adjust,
            multiclass=multiclass,
            as_frame=False,
            **opts,
        )
        keys, cols = res.groups[:-1], {c: v[:-1] for c, v in res.columns.items()}
        order = np.argsort(-np.nan_to_num(cols["ecce_sigma"], nan=-1.0), kind="stable")
        if max_groups is not None:
            order = order[:max_groups]
        if mode == "classwise":
            value = low = high = cols["ecce"][order]
            value_name = "ECCE"
        else:
            value = cols["bias"][order]
            low, high = cols["bias_low"][order], cols["bias_high"][order]
            value_name = "Bias"
        adjusted = cols["pvalue_adjusted"][order]
        rejected = np.nan_to_num(adjusted, nan=1.0) < alpha
        codes, _, _ = group_codes(groups, data.n_samples)
        curve_mode = "auto" if mode == "classwise" else multiclass
        curves = []
        for j in order[:n_curves]:
            rows = codes == j
            o = {**opts, "sample_weight": None if sw is None else sw[rows]}
            curves.append(
                tuple(
                    reliability_curve(
                        y[rows], proba[rows], n_bins=n_bins, multiclass=curve_mode, **o
                    )
                )
            )
        overall = tuple(reliability_curve(y, proba, n_bins=n_bins, multiclass=curve_mode, **opts))
        disp = cls(
            [keys[j] for j in order],
            value,
            low,
            high,
            rejected,
            cols["small"][order],
            curves,
            overall,
            value_name=value_name,
            estimator_name=name,
        )
        return disp.plot(ax=ax, name=name, **kwargs)
