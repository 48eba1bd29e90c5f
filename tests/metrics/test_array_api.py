"""Array API input of the metrics (doc/array_api.rst): validation in the namespace,
results in the input's namespace and device, the binning rule on the device, and the
unchanged behaviour with dispatch off.  The values of every registered metric against
numpy are checked by ``test_array_api_input_gives_the_numpy_value`` of
``tests/metrics/test_common.py``."""

from functools import partial

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import skcalib.metrics as M
from skcalib._core._array_api import to_numpy
from tests.utils.array_api_cases import CASE_IDS, Case, import_library, no_host_copy_of_the_data


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
        value = getattr(got, key)
        assert type(value) is type(case.asarray(P))
        assert value.device == case.asarray(P).device
        np.testing.assert_allclose(
            to_numpy(value, case.module),
            getattr(expected, key),
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


def _selective_data(case, seed=11, n=240):
    """Top-label input with a tie group of 30 identical rows, weights with zeros (a
    removal) and an uncertainty in [0, 1] with ties: the numpy input (rounded to the
    case's dtype) and the same numbers in the case's namespace.  More samples than the
    2 * 100 + 2 bin sums of the binned oracle-collaborative accuracy (which may travel
    to the host), so that the guard against a host copy tells them from the data."""
    y, P = _data(seed=seed, n=n)
    P[:30] = P[0]
    rng = np.random.default_rng(seed)
    w = rng.random(len(y))
    w[::7] = 0.0
    u = np.round(rng.random(len(y)), 1)
    host = {"P": case.rounded(P), "w": case.rounded(w), "u": case.rounded(u)}
    dev = {"P": case.asarray(P), "w": case.asarray(w), "u": case.asarray(u)}
    return y, host, dev


def _selective_options(host, dev):
    """(numpy keyword arguments, the same for the namespace): weights, uncertainty on
    the device and on the host, both."""
    return [
        ({}, {}),
        ({"sample_weight": host["w"]}, {"sample_weight": dev["w"]}),
        ({"uncertainty": host["u"]}, {"uncertainty": dev["u"]}),
        ({"uncertainty": host["u"]}, {"uncertainty": host["u"]}),
        (
            {"uncertainty": host["u"], "sample_weight": host["w"]},
            {"uncertainty": dev["u"], "sample_weight": dev["w"]},
        ),
    ]


SELECTIVE_SCALARS = {
    "area_under_risk_coverage": M.area_under_risk_coverage,
    "excess_area_under_risk_coverage": M.excess_area_under_risk_coverage,
    "area_under_generalized_risk_coverage": M.area_under_generalized_risk_coverage,
    "risk_at_coverage": partial(M.risk_at_coverage, coverage=0.55),
    "oracle_collaborative_accuracy": partial(M.oracle_collaborative_accuracy, fraction=0.3),
    "oracle_collaborative_accuracy_exact": partial(
        M.oracle_collaborative_accuracy, fraction=0.3, n_bins=None
    ),
    "uncertainty_auc": M.uncertainty_auc,
    "uncertainty_auc_pr": partial(M.uncertainty_auc, curve="pr"),
}


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("name", sorted(SELECTIVE_SCALARS))
def test_selective_metrics_with_ties_weights_and_uncertainty(dispatch, monkeypatch, case_id, name):
    """The selective metrics on the device: tied scores form one group, zero weights
    remove a sample, a user's uncertainty (on the device or the host) ranks the
    samples; the value is the numpy one and nothing as long as the data is copied to
    the host."""
    case = Case(case_id)
    metric = SELECTIVE_SCALARS[name]
    y, host, dev = _selective_data(case)
    no_host_copy_of_the_data(monkeypatch, len(y))
    tol = case.tolerance
    for kwargs, kwargs_dev in _selective_options(host, dev):
        expected = metric(y, host["P"], **kwargs)
        got = metric(case.asarray(y), dev["P"], **kwargs_dev)
        assert type(got) is float
        assert got == pytest.approx(expected, rel=tol, abs=tol)
    with pytest.raises(ValueError, match="NaN or infinity"):
        metric(case.asarray(y), dev["P"], uncertainty=case.asarray(host["u"] * np.nan))
    with pytest.raises(ValueError, match="must be a 1-D array"):
        metric(case.asarray(y), dev["P"], uncertainty=dev["P"])
    with pytest.raises(ValueError, match="different numbers of samples"):
        metric(case.asarray(y), dev["P"], uncertainty=dev["u"][:-1])


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_rejection_curve_in_the_input_namespace(dispatch, monkeypatch, case_id):
    """The arrays of the rejection curve are of the input's namespace and device and
    equal the numpy curve (one point per tie group)."""
    case = Case(case_id)
    y, host, dev = _selective_data(case, seed=13)
    no_host_copy_of_the_data(monkeypatch, len(y))
    ref = case.asarray(host["P"])
    keys = ["fraction_rejected", "accuracy", "oracle_accuracy", "coverage", "thresholds"]
    for kwargs, kwargs_dev in _selective_options(host, dev):
        expected = M.rejection_curve(y, host["P"], **kwargs)
        got = M.rejection_curve(case.asarray(y), dev["P"], **kwargs_dev)
        assert type(got.base_accuracy) is float
        assert got.base_accuracy == pytest.approx(expected.base_accuracy, rel=case.tolerance)
        for key in keys:
            value = getattr(got, key)
            assert type(value) is type(ref)
            assert value.device == ref.device
            np.testing.assert_allclose(
                to_numpy(value, case.module),
                getattr(expected, key),
                rtol=case.tolerance,
                atol=case.tolerance,
            )
    # the 30 tied rows are one point, the samples of weight 0 none
    curve = M.rejection_curve(case.asarray(y), dev["P"], sample_weight=dev["w"])
    assert curve.accuracy.shape[0] == np.unique(host["P"][host["w"] > 0].max(axis=1)).shape[0]


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auc_on_the_device_equals_sklearn(dispatch, monkeypatch, case_id, seed):
    """ROC AUC (trapezoid over the tie groups) and average precision (sklearn's step
    sum, no interpolation) on the device equal sklearn's roc_auc_score and
    average_precision_score of the errors against the uncertainty, with many ties and
    weights (zeros included)."""
    case = Case(case_id)
    rng = np.random.default_rng(seed)
    n = 300
    P = rng.dirichlet(np.ones(3), size=n)
    y = rng.integers(0, 3, size=n)
    u = case.rounded(rng.integers(0, 12, size=n) / 11)  # 12 values: large tie groups
    w = case.rounded(rng.random(n) * (rng.random(n) > 0.1))
    wrong = P.argmax(axis=1) != y
    no_host_copy_of_the_data(monkeypatch, n)
    for sw, sw_dev in [(None, None), (w, case.asarray(w))]:
        for curve, reference in [("roc", roc_auc_score), ("pr", average_precision_score)]:
            expected = reference(wrong, u, sample_weight=sw)
            got = M.uncertainty_auc(
                case.asarray(y),
                case.asarray(P),
                uncertainty=case.asarray(u),
                sample_weight=sw_dev,
                curve=curve,
            )
            assert type(got) is float
            assert got == pytest.approx(expected, rel=case.tolerance, abs=case.tolerance)
    # no errors: nothing to detect
    with pytest.raises(ValueError, match="every prediction is correct"):
        M.uncertainty_auc(case.asarray(P.argmax(axis=1)), case.asarray(P))


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("curve", ["roc", "pr"])
def test_out_of_distribution_auc_on_the_device(dispatch, monkeypatch, case_id, curve):
    """out_of_distribution_auc of device input equals its numpy value and sklearn's,
    with probabilities, uncertainties (one side's or both), weights, and host arrays
    beside device ones."""
    case = Case(case_id)
    rng = np.random.default_rng(21)
    p_in = rng.dirichlet(np.ones(3) * 0.5, size=150)
    p_out = rng.dirichlet(np.ones(3) * 2.0, size=90)
    p_out[:20] = p_in[0]  # ties across the two sides
    u_in = np.round(rng.random(150), 1)
    u_out = np.round(rng.random(90) * 0.8 + 0.2, 1)
    w_in = rng.random(150)
    w_in[::5] = 0.0
    w_out = rng.random(90)
    numbers = {"p_in": p_in, "p_out": p_out, "u_in": u_in, "u_out": u_out}
    h = {k: case.rounded(v) for k, v in {**numbers, "w_in": w_in, "w_out": w_out}.items()}
    d = {k: case.asarray(v) for k, v in h.items()}
    no_host_copy_of_the_data(monkeypatch, 90)
    for names, host_names in [
        (("p_in", "p_out"), ()),
        (("p_in", "p_out", "w_in"), ()),
        (("p_in", "p_out", "w_in", "w_out"), ("w_out",)),
        (("u_in", "u_out"), ()),
        (("u_in", "u_out", "w_out"), ()),
        (("p_in", "p_out", "u_out"), ()),  # one side's uncertainty, the other's default
        (("p_in", "p_out", "u_in"), ("p_out",)),
        (("p_in", "u_out"), ("p_in",)),
    ]:
        keyword = {
            "p_in": "y_proba_in",
            "p_out": "y_proba_out",
            "u_in": "uncertainty_in",
            "u_out": "uncertainty_out",
            "w_in": "sample_weight_in",
            "w_out": "sample_weight_out",
        }
        kwargs = {keyword[k]: h[k] for k in names}
        kwargs_dev = {keyword[k]: h[k] if k in host_names else d[k] for k in names}
        expected = M.out_of_distribution_auc(curve=curve, **kwargs)
        got = M.out_of_distribution_auc(curve=curve, **kwargs_dev)
        assert type(got) is float
        assert got == pytest.approx(expected, rel=case.tolerance, abs=case.tolerance)
    # against sklearn directly: the labels [0] * n_in + [1] * n_out
    labels = np.r_[np.zeros(150), np.ones(90)]
    reference = roc_auc_score if curve == "roc" else average_precision_score
    expected = reference(
        labels, np.r_[h["u_in"], h["u_out"]], sample_weight=np.r_[h["w_in"], h["w_out"]]
    )
    got = M.out_of_distribution_auc(
        uncertainty_in=d["u_in"],
        uncertainty_out=d["u_out"],
        sample_weight_in=d["w_in"],
        sample_weight_out=d["w_out"],
        curve=curve,
    )
    assert got == pytest.approx(expected, rel=case.tolerance, abs=case.tolerance)


def test_out_of_distribution_auc_bad_input_on_the_device(device1):
    rng = np.random.default_rng(22)
    p_in, p_out = rng.dirichlet(np.ones(3), size=20), rng.dirichlet(np.ones(3), size=10)
    u_out = rng.random(10)
    dev = device1.asarray
    with pytest.raises(ValueError, match="uncertainty_out contains NaN"):
        M.out_of_distribution_auc(dev(p_in), dev(p_out), uncertainty_out=dev(u_out * np.nan))
    with pytest.raises(ValueError, match="y_proba_out and uncertainty_out have different"):
        M.out_of_distribution_auc(dev(p_in), dev(p_out), uncertainty_out=dev(u_out[:-1]))
    with pytest.raises(ValueError, match="y_proba_in rows must sum to 1"):
        M.out_of_distribution_auc(dev(p_in * 1.1), dev(p_out))
    with pytest.raises(ValueError, match="sample_weight_in must be non-negative"):
        M.out_of_distribution_auc(dev(p_in), dev(p_out), sample_weight_in=dev(-np.ones(20)))
    with pytest.raises(ValueError, match="sample_weight_out has 3 elements"):
        M.out_of_distribution_auc(dev(p_in), dev(p_out), sample_weight_out=dev(np.ones(3)))
    with pytest.raises(ValueError, match="sample_weight_out sums to zero"):
        M.out_of_distribution_auc(dev(p_in), dev(p_out), sample_weight_out=np.zeros(10))
    with pytest.raises(ValueError, match="needs y_proba_in"):
        M.out_of_distribution_auc(None, dev(p_out))


def test_binned_oca_names_an_uncertainty_outside_0_1_on_the_device(device1):
    y, P = _data(seed=23)
    u = np.random.default_rng(23).random(len(y))
    u[[5, 9]] = [1.5, -0.2]
    with pytest.raises(ValueError, match=r"uncertainty\[5\] = 1.5"):
        M.oracle_collaborative_accuracy(
            device1.asarray(y), device1.asarray(P), uncertainty=device1.asarray(u)
        )


def test_device_uncertainty_of_numpy_probabilities_is_copied(device1):
    """Numpy probabilities keep the numpy path: an uncertainty on a device is copied to
    the host (a few numbers beside data that is already there)."""
    y, P = _data(seed=12)
    u = np.random.default_rng(12).random(len(y))
    expected = M.risk_at_coverage(y, P, coverage=0.5, uncertainty=u)
    got = M.risk_at_coverage(y, P, coverage=0.5, uncertainty=device1.asarray(u))
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


@pytest.mark.parametrize(
    "case_id",
    [c for c in CASE_IDS if c.endswith("float32") and "no_float64" not in c],
)
def test_weighted_equal_mass_edges_of_float32_input_equal_float64_numpy(dispatch, case_id):
    """The cumulative weights of equal-mass edges are summed in float64 where the
    device has it: float32 input gets the edges (and the RMSCE) of numpy's float64
    computation on the same values, not edges pulled down by float32 rounding."""
    from skcalib._core._binning import quantile_edges

    case = Case(case_id)
    rng = np.random.default_rng(7)
    n = 200_000
    p = case.rounded(rng.random(n))
    y = (rng.random(n) < p).astype(np.int64)
    w = case.rounded(rng.random(n) + 0.5)
    p64, w64 = p.astype(np.float64), w.astype(np.float64)
    expected = quantile_edges(p64, 15, w64)
    got = quantile_edges(case.asarray(p), 15, case.asarray(w))
    np.testing.assert_array_equal(got, expected)
    rms = M.root_mean_squared_calibration_error(y, p64, sample_weight=w64)
    got_rms = M.root_mean_squared_calibration_error(
        case.asarray(y), case.asarray(p), sample_weight=case.asarray(w)
    )
    assert got_rms == pytest.approx(rms, rel=1e-9)
    stats = M.compute_bin_stats(y, p64, strategy="quantile", sample_weight=w64)
    got_stats = M.compute_bin_stats(
        case.asarray(y), case.asarray(p), strategy="quantile", sample_weight=case.asarray(w)
    )
    np.testing.assert_array_equal(got_stats.bin_edges, stats.bin_edges)
