r"""Information criteria of ensembles: WAIC, importance-sampling and PSIS cross-validation.

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

import math
import numbers
import warnings
from typing import NamedTuple

import numpy as np

from ..._core._validation import _to_numpy, check_sample_weight, iter_row_chunks
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import InformationCriterionResult, PSISLOOResult

__all__ = [
    "PSISWarning",
    "importance_sampling_cross_validation",
    "negative_waic",
    "psis_loo",
]


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
            f"log_lik contains NaN or infinity: log_lik[{i}, {j}] = {float(L[i, j])!r} "
            "(a member gave probability 0 to an observed label? clip the probabilities "
            "to [eps, 1] before taking the log)"
        )
    return L


def _row_stats(L, *, negate=False, moments=False):
    """``logsumexp`` of each row of ``L`` (of ``-L`` with ``negate``), and with
    ``moments`` the row means and unbiased variances, computed on cache-sized chunks of
    rows so that the temporaries stay small (``L`` is finite)."""
    n, m = L.shape
    lse = np.empty(n)
    mean = np.empty(n) if moments else None
    var = np.empty(n) if moments and m > 1 else None
    for start, stop in iter_row_chunks(n, 8 * m):
        c = L[start:stop]
        if negate:
            c = -c
        top = c.max(axis=1)
        shifted = c - top[:, None]
        lse[start:stop] = top + np.log(np.exp(shifted).sum(axis=1))
        if moments:
            # moments of the shifted values: no cancellation with a large common offset
            mu = shifted.mean(axis=1)
            mean[start:stop] = mu + top
            if var is not None:
                d = shifted - mu[:, None]
                var[start:stop] = np.einsum("ij,ij->i", d, d) / (m - 1)
    return lse, mean, var


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
    result : InformationCriterionResult
        Unpacks as ``(value, sem)``: ``value`` (float) and ``sem`` (float; NaN when a
        single sample has a non-zero weight); ``pointwise`` (ndarray of shape
        (n_samples,), the ``t_i``) is an attribute.

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
    >>> value, sem = negative_waic(log_lik)
    >>> round(value, 6)
    -1.103774
    >>> negative_waic(log_lik).pointwise.shape
    (3,)
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
    lse, mean, var = _row_stats(L, moments=True)
    lppd = lse - np.log(n_members)
    if waic_type == "waic1":
        pointwise = lppd - var
    else:
        pointwise = 2.0 * mean - lppd
    value, sem = _mean_sem(pointwise, sw)
    return InformationCriterionResult(value=value, sem=sem, pointwise=pointwise)


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

    computed with the largest term factored out, as :func:`scipy.special.logsumexp`.
    ``value = mean_i t_i`` estimates the
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
    result : InformationCriterionResult
        Unpacks as ``(value, sem)``: ``value`` (float) and ``sem`` (float; NaN when a
        single sample has a non-zero weight); ``pointwise`` (ndarray of shape
        (n_samples,)) is an attribute.

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
    >>> value, sem = importance_sampling_cross_validation(log_lik)
    >>> round(value, 6)
    -1.048722
    """
    L = _check_log_lik(log_lik, what="importance_sampling_cross_validation")
    sw = check_sample_weight(sample_weight, L.shape[0])
    pointwise = np.log(L.shape[1]) - _row_stats(L, negate=True)[0]
    value, sem = _mean_sem(pointwise, sw)
    return InformationCriterionResult(value=value, sem=sem, pointwise=pointwise)


# --------------------------------------------------------------------------------------
# Pareto-smoothed importance-sampling leave-one-out cross-validation (PSIS-LOO)
# --------------------------------------------------------------------------------------

#: Pareto shape above which the importance-sampling estimate of a sample is unreliable
PARETO_K_THRESHOLD = 0.7

#: log of the smallest normal float64: the lowest cutoff of the tail (as loo and ArviZ)
_LOG_TINY = float(np.log(np.finfo(np.float64).tiny))
_EPS = float(np.finfo(np.float64).eps)

#: bytes of log_lik per chunk of rows of the PSIS kernel: large enough that the per-chunk
#: overhead (a few dozen numpy calls) is small, small enough for the cache
_PSIS_CHUNK_BYTES = 1 << 20


class PSISWarning(UserWarning):
    """Some samples have a Pareto shape ``k > 0.7``: their PSIS-LOO values are unreliable.

    Issued by :func:`psis_loo`; its message says how many samples.

    Examples
    --------
    >>> import warnings
    >>> from skcalib.metrics import PSISWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", PSISWarning)  # e.g. in a model search
    """


#: a tail needs more than this many ratios above its cutoff to be fitted (loo and ArviZ)
_MIN_TAIL_TO_FIT = 4


class _Tail(NamedTuple):
    """The largest log importance ratios of each row of a chunk, and their cutoff."""

    #: (n_rows, tail_length): the member (column) of each tail value
    columns: np.ndarray
    #: (n_rows, tail_length): the tail values, ascending along each row (smoothed in place)
    log_ratios: np.ndarray
    #: (n_rows,): the largest log ratio below the tail, at least ``_LOG_TINY``
    cutoff: np.ndarray
    #: (n_rows,): ``exp(cutoff)``
    exp_cutoff: np.ndarray


def _tail_length(n_draws, r_eff):
    """Number of largest importance ratios in the tail: ``ceil(min(S / 5, 3 sqrt(S / r_eff)))``."""
    return int(math.ceil(min(n_draws / 5.0, 3.0 * math.sqrt(n_draws / r_eff))))


def _gpd_fit(exceedances):
    """Zhang and Stephens (2009) generalized-Pareto fit of each row of ``exceedances``.

    ``exceedances`` (n_rows, m): positive values sorted ascending along each row.  Returns
    the shape ``k`` (with the weakly informative prior of Vehtari et al.: ``(m k + 5) /
    (m + 10)``) and the scale ``sigma``, as ``gpdfit`` of the loo R package and
    ``_gpdfit`` of ArviZ, vectorised over rows.  Rows whose fit fails get ``k = nan``.
    """
    n_values = exceedances.shape[1]
    n_grid = 30 + int(n_values**0.5)
    grid = 1.0 - np.sqrt(n_grid / (np.arange(1, n_grid + 1, dtype=np.float64) - 0.5))
    first_quartile = exceedances[:, int(n_values / 4 + 0.5) - 1]
    largest = exceedances[:, -1:]
    with np.errstate(all="ignore"):  # failed fits are NaN, handled by the caller
        # candidate values of theta = -k / sigma, one grid per row
        theta = grid[None, :] / (3.0 * first_quartile[:, None]) + 1.0 / largest
        log_terms = theta[:, :, None] * exceedances[:, None, :]  # (n_rows, n_grid, m)
        np.negative(log_terms, out=log_terms)
        np.log1p(log_terms, out=log_terms)
        k_of_theta = log_terms.mean(axis=2)
        del log_terms  # the one large temporary
        profile = n_values * (np.log(-(theta / k_of_theta)) - k_of_theta - 1.0)
        # posterior weights of the grid points: softmax of the profile log-likelihood
        weights = np.exp(profile - profile.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        weights[weights < 10 * _EPS] = 0.0  # negligible weights are dropped, as loo/ArviZ
        theta_post = (theta * weights).sum(axis=1) / weights.sum(axis=1)
        k = np.log1p(-theta_post[:, None] * exceedances).mean(axis=1)
        sigma = -k / theta_post
    k = (n_values * k + 10 * 0.5) / (n_values + 10)
    return k, sigma


def _largest_log_ratios(log_ratios, tail_length):
    """The ``tail_length`` largest values of each row, ascending, and the cutoff below them.

    A partial sort (``argpartition``) finds the cutoff and the tail; only the tail is
    sorted.  Ties are ordered by a stable sort of the partition's order.
    """
    n_draws = log_ratios.shape[1]
    kth = n_draws - tail_length - 1  # position of the cutoff (the largest value not in the tail)
    candidates = np.argpartition(log_ratios, kth, axis=1)[:, kth:]  # the cutoff, then the tail
    values = np.take_along_axis(log_ratios, candidates, axis=1)
    order = np.argsort(values[:, 1:], axis=1, kind="stable")
    cutoff = np.maximum(values[:, 0], _LOG_TINY)
    return _Tail(
        columns=np.take_along_axis(candidates[:, 1:], order, axis=1),
        log_ratios=np.take_along_axis(values[:, 1:], order, axis=1),
        cutoff=cutoff,
        exp_cutoff=np.exp(cutoff),
    )


def _smoothed_log_ratios(k, sigma, exp_cutoff, n_values):
    """Log of the expected order statistics of the fitted tails, above the cutoff.

    The ``(j + 0.5) / n_values`` quantiles of the generalized Pareto distribution of shape
    ``k`` and scale ``sigma`` (one row per fit; the exponential distribution where ``k``
    is 0 to machine precision), shifted by the cutoff and capped at 0 (the largest raw
    log ratio).
    """
    p = (np.arange(n_values, dtype=np.float64) + 0.5) / n_values
    log1m_p = np.log1p(-p)
    exponential = np.abs(k) < _EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        quantiles = np.where(
            exponential[:, None],
            -log1m_p[None, :],
            np.expm1(-k[:, None] * log1m_p[None, :]) / k[:, None],
        )
    smoothed = np.log(sigma[:, None] * quantiles + exp_cutoff[:, None])
    np.minimum(smoothed, 0.0, out=smoothed)  # at most the largest raw ratio
    return smoothed


def _smooth_tails(log_ratios, tail, pareto_k):
    """Replace the tail of each row of ``log_ratios`` by its Pareto-smoothed values.

    Updates ``log_ratios``, ``tail.log_ratios`` and ``pareto_k`` in place (chunk-local
    arrays) and returns the number of smoothed values of each row.  The tail proper is the
    values strictly above the cutoff (fewer than the tail length when the cutoff is
    tied); rows with the same number of them are fitted together.  A row with too few of
    them, or whose fit fails, is not smoothed and keeps ``k = inf`` (as loo and ArviZ).
    """
    tail_length = tail.log_ratios.shape[1]
    n_above = (tail.log_ratios > tail.cutoff[:, None]).sum(axis=1)
    n_smoothed = np.zeros_like(n_above)
    for n_values in np.unique(n_above):
        if n_values <= _MIN_TAIL_TO_FIT:
            continue
        first = tail_length - n_values  # the tail proper is the last n_values columns
        rows = np.flatnonzero(n_above == n_values)
        exceedances = np.exp(tail.log_ratios[rows, first:]) - tail.exp_cutoff[rows, None]
        k, sigma = _gpd_fit(exceedances)
        fitted = np.isfinite(k) & (sigma > 0) & np.all(exceedances > 0, axis=1)
        rows, k, sigma = rows[fitted], k[fitted], sigma[fitted]
        if rows.size == 0:
            continue
        pareto_k[rows] = k
        n_smoothed[rows] = n_values
        smoothed = _smoothed_log_ratios(k, sigma, tail.exp_cutoff[rows], n_values)
        log_ratios[rows[:, None], tail.columns[rows, first:]] = smoothed
        tail.log_ratios[rows, first:] = smoothed
    return n_smoothed


def _log_loo_numerator(log_lik, min_log_lik, tail, n_smoothed):
    """``log sum_j exp(log_ratio_ij + log_lik_ij)`` of each row, the ratios smoothed.

    An unsmoothed ratio is ``min_log_lik_i - log_lik_ij``, so each of the ``S -
    n_smoothed_i`` unsmoothed draws adds ``exp(min_log_lik_i)``; a smoothed draw adds
    ``exp(smoothed_ij + log_lik_ij)``, summed with the largest term factored out.
    """
    n_draws = log_lik.shape[1]
    if tail is None:
        return math.log(n_draws) + min_log_lik
    numerator = np.log(n_draws - n_smoothed) + min_log_lik
    rows = np.flatnonzero(n_smoothed > 0)
    if rows.size:
        tail_length = tail.log_ratios.shape[1]
        is_smoothed = np.arange(tail_length)[None, :] >= (tail_length - n_smoothed[rows])[:, None]
        tail_log_lik = np.take_along_axis(log_lik[rows], tail.columns[rows], axis=1)
        terms = np.where(is_smoothed, tail.log_ratios[rows] + tail_log_lik, -np.inf)
        largest = np.maximum(terms.max(axis=1), numerator[rows])
        total = np.exp(numerator[rows] - largest) + np.exp(terms - largest[:, None]).sum(axis=1)
        numerator[rows] = largest + np.log(total)
    return numerator


def _psis_loo_chunk(log_lik, tail_length):
    """Pointwise PSIS-LOO values and Pareto shapes of a chunk of rows of ``log_lik``."""
    n_rows = log_lik.shape[0]
    min_log_lik = log_lik.min(axis=1)
    # log importance ratios 1 / p(y_i | theta_j), shifted so that the largest is 0
    log_ratios = min_log_lik[:, None] - log_lik
    pareto_k = np.full(n_rows, np.inf)
    tail, n_smoothed = None, None
    if tail_length > _MIN_TAIL_TO_FIT:
        tail = _largest_log_ratios(log_ratios, tail_length)
        n_smoothed = _smooth_tails(log_ratios, tail, pareto_k)
    # the log of the normalising sum of the (smoothed) weights
    log_norm = np.log(np.exp(log_ratios).sum(axis=1))
    pointwise = _log_loo_numerator(log_lik, min_log_lik, tail, n_smoothed) - log_norm
    # equal likelihoods under every member: uniform weights, exact, no tail at all
    pareto_k[log_lik.max(axis=1) == min_log_lik] = -np.inf
    return pointwise, pareto_k


def _psis_loo_rows(log_lik, r_eff):
    """Pointwise PSIS-LOO values and Pareto shapes ``k`` of the rows of the finite
    ``log_lik`` (n_samples, n_draws), computed on cache-sized chunks of rows."""
    n_samples, n_draws = log_lik.shape
    tail_length = _tail_length(n_draws, r_eff)
    pointwise = np.empty(n_samples)
    pareto_k = np.empty(n_samples)
    for start, stop in iter_row_chunks(n_samples, 8 * n_draws, _PSIS_CHUNK_BYTES):
        pointwise[start:stop], pareto_k[start:stop] = _psis_loo_chunk(
            log_lik[start:stop], tail_length
        )
    return pointwise, pareto_k


@validate_params(
    {
        "log_lik": ["array-like"],
        "r_eff": [Interval(numbers.Real, 0, None, closed="neither")],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def psis_loo(log_lik, *, r_eff=1.0, sample_weight=None):
    r"""Pareto-smoothed importance-sampling leave-one-out cross-validation (PSIS-LOO).

    The leave-one-out predictive density of sample ``i`` is estimated by importance
    sampling over the ``S`` members (posterior draws) with the ratios
    ``r_ij = 1 / p(y_i | x_i, theta_j)``, as in
    :func:`importance_sampling_cross_validation`, but the ``M`` largest ratios,

    .. math::

        M = \left\lceil \min\bigl(S / 5,\; 3 \sqrt{S / r_\mathrm{eff}}\bigr) \right\rceil,

    are replaced by the expected order statistics of a generalized Pareto distribution
    fitted to them (Zhang and Stephens 2009, with the prior on its shape of Vehtari et
    al. 2024), truncated at the largest raw ratio.  With the smoothed, normalised weights
    ``w_ij``,

    .. math::

        t_i = \log \sum_{j=1}^{S} w_{ij}\, p(y_i \mid x_i, \theta_j),

    ``value = mean_i t_i`` estimates the held-out log-likelihood per sample (**higher is
    better**) and ``sem = std_i(t_i, ddof=1) / sqrt(n)``, the convention of
    :func:`negative_waic`.  The fitted shape ``k_i`` (``pareto_k``) is the diagnostic:
    the estimate of a sample with ``k_i > 0.7`` is unreliable (its importance weights
    have too heavy a tail; refit without the sample, or use a more robust model), and a
    :class:`PSISWarning` says how many samples have it.  Samples whose tail holds fewer
    than 5 ratios above the cutoff (always when ``S <= 20``) are not smoothed and get
    ``k = inf``, as in ArviZ; so do samples whose fit fails.  A sample to which every
    member gives the same likelihood has exact, uniform weights: it gets ``k = -inf``
    (ArviZ: ``inf``) and no warning.

    This is the algorithm of the loo R package and of ArviZ (``arviz.loo``), whose
    ``elpd_loo`` is ``n * value``, whose ``loo_i`` is ``pointwise`` and whose ``se`` is
    ``sqrt(n * var(t, ddof=0))`` (about ``n * sem``).

    Parameters
    ----------
    log_lik : array-like of shape (n_samples, n_members)
        ``log_lik[i, j]`` is the log-likelihood of sample ``i`` under member ``j``;
        at least 2 members, finite values.
    r_eff : float, default=1.0
        Relative effective sample size of the members, ``S_eff / S``: 1 for independent
        draws (bagging, random forests, deep ensembles); for MCMC draws the ratio of the
        effective sample size to the number of draws.  It sets the tail length ``M``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean and its standard error (as in
        :func:`negative_waic`: a weight ``w`` is the same as repeating the row ``w``
        times in ``value``; the standard error uses Kish's effective sample size).

    Returns
    -------
    result : PSISLOOResult
        Unpacks as ``(value, sem)``: ``value`` (float) and ``sem`` (float; NaN when a
        single sample has a non-zero weight); ``pointwise`` (ndarray of shape
        (n_samples,), the ``t_i``) and ``pareto_k`` (ndarray of shape (n_samples,))
        are attributes.

    Warns
    -----
    PSISWarning
        When some samples have ``pareto_k > 0.7``; the message says how many.

    See Also
    --------
    importance_sampling_cross_validation : The same estimate without smoothing.
    negative_waic : An asymptotically equivalent criterion.

    Notes
    -----
    Vehtari et al. (2024) recommend the threshold ``min(1 - 1 / log10(S), 0.7)`` for
    ``k``, which is lower than 0.7 for ``S < 2155`` draws (ArviZ warns at that
    threshold, 0.5 for 100 draws); ``pareto_k`` is returned so that any threshold can
    be applied.

    References
    ----------
    Vehtari, Gelman and Gabry, "Practical Bayesian model evaluation using leave-one-out
    cross-validation and WAIC", Statistics and Computing 27, 2017.
    Vehtari, Simpson, Gelman, Yao and Gabry, "Pareto smoothed importance sampling",
    JMLR 25(72), 2024.
    Zhang and Stephens, "A new and efficient estimation method for the generalized
    Pareto distribution", Technometrics 51(3), 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import psis_loo
    >>> rng = np.random.default_rng(0)
    >>> mu = rng.normal(0.0, 0.1, size=200)  # 200 posterior draws of a mean
    >>> y = np.array([-0.3, 0.1, 0.4, 0.0, 0.2])  # the observed samples
    >>> log_lik = -0.5 * (y[:, None] - mu) ** 2 - 0.5 * np.log(2 * np.pi)
    >>> value, sem = psis_loo(log_lik)
    >>> round(value, 4)
    -0.9538
    >>> result = psis_loo(log_lik)
    >>> round(result.value, 4), bool(np.all(result.pareto_k < 0.7))
    (-0.9538, True)
    """
    L = _check_log_lik(log_lik, min_members=2, what="psis_loo")
    sw = check_sample_weight(sample_weight, L.shape[0])
    pointwise, pareto_k = _psis_loo_rows(L, float(r_eff))
    value, sem = _mean_sem(pointwise, sw)
    bad = int(np.count_nonzero(pareto_k > PARETO_K_THRESHOLD))
    if bad:
        warnings.warn(
            f"psis_loo: {bad} of {L.shape[0]} samples have a Pareto shape k > "
            f"{PARETO_K_THRESHOLD} (largest k = {float(pareto_k.max()):.3g}): their "
            "leave-one-out estimates are unreliable (see result.pareto_k)",
            PSISWarning,
            stacklevel=4,  # the caller of the public function (through its decorators)
        )
    return PSISLOOResult(value=value, sem=sem, pointwise=pointwise, pareto_k=pareto_k)
