"""Slow, obviously-correct loop implementations of the ensemble metrics (for tests).

The PSIS-LOO reference follows the published algorithm step by step for one sample at a
time (Vehtari, Simpson, Gelman, Yao and Gabry, "Pareto smoothed importance sampling",
JMLR 2024, and the generalized-Pareto fit of Zhang and Stephens, Technometrics 2009, as
written in ``loo/R/gpdfit.R`` of the loo R package), with Python floats and ``math``.
"""

import itertools
import math


def _logsumexp(values):
    m = max(values)
    if m == -math.inf:
        return -math.inf
    return m + math.log(sum(math.exp(v - m) for v in values))


def gpd_fit(x):
    """Zhang-Stephens estimate (k, sigma) of the exceedances ``x`` (sorted ascending)."""
    n = len(x)
    m = 30 + int(math.sqrt(n))
    quartile = x[int(n / 4 + 0.5) - 1]
    thetas = [1 / x[-1] + (1 - math.sqrt(m / (j - 0.5))) / (3 * quartile) for j in range(1, m + 1)]
    # profile log-likelihood of each theta
    ks = [sum(math.log1p(-t * xi) for xi in x) / n for t in thetas]
    prof = [n * (math.log(-t / k) - k - 1) for t, k in zip(thetas, ks, strict=True)]
    top = max(prof)
    w = [math.exp(p - top) for p in prof]
    total = sum(w)
    w = [wi / total for wi in w]
    w = [wi if wi >= 10 * 2.220446049250313e-16 else 0.0 for wi in w]
    total = sum(w)
    theta = sum(t * wi for t, wi in zip(thetas, w, strict=True)) / total
    k = sum(math.log1p(-theta * xi) for xi in x) / n
    sigma = -k / theta
    k = (n * k + 10 * 0.5) / (n + 10)  # weakly informative prior on k
    return k, sigma


def gpd_quantile(p, k, sigma):
    if abs(k) < 2.220446049250313e-16:
        return -sigma * math.log1p(-p)
    return sigma * math.expm1(-k * math.log1p(-p)) / k


def psis_loo_row(log_lik_row, r_eff=1.0):
    """(elpd_loo_i, k_i) of one sample from its log-likelihoods under the S members."""
    S = len(log_lik_row)
    log_ratios = [-v for v in log_lik_row]
    top = max(log_ratios)
    x = [v - top for v in log_ratios]
    M = math.ceil(min(S / 5, 3 * math.sqrt(S / r_eff)))
    order = sorted(range(S), key=lambda j: x[j])
    cutoff = max(x[order[S - M - 1]], math.log(2.2250738585072014e-308))
    tail = [j for j in order if x[j] > cutoff]  # ascending
    k = math.inf
    if len(tail) > 4:
        exceed = [math.exp(x[j]) - math.exp(cutoff) for j in tail]
        k, sigma = gpd_fit(exceed)
        m = len(tail)
        for rank, j in enumerate(tail):
            q = gpd_quantile((rank + 0.5) / m, k, sigma)
            x[j] = min(math.log(q + math.exp(cutoff)), 0.0)
    norm = _logsumexp(x)
    log_w = [v - norm for v in x]
    return _logsumexp([lw + ll for lw, ll in zip(log_w, log_lik_row, strict=True)]), k


def entropy(p):
    return -sum(v * math.log(v) for v in p if v > 0)


def model_uncertainty(members):
    """members[m][i][k] -> (total, data, model) lists over samples."""
    M, n = len(members), len(members[0])
    out = ([], [], [])
    for i in range(n):
        rows = [members[m][i] for m in range(M)]
        mean = [sum(r[c] for r in rows) / M for c in range(len(rows[0]))]
        total = entropy(mean)
        data = sum(entropy(r) for r in rows) / M
        out[0].append(total)
        out[1].append(data)
        out[2].append(total - data)
    return out


def argmax(row):
    best = 0
    for c, v in enumerate(row):
        if v > row[best]:
            best = c
    return best


def pairwise_diversity(y, members, p=2):
    """Averages over itertools.combinations (KL over both orders) of per-sample means."""
    M, n = len(members), len(members[0])
    pairs = list(itertools.combinations(range(M), 2))
    dis = df = cos = lp = kl = 0.0
    for a, b in pairs:
        for i in range(n):
            A, B = members[a][i], members[b][i]
            pa, pb = argmax(A), argmax(B)
            dis += (pa != pb) / n
            df += (pa != y[i] and pb != y[i]) / n
            dot = sum(u * v for u, v in zip(A, B, strict=True))
            na = math.sqrt(sum(u * u for u in A))
            nb = math.sqrt(sum(v * v for v in B))
            cos += (1 - dot / (na * nb)) / n
            lp += sum(abs(u - v) ** p for u, v in zip(A, B, strict=True)) ** (1 / p) / n
    for a, b in itertools.permutations(range(M), 2):
        for i in range(n):
            A, B = members[a][i], members[b][i]
            kl += sum(u * math.log(u / v) for u, v in zip(A, B, strict=True) if u > 0) / n
    P = len(pairs)
    return {
        "disagreement": dis / P,
        "double_fault": df / P,
        "kl_divergence": kl / (2 * P),
        "cosine_distance": cos / P,
        "lp_distance": lp / P,
    }


def variance_bound(y, members):
    M, n = len(members), len(members[0])
    total = 0.0
    for i in range(n):
        q = [members[m][i][y[i]] for m in range(M)]
        mean = sum(q) / M
        top = max(q)
        if top > 0:
            total += sum(((v - mean) / top) ** 2 for v in q) / M
    return 0.5 * total / n
