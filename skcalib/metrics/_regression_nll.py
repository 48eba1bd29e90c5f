"""Negative log-likelihood of Normal (Gaussian) forecasts."""

from __future__ import annotations

import numbers

import numpy as np

from ..utils._sklearn_compat import validate_params
from ._guard import scorer_misuse_guard
from ._regression import _check_positive, _check_real_array, _find_nonfinite
from ._validation import check_sample_weight

__all__ = ["normal_negative_log_likelihood"]

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


@scorer_misuse_guard
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
