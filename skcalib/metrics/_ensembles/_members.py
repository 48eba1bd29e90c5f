"""Member predictions of fitted scikit-learn ensembles.

:func:`member_probabilities` returns what every member of a fitted bagging ensemble,
random forest, extra-trees forest or soft-voting ensemble predicts, with the columns in
the ensemble's ``classes_`` order, so that ensemble metrics (WAIC, ISCV, mutual
information, diversity) can be computed from an ensemble trained with scikit-learn.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from ..._core._validation import check_classification_input, check_proba_values
from ...utils._sklearn_compat import HasMethods, validate_params

__all__ = ["member_log_likelihood", "member_probabilities"]

_SUPPORTED = (
    "BaggingClassifier, RandomForestClassifier, ExtraTreesClassifier, "
    "VotingClassifier(voting='soft'), a Pipeline ending in one of them, or a list of "
    "fitted classifiers"
)

_BOOSTING = (
    "{name} is a boosting ensemble: its stages are fitted one after the other to "
    "correct the previous ones and are combined into one score, so no stage is a "
    "classifier with a predictive distribution of its own and the ensemble has no "
    "member probabilities or log-likelihoods; expected a fitted " + _SUPPORTED
)


def _unwrap(ensemble, X):
    """Follow a Pipeline to its final step, transforming X on the way."""
    from sklearn.pipeline import Pipeline  # lazy: keeps ``import skcalib`` light

    while isinstance(ensemble, Pipeline):
        check_is_fitted(ensemble)
        if len(ensemble.steps) > 1:
            X = ensemble[:-1].transform(X)
        ensemble = ensemble[-1]
    return ensemble, X


def _check_ensemble(ensemble):
    from sklearn.ensemble import (
        AdaBoostClassifier,
        BaggingClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        HistGradientBoostingClassifier,
        RandomForestClassifier,
        VotingClassifier,
    )

    name = type(ensemble).__name__
    if isinstance(
        ensemble, GradientBoostingClassifier | HistGradientBoostingClassifier | AdaBoostClassifier
    ):
        raise ValueError(_BOOSTING.format(name=name))
    if isinstance(ensemble, VotingClassifier):
        if ensemble.voting != "soft":
            raise ValueError(
                f"member probabilities of a VotingClassifier need voting='soft', got "
                f"voting={ensemble.voting!r}: a hard-voting ensemble predicts the "
                "majority of its members' labels and does not average their "
                "probabilities, so its members are not the components of its "
                "predictive distribution"
            )
    elif not isinstance(
        ensemble, BaggingClassifier | RandomForestClassifier | ExtraTreesClassifier
    ):
        members = (
            " (it has no estimators_ of members)" if not hasattr(ensemble, "estimators_") else ""
        )
        raise ValueError(
            f"cannot get member predictions from {name}{members}: expected a fitted {_SUPPORTED}"
        )
    check_is_fitted(ensemble)
    classes = getattr(ensemble, "classes_", None)
    if classes is None or isinstance(classes, list) or np.ndim(classes) != 1:
        raise ValueError(f"{name} must be a fitted single-output classifier with classes_")
    return np.asarray(classes)


def _to_columns(proba, member_classes, n_classes, name):
    """Member probabilities (columns = member_classes, indices into the ensemble's
    classes) as an (n_samples, n_classes) float64 array in the ensemble's order."""
    proba = np.asarray(proba, dtype=np.float64)
    idx = np.asarray(member_classes)
    if idx.dtype.kind not in "biuf" or not np.all(np.mod(idx, 1) == 0):
        raise ValueError(f"cannot map the classes {idx!r} of a member of {name}")
    idx = idx.astype(np.intp)
    if idx.min() < 0 or idx.max() >= n_classes or proba.shape[1] != idx.shape[0]:
        raise ValueError(f"cannot map the classes {idx!r} of a member of {name}")
    if idx.shape[0] == n_classes and np.array_equal(idx, np.arange(n_classes)):
        return proba
    out = np.zeros((proba.shape[0], n_classes))
    out[:, idx] = proba  # a member that never saw a class gives it probability 0
    return out


def check_member_ensemble(ensemble, context=None):
    """Raise a ValueError unless ``ensemble`` (or a Pipeline's last step) has members
    that :func:`member_probabilities` supports; return the ensemble's classes."""
    est = ensemble
    while hasattr(est, "steps") and hasattr(est, "named_steps"):  # Pipeline
        est = est.steps[-1][1]
    try:
        return _check_ensemble(est)
    except ValueError as exc:
        if context is None:
            raise
        raise ValueError(f"{context}: {exc}") from None


def iter_member_probabilities(ensemble, X):
    """Yield ``(n_samples, n_classes)`` probabilities of each member, in the ensemble's
    ``classes_`` column order.  Returns the ensemble's classes first.

    Used by :func:`member_probabilities` and the ensemble scorers; one member's output
    is held at a time.
    """
    from sklearn.ensemble import BaggingClassifier, VotingClassifier

    if isinstance(ensemble, list | tuple):
        return _iter_list_members(ensemble, X)
    est, X = _unwrap(ensemble, X)
    classes = _check_ensemble(est)
    k = classes.shape[0]
    name = type(est).__name__
    members = list(est.estimators_)
    if not members:
        raise ValueError(f"{name} has no fitted members")

    def gen():
        if isinstance(est, VotingClassifier):
            for member in members:
                yield _to_columns(member.predict_proba(X), member.classes_, k, name)
        elif isinstance(est, BaggingClassifier):
            Xv = validate_data(
                est,
                X,
                accept_sparse=["csr", "csc"],
                dtype=None,
                ensure_all_finite=False,
                reset=False,
            )
            for member, features in zip(members, est.estimators_features_, strict=True):
                if not hasattr(member, "predict_proba"):
                    raise ValueError(
                        f"the members of {name} ({type(member).__name__}) have no "
                        "predict_proba, so they have no predictive distribution"
                    )
                yield _to_columns(member.predict_proba(Xv[:, features]), member.classes_, k, name)
        else:  # forests
            Xv = validate_data(
                est,
                X,
                dtype=np.float32,
                accept_sparse="csr",
                ensure_all_finite=False,
                reset=False,
            )
            for member in members:
                yield _to_columns(member.predict_proba(Xv), member.classes_, k, name)

    return classes, gen()


@validate_params(
    {"ensemble": [HasMethods(["fit"]), list, tuple], "X": ["array-like", "sparse matrix"]},
    prefer_skip_nested_validation=True,
)
def member_probabilities(ensemble, X):
    """Return the class probabilities predicted by every member of a fitted ensemble.

    Parameters
    ----------
    ensemble : fitted estimator or list of fitted classifiers
        A :class:`~sklearn.ensemble.BaggingClassifier` (members see their own feature
        subset ``estimators_features_``), :class:`~sklearn.ensemble.RandomForestClassifier`,
        :class:`~sklearn.ensemble.ExtraTreesClassifier`, a
        :class:`~sklearn.ensemble.VotingClassifier` with ``voting="soft"`` (its
        ``weights`` are not applied: each member's own prediction is returned), a
        :class:`~sklearn.pipeline.Pipeline` whose last step is one of these, or a list
        of fitted classifiers with ``predict_proba`` (the columns are then the sorted
        union of their ``classes_``).  Boosting ensembles and hard voting raise a
        ValueError saying why.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Input samples, as passed to ``ensemble.predict_proba``.

    Returns
    -------
    y_proba_members : ndarray of shape (n_members, n_samples, n_classes)
        Columns in the order of ``ensemble.classes_``.  A member trained on a bootstrap
        sample that missed a class gives that class probability 0.  The mean over the
        members equals ``ensemble.predict_proba(X)`` for bagging and forests.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skcalib.metrics import member_probabilities
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> member_probabilities(forest, X[:4]).shape
    (5, 4, 3)
    """
    _, members = iter_member_probabilities(ensemble, X)
    return np.stack(list(members))


def _iter_list_members(members, X):
    """Classes (the sorted union of the members' classes) and a generator of the
    members' probabilities in that column order, for a list of fitted classifiers."""
    if len(members) == 0:
        raise ValueError("the list of members is empty")
    member_classes = []
    for j, member in enumerate(members):
        if not (hasattr(member, "fit") and hasattr(member, "predict_proba")):
            raise ValueError(
                f"member {j} of the list ({type(member).__name__}) is not a classifier "
                "with predict_proba"
            )
        check_is_fitted(member)
        c = getattr(member, "classes_", None)
        if c is None or isinstance(c, list) or np.ndim(c) != 1:
            raise ValueError(
                f"member {j} of the list ({type(member).__name__}) must be a fitted "
                "single-output classifier with classes_"
            )
        member_classes.append(np.asarray(c))
    try:
        classes = np.unique(np.concatenate(member_classes))
    except TypeError as exc:
        raise ValueError(f"the members' classes cannot be compared: {exc}") from exc
    k = classes.shape[0]

    def gen():
        for member, c in zip(members, member_classes, strict=True):
            idx = np.searchsorted(classes, c)
            yield _to_columns(member.predict_proba(X), idx, k, type(member).__name__)

    return classes, gen()


@validate_params(
    {
        "ensemble": [HasMethods(["fit"]), list, tuple],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
    },
    prefer_skip_nested_validation=True,
)
def member_log_likelihood(ensemble, X, y):
    r"""Log-likelihood of the observed labels under every member of a fitted ensemble.

    .. math::

        \ell_{ij} = \log \max\bigl(p_j(y_i \mid x_i), \varepsilon\bigr),

    the input of :func:`negative_waic`, :func:`importance_sampling_cross_validation` and
    :func:`psis_loo`.  ``epsilon`` is the float64 machine epsilon (2.2e-16), so that a
    member that gives an observed label probability 0 (a pure leaf of a tree) adds
    ``log(eps) = -36.04`` instead of ``-inf``.

    Parameters
    ----------
    ensemble : fitted estimator or list of fitted classifiers
        A :class:`~sklearn.ensemble.BaggingClassifier`,
        :class:`~sklearn.ensemble.RandomForestClassifier`,
        :class:`~sklearn.ensemble.ExtraTreesClassifier`, a
        :class:`~sklearn.ensemble.VotingClassifier` with ``voting="soft"``, a
        :class:`~sklearn.pipeline.Pipeline` ending in one of them (see
        :func:`member_probabilities`), or a list of fitted classifiers with
        ``predict_proba`` (the classes are the sorted union of theirs).  A member
        trained on a subset of the classes (a bootstrap sample that missed a rare class)
        gives the other classes probability 0.  Boosting ensembles
        (:class:`~sklearn.ensemble.GradientBoostingClassifier`,
        :class:`~sklearn.ensemble.HistGradientBoostingClassifier`,
        :class:`~sklearn.ensemble.AdaBoostClassifier`) and hard voting raise a
        ValueError: their members are not probabilistic components of the prediction.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Input samples.
    y : array-like of shape (n_samples,)
        Observed labels, among the ensemble's classes.

    Returns
    -------
    log_lik : ndarray of shape (n_samples, n_members)
        ``log_lik[i, j]`` is the log-likelihood of sample ``i`` under member ``j``.

    See Also
    --------
    member_probabilities : The members' class probabilities.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from skcalib.metrics import member_log_likelihood, psis_loo
    >>> X, y = load_iris(return_X_y=True)
    >>> forest = RandomForestClassifier(n_estimators=50, random_state=0).fit(X[::2], y[::2])
    >>> log_lik = member_log_likelihood(forest, X[1::2], y[1::2])
    >>> log_lik.shape
    (75, 50)
    """
    return log_likelihood_matrix(y, ensemble, X)


def log_likelihood_matrix(y_true, ensemble_or_members, X=None, *, labels=None, eps=None):
    """Log-likelihood matrix ``log_lik`` of shape (n_samples, n_members).

    ``log_lik[i, j] = log(clip(p_j(y_i | x_i), eps, 1))`` with ``eps`` the float64
    machine epsilon by default, so that a member giving an observed label probability
    0 (a pure tree leaf) contributes ``log(eps) = -36.04`` instead of ``-inf``.

    ``ensemble_or_members`` is a fitted ensemble (then ``X`` is required) or an array
    ``y_proba_members`` of shape (n_members, n_samples, n_classes) with columns in
    ``labels`` order.  Every member's probabilities are validated like any
    ``y_proba``.
    """
    if eps is None:
        eps = np.finfo(np.float64).eps
    if X is not None:
        classes, members = iter_member_probabilities(ensemble_or_members, X)
        if labels is None:
            labels = classes
    else:
        P = np.asarray(ensemble_or_members)
        if P.ndim != 3:
            raise ValueError(
                "y_proba_members must be 3-D of shape (n_members, n_samples, n_classes), "
                f"got shape {P.shape}"
            )
        if P.shape[0] == 0:
            raise ValueError("y_proba_members has no members")
        members = iter(P)
    columns = []
    y = None
    for P_j in members:
        if y is None:
            data = check_classification_input(y_true, P_j, labels=labels)
            if data.binary_1d:
                raise ValueError("member probabilities must be 2-D (n_samples, n_classes)")
            y = data.y.astype(np.intp)
            rows = np.arange(y.shape[0])
        else:
            P_j = np.asarray(P_j)
            if P_j.shape != data.proba.shape:
                raise ValueError(
                    f"members have different shapes: {data.proba.shape} and {P_j.shape}"
                )
            check_proba_values(P_j)
        p = np.asarray(P_j[rows, y], dtype=np.float64)
        columns.append(np.log(np.clip(p, eps, 1.0)))
    return np.column_stack(columns)
