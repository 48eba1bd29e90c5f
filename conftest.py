"""Repository-wide pytest configuration."""

import os

from hypothesis import settings

# CI runs are deterministic (the same examples every run); local runs explore new ones.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_configure(config):
    # matplotlib, when tests use it, must never open a window
    os.environ.setdefault("MPLBACKEND", "Agg")
