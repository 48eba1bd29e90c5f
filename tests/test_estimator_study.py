"""The claims of examples/plot_estimator_study.py, checked on smaller simulations.

The data model is the study's: predictions p ~ Beta(4, 2), labels y ~ Bernoulli(f(p))
with f(p) = p (calibrated) or f(p) = p**1.5 (over-confident), the protocol of Roelofs,
Cain, Shlens and Mozer, "Mitigating Bias in Calibration Error Estimation" (AISTATS 2022).
Each test draws a few dozen test sets with a fixed seed and asserts only differences that
are many standard errors wide (the standard errors are printed in the comments).
"""

import numpy as np
import pytest
from scipy import integrate, special, stats

from skcalib.metrics import (
    calibration_error_ci,
    expected_calibration_error,
    general_calibration_error,
    monotonic_sweep_calibration_error,
    smooth_calibration_error,
)

A, B = 4.0, 2.0
BETA = stats.beta(A, B)
EDGES = np.linspace(0, 1, 16)


def calibrated(p):
    return p


def over_confident(p):
    return p**1.5


def draw(f, n, rng):
    p = BETA.rvs(n, random_state=rng)
    return (rng.random(n) < f(p)).astype(int), p


def replicate(estimator, f, n, reps, seed):
    rng = np.random.default_rng(seed)
    return np.array([estimator(*draw(f, n, rng)) for _ in range(reps)])


def test_true_calibration_error_in_closed_form():
    # TCE_1 = E[p - p**1.5] (the gap has one sign) = E p - E p**1.5, with the Beta moments
    # E p**k = B(a + k, b) / B(a, b)
    closed = A / (A + B) - special.beta(A + 1.5, B) / special.beta(A, B)
    quad = integrate.quad(lambda p: abs(over_confident(p) - p) * BETA.pdf(p), 0, 1)[0]
    assert quad == pytest.approx(closed, rel=1e-9)
    assert closed == pytest.approx(0.107226, abs=1e-6)
    # E (p**1.5 - p)**2 = E p**3 - 2 E p**2.5 + E p**2
    moment = lambda k: special.beta(A + k, B) / special.beta(A, B)  # noqa: E731
    tce2 = np.sqrt(moment(3) - 2 * moment(2.5) + moment(2))
    quad2 = integrate.quad(lambda p: (over_confident(p) - p) ** 2 * BETA.pdf(p), 0, 1)[0]
    assert np.sqrt(quad2) == pytest.approx(tce2, rel=1e-8)
    # the large-sample limit of the equal-width ECE is TCE_1 here (no cancellation in a bin)
    y, p = draw(over_confident, 400_000, np.random.default_rng(0))
    assert expected_calibration_error(y, p) == pytest.approx(closed, abs=3e-3)


def test_equal_mass_versus_equal_width_bins_on_this_distribution():
    # calibrated model, n = 1000, 100 test sets: equal-width 0.0368 +- 0.0008, equal-mass
    # 0.0424 +- 0.0008 (mean +- standard error).  On Beta(4, 2) predictions equal-mass bins
    # are MORE biased with the same 15 bins: the claim of Roelofs et al. (2022) that
    # equal-mass binning is less biased does not hold for every distribution.
    width = replicate(expected_calibration_error, calibrated, 1000, 100, seed=1)
    mass = replicate(
        lambda y, p: general_calibration_error(y, p, strategy="quantile"),
        calibrated,
        1000,
        100,
        seed=1,
    )
    assert mass.mean() > width.mean() + 0.003


def test_data_driven_bins_and_smoothing_halve_the_bias_of_a_calibrated_model():
    # n = 100: equal-width ECE 0.112, sweep 0.060, smooth ECE 0.064 (true value 0)
    width = replicate(expected_calibration_error, calibrated, 100, 60, seed=2)
    sweep = replicate(monotonic_sweep_calibration_error, calibrated, 100, 60, seed=2)
    smooth = replicate(smooth_calibration_error, calibrated, 100, 60, seed=2)
    assert sweep.mean() < 0.7 * width.mean()
    assert smooth.mean() < 0.7 * width.mean()
    # and the smooth ECE varies least from one test set to the next (0.015 vs 0.025)
    assert smooth.std() < 0.8 * width.std()


def test_sweep_and_smooth_are_close_to_unbiased_for_the_miscalibrated_model():
    tce1 = 0.107226
    for estimator in (monotonic_sweep_calibration_error, smooth_calibration_error):
        values = replicate(estimator, over_confident, 1000, 40, seed=3)
        standard_error = values.std(ddof=1) / np.sqrt(values.size)  # about 0.002
        assert abs(values.mean() - tce1) < 4 * standard_error + 0.002


def test_debiased_l2_estimator_removes_most_of_the_bias():
    # Kumar, Liang and Ma, "Verified Uncertainty Calibration", NeurIPS 2019
    for f, tce2 in ((calibrated, 0.0), (over_confident, 0.11323)):
        plain = replicate(lambda y, p: general_calibration_error(y, p, norm="l2"), f, 300, 60, 4)
        debiased = replicate(
            lambda y, p: general_calibration_error(y, p, norm="l2", debias=True), f, 300, 60, 4
        )
        assert abs(debiased.mean() - tce2) < 0.5 * abs(plain.mean() - tce2)


def test_bias_of_the_plug_in_squared_error_is_the_sum_of_bin_variances_over_n():
    # Kumar et al.'s sample-size argument: for a calibrated model each bin's gap is a mean
    # of n_b independent terms y - p of variance E[p (1 - p) | bin], so
    # E[sum_b (n_b / n) gap_b**2] = sum_b E[p (1 - p) | bin] / n (over non-empty bins):
    # the bias grows with the number of bins and falls like 1 / n.
    n = 1000
    squared = replicate(
        lambda y, p: general_calibration_error(y, p, norm="l2") ** 2, calibrated, n, 200, 5
    )
    variances = []
    for lo, hi in zip(EDGES[:-1], EDGES[1:], strict=True):
        mass = BETA.cdf(hi) - BETA.cdf(lo)
        if mass * n < 1:  # these bins are empty in most test sets
            continue
        inside = integrate.quad(lambda p: p * (1 - p) * BETA.pdf(p), lo, hi)[0]
        variances.append(inside / mass)
    expected = sum(variances) / n
    # 200 test sets: the mean is within about 5 % of its expectation
    assert squared.mean() == pytest.approx(expected, rel=0.12)


def test_bootstrap_coverage():
    # 90 % percentile intervals of the 15-bin ECE (bin-level bootstrap)
    def covers(f, target, n, reps, seed):
        rng = np.random.default_rng(seed)
        hits = []
        for _ in range(reps):
            y, p = draw(f, n, rng)
            low, high = calibration_error_ci(
                expected_calibration_error,
                y,
                p,
                n_resamples=200,
                confidence_level=0.9,
                random_state=int(rng.integers(2**31)),
            )
            hits.append(low <= target <= high)
        return np.mean(hits)

    # miscalibrated model, n = 3000: close to nominal (the study: 0.88 over 200 sets)
    assert 0.75 <= covers(over_confident, 0.107226, 3000, 60, seed=6) <= 0.99
    # n = 100: the upward bias of the estimate pulls the interval above the target
    assert covers(over_confident, 0.107226, 100, 60, seed=7) < 0.4
    # calibrated model: the ECE is positive on every resample, 0 is never covered
    assert covers(calibrated, 0.0, 1000, 20, seed=8) == 0.0
