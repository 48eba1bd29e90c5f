"""
=============================
Reliability diagram and ECE
=============================

Fit two classifiers on a dataset that ships with scikit-learn, print their expected
calibration error (ECE) and draw their reliability diagram.

The points of the diagram come from :func:`skcalib.metrics.reliability_curve`: for every
equal-width bin of predicted probabilities, the mean predicted probability (x) and the
observed frequency of the positive class (y).  They are the very numbers the ECE is
computed from (ECE = the average vertical gap to the diagonal, weighted by the share of
samples in each bin), so the plot and the printed number cannot disagree.

Gaussian naive Bayes is notoriously over-confident (its probabilities pile up near 0 and
1); logistic regression is close to calibrated.

Runs offline in a few seconds; the figure is saved to a temporary file (the Agg backend
is used, so no window opens).
"""

import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcalib.metrics import expected_calibration_error, reliability_curve

plt.switch_backend("Agg")  # no window: save to a file

N_BINS = 10

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, random_state=0)

models = {
    "Gaussian naive Bayes": GaussianNB(),
    "logistic regression": make_pipeline(StandardScaler(), LogisticRegression()),
}

fig, (ax, ax_hist) = plt.subplots(
    2, 1, figsize=(6, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
)
ax.plot([0, 1], [0, 1], "--", color="0.6", label="perfectly calibrated")
for name, model in models.items():
    proba = model.fit(X_train, y_train).predict_proba(X_test)[:, 1]
    ece = expected_calibration_error(y_test, proba, n_bins=N_BINS)
    curve = reliability_curve(y_test, proba, n_bins=N_BINS)
    print(
        f"{name:22s} ECE = {ece:.4f}  (bins with samples: "
        f"{int(np.count_nonzero(curve.bin_count))} of {N_BINS})"
    )
    # the ECE is the count-weighted mean gap of the plotted points
    keep = curve.bin_count > 0
    gap = np.abs(curve.prob_true[keep] - curve.prob_pred[keep])
    assert np.isclose(np.sum(curve.bin_count[keep] * gap) / len(y_test), ece)
    ax.plot(curve.prob_pred[keep], curve.prob_true[keep], "o-", label=f"{name} (ECE {ece:.3f})")
    ax_hist.stairs(curve.bin_count, curve.bin_edges, label=name)

ax.set_ylabel("observed frequency of the positive class")
ax.set_title(f"Reliability diagram ({N_BINS} equal-width bins)")
ax.legend(loc="upper left")
ax_hist.set_xlabel("mean predicted probability of the positive class")
ax_hist.set_ylabel("samples per bin")
fig.tight_layout()

path = os.path.join(tempfile.mkdtemp(prefix="skcalib-"), "reliability_diagram.png")
fig.savefig(path, dpi=100)
plt.close(fig)
print(f"saved {path}")
