"""The forms of a predictive distribution and their one reader, ``as_predictive``."""

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from skcalib.metrics import PredictionInterval, PredictiveQuantiles, PredictiveSamples
from skcalib.metrics._regression._forms import ScipyPredictive, as_predictive


def _crps_by_integral(dist, y):
    """int (F(x) - 1{x >= y})^2 dx by adaptive quadrature (slow, obviously correct)."""

    def f(x):
        return dist.cdf(x) ** 2 if x < y else dist.sf(x) ** 2

    opts = {"epsabs": 1e-13, "epsrel": 1e-13, "limit": 500}
    return integrate.quad(f, -np.inf, y, **opts)[0] + integrate.quad(f, y, np.inf, **opts)[0]


# ---------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: PredictiveSamples([[0.0, np.nan]]), "samples contains NaN"),
        (lambda: PredictiveSamples([0.0, 1.0]), "samples must be a 2-D"),
        (lambda: PredictiveQuantiles([[0.0, 1.0]], [0.5, 0.25]), "strictly increasing"),
        (lambda: PredictiveQuantiles([[0.0, 1.0]], [0.0, 0.5]), "strictly between 0 and 1"),
        (lambda: PredictiveQuantiles([[0.0, 1.0]], [0.5, 1.0]), "strictly between 0 and 1"),
        (lambda: PredictiveQuantiles([[1.0, 0.0]], [0.25, 0.75]), "crossing quantiles"),
        (lambda: PredictiveQuantiles([[0.0, 1.0, 2.0]], [0.25, 0.75]), "3 columns"),
        (lambda: PredictiveQuantiles([[0.0, np.inf]], [0.25, 0.75]), "values contains inf"),
        (lambda: PredictionInterval([0.0, 2.0], [1.0, 1.0], 0.9), "lower must not exceed"),
        (lambda: PredictionInterval([0.0], [1.0], 1.0), "coverage must lie"),
        (lambda: PredictionInterval([0.0], [1.0], 0.0), "coverage must lie"),
        (lambda: PredictionInterval([0.0, 1.0], [1.0], 0.5), "different numbers"),
        (lambda: PredictionInterval([np.nan], [1.0], 0.5), "lower contains NaN"),
        (lambda: as_predictive(np.zeros(3)), "must be a predictive distribution"),
        (lambda: as_predictive(stats.poisson([1.0])), "discrete"),
        (lambda: as_predictive(stats.norm([0.0, 1.0], 1.0), 3), "different numbers"),
        (lambda: as_predictive(stats.norm(0.0, [1.0, -1.0])), "invalid parameters"),
        (lambda: as_predictive(stats.norm(0.0, [1.0, np.nan])), "NaN"),
        (lambda: as_predictive(stats.norm(np.zeros((2, 2)), 1.0)), "must be 1-D"),
        (lambda: as_predictive(stats.norm(0.0, 1.0)), "number of samples is unknown"),
        (lambda: as_predictive(PredictiveSamples([[0.0, 1.0]]), 2), "different numbers"),
    ],
)
def test_invalid_forms_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_inputs_not_modified_and_pandas_float32():
    S = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], dtype=np.float32)
    before = S.copy()
    pred = PredictiveSamples(pd.DataFrame(S))
    pred.crps([1.0, 2.0])
    pred.pit([1.0, 2.0], random_state=0)
    np.testing.assert_array_equal(S, before)
    assert pred.samples.dtype == np.float32
    np.testing.assert_allclose(pred.mean(), [2.0, 3.0])
    q = PredictiveQuantiles(pd.DataFrame([[0.0, 1.0]]), pd.Series([0.25, 0.75]))
    assert q.n == 1 and len(q) == 1


# ---------------------------------------------------------------------------- samples


def test_samples_interface():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(50, 7))
    y = rng.normal(size=50)
    pred = as_predictive(PredictiveSamples(S), 50)
    np.testing.assert_allclose(pred.cdf(y), (S <= y[:, None]).mean(axis=1))
    np.testing.assert_allclose(pred.ppf([0.1, 0.5]), np.quantile(S, [0.1, 0.5], axis=1).T)
    np.testing.assert_allclose(pred.std(), S.std(axis=1))
    lo, hi = pred.interval(0.5)
    np.testing.assert_allclose(lo, np.quantile(S, 0.25, axis=1))
    np.testing.assert_allclose(hi, np.quantile(S, 0.75, axis=1))
    # the PIT is the randomised rank: inside the cell of the rank
    pit = pred.pit(y, random_state=0)
    rank = (S < y[:, None]).sum(axis=1)
    assert np.all((pit >= rank / 8) & (pit <= (rank + 1) / 8))
    # the CRPS of the empirical distribution, all pairs
    brute = np.abs(S - y[:, None]).mean(1) - 0.5 * np.abs(S[:, :, None] - S[:, None, :]).mean(
        (1, 2)
    )
    np.testing.assert_allclose(pred.crps(y), brute, rtol=1e-12, atol=1e-14)
    sub = pred.take([0, 3])
    np.testing.assert_array_equal(sub.samples, S[[0, 3]])
    with pytest.raises(ValueError, match="no density"):
        pred.logpdf(y)


# ---------------------------------------------------------------------------- quantile sets


def test_quantiles_piecewise_uniform():
    levels = np.array([0.1, 0.5, 0.9])
    pred = PredictiveQuantiles([[-1.0, 0.0, 2.0]], levels)
    # knots with the linear tails: q0 = -1 - 0.1 * 1 / 0.4, q4 = 2 + 0.1 * 2 / 0.4
    q0, q4 = -1.25, 2.5
    np.testing.assert_allclose(
        pred.ppf([0.1, 0.3, 0.5, 0.7, 0.05, 0.95]).ravel(),
        [-1.0, -0.5, 0.0, 1.0, (q0 - 1.0) / 2, (2.0 + q4) / 2],
    )
    np.testing.assert_allclose(pred.cdf([-0.5]), [0.3])
    np.testing.assert_allclose(pred.cdf([-5.0]), [0.0])
    np.testing.assert_allclose(pred.cdf([5.0]), [1.0])
    # mean and variance of the piecewise-uniform mixture by numerical integration
    x = np.linspace(q0, q4, 400_001)
    dens = np.exp(pred.logpdf(np.broadcast_to(x, (1, x.size)).T.ravel()[:1]))  # shape check
    assert dens.shape == (1,)
    grid = np.linspace(0.0, 1.0, 2_000_001)[1:-1]
    qs = np.interp(grid, [0, 0.1, 0.5, 0.9, 1], [q0, -1, 0, 2, q4])
    np.testing.assert_allclose(pred.mean(), qs.mean(), atol=1e-6)
    np.testing.assert_allclose(pred.var(), qs.var(), atol=1e-5)
    # density integrates to one
    many = PredictiveQuantiles(np.tile([[-1.0, 0.0, 2.0]], (x.size, 1)), levels)
    np.testing.assert_allclose(np.trapezoid(np.exp(many.logpdf(x)), x), 1.0, atol=1e-4)
    # the pinball approximation of the CRPS
    y = 0.7
    pairs = zip(levels, [-1.0, 0.0, 2.0], strict=True)
    want = 2 / 3 * sum(max(t * (y - q), (t - 1) * (y - q)) for t, q in pairs)
    np.testing.assert_allclose(pred.crps([y]), [want])


def test_quantiles_one_level():
    pred = PredictiveQuantiles([[1.0], [2.0]], [0.5])
    np.testing.assert_allclose(pred.ppf(0.5), [[1.0], [2.0]])
    with pytest.raises(ValueError, match="at least two levels"):
        pred.cdf([0.0, 0.0])


# ---------------------------------------------------------------------------- intervals


def test_interval_form():
    pred = PredictionInterval([0.0, 1.0], [2.0, 5.0], coverage=0.8)
    lo, hi = pred.interval(0.8)
    np.testing.assert_array_equal(lo, [0.0, 1.0])
    np.testing.assert_array_equal(pred.ppf([0.9, 0.1]), [[2.0, 0.0], [5.0, 1.0]])
    for call in (
        lambda: pred.interval(0.5),
        lambda: pred.cdf([0, 0]),
        pred.mean,
        pred.std,
        lambda: pred.crps([0, 0]),
        lambda: pred.pit([0, 0]),
        lambda: pred.ppf(0.5),
    ):
        with pytest.raises(ValueError, match="PredictionInterval gives only"):
            call()
    assert pred.take(np.array([False, True])).upper.tolist() == [5.0]


# ---------------------------------------------------------------------------- scipy


def test_scipy_interface_matches_scipy():
    d = stats.t(4.0, [0.0, 1.0, 2.0], [1.0, 2.0, 0.5])
    pred = as_predictive(d, 3)
    assert isinstance(pred, ScipyPredictive) and pred.family == "t"
    y = np.array([0.3, -1.0, 2.2])
    np.testing.assert_allclose(pred.cdf(y), d.cdf(y))
    np.testing.assert_allclose(pred.logpdf(y), d.logpdf(y))
    np.testing.assert_allclose(pred.ppf([0.2, 0.7]), d.ppf(np.array([[0.2], [0.7]])).T)
    np.testing.assert_allclose(pred.std(), d.std())
    np.testing.assert_allclose(pred.interval(0.9), d.interval(0.9))
    sub = pred.take([2])
    np.testing.assert_allclose(sub.mean(), [2.0])
    # scalar parameters broadcast to n_samples
    np.testing.assert_allclose(as_predictive(stats.norm(0, 2), 2).std(), [2.0, 2.0])
    with pytest.raises(ValueError, match="no finite var"):
        as_predictive(stats.t(1.5, [0.0], 1.0)).std()


@pytest.mark.parametrize(
    "dist, ys",
    [
        (stats.t(3.0, 0.0, 1.0), [0.3, 5.0, -20.0]),
        (stats.t(1.5, 1.0, 2.0), [0.3, 5.0]),
        (stats.logistic(1.0, 2.0), [0.3, 9.0]),
        (stats.lognorm(0.8, 0.0, 2.0), [0.3, 9.0]),
        (stats.gamma(2.5, 0.0, 1.5), [0.01, 9.0]),
        (stats.laplace(0.0, 1.0), [0.0, 3.0]),
        (stats.norm(0.0, 1.0), [0.3, 40.0]),
    ],
)
def test_crps_quadrature_matches_integral(dist, ys):
    pred = as_predictive(dist, 1)
    for y in ys:
        got = pred._crps_quadrature(np.array([y]))[0]
        np.testing.assert_allclose(got, _crps_by_integral(dist, y), rtol=1e-10, atol=1e-12)


def test_quantiles_cdf_matches_interpolation_row_by_row():
    rng = np.random.default_rng(4)
    levels = np.array([0.05, 0.2, 0.5, 0.6, 0.95])
    Q = np.sort(np.round(rng.normal(size=(300, 5)), 1), axis=1)  # ties: zero-width segments
    y = np.round(rng.normal(size=300) * 1.5, 1)
    pred = PredictiveQuantiles(Q, levels)
    got = pred.cdf(y)
    for i in range(300):
        q = Q[i]
        lo = q[0] - levels[0] * (q[1] - q[0]) / (levels[1] - levels[0])
        hi = q[-1] + (1 - levels[-1]) * (q[-1] - q[-2]) / (levels[-1] - levels[-2])
        xs = np.concatenate([[lo], q, [hi]])
        ts = np.concatenate([[0.0], levels, [1.0]])
        # right-continuous: at a jump (equal knots) the CDF takes the upper value
        want = np.interp(y[i], xs, ts) if not np.any(xs == y[i]) else ts[xs == y[i]].max()
        assert got[i] == pytest.approx(want, abs=1e-12), i


@pytest.mark.parametrize(
    "make",
    [
        lambda mu, sd, rng: stats.logistic(mu, sd),
        lambda mu, sd, rng: stats.laplace(mu, sd),
        lambda mu, sd, rng: stats.t(1.3, mu, sd),
        lambda mu, sd, rng: stats.t(rng.uniform(1.2, 30.0, size=mu.size), mu, sd),
    ],
)
def test_closed_forms_match_quadrature(make):
    rng = np.random.default_rng(6)
    mu, sd = rng.normal(size=200), rng.uniform(0.3, 3.0, size=200)
    y = mu + 2 * sd * rng.standard_t(3, size=200)
    pred = as_predictive(make(mu, sd, rng), 200)
    np.testing.assert_allclose(pred.crps(y), pred._crps_quadrature(y), rtol=1e-10)
