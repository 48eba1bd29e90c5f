"""
=================================================
Choosing a model by calibration with GridSearchCV
=================================================

After ``import skcalib`` the skcalib scorer names (``"ece"``, ``"brier"``, ``"nll"``,
``"iscv"``, ...) work as ``scoring=`` strings everywhere in scikit-learn.  Here
:class:`~sklearn.model_selection.GridSearchCV` compares several classifiers with a
multi-metric dict — accuracy, expected calibration error and Brier score — and refits the
model whose probabilities are best calibrated (``refit="ece"``).

Every skcalib scorer is "greater is better", like every scikit-learn scorer: errors and
losses are negated, so the table below negates them back.  Runs in a few seconds,
offline.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import skcalib  # noqa: F401  (registers "ece", "brier", ... with scikit-learn)
from skcalib.display import ReliabilityDisplay
from skcalib.metrics import get_scorer

X, y = load_breast_cancer(return_X_y=True)
cv = StratifiedKFold(5, shuffle=True, random_state=0)

# %%
# Several models, one search, three metrics
# -----------------------------------------
pipe = Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression())])
param_grid = [
    {"clf": [LogisticRegression(max_iter=1000)], "clf__C": [0.01, 0.1, 1.0, 10.0]},
    {"clf": [GaussianNB()]},
    {
        "clf": [RandomForestClassifier(n_estimators=50, random_state=0)],
        "clf__min_samples_leaf": [1, 10],
    },
]
scoring = {"accuracy": "accuracy", "ece": "ece", "brier": "brier"}
search = GridSearchCV(pipe, param_grid, scoring=scoring, refit="ece", cv=cv)
search.fit(X, y)

res = search.cv_results_


def describe(params):
    clf = params["clf"]
    extra = {k.split("__")[1]: v for k, v in params.items() if k.startswith("clf__")}
    return type(clf).__name__ + "".join(f" {k}={v}" for k, v in extra.items())


print(f"{'model':<42} {'accuracy':>8} {'ECE':>7} {'Brier':>7} {'rank(ECE)':>9}")
for i in np.argsort(res["rank_test_ece"]):
    print(
        f"{describe(res['params'][i]):<42} {res['mean_test_accuracy'][i]:8.4f} "
        f"{-res['mean_test_ece'][i]:7.4f} {-res['mean_test_brier'][i]:7.4f} "
        f"{res['rank_test_ece'][i]:9d}"
    )
best_acc = int(np.argmax(res["mean_test_accuracy"]))
print(f"\nrefit='ece' chose:      {describe(search.best_params_)} (ECE {-search.best_score_:.4f})")
print(
    f"accuracy alone chooses: {describe(res['params'][best_acc])} "
    f"(ECE {-res['mean_test_ece'][best_acc]:.4f})"
)

# %%
# Look at the choice
# ------------------
# The out-of-fold probabilities of the model chosen by ECE and of the worst-calibrated
# one on one reliability diagram (10 bins, so the ECEs differ from the 15-bin table).
worst = int(np.argmax(res["rank_test_ece"]))
fig, ax = plt.subplots(figsize=(5.2, 5.4), layout="constrained")
for i in (int(np.argmin(res["rank_test_ece"])), worst):
    model = clone(pipe).set_params(**res["params"][i])
    proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    ReliabilityDisplay.from_predictions(y, proba, name=describe(res["params"][i]), ax=ax)
plt.show()

# %%
# Options of a metric: pass a scorer object
# -----------------------------------------
# ``get_scorer(name, **options)`` fixes the metric's options, e.g. 10 bins, or the
# class-wise ECE.  The objects go wherever a scoring string goes.
scoring = {
    "ece_10_bins": get_scorer("ece", n_bins=10),
    "classwise_ece": get_scorer("ece", multiclass="classwise"),
}
search10 = GridSearchCV(pipe, param_grid[:1], scoring=scoring, refit="ece_10_bins", cv=cv)
search10.fit(X, y)
print("\nwith 10 bins, refit chose:", describe(search10.best_params_))

# %%
# Ensembles: choose by the held-out log-likelihood estimated from the members
# ---------------------------------------------------------------------------
# ``"iscv"`` (importance-sampling cross-validation) and ``"waic"`` score a fitted
# bagging ensemble, forest or soft-voting ensemble by its members' log-likelihoods of
# the evaluation fold (log predictive density per sample: higher is better).  Fully
# grown trees put probability 0 on the labels they get wrong (clipped to the machine
# epsilon, log = -36), which the criteria punish: larger leaves win.
bagging = BaggingClassifier(DecisionTreeClassifier(), n_estimators=25, random_state=0)
ens_search = GridSearchCV(
    bagging,
    {"estimator__min_samples_leaf": [1, 5, 20]},
    cv=cv,
    scoring={"iscv": "iscv", "waic": "waic", "ece": "ece"},
    refit="iscv",
)
ens_search.fit(X, y)
r = ens_search.cv_results_
print(f"\n{'min_samples_leaf':>16} {'ISCV':>8} {'WAIC':>8} {'ECE':>7}")
for i, params in enumerate(r["params"]):
    print(
        f"{params['estimator__min_samples_leaf']:>16} {r['mean_test_iscv'][i]:8.4f} "
        f"{r['mean_test_waic'][i]:8.4f} {-r['mean_test_ece'][i]:7.4f}"
    )
print(
    "refit='iscv' chose min_samples_leaf =", ens_search.best_params_["estimator__min_samples_leaf"]
)
