r"""The plots of Google's ``uncertainty_metrics`` 0.0.82 (``numpy/visualization.py``).

``reliability_diagram``, ``plot_confidence_vs_accuracy_diagram`` and
``plot_rejection_classification_diagram`` with the reference's signatures, plus the
functions that compute what they draw (the reference returns only the figure or the
Axes): :func:`pooled_reliability_curve`, :func:`confidence_vs_accuracy_curve` and
:func:`rejection_classification_curve`, whose results are frozen objects that unpack as
their main arrays, as the curves of :mod:`skcalib.metrics`.  matplotlib is imported
only when a plot is drawn.  Re-exported by :mod:`skcalib.compat.uncertainty_metrics`.

Differences from the reference
------------------------------
* ``reliability_diagram(class_conditional=True)`` draws one panel per class (the
  reference returns after class 0).
* The sliding window has ``max(1, int(n / 100))`` points (the reference uses
  ``int(n / 100)``, which is 0 below 100 pairs and draws a curve of zeros).
* ``y_axis="error"`` draws ``accuracy - confidence`` against a zero line (the reference
  draws the diagonal there and its docstring says ``confidence - accuracy``); another
  ``y_axis`` is a ValueError (``UnboundLocalError`` in the reference).
* ``img=True`` reads the canvas with ``buffer_rgba`` (the reference's ``tostring_rgb``
  was removed in matplotlib 3.10) and closes the figure.
* The rejection diagram drops the rejection rates that no threshold reaches (the
  reference then crashes on arrays of different lengths) and is drawn by
  :class:`skcalib.display.RejectionDisplay`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..display._base import close_figure, current_axes, new_figure
from ..metrics._results import _UnpackableResult
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._um_common import int_labels, probs_2d

__all__ = [
    "ConfidenceAccuracyCurveResult",
    "PooledReliabilityCurveResult",
    "RejectionClassificationCurveResult",
    "confidence_vs_accuracy_curve",
    "plot_confidence_vs_accuracy_diagram",
    "plot_rejection_classification_diagram",
    "pooled_reliability_curve",
    "rejection_classification_curve",
    "reliability_diagram",
]


@dataclass(frozen=True, eq=False, repr=False)
class PooledReliabilityCurveResult(_UnpackableResult):
    """Result of :func:`pooled_reliability_curve`.

    Unpacks as ``(accuracy, confidence)``, observed then predicted as
    :func:`skcalib.metrics.reliability_curve` (``prob_true, prob_pred``); the error is
    an attribute.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    accuracy : ndarray or list of ndarray
        Fraction of indicators equal to 1 in each window (one array per class with
        ``class_conditional``).
    confidence : ndarray or list of ndarray
        Mean probability of each window.
    error : ndarray or list of ndarray
        ``accuracy - confidence``.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import pooled_reliability_curve
    >>> accuracy, confidence = pooled_reliability_curve([0, 1, 1], [0.2, 0.6, 0.9])
    >>> accuracy
    array([0., 0., 0., 1., 1.])
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("accuracy", "confidence")

    accuracy: object
    confidence: object
    error: object


@dataclass(frozen=True, eq=False, repr=False)
class ConfidenceAccuracyCurveResult(_UnpackableResult):
    """Result of :func:`confidence_vs_accuracy_curve`: unpacks as ``(thresholds, accuracy)``.

    ``accuracy`` may be shorter than ``thresholds``: it stops at the first threshold
    that no example reaches.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    thresholds : ndarray of shape (num_thresholds,)
        The confidence thresholds ``linspace(0, 0.99, num_thresholds)``.
    accuracy : ndarray of shape (n_reached,)
        Accuracy on the examples with confidence at least each threshold.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import confidence_vs_accuracy_curve
    >>> thresholds, accuracy = confidence_vs_accuracy_curve(
    ...     [0.9, 0.3, 0.8], [1, 1, 0], [0.6], num_thresholds=3
    ... )
    >>> accuracy
    array([0.25, 0.25])
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("thresholds", "accuracy")

    thresholds: np.ndarray
    accuracy: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class RejectionClassificationCurveResult(_UnpackableResult):
    """Result of :func:`rejection_classification_curve`.

    Unpacks as ``(rejection_rate, accuracy, thresholds)``, in the order of
    :func:`skcalib.metrics.rejection_curve`; the theoretical maximum is an attribute.

    Each parameter is an attribute of the same name.

    Parameters
    ----------
    rejection_rate : ndarray of shape (n_rates,)
        The rejection rates that a threshold reaches.
    accuracy : ndarray of shape (n_rates,)
        Accuracy after rejecting that fraction (OOD examples counted wrong).
    thresholds : ndarray of shape (n_rates,)
        The confidence threshold used for each rate.
    theoretical_max : ndarray of shape (n_rates,)
        The best accuracy reachable at each rate.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import rejection_classification_curve
    >>> rate, accuracy, thresholds = rejection_classification_curve(
    ...     [0.9, 0.3, 0.8], [1, 1, 0], [0.6], num_thresholds=3
    ... )
    >>> rate
    array([0.   , 0.495, 0.99 ])
    """

    _unpacked: ClassVar[tuple[str, ...]] = ("rejection_rate", "accuracy", "thresholds")

    rejection_rate: np.ndarray
    accuracy: np.ndarray
    thresholds: np.ndarray
    theoretical_max: np.ndarray


def _check_labels(labels, n, k, name):
    """Integer column indices of shape ``(n,)``, or ``(n, 1)`` as the reference's tests
    pass them."""
    y = np.asarray(labels)
    return int_labels(y[:, 0] if y.shape == (n, 1) else y, (n,), k, name)


def _window_curve(v, t):
    """Sliding-window means of the pairs sorted by ``v`` (window ``max(1, n // 100)``)."""
    n = v.shape[0]
    w = max(1, int(n / 100))
    order = np.argsort(v, kind="stable")
    cv = np.concatenate([[0.0], np.cumsum(v[order])])
    ct = np.concatenate([[0.0], np.cumsum(t[order])])
    starts = np.arange(max(n - w, 0))
    conf = (cv[starts + w] - cv[starts]) / w
    acc = (ct[starts + w] - ct[starts]) / w
    return conf, acc


@validate_params(
    {"labels": ["array-like"], "probs": ["array-like"], "class_conditional": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def pooled_reliability_curve(labels, probs, class_conditional=False):
    """The curve of :func:`reliability_diagram`: sliding windows over pooled pairs.

    Every (probability, indicator) pair of the ``N x K`` matrix (or of one class's
    column with ``class_conditional``) is sorted by probability, and each window of
    ``w = max(1, int(n / 100))`` consecutive pairs gives a point (mean probability,
    fraction of indicators equal to 1), for the ``n - w`` windows starting at
    ``0..n-w-1``.  This is not a top-label reliability diagram: all classes'
    probabilities are pooled, as the reference does.

    Parameters
    ----------
    labels : array-like of shape (N,) or (N, 1)
        Integer column indices of the true classes.
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities (1-D: class 1 of a binary problem).
    class_conditional : bool, default=False
        One curve per class instead of the pooled one.

    Returns
    -------
    curve : PooledReliabilityCurveResult
        Unpacks as ``(accuracy, confidence)``; ``confidence``, ``accuracy`` and
        ``error`` (``accuracy - confidence``) are attributes: arrays, or lists of arrays
        (one per class) with ``class_conditional``.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import pooled_reliability_curve
    >>> accuracy, confidence = pooled_reliability_curve([0, 1, 1], [0.2, 0.6, 0.9])
    >>> curve = pooled_reliability_curve([0, 1, 1], [0.2, 0.6, 0.9])
    >>> curve.confidence  # 6 pooled values, windows of one point
    array([0.1, 0.2, 0.4, 0.6, 0.8])
    >>> curve.accuracy
    array([0., 0., 0., 1., 1.])
    """
    P = probs_2d(probs)
    n, k = P.shape
    y = _check_labels(labels, n, k, "labels")
    onehot = (y[:, None] == np.arange(k)).astype(np.float64)
    if not class_conditional:
        conf, acc = _window_curve(P.ravel(), onehot.ravel())
        return PooledReliabilityCurveResult(accuracy=acc, confidence=conf, error=acc - conf)
    conf, acc = zip(*(_window_curve(P[:, j], onehot[:, j]) for j in range(k)), strict=True)
    error = [a - c for c, a in zip(conf, acc, strict=True)]
    return PooledReliabilityCurveResult(accuracy=list(acc), confidence=list(conf), error=error)


def _to_image(fig):
    fig.tight_layout(pad=1)
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    close_figure(fig)
    return image


@validate_params(
    {
        "labels": ["array-like"],
        "probs": ["array-like"],
        "class_conditional": ["boolean"],
        "y_axis": [StrOptions({"accuracy", "error"})],
        "img": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def reliability_diagram(labels, probs, class_conditional=False, y_axis="accuracy", img=False):
    """The reliability diagram of uncertainty_metrics 0.0.82 (pooled, sliding window).

    Draws :func:`pooled_reliability_curve`: every class's probabilities pooled (not the
    top-label diagram of :class:`skcalib.display.ReliabilityDisplay`) and smoothed by a
    sliding window of ``max(1, int(n / 100))`` sorted pairs (not bins), as the reference
    does; use :class:`skcalib.display.ReliabilityDisplay` for a binned diagram.

    Differs from the reference with ``class_conditional=True``: this draws one panel per
    class (``K`` panels), whereas the reference returns inside its loop over the classes,
    so its figure shows class 0 only; ``fig.axes[0]`` of the figure returned here is the
    reference's diagram.

    Parameters
    ----------
    labels : array-like of shape (N,) or (N, 1)
        Integer column indices of the true classes (the reference's own tests pass a
        column of shape ``(N, 1)``).
    probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities (1-D: class 1 of a binary problem).
    class_conditional : bool, default=False
        One panel per class (the reference: class 0's panel only, see above).
    y_axis : {"accuracy", "error"}, default="accuracy"
        Accuracy against the diagonal, or ``accuracy - confidence`` against 0.
    img : bool, default=False
        Return the RGB image (uint8 array of shape (H, W, 3)) instead of the figure.

    Returns
    -------
    matplotlib.figure.Figure or ndarray
        The figure, or its RGB image with ``img=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import reliability_diagram
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=1000)
    >>> y = (rng.uniform(size=1000) < p).astype(int)
    >>> fig = reliability_diagram(y, p)
    >>> float(fig.get_figwidth())
    5.0
    >>> image = reliability_diagram(y, p, img=True)
    >>> image.dtype, image.shape[2]
    (dtype('uint8'), 3)
    """
    curve = pooled_reliability_curve(labels, probs, class_conditional=class_conditional)

    panels = [(curve.confidence, curve.accuracy if y_axis == "accuracy" else curve.error)]
    if class_conditional:
        panels = list(zip(*panels[0], strict=True))
    fig, axes = new_figure(1, len(panels), figsize=(5 * len(panels), 5))
    xbins = np.linspace(0, 1, 11)
    diagonal = xbins if y_axis == "accuracy" else np.zeros_like(xbins)
    ylabel = {"accuracy": "Model Accuracy", "error": "Model Calibration Error"}[y_axis]
    for j, (ax, (x, height)) in enumerate(zip(axes[0], panels, strict=True)):
        ax.plot(x, height, color="green")
        ax.plot(xbins, diagonal, color="orange")
        ax.set_ylabel(ylabel + (" (accuracy - confidence)" if y_axis == "error" else ""))
        ax.set_xlabel("Model Confidence")
        title = "Reliability Diagram" + (f" (class {j})" if class_conditional else "")
        ax.set_title(title, fontsize=20)
    fig.curve_ = curve
    return _to_image(fig) if img else fig


def _ood_inputs(in_probs, in_labels, out_probs):
    """Confidences of the in-distribution examples, their correctness, and the
    confidences of the out-of-distribution ones."""
    P_in, P_out = probs_2d(in_probs, "in_probs"), probs_2d(out_probs, "out_probs")
    y = _check_labels(in_labels, P_in.shape[0], P_in.shape[1], "in_labels")
    return P_in.max(axis=1), P_in.argmax(axis=1) == y, P_out.max(axis=1)


_OOD = {
    "in_probs": ["array-like"],
    "in_labels": ["array-like"],
    "out_probs": ["array-like"],
    "num_thresholds": [Interval(numbers.Integral, 1, None, closed="left")],
}
_REJECTION = {**_OOD, "num_thresholds": [Interval(numbers.Integral, 2, None, closed="left")]}


@validate_params(_OOD, prefer_skip_nested_validation=True)
def confidence_vs_accuracy_curve(in_probs, in_labels, out_probs, num_thresholds=20):
    r"""Accuracy on the examples with confidence at least ``tau`` (OOD counted wrong).

    For ``tau`` in ``linspace(0, 0.99, num_thresholds)``:

    .. math::

        \mathrm{acc}(\tau) = \frac{\#\{i \in \mathrm{in}: c_i \ge \tau,\
            \hat y_i = y_i\}}{\#\{i \in \mathrm{in}: c_i \ge \tau\}
            + \#\{j \in \mathrm{out}: c_j \ge \tau\}},

    stopping at the first ``tau`` that no example reaches (Lakshminarayanan et al.
    2017, section 3.6).

    Parameters
    ----------
    in_probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities on in-distribution examples.
    in_labels : array-like of shape (N,)
        Their integer class indices.
    out_probs : array-like of shape (M,), (M, 1) or (M, K')
        Probabilities on out-of-distribution examples.
    num_thresholds : int, default=20
        Number of thresholds.

    Returns
    -------
    curve : ConfidenceAccuracyCurveResult
        Unpacks as ``(thresholds, accuracy)`` (``num_thresholds`` thresholds; the
        accuracy stops at the first threshold no example reaches), both attributes too.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import confidence_vs_accuracy_curve
    >>> curve = confidence_vs_accuracy_curve([0.9, 0.3, 0.8], [1, 1, 0], [0.6],
    ...                                      num_thresholds=3)
    >>> thresholds, accuracy = curve
    >>> thresholds, accuracy
    (array([0.   , 0.495, 0.99 ]), array([0.25, 0.25]))
    """
    conf_in, correct, conf_out = _ood_inputs(in_probs, in_labels, out_probs)
    taus = np.linspace(0, 0.99, num_thresholds)
    accuracy = []
    for tau in taus:
        total = np.sum(conf_in >= tau) + np.sum(conf_out >= tau)
        if total == 0:
            break
        accuracy.append(np.sum(correct & (conf_in >= tau)) / total)
    return ConfidenceAccuracyCurveResult(
        thresholds=taus, accuracy=np.asarray(accuracy, dtype=np.float64)
    )


@validate_params(
    {**_OOD, "ax": "no_validation"},
    prefer_skip_nested_validation=True,
)
def plot_confidence_vs_accuracy_diagram(
    in_probs, in_labels, out_probs, num_thresholds=20, ax=None, **plot_kwargs
):
    """Plot :func:`confidence_vs_accuracy_curve` (uncertainty_metrics 0.0.82).

    Parameters
    ----------
    in_probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities on in-distribution examples.
    in_labels : array-like of shape (N,)
        Their integer class indices.
    out_probs : array-like of shape (M,), (M, 1) or (M, K')
        Probabilities on out-of-distribution examples.
    num_thresholds : int, default=20
        Number of thresholds.
    ax : matplotlib Axes, default=None
        Where to draw (default ``plt.gca()``).
    **plot_kwargs : dict
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib.axes.Axes
        With the computed curve as the attribute ``curve_``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import plot_confidence_vs_accuracy_diagram
    >>> rng = np.random.default_rng(0)
    >>> p_in, p_out = rng.uniform(size=500), rng.uniform(size=500)
    >>> y_in = (rng.uniform(size=500) < p_in).astype(int)
    >>> ax = plot_confidence_vs_accuracy_diagram(p_in, y_in, p_out)
    >>> ax.get_title(), len(ax.curve_.accuracy)
    ('Accuracy vs Confidence Diagram', 20)
    """
    curve = confidence_vs_accuracy_curve(in_probs, in_labels, out_probs, num_thresholds)
    ax = current_axes() if ax is None else ax
    ax.plot(curve.thresholds[: len(curve.accuracy)], curve.accuracy, **plot_kwargs)
    ax.set_xlabel(r"Confidence Threshold $\tau$")
    ax.set_ylabel(r"Accuracy on examples $p(y|x) \geq \tau$")
    ax.set_title("Accuracy vs Confidence Diagram")
    ax.set_xlim([0, 1])
    ax.set_ylim([0, 1])
    ax.curve_ = curve
    return ax


@validate_params(_REJECTION, prefer_skip_nested_validation=True)
def rejection_classification_curve(in_probs, in_labels, out_probs, num_thresholds=100):
    r"""Accuracy after rejecting the least confident fraction (OOD counted wrong).

    For rejection rates ``r`` in ``linspace(0, 0.99, num_thresholds)``, the threshold
    is the first ``t`` of ``linspace(0, 1, 100 num_thresholds)`` below which at least
    a fraction ``r`` of all (in and out) confidences lie, and

    .. math::

        \mathrm{acc}(r) = \frac{\#\{\mathrm{in\ correct}: c \ge t\} + 10^{-6}}
            {\#\{\mathrm{in}: c \ge t\} + \#\{\mathrm{out}: c \ge t\} + 10^{-6}};

    the theoretical maximum is ``n_in / ((1 - r) N)`` for ``r`` below the OOD share,
    else 1 (arXiv 2003.02037, section 4.2).  Rates that no threshold reaches are
    dropped.

    Parameters
    ----------
    in_probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities on in-distribution examples.
    in_labels : array-like of shape (N,)
        Their integer class indices.
    out_probs : array-like of shape (M,), (M, 1) or (M, K')
        Probabilities on out-of-distribution examples.
    num_thresholds : int, default=100
        Number of rejection rates.

    Returns
    -------
    curve : RejectionClassificationCurveResult
        Unpacks as ``(rejection_rate, accuracy, thresholds)`` (``thresholds``: the
        confidence threshold used for each rate); these and ``theoretical_max`` are
        attributes.

    Examples
    --------
    >>> from skcalib.compat.uncertainty_metrics import rejection_classification_curve
    >>> curve = rejection_classification_curve([0.9, 0.3, 0.8], [1, 1, 0], [0.6],
    ...                                        num_thresholds=3)
    >>> rate, accuracy, thresholds = curve
    >>> rate, accuracy.round(4)
    (array([0.   , 0.495, 0.99 ]), array([0.25, 0.5 , 1.  ]))
    """
    conf_in, correct, conf_out = _ood_inputs(in_probs, in_labels, out_probs)
    conf_all = np.sort(np.concatenate([conf_in, conf_out]))
    N = conf_all.shape[0]
    if N == 0:
        raise ValueError("in_probs and out_probs are both empty")
    rates = np.linspace(0, 0.99, num_thresholds)
    grid = np.linspace(0, 1, 100 * num_thresholds)
    below = np.searchsorted(conf_all, grid, side="left") / N  # fraction below each t
    idx = np.searchsorted(below, rates, side="left")  # first t reaching each rate
    ok = idx < grid.shape[0]
    rates, t = rates[ok], grid[idx[ok]]
    ge_in = conf_in[None, :] >= t[:, None]
    num = np.sum(ge_in & correct[None, :], axis=1) + 1e-6
    den = np.sum(ge_in, axis=1) + np.sum(conf_out[None, :] >= t[:, None], axis=1) + 1e-6
    f_out = conf_out.shape[0] / N
    with np.errstate(divide="ignore"):
        theo = np.where(rates < f_out, conf_in.shape[0] / ((1 - rates) * N), 1.0)
    return RejectionClassificationCurveResult(
        rejection_rate=rates, accuracy=num / den, thresholds=t, theoretical_max=theo
    )


@validate_params(
    {**_REJECTION, "plot_theoretical_max": ["boolean"], "ax": "no_validation"},
    prefer_skip_nested_validation=True,
)
def plot_rejection_classification_diagram(
    in_probs,
    in_labels,
    out_probs,
    num_thresholds=100,
    plot_theoretical_max=True,
    ax=None,
    **plot_kwargs,
):
    """Plot :func:`rejection_classification_curve` (uncertainty_metrics 0.0.82).

    Drawn by :class:`skcalib.display.RejectionDisplay`, with the theoretical maximum as
    its oracle curve.

    Parameters
    ----------
    in_probs : array-like of shape (N,), (N, 1) or (N, K)
        Probabilities on in-distribution examples.
    in_labels : array-like of shape (N,)
        Their integer class indices.
    out_probs : array-like of shape (M,), (M, 1) or (M, K')
        Probabilities on out-of-distribution examples.
    num_thresholds : int, default=100
        Number of rejection rates.
    plot_theoretical_max : bool, default=True
        Also draw the theoretical maximum.
    ax : matplotlib Axes, default=None
        Where to draw (default ``plt.gca()``).
    **plot_kwargs : dict
        Style keywords of the curve.

    Returns
    -------
    matplotlib.axes.Axes
        With the computed curve as the attribute ``curve_``.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.compat.uncertainty_metrics import plot_rejection_classification_diagram
    >>> rng = np.random.default_rng(0)
    >>> p_in, p_out = rng.uniform(size=500), rng.uniform(size=500)
    >>> y_in = (rng.uniform(size=500) < p_in).astype(int)
    >>> ax = plot_rejection_classification_diagram(p_in, y_in, p_out)
    >>> ax.get_title(), len(ax.curve_.accuracy)
    ('Rejection Classification Diagram', 100)
    """
    curve = rejection_classification_curve(in_probs, in_labels, out_probs, num_thresholds)
    from ..display import RejectionDisplay

    ax = current_axes() if ax is None else ax
    display = RejectionDisplay(
        fraction_rejected=curve.rejection_rate,
        accuracy=curve.accuracy,
        oracle_accuracy=curve.theoretical_max,
        base_accuracy=float(curve.accuracy[0]) if len(curve.accuracy) else 0.0,
    )
    display.plot(ax=ax, show_oracle=plot_theoretical_max, show_random=False, **plot_kwargs)
    ax.set_xlabel("Percent of data rejected by uncertainty")
    ax.set_ylabel("Accuracy")
    ax.set_title("Rejection Classification Diagram")
    ax.set_xlim([0, 1])
    ax.curve_ = curve
    return ax
