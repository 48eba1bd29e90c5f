"""
=============================
Reliability diagram and ECE
=============================

An over-confident model, the same model after temperature scaling, and a
well-calibrated one, side by side, drawn with
:class:`skcalib.display.ReliabilityDisplay` in the bar ("gap") style of Guo et al.
(2017): each bar is the observed frequency of the positive class in a bin of predicted
probabilities, the hatched bar on top of it the gap to the bin's mean predicted
probability, the dotted diagonal perfect calibration.  The whiskers are 95 % Wilson
intervals of each bin's frequency; the histogram below counts the samples per bin.

The bars come from :func:`skcalib.metrics.reliability_curve` and the ECE in each legend
is computed from the very same bins, so it equals
:func:`skcalib.metrics.expected_calibration_error` with the same ``n_bins``; both default
to the 15 equal-width bins of every metric, so the defaults agree (checked below).

The data are those of scikit-learn's calibration example: two informative features and
ten redundant ones (linear combinations of them).  Gaussian naive Bayes assumes the
features independent, counts the same evidence several times and pushes its
probabilities to 0 and 1: over-confident.  Temperature scaling
(:class:`skcalib.recalibration.RecalibratedClassifier` with ``method="temperature"``)
divides its logits by one temperature fitted on a held-out calibration set, with the
fitted model frozen (:class:`sklearn.frozen.FrozenEstimator`): the predicted classes do
not change, the confidences shrink towards the diagonal.  Logistic regression is close
to calibrated.

Runs offline in a few seconds.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from skcalib.display import ReliabilityDisplay
from skcalib.metrics import expected_calibration_error
from skcalib.recalibration import RecalibratedClassifier

X, y = make_classification(
    n_samples=20_000, n_features=20, n_informative=2, n_redundant=10, random_state=42
)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=42)
# a held-out calibration set for the recalibrator, taken from the training half
X_fit, X_cal, y_fit, y_cal = train_test_split(X_train, y_train, test_size=0.3, random_state=0)

naive_bayes = GaussianNB().fit(X_fit, y_fit)
scaled = RecalibratedClassifier(FrozenEstimator(naive_bayes), method="temperature")
scaled.fit(X_cal, y_cal)

# one panel per model, from left to right
models = {
    "Gaussian naive Bayes": naive_bayes,
    "Naive Bayes + temperature scaling": scaled,
    "Logistic regression": LogisticRegression().fit(X_train, y_train),
}

fig = plt.figure(figsize=(4.6 * len(models), 5.8), layout="constrained")
grid = fig.add_gridspec(2, len(models), height_ratios=[3, 1])
for i, (name, model) in enumerate(models.items()):
    ax = fig.add_subplot(grid[0, i])
    hist_ax = fig.add_subplot(grid[1, i], sharex=ax)
    disp = ReliabilityDisplay.from_estimator(
        model,
        X_test,
        y_test,
        kind="bar",
        confidence_level=0.95,
        name=name,
        ax=ax,
        show_histogram=True,
        hist_ax=hist_ax,
    )
    ece = expected_calibration_error(y_test, model.predict_proba(X_test))
    assert abs(disp.calibration_error - ece) < 1e-12  # the legend's ECE is the metric's
    assert disp.bin_count.shape == (15,)  # one default number of bins
    print(f"{name:34s} ECE = {ece:.4f}")

plt.show()
