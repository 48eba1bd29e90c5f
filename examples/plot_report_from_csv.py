"""
==================================================
Report the calibration of predictions saved to CSV
==================================================

The usual workflow: a model's test-set probabilities are saved to a CSV file (one row per
sample, the label column and one probability column per class, named by the class), and
``skcalib report`` prints their accuracy and calibration metrics.  Here the file is
written with the standard ``csv`` module (``pandas.DataFrame.to_csv`` writes the same
format; the index column it adds by default is ignored) and two models are stored in one
file with a ``model`` column.

The command is run from Python through :func:`skcalib.__main__.main`, which takes the
command-line arguments and returns the exit status; in a shell the same report is::

    skcalib report predictions.csv --model-col model --out results/

The figure at the end is the reliability-diagram PNG that ``--out`` wrote.  Runs
offline in a few seconds and writes only to a temporary directory.
"""

import csv
import os
import tempfile

import matplotlib.pyplot as plt
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skcalib.__main__ import main

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
models = {
    "logistic_regression": make_pipeline(StandardScaler(), LogisticRegression()),
    "random_forest": RandomForestClassifier(n_estimators=50, random_state=0),
}

tmp = tempfile.mkdtemp(prefix="skcalib-")
path = os.path.join(tmp, "predictions.csv")
with open(path, "w", newline="") as f:
    writer = csv.writer(f)
    classes = None
    for name, model in models.items():
        proba = model.fit(X_train, y_train).predict_proba(X_test)
        if classes is None:
            classes = [str(c) for c in model.classes_]
            writer.writerow(["model", "y", *classes])  # probability columns named by class
        for label, row in zip(y_test, proba.tolist(), strict=True):
            writer.writerow([name, int(label), *map(repr, row)])  # repr: full precision

print(f"predictions saved to {path}\n")
status = main(
    [
        "report",
        path,
        "--model-col",
        "model",
        "--n-bins",
        "10",
        "--out",
        os.path.join(tmp, "results"),
    ]
)
if status != 0:
    raise SystemExit(status)

# %%
# The diagrams the command wrote
# ------------------------------
# ``--out`` wrote the table as CSV and JSON and the reliability diagrams as
# ``reliability_predictions.png``: one panel per model, each bin's observed frequency
# with its 95 % interval, and the number of samples per bin below.
image = plt.imread(os.path.join(tmp, "results", "reliability_predictions.png"))
fig, ax = plt.subplots(figsize=(image.shape[1] / 100, image.shape[0] / 100))
ax.imshow(image)
ax.set_axis_off()
plt.show()
