"""The cumulative calibration error (ECCE) and its test.

Arrieta-Ibarra, Gujral, Tannen, Tygert and Xu (2022), "Metrics of calibration for
probabilistic predictions", JMLR 23(351): sort the predictions, accumulate the
differences between outcomes and predictions, and read the range of the walk.  No bins,
no bandwidth; under calibration the range over its standard deviation follows the range
of standard Brownian motion (the Kuiper statistic of a cumulative plot).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._core._validation import check_classification_input
from ...utils._sklearn_compat import StrOptions, validate_params
from .._results import CumulativeCalibrationTestResult
from ._kernels import brownian_range_sf, calibration_pairs, cumulative_ranges, null_variances

__all__ = ["cumulative_calibration_error", "cumulative_calibration_test"]

_PARAMS = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
}


def _per_class(y_true, y_proba, multiclass, sample_weight, labels, pos_label):
    """ECCE (before dividing by the weight), null variance and total weight of each
    calibrated class (one entry for binary and top-label calibration)."""
    data = check_classification_input(
        y_true, y_proba, sample_weight=sample_weight, labels=labels, pos_label=pos_label
    )
    p, outcome, w, classes, k = calibration_pairs(data, multiclass)
    residual = outcome - p
    if w is not None:
        residual *= w
    ranges = cumulative_ranges(p, residual, classes, k)
    var = null_variances(p, w, classes, k)
    total = float(data.n_samples if data.sample_weight is None else data.sample_weight.sum())
    return ranges, var, total


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def cumulative_calibration_error(
    y_true, y_proba, *, multiclass="auto", sample_weight=None, labels=None, pos_label=None
):
    r"""Cumulative calibration error (ECCE): the range of the cumulative differences.

    Sort the samples by predicted probability :math:`p_{(1)} \le \dots \le p_{(n)}`
    and accumulate the weighted differences between outcomes and predictions,

    .. math::

        S_j = \frac{1}{W} \sum_{i \le j} w_{(i)} \bigl(y_{(i)} - p_{(i)}\bigr),
        \qquad S_0 = 0, \qquad W = \sum_i w_i;

    the ECCE is the range :math:`\max_j S_j - \min_j S_j`.  A calibrated model's walk
    stays near 0; a slope of the walk over an interval of probabilities is the
    miscalibration there (Arrieta-Ibarra, Gujral, Tannen, Tygert and Xu 2022, "Metrics
    of calibration for probabilistic predictions", JMLR 23(351)).  There are no bins
    and no bandwidth to choose.

    Tied probabilities form one step: :math:`j` runs over 0 and the ends of the runs of
    tied values, so the value does not depend on the order of the samples (MCGrad's
    ``ecce`` sorts with ``np.argsort`` and reads every position; the two agree whenever
    the probabilities are distinct).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (1-D: of the positive class).
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is calibrated: the positive-class probability (binary, ``"auto"``), the
        top-label confidence against the correctness of the prediction (``"auto"``
        with more than two classes, or ``"top_label"``), or every class's probability
        against its indicator, the mean of the classes' ECCEs (``"classwise"``).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; a weight of ``w`` is the sample repeated ``w`` times.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label).

    Returns
    -------
    ecce : float
        In ``[0, 1]``; lower is better.

    See Also
    --------
    cumulative_calibration_test : The test of calibration built on it.
    expected_calibration_error : The binned counterpart.

    References
    ----------
    .. [1] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu, "Metrics of
       calibration for probabilistic predictions", Journal of Machine Learning
       Research 23(351), 2022.

    Examples
    --------
    >>> from skcalib.metrics import cumulative_calibration_error
    >>> y_true = [0, 0, 1, 1]
    >>> y_proba = [0.1, 0.4, 0.35, 0.8]
    >>> round(cumulative_calibration_error(y_true, y_proba), 4)
    0.1625
    """
    ranges, _, total = _per_class(y_true, y_proba, multiclass, sample_weight, labels, pos_label)
    return float(ranges.mean() / total)


@validate_params(_PARAMS, prefer_skip_nested_validation=True)
def cumulative_calibration_test(
    y_true, y_proba, *, multiclass="auto", sample_weight=None, labels=None, pos_label=None
):
    r"""Test of calibration by the cumulative calibration error (the Kuiper-type test).

    Under calibration (each outcome Bernoulli with its predicted probability) the
    cumulative sum of :func:`cumulative_calibration_error` has standard deviation at
    its end

    .. math::

        \sigma_0 = \frac{\sqrt{\sum_i w_i^2\, p_i (1 - p_i)}}{\sum_i w_i},

    and :math:`\mathrm{ECCE} / \sigma_0` converges to the range of standard Brownian
    motion on [0, 1], whose survival function (Feller 1951) gives the p-value:

    .. math::

        p = P\Bigl(\max_t B_t - \min_t B_t > \mathrm{ECCE} / \sigma_0\Bigr)
          = 8 \sum_{k \ge 1} (-1)^{k-1} k\, Q(k\,\mathrm{ECCE} / \sigma_0),

    with :math:`Q` the standard normal survival function (Arrieta-Ibarra et al. 2022;
    Tygert 2023).  These are MCGrad's ``ecce``, ``ecce_sigma`` and ``ecce_pvalue``
    (its p-value is floored at the machine epsilon beyond 8.27 sigma; this one keeps
    its relative precision there).  The weights enter :math:`\sigma_0` squared, as in
    MCGrad: the test treats them as importance weights, so that their scale does not
    matter (a weight is not a repetition for the p-value; it is for the statistic).
    Class-wise, each class is tested and the smallest p-value is multiplied by the
    number of classes (Bonferroni).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is tested; see :func:`cumulative_calibration_error`.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem.

    Returns
    -------
    result : CumulativeCalibrationTestResult
        Unpacks as ``(statistic, pvalue)`` (the ECCE and its p-value); ``sigma`` and
        ``null_std`` are attributes.

    See Also
    --------
    cumulative_calibration_error : The statistic.
    spiegelhalter_test : A test of calibration by one z-statistic.

    References
    ----------
    .. [1] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu, "Metrics of
       calibration for probabilistic predictions", JMLR 23(351), 2022.
    .. [2] W. Feller, "The asymptotic distribution of the range of sums of independent
       random variables", Annals of Mathematical Statistics 22(3), 1951.
    .. [3] M. Tygert, "Calibration of P-values for calibration and for deviation of a
       subpopulation from the full population", Advances in Computational
       Mathematics 49, 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import cumulative_calibration_test
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(5000)
    >>> y = (rng.random(5000) < p**1.3).astype(int)  # over-confident
    >>> statistic, pvalue = cumulative_calibration_test(y, p)
    >>> bool(pvalue < 1e-6)
    True
    """
    ranges, var, total = _per_class(y_true, y_proba, multiclass, sample_weight, labels, pos_label)
    ecce = ranges / total
    std = np.sqrt(var) / total
    sigma = _sigma(ecce, std)
    k = int(np.argmax(sigma))
    pvalue = min(1.0, float(brownian_range_sf(sigma[k])) * ranges.shape[0])
    return CumulativeCalibrationTestResult(
        statistic=float(ecce.mean()),
        pvalue=pvalue,
        sigma=float(sigma[k]),
        null_std=float(std[k]),
    )


def _sigma(ecce, std):
    """ECCE over its null standard deviation: infinite for a non-zero ECCE without
    variance (all probabilities 0 or 1), 0 for a zero one."""
    with np.errstate(divide="ignore", invalid="ignore"):
        sigma = ecce / std
    sigma = np.where(std > 0, sigma, np.where(ecce > 0, np.inf, 0.0))
    return sigma
