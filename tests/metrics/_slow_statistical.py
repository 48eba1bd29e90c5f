"""Slow, obviously-correct loop implementations of the statistical calibration
functions, for comparison with the vectorised kernels on random data."""

import math

import numpy as np
import scipy.integrate
from scipy import stats


def slow_bins(p, n_bins):
    """Right-closed equal-width bin of each probability (first bin holds 0)."""
    out = []
    edges = np.linspace(0, 1, n_bins + 1)
    for v in p:
        b = 0
        while b < n_bins - 1 and v > edges[b + 1]:
            b += 1
        out.append(b)
    return out


def slow_ece(p, y, n_bins, w=None):
    w = np.ones(len(p)) if w is None else w
    bins = slow_bins(p, n_bins)
    total = 0.0
    for b in range(n_bins):
        idx = [i for i in range(len(p)) if bins[i] == b]
        if not idx:
            continue
        W = sum(w[i] for i in idx)
        acc = sum(w[i] * y[i] for i in idx) / W
        conf = sum(w[i] * p[i] for i in idx) / W
        total += W * abs(acc - conf)
    return total / sum(w)


def slow_spiegelhalter(p, y, w=None):
    w = np.ones(len(p)) if w is None else w
    num = sum(w[i] * (y[i] - p[i]) * (1 - 2 * p[i]) for i in range(len(p)))
    var = sum(w[i] * (1 - 2 * p[i]) ** 2 * p[i] * (1 - p[i]) for i in range(len(p)))
    z = num / math.sqrt(var)
    return z, 2 * stats.norm.sf(abs(z))


def slow_hosmer_lemeshow(p, y, n_groups, df=None):
    """Groups of equal size of the sorted probabilities (n divisible by n_groups,
    distinct values), the textbook statistic and its chi-squared p-value with ``df``
    degrees of freedom (default: the number of groups, the held-out reference)."""
    order = np.argsort(p)
    stat = 0.0
    for g in np.array_split(order, n_groups):
        n_g = len(g)
        obs = sum(y[i] for i in g)
        E = sum(p[i] for i in g)
        stat += (obs - E) ** 2 / (E * (1 - E / n_g))
    return stat, stats.chi2.sf(stat, n_groups if df is None else df)


def slow_hosmer_lemeshow_uniform(p, y, n_bins, w=None):
    """The textbook statistic over the non-empty equal-width bins (``slow_bins``),
    weighted sums by a loop, and its chi-squared p-value with as many degrees of
    freedom as non-empty bins."""
    w = [1.0] * len(p) if w is None else w
    n, obs, E = [0.0] * n_bins, [0.0] * n_bins, [0.0] * n_bins
    for i, b in enumerate(slow_bins(p, n_bins)):
        n[b] += w[i]
        obs[b] += w[i] * y[i]
        E[b] += w[i] * p[i]
    stat, G = 0.0, 0
    for b in range(n_bins):
        if n[b] > 0:
            G += 1
            stat += (obs[b] - E[b]) ** 2 / (E[b] * (1 - E[b] / n[b]))
    return stat, stats.chi2.sf(stat, G)


def slow_bayesian_ece(p, y, n_bins, n_samples, weighting, rng):
    """Section-by-section transcription of the posterior of uncertainty_metrics'
    ``bayesian_expected_calibration_error`` (with skcalib's bins), drawing in the same
    order as the kernel: Dirichlet first, then the truncated normals."""
    M = n_bins
    bins = slow_bins(p, M)
    C = np.zeros((2, M))
    n_b = np.zeros(M)
    psum = np.zeros(M)
    for i in range(len(p)):
        C[int(y[i]), bins[i]] += 1
        n_b[bins[i]] += 1
        psum[bins[i]] += p[i]
    alpha = np.concatenate([C[0], C[1]]) + 1.0 / M
    q = rng.dirichlet(alpha, size=n_samples)
    mean, sd, lo, hi = [], [], [], []
    for b in range(M):
        pmean = psum[b] / n_b[b] if n_b[b] > 0 else 0.0
        centre = (b + 0.5) / M
        sigma2 = (1.0 / M) / 12.0
        s2 = 1.0 / (n_b[b] / sigma2 + 1.0 / sigma2)
        mean.append(s2 * (centre / sigma2 + n_b[b] * pmean / sigma2))
        sd.append(math.sqrt(s2))
        lo.append(b / M)
        hi.append((b + 1) / M)
    mean, sd, lo, hi = map(np.array, (mean, sd, lo, hi))
    mu = stats.truncnorm.rvs(
        (lo - mean) / sd,
        (hi - mean) / sd,
        loc=mean,
        scale=sd,
        size=(n_samples, M),
        random_state=rng,
    )
    out = []
    for s in range(n_samples):
        q0, q1 = q[s, :M], q[s, M:]
        total = 0.0
        for b in range(M):
            weight = (q0[b] + q1[b]) if weighting == "bin" else q1[b] / q1.sum()
            total += weight * abs(q1[b] / (q0[b] + q1[b]) - mu[s, b])
        out.append(total)
    return np.array(out)


def slow_smece_sigma(p, y, sigma, w=None, n_grid=2001, n_reflections=2):
    """smECE at bandwidth sigma by direct numerical integration: the Gaussian kernel
    reflected at 0 and 1 (images 2k +- p), evaluated at every grid point."""
    w = np.ones(len(p)) if w is None else np.asarray(w, float)
    t = np.linspace(0, 1, n_grid)
    r = w * (y - p)
    total = np.zeros_like(t)
    for k in range(-n_reflections, n_reflections + 1):
        for image in (2 * k + p, 2 * k - p):
            z = (t[:, None] - image[None, :]) / sigma
            K = np.exp(-0.5 * z * z) / (np.sqrt(2 * np.pi) * sigma)
            total += K @ r
    integrand = np.abs(total) / w.sum()
    return float(scipy.integrate.trapezoid(integrand, t))
