"""Slow, obviously-correct references of the selective-prediction metrics.

Pure Python loops written from the definitions (the papers' formulas, the threshold
rule for ties, the expectation over random tie-breaking), used to check the fast
kernels of skcalib.metrics on random data.
"""

import itertools
import math


def top_label(y_idx, rows):
    """(confidence, wrong) of each sample; rows are lists of class probabilities."""
    conf, wrong = [], []
    for yi, row in zip(y_idx, rows, strict=True):
        best = max(range(len(row)), key=lambda k: (row[k], -k))  # first maximal index
        conf.append(row[best])
        wrong.append(best != yi)
    return conf, wrong


def thresholds_curve(u, wrong, w=None):
    """[(kept weight, kept error weight)] for every distinct threshold t, keeping u <= t,
    from the smallest threshold (fewest kept) to the largest (all kept)."""
    w = [1.0] * len(u) if w is None else list(w)
    out = []
    for t in sorted(set(u)):
        kept = sum(wi for ui, wi in zip(u, w, strict=True) if ui <= t)
        err = sum(wi for ui, wi, e in zip(u, w, wrong, strict=True) if ui <= t and e)
        out.append((kept, err))
    return out


def aurc_no_ties(u, wrong):
    """Geifman et al. 2019: mean over k of the error rate of the k most confident."""
    order = sorted(range(len(u)), key=lambda i: u[i])
    total, errors = 0.0, 0
    for k, i in enumerate(order, start=1):
        errors += wrong[i]
        total += errors / k
    return total / len(u)


def aurc_thresholds(u, wrong, w=None):
    """Sum over thresholds of (coverage step) * (risk at the threshold)."""
    curve = thresholds_curve(u, wrong, w)
    total = curve[-1][0]
    out, prev = 0.0, 0.0
    for kept, err in curve:
        out += (kept - prev) / total * (err / kept)
        prev = kept
    return out


def augrc_thresholds(u, wrong, w=None):
    """Trapezoid integral of kept errors / total against coverage."""
    curve = thresholds_curve(u, wrong, w)
    total = curve[-1][0]
    out, prev_kept, prev_err = 0.0, 0.0, 0.0
    for kept, err in curve:
        out += (kept - prev_kept) / total * (err + prev_err) / (2 * total)
        prev_kept, prev_err = kept, err
    return out


def _orderings(u):
    """Every order of the samples by increasing u, ties broken in every possible way."""
    groups = {}
    for i, ui in enumerate(u):
        groups.setdefault(ui, []).append(i)
    blocks = [list(itertools.permutations(groups[t])) for t in sorted(groups)]
    for choice in itertools.product(*blocks):
        yield [i for block in choice for i in block]


def risk_at_k_expected(u, wrong, k):
    """Mean, over all tie-breakings, of the error rate of the k most confident."""
    vals = [sum(wrong[i] for i in order[:k]) / k for order in _orderings(u)]
    return sum(vals) / len(vals)


def oca_exact_expected(u, wrong, fraction):
    """Mean, over all tie-breakings, of the team accuracy when the oracle labels the
    floor(fraction * n) most uncertain samples correctly."""
    n = len(u)
    budget = math.floor(fraction * n)
    vals = []
    for order in _orderings(u):
        model = order[: n - budget]
        vals.append((budget + sum(not wrong[i] for i in model)) / n)
    return sum(vals) / len(vals)


def right_closed_bin(p, n_bins):
    """Bin of p: bin m holds e_m < p <= e_{m+1} with e = linspace(0, 1, n_bins + 1)."""
    edges = [i / n_bins for i in range(n_bins + 1)]
    for m in range(n_bins):
        if p <= edges[m + 1]:
            return m
    return n_bins - 1


def oca_binned_reference(conf, wrong, fraction, n_bins, w=None, uncertainty=False):
    """uncertainty_metrics' OracleCollaborativeAccuracy.result(): walk the confidence
    bins upwards; whole bins go to the oracle, the bin where its budget ends is split
    at the bin's accuracy, the rest is the model's.  With ``uncertainty`` the values
    are uncertainties and the walk goes downwards, from the most uncertain bin."""
    w = [1.0] * len(conf) if w is None else list(w)
    counts = [0.0] * n_bins
    correct = [0.0] * n_bins
    for c, e, wi in zip(conf, wrong, w, strict=True):
        b = right_closed_bin(c, n_bins)
        counts[b] += wi
        correct[b] += 0.0 if e else wi
    budget = math.floor(sum(counts) * fraction)
    so_far, collab = 0.0, []
    for b in reversed(range(n_bins)) if uncertainty else range(n_bins):
        if so_far + counts[b] <= budget:
            collab.append(counts[b])
            so_far += counts[b]
        elif so_far < budget:
            r = budget - so_far
            collab.append(r + (counts[b] - r) * (correct[b] / counts[b]))
            so_far = budget
        else:
            collab.append(correct[b])
    return sum(collab) / sum(counts)
