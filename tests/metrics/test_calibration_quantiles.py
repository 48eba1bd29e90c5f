"""Tests of expected_calibration_error_quantiles (tfp.stats.expected_calibration_error_quantiles).

Golden values: the example of the docstring of
``tfp.stats.expected_calibration_error_quantiles`` (tensorflow-probability,
``tensorflow_probability/python/stats/calibration.py``), recomputed in float64.  A slow
loop implementation written from TFP's code (``tfp.stats.quantiles`` with
``interpolation='nearest'`` and ``_find_bins``) is compared on random data.
"""

import math

import numpy as np
import pytest

from skcalib.metrics import CalibrationErrorQuantilesResult, expected_calibration_error_quantiles
from skcalib.metrics._calibration._quantiles import (
    tfp_assign_bins,
    tfp_quantile_bin_edges,
    tfp_quantile_edge_indices,
)

from ._result_checks import check_unpackable_result

HIT = [0, 0, 1, 0, 1, 1]
PRED = [0.1, 0.05, 0.5, 0.2, 0.99, 0.99]


# --------------------------------------------------------------------------------------
# the documented example
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("log_space_bins", [False, True])
def test_documented_example(log_space_bins):
    res = expected_calibration_error_quantiles(
        HIT, np.log(PRED), n_bins=3, log_space_bins=log_space_bins
    )
    # TFP's six outputs, in its order: ece, acc, conf, cnt, edges, bucket
    names = ("ece", "bin_accuracy", "bin_confidence", "bin_count", "bin_edges_log", "bin")
    check_unpackable_result(res, CalibrationErrorQuantilesResult, names)
    ece, acc, conf, cnt, edges, bucket = res
    assert ece == pytest.approx(0.145, rel=1e-14)
    np.testing.assert_array_equal(acc, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(conf, [0.075, 0.2, (0.5 + 0.99 + 0.99) / 3], rtol=1e-14)
    np.testing.assert_array_equal(cnt, [2.0, 1.0, 3.0])
    np.testing.assert_array_equal(edges, np.log([0.05, 0.2, 0.5, 0.99]))
    np.testing.assert_array_equal(bucket, [0, 0, 2, 1, 2, 2])
    assert isinstance(res.ece, float)
    # (2 * 0.075 + 1 * 0.2 + 3 * (1 - 0.8266667)) / 6
    assert res.ece == pytest.approx(0.145, rel=1e-14)
    assert res.ece == pytest.approx(0.14500000000000002, rel=1e-15)
    np.testing.assert_array_equal(res.bin_accuracy, [0.0, 0.0, 1.0])
    np.testing.assert_allclose(
        res.bin_confidence, [0.075, 0.2, (0.5 + 0.99 + 0.99) / 3], rtol=1e-14
    )
    assert np.float32(res.bin_confidence[2]) == np.float32(0.82666665)  # TFP's float32
    np.testing.assert_array_equal(res.bin_count, [2.0, 1.0, 3.0])
    np.testing.assert_array_equal(res.bin_edges_log, np.log([0.05, 0.2, 0.5, 0.99]))
    np.testing.assert_allclose(
        res.bin_edges_log, [-2.99573227, -1.60943791, -0.69314718, -0.01005034], atol=1e-8
    )
    np.testing.assert_array_equal(res.bin, [0, 0, 2, 1, 2, 2])


def test_documented_example_linear_quantiles_would_differ():
    # numpy's default linear quantiles give other edges: TFP's nearest-rank rule matters
    linear = np.quantile(PRED, np.linspace(0, 1, 4))
    np.testing.assert_allclose(linear, [0.05, 0.1667, 0.6633, 0.99], atol=5e-5)
    res = expected_calibration_error_quantiles(HIT, np.log(PRED), n_bins=3)
    assert not np.allclose(np.exp(res.bin_edges_log), linear)


# --------------------------------------------------------------------------------------
# the edge rule
# --------------------------------------------------------------------------------------


def test_edge_indices_nearest_rank_half_to_even():
    # (n-1) k / B for n = 6, B = 3: 0, 1.667, 3.333, 5 -> 0, 2, 3, 5
    assert tfp_quantile_edge_indices(6, 3).tolist() == [0, 2, 3, 5]
    # n = 11, B = 4: 0, 2.5, 5, 7.5, 10 -> 0, 2, 5, 8, 10 (half to even)
    assert tfp_quantile_edge_indices(11, 4).tolist() == [0, 2, 5, 8, 10]
    # n = 1: every edge is the only sample
    assert tfp_quantile_edge_indices(1, 3).tolist() == [0, 0, 0, 0]


def test_edge_indices_follow_float64_arithmetic_of_tfp():
    # n = 4, B = 6, k = 5: exactly (n-1) k / B = 2.5, which would round to 2, but TFP
    # computes q = linspace(0, 100, 7)[5] = 83.33333333333334, q / 100 =
    # 0.8333333333333334 and 3 * that = 2.5000000000000004, which rounds to 3.
    q5 = np.linspace(0.0, 100.0, 7)[5]
    assert 3.0 * (q5 / 100.0) > 2.5
    assert tfp_quantile_edge_indices(4, 6).tolist() == [0, 0, 1, 2, 2, 3, 3]


def test_assign_bins_left_closed_last_closed():
    edges = np.array([0.0, 1.0, 1.0, 2.0, 3.0])
    x = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.999, 3.0])
    # 1.0 goes to the highest bucket starting at 1.0 (bucket 1 stays empty); 3.0 closes
    assert tfp_assign_bins(x, edges).tolist() == [0, 0, 2, 2, 3, 3, 3]


def test_quantile_bin_edges_are_order_statistics():
    rng = np.random.default_rng(0)
    x = rng.normal(size=101)
    edges = tfp_quantile_bin_edges(x, 4)
    np.testing.assert_array_equal(edges, np.sort(x)[[0, 25, 50, 75, 100]])


# --------------------------------------------------------------------------------------
# slow implementation written from TFP's code
# --------------------------------------------------------------------------------------


def _slow_ece_quantiles(hit, pred_log_prob, n_bins):
    n = len(pred_log_prob)
    B = n_bins
    order = sorted(range(n), key=lambda i: pred_log_prob[i])
    s = [pred_log_prob[i] for i in order]
    q = np.linspace(0.0, 100.0, B + 1)  # float64, as tfp.stats.quantiles
    edges = []
    for k in range(B + 1):
        pos = round((n - 1) * (float(q[k]) / 100.0))  # round() is half-to-even
        edges.append(s[min(max(pos, 0), n - 1)])
    buckets = []
    for x in pred_log_prob:
        first_greater = next((k for k, e in enumerate(edges) if e > x), None)
        buckets.append(B - 1 if first_greater is None else first_greater - 1)
    cnt, hits, probs = [0] * B, [0.0] * B, [0.0] * B
    for b, h, x in zip(buckets, hit, pred_log_prob, strict=True):
        cnt[b] += 1
        hits[b] += float(h)
        probs[b] += math.exp(x)
    acc = [hits[k] / max(cnt[k], 1) for k in range(B)]
    conf = [probs[k] / max(cnt[k], 1) for k in range(B)]
    ece = sum(cnt[k] * abs(acc[k] - conf[k]) for k in range(B)) / n
    return ece, acc, conf, cnt, edges, buckets


def _random_case(rng):
    n = int(rng.integers(1, 80))
    p = rng.beta(rng.uniform(0.5, 5), 1.0, size=n)
    style = rng.integers(0, 3)
    if style == 1:  # heavy ties
        p = np.ceil(p * 5) / 5
    elif style == 2:  # a few distinct values
        p = rng.choice([0.2, 0.5, 0.9, 1.0], size=n)
    p = np.clip(p, 1e-12, 1.0)
    hit = rng.uniform(size=n) < p
    return hit, np.log(p)


@pytest.mark.parametrize("seed", range(10))
def test_against_slow_implementation(seed):
    rng = np.random.default_rng(seed)
    for _ in range(10):
        hit, lp = _random_case(rng)
        for n_bins in (1, 2, 3, 7, 20, 100):
            res = expected_calibration_error_quantiles(hit, lp, n_bins=n_bins)
            ece, acc, conf, cnt, edges, buckets = _slow_ece_quantiles(hit, lp.tolist(), n_bins)
            assert res.bin.tolist() == buckets
            np.testing.assert_array_equal(res.bin_count, cnt)
            np.testing.assert_array_equal(res.bin_edges_log, edges)
            np.testing.assert_allclose(res.bin_accuracy, acc, rtol=1e-14)
            np.testing.assert_allclose(res.bin_confidence, conf, rtol=1e-12, atol=1e-300)
            assert res.ece == pytest.approx(ece, rel=1e-12, abs=1e-15)
            # TFP's probability-space quantiles select the same samples
            p_sorted = np.sort(np.exp(lp))
            idx = tfp_quantile_edge_indices(len(lp), n_bins)
            np.testing.assert_allclose(np.exp(res.bin_edges_log), p_sorted[idx], rtol=1e-15)


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------


def test_properties_random():
    rng = np.random.default_rng(42)
    for _ in range(20):
        hit, lp = _random_case(rng)
        n_bins = int(rng.integers(1, 30))
        res = expected_calibration_error_quantiles(hit, lp, n_bins=n_bins)
        n = len(lp)
        assert res.bin_count.sum() == n
        assert res.bin.min() >= 0 and res.bin.max() <= n_bins - 1
        assert (np.diff(res.bin_edges_log) >= 0).all()
        assert res.bin_edges_log[0] == lp.min() and res.bin_edges_log[-1] == lp.max()
        assert 0.0 <= res.ece <= 1.0
        empty = res.bin_count == 0
        assert (res.bin_accuracy[empty] == 0).all() and (res.bin_confidence[empty] == 0).all()
        # log_space_bins selects the same order statistics
        res2 = expected_calibration_error_quantiles(hit, lp, n_bins=n_bins, log_space_bins=True)
        assert res2.ece == res.ece
        np.testing.assert_array_equal(res2.bin, res.bin)
        # permutation invariance
        perm = rng.permutation(n)
        res3 = expected_calibration_error_quantiles(hit[perm], lp[perm], n_bins=n_bins)
        assert res3.ece == pytest.approx(res.ece, rel=1e-12, abs=1e-15)
        np.testing.assert_array_equal(res3.bin, res.bin[perm])
        np.testing.assert_array_equal(res3.bin_count, res.bin_count)


def test_single_bucket_is_absolute_mean_gap():
    rng = np.random.default_rng(5)
    p = rng.uniform(0.01, 1, size=50)
    hit = rng.uniform(size=50) < 0.5
    res = expected_calibration_error_quantiles(hit, np.log(p), n_bins=1)
    assert res.ece == pytest.approx(abs(hit.mean() - p.mean()), rel=1e-12)


def test_hit_encodings_and_dtypes():
    lp = np.log(PRED)
    ref = expected_calibration_error_quantiles(HIT, lp, n_bins=3)
    for hit in (
        np.array(HIT, dtype=bool),
        np.array(HIT, dtype=float),
        np.array(HIT, dtype=np.uint8),
        [bool(h) for h in HIT],
    ):
        res = expected_calibration_error_quantiles(hit, lp, n_bins=3)
        assert res.ece == ref.ece
        np.testing.assert_array_equal(res.bin, ref.bin)
    lp32 = lp.astype(np.float32)
    res = expected_calibration_error_quantiles(HIT, lp32, n_bins=3)
    res64 = expected_calibration_error_quantiles(HIT, lp32.astype(np.float64), n_bins=3)
    assert res.ece == res64.ece  # computed in float64


def test_very_small_probabilities():
    # log-sum-exp keeps tiny probabilities exact; p = 0 would be -inf and is rejected
    lp = np.array([-800.0, -700.0, -0.1, -0.2])
    res = expected_calibration_error_quantiles([0, 0, 1, 1], lp, n_bins=2)
    assert res.bin.tolist() == [0, 0, 1, 1]
    assert res.bin_confidence[0] == pytest.approx((np.exp(-800.0) + np.exp(-700.0)) / 2, rel=1e-12)
    assert np.isfinite(res.ece)


def test_more_bins_than_samples():
    # positions 1 * k / 5 = 0, .2, .4, .6, .8, 1 round to 0, 0, 0, 1, 1, 1: edges
    # [.3, .3, .3, .8, .8, .8]; 0.3 goes to the last bucket starting at 0.3 (bucket 2),
    # 0.8 to the closed last bucket
    res = expected_calibration_error_quantiles([1, 0], np.log([0.3, 0.8]), n_bins=5)
    np.testing.assert_allclose(np.exp(res.bin_edges_log), [0.3, 0.3, 0.3, 0.8, 0.8, 0.8])
    assert res.bin_count.tolist() == [0, 0, 1, 0, 1]
    assert res.bin.tolist() == [2, 4]
    assert res.ece == pytest.approx((0.7 + 0.8) / 2)


def test_inputs_not_modified():
    hit = np.array(HIT)
    lp = np.log(PRED)
    lp0, hit0 = lp.copy(), hit.copy()
    expected_calibration_error_quantiles(hit, lp, n_bins=3)
    np.testing.assert_array_equal(lp, lp0)
    np.testing.assert_array_equal(hit, hit0)


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------

LP = np.log(PRED)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(hit=[0, 0, 2, 0, 1, 1], pred_log_prob=LP), r"hit\[2\]"),
        (dict(hit=[0, 0, 0.5, 0, 1, 1], pred_log_prob=LP), "0/1"),
        (dict(hit=[0, 0, np.nan, 0, 1, 1], pred_log_prob=LP), "0/1"),
        (dict(hit=list("abcdef"), pred_log_prob=LP), "hit"),
        (dict(hit=[[0, 1]] * 3, pred_log_prob=LP), "hit must be a 1-D"),
        (dict(hit=HIT, pred_log_prob=PRED[:3] + [1.5, 0.2, 0.3]), "log probabilities"),
        (dict(hit=HIT, pred_log_prob=np.r_[LP[:5], np.nan]), "finite"),
        (dict(hit=HIT, pred_log_prob=np.r_[LP[:5], -np.inf]), "finite"),
        (dict(hit=HIT, pred_log_prob=np.r_[LP[:5], np.inf]), "finite"),
        (dict(hit=HIT, pred_log_prob=LP.reshape(2, 3)), "pred_log_prob must be a 1-D"),
        (dict(hit=HIT, pred_log_prob=["a"] * 6), "pred_log_prob"),
        (dict(hit=HIT[:5], pred_log_prob=LP), "different lengths"),
        (dict(hit=[], pred_log_prob=[]), "empty"),
        (dict(hit=HIT, pred_log_prob=LP, n_bins=0), "n_bins"),
        (dict(hit=HIT, pred_log_prob=LP, n_bins=2.0), "n_bins"),
        (dict(hit=HIT, pred_log_prob=LP, log_space_bins="yes"), "log_space_bins"),
    ],
)
def test_invalid_input(kwargs, match):
    hit = kwargs.pop("hit")
    lp = kwargs.pop("pred_log_prob")
    with pytest.raises(ValueError, match=match):
        expected_calibration_error_quantiles(hit, lp, **kwargs)
