"""Forms of a predictive distribution for regression, and the one reader of them.

A regression model states its uncertainty in one of four forms:

* a frozen :mod:`scipy.stats` continuous distribution with array parameters, e.g.
  ``scipy.stats.norm(mean, std)`` (Gaussian processes, ``return_std=True`` models);
* :class:`PredictiveSamples`: draws (ensembles, MC dropout, posterior samples);
* :class:`PredictiveQuantiles`: predicted quantiles at common levels (quantile
  regressors);
* :class:`PredictionInterval`: central intervals at one coverage (conformal methods).

:func:`as_predictive` reads any of them into one interface (``n``, ``cdf``, ``ppf``,
``mean``, ``var``, ``std``, ``interval``, ``logpdf``, ``pit``, ``crps``, ``take``) that
every regression metric uses: one implementation per quantity and form, not one per
metric and form.  The three classes carry that interface themselves; a scipy
distribution is wrapped by :class:`ScipyPredictive`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import stats
from scipy.special import betaln, expit, gammaln, ndtr, stdtr
from sklearn.utils import check_random_state

from ..._core._validation import (
    _as_float,
    _check_real_array,
    _find_nonfinite,
    _to_numpy,
    iter_row_chunks,
)
from ._scores import _crps_ensemble_kernel, _crps_normal_kernel

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)

__all__ = [
    "PredictiveSamples",
    "PredictiveQuantiles",
    "PredictionInterval",
    "ScipyPredictive",
    "as_predictive",
]


def _check_y(y, n, name="y_true"):
    y = _check_real_array(y, name, n=n)
    _find_nonfinite(y, name)
    return np.asarray(y, dtype=np.float64)


def _check_levels(levels, name="levels"):
    """1-D float64 levels in (0, 1) (a scalar becomes one level)."""
    arr = _as_float(_to_numpy(levels, name), name)
    arr = np.atleast_1d(np.asarray(arr, dtype=np.float64))
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    _find_nonfinite(arr, name)
    if not (arr.min() > 0 and arr.max() < 1):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {arr.tolist()!r}")
    return arr


def _weighted_sum(values, sw):
    """Sum of ``values`` (float), weighted by ``sw`` when it is not None; a sample of
    weight 0 is left out (an infinite score of weight 0 adds nothing)."""
    if sw is None:
        return float(np.sum(values))
    if not sw.all():
        keep = sw > 0
        values, sw = values[keep], sw[keep]
    return float(np.dot(values, sw))


def _weighted_mean(values, sw):
    """Mean of ``values`` (float), weighted by ``sw`` when it is not None."""
    if sw is None:
        return float(np.mean(values))
    return _weighted_sum(values, sw) / float(sw.sum())


def _check_coverage(coverage, name="coverage"):
    if isinstance(coverage, bool) or not isinstance(coverage, numbers.Real):
        raise ValueError(f"{name} must be a real number in (0, 1), got {coverage!r}")
    c = float(coverage)
    if not 0 < c < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {c!r}")
    return c


class _Predictive:
    """The interface every form gives (see the module docstring).

    The public methods validate their argument once and call the form's private hook
    (``_cdf``, ``_ppf``, ...); a form without a quantity raises a ValueError saying so.
    """

    def __len__(self):
        return self.n

    @property
    def n(self):
        """Number of predictive distributions (rows).

        Returns
        -------
        int
            The number of rows.
        """
        return self._nrows()

    def _unsupported(self, what):
        raise ValueError(f"{type(self).__name__} has no {what}")

    def _check_n(self, n_samples):
        if n_samples is not None and self.n != n_samples:
            raise ValueError(
                f"y_true and y_pred have different numbers of samples: {n_samples} and {self.n}"
            )
        return self

    def cdf(self, y):
        """Evaluate each row's CDF at its value of ``y``.

        Parameters
        ----------
        y : array-like of shape (n,)
            One value per row.

        Returns
        -------
        ndarray of shape (n,)
            :math:`F_i(y_i)`.
        """
        return self._cdf(_check_y(y, self.n, "y"))

    def ppf(self, levels):
        """Quantiles of every row at common levels.

        Parameters
        ----------
        levels : float or array-like of shape (k,)
            Levels in (0, 1).

        Returns
        -------
        ndarray of shape (n, k)
            :math:`F_i^{-1}(\\tau_j)`.
        """
        return self._ppf(_check_levels(levels))

    def interval(self, coverage):
        """Central interval holding ``coverage`` of each row's distribution.

        Parameters
        ----------
        coverage : float in (0, 1)
            Probability content of the interval.

        Returns
        -------
        lower, upper : ndarray of shape (n,)
            The :math:`(1 - c)/2` and :math:`(1 + c)/2` quantiles.
        """
        return self._interval(_check_coverage(coverage))

    def _interval(self, c):
        q = self._ppf(np.array([(1.0 - c) / 2.0, (1.0 + c) / 2.0]))
        return q[:, 0].copy(), q[:, 1].copy()

    def mean(self):
        """Mean of each row's distribution.

        Returns
        -------
        ndarray of shape (n,)
            The means.
        """
        return self._mean()

    def var(self):
        """Variance of each row's distribution.

        Returns
        -------
        ndarray of shape (n,)
            The variances.
        """
        return self._var()

    def std(self):
        """Standard deviation of each row's distribution.

        Returns
        -------
        ndarray of shape (n,)
            The standard deviations.
        """
        return np.sqrt(self._var())

    def logpdf(self, y):
        """Log predictive density of each row at its value of ``y``.

        Parameters
        ----------
        y : array-like of shape (n,)
            One value per row.

        Returns
        -------
        ndarray of shape (n,)
            :math:`\\log f_i(y_i)`.
        """
        return self._logpdf(_check_y(y, self.n, "y"))

    def pit(self, y, random_state=None):
        """Probability integral transform of the observations (randomised where needed).

        Parameters
        ----------
        y : array-like of shape (n,)
            The observations.
        random_state : int, RandomState instance or None, default=None
            Seeds the randomisation of ties (samples).

        Returns
        -------
        ndarray of shape (n,)
            PIT values in [0, 1].
        """
        return self._pit(_check_y(y, self.n, "y_true"), random_state)

    def crps(self, y):
        """Continuous ranked probability score of each row.

        Parameters
        ----------
        y : array-like of shape (n,)
            The observations.

        Returns
        -------
        ndarray of shape (n,)
            Per-row CRPS (lower is better).
        """
        return self._crps(_check_y(y, self.n, "y_true"))

    def take(self, indices):
        """The rows ``indices``, as the same form.

        Parameters
        ----------
        indices : array-like of int or bool
            Row index.

        Returns
        -------
        object
            The selected rows, as the same form.
        """
        return self._take(np.asarray(indices))

    def _crps_mean(self, y, sw):
        """(Weighted) mean CRPS; forms with a fused kernel override it."""
        return _weighted_mean(self._crps(y), sw)

    # hooks: defaults for the forms that lack a quantity
    def _pit(self, y, random_state):
        return self._cdf(y)

    def _logpdf(self, y):
        self._unsupported("density: the log score needs a distribution with a density")

    def _var(self):  # pragma: no cover - every form defines it or raises
        self._unsupported("variance")


# --------------------------------------------------------------------------------------
# samples
# --------------------------------------------------------------------------------------


class PredictiveSamples(_Predictive):
    r"""Predictive distributions given by draws: ensembles, MC dropout, posterior samples.

    Row :math:`i` holds :math:`m` draws :math:`x_{i1}, \dots, x_{im}`; the predictive
    distribution is their empirical distribution,
    :math:`\hat F_i(y) = \frac1m \#\{j : x_{ij} \le y\}`.  Quantiles are those of
    :func:`numpy.quantile` (linear interpolation), the mean and variance those of the
    draws (``ddof=0``: the variance of the empirical distribution).  The PIT is the
    randomised verification rank :math:`(L_i + V_i (E_i + 1)) / (m + 1)` with
    :math:`L_i` draws below :math:`y_i`, :math:`E_i` ties and :math:`V_i \sim U(0, 1)`
    (Hamill 2001), exactly uniform for an exchangeable (calibrated) ensemble.  The CRPS is
    the exact CRPS of the empirical distribution (sorted-sample formula).  The draws have
    no density: the log score is not defined for this form.

    Parameters
    ----------
    samples : array-like of shape (n_samples, n_draws)
        Draws of each sample's predictive distribution (finite reals; pandas, float32
        accepted; never modified).

    Attributes
    ----------
    samples : ndarray of shape (n_samples, n_draws)
        The draws (float32 or float64).

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import PredictiveSamples
    >>> pred = PredictiveSamples([[0.0, 1.0, 2.0], [1.0, 1.0, 4.0]])
    >>> pred.n, pred.n_draws
    (2, 3)
    >>> pred.mean()
    array([1., 2.])
    >>> pred.cdf([1.0, 0.0])
    array([0.66666667, 0.        ])
    """

    _form = "samples"

    def __init__(self, samples):
        s = _check_real_array(samples, "samples", ndim=2)
        _find_nonfinite(s, "samples")
        self.samples = s

    def _nrows(self):
        return self.samples.shape[0]

    @property
    def n_draws(self):
        """Number of draws per row.

        Returns
        -------
        int
            The number of draws.
        """
        return self.samples.shape[1]

    def __repr__(self):
        return f"PredictiveSamples(n={self.n}, n_draws={self.n_draws})"

    def _take(self, idx):
        """The rows ``indices`` (an integer or boolean index), as the same form."""
        return PredictiveSamples(self.samples[idx])

    def _counts(self, y):
        S = self.samples
        n, m = S.shape
        below = np.empty(n, dtype=np.float64)
        ties = np.empty(n, dtype=np.float64)
        # a boolean sum along the rows in int32 (count_nonzero with an axis is slower)
        for start, stop in iter_row_chunks(n, S.itemsize * m):
            c = S[start:stop]
            yc = y[start:stop, None]
            below[start:stop] = (c < yc).sum(axis=1, dtype=np.int32)
            ties[start:stop] = (c == yc).sum(axis=1, dtype=np.int32)
        return below, ties

    def _cdf(self, y):
        """Empirical CDF ``#{j : x_ij <= y_i} / m``."""
        below, ties = self._counts(y)
        return (below + ties) / self.n_draws

    def _pit(self, y, random_state):
        """Randomised verification rank ``(L + V (E + 1)) / (m + 1)``, ``V ~ U(0, 1)``."""
        below, ties = self._counts(y)
        v = check_random_state(random_state).random_sample(self.n)
        ties += 1.0
        ties *= v
        ties += below
        ties /= self.n_draws + 1
        return ties

    def _ppf(self, t):
        """Quantiles of the draws at ``levels`` (numpy's linear rule), shape (n, k)."""
        return np.ascontiguousarray(np.quantile(self.samples, t, axis=1).T, dtype=np.float64)

    def _mean(self):
        """Mean of the draws."""
        return np.mean(self.samples, axis=1, dtype=np.float64)

    def _var(self):
        """Variance of the draws (``ddof=0``)."""
        return np.var(self.samples, axis=1, dtype=np.float64)

    def _crps(self, y):
        """Per-row CRPS of the empirical distribution (sorted-sample formula)."""
        return _crps_ensemble_kernel(y, self.samples, False, None, False)[1]

    def _crps_mean(self, y, sw):
        total = _crps_ensemble_kernel(y, self.samples, False, sw, True)[0]
        return float(total / (self.n if sw is None else sw.sum()))


# --------------------------------------------------------------------------------------
# quantile sets
# --------------------------------------------------------------------------------------


class PredictiveQuantiles(_Predictive):
    r"""Predictive distributions given by quantiles at common levels (quantile regressors).

    Row :math:`i` holds the predicted quantiles :math:`q_{i1} \le \dots \le q_{ik}` at the
    levels :math:`0 < \tau_1 < \dots < \tau_k < 1`.  Between two given levels the
    distribution is taken **piecewise uniform**: its CDF is the linear interpolation of the
    points :math:`(q_{ij}, \tau_j)`.  **Tail rule:** the first and last segments are
    extended linearly to levels 0 and 1, i.e. the quantiles
    :math:`q_{i0} = q_{i1} - \tau_1 (q_{i2} - q_{i1}) / (\tau_2 - \tau_1)` and
    :math:`q_{i,k+1} = q_{ik} + (1 - \tau_k)(q_{ik} - q_{i,k-1}) / (\tau_k - \tau_{k-1})`
    are added, so the distribution has the bounded support :math:`[q_{i0}, q_{i,k+1}]`,
    a density (log score), a mean and a variance.  These need at least two levels.  The
    CRPS of this form is the quantile (pinball) approximation
    :math:`\frac2k \sum_j \rho_{\tau_j}(y - q_{ij})` (as scoringrules' ``crps_quantile``),
    which is exact in the limit of many equally spaced levels.

    Parameters
    ----------
    values : array-like of shape (n_samples, n_levels)
        Predicted quantiles, non-decreasing along each row (crossing quantiles raise a
        ValueError: sort them or use a non-crossing quantile regressor).
    levels : array-like of shape (n_levels,)
        The levels, strictly increasing, in (0, 1).

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_levels)
        The quantiles (float32 or float64).
    levels : ndarray of shape (n_levels,)
        The levels (float64).

    Examples
    --------
    >>> from skcalib.metrics import PredictiveQuantiles
    >>> pred = PredictiveQuantiles([[-1.0, 0.0, 1.0]], levels=[0.25, 0.5, 0.75])
    >>> pred.cdf([0.5])
    array([0.625])
    >>> pred.ppf([0.1, 0.9])
    array([[-1.6,  1.6]])
    >>> pred.mean(), pred.interval(0.5)
    (array([0.]), (array([-1.]), array([1.])))
    """

    _form = "quantiles"

    def __init__(self, values, levels):
        tau = _check_levels(levels)
        if tau.shape[0] > 1 and not np.all(np.diff(tau) > 0):
            raise ValueError(f"levels must be strictly increasing, got {tau.tolist()!r}")
        q = _check_real_array(values, "values", ndim=2)
        if q.shape[1] != tau.shape[0]:
            raise ValueError(f"values has {q.shape[1]} columns but there are {tau.shape[0]} levels")
        if q.shape[1] < 2:
            _find_nonfinite(q, "values")
        # one pass: sorted rows with finite end columns are finite and do not cross (a
        # NaN fails every comparison); a failing chunk is checked again for its message
        for start, stop in iter_row_chunks(q.shape[0], q.itemsize * q.shape[1]):
            if q.shape[1] < 2:
                break
            c = q[start:stop]
            if (
                (c[:, 1:] >= c[:, :-1]).all()
                and np.isfinite(c[:, 0]).all()
                and np.isfinite(c[:, -1]).all()
            ):
                continue
            _find_nonfinite(q, "values")  # names the first NaN or infinity
            bad = c[:, 1:] < c[:, :-1]
            i, j = (int(v) for v in np.argwhere(bad)[0])
            i += start
            raise ValueError(
                f"values must be non-decreasing along each row (crossing quantiles): "
                f"row {i} has {float(q[i, j])!r} at level {tau[j]} and "
                f"{float(q[i, j + 1])!r} at level {tau[j + 1]}"
            )
        self.values = q
        self.levels = tau

    def _nrows(self):
        return self.values.shape[0]

    def __repr__(self):
        return f"PredictiveQuantiles(n={self.n}, levels={self.levels.tolist()!r})"

    def _take(self, idx):
        """The rows ``indices`` (an integer or boolean index), as the same form."""
        return PredictiveQuantiles(self.values[idx], self.levels)

    def _need_two(self, what):
        if self.levels.shape[0] < 2:
            raise ValueError(
                f"PredictiveQuantiles with one level has no {what}: the piecewise-linear "
                "distribution needs at least two levels"
            )

    def _knots(self):
        """Quantiles (n, k + 2) and levels (k + 2,) with the extrapolated end points."""
        self._need_two("distribution")
        q = np.asarray(self.values, dtype=np.float64)
        tau = self.levels
        lo = q[:, 0] - tau[0] * (q[:, 1] - q[:, 0]) / (tau[1] - tau[0])
        hi = q[:, -1] + (1.0 - tau[-1]) * (q[:, -1] - q[:, -2]) / (tau[-1] - tau[-2])
        Q = np.column_stack([lo, q, hi])
        T = np.concatenate([[0.0], tau, [1.0]])
        return Q, T

    def _cdf(self, y):
        """Piecewise-linear CDF through the quantiles (linear tails to levels 0 and 1).

        The distribution is the mixture of the uniforms on the segments
        ``[q_j, q_{j+1}]`` with weights ``tau_{j+1} - tau_j``, so its CDF is
        ``sum_j (tau_{j+1} - tau_j) clip((y - q_j) / (q_{j+1} - q_j), 0, 1)`` (a step at
        ``q_j`` for a segment of zero width): one vectorised pass per segment over a
        cache-sized chunk of rows, no gathers.
        """
        self._need_two("distribution")
        tau = self.levels
        k = tau.shape[0]
        T = np.concatenate([[0.0], tau, [1.0]])
        w = np.diff(T)
        left = tau[0] / (tau[1] - tau[0])
        right = (1.0 - tau[-1]) / (tau[-1] - tau[-2])
        out = np.empty(self.n)
        # per chunk of rows: the segment of y is the number c of given quantiles <= y
        # (counted column by column in int8); its two knots
        # are gathered from the chunk, the extrapolated ends computed for the rows in a
        # tail only.  A segment of zero width can only be a tail; there (y - a) / 0 is
        # -inf (below: 0) or, at y = a, NaN (the atom's upper level: the CDF is
        # right-continuous)
        for start, stop in iter_row_chunks(self.n, 8 * (k + 1), 1 << 20):
            r = stop - start
            qc = np.asarray(self.values[start:stop], dtype=np.float64)
            yc = y[start:stop]
            c = np.zeros(r, dtype=np.int8 if k < 127 else np.intp)
            le = np.empty(r, dtype=bool)
            for j in range(k):  # strided columns: faster than a sum along short rows
                np.less_equal(qc[:, j], yc, out=le)
                np.add(c, le, out=c, casting="unsafe")
            c = c.astype(np.intp)
            flat = qc.ravel()
            base = np.arange(0, r * k, k)
            a = flat.take(base + np.maximum(c - 1, 0))
            b = flat.take(base + np.minimum(c, k - 1))
            low = np.flatnonzero(c == 0)
            if low.size:
                q1, q2 = qc[low, 0], qc[low, 1]
                a[low] = q1 - left * (q2 - q1)
                b[low] = q1
            high = np.flatnonzero(c == k)
            if high.size:
                qk, qk1 = qc[high, k - 1], qc[high, k - 2]
                a[high] = qk
                b[high] = qk + right * (qk - qk1)
            with np.errstate(invalid="ignore", divide="ignore"):
                b -= a
                b += 0.0  # a width of -0.0 (quantiles 0.0 and -0.0) becomes +0.0
                f = yc - a
                f /= b
            np.nan_to_num(f, copy=False, nan=1.0, posinf=1.0, neginf=0.0)
            np.clip(f, 0.0, 1.0, out=f)
            f *= w[c]
            f += T[c]
            np.minimum(f, 1.0, out=out[start:stop])
        return out

    def _ppf(self, t):
        """Quantiles at ``levels`` by linear interpolation between the given ones."""
        if self.levels.shape[0] == 1:
            if np.all(t == self.levels[0]):
                return np.repeat(np.asarray(self.values, dtype=np.float64), t.shape[0], axis=1)
            self._need_two("quantiles at other levels")
        Q, T = self._knots()
        j = np.clip(np.searchsorted(T, t, side="right"), 1, T.shape[0] - 1)
        frac = (t - T[j - 1]) / (T[j] - T[j - 1])
        return Q[:, j - 1] + frac * (Q[:, j] - Q[:, j - 1])

    def _segments(self):
        Q, T = self._knots()
        return Q[:, :-1], Q[:, 1:], np.diff(T)

    def _mean(self):
        """Mean of the piecewise-uniform distribution."""
        a, b, w = self._segments()
        return (0.5 * (a + b)) @ w

    def _var(self):
        """Variance of the piecewise-uniform distribution."""
        a, b, w = self._segments()
        m = (0.5 * (a + b)) @ w
        second = ((a * a + a * b + b * b) / 3.0) @ w
        return np.maximum(second - m * m, 0.0)

    def _logpdf(self, y):
        """Log density: ``log((tau_{j+1} - tau_j) / (q_{j+1} - q_j))`` on segment ``j``."""
        Q, T = self._knots()
        j = np.count_nonzero(Q <= y[:, None], axis=1)
        out = np.full(self.n, -np.inf)
        inside = (j > 0) & (j < Q.shape[1])
        r = np.arange(self.n)[inside]
        ji = j[inside]
        with np.errstate(divide="ignore"):
            out[inside] = np.log(T[ji] - T[ji - 1]) - np.log(Q[r, ji] - Q[r, ji - 1])
        return out

    def _crps(self, y):
        """Quantile (pinball) approximation ``(2 / k) sum_j rho_tau_j(y - q_j)``."""
        tau = self.levels
        out = np.zeros(self.n)
        for start, stop in iter_row_chunks(self.n, 8 * tau.shape[0]):
            d = y[start:stop, None] - np.asarray(self.values[start:stop], dtype=np.float64)
            out[start:stop] = np.maximum(tau * d, (tau - 1.0) * d).sum(axis=1)
        out *= 2.0 / tau.shape[0]
        return out


# --------------------------------------------------------------------------------------
# central prediction intervals
# --------------------------------------------------------------------------------------


class PredictionInterval(_Predictive):
    r"""Central prediction intervals at one coverage (conformal or quantile methods).

    Row :math:`i` is the interval :math:`[l_i, u_i]` meant to hold the observation with
    probability ``coverage``: the :math:`(1 - c)/2` and :math:`(1 + c)/2` quantiles of
    the predictive distribution.  This form states nothing else about the distribution:
    the metrics defined for it are the interval ones (coverage, width, interval score);
    the others raise a ValueError that says so.

    Parameters
    ----------
    lower : array-like of shape (n_samples,)
        Lower bounds.
    upper : array-like of shape (n_samples,)
        Upper bounds, ``lower <= upper``.
    coverage : float in (0, 1)
        Nominal coverage of the intervals (0.9 for 90% intervals).

    Attributes
    ----------
    lower, upper : ndarray of shape (n_samples,)
        The bounds (float32 or float64).
    coverage : float
        The nominal coverage.

    Examples
    --------
    >>> from skcalib.metrics import PredictionInterval
    >>> pred = PredictionInterval([0.0, 1.0], [2.0, 5.0], coverage=0.8)
    >>> pred.interval(0.8)
    (array([0., 1.]), array([2., 5.]))
    >>> pred.ppf([0.1, 0.9])
    array([[0., 2.],
           [1., 5.]])
    """

    _form = "intervals"

    def __init__(self, lower, upper, coverage):
        self.coverage = _check_coverage(coverage)
        lo = _check_real_array(lower, "lower")
        hi = _check_real_array(upper, "upper")
        if lo.shape != hi.shape:
            raise ValueError(
                f"lower and upper have different numbers of samples: "
                f"{lo.shape[0]} and {hi.shape[0]}"
            )
        _find_nonfinite(lo, "lower")
        _find_nonfinite(hi, "upper")
        bad = lo > hi
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"lower must not exceed upper; at index {i} lower = {float(lo[i])!r} > "
                f"upper = {float(hi[i])!r}"
            )
        self.lower = lo
        self.upper = hi

    def _nrows(self):
        return self.lower.shape[0]

    def __repr__(self):
        return f"PredictionInterval(n={self.n}, coverage={self.coverage!r})"

    def _take(self, idx):
        """The rows ``indices`` (an integer or boolean index), as the same form."""
        return PredictionInterval(self.lower[idx], self.upper[idx], self.coverage)

    def _only(self, what):
        raise ValueError(
            f"a PredictionInterval gives only its central {self.coverage:g} interval, "
            f"not {what}; use a form with a full distribution (scipy.stats, "
            "PredictiveSamples or PredictiveQuantiles)"
        )

    def _levels_close(self, c):
        return math.isclose(c, self.coverage, rel_tol=1e-9, abs_tol=1e-12)

    def _interval(self, c):
        if not self._levels_close(c):
            self._only(f"a {c:g} interval")
        # copies: a caller may work in the bounds it gets, never in the user's arrays
        return self.lower.astype(np.float64), self.upper.astype(np.float64)

    def _ppf(self, t):
        a, b = (1.0 - self.coverage) / 2.0, (1.0 + self.coverage) / 2.0
        out = np.empty((self.n, t.shape[0]))
        for j, tj in enumerate(t):
            if math.isclose(tj, a, abs_tol=1e-12):
                out[:, j] = self.lower
            elif math.isclose(tj, b, abs_tol=1e-12):
                out[:, j] = self.upper
            else:
                self._only(f"the quantile at level {tj:g}")
        return out

    def _cdf(self, y):
        self._only("a CDF")

    def _pit(self, y, random_state):
        self._only("PIT values")

    def _mean(self):
        self._only("a mean")

    def _var(self):
        self._only("a variance")

    def _crps(self, y):
        self._only("a CRPS")


# --------------------------------------------------------------------------------------
# scipy.stats distributions
# --------------------------------------------------------------------------------------

#: tanh-sinh nodes on [0, 1] for the CRPS quadrature: s(t) = expit(pi sinh t) and its
#: complement, weights h pi cosh(t) s(t)(1 - s(t)), t on a grid of step 1/8 in [-3, 3]
#: (49 nodes; halving the step changes no CRPS of the tests' families, t with 1.1 to 5
#: degrees of freedom, logistic, lognormal, gamma down to shape 0.3, Laplace, beta,
#: uniform, by more than 1e-12 relative)
_TS_H = 1.0 / 8.0
_TS_T = np.arange(-3.0, 3.0 + _TS_H / 2, _TS_H)
_TS_U = np.pi * np.sinh(_TS_T)
_TS_S = expit(_TS_U)
_TS_SC = expit(-_TS_U)
_TS_W = _TS_H * np.pi * np.cosh(_TS_T) * _TS_S * _TS_SC


def _is_scipy_continuous(obj):
    return isinstance(getattr(obj, "dist", None), stats.rv_continuous) and hasattr(obj, "args")


class ScipyPredictive(_Predictive):
    r"""A frozen :mod:`scipy.stats` continuous distribution read as predictive distributions.

    The parameters (``args`` and ``kwds``) broadcast to shape ``(n_samples,)`` (or are
    scalars, the same distribution for every row).  The CRPS is the closed form for
    ``norm``, ``t`` (more than one degree of freedom), ``logistic`` and ``laplace`` and,
    for any other family, the quadrature of its quantile representation

    .. math::

        \mathrm{CRPS}(F, y) = 2\int_0^1 \bigl(\mathbb 1\{y < F^{-1}(\tau)\} - \tau\bigr)
            \bigl(F^{-1}(\tau) - y\bigr)\,d\tau

    (Laio and Tamea 2007), split at :math:`\tau = F(y)` where the integrand has its kink
    and computed on each piece by tanh-sinh quadrature (which is exact to double
    precision for smooth integrands with integrable end-point singularities, as the
    quantile functions of heavy-tailed families have).

    Parameters
    ----------
    dist : frozen scipy.stats continuous distribution
        For example ``scipy.stats.norm(mean, std)``.
    n_samples : int, default=None
        Number of rows, needed when every parameter is a scalar.
    """

    _form = "scipy.stats distribution"

    def __init__(self, dist, n_samples=None):
        if not _is_scipy_continuous(dist):
            raise ValueError(
                f"expected a frozen scipy.stats continuous distribution, got {type(dist).__name__}"
            )
        params = list(dist.args) + list(dist.kwds.values())
        shapes = []
        for p in params:
            a = np.asarray(p)
            if a.dtype.kind not in "biuf":
                raise ValueError(
                    f"the parameters of y_pred must be real numbers, got dtype {a.dtype}"
                )
            if not np.all(np.isfinite(a)):
                raise ValueError("the parameters of y_pred contain NaN or infinity")
            shapes.append(a.shape)
        try:
            shape = np.broadcast_shapes(*shapes) if shapes else ()
        except ValueError as exc:
            raise ValueError(f"the parameters of y_pred do not broadcast: {exc}") from exc
        if len(shape) > 1:
            raise ValueError(
                f"the parameters of y_pred must be 1-D (one distribution per sample), "
                f"got shape {shape}"
            )
        if len(shape) == 0:
            if n_samples is None:
                raise ValueError("y_pred has scalar parameters: the number of samples is unknown")
            n = int(n_samples)
        else:
            n = shape[0]
            if n_samples is not None and n != n_samples and n != 1:
                raise ValueError(
                    f"y_true and y_pred have different numbers of samples: {n_samples} and {n}"
                )
            if n == 1 and n_samples is not None:
                n = int(n_samples)
        if n == 0:
            raise ValueError("y_pred is empty: need at least one sample")
        self.dist = dist
        self._n = n
        self._args = tuple(np.asarray(a, dtype=np.float64) for a in dist.args)
        self._kwds = {k: np.asarray(v, dtype=np.float64) for k, v in dist.kwds.items()}
        # scipy's own argument check of the shapes, and a positive scale (vectorised,
        # no evaluation of the distribution)
        shapes, _, scale = dist.dist._parse_args(*self._args, **self._kwds)
        ok = np.asarray(dist.dist._argcheck(*shapes)) & (np.asarray(scale) > 0)
        ok = np.broadcast_to(ok, (n,))
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"y_pred has invalid parameters for scipy.stats.{dist.dist.name} "
                f"(first at index {i}; e.g. scale must be positive)"
            )

    def _nrows(self):
        return self._n

    @property
    def family(self):
        """Name of the scipy family (``"norm"``, ``"t"``, ...)."""
        return self.dist.dist.name

    def __repr__(self):
        return f"ScipyPredictive({self.family}, n={self.n})"

    def _params(self, expand, rows=None):
        def f(a):
            a = np.broadcast_to(a, (self._n,)) if a.ndim else a
            if rows is not None and a.ndim:
                a = a[rows]
            return a[:, None] if (expand and a.ndim) else a

        return tuple(f(a) for a in self._args), {k: f(v) for k, v in self._kwds.items()}

    def _call(self, method, x, *, expand, rows=None):
        args, kwds = self._params(expand, rows)
        return getattr(self.dist.dist, method)(x, *args, **kwds)

    def _take(self, idx):
        """The rows ``indices`` (an integer or boolean index), as the same form."""
        args, kwds = self._params(False, idx)
        n = np.arange(self._n)[idx].shape[0]
        return ScipyPredictive(self.dist.dist(*args, **kwds), n_samples=n)

    def _loc_scale(self):
        """``(loc, scale)`` arrays of a normal distribution."""
        # scipy's own parsing of (shapes, loc, scale), positional or keyword
        _, loc, scale = self.dist.dist._parse_args(*self._args, **self._kwds)
        return (
            np.broadcast_to(np.asarray(loc, dtype=np.float64), (self._n,)),
            np.broadcast_to(np.asarray(scale, dtype=np.float64), (self._n,)),
        )

    def _cdf(self, y):
        if self.family == "norm":
            loc, scale = self._loc_scale()
            z = y - loc
            z /= scale
            return ndtr(z, out=z)
        return np.asarray(self._call("cdf", y, expand=False), dtype=np.float64)

    def _standard(self):
        """``(shapes, loc, scale)`` with ``loc``, ``scale`` of shape (n,) when every shape
        parameter is a scalar (then ``F^{-1}(q) = loc + scale * G^{-1}(q)`` with the
        standard member ``G`` evaluated once per level), else None."""
        shapes, loc, scale = self.dist.dist._parse_args(*self._args, **self._kwds)
        if any(np.ndim(a) for a in shapes):
            return None
        n = (self._n,)
        loc = np.broadcast_to(np.asarray(loc, dtype=np.float64), n)
        scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), n)
        return shapes, loc, scale

    def _logpdf(self, y):
        if self.family == "norm":
            loc, scale = self._loc_scale()
            z = y - loc
            z /= scale
            z *= z
            z *= -0.5
            z -= np.log(scale)
            z -= _HALF_LOG_2PI
            return z
        return np.asarray(self._call("logpdf", y, expand=False), dtype=np.float64)

    def _ppf(self, t):
        std = self._standard()
        if std is not None:
            shapes, loc, scale = std
            z = np.asarray(self.dist.dist.ppf(t, *shapes), dtype=np.float64)
            return loc[:, None] + scale[:, None] * z[None, :]
        out = self._call("ppf", t[None, :], expand=True)
        return np.ascontiguousarray(np.broadcast_to(out, (self.n, t.shape[0])), dtype=np.float64)

    def _interval(self, c):
        a = (1.0 - c) / 2.0
        std = self._standard()
        if std is not None:
            shapes, loc, scale = std
            zl = float(self.dist.dist.ppf(a, *shapes))
            zu = float(self.dist.dist.isf(a, *shapes))
            return loc + scale * zl, loc + scale * zu
        lo = self._call("ppf", a, expand=False)
        hi = self._call("isf", a, expand=False)
        return (
            np.broadcast_to(np.asarray(lo, dtype=np.float64), (self.n,)).copy(),
            np.broadcast_to(np.asarray(hi, dtype=np.float64), (self.n,)).copy(),
        )

    def _moment(self, name):
        std = self._standard()
        with np.errstate(all="ignore"):
            if std is not None:
                shapes, loc, scale = std
                v = float(getattr(self.dist.dist, name)(*shapes))
                v = loc + scale * v if name == "mean" else scale * scale * v
            else:
                args, kwds = self._params(False)
                v = getattr(self.dist.dist, name)(*args, **kwds)
        v = np.broadcast_to(np.asarray(v, dtype=np.float64), (self.n,)).copy()
        if not np.all(np.isfinite(v)):
            i = int(np.flatnonzero(~np.isfinite(v))[0])
            raise ValueError(
                f"scipy.stats.{self.family} with these parameters has no finite {name} "
                f"(first at index {i})"
            )
        return v

    def _mean(self):
        return self._moment("mean")

    def _var(self):
        return self._moment("var")

    def _crps(self, y):
        if self.family == "norm":
            mu, sd = self._loc_scale()
            return _crps_normal_kernel(y, mu, sd, None, False)[1]
        closed = _CRPS_CLOSED_FORMS.get(self.family)
        if closed is not None:
            shapes, loc, scale = self.dist.dist._parse_args(*self._args, **self._kwds)
            if self.family != "t" or np.all(np.asarray(shapes[0]) > 1):
                with np.errstate(all="ignore"):
                    z = (y - loc) / scale
                    out = np.asarray(closed(z, *shapes) * scale, dtype=np.float64)
                out = np.broadcast_to(out, (self.n,))
                if np.all(np.isfinite(out)):
                    return out.copy()
        return self._crps_quadrature(y)

    def _crps_mean(self, y, sw):
        if self.family == "norm":
            mu, sd = self._loc_scale()
            return float(_crps_normal_kernel(y, mu, sd, sw, True)[0])
        return _weighted_mean(self._crps(y), sw)

    def _crps_quadrature(self, y):
        r"""``2 int_0^1 (1{y < q(tau)} - tau)(q(tau) - y) dtau`` by tanh-sinh quadrature.

        Below ``p = F(y)`` (where ``q <= y``) the integrand is ``tau (y - q(tau))``; above
        it, with ``u = 1 - tau``, it is ``u (Q(u) - y)`` with ``Q`` the inverse survival
        function (``isf``, which keeps the precision of the upper tail).  Both are
        ``int_0^c u h(u) du`` (``c = F(y)`` and ``c = 1 - F(y)``), each split at
        ``min(c, 1/2)``, the median, where the quantile functions of families with a kink
        at their mode (Laplace) lose their smoothness.
        """
        n = self.n
        out = np.empty(n)
        k = _TS_S.shape[0]
        d = self.dist.dist
        for start, stop in iter_row_chunks(n, 8 * k * 8):
            rows = slice(start, stop)
            yc = y[rows][:, None]
            args, kwds = self._params(True, rows)
            with np.errstate(all="ignore"):
                total = np.zeros(stop - start)
                for cfun, qfun, sign in ((d.cdf, d.ppf, -1.0), (d.sf, d.isf, 1.0)):
                    c = np.asarray(cfun(yc, *args, **kwds), dtype=np.float64)
                    mid = np.minimum(c, 0.5)
                    for lo, width in ((0.0, mid), (mid, c - mid)):
                        u = lo + width * _TS_S
                        h = sign * (np.asarray(qfun(u, *args, **kwds), dtype=np.float64) - yc)
                        f = u * h
                        f[~np.isfinite(f) | (u == 0)] = 0.0
                        total += width[:, 0] * (f @ _TS_W)
            out[rows] = 2.0 * total
        if not np.all(np.isfinite(out)):
            raise ValueError(f"the CRPS of scipy.stats.{self.family} could not be computed")
        return out


def _crps_standard_logistic(z):
    """CRPS of the standard logistic at ``z``: ``z - 2 log F(z) - 1`` (Taillardat et
    al. 2016), with ``-log F(z) = log(1 + exp(-z))``."""
    return z + 2.0 * np.logaddexp(0.0, -z) - 1.0


def _crps_standard_laplace(z):
    """CRPS of the standard Laplace at ``z``: ``|z| + exp(-|z|) - 3/4``."""
    a = np.abs(z)
    return a + np.exp(-a) - 0.75


def _crps_standard_t(z, df):
    """CRPS of the standard Student t with ``df > 1`` degrees of freedom at ``z``
    (Jordan, Krueger and Lerch 2019): ``z (2 F(z) - 1) + 2 f(z) (df + z^2) / (df - 1)
    - 2 sqrt(df) B(1/2, df - 1/2) / ((df - 1) B(1/2, df / 2)^2)``."""
    df = np.asarray(df, dtype=np.float64)
    F = stdtr(df, z)
    # density by scipy.special, without scipy.stats' argument handling
    log_c = gammaln((df + 1.0) / 2.0) - gammaln(df / 2.0) - 0.5 * np.log(df * math.pi)
    f = np.exp(log_c - (df + 1.0) / 2.0 * np.log1p(z * z / df))
    log_b = betaln(0.5, df - 0.5) - 2.0 * betaln(0.5, df / 2.0)
    spread = 2.0 * np.sqrt(df) * np.exp(log_b) / (df - 1.0)
    return z * (2.0 * F - 1.0) + 2.0 * f * (df + z * z) / (df - 1.0) - spread


#: closed forms of the CRPS of standard members (``z = (y - loc) / scale``, times scale)
_CRPS_CLOSED_FORMS = {
    "logistic": _crps_standard_logistic,
    "laplace": _crps_standard_laplace,
    "t": _crps_standard_t,
}


def as_predictive(y_pred, n_samples=None):
    """Read ``y_pred`` (any form of predictive distribution) into the common interface.

    Parameters
    ----------
    y_pred : PredictiveSamples, PredictiveQuantiles, PredictionInterval or frozen \
scipy.stats continuous distribution
        The predictive distributions.
    n_samples : int, default=None
        The number of observations they must describe (checked; it also sets the
        number of rows of a scipy distribution with scalar parameters).

    Returns
    -------
    pred : object
        ``y_pred`` itself for the three skcalib forms, a :class:`ScipyPredictive` for a
        scipy distribution; it has ``n``, ``cdf``, ``ppf``, ``mean``, ``var``, ``std``,
        ``interval``, ``logpdf``, ``pit``, ``crps`` and ``take``.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from skcalib.metrics._regression._forms import as_predictive
    >>> pred = as_predictive(norm([0.0, 1.0], [1.0, 2.0]))
    >>> pred.n, pred.std()
    (2, array([1., 2.]))
    """
    if isinstance(y_pred, _Predictive):
        return y_pred._check_n(n_samples)
    if _is_scipy_continuous(y_pred):
        return ScipyPredictive(y_pred, n_samples)
    if isinstance(getattr(y_pred, "dist", None), stats.rv_discrete):
        raise ValueError(
            "y_pred is a discrete scipy.stats distribution: regression metrics take "
            "continuous distributions"
        )
    raise ValueError(
        "y_pred must be a predictive distribution: a frozen scipy.stats continuous "
        "distribution with array parameters (e.g. scipy.stats.norm(mean, std)), "
        "PredictiveSamples, PredictiveQuantiles or PredictionInterval; got "
        f"{type(y_pred).__name__}"
    )
