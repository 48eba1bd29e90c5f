"""Smooth ECE (Blasiok and Nakkiran 2023) and its smoothed reliability curve.

Golden values: the authors' ``relplot`` package, version 1.0.3 (``relplot.smECE(f, y)``
and ``relplot.smECE_sigma(f, y, 0.05)`` from ``relplot/metrics.py``), computed once on
the data sets below (numpy ``default_rng`` streams, stable across numpy versions).
relplot reflects the kernel once on each side, discretises on its own grid and stops
its bandwidth bisection at a resolution of 2^-10; skcalib solves the fixed point to
machine precision with every reflection, hence agreement within a few percent.
"""

import numpy as np
import pytest
from scipy.integrate import trapezoid

from skcalib.metrics import (
    SmoothReliabilityCurveResult,
    smooth_calibration_error,
    smooth_reliability_curve,
)
from skcalib.metrics._calibration._smooth import _smooth_fit

from ._result_checks import check_unpackable_result
from ._slow_statistical import slow_smece_sigma


def _case(name):
    if name == "sq_10k":
        rng = np.random.default_rng(0)
        p = rng.random(10000)
        y = rng.random(10000) < p**2
    elif name == "cal_2k":
        rng = np.random.default_rng(1)
        p = rng.random(2000)
        y = rng.random(2000) < p
    elif name == "beta_shift_5k":
        rng = np.random.default_rng(2)
        p = rng.beta(2, 5, 5000)
        y = rng.random(5000) < np.clip(p + 0.1, 0, 1)
    elif name == "overconf_300":
        rng = np.random.default_rng(3)
        p = rng.random(300)
        y = rng.random(300) < 0.5 + 0.5 * (p - 0.5)
    else:  # "cal_100k"
        rng = np.random.default_rng(4)
        p = rng.random(100000)
        y = rng.random(100000) < p
    return y.astype(int), p


#: relplot 1.0.3: (smECE(f, y), smECE_sigma(f, y, 0.05))
RELPLOT_1_0_3 = {
    "sq_10k": (0.17636300979401162, 0.1760067628858178),
    "cal_2k": (0.02341870049496573, 0.018356143799186573),
    "beta_shift_5k": (0.10015785598920345, 0.10029637202738419),
    "overconf_300": (0.16792044787085414, 0.19262391567904938),
    "cal_100k": (0.006414658293708885, 0.0029273443847778764),
}


@pytest.mark.parametrize("name", sorted(RELPLOT_1_0_3))
def test_agrees_with_relplot(name):
    y, p = _case(name)
    auto, at_005 = RELPLOT_1_0_3[name]
    assert smooth_calibration_error(y, p) == pytest.approx(auto, rel=0.03)
    assert smooth_calibration_error(y, p, bandwidth=0.05) == pytest.approx(at_005, rel=0.01)


@pytest.mark.parametrize("sigma", [0.03, 0.1, 0.4])
def test_fixed_bandwidth_matches_direct_integration(sigma):
    rng = np.random.default_rng(5)
    p = rng.beta(0.7, 0.7, 250)  # mass near both boundaries: the reflections matter
    y = (rng.random(250) < p**1.5).astype(int)
    w = rng.random(250)
    got = smooth_calibration_error(y, p, bandwidth=sigma)
    assert got == pytest.approx(slow_smece_sigma(p, y, sigma), rel=5e-3)
    got_w = smooth_calibration_error(y, p, bandwidth=sigma, sample_weight=w)
    assert got_w == pytest.approx(slow_smece_sigma(p, y, sigma, w=w), rel=5e-3)


def test_bandwidth_is_the_fixed_point():
    for name in ("sq_10k", "cal_2k", "overconf_300"):
        y, p = _case(name)
        grid, sigma = _smooth_fit(y, p, "auto", "auto", None, None, None)
        assert grid.smece(sigma) == pytest.approx(sigma, rel=1e-9)
        curve = smooth_reliability_curve(y, p)
        assert curve.bandwidth == pytest.approx(sigma)
        assert curve.smece == pytest.approx(smooth_calibration_error(y, p))


def test_hand_computed_constant_residual():
    # every prediction 0.5 and every outcome 1: the smoothed residual is 0.5 times the
    # density, whose integral is 1, so smECE_sigma = 0.5 for every bandwidth
    y, p = np.ones(50, int), np.full(50, 0.5)
    for sigma in (0.01, 0.1, 1.0):
        assert smooth_calibration_error(y, p, bandwidth=sigma) == pytest.approx(0.5, rel=1e-9)
    # the fixed point: sigma = 0.5
    grid, sigma = _smooth_fit(y, p, "auto", "auto", None, None, None)
    assert sigma == pytest.approx(0.5, rel=1e-9)


def test_curve_recovers_the_calibration_function():
    rng = np.random.default_rng(6)
    p = rng.random(200_000)
    y = (rng.random(200_000) < p**2).astype(int)
    # a narrow bandwidth (the automatic one, sigma = smECE = 1/6 here, smooths the
    # curve heavily: that is the price of its consistency)
    curve = smooth_reliability_curve(y, p, n_points=21, bandwidth=0.02)
    inner = slice(3, 18)  # away from the boundaries
    np.testing.assert_allclose(curve.prob_true[inner], curve.prob_pred[inner] ** 2, atol=0.02)
    assert trapezoid(curve.density, curve.prob_pred) == pytest.approx(1.0, abs=0.02)
    np.testing.assert_allclose(curve.density[inner], 1.0, atol=0.05)


def test_curve_unpacks_as_prob_true_prob_pred():
    """Regression: the curve was a Bunch, whose unpacking gave its five keys."""
    rng = np.random.default_rng(8)
    p = rng.random(50_000)
    y = (rng.random(50_000) < p**2).astype(int)
    curve = smooth_reliability_curve(y, p, n_points=11, bandwidth=0.03)
    prob_true, prob_pred = curve  # in the order of reliability_curve / calibration_curve
    np.testing.assert_array_equal(prob_pred, np.linspace(0, 1, 11))
    inner = slice(2, 9)
    np.testing.assert_allclose(prob_true[inner], prob_pred[inner] ** 2, atol=0.03)
    check_unpackable_result(curve, SmoothReliabilityCurveResult, ("prob_true", "prob_pred"))
    assert curve.bandwidth == 0.03 and curve.density.shape == (11,)
    assert curve.smece == pytest.approx(smooth_calibration_error(y, p, bandwidth=0.03))


def test_calibrated_is_small_miscalibrated_is_large():
    rng = np.random.default_rng(7)
    p = rng.random(50_000)
    assert smooth_calibration_error((rng.random(50_000) < p).astype(int), p) < 0.01
    # overconfident by a known amount: |a(p) - p| = |p - 1/2| / 2, mean 1/8
    y = (rng.random(50_000) < 0.5 + 0.5 * (p - 0.5)).astype(int)
    assert smooth_calibration_error(y, p) == pytest.approx(0.125, abs=0.02)


def test_top_label_equals_confidence_against_correctness():
    rng = np.random.default_rng(8)
    P = rng.dirichlet(np.ones(4), size=500)
    y = rng.integers(0, 4, 500)
    conf = P.max(axis=1)
    correct = (P.argmax(axis=1) == y).astype(int)
    assert smooth_calibration_error(y, P) == pytest.approx(
        smooth_calibration_error(correct, conf), rel=1e-12
    )


def test_bad_input():
    with pytest.raises(ValueError, match="'bandwidth' parameter"):
        smooth_calibration_error([0, 1], [0.2, 0.7], bandwidth=0)
    with pytest.raises(ValueError, match="'bandwidth' parameter"):
        smooth_calibration_error([0, 1], [0.2, 0.7], bandwidth="scott")
    with pytest.raises(ValueError, match="'multiclass' parameter"):
        smooth_calibration_error([0, 1], [0.2, 0.7], multiclass="classwise")
    with pytest.raises(ValueError, match="'n_points' parameter"):
        smooth_reliability_curve([0, 1], [0.2, 0.7], n_points=1)
    with pytest.raises(ValueError, match="probabilities"):
        smooth_calibration_error([0, 1], [0.2, 1.7])
    with pytest.raises(ValueError, match="NaN"):
        smooth_reliability_curve([0, 1], [0.2, np.nan])
