"""Proper scoring rules for classification: Brier score, log loss and their decompositions.

Conventions
-----------
* :func:`brier_score` is the *conventional* Brier score (Brier 1950): for ``K`` classes the
  mean over samples of ``sum_k (p_ik - 1{y_i = k})^2`` (range [0, 2]); for binary problems
  (a 1-D ``y_proba`` or two columns) the mean of ``(p_i - 1{y_i = pos})^2`` (range [0, 1]),
  i.e. half the two-column sum.  This is exactly what :func:`sklearn.metrics.brier_score_loss`
  returns with its default ``scale_by_half="auto"``.  (``uncertainty_metrics.brier_score``
  returns the multiclass score minus 1.)
* :func:`negative_log_likelihood` equals :func:`sklearn.metrics.log_loss`: probabilities
  are clipped to ``[eps, 1 - eps]`` with ``eps`` the machine epsilon of the input dtype.
* :func:`brier_decomposition` is Murphy's (1973) decomposition, exact when forecasts are
  grouped by identical forecast vectors and completed by Stephenson, Coelho and Jolliffe's
  (2008) within-bin terms when they are binned, so the identity
  ``BS = REL - RES + UNC + WBV - WBC`` always holds to rounding error.
* :func:`score_decomposition` is the CORP decomposition (Dimitriadis, Gneiting and Jordan
  2021): ``score = MCB - DSC + UNC`` with isotonic (PAV) recalibration.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.special import xlogy

from ..._core._array_api import (
    Workspace,
    add_at_rows,
    clip,
    dot,
    float_copy,
    get_namespace_and_device,
    has_fast_bincount,
    max_float_dtype,
    row_dot,
    row_ranges,
    sum_of_squares,
    take_along_rows,
    to_numpy,
    weighted_bincount,
)
from ..._core._binning import bin_stats
from ..._core._validation import (
    check_classification_input,
    check_classification_labels,
    check_proba_chunk,
    input_chunks,
    input_ranges,
)
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import BrierDecompositionResult, ScoreDecompositionResult

__all__ = [
    "brier_score",
    "brier_decomposition",
    "negative_log_likelihood",
    "score_decomposition",
]

_COMMON_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_proba": ["array-like"],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
    "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
}


# --------------------------------------------------------------------------------------
# kernels (validated input only; arrays of any namespace)
# --------------------------------------------------------------------------------------


def _weighted_mean_total(total, sw, n):
    if sw is None:
        return total / n
    return total / (sw.sum() if isinstance(sw, np.ndarray) else float(_namespace(sw).sum(sw)))


def _namespace(x):
    return get_namespace_and_device(x)[0]


def _group_total(values, data, groups, n_groups):
    """The (weighted) sum of the per-row ``values`` of ``data``: a float, or with
    ``groups`` a host float64 array (n_groups,) of the sums of each group (one weighted
    bincount)."""
    xp, device = data.namespace
    return _row_total(values, data.sample_weight, groups, n_groups, xp, device)


def _row_total(values, sw, groups, n_groups, xp, device):
    """:func:`_group_total` of per-row ``values`` with the weights ``sw`` (or None)."""
    if groups is None:
        if sw is None:
            return float(xp.sum(values))
        return dot(values, xp.astype(sw, values.dtype, copy=False), xp)
    if sw is not None:
        values = values * xp.astype(sw, values.dtype, copy=False)
    sums = weighted_bincount(xp.asarray(groups, device=device), values, n_groups, xp, device)
    return np.asarray(to_numpy(sums, xp), dtype=np.float64)


def _brier_sum(data, groups=None, n_groups=1, check=False):
    """Weighted sum over samples of the per-sample Brier score of validated data.

    A float, or with ``groups`` (an int array (n_samples,) of codes in
    ``[0, n_groups)``) a float64 array of the sum of each group.  The (one-hot - p)
    differences are formed in the widest float of the device, by chunks of rows for
    numpy in one reused work array (no n x k float64 copy of float32 input), so the
    result is as accurate as the element-wise definition (no ``sum p^2 - 2 p_y + 1``
    cancellation for near-perfect forecasts).  With ``check``, the probability values
    of each chunk are checked (:func:`check_proba_chunk`) before it is summed: the
    probabilities are read from memory once.
    """
    xp, device = data.namespace
    top = max_float_dtype(xp, device)
    work = Workspace(xp, device)
    P, y, sw, pos = data.proba, data.y, data.sample_weight, data.pos_index
    name, tolerance = data.proba_name, data.tolerance
    total = 0.0 if groups is None else np.zeros(n_groups)
    for start, stop in input_ranges(data):
        c = P[start:stop, ...]
        if check:
            check_proba_chunk(c, start, name=name, tolerance=tolerance, xp=xp)
        D = float_copy(c, top, xp, out=work.get("brier", tuple(c.shape), top))
        if c.ndim == 1:
            D = D - xp.astype(y[start:stop] == pos, top)
        else:
            D = add_at_rows(D, y[start:stop], -1.0, xp)
        w = None if sw is None else sw[start:stop]
        if groups is None and w is None:
            total += sum_of_squares(D, xp)
            continue
        per_row = D * D if D.ndim == 1 else row_dot(D, D, xp)
        g = None if groups is None else groups[start:stop]
        total += _row_total(per_row, w, g, n_groups, xp, device)
    if P.ndim == 2 and P.shape[1] == 2:
        # binary problem given as two columns: sklearn's scale_by_half="auto"
        total *= 0.5
    return total


def _true_class_proba(data):
    """Probability assigned to the true class of each sample, in the widest float of
    the device, shape (n,)."""
    xp, device = data.namespace
    P, y = data.proba, data.y
    if P.ndim == 1:
        # 1 - p in the input dtype, as sklearn builds its two-column matrix
        p = xp.where(y == data.pos_index, P, 1 - P)
    else:
        p = take_along_rows(P, y, xp)
    return xp.astype(p, max_float_dtype(xp, device), copy=False)


def _log_loss_sum(data, eps, groups=None, n_groups=1):
    """Weighted sum over samples of ``-log clip(p_{i, y_i}, eps, 1 - eps)``.

    The probability of the observed class is read from its own column (``1 - p`` in the
    input dtype for a negative sample of a 1-D ``y_proba``), as
    :func:`sklearn.metrics.log_loss` does; the bounds of ``eps="auto"`` are computed in
    the input dtype, the logarithm in the widest float of the device.  A float, or with
    ``groups`` a float64 array of the sum of each group (see :func:`_brier_sum`).
    """
    xp = data.namespace[0]
    # eps and 1 - eps of float32 and float64 are exact in the input dtype
    e = float(xp.finfo(data.proba.dtype).eps) if eps == "auto" else float(eps)
    p = clip(_true_class_proba(data), e, 1.0 - e, xp)
    with np.errstate(divide="ignore"):
        logs = xp.log(p)
    out = _group_total(logs, data, groups, n_groups)
    return -out


# --------------------------------------------------------------------------------------
# Brier score
# --------------------------------------------------------------------------------------


@validate_params(_COMMON_CONSTRAINTS, prefer_skip_nested_validation=True)
def brier_score(y_true, y_proba, *, sample_weight=None, labels=None, pos_label=None):
    r"""Brier score: mean squared distance between predicted probabilities and outcomes.

    For ``K >= 3`` classes (a 2-D ``y_proba`` with ``K`` columns)

    .. math::

        \mathrm{BS} = \frac{1}{\sum_i w_i} \sum_{i=1}^{n} w_i
            \sum_{k=1}^{K} \bigl(p_{ik} - \mathbb{1}\{y_i = k\}\bigr)^2
            \in [0, 2],

    and for binary problems (a 1-D ``y_proba`` of the positive-class probability, or two
    columns)

    .. math::

        \mathrm{BS} = \frac{1}{\sum_i w_i} \sum_{i=1}^{n} w_i
            \bigl(p_i - \mathbb{1}\{y_i = \text{pos}\}\bigr)^2 \in [0, 1],

    which is half the two-column sum.  These are the values of
    :func:`sklearn.metrics.brier_score_loss` (its default ``scale_by_half="auto"``) on
    every input both accept.  The Brier score is strictly proper; like every proper
    scoring rule in skcalib it keeps its name from the literature and is negatively
    oriented: **lower is better**.  Its scorer ``"brier"`` (``"neg_brier_score"`` is
    scikit-learn's) negates it, so that greater is better as for every scikit-learn scorer.

    As for ``sklearn.metrics.brier_score_loss``, a 1-D ``y_proba`` needs ``pos_label``
    unless the labels are ``{0, 1}`` or ``{-1, 1}`` (then the positive class is 1).  The
    ``uncertainty_metrics`` library's ``brier_score`` is this multiclass score minus 1.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the positive class (1-D) or of each class in
        ``labels`` order (2-D, as returned by ``predict_proba``).
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (weight ``w`` is equivalent to repeating the sample ``w`` times).
    labels : array-like, default=None
        The classes, in the column order of ``y_proba``.  Default: sorted unique labels
        of ``y_true``.
    pos_label : int, float, bool or str, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    float
        The (weighted) mean Brier score, in [0, 1] for binary problems and in [0, 2]
        otherwise.

    References
    ----------
    G. W. Brier (1950). Verification of forecasts expressed in terms of probability.
    Monthly Weather Review 78(1), 1-3.

    Examples
    --------
    >>> from skcalib.metrics import brier_score
    >>> brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3])
    0.0375
    >>> brier_score(["spam", "ham", "ham", "spam"], [0.9, 0.2, 0.1, 0.7], pos_label="spam")
    0.0375
    >>> brier_score([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.2, 0.2, 0.6]])
    0.146...
    """
    data = check_classification_labels(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        array_api=True,
    )
    # one read of the probabilities: each chunk is checked, then summed
    total = _brier_sum(data, check=True)
    return float(_weighted_mean_total(total, data.sample_weight, data.n_samples))


# --------------------------------------------------------------------------------------
# negative log-likelihood
# --------------------------------------------------------------------------------------


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "eps": [StrOptions({"auto"}), Interval(numbers.Real, 0, 0.5, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def negative_log_likelihood(
    y_true, y_proba, *, eps="auto", sample_weight=None, labels=None, pos_label=None
):
    r"""Negative log-likelihood (log loss, cross-entropy) of probabilistic predictions.

    .. math::

        \mathrm{NLL} = -\frac{1}{\sum_i w_i}\sum_{i=1}^{n} w_i
            \log \operatorname{clip}(p_{i, y_i}, \varepsilon, 1 - \varepsilon),

    where :math:`p_{i,y_i}` is the probability given to the observed class (``1 - p`` for
    a negative sample of a binary problem with 1-D ``y_proba``).  Equals
    :func:`sklearn.metrics.log_loss`.  Only the true-class probabilities are read after
    validation (no ``n x K`` logarithm).  The log loss is strictly proper and local, and
    negatively oriented: **lower is better**.  Its scorer
    ``"neg_negative_log_likelihood"`` (alias ``"nll"``) negates it.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities (1-D: of the positive class).
    eps : "auto" or float in [0, 0.5), default="auto"
        Probabilities are clipped to ``[eps, 1 - eps]`` so that a confident mistake costs
        a finite amount.  ``"auto"`` is the machine epsilon of the dtype of ``y_proba``
        (``2.2e-16`` for float64, ``1.2e-7`` for float32), as in scikit-learn >= 1.5;
        ``eps=0`` disables clipping (a zero probability on the true class then gives
        ``inf``).  The logarithm is taken in float64.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.
    labels : array-like, default=None
        The classes, in the column order of ``y_proba``.
    pos_label : int, float, bool or str, default=None
        Positive class for a 1-D ``y_proba`` (default: 1, for labels in ``{0, 1}`` or
        ``{-1, 1}``; required for other labels).

    Returns
    -------
    float
        The (weighted) mean negative log-likelihood, in nats.

    References
    ----------
    I. J. Good (1952). Rational decisions. Journal of the Royal Statistical Society B
    14(1), 107-114.

    Examples
    --------
    >>> from skcalib.metrics import negative_log_likelihood
    >>> negative_log_likelihood(["spam", "ham", "ham", "spam"],
    ...                         [[.1, .9], [.9, .1], [.8, .2], [.35, .65]])
    0.21616...
    """
    data = check_classification_labels(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        array_api=True,
    )
    # one read of the probabilities: each chunk is checked, then summed
    xp = data.namespace[0]
    total = 0.0
    for start, part in input_chunks(data):
        check_proba_chunk(part.proba, start, name=data.proba_name, tolerance=data.tolerance, xp=xp)
        total += _log_loss_sum(part, eps)
    return float(_weighted_mean_total(total, data.sample_weight, data.n_samples))


# --------------------------------------------------------------------------------------
# Brier decomposition (Murphy 1973; Stephenson et al. 2008)
# --------------------------------------------------------------------------------------


def _group_sums(F, columns, xp, device):
    """Groups of identical rows of ``F`` (n, d) and per-group sums, in ``F``'s namespace.

    The rows are put in lexicographic order by successive stable ``argsort`` of the
    columns, last column first (the order of ``np.lexsort``); a group is a run of equal
    rows.  The sums of each array of ``columns`` (shape (n,) or (n, m)) over a group are
    weighted bincounts of the group index where the namespace has one (numpy, PyTorch,
    CuPy, JAX), else the differences of their cumulative sums at the ends of the runs
    (exact for counts and unweighted outcomes; to rounding otherwise).  No item
    assignment (JAX arrays are immutable).

    Returns
    -------
    F_g : array of shape (G, d)
        The forecast of each group, in increasing lexicographic order.
    sums : list of arrays of shape (G,) or (G, m)
        The sums of each array of ``columns`` over each group.
    """
    # -0.0 becomes 0.0: a sort may order the two (a radix sort on a GPU, XLA's total
    # order), which would split a group in the lexicographic order of the rows
    F = F + 0.0
    n, d = F.shape
    order = xp.argsort(F[:, d - 1], stable=True)
    for j in range(d - 2, -1, -1):
        order = xp.take(order, xp.argsort(xp.take(F[:, j], order), stable=True))
    Fs = xp.take(F, order, axis=0)
    changes = xp.any(Fs[1:, :] != Fs[:-1, :], axis=1)
    last = xp.ones(1, dtype=xp.bool, device=device)
    ends = xp.concat([changes, last])
    idx = xp.nonzero(ends)[0]
    n_groups = idx.shape[0]
    sums = []
    if has_fast_bincount(xp):
        starts = xp.concat([last, changes])
        gid = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1
        for c in columns:
            cs = xp.take(c, order, axis=0)
            if cs.ndim == 1:
                sums.append(weighted_bincount(gid, cs, n_groups, xp, device))
            else:
                m = cs.shape[1]
                flat = xp.reshape(gid[:, None] * m + xp.arange(m, device=device)[None, :], (-1,))
                s = weighted_bincount(flat, xp.reshape(cs, (-1,)), n_groups * m, xp, device)
                sums.append(xp.reshape(s, (n_groups, m)))
    else:
        for c in columns:
            at = xp.take(xp.cumulative_sum(xp.take(c, order, axis=0), axis=0), idx, axis=0)
            sums.append(at - xp.concat([xp.zeros_like(at[:1, ...]), at[:-1, ...]], axis=0))
    return xp.take(Fs, idx, axis=0), sums


def _decomposition_exact(data):
    """Murphy decomposition grouping identical forecast vectors (the positive-class
    probability of a binary problem), in the widest float of the device; only the
    three components travel to the host."""
    xp, device = data.namespace
    sw = data.sample_weight
    dtype = max_float_dtype(xp, device)
    P = xp.astype(data.proba, dtype)
    if data.is_binary:
        F = (P if P.ndim == 1 else P[:, data.pos_index])[:, None]
        hit = (data.y == data.pos_index)[:, None]
    else:
        F = P
        hit = data.y[:, None] == xp.arange(P.shape[1], dtype=data.y.dtype, device=device)[None, :]
    w = xp.ones(data.n_samples, dtype=dtype, device=device) if sw is None else xp.astype(sw, dtype)
    hits = xp.astype(hit, dtype) * w[:, None]  # weighted one-hot of the outcome
    F_g, (n_g, O_sum) = _group_sums(F, [w, hits], xp, device)
    W = float(data.n_samples if sw is None else xp.sum(w))
    clim = xp.sum(hits, axis=0) / W
    # a group of weight 0 adds nothing (its frequency is never used)
    O_g = O_sum / xp.where(n_g > 0, n_g, xp.ones_like(n_g))[:, None]
    rel = float(xp.sum(n_g * xp.sum((F_g - O_g) ** 2, axis=1))) / W
    res = float(xp.sum(n_g * xp.sum((O_g - clim[None, :]) ** 2, axis=1))) / W
    unc = float(xp.sum(clim * (1 - clim)))
    return unc, res, rel, 0.0, 0.0


def _binned_totals(data, groups=None, n_groups=1):
    """Weighted totals over samples of ``p^2`` and of ``p * outcome`` of the binned
    probabilities (the positive-class one for binary problems, every class's for
    multiclass problems), in the widest float of the device (numpy: by chunks of rows,
    no n x k float64 copy of float32 input).  Two floats, or with ``groups`` (see
    :func:`_brier_sum`) two float64 arrays of the totals of each group."""
    xp, device = data.namespace
    top = max_float_dtype(xp, device)
    P = data.proba
    if data.is_binary:
        f = xp.astype(P if P.ndim == 1 else P[:, data.pos_index], top)
        fo = xp.where(data.y == data.pos_index, f, xp.zeros_like(f))
        return (
            _group_total(f * f, data, groups, n_groups),
            _group_total(fo, data, groups, n_groups),
        )
    sum_ff = 0.0 if groups is None else np.zeros(n_groups)
    for start, stop in row_ranges(data.n_samples, 8 * P.shape[1], xp):
        part = data.rows(start, stop)
        c = xp.astype(part.proba, top, copy=False)
        g = None if groups is None else groups[start:stop]
        sum_ff += _group_total(row_dot(c, c, xp), part, g, n_groups)
    return sum_ff, _group_total(_true_class_proba(data), data, groups, n_groups)


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "strategy": [StrOptions({"uniform", "quantile"})],
    },
    prefer_skip_nested_validation=True,
)
def brier_decomposition(
    y_true,
    y_proba,
    *,
    n_bins=None,
    strategy="uniform",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Decompose the Brier score into uncertainty, resolution and reliability (Murphy).

    Forecasts are partitioned into groups ``g`` with weight :math:`n_g`, mean forecast
    :math:`\bar f_g` and observed class frequencies :math:`\bar o_g`; :math:`\bar o` is
    the overall class frequency (climatology) and :math:`N = \sum_g n_g`.  Then

    .. math::

        \mathrm{REL} = \frac{1}{N}\sum_g n_g \lVert \bar f_g - \bar o_g \rVert^2,\quad
        \mathrm{RES} = \frac{1}{N}\sum_g n_g \lVert \bar o_g - \bar o \rVert^2,\quad
        \mathrm{UNC} = \sum_k \bar o_k (1 - \bar o_k),

    and

    .. math::

        \mathrm{BS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC}
            + \mathrm{WBV} - \mathrm{WBC}

    holds exactly (to rounding error), with the within-bin variance and covariance of
    Stephenson, Coelho and Jolliffe (2008)

    .. math::

        \mathrm{WBV} = \frac{1}{N}\sum_g \sum_{i \in g} w_i \lVert f_i - \bar f_g\rVert^2,
        \qquad
        \mathrm{WBC} = \frac{2}{N}\sum_g \sum_{i \in g} w_i
            \langle o_i - \bar o_g, f_i - \bar f_g \rangle.

    **Exactness.**  With ``n_bins=None`` (default) the groups are the distinct forecast
    vectors (identical rows of ``y_proba``; identical positive-class probabilities for
    binary problems).  Every forecast then equals its group mean, ``WBV = WBC = 0``, and
    Murphy's identity ``BS = REL - RES + UNC`` is exact.  With ``n_bins`` the
    probabilities are binned with the library's one binning rule (``strategy``
    "uniform" or "quantile"): the positive-class probability for binary problems, each
    class's probability separately (one-vs-rest, summed over classes) for multiclass
    problems.  ``REL`` then uses bin-mean forecasts and the two extra terms restore the
    exact identity; they are small when the bins are narrow.

    Binary problems (1-D ``y_proba`` or two columns) are decomposed on the positive-class
    probability, matching the binary :func:`brier_score` (range [0, 1]).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the positive class (1-D) or of each class in
        ``labels`` order (2-D).
    n_bins : int or None, default=None
        None: group identical forecasts (exact Murphy decomposition).  An int: bin the
        probabilities into ``n_bins`` bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning strategy when ``n_bins`` is given.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (weight ``w`` is equivalent to repeating the sample ``w`` times).
    labels : array-like, default=None
        The classes, in the column order of ``y_proba``.  Default: sorted unique labels
        of ``y_true``.
    pos_label : int, float, bool or str, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    result : BrierDecompositionResult
        Unpacks as ``(uncertainty, resolution, reliability)`` (floats, ``resolution``
        and ``reliability`` >= 0), the order of ``uncertainty_metrics``; these and
        ``within_bin_variance``, ``within_bin_covariance`` (0.0 when ``n_bins=None``)
        are attributes.

    References
    ----------
    A. H. Murphy (1973). A new vector partition of the probability score. Journal of
    Applied Meteorology 12(4), 595-600.

    J. Broecker (2009). Reliability, sufficiency, and the decomposition of proper scores.
    Quarterly Journal of the Royal Meteorological Society 135, 1512-1519.

    D. B. Stephenson, C. A. S. Coelho and I. T. Jolliffe (2008). Two extra components in
    the Brier score decomposition. Weather and Forecasting 23(4), 752-757.

    Examples
    --------
    >>> from skcalib.metrics import brier_decomposition, brier_score
    >>> y_true = [0, 0, 1, 1, 1]
    >>> y_proba = [0.2, 0.2, 0.2, 0.8, 0.8]
    >>> unc, res, rel = brier_decomposition(y_true, y_proba)
    >>> round(unc, 4), round(res, 4), round(rel, 4)
    (0.24, 0.1067, 0.0267)
    >>> d = brier_decomposition(y_true, y_proba)
    >>> d.within_bin_variance, d.within_bin_covariance
    (0.0, 0.0)
    >>> round(d.reliability - d.resolution + d.uncertainty, 12)
    0.16
    >>> brier_score(y_true, y_proba)
    0.16...
    """
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        array_api=True,
    )
    binary = data.is_binary
    if n_bins is None:
        unc, res, rel, wbv, wbc = _decomposition_exact(data)
    else:
        mode = "binary" if binary else "classwise"
        # numpy sums of the bins (computed on the device for array-API input)
        stats = bin_stats(data, multiclass=mode, n_bins=n_bins, strategy=strategy)
        return binned_decomposition(stats, *_binned_totals(data))
    return BrierDecompositionResult(
        uncertainty=unc,
        resolution=res,
        reliability=rel,
        within_bin_variance=float(wbv),
        within_bin_covariance=float(wbc),
    )


def binned_decomposition(stats, sum_ff, sum_fo):
    """The Brier decomposition of :func:`brier_decomposition` with ``n_bins``, from the
    bin statistics (one group, binary, or one per class) and the weighted
    totals of ``p^2`` and ``p * outcome`` over the binned probabilities
    (:func:`_binned_totals`); shared with the streaming accumulator."""
    cnt, sp, st = stats.count, stats.sum_proba, stats.sum_true  # (groups, bins)
    W = stats.total_weight
    nz = cnt > 0
    fbar = np.zeros_like(sp)
    obar = np.zeros_like(st)
    np.divide(sp, cnt, out=fbar, where=nz)
    np.divide(st, cnt, out=obar, where=nz)
    clim = st.sum(axis=1) / W  # per group (class)
    wbv = max((sum_ff - float(np.sum(cnt * fbar * fbar))) / W, 0.0)
    return BrierDecompositionResult(
        uncertainty=float(np.sum(clim * (1 - clim))),
        resolution=float(np.sum(cnt * (obar - clim[:, None]) ** 2) / W),
        reliability=float(np.sum(cnt * (fbar - obar) ** 2) / W),
        within_bin_variance=float(wbv),
        within_bin_covariance=float(2.0 * (sum_fo - float(np.sum(cnt * fbar * obar))) / W),
    )


# --------------------------------------------------------------------------------------
# CORP score decomposition (Dimitriadis, Gneiting and Jordan 2021)
# --------------------------------------------------------------------------------------


def _binary_scores(x, gy, gw, scoring):
    """Summed score of forecast value(s) ``x`` for groups with outcome sum ``gy`` and
    weight ``gw`` (0 * log 0 = 0)."""
    if scoring == "brier":
        # sum_i w_i (x - y_i)^2 = gw x^2 - 2 x gy + gy   (y in {0, 1})
        return float(np.sum(gw * x * x - 2.0 * x * gy + gy))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = -(xlogy(gy, x) + xlogy(gw - gy, 1.0 - x))
    return float(np.sum(s))


def _corp_columns(data):
    """The ``(forecast, outcome)`` pairs CORP decomposes: the positive-class
    probability of a binary problem, every column one-vs-rest otherwise; forecasts in
    float64 (the widest float of the device for array-API input)."""
    P = data.proba
    xp, device = data.namespace
    dtype = max_float_dtype(xp, device)

    def as_float(a):
        return xp.astype(a, dtype)

    if data.is_binary:
        yield as_float(P if P.ndim == 1 else P[:, data.pos_index]), data.y == data.pos_index
    else:
        for j in range(P.shape[1]):
            yield as_float(P[:, j]), data.y == j


def _corp_groups(x, o, w, xp, device):
    """Tie groups of forecasts ``x`` (widest float) with outcomes ``o`` (bool) and
    weights ``w`` (or None), in their namespace: the distinct forecasts of positive
    weight in increasing order, and the weight and weighted outcome sum of each, as
    host float64 arrays (one transfer of the ``(G, 3)`` array of the groups)."""
    w = xp.ones_like(x) if w is None else xp.astype(w, x.dtype)
    gx, (gy, gw) = _group_sums(x[:, None], [xp.astype(o, x.dtype) * w, w], xp, device)
    groups = to_numpy(xp.stack([gx[:, 0], gy, gw], axis=1), xp).astype(np.float64)
    groups = groups[groups[:, 2] > 0]  # groups of weight 0 are dropped
    return groups[:, 0], groups[:, 1], groups[:, 2]


def _corp_from_groups(gx, gy, gw, scoring, eps):
    """CORP components (sums, not means) of the tie groups of :func:`_corp_groups`: the
    summed scores of the forecasts, of their PAV recalibration and of the climatology,
    and the total weight."""
    W = float(gw.sum())
    # PAV on the pooled tie groups
    recal = isotonic_regression(gy / gw, weights=gw, increasing=True).x
    np.clip(recal, 0.0, 1.0, out=recal)
    clim = np.full(gx.shape, float(gy.sum()) / W)
    if scoring == "log_loss":
        # the recalibrated and climatological probabilities are clipped like the
        # forecasts: a 0 or 1 reached by rounding (an opposite outcome of negligible
        # weight) must not make a score infinite
        gx = np.clip(gx, eps, 1.0 - eps)
        np.clip(recal, eps, 1.0 - eps, out=recal)
        np.clip(clim, eps, 1.0 - eps, out=clim)
    s_fc = _binary_scores(gx, gy, gw, scoring)
    s_rc = _binary_scores(recal, gy, gw, scoring)
    s_cl = _binary_scores(clim, gy, gw, scoring)
    return s_fc, s_rc, s_cl, W


@validate_params(
    {
        **_COMMON_CONSTRAINTS,
        "scoring": [StrOptions({"brier", "log_loss"})],
    },
    prefer_skip_nested_validation=True,
)
def score_decomposition(
    y_true,
    y_proba,
    *,
    scoring="brier",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""CORP decomposition of a mean score into miscalibration, discrimination, uncertainty.

    The forecasts :math:`x_i` are recalibrated by isotonic regression of the outcomes on
    the forecasts (the pool-adjacent-violators algorithm, equal forecasts pooled first,
    sample weights respected), giving :math:`\hat x_i`; the climatological forecast is the
    weighted outcome frequency :math:`r`.  With :math:`\bar S(\cdot)` the mean score,

    .. math::

        \mathrm{MCB} = \bar S(x) - \bar S(\hat x),\quad
        \mathrm{DSC} = \bar S(r) - \bar S(\hat x),\quad
        \mathrm{UNC} = \bar S(r),\qquad
        \bar S(x) = \mathrm{MCB} - \mathrm{DSC} + \mathrm{UNC}

    exactly.  Because isotonic recalibration is optimal among non-decreasing maps for
    every proper score, ``MCB >= 0`` and ``DSC >= 0``.  ``scoring="brier"`` uses the
    squared error and ``scoring="log_loss"`` the logarithmic score (the forecasts, the
    recalibrated and the climatological probabilities are all clipped to
    ``[eps, 1 - eps]``, ``eps`` the machine epsilon of the input dtype, as in
    :func:`negative_log_likelihood`, so no component is infinite).

    Binary problems (1-D ``y_proba`` or two columns) are decomposed on the
    positive-class probability: ``score`` then equals :func:`brier_score` or
    :func:`negative_log_likelihood` (with two columns, the log score of a negative
    sample reads the negative column itself, as :func:`negative_log_likelihood` does).
    For ``K >= 3`` classes each column is decomposed one-vs-rest (outcome ``y == k``)
    and the components are summed over classes; for
    ``scoring="brier"`` the ``score`` is then the multiclass :func:`brier_score`, for
    ``scoring="log_loss"`` it is the sum over classes of the binary log losses of the
    columns (not the multiclass negative log-likelihood).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities: of the positive class (1-D) or of each class in
        ``labels`` order (2-D).
    scoring : {"brier", "log_loss"}, default="brier"
        The proper score that is decomposed: the squared error or the logarithmic
        score.
    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights (weight ``w`` is equivalent to repeating the sample ``w`` times).
    labels : array-like, default=None
        The classes, in the column order of ``y_proba``.  Default: sorted unique labels
        of ``y_true``.
    pos_label : int, float, bool or str, default=None
        Positive class of a binary problem (default: the greater label; a 1-D
        ``y_proba`` without it needs labels in {0, 1} or {-1, 1}).

    Returns
    -------
    result : ScoreDecompositionResult
        Unpacks as ``(score, miscalibration, discrimination, uncertainty)`` (floats),
        each also an attribute.

    References
    ----------
    T. Dimitriadis, T. Gneiting and A. I. Jordan (2021). Stable reliability diagrams for
    probabilistic classifiers. PNAS 118(8), e2016191118.

    Examples
    --------
    >>> from skcalib.metrics import score_decomposition
    >>> score, mcb, dsc, unc = score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4])
    >>> score, mcb, dsc, unc
    (0.275, 0.15, 0.125, 0.25)
    >>> score_decomposition([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4]).miscalibration
    0.15
    """
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        array_api=True,
    )
    P = data.proba
    sw = data.sample_weight
    xp = data.namespace[0]
    eps = float(xp.finfo(P.dtype).eps)
    s_fc = s_rc = s_cl = 0.0
    W = 1.0
    for x, o in _corp_columns(data):
        gx, gy, gw = _corp_groups(x, o, sw, *data.namespace)
        a, b, c, W = _corp_from_groups(gx, gy, gw, scoring, eps)
        s_fc += a
        s_rc += b
        s_cl += c
    if scoring == "log_loss" and data.is_binary:
        # the forecast's own score reads the observed class's column (not 1 - the
        # positive column, which differs when the rows sum to 1 only within tolerance),
        # so that ``score`` is exactly negative_log_likelihood
        s_fc = _log_loss_sum(data, "auto")
    score = s_fc / W
    recal = s_rc / W
    unc = s_cl / W
    return ScoreDecompositionResult(
        score=float(score),
        miscalibration=float(score - recal),
        discrimination=float(unc - recal),
        uncertainty=float(unc),
    )
