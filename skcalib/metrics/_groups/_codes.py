"""Integer codes of group labels: one column or the intersections of several.

Keys are the values themselves (tuples of values for several columns); missing values
(None, NaN, pandas' NA) form a group of their own, whose key is the missing value.
"""

from __future__ import annotations

import numpy as np

from ..._core._validation import _to_numpy

__all__ = ["factorize", "group_columns", "group_codes"]


def _is_null(v):
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN, NaT, pandas.NA raises
    except (TypeError, ValueError):
        return True


def factorize(values):
    """``(codes, uniques)`` of one column: ``uniques[codes] == values``, uniques
    sorted where their values order (missing values last), else in order of first
    appearance."""
    arr = np.asarray(values) if isinstance(values, np.ndarray) else None
    if arr is not None and arr.dtype.kind in "biu" and arr.shape[0]:
        fast = _factorize_small_ints(arr)
        if fast is not None:
            return fast
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is installed in the tests
        pd = None
    if pd is not None:
        try:
            codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=False)
        except TypeError:  # values of several types that do not order
            codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=False)
        return np.asarray(codes, dtype=np.intp), list(np.asarray(uniques, dtype=object))
    arr = np.asarray(values)
    if arr.dtype.kind in "biuf":
        uniques, codes = np.unique(arr, return_inverse=True)
        return codes.astype(np.intp).ravel(), list(uniques.astype(object))
    seen = {}
    codes = np.empty(arr.shape[0], dtype=np.intp)
    keys = []
    null_code = None
    for i, v in enumerate(arr.tolist()):
        if _is_null(v):
            if null_code is None:
                null_code = len(keys)
                keys.append(v)
            codes[i] = null_code
            continue
        c = seen.get(v)
        if c is None:
            c = seen[v] = len(keys)
            keys.append(v)
        codes[i] = c
    return codes, keys


def _factorize_small_ints(arr):
    """Codes of integers of a small range by counting (a lookup table of the values
    present, in increasing order): linear time, no hashing; None for a wide range."""
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo > max(4 * arr.shape[0], 1 << 16):
        return None
    shifted = arr.astype(np.intp) - lo if lo else arr.astype(np.intp, copy=False)
    present = np.bincount(shifted, minlength=hi - lo + 1) > 0
    lut = np.cumsum(present) - 1
    uniques = np.flatnonzero(present) + lo
    return lut[shifted].astype(np.intp, copy=False), [
        arr.dtype.type(u).item() if arr.dtype.kind != "b" else bool(u) for u in uniques
    ]


def group_columns(groups, n_samples, name="groups"):
    """The columns of ``groups`` (a 1-D array-like, a DataFrame or a 2-D array) as a
    list of 1-D arrays, with their names (None for an unnamed 1-D input)."""
    if hasattr(groups, "columns") and hasattr(groups, "iloc"):  # a DataFrame
        names = [str(c) for c in groups.columns]
        cols = [groups.iloc[:, j].to_numpy() for j in range(groups.shape[1])]
    else:
        arr = _to_numpy(groups, name)
        if arr.ndim == 1:
            series_name = getattr(groups, "name", None)
            names = [None if series_name is None else str(series_name)]
            cols = [arr]
        elif arr.ndim == 2:
            names = [f"x{j}" for j in range(arr.shape[1])]
            cols = [arr[:, j] for j in range(arr.shape[1])]
        else:
            raise ValueError(f"{name} must be 1-D or 2-D, got an array of shape {arr.shape}")
    if not cols:
        raise ValueError(f"{name} has no columns")
    for c in cols:
        if c.shape[0] != n_samples:
            raise ValueError(f"{name} has {c.shape[0]} rows but y_true has {n_samples} samples")
    return cols, names


def _python(v):
    return v.item() if isinstance(v, np.generic) else v


def group_codes(groups, n_samples, name="groups"):
    """Codes of the groups (one column) or of their intersections (several columns).

    Returns
    -------
    codes : intp ndarray of shape (n_samples,)
        In ``[0, n_groups)``, one code per combination that occurs.
    keys : list
        Key of each code: the value (one column) or the tuple of values.
    names : list
        Column names.
    """
    cols, names = group_columns(groups, n_samples, name)
    parts = [factorize(c) for c in cols]
    if len(parts) == 1:
        codes, uniques = parts[0]
        return codes, [_python(u) for u in uniques], names
    combined = np.zeros(n_samples, dtype=np.int64)
    sizes = [len(u) for _, u in parts]
    if float(np.prod(np.array(sizes, dtype=np.float64))) >= 2.0**62:
        # too many combinations for one integer: codes of the distinct rows
        stacked = np.column_stack([c for c, _ in parts])
        rows, codes = np.unique(stacked, axis=0, return_inverse=True)
        codes = codes.ravel()
    else:
        for (c, _), size in zip(parts, sizes, strict=True):
            combined *= size
            combined += c
        uniq, codes = np.unique(combined, return_inverse=True)
        rows = np.empty((uniq.shape[0], len(parts)), dtype=np.int64)
        rest = uniq
        for j in range(len(parts) - 1, -1, -1):
            rows[:, j] = rest % sizes[j]
            rest = rest // sizes[j]
    keys = [tuple(_python(parts[j][1][r[j]]) for j in range(len(parts))) for r in rows.tolist()]
    return codes.astype(np.intp, copy=False), keys, names
