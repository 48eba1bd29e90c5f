"""skcalib's compatibility layer against the installed scikit-learn (CI runs these with
the newest and the oldest supported scikit-learn).

* every private name that ``skcalib.utils._sklearn_compat`` re-exports or wraps behaves
  as skcalib relies on: the parameter validation, the scorer base class and its
  ``_score`` hook, scikit-learn's scorer registry and its ``scoring`` constraints;
* the scorer-name registration built on it (``skcalib.metrics.register_scorers``):
  every entry point that takes ``scoring=`` accepts the skcalib names; the registration
  never overrides a scikit-learn name, is idempotent, can be switched off, and degrades
  to one warning.
"""

import functools
import inspect
import numbers
import os
import pickle
import subprocess
import sys
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

X, Y = load_iris(return_X_y=True)
CV = KFold(3, shuffle=True, random_state=0)
GRID = {"C": [0.1, 1.0]}


def _clf():
    return LogisticRegression(max_iter=1000)


def _expected_ece_cv():
    """ECE of each fold computed by hand, negated: what scoring="ece" must give."""
    out = []
    for train, test in CV.split(X):
        clf = _clf().fit(X[train], Y[train])
        out.append(-expected_calibration_error(Y[test], clf.predict_proba(X[test])))
    return np.array(out)


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
    # also through functools.wraps, as in skcalib's scorer-misuse guard
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
    monkeypatch.setattr(sklearn.metrics._scorer, "_SCORERS", None)
    with pytest.raises(RuntimeError, match="_SCORERS is not a dict"):
        compat.sklearn_scorer_registry()


def test_scoring_constraints_are_found():
    # the constraints of public functions and estimators with a ``scoring`` parameter
    lists = compat.scoring_constraint_lists()
    names = compat.scorer_name_constraints()
    for owner in (cross_val_score, check_scoring):
        scoring = compat.parameter_constraints(owner)["scoring"]
        assert any(lst is scoring for lst in lists), owner
        assert any(c in names for c in scoring if isinstance(c, compat.StrOptions)), owner
    scoring = GridSearchCV._parameter_constraints["scoring"]
    assert any(lst is scoring for lst in lists)
    for c in names:
        assert {"accuracy", "roc_auc", "neg_log_loss", "r2"} <= set(c.options)
        assert "ece" in c.options  # registered by ``import skcalib``


def _my_metric(y_true, y_pred):  # pragma: no cover - never called
    return 0.0


def _accuracy(estimator, X, y):
    return float(np.mean(estimator.predict(X) == y))


def test_add_and_remove_scorer_names_round_trip(monkeypatch):
    """The generic machinery with a registrant that is not skcalib."""
    mine = sklearn.metrics.make_scorer(sklearn.metrics.accuracy_score)

    def is_own(scorer):
        return scorer is mine

    def reject(value):
        return value is _my_metric

    def message(value):
        return f"{value.__name__} is a metric function"

    kwargs = {"is_own": is_own, "reject": reject, "message": message}
    scorers = {"my_accuracy": mine, "accuracy": mine}
    try:
        assert compat.add_scorer_names(scorers, **kwargs) == ["my_accuracy"]
        assert compat.add_scorer_names(scorers, **kwargs) == ["my_accuracy"]  # idempotent
        registry = compat.sklearn_scorer_registry()
        assert registry["my_accuracy"] is mine
        assert registry["accuracy"] is not mine  # scikit-learn's name is never overridden
        assert "my_accuracy" in sk_get_scorer_names()
        np.testing.assert_allclose(
            cross_val_score(_clf(), X, Y, cv=CV, scoring="my_accuracy"),
            cross_val_score(_clf(), X, Y, cv=CV, scoring="accuracy"),
        )
        with pytest.raises(ValueError, match="_my_metric is a metric function"):
            check_scoring(_clf(), scoring=_my_metric)
        assert check_scoring(_clf(), scoring=_accuracy) is _accuracy
        lists = compat.scoring_constraint_lists()
        assert all(sum(compat.is_scoring_guard(c) for c in lst) == 1 for lst in lists)
    finally:
        compat.remove_scorer_names(["my_accuracy"], is_own=is_own)
    try:
        assert "my_accuracy" not in sk_get_scorer_names()
        assert "accuracy" in sk_get_scorer_names()
        with pytest.raises(compat.InvalidParameterError, match="scoring"):
            cross_val_score(_clf(), X, Y, scoring="my_accuracy")
        assert not any(
            compat.is_scoring_guard(c) for lst in compat.scoring_constraint_lists() for c in lst
        )
        # an error half-way undoes what the call changed, and is raised
        monkeypatch.setattr(compat, "scorer_name_constraints", lambda: [])
        with pytest.raises(RuntimeError, match="no StrOptions constraint"):
            compat.add_scorer_names(scorers, **kwargs)
        assert "my_accuracy" not in compat.sklearn_scorer_registry()
    finally:
        monkeypatch.undo()
        register_scorers()  # skcalib's guard constraints back
    assert all(
        sum(compat.is_scoring_guard(c) for c in lst) == 1
        for lst in compat.scoring_constraint_lists()
    )


# --------------------------------------------------------------------------------------
# skcalib's registration of its names (skcalib.metrics.register_scorers)
# --------------------------------------------------------------------------------------


def test_names_registered_except_sklearn_own():
    registered = set(_registration.registered_scorer_names())
    assert registered == set(get_scorer_names()) - {"neg_brier_score"}
    assert registered <= set(sk_get_scorer_names())
    # never overrides a scikit-learn name
    assert type(sk_get_scorer("neg_brier_score")).__module__.startswith("sklearn.")
    assert "neg_brier_score" not in registered


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
        # the long name and the alias are the same scorer
        np.testing.assert_allclose(run("neg_expected_calibration_error"), values, rtol=1e-12)


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


def test_idempotent_and_reversible():
    before_names = sorted(sk_get_scorer_names())
    before_registry = dict(sklearn.metrics._scorer._SCORERS)
    assert register_scorers() == _registration.registered_scorer_names()
    assert register_scorers() == _registration.registered_scorer_names()
    assert sorted(sk_get_scorer_names()) == before_names
    for name, scorer in before_registry.items():  # not even replaced
        assert sklearn.metrics._scorer._SCORERS[name] is scorer
    lists = compat.scoring_constraint_lists()
    assert lists and all(sum(compat.is_scoring_guard(c) for c in lst) == 1 for lst in lists)
    try:
        unregister_scorers()
        assert "ece" not in sk_get_scorer_names()
        assert "accuracy" in sk_get_scorer_names()
        with pytest.raises(compat.InvalidParameterError, match="scoring"):
            cross_val_score(_clf(), X, Y, scoring="ece")
        assert not any(compat.is_scoring_guard(c) for lst in lists for c in lst)
        # skcalib scorer objects work without the registration
        assert np.all(np.isfinite(cross_val_score(_clf(), X, Y, scoring=get_scorer("ece"))))
    finally:
        register_scorers()
    assert sorted(sk_get_scorer_names()) == before_names
    assert np.all(np.isfinite(cross_val_score(_clf(), X, Y, scoring="ece")))


def test_metric_function_as_scoring_is_rejected_early():
    with pytest.raises(ValueError, match="not a scorer.*scoring='ece'"):
        cross_val_score(_clf(), X, Y, scoring=expected_calibration_error)
    with pytest.raises(ValueError, match="not a scorer.*scoring='ece'"):
        check_scoring(_clf(), scoring=expected_calibration_error)
    # other callables are untouched
    assert check_scoring(_clf(), scoring=len) is len


def test_broken_internals_warn_once_and_roll_back(monkeypatch):
    monkeypatch.setattr(_registration, "_WARNED", False)
    unregister_scorers()
    try:
        monkeypatch.setattr(sklearn.metrics._scorer, "_SCORERS", None)
        with pytest.warns(
            SklearnCompatibilityWarning, match=r"skcalib\.metrics\.get_scorer\('ece'\)"
        ):
            assert register_scorers() == []
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert register_scorers() == []  # no second warning
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
        assert not any(
            compat.is_scoring_guard(c) for lst in compat.scoring_constraint_lists() for c in lst
        )
    finally:
        monkeypatch.undo()
        register_scorers()
    assert "ece" in sk_get_scorer_names()


def _run(code, **env):
    full_env = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )


def test_environment_variable_switches_registration_off():
    out = _run(
        """
        import skcalib
        from sklearn.metrics import get_scorer_names
        from skcalib.metrics import get_scorer
        assert "ece" not in get_scorer_names()
        assert get_scorer("ece") is not None   # the objects still work
        print("ok")
        """,
        SKCALIB_REGISTER_SCORERS="0",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("order", ["sklearn_first", "skcalib_first"])
def test_import_order(order):
    imports = (
        "from sklearn.model_selection import GridSearchCV, cross_val_score\n"
        "from sklearn.feature_selection import SequentialFeatureSelector\nimport skcalib\n"
    )
    if order == "skcalib_first":
        imports = "\n".join(reversed(imports.strip().splitlines())) + "\n"
    out = _run(
        imports
        + textwrap.dedent(
            """
            import warnings
            warnings.simplefilter("error", UserWarning)  # incl. SklearnCompatibilityWarning
            from sklearn.datasets import load_iris
            from sklearn.linear_model import LogisticRegression
            X, y = load_iris(return_X_y=True)
            clf = LogisticRegression(max_iter=1000)
            GridSearchCV(clf, {"C": [1.0]}, scoring="ece", cv=3).fit(X, y)
            cross_val_score(clf, X, y, scoring="brier", cv=3)
            SequentialFeatureSelector(clf, n_features_to_select=3, scoring="nll", cv=2).fit(X, y)
            print("ok")
            """
        )
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_import_never_breaks_with_broken_sklearn_internals():
    out = _run(
        """
        import warnings
        import sklearn.metrics._scorer as s
        s._SCORERS = None                       # internals "changed"
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            import skcalib
        msgs = [str(x.message) for x in w if "skcalib" in str(x.message)]
        assert len(msgs) == 1, msgs
        assert "skcalib.metrics.get_scorer('ece')" in msgs[0], msgs[0]
        print("ok")
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


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
