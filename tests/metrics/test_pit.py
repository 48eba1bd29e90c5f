"""pit_histogram and quantile_calibration_curve.

Independent sources: numpy's ``np.histogram`` (values off the edges, where its
left-closed bins agree with skcalib's right-closed ones), scipy's Normal quantile
function ``scipy.stats.norm.ppf`` (fraction of observations below the predicted quantile,
counted directly), and slow loops: the right-closed bin rule and the binomial quantile
``min{k : P(X <= k) >= q}`` summed with ``math.comb``.
"""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from skcalib.metrics import (
    PITHistogramResult,
    QuantileCalibrationCurveResult,
    pit_histogram,
    pit_normal,
    quantile_calibration_curve,
)

from ._result_checks import check_unpackable_result


def _slow_binom_ppf(q, n, p):
    cdf = 0.0
    for k in range(n + 1):
        cdf += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if cdf >= q - 1e-12:
            return k
    return n


def _slow_hist(pit, n_bins, w):
    edges = list(np.linspace(0, 1, n_bins + 1))
    counts = [0.0] * n_bins
    for v, wi in zip(pit, w, strict=True):
        b = next((m for m in range(n_bins) if v <= edges[m + 1]), n_bins - 1)
        counts[b] += wi
    return np.array(counts)


def test_histogram_toy_values():
    hist = pit_histogram([0.0, 0.1, 0.25, 0.5, 0.5, 1.0], n_bins=4)
    # right-closed bins (0, .25], (.25, .5], (.5, .75], (.75, 1]; 0 in the first
    np.testing.assert_array_equal(hist.bin_count, [3, 2, 0, 1])
    np.testing.assert_allclose(hist.density, np.array([3, 2, 0, 1]) * 4 / 6)
    np.testing.assert_array_equal(hist.bin_edges, np.linspace(0, 1, 5))


def test_histogram_equals_numpy_histogram_off_the_edges():
    rng = np.random.default_rng(0)
    pit = rng.uniform(size=5000)
    hist = pit_histogram(pit, n_bins=20)
    counts, edges = np.histogram(pit, bins=20, range=(0, 1))
    np.testing.assert_array_equal(hist.bin_count, counts)
    np.testing.assert_array_equal(hist.bin_edges, edges)
    dens, _ = np.histogram(pit, bins=20, range=(0, 1), density=True)
    np.testing.assert_allclose(hist.density, dens, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_histogram_matches_slow_loop(weighted):
    rng = np.random.default_rng(1)
    pit = np.round(rng.uniform(size=400), 1)  # many values exactly on edges
    w = rng.uniform(0, 2, size=400) if weighted else np.ones(400)
    hist = pit_histogram(pit, n_bins=10, sample_weight=w if weighted else None)
    np.testing.assert_allclose(hist.bin_count, _slow_hist(pit, 10, w), rtol=1e-12)
    np.testing.assert_allclose(hist.density.mean(), 1.0)


@pytest.mark.parametrize("n, n_bins, level", [(100, 10, 0.95), (1000, 20, 0.9), (37, 4, 0.99)])
def test_band_is_the_binomial_range(n, n_bins, level):
    hist = pit_histogram(np.linspace(0.001, 0.999, n), n_bins=n_bins, confidence_level=level)
    lo = _slow_binom_ppf((1 - level) / 2, n, 1 / n_bins)
    hi = _slow_binom_ppf(1 - (1 - level) / 2, n, 1 / n_bins)
    assert hist.band_low == pytest.approx(lo / n * n_bins)
    assert hist.band_high == pytest.approx(hi / n * n_bins)


def test_band_covers_uniform_samples_at_its_level():
    rng = np.random.default_rng(2)
    inside = []
    for _ in range(300):
        h = pit_histogram(rng.uniform(size=200), n_bins=10, confidence_level=0.9)
        inside.append((h.density >= h.band_low) & (h.density <= h.band_high))
    assert 0.88 <= np.mean(inside) <= 0.97  # pointwise coverage >= 0.9 (discreteness)


def test_weighted_band_uses_effective_size_and_weights_repeat():
    pit = np.array([0.1, 0.2, 0.6, 0.9])
    # integer weights give the counts of the repeated sample
    h = pit_histogram(pit, n_bins=2, sample_weight=[1, 2, 3, 1])
    np.testing.assert_array_equal(h.bin_count, [3, 4])
    rep = pit_histogram(np.repeat(pit, [1, 2, 3, 1]), n_bins=2)
    np.testing.assert_allclose(h.density, rep.density)
    # equal weights: the band of the unweighted sample
    a = pit_histogram(pit, n_bins=2)
    b = pit_histogram(pit, n_bins=2, sample_weight=np.full(4, 3.0))
    assert (a.band_low, a.band_high) == (b.band_low, b.band_high)


def test_quantile_curve_equals_counting_below_normal_quantiles():
    rng = np.random.default_rng(4)
    mu = rng.normal(size=3000)
    sd = rng.uniform(0.5, 2, size=3000)
    y = mu + 1.5 * sd * rng.normal(size=3000)  # over-confident forecasts
    levels = np.array([0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95])
    curve = quantile_calibration_curve(pit_normal(y, mu, sd), levels=levels)
    direct = [(y <= norm.ppf(t, loc=mu, scale=sd)).mean() for t in levels]
    np.testing.assert_allclose(curve.observed_frequency, direct, atol=1 / 3000)
    np.testing.assert_array_equal(curve.levels, levels)
    # over-confident: too many observations in the tails
    assert curve.observed_frequency[0] > 0.05 and curve.observed_frequency[-1] < 0.95


def test_quantile_curve_toy_and_default_levels():
    curve = quantile_calibration_curve([0.2, 0.2, 0.5, 1.0])
    np.testing.assert_allclose(curve.levels, np.linspace(0, 1, 21))
    expected = [np.mean(np.array([0.2, 0.2, 0.5, 1.0]) <= t) for t in np.linspace(0, 1, 21)]
    np.testing.assert_allclose(curve.observed_frequency, expected)
    w = quantile_calibration_curve([0.2, 0.5], levels=[0.3, 0.6], sample_weight=[3, 1])
    np.testing.assert_allclose(w.observed_frequency, [0.75, 1.0])


def test_quantile_curve_band():
    curve = quantile_calibration_curve(
        np.linspace(0, 1, 50), levels=[0.0, 0.1, 0.5, 1.0], confidence_level=0.95
    )
    lo = [_slow_binom_ppf(0.025, 50, t) / 50 for t in (0.0, 0.1, 0.5, 1.0)]
    hi = [_slow_binom_ppf(0.975, 50, t) / 50 for t in (0.0, 0.1, 0.5, 1.0)]
    np.testing.assert_allclose(curve.band_low, lo)
    np.testing.assert_allclose(curve.band_high, hi)
    without = quantile_calibration_curve([0.5])
    assert without.band_low is None and without.band_high is None


def test_histogram_unpacks_as_numpy_histogram_with_density():
    """Regression: the histogram was a Bunch, whose unpacking gave its five keys."""
    rng = np.random.default_rng(2)
    pit = rng.beta(2, 3, size=4000)
    hist = pit_histogram(pit, n_bins=8)
    density, bin_edges = hist
    want_density, want_edges = np.histogram(pit, bins=8, range=(0, 1), density=True)
    np.testing.assert_allclose(density, want_density, rtol=1e-12)
    np.testing.assert_array_equal(bin_edges, want_edges)
    check_unpackable_result(hist, PITHistogramResult, ("density", "bin_edges"))
    assert hist.bin_count.sum() == 4000 and hist.band_low < 1 < hist.band_high


def test_quantile_curve_unpacks_as_observed_then_levels():
    """Observed, then nominal: the order of reliability_curve (prob_true, prob_pred)."""
    pit = np.array([0.05, 0.3, 0.35, 0.8, 0.9])
    levels = [0.1, 0.4, 0.85]
    curve = quantile_calibration_curve(pit, levels=levels, confidence_level=0.9)
    observed, nominal = curve
    np.testing.assert_allclose(observed, [np.mean(pit <= t) for t in levels])
    np.testing.assert_array_equal(nominal, levels)
    names = ("observed_frequency", "levels")
    check_unpackable_result(curve, QuantileCalibrationCurveResult, names)
    assert curve.band_low.shape == curve.band_high.shape == (3,)  # attributes only


@pytest.mark.parametrize("func", [pit_histogram, quantile_calibration_curve])
def test_bad_input(func):
    with pytest.raises(ValueError, match=r"pit_values\[1\] = 1.5"):
        func([0.1, 1.5])
    with pytest.raises(ValueError, match="pit_values.*NaN"):
        func([0.1, np.nan])
    with pytest.raises(ValueError, match="pit_values is empty"):
        func([])
    with pytest.raises(ValueError, match="pit_values must be a 1-D"):
        func([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(ValueError, match="sample_weight has 3 elements but pit_values has 2"):
        func([0.1, 0.2], sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        func([0.1, 0.2], sample_weight=[1, -1])


def test_bad_levels():
    with pytest.raises(ValueError, match="levels must lie in"):
        quantile_calibration_curve([0.1], levels=[0.5, 1.2])
    with pytest.raises(ValueError, match="levels"):
        quantile_calibration_curve([0.1], levels=[np.nan])


def test_inputs_not_modified_and_float32():
    pit = np.array([0.3, 0.1, 0.2], dtype=np.float32)
    before = pit.copy()
    a = pit_histogram(pit, n_bins=2)
    quantile_calibration_curve(pit)
    np.testing.assert_array_equal(pit, before)
    b = pit_histogram(pit.astype(np.float64), n_bins=2)
    np.testing.assert_array_equal(a.bin_count, b.bin_count)


@pytest.mark.parametrize("many_levels", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_quantile_curve_matches_slow_loop(weighted, many_levels):
    # few levels are counted by comparisons, many (> 64) by a binary search: both give
    # the slow loop's values, with ties between values and levels
    rng = np.random.default_rng(5)
    pit = np.round(rng.uniform(size=300), 2)  # ties with the levels
    w = rng.uniform(0, 2, size=300) if weighted else np.ones(300)
    levels = np.array([0.5, 0.1, 0.9, 0.1, 0.0, 1.0, 0.37])  # unsorted, repeated
    if many_levels:
        levels = np.concatenate([levels, np.round(rng.uniform(size=100), 2)])
    curve = quantile_calibration_curve(pit, levels=levels, sample_weight=w if weighted else None)
    slow = [sum(wi for v, wi in zip(pit, w, strict=True) if v <= t) / w.sum() for t in levels]
    np.testing.assert_allclose(curve.observed_frequency, slow, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=0, max_size=30
    ),
    n_bins=st.integers(1, 12),
)
def test_any_input_gives_finite_values_or_a_value_error(values, n_bins):
    for func, kwargs in (
        (pit_histogram, {"n_bins": n_bins}),
        (quantile_calibration_curve, {"confidence_level": 0.9}),
    ):
        try:
            out = func(np.array(values, dtype=np.float64), **kwargs)
        except ValueError as exc:
            assert "pit_values" in str(exc)
            continue
        for field in dataclasses.fields(out):
            assert np.all(np.isfinite(getattr(out, field.name))), field.name
        if func is pit_histogram:
            assert out.bin_count.sum() == len(values)
        else:
            assert np.all(np.diff(out.observed_frequency) >= 0)
