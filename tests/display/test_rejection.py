"""RejectionDisplay on the Agg backend."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

from skcalib.display import RejectionDisplay  # noqa: E402
from skcalib.metrics import area_under_risk_coverage, rejection_curve  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    clf = GaussianNB().fit(X[::2], y[::2])
    return clf, X[1::2], y[1::2]


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_drawn_values_are_the_rejection_curve(digits):
    clf, X, y = digits
    P = clf.predict_proba(X)
    disp = RejectionDisplay.from_estimator(clf, X, y)
    curve = rejection_curve(y, P)
    for got, want in [
        (disp.fraction_rejected, curve.fraction_rejected),
        (disp.accuracy, curve.accuracy),
        (disp.oracle_accuracy, curve.oracle_accuracy),
        (disp.line_.get_xdata(), curve.fraction_rejected),
        (disp.line_.get_ydata(), curve.accuracy),
        (disp.oracle_line_.get_ydata(), curve.oracle_accuracy),
    ]:
        np.testing.assert_array_equal(got, want)
    assert disp.base_accuracy == curve.base_accuracy == pytest.approx(np.mean(P.argmax(1) == y))
    assert disp.random_line_.get_ydata()[0] == disp.base_accuracy
    # the legend's AURC is the metric's on the same data
    assert disp.aurc == pytest.approx(area_under_risk_coverage(y, P), rel=1e-12)
    assert _legend(disp.ax_) == [
        f"GaussianNB (AURC = {disp.aurc:.3g})",
        "Oracle: errors rejected first (GaussianNB)",
        "Random rejection (GaussianNB)",
    ]
    assert disp.ax_.get_xlabel() == "Fraction of predictions rejected"
    assert disp.ax_.get_ylabel() == "Accuracy of the kept predictions"
    assert disp.ax_.get_xlim() == (0.0, 1.0)
    assert disp.figure_ is disp.ax_.figure
    # the oracle is never below the curve, and the curve starts at the base accuracy
    assert np.all(disp.oracle_accuracy >= disp.accuracy - 1e-12)
    assert disp.accuracy[0] == pytest.approx(disp.base_accuracy)


def test_toy_values_string_labels_weights_and_uncertainty():
    y = np.array(["cat", "dog", "dog", "cat"])
    p = np.array([0.1, 0.8, 0.4, 0.4])  # P("dog")
    disp = RejectionDisplay.from_predictions(y, p, pos_label="dog", name="toy")
    np.testing.assert_allclose(disp.fraction_rejected, [0.0, 0.5, 0.75])
    np.testing.assert_allclose(disp.accuracy, [0.75, 1.0, 1.0])
    assert disp.base_accuracy == pytest.approx(0.75)
    # any uncertainty score, and weights as repetitions
    u = np.array([0.3, 0.1, 0.2, 0.05])
    w = np.array([1, 2, 1, 1])
    a = RejectionDisplay.from_predictions(y, p, uncertainty=u, sample_weight=w, pos_label="dog")
    b = RejectionDisplay.from_predictions(
        np.repeat(y, w), np.repeat(p, w), uncertainty=np.repeat(u, w), pos_label="dog"
    )
    np.testing.assert_allclose(a.accuracy, b.accuracy)
    np.testing.assert_allclose(a.fraction_rejected, b.fraction_rejected)
    assert a.aurc == pytest.approx(b.aurc)
    assert _legend(a.ax_)[0] == f"Model (AURC = {a.aurc:.3g})"


def test_several_models_on_one_axis_and_redraw_without_recomputing(digits):
    clf, X, y = digits
    Xd, yd = load_digits(return_X_y=True)
    other = LogisticRegression(max_iter=2000).fit(Xd[::2], yd[::2])
    d1 = RejectionDisplay.from_estimator(clf, X, y)
    d2 = RejectionDisplay.from_estimator(other, X, y, ax=d1.ax_, show_random=False)
    assert d2.ax_ is d1.ax_
    assert d2.random_line_ is None
    assert len(d1.ax_.get_lines()) == 5  # 2 curves, 2 oracles, 1 random line
    assert d1.line_.get_color() == d1.oracle_line_.get_color() != d2.line_.get_color()
    assert _legend(d1.ax_)[3].startswith("LogisticRegression (AURC = ")
    # drawn again elsewhere from the stored arrays
    fig, ax = plt.subplots()
    d1.plot(ax=ax, name="again", show_oracle=False, color="k")
    assert d1.ax_ is ax and d1.oracle_line_ is None
    assert d1.line_.get_color() == "k"
    np.testing.assert_array_equal(d1.line_.get_ydata(), d1.accuracy)
    assert _legend(ax) == [f"again (AURC = {d1.aurc:.3g})", "Random rejection (again)"]


def test_bad_input(digits):
    clf, X, y = digits
    with pytest.raises(ValueError, match="uncertainty"):
        RejectionDisplay.from_estimator(clf, X, y, uncertainty=np.ones(3))
    with pytest.raises(ValueError, match="name"):
        RejectionDisplay.from_predictions(y, clf.predict_proba(X), name=3)
    with pytest.raises(ValueError, match="needs a classifier"):
        RejectionDisplay.from_estimator(LinearRegression().fit(X, y), X, y)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_legend_aurc_is_the_metric_with_ties_and_weights(weighted, ties):
    # the AURC is summed from the drawn curve: equal to the metric in every case
    rng = np.random.default_rng(7)
    n = 300
    y = rng.integers(0, 3, size=n)
    P = rng.dirichlet(np.ones(3), size=n)
    if ties:
        P = np.round(P, 1)
        P /= P.sum(axis=1, keepdims=True)
    w = rng.uniform(0.0, 3.0, size=n) if weighted else None
    if weighted:
        w[:10] = 0.0  # weight 0 removes a sample
    u = np.round(rng.uniform(size=n), 1)  # tied uncertainty scores too
    for uncertainty in (None, u):
        disp = RejectionDisplay.from_predictions(y, P, uncertainty=uncertainty, sample_weight=w)
        want = area_under_risk_coverage(y, P, uncertainty=uncertainty, sample_weight=w)
        assert disp.aurc == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert _legend(disp.ax_)[0] == f"Model (AURC = {want:.3g})"


def test_every_model_on_shared_axes_stays_in_view(digits):
    """A weaker model drawn after a better one on the same Axes is not clipped: every
    point of every curve lies inside the y limits (the HTML report draws its models on
    one Axes this way)."""
    from sklearn.linear_model import LogisticRegression as LR

    clf, X, y = digits
    good = LR(max_iter=2000).fit(X[:300], y[:300])
    fig, ax = plt.subplots()
    RejectionDisplay.from_estimator(good, X, y, ax=ax, show_oracle=False, show_random=False)
    weak = RejectionDisplay.from_estimator(clf, X, y, ax=ax, show_oracle=False, show_random=False)
    low, high = ax.get_ylim()
    assert weak.accuracy.min() < 0.85  # far below where the better model alone starts
    for line in ax.get_lines():
        ydata = np.asarray(line.get_ydata())
        assert low < ydata.min() and ydata.max() < high
    assert high == pytest.approx(1.02)
