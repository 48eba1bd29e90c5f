r"""The ensemble functions of Google's ``uncertainty_metrics`` 0.0.82, reproduced.

``uncertainty_metrics/tensorflow/information_criteria.py`` and
``uncertainty_metrics/tensorflow/diversity.py``, in NumPy (float64), with the
reference's signatures, argument order, axes and return types.  Re-exported by
:mod:`skcalib.compat.uncertainty_metrics`.

Reproduced behaviour of the reference (the definitions of :mod:`skcalib.metrics` differ)
------------------------------------------------------------------------------------------
1. ``negative_waic`` and ``importance_sampling_cross_validation`` return
   ``(value, sem)`` where the standard error divides the variance over the samples
   (``ddof=0``) by the number of **members** ``M`` instead of the number of samples, and
   waic1 uses the population variance (``1 / M``) over the members, although the
   reference's documentation states ``1 / (M - 1)``.
2. ``double_fault`` is the conditional probability that member 2 is wrong given that
   member 1 is wrong (the reference's documentation, and :func:`skcalib.metrics.double_fault`,
   use the fraction of samples both get wrong).
3. ``cosine_distance`` is the cosine **similarity** (skcalib: 1 - similarity).
4. ``kl_divergence(p, q, clip=False)`` returns the per-sample KL divergence (a vector),
   without the ``-p + q`` terms of the "generalized" KL its documentation mentions;
   ``clip=True`` clips both to ``[1e-7, 1]`` first.
5. ``lp_distance`` defaults to ``p=1`` (skcalib: 2).
6. ``average_pairwise_diversity(probs, num_models, error=None)`` returns the dict
   ``{"disagreement", "average_kl", "cosine_similarity"}``; the KL divergence is
   averaged over the pairs ``i < j`` only, so it depends on the order of the members;
   with ``error`` the disagreement is divided by ``error + 1e-7``.
7. ``ensemble_cross_entropy``/``gibbs_cross_entropy`` take logits with the member axis
   **first** (``[M, ..., K]``, or ``[M, ...]`` sigmoid logits with ``binary=True``),
   ``model_uncertainty`` takes logits with the member axis **second** (``(N, M, K)``)
   and returns the tuple ``(model, total, data)``.
8. ``variance_bound(probs, labels, num_models)`` reads only the probabilities of the
   observed labels (the rows need not sum to 1).

Where the reference returns NaN (``double_fault`` when member 1 makes no mistake, a
``kl_divergence`` with a zero probability and ``clip=False``), an unknown ``waic_type``
(``UnboundLocalError`` there) or a mismatch of ``num_models`` and the data, these
functions raise a ValueError instead.
"""

from __future__ import annotations

import itertools
import numbers

import numpy as np
from scipy.special import log_softmax, logsumexp

from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._um_common import int_labels, real

__all__ = [
    "average_pairwise_diversity",
    "cosine_distance",
    "disagreement",
    "double_fault",
    "ensemble_cross_entropy",
    "gibbs_cross_entropy",
    "importance_sampling_cross_validation",
    "kl_divergence",
    "logit_kl_divergence",
    "lp_distance",
    "model_uncertainty",
    "negative_waic",
    "variance_bound",
]


def _squeeze(x):
    return float(x) if np.ndim(x) == 0 else x


# --------------------------------------------------------------------------------------
# information criteria
# --------------------------------------------------------------------------------------


@validate_params(
    {"logp": ["array-like"], "waic_type": [StrOptions({"waic1", "waic2"})]},
    prefer_skip_nested_validation=True,
)
def negative_waic(logp, waic_type="waic1"):
    """Compute the nWAIC of uncertainty_metrics 0.0.82: ``(neg_waic, neg_waic_sem)``.

    Parameters
    ----------
    logp : array-like of shape (B, M, ...)
        ``logp[i, j] = log p(y_i | x_i, theta_j)``: samples first, members second,
        optional trailing batch axes.
    waic_type : {"waic1", "waic2"}, default="waic1"
        waic1 penalises by the population variance (``1 / M``) over the members;
        waic2 by ``2 (lppd - mean logp)``.

    Returns
    -------
    neg_waic, neg_waic_sem : float or ndarray of shape (...)
        The mean over samples of the pointwise values, and
        ``sqrt(var_i(t_i, ddof=0) / M)``.

    See Also
    --------
    skcalib.metrics.negative_waic : The definition of skcalib.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import negative_waic
    >>> logp = np.log([[.5, .25, .4], [.1, .3, .2], [.9, .6, .8]])
    >>> negative_waic(logp)
    (-1.050737481143396, 0.3583986759303859)
    """
    L = real(logp, "logp", min_ndim=2, nonempty=True)
    M = L.shape[1]
    lppd = logsumexp(L, axis=1) - np.log(M)
    if waic_type == "waic1":
        t = lppd - L.var(axis=1)
    else:
        t = 2.0 * L.mean(axis=1) - lppd
    return _squeeze(t.mean(axis=0)), _squeeze(np.sqrt(t.var(axis=0) / M))


@validate_params({"logp": ["array-like"]}, prefer_skip_nested_validation=True)
def importance_sampling_cross_validation(logp):
    """ISCV of uncertainty_metrics 0.0.82: ``(iscv, sem)``.

    Parameters
    ----------
    logp : array-like of shape (B, M, ...)
        Log-likelihoods, samples first, members second.

    Returns
    -------
    iscv, sem : float or ndarray of shape (...)
        ``-(mean_i l_i - log M)`` with ``l_i = logsumexp_j(-logp_ij)``, and
        ``sqrt(var_i(l_i, ddof=0) / M)``.

    See Also
    --------
    skcalib.metrics.importance_sampling_cross_validation : The definition of skcalib.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import importance_sampling_cross_validation
    >>> logp = np.log([[.5, .25, .4], [.1, .3, .2], [.9, .6, .8]])
    >>> importance_sampling_cross_validation(logp)
    (-1.0487216660069223, 0.3572205340521658)
    """
    L = real(logp, "logp", min_ndim=2, nonempty=True)
    M = L.shape[1]
    l_i = logsumexp(-L, axis=1)
    return _squeeze(-(l_i.mean(axis=0) - np.log(M))), _squeeze(np.sqrt(l_i.var(axis=0) / M))


def _member_ce(labels, logits, binary):
    Z = real(logits, "logits", min_ndim=2 if binary else 3, nonempty=True)
    if binary:
        y = np.asarray(labels, dtype=np.float64)
        if y.shape != Z.shape[1:]:
            raise ValueError(f"labels has shape {y.shape}, expected {Z.shape[1:]}")
        # sigmoid cross-entropy: max(z, 0) - z y + log(1 + exp(-|z|))
        return np.maximum(Z, 0) - Z * y + np.log1p(np.exp(-np.abs(Z)))
    y = int_labels(labels, Z.shape[1:-1], Z.shape[-1])
    logp = log_softmax(Z, axis=-1)
    return -np.take_along_axis(
        logp, np.broadcast_to(y[None, ..., None], logp.shape[:-1] + (1,)), -1
    )[..., 0]


_CE = {
    "labels": ["array-like"],
    "logits": ["array-like"],
    "binary": ["boolean"],
    "aggregate": ["boolean"],
}


@validate_params(_CE, prefer_skip_nested_validation=True)
def ensemble_cross_entropy(labels, logits, binary=False, aggregate=True):
    """Compute the ensemble cross-entropy of uncertainty_metrics 0.0.82, from logits.

    Parameters
    ----------
    labels : array-like of shape (...)
        Integer class indices (float 0/1 with ``binary=True``).
    logits : array-like of shape (M, ..., K), or (M, ...) with ``binary=True``
        Logits of the members, member axis first.
    binary : bool, default=False
        Sigmoid logits of a binary problem.
    aggregate : bool, default=True
        Return the mean over the samples (else one value per sample).

    Returns
    -------
    float or ndarray
        ``-logsumexp_m(-ce_m) + log M``, per sample or averaged.

    See Also
    --------
    skcalib.metrics.ensemble_cross_entropy : The same from probabilities.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import ensemble_cross_entropy
    >>> logits = [[[1, 0, 0], [0, 1, 2]], [[0, 2, 0], [1, 1, 1]]]
    >>> round(ensemble_cross_entropy([0, 2], logits), 10)
    0.8847661862
    """
    ce = _member_ce(labels, logits, binary)
    nll = -logsumexp(-ce, axis=0) + np.log(ce.shape[0])
    return float(nll.mean()) if aggregate else nll


@validate_params(_CE, prefer_skip_nested_validation=True)
def gibbs_cross_entropy(labels, logits, binary=False, aggregate=True):
    """Compute the Gibbs cross-entropy of uncertainty_metrics 0.0.82, from logits.

    Parameters
    ----------
    labels : array-like of shape (...)
        Integer class indices (float 0/1 with ``binary=True``).
    logits : array-like of shape (M, ..., K), or (M, ...) with ``binary=True``
        Logits of the members, member axis first.
    binary : bool, default=False
        Sigmoid logits of a binary problem.
    aggregate : bool, default=True
        Return the mean over the samples (else one value per sample).

    Returns
    -------
    float or ndarray
        ``mean_m ce_m``, per sample or averaged.

    See Also
    --------
    skcalib.metrics.gibbs_cross_entropy : The same from probabilities.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import gibbs_cross_entropy
    >>> logits = [[[1, 0, 0], [0, 1, 2]], [[0, 2, 0], [1, 1, 1]]]
    >>> round(gibbs_cross_entropy([0, 2], logits), 10)
    1.0743019333
    """
    ce = _member_ce(labels, logits, binary).mean(axis=0)
    return float(ce.mean()) if aggregate else ce


@validate_params({"logits": ["array-like"]}, prefer_skip_nested_validation=True)
def model_uncertainty(logits):
    """Uncertainty decomposition of uncertainty_metrics 0.0.82, from logits.

    Parameters
    ----------
    logits : array-like of shape (N, M, K)
        Logits: samples first, **members second**, classes last.

    Returns
    -------
    model_uncertainty, total_uncertainty, expected_data_uncertainty : ndarray of shape (N,)
        Mutual information, entropy of the mean and mean entropy (nats).

    See Also
    --------
    skcalib.metrics.model_uncertainty : The same from probabilities, members first.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import model_uncertainty
    >>> model, total, data = model_uncertainty([[[1, 0, 0], [0, 1, 0]]])
    >>> round(float(model[0]), 10)
    0.0874304123
    """
    Z = real(logits, "logits", min_ndim=3, nonempty=True)
    if Z.ndim != 3:
        raise ValueError(f"logits must have rank 3 (N, M, K), got shape {Z.shape}")
    logp = log_softmax(Z, axis=-1)
    data = -(np.exp(logp) * logp).sum(-1).mean(-1)
    log_mean = logsumexp(logp, axis=1) - np.log(Z.shape[1])
    total = -(np.exp(log_mean) * log_mean).sum(-1)
    return total - data, total, data


# --------------------------------------------------------------------------------------
# diversity
# --------------------------------------------------------------------------------------


def _pair(x, y, names=("logits_1", "logits_2")):
    a, b = (real(v, n, min_ndim=2, nonempty=True) for v, n in zip((x, y), names, strict=True))
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} have different shapes: {a.shape}, {b.shape}")
    return a, b


_TWO = {"logits_1": ["array-like"], "logits_2": ["array-like"]}


@validate_params(_TWO, prefer_skip_nested_validation=True)
def disagreement(logits_1, logits_2):
    """Fraction of samples whose argmax differs (uncertainty_metrics 0.0.82).

    Parameters
    ----------
    logits_1, logits_2 : array-like of shape (N, K)
        Logits or probabilities of the two members.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import disagreement
    >>> disagreement([[1, 2], [3, 0]], [[2, 1], [3, 1]])
    0.5
    """
    a, b = _pair(logits_1, logits_2)
    return float(np.mean(a.argmax(-1) != b.argmax(-1)))


@validate_params({**_TWO, "labels": ["array-like"]}, prefer_skip_nested_validation=True)
def double_fault(logits_1, logits_2, labels):
    """P(member 2 wrong | member 1 wrong), the reference's ``double_fault``.

    Parameters
    ----------
    logits_1, logits_2 : array-like of shape (N, K)
        Logits or probabilities of the two members.
    labels : array-like of shape (N,)
        Integer class indices.

    Returns
    -------
    float
        The fraction of member 1's mistakes that member 2 also makes; a ValueError if
        member 1 makes none (the reference returns NaN).

    See Also
    --------
    skcalib.metrics.double_fault : The fraction of samples both members get wrong.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import double_fault
    >>> double_fault([[1, 2, 3], [3, 2, 1], [0, 0, 1]],
    ...              [[3, 2, 1], [3, 1, 2], [1, 0, 0]], [2, 0, 1])
    1.0
    """
    a, b = _pair(logits_1, logits_2)
    y = int_labels(labels, a.shape[:-1])
    wrong_1 = a.argmax(-1) != y
    if not wrong_1.any():
        raise ValueError(
            "double_fault: member 1 makes no mistake, so the reference's conditional "
            "probability is undefined (uncertainty_metrics returns NaN)"
        )
    return float(np.mean((b.argmax(-1) != y)[wrong_1]))


@validate_params(
    {"p": ["array-like"], "q": ["array-like"], "clip": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def kl_divergence(p, q, clip=False):
    """Per-sample ``sum_k p log(p / q)`` (uncertainty_metrics 0.0.82).

    Parameters
    ----------
    p, q : array-like of shape (N, K)
        Probabilities.
    clip : bool, default=False
        Clip both to ``[1e-7, 1]`` first.

    Returns
    -------
    ndarray of shape (N,)
        The KL divergence of each sample.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import kl_divergence
    >>> kl_divergence([[0.5, 0.5]], [[0.9, 0.1]]).round(6)
    array([0.510826])
    """
    a, b = _pair(p, q, ("p", "q"))
    if clip:
        a, b = np.clip(a, 1e-7, 1.0), np.clip(b, 1e-7, 1.0)
    with np.errstate(all="ignore"):
        out = (a * np.log(a / b)).sum(-1)
    if not np.isfinite(out).all():
        raise ValueError(
            "kl_divergence is not finite (a zero or negative probability; the reference "
            "returns NaN or inf): pass clip=True"
        )
    return out


@validate_params(_TWO, prefer_skip_nested_validation=True)
def logit_kl_divergence(logits_1, logits_2):
    """Mean KL divergence of the softmax of two members' logits.

    Parameters
    ----------
    logits_1, logits_2 : array-like of shape (N, K)
        Logits of the two members.

    Returns
    -------
    float
        ``mean_i KL(softmax(logits_1[i]) || softmax(logits_2[i]))``.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import logit_kl_divergence
    >>> round(logit_kl_divergence([[1, 2, 3], [3, 2, 1], [0, 0, 1]],
    ...                           [[3, 2, 1], [3, 1, 2], [1, 0, 0]]), 10)
    0.5564313301
    """
    a, b = _pair(logits_1, logits_2)
    la, lb = log_softmax(a, axis=-1), log_softmax(b, axis=-1)
    return float(np.mean((np.exp(la) * (la - lb)).sum(-1)))


@validate_params(
    {
        "x": ["array-like"],
        "y": ["array-like"],
        "p": [Interval(numbers.Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def lp_distance(x, y, p=1):
    """Mean over samples of ``(sum_k |x - y|^p)^(1/p)`` (uncertainty_metrics 0.0.82).

    Parameters
    ----------
    x, y : array-like of shape (N, K)
        Logits or probabilities of the two members.
    p : float > 0, default=1
        Order.

    Returns
    -------
    float
        The mean distance.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import lp_distance
    >>> round(lp_distance([[1, 2, 3], [3, 2, 1], [0, 0, 1]],
    ...                   [[3, 2, 1], [3, 1, 2], [1, 0, 0]]), 10)
    2.6666666667
    """
    a, b = _pair(x, y, ("x", "y"))
    return float(np.mean((np.abs(a - b) ** p).sum(-1) ** (1.0 / p)))


@validate_params({"x": ["array-like"], "y": ["array-like"]}, prefer_skip_nested_validation=True)
def cosine_distance(x, y):
    """Mean cosine **similarity** (the reference's ``cosine_distance``).

    Parameters
    ----------
    x, y : array-like of shape (N, K)
        Logits or probabilities of the two members.

    Returns
    -------
    float
        ``mean_i <x_i, y_i> / (|x_i| |y_i|)``: 1 for the same direction.

    See Also
    --------
    skcalib.metrics.cosine_distance : One minus the similarity.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import cosine_distance
    >>> round(cosine_distance([[1, 2, 3], [3, 2, 1], [0, 0, 1]],
    ...                       [[3, 2, 1], [3, 1, 2], [1, 0, 0]]), 10)
    0.5476190476
    """
    a, b = _pair(x, y, ("x", "y"))
    num = (a * b).sum(-1)
    den = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    if not np.all(den > 0):
        raise ValueError("cosine_distance of a zero vector is undefined (the reference: NaN)")
    return float(np.mean(num / den))


def _members(probs, num_models):
    P = real(probs, "probs", min_ndim=3, nonempty=True)
    if P.shape[0] != num_models:
        raise ValueError(
            f"probs has {P.shape[0]} models on its first axis but num_models={num_models}"
        )
    return P


@validate_params(
    {
        "probs": ["array-like"],
        "num_models": [Interval(numbers.Integral, 2, None, closed="left")],
        "error": [Interval(numbers.Real, 0, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def average_pairwise_diversity(probs, num_models, error=None):
    """Diversity averaged over the pairs ``i < j`` (uncertainty_metrics 0.0.82).

    Parameters
    ----------
    probs : array-like of shape (num_models, N, K)
        Probabilities of every member.
    num_models : int >= 2
        Must equal ``probs.shape[0]``.
    error : float, default=None
        If given, the disagreement is divided by ``error + 1e-7``.

    Returns
    -------
    dict
        ``{"disagreement", "average_kl", "cosine_similarity"}``.

    See Also
    --------
    skcalib.metrics.average_pairwise_diversity : Order-free averages of the distances.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import average_pairwise_diversity
    >>> d = average_pairwise_diversity([[[.9, .1]], [[.4, .6]]], 2)
    >>> d["disagreement"], round(d["average_kl"], 6)
    (1.0, 0.550661)
    """
    P = _members(probs, num_models)
    pairs = list(itertools.combinations(range(num_models), 2))
    dis = np.mean([disagreement(P[i], P[j]) for i, j in pairs])
    if error is not None:
        dis = dis / (error + 1e-7)
    kl = np.mean([kl_divergence(P[i], P[j]).mean() for i, j in pairs])
    cos = np.mean([cosine_distance(P[i], P[j]) for i, j in pairs])
    return {"disagreement": float(dis), "average_kl": float(kl), "cosine_similarity": float(cos)}


@validate_params(
    {
        "probs": ["array-like"],
        "labels": ["array-like"],
        "num_models": [Interval(numbers.Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def variance_bound(probs, labels, num_models):
    """Variance term of the ensemble bound (uncertainty_metrics 0.0.82).

    Parameters
    ----------
    probs : array-like of shape (num_models, N, K)
        Probabilities of every member; only those of the observed labels are read.
    labels : array-like of shape (N,)
        Integer class indices.
    num_models : int
        Must equal ``probs.shape[0]``.

    Returns
    -------
    float
        ``(1/2) mean_{m,i} ((q_mi - mean_m q_mi) / max_m q_mi)^2``.

    See Also
    --------
    skcalib.metrics.variance_bound : The same with validated probabilities.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import variance_bound
    >>> probs = [[[.5, .4, .1], [.1, .1, .8]], [[.3, .3, .4], [.1, 0., .9]],
    ...          [[.8, .1, .1], [0., .6, .3]], [[.5, .1, .1], [.1, .2, .7]]]
    >>> variance_bound(probs, [0, 2], 4)
    0.028461974344135804
    """
    P = _members(probs, num_models)
    y = int_labels(labels, P.shape[1:2], P.shape[2])
    q = P[:, np.arange(y.shape[0]), y]
    q_max = q.max(axis=0)
    if not np.all(q_max > 0):
        raise ValueError("variance_bound: every member gives an observed label probability 0")
    return float(0.5 * np.mean(((q - q.mean(axis=0)) / q_max) ** 2))
