"""numpydoc validation of the docstring of every public object of skcalib.

In the style of scikit-learn's ``sklearn/tests/test_docstrings.py``: every public name
(the ``__all__`` of each public package) and every public method and property of a
public class is validated with :func:`numpydoc.validate.validate`; any error outside
``EXCLUDED_CHECKS`` fails the test, with the list of messages.
"""

import importlib
import inspect

import pytest

numpydoc_validation = pytest.importorskip("numpydoc.validate")

#: public packages whose ``__all__`` is walked
PUBLIC_MODULES = [
    "skcalib",
    "skcalib.metrics",
    "skcalib.compat.uncertainty_metrics",
    "skcalib.report",
    "skcalib.utils",
    "skcalib.display",
    "skcalib.recalibration",
]

#: numpydoc checks that are *not* enforced, each with its reason
EXCLUDED_CHECKS = {
    # an extended summary is welcome but not required of a short helper
    "ES01": "extended summary is optional",
    # cross references are given in the text where they help
    "SA01": "a See Also section is optional",
    # capitalisation and final period of parameter and return descriptions: many
    # descriptions start with a code literal (``None``, ``y_true``) or end with one
    "PR08": "descriptions may start with a code literal",
    "PR09": "descriptions may end with a code literal or a formula",
    "RT04": "return descriptions may start with a code literal",
    "RT05": "return descriptions may end with a code literal or a formula",
    # several of our Returns sections name the value ("result : Bunch"), which numpydoc
    # accepts in its own format but RT02 flags
    "RT02": "the first line of Returns may name the value",
    # generators do not exist in the public API
    "YD01": "no public generators",
}

#: checks not enforced for methods and properties (functions and classes must have
#: a runnable Examples section)
EXCLUDED_FOR_MEMBERS = {
    "EX01": "methods and properties are shown in their class's Examples",
}


def _public_members(cls):
    """Public methods and properties defined by ``cls`` itself (not inherited)."""
    for name, attr in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(attr, property) or inspect.isfunction(attr):
            yield name
        elif isinstance(attr, classmethod | staticmethod):
            yield name


def _public_objects():
    seen = set()
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue  # sub-packages are walked themselves; constants have no docstring
            path = f"{modname}.{name}"
            key = id(obj)
            if key in seen:
                continue  # the same object re-exported (aliases keep one entry)
            seen.add(key)
            yield path, False
            if inspect.isclass(obj):
                for member in _public_members(obj):
                    yield f"{path}.{member}", True


PUBLIC_OBJECTS = list(_public_objects())


def test_public_objects_found():
    paths = {p for p, _ in PUBLIC_OBJECTS}
    assert "skcalib.metrics.brier_score" in paths
    assert "skcalib.report.CalibrationReport.to_string" in paths
    assert "skcalib.compat.uncertainty_metrics.gce" in paths


def _errors(path, is_member):
    result = numpydoc_validation.validate(path)
    excluded = set(EXCLUDED_CHECKS) | (set(EXCLUDED_FOR_MEMBERS) if is_member else set())
    return [f"{code}: {msg}" for code, msg in result["errors"] if code not in excluded]


@pytest.mark.parametrize("path, is_member", PUBLIC_OBJECTS, ids=[p for p, _ in PUBLIC_OBJECTS])
def test_docstring(path, is_member):
    errors = _errors(path, is_member)
    assert not errors, f"{path}:\n  " + "\n  ".join(errors)
