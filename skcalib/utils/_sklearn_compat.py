"""The one place where skcalib touches private internals of scikit-learn.

Scorer-name registration
------------------------
scikit-learn has no public registry of scorer names: ``sklearn.metrics.get_scorer``
looks names up in the private dict ``sklearn.metrics._scorer._SCORERS``, and every
function or estimator with a ``scoring`` parameter validates strings against a
``StrOptions(set(get_scorer_names()))`` constraint built when its module was imported
(``check_scoring``, ``cross_validate``, ``cross_val_score``, ``learning_curve``,
``validation_curve``, ``permutation_test_score``, ``permutation_importance``,
``GridSearchCV`` and the other searches, ``SequentialFeatureSelector``,
``TunedThresholdClassifierCV``, ``LogisticRegressionCV``, ``RidgeCV``...).

:func:`register_scorers` therefore

1. adds every name of :func:`skcalib.metrics.get_scorer_names` to ``_SCORERS``, except a
   name scikit-learn already defines (``"neg_brier_score"``), which is never overridden;
2. adds the same names to every such ``StrOptions`` constraint of the scikit-learn
   modules imported so far (found by scanning the ``_parameter_constraints`` of their
   classes and the ``_skl_parameter_constraints`` of their validated functions: a
   ``StrOptions`` holding scikit-learn's own scorer names).  Modules imported later
   build their constraints from ``get_scorer_names()``, which now includes the names;
3. puts a hidden constraint in front of the same ``scoring`` constraint lists that
   rejects a skcalib *metric function* passed as ``scoring`` with a ValueError saying
   which scorer to pass instead, before anything is fitted (scikit-learn has this guard
   for its own metrics only; the metric functions also raise it when called as a
   scorer, for every other path);
4. checks the result (``check_scoring(scoring="ece")`` must work).

It is idempotent, runs once from ``import skcalib`` (switch it off with the environment
variable ``SKCALIB_REGISTER_SCORERS=0``), never raises, and if scikit-learn's internals
have changed it emits one :class:`SklearnCompatibilityWarning` telling the user to pass
``skcalib.metrics.get_scorer(name)`` objects instead of strings, which always works.

The scorers themselves override one private hook, ``_Scorer._score`` (see
:mod:`skcalib.metrics._scorer`); :func:`check_scorer_hook` verifies its signature.
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings

# Parameter validation in the style of scikit-learn's public functions and estimators,
# re-exported under skcalib's own names (the rest of skcalib imports them from here).
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
    generate_invalid_param_val,
    make_constraint,
    validate_parameter_constraints,
    validate_params,
)

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "generate_invalid_param_val",
    "make_constraint",
    "validate_parameter_constraints",
    "validate_params",
    "SklearnCompatibilityWarning",
    "check_scorer_hook",
    "register_scorers",
    "registered_scorer_names",
    "scorer_registration_enabled",
    "unregister_scorers",
]

ENV_VAR = "SKCALIB_REGISTER_SCORERS"
_FALSE = {"0", "false", "no", "off"}

#: scikit-learn's own names that identify a constraint as "the scorer names"
_MARKER_NAMES = frozenset({"accuracy", "roc_auc", "neg_log_loss", "r2"})

#: names skcalib added to ``_SCORERS`` (never a name scikit-learn defines)
_REGISTERED: set[str] = set()
_WARNED = False


class SklearnCompatibilityWarning(UserWarning):
    """The installed scikit-learn differs from what skcalib's compatibility layer knows."""


def scorer_registration_enabled():
    """False when the environment variable ``SKCALIB_REGISTER_SCORERS`` is 0/false/no/off."""
    return os.environ.get(ENV_VAR, "1").strip().lower() not in _FALSE


def registered_scorer_names():
    """Sorted names that skcalib has registered with scikit-learn."""
    return sorted(_REGISTERED)


def _warn_once(reason):
    global _WARNED
    if _WARNED:
        return
    _WARNED = True
    try:
        import sklearn

        version = sklearn.__version__
    except Exception:  # pragma: no cover
        version = "?"
    warnings.warn(
        f"skcalib could not register its scorer names with scikit-learn {version} "
        f"({reason}), so strings such as scoring='ece' may not work. Pass scorer objects "
        "instead, which always work: scoring=skcalib.metrics.get_scorer('ece') (or a "
        "dict of them for several metrics). Set the environment variable "
        f"{ENV_VAR}=0 to skip the registration and this warning.",
        SklearnCompatibilityWarning,
        stacklevel=3,
    )


def check_scorer_hook():
    """Raise if ``_Scorer._score`` no longer has the signature the scorers override."""
    from skcalib.metrics._scorer import _SklearnScorer

    hook = getattr(_SklearnScorer, "_score", None)
    if hook is None:
        raise RuntimeError(f"{_SklearnScorer.__name__} has no _score method")
    params = list(inspect.signature(hook).parameters)
    expected = ["self", "method_caller", "estimator", "X", "y_true", "kwargs"]
    if params != expected:
        raise RuntimeError(
            f"{_SklearnScorer.__name__}._score has parameters {params}, expected {expected}"
        )


def _iter_constraint_dicts():
    """Every parameter-constraint dict of the scikit-learn modules imported so far."""
    seen = set()
    for mod_name, module in list(sys.modules.items()):
        if module is None or not (mod_name == "sklearn" or mod_name.startswith("sklearn.")):
            continue
        try:
            values = list(vars(module).values())
        except TypeError:  # pragma: no cover
            continue
        for obj in values:
            candidates = []
            if isinstance(obj, type):
                try:
                    own = vars(obj)
                except TypeError:  # pragma: no cover
                    continue
                candidates.append(own.get("_parameter_constraints"))
                for attr in list(own.values()):  # validated methods
                    func = getattr(attr, "__func__", attr)
                    candidates.append(getattr(func, "_skl_parameter_constraints", None))
            elif callable(obj):
                candidates.append(getattr(obj, "_skl_parameter_constraints", None))
            for d in candidates:
                if isinstance(d, dict) and id(d) not in seen:
                    seen.add(id(d))
                    yield d


def _scorer_name_constraints(StrOptions):
    """The StrOptions constraints that hold scikit-learn's scorer names."""
    found = {}
    for d in _iter_constraint_dicts():
        for constraints in d.values():
            if not isinstance(constraints, list):
                continue
            for c in constraints:
                if isinstance(c, StrOptions) and _MARKER_NAMES <= set(c.options):
                    found[id(c)] = c
    return list(found.values())


def _add_options(constraint, names):
    if isinstance(constraint.options, set):
        constraint.options.update(names)
    else:  # a frozenset or another container: replace it
        constraint.options = set(constraint.options) | set(names)


def _remove_options(constraint, names):
    if isinstance(constraint.options, set):
        constraint.options.difference_update(names)
    else:
        constraint.options = set(constraint.options) - set(names)


def _metric_guard_constraint_class():
    """A hidden constraint that raises for a skcalib metric passed as ``scoring``.

    ``make_constraint`` accepts instances of a fixed set of constraint classes; this
    one subclasses ``HasMethods`` to be accepted, and overrides everything it uses.
    """

    class _RejectSkcalibMetric(HasMethods):
        def __init__(self):
            super().__init__([])
            self.hidden = True

        def is_satisfied_by(self, val):
            if callable(val) and getattr(val, "_skcalib_scorer_guard", False):
                from skcalib.metrics._guard import scorer_misuse_message

                raise ValueError(scorer_misuse_message(val.__name__))
            return False

        def __str__(self):
            return "not a skcalib metric function"

    return _RejectSkcalibMetric


def _is_metric_guard(c):
    return type(c).__name__ == "_RejectSkcalibMetric"


def _scoring_lists(StrOptions):
    """The constraint lists (``[StrOptions(scorer names), callable, ...]``) to guard."""
    found = {}
    for d in _iter_constraint_dicts():
        for constraints in d.values():
            if isinstance(constraints, list) and any(
                isinstance(c, StrOptions) and _MARKER_NAMES <= set(c.options) for c in constraints
            ):
                found[id(constraints)] = constraints
    return list(found.values())


def _is_ours(scorer):
    return type(scorer).__module__ == "skcalib.metrics._scorer"


def _register():
    from sklearn.metrics import _scorer as sk_scorer
    from sklearn.metrics import check_scoring

    from skcalib.metrics import get_scorer, get_scorer_names

    check_scorer_hook()
    registry = getattr(sk_scorer, "_SCORERS", None)
    if not isinstance(registry, dict):
        raise RuntimeError("sklearn.metrics._scorer._SCORERS is not a dict")
    for name in get_scorer_names():
        if name in registry:
            if _is_ours(registry[name]):  # a previous registration (module reloaded)
                _REGISTERED.add(name)
            continue  # scikit-learn's own name: never override it
        registry[name] = get_scorer(name)
        _REGISTERED.add(name)
    constraints = _scorer_name_constraints(StrOptions)
    if not constraints:
        raise RuntimeError("found no StrOptions constraint holding the scorer names")
    for c in constraints:
        _add_options(c, _REGISTERED)
    guard_cls = _metric_guard_constraint_class()
    for lst in _scoring_lists(StrOptions):
        if not any(_is_metric_guard(c) for c in lst):
            lst.insert(0, guard_cls())
    _self_check(check_scoring)
    return registered_scorer_names()


def _self_check(check_scoring):
    """The path every ``scoring`` value goes through must accept our names, reject a
    skcalib metric with our message, and still accept any other callable."""
    from skcalib.metrics._guard import scorer_misuse_guard

    probe = "ece" if "ece" in _REGISTERED else next(iter(_REGISTERED), None)
    if probe is not None:
        check_scoring(estimator=None, scoring=probe)

    def scorer(estimator, X, y):  # pragma: no cover - never called
        return 0.0

    if check_scoring(estimator=None, scoring=scorer) is not scorer:
        raise RuntimeError("check_scoring no longer returns a callable scoring unchanged")

    @scorer_misuse_guard
    def expected_calibration_error(y_true, y_proba):  # pragma: no cover - never called
        return 0.0

    try:
        check_scoring(estimator=None, scoring=expected_calibration_error)
    except ValueError as exc:
        if "not a scorer" not in str(exc):
            raise
    else:
        raise RuntimeError("the metric-function guard constraint is not applied")


def register_scorers():
    """Make skcalib's scorer names valid ``scoring=`` strings in scikit-learn.

    Called by ``import skcalib`` unless ``SKCALIB_REGISTER_SCORERS=0``.  Idempotent;
    never overrides a scikit-learn name; never raises: if scikit-learn's internals
    changed it warns once (:class:`SklearnCompatibilityWarning`) and returns ``[]``.

    Returns
    -------
    list of str
        The registered names.
    """
    try:
        return _register()
    except Exception as exc:  # never break ``import skcalib``, nor scikit-learn
        try:
            unregister_scorers()
        except Exception:  # pragma: no cover
            pass
        _warn_once(f"{type(exc).__name__}: {exc}")
        return []


def unregister_scorers():
    """Undo :func:`register_scorers` (remove skcalib's names from scikit-learn)."""
    try:
        from sklearn.metrics import _scorer as sk_scorer
        from sklearn.utils._param_validation import StrOptions
    except Exception:  # pragma: no cover
        _REGISTERED.clear()
        return
    registry = getattr(sk_scorer, "_SCORERS", None)
    names = set(_REGISTERED)
    if isinstance(registry, dict):
        for name in names:
            if name in registry and _is_ours(registry[name]):
                del registry[name]
    for lst in _scoring_lists(StrOptions):
        lst[:] = [c for c in lst if not _is_metric_guard(c)]
    for c in _scorer_name_constraints(StrOptions):
        _remove_options(c, names)
    _REGISTERED.clear()
