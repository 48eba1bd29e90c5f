"""The scorers of predictive distributions ("crps", "log_score", "miscalibration_area",
"regression_calibration_error", "weighted_interval_score"): each equals the negated
metric on the held-out fold, for regressors with ``predict(X, return_std=True)`` and
with ``predict_distribution(X)``, and selects models in a grid search."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.linear_model import BayesianRidge, LinearRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate

import skcalib  # noqa: F401  (registers the scorer names with scikit-learn)
from skcalib import metrics as M
from skcalib.metrics import get_scorer
from skcalib.recalibration import RecalibratedRegressor

_X, _y = load_diabetes(return_X_y=True)
X, Y = _X[:210], _y[:210]
CV = KFold(3, shuffle=True, random_state=0)

METRICS = {
    "crps": M.crps,
    "log_score": M.log_score,
    "miscalibration_area": M.miscalibration_area,
    "regression_calibration_error": M.regression_calibration_error,
    "weighted_interval_score": M.weighted_interval_score,
}


def _folds(estimator, scoring):
    res = cross_validate(
        estimator,
        X,
        Y,
        cv=CV,
        scoring=scoring,
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    return res, res["indices"]["test"]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_scorer_equals_negated_metric_on_the_fold(name):
    metric = METRICS[name]
    # return_std: the Normal predictive distributions
    res, tests = _folds(BayesianRidge(), {name: name, "neg_" + name: "neg_" + name})
    for k, test in enumerate(tests):
        est = res["estimator"][k]
        mean, std = est.predict(X[test], return_std=True)
        value = -metric(Y[test], stats.norm(mean, std))
        assert res[f"test_{name}"][k] == pytest.approx(value, rel=1e-12)
        assert res[f"test_neg_{name}"][k] == res[f"test_{name}"][k]
    # predict_distribution: the recalibrated distributions
    res, tests = _folds(RecalibratedRegressor(method="isotonic", cv=3), name)
    for k, test in enumerate(tests):
        dist = res["estimator"][k].predict_distribution(X[test])
        assert res["test_score"][k] == pytest.approx(-metric(Y[test], dist), rel=1e-12)


def test_scorer_options_and_weights():
    est = BayesianRidge().fit(X, Y)
    mean, std = est.predict(X, return_std=True)
    dist = stats.norm(mean, std)
    scorer = get_scorer("regression_calibration_error", norm="l2", kind="quantile")
    assert scorer(est, X, Y) == pytest.approx(
        -M.regression_calibration_error(Y, dist, norm="l2", kind="quantile")
    )
    scorer = get_scorer("miscalibration_area", n_levels=11)
    assert scorer(est, X, Y) == pytest.approx(-M.miscalibration_area(Y, dist, n_levels=11))
    w = np.random.default_rng(0).integers(0, 3, size=len(Y))
    scorer = get_scorer("crps")
    assert scorer(est, X, Y, sample_weight=w) == pytest.approx(
        -M.crps(Y, dist, sample_weight=w), rel=1e-12
    )
    with pytest.raises(ValueError, match="does not accept the option.*aggregate"):
        get_scorer("crps", aggregate=False)
    with pytest.raises(ValueError, match="norm"):
        get_scorer("regression_calibration_error", norm="l3")


def test_scorers_select_models_and_need_a_distribution():
    # cross_val_score by name, and a grid search over the recalibration methods
    scores = cross_val_score(BayesianRidge(), X, Y, scoring="miscalibration_area", cv=CV)
    assert np.all(scores <= 0) and np.all(np.isfinite(scores))
    search = GridSearchCV(
        RecalibratedRegressor(cv=3),
        {"method": ["std_scaling", "isotonic"]},
        scoring=["crps", "miscalibration_area"],
        refit="miscalibration_area",
        cv=CV,
        error_score="raise",
    ).fit(X, Y)
    area = search.cv_results_["mean_test_miscalibration_area"]
    assert search.best_index_ == int(np.argmax(area))
    with pytest.raises(ValueError, match=r"scoring='crps' needs.*LinearRegression.predict"):
        cross_val_score(LinearRegression(), X, Y, scoring="crps", error_score="raise")
    # conformal regressors give intervals only: their error says so
    conformal = RecalibratedRegressor(method="conformal", cv=3).fit(X, Y)
    with pytest.raises(ValueError, match="method='conformal' gives prediction intervals"):
        get_scorer("weighted_interval_score")(conformal, X, Y)
    assert_allclose(conformal.predict(X), conformal.estimator_.predict(X))
