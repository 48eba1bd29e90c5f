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
  (:func:`check_proba_chunk`).  For a 2-D array the per-row sum (a single-threaded
  ``einsum``) both checks that rows sum to one and rules out NaN and inf in that row (a row
  with a NaN or inf cannot have a finite sum close to 1), and a chunk minimum checks the
  lower bound.
* Validation happens once, at the public boundary; kernels take validated arrays.
  :func:`check_classification_input` checks everything, values included, in its own
  pass.  The few hot metrics that read the whole probability matrix anyway (the binned
  calibration errors, the Brier score, the log-likelihood) instead call
  :func:`check_classification_labels` (everything but the probability values) and then
  loop over :func:`input_chunks` themselves: each chunk is checked
  (:func:`check_proba_chunk`) and then given to the kernel while it is in cache, and the
  per-chunk results are merged, so that the data is read from memory once.  A kernel
  whose per-chunk work cannot fail on any value (the row argmax of top-label
  calibration) may instead keep each chunk's reductions (minimum, row sums) and compare
  them after the loop (:func:`check_proba_reductions`), with the same errors.
* ``sklearn.config_context(assume_finite=True)`` does not skip the probability checks:
  as for scikit-learn's ``log_loss``, the range and row-sum checks are always made (they
  also reject NaN and infinity, so they need no separate finiteness scan).

Array API inputs
----------------
With ``sklearn.set_config(array_api_dispatch=True)`` and ``y_proba`` an array of another
namespace (a PyTorch, CuPy or JAX array, ``array_api_strict``;
:func:`skcalib._core._array_api.get_namespace_and_device`), the probabilities are never
converted to numpy: :attr:`ClassificationInput.xp` and ``device`` say where they are,
the values are checked with the namespace's own reductions (:func:`input_chunks` yields
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

from ._array_api import (
    _numpy_namespace,
    float_dtype,
    get_namespace_and_device,
    has_fast_bincount,
    host_view,
    in_unit_interval,
    is_numpy_namespace,
    min_max,
    min_value,
    namespace_and_device,
    row_ranges,
    row_sums,
    to_numpy,
    weighted_bincount,
)
from ._chunks import iter_row_chunks, rows_per_chunk

__all__ = [
    "PROBA_TOLERANCE",
    "ClassificationInput",
    "check_classification_input",
    "check_classification_labels",
    "check_outcome_chunk",
    "check_proba_chunk",
    "check_proba_reductions",
    "check_proba_values",
    "check_sample_shape",
    "check_sample_weight",
    "input_chunks",
    "input_ranges",
    "iter_row_chunks",
    "row_chunks",
    "row_sum_tolerance",
    "rows_per_chunk",
]

#: Largest supported total sample weight: leaves room for products of the total with the
#: number of classes and other factors without overflowing float64.
MAX_TOTAL_WEIGHT = 1e150

#: Smallest supported positive sample weight: squares of the weights (effective sample
#: sizes) neither overflow nor underflow between MIN_WEIGHT and MAX_TOTAL_WEIGHT.
MIN_WEIGHT = 1e-150


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
    outcome_unchecked : bool
        Whether ``y`` holds integer labels of a 1-D ``proba`` taken as the 0/1
        outcome without having been read (``check_classification_labels(...,
        outcome_labels=True)``): the caller checks each chunk of them
        (:func:`check_outcome_chunk`) before using it.
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
    outcome_unchecked: bool = False

    @property
    def n_samples(self):
        return self.y.shape[0]

    @property
    def n_classes(self):
        return len(self.classes)

    @property
    def is_binary(self):
        return self.n_classes == 2 or self.binary_1d

    @property
    def namespace(self):
        """``(xp, device)`` of the arrays: ``xp`` and ``device``, or numpy's array API
        namespace and ``"cpu"`` for numpy input (kernels are written once against it)."""
        if self.xp is None:
            return _numpy_namespace(), "cpu"
        return self.xp, self.device

    def rows(self, start, stop):
        """The input restricted to the rows ``start:stop`` (views of the arrays)."""
        if start == 0 and stop >= self.n_samples:
            return self
        part = object.__new__(ClassificationInput)
        fields = part.__dict__
        fields.update(self.__dict__)
        fields["y"] = self.y[start:stop]
        fields["proba"] = self.proba[start:stop, ...]
        if self.sample_weight is not None:
            fields["sample_weight"] = self.sample_weight[start:stop]
        return part


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


def _index_dtype(n_classes, xp):
    """dtype of encoded labels: the smallest unsigned integer holding the class indices
    for numpy (less memory to read), int64 (the index dtype of every namespace) else."""
    if is_numpy_namespace(xp):
        return _small_int_dtype(n_classes)
    return xp.int64


def _is_host(x):
    """Whether ``x`` is host data (numpy, pandas, lists, scalars), not an array of
    another namespace."""
    return get_namespace_and_device(x)[0] is None


def check_sample_weight(
    sample_weight, n_samples, name="sample_weight", *, xp=None, device=None, dtype=None
):
    """Validate ``sample_weight``: 1-D, length ``n_samples``, finite, >= 0, positive sum.

    Returns None for None.  Host weights (numbers, lists, numpy, pandas) are checked as
    float64 numpy arrays (a copy only if the input is not float64); for array-API input
    (``xp`` not numpy) they are then moved to ``device`` in ``dtype``.  Weights that
    already are an array of ``xp`` are checked there, with the same reductions: only a
    failed check reads values on the host, to name the first bad one.
    """
    if sample_weight is None:
        return None
    to_device = xp is not None and not is_numpy_namespace(xp)
    host = not to_device or _is_host(sample_weight)
    if host:
        if isinstance(sample_weight, numbers.Number) and not isinstance(sample_weight, bool):
            sw = np.full(n_samples, float(sample_weight))
        else:
            sw = np.asarray(_as_float(_to_numpy(sample_weight, name), name), dtype=np.float64)
        sxp = _numpy_namespace()
    else:
        sxp = xp
        sw = _detached(sample_weight)
        if not sxp.isdtype(sw.dtype, ("real floating", "integral", "bool")):
            raise ValueError(f"{name} must contain real numbers, got dtype {sw.dtype}")
        sw = sxp.astype(sw, dtype if dtype is not None else float_dtype(sw, sxp, device))
    if sw.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(sw.shape)}")
    if sw.shape[0] != n_samples:
        raise ValueError(f"{name} has {sw.shape[0]} elements but y_true has {n_samples} samples")
    if not bool(sxp.all(sxp.isfinite(sw))):
        raise ValueError(f"{name} contains NaN or infinity")
    negative = sw < 0
    if bool(sxp.any(negative)):
        i = _first_true(negative, sxp)
        raise ValueError(f"{name} must be non-negative; {name}[{i}] = {_host_item(sw, i, sxp)!r}")
    with np.errstate(over="ignore"):
        total = float(sxp.sum(sw))
    if not total > 0:
        raise ValueError(f"{name} sums to zero: at least one sample needs a positive weight")
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"{name} is too large: it sums to {total:.3g} (at most {MAX_TOTAL_WEIGHT:.0e} "
            "is supported so that sums of squared weights cannot overflow); rescale the "
            "weights"
        )
    tiny = (sw > 0) & (sw < MIN_WEIGHT)
    if bool(sxp.any(tiny)):
        i = _first_true(tiny, sxp)
        raise ValueError(
            f"{name} contains a positive value below {MIN_WEIGHT:.0e} ({name}[{i}] = "
            f"{_host_item(sw, i, sxp)!r}) whose square underflows; use 0 to remove a sample, "
            "or rescale the weights"
        )
    if host and to_device:
        return xp.asarray(sw, dtype=dtype, device=device)
    return sw


def _first_true(mask, xp):
    """Index of the first True of a 1-D boolean array (read on the host)."""
    return int(np.flatnonzero(to_numpy(mask, xp))[0])


def _host_item(x, i, xp):
    """``x[i]`` as a numpy scalar (for messages)."""
    return to_numpy(x[i : i + 1], xp)[0]


def _check_y_true(y_true, name="y_true", xp=None):
    """Labels as a 1-D array: host labels of any kind scikit-learn accepts (numpy), or,
    for array-API input (``xp`` not numpy), an integer, bool or floating array of
    ``xp``, which stays there."""
    host = xp is None or is_numpy_namespace(xp) or _is_host(y_true)
    if host:
        y = _to_numpy(y_true, name)
        yxp = _numpy_namespace()
    else:
        y = _detached(y_true)
        yxp = xp
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of class labels, got an array of shape {tuple(y.shape)}"
        )
    if y.shape[0] == 0:
        raise ValueError(f"{name} is empty: need at least one sample")
    kind = y.dtype.kind if host else None
    if kind == "O":
        # pandas missing values
        for v in y[: min(len(y), 1_000_000)]:
            if v is None or (isinstance(v, float) and not np.isfinite(v)):
                raise ValueError(f"{name} contains missing values (None or NaN)")
    elif kind in ("U", "S"):
        pass
    elif yxp.isdtype(y.dtype, "real floating"):
        if not bool(yxp.all(yxp.isfinite(y))):
            raise ValueError(f"{name} contains NaN or infinity")
    elif not yxp.isdtype(y.dtype, ("integral", "bool")):
        raise ValueError(f"{name} has an unsupported dtype {y.dtype}")
    return y


def _is_int_labels(y, xp):
    """Whether ``y`` holds integers or bools (of numpy or of ``xp``)."""
    if isinstance(y, np.ndarray):
        return y.dtype.kind in "biu"
    return xp.isdtype(y.dtype, ("integral", "bool"))


def _int_min_max(y, xp=None):
    """(min, max) of an integer/bool array as Python ints: numpy (and a PyTorch CPU
    tensor's memory, :func:`~skcalib._core._array_api.host_view`) reads it once in
    cache-sized chunks, another namespace with two reductions."""
    xp = _numpy_namespace() if xp is None else xp
    if not isinstance(y, np.ndarray) and host_view(y, xp) is not None:
        y, xp = host_view(y, xp), _numpy_namespace()  # a PyTorch CPU tensor's memory
    if isinstance(y, np.ndarray):
        if y.dtype.kind == "b":
            y = y.view(np.uint8)
    elif y.dtype == xp.bool:
        y = xp.astype(y, xp.int64)
    mn = mx = None
    for start, stop in row_ranges(y.shape[0], getattr(y, "itemsize", 8), xp):
        c = y[start:stop]
        cmn, cmx = int(xp.min(c)), int(xp.max(c))
        mn = cmn if mn is None else min(mn, cmn)
        mx = cmx if mx is None else max(mx, cmx)
    return mn, mx


def _unique_labels(y, min_max=None, xp=None, device=None):
    """Sorted unique labels of ``y`` as a host array: from a bincount of the offsets for
    integers of a small range (no sort; numpy reads ``y`` in chunks), else a sort."""
    xp = _numpy_namespace() if xp is None else xp
    host = isinstance(y, np.ndarray)
    is_bool = y.dtype.kind == "b" if host else y.dtype == xp.bool
    if is_bool:
        mn, mx = min_max or _int_min_max(y, xp)
        return np.array([False, True]) if mn != mx else np.array([bool(mn)])
    if _is_int_labels(y, xp) and has_fast_bincount(xp):
        mn, mx = min_max or _int_min_max(y, xp)
        span = mx - mn
        out_dtype = y.dtype if host else np.int64
        if span <= 1:
            return np.array([mn] if span == 0 else [mn, mx], dtype=out_dtype)
        if span < LUT_RANGE and mx < 2**63:
            # offsets in y's own dtype: exact for every integer dtype (uint64 too)
            present = np.zeros(span + 1)
            for start, stop in row_ranges(y.shape[0], 8, xp):
                c = xp.astype(y[start:stop] - mn, xp.int64)
                present += to_numpy(weighted_bincount(c, None, span + 1, xp, device), xp)
            if host:
                return np.flatnonzero(present).astype(y.dtype) + y.dtype.type(mn)
            return np.flatnonzero(present) + mn
    if not host:
        return to_numpy(xp.unique_values(y), xp)
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


def _encode(y, classes, labels_given, min_max=None, name="y_true", xp=None, device=None):
    """Index of each element of ``y`` in the host array ``classes``; ValueError naming
    missing labels.

    ``y`` is a host array or an array of ``xp`` on ``device`` (the result is then there,
    int64).  For integer labels: when the classes are ``0..k-1`` in order, ``y`` already
    is the index array and is returned without a copy (numpy; never written to); for a
    small range, a lookup table.  Otherwise a binary search in the sorted classes.
    """
    xp = _numpy_namespace() if xp is None else xp
    host = isinstance(y, np.ndarray)
    n_classes = len(classes)
    out_dtype = _index_dtype(n_classes, xp)
    if _is_int_labels(y, xp) and classes.dtype.kind in "biu":
        if host:
            yi = y.view(np.uint8) if y.dtype.kind == "b" else y
        else:
            yi = xp.astype(y, xp.int64) if y.dtype == xp.bool else y
        cls = classes.view(np.uint8) if classes.dtype.kind == "b" else classes
        mn, mx = min_max or _int_min_max(yi, xp)
        if mn >= 0 and mx < n_classes and np.array_equal(cls, np.arange(n_classes)):
            return yi if host else xp.astype(yi, xp.int64)
        if mx - mn < LUT_RANGE and (host or mx < 2**63):
            # offsets from the minimum label, computed in each array's own dtype so that
            # every integer dtype (uint64 labels >= 2**63 included) is exact
            lut = xp.asarray(_label_lut(cls, mn, mx), device=device)
            small = host and mn == 0 and yi.dtype.itemsize <= 2 and yi.dtype.kind == "u"
            idx = xp.take(lut, yi if small else xp.astype(yi - mn, xp.int64))
            bad = idx < 0
            if bool(xp.any(bad)):
                missing = to_numpy(y[bad], xp)
                everywhere = np.ones(missing.shape, dtype=bool)
                _raise_missing(missing, everywhere, classes, labels_given, name)
            return xp.astype(idx, out_dtype)
    if not host:
        return _encode_sorted(y, classes, labels_given, name, xp, device)
    # host labels of any kind: search in the sorted classes
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


def _encode_sorted(y, classes, labels_given, name, xp, device):
    """:func:`_encode` of numeric labels of another namespace: ``searchsorted`` in the
    sorted classes, on the device."""
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


def _detached(x):
    """``x.detach()`` for a tensor that requires grad, else ``x``."""
    if getattr(x, "requires_grad", False) and callable(getattr(x, "detach", None)):
        return x.detach()
    return x


def _check_proba_array(y_proba, name="y_proba", xp=None, device=None):
    """``y_proba`` as a 1-D or 2-D float32/float64 array, and the (numpy) dtype it was
    given in (for :func:`row_sum_tolerance`).

    Host input (lists, pandas, numpy; ``xp`` None or numpy) becomes numpy by the rules
    of :func:`_as_float`; an array of another namespace ``xp`` stays there, in its
    computing dtype (:func:`~skcalib._core._array_api.float_dtype`; a tensor that
    requires grad is detached: a metric reads values).
    """
    if xp is None or is_numpy_namespace(xp):
        P = _to_numpy(y_proba, name)
        given = P.dtype
        P = _as_float(P, name)
    else:
        P = _detached(y_proba)
        if xp.isdtype(P.dtype, "real floating"):
            given = np.float16 if P.dtype == getattr(xp, "float16", None) else np.float64
        elif xp.isdtype(P.dtype, ("integral", "bool")):
            given = np.float64
        else:
            raise ValueError(f"{name} must contain real numbers, got dtype {P.dtype}")
        if P.ndim in (1, 2):
            dtype = float_dtype(P, xp, device)
            if P.dtype != dtype:
                P = xp.astype(P, dtype)
    if P.ndim == 0:
        raise ValueError(f"{name} must be 1-D or 2-D, got a scalar")
    if P.ndim > 2:
        raise ValueError(
            f"{name} must be 1-D (binary) or 2-D (n_samples, n_classes), got shape {tuple(P.shape)}"
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


def check_proba_chunk(chunk, start=0, *, name="y_proba", tolerance=PROBA_TOLERANCE, xp=None):
    """Check a chunk of probabilities; raise ValueError naming the first bad entry.

    Parameters
    ----------
    chunk : array, 1-D or 2-D
        Rows ``start:start + len(chunk)`` of the probability array: numpy, or an array
        of the namespace ``xp`` (checked with its reductions, on its device).
    start : int
        Offset of the chunk, used in messages.
    name : str, default="y_proba"
        Name of the array in messages.
    tolerance : float, default=PROBA_TOLERANCE
        Tolerance of the row sums (:func:`row_sum_tolerance`).
    xp : namespace, default=None
        The namespace of ``chunk`` (default: found from ``chunk``).

    Notes
    -----
    A 1-D chunk must lie in ``[0, 1]``.  A 2-D chunk must be ``>= 0`` with rows summing
    to 1 within ``tolerance``, which also bounds every entry by ``1 + tolerance``.  NaN
    and infinity fail both checks, so these checks need no separate finiteness scan and
    are made whatever ``assume_finite`` says.  Only a failed check reads values on the
    host (a copy of the chunk), to name the first bad entry.
    """
    if chunk.shape[0] == 0 or (chunk.ndim == 2 and chunk.shape[1] == 0):
        return
    if xp is None:
        xp = namespace_and_device(chunk)[0]
    if chunk.ndim == 1:
        if in_unit_interval(chunk, xp):  # one reduction for numpy
            return
        lo, hi = min_max(chunk, xp)
        if lo >= 0 and hi <= 1:  # False for NaN; True for -0.0
            return
        raise ValueError(_format_value_error(to_numpy(chunk, xp), start, name=name))
    # numpy: a single-threaded einsum, as fast as a BLAS product on a chunk of any width
    # (no BLAS threads competing with the caller's); NaN/inf rows give NaN sums, reported
    # below and never raised as floating-point warnings
    sums = row_sums(chunk, xp)
    if min_value(chunk, xp) >= 0:
        low, high = _sum_bounds(tolerance, sums.dtype == xp.float32)
        smin, smax = min_max(sums, xp)
        if smin >= low and smax <= high:
            return  # every comparison is False for NaN
    chunk, row_sums_ = to_numpy(chunk, xp), to_numpy(sums, xp)
    msg = _format_value_error(chunk, start, upper=1 + tolerance, name=name)
    if msg is None:
        with np.errstate(all="ignore"):
            dev = np.abs(row_sums_ - 1)
        i = int(np.flatnonzero(~(dev <= tolerance))[0])
        msg = (
            f"{name} rows must sum to 1 (tolerance {tolerance:.2e}); "
            f"row {start + i} sums to {float(row_sums_[i])!r}. "
            "Pass probabilities (e.g. from predict_proba or a softmax), not scores or logits"
        )
    raise ValueError(msg)


def check_proba_reductions(
    P, ranges, nonnegative, sums, *, name="y_proba", tolerance=PROBA_TOLERANCE, xp
):
    """:func:`check_proba_chunk` of every chunk of the 2-D ``P``, from reductions made
    while each chunk was in cache: for kernels that read every chunk anyway and need
    not wait for its check (their reductions cannot fail on any value).

    ``ranges`` are the chunks' ``(start, stop)`` rows; ``nonnegative`` whether the
    kernel's reductions show every entry to be ``>= 0`` (the minimum of each chunk,
    :func:`~skcalib._core._array_api.min_value`, or the bit-pattern argmax of each row,
    :func:`~skcalib._core._array_api.argmax_rows`); ``sums`` the row sums of every row
    (:func:`~skcalib._core._array_api.row_sums`), or the ``(min, max)`` of each
    chunk's row sums.  Where a test fails, the chunks are checked again by
    :func:`check_proba_chunk`, which raises the error it raises in a loop of checks:
    the same message, of the same entry.

    Returns
    -------
    bool
        True when the reductions passed; False when they did not but every chunk passed
        its own check (an entry of -0.0 read by a bit-pattern argmax): the kernel's
        per-row results must then be computed again by value.
    """
    if nonnegative:
        if isinstance(sums, list):
            low, high = _sum_bounds(tolerance, P.dtype == xp.float32)
            if all(lo >= low and hi <= high for lo, hi in sums):
                return True
        else:
            low, high = _sum_bounds(tolerance, sums.dtype == xp.float32)
            smin, smax = min_max(sums, xp)
            if smin >= low and smax <= high:
                return True
    for start, stop in ranges:
        check_proba_chunk(P[start:stop, ...], start, name=name, tolerance=tolerance, xp=xp)
    return False


def _sum_bounds(tolerance, single):
    """``(1 - tolerance, 1 + tolerance)`` rounded to the dtype of the row sums (float32
    when ``single``), as the comparison of a float32 array with a Python float rounds
    them."""
    if single:
        return float(np.float32(1 - tolerance)), float(np.float32(1 + tolerance))
    return 1 - tolerance, 1 + tolerance


def _row_bytes(P):
    """Bytes of one row of ``P`` (numpy; 8 per value for other arrays)."""
    return getattr(P, "itemsize", 8) * (P.shape[1] if P.ndim == 2 else 1)


def row_chunks(P):
    """Yield ``(start, stop, chunk)``: consecutive cache-sized chunks of rows of ``P``
    (one chunk, the whole array, for an array of another namespace).

    Examples
    --------
    >>> P = np.array([[0.2, 0.8], [0.5, 0.5]])
    >>> [(start, stop, chunk.shape) for start, stop, chunk in row_chunks(P)]
    [(0, 2, (2, 2))]
    """
    xp = namespace_and_device(P)[0]
    for start, stop in row_ranges(P.shape[0], _row_bytes(P), xp):
        yield start, stop, P[start:stop, ...]


def input_chunks(data):
    """Yield ``(start, part)``: :meth:`ClassificationInput.rows` of consecutive
    cache-sized chunks of rows (one chunk for array-API input).

    For the public functions that read the whole of ``y_proba`` once: each chunk is
    checked (:func:`check_proba_chunk`), then given to the kernel while it is in cache,
    and the per-chunk results are merged.
    """
    for start, stop in input_ranges(data):
        yield start, data.rows(start, stop)


def input_ranges(data):
    """``(start, stop)`` row ranges of ``data`` for the kernels that slice its arrays
    themselves: cache-sized chunks of rows of 8 bytes a value (the kernels compute in
    float64, also for float32 input) for numpy and PyTorch CPU tensors
    (:func:`~skcalib._core._array_api.row_ranges`), one range on a GPU."""
    P = data.proba
    xp, device = data.namespace
    return row_ranges(data.n_samples, 8 * (P.shape[1] if P.ndim == 2 else 1), xp, device)


def check_proba_values(P, *, name="y_proba", tolerance=PROBA_TOLERANCE):
    """Check a whole probability array (numpy: one chunked pass, no copy; another
    namespace: a few reductions on its device); see :func:`check_proba_chunk`.

    Examples
    --------
    >>> check_proba_values(np.array([[0.2, 0.8], [0.5, 0.6]]))
    Traceback (most recent call last):
    ...
    ValueError: y_proba rows must sum to 1 (tolerance 3.45e-04); row 1 sums to 1.1. ...
    """
    xp = namespace_and_device(P)[0]
    for start, stop in row_ranges(P.shape[0], _row_bytes(P), xp):
        check_proba_chunk(P[start:stop, ...], start, name=name, tolerance=tolerance, xp=xp)


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
    outcome_labels=False,
):
    """:func:`check_classification_input` without the check of the probability values.

    For the metrics that read the whole of ``y_proba`` in one pass anyway: they check
    each chunk of :func:`input_chunks` with :func:`check_proba_chunk`
    (``name=data.proba_name, tolerance=data.tolerance``) before giving it to their
    kernel, so that every value is checked once, in the chunk that is then used.
    Anything else must call :func:`check_classification_input`.

    With ``outcome_labels``, integer labels (numpy) of a 1-D ``y_proba``, without
    ``labels`` and with ``pos_label`` None or 1, are not read here: they are taken as
    the 0/1 outcome (the classes ``[0, 1]``, the positive class 1, the labels their own
    indices, as when they are checked and hold only 0 and 1), and
    :attr:`ClassificationInput.outcome_unchecked` is set.  The caller then checks each
    chunk of labels in the pass that reads them anyway (:func:`check_outcome_chunk`),
    and where one fails (or any check fails) validates again without
    ``outcome_labels``, which raises the errors of the labels, or gives the encoded
    labels of the classes found (``{-1, 1}``...): the labels are read once, not in a
    pass of their own, for the same results and errors.
    """
    xp, device = get_namespace_and_device(y_proba)
    if xp is not None and not array_api:  # a host copy, for a numpy-only caller
        xp = device = None
    if xp is None:  # the numpy path: arrays of another namespace are copied to the host
        y_true, y_proba, sample_weight = (
            a if _is_host(a) else to_numpy(a, get_namespace_and_device(a)[0])
            for a in (y_true, y_proba, sample_weight)
        )
    elif not _is_host(y_true):
        get_namespace_and_device(y_true, y_proba)  # scikit-learn's error if mixed
    P, given_dtype = _check_proba_array(y_proba, proba_name, xp, device)
    y = _check_y_true(y_true, y_name, xp)
    # the namespace of the labels: xp for labels on the device, else numpy
    yxp = _numpy_namespace() if isinstance(y, np.ndarray) else xp
    n = y.shape[0]
    if P.shape[0] != n:
        raise ValueError(
            f"{y_name} and {proba_name} have different numbers of samples: {n} and {P.shape[0]}"
        )
    labels_given = labels is not None
    if outcome_labels and _outcome_candidates(y, P, xp, labels_given, pos_label):
        data = _unread_outcomes(y, P, sample_weight, proba_name, row_sum_tolerance(given_dtype))
        if data is not None:
            return data
    min_max = _int_min_max(y, yxp) if _is_int_labels(y, yxp) else None
    if labels_given:
        classes = _check_labels(labels)
    else:
        classes = _unique_labels(y, min_max, yxp, device)  # a host array of the classes
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

    y_idx = _encode(y, classes, labels_given, min_max, y_name, yxp, device)
    if xp is not None and yxp is not xp:  # host labels of device probabilities
        y_idx = xp.asarray(y_idx.astype(np.int64), device=device)
    sw = check_sample_weight(sample_weight, n, xp=xp, device=device, dtype=P.dtype)
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


def _outcome_candidates(y, P, xp, labels_given, pos_label):
    """Whether ``check_classification_labels(..., outcome_labels=True)`` may take the
    labels ``y`` as the 0/1 outcome of the 1-D ``P`` without reading them."""
    if xp is not None or P.ndim != 1 or labels_given:
        return False
    if not (isinstance(y, np.ndarray) and y.dtype.kind in "iu"):
        return False
    if pos_label is None:
        return True
    return (
        isinstance(pos_label, numbers.Integral)
        and not isinstance(pos_label, bool | np.bool_)
        and pos_label == 1
    )


def _unread_outcomes(y, P, sample_weight, proba_name, tolerance):
    """The :class:`ClassificationInput` of labels ``y`` taken as the 0/1 outcome of the
    1-D ``P`` (:func:`_outcome_candidates`), or None when the weights fail their check
    (validation without ``outcome_labels`` then raises the first error)."""
    try:
        sw = check_sample_weight(sample_weight, y.shape[0], dtype=P.dtype)
    except ValueError:
        return None
    return ClassificationInput(
        y=y,
        proba=P,
        classes=np.array([0, 1], dtype=y.dtype),
        pos_index=1,
        sample_weight=sw,
        binary_1d=True,
        proba_name=proba_name,
        tolerance=tolerance,
        outcome_unchecked=True,
    )


class LabelsNotOutcomes(ValueError):
    """A chunk of labels taken as the 0/1 outcome without a check holds another value
    (:func:`check_outcome_chunk`): the caller validates the labels again."""


def check_outcome_chunk(y):
    """Raise :class:`LabelsNotOutcomes` unless every integer label of the numpy chunk
    ``y`` is 0 or 1: one reduction, the largest label read as an unsigned integer (a
    negative label reads as one above 2**63).

    Examples
    --------
    >>> check_outcome_chunk(np.array([0, 1, 1]))
    >>> check_outcome_chunk(np.array([0, -1]))
    Traceback (most recent call last):
    ...
    skcalib._core._validation.LabelsNotOutcomes: labels other than 0 and 1
    """
    if y.shape[0] and y.view(f"u{y.dtype.itemsize}").max() > 1:
        raise LabelsNotOutcomes("labels other than 0 and 1")


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
