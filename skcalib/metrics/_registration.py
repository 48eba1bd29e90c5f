"""Registration of skcalib's scorer names with scikit-learn.

After :func:`register_scorers`, every name of :func:`skcalib.metrics.get_scorer_names`
is a valid ``scoring=`` string everywhere in scikit-learn (``cross_val_score``,
``GridSearchCV``, ``check_scoring``, ``permutation_importance``, ...), except
``"neg_brier_score"``, which scikit-learn defines itself and skcalib never overrides;
a skcalib metric function passed as ``scoring`` is rejected up front with a ValueError
saying which scorer to pass instead.

scikit-learn has no public API for this: the work on its internals is done by the
generic :func:`~skcalib.utils._sklearn_compat.add_scorer_names` and
:func:`~skcalib.utils._sklearn_compat.remove_scorer_names`; this module hands them
skcalib's names, scorers and metric functions, checks the result
(``check_scoring(scoring="ece")`` must work, and a metric function must be rejected),
and turns any failure into one :class:`~skcalib.utils.SklearnCompatibilityWarning`.

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
from ._calibration import expected_calibration_error
from ._guard import scorer_misuse_message
from ._scorer import get_scorer, get_scorer_names, is_skcalib_metric, is_skcalib_scorer

__all__ = [
    "register_scorers",
    "registered_scorer_names",
    "scorer_registration_enabled",
    "unregister_scorers",
]

ENV_VAR = "SKCALIB_REGISTER_SCORERS"
_FALSE = {"0", "false", "no", "off"}

#: names skcalib added to scikit-learn's registry (never a name scikit-learn defines)
_REGISTERED: set[str] = set()
_WARNED = False


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


def _misuse_message(metric):
    return scorer_misuse_message(metric.__name__)


def _self_check(check_scoring):
    """The path every ``scoring`` value goes through must accept our names, reject a
    skcalib metric with our message, and still accept any other callable."""
    probe = "ece" if "ece" in _REGISTERED else next(iter(_REGISTERED), None)
    if probe is not None:
        check_scoring(estimator=None, scoring=probe)

    def scorer(estimator, X, y):  # pragma: no cover - never called
        return 0.0

    if check_scoring(estimator=None, scoring=scorer) is not scorer:
        raise RuntimeError("check_scoring no longer returns a callable scoring unchanged")
    try:
        check_scoring(estimator=None, scoring=expected_calibration_error)
    except ValueError as exc:
        if "not a scorer" not in str(exc):
            raise
    else:
        raise RuntimeError("the metric-function guard constraint is not applied")


def _register():
    scorers = {name: get_scorer(name) for name in get_scorer_names()}
    names = add_scorer_names(
        scorers, is_own=is_skcalib_scorer, reject=is_skcalib_metric, message=_misuse_message
    )
    _REGISTERED.update(names)
    _self_check(check_scoring)
    return registered_scorer_names()


@validate_params({}, prefer_skip_nested_validation=False)  # it runs sklearn's checks
def register_scorers():
    """Make skcalib's scorer names valid ``scoring=`` strings in scikit-learn.

    Called by ``import skcalib`` unless the environment variable
    ``SKCALIB_REGISTER_SCORERS`` is ``0``.  Idempotent; never overrides a scikit-learn
    name (``"neg_brier_score"`` stays scikit-learn's); never raises: if scikit-learn's
    internals changed it rolls back, warns once
    (:class:`~skcalib.utils.SklearnCompatibilityWarning`) and returns ``[]``.  The
    objects of :func:`get_scorer` work without it.

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
        return _register()
    except Exception as exc:  # never break ``import skcalib``, nor scikit-learn
        try:
            unregister_scorers()
        except Exception:  # pragma: no cover
            pass
        _warn_once(f"{type(exc).__name__}: {exc}")
        return []


@validate_params({}, prefer_skip_nested_validation=False)  # it runs sklearn's checks
def unregister_scorers():
    """Undo :func:`register_scorers`: remove skcalib's names from scikit-learn.

    The names of scikit-learn itself are left as they are; scorer objects from
    :func:`get_scorer` keep working.  :func:`register_scorers` registers them again.

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
