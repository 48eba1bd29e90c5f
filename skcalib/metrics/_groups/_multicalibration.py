"""Multicalibration error over the segments of a population (MCGrad's metric)."""

from __future__ import annotations

import itertools
import numbers

import numpy as np

from ..._core._validation import check_classification_input
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import MulticalibrationResult
from ._codes import factorize, group_columns
from ._cumulative import _sigma
from ._kernels import SortedPairs, brownian_range_sf, calibration_pairs, code_dtype, null_terms

__all__ = ["multicalibration_error"]

#: key of the values folded together by ``max_values_per_feature``
OTHER = "(other)"


def _feature_codes(column, max_values):
    """Codes and value names of one feature: every value (missing values one of
    them), or the ``max_values - 1`` most frequent ones and one value for the rest
    (ties in frequency broken by the order of the values)."""
    codes, uniques = factorize(column)
    uniques = [u.item() if isinstance(u, np.generic) else u for u in uniques]
    if max_values is None or len(uniques) <= max_values:
        return codes, uniques
    counts = np.bincount(codes, minlength=len(uniques))
    keep = np.sort(np.argsort(-counts, kind="stable")[: max_values - 1])
    lut = np.full(len(uniques), max_values - 1, dtype=np.intp)
    lut[keep] = np.arange(max_values - 1)
    return lut[codes], [uniques[j] for j in keep] + [OTHER]


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "segments": ["array-like"],
        "max_depth": [Interval(numbers.Integral, 0, None, closed="left")],
        "min_group_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_values_per_feature": [Interval(numbers.Integral, 2, None, closed="left"), None],
        "max_segments": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
        "sample_weight": ["array-like", None],
        "labels": ["array-like", None],
        "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
    },
    prefer_skip_nested_validation=True,
)
def multicalibration_error(
    y_true,
    y_proba,
    segments,
    *,
    max_depth=2,
    min_group_size=10,
    max_values_per_feature=None,
    max_segments=None,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
):
    r"""Multicalibration error: the worst calibrated of many overlapping segments.

    Is the model calibrated not only overall but on every subpopulation described by
    a few features, and which one is the worst?  The segments are the whole
    population, every value of every feature, and every combination of values of up
    to ``max_depth`` features (depth 2: all pairs of features); a segment with fewer
    than ``min_group_size`` samples is skipped.  In each segment ``s`` the cumulative
    calibration error :math:`\mathrm{ECCE}_s` (:func:`cumulative_calibration_error` of
    its samples) is divided by its standard deviation under calibration
    :math:`\sigma_s = \sqrt{\sum_{i \in s} w_i^2 p_i (1 - p_i)} / \sum_{i \in s} w_i`;
    the metric of MCGrad (Guy et al. 2025) is the largest ratio,

    .. math::

        \mathrm{sigma} = \max_s \frac{\mathrm{ECCE}_s}{\sigma_s}, \qquad
        \mathrm{mce} = \mathrm{sigma} \cdot \sigma_{\mathrm{all}}, \qquad
        \mathrm{mde} = 5\,\sigma_{\mathrm{all}},

    on the scale of the whole population's ECCE (``mce``), with the minimum detectable
    error ``mde`` (about 5 sigma).  The smallest per-segment p-value
    (:func:`cumulative_calibration_test`) is MCGrad's ``mce_pvalue``
    (``pvalue_unadjusted``); it is not valid for the number of segments tested (on
    calibrated data with 5 features of 10 values at depth 2 it falls below 5% far more
    often than 5% of the time).  ``pvalue`` is Bonferroni's, the smallest p-value times
    the number of segments (Holm's adjustment of the smallest one): under calibration
    it is below ``alpha`` with probability at most ``alpha`` whatever the overlap of
    the segments.

    Each subset of features is a partition of the samples, so the segments of one
    subset are computed in one pass with integer codes (:func:`calibration_by_group`'s
    kernel): one sort by probability shared by all subsets, a radix sort of the codes
    per subset, segment reductions; no pass per segment.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    segments : array-like of shape (n_samples, n_features) or (n_samples,)
        Categorical features that define the segments (a DataFrame, a 2-D array, or
        one column); missing values are a value of their own.  Bin numerical features
        first (e.g. by quantiles).
    max_depth : int, default=2
        Largest number of features combined in a segment (0: the whole population).
    min_group_size : int, default=10
        Segments with fewer samples are not tested (MCGrad's
        ``min_samples_per_segment``).
    max_values_per_feature : int, default=None
        Keep the ``max_values_per_feature - 1`` most frequent values of each feature
        and fold the others into one value ``"(other)"`` (MCGrad's
        ``max_values_per_segment_feature``, 3 by default there); None: every value.
    max_segments : int, default=None
        Test at most this many segments, in the order: whole population, depth 1,
        depth 2, ... (features in column order, values in sorted order); None: all.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is calibrated (see :func:`cumulative_calibration_error`); class-wise,
        a segment's ``sigma`` is the largest over the classes and the Bonferroni
        factor counts segments times classes.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights (importance weights in the null standard deviations, as
        in MCGrad).
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem.

    Returns
    -------
    result : MulticalibrationResult
        Unpacks as ``(mce, pvalue)``; ``sigma``, ``pvalue_unadjusted``, ``mde``,
        ``worst_segment``, ``n_segments`` and the per-segment arrays are attributes.

    See Also
    --------
    calibration_by_group : Every group of one partition, with adjusted p-values.

    References
    ----------
    .. [1] I. Guy, D. Haimovich, F. Linder, N. Okati, L. Perini, N. Tax and M. Tygert,
       "Measuring multi-calibration", arXiv:2506.11251, 2025.
    .. [2] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu, "Metrics of
       calibration for probabilistic predictions", JMLR 23(351), 2022.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from skcalib.metrics import multicalibration_error
    >>> rng = np.random.default_rng(0)
    >>> n = 20000
    >>> X = pd.DataFrame({"region": rng.choice(["n", "s", "e", "w"], n),
    ...                   "device": rng.choice(["ios", "android"], n)})
    >>> p = rng.uniform(0.05, 0.95, n)
    >>> bad = (X["region"] == "s").to_numpy() & (X["device"] == "ios").to_numpy()
    >>> y = (rng.random(n) < np.where(bad, np.clip(p + 0.1, 0, 1), p)).astype(int)
    >>> res = multicalibration_error(y, p, X)
    >>> res.worst_segment
    {'region': 's', 'device': 'ios'}
    >>> bool(res.pvalue < 0.001), res.n_segments
    (True, 15)
    """
    data = check_classification_input(
        y_true, y_proba, sample_weight=sample_weight, labels=labels, pos_label=pos_label
    )
    cols, names = group_columns(segments, data.n_samples, "segments")
    if names == [None]:
        names = ["x0"]
    features = [_feature_codes(c, max_values_per_feature) for c in cols]
    p, outcome, w, classes, k = calibration_pairs(data, multiclass)
    residual = outcome - p
    if w is not None:
        residual *= w
    # every per-pair array in the order of the probabilities, once
    pairs = SortedPairs(p, residual)
    sample = pairs.order if k == 1 else pairs.order // k
    var = pairs.take(null_terms(p, w))
    weight = None if w is None else w[sample]
    cls = None if classes is None else pairs.take(classes)
    feature_codes = [f[0][sample] for f in features]
    del sample
    found = {"ecce": [], "std": [], "size": [], "segments": []}
    room = np.inf if max_segments is None else max_segments

    def add(codes, n_cells, keys):
        nonlocal room
        if room <= 0:
            return
        if codes is None:
            size = np.array([data.n_samples])
            cell, n_pair_cells = cls, k
        else:
            size = np.bincount(codes, minlength=n_cells) // k
            cell = codes if cls is None else codes.astype(np.intp) * k + cls
            n_pair_cells = n_cells * k
        kept = np.flatnonzero(size >= min_group_size)[: int(min(room, 2**62))]
        if kept.shape[0] == 0:
            return
        room -= kept.shape[0]
        ranges = pairs.ranges(cell, n_pair_cells).reshape(-1, k)
        if cell is None:
            variance = np.array([[float(var.sum())]])
            total = np.array([float(data.n_samples if w is None else w.sum())])
        else:
            variance = np.bincount(cell, var, minlength=n_pair_cells).reshape(-1, k)
            if weight is None:
                total = size.astype(np.float64)
            else:
                total = np.bincount(cell, weight, minlength=n_pair_cells).reshape(-1, k)[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            found["ecce"].append(ranges[kept] / total[kept, None])
            found["std"].append(np.sqrt(variance[kept]) / total[kept, None])
        found["size"].append(size[kept])
        found["segments"].extend(keys(j) for j in kept.tolist())

    add(None, 1, lambda j: {})
    for depth in range(1, min(max_depth, len(features)) + 1):
        for subset in itertools.combinations(range(len(features)), depth):
            sizes = [len(features[f][1]) for f in subset]
            n_cells = int(np.prod(sizes))
            dtype = code_dtype(n_cells)
            codes = np.zeros(pairs.n, dtype=dtype)
            for f, size in zip(subset, sizes, strict=True):
                codes *= dtype.type(size)
                codes += feature_codes[f].astype(dtype, copy=False)

            def keys(j, subset=subset, sizes=sizes):
                values = []
                for f, size in zip(subset[::-1], sizes[::-1], strict=True):
                    values.append(features[f][1][j % size])
                    j //= size
                return {names[f]: v for f, v in zip(subset, values[::-1], strict=True)}

            add(codes, n_cells, keys)
    ecce = np.concatenate(found["ecce"])
    std = np.concatenate(found["std"])
    sigma_k = _sigma(ecce, std)
    sigma = sigma_k.max(axis=1)
    worst = int(np.argmax(sigma))
    n_seg = sigma.shape[0]
    p_min = float(brownian_range_sf(sigma[worst]))
    global_std = float(std[0].max()) if k > 1 else float(std[0, 0])
    return MulticalibrationResult(
        mce=float(sigma[worst]) * global_std,
        pvalue=min(1.0, p_min * n_seg * k),
        sigma=float(sigma[worst]),
        pvalue_unadjusted=p_min,
        mde=5.0 * global_std,
        worst_segment=found["segments"][worst],
        n_segments=n_seg,
        segment_sigma=sigma,
        segment_ecce=ecce.mean(axis=1),
        segment_size=np.concatenate(found["size"]).astype(np.int64),
        segments=found["segments"],
    )
