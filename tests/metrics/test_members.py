"""member_probabilities and the member log-likelihood matrix of fitted ensembles."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from skcalib.metrics import member_log_likelihood, member_probabilities, psis_loo
from skcalib.metrics._ensembles._members import log_likelihood_matrix

X, Y = load_iris(return_X_y=True)
NAMES = np.array(["setosa", "versicolor", "virginica"])[Y]


def _ensembles():
    return [
        BaggingClassifier(
            DecisionTreeClassifier(max_depth=2),
            n_estimators=8,
            max_features=0.5,
            random_state=0,
        ),
        RandomForestClassifier(n_estimators=6, max_depth=3, random_state=0),
        ExtraTreesClassifier(n_estimators=6, max_depth=3, random_state=0),
        VotingClassifier(
            [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())], voting="soft"
        ),
    ]


@pytest.mark.parametrize("ensemble", _ensembles(), ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("labels", ["int", "str"])
def test_mean_of_members_is_predict_proba(ensemble, labels):
    y = Y if labels == "int" else NAMES
    ensemble.fit(X, y)
    P = member_probabilities(ensemble, X[::7])
    n_members = len(ensemble.estimators_)
    assert P.shape == (n_members, len(X[::7]), 3)
    assert P.dtype == np.float64
    assert_allclose(P.mean(axis=0), ensemble.predict_proba(X[::7]), atol=1e-12)
    assert_allclose(P.sum(axis=2), 1.0, atol=1e-12)


def test_bagging_member_that_missed_a_class():
    # a rare class: some bootstrap samples miss it, so some members have 2 classes
    # (KNeighborsClassifier has no sample_weight, so bagging fits it on the subsample)
    rng = np.random.RandomState(0)
    Xr = rng.randn(60, 3)
    y = np.array(["a"] * 29 + ["b"] * 29 + ["rare"] * 2)
    bag = BaggingClassifier(KNeighborsClassifier(3), n_estimators=15, random_state=0).fit(Xr, y)
    n_member_classes = {len(m.classes_) for m in bag.estimators_}
    assert n_member_classes == {2, 3}
    P = member_probabilities(bag, Xr)
    assert_allclose(P.mean(axis=0), bag.predict_proba(Xr), atol=1e-12)
    for member, P_j in zip(bag.estimators_, P, strict=True):
        if len(member.classes_) == 2:
            assert np.all(P_j[:, 2] == 0)  # never saw "rare"


def test_pipeline_and_dataframe_input():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(4)])
    for ens in (
        RandomForestClassifier(n_estimators=4, random_state=0),
        BaggingClassifier(n_estimators=4, random_state=0),
    ):
        pipe = make_pipeline(StandardScaler(), ens).fit(df, NAMES)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "X has feature names" warnings
            P = member_probabilities(pipe, df.iloc[:10])
        assert_allclose(P.mean(axis=0), pipe.predict_proba(df.iloc[:10]), atol=1e-12)


def test_member_log_likelihood_clips_zero_probabilities():
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, Y)
    L = log_likelihood_matrix(Y, forest, X)
    P = member_probabilities(forest, X)
    eps = np.finfo(np.float64).eps
    expected = np.log(np.clip(P[:, np.arange(len(Y)), Y], eps, 1)).T
    assert L.shape == (150, 5)
    assert_allclose(L, expected, rtol=0, atol=0)
    # the same from the array of member probabilities, with string labels
    forest_s = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, NAMES)
    L_s = log_likelihood_matrix(NAMES, member_probabilities(forest_s, X), labels=forest_s.classes_)
    assert_allclose(L_s, L)
    # a label the member gives probability 0 contributes log(eps), not -inf
    P0 = np.array([[[1.0, 0.0], [0.5, 0.5]]])
    assert_allclose(log_likelihood_matrix([1, 0], P0), [[np.log(eps)], [np.log(0.5)]])


@pytest.mark.parametrize(
    "estimator, match",
    [
        (LogisticRegression(max_iter=1000), "no estimators_"),
        (GradientBoostingClassifier(n_estimators=2), "boosting ensemble.*no stage is a classifier"),
        (
            HistGradientBoostingClassifier(max_iter=2),
            "HistGradientBoostingClassifier is a boosting",
        ),
        (AdaBoostClassifier(n_estimators=2), "AdaBoostClassifier is a boosting"),
        (
            VotingClassifier([("a", LogisticRegression(max_iter=1000)), ("b", GaussianNB())]),
            "voting='soft'.*majority of its members' labels",
        ),
    ],
)
def test_unsupported_estimators(estimator, match):
    estimator.fit(X, Y)
    with pytest.raises(ValueError, match=match):
        member_probabilities(estimator, X)
    with pytest.raises(ValueError, match=match):
        member_log_likelihood(estimator, X, Y)


def test_unfitted_and_bad_member_arrays():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        member_probabilities(RandomForestClassifier(), X)
    with pytest.raises(ValueError, match="3-D"):
        log_likelihood_matrix([0, 1], np.ones((2, 2)))
    with pytest.raises(ValueError, match="sum to 1"):
        log_likelihood_matrix([0, 1], np.array([[[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.6], [1, 0]]]))


@pytest.mark.parametrize("ensemble", _ensembles(), ids=lambda e: type(e).__name__)
def test_member_log_likelihood_of_fitted_ensembles(ensemble):
    ensemble.fit(X[::2], NAMES[::2])
    L = member_log_likelihood(ensemble, X[1::2], NAMES[1::2])
    P = member_probabilities(ensemble, X[1::2])
    idx = np.searchsorted(ensemble.classes_, NAMES[1::2])
    eps = np.finfo(np.float64).eps
    expected = np.log(np.maximum(P[:, np.arange(75), idx], eps)).T
    assert L.shape == (75, len(ensemble.estimators_))
    assert_allclose(L, expected, rtol=0, atol=0)
    assert np.all(np.isfinite(L)) and np.all(L <= 0)


def test_member_log_likelihood_of_a_list_of_classifiers_with_class_subsets():
    # members trained on different subsets of the classes are aligned to the union
    rng = np.random.RandomState(0)
    members = [
        LogisticRegression(max_iter=1000).fit(X, NAMES),
        GaussianNB().fit(X[Y != 2], NAMES[Y != 2]),  # never saw "virginica"
        DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[Y != 0], NAMES[Y != 0]),
    ]
    rows = rng.choice(150, 20, replace=False)
    P = member_probabilities(members, X[rows])
    assert P.shape == (3, 20, 3)
    assert_allclose(P[0], members[0].predict_proba(X[rows]))
    assert np.all(P[1][:, 2] == 0) and np.all(P[2][:, 0] == 0)
    assert_allclose(P[1][:, :2], members[1].predict_proba(X[rows]))
    assert_allclose(P[2][:, 1:], members[2].predict_proba(X[rows]))
    L = member_log_likelihood(members, X[rows], NAMES[rows])
    eps = np.finfo(np.float64).eps
    col = np.searchsorted(["setosa", "versicolor", "virginica"], NAMES[rows])
    assert_allclose(L, np.log(np.maximum(P[:, np.arange(20), col], eps)).T)
    # a tuple works too, and the members' order is the columns' order
    assert_allclose(member_log_likelihood(tuple(members[::-1]), X[rows], NAMES[rows]), L[:, ::-1])
    with pytest.raises(ValueError, match="labels not in labels .*: dog"):
        member_log_likelihood(members, X[:3], ["dog"] * 3)


def test_member_log_likelihood_list_errors():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(ValueError, match="the list of members is empty"):
        member_log_likelihood([], X, Y)
    with pytest.raises(ValueError, match="member 1 of the list .* is not a classifier"):
        member_log_likelihood([GaussianNB().fit(X, Y), StandardScaler().fit(X)], X, Y)
    with pytest.raises(NotFittedError):
        member_log_likelihood([GaussianNB()], X, Y)
    with pytest.raises(ValueError, match="ensemble"):
        member_log_likelihood("forest", X, Y)


def test_forest_log_likelihood_feeds_psis_loo():
    forest = RandomForestClassifier(n_estimators=60, random_state=0).fit(X[::2], Y[::2])
    L = member_log_likelihood(forest, X[1::2], Y[1::2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = psis_loo(L)
    # samples on which every tree agrees have exact uniform weights (k = -inf)
    agree = np.all(L == L[:, :1], axis=1)
    assert agree.any()
    assert np.all(res.pareto_k[agree] == -np.inf)
    assert np.isfinite(res.value) and res.value < 0
