"""skcalib.show_versions() and ``skcalib --version``: versions and the kernels in use."""

import subprocess
import sys

import pytest

import skcalib
from skcalib.__main__ import main
from skcalib.metrics import _binning


def test_show_versions_sections(capsys):
    skcalib.show_versions()
    out = capsys.readouterr().out
    for line in ("System:", "skcalib:", "Dependencies:", "numpy:", "scikit-learn:"):
        assert line in out
    assert f"version: {skcalib.__version__}" in out
    expected = "compiled" if _binning.KERNELS is not None else "numpy"
    assert f"binning kernels: {expected}" in out


def test_show_versions_names_the_numpy_kernels(monkeypatch, capsys):
    monkeypatch.setattr(_binning, "KERNELS", None)
    skcalib.show_versions()
    out = capsys.readouterr().out
    assert "binning kernels: numpy, " in out
    monkeypatch.setattr(_binning, "_ckernels", None)
    skcalib.show_versions()
    assert "binning kernels: numpy, installed without a C compiler" in capsys.readouterr().out


def test_version_option_names_the_kernels(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"skcalib {skcalib.__version__} (binning kernels: ")


def test_show_versions_does_not_import_matplotlib():
    code = "import sys, skcalib; skcalib.show_versions(); print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "matplotlib: " in out.stdout  # its version is read from the metadata
    assert out.stdout.strip().splitlines()[-1] == "False"
