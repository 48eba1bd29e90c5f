"""skcalib: calibration and uncertainty metrics for scikit-learn.

Tells whether the probabilities a model outputs can be trusted, and fixes them when they
cannot.  ``import skcalib`` never imports matplotlib.
"""

from . import metrics

__version__ = "0.1.0.dev0"

__all__ = ["metrics", "__version__"]
