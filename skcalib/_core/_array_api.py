"""Array API helpers: the namespace and device of the input, and the few operations the
standard lacks.

skcalib follows scikit-learn's array API support: with
``sklearn.set_config(array_api_dispatch=True)`` (and the environment variable
``SCIPY_ARRAY_API=1`` set before scipy is imported), a metric or estimator given arrays of
another library (PyTorch, CuPy, JAX, ``array_api_strict``) computes with that library's
functions, on the arrays' device, and returns Python floats for scalars and arrays of the
input's namespace and device for array outputs.  With dispatch off (the default), every
input is converted to numpy as before.

The namespace comes from scikit-learn's own ``get_namespace_and_device`` (reached
through :mod:`skcalib.utils._sklearn_compat`), so that skcalib and scikit-learn agree on
when dispatch is on and on which namespace an array belongs to: scikit-learn >= 1.8
vendors ``array-api-compat``; with scikit-learn 1.6 and 1.7, dispatch needs the
``array-api-compat`` package installed (scikit-learn's own requirement).  skcalib adds no
dependency.

Interface (used by the metrics and the estimators; stable)
----------------------------------------------------------
``get_namespace_and_device(*arrays) -> (xp, device)``
    The namespace and device of the arrays (numpy arrays, pandas objects, lists and None
    are ignored).  ``xp`` is None
    unless dispatch is on and the arrays belong to a namespace other than numpy: None
    means "use the numpy code path" (numpy arrays also run there under dispatch, so that
    numpy users keep the numpy fast paths).
``is_numpy_namespace(xp) -> bool``
    Whether ``xp`` is numpy or its array-api-compat wrapper.
``numpy_namespace()``
    numpy's array API namespace (scikit-learn's wrapper of numpy), for code written once
    for every namespace and run on numpy input too.
``max_float_dtype(xp, device)``
    float64, or float32 on a device without float64 (Apple MPS, ``array_api_strict``'s
    ``"no_float64"`` device), as scikit-learn does.
``float_dtype(x, xp, device)``
    The dtype ``x`` is computed in: its own dtype when it is float32 or float64 and the
    device has it, else :func:`max_float_dtype` (integers, bools, float16).
``to_numpy(x, xp)``
    A numpy copy on the host (for small results and for tests; never of the data).
``weighted_bincount(index, weights, minlength, xp, device)``
    ``np.bincount`` for the namespaces: PyTorch's and CuPy's own ``bincount``, JAX's
    scatter-add ``.at[].add``, else sums of a one-hot mask.
``has_fast_bincount(xp) -> bool``
    Whether :func:`weighted_bincount` is a scatter-add in ``xp`` (O(n)), rather than
    one-hot sums (O(n * minlength)).
``xlogy(x, y, xp)``
    ``x * log(y)`` with ``0 * log(0) = 0``.
"""

from __future__ import annotations

import numpy as np

from ..utils._sklearn_compat import sklearn_namespace_and_device

__all__ = [
    "float_dtype",
    "get_namespace_and_device",
    "namespace_and_device",
    "has_fast_bincount",
    "is_numpy_namespace",
    "max_float_dtype",
    "namespace_name",
    "numpy_namespace",
    "to_numpy",
    "weighted_bincount",
    "xlogy",
]


def namespace_name(xp):
    """The library behind ``xp``: ``"numpy"``, ``"torch"``, ``"cupy"``, ``"jax"``,
    ``"array_api_strict"``... (the array-api-compat wrapper prefix removed)."""
    name = xp.__name__
    for prefix in ("sklearn.externals.array_api_compat.", "array_api_compat."):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name.split(".")[0]


def is_numpy_namespace(xp):
    """Whether ``xp`` is numpy (or its array-api-compat wrapper)."""
    return xp is None or namespace_name(xp) == "numpy"


#: libraries whose arrays array-api-compat wraps although they lack ``__array_namespace__``
_WRAPPED_LIBRARIES = frozenset({"torch", "cupy", "jax", "jaxlib"})


def _is_array_api_array(a):
    """Whether ``a`` is an array of a namespace other than numpy: it has
    ``__array_namespace__`` or is a PyTorch, CuPy or JAX array.  numpy arrays, pandas
    and polars objects, Dask arrays (:mod:`skcalib.dask` handles those), lists and
    scalars are not."""
    if isinstance(a, np.ndarray | np.generic):
        return False
    if hasattr(a, "__array_namespace__"):
        return True
    return type(a).__module__.split(".")[0] in _WRAPPED_LIBRARIES


def get_namespace_and_device(*arrays):
    """``(xp, device)`` of ``arrays``: ``(None, None)`` for the numpy code path.

    Only arrays of a namespace other than numpy count: numpy arrays, pandas objects,
    Dask arrays, lists, tuples, scalars and None are ignored.  ``xp`` is not None only with
    ``array_api_dispatch=True`` and arrays of a namespace other than numpy; arrays of
    different namespaces or devices raise scikit-learn's error.

    Examples
    --------
    >>> import numpy as np
    >>> get_namespace_and_device(np.array([0.2, 0.8]), None)
    (None, None)
    """
    arrays = [a for a in arrays if _is_array_api_array(a)]
    if not arrays:
        return None, None
    xp, is_array_api, device = sklearn_namespace_and_device(*arrays)
    if not is_array_api or is_numpy_namespace(xp):
        return None, None
    return xp, device


def namespace_and_device(*arrays):
    """``(xp, device)`` of ``arrays``, numpy being one namespace among others.

    The namespace of :func:`get_namespace_and_device` when it is not None; otherwise
    numpy's array API namespace (:func:`numpy_namespace`) and the device ``"cpu"``.
    Kernels are written once against the returned ``xp``.

    Examples
    --------
    >>> import numpy as np
    >>> xp, device = namespace_and_device(np.array([0.2, 0.8]))
    >>> is_numpy_namespace(xp), device
    (True, 'cpu')
    """
    xp, device = get_namespace_and_device(*arrays)
    if xp is None:
        return _numpy_namespace(), "cpu"
    return xp, device


def _numpy_namespace():
    global _NUMPY_XP
    if _NUMPY_XP is None:
        _NUMPY_XP = numpy_namespace()
    return _NUMPY_XP


_NUMPY_XP = None


def numpy_namespace():
    """numpy's array API namespace, as scikit-learn gives it for numpy arrays
    (array-api-compat's numpy wrapper, or scikit-learn's own before 1.8)."""
    xp, _, _ = sklearn_namespace_and_device(np.empty(0))
    return xp


def max_float_dtype(xp, device):
    """float64, or float32 where ``device`` has no float64 (Apple MPS and
    ``array_api_strict.Device("no_float64")``)."""
    info = getattr(xp, "__array_namespace_info__", None)
    if info is not None:
        try:
            dtypes = info().dtypes(kind="real floating", device=device)
        except Exception:  # pragma: no cover - a namespace without device-specific info
            dtypes = None
        if dtypes is not None and "float64" not in dtypes:
            return xp.float32
    if namespace_name(xp) == "torch" and str(device).startswith("mps"):  # pragma: no cover
        return xp.float32
    return xp.float64


def float_dtype(x, xp, device):
    """Floating dtype in which ``x`` is computed: its own when float32/float64 (and
    supported by ``device``), else :func:`max_float_dtype` (bools, integers, float16)."""
    top = max_float_dtype(xp, device)
    if x.dtype == xp.float64 and top == xp.float64:
        return x.dtype
    if x.dtype == xp.float32:
        return x.dtype
    return top


def to_numpy(x, xp):
    """A numpy copy of ``x`` on the host.

    For results of a few numbers (bin sums, class labels) and for tests: an explicit
    device-to-host transfer, which also works for the arrays that refuse
    ``np.asarray`` (GPU tensors, ``array_api_strict``'s non-default devices).
    """
    if xp is None or isinstance(x, np.ndarray):
        return np.asarray(x)
    name = namespace_name(xp)
    if name == "torch":
        return x.detach().cpu().numpy()
    if name == "cupy":  # pragma: no cover - needs a GPU
        return x.get()
    if name == "array_api_strict":
        return np.asarray(xp.asarray(x, device=xp.Device("CPU_DEVICE")))
    return np.asarray(x)


#: namespaces with a bincount or a scatter-add (see :func:`weighted_bincount`)
_SCATTER_ADD = frozenset({"torch", "cupy", "jax"})


def has_fast_bincount(xp):
    """Whether :func:`weighted_bincount` costs O(n) in ``xp`` (CuPy's bincount,
    PyTorch's ``Tensor.bincount``, a JAX scatter-add) rather than O(n * minlength)
    (one-hot sums)."""
    return namespace_name(xp) in _SCATTER_ADD


def weighted_bincount(index, weights, minlength, xp, device):
    """``np.bincount(index, weights, minlength)`` in the namespace ``xp``.

    Parameters
    ----------
    index : array of integers in ``[0, minlength)``, 1-D
    weights : array of the same shape, floating, or None (counts, as float)
    minlength : int
        Length of the result.
    xp, device
        The namespace and device (:func:`get_namespace_and_device`).

    Returns
    -------
    array of shape (minlength,)
        The sum of ``weights`` (or 1) of each index value, in the floating dtype of
        ``weights`` (:func:`max_float_dtype` for counts), on ``device``.

    Notes
    -----
    ``bincount`` is not in the array API standard.  CuPy has numpy's ``bincount``,
    PyTorch ``Tensor.bincount``, JAX a scatter-add ``.at[].add``; any other namespace sums
    a one-hot mask, in chunks of rows (O(n * minlength) work, fine for the few dozen
    bins of a metric).
    """
    dtype = max_float_dtype(xp, device) if weights is None else weights.dtype
    name = namespace_name(xp)
    if name == "torch":  # Tensor.bincount: no one-hot, no ones array for counts
        out = xp.astype(index, xp.int64).bincount(weights=weights, minlength=minlength)
        return xp.astype(out, dtype)
    if name == "cupy":  # pragma: no cover - needs a GPU; CuPy has numpy's bincount
        return xp.astype(xp.bincount(index, weights=weights, minlength=minlength), dtype)
    if weights is None:
        weights = xp.ones(index.shape, dtype=dtype, device=device)
    if name == "jax":
        return xp.zeros(minlength, dtype=dtype, device=device).at[index].add(weights)
    # one-hot sums, in chunks of rows that keep the (rows, minlength) mask small
    values = xp.arange(minlength, dtype=index.dtype, device=device)
    zero = xp.zeros(1, dtype=dtype, device=device)
    out = xp.zeros(minlength, dtype=dtype, device=device)
    step = max(1, _ONE_HOT_ELEMENTS // max(minlength, 1))
    n = index.shape[0]
    for start in range(0, n, step):
        stop = min(start + step, n)  # out-of-bounds slices are not in the standard
        hit = index[start:stop, None] == values[None, :]
        w = weights[start:stop, None]
        out = out + xp.sum(xp.where(hit, w, zero), axis=0)
    return out


#: Elements of the one-hot mask of one chunk in :func:`weighted_bincount`.
_ONE_HOT_ELEMENTS = 1 << 20


def xlogy(x, y, xp):
    """``x * log(y)``, 0 where ``x == 0`` (also for ``y == 0``)."""
    safe = xp.where(x == 0, xp.ones_like(y), y)
    return xp.where(x == 0, xp.zeros_like(x), x * xp.log(safe))
