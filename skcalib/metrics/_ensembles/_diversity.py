r"""Diversity of ensemble members.

Pairwise functions compare two members' predictions ``y_proba_a`` and ``y_proba_b``
(each of shape ``(n_samples, n_classes)``, or ``(n_samples,)`` positive-class
probabilities of a binary problem) and average a per-sample quantity over the samples
(weighted by ``sample_weight``).  :func:`average_pairwise_diversity` averages them over
all pairs of members of ``y_proba_members`` (shape ``(n_members, n_samples,
n_classes)``); :func:`variance_bound` is the variance term of the ensemble's risk bound
of Ortega, Cabañas and Masegosa.  A member's prediction is its argmax class (the first
on ties), as ``predict``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import rel_entr

from ..._core._validation import _as_float, _to_numpy, check_sample_weight
from ...utils._sklearn_compat import Interval, validate_params
from .._results import PairwiseDiversityResult
from ._uncertainty import (
    _binary_to_2d,
    _check_proba_2d,
    check_input_named,
    check_members,
    true_class_proba,
    weighted_mean,
)

__all__ = [
    "average_pairwise_diversity",
    "cosine_distance",
    "disagreement",
    "double_fault",
    "kl_divergence",
    "lp_distance",
    "variance_bound",
]


def _check_one(P, name):
    P = _as_float(_to_numpy(P, name), name)
    if P.ndim == 2 and P.shape[1] == 1:
        P = P[:, 0]
    if P.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be 1-D (binary positive-class probabilities) or 2-D "
            f"(n_samples, n_classes), got shape {P.shape}"
        )
    if P.shape[0] == 0:
        raise ValueError(f"{name} is empty: need at least one sample")
    P = np.asarray(P, dtype=np.float64)
    if P.ndim == 1:
        return _binary_to_2d(P, name)
    _check_proba_2d(P, name)
    return P


def _check_pair(y_proba_a, y_proba_b, sample_weight):
    A = _check_one(y_proba_a, "y_proba_a")
    B = _check_one(y_proba_b, "y_proba_b")
    if A.shape != B.shape:
        raise ValueError(f"y_proba_a and y_proba_b have different shapes: {A.shape} and {B.shape}")
    sw = check_sample_weight(sample_weight, A.shape[0])
    return A, B, sw


_PAIR = {
    "y_proba_a": ["array-like"],
    "y_proba_b": ["array-like"],
    "sample_weight": ["array-like", None],
}


# per-sample kernels on validated (n_samples, n_classes) float64 arrays


def _kl(A, B):
    with np.errstate(divide="ignore", over="ignore"):
        return rel_entr(A, B).sum(axis=-1)  # inf where B = 0 < A


def _cosine(A, B):
    num = (A * B).sum(axis=-1)
    den = np.sqrt((A * A).sum(axis=-1) * (B * B).sum(axis=-1))
    return np.clip(1.0 - num / den, 0.0, 1.0)


def _lp(A, B, p):
    d = np.abs(A - B)
    if p == 1:
        return d.sum(axis=-1)
    if p == 2:
        return np.sqrt((d * d).sum(axis=-1))
    # scale by the largest difference: no overflow or underflow of d ** p
    m = d.max(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(m > 0, d / m, 0.0)
    return m[..., 0] * (r**p).sum(axis=-1) ** (1.0 / p)


@validate_params(_PAIR, prefer_skip_nested_validation=True)
def disagreement(y_proba_a, y_proba_b, *, sample_weight=None):
    r"""Fraction of samples on which two members predict different classes.

    .. math::

        \mathrm{dis}(a, b) = \frac1n \sum_{i=1}^n
            \mathbb 1\{\arg\max_k a_{ik} \ne \arg\max_k b_{ik}\}.

    Parameters
    ----------
    y_proba_a, y_proba_b : array-like of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities of the two members (same class order), or positive-class
        probabilities of a binary problem (predicted positive when above 0.5).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.

    Returns
    -------
    float
        In [0, 1]; higher means more diverse.

    References
    ----------
    Skalak, "The sources of increased accuracy for two proposed boosting algorithms",
    AAAI Workshop on Integrating Multiple Learned Models, 1996.
    Fort, Hu and Lakshminarayanan, "Deep ensembles: a loss landscape perspective",
    arXiv:1912.02757, 2019.

    Examples
    --------
    >>> from skcalib.metrics import disagreement
    >>> disagreement([[0.9, 0.1], [0.4, 0.6]], [[0.6, 0.4], [0.7, 0.3]])
    0.5
    """
    A, B, sw = _check_pair(y_proba_a, y_proba_b, sample_weight)
    return weighted_mean((A.argmax(axis=1) != B.argmax(axis=1)).astype(np.float64), sw)


@validate_params(
    {"y_true": ["array-like"], **_PAIR, "labels": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def double_fault(y_true, y_proba_a, y_proba_b, *, sample_weight=None, labels=None):
    r"""Fraction of samples that both members misclassify.

    .. math::

        \mathrm{DF}(a, b) = \frac1n \sum_{i=1}^n
            \mathbb 1\{\hat y^a_i \ne y_i\}\,\mathbb 1\{\hat y^b_i \ne y_i\},

    with :math:`\hat y^a_i = \arg\max_k a_{ik}`.  Lower means the members make
    different mistakes, which averaging can correct.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed labels.
    y_proba_a, y_proba_b : array-like of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities of the two members (columns in ``labels`` order), or
        positive-class probabilities of a binary problem, of shape (n_members, n_samples).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.
    labels : array-like of shape (n_classes,), default=None
        The classes, in column order (default: the sorted labels of ``y_true``).

    Returns
    -------
    float
        In [0, 1].

    Notes
    -----
    uncertainty_metrics 0.0.82 (``uncertainty_metrics/tensorflow/diversity.py``)
    returns the conditional probability that member ``b`` is wrong given that member
    ``a`` is wrong (NaN when ``a`` makes no mistake), although its documentation
    describes this fraction.

    References
    ----------
    Giacinto and Roli, "Design of effective neural network ensembles for image
    classification purposes", Image and Vision Computing 19(9-10), 2001.
    Kuncheva and Whitaker, "Measures of diversity in classifier ensembles and their
    relationship with the ensemble accuracy", Machine Learning 51, 2003.

    Examples
    --------
    >>> from skcalib.metrics import double_fault
    >>> a = [[0.9, 0.1], [0.4, 0.6], [0.3, 0.7]]
    >>> b = [[0.2, 0.8], [0.1, 0.9], [0.4, 0.6]]
    >>> double_fault([0, 0, 1], a, b)  # only sample 1 is missed by both
    0.3333333333333333
    """
    A = _check_one(y_proba_a, "y_proba_a")
    B = _check_one(y_proba_b, "y_proba_b")
    if A.shape != B.shape:
        raise ValueError(f"y_proba_a and y_proba_b have different shapes: {A.shape} and {B.shape}")
    data = check_input_named(y_true, A, "y_proba_a", labels=labels, sample_weight=sample_weight)
    y = data.y.astype(np.intp)
    both = (A.argmax(axis=1) != y) & (B.argmax(axis=1) != y)
    return weighted_mean(both.astype(np.float64), data.sample_weight)


@validate_params(_PAIR, prefer_skip_nested_validation=True)
def kl_divergence(y_proba_a, y_proba_b, *, sample_weight=None):
    r"""Mean Kullback-Leibler divergence of member ``b``'s prediction from member ``a``'s.

    .. math::

        \mathrm{KL}(a \,\|\, b) = \frac1n \sum_{i=1}^n \sum_k a_{ik} \log\frac{a_{ik}}{b_{ik}},

    in nats, with ``0 log(0 / b) = 0``.  Not symmetric; ``inf`` when ``b`` gives
    probability 0 to a class that ``a`` does not (the divergence is infinite).

    Parameters
    ----------
    y_proba_a, y_proba_b : array-like of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities of the two members, or positive-class probabilities of a
        binary problem.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.

    Returns
    -------
    float
        At least 0; 0 when the predictions are identical.

    References
    ----------
    Kullback and Leibler, "On information and sufficiency", Annals of Mathematical
    Statistics 22(1), 1951.

    Examples
    --------
    >>> from skcalib.metrics import kl_divergence
    >>> round(kl_divergence([[0.5, 0.5]], [[0.9, 0.1]]), 6)
    0.510826
    """
    A, B, sw = _check_pair(y_proba_a, y_proba_b, sample_weight)
    return weighted_mean(np.maximum(_kl(A, B), 0.0), sw)


@validate_params(_PAIR, prefer_skip_nested_validation=True)
def cosine_distance(y_proba_a, y_proba_b, *, sample_weight=None):
    r"""Mean cosine distance between two members' predicted probability vectors.

    .. math::

        d_{\cos}(a, b) = \frac1n \sum_{i=1}^n
            \Bigl(1 - \frac{\langle a_i, b_i\rangle}{\lVert a_i\rVert\,\lVert b_i\rVert}\Bigr),

    as :func:`scipy.spatial.distance.cosine` row by row.  For probability vectors it
    lies in [0, 1]: 0 for identical predictions, 1 for predictions on disjoint classes.

    Parameters
    ----------
    y_proba_a, y_proba_b : array-like of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities of the two members, or positive-class probabilities of a
        binary problem.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.

    Returns
    -------
    float
        In [0, 1].

    Notes
    -----
    uncertainty_metrics 0.0.82 (``uncertainty_metrics/tensorflow/diversity.py``) names
    ``cosine_distance`` what is the cosine *similarity*, one minus this distance.

    References
    ----------
    Fort, Hu and Lakshminarayanan, "Deep ensembles: a loss landscape perspective",
    arXiv:1912.02757, 2019.

    Examples
    --------
    >>> from skcalib.metrics import cosine_distance
    >>> round(cosine_distance([[1.0, 0.0], [0.5, 0.5]], [[0.0, 1.0], [0.5, 0.5]]), 6)
    0.5
    """
    A, B, sw = _check_pair(y_proba_a, y_proba_b, sample_weight)
    return weighted_mean(_cosine(A, B), sw)


@validate_params(
    {**_PAIR, "p": [Interval(numbers.Real, 1, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def lp_distance(y_proba_a, y_proba_b, *, p=2, sample_weight=None):
    r"""Mean :math:`L^p` distance between two members' predicted probability vectors.

    .. math::

        d_p(a, b) = \frac1n \sum_{i=1}^n \Bigl(\sum_k |a_{ik} - b_{ik}|^p\Bigr)^{1/p},

    as :func:`scipy.spatial.distance.minkowski` row by row.  ``p=1`` is twice the total
    variation distance (in [0, 2]); ``p=2`` (the default) the Euclidean distance (in
    [0, sqrt(2)]).

    Parameters
    ----------
    y_proba_a, y_proba_b : array-like of shape (n_samples, n_classes) or (n_samples,)
        Class probabilities of the two members, or positive-class probabilities of a
        binary problem.
    p : float >= 1, default=2
        Order of the norm.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.

    Returns
    -------
    float
        At least 0.

    References
    ----------
    Fort, Hu and Lakshminarayanan, "Deep ensembles: a loss landscape perspective",
    arXiv:1912.02757, 2019.

    Examples
    --------
    >>> from skcalib.metrics import lp_distance
    >>> round(lp_distance([[0.9, 0.1]], [[0.6, 0.4]]), 6)
    0.424264
    >>> round(lp_distance([[0.9, 0.1]], [[0.6, 0.4]], p=1), 6)
    0.6
    """
    A, B, sw = _check_pair(y_proba_a, y_proba_b, sample_weight)
    return weighted_mean(_lp(A, B, float(p)), sw)


_MEMBERS = {
    "y_true": ["array-like"],
    "y_proba_members": ["array-like"],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
}


@validate_params(
    {**_MEMBERS, "p": [Interval(numbers.Real, 1, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def average_pairwise_diversity(y_true, y_proba_members, *, p=2, sample_weight=None, labels=None):
    r"""Diversity measures averaged over all pairs of ensemble members.

    For ``M >= 2`` members, the symmetric measures (:func:`disagreement`,
    :func:`double_fault`, :func:`cosine_distance`, :func:`lp_distance`) are averaged
    over the ``M (M - 1) / 2`` unordered pairs and :func:`kl_divergence`, which is not
    symmetric, over the ``M (M - 1)`` ordered pairs (both directions), so that the
    result does not depend on the order of the members.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed labels (for the double fault).
    y_proba_members : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of every member (columns in ``labels`` order), or
        positive-class probabilities of a binary problem, of shape (n_members, n_samples).
    p : float >= 1, default=2
        Order of the :func:`lp_distance`.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the means.
    labels : array-like of shape (n_classes,), default=None
        The classes, in column order (default: the sorted labels of ``y_true``).

    Returns
    -------
    result : PairwiseDiversityResult
        Unpacks as ``(disagreement, double_fault, kl_divergence, cosine_distance,
        lp_distance)`` (floats), each also an attribute.

    Notes
    -----
    uncertainty_metrics 0.0.82 (``uncertainty_metrics/tensorflow/diversity.py``)
    returns the disagreement, the KL divergence over the pairs ``i < j`` only (which
    depends on the order of the members) and the cosine similarity.

    References
    ----------
    Kuncheva and Whitaker, "Measures of diversity in classifier ensembles and their
    relationship with the ensemble accuracy", Machine Learning 51, 2003.
    Fort, Hu and Lakshminarayanan, "Deep ensembles: a loss landscape perspective",
    arXiv:1912.02757, 2019.

    Examples
    --------
    >>> from skcalib.metrics import average_pairwise_diversity
    >>> members = [[[0.9, 0.1], [0.4, 0.6]],
    ...            [[0.6, 0.4], [0.7, 0.3]],
    ...            [[0.8, 0.2], [0.3, 0.7]]]
    >>> dis, df, kl, cos, lp = average_pairwise_diversity([0, 1], members)
    >>> round(dis, 4), round(df, 4)
    (0.3333, 0.0)
    >>> d = average_pairwise_diversity([0, 1], members)
    >>> round(d.kl_divergence, 4) == round(kl, 4)
    True
    """
    P = check_members(y_proba_members)
    M, n, _ = P.shape
    if M < 2:
        raise ValueError(
            f"average_pairwise_diversity needs at least 2 members, got y_proba_members "
            f"of shape {P.shape}"
        )
    _, sw, y = true_class_proba(y_true, P, labels=labels, sample_weight=sample_weight)
    n_pairs = M * (M - 1) / 2
    pred = P.argmax(axis=2)  # (M, n)
    # pairs that agree: sum over classes of C(count, 2)
    k = P.shape[2]
    counts = np.bincount((np.arange(n) * k + pred).ravel(), minlength=n * k)
    counts = counts.reshape(n, k).astype(np.float64)
    agree = (counts * (counts - 1) / 2).sum(axis=1)
    dis = 1.0 - agree / n_pairs
    wrong = (pred != y[None, :]).sum(axis=0).astype(np.float64)
    df = wrong * (wrong - 1) / 2 / n_pairs
    kl = np.zeros(n)
    cos = np.zeros(n)
    lp = np.zeros(n)
    for a in range(M):
        kl += _kl(P[a][None], P).sum(axis=0)
        if a + 1 < M:
            cos += _cosine(P[a][None], P[a + 1 :]).sum(axis=0)
            lp += _lp(P[a][None], P[a + 1 :], float(p)).sum(axis=0)
    kl = np.maximum(kl / (M * (M - 1)), 0.0)
    return PairwiseDiversityResult(
        disagreement=weighted_mean(dis, sw),
        double_fault=weighted_mean(df, sw),
        kl_divergence=weighted_mean(kl, sw),
        cosine_distance=weighted_mean(cos / n_pairs, sw),
        lp_distance=weighted_mean(lp / n_pairs, sw),
    )


@validate_params(_MEMBERS, prefer_skip_nested_validation=True)
def variance_bound(y_true, y_proba_members, *, sample_weight=None, labels=None):
    r"""Empirical variance term of the second-order PAC-Bayes bound of an ensemble.

    With ``q_mi`` the probability member ``m`` gives the observed label of sample ``i``,
    :math:`\bar q_i = \frac1M\sum_m q_{mi}` and :math:`q^*_i = \max_m q_{mi}`,

    .. math::

        V = \frac{1}{2}\,\frac1n \sum_{i=1}^n \frac1M \sum_{m=1}^M
            \Bigl(\frac{q_{mi} - \bar q_i}{q^*_i}\Bigr)^2,

    the variance of the members' likelihoods of the observed labels, scaled by their
    largest (a sample to which every member gives probability 0 adds 0).  Larger means
    more diverse; Ortega, Cabañas and Masegosa (Theorem 4) bound the ensemble's
    cross-entropy by the Gibbs cross-entropy minus this term.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed labels.
    y_proba_members : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of every member (columns in ``labels`` order), or
        positive-class probabilities of a binary problem, of shape (n_members, n_samples).
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.
    labels : array-like of shape (n_classes,), default=None
        The classes, in column order.

    Returns
    -------
    float
        In [0, 0.5).

    References
    ----------
    Ortega, Cabañas and Masegosa, "Diversity and generalization in neural network
    ensembles", AISTATS 2022 (arXiv:1912.08335).

    Examples
    --------
    >>> from skcalib.metrics import variance_bound
    >>> members = [[[.5, .4, .1], [.1, .1, .8]], [[.3, .3, .4], [.1, 0., .9]],
    ...            [[.8, .1, .1], [0., .7, .3]], [[.5, .4, .1], [.1, .2, .7]]]
    >>> variance_bound([0, 2], members, labels=[0, 1, 2])
    0.028461974344135804
    """
    P = check_members(y_proba_members)
    q, sw, _ = true_class_proba(y_true, P, labels=labels, sample_weight=sample_weight)
    q_max = q.max(axis=0)
    dev = q - q.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.where(q_max > 0, dev / q_max, 0.0)
    return 0.5 * weighted_mean((scaled * scaled).mean(axis=0), sw)
