"""Slow, obviously-correct reference implementations of the calibrators (loops and
generic optimisers), compared with the fast kernels on random data."""

import math

import numpy as np
from scipy.optimize import minimize, minimize_scalar


def softmax(z):
    e = [math.exp(v - max(z)) for v in z]
    s = sum(e)
    return [v / s for v in e]


def nll_at_temperature(Z, y, T, w=None):
    """Weighted mean NLL of softmax(Z / T), one row at a time."""
    total = wsum = 0.0
    for i, row in enumerate(Z):
        wi = 1.0 if w is None else float(w[i])
        m = max(row) / T
        lse = m + math.log(sum(math.exp(v / T - m) for v in row))
        total += wi * (lse - row[y[i]] / T)
        wsum += wi
    return total / wsum


def slow_temperature(Z, y, w=None):
    """Temperature by a bounded scalar search on log T of the loop NLL."""
    res = minimize_scalar(
        lambda s: nll_at_temperature(Z, y, math.exp(s), w),
        bounds=(-6, 6),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return math.exp(res.x)


def slow_histogram_binary(p, y, edges):
    """Observed frequency per right-closed bin, by a loop (NaN for empty bins)."""
    n_bins = len(edges) - 1
    hits = [0.0] * n_bins
    count = [0.0] * n_bins
    for pi, yi in zip(p, y, strict=True):
        m = 0
        while m < n_bins - 1 and pi > edges[m + 1]:
            m += 1
        count[m] += 1
        hits[m] += yi
    return np.array([h / c if c else np.nan for h, c in zip(hits, count, strict=True)])


def slow_logistic(F, t, w=None):
    """Weighted logistic regression with a generic optimiser (BFGS)."""
    n, d = F.shape
    w = np.ones(n) if w is None else np.asarray(w, float)

    def loss(c):
        s = F @ c
        return float(np.sum(w * (np.logaddexp(0, s) - t * s)) / w.sum())

    return minimize(loss, np.zeros(d), method="BFGS", options={"gtol": 1e-12}).x


def slow_vector_scaling(Z, y, alpha):
    """Vector scaling by Nelder-Mead-free BFGS on the loop objective (small k)."""
    n, k = Z.shape

    def loss(theta):
        w, b = theta[:k], theta[k:]
        total = 0.0
        for i in range(n):
            s = [w[j] * Z[i, j] + b[j] for j in range(k)]
            m = max(s)
            total += m + math.log(sum(math.exp(v - m) for v in s)) - s[y[i]]
        return total / n + alpha * (np.sum((w - 1) ** 2) + np.sum(b**2))

    theta0 = np.concatenate([np.ones(k), np.zeros(k)])
    return minimize(loss, theta0, method="BFGS", options={"gtol": 1e-10}).x
