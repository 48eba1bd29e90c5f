"""Diversity of ensemble members: golden values, scipy, slow loops, bad input."""

import itertools
import math

import numpy as np
import pytest
from scipy.spatial import distance
from scipy.special import softmax
from scipy.stats import entropy

from skcalib.metrics import (
    PairwiseDiversityResult,
    average_pairwise_diversity,
    cosine_distance,
    disagreement,
    double_fault,
    kl_divergence,
    lp_distance,
    variance_bound,
)

from . import _slow_ensembles as slow
from ._result_checks import check_unpackable_result

# uncertainty_metrics 0.0.82, ``uncertainty_metrics/tensorflow/diversity.py``: two
# members' logits and the labels; the values below are those of its functions where the
# definitions agree (disagreement; KL of the softmax probabilities, logit_kl_divergence)
L1 = np.array([[1, 2, 3], [3, 2, 1], [0, 0, 1]], dtype=float)
L2 = np.array([[3, 2, 1], [3, 1, 2], [1, 0, 0]], dtype=float)
Y = [2, 0, 1]

# ``uncertainty_metrics/tensorflow/diversity_test.py`` (testVarianceBound): 4 members, 2
# samples, labels [0, 2].  Two rows there do not sum to 1 (model 3 sample 2 is
# [0, .6, .3], model 4 sample 1 is [.5, .1, .1]); only the probabilities of the observed
# labels enter the bound, so the rows are completed here with the same such values.
VB_PROBS = np.array(
    [
        [[0.5, 0.4, 0.1], [0.1, 0.1, 0.8]],
        [[0.3, 0.3, 0.4], [0.1, 0.0, 0.9]],
        [[0.8, 0.1, 0.1], [0.0, 0.7, 0.3]],
        [[0.5, 0.4, 0.1], [0.1, 0.2, 0.7]],
    ]
)
VB_LABELS = [0, 2]


def test_golden_values():
    P1, P2 = softmax(L1, axis=1), softmax(L2, axis=1)
    assert disagreement(P1, P2) == pytest.approx(2 / 3, abs=1e-15)
    # both members wrong on sample 0 only (the reference returns P(2 wrong | 1 wrong) = 1)
    assert double_fault(Y, P1, P2) == pytest.approx(1 / 3, abs=1e-15)
    assert kl_divergence(P1, P2) == pytest.approx(0.5564313301, abs=1e-10)
    per_sample = [1.1504207652, 0.1546978979, 0.3641753271]
    for i in range(3):
        assert kl_divergence(P1[i : i + 1], P2[i : i + 1]) == pytest.approx(
            per_sample[i], abs=1e-10
        )


def test_variance_bound_exact_value():
    # the exact value; the reference test compares with 0.02847173996913581, which
    # uses the mean 0.52 (a typo for 0.525) and passes within its atol=1e-5
    # class 1 does not occur in the labels: the classes (columns) are given
    value = variance_bound(VB_LABELS, VB_PROBS, labels=[0, 1, 2])
    assert value == pytest.approx(0.028461974344135804, rel=1e-15)
    assert value == slow.variance_bound(VB_LABELS, VB_PROBS.tolist())


def _random_pair(rng, n=40, k=4):
    A = rng.dirichlet(np.full(k, 0.6), size=n)
    B = rng.dirichlet(np.full(k, 0.6), size=n)
    return A, B


@pytest.mark.parametrize("seed", range(3))
def test_pairwise_agree_with_scipy(seed):
    rng = np.random.default_rng(seed)
    A, B = _random_pair(rng)
    w = rng.uniform(0, 2, len(A))
    W = w.sum()
    assert cosine_distance(A, B, sample_weight=w) == pytest.approx(
        sum(wi * distance.cosine(a, b) for wi, a, b in zip(w, A, B, strict=True)) / W, rel=1e-12
    )
    for p in (1, 2, 3.5):
        assert lp_distance(A, B, p=p, sample_weight=w) == pytest.approx(
            sum(wi * distance.minkowski(a, b, p) for wi, a, b in zip(w, A, B, strict=True)) / W,
            rel=1e-12,
        )
    assert kl_divergence(A, B, sample_weight=w) == pytest.approx(
        sum(wi * entropy(a, b) for wi, a, b in zip(w, A, B, strict=True)) / W, rel=1e-12
    )
    pa, pb = A.argmax(1), B.argmax(1)
    assert disagreement(A, B, sample_weight=w) == pytest.approx((w * (pa != pb)).sum() / W)
    y = rng.integers(0, 4, len(A))
    both = (pa != y) & (pb != y)
    assert double_fault(y, A, B, sample_weight=w) == pytest.approx((w * both).sum() / W)


def test_ranges_and_identities():
    rng = np.random.default_rng(5)
    A, B = _random_pair(rng)
    assert kl_divergence(A, A) == 0.0
    assert cosine_distance(A, A) == pytest.approx(0.0, abs=1e-15)
    assert lp_distance(A, A) == 0.0
    assert disagreement(A, A) == 0.0
    # disjoint predictions: the largest distances
    one, other = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    assert cosine_distance(one, other) == 1.0
    assert lp_distance(one, other, p=1) == 2.0
    assert lp_distance(one, other) == pytest.approx(math.sqrt(2))
    assert kl_divergence(one, other) == math.inf  # b gives 0 to a's class
    assert kl_divergence(other, [[0.5, 0.5]]) == pytest.approx(math.log(2))
    # binary positive-class probabilities are the two-column case
    p, q = rng.random(20), rng.random(20)
    two = lambda v: np.column_stack([1 - v, v])  # noqa: E731
    for f in (disagreement, kl_divergence, cosine_distance, lp_distance):
        assert f(p, q) == pytest.approx(f(two(p), two(q)), rel=1e-14)
    y = rng.integers(0, 2, 20)
    assert double_fault(y, p, q) == double_fault(y, two(p), two(q))


@pytest.mark.parametrize("seed", range(4))
def test_average_pairwise_diversity_agrees_with_slow_loops(seed):
    rng = np.random.default_rng(seed)
    M, n, k = [2, 3, 5, 7][seed], 15, [2, 3, 4, 3][seed]
    P = rng.dirichlet(np.full(k, 0.8), size=(M, n))
    if seed == 3:  # ties in the argmax: rows drawn from a few with equal entries
        rows = np.array(
            [[0.4, 0.4, 0.2], [0.2, 0.4, 0.4], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.25, 0.25]]
        )
        P = rows[rng.integers(0, 4, (M, n))]
    y = rng.integers(0, k, n)
    res = average_pairwise_diversity(y, P, labels=np.arange(k))
    expected = slow.pairwise_diversity(y.tolist(), P.tolist())
    for name, value in expected.items():
        assert getattr(res, name) == pytest.approx(value, rel=1e-12, abs=1e-15), name
    # each pairwise function averaged over pairs gives the same
    pairs = list(itertools.combinations(range(M), 2))
    assert res.disagreement == pytest.approx(
        np.mean([disagreement(P[a], P[b]) for a, b in pairs]), rel=1e-12
    )
    assert res.lp_distance == pytest.approx(
        np.mean([lp_distance(P[a], P[b]) for a, b in pairs]), rel=1e-12
    )
    # the order of the members does not matter
    other = average_pairwise_diversity(y, P[rng.permutation(M)], labels=np.arange(k))
    for name in expected:
        assert getattr(other, name) == pytest.approx(getattr(res, name), rel=1e-12, abs=1e-15)


def test_average_pairwise_diversity_unpacks_as_its_five_measures():
    """Regression: the result was a Bunch, whose unpacking gave the measures' names."""
    rng = np.random.default_rng(11)
    P = rng.dirichlet(np.full(3, 0.8), size=(4, 25))
    y = rng.integers(0, 3, 25)
    res = average_pairwise_diversity(y, P, labels=np.arange(3))
    names = ("disagreement", "double_fault", "kl_divergence", "cosine_distance", "lp_distance")
    values = check_unpackable_result(res, PairwiseDiversityResult, names)
    expected = slow.pairwise_diversity(y.tolist(), P.tolist())
    assert values == pytest.approx(tuple(expected[name] for name in names), rel=1e-12)
    dis, df, kl, cos, lp = res
    assert len({dis, df, kl, cos, lp}) == 5  # distinct values: the order is checked


def test_variance_bound_agrees_with_slow_loops_and_zero_cases():
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(3), size=(6, 25))
    y = rng.integers(0, 3, 25)
    expected = slow.variance_bound(y, P.tolist())
    assert variance_bound(y, P, labels=[0, 1, 2]) == pytest.approx(expected, rel=1e-12)
    same = np.repeat(P[:1], 4, axis=0)
    assert variance_bound(y, same, labels=[0, 1, 2]) == 0.0
    # every member gives the observed label probability 0: that sample adds 0
    Z = np.array([[[1.0, 0.0]], [[1.0, 0.0]]])
    assert variance_bound([1], Z, labels=[0, 1]) == 0.0


def test_bad_input():
    A = np.full((3, 2), 0.5)
    with pytest.raises(ValueError, match="y_proba_a and y_proba_b have different shapes"):
        disagreement(A, np.full((4, 2), 0.5))
    with pytest.raises(ValueError, match="y_proba_b must be 1-D .* or 2-D"):
        kl_divergence(A, np.full((3, 2, 1, 2), 0.5))
    with pytest.raises(ValueError, match="y_proba_a is empty"):
        cosine_distance(np.zeros((0, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match=r"y_proba_b contains NaN"):
        lp_distance(A, [[0.5, 0.5], [np.nan, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="p"):
        lp_distance(A, A, p=0.5)
    with pytest.raises(ValueError, match="y_proba_a has 2 columns but labels has 3"):
        double_fault([0, 1, 0], A, A, labels=[0, 1, 2])
    with pytest.raises(ValueError, match="at least 2 members"):
        average_pairwise_diversity([0, 1, 0], A[None])
    with pytest.raises(ValueError, match="y_proba_members must be 3-D"):
        variance_bound([0, 1, 0], A.ravel())
