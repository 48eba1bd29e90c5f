"""skcalib: calibration and uncertainty metrics for scikit-learn.

Tells whether the probabilities a model outputs can be trusted, and fixes them when they
cannot.  ``import skcalib`` never imports matplotlib.
"""

from . import metrics
from ._show_versions import show_versions


def _register_scorers():
    # Makes scoring="ece" (and every name of skcalib.metrics.get_scorer_names()) work in
    # scikit-learn by adding the names to its registry and to the name sets of its
    # ``scoring`` parameters, nothing else; skcalib.metrics.unregister_scorers() undoes
    # it exactly.  SKCALIB_REGISTER_SCORERS=0 skips it, for applications that must not
    # touch scikit-learn's registry.  Never breaks the import (register_scorers warns
    # once instead where scikit-learn's registry is not where skcalib expects it).
    try:
        from .metrics._registration import register_scorers, scorer_registration_enabled

        if scorer_registration_enabled():
            register_scorers()
    except Exception as exc:  # pragma: no cover - register_scorers itself never raises
        import warnings

        warnings.warn(
            f"skcalib could not register its scorer names with scikit-learn ({exc}); pass "
            "skcalib.metrics.get_scorer(name) as scoring instead of the name",
            UserWarning,
            stacklevel=2,
        )


_register_scorers()
del _register_scorers

# the one place the version is written: pyproject.toml reads this literal at build time
__version__ = "0.1.0.dev0"

__all__ = ["metrics", "show_versions", "__version__"]
