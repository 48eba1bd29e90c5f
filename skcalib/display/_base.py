"""Shared helpers of the displays: matplotlib access, axes, estimator output.

matplotlib is imported inside these functions only, when something is drawn, so that
``import skcalib`` (and ``import skcalib.display``) never imports it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from .._core._binning import resolve_multiclass
from .._core._validation import check_classification_input
from ..utils._sklearn_compat import validate_style_kwargs

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


def current_axes():
    """The current pyplot Axes (``plt.gca()``), for plots drawn where the caller points."""
    import matplotlib.pyplot as plt

    return plt.gca()


def close_figure(fig):
    """Close a pyplot figure (release it from pyplot's state)."""
    import matplotlib.pyplot as plt

    plt.close(fig)


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


def validated_input(y_true, y_proba, multiclass, *, sample_weight, labels, pos_label):
    """Validate classification input once, and say what the metrics bin for it.

    The one validation of a display's ``from_predictions`` (labels, probability values,
    weights); the binning kernel is then called on the result and never validates again.

    Returns ``(data, mode, pos)``: the validated input, the mode the binning core
    resolves ``multiclass`` to ("binary", "top_label" or "classwise"), and for "binary"
    the positive class as a Python scalar (for axis labels), else None.
    """
    data = check_classification_input(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        labels=labels,
        pos_label=pos_label,
    )
    mode = resolve_multiclass(multiclass, data)
    pos = None
    if mode == "binary":
        pos = as_python_scalar(data.classes[data.pos_index])
    return data, mode, pos


def as_python_scalar(value):
    """A numpy scalar as the Python scalar it holds (for labels in text)."""
    return value.item() if isinstance(value, np.generic) else value


def select_classes(classes, all_classes):
    """Indices of ``classes`` among ``all_classes``, matched by exact label equality.

    A ValueError naming ``classes`` lists the unknown and the available labels; no
    conversion is tried (the class ``1`` is not the class ``"1"``).
    """
    wanted = np.asarray(classes, dtype=object).ravel()
    if wanted.size == 0:
        raise ValueError("classes must name at least one class, got an empty list")
    available = [as_python_scalar(c) for c in all_classes]
    index, unknown = [], []
    for c in map(as_python_scalar, wanted):
        hits = [i for i, a in enumerate(available) if a == c]
        if hits:
            index.append(hits[0])
        else:
            unknown.append(c)
    if unknown:
        raise ValueError(f"classes: {unknown!r} not among the classes {available!r}")
    if len(set(index)) != len(index):
        raise ValueError(f"classes must not repeat a class, got {wanted.tolist()!r}")
    return np.asarray(index, dtype=np.intp)


def merge_style_fallback(default_style_kwargs, user_style_kwargs):
    """Merge style keywords with matplotlib's alias table (when sklearn has no merge).

    The user's keywords are normalised to the long names of :class:`Line2D` and
    :class:`Patch` (``ls`` -> ``linestyle``, ``c`` -> ``color``, ``ec`` -> ``edgecolor``
    ...) and then override the defaults; both an alias and its long name raise a
    TypeError, as in matplotlib.
    """
    from matplotlib.cbook import normalize_kwargs
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    user = dict(user_style_kwargs)
    defaults = dict(default_style_kwargs)
    for artist in (Line2D, Patch):
        user = normalize_kwargs(user, artist)
        defaults = normalize_kwargs(defaults, artist)
    return {**defaults, **user}


def merge_style(default_style_kwargs, user_style_kwargs):
    """The display's default style keywords overridden by the user's, aliases resolved.

    ``ls="--"`` overrides a default ``linestyle``, ``c="k"`` a default ``color``, as in
    scikit-learn's displays; giving both an alias and its long name is a ValueError.
    """
    merge = merge_style_fallback if validate_style_kwargs is None else validate_style_kwargs
    try:
        return merge(default_style_kwargs, user_style_kwargs)
    except TypeError as exc:
        raise ValueError(f"kwargs: {exc}") from exc
