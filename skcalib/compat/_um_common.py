"""Input checks shared by the modules of :mod:`skcalib.compat.uncertainty_metrics`.

The reference takes tensors and checks nothing; these turn its inputs into float64 (or
the metric's dtype) and integer arrays, and raise a ValueError naming the argument
where the reference would crash or compute garbage.
"""

from __future__ import annotations

import numpy as np

__all__ = ["int_labels", "probs_2d", "real", "two_columns"]


def real(x, name, *, min_ndim=0, nonempty=False, dtype=np.float64, allow_nan=False):
    """``x`` as a finite real array of ``dtype`` (a ValueError naming ``name`` otherwise);
    with ``allow_nan`` only infinities are refused.

    Examples
    --------
    >>> from skcalib.compat._um_common import real
    >>> real([1, 2], "x")
    array([1., 2.])
    """
    try:
        arr = np.asarray(x)
        arr = arr.astype(np.float64) if arr.dtype.kind == "O" else arr
    except (TypeError, ValueError) as exc:  # ragged or non-numeric sequences
        raise ValueError(f"{name} must be an array of real numbers: {exc}") from exc
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name} must contain real numbers, got dtype {arr.dtype}")
    arr = arr.astype(dtype, copy=False)
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions, got {arr.shape}")
    if nonempty and arr.size == 0:
        raise ValueError(f"{name} is empty")
    bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if not bad.any():
        return arr
    i = tuple(int(j) for j in np.argwhere(bad)[0])
    raise ValueError(f"{name} contains {'infinity' if allow_nan else 'NaN or infinity'} at {i}")


def probs_2d(probs, name="probs", *, allow_nan=False):
    """Probabilities (unchecked range, as the reference) as an ``(N, K)`` array, the
    reference's binary input ``(N,)`` or ``(N, 1)`` as ``[[1 - p, p]]``.

    Examples
    --------
    >>> from skcalib.compat._um_common import probs_2d
    >>> probs_2d([0.25])
    array([[0.75, 0.25]])
    """
    P = real(probs, name, allow_nan=allow_nan)
    if P.ndim not in (1, 2):
        raise ValueError(f"{name} must have 1 or 2 dimensions, got shape {P.shape}")
    if P.ndim == 2 and P.shape[1] == 0:
        raise ValueError(f"{name} has no column: shape {P.shape}")
    return two_columns(P)


def int_labels(labels, shape, n_classes=None, name="labels"):
    """Integer class indices of the given ``shape`` (integer-valued floats accepted),
    in ``[0, n_classes)`` when ``n_classes`` is given.

    Examples
    --------
    >>> from skcalib.compat._um_common import int_labels
    >>> int_labels([0.0, 2.0], (2,), 3)
    array([0, 2])
    """
    if labels is None:
        raise ValueError(f"{name} is required")
    y = np.asarray(labels)
    if y.dtype.kind == "O":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be integer class indices: {exc}") from exc
    if y.dtype.kind == "f" and np.isfinite(y).all() and (y == np.round(y)).all():
        y = y.astype(np.int64)
    if y.dtype.kind not in "biu":
        raise ValueError(f"{name} must be integer class indices, got dtype {y.dtype}")
    if y.shape != tuple(shape):
        raise ValueError(
            f"{name} has shape {y.shape}, expected {tuple(shape)} (a {len(shape)}-D array "
            "of class indices, one per row; one-hot label matrices are not supported)"
        )
    if n_classes is not None and y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(
            f"{name} must be class indices in [0, {n_classes}), got {y.min()}..{y.max()}"
        )
    return y.astype(np.intp)


def two_columns(P):
    """The reference's binary input: ``(N,)`` or ``(N, 1)`` -> ``[[1 - p, p]]``; other
    shapes unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat._um_common import two_columns
    >>> two_columns(np.array([0.25]))
    array([[0.75, 0.25]])
    """
    if P.ndim == 2 and P.shape[1] == 1:
        P = P[:, 0]
    return np.stack([1 - P, P], axis=1) if P.ndim == 1 else P
