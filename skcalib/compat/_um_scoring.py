r"""Scoring rules and the Bayesian ECE of Google's ``uncertainty_metrics`` 0.0.82.

``tensorflow/scoring_rules.py`` (``brier_score``, ``brier_decomposition``,
``crps_score``, ``crps_normal_score``) and ``bayesian_expected_calibration_error`` of
``tensorflow/calibration.py``, in NumPy (float64; the reference computes in float32),
with the reference's keyword signatures.  Re-exported by
:mod:`skcalib.compat.uncertainty_metrics`.

Reproduced behaviour of the reference (the definitions of :mod:`skcalib.metrics` differ)
------------------------------------------------------------------------------------------
1. ``brier_score`` is the multi-class Brier score **minus 1**,
   ``sum_k p_k^2 - 2 p_y`` (range ``[-1, 1]``).
2. ``brier_decomposition`` partitions the predictions by their argmax (not by bins of
   the probabilities), so ``uncertainty - resolution + reliability`` only approximates
   ``brier_score``; the row totals of the confusion matrix get ``1e-7`` added.
3. ``crps_score`` estimates ``E|X - X'|`` from circularly adjacent samples only.
4. ``bayesian_expected_calibration_error`` weights each bin by ``P(bin | correct)``,
   uses a per-bin variance ``1 / (12 M)`` and a Dirichlet prior ``1 / M`` per cell,
   bins by the TensorFlow fixed-width rule and draws from NumPy's global random state
   (the reference has no seed either).

Where the reference computes garbage, these raise a ValueError instead: labels out of
range (the reference's ``brier_score`` silently uses an all-zero one-hot row), NaN or
infinite input, mismatched lengths, both or neither of ``logits``/``probabilities``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import stats
from scipy.special import softmax

from ..metrics._calibration._statistical import _bayesian_ece_draws
from ..utils._sklearn_compat import Interval, validate_params
from ._um_common import int_labels, real
from ._um_keras import tf_fixed_width_bins

__all__ = [
    "bayesian_expected_calibration_error",
    "brier_decomposition",
    "brier_score",
    "crps_normal_score",
    "crps_score",
]


def _labels(labels, n, k, name="labels"):
    return int_labels(None if labels is None else np.reshape(labels, -1), (n,), k, name)


def _probabilities(logits, probabilities):
    """(N, K) probabilities from exactly one of logits / probabilities, K >= 2."""
    if (logits is None) == (probabilities is None):
        raise ValueError("pass exactly one of logits and probabilities")
    name, X = ("logits", logits) if probabilities is None else ("probabilities", probabilities)
    X = real(X, name)
    if X.ndim != 2 or X.shape[1] < 2:
        raise ValueError(
            f"{name} must have shape (N, K) with K >= 2 (binary problems as two columns), "
            f"got {X.shape}"
        )
    return softmax(X, axis=1) if probabilities is None else X


_ARGS = {"labels": ["array-like", None], "logits": ["array-like", None]}
_ARGS["probabilities"] = ["array-like", None]


@validate_params({**_ARGS, "aggregate": ["boolean"]}, prefer_skip_nested_validation=True)
def brier_score(labels=None, logits=None, probabilities=None, aggregate=True):
    r"""Brier score of uncertainty_metrics 0.0.82: the usual one **minus 1**.

    .. math::

        \mathrm{BS}_i = \sum_k p_{ik}^2 - 2 p_{i y_i}
            = \sum_k (p_{ik} - 1\{k = y_i\})^2 - 1 \in [-1, 1]

    (lower is better).

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer class indices.
    logits : array-like of shape (N, K), default=None
        Logits (softmax over the classes); exclusive with ``probabilities``.
    probabilities : array-like of shape (N, K), default=None
        Probabilities; binary problems need both columns.
    aggregate : bool, default=True
        Return the mean (else the per-sample values).

    Returns
    -------
    float or ndarray of shape (N,)
        The mean, or the per-sample values with ``aggregate=False``.

    See Also
    --------
    skcalib.metrics.brier_score : The conventional Brier score (this value plus 1).

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import brier_score
    >>> probs = [[.7, .2, .1], [.1, .8, .1], [.3, .3, .4], [.5, .4, .1]]
    >>> round(brier_score([0, 1, 2, 1], probabilities=probs), 10)
    -0.66
    """
    P = _probabilities(logits, probabilities)
    y = _labels(labels, P.shape[0], P.shape[1])
    bs = np.sum(P**2, axis=1) - 2.0 * P[np.arange(P.shape[0]), y]
    return float(bs.mean()) if aggregate else bs


@validate_params(_ARGS, prefer_skip_nested_validation=True)
def brier_decomposition(labels=None, logits=None, probabilities=None):
    r"""Brier decomposition of uncertainty_metrics 0.0.82 over argmax cells.

    With ``CM[k, j]`` the number of predictions of class ``k`` whose label is ``j``,
    ``w_k`` the share of predictions of class ``k``, ``pbar_j`` the share of label ``j``
    and ``D[k] = CM[k] / (sum_j CM[k, j] + 1e-7)``:

    .. math::

        \mathrm{unc} = -\sum_j \bar p_j^2,\quad
        \mathrm{res} = \sum_k w_k \lVert \bar p - D_k\rVert^2,\quad
        \mathrm{rel} = \frac1N \sum_i \lVert D_{\hat y_i} - p_i\rVert^2,

    and ``brier_score ~= unc - res + rel`` (approximately: the predictions vary within
    an argmax cell).

    Parameters
    ----------
    labels : array-like of shape (N,)
        Integer class indices.
    logits : array-like of shape (N, K), default=None
        Logits; exclusive with ``probabilities``.
    probabilities : array-like of shape (N, K), default=None
        Probabilities.

    Returns
    -------
    uncertainty, resolution, reliability : float
        The three terms.

    See Also
    --------
    skcalib.metrics.brier_decomposition : The exact decomposition (Murphy) of the
        conventional Brier score.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import brier_decomposition
    >>> probs = [[.7, .2, .1], [.1, .8, .1], [.3, .3, .4], [.5, .4, .1]]
    >>> unc, res, rel = brier_decomposition([0, 1, 2, 1], probabilities=probs)
    >>> round(unc, 6), round(res, 6), round(rel, 6)
    (-0.375, 0.375, 0.19)
    """
    P = _probabilities(logits, probabilities)
    n, k = P.shape
    y = _labels(labels, n, k)
    if n == 0:
        raise ValueError("labels and probabilities are empty")
    pred = np.argmax(P, axis=1)
    CM = np.zeros((k, k))
    np.add.at(CM, (pred, y), 1.0)
    w = CM.sum(axis=1) / n
    pbar = CM.sum(axis=0) / n
    D = CM / (CM.sum(axis=1, keepdims=True) + 1e-7)
    uncertainty = -np.sum(pbar**2)
    resolution = np.sum(w * np.sum((pbar[None, :] - D) ** 2, axis=1))
    reliability = np.mean(np.sum((D[pred] - P) ** 2, axis=1))
    return float(uncertainty), float(resolution), float(reliability)


@validate_params(
    {"labels": ["array-like", None], "predictive_samples": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def crps_score(labels=None, predictive_samples=None):
    r"""CRPS from samples, the estimator of uncertainty_metrics 0.0.82.

    .. math::

        \mathrm{CRPS}_i = \frac1m\sum_j \lvert x_{ij} - y_i\rvert
            - \frac{1}{2m}\sum_j \lvert x_{ij} - x_{i,(j-1) \bmod m}\rvert

    (circularly adjacent pairs; unbiased for independent draws, noisier than all
    pairs).

    Parameters
    ----------
    labels : array-like of shape (N,)
        Observed values.
    predictive_samples : array-like of shape (N, m)
        Draws from each predictive distribution.

    Returns
    -------
    ndarray of shape (N,)
        The per-sample CRPS (lower is better).

    See Also
    --------
    skcalib.metrics.crps_ensemble : The all-pairs estimator.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import crps_score
    >>> crps_score([0, 1], [[-1, 0, 1, 2], [0.5, 0.5, 1.5, 3]])
    array([0.25, 0.25])
    """
    y, X = real(labels, "labels"), real(predictive_samples, "predictive_samples")
    if y.ndim != 1:
        raise ValueError(f"labels must have rank 1, got shape {y.shape}")
    if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[1] == 0:
        raise ValueError(
            f"predictive_samples must have shape ({y.shape[0]}, m) with m >= 1, got {X.shape}"
        )
    accuracy = np.mean(np.abs(X - y[:, None]), axis=1)
    spread = np.mean(np.abs(X - np.roll(X, 1, axis=1)), axis=1)
    return accuracy - 0.5 * spread


@validate_params(
    {
        "labels": ["array-like", None],
        "means": ["array-like", None],
        "stddevs": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def crps_normal_score(labels=None, means=None, stddevs=None):
    r"""Closed-form CRPS of Normal predictive distributions (uncertainty_metrics 0.0.82).

    .. math::

        \mathrm{CRPS} = \sigma\Big[z(2\Phi(z) - 1) + 2\varphi(z) - \frac{1}{\sqrt\pi}\Big],
        \qquad z = \frac{y - \mu}{\sigma}.

    Parameters
    ----------
    labels : array-like of shape (N,)
        Observed values.
    means, stddevs : array-like of shape (N,)
        Means and (positive) standard deviations.

    Returns
    -------
    ndarray of shape (N,)
        One value per sample.

    See Also
    --------
    skcalib.metrics.crps_normal : The same, averaged by default, with sample weights.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import crps_normal_score
    >>> crps_normal_score([0.0, 1.0], [0.0, 0.0], [1.0, 2.0]).round(8)
    array([0.23369498, 0.66280706])
    """
    y, mu, sd = real(labels, "labels"), real(means, "means"), real(stddevs, "stddevs")
    if y.ndim != 1:
        raise ValueError(f"labels must have rank 1, got shape {y.shape}")
    if mu.shape != sd.shape or mu.shape != y.shape:
        raise ValueError(
            f"labels, means and stddevs must have the same shape, got {y.shape}, "
            f"{mu.shape} and {sd.shape}"
        )
    if (sd <= 0).any():
        raise ValueError("stddevs must be positive")
    z = (y - mu) / sd
    return sd * (z * (2.0 * stats.norm.cdf(z) - 1.0) + 2.0 * stats.norm.pdf(z) - 1 / np.sqrt(np.pi))


@validate_params(
    {
        "num_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "logits": ["array-like", None],
        "probabilities": ["array-like", None],
        "labels_true": ["array-like", None],
        "labels_predicted": ["array-like", None],
        "num_ece_samples": [Interval(numbers.Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_expected_calibration_error(
    num_bins,
    logits=None,
    probabilities=None,
    labels_true=None,
    labels_predicted=None,
    num_ece_samples=500,
):
    r"""Posterior samples of the ECE, as uncertainty_metrics 0.0.82 draws them.

    Per TensorFlow fixed-width bin ``b`` of the probability of the decision: counts
    ``C[z, b]`` of wrong (``z = 0``) and correct predictions and the mean probability
    ``pbar_b``.  Each sample draws ``q ~ Dirichlet(C + 1/M)`` and, per bin,
    ``mu_b ~ TruncatedNormal((c_b + n_b pbar_b) / (n_b + 1), sqrt(1 / (12 M (n_b + 1))))``
    on the bin (``c_b`` its centre), then

    .. math::

        \mathrm{ECE} = \sum_b \frac{q_{1b}}{\sum_{b'} q_{1b'}}
            \left\lvert \frac{q_{1b}}{q_{0b} + q_{1b}} - \mu_b \right\rvert .

    The samples have the reference's distribution but not its numbers: the reference
    draws them with TensorFlow's random generators (``tfp.distributions.Dirichlet``
    and ``TruncatedNormal``), whose streams NumPy cannot reproduce, so no seed gives
    the reference's samples; the tests compare distributions, not values.

    Parameters
    ----------
    num_bins : int
        Number of bins ``M``.
    logits : array-like of shape (N, K), default=None
        Logits; exclusive with ``probabilities``.
    probabilities : array-like of shape (N, K), default=None
        Probabilities (binary problems as two columns).
    labels_true : array-like of shape (N,)
        Integer class indices.
    labels_predicted : array-like of shape (N,), default=None
        The decisions (default: the argmax); their probability is binned.
    num_ece_samples : int, default=500
        Number of posterior samples.

    Returns
    -------
    ndarray of shape (num_ece_samples,)
        Samples of the ECE, drawn from NumPy's global random state (seed it with
        ``np.random.seed`` for reproducible samples).

    See Also
    --------
    skcalib.metrics.bayesian_expected_calibration_error : The version of skcalib (bin-mass
        weights, a ``random_state``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import bayesian_expected_calibration_error
    >>> np.random.seed(0)
    >>> probs = [[.3, .7], [.9, .1], [.4, .6]]
    >>> samples = bayesian_expected_calibration_error(3, probabilities=probs,
    ...                                               labels_true=[1, 0, 0])
    >>> samples.shape, bool(((samples >= 0) & (samples <= 1)).all())
    ((500,), True)
    """
    P = _probabilities(logits, probabilities)
    n, k = P.shape
    y = _labels(labels_true, n, k, "labels_true")
    if labels_predicted is None:
        pred = np.argmax(P, axis=1)
    else:
        pred = _labels(labels_predicted, n, k, "labels_predicted")
    correct = pred == y
    prob_y = P[np.arange(n), pred].astype(np.float32)
    b = tf_fixed_width_bins(prob_y, num_bins)
    n_b = np.bincount(b, minlength=num_bins).astype(np.float64)
    c1 = np.bincount(b, weights=correct, minlength=num_bins)
    pbar = np.zeros(num_bins)
    np.divide(np.bincount(b, weights=prob_y, minlength=num_bins), n_b, out=pbar, where=n_b > 0)
    draws = np.random.mtrand._rand  # the global random state: the reference has no seed
    return _bayesian_ece_draws(n_b - c1, c1, n_b, pbar, num_bins, num_ece_samples, "correct", draws)
