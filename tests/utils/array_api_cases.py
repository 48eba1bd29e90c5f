"""Array API inputs for the tests: the namespaces, devices and dtypes every
array-API-aware function is run on, and the switch of scikit-learn's dispatch.

``array_api_strict`` is the reference namespace: on its ``"device1"`` device an array
refuses conversion to numpy, exactly like a GPU tensor, so a function that gives the
numpy value there converted nothing behind the caller's back; its ``"no_float64"``
device stands for Apple MPS (float32 only).  PyTorch CPU tensors (float32, float64)
are the library most users have; PyTorch CUDA, CuPy and JAX run where they are there.

A case is generated only where its library imports and its device exists on this
machine (:data:`CASE_IDS`): a test parametrised by the cases never skips for a missing
library or device, it is not collected.  Two variables make cases mandatory, so that
they cannot silently disappear: ``SKCALIB_REQUIRE_TORCH=1`` (set by CI, which installs
PyTorch) fails the collection where PyTorch does not import, and
``SKCALIB_REQUIRE_CUDA=1`` (set by ``benchmarks/run_gpu_array_api.sh``) where PyTorch
sees no CUDA device.
"""

import contextlib
import importlib
import os

import numpy as np
import pytest
import sklearn

#: (id, library, device, dtype name) of every case this suite knows
CASES = [
    ("strict-cpu-float64", "array_api_strict", "CPU_DEVICE", "float64"),
    ("strict-device1-float64", "array_api_strict", "device1", "float64"),
    ("strict-device1-float32", "array_api_strict", "device1", "float32"),
    ("strict-no_float64-float32", "array_api_strict", "no_float64", "float32"),
    ("torch-cpu-float64", "torch", "cpu", "float64"),
    ("torch-cpu-float32", "torch", "cpu", "float32"),
    ("torch-cuda-float64", "torch", "cuda", "float64"),
    ("torch-cuda-float32", "torch", "cuda", "float32"),
    ("cupy-float64", "cupy", None, "float64"),
    ("cupy-float32", "cupy", None, "float32"),
    ("jax-float64", "jax", None, "float64"),
    ("jax-float32", "jax", None, "float32"),
]

#: tolerance of a value against the numpy value of the same (dtype-rounded) input
TOLERANCE = {"float64": 1e-10, "float32": 1e-5}


def _required(name):
    return os.environ.get(name, "") not in ("", "0")


def _try_import(library):
    """The module of ``library``, or None where it does not import."""
    try:
        return importlib.import_module(library)
    except Exception:  # missing, or broken (a CUDA build without its runtime...)
        return None


def _cupy_has_a_device(cupy):
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # CUDA driver or runtime missing
        return False


def _device_exists(library, module, device):
    if library == "torch" and device == "cuda":
        return bool(module.cuda.is_available())
    if library == "cupy":
        return _cupy_has_a_device(module)
    return True  # array_api_strict's devices, PyTorch's CPU, JAX's default device


def available_case_ids():
    """The ids of the cases whose library imports and whose device exists here.

    Raises a RuntimeError where ``SKCALIB_REQUIRE_TORCH`` is set and PyTorch does not
    import, or ``SKCALIB_REQUIRE_CUDA`` is set and PyTorch has no CUDA device.
    """
    modules = {}
    ids = []
    for case_id, library, device, _ in CASES:
        if library not in modules:
            modules[library] = _try_import(library)
        module = modules[library]
        if module is not None and _device_exists(library, module, device):
            ids.append(case_id)
    if (_required("SKCALIB_REQUIRE_TORCH") or _required("SKCALIB_REQUIRE_CUDA")) and modules[
        "torch"
    ] is None:
        raise RuntimeError(
            "SKCALIB_REQUIRE_TORCH or SKCALIB_REQUIRE_CUDA is set but PyTorch does not "
            "import: its array API cases would not run"
        )
    if _required("SKCALIB_REQUIRE_CUDA") and "torch-cuda-float64" not in ids:
        raise RuntimeError(
            "SKCALIB_REQUIRE_CUDA is set but PyTorch sees no CUDA device "
            f"(torch {modules['torch'].__version__}, built for CUDA "
            f"{modules['torch'].version.cuda}): its CUDA cases would not run"
        )
    return ids


def __getattr__(name):
    # CASE_IDS is computed when a test module first asks for it, not when conftest.py
    # imports this module: a run without array API tests imports no PyTorch or JAX
    if name == "CASE_IDS":
        global CASE_IDS
        CASE_IDS = available_case_ids()
        return CASE_IDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def import_library(library):
    """The module of ``library``, or a skip (a failure for PyTorch under
    ``SKCALIB_REQUIRE_TORCH`` or ``SKCALIB_REQUIRE_CUDA``)."""
    if library == "torch" and (
        _required("SKCALIB_REQUIRE_TORCH") or _required("SKCALIB_REQUIRE_CUDA")
    ):
        import torch  # noqa: PLC0415 - must not skip in CI

        return torch
    return pytest.importorskip(library)


class Case:
    """One namespace/device/dtype: ``case.asarray(numpy_array)`` builds an input."""

    def __init__(self, case_id):
        _, self.library, device, self.dtype_name = dict((c[0], c) for c in CASES)[case_id]
        self.id = case_id
        self.module = import_library(self.library)
        assert _device_exists(self.library, self.module, device), f"{case_id}: no such device"
        self.device = device
        if self.library == "array_api_strict":
            self.device = self.module.Device(device)
        elif self.library == "jax":
            if self.dtype_name == "float64":
                self.module.config.update("jax_enable_x64", True)
            self.module = self.module.numpy
        self.tolerance = TOLERANCE[self.dtype_name]

    def asarray(self, a, *, floating=True):
        """``a`` in this case's namespace and on its device; floats in its dtype."""
        a = np.asarray(a)
        if floating and a.dtype.kind == "f":
            a = a.astype(self.dtype_name)
            dtype = getattr(self.module, self.dtype_name)
            return self._asarray(a, dtype=dtype)
        return self._asarray(a)

    def _asarray(self, a, **kwargs):
        if self.device is None:  # CuPy and JAX: their default device
            return self.module.asarray(a, **kwargs)
        return self.module.asarray(a, device=self.device, **kwargs)

    def rounded(self, a):
        """The numpy array this case's input holds (floats rounded to its dtype)."""
        return np.asarray(a).astype(self.dtype_name)


@contextlib.contextmanager
def array_api_dispatch(monkeypatch):
    """``sklearn.config_context(array_api_dispatch=True)``, with ``SCIPY_ARRAY_API=1``;
    a skip where this scikit-learn cannot dispatch (1.6 and 1.7 need the
    array-api-compat package)."""
    from skcalib._core._array_api import get_namespace_and_device

    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    strict = pytest.importorskip("array_api_strict")
    with sklearn.config_context(array_api_dispatch=True):
        try:
            get_namespace_and_device(strict.asarray([1.0]))
        except ImportError as exc:
            pytest.skip(f"scikit-learn cannot dispatch here: {exc}")
        yield


def no_host_copy_of_the_data(monkeypatch, n):
    """Fail on a host copy of anything as long as the data (``n`` samples): a metric
    must compute in the namespace; only bin and group sums, class labels and scalars
    may travel to the host (every ``to_numpy`` of the metrics' modules is guarded)."""
    import skcalib._core._binning as binning
    import skcalib._core._validation as validation
    import skcalib.metrics._scoring._scoring_rules as scoring_rules
    import skcalib.metrics._selective as selective

    for module in (binning, scoring_rules, selective, validation):
        real = module.to_numpy

        def guarded(x, xp, _real=real):
            assert x.shape[0] < n, "the data was copied to the host"
            return _real(x, xp)

        monkeypatch.setattr(module, "to_numpy", guarded)
