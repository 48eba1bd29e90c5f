"""``skcalib.show_versions()``: what to paste into a bug report."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

__all__ = ["show_versions"]

#: the dependencies whose versions are reported (optional ones say "not installed")
DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "matplotlib", "pandas")


def kernels_info():
    """Which implementation of the binning kernels runs: a one-line description."""
    from .metrics import _binning

    if _binning.KERNELS is not None:
        return "compiled"
    if _binning._ckernels is not None:
        return "numpy, SKCALIB_DISABLE_COMPILED is set"
    return "numpy, installed without a C compiler"


def _version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions():
    """The information :func:`show_versions` prints, as a dict of sections."""
    from . import __version__

    return {
        "System": {
            "python": sys.version.replace("\n", " "),
            "executable": sys.executable,
            "machine": platform.platform(),
        },
        "skcalib": {"version": __version__, "binning kernels": kernels_info()},
        "Dependencies": {name: _version(name) for name in DEPENDENCIES},
    }


def show_versions():
    """Print the versions of Python, skcalib and its dependencies, and its build.

    Paste the output into a bug report.  The ``binning kernels`` line says whether the
    calibration metrics run on skcalib's compiled kernels (built when a C compiler was
    there at install time) or on their numpy implementation, which gives the same
    numbers more slowly.  The versions are read from the installed packages' metadata,
    without importing them (matplotlib stays unimported).

    Examples
    --------
    >>> import skcalib
    >>> skcalib.show_versions()  # doctest: +ELLIPSIS
    <BLANKLINE>
    System:
        python: ...
    <BLANKLINE>
    skcalib:
              version: ...
      binning kernels: ...
    """
    for section, items in versions().items():
        width = max(len(key) for key in items)
        print(f"\n{section}:")
        for key, value in items.items():
            print(f"{key:>{width + 2}}: {value}")
