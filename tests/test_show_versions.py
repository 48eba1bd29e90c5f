"""skcalib.show_versions() and ``skcalib --version``: versions and where skcalib is."""

import pathlib
import subprocess
import sys

import pytest

import skcalib
from skcalib.__main__ import main


def test_show_versions_sections(capsys):
    skcalib.show_versions()
    out = capsys.readouterr().out
    for line in ("System:", "skcalib:", "Dependencies:", "numpy:", "scikit-learn:"):
        assert line in out
    assert f"version: {skcalib.__version__}" in out
    # the copy that was imported (a source checkout or an installed package)
    location = str(pathlib.Path(skcalib.__file__).resolve().parent)
    assert f"location: {location}" in out


def test_version_option(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"skcalib {skcalib.__version__}"


def test_show_versions_does_not_import_matplotlib():
    code = "import sys, skcalib; skcalib.show_versions(); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "matplotlib: " in out.stdout  # its version is read from the metadata
    assert out.stdout.strip().splitlines()[-1] == "False"
