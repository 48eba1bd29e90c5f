"""Negative log-likelihood of Normal (Gaussian) forecasts."""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import validate_params

from ._guard import scorer_misuse_guard
from ._validation import _to_numpy, check_sample_weight

__all__ = ["normal_negative_log_likelihood"]

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


def _check_1d_real(x, name, n=None):
    a = _to_numpy(x, name)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {a.shape}")
    if a.dtype.kind not in "biuf":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must contain numbers, got dtype {a.dtype}") from exc
    a = np.asarray(a, dtype=np.float64)
    if n is not None and a.shape[0] != n:
        raise ValueError(f"{name} has {a.shape[0]} elements but y_true has {n}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return a


@scorer_misuse_guard
@validate_params(
    {
        "y_true": ["array-like"],
        "y_mean": ["array-like"],
        "y_std": ["array-like"],
        "sample_weight": ["array-like", None],
        "aggregate": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def normal_negative_log_likelihood(y_true, y_mean, y_std, *, sample_weight=None,
                                   aggregate=True):
    r"""Negative log-likelihood of Normal forecasts ``N(y_mean, y_std**2)``.

    .. math::

        \mathrm{NLL}_i = \tfrac12\log(2\pi) + \log\sigma_i
            + \frac{(y_i - \mu_i)^2}{2\sigma_i^2}

    The (strictly proper) logarithmic score of a Gaussian predictive distribution, as
    returned by ``predict(X, return_std=True)`` of
    :class:`~sklearn.gaussian_process.GaussianProcessRegressor`,
    :class:`~sklearn.linear_model.BayesianRidge` or
    :class:`~sklearn.linear_model.ARDRegression`.  Lower is better.  Unlike the CRPS
    (:func:`crps_normal`), it punishes an over-confident ``y_std`` without bound.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_mean : array-like of shape (n_samples,)
        Predicted means.
    y_std : array-like of shape (n_samples,)
        Predicted standard deviations, all > 0.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the weighted mean (ignored with ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; with False, the per-sample values.

    Returns
    -------
    float or ndarray of shape (n_samples,)

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
    y = _check_1d_real(y_true, "y_true")
    if y.shape[0] == 0:
        raise ValueError("y_true is empty: need at least one sample")
    mu = _check_1d_real(y_mean, "y_mean", y.shape[0])
    sd = _check_1d_real(y_std, "y_std", y.shape[0])
    if not (sd > 0).all():
        i = int(np.flatnonzero(~(sd > 0))[0])
        raise ValueError(
            f"y_std must be positive: y_std[{i}] = {sd[i]!r} (a zero standard deviation "
            "gives an infinite negative log-likelihood)"
        )
    sw = check_sample_weight(sample_weight, y.shape[0])
    z = (y - mu) / sd
    values = _HALF_LOG_2PI + np.log(sd) + 0.5 * z * z
    if not aggregate:
        return values
    if sw is None:
        return float(values.mean())
    return float(sw @ values / sw.sum())
