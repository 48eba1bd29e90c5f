"""
==========================================================
Calibration of a probabilistic regressor: PIT diagnostics
==========================================================

A probabilistic regressor predicts a distribution.  Its probability integral transform
(PIT), the predictive CDF at the observed value, is uniform on [0, 1] when the forecasts
are calibrated.  :class:`skcalib.display.PITDisplay` draws the PIT histogram (left, with
the grey band that each bin of a uniform sample of this size stays in, 95 %) and the
fraction of observations below each predicted quantile against its nominal level
(right, with the diagonal of perfect calibration).

Three models of the diabetes data that ships with scikit-learn:

* :class:`~sklearn.linear_model.BayesianRidge`, whose Normal predictive distribution
  (``predict(X, return_std=True)``) is close to calibrated: a flat histogram;
* the same means with standard deviations halved (an over-confident model): a U-shaped
  histogram, too many observations beyond the predicted quantiles;
* a random forest read as an ensemble, its trees' predictions as the draws of the
  forecast (randomised PIT ranks): each tree is fitted to the training data, so the
  trees agree more than the truth varies: over-confident too.

Runs offline in a few seconds.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import BayesianRidge
from sklearn.model_selection import train_test_split

from skcalib.display import PITDisplay
from skcalib.metrics import crps_normal

X, y = load_diabetes(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

ridge = BayesianRidge().fit(X_train, y_train)
disp = PITDisplay.from_estimator(ridge, X_test, y_test, n_bins=10)

y_mean, y_std = ridge.predict(X_test, return_std=True)
PITDisplay.from_predictions(y_test, y_mean, y_std / 2, name="BayesianRidge, std / 2", ax=disp.ax_)

forest = RandomForestRegressor(n_estimators=50, min_samples_leaf=5, random_state=0)
forest.fit(X_train, y_train)
members = np.column_stack([tree.predict(X_test) for tree in forest.estimators_])
PITDisplay.from_ensemble(y_test, members, random_state=0, name="random forest", ax=disp.ax_)

for name, std in [("BayesianRidge", y_std), ("BayesianRidge, std / 2", y_std / 2)]:
    print(f"{name:24s} CRPS = {crps_normal(y_test, y_mean, std):.2f}")

disp.figure_.set_size_inches(11, 4.8)
plt.show()
