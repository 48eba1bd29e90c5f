"""RecalibratedClassifier: agreement with scikit-learn, model selection, routing."""

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    PredefinedSplit,
    ShuffleSplit,
    check_cv,
    train_test_split,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.fixes import parse_version

from skcalib.metrics import expected_calibration_error, negative_log_likelihood
from skcalib.recalibration import (
    HistogramBinning,
    IsotonicCalibration,
    PlattScaling,
    RecalibratedClassifier,
    TemperatureScaling,
    VectorScaling,
)
from skcalib.utils._sklearn_compat import InvalidParameterError

SKLEARN_HAS_TEMPERATURE = parse_version(sklearn.__version__) >= parse_version("1.8")


def _split(n_classes, seed=0):
    X, y = make_classification(
        n_samples=3000,
        n_features=10,
        n_informative=6,
        n_classes=n_classes,
        random_state=seed,
    )
    return train_test_split(X, y, test_size=0.5, random_state=seed)


@pytest.mark.skipif(
    not SKLEARN_HAS_TEMPERATURE,
    reason="CalibratedClassifierCV(method='temperature') needs scikit-learn >= 1.8",
)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_temperature_agrees_with_sklearn(n_classes):
    X_fit, X_cal, y_fit, y_cal = _split(n_classes)
    clf = LogisticRegression(C=100.0).fit(X_fit, y_fit)
    ours = RecalibratedClassifier(FrozenEstimator(clf), method="temperature").fit(X_cal, y_cal)
    theirs = CalibratedClassifierCV(FrozenEstimator(clf), method="temperature")
    theirs.fit(X_cal, y_cal)
    assert ours.response_method_ == "decision_function"
    np.testing.assert_allclose(ours.predict_proba(X_fit), theirs.predict_proba(X_fit), atol=1e-4)
    # sklearn's binary logits are (-x, x): its inverse temperature is 1 / (2 T)
    beta = float(theirs.calibrated_classifiers_[0].calibrators[0].beta_)
    T = ours.calibrated_classifiers_[0][1].temperature_
    assert T == pytest.approx(1 / (2 * beta) if n_classes == 2 else 1 / beta, rel=1e-4)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_isotonic_agrees_with_sklearn(n_classes):
    # GaussianNB has no decision_function: both read predict_proba
    X_fit, X_cal, y_fit, y_cal = _split(n_classes, seed=1)
    clf = GaussianNB().fit(X_fit, y_fit)
    ours = RecalibratedClassifier(FrozenEstimator(clf), method="isotonic").fit(X_cal, y_cal)
    theirs = CalibratedClassifierCV(FrozenEstimator(clf), method="isotonic").fit(X_cal, y_cal)
    np.testing.assert_allclose(ours.predict_proba(X_fit), theirs.predict_proba(X_fit), atol=1e-12)


def test_cross_validated_fit_and_ensembles():
    X_fit, X_cal, y_fit, y_cal = _split(3, seed=2)
    ens = RecalibratedClassifier(LogisticRegression(), cv=3).fit(X_fit, y_fit)
    assert len(ens.calibrated_classifiers_) == 3
    P = np.mean(
        [
            cal.predict_proba(est.decision_function(X_cal))
            for est, cal in ens.calibrated_classifiers_
        ],
        axis=0,
    )
    np.testing.assert_allclose(ens.predict_proba(X_cal), P, rtol=1e-12)
    one = RecalibratedClassifier(LogisticRegression(), cv=3, ensemble=False).fit(X_fit, y_fit)
    assert len(one.calibrated_classifiers_) == 1
    est, cal = one.calibrated_classifiers_[0]
    np.testing.assert_allclose(est.coef_, LogisticRegression().fit(X_fit, y_fit).coef_, rtol=1e-10)
    # a frozen classifier: one pair, the classifier untouched
    clf = LogisticRegression().fit(X_fit, y_fit)
    frozen = RecalibratedClassifier(FrozenEstimator(clf)).fit(X_cal, y_cal)
    assert len(frozen.calibrated_classifiers_) == 1
    expected = TemperatureScaling(input="logits").fit(clf.decision_function(X_cal), y_cal)
    got = frozen.calibrated_classifiers_[0][1]
    assert got.temperature_ == pytest.approx(expected.temperature_, rel=1e-12)


def test_method_by_instance_and_response_method():
    X_fit, X_cal, y_fit, y_cal = _split(3, seed=3)
    clf = LogisticRegression().fit(X_fit, y_fit)
    rc = RecalibratedClassifier(FrozenEstimator(clf), method=HistogramBinning(n_bins=7))
    rc.fit(X_cal, y_cal)
    assert rc.response_method_ == "predict_proba"
    cal = rc.calibrated_classifiers_[0][1]
    assert cal.n_bins == 7 and cal.bin_values_.shape == (7,)
    expected = HistogramBinning(n_bins=7).fit(clf.predict_proba(X_cal), y_cal)
    np.testing.assert_array_equal(cal.bin_values_, expected.bin_values_)
    # input="logits" on a calibrator of probabilities asks for decision_function
    rc = RecalibratedClassifier(FrozenEstimator(clf), method=IsotonicCalibration(input="logits"))
    assert rc.fit(X_cal, y_cal).response_method_ == "decision_function"
    with pytest.raises(ValueError, match="method"):
        RecalibratedClassifier(method="platt").fit(X_cal, y_cal)


def test_recalibration_improves_a_miscalibrated_model():
    # naive Bayes on redundant (correlated) features is overconfident
    X, y = make_classification(
        n_samples=9000, n_features=20, n_informative=4, n_redundant=12, n_classes=3,
        random_state=4,
    )  # fmt: skip
    X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, test_size=6000, random_state=0)
    X_cal, X_test, y_cal, y_test = train_test_split(X_rest, y_rest, test_size=3000, random_state=0)
    clf = GaussianNB().fit(X_fit, y_fit)
    before = clf.predict_proba(X_test)
    nll0 = negative_log_likelihood(y_test, before)
    ece0 = expected_calibration_error(y_test, before)
    # (naive Bayes' miscalibration is not of the one-temperature form: temperature
    # scaling lowers its NLL, not necessarily its top-label ECE; the flexible methods
    # lower both, histogram binning the ECE)
    for method, nll_lower, ece_lower in [
        ("temperature", True, False),
        ("matrix", True, True),
        ("isotonic", True, True),
        ("beta", True, True),
        ("histogram", False, True),
    ]:
        rc = RecalibratedClassifier(FrozenEstimator(clf), method=method).fit(X_cal, y_cal)
        after = rc.predict_proba(X_test)
        if nll_lower:
            assert negative_log_likelihood(y_test, after) < nll0 - 0.1, method
        if ece_lower:
            assert expected_calibration_error(y_test, after) < 0.8 * ece0, method


def test_grid_search_over_methods_with_the_ece_scorer():
    X, y = make_classification(n_samples=600, n_classes=3, n_informative=5, random_state=0)
    methods = ["temperature", "isotonic", "histogram"]
    search = GridSearchCV(
        RecalibratedClassifier(LogisticRegression(), cv=3), {"method": methods}, scoring="ece", cv=3
    )
    search.fit(X, y)
    assert search.best_params_["method"] in methods
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all() and (scores <= 0).all()  # negated ECE


def test_sample_weight_and_string_labels():
    X_fit, X_cal, y_fit, y_cal = _split(2, seed=5)
    names = np.array(["no", "yes"])
    clf = LogisticRegression().fit(X_fit, names[y_fit])
    sw = np.random.default_rng(0).integers(0, 3, len(y_cal))
    a = RecalibratedClassifier(FrozenEstimator(clf)).fit(X_cal, names[y_cal], sample_weight=sw)
    b = RecalibratedClassifier(FrozenEstimator(clf)).fit(
        np.repeat(X_cal, sw, axis=0), np.repeat(names[y_cal], sw)
    )
    np.testing.assert_allclose(a.predict_proba(X_fit), b.predict_proba(X_fit), rtol=1e-10)
    assert set(a.predict(X_fit)) <= set(names)
    np.testing.assert_array_equal(a.classes_, names)


def test_labels_unknown_to_a_frozen_classifier():
    X_fit, X_cal, y_fit, y_cal = _split(2, seed=6)
    clf = LogisticRegression().fit(X_fit, y_fit)
    y_bad = y_cal.copy()
    y_bad[0] = 5
    with pytest.raises(ValueError, match="fitted on the classes \\[0, 1\\] but y has"):
        RecalibratedClassifier(FrozenEstimator(clf)).fit(X_cal, y_bad)


def test_metadata_routing():
    X_fit, X_cal, y_fit, y_cal = _split(2, seed=7)
    sw = np.random.default_rng(0).integers(1, 3, len(y_fit)).astype(float)
    with sklearn.config_context(enable_metadata_routing=True):
        est = LogisticRegression().set_fit_request(sample_weight=True)
        rc = RecalibratedClassifier(est, cv=3, ensemble=False).fit(X_fit, y_fit, sample_weight=sw)
        refit = rc.calibrated_classifiers_[0][0]
        expected = LogisticRegression().fit(X_fit, y_fit, sample_weight=sw)
        np.testing.assert_allclose(refit.coef_, expected.coef_, rtol=1e-8)
        # not requested by the classifier: only the calibrator uses the weights
        est = LogisticRegression().set_fit_request(sample_weight=False)
        rc = RecalibratedClassifier(est, cv=3, ensemble=False).fit(X_fit, y_fit, sample_weight=sw)
        np.testing.assert_allclose(
            rc.calibrated_classifiers_[0][0].coef_,
            LogisticRegression().fit(X_fit, y_fit).coef_,
            rtol=1e-8,
        )
        routing = rc.get_metadata_routing()
        assert "estimator" in str(routing) and "splitter" in str(routing)


# --------------------------------------------------------------------------------------
# Platt scaling: scikit-learn's method="sigmoid"
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize("model", [LogisticRegression, GaussianNB])
def test_sigmoid_agrees_with_sklearn(model, ensemble, n_classes):
    # LogisticRegression: both read decision_function; GaussianNB: predict_proba (raw
    # probabilities, column 1 for a binary problem)
    X_fit, X_test, y_fit, _ = _split(n_classes, seed=8)
    ours = RecalibratedClassifier(model(), method="sigmoid", cv=3, ensemble=ensemble)
    theirs = CalibratedClassifierCV(model(), method="sigmoid", cv=3, ensemble=ensemble)
    ours.fit(X_fit, y_fit)
    theirs.fit(X_fit, y_fit)
    expected = "decision_function" if model is LogisticRegression else "predict_proba"
    assert ours.response_method_ == expected
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-6)
    # the fitted sigmoids are sklearn's (a_, b_) = -(slope, intercept)
    for (_, cal), pair in zip(
        ours.calibrated_classifiers_, theirs.calibrated_classifiers_, strict=True
    ):
        ab = np.array([[c.a_, c.b_] for c in pair.calibrators])
        np.testing.assert_allclose(-cal.coef_, ab, rtol=1e-5, atol=1e-7)


def test_sigmoid_on_a_frozen_classifier_with_sample_weight():
    X_fit, X_cal, y_fit, y_cal = _split(3, seed=9)
    clf = LogisticRegression().fit(X_fit, y_fit)
    sw = np.random.default_rng(0).integers(0, 3, len(y_cal)).astype(float)
    ours = RecalibratedClassifier(FrozenEstimator(clf), method="sigmoid")
    theirs = CalibratedClassifierCV(FrozenEstimator(clf), method="sigmoid")
    ours.fit(X_cal, y_cal, sample_weight=sw)
    theirs.fit(X_cal, y_cal, sample_weight=sw)
    np.testing.assert_allclose(ours.predict_proba(X_fit), theirs.predict_proba(X_fit), atol=1e-6)


def test_sklearn_method_names_and_sorted_choices():
    X, y = make_classification(n_samples=300, random_state=0)
    for name, cls in [
        ("sigmoid", PlattScaling),
        ("isotonic", IsotonicCalibration),
        ("temperature", TemperatureScaling),
    ]:
        rc = RecalibratedClassifier(LogisticRegression(), method=name, cv=3).fit(X, y)
        assert type(rc.calibrated_classifiers_[0][1]) is cls
    # an unknown name: the message lists the choices sorted (whatever the hash seed)
    choices = (
        "{'beta', 'ensemble_temperature', 'histogram', 'isotonic', 'matrix', "
        "'scaling_binning', 'sigmoid', 'temperature', 'vector'}"
    )
    with pytest.raises(ValueError) as exc:
        RecalibratedClassifier(method="platt").fit(X, y)
    assert choices in str(exc.value)
    assert "'method' parameter of RecalibratedClassifier" in str(exc.value)


def test_method_must_be_a_calibrator_by_one_rule():
    # the parameter constraint is the rule: an estimator with fit and predict_proba
    # that is not a calibrator is rejected by the parameter validation itself
    X, y = make_classification(n_samples=200, random_state=0)
    with pytest.raises(InvalidParameterError, match="BaseCalibrator"):
        RecalibratedClassifier(method=LogisticRegression()).fit(X, y)
    assert RecalibratedClassifier(method=PlattScaling(), cv=2).fit(X, y).classes_.size == 2


def test_skip_parameter_validation_is_honoured():
    X, y = make_classification(n_samples=200, random_state=0)
    bad = RecalibratedClassifier(LogisticRegression(), cv=2, ensemble=1)  # not a bool
    with pytest.raises(InvalidParameterError, match="ensemble"):
        bad.fit(X, y)
    with sklearn.config_context(skip_parameter_validation=True):
        assert len(bad.fit(X, y).calibrated_classifiers_) == 2  # 1 read as True


# --------------------------------------------------------------------------------------
# ensemble=False with splits that are not a partition
# --------------------------------------------------------------------------------------


def _cv_cases(n):
    rng = np.random.default_rng(0)
    test = np.sort(rng.choice(n, 300, replace=False))
    train = np.setdiff1d(np.arange(n), test)
    fold = np.full(n, -1)  # PredefinedSplit: two test folds, the -1 rows never held out
    fold[rng.choice(n, 500, replace=False)] = rng.integers(0, 2, 500)
    return {
        "one split": [(train, test)],
        "ShuffleSplit(n_splits=1)": ShuffleSplit(n_splits=1, test_size=300, random_state=0),
        "PredefinedSplit": PredefinedSplit(fold),
    }


@pytest.mark.parametrize("case", ["one split", "ShuffleSplit(n_splits=1)", "PredefinedSplit"])
@pytest.mark.parametrize("method", ["vector", "isotonic", "histogram", "sigmoid"])
def test_ensemble_false_fits_on_the_held_out_rows_only(method, case):
    X, y = make_classification(
        n_samples=1000, n_informative=5, n_classes=3, random_state=10
    )  # fmt: skip
    cv = _cv_cases(1000)[case]
    rc = RecalibratedClassifier(LogisticRegression(), method=method, cv=cv, ensemble=False)
    rc.fit(X, y)
    # the reference: the calibrator fitted directly on the held-out outputs alone
    splits = list(check_cv(cv, y, classifier=True).split(X, y))
    held = np.concatenate([test for _, test in splits])
    assert held.size < 1000  # (not a partition: some rows are never held out)
    calibrator = rc.calibrated_classifiers_[0][1]
    outputs = []
    for train, test in splits:
        clf = LogisticRegression().fit(X[train], y[train])
        outputs.append(getattr(clf, rc.response_method_)(X[test]))
    kind = "logits" if rc.response_method_ == "decision_function" else "proba"
    ref = clone(calibrator).set_params(input=kind).fit(np.concatenate(outputs), y[held])
    Z = rc.calibrated_classifiers_[0][0].decision_function(X)
    if kind == "proba":
        Z = rc.calibrated_classifiers_[0][0].predict_proba(X)
    np.testing.assert_allclose(calibrator.predict_proba(Z), ref.predict_proba(Z), atol=1e-12)
    if method == "vector":
        np.testing.assert_allclose(calibrator.intercept_, ref.intercept_, atol=1e-9)


def test_ensemble_false_vector_scaling_intercept_on_one_split():
    # the values of the example: fitted on the 300 held-out rows, not on them
    # plus 700 zero-filled rows (which gave an intercept of 0.647 there)
    X, y = make_classification(n_samples=1000, n_informative=5, n_classes=3, random_state=10)
    cv = _cv_cases(1000)["one split"]
    train, test = cv[0]
    rc = RecalibratedClassifier(LogisticRegression(), method="vector", cv=cv, ensemble=False)
    intercept = rc.fit(X, y).calibrated_classifiers_[0][1].intercept_
    clf = LogisticRegression().fit(X[train], y[train])
    direct = VectorScaling(input="logits").fit(clf.decision_function(X[test]), y[test])
    np.testing.assert_allclose(intercept, direct.intercept_, atol=1e-9)
    zero_filled = np.zeros((1000, 3))
    zero_filled[test] = clf.decision_function(X[test])
    old = VectorScaling(input="logits").fit(zero_filled, y).intercept_
    assert np.abs(old - direct.intercept_).max() > 0.05  # what the bug gave differs


def test_ensemble_false_rejects_rows_held_out_twice():
    X, y = make_classification(n_samples=300, random_state=0)
    cv = ShuffleSplit(n_splits=3, test_size=0.3, random_state=0)
    with pytest.raises(ValueError, match="cv holds out sample .* more than once.*ensemble=True"):
        RecalibratedClassifier(LogisticRegression(), cv=cv, ensemble=False).fit(X, y)
    # the same test indices twice in one split
    test = np.r_[0:50, 10:20]
    with pytest.raises(ValueError, match="cv holds out sample 10 more than once"):
        RecalibratedClassifier(
            LogisticRegression(), cv=[(np.arange(60, 300), test)], ensemble=False
        ).fit(X, y)
    # with ensemble=True every split has its own calibrator: accepted
    rc = RecalibratedClassifier(LogisticRegression(), cv=cv, ensemble=True).fit(X, y)
    assert len(rc.calibrated_classifiers_) == 3


# --------------------------------------------------------------------------------------
# the classes of the classifier reach the calibrator
# --------------------------------------------------------------------------------------


def test_calibrators_get_the_classifier_classes():
    X, y = make_classification(
        n_samples=900, n_informative=5, n_classes=3, random_state=11
    )  # fmt: skip
    labels = np.array([1, 2, 3])[y]
    clf = LogisticRegression().fit(X[:450], labels[:450])
    # calibration data without class 3: the calibrator still has the classifier's
    keep = labels[450:] != 3
    X_cal, y_cal = X[450:][keep], labels[450:][keep]
    for method in ["temperature", "sigmoid", "histogram"]:
        rc = RecalibratedClassifier(FrozenEstimator(clf), method=method).fit(X_cal, y_cal)
        np.testing.assert_array_equal(rc.classes_, [1, 2, 3])
        cal = rc.calibrated_classifiers_[0][1]
        np.testing.assert_array_equal(cal.classes_, [1, 2, 3])
        assert rc.predict_proba(X[:5]).shape == (5, 3)
    # temperature scaling keeps the classifier's argmax, in its labels
    rc = RecalibratedClassifier(FrozenEstimator(clf), method="temperature").fit(X_cal, y_cal)
    np.testing.assert_array_equal(rc.predict(X[:450]), clf.predict(X[:450]))
    # cross-validated: a test fold missing a class is read right
    cv = [(np.arange(300, 900), np.flatnonzero((np.arange(900) < 300) & (labels != 3)))]
    rc = RecalibratedClassifier(LogisticRegression(), cv=cv, method="temperature")
    rc.fit(X, labels)
    np.testing.assert_array_equal(rc.calibrated_classifiers_[0][1].classes_, [1, 2, 3])
