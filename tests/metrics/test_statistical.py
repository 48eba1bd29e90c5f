"""Confidence intervals, tests of calibration, their result classes and the Bayesian ECE.

Golden values: hand computations (written out below), scipy.stats (bootstrap BCa,
chi-squared and normal tails, KS tests), and the statistical conformance tests of
google/uncertainty-metrics' Bayesian ECE (0.0.5, ``uncertainty_metrics/tensorflow/
calibration_test.py``: ``test_bayesian_ece``, ``test_bayesian_ece_wellcalibrated``,
``test_bayesian_ece_uncalibrated``).  Slow loop implementations live in
``_slow_statistical.py``.
"""

import dataclasses
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from sklearn.linear_model import LogisticRegression

import skcalib.metrics as M
from skcalib.metrics import (
    BootstrapConfidenceInterval,
    CalibrationTestResult,
    ConfidenceInterval,
    ConsistencyResamplingResult,
    HosmerLemeshowResult,
    SquaredErrorConfidenceInterval,
    bayesian_expected_calibration_error,
    brier_score,
    calibration_error_ci,
    consistency_resampling_test,
    expected_calibration_error,
    general_calibration_error,
    hosmer_lemeshow_test,
    max_calibration_error,
    spiegelhalter_test,
)
from skcalib.metrics._calibration._statistical import _Cells, _errors_of_cells

from ._slow_statistical import (
    slow_bayesian_ece,
    slow_bins,
    slow_ece,
    slow_hosmer_lemeshow,
    slow_hosmer_lemeshow_uniform,
    slow_spiegelhalter,
)


def _squared_model(seed, n):
    """p ~ U(0, 1), y ~ Bernoulli(p^2): every bin's gap p - p^2 > 0, so the binned ECE
    of the population is E[p - p^2] = 1/6 for every equal-width binning."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**2).astype(int)
    return y, p


def _calibrated(seed, n):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return (rng.random(n) < p).astype(int), p


# --------------------------------------------------------------------------------------
# calibration_error_ci
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "metric, kw",
    [
        (expected_calibration_error, {"n_bins": 10}),
        (max_calibration_error, {"n_bins": 7}),
        (general_calibration_error, {"norm": "l2", "n_bins": 12}),
        (general_calibration_error, {"norm": "l1", "threshold": 0.3, "n_bins": 5}),
        (general_calibration_error, {"bins": [0, 0.2, 0.5, 0.9, 1.0]}),
        (expected_calibration_error, {"multiclass": "top_label"}),
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_cells_reproduce_the_metric(metric, kw, weighted):
    """The (bin, outcome) cells with their observed row counts give the metric exactly."""
    from skcalib.metrics._calibration._statistical import _validated

    y, p = _squared_model(0, 500)
    w = np.random.default_rng(1).random(500) if weighted else None
    w = None if w is None else np.where(w < 0.1, 0.0, w)  # some removed rows
    conf, outcome, sw = _validated(y, p, w, None, None, kw.get("multiclass", "auto"))
    edges = np.asarray(kw.get("bins", np.linspace(0, 1, kw.get("n_bins", 15) + 1)), float)
    cells = _Cells(conf, outcome, sw, edges, kw.get("threshold", 0.0))
    norm = {"max_calibration_error": "max"}.get(metric.__name__, kw.get("norm", "l1"))
    got = cells.errors(cells.rows[None, :], norm)[0]
    want = metric(y, p, sample_weight=w, **kw)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_errors_of_cells_hand_computed():
    # one resample, 2 bins: bin 0 has 3 rows of outcome 0 (sum p 0.3) and 1 of outcome 1
    # (p 0.2); bin 1 has 2 rows of outcome 1 (sum p 1.4)
    cnt0, cnt1 = np.array([[3.0, 0.0]]), np.array([[1.0, 2.0]])
    sp0, sp1 = np.array([[0.3, 0.0]]), np.array([[0.2, 1.4]])
    total = np.array([6.0])
    # gaps: bin 0 acc 1/4 - conf 0.5/4 = 0.125; bin 1 acc 1 - conf 0.7 = 0.3
    assert _errors_of_cells(cnt0, cnt1, sp0, sp1, total, "l1")[0] == pytest.approx(
        (4 * 0.125 + 2 * 0.3) / 6
    )
    assert _errors_of_cells(cnt0, cnt1, sp0, sp1, total, "max")[0] == pytest.approx(0.3)
    assert _errors_of_cells(cnt0, cnt1, sp0, sp1, total, "l2")[0] == pytest.approx(
        np.sqrt((4 * 0.125**2 + 2 * 0.3**2) / 6)
    )


def test_bin_level_bootstrap_matches_row_bootstrap():
    y, p = _squared_model(2, 3000)
    kw = dict(n_resamples=1500, n_bins=10, random_state=0)
    bins = calibration_error_ci(expected_calibration_error, y, p, **kw)
    rows = calibration_error_ci(expected_calibration_error, y, p, resample="samples", **kw)
    assert bins.resample == "bins" and rows.resample == "samples"
    assert bins.estimate == rows.estimate == expected_calibration_error(y, p, n_bins=10)
    # same distribution within Monte Carlo error (sd of the ECE is about 0.007)
    assert bins.standard_error == pytest.approx(rows.standard_error, rel=0.1)
    for q in (0.05, 0.5, 0.95):
        a = np.quantile(bins.bootstrap_distribution, q)
        b = np.quantile(rows.bootstrap_distribution, q)
        assert abs(a - b) < 0.002


def test_row_bootstrap_is_the_textbook_loop():
    y, p = _squared_model(3, 120)
    res = calibration_error_ci(
        expected_calibration_error,
        y,
        p,
        n_bins=5,
        n_resamples=50,
        resample="samples",
        random_state=7,
    )
    rng = np.random.RandomState(7)
    want = []
    for _ in range(50):
        idx = rng.randint(0, 120, 120)
        want.append(slow_ece(p[idx], y[idx], 5))
    np.testing.assert_allclose(res.bootstrap_distribution, want, rtol=1e-12, atol=1e-15)
    lo, hi = np.quantile(want, [0.025, 0.975])
    assert res.low == pytest.approx(lo) and res.high == pytest.approx(hi)


def test_bca_matches_scipy_bootstrap_for_a_mean():
    """BCa of the mean probability against scipy.stats.bootstrap (same data, many
    resamples: the intervals agree within Monte Carlo error)."""
    rng = np.random.default_rng(4)
    p = rng.beta(0.5, 3.0, 300)  # skewed: BCa differs from the percentile interval
    y = (rng.random(300) < p).astype(int)

    def mean_proba(y_true, y_proba, sample_weight=None):
        return float(np.mean(y_proba))

    ours = calibration_error_ci(
        mean_proba, y, p, method="bca", n_resamples=5000, confidence_level=0.9, random_state=0
    )
    ref = stats.bootstrap(
        (p,),
        np.mean,
        method="BCa",
        n_resamples=5000,
        confidence_level=0.9,
        random_state=np.random.default_rng(1),
    )
    sd = ours.standard_error
    assert abs(ours.low - ref.confidence_interval.low) < 0.03 * sd * 10
    assert abs(ours.high - ref.confidence_interval.high) < 0.03 * sd * 10
    pct = calibration_error_ci(
        mean_proba, y, p, n_resamples=5000, confidence_level=0.9, random_state=0
    )
    # the skewness moves both BCa ends up relative to the percentile interval
    assert ours.low > pct.low and ours.high > pct.high


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bin_level_interval_coverage(method):
    """Nominal 90% intervals cover the population ECE (1/6) 85-95% of the time."""
    rng = np.random.default_rng(12)
    hits = 0
    reps = 200
    for _ in range(reps):
        p = rng.random(1500)
        y = (rng.random(1500) < p**2).astype(int)
        ci = calibration_error_ci(
            expected_calibration_error,
            y,
            p,
            n_bins=10,
            n_resamples=300,
            confidence_level=0.9,
            method=method,
            random_state=rng.integers(2**31),
        )
        hits += ci.low <= 1 / 6 <= ci.high
    assert 0.85 <= hits / reps <= 0.95


def test_row_bootstrap_interval_coverage():
    """Row bootstrap of the Brier score: nominal 90% covers E[(p - y)^2] 85-95%."""
    rng = np.random.default_rng(5)
    # E[(p - y)^2] with y ~ Bernoulli(p^2): E[p^2 - 2 p^3 + p^2] = 2/3 - 1/2 = 1/6
    truth = 1 / 6
    hits, reps = 0, 120
    for _ in range(reps):
        p = rng.random(200)
        y = (rng.random(200) < p**2).astype(int)
        ci = calibration_error_ci(
            brier_score,
            y,
            p,
            n_resamples=100,
            confidence_level=0.9,
            random_state=rng.integers(2**31),
        )
        hits += ci.low <= truth <= ci.high
    assert 0.85 <= hits / reps <= 0.95


def test_equal_weights_change_nothing_and_zero_weight_removes():
    y, p = _squared_model(6, 800)
    kw = dict(n_bins=10, n_resamples=300, random_state=3)
    ref = calibration_error_ci(expected_calibration_error, y, p, **kw)
    same = calibration_error_ci(
        expected_calibration_error, y, p, sample_weight=np.full(800, 2.5), **kw
    )
    np.testing.assert_allclose(same.bootstrap_distribution, ref.bootstrap_distribution)
    w = np.ones(800)
    w[::4] = 0
    removed = calibration_error_ci(expected_calibration_error, y, p, sample_weight=w, **kw)
    kept = calibration_error_ci(expected_calibration_error, y[w > 0], p[w > 0], **kw)
    np.testing.assert_allclose(removed.bootstrap_distribution, kept.bootstrap_distribution)
    assert removed.estimate == pytest.approx(kept.estimate)


def test_row_bootstrap_resamples_the_rows_of_positive_weight():
    """Regression: resample="samples" drew from every row, so a resample that missed
    the few positive-weight rows failed with "sample_weight sums to zero".  Weight 0 is
    removal: the row bootstrap draws the rows of positive weight, as the bins path."""
    y, p = _squared_model(30, 200)
    w = np.zeros(200)
    w[:3] = [1.0, 2.0, 0.5]  # 3 of 200 rows: most row resamples would miss all of them
    kw = dict(n_bins=5, n_resamples=200, resample="samples", random_state=0)
    res = calibration_error_ci(expected_calibration_error, y, p, sample_weight=w, **kw)
    kept = calibration_error_ci(expected_calibration_error, y[:3], p[:3], sample_weight=w[:3], **kw)
    np.testing.assert_array_equal(res.bootstrap_distribution, kept.bootstrap_distribution)
    assert (res.low, res.high) == (kept.low, kept.high)
    assert res.estimate == expected_calibration_error(y[:3], p[:3], sample_weight=w[:3], n_bins=5)
    # the bins path gives the same interval within Monte Carlo error
    bins = calibration_error_ci(
        expected_calibration_error, y, p, sample_weight=w, **{**kw, "resample": "bins"}
    )
    assert bins.estimate == res.estimate
    # BCa's jackknife runs on the same rows
    bca = calibration_error_ci(
        brier_score, y, p, sample_weight=w, method="bca", n_resamples=50, random_state=0
    )
    ref = calibration_error_ci(
        brier_score,
        y[:3],
        p[:3],
        sample_weight=w[:3],
        method="bca",
        n_resamples=50,
        random_state=0,
    )
    assert (bca.low, bca.high) == (ref.low, ref.high)


def test_row_bootstrap_zero_weights_equal_removal():
    y, p = _squared_model(31, 300)
    w = np.ones(300)
    w[::3] = 0
    kw = dict(n_resamples=100, random_state=4)
    removed = calibration_error_ci(brier_score, y, p, sample_weight=w, **kw)
    kept = calibration_error_ci(brier_score, y[w > 0], p[w > 0], **kw)
    assert removed.resample == kept.resample == "samples"
    np.testing.assert_allclose(removed.bootstrap_distribution, kept.bootstrap_distribution)


def test_row_bootstrap_bad_weights():
    def mean_proba(y_true, y_proba, sample_weight=None):  # validates nothing
        return float(np.mean(y_proba))

    y, p = _squared_model(32, 20)
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        calibration_error_ci(mean_proba, y, p, sample_weight=np.zeros(20), n_resamples=5)
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(20,\)"):
        calibration_error_ci(mean_proba, y, p, sample_weight=np.ones(19), n_resamples=5)


def test_row_bootstrap_keeps_the_classes_of_the_full_data():
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(3), size=40)
    y = np.array(["a"] * 38 + ["b", "c"])  # a resample often misses "b" or "c"
    res = calibration_error_ci(brier_score, y, P, n_resamples=60, random_state=0, method="bca")
    assert res.resample == "samples"
    assert res.low <= res.estimate <= res.high
    # pandas input and string labels with the bin-level bootstrap
    res2 = calibration_error_ci(
        expected_calibration_error, pd.Series(y), pd.DataFrame(P), n_resamples=60, random_state=0
    )
    assert res2.resample == "bins"
    assert res2.estimate == expected_calibration_error(y, P)


def test_top_label_and_options_go_to_the_bins():
    rng = np.random.default_rng(8)
    P = rng.dirichlet(np.ones(4), size=600)
    y = rng.integers(0, 4, 600)
    res = calibration_error_ci(
        general_calibration_error, y, P, n_bins=8, norm="max", n_resamples=100, random_state=1
    )
    assert res.resample == "bins"
    assert res.estimate == general_calibration_error(y, P, n_bins=8, norm="max")
    # quantile bins and class-wise calibration are resampled by rows
    for kw in (
        {"strategy": "quantile"},
        {"multiclass": "classwise"},
        {"debias": True, "norm": "l2"},
    ):
        r = calibration_error_ci(
            general_calibration_error, y, P, n_resamples=5, random_state=0, **kw
        )
        assert r.resample == "samples"


def test_ci_bad_input():
    y, p = _squared_model(9, 50)
    with pytest.raises(ValueError, match="'metric' parameter"):
        calibration_error_ci("ece", y, p)
    with pytest.raises(ValueError, match="'n_resamples' parameter"):
        calibration_error_ci(expected_calibration_error, y, p, n_resamples=1)
    with pytest.raises(ValueError, match="'confidence_level' parameter"):
        calibration_error_ci(expected_calibration_error, y, p, confidence_level=1.0)
    with pytest.raises(ValueError, match="resample='bins' needs a fixed-bin metric"):
        calibration_error_ci(brier_score, y, p, resample="bins")
    with pytest.raises(ValueError, match="must return a real number"):
        calibration_error_ci(lambda a, b: "x", y, p, n_resamples=2)
    bad = p.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        calibration_error_ci(expected_calibration_error, y, bad)
    with pytest.raises(ValueError, match="different numbers of samples"):
        calibration_error_ci(expected_calibration_error, y[:-1], p)


def test_ci_does_not_modify_inputs():
    y, p = _squared_model(10, 100)
    w = np.random.default_rng(0).random(100)
    for a in (y, p, w):
        a.setflags(write=False)
    calibration_error_ci(expected_calibration_error, y, p, sample_weight=w, n_resamples=20)
    calibration_error_ci(brier_score, y, p, sample_weight=w, n_resamples=20, method="bca")


# --------------------------------------------------------------------------------------
# Spiegelhalter
# --------------------------------------------------------------------------------------


def test_spiegelhalter_hand_computed():
    # sum (y - p)(1 - 2p) = -0.08 + -0.12 + -0.08 + -0.08 + 0.28 = -0.08
    # sum (1 - 2p)^2 p (1 - p) = 0.0576 + 0.0576 + 0.0096 + 0.0096 + 0.0336 = 0.168
    res = spiegelhalter_test([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.3])
    z = -0.08 / np.sqrt(0.168)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    assert res.statistic == pytest.approx(-0.19518001458970666)


def test_spiegelhalter_slow_reference_and_weights():
    rng = np.random.default_rng(11)
    p = rng.random(300)
    y = (rng.random(300) < p**1.3).astype(int)
    w = rng.integers(0, 4, 300)
    res = spiegelhalter_test(y, p, sample_weight=w)
    z, pv = slow_spiegelhalter(p, y, w)
    assert res.statistic == pytest.approx(z, rel=1e-10)
    assert res.pvalue == pytest.approx(pv, rel=1e-10)
    rep = spiegelhalter_test(np.repeat(y, w), np.repeat(p, w))
    assert rep.statistic == pytest.approx(res.statistic, rel=1e-10)


def test_spiegelhalter_pvalues_uniform_under_the_null():
    rng = np.random.default_rng(13)
    pv = []
    for _ in range(400):
        p = rng.random(300)
        y = (rng.random(300) < p).astype(int)
        pv.append(spiegelhalter_test(y, p).pvalue)
    assert stats.kstest(pv, "uniform").pvalue > 0.01
    # overconfident: E[(a - p)(1 - 2p)] = E[(1/2 - p)^2] > 0 (the symmetric miscalibration
    # of y ~ Bernoulli(p^2) is invisible to this test: E[(p^2 - p)(1 - 2p)] = 0)
    rng = np.random.default_rng(14)
    p = rng.random(500)
    y = (rng.random(500) < 0.5 + 0.5 * (p - 0.5)).astype(int)
    assert spiegelhalter_test(y, p).pvalue < 1e-4


def test_spiegelhalter_degenerate_and_multiclass():
    # p = 1/2 everywhere: no information, Z = 0
    assert spiegelhalter_test([0, 1, 1], [0.5, 0.5, 0.5]).statistic == 0.0
    # p in {0, 1} and wrong: infinitely significant, never NaN
    res = spiegelhalter_test([0, 1], [1.0, 0.0])
    assert res.statistic == np.inf and res.pvalue == 0.0
    # multiclass: top-label confidence against correctness
    P = np.array([[0.7, 0.2, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6]])
    y = np.array([0, 2, 2])
    conf = P.max(axis=1)
    correct = (P.argmax(axis=1) == y).astype(int)
    # class 1 never occurs: labels= gives the columns' classes
    assert spiegelhalter_test(y, P, labels=[0, 1, 2]).statistic == pytest.approx(
        spiegelhalter_test(correct, conf).statistic
    )


def test_spiegelhalter_bad_input():
    with pytest.raises(ValueError, match="'multiclass' parameter"):
        spiegelhalter_test([0, 1], [0.2, 0.8], multiclass="classwise")
    with pytest.raises(ValueError, match="NaN"):
        spiegelhalter_test([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="probabilities"):
        spiegelhalter_test([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match="empty"):
        spiegelhalter_test([], [])


# --------------------------------------------------------------------------------------
# Hosmer-Lemeshow
# --------------------------------------------------------------------------------------


def test_hosmer_lemeshow_hand_computed():
    y = [0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.6, 0.8, 0.85, 0.9]
    res = hosmer_lemeshow_test(y, p, n_groups=5)
    # groups of two: O = 0, 1, 2, 1, 2; E = 0.3, 0.55, 1.05, 1.4, 1.75
    obs = np.array([0, 1, 2, 1, 2])
    E = np.array([0.3, 0.55, 1.05, 1.4, 1.75])
    stat = np.sum((obs - E) ** 2 / (E * (1 - E / 2)))
    # = 0.09/0.255 + 0.2025/0.39875 + 0.9025/0.49875 + 0.16/0.42 + 0.0625/0.21875
    assert stat == pytest.approx(
        0.09 / 0.255 + 0.2025 / 0.39875 + 0.9025 / 0.49875 + 0.16 / 0.42 + 0.0625 / 0.21875
    )
    assert res.statistic == pytest.approx(stat, rel=1e-12)
    assert stat == pytest.approx(3.3369686432566756, rel=1e-12)
    # held-out reference (the default): chi-squared with G = 5 degrees of freedom;
    # golden values from scipy.stats.chi2.sf(3.3369686432566756, 5) and (..., 3)
    assert res.df == 5
    assert res.pvalue == pytest.approx(stats.chi2.sf(stat, 5), rel=1e-12)
    assert res.pvalue == pytest.approx(0.6481867300113677, rel=1e-10)
    fitted = hosmer_lemeshow_test(y, p, n_groups=5, df="in_sample")
    assert fitted.statistic == res.statistic and fitted.df == 3
    assert fitted.pvalue == pytest.approx(0.3425303528253708, rel=1e-10)
    assert hosmer_lemeshow_test(y, p, n_groups=5, df=4).pvalue == pytest.approx(
        stats.chi2.sf(stat, 4), rel=1e-12
    )
    np.testing.assert_allclose(res.observed, obs)
    np.testing.assert_allclose(res.expected, E)
    np.testing.assert_allclose(res.count, 2)


def test_hosmer_lemeshow_is_the_pearson_statistic_of_the_g_by_2_table():
    """R's ResourceSelection ``hoslem.test`` and DescTools ``HosmerLemeshowTest`` compute
    sum((observed - expected)^2 / expected) over the g x 2 table of (non-events, events);
    with the same groups it is the statistic above."""
    rng = np.random.default_rng(26)
    p = rng.random(400)
    y = (rng.random(400) < p**1.3).astype(int)
    res = hosmer_lemeshow_test(y, p, n_groups=8)
    observed = np.column_stack([res.count - res.observed, res.observed])
    expected = np.column_stack([res.count - res.expected, res.expected])
    pearson = np.sum((observed - expected) ** 2 / expected)
    assert res.statistic == pytest.approx(pearson, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(pearson, 8), rel=1e-12)
    # those packages' reference, g - 2 degrees of freedom, is df="in_sample"
    fitted = hosmer_lemeshow_test(y, p, n_groups=8, df="in_sample")
    assert fitted.pvalue == pytest.approx(stats.chi2.sf(pearson, 8 - 2), rel=1e-12)


def test_hosmer_lemeshow_slow_reference_and_weights():
    rng = np.random.default_rng(15)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    res = hosmer_lemeshow_test(y, p)
    stat, pv = slow_hosmer_lemeshow(p, y, 10)
    assert res.statistic == pytest.approx(stat, rel=1e-10)
    assert res.pvalue == pytest.approx(pv, rel=1e-10)
    _, pv_fitted = slow_hosmer_lemeshow(p, y, 10, df=8)
    fitted = hosmer_lemeshow_test(y, p, df="in_sample")
    assert fitted.pvalue == pytest.approx(pv_fitted, rel=1e-10)
    w = rng.integers(0, 3, 500)
    a = hosmer_lemeshow_test(y, p, sample_weight=w)
    b = hosmer_lemeshow_test(np.repeat(y, w), np.repeat(p, w))
    assert a.statistic == pytest.approx(b.statistic, rel=1e-10)
    assert hosmer_lemeshow_test(y, p, df=10).pvalue == pytest.approx(stats.chi2.sf(stat, 10))


def test_hosmer_lemeshow_uniform_slow_reference():
    rng = np.random.default_rng(16)
    p = rng.beta(2, 3, 400)
    y = (rng.random(400) < p).astype(int)
    w = rng.random(400) * 2
    for n_bins in (5, 12, 40):  # 40: some bins empty
        res = hosmer_lemeshow_test(y, p, n_groups=n_bins, strategy="uniform")
        stat, pv = slow_hosmer_lemeshow_uniform(p, y, n_bins)
        assert res.statistic == pytest.approx(stat, rel=1e-10)
        assert res.pvalue == pytest.approx(pv, rel=1e-10)
        assert res.df == int(np.count_nonzero(np.bincount(slow_bins(p, n_bins))))
        res = hosmer_lemeshow_test(y, p, n_groups=n_bins, strategy="uniform", sample_weight=w)
        stat, pv = slow_hosmer_lemeshow_uniform(p, y, n_bins, w)
        assert res.statistic == pytest.approx(stat, rel=1e-10)
        assert res.pvalue == pytest.approx(pv, rel=1e-10)
    # top label: the confidence against correctness
    P = rng.dirichlet([1, 1, 1], 300)
    yk = np.array([rng.choice(3, p=row) for row in P])
    res = hosmer_lemeshow_test(yk, P, n_groups=8, strategy="uniform")
    stat, pv = slow_hosmer_lemeshow_uniform(P.max(1), (P.argmax(1) == yk).astype(int), 8)
    assert res.pvalue == pytest.approx(pv, rel=1e-10)
    with pytest.raises(ValueError, match="'strategy' parameter"):
        hosmer_lemeshow_test(y, p, strategy="kmeans")


def _logistic_fit(x, y):
    """Maximum-likelihood logistic regression on one feature (Newton's method)."""
    X = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(25):
        q = special.expit(X @ beta)
        beta += np.linalg.solve(X.T @ (X * (q * (1 - q))[:, None]), X.T @ (y - q))
    return special.expit(X @ beta)


def test_logistic_fit_is_sklearns_unpenalised_fit():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(300)
    y = (rng.random(300) < special.expit(0.3 + 1.2 * x)).astype(int)
    ref = LogisticRegression(C=1e8, tol=1e-10, max_iter=1000).fit(x[:, None], y)
    np.testing.assert_allclose(_logistic_fit(x, y), ref.predict_proba(x[:, None])[:, 1], atol=1e-5)


def test_hosmer_lemeshow_pvalues_uniform_for_a_fitted_logistic_model():
    """df = G - 2 ("in_sample") is the null distribution for a logistic model fitted on
    the data."""
    rng = np.random.default_rng(16)
    pv = []
    for _ in range(200):
        x = rng.standard_normal(400)
        y = (rng.random(400) < special.expit(0.3 + 1.2 * x)).astype(int)
        pv.append(hosmer_lemeshow_test(y, _logistic_fit(x, y), df="in_sample").pvalue)
    assert stats.kstest(pv, "uniform").pvalue > 0.01
    y, p = _squared_model(17, 1000)
    assert hosmer_lemeshow_test(y, p).pvalue < 1e-6


def _held_out_rejection_rates(seed, n_sims):
    """Rejection rates at the 5% level of perfectly calibrated held-out predictions:
    p ~ Beta(2, 3), y ~ Bernoulli(p), n = 500, for the default and for df="in_sample"."""
    rng = np.random.default_rng(seed)
    holdout = in_sample = 0
    pv = []
    for _ in range(n_sims):
        p = rng.beta(2.0, 3.0, 500)
        y = (rng.random(500) < p).astype(int)
        res = hosmer_lemeshow_test(y, p)
        pv.append(res.pvalue)
        holdout += res.pvalue < 0.05
        in_sample += hosmer_lemeshow_test(y, p, df="in_sample").pvalue < 0.05
    return holdout / n_sims, in_sample / n_sims, pv


def test_hosmer_lemeshow_default_holds_its_level_for_held_out_predictions():
    """Regression: the default df was G - 2, the in-sample reference, which rejects
    calibrated held-out predictions about 12% of the time at the 5% level.  The default
    is now G (Hosmer, Lemeshow and Sturdivant 2013, external validation)."""
    n_sims = 500
    holdout, in_sample, pv = _held_out_rejection_rates(40, n_sims)
    # 99.9% binomial band of the rejection count around 0.05: [11, 42] of 500
    lo = stats.binom.ppf(0.0005, n_sims, 0.05) / n_sims
    hi = stats.binom.isf(0.0005, n_sims, 0.05) / n_sims
    assert lo <= holdout <= hi
    assert in_sample > hi  # G - 2 over-rejects held-out predictions
    assert stats.kstest(pv, "uniform").pvalue > 0.01


def test_hosmer_lemeshow_df_options():
    y, p = _calibrated(41, 300)
    res = hosmer_lemeshow_test(y, p, n_groups=6)
    assert res.df == 6
    assert hosmer_lemeshow_test(y, p, n_groups=6, df="holdout").pvalue == res.pvalue
    assert hosmer_lemeshow_test(y, p, n_groups=6, df="in_sample").df == 4
    assert hosmer_lemeshow_test(y, p, n_groups=6, df=7).df == 7
    for bad in (None, "fitted", 0, 1.5):
        with pytest.raises(ValueError, match="'df' parameter"):
            hosmer_lemeshow_test(y, p, df=bad)


def test_hosmer_lemeshow_edge_cases():
    # two groups: a chi-squared with 2 df for held-out predictions, too few for G - 2
    res = hosmer_lemeshow_test([0, 1, 0, 1], [0.2, 0.2, 0.7, 0.7])
    assert res.df == 2 and len(res.count) == 2
    # O = (1, 1), E = (0.4, 1.4), n = (2, 2)
    stat = 0.6**2 / (0.4 * 0.8) + 0.4**2 / (1.4 * 0.3)
    assert res.statistic == pytest.approx(stat, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(stat, 2), rel=1e-12)
    with pytest.raises(ValueError, match="df='in_sample' needs at least 3 non-empty groups"):
        hosmer_lemeshow_test([0, 1, 0, 1], [0.2, 0.2, 0.7, 0.7], df="in_sample")
    with pytest.raises(ValueError, match="'n_groups' parameter"):
        hosmer_lemeshow_test([0, 1], [0.2, 0.7], n_groups=2)
    # a group of certain predictions that are wrong: infinite statistic, p-value 0
    res = hosmer_lemeshow_test([1, 0, 0, 1, 1, 0], [0.0, 0.0, 0.4, 0.5, 0.6, 1.0], n_groups=3)
    assert res.statistic == np.inf and res.pvalue == 0.0
    res = hosmer_lemeshow_test([0, 0, 0, 1, 1, 1], [0.0, 0.0, 0.4, 0.5, 1.0, 1.0], n_groups=3)
    assert np.isfinite(res.statistic)


# --------------------------------------------------------------------------------------
# consistency resampling
# --------------------------------------------------------------------------------------


def test_consistency_resampling_is_the_textbook_loop():
    y, p = _calibrated(18, 150)
    res = consistency_resampling_test(y, p, n_bins=5, n_resamples=40, random_state=3)
    rng = np.random.RandomState(3)
    null = []
    for _ in range(40):
        idx = rng.randint(0, 150, 150)
        ys = (rng.random_sample(150) < p[idx]).astype(int)
        null.append(slow_ece(p[idx], ys, 5))
    np.testing.assert_allclose(res.null_distribution, null, rtol=1e-12, atol=1e-15)
    stat = slow_ece(p, y, 5)
    assert res.statistic == pytest.approx(stat)
    assert res.pvalue == pytest.approx((1 + np.sum(np.array(null) >= stat - 1e-12)) / 41)


@pytest.mark.parametrize("norm, strategy", [("l1", "uniform"), ("l2", "quantile")])
def test_consistency_resampling_pvalues_uniform_under_the_null(norm, strategy):
    rng = np.random.default_rng(19)
    pv = []
    for _ in range(120):
        p = rng.random(150)
        y = (rng.random(150) < p).astype(int)
        res = consistency_resampling_test(
            y,
            p,
            n_bins=8,
            norm=norm,
            strategy=strategy,
            n_resamples=49,
            random_state=rng.integers(2**31),
        )
        pv.append(res.pvalue)
    assert stats.kstest(pv, "uniform").pvalue > 0.01
    y, p = _squared_model(20, 400)
    assert consistency_resampling_test(y, p, n_resamples=99, random_state=0).pvalue == 0.01


def test_consistency_resampling_weights_and_top_label():
    y, p = _calibrated(21, 200)
    w = np.random.default_rng(21).integers(0, 3, 200).astype(float)
    a = consistency_resampling_test(y, p, sample_weight=w, n_resamples=30, random_state=0)
    b = consistency_resampling_test(
        y[w > 0], p[w > 0], sample_weight=w[w > 0], n_resamples=30, random_state=0
    )
    np.testing.assert_allclose(a.null_distribution, b.null_distribution)  # 0 is removal
    rep = consistency_resampling_test(np.repeat(y, w.astype(int)), np.repeat(p, w.astype(int)))
    assert a.statistic == pytest.approx(rep.statistic)  # the statistic: weight = repetition
    rng = np.random.default_rng(22)
    P = rng.dirichlet(np.ones(3), size=300)
    yk = np.array([rng.choice(3, p=r) for r in P])
    res = consistency_resampling_test(yk, P, n_resamples=50, random_state=0)
    conf, correct = P.max(axis=1), (P.argmax(axis=1) == yk).astype(int)
    same = consistency_resampling_test(correct, conf, n_resamples=50, random_state=0)
    assert res.statistic == same.statistic and res.pvalue == same.pvalue
    assert res.statistic == pytest.approx(expected_calibration_error(yk, P, n_bins=10))


def test_consistency_resampling_bad_input():
    with pytest.raises(ValueError, match="'norm' parameter"):
        consistency_resampling_test([0, 1], [0.2, 0.7], norm="l3")
    with pytest.raises(ValueError, match="'multiclass' parameter"):
        consistency_resampling_test([0, 1], [0.2, 0.7], multiclass="classwise")
    with pytest.raises(ValueError, match="sum to 0|sums to zero"):
        consistency_resampling_test([0, 1], [0.2, 0.7], sample_weight=[0, 0])


# --------------------------------------------------------------------------------------
# Bayesian ECE
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("weighting", ["bin", "correct"])
def test_bayesian_ece_matches_the_slow_transcription(weighting):
    y, p = _squared_model(23, 300)
    got = bayesian_expected_calibration_error(
        y, p, n_bins=7, n_samples=60, weighting=weighting, random_state=5
    )
    want = slow_bayesian_ece(p, y, 7, 60, weighting, np.random.RandomState(5))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)


def _um_generator(rng, K, n, calibrated):
    """uncertainty_metrics' generator: logits 2 N(0, 1), labels ~ Categorical(logits);
    the uncalibrated model predicts with fresh independent logits."""
    logits = 2 * rng.standard_normal((n, K))
    P = special.softmax(logits, axis=1)
    u = rng.random(n)[:, None]
    y = (u > np.cumsum(P, axis=1)).sum(axis=1)
    y = np.minimum(y, K - 1)
    if not calibrated:
        P = special.softmax(2 * rng.standard_normal((n, K)), axis=1)
    return y, P


@pytest.mark.parametrize("weighting", ["bin", "correct"])
@pytest.mark.parametrize("K, n", [(2, 5), (5, 50), (50, 500)])
def test_bayesian_ece_brackets_the_ece(weighting, K, n):
    y, P = _um_generator(np.random.default_rng(K * n), K, n, calibrated=True)
    draws = bayesian_expected_calibration_error(
        y,
        P,
        n_bins=10,
        n_samples=200,
        weighting=weighting,
        multiclass="top_label",
        labels=np.arange(K),
        random_state=1,
    )
    q1, q99 = np.percentile(draws, [1, 99])
    ece = expected_calibration_error(y, P, n_bins=10, multiclass="top_label", labels=np.arange(K))
    assert q1 < ece < q99


@pytest.mark.parametrize("weighting", ["bin", "correct"])
@pytest.mark.parametrize("K, n", [(2, 5000), (50, 50000)])
def test_bayesian_ece_well_and_uncalibrated(weighting, K, n):
    kw = dict(
        n_bins=10,
        n_samples=200,
        weighting=weighting,
        multiclass="top_label",
        labels=np.arange(K),
        random_state=1,
    )
    y, P = _um_generator(np.random.default_rng(1), K, n, calibrated=True)
    q99 = np.percentile(bayesian_expected_calibration_error(y, P, **kw), 99)
    assert q99 < 0.05
    # the reference's numpy re-run gives q99 = 0.0187 (K=2) and 0.0098 (K=50)
    assert q99 < (0.03 if K == 2 else 0.02)
    y, P = _um_generator(np.random.default_rng(2), K, n, calibrated=False)
    q1 = np.percentile(bayesian_expected_calibration_error(y, P, **kw), 1)
    assert q1 > 0.1
    # the reference's numpy re-run gives q1 = 0.313 (K=2) and 0.297 (K=50)
    assert 0.2 < q1 < 0.45


def test_bayesian_ece_weights_range_and_seed():
    y, p = _squared_model(24, 400)
    w = np.random.default_rng(24).integers(0, 3, 400)
    a = bayesian_expected_calibration_error(y, p, sample_weight=w, random_state=0)
    b = bayesian_expected_calibration_error(np.repeat(y, w), np.repeat(p, w), random_state=0)
    np.testing.assert_allclose(a, b, rtol=1e-10)
    assert a.shape == (500,) and np.all((a >= 0) & (a <= 1))
    c = bayesian_expected_calibration_error(y, p, random_state=1)
    assert not np.allclose(c, bayesian_expected_calibration_error(y, p, random_state=2))
    # the posterior concentrates around the frequentist ECE as n grows
    y, p = _squared_model(25, 200_000)
    draws = bayesian_expected_calibration_error(y, p, n_samples=100, random_state=0)
    assert np.median(draws) == pytest.approx(expected_calibration_error(y, p, n_bins=10), abs=0.01)


def test_bayesian_ece_bad_input():
    with pytest.raises(ValueError, match="'weighting' parameter"):
        bayesian_expected_calibration_error([0, 1], [0.2, 0.7], weighting="P(b)")
    with pytest.raises(ValueError, match="'n_samples' parameter"):
        bayesian_expected_calibration_error([0, 1], [0.2, 0.7], n_samples=0)
    with pytest.raises(ValueError, match="NaN"):
        bayesian_expected_calibration_error([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="sum to 1"):
        bayesian_expected_calibration_error([0, 1], [[0.2, 0.7], [0.5, 0.5]])


def test_all_new_names_are_public():
    for name in (
        "bayesian_expected_calibration_error",
        "calibration_error_ci",
        "consistency_resampling_test",
        "hosmer_lemeshow_test",
        "spiegelhalter_test",
        "BootstrapConfidenceInterval",
        "CalibrationTestResult",
        "ConfidenceInterval",
        "ConsistencyResamplingResult",
        "HosmerLemeshowResult",
        "SquaredErrorConfidenceInterval",
    ):
        assert name in M.__all__
        assert getattr(M, name).__module__.startswith("skcalib.metrics._")


# --------------------------------------------------------------------------------------
# result classes: unpack as (statistic, pvalue) / (low, high), as scipy.stats results
# --------------------------------------------------------------------------------------


def test_spiegelhalter_result_unpacks_to_the_values():
    """Regression: the tests returned a Bunch, whose unpacking gave its keys:
    ``stat, p = spiegelhalter_test(y, p)`` set ``stat = 'statistic'``."""
    res = spiegelhalter_test([0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.3])
    assert type(res) is CalibrationTestResult
    statistic, pvalue = res
    assert statistic == pytest.approx(-0.19518001458970666) and statistic == res.statistic
    assert pvalue == res.pvalue and isinstance(pvalue, float)
    assert len(res) == 2 and tuple(res) == (res.statistic, res.pvalue)
    assert res[0] == res.statistic and res[-1] == res.pvalue and res[:] == tuple(res)
    with pytest.raises(IndexError):
        res[2]
    assert repr(res) == f"CalibrationTestResult(statistic={statistic!r}, pvalue={pvalue!r})"


def test_hosmer_lemeshow_result_keeps_the_table():
    y = [0, 0, 1, 0, 1, 1, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.25, 0.3, 0.5, 0.55, 0.6, 0.8, 0.85, 0.9]
    res = hosmer_lemeshow_test(y, p, n_groups=5)
    assert isinstance(res, HosmerLemeshowResult) and isinstance(res, CalibrationTestResult)
    statistic, pvalue = res  # df and the table are attributes, not unpacked
    assert (statistic, pvalue) == (res.statistic, res.pvalue) and len(res) == 2
    assert res.df == 5
    np.testing.assert_allclose(res.observed, [0, 1, 2, 1, 2])
    np.testing.assert_allclose(res.expected, [0.3, 0.55, 1.05, 1.4, 1.75])
    np.testing.assert_allclose(res.count, [2, 2, 2, 2, 2])
    assert repr(res).startswith(f"HosmerLemeshowResult(statistic={statistic!r}, ")
    assert "df=5, observed=array([0., 1., 2., 1., 2.])" in repr(res)


def test_consistency_resampling_result():
    y, p = _calibrated(42, 100)
    res = consistency_resampling_test(y, p, n_resamples=30, random_state=0)
    assert type(res) is ConsistencyResamplingResult
    statistic, pvalue = res
    assert statistic == res.statistic == pytest.approx(slow_ece(p, y, 10))
    assert pvalue == res.pvalue and res.null_distribution.shape == (30,)
    # long arrays are summarised in the repr
    assert "null_distribution=array([" in repr(res) and "..." in repr(res)


def test_calibration_error_ci_result_unpacks_as_low_high():
    y, p = _squared_model(43, 300)
    res = calibration_error_ci(expected_calibration_error, y, p, n_resamples=50, random_state=0)
    assert type(res) is BootstrapConfidenceInterval and isinstance(res, ConfidenceInterval)
    low, high = res
    assert (low, high) == (res.low, res.high) and low < res.estimate < high
    assert len(res) == 2
    assert res.estimate == expected_calibration_error(y, p)
    assert res.confidence_level == 0.95 and res.method == "percentile"
    assert res.resample == "bins" and res.bootstrap_distribution.shape == (50,)
    assert res.standard_error == pytest.approx(np.std(res.bootstrap_distribution, ddof=1))


def test_results_are_frozen_picklable_and_compare_by_value():
    y, p = _squared_model(44, 200)
    a = consistency_resampling_test(y, p, n_resamples=20, random_state=0)
    b = consistency_resampling_test(y, p, n_resamples=20, random_state=0)
    c = consistency_resampling_test(y, p, n_resamples=20, random_state=1)
    assert a == b and a != c  # arrays compared by value
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.pvalue = 0.5
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        hash(a)
    ci = SquaredErrorConfidenceInterval(
        low=0.0,
        high=0.25,
        estimate=0.2,
        confidence_level=0.95,
        estimate_squared=0.04,
        standard_error_squared=0.01,
    )
    assert tuple(ci) == (0.0, 0.25)
    # a result never equals the tuple it unpacks to, nor a result of another class
    assert ci != (0.0, 0.25)
    assert ConfidenceInterval(0.0, 0.25, 0.2, 0.95) != ci
    assert ConfidenceInterval(0.0, 0.25, 0.2, 0.95) == ConfidenceInterval(0.0, 0.25, 0.2, 0.95)
    nan = CalibrationTestResult(float("nan"), 1.0)
    assert nan == CalibrationTestResult(float("nan"), 1.0)
