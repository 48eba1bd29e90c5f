r"""SPCE and CCE with the interface of Google's ``uncertainty_metrics`` 0.0.82.

``numpy/semiparametric_calibration_error.py`` (``SemiparametricCalibrationError`` =
``SPCE``, ``semiparametric_calibration_error`` = ``spce``,
``semiparametric_calibration_error_conf_int`` = ``spce_conf_int``) and
``numpy/censored_calibration_error.py`` (``CCE``, ``cce``, ``cce_conf_int``), with the
reference's signatures, argument order (``probs`` first) and return conventions,
computed by skcalib's estimators (:mod:`skcalib.metrics`).  Re-exported by
:mod:`skcalib.compat.uncertainty_metrics`.

What is reproduced and what is not
----------------------------------
* SPCE: the same algorithm, the same hyperparameter grids and undersmoothing, and the
  same folds (``StratifiedKFold(folds, shuffle=True, random_state=708)`` on the labels,
  or ``fold_generator``), so with constant weights (the default) the estimate is the
  reference's.  The spline smoother sorts the weights with the probabilities (the
  reference passes them unsorted, which attaches them to the wrong points for
  ``weights="relative"``/``"chi"``).
* CCE: :func:`skcalib.metrics.censored_calibration_error` computes it, with folds seeded
  by 708; its undersmoothing *narrows* the smoother (the reference multiplies the
  bandwidth by ``n**0.08`` and so widens it), so the estimates differ slightly.
  ``cce``/``CCE.rms_calibration_error`` return the estimate on the **squared** scale,
  as the reference does (``cce_conf_int`` and all SPCE functions are on the square-root
  scale).
* SPCE's bootstrap standard error uses NumPy's global random state (unseeded in the
  reference too), so its intervals vary from call to call unless ``np.random.seed``
  is set; CCE's folds and bootstrap are both seeded by 708, so its interval is
  reproducible (the reference's bootstrap is unseeded).
* Bad input raises ValueError (the reference raises ``Exception``, a string, or
  ``AttributeError`` on NumPy >= 1.24 through ``np.float``).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from ..metrics import censored_calibration_error_ci
from ..metrics._semiparametric import (
    _bootstrap_se,
    _cross_fit,
    _weighted_mean,
    weight_function,
)
from ..utils._sklearn_compat import Interval, StrOptions, validate_params

__all__ = [
    "CCE",
    "SPCE",
    "SemiparametricCalibrationError",
    "cce",
    "cce_conf_int",
    "semiparametric_calibration_error",
    "semiparametric_calibration_error_conf_int",
    "spce",
    "spce_conf_int",
]

_WEIGHTS = {"constant", "relative", "chi"}


def _range(hyperparam_range):
    if hyperparam_range is None:
        return None
    r = np.asarray(hyperparam_range, dtype=np.float64)
    if r.shape != (2,) or not np.isfinite(r).all() or r[0] < 0 or r[1] < r[0]:
        raise ValueError(
            f"hyperparam_range must be a pair (low, high) with 0 <= low <= high, "
            f"got {hyperparam_range!r}"
        )
    return float(r[0]), float(r[1])


def _z(alpha):
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return -special.ndtri(alpha / 2)


def _triple(est, se, z):
    root = np.sqrt
    return (
        float(root(max(est - z * se, 0.0))),
        float(root(max(est, 0.0))),
        float(root(max(est + z * se, 0.0))),
    )


class SemiparametricCalibrationError:
    r"""Semiparametric calibration error (SPCE) of uncertainty_metrics 0.0.82.

    Estimates the weighted L2 calibration error of binary predictions,
    ``sqrt(E[w(p) (p - a(p))^2])`` with ``a(p) = E[y | p]``, by a cross-fitted smoother
    (a Gaussian kernel on the residuals ``y - p``, or a smoothing spline), its
    hyperparameter chosen by cross-validation and undersmoothed (kernel precision times
    ``n**0.08``; spline smoothing times 0.985).

    Parameters
    ----------
    folds : int, default=5
        Number of cross-fitting folds.
    weight_trunc : float, default=0.05
        Truncation of the weight function.
    weights : {"constant", "relative", "chi"} or None, default="constant"
        ``w(p)``: 1, ``1 / max(min(p, 1-p)^2, trunc)`` or ``1 / max(p (1-p), trunc)``.
    bootstrap_size : int, default=500
        Bootstrap resamples of the standard error.
    orthogonal : bool, default=False
        Use the influence-function (debiased) estimate.
    normalize : bool, default=False
        Divide the weighted mean by the mean weight.
    smoothing : {"kernel", "spline"}, default="kernel"
        The smoother.
    hyperparam_attempts : int, default=50
        Size of the hyperparameter grid.
    default_hyperparam_range : tuple of two floats, default=None
        Grid range (kernel: ``(0, 0.1)``, spline: ``(0.5, 1.1)``).
    verbose : bool, default=False
        Print the chosen hyperparameter.
    fold_generator : splitter, default=None
        Object whose ``split(probs, labels)`` yields ``(train, test)`` (e.g.
        ``sklearn.model_selection.KFold`` for continuous outcomes); default
        ``StratifiedKFold(folds, shuffle=True, random_state=708)``.

    See Also
    --------
    skcalib.metrics.semiparametric_calibration_error : The SPCE of skcalib (a
        ``random_state``, multiclass top-label input, validated probabilities).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import SPCE
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) <= 0.7 * p**2 + 0.3 * p).astype(float)
    >>> value = SPCE(smoothing="spline").rms_calibration_error(p, y)
    >>> 0.05 < value < 0.25  # the true value is 0.7 / sqrt(30) = 0.128
    True
    """

    @validate_params(
        {
            "folds": [Interval(numbers.Integral, 2, None, closed="left")],
            "weight_trunc": [Interval(numbers.Real, 0, None, closed="neither")],
            "weights": [StrOptions(_WEIGHTS), None],
            "bootstrap_size": [Interval(numbers.Integral, 2, None, closed="left")],
            "orthogonal": ["boolean"],
            "normalize": ["boolean"],
            "smoothing": [StrOptions({"kernel", "spline"})],
            "hyperparam_attempts": [Interval(numbers.Integral, 1, None, closed="left")],
            "default_hyperparam_range": ["array-like", None],
            "verbose": ["boolean"],
            "fold_generator": [object, None],
        },
        prefer_skip_nested_validation=True,
    )
    def __init__(
        self,
        folds=5,
        weight_trunc=0.05,
        weights="constant",
        bootstrap_size=500,
        orthogonal=False,
        normalize=False,
        smoothing="kernel",
        hyperparam_attempts=50,
        default_hyperparam_range=None,
        verbose=False,
        fold_generator=None,
    ):
        if fold_generator is not None and not hasattr(fold_generator, "split"):
            raise ValueError("fold_generator must have a split(probs, labels) method")
        self.folds = folds
        self.weight_trunc = weight_trunc
        self.weights = "constant" if weights is None else weights
        self.bootstrap_size = bootstrap_size
        self.orthogonal = orthogonal
        self.normalize = normalize
        self.smoothing = smoothing
        self.hyperparam_attempts = hyperparam_attempts
        default = (0.0, 0.1) if smoothing == "kernel" else (0.5, 1.1)
        self.default_hyperparam_range = _range(default_hyperparam_range) or default
        self.verbose = verbose
        self.fold_generator = fold_generator

    def _data(self, probs, labels):
        p = np.asarray(probs)
        y = np.asarray(labels)
        for arr, name in ((p, "probs"), (y, "labels")):
            if arr.dtype.kind not in "biuf":
                raise ValueError(f"{name} must contain real numbers, got dtype {arr.dtype}")
            if arr.ndim != 1:
                raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
        p, y = p.astype(np.float64), y.astype(np.float64)
        if p.shape != y.shape:
            raise ValueError(f"probs has {p.shape[0]} values but labels has {y.shape[0]}")
        if not (np.isfinite(p).all() and np.isfinite(y).all()):
            raise ValueError("probs and labels must be finite")
        if ((p < 0) | (p > 1)).any() or ((y < 0) | (y > 1)).any():
            raise ValueError("probs and labels must lie in [0, 1]")
        if p.shape[0] < 2 * self.folds:
            raise ValueError(f"need at least {2 * self.folds} samples for {self.folds} folds")
        if self.smoothing == "kernel" and p.max() == p.min():
            raise ValueError("probs is constant: the kernel grid is undefined")
        return p, y

    def _splits(self, p, y):
        if self.fold_generator is not None:
            return list(self.fold_generator.split(p, y))
        # imported here: sklearn.model_selection builds scorer constraints on import
        from sklearn.model_selection import StratifiedKFold

        cv = StratifiedKFold(n_splits=self.folds, shuffle=True, random_state=708)
        return list(cv.split(p, y))

    def _estimate(self, probs, labels, hyperparam_range, bootstrap):
        p, y = self._data(probs, labels)
        n = p.shape[0]
        wfun = weight_function(p, self.weights, self.weight_trunc)
        wn = wfun / wfun.mean()
        lo, hi = _range(hyperparam_range) or self.default_hyperparam_range
        if self.smoothing == "kernel":
            spread = p.max() - p.min()
            grid = (np.linspace(lo * n + 1, hi * n, self.hyperparam_attempts) / spread) ** 2
        else:
            V = float(np.sum(wn**2 * p * (1.0 - p)))
            grid = np.linspace(lo * V, hi * V, self.hyperparam_attempts)
        folds = self._splits(p, y)
        a_grid = _cross_fit(p, y, wn, folds, self.smoothing, grid)
        err = np.mean(wn * (a_grid - y) ** 2, axis=1)
        best = grid[int(np.argmin(err))]
        best = best * n**0.08 if self.smoothing == "kernel" else best * 0.985
        if self.verbose:
            print(f"SPCE: hyperparameter {best}")
        a = _cross_fit(p, y, wn, folds, self.smoothing, [best])[0]
        stat = (p - y) * (p - a)
        influence = (p - a) * (p + a - 2.0 * y)
        est = float(_weighted_mean(influence if self.orthogonal else stat, wfun, self.normalize))
        if not bootstrap:
            return est, None
        rng = np.random.mtrand._rand  # the global random state, as the reference
        return est, _bootstrap_se(influence, wfun, self.normalize, self.bootstrap_size, rng)

    def rms_calibration_error(self, probs, labels, hyperparam_range=None):
        """The SPCE, ``sqrt(max(estimate, 0))``.

        Parameters
        ----------
        probs : array-like of shape (N,)
            Predicted probabilities of the positive outcome.
        labels : array-like of shape (N,)
            Outcomes in [0, 1] (0/1 labels, or probabilities with a ``KFold``
            ``fold_generator``).
        hyperparam_range : tuple of two floats, default=None
            Grid range; default ``default_hyperparam_range``.

        Returns
        -------
        float
            The value.
        """
        est, _ = self._estimate(probs, labels, hyperparam_range, bootstrap=False)
        return float(np.sqrt(max(est, 0.0)))

    def rms_calibration_error_conf_int(self, probs, labels, hyperparam_range=None, alpha=0.05):
        """``(lower, estimate, upper)`` on the square-root scale.

        The normal interval ``estimate +- z se`` of the squared error (``se`` from
        ``bootstrap_size`` bootstrap resamples, ``z = -Phi^{-1}(alpha / 2)``), each end
        mapped by ``sqrt(max(., 0))``.

        Parameters
        ----------
        probs : array-like of shape (N,)
            Predicted probabilities of the positive outcome.
        labels : array-like of shape (N,)
            Outcomes in [0, 1].
        hyperparam_range : tuple of two floats, default=None
            Grid range; default ``default_hyperparam_range``.
        alpha : float in (0, 1), default=0.05
            One minus the confidence level.

        Returns
        -------
        tuple of three floats
            ``(lower, estimate, upper)``.
        """
        z = _z(alpha)
        est, se = self._estimate(probs, labels, hyperparam_range, bootstrap=True)
        return _triple(est, se, z)


SPCE = SemiparametricCalibrationError


@validate_params(
    {"probs": ["array-like"], "labels": ["array-like"], "hyperparam_range": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def spce(probs, labels, hyperparam_range=None, **class_kwargs):
    """``SPCE(**class_kwargs).rms_calibration_error(probs, labels, hyperparam_range)``.

    Parameters
    ----------
    probs : array-like of shape (N,)
        Predicted probabilities of the positive outcome.
    labels : array-like of shape (N,)
        Outcomes (0/1).
    hyperparam_range : tuple of two floats, default=None
        Grid range.
    **class_kwargs : dict
        Parameters of :class:`SemiparametricCalibrationError`.

    Returns
    -------
    float
        The value.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import spce
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) <= p).astype(float)  # calibrated
    >>> spce(p, y, smoothing="spline") < 0.1
    True
    """
    return SemiparametricCalibrationError(**class_kwargs).rms_calibration_error(
        probs, labels, hyperparam_range=hyperparam_range
    )


semiparametric_calibration_error = spce


@validate_params(
    {"probs": ["array-like"], "labels": ["array-like"], "hyperparam_range": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def spce_conf_int(probs, labels, hyperparam_range=None, **class_kwargs):
    """``SPCE(**class_kwargs).rms_calibration_error_conf_int(...)`` at ``alpha=0.05``.

    Parameters
    ----------
    probs : array-like of shape (N,)
        Predicted probabilities of the positive outcome.
    labels : array-like of shape (N,)
        Outcomes (0/1).
    hyperparam_range : tuple of two floats, default=None
        Grid range.
    **class_kwargs : dict
        Parameters of :class:`SemiparametricCalibrationError`.

    Returns
    -------
    tuple of three floats
        ``(lower, estimate, upper)``, square-root scale.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import spce_conf_int
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=300)
    >>> y = (rng.uniform(size=300) <= p).astype(float)
    >>> low, est, high = spce_conf_int(p, y, smoothing="spline")
    >>> bool(low <= est <= high)
    True
    """
    return SemiparametricCalibrationError(**class_kwargs).rms_calibration_error_conf_int(
        probs, labels, hyperparam_range=hyperparam_range
    )


semiparametric_calibration_error_conf_int = spce_conf_int


_AGGREGATION = {"Kaplan-Meier": "kaplan-meier", "Nelson-Aalen": "nelson-aalen"}


class CCE:
    r"""Censored calibration error of uncertainty_metrics 0.0.82.

    The weighted L2 calibration error of predicted probabilities
    ``p_i ~ P(T_i <= end_time)`` against right-censored times ``(T_i, event_i)``,
    computed by :func:`skcalib.metrics.censored_calibration_error` (folds seeded by 708;
    see the module notes for the difference in undersmoothing).

    Parameters
    ----------
    end_time : float
        The horizon of the predicted probabilities.
    folds : int, default=5
        Number of cross-fitting folds.
    weight_trunc : float, default=0.05
        Truncation of the weight function.
    weights : {"constant", "relative", "chi"} or None, default="constant"
        The weight function (as :class:`SemiparametricCalibrationError`).
    survival_aggregation : {"Kaplan-Meier", "Nelson-Aalen"}, default="Kaplan-Meier"
        Product-limit or exponential survival curve.
    kernel_fn : {"rbf", "cubic", "knn"}, default="rbf"
        The smoothing kernel.
    bootstrap_size : int, default=200
        Bootstrap resamples of the standard error.
    orthogonal : bool, default=False
        Use the influence-function (debiased) estimate.
    num_repeats : int, default=4
        Repeats of the cross-fitting (median).
    normalize : bool, default=False
        Divide the weighted mean by the mean weight.
    hyperparam_attempts : int, default=20
        Size of the bandwidth grid.
    default_hyperparam_range : tuple of two floats, default=None
        Grid range (default ``(0, 0.1)``).
    verbose : bool, default=False
        Accepted for compatibility (nothing is printed).

    See Also
    --------
    skcalib.metrics.censored_calibration_error : The CCE of skcalib (square-root scale).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import CCE
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=200)
    >>> y = (rng.uniform(size=200) <= p).astype(float)
    >>> est = CCE(end_time=1, folds=3, num_repeats=2).rms_calibration_error(
    ...     p, 1.5 - y, y)
    >>> bool(0 <= est <= 1)  # squared scale
    True
    """

    @validate_params(
        {
            "end_time": [Interval(numbers.Real, 0, None, closed="neither")],
            "folds": [Interval(numbers.Integral, 2, None, closed="left")],
            "weight_trunc": [Interval(numbers.Real, 0, None, closed="neither")],
            "weights": [StrOptions(_WEIGHTS), None],
            "survival_aggregation": [StrOptions(set(_AGGREGATION))],
            "kernel_fn": [StrOptions({"rbf", "cubic", "knn"})],
            "bootstrap_size": [Interval(numbers.Integral, 2, None, closed="left")],
            "orthogonal": ["boolean"],
            "num_repeats": [Interval(numbers.Integral, 1, None, closed="left")],
            "normalize": ["boolean"],
            "hyperparam_attempts": [Interval(numbers.Integral, 1, None, closed="left")],
            "default_hyperparam_range": ["array-like", None],
            "verbose": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def __init__(
        self,
        end_time,
        folds=5,
        weight_trunc=0.05,
        weights="constant",
        survival_aggregation="Kaplan-Meier",
        kernel_fn="rbf",
        bootstrap_size=200,
        orthogonal=False,
        num_repeats=4,
        normalize=False,
        hyperparam_attempts=20,
        default_hyperparam_range=None,
        verbose=False,
    ):
        self.end_time = end_time
        self.folds = folds
        self.weight_trunc = weight_trunc
        self.weights = "constant" if weights is None else weights
        self.survival_aggregation = survival_aggregation
        self.kernel_fn = kernel_fn
        self.bootstrap_size = bootstrap_size
        self.orthogonal = orthogonal
        self.num_repeats = num_repeats
        self.normalize = normalize
        self.hyperparam_attempts = hyperparam_attempts
        self.default_hyperparam_range = _range(default_hyperparam_range) or (0.0, 0.1)
        self.verbose = verbose

    def _options(self, hyperparam_range):
        return {
            "end_time": self.end_time,
            "n_folds": self.folds,
            "weights": self.weights,
            "weight_trunc": self.weight_trunc,
            "survival_aggregation": _AGGREGATION[self.survival_aggregation],
            "kernel": self.kernel_fn,
            "orthogonal": self.orthogonal,
            "normalize": self.normalize,
            "n_repeats": self.num_repeats,
            "hyperparam_range": _range(hyperparam_range) or self.default_hyperparam_range,
            "n_hyperparams": self.hyperparam_attempts,
        }

    def rms_calibration_error(self, probs, times, event, hyperparam_range=None):
        """The estimate of the **squared** calibration error (as the reference).

        Parameters
        ----------
        probs : array-like of shape (N,)
            Predicted probabilities of an event by ``end_time``.
        times : array-like of shape (N,)
            Event or censoring times (>= 0).
        event : array-like of shape (N,)
            1 for an observed event, 0 for censoring.
        hyperparam_range : tuple of two floats, default=None
            Grid range.

        Returns
        -------
        float
            The estimate on the squared scale (may be slightly negative).
        """
        # skcalib's point function returns sqrt(max(est, 0)); the interval carries the
        # signed squared estimate, which does not depend on the bootstrap
        ci = censored_calibration_error_ci(
            probs,
            times,
            event,
            n_bootstrap=2,
            random_state=708,
            **self._options(hyperparam_range),
        )
        return float(ci.estimate_squared)

    def rms_calibration_error_conf_int(
        self, probs, times, event, hyperparam_range=None, alpha=0.05
    ):
        """``(lower, estimate, upper)`` on the square-root scale.

        Parameters
        ----------
        probs : array-like of shape (N,)
            Predicted probabilities of an event by ``end_time``.
        times : array-like of shape (N,)
            Event or censoring times (>= 0).
        event : array-like of shape (N,)
            1 for an observed event, 0 for censoring.
        hyperparam_range : tuple of two floats, default=None
            Grid range.
        alpha : float in (0, 1), default=0.05
            One minus the confidence level.

        Returns
        -------
        tuple of three floats
            ``(lower, estimate, upper)``.
        """
        z = _z(alpha)
        ci = censored_calibration_error_ci(
            probs,
            times,
            event,
            confidence_level=1.0 - alpha,
            n_bootstrap=self.bootstrap_size,
            random_state=708,
            **self._options(hyperparam_range),
        )
        return _triple(ci.estimate_squared, ci.standard_error_squared, z)


@validate_params(
    {
        "probs": ["array-like"],
        "times": ["array-like"],
        "event": ["array-like"],
        "end_time": [numbers.Real],
        "hyperparam_range": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def cce(probs, times, event, end_time, hyperparam_range=None, **class_kwargs):
    """``CCE(end_time, **class_kwargs).rms_calibration_error(...)``: **squared** scale.

    Parameters
    ----------
    probs : array-like of shape (N,)
        Predicted probabilities of an event by ``end_time``.
    times : array-like of shape (N,)
        Event or censoring times.
    event : array-like of shape (N,)
        1 for an observed event, 0 for censoring.
    end_time : float
        The horizon.
    hyperparam_range : tuple of two floats, default=None
        Grid range.
    **class_kwargs : dict
        Parameters of :class:`CCE`.

    Returns
    -------
    float
        The value.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import cce
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=200)
    >>> y = (rng.uniform(size=200) <= p).astype(float)
    >>> bool(0 <= cce(p, 1.5 - y, y, end_time=1, folds=3, num_repeats=2) <= 1)
    True
    """
    return CCE(end_time, **class_kwargs).rms_calibration_error(
        probs, times, event, hyperparam_range=hyperparam_range
    )


@validate_params(
    {
        "probs": ["array-like"],
        "times": ["array-like"],
        "event": ["array-like"],
        "end_time": [numbers.Real],
        "hyperparam_range": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def cce_conf_int(probs, times, event, end_time, hyperparam_range=None, **class_kwargs):
    """``CCE(end_time, **class_kwargs).rms_calibration_error_conf_int(...)``, alpha 0.05.

    Parameters
    ----------
    probs : array-like of shape (N,)
        Predicted probabilities of an event by ``end_time``.
    times : array-like of shape (N,)
        Event or censoring times.
    event : array-like of shape (N,)
        1 for an observed event, 0 for censoring.
    end_time : float
        The horizon.
    hyperparam_range : tuple of two floats, default=None
        Grid range.
    **class_kwargs : dict
        Parameters of :class:`CCE`.

    Returns
    -------
    tuple of three floats
        ``(lower, estimate, upper)`` on the square-root scale.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import cce_conf_int
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=200)
    >>> y = (rng.uniform(size=200) <= p).astype(float)
    >>> low, est, high = cce_conf_int(p, 1.5 - y, y, end_time=1, folds=3,
    ...                               bootstrap_size=10, num_repeats=2)
    >>> bool(low <= est <= high)
    True
    """
    return CCE(end_time, **class_kwargs).rms_calibration_error_conf_int(
        probs, times, event, hyperparam_range=hyperparam_range
    )
