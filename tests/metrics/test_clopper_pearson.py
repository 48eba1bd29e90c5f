"""Clopper-Pearson (exact binomial) intervals of :func:`reliability_curve`."""

import numpy as np
import pytest

from skcalib.metrics import reliability_curve
from skcalib.streaming import CalibrationAccumulator

# scipy.stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
GOLDEN = [
    (0, 2, 0.0, 0.841886116991607),
    (2, 2, 0.15811388300839305, 1.0),
    (3, 10, 0.06673951117773447, 0.652452850060008),
    (7, 20, 0.1539092047845412, 0.5921885345328283),
    (1, 1, 0.025000000000000022, 1.0),
]


def _one_bin(k, n):
    y = np.r_[np.ones(k, int), np.zeros(n - k, int)]
    p = np.full(n, 0.5)
    return y, p


@pytest.mark.parametrize(("k", "n", "low", "high"), GOLDEN)
def test_golden_binomtest(k, n, low, high):
    y, p = _one_bin(k, n)
    c = reliability_curve(
        y, p, n_bins=1, confidence_level=0.95, interval="clopper_pearson", labels=[0, 1]
    )
    assert c.prob_true_low[0] == pytest.approx(low, abs=1e-12)
    assert c.prob_true_high[0] == pytest.approx(high, abs=1e-12)


def test_all_zero_or_all_one_bins_have_width():
    y = [0, 0, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9]
    c = reliability_curve(y, p, n_bins=2, confidence_level=0.9, interval="clopper_pearson")
    assert c.prob_true_low[0] == 0.0 and c.prob_true_high[0] > 0
    assert c.prob_true_high[1] == 1.0 and c.prob_true_low[1] < 1


def test_wider_than_wilson_and_contains_p():
    rng = np.random.default_rng(3)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    w = rng.uniform(0.1, 3, size=400)
    for sw in (None, w):
        cp = reliability_curve(
            y, p, n_bins=10, confidence_level=0.95, interval="clopper_pearson", sample_weight=sw
        )
        wi = reliability_curve(y, p, n_bins=10, confidence_level=0.95, sample_weight=sw)
        assert (cp.prob_true_low <= cp.prob_true).all()
        assert (cp.prob_true <= cp.prob_true_high).all()
        assert (cp.prob_true_high - cp.prob_true_low >= wi.prob_true_high - wi.prob_true_low).all()


def test_default_is_wilson_and_empty_bins_nan():
    y, p = [0, 1, 1], [0.1, 0.15, 0.9]
    a = reliability_curve(y, p, n_bins=4, confidence_level=0.8)
    b = reliability_curve(y, p, n_bins=4, confidence_level=0.8, interval="wilson")
    np.testing.assert_array_equal(a.prob_true_low, b.prob_true_low)
    cp = reliability_curve(y, p, n_bins=4, confidence_level=0.8, interval="clopper_pearson")
    assert np.isnan(cp.prob_true_low[1]) and np.isnan(cp.prob_true_high[2])


def test_invalid_interval():
    with pytest.raises(ValueError, match="interval"):
        reliability_curve([0, 1], [0.2, 0.8], confidence_level=0.9, interval="agresti")


def test_streaming_passthrough():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    acc = CalibrationAccumulator().update(y, p)
    s = acc.reliability_curve(confidence_level=0.95, interval="clopper_pearson")
    b = reliability_curve(y, p, confidence_level=0.95, interval="clopper_pearson")
    np.testing.assert_allclose(s.prob_true_low, b.prob_true_low, equal_nan=True)
    np.testing.assert_allclose(s.prob_true_high, b.prob_true_high, equal_nan=True)
    with pytest.raises(ValueError, match="interval"):
        acc.reliability_curve(confidence_level=0.95, interval="bad")
