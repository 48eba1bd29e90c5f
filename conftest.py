"""Repository-wide pytest configuration."""

import os

import scipy.stats  # noqa: F401  (scipy reads SCIPY_ARRAY_API once, when first imported)
from hypothesis import settings

# scikit-learn 1.6 and 1.7 probe array API dispatch when ``sklearn.utils._testing`` is
# first imported (``sklearn.utils.estimator_checks`` imports it) and raise a RuntimeError,
# not the ImportError they catch, when array-api-compat is installed and SCIPY_ARRAY_API is
# unset.  The variable is set for that import only; scipy, imported above, keeps its
# default behaviour, and the array API tests set the variable themselves.
_scipy_array_api = os.environ.get("SCIPY_ARRAY_API")
os.environ["SCIPY_ARRAY_API"] = "1"
try:
    import sklearn.utils._testing  # noqa: F401
finally:
    if _scipy_array_api is None:
        del os.environ["SCIPY_ARRAY_API"]
    else:
        os.environ["SCIPY_ARRAY_API"] = _scipy_array_api

# CI runs are deterministic (the same examples every run); local runs explore new ones.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    # matplotlib, when tests use it, must never open a window
    os.environ.setdefault("MPLBACKEND", "Agg")
