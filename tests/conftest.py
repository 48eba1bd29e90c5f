"""Fixtures shared by the test packages."""

import pytest

from tests.utils.array_api_cases import array_api_dispatch


@pytest.fixture
def dispatch(monkeypatch):
    """scikit-learn's ``array_api_dispatch=True`` (with ``SCIPY_ARRAY_API=1``), or a skip
    where this scikit-learn cannot dispatch (1.6 and 1.7 need array-api-compat)."""
    with array_api_dispatch(monkeypatch):
        yield
