"""Registration of skcalib's scorer names with scikit-learn.

After :func:`register_scorers`, every name of :func:`skcalib.metrics.get_scorer_names`
is a valid ``scoring=`` string everywhere in scikit-learn (``cross_val_score``,
``GridSearchCV``, ``check_scoring``, ``permutation_importance``, ...).  skcalib's names
are distinct from scikit-learn's, and a name scikit-learn (or another library) already
defines is never overridden: a string means the same scorer everywhere.

scikit-learn has no public API for this: the work on its internals is done by the
generic :func:`~skcalib.utils._sklearn_compat.add_scorer_names` and
:func:`~skcalib.utils._sklearn_compat.remove_scorer_names`, which add and remove the
names in scikit-learn's registry and in the name sets of its ``scoring`` constraints,
and nothing else; this module hands them skcalib's names and scorers, checks the result
(``check_scoring(scoring="ece")`` must give skcalib's scorer), and turns any failure into
one :class:`~skcalib.utils.SklearnCompatibilityWarning`.

``import skcalib`` calls :func:`register_scorers` once, unless the environment variable
``SKCALIB_REGISTER_SCORERS`` is ``0`` (or ``false``, ``no``, ``off``).
"""

from __future__ import annotations

import os
import warnings

from sklearn.metrics import check_scoring

from ..utils._sklearn_compat import (
    SklearnCompatibilityWarning,
    add_scorer_names,
    remove_scorer_names,
    validate_params,
)
from ._scorer import get_scorer, get_scorer_names, is_skcalib_scorer

__all__ = [
    "register_scorers",
    "registered_scorer_names",
    "scorer_registration_enabled",
    "unregister_scorers",
]

ENV_VAR = "SKCALIB_REGISTER_SCORERS"
_FALSE = {"0", "false", "no", "off"}

#: names skcalib added to scikit-learn's registry (never a name someone else defines)
_REGISTERED: set[str] = set()
_WARNED = False
_WARNED_TAKEN: set[str] = set()


def scorer_registration_enabled():
    """False when the environment variable ``SKCALIB_REGISTER_SCORERS`` is 0/false/no/off."""
    return os.environ.get(ENV_VAR, "1").strip().lower() not in _FALSE


def registered_scorer_names():
    """Sorted names that skcalib has registered with scikit-learn."""
    return sorted(_REGISTERED)


def _sklearn_version():
    try:
        import sklearn

        return sklearn.__version__
    except Exception:  # pragma: no cover
        return "?"


def _warn_once(reason):
    global _WARNED
    if _WARNED:
        return
    _WARNED = True
    warnings.warn(
        f"skcalib could not register its scorer names with scikit-learn "
        f"{_sklearn_version()} ({reason}), so strings such as scoring='ece' do not work. "
        "Pass scorer objects instead, which always work: "
        "scoring=skcalib.metrics.get_scorer('ece') (or a dict of them for several "
        f"metrics). Set the environment variable {ENV_VAR}=0 to skip the registration "
        "and this warning.",
        SklearnCompatibilityWarning,
        stacklevel=3,
    )


def _warn_taken(taken):
    taken = sorted(set(taken) - _WARNED_TAKEN)
    if not taken:
        return
    _WARNED_TAKEN.update(taken)
    warnings.warn(
        f"scikit-learn {_sklearn_version()} already defines the scorer name(s) "
        f"{', '.join(map(repr, taken))}: they keep their scikit-learn meaning, also in "
        "skcalib.metrics.get_scorer, and skcalib's scorer is reached by its other name "
        "(skcalib.metrics.get_scorer_names()).",
        SklearnCompatibilityWarning,
        stacklevel=3,
    )


def _self_check(check_scoring):
    """The path every ``scoring`` string goes through must give skcalib's scorer."""
    probe = "ece" if "ece" in _REGISTERED else next(iter(sorted(_REGISTERED)), None)
    if probe is not None and not is_skcalib_scorer(check_scoring(estimator=None, scoring=probe)):
        raise RuntimeError(f"check_scoring(scoring={probe!r}) is not skcalib's scorer")


def _register():
    scorers = {name: get_scorer(name) for name in get_scorer_names()}
    names = add_scorer_names(scorers, is_own=is_skcalib_scorer)
    _REGISTERED.update(names)
    _self_check(check_scoring)
    return set(scorers) - set(names)


@validate_params({}, prefer_skip_nested_validation=False)  # it runs sklearn's checks
def register_scorers():
    """Make skcalib's scorer names valid ``scoring=`` strings in scikit-learn.

    Called by ``import skcalib`` unless the environment variable
    ``SKCALIB_REGISTER_SCORERS`` is ``0``.  It adds the names of :func:`get_scorer_names`
    to scikit-learn's registry of scorer names and to the name sets of the ``scoring``
    parameters of its functions and estimators; nothing else of scikit-learn changes,
    and :func:`unregister_scorers` restores it exactly.  Idempotent.

    A name scikit-learn already defines is never overridden (skcalib's names are
    distinct from scikit-learn's; should a future scikit-learn take one, that name keeps
    scikit-learn's meaning and a :class:`~skcalib.utils.SklearnCompatibilityWarning`
    says so).  Never raises: if scikit-learn's internals are not where skcalib expects
    them, it rolls back, warns once (:class:`~skcalib.utils.SklearnCompatibilityWarning`)
    and returns ``[]``.  The scorer objects of :func:`get_scorer` work without it, in
    every scikit-learn tool.

    Returns
    -------
    list of str
        The registered names.

    See Also
    --------
    unregister_scorers : Undo the registration.

    Examples
    --------
    >>> from sklearn.metrics import get_scorer_names as sklearn_scorer_names
    >>> from skcalib.metrics import register_scorers
    >>> "ece" in register_scorers()
    True
    >>> "ece" in sklearn_scorer_names()
    True
    """
    try:
        taken = _register()
    except Exception as exc:  # never break ``import skcalib``, nor scikit-learn
        try:
            unregister_scorers()
        except Exception:  # pragma: no cover
            pass
        _warn_once(f"{type(exc).__name__}: {exc}")
        return []
    _warn_taken(taken)
    return registered_scorer_names()


@validate_params({}, prefer_skip_nested_validation=False)  # it runs sklearn's checks
def unregister_scorers():
    """Undo :func:`register_scorers`: remove skcalib's names from scikit-learn.

    Afterwards scikit-learn's registry of scorer names and the name sets of its
    ``scoring`` parameters are exactly as they were before the registration, including
    those of modules imported in between.  Scorer objects from :func:`get_scorer` keep
    working; :func:`register_scorers` registers the names again.

    For an application that must not touch scikit-learn's registry at all, set the
    environment variable ``SKCALIB_REGISTER_SCORERS=0`` before ``import skcalib``
    instead.

    Examples
    --------
    >>> from sklearn.metrics import get_scorer_names as sklearn_names
    >>> from skcalib.metrics import register_scorers, unregister_scorers
    >>> unregister_scorers()
    >>> "ece" in sklearn_names()
    False
    >>> "ece" in register_scorers()
    True
    >>> "ece" in sklearn_names()
    True
    """
    names = set(_REGISTERED)
    _REGISTERED.clear()
    remove_scorer_names(names, is_own=is_skcalib_scorer)
