"""skcalib.report: one-call calibration reports and the ``skcalib report`` command.

:func:`calibration_report` computes accuracy and the calibration metrics of
:mod:`skcalib.metrics` for one or several models and formats them as a table; the
``skcalib report`` command line tool prints that table for a file of saved predictions or
for a built-in demo (``skcalib report --demo``).  Plotting is optional and imports
matplotlib only when asked.
"""

from ._html import write_html
from ._report import CalibrationReport, MetricColumn, calibration_report

__all__ = ["CalibrationReport", "MetricColumn", "calibration_report", "write_html"]
