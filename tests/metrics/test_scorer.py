"""skcalib scorers: values equal the metrics on the same fold predictions, in every
scorer kind (probabilistic classification, ensembles, Normal regression forecasts)."""

import pickle

import numpy as np
import pytest
import sklearn
from numpy.testing import assert_allclose
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.ensemble import (
    BaggingClassifier,
    ExtraTreesClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel
from sklearn.linear_model import (
    ARDRegression,
    BayesianRidge,
    LinearRegression,
    LogisticRegression,
)
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import skcalib  # noqa: F401  (registers the names with scikit-learn)
from skcalib import metrics as M
from skcalib.metrics import get_scorer, get_scorer_names
from skcalib.metrics._registration import registered_scorer_names
from skcalib.metrics._scorer import _SPECS, _ProbaScorer
from skcalib.utils._sklearn_compat import SklearnScorer, build_scorer, parameter_constraints

EPS = np.finfo(np.float64).eps

# name -> (kind, metric, options used by the scorer); expected = -metric for losses
PROBA = {
    "ece": (M.expected_calibration_error, {}),
    "neg_expected_calibration_error": (M.expected_calibration_error, {}),
    "mce": (M.max_calibration_error, {}),
    "neg_max_calibration_error": (M.max_calibration_error, {}),
    "rmsce": (M.root_mean_squared_calibration_error, {}),
    "neg_root_mean_squared_calibration_error": (M.root_mean_squared_calibration_error, {}),
    "sce": (M.static_calibration_error, {}),
    "neg_static_calibration_error": (M.static_calibration_error, {}),
    "ace": (M.adaptive_calibration_error, {}),
    "neg_adaptive_calibration_error": (M.adaptive_calibration_error, {}),
    "tace": (M.thresholded_adaptive_calibration_error, {}),
    "neg_thresholded_adaptive_calibration_error": (M.thresholded_adaptive_calibration_error, {}),
    "gce": (M.general_calibration_error, {}),
    "neg_general_calibration_error": (M.general_calibration_error, {}),
    "brier": (M.brier_score, {}),
    "nll": (M.negative_log_likelihood, {}),
    "neg_negative_log_likelihood": (M.negative_log_likelihood, {}),
}
ENSEMBLE = {
    "iscv": lambda L: M.importance_sampling_cross_validation(L).value,
    "importance_sampling_cross_validation": lambda L: (
        M.importance_sampling_cross_validation(L).value
    ),
    "waic": lambda L: M.negative_waic(L).value,
    "negative_waic": lambda L: M.negative_waic(L).value,
    "psis_loo": lambda L: M.psis_loo(L).value,
}
REGRESSION = {
    "crps": M.crps_normal,
    "neg_crps_normal": M.crps_normal,
    "gaussian_nll": M.normal_negative_log_likelihood,
    "neg_normal_negative_log_likelihood": M.normal_negative_log_likelihood,
}
REQUIRED = {
    "ece",
    "mce",
    "rmsce",
    "sce",
    "ace",
    "tace",
    "brier",
    "nll",
    "crps",
    "iscv",
    "waic",
    "neg_expected_calibration_error",
    "neg_crps_normal",
}

#: the kind of every scorer name ("proba", "ensemble", "regression", "distribution")
_KIND_OF = {n: spec.kind for spec in _SPECS for n in spec.names}

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
_Xb, _yb = load_breast_cancer(return_X_y=True)
X_BIN, Y_BIN = _Xb[::2], np.array(["malignant", "benign"])[_yb[::2]]  # string labels
_Xr, _yr = load_diabetes(return_X_y=True)
X_REG, Y_REG = _Xr[:200], _yr[:200]
CV = KFold(3, shuffle=True, random_state=0)


def _clf():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def _bagging():
    return BaggingClassifier(
        DecisionTreeClassifier(max_depth=3),
        n_estimators=6,
        max_features=0.75,
        random_state=0,
    )


def test_names():
    names = get_scorer_names()
    assert REQUIRED <= set(names)
    assert names == sorted(names)
    known = set(PROBA) | set(ENSEMBLE) | set(REGRESSION)
    # every name of the three tables is available (the metrics exist)
    assert known <= set(names)


def test_every_spec_is_a_public_metric_function():
    public = {name: getattr(M, name) for name in M.__all__}
    for spec in _SPECS:
        name = spec.metric.__name__
        assert name in public, name
        assert public[name] is spec.metric, name
        assert spec.score_func is None or callable(spec.score_func)
    names = [n for spec in _SPECS for n in (spec.name, spec.alias) if n]
    assert len(names) == len(set(names))  # no name used twice
    assert sorted(names) == get_scorer_names()


@pytest.mark.parametrize("name", get_scorer_names())
def test_every_name_builds(name):
    scorer = get_scorer(name)
    assert isinstance(scorer, SklearnScorer)
    assert type(scorer).__module__ == "skcalib.metrics._scorer"
    spec = next(s for s in _SPECS if name in (s.name, s.alias))
    assert repr(scorer).startswith(f"make_scorer({(spec.score_func or spec.metric).__name__}")


def _scoring(name):
    """The string, which scikit-learn resolves to skcalib's scorer (every name is
    registered by ``import skcalib``)."""
    assert name in registered_scorer_names()
    assert type(sklearn.metrics.get_scorer(name)).__module__ == "skcalib.metrics._scorer"
    return name


def _fold_check(name, estimator, X, y, expected_fn):
    res = cross_validate(
        estimator,
        X,
        y,
        cv=CV,
        scoring=_scoring(name),
        return_estimator=True,
        return_indices=True,
        error_score="raise",
    )
    for score, est, test in zip(
        res["test_score"], res["estimator"], res["indices"]["test"], strict=True
    ):
        assert score == pytest.approx(expected_fn(est, X[test], y[test]), rel=1e-12, abs=1e-12)
    return res["test_score"]


@pytest.mark.parametrize("name", sorted(PROBA))
@pytest.mark.parametrize("data", ["binary_str", "multiclass"])
def test_proba_scorer_equals_negated_metric_on_folds(name, data):
    metric, options = PROBA[name]
    X, y = (X_BIN, Y_BIN) if data == "binary_str" else (X_IRIS, Y_IRIS)

    def expected(est, Xt, yt):
        # what a user computes by hand: the metric on predict_proba with the classes
        return -metric(yt, est.predict_proba(Xt), labels=est.classes_, **options)

    scores = _fold_check(name, _clf(), X, y, expected)
    assert np.all(np.isfinite(scores)) and np.all(scores <= 0)


@pytest.mark.parametrize("name", sorted(ENSEMBLE))
def test_ensemble_scorer_equals_criterion_on_member_log_likelihoods(name):
    def expected(est, Xt, yt):
        P = M.member_probabilities(est, Xt)
        idx = np.searchsorted(est.classes_, yt)
        L = np.log(np.clip(P[:, np.arange(len(yt)), idx], EPS, 1.0)).T
        return ENSEMBLE[name](L)  # higher is better already: not negated

    _fold_check(name, _bagging(), X_IRIS, Y_IRIS, expected)


@pytest.mark.parametrize("name", sorted(REGRESSION))
def test_regression_scorer_equals_negated_metric(name):
    def expected(est, Xt, yt):
        mean, std = est.predict(Xt, return_std=True)
        return -REGRESSION[name](yt, mean, std)

    _fold_check(name, BayesianRidge(), X_REG, Y_REG, expected)


def _estimator_for(name):
    if name in ENSEMBLE:
        return _bagging(), {"n_estimators": [3, 6]}, X_IRIS, Y_IRIS
    if name in REGRESSION or _KIND_OF[name] == "distribution":  # regressors
        return BayesianRidge(), {"alpha_1": [1e-6, 1e-3]}, X_REG, Y_REG
    return _clf(), {"logisticregression__C": [0.1, 1.0]}, X_IRIS, Y_IRIS


@pytest.mark.parametrize("name", get_scorer_names())
def test_every_scorer_runs_in_grid_search_and_cross_validate(name):
    est, grid, X, y = _estimator_for(name)
    scoring = _scoring(name)
    search = GridSearchCV(est, grid, scoring=scoring, cv=3, error_score="raise").fit(X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    res = cross_validate(est, X, y, scoring={name: scoring}, cv=3, error_score="raise")
    assert np.all(np.isfinite(res[f"test_{name}"]))
    # the string and the scorer object give the same values
    obj = cross_val_score(est, X, y, scoring=get_scorer(name), cv=3)
    assert_allclose(obj, res[f"test_{name}"], rtol=1e-12)


def test_refit_by_skcalib_name_picks_the_best_value():
    grid = {"logisticregression__C": [1e-3, 0.03, 1.0, 100.0]}
    search = GridSearchCV(
        _clf(),
        grid,
        cv=CV,
        refit="ece",
        scoring={"accuracy": "accuracy", "ece": "ece", "brier": "brier"},
    ).fit(X_BIN, Y_BIN)
    ece = search.cv_results_["mean_test_ece"]
    assert search.best_index_ == int(np.argmax(ece))
    assert search.best_params_ == search.cv_results_["params"][int(np.argmax(ece))]
    assert search.best_score_ == ece.max()
    # the other metrics were computed too, and brier equals -brier_score per fold
    assert np.all(search.cv_results_["mean_test_brier"] < 0)


def test_binary_string_labels_and_pos_label():
    clf = _clf().fit(X_BIN, Y_BIN)
    P = clf.predict_proba(X_BIN)
    for name, (metric, _) in PROBA.items():
        if name.startswith("neg_"):
            continue
        default = get_scorer(name)(clf, X_BIN, Y_BIN)
        assert default == pytest.approx(-metric(Y_BIN, P, labels=clf.classes_), rel=1e-12)
    # pos_label picks the column: the positive class is "malignant" (column 1) by
    # default, "benign" (column 0) on request
    s_pos = get_scorer("ece", pos_label="benign")
    assert s_pos(clf, X_BIN, Y_BIN) == pytest.approx(
        -M.expected_calibration_error(Y_BIN, P[:, 0], pos_label="benign"), rel=1e-12
    )
    s_default = get_scorer("ece")
    assert s_default(clf, X_BIN, Y_BIN) == pytest.approx(
        -M.expected_calibration_error(Y_BIN, P[:, 1], pos_label="malignant"), rel=1e-12
    )
    assert get_scorer("brier", pos_label="benign")(clf, X_BIN, Y_BIN) == pytest.approx(
        -M.brier_score(Y_BIN, P[:, 0], pos_label="benign"), rel=1e-12
    )


def test_proba_scorer_passes_the_classes_and_the_positive_class():
    seen = []

    def metric(y_true, y_proba, *, labels=None, pos_label=None):
        seen.append((None if labels is None else list(labels), pos_label, np.asarray(y_proba)))
        return 0.0

    def scorer(**options):
        params = {"response_method": "predict_proba", "greater_is_better": False}
        return build_scorer(_ProbaScorer, metric, **params, **options)

    clf = _clf().fit(X_BIN, Y_BIN)
    P = clf.predict_proba(X_BIN)
    # binary: scikit-learn passes the column of classes_[1], and so does pos_label
    scorer()(clf, X_BIN, Y_BIN)
    labels, pos_label, y_proba = seen[-1]
    assert labels == ["benign", "malignant"] and pos_label == "malignant"
    np.testing.assert_array_equal(y_proba, P[:, 1])
    scorer(pos_label="benign")(clf, X_BIN, Y_BIN)  # the user's pos_label wins
    labels, pos_label, y_proba = seen[-1]
    assert pos_label == "benign"
    np.testing.assert_array_equal(y_proba, P[:, 0])
    scorer(labels=["malignant", "benign"])(clf, X_BIN, Y_BIN)  # the user's labels win
    assert seen[-1][:2] == (["malignant", "benign"], "malignant")
    # multiclass: the classes, no positive class
    clf3 = _clf().fit(X_IRIS, Y_IRIS)
    scorer()(clf3, X_IRIS, Y_IRIS)
    labels, pos_label, y_proba = seen[-1]
    assert labels == [0, 1, 2] and pos_label is None and y_proba.shape == (150, 3)


@pytest.mark.parametrize("name", ["ece", "sce", "brier", "nll"])
def test_folds_that_miss_a_class(name):
    # sorted labels and unshuffled folds: the first fold has a single (string) class
    order = np.argsort(Y_BIN, kind="stable")
    X, y = X_BIN[order], Y_BIN[order]
    res = cross_validate(
        _clf(),
        X,
        y,
        cv=KFold(3),
        scoring=_scoring(name),
        error_score="raise",
        return_estimator=True,
        return_indices=True,
    )
    metric = PROBA[name][0]
    for score, est, test in zip(
        res["test_score"], res["estimator"], res["indices"]["test"], strict=True
    ):
        assert np.isfinite(score)
        expected = -metric(y[test], est.predict_proba(X[test]), labels=est.classes_)
        assert score == pytest.approx(expected, rel=1e-12)
    assert len(np.unique(y[res["indices"]["test"][0]])) == 1
    # multiclass: iris is sorted by class; with 5 unshuffled folds the first test fold
    # holds class "a" only (the model was trained on all three)
    y3 = np.array(["a", "b", "c"])[Y_IRIS]
    res = cross_validate(
        _clf(),
        X_IRIS,
        y3,
        cv=KFold(5),
        scoring=_scoring(name),
        error_score="raise",
        return_estimator=True,
        return_indices=True,
    )
    assert set(y3[res["indices"]["test"][0]]) == {"a"}
    for score, est, test in zip(
        res["test_score"], res["estimator"], res["indices"]["test"], strict=True
    ):
        expected = -metric(y3[test], est.predict_proba(X_IRIS[test]), labels=est.classes_)
        assert score == pytest.approx(expected, rel=1e-12)


def test_sample_weight_through_metadata_routing():
    w = np.random.RandomState(0).randint(0, 4, len(Y_IRIS)).astype(float)

    def _lr():
        return LogisticRegression(max_iter=1000)

    def _bagging_routed():  # scikit-learn < 1.7 routes to the members' fit too
        bag = _bagging()
        bag.estimator.set_fit_request(sample_weight=False)
        return bag

    cases = {
        "ece": (
            _lr,
            X_IRIS,
            Y_IRIS,
            lambda e, X, y, sw: (
                -M.expected_calibration_error(
                    y, e.predict_proba(X), labels=e.classes_, sample_weight=sw
                )
            ),
        ),
        "brier": (
            _lr,
            X_IRIS,
            Y_IRIS,
            lambda e, X, y, sw: (
                -M.brier_score(y, e.predict_proba(X), labels=e.classes_, sample_weight=sw)
            ),
        ),
        "nll": (
            _lr,
            X_IRIS,
            Y_IRIS,
            lambda e, X, y, sw: (
                -M.negative_log_likelihood(
                    y, e.predict_proba(X), labels=e.classes_, sample_weight=sw
                )
            ),
        ),
        "iscv": (_bagging_routed, X_IRIS, Y_IRIS, None),
        "crps": (
            BayesianRidge,
            X_REG,
            Y_REG,
            lambda e, X, y, sw: -M.crps_normal(y, *e.predict(X, return_std=True), sample_weight=sw),
        ),
    }
    with sklearn.config_context(enable_metadata_routing=True):
        for name, (make, X, y, expected) in cases.items():
            w_ = w if len(y) == len(w) else np.resize(w, len(y))
            scorer = get_scorer(name).set_score_request(sample_weight=True)
            est = make().set_fit_request(sample_weight=False)
            res = cross_validate(
                est,
                X,
                y,
                cv=CV,
                scoring={name: scorer},
                params={"sample_weight": w_},
                return_estimator=True,
                return_indices=True,
                error_score="raise",
            )
            unweighted = cross_validate(make(), X, y, cv=CV, scoring={name: get_scorer(name)})
            assert not np.allclose(res[f"test_{name}"], unweighted[f"test_{name}"])
            for score, e, test in zip(
                res[f"test_{name}"], res["estimator"], res["indices"]["test"], strict=True
            ):
                if expected is None:  # iscv: weighted mean of the pointwise values
                    L = M.member_log_likelihood(e, X[test], y[test])
                    value = M.importance_sampling_cross_validation(L, sample_weight=w_[test]).value
                else:
                    value = expected(e, X[test], y[test], w_[test])
                assert score == pytest.approx(value, rel=1e-12)


def test_scorers_are_independent_copies_and_pickle():
    a, b = get_scorer("ece"), get_scorer("ece")
    assert a is not b and a._kwargs is not b._kwargs
    sk_a, sk_b = sklearn.metrics.get_scorer("ece"), sklearn.metrics.get_scorer("ece")
    assert sk_a is not sk_b
    with sklearn.config_context(enable_metadata_routing=True):
        a.set_score_request(sample_weight=True)
        assert a.get_metadata_routing().score.requests["sample_weight"] is True
        assert b.get_metadata_routing().score.requests.get("sample_weight") is None
        assert sk_b.get_metadata_routing().score.requests.get("sample_weight") is None
    clf = _clf().fit(X_IRIS, Y_IRIS)
    bag = _bagging().fit(X_IRIS, Y_IRIS)
    reg = BayesianRidge().fit(X_REG, Y_REG)
    for name in get_scorer_names():
        est, X, y = (
            (bag, X_IRIS, Y_IRIS)
            if name in ENSEMBLE
            else (reg, X_REG, Y_REG)
            if name in REGRESSION or _KIND_OF[name] == "distribution"
            else (clf, X_IRIS, Y_IRIS)
        )
        scorer = get_scorer(name)
        clone = pickle.loads(pickle.dumps(scorer))
        assert type(clone) is type(scorer)
        assert clone(est, X, y) == scorer(est, X, y)


def test_options():
    clf = _clf().fit(X_IRIS, Y_IRIS)
    P = clf.predict_proba(X_IRIS)
    s = get_scorer("ece", n_bins=20)
    assert repr(s) == (
        "make_scorer(expected_calibration_error, greater_is_better=False, "
        "response_method='predict_proba', n_bins=20)"
    )
    assert s(clf, X_IRIS, Y_IRIS) == -M.expected_calibration_error(Y_IRIS, P, n_bins=20)
    assert s(clf, X_IRIS, Y_IRIS) != get_scorer("ece")(clf, X_IRIS, Y_IRIS)
    s = get_scorer("sce", labels=[0, 1, 2])  # a user-given labels wins
    assert s(clf, X_IRIS, Y_IRIS) == -M.static_calibration_error(Y_IRIS, P, labels=[0, 1, 2])
    s = get_scorer("ece", multiclass="classwise")
    assert s(clf, X_IRIS, Y_IRIS) == pytest.approx(
        -M.expected_calibration_error(Y_IRIS, P, multiclass="classwise"), rel=1e-14
    )
    bag = _bagging().fit(X_IRIS, Y_IRIS)
    L = M.member_log_likelihood(bag, X_IRIS, Y_IRIS)
    assert get_scorer("waic", waic_type="waic2")(bag, X_IRIS, Y_IRIS) == pytest.approx(
        M.negative_waic(L, waic_type="waic2").value, rel=1e-12
    )
    with pytest.raises(ValueError, match="does not accept the option.*n_bin.*valid options"):
        get_scorer("ece", n_bin=20)
    with pytest.raises(ValueError, match="n_bins"):
        get_scorer("ece", n_bins=0)  # validated now, not in every fold
    with pytest.raises(ValueError, match="sample_weight is data"):
        get_scorer("ece", sample_weight=[1, 2])
    with pytest.raises(ValueError, match="does not accept"):
        get_scorer("crps", n_bins=3)
    with pytest.raises(ValueError, match="does not accept"):
        get_scorer("iscv", labels=[0, 1, 2])


def test_get_scorer_other_inputs():
    assert get_scorer(None) is None
    acc = sklearn.metrics.get_scorer("accuracy")
    assert get_scorer(acc) is acc
    assert repr(get_scorer("accuracy")) == repr(acc)  # scikit-learn names pass through
    with pytest.raises(ValueError, match="not a valid scoring value.*ece"):
        get_scorer("no_such_metric")
    with pytest.raises(ValueError, match="options can only be given"):
        get_scorer("accuracy", n_bins=3)
    with pytest.raises(TypeError):
        get_scorer(3)
    # "neg_brier_score" is scikit-learn's, here too; skcalib's Brier score is "brier"
    assert "neg_brier_score" not in get_scorer_names()
    theirs = get_scorer("neg_brier_score")
    assert type(theirs) is type(sklearn.metrics.get_scorer("neg_brier_score"))
    assert theirs._score_func is sklearn.metrics.brier_score_loss
    y01 = (Y_BIN == "malignant").astype(int)
    clf = _clf().fit(X_BIN, y01)
    p1 = clf.predict_proba(X_BIN)[:, 1]
    assert theirs(clf, X_BIN, y01) == -sklearn.metrics.brier_score_loss(y01, p1)
    assert get_scorer("brier")(clf, X_BIN, y01) == pytest.approx(-M.brier_score(y01, p1), rel=1e-12)


def _sklearn_own_names():
    """The names scikit-learn's registry holds for scikit-learn's own scorers."""
    return [
        n
        for n in sklearn.metrics.get_scorer_names()
        if type(sklearn.metrics.get_scorer(n)).__module__.startswith("sklearn.")
    ]


def test_no_name_means_two_scorers():
    sklearn_names = _sklearn_own_names()
    assert {"neg_brier_score", "neg_log_loss", "accuracy", "roc_auc"} <= set(sklearn_names)
    # skcalib defines no scikit-learn name (with the installed scikit-learn)...
    assert not set(get_scorer_names()) & set(sklearn_names)
    # ...and every scikit-learn name means scikit-learn's scorer in get_scorer too
    for name in sklearn_names:
        ours, theirs = get_scorer(name), sklearn.metrics.get_scorer(name)
        assert type(ours) is type(theirs), name
        assert repr(ours) == repr(theirs), name
        assert getattr(ours, "_score_func", None) is getattr(theirs, "_score_func", None)
    # the same numbers, on the names of a probabilistic classifier
    y01 = (Y_BIN == "malignant").astype(int)
    clf = _clf().fit(X_BIN, y01)
    for name in ["neg_brier_score", "neg_log_loss", "roc_auc", "accuracy", "average_precision"]:
        assert get_scorer(name)(clf, X_BIN, y01) == sklearn.metrics.get_scorer(name)(
            clf, X_BIN, y01
        ), name
    # and skcalib's own names resolve to skcalib's scorers in scikit-learn
    for name in get_scorer_names():
        assert repr(sklearn.metrics.get_scorer(name)) == repr(get_scorer(name)), name


def test_get_scorer_rejects_a_metric_function_naming_its_scorer():
    msg = (
        r"expected_calibration_error is a metric function, not a scorer: it is called as "
        r"expected_calibration_error\(y_true, y_proba, \.\.\.\), whereas scikit-learn "
        r"calls a scorer as scorer\(estimator, X, y\)\. To use it for model selection, "
        r"pass scoring='ece' .*get_scorer\('ece'\); its other name is "
        r"'neg_expected_calibration_error'\.$"
    )
    with pytest.raises(ValueError, match=msg):
        get_scorer(M.expected_calibration_error)
    brier = r"brier_score is a metric.*scoring='brier' .*get_scorer\('brier'\)\.$"
    with pytest.raises(ValueError, match=brier):
        get_scorer(M.brier_score)  # no other name
    with pytest.raises(ValueError, match=r"crps_normal\(y_true, y_mean, y_std, \.\.\.\)"):
        get_scorer(M.crps_normal)
    # every metric behind a scorer, by its short alias (else its only name)
    for spec in _SPECS:
        with pytest.raises(ValueError, match=rf"scoring={spec.names[-1]!r}"):
            get_scorer(spec.metric)
    # a metric without a scorer, or any other callable, is returned as it is
    assert get_scorer(M.compute_bin_stats) is M.compute_bin_stats
    scorer = get_scorer("ece")
    assert get_scorer(scorer) is scorer
    # the metrics themselves are plain validated functions
    assert parameter_constraints(M.expected_calibration_error)
    assert M.expected_calibration_error([0, 1], [0.2, 0.7]) == pytest.approx(0.25)


def test_regression_scorers_need_return_std():
    for est in (GaussianProcessRegressor(RBF() + WhiteKernel(), normalize_y=True), ARDRegression()):
        scores = cross_val_score(
            est, X_REG[:90], Y_REG[:90], scoring="crps", cv=3, error_score="raise"
        )
        assert np.all(np.isfinite(scores)) and np.all(scores < 0)
    with pytest.raises(ValueError, match=r"return_std.*LinearRegression.predict does not"):
        cross_val_score(LinearRegression(), X_REG, Y_REG, scoring="crps", error_score="raise")
    with pytest.raises(ValueError, match="return_std"):
        get_scorer("gaussian_nll")(LinearRegression().fit(X_REG, Y_REG), X_REG, Y_REG)


def test_ensemble_scorers_on_every_supported_ensemble_and_errors():
    for ens in (
        RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0),
        ExtraTreesClassifier(n_estimators=5, max_depth=3, random_state=0),
        VotingClassifier(
            [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())], voting="soft"
        ),
        make_pipeline(StandardScaler(), _bagging()),
    ):
        res = cross_validate(
            ens, X_IRIS, Y_IRIS, scoring=["iscv", "waic", "ece"], cv=3, error_score="raise"
        )
        assert np.all(np.isfinite(res["test_iscv"])) and np.all(res["test_iscv"] < 0)
    with pytest.raises(ValueError, match=r"'iscv', 'waic'.*LogisticRegression"):
        cross_val_score(_clf(), X_IRIS, Y_IRIS, scoring="iscv", error_score="raise")
    weighted = VotingClassifier(
        [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())],
        voting="soft",
        weights=[2, 1],
    ).fit(X_IRIS, Y_IRIS)
    with pytest.raises(ValueError, match="equally weighted"):
        get_scorer("waic")(weighted, X_IRIS, Y_IRIS)
