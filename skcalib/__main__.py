"""The ``skcalib`` command line: ``skcalib report [PREDICTIONS] [--demo] [--out DIR]``.

Also runs as ``python -m skcalib``.  ``main`` returns the exit status (0 success, 2 bad
command line or unusable predictions file) instead of exiting, so it can be called from
Python: ``main(["report", "--demo"])``.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["main"]


def build_parser():
    """The argument parser of the ``skcalib`` command."""
    from . import __version__
    from .report._cli import add_report_parser

    parser = argparse.ArgumentParser(
        prog="skcalib",
        description="Calibration and uncertainty metrics for scikit-learn models.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"skcalib {__version__}",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_report_parser(sub)
    return parser


def main(argv=None):
    """Run the ``skcalib`` command with ``argv`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.  Argument errors, ``--help`` and ``--version`` raise
        ``SystemExit`` as argparse does.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.func(args)
    except BrokenPipeError:
        # the output was piped into a program that stopped reading (``| head``): stop
        # quietly, as Python's documentation of SIGPIPE recommends
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
