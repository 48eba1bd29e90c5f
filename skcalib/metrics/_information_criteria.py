r"""Information criteria of ensembles: WAIC and importance-sampling cross-validation.

Both estimate the expected log predictive density of a new sample (the held-out
log-likelihood per sample, "elpd") from the members' log-likelihoods of the observed
samples, without refitting.  The input is the log-likelihood matrix ``log_lik`` of shape
``(n_samples, n_members)`` with ``log_lik[i, j] = log p(y_i | x_i, theta_j)``, where the
members ``theta_j`` are (approximate) posterior draws: the members of a bagging ensemble,
the trees of a random forest, the checkpoints of a deep ensemble.

Both results are on the log-likelihood scale and **higher is better** (they are negated
information criteria, as in the uncertainty_metrics reference implementation).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import Bunch

from ..utils._sklearn_compat import StrOptions, validate_params
from ._guard import scorer_misuse_guard
from ._validation import _to_numpy, check_sample_weight

__all__ = ["importance_sampling_cross_validation", "negative_waic"]


def _check_log_lik(log_lik, *, min_members=1, what="this criterion"):
    L = _to_numpy(log_lik, "log_lik")
    if L.dtype.kind not in "biuf":
        try:
            L = L.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"log_lik must contain numbers, got dtype {L.dtype}") from exc
    L = np.asarray(L, dtype=np.float64)
    if L.ndim != 2:
        raise ValueError(
            f"log_lik must be 2-D of shape (n_samples, n_members), got an array of shape {L.shape}"
        )
    n, m = L.shape
    if n == 0:
        raise ValueError("log_lik is empty: need at least one sample (row)")
    if m < min_members:
        raise ValueError(
            f"{what} needs at least {min_members} members (columns of log_lik), "
            f"got log_lik of shape {L.shape}"
        )
    if not np.isfinite(L).all():
        i, j = np.argwhere(~np.isfinite(L))[0]
        raise ValueError(
            f"log_lik contains NaN or infinity: log_lik[{i}, {j}] = {L[i, j]!r} "
            "(a member gave probability 0 to an observed label? clip the probabilities "
            "to [eps, 1] before taking the log)"
        )
    return L


def _mean_sem(pointwise, sample_weight):
    """Weighted mean and its standard error, with Kish's effective sample size.

    Without weights: ``mean(t)`` and ``std(t, ddof=1) / sqrt(n)``.  With weights ``w``
    (``W = sum w``): the weighted mean ``sum(w t) / W`` and

    ``sem = sqrt(s2 / n_eff)``, ``n_eff = W**2 / sum(w**2)`` (Kish),
    ``s2 = sum(w (t - mean)**2) / (W - sum(w**2) / W)``,

    the unbiased variance for reliability weights.  Both are unchanged when every weight
    is multiplied by the same positive factor, and equal weights give the unweighted
    result exactly (that case takes the unweighted path).  Weight 0 removes the sample.
    With integer weights, ``n_eff`` is *not* the repetition count: the standard error
    treats the weights as relative importances, not frequencies.  The standard error is
    NaN when ``n_eff <= 1`` (a single sample with non-zero weight), as
    :func:`scipy.stats.sem` for one sample.
    """
    if sample_weight is not None:
        if sample_weight.shape[0] and np.all(sample_weight == sample_weight[0]):
            sample_weight = None
    if sample_weight is None:
        n = pointwise.shape[0]
        value = float(pointwise.mean())
        if n < 2:
            return value, float("nan")
        return value, float(np.sqrt(pointwise.var(ddof=1) / n))
    value = float(sample_weight @ pointwise / sample_weight.sum())
    w = sample_weight / sample_weight.max()  # no overflow in w**2 for huge weights
    W = float(w.sum())
    W2 = float(w @ w)
    n_eff = W * W / W2
    if not n_eff > 1 or W - W2 / W <= 0:
        return value, float("nan")
    var = float(w @ (pointwise - value) ** 2) / (W - W2 / W)
    return value, float(np.sqrt(var / n_eff))


@scorer_misuse_guard
@validate_params(
    {
        "log_lik": ["array-like"],
        "waic_type": [StrOptions({"waic1", "waic2"})],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def negative_waic(log_lik, *, waic_type="waic1", sample_weight=None):
    r"""Negative widely applicable information criterion (nWAIC), per sample.

    With ``M`` members and ``\ell_{ij} = \log p(y_i \mid x_i, \theta_j)``, the log
    pointwise predictive density is
    ``lppd_i = log((1/M) sum_j exp(l_ij))`` and the pointwise values are

    .. math::

        t_i^{\mathrm{waic1}} = \mathrm{lppd}_i
            - \frac{1}{M-1}\sum_{j=1}^{M}\bigl(\ell_{ij} - \bar\ell_{i}\bigr)^2,
        \qquad
        t_i^{\mathrm{waic2}} = 2\,\bar\ell_i - \mathrm{lppd}_i,

    with :math:`\bar\ell_i = \frac1M\sum_j \ell_{ij}`.  The result is
    ``value = mean_i t_i`` (WAIC divided by ``-2 n``: an estimate of the expected log
    predictive density of a new sample; **higher is better**) and its standard error
    ``sem = std_i(t_i, ddof=1) / sqrt(n)``.

    Parameters
    ----------
    log_lik : array-like of shape (n_samples, n_members)
        ``log_lik[i, j]`` is the log-likelihood of sample ``i`` under member ``j``.
    waic_type : {"waic1", "waic2"}, default="waic1"
        "waic1" penalises by the variance over members of the log-likelihood (with
        the unbiased ``1 / (M - 1)``; needs ``M >= 2``); "waic2" by twice the gap
        between the lppd and the mean log-likelihood.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean and its standard error.  Only their ratios
        matter: multiplying every weight by the same factor changes neither ``value``
        nor ``sem``.  See Notes for the weighted standard error.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        ``value`` (float), ``sem`` (float; NaN when a single sample has a non-zero
        weight) and ``pointwise`` (ndarray of shape (n_samples,), the ``t_i``).

    Notes
    -----
    With ``sample_weight`` ``w`` (``W = sum_i w_i``), ``value = sum_i w_i t_i / W`` (a
    weight ``w`` is the same as repeating the row ``w`` times) and the standard error
    uses Kish's effective sample size ``n_eff = W**2 / sum_i w_i**2``:

    .. math::

        s^2 = \frac{\sum_i w_i (t_i - \mathrm{value})^2}{W - \sum_i w_i^2 / W},
        \qquad \mathrm{sem} = \sqrt{s^2 / n_\mathrm{eff}}.

    Equal weights give exactly the unweighted ``sem`` (``n_eff = n``); weight 0 removes
    a sample.  For integer weights ``n_eff`` is smaller than the repetition count, so
    the ``sem`` is larger than that of the repeated rows: the weights are treated as
    relative importances, not as frequencies, which makes the result independent of
    their scale (normalised weights such as ``np.full(n, 1 / n)`` are common).

    uncertainty_metrics 0.0.82 (``uncertainty_metrics/tensorflow/information_criteria.py``)
    uses the population variance (``1 / M``) in waic1, although its documentation states
    ``1 / (M - 1)``, and divides the across-sample variance by the number of members
    ``M`` instead of the number of samples ``n`` in the standard error; skcalib follows
    the documented formula and the usual standard error of a mean.

    References
    ----------
    Watanabe, "Asymptotic equivalence of Bayes cross validation and widely applicable
    information criterion in singular learning theory", JMLR 11, 2010.
    Gelman, Hwang and Vehtari, "Understanding predictive information criteria for
    Bayesian models", Statistics and Computing 24, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import negative_waic
    >>> log_lik = np.log([[0.5, 0.25, 0.4], [0.1, 0.3, 0.2], [0.9, 0.6, 0.8]])
    >>> round(negative_waic(log_lik).value, 6)
    -1.103774
    >>> round(negative_waic(log_lik, waic_type="waic2").value, 6)
    -1.04446
    """
    L = _check_log_lik(
        log_lik,
        min_members=2 if waic_type == "waic1" else 1,
        what=f"negative_waic(waic_type={waic_type!r})",
    )
    sw = check_sample_weight(sample_weight, L.shape[0])
    n_members = L.shape[1]
    lppd = logsumexp(L, axis=1) - np.log(n_members)
    if waic_type == "waic1":
        pointwise = lppd - L.var(axis=1, ddof=1)
    else:
        pointwise = 2.0 * L.mean(axis=1) - lppd
    value, sem = _mean_sem(pointwise, sw)
    return Bunch(value=value, sem=sem, pointwise=pointwise)


@scorer_misuse_guard
@validate_params(
    {"log_lik": ["array-like"], "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def importance_sampling_cross_validation(log_lik, *, sample_weight=None):
    r"""Importance-sampling leave-one-out cross-validation (ISCV), per sample.

    Leave-one-out predictive density of sample ``i`` estimated by importance sampling
    with weights ``1 / p(y_i | x_i, theta_j)`` (Gelfand, Dey and Chang 1992): the
    harmonic mean of the members' likelihoods,

    .. math::

        t_i = -\log\Bigl(\frac{1}{M}\sum_{j=1}^{M} e^{-\ell_{ij}}\Bigr)
            = \log M - \operatorname{logsumexp}_j(-\ell_{ij}),

    computed with :func:`scipy.special.logsumexp`.  ``value = mean_i t_i`` estimates the
    held-out log-likelihood per sample (**higher is better**);
    ``sem = std_i(t_i, ddof=1) / sqrt(n)``.  The estimator can have a large variance
    when a few members give a sample a tiny likelihood (Vehtari, Gelman and Gabry 2017
    stabilise it by Pareto smoothing of the importance weights).

    Parameters
    ----------
    log_lik : array-like of shape (n_samples, n_members)
        ``log_lik[i, j]`` is the log-likelihood of sample ``i`` under member ``j``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean and its standard error.  Only their ratios
        matter; the weighted standard error uses Kish's effective sample size
        ``n_eff = (sum w)**2 / sum w**2``, exactly as :func:`negative_waic` (see its
        Notes): equal weights give the unweighted result.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        ``value`` (float), ``sem`` (float; NaN when a single sample has a non-zero
        weight) and ``pointwise`` (ndarray of shape (n_samples,)).

    References
    ----------
    Gelfand, Dey and Chang, "Model determination using predictive distributions with
    implementation via sampling-based methods", Bayesian Statistics 4, 1992.
    Vehtari, Gelman and Gabry, "Practical Bayesian model evaluation using leave-one-out
    cross-validation and WAIC", Statistics and Computing 27, 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import importance_sampling_cross_validation
    >>> log_lik = np.log([[0.5, 0.25, 0.4], [0.1, 0.3, 0.2], [0.9, 0.6, 0.8]])
    >>> round(importance_sampling_cross_validation(log_lik).value, 6)
    -1.048722
    """
    L = _check_log_lik(log_lik, what="importance_sampling_cross_validation")
    sw = check_sample_weight(sample_weight, L.shape[0])
    pointwise = np.log(L.shape[1]) - logsumexp(-L, axis=1)
    value, sem = _mean_sem(pointwise, sw)
    return Bunch(value=value, sem=sem, pointwise=pointwise)
