"""TemperatureScaling on the array API: with ``array_api_dispatch=True`` it fits and
predicts in the namespace and on the device of ``X``, and agrees with the numpy fit.

``array_api_strict``'s ``device1`` refuses conversion to numpy as a GPU tensor does, so
a test passing there shows that no hidden conversion of ``X`` happens; its
``no_float64`` device stands for devices without float64 (Apple MPS).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import ConvergenceWarning

from skcalib.recalibration import TemperatureScaling
from skcalib.utils._array_api import get_namespace_and_device, namespace_name, to_numpy
from tests.utils.array_api_cases import CASE_IDS, Case

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
    torch = pytest.importorskip("torch")
    assert isinstance(ts.predict_proba(torch.asarray(Z)), torch.Tensor)


def test_bad_input_raises_on_the_device(dispatch):
    Z, y, _ = _data(n=50, k=3)
    dev = xps.Device("device1")
    bad = Z.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN \(first at index 7, 2\)"):
        TemperatureScaling().fit(xps.asarray(bad, device=dev), y)
    bad[7, 2] = np.inf
    with pytest.raises(ValueError, match=r"X contains infinity \(first at index 7, 2\)"):
        TemperatureScaling().fit(xps.asarray(bad, device=dev), y)
    ts = TemperatureScaling().fit(xps.asarray(Z, device=dev), y)
    with pytest.raises(ValueError, match=r"X contains infinity"):
        ts.predict_proba(xps.asarray(bad, device=dev))
    with pytest.raises(ValueError, match="X has 2 features, but TemperatureScaling is expecting 3"):
        ts.predict_proba(xps.asarray(Z[:, :2], device=dev))
    with pytest.raises(ValueError, match="y and X have different numbers of samples"):
        TemperatureScaling().fit(xps.asarray(Z, device=dev), y[:-1])
    with pytest.raises(ValueError, match="dim 3"):
        TemperatureScaling().fit(xps.asarray(Z.reshape(50, 3, 1), device=dev), y)
    # probabilities: the bad entry is named, as on numpy
    P = np.full((50, 3), 1 / 3)
    P[4] = [0.5, 0.6, -0.1]
    with pytest.raises(ValueError, match="input='proba' says X holds probabilities"):
        TemperatureScaling(input="proba").fit(xps.asarray(P, device=dev), y)
    # entries in [0, 1] whose rows do not sum to 1: ambiguous, as on numpy
    with pytest.raises(ValueError, match="cannot tell whether X holds probabilities"):
        TemperatureScaling().fit(xps.asarray(np.full((50, 3), 0.3), device=dev), y)


def test_bounds_warn_as_on_numpy(dispatch):
    # the argmax right on every sample: the NLL decreases all the way to T -> 0
    Z, y, _ = _data(n=200, k=3)
    Z[np.arange(200), y] += 100
    with pytest.warns(ConvergenceWarning, match="lower bound 0.0001"):
        ts = TemperatureScaling().fit(xps.asarray(Z, device=xps.Device("device1")), y)
    assert ts.temperature_ == 1e-4


def test_torch_tensor_requiring_grad(dispatch):
    torch = pytest.importorskip("torch")
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
    torch = pytest.importorskip("torch")
    Z, y, _ = _data()
    ref = TemperatureScaling().fit(Z, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ts = TemperatureScaling().fit(torch.tensor(Z, requires_grad=True), torch.asarray(y))
    assert ts.temperature_ == ref.temperature_
    proba = ts.predict_proba(torch.tensor(Z, requires_grad=True))
    assert isinstance(proba, np.ndarray)
    assert_allclose(proba, ref.predict_proba(Z), rtol=0, atol=0)


def test_array_api_support_tag():
    assert TemperatureScaling().__sklearn_tags__().array_api_support
