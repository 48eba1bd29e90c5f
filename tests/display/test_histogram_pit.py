"""ConfidenceHistogramDisplay and PITDisplay on the Agg backend."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.datasets import load_diabetes, load_digits  # noqa: E402
from sklearn.ensemble import RandomForestRegressor  # noqa: E402
from sklearn.linear_model import BayesianRidge  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

from skcalib.display import ConfidenceHistogramDisplay, PITDisplay  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    pit_ensemble,
    pit_histogram,
    pit_normal,
    quantile_calibration_curve,
    reliability_curve,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------ confidence histogram
def test_confidence_histogram_values():
    X, y = load_digits(return_X_y=True)
    clf = GaussianNB().fit(X[::2], y[::2])
    P = clf.predict_proba(X[1::2])
    disp = ConfidenceHistogramDisplay.from_estimator(clf, X[1::2], y[1::2], n_bins=12)
    curve = reliability_curve(y[1::2], P, n_bins=12)
    np.testing.assert_allclose(disp.bin_fraction, curve.bin_count / len(P))
    np.testing.assert_allclose(disp.hist_.get_data().values, disp.bin_fraction)
    # average accuracy and confidence, computed here directly from the predictions
    assert disp.accuracy == pytest.approx(np.mean(P.argmax(1) == y[1::2]))
    assert disp.confidence == pytest.approx(P.max(1).mean())
    assert disp.accuracy_line_.get_xdata()[0] == disp.accuracy
    assert disp.confidence_line_.get_xdata()[0] == disp.confidence
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert texts == [
        "GaussianNB",
        f"Accuracy = {disp.accuracy:.3f}",
        f"Average confidence = {disp.confidence:.3f}",
    ]
    assert disp.ax_.get_xlabel() == "Confidence (highest predicted probability)"
    assert disp.ax_.get_ylabel() == "Fraction of samples"


def test_confidence_histogram_binary_auto_and_weights():
    y = np.array(["a", "b", "b", "a", "b"])
    p = np.array([0.2, 0.9, 0.6, 0.3, 0.8])  # P(b)
    w = np.array([1.0, 2.0, 1.0, 1.0, 3.0])
    disp = ConfidenceHistogramDisplay.from_predictions(
        y, p, n_bins=2, multiclass="auto", sample_weight=w, pos_label="b"
    )
    np.testing.assert_allclose(disp.bin_fraction, [2 / 8, 6 / 8])
    assert disp.accuracy == pytest.approx(6 / 8)  # weighted frequency of "b"
    assert disp.confidence == pytest.approx(np.dot(w, p) / 8)
    assert disp.ax_.get_xlabel() == "Predicted probability of class b"
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert texts == [
        "Frequency of class b = 0.750",
        f"Mean predicted probability = {disp.confidence:.3f}",
    ]
    with pytest.raises(ValueError, match="multiclass"):
        ConfidenceHistogramDisplay.from_predictions(y, p, multiclass="classwise", pos_label="b")


# ------------------------------------------------------------------ PIT
@pytest.fixture(scope="module")
def regression():
    X, y = load_diabetes(return_X_y=True)
    return X[::2], y[::2], X[1::2], y[1::2]


def test_pit_from_estimator_values(regression):
    Xtr, ytr, Xte, yte = regression
    reg = BayesianRidge().fit(Xtr, ytr)
    disp = PITDisplay.from_estimator(reg, Xte, yte, n_bins=8, confidence_level=0.9)
    mu, sd = reg.predict(Xte, return_std=True)
    pit = pit_normal(yte, mu, sd)
    hist = pit_histogram(pit, n_bins=8, confidence_level=0.9)
    curve = quantile_calibration_curve(pit, confidence_level=0.9)
    np.testing.assert_array_equal(disp.density, hist.density)
    np.testing.assert_array_equal(disp.hist_.get_data().values, hist.density)
    assert (disp.band_low, disp.band_high) == (hist.band_low, hist.band_high)
    np.testing.assert_array_equal(disp.line_.get_xdata(), curve.levels)
    np.testing.assert_array_equal(disp.line_.get_ydata(), curve.observed_frequency)
    np.testing.assert_array_equal(disp.observed_low, curve.band_low)
    assert disp.ax_.shape == (2,)
    h_ax, q_ax = disp.ax_
    assert h_ax.get_xlabel() == "PIT value" and h_ax.get_ylabel() == "Density"
    assert q_ax.get_xlabel() == "Nominal level of the predicted quantile"
    assert q_ax.get_ylabel() == "Observed frequency below the quantile"
    texts = [t.get_text() for t in h_ax.get_legend().get_texts()]
    assert texts == ["90% range of a uniform sample", "Uniform (calibrated)", "BayesianRidge"]
    # the band is drawn at the binomial range
    band = disp.band_.get_extents()  # display coords; compare in data coords instead
    assert band.height > 0
    assert h_ax.get_ylim()[1] > max(hist.density.max(), hist.band_high)


def test_pit_over_confident_model_leaves_the_band():
    rng = np.random.default_rng(0)
    mu = rng.normal(size=2000)
    y = mu + 2 * rng.normal(size=2000)
    disp = PITDisplay.from_predictions(y, mu, 1.0, name="too narrow")
    assert disp.density[0] > disp.band_high and disp.density[-1] > disp.band_high
    assert disp.observed_frequency[1] > disp.observed_high[1]  # level 0.05: too many below


def test_pit_ensemble_and_several_models_on_the_same_axes(regression):
    Xtr, ytr, Xte, yte = regression
    forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(Xtr, ytr)
    members = np.column_stack([t.predict(Xte) for t in forest.estimators_])
    d1 = PITDisplay.from_ensemble(yte, members, random_state=0, name="forest")
    pit = pit_ensemble(yte, members, random_state=0)
    np.testing.assert_array_equal(d1.density, pit_histogram(pit).density)
    reg = BayesianRidge().fit(Xtr, ytr)
    d2 = PITDisplay.from_estimator(reg, Xte, yte, ax=d1.ax_)
    assert d2.figure_ is d1.figure_ and d2.band_ is None  # the band is drawn once
    texts = [t.get_text() for t in d1.ax_[1].get_legend().get_texts()]
    assert texts == ["95% range if calibrated", "Perfectly calibrated", "forest", "BayesianRidge"]


@pytest.mark.parametrize("kind", ["histogram", "quantile"])
def test_pit_single_panel(kind):
    rng = np.random.default_rng(1)
    y = rng.normal(size=300)
    fig = Figure()
    ax = fig.subplots()
    disp = PITDisplay.from_predictions(y, 0.0, 1.0, ax=ax, kind=kind)
    assert disp.ax_ is ax and disp.figure_ is fig
    assert (disp.hist_ is None) == (kind == "quantile")
    assert (disp.line_ is None) == (kind == "histogram")


def test_pit_sample_weight():
    rng = np.random.default_rng(2)
    y = rng.normal(size=50)
    w = rng.integers(1, 4, size=50)
    disp = PITDisplay.from_predictions(y, 0.0, 1.0, sample_weight=w)
    rep = PITDisplay.from_predictions(np.repeat(y, w), 0.0, 1.0)
    np.testing.assert_allclose(disp.density, rep.density)
    np.testing.assert_allclose(disp.observed_frequency, rep.observed_frequency)


def test_pit_bad_input(regression):
    Xtr, ytr, Xte, yte = regression
    with pytest.raises(ValueError, match="return_std=True"):
        PITDisplay.from_estimator(GaussianNB().fit(Xtr, ytr > 150), Xte, yte)
    with pytest.raises(ValueError, match="y_std"):
        PITDisplay.from_predictions(yte, 0.0, -1.0)
    with pytest.raises(ValueError, match="kind"):
        PITDisplay.from_predictions(yte, 0.0, 1.0, kind="both_panels")
    disp = PITDisplay.from_predictions(yte, 0.0, 1.0)
    with pytest.raises(ValueError, match="ax must hold 2 Axes"):
        disp.plot(ax=disp.ax_[0])
