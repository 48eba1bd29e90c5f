"""The cumulative calibration error (ECCE) and its test: golden values of MCGrad, a
slow reference, the null distribution, power, class-wise and the scorer."""

from functools import partial

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score

import skcalib  # noqa: F401  (registers the scorers)
from skcalib.metrics import (
    CumulativeCalibrationTestResult,
    cumulative_calibration_error,
    cumulative_calibration_test,
)
from skcalib.metrics._groups._kernels import brownian_range_sf, cumulative_ranges


def _slow_ecce(y, p, w=None):
    """Sort, group tied probabilities into one step, accumulate, take the range."""
    w = np.ones(len(p)) if w is None else np.asarray(w, dtype=float)
    total = w.sum()
    walk = [0.0]
    s = 0.0
    for value in sorted(set(p.tolist())):
        rows = p == value
        s += float(np.sum(w[rows] * (y[rows] - p[rows])))
        walk.append(s / total)
    return max(walk) - min(walk)


def _binary(seed, n=1000, power=1.2):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**power).astype(np.int64)
    return y, p, rng.random(n) * 2


# MCGrad 0.1.5 (mcgrad.metrics.ecce, ecce_sigma, ecce_pvalue; numpy 2.4.6) on
# _binary(20261128): (ecce, sigma, pvalue) unweighted and with sample_weight=w
MCGRAD = {
    False: (0.06488862538872034, 5.0084341611025955, 2.1949856082725816e-06),
    True: (0.05399908393740181, 3.6389876557387377, 0.0010948476689216502),
}


@pytest.mark.parametrize("weighted", [False, True])
def test_mcgrad_golden_values(weighted):
    y, p, w = _binary(20261128)
    kw = {"sample_weight": w} if weighted else {}
    ecce, sigma, pvalue = MCGRAD[weighted]
    res = cumulative_calibration_test(y, p, **kw)
    assert isinstance(res, CumulativeCalibrationTestResult)
    assert res.statistic == pytest.approx(ecce, rel=1e-12)
    assert res.sigma == pytest.approx(sigma, rel=1e-12)
    # MCGrad's p-value is 1 - CDF (cancellation below 1e-6); ours the tail series
    assert res.pvalue == pytest.approx(pvalue, rel=1e-8)
    assert cumulative_calibration_error(y, p, **kw) == pytest.approx(ecce, rel=1e-12)
    statistic, pv = res
    assert (statistic, pv) == (res.statistic, res.pvalue)
    assert res.sigma == res.statistic / res.null_std


def test_brownian_range_survival_function():
    # mcgrad.metrics.ecce_pvalue_from_sigma 0.1.5 (1 - CDF of the range of Brownian
    # motion) at these points
    x = np.array([0.5, 1.0, 1.4, 1.5, 1.6, 2.0, 3.0, 5.0])
    expected = [
        9.99999912e-01,
        9.36635412e-01,
        6.05491144e-01,
        5.12940754e-01,
        4.27419164e-01,
        1.81494339e-01,
        1.07991685e-02,
        2.29321257e-06,
    ]
    np.testing.assert_allclose(brownian_range_sf(x), expected, rtol=2e-8)
    assert brownian_range_sf(0.0) == 1.0 and brownian_range_sf(np.inf) == 0.0
    # the two series agree where they meet, and the tail keeps relative precision
    from skcalib.metrics._groups._kernels import _range_cdf, _range_sf_tail

    t = np.linspace(1.0, 2.5, 7)
    np.testing.assert_allclose(1.0 - _range_cdf(t), _range_sf_tail(t), rtol=1e-12)
    assert 0 < brownian_range_sf(12.0) < 1e-30
    # Monte-Carlo: the range of a 2,000-step Gaussian walk over sqrt(2,000)
    rng = np.random.default_rng(0)
    walks = np.cumsum(rng.standard_normal((4000, 2000)), axis=1) / np.sqrt(2000)
    ranges = np.maximum(walks.max(axis=1), 0) - np.minimum(walks.min(axis=1), 0)
    for q in (1.0, 1.5, 2.5):
        assert np.mean(ranges > q) == pytest.approx(brownian_range_sf(q), abs=0.03)


@pytest.mark.parametrize("seed", range(4))
def test_equals_slow_reference_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    n = 300
    p = np.round(rng.random(n), 1 + seed % 2)  # many ties
    y = (rng.random(n) < p).astype(int)
    w = rng.random(n) * 3
    w[:10] = 0.0
    assert cumulative_calibration_error(y, p) == pytest.approx(_slow_ecce(y, p), abs=1e-14)
    got = cumulative_calibration_error(y, p, sample_weight=w)
    assert got == pytest.approx(_slow_ecce(y, p, w), abs=1e-14)


def test_ties_do_not_depend_on_the_order():
    # two tied predictions with opposite outcomes: one step, whatever their order
    y = np.array([1, 0, 1])
    p = np.array([0.5, 0.5, 0.9])
    assert cumulative_calibration_error(y, p) == pytest.approx(0.1 / 3)
    assert cumulative_calibration_error(y[[1, 0, 2]], p) == pytest.approx(0.1 / 3)


def test_top_label_and_classwise_equal_binary_pieces():
    rng = np.random.default_rng(3)
    n, k = 800, 4
    P = rng.dirichlet(np.ones(k), n)
    y = np.array([rng.choice(k, p=r) for r in P])
    conf, pred = P.max(axis=1), P.argmax(axis=1)
    correct = (pred == y).astype(int)
    assert cumulative_calibration_error(y, P) == pytest.approx(_slow_ecce(correct, conf))
    per_class = [_slow_ecce((y == j).astype(int), P[:, j]) for j in range(k)]
    got = cumulative_calibration_error(y, P, multiclass="classwise")
    assert got == pytest.approx(np.mean(per_class), rel=1e-12)
    res = cumulative_calibration_test(y, P, multiclass="classwise")
    tests = [cumulative_calibration_test((y == j).astype(int), P[:, j]) for j in range(k)]
    assert res.pvalue == pytest.approx(min(1.0, k * min(t.pvalue for t in tests)))
    assert res.sigma == pytest.approx(max(t.sigma for t in tests))
    # binary: class-wise (both columns) equals the positive-class ECCE
    yb, pb, _ = _binary(1, n=200)
    assert cumulative_calibration_error(yb, pb, multiclass="classwise") == pytest.approx(
        cumulative_calibration_error(yb, pb)
    )


def test_null_pvalues_are_uniform_and_power():
    """400 calibrated data sets of 2,000 samples in one grouped pass: the p-values of
    the Kuiper test are uniform (KS test); a miscalibrated stream is rejected."""
    rng = np.random.default_rng(11)
    m, n = 400, 2000
    p = rng.random((m, n))
    y = (rng.random((m, n)) < p).astype(float)
    codes = np.repeat(np.arange(m), n)
    ranges = cumulative_ranges(p.ravel(), (y - p).ravel(), codes, m)
    sigma = ranges / np.sqrt((p * (1 - p)).sum(axis=1))
    pvalues = brownian_range_sf(sigma)
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-3
    assert np.mean(pvalues < 0.05) < 0.08
    # the grouped pass equals the function on one data set
    assert cumulative_calibration_test(y[5].astype(int), p[5]).pvalue == pytest.approx(
        pvalues[5], rel=1e-10
    )
    # power: y ~ Bernoulli(p ** 1.3) is detected nearly always at n = 2,000
    y_bad = (rng.random((50, n)) < p[:50] ** 1.3).astype(int)
    rejected = [cumulative_calibration_test(y_bad[i], p[i]).pvalue < 0.05 for i in range(50)]
    assert np.mean(rejected) > 0.9


def test_degenerate_cases():
    # probabilities 0 and 1 only: no null variance; a wrong one gives an infinite sigma
    res = cumulative_calibration_test([0, 1, 1], [0.0, 1.0, 0.0])
    assert res.sigma == np.inf and res.pvalue == 0.0
    res = cumulative_calibration_test([0, 1], [0.0, 1.0])
    assert res.statistic == 0.0 and res.sigma == 0.0 and res.pvalue == 1.0
    # string labels and pos_label
    y = np.array(["no", "yes", "yes", "no"])
    p = np.array([0.2, 0.7, 0.6, 0.4])
    a = cumulative_calibration_error(y, p, pos_label="yes")
    assert a == pytest.approx(cumulative_calibration_error((y == "yes").astype(int), p))


def test_bad_input():
    with pytest.raises(ValueError, match="y_proba"):
        cumulative_calibration_error([0, 1], [0.2, np.nan])
    with pytest.raises(ValueError, match="y_proba"):
        cumulative_calibration_test([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError):
        cumulative_calibration_error([0, 1, 1], [0.2, 0.5])
    with pytest.raises(ValueError, match="multiclass"):
        cumulative_calibration_test([0, 1], [0.2, 0.5], multiclass="bogus")
    with pytest.raises(ValueError, match="sample_weight"):
        cumulative_calibration_error([0, 1], [0.2, 0.5], sample_weight=[1.0, -1.0])


def test_inputs_not_modified():
    y, p, w = _binary(2, n=100)
    p_ro, w_ro = p.copy(), w.copy()
    p_ro.flags.writeable = w_ro.flags.writeable = False
    cumulative_calibration_test(y, p_ro, sample_weight=w_ro)
    np.testing.assert_array_equal(p_ro, p)


def test_scorer_ecce():
    X, y = make_classification(400, random_state=0)
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(LogisticRegression(), X, y, cv=cv, scoring="ecce")
    expected = []
    for train, test in cv.split(X):
        clf = LogisticRegression().fit(X[train], y[train])
        expected.append(-cumulative_calibration_error(y[test], clf.predict_proba(X[test])))
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
    named = cross_val_score(
        LogisticRegression(), X, y, cv=cv, scoring="neg_cumulative_calibration_error"
    )
    np.testing.assert_array_equal(named, scores)


def test_partial_with_multiclass_option():
    # the registry form of the class-wise variant is a plain partial
    f = partial(cumulative_calibration_error, multiclass="top_label")
    y, p, _ = _binary(4, n=50)
    assert 0.0 <= f(y, p) <= 1.0


@pytest.mark.parametrize("n_groups", [1, 5, 2**45])
def test_packed_order_is_exact(n_groups):
    """The packed sort orders by (group, probability) exactly: probabilities that differ
    only in their last bits (which the packed key drops), signed zeros, 0 and 1; with
    2**45 groups it falls back to a lexicographic sort."""
    from skcalib.metrics._groups._kernels import packed_order

    rng = np.random.default_rng(6)
    n = 5000
    p = 0.5 + rng.integers(0, 6, n) * 2.0**-50
    p[:50] = -0.0
    p[50:100] = 1.0
    p[100:200] = rng.random(100)
    codes = rng.integers(0, min(n_groups, 5), n) if n_groups > 1 else None
    order, sorted_codes, last = packed_order(p, codes, n_groups)
    assert sorted(order.tolist()) == list(range(n))
    key = p[order] + 0.0
    ends = np.append(np.diff(key) != 0, True)
    if codes is not None:
        ends[:-1] |= np.diff(codes[order]) != 0
    np.testing.assert_array_equal(last, ends)
    if codes is None:
        assert sorted_codes is None
        assert np.all(np.diff(key) >= 0)
    else:
        np.testing.assert_array_equal(sorted_codes, codes[order])
        c = codes[order]
        assert np.all(np.diff(c) >= 0)
        assert np.all((np.diff(c) > 0) | (np.diff(key) >= 0))
