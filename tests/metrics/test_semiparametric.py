"""Semiparametric (SPCE) and censored (CCE) calibration errors.

Test data: google/uncertainty-metrics' ``uncertainty_metrics/numpy/
semiparametric_calibration_error_test.py`` and ``censored_calibration_error_test.py``
(p ~ U(0, 1), outcome ~ Bernoulli(0.7 p^2 + 0.3 p); for CCE events at t = 0.5 and
censoring at t = 1.5 with end_time = 1).  The reference tests only assert that the
values lie in [0, 1]; the true value of the design is
sqrt(E[(p - 0.7 p^2 - 0.3 p)^2]) = 0.7 sqrt(1/30) = 0.1278, which is asserted here too.
"""

import numpy as np
import pytest
from scipy.interpolate import UnivariateSpline

from skcalib.metrics import (
    SquaredErrorConfidenceInterval,
    censored_calibration_error,
    censored_calibration_error_ci,
    get_scorer,
    semiparametric_calibration_error,
    semiparametric_calibration_error_ci,
)
from skcalib.metrics._calibration._semiparametric import (
    _check_range,
    _folds,
    _spline_predict,
    cce_estimate,
    spce_estimate,
    survival_folds,
    weight_function,
)

TRUTH = 0.7 * np.sqrt(1 / 30)


def _design(seed, n):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    a = 0.7 * p**2 + 0.3 * p
    return p, a, (rng.random(n) <= a).astype(int)


# --------------------------------------------------------------------------------------
# SPCE
# --------------------------------------------------------------------------------------


def test_spce_reference_test_vectors_spline():
    p, _, y = _design(0, 2000)
    est = semiparametric_calibration_error(y, p, smoothing="spline", random_state=0)
    assert 0 <= est <= 1  # test_zero_one, test_simple_call
    assert est == pytest.approx(TRUTH, abs=0.02)
    ci = semiparametric_calibration_error_ci(
        y, p, smoothing="spline", random_state=0
    )  # test_conf_int
    assert 0 <= ci.low <= ci.estimate <= ci.high <= 1
    assert ci.estimate == est
    assert ci.low < TRUTH < ci.high
    assert ci.estimate_squared == pytest.approx(est**2)
    # the interval is sqrt(est -+ z se) with z = 1.959964 for 95%
    z = 1.959963984540054
    assert ci.high == pytest.approx(np.sqrt(ci.estimate_squared + z * ci.standard_error_squared))
    assert ci.low == pytest.approx(np.sqrt(ci.estimate_squared - z * ci.standard_error_squared))


def test_spce_one_return_type_each():
    """Regression: semiparametric_calibration_error returned a float or a Bunch
    depending on ``return_ci``.  The value is always a float; the interval comes from
    semiparametric_calibration_error_ci, which unpacks as (low, high)."""
    p, _, y = _design(13, 300)
    kw = dict(n_hyperparams=6, random_state=0)
    est = semiparametric_calibration_error(y, p, **kw)
    assert type(est) is float
    ci = semiparametric_calibration_error_ci(y, p, n_bootstrap=50, **kw)
    assert type(ci) is SquaredErrorConfidenceInterval
    low, high = ci
    assert (low, high) == (ci.low, ci.high) and len(ci) == 2
    assert ci.estimate == est and ci.confidence_level == 0.95
    assert low <= est <= high
    narrow = semiparametric_calibration_error_ci(y, p, n_bootstrap=50, confidence_level=0.5, **kw)
    assert ci.low <= narrow.low <= narrow.high <= ci.high
    assert narrow.standard_error_squared == ci.standard_error_squared
    for removed in ({"return_ci": True}, {"n_bootstrap": 10}, {"confidence_level": 0.9}):
        with pytest.raises(TypeError, match=next(iter(removed))):
            semiparametric_calibration_error(y, p, **removed)


def test_spce_value_runs_no_bootstrap():
    """The value alone draws nothing from numpy's global random state (the bootstrap
    of the standard error is only run by the _ci function)."""
    p, _, y = _design(14, 200)
    state = np.random.get_state()[1].copy()
    semiparametric_calibration_error(y, p, n_hyperparams=4)
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    semiparametric_calibration_error_ci(y, p, n_hyperparams=4, n_bootstrap=5)
    assert not np.array_equal(np.random.get_state()[1], state)


def test_spce_ci_bad_input():
    p, _, y = _design(15, 50)
    with pytest.raises(ValueError, match="'confidence_level' parameter"):
        semiparametric_calibration_error_ci(y, p, confidence_level=1.0)
    with pytest.raises(ValueError, match="'n_bootstrap' parameter"):
        semiparametric_calibration_error_ci(y, p, n_bootstrap=1)
    with pytest.raises(ValueError, match="'smoothing' parameter"):
        semiparametric_calibration_error_ci(y, p, smoothing="loess")
    with pytest.raises(ValueError, match="need at least 10 samples"):
        semiparametric_calibration_error_ci(y[:6], p[:6])


def test_spce_mean_plug_in():
    """test_mean_plug_in: the true calibration function as a continuous outcome."""
    p, a, _ = _design(1, 1000)
    est, _ = spce_estimate(p, a, smoothing="spline", rng=np.random.RandomState(0))
    assert 0 <= np.sqrt(est) <= 1
    assert np.sqrt(est) == pytest.approx(TRUTH, abs=0.01)


def test_spce_kernel_and_options():
    p, _, y = _design(2, 600)
    kw = dict(n_hyperparams=12, random_state=0)
    est = semiparametric_calibration_error(y, p, **kw)
    assert est == pytest.approx(TRUTH, abs=0.035)
    orth = semiparametric_calibration_error(y, p, orthogonal=True, **kw)
    assert orth == pytest.approx(TRUTH, abs=0.04)
    for weights in ("relative", "chi"):
        v = semiparametric_calibration_error(y, p, weights=weights, normalize=True, **kw)
        assert 0 <= v <= 1
    # calibrated data: a small error
    rng = np.random.default_rng(3)
    pc = rng.random(600)
    yc = (rng.random(600) < pc).astype(int)
    assert semiparametric_calibration_error(yc, pc, **kw) < 0.06


def test_spce_is_seeded():
    p, _, y = _design(4, 400)
    kw = dict(n_hyperparams=8)
    a = semiparametric_calibration_error_ci(y, p, random_state=1, **kw)
    b = semiparametric_calibration_error_ci(y, p, random_state=1, **kw)
    c = semiparametric_calibration_error_ci(y, p, random_state=np.random.RandomState(1), **kw)
    assert a == b == c
    d = semiparametric_calibration_error_ci(y, p, random_state=2, **kw)
    assert d.standard_error_squared != a.standard_error_squared


def test_spline_weights_follow_their_points():
    """The fixed defect: weights are sorted with the probabilities.  The fit is then
    invariant to the order of the training points and equals a spline fitted on
    correctly paired sorted data; the reference's pairing (sorted points, unsorted
    weights) gives a different, order-dependent curve."""
    rng = np.random.default_rng(5)
    p = rng.random(300)
    r = (rng.random(300) < p**2) - p
    w = weight_function(p, "chi", 0.05)
    w = w / w.mean()
    x = np.linspace(0.05, 0.95, 7)
    s = 0.8 * np.sum(w**2 * p * (1 - p))
    fit = _spline_predict(p, r, w, x, s)
    order = np.argsort(p)
    ref = UnivariateSpline(p[order], r[order], w=w[order], s=s)(x)
    np.testing.assert_allclose(fit, ref, rtol=1e-12)
    perm = rng.permutation(300)
    np.testing.assert_allclose(_spline_predict(p[perm], r[perm], w[perm], x, s), fit, rtol=1e-10)
    buggy = UnivariateSpline(p[order], r[order], w=w, s=s)(x)
    assert np.max(np.abs(buggy - fit)) > 1e-3


def test_spce_multiclass_and_labels():
    rng = np.random.default_rng(6)
    P = rng.dirichlet(np.ones(3), size=300)
    y = np.array([rng.choice(3, p=row) for row in P])
    names = np.array(["a", "b", "c"])
    kw = dict(n_hyperparams=6, random_state=0)
    v = semiparametric_calibration_error(names[y], P, **kw)
    conf = P.max(axis=1)
    correct = (P.argmax(axis=1) == y).astype(int)
    assert v == semiparametric_calibration_error(correct, conf, **kw)


def test_spce_scorer():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    scorer = get_scorer("spce", n_hyperparams=5, random_state=0)
    scores = cross_val_score(clf, X, y, cv=3, scoring=scorer)
    assert np.all(scores <= 0) and np.all(np.isfinite(scores))
    fitted = clf.fit(X[::2], y[::2])
    want = semiparametric_calibration_error(
        y[1::2], fitted.predict_proba(X[1::2])[:, 1], n_hyperparams=5, random_state=0
    )
    assert scorer(fitted, X[1::2], y[1::2]) == pytest.approx(-want)
    named = get_scorer("neg_semiparametric_calibration_error", n_hyperparams=5, random_state=0)
    assert named(fitted, X[1::2], y[1::2]) == pytest.approx(-want)


def test_spce_bad_input():
    p, _, y = _design(7, 50)
    with pytest.raises(ValueError, match="'smoothing' parameter"):
        semiparametric_calibration_error(y, p, smoothing="loess")
    with pytest.raises(ValueError, match="'weights' parameter"):
        semiparametric_calibration_error(y, p, weights="inverse")
    with pytest.raises(ValueError, match="hyperparam_range must be a pair"):
        semiparametric_calibration_error(y, p, hyperparam_range=(0.2, 0.1))
    with pytest.raises(ValueError, match="need at least 10 samples"):
        semiparametric_calibration_error(y[:6], p[:6])
    with pytest.raises(ValueError, match="'multiclass' parameter"):
        semiparametric_calibration_error(y, p, multiclass="classwise")
    bad = p.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        semiparametric_calibration_error(y, bad)
    # constant probabilities: no division by zero in the bandwidth grid
    v = semiparametric_calibration_error(y, np.full(50, 0.4), n_hyperparams=4, random_state=0)
    assert np.isfinite(v) and 0 <= v <= 1


# --------------------------------------------------------------------------------------
# CCE
# --------------------------------------------------------------------------------------


def _survival_design(seed, n):
    p, a, y = _design(seed, n)
    return p, 1.5 - y, y  # events at 0.5, the others censored at 1.5 > end_time


def test_cce_reference_test_vectors():
    p, times, event = _survival_design(8, 1000)
    kw = dict(end_time=1.0, n_folds=3, n_repeats=2, random_state=0)
    est = censored_calibration_error(p, times, event, **kw)
    assert 0 <= est <= 1  # test_zero_one, test_simple_call
    # the reference returns the squared error here (about 0.0163); skcalib its root
    assert est == pytest.approx(TRUTH, abs=0.03)
    ci = censored_calibration_error_ci(p, times, event, n_bootstrap=10, **kw)  # test_conf_int
    assert 0 <= ci.low <= ci.estimate <= ci.high <= 1
    assert ci.estimate == est  # one square-root scale for the value and the interval
    assert ci.estimate_squared == pytest.approx(est**2)


def test_cce_one_return_type_each():
    """Regression: censored_calibration_error returned a float or a Bunch depending on
    ``return_ci``; the value is always a float, the interval comes from
    censored_calibration_error_ci.  The estimate no longer depends on the bootstrap
    (the bootstraps run after every cross-fit)."""
    p, times, event = _survival_design(16, 300)
    kw = dict(end_time=1.0, n_folds=3, n_repeats=3, n_hyperparams=4, random_state=0)
    est = censored_calibration_error(p, times, event, **kw)
    assert type(est) is float
    small = censored_calibration_error_ci(p, times, event, n_bootstrap=5, **kw)
    large = censored_calibration_error_ci(p, times, event, n_bootstrap=40, **kw)
    assert type(small) is SquaredErrorConfidenceInterval
    assert small.estimate == large.estimate == est
    low, high = large
    assert low <= est <= high and (low, high) == (large.low, large.high)
    for removed in ({"return_ci": True}, {"n_bootstrap": 10}, {"confidence_level": 0.9}):
        with pytest.raises(TypeError, match=next(iter(removed))):
            censored_calibration_error(p, times, event, **kw, **removed)
    with pytest.raises(ValueError, match="'confidence_level' parameter"):
        censored_calibration_error_ci(p, times, event, confidence_level=0.0, **kw)
    with pytest.raises(ValueError, match="'n_bootstrap' parameter"):
        censored_calibration_error_ci(p, times, event, n_bootstrap=1, **kw)


def test_cce_without_censoring_before_the_horizon_is_a_binary_calibration_error():
    """Every censoring time after end_time: the IPCW weights are 1 and the plug-in
    estimate is the SPCE-type statistic mean((p - o)(p - a))."""
    p, times, event = _survival_design(9, 800)
    for kernel in ("rbf", "cubic", "knn"):
        v = censored_calibration_error(
            p, times, event, end_time=1.0, kernel=kernel, n_repeats=1, random_state=0
        )
        assert v == pytest.approx(TRUTH, abs=0.035), kernel


def test_cce_corrects_for_censoring_before_the_horizon():
    """Independent uniform censoring removes many subjects before end_time; the IPCW
    estimate still finds the true error, and a calibrated model scores low."""
    rng = np.random.default_rng(10)
    n = 1200
    p = rng.random(n)
    a = 0.7 * p**2 + 0.3 * p
    by_end = rng.random(n) <= a
    t_event = np.where(by_end, rng.uniform(0.0, 1.0, n), rng.uniform(1.0, 2.0, n))
    t_cens = rng.uniform(0.0, 3.0, n)
    times = np.minimum(t_event, t_cens)
    event = (t_event <= t_cens).astype(int)
    assert np.mean((event == 0) & (times < 1.0)) > 0.2  # heavy early censoring
    # a coarse time grid keeps the test fast: round the times up to a multiple of 0.05
    times = np.ceil(times * 20) / 20  # keeps T <= end_time unchanged
    kw = dict(end_time=1.0, n_repeats=1, n_hyperparams=10, random_state=0)
    v = censored_calibration_error(p, times, event, **kw)
    assert v == pytest.approx(TRUTH, abs=0.04)
    cal_by_end = rng.random(n) <= p
    t_event = np.where(cal_by_end, rng.uniform(0.0, 1.0, n), rng.uniform(1.0, 2.0, n))
    times = np.ceil(np.minimum(t_event, t_cens) * 20) / 20
    event = (t_event <= t_cens).astype(int)
    v = censored_calibration_error(p, times, event, **kw)
    assert v < 0.06


def test_cce_orthogonal_reproduces_the_reference_compensator():
    """Without censoring before end_time: MI = 0, ipw = 1, and the reference's
    compensator gives s_i = a_i / (1 + a_i) for the subjects still at risk at the event
    time, so E[if] = E[(a - p)(o - p)] + E[(a - p)(1 - a)(o - s)] is below CE2: the
    documented bias of the orthogonal form (kept as in uncertainty_metrics)."""
    p, times, event = _survival_design(8, 1000)
    kw = dict(end_time=1.0, n_folds=3, n_repeats=2, random_state=0)
    orth = censored_calibration_error(p, times, event, orthogonal=True, **kw)
    a = 0.7 * p**2 + 0.3 * p
    s = a / (1 + a)
    expected = np.mean((a - p) * (a - p)) + np.mean((a - p) * (1 - a) * (a - (1 - a) * s))
    assert orth == pytest.approx(np.sqrt(expected), abs=0.03)
    assert orth < TRUTH - 0.03


def test_survival_folds_are_stratified_blocks():
    rng = np.random.RandomState(0)
    times = np.arange(23, dtype=float)
    event = np.array([1, 0] * 11 + [1], dtype=float)
    folds = survival_folds(times, event, 4, rng)
    for group in (event == 1, event == 0):
        f = folds[group][np.argsort(times[group])]
        for start in range(0, len(f) - len(f) % 4, 4):
            assert sorted(f[start : start + 4]) == [0, 1, 2, 3]
        tail = f[len(f) - len(f) % 4 :]
        assert len(set(tail)) == len(tail)


def test_cce_options_and_seed():
    p, times, event = _survival_design(11, 400)
    kw = dict(end_time=1.0, n_folds=3, n_repeats=2, n_hyperparams=5)
    a = censored_calibration_error_ci(p, times, event, random_state=3, n_bootstrap=20, **kw)
    b = censored_calibration_error_ci(p, times, event, random_state=3, n_bootstrap=20, **kw)
    assert a == b
    for opts in (
        {"survival_aggregation": "nelson-aalen"},
        {"weights": "chi", "normalize": True},
        {"orthogonal": True},
        {"hyperparam_range": (0.01, 0.2)},
    ):
        v = censored_calibration_error(p, times, event, random_state=0, **kw, **opts)
        assert np.isfinite(v) and 0 <= v <= 1


def test_cce_bad_input():
    p, times, event = _survival_design(12, 40)
    with pytest.raises(ValueError, match="'end_time' parameter"):
        censored_calibration_error(p, times, event, end_time=0)
    with pytest.raises(ValueError, match="'kernel' parameter"):
        censored_calibration_error(p, times, event, end_time=1.0, kernel="epanechnikov")
    with pytest.raises(ValueError, match="'survival_aggregation' parameter"):
        censored_calibration_error(p, times, event, end_time=1.0, survival_aggregation="km")
    with pytest.raises(ValueError, match="times must be >= 0"):
        censored_calibration_error(p, times - 1.0, event, end_time=1.0)
    with pytest.raises(ValueError, match="event must hold 0/1"):
        censored_calibration_error(p, times, event * 2, end_time=1.0)
    with pytest.raises(ValueError, match="probabilities in"):
        censored_calibration_error(p + 1, times, event, end_time=1.0)
    with pytest.raises(ValueError, match="different numbers of samples"):
        censored_calibration_error(p, times[:-1], event, end_time=1.0)
    bad = times.copy()
    bad[2] = np.inf
    with pytest.raises(ValueError, match="times contains infinity"):
        censored_calibration_error(p, bad, event, end_time=1.0)
    with pytest.raises(ValueError, match="need at least 10 samples"):
        censored_calibration_error(p[:8], times[:8], event[:8], end_time=1.0)
    inputs = [np.array(a) for a in (p, times, event)]
    for arr in inputs:
        arr.setflags(write=False)
    censored_calibration_error(*inputs, end_time=1.0, n_repeats=1, n_hyperparams=3)


# --------------------------------------------------------------------------------------
# the kernels' keywords for uncertainty_metrics' conventions (skcalib.compat)
# --------------------------------------------------------------------------------------


def test_spce_kernel_explicit_grid_and_folds_reproduce_the_default():
    p, _, y = _design(21, 120)
    y = y.astype(float)
    n = p.shape[0]
    kw = dict(smoothing="kernel", n_hyperparams=7, n_bootstrap=None)
    ref, _ = spce_estimate(p, y, rng=np.random.RandomState(5), **kw)
    folds = _folds(y, 5, np.random.RandomState(5).randint(np.iinfo(np.int32).max))
    grid = (np.linspace(1, 0.1 * n, 7) / (p.max() - p.min())) ** 2
    got, _ = spce_estimate(p, y, rng=None, grid=grid, folds=folds, skip_nan=True, **kw)
    assert got == ref
    # fold-normalised spline weights change nothing with constant weights...
    kw = dict(smoothing="spline", n_hyperparams=5, n_bootstrap=None, folds=folds, rng=None)
    plain, _ = spce_estimate(p, y, **kw)
    assert spce_estimate(p, y, fold_weights=True, **kw)[0] == plain
    # ...and weight the spline by w / mean(w on the training part) otherwise
    chi = dict(kw, weights="chi")
    assert spce_estimate(p, y, fold_weights=True, **chi)[0] != spce_estimate(p, y, **chi)[0]


def test_spce_kernel_skip_nan_takes_the_best_defined_value():
    p, _, y = _design(22, 60)
    y = y.astype(float)
    folds = _folds(y, 3, 0)
    kw = dict(n_folds=3, n_bootstrap=None, folds=folds, rng=None)
    # an infinite precision gives exp(-inf * 0) = NaN kernel weights -> a NaN error
    grid = np.array([np.inf, 50.0, 400.0])
    with np.errstate(all="ignore"):
        got, _ = spce_estimate(p, y, grid=grid, skip_nan=True, **kw)
        want, _ = spce_estimate(p, y, grid=grid[1:], **kw)
        assert got == want
        with pytest.raises(ValueError, match="undefined for every hyperparameter"):
            spce_estimate(p, y, grid=grid[:1], skip_nan=True, **kw)


def test_cce_kernel_explicit_folds_grid_and_widening():
    p, times, event = _survival_design(23, 150)
    n = p.shape[0]
    kw = dict(n_folds=3, n_repeats=2, n_hyperparams=6, n_bootstrap=None)
    ref, _ = cce_estimate(p, times, event, 1.0, rng=np.random.RandomState(1), **kw)
    rng = np.random.RandomState(1)
    folds = [survival_folds(times, event, 3, rng) for _ in range(3)]
    grid = 1.0 / (np.linspace(1, 0.1 * n, 6) / (p.max() - p.min()))
    got, _ = cce_estimate(p, times, event, 1.0, rng=None, folds=folds, grid=grid, **kw)
    assert got == ref
    # widen multiplies the chosen bandwidth by n^0.08, the default divides it by n^0.08
    one = dict(kw, rng=None, folds=folds)
    wide, _ = cce_estimate(p, times, event, 1.0, grid=grid[2:3], widen=True, **one)
    same, _ = cce_estimate(p, times, event, 1.0, grid=grid[2:3] * n**0.16, **one)
    assert wide == pytest.approx(same, rel=1e-9)
    assert wide != cce_estimate(p, times, event, 1.0, grid=grid[2:3], **one)[0]


def test_check_range_accepts_equal_ends_only_when_asked():
    assert _check_range([0, 2]) == (0.0, 2.0)
    with pytest.raises(ValueError, match="0 <= low < high"):
        _check_range((0.1, 0.1))
    assert _check_range((0.1, 0.1), allow_equal=True) == (0.1, 0.1)
    for bad in [(0.2, 0.1), (-1, 1), (1, 2, 3), (np.nan, 1), (True, 2)]:
        with pytest.raises(ValueError, match="0 <= low <= high"):
            _check_range(bad, allow_equal=True)
