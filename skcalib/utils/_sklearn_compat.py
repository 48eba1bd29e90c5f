"""The one place where skcalib touches private internals of scikit-learn.

This is the bottom layer of skcalib: it imports nothing from skcalib.  Every private
name of scikit-learn that skcalib relies on is reached here and re-exported under
skcalib's own names; the tests in ``tests/utils/test_sklearn_compat.py`` check each of
them against the installed scikit-learn.

Parameter validation
--------------------
``validate_params``, ``Interval``, ``StrOptions``, ``HasMethods``,
``InvalidParameterError``, ``validate_parameter_constraints``, ``make_constraint`` and
``generate_invalid_param_val`` come from ``sklearn.utils._param_validation`` (the
validation of scikit-learn's public functions and estimators).

:func:`parameter_constraints` returns the constraints a ``validate_params``-decorated
function checks (its private ``_skl_parameter_constraints`` attribute).

Display style keywords
----------------------
:func:`validate_style_kwargs` is ``sklearn.utils._plotting._validate_style_kwargs``
(scikit-learn >= 1.6), which merges a display's default matplotlib style keywords with
the user's, resolving aliases (``ls`` overrides ``linestyle``, ``c`` overrides
``color``...); None when this scikit-learn lacks it (the displays then fall back on
matplotlib's own alias table).

Array API namespaces
--------------------
:func:`sklearn_namespace_and_device` is
``sklearn.utils._array_api.get_namespace_and_device`` (scikit-learn >= 1.5): the namespace
of the arrays, whether they are array-API arrays (always False with
``array_api_dispatch=False``) and their device.  :func:`sklearn_is_numpy_namespace` is
``sklearn.utils._array_api._is_numpy_namespace`` (scikit-learn >= 1.6): whether a
namespace is numpy or its array-api-compat wrapper.  :mod:`skcalib._core._array_api` builds on
it, so that skcalib dispatches exactly when scikit-learn does.

Scorers
-------
:class:`SklearnScorer` is the class of the objects :func:`sklearn.metrics.make_scorer`
returns (``sklearn.metrics._scorer._Scorer``).  Its private method
``_score(method_caller, estimator, X, y_true, **kwargs)`` (stable since scikit-learn
1.3) computes the predictions and calls the score function;
:func:`check_scorer_hook` verifies its signature.  :class:`ScorerBase` subclasses it
and routes that hook to the public-named :meth:`ScorerBase.score_estimator`, which a
subclass overrides to reach the fitted estimator; it also exposes the scorer's
``score_func``, ``score_options`` and ``sign``.  :func:`build_scorer` makes a scorer of
such a subclass with :func:`sklearn.metrics.make_scorer`, so that everything else
(signs, metadata routing, ``set_score_request``, caching in multi-metric scoring,
``repr``, pickling) is scikit-learn's own.

Scorer-name registration
------------------------
scikit-learn has no public registry of scorer names: :func:`sklearn.metrics.get_scorer`
looks names up in the private dict ``sklearn.metrics._scorer._SCORERS``
(:func:`sklearn_scorer_registry` locates it, or returns None), and every function or
estimator with a ``scoring`` parameter validates strings against a
``StrOptions(set(get_scorer_names()))`` constraint built when its module was imported
(``check_scoring``, ``cross_validate``, ``GridSearchCV``, ``permutation_importance``,
``LogisticRegressionCV``, ``RidgeCV``, ``TunedThresholdClassifierCV``...).

A string name therefore needs exactly two things, and :func:`add_scorer_names` does
only these two, given a mapping name -> scorer:

1. the name in ``_SCORERS`` (a name already there is never overridden);
2. the name in the options of those ``StrOptions`` of the scikit-learn modules imported
   so far (:func:`scorer_name_constraints`: the ``StrOptions`` of a ``scoring``
   parameter that holds scikit-learn's own scorer names).  Modules imported later build
   their constraints from ``get_scorer_names()``, which then includes the names.

Nothing else of scikit-learn is changed: no constraint, class or function is added to
or replaced in scikit-learn, only strings are added to existing sets.
:func:`remove_scorer_names` removes the same strings again (also from the constraints of
modules imported after the registration), which restores scikit-learn exactly.  Neither
knows which names are skcalib's: the caller passes them (see
:mod:`skcalib.metrics._registration`).
"""

from __future__ import annotations

import inspect
import sys

from sklearn.base import _fit_context as fit_context
from sklearn.metrics import make_scorer

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

# Style keywords of the displays: sklearn's merge of default and user kwargs, aliases
# resolved (scikit-learn >= 1.6); None when missing (skcalib.display has a fallback).
try:
    from sklearn.utils._plotting import _validate_style_kwargs as validate_style_kwargs
except ImportError:  # pragma: no cover - present in every supported scikit-learn
    validate_style_kwargs = None

# The namespace and device of arrays under sklearn.set_config(array_api_dispatch=True).
from sklearn.utils._array_api import (
    _is_numpy_namespace as sklearn_is_numpy_namespace,
)
from sklearn.utils._array_api import (
    get_namespace_and_device as sklearn_namespace_and_device,
)

__all__ = [
    "fit_context",
    "sklearn_is_numpy_namespace",
    "sklearn_namespace_and_device",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "generate_invalid_param_val",
    "make_constraint",
    "validate_parameter_constraints",
    "validate_params",
    "validate_style_kwargs",
    "SCORER_HOOK_PARAMETERS",
    "SklearnCompatibilityWarning",
    "ScorerBase",
    "SklearnScorer",
    "add_scorer_names",
    "build_scorer",
    "check_scorer_hook",
    "parameter_constraints",
    "remove_scorer_names",
    "scorer_name_constraints",
    "sklearn_scorer_registry",
]


class SklearnCompatibilityWarning(UserWarning):
    """The installed scikit-learn differs from what skcalib's compatibility layer knows.

    Emitted by :func:`skcalib.metrics.register_scorers` (run by ``import skcalib``): once
    when the scorer names could not be registered (scikit-learn's registry is not where
    skcalib expects it), and once for a skcalib name that scikit-learn already defines.
    Scorer objects from :func:`skcalib.metrics.get_scorer` work regardless.

    Examples
    --------
    >>> import warnings
    >>> from skcalib.utils import SklearnCompatibilityWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", SklearnCompatibilityWarning)
    ...     issubclass(SklearnCompatibilityWarning, UserWarning)
    True
    """


def parameter_constraints(func):
    """The constraints ``{parameter: [constraint, ...]}`` that ``func`` validates.

    None when ``func`` is not decorated with :func:`validate_params` (also through
    :func:`functools.wraps`, which copies the attribute).
    """
    constraints = getattr(func, "_skl_parameter_constraints", None)
    return constraints if isinstance(constraints, dict) else None


# --------------------------------------------------------------------------------------
# the scorer base class and its hook
# --------------------------------------------------------------------------------------


def _probe(y_true, y_pred):  # pragma: no cover - never called
    return 0.0


#: The class of the objects ``make_scorer`` returns (``sklearn.metrics._scorer._Scorer``),
#: reached through the public ``make_scorer`` rather than by its private name.
SklearnScorer = type(make_scorer(_probe))

#: The parameters of ``SklearnScorer._score``, the one method skcalib's scorers override.
SCORER_HOOK_PARAMETERS = ("self", "method_caller", "estimator", "X", "y_true", "kwargs")


def check_scorer_hook(scorer_class=None):
    """Raise a RuntimeError if ``_score`` no longer has the signature skcalib overrides.

    Parameters
    ----------
    scorer_class : type, default=None
        The class to check; :class:`SklearnScorer` by default.
    """
    cls = SklearnScorer if scorer_class is None else scorer_class
    hook = getattr(cls, "_score", None)
    if hook is None:
        raise RuntimeError(f"{cls.__name__} has no _score method")
    params = tuple(inspect.signature(hook).parameters)
    if params != SCORER_HOOK_PARAMETERS:
        raise RuntimeError(
            f"{cls.__name__}._score has parameters {list(params)}, "
            f"expected {list(SCORER_HOOK_PARAMETERS)}"
        )


class ScorerBase(SklearnScorer):
    """Base class of scorers whose scoring step can be overridden.

    A scorer made by :func:`sklearn.metrics.make_scorer` computes the predictions of
    the estimator and calls ``sign * score_func(y_true, y_pred, **options)``.  A
    subclass overrides :meth:`score_estimator` to do something else with the fitted
    estimator (pass its ``classes_``, evaluate its members...).  Make instances with
    :func:`build_scorer`.
    """

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        # scikit-learn's hook (see ``SCORER_HOOK_PARAMETERS``)
        return self.score_estimator(method_caller, estimator, X, y_true, **kwargs)

    def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
        """Score ``estimator`` on ``X, y_true``; scikit-learn's behaviour by default.

        ``method_caller(estimator, response_method, X, ...)`` computes predictions
        (cached in multi-metric scoring); ``kwargs`` are the routed metadata (e.g.
        ``sample_weight``), to be passed to the score function with
        :attr:`score_options`.
        """
        return super()._score(method_caller, estimator, X, y_true, **kwargs)

    @property
    def score_func(self):
        """The score function given to ``make_scorer``."""
        return self._score_func

    @property
    def score_options(self):
        """The options given to ``make_scorer`` (passed to every call of score_func)."""
        return self._kwargs

    @property
    def sign(self):
        """1 if greater is better, else -1."""
        return self._sign


def build_scorer(scorer_class, score_func, **make_scorer_params):
    """``make_scorer(score_func, **make_scorer_params)``, as an instance of
    ``scorer_class`` (a subclass of :class:`ScorerBase`)."""
    scorer = make_scorer(score_func, **make_scorer_params)
    if not (isinstance(scorer, SklearnScorer) and issubclass(scorer_class, type(scorer))):
        raise TypeError(
            f"make_scorer returned a {type(scorer).__name__}, not a base of {scorer_class.__name__}"
        )
    scorer.__class__ = scorer_class  # same state; only the scoring step differs
    return scorer


def sklearn_scorer_registry():
    """scikit-learn's dict of scorer names (``sklearn.metrics._scorer._SCORERS``).

    Returns None where the installed scikit-learn keeps it elsewhere, or not as a dict:
    the scorer names cannot be registered there, scorer objects still work.
    """
    try:
        from sklearn.metrics import _scorer
    except ImportError:  # pragma: no cover - a scikit-learn without the module
        return None
    registry = getattr(_scorer, "_SCORERS", None)
    return registry if isinstance(registry, dict) else None


# --------------------------------------------------------------------------------------
# the ``scoring`` constraints of the scikit-learn modules imported so far
# --------------------------------------------------------------------------------------

#: scikit-learn's own names that identify a constraint as "the scorer names"
_MARKER_NAMES = frozenset({"accuracy", "roc_auc", "neg_log_loss", "r2"})


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


def _is_scorer_names(constraint):
    return isinstance(constraint, StrOptions) and _MARKER_NAMES <= set(constraint.options)


def scorer_name_constraints():
    """The ``StrOptions`` of the ``scoring`` parameters that hold the scorer names.

    Those of the scikit-learn functions and estimators imported so far: the constraints
    of a ``scoring`` parameter (``_parameter_constraints`` of a class,
    ``_skl_parameter_constraints`` of a validated function) that are a ``StrOptions``
    holding scikit-learn's own scorer names.  Each constraint appears once, also when
    several classes share it.
    """
    found = {}
    for d in _iter_constraint_dicts():
        constraints = d.get("scoring")
        if isinstance(constraints, list):
            for c in constraints:
                if _is_scorer_names(c):
                    found[id(c)] = c
    return list(found.values())


def _set_options(constraint, options):
    """Give ``constraint`` the option set ``options``, keeping the container's type."""
    current = constraint.options
    if isinstance(current, set):  # scikit-learn's: updated in place
        current.intersection_update(options)
        current.update(options)
    else:
        try:
            constraint.options = type(current)(options)
        except TypeError:  # pragma: no cover - a container without a copy constructor
            constraint.options = set(options)


# --------------------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------------------


def add_scorer_names(scorers, *, is_own):
    """Make the names of ``scorers`` valid ``scoring=`` strings in scikit-learn.

    Adds each name to scikit-learn's registry and to the options of
    :func:`scorer_name_constraints`; nothing else is changed.  A name the registry
    already holds for a scorer ``is_own`` does not recognise (scikit-learn's own, or
    another library's) is left to it.  Idempotent.  On any error it undoes what this
    call added and re-raises.

    Parameters
    ----------
    scorers : mapping of str to scorer
        The names and the scorers :func:`sklearn.metrics.get_scorer` should return
        (scikit-learn copies a registered scorer on every ``get_scorer``).
    is_own : callable
        ``is_own(scorer) -> bool``: True for a scorer of the caller's, to recognise a
        name registered before (e.g. before a module reload).

    Returns
    -------
    list of str
        The sorted names now registered by the caller.
    """
    registry = sklearn_scorer_registry()
    if registry is None:
        raise RuntimeError(
            "scikit-learn's scorer registry (sklearn.metrics._scorer._SCORERS) was not found"
        )
    check_scorer_hook()
    names, added = set(), set()
    try:
        for name, scorer in scorers.items():
            if name in registry:
                if is_own(registry[name]):  # a previous registration
                    names.add(name)
                continue  # someone else's name: never override it
            registry[name] = scorer
            names.add(name)
            added.add(name)
        constraints = scorer_name_constraints()
        if not constraints:
            raise RuntimeError("found no StrOptions constraint holding the scorer names")
        for c in constraints:
            _set_options(c, set(c.options) | names)
    except BaseException:
        remove_scorer_names(added, is_own=is_own)
        raise
    return sorted(names)


def remove_scorer_names(names, *, is_own):
    """Undo :func:`add_scorer_names`.

    Removes each of ``names`` whose registry entry is the caller's (``is_own``) or is
    gone, from scikit-learn's registry and from the options of every
    :func:`scorer_name_constraints` (also those of modules imported after the
    registration, which read the names from the registry).  A name the registry holds
    for someone else stays valid.
    """
    registry = sklearn_scorer_registry()
    if registry is None:
        registry = {}
    names = {n for n in names if n not in registry or is_own(registry[n])}
    for name in names:
        registry.pop(name, None)
    if names:
        for c in scorer_name_constraints():
            if names & set(c.options):
                _set_options(c, set(c.options) - names)
