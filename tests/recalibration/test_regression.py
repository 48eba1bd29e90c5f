"""Recalibrators of predictive distributions: StdScaling, QuantileRecalibration,
ConformalInterval and RecalibratedDistribution.

Values are checked against slow loop implementations written from the papers' formulas,
against uncertainty-toolbox 0.1.1 (golden numbers below), and by invariances."""

import math
import pickle

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from scipy.optimize import minimize_scalar
from sklearn.base import clone

from skcalib.metrics import PredictionInterval, PredictiveQuantiles, PredictiveSamples
from skcalib.metrics._regression._forms import as_predictive
from skcalib.recalibration import (
    ConformalInterval,
    QuantileRecalibration,
    RecalibratedDistribution,
    StdScaling,
)
from skcalib.recalibration._regression import interval_calibration_errors


def _data(n=500, seed=42, factor=1.7):
    """Normal predictions whose errors are ``factor`` times the predicted std."""
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=n)
    sigma = 0.5 + rng.random(n)
    y = mu + factor * sigma * rng.normal(size=n)
    return mu, sigma, y


# --------------------------------------------------------------------------------------
# slow references
# --------------------------------------------------------------------------------------


def slow_nll_scale(mu, sigma, y, w):
    """The factor s minimising the weighted Gaussian NLL, by a scalar search."""

    def nll(log_s):
        s = math.exp(log_s)
        total = 0.0
        for m, sd, t, wi in zip(mu, sigma, y, w, strict=True):
            total += wi * (math.log(s * sd) + 0.5 * ((t - m) / (s * sd)) ** 2)
        return total

    res = minimize_scalar(nll, bounds=(-5, 5), method="bounded", options={"xatol": 1e-10})
    return math.exp(res.x)


def slow_interval_calibration_error(z, w, scale, n_levels=100):
    """Mean over the levels p of |p - weight of {2 Phi(|z| / s) - 1 <= p}|, by loops."""
    central = [2.0 * stats.norm.cdf(abs(v) / scale) - 1.0 for v in z]
    total = sum(w)
    errors = []
    for p in np.linspace(0.0, 1.0, n_levels):
        inside = sum(wi for c, wi in zip(central, w, strict=True) if c <= p)
        errors.append(abs(p - inside / total))
    return sum(errors) / n_levels


def slow_conformal_quantile(scores, coverage):
    """The ceil((n + 1) c)-th smallest score (inf beyond n), by sorting a list."""
    s = sorted(scores)
    k = math.ceil((len(s) + 1) * coverage - 1e-9)
    return s[k - 1] if k <= len(s) else math.inf


# --------------------------------------------------------------------------------------
# StdScaling
# --------------------------------------------------------------------------------------


def test_std_scaling_nll_equals_slow_search_weighted():
    mu, sigma, y = _data(200)
    w = np.random.default_rng(1).integers(0, 4, size=200).astype(float)
    cal = StdScaling().fit(stats.norm(mu, sigma), y, sample_weight=w)
    assert cal.scale_ == pytest.approx(slow_nll_scale(mu, sigma, y, w), rel=1e-7)
    # closed form
    z2 = ((y - mu) / sigma) ** 2
    assert cal.scale_ == pytest.approx(math.sqrt(np.sum(w * z2) / np.sum(w)), rel=1e-12)
    # weights as repetitions
    rep = np.repeat(np.arange(200), w.astype(int))
    cal_rep = StdScaling().fit(stats.norm(mu[rep], sigma[rep]), y[rep])
    assert cal_rep.scale_ == pytest.approx(cal.scale_, rel=1e-12)
    out = cal.transform(stats.norm(mu[:5], sigma[:5]))
    assert_allclose(out.std(), cal.scale_ * sigma[:5])
    assert_allclose(out.mean(), mu[:5])


def test_std_scaling_mace_golden_uncertainty_toolbox():
    # uncertainty-toolbox 0.1.1 (numpy 2.4.6) on _data(): optimize_recalibration_ratio(mu,
    # sigma, y, criterion="ma_cal") = 1.707918254129048 and
    # metrics.mean_absolute_calibration_error(mu, r * sigma, y) at r = 0.5, 1.0, 1.7, 2.5
    mu, sigma, y = _data()
    z = np.abs((y - mu) / sigma)
    golden = {
        0.5: 0.30920000000000003,
        1.0: 0.15783393939393944,
        1.7: 0.008251313131313146,
        2.5: 0.11513999999999999,
    }
    error = interval_calibration_errors(z, np.ones_like(z))
    for r, value in golden.items():
        assert error(r) == pytest.approx(value, abs=1e-15)
    # weighted, against the loops
    w = np.random.default_rng(2).random(len(z))
    weighted = interval_calibration_errors(z, w)
    for r in (0.7, 1.3, 2.1):
        assert weighted(r) == pytest.approx(slow_interval_calibration_error(z, w, r), abs=1e-12)
    cal = StdScaling(criterion="mace").fit(stats.norm(mu, sigma), y)
    # the criterion is piecewise constant: both searches land in a flat region at least
    # as low as uncertainty-toolbox's
    ut_ratio = 1.707918254129048
    assert error(cal.scale_) <= error(ut_ratio) + 1e-12
    assert cal.scale_ == pytest.approx(ut_ratio, rel=1e-3)
    # and the NLL factor is near the true 1.7
    assert StdScaling().fit(stats.norm(mu, sigma), y).scale_ == pytest.approx(1.7, rel=0.05)


def test_std_scaling_every_form_and_input_types():
    mu, sigma, y = _data(300, seed=3)
    draws = mu[:, None] + sigma[:, None] * np.random.default_rng(0).normal(size=(300, 400))
    samples = PredictiveSamples(draws)
    cal = StdScaling().fit(samples, y)
    s = np.std(draws, axis=1)
    m = np.mean(draws, axis=1)
    assert cal.scale_ == pytest.approx(math.sqrt(np.mean(((y - m) / s) ** 2)), rel=1e-12)
    # pandas, float32 and lists for y_true and weights; inputs never modified
    y32 = pd.Series(y.astype(np.float32))
    before = y32.copy()
    w = [1.0] * 300
    cal32 = StdScaling().fit(stats.norm(mu, sigma), y32, sample_weight=w)
    pd.testing.assert_series_equal(y32, before)
    assert cal32.scale_ == pytest.approx(
        StdScaling().fit(stats.norm(mu, sigma), y.astype(np.float32)).scale_
    )
    # Student t: its std is used
    t = stats.t(5, loc=mu, scale=sigma)
    assert StdScaling().fit(t, y).scale_ == pytest.approx(
        math.sqrt(np.mean(((y - mu) / t.std()) ** 2))
    )


def test_std_scaling_errors():
    mu, sigma, y = _data(50)
    with pytest.raises(ValueError, match="different numbers of samples"):
        StdScaling().fit(stats.norm(mu, sigma), y[:-1])
    bad = y.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=r"y_true contains NaN \(first at index 3\)"):
        StdScaling().fit(stats.norm(mu, sigma), bad)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        StdScaling().fit(stats.norm(mu, sigma), y, sample_weight=-np.ones(50))
    with pytest.raises(ValueError, match="every residual"):
        StdScaling().fit(stats.norm(mu, sigma), mu)
    with pytest.raises(ValueError, match="criterion"):
        StdScaling(criterion="rms").fit(stats.norm(mu, sigma), y)
    with pytest.raises(ValueError, match="predictive distribution"):
        StdScaling().fit(mu, y)
    with pytest.raises(ValueError, match="PredictionInterval"):
        StdScaling().fit(PredictionInterval(mu - 1, mu + 1, 0.9), y)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        StdScaling().transform(stats.norm(mu, sigma))


# --------------------------------------------------------------------------------------
# QuantileRecalibration
# --------------------------------------------------------------------------------------


def test_quantile_recalibration_map_is_the_empirical_cdf_of_the_pit():
    mu, sigma, y = _data(300, seed=5)
    pit = stats.norm.cdf(y, mu, sigma)
    # steps (Kuleshov et al.): the map interpolates the empirical CDF at the PIT values
    cal = QuantileRecalibration(centered=False).fit(stats.norm(mu, sigma), y)
    slow = [sum(p <= q for p in pit) / len(pit) for q in pit]
    assert_allclose(cal.recalibrate_levels(pit), slow, atol=1e-12)
    # centred: the mid-points of the jumps, i.e. (rank - 1/2) / n
    cen = QuantileRecalibration().fit(stats.norm(mu, sigma), y)
    assert_allclose(cen.recalibrate_levels(pit), np.asarray(slow) - 0.5 / 300, atol=1e-12)
    assert cen.knots_x_[0] == 0 and cen.knots_x_[-1] == 1
    assert np.all(np.diff(cen.knots_r_) > 0)  # strictly increasing
    # isotonic pooling for a non-monotone target: weights that are zero and positive
    w = np.r_[np.zeros(100), np.ones(200)]
    part = QuantileRecalibration().fit(stats.norm(mu[100:], sigma[100:]), y[100:])
    weighted = QuantileRecalibration().fit(stats.norm(mu, sigma), y, sample_weight=w)
    grid = np.linspace(0, 1, 101)
    assert_allclose(weighted.recalibrate_levels(grid), part.recalibrate_levels(grid), atol=1e-12)


def test_quantile_recalibration_golden_uncertainty_toolbox():
    # uncertainty-toolbox 0.1.1 get_quantile_recalibrator(mu, sigma, y) on _data(),
    # quantiles at levels 0.05..0.95 of N(0, 1), N(1, 0.5^2), N(-2, 2^2).  Its map is an
    # isotonic fit on a grid of 100 levels, ours on the exact empirical CDF: they agree
    # in the middle, and ours is nearer the true quantiles (mu + 1.7 sigma z_tau) in the
    # tails, where the grid is coarse.
    ut = {
        0.05: [-2.572352110942889, -0.28617605547144453, -7.144704221885778],
        0.25: [-1.1790360068090129, 0.41048199659549356, -4.358072013618026],
        0.5: [-0.04305641147555158, 0.9784717942622242, -2.0861128229511032],
        0.75: [1.073987502640332, 1.536993751320166, 0.1479750052806641],
        0.95: [2.5653508240154674, 2.282675412007734, 3.130701648030935],
    }
    mu, sigma, y = _data()
    m, s = np.array([0.0, 1.0, -2.0]), np.array([1.0, 0.5, 2.0])
    for centered in (True, False):
        cal = QuantileRecalibration(centered=centered).fit(stats.norm(mu, sigma), y)
        q = cal.transform(stats.norm(m, s)).ppf(list(ut))
        for j, (tau, values) in enumerate(ut.items()):
            true = m + 1.7 * s * stats.norm.ppf(tau)
            if 0.25 <= tau <= 0.75:
                assert np.all(np.abs(q[:, j] - values) < 0.12 * s)  # 0.12 predicted std
            else:
                assert np.all(np.abs(q[:, j] - true) < np.abs(np.asarray(values) - true))


def test_recalibrated_distribution_quantities():
    mu, sigma, y = _data(400, seed=7, factor=2.0)
    base = stats.norm(mu, sigma)
    cal = QuantileRecalibration().fit(base, y)
    d = cal.transform(base)
    assert as_predictive(d) is d
    assert d.n == 400 and len(d) == 400
    # cdf(ppf(tau)) = tau and the quantiles increase
    levels = np.array([0.01, 0.1, 0.5, 0.9, 0.99])
    q = d.ppf(levels)
    assert np.all(np.diff(q, axis=1) > 0)
    assert_allclose(d.cdf(q[:, 2]), 0.5, atol=1e-9)
    # in-sample coverage of the central intervals is the nominal one (to 1/n)
    for c in (0.5, 0.8, 0.9):
        lo, hi = d.interval(c)
        assert np.mean((lo <= y) & (y <= hi)) == pytest.approx(c, abs=2.5 / 400)
    # the recalibrated distributions are about N(mu, (2 sigma)^2): moments, CRPS, density
    assert_allclose(d.mean(), mu, atol=0.15 * sigma.max())
    assert_allclose(d.std() / sigma, 2.0, rtol=0.15)
    ref = as_predictive(stats.norm(mu, 2 * sigma))
    assert np.mean(d.crps(y)) == pytest.approx(np.mean(ref.crps(y)), rel=0.05)
    assert np.all(np.isfinite(d.logpdf(y)))
    # the density integrates to 1: trapezoid on a fine grid of one row
    row = d.take([0])
    grid = np.linspace(mu[0] - 12 * sigma[0], mu[0] + 12 * sigma[0], 40001)
    pdf = np.exp([row.logpdf([g])[0] for g in grid[::40]])
    assert np.trapezoid(pdf, grid[::40]) == pytest.approx(1.0, abs=2e-3)
    # pickling keeps the values
    again = pickle.loads(pickle.dumps(d))
    assert_allclose(again.ppf(levels), q)
    assert_allclose(again.mean(), d.mean())


def test_recalibrated_distribution_identity_is_exact():
    # R = identity: every quantity equals the base's (the midpoint-rule errors cancel)
    mu, sigma, y = _data(50)
    base = stats.t(4, loc=mu, scale=sigma)
    d = RecalibratedDistribution(base, [0.0, 1.0], [0.0, 1.0])
    ref = as_predictive(base)
    assert_allclose(d.mean(), ref.mean(), atol=1e-12)
    assert_allclose(d.std(), ref.std(), rtol=1e-12)
    assert_allclose(d.crps(y), ref.crps(y), rtol=1e-10)
    assert_allclose(d.logpdf(y), ref.logpdf(y), rtol=1e-12)
    assert_allclose(d.ppf([0.1, 0.7]), ref.ppf([0.1, 0.7]), rtol=1e-12)
    # a slow midpoint rule of a non-trivial map matches the corrected mean to the rule's
    # error of the base (the correction removes it)
    d2 = RecalibratedDistribution(stats.norm(0.0, [1.0, 2.0]), [0, 0.5, 1], [0, 0.3, 1])
    u = (np.arange(200_000) + 0.5) / 200_000
    inv = np.where(u <= 0.3, u / 0.3 * 0.5, 0.5 + (u - 0.3) / 0.7 * 0.5)
    q = stats.norm.ppf(inv)[None, :] * np.array([1.0, 2.0])[:, None]
    assert_allclose(d2.mean(), q.mean(axis=1), atol=2e-4)
    assert_allclose(d2.std(), q.std(axis=1), rtol=2e-4)


def test_recalibrated_distribution_of_samples_and_quantiles():
    mu, sigma, y = _data(200, seed=11)
    rng = np.random.default_rng(0)
    samples = PredictiveSamples(mu[:, None] + sigma[:, None] * rng.normal(size=(200, 300)))
    cal = QuantileRecalibration().fit(samples, y)
    d = cal.transform(samples)
    lo, hi = d.interval(0.8)
    assert np.mean((lo <= y) & (y <= hi)) == pytest.approx(0.8, abs=0.03)
    levels = np.linspace(0.05, 0.95, 19)
    quants = PredictiveQuantiles(stats.norm.ppf(levels, mu[:, None], sigma[:, None]), levels)
    dq = QuantileRecalibration().fit(quants, y).transform(quants)
    assert dq.ppf([0.5]).shape == (200, 1)
    with pytest.raises(ValueError, match="PredictionInterval gives only"):
        QuantileRecalibration().fit(PredictionInterval(mu - 1, mu + 1, 0.9), y)


def test_recalibrated_distribution_errors():
    base = stats.norm([0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="knots_x must increase"):
        RecalibratedDistribution(base, [0.0, 0.5, 0.5, 1.0], [0.0, 0.2, 0.3, 1.0])
    with pytest.raises(ValueError, match="knots_r must be nondecreasing"):
        RecalibratedDistribution(base, [0.0, 0.5, 1.0], [0.0, 0.6, 0.5])
    with pytest.raises(ValueError, match="same length"):
        RecalibratedDistribution(base, [0.0, 1.0], [0.0, 0.5, 1.0])
    d = RecalibratedDistribution(base, [0.0, 1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="levels must lie strictly between 0 and 1"):
        d.ppf([0.0, 0.5])
    with pytest.raises(ValueError, match="coverage"):
        d.interval(1.5)


# --------------------------------------------------------------------------------------
# ConformalInterval
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [9, 10, 19, 99, 100])
@pytest.mark.parametrize("coverage", [0.5, 0.8, 0.9, 0.95])
def test_conformal_quantile_equals_slow(n, coverage):
    rng = np.random.default_rng(n)
    y_hat = rng.normal(size=n)
    y = y_hat + rng.standard_t(3, size=n)
    cal = ConformalInterval(coverage=coverage).fit(y_hat, y)
    expected = slow_conformal_quantile(np.abs(y - y_hat).tolist(), coverage)
    assert cal.quantile_ == expected
    assert cal.normalized_ is False


def test_conformal_coverage_guarantee_and_normalisation():
    # exchangeable calibration and test data: marginal coverage >= c (averaged over
    # many calibration draws), and normalised scores adapt the width to sigma
    rng = np.random.default_rng(0)
    hits = []
    for _ in range(60):
        sigma = 0.2 + rng.random(50)
        mu = rng.normal(size=50)
        y = mu + sigma * rng.normal(size=50)
        cal = ConformalInterval(coverage=0.8).fit(stats.norm(mu[:30], sigma[:30]), y[:30])
        iv = cal.transform(stats.norm(mu[30:], sigma[30:]))
        hits.append(np.mean((iv.lower <= y[30:]) & (y[30:] <= iv.upper)))
        assert_allclose(iv.upper - iv.lower, 2 * cal.quantile_ * sigma[30:])
    # (standard error of the mean coverage about 0.02)
    assert np.mean(hits) >= 0.8 - 0.04
    assert np.mean(hits) <= 0.8 + 1 / 31 + 0.04
    assert cal.normalized_ is True
    # normalize=False on distributions: absolute residuals around the mean
    cal = ConformalInterval(normalize=False).fit(stats.norm(mu, sigma), y)
    assert cal.quantile_ == slow_conformal_quantile(np.abs(y - mu).tolist(), 0.9)


def test_conformal_weights_count_as_repetitions():
    rng = np.random.default_rng(3)
    y_hat = rng.normal(size=60)
    y = y_hat + rng.normal(size=60)
    w = rng.integers(0, 4, size=60)
    rep = np.repeat(np.arange(60), w)
    for c in (0.5, 0.9, 0.97):
        a = ConformalInterval(coverage=c).fit(y_hat, y, sample_weight=w)
        b = ConformalInterval(coverage=c).fit(y_hat[rep], y[rep])
        assert a.quantile_ == b.quantile_
        assert a.quantile(0.7) == b.quantile(0.7)


def test_conformal_errors_and_coverage_argument():
    y_hat = np.arange(5.0)
    y = y_hat + np.array([0.1, -0.2, 0.3, -0.4, 0.5])
    cal = ConformalInterval(coverage=0.5).fit(y_hat, y)
    assert cal.quantile(0.9) == math.inf  # (n + 1) 0.9 = 5.4 > 5
    with pytest.raises(ValueError, match="too few calibration samples for coverage=0.9"):
        cal.transform(y_hat, coverage=0.9)
    iv = cal.transform(pd.Series(y_hat), coverage=0.5)
    assert isinstance(iv, PredictionInterval) and iv.coverage == 0.5
    assert_allclose(iv.upper - iv.lower, 2 * 0.3)
    with pytest.raises(ValueError, match="coverage"):
        cal.transform(y_hat, coverage=1.0)
    with pytest.raises(ValueError, match="coverage"):
        ConformalInterval(coverage=0).fit(y_hat, y)
    with pytest.raises(ValueError, match="normalize=True needs predictive distributions"):
        ConformalInterval(normalize=True).fit(y_hat, y)
    fitted = ConformalInterval().fit(stats.norm(y_hat, 1.0), y)
    with pytest.raises(ValueError, match="fitted on normalised residuals"):
        fitted.transform(y_hat)
    with pytest.raises(ValueError, match="different numbers of samples"):
        ConformalInterval().fit(y_hat, y[:3])


@pytest.mark.parametrize(
    "recalibrator", [StdScaling(), QuantileRecalibration(), ConformalInterval(coverage=0.8)]
)
def test_recalibrators_are_estimators(recalibrator):
    mu, sigma, y = _data(120)
    pred = stats.norm(mu, sigma)
    fitted = clone(recalibrator).fit(pred, y)
    assert fitted.fit(pred, y) is fitted
    again = pickle.loads(pickle.dumps(fitted))
    a = as_predictive(fitted.transform(pred)).interval(0.8)
    b = as_predictive(again.transform(pred)).interval(0.8)
    assert_allclose(a, b)
    # inputs are not modified
    y_copy = y.copy()
    clone(recalibrator).fit(pred, y)
    assert_allclose(y, y_copy)
    assert repr(recalibrator).startswith(type(recalibrator).__name__)


def test_saturated_pit_values_keep_every_quantity_finite():
    # forecasts 40 times too confident: most PIT values are 0 or 1 in floating point, yet
    # the quantiles stay finite (levels of the base kept strictly inside (0, 1))
    rng = np.random.default_rng(0)
    mu = rng.normal(size=300)
    y = mu + 20 * rng.normal(size=300)
    base = stats.norm(mu, 0.5)
    for centered in (True, False):
        d = QuantileRecalibration(centered=centered).fit(base, y).transform(base)
        assert np.all(np.isfinite(d.ppf([1e-9, 0.5, 1 - 1e-9])))
        assert np.all(np.isfinite(d.crps(y))) and np.all(np.isfinite(d.std()))


def test_location_scale_rule_equals_the_row_by_row_rule():
    # a scipy location-scale base takes the rule of 16,384 standard levels, computed
    # once; the row-by-row rule of 1,000 levels (every other form) agrees with it
    mu, sigma, y = _data(300, seed=13, factor=1.6)
    base = stats.norm(loc=mu, scale=sigma)
    d = QuantileRecalibration().fit(base, y).transform(base)

    class RowByRow(RecalibratedDistribution):
        def _location_scale(self):
            return None

    slow = RowByRow(base, d.knots_x, d.knots_r)
    assert d._location_scale() is not None
    assert_allclose(d.mean(), slow.mean(), atol=5e-3 * sigma.min())
    assert_allclose(d.std(), slow.std(), rtol=5e-3)
    assert_allclose(d.crps(y), slow.crps(y), rtol=1e-3)
    # a per-row shape parameter: row by row
    per_row = RecalibratedDistribution(stats.t(np.full(300, 6.0), mu, sigma), [0, 1], [0, 1])
    assert per_row._location_scale() is None
