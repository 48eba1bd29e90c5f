"""RecalibratedClassifier: agreement with scikit-learn, model selection, routing."""

import numpy as np
import pytest
import sklearn
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.fixes import parse_version

from skcalib.metrics import expected_calibration_error, negative_log_likelihood
from skcalib.recalibration import (
    HistogramBinning,
    IsotonicCalibration,
    RecalibratedClassifier,
    TemperatureScaling,
)

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
