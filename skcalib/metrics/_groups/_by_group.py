"""Calibration of every group of a population, in one pass."""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special

from ..._core._binning import COUNT, SUM_PROBA, SUM_TRUE, accumulate_pairs, uniform_bin_edges
from ..._core._validation import check_classification_input
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from .._results import GroupCalibrationResult
from ._codes import group_codes
from ._cumulative import _sigma
from ._kernels import brownian_range_sf, calibration_pairs, cumulative_ranges, null_terms

__all__ = ["calibration_by_group", "adjust_pvalues"]

#: label of the row of the whole population
OVERALL = "(overall)"
_BUILTIN = ("ece", "ecce", "bias")


def adjust_pvalues(pvalues, method="holm"):
    """p-values adjusted for their number: Holm's step-down (family-wise error rate;
    Holm 1979) or Benjamini-Hochberg's step-up (false discovery rate; Benjamini and
    Hochberg 1995).  NaN entries are not part of the family and stay NaN."""
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    keep = ~np.isnan(p)
    q = p[keep]
    m = q.shape[0]
    if m == 0:
        return out
    order = np.argsort(q, kind="stable")
    sorted_p = q[order]
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * sorted_p)
    else:
        adj = np.minimum.accumulate(m / np.arange(m, 0, -1) * sorted_p[::-1])[::-1]
    adj = np.minimum(adj, 1.0)
    back = np.empty(m)
    back[order] = adj
    out[keep] = back
    return out


def _sums(p, outcome, w, classes, k, codes, n_groups, n_bins, builtin):
    """Per-group sums behind the built-in columns, from one pass over the pairs: they
    add up over groups to the sums of the whole population (all but the ranges of the
    cumulative sums, which the caller computes for the whole population apart)."""
    cell = codes if classes is None else np.repeat(codes, k) * k + classes
    n_cells = n_groups * k

    def total(values):
        return np.bincount(cell, values, minlength=n_cells).reshape(-1, k)

    raw = {"n": np.bincount(codes, minlength=n_groups).astype(np.int64)}
    # total weight of each group (every class of a sample carries its weight)
    weight = raw["n"].astype(np.float64) if w is None else total(w)[:, 0]
    raw["weight"] = weight
    if "ece" in builtin:
        raw["bins"] = accumulate_pairs(
            p, outcome, w, uniform_bin_edges(n_bins), groups=cell, n_groups=n_cells
        )
    if "ecce" in builtin:
        residual = outcome - p
        if w is not None:
            residual *= w
        raw["residual"] = residual
        raw["ranges"] = cumulative_ranges(p, residual, cell, n_cells).reshape(-1, k)
        raw["variance"] = total(null_terms(p, w))
    if "bias" in builtin and classes is None:
        d = p - outcome
        w2 = None if w is None else w * w
        raw["s1"] = total(d if w is None else w * d)[:, 0]
        raw["s2d"] = raw["s1"] if w is None else total(w2 * d)[:, 0]
        d *= d
        raw["s2dd"] = total(d if w is None else w2 * d)[:, 0]
        raw["s2"] = raw["weight"] if w is None else total(w2)[:, 0]
    return raw


def _whole(raw, p, k):
    """The sums of the whole population: the groups' added up, the ranges computed."""
    out = {}
    for name, v in raw.items():
        if name == "residual":
            continue
        if name == "ranges":
            v = cumulative_ranges(p, raw["residual"], None if k == 1 else _class_codes(k, p), k)
            out[name] = v.reshape(1, k)
        elif name == "bins":
            out[name] = v.reshape(4, -1, k, v.shape[-1]).sum(axis=1).reshape(4, k, -1)
        else:
            out[name] = v.sum(axis=0, keepdims=True)
    return out


def _class_codes(k, p):
    """The class of each pair of class-wise calibration (pairs are row-major)."""
    return np.tile(np.arange(k, dtype=np.intp), p.shape[0] // k)


def _columns(raw, k):
    """The built-in columns from the sums of :func:`_sums` (or :func:`_whole`)."""
    n, weight = raw["n"], raw["weight"]
    cols = {"n": n, "weight": weight}
    with np.errstate(divide="ignore", invalid="ignore"):
        if "bins" in raw:
            sums = raw["bins"]
            gap = np.abs(sums[SUM_TRUE] - sums[SUM_PROBA]).sum(axis=1)
            cols["ece"] = (gap / sums[COUNT].sum(axis=1)).reshape(-1, k).mean(axis=1)
        if "ranges" in raw:
            std = np.sqrt(raw["variance"]) / weight[:, None]
            ecce = raw["ranges"] / weight[:, None]
            sigma = _sigma(ecce, std)
            pv = np.minimum(1.0, brownian_range_sf(sigma).min(axis=1) * k)
            cols["ecce"] = ecce.mean(axis=1)
            cols["ecce_sigma"] = sigma.max(axis=1)
            cols["pvalue"] = np.where(weight > 0, pv, np.nan)
        if "s1" in raw:
            bias = raw["s1"] / weight
            # sum_i w_i^2 (d_i - bias)^2, with the n / (n - 1) correction of a sample
            # variance
            ss = raw["s2dd"] - 2.0 * bias * raw["s2d"] + bias * bias * raw["s2"]
            ss = np.maximum(ss, 0.0)
            se = np.sqrt(ss * n / np.maximum(n - 1, 1)) / weight
            cols["bias"] = bias
            cols["bias_se"] = np.where(n > 1, se, np.nan)
    return cols


def _as_metric_names(metrics):
    if metrics is None:
        return list(_BUILTIN), []
    if isinstance(metrics, str) or callable(metrics):
        metrics = [metrics]
    builtin, custom = [], []
    for m in metrics:
        if isinstance(m, str):
            if m not in _BUILTIN:
                raise ValueError(
                    f"metrics must name {', '.join(map(repr, _BUILTIN))} or be callables, got {m!r}"
                )
            builtin.append(m)
        elif callable(m):
            custom.append(m)
        else:
            raise ValueError(f"metrics must hold names or callables, got {m!r}")
    return builtin, custom


def _metric_name(f):
    while hasattr(f, "func"):  # functools.partial
        f = f.func
    return getattr(f, "__name__", type(f).__name__)


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "groups": ["array-like"],
        "metrics": [list, tuple, str, callable, None],
        "min_group_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
        "p_adjust": [StrOptions({"holm", "bh"})],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
        "sample_weight": ["array-like", None],
        "labels": ["array-like", None],
        "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
        "as_frame": ["boolean", StrOptions({"auto"})],
    },
    prefer_skip_nested_validation=True,
)
def calibration_by_group(
    y_true,
    y_proba,
    groups,
    *,
    metrics=None,
    min_group_size=30,
    confidence_level=0.95,
    p_adjust="holm",
    n_bins=15,
    multiclass="auto",
    sample_weight=None,
    labels=None,
    pos_label=None,
    as_frame="auto",
):
    r"""Calibration of every group: one row per group and a row of the whole population.

    Is the model calibrated for each group (a country, a device, an age band, or the
    intersections of several such columns), and which groups are miscalibrated beyond
    chance once the number of groups is accounted for?  For each group ``g`` (the
    samples whose ``groups`` value is ``g``):

    * ``n``, ``weight``: its number of samples and total weight;
    * ``ece``: :func:`expected_calibration_error` of its samples (``n_bins`` equal-width
      bins; class-wise: :func:`static_calibration_error`);
    * ``ecce``, ``ecce_sigma``, ``pvalue``: :func:`cumulative_calibration_error` and
      the test of :func:`cumulative_calibration_test` of its samples;
    * ``bias``: the signed calibration-in-the-large
      :math:`\sum_i w_i (p_i - y_i) / \sum_i w_i` (positive: over-estimated), its
      standard error ``bias_se`` and its normal confidence interval ``bias_low``,
      ``bias_high`` at ``confidence_level``

      .. math:: \mathrm{se}^2 = \frac{n}{n - 1}
          \frac{\sum_i w_i^2 (p_i - y_i - \mathrm{bias})^2}{(\sum_i w_i)^2};

    * ``pvalue_adjusted``: the p-values of the groups with at least ``min_group_size``
      samples adjusted for their number (Holm 1979, family-wise; or
      Benjamini-Hochberg 1995, false discovery rate);
    * ``small``: whether the group has fewer than ``min_group_size`` samples.  Small
      groups are reported with all their numbers but are not tested
      (``pvalue_adjusted`` is NaN): their p-values rest on the Brownian limit.

    Every number of a group equals the function named above called on the group's
    rows (with ``labels`` fixed to the classes of the whole data).  All groups are
    computed in one pass: one counting pass for the binned sums of every group, one
    sort by (group, probability) for the cumulative sums (and one by probability for
    the overall row), and weighted counts for the rest; the overall row's other
    numbers are the groups' sums added up.  There is no loop over groups (the
    callables of ``metrics`` excepted, which are called on each group's rows).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Predicted probabilities.
    groups : array-like of shape (n_samples,) or (n_samples, n_columns)
        Group of each sample: one column (any values: strings, numbers, categoricals;
        missing values are a group of their own), or several (a DataFrame or a 2-D
        array), whose combinations that occur are the groups (keys: tuples).
    metrics : list of {"ece", "ecce", "bias"} or callables, default=None
        Columns to compute; None: all three.  A callable
        ``metric(y_true, y_proba, sample_weight=None)`` adds a column of its name,
        computed on each group's rows.
    min_group_size : int, default=30
        Groups with fewer samples are flagged ``small`` and not tested.
    confidence_level : float, default=0.95
        Level of the confidence interval of the bias.
    p_adjust : {"holm", "bh"}, default="holm"
        Adjustment of the groups' p-values for their number.
    n_bins : int, default=15
        Number of equal-width bins of the ECE.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is calibrated (as in :func:`expected_calibration_error`); class-wise, the
        bias is NaN (it sums to 0 over the classes) and the p-value of a group is
        Bonferroni's over its classes.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights.
    labels : array-like, default=None
        Classes in the column order of ``y_proba``.
    pos_label : label, default=None
        Positive class of a binary problem.
    as_frame : bool or "auto", default="auto"
        Return a pandas ``DataFrame`` (``"auto"``: when pandas imports), else a
        :class:`~skcalib.metrics.GroupCalibrationResult` of arrays.

    Returns
    -------
    table : pandas.DataFrame or GroupCalibrationResult
        One row per group (sorted by key), then the row ``"(overall)"`` of the whole
        population (not part of the adjusted family: its ``pvalue_adjusted`` is NaN).

    See Also
    --------
    multicalibration_error : The worst of many overlapping segments.
    skcalib.display.GroupCalibrationDisplay : The table drawn.

    References
    ----------
    .. [1] I. Arrieta-Ibarra, P. Gujral, J. Tannen, M. Tygert and C. Xu, "Metrics of
       calibration for probabilistic predictions", JMLR 23(351), 2022.
    .. [2] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [3] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate", JRSS B
       57(1), 1995.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import calibration_by_group
    >>> rng = np.random.default_rng(0)
    >>> n = 3000
    >>> country = rng.choice(["fr", "de", "it"], n)
    >>> p = rng.uniform(0.05, 0.95, n)
    >>> truth = np.where(country == "it", np.clip(p + 0.15, 0, 1), p)
    >>> y = (rng.random(n) < truth).astype(int)
    >>> table = calibration_by_group(y, p, country)
    >>> list(table.index)
    ['de', 'fr', 'it', '(overall)']
    >>> table["pvalue_adjusted"].round(3).tolist()
    [0.892, 0.235, 0.0, nan]
    >>> bool(table.loc["it", "bias"] < 0)  # under-estimated
    True
    """
    builtin, custom = _as_metric_names(metrics)
    data = check_classification_input(
        y_true, y_proba, sample_weight=sample_weight, labels=labels, pos_label=pos_label
    )
    codes, keys, names = group_codes(groups, data.n_samples)
    if any(k == OVERALL for k in keys):
        raise ValueError(f"groups holds the value {OVERALL!r}, the label of the overall row")
    n_groups = len(keys)
    p, outcome, w, classes, k = calibration_pairs(data, multiclass)
    raw = _sums(p, outcome, w, classes, k, codes, n_groups, n_bins, builtin)
    by = _columns(raw, k)
    overall = _columns(_whole(raw, p, k), k)
    if "bias" in builtin and classes is not None:  # 0 by construction class-wise
        for cols in (by, overall):
            nan = np.full(cols["n"].shape[0], np.nan)
            cols["bias"], cols["bias_se"] = nan, nan.copy()
    small = by["n"] < min_group_size
    cols = {c: np.concatenate([by[c], overall[c]]) for c in by}
    if "bias" in builtin:
        z = float(special.ndtri(0.5 + confidence_level / 2.0))
        se = cols.pop("bias_se")
        cols["bias_low"] = cols["bias"] - z * se
        cols["bias_high"] = cols["bias"] + z * se
        cols["bias_se"] = se
    if "ecce" in builtin:
        tested = np.where(small, np.nan, by["pvalue"])
        cols["pvalue_adjusted"] = np.append(adjust_pvalues(tested, p_adjust), np.nan)
    cols["small"] = np.append(small, False)
    if custom:
        cols.update(_custom_columns(custom, data, codes, n_groups))
    order = ["n", "weight", "ece", "ecce", "ecce_sigma", "bias", "bias_se", "bias_low"]
    order += ["bias_high", "pvalue", "pvalue_adjusted", "small"]
    columns = {c: cols[c] for c in order if c in cols}
    columns.update({c: v for c, v in cols.items() if c not in columns})
    index = list(keys) + [OVERALL]
    if as_frame == "auto":
        try:
            import pandas  # noqa: F401
        except ImportError:  # pragma: no cover - pandas is installed in the tests
            as_frame = False
        else:
            as_frame = True
    if not as_frame:
        return GroupCalibrationResult(groups=index, columns=columns)
    import pandas as pd

    idx = pd.Index(index, dtype=object, tupleize_cols=False)
    idx.name = names[0] if len(names) == 1 else tuple(names)
    return pd.DataFrame(columns, index=idx)


def _custom_columns(custom, data, codes, n_groups):
    """Columns of the user's metrics: each called on each group's rows, then on all."""
    y = data.classes[data.y]
    proba = np.asarray(data.proba)
    w = data.sample_weight
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=n_groups))])
    out = {}
    for metric in custom:
        values = np.empty(n_groups + 1)
        for g in range(n_groups + 1):
            rows = order[bounds[g] : bounds[g + 1]] if g < n_groups else slice(None)
            kw = {} if w is None else {"sample_weight": w[rows]}
            values[g] = float(metric(y[rows], proba[rows], **kw))
        out[_metric_name(metric)] = values
    return out
