"""Calibration of probabilistic regression: PIT histogram and quantile calibration."""

from __future__ import annotations

import numbers

import numpy as np

from ..metrics import pit_ensemble, pit_histogram, pit_normal, quantile_calibration_curve
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._base import check_kind, check_matplotlib, estimator_name, merge_style, new_figure
from ._reliability import REF_LABEL, _as_axes_list, place_legend

__all__ = ["PITDisplay"]

KINDS = ("both", "histogram", "quantile")
UNIFORM_LABEL = "Uniform (calibrated)"


class PITDisplay:
    """PIT histogram and calibration curve of the predicted quantiles of a regressor.

    The probability integral transform (PIT) of an observation is the predictive CDF
    at the observed value; it is uniform on [0, 1] when the forecasts are calibrated.
    The left panel is the PIT histogram (:func:`skcalib.metrics.pit_histogram`) with
    the band a uniform sample of the same size stays in; the right panel the observed
    frequency below each predicted quantile against its nominal level
    (:func:`skcalib.metrics.quantile_calibration_curve`), with the diagonal.  A U-shaped
    histogram (an S-shaped curve crossing the diagonal from below) means over-confident
    forecasts, a hump the opposite, a slope a bias.

    It is recommended to use :meth:`from_estimator`, :meth:`from_predictions` (Normal
    forecasts) or :meth:`from_ensemble`; all parameters are stored as attributes of the
    same name.

    Parameters
    ----------
    density : ndarray of shape (n_bins,)
        Height of each bin of the PIT histogram (1 when uniform).
    bin_edges : ndarray of shape (n_bins + 1,)
        Bin edges on [0, 1].
    band_low, band_high : float
        Range of densities that a bin of a uniform sample stays in with probability
        ``confidence_level``.
    levels : ndarray of shape (n_levels,)
        Nominal levels of the predicted quantiles.
    observed_frequency : ndarray of shape (n_levels,)
        Fraction of observations below each predicted quantile.
    observed_low, observed_high : ndarray of shape (n_levels,), default=None
        Pointwise band of calibrated forecasts around the diagonal (drawn when given).
    confidence_level : float, default=0.95
        Level of the bands (for the legend).
    estimator_name : str, default=None
        Name of the model, used in the legend.

    Attributes
    ----------
    ax_ : matplotlib Axes or ndarray of two Axes
        The Axes drawn on.  The layout decides, never the data: ``kind="both"`` has
        two panels, so an object ndarray (histogram, quantile curve), always; a
        single-panel ``kind`` a single Axes.  The artists are single objects (None for
        the panel not drawn).
    figure_ : matplotlib Figure
        Figure containing the plot.
    hist_ : matplotlib StepPatch or None
        The PIT histogram.
    line_ : matplotlib Line2D or None
        The quantile calibration curve.
    band_ : matplotlib artist or None
        The band of the histogram, if this call drew it.

    See Also
    --------
    skcalib.metrics.pit_normal : PIT values of Normal forecasts.
    skcalib.metrics.pit_ensemble : Randomised PIT values of ensembles.

    References
    ----------
    T. Gneiting, F. Balabdaoui and A. E. Raftery, "Probabilistic forecasts, calibration
    and sharpness", Journal of the Royal Statistical Society B 69(2), 2007.
    V. Kuleshov, N. Fenner and S. Ermon, "Accurate Uncertainties for Deep Learning Using
    Calibrated Regression", ICML 2018.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from skcalib.display import PITDisplay
    >>> rng = np.random.default_rng(0)
    >>> y_mean = rng.normal(size=500)
    >>> y_true = y_mean + 2.0 * rng.normal(size=500)  # errors twice the predicted std
    >>> disp = PITDisplay.from_predictions(y_true, y_mean, 1.0)
    >>> bool(disp.density[0] > disp.band_high and disp.density[-1] > disp.band_high)
    True
    >>> plt.close("all")
    """

    def __init__(
        self,
        density,
        bin_edges,
        band_low,
        band_high,
        levels,
        observed_frequency,
        *,
        observed_low=None,
        observed_high=None,
        confidence_level=0.95,
        estimator_name=None,
    ):
        self.density = density
        self.bin_edges = bin_edges
        self.band_low = band_low
        self.band_high = band_high
        self.levels = levels
        self.observed_frequency = observed_frequency
        self.observed_low = observed_low
        self.observed_high = observed_high
        self.confidence_level = confidence_level
        self.estimator_name = estimator_name

    def plot(self, ax=None, *, name=None, kind="both", **kwargs):
        """Draw the PIT histogram and/or the quantile calibration curve.

        Nothing is computed here.

        Parameters
        ----------
        ax : matplotlib Axes or array of two Axes, default=None
            Where to draw: two Axes for ``kind="both"`` (e.g. the ``ax_`` of another
            display, to compare models), one otherwise.  When None, a new
            :mod:`matplotlib.pyplot` figure is created.
        name : str, default=None
            Name of the model in the legend; default ``estimator_name``.
        kind : {"both", "histogram", "quantile"}, default="both"
            Which panels to draw.
        **kwargs : dict
            Style keywords of the histogram (:meth:`matplotlib.axes.Axes.stairs`)
            and of the curve (:meth:`matplotlib.axes.Axes.plot`), e.g. ``color``.
            They override the display's own style, aliases included (``lw=1``
            replaces the default ``linewidth``); an alias and its long name together
            are a ValueError.

        Returns
        -------
        display : PITDisplay
            The object itself, with ``ax_``, ``figure_`` and the artists set.
        """
        check_matplotlib("PITDisplay.plot")
        check_kind(kind, KINDS)
        n = 2 if kind == "both" else 1
        if ax is None:
            _, axes = new_figure(1, n, figsize=(5.0 * n, 4.4))
            axes = list(axes[0])
        else:
            axes = _as_axes_list(ax, n, "ax")
        name = self.estimator_name if name is None else name
        self.hist_ = self.line_ = self.band_ = None
        if kind in ("both", "histogram"):
            self._draw_histogram(axes[0], name, kwargs)
        if kind in ("both", "quantile"):
            self._draw_quantiles(axes[-1], name, kwargs)
        if n == 1:
            self.ax_ = axes[0]
        else:
            self.ax_ = np.empty(2, dtype=object)
            self.ax_[:] = axes
        self.figure_ = axes[0].figure
        return self

    def _draw_histogram(self, ax, name, kwargs):
        labels = ax.get_legend_handles_labels()[1]
        if UNIFORM_LABEL not in labels:
            self.band_ = ax.axhspan(
                self.band_low,
                self.band_high,
                color="0.85",
                zorder=0,
                label=f"{self.confidence_level:.0%} range of a uniform sample",
            )
            ax.axhline(1.0, color="k", linestyle=":", label=UNIFORM_LABEL, zorder=1)
        hist_kw = {"fill": False, "linewidth": 2}
        if name is not None:
            hist_kw["label"] = name
        self.hist_ = ax.stairs(self.density, self.bin_edges, **merge_style(hist_kw, kwargs))
        top = max(float(np.max(self.density)), float(self.band_high), ax.get_ylim()[1] / 1.15)
        ax.set(xlim=(-0.02, 1.02), ylim=(0, 1.15 * top), xlabel="PIT value", ylabel="Density")
        place_legend(ax)

    def _draw_quantiles(self, ax, name, kwargs):
        labels = ax.get_legend_handles_labels()[1]
        if REF_LABEL not in labels:
            if self.observed_low is not None and self.observed_high is not None:
                ax.fill_between(
                    self.levels,
                    self.observed_low,
                    self.observed_high,
                    color="0.85",
                    zorder=0,
                    label=f"{self.confidence_level:.0%} range if calibrated",
                )
            ax.plot([0, 1], [0, 1], linestyle=":", color="k", label=REF_LABEL, zorder=1)
        line_kw = {"marker": "o", "markersize": 4}
        if name is not None:
            line_kw["label"] = name
        (self.line_,) = ax.plot(
            self.levels, self.observed_frequency, **merge_style(line_kw, kwargs)
        )
        ax.set(
            xlim=(-0.02, 1.02),
            ylim=(-0.02, 1.02),
            xlabel="Nominal level of the predicted quantile",
            ylabel="Observed frequency below the quantile",
        )
        place_legend(ax)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def _from_pit(
        cls,
        pit,
        *,
        n_bins,
        levels,
        confidence_level,
        sample_weight,
        name,
        ax,
        kind,
        style,
    ):
        """The display of the PIT values ``pit``, drawn (``style``: keywords of plot)."""
        hist = pit_histogram(
            pit, n_bins=n_bins, confidence_level=confidence_level, sample_weight=sample_weight
        )
        curve = quantile_calibration_curve(
            pit, levels=levels, confidence_level=confidence_level, sample_weight=sample_weight
        )
        disp = cls(
            hist.density,
            hist.bin_edges,
            hist.band_low,
            hist.band_high,
            curve.levels,
            curve.observed_frequency,
            observed_low=curve.band_low,
            observed_high=curve.band_high,
            confidence_level=confidence_level,
            estimator_name=name,
        )
        return disp.plot(ax=ax, name=name, kind=kind, **style)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        n_bins=10,
        levels=None,
        confidence_level=0.95,
        sample_weight=None,
        name=None,
        ax=None,
        kind="both",
        **kwargs,
    ):
        """Plot the PIT diagnostics of a fitted regressor with Normal predictions.

        The estimator must give a predictive mean and standard deviation through
        ``predict(X, return_std=True)``, as
        :class:`sklearn.gaussian_process.GaussianProcessRegressor`,
        :class:`sklearn.linear_model.BayesianRidge` and
        :class:`sklearn.linear_model.ARDRegression` do.

        Parameters
        ----------
        estimator : fitted regressor
            A regressor whose ``predict`` accepts ``return_std=True``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input values.
        y : array-like of shape (n_samples,)
            Observed values.
        n_bins : int, default=10
            Number of bins of the PIT histogram.
        levels : array-like, default=None
            Nominal levels of the quantile curve; default ``np.linspace(0, 1, 21)``.
        confidence_level : float in (0, 1), default=0.95
            Level of the bands of calibrated forecasts.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        name : str, default=None
            Name in the legend; default the estimator's class name.
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw; a new figure when None.
        kind : {"both", "histogram", "quantile"}, default="both"
            Which panels to draw.
        **kwargs : dict
            Keyword arguments of the histogram and of the curve.

        Returns
        -------
        display : PITDisplay
            The display, drawn.
        """
        try:
            y_mean, y_std = estimator.predict(X, return_std=True)
        except TypeError as exc:
            raise ValueError(
                f"PITDisplay.from_estimator needs a regressor whose predict accepts "
                f"return_std=True (e.g. GaussianProcessRegressor, BayesianRidge); "
                f"{type(estimator).__name__}.predict does not ({exc})"
            ) from exc
        return cls.from_predictions(
            y,
            y_mean,
            y_std,
            n_bins=n_bins,
            levels=levels,
            confidence_level=confidence_level,
            sample_weight=sample_weight,
            name=estimator_name(estimator) if name is None else name,
            ax=ax,
            kind=kind,
            **kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_mean": ["array-like", numbers.Real],
            "y_std": ["array-like", numbers.Real],
            "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
            "levels": ["array-like", None],
            "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
            "sample_weight": ["array-like", None],
            "name": [str, None],
            "kind": [StrOptions(set(KINDS))],
        },
        prefer_skip_nested_validation=True,
    )
    def from_predictions(
        cls,
        y_true,
        y_mean,
        y_std,
        *,
        n_bins=10,
        levels=None,
        confidence_level=0.95,
        sample_weight=None,
        name=None,
        ax=None,
        kind="both",
        **kwargs,
    ):
        """Plot the PIT diagnostics of Normal forecasts N(y_mean, y_std^2).

        The PIT values are those of :func:`skcalib.metrics.pit_normal`.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Observed values.
        y_mean : array-like of shape (n_samples,) or float
            Predictive means.
        y_std : array-like of shape (n_samples,) or float
            Predictive standard deviations, strictly positive.
        n_bins : int, default=10
            Number of bins of the PIT histogram.
        levels : array-like, default=None
            Nominal levels of the quantile curve; default ``np.linspace(0, 1, 21)``.
        confidence_level : float in (0, 1), default=0.95
            Level of the bands of calibrated forecasts.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw; a new figure when None.
        kind : {"both", "histogram", "quantile"}, default="both"
            Which panels to draw.
        **kwargs : dict
            Keyword arguments of the histogram and of the curve.

        Returns
        -------
        display : PITDisplay
            The display, drawn.
        """
        return cls._from_pit(
            pit_normal(y_true, y_mean, y_std),
            n_bins=n_bins,
            levels=levels,
            confidence_level=confidence_level,
            sample_weight=sample_weight,
            name=name,
            ax=ax,
            kind=kind,
            style=kwargs,
        )

    @classmethod
    @validate_params(
        {
            "y_true": ["array-like"],
            "y_samples": ["array-like"],
            "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
            "levels": ["array-like", None],
            "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
            "sample_weight": ["array-like", None],
            "random_state": ["random_state"],
            "name": [str, None],
            "kind": [StrOptions(set(KINDS))],
        },
        prefer_skip_nested_validation=True,
    )
    def from_ensemble(
        cls,
        y_true,
        y_samples,
        *,
        n_bins=10,
        levels=None,
        confidence_level=0.95,
        sample_weight=None,
        random_state=None,
        name=None,
        ax=None,
        kind="both",
        **kwargs,
    ):
        """Plot the PIT diagnostics of ensemble or sample forecasts.

        The PIT values are the randomised ranks of
        :func:`skcalib.metrics.pit_ensemble` (exactly uniform for a calibrated
        ensemble, even with few members).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            Observed values.
        y_samples : array-like of shape (n_samples, n_draws)
            Draws from each predictive distribution (or the ensemble members'
            predictions).
        n_bins : int, default=10
            Number of bins of the PIT histogram.
        levels : array-like, default=None
            Nominal levels of the quantile curve; default ``np.linspace(0, 1, 21)``.
        confidence_level : float in (0, 1), default=0.95
            Level of the bands of calibrated forecasts.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative sample weights.
        random_state : int, RandomState instance or None, default=None
            Seeds the randomisation of ties and of the rank cells.
        name : str, default=None
            Name of the model in the legend.
        ax : matplotlib Axes or array of Axes, default=None
            Where to draw; a new figure when None.
        kind : {"both", "histogram", "quantile"}, default="both"
            Which panels to draw.
        **kwargs : dict
            Keyword arguments of the histogram and of the curve.

        Returns
        -------
        display : PITDisplay
            The display, drawn.
        """
        return cls._from_pit(
            pit_ensemble(y_true, y_samples, random_state=random_state),
            n_bins=n_bins,
            levels=levels,
            confidence_level=confidence_level,
            sample_weight=sample_weight,
            name=name,
            ax=ax,
            kind=kind,
            style=kwargs,
        )
