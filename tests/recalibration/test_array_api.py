"""TemperatureScaling, VectorScaling and MatrixScaling on the array API: with
``array_api_dispatch=True`` they fit and predict in the namespace and on the device of
``X``, and agree with the numpy fit.

``array_api_strict``'s ``device1`` refuses conversion to numpy as a GPU tensor does, so
a test passing there shows that no hidden conversion of ``X`` happens; its
``no_float64`` device stands for devices without float64 (Apple MPS).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from skcalib._core._array_api import (
    get_namespace_and_device,
    max_float_dtype,
    namespace_name,
    to_numpy,
)
from skcalib.recalibration import MatrixScaling, TemperatureScaling, VectorScaling
from tests.utils.array_api_cases import CASE_IDS, Case, import_library

xps = pytest.importorskip("array_api_strict")


#: the cases X is given in (numpy floats cast to the case's dtype)
NAMESPACES = [c for c in CASE_IDS if c != "strict-device1-float32"]
#: relative agreement of the fitted temperature with the numpy fit of the same dtype
RTOL = {"float64": 1e-12, "float32": 1e-7}


def _data(n=3000, k=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    Z = 3 * rng.standard_normal((n, k))
    Z[np.arange(n), y] += 2  # informative, overconfident logits: T about 4.2
    return Z, y, rng.uniform(0.1, 2.0, n)


def _host(a):
    xp, _ = get_namespace_and_device(a)
    return to_numpy(a, xp)


def _assert_follows(result, X):
    """``result`` is in the namespace and on the device of ``X``."""
    xp_r, dev_r = get_namespace_and_device(result)
    xp_x, dev_x = get_namespace_and_device(X)
    assert namespace_name(xp_r) == namespace_name(xp_x)
    assert dev_r == dev_x


@pytest.mark.parametrize("case_id", NAMESPACES)
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_and_predict_follow_the_namespace_and_agree_with_numpy(dispatch, case_id, weighted):
    case = Case(case_id)
    convert, dtype = case.asarray, case.dtype_name
    Z, y, w = _data()
    Z = Z.astype(dtype)
    w = w.astype(dtype) if weighted else None
    ref = TemperatureScaling().fit(Z, y, w)
    X = convert(Z)
    ts = TemperatureScaling().fit(X, convert(y), None if w is None else convert(w))
    assert isinstance(ts.temperature_, float)
    assert 3.5 < ts.temperature_ < 5.0  # overconfident
    assert ts.temperature_ == pytest.approx(ref.temperature_, rel=RTOL[dtype])
    assert ts.input_type_ == "logits"
    assert ts.n_features_in_ == 5
    proba = ts.predict_proba(X)
    _assert_follows(proba, X)
    assert str(proba.dtype).endswith(dtype)
    assert_allclose(_host(proba), ref.predict_proba(Z), rtol=0, atol=10 * RTOL[dtype])
    labels = ts.predict(X)
    _assert_follows(labels, X)
    assert_allclose(_host(labels), ref.predict(Z))


@pytest.mark.parametrize("case_id", NAMESPACES)
def test_probabilities_and_binary_inputs(dispatch, case_id):
    case = Case(case_id)
    convert, dtype = case.asarray, case.dtype_name
    Z, y, _ = _data(k=3)
    P = TemperatureScaling(input="logits").fit(Z, y).predict_proba(3 * Z).astype(dtype)
    ref = TemperatureScaling().fit(P, y)
    ts = TemperatureScaling().fit(convert(P), convert(y))  # input="auto": probabilities
    assert ts.input_type_ == ref.input_type_ == "proba"
    assert ts.temperature_ == pytest.approx(ref.temperature_, rel=RTOL[dtype])
    assert_allclose(
        _host(ts.predict_proba(convert(P))), ref.predict_proba(P), atol=10 * RTOL[dtype]
    )
    # 1-D: the log-odds of the positive class, and the probability of it
    yb = (y == 0).astype(int)
    d = (Z[:, 0] - Z[:, 1]).astype(dtype)
    p = (1 / (1 + np.exp(-d))).astype(dtype)
    for x1, kind in [(d, "logits"), (p, "proba")]:
        ref = TemperatureScaling(input=kind).fit(x1, yb)
        ts = TemperatureScaling(input=kind).fit(convert(x1), convert(yb))
        assert ts.temperature_ == pytest.approx(ref.temperature_, rel=RTOL[dtype])
        proba = ts.predict_proba(convert(x1))
        assert tuple(proba.shape) == (x1.shape[0], 2)
        assert_allclose(_host(proba), ref.predict_proba(x1), atol=10 * RTOL[dtype])


@pytest.mark.parametrize("device", ["CPU_DEVICE", "device1"])
def test_many_chunks(dispatch, monkeypatch, device):
    # chunks of a few rows (CPU devices use the chunk size of the numpy path, the
    # others a larger one), the last one shorter: the same fit and probabilities
    from skcalib.recalibration import _temperature

    monkeypatch.setattr(_temperature, "SCAN_CHUNK_BYTES", 7 * 5 * 8)
    monkeypatch.setattr(_temperature, "XP_CHUNK_BYTES", 7 * 5 * 8)
    Z, y, w = _data(n=1000)
    ref = TemperatureScaling().fit(Z, y, w)
    X = xps.asarray(Z, device=xps.Device(device))
    ts = TemperatureScaling().fit(X, y, w)
    assert ts.temperature_ == pytest.approx(ref.temperature_, rel=1e-12)
    assert_allclose(_host(ts.predict_proba(X)), ref.predict_proba(Z), rtol=1e-12)
    assert len(_temperature._xp_row_chunks(1000, 5, X.dtype, xps, X.device)) == 143


def test_golden_value_on_a_device_without_numpy_conversion(dispatch):
    # the example of TemperatureScaling's docstring (numpy: 1.9125); device1 refuses
    # np.asarray, so no step of fit or predict converts X to numpy
    X = xps.asarray([[4.0, 0.0], [3.0, 1.0], [0.0, 2.0], [2.0, 0.0]], device=xps.Device("device1"))
    with pytest.raises((RuntimeError, TypeError, ValueError)):
        np.asarray(X)
    ts = TemperatureScaling(input="logits").fit(X, xps.asarray([0, 1, 1, 0], device=X.device))
    assert round(ts.temperature_, 4) == 1.9125
    assert ts.predict(X).device == X.device
    assert _host(ts.predict(X)).tolist() == [0, 0, 1, 0]


def test_device_without_float64_computes_in_float32(dispatch):
    Z, y, w = _data()
    dev = xps.Device("no_float64")
    Xi = xps.asarray(np.rint(Z).astype(np.int64), device=dev)  # integers: float32 here
    ts = TemperatureScaling().fit(Xi, y, xps.asarray(w.astype(np.float32), device=dev))
    proba = ts.predict_proba(Xi)
    assert proba.dtype == xps.float32
    ref = TemperatureScaling().fit(np.rint(Z), y, w)  # float64 on numpy
    assert ts.temperature_ == pytest.approx(ref.temperature_, rel=1e-6)


def test_y_and_sample_weight_of_other_namespaces(dispatch):
    # y and sample_weight follow X: numpy, lists, or arrays of another device
    Z, y, w = _data()
    ref = TemperatureScaling().fit(Z, y, w)
    X = xps.asarray(Z, device=xps.Device("device1"))
    for yy, ww in [(y, w), (y.tolist(), w.tolist()), (xps.asarray(y), xps.asarray(w))]:
        ts = TemperatureScaling().fit(X, yy, ww)
        assert ts.temperature_ == pytest.approx(ref.temperature_, rel=1e-12)


def test_string_labels_come_back_as_numpy(dispatch):
    Z, y, _ = _data(k=3)
    labels = np.array(["cat", "dog", "eel"])[y]
    X = xps.asarray(Z, device=xps.Device("device1"))
    ts = TemperatureScaling().fit(X, labels)
    ref = TemperatureScaling().fit(Z, labels)
    assert ts.predict(X).tolist() == ref.predict(Z).tolist()


def test_fitted_temperature_is_a_float_valid_in_every_namespace(dispatch):
    Z, y, _ = _data()
    ts = TemperatureScaling().fit(xps.asarray(Z, device=xps.Device("device1")), y)
    ref = TemperatureScaling().fit(Z, y)
    assert_allclose(ts.predict_proba(Z), ref.predict_proba(Z), rtol=1e-12)  # numpy
    torch = import_library("torch")
    assert isinstance(ts.predict_proba(torch.asarray(Z)), torch.Tensor)


@pytest.mark.parametrize("cls", [TemperatureScaling, VectorScaling, MatrixScaling])
def test_bad_input_raises_on_the_device(dispatch, cls):
    Z, y, _ = _data(n=50, k=3)
    dev = xps.Device("device1")
    bad = Z.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN \(first at index 7, 2\)"):
        cls().fit(xps.asarray(bad, device=dev), y)
    bad[7, 2] = np.inf
    with pytest.raises(ValueError, match=r"X contains infinity \(first at index 7, 2\)"):
        cls().fit(xps.asarray(bad, device=dev), y)
    ts = cls().fit(xps.asarray(Z, device=dev), y)
    with pytest.raises(ValueError, match=r"X contains NaN \(first at index 7, 2\)"):
        ts.predict_proba(xps.asarray(np.where(np.isinf(bad), np.nan, bad), device=dev))
    with pytest.raises(ValueError, match=r"X contains infinity"):
        ts.predict_proba(xps.asarray(bad, device=dev))
    with pytest.raises(ValueError, match=f"X has 2 features, but {cls.__name__} is expecting 3"):
        ts.predict_proba(xps.asarray(Z[:, :2], device=dev))
    with pytest.raises(ValueError, match="y and X have different numbers of samples"):
        cls().fit(xps.asarray(Z, device=dev), y[:-1])
    with pytest.raises(ValueError, match="dim 3"):
        cls().fit(xps.asarray(Z.reshape(50, 3, 1), device=dev), y)
    # probabilities: the bad entry is named, as on numpy
    P = np.full((50, 3), 1 / 3)
    P[4] = [0.5, 0.6, -0.1]
    with pytest.raises(ValueError, match="input='proba' says X holds probabilities"):
        cls(input="proba").fit(xps.asarray(P, device=dev), y)
    # entries in [0, 1] whose rows do not sum to 1: ambiguous, as on numpy
    with pytest.raises(ValueError, match="cannot tell whether X holds probabilities"):
        cls().fit(xps.asarray(np.full((50, 3), 0.3), device=dev), y)


def test_bounds_warn_as_on_numpy(dispatch):
    # the argmax right on every sample: the NLL decreases all the way to T -> 0
    Z, y, _ = _data(n=200, k=3)
    Z[np.arange(200), y] += 100
    with pytest.warns(ConvergenceWarning, match="lower bound 0.0001"):
        ts = TemperatureScaling().fit(xps.asarray(Z, device=xps.Device("device1")), y)
    assert ts.temperature_ == 1e-4


def test_torch_tensor_requiring_grad(dispatch):
    torch = import_library("torch")
    Z, y, _ = _data()
    t = torch.tensor(Z, requires_grad=True)
    ts = TemperatureScaling().fit(t, torch.asarray(y))
    proba = ts.predict_proba(t)
    assert isinstance(proba, torch.Tensor) and not proba.requires_grad
    assert ts.temperature_ == pytest.approx(TemperatureScaling().fit(Z, y).temperature_, rel=1e-12)
    assert t.grad is None


def test_dispatch_off_is_the_numpy_path():
    # without dispatch, arrays of other namespaces are converted to numpy (a tensor
    # requiring grad is detached) and the results are numpy arrays
    torch = import_library("torch")
    Z, y, _ = _data()
    ref = TemperatureScaling().fit(Z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ts = TemperatureScaling().fit(torch.tensor(Z, requires_grad=True), torch.asarray(y))
    assert ts.temperature_ == ref.temperature_
    proba = ts.predict_proba(torch.tensor(Z, requires_grad=True))
    assert isinstance(proba, np.ndarray)
    assert_allclose(proba, ref.predict_proba(Z), rtol=0, atol=0)


@pytest.mark.parametrize("cls", [TemperatureScaling, VectorScaling, MatrixScaling])
def test_array_api_support_tag(cls):
    assert cls().__sklearn_tags__().array_api_support


# --------------------------------------------------------------------------------------
# VectorScaling and MatrixScaling: the L-BFGS and Newton-CG iteration of the numpy path
# on host parameters, every pass over the logits in the namespace of X
# --------------------------------------------------------------------------------------

AFFINE = [VectorScaling, MatrixScaling]

#: agreement of the fitted parameters with the numpy fit of the same (dtype-rounded)
#: input, relative to their largest magnitude: the fit runs in float64 where the
#: device has it, as the numpy path does, and converges to machine precision (seen:
#: 1e-14); in float32 (a device without float64) the loss and gradient carry rounding
#: errors of about 1e-7, the iteration stops at a gradient of about 1e-5, and the
#: parameters move by the inverse Hessian times that (seen: up to 2e-5 on these data)
PARAM_RTOL = {"float64": 1e-8, "float32": 1e-4}
#: agreement of the probabilities (computed in the dtype of X) with the numpy ones
PROBA_ATOL = {"float64": 1e-10, "float32": 2e-5}


def _params(est):
    """``coef_`` and ``intercept_`` of a fitted calibrator, as one host vector."""
    return np.concatenate([_host(est.coef_).ravel(), _host(est.intercept_)])


def _assert_params_close(est, ref, computed_in):
    theta, theta_ref = _params(est), _params(ref)
    scale = np.max(np.abs(theta_ref))
    assert np.max(np.abs(theta - theta_ref)) <= PARAM_RTOL[computed_in] * scale


def _computed_in(est, X):
    """The dtype the fit ran in: the largest float dtype of the device of X, which the
    fitted arrays carry."""
    xp, device = get_namespace_and_device(X)
    top = max_float_dtype(xp, device)
    assert est.coef_.dtype == top and est.intercept_.dtype == top
    return "float32" if top == xp.float32 else "float64"


@pytest.mark.parametrize("cls", AFFINE)
@pytest.mark.parametrize("case_id", NAMESPACES)
@pytest.mark.parametrize("weighted", [False, True])
def test_affine_fit_and_predict_follow_the_namespace_and_agree_with_numpy(
    dispatch, cls, case_id, weighted
):
    case = Case(case_id)
    convert, dtype = case.asarray, case.dtype_name
    Z, y, w = _data()
    Z = Z.astype(dtype)
    w = w.astype(dtype) if weighted else None
    ref = cls().fit(Z, y, w)
    X = convert(Z)
    est = cls().fit(X, convert(y), None if w is None else convert(w))
    # the fitted arrays follow the namespace and the device of X, as scikit-learn's do
    for a in (est.coef_, est.intercept_):
        _assert_follows(a, X)
    assert tuple(est.coef_.shape) == ref.coef_.shape
    computed_in = _computed_in(est, X)
    _assert_params_close(est, ref, computed_in)
    if cls is VectorScaling:
        assert np.all((_host(est.coef_) > 0.15) & (_host(est.coef_) < 0.35))  # T about 4.2
    assert est.input_type_ == "logits" and est.n_features_in_ == 5
    proba = est.predict_proba(X)
    _assert_follows(proba, X)
    assert str(proba.dtype).endswith(dtype)
    ref_proba = ref.predict_proba(Z)
    atol = PROBA_ATOL[computed_in] if dtype == "float64" else PROBA_ATOL["float32"]
    assert_allclose(_host(proba), ref_proba, rtol=0, atol=atol)
    labels = est.predict(X)
    _assert_follows(labels, X)
    top2 = np.sort(ref_proba, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 10 * atol  # no near-tie the rounding could flip
    assert clear.mean() > 0.99
    assert_allclose(_host(labels)[clear], ref.predict(Z)[clear])


@pytest.mark.parametrize("cls", AFFINE)
@pytest.mark.parametrize("case_id", NAMESPACES)
def test_affine_probabilities_and_binary_inputs(dispatch, cls, case_id):
    case = Case(case_id)
    convert, dtype = case.asarray, case.dtype_name
    Z, y, _ = _data(k=3)
    P = TemperatureScaling(input="logits").fit(Z, y).predict_proba(3 * Z).astype(dtype)
    ref = cls().fit(P, y)
    est = cls().fit(convert(P), convert(y))  # input="auto": probabilities
    assert est.input_type_ == ref.input_type_ == "proba"
    computed_in = _computed_in(est, convert(P))
    _assert_params_close(est, ref, computed_in)
    assert_allclose(_host(est.predict_proba(convert(P))), ref.predict_proba(P), atol=1e-4)
    # 1-D: the log-odds of the positive class, and the probability of it
    yb = (y == 0).astype(int)
    d = (Z[:, 0] - Z[:, 1]).astype(dtype)
    p = (1 / (1 + np.exp(-d))).astype(dtype)
    for x1, kind in [(d, "logits"), (p, "proba")]:
        ref = cls(input=kind).fit(x1, yb)
        est = cls(input=kind).fit(convert(x1), convert(yb))
        assert tuple(est.coef_.shape) == ref.coef_.shape  # 2 classes: [0, x]
        _assert_params_close(est, ref, computed_in)
        proba = est.predict_proba(convert(x1))
        _assert_follows(proba, convert(x1))
        assert tuple(proba.shape) == (x1.shape[0], 2)
        assert_allclose(_host(proba), ref.predict_proba(x1), atol=1e-4)


def test_binary_vector_scaling_is_logistic_regression_on_the_device(dispatch):
    # unpenalised vector scaling of the logits [0, x] is sigmoid(w x + b) fitted by
    # maximum likelihood: the probabilities of scikit-learn's unpenalised
    # LogisticRegression on x (an independent fit, to its tolerance), on device1,
    # which refuses any conversion of X to numpy
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    x = rng.normal(size=400) * 2
    yb = (rng.uniform(size=400) < 1 / (1 + np.exp(-0.5 * x + 0.3))).astype(int)
    lr = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000).fit(x[:, None], yb)
    X = xps.asarray(x, device=xps.Device("device1"))
    vs = VectorScaling(alpha=0.0, input="logits").fit(X, xps.asarray(yb, device=X.device))
    proba = vs.predict_proba(X)
    assert proba.device == X.device
    assert_allclose(_host(proba), lr.predict_proba(x[:, None]), rtol=0, atol=1e-7)
    # the slope and intercept of the log-odds: w_1 and b_1 - b_0
    w, b = _host(vs.coef_), _host(vs.intercept_)
    assert w[1] == pytest.approx(lr.coef_[0, 0], rel=1e-6)
    assert b[1] - b[0] == pytest.approx(lr.intercept_[0], rel=1e-6)


@pytest.mark.parametrize("cls", AFFINE)
@pytest.mark.parametrize("device", ["CPU_DEVICE", "device1"])
def test_affine_many_chunks(dispatch, monkeypatch, cls, device):
    # chunks of a few rows, the last one shorter: the same fit and probabilities
    from skcalib.recalibration import _temperature

    monkeypatch.setattr(_temperature, "SCAN_CHUNK_BYTES", 7 * 5 * 8)
    monkeypatch.setattr(_temperature, "XP_CHUNK_BYTES", 7 * 5 * 8)
    Z, y, w = _data(n=1000)
    ref = cls().fit(Z, y, w)
    X = xps.asarray(Z, device=xps.Device(device))
    est = cls().fit(X, y, w)
    _assert_params_close(est, ref, "float64")
    assert_allclose(_host(est.predict_proba(X)), ref.predict_proba(Z), rtol=1e-10)


@pytest.mark.parametrize("cls", AFFINE)
def test_affine_parameters_serve_every_namespace(dispatch, cls):
    # fitted on device1, the parameters predict numpy and PyTorch input (moved there);
    # fitted on numpy, they predict on device1
    Z, y, _ = _data(k=3)
    dev = xps.Device("device1")
    est = cls().fit(xps.asarray(Z, device=dev), y)
    ref = cls().fit(Z, y)
    expected = ref.predict_proba(Z)
    assert isinstance(est.predict_proba(Z), np.ndarray)
    assert_allclose(est.predict_proba(Z), expected, atol=1e-12)
    on_device = ref.predict_proba(xps.asarray(Z, device=dev))
    assert on_device.device == dev
    assert_allclose(_host(on_device), expected, atol=1e-12)
    torch = import_library("torch")
    t = est.predict_proba(torch.asarray(Z, dtype=torch.float32))
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float32
    assert_allclose(t.numpy(), expected, atol=1e-6)


@pytest.mark.parametrize("cls", AFFINE)
def test_affine_parameters_fitted_on_a_device_predict_with_dispatch_off(cls, monkeypatch):
    torch = import_library("torch")
    from tests.utils.array_api_cases import array_api_dispatch

    Z, y, _ = _data(k=3)
    with array_api_dispatch(monkeypatch):
        est = cls().fit(torch.asarray(Z), torch.asarray(y))
    assert isinstance(est.coef_, torch.Tensor)
    proba = est.predict_proba(Z)  # dispatch off: numpy, parameters copied to the host
    assert isinstance(proba, np.ndarray)
    assert_allclose(proba, cls().fit(Z, y).predict_proba(Z), atol=1e-12)


@pytest.mark.parametrize("cls", AFFINE)
def test_affine_y_and_weights_of_other_namespaces_and_grad_tensors(dispatch, cls):
    torch = import_library("torch")
    Z, y, w = _data(k=3)
    ref = cls().fit(Z, y, w)
    t = torch.tensor(Z, requires_grad=True)
    for yy, ww in [(y, w), (y.tolist(), w.tolist()), (xps.asarray(y), xps.asarray(w))]:
        est = cls().fit(t, yy, ww)
        _assert_params_close(est, ref, "float64")
        assert not est.coef_.requires_grad
    proba = est.predict_proba(t)
    assert isinstance(proba, torch.Tensor) and not proba.requires_grad
    assert t.grad is None


@pytest.mark.parametrize("cls", AFFINE)
def test_affine_integer_logits_on_a_device_without_float64(dispatch, cls):
    Z, y, w = _data()
    dev = xps.Device("no_float64")
    Xi = xps.asarray(np.rint(Z).astype(np.int64), device=dev)  # integers: float32 here
    est = cls().fit(Xi, y, xps.asarray(w.astype(np.float32), device=dev))
    assert est.coef_.dtype == xps.float32
    assert est.predict_proba(Xi).dtype == xps.float32
    ref = cls().fit(np.rint(Z), y, w)  # float64 on numpy
    _assert_params_close(est, ref, "float32")
