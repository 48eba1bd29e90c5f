"""ReliabilityDisplay: the drawn values are those of the metrics, on the Agg backend."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_iris  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402

from skcalib.display import ReliabilityDisplay  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    expected_calibration_error,
    general_calibration_error,
    reliability_curve,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def binary():
    X, y = load_breast_cancer(return_X_y=True)
    clf = GaussianNB().fit(X[::2], y[::2])
    return clf, X[1::2], y[1::2], clf.predict_proba(X[1::2])


@pytest.fixture(scope="module")
def multiclass():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]  # string labels
    clf = LogisticRegression(max_iter=1000, C=0.05).fit(X[::2], names[::2])
    return clf, X[1::2], names[1::2], clf.predict_proba(X[1::2])


def _nonempty(curve):
    keep = curve.bin_count > 0
    return curve.prob_pred[keep], curve.prob_true[keep]


def test_line_values_equal_reliability_curve(binary):
    clf, X, y, P = binary
    disp = ReliabilityDisplay.from_estimator(clf, X, y, n_bins=8)
    curve = reliability_curve(y, P[:, 1], n_bins=8)
    x, t = _nonempty(curve)
    np.testing.assert_array_equal(disp.line_.get_xdata(), x)
    np.testing.assert_array_equal(disp.line_.get_ydata(), t)
    np.testing.assert_array_equal(disp.bin_count, curve.bin_count)
    # attributes and artists
    assert disp.ax_.figure is disp.figure_
    assert disp.bars_ is None and disp.hist_ax_ is None and disp.errorbar_ is None
    assert disp.ref_line_.get_label() == "Perfectly calibrated"
    np.testing.assert_array_equal(disp.ref_line_.get_xydata(), [[0, 0], [1, 1]])
    assert disp.ax_.get_xlabel() == "Predicted probability of class 1"
    assert disp.ax_.get_ylabel() == "Observed frequency of class 1"
    assert disp.estimator_name == "GaussianNB"
    # nothing clipped: the drawn area holds [0, 1] x [0, 1]
    assert disp.ax_.get_xlim()[0] < 0 < 1 < disp.ax_.get_xlim()[1]
    assert disp.ax_.get_ylim()[0] < 0 < 1 < disp.ax_.get_ylim()[1]


@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_legend_ece_equals_expected_calibration_error(binary, n_bins):
    clf, X, y, P = binary
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1], n_bins=n_bins, name="nb")
    ece = expected_calibration_error(y, P[:, 1], n_bins=n_bins)
    assert disp.calibration_error == pytest.approx(ece, rel=1e-12, abs=1e-15)
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert f"nb (ECE = {ece:.3f})" in texts
    assert "Perfectly calibrated" in texts


@pytest.mark.parametrize("data", ["binary", "multiclass"])
def test_default_bins_follow_the_sample_size(data, request):
    # n_bins="auto": ceil((2 n) ** (1/3)) bins within [5, 15]; the legend's ECE is the
    # metric's with those bins, and the arrays those of reliability_curve
    clf, X, y, P = request.getfixturevalue(data)
    disp = ReliabilityDisplay.from_estimator(clf, X, y)
    k = min(15, max(5, int(np.ceil(np.cbrt(2 * len(y)) - 1e-9))))
    ece = expected_calibration_error(y, P, labels=clf.classes_, n_bins=k)
    assert disp.bin_count.shape == (k,) and disp.bin_edges.shape == (k + 1,)
    assert disp.calibration_error == pytest.approx(ece, rel=1e-12, abs=1e-15)
    texts = [t.get_text() for t in disp.ax_.get_legend().get_texts()]
    assert f"{type(clf).__name__} (ECE = {ece:.3f})" in texts
    curve = reliability_curve(y, P, labels=clf.classes_, n_bins=k)
    np.testing.assert_array_equal(disp.bin_count, curve.bin_count)
    np.testing.assert_array_equal(disp.bin_edges, curve.bin_edges)
    np.testing.assert_array_equal(disp.prob_true, curve.prob_true)
    np.testing.assert_array_equal(disp.prob_pred, curve.prob_pred)


@pytest.mark.parametrize(
    ("n", "k"),
    [(1, 5), (62, 5), (63, 6), (143, 7), (500, 10), (1372, 14), (1373, 15), (10**7, 15)],
)
def test_auto_n_bins_rule(n, k):
    from skcalib.display._reliability import auto_n_bins

    # ceil((2n)^(1/3)) (Terrell and Scott 1985) clipped to [5, 15], computed by hand:
    # 2 * 62 = 124 < 5**3; 2 * 500 = 10**3; 2 * 1372 = 14**3; 2 * 1373 > 14**3
    assert auto_n_bins(n) == k


def test_auto_bins_are_smoother_on_a_small_test_set():
    """On 150 calibrated predictions, 15 bins zig-zag around the diagonal; the automatic
    bins (7) stay closer to it: the mean absolute gap of the points is smaller."""
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    gaps = {"auto": [], 15: []}
    _, ax = plt.subplots()
    for _ in range(20):
        p = rng.uniform(size=150)
        y = (rng.uniform(size=150) < p).astype(int)
        for n_bins in gaps:
            ax.clear()
            d = ReliabilityDisplay.from_predictions(y, p, n_bins=n_bins, ax=ax)
            keep = d.bin_count > 0
            gaps[n_bins].append(np.mean(np.abs(d.prob_true[keep] - d.prob_pred[keep])))
    assert np.mean(gaps["auto"]) < 0.8 * np.mean(gaps[15])
    plt.close("all")


def test_defaults_are_documented_choices():
    import inspect

    for method in (ReliabilityDisplay.from_predictions, ReliabilityDisplay.from_estimator):
        assert inspect.signature(method).parameters["n_bins"].default == "auto"
    with pytest.raises(ValueError, match="n_bins"):
        ReliabilityDisplay.from_predictions([0, 1], [0.2, 0.8], n_bins="sturges")


def test_legend_stays_clear_of_a_title_set_afterwards(binary):
    """The legend sits above the Axes; a title set after plotting goes above it."""
    clf, X, y, P = binary
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1], name="nb", confidence_level=0.9)
    disp.ax_.set_title("A title set after the plot")
    fig = disp.figure_
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = disp.ax_.get_legend().get_window_extent(renderer)
    title = disp.ax_.title.get_window_extent(renderer)
    assert title.y0 >= legend.y1 - 0.5  # above the legend, not across it
    assert legend.y0 >= disp.ax_.get_window_extent(renderer).y1 - 0.5  # above the data
    assert title.y1 <= fig.bbox.y1 + 0.5  # still on the figure
    import matplotlib.pyplot as plt

    plt.close("all")


def test_classwise_arrays_equal_reliability_curve_with_intervals(multiclass):
    clf, X, y, P = multiclass
    w = np.random.default_rng(5).uniform(0.5, 2.0, size=len(y))
    disp = ReliabilityDisplay.from_predictions(
        y,
        P,
        labels=clf.classes_,
        multiclass="classwise",
        confidence_level=0.8,
        sample_weight=w,
        n_bins=15,
    )
    curve = reliability_curve(
        y, P, labels=clf.classes_, multiclass="classwise", confidence_level=0.8, sample_weight=w
    )
    for attr in ("prob_true", "prob_pred", "prob_true_low", "prob_true_high"):
        np.testing.assert_array_equal(getattr(disp, attr), getattr(curve, attr))
    np.testing.assert_array_equal(disp.bin_count, curve.bin_count)
    np.testing.assert_array_equal(disp.bin_edges, curve.bin_edges)


def test_quantile_bins_legend_is_their_calibration_error(binary):
    _, _, y, P = binary
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1], n_bins=6, strategy="quantile")
    gce = general_calibration_error(y, P[:, 1], n_bins=6, strategy="quantile")
    assert disp.calibration_error == pytest.approx(gce, rel=1e-12)
    assert disp.calibration_error_name == "ECE (equal-mass bins)"
    curve = reliability_curve(y, P[:, 1], n_bins=6, strategy="quantile")
    np.testing.assert_array_equal(disp.bin_edges, curve.bin_edges)


def test_bar_heights_and_gaps(binary):
    _, _, y, P = binary
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1], n_bins=10, kind="bar")
    curve = reliability_curve(y, P[:, 1], n_bins=10)
    keep = curve.bin_count > 0
    heights = np.array([p.get_height() for p in disp.bars_.patches])
    np.testing.assert_allclose(heights[keep], curve.prob_true[keep])
    np.testing.assert_array_equal(heights[~keep], 0)
    lefts = np.array([p.get_x() for p in disp.bars_.patches])
    widths = np.array([p.get_width() for p in disp.bars_.patches])
    np.testing.assert_allclose(lefts, curve.bin_edges[:-1])
    np.testing.assert_allclose(lefts + widths, curve.bin_edges[1:])
    # each gap bar spans from the observed frequency to the mean predicted probability
    for p, t, q, k in zip(
        disp.gap_bars_.patches, curve.prob_true, curve.prob_pred, keep, strict=True
    ):
        if k:
            assert p.get_y() == pytest.approx(t)
            assert p.get_y() + p.get_height() == pytest.approx(q)
    assert disp.line_ is None


def test_top_label_multiclass_string_labels(multiclass):
    clf, X, y, P = multiclass
    disp = ReliabilityDisplay.from_estimator(clf, X, y, n_bins=5)
    curve = reliability_curve(y, P, n_bins=5, labels=clf.classes_)
    x, t = _nonempty(curve)
    np.testing.assert_array_equal(disp.line_.get_xdata(), x)
    np.testing.assert_array_equal(disp.line_.get_ydata(), t)
    assert disp.multiclass == "top_label"
    assert disp.ax_.get_ylabel() == "Accuracy"
    ece = expected_calibration_error(y, P, n_bins=5, labels=clf.classes_)
    assert disp.calibration_error == pytest.approx(ece, rel=1e-12)


def test_classwise_small_multiples(multiclass):
    clf, X, y, P = multiclass
    disp = ReliabilityDisplay.from_estimator(
        clf, X, y, n_bins=5, multiclass="classwise", show_histogram=True
    )
    assert disp.ax_.shape == (3,) and disp.hist_ax_.shape == (3,) and disp.line_.shape == (3,)
    curve = reliability_curve(y, P, n_bins=5, multiclass="classwise", labels=clf.classes_)
    for i, cls in enumerate(clf.classes_):
        keep = curve.bin_count[i] > 0
        np.testing.assert_array_equal(disp.line_[i].get_xdata(), curve.prob_pred[i][keep])
        np.testing.assert_array_equal(disp.line_[i].get_ydata(), curve.prob_true[i][keep])
        assert disp.hist_ax_[i].get_xlabel() == f"Predicted probability of class {cls}"
        assert disp.ax_[i].get_legend().get_title().get_text() == f"Class {cls}"
        # one-vs-rest ECE of that class, from the same bins
        one_vs_rest = expected_calibration_error(y == cls, P[:, i], n_bins=5)
        assert disp.calibration_error[i] == pytest.approx(one_vs_rest, rel=1e-12)
    # the mean of the per-class errors is the static calibration error
    sce = general_calibration_error(y, P, n_bins=5, multiclass="classwise", labels=clf.classes_)
    assert disp.calibration_error.mean() == pytest.approx(sce, rel=1e-12)


def test_classwise_one_class(multiclass):
    clf, X, y, P = multiclass
    disp = ReliabilityDisplay.from_estimator(
        clf, X, y, n_bins=5, multiclass="classwise", classes=["virginica"]
    )
    curve = reliability_curve(y, P, n_bins=5, multiclass="classwise", labels=clf.classes_)
    keep = curve.bin_count[2] > 0
    # small multiples of one panel: still arrays, of one entry
    assert disp.ax_.shape == disp.line_.shape == (1,)
    np.testing.assert_array_equal(disp.line_[0].get_ydata(), curve.prob_true[2][keep])
    assert disp.ax_[0].get_ylabel() == "Observed frequency of class virginica"
    np.testing.assert_array_equal(disp.class_labels, ["virginica"])
    with pytest.raises(ValueError, match=r"classes: \['tulip'\] not among the classes"):
        ReliabilityDisplay.from_estimator(clf, X, y, multiclass="classwise", classes=["tulip"])
    with pytest.raises(ValueError, match="classes selects the panels"):
        ReliabilityDisplay.from_estimator(clf, X, y, classes=["virginica"])


def test_classwise_classes_order_and_errors(multiclass):
    clf, X, y, P = multiclass
    disp = ReliabilityDisplay.from_estimator(
        clf, X, y, n_bins=5, multiclass="classwise", classes=["virginica", "setosa"]
    )
    curve = reliability_curve(y, P, n_bins=5, multiclass="classwise", labels=clf.classes_)
    np.testing.assert_array_equal(disp.class_labels, ["virginica", "setosa"])
    np.testing.assert_array_equal(disp.bin_count, curve.bin_count[[2, 0]])
    titles = [a.get_legend().get_title().get_text() for a in disp.ax_]
    assert titles == ["Class virginica", "Class setosa"]
    # every unknown class is named, with the available ones
    msg = (
        r"classes: \['tulip', 'rose'\] not among the classes "
        r"\['setosa', 'versicolor', 'virginica'\]"
    )
    with pytest.raises(ValueError, match=msg):
        ReliabilityDisplay.from_predictions(
            y,
            P,
            labels=clf.classes_,
            multiclass="classwise",
            classes=["tulip", "setosa", "rose"],
        )
    with pytest.raises(ValueError, match="classes must not repeat"):
        ReliabilityDisplay.from_predictions(
            y, P, labels=clf.classes_, multiclass="classwise", classes=["setosa", "setosa"]
        )
    with pytest.raises(ValueError, match="classes must name at least one class"):
        ReliabilityDisplay.from_predictions(
            y, P, labels=clf.classes_, multiclass="classwise", classes=[]
        )


def test_classwise_classes_match_labels_exactly():
    # integer labels: the class 1 is not the string "1" (no matching through str())
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=60)
    P = rng.dirichlet(np.ones(3), size=60)
    disp = ReliabilityDisplay.from_predictions(
        y, P, n_bins=4, multiclass="classwise", classes=[2, 1]
    )
    np.testing.assert_array_equal(disp.class_labels, [2, 1])
    curve = reliability_curve(y, P, n_bins=4, multiclass="classwise")
    np.testing.assert_array_equal(disp.bin_count, curve.bin_count[[2, 1]])
    with pytest.raises(ValueError, match=r"classes: \['1'\] not among the classes \[0, 1, 2\]"):
        ReliabilityDisplay.from_predictions(y, P, multiclass="classwise", classes=["1"])
    # and string labels are not matched by numbers
    names = np.array(["0", "1", "2"])[y]
    with pytest.raises(ValueError, match=r"classes: \[1\] not among the classes \['0', '1', '2'\]"):
        ReliabilityDisplay.from_predictions(names, P, multiclass="classwise", classes=[1])


@pytest.mark.parametrize(
    ("multiclass", "small_multiples"),
    [("auto", False), ("top_label", False), ("classwise", True)],
)
@pytest.mark.parametrize("show_histogram", [False, True])
def test_ax_rule_follows_the_layout_not_the_data(multiclass, small_multiples, show_histogram):
    from matplotlib.axes import Axes

    rng = np.random.default_rng(4)
    for n_classes in (2, 3):
        y = rng.integers(0, n_classes, size=80)
        P = rng.dirichlet(np.ones(n_classes), size=80)
        for classes in [None, [1]] if small_multiples else [None]:
            disp = ReliabilityDisplay.from_predictions(
                y,
                P,
                multiclass=multiclass,
                classes=classes,
                confidence_level=0.9,
                show_histogram=show_histogram,
            )
            n = (n_classes if classes is None else 1) if small_multiples else 1
            attrs = ["ax_", "line_", "errorbar_", "ref_line_"]
            attrs += ["hist_ax_", "hist_"] if show_histogram else []
            for attr in attrs:
                value = getattr(disp, attr)
                if small_multiples:
                    assert isinstance(value, np.ndarray), attr
                    assert value.dtype == object and value.shape == (n,), attr
                else:
                    assert not isinstance(value, np.ndarray), attr
            axes = np.atleast_1d(disp.ax_)
            assert all(isinstance(a, Axes) for a in axes)
            if not show_histogram:
                assert disp.hist_ax_ is None and disp.hist_ is None
            assert disp.bars_ is None and disp.gap_bars_ is None  # kind="line"
            plt.close("all")


def test_several_models_on_one_axis(binary):
    clf, X, y, P = binary
    lr = LogisticRegression(max_iter=5000).fit(X, y)
    d1 = ReliabilityDisplay.from_estimator(clf, X, y, show_histogram=True)
    d2 = ReliabilityDisplay.from_estimator(lr, X, y, ax=d1.ax_, hist_ax=d1.hist_ax_)
    assert d2.ax_ is d1.ax_ and d2.figure_ is d1.figure_ and d2.hist_ax_ is d1.hist_ax_
    assert d2.ref_line_ is None  # the diagonal is drawn once
    labels = [t.get_text() for t in d1.ax_.get_legend().get_texts()]
    assert labels[0] == "Perfectly calibrated"
    assert labels[1].startswith("GaussianNB (ECE = ")
    assert labels[2].startswith("LogisticRegression (ECE = ")
    assert len(d1.hist_ax_.patches) == 4  # a filled and an outline histogram each
    # the second display can be drawn again elsewhere without recomputing
    fig = Figure()
    d2.plot(ax=fig.subplots(), name="again")
    assert d2.figure_ is fig and d2.line_.get_label().startswith("again (ECE")


def test_show_histogram_on_given_axes_splits_it(binary):
    _, _, y, P = binary
    fig = Figure(layout="constrained")
    ax = fig.subplots()
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1], ax=ax, show_histogram=True)
    assert disp.hist_ax_ is not ax and disp.hist_ax_.figure is fig
    np.testing.assert_array_equal(disp.hist_.get_data().values, disp.bin_count)
    assert disp.hist_ax_.get_ylabel() == "Samples per bin"
    assert disp.ax_.get_xlabel() == ""  # the x label moves below the histogram
    with pytest.raises(ValueError, match="hist_ax needs ax"):
        disp.plot(hist_ax=disp.hist_ax_)


@pytest.mark.parametrize("kind", ["line", "bar"])
def test_wilson_intervals_drawn(binary, kind):
    _, _, y, P = binary
    disp = ReliabilityDisplay.from_predictions(
        y, P[:, 1], n_bins=10, confidence_level=0.9, kind=kind
    )
    curve = reliability_curve(y, P[:, 1], n_bins=10, confidence_level=0.9)
    keep = curve.bin_count > 0
    segments = disp.errorbar_.lines[2][0].get_segments()
    lows = np.array([s[0][1] for s in segments])
    highs = np.array([s[1][1] for s in segments])
    np.testing.assert_allclose(lows, curve.prob_true_low[keep])
    np.testing.assert_allclose(highs, curve.prob_true_high[keep])


def test_sample_weight_and_pos_label(binary):
    _, _, y, P = binary
    rng = np.random.default_rng(0)
    w = rng.integers(1, 4, size=len(y))
    disp = ReliabilityDisplay.from_predictions(y, P[:, 0], sample_weight=w, pos_label=0, n_bins=15)
    rep = reliability_curve(np.repeat(y, w), np.repeat(P[:, 0], w), pos_label=0)
    assert disp.bin_count.shape == (15,)
    np.testing.assert_allclose(disp.prob_true, rep.prob_true, equal_nan=True)
    np.testing.assert_allclose(disp.bin_count, rep.bin_count)
    assert disp.pos_label == 0
    assert disp.ax_.get_xlabel() == "Predicted probability of class 0"
    ece = expected_calibration_error(np.repeat(y, w), np.repeat(P[:, 0], w), pos_label=0)
    assert disp.calibration_error == pytest.approx(ece, rel=1e-12)


def test_string_binary_labels_and_pos_label():
    y = np.array(["spam", "ham", "spam", "ham", "spam", "spam"])
    p = np.array([0.9, 0.2, 0.7, 0.4, 0.6, 0.95])  # P(spam)
    disp = ReliabilityDisplay.from_predictions(y, p, n_bins=2, pos_label="spam")
    np.testing.assert_allclose(disp.prob_true, [0.0, 1.0])
    assert disp.ax_.get_ylabel() == "Observed frequency of class spam"


def test_plot_kwargs_and_name(binary):
    _, _, y, P = binary
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1], color="red", marker="o", name="m")
    assert disp.line_.get_color() == "red" and disp.line_.get_marker() == "o"
    assert disp.line_.get_label().startswith("m (ECE")


def test_bad_options(binary):
    clf, X, y, P = binary
    with pytest.raises(ValueError, match="kind"):
        ReliabilityDisplay.from_predictions(y, P[:, 1], kind="pie")
    with pytest.raises(ValueError, match="n_bins"):
        ReliabilityDisplay.from_predictions(y, P[:, 1], n_bins=0)
    with pytest.raises(ValueError, match="multiclass"):
        ReliabilityDisplay.from_predictions(y, P[:, 1], multiclass="ovr")
    with pytest.raises(ValueError, match="confidence_level"):
        ReliabilityDisplay.from_predictions(y, P[:, 1], confidence_level=1.5)
    with pytest.raises(ValueError, match=r"y_proba"):
        ReliabilityDisplay.from_predictions(y, P[:, 1] + 2)
    with pytest.raises(ValueError, match="needs a classifier"):
        ReliabilityDisplay.from_estimator(LinearRegression().fit(X, y), X, y)
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1])
    with pytest.raises(ValueError, match="kind must be one of"):
        disp.plot(kind="pie")
    with pytest.raises(ValueError, match="ax must hold 1 Axes"):
        disp.plot(ax=[disp.ax_, disp.ax_])


def test_unfitted_estimator_raises(binary):
    from sklearn.exceptions import NotFittedError

    _, X, y, _ = binary
    with pytest.raises(NotFittedError):
        ReliabilityDisplay.from_estimator(GaussianNB(), X, y)


def test_inputs_not_modified(binary):
    _, _, y, P = binary
    P2, y2 = P.copy(), y.copy()
    ReliabilityDisplay.from_predictions(y2, P2, n_bins=7, multiclass="classwise")
    np.testing.assert_array_equal(P2, P)
    np.testing.assert_array_equal(y2, y)


def test_new_figure_comes_from_pyplot(binary):
    # figures made with pyplot are shown inline by notebooks at the end of a cell
    _, _, y, P = binary
    disp = ReliabilityDisplay.from_predictions(y, P[:, 1])
    assert plt.fignum_exists(disp.figure_.number)


def test_pandas_and_float32_input(multiclass):
    pd = pytest.importorskip("pandas")
    clf, X, y, P = multiclass
    ref = ReliabilityDisplay.from_predictions(y, P, n_bins=5, labels=clf.classes_)
    frame = pd.DataFrame(P.astype(np.float32), columns=clf.classes_)
    disp = ReliabilityDisplay.from_predictions(pd.Series(y), frame, n_bins=5, labels=clf.classes_)
    np.testing.assert_allclose(disp.prob_true, ref.prob_true, rtol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(disp.bin_count, ref.bin_count)
    ece32 = expected_calibration_error(y, P.astype(np.float32), n_bins=5, labels=clf.classes_)
    assert disp.calibration_error == pytest.approx(ece32, rel=1e-12)


def test_line_equals_sklearn_calibration_display(binary):
    # the independent reference: scikit-learn's CalibrationDisplay on the same data
    from sklearn.calibration import CalibrationDisplay

    # (equal-width bins: sklearn's equal-mass edges interpolate with np.percentile)
    _, _, y, P = binary
    for n_bins in (5, 7, 10):
        ours = ReliabilityDisplay.from_predictions(y, P[:, 1], n_bins=n_bins)
        theirs = CalibrationDisplay.from_predictions(y, P[:, 1], n_bins=n_bins)
        np.testing.assert_allclose(ours.line_.get_xdata(), theirs.line_.get_xdata(), rtol=1e-12)
        np.testing.assert_allclose(ours.line_.get_ydata(), theirs.line_.get_ydata(), rtol=1e-12)
