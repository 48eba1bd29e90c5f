"""Calibration metrics of data seen chunk by chunk: exact, mergeable accumulators.

:class:`CalibrationAccumulator` keeps the sufficient statistics of the calibration
metrics of a stream (prediction logs, a Parquet dataset read row group by row group,
the partitions of a Dask collection), merges them exactly across chunks, workers and
days, and computes the batch metrics' numbers from them; :class:`RegressionAccumulator`
does the same for the uncertainty metrics of regression forecasts.
"""

from ._accumulator import CalibrationAccumulator, fine_bin_edges
from ._regression import RegressionAccumulator

__all__ = ["CalibrationAccumulator", "RegressionAccumulator", "fine_bin_edges"]
