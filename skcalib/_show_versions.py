"""``skcalib.show_versions()``: what to paste into a bug report."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

__all__ = ["show_versions"]

#: the dependencies whose versions are reported (optional ones say "not installed")
DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "matplotlib", "pandas")


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
        "skcalib": {"version": __version__, "location": _location()},
        "Dependencies": {name: _version(name) for name in DEPENDENCIES},
    }


def _location():
    """The folder skcalib is imported from (an installed copy or a source checkout)."""
    from pathlib import Path

    return str(Path(__file__).resolve().parent)


def show_versions():
    """Print the versions of Python, skcalib and its dependencies.

    Paste the output into a bug report.  The ``location`` line says which copy of
    skcalib was imported.  The versions are read from the installed packages' metadata,
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
      location: ...
    """
    for section, items in versions().items():
        width = max(len(key) for key in items)
        print(f"\n{section}:")
        for key, value in items.items():
            print(f"{key:>{width + 2}}: {value}")
