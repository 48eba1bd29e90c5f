"""Uncertainty metrics of regression for every form of predictive distribution.

Each metric reads ``y_pred`` once through :func:`~._forms.as_predictive` and asks the
form for the one quantity it needs (CRPS, log density, PIT, interval, mean and variance).
The calibration curve, its errors and the miscalibration area are functions of the PIT
values only: for ``kind="quantile"`` the observed proportion at level ``tau`` is the
fraction of PIT values ``<= tau`` (the observation below the predicted ``tau``-quantile),
for ``kind="interval"`` the fraction of ``|2 PIT - 1| <= tau`` (the observation inside the
central ``tau`` interval), so one PIT pass and one counting pass give every level.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..._core._binning import (
    assign_bins,
    bin_index_unclipped,
    quantile_edges,
    uniform_bin_edges,
)
from ..._core._validation import _check_real_array, _find_nonfinite, check_sample_weight
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import _UnpackableResult
from ._forms import PredictionInterval, PredictiveQuantiles, _weighted_mean, as_predictive
from ._pit import _chunked_counts
from ._scores import _check_interval, _finish

__all__ = [
    "RegressionCalibrationCurveResult",
    "crps",
    "log_score",
    "pit",
    "regression_calibration_curve",
    "regression_calibration_error",
    "miscalibration_area",
    "sharpness",
    "mean_interval_width",
    "interval_coverage",
    "weighted_interval_score",
    "expected_normalized_calibration_error",
    "uncertainty_calibration_error",
]

_Y_PRED_DOC = """y_pred : predictive distributions
        A frozen :mod:`scipy.stats` continuous distribution with parameters of shape
        (n_samples,) (e.g. ``scipy.stats.norm(mean, std)``),
        :class:`~skcalib.metrics.PredictiveSamples`,
        :class:`~skcalib.metrics.PredictiveQuantiles` or
        :class:`~skcalib.metrics.PredictionInterval`."""


def _read(y_true, y_pred, sample_weight=None):
    """Validated float64 ``y_true``, the predictive reader and the weights."""
    y = _check_real_array(y_true, "y_true")
    _find_nonfinite(y, "y_true")
    n = y.shape[0]
    pred = as_predictive(y_pred, n)
    sw = check_sample_weight(sample_weight, n)
    return np.asarray(y, dtype=np.float64), pred, sw


def _aggregate(values, sw, aggregate):
    return _weighted_mean(values, sw) if aggregate else values


_COMMON = {
    "y_true": ["array-like"],
    "y_pred": "no_validation",
    "sample_weight": ["array-like", None],
}


# --------------------------------------------------------------------------------------
# scoring rules
# --------------------------------------------------------------------------------------


@validate_params({**_COMMON, "aggregate": ["boolean"]}, prefer_skip_nested_validation=True)
def crps(y_true, y_pred, *, sample_weight=None, aggregate=True):
    r"""Compute the continuous ranked probability score of any predictive distribution.

    .. math::

        \mathrm{CRPS}(F, y) = \int_{-\infty}^{\infty} \bigl(F(x) - \mathbb 1\{x \ge y\}\bigr)^2
            dx = 2\int_0^1 \bigl(\mathbb 1\{y < F^{-1}(\tau)\} - \tau\bigr)
            \bigl(F^{-1}(\tau) - y\bigr)\,d\tau .

    By form: ``scipy.stats.norm`` in closed form (Gneiting et al. 2005, as
    :func:`crps_normal`), as are ``t`` (more than one degree of freedom), ``logistic``
    and ``laplace`` (Jordan, Krueger and Lerch 2019); any other scipy family by
    tanh-sinh quadrature of the quantile representation above (Laio and Tamea 2007;
    agrees with scoringrules' closed forms, e.g. lognormal and gamma, to about 1e-12);
    :class:`PredictiveSamples` exactly, by the sorted-sample formula of the empirical
    distribution (as :func:`crps_ensemble`); :class:`PredictiveQuantiles` by the
    quantile (pinball) approximation :math:`\frac2k\sum_j \rho_{\tau_j}(y - q_j)`
    (scoringrules' ``crps_quantile``).  Units of ``y``; **lower is better**.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored with ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; False returns the per-sample scores.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The mean CRPS, or the per-sample values.

    References
    ----------
    T. Gneiting and A. E. Raftery (2007). Strictly proper scoring rules, prediction, and
    estimation. JASA 102(477), 359-378.
    A. Jordan, F. Krueger and S. Lerch (2019). Evaluating probabilistic forecasts with
    scoringRules. Journal of Statistical Software 90(12).
    F. Laio and S. Tamea (2007). Verification tools for probabilistic forecasts of
    continuous hydrological variables. Hydrology and Earth System Sciences 11, 1267-1277.

    Examples
    --------
    >>> from scipy.stats import norm, t
    >>> from skcalib.metrics import crps, PredictiveSamples
    >>> round(crps([0.0, 1.0], norm([0.0, 0.0], [1.0, 1.0])), 6)
    0.418068
    >>> round(crps([0.0], t(5.0, 0.0, 1.0)), 6)
    0.257025
    >>> crps([1.0], PredictiveSamples([[0.0, 1.0, 2.0]]))
    0.2222222222222222
    """
    y, pred, sw = _read(y_true, y_pred, sample_weight)
    if aggregate:
        return pred._crps_mean(y, sw)
    return pred._crps(y)


@validate_params({**_COMMON, "aggregate": ["boolean"]}, prefer_skip_nested_validation=True)
def log_score(y_true, y_pred, *, sample_weight=None, aggregate=True):
    r"""Compute the logarithmic score: the negative log predictive density.

    .. math::

        \mathrm{LogS}(f, y) = -\log f(y),

    the strictly proper local scoring rule (Good 1952); its mean is the negative
    log-likelihood of the observations (as :func:`normal_negative_log_likelihood` for
    Normal forecasts).  Defined for the forms with a density: scipy distributions and
    :class:`PredictiveQuantiles` (its piecewise-uniform density, infinite outside the
    support); samples have none.  **Lower is better**.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored with ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; False returns the per-sample scores.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The mean log score, or the per-sample values.

    References
    ----------
    I. J. Good (1952). Rational decisions. JRSS B 14(1), 107-114.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import log_score
    >>> round(log_score([0.0, 1.0], norm(0.0, [1.0, 1.0])), 6)
    1.168939
    """
    y, pred, sw = _read(y_true, y_pred, sample_weight)
    return _aggregate(-pred.logpdf(y), sw, aggregate)


@validate_params(
    {"y_true": ["array-like"], "y_pred": "no_validation", "random_state": ["random_state"]},
    prefer_skip_nested_validation=True,
)
def pit(y_true, y_pred, *, random_state=None):
    r"""Compute probability integral transform values of any predictive distribution.

    :math:`\mathrm{PIT}_i = F_i(y_i)`, uniform on [0, 1] when the forecasts are
    calibrated (Dawid 1984).  For :class:`PredictiveSamples` it is the randomised
    verification rank :math:`(L_i + V_i(E_i + 1))/(m + 1)` (as :func:`pit_ensemble`),
    exactly uniform for exchangeable draws; for :class:`PredictiveQuantiles` the
    piecewise-linear CDF through the quantiles.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
    random_state : int, RandomState instance or None, default=None
        Seeds the randomisation of the ranks of samples (unused by the other forms).

    Returns
    -------
    ndarray of shape (n_samples,)
        PIT values in [0, 1].

    References
    ----------
    A. P. Dawid (1984). Statistical theory: the prequential approach. JRSS A 147(2),
    278-292.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import pit
    >>> pit([0.0, 1.0], norm(0.0, [1.0, 1.0])).round(4)
    array([0.5   , 0.8413])
    """
    y, pred, _ = _read(y_true, y_pred)
    return pred.pit(y, random_state=random_state)


# --------------------------------------------------------------------------------------
# calibration curve
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class RegressionCalibrationCurveResult(_UnpackableResult):
    """Result of :func:`~skcalib.metrics.regression_calibration_curve`.

    Unpacks as ``(expected, observed)``, the order of uncertainty-toolbox's
    ``get_proportion_lists``.

    Parameters
    ----------
    expected : ndarray of shape (n_levels,)
        Nominal proportions (levels), ``np.linspace(0, 1, n_levels)``.
    observed : ndarray of shape (n_levels,)
        Observed (weighted) proportion at each level.
    kind : str
        ``"interval"`` or ``"quantile"``.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import regression_calibration_curve
    >>> expected, observed = regression_calibration_curve(
    ...     [0.0, 0.5, 3.0], norm(0.0, [1.0, 1.0, 1.0]), n_levels=3)
    >>> expected, observed.round(3)
    (array([0. , 0.5, 1. ]), array([0.333, 0.667, 1.   ]))
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("expected", "observed")

    expected: np.ndarray
    observed: np.ndarray
    kind: str = "interval"


def level_counts(pit_values, sw, n_levels, kind):
    """Weights of the cells between the levels ``np.linspace(0, 1, n_levels)``.

    Cell ``j`` (of ``n_levels + 1``) holds the values with ``j`` levels below them:
    ``v = PIT`` (``kind="quantile"``) or ``v = |2 PIT - 1|`` (``"interval"``).  The
    cumulative sums are the observed proportions; the counts of two sets of data add.
    ``pit_values`` is a fresh array (it is transformed in place).
    """
    values = pit_values
    if kind == "interval":
        # |2 PIT - 1| <= tau: y inside the central tau interval
        values *= 2.0
        values -= 1.0
        np.abs(values, out=values)
    np.clip(values, 0.0, 1.0, out=values)
    # the levels are the edges of n_levels - 1 equal-width bins: the number of levels
    # below v > 0 is its right-closed bin index (the binning core's rule) plus one
    edges = np.linspace(0.0, 1.0, n_levels)

    def below(c):
        b = bin_index_unclipped(c, edges, uniform=True)
        b += c > 0
        return b

    return _chunked_counts(values, sw, n_levels + 1, below)


def curve_from_counts(counts):
    """``(levels, observed)`` from the cell weights of :func:`level_counts`."""
    cum = np.cumsum(counts)
    tau = np.linspace(0.0, 1.0, counts.shape[0] - 1)
    return tau, np.minimum(cum[:-1] / cum[-1], 1.0)


def _curve(y_true, y_pred, n_levels, kind, sample_weight, random_state):
    y, pred, sw = _read(y_true, y_pred, sample_weight)
    values = pred.pit(y, random_state=random_state)
    return curve_from_counts(level_counts(values, sw, n_levels, kind))


def calibration_errors(tau, observed):
    """``{"l1", "l2", "max", "area"}`` of a calibration curve."""
    d = observed - tau
    a = np.abs(d)
    return {
        "l1": float(a.mean()),
        "l2": float(np.sqrt(np.mean(a * a))),
        "max": float(a.max()),
        "area": _area_between(tau, d),
    }


_CURVE = {
    **_COMMON,
    "n_levels": [Interval(numbers.Integral, 2, None, closed="left")],
    "kind": [StrOptions({"interval", "quantile"})],
    "random_state": ["random_state"],
}


@validate_params(_CURVE, prefer_skip_nested_validation=True)
def regression_calibration_curve(
    y_true, y_pred, *, n_levels=100, kind="interval", sample_weight=None, random_state=None
):
    r"""Compute the calibration curve of regression: expected against observed proportions.

    At each level :math:`p` of ``np.linspace(0, 1, n_levels)``, the observed proportion is

    * ``kind="interval"`` (uncertainty-toolbox's default): the (weighted) fraction of
      observations inside their central :math:`p` interval,
      :math:`\hat P(p) = \frac{\sum_i w_i \mathbb 1\{|2\,\mathrm{PIT}_i - 1| \le p\}}
      {\sum_i w_i}`;
    * ``kind="quantile"`` (Kuleshov et al. 2018): the fraction below their predicted
      :math:`p`-quantile, :math:`\frac{\sum_i w_i \mathbb 1\{\mathrm{PIT}_i \le p\}}
      {\sum_i w_i}`.

    Calibrated forecasts give the diagonal.  Both follow from the PIT values (one pass,
    then one counting pass for every level), for any form with a CDF.
    uncertainty-toolbox's ``"quantile"`` proportions count ``y_pred - y_true`` below the
    quantiles of the standardised residual, i.e. the fraction *above* the
    :math:`(1 - p)`-quantile; skcalib's count the fraction below the :math:`p`-quantile
    (the two agree for calibrated forecasts and differ for biased ones).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
    n_levels : int, default=100
        Number of equally spaced levels in [0, 1] (uncertainty-toolbox's ``num_bins``).
    kind : {"interval", "quantile"}, default="interval"
        Central intervals or quantiles.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the proportions.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomised PIT of :class:`PredictiveSamples`.

    Returns
    -------
    curve : RegressionCalibrationCurveResult
        Unpacks as ``(expected, observed)``; also has ``kind``.

    References
    ----------
    V. Kuleshov, N. Fenner and S. Ermon (2018). Accurate uncertainties for deep learning
    using calibrated regression. ICML.
    Y. Chung, I. Char, H. Guo, J. Schneider and W. Neiswanger (2021). Uncertainty
    Toolbox: an open-source library for assessing, visualizing, and improving
    uncertainty quantification. arXiv:2109.10254.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import regression_calibration_curve
    >>> expected, observed = regression_calibration_curve(
    ...     [0.0, 0.5, 3.0], norm(0.0, [1.0, 1.0, 1.0]), n_levels=3, kind="quantile")
    >>> observed.round(3)
    array([0.   , 0.333, 1.   ])
    """
    tau, observed = _curve(y_true, y_pred, n_levels, kind, sample_weight, random_state)
    return RegressionCalibrationCurveResult(expected=tau, observed=observed, kind=kind)


@validate_params(
    {**_CURVE, "norm": [StrOptions({"l1", "l2", "max"})]}, prefer_skip_nested_validation=True
)
def regression_calibration_error(
    y_true,
    y_pred,
    *,
    n_levels=100,
    kind="interval",
    norm="l1",
    sample_weight=None,
    random_state=None,
):
    r"""Compute the calibration error of regression from the calibration curve.

    With :math:`p_j` the ``n_levels`` levels and :math:`\hat P(p_j)` the observed
    proportions of :func:`regression_calibration_curve`,

    * ``norm="l1"``: :math:`\frac1L\sum_j |\hat P(p_j) - p_j|`, uncertainty-toolbox's
      mean absolute calibration error (MACE);
    * ``norm="l2"``: :math:`\sqrt{\frac1L\sum_j (\hat P(p_j) - p_j)^2}`, its root mean
      squared calibration error (RMSCE);
    * ``norm="max"``: :math:`\max_j |\hat P(p_j) - p_j|`.

    **Lower is better**; 0 for perfect calibration.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
    n_levels : int, default=100
        Number of equally spaced levels in [0, 1].
    kind : {"interval", "quantile"}, default="interval"
        Central intervals or quantiles (see :func:`regression_calibration_curve`).
    norm : {"l1", "l2", "max"}, default="l1"
        How the differences are summarised.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the proportions.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomised PIT of :class:`PredictiveSamples`.

    Returns
    -------
    float
        The calibration error, in [0, 1].

    References
    ----------
    Y. Chung, I. Char, H. Guo, J. Schneider and W. Neiswanger (2021). Uncertainty
    Toolbox. arXiv:2109.10254.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import regression_calibration_error
    >>> y = np.random.default_rng(0).normal(size=10_000)
    >>> overconfident = norm(np.zeros_like(y), 0.5)
    >>> round(regression_calibration_error(y, overconfident), 3)
    0.207
    """
    tau, observed = _curve(y_true, y_pred, n_levels, kind, sample_weight, random_state)
    return calibration_errors(tau, observed)[norm]


def _area_between(x, d):
    """Area between a piecewise-linear curve and the diagonal, ``d = observed - x``.

    Per segment: a trapezoid where ``d`` keeps its sign, two triangles (an hourglass)
    where it changes sign, as uncertainty-toolbox's ``trapezoid_area``.
    """
    dx = np.diff(x)
    dl, dr = d[:-1], d[1:]
    cross = dl * dr < 0
    area = np.where(
        cross,
        dx * (dl * dl + dr * dr) / (2.0 * np.where(cross, np.abs(dl) + np.abs(dr), 1.0)),
        dx * 0.5 * np.abs(dl + dr),
    )
    return float(area.sum())


@validate_params(_CURVE, prefer_skip_nested_validation=True)
def miscalibration_area(
    y_true, y_pred, *, n_levels=100, kind="interval", sample_weight=None, random_state=None
):
    r"""Compute the miscalibration area: the area between the calibration curve and the diagonal.

    .. math::

        A = \int_0^1 |\hat P(p) - p|\,dp

    for the piecewise-linear curve through the ``n_levels`` points of
    :func:`regression_calibration_curve` (exactly, also where the curve crosses the
    diagonal), uncertainty-toolbox's ``miscalibration_area``.  **Lower is better**.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
    n_levels : int, default=100
        Number of equally spaced levels in [0, 1].
    kind : {"interval", "quantile"}, default="interval"
        Central intervals or quantiles.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the proportions.
    random_state : int, RandomState instance or None, default=None
        Seeds the randomised PIT of :class:`PredictiveSamples`.

    Returns
    -------
    float
        The area, in [0, 1/2].

    References
    ----------
    Y. Chung, I. Char, H. Guo, J. Schneider and W. Neiswanger (2021). Uncertainty
    Toolbox. arXiv:2109.10254.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import miscalibration_area
    >>> y = np.random.default_rng(0).normal(size=10_000)
    >>> round(miscalibration_area(y, norm(np.zeros_like(y), 2.0)), 3)
    0.2
    """
    tau, observed = _curve(y_true, y_pred, n_levels, kind, sample_weight, random_state)
    return _area_between(tau, observed - tau)


# --------------------------------------------------------------------------------------
# sharpness, intervals
# --------------------------------------------------------------------------------------


@validate_params(
    {"y_pred": "no_validation", "sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def sharpness(y_pred, *, sample_weight=None):
    r"""Compute the sharpness: the root mean predictive variance.

    .. math::

        \mathrm{Sha} = \sqrt{\frac{\sum_i w_i \sigma_i^2}{\sum_i w_i}},

    uncertainty-toolbox's ``sharpness``, in the units of ``y``: smaller is sharper, which
    is only a merit under calibration (Gneiting et al. 2007).

    Parameters
    ----------
    {y_pred}
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean.

    Returns
    -------
    float
        The root mean variance.

    References
    ----------
    T. Gneiting, F. Balabdaoui and A. E. Raftery (2007). Probabilistic forecasts,
    calibration and sharpness. JRSS B 69(2), 243-268.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import sharpness
    >>> sharpness(norm([0.0, 5.0], [1.0, 7.0]))
    5.0
    """
    pred = as_predictive(y_pred)
    sw = check_sample_weight(sample_weight, pred.n)
    return float(np.sqrt(_weighted_mean(pred.var(), sw)))


def _interval_of(pred, coverage):
    if coverage is None:
        coverage = pred.coverage if isinstance(pred, PredictionInterval) else 0.9
    return pred.interval(coverage)


@validate_params(
    {
        "y_pred": "no_validation",
        "coverage": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def mean_interval_width(y_pred, *, coverage=None, sample_weight=None):
    r"""Compute the mean width of central prediction intervals (MPIW).

    .. math::

        \mathrm{MPIW} = \frac{\sum_i w_i (u_i - l_i)}{\sum_i w_i}

    for the central ``coverage`` interval :math:`[l_i, u_i]` of each predictive
    distribution (or the given :class:`PredictionInterval`).  Read it with
    :func:`interval_coverage` at the same ``coverage``.

    Parameters
    ----------
    {y_pred}
    coverage : float in (0, 1), default=None
        Probability content of the intervals; default: the coverage of a
        :class:`PredictionInterval`, 0.9 for the other forms.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean.

    Returns
    -------
    float
        The mean width, in the units of ``y``.

    References
    ----------
    A. Khosravi, S. Nahavandi, D. Creighton and A. F. Atiya (2011). Lower upper bound
    estimation method for construction of neural network-based prediction intervals.
    IEEE Transactions on Neural Networks 22(3), 337-346.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import mean_interval_width, PredictionInterval
    >>> round(mean_interval_width(norm([0.0, 1.0], 1.0), coverage=0.9), 4)
    3.2897
    >>> mean_interval_width(PredictionInterval([0.0, 1.0], [2.0, 5.0], coverage=0.8))
    3.0
    """
    pred = as_predictive(y_pred)
    sw = check_sample_weight(sample_weight, pred.n)
    lo, hi = _interval_of(pred, coverage)
    return _weighted_mean(hi - lo, sw)


@validate_params(
    {
        "y_true": ["array-like"],
        "y_lower": "no_validation",
        "y_upper": ["array-like", numbers.Real, None],
        "coverage": [Interval(numbers.Real, 0, 1, closed="neither"), None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def interval_coverage(y_true, y_lower, y_upper=None, *, coverage=None, sample_weight=None):
    r"""Compute the empirical coverage of prediction intervals (PICP).

    .. math::

        \mathrm{coverage} = \frac{\sum_i w_i\,\mathbb 1\{l_i \le y_i \le u_i\}}{\sum_i w_i}.

    This is the (weighted) fraction of samples with ``l <= y <= u``, the prediction
    interval coverage probability.  Two calls:

    * ``interval_coverage(y_true, y_lower, y_upper)``: the given bounds;
    * ``interval_coverage(y_true, y_pred, coverage=0.9)``: the central ``coverage``
      interval of any predictive distribution (a frozen scipy.stats distribution,
      :class:`PredictiveSamples`, :class:`PredictiveQuantiles`), or the intervals of a
      :class:`PredictionInterval`, passed in place of ``y_lower`` with no ``y_upper``.

    For calibrated central intervals it should be close to their nominal coverage
    (higher is not "better": compare with the nominal level, read it with
    :func:`mean_interval_width`, and use :func:`interval_score` or
    :func:`weighted_interval_score` to rank interval forecasts).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    y_lower : array-like of shape (n_samples,) or float, or predictive distributions
        Lower interval bounds; or the predictive distributions (``y_pred``), with
        ``y_upper`` left out.
    y_upper : array-like of shape (n_samples,) or float, default=None
        Upper interval bounds, ``y_lower <= y_upper``; None when ``y_lower`` is a
        predictive distribution.
    coverage : float in (0, 1), default=None
        Probability content of the central intervals of a predictive distribution;
        default: the coverage of a :class:`PredictionInterval`, 0.9 for the other forms.
        Not used with bounds.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the fraction.

    Returns
    -------
    float
        The (weighted) fraction of observations inside their interval, in [0, 1].

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import interval_coverage
    >>> interval_coverage([0.0, 2.0, -3.0, 1.0], -1.0, 1.0)
    0.5
    >>> interval_coverage([0.0, 2.0, -3.0, 1.0], norm(0.0, [1.0, 1.0, 1.0, 1.0]), coverage=0.9)
    0.5
    """
    if y_upper is None:
        y, pred, sw = _read(y_true, y_lower, sample_weight)
        lo, hi = _interval_of(pred, coverage)
        return _weighted_mean(((lo <= y) & (y <= hi)).astype(np.float64), sw)
    if coverage is not None:
        raise ValueError(
            "coverage is the level of the intervals of a predictive distribution; with "
            "y_lower and y_upper the bounds are given: leave coverage out"
        )
    y, lo, hi = _check_interval(y_true, y_lower, y_upper)
    n = y.shape[0]
    sw = check_sample_weight(sample_weight, n)
    inside = (lo <= y) & (y <= hi)
    total = float(inside.sum() if sw is None else np.dot(inside, sw))
    return _finish(total, None, sw, n, True)


# --------------------------------------------------------------------------------------
# weighted interval score
# --------------------------------------------------------------------------------------

#: the 23 quantile levels of the COVID-19 Forecast Hub (Bracher et al. 2021): the median
#: and the central intervals of alpha = 0.02, 0.05, 0.1, 0.2, ..., 0.9
_HUB_ALPHAS = np.array([0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])


def _wis_levels(pred, alphas):
    """Median and interval levels: from ``alphas``, or a quantile set's own levels."""
    if alphas is None:
        if isinstance(pred, PredictiveQuantiles):
            tau = pred.levels
            if not (
                np.any(np.isclose(tau, 0.5, rtol=0, atol=1e-12))
                and np.allclose(tau, 1.0 - tau[::-1], rtol=0, atol=1e-12)
            ):
                raise ValueError(
                    "weighted_interval_score needs the median and central intervals: the "
                    "levels of PredictiveQuantiles must include 0.5 and be symmetric "
                    f"about it (tau and 1 - tau), got {tau.tolist()!r}; or pass alphas"
                )
            return tau[tau < 0.5 - 1e-12] * 2.0
        alphas = _HUB_ALPHAS
    a = np.unique(np.asarray(alphas, dtype=np.float64).ravel())
    if a.size == 0 or not (np.all(np.isfinite(a)) and a.min() > 0 and a.max() < 1):
        raise ValueError(f"alphas must lie strictly between 0 and 1, got {a.tolist()!r}")
    return a


@validate_params(
    {**_COMMON, "alphas": ["array-like", None], "aggregate": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def weighted_interval_score(y_true, y_pred, *, alphas=None, sample_weight=None, aggregate=True):
    r"""Compute the weighted interval score (WIS) of Bracher et al. (2021).

    With the predictive median :math:`m` and the central :math:`(1 - \alpha_k)`
    intervals :math:`[l_k, u_k]`, :math:`k = 1, \dots, K`,

    .. math::

        \mathrm{WIS} = \frac{1}{K + 1/2}\Bigl(\frac12 |y - m|
            + \sum_{k=1}^K \frac{\alpha_k}{2}\,\mathrm{IS}_{\alpha_k}(l_k, u_k; y)\Bigr),

    with :math:`\mathrm{IS}_\alpha` the interval score (:func:`interval_score`).  It
    equals :math:`\frac{2}{2K+1}\sum_j \rho_{\tau_j}(y - q_j)` over the :math:`2K + 1`
    quantiles, the quantile approximation of the CRPS.  **Lower is better**.  (scoringrules
    0.10's numpy backend adds :math:`w_0 m` instead of :math:`w_0 |y - m|`; this is the
    definition.)

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
        A :class:`PredictionInterval` has no median: it is not accepted.
    alphas : array-like of shape (K,), default=None
        Miscoverages of the central intervals.  Default: a :class:`PredictiveQuantiles`
        uses its own levels (which must hold 0.5 and be symmetric about it); the other
        forms the COVID-19 Forecast Hub's ``0.02, 0.05, 0.1, 0.2, ..., 0.9``.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the mean (ignored with ``aggregate=False``).
    aggregate : bool, default=True
        Return the (weighted) mean; False returns the per-sample scores.

    Returns
    -------
    float or ndarray of shape (n_samples,)
        The mean WIS, or the per-sample values.

    References
    ----------
    J. Bracher, E. L. Ray, T. Gneiting and N. G. Reich (2021). Evaluating epidemic
    forecasts in an interval format. PLOS Computational Biology 17(2), e1008618.

    Examples
    --------
    >>> from skcalib.metrics import weighted_interval_score, PredictiveQuantiles
    >>> pred = PredictiveQuantiles([[1.0, 2.5, 3.0]], levels=[0.25, 0.5, 0.75])
    >>> weighted_interval_score([2.0], pred)
    0.5
    """
    y, pred, sw = _read(y_true, y_pred, sample_weight)
    if isinstance(pred, PredictionInterval):
        raise ValueError(
            "weighted_interval_score needs the predictive median; a PredictionInterval "
            "has none (use interval_score for one interval)"
        )
    a = _wis_levels(pred, alphas)
    lower = a / 2.0
    levels = np.concatenate([lower, [0.5], 1.0 - lower[::-1]])
    q = pred.ppf(levels)
    d = y[:, None] - q
    pinball = np.maximum(levels * d, (levels - 1.0) * d).sum(axis=1)
    pinball *= 2.0 / levels.shape[0]
    return _aggregate(pinball, sw, aggregate)


# --------------------------------------------------------------------------------------
# variance calibration: ENCE, UCE
# --------------------------------------------------------------------------------------


def _variance_bins(x, n_bins, strategy, sw):
    """Bin index of each predicted spread ``x`` (std or variance) under the one rule.

    The values are mapped to [0, 1] by ``(x - min) / (max - min)`` (an increasing map,
    so equal-mass edges are its order statistics) and binned right-closed, bin ``b``
    holding ``edges[b] < x <= edges[b + 1]`` (the first bin also its lower edge).
    """
    seen = x if sw is None or sw.all() else x[sw > 0]
    lo, hi = float(seen.min()), float(seen.max())
    if not hi > lo:
        return np.zeros(x.shape[0], dtype=np.int64)
    u = (x - lo) / (hi - lo)
    np.clip(u, 0.0, 1.0, out=u)
    edges = uniform_bin_edges(n_bins) if strategy == "uniform" else quantile_edges(u, n_bins, sw)
    return assign_bins(u, edges)


def _bin_moments(y_true, y_pred, n_bins, strategy, sample_weight, by):
    y, pred, sw = _read(y_true, y_pred, sample_weight)
    if isinstance(pred, PredictionInterval):
        raise ValueError("a PredictionInterval has no variance: use interval_coverage")
    var = pred.var()
    err = pred.mean() - y
    err *= err
    key = np.sqrt(var) if by == "std" else var
    b = _variance_bins(key, n_bins, strategy, sw)
    w = np.ones_like(y) if sw is None else sw
    wsum = np.bincount(b, weights=w, minlength=n_bins)
    mv = np.bincount(b, weights=w * var, minlength=n_bins)
    mse = np.bincount(b, weights=w * err, minlength=n_bins)
    keep = wsum > 0
    return wsum[keep], mv[keep] / wsum[keep], mse[keep] / wsum[keep]


_VAR = {
    **_COMMON,
    "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
    "strategy": [StrOptions({"uniform", "quantile"})],
}


@validate_params(_VAR, prefer_skip_nested_validation=True)
def expected_normalized_calibration_error(
    y_true, y_pred, *, n_bins=10, strategy="quantile", sample_weight=None
):
    r"""Compute the expected normalized calibration error (ENCE) of predicted spreads.

    The samples are binned by predicted standard deviation; in each non-empty bin
    :math:`b`, the root mean variance and the root mean squared error of the predictive
    mean are

    .. math::

        \mathrm{RMV}(b) = \sqrt{\overline{\sigma^2}_b},\quad
        \mathrm{RMSE}(b) = \sqrt{\overline{(\mu - y)^2}_b},\quad
        \mathrm{ENCE} = \frac1B\sum_b \frac{|\mathrm{RMV}(b) - \mathrm{RMSE}(b)|}
            {\mathrm{RMV}(b)}

    (Levi et al. 2019), over the :math:`B` non-empty bins.  ``strategy="quantile"``
    (Levi et al.'s bins of equal count of the sorted standard deviations) or
    ``"uniform"`` (equal width between the smallest and the largest, netcal's ``ENCE``).
    0 for variance-calibrated forecasts; **lower is better**.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
        Any form with a mean and a variance.
    n_bins : int, default=10
        Number of bins.
    strategy : {"quantile", "uniform"}, default="quantile"
        Equal-count or equal-width bins of the predicted standard deviation.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the bin means (and of the equal-mass edges).

    Returns
    -------
    float
        The ENCE (unitless, >= 0).

    References
    ----------
    D. Levi, L. Gispan, N. Giladi and E. Fetaya (2019). Evaluating and calibrating
    uncertainty prediction in regression tasks. arXiv:1905.11659.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import expected_normalized_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> std = rng.uniform(0.5, 2.0, size=50_000)
    >>> y = rng.normal(0.0, std)
    >>> round(expected_normalized_calibration_error(y, norm(0.0, std)), 2)
    0.01
    >>> round(expected_normalized_calibration_error(y, norm(0.0, 2 * std)), 2)
    0.5
    """
    _, mv, mse = _bin_moments(y_true, y_pred, n_bins, strategy, sample_weight, "std")
    rmv, rmse = np.sqrt(mv), np.sqrt(mse)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.abs(rmv - rmse) / rmv
    ratio = ratio[rmv > 0]
    if ratio.size == 0:
        raise ValueError("every predicted standard deviation is 0: the ENCE is not defined")
    return float(ratio.mean())


@validate_params(_VAR, prefer_skip_nested_validation=True)
def uncertainty_calibration_error(
    y_true, y_pred, *, n_bins=10, strategy="uniform", sample_weight=None
):
    r"""Compute the uncertainty calibration error (UCE) of predicted variances.

    The samples are binned by predicted variance; with the (weighted) share
    :math:`n_b / n` of bin :math:`b`, its mean variance and mean squared error,

    .. math::

        \mathrm{UCE} = \sum_b \frac{n_b}{n}\,\bigl|\overline{\sigma^2}_b
            - \overline{(\mu - y)^2}_b\bigr|

    (Laves et al. 2020), in the squared units of ``y``.  ``strategy="uniform"`` (equal
    width between the smallest and the largest variance, Laves et al. and netcal's
    ``UCE``) or ``"quantile"`` (equal count).  0 for variance-calibrated forecasts;
    **lower is better**.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Observed values.
    {y_pred}
        Any form with a mean and a variance.
    n_bins : int, default=10
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width or equal-count bins of the predicted variance.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the shares and bin means.

    Returns
    -------
    float
        The UCE (>= 0).

    References
    ----------
    M.-H. Laves, S. Ihler, J. F. Fast, L. A. Kahrs and T. Ortmaier (2020). Well-calibrated
    regression uncertainty in medical imaging with deep learning. MIDL, PMLR 121, 393-412.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from skcalib.metrics import uncertainty_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> std = rng.uniform(0.5, 2.0, size=50_000)
    >>> y = rng.normal(0.0, std)
    >>> round(uncertainty_calibration_error(y, norm(0.0, 2 * std)), 2)
    5.27
    """
    wsum, mv, mse = _bin_moments(y_true, y_pred, n_bins, strategy, sample_weight, "var")
    return float(np.dot(wsum, np.abs(mv - mse)) / wsum.sum())


for _f in (
    crps,
    log_score,
    pit,
    regression_calibration_curve,
    regression_calibration_error,
    miscalibration_area,
    sharpness,
    mean_interval_width,
    weighted_interval_score,
    expected_normalized_calibration_error,
    uncertainty_calibration_error,
):
    _f.__doc__ = _f.__doc__.replace("{y_pred}", _Y_PRED_DOC)
    if hasattr(_f, "__wrapped__"):
        _f.__wrapped__.__doc__ = _f.__doc__
