"""PSIS-LOO: ArviZ golden values, a slow loop implementation, exact LOO, bad input."""

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm

from skcalib.metrics import (
    InformationCriterionResult,
    PSISLOOResult,
    PSISWarning,
    importance_sampling_cross_validation,
    negative_waic,
    psis_loo,
)

from . import _slow_ensembles as slow
from ._result_checks import check_unpackable_result


def _cases():
    """The inputs of the golden values (numpy's PCG64 streams are reproducible)."""
    out = {}
    # Normal model: posterior draws of the mean, S = 200 draws, n = 12
    rng = np.random.default_rng(20261123)
    y = rng.normal(0.3, 1.0, 12)
    mu = rng.normal(y.mean(), 1 / np.sqrt(12), 200)
    out["normal"] = (-0.5 * (y[:, None] - mu) ** 2 - 0.5 * np.log(2 * np.pi), 1.0)
    # an outlier and a narrow likelihood: heavy tails, k > 0.7 for 8 samples
    rng = np.random.default_rng(7)
    y = np.concatenate([rng.normal(0, 1, 9), [6.0]])
    mu = rng.normal(y.mean(), 0.25, 100)
    s = 0.5
    out["outlier"] = (-0.5 * ((y[:, None] - mu) / s) ** 2 - np.log(s * np.sqrt(2 * np.pi)), 1.0)
    # r_eff < 1 (a longer tail), S = 150
    rng = np.random.default_rng(11)
    out["r_eff"] = (rng.normal(-1.0, 0.7, (8, 150)), 0.6)
    # ties: log-likelihoods rounded to 0.1 (members with repeated outputs)
    rng = np.random.default_rng(3)
    out["ties"] = (np.round(rng.normal(-1.0, 0.8, (8, 120)), 1), 1.0)
    return out


# ArviZ 0.23.4 (numpy 2.4.6), ``arviz.loo(idata, pointwise=True, reff=r_eff)`` with
# ``idata = arviz.from_dict(log_likelihood={"y": log_lik.T[None]})`` (one chain):
# elpd_loo, se, loo_i and pareto_k.
ARVIZ = {
    "normal": (
        -21.39411912808421,
        4.427297889508645,
        [-0.9990224827957723, -5.654131000056149, -0.9689444649977199, -1.7680369925928687,
         -1.2257907406154018, -1.1039077359118723, -1.6039639338804275, -1.8383396963218503,
         -1.1555414757314058, -1.1007185726636282, -2.8788906313497327, -1.0968314011673774],
        [0.21435532958414727, 0.2847096960353654, 0.09980972877628147, 0.20845342748696058,
         0.08801269503711687, 0.17721351831853732, 0.19893095948586456, 0.12130680147427902,
         0.08595592949459212, 0.17729695169017368, 0.2668702421700236, 0.17741400864019283],
    ),
    "outlier": (
        -90.2799143327201,
        64.63446435761115,
        [-0.7666616998007196, -0.3733874912060511, -1.5184028591693872, -4.53414882731925,
         -2.2115718830632956, -5.202691895117535, -0.6539959005583098, -2.4654630232264765,
         -2.3755269824081537, -70.17806377085091],
        [0.7761360269576552, 0.5655268304738648, 0.8366411070649991, 1.0076137964599297,
         0.8836863703327362, 1.0374859018226135, 0.766376973775237, 0.33575253091111856,
         0.8938937953075516, 1.576148485258433],
    ),
    "r_eff": (
        -9.936216385876854,
        0.11545864099695324,
        [-1.2162902744897783, -1.178902437432705, -1.2299323400618594, -1.2660274929242838,
         -1.2223104755577339, -1.2607258318115289, -1.3267465792201092, -1.2352809543788545],
        [-0.06031914464414738, 0.1088237183657623, 0.45966387125289765, 0.2686664447167226,
         0.22657446046867893, 0.20526531187015246, 0.4252992038569408, 0.3162460598397571],
    ),
    "ties": (
        -10.472735307341107,
        0.21345527472454415,
        [-1.4219088661318127, -1.253404706318368, -1.2540368132802024, -1.253289746311859,
         -1.2195542403416164, -1.3282025507669166, -1.432406803629573, -1.30993158056076],
        [0.20991526259251522, 0.14957726496064458, 0.38823287825468333, 0.156448680361097,
         0.38291710249477284, 0.34029676505599954, 0.26967141173848297, 0.4264674592678359],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ARVIZ))
def test_agrees_with_arviz(name):
    log_lik, r_eff = _cases()[name]
    elpd, se, loo_i, pareto_k = ARVIZ[name]
    n = log_lik.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSISWarning)
        res = psis_loo(log_lik, r_eff=r_eff)
    # acceptance: 1e-4 relative; the algorithm is the same, so it agrees far closer
    assert res.value * n == pytest.approx(elpd, rel=1e-10)
    assert_allclose(res.pointwise, loo_i, rtol=1e-10)
    assert_allclose(res.pareto_k, pareto_k, rtol=1e-8, atol=1e-12)
    # ArviZ's se of the sum is sqrt(n var(t, ddof=0)); ours is the sem of the mean
    assert res.sem == pytest.approx(se / n * math.sqrt(n / (n - 1)), rel=1e-10)


def test_warning_names_how_many_samples_have_a_large_k():
    log_lik, _ = _cases()["outlier"]
    with pytest.warns(PSISWarning, match=r"8 of 10 samples have a Pareto shape k > 0\.7"):
        psis_loo(log_lik)
    log_lik, _ = _cases()["normal"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PSISWarning)
        psis_loo(log_lik)  # every k < 0.7: no warning


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_slow_loops(seed):
    rng = np.random.default_rng(seed)
    S = [25, 40, 64, 100, 333, 21][seed]
    n = int(rng.integers(3, 15))
    r_eff = [1.0, 0.5, 2.0, 1.0, 0.8, 1.0][seed]
    scale = rng.uniform(0.2, 2.5)
    L = rng.normal(-1.0, scale, (n, S))
    if seed % 2:
        L = np.round(L, 1)  # ties at and within the tail
    L[0] = -0.7  # a sample on which every member agrees
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSISWarning)
        res = psis_loo(L, r_eff=r_eff)
    expected = [slow.psis_loo_row([float(v) for v in row], r_eff) for row in L]
    assert_allclose(res.pointwise, [e for e, _ in expected], rtol=1e-12, atol=1e-12)
    k_slow = np.array([k for _, k in expected])
    k_slow[0] = -np.inf  # uniform weights (every member agrees): k = -inf, no warning
    assert_allclose(res.pareto_k, k_slow, rtol=1e-9, atol=1e-12)
    assert res.pointwise[0] == pytest.approx(-0.7, abs=1e-14)


def test_unpacks_as_value_sem():
    """Regression: the result was a Bunch: ``value, sem = psis_loo(L)`` raised "too many
    values to unpack" (four keys)."""
    log_lik, r_eff = _cases()["normal"]
    res = psis_loo(log_lik, r_eff=r_eff)
    value, sem = res
    n = log_lik.shape[0]
    assert value == pytest.approx(res.pointwise.mean(), rel=1e-14)
    assert sem == pytest.approx(res.pointwise.std(ddof=1) / np.sqrt(n), rel=1e-12)
    assert (value, sem) == (res.value, res.sem)
    check_unpackable_result(res, PSISLOOResult, ("value", "sem"))
    assert isinstance(res, InformationCriterionResult)
    assert res.pointwise.shape == res.pareto_k.shape == (n,)  # attributes only
    assert "pareto_k=array(" in repr(res)


def test_few_members_are_not_smoothed_and_equal_iscv():
    # S <= 20: the tail holds at most 4 ratios, so no fit: k = inf and the value is ISCV
    L = np.random.default_rng(0).normal(-1, 1, (15, 20))
    with pytest.warns(PSISWarning, match="15 of 15"):
        res = psis_loo(L)
    assert np.all(res.pareto_k == np.inf)
    assert_allclose(res.pointwise, importance_sampling_cross_validation(L).pointwise, rtol=1e-13)


def test_chunks_give_the_same_rows():
    # more rows than one chunk of the kernel: every row as computed alone
    L = np.random.default_rng(1).normal(-1, 0.4, (3000, 50))
    res = psis_loo(L)
    for i in (0, 1234, 2999):
        alone = psis_loo(L[i : i + 1])
        assert res.pointwise[i] == alone.pointwise[0]
        assert res.pareto_k[i] == alone.pareto_k[0]


def test_kernel_helpers():
    from scipy.stats import genpareto

    from skcalib.metrics._ensembles import _information_criteria as ic

    # the tail: the largest values of each row, ascending, with their columns and cutoff
    x = np.array([[0.0, -3.0, -1.0, -2.0, -0.5, -4.0], [-1.0, -1.0, 0.0, -2.0, -1.0, -5.0]])
    tail = ic._largest_log_ratios(x, 3)
    assert_allclose(tail.log_ratios, [[-1.0, -0.5, 0.0], [-1.0, -1.0, 0.0]])
    assert_allclose(np.take_along_axis(x, tail.columns, axis=1), tail.log_ratios)
    assert_allclose(tail.cutoff, [-2.0, -1.0])
    assert_allclose(tail.exp_cutoff, np.exp([-2.0, -1.0]))
    # the smoothed tail: log(cutoff + the mid quantiles of the fitted Pareto), at most 0
    k, sigma, exp_cutoff = np.array([0.3, 0.0, -0.2]), np.array([0.5, 0.1, 0.05]), np.full(3, 0.1)
    smoothed = ic._smoothed_log_ratios(k, sigma, exp_cutoff, 5)
    p = (np.arange(5) + 0.5) / 5
    for row in range(3):
        expected = np.log(genpareto.ppf(p, k[row], scale=sigma[row]) + 0.1)
        assert_allclose(smoothed[row], np.minimum(expected, 0.0), rtol=1e-12)
    assert smoothed.max() <= 0.0 and smoothed[0, -1] == 0.0  # capped at the largest ratio
    # the fit recovers the shape of a large Pareto sample (before the prior's shrinkage)
    sample = np.sort(genpareto.rvs(0.4, scale=2.0, size=4000, random_state=0))[None, :]
    shape, scale = ic._gpd_fit(sample)
    m = sample.shape[1]
    assert (shape[0] * (m + 10) - 5) / m == pytest.approx(0.4, abs=0.05)
    assert scale[0] == pytest.approx(2.0, rel=0.1)


def test_exact_leave_one_out_of_a_conjugate_normal_model():
    # y_i ~ N(mu, 1), mu ~ N(0, 2^2): the leave-one-out predictive density of y_i is
    # N(y_i; m_-i, v_-i + 1) in closed form, with the posterior (m_-i, v_-i) of the
    # other samples.  The criteria computed from 4000 posterior draws must be close.
    rng = np.random.default_rng(5)
    sigma, mu0, tau0, n, S = 1.0, 0.0, 2.0, 20, 4000
    y = rng.normal(0.7, sigma, n)

    def posterior(ys):
        var = 1 / (1 / tau0**2 + len(ys) / sigma**2)
        return var * (mu0 / tau0**2 + ys.sum() / sigma**2), var

    exact = np.empty(n)
    for i in range(n):  # brute force: refit without sample i
        m, v = posterior(np.delete(y, i))
        exact[i] = norm.logpdf(y[i], m, math.sqrt(v + sigma**2))
    m, v = posterior(y)
    mu = rng.normal(m, math.sqrt(v), S)
    L = norm.logpdf(y[:, None], mu, sigma)
    in_sample = np.log(np.exp(L).mean(axis=1)).mean()  # lppd: optimistic by ~0.045
    assert in_sample - exact.mean() > 0.03
    res = psis_loo(L)
    assert np.all(res.pareto_k < 0.5)
    for estimate in (
        res,
        importance_sampling_cross_validation(L),
        negative_waic(L),
        negative_waic(L, waic_type="waic2"),
    ):
        assert estimate.value == pytest.approx(exact.mean(), abs=5e-3)  # lppd: 0.045 off
        assert_allclose(estimate.pointwise, exact, atol=0.03)
        # the standard error of the mean of the exact values
        assert estimate.sem == pytest.approx(exact.std(ddof=1) / math.sqrt(n), rel=0.05)


def test_sample_weight():
    L, _ = _cases()["normal"]
    w = np.arange(12) % 3
    res = psis_loo(L, sample_weight=w)
    rep = psis_loo(np.repeat(L, w, axis=0))
    assert res.value == pytest.approx(rep.value, rel=1e-13)
    assert_allclose(res.pointwise, psis_loo(L).pointwise)


@pytest.mark.parametrize(
    "log_lik, match",
    [
        (np.zeros(5), "log_lik must be 2-D"),
        (np.zeros((3, 4, 2)), "log_lik must be 2-D"),
        (np.zeros((4, 1)), "at least 2 members"),
        (np.zeros((0, 30)), "log_lik is empty"),
        (np.array([[0.0, np.nan], [0.0, 0.0]]), r"log_lik contains NaN .*log_lik\[0, 1\]"),
        (np.array([[0.0, -np.inf], [0.0, 0.0]]), r"log_lik\[0, 1\] = -inf"),
        ([["a", "b"], ["c", "d"]], "log_lik must contain numbers"),
    ],
)
def test_bad_input(log_lik, match):
    with pytest.raises(ValueError, match=match):
        psis_loo(log_lik)


def test_bad_options_and_inputs_not_modified():
    L = np.random.default_rng(2).normal(-1, 0.3, (5, 30))
    for r_eff in (0, -1.0, "1"):
        with pytest.raises(ValueError, match="r_eff"):
            psis_loo(L, r_eff=r_eff)
    with pytest.raises(ValueError, match="sample_weight"):
        psis_loo(L, sample_weight=np.ones(4))
    copy = L.copy()
    L.setflags(write=False)
    psis_loo(L)
    np.testing.assert_array_equal(L, copy)
