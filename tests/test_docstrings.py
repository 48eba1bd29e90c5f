"""numpydoc validation of the docstring of every public object of skcalib.

In the style of scikit-learn's ``sklearn/tests/test_docstrings.py``: every public name
(the ``__all__`` of each public package) and every public method and property of a
public class is validated with :func:`numpydoc.validate.validate`; any error outside
``EXCLUDED_CHECKS`` fails the test, with the list of messages.

numpydoc is required, never skipped: it is in the ``test`` extra that the README's test
command installs (with hypothesis, which the suite needs as well), so a run without it is
a broken set-up, and a skip would let CI pass without validating a single docstring.  A
missing numpydoc is a collection error that names the package to install, in CI and
everywhere else alike (no dependence on a ``CI`` variable that not every CI sets).
"""

import importlib
import inspect
import os
import pathlib
import subprocess
import sys

import pytest

try:
    import numpydoc.validate as numpydoc_validation
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test below
    raise ImportError(
        "tests/test_docstrings.py needs numpydoc to validate the docstrings; install the "
        f'test extra: pip install -e ".[test]" ({exc})'
    ) from exc

#: public packages whose ``__all__`` is walked
PUBLIC_MODULES = [
    "skcalib",
    "skcalib.metrics",
    "skcalib.compat.uncertainty_metrics",
    "skcalib.report",
    "skcalib.utils",
    "skcalib.display",
    "skcalib.recalibration",
    "skcalib.streaming",
    "skcalib.dask",
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


def test_missing_numpydoc_fails_instead_of_skipping(tmp_path):
    # a numpydoc that cannot be imported, first on the path: the module must not be
    # skipped (a skip passes CI without validating anything) but fail, naming numpydoc
    fake = tmp_path / "numpydoc"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named numpydoc", name="numpydoc")\n'
    )
    root = pathlib.Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)])}
    env.pop("CI", None)  # not only in CI
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            str(root / "tests" / "test_docstrings.py"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        env=env,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out[-3000:]
    assert "skipped" not in out, out[-3000:]
    assert "needs numpydoc" in out and 'pip install -e ".[test]"' in out, out[-3000:]
