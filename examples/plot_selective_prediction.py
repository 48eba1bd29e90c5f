"""
Which model knows when it is wrong?
===================================

Two classifiers of handwritten digits with similar accuracies are compared by how well
their uncertainty ranks their mistakes: the accuracy after rejecting the least confident
predictions, the areas under the risk-coverage curves (AURC, E-AURC, AUGRC), the accuracy
of a model + human team where the human reviews 5% of the predictions, and the AUROC of
the uncertainty as a detector of errors.

The random forest is also scored with another uncertainty: the mutual information
between the prediction and its trees (how much the trees disagree), computed from the
members' probabilities -- any per-sample score can be passed as ``uncertainty=``.

The accuracy-rejection curves at the end draw the same comparison.  Runs offline in a
few seconds (the digits dataset ships with scikit-learn).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcalib.display import RejectionDisplay
from skcalib.metrics import (
    area_under_generalized_risk_coverage,
    area_under_risk_coverage,
    excess_area_under_risk_coverage,
    member_probabilities,
    model_uncertainty,
    oracle_collaborative_accuracy,
    rejection_curve,
    risk_at_coverage,
    uncertainty_auc,
)

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

models = {
    "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(C=0.01)),
    "random forest": RandomForestClassifier(n_estimators=30, max_depth=6, random_state=0),
}


def summary(name, P, uncertainty=None):
    kw = {"uncertainty": uncertainty}
    curve = rejection_curve(y_test, P, **kw)
    # accuracy after rejecting (at least) 10% of the predictions
    at10 = curve.accuracy[np.searchsorted(curve.fraction_rejected, 0.1)]
    values = {
        "acc": curve.base_accuracy,
        "acc@10%rej": at10,
        "risk@80%cov": risk_at_coverage(y_test, P, coverage=0.8, **kw),
        "AURC": area_under_risk_coverage(y_test, P, **kw),
        "E-AURC": excess_area_under_risk_coverage(y_test, P, **kw),
        "AUGRC": area_under_generalized_risk_coverage(y_test, P, **kw),
        "OCA@5%": oracle_collaborative_accuracy(y_test, P, fraction=0.05, n_bins=None, **kw),
        "AUROC": uncertainty_auc(y_test, P, **kw),
    }
    print(f"{name:<42s} " + "  ".join(f"{k} {v:.4f}" for k, v in values.items()))


for name, model in models.items():
    model.fit(X_train, y_train)
    summary(f"{name} (1 - max probability)", model.predict_proba(X_test))

# the forest's trees: the mutual information between the label and the tree (the
# "model" part of the decomposition of the entropy)
forest = models["random forest"]
members = member_probabilities(forest, X_test)  # (n_trees, n_samples, n_classes)
mutual_information = model_uncertainty(members).model
summary("random forest (mutual information)", members.mean(axis=0), mutual_information)

# %%
# The rejection curves
# --------------------
# The accuracy of the predictions kept as the least confident ones are rejected: a
# curve that rises fast ranks the mistakes well.  The forest is drawn twice, ranked by
# its confidence and by the disagreement of its trees.
fig, ax = plt.subplots(figsize=(7, 4.8), layout="constrained")
hide = {"show_oracle": False, "show_random": False}
for name, model in models.items():
    P = model.predict_proba(X_test)
    RejectionDisplay.from_predictions(y_test, P, name=name, ax=ax, **hide)
RejectionDisplay.from_predictions(
    y_test,
    members.mean(axis=0),
    uncertainty=mutual_information,
    name="random forest (mutual information)",
    ax=ax,
    linestyle="--",
    **hide,
)
plt.show()
