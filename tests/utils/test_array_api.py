"""The array API helpers of ``skcalib._core._array_api`` on ``array_api_strict`` (the
reference namespace: its non-default devices refuse conversion to numpy, like a GPU
tensor) and PyTorch CPU tensors; the cases the array API tests are generated for."""

import numpy as np
import pytest

from skcalib._core._array_api import (
    float_dtype,
    get_namespace_and_device,
    is_numpy_namespace,
    max_float_dtype,
    namespace_name,
    to_numpy,
    weighted_bincount,
)
from tests.utils import array_api_cases
from tests.utils.array_api_cases import CASE_IDS, CASES, available_case_ids, import_library

xps = pytest.importorskip("array_api_strict")


def test_dispatch_off_is_the_numpy_path():
    assert get_namespace_and_device(xps.asarray([1.0])) == (None, None)


def test_numpy_arrays_take_the_numpy_path(dispatch):
    assert get_namespace_and_device(np.ones(3), [1, 2], None) == (None, None)


def test_namespace_and_device_of_strict_arrays(dispatch):
    dev = xps.Device("device1")
    xp, device = get_namespace_and_device(xps.asarray([1.0], device=dev), None)
    assert namespace_name(xp) == "array_api_strict"
    assert device == dev
    assert not is_numpy_namespace(xp)
    assert is_numpy_namespace(np)


def test_max_float_dtype_follows_the_device(dispatch):
    assert max_float_dtype(xps, xps.Device("CPU_DEVICE")) == xps.float64
    assert max_float_dtype(xps, xps.Device("no_float64")) == xps.float32
    x32 = xps.asarray([1.0], dtype=xps.float32)
    assert float_dtype(x32, xps, xps.Device("CPU_DEVICE")) == xps.float32
    assert float_dtype(xps.asarray([1]), xps, xps.Device("CPU_DEVICE")) == xps.float64
    dev = xps.Device("no_float64")
    assert float_dtype(xps.asarray([1], device=dev), xps, dev) == xps.float32


@pytest.mark.parametrize("device", ["CPU_DEVICE", "device1"])
@pytest.mark.parametrize("weighted", [False, True])
def test_weighted_bincount_equals_numpy(dispatch, device, weighted):
    rng = np.random.default_rng(0)
    index = rng.integers(0, 7, size=500)
    index[:3] = 0  # value 7..9 never occur: zeros at the end
    weights = rng.random(500) if weighted else None
    dev = xps.Device(device)
    got = weighted_bincount(
        xps.asarray(index, device=dev),
        None if weights is None else xps.asarray(weights, device=dev),
        10,
        xps,
        dev,
    )
    assert got.device == dev
    np.testing.assert_allclose(
        to_numpy(got, xps), np.bincount(index, weights, minlength=10), rtol=1e-12
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_weighted_bincount_torch(dispatch, weighted):
    torch = import_library("torch")
    xp, device = get_namespace_and_device(torch.zeros(1))
    rng = np.random.default_rng(1)
    index = rng.integers(0, 5, size=300)
    weights = rng.random(300) if weighted else None
    got = weighted_bincount(
        torch.asarray(index), None if weights is None else torch.asarray(weights), 6, xp, device
    )
    assert isinstance(got, torch.Tensor)
    np.testing.assert_allclose(
        to_numpy(got, xp), np.bincount(index, weights, minlength=6), rtol=1e-12
    )


def test_to_numpy_of_a_device_array(dispatch):
    a = xps.asarray([0.25, 0.5], device=xps.Device("device1"))
    with pytest.raises(RuntimeError, match="NumPy"):
        np.asarray(a)  # what the device tests rely on
    np.testing.assert_array_equal(to_numpy(a, xps), [0.25, 0.5])


def test_pandas_dask_and_lists_take_the_numpy_path(dispatch):
    pd = pytest.importorskip("pandas")
    da = pytest.importorskip("dask.array")
    for obj in (pd.Series([0.2, 0.8]), pd.DataFrame({"a": [0.2]}), da.ones(3), [1.0], 2.0):
        assert get_namespace_and_device(obj) == (None, None)


def test_torch_tensors_are_array_api_arrays(dispatch):
    torch = import_library("torch")
    xp, device = get_namespace_and_device(torch.zeros(2), np.zeros(2))
    assert namespace_name(xp) == "torch"
    assert str(device) == "cpu"


def test_numpy_namespace_computes_on_numpy_arrays():
    from skcalib._core._array_api import numpy_namespace

    xp = numpy_namespace()
    assert is_numpy_namespace(xp)
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    total = xp.sum(xp.concat([x, x], axis=0), axis=0)
    assert isinstance(total, np.ndarray) and total.tolist() == [8.0, 14.0]
    assert max_float_dtype(xp, "cpu") == xp.float64


def _imports(library):
    try:
        __import__(library)
    except Exception:
        return False
    return True


def test_cases_are_generated_for_what_this_machine_has():
    """A case exists exactly where its library imports and its device is there: no
    generated case can only skip."""
    libraries = {c[0]: c[1] for c in CASES}
    assert set(CASE_IDS) <= set(libraries)
    for library in ("array_api_strict", "torch", "jax"):
        ids = {i for i, lib in libraries.items() if lib == library and "cuda" not in i}
        assert (ids <= set(CASE_IDS)) is _imports(library), library
        assert ids & set(CASE_IDS) in (set(), ids), library
    cuda = {"torch-cuda-float64", "torch-cuda-float32"}
    has_cuda = _imports("torch") and __import__("torch").cuda.is_available()
    assert (cuda <= set(CASE_IDS)) is has_cuda
    assert cuda & set(CASE_IDS) in (set(), cuda)
    for case_id in CASE_IDS:
        assert array_api_cases.Case(case_id).asarray([0.5]).shape == (1,)


def test_required_libraries_fail_loudly(monkeypatch):
    real = array_api_cases._try_import
    monkeypatch.setattr(
        array_api_cases, "_try_import", lambda lib: None if lib == "torch" else real(lib)
    )
    monkeypatch.delenv("SKCALIB_REQUIRE_TORCH", raising=False)
    monkeypatch.delenv("SKCALIB_REQUIRE_CUDA", raising=False)
    assert not any(i.startswith("torch") for i in available_case_ids())
    for variable in ("SKCALIB_REQUIRE_TORCH", "SKCALIB_REQUIRE_CUDA"):
        monkeypatch.setenv(variable, "1")
        with pytest.raises(RuntimeError, match="PyTorch does not import"):
            available_case_ids()
        monkeypatch.setenv(variable, "0")  # 0 or empty: not required
        assert not any(i.startswith("torch") for i in available_case_ids())
        monkeypatch.delenv(variable)


def test_required_cuda_fails_loudly_without_a_gpu(monkeypatch):
    torch = import_library("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv("SKCALIB_REQUIRE_CUDA", raising=False)
    assert "torch-cuda-float64" not in available_case_ids()
    monkeypatch.setenv("SKCALIB_REQUIRE_CUDA", "1")
    with pytest.raises(RuntimeError, match="no CUDA device"):
        available_case_ids()
