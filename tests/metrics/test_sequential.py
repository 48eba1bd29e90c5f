"""SequentialCalibrationTest: the e-value is a mixture of likelihood ratios; false alarms
stay below alpha over any number of looks; miscalibrated streams are rejected."""

import itertools
import pickle

import numpy as np
import pytest
from scipy.special import expit, logit

from skcalib.metrics import SequentialCalibrationTest
from skcalib.metrics._groups._sequential import INTERCEPTS, SLOPES


def _naive_path(y, p):
    """The average over the grid of the products of the likelihood ratios, after each
    sample."""
    total = np.zeros(len(p))
    for a, b in itertools.product(INTERCEPTS, SLOPES):
        q = expit(a + b * logit(p))
        total += np.cumprod(np.where(y == 1, q / p, (1 - q) / (1 - p)))
    return total / (len(INTERCEPTS) * len(SLOPES))


def _naive_evalue(y, p):
    return _naive_path(y, p)[-1]


def test_evalue_is_the_mixture_of_likelihood_ratios_and_chunking_does_not_matter():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.1, 0.9, 300)
    y = (rng.random(300) < p**1.2).astype(int)
    one = SequentialCalibrationTest().update(y, p)
    assert one.evalue == pytest.approx(_naive_evalue(y, p), rel=1e-9)
    many = SequentialCalibrationTest()
    for start in range(0, 300, 37):
        many.update(y[start : start + 37], p[start : start + 37])
    assert many.evalue == pytest.approx(one.evalue, rel=1e-10)
    assert many.max_evalue == pytest.approx(one.max_evalue, rel=1e-10)
    assert many.n_samples == 300
    # the running maximum is over every sample, not only the looks
    running = _naive_path(y, p).max()
    assert one.max_evalue == pytest.approx(max(1.0, running), rel=1e-9)
    assert one.pvalue == pytest.approx(min(1.0, 1 / one.max_evalue))
    assert SequentialCalibrationTest().evalue == 1.0


def test_false_alarms_stay_below_alpha_over_many_looks():
    """120 calibrated streams of 1,000 forecasts, looked at after every chunk of 100
    (10 looks, and inside the chunks): the fraction ever rejected stays below alpha,
    while a fixed-sample test repeated at every look rejects far more often."""
    from skcalib.metrics import cumulative_calibration_test

    rng = np.random.default_rng(1)
    rejected = repeated = 0
    for _ in range(120):
        test = SequentialCalibrationTest(alpha=0.1)
        p = rng.uniform(0.02, 0.98, 1000)
        y = (rng.random(1000) < p).astype(int)
        looks = []
        for stop in range(100, 1001, 100):
            test.update(y[stop - 100 : stop], p[stop - 100 : stop])
            looks.append(cumulative_calibration_test(y[:stop], p[:stop]).pvalue < 0.1)
        rejected += test.rejected
        repeated += any(looks)
    assert rejected / 120 <= 0.1
    assert repeated / 120 > 0.15


@pytest.mark.parametrize(
    "truth",
    [
        lambda p: np.clip(p + 0.05, 0, 1),  # under-estimated
        lambda p: 0.5 + 0.75 * (p - 0.5),  # over-confident
        lambda p: expit(1.4 * logit(p)),  # under-confident
    ],
)
def test_power_against_miscalibrated_streams(truth):
    rng = np.random.default_rng(2)
    times = []
    for _ in range(8):
        test = SequentialCalibrationTest()
        p = rng.uniform(0.05, 0.95, 6000)
        y = (rng.random(6000) < truth(p)).astype(int)
        for start in range(0, 6000, 1000):
            test.update(y[start : start + 1000], p[start : start + 1000])
        assert test.rejected and test.pvalue <= 0.05
        times.append(test.rejection_time)
    assert np.median(times) < 4000


def test_rejection_time_is_the_first_crossing():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.05, 0.95, 4000)
    y = (rng.random(4000) < 0.5 + 0.6 * (p - 0.5)).astype(int)
    test = SequentialCalibrationTest(alpha=0.01).update(y, p)
    t = test.rejection_time
    assert t is not None
    path = _naive_path(y, p)
    assert path[t - 1] >= 100 > path[: t - 1].max()
    # once rejected, it stays rejected
    test.update((rng.random(1000) < 0.5).astype(int), np.full(1000, 0.5))
    assert test.rejected and test.rejection_time == t


def test_multiclass_top_label_and_classwise():
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(3), 3000)
    y = np.array([rng.choice(3, p=r) for r in P])
    top = SequentialCalibrationTest().update(y, P)
    conf = P.max(axis=1)
    correct = (P.argmax(axis=1) == y).astype(int)
    assert top.evalue == pytest.approx(_naive_evalue(correct, conf), rel=1e-8)
    cw = SequentialCalibrationTest(multiclass="classwise").update(y, P)
    per_class = [_naive_evalue((y == k).astype(int), P[:, k]) for k in range(3)]
    assert cw.evalue == pytest.approx(np.mean(per_class), rel=1e-8)
    # the classes of the first chunk are kept: a later chunk may miss one
    cw.update(np.array([0, 0]), P[:2])
    assert cw.n_samples == 3002


def test_state_pickles_and_bad_input():
    rng = np.random.default_rng(5)
    p = rng.random(100)
    test = SequentialCalibrationTest().update((rng.random(100) < p).astype(int), p)
    clone = pickle.loads(pickle.dumps(test))
    assert clone.evalue == test.evalue and clone.n_samples == 100
    assert "n_samples=100" in repr(test)
    with pytest.raises(ValueError, match="alpha"):
        SequentialCalibrationTest(alpha=1.5)
    with pytest.raises(ValueError, match="y_proba"):
        test.update([0, 1], [0.5, np.nan])
    with pytest.raises(ValueError, match="y_proba"):
        test.update([0, 1], [0.5, 1.2])
    # certain forecasts contradicted: an enormous but finite e-value
    t = SequentialCalibrationTest().update([1], [0.0])
    assert t.rejected and np.isfinite(t.evalue)
