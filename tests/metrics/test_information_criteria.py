"""WAIC and ISCV: golden values, a slow loop implementation, weights, errors."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skcalib.metrics import (
    InformationCriterionResult,
    importance_sampling_cross_validation,
    negative_waic,
)

from ._result_checks import check_unpackable_result

# A 3 x 3 example (M = 3 members; with M = 2, waic2 and ISCV coincide).  The values of
# uncertainty_metrics 0.0.82 below come from running its
# ``uncertainty_metrics/tensorflow/information_criteria.py`` (``negative_waic``,
# ``importance_sampling_cross_validation``) on this input.
LOGP = np.log(np.array([[0.5, 0.25, 0.4], [0.1, 0.3, 0.2], [0.9, 0.6, 0.8]]))


def test_golden_values_uncertainty_metrics_example():
    # waic2 and ISCV are uncertainty_metrics' values; waic1 uses the 1/(M-1) variance of
    # its documentation (its code's 1/M gives -1.050737481143396, see the next test)
    assert negative_waic(LOGP).value == pytest.approx(-1.103774317638418, abs=1e-14)
    assert negative_waic(LOGP, waic_type="waic2").value == pytest.approx(
        -1.04446014163467, abs=1e-14
    )
    assert importance_sampling_cross_validation(LOGP).value == pytest.approx(
        -1.0487216660069223, abs=1e-14
    )


def test_waic1_library_variance_relation():
    # uncertainty_metrics' waic1 (population variance, 1/M) is -1.050737481143396; ours
    # (1/(M-1), as its documentation states) differs by exactly mean_i Var_i / (M - 1)
    M = LOGP.shape[1]
    var0 = LOGP.var(axis=1)
    ours = negative_waic(LOGP).value
    assert ours == pytest.approx(-1.050737481143396 - np.mean(var0) / (M - 1), abs=1e-14)


def _slow(L, kind, w=None):
    """Obviously-correct loops with math.log/math.exp."""
    n, M = len(L), len(L[0])
    t = []
    for i in range(n):
        row = [float(v) for v in L[i]]
        lppd = math.log(sum(math.exp(v) for v in row) / M)
        mean = sum(row) / M
        if kind == "waic1":
            var = sum((v - mean) ** 2 for v in row) / (M - 1)
            t.append(lppd - var)
        elif kind == "waic2":
            t.append(2 * mean - lppd)
        else:
            t.append(-math.log(sum(math.exp(-v) for v in row) / M))
    w = [1.0] * n if w is None else [float(v) for v in w]
    W = sum(w)
    W2 = sum(wi * wi for wi in w)
    value = sum(wi * ti for wi, ti in zip(w, t, strict=True)) / W
    # reliability weights: unbiased variance, Kish's effective sample size W^2 / W2
    var = sum(wi * (ti - value) ** 2 for wi, ti in zip(w, t, strict=True)) / (W - W2 / W)
    return value, math.sqrt(var / (W * W / W2)), t


def _compute(L, kind, w=None):
    if kind == "iscv":
        return importance_sampling_cross_validation(L, sample_weight=w)
    return negative_waic(L, waic_type=kind, sample_weight=w)


@pytest.mark.parametrize("kind", ["waic1", "waic2", "iscv"])
@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_slow_loops(kind, seed):
    rng = np.random.RandomState(seed)
    n, M = rng.randint(2, 40), rng.randint(2, 12)
    L = np.log(rng.dirichlet(np.ones(3), size=(n, M))[..., 0])
    res = _compute(L, kind)
    value, sem, t = _slow(L, kind)
    assert res.value == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert res.sem == pytest.approx(sem, rel=1e-10)
    assert_allclose(res.pointwise, t, rtol=1e-12, atol=1e-12)
    w = rng.randint(0, 4, n).astype(float)
    w[0] = 2.0
    res_w = _compute(L, kind, w)
    value_w, sem_w, _ = _slow(L, kind, w)
    assert res_w.value == pytest.approx(value_w, rel=1e-12, abs=1e-12)
    assert res_w.sem == pytest.approx(sem_w, rel=1e-10)


@pytest.mark.parametrize("kind", ["waic1", "waic2", "iscv"])
def test_unpacks_as_value_sem(kind):
    """Regression: the result was a Bunch: ``value, sem = negative_waic(L)`` raised
    "too many values to unpack" (three keys)."""
    res = _compute(LOGP, kind)
    value, sem = res
    want_value, want_sem, t = _slow(LOGP, kind)
    assert value == pytest.approx(want_value, rel=1e-12)
    assert sem == pytest.approx(want_sem, rel=1e-10)
    assert value != sem
    check_unpackable_result(res, InformationCriterionResult, ("value", "sem"))
    assert_allclose(res.pointwise, t, rtol=1e-12)  # an attribute, not unpacked


@pytest.mark.parametrize("kind", ["waic1", "waic2", "iscv"])
def test_sample_weight_value_is_repetition_and_zero_is_removal(kind):
    rng = np.random.RandomState(0)
    L = rng.normal(-1, 0.5, size=(12, 5))
    w = rng.randint(0, 4, 12)
    w[:2] = [0, 3]
    weighted = _compute(L, kind, w)
    repeated = _compute(np.repeat(L, w, axis=0), kind)
    assert weighted.value == pytest.approx(repeated.value, rel=1e-13)
    # the sem treats weights as relative importances (Kish's n_eff), not frequencies
    kept = w > 0
    removed = _compute(L[kept], kind, w[kept])
    assert weighted.value == pytest.approx(removed.value, rel=1e-14)
    assert weighted.sem == pytest.approx(removed.sem, rel=1e-14)


@pytest.mark.parametrize("kind", ["waic1", "waic2", "iscv"])
@pytest.mark.parametrize("n", [2, 3, 12])
def test_equal_weights_give_the_unweighted_result_exactly(kind, n):
    # normalised weights (sum 1, or even sum < 1) used to give sem = NaN
    L = np.random.RandomState(n).normal(-1, 0.5, size=(n, 4))
    plain = _compute(L, kind)
    for c in (1 / n, 0.1 / n, 1.0, 3.0, 1e140):
        res = _compute(L, kind, np.full(n, c))
        assert res.value == plain.value
        assert res.sem == plain.sem
        assert np.isfinite(res.sem)


@pytest.mark.parametrize("kind", ["waic1", "waic2", "iscv"])
def test_rescaling_the_weights_changes_nothing(kind):
    rng = np.random.RandomState(1)
    L = rng.normal(-1, 0.5, size=(15, 4))
    w = rng.uniform(0, 2, 15)
    w[3] = 0.0
    ref = _compute(L, kind, w)
    assert np.isfinite(ref.sem)
    for c in (1 / w.sum(), 1e-3, 7.0, 1e140):
        res = _compute(L, kind, c * w)
        assert res.value == pytest.approx(ref.value, rel=1e-13)
        assert res.sem == pytest.approx(ref.sem, rel=1e-12)


def test_weighted_sem_is_nan_only_for_a_single_weighted_sample():
    assert np.isnan(negative_waic(LOGP, sample_weight=[0, 0.5, 0]).sem)
    assert np.isfinite(negative_waic(LOGP, sample_weight=[0, 0.5, 0.25]).sem)


def test_two_members_waic2_equals_iscv():
    # for M = 2 both are the log of the harmonic mean of the two likelihoods
    rng = np.random.RandomState(3)
    L = rng.normal(-1, 1, size=(20, 2))
    assert negative_waic(L, waic_type="waic2").value == pytest.approx(
        importance_sampling_cross_validation(L).value, rel=1e-12
    )


def test_identical_members_give_the_log_likelihood():
    L = np.tile(np.log([0.2, 0.5, 0.9])[:, None], (1, 4))
    expected = np.mean(np.log([0.2, 0.5, 0.9]))
    for kind in ("waic1", "waic2", "iscv"):
        assert _compute(L, kind).value == pytest.approx(expected, rel=1e-14)


def test_estimates_held_out_density_hierarchical_normal():
    # uncertainty_metrics' statistical test (PredictiveCriteriaTest.test_criterion in
    # uncertainty_metrics/tensorflow/information_criteria_test.py), smaller and seeded:
    # the criteria estimate the held-out log-likelihood better than the training
    # log-likelihood does.
    rng = np.random.RandomState(0)
    mu0, s0, s, reps, n, M = 0.0, 1.0, 0.5, 150, 20, 200
    opt, train, crit = [], [], {"waic1": [], "waic2": [], "iscv": []}
    for _ in range(reps):
        mu = rng.normal(mu0, s0)
        x = rng.normal(mu, s, n)
        var_n = 1 / (n / s**2 + 1 / s0**2)
        mu_n = var_n * (mu0 / s0**2 + x.sum() / s**2)
        draws = rng.normal(mu_n, np.sqrt(var_n), M)
        L = -0.5 * np.log(2 * np.pi * s**2) - (x[:, None] - draws[None, :]) ** 2 / (2 * s**2)
        # exact expected held-out log density of N(mu_n, var_n + s^2) under N(mu, s^2)
        v = var_n + s**2
        opt.append(-0.5 * np.log(2 * np.pi * v) - (s**2 + (mu - mu_n) ** 2) / (2 * v))
        train.append(L.mean())
        for kind in crit:
            crit[kind].append(_compute(L, kind).value)
    opt, train = np.mean(opt), np.mean(train)
    assert opt < train
    for kind, values in crit.items():
        assert abs(opt - np.mean(values)) < abs(opt - train), kind


def test_sem_single_sample_is_nan_and_pointwise_shape():
    res = negative_waic(LOGP[:1])
    assert np.isnan(res.sem)
    assert res.pointwise.shape == (1,)
    res = importance_sampling_cross_validation(LOGP)
    assert res.pointwise.shape == (3,)
    assert res.sem == pytest.approx(np.std(res.pointwise, ddof=1) / np.sqrt(3), rel=1e-14)


def test_inputs_not_modified_and_lists_accepted():
    L = LOGP.copy()
    negative_waic(L)
    importance_sampling_cross_validation(L)
    assert np.array_equal(L, LOGP)
    assert negative_waic(LOGP.tolist()).value == negative_waic(LOGP).value


@pytest.mark.parametrize(
    "log_lik, match",
    [
        (np.zeros(3), "2-D"),
        (np.zeros((2, 2, 2)), "2-D"),
        (np.zeros((0, 3)), "empty"),
        (np.array([[0.0, np.nan]]), "NaN or infinity"),
        (np.array([[0.0, -np.inf]]), "NaN or infinity"),
        (np.array([["a", "b"]]), "numbers"),
    ],
)
def test_bad_log_lik(log_lik, match):
    for func in (negative_waic, importance_sampling_cross_validation):
        with pytest.raises(ValueError, match=match):
            func(log_lik)


def test_other_errors():
    with pytest.raises(ValueError, match="at least 2 members"):
        negative_waic(np.zeros((3, 1)))
    assert negative_waic(np.zeros((3, 1)), waic_type="waic2").value == 0.0
    with pytest.raises(ValueError, match="waic_type"):
        negative_waic(LOGP, waic_type="waic3")
    with pytest.raises(ValueError, match="sample_weight"):
        negative_waic(LOGP, sample_weight=[1, 2])
    with pytest.raises(ValueError, match="sample_weight"):
        importance_sampling_cross_validation(LOGP, sample_weight=[1, -1, 1])
