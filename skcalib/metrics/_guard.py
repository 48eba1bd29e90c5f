"""Guard against passing a metric function where a scikit-learn scorer is expected.

scikit-learn calls a scorer as ``scorer(estimator, X, y)``.  A metric function such as
:func:`~skcalib.metrics.expected_calibration_error` takes ``(y_true, y_proba)``; passed as
``scoring=expected_calibration_error`` it would be called with the estimator as
``y_true`` and fail with an unhelpful ``TypeError: too many positional arguments``.
scikit-learn detects this mistake for its own metrics only, so every skcalib metric that
has a scorer is wrapped with :func:`scorer_misuse_guard`, which turns the mistake into a
``ValueError`` that says which scorer to pass instead.  The check costs one ``hasattr``
per call.  It lives in the metric only: nothing is added to scikit-learn's validation of
``scoring``, so ``cross_val_score(..., scoring=expected_calibration_error)`` shows the
message when the "scorer" is called (raised with ``error_score="raise"``, else in
scikit-learn's "Scoring failed" warning), and :func:`skcalib.metrics.get_scorer` raises
it at once.

This module is at the bottom of :mod:`skcalib.metrics` (the metric modules import it).
The names of the scorers live with the scorers: :mod:`skcalib.metrics._scorer` hands
them down with :func:`add_metric_scorer_names` when it is imported, which
``skcalib.metrics`` always does.
"""

from __future__ import annotations

import functools
import inspect

__all__ = [
    "add_metric_scorer_names",
    "scorer_misuse_guard",
    "scorer_misuse_message",
    "scorer_names_for_metric",
]

#: metric function name -> names of its scorer (the scikit-learn style name first, then
#: the short alias), filled by :mod:`skcalib.metrics._scorer`
_SCORER_NAMES: dict[str, tuple[str, ...]] = {}


def add_metric_scorer_names(metric_name, names):
    """Record the scorer names of the metric called ``metric_name``."""
    _SCORER_NAMES[metric_name] = tuple(names)


def scorer_names_for_metric(metric_name):
    """``[name, alias]`` of the scorer of the metric called ``metric_name`` (or [])."""
    return list(_SCORER_NAMES.get(metric_name, ()))


def _looks_like_estimator(obj):
    # arrays, lists, pandas objects and scalars never have ``fit``
    return hasattr(obj, "fit") and hasattr(obj, "get_params")


def _data_args(func):
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover
        return "y_true, y_proba"
    return ", ".join(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD)


def scorer_misuse_message(metric_name, estimator=None, data_args="y_true, y_proba"):
    """Message telling the user which scorer to pass instead of ``metric_name``."""
    names = scorer_names_for_metric(metric_name)
    first = data_args.split(",")[0]
    got = "" if estimator is None else f" (it was given {type(estimator).__name__} as {first})"
    if names:
        best = names[-1]  # the short alias when there is one
        instead = (
            f"pass scoring={best!r} (a name registered by `import skcalib`) or "
            f"scoring=skcalib.metrics.get_scorer({best!r})"
        )
        if len(names) > 1:
            instead += f"; its other name is {names[0]!r}"
    else:
        instead = (
            "pass a scorer from skcalib.metrics.get_scorer(name) "
            "(skcalib.metrics.get_scorer_names() lists the names)"
        )
    return (
        f"{metric_name} is a metric function, not a scorer: it is called as "
        f"{metric_name}({data_args}, ...), whereas scikit-learn calls a scorer as "
        f"scorer(estimator, X, y){got}. To use it for model selection, {instead}."
    )


def scorer_misuse_guard(func):
    """Decorate a metric so that calling it as a scorer raises a helpful ValueError.

    The wrapper keeps the metric's name, docstring, signature (``__wrapped__``) and
    attributes (``_skl_parameter_constraints``), so it pickles by reference and
    introspects like the metric itself.
    """

    @functools.wraps(func)
    def metric(*args, **kwargs):
        if args and _looks_like_estimator(args[0]):
            raise ValueError(scorer_misuse_message(func.__name__, args[0], _data_args(func)))
        return func(*args, **kwargs)

    metric._skcalib_scorer_guard = True
    return metric
