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
Both estimators follow the reference step by step: the same hyperparameter grids
(``hyperparam_range`` is, as there, the array of candidate values; the default grid is
built from ``default_hyperparam_range``), the same choice of the first grid value
with the smallest cross-validated error, the same undersmoothing (SPCE: kernel
precision times ``n**0.08``, spline smoothing times 0.985; CCE: bandwidth times
``n**0.08``), the same folds, and bootstrap standard errors drawn from NumPy's global
random state with the reference's draws (``np.random.choice(n, n)`` per resample, in
the same order; the point functions run the bootstrap too, as the reference does, so
that the global random state advances alike).  The numbers agree with the reference
to rounding (``tests/compat/test_um_semiparametric_golden.py``).

* SPCE folds: ``StratifiedKFold(folds, shuffle=True, random_state=708)`` on the labels,
  or ``fold_generator``.  The spline weights are normalised on each training part, as
  the reference does, and sorted with the probabilities (the reference passes them
  unsorted, which attaches them to the wrong points for ``weights="relative"``/
  ``"chi"``; with the default constant weights the two agree).
* CCE folds: the reference's ``StratifiedSurvivalKFold`` (events and censored subjects
  separately, sorted by time, each block of ``folds`` subjects a permutation of the
  fold ids from ``RandomState(seed)``), seed 708 for the bandwidth choice and
  ``708 + r`` for repeat ``r``; the median over repeats of the estimate and of the
  standard error.  ``cce``/``CCE.rms_calibration_error`` return the estimate on the
  **squared** scale, as the reference does (``cce_conf_int`` and all SPCE functions
  are on the square-root scale).  Where a test point has no training point inside
  the cubic kernel (or the Gaussian kernel underflows) the reference divides 0 by 0
  and skips that bandwidth; skcalib's smoother returns 0 there.  For a subject with
  time 0 the reference overwrites its calibration function with 0 (the not-at-risk
  cells it zeroes include a view of it); skcalib keeps the estimate.
* :func:`skcalib.metrics.censored_calibration_error` differs on purpose (it divides
  the bandwidth by ``n**0.08``, seeds everything by ``random_state`` and is on the
  square-root scale); these functions exist to give the reference's numbers.
* Bad input raises ValueError (the reference raises ``Exception``, a string, or
  ``AttributeError`` on NumPy >= 1.24 through ``np.float``).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from ..metrics._calibration._semiparametric import _check_range, cce_estimate, spce_estimate
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._um_common import real

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

_POSITIVE = [Interval(numbers.Integral, 1, None, closed="left")]
_ESTIMATOR = {  # the options SPCE and CCE share
    "folds": [Interval(numbers.Integral, 2, None, closed="left")],
    "weight_trunc": [Interval(numbers.Real, 0, None, closed="neither")],
    "weights": [StrOptions({"constant", "relative", "chi"}), None],
    "bootstrap_size": [Interval(numbers.Integral, 2, None, closed="left")],
    "orthogonal": ["boolean"],
    "normalize": ["boolean"],
    "hyperparam_attempts": _POSITIVE,
    "default_hyperparam_range": ["array-like", None],
    "verbose": ["boolean"],
}
_RANGE = {"hyperparam_range": ["array-like", None]}
_SPCE_ARGS = {"probs": ["array-like"], "labels": ["array-like"], **_RANGE}
_CCE_ARGS = {"probs": ["array-like"], "times": ["array-like"], "event": ["array-like"]}
_CCE_ARGS.update({"end_time": [numbers.Real], **_RANGE})


def _candidates(hyperparam_range, low):
    """The reference's ``hyperparam_range``: the array of values to try."""
    r = np.asarray(hyperparam_range)
    if r.dtype.kind not in "biuf" or r.ndim != 1 or r.shape[0] == 0:
        raise ValueError(
            "hyperparam_range must be a non-empty 1-D array of the smoothing values to "
            f"try, got {hyperparam_range!r}"
        )
    r = r.astype(np.float64)
    if not np.isfinite(r).all() or (r < low).any():
        raise ValueError(
            f"hyperparam_range must hold finite values >= {low}, got {hyperparam_range!r}"
        )
    return r


class _CrossFitted:
    """The options SPCE and CCE share and their mapping onto the kernels' keywords
    (NumPy's global random state, the reference's NaN-skipping choice)."""

    def _init(self, folds, weight_trunc, weights, bootstrap_size, orthogonal, normalize,
              hyperparam_attempts, default_hyperparam_range, default_range, verbose):  # fmt: skip
        self.folds, self.weight_trunc = folds, weight_trunc
        self.weights = "constant" if weights is None else weights
        self.bootstrap_size, self.orthogonal, self.normalize = bootstrap_size, orthogonal, normalize
        self.hyperparam_attempts, self.verbose = hyperparam_attempts, verbose
        r = _check_range(default_hyperparam_range, "default_hyperparam_range", allow_equal=True)
        self.default_hyperparam_range = r or default_range

    def _probs(self, probs, n, needs_spread):
        """1-D probabilities in [0, 1], enough of them for the folds."""
        p = real(probs, "probs")
        if p.ndim != 1 or ((p < 0) | (p > 1)).any():
            raise ValueError(f"probs must be 1-D with values in [0, 1], got shape {p.shape}")
        if p.shape[0] != n:
            raise ValueError(f"probs has {p.shape[0]} values for {n} outcomes")
        if n < 2 * self.folds:
            raise ValueError(f"need at least {2 * self.folds} samples for {self.folds} folds")
        if needs_spread and p.max() == p.min():
            raise ValueError("probs is constant: the hyperparameter grid is undefined")
        return p

    def _options(self, hyperparam_range, low):
        grid = None if hyperparam_range is None else _candidates(hyperparam_range, low)
        return {
            "weights": self.weights,
            "weight_trunc": self.weight_trunc,
            "orthogonal": self.orthogonal,
            "normalize": self.normalize,
            "hyperparam_range": self.default_hyperparam_range,
            "n_hyperparams": self.hyperparam_attempts,
            "n_bootstrap": self.bootstrap_size,
            "rng": np.random.mtrand._rand,  # NumPy's global random state, as the reference
            "grid": grid,
            "skip_nan": True,
        }

    def _conf_int(self, data, hyperparam_range, alpha):
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
        z = -special.ndtri(alpha / 2)
        est, se = self._estimate(*data, hyperparam_range)
        return tuple(float(np.sqrt(max(v, 0.0))) for v in (est - z * se, est, est + z * se))


class SemiparametricCalibrationError(_CrossFitted):
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
        ``(lo, hi)`` of the default grid: kernel precisions ``(linspace(lo n + 1, hi n,
        hyperparam_attempts) / (max p - min p))**2``, default ``(0, 0.1)``; spline
        smoothing ``linspace(lo V, hi V, hyperparam_attempts)`` with ``V = sum w^2 p
        (1 - p)``, default ``(0.5, 1.1)``.
    verbose : bool, default=False
        Accepted for compatibility (nothing is printed).
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
            **_ESTIMATOR,
            "smoothing": [StrOptions({"kernel", "spline"})],
            "fold_generator": "no_validation",
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
        default = (0.0, 0.1) if smoothing == "kernel" else (0.5, 1.1)
        self._init(folds, weight_trunc, weights, bootstrap_size, orthogonal, normalize,
                   hyperparam_attempts, default_hyperparam_range, default, verbose)  # fmt: skip
        self.smoothing, self.fold_generator = smoothing, fold_generator

    def _splits(self, p, y):
        if self.fold_generator is not None:
            return list(self.fold_generator.split(p, y))
        # imported here: sklearn.model_selection builds scorer constraints on import
        from sklearn.model_selection import StratifiedKFold

        cv = StratifiedKFold(n_splits=self.folds, shuffle=True, random_state=708)
        return list(cv.split(p, y))

    def _estimate(self, probs, labels, hyperparam_range):
        y = real(labels, "labels")
        if y.ndim != 1 or ((y < 0) | (y > 1)).any():
            raise ValueError(f"labels must be 1-D with values in [0, 1], got shape {y.shape}")
        p = self._probs(probs, y.shape[0], self.smoothing == "kernel")
        options = self._options(hyperparam_range, 0.0)
        folds = self._splits(p, y)
        return spce_estimate(
            p, y, smoothing=self.smoothing, folds=folds, fold_weights=True, **options
        )

    def rms_calibration_error(self, probs, labels, hyperparam_range=None):
        """The SPCE, ``sqrt(max(estimate, 0))``.

        Parameters
        ----------
        probs : array-like of shape (N,)
            Predicted probabilities of the positive outcome.
        labels : array-like of shape (N,)
            Outcomes in [0, 1] (0/1 labels, or probabilities with a ``KFold``
            ``fold_generator``).
        hyperparam_range : array-like of shape (n_values,), default=None
            The smoothing values to try (kernel precisions or spline smoothing
            factors); default a grid of ``hyperparam_attempts`` values built from
            ``default_hyperparam_range``.

        Returns
        -------
        float
            The value.
        """
        est, _ = self._estimate(probs, labels, hyperparam_range)
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
        hyperparam_range : array-like of shape (n_values,), default=None
            The smoothing values to try (kernel precisions or spline smoothing
            factors); default a grid of ``hyperparam_attempts`` values built from
            ``default_hyperparam_range``.
        alpha : float in (0, 1), default=0.05
            One minus the confidence level.

        Returns
        -------
        tuple of three floats
            ``(lower, estimate, upper)``.
        """
        return self._conf_int((probs, labels), hyperparam_range, alpha)


SPCE = SemiparametricCalibrationError


@validate_params(_SPCE_ARGS, prefer_skip_nested_validation=True)
def spce(probs, labels, hyperparam_range=None, **class_kwargs):
    """``SPCE(**class_kwargs).rms_calibration_error(probs, labels, hyperparam_range)``.

    Parameters
    ----------
    probs : array-like of shape (N,)
        Predicted probabilities of the positive outcome.
    labels : array-like of shape (N,)
        Outcomes (0/1).
    hyperparam_range : array-like of shape (n_values,), default=None
        The smoothing values to try (see
        :meth:`SemiparametricCalibrationError.rms_calibration_error`).
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


@validate_params(_SPCE_ARGS, prefer_skip_nested_validation=True)
def spce_conf_int(probs, labels, hyperparam_range=None, **class_kwargs):
    """``SPCE(**class_kwargs).rms_calibration_error_conf_int(...)`` at ``alpha=0.05``.

    Parameters
    ----------
    probs : array-like of shape (N,)
        Predicted probabilities of the positive outcome.
    labels : array-like of shape (N,)
        Outcomes (0/1).
    hyperparam_range : array-like of shape (n_values,), default=None
        The smoothing values to try (see
        :meth:`SemiparametricCalibrationError.rms_calibration_error`).
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


class CCE(_CrossFitted):
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
        ``(lo, hi)`` of the default bandwidth grid ``(max p - min p) /
        linspace(lo n + 1, hi n, hyperparam_attempts)`` (``knn``: neighbour counts
        ``linspace(lo n + 5, hi n + 5, hyperparam_attempts)``); default ``(0, 0.1)``.
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
            **_ESTIMATOR,
            "end_time": [Interval(numbers.Real, 0, None, closed="neither")],
            "survival_aggregation": [StrOptions(set(_AGGREGATION))],
            "kernel_fn": [StrOptions({"rbf", "cubic", "knn"})],
            "num_repeats": _POSITIVE,
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
        self._init(folds, weight_trunc, weights, bootstrap_size, orthogonal, normalize,
                   hyperparam_attempts, default_hyperparam_range, (0.0, 0.1), verbose)  # fmt: skip
        self.end_time, self.survival_aggregation = end_time, survival_aggregation
        self.kernel_fn, self.num_repeats = kernel_fn, num_repeats

    def _folds(self, times, event, seed):
        """Fold id of each subject as the reference's ``StratifiedSurvivalKFold``
        (``shuffle=True``): events, then censored subjects, each sorted by time (NumPy's
        default sort, as there) and cut into blocks of ``folds`` subjects whose fold ids
        are ``RandomState(seed).choice(folds, folds, replace=False)`` (the last block the
        first ones of such a draw); a fresh ``RandomState(seed)`` for each group."""
        k = self.folds
        fold = np.zeros(times.shape[0], dtype=np.intp)
        for group in (event == 1, event == 0):
            idx = np.flatnonzero(group)
            idx = idx[np.argsort(times[idx])]
            rng = np.random.RandomState(seed)
            ids = [rng.choice(k, k, replace=False) for _ in range(idx.size // k)]
            fold[idx] = np.concatenate([*ids, rng.choice(k, idx.size % k, replace=False)])
        return fold

    def _estimate(self, probs, times, event, hyperparam_range):
        t, e = real(times, "times"), real(event, "event")
        if t.ndim != 1 or t.shape != e.shape or (t < 0).any() or not np.isin(e, (0, 1)).all():
            raise ValueError(
                f"times (>= 0) and event (0 censored, 1 event) must be 1-D of one length, "
                f"got shapes {t.shape} and {e.shape}"
            )
        knn = self.kernel_fn == "knn"
        p = self._probs(probs, t.shape[0], not knn)
        return cce_estimate(
            p,
            t,
            e,
            float(self.end_time),
            n_folds=self.folds,
            kernel=self.kernel_fn,
            aggregation=_AGGREGATION[self.survival_aggregation],
            n_repeats=self.num_repeats,
            folds=[self._folds(t, e, 708 + r) for r in (0, *range(self.num_repeats))],
            widen=True,
            **self._options(hyperparam_range, 1.0 if knn else np.nextafter(0.0, 1.0)),
        )

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
        hyperparam_range : array-like of shape (n_values,), default=None
            The bandwidths to try (neighbour counts for ``kernel_fn="knn"``); default
            a grid of ``hyperparam_attempts`` values built from
            ``default_hyperparam_range``.

        Returns
        -------
        float
            The estimate on the squared scale (may be slightly negative).
        """
        est, _ = self._estimate(probs, times, event, hyperparam_range)
        return est

    def rms_calibration_error_conf_int(
        self, probs, times, event, hyperparam_range=None, alpha=0.05
    ):
        """``(lower, estimate, upper)`` on the square-root scale.

        The normal interval ``estimate +- z se`` of the squared error (the medians over
        the repeats of the estimate and of its bootstrap standard error, ``z =
        -Phi^{-1}(alpha / 2)``), each end mapped by ``sqrt(max(., 0))``.

        Parameters
        ----------
        probs : array-like of shape (N,)
            Predicted probabilities of an event by ``end_time``.
        times : array-like of shape (N,)
            Event or censoring times (>= 0).
        event : array-like of shape (N,)
            1 for an observed event, 0 for censoring.
        hyperparam_range : array-like of shape (n_values,), default=None
            The bandwidths to try (neighbour counts for ``kernel_fn="knn"``); default
            a grid of ``hyperparam_attempts`` values built from
            ``default_hyperparam_range``.
        alpha : float in (0, 1), default=0.05
            One minus the confidence level.

        Returns
        -------
        tuple of three floats
            ``(lower, estimate, upper)``.
        """
        return self._conf_int((probs, times, event), hyperparam_range, alpha)


@validate_params(_CCE_ARGS, prefer_skip_nested_validation=True)
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
    hyperparam_range : array-like of shape (n_values,), default=None
        The bandwidths to try (see :meth:`CCE.rms_calibration_error`).
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


@validate_params(_CCE_ARGS, prefer_skip_nested_validation=True)
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
    hyperparam_range : array-like of shape (n_values,), default=None
        The bandwidths to try (see :meth:`CCE.rms_calibration_error`).
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
