"""RecalibratedRegressor: cross-fitting, frozen regressors, every prediction method,
and scikit-learn's estimator checks."""

import pickle

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.base import clone
from sklearn.datasets import load_diabetes
from sklearn.frozen import FrozenEstimator
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.linear_model import BayesianRidge, LinearRegression
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.utils.estimator_checks import estimator_checks_generator, parametrize_with_checks

from skcalib.metrics import PredictionInterval, PredictiveSamples
from skcalib.metrics._regression._forms import as_predictive
from skcalib.recalibration import (
    ConformalInterval,
    QuantileRecalibration,
    RecalibratedDistribution,
    RecalibratedRegressor,
    StdScaling,
)

_X, _y = load_diabetes(return_X_y=True)
X, Y = _X[:240], _y[:240]
X_TEST, Y_TEST = _X[240:340], _y[240:340]


def _oof(estimator, X, y, cv):
    """Out-of-fold Normal predictions, by a loop over the splits."""
    mean, std = np.zeros(len(y)), np.zeros(len(y))
    for train, test in cv.split(X, y):
        est = clone(estimator).fit(X[train], y[train])
        mean[test], std[test] = est.predict(X[test], return_std=True)
    return mean, std


@pytest.mark.parametrize("method", ["std_scaling", "isotonic", "conformal"])
def test_cross_fitting_pools_out_of_fold_predictions(method):
    cv = KFold(4, shuffle=True, random_state=0)
    reg = RecalibratedRegressor(BayesianRidge(), method=method, cv=cv).fit(X, Y)
    mean, std = _oof(BayesianRidge(), X, Y, cv)
    cal = {"std_scaling": StdScaling, "isotonic": QuantileRecalibration}.get(
        method, ConformalInterval
    )()
    cal.fit(stats.norm(mean, std), Y)
    final = BayesianRidge().fit(X, Y)
    m, s = final.predict(X_TEST, return_std=True)
    base = stats.norm(m, s)
    expected = as_predictive(cal.transform(base)) if method != "conformal" else None
    interval = reg.predict_interval(X_TEST, coverage=0.8)
    if method == "conformal":
        assert reg.calibrator_.quantile(0.8) == cal.quantile(0.8)
        ref = cal.transform(base, coverage=0.8)
        assert_allclose(reg.predict(X_TEST), m)
        with pytest.raises(ValueError, match="method='conformal' gives prediction intervals"):
            reg.predict_distribution(X_TEST)
        with pytest.raises(ValueError, match="not standard deviations"):
            reg.predict(X_TEST, return_std=True)
        q = reg.predict_quantiles(X_TEST, [0.1, 0.5, 0.9])
        assert_allclose(q[:, 0], ref.lower)
        assert_allclose(q[:, 1], m)
        assert_allclose(q[:, 2], ref.upper)
    else:
        ref = PredictionInterval(*expected.interval(0.8), 0.8)
        mean_hat, std_hat = reg.predict(X_TEST, return_std=True)
        assert_allclose(mean_hat, expected.mean())
        assert_allclose(std_hat, expected.std())
        assert_allclose(
            reg.predict_quantiles(X_TEST, [0.1, 0.9]), expected.ppf([0.1, 0.9]), rtol=1e-12
        )
        dist = reg.predict_distribution(X_TEST)
        kind = stats._distn_infrastructure.rv_continuous_frozen
        assert isinstance(dist, kind if method == "std_scaling" else RecalibratedDistribution)
    assert isinstance(interval, PredictionInterval) and interval.coverage == 0.8
    assert_allclose(interval.lower, ref.lower)
    assert_allclose(interval.upper, ref.upper)
    # held-out coverage near the nominal one
    hit = np.mean((interval.lower <= Y_TEST) & (Y_TEST <= interval.upper))
    assert 0.65 <= hit <= 0.95
    assert reg.n_features_in_ == X.shape[1]
    again = pickle.loads(pickle.dumps(reg))
    assert_allclose(again.predict_interval(X_TEST, 0.8).lower, interval.lower)


def test_frozen_regressor_and_weights():
    gp = GaussianProcessRegressor(RBF(10.0) + WhiteKernel(), normalize_y=True, optimizer=None)
    fitted = gp.fit(X[:120], Y[:120])
    w = np.random.default_rng(0).integers(0, 3, size=len(Y_TEST))
    reg = RecalibratedRegressor(FrozenEstimator(fitted), method="std_scaling")
    reg.fit(X_TEST, Y_TEST, sample_weight=w)
    m, s = fitted.predict(X_TEST, return_std=True)
    cal = StdScaling().fit(stats.norm(m, s), Y_TEST, sample_weight=w)
    assert reg.calibrator_.scale_ == pytest.approx(cal.scale_, rel=1e-12)
    assert reg.estimator_ is reg.estimator  # not refitted
    # a regressor with predict_distribution: its form is used (samples here)

    class Ensemble(BayesianRidge):
        def predict_distribution(self, X):
            m, s = self.predict(X, return_std=True)
            z = np.random.default_rng(0).normal(size=(len(m), 200))
            return PredictiveSamples(m[:, None] + s[:, None] * z)

    reg = RecalibratedRegressor(Ensemble(), method="isotonic", cv=3).fit(X, Y)
    assert isinstance(reg.predict_distribution(X_TEST).base, PredictiveSamples)


def test_metadata_routing_of_sample_weight():
    import sklearn

    w = np.random.default_rng(0).integers(1, 3, size=len(Y)).astype(float)
    plain = RecalibratedRegressor(BayesianRidge(), cv=3).fit(X, Y, sample_weight=w)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = RecalibratedRegressor(BayesianRidge().set_fit_request(sample_weight=True), cv=3)
        routed.fit(X, Y, sample_weight=w)
        unrouted = RecalibratedRegressor(
            BayesianRidge().set_fit_request(sample_weight=False), cv=3
        ).fit(X, Y, sample_weight=w)
    assert_allclose(routed.estimator_.coef_, plain.estimator_.coef_)
    assert routed.calibrator_.scale_ == pytest.approx(plain.calibrator_.scale_, rel=1e-12)
    assert_allclose(unrouted.estimator_.coef_, BayesianRidge().fit(X, Y).coef_)


def test_point_regressors_and_errors():
    # conformal works around any point regressor, the other methods need a distribution
    reg = RecalibratedRegressor(LinearRegression(), method="conformal", cv=3).fit(X, Y)
    assert reg.calibrator_.normalized_ is False
    iv = reg.predict_interval(X_TEST, coverage=0.9)
    assert_allclose(iv.upper - iv.lower, 2 * reg.calibrator_.quantile(0.9))
    with pytest.raises(ValueError, match="LinearRegression has neither"):
        RecalibratedRegressor(LinearRegression(), method="isotonic").fit(X, Y)
    with pytest.raises(ValueError, match="cv holds out sample"):
        RecalibratedRegressor(cv=ShuffleSplit(3, test_size=0.5, random_state=0)).fit(X, Y)
    with pytest.raises(ValueError, match="method"):
        RecalibratedRegressor(method="sigmoid").fit(X, Y)
    with pytest.raises(ValueError, match="requires y"):
        RecalibratedRegressor().fit(X, None)
    bad = Y.astype(float).copy()
    bad[5] = np.nan
    with pytest.raises(ValueError, match=r"y contains NaN \(first at index 5\)"):
        RecalibratedRegressor().fit(X, bad)
    reg = RecalibratedRegressor(method=StdScaling(criterion="mace")).fit(X, Y)
    assert reg.calibrator_.criterion == "mace"
    with pytest.raises(ValueError, match="coverage"):
        reg.predict_interval(X_TEST, coverage=1.2)
    with pytest.raises(ValueError, match="levels"):
        reg.predict_quantiles(X_TEST, [0.0, 0.5])


# --------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# --------------------------------------------------------------------------------------


#: scikit-learn before 1.9 (measured: 1.6.1 fails both, 1.9.1 passes both)
_SKLEARN_BEFORE_1_9 = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) < (1, 9)

#: the checks that fail with scikit-learn < 1.9, each with its reason (strict: a check
#: that passes there means its reason is stale)
OLD_SKLEARN_XFAIL = {
    "check_regressor_data_not_an_array": "the default regressor's own predict fails: "
    "BayesianRidge.predict(X, return_std=True) of scikit-learn 1.6 calls np.dot on the "
    "check's non-array X before converting it",
    "check_sample_weight_equivalence_on_dense_data": "cross-fitting (KFold) splits the "
    "repeated rows of the check's data (scikit-learn < 1.9 draws other data) across folds, "
    "which an integer weight cannot do, so the out-of-fold statistics differ",
}


@parametrize_with_checks(
    [RecalibratedRegressor()],
    expected_failed_checks=lambda est: OLD_SKLEARN_XFAIL if _SKLEARN_BEFORE_1_9 else {},
)
def test_recalibrated_regressor_passes_sklearn_checks(estimator, check):
    # every check, no expected failure with scikit-learn >= 1.9 (the array API check
    # skips itself: scipy's array API support is off)
    check(estimator)


#: the checks that exercise the recalibrator (run for the other methods; the full suite
#: runs above for the default one)
RECALIBRATOR_SENSITIVE_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weights_not_overwritten",
    "check_methods_subset_invariance",
    "check_methods_sample_order_invariance",
    "check_fit_idempotent",
    "check_regressors_train",
    "check_supervised_y_2d",
    "check_fit2d_1sample",
    "check_estimators_pickle",
}


@pytest.mark.parametrize("method", ["isotonic", "conformal"])
def test_recalibrated_regressor_checks_with_every_method(method):
    estimator = RecalibratedRegressor(method=method)
    ran, available = set(), set()
    for est, check in estimator_checks_generator(estimator):
        name = getattr(check, "func", check).__name__
        available.add(name)
        if name in RECALIBRATOR_SENSITIVE_CHECKS:
            if _SKLEARN_BEFORE_1_9 and name in OLD_SKLEARN_XFAIL:
                continue  # the reason in OLD_SKLEARN_XFAIL
            check(est)
            ran.add(name)
    skipped = set(OLD_SKLEARN_XFAIL) if _SKLEARN_BEFORE_1_9 else set()
    assert ran == (RECALIBRATOR_SENSITIVE_CHECKS - skipped) & available
    assert "check_regressors_train" in ran


def test_quantile_regressors_one_per_level():
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import QuantileRegressor

    from skcalib.metrics import PredictiveQuantiles

    levels = [0.1, 0.5, 0.9]
    gbr = GradientBoostingRegressor(loss="quantile", n_estimators=8, max_depth=2)
    reg = RecalibratedRegressor(gbr, method="conformal", cv=2, quantile_levels=levels)
    reg.fit(X, Y)
    fitted = reg.estimator_.estimators_
    assert [e.alpha for e in fitted] == levels
    base = reg.estimator_.predict_distribution(X_TEST)
    assert isinstance(base, PredictiveQuantiles)
    q = np.column_stack([e.predict(X_TEST) for e in fitted])
    assert_allclose(base.values, np.sort(q, axis=1))  # crossing quantiles rearranged
    assert_allclose(reg.estimator_.predict(X_TEST), base.ppf([0.5])[:, 0])
    assert_allclose(reg.predict(X_TEST), base.mean())  # conformal: around the mean
    iv = reg.predict_interval(X_TEST, coverage=0.8)
    hit = np.mean((iv.lower <= Y_TEST) & (Y_TEST <= iv.upper))
    assert 0.6 <= hit <= 0.95
    # isotonic recalibration of the quantile set: a RecalibratedDistribution over it
    iso = clone(reg).set_params(method="isotonic").fit(X, Y)
    assert isinstance(iso.predict_distribution(X_TEST).base, PredictiveQuantiles)
    # QuantileRegressor: its level is the parameter "quantile"
    qr = RecalibratedRegressor(
        QuantileRegressor(alpha=0.0, solver="highs"), cv=3, quantile_levels=[0.25, 0.75]
    ).fit(X[:90], Y[:90])
    assert [e.quantile for e in qr.estimator_.estimators_] == [0.25, 0.75]
    # sample weights reach each quantile regressor
    w = np.random.default_rng(0).integers(0, 3, size=90).astype(float)
    qr.fit(X[:90], Y[:90], sample_weight=w)
    direct = QuantileRegressor(alpha=0.0, solver="highs", quantile=0.75)
    direct.fit(X[:90], Y[:90], sample_weight=w)
    assert_allclose(qr.estimator_.estimators_[1].coef_, direct.coef_)
    with pytest.raises(ValueError, match="loss='squared_error'; set loss='quantile'"):
        RecalibratedRegressor(GradientBoostingRegressor(), quantile_levels=levels).fit(X, Y)
    with pytest.raises(ValueError, match="LinearRegression has neither"):
        RecalibratedRegressor(LinearRegression(), quantile_levels=levels).fit(X, Y)
    with pytest.raises(ValueError, match="at least 2 strictly increasing"):
        RecalibratedRegressor(gbr, quantile_levels=[0.9, 0.1]).fit(X, Y)
    with pytest.raises(ValueError, match="quantile_levels must lie strictly between 0 and 1"):
        RecalibratedRegressor(gbr, quantile_levels=[0.0, 0.5]).fit(X, Y)
    with pytest.raises(ValueError, match="cannot be a FrozenEstimator"):
        RecalibratedRegressor(FrozenEstimator(gbr), quantile_levels=levels).fit(X, Y)
