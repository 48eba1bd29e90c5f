"""Selective prediction: does the uncertainty of a model rank its mistakes?

A classifier that may abstain (or defer to a human) is judged by what happens when its
least confident predictions are set aside: the accuracy of the predictions it keeps
(:func:`rejection_curve`, :func:`risk_at_coverage`), the areas under the risk-coverage
curves (:func:`area_under_risk_coverage`, :func:`excess_area_under_risk_coverage`,
:func:`area_under_generalized_risk_coverage`), the accuracy of a model-oracle team
(:func:`oracle_collaborative_accuracy`) and how well the uncertainty detects errors or
out-of-distribution inputs (:func:`uncertainty_auc`, :func:`out_of_distribution_auc`).

Uncertainty scores
------------------
Every function takes ``uncertainty=``, any per-sample score where higher means less
sure (the default is ``1 - max_k p_k``, the top-label confidence reversed).  The
entropy of ``y_proba``, one minus the margin between the two largest probabilities, or
the mutual information of an ensemble (``model_uncertainty(...).model``) work as they
are.  Only the order of the scores matters, except for the binned oracle-collaborative
accuracy, which bins scores in [0, 1].

Ties
----
A threshold on the uncertainty keeps or rejects all predictions with the same score
together, so the curves have one point per distinct score (a tie group), in the way
:func:`sklearn.metrics.roc_curve` and :func:`sklearn.metrics.average_precision_score`
treat tied scores.  Between two tie groups a quantity that is linear in the counts (the
number of errors kept) is interpolated linearly, which is its expected value when the
ties are broken at random.  Hence no result depends on the order of the samples, and a
sample weight of ``w`` equals repeating the sample ``w`` times.

Computation
-----------
One sort of the scores, then linear passes (cumulative sums at the ends of the tie
groups).  Without sample weights and with non-negative scores (always the case for the
default score) the sort key packs the score and the error bit into one 64-bit integer,
so that one ``np.sort`` (no ``argsort`` and no gather) orders both.

Every step is written once against the namespace of the input (numpy's array API
namespace for numpy input; doc/array_api.rst for the others), on its device: the sort
(one ``argsort`` outside numpy), cumulative sums in the widest float of the device, and
the areas, AUCs and curves from the tie groups; only scalars (and the ``n_bins`` sums of
the binned oracle-collaborative accuracy) travel to the host.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._core._array_api import (
    float_dtype,
    get_namespace_and_device,
    into,
    max_float_dtype,
    namespace_and_device,
    sort_with_flags,
    to_numpy,
    writable,
)
from .._core._binning import (
    COUNT,
    SUM_TRUE,
    _uniform_edges,
    accumulate_pairs,
    probability_outcome,
)
from .._core._validation import (
    _check_proba_array,
    _check_real_array,
    _detached,
    _find_nonfinite,
    _is_host,
    check_classification_input,
    check_proba_values,
    check_sample_shape,
    check_sample_weight,
    row_sum_tolerance,
)
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._results import RejectionCurveResult

__all__ = [
    "area_under_generalized_risk_coverage",
    "area_under_risk_coverage",
    "excess_area_under_risk_coverage",
    "oracle_collaborative_accuracy",
    "out_of_distribution_auc",
    "rejection_curve",
    "risk_at_coverage",
    "uncertainty_auc",
]

_DATA = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "uncertainty": ["array-like", None],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
}
_CURVES = ("roc", "pr")


# --------------------------------------------------------------------------------------
# validation: correctness of each prediction and the ranking score
# --------------------------------------------------------------------------------------


class _Ranked:
    """Validated input of the selective metrics.

    ``score`` sorts the samples: from the most confident to the least confident when
    read in decreasing order if ``confident_high`` (the default top-label confidence),
    in increasing order otherwise (a user's uncertainty).  ``wrong`` is the error
    indicator of the top-label prediction, ``sw`` the weights (None, or positive after
    the removal of the zero weights), all three arrays of the namespace ``xp`` on
    ``device`` (numpy's array API namespace for numpy input).
    """

    def __init__(self, score, confident_high, wrong, sw, xp, device):
        self.score = score
        self.confident_high = confident_high
        self.wrong = wrong
        self.sw = sw
        self.xp = xp
        self.device = device

    @property
    def total(self):
        if self.sw is None:
            return float(self.wrong.shape[0])
        return float(self.xp.sum(self.sw))


def _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label):
    """Validated :class:`_Ranked` input, in the namespace and on the device of the input
    (doc/array_api.rst): the top-label confidence and errors there; ``uncertainty`` of
    that namespace is checked there, a host one (or a device one beside numpy input)
    on the host and moved."""
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        array_api=True,
    )
    xp, device = data.namespace
    conf, correct = probability_outcome(data, "top_label")
    wrong = xp.logical_not(correct)
    if uncertainty is None:
        score, confident_high = conf, True
    else:
        score = _check_uncertainty(uncertainty, data.n_samples, "uncertainty", xp, device)
        confident_high = False
    return _ranked(score, confident_high, wrong, data.sample_weight, xp, device)


def _check_uncertainty(uncertainty, n, name, xp, device):
    """``uncertainty`` (``n`` samples; None: any number but 0) checked and in the
    namespace ``xp`` on ``device``: an array of another namespace than numpy is checked
    with its reductions, host data (and a device array beside numpy input, copied) on
    the host by the numpy checks, which name the first bad value, and moved to
    ``device``.  In its own floating dtype (float32 stays float32: no new ties), else
    the widest float of the device."""
    u_xp = get_namespace_and_device(uncertainty)[0]
    if u_xp is None or u_xp is not xp:
        if u_xp is not None:
            uncertainty = to_numpy(uncertainty, u_xp)
        u = _check_real_array(uncertainty, name, n=n)
        _find_nonfinite(u, name)
        dtype = xp.float32 if u.dtype == np.float32 else max_float_dtype(xp, device)
        return xp.asarray(u, dtype=dtype, device=device)
    u = _detached(uncertainty)
    if not xp.isdtype(u.dtype, ("real floating", "integral", "bool")):
        raise ValueError(f"{name} must contain real numbers, got dtype {u.dtype}")
    u = check_sample_shape(u, name, n=n)
    u = xp.astype(u, float_dtype(u, xp, device))
    if not bool(xp.all(xp.isfinite(u))):
        raise ValueError(f"{name} contains NaN or infinity")
    return u


def _ranked(score, confident_high, wrong, sw, xp, device):
    """:class:`_Ranked` of arrays of ``xp``: the weights in the widest float of the
    device, the samples of weight 0 removed."""
    if sw is not None:
        sw = xp.astype(sw, max_float_dtype(xp, device), copy=False)
        if not bool(xp.all(sw > 0)):  # weight 0 = removal
            keep = sw > 0
            score, wrong, sw = score[keep], wrong[keep], sw[keep]
    return _Ranked(score, confident_high, wrong, sw, xp, device)


# --------------------------------------------------------------------------------------
# the kernel: tie groups in order of decreasing confidence
# --------------------------------------------------------------------------------------


def _tie_groups(r: _Ranked):
    """Cumulative kept mass and kept errors at the end of each tie group.

    Returns ``(value, mass, errors)``, arrays of shape (n_groups,) of the namespace of
    the input in the widest float of its device (float64), ordered from the most
    confident group to the least confident one: ``value`` is the group's score,
    ``mass[g]`` the total weight and ``errors[g]`` the weight of the errors of the
    groups ``0..g`` (the predictions kept by a threshold at group ``g``).
    """
    xp, device = r.xp, r.device
    dtype = max_float_dtype(xp, device)
    if r.sw is None:
        # one sort of the scores with the error bits (numpy: one np.sort of keys that
        # pack both), an integer cumulative sum of the errors (exact below 2**53)
        vs, flags = sort_with_flags(r.score, r.wrong, r.confident_high, xp)
        errors = xp.astype(into(writable(flags, xp), xp.cumulative_sum, flags), dtype)
        mass = None  # 1, 2, ..., n
    else:
        order = xp.argsort(r.score, stable=False)
        if r.confident_high:
            order = xp.flip(order)
        vs = xp.take(r.score, order) + 0.0
        w = xp.take(r.sw, order)
        mass = xp.cumulative_sum(w)
        zero = xp.zeros((), dtype=w.dtype, device=device)
        errors = xp.cumulative_sum(xp.where(xp.take(r.wrong, order), w, zero))
    value = xp.astype(vs, dtype, copy=False)
    new = vs[1:] != vs[:-1]
    if bool(xp.all(new)):  # no ties
        if mass is None:
            mass = xp.arange(1, vs.shape[0] + 1, dtype=dtype, device=device)
        return value, mass, errors
    ends = xp.concat([new, xp.ones(1, dtype=xp.bool, device=device)])
    if mass is None:
        mass = xp.astype(xp.nonzero(ends)[0], dtype) + 1.0
    else:
        mass = mass[ends]
    return value[ends], mass, errors[ends]


def _group_at(mass, t):
    """Index of the first group whose cumulative mass reaches ``t`` (the last group if
    none does), and the cumulative mass before and at it, as floats: one ``searchsorted``
    in the namespace of ``mass``, a few numbers back."""
    xp, device = namespace_and_device(mass)
    target = xp.asarray([t], dtype=mass.dtype, device=device)
    g = int(xp.searchsorted(mass, target, side="left")[0])
    g = min(g, mass.shape[0] - 1)
    return g, (float(mass[g - 1]) if g > 0 else 0.0), float(mass[g])


def _errors_at(mass, errors, t):
    """Errors kept at kept mass ``t`` (``0 < t <= mass[-1]``), linear within a group."""
    g, m0, m1 = _group_at(mass, t)
    e0 = float(errors[g - 1]) if g > 0 else 0.0
    e1 = float(errors[g])
    dm = m1 - m0
    if dm <= 0:  # t rounds onto the end of a group
        return e1
    frac = min(max((t - m0) / dm, 0.0), 1.0)
    return float(e0 + frac * (e1 - e0))


def _as_unit(x):
    """A float clipped into [0, 1] (rounding of sums)."""
    return float(min(max(x, 0.0), 1.0))


# --------------------------------------------------------------------------------------
# rejection curve and risk-coverage areas
# --------------------------------------------------------------------------------------


@validate_params(_DATA, prefer_skip_nested_validation=True)
def rejection_curve(
    y_true,
    y_proba,
    *,
    uncertainty=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Accuracy of the kept predictions against the fraction rejected by uncertainty.

    The predictions are rejected from the most uncertain one on.  Rejecting the
    predictions with an uncertainty above a threshold ``t`` keeps the set
    :math:`K_t = \{i : u_i \le t\}` and gives

    .. math::

        \mathrm{rejected}(t) = 1 - \frac{\sum_{i \in K_t} w_i}{\sum_i w_i}, \qquad
        \mathrm{accuracy}(t) = \frac{\sum_{i \in K_t} w_i\, 1[\hat y_i = y_i]}
            {\sum_{i \in K_t} w_i},

    with one point per distinct value ``t`` of the uncertainty: tied predictions are
    kept or rejected together, as by any threshold, so the curve does not depend on the
    order of the samples.  The oracle curve rejects the errors first,
    :math:`\min(1, \mathrm{acc} / (1 - \mathrm{rejected}))` with ``acc`` the accuracy
    of all predictions (the "theoretical maximum" of the rejection diagrams of
    uncertainty_metrics); rejecting at random keeps the accuracy ``acc`` on average.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure (the entropy of ``y_proba``, one
        minus the margin, the mutual information of an ensemble, ...).  Default:
        ``1 - max_k y_proba[:, k]``.  Only the order matters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights (a weight ``w`` counts as ``w`` repeated samples).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba`` (default: the greater
        label).

    Returns
    -------
    curve : RejectionCurveResult
        Unpacks as ``(fraction_rejected, accuracy, thresholds)``, as
        :func:`sklearn.metrics.roc_curve` unpacks as ``(fpr, tpr, thresholds)``.  With
        the attributes, each array of shape (n_thresholds,) in order of increasing
        fraction rejected (the first point rejects nothing):

        - ``fraction_rejected``: ndarray, the fraction of the total weight rejected.
        - ``accuracy``: ndarray, the accuracy of the kept predictions.
        - ``oracle_accuracy``: ndarray, the best accuracy any ranking reaches when the
          same fraction is rejected.
        - ``coverage``: ndarray, ``1 - fraction_rejected``.
        - ``thresholds``: ndarray, the uncertainty threshold of each point (the largest
          uncertainty kept); with the default uncertainty, ``1 - confidence``.
        - ``base_accuracy``: float, the accuracy with nothing rejected (the expected
          accuracy of random rejection at every fraction).

        For array API input under ``array_api_dispatch=True`` (:doc:`/array_api`) the
        arrays are of the input's namespace and device.

    See Also
    --------
    area_under_risk_coverage : The area under ``1 - accuracy`` against ``coverage``.

    References
    ----------
    Nadeem, Zucker and Hanczar, "Accuracy-Rejection Curves (ARCs) for Comparing
    Classification Methods with a Reject Option", MLSB 2009.
    Filos et al., "A Systematic Comparison of Bayesian Deep Learning Robustness in
    Diabetic Retinopathy Tasks", arXiv:1912.10481, 2019.

    Examples
    --------
    >>> from skcalib.metrics import rejection_curve
    >>> curve = rejection_curve([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.4])
    >>> fraction_rejected, accuracy, thresholds = curve
    >>> fraction_rejected
    array([0.  , 0.5 , 0.75])
    >>> accuracy
    array([0.75, 1.  , 1.  ])
    >>> thresholds  # the largest uncertainty (1 - confidence) kept
    array([0.4, 0.2, 0.1])
    >>> curve.oracle_accuracy
    array([0.75, 1.  , 1.  ])
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    value, mass, errors = _tie_groups(r)
    total = float(mass[-1])
    correct_total = total - float(errors[-1])
    base_accuracy = _as_unit(correct_total / total)
    # the curve in the namespace of the input, on its device; its fresh arrays (up to
    # n_samples points) are updated in place where the namespace allows
    xp = r.xp
    one = xp.ones((), dtype=mass.dtype, device=r.device)
    kept = xp.flip(mass)
    accuracy = xp.flip(errors) / kept
    accuracy = into(writable(accuracy, xp), xp.subtract, one, accuracy)
    if r.sw is not None:  # sums of weights in different orders: rounding
        accuracy = xp.clip(accuracy, min=0.0, max=1.0)
    oracle = xp.minimum(kept, xp.asarray(correct_total, dtype=kept.dtype, device=r.device))
    oracle = into(writable(oracle, xp), xp.divide, oracle, kept)
    coverage = kept / total  # <= 1: the cumulative mass never decreases
    rejected = into(None, xp.subtract, one, coverage)
    thresholds = xp.flip(value)
    if r.confident_high:
        thresholds = into(None, xp.subtract, one, thresholds)
    else:
        thresholds = xp.asarray(thresholds, copy=True)
    return RejectionCurveResult(
        fraction_rejected=rejected,
        accuracy=accuracy,
        oracle_accuracy=oracle,
        coverage=coverage,
        thresholds=thresholds,
        base_accuracy=base_accuracy,
    )


def _aurc(mass, errors):
    xp, _ = namespace_and_device(mass)
    total = float(mass[-1])
    risk = errors / mass
    if total == mass.shape[0] and float(mass[0]) == 1:  # unweighted, no ties: unit steps
        return _as_unit(float(xp.sum(risk)) / total)
    return _as_unit(float(xp.vecdot(_steps(mass, xp), risk)) / total)


def _steps(mass, xp):
    """``mass[g] - mass[g - 1]`` (``mass[0]`` first)."""
    return xp.concat([mass[:1], mass[1:] - mass[:-1]])


@validate_params(_DATA, prefer_skip_nested_validation=True)
def area_under_risk_coverage(
    y_true,
    y_proba,
    *,
    uncertainty=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Area under the risk-coverage curve (AURC; lower is better).

    With the predictions sorted from the most to the least confident, AURC is the mean
    over ``k`` of the error rate (selective risk) of the ``k`` most confident ones
    (Geifman et al. 2019):

    .. math::

        \mathrm{AURC} = \frac{1}{n} \sum_{k=1}^{n} \frac{1}{k}
            \sum_{j=1}^{k} 1[\hat y_{(j)} \ne y_{(j)}].

    Tied uncertainties form one step of the curve, of width the tie group's share of
    the samples, at the error rate of all predictions up to the end of the group (a
    threshold cannot separate tied predictions): in general
    :math:`\mathrm{AURC} = \sum_g \frac{W_g - W_{g-1}}{W}\, \frac{E_g}{W_g}` over the
    tie groups ``g`` in order of decreasing confidence, with ``W_g`` the weight and
    ``E_g`` the weight of the errors of the groups up to ``g``, as
    :func:`sklearn.metrics.average_precision_score` sums its steps.  Without ties and
    weights this is the formula above.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure; default
        ``1 - max_k y_proba[:, k]``.  Only the order matters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights (a weight ``w`` counts as ``w`` repeated samples).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba``.

    Returns
    -------
    float
        The AURC, in [0, 1]; its minimum for a given accuracy is given by
        :func:`excess_area_under_risk_coverage`.

    References
    ----------
    Geifman, Uziel and El-Yaniv, "Bias-Reduced Uncertainty Estimation for Deep Neural
    Classifiers", ICLR 2019.

    Examples
    --------
    >>> from skcalib.metrics import area_under_risk_coverage
    >>> y_proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    >>> area_under_risk_coverage([0, 1, 1, 1], y_proba)  # (0 + 1/2 + 1/3 + 1/4) / 4
    0.2708...
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    _, mass, errors = _tie_groups(r)
    return _aurc(mass, errors)


def _optimal_aurc(risk):
    """Geifman et al.'s AURC of the optimal ranking at error rate ``risk``."""
    if risk >= 1.0:
        return 1.0
    return risk + (1.0 - risk) * math.log1p(-risk)


@validate_params(_DATA, prefer_skip_nested_validation=True)
def excess_area_under_risk_coverage(
    y_true,
    y_proba,
    *,
    uncertainty=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Excess AURC (E-AURC): the AURC above that of the best ranking (lower is better).

    .. math::

        \mathrm{E\text{-}AURC} = \mathrm{AURC} - \left(r + (1 - r)\ln(1 - r)\right)

    where ``r`` is the (weighted) error rate of all predictions and
    :math:`r + (1 - r)\ln(1 - r)` is the area under the risk-coverage curve of the
    optimal ranking (every error after every correct prediction), in the continuous
    form of Geifman et al. 2019.  E-AURC removes the part of the AURC that is due to
    the accuracy of the model, so that it compares uncertainty scores of models with
    different accuracies.  It is non-negative: the AURC of any ranking is a right
    Riemann sum of a curve that lies above the optimal one, which increases.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure; default
        ``1 - max_k y_proba[:, k]``.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba``.

    Returns
    -------
    float
        The E-AURC, in [0, 1].

    See Also
    --------
    area_under_risk_coverage : The AURC itself.

    References
    ----------
    Geifman, Uziel and El-Yaniv, "Bias-Reduced Uncertainty Estimation for Deep Neural
    Classifiers", ICLR 2019, Section 3.

    Examples
    --------
    >>> from skcalib.metrics import excess_area_under_risk_coverage
    >>> y_proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    >>> excess_area_under_risk_coverage([0, 1, 1, 1], y_proba)
    0.2365...
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    _, mass, errors = _tie_groups(r)
    risk = _as_unit(float(errors[-1]) / float(mass[-1]))
    return _as_unit(_aurc(mass, errors) - _optimal_aurc(risk))


@validate_params(_DATA, prefer_skip_nested_validation=True)
def area_under_generalized_risk_coverage(
    y_true,
    y_proba,
    *,
    uncertainty=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Area under the generalized risk-coverage curve (AUGRC; lower is better).

    The generalized risk of a threshold is the probability that a prediction is both
    kept and wrong, :math:`E(c) / W` for the weight :math:`E(c)` of the errors among
    the kept fraction ``c`` of the total weight ``W``.  AUGRC integrates it over the
    coverage ``c``:

    .. math::

        \mathrm{AUGRC} = \int_0^1 \frac{E(c)}{W}\, dc
        = \sum_g \frac{W_g - W_{g-1}}{W}\, \frac{E_g + E_{g-1}}{2W},

    exactly: ``E`` grows linearly within a tie group (its expectation when ties are
    broken at random).  Unlike AURC it does not give the few most confident predictions
    an outsized weight, and it equals
    :math:`(1 - \mathrm{AUROC})\,a(1 - a) + (1 - a)^2 / 2` with ``a`` the accuracy and
    AUROC that of :func:`uncertainty_auc` (Traub et al. 2024), in [0, 1/2].

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure; default
        ``1 - max_k y_proba[:, k]``.  Only the order matters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba``.

    Returns
    -------
    float
        The AUGRC, in [0, 0.5].

    References
    ----------
    Traub, Bungert, Lüth, Baumgartner, Maier-Hein, Maier-Hein and Jaeger, "Overcoming
    Common Flaws in the Evaluation of Selective Classification Systems", NeurIPS 2024.

    Examples
    --------
    >>> from skcalib.metrics import area_under_generalized_risk_coverage
    >>> y_proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    >>> area_under_generalized_risk_coverage([0, 1, 1, 1], y_proba)  # (1/2 + 1 + 1) / 16
    0.15625
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    _, mass, errors = _tie_groups(r)
    total = float(mass[-1])
    xp = r.xp
    e_prev = xp.concat([xp.zeros_like(errors[:1]), errors[:-1]])
    value = float(xp.vecdot(_steps(mass, xp), errors + e_prev)) / (2.0 * total * total)
    return float(min(max(value, 0.0), 0.5))


@validate_params(
    {**_DATA, "coverage": [Interval(numbers.Real, 0, 1, closed="right")]},
    prefer_skip_nested_validation=True,
)
def risk_at_coverage(
    y_true,
    y_proba,
    *,
    coverage=0.8,
    uncertainty=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Error rate of the most confident predictions that make up a given coverage.

    The selective risk at coverage ``c``: the (weighted) error rate of the fraction
    ``c`` of the predictions with the lowest uncertainty,

    .. math::

        \mathrm{risk}(c) = \frac{E(cW)}{cW},

    with ``W`` the total weight and :math:`E(m)` the weight of the errors among the
    most confident predictions of total weight ``m``.  When ``cW`` falls inside a tie
    group (or inside a sample, whose weight counts as that many copies), the group's
    errors are counted in proportion, their expectation when the ties are broken at
    random.  ``1 - risk`` is the accuracy at that coverage.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    coverage : float in (0, 1], default=0.8
        Fraction of the total weight that is kept.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure; default
        ``1 - max_k y_proba[:, k]``.  Only the order matters.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba``.

    Returns
    -------
    float
        The selective risk, in [0, 1].

    References
    ----------
    Geifman and El-Yaniv, "Selective Classification for Deep Neural Networks",
    NeurIPS 2017.

    Examples
    --------
    >>> from skcalib.metrics import risk_at_coverage
    >>> y_proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    >>> risk_at_coverage([0, 1, 1, 1], y_proba, coverage=0.5)
    0.5
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    _, mass, errors = _tie_groups(r)
    t = coverage * float(mass[-1])
    return _as_unit(_errors_at(mass, errors, t) / t)


# --------------------------------------------------------------------------------------
# oracle-collaborative accuracy
# --------------------------------------------------------------------------------------


@validate_params(
    {
        **_DATA,
        "fraction": [Interval(numbers.Real, 0, 1, closed="both")],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def oracle_collaborative_accuracy(
    y_true,
    y_proba,
    *,
    fraction=0.01,
    n_bins=100,
    uncertainty=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Accuracy of a model that refers its least confident predictions to an oracle.

    An oracle (a human reviewer) labels the ``O = floor(fraction * N)`` least confident
    predictions correctly and the model labels the rest (Kivlichan et al. 2021).  ``N``
    is the number of samples (the total weight with ``sample_weight``; the budget is a
    whole number of samples, so the value depends on the scale of the weights).

    Two versions, side by side:

    - **binned** (``n_bins`` an int, the default 100; uncertainty_metrics'
      ``OracleCollaborativeAccuracy``): the confidences are put in ``n_bins``
      equal-width bins; the oracle takes whole bins from the least confident one on,
      and the bin in which its budget ends is split: the oracle's ``r`` samples there
      are correct and the rest are correct at the bin's accuracy.

      .. math::

          \mathrm{OCA} = \frac{1}{N}\Big(O + \sum_{b\ \mathrm{model}} c_b
              + (n_s - r)\frac{c_s}{n_s}\Big)

      with ``c_b`` the correct predictions of bin ``b`` and ``s`` the split bin.
      With ``uncertainty`` the uncertainty is binned instead (it must lie in [0, 1])
      and the oracle starts from the most uncertain bin.
    - **exact** (``n_bins=None``): the same with one "bin" per distinct uncertainty
      (the tie groups of :func:`rejection_curve`): the oracle takes exactly the ``O``
      most uncertain predictions, and only a tie group straddling the end of its budget
      is split at the group's accuracy.  Any uncertainty score works, and only its
      order matters.

    Both equal ``1 - E(N - O) / N`` with :math:`E(m)` the errors among the most
    confident predictions of total weight ``m``, interpolated linearly within a bin
    (binned) or a tie group (exact).  The binned version is what uncertainty_metrics
    reports; the exact one does not depend on a bin width.  ``fraction=0`` gives the
    accuracy.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    fraction : float in [0, 1], default=0.01
        Fraction of the samples referred to the oracle (rounded down to a whole number
        of samples, as uncertainty_metrics does).
    n_bins : int or None, default=100
        Number of equal-width bins of the binned version (the skcalib binning rule:
        right-closed bins, edges ``np.linspace(0, 1, n_bins + 1)``); None for the exact
        version.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure; default: the top-label
        confidence ``max_k y_proba[:, k]`` is binned (binned version) or
        ``1 - confidence`` is ranked (exact version).  Must lie in [0, 1] for the
        binned version.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights; an integer weight ``w`` counts as ``w`` repeated
        samples (also for the oracle's budget ``floor(fraction * sum(w))``).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba``.

    Returns
    -------
    float
        The oracle-collaborative accuracy, in [0, 1] (greater is better).

    Notes
    -----
    uncertainty_metrics bins with ``floor(n_bins * p)`` (left-closed bins, 1.0 in the
    last bin) while skcalib's bins are right-closed: a confidence exactly on a bin edge
    can land in the neighbouring bin.  Off the edges both give the same numbers, e.g.
    0.7916666666666666 (``fraction=0.4``, ``n_bins=10``) on the example below, the
    value of uncertainty_metrics' ``uncertainty_metrics/tensorflow/accuracy_test.py``,
    and 0.6875 with ``fraction=0.15``, the value of the same test in commit 09ac723
    of fagan2888/uncertainty-metrics.

    References
    ----------
    Kivlichan, Lin, Liu and Vasserman, "Measuring and Improving Model-Moderator
    Collaboration using Uncertainty Estimation", WOAH 2021.
    google/uncertainty-metrics, ``uncertainty_metrics/tensorflow/accuracy.py``.

    Examples
    --------
    >>> from skcalib.metrics import oracle_collaborative_accuracy
    >>> p = [0.51, 0.45, 0.39, 0.66, 0.68, 0.29, 0.81, 0.85]
    >>> y = [0, 0, 0, 1, 0, 1, 1, 1]
    >>> oracle_collaborative_accuracy(y, p, fraction=0.4, n_bins=10)
    0.7916666666666666
    >>> oracle_collaborative_accuracy(y, p, fraction=0.4, n_bins=None)
    0.75
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    total = r.total
    budget = math.floor(fraction * total)
    kept = total - budget
    if kept <= 0:
        return 1.0
    if n_bins is None:
        _, mass, errors = _tie_groups(r)
    else:
        mass, errors = _binned_groups(r, n_bins, uncertainty is not None)
    return _as_unit(_collaborative_correct(mass, errors, kept, total) / total)


def _collaborative_correct(mass, errors, kept, total):
    """Correct predictions of the model-oracle team when the model keeps ``kept``.

    Summed as uncertainty_metrics sums its bins: the oracle's whole groups, then the
    split group (the oracle's ``r`` plus the model's rest at the group's accuracy), then
    the model's whole groups.  ``mass`` and ``errors`` are numpy or array-API arrays
    (a few of their numbers are read).
    """
    g, m0, m1 = _group_at(mass, kept)
    c0 = (m0 - float(errors[g - 1])) if g > 0 else 0.0
    n_split = m1 - m0
    c_split = (m1 - float(errors[g])) - c0
    oracle_part = m1 - kept  # the oracle's share of the split group
    model_part = n_split - oracle_part
    split = oracle_part + model_part * (c_split / n_split) if n_split > 0 else 0.0
    return float((total - m1) + split + c0)


def _binned_groups(r, n_bins, custom):
    """Cumulative mass and errors of equal-width bins, most confident bin first.

    The per-bin sums come from the binning core (for array-API input computed on the
    device: only the ``n_bins`` sums travel to the host)."""
    x, xp = r.score, r.xp
    in_range = not custom or (bool(xp.min(x) >= 0) and bool(xp.max(x) <= 1))
    if not in_range:
        outside = ~((x >= 0) & (x <= 1))
        # the first one: argmax of a 0/1 array returns its first 1
        i = int(xp.argmax(xp.astype(outside, xp.int32)))
        raise ValueError(
            "uncertainty must lie in [0, 1] for the binned oracle-collaborative accuracy "
            f"(n_bins={n_bins}); uncertainty[{i}] = {float(x[i])!r}. Pass n_bins=None "
            "for the exact version, which takes any score"
        )
    edges = _uniform_edges(n_bins)
    sums = accumulate_pairs(x, xp.logical_not(r.wrong), r.sw, edges)
    count, n_correct = sums[COUNT], sums[SUM_TRUE]
    n_wrong = count - n_correct
    if not custom:  # bins of the confidence: the most confident bin is the last one
        count, n_wrong = count[::-1], n_wrong[::-1]
    mass = np.cumsum(count)
    errors = np.cumsum(n_wrong)
    nonempty = np.flatnonzero(count > 0)  # empty bins add nothing
    return mass[nonempty], errors[nonempty]


# --------------------------------------------------------------------------------------
# uncertainty AUC: error detection and out-of-distribution detection
# --------------------------------------------------------------------------------------


def _auc(curve, r: _Ranked, what):
    r"""ROC AUC or average precision, in the namespace of the input, on its device:
    ``r.wrong`` are the positives, a less confident score ranks higher; the values of
    :func:`sklearn.metrics.roc_auc_score` and
    :func:`sklearn.metrics.average_precision_score`.

    From the tie groups (:func:`_tie_groups`), with ``P_g`` and ``N_g`` the weight of
    the positives and of the negatives of the groups up to ``g`` (from the most
    confident one on), ``p_g`` the positives of group ``g``, ``P`` and ``N`` the totals:

    - ROC AUC, the trapezoid over the groups (a tie counts one half), as
      :func:`sklearn.metrics.roc_auc_score`:
      :math:`\sum_g p_g (N_{g-1} + N_g) / (2 P N)`;
    - average precision, the step sum of :func:`sklearn.metrics.average_precision_score`
      (no interpolation) over the thresholds ``score >= score_g``:
      :math:`\sum_g \frac{p_g}{P} \frac{P - P_{g-1}}{(P - P_{g-1}) + (N - N_{g-1})}`.
    """
    xp = r.xp
    if not bool(xp.any(r.wrong)) or bool(xp.all(r.wrong)):
        raise ValueError(what)
    _, mass, pos = _tie_groups(r)
    neg = mass - pos
    zero = xp.zeros_like(pos[:1])
    pos_prev = xp.concat([zero, pos[:-1]])
    neg_prev = xp.concat([zero, neg[:-1]])
    n_pos, n_neg = float(pos[-1]), float(neg[-1])
    if curve == "roc":
        area = float(xp.vecdot(pos - pos_prev, neg_prev + neg)) / (2.0 * n_pos) / n_neg
        return _as_unit(area)
    tp = n_pos - pos_prev  # the positives with a score >= the group's
    kept = tp + (n_neg - neg_prev)
    one = xp.ones_like(kept)
    precision = tp / xp.where(kept > 0, kept, one)  # kept == 0: no positive there
    return _as_unit(float(xp.vecdot(pos - pos_prev, precision)) / n_pos)


@validate_params(
    {**_DATA, "curve": [StrOptions(set(_CURVES))]},
    prefer_skip_nested_validation=True,
)
def uncertainty_auc(
    y_true,
    y_proba,
    *,
    uncertainty=None,
    curve="roc",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""How well an uncertainty score detects the model's errors (ROC AUC or AP).

    The errors of the top-label predictions are the positives and the uncertainty is
    the score: the value equals ``sklearn.metrics.roc_auc_score(is_wrong, uncertainty)``
    (``curve="roc"``: the probability that a random error is more uncertain than a
    random correct prediction, ties counting one half) or
    ``sklearn.metrics.average_precision_score(is_wrong, uncertainty)``
    (``curve="pr"``), with ``is_wrong = argmax(y_proba) != y_true``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (positive class for 1-D input, ``predict_proba`` columns
        for 2-D input); the prediction is the most probable class.
    uncertainty : array-like of shape (n_samples,), default=None
        Any score, higher when the model is less sure; default
        ``1 - max_k y_proba[:, k]``.  Only the order matters.
    curve : {"roc", "pr"}, default="roc"
        Area under the ROC curve, or average precision (the area under the
        precision-recall curve, as scikit-learn computes it).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem with a 1-D ``y_proba``.

    Returns
    -------
    float
        The AUC, in [0, 1] (greater is better; 0.5 for an uninformative score with
        ``curve="roc"``).  A ValueError is raised when every prediction is correct or
        every one is wrong (nothing to detect).

    See Also
    --------
    out_of_distribution_auc : The same for in- against out-of-distribution inputs.

    References
    ----------
    Hendrycks and Gimpel, "A Baseline for Detecting Misclassified and
    Out-of-Distribution Examples in Neural Networks", ICLR 2017.

    Examples
    --------
    >>> from skcalib.metrics import uncertainty_auc
    >>> y_proba = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    >>> uncertainty_auc([0, 1, 1, 1], y_proba)  # the error is less uncertain than two
    0.3333...
    >>> uncertainty_auc([0, 1, 1, 1], y_proba, curve="pr")
    0.3333...
    """
    r = _ranked_input(y_true, y_proba, uncertainty, sample_weight, labels, pos_label)
    what = (
        "uncertainty_auc is undefined when every prediction is correct or every one is "
        "wrong: there are no errors (or no correct predictions) to detect"
    )
    return _auc(curve, r, what)


def _ood_scores(y_proba, uncertainty, which, xp, device):
    """Uncertainty scores of one side, in the namespace ``xp`` on ``device`` in the
    widest float of the device, and whether they are the default ``-confidence``.
    Host arrays beside device ones are checked on the host and moved."""
    dtype = max_float_dtype(xp, device)
    name_p, name_u = f"y_proba_{which}", f"uncertainty_{which}"
    u = None
    if uncertainty is not None:
        u = xp.astype(_check_uncertainty(uncertainty, None, name_u, xp, device), dtype)
    if y_proba is None:
        if uncertainty is None:
            raise ValueError(
                f"out_of_distribution_auc needs {name_p} (the predicted probabilities of "
                f"the {which}-distribution inputs) or {name_u} (their uncertainty scores); "
                "both are None"
            )
        return u, False
    host = _is_host(y_proba)  # numpy input, or host probabilities beside device arrays
    P, given_dtype = _check_proba_array(y_proba, name_p, None if host else xp, device)
    _check_ood_proba(P, given_dtype, u, name_p, name_u)
    if u is not None:
        return u, False
    if host:
        P = xp.asarray(P, device=device)
    conf = xp.maximum(P, 1 - P) if P.ndim == 1 else xp.max(P, axis=1)
    return -xp.astype(conf, dtype), True  # ranks as 1 - confidence, without rounding


def _check_ood_proba(P, given_dtype, u, name_p, name_u):
    """The checks of one side's probabilities ``P`` (numpy or array-API), and of their
    number against that of its uncertainty scores ``u`` (or None)."""
    if P.shape[0] == 0:
        raise ValueError(f"{name_p} is empty: need at least one sample")
    check_proba_values(P, name=name_p, tolerance=row_sum_tolerance(given_dtype))
    if u is not None and u.shape[0] != P.shape[0]:
        raise ValueError(
            f"{name_p} and {name_u} have different numbers of samples: "
            f"{P.shape[0]} and {u.shape[0]}"
        )


@validate_params(
    {
        "y_proba_in": ["array-like", None],
        "y_proba_out": ["array-like", None],
        "uncertainty_in": ["array-like", None],
        "uncertainty_out": ["array-like", None],
        "curve": [StrOptions(set(_CURVES))],
        "sample_weight_in": ["array-like", None],
        "sample_weight_out": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def out_of_distribution_auc(
    y_proba_in=None,
    y_proba_out=None,
    *,
    uncertainty_in=None,
    uncertainty_out=None,
    curve="roc",
    sample_weight_in=None,
    sample_weight_out=None,
):
    r"""How well an uncertainty score separates out-of-distribution inputs (ROC AUC or AP).

    The out-of-distribution (OOD) predictions are the positives and the uncertainty is
    the score: the value equals ``sklearn.metrics.roc_auc_score`` (``curve="roc"``: the
    probability that a random OOD input is more uncertain than a random in-distribution
    one, ties counting one half) or ``sklearn.metrics.average_precision_score``
    (``curve="pr"``) of the labels ``[0] * n_in + [1] * n_out`` and the concatenated
    uncertainties.  No true labels are needed.

    Parameters
    ----------
    y_proba_in : array-like of shape (n_in,) or (n_in, n_classes), default=None
        Predicted probabilities on in-distribution inputs (positive class for 1-D
        input); may be omitted when ``uncertainty_in`` is given.
    y_proba_out : array-like of shape (n_out,) or (n_out, n_classes), default=None
        Predicted probabilities on out-of-distribution inputs; may be omitted when
        ``uncertainty_out`` is given.
    uncertainty_in : array-like of shape (n_in,), default=None
        Uncertainty of the in-distribution predictions (higher = less sure); default
        ``1 - max_k y_proba_in[:, k]``.
    uncertainty_out : array-like of shape (n_out,), default=None
        Uncertainty of the out-of-distribution predictions; default
        ``1 - max_k y_proba_out[:, k]``.
    curve : {"roc", "pr"}, default="roc"
        Area under the ROC curve, or average precision with OOD as the positive class.
    sample_weight_in : array-like of shape (n_in,), default=None
        Non-negative weights of the in-distribution samples.
    sample_weight_out : array-like of shape (n_out,), default=None
        Non-negative weights of the out-of-distribution samples.

    Returns
    -------
    float
        The AUC, in [0, 1] (greater is better).

    See Also
    --------
    uncertainty_auc : The same for the model's errors.

    References
    ----------
    Hendrycks and Gimpel, "A Baseline for Detecting Misclassified and
    Out-of-Distribution Examples in Neural Networks", ICLR 2017.

    Examples
    --------
    >>> from skcalib.metrics import out_of_distribution_auc
    >>> p_in = [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]
    >>> p_out = [[0.5, 0.5], [0.7, 0.3]]
    >>> out_of_distribution_auc(p_in, p_out)
    0.8333...

    With uncertainty scores of your own (an ensemble's mutual information, a density
    model's negative log-likelihood), the probabilities may be omitted:

    >>> out_of_distribution_auc(uncertainty_in=[0.1, 0.4, 0.2], uncertainty_out=[0.5, 0.3])
    0.8333...
    """
    what = "out_of_distribution_auc needs in- and out-of-distribution samples of positive weight"
    xp, device = namespace_and_device(
        y_proba_in,
        y_proba_out,
        uncertainty_in,
        uncertainty_out,
        sample_weight_in,
        sample_weight_out,
    )
    s_in, default_in = _ood_scores(y_proba_in, uncertainty_in, "in", xp, device)
    s_out, default_out = _ood_scores(y_proba_out, uncertainty_out, "out", xp, device)
    # one side's uncertainty given, the other's the default: compare with the value of
    # the default, 1 - confidence (-confidence ranks the same only against itself)
    if default_in and not default_out:
        s_in = s_in + 1.0
    elif default_out and not default_in:
        s_out = s_out + 1.0
    n_in, n_out = s_in.shape[0], s_out.shape[0]
    sw = None
    if sample_weight_in is not None or sample_weight_out is not None:
        w_in, w_out = (
            check_sample_weight(
                1.0 if w is None else w, n, name, xp=xp, device=device, dtype=s_in.dtype
            )
            for w, n, name in [
                (sample_weight_in, n_in, "sample_weight_in"),
                (sample_weight_out, n_out, "sample_weight_out"),
            ]
        )
        sw = xp.concat([w_in, w_out])
    y = xp.concat(
        [
            xp.zeros(n_in, dtype=xp.bool, device=device),
            xp.ones(n_out, dtype=xp.bool, device=device),
        ]
    )
    r = _ranked(xp.concat([s_in, s_out]), False, y, sw, xp, device)
    return _auc(curve, r, what)
