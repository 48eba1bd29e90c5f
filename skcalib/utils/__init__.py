"""skcalib.utils: helpers, including the scikit-learn compatibility layer."""

from ._sklearn_compat import (
    SklearnCompatibilityWarning,
    register_scorers,
    unregister_scorers,
)

__all__ = ["SklearnCompatibilityWarning", "register_scorers", "unregister_scorers"]
