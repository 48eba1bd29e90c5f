"""skcalib's compatibility layer against the installed scikit-learn (CI runs these with
the newest and the oldest supported scikit-learn).

* every private name that ``skcalib.utils._sklearn_compat`` re-exports or wraps behaves
  as skcalib relies on: the parameter validation, the scorer base class and its
  ``_score`` hook, scikit-learn's scorer registry and its ``scoring`` constraints;
* the scorer-name registration built on it (``skcalib.metrics.register_scorers``):
  every entry point that takes ``scoring=`` accepts the skcalib names, whatever the
  import order; the registration adds names and nothing else to scikit-learn, never
  overrides a name, is idempotent, is undone exactly by ``unregister_scorers``, can be
  switched off, and degrades to one warning where scikit-learn's registry is missing.
"""

import functools
import inspect
import numbers
import os
import pathlib
import pickle
import textwrap
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_iris
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.feature_selection import RFECV, SequentialFeatureSelector
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.metrics import check_scoring
from sklearn.metrics import get_scorer as sk_get_scorer
from sklearn.metrics import get_scorer_names as sk_get_scorer_names
from sklearn.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    learning_curve,
    permutation_test_score,
    validation_curve,
)
from threadpoolctl import threadpool_limits

import skcalib
from skcalib.metrics import (
    _registration,
    expected_calibration_error,
    get_scorer,
    get_scorer_names,
    register_scorers,
    unregister_scorers,
)
from skcalib.utils import SklearnCompatibilityWarning
from skcalib.utils import _sklearn_compat as compat
from tests.utils._fresh_interpreters import FreshInterpreters

X, Y = load_iris(return_X_y=True)
CV = KFold(3, shuffle=True, random_state=0)
GRID = {"C": [0.1, 1.0]}


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """Iris-sized fits: more BLAS or OpenMP threads only contend for the cores (on a
    loaded machine a fit took 0.3-2.5 s with two threads, 0.06 s with one)."""
    with threadpool_limits(limits=1):
        yield


def _clf():
    return LogisticRegression(max_iter=1000)


@functools.cache
def _ece_cv():
    out = []
    for train, test in CV.split(X):
        clf = _clf().fit(X[train], Y[train])
        out.append(-expected_calibration_error(Y[test], clf.predict_proba(X[test])))
    return np.array(out)


def _expected_ece_cv():
    """ECE of each fold computed by hand, negated: what scoring="ece" must give."""
    return _ece_cv().copy()


# --------------------------------------------------------------------------------------
# the private names of scikit-learn that skcalib.utils._sklearn_compat re-exports or wraps
# --------------------------------------------------------------------------------------

VALIDATION_NAMES = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "generate_invalid_param_val",
    "make_constraint",
    "validate_parameter_constraints",
    "validate_params",
]


def test_validation_names_are_scikit_learns():
    from sklearn.utils import _param_validation

    for name in VALIDATION_NAMES:
        assert name in compat.__all__
        assert getattr(compat, name) is getattr(_param_validation, name), name


@compat.validate_params(
    {
        "n_bins": [compat.Interval(numbers.Integral, 1, None, closed="left")],
        "norm": [compat.StrOptions({"l1", "l2"})],
        "estimator": [compat.HasMethods(["fit", "predict_proba"]), None],
    },
    prefer_skip_nested_validation=True,
)
def my_metric(y_true, n_bins=15, *, norm="l1", estimator=None):
    """A metric validated as skcalib's public metrics are."""
    return n_bins


def test_validate_params_behaves_as_skcalib_relies_on():
    metric = my_metric
    assert metric([0, 1], 3, norm="l2", estimator=_clf()) == 3
    assert issubclass(compat.InvalidParameterError, ValueError)
    with pytest.raises(
        compat.InvalidParameterError,
        match=r"The 'n_bins' parameter of my_metric must be an int in the range \[1, inf\)",
    ) as exc:
        metric([0, 1], 0)
    assert isinstance(exc.value, ValueError)
    with pytest.raises(ValueError, match=r"The 'norm' parameter of my_metric must be a str among"):
        metric([0, 1], norm="l3")
    with pytest.raises(ValueError, match=r"The 'estimator' parameter of my_metric must be"):
        metric([0, 1], estimator=object())
    # the constraints stay reachable (get_scorer validates options up front with them),
    # also through functools.wraps
    constraints = compat.parameter_constraints(metric)
    assert set(constraints) == {"n_bins", "norm", "estimator"}
    wrapper = functools.wraps(metric)(lambda *args, **kwargs: metric(*args, **kwargs))
    assert compat.parameter_constraints(wrapper) is constraints
    assert compat.parameter_constraints(len) is None
    with pytest.raises(compat.InvalidParameterError, match="The 'n_bins' parameter of ece must"):
        compat.validate_parameter_constraints(
            {"n_bins": constraints["n_bins"]}, {"n_bins": 0}, caller_name="ece"
        )
    compat.validate_parameter_constraints(
        {"n_bins": constraints["n_bins"]}, {"n_bins": 2}, caller_name="ece"
    )


def test_constraint_helpers():
    interval = compat.make_constraint(compat.Interval(numbers.Real, 0, 1, closed="both"))
    assert interval.is_satisfied_by(0.5) and not interval.is_satisfied_by(1.5)
    assert not interval.is_satisfied_by(compat.generate_invalid_param_val(interval))
    options = compat.make_constraint(compat.StrOptions({"a", "b"}))
    bad = compat.generate_invalid_param_val(options)
    assert isinstance(bad, str) and not options.is_satisfied_by(bad)
    assert compat.make_constraint("boolean").is_satisfied_by(True)
    assert compat.make_constraint(compat.HasMethods(["fit"])).is_satisfied_by(_clf())


def test_scorer_class_and_hook_signature():
    from sklearn.metrics import _scorer, accuracy_score, make_scorer

    assert compat.SklearnScorer is _scorer._Scorer
    assert type(make_scorer(accuracy_score)) is compat.SklearnScorer
    assert issubclass(compat.ScorerBase, compat.SklearnScorer)
    assert tuple(inspect.signature(_scorer._Scorer._score).parameters) == (
        compat.SCORER_HOOK_PARAMETERS
    )
    compat.check_scorer_hook()
    compat.check_scorer_hook(compat.ScorerBase)

    class Changed(compat.SklearnScorer):
        def _score(self, estimator, X, y_true, **kwargs):  # pragma: no cover
            pass

    with pytest.raises(RuntimeError, match=r"Changed\._score has parameters"):
        compat.check_scorer_hook(Changed)
    with pytest.raises(RuntimeError, match="has no _score method"):
        compat.check_scorer_hook(object)


class _Recording(compat.ScorerBase):
    """Records what the overridable scoring step receives."""

    calls = []

    def score_estimator(self, method_caller, estimator, X, y_true, **kwargs):
        type(self).calls.append((estimator, sorted(kwargs)))
        return super().score_estimator(method_caller, estimator, X, y_true, **kwargs)


def test_scorer_base_and_build_scorer():
    from sklearn.metrics import log_loss, make_scorer

    params = {"response_method": "predict_proba", "greater_is_better": False}
    scorer = compat.build_scorer(_Recording, log_loss, labels=[0, 1, 2], **params)
    assert type(scorer) is _Recording and isinstance(scorer, compat.SklearnScorer)
    assert scorer.score_func is log_loss
    assert scorer.score_options == {"labels": [0, 1, 2]}
    assert scorer.sign == -1
    assert repr(scorer) == repr(make_scorer(log_loss, labels=[0, 1, 2], **params))
    clf = _clf().fit(X, Y)
    expected = -log_loss(Y, clf.predict_proba(X))
    assert scorer(clf, X, Y) == pytest.approx(expected, rel=1e-12)
    assert _Recording.calls[-1] == (clf, [])
    w = np.arange(len(Y)) % 3.0
    weighted = -log_loss(Y, clf.predict_proba(X), sample_weight=w)
    assert scorer(clf, X, Y, sample_weight=w) == pytest.approx(weighted, rel=1e-12)
    assert _Recording.calls[-1] == (clf, ["sample_weight"])
    # multi-metric scoring calls the overridden step too; pickling keeps the class
    multi = check_scoring(clf, scoring={"a": scorer, "b": "accuracy"})
    assert multi(clf, X, Y)["a"] == pytest.approx(expected, rel=1e-12)
    clone = pickle.loads(pickle.dumps(scorer))
    assert type(clone) is _Recording and clone(clf, X, Y) == scorer(clf, X, Y)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = scorer.set_score_request(sample_weight=True)
        assert routed.get_metadata_routing().score.requests["sample_weight"] is True
    with pytest.raises(TypeError, match="not a base of"):
        compat.build_scorer(int, log_loss)


def test_scorer_registry_is_scikit_learns(monkeypatch):
    registry = compat.sklearn_scorer_registry()
    assert registry is sklearn.metrics._scorer._SCORERS
    assert sorted(registry) == sorted(sk_get_scorer_names())
    # a scikit-learn that keeps it elsewhere, or not as a dict: None, no exception
    monkeypatch.setattr(sklearn.metrics._scorer, "_SCORERS", None)
    assert compat.sklearn_scorer_registry() is None
    monkeypatch.delattr(sklearn.metrics._scorer, "_SCORERS")
    assert compat.sklearn_scorer_registry() is None


def test_scoring_constraints_are_found():
    # the StrOptions of the ``scoring`` parameter of public functions and estimators
    names = compat.scorer_name_constraints()
    assert len({id(c) for c in names}) == len(names)  # each once
    owners = [
        compat.parameter_constraints(cross_val_score),
        compat.parameter_constraints(check_scoring),
        compat.parameter_constraints(permutation_importance),
        GridSearchCV._parameter_constraints,
        SequentialFeatureSelector._parameter_constraints,
        LogisticRegressionCV._parameter_constraints,
    ]
    for constraints in owners:
        options = [c for c in constraints["scoring"] if isinstance(c, compat.StrOptions)]
        assert len(options) == 1
        assert any(c is options[0] for c in names)
    for c in names:
        assert {"accuracy", "roc_auc", "neg_log_loss", "r2"} <= set(c.options)
        assert "ece" in c.options  # registered by ``import skcalib``
        assert type(c.options) is set  # scikit-learn's own container, kept
    # a StrOptions of another parameter is never one of them
    assert not any(
        c is x for c in names for x in compat.parameter_constraints(cross_val_score)["error_score"]
    )


def _my_metric(y_true, y_pred):  # pragma: no cover - never called
    return 0.0


def test_add_and_remove_scorer_names_round_trip(monkeypatch):
    """The generic machinery with a registrant that is not skcalib."""
    mine = sklearn.metrics.make_scorer(sklearn.metrics.accuracy_score)

    def is_own(scorer):
        return scorer is mine

    scorers = {"my_accuracy": mine, "accuracy": mine}
    options_before = [set(c.options) for c in compat.scorer_name_constraints()]
    try:
        assert compat.add_scorer_names(scorers, is_own=is_own) == ["my_accuracy"]
        assert compat.add_scorer_names(scorers, is_own=is_own) == ["my_accuracy"]  # idempotent
        registry = compat.sklearn_scorer_registry()
        assert registry["my_accuracy"] is mine
        assert registry["accuracy"] is not mine  # scikit-learn's name is never overridden
        assert "my_accuracy" in sk_get_scorer_names()
        assert all("my_accuracy" in c.options for c in compat.scorer_name_constraints())
        np.testing.assert_allclose(
            cross_val_score(_clf(), X, Y, cv=CV, scoring="my_accuracy"),
            cross_val_score(_clf(), X, Y, cv=CV, scoring="accuracy"),
        )
    finally:
        compat.remove_scorer_names(["my_accuracy"], is_own=is_own)
    assert "my_accuracy" not in sk_get_scorer_names()
    assert "accuracy" in sk_get_scorer_names()
    assert [set(c.options) for c in compat.scorer_name_constraints()] == options_before
    with pytest.raises(compat.InvalidParameterError, match="scoring"):
        cross_val_score(_clf(), X, Y, scoring="my_accuracy")
    # a name someone else holds is not removed
    compat.remove_scorer_names(["accuracy"], is_own=is_own)
    assert "accuracy" in sk_get_scorer_names()
    assert all("accuracy" in c.options for c in compat.scorer_name_constraints())
    # an error half-way undoes what the call added, and is raised
    monkeypatch.setattr(compat, "scorer_name_constraints", lambda: [])
    with pytest.raises(RuntimeError, match="no StrOptions constraint"):
        compat.add_scorer_names(scorers, is_own=is_own)
    assert "my_accuracy" not in compat.sklearn_scorer_registry()
    monkeypatch.undo()
    # no registry: nothing is changed
    monkeypatch.setattr(compat, "sklearn_scorer_registry", lambda: None)
    with pytest.raises(RuntimeError, match="scorer registry"):
        compat.add_scorer_names(scorers, is_own=is_own)
    monkeypatch.undo()
    assert "my_accuracy" not in sk_get_scorer_names()
    assert [set(c.options) for c in compat.scorer_name_constraints()] == options_before


def _from_skcalib(obj):
    """True for an object (or class) defined by skcalib."""
    modules = (type(obj).__module__, getattr(obj, "__module__", None))
    return any(isinstance(m, str) and m.split(".")[0] == "skcalib" for m in modules)


def test_nothing_of_skcalib_inside_sklearn_constraints():
    """The registration adds strings to existing sets; no constraint of its own."""
    dicts = list(compat._iter_constraint_dicts())
    assert len(dicts) > 20
    for d in dicts:
        for constraints in d.values():
            for c in constraints if isinstance(constraints, list) else [constraints]:
                assert not _from_skcalib(c), c
    assert _from_skcalib(compat.ScorerBase) and _from_skcalib(get_scorer("ece"))
    # so a metric function passed as ``scoring`` is scikit-learn's business: accepted as
    # any callable, it fails when it is called with the estimator; skcalib's get_scorer
    # is where the metric function is rejected with the name of its scorer
    assert check_scoring(_clf(), scoring=expected_calibration_error) is expected_calibration_error
    assert check_scoring(_clf(), scoring=len) is len
    with pytest.raises(TypeError):
        cross_val_score(_clf(), X, Y, scoring=expected_calibration_error, error_score="raise")
    with pytest.raises(ValueError, match="not a scorer.*scoring='ece'"):
        get_scorer(expected_calibration_error)


# --------------------------------------------------------------------------------------
# skcalib's registration of its names (skcalib.metrics.register_scorers)
# --------------------------------------------------------------------------------------


def test_every_name_registered_and_none_is_sklearns():
    registered = set(_registration.registered_scorer_names())
    assert registered == set(get_scorer_names())
    assert registered <= set(sk_get_scorer_names())
    assert len(sk_get_scorer_names()) == len(set(sk_get_scorer_names()))
    for name in registered:
        assert type(sk_get_scorer(name)).__module__ == "skcalib.metrics._scorer", name
    # scikit-learn's own names stay scikit-learn's
    sklearn_own = [n for n in sk_get_scorer_names() if n not in registered]
    assert {"neg_brier_score", "neg_log_loss", "accuracy", "roc_auc"} <= set(sklearn_own)
    for name in sklearn_own:
        assert type(sk_get_scorer(name)).__module__.startswith("sklearn."), name


ENTRY_POINTS = {
    "cross_val_score": lambda s: cross_val_score(_clf(), X, Y, cv=CV, scoring=s),
    "cross_validate": lambda s: cross_validate(_clf(), X, Y, cv=CV, scoring=s)["test_score"],
    "GridSearchCV": lambda s: (
        GridSearchCV(_clf(), GRID, cv=CV, scoring=s).fit(X, Y).cv_results_["mean_test_score"]
    ),
    "RandomizedSearchCV": lambda s: (
        RandomizedSearchCV(_clf(), GRID, n_iter=2, cv=CV, scoring=s, random_state=0)
        .fit(X, Y)
        .cv_results_["mean_test_score"]
    ),
    "HalvingGridSearchCV": lambda s: (
        HalvingGridSearchCV(_clf(), GRID, cv=CV, scoring=s, min_resources=60, random_state=0)
        .fit(X, Y)
        .cv_results_["mean_test_score"]
    ),
    "learning_curve": lambda s: learning_curve(
        _clf(), X, Y, cv=CV, scoring=s, train_sizes=[0.5, 1.0], shuffle=True, random_state=0
    )[2],
    "validation_curve": lambda s: validation_curve(
        _clf(), X, Y, param_name="C", param_range=[0.1, 1.0], cv=CV, scoring=s
    )[1],
    "permutation_test_score": lambda s: permutation_test_score(
        _clf(), X, Y, cv=CV, scoring=s, n_permutations=2, random_state=0
    )[0],
    "permutation_importance": lambda s: (
        permutation_importance(
            _clf().fit(X, Y), X, Y, scoring=s, n_repeats=2, random_state=0
        ).importances
    ),
    "RFECV": lambda s: RFECV(_clf(), cv=CV, scoring=s).fit(X, Y).cv_results_["mean_test_score"],
    "SequentialFeatureSelector": lambda s: np.array(
        [
            SequentialFeatureSelector(_clf(), n_features_to_select=2, cv=CV, scoring=s)
            .fit(X, Y)
            .get_support()
            .sum()
        ]
    ),
    "LogisticRegressionCV": lambda s: np.array(
        [LogisticRegressionCV(Cs=[0.1, 1.0], cv=CV, scoring=s, max_iter=1000).fit(X, Y).score(X, Y)]
    ),
}


@pytest.mark.parametrize("entry_point", sorted(ENTRY_POINTS))
def test_every_entry_point_accepts_the_names(entry_point):
    run = ENTRY_POINTS[entry_point]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=FutureWarning)  # unrelated deprecations
        values = np.asarray(run("ece"), dtype=float)
        assert np.all(np.isfinite(values))
        if entry_point in ("cross_val_score", "cross_validate"):
            np.testing.assert_allclose(values, _expected_ece_cv(), rtol=1e-12)
        # the long name, the alias and the scorer object are the same scorer
        np.testing.assert_allclose(run("neg_expected_calibration_error"), values, rtol=1e-12)
        np.testing.assert_allclose(run(get_scorer("ece")), values, rtol=1e-12)


def test_check_scoring_get_scorer_and_multimetric():
    scorer = check_scoring(_clf(), scoring="ece")
    assert type(scorer).__module__ == "skcalib.metrics._scorer"
    a, b = sk_get_scorer("ece"), sk_get_scorer("ece")
    assert a is not b and repr(a) == repr(get_scorer("ece"))
    multi = check_scoring(_clf(), scoring=["ece", "brier", "accuracy"])
    clf = _clf().fit(X, Y)
    scores = multi(clf, X, Y)
    assert scores["ece"] == pytest.approx(-expected_calibration_error(Y, clf.predict_proba(X)))
    # dict and list scoring, refit by a skcalib name
    res = cross_validate(_clf(), X, Y, cv=CV, scoring={"acc": "accuracy", "ece": "ece"})
    np.testing.assert_allclose(res["test_ece"], _expected_ece_cv(), rtol=1e-12)
    search = GridSearchCV(
        _clf(), {"C": [1e-3, 0.1, 10.0]}, cv=CV, scoring=["accuracy", "ece", "nll"], refit="ece"
    ).fit(X, Y)
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_ece"]))


def test_hist_gradient_boosting_early_stopping_scoring():
    from sklearn.ensemble import HistGradientBoostingClassifier

    hgb = HistGradientBoostingClassifier(
        max_iter=15,
        early_stopping=True,
        scoring="ece",
        n_iter_no_change=3,
        validation_fraction=0.3,
        random_state=0,
    ).fit(X, Y)
    assert np.all(np.asarray(hgb.validation_score_) <= 0)


def _options_snapshot():
    return {id(c): frozenset(c.options) for c in compat.scorer_name_constraints()}


def test_idempotent_and_reversible():
    before_names = sorted(sk_get_scorer_names())
    before_registry = list(sklearn.metrics._scorer._SCORERS.items())
    before_options = _options_snapshot()
    assert register_scorers() == _registration.registered_scorer_names()
    assert register_scorers() == _registration.registered_scorer_names()
    assert sorted(sk_get_scorer_names()) == before_names
    # not even replaced, nor reordered
    assert [(n, id(s)) for n, s in sklearn.metrics._scorer._SCORERS.items()] == [
        (n, id(s)) for n, s in before_registry
    ]
    assert _options_snapshot() == before_options
    try:
        unregister_scorers()
        assert "ece" not in sk_get_scorer_names()
        assert "accuracy" in sk_get_scorer_names()
        assert len(sk_get_scorer_names()) == len(before_names) - len(get_scorer_names())
        assert not any("ece" in c.options for c in compat.scorer_name_constraints())
        with pytest.raises(compat.InvalidParameterError, match="scoring"):
            cross_val_score(_clf(), X, Y, scoring="ece")
        unregister_scorers()  # twice is harmless
        # skcalib scorer objects work without the registration
        np.testing.assert_allclose(
            cross_val_score(_clf(), X, Y, cv=CV, scoring=get_scorer("ece")),
            _expected_ece_cv(),
            rtol=1e-12,
        )
    finally:
        register_scorers()
    assert sorted(sk_get_scorer_names()) == before_names
    assert _options_snapshot() == before_options
    assert np.all(np.isfinite(cross_val_score(_clf(), X, Y, scoring="ece")))


def test_a_name_scikit_learn_takes_keeps_its_meaning(monkeypatch):
    """Should a future scikit-learn define one of skcalib's names, that name means
    scikit-learn's scorer everywhere, also in skcalib.metrics.get_scorer."""
    theirs = sklearn.metrics.make_scorer(sklearn.metrics.accuracy_score)

    def is_theirs(scorer):
        return scorer is theirs

    clf = _clf().fit(X, Y)
    unregister_scorers()
    registry = compat.sklearn_scorer_registry()
    monkeypatch.setattr(_registration, "_WARNED_TAKEN", set())
    try:
        assert compat.add_scorer_names({"ece": theirs}, is_own=is_theirs) == ["ece"]
        with pytest.warns(SklearnCompatibilityWarning, match=r"already defines.*'ece'"):
            names = register_scorers()
        assert "ece" not in names and "neg_expected_calibration_error" in names
        assert registry["ece"] is theirs  # not overridden
        for scorer in (get_scorer("ece"), sk_get_scorer("ece"), check_scoring(clf, "ece")):
            assert repr(scorer) == repr(theirs)
            assert scorer(clf, X, Y) == theirs(clf, X, Y)
        with pytest.raises(ValueError, match="is a scikit-learn scorer; options"):
            get_scorer("ece", n_bins=10)
        assert get_scorer("neg_expected_calibration_error")(clf, X, Y) == pytest.approx(
            -expected_calibration_error(Y, clf.predict_proba(X))
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            register_scorers()  # warned once
        unregister_scorers()
        assert registry["ece"] is theirs  # someone else's name is not removed
        assert check_scoring(clf, "ece")(clf, X, Y) == theirs(clf, X, Y)
    finally:
        compat.remove_scorer_names(["ece"], is_own=is_theirs)
        unregister_scorers()
        register_scorers()
    assert type(sk_get_scorer("ece")).__module__ == "skcalib.metrics._scorer"


def test_broken_internals_warn_once_and_roll_back(monkeypatch):
    monkeypatch.setattr(_registration, "_WARNED", False)
    unregister_scorers()
    before = _options_snapshot()
    try:
        monkeypatch.setattr(sklearn.metrics._scorer, "_SCORERS", None)
        with pytest.warns(
            SklearnCompatibilityWarning, match=r"skcalib\.metrics\.get_scorer\('ece'\)"
        ):
            assert register_scorers() == []
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert register_scorers() == []  # no second warning
        assert _options_snapshot() == before
        monkeypatch.undo()
        # a hook whose signature changed: detected before anything is modified
        monkeypatch.setattr(_registration, "_WARNED", False)

        class Changed:
            def _score(self, estimator, X, y_true, **kwargs):  # pragma: no cover
                pass

        monkeypatch.setattr(compat, "SklearnScorer", Changed)
        with pytest.warns(SklearnCompatibilityWarning, match="_score"):
            assert register_scorers() == []
        assert "ece" not in sk_get_scorer_names()  # rolled back
        # a failing self-check rolls everything back
        monkeypatch.undo()
        monkeypatch.setattr(_registration, "_WARNED", False)

        def failing_self_check(check_scoring):
            raise RuntimeError("self-check failed")

        monkeypatch.setattr(_registration, "_self_check", failing_self_check)
        with pytest.warns(SklearnCompatibilityWarning, match="self-check failed"):
            assert register_scorers() == []
        assert "ece" not in sk_get_scorer_names()
        assert _options_snapshot() == before
        assert _registration.registered_scorer_names() == []
    finally:
        monkeypatch.undo()
        register_scorers()
    assert "ece" in sk_get_scorer_names()


def test_self_check_detects_a_name_that_is_not_skcalibs(monkeypatch):
    monkeypatch.setattr(_registration, "_REGISTERED", {"accuracy"})
    with pytest.raises(RuntimeError, match=r"check_scoring\(scoring='accuracy'\)"):
        _registration._self_check(check_scoring)
    monkeypatch.setattr(_registration, "_REGISTERED", {"ece"})
    _registration._self_check(check_scoring)


#: the snippets run each in an interpreter that has imported nothing of scikit-learn or
#: skcalib (tests/utils/_fresh_interpreters.py: one interpreter imports numpy, scipy
#: and pandas once, then forks one child per snippet), all of them at the first test
#: that asks: {name: (code, environment variables added)}
FRESH = {}


def _fresh(name, code, **env):
    FRESH[name] = (textwrap.dedent(code), env)


def _env(**env):
    full_env = {**os.environ}
    full_env.pop("SKCALIB_REGISTER_SCORERS", None)
    # iris-sized fits: more BLAS or OpenMP threads only contend for the cores
    full_env.setdefault("OMP_NUM_THREADS", "1")
    full_env.setdefault("OPENBLAS_NUM_THREADS", "1")
    full_env.update(env)
    return full_env


@pytest.fixture(scope="module", autouse=True)
def _fresh_interpreters(request):
    """The snippets, started with the module's first test where a selected test needs
    them: they run beside the tests of this process (which use one thread) until a
    test asks for them."""
    items = [i for i in request.session.items if getattr(i, "module", None) is request.module]
    if not any("fresh" in item.fixturenames for item in items):
        yield None
        return
    snippets = {name: (code, _env(**env)) for name, (code, env) in FRESH.items()}
    running = FreshInterpreters(snippets, env=_env())
    yield running
    running.close()


@pytest.fixture
def fresh(_fresh_interpreters):
    """{name: the exit status, output and error output of that snippet}."""
    return _fresh_interpreters.results()


def _assert_ok(out):
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


_fresh(
    "fresh_state",
    """
    import sys
    loaded = [m for m in sys.modules if m.split(".")[0] in ("sklearn", "skcalib")]
    assert not loaded, loaded
    assert sys.argv == ["-c"] and __name__ == "__main__"
    print("ok")
    """,
)
_fresh("failing", "import sys\nprint('half')\nraise ValueError('the failure')\n")
_fresh("exit_status", "import sys\nsys.exit(3)\n")


def test_snippets_run_in_a_fresh_interpreter_state(fresh):
    # nothing of scikit-learn or skcalib imported before a snippet's own imports
    _assert_ok(fresh["fresh_state"])
    # a failure is reported as python -c reports it
    failing = fresh["failing"]
    assert failing.returncode == 1 and failing.stdout == "half\n"
    assert "ValueError: the failure" in failing.stderr
    assert fresh["exit_status"].returncode == 3


_fresh(
    "registration_off",
    """
        from sklearn.metrics import get_scorer_names
        n_sklearn = len(get_scorer_names())
        import skcalib
        from sklearn.model_selection import cross_val_score
        from sklearn.datasets import load_iris
        from sklearn.linear_model import LogisticRegression
        from skcalib.metrics import get_scorer
        assert "ece" not in get_scorer_names()
        assert len(get_scorer_names()) == n_sklearn
        X, y = load_iris(return_X_y=True)
        scores = cross_val_score(LogisticRegression(max_iter=1000), X, y,
                                 scoring=get_scorer("ece"), cv=3)   # the objects work
        assert (scores <= 0).all()
        print("ok")
        """,
    SKCALIB_REGISTER_SCORERS="0",
)


def test_environment_variable_switches_registration_off(fresh):
    _assert_ok(fresh["registration_off"])


#: the scikit-learn state the registration may touch, as comparable values
SNAPSHOT = """
import sklearn.metrics._scorer as _s
from sklearn.inspection import permutation_importance
from sklearn.model_selection import GridSearchCV, cross_validate
from skcalib.utils import _sklearn_compat as compat

def scoring_state(constraints):
    return [
        (type(c).__name__, type(c.options).__name__, frozenset(c.options))
        if isinstance(c, compat.StrOptions) else (type(c).__name__, repr(c))
        for c in constraints
    ]

def snapshot():
    return {
        "names": sorted(sklearn.metrics.get_scorer_names()),
        "registry": [(name, id(scorer)) for name, scorer in _s._SCORERS.items()],
        "GridSearchCV": scoring_state(GridSearchCV._parameter_constraints["scoring"]),
        "cross_validate": scoring_state(
            compat.parameter_constraints(cross_validate)["scoring"]),
        "permutation_importance": scoring_state(
            compat.parameter_constraints(permutation_importance)["scoring"]),
        "all": sorted(
            (id(c), type(c.options).__name__, tuple(sorted(c.options)))
            for c in compat.scorer_name_constraints()
        ),
    }
"""


_fresh(
    "unregister_restores",
    textwrap.dedent(
        """
            import sklearn, sklearn.metrics
            import skcalib                  # SKCALIB_REGISTER_SCORERS=0: nothing registered
            from skcalib.metrics import get_scorer_names, register_scorers, unregister_scorers
            """
    )
    + SNAPSHOT
    + textwrap.dedent(
        """
            before = snapshot()
            assert "ece" not in before["names"]
            assert register_scorers() == get_scorer_names()
            during = snapshot()
            assert during["names"] == sorted(before["names"] + get_scorer_names())
            for key in ("GridSearchCV", "cross_validate", "permutation_importance"):
                assert during[key] != before[key], key
                # the same constraints, with more names: nothing added around them
                assert [c[0] for c in during[key]] == [c[0] for c in before[key]], key
            # a class imported after the registration sees the names, and loses them again
            from sklearn.feature_selection import SequentialFeatureSelector as SFS
            (sfs,) = [c for c in SFS._parameter_constraints["scoring"]
                      if isinstance(c, compat.StrOptions)]
            assert "nll" in sfs.options
            unregister_scorers()
            after = snapshot()
            old_ids = {c[0] for c in before["all"]}
            new = [c for c in after["all"] if c[0] not in old_ids]   # imported in between
            assert id(sfs) in {c[0] for c in new}
            assert all(c[1:] == ("set", tuple(before["names"])) for c in new), new
            after["all"] = [c for c in after["all"] if c[0] in old_ids]
            assert after == before, (after, before)
            print("ok")
            """
    ),
    SKCALIB_REGISTER_SCORERS="0",
)


def test_unregister_restores_scikit_learn_exactly(fresh):
    _assert_ok(fresh["unregister_restores"])


IMPORT_ORDER_IMPORTS = (
    "from sklearn.model_selection import GridSearchCV, cross_val_score\n"
    "from sklearn.feature_selection import SequentialFeatureSelector\nimport skcalib\n"
)
IMPORT_ORDER = textwrap.dedent(
    """
            import warnings
            warnings.simplefilter("error", UserWarning)  # incl. SklearnCompatibilityWarning
            from sklearn.datasets import load_iris
            from sklearn.linear_model import LogisticRegression
            from skcalib.utils import _sklearn_compat as compat
            X, y = load_iris(return_X_y=True)
            clf = LogisticRegression(max_iter=1000)
            GridSearchCV(clf, {"C": [1.0]}, scoring="ece", cv=3).fit(X, y)
            cross_val_score(clf, X, y, scoring="brier", cv=3)
            SequentialFeatureSelector(clf, n_features_to_select=3, scoring="nll", cv=2).fit(X, y)
            # the same scoring constraint lists, whatever the order: strings only
            for constraints in (GridSearchCV._parameter_constraints["scoring"],
                                SequentialFeatureSelector._parameter_constraints["scoring"]):
                modules = {type(c).__module__ for c in constraints}
                assert not any(m.startswith("skcalib") for m in modules), modules
            print("ok")
            """
)
_fresh("import_order[sklearn_first]", IMPORT_ORDER_IMPORTS + IMPORT_ORDER)
_fresh(
    "import_order[skcalib_first]",
    "\n".join(reversed(IMPORT_ORDER_IMPORTS.strip().splitlines())) + "\n" + IMPORT_ORDER,
)


@pytest.mark.parametrize("order", ["sklearn_first", "skcalib_first"])
def test_import_order(fresh, order):
    if order == "skcalib_first":
        assert FRESH["import_order[skcalib_first]"][0].startswith("import skcalib\n")
    _assert_ok(fresh[f"import_order[{order}]"])


#: ``import skcalib`` where scikit-learn's registry is not where skcalib expects it:
#: the compatibility layer's locator is patched as the module is imported
MISSING_REGISTRY = """
import importlib.util, sys
class _Patch:
    def find_spec(self, name, path=None, target=None):
        if name != "skcalib.utils._sklearn_compat":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        exec_module = spec.loader.exec_module
        def patched(module):
            exec_module(module)
            module.sklearn_scorer_registry = lambda: None   # {locate}
        spec.loader.exec_module = patched
        return spec
sys.meta_path.insert(0, _Patch())
"""


MISSING_REGISTRY_USE = textwrap.dedent(
    """
            import warnings
            import numpy as np
            from sklearn.datasets import load_iris
            from sklearn.linear_model import LogisticRegression
            from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
            from sklearn.metrics import get_scorer_names as sk_names
            n_sklearn = len(sk_names())
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                import skcalib
                from skcalib.metrics import get_scorer, register_scorers
                assert register_scorers() == []          # again: no second warning
            from skcalib.utils import SklearnCompatibilityWarning
            ours = [x for x in w if issubclass(x.category, SklearnCompatibilityWarning)]
            assert len(ours) == 1, [str(x.message) for x in w]
            assert "skcalib.metrics.get_scorer('ece')" in str(ours[0].message)
            assert len(sk_names()) == n_sklearn and "ece" not in sk_names()
            X, y = load_iris(return_X_y=True)
            cv = KFold(3, shuffle=True, random_state=0)
            clf = LogisticRegression(max_iter=1000)
            scores = cross_val_score(clf, X, y, cv=cv, scoring=get_scorer("ece"))
            expected = [
                -skcalib.metrics.expected_calibration_error(
                    y[te], clf.fit(X[tr], y[tr]).predict_proba(X[te]))
                for tr, te in cv.split(X)
            ]
            assert np.allclose(scores, expected, rtol=1e-12, atol=0), (scores, expected)
            scoring = {"ece": get_scorer("ece", n_bins=10), "brier": get_scorer("brier"),
                       "acc": "accuracy"}
            search = GridSearchCV(clf, {"C": [0.01, 1.0]}, cv=cv, scoring=scoring,
                                  refit="ece").fit(X, y)
            ece = search.cv_results_["mean_test_ece"]
            assert search.best_index_ == int(np.argmax(ece)) and (ece < 0).all()
            assert (search.cv_results_["mean_test_brier"] < 0).all()
            print("ok")
            """
)
for _how, _locate in [
    ("locator_returns_none", "lambda: None"),
    ("locator_raises", "lambda: {}[0]"),
]:
    _fresh(
        f"missing_registry[{_how}]",
        MISSING_REGISTRY.replace("lambda: None   # {locate}", _locate) + MISSING_REGISTRY_USE,
    )


@pytest.mark.parametrize("how", ["locator_returns_none", "locator_raises"])
def test_import_without_sklearn_registry_warns_once_and_objects_work(fresh, how):
    _assert_ok(fresh[f"missing_registry[{how}]"])


_fresh(
    "broken_internals",
    """
        import warnings
        from sklearn.datasets import load_iris
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import cross_val_score
        import sklearn.metrics._scorer as s
        s._SCORERS = None                       # internals "changed"
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            import skcalib
        msgs = [str(x.message) for x in w if "skcalib" in str(x.message)]
        assert len(msgs) == 1, msgs
        assert "skcalib.metrics.get_scorer('ece')" in msgs[0], msgs[0]
        X, y = load_iris(return_X_y=True)
        scorer = skcalib.metrics.get_scorer("ece")      # still skcalib's scorer
        assert type(scorer).__module__ == "skcalib.metrics._scorer"
        scores = cross_val_score(LogisticRegression(max_iter=1000), X, y, cv=3,
                                 scoring=scorer)
        assert (scores < 0).all()
        print("ok")
        """,
)


def test_import_never_breaks_with_broken_sklearn_internals(fresh):
    _assert_ok(fresh["broken_internals"])


def test_registration_enabled_values(monkeypatch):
    for value, enabled in [
        ("0", False),
        ("false", False),
        ("OFF", False),
        ("no", False),
        ("1", True),
        ("", True),
        ("yes", True),
    ]:
        monkeypatch.setenv("SKCALIB_REGISTER_SCORERS", value)
        assert _registration.scorer_registration_enabled() is enabled
    monkeypatch.delenv("SKCALIB_REGISTER_SCORERS")
    assert _registration.scorer_registration_enabled()
    assert skcalib.__version__


def test_scikit_learn_dependency_has_no_upper_bound():
    tomllib = pytest.importorskip("tomllib")
    pyproject = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"
    if not pyproject.exists():  # pragma: no cover - an installed copy of the tests
        pytest.skip("no pyproject.toml")
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    (spec,) = [d for d in deps if d.replace(" ", "").startswith("scikit-learn")]
    assert spec.replace(" ", "") == "scikit-learn>=1.6"


def test_sklearn_is_numpy_namespace():
    """scikit-learn's _is_numpy_namespace: numpy and its array-api-compat wrapper (the
    namespace scikit-learn gives numpy arrays), not array_api_strict."""
    from skcalib.utils._sklearn_compat import (
        sklearn_is_numpy_namespace,
        sklearn_namespace_and_device,
    )

    assert sklearn_is_numpy_namespace(np)
    assert sklearn_is_numpy_namespace(sklearn_namespace_and_device(np.ones(3))[0])
    xps = pytest.importorskip("array_api_strict")
    assert not sklearn_is_numpy_namespace(xps)


def test_sklearn_namespace_and_device():
    """scikit-learn's get_namespace_and_device: (namespace, is_array_api, device), with
    is_array_api False whenever array_api_dispatch is off (skcalib's numpy path)."""
    from skcalib.utils._sklearn_compat import sklearn_namespace_and_device

    xp, is_array_api, device = sklearn_namespace_and_device(np.ones(3))
    assert is_array_api is False
    assert xp.asarray([1.0, 2.0]).shape == (2,)
    xps = pytest.importorskip("array_api_strict")
    assert sklearn_namespace_and_device(xps.asarray([1.0]))[1] is False
