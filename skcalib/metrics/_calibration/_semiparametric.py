"""Semiparametric (SPCE) and censored (CCE) calibration errors.

Both estimate the weighted L2 calibration error

    CE2 = E[ w(p) (p - a(p))^2 ],   a(p) = E[outcome | p],

without bins: the calibration function ``a`` is estimated by a smoother fitted with
cross-fitting (each prediction's ``a_i`` comes from the folds that exclude it), its
hyperparameter is chosen by cross-validated error and then undersmoothed, and the
plug-in (or the influence-function corrected) average is reported on the square-root
scale, with a bootstrap standard error.  The algorithms are those of Google's
uncertainty_metrics (``uncertainty_metrics/numpy/semiparametric_calibration_error.py``
and ``censored_calibration_error.py``), with the defects documented at each function
fixed.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special
from scipy.interpolate import UnivariateSpline
from sklearn.utils import check_random_state

from ..._core._validation import (
    _check_real_array,
    _find_nonfinite,
    check_classification_input,
)
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import SquaredErrorConfidenceInterval
from ._statistical import conf_outcome

__all__ = [
    "censored_calibration_error",
    "censored_calibration_error_ci",
    "semiparametric_calibration_error",
    "semiparametric_calibration_error_ci",
]

WEIGHTS = ("constant", "relative", "chi")


# --------------------------------------------------------------------------------------
# shared pieces
# --------------------------------------------------------------------------------------


def weight_function(p, weights, trunc):
    """The weight function ``w(p)`` of the weighted calibration error."""
    if weights == "constant":
        return np.ones_like(p)
    if weights == "relative":
        return 1.0 / np.maximum(np.minimum(p**2, (1.0 - p) ** 2), trunc)
    return 1.0 / np.maximum(p * (1.0 - p), trunc)  # "chi"


def _weighted_mean(x, w, normalize):
    """``mean(x w)``, or ``mean(x w) / mean(w)`` with ``normalize`` (last axis)."""
    m = np.mean(x * w, axis=-1)
    return m / np.mean(w, axis=-1) if normalize else m


def _bootstrap_se(values, w, normalize, n_bootstrap, rng):
    """Population std of the weighted mean over bootstrap resamples of the rows."""
    n = values.shape[0]
    out = np.empty(n_bootstrap)
    step = max(1, (1 << 22) // max(n, 1))
    for start in range(0, n_bootstrap, step):
        stop = min(n_bootstrap, start + step)
        idx = rng.randint(0, n, size=(stop - start, n))
        out[start:stop] = _weighted_mean(values[idx], w[idx], normalize)
    return float(np.std(out))


def _root(est):
    """The error on the square-root scale."""
    return float(np.sqrt(max(est, 0.0)))


def _interval(est, se, confidence_level):
    """Normal interval of the squared error, on the square-root scale."""
    z = float(special.ndtri(0.5 + confidence_level / 2.0))
    return SquaredErrorConfidenceInterval(
        low=_root(est - z * se),
        high=_root(est + z * se),
        estimate=_root(est),
        confidence_level=float(confidence_level),
        estimate_squared=float(est),
        standard_error_squared=float(se),
    )


def _check_range(hyperparam_range, name="hyperparam_range", *, allow_equal=False):
    """``(low, high)`` as floats (None unchanged); ``low == high`` is accepted with
    ``allow_equal`` (uncertainty_metrics accepts it)."""
    if hyperparam_range is None:
        return None
    r = np.asarray(hyperparam_range, dtype=np.float64) if _is_pair(hyperparam_range) else None
    if (
        r is None
        or not np.isfinite(r).all()
        or not (0 <= r[0] < r[1] or (allow_equal and 0 <= r[0] == r[1]))
    ):
        rel = "<=" if allow_equal else "<"
        raise ValueError(
            f"{name} must be a pair (low, high) of finite numbers with 0 <= low {rel} high, "
            f"got {hyperparam_range!r}"
        )
    return float(r[0]), float(r[1])


def _is_pair(x):
    try:
        return len(x) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in x
        )
    except TypeError:
        return False


# --------------------------------------------------------------------------------------
# SPCE
# --------------------------------------------------------------------------------------


def _kernel_predict(p_tr, r_tr, p_te, precisions):
    """Nadaraya-Watson estimate of the residual at ``p_te`` for each precision.

    Kernel ``exp(-precision (x - p_j)^2)``; each row is stabilised by its nearest
    training point (the ratio is unchanged), so no row underflows to 0 / 0.
    Returns an array of shape (n_precisions, n_test).
    """
    out = np.empty((len(precisions), p_te.shape[0]))
    step = max(1, (1 << 21) // max(p_tr.shape[0], 1))
    for start in range(0, p_te.shape[0], step):
        d2 = (p_te[start : start + step, None] - p_tr[None, :]) ** 2
        d2 -= d2.min(axis=1, keepdims=True)
        for j, prec in enumerate(precisions):
            K = np.exp(-prec * d2)
            out[j, start : start + step] = (K @ r_tr) / K.sum(axis=1)
    return out


def _spline_predict(p_tr, r_tr, w_tr, p_te, s):
    """Smoothing-spline estimate of the residual at ``p_te``.

    The training points are sorted by probability and their weights sorted *with*
    them (uncertainty_metrics passes the weights unsorted, which attaches them to the
    wrong points whenever they are not constant).
    """
    order = np.argsort(p_tr, kind="stable")
    spline = UnivariateSpline(p_tr[order], r_tr[order], w=w_tr[order], s=s)
    return spline(p_te)


def _folds(y, n_folds, seed):
    """(train, test) splits stratified on the outcome (plain K-fold if a class is
    smaller than ``n_folds``)."""
    # imported here: sklearn.model_selection builds its scorer-name constraints on import
    from sklearn.model_selection import KFold, StratifiedKFold

    counts = np.bincount(y.astype(np.intp), minlength=2)
    if counts.min() >= n_folds:
        cv = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
        return list(cv.split(np.zeros(y.shape[0]), y))
    cv = KFold(n_splits=n_folds, shuffle=True, random_state=seed)
    return list(cv.split(np.zeros(y.shape[0])))


def _cross_fit(p, y, w, folds, smoothing, params, fold_weights=False):
    """Cross-fitted calibration function ``a_i`` for each hyperparameter in ``params``;
    shape (n_params, n).  The spline weights are ``w`` on the training part, divided by
    their mean there with ``fold_weights`` (as uncertainty_metrics does)."""
    a = np.empty((len(params), p.shape[0]))
    r = y - p
    for train, test in folds:
        if smoothing == "kernel":
            a[:, test] = p[test] + _kernel_predict(p[train], r[train], p[test], params)
        else:
            w_tr = w[train] / w[train].mean() if fold_weights else w[train]
            for j, s in enumerate(params):
                a[j, test] = p[test] + _spline_predict(p[train], r[train], w_tr, p[test], s)
    return a


def _best(grid, errors, skip_nan):
    """The first grid value with the smallest error; with ``skip_nan`` NaN errors are
    skipped (uncertainty_metrics' ``error < best_error``) and an all-NaN grid raises."""
    if not skip_nan:
        return grid[int(np.argmin(errors))]
    errors = np.asarray(errors)
    if np.isnan(errors).all():
        raise ValueError("the cross-validated error is undefined for every hyperparameter")
    return grid[int(np.nanargmin(errors))]


def _rngs(random_state):
    """(folds, bootstrap) random states.  With ``random_state=None`` the folds are
    fixed (seed 0), so that the value is deterministic, and the bootstrap uses numpy's
    global random state."""
    if random_state is None:
        return np.random.RandomState(0), check_random_state(None)
    rng = check_random_state(random_state)
    return rng, rng


def spce_estimate(
    p,
    y,
    *,
    smoothing="kernel",
    n_folds=5,
    weights="constant",
    weight_trunc=0.05,
    orthogonal=False,
    normalize=False,
    hyperparam_range=None,
    n_hyperparams=50,
    n_bootstrap=500,
    rng,
    boot_rng=None,
    grid=None,
    folds=None,
    skip_nan=False,
    fold_weights=False,
):
    """(estimate on the squared scale, bootstrap standard error) of validated data.

    ``y`` may be any real outcome in [0, 1] (a probability, for the plug-in check).
    With ``n_bootstrap=None`` no bootstrap is run and the standard error is None; the
    estimate does not depend on the bootstrap (it is drawn last).  The keywords after
    ``boot_rng`` reproduce uncertainty_metrics (:mod:`skcalib.compat`): ``grid`` the
    hyperparameter values to try (instead of the grid of ``hyperparam_range``),
    ``folds`` the ``(train, test)`` splits (instead of folds drawn from ``rng``),
    ``skip_nan`` (see :func:`_best`) and ``fold_weights`` (see :func:`_cross_fit`).
    """
    n = p.shape[0]
    wfun = weight_function(p, weights, weight_trunc)
    wn = wfun / wfun.mean()
    if grid is None and smoothing == "kernel":
        lo, hi = hyperparam_range or (0.0, 0.1)
        spread = float(p.max() - p.min())
        spread = spread if spread > 0 else 1.0
        grid = (np.linspace(lo * n + 1, hi * n, n_hyperparams) / spread) ** 2
    elif grid is None:
        lo, hi = hyperparam_range or (0.5, 1.1)
        V = float(np.sum(wn**2 * p * (1.0 - p)))
        grid = np.linspace(lo * V, hi * V, n_hyperparams)
    if folds is None:
        strat = y if np.all((y == 0) | (y == 1)) else np.zeros(n)
        folds = _folds(strat, n_folds, rng.randint(np.iinfo(np.int32).max))
    w = wfun if fold_weights else wn
    a_grid = _cross_fit(p, y, w, folds, smoothing, grid, fold_weights)
    best = _best(grid, np.mean(wn * (a_grid - y) ** 2, axis=1), skip_nan)
    # undersmoothing: a narrower kernel / a rougher spline than the CV optimum
    best = best * n**0.08 if smoothing == "kernel" else best * 0.985
    a = _cross_fit(p, y, w, folds, smoothing, [best], fold_weights)[0]
    stat = (p - y) * (p - a)
    influence = (p - a) * (p + a - 2.0 * y)
    est = float(_weighted_mean(influence if orthogonal else stat, wfun, normalize))
    if n_bootstrap is None:
        return est, None
    se = _bootstrap_se(influence, wfun, normalize, n_bootstrap, boot_rng or rng)
    return est, se


_RANGE = ["array-like", None]


#: options of the confidence intervals of SPCE and CCE
_CI_PARAMS = {
    "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
    "n_bootstrap": [Interval(numbers.Integral, 2, None, closed="left")],
}

_SPCE_PARAMS = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "smoothing": [StrOptions({"kernel", "spline"})],
    "n_folds": [Interval(numbers.Integral, 2, None, closed="left")],
    "weights": [StrOptions(set(WEIGHTS))],
    "weight_trunc": [Interval(numbers.Real, 0, None, closed="neither")],
    "orthogonal": ["boolean"],
    "normalize": ["boolean"],
    "hyperparam_range": _RANGE,
    "n_hyperparams": [Interval(numbers.Integral, 1, None, closed="left")],
    "multiclass": [StrOptions({"auto", "top_label"})],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
    "random_state": ["random_state"],
}


def _spce(y_true, y_proba, labels, pos_label, multiclass, random_state, **options):
    """Validate the input and run :func:`spce_estimate` (the options passed through)."""
    data = check_classification_input(y_true, y_proba, labels=labels, pos_label=pos_label)
    p, y = conf_outcome(data, multiclass)
    _check_sizes(p.shape[0], options["n_folds"], options["smoothing"])
    options["hyperparam_range"] = _check_range(options["hyperparam_range"])
    rng, boot_rng = _rngs(random_state)
    return spce_estimate(p, y.astype(np.float64), rng=rng, boot_rng=boot_rng, **options)


@validate_params(_SPCE_PARAMS, prefer_skip_nested_validation=True)
def semiparametric_calibration_error(
    y_true,
    y_proba,
    *,
    smoothing="kernel",
    n_folds=5,
    weights="constant",
    weight_trunc=0.05,
    orthogonal=False,
    normalize=False,
    hyperparam_range=None,
    n_hyperparams=50,
    multiclass="auto",
    labels=None,
    pos_label=None,
    random_state=None,
):
    r"""Semiparametric calibration error (SPCE): a root-mean-squared error without bins.

    Estimates ``sqrt(CE2)`` with

    .. math::

        \mathrm{CE}_2 = \mathbb{E}\bigl[w(p)\,(p - a(p))^2\bigr], \qquad
        a(p) = \mathbb{E}[y \mid p].

    The calibration function is estimated by cross-fitting (``n_folds`` folds,
    stratified on the outcome): for each fold a smoother of the residuals ``y - p`` is
    fitted on the other folds and evaluated on the fold, giving ``a_i`` for every
    prediction.

    * ``smoothing="kernel"``: Nadaraya-Watson with the kernel ``exp(-h (x - p_j)^2)``;
      the precision ``h`` is chosen on the grid
      ``(linspace(lo n + 1, hi n, n_hyperparams) / (max p - min p))^2`` (default range
      ``(0, 0.1)``), then multiplied by ``n^0.08`` (undersmoothing).
    * ``smoothing="spline"``: a cubic smoothing spline (:class:`scipy.interpolate.\
      UnivariateSpline`, weights ``w(p)`` normalised to mean 1) with smoothing factor
      on ``linspace(lo V, hi V, n_hyperparams)``, ``V = sum w^2 p (1 - p)`` (default
      range ``(0.5, 1.1)``), then multiplied by 0.985.

    The hyperparameter minimising the cross-fitted ``mean(w (a - y)^2)`` is chosen
    (the first on ties).  With ``stat_i = (p_i - y_i)(p_i - a_i)`` and the
    influence-function form ``if_i = (p_i - a_i)(p_i + a_i - 2 y_i)``, the estimate of
    ``CE2`` is the ``w(p)``-weighted mean of ``stat`` (or of ``if`` with
    ``orthogonal=True``).  The result is ``sqrt(max(CE2, 0))``;
    :func:`semiparametric_calibration_error_ci` gives it with a confidence interval.

    Differences from uncertainty_metrics' ``SPCE``: the spline weights are sorted with
    the probabilities (the reference pairs sorted probabilities with unsorted weights,
    which is wrong for non-constant weights), the folds and the bootstrap are seeded by
    ``random_state`` (the reference fixes the folds' seed at 708 and uses the global
    unseeded random state for the bootstrap), the confidence level is a parameter,
    labels may be of any type, and constant probabilities do not divide by zero.
    Cost: the kernel smoother is ``O(n^2 n_hyperparams)``; use it on up to some
    thousands of predictions.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    smoothing : {"kernel", "spline"}, default="kernel"
        The smoother of the calibration function.
    n_folds : int, default=5
        Number of cross-fitting folds, at least 2.
    weights : {"constant", "relative", "chi"}, default="constant"
        ``w(p)``: 1, ``1 / max(min(p^2, (1-p)^2), weight_trunc)`` or
        ``1 / max(p (1-p), weight_trunc)``.
    weight_trunc : float > 0, default=0.05
        Truncation of the weight functions.
    orthogonal : bool, default=False
        Report the influence-function (debiased) estimate instead of the plug-in one.
    normalize : bool, default=False
        Divide the weighted mean by the mean weight.
    hyperparam_range : pair of floats, default=None
        ``(lo, hi)`` of the hyperparameter grid (see above).
    n_hyperparams : int, default=50
        Size of the hyperparameter grid.
    multiclass : {"auto", "top_label"}, default="auto"
        "auto": the positive-class probability of a binary problem, the top-label
        confidence against correctness otherwise.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
    random_state : int, RandomState instance or None, default=None
        Seed of the folds and of the bootstrap.  None: fixed folds (seed 0, so that the
        value is deterministic, as uncertainty_metrics fixes its folds' seed at 708)
        and numpy's global random state for the bootstrap.

    Returns
    -------
    float
        ``sqrt(max(CE2, 0))``.

    See Also
    --------
    semiparametric_calibration_error_ci : The same estimate with a confidence interval.

    References
    ----------
    Google uncertainty_metrics,
    ``uncertainty_metrics/numpy/semiparametric_calibration_error.py`` (the algorithm)
    and ``semiparametric_calibration_error_test.py`` (its test data).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import semiparametric_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> y = (rng.random(2000) <= 0.7 * p**2 + 0.3 * p).astype(int)  # true value 0.128
    >>> spce = semiparametric_calibration_error(y, p, smoothing="spline", random_state=0)
    >>> round(spce, 3)
    0.132
    """
    est, _ = _spce(
        y_true,
        y_proba,
        labels,
        pos_label,
        multiclass,
        random_state,
        smoothing=smoothing,
        n_folds=n_folds,
        weights=weights,
        weight_trunc=weight_trunc,
        orthogonal=orthogonal,
        normalize=normalize,
        hyperparam_range=hyperparam_range,
        n_hyperparams=n_hyperparams,
        n_bootstrap=None,  # no standard error: the estimate alone
    )
    return _root(est)


@validate_params({**_SPCE_PARAMS, **_CI_PARAMS}, prefer_skip_nested_validation=True)
def semiparametric_calibration_error_ci(
    y_true,
    y_proba,
    *,
    confidence_level=0.95,
    n_bootstrap=500,
    smoothing="kernel",
    n_folds=5,
    weights="constant",
    weight_trunc=0.05,
    orthogonal=False,
    normalize=False,
    hyperparam_range=None,
    n_hyperparams=50,
    multiclass="auto",
    labels=None,
    pos_label=None,
    random_state=None,
):
    r"""Semiparametric calibration error (SPCE) with a confidence interval.

    The estimate ``CE2`` of the squared error is that of
    :func:`semiparametric_calibration_error` (same options, same value for the same
    ``random_state``).  Its standard error ``se`` is the standard deviation of the
    ``w(p)``-weighted mean of the influence-function values
    ``if_i = (p_i - a_i)(p_i + a_i - 2 y_i)`` over ``n_bootstrap`` bootstrap resamples
    of the predictions, and the interval is the normal interval of ``CE2`` on the
    square-root scale:

    .. math::

        \Bigl(\sqrt{\max(\mathrm{CE}_2 - z\,\mathrm{se},\,0)},\;
        \sqrt{\max(\mathrm{CE}_2 + z\,\mathrm{se},\,0)}\Bigr),

    with ``z`` the ``(1 + confidence_level) / 2`` normal quantile, as uncertainty_metrics'
    ``SPCE.conf_int`` (whose level is fixed at 95%).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    confidence_level : float in (0, 1), default=0.95
        Level of the normal confidence interval.
    n_bootstrap : int, default=500
        Bootstrap resamples of the standard error, at least 2.
    smoothing : {"kernel", "spline"}, default="kernel"
        The smoother of the calibration function.
    n_folds : int, default=5
        Number of cross-fitting folds, at least 2.
    weights : {"constant", "relative", "chi"}, default="constant"
        The weight function ``w(p)`` (see :func:`semiparametric_calibration_error`).
    weight_trunc : float > 0, default=0.05
        Truncation of the weight functions.
    orthogonal : bool, default=False
        Report the influence-function (debiased) estimate instead of the plug-in one.
    normalize : bool, default=False
        Divide the weighted mean by the mean weight.
    hyperparam_range : pair of floats, default=None
        ``(lo, hi)`` of the hyperparameter grid.
    n_hyperparams : int, default=50
        Size of the hyperparameter grid.
    multiclass : {"auto", "top_label"}, default="auto"
        "auto": the positive-class probability of a binary problem, the top-label
        confidence against correctness otherwise.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).
    random_state : int, RandomState instance or None, default=None
        Seed of the folds and of the bootstrap.  None: fixed folds (seed 0) and numpy's
        global random state for the bootstrap.

    Returns
    -------
    result : SquaredErrorConfidenceInterval
        Unpacks as ``(low, high)`` (square-root scale).  Its other attributes:
        ``estimate`` (the value of :func:`semiparametric_calibration_error`),
        ``confidence_level``, ``estimate_squared`` (``CE2``) and
        ``standard_error_squared`` (``se``).

    See Also
    --------
    semiparametric_calibration_error : The estimate alone (no bootstrap).

    References
    ----------
    Google uncertainty_metrics,
    ``uncertainty_metrics/numpy/semiparametric_calibration_error.py`` (``conf_int``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import semiparametric_calibration_error_ci
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> y = (rng.random(2000) <= 0.7 * p**2 + 0.3 * p).astype(int)  # true value 0.128
    >>> ci = semiparametric_calibration_error_ci(y, p, smoothing="spline", random_state=0)
    >>> low, high = ci
    >>> round(ci.estimate, 3), bool(low < 0.128 < high)
    (0.132, True)
    """
    est, se = _spce(
        y_true,
        y_proba,
        labels,
        pos_label,
        multiclass,
        random_state,
        smoothing=smoothing,
        n_folds=n_folds,
        weights=weights,
        weight_trunc=weight_trunc,
        orthogonal=orthogonal,
        normalize=normalize,
        hyperparam_range=hyperparam_range,
        n_hyperparams=n_hyperparams,
        n_bootstrap=n_bootstrap,
    )
    return _interval(est, se, confidence_level)


def _check_sizes(n, n_folds, smoothing):
    need = 2 * n_folds
    if smoothing == "spline":
        # every training part (n (k - 1) / k points) needs more points than the
        # 4 coefficients of a cubic spline
        need = max(need, int(np.ceil(5 * n_folds / (n_folds - 1))))
    if n < need:
        raise ValueError(
            f"need at least {need} samples for {n_folds}-fold cross-fitting with "
            f"smoothing={smoothing!r}, got {n}"
        )


# --------------------------------------------------------------------------------------
# CCE
# --------------------------------------------------------------------------------------


def _time_grid(times, end_time):
    """Unique observed times <= end_time, with 0 and end_time, then end_time + eps/2."""
    t = np.unique(times[times <= end_time])
    if t.size == 0 or t[0] != 0:
        t = np.concatenate([[0.0], t])
    if t[-1] != end_time:
        t = np.concatenate([t, [end_time]])
    later = times[times > end_time]
    eps = float(later.min() - end_time) if later.size else 0.0
    return np.concatenate([t, [end_time + eps / 2.0]])


def survival_folds(times, event, n_folds, rng):
    """Fold id of each subject: events and censored subjects separately, sorted by time
    and cut into consecutive blocks of ``n_folds`` that get a random permutation of the
    fold ids each (the leftovers a random subset), as uncertainty_metrics'
    ``StratifiedSurvivalKFold`` with ``shuffle=True``."""
    fold = np.empty(times.shape[0], dtype=np.intp)
    for group in (event == 1, event == 0):
        idx = np.flatnonzero(group)
        idx = idx[np.argsort(times[idx], kind="stable")]
        m = idx.shape[0]
        full = m // n_folds
        ids = [rng.permutation(n_folds) for _ in range(full)]
        if m % n_folds:
            ids.append(rng.choice(n_folds, size=m % n_folds, replace=False))
        if ids:
            fold[idx] = np.concatenate(ids)
    return fold


def _kernel_matrix(d, h, kernel):
    """Kernel weights of the distances ``d`` (n_test, n_train) at bandwidth ``h``."""
    if kernel == "knn":
        k = int(min(max(int(h), 1), d.shape[1]))
        K = np.zeros_like(d)
        nearest = np.argpartition(d, k - 1, axis=1)[:, :k]
        np.put_along_axis(K, nearest, 1.0, axis=1)
        return K
    u = np.square(d)
    u *= 1.0 / (h * h)  # (d / h)^2
    if kernel == "rbf":
        np.negative(u, out=u)
        return np.exp(u, out=u)
    np.subtract(1.0, u, out=u)  # "cubic": 15/16 (1 - (d/h)^2)^3 on d <= h
    np.maximum(u, 0.0, out=u)
    u **= 3
    u *= 15.0 / 16.0
    return u


def _calibration_function(N_hat, C_hat, Y_hat, aggregation):
    n, T = N_hat.shape
    dN = np.zeros_like(N_hat)
    dC = np.zeros_like(C_hat)
    dN[:, 1:] = -(N_hat[:, 1:] - N_hat[:, :-1])
    dC[:, 1:] = -(C_hat[:, 1:] - C_hat[:, :-1])
    Y_minus = np.ones_like(Y_hat)
    Y_minus[:, 1:] = Y_hat[:, :-1]
    ok = Y_minus > 0
    dL = np.zeros_like(dN)
    dLC = np.zeros_like(dC)
    np.divide(dN, Y_minus, out=dL, where=ok & (dN != 0))
    np.divide(dC, Y_minus, out=dLC, where=ok & (dC != 0))
    if aggregation == "kaplan-meier":
        S = np.cumprod(1.0 - dL, axis=1)
        S_C = np.cumprod(1.0 - dLC, axis=1)
    else:
        S = np.exp(-np.cumsum(dL, axis=1))
        S_C = np.exp(-np.cumsum(dLC, axis=1))
    den = Y_minus * (Y_minus + dN)
    comp = np.zeros_like(dN)
    np.divide(dN, den, out=comp, where=(den > 0) & (dN != 0))
    cond_mean = np.ones_like(S)
    np.divide(S[:, [-2]], S, out=cond_mean, where=S > 0)
    cond_mean = 1.0 - cond_mean
    a = cond_mean[:, 0]
    return dLC, S_C, cond_mean, comp, a


def _fold_distances(p, folds, n_folds):
    """(test mask, |p_test - p_train|) of each non-empty fold."""
    out = []
    for f in range(n_folds):
        test = folds == f
        if test.any():
            out.append((test, np.abs(p[test][:, None] - p[~test][None, :])))
    return out


def _cce_cross_fit(wn, processes, dists, h, kernel):
    """Cross-fitted local processes: for each subject the kernel-weighted average
    ``sum_j K(p_i, p_j) w_j X_j(t) / sum_j K(p_i, p_j) w_j`` over the training folds
    (the folds that exclude it), for every process X (n, n_times)."""
    T = processes[0].shape[1]
    X = np.hstack(processes)
    out = np.empty_like(X)
    constant = bool(np.all(wn == wn[0]))
    for test, d in dists:
        train = ~test
        K = _kernel_matrix(d, h, kernel)
        if not constant:
            K *= wn[train][None, :]
        den = K.sum(axis=1, keepdims=True)
        num = K @ X[train]
        res = np.zeros_like(num)
        np.divide(num, den, out=res, where=den > 0)
        out[test] = res
    return [out[:, i * T : (i + 1) * T] for i in range(len(processes))]


def cce_estimate(
    p,
    times,
    event,
    end_time,
    *,
    n_folds=5,
    weights="constant",
    weight_trunc=0.05,
    aggregation="kaplan-meier",
    kernel="rbf",
    n_bootstrap=200,
    orthogonal=False,
    n_repeats=4,
    normalize=False,
    hyperparam_range=None,
    n_hyperparams=20,
    rng,
    boot_rng=None,
    grid=None,
    folds=None,
    skip_nan=False,
    widen=False,
):
    """(estimate on the squared scale, standard error) of validated survival data.

    The folds of all repeats are drawn first and the bootstraps after them, so the
    estimate does not depend on the bootstrap; with ``n_bootstrap=None`` none is run and
    the standard error is None.  The keywords after ``boot_rng`` reproduce
    uncertainty_metrics (:mod:`skcalib.compat`): ``grid`` the bandwidths (neighbour
    counts) to try, ``folds`` the fold id of each subject for the bandwidth choice and
    for each repeat (``n_repeats + 1`` arrays, instead of :func:`survival_folds` on
    ``rng``), ``skip_nan`` (see :func:`_best`) and ``widen``: multiply the chosen
    bandwidth by ``n^0.08`` (the reference's undersmoothing) instead of dividing it.
    """
    boot_rng = boot_rng or rng
    n = p.shape[0]
    wfun = weight_function(p, weights, weight_trunc)
    wn = wfun / wfun.mean()
    t = _time_grid(times, end_time)
    Y = (times[:, None] > t[None, :]).astype(np.float64)
    N = Y * event[:, None]
    C = Y * (1.0 - event[:, None])
    lo, hi = hyperparam_range or (0.0, 0.1)
    if grid is None and kernel == "knn":
        grid = np.linspace(lo * n + 5, hi * n + 5, n_hyperparams)
    elif grid is None:
        spread = float(p.max() - p.min())
        spread = spread if spread > 0 else 1.0
        grid = 1.0 / (np.linspace(lo * n + 1, hi * n, n_hyperparams) / spread)
    if folds is None:
        folds = [survival_folds(times, event, n_folds, rng) for _ in range(n_repeats + 1)]
    dists = _fold_distances(p, folds[0], n_folds)
    errs = []
    for h in grid:
        N_hat, C_hat = _cce_cross_fit(wn, (N, C), dists, h, kernel)
        errs.append(np.mean(wn[:, None] * ((N - N_hat) ** 2 + (C - C_hat) ** 2)))
    h = _best(grid, errs, skip_nan)
    # undersmoothing: a narrower smoother than the cross-validated optimum (the
    # reference's ``widen`` multiplies instead)
    h = h * n**0.08 if widen else h / n**0.08
    h = max(h, 1.0) if kernel == "knn" else h

    observed = (times <= end_time).astype(np.float64)
    on_grid = np.searchsorted(t, times)  # index of T_i in the grid when T_i <= end_time
    dNC = np.zeros_like(C)
    dNC[:, 1:] = -(C[:, 1:] - C[:, :-1])
    ests, influences = [], []
    for fold in folds[1:]:
        dists = _fold_distances(p, fold, n_folds)
        N_hat, C_hat, Y_hat = _cce_cross_fit(wn, (N, C, Y), dists, h, kernel)
        dLC, S_C, cond_mean, comp, a = _calibration_function(N_hat, C_hat, Y_hat, aggregation)
        cond_mean = cond_mean * Y
        comp = comp * Y
        dM = dNC - dLC * Y
        S_C_minus = np.ones_like(S_C)
        S_C_minus[:, 1:] = S_C[:, :-1]
        integrand = (p[:, None] - cond_mean) * (p - a)[:, None] / np.maximum(S_C_minus, 0.001)
        MI = np.sum(dM * integrand, axis=1)
        s = np.sum(comp[:, :-1] * Y[:, :-1], axis=1)
        compensation = (a - p) * (1.0 - a) * (event * observed - s)
        S_end = S_C[:, -2]
        S_at_T = S_C[np.arange(n), np.minimum(on_grid, t.shape[0] - 1)]
        ipw = np.zeros(n)
        late = times > end_time
        np.divide(1.0, S_end, out=ipw, where=late & (S_end > 0))
        ipw[late & ~(S_end > 0)] = np.inf
        seen = (event == 1) & ~late
        np.divide(1.0, S_at_T, out=ipw, where=seen & (S_at_T > 0))
        ipw[seen & ~(S_at_T > 0)] = np.inf
        ipw = np.minimum(ipw, 20.0)
        stat = ipw * (p - observed) * (p - a)
        influence = ipw * ((a - p) * (observed - p)) + compensation - MI
        ests.append(float(_weighted_mean(influence if orthogonal else stat, wfun, normalize)))
        influences.append(influence)
    est = float(np.nanmedian(ests))
    if n_bootstrap is None:
        return est, None
    ses = [_bootstrap_se(f, wfun, normalize, n_bootstrap, boot_rng) for f in influences]
    return est, float(np.nanmedian(ses))


_CCE_PARAMS = {
    "y_proba": ["array-like"],
    "times": ["array-like"],
    "event": ["array-like"],
    "end_time": [Interval(numbers.Real, 0, None, closed="neither")],
    "n_folds": [Interval(numbers.Integral, 2, None, closed="left")],
    "weights": [StrOptions(set(WEIGHTS))],
    "weight_trunc": [Interval(numbers.Real, 0, None, closed="neither")],
    "survival_aggregation": [StrOptions({"kaplan-meier", "nelson-aalen"})],
    "kernel": [StrOptions({"rbf", "cubic", "knn"})],
    "orthogonal": ["boolean"],
    "normalize": ["boolean"],
    "n_repeats": [Interval(numbers.Integral, 1, None, closed="left")],
    "hyperparam_range": _RANGE,
    "n_hyperparams": [Interval(numbers.Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
}


def _cce(y_proba, times, event, random_state, **options):
    """Validate the survival data and run :func:`cce_estimate` (options passed through)."""
    p = _check_real_array(y_proba, "y_proba")
    n = p.shape[0]
    T = _check_real_array(times, "times", n=n)
    _find_nonfinite(p, "y_proba")
    _find_nonfinite(T, "times")
    if not ((p >= 0) & (p <= 1)).all():
        bad = int(np.flatnonzero(~((p >= 0) & (p <= 1)))[0])
        raise ValueError(
            f"y_proba must contain probabilities in [0, 1]; y_proba[{bad}] = {p[bad]!r}"
        )
    if (T < 0).any():
        bad = int(np.flatnonzero(T < 0)[0])
        raise ValueError(f"times must be >= 0; times[{bad}] = {T[bad]!r}")
    E = _check_real_array(event, "event", n=n)
    if not np.isin(E, (0, 1)).all():
        bad = int(np.flatnonzero(~np.isin(E, (0, 1)))[0])
        raise ValueError(f"event must hold 0/1 (or booleans); event[{bad}] = {E[bad]!r}")
    n_folds = options["n_folds"]
    if n < 2 * n_folds:
        raise ValueError(f"need at least {2 * n_folds} samples for {n_folds} folds, got {n}")
    options["hyperparam_range"] = _check_range(options["hyperparam_range"])
    options["end_time"] = float(options["end_time"])
    rng, boot_rng = _rngs(random_state)
    return cce_estimate(
        p.astype(np.float64),
        T.astype(np.float64),
        E.astype(np.float64),
        rng=rng,
        boot_rng=boot_rng,
        **options,
    )


@validate_params(_CCE_PARAMS, prefer_skip_nested_validation=True)
def censored_calibration_error(
    y_proba,
    times,
    event,
    *,
    end_time,
    n_folds=5,
    weights="constant",
    weight_trunc=0.05,
    survival_aggregation="kaplan-meier",
    kernel="rbf",
    orthogonal=False,
    normalize=False,
    n_repeats=4,
    hyperparam_range=None,
    n_hyperparams=20,
    random_state=None,
):
    r"""Censored calibration error (CCE) of survival predictions with right censoring.

    ``y_proba[i]`` predicts ``P(T_i <= end_time)``; the data are right-censored
    survival times ``times[i]`` with ``event[i] = 1`` when the event was observed and 0
    when the subject was censored.  The CCE estimates ``sqrt(CE2)`` with

    .. math::

        \mathrm{CE}_2 = \mathbb{E}\bigl[w(p)\,(p - a(p))^2\bigr], \qquad
        a(p) = P(T \le \mathrm{end\_time} \mid p).

    The calibration function ``a`` comes from kernel-smoothed (Dabrowska-type)
    conditional counting processes: for each prediction the at-risk, event and
    censoring processes of its neighbours in ``p`` (kernel ``rbf``
    ``exp(-(d/h)^2)``, ``cubic`` ``15/16 (1 - (d/h)^2)^3`` or the ``knn`` indicator of
    the ``h`` nearest) give the conditional survival ``S`` (Kaplan-Meier product or
    Nelson-Aalen exponential of the hazard increments) and ``a = 1 - S(end_time)``.
    The bandwidth minimises the cross-fitted squared error of the event and censoring
    processes on the grid ``h = (max p - min p) / linspace(lo n + 1, hi n,
    n_hyperparams)`` (``k = linspace(lo n + 5, hi n + 5, n_hyperparams)`` for
    ``knn``; default range ``(0, 0.1)``) and is then divided by ``n^0.08``
    (undersmoothing).  With the inverse-probability-of-censoring weights
    ``ipw_i = 1 / S_C,i(min(T_i, end_time))`` (0 for subjects censored before
    ``end_time``, at most 20) and ``o_i = 1{T_i <= end_time}``, the plug-in estimate of
    ``CE2`` is the ``w(p)``-weighted mean of ``ipw_i (p_i - o_i)(p_i - a_i)``; with
    ``orthogonal=True`` the influence-function form with the censoring martingale and
    Kaplan-Meier compensator terms of uncertainty_metrics.  Cross-fitting uses folds
    stratified by event status and time, repeated ``n_repeats`` times with new folds;
    the median over repeats is reported.  :func:`censored_calibration_error_ci` gives
    the same value with a confidence interval.

    Differences from uncertainty_metrics' ``CCE``: the value is on the square-root
    scale, like its confidence interval and like SPCE (the reference's
    ``rms_calibration_error`` returns the squared error); undersmoothing divides the
    bandwidth by ``n^0.08`` (the reference multiplies it, which widens the smoother,
    the opposite of SPCE's undersmoothing); everything random is seeded by
    ``random_state``; bad input raises ValueError.  Cost: ``O(n^2)`` memory and time
    for the kernel weights, times the number of distinct event times.

    Parameters
    ----------
    y_proba : array-like of shape (n_samples,)
        Predicted probability of an event by ``end_time``.
    times : array-like of shape (n_samples,)
        Observed times (event or censoring), finite and >= 0.
    event : array-like of shape (n_samples,)
        1 (or True) if the event was observed at ``times``, 0 if censored.
    end_time : float > 0
        The horizon of the predictions.
    n_folds : int, default=5
        Number of cross-fitting folds.
    weights : {"constant", "relative", "chi"}, default="constant"
        The weight function ``w(p)``, as in :func:`semiparametric_calibration_error`.
    weight_trunc : float > 0, default=0.05
        Truncation of the weight functions.
    survival_aggregation : {"kaplan-meier", "nelson-aalen"}, default="kaplan-meier"
        Product-limit or exponential aggregation of the hazard increments.
    kernel : {"rbf", "cubic", "knn"}, default="rbf"
        The smoother of the counting processes.
    orthogonal : bool, default=False
        Report the influence-function estimate instead of the plug-in one.  It follows
        uncertainty_metrics' formula, whose Kaplan-Meier compensator term
        ``dN / (Y_- (Y_- + dN))`` is non-standard: on the reference's own test design
        (no censoring before ``end_time``) its mean is not 0 and the estimate is biased
        low (about 0.07 where the true value is 0.128).  Prefer the default plug-in.
    normalize : bool, default=False
        Divide the weighted mean by the mean weight.
    n_repeats : int, default=4
        Cross-fitting repeats with fresh folds (median reported).
    hyperparam_range : pair of floats, default=None
        ``(lo, hi)`` of the bandwidth grid (see above).
    n_hyperparams : int, default=20
        Size of the bandwidth grid.
    random_state : int, RandomState instance or None, default=None
        Seed of the folds.  None: fixed folds (seed 0, so that the value is
        deterministic, as uncertainty_metrics fixes its folds' seed at 708).

    Returns
    -------
    float
        ``sqrt(max(CE2, 0))``.

    See Also
    --------
    censored_calibration_error_ci : The same estimate with a confidence interval.

    References
    ----------
    Google uncertainty_metrics, ``uncertainty_metrics/numpy/censored_calibration_error.py``
    (the algorithm) and ``censored_calibration_error_test.py`` (its test data).
    Dabrowska, "Uniform Consistency of the Kernel Conditional Kaplan-Meier Estimate",
    The Annals of Statistics 17(3), 1989.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import censored_calibration_error
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> event = (rng.random(2000) <= 0.7 * p**2 + 0.3 * p).astype(int)
    >>> times = 1.5 - event  # events at 0.5; the others censored at 1.5
    >>> cce = censored_calibration_error(
    ...     p, times, event, end_time=1.0, n_folds=3, n_repeats=2, random_state=0
    ... )
    >>> round(cce, 3)  # true value 0.7 / sqrt(30) = 0.128
    0.132
    """
    est, _ = _cce(
        y_proba,
        times,
        event,
        random_state,
        end_time=end_time,
        n_folds=n_folds,
        weights=weights,
        weight_trunc=weight_trunc,
        aggregation=survival_aggregation,
        kernel=kernel,
        orthogonal=orthogonal,
        n_repeats=n_repeats,
        normalize=normalize,
        hyperparam_range=hyperparam_range,
        n_hyperparams=n_hyperparams,
        n_bootstrap=None,  # no standard error: the estimate alone
    )
    return _root(est)


@validate_params({**_CCE_PARAMS, **_CI_PARAMS}, prefer_skip_nested_validation=True)
def censored_calibration_error_ci(
    y_proba,
    times,
    event,
    *,
    end_time,
    confidence_level=0.95,
    n_bootstrap=200,
    n_folds=5,
    weights="constant",
    weight_trunc=0.05,
    survival_aggregation="kaplan-meier",
    kernel="rbf",
    orthogonal=False,
    normalize=False,
    n_repeats=4,
    hyperparam_range=None,
    n_hyperparams=20,
    random_state=None,
):
    r"""Censored calibration error (CCE) with a confidence interval.

    The estimate ``CE2`` of the squared error is that of
    :func:`censored_calibration_error` (same options, same value for the same
    ``random_state``).  Its standard error ``se`` is the median over the ``n_repeats``
    cross-fits of the bootstrap standard deviation (``n_bootstrap`` resamples of the
    subjects) of the ``w(p)``-weighted mean of the influence-function values, and the
    interval is the normal interval of ``CE2`` on the square-root scale:

    .. math::

        \Bigl(\sqrt{\max(\mathrm{CE}_2 - z\,\mathrm{se},\,0)},\;
        \sqrt{\max(\mathrm{CE}_2 + z\,\mathrm{se},\,0)}\Bigr),

    with ``z`` the ``(1 + confidence_level) / 2`` normal quantile.

    Parameters
    ----------
    y_proba : array-like of shape (n_samples,)
        Predicted probability of an event by ``end_time``.
    times : array-like of shape (n_samples,)
        Observed times (event or censoring), finite and >= 0.
    event : array-like of shape (n_samples,)
        1 (or True) if the event was observed at ``times``, 0 if censored.
    end_time : float > 0
        The horizon of the predictions.
    confidence_level : float in (0, 1), default=0.95
        Level of the normal confidence interval.
    n_bootstrap : int, default=200
        Bootstrap resamples of the standard error, at least 2.
    n_folds : int, default=5
        Number of cross-fitting folds.
    weights : {"constant", "relative", "chi"}, default="constant"
        The weight function ``w(p)``, as in :func:`semiparametric_calibration_error`.
    weight_trunc : float > 0, default=0.05
        Truncation of the weight functions.
    survival_aggregation : {"kaplan-meier", "nelson-aalen"}, default="kaplan-meier"
        Product-limit or exponential aggregation of the hazard increments.
    kernel : {"rbf", "cubic", "knn"}, default="rbf"
        The smoother of the counting processes.
    orthogonal : bool, default=False
        Report the influence-function estimate instead of the plug-in one (see
        :func:`censored_calibration_error` for its documented bias).
    normalize : bool, default=False
        Divide the weighted mean by the mean weight.
    n_repeats : int, default=4
        Cross-fitting repeats with fresh folds (medians reported).
    hyperparam_range : pair of floats, default=None
        ``(lo, hi)`` of the bandwidth grid.
    n_hyperparams : int, default=20
        Size of the bandwidth grid.
    random_state : int, RandomState instance or None, default=None
        Seed of the folds and of the bootstrap.  None: fixed folds (seed 0) and numpy's
        global random state for the bootstrap.

    Returns
    -------
    result : SquaredErrorConfidenceInterval
        Unpacks as ``(low, high)`` (square-root scale).  Its other attributes:
        ``estimate`` (the value of :func:`censored_calibration_error`),
        ``confidence_level``, ``estimate_squared`` (``CE2``) and
        ``standard_error_squared`` (``se``).

    See Also
    --------
    censored_calibration_error : The estimate alone (no bootstrap).

    References
    ----------
    Google uncertainty_metrics, ``uncertainty_metrics/numpy/censored_calibration_error.py``
    (``conf_int``).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import censored_calibration_error_ci
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(2000)
    >>> event = (rng.random(2000) <= 0.7 * p**2 + 0.3 * p).astype(int)
    >>> times = 1.5 - event  # events at 0.5; the others censored at 1.5
    >>> ci = censored_calibration_error_ci(
    ...     p, times, event, end_time=1.0, n_folds=3, n_repeats=2, random_state=0
    ... )
    >>> low, high = ci
    >>> round(ci.estimate, 3), bool(low < 0.128 < high)
    (0.13..., True)
    """
    est, se = _cce(
        y_proba,
        times,
        event,
        random_state,
        end_time=end_time,
        n_folds=n_folds,
        weights=weights,
        weight_trunc=weight_trunc,
        aggregation=survival_aggregation,
        kernel=kernel,
        orthogonal=orthogonal,
        n_repeats=n_repeats,
        normalize=normalize,
        hyperparam_range=hyperparam_range,
        n_hyperparams=n_hyperparams,
        n_bootstrap=n_bootstrap,
    )
    return _interval(est, se, confidence_level)
