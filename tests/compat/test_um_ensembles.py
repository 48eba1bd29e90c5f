"""skcalib.compat.uncertainty_metrics: the ensemble functions of uncertainty_metrics 0.0.82.

The values come from running ``uncertainty_metrics/tensorflow/information_criteria.py``
and ``uncertainty_metrics/tensorflow/diversity.py`` of version 0.0.82 on these inputs,
and from its ``diversity_test.py`` (testVarianceBound).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import softmax

import skcalib.metrics as M
from skcalib.compat import uncertainty_metrics as um

LOGP = np.log(np.array([[0.5, 0.25, 0.4], [0.1, 0.3, 0.2], [0.9, 0.6, 0.8]]))
L1 = np.array([[1, 2, 3], [3, 2, 1], [0, 0, 1]], dtype=float)
L2 = np.array([[3, 2, 1], [3, 1, 2], [1, 0, 0]], dtype=float)
Y = [2, 0, 1]
# the reference test's probabilities: two rows do not sum to 1 ([0, .6, .3], [.5, .1, .1])
VB_PROBS = [
    [[0.5, 0.4, 0.1], [0.1, 0.1, 0.8]],
    [[0.3, 0.3, 0.4], [0.1, 0.0, 0.9]],
    [[0.8, 0.1, 0.1], [0.0, 0.6, 0.3]],
    [[0.5, 0.1, 0.1], [0.1, 0.2, 0.7]],
]


def test_information_criteria_reproduce_the_reference():
    value, sem = um.negative_waic(LOGP)
    assert value == pytest.approx(-1.050737481143396, abs=1e-14)
    assert sem == pytest.approx(0.3583986759303859, abs=1e-14)
    value, sem = um.negative_waic(LOGP, waic_type="waic2")
    assert value == pytest.approx(-1.04446014163467, abs=1e-14)
    assert sem == pytest.approx(0.3553008176934281, abs=1e-14)
    value, sem = um.importance_sampling_cross_validation(LOGP)
    assert value == pytest.approx(-1.0487216660069223, abs=1e-14)
    assert sem == pytest.approx(0.3572205340521658, abs=1e-14)
    # the reference's sem divides the variance (ddof=0) by the number of members (3 here)
    # where skcalib's divides the unbiased variance by the number of samples (5 here)
    L = np.log(np.random.default_rng(0).uniform(0.05, 1, (5, 3)))
    t = M.importance_sampling_cross_validation(L).pointwise
    assert um.importance_sampling_cross_validation(L)[1] == pytest.approx(
        np.sqrt(np.var(np.log(3) - t) / 3), rel=1e-13
    )
    assert M.importance_sampling_cross_validation(L).sem == pytest.approx(
        np.std(t, ddof=1) / np.sqrt(5), rel=1e-13
    )
    # trailing batch axes reduce like the reference
    batch = np.stack([LOGP, LOGP], axis=-1)
    assert_allclose(um.negative_waic(batch)[0], [-1.050737481143396] * 2, rtol=1e-14)


def test_cross_entropies_and_model_uncertainty_from_logits():
    logits = [[[1, 0, 0], [0, 1, 2]], [[0, 2, 0], [1, 1, 1]]]
    assert um.ensemble_cross_entropy([0, 2], logits) == pytest.approx(0.8847661862, abs=1e-10)
    assert_allclose(
        um.ensemble_cross_entropy([0, 2], logits, aggregate=False),
        [1.0749584637, 0.6945739087],
        atol=1e-10,
    )
    assert um.gibbs_cross_entropy([0, 2], logits) == pytest.approx(1.0743019333, abs=1e-10)
    assert_allclose(
        um.gibbs_cross_entropy([0, 2], logits, aggregate=False),
        [1.3954947401, 0.7531091266],
        atol=1e-10,
    )
    binary = [[0.5, -1.0], [2.0, 0.0]]
    assert um.ensemble_cross_entropy([1.0, 0.0], binary, binary=True) == pytest.approx(
        0.3853931172, abs=1e-10
    )
    assert um.gibbs_cross_entropy([1.0, 0.0], binary, binary=True) == pytest.approx(
        0.4018534658, abs=1e-10
    )
    model, total, data = um.model_uncertainty([[[1, 0, 0], [0, 1, 0]], [[2, 2, 2], [2, 2, 2]]])
    assert_allclose(model, [0.0874304123, 0.0], atol=1e-10)
    assert_allclose(total, [1.0627582415, 1.0986122887], atol=1e-10)
    assert_allclose(data, [0.9753278292, 1.0986122887], atol=1e-10)
    with pytest.raises(ValueError, match="rank 3"):
        um.model_uncertainty(np.zeros((2, 3, 4, 5)))
    # the same numbers as skcalib.metrics on the softmax probabilities
    P = softmax(np.array(logits, dtype=float), axis=-1)
    assert M.ensemble_cross_entropy([0, 2], P, labels=[0, 1, 2]) == pytest.approx(
        um.ensemble_cross_entropy([0, 2], logits), rel=1e-13
    )


def test_diversity_reproduces_the_reference():
    assert um.disagreement(L1, L2) == pytest.approx(2 / 3)
    assert um.double_fault(L1, L2, Y) == 1.0  # P(2 wrong | 1 wrong)
    assert M.double_fault(Y, softmax(L1, 1), softmax(L2, 1)) == pytest.approx(1 / 3)
    assert um.logit_kl_divergence(L1, L2) == pytest.approx(0.5564313301, abs=1e-10)
    assert_allclose(
        um.kl_divergence(softmax(L1, 1), softmax(L2, 1)),
        [1.1504207652, 0.1546978979, 0.3641753271],
        atol=1e-10,
    )
    assert um.lp_distance(L1, L2) == pytest.approx(2.6666666667, abs=1e-10)
    assert um.lp_distance(L1, L2, p=2) == pytest.approx(1.8856180832, abs=1e-10)
    assert um.cosine_distance(L1, L2) == pytest.approx(0.5476190476, abs=1e-10)
    # skcalib's cosine distance is one minus the similarity (on probabilities)
    P1, P2 = softmax(L1, 1), softmax(L2, 1)
    assert M.cosine_distance(P1, P2) == pytest.approx(1 - um.cosine_distance(P1, P2), rel=1e-13)


def test_variance_bound_and_average_pairwise_diversity():
    assert um.variance_bound(VB_PROBS, [0, 2], 4) == 0.028461974344135804
    # the reference test's expectation (mean 0.52 instead of 0.525), within its atol
    assert um.variance_bound(VB_PROBS, [0, 2], 4) == pytest.approx(0.02847173996913581, abs=1e-5)
    with pytest.raises(ValueError, match="num_models=3"):
        um.variance_bound(VB_PROBS, [0, 2], 3)
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(5), size=(3, 2))  # the reference test's shapes: M=3, (2, 5)
    d = um.average_pairwise_diversity(P, 3)
    assert set(d) == {"disagreement", "average_kl", "cosine_similarity"}
    ours = M.average_pairwise_diversity([0, 1], P, labels=range(5))
    assert d["disagreement"] == pytest.approx(ours.disagreement)
    assert d["cosine_similarity"] == pytest.approx(1 - ours.cosine_distance, rel=1e-12)
    pairs = [(0, 1), (0, 2), (1, 2)]
    assert d["average_kl"] == pytest.approx(
        np.mean([M.kl_divergence(P[i], P[j]) for i, j in pairs]), rel=1e-12
    )
    # one direction only: the reference's KL depends on the order of the members
    assert um.average_pairwise_diversity(P[::-1], 3)["average_kl"] != pytest.approx(
        d["average_kl"], rel=1e-6
    )
    half = um.average_pairwise_diversity(P, 3, error=0.5)["disagreement"]
    assert half == pytest.approx(d["disagreement"] / (0.5 + 1e-7))
    with pytest.raises(ValueError, match="num_models"):
        um.average_pairwise_diversity(P, 4)


def test_reference_nans_are_errors():
    with pytest.raises(ValueError, match="member 1 makes no mistake"):
        um.double_fault([[0, 1], [1, 0]], [[1, 0], [1, 0]], [1, 0])
    with pytest.raises(ValueError, match="clip=True"):
        um.kl_divergence([[1.0, 0.0]], [[0.5, 0.5]])
    assert um.kl_divergence([[1.0, 0.0]], [[0.5, 0.5]], clip=True)[0] == pytest.approx(
        np.log(2) + 1e-7 * np.log(2e-7), abs=1e-12
    )
    with pytest.raises(ValueError, match="waic_type"):
        um.negative_waic(LOGP, waic_type="waic3")
    with pytest.raises(ValueError, match="logp contains NaN"):
        um.importance_sampling_cross_validation([[0.0, np.nan]])
    with pytest.raises(ValueError, match="zero vector"):
        um.cosine_distance([[0.0, 0.0]], [[1.0, 0.0]])
