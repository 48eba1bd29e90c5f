"""Expected calibration error with quantile buckets, as tensorflow-probability computes it.

TFP's quantile buckets
----------------------
tensorflow-probability's rule (``tfp.stats.quantiles(interpolation='nearest')`` and
``_find_bins``) differs from skcalib's one binning rule; it lives here, next to its only
user, :func:`expected_calibration_error_quantiles`.
``B + 1`` edges are nearest-rank quantiles, ``edge_k = s[clip(rint((n-1) * q_k / 100),
0, n-1)]`` with ``s`` the sorted values and ``q = linspace(0, 100, B + 1)``, all in
float64 exactly as ``tfp.stats.quantiles(..., interpolation='nearest')`` computes them
(the float arithmetic matters: for some ``(n, B)`` the exact rational position is a
half that rounds the other way).  ``edge_0`` is the minimum and ``edge_B`` the
maximum.  Buckets are left-closed, ``edge_k <= x < edge_{k+1}``, except the last one,
which is closed (``edge_{B-1} <= x <= edge_B``); repeated edges leave the buckets
between them empty.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._core._validation import _as_float, _to_numpy
from ...utils._sklearn_compat import Interval, validate_params
from .._results import CalibrationErrorQuantilesResult

__all__ = ["expected_calibration_error_quantiles"]


# --------------------------------------------------------------------------------------
# tensorflow-probability's binning: tfp.stats.quantiles(interpolation='nearest') + _find_bins
# --------------------------------------------------------------------------------------


def tfp_quantile_edge_indices(n, n_bins):
    """Positions (in sorted order) of TFP's nearest-rank quantile edges.

    ``clip(rint((n - 1) * (linspace(0, 100, B + 1) / 100)), 0, n - 1)`` in float64,
    as ``tfp.stats.percentile`` computes them (``tf.round`` is round-half-to-even).

    Examples
    --------
    >>> from skcalib.metrics._calibration._quantiles import tfp_quantile_edge_indices
    >>> tfp_quantile_edge_indices(6, 3)  # positions 0, 1.667, 3.333, 5
    array([0, 2, 3, 5])
    >>> tfp_quantile_edge_indices(11, 4)  # 2.5 -> 2 and 7.5 -> 8
    array([ 0,  2,  5,  8, 10])
    """
    q = np.linspace(0.0, 100.0, n_bins + 1)
    pos = np.rint(np.float64(n - 1) * (q / 100.0))
    idx = pos.astype(np.intp)
    np.clip(idx, 0, max(n - 1, 0), out=idx)
    return idx


def tfp_quantile_bin_edges(x, n_bins):
    """The ``n_bins + 1`` nearest-rank quantile edges of ``x`` (TFP's rule).

    The edges are order statistics of ``x`` (the first is the minimum, the last the
    maximum), found by one ``np.partition``.
    """
    x = np.asarray(x)
    idx = tfp_quantile_edge_indices(x.shape[0], n_bins)
    part = np.partition(x, np.unique(idx))
    return part[idx]


def tfp_assign_bins(x, edges):
    """TFP's bucket: (index of the first edge strictly greater than ``x``) - 1.

    Bucket ``k`` holds ``edges[k] <= x < edges[k + 1]``; values not below the last edge
    go to the last bucket, which is therefore closed.  Values below the first edge
    (impossible when the edges are quantiles of ``x`` itself) are put in bucket 0.
    """
    n_bins = edges.shape[0] - 1
    b = np.searchsorted(edges, x, side="right")
    b -= 1
    np.clip(b, 0, n_bins - 1, out=b)
    return b


def _check_hit(hit):
    h = np.asarray(hit)
    if h.ndim != 1:
        raise ValueError(f"hit must be a 1-D array, got shape {h.shape}")
    kind = h.dtype.kind
    if kind == "b":
        return h
    if kind == "O":
        try:
            h = h.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"hit must contain booleans or 0/1: {exc}") from exc
        kind = "f"
    if kind not in "iuf":
        raise ValueError(f"hit must contain booleans or 0/1, got dtype {h.dtype}")
    bad = ~((h == 0) | (h == 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"hit must contain booleans or 0/1; hit[{i}] = {h[i]!r}")
    return h == 1


def _check_log_prob(pred_log_prob):
    lp = np.asarray(
        _as_float(_to_numpy(pred_log_prob, "pred_log_prob"), "pred_log_prob"), dtype=np.float64
    )
    if lp.ndim != 1:
        raise ValueError(f"pred_log_prob must be a 1-D array, got shape {lp.shape}")
    finite = np.isfinite(lp)
    if not finite.all():
        i = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"pred_log_prob must be finite log probabilities; pred_log_prob[{i}] = {lp[i]!r}"
        )
    if lp.shape[0] and lp.max() > 0:
        i = int(np.argmax(lp))
        raise ValueError(
            "pred_log_prob must contain log probabilities (<= 0), not probabilities or "
            f"logits; pred_log_prob[{i}] = {lp[i]!r}"
        )
    return lp


@validate_params(
    {
        "hit": ["array-like"],
        "pred_log_prob": ["array-like"],
        "n_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "log_space_bins": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def expected_calibration_error_quantiles(hit, pred_log_prob, *, n_bins=20, log_space_bins=False):
    r"""Expected calibration error over quantile buckets (tensorflow-probability's).

    Reproduces ``tfp.stats.expected_calibration_error_quantiles(hit, pred_log_prob,
    num_buckets=n_bins, log_space_buckets=log_space_bins)`` for 1-D input, in float64.
    The samples are put into ``B = n_bins`` buckets at the nearest-rank quantiles of the
    predicted probabilities and

    .. math::

        \mathrm{ECE} = \sum_{k=0}^{B-1} \frac{n_k}{n}\,
            \lvert \mathrm{acc}_k - \mathrm{conf}_k \rvert,

    where ``n_k`` is the number of samples in bucket ``k``, ``acc_k`` their fraction of
    hits and ``conf_k`` their mean predicted probability (0 for an empty bucket).

    Buckets: with ``s`` the sorted log probabilities, the edges are
    ``edge_k = s[rint((n - 1) q_k / 100)]`` for ``q = linspace(0, 100, B + 1)``
    (nearest rank, round-half-to-even, float64 as TFP), so ``edge_0`` is the minimum and
    ``edge_B`` the maximum; bucket ``k`` holds ``edge_k <= x < edge_{k+1}`` and the last
    bucket is closed.  Repeated edges leave the buckets between them empty.  This is
    not skcalib's ``strategy="quantile"`` rule (inverted-CDF edges, right-closed bins;
    see :func:`general_calibration_error`), nor uncertainty_metrics' adaptive bins.

    Parameters
    ----------
    hit : array-like of shape (n_samples,)
        Whether each prediction was correct (bool, or 0/1).
    pred_log_prob : array-like of shape (n_samples,)
        Log probability of the predicted label of each sample (finite, ``<= 0``), e.g.
        ``np.log(y_proba.max(axis=1))``.
    n_bins : int, default=20
        Number of buckets (TFP's ``num_buckets``).
    log_space_bins : bool, default=False
        TFP's ``log_space_buckets``: take the quantiles of the log probabilities
        instead of the probabilities.  Nearest-rank quantiles are order statistics and
        ``exp`` is increasing, so both settings select the same samples as edges and
        give the same result; TFP's two settings differ only where its round trip
        ``log(exp(x))`` is off by one ulp (it can then move a sample that equals an
        edge into the neighbouring bucket).  skcalib compares each sample's own log
        probability with the selected samples' log probabilities, i.e. TFP's
        ``log_space_buckets=True`` arithmetic, for both settings.

    Returns
    -------
    result : CalibrationErrorQuantilesResult
        Unpacks as ``(ece, bin_accuracy, bin_confidence, bin_count, bin_edges_log,
        bin)``, TFP's six outputs in its order; each is also an attribute:

        - ``ece``: float.
        - ``bin_accuracy``: ndarray of shape (n_bins,), the fraction of hits per bucket
          (0 for empty buckets).
        - ``bin_confidence``: ndarray of shape (n_bins,), the mean predicted probability
          per bucket, computed as TFP does with a log-sum-exp (0 for empty buckets).
        - ``bin_count``: ndarray of shape (n_bins,), the number of samples per bucket
          (float, as TFP).
        - ``bin_edges_log``: ndarray of shape (n_bins + 1,), the bucket edges as log
          probabilities.
        - ``bin``: ndarray of shape (n_samples,), the bucket of each sample.

    Notes
    -----
    Differences from TFP: only 1-D input (TFP also accepts batches along ``axis``);
    computation in float64 whatever the input dtype (TFP uses the input dtype, float32
    by default, so its printed results are float32 roundings); no ``sample_weight``
    (nearest-rank edges have no weighted form that stays TFP-compatible); invalid input
    raises ``ValueError`` (TFP propagates NaN).

    References
    ----------
    tensorflow-probability, ``tfp.stats.expected_calibration_error_quantiles``
    (``tensorflow_probability/python/stats/calibration.py``).
    Guo, Pleiss, Sun and Weinberger, "On Calibration of Modern Neural Networks",
    ICML 2017.

    Examples
    --------
    The example of the TFP documentation:

    >>> import numpy as np
    >>> from skcalib.metrics import expected_calibration_error_quantiles
    >>> hit = [0, 0, 1, 0, 1, 1]
    >>> pred_log_prob = np.log([0.1, 0.05, 0.5, 0.2, 0.99, 0.99])
    >>> ece, acc, conf, count, edges, bucket = expected_calibration_error_quantiles(
    ...     hit, pred_log_prob, n_bins=3
    ... )
    >>> ece, count
    (0.14500000000000002, array([2., 1., 3.]))
    >>> res = expected_calibration_error_quantiles(hit, pred_log_prob, n_bins=3)
    >>> res.ece
    0.14500000000000002
    >>> res.bin_accuracy
    array([0., 0., 1.])
    >>> res.bin_confidence
    array([0.075     , 0.2       , 0.82666667])
    >>> res.bin_count
    array([2., 1., 3.])
    >>> np.exp(res.bin_edges_log)
    array([0.05, 0.2 , 0.5 , 0.99])
    >>> res.bin
    array([0, 0, 2, 1, 2, 2])
    """
    h = _check_hit(hit)
    lp = _check_log_prob(pred_log_prob)
    n = lp.shape[0]
    if h.shape[0] != n:
        raise ValueError(f"hit and pred_log_prob have different lengths: {h.shape[0]} and {n}")
    if n == 0:
        raise ValueError("hit and pred_log_prob are empty: need at least one sample")
    B = n_bins
    # Order statistics of exp(lp) are exp of those of lp: one rule for both settings.
    edges = tfp_quantile_bin_edges(lp, B)
    b = tfp_assign_bins(lp, edges)

    count = np.bincount(b, minlength=B).astype(np.float64)
    total_hit = np.bincount(b, weights=h, minlength=B)
    # mean probability through a per-bucket log-sum-exp, as TFP: log(sum(exp(x - m))) + m
    m = np.full(B, -np.inf)
    np.maximum.at(m, b, lp)
    shift = np.where(np.isfinite(m), m, 0.0)
    s = np.bincount(b, weights=np.exp(lp - shift[b]), minlength=B)
    nk = np.maximum(count, 1.0)
    log_s = np.full(B, -np.inf)
    np.log(s, out=log_s, where=s > 0)
    confidence = np.exp(log_s + shift - np.log(nk))
    accuracy = total_hit / nk
    ece = np.sum(count * np.abs(accuracy - confidence)) / n
    return CalibrationErrorQuantilesResult(
        ece=float(ece),
        bin_accuracy=accuracy,
        bin_confidence=confidence,
        bin_count=count,
        bin_edges_log=edges,
        bin=b,
    )
