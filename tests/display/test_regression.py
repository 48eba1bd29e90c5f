"""RegressionCalibrationDisplay and PredictionIntervalDisplay: the drawn values are the
metrics' values, several models share one Axes, estimators of every kind."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import same_color  # noqa: E402
from sklearn.datasets import load_diabetes  # noqa: E402
from sklearn.linear_model import BayesianRidge, LinearRegression  # noqa: E402

from skcalib import metrics as M  # noqa: E402
from skcalib.display import (  # noqa: E402
    PredictionIntervalDisplay,
    RegressionCalibrationDisplay,
)
from skcalib.display._reliability import REF_LABEL  # noqa: E402
from skcalib.recalibration import RecalibratedRegressor  # noqa: E402

_X, _y = load_diabetes(return_X_y=True)
X, Y = _X[:250], _y[:250]
X_TEST, Y_TEST = _X[250:], _y[250:]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _normal(n=300, factor=2.0, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=n)
    sigma = 0.5 + rng.random(n)
    return mu, sigma, mu + factor * sigma * rng.normal(size=n)


@pytest.mark.parametrize("kind", ["interval", "quantile"])
def test_calibration_display_values_are_the_metrics(kind):
    mu, sigma, y = _normal()
    w = np.random.default_rng(1).random(len(y))
    pred = stats.norm(mu, sigma)
    disp = RegressionCalibrationDisplay.from_predictions(
        y, pred, n_levels=21, kind=kind, sample_weight=w, name="model"
    )
    curve = M.regression_calibration_curve(y, pred, n_levels=21, kind=kind, sample_weight=w)
    assert_allclose(disp.expected, curve.expected)
    assert_allclose(disp.observed, curve.observed)
    assert disp.miscalibration_area == pytest.approx(
        M.miscalibration_area(y, pred, n_levels=21, kind=kind, sample_weight=w)
    )
    assert disp.sharpness == pytest.approx(M.sharpness(pred, sample_weight=w))
    assert_allclose(disp.line_.get_xdata(), curve.expected)
    assert_allclose(disp.line_.get_ydata(), curve.observed)
    label = disp.line_.get_label()
    assert label.startswith("model (area = ") and "sharpness = " in label
    assert disp.fill_ is not None
    assert disp.ax_.get_xlabel().startswith("Expected proportion")
    assert disp.figure_ is disp.ax_.figure
    if kind == "interval":  # over-confident: the curve lies below the diagonal
        assert np.all(disp.observed[1:-1] < disp.expected[1:-1])


def test_calibration_display_several_models_and_estimators():
    br = BayesianRidge().fit(X, Y)
    disp = RegressionCalibrationDisplay.from_estimator(br, X_TEST, Y_TEST)
    mean, std = br.predict(X_TEST, return_std=True)
    assert disp.miscalibration_area == pytest.approx(
        M.miscalibration_area(Y_TEST, stats.norm(mean, std))
    )
    assert disp.line_.get_label().startswith("BayesianRidge (")
    # a second model on the same Axes: one diagonal, two curves
    reg = RecalibratedRegressor(BayesianRidge(), method="isotonic", cv=3).fit(X, Y)
    disp2 = RegressionCalibrationDisplay.from_estimator(
        reg, X_TEST, Y_TEST, ax=disp.ax_, name="isotonic", color="tab:green", lw=1
    )
    assert disp2.ax_ is disp.ax_
    labels = disp.ax_.get_legend_handles_labels()[1]
    assert labels.count(REF_LABEL) == 1
    assert sum(lab.startswith(("BayesianRidge", "isotonic")) for lab in labels) == 2
    assert same_color(disp2.line_.get_color(), "tab:green")
    assert disp2.line_.get_linewidth() == 1
    assert disp2.miscalibration_area == pytest.approx(
        M.miscalibration_area(Y_TEST, reg.predict_distribution(X_TEST))
    )
    # plot() only draws: a display made by hand, without area and sharpness
    hand = RegressionCalibrationDisplay(np.linspace(0, 1, 3), np.array([0, 0.4, 1.0]))
    hand.plot(fill=False, ref_line=False)
    assert hand.fill_ is None and hand.line_.get_label().startswith("_")


def test_calibration_display_errors():
    mu, sigma, y = _normal(50)
    with pytest.raises(ValueError, match="LinearRegression.predict does not accept return_std"):
        RegressionCalibrationDisplay.from_estimator(LinearRegression().fit(X, Y), X, Y)
    with pytest.raises(ValueError, match="kind"):
        RegressionCalibrationDisplay.from_predictions(y, stats.norm(mu, sigma), kind="bins")
    with pytest.raises(ValueError, match="n_levels"):
        RegressionCalibrationDisplay.from_predictions(y, stats.norm(mu, sigma), n_levels=1)
    with pytest.raises(ValueError, match="different numbers of samples"):
        RegressionCalibrationDisplay.from_predictions(y[:-1], stats.norm(mu, sigma))
    with pytest.raises(ValueError, match="kwargs"):
        RegressionCalibrationDisplay.from_predictions(y, stats.norm(mu, sigma), lw=1, linewidth=2)


def test_interval_display_orders_by_prediction_and_reports_coverage():
    mu, sigma, y = _normal(120, factor=1.0, seed=3)
    pred = stats.norm(mu, sigma)
    w = np.random.default_rng(2).random(120)
    disp = PredictionIntervalDisplay.from_predictions(
        y, pred, coverage=0.8, sample_weight=w, name="model", color="tab:purple"
    )
    order = np.argsort(mu)
    assert_allclose(disp.y_pred, mu[order])
    assert_allclose(disp.y_true, y[order])
    lo, hi = pred.interval(0.8)
    assert_allclose(disp.lower, lo[order])
    assert_allclose(disp.upper, hi[order])
    assert disp.observed_coverage == pytest.approx(
        M.interval_coverage(y, pred, coverage=0.8, sample_weight=w)
    )
    inside = (lo <= y) & (y <= hi)
    assert len(disp.inside_.get_xdata()) == inside.sum()
    assert len(disp.outside_.get_xdata()) == (~inside).sum()
    assert disp.fill_.get_label().startswith("model: 80% interval (observed coverage")
    assert same_color(disp.fill_.get_facecolor()[0][:3], "tab:purple")
    # a PredictionInterval: its own coverage, the midpoints as predictions
    iv = M.PredictionInterval(mu - 1.0, mu + 2.0, 0.7)
    disp = PredictionIntervalDisplay.from_predictions(y, iv)
    assert disp.coverage == 0.7
    assert_allclose(disp.y_pred, np.sort(mu + 0.5))
    with pytest.raises(ValueError, match="coverage"):
        PredictionIntervalDisplay.from_predictions(y, pred, coverage=1.5)


def test_interval_display_from_estimators():
    conformal = RecalibratedRegressor(LinearRegression(), method="conformal", cv=3).fit(X, Y)
    disp = PredictionIntervalDisplay.from_estimator(conformal, X_TEST, Y_TEST, coverage=0.9)
    iv = conformal.predict_interval(X_TEST, coverage=0.9)
    assert disp.observed_coverage == pytest.approx(M.interval_coverage(Y_TEST, iv))
    assert disp.fill_.get_label().startswith("RecalibratedRegressor: 90% interval")
    br = BayesianRidge().fit(X, Y)
    disp = PredictionIntervalDisplay.from_estimator(br, X_TEST, Y_TEST, coverage=0.5)
    mean, std = br.predict(X_TEST, return_std=True)
    assert_allclose(disp.y_pred, np.sort(mean))
    with pytest.raises(ValueError, match="return_std"):
        PredictionIntervalDisplay.from_estimator(LinearRegression().fit(X, Y), X, Y)
