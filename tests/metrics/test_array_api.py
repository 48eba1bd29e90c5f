"""Array API input of the metrics (doc/array_api.rst): validation in the namespace,
results in the input's namespace and device, the binning rule on the device, and the
unchanged behaviour with dispatch off.  The values of every registered metric against
numpy are checked by ``test_array_api_input_gives_the_numpy_value`` of
``tests/metrics/test_common.py``."""

import numpy as np
import pytest

import skcalib.metrics as M
from skcalib.utils._array_api import to_numpy
from tests.utils.array_api_cases import CASE_IDS, Case, import_library


@pytest.fixture
def device1(dispatch):
    return Case("strict-device1-float64")


def _data(seed=0, n=200, k=3):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)
    return y, P


@pytest.mark.parametrize(
    "bad, match",
    [
        (lambda P: np.where(np.arange(P.size).reshape(P.shape) == 4, np.nan, P), "NaN"),
        (lambda P: P * 1.01, "rows must sum to 1"),
        (lambda P: np.where(np.arange(P.size).reshape(P.shape) == 4, -0.2, P), r"\[0, 1\]"),
    ],
    ids=["nan", "row_sum", "negative"],
)
@pytest.mark.parametrize("metric", [M.expected_calibration_error, M.brier_score])
def test_bad_probabilities_raise_on_the_device(device1, metric, bad, match):
    y, P = _data()
    with pytest.raises(ValueError, match=match):
        metric(device1.asarray(y), device1.asarray(bad(P)))


def test_bad_1d_probability_names_the_entry(device1):
    p = np.array([0.2, 0.7, 1.2, 0.4])
    with pytest.raises(ValueError, match=r"y_proba\[2\] = 1.2"):
        M.brier_score(device1.asarray([0, 1, 1, 0]), device1.asarray(p))


def test_bad_labels_and_weights_raise(device1):
    y, P = _data()
    with pytest.raises(ValueError, match="labels not in labels"):
        M.brier_score(device1.asarray(y), device1.asarray(P), labels=[0, 1, 5])
    with pytest.raises(ValueError, match="has 3 columns but y_true has 2 classes"):
        M.brier_score(device1.asarray(y % 2), device1.asarray(P))
    with pytest.raises(ValueError, match="different numbers of samples"):
        M.brier_score(device1.asarray(y[:-1]), device1.asarray(P))
    w = np.ones(len(y))
    for value, match in [(-1.0, "non-negative"), (np.nan, "NaN")]:
        w_bad = w.copy()
        w_bad[3] = value
        with pytest.raises(ValueError, match=match):
            M.brier_score(y, device1.asarray(P), sample_weight=device1.asarray(w_bad))
    with pytest.raises(ValueError, match="sums to zero"):
        M.brier_score(y, device1.asarray(P), sample_weight=device1.asarray(w * 0))
    with pytest.raises(ValueError, match="NaN or infinity"):
        M.brier_score(device1.asarray(np.where(y == 0, np.nan, y)), device1.asarray(P))


def test_labels_and_pos_label_with_labels_on_the_device(device1):
    """Labels on the device are matched against labels= and pos_label on the host."""
    y, P = _data(k=2)
    y_pm = np.where(y == 1, 7, -3)  # classes -3 < 7
    expected = M.expected_calibration_error(y_pm, P[:, 1], pos_label=7)
    got = M.expected_calibration_error(device1.asarray(y_pm), device1.asarray(P[:, 1]), pos_label=7)
    assert got == pytest.approx(expected, abs=1e-12)
    # columns in the order of labels=
    expected = M.brier_score(y_pm, P[:, ::-1], labels=[7, -3])
    got = M.brier_score(device1.asarray(y_pm), device1.asarray(P[:, ::-1]), labels=[7, -3])
    assert got == pytest.approx(expected, abs=1e-12)
    # bool labels
    expected = M.negative_log_likelihood(y == 1, P)
    got = M.negative_log_likelihood(device1.asarray(y == 1), device1.asarray(P))
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("multiclass", ["top_label", "classwise"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_bin_stats_equal_numpy(dispatch, case_id, multiclass, strategy):
    """Right-closed bins on the device: probabilities on the edges (0, 1, k / n_bins)
    land in the bins of the numpy core, with and without weights and a threshold."""
    case = Case(case_id)
    y, P = _data(seed=3, n=300, k=4)
    P[:8] = [0.5, 0.25, 0.25, 0.0]  # edges of 4 and 20 bins, and 0
    P[8:12] = np.eye(4)  # 1 and 0
    w = np.random.default_rng(3).random(len(y))
    P_rounded = case.rounded(P)
    for options in [{}, {"sample_weight": w}, {"threshold": 0.3}]:
        sw = options.get("sample_weight")
        rest = {k: v for k, v in options.items() if k != "sample_weight"}
        expected = M.compute_bin_stats(
            y,
            P_rounded,
            n_bins=4,
            multiclass=multiclass,
            strategy=strategy,
            sample_weight=None if sw is None else case.rounded(sw),
            **rest,
        )
        got = M.compute_bin_stats(
            case.asarray(y),
            case.asarray(P),
            n_bins=4,
            multiclass=multiclass,
            strategy=strategy,
            sample_weight=None if sw is None else case.asarray(sw),
            **rest,
        )
        np.testing.assert_array_equal(got.bin_edges, expected.bin_edges)
        np.testing.assert_allclose(got.count, expected.count, rtol=case.tolerance)
        np.testing.assert_allclose(got.sum_proba, expected.sum_proba, rtol=case.tolerance)
        np.testing.assert_allclose(got.sum_true, expected.sum_true, rtol=case.tolerance)
        assert got.total_weight == pytest.approx(expected.total_weight, rel=case.tolerance)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_reliability_curve_in_the_input_namespace(dispatch, case_id):
    case = Case(case_id)
    y, P = _data(seed=4)
    expected = M.reliability_curve(y, case.rounded(P), n_bins=5, confidence_level=0.9)
    got = M.reliability_curve(case.asarray(y), case.asarray(P), n_bins=5, confidence_level=0.9)
    for key in ["prob_true", "prob_pred", "bin_count", "bin_edges", "prob_true_low"]:
        value = got[key]
        assert type(value) is type(case.asarray(P))
        assert value.device == case.asarray(P).device
        np.testing.assert_allclose(
            to_numpy(value, case.module),
            expected[key],
            rtol=case.tolerance,
            atol=case.tolerance,
        )
    assert isinstance(got.bin_stats, M.BinStats)


def test_no_float64_device_computes_in_float32(dispatch):
    case = Case("strict-no_float64-float32")
    y, P = _data(seed=6)
    curve = M.reliability_curve(case.asarray(y), case.asarray(P), n_bins=5)
    assert curve.prob_true.dtype == case.module.float32
    value = M.negative_log_likelihood(case.asarray(y), case.asarray(P))
    assert value == pytest.approx(M.negative_log_likelihood(y, P.astype(np.float32)), rel=1e-5)


def test_integer_probabilities_become_floats(device1):
    y = np.array([0, 1, 1, 0])
    expected = M.brier_score(y, np.array([0, 1, 0, 0]))
    assert M.brier_score(device1.asarray(y), device1.asarray(np.array([0, 1, 0, 0]))) == expected


def test_dispatch_off_converts_to_numpy():
    """Without dispatch, tensors are converted to numpy as before; a tensor that
    requires grad is detached, not refused."""
    torch = import_library("torch")
    y, P = _data(seed=7)
    logits = torch.asarray(np.log(P), requires_grad=True)
    proba = torch.softmax(logits, dim=1)
    assert proba.requires_grad
    expected = M.expected_calibration_error(y, proba.detach().numpy())
    assert M.expected_calibration_error(torch.asarray(y), proba) == expected
    assert M.brier_score(y, proba) == M.brier_score(y, proba.detach().numpy())
    curve = M.reliability_curve(y, proba)
    assert isinstance(curve.prob_true, np.ndarray)


@pytest.mark.filterwarnings("error")
def test_requires_grad_under_dispatch(dispatch):
    torch = import_library("torch")
    y, P = _data(seed=8)
    proba = torch.softmax(torch.asarray(np.log(P), requires_grad=True), dim=1)
    expected = M.negative_log_likelihood(y, proba.detach().numpy())
    assert M.negative_log_likelihood(torch.asarray(y), proba) == pytest.approx(expected)
    w = torch.ones(len(y), dtype=torch.float64, requires_grad=True)
    assert M.brier_score(y, proba, sample_weight=w) == pytest.approx(
        M.brier_score(y, proba.detach().numpy())
    )


def test_other_metrics_take_a_host_copy(device1):
    """A metric without an array API path reads a host copy of device arrays under
    dispatch (it works where np.asarray would refuse)."""
    y, P = _data(seed=9)
    expected = M.monotonic_sweep_calibration_error(y, P)
    assert M.monotonic_sweep_calibration_error(device1.asarray(y), device1.asarray(P)) == (
        pytest.approx(expected, abs=1e-12)
    )


def test_pandas_and_lists_under_dispatch(dispatch):
    """Dispatch changes nothing for input that is not an array of another namespace."""
    pd = pytest.importorskip("pandas")
    y, p = [0, 1, 1, 0], [0.1, 0.8, 0.6, 0.4]
    assert M.expected_calibration_error(pd.Series(y), pd.Series(p), n_bins=2) == 0.275
    assert M.expected_calibration_error(y, p, n_bins=2) == 0.275
    curve = M.reliability_curve(y, np.asarray(p), n_bins=2)
    assert isinstance(curve.prob_true, np.ndarray)


def test_labels_on_another_device_are_refused(device1):
    y, P = _data(seed=10)
    other = Case("strict-cpu-float64")
    with pytest.raises(ValueError, match="different devices"):
        M.brier_score(other.asarray(y), device1.asarray(P))


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize(
    "metric",
    [
        M.area_under_risk_coverage,
        M.excess_area_under_risk_coverage,
        M.area_under_generalized_risk_coverage,
    ],
)
def test_risk_coverage_areas_with_ties_weights_and_uncertainty(dispatch, case_id, metric):
    """The areas on the device: tied scores form one group, zero weights remove a
    sample, a user's uncertainty (on the device or the host) ranks the samples."""
    case = Case(case_id)
    y, P = _data(seed=11, n=120)
    P[:30] = P[0]  # a tie group of 30 identical rows
    rng = np.random.default_rng(11)
    w = rng.random(len(y))
    w[::7] = 0.0
    u = np.round(rng.random(len(y)), 1)  # ties in the uncertainty too
    tol = case.tolerance
    P_r, w_r, u_r = case.rounded(P), case.rounded(w), case.rounded(u)
    for kwargs, kwargs_dev in [
        ({}, {}),
        ({"sample_weight": w_r}, {"sample_weight": case.asarray(w)}),
        ({"uncertainty": u_r}, {"uncertainty": case.asarray(u)}),
        ({"uncertainty": u_r}, {"uncertainty": u_r}),
    ]:
        expected = metric(y, P_r, **kwargs)
        got = metric(case.asarray(y), case.asarray(P), **kwargs_dev)
        assert type(got) is float
        assert got == pytest.approx(expected, rel=tol, abs=tol)
    with pytest.raises(ValueError, match="NaN or infinity"):
        metric(case.asarray(y), case.asarray(P), uncertainty=case.asarray(u * np.nan))


def test_other_selective_metrics_copy_a_device_uncertainty(device1):
    y, P = _data(seed=12)
    u = np.random.default_rng(12).random(len(y))
    expected = M.risk_at_coverage(y, P, coverage=0.5, uncertainty=u)
    got = M.risk_at_coverage(
        device1.asarray(y), device1.asarray(P), coverage=0.5, uncertainty=device1.asarray(u)
    )
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize(
    "values",
    [[0, 1], [-3, 7], [3, 7, 9], [0, 1, 2], [5, 70_000, 140_000], [True, False]],
    ids=["01", "pm", "gaps", "0k", "wide", "bool"],
)
def test_integer_labels_on_the_device_are_encoded_as_on_numpy(dispatch, case_id, values):
    """Classes found on the device (lookup table for a small range, sorted unique values
    for a wide one) and matched with labels=: the numpy values, and the missing label
    named."""
    case = Case(case_id)
    rng = np.random.default_rng(13)
    k = len(values)
    values = np.array(values)
    y = values[rng.integers(0, k, 150)]
    y[:k] = values
    P = rng.dirichlet(np.ones(k), size=150)
    P_r = case.rounded(P)
    tol = case.tolerance
    expected = M.brier_score(y, P_r)
    assert M.brier_score(case.asarray(y), case.asarray(P)) == pytest.approx(expected, rel=tol)
    order = values[::-1]
    expected = M.negative_log_likelihood(y, P_r, labels=order)
    got = M.negative_log_likelihood(case.asarray(y), case.asarray(P), labels=order)
    assert got == pytest.approx(expected, rel=tol)
    if k > 2:
        with pytest.raises(ValueError, match=f"labels not in labels .*: {values[-1]}$"):
            M.brier_score(
                case.asarray(y),
                case.asarray(P[:, :-1] / P[:, :-1].sum(1, keepdims=True)),
                labels=values[:-1],
            )
