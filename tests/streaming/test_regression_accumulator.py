"""RegressionAccumulator: streamed statistics give the batch regression metrics."""

import copy
import json

import numpy as np
import pytest
from scipy import stats

from skcalib.metrics import (
    PredictionInterval,
    PredictiveQuantiles,
    PredictiveSamples,
    crps,
    interval_coverage,
    log_score,
    mean_interval_width,
    miscalibration_area,
    pit,
    pit_histogram,
    regression_calibration_curve,
    regression_calibration_error,
    sharpness,
)
from skcalib.streaming import RegressionAccumulator

COVERAGES = (0.5, 0.8, 0.9, 0.95)


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=n)
    sd = rng.uniform(0.5, 2.0, size=n)
    y = mu + rng.standard_t(4, size=n) * sd
    w = rng.integers(0, 4, size=n).astype(float)
    return y, mu, sd, w


def _stream(y, make, w=None, n_chunks=7, **params):
    acc = RegressionAccumulator(**params)
    for part in np.array_split(np.arange(y.shape[0]), n_chunks):
        acc.update(y[part], make(part), sample_weight=None if w is None else w[part])
    return acc


def _batch(y, pred, w):
    out = {
        "crps": crps(y, pred, sample_weight=w),
        "log_score": log_score(y, pred, sample_weight=w),
        "sharpness": sharpness(pred, sample_weight=w),
    }
    for kind, prefix in (("interval", ""), ("quantile", "quantile_")):
        kw = {"kind": kind, "sample_weight": w}
        out[prefix + "regression_calibration_error"] = regression_calibration_error(y, pred, **kw)
        out[prefix + "root_mean_squared_calibration_error"] = regression_calibration_error(
            y, pred, norm="l2", **kw
        )
        out[prefix + "max_calibration_error"] = regression_calibration_error(
            y, pred, norm="max", **kw
        )
        out[prefix + "miscalibration_area"] = miscalibration_area(y, pred, **kw)
    for c in COVERAGES:
        out[f"interval_coverage_{c:g}"] = interval_coverage(y, pred, coverage=c, sample_weight=w)
        out[f"mean_interval_width_{c:g}"] = mean_interval_width(pred, coverage=c, sample_weight=w)
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_streamed_equals_batch_scipy(weighted):
    y, mu, sd, w = _data()
    w = w if weighted else None
    acc = _stream(y, lambda p: stats.logistic(mu[p], sd[p]), w)
    got = acc.compute()
    want = _batch(y, stats.logistic(mu, sd), w)
    assert got.pop("n_samples") == y.shape[0]
    assert set(got) == set(want)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-10, abs=1e-14), key
    # the curve and the PIT histogram
    for kind in ("interval", "quantile"):
        expected, observed = acc.regression_calibration_curve(kind=kind)
        e2, o2 = regression_calibration_curve(y, stats.logistic(mu, sd), kind=kind, sample_weight=w)
        np.testing.assert_array_equal(expected, e2)
        np.testing.assert_allclose(observed, o2, rtol=1e-12)
    hist = acc.pit_histogram(n_bins=20)
    batch = pit_histogram(pit(y, stats.logistic(mu, sd)), n_bins=20, sample_weight=w)
    np.testing.assert_allclose(hist.density, batch.density, rtol=1e-12)
    assert (hist.band_low, hist.band_high) == (batch.band_low, batch.band_high)


def test_streamed_equals_batch_quantile_sets_and_samples():
    y, mu, sd, w = _data(n=1200, seed=1)
    levels = np.linspace(0.05, 0.95, 19)
    Q = stats.norm.ppf(levels[None, :], mu[:, None], sd[:, None])
    got = _stream(y, lambda p: PredictiveQuantiles(Q[p], levels), w).compute()
    want = _batch(y, PredictiveQuantiles(Q, levels), w)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-10, abs=1e-14), key
    # samples: no log score; the PIT is randomised, so one chunk with the batch's seed
    rng = np.random.default_rng(2)
    draws = mu[:, None] + sd[:, None] * rng.normal(size=(y.shape[0], 40))
    acc = RegressionAccumulator(random_state=3).update(y, PredictiveSamples(draws))
    got = acc.compute()
    assert "log_score" not in got
    assert got["crps"] == pytest.approx(crps(y, PredictiveSamples(draws)), rel=1e-12)
    assert got["regression_calibration_error"] == pytest.approx(
        regression_calibration_error(y, PredictiveSamples(draws), random_state=3), rel=1e-12
    )
    streamed = _stream(y, lambda p: PredictiveSamples(draws[p]), random_state=0).compute()
    assert streamed["crps"] == pytest.approx(got["crps"], rel=1e-12)
    assert streamed["interval_coverage_0.9"] == pytest.approx(got["interval_coverage_0.9"])


def test_intervals_keep_their_own_coverage_only():
    y, mu, sd, _ = _data(n=500)
    lo, hi = stats.norm.interval(0.8, mu, sd)
    acc = _stream(y, lambda p: PredictionInterval(lo[p], hi[p], 0.8))
    got = acc.compute()
    assert set(got) == {"interval_coverage_0.8", "mean_interval_width_0.8", "n_samples"}
    assert got["interval_coverage_0.8"] == interval_coverage(y, lo, hi)
    with pytest.raises(ValueError, match="no PIT values"):
        acc.regression_calibration_curve()
    # a later chunk of full distributions cannot bring back what was lost
    acc.update(y, stats.norm(mu, sd))
    assert "crps" not in acc.compute()


def test_merge_and_state_round_trip():
    y, mu, sd, w = _data(n=2000, seed=4)
    half = np.arange(1000)
    a = RegressionAccumulator().update(
        y[:1000], stats.norm(mu[:1000], sd[:1000]), sample_weight=w[half]
    )
    b = RegressionAccumulator().update(
        y[1000:], stats.norm(mu[1000:], sd[1000:]), sample_weight=w[1000:]
    )
    whole = RegressionAccumulator().update(y, stats.norm(mu, sd), sample_weight=w)
    merged = copy.deepcopy(a).merge(b)
    other_order = copy.deepcopy(b).merge(a)
    for acc in (merged, other_order):
        for key, value in whole.compute().items():
            assert acc.compute()[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    state = json.loads(json.dumps(merged.to_dict()))
    back = RegressionAccumulator.from_dict(state)
    assert back.compute() == merged.compute()
    assert back.merge(RegressionAccumulator()).compute() == merged.compute()
    with pytest.raises(ValueError, match="different n_levels"):
        a.merge(RegressionAccumulator(n_levels=11))
    with pytest.raises(ValueError, match="different coverages"):
        a.merge(RegressionAccumulator(coverages=[0.9]))
    with pytest.raises(TypeError, match="RegressionAccumulator"):
        a.merge(object())


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("version", 99, "version 1"),
        ("n_levels", 1, "n_levels must be in"),
        ("coverages", [0.9, 0.5], "strictly increasing"),
        ("n_samples", -1, "n_samples must be"),
        ("weight", float("nan"), "weight must be"),
        ("interval_counts", [1.0, 2.0], "must hold 101 numbers"),
        ("quantile_counts", "x", "quantile_counts must"),
        ("covered", [None, 1.0, 1.0, 1.0], "both be None"),
        ("sums", {"crps": -1.0, "log_score": 0.0, "variance": 1.0}, r"sums\['crps'\]"),
    ],
)
def test_from_dict_validates(field, value, match):
    y, mu, sd, _ = _data(n=100)
    state = RegressionAccumulator().update(y, stats.norm(mu, sd)).to_dict()
    state[field] = value
    with pytest.raises(ValueError, match=match):
        RegressionAccumulator.from_dict(state)
    with pytest.raises(ValueError, match="lacks the fields"):
        RegressionAccumulator.from_dict({"version": 1})


def test_empty_and_bad_parameters():
    acc = RegressionAccumulator()
    with pytest.raises(ValueError, match="seen no data"):
        acc.compute()
    with pytest.raises(ValueError, match="coverages must lie"):
        RegressionAccumulator(coverages=[1.0])
    y, mu, sd, _ = _data(n=50)
    acc.update(y, stats.norm(mu, sd))
    with pytest.raises(ValueError, match="must divide"):
        acc.pit_histogram(n_bins=7)
    with pytest.raises(ValueError, match="different numbers of samples"):
        acc.update(y[:3], stats.norm(mu, sd))


def test_inputs_not_modified():
    y, mu, sd, w = _data(n=300)
    lo, hi = mu - sd, mu + sd
    before = (lo.copy(), hi.copy(), y.copy(), w.copy())
    acc = RegressionAccumulator(coverages=[0.68])
    acc.update(y, PredictionInterval(lo, hi, 0.68), sample_weight=w)
    acc.update(y, PredictionInterval(lo, hi, 0.68))
    for a, b in zip((lo, hi, y, w), before, strict=True):
        np.testing.assert_array_equal(a, b)
    inside = (lo <= y) & (y <= hi)
    got = acc.compute()
    assert got["interval_coverage_0.68"] == pytest.approx(
        (inside @ w + inside.sum()) / (w.sum() + 300)
    )
    width = (2 * sd @ w + 2 * sd.sum()) / (w.sum() + 300)
    assert got["mean_interval_width_0.68"] == pytest.approx(width)
