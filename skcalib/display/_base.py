"""Shared helpers of the displays: matplotlib access, axes, estimator output.

matplotlib is imported inside these functions only, when something is drawn, so that
``import skcalib`` (and ``import skcalib.display``) never imports it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ..metrics._binning import resolve_multiclass
from ..metrics._validation import check_classification_input

__all__ = []


def check_matplotlib(caller):
    """Import matplotlib or raise an ImportError saying who needs it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:  # pragma: no cover - matplotlib is in the test extra
        raise ImportError(
            f"{caller} requires matplotlib: pip install matplotlib (or skcalib[plot])"
        ) from exc


def has_matplotlib():
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def headless_figure(**kwargs):
    """A :class:`matplotlib.figure.Figure` made directly: no pyplot, no GUI backend.

    For files written by scripts and the command line, where no window may open and
    no global pyplot state should be kept.
    """
    from matplotlib.figure import Figure

    return Figure(**kwargs)


def new_figure(nrows=1, ncols=1, **kwargs):
    """A new pyplot figure and its axes, with constrained layout.

    The figure is created with :func:`matplotlib.pyplot.subplots` (as scikit-learn's
    displays do), so that it is shown inline in a notebook at the end of the cell.
    """
    import matplotlib.pyplot as plt

    return plt.subplots(nrows, ncols, layout="constrained", squeeze=False, **kwargs)


def check_kind(kind, options, name="kind"):
    if kind not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {kind!r}")


def estimator_name(estimator):
    """The class name of an estimator (of the last step of a pipeline)."""
    steps = getattr(estimator, "steps", None)
    if steps:
        return type(steps[-1][1]).__name__
    return type(estimator).__name__


def classifier_proba(estimator, X, caller):
    """``predict_proba(X)`` of a fitted classifier and its ``classes_``."""
    if not is_classifier(estimator):
        raise ValueError(
            f"{caller} needs a classifier, got {type(estimator).__name__}; for a regressor "
            "use PITDisplay"
        )
    if not hasattr(estimator, "predict_proba"):
        raise ValueError(
            f"{caller} needs a classifier with predict_proba; {type(estimator).__name__} has none"
        )
    check_is_fitted(estimator)
    return estimator.predict_proba(X), np.asarray(estimator.classes_)


def legend_label(name, value, metric):
    """``"name (ECE = 0.034)"``, or the metric alone without a name."""
    text = f"{metric} = {value:.3f}"
    return text if name is None else f"{name} ({text})"


def binning_mode(y_true, y_proba, multiclass, *, sample_weight, labels, pos_label):
    """What the metrics bin for ``multiclass`` on this data, and the classes.

    Returns ``(data, mode, pos)``: the validated labels (the probability values are
    checked later, by the metric that bins them), the mode the binning core resolves
    ``multiclass`` to ("binary", "top_label" or "classwise"), and for "binary" the
    positive class as a Python scalar (for axis labels), else None.
    """
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
        check_values=False,
    )
    mode = resolve_multiclass(multiclass, data)
    pos = None
    if mode == "binary":
        pos = data.classes[data.pos_index]
        pos = pos.item() if isinstance(pos, np.generic) else pos
    return data, mode, pos
