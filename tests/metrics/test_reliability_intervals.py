"""Per-bin Wilson score intervals of ``reliability_curve(confidence_level=...)``.

Golden values: statsmodels 0.15.0,
``statsmodels.stats.proportion.proportion_confint(count, nobs, alpha, method="wilson")``
(statsmodels/stats/proportion.py), computed once; for weighted data ``count`` was the
weighted frequency times the effective sample size and ``nobs`` the effective sample size
``(sum w)^2 / sum w^2`` of each bin.
"""

import math

import numpy as np
import pytest
from scipy.stats import norm

from skcalib.metrics import reliability_curve

from ._slow_calibration import slow_groups, slow_stats

# three non-empty bins of n_bins=4 (the third bin, (0.5, 0.75], is empty):
# 0 of 3 positives at p=0.1, 2 of 5 at p=0.4, 7 of 10 at p=0.9
Y = np.array([0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
P = np.array([0.1] * 3 + [0.4] * 5 + [0.9] * 10)
W = np.array([1.0, 2, 0.5, 3, 1, 1, 2, 0.5, 1, 2, 3, 1, 2, 3, 1, 2, 3, 4])

# statsmodels 0.15.0 proportion_confint([0, 2, 7], [3, 5, 10], method="wilson")
GOLDEN = {
    0.95: (
        [5.551115123125783e-17, 0.11762077423264783, 0.39677814746114537],
        [0.5614970317550454, 0.769275718723987, 0.8922087325936989],
    ),
    0.9: (
        [0.0, 0.14270647201921305, 0.44169979586983493],
        [0.47419557415751296, 0.7275168281338072, 0.873123416096802],
    ),
}
# statsmodels 0.15.0, weighted frequencies W above, effective sizes
# [2.3333333333333335, 3.6885245901639343, 8.344827586206897], alpha=0.05
GOLDEN_WEIGHTED = (
    [5.551115123125783e-17, 0.15959144068085046, 0.2847217459188887],
    [0.6221195345317923, 0.8730648914685244, 0.8397822521531686],
)
NONEMPTY = [0, 1, 3]


@pytest.mark.parametrize("level", sorted(GOLDEN))
def test_wilson_matches_statsmodels(level):
    curve = reliability_curve(Y, P, n_bins=4, confidence_level=level)
    low, high = GOLDEN[level]
    np.testing.assert_allclose(curve.prob_true_low[NONEMPTY], low, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(curve.prob_true_high[NONEMPTY], high, rtol=1e-12, atol=1e-15)
    # the empty bin has no interval
    assert np.isnan(curve.prob_true_low[2]) and np.isnan(curve.prob_true_high[2])


def test_wilson_weighted_uses_the_effective_sample_size():
    curve = reliability_curve(Y, P, n_bins=4, confidence_level=0.95, sample_weight=W)
    low, high = GOLDEN_WEIGHTED
    np.testing.assert_allclose(curve.prob_true_low[NONEMPTY], low, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(curve.prob_true_high[NONEMPTY], high, rtol=1e-12, atol=1e-15)
    # scale-free: multiplying every weight by 7 changes nothing
    scaled = reliability_curve(Y, P, n_bins=4, confidence_level=0.95, sample_weight=7 * W)
    np.testing.assert_allclose(scaled.prob_true_low, curve.prob_true_low, equal_nan=True)
    np.testing.assert_allclose(scaled.prob_true_high, curve.prob_true_high, equal_nan=True)


def test_wilson_equal_weights_equal_no_weights():
    a = reliability_curve(Y, P, n_bins=4, confidence_level=0.9)
    b = reliability_curve(Y, P, n_bins=4, confidence_level=0.9, sample_weight=np.full(18, 2.5))
    np.testing.assert_allclose(a.prob_true_low, b.prob_true_low, equal_nan=True, rtol=1e-12)
    np.testing.assert_allclose(a.prob_true_high, b.prob_true_high, equal_nan=True, rtol=1e-12)


def test_without_confidence_level_no_interval():
    curve = reliability_curve(Y, P, n_bins=4)
    assert curve.prob_true_low is None and curve.prob_true_high is None


def _slow_wilson(p, n, level):
    z = norm.ppf(0.5 + level / 2)
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(center - half, 0.0), min(center + half, 1.0)


@pytest.mark.parametrize("multiclass", ["auto", "top_label", "classwise"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
def test_wilson_matches_slow_reference_on_random_data(multiclass, strategy, weighted):
    rng = np.random.default_rng(3)
    n, k = 300, 3
    proba = rng.dirichlet(np.ones(k), size=n)
    y = np.array([rng.choice(k, p=row) for row in proba])
    sw = rng.uniform(0, 3, size=n) if weighted else None
    curve = reliability_curve(
        y,
        proba,
        n_bins=7,
        strategy=strategy,
        multiclass=multiclass,
        confidence_level=0.8,
        sample_weight=sw,
    )
    groups = slow_groups(y, proba, multiclass=multiclass, sample_weight=sw)
    stats = slow_stats(groups, n_bins=7, strategy=strategy)
    low = np.atleast_2d(curve.prob_true_low)
    high = np.atleast_2d(curve.prob_true_high)
    for g, (cnt, _, st, _, sq) in enumerate(stats):
        for b in range(7):
            if cnt[b] == 0:
                assert np.isnan(low[g, b]) and np.isnan(high[g, b])
                continue
            n_eff = cnt[b] ** 2 / sq[b]
            lo, hi = _slow_wilson(st[b] / cnt[b], n_eff, 0.8)
            assert low[g, b] == pytest.approx(lo, rel=1e-9, abs=1e-12)
            assert high[g, b] == pytest.approx(hi, rel=1e-9, abs=1e-12)
            assert low[g, b] <= curve.prob_true.reshape(low.shape)[g, b] <= high[g, b]


def test_wilson_interval_shrinks_with_more_data_and_covers():
    # the same frequency on 10x the samples gives a narrower interval
    small = reliability_curve(Y, P, n_bins=4, confidence_level=0.95)
    big = reliability_curve(np.tile(Y, 10), np.tile(P, 10), n_bins=4, confidence_level=0.95)
    width_small = small.prob_true_high - small.prob_true_low
    width_big = big.prob_true_high - big.prob_true_low
    assert np.all(width_big[NONEMPTY] < width_small[NONEMPTY])


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, "0.9"])
def test_bad_confidence_level(level):
    with pytest.raises(ValueError, match="confidence_level"):
        reliability_curve(Y, P, n_bins=4, confidence_level=level)
