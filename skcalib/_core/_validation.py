"""Input validation shared by every metric in :mod:`skcalib.metrics`.

Every public metric validates its inputs exactly once, here, and then calls private
kernels that never re-validate.  The routines below accept what scikit-learn accepts
(lists, numpy arrays, pandas Series/DataFrames, ints, strings, bools as labels, float32 and
float64 probabilities) and raise a :class:`ValueError` that names the offending argument
for anything they cannot turn into a well defined number.

Performance notes
-----------------
* Probabilities are never copied when they already are a float32/float64 numpy array
  (C or F ordered); other dtypes are converted once.
* Value checks read the probabilities in cache-sized chunks of rows
  (:func:`checked_rows`).  For a 2-D array the per-row sum (a BLAS matrix-vector
  product) both checks that rows sum to one and rules out NaN and inf in that row (a row
  with a NaN or inf cannot have a finite sum close to 1), and a chunk minimum checks the
  lower bound.
* Each probability is checked once.  :func:`check_classification_input` checks
  everything, values included, in its own pass.  The few hot metrics that read the
  whole probability matrix anyway (the binned calibration errors, the Brier score, the
  log-likelihood) instead call :func:`check_classification_labels` (everything but the
  probability values) and then read ``y_proba`` through :func:`checked_rows`, which
  checks each chunk before it yields it: the chunk is read from memory once, checked and
  used while it is in cache.
* Under ``sklearn.config_context(assume_finite=True)`` the value checks of the
  probabilities are skipped (shapes, labels and weights are still checked): the user
  asserts the probabilities are valid, as sklearn's option asserts finiteness.

Array API inputs
----------------
With ``sklearn.set_config(array_api_dispatch=True)`` and ``y_proba`` an array of another
namespace (a PyTorch, CuPy or JAX array, ``array_api_strict``;
:func:`skcalib._core._array_api.get_namespace_and_device`), the probabilities are never
converted to numpy: :attr:`ClassificationInput.xp` and ``device`` say where they are,
the values are checked with the namespace's own reductions (:func:`checked_rows` yields
the whole array as one chunk: one reduction per check on a device), integers and bools
become the widest float of the device (float32 where it has no float64).  ``y_true``
may be an integer (or bool) array of the same namespace and device, whose classes are
found and encoded on the device (a bincount and a lookup table for integers of a small
range, else ``unique_values`` and ``searchsorted``; only the
``n_classes`` class values travel to the host, to be matched against ``labels`` and
``pos_label``), or any host array-like (labels of any kind), encoded on the host and then
moved to the device.  ``sample_weight`` likewise: a namespace array is checked there, a
host one is checked and moved.  Only the message of a failed check reads values on the
host.

Tolerance of the probability checks
-----------------------------------
A row of a 2-D ``y_proba`` must sum to 1 within :data:`PROBA_TOLERANCE`
(``sqrt(eps_float32)``, about 3.45e-4, the tolerance scikit-learn's ``log_loss`` uses for
float32), whatever the dtype of the array and the number of classes.  Probabilities
computed in float32 (a softmax on a GPU, ``predict_proba`` of a float32 model) miss 1 by
a few float32 ulps, also after conversion to float64, and pass; logits, unnormalised
scores and rows summing to 0.999 miss it by far more and are rejected.  float16 input
(half-precision softmax outputs) is checked with the machine epsilon of float16,
about 9.8e-4, the rounding of its own entries (:func:`row_sum_tolerance`).  Entries must be
``>= 0``; an entry of a 2-D row may exceed 1 by at most the same tolerance (a float32 row
such as ``[1.0003, 0, 0]``), and is binned as 1 (in the last bin), never dropped.  A 1-D
positive-class probability must lie in ``[0, 1]`` exactly.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn import get_config

from ._array_api import (
    float_dtype,
    get_namespace_and_device,
    has_fast_bincount,
    to_numpy,
    weighted_bincount,
)

__all__ = [
    "PROBA_TOLERANCE",
    "ClassificationInput",
    "check_classification_input",
    "check_classification_labels",
    "check_proba_chunk",
    "check_proba_values",
    "check_sample_shape",
    "check_sample_weight",
    "checked_rows",
    "iter_row_chunks",
    "row_chunks",
    "row_sum_tolerance",
    "rows_per_chunk",
]

#: Target size, in bytes, of one chunk of rows read by the chunked kernels: small enough
#: for the chunk and its temporaries (several arrays of the chunk's length) to stay in
#: the L2 cache of common CPUs.
CHUNK_BYTES = 1 << 18

#: Fewest rows of a chunk (wide rows: 1,000 float64 classes make 512 KiB chunks), so that
#: the fixed cost of the numpy calls on a chunk stays small against their work.
MIN_CHUNK_ROWS = 64


#: Largest supported total sample weight: leaves room for products of the total with the
#: number of classes and other factors without overflowing float64.
MAX_TOTAL_WEIGHT = 1e150

#: Smallest supported positive sample weight: squares of the weights (effective sample
#: sizes) neither overflow nor underflow between MIN_WEIGHT and MAX_TOTAL_WEIGHT.
MIN_WEIGHT = 1e-150


def rows_per_chunk(row_bytes, chunk_bytes=None):
    """Number of rows of ``row_bytes`` each in a chunk of :func:`iter_row_chunks`: those
    of ``chunk_bytes`` (default :data:`CHUNK_BYTES`), but at least :data:`MIN_CHUNK_ROWS`
    when no size is given, so that wide rows do not make the per-chunk overhead of numpy
    calls dominate."""
    if chunk_bytes is None:
        return max(MIN_CHUNK_ROWS, int(CHUNK_BYTES // max(int(row_bytes), 1)))
    return max(1, int(chunk_bytes // max(int(row_bytes), 1)))


def iter_row_chunks(n_rows, row_bytes, chunk_bytes=None):
    """Yield ``(start, stop)`` row ranges of about ``chunk_bytes`` each."""
    step = rows_per_chunk(row_bytes, chunk_bytes)
    for start in range(0, n_rows, step):
        yield start, min(start + step, n_rows)


#: Absolute tolerance of the probability checks: ``|sum(row) - 1| <= PROBA_TOLERANCE``
#: and ``p <= 1 + PROBA_TOLERANCE`` for the entries of a 2-D ``y_proba``.  The square root
#: of float32's machine epsilon, for every dtype and number of classes (module docstring).
PROBA_TOLERANCE = float(np.sqrt(np.finfo(np.float32).eps))


def row_sum_tolerance(dtype):
    """Absolute tolerance on ``|sum(row) - 1|`` for probabilities given in ``dtype``.

    :data:`PROBA_TOLERANCE` for float32, float64 and any exact type; the machine epsilon
    of a coarser floating type (float16: 9.77e-4), whose own rounding of each entry
    moves a row sum by up to half of it.

    Examples
    --------
    >>> import numpy as np
    >>> row_sum_tolerance(np.float64) == PROBA_TOLERANCE
    True
    >>> float(row_sum_tolerance(np.float16))
    0.0009765625
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return PROBA_TOLERANCE
    return max(PROBA_TOLERANCE, float(np.finfo(dtype).eps))


@dataclass(frozen=True)
class ClassificationInput:
    """Validated classification input.

    Attributes
    ----------
    y : ndarray of shape (n_samples,), integer dtype
        Index of each sample's label in ``classes``.
    proba : ndarray
        ``(n_samples,)`` probability of ``classes[pos_index]`` when ``binary_1d``;
        otherwise ``(n_samples, n_classes)`` with columns in ``classes`` order.  float32
        or float64, a view of the user's array whenever possible (never written to).
    classes : ndarray
        The class labels.
    pos_index : int or None
        Index of the positive class for binary problems (two classes), else None.
    sample_weight : ndarray of shape (n_samples,) float64, or None
    binary_1d : bool
        Whether ``proba`` is the 1-D positive-class probability.
    proba_name : str
        Name of the probability argument in error messages (``"y_proba"``, ``"X"``).
    tolerance : float
        Tolerance of the row sums of ``proba`` (:func:`row_sum_tolerance` of the dtype
        the caller passed).
    xp : namespace or None
        The array API namespace of ``proba``, ``y`` and ``sample_weight`` (on ``device``)
        when the input is an array of another library under
        ``array_api_dispatch=True``; None for numpy arrays (module docstring).
    device : device or None
        Their device.
    """

    y: np.ndarray
    proba: np.ndarray
    classes: np.ndarray
    pos_index: int | None
    sample_weight: np.ndarray | None
    binary_1d: bool
    proba_name: str = "y_proba"
    tolerance: float = PROBA_TOLERANCE
    xp: object = None
    device: object = None

    @property
    def n_samples(self):
        return self.y.shape[0]

    @property
    def n_classes(self):
        return len(self.classes)

    @property
    def is_binary(self):
        return self.n_classes == 2 or self.binary_1d


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _to_numpy(x, name):
    """Convert array-likes (lists, pandas objects, tensors) to numpy without needless copies.

    A tensor that requires grad (PyTorch) is detached first: a metric reads values and
    never differentiates through them.
    """
    if getattr(x, "requires_grad", False) and callable(getattr(x, "detach", None)):
        x = x.detach()
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        try:
            x = x.to_numpy()
        except Exception as exc:  # pragma: no cover - exotic frames
            raise ValueError(f"{name} could not be converted to a numpy array: {exc}") from exc
    try:
        arr = np.asarray(x)
    except Exception as exc:
        raise ValueError(f"{name} could not be converted to a numpy array: {exc}") from exc
    if arr.dtype.kind == "O" and arr.ndim >= 1:
        # ragged nested sequences become object arrays of lists
        if any(isinstance(v, list | tuple | np.ndarray) for v in arr.ravel()[:1000]):
            raise ValueError(f"{name} is ragged or nested: expected a 1-D or 2-D rectangular array")
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must contain real numbers, got complex dtype {arr.dtype}")
    return arr


def _as_float(arr, name):
    """``arr`` (a numpy array) as float32 or float64 numbers, without a copy when it is one.

    Booleans and integers become float64, float16 becomes float32, other floats float64.
    Strings (also inside object arrays), bytes, complex numbers, dates and anything that
    is not a real number raise a ValueError naming ``name`` (scikit-learn rejects them
    too: ``np.asarray(["0.2"]).astype(float)`` would silently parse them).
    """
    kind = arr.dtype.kind
    if kind == "f":
        if arr.dtype == np.float16:
            return arr.astype(np.float32)
        if arr.dtype not in (np.float32, np.float64):
            return arr.astype(np.float64)
        return arr
    if kind in "biu":
        return arr.astype(np.float64)
    if kind == "O":
        bad = next((v for v in arr.ravel() if not isinstance(v, numbers.Real)), None)
        if bad is None:
            with np.errstate(all="ignore"):
                return arr.astype(np.float64)
        raise ValueError(
            f"{name} must contain real numbers, got an object array holding "
            f"{type(bad).__name__} {bad!r}"
        )
    raise ValueError(f"{name} must contain real numbers, got dtype {arr.dtype}")


def _small_int_dtype(n_classes):
    if n_classes <= np.iinfo(np.uint8).max:
        return np.uint8
    if n_classes <= np.iinfo(np.uint16).max:
        return np.uint16
    return np.intp


def check_sample_weight(sample_weight, n_samples, name="sample_weight"):
    """Validate ``sample_weight``: 1-D, length ``n_samples``, finite, >= 0, positive sum.

    Returns None for None, else a float64 array (a copy only if the input is not float64).
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number) and not isinstance(sample_weight, bool):
        sw = np.full(n_samples, float(sample_weight))
    else:
        sw = np.asarray(_as_float(_to_numpy(sample_weight, name), name), dtype=np.float64)
    if sw.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {sw.shape}")
    if sw.shape[0] != n_samples:
        raise ValueError(f"{name} has {sw.shape[0]} elements but y_true has {n_samples} samples")
    if not np.isfinite(sw).all():
        raise ValueError(f"{name} contains NaN or infinity")
    if (sw < 0).any():
        i = int(np.flatnonzero(sw < 0)[0])
        raise ValueError(f"{name} must be non-negative; {name}[{i}] = {sw[i]!r}")
    with np.errstate(over="ignore"):
        total = sw.sum()
    if not total > 0:
        raise ValueError(f"{name} sums to zero: at least one sample needs a positive weight")
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"{name} is too large: it sums to {total:.3g} (at most {MAX_TOTAL_WEIGHT:.0e} "
            "is supported so that sums of squared weights cannot overflow); rescale the "
            "weights"
        )
    tiny = (sw > 0) & (sw < MIN_WEIGHT)
    if tiny.any():
        i = int(np.flatnonzero(tiny)[0])
        raise ValueError(
            f"{name} contains a positive value below {MIN_WEIGHT:.0e} ({name}[{i}] = "
            f"{sw[i]!r}) whose square underflows; use 0 to remove a sample, or rescale the "
            "weights"
        )
    return sw


def _check_y_true(y_true, name="y_true"):
    y = _to_numpy(y_true, name)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of class labels, got an array of shape {y.shape}"
        )
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty: need at least one sample")
    if y.dtype.kind == "f":
        if not np.isfinite(y).all():
            raise ValueError(f"{name} contains NaN or infinity")
    elif y.dtype.kind == "O":
        # pandas missing values
        for v in y[: min(len(y), 1_000_000)]:
            if v is None or (isinstance(v, float) and not np.isfinite(v)):
                raise ValueError(f"{name} contains missing values (None or NaN)")
    elif y.dtype.kind not in "biuUS":
        raise ValueError(f"{name} has an unsupported dtype {y.dtype}")
    return y


def _int_min_max(y):
    """(min, max) of an integer/bool array as Python ints, reading it once in chunks."""
    if y.dtype.kind == "b":
        y = y.view(np.uint8)
    mn = mx = None
    step = max(1, CHUNK_BYTES // y.itemsize)
    for start in range(0, y.shape[0], step):
        c = y[start : start + step]
        cmn, cmx = int(c.min()), int(c.max())
        mn = cmn if mn is None else min(mn, cmn)
        mx = cmx if mx is None else max(mx, cmx)
    return mn, mx


def _unique_labels(y, min_max=None):
    """Sorted unique labels of y, fast for small-range integers."""
    if y.dtype.kind == "b":
        mn, mx = min_max or _int_min_max(y)
        return np.array([False, True]) if mn != mx else np.array([bool(mn)])
    if y.dtype.kind in "iu":
        mn, mx = min_max or _int_min_max(y)
        span = mx - mn
        if span <= 1:
            return np.array([mn] if span == 0 else [mn, mx], dtype=y.dtype)
        if span < 1 << 16:
            # chunked bincount of y - min: O(chunk) extra memory, not O(n)
            present = np.zeros(span + 1, dtype=np.intp)
            step = max(1, CHUNK_BYTES // 8)
            for start in range(0, y.shape[0], step):
                # offsets in y's own dtype: exact for every integer dtype (uint64 too)
                c = (y[start : start + step] - y.dtype.type(mn)).astype(np.intp)
                present += np.bincount(c, minlength=span + 1)
            return np.flatnonzero(present).astype(y.dtype) + y.dtype.type(mn)
    try:
        return np.unique(y)
    except TypeError as exc:
        raise ValueError(f"y_true mixes label types that cannot be sorted: {exc}") from exc


#: integer labels spanning fewer values than this are encoded through a lookup table
LUT_RANGE = 1 << 16


def _label_lut(cls, mn, mx):
    """Index in the integer (or bool viewed as uint8) classes ``cls`` of each integer
    ``mn..mx``, -1 where it is not a class (int64, host)."""
    lut = np.full(mx - mn + 1, -1, dtype=np.int64)
    inside = np.flatnonzero((cls >= mn) & (cls <= mx))
    if inside.size:
        lut[(cls[inside] - cls.dtype.type(mn)).astype(np.intp)] = inside
    return lut


def _encode(y, classes, labels_given, min_max=None, name="y_true"):
    """Index of each element of y in ``classes``; ValueError naming missing labels.

    When the classes are ``0..k-1`` in order and y is an integer array, y already is the
    index array and is returned without a copy (it is never written to).
    """
    n_classes = len(classes)
    out_dtype = _small_int_dtype(n_classes)
    if y.dtype.kind in "biu" and classes.dtype.kind in "biu":
        yi = y.view(np.uint8) if y.dtype.kind == "b" else y
        cls = classes.view(np.uint8) if classes.dtype.kind == "b" else classes
        mn, mx = min_max or _int_min_max(yi)
        if mn >= 0 and mx < n_classes and np.array_equal(cls, np.arange(n_classes)):
            return yi
        if mx - mn < LUT_RANGE:
            # offsets from the minimum label, computed in each array's own dtype so that
            # every integer dtype (uint64 labels >= 2**63 included) is exact
            lut = _label_lut(cls, mn, mx)
            if mn == 0 and yi.dtype.itemsize <= 2 and yi.dtype.kind == "u":
                idx = lut[yi]
            else:
                idx = lut[(yi - yi.dtype.type(mn)).astype(np.intp)]
            if (idx < 0).any():
                _raise_missing(y, idx < 0, classes, labels_given, name)
            return idx.astype(out_dtype)
    # general path: search in the sorted classes
    try:
        sorter = np.argsort(classes, kind="stable")
        sorted_cls = classes[sorter]
        pos = np.searchsorted(sorted_cls, y)
    except TypeError as exc:
        raise ValueError(
            f"{name} labels cannot be compared with labels {list(classes)!r}: {exc}"
        ) from exc
    pos_c = np.minimum(pos, n_classes - 1)
    ok = sorted_cls[pos_c] == y
    if not np.all(ok):
        _raise_missing(y, ~np.asarray(ok, dtype=bool), classes, labels_given, name)
    return sorter[pos_c].astype(out_dtype)


def _raise_missing(y, mask, classes, labels_given, name="y_true"):
    missing = np.unique(np.asarray(y[mask]).astype(object).astype(str))[:5]
    where = "labels" if labels_given else "the classes"
    raise ValueError(
        f"{name} contains labels not in {where} {list(classes.tolist())!r}: {', '.join(missing)}"
    )


def _check_labels(labels):
    classes = _to_numpy(labels, "labels")
    if classes.ndim != 1:
        raise ValueError(f"labels must be 1-D, got shape {classes.shape}")
    if classes.shape[0] == 0:
        raise ValueError("labels is empty")
    try:
        uniq = np.unique(classes)
    except TypeError as exc:
        raise ValueError(f"labels mixes types that cannot be sorted: {exc}") from exc
    if len(uniq) != len(classes):
        raise ValueError(f"labels contains duplicates: {list(classes.tolist())!r}")
    return classes


def _check_proba_array(y_proba, name="y_proba"):
    """``y_proba`` as a 1-D or 2-D float32/float64 array, and the dtype it was given in."""
    P = _to_numpy(y_proba, name)
    given = P.dtype
    P = _as_float(P, name)
    if P.ndim == 0:
        raise ValueError(f"{name} must be 1-D or 2-D, got a scalar")
    if P.ndim > 2:
        raise ValueError(
            f"{name} must be 1-D (binary) or 2-D (n_samples, n_classes), got shape {P.shape}"
        )
    if P.ndim == 2 and P.shape[1] == 1:
        P = P[:, 0]
    if P.ndim == 2 and P.shape[1] == 0:
        raise ValueError(f"{name} has 0 columns")
    return P, given


def _format_value_error(P, start, upper=1.0, name="y_proba"):
    """Build the message for a chunk that failed the fast value check."""
    bad_nan = np.isnan(P)
    if bad_nan.any():
        idx = np.argwhere(bad_nan)[0]
        return f"{name} contains NaN (first at index {_fmt_index(idx, start)})"
    bad_inf = np.isinf(P)
    if bad_inf.any():
        idx = np.argwhere(bad_inf)[0]
        return f"{name} contains infinity (first at index {_fmt_index(idx, start)})"
    bad = (P < 0) | (P > upper)
    if bad.any():
        idx = np.argwhere(bad)[0]
        v = P[tuple(idx)]
        return (
            f"{name} must contain probabilities in [0, 1]; "
            f"{name}[{_fmt_index(idx, start)}] = {float(v)!r}"
        )
    return None


def _fmt_index(idx, start):
    idx = list(int(i) for i in idx)
    idx[0] += start
    return ", ".join(str(i) for i in idx)


# --------------------------------------------------------------------------------------
# array API inputs (module docstring): checks with the namespace's own functions
# --------------------------------------------------------------------------------------


def _detached(x):
    """``x.detach()`` for a tensor that requires grad, else ``x``."""
    if getattr(x, "requires_grad", False) and callable(getattr(x, "detach", None)):
        return x.detach()
    return x


def _check_proba_array_xp(P, name, xp, device):
    """:func:`_check_proba_array` for an array of the namespace ``xp``: the array in its
    computing dtype (:func:`~skcalib._core._array_api.float_dtype`) and the numpy dtype
    it was given in (for :func:`row_sum_tolerance`).  A tensor that requires grad is
    detached (a metric reads values)."""
    P = _detached(P)
    if xp.isdtype(P.dtype, "real floating"):
        given = np.float16 if P.dtype == getattr(xp, "float16", None) else np.float64
    elif xp.isdtype(P.dtype, ("integral", "bool")):
        given = np.float64
    else:
        raise ValueError(f"{name} must contain real numbers, got dtype {P.dtype}")
    if P.ndim == 0:
        raise ValueError(f"{name} must be 1-D or 2-D, got a scalar")
    if P.ndim > 2:
        raise ValueError(
            f"{name} must be 1-D (binary) or 2-D (n_samples, n_classes), got shape {tuple(P.shape)}"
        )
    dtype = float_dtype(P, xp, device)
    if P.dtype != dtype:
        P = xp.astype(P, dtype)
    if P.ndim == 2 and P.shape[1] == 1:
        P = P[:, 0]
    if P.ndim == 2 and P.shape[1] == 0:
        raise ValueError(f"{name} has 0 columns")
    return P, given


def _check_y_true_xp(y, name, xp):
    """:func:`_check_y_true` for labels in the namespace ``xp``: integers, bools, or
    floats with finite values."""
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of class labels, got an array of shape {tuple(y.shape)}"
        )
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty: need at least one sample")
    if xp.isdtype(y.dtype, "real floating"):
        if not bool(xp.all(xp.isfinite(y))):
            raise ValueError(f"{name} contains NaN or infinity")
    elif not xp.isdtype(y.dtype, ("integral", "bool")):
        raise ValueError(f"{name} has an unsupported dtype {y.dtype}")
    return y


def _int_range_xp(y, xp):
    """(min, max) of integer or bool labels of ``xp`` as Python ints (two reductions),
    None for floating labels or a range that int64 offsets cannot hold."""
    if xp.isdtype(y.dtype, "real floating"):
        return None
    yi = xp.astype(y, xp.int64) if y.dtype == xp.bool else y
    mn, mx = int(xp.min(yi)), int(xp.max(yi))
    return (mn, mx) if mx < 2**63 else None


def _unique_labels_xp(y, int_range, xp, device):
    """The sorted classes of ``y`` (an array of ``xp``) as a host array: from a
    bincount of the offsets for a small integer range where the namespace has a
    scatter-add (no sort of the data), else ``unique_values``."""
    if int_range is None or int_range[1] - int_range[0] >= LUT_RANGE or not has_fast_bincount(xp):
        return to_numpy(xp.unique_values(y), xp)
    mn, mx = int_range
    if mx - mn <= 1:  # the minimum and the maximum are the only values
        classes = np.arange(mn, mx + 1)
        return classes.astype(bool) if y.dtype == xp.bool else classes
    offset = xp.astype(y, xp.int64) - mn
    counts = to_numpy(weighted_bincount(offset, None, mx - mn + 1, xp, device), xp)
    classes = np.flatnonzero(counts > 0) + mn
    return classes.astype(bool) if y.dtype == xp.bool else classes


def _encode_xp(y, classes, labels_given, xp, device, name="y_true", int_range=None):
    """:func:`_encode` on the device: the index (int64) of each label of ``y`` (an
    array of ``xp``) in the host array ``classes``: ``y`` itself for the classes
    ``0..k-1``, a lookup table for integers of a small range (``int_range``, from
    :func:`_int_range_xp`), else ``searchsorted`` in the sorted classes."""
    if int_range is not None and classes.dtype.kind in "biu":
        mn, mx = int_range
        k = len(classes)
        cls = classes.view(np.uint8) if classes.dtype.kind == "b" else classes
        yi = xp.astype(y, xp.int64)
        if mn >= 0 and mx < k and np.array_equal(cls, np.arange(k)):
            return yi
        if mx - mn < LUT_RANGE:
            lut = xp.asarray(_label_lut(cls, mn, mx), device=device)
            idx = xp.take(lut, yi - mn)
            bad = idx < 0
            if bool(xp.any(bad)):
                missing = to_numpy(xp.unique_values(y[bad]), xp)
                _raise_missing(
                    missing, np.ones(missing.shape, dtype=bool), classes, labels_given, name
                )
            return idx
    if classes.dtype.kind not in "biuf":
        raise ValueError(
            f"{name} holds numbers but the classes are {list(classes.tolist())[:10]!r}"
        )
    sorter = np.argsort(classes, kind="stable")
    if y.dtype == xp.bool:
        y = xp.astype(y, xp.int64)
    floating = xp.isdtype(y.dtype, "real floating")
    host_dtype = np.float64 if floating else np.int64
    sorted_cls = xp.asarray(classes[sorter].astype(host_dtype), dtype=y.dtype, device=device)
    pos = xp.searchsorted(sorted_cls, y)
    pos = xp.clip(pos, 0, len(classes) - 1)
    ok = xp.take(sorted_cls, pos) == y
    if not bool(xp.all(ok)):
        missing = to_numpy(xp.unique_values(y[~ok]), xp)
        _raise_missing(missing, np.ones(missing.shape, dtype=bool), classes, labels_given, name)
    return xp.take(xp.asarray(sorter.astype(np.int64), device=device), pos)


def _check_sample_weight_xp(sample_weight, n_samples, xp, device, dtype, name="sample_weight"):
    """:func:`check_sample_weight` for array-API input: an array of ``xp`` is checked
    with the namespace's reductions; anything else is checked on the host and moved to
    ``device``.  In the computing ``dtype`` of the probabilities."""
    if sample_weight is None:
        return None
    if get_namespace_and_device(sample_weight)[0] is None:
        sw = check_sample_weight(sample_weight, n_samples, name)
        return xp.asarray(sw, dtype=dtype, device=device)
    sw = _detached(sample_weight)
    if not xp.isdtype(sw.dtype, ("real floating", "integral", "bool")):
        raise ValueError(f"{name} must contain real numbers, got dtype {sw.dtype}")
    sw = xp.astype(sw, dtype)
    if sw.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(sw.shape)}")
    if sw.shape[0] != n_samples:
        raise ValueError(f"{name} has {sw.shape[0]} elements but y_true has {n_samples} samples")
    if not bool(xp.all(xp.isfinite(sw))):
        raise ValueError(f"{name} contains NaN or infinity")
    if bool(xp.any(sw < 0)):
        raise ValueError(f"{name} must be non-negative; it has a value {float(xp.min(sw))!r}")
    total = float(xp.sum(sw))
    if not total > 0:
        raise ValueError(f"{name} sums to zero: at least one sample needs a positive weight")
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"{name} is too large: it sums to {total:.3g} (at most {MAX_TOTAL_WEIGHT:.0e} "
            "is supported); rescale the weights"
        )
    if bool(xp.any((sw > 0) & (sw < MIN_WEIGHT))):
        raise ValueError(
            f"{name} contains a positive value below {MIN_WEIGHT:.0e} whose square "
            "underflows; use 0 to remove a sample, or rescale the weights"
        )
    return sw


def _check_proba_xp(P, *, name, tolerance):
    """:func:`check_proba_chunk` of a whole array of another namespace: the checks are
    reductions of the namespace (a few scalars travel to the host); only a failed check
    reads the values on the host, to name the first bad entry."""
    xp, _ = get_namespace_and_device(P)
    if P.ndim == 1:
        ok = bool(xp.min(P) >= 0) and bool(xp.max(P) <= 1)  # False for NaN
    else:
        sums = xp.sum(P, axis=1)
        ok = (
            bool(xp.min(P) >= 0)
            and bool(xp.min(sums) >= 1 - tolerance)
            and bool(xp.max(sums) <= 1 + tolerance)
        )
    if not ok:
        check_proba_chunk(to_numpy(P, xp), 0, name=name, tolerance=tolerance)


def check_proba_chunk(chunk, start=0, *, name="y_proba", tolerance=PROBA_TOLERANCE):
    """Check a chunk of probabilities; raise ValueError naming the first bad entry.

    Parameters
    ----------
    chunk : ndarray, 1-D or 2-D
        Rows ``start:start + len(chunk)`` of the probability array.
    start : int
        Offset of the chunk, used in messages.
    name : str, default="y_proba"
        Name of the array in messages.
    tolerance : float, default=PROBA_TOLERANCE
        Tolerance of the row sums (:func:`row_sum_tolerance`).

    Notes
    -----
    A 1-D chunk must lie in ``[0, 1]``.  A 2-D chunk must be ``>= 0`` with rows summing
    to 1 within ``tolerance``, which also bounds every entry by ``1 + tolerance``.  NaN
    and infinity fail both checks.
    """
    if chunk.size == 0:
        return
    if chunk.ndim == 1:
        lo, hi = chunk.min(), chunk.max()
        if lo >= 0 and hi <= 1:  # False for NaN
            return
        raise ValueError(_format_value_error(chunk, start, name=name))
    with np.errstate(all="ignore"):  # NaN/inf rows: reported below, never raised here
        # einsum: as fast as a BLAS product on a chunk of any width, and single-threaded
        # (no BLAS threads competing with the caller's), unlike the matmul ufunc
        row_sums = np.einsum("ij->i", chunk)
    if chunk.min() >= 0 and row_sums.min() >= 1 - tolerance and row_sums.max() <= 1 + tolerance:
        return  # every comparison is False for NaN
    msg = _format_value_error(chunk, start, upper=1 + tolerance, name=name)
    if msg is None:
        with np.errstate(all="ignore"):
            dev = np.abs(row_sums - 1)
        i = int(np.flatnonzero(~(dev <= tolerance))[0])
        msg = (
            f"{name} rows must sum to 1 (tolerance {tolerance:.2e}); "
            f"row {start + i} sums to {float(row_sums[i])!r}. "
            "Pass probabilities (e.g. from predict_proba or a softmax), not scores or logits"
        )
    raise ValueError(msg)


def row_chunks(P):
    """Yield ``(start, stop, chunk)``: consecutive cache-sized chunks of rows of ``P``.

    Examples
    --------
    >>> P = np.array([[0.2, 0.8], [0.5, 0.5]])
    >>> [(start, stop, chunk.shape) for start, stop, chunk in row_chunks(P)]
    [(0, 2, (2, 2))]
    """
    if not isinstance(P, np.ndarray):  # an array API array: one chunk (module docstring)
        yield 0, P.shape[0], P
        return
    row_bytes = P.itemsize * (P.shape[1] if P.ndim == 2 else 1)
    for start, stop in iter_row_chunks(P.shape[0], row_bytes):
        yield start, stop, P[start:stop]


def checked_rows(P, *, name="y_proba", tolerance=PROBA_TOLERANCE):
    """:func:`row_chunks` of a probability array, each checked before it is yielded.

    The one place where probability values are checked: a metric that reads the whole
    array reads it through this generator and uses each chunk while it is in cache.
    Under ``sklearn.config_context(assume_finite=True)`` the chunks are yielded
    unchecked.

    Parameters
    ----------
    P : ndarray of shape (n_samples,) or (n_samples, n_classes)
        Probabilities (float32 or float64).
    name : str, default="y_proba"
        Name of the array in error messages.
    tolerance : float, default=PROBA_TOLERANCE
        Tolerance of the row sums (:func:`row_sum_tolerance`).

    Yields
    ------
    start, stop : int
        The rows of the chunk.
    chunk : ndarray
        ``P[start:stop]``, a view.

    Examples
    --------
    >>> P = np.array([[0.2, 0.8], [0.5, 0.6]])
    >>> for start, stop, chunk in checked_rows(P):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: y_proba rows must sum to 1 (tolerance 3.45e-04); row 1 sums to 1.1. ...
    """
    trusted = get_config()["assume_finite"]
    if not isinstance(P, np.ndarray):  # an array API array (module docstring)
        if not trusted:
            _check_proba_xp(P, name=name, tolerance=tolerance)
        yield 0, P.shape[0], P
        return
    for start, stop, chunk in row_chunks(P):
        if not trusted:
            check_proba_chunk(chunk, start, name=name, tolerance=tolerance)
        yield start, stop, chunk


def check_proba_values(P, *, name="y_proba", tolerance=PROBA_TOLERANCE):
    """Check a whole probability array (one chunked pass, no copy); see
    :func:`checked_rows`."""
    for _ in checked_rows(P, name=name, tolerance=tolerance):
        pass


def check_classification_input(
    y_true,
    y_proba,
    *,
    sample_weight=None,
    labels=None,
    pos_label=None,
    y_name="y_true",
    proba_name="y_proba",
    array_api=False,
):
    """Validate classification targets and predicted probabilities, values included.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Class labels of any kind scikit-learn accepts.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        1-D: probability of the positive class (``pos_label``; without it, the labels
        must be ``{0, 1}`` or ``{-1, 1}`` (or one of them), and the positive class is 1,
        as in scikit-learn's binary metrics).  2-D: one column per class in ``labels``
        order (sorted labels by default), as returned by ``predict_proba``.
    sample_weight : array-like of shape (n_samples,), default=None
    labels : array-like, default=None
        The classes and their column order.  Default: the sorted unique labels of
        ``y_true``, which must then be as many as the columns of a 2-D ``y_proba``
        (a class missing from ``y_true`` cannot be placed: pass ``labels=``).
    pos_label : label, default=None
        Positive class of a binary problem.  Default: 1 for a 1-D ``y_proba`` (see
        above); the greater of the two classes (the second column) for a 2-D one.
    y_name, proba_name : str, default="y_true", "y_proba"
        Names of the two arrays in error messages (the caller's argument names).
    array_api : bool, default=False
        Whether the caller computes in the namespace of array-API input (module
        docstring): then the arrays stay in their namespace and on their device
        (:attr:`ClassificationInput.xp`); otherwise arrays of another namespace are
        copied to numpy on the host (explicitly, so that GPU arrays work too) and the
        result is numpy, as with ``array_api_dispatch=False``.

    Returns
    -------
    ClassificationInput
        The encoded labels, the probabilities (a view of the input whenever possible),
        the classes, the positive class and the weights.
    """
    data = check_classification_labels(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        y_name=y_name,
        proba_name=proba_name,
        array_api=array_api,
    )
    check_proba_values(data.proba, name=proba_name, tolerance=data.tolerance)
    return data


def check_classification_labels(
    y_true,
    y_proba,
    *,
    sample_weight=None,
    labels=None,
    pos_label=None,
    y_name="y_true",
    proba_name="y_proba",
    array_api=False,
):
    """:func:`check_classification_input` without the check of the probability values.

    For the metrics that read the whole of ``y_proba`` in one pass anyway: they read it
    through :func:`checked_rows` (``name=data.proba_name, tolerance=data.tolerance``), so
    that every value is checked once, in the chunk that is then used.  Anything else
    must call :func:`check_classification_input`.
    """
    xp, device = get_namespace_and_device(y_proba)
    if xp is not None and not array_api:  # a host copy, for a numpy-only caller
        y_true, y_proba, sample_weight = (
            a if get_namespace_and_device(a)[0] is None else to_numpy(a, xp)
            for a in (y_true, y_proba, sample_weight)
        )
        xp = device = None
    y_dev = None  # y_true as an array of xp on the device
    if xp is None:
        P, given_dtype = _check_proba_array(y_proba, proba_name)
    else:
        P, given_dtype = _check_proba_array_xp(y_proba, proba_name, xp, device)
        if get_namespace_and_device(y_true)[0] is not None:
            get_namespace_and_device(y_true, y_proba)  # scikit-learn's error if mixed
            y_dev = _check_y_true_xp(y_true, y_name, xp)
    y = _check_y_true(y_true, y_name) if y_dev is None else y_dev
    n = y.shape[0]
    if P.shape[0] != n:
        raise ValueError(
            f"{y_name} and {proba_name} have different numbers of samples: {n} and {P.shape[0]}"
        )
    labels_given = labels is not None
    min_max = _int_min_max(y) if y_dev is None and y.dtype.kind in "biu" else None
    int_range = None if y_dev is None else _int_range_xp(y_dev, xp)
    if labels_given:
        classes = _check_labels(labels)
    elif y_dev is None:
        classes = _unique_labels(y, min_max)
    else:
        classes = _unique_labels_xp(y_dev, int_range, xp, device)  # n_classes values
    binary_1d = P.ndim == 1
    names = (y_name, proba_name)

    if binary_1d:
        classes, pos_index = _binary_classes(classes, pos_label, labels_given, names)
    else:
        k = P.shape[1]
        if len(classes) != k:
            src = "labels" if labels_given else y_name
            hint = (
                ""
                if labels_given
                else (
                    f"; the classes cannot be inferred from {y_name} when some are missing "
                    "from it: pass labels= (e.g. the classes_ of the model), in the column "
                    f"order of {proba_name}"
                )
            )
            raise ValueError(
                f"{proba_name} has {k} columns but {src} has {len(classes)} classes "
                f"{list(classes.tolist())[:10]!r}{hint}"
            )
        pos_index = None
        if k == 2:
            pos_index = (
                _greater_index(classes) if pos_label is None else _index_of(classes, pos_label)
            )
        elif pos_label is not None:
            raise ValueError(
                f"pos_label={pos_label!r} is only meaningful for binary problems, "
                f"{proba_name} has {k} columns"
            )

    if xp is None:
        y_idx = _encode(y, classes, labels_given, min_max, y_name)
        sw = check_sample_weight(sample_weight, n)
    else:
        if y_dev is None:
            y_idx = _encode(y, classes, labels_given, min_max, y_name)
            y_idx = xp.asarray(y_idx.astype(np.int64), device=device)
        else:
            y_idx = _encode_xp(y_dev, classes, labels_given, xp, device, y_name, int_range)
        sw = _check_sample_weight_xp(sample_weight, n, xp, device, P.dtype)
    return ClassificationInput(
        y=y_idx,
        proba=P,
        classes=classes,
        pos_index=pos_index,
        sample_weight=sw,
        binary_1d=binary_1d,
        proba_name=proba_name,
        tolerance=row_sum_tolerance(given_dtype),
        xp=xp,
        device=device,
    )


def _greater_index(classes):
    """Index of the greater of two (sortable, validated) classes."""
    return int(np.argsort(classes, kind="stable")[-1])


def _index_of(classes, label):
    matches = (
        np.flatnonzero(classes == label)
        if classes.dtype.kind != "O"
        else [i for i, c in enumerate(classes) if c == label]
    )
    if len(matches) == 0:
        raise ValueError(
            f"pos_label={label!r} is not one of the classes {list(classes.tolist())!r}"
        )
    return int(matches[0])


def _is_default_binary(classes):
    """Whether the classes are {0, 1}, {-1, 1} or one of them: scikit-learn's rule for
    taking 1 as the positive class when ``pos_label`` is not given."""
    if classes.dtype.kind not in "biuf":
        return False
    values = set(classes.tolist())
    return values <= {0, 1} or values <= {-1, 1}


def _binary_classes(classes, pos_label, labels_given, names):
    """Classes and positive index for a 1-D (positive-class) probability vector."""
    y_name, proba_name = names
    src = "labels" if labels_given else y_name
    n_cls = len(classes)
    if n_cls > 2:
        raise ValueError(
            f"{proba_name} is 1-D (binary) but {src} has {n_cls} classes "
            f"{list(classes.tolist())[:10]!r}; pass a 2-D {proba_name} of shape "
            "(n_samples, n_classes) for multiclass problems"
        )
    if pos_label is None:
        if not _is_default_binary(classes):
            shown = ", ".join(repr(c) for c in classes.tolist())
            raise ValueError(
                f"{src} takes values in {{{shown}}} and pos_label is not specified, so it "
                f"is not known which class {proba_name} (1-D) is the probability of: "
                f"pass pos_label=, or make {src} take values in {{0, 1}} or {{-1, 1}}"
            )
        pos_label = True if classes.dtype.kind == "b" else 1
    if n_cls == 2:
        return classes, _index_of(classes, pos_label)
    # a single class: add the other one
    (only,) = classes.tolist()
    if only == pos_label:
        other = _implicit_negative(only)
        if other is None:
            return classes, 0
        return np.array([other, only], dtype=classes.dtype), 1
    try:
        both = np.array([only, pos_label])
    except Exception:  # pragma: no cover
        both = np.array([only, pos_label], dtype=object)
    return both, 1


def _implicit_negative(pos):
    if isinstance(pos, bool | np.bool_):
        return False
    if isinstance(pos, numbers.Integral | numbers.Real) and pos == 1:
        return 0
    return None


# --------------------------------------------------------------------------------------
# real-valued arrays (regression targets, forecasts, log probabilities)
# --------------------------------------------------------------------------------------


def _check_real_array(x, name, *, ndim=1, n=None, allow_scalar=False):
    """Real-valued 1-D (or 2-D) array, float32/float64, no copy when possible.

    Finiteness is checked by the callers (fused into their kernels).
    """
    return check_sample_shape(
        _as_float(_to_numpy(x, name), name), name, ndim=ndim, n=n, allow_scalar=allow_scalar
    )


def check_sample_shape(arr, name, *, ndim=1, n=None, allow_scalar=False):
    """The shape checks of a per-sample array of any namespace (numpy or array API):
    ``ndim`` dimensions (a column vector counts as 1-D and is returned as one), at least
    one sample, ``n`` samples when given; a 0-d array passes with ``allow_scalar``."""
    if allow_scalar and arr.ndim == 0:
        return arr
    if ndim == 1 and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != ndim:
        what = "a 1-D array" if ndim == 1 else "a 2-D array of shape (n_samples, n_draws)"
        extra = " or a scalar" if allow_scalar else ""
        raise ValueError(f"{name} must be {what}{extra}, got shape {tuple(arr.shape)}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: need at least one sample")
    if n is not None and arr.shape[0] != n:
        raise ValueError(
            f"y_true and {name} have different numbers of samples: {n} and {arr.shape[0]}"
        )
    if ndim == 2 and arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 columns (draws)")
    return arr


def _find_nonfinite(arr, name):
    """Raise ValueError naming the first NaN/inf of ``arr`` (chunked scan); else return."""
    if arr.ndim == 0:
        if not np.isfinite(arr):
            raise ValueError(f"{name} is {float(arr)!r}: must be finite")
        return
    row = arr.itemsize * (arr.shape[1] if arr.ndim == 2 else 1)
    for start, stop in iter_row_chunks(arr.shape[0], row):
        c = arr[start:stop]
        ok = np.isfinite(c)
        if not ok.all():
            idx = [int(i) for i in np.argwhere(~ok)[0]]
            idx[0] += start
            v = float(arr[tuple(idx)])
            kind = "NaN" if np.isnan(v) else "infinity"
            where = ", ".join(str(i) for i in idx)
            raise ValueError(f"{name} contains {kind} (first at index {where})")


def _check_positive(arr, name):
    if arr.ndim == 0:
        if not arr > 0:
            raise ValueError(f"{name} must be strictly positive, got {float(arr)!r}")
        return
    for start, stop in iter_row_chunks(arr.shape[0], arr.itemsize):
        c = arr[start:stop]
        if not c.min() > 0:
            _find_nonfinite(c, name)
            i = int(np.flatnonzero(~(c > 0))[0])
            raise ValueError(
                f"{name} must be strictly positive; {name}[{start + i}] = {float(c[i])!r}"
            )
