"""Smooth calibration error (smECE) and its kernel-smoothed reliability curve.

Blasiok and Nakkiran (2023): the residuals ``y - p`` are smoothed with a Gaussian kernel
reflected at 0 and 1, and the smooth ECE at bandwidth ``sigma`` is the integral of the
absolute smoothed residual.  The bandwidth is the fixed point ``sigma = smECE_sigma``,
which makes the measure consistent (a continuous function of the predictor) without a
bin count to choose.

Implementation: the (weighted) masses and residual masses are spread onto a uniform grid
of ``G`` points by linear interpolation in one pass over the data; every bandwidth
evaluated by the fixed-point search is then one FFT convolution on the grid (the mirror
extension of the grid is periodic, so the reflected kernel with all its reflections is a
circular convolution), independent of the number of samples.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import optimize

from ..._core._validation import check_classification_input, iter_row_chunks
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import SmoothReliabilityCurveResult
from ._statistical import _DATA, conf_outcome

__all__ = ["smooth_calibration_error", "smooth_reliability_curve"]

#: smallest bandwidth of the automatic search (as relplot's ``eps``)
MIN_BANDWIDTH = 1e-3
#: grid intervals of the first pass; refined for small bandwidths
_BASE_INTERVALS = 2048
_MAX_INTERVALS = 1 << 15
#: grid intervals per bandwidth below which the grid is refined
_POINTS_PER_SIGMA = 20


class _Grid:
    """Masses and residual masses of the data on a uniform grid of [0, 1]."""

    def __init__(self, p, y, w, intervals):
        self.intervals = intervals
        G = intervals + 1
        self.mass = np.zeros(G)
        self.resid = np.zeros(G)
        # chunked, so that the temporaries stay small whatever the number of samples
        for start, stop in iter_row_chunks(p.shape[0], 8):
            pc = p[start:stop]
            x = pc * intervals
            lo = np.minimum(x.astype(np.intp), intervals - 1)
            frac = x - lo
            mass = np.ones_like(pc) if w is None else w[start:stop]
            res = y[start:stop] - pc
            if w is not None:
                res *= mass
            right = frac * mass
            self.mass += np.bincount(lo, weights=mass - right, minlength=G)
            self.mass += np.bincount(lo + 1, weights=right, minlength=G)
            np.multiply(frac, res, out=right)
            self.resid += np.bincount(lo, weights=res - right, minlength=G)
            self.resid += np.bincount(lo + 1, weights=right, minlength=G)
        # mirror extension: periodic with period 2 * intervals
        self._mass_hat = np.fft.rfft(self._mirror(self.mass))
        self._resid_hat = np.fft.rfft(self._mirror(self.resid))
        L = 2 * intervals
        # frequencies in cycles per unit of t (the period is 2 in t)
        self._freq2 = (np.arange(L // 2 + 1) / 2.0) ** 2

    @staticmethod
    def _mirror(v):
        return np.concatenate([v, v[-2:0:-1]])

    def smooth(self, sigma):
        """(residual, mass) smoothed with the reflected Gaussian of bandwidth sigma."""
        gain = np.exp(-2.0 * np.pi**2 * sigma**2 * self._freq2)
        G = self.intervals + 1
        n = 2 * self.intervals
        r = np.fft.irfft(self._resid_hat * gain, n=n)[:G]
        d = np.fft.irfft(self._mass_hat * gain, n=n)[:G]
        return r, d

    def smece(self, sigma):
        r, d = self.smooth(sigma)
        num = np.abs(r)
        den = np.abs(d)
        # trapezoid rule on the uniform grid (the spacing cancels)
        num_t = num.sum() - 0.5 * (num[0] + num[-1])
        den_t = den.sum() - 0.5 * (den[0] + den[-1])
        return float(num_t / den_t) if den_t > 0 else 0.0


def _intervals_for(sigma):
    need = int(np.ceil(_POINTS_PER_SIGMA / sigma))
    return int(min(_MAX_INTERVALS, max(_BASE_INTERVALS, 1 << (need - 1).bit_length())))


def _fixed_point(grid):
    """Bandwidth sigma in [MIN_BANDWIDTH, 1] with smECE_sigma = sigma."""

    def h(s):
        return grid.smece(s) - s

    if h(1.0) >= 0:
        return 1.0
    if h(MIN_BANDWIDTH) <= 0:
        return MIN_BANDWIDTH
    return float(optimize.brentq(h, MIN_BANDWIDTH, 1.0, xtol=1e-14, rtol=1e-12, maxiter=200))


def _smooth_fit(y_true, y_proba, bandwidth, multiclass, sample_weight, labels, pos_label):
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )
    p, y = conf_outcome(data, multiclass)
    w = data.sample_weight
    if w is not None and not (w > 0).all():
        keep = w > 0
        p, y, w = p[keep], y[keep], w[keep]
    if isinstance(bandwidth, str):  # "auto"
        grid = _Grid(p, y, w, _BASE_INTERVALS)
        sigma = _fixed_point(grid)
        intervals = _intervals_for(sigma)
        if intervals > grid.intervals:
            grid = _Grid(p, y, w, intervals)
            sigma = _fixed_point(grid)
    else:
        sigma = float(bandwidth)
        grid = _Grid(p, y, w, _intervals_for(sigma))
    return grid, sigma


_SMOOTH_PARAMS = {
    **_DATA,
    "bandwidth": [StrOptions({"auto"}), Interval(numbers.Real, 0, None, closed="neither")],
    "multiclass": [StrOptions({"auto", "top_label"})],
}


@validate_params(_SMOOTH_PARAMS, prefer_skip_nested_validation=True)
def smooth_calibration_error(
    y_true,
    y_proba,
    *,
    bandwidth="auto",
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Smooth expected calibration error (smECE) of Blasiok and Nakkiran (2023).

    With the residuals ``r_i = y_i - p_i``, weights ``w_i`` (total ``W``) and the
    Gaussian kernel of bandwidth ``sigma`` reflected at 0 and 1, ``K_sigma``,

    .. math::

        \mathrm{smECE}_\sigma = \int_0^1 \Bigl\lvert \frac{1}{W} \sum_i w_i\,
            K_\sigma(t, p_i)\, r_i \Bigr\rvert \, dt ,

    the integral of the absolute kernel-smoothed residual against the kernel density of
    the predictions.  With ``bandwidth="auto"`` the bandwidth is the unique fixed point
    ``sigma* = smECE_{sigma*}`` (the function is non-increasing in ``sigma``), searched
    in ``[0.001, 1]`` as in the authors' ``relplot`` package, and the value is
    ``smECE_{sigma*}``.  It needs no bin count, is continuous in the predictions, and
    lies within constant factors of the distance to the nearest calibrated predictor.

    Numerically, the masses are interpolated linearly onto a uniform grid (of at least
    2,049 points and at least 20 points per bandwidth) and smoothed by FFT, with every
    reflection of the kernel; relplot truncates to one reflection on each side and
    evaluates on a grid of its own, so values agree within a few percent.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    bandwidth : "auto" or float > 0, default="auto"
        The kernel bandwidth ``sigma``; "auto" solves ``sigma = smECE_sigma``.
    multiclass : {"auto", "top_label"}, default="auto"
        "auto": the positive-class probability of a binary problem, the top-label
        confidence against correctness otherwise (relplot's
        ``multiclass_logits_to_confidences``).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights (weight ``w`` is ``w`` repetitions of the sample).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The smooth ECE, in [0, 1].

    See Also
    --------
    smooth_reliability_curve : The smoothed curve and the bandwidth.

    References
    ----------
    Blasiok and Nakkiran, "Smooth ECE: Principled Reliability Diagrams via Kernel
    Smoothing", arXiv:2309.12236, 2023 (and the ``relplot`` package, ``relplot/metrics.py``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import smooth_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(10_000)
    >>> y = (rng.random(10_000) < p**2).astype(int)
    >>> round(smooth_calibration_error(y, p), 3)  # the L1 distance E|p - p**2| is 1/6
    0.177
    """
    grid, sigma = _smooth_fit(
        y_true, y_proba, bandwidth, multiclass, sample_weight, labels, pos_label
    )
    return min(max(grid.smece(sigma), 0.0), 1.0)


@validate_params(
    {**_SMOOTH_PARAMS, "n_points": [Interval(numbers.Integral, 2, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def smooth_reliability_curve(
    y_true,
    y_proba,
    *,
    bandwidth="auto",
    n_points=101,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Kernel-smoothed reliability curve of the smooth ECE.

    At each point ``t`` of ``[0, 1]`` the observed frequency is estimated by the
    Nadaraya-Watson smoother with the reflected Gaussian kernel of
    :func:`smooth_calibration_error`:

    .. math::

        \hat y(t) = t + \frac{\sum_i w_i K_\sigma(t, p_i)(y_i - p_i)}
            {\sum_i w_i K_\sigma(t, p_i)},

    drawn against the kernel density of the predictions (where the density is
    negligible the curve is not estimated).  The smooth ECE is the integral of
    ``|y_hat(t) - t|`` against that density.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    bandwidth : "auto" or float > 0, default="auto"
        The kernel bandwidth; "auto" is the fixed point of the smooth ECE.
    n_points : int, default=101
        Number of evaluation points, evenly spaced on [0, 1].
    multiclass : {"auto", "top_label"}, default="auto"
        What is smoothed; see :func:`smooth_calibration_error`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    curve : SmoothReliabilityCurveResult
        Unpacks as ``(prob_true, prob_pred)``, in the order of
        :func:`reliability_curve`; all are attributes: ``prob_pred`` (the points
        ``t``), ``prob_true`` (the smoothed frequency, clipped to [0, 1] -- near 0 and
        1 the smoother of the residuals can step outside; NaN where the density is
        below 1e-9 of its maximum), ``density`` (the kernel density of the
        predictions, integrating to 1 on [0, 1]), ``bandwidth`` and ``smece``.

    References
    ----------
    Blasiok and Nakkiran, "Smooth ECE: Principled Reliability Diagrams via Kernel
    Smoothing", arXiv:2309.12236, 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import smooth_reliability_curve
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(10_000)
    >>> y = (rng.random(10_000) < p**2).astype(int)
    >>> curve = smooth_reliability_curve(y, p, n_points=5, bandwidth=0.05)
    >>> prob_true, prob_pred = curve
    >>> prob_pred
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> np.round(prob_true, 2)  # the true curve is p**2
    array([0.  , 0.07, 0.25, 0.54, 0.94])
    >>> curve.bandwidth
    0.05
    """
    grid, sigma = _smooth_fit(
        y_true, y_proba, bandwidth, multiclass, sample_weight, labels, pos_label
    )
    r, d = grid.smooth(sigma)
    tg = np.linspace(0.0, 1.0, grid.intervals + 1)
    ok = d > 1e-9 * d.max()
    ratio = np.full_like(d, np.nan)
    np.divide(r, d, out=ratio, where=ok)
    t = np.linspace(0.0, 1.0, n_points)
    idx = np.clip(np.rint(t * grid.intervals).astype(np.intp), 0, grid.intervals)
    exact = np.isclose(tg[idx], t, rtol=0, atol=1e-12)
    rt = np.where(exact, ratio[idx], np.interp(t, tg, np.where(ok, ratio, 0.0)))
    dens_full = np.clip(d, 0.0, None)
    area = (dens_full.sum() - 0.5 * (dens_full[0] + dens_full[-1])) / grid.intervals
    dens = np.interp(t, tg, dens_full) / area
    okt = np.interp(t, tg, ok.astype(float)) > 0.999
    prob_true = np.where(okt, np.clip(t + rt, 0.0, 1.0), np.nan)
    return SmoothReliabilityCurveResult(
        prob_true=prob_true,
        prob_pred=t,
        density=dens,
        bandwidth=float(sigma),
        smece=min(max(grid.smece(sigma), 0.0), 1.0),
    )
