"""
Accuracy-rejection curves: does the uncertainty rank the mistakes?
==================================================================

A model that may abstain (defer to a human, ask for more data) rejects its least sure
predictions first.  The accuracy of what it keeps should then rise, as fast as possible
towards the oracle curve, which rejects exactly the errors first.  Two classifiers of
handwritten digits are compared on one axis with
:class:`skcalib.display.RejectionDisplay`; the legend gives each model's area under the
risk-coverage curve (AURC, lower is better).

The random forest is drawn a second time with another uncertainty score: the mutual
information between its prediction and its trees (how much the trees disagree),
computed with :func:`skcalib.metrics.model_uncertainty` -- any per-sample score can be
passed as ``uncertainty=``.

Runs offline in a few seconds.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcalib.display import RejectionDisplay
from skcalib.metrics import member_probabilities, model_uncertainty

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

logreg = make_pipeline(StandardScaler(), LogisticRegression(C=0.01)).fit(X_train, y_train)
forest = RandomForestClassifier(n_estimators=30, max_depth=6, random_state=0)
forest.fit(X_train, y_train)

fig, ax = plt.subplots(figsize=(6.4, 5.0), layout="constrained")
d1 = RejectionDisplay.from_estimator(logreg, X_test, y_test, name="Logistic regression", ax=ax)
d2 = RejectionDisplay.from_estimator(forest, X_test, y_test, name="Random forest", ax=ax)

# the forest again, ranked by the disagreement of its trees instead of 1 - confidence
members = member_probabilities(forest, X_test)  # (n_members, n_samples, n_classes)
disagreement = model_uncertainty(members).model
d3 = RejectionDisplay.from_estimator(
    forest,
    X_test,
    y_test,
    uncertainty=disagreement,
    name="Random forest, tree disagreement",
    ax=ax,
    show_oracle=False,
    show_random=False,
)
ax.set_ylim(0.9, 1.005)

for d in (d1, d2, d3):
    print(
        f"{d.estimator_name:<34s} accuracy {d.base_accuracy:.3f}  "
        f"after rejecting 10%: {d.accuracy[(d.fraction_rejected < 0.1).sum()]:.3f}  "
        f"AURC {d.aurc:.4f}"
    )

plt.show()
