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
(:func:`sklearn_scorer_registry`), and every function or estimator with a ``scoring``
parameter validates strings against a ``StrOptions(set(get_scorer_names()))``
constraint built when its module was imported (``check_scoring``, ``cross_validate``,
``cross_val_score``, ``learning_curve``, ``validation_curve``,
``permutation_test_score``, ``permutation_importance``, ``GridSearchCV`` and the other
searches, ``SequentialFeatureSelector``, ``TunedThresholdClassifierCV``,
``LogisticRegressionCV``, ``RidgeCV``...).

:func:`add_scorer_names` therefore, given a mapping name -> scorer,

1. adds every name to ``_SCORERS``, except a name scikit-learn already defines, which
   is never overridden;
2. adds the same names to every such ``StrOptions`` constraint of the scikit-learn
   modules imported so far (:func:`scorer_name_constraints`: found by scanning the
   ``_parameter_constraints`` of their classes and the ``_skl_parameter_constraints``
   of their validated functions for a ``StrOptions`` holding scikit-learn's own scorer
   names).  Modules imported later build their constraints from ``get_scorer_names()``,
   which now includes the names;
3. puts a hidden :class:`ScoringGuardConstraint` in front of the same ``scoring``
   constraint lists (:func:`scoring_constraint_lists`), which rejects a callable the
   caller's predicate recognises (e.g. a metric function passed as ``scoring``) with a
   ValueError carrying the caller's message, before anything is fitted.

:func:`remove_scorer_names` undoes it.  Neither knows which names or metrics are
skcalib's: the caller passes them (see :mod:`skcalib.metrics._registration`).
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

__all__ = [
    "fit_context",
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
    "ScoringGuardConstraint",
    "SklearnCompatibilityWarning",
    "ScorerBase",
    "SklearnScorer",
    "add_scorer_names",
    "build_scorer",
    "check_scorer_hook",
    "is_scoring_guard",
    "parameter_constraints",
    "remove_scorer_names",
    "scorer_name_constraints",
    "scoring_constraint_lists",
    "sklearn_scorer_registry",
]


class SklearnCompatibilityWarning(UserWarning):
    """The installed scikit-learn differs from what skcalib's compatibility layer knows.

    Emitted once, by :func:`skcalib.metrics.register_scorers`, when the scorer names
    could not be registered; scorer objects from :func:`skcalib.metrics.get_scorer`
    work regardless.

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

    Raises a RuntimeError if it is missing or no longer a dict.
    """
    from sklearn.metrics import _scorer

    registry = getattr(_scorer, "_SCORERS", None)
    if not isinstance(registry, dict):
        raise RuntimeError("sklearn.metrics._scorer._SCORERS is not a dict")
    return registry


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


def _is_scorer_names(c):
    return isinstance(c, StrOptions) and _MARKER_NAMES <= set(c.options)


def scorer_name_constraints():
    """The ``StrOptions`` constraints that hold scikit-learn's scorer names."""
    found = {}
    for d in _iter_constraint_dicts():
        for constraints in d.values():
            if isinstance(constraints, list):
                for c in constraints:
                    if _is_scorer_names(c):
                        found[id(c)] = c
    return list(found.values())


def scoring_constraint_lists():
    """The constraint lists ``[StrOptions(scorer names), callable, ...]`` of ``scoring``."""
    found = {}
    for d in _iter_constraint_dicts():
        for constraints in d.values():
            if isinstance(constraints, list) and any(_is_scorer_names(c) for c in constraints):
                found[id(constraints)] = constraints
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


class ScoringGuardConstraint(HasMethods):
    """A hidden ``scoring`` constraint that raises for the callables ``reject`` picks.

    ``make_constraint`` accepts instances of a fixed set of constraint classes; this one
    subclasses ``HasMethods`` to be accepted, and overrides everything it uses.  It is
    never satisfied: a value it does not reject is left to the other constraints.

    Parameters
    ----------
    reject : callable
        ``reject(value) -> bool``: True for a callable to reject.
    message : callable
        ``message(value) -> str``: the message of the ValueError raised for it.
    """

    def __init__(self, reject, message):
        super().__init__([])
        self.hidden = True
        self.reject = reject
        self.message = message

    def is_satisfied_by(self, val):
        if callable(val) and self.reject(val):
            raise ValueError(self.message(val))
        return False

    def __str__(self):
        return "not a metric function"


def is_scoring_guard(constraint):
    """True for a :class:`ScoringGuardConstraint` (also one from a reloaded module)."""
    return type(constraint).__name__ == ScoringGuardConstraint.__name__


# --------------------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------------------


def add_scorer_names(scorers, *, is_own, reject, message):
    """Make the names of ``scorers`` valid ``scoring=`` strings in scikit-learn.

    Never overrides a name scikit-learn defines; idempotent.  On any error it undoes
    what this call changed and re-raises.

    Parameters
    ----------
    scorers : mapping of str to scorer
        The names and the scorers :func:`sklearn.metrics.get_scorer` should return
        (scikit-learn copies a registered scorer on every ``get_scorer``).
    is_own : callable
        ``is_own(scorer) -> bool``: True for a scorer of the caller's, to recognise a
        name registered before (e.g. before a module reload).
    reject, message : callable
        The predicate and message of the :class:`ScoringGuardConstraint` put in front
        of every ``scoring`` constraint list.

    Returns
    -------
    list of str
        The sorted names now registered by the caller.
    """
    check_scorer_hook()
    registry = sklearn_scorer_registry()
    names, added = set(), set()
    try:
        for name, scorer in scorers.items():
            if name in registry:
                if is_own(registry[name]):  # a previous registration
                    names.add(name)
                continue  # scikit-learn's own name: never override it
            registry[name] = scorer
            names.add(name)
            added.add(name)
        constraints = scorer_name_constraints()
        if not constraints:
            raise RuntimeError("found no StrOptions constraint holding the scorer names")
        for c in constraints:
            _add_options(c, names)
        for lst in scoring_constraint_lists():
            lst[:] = [ScoringGuardConstraint(reject, message)] + [
                c for c in lst if not is_scoring_guard(c)
            ]
    except BaseException:
        remove_scorer_names(added, is_own=is_own)
        raise
    return sorted(names)


def remove_scorer_names(names, *, is_own):
    """Undo :func:`add_scorer_names`: remove ``names`` (those whose scorer ``is_own``
    recognises) from scikit-learn's registry and constraints, and every
    :class:`ScoringGuardConstraint`."""
    names = set(names)
    try:
        registry = sklearn_scorer_registry()
    except RuntimeError:
        registry = {}
    for name in names:
        if name in registry and is_own(registry[name]):
            del registry[name]
    for lst in scoring_constraint_lists():
        lst[:] = [c for c in lst if not is_scoring_guard(c)]
    for c in scorer_name_constraints():
        _remove_options(c, names)
