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
    Whether ``xp`` is numpy or its array-api-compat wrapper: scikit-learn's own
    ``_is_numpy_namespace``.
``numpy_namespace()``
    numpy's array API namespace (scikit-learn's wrapper of numpy), for code written once
    for every namespace and run on numpy input too.
``max_float_dtype(xp, device)``
    float64, or float32 on a device without float64 (Apple MPS, ``array_api_strict``'s
    ``"no_float64"`` device), as scikit-learn >= 1.8 decides
    (``_max_precision_float_dtype``; scikit-learn 1.6 and 1.7 know MPS alone).
``float_dtype(x, xp, device)``
    The dtype ``x`` is computed in: its own dtype when it is float32 or float64 and the
    device has it, else :func:`max_float_dtype` (integers, bools, float16).
``to_numpy(x, xp)``
    A numpy copy on the host (for small results and for tests; never of the data), as
    scikit-learn's ``_convert_to_numpy`` makes it, which scikit-learn 1.6 cannot do for
    ``array_api_strict``'s devices and which does not detach a tensor that requires
    grad.
``weighted_bincount(index, weights, minlength, xp, device)``
    ``np.bincount`` for the namespaces: PyTorch's (numpy's on CPU tensors) and CuPy's
    own ``bincount``, JAX's scatter-add ``.at[].add``, else sums of a one-hot mask on
    the device (scikit-learn's ``_bincount`` copies such arrays to the host and back).
``has_fast_bincount(xp) -> bool``
    Whether :func:`weighted_bincount` is a scatter-add in ``xp`` (O(n)), rather than
    one-hot sums (O(n * minlength)).

Kernels are written once against ``xp`` (numpy's namespace included); where numpy has a
faster primitive than the standard's, one helper below picks it for numpy input (and,
through :func:`host_view`, for the memory of PyTorch CPU tensors, where PyTorch's
single-threaded reductions, argmax and bincount are several times slower) and the
standard's functions otherwise: :func:`row_sums` and :func:`row_dot` (``einsum``),
:func:`dot` and :func:`sum_of_squares` (single-threaded BLAS dots of blocks),
:func:`kth_smallest` (``np.partition``), :func:`clip` (the numpy ufunc),
:func:`min_value`, :func:`min_max` and :func:`argmax_rows` (the array's own methods),
:func:`in_unit_interval` and the ``bits`` argmax of :func:`argmax_rows` (one reduction
of the bit patterns, :func:`bit_view`, where the arrays have them:
:func:`has_bit_views`), :func:`take_along_rows` and :func:`add_at_rows` (fancy
indexing), :func:`scaled`, :func:`truncated`, :func:`float_copy`,
:func:`near_integer` and :func:`pair_index` (written into the reused arrays of a
:class:`Workspace`), :func:`bincount_weights`, :func:`masked_fill` and
:func:`masked_assign` (item assignment, absent from JAX), :func:`row_ranges`
(cache-sized chunks of rows for numpy, 1 MiB chunks for PyTorch CPU tensors, one chunk
on a GPU), :class:`RowCollector` (per-row results of the chunks in one array).
"""

from __future__ import annotations

import numpy as np

from ..utils._sklearn_compat import sklearn_is_numpy_namespace, sklearn_namespace_and_device
from ._chunks import iter_row_chunks

__all__ = [
    "RowCollector",
    "Workspace",
    "add_at_rows",
    "argmax_rows",
    "bit_view",
    "bincount_weights",
    "clip",
    "dot",
    "float_copy",
    "float_dtype",
    "has_bit_views",
    "in_unit_interval",
    "kth_smallest",
    "masked_assign",
    "masked_fill",
    "min_max",
    "min_value",
    "near_integer",
    "pair_index",
    "row_dot",
    "row_ranges",
    "row_sums",
    "scaled",
    "sum_of_squares",
    "take_along_rows",
    "truncated",
    "get_namespace_and_device",
    "namespace_and_device",
    "has_fast_bincount",
    "host_view",
    "is_numpy_namespace",
    "max_float_dtype",
    "namespace_name",
    "numpy_namespace",
    "to_numpy",
    "weighted_bincount",
]


def namespace_name(xp):
    """The library behind ``xp``: ``"numpy"``, ``"torch"``, ``"cupy"``, ``"jax"``,
    ``"array_api_strict"``... (the array-api-compat wrapper prefix removed)."""
    name = xp.__name__
    short = _NAMES.get(name)
    if short is None:
        short = _NAMES[name] = _short_name(name)
    return short


_NAMES: dict = {}


def _short_name(name):
    for prefix in ("sklearn.externals.array_api_compat.", "array_api_compat."):
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return name.split(".")[0]


#: Whether a namespace is numpy (or its array-api-compat wrapper): scikit-learn's
#: ``_is_numpy_namespace`` (:mod:`skcalib.utils._sklearn_compat`).
is_numpy_namespace = sklearn_is_numpy_namespace


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
    if xp is _NUMPY_XP and xp is not None:  # numpy's namespace: float64 everywhere
        return xp.float64
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
_SCATTER_ADD = frozenset({"numpy", "torch", "cupy", "jax"})


def has_fast_bincount(xp):
    """Whether :func:`weighted_bincount` costs O(n) in ``xp`` (numpy's and CuPy's bincount,
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
        ``weights`` (:func:`max_float_dtype` for counts), on ``device``; float64 for
        numpy (``np.bincount``).

    Notes
    -----
    ``bincount`` is not in the array API standard.  CuPy has numpy's ``bincount``,
    PyTorch ``Tensor.bincount`` (numpy's is used on the memory of CPU tensors), JAX a
    scatter-add ``.at[].add``; any other namespace sums
    a one-hot mask, in chunks of rows (O(n * minlength) work, fine for the few dozen
    bins of a metric).
    """
    name = namespace_name(xp)
    if name == "numpy":  # float64 sums (of float32 weights too), float64 counts
        return np.bincount(index, weights=weights, minlength=minlength).astype(
            np.float64, copy=False
        )
    dtype = max_float_dtype(xp, device) if weights is None else weights.dtype
    if name == "torch" and _is_cpu_tensor(xp, device):
        # numpy's bincount on the tensors' memory (host_view): several times faster than
        # PyTorch's single-threaded one, float64 sums cast to the weights' dtype
        index = xp.astype(index, xp.int64, copy=False).numpy()
        out = np.bincount(index, None if weights is None else weights.numpy(), minlength)
        return xp.astype(xp.asarray(out), dtype, copy=False)
    if name == "torch":  # Tensor.bincount: no one-hot, no ones array for counts
        index = xp.astype(index, xp.int64, copy=False)
        out = index.bincount(weights=weights, minlength=minlength)
        return xp.astype(out, dtype, copy=False)
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


# --------------------------------------------------------------------------------------
# primitives with a faster numpy function than the standard's (module docstring)
# --------------------------------------------------------------------------------------


def _is_np(xp):
    if xp is None or xp is _NUMPY_XP:  # the namespace of namespace_and_device
        return True
    return namespace_name(xp) == "numpy"


def row_ranges(n_rows, row_bytes, xp, device=None):
    """``(start, stop)`` ranges of rows: cache-sized chunks
    (:func:`~skcalib._core._chunks.iter_row_chunks`) for numpy, chunks of
    :data:`CPU_TENSOR_CHUNK_BYTES` for PyTorch tensors on the CPU (``device`` given),
    the whole array in one range for any other namespace and device (one reduction per
    operation on a GPU)."""
    if _is_np(xp):
        return iter_row_chunks(n_rows, row_bytes)
    if device is not None and _is_cpu_tensor(xp, device):
        return iter_row_chunks(n_rows, row_bytes, CPU_TENSOR_CHUNK_BYTES)
    return iter(((0, n_rows),))


#: Bytes of one chunk of rows of a PyTorch CPU tensor in :func:`row_ranges`: read from
#: memory once and reused from the cache by the next operations, as numpy's chunks are,
#: but larger, so that the per-call cost of PyTorch's operations (several microseconds)
#: stays small against their work.
CPU_TENSOR_CHUNK_BYTES = 1 << 20


def _is_cpu_tensor(xp, device):
    return namespace_name(xp) == "torch" and getattr(device, "type", device) == "cpu"


def row_sums(P, xp, out=None):
    """Sum of each row of the 2-D ``P`` (numpy: a single-threaded ``einsum``, which
    raises no floating-point warning for rows with NaN or infinity, written into
    ``out`` when given)."""
    if _is_np(xp):
        return np.einsum("ij->i", P, out=out)
    with np.errstate(all="ignore"):  # namespaces computing with numpy underneath
        return xp.sum(P, axis=1)


def row_dot(A, B, xp):
    """``sum(A * B, axis=1)`` without the product array for numpy (``einsum``)."""
    if _is_np(xp):
        return np.einsum("ij,ij->i", A, B)
    return xp.sum(A * B, axis=1)


def dot(a, b, xp):
    """``sum(a * b)`` of two 1-D arrays, as a Python float (numpy: BLAS dot products of
    blocks of :data:`BLAS_BLOCK` values, no product array).

    OpenBLAS computes a dot product of more than 10,000 values on several threads,
    which on a busy machine costs many times the sum itself; its single-threaded dot
    product of a block in cache is about four times as fast as ``einsum``'s."""
    ha, hb = host_view(a, xp), host_view(b, xp)
    if ha is not None and hb is not None:  # numpy, or PyTorch CPU tensors' memory
        a, b = ha, hb
        n = a.shape[0]
        if n <= BLAS_BLOCK:
            return float(np.dot(a, b))
        return float(
            sum(
                np.dot(a[i : i + BLAS_BLOCK], b[i : i + BLAS_BLOCK])
                for i in range(0, n, BLAS_BLOCK)
            )
        )
    return float(xp.vecdot(a, b))


#: Values of one BLAS dot product in :func:`dot`: below the size at which OpenBLAS
#: starts threads (10,000).
BLAS_BLOCK = 8192


def sum_of_squares(x, xp):
    """``sum(x * x)`` of an array of any shape, as a Python float (see :func:`dot`)."""
    if x.ndim != 1:
        x = x.reshape(-1) if _is_np(xp) else xp.reshape(x, (-1,))
    return dot(x, x, xp)


def float_copy(x, dtype, xp, out=None):
    """A copy of ``x`` in the floating ``dtype`` that the caller may modify (numpy:
    written into ``out`` when given, a :class:`Workspace` array of the same shape)."""
    if _is_np(xp):
        if out is not None and out.shape == x.shape:
            np.copyto(out, x)
            return out
        return np.array(x, dtype=dtype)
    return xp.astype(x, dtype, copy=True)


def clip(x, lo, hi, xp):
    """``x`` clipped to ``[lo, hi]`` (Python floats; numpy: the ``np.clip`` ufunc, not
    the array-api-compat wrapper)."""
    if _is_np(xp):
        return np.clip(x, lo, hi)
    return xp.clip(x, lo, hi)


def scaled(x, factor, dtype, xp, out=None):
    """``x * factor`` computed in ``dtype``, C-ordered (numpy: one pass, no intermediate
    copy of ``x``, written into ``out`` when given: a :class:`Workspace` array)."""
    if _is_np(xp):
        if out is not None and out.shape == x.shape:
            return np.multiply(x, factor, out=out, dtype=dtype)
        return np.multiply(x, factor, dtype=dtype, order="C")
    t = xp.astype(x, dtype, copy=True)
    t *= factor  # in place where the namespace allows
    return t


def truncated(t, xp, out=None):
    """``t`` (non-negative floats) truncated to int64 (numpy: into ``out`` when given)."""
    if _is_np(xp):
        if out is not None and out.shape == t.shape:
            np.copyto(out, t, casting="unsafe")
            return out
        return t.astype(np.int64)
    return xp.astype(t, xp.int64)


def near_integer(t, b, tol, xp, work=None):
    """Boolean mask of the values of ``t`` (non-negative floats) within ``tol`` of an
    integer, given ``b``, their truncation to integers (:func:`truncated`); None when
    there is none.

    numpy: the distances ``|rint(t) - t|`` in three same-dtype passes, into an array
    of ``work`` (a :class:`Workspace`) when given, then their minimum; the mask itself
    only where a value is near an integer."""
    if _is_np(xp):
        r = np.rint(t, out=None if work is None else work.get("near", t.shape, t.dtype))
        np.subtract(r, t, out=r)
        np.abs(r, out=r)
        if r.size == 0 or r.min() >= tol:
            return None
        return r < tol
    r = xp.abs(xp.round(t) - t)
    if 0 in tuple(r.shape) or min_value(r, xp) >= tol:
        return None
    return r < tol


def pair_index(b, flag, xp, out=None):
    """``2 * b + flag`` of an integer array ``b`` and 0/1 (or bool) ``flag`` (numpy:
    two passes, into ``out`` when given)."""
    if _is_np(xp):
        pair = np.left_shift(b, 1, out=out)
        return np.add(pair, flag, out=pair, casting="unsafe")
    return b * 2 + xp.astype(flag, b.dtype, copy=False)


def bincount_weights(x, dtype, xp):
    """``x`` as the weights of :func:`weighted_bincount` summed in the floating
    ``dtype``: as it is for numpy (``np.bincount`` reads any float as float64), cast to
    ``dtype`` elsewhere."""
    if _is_np(xp):
        return x
    return xp.astype(x, dtype, copy=False)


def min_max(x, xp):
    """``(min(x), max(x))`` as Python floats (numpy, and PyTorch CPU tensors through
    :func:`host_view`: the array's own methods, not the wrappers of ``np.min`` and
    ``np.max``); NaN when ``x`` holds one."""
    a = host_view(x, xp)
    if a is not None:
        return float(a.min()), float(a.max())
    return float(xp.min(x)), float(xp.max(x))


def min_value(x, xp):
    """``min(x)`` as a Python float (numpy, and PyTorch CPU tensors through
    :func:`host_view`: the array's own method)."""
    a = host_view(x, xp)
    if a is not None:
        return float(a.min())
    return float(xp.min(x))


def host_view(x, xp):
    """``x`` as a numpy array without a copy where it is one or a PyTorch CPU tensor
    (its memory: PyTorch's CPU minimum is several times slower than numpy's, its argmax
    not vectorised), else None."""
    if _is_np(xp):
        return x
    if _is_cpu_tensor(xp, x.device):
        return x.numpy()
    return None


def kth_smallest(x, kth, xp):
    """The order statistics ``sort(x)[kth]`` of a 1-D array (``kth`` a host integer
    array), as a host numpy array: numpy selects them by ``np.partition`` (no sort)."""
    if _is_np(xp):
        return np.partition(x, np.unique(kth))[kth]
    xs = xp.sort(x)
    return to_numpy(xp.take(xs, xp.asarray(kth.astype(np.int64), device=x.device)), xp)


def argmax_rows(P, xp, out=None, bits=False):
    """Column of the first largest value of each row of the 2-D ``P`` (numpy: the
    array's own method, written into the int64 ``out`` when given).

    With ``bits`` (numpy and PyTorch CPU tensors only, :func:`has_bit_views`), the
    column of the first largest bit pattern, read as an unsigned integer of the same
    width (:func:`bit_view`).  For a row whose entries are all ``>= +0.0`` and not NaN
    that is the column of its first largest value (non-negative floats order as their
    bit patterns); in a row with an entry whose sign bit is set (a negative number,
    -0.0, a NaN with the sign bit) the chosen entry has its sign bit set, so a kernel
    that gathers the chosen entries learns from their minimum (:func:`min_value`
    ``> 0``) that every entry of every row is ``>= 0`` and not NaN, without a
    reduction of its own over the rows.
    """
    if _is_np(xp):
        return (bit_view(P) if bits else P).argmax(axis=1, out=out)
    if _is_cpu_tensor(xp, P.device):
        # PyTorch's CPU argmax is not vectorised (about 7x numpy's): numpy's on the
        # tensor's own memory (host_view: no copy; the same first index, NaN included)
        A = P.numpy()
        return xp.asarray((bit_view(A) if bits else A).argmax(axis=1))
    return xp.argmax(P, axis=1)


#: unsigned integers of the width of each float dtype, and the bit pattern of 1.0
_UNSIGNED = {np.dtype(np.float64): np.uint64, np.dtype(np.float32): np.uint32}
_ONE_BITS = {np.dtype(d): np.array(1, dtype=d).view(u)[()] for d, u in _UNSIGNED.items()}


def has_bit_views(xp, device):
    """Whether :func:`bit_view` can read the arrays of ``xp`` on ``device``: numpy and
    PyTorch CPU tensors (through numpy, on their memory)."""
    return _is_np(xp) or _is_cpu_tensor(xp, device)


def bit_view(x):
    """The float32 or float64 numpy array ``x`` viewed as unsigned integers of its
    width (no copy): for values ``>= +0.0`` the integers order as the values, and every
    value with its sign bit set (negative numbers, -0.0, some NaN) is above all of
    them."""
    return x.view(_UNSIGNED[x.dtype])


def in_unit_interval(x, xp):
    """Whether every value of the floating array ``x`` lies in ``[+0.0, 1]`` (False for
    NaN).  numpy (float32 and float64): one reduction, the largest bit pattern of the
    values (:func:`bit_view`) against that of 1.0: a value with its sign bit set
    (-0.0 included, which the caller then checks again), a value above 1 and NaN all
    have a larger one.  Any other array: its minimum and maximum (:func:`min_max`)."""
    a = host_view(x, xp)
    if a is not None and a.dtype in _UNSIGNED:
        return bool(bit_view(a).max() <= _ONE_BITS[a.dtype]) if a.size else True
    if x.shape[0] == 0:
        return True
    lo, hi = min_max(x, xp)
    return lo >= 0 and hi <= 1


#: Rows of one block of :func:`take_along_rows`.
_ROW_BLOCK = 1 << 16


def _has_take_along_axis(xp):
    """Whether ``xp.take_along_axis`` can be called: it is in the standard from version
    2024.12, and ``array_api_strict`` refuses it under an older version (scikit-learn
    before 1.7 sets 2023.12)."""
    if not hasattr(xp, "take_along_axis"):
        return False
    flags = getattr(xp, "get_array_api_strict_flags", None)
    return flags is None or flags()["api_version"] >= "2024.12"


def take_along_rows(P, idx, xp):
    """``P[i, idx[i]]`` for every row ``i`` of the 2-D ``P``."""
    if _is_np(xp):
        m = P.shape[0]
        if m <= _ROW_BLOCK:
            return P[np.arange(m), idx]
        out = np.empty(m, dtype=P.dtype)  # by blocks: no index array of every row
        for s in range(0, m, _ROW_BLOCK):
            e = min(s + _ROW_BLOCK, m)
            out[s:e] = P[s:e][np.arange(e - s), idx[s:e]]
        return out
    if _has_take_along_axis(xp):
        return xp.take_along_axis(P, xp.astype(idx, xp.int64)[:, None], axis=1)[:, 0]
    hit = idx[:, None] == xp.arange(P.shape[1], dtype=idx.dtype, device=P.device)[None, :]
    return xp.sum(xp.where(hit, P, xp.zeros_like(P)), axis=1)


def add_at_rows(D, idx, value, xp):
    """``D[i, idx[i]] += value`` for every row of the 2-D ``D`` (a fresh array of the
    caller, modified in place where the namespace allows); returns the result (numpy,
    and PyTorch CPU tensors through :func:`host_view`: by fancy indexing)."""
    hD = host_view(D, xp)
    if hD is not None:
        out = np.ascontiguousarray(hD)
        m, k = out.shape
        flat = out.reshape(-1)  # a view: out is C-contiguous
        where = np.add(np.arange(0, m * k, k, dtype=np.intp), host_view(idx, xp), dtype=np.intp)
        flat[where] += value
        return out if _is_np(xp) else xp.asarray(out)
    hit = idx[:, None] == xp.arange(D.shape[1], dtype=idx.dtype, device=D.device)[None, :]
    return xp.where(hit, D + value, D)


def masked_fill(x, mask, value, xp):
    """``x[mask] = value`` (scalar) on a fresh array of the caller; returns the result
    (a new array for JAX, whose arrays are immutable)."""
    if namespace_name(xp) == "jax":  # pragma: no cover - JAX is not a test dependency
        return xp.where(mask, value, x)
    x[mask] = value
    return x


def masked_assign(x, mask, values, xp):
    """``x[mask] = values`` (``values`` of shape ``(count_nonzero(mask),)``) on a fresh
    array of the caller; returns the result."""
    if namespace_name(xp) == "jax":  # pragma: no cover - JAX is not a test dependency
        return x.at[xp.nonzero(mask)].set(values)
    x[mask] = values
    return x


#: namespaces whose element-wise functions take numpy's ``out=`` argument (outside the
#: standard)
_OUT_ARGUMENT = frozenset({"numpy", "cupy"})


def work_array(shape, dtype, xp, device):
    """An uninitialised work array for :func:`into`: ``xp.empty`` where the element-wise
    functions of ``xp`` write into ``out=`` (numpy, CuPy), else None.

    Kernels written once for every namespace keep their chunk-sized temporaries in such
    arrays on numpy, where a fresh array per operation costs page faults, and make new
    arrays elsewhere (``array_api_strict`` and JAX have no ``out=``; PyTorch's
    array-api-compat functions are wrapped)."""
    if namespace_name(xp) not in _OUT_ARGUMENT:
        return None
    return xp.empty(shape, dtype=dtype, device=device)


class Workspace:
    """Chunk-sized work arrays reused by the chunks of one call: ``get`` returns an
    array of ``xp`` where its element-wise functions write into ``out=`` (numpy,
    CuPy), else None (the helpers then make new arrays).

    A fresh chunk-sized array per operation costs page faults and cache misses on
    numpy; one workspace per call (never shared between calls or threads) keeps the
    temporaries of every chunk in the same few arrays."""

    __slots__ = ("_arrays", "_on", "_xp", "_device")

    def __init__(self, xp, device):
        self._xp, self._device = xp, device
        self._on = namespace_name(xp) in _OUT_ARGUMENT
        self._arrays = {}

    def get(self, name, shape, dtype):
        """An uninitialised array of ``shape`` and ``dtype`` (the same memory each
        time for ``name``), or None outside numpy and CuPy."""
        if not self._on:
            return None
        size = 1
        for d in shape:
            size *= d
        a = self._arrays.get(name)
        if a is None or a.shape[0] < size or a.dtype != dtype:
            a = self._xp.empty(max(size, 1), dtype=dtype, device=self._device)
            self._arrays[name] = a
        return a[:size].reshape(shape)


class RowCollector:
    """The per-row results of the chunks of one call, in row order: numpy's are written
    in place (``out`` gives the slice of one array of all the rows for a function's
    ``out=``), any other namespace's are concatenated."""

    __slots__ = ("_out", "_parts", "_xp")

    def __init__(self, n_rows, dtype, xp, device):
        self._xp = xp
        self._parts = []
        self._out = np.empty(n_rows, dtype=dtype) if _is_np(xp) else None

    def out(self, start, stop):
        """The slice of rows ``start:stop`` to write into (numpy), else None."""
        return None if self._out is None else self._out[start:stop]

    def add(self, values):
        """Record the results of the next chunk (returned by the function given
        :meth:`out`)."""
        if self._out is None:
            self._parts.append(values)

    def result(self):
        """The results of every row."""
        if self._out is not None:
            return self._out
        return self._parts[0] if len(self._parts) == 1 else self._xp.concat(self._parts)


def into(out, func, *args):
    """``func(*args)``, written into ``out`` (a :func:`work_array` or a slice of one) and
    returned; a new array when ``out`` is None."""
    if out is None:
        return func(*args)
    return func(*args, out=out)


def writable(x, xp):
    """``x`` itself as the ``out`` of :func:`into` where the namespace writes in place
    (numpy, CuPy), else None: for a fresh array of the caller's, updated in place."""
    return x if namespace_name(xp) in _OUT_ARGUMENT else None


def sort_with_flags(key, flag, descending, xp):
    """``(key_sorted, flag_sorted)``: the 1-D float ``key`` sorted (decreasing with
    ``descending``) and the bool ``flag`` in the same order, the order of tied keys
    unspecified; the keys in float64 for numpy, -0.0 read as +0.0, and the flags as 0/1
    integers.

    numpy packs each non-negative key (with ``flag``: bit patterns of non-negative
    floats sort as the floats; -0.0 is read as +0.0) and its flag into one 64-bit
    integer and sorts those with one ``np.sort`` (no ``argsort``, no gathers; the flags
    come back as ``uint64``).  Every other namespace (and numpy with a
    negative key) sorts with one ``argsort`` and two ``take``.
    """
    if namespace_name(xp) == "numpy":
        k64 = np.asarray(key, dtype=np.float64)
        if k64.shape[0] and k64.min() >= 0:
            packed = k64.view(np.uint64) << np.uint64(1)  # the lowest bit freed for the flag
            packed |= np.asarray(flag).view(np.uint8)
            packed.sort()
            if descending:
                packed = packed[::-1]
            flags = packed & np.uint64(1)
            packed >>= np.uint64(1)  # the keys' bits (in place; a view when reversed)
            return packed.view(np.float64), flags
    order = xp.argsort(key, stable=False)
    if descending:
        order = xp.flip(order)
    return xp.take(key, order) + 0.0, xp.astype(xp.take(flag, order), xp.int64)
