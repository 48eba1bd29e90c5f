"""Tests of the probabilistic-regression scores: CRPS (Normal, ensemble), interval and
quantile scores, coverage, PIT values, Normal negative log-likelihood."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose
from scipy import integrate, stats
from scipy.stats import norm
from sklearn.metrics import mean_pinball_loss

from skcalib.metrics import (
    crps_ensemble,
    crps_normal,
    interval_coverage,
    interval_score,
    normal_negative_log_likelihood,
    pit_ensemble,
    pit_normal,
    quantile_score,
)

SEEDS = [0, 1, 2]


# --------------------------------------------------------------------------------------
# slow references
# --------------------------------------------------------------------------------------


def crps_pairs_loop(y, S, fair=False):
    """O(m^2) kernel form E|X - y| - 1/2 E|X - X'| with explicit loops over pairs."""
    S = np.asarray(S, dtype=np.float64)
    out = []
    for yi, xs in zip(y, S, strict=True):
        m = len(xs)
        t1 = sum(abs(x - yi) for x in xs) / m
        pairs = sum(abs(a - b) for a in xs for b in xs)
        t2 = pairs / (2 * m * (m - 1)) if fair else pairs / (2 * m * m)
        out.append(t1 - t2)
    return np.array(out)


def crps_circular_um(y, S):
    """uncertainty_metrics' crps_score: spread from circularly adjacent pairs only."""
    S = np.asarray(S, dtype=np.float64)
    t1 = np.abs(S - np.asarray(y)[:, None]).mean(axis=1)
    t2 = 0.5 * np.abs(S - np.roll(S, 1, axis=1)).mean(axis=1)
    return t1 - t2


def crps_integral(cdf, y, lo, hi, points=()):
    """CRPS definition int (F(x) - 1{x >= y})^2 dx by numerical integration."""
    pl = [p for p in points if lo < p < y] or None
    pr = [p for p in points if y < p < hi] or None
    left = integrate.quad(lambda x: cdf(x) ** 2, lo, y, limit=200, points=pl)[0]
    right = integrate.quad(lambda x: (1 - cdf(x)) ** 2, y, hi, limit=200, points=pr)[0]
    return left + right


# --------------------------------------------------------------------------------------
# crps_normal
# --------------------------------------------------------------------------------------


def test_crps_normal_uncertainty_metrics_values():
    # values of uncertainty_metrics 0.0.82's crps_normal_score
    # (uncertainty_metrics/tensorflow/scoring_rules.py) on these inputs
    got = crps_normal([0.0, 1.0, -2.0], [0.0, 0.0, 0.5], [1.0, 2.0, 0.5], aggregate=False)
    np.testing.assert_allclose(got, [0.2336949773, 0.6628070625, 2.2179052617], atol=1e-10)
    assert crps_normal([0.0], [0.0], [1.0]) == pytest.approx(
        2 * stats.norm.pdf(0) - 1 / np.sqrt(np.pi), abs=1e-15
    )


@pytest.mark.parametrize(
    "y, mu, sd", [(0.0, 0.0, 1.0), (1.3, -0.2, 0.7), (-4.0, 1.0, 2.5), (10.0, 0.0, 0.3)]
)
def test_crps_normal_matches_integral(y, mu, sd):
    ref = crps_integral(lambda x: stats.norm.cdf(x, mu, sd), y, mu - 40 * sd, mu + 40 * sd)
    assert crps_normal([y], [mu], [sd]) == pytest.approx(ref, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("seed", SEEDS)
def test_crps_normal_matches_closed_form_loop_chunked(seed):
    rng = np.random.default_rng(seed)
    n = 40_000  # several chunks
    y = rng.standard_normal(n) * 3
    mu = rng.standard_normal(n)
    sd = rng.random(n) * 2 + 0.01
    z = (y - mu) / sd
    ref = sd * (z * (2 * stats.norm.cdf(z) - 1) + 2 * stats.norm.pdf(z) - 1 / np.sqrt(np.pi))
    got = crps_normal(y, mu, sd, aggregate=False)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
    w = rng.random(n)
    assert crps_normal(y, mu, sd, sample_weight=w) == pytest.approx(
        np.average(ref, weights=w), rel=1e-12
    )
    assert crps_normal(y, mu, sd) == pytest.approx(ref.mean(), rel=1e-12)


def test_crps_normal_limits_and_scalars():
    # sd -> 0: absolute error; large |z|: |y - mu| - sd / sqrt(pi) asymptotically
    assert crps_normal([2.0], [0.5], [1e-12]) == pytest.approx(1.5, rel=1e-9)
    assert crps_normal([0.0, 3.0], 0.0, 1.0, aggregate=False) == pytest.approx(
        crps_normal([0.0, 3.0], [0.0, 0.0], [1.0, 1.0], aggregate=False)
    )
    # z overflows (subnormal std): the limit |y - mu| - sd / sqrt(pi), not inf
    np.testing.assert_allclose(
        crps_normal([1.0, 0.0], [0.0, 0.0], [5e-324, 1.0], aggregate=False),
        [1.0, 0.23369497725510913],
        rtol=1e-12,
    )
    assert crps_normal([1.0, 0.0], [0.0, 0.0], [5e-324, 1.0]) == pytest.approx(
        (1 + 0.23369497725510913) / 2, rel=1e-12
    )
    # huge finite values: the mean is finite although the sum overflows
    assert crps_normal([1e308, -1e308], 0.0, 1.0) == pytest.approx(1e308, rel=1e-12)
    # location-scale equivariance
    assert crps_normal([5.0], [3.0], [2.0]) == pytest.approx(2 * crps_normal([1.0], [0.0], [1.0]))


@pytest.mark.parametrize(
    "args, match",
    [
        (([0.0, 1.0], [0.0, 0.0], [1.0, 0.0]), r"y_std must be strictly positive; y_std\[1\]"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, -2.0]), "y_std must be strictly positive"),
        (([0.0, 1.0], [0.0, 0.0], -1.0), "y_std must be strictly positive"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, np.nan]), "y_std contains NaN"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, np.inf]), "y_std contains infinity"),
        (([0.0, np.nan], [0.0, 0.0], [1.0, 1.0]), "y_true contains NaN"),
        (([0.0, 1.0], [np.inf, 0.0], [1.0, 1.0]), "y_mean contains infinity"),
        (([0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0]), "different numbers of samples"),
        (([[0.0, 1.0]], [0.0], [1.0]), "y_true must be a 1-D array"),
        (([], [], []), "y_true is empty"),
        ((["a", "b"], [0.0, 0.0], [1.0, 1.0]), "y_true must contain real numbers"),
    ],
)
def test_crps_normal_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        crps_normal(*args)


def test_crps_normal_nan_in_later_chunk_is_found():
    y = np.zeros(50_000)
    sd = np.ones(50_000)
    y[45_000] = np.nan
    with pytest.raises(ValueError, match=r"y_true contains NaN \(first at index 45000\)"):
        crps_normal(y, 0.0, sd)


# --------------------------------------------------------------------------------------
# crps_ensemble
# --------------------------------------------------------------------------------------


def test_crps_ensemble_versus_uncertainty_metrics_crps_score():
    # uncertainty_metrics 0.0.82's crps_score (uncertainty_metrics/tensorflow/
    # scoring_rules.py) uses circularly adjacent pairs and gives [0.25, 0.25] here; the
    # exact all-pairs estimator gives [0.375, 0.34375].
    y = [0.0, 1.0]
    S = [[-1.0, 0.0, 1.0, 2.0], [0.5, 0.5, 1.5, 3.0]]
    np.testing.assert_allclose(crps_circular_um(y, S), [0.25, 0.25])
    np.testing.assert_allclose(crps_ensemble(y, S, aggregate=False), [0.375, 0.34375], atol=1e-15)
    np.testing.assert_allclose(
        crps_ensemble(y, S, fair=True, aggregate=False), [1 / 6, 1 / 6], atol=1e-15
    )
    np.testing.assert_allclose(crps_ensemble(y, S, aggregate=False), crps_pairs_loop(y, S))


def test_crps_ensemble_equals_integral_of_empirical_cdf():
    # the non-fair estimator is exactly the CRPS of the empirical distribution
    xs = np.array([-0.7, 0.1, 0.1, 0.4, 2.2])
    for y in (-2.0, 0.1, 0.3, 5.0):
        ref = crps_integral(lambda x: np.mean(xs <= x), y, -10, 10, points=xs)
        assert crps_ensemble([y], [xs]) == pytest.approx(ref, abs=1e-10)


def test_crps_ensemble_single_draw_is_absolute_error():
    y = np.array([0.0, 2.0, -1.0])
    S = np.array([[1.0], [2.5], [-4.0]])
    np.testing.assert_allclose(crps_ensemble(y, S, aggregate=False), [1.0, 0.5, 3.0])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("fair", [False, True])
def test_crps_ensemble_matches_all_pairs_loop(seed, fair):
    rng = np.random.default_rng(seed)
    n, m = 40, int(rng.integers(2, 30))
    y = rng.standard_normal(n)
    S = rng.standard_normal((n, m)) * 2 + 0.5
    S[:5] = np.round(S[:5])  # ties
    y[:3] = S[:3, 0]  # observation equal to a draw
    np.testing.assert_allclose(
        crps_ensemble(y, S, fair=fair, aggregate=False),
        crps_pairs_loop(y, S, fair),
        rtol=1e-12,
        atol=1e-13,
    )


def test_crps_ensemble_many_chunks_and_float32():
    rng = np.random.default_rng(3)
    n, m = 3_000, 50  # several chunks of the ensemble kernel
    y = rng.standard_normal(n)
    S = rng.standard_normal((n, m))
    ref = crps_pairs_loop(y[:50], S[:50])
    got = crps_ensemble(y, S, aggregate=False)
    np.testing.assert_allclose(got[:50], ref, rtol=1e-12)
    # sorted-formula per row vs a vectorised all-pairs computation on all rows
    pairs = np.abs(S[:, :, None] - S[:, None, :]).sum(axis=(1, 2))
    full = np.abs(S - y[:, None]).mean(axis=1) - pairs / (2 * m * m)
    np.testing.assert_allclose(got, full, rtol=1e-11, atol=1e-13)
    S32, y32 = S.astype(np.float32), y.astype(np.float32)
    assert crps_ensemble(y32, S32) == pytest.approx(
        crps_ensemble(y32.astype(np.float64), S32.astype(np.float64)), rel=1e-12
    )


def test_crps_ensemble_is_shift_accurate():
    # large offset, small spread: centring keeps the spread term accurate
    rng = np.random.default_rng(0)
    S = rng.standard_normal((20, 200))
    y = rng.standard_normal(20)
    a = crps_ensemble(y, S, aggregate=False)
    b = crps_ensemble(y + 1e6, S + 1e6, aggregate=False)
    np.testing.assert_allclose(a, b, atol=1e-8)


def test_crps_ensemble_converges_to_crps_normal():
    # many draws from N(mu, sd): the fair CRPS is unbiased for crps_normal (statistical)
    rng = np.random.default_rng(1)
    n, m = 100, 10_000
    y = rng.standard_normal(n)
    mu = rng.standard_normal(n) * 0.5
    sd = rng.random(n) + 0.5
    S = mu[:, None] + sd[:, None] * rng.standard_normal((n, m))
    exact = crps_normal(y, mu, sd, aggregate=False)
    for fair in (False, True):
        got = crps_ensemble(y, S, fair=fair, aggregate=False)
        # the tolerance of uncertainty_metrics' test_normal_predictive_agreement_...
        assert np.max(np.abs(got - exact)) < 5 / np.sqrt(m)
    assert crps_ensemble(y, S, fair=True) == pytest.approx(crps_normal(y, mu, sd), abs=5e-3)


@pytest.mark.parametrize(
    "dist, y",
    [
        (stats.norm(0.3, 1.2), 0.9),
        (stats.expon(scale=2.0), 0.5),
        (stats.uniform(-1, 3), 2.5),
        (stats.laplace(0, 1), -0.4),
    ],
)
def test_crps_ensemble_quantile_grid_matches_integral(dist, y):
    # a deterministic "sample" at the midpoint quantiles converges to the CRPS of the
    # distribution (computed by integrating the CRPS definition)
    m = 4_000
    xs = dist.ppf((np.arange(m) + 0.5) / m)
    lo, hi = dist.ppf(1e-12), dist.ppf(1 - 1e-12)
    ref = crps_integral(dist.cdf, y, min(lo, y - 1), max(hi, y + 1))
    assert crps_ensemble([y], [xs]) == pytest.approx(ref, abs=2e-3)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (
            ([0.0, 1.0], [[0.0, np.nan], [1.0, 2.0]]),
            {},
            r"y_samples contains NaN \(first at index 0, 1\)",
        ),
        (([0.0, 1.0], [[0.0, 1.0], [np.inf, 2.0]]), {}, "y_samples contains infinity"),
        (([0.0, np.nan], [[0.0, 1.0], [1.0, 2.0]]), {}, "y_true contains NaN"),
        (([0.0, 1.0], [0.0, 1.0]), {}, "y_samples must be a 2-D array"),
        (([0.0, 1.0], [[0.0], [1.0], [2.0]]), {}, "different numbers of samples"),
        (([0.0, 1.0], [[0.0], [1.0]]), {"fair": True}, "at least 2 draws"),
        (([0.0, 1.0], np.zeros((2, 0))), {}, "0 columns"),
        (([0.0, 1.0], [[0.0, 1.0], [1.0, 2.0]]), {"sample_weight": [1.0]}, "sample_weight"),
        (([1e308, -1e308], [[-1e308, 1e308], [1e308, -1e308]]), {}, "overflows"),
    ],
)
def test_crps_ensemble_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        crps_ensemble(*args, **kwargs)


# --------------------------------------------------------------------------------------
# interval score, coverage, quantile score
# --------------------------------------------------------------------------------------


def test_interval_score_values():
    y = np.array([0.0, 2.0, -3.0, 1.0])
    lo, hi = -1.0, 1.0
    got = interval_score(y, lo, hi, alpha=0.5, aggregate=False)
    np.testing.assert_allclose(got, [2.0, 2 + 4 * 1.0, 2 + 4 * 2.0, 2.0])
    assert interval_score(y, [lo] * 4, [hi] * 4, alpha=0.5) == pytest.approx(got.mean())


@pytest.mark.parametrize("seed", SEEDS)
def test_interval_score_is_scaled_pinball_sum(seed):
    rng = np.random.default_rng(seed)
    n, alpha = 200, 0.2
    y = rng.standard_normal(n)
    c = rng.standard_normal(n) * 0.3
    lo, hi = c - rng.random(n), c + rng.random(n)
    w = rng.random(n)
    ref = (2 / alpha) * (
        mean_pinball_loss(y, lo, alpha=alpha / 2, sample_weight=w)
        + mean_pinball_loss(y, hi, alpha=1 - alpha / 2, sample_weight=w)
    )
    assert interval_score(y, lo, hi, alpha=alpha, sample_weight=w) == pytest.approx(ref, rel=1e-12)


def test_interval_coverage_values():
    y = [0.0, 2.0, -3.0, 1.0]
    assert interval_coverage(y, -1.0, 1.0) == 0.5  # the bounds are inclusive
    assert interval_coverage(y, -1.0, 1.0, sample_weight=[1, 0, 0, 3]) == 1.0
    assert interval_coverage(y, [-5, 3, -5, 2], [5, 4, -4, 3]) == 0.25


def test_interval_bad_input():
    with pytest.raises(ValueError, match=r"y_lower must not exceed y_upper; at index 1"):
        interval_score([0.0, 1.0], [0.0, 2.0], [1.0, 1.5], alpha=0.1)
    with pytest.raises(ValueError, match="alpha"):
        interval_score([0.0, 1.0], 0.0, 1.0, alpha=1.5)
    with pytest.raises(ValueError, match="y_upper contains NaN"):
        interval_coverage([0.0, 1.0], 0.0, [1.0, np.nan])
    with pytest.raises(TypeError):
        interval_score([0.0, 1.0], 0.0, 1.0)  # alpha is required


@pytest.mark.parametrize("seed", SEEDS)
def test_quantile_score_matches_sklearn_pinball(seed):
    rng = np.random.default_rng(seed)
    n = 150
    y = rng.standard_normal(n)
    taus = np.array([0.1, 0.5, 0.9])
    Q = stats.norm.ppf(taus)[None, :] + rng.standard_normal((n, 1)) * 0.2
    w = rng.random(n)
    ref = np.mean(
        [mean_pinball_loss(y, Q[:, j], alpha=t, sample_weight=w) for j, t in enumerate(taus)]
    )
    assert quantile_score(y, Q, quantiles=taus, sample_weight=w) == pytest.approx(ref, rel=1e-12)
    assert quantile_score(y, Q[:, 1], quantiles=0.5) == pytest.approx(
        mean_pinball_loss(y, Q[:, 1], alpha=0.5), rel=1e-12
    )


def test_quantile_score_approximates_crps():
    # CRPS = 2 * integral of the pinball loss over levels
    taus = (np.arange(999) + 0.5) / 999
    y = np.array([0.4, -1.0])
    Q = np.tile(stats.norm.ppf(taus), (2, 1))
    approx = 2 * quantile_score(y, Q, quantiles=taus, aggregate=False)
    np.testing.assert_allclose(approx, crps_normal(y, 0.0, 1.0, aggregate=False), atol=1e-3)


def test_quantile_score_bad_input():
    with pytest.raises(ValueError, match="one level per column"):
        quantile_score([0.0, 1.0], [[0.0, 1.0], [1.0, 2.0]], quantiles=[0.5])
    with pytest.raises(ValueError, match=r"quantiles must lie in \(0, 1\)"):
        quantile_score([0.0, 1.0], [[0.0, 1.0], [1.0, 2.0]], quantiles=[0.5, 1.0])
    with pytest.raises(ValueError, match="y_quantiles contains NaN"):
        quantile_score([0.0, 1.0], [0.0, np.nan], quantiles=0.5)


# --------------------------------------------------------------------------------------
# PIT
# --------------------------------------------------------------------------------------


def test_pit_normal_values_and_uniformity():
    np.testing.assert_allclose(
        pit_normal([0.0, 1.0, -1.0], 0.0, 1.0), stats.norm.cdf([0.0, 1.0, -1.0]), rtol=1e-14
    )
    rng = np.random.default_rng(0)
    mu, sd = rng.standard_normal(2000), rng.random(2000) + 0.1
    y = mu + sd * rng.standard_normal(2000)
    assert stats.kstest(pit_normal(y, mu, sd), "uniform").pvalue > 1e-3
    # over-confident forecasts: U-shaped PIT, far from uniform
    assert stats.kstest(pit_normal(y, mu, sd / 3), "uniform").pvalue < 1e-6
    with pytest.raises(ValueError, match="y_std must be strictly positive"):
        pit_normal([0.0], [0.0], [0.0])


def test_pit_ensemble_exact_uniform_for_exchangeable_draws():
    rng = np.random.default_rng(2)
    n, m = 3000, 7
    # discrete data with many ties: still exactly uniform after randomisation
    S = rng.poisson(2.0, size=(n, m)).astype(float)
    y = rng.poisson(2.0, size=n).astype(float)
    pit = pit_ensemble(y, S, random_state=0)
    assert stats.kstest(pit, "uniform").pvalue > 1e-3
    below = (S < y[:, None]).sum(axis=1)
    ties = (S == y[:, None]).sum(axis=1)
    assert np.all(pit >= below / (m + 1)) and np.all(pit <= (below + ties + 1) / (m + 1))
    np.testing.assert_array_equal(pit, pit_ensemble(y, S, random_state=0))


# --------------------------------------------------------------------------------------
# invariances of the regression metrics (the common-test registry's list)
# --------------------------------------------------------------------------------------


def _data(rng, n=40, m=6):
    y = rng.standard_normal(n)
    mu = rng.standard_normal(n) * 0.5
    sd = rng.random(n) + 0.2
    S = mu[:, None] + sd[:, None] * rng.standard_normal((n, m))
    return {
        "y": y,
        "mu": mu,
        "sd": sd,
        "S": S,
        "lo": mu - 1.64 * sd,
        "hi": mu + 1.64 * sd,
        "Q": np.column_stack([mu - sd, mu + sd]),
    }


REGRESSION_METRICS = {
    "crps_normal": lambda d, **kw: crps_normal(d["y"], d["mu"], d["sd"], **kw),
    "crps_ensemble": lambda d, **kw: crps_ensemble(d["y"], d["S"], **kw),
    "crps_ensemble_fair": lambda d, **kw: crps_ensemble(d["y"], d["S"], fair=True, **kw),
    "interval_score": lambda d, **kw: interval_score(d["y"], d["lo"], d["hi"], alpha=0.1, **kw),
    "interval_coverage": lambda d, **kw: interval_coverage(d["y"], d["lo"], d["hi"], **kw),
    "quantile_score": lambda d, **kw: quantile_score(d["y"], d["Q"], quantiles=[0.16, 0.84], **kw),
    "normal_negative_log_likelihood": lambda d, **kw: normal_negative_log_likelihood(
        d["y"], d["mu"], d["sd"], **kw
    ),
}

#: metrics that can be negative (a log density above 1)
SIGNED = {"normal_negative_log_likelihood"}


def _map(d, f):
    return {k: f(v) for k, v in d.items()}


@pytest.mark.parametrize("name", list(REGRESSION_METRICS))
def test_regression_invariances(name):
    metric = REGRESSION_METRICS[name]
    rng = np.random.default_rng(4)
    d = _data(rng)
    copies = _map(d, np.copy)
    n = d["y"].shape[0]
    w = rng.integers(0, 4, n).astype(float)
    v = metric(d, sample_weight=w)
    assert isinstance(v, float)
    # no input mutation
    for key in d:
        np.testing.assert_array_equal(d[key], copies[key])
    # weight = repetition, zero weight = removal, scaling
    rep = np.repeat(np.arange(n), w.astype(int))
    assert v == pytest.approx(metric(_map(d, lambda a: a[rep])), rel=1e-12)
    keep = w > 0
    assert v == pytest.approx(metric(_map(d, lambda a: a[keep]), sample_weight=w[keep]), rel=1e-12)
    assert v == pytest.approx(metric(d, sample_weight=2.5 * w), rel=1e-12)
    # permutation
    perm = rng.permutation(n)
    assert v == pytest.approx(metric(_map(d, lambda a: a[perm]), sample_weight=w[perm]), rel=1e-12)
    # lists and pandas
    assert v == pytest.approx(
        metric(_map(d, lambda a: a.tolist()), sample_weight=list(w)), rel=1e-12
    )

    def to_pd(a):
        return pd.Series(a) if a.ndim == 1 else pd.DataFrame(a)

    assert v == pytest.approx(metric(_map(d, to_pd), sample_weight=pd.Series(w)), rel=1e-12)
    # float32 input: same as its float64 cast (computations in float64)
    f32 = _map(d, lambda a: a.astype(np.float32))
    assert metric(f32) == pytest.approx(metric(_map(f32, lambda a: a.astype(np.float64))), rel=1e-6)


@pytest.mark.parametrize("name", [n for n in REGRESSION_METRICS if n != "interval_coverage"])
def test_regression_aggregate_false(name):
    metric = REGRESSION_METRICS[name]
    d = _data(np.random.default_rng(6))
    per = metric(d, aggregate=False)
    assert isinstance(per, np.ndarray) and per.shape == d["y"].shape
    assert metric(d) == pytest.approx(per.mean(), rel=1e-12)
    if name not in SIGNED:
        assert np.all(per >= 0)


# --------------------------------------------------------------------------------------
# property-based: any input gives a finite result or a ValueError
# --------------------------------------------------------------------------------------

_floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=60, deadline=None)
@given(
    y=hnp.arrays(np.float64, st.integers(1, 6), elements=_floats),
    m=st.integers(1, 5),
    data=st.data(),
    fair=st.booleans(),
)
def test_crps_ensemble_finite_or_valueerror(y, m, data, fair):
    S = data.draw(hnp.arrays(np.float64, (y.shape[0], m), elements=_floats))
    try:
        v = crps_ensemble(y, S, fair=fair)
    except ValueError:
        return
    assert np.isfinite(v) and v >= -1e-9 * max(1.0, np.abs(S).max(), np.abs(y).max())


@settings(max_examples=60, deadline=None)
@given(
    arrs=st.integers(1, 6).flatmap(
        lambda n: st.tuples(*[hnp.arrays(np.float64, n, elements=_floats)] * 3)
    )
)
def test_crps_normal_finite_or_valueerror(arrs):
    y, mu, sd = arrs
    try:
        v = crps_normal(y, mu, sd)
    except ValueError:
        return
    assert not np.isnan(v) and v >= 0


# --------------------------------------------------------------------------------------
# normal_negative_log_likelihood
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_normal_nll_equals_minus_scipy_logpdf(seed):
    rng = np.random.RandomState(seed)
    n = 50
    y, mu, sd = rng.normal(size=n), rng.normal(size=n), rng.uniform(0.1, 3, n)
    expected = -norm.logpdf(y, loc=mu, scale=sd)
    assert_allclose(
        normal_negative_log_likelihood(y, mu, sd, aggregate=False), expected, rtol=1e-13
    )
    assert normal_negative_log_likelihood(y, mu, sd) == pytest.approx(expected.mean(), rel=1e-13)
    w = rng.randint(0, 4, n)
    w[0] = 1
    assert normal_negative_log_likelihood(y, mu, sd, sample_weight=w) == pytest.approx(
        np.average(expected, weights=w), rel=1e-13
    )


def test_normal_nll_closed_form_values_and_scalars():
    assert normal_negative_log_likelihood([0.0], [0.0], [1.0]) == pytest.approx(
        0.5 * np.log(2 * np.pi), rel=1e-15
    )
    # (y - mu) / sd = 2, sd = e: 0.5 log(2 pi) + 1 + 2
    assert normal_negative_log_likelihood([2 * np.e], 0.0, np.e) == pytest.approx(
        0.5 * np.log(2 * np.pi) + 3, rel=1e-14
    )
    assert normal_negative_log_likelihood([1.0, 2.0], 1.5, 0.5) == pytest.approx(
        -norm.logpdf(1.0, 1.5, 0.5), rel=1e-14
    )
    assert isinstance(normal_negative_log_likelihood([1.0], [1.0], [1.0]), float)


@pytest.mark.parametrize(
    "args, match",
    [
        (([0.0, 1.0], [0.0], [1.0, 1.0]), "y_mean"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, 0.0]), "y_std must be strictly positive"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, -1.0]), "y_std"),
        (([0.0, np.nan], [0.0, 0.0], [1.0, 1.0]), "y_true contains NaN"),
        (([0.0, 1.0], [0.0, np.inf], [1.0, 1.0]), "y_mean contains infinity"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, np.nan]), "y_std contains NaN"),
        (([], [], []), "empty"),
        (([[0.0, 1.0], [1.0, 2.0]], [0.0, 0.0], [1.0, 1.0]), "1-D"),
    ],
)
def test_normal_nll_errors(args, match):
    with pytest.raises(ValueError, match=match):
        normal_negative_log_likelihood(*args)


def test_normal_nll_weight_errors():
    with pytest.raises(ValueError, match="sample_weight"):
        normal_negative_log_likelihood([0.0, 1.0], [0.0, 0.0], [1.0, 1.0], sample_weight=[1.0])
