"""Calibration of regression: the calibration curve of predictive distributions, and
prediction intervals ordered by prediction."""

from __future__ import annotations

import numbers

import numpy as np
from scipy import stats

from ..metrics import (
    PredictionInterval,
    interval_coverage,
    miscalibration_area,
    regression_calibration_curve,
    sharpness,
)
from ..metrics._regression._forms import as_predictive
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._base import check_matplotlib, estimator_name, merge_style, new_figure
from ._reliability import REF_LABEL, place_legend

__all__ = ["PredictionIntervalDisplay", "RegressionCalibrationDisplay"]

KINDS = ("interval", "quantile")


def estimator_distribution(estimator, X, caller):
    """The predictive distributions of a fitted regressor: ``predict_distribution(X)``,
    else ``scipy.stats.norm(*predict(X, return_std=True))``."""
    if hasattr(estimator, "predict_distribution"):
        return estimator.predict_distribution(X)
    try:
        out = estimator.predict(X, return_std=True)
    except TypeError as exc:
        raise ValueError(
            f"{caller} needs a regressor with predict_distribution(X) or whose "
            "predict(X, return_std=True) returns the mean and standard deviation "
            "(e.g. GaussianProcessRegressor, BayesianRidge); "
            f"{type(estimator).__name__}.predict does not accept return_std"
        ) from exc
    mean, std = out
    return stats.norm(
        np.asarray(mean, dtype=np.float64).reshape(-1),
        np.asarray(std, dtype=np.float64).reshape(-1),
    )


class RegressionCalibrationDisplay:
    """Calibration curve of a regressor's predictive distributions.

    The observed proportion of observations inside their central :math:`p` intervals
    (``kind="interval"``), or below their predicted :math:`p`-quantiles
    (``kind="quantile"``), against the expected proportion :math:`p`
    (:func:`skcalib.metrics.regression_calibration_curve`).  Calibrated forecasts follow
    the diagonal; the area between the curve and the diagonal
    (:func:`skcalib.metrics.miscalibration_area`) is shaded, and the legend gives it
    with the sharpness (:func:`skcalib.metrics.sharpness`, the root mean predictive
    variance: smaller is sharper, a merit only under calibration).  With
    ``kind="interval"`` a curve below the diagonal means intervals too narrow
    (over-confident), above it too wide.

    It is recommended to use :meth:`from_estimator` or :meth:`from_predictions`; all
    parameters are stored as attributes of the same name.  Several models are compared
    by drawing each on the ``ax_`` of the first.

    Parameters
    ----------
    expected : ndarray of shape (n_levels,)
        Expected proportions (the levels).
    observed : ndarray of shape (n_levels,)
        Observed proportions.
    miscalibration_area : float, default=None
        Area between the curve and the diagonal (in the legend when given).
    sharpness : float, default=None
        Sharpness of the predictions (in the legend when given).
    kind : {"interval", "quantile"}, default="interval"
        What the proportions count (for the axis labels).
    estimator_name : str, default=None
        Name of the model, used in the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes
        Axes with the curve.
    figure_ : matplotlib Figure
        Figure containing the curve.
    line_ : matplotlib Line2D
        The calibration curve.
    fill_ : matplotlib PolyCollection
        The shaded area between the curve and the diagonal.

    See Also
    --------
    PredictionIntervalDisplay : Prediction intervals ordered by prediction.
    PITDisplay : PIT histogram of Normal or ensemble forecasts.

    References
    ----------
    V. Kuleshov, N. Fenner and S. Ermon, "Accurate Uncertainties for Deep Learning Using
    Calibrated Regression", ICML 2018.
    Y. Chung, I. Char, H. Guo, J. Schneider and W. Neiswanger, "Uncertainty Toolbox: an
    Open-Source Library for Assessing, Visualizing, and Improving Uncertainty
    Quantification", arXiv:2109.10254, 2021.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skcalib.display import RegressionCalibrationDisplay
    >>> rng = np.random.default_rng(0)
    >>> mu = rng.normal(size=500)
    >>> y = mu + 2.0 * rng.normal(size=500)  # errors twice the predicted std
    >>> disp = RegressionCalibrationDisplay.from_predictions(y, stats.norm(mu, 1.0))
    >>> bool(disp.observed[50] < disp.expected[50])  # intervals too narrow
    True
    >>> plt.close("all")
    """

    def __init__(
        self,
        expected,
        observed,
        *,
        miscalibration_area=None,
        sharpness=None,
        kind="interval",
        estimator_name=None,
    ):
        self.expected = expected
        self.observed = observed
        self.miscalibration_area = miscalibration_area
        self.sharpness = sharpness
        self.kind = kind
        self.estimator_name = estimator_name

    def _label(self, name):
        parts = []
        if self.miscalibration_area is not None:
            parts.append(f"area = {self.miscalibration_area:.3f}")
        if self.sharpness is not None:
            parts.append(f"sharpness = {self.sharpness:.3g}")
        text = ", ".join(parts)
        if name is None:
            return text or None
        return f"{name} ({text})" if text else name

    def plot(self, ax=None, *, name=None, ref_line=True, fill=True, **kwargs):
        """Draw the calibration curve.

        Nothing is computed here.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw (e.g. the ``ax_`` of another display, to compare models).
            When None, a new :mod:`matplotlib.pyplot` figure is created.
        name : str, default=None
            Name of the model in the legend; default ``estimator_name``.
        ref_line : bool, default=True
            Draw the diagonal (once per Axes).
        fill : bool, default=True
            Shade the area between the curve and the diagonal.
        **kwargs : dict
            Style keywords of the curve (:meth:`matplotlib.axes.Axes.plot`), e.g.
            ``color``; they override the display's own style, aliases included.

        Returns
        -------
        display : RegressionCalibrationDisplay
            The object itself, with ``ax_``, ``figure_``, ``line_`` and ``fill_`` set.
        """
        check_matplotlib("RegressionCalibrationDisplay.plot")
        if ax is None:
            _, axes = new_figure(1, 1, figsize=(5.2, 4.8))
            ax = axes[0, 0]
        name = self.estimator_name if name is None else name
        if ref_line and REF_LABEL not in ax.get_legend_handles_labels()[1]:
            ax.plot([0, 1], [0, 1], linestyle=":", color="k", label=REF_LABEL, zorder=1)
        line_kw = {"linewidth": 2}
        label = self._label(name)
        if label is not None:
            line_kw["label"] = label
        (self.line_,) = ax.plot(self.expected, self.observed, **merge_style(line_kw, kwargs))
        self.fill_ = None
        if fill:
            self.fill_ = ax.fill_between(
                self.expected,
                self.observed,
                self.expected,
                color=self.line_.get_color(),
                alpha=0.2,
                linewidth=0,
            )
        what = "inside the central interval" if self.kind == "interval" else "below the quantile"
        ax.set(
            xlim=(-0.02, 1.02),
            ylim=(-0.02, 1.02),
            xlabel="Expected proportion" + (" (interval level)" if self.kind == "interval" else ""),
            ylabel=f"Observed proportion {what}",
            aspect="equal",
        )
        if ax.get_legend_handles_labels()[1]:
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
        n_levels=100,
        kind="interval",
        sample_weight=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the calibration curve of a fitted probabilistic regressor.

        The predictive distributions are ``estimator.predict_distribution(X)`` when it
        has that method (any form of the regression metrics), else the Normal
        distributions of ``predict(X, return_std=True)``
        (:class:`~sklearn.gaussian_process.GaussianProcessRegressor`,
        :class:`~sklearn.linear_model.BayesianRidge`, ...).

        Parameters
        ----------
        estimator : fitted regressor
            A regressor with ``predict_distribution`` or ``predict(X, return_std=True)``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            Observed values.
        n_levels : int, default=100
            Number of levels, ``np.linspace(0, 1, n_levels)``.
        kind : {"interval", "quantile"}, default="interval"
            Central intervals or quantiles.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        name : str, default=None
            Name in the legend; default the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Style keywords of the curve.

        Returns
        -------
        display : RegressionCalibrationDisplay
            The display, drawn.
        """
        y_pred = estimator_distribution(estimator, X, "RegressionCalibrationDisplay.from_estimator")
        return cls.from_predictions(
            y,
            y_pred,
            n_levels=n_levels,
            kind=kind,
            sample_weight=sample_weight,
            name=estimator_name(estimator) if name is None else name,
            ax=ax,
            **kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_pred": "no_validation",
            "n_levels": [Interval(numbers.Integral, 2, None, closed="left")],
            "kind": [StrOptions(set(KINDS))],
            "sample_weight": ["array-like", None],
            "name": [str, None],
        },
        prefer_skip_nested_validation=True,
    )
    def from_predictions(
        cls,
        y_true,
        y_pred,
        *,
        n_levels=100,
        kind="interval",
        sample_weight=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the calibration curve of predictive distributions.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Observed values.
        y_pred : predictive distributions
            A frozen :mod:`scipy.stats` distribution (``scipy.stats.norm(mean, std)``),
            :class:`~skcalib.metrics.PredictiveSamples`,
            :class:`~skcalib.metrics.PredictiveQuantiles`, or the output of a
            recalibrator of :mod:`skcalib.recalibration`.
        n_levels : int, default=100
            Number of levels, ``np.linspace(0, 1, n_levels)``.
        kind : {"interval", "quantile"}, default="interval"
            Central intervals or quantiles.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Style keywords of the curve.

        Returns
        -------
        display : RegressionCalibrationDisplay
            The display, drawn.
        """
        pred = as_predictive(y_pred)
        curve = regression_calibration_curve(
            y_true, pred, n_levels=n_levels, kind=kind, sample_weight=sample_weight
        )
        area = miscalibration_area(
            y_true, pred, n_levels=n_levels, kind=kind, sample_weight=sample_weight
        )
        disp = cls(
            curve.expected,
            curve.observed,
            miscalibration_area=area,
            sharpness=sharpness(pred, sample_weight=sample_weight),
            kind=kind,
            estimator_name=name,
        )
        return disp.plot(ax=ax, name=name, **kwargs)


class PredictionIntervalDisplay:
    """Prediction intervals ordered by prediction, with the observations.

    Each sample is a column: its central prediction interval (shaded), its prediction
    (the line, increasing) and its observation (a dot: filled inside the interval, a
    cross outside).  The legend gives the nominal and the observed coverage
    (:func:`skcalib.metrics.interval_coverage`).  Crosses concentrated where the
    intervals are narrow show uncertainty that does not follow the error; a coverage
    below the nominal one, intervals too narrow overall.

    It is recommended to use :meth:`from_estimator` or :meth:`from_predictions`; all
    parameters are stored as attributes of the same name.

    Parameters
    ----------
    y_true : ndarray of shape (n_samples,)
        Observed values, in the display's order (increasing prediction).
    y_pred : ndarray of shape (n_samples,)
        Predictions (medians; interval midpoints for intervals), increasing.
    lower, upper : ndarray of shape (n_samples,)
        Interval bounds, in the same order.
    coverage : float
        Nominal coverage of the intervals.
    observed_coverage : float, default=None
        Observed coverage (in the legend when given).
    estimator_name : str, default=None
        Name of the model, used in the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes
        Axes with the plot.
    figure_ : matplotlib Figure
        Figure containing the plot.
    fill_ : matplotlib PolyCollection
        The intervals.
    line_ : matplotlib Line2D
        The predictions.
    inside_, outside_ : matplotlib Line2D
        The observations inside and outside their intervals.

    See Also
    --------
    RegressionCalibrationDisplay : Coverage at every level.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skcalib.display import PredictionIntervalDisplay
    >>> rng = np.random.default_rng(0)
    >>> mu = rng.normal(size=200)
    >>> y = mu + rng.normal(size=200)
    >>> disp = PredictionIntervalDisplay.from_predictions(y, stats.norm(mu, 1.0), coverage=0.9)
    >>> round(disp.observed_coverage, 2)
    0.9
    >>> bool(np.all(np.diff(disp.y_pred) >= 0))
    True
    >>> plt.close("all")
    """

    def __init__(
        self,
        y_true,
        y_pred,
        lower,
        upper,
        *,
        coverage,
        observed_coverage=None,
        estimator_name=None,
    ):
        self.y_true = y_true
        self.y_pred = y_pred
        self.lower = lower
        self.upper = upper
        self.coverage = coverage
        self.observed_coverage = observed_coverage
        self.estimator_name = estimator_name

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the intervals, the predictions and the observations.

        Nothing is computed here.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new :mod:`matplotlib.pyplot` figure when None.
        name : str, default=None
            Name of the model in the legend; default ``estimator_name``.
        **kwargs : dict
            Style keywords of the intervals
            (:meth:`matplotlib.axes.Axes.fill_between`), e.g. ``color``, ``alpha``.

        Returns
        -------
        display : PredictionIntervalDisplay
            The object itself, with ``ax_``, ``figure_`` and the artists set.
        """
        check_matplotlib("PredictionIntervalDisplay.plot")
        if ax is None:
            _, axes = new_figure(1, 1, figsize=(7.0, 4.4))
            ax = axes[0, 0]
        name = self.estimator_name if name is None else name
        x = np.arange(len(self.y_pred))
        label = f"{self.coverage:.0%} interval"
        if self.observed_coverage is not None:
            label += f" (observed coverage {self.observed_coverage:.1%})"
        if name is not None:
            label = f"{name}: {label}"
        fill_kw = {"alpha": 0.35, "linewidth": 0, "step": "mid", "label": label}
        self.fill_ = ax.fill_between(x, self.lower, self.upper, **merge_style(fill_kw, kwargs))
        color = self.fill_.get_facecolor()[0][:3]
        (self.line_,) = ax.plot(x, self.y_pred, color=color, linewidth=1.5, label="Prediction")
        inside = (self.lower <= self.y_true) & (self.y_true <= self.upper)
        size = 12 if len(x) <= 300 else 5
        (self.inside_,) = ax.plot(
            x[inside],
            self.y_true[inside],
            linestyle="none",
            marker="o",
            markersize=size**0.5 * 1.2,
            color="k",
            label="Observed, inside",
        )
        (self.outside_,) = ax.plot(
            x[~inside],
            self.y_true[~inside],
            linestyle="none",
            marker="x",
            markersize=size**0.5 * 1.8,
            color="tab:red",
            label="Observed, outside",
        )
        ax.set(xlabel="Samples ordered by prediction", ylabel="y")
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
        coverage=0.9,
        sample_weight=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the prediction intervals of a fitted regressor.

        The intervals are ``estimator.predict_interval(X, coverage=coverage)`` when it
        has that method (:class:`~skcalib.recalibration.RecalibratedRegressor`, also with
        ``method="conformal"``), else the central intervals of
        ``predict_distribution(X)`` or of the Normal distributions of
        ``predict(X, return_std=True)``.

        Parameters
        ----------
        estimator : fitted regressor
            A regressor with ``predict_interval``, ``predict_distribution`` or
            ``predict(X, return_std=True)``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            Observed values.
        coverage : float in (0, 1), default=0.9
            Nominal coverage of the intervals.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights (of the observed coverage).
        name : str, default=None
            Name in the legend; default the estimator's class name.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Style keywords of the intervals.

        Returns
        -------
        display : PredictionIntervalDisplay
            The display, drawn.
        """
        if hasattr(estimator, "predict_interval"):
            y_pred = estimator.predict_interval(X, coverage=coverage)
        else:
            y_pred = estimator_distribution(
                estimator, X, "PredictionIntervalDisplay.from_estimator"
            )
        return cls.from_predictions(
            y,
            y_pred,
            coverage=coverage,
            sample_weight=sample_weight,
            name=estimator_name(estimator) if name is None else name,
            ax=ax,
            **kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_pred": "no_validation",
            "coverage": [Interval(numbers.Real, 0, 1, closed="neither"), None],
            "sample_weight": ["array-like", None],
            "name": [str, None],
        },
        prefer_skip_nested_validation=True,
    )
    def from_predictions(
        cls,
        y_true,
        y_pred,
        *,
        coverage=None,
        sample_weight=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the central prediction intervals of predictive distributions.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Observed values.
        y_pred : predictive distributions or PredictionInterval
            Any form of the regression metrics; the prediction drawn is the median
            (the midpoint of a :class:`~skcalib.metrics.PredictionInterval`).
        coverage : float in (0, 1), default=None
            Nominal coverage of the intervals; default that of a
            :class:`~skcalib.metrics.PredictionInterval`, else 0.9.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights (of the observed coverage).
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        **kwargs : dict
            Style keywords of the intervals.

        Returns
        -------
        display : PredictionIntervalDisplay
            The display, drawn.
        """
        pred = as_predictive(y_pred)
        if isinstance(pred, PredictionInterval):
            c = pred.coverage if coverage is None else float(coverage)
            lower, upper = pred.interval(c)
            center = (lower + upper) / 2.0
        else:
            c = 0.9 if coverage is None else float(coverage)
            lower, upper = pred.interval(c)
            center = pred.ppf([0.5])[:, 0]
        observed = interval_coverage(
            y_true, PredictionInterval(lower, upper, c), sample_weight=sample_weight
        )
        y = np.asarray(y_true, dtype=np.float64).reshape(-1)
        order = np.argsort(center, kind="stable")
        disp = cls(
            y[order],
            center[order],
            lower[order],
            upper[order],
            coverage=c,
            observed_coverage=float(observed),
            estimator_name=name,
        )
        return disp.plot(ax=ax, name=name, **kwargs)
