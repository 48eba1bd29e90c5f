"""Proper scoring rules and calibration checks for probabilistic regression.

* :func:`crps_normal`: closed-form continuous ranked probability score of Normal forecasts.
* :func:`crps_ensemble`: CRPS of a predictive sample (ensemble), exact all-pairs
  estimator computed from the sorted sample in ``O(m log m)`` per row; ``fair=True`` gives
  the unbiased ("fair") variant.
* :func:`interval_score`: the interval score of prediction intervals (their coverage:
  :func:`interval_coverage` in the module of the general metrics).
* :func:`quantile_score`: pinball (quantile) loss of predicted quantiles.
* :func:`pit_normal`, :func:`pit_ensemble`: probability integral transform values, which
  are uniform on [0, 1] for a calibrated forecaster.
* :func:`normal_negative_log_likelihood`: logarithmic score of Normal forecasts.

All kernels read their inputs in cache-sized chunks of rows: peak extra memory stays a
few hundred kilobytes (plus the output for ``aggregate=False``), and the user's arrays are
never modified (samples are sorted in a chunk buffer).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import erf, ndtr
from sklearn.utils import check_random_state

from ..._core._validation import (
    _as_float,
    _check_positive,
    _check_real_array,
    _find_nonfinite,
    _to_numpy,
    check_sample_weight,
    iter_row_chunks,
)
from ...utils._sklearn_compat import Interval, validate_params

__all__ = [
    "crps_normal",
    "crps_ensemble",
    "interval_score",
    "quantile_score",
    "pit_normal",
    "pit_ensemble",
    "normal_negative_log_likelihood",
]

_SQRT2 = math.sqrt(2.0)
_INV_SQRT2 = 1.0 / _SQRT2
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)

#: rows per chunk of the element-wise kernels (three float64 buffers stay in L2)
_ELEMWISE_CHUNK = 1 << 14
#: bytes per chunk of the ensemble kernels
_ENSEMBLE_CHUNK_BYTES = 1 << 19


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def _chunk(a, start, stop):
    return a if a.ndim == 0 else a[start:stop]


def _finish(total, out, sw, n, aggregate):
    if not aggregate:
        return out
    return float(total / (n if sw is None else float(sw.sum())))


def _check_all_finite(*pairs):
    for arr, name in pairs:
        _find_nonfinite(arr, name)


_REG_CONSTRAINTS = {
    "y_true": ["array-like"],
    "sample_weight": ["array-like", None],
    "aggregate": ["boolean"],
}


# --------------------------------------------------------------------------------------
# CRPS of Normal forecasts
# --------------------------------------------------------------------------------------


def _crps_normal_kernel(y, mu, sd, sw, aggregate):
    """sqrt(2) * sd * (u erf(u) + exp(-u^2)/sqrt(pi) - 1/sqrt(2 pi)), u = (y-mu)/(sd sqrt 2).

    This is ``sd * (z (2 Phi(z) - 1) + 2 phi(z) - 1/sqrt(pi))`` with ``z = sqrt(2) u``,
    using ``z (2 Phi(z) - 1) = sqrt(2) u erf(u)``; every operation is done in place on
    float64 chunk buffers.
    """
    n = y.shape[0]
    out = None if aggregate else np.empty(n, dtype=np.float64)
    size = min(n, _ELEMWISE_CHUNK)
    bu = np.empty(size)
    be = np.empty(size)
    bt = np.empty(size)
    total = 0.0
    with np.errstate(all="ignore"):
        for start in range(0, n, size):
            stop = min(start + size, n)
            m = stop - start
            sc = _chunk(sd, start, stop)
            if not sc.min() > 0:
                _check_all_finite((y, "y_true"), (mu, "y_mean"))
                _check_positive(sd, "y_std")
            u, e, t = bu[:m], be[:m], bt[:m]
            np.subtract(y[start:stop], _chunk(mu, start, stop), out=u, dtype=np.float64)
            np.divide(u, sc, out=u, dtype=np.float64)
            u *= _INV_SQRT2
            erf(u, out=e)
            e *= u
            np.multiply(u, u, out=t)
            np.negative(t, out=t)
            np.exp(t, out=t)
            t *= _INV_SQRT_PI
            e += t
            e -= _INV_SQRT_2PI
            np.multiply(e, sc, out=e, dtype=np.float64)
            if aggregate:
                total += float(e.sum() if sw is None else np.dot(e, sw[start:stop]))
            else:
                np.multiply(e, _SQRT2, out=out[start:stop])
                total += float(e.sum())
    mean = total / (n if sw is None else float(sw.sum())) * _SQRT2
    if not math.isfinite(mean):
        _check_all_finite((y, "y_true"), (mu, "y_mean"), (sd, "y_std"))
        # finite inputs but an overflow (e.g. a subnormal y_std): rare, slow path
        return _crps_normal_robust(y, mu, sd, sw, aggregate)
    return (mean, None) if aggregate else (None, out)


def _crps_normal_robust(y, mu, sd, sw, aggregate):
    """Per-sample CRPS guarding against overflow of ``z = (y - mu) / sd``.

    Where ``z`` overflows, ``|z|`` is so large that ``CRPS = |y - mu| - sd / sqrt(pi)``
    to double precision (the remaining terms are ``O(sd exp(-z^2/2) / z^2)``).
    """
    with np.errstate(all="ignore"):
        diff = np.subtract(y, mu, dtype=np.float64)
        sdb = np.broadcast_to(sd, diff.shape).astype(np.float64)
        z = diff / sdb
        out = sdb * (
            z * (2.0 * ndtr(z) - 1.0) + 2.0 * _INV_SQRT_2PI * np.exp(-0.5 * z * z) - _INV_SQRT_PI
        )
        bad = ~np.isfinite(out)
        out[bad] = np.abs(diff[bad]) - sdb[bad] * _INV_SQRT_PI
        if not aggregate:
            return None, out
        wn = np.full(out.shape, 1.0 / out.shape[0]) if sw is None else sw / sw.sum()
        return float(np.dot(out, wn)), None


@validate_params(
    {
        **_REG_CONSTRAINTS,
        "y_mean": ["array-like", numbers.Real],
        "y_std": ["array-like", numbers.Real],
    },
    prefer_skip_nested_validation=True,
)
def crps_normal(y_true, y_mean, y_std, *, sample_weight=None, aggregate=True):
    r"""Compute the continuous ranked probability score of Normal predictive distributions.

    For a forecast :math:`\mathcal N(\mu, \sigma^2)` and observation :math:`y`, with
    :math:`z = (y - \mu) / \sigma`, the CRPS
    :math:`\int_{-\infty}^{\infty} (F(x) - \mathbb 1\{x \ge y\})^2\,dx` has the closed form
    (Gneiting et al. 2005)

    .. math::

        \mathrm{CRPS}(\mathcal N(\mu,\sigma^2), y) =
            \sigma\Bigl[z\bigl(2\Phi(z) - 1\bigr) + 2\varphi(z) - \frac{1}{\sqrt\pi}\Bigr].

    It is in the units of ``y`` and reduces to the absolute error as
    :math:`\sigma \to 0`.  Like every proper scoring rule in skcalib it keeps its name
    from the literature and is negatively oriented: **lower is better**.  Its scorer
    ``"neg_crps_normal"`` negates it, so that greater is better as for every
    scikit-learn scorer (``"crps"``, the scorer of :func:`crps`, gives the same values
    for Normal forecasts).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_mean : array-like of shape (n_samples,) or float
        Predictive means.
    y_std : array-like of shape (n_samples,) or float
        Predictive standard deviations, strictly positive (as returned by
        ``predict(X, return_std=True)``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored when ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean CRPS; False returns the per-sample values.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The (weighted) mean CRPS, or the per-sample values with ``aggregate=False``.

    References
    ----------
    T. Gneiting, A. E. Raftery, A. H. Westveld and T. Goldman (2005). Calibrated
    probabilistic forecasting using ensemble model output statistics and minimum CRPS
    estimation. Monthly Weather Review 133(5), 1098-1118.

    Examples
    --------
    >>> from skcalib.metrics import crps_normal
    >>> crps_normal([0.0, 1.0, -2.0], [0.0, 0.0, 0.5], [1.0, 2.0, 0.5], aggregate=False)
    array([0.23369498, 0.66280706, 2.21790526])
    >>> crps_normal([0.0, 1.0], 0.0, 1.0)
    0.4...
    """
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    mu = _check_real_array(y_mean, "y_mean", n=n, allow_scalar=True)
    sd = _check_real_array(y_std, "y_std", n=n, allow_scalar=True)
    sw = check_sample_weight(sample_weight, n)
    mean, out = _crps_normal_kernel(y, mu, sd, sw, aggregate)
    return float(mean) if aggregate else out


# --------------------------------------------------------------------------------------
# CRPS of an ensemble
# --------------------------------------------------------------------------------------


def _crps_ensemble_kernel(y, S, fair, sw, aggregate):
    """Sorted-sample CRPS, chunked over rows.

    For each row, the sample is copied into a float64 buffer, sorted in place, shifted by
    ``y`` (the spread term is shift-invariant; centring improves its accuracy), then
    ``sum_i (2i - m - 1) x_(i)`` (= half the all-pairs sum ``sum_jk |x_j - x_k|``) and
    ``sum_j |x_j - y|`` are two matrix-vector products.
    """
    n, m = S.shape
    coef = 2.0 * np.arange(1, m + 1, dtype=np.float64) - (m + 1)
    ones = np.ones(m)
    denom = float(m * (m - 1)) if fair else float(m * m)
    out = None if aggregate else np.empty(n, dtype=np.float64)
    total = 0.0
    buf = None
    with np.errstate(all="ignore"):
        for start, stop in iter_row_chunks(n, 8 * m, _ENSEMBLE_CHUNK_BYTES):
            r = stop - start
            if buf is None:
                buf = np.empty((r, m), dtype=np.float64)
            b = buf[:r]
            np.copyto(b, S[start:stop])
            b.sort(axis=1)
            b -= y[start:stop, None]
            spread = b @ coef
            np.abs(b, out=b)
            crps = b @ ones
            crps *= 1.0 / m
            spread *= 1.0 / denom
            crps -= spread
            s = float(crps.sum())
            if not math.isfinite(s):
                _check_all_finite((y, "y_true"), (S, "y_samples"))
                raise ValueError(
                    "y_true and y_samples are too large in magnitude: the CRPS overflows "
                    "float64; rescale the data"
                )
            if aggregate:
                total += s if sw is None else float(np.dot(crps, sw[start:stop]))
            else:
                out[start:stop] = crps
    return total, out


@validate_params(
    {
        **_REG_CONSTRAINTS,
        "y_samples": ["array-like"],
        "fair": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def crps_ensemble(y_true, y_samples, *, fair=False, sample_weight=None, aggregate=True):
    r"""Compute the continuous ranked probability score of a predictive sample (ensemble).

    The CRPS of the empirical distribution of the draws :math:`x_1, \dots, x_m` is

    .. math::

        \mathrm{CRPS} = \frac{1}{m}\sum_{j=1}^{m} \lvert x_j - y \rvert
            - \frac{1}{2m^2}\sum_{j=1}^{m}\sum_{k=1}^{m} \lvert x_j - x_k \rvert,

    the exact all-pairs estimator (``fair=False``).  ``fair=True`` divides the spread
    term by :math:`2m(m-1)` instead of :math:`2m^2`: the "fair" CRPS (Ferro 2014), an
    unbiased estimator of the CRPS of the distribution the draws come from (needs
    ``m >= 2``).  The all-pairs sum is computed from the sorted draws,
    :math:`\sum_{j,k}\lvert x_j - x_k\rvert = 2\sum_{i=1}^{m}(2i - m - 1)\,x_{(i)}`, in
    :math:`O(m \log m)` per sample rather than :math:`O(m^2)`.  The CRPS keeps its name
    from the literature and is negatively oriented: **lower is better** (a scorer made
    from it must negate it, ``make_scorer(crps_ensemble, greater_is_better=False)``, as
    skcalib's ``neg_*`` scorers do).

    ``uncertainty_metrics.crps_score`` estimates the spread from circularly adjacent
    pairs only (``x_j`` and ``x_{j-1 mod m}``), which depends on the order of the draws;
    on ``y = [0, 1]``, ``y_samples = [[-1, 0, 1, 2], [.5, .5, 1.5, 3]]`` it gives
    ``[0.25, 0.25]`` where this estimator gives ``[0.375, 0.34375]`` (fair:
    ``[1/6, 1/6]``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_samples : array-like of shape (n_samples, n_draws)
        Draws from each sample's predictive distribution (or ensemble members).
    fair : bool, default=False
        Use the unbiased (fair) spread term.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored when ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean CRPS; False returns the per-sample values.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The (weighted) mean CRPS, or the per-sample values with ``aggregate=False``.

    References
    ----------
    T. Gneiting and A. E. Raftery (2007). Strictly proper scoring rules, prediction, and
    estimation. JASA 102(477), 359-378.

    C. A. T. Ferro (2014). Fair scores for ensemble forecasts. QJRMS 140, 1917-1923.

    Examples
    --------
    >>> from skcalib.metrics import crps_ensemble
    >>> y_samples = [[-1, 0, 1, 2], [0.5, 0.5, 1.5, 3]]
    >>> crps_ensemble([0, 1], y_samples, aggregate=False)
    array([0.375  , 0.34375])
    >>> crps_ensemble([0, 1], y_samples, fair=True, aggregate=False)
    array([0.16666667, 0.16666667])
    """
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    S = _check_real_array(y_samples, "y_samples", ndim=2, n=n)
    if fair and S.shape[1] < 2:
        raise ValueError(f"fair=True needs at least 2 draws per sample, y_samples has {S.shape[1]}")
    sw = check_sample_weight(sample_weight, n)
    total, out = _crps_ensemble_kernel(y, S, fair, sw, aggregate)
    return _finish(total, out, sw, n, aggregate)


# --------------------------------------------------------------------------------------
# prediction intervals and quantiles
# --------------------------------------------------------------------------------------


def _check_interval(y_true, y_lower, y_upper):
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    lo = _check_real_array(y_lower, "y_lower", n=n, allow_scalar=True)
    hi = _check_real_array(y_upper, "y_upper", n=n, allow_scalar=True)
    _check_all_finite((y, "y_true"), (lo, "y_lower"), (hi, "y_upper"))
    bad = np.asarray(lo > hi)
    if bad.any():
        i = int(np.flatnonzero(np.broadcast_to(bad, y.shape))[0])
        lv = float(np.broadcast_to(lo, y.shape)[i])
        hv = float(np.broadcast_to(hi, y.shape)[i])
        raise ValueError(
            f"y_lower must not exceed y_upper; at index {i} y_lower = {lv!r} > y_upper = {hv!r}"
        )
    return y, lo, hi


@validate_params(
    {
        **_REG_CONSTRAINTS,
        "y_lower": ["array-like", numbers.Real],
        "y_upper": ["array-like", numbers.Real],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def interval_score(y_true, y_lower, y_upper, *, alpha, sample_weight=None, aggregate=True):
    r"""Compute the interval score of central ``(1 - alpha)`` prediction intervals.

    .. math::

        \mathrm{IS}_\alpha(l, u; y) = (u - l)
            + \frac{2}{\alpha}(l - y)\,\mathbb 1\{y < l\}
            + \frac{2}{\alpha}(y - u)\,\mathbb 1\{y > u\}.

    A proper score for the pair of ``alpha/2`` and ``1 - alpha/2`` quantiles: it rewards
    narrow intervals and penalises observations outside them in proportion to the miss.
    Units of ``y``.  It equals ``(2 / alpha)`` times the sum of the pinball losses of the
    two quantiles (see :func:`quantile_score`).  Like every proper scoring rule in
    skcalib it keeps its name from the literature and is negatively oriented: **lower is
    better** (a scorer made from it must negate it, as skcalib's ``neg_*`` scorers do).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_lower : array-like of shape (n_samples,) or float
        Lower interval bounds (the ``alpha/2`` quantiles).
    y_upper : array-like of shape (n_samples,) or float
        Upper interval bounds (the ``1 - alpha/2`` quantiles), ``y_lower <= y_upper``.
    alpha : float in (0, 1)
        Nominal miscoverage: the bounds are the ``alpha/2`` and ``1 - alpha/2``
        quantiles (``alpha=0.1`` for 90% intervals).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored when ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; False returns the per-sample values.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The (weighted) mean interval score, or the per-sample values with
        ``aggregate=False``.

    References
    ----------
    T. Gneiting and A. E. Raftery (2007). Strictly proper scoring rules, prediction, and
    estimation. JASA 102(477), 359-378, Section 6.2.

    Examples
    --------
    >>> from skcalib.metrics import interval_score
    >>> interval_score([0.0, 2.0, -3.0], [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0],
    ...                alpha=0.5, aggregate=False)
    array([ 2.,  6., 10.])
    """
    y, lo, hi = _check_interval(y_true, y_lower, y_upper)
    n = y.shape[0]
    sw = check_sample_weight(sample_weight, n)
    lo64 = lo.astype(np.float64)
    hi64 = hi.astype(np.float64)
    y64 = y.astype(np.float64, copy=False)
    s = np.broadcast_to(hi64 - lo64, y.shape).astype(np.float64)
    s += (2.0 / alpha) * (np.maximum(lo64 - y64, 0.0) + np.maximum(y64 - hi64, 0.0))
    total = float(s.sum() if sw is None else np.dot(s, sw))
    return _finish(total, s, sw, n, aggregate)


@validate_params(
    {
        **_REG_CONSTRAINTS,
        "y_quantiles": ["array-like"],
        "quantiles": ["array-like", Interval(numbers.Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def quantile_score(y_true, y_quantiles, *, quantiles, sample_weight=None, aggregate=True):
    r"""Compute the quantile (pinball) score of predicted quantiles, averaged over levels.

    For a predicted ``tau``-quantile :math:`q` and observation :math:`y`

    .. math::

        \rho_\tau(y, q) = (\mathbb 1\{y < q\} - \tau)(q - y)
            = \max\bigl(\tau (y - q), (\tau - 1)(y - q)\bigr),

    a consistent scoring function for the ``tau``-quantile.  With several levels the
    per-sample value is the mean over levels; for one level the aggregate equals
    :func:`sklearn.metrics.mean_pinball_loss` with ``alpha=tau``.  Twice the mean over a
    fine, evenly spaced grid of levels approximates the CRPS.  Like every proper scoring
    rule in skcalib it keeps its name from the literature and is negatively oriented:
    **lower is better** (a scorer made from it must negate it, as skcalib's ``neg_*``
    scorers do).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_quantiles : array-like of shape (n_samples,) or (n_samples, n_quantiles)
        Predicted quantiles, one column per level.
    quantiles : float or array-like of shape (n_quantiles,)
        Quantile levels in (0, 1), in the column order of ``y_quantiles``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored when ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; False returns the per-sample values (each the mean
        over the quantile levels).

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The (weighted) mean quantile score, or the per-sample values with
        ``aggregate=False``.

    References
    ----------
    R. Koenker and G. Bassett (1978). Regression quantiles. Econometrica 46(1), 33-50.

    Examples
    --------
    >>> from skcalib.metrics import quantile_score
    >>> quantile_score([1.0, 2.0], [[0.0, 2.0], [1.0, 3.0]], quantiles=[0.1, 0.9])
    0.1
    """
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    Q = _as_float(_to_numpy(y_quantiles, "y_quantiles"), "y_quantiles")
    if Q.ndim == 1:
        Q = Q[:, None]
    Q = _check_real_array(Q, "y_quantiles", ndim=2, n=n)
    taus = np.atleast_1d(np.asarray(quantiles, dtype=np.float64))
    if taus.ndim != 1 or taus.shape[0] != Q.shape[1]:
        raise ValueError(
            f"quantiles must have one level per column of y_quantiles ({Q.shape[1]}), "
            f"got {taus.tolist()!r}"
        )
    if not np.all((taus > 0) & (taus < 1)):
        raise ValueError(f"quantiles must lie in (0, 1), got {taus.tolist()!r}")
    _check_all_finite((y, "y_true"), (Q, "y_quantiles"))
    sw = check_sample_weight(sample_weight, n)
    diff = y.astype(np.float64)[:, None] - Q  # y - q
    loss = np.maximum(taus * diff, (taus - 1.0) * diff).mean(axis=1)
    total = float(loss.sum() if sw is None else np.dot(loss, sw))
    return _finish(total, loss, sw, n, aggregate)


# --------------------------------------------------------------------------------------
# probability integral transform
# --------------------------------------------------------------------------------------


@validate_params(
    {
        "y_true": ["array-like"],
        "y_mean": ["array-like", numbers.Real],
        "y_std": ["array-like", numbers.Real],
    },
    prefer_skip_nested_validation=True,
)
def pit_normal(y_true, y_mean, y_std):
    r"""Compute the probability integral transform of Normal forecasts.

    The values are :math:`\Phi((y - \mu)/\sigma)`.  If the forecasts are calibrated
    they are uniform on [0, 1]; a histogram of
    them (the PIT histogram) is U-shaped for over-confident forecasts (intervals too
    narrow), hump-shaped for under-confident ones and sloped for biased ones.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_mean : array-like of shape (n_samples,) or float
        Predictive means.
    y_std : array-like of shape (n_samples,) or float
        Predictive standard deviations, strictly positive.

    Returns
    -------
    ndarray of shape (n_samples,)
        The PIT value of each sample, in [0, 1].

    References
    ----------
    A. P. Dawid (1984). Statistical theory: the prequential approach. JRSS A 147(2),
    278-292.

    Examples
    --------
    >>> from skcalib.metrics import pit_normal
    >>> pit_normal([0.0, 1.0, -1.0], 0.0, 1.0)
    array([0.5       , 0.84134475, 0.15865525])
    """
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    mu = _check_real_array(y_mean, "y_mean", n=n, allow_scalar=True)
    sd = _check_real_array(y_std, "y_std", n=n, allow_scalar=True)
    _check_all_finite((y, "y_true"), (mu, "y_mean"), (sd, "y_std"))
    _check_positive(sd, "y_std")
    z = np.subtract(y, mu, dtype=np.float64)
    z /= sd
    return ndtr(z)


@validate_params(
    {
        "y_true": ["array-like"],
        "y_samples": ["array-like"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def pit_ensemble(y_true, y_samples, *, random_state=None):
    r"""Compute randomised probability integral transform (rank) values of ensembles.

    With :math:`m` draws, :math:`L_i = \#\{j: x_{ij} < y_i\}`,
    :math:`E_i = \#\{j: x_{ij} = y_i\}` and :math:`V_i \sim U(0, 1)`,

    .. math::

        \mathrm{PIT}_i = \frac{L_i + V_i (E_i + 1)}{m + 1}.

    This is the verification rank of :math:`y_i` among the :math:`m + 1` values (ties
    broken at random) spread uniformly over its cell, so it is exactly uniform on [0, 1]
    when the observation and the draws are exchangeable (a calibrated ensemble), even
    for small ``m`` or discrete data.  Its histogram is the rank histogram (Talagrand
    diagram) on a continuous scale.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_samples : array-like of shape (n_samples, n_draws)
        Draws from each sample's predictive distribution (or ensemble members).
    random_state : int, RandomState instance or None, default=None
        Seeds the randomisation :math:`V`.

    Returns
    -------
    ndarray of shape (n_samples,)
        The randomised PIT value of each sample, in [0, 1].

    References
    ----------
    T. M. Hamill (2001). Interpretation of rank histograms for verifying ensemble
    forecasts. Monthly Weather Review 129(3), 550-560.

    Examples
    --------
    >>> from skcalib.metrics import pit_ensemble
    >>> pit = pit_ensemble([0.5, 3.0], [[0, 1, 2], [0, 1, 2]], random_state=0)
    >>> bool(0.25 <= pit[0] <= 0.5), bool(0.75 <= pit[1] <= 1.0)
    (True, True)
    """
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    S = _check_real_array(y_samples, "y_samples", ndim=2, n=n)
    _check_all_finite((y, "y_true"), (S, "y_samples"))
    m = S.shape[1]
    below = np.empty(n, dtype=np.float64)
    ties = np.empty(n, dtype=np.float64)
    for start, stop in iter_row_chunks(n, S.itemsize * m, _ENSEMBLE_CHUNK_BYTES):
        c = S[start:stop]
        yc = y[start:stop, None]
        below[start:stop] = np.count_nonzero(c < yc, axis=1)
        ties[start:stop] = np.count_nonzero(c == yc, axis=1)
    v = check_random_state(random_state).random_sample(n)
    ties += 1.0
    ties *= v
    ties += below
    ties /= m + 1
    return ties


# --------------------------------------------------------------------------------------
# negative log-likelihood of Normal forecasts
# --------------------------------------------------------------------------------------


@validate_params(
    {
        "y_true": ["array-like"],
        "y_mean": ["array-like", numbers.Real],
        "y_std": ["array-like", numbers.Real],
        "sample_weight": ["array-like", None],
        "aggregate": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def normal_negative_log_likelihood(y_true, y_mean, y_std, *, sample_weight=None, aggregate=True):
    r"""Compute the negative log-likelihood of Normal forecasts ``N(y_mean, y_std**2)``.

    .. math::

        \mathrm{NLL}_i = \tfrac12\log(2\pi) + \log\sigma_i
            + \frac{(y_i - \mu_i)^2}{2\sigma_i^2}

    The (strictly proper) logarithmic score of a Gaussian predictive distribution, as
    returned by ``predict(X, return_std=True)`` of
    :class:`~sklearn.gaussian_process.GaussianProcessRegressor`,
    :class:`~sklearn.linear_model.BayesianRidge` or
    :class:`~sklearn.linear_model.ARDRegression`.  Lower is better; its scorer
    ``"neg_normal_negative_log_likelihood"`` (alias ``"gaussian_nll"``) negates it.  Unlike
    the CRPS
    (:func:`crps_normal`), it punishes an over-confident ``y_std`` without bound.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_mean : array-like of shape (n_samples,) or float
        Predicted means.
    y_std : array-like of shape (n_samples,) or float
        Predicted standard deviations, strictly positive.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the weighted mean (ignored with ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; with False, the per-sample values.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The (weighted) mean negative log-likelihood, or the per-sample values with
        ``aggregate=False``.

    References
    ----------
    Gneiting and Raftery, "Strictly Proper Scoring Rules, Prediction, and Estimation",
    JASA 102, 2007.

    Examples
    --------
    >>> from skcalib.metrics import normal_negative_log_likelihood
    >>> normal_negative_log_likelihood([0.0], [0.0], [1.0])  # 0.5 * log(2 pi)
    0.9189...
    >>> normal_negative_log_likelihood([1.0, 3.0], [0.0, 3.0], [1.0, 2.0], aggregate=False)
    array([1.4189..., 1.6120...])
    """
    y = _check_real_array(y_true, "y_true")
    n = y.shape[0]
    mu = _check_real_array(y_mean, "y_mean", n=n, allow_scalar=True)
    sd = _check_real_array(y_std, "y_std", n=n, allow_scalar=True)
    for arr, name in ((y, "y_true"), (mu, "y_mean")):
        _find_nonfinite(arr, name)
    _check_positive(sd, "y_std")
    _find_nonfinite(sd, "y_std")
    sw = check_sample_weight(sample_weight, n)
    z = (np.asarray(y, dtype=np.float64) - mu) / sd
    values = _HALF_LOG_2PI + np.log(sd, dtype=np.float64) + 0.5 * z * z
    if not aggregate:
        return values
    if sw is None:
        return float(values.mean())
    return float(sw @ values / sw.sum())
