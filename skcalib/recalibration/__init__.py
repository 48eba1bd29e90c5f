"""skcalib.recalibration: post-hoc calibrators as scikit-learn estimators.

Each calibrator is fitted on a model's output on held-out data (probabilities or
logits) and the true labels, and maps new outputs to calibrated probabilities;
:class:`RecalibratedClassifier` wraps a classifier and a calibrator into one
classifier.  Built on :mod:`skcalib.metrics` (its validation and its binning core);
:mod:`skcalib.metrics` never imports this package.
"""

from ._classifier import RecalibratedClassifier
from ._histogram import HistogramBinning, ScalingBinning
from ._monotone import BetaCalibration, IsotonicCalibration
from ._platt import PlattScaling
from ._regression import (
    ConformalInterval,
    QuantileRecalibration,
    RecalibratedDistribution,
    StdScaling,
)
from ._regressor import RecalibratedRegressor
from ._scaling import MatrixScaling, VectorScaling
from ._temperature import EnsembleTemperatureScaling, TemperatureScaling

__all__ = [
    "BetaCalibration",
    "ConformalInterval",
    "EnsembleTemperatureScaling",
    "HistogramBinning",
    "IsotonicCalibration",
    "MatrixScaling",
    "PlattScaling",
    "QuantileRecalibration",
    "RecalibratedClassifier",
    "RecalibratedDistribution",
    "RecalibratedRegressor",
    "ScalingBinning",
    "StdScaling",
    "TemperatureScaling",
    "VectorScaling",
]
