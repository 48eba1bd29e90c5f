"""GroupCalibrationDisplay: the numbers drawn are calibration_by_group's, worst first."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skcalib.display import GroupCalibrationDisplay  # noqa: E402
from skcalib.metrics import calibration_by_group, reliability_curve  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.choice(["n", "s", "e", "w", "tiny"], n, p=[0.3, 0.3, 0.2, 0.195, 0.005])
    p = rng.uniform(0.05, 0.95, n)
    truth = np.where(g == "e", 0.8 * p, p)
    return (rng.random(n) < truth).astype(int), p, g


def test_values_sorted_worst_first_and_marked():
    y, p, g = _data()
    disp = GroupCalibrationDisplay.from_predictions(y, p, g, n_curves=3)
    table = calibration_by_group(y, p, g)
    order = table.iloc[:-1].sort_values("ecce_sigma", ascending=False).index.tolist()
    assert disp.groups == order and disp.groups[0] == "e"
    np.testing.assert_allclose(disp.value, table.loc[order, "bias"])
    np.testing.assert_allclose(disp.low, table.loc[order, "bias_low"])
    np.testing.assert_array_equal(
        disp.rejected, (table.loc[order, "pvalue_adjusted"].fillna(1) < 0.05).to_numpy()
    )
    assert disp.rejected[0] and disp.small[disp.groups.index("tiny")]
    # artists: one point per group, three curve panels with the group's curve
    assert len(disp.curve_axes_) == 3 and len(disp.curve_lines_) == 3
    rows = g == "e"
    prob_true, prob_pred = reliability_curve(y[rows], p[rows], n_bins=10)
    np.testing.assert_allclose(disp.curve_lines_[0].get_ydata(), prob_true)
    np.testing.assert_allclose(disp.curve_lines_[0].get_xdata(), prob_pred)
    labels = {t.get_position()[1]: t.get_text() for t in disp.ax_.get_yticklabels()}
    assert [labels[len(disp.groups) - 1 - i] for i in range(len(disp.groups))] == disp.groups
    assert disp.figure_ is disp.ax_.figure


def test_given_axes_estimator_and_options():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((1500, 3))
    y = (X[:, 0] + rng.standard_normal(1500) > 0).astype(int)
    groups = np.column_stack([X[:, 1] > 0, X[:, 2] > 0])
    clf = LogisticRegression().fit(X, y)
    fig, (ax, cax) = plt.subplots(1, 2)
    disp = GroupCalibrationDisplay.from_estimator(
        clf, X, y, groups, ax=ax, curve_axes=[cax], max_groups=3, n_curves=1, name="LR"
    )
    assert disp.ax_ is ax and disp.curve_axes_[0] is cax
    assert len(disp.groups) == 3 and all(isinstance(k, tuple) for k in disp.groups)
    assert disp.ax_.get_title().startswith("LR")
    # class-wise: the ECCE is drawn (no interval)
    P = rng.dirichlet(np.ones(3), 900)
    yk = np.array([rng.choice(3, p=r) for r in P])
    gk = rng.choice(["a", "b"], 900)
    cw = GroupCalibrationDisplay.from_predictions(yk, P, gk, multiclass="classwise")
    assert cw.value_name == "ECCE"
    np.testing.assert_array_equal(cw.low, cw.value)
    with pytest.raises(ValueError, match="alpha"):
        GroupCalibrationDisplay.from_predictions(yk, P, gk, alpha=2.0)
    with pytest.raises(ValueError, match="groups"):
        GroupCalibrationDisplay.from_predictions(yk, P, gk[:10])
