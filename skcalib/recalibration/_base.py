"""Input handling shared by every calibrator of :mod:`skcalib.recalibration`.

A calibrator is fitted on the output of a model on held-out data, ``X``, and the labels
``y``.  ``X`` is either

* probabilities: ``(n_samples, n_classes)`` rows summing to 1 (``predict_proba``), or the
  ``(n_samples,)`` probability of the positive class of a binary problem
  (``predict_proba(X)[:, 1]``); checked with the probability checks of
  :mod:`skcalib.metrics` (same tolerance, :data:`PROBA_TOLERANCE`); or
* logits: ``(n_samples, n_classes)`` real scores (``decision_function`` of a multiclass
  model, log-probabilities, the pre-softmax layer of a network), or the ``(n_samples,)``
  log-odds of the positive class (``decision_function`` of a binary model).

``input="auto"`` reads ``X`` as probabilities when every entry lies in ``[0, 1]`` and,
for 2-D ``X``, every row sums to 1 within :data:`PROBA_TOLERANCE`; as logits when some
entry lies outside ``[0, 1]``.  A 2-D ``X`` whose entries all lie in ``[0, 1]`` but
whose rows do not sum to 1 (rounded probabilities, or scores in ``[0, 1]``) is
ambiguous: ``fit`` raises a ValueError asking for ``input="proba"`` (after normalising
the rows) or ``input="logits"``.
The decision is taken at ``fit`` time and stored in ``input_type_``; ``predict_proba``
reads its ``X`` the same way.  Probabilities become logits as ``log p`` (clipped below
at the machine epsilon of the dtype, as the log-loss of :mod:`skcalib.metrics` clips;
log-probabilities are logits up to a constant per row, which no softmax-based
calibrator sees); logits become probabilities with a softmax (1-D: the logistic
sigmoid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d, validate_data

from .._core._array_api import (
    float_dtype,
    get_namespace_and_device,
    into,
    is_numpy_namespace,
    max_float_dtype,
    namespace_and_device,
    to_numpy,
    work_array,
)
from .._core._validation import (
    PROBA_TOLERANCE,
    check_classification_labels,
    check_proba_values,
    check_sample_weight,
    iter_row_chunks,
    row_sum_tolerance,
)
from ..utils._sklearn_compat import StrOptions, fit_context

__all__ = [
    "INPUT_OPTIONS",
    "BaseCalibrator",
    "FitData",
    "check_classes",
    "check_targets",
    "detach",
    "log_proba",
    "scan_rows",
    "softmax_rows",
]

INPUT_OPTIONS = ("auto", "proba", "logits")

#: Rows per chunk of the chunked passes: about 2 MiB of input per chunk.
SCAN_CHUNK_BYTES = 1 << 21

#: Bytes of input per chunk off the CPU (a GPU): large chunks (few kernel launches) that
#: still bound the temporaries of a pass.  On a CPU (numpy, PyTorch CPU) the chunks of
#: ``SCAN_CHUNK_BYTES``, whose temporaries stay in the cache, are several times faster.
XP_CHUNK_BYTES = 1 << 26


def row_chunks(n, k, dtype, xp, device, cpu_bytes=None, device_bytes=None):
    """``(start, stop)`` chunks of the rows of an ``(n, k)`` array of ``dtype`` in the
    namespace ``xp`` on ``device``: ``cpu_bytes`` (:data:`SCAN_CHUNK_BYTES`) each on the
    CPU, ``device_bytes`` (:data:`XP_CHUNK_BYTES`) on another device."""
    if "cpu" in str(device).lower():
        chunk = SCAN_CHUNK_BYTES if cpu_bytes is None else cpu_bytes
    else:
        chunk = XP_CHUNK_BYTES if device_bytes is None else device_bytes
    rows = max(1, chunk // max(1, k * (xp.finfo(dtype).bits // 8)))
    return [(start, min(n, start + rows)) for start in range(0, n, rows)]


@dataclass
class FitData:
    """Validated calibration data in the calibrator's native form.

    Attributes
    ----------
    Z : ndarray
        Logits ``(n, k)`` with ``k >= 2`` for a logit calibrator; probabilities for a
        probability calibrator: ``(n,)`` positive-class probability for binary problems,
        else ``(n, k)``.  float32 or float64.
    y : ndarray of intp
        Index of each label in ``classes_``.
    sample_weight : ndarray or None
    n_classes : int
    row_max : ndarray or None
        Row maxima of ``Z`` when they are known from the validation pass.
    xp, device : namespace and device
        Of ``Z``, ``y``, ``sample_weight`` and ``row_max``: numpy's array API namespace
        and ``"cpu"`` for numpy arrays, else the namespace of the input
        (``array_api_dispatch=True``).
    """

    Z: np.ndarray
    y: np.ndarray
    sample_weight: np.ndarray | None
    n_classes: int
    row_max: np.ndarray | None = None
    xp: object = None
    device: object = None


class ScanResult:
    """Row maxima and the facts ``input="auto"`` needs, from one chunked pass."""

    def __init__(self, row_max, lo, hi, sums_to_one):
        self.row_max = row_max
        self.lo = lo
        self.hi = hi
        self.sums_to_one = sums_to_one


def _raise_nonfinite(X, xp):
    """Raise the ValueError that names the first NaN or infinity of ``X`` (row-major)."""
    bad = ~xp.isfinite(X)
    if X.ndim == 1:
        idx = [int(xp.argmax(xp.astype(bad, xp.int8)))]
    else:
        row = int(xp.argmax(xp.astype(xp.any(bad, axis=1), xp.int8)))
        idx = [row, int(xp.argmax(xp.astype(bad[row, :], xp.int8)))]
    v = float(X[tuple(idx)])
    kind = "NaN" if v != v else "infinity"
    raise ValueError(f"X contains {kind} (first at index {', '.join(map(str, idx))})")


def scan_rows(X, xp=None, device=None):
    """One chunked pass over ``X`` (1-D or 2-D): finiteness, min, max, row maxima and
    whether every row sums to 1 within :data:`PROBA_TOLERANCE`.

    In the namespace of ``X`` (``xp``, ``device``; by default those of ``X``): the row
    maxima stay there, the other facts reach the host in one transfer.  A row holding
    NaN or infinity has no finite sum, so the row sums rule them out; a ValueError
    names the first one.
    """
    if xp is None:
        xp, device = namespace_and_device(X)
    with np.errstate(all="ignore"):  # finite entries whose sum overflows: no probabilities
        if X.ndim == 1:
            facts = to_numpy(xp.stack([xp.sum(X), xp.min(X), xp.max(X)]), xp)
            if not np.isfinite(facts[0]) and not bool(xp.all(xp.isfinite(X))):
                _raise_nonfinite(X, xp)
            return ScanResult(None, float(facts[1]), float(facts[2]), False)
        n, k = X.shape
        maxima, facts = [], []
        for start, stop in row_chunks(n, k, X.dtype, xp, device):
            c = X[start:stop, :]
            m = xp.max(c, axis=1)  # (a BLAS matrix-vector product is slower for the sums)
            dev = xp.max(xp.abs(xp.sum(c, axis=1) - 1))
            maxima.append(m)
            facts.append(xp.stack([dev, xp.min(c), xp.max(m)]))
        row_max = maxima[0] if len(maxima) == 1 else xp.concat(maxima)
        facts = to_numpy(xp.stack(facts), xp)
        dev = float(np.max(facts[:, 0]))
    if not np.isfinite(dev) and not bool(xp.all(xp.isfinite(X))):
        _raise_nonfinite(X, xp)  # else: finite entries whose sum overflows
    ok = bool(dev <= PROBA_TOLERANCE)
    return ScanResult(row_max, float(np.min(facts[:, 1])), float(np.max(facts[:, 2])), ok)


def _raise_ambiguous(X):
    """``input="auto"`` on entries in [0, 1] whose rows do not sum to 1: rounded
    probabilities (a CSV export with 2 decimals) or scores that happen to lie in [0, 1].
    Read either way, the other reading would give other numbers: ask."""
    with np.errstate(all="ignore"):
        dev = np.abs(X.sum(axis=1, dtype=np.float64) - 1)
    row = int(np.argmax(dev > PROBA_TOLERANCE))
    raise ValueError(
        f"input='auto' cannot tell whether X holds probabilities or logits: every entry "
        f"lies in [0, 1] but row {row} sums to {float(X[row].sum(dtype=np.float64))!r} "
        f"(tolerance {PROBA_TOLERANCE:.2e}). If X holds rounded probabilities, divide each "
        "row by its sum and pass input='proba'; if it holds scores or logits, pass "
        "input='logits'"
    )


def _looks_like_proba(X, scan):
    if X.ndim == 1:
        return scan.lo >= 0 and scan.hi <= 1
    return scan.lo >= 0 and scan.sums_to_one


def check_proba(X, scan, why, xp=None):
    """The probability check of :mod:`skcalib.metrics` on ``X``, run when the facts of
    :func:`scan_rows` (same rule, same tolerance) show a bad entry: its ValueError
    names the first bad entry of ``X``, and says why ``X`` was read as probabilities
    (``why``).  Under ``sklearn.config_context(assume_finite=True)`` the values are
    trusted, as by the metrics.  ``X`` of the namespace ``xp`` is copied to the host
    only to find the bad entry."""
    if _looks_like_proba(X, scan):
        return
    X = to_numpy(X, xp)
    try:
        check_proba_values(X, name="X", tolerance=row_sum_tolerance(X.dtype))
    except ValueError as exc:
        raise ValueError(f"{exc} ({why})") from None


def log_proba(P, xp=None, device=None):
    """``log P`` with ``P`` clipped below at the machine epsilon of its dtype (as
    :func:`skcalib.metrics.negative_log_likelihood` clips): probabilities as logits (one
    array of the size of ``P`` where the namespace writes in place, as numpy).
    Probabilities that underflowed to 0 then get a finite logit, ``log(eps)`` (about -36
    in float64, -16 in float32)."""
    if xp is None:
        xp, device = namespace_and_device(P)
    eps = xp.asarray(xp.finfo(P.dtype).eps, dtype=P.dtype, device=device)
    out = work_array(P.shape, P.dtype, xp, device)
    return into(out, xp.log, into(out, xp.maximum, P, eps))


def proba_to_logits(P, xp=None, device=None):
    """Logits ``(n, k)``, ``k >= 2``, of probabilities (1-D: the positive class), in
    the namespace of ``P``."""
    if xp is None:
        xp, device = namespace_and_device(P)
    if P.ndim == 1:
        P = xp.stack([1 - P, P], axis=1)
    return log_proba(P, xp, device)


def logits_2d(Z, xp=None):
    """``(n, k)`` logits with ``k >= 2``; a 1-D log-odds ``d`` becomes ``[0, d]``."""
    if Z.ndim == 2:
        return Z
    if xp is None:
        xp, _ = namespace_and_device(Z)
    return xp.stack([xp.zeros_like(Z), Z], axis=1)


def softmax_rows(Z, out=None):
    """Row-wise softmax of logits ``(n, k)`` in their dtype (chunked, no overflow)."""
    if out is None:
        out = np.empty(Z.shape, dtype=Z.dtype)
    for start, stop in iter_row_chunks(Z.shape[0], Z.shape[1] * Z.itemsize, SCAN_CHUNK_BYTES):
        c = out[start:stop]
        np.subtract(Z[start:stop], Z[start:stop].max(axis=1, keepdims=True), out=c)
        np.exp(c, out=c)
        c /= c.sum(axis=1, keepdims=True)
    return out


def sigmoid(d):
    """Logistic sigmoid in the dtype of ``d``, without overflow."""
    out = np.empty_like(d)
    neg = d < 0
    e = np.exp(-np.abs(d))
    np.divide(1, 1 + e, out=out)
    np.divide(e, 1 + e, out=out, where=neg)
    return out


def logits_to_proba(Z):
    """Probabilities of logits: 1-D log-odds -> positive-class probability."""
    if Z.ndim == 1:
        return sigmoid(Z)
    return softmax_rows(Z)


def binary_positive(P):
    """The positive-class column of binary probabilities (1-D input unchanged)."""
    return P if P.ndim == 1 else np.ascontiguousarray(P[:, 1])


def two_columns(p):
    """``(n, 2)`` probabilities ``[1 - p, p]`` of a positive-class probability."""
    out = np.empty((p.shape[0], 2), dtype=p.dtype)
    out[:, 1] = p
    out[:, 0] = 1 - p
    return out


def renormalise(Q):
    """Rows divided by their sums, in place; a row of zeros becomes uniform."""
    s = Q.sum(axis=1, keepdims=True)
    zero = s[:, 0] <= 0
    if zero.any():
        Q[zero] = 1.0 / Q.shape[1]
        s[zero] = 1.0
    Q /= s
    return Q


def check_targets(y):
    """``y`` as a 1-D numpy array of class labels (finite, classification targets)."""
    y_arr = check_array(
        detach(y), ensure_2d=False, dtype=None, ensure_all_finite=True, input_name="y"
    )
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = column_or_1d(y_arr, warn=True)  # a DataConversionWarning, as sklearn
    check_classification_targets(y_arr)
    return y_arr


def detach(a):
    """A PyTorch tensor detached from its graph and moved to the CPU (numpy cannot
    convert a tensor that requires grad, or one on a GPU); anything else unchanged."""
    if type(a).__module__.split(".")[0] == "torch" and callable(getattr(a, "detach", None)):
        a = a.detach()
        if callable(getattr(a, "cpu", None)):
            a = a.cpu()
    return a


def _ndim(X):
    """Number of dimensions of an array-like, without converting it when it says."""
    nd = getattr(X, "ndim", None)
    if isinstance(nd, int):
        return nd
    try:
        return np.asarray(X).ndim
    except (ValueError, TypeError):  # ragged: left to validate_data's message
        return 2


def check_classes(classes):
    """The ``classes`` parameter of a calibrator as a 1-D array of distinct labels."""
    try:
        arr = np.asarray(detach(classes))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"classes must be a 1-D array-like of class labels: {exc}") from None
    if arr.ndim != 1 or arr.shape[0] < 2:
        raise ValueError(
            "classes must be a 1-D array-like of at least 2 class labels, in the column "
            f"order of X; got {classes!r}"
        )
    try:
        n_unique = np.unique(arr).shape[0]
    except TypeError as exc:
        raise ValueError(f"classes mixes labels that cannot be sorted: {exc}") from None
    if n_unique != arr.shape[0]:
        raise ValueError(f"classes contains duplicates: {arr.tolist()!r}")
    return arr.copy()


def _uniform_like(X):
    """Valid probabilities of the shape of ``X`` without memory (a broadcast view): the
    stand-in for ``X`` when only the labels are validated."""
    k = 2 if X.ndim == 1 else X.shape[1]
    return np.broadcast_to(np.float64(1.0 / k), X.shape)


# --------------------------------------------------------------------------------------
# the array API path (array_api_dispatch=True and X of a namespace other than numpy):
# X stays in its namespace and on its device; y and sample_weight (n numbers, checked
# with the numpy code above) are moved to the device of X
# --------------------------------------------------------------------------------------


def _detach_graph(X):
    """A PyTorch tensor detached from its autograd graph, on its device."""
    if type(X).__module__.split(".")[0] == "torch" and callable(getattr(X, "detach", None)):
        return X.detach()
    return X


def to_host(a):
    """``a`` as numpy-convertible: an array of an array API namespace (of any device)
    copied to the host explicitly; lists and tuples as numpy arrays (scikit-learn before
    1.8 refuses them while dispatch is on); numpy arrays and None unchanged."""
    if a is None or isinstance(a, np.ndarray):
        return a
    if isinstance(a, list | tuple):
        return np.asarray(a)
    xp, _ = get_namespace_and_device(a)
    return detach(a) if xp is None else to_numpy(a, xp)


class BaseCalibrator(ClassifierMixin, BaseEstimator):
    """Common machinery of the calibrators: validation, input types, predict.

    Subclasses set ``_native`` (``"logits"``, ``"proba"``, or ``"scores"``: ``X`` as
    given, whatever ``input`` says it is) and implement ``_fit(data)`` and
    ``_predict_native(Z)`` (returning ``(n, n_classes)`` probabilities in the dtype,
    and for an array API calibrator the namespace and device, of ``Z``).
    """

    _parameter_constraints: dict = {
        "input": [StrOptions(set(INPUT_OPTIONS))],
        "classes": ["array-like", None],
    }
    _native = "logits"
    #: whether the calibrator computes in the namespace of array API inputs (set by
    #: the logit calibrators whose ``_fit`` and ``_predict_native`` are written against
    #: ``FitData.xp`` / the namespace of ``Z``); the others convert such inputs to numpy
    _array_api = False

    def _namespace(self, X):
        """``(xp, device)`` in which ``X`` is computed: its own namespace and device for a
        calibrator that supports the array API, numpy's namespace (``X`` converted to
        numpy) otherwise and for numpy input."""
        if not self._array_api:
            return namespace_and_device()
        return namespace_and_device(X)

    # ----------------------------------------------------------------------------------
    # validation
    # ----------------------------------------------------------------------------------

    def _validated_array(self, X, xp, device, *, reset):
        """``X`` validated in the namespace ``xp`` (:meth:`_namespace`), float32 or
        float64, 1-D for one column.  Host array-likes (lists, pandas, numpy) go through
        scikit-learn's ``validate_data``; an array of another namespace stays on its
        device, in its float dtype (integers and bools: the largest float dtype of the
        device), with the same shape checks."""
        if is_numpy_namespace(xp):
            X = detach(X)
            if _ndim(X) == 1:  # a 1-D X is one column (binary positive class)
                X = np.asarray(X).reshape(-1, 1)
            X = validate_data(
                self,
                X,
                reset=reset,
                dtype=[np.float64, np.float32],
                ensure_all_finite=False,
                ensure_min_samples=1,
            )
            return X[:, 0] if X.shape[1] == 1 else X
        X = _detach_graph(X)
        name = type(self).__name__
        if X.ndim not in (1, 2):
            raise ValueError(
                f"Found array with dim {X.ndim}, while dim <= 2 is required by {name}."
            )
        if X.ndim == 2 and X.shape[1] == 1:
            X = X[:, 0]
        if X.shape[0] < 1 or (X.ndim == 2 and X.shape[1] < 1):
            raise ValueError(
                f"Found array with shape {tuple(X.shape)} while at least 1 sample and 1 "
                f"feature are required by {name}."
            )
        dtype = float_dtype(X, xp, device)
        if X.dtype != dtype:
            X = xp.astype(X, dtype)
        validate_data(
            self, X if X.ndim == 2 else xp.reshape(X, (-1, 1)), skip_check_array=True, reset=reset
        )
        return X

    def _read(self, X, input_type, xp=None, device=None):
        """``X`` (validated array, checked for its ``input_type``) in the native form."""
        if self._native == "scores":
            return X
        if self._native == "logits":
            if input_type == "proba":
                return proba_to_logits(X, xp, device)
            return logits_2d(X, xp)
        P = logits_to_proba(X) if input_type == "logits" else X
        if P.ndim == 2 and P.shape[1] == 2:
            return P if self._keep_binary_2d else binary_positive(P)
        return P

    _keep_binary_2d = False

    def _fit_classes(self, y, X):
        """The classes, in the column order of ``X``: the ``classes`` parameter, or the
        sorted labels of ``y``, which must then give one class per column."""
        k = 2 if X.ndim == 1 else X.shape[1]
        try:
            observed = np.unique(y)
        except TypeError as exc:  # pragma: no cover - check_targets rejects mixed types
            raise ValueError(f"y mixes labels that cannot be sorted: {exc}") from None
        if self.classes is None:
            shown = observed.tolist()[:10]
            if X.ndim == 1 and observed.shape[0] > 2:
                raise ValueError(
                    f"X is 1-D (the positive class of a binary problem) but y has "
                    f"{observed.shape[0]} classes {shown!r}; pass X of shape (n_samples, "
                    "n_classes) for more classes"
                )
            if X.ndim == 1 and observed.shape[0] < 2:
                raise ValueError(
                    f"y holds the single class {shown[0]!r} and X is 1-D: pass classes= with "
                    "the two classes of the problem, the positive class (whose output X "
                    "holds) last"
                )
            if observed.shape[0] != k:
                raise ValueError(
                    f"X has {k} columns but y has {observed.shape[0]} classes {shown!r}; X "
                    "needs one column per class: when some classes are missing from y, pass "
                    "classes= to give all the classes, in the column order of X"
                )
            return observed
        classes = check_classes(self.classes)
        if classes.shape[0] != k:
            what = "X is 1-D (binary: 2 classes)" if X.ndim == 1 else f"X has {k} columns"
            raise ValueError(
                f"classes has {classes.shape[0]} labels but {what}; classes gives the class "
                "of each column of X (for a 1-D X: the two classes, the positive last)"
            )
        unknown = observed[~np.isin(observed, classes)]
        if unknown.size:
            raise ValueError(
                f"y contains labels not in classes {classes.tolist()[:10]!r}: "
                f"{unknown.tolist()[:5]!r}"
            )
        return classes

    def _validate_fit(self, X, y, sample_weight):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        xp, device = self._namespace(X)
        X = self._validated_array(X, xp, device, reset=True)
        scan = scan_rows(X, xp, device)
        if not is_numpy_namespace(xp):
            # n labels and weights: checked on the host, moved to the device below
            y, sample_weight = to_host(y), to_host(sample_weight)
        y_arr = check_targets(y)
        n = X.shape[0]
        if y_arr.shape[0] != n:
            raise ValueError(f"y and X have different numbers of samples: {y_arr.shape[0]} and {n}")
        sw = check_sample_weight(detach(sample_weight), n)
        classes = self._fit_classes(y_arr, X)
        if self.input == "auto":
            input_type = "proba" if _looks_like_proba(X, scan) else "logits"
            if input_type == "logits" and X.ndim == 2 and scan.lo >= 0 and scan.hi <= 1:
                _raise_ambiguous(to_numpy(X, xp))
        else:
            input_type = self.input
        if input_type == "proba":
            why = (
                "input='proba' says X holds probabilities"
                if self.input == "proba"
                else "input='auto' read X as probabilities"
            )
            check_proba(X, scan, why, xp)
        # the labels, encoded by the validation of skcalib.metrics; the values of X
        # are checked above (probabilities) or are no probabilities (logits), so a
        # stand-in of its shape goes with y
        data = check_classification_labels(
            y_arr,
            _uniform_like(X),
            labels=classes,
            pos_label=classes[1] if X.ndim == 1 else None,
            y_name="y",
            proba_name="X",
        )
        self.classes_ = classes
        self.input_type_ = input_type
        y_idx = xp.asarray(np.asarray(data.y).astype(np.intp, copy=False), device=device)
        if sw is not None:
            sw = xp.asarray(sw, dtype=max_float_dtype(xp, device), device=device)
        Z = self._read(X, input_type, xp, device)
        row_max = scan.row_max if Z is X and X.ndim == 2 else None
        return FitData(
            Z=Z,
            y=y_idx,
            sample_weight=sw,
            n_classes=len(classes),
            row_max=row_max,
            xp=xp,
            device=device,
        )

    def _validate_predict(self, X, xp, device):
        check_is_fitted(self)
        if _ndim(X) == 1 and self.n_features_in_ != 1:
            raise ValueError(
                f"X is 1-D but {type(self).__name__} was fitted on {self.n_features_in_} "
                f"columns (one per class). Reshape your data to (n_samples, "
                f"{self.n_features_in_})"
            )
        X = self._validated_array(X, xp, device, reset=False)
        scan = scan_rows(X, xp, device)  # finiteness
        if self.input_type_ == "proba":
            why = f"{type(self).__name__} was fitted on probabilities (input_type_='proba')"
            check_proba(X, scan, why, xp)
        return self._read(X, self.input_type_, xp, device)

    # ----------------------------------------------------------------------------------
    # the estimator API
    # ----------------------------------------------------------------------------------

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the calibrator on a model's output ``X`` and the true labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_classes)
            The model's output on calibration data: probabilities or logits (see the
            class's ``input`` parameter), one column per class in the order of
            ``classes`` (default: the sorted labels of ``y``).
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; weight ``w`` counts as ``w`` repetitions of the row.

        Returns
        -------
        self : object
            The fitted calibrator.
        """
        data = self._validate_fit(X, y, sample_weight)
        self._fit(data)
        return self

    def predict_proba(self, X):
        """Calibrated probabilities of a model's output ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_classes)
            The model's output, read as at ``fit`` (``input_type_``).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Calibrated probabilities, columns in ``classes_`` order, in the dtype of
            ``X`` (float32 stays float32); with ``array_api_dispatch=True``, an array
            of the namespace and on the device of ``X`` where the calibrator supports
            the array API (``array_api_support`` tag).
        """
        xp, device = self._namespace(X)
        return self._predict_native(self._validate_predict(X, xp, device))

    def predict(self, X):
        """The class of highest calibrated probability.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, n_classes)
            The model's output, read as at ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels, from ``classes_`` (in the namespace and on the device of
            ``X`` on the array API path, numeric labels only).
        """
        proba = self.predict_proba(X)
        xp, device = self._namespace(proba)
        idx = xp.argmax(proba, axis=1)
        classes = self.classes_
        if classes.dtype.kind not in "biuf":  # strings, objects: no device holds them
            return classes[to_numpy(idx, xp)]
        if classes.dtype.kind == "f" and max_float_dtype(xp, device) == xp.float32:
            classes = classes.astype(np.float32)
        return xp.take(xp.asarray(classes, device=device), idx, axis=0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.array_api_support = self._array_api
        return tags
