"""A slow, obviously-correct reference implementation of the calibration-error family.

Pure Python loops over samples, written from the definitions in the docstrings of
skcalib.metrics (edges, right-closed bins, aggregation); used to check the fast kernels
on random data.
"""

import math

import numpy as np


def _classes_of(y, labels):
    if labels is not None:
        return list(labels)
    return sorted(set(y))


def _matrix(y_proba, n_classes, pos_index):
    rows = []
    for r in y_proba:
        if isinstance(r, list | tuple) or hasattr(r, "__len__"):
            rows.append([float(v) for v in r])
        else:
            p = float(r)
            row = [0.0, 0.0]
            row[pos_index] = p
            row[1 - pos_index] = 1.0 - p
            rows.append(row)
    return rows


def slow_groups(y, y_proba, *, multiclass="auto", labels=None, pos_label=None, sample_weight=None):
    """List of groups, each a list of (confidence, outcome, weight) triples."""
    y = list(y)
    classes = _classes_of(y, labels)
    one_d = not hasattr(y_proba[0], "__len__")
    if not one_d and labels is None and len(classes) < len(y_proba[0]):
        # documented rule: integer labels and k columns mean the classes 0..k-1
        classes = list(range(len(y_proba[0])))
    pos_index = 1 if pos_label is None else classes.index(pos_label)
    rows = _matrix(y_proba, len(classes), pos_index)
    w = [1.0] * len(y) if sample_weight is None else [float(v) for v in sample_weight]
    yi = [classes.index(v) for v in y]
    k = len(rows[0])
    binary = k == 2 or one_d
    mode = multiclass
    if mode == "auto":
        mode = "binary" if binary else "top_label"
    if mode == "binary":
        return [
            [(rows[i][pos_index], 1.0 if yi[i] == pos_index else 0.0, w[i]) for i in range(len(y))]
        ]
    if mode == "top_label":
        g = []
        for i in range(len(y)):
            j = max(range(k), key=lambda c: (rows[i][c], -c))
            g.append((rows[i][j], 1.0 if yi[i] == j else 0.0, w[i]))
        return [g]
    return [
        [(rows[i][j], 1.0 if yi[i] == j else 0.0, w[i]) for i in range(len(y))] for j in range(k)
    ]


def slow_edges(values_weights, n_bins, strategy):
    if strategy == "uniform":
        return [float(e) for e in np.linspace(0, 1, n_bins + 1)]  # the documented edges
    items = sorted((v, w) for v, w in values_weights if w > 0)
    total = sum(w for _, w in items)
    edges = [0.0]
    for k in range(1, n_bins):
        cum = 0.0
        chosen = items[-1][0] if items else 0.0
        for v, w in items:
            cum += w
            if cum * n_bins >= k * total:
                chosen = v
                break
        edges.append(chosen)
    edges.append(1.0)
    return edges


def slow_bin(p, edges):
    n_bins = len(edges) - 1
    for m in range(n_bins):
        if p <= edges[m + 1]:
            return m
    return n_bins - 1


def slow_stats(groups, *, n_bins, strategy, threshold=0.0, bins=None):
    out = []
    for g in groups:
        kept = [(c, o, w) for c, o, w in g if threshold <= 0 or c > threshold]
        edges = (
            list(bins)
            if bins is not None
            else slow_edges([(c, w) for c, _, w in kept], n_bins, strategy)
        )
        nb = len(edges) - 1
        cnt, sp, st, sq = [0.0] * nb, [0.0] * nb, [0.0] * nb, [0.0] * nb
        for c, o, w in kept:
            b = slow_bin(c, edges)
            cnt[b] += w
            sp[b] += w * c
            st[b] += w * o
            sq[b] += w * w
        out.append((cnt, sp, st, edges, sq))
    return out


def slow_gce(
    y,
    y_proba,
    *,
    n_bins=15,
    strategy="uniform",
    multiclass="auto",
    norm="l1",
    threshold=0.0,
    debias=False,
    bins=None,
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    groups = slow_groups(
        y,
        y_proba,
        multiclass=multiclass,
        labels=labels,
        pos_label=pos_label,
        sample_weight=sample_weight,
    )
    total = sum(w for _, _, w in groups[0])
    stats = slow_stats(groups, n_bins=n_bins, strategy=strategy, threshold=threshold, bins=bins)
    G = len(groups)
    if norm == "max":
        best = 0.0
        for cnt, sp, st, _, _ in stats:
            for b in range(len(cnt)):
                if cnt[b] > 0:
                    best = max(best, abs(st[b] / cnt[b] - sp[b] / cnt[b]))
        return best
    acc_sum = 0.0
    for cnt, sp, st, _, sq in stats:
        for b in range(len(cnt)):
            if cnt[b] <= 0:
                continue
            gap = st[b] / cnt[b] - sp[b] / cnt[b]
            if norm == "l1":
                acc_sum += cnt[b] / total * abs(gap)
            else:
                term = gap * gap
                if debias:
                    n_eff = cnt[b] ** 2 / sq[b]  # Kish's effective sample size
                    if n_eff > 1:
                        a = st[b] / cnt[b]
                        term -= a * (1 - a) / (n_eff - 1)
                    else:
                        term = 0.0
                acc_sum += cnt[b] / total * term
    acc_sum /= G
    if norm == "l1":
        return acc_sum
    return math.sqrt(max(acc_sum, 0.0))
