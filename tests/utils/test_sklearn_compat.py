"""The scorer-name registration with the installed scikit-learn: every entry point that
takes ``scoring=`` accepts the skcalib names; the registration never overrides a
scikit-learn name, is idempotent, can be switched off, and degrades to one warning."""

import os
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
from sklearn.utils._param_validation import InvalidParameterError, StrOptions

import skcalib
from skcalib.metrics import expected_calibration_error, get_scorer, get_scorer_names
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


def test_names_registered_except_sklearn_own():
    registered = set(compat.registered_scorer_names())
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
    assert compat.register_scorers() == compat.registered_scorer_names()
    assert compat.register_scorers() == compat.registered_scorer_names()
    assert sorted(sk_get_scorer_names()) == before_names
    for name, scorer in before_registry.items():  # not even replaced
        assert sklearn.metrics._scorer._SCORERS[name] is scorer
    lists = compat._scoring_lists(StrOptions)
    assert lists and all(sum(compat._is_metric_guard(c) for c in lst) == 1 for lst in lists)
    try:
        compat.unregister_scorers()
        assert "ece" not in sk_get_scorer_names()
        assert "accuracy" in sk_get_scorer_names()
        with pytest.raises(InvalidParameterError, match="scoring"):
            cross_val_score(_clf(), X, Y, scoring="ece")
        assert not any(compat._is_metric_guard(c) for lst in lists for c in lst)
        # skcalib scorer objects work without the registration
        assert np.all(np.isfinite(cross_val_score(_clf(), X, Y, scoring=get_scorer("ece"))))
    finally:
        compat.register_scorers()
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
    monkeypatch.setattr(compat, "_WARNED", False)
    compat.unregister_scorers()
    try:
        monkeypatch.setattr(sklearn.metrics._scorer, "_SCORERS", None)
        with pytest.warns(
            compat.SklearnCompatibilityWarning, match=r"skcalib\.metrics\.get_scorer\('ece'\)"
        ):
            assert compat.register_scorers() == []
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert compat.register_scorers() == []  # no second warning
        monkeypatch.undo()
        # a hook whose signature changed: detected before anything is modified
        monkeypatch.setattr(compat, "_WARNED", False)

        class Changed:
            def _score(self, estimator, X, y_true, **kwargs):  # pragma: no cover
                pass

        monkeypatch.setattr("skcalib.metrics._scorer._SklearnScorer", Changed)
        with pytest.warns(compat.SklearnCompatibilityWarning, match="_score"):
            assert compat.register_scorers() == []
        assert "ece" not in sk_get_scorer_names()  # rolled back
        # a failing self-check rolls everything back
        monkeypatch.undo()
        monkeypatch.setattr(compat, "_WARNED", False)

        def failing_self_check(check_scoring):
            raise RuntimeError("self-check failed")

        monkeypatch.setattr(compat, "_self_check", failing_self_check)
        with pytest.warns(compat.SklearnCompatibilityWarning, match="self-check failed"):
            assert compat.register_scorers() == []
        assert "ece" not in sk_get_scorer_names()
        assert not any(
            compat._is_metric_guard(c) for lst in compat._scoring_lists(StrOptions) for c in lst
        )
    finally:
        monkeypatch.undo()
        compat.register_scorers()
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
        assert compat.scorer_registration_enabled() is enabled
    monkeypatch.delenv("SKCALIB_REGISTER_SCORERS")
    assert compat.scorer_registration_enabled()
    assert skcalib.__version__
