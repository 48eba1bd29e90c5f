"""skcalib.compat: reproduce the numbers of other uncertainty libraries.

These modules mirror the signatures, defaults and (documented) quirks of reference
systems so that numbers published with them can be reproduced exactly.  They are not
skcalib's recommended definitions: use :mod:`skcalib.metrics` for new work.  The
differences are listed in ``doc/compat.rst``.

* :mod:`skcalib.compat.uncertainty_metrics`: the calibration errors of Google's
  ``uncertainty_metrics`` 0.0.82 and every other public name of its NumPy and
  TensorFlow backends (streaming metrics, scoring rules, ensembles, SPCE/CCE, plots),
  in NumPy.

tensorflow-probability's ``tfp.stats.expected_calibration_error_quantiles`` is available
as :func:`skcalib.metrics.expected_calibration_error_quantiles`.
"""

from . import uncertainty_metrics

__all__ = ["uncertainty_metrics"]
