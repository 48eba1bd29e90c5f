"""skcalib.display: reliability diagrams and friends, in scikit-learn's Display idiom.

Every display follows :class:`sklearn.calibration.CalibrationDisplay`: ``__init__``
stores computed arrays, ``from_estimator`` calls ``from_predictions``, which calls a
public function of :mod:`skcalib.metrics`, and ``plot(ax=None, *, name=None, ...)`` only
draws, sets ``ax_``, ``figure_`` and the artists, and returns the display.  matplotlib
is imported only when something is drawn.
"""

from ._group import GroupCalibrationDisplay
from ._histogram import ConfidenceHistogramDisplay
from ._pit import PITDisplay
from ._regression import PredictionIntervalDisplay, RegressionCalibrationDisplay
from ._rejection import RejectionDisplay
from ._reliability import ReliabilityDisplay

__all__ = [
    "ConfidenceHistogramDisplay",
    "GroupCalibrationDisplay",
    "PITDisplay",
    "PredictionIntervalDisplay",
    "RegressionCalibrationDisplay",
    "RejectionDisplay",
    "ReliabilityDisplay",
]
