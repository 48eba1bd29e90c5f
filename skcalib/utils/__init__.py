"""skcalib.utils: the scikit-learn compatibility layer (the bottom layer of skcalib)."""

from ._sklearn_compat import SklearnCompatibilityWarning

__all__ = ["SklearnCompatibilityWarning"]
