"""Uncertainty decomposition and cross-entropies of ensembles."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import integrate
from scipy.special import expit, softmax
from scipy.stats import beta

from skcalib.metrics import (
    UncertaintyDecompositionResult,
    ensemble_cross_entropy,
    gibbs_cross_entropy,
    knowledge_uncertainty,
    model_uncertainty,
)

from . import _slow_ensembles as slow
from ._result_checks import check_unpackable_result

# uncertainty_metrics 0.0.82, ``uncertainty_metrics/tensorflow/information_criteria.py``
# (ensemble axis first for the cross-entropies, second for model_uncertainty): values of
# ``ensemble_cross_entropy``/``gibbs_cross_entropy``/``model_uncertainty`` on these
# logits; skcalib takes the probabilities (softmax of the logits), members first.
CE_LOGITS = np.array([[[1, 0, 0], [0, 1, 2]], [[0, 2, 0], [1, 1, 1]]], dtype=float)  # (M, N, K)
CE_LABELS = [0, 2]
MU_LOGITS = np.array([[[1, 0, 0], [0, 1, 0]], [[2, 2, 2], [2, 2, 2]]], dtype=float)  # (N, M, K)


def test_cross_entropies_golden_values():
    P = softmax(CE_LOGITS, axis=-1)
    # class 1 does not occur in CE_LABELS: the classes (columns) are given
    assert ensemble_cross_entropy(CE_LABELS, P, labels=[0, 1, 2]) == pytest.approx(
        0.8847661862, abs=1e-10
    )
    assert gibbs_cross_entropy(CE_LABELS, P, labels=[0, 1, 2]) == pytest.approx(
        1.0743019333, abs=1e-10
    )
    with pytest.raises(ValueError, match="has 3 columns but y_true has 2 classes.*labels="):
        ensemble_cross_entropy(CE_LABELS, P)
    # binary (sigmoid) members: positive-class probabilities of shape (M, N)
    p = expit(np.array([[0.5, -1.0], [2.0, 0.0]]))
    assert ensemble_cross_entropy([1, 0], p) == pytest.approx(0.3853931172, abs=1e-10)
    assert gibbs_cross_entropy([1, 0], p) == pytest.approx(0.4018534658, abs=1e-10)


def test_model_uncertainty_golden_values():
    u = model_uncertainty(softmax(MU_LOGITS, axis=-1).transpose(1, 0, 2))
    assert_allclose(u.model, [0.0874304123, 0.0], atol=1e-10)
    assert_allclose(u.total, [1.0627582415, 1.0986122887], atol=1e-10)
    assert_allclose(u.data, [0.9753278292, 1.0986122887], atol=1e-10)
    assert u.model[1] == 0.0  # identical members: exactly 0


def test_model_uncertainty_agrees_with_slow_loops_and_clipped_reference():
    # as the reference test of uncertainty_metrics: 32 members of 10 classes
    rng = np.random.default_rng(42)
    P = softmax(rng.standard_normal((32, 64, 10)), axis=-1)
    u = model_uncertainty(P)
    total, data, model = slow.model_uncertainty(P.tolist())
    assert_allclose(u.total, total, rtol=1e-12)
    assert_allclose(u.data, data, rtol=1e-12)
    assert_allclose(u.model, model, rtol=1e-9, atol=1e-14)
    assert_allclose(u.total, u.data + u.model, rtol=1e-12)
    # the reference's formula on probabilities clipped to [1e-6, 1 - 1e-6], within 1e-6
    Pc = np.clip(P, 1e-6, 1 - 1e-6)
    ref_total = -(Pc.mean(0) * np.log(Pc.mean(0))).sum(-1)
    ref_data = -(Pc * np.log(Pc)).sum(-1).mean(0)
    assert_allclose(u.total, ref_total, atol=1e-6)
    assert_allclose(u.data, ref_data, atol=1e-6)


def test_model_uncertainty_unpacks_as_total_data_model():
    """Regression: the result was a Bunch: ``total, data, model = model_uncertainty(P)``
    bound the strings "total", "data" and "model"."""
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(4) * 0.5, size=(5, 20))
    res = model_uncertainty(P)
    total, data, model = res
    want_total, want_data, want_model = slow.model_uncertainty(P.tolist())
    assert_allclose(total, want_total, rtol=1e-12)
    assert_allclose(data, want_data, rtol=1e-12)
    assert_allclose(model, want_model, rtol=1e-9, atol=1e-14)
    assert (model > 0).all() and (data > model).any()  # the order is visible
    check_unpackable_result(res, UncertaintyDecompositionResult, ("total", "data", "model"))


def test_knowledge_uncertainty_unpacks_as_total_data_model():
    alpha = np.array([[1.0, 1.0], [2.5, 0.7], [30.0, 10.0]])
    res = knowledge_uncertainty(alpha)
    total, data, model = res
    p = alpha / alpha.sum(1, keepdims=True)
    assert_allclose(total, -(p * np.log(p)).sum(1), rtol=1e-13)
    assert_allclose(data, [_beta_expected_entropy(a, b) for a, b in alpha], rtol=1e-8)
    assert_allclose(model, total - data, atol=1e-15)
    check_unpackable_result(res, UncertaintyDecompositionResult, ("total", "data", "model"))


def test_mutual_information_nonnegative_zero_when_members_agree_and_order_free():
    rng = np.random.default_rng(0)
    for _ in range(20):
        P = rng.dirichlet(rng.uniform(0.05, 3, 4), size=(6, 30))
        u = model_uncertainty(P)
        assert np.all(u.model >= 0)
        v = model_uncertainty(P[rng.permutation(6)])
        assert_allclose(v.model, u.model, rtol=1e-12, atol=1e-15)
        assert_allclose(v.total, u.total, rtol=1e-12)
    same = np.repeat(rng.dirichlet(np.ones(3), size=(1, 25)), 5, axis=0)
    u = model_uncertainty(same)
    assert np.all(u.model == 0)
    assert_allclose(u.total, u.data, rtol=1e-14)
    # zero probabilities: 0 log 0 = 0
    u = model_uncertainty([[[1.0, 0.0]], [[0.0, 1.0]]])
    assert_allclose([u.total[0], u.data[0], u.model[0]], [math.log(2), 0.0, math.log(2)])


def test_model_uncertainty_refuses_one_models_output():
    # the (n_samples, n_classes) output of one model used to be read as n_classes binary
    # members of n_samples each, and gave numbers without meaning
    P = np.array([[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]])
    with pytest.raises(
        ValueError,
        match=r"model_uncertainty: y_proba_members must be 3-D of shape \(n_members, "
        r"n_samples, n_classes\).*got a 2-D array of shape \(4, 3\).*pass binary=True",
    ):
        model_uncertainty(P)
    with pytest.raises(ValueError, match="must be 3-D"):
        model_uncertainty(P.tolist())
    with pytest.raises(ValueError, match="must be 3-D"):
        model_uncertainty([[0.1, 0.5], [0.9, 0.5]])  # 2-D binary members, not declared
    # one model as a one-member ensemble: no model uncertainty, total = data
    u = model_uncertainty(P[None])
    assert_array_equal(u.model, np.zeros(4))
    assert_array_equal(u.total, u.data)
    # binary members declared: the positive-class probabilities of 2 members
    p = np.array([[0.1, 0.5], [0.9, 0.5]])
    u = model_uncertainty(p, binary=True)
    v = model_uncertainty(np.stack([1 - p, p], axis=-1))
    assert_allclose(u.model, [0.3680642071, 0.0], atol=1e-10)
    for key in ("total", "data", "model"):
        assert_array_equal(getattr(u, key), getattr(v, key))
    with pytest.raises(ValueError, match=r"binary=True expects y_proba_members of shape "):
        model_uncertainty(np.stack([1 - p, p], axis=-1), binary=True)
    with pytest.raises(ValueError, match="binary"):
        model_uncertainty(p, binary="yes")


def test_ensemble_cross_entropy_at_most_gibbs_jensen():
    rng = np.random.default_rng(1)
    for seed in range(30):
        M, n, k = rng.integers(2, 8), rng.integers(1, 40), rng.integers(2, 6)
        P = rng.dirichlet(np.full(k, 0.5), size=(M, n))
        y = rng.integers(0, k, n)
        w = rng.uniform(0, 2, n)
        ens = ensemble_cross_entropy(y, P, labels=np.arange(k), sample_weight=w)
        gibbs = gibbs_cross_entropy(y, P, labels=np.arange(k), sample_weight=w)
        assert ens <= gibbs + 1e-12, seed
        # slow loops
        q = P[:, np.arange(n), y]
        e = sum(wi * -math.log(sum(q[:, i]) / M) for i, wi in enumerate(w)) / w.sum()
        g = sum(wi * -sum(math.log(v) for v in q[:, i]) / M for i, wi in enumerate(w)) / w.sum()
        assert ens == pytest.approx(e, rel=1e-12)
        assert gibbs == pytest.approx(g, rel=1e-12)


def test_cross_entropy_eps_clipping():
    P = np.array([[[1.0, 0.0]], [[0.5, 0.5]]])
    eps = np.finfo(np.float64).eps
    assert gibbs_cross_entropy([1], P, labels=[0, 1]) == pytest.approx(
        -(math.log(eps) + math.log(0.5)) / 2
    )
    assert ensemble_cross_entropy([1], P, labels=[0, 1]) == pytest.approx(
        -math.log((eps + 0.5) / 2)
    )
    assert gibbs_cross_entropy([1], P, labels=[0, 1], eps=0) == math.inf
    assert ensemble_cross_entropy([1], P, labels=[0, 1], eps=0) == pytest.approx(math.log(4))
    assert ensemble_cross_entropy([1], [[[1.0, 0.0]]], labels=[0, 1], eps=0) == math.inf
    assert gibbs_cross_entropy([1], P, labels=[0, 1], eps=0.1) == pytest.approx(-math.log(0.05) / 2)


def test_string_labels_and_labels_order():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(3), size=(4, 20))
    y = rng.integers(0, 3, 20)
    names = np.array(["cat", "ant", "bee"])  # columns in this order
    ref = ensemble_cross_entropy(y, P, labels=[0, 1, 2])
    assert ensemble_cross_entropy(names[y], P, labels=names) == ref
    assert gibbs_cross_entropy(names[y], P, labels=names) == gibbs_cross_entropy(y, P)
    with pytest.raises(ValueError, match="not in labels"):
        ensemble_cross_entropy(["dog"] * 20, P, labels=names)


def _beta_expected_entropy(a, b):
    """E[H(pi)] of pi ~ Beta(a, b) by numerical integration (independent of digamma)."""

    def f(p):
        return -(p * math.log(p) + (1 - p) * math.log(1 - p)) * beta.pdf(p, a, b)

    return integrate.quad(f, 0, 1, limit=200, epsabs=1e-13, epsrel=1e-11)[0]


def test_knowledge_uncertainty_against_numerical_integration():
    alpha = np.array([[1.0, 1.0], [2.5, 0.7], [30.0, 10.0], [1.5, 4.0]])
    u = knowledge_uncertainty(alpha)
    data = [_beta_expected_entropy(a, b) for a, b in alpha]
    assert_allclose(u.data, data, rtol=1e-8)
    p = alpha / alpha.sum(1, keepdims=True)
    assert_allclose(u.total, -(p * np.log(p)).sum(1), rtol=1e-13)
    assert_allclose(u.model, u.total - u.data, atol=1e-15)
    assert u.data[0] == pytest.approx(0.5, rel=1e-14)  # E[H] of the uniform Beta(1, 1)


def test_knowledge_uncertainty_monte_carlo_three_classes_and_limits():
    rng = np.random.default_rng(0)
    alpha = np.array([[0.5, 1.0, 2.0]])
    pi = rng.dirichlet(alpha[0], size=400_000)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.nansum(pi * np.log(pi), axis=1)
    u = knowledge_uncertainty(alpha)
    assert u.data[0] == pytest.approx(h.mean(), abs=4 * h.std() / math.sqrt(len(h)))
    # a sharp Dirichlet knows: the mutual information vanishes as alpha_0 grows
    sharp = knowledge_uncertainty([[1e4, 2e4], [1e7, 2e7]])
    assert sharp.model[1] < sharp.model[0] < 1e-4
    assert np.all(sharp.model >= 0)
    # the same decomposition as model_uncertainty with the Dirichlet's draws as members
    members = rng.dirichlet([3.0, 2.0, 4.0], size=(200_000, 1))
    mc = model_uncertainty(members)
    exact = knowledge_uncertainty([[3.0, 2.0, 4.0]])
    assert mc.model[0] == pytest.approx(exact.model[0], rel=0.02)


@pytest.mark.parametrize(
    "alpha, match",
    [
        ([[1.0, 0.0]], r"alpha must be strictly positive; alpha\[0, 1\] = 0\.0"),
        ([[1.0, -2.0]], "alpha must be strictly positive"),
        ([[1.0, np.nan]], "alpha contains NaN"),
        ([[1.0, np.inf]], "alpha contains infinity"),
        ([1.0, 2.0], "alpha must be 2-D"),
        ([[1.0]], "at least 2 classes"),
        (np.zeros((0, 3)), "alpha is empty"),
        ([["a", "b"]], "alpha must contain real numbers"),
    ],
)
def test_knowledge_uncertainty_bad_input(alpha, match):
    with pytest.raises(ValueError, match=match):
        knowledge_uncertainty(alpha)


@pytest.mark.parametrize(
    "members, n, match",
    [
        (np.full((2, 3), 0.5)[None, None], 2, "must be 3-D"),
        (np.full(3, 0.5), 3, "must be 3-D"),
        (np.zeros((0, 3, 2)), 3, "no members"),
        (np.zeros((2, 0, 2)), 1, "empty"),
        (np.ones((2, 3, 1)), 3, "at least 2 classes"),
        ([np.full((3, 2), 0.5), np.full((4, 2), 0.5)], 3, "different shapes"),
        (np.array([[[0.5, 0.5]], [[np.nan, 0.5]]]), 1, r"y_proba_members\[1\] contains NaN"),
        (np.array([[[0.5, 0.5]], [[0.7, 0.5]]]), 1, r"y_proba_members\[1\] rows must sum to 1"),
        (np.array([[0.5, 1.5]]), 2, r"y_proba_members must contain probabilities in \[0, 1\]"),
        (np.array([[0.5, np.inf]]), 2, "y_proba_members contains infinity"),
        (np.full((2, 3, 2), 0.5), 4, "different numbers of samples: 4 and 3"),
    ],
)
def test_member_input_errors(members, n, match):
    if "numbers of samples" not in match:
        # 2-D arrays: the positive-class probabilities of binary members
        binary = isinstance(members, np.ndarray) and members.ndim == 2
        with pytest.raises(ValueError, match=match):
            model_uncertainty(members, binary=binary)
    for metric in (gibbs_cross_entropy, ensemble_cross_entropy):
        with pytest.raises(ValueError, match=match):
            metric([0] * n, members)


def test_inputs_not_modified_and_float32():
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(3), size=(3, 10))
    copy = P.copy()
    P.setflags(write=False)
    u = model_uncertainty(P)
    np.testing.assert_array_equal(P, copy)
    u32 = model_uncertainty(P.astype(np.float32))
    assert_allclose(u32.total, u.total, rtol=1e-5)
