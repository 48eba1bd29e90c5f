r"""Uncertainty of ensembles: the entropy decomposition and the cross-entropies.

The members' predictions are ``y_proba_members`` of shape
``(n_members, n_samples, n_classes)`` (the member axis first, as
:func:`~skcalib.metrics.member_probabilities` returns them), or
``(n_members, n_samples)`` for the positive-class probability of a binary problem
(:func:`model_uncertainty`, which has no ``y_true`` to tell the sample axis, accepts
that form only with ``binary=True``).  Every member is validated like any ``y_proba``.

* :func:`model_uncertainty`: total uncertainty (entropy of the averaged prediction) =
  data (aleatoric) uncertainty (mean entropy of the members) + model (epistemic)
  uncertainty (the mutual information between the label and the member).
* :func:`knowledge_uncertainty`: the same decomposition for a Dirichlet over the class
  probabilities (prior networks), in closed form.
* :func:`ensemble_cross_entropy` and :func:`gibbs_cross_entropy`: negative
  log-likelihood of the averaged prediction, and average negative log-likelihood of the
  members.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import digamma, entr, logsumexp, rel_entr

from ..._core._validation import (
    _as_float,
    _find_nonfinite,
    _to_numpy,
    check_classification_input,
    check_proba_values,
)
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import UncertaintyDecompositionResult

__all__ = [
    "ensemble_cross_entropy",
    "gibbs_cross_entropy",
    "knowledge_uncertainty",
    "model_uncertainty",
]


# --------------------------------------------------------------------------------------
# validation of member predictions (shared with the diversity functions)
# --------------------------------------------------------------------------------------


def _check_member_shapes(x, name):
    """Members given as a list of arrays must all have the same shape."""
    if isinstance(x, list | tuple) and len(x) > 1:
        shapes = [np.shape(m) for m in x]
        for j, s in enumerate(shapes[1:], start=1):
            if s != shapes[0]:
                raise ValueError(
                    f"{name}: the members have different shapes: member 0 has shape "
                    f"{shapes[0]} and member {j} has shape {s}"
                )


def _check_proba_2d(P, name):
    """Check the values of one member's (n_samples, n_classes) probabilities."""
    check_proba_values(P, name=name)


def _binary_to_2d(P, name):
    """Positive-class probabilities (..., n_samples) -> (..., n_samples, 2)."""
    _find_nonfinite(P.reshape(-1), name)
    if P.size and not (P.min() >= 0 and P.max() <= 1):
        raise ValueError(f"{name} must contain probabilities in [0, 1]")
    return np.stack([1.0 - P, P], axis=-1)


def check_members(y_proba_members, name="y_proba_members", *, binary=None, context=None):
    """Validated member probabilities as a float64 array (n_members, n_samples, n_classes).

    2-D input is the positive-class probability ``(n_members, n_samples)`` of a binary
    problem and becomes two columns ``[1 - p, p]``.  ``binary`` says which forms are
    accepted: ``None`` both (the functions that also take ``y_true``, whose length tells
    the sample axis), ``False`` only 3-D input, ``True`` only the 2-D binary form.
    ``context`` (the public function's name) starts the shape messages.
    """
    _check_member_shapes(y_proba_members, name)
    P = _as_float(_to_numpy(y_proba_members, name), name)
    where = f"{context}: " if context else ""
    if P.ndim not in (2, 3):
        raise ValueError(
            f"{where}{name} must be 3-D of shape (n_members, n_samples, n_classes) (or 2-D "
            f"(n_members, n_samples) for binary positive-class probabilities), got an "
            f"array of shape {P.shape}"
        )
    if binary is False and P.ndim == 2:
        raise ValueError(
            f"{where}{name} must be 3-D of shape (n_members, n_samples, n_classes): one "
            "(n_samples, n_classes) array per member, stacked on the first axis (e.g. "
            f"member_probabilities(ensemble, X)); got a 2-D array of shape {P.shape}, "
            "which looks like the output of one model. If it holds the positive-class "
            "probabilities of binary members, of shape (n_members, n_samples), pass "
            "binary=True"
        )
    if binary is True and P.ndim != 2:
        raise ValueError(
            f"{where}binary=True expects {name} of shape (n_members, n_samples): the "
            f"positive-class probability of each member; got shape {P.shape} (pass "
            "binary=False for class probabilities of shape (n_members, n_samples, "
            "n_classes))"
        )
    if P.shape[0] == 0:
        raise ValueError(f"{name} has no members (its first axis has length 0)")
    if P.shape[1] == 0:
        raise ValueError(f"{name} is empty: need at least one sample")
    P = np.asarray(P, dtype=np.float64)
    if P.ndim == 2:
        return _binary_to_2d(P, name)
    if P.shape[2] < 2:
        raise ValueError(
            f"{name} must have at least 2 classes (its last axis), got shape {P.shape}; "
            "pass binary positive-class probabilities as (n_members, n_samples)"
        )
    for j in range(P.shape[0]):
        _check_proba_2d(P[j], f"{name}[{j}]")
    return P


def true_class_proba(y_true, P, *, labels=None, sample_weight=None):
    """Probability that each member gives the observed label: (n_members, n_samples).

    ``P`` is validated member probabilities (:func:`check_members`).  Returns the
    probabilities, the validated sample weights and the encoded labels.
    """
    data = check_input_named(
        y_true, P[0], "y_proba_members", labels=labels, sample_weight=sample_weight
    )
    y = data.y.astype(np.intp)
    q = P[:, np.arange(y.shape[0]), y]
    return q, data.sample_weight, y


def check_input_named(y_true, P, name, *, labels=None, sample_weight=None):
    """:func:`check_classification_input` of probabilities ``P`` whose messages name
    the argument ``name``."""
    return check_classification_input(
        y_true, P, labels=labels, sample_weight=sample_weight, proba_name=name
    )


def weighted_mean(values, sample_weight):
    """Mean over samples (the last axis), weighted by ``sample_weight`` when given."""
    if sample_weight is None:
        return float(np.mean(values, axis=-1))
    return float(values @ sample_weight / sample_weight.sum())


def _eps_value(eps):
    return float(np.finfo(np.float64).eps) if eps == "auto" else float(eps)


# --------------------------------------------------------------------------------------
# uncertainty decomposition
# --------------------------------------------------------------------------------------


@validate_params(
    {"y_proba_members": ["array-like"], "binary": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def model_uncertainty(y_proba_members, *, binary=False):
    r"""Decompose the predictive uncertainty of an ensemble, per sample.

    With the members' class probabilities :math:`p_m` (``M`` members) and the
    ensemble's prediction :math:`\bar p = \frac1M \sum_m p_m`, in nats,

    .. math::

        \underbrace{H(\bar p)}_{\text{total}}
        = \underbrace{\frac1M \sum_{m} H(p_m)}_{\text{data}}
        + \underbrace{\frac1M \sum_{m} \mathrm{KL}(p_m \,\|\, \bar p)}_{\text{model}},
        \qquad H(p) = -\sum_k p_k \log p_k.

    The *data* (aleatoric) uncertainty is the expected entropy of a member; the *model*
    (epistemic, knowledge) uncertainty is the mutual information between the label and
    the member, which is at least 0 and is 0 exactly when all members agree (computed
    as the mean KL divergence to the averaged prediction, so that identical members give
    exactly 0).  ``0 log 0 = 0``.

    Parameters
    ----------
    y_proba_members : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of every member (columns in the same class order), members
        first, as :func:`~skcalib.metrics.member_probabilities` returns them.  With
        ``binary=True``: the positive-class probabilities of a binary problem, of shape
        (n_members, n_samples).
    binary : bool, default=False
        Whether ``y_proba_members`` is 2-D, the members' positive-class probabilities.
        A 2-D array is refused otherwise: it is more often the (n_samples, n_classes)
        output of a single model, which has no model uncertainty to measure.

    Returns
    -------
    result : UncertaintyDecompositionResult
        Unpacks as ``(total, data, model)``, each an ndarray of shape (n_samples,)
        and an attribute of the same name; ``total = data + model`` up to rounding.

    See Also
    --------
    knowledge_uncertainty : The same decomposition for Dirichlet outputs.

    References
    ----------
    Depeweg, Hernandez-Lobato, Doshi-Velez and Udluft, "Decomposition of uncertainty in
    Bayesian deep learning for efficient and risk-sensitive learning", ICML 2018.
    Malinin and Gales, "Predictive uncertainty estimation via prior networks",
    NeurIPS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import model_uncertainty
    >>> members = np.array([[[0.9, 0.1], [0.5, 0.5]],    # member 1, two samples
    ...                     [[0.1, 0.9], [0.5, 0.5]]])   # member 2
    >>> total, data, model = model_uncertainty(members)
    >>> np.round(data, 4)
    array([0.3251, 0.6931])
    >>> u = model_uncertainty(members)
    >>> np.round(u.model, 4)  # the members disagree on sample 0 only
    array([0.3681, 0.    ])
    >>> np.round(u.total, 4)
    array([0.6931, 0.6931])

    Binary members may give the positive-class probability only, with ``binary=True``:

    >>> np.round(model_uncertainty([[0.1, 0.5], [0.9, 0.5]], binary=True).model, 4)
    array([0.3681, 0.    ])
    """
    P = check_members(y_proba_members, binary=binary, context="model_uncertainty")
    P_bar = P.mean(axis=0)
    total = entr(P_bar).sum(axis=-1)
    data = entr(P).sum(axis=-1).mean(axis=0)
    model = rel_entr(P, P_bar[None]).sum(axis=-1).mean(axis=0)
    np.maximum(model, 0.0, out=model)
    model[np.all(P == P[0], axis=(0, 2))] = 0.0  # members agree: no rounding residue
    return UncertaintyDecompositionResult(total=total, data=data, model=model)


@validate_params({"alpha": ["array-like"]}, prefer_skip_nested_validation=True)
def knowledge_uncertainty(alpha):
    r"""Decompose the uncertainty of Dirichlet outputs (prior networks), per sample.

    For a Dirichlet distribution :math:`\mathrm{Dir}(\alpha)` over the class
    probabilities :math:`\pi`, with :math:`\alpha_0 = \sum_c \alpha_c` and the expected
    prediction :math:`\bar p = \alpha / \alpha_0`, in nats,

    .. math::

        \underbrace{H(\bar p)}_{\text{total}}
        = \underbrace{\mathbb{E}_{\mathrm{Dir}(\alpha)}[H(\pi)]}_{\text{data}}
        + \underbrace{I[y, \pi]}_{\text{model}},
        \qquad
        \mathbb{E}[H(\pi)] = -\sum_c \frac{\alpha_c}{\alpha_0}
        \bigl(\psi(\alpha_c + 1) - \psi(\alpha_0 + 1)\bigr),

    with :math:`\psi` the digamma function.  The mutual information ``model`` (the
    knowledge uncertainty) is at least 0 (rounding below 0 is clipped) and goes to 0 as
    :math:`\alpha_0 \to \infty`; a flat Dirichlet with small :math:`\alpha_0` has a
    large one (an out-of-distribution input for a prior network).

    Parameters
    ----------
    alpha : array-like of shape (n_samples, n_classes)
        Concentration parameters, finite and strictly positive, at least 2 classes.

    Returns
    -------
    result : UncertaintyDecompositionResult
        Unpacks as ``(total, data, model)``, each an ndarray of shape (n_samples,)
        and an attribute of the same name.

    See Also
    --------
    model_uncertainty : The same decomposition for an ensemble.

    References
    ----------
    Malinin and Gales, "Predictive uncertainty estimation via prior networks",
    NeurIPS 2018.
    Malinin, Mlodozeniec and Gales, "Ensemble distribution distillation", ICLR 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import knowledge_uncertainty
    >>> total, data, model = knowledge_uncertainty([[1.0, 1.0], [100.0, 100.0]])
    >>> np.round(total, 4)
    array([0.6931, 0.6931])
    >>> u = knowledge_uncertainty([[1.0, 1.0], [100.0, 100.0]])
    >>> np.round(u.data, 4)
    array([0.5   , 0.6907])
    >>> np.round(u.model, 4)  # a flat Dirichlet knows little
    array([0.1931, 0.0025])
    """
    A = _as_float(_to_numpy(alpha, "alpha"), "alpha")
    if A.ndim != 2:
        raise ValueError(f"alpha must be 2-D of shape (n_samples, n_classes), got shape {A.shape}")
    if A.shape[0] == 0:
        raise ValueError("alpha is empty: need at least one sample")
    if A.shape[1] < 2:
        raise ValueError(f"alpha must have at least 2 classes (columns), got shape {A.shape}")
    A = np.asarray(A, dtype=np.float64)
    _find_nonfinite(A, "alpha")
    if not A.min() > 0:
        i, j = np.argwhere(~(A > 0))[0]
        raise ValueError(f"alpha must be strictly positive; alpha[{i}, {j}] = {float(A[i, j])!r}")
    a0 = A.sum(axis=1, keepdims=True)
    p = A / a0
    total = entr(p).sum(axis=1)
    data = -(p * (digamma(A + 1.0) - digamma(a0 + 1.0))).sum(axis=1)
    model = np.maximum(total - data, 0.0)
    return UncertaintyDecompositionResult(total=total, data=data, model=model)


# --------------------------------------------------------------------------------------
# cross-entropies
# --------------------------------------------------------------------------------------

_CE_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_proba_members": ["array-like"],
    "eps": [StrOptions({"auto"}), Interval(numbers.Real, 0, 0.5, closed="left")],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
}


def _log_true_class_proba(y_true, y_proba_members, eps, sample_weight, labels):
    P = check_members(y_proba_members)
    q, sw, _ = true_class_proba(y_true, P, labels=labels, sample_weight=sample_weight)
    with np.errstate(divide="ignore"):  # eps=0 and a zero probability: -log 0 = inf
        return np.log(np.maximum(q, _eps_value(eps))), sw


@validate_params(_CE_CONSTRAINTS, prefer_skip_nested_validation=True)
def ensemble_cross_entropy(y_true, y_proba_members, *, eps="auto", sample_weight=None, labels=None):
    r"""Negative log-likelihood of the ensemble's averaged prediction.

    .. math::

        \mathrm{CE}_\mathrm{ens} = -\frac1n \sum_{i=1}^n
            \log\Bigl(\frac1M \sum_{m=1}^M p_m(y_i \mid x_i)\Bigr),

    computed with :func:`scipy.special.logsumexp`; lower is better.  By Jensen's
    inequality it is at most :func:`gibbs_cross_entropy`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed labels.
    y_proba_members : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of every member (columns in ``labels`` order), or
        positive-class probabilities of a binary problem, of shape (n_members, n_samples).
    eps : "auto" or float in [0, 0.5), default="auto"
        Each member's probability of the observed label is clipped below at ``eps``
        (``"auto"``: the float64 machine epsilon), so that a member that gives an
        observed label probability 0 costs a finite amount; ``eps=0`` gives ``inf``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.
    labels : array-like of shape (n_classes,), default=None
        The classes, in column order (default: the sorted labels of ``y_true``).

    Returns
    -------
    float
        The ensemble cross-entropy in nats (lower is better).

    See Also
    --------
    gibbs_cross_entropy : The average cross-entropy of the members.

    References
    ----------
    Lakshminarayanan, Pritzel and Blundell, "Simple and scalable predictive uncertainty
    estimation using deep ensembles", NeurIPS 2017.

    Examples
    --------
    >>> from skcalib.metrics import ensemble_cross_entropy, gibbs_cross_entropy
    >>> members = [[[0.8, 0.2], [0.4, 0.6]], [[0.6, 0.4], [0.2, 0.8]]]
    >>> round(ensemble_cross_entropy([0, 1], members), 4)
    0.3567
    >>> round(gibbs_cross_entropy([0, 1], members), 4)
    0.367
    """
    logq, sw = _log_true_class_proba(y_true, y_proba_members, eps, sample_weight, labels)
    with np.errstate(divide="ignore", invalid="ignore"):  # eps=0: every member gave 0
        per_sample = np.log(logq.shape[0]) - logsumexp(logq, axis=0)
    return weighted_mean(per_sample, sw)


@validate_params(_CE_CONSTRAINTS, prefer_skip_nested_validation=True)
def gibbs_cross_entropy(y_true, y_proba_members, *, eps="auto", sample_weight=None, labels=None):
    r"""Average negative log-likelihood of the members (the Gibbs cross-entropy).

    .. math::

        \mathrm{CE}_\mathrm{Gibbs} = -\frac1n \sum_{i=1}^n \frac1M \sum_{m=1}^M
            \log p_m(y_i \mid x_i),

    the expected cross-entropy of one member drawn at random; lower is better.  It is at
    least :func:`ensemble_cross_entropy` (Jensen's inequality); the gap is the benefit
    of averaging.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed labels.
    y_proba_members : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of every member, or positive-class probabilities of a
        binary problem, of shape (n_members, n_samples).
    eps : "auto" or float in [0, 0.5), default="auto"
        Lower clip of each member's probability of the observed label, as in
        :func:`ensemble_cross_entropy`.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the samples in the mean.
    labels : array-like of shape (n_classes,), default=None
        The classes, in column order.

    Returns
    -------
    float
        The Gibbs cross-entropy in nats (lower is better).

    See Also
    --------
    ensemble_cross_entropy : The cross-entropy of the averaged prediction.

    References
    ----------
    Lakshminarayanan, Pritzel and Blundell, "Simple and scalable predictive uncertainty
    estimation using deep ensembles", NeurIPS 2017.

    Examples
    --------
    >>> from skcalib.metrics import gibbs_cross_entropy
    >>> members = [[[0.8, 0.2], [0.4, 0.6]], [[0.6, 0.4], [0.2, 0.8]]]
    >>> round(gibbs_cross_entropy([0, 1], members), 4)
    0.367
    """
    logq, sw = _log_true_class_proba(y_true, y_proba_members, eps, sample_weight, labels)
    return weighted_mean(-logq.mean(axis=0), sw)
