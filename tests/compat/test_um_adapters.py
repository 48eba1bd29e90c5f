"""The stateful metrics of skcalib.compat.uncertainty_metrics stream in linear time, and
the inputs that uncertainty_metrics' own documentation and tests use are handled."""

import time

import numpy as np
import pytest

from skcalib.compat import uncertainty_metrics as um
from skcalib.compat._um_common import probs_2d

PM = np.array(
    [
        [0.31, 0.32, 0.27],
        [0.37, 0.33, 0.30],
        [0.30, 0.31, 0.39],
        [0.61, 0.38, 0.01],
        [0.10, 0.65, 0.25],
        [0.91, 0.05, 0.04],
    ]
)
LM = np.array([1, 0, 0, 1, 0, 0])


def _best_of(n, func):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize(
    "make",
    [
        lambda: um.GeneralCalibrationError("even", True, False, "l1"),
        lambda: um.GeneralCalibrationError("adaptive", False, True, "l2"),
        lambda: um.ExpectedCalibrationError(num_bins=15),
        lambda: um.OracleCollaborativeAccuracy(fraction=0.1),
        lambda: um.AUC(num_thresholds=50),
    ],
)
def test_many_updates_cost_about_one_update_of_all_rows(make):
    # 200 updates of 2,000 rows against one update of the 400,000 rows: linear in the
    # number of updates (a metric that recomputes from all the data at every update
    # takes about 100 times longer).  Generous slack (10x) for a loaded machine.
    rng = np.random.default_rng(0)
    n, parts = 400_000, 200
    P = rng.dirichlet(np.ones(3), size=n)
    y = rng.integers(0, 3, size=n)
    if isinstance(make(), um.AUC):
        P, y = P[:, 0], (y == 0).astype(int)
    step = n // parts

    def one():
        metric = make()
        metric.update_state(y, P)
        return metric.result()

    def many():
        metric = make()
        for i in range(parts):
            metric.update_state(y[i * step : (i + 1) * step], P[i * step : (i + 1) * step])
        return metric.result()

    assert many() == pytest.approx(one(), rel=1e-6)
    t_one, t_many = _best_of(2, one), _best_of(2, many)
    assert t_many < 10 * t_one + 0.1, (t_one, t_many)


def test_even_bins_stream_reads_between_updates_in_linear_time():
    # "even" keeps per-bin sums only: reading the result after every update costs no
    # pass over the earlier rows
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(4), size=200_000)
    y = rng.integers(0, 4, size=200_000)

    def every_read():
        metric = um.GeneralCalibrationError("even", False, True, "l2", num_bins=15)
        for i in range(200):
            metric.update_state(y[i * 1000 : (i + 1) * 1000], P[i * 1000 : (i + 1) * 1000])
            metric.result()
        return metric.result()

    def once():
        metric = um.GeneralCalibrationError("even", False, True, "l2", num_bins=15)
        metric.update_state(y, P)
        return metric.result()

    assert every_read() == once()
    assert _best_of(2, every_read) < 10 * _best_of(2, once) + 0.1


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "max_prob, cc", [(True, False), (True, True), (False, True), (False, False)]
)
def test_streamed_even_bins_equal_gce_bit_for_bit(seed, max_prob, cc):
    # edge values, exact zeros and ones (the extra bin), a NaN, rows not summing to one,
    # a threshold, float32, batches of random sizes (some empty): the streamed sums are
    # those of one pass over the data, so the numbers are equal, not close
    rng = np.random.default_rng(seed)
    n, k = 300, 3
    P = rng.choice([0.0, 0.1, 0.3, 0.6, 0.7, 1.0], size=(n, k)) * rng.integers(0, 2, size=(n, k))
    P = np.where(rng.random((n, k)) < 0.5, rng.random((n, k)), P)
    P[7, 1] = np.nan
    y = rng.integers(0, k, size=n)
    cuts = np.sort(rng.integers(0, n, size=6))
    for norm, threshold, dtype in [("l1", 0.0, np.float64), ("l2", 0.05, np.float32)]:
        P = P.astype(dtype)
        metric = um.GeneralCalibrationError("even", max_prob, cc, norm, 10, threshold)
        for part in np.split(np.arange(n), cuts):
            metric.update_state(y[part], P[part])
        assert metric.result() == um.gce(y, P, "even", max_prob, cc, norm, 10, threshold)
        groups = []
        um._gce(y, probs_2d(P, allow_nan=True), binning_scheme="even", max_prob=max_prob,
                class_conditional=cc, norm=norm, num_bins=10, threshold=threshold,
                bins=groups)  # fmt: skip
        counts = metric.counts if cc else metric.counts[None]
        for row, (expected, *_) in zip(counts, groups, strict=True):
            np.testing.assert_array_equal(row[: expected.shape[0]], expected)
            assert not row[expected.shape[0] :].any()


def test_general_calibration_error_reads_are_cached():
    metric = um.GeneralCalibrationError("even", True, False, "l1", num_bins=10)
    metric.update_state(LM[:3], PM[:3])
    first = metric.result()
    assert metric.result() == first == um.ece(LM[:3], PM[:3], 10)
    metric.update_state(LM[3:], PM[3:])
    assert metric.result() == um.ece(LM, PM, 10)
    assert metric.counts.sum() == 6


@pytest.mark.parametrize("name", ["ece", "rmsce", "sce", "ace", "tace", "compute_all_metrics"])
def test_readme_argument_order_is_detected(name):
    # uncertainty_metrics' README calls um.ece(probs, labels); its code takes labels first
    func = getattr(um, name)
    with pytest.raises(ValueError, match=r"look swapped.*\(labels, probs\)"):
        func(PM, LM)
    with pytest.raises(ValueError, match="look swapped"):
        func([0.91, 0.32, 0.66], [1, 0, 1])  # binary 1-D probabilities first
    with pytest.raises(ValueError, match="look swapped"):
        um.gce(PM, LM, "even", True, False, "l1")
    with pytest.raises(ValueError, match="look swapped"):
        um.GeneralCalibrationError("even", True, False, "l1").update_state(PM, LM)
    # the right order, and integer-valued float labels, are not mistaken for it
    func(LM, PM)
    func(LM.astype(float), PM)


@pytest.fixture
def plt():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_reliability_diagram_takes_a_column_of_labels(plt):
    # uncertainty_metrics' visualization_test.py passes labels of shape (N, 1)
    rng = np.random.default_rng(0)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p).astype(int)
    column = um.reliability_diagram(y[:, None], p).curve_
    flat = um.reliability_diagram(y, p).curve_
    np.testing.assert_array_equal(column.accuracy, flat.accuracy)
    np.testing.assert_array_equal(column.confidence, flat.confidence)
    with pytest.raises(ValueError, match="labels has shape"):
        um.reliability_diagram(np.c_[y, y], p)


def test_class_conditional_diagram_first_panel_is_the_reference_one(plt):
    # the reference returns after class 0; here one panel per class, the first of which
    # is the reference's (the curve of column 0 against labels == 0)
    P3 = np.array([[0.4, 0.4, 0.2], [0.4, 0.5, 0.1], [0.2, 0.1, 0.7], [0.6, 0.3, 0.1]])
    fig = um.reliability_diagram([0, 1, 2, 0], P3, class_conditional=True)
    assert len(fig.axes) == 3 and fig.axes[0].get_title() == "Reliability Diagram (class 0)"
    x, acc = fig.axes[0].lines[0].get_data()
    np.testing.assert_allclose(x, [0.2, 0.4, 0.4])  # sorted column 0, windows of 1
    np.testing.assert_allclose(acc, [0.0, 1.0, 0.0])


def test_shared_input_checks():
    # one probability check (probs_2d) and one label check (int_labels) serve the
    # calibration errors and the plots
    P = np.array([[0.2, 0.8], [0.6, 0.4]], dtype=object)  # object arrays of numbers
    assert um.ece([1, 0], P) == um.ece([1, 0], P.astype(float))
    assert um.ece(np.array([1, 0], dtype=object), P) == um.ece([1, 0], P.astype(float))
    with pytest.raises(ValueError, match=r"probs contains infinity at \(1, 0\)"):
        um.ece([1, 0], [[np.nan, 0.5], [np.inf, 0.5]])  # NaN allowed, as the reference
    with pytest.raises(ValueError, match="in_probs must be an array of real numbers"):
        um.confidence_vs_accuracy_curve([[0.5, 0.5], [0.5]], [0, 1], [[0.5, 0.5]])
    with pytest.raises(ValueError, match="one-hot label matrices are not supported"):
        um.reliability_diagram(np.eye(2)[[0, 1, 1]], [0.1, 0.8, 0.7])
    np.testing.assert_array_equal(probs_2d([[0.3]]), [[0.7, 0.3]])
