"""The ``skcalib report`` command: argument parsing, running and writing the outputs."""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import sys

import numpy as np

from ._io import PredictionsFileError, open_table, read_npz, renormalize
from ._progress import Progress
from ._report import calibration_report
from ._stream import TableReport

__all__ = ["add_report_parser", "run_report"]

CSV_NAME = "calibration_report.csv"
JSON_NAME = "calibration_report.json"

DESCRIPTION = """\
Print a table of accuracy and calibration metrics (ECE, MCE, RMSCE, SCE for more than two
classes, Brier score, negative log-likelihood) of saved predictions, or of three classifiers
fitted on datasets that ship with scikit-learn (--demo, works offline).

Files are written only when --out DIR is given: DIR/calibration_report.csv (one row per
model), DIR/calibration_report.json (the rows plus the reliability-curve data) and
DIR/reliability_<name>.png (reliability diagrams, one panel per model; skipped with a note
when matplotlib is not installed).  Without --out nothing is written.
"""

EPILOG = """\
predictions file formats:
  .csv / .parquet  one row per sample: a label column (--label-col, default "y") and one
                   probability column per class, named by the class ("0", "1", ... or
                   "cat", "dog", ...).  A binary problem may give a single column named after
                   its positive class (or any one column, with --proba-cols, for labels 0/1).
                   Every other numeric column is a probability column unless
                   --proba-cols lists them; --model-col names a column holding the model of
                   each row, to compare several models stored in one file.  Read with
                   pyarrow (pip install 'skcalib[parquet]'): files, directories, globs.
  .npz             arrays y_true (n_samples,) and y_proba ((n_samples,) or
                   (n_samples, n_classes)), optionally labels (classes in column order).
  regression       .csv / .parquet with the observed value in the label column and
                   'mean'/'std', 'q0.05', 'q0.5', ... or 'lower'/'upper' columns (see
                   the regression options above).

exit status: 0 on success, 2 for a bad command line or an unusable predictions file (one
line on stderr starting with "skcalib: error:").

examples:
  skcalib report --demo
  skcalib report predictions.csv --label-col target --out results/
  skcalib report regression.parquet --regression --by region --html report.html
"""


def _int_at_least(minimum, what):
    """An argparse type: an integer ``>= minimum``, described as ``what`` in errors."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1, "a positive integer")
_seed = _int_at_least(0, "an integer >= 0")


def add_report_parser(subparsers):
    """Add the ``report`` sub-command to an argparse sub-parser collection."""
    p = subparsers.add_parser(
        "report",
        help="print accuracy and calibration metrics of saved predictions (or --demo)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "predictions",
        nargs="?",
        metavar="PREDICTIONS",
        help="predictions: a .csv, .parquet or .npz file, a directory of .parquet files "
        "or a glob (quoted: 'preds/*.parquet')",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="fit three classifiers on bundled scikit-learn datasets (offline) "
        "and report their test-split predictions",
    )
    p.add_argument(
        "--label-col",
        metavar="COL",
        default=None,
        help='label column of a .csv/.parquet file (default: "y")',
    )
    p.add_argument(
        "--proba-cols",
        metavar="A,B,...",
        default=None,
        help="comma-separated probability columns, named by class (default: every "
        "numeric column except the label, model and --by columns); one column of any "
        "name is P(class 1) of labels 0/1",
    )
    p.add_argument(
        "--model-col",
        metavar="COL",
        default=None,
        help="column naming the model of each row (several models in one file)",
    )
    p.add_argument(
        "--by",
        metavar="COL",
        action="append",
        default=None,
        help="report one row per value of COL (within each model; a missing value is a "
        "group of its own), sorted, then the overall row; repeat or give A,B for several "
        "columns",
    )
    p.add_argument(
        "--labels",
        metavar="A,B,...",
        default=None,
        help="the classes: a label outside the list is an error",
    )
    p.add_argument(
        "--sep",
        metavar="S",
        default=None,
        help="separator of a .csv file: ',', ';' or '\\t' (tab) (default: detected "
        "from the first lines)",
    )
    p.add_argument(
        "--n-bins",
        metavar="N",
        type=_positive_int,
        default=15,
        help="number of bins of the binned metrics (default: 15), and the most bins of "
        "a reliability diagram (see --strategy)",
    )
    p.add_argument(
        "--renormalize",
        action="store_true",
        help="divide each probability row by its sum (for probabilities rounded "
        "when saved; sums further than 0.01 from 1 are still an error)",
    )
    p.add_argument(
        "--digits",
        metavar="D",
        type=_positive_int,
        default=4,
        help="digits after the decimal point in the printed table (default: 4)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="directory for calibration_report.csv/.json and the reliability "
        "diagram PNGs (created if needed); without it nothing is written",
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        default=None,
        help="write one self-contained HTML page (tables with bootstrap intervals, score "
        "decompositions, calibration tests, reliability diagrams, rejection curves, a "
        "cross-fitted recalibration preview, provenance; one section per --by group; no "
        "script, nothing from the network)",
    )
    p.add_argument(
        "--strategy",
        choices=("quantile", "uniform"),
        default="quantile",
        help="bins of the reliability diagrams (PNG and HTML): 'quantile' (equal-mass, "
        "every bin has data; default) or 'uniform' (equal-width); min(--n-bins, max(5, "
        "n // 50)) bins of in-memory predictions (streamed data: the --n-bins "
        "equal-width bins)",
    )
    p.add_argument(
        "--intervals",
        choices=("wilson", "clopper_pearson", "none"),
        default="wilson",
        help="95%% interval of each bin's observed frequency in the reliability "
        "diagrams (default: wilson)",
    )
    p.add_argument(
        "--classwise",
        action="store_true",
        help="add class-wise reliability diagrams (one panel per class) for each model",
    )
    p.add_argument(
        "--seed",
        metavar="N",
        type=_seed,
        default=0,
        help="seed of the bootstrap intervals and of the folds of the recalibration "
        "preview of the HTML page (default: 0)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="compute the report of a Parquet dataset on the Dask cluster of this scheduler "
        "(e.g. tcp://host:8786); the workers read the files (needs skcalib[dask])",
    )
    p.add_argument(
        "--dask",
        action="store_true",
        help="compute the report of a Parquet dataset on a local Dask cluster started for "
        "it, one worker process per core (needs skcalib[dask])",
    )
    _add_regression_options(p)
    p.set_defaults(func=run_report, _parser=p)
    return p


def _coverage(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a coverage in (0, 1), got {text!r}")
    return value


def _add_regression_options(p):
    g = p.add_argument_group(
        "regression predictions",
        "a table of observed values (the label column) and predictive distributions: "
        "'mean' and 'std' columns (Normal), quantile columns 'q0.05', 'q0.5', ... or "
        "'lower' and 'upper' interval columns; detected from the column names when "
        "unambiguous",
    )
    g.add_argument(
        "--regression",
        action="store_true",
        help="report CRPS, log score, miscalibration area, interval coverage and width, "
        "sharpness and ENCE of regression predictions",
    )
    g.add_argument(
        "--mean-col",
        metavar="COL",
        default=None,
        help='mean column of Normal predictions (default: "mean")',
    )
    g.add_argument(
        "--std-col",
        metavar="COL",
        default=None,
        help='standard-deviation column of Normal predictions (default: "std")',
    )
    g.add_argument(
        "--quantile-cols",
        metavar="A,B,...",
        default=None,
        help="quantile columns, each named by its level ('q0.05' or '0.05')",
    )
    g.add_argument(
        "--interval-cols",
        metavar="LOWER,UPPER",
        default=None,
        help="lower and upper bounds of central prediction intervals (with --coverage)",
    )
    g.add_argument("--coverage", metavar="C", type=_coverage, default=None,
                   help="nominal coverage of the interval columns, e.g. 0.9")  # fmt: skip


def _error(message, stream=None):
    stream = sys.stderr if stream is None else stream
    print("skcalib: error: " + " ".join(str(message).split()), file=stream)
    return 2


def run_report(args):
    """Run ``skcalib report`` for parsed arguments; return the exit status."""
    if args.demo and args.predictions is not None:
        args._parser.error("give either a predictions file or --demo, not both")
    if args.demo and args.regression:
        args._parser.error("--demo reports classifiers; --regression needs a predictions file")
    if not args.demo and args.predictions is None:
        args._parser.error(
            "give a predictions file (.csv, .parquet, .npz), a directory of .parquet files, "
            "a glob, or --demo"
        )

    if args.demo:
        from ._demo import demo_predictions

        demo = demo_predictions()
        reports = [
            calibration_report(y, proba, n_bins=args.n_bins, title=title)
            for title, y, proba in demo
        ]
        args._html_inputs = [{"y_true": y, "y_proba": proba} for _, y, proba in demo]
        print(
            "skcalib report --demo: three classifiers fitted on 75% of two datasets that "
            "ship with scikit-learn,\nevaluated on the other 25%.\n"
        )
    else:
        from ._regression import run_regression_report, wants_regression

        if wants_regression(args):
            return run_regression_report(args, error=_error, message=_message, slug=_slug)
        src = args.predictions
        proba_cols = None
        if args.proba_cols is not None:
            proba_cols = [c.strip() for c in args.proba_cols.split(",") if c.strip()]
        try:
            reports = _file_reports(src, args, proba_cols)
        except (ValueError, OSError) as exc:
            msg = _message(exc)
            if "sum to 1" in msg and not args.renormalize:
                msg += " (if the probabilities were rounded when saved, add --renormalize)"
            return _error(f"{src}: {msg}")

    print("\n\n".join(r.to_string(digits=args.digits) for r in reports))
    if args.out is not None:
        try:
            written, note = write_outputs(
                reports,
                args.out,
                inputs=getattr(args, "_html_inputs", None),
                strategy=args.strategy,
                intervals=args.intervals,
                classwise=args.classwise,
            )
        except OSError as exc:
            return _error(f"cannot write to {args.out!r}: {_message(exc)}")
        print()
        for path in written:
            print(f"wrote {path}")
        if note:
            print(f"skcalib: note: {note}", file=sys.stderr)
    if args.html is not None:
        return _write_html(reports, args)
    return 0


def _write_html(reports, args):
    from ..display._base import has_matplotlib
    from ._html import command_line, write_html

    if not has_matplotlib():
        return _error("--html needs matplotlib (pip install matplotlib)")
    inputs = getattr(args, "_html_inputs", None)
    source = "--demo: scikit-learn's breast_cancer and digits" if args.demo else args.predictions
    if args.by and args.model_col is not None:  # the model column names the rows of a group
        by = _split(args.by)
        for r in reports:
            r.group_columns = by
    try:
        os.makedirs(os.path.dirname(os.path.abspath(args.html)), exist_ok=True)
        write_html(
            reports,
            args.html,
            inputs=inputs,
            source=source,
            command=command_line(args),
            digits=args.digits,
            strategy=args.strategy,
            intervals=args.intervals,
            classwise=args.classwise,
            random_state=args.seed,
        )
    except OSError as exc:
        return _error(f"cannot write to {args.html!r}: {_message(exc)}")
    print(f"wrote {args.html}")
    return 0


def _split(values):
    out = []
    for v in values or ():
        out += [c.strip() for c in v.split(",") if c.strip()]
    return out


def _file_reports(src, args, proba_cols):
    """The report of a predictions file, directory or glob (a list of one report)."""
    by = _split(args.by)
    labels = _split([args.labels]) if args.labels is not None else None
    if args.scheduler is not None and args.dask:
        raise PredictionsFileError("give either --scheduler ADDRESS or --dask, not both")
    if os.path.splitext(os.fspath(src))[1].lower() == ".npz" and os.path.isfile(src):
        return [_npz_report(src, args, by, labels)]
    if args.scheduler is not None or args.dask:
        from ._dask import dask_report

        if args.sep is not None:
            raise PredictionsFileError("--sep applies to .csv files, not to Parquet files")
        return [
            dask_report(src, scheduler=args.scheduler, label_col=args.label_col,
                        proba_cols=proba_cols, model_col=args.model_col, by=by, labels=labels,
                        renormalize=args.renormalize, n_bins=args.n_bins, progress=Progress())
        ]  # fmt: skip
    table = open_table(src, sep=args.sep)
    # the rows of one CSV file are kept for the figures of in-memory predictions
    keep = table.fmt == "csv" and len(table.dataset.files) == 1
    keep = keep and (args.out is not None or args.html is not None)
    run = TableReport(table, label_col=args.label_col, proba_cols=proba_cols,
                      model_col=args.model_col, by=by, labels=labels,
                      renormalize=args.renormalize, n_bins=args.n_bins, keep_rows=keep)  # fmt: skip
    progress = Progress(total=table.dataset.count_rows() if table.fmt == "parquet" else None)
    try:
        run.run(progress)
    finally:
        progress.close()
    report = run.report()
    if keep:
        args._html_inputs = [run.inputs(report)]
    return [report]


def _npz_report(src, args, by, labels):
    for opt, val in (("--label-col", args.label_col), ("--proba-cols", args.proba_cols),
                     ("--model-col", args.model_col), ("--by", by or None), ("--labels", labels),
                     ("--sep", args.sep)):  # fmt: skip
        if val is not None:
            what = (
                "--sep applies to .csv files"
                if opt == "--sep"
                else (f"{opt} applies to .csv and .parquet tables")
            )
            raise PredictionsFileError(
                f"{what}, not to .npz files (which hold arrays y_true, y_proba and "
                "optionally labels)"
            )
    y, P, file_labels = read_npz(src)
    if args.renormalize:
        P = renormalize(np.asarray(P, dtype=np.float64))
    title = os.path.splitext(os.path.basename(src))[0]
    report = calibration_report(y, P, n_bins=args.n_bins, labels=file_labels, title=title)
    args._html_inputs = [{"y_true": y, "y_proba": P, "labels": file_labels}]
    return report


def _message(exc):
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename!r}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    return str(exc) or type(exc).__name__


def _slug(title, used):
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", title or "report").strip("_.") or "report"
    slug, i = base, 2
    while slug in used:
        slug, i = f"{base}_{i}", i + 1
    used.add(slug)
    return slug


def _csv_value(v):
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def write_outputs(
    reports, out_dir, *, inputs=None, strategy="quantile", intervals="wilson", classwise=False
):
    """Write the CSV, JSON and PNG files; return (written paths, note or None).

    The PNG files hold the reliability diagrams of :func:`save_reliability_diagram`
    (``inputs``: the predictions of each report, or None).
    """
    os.makedirs(out_dir, exist_ok=True)
    written = []
    keys = []
    for r in reports:
        keys += [c.key for c in r.columns if c.key not in keys]
    csv_path = os.path.join(out_dir, CSV_NAME)
    with open(csv_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["report", "model", "n_samples", *keys])
        for r in reports:
            for row in r.rows():
                w.writerow(
                    [
                        r.title or "",
                        row["model"],
                        row["n_samples"],
                        *(_csv_value(row.get(k, float("nan"))) for k in keys),
                    ]
                )
    written.append(csv_path)

    json_path = os.path.join(out_dir, JSON_NAME)
    from .. import __version__

    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(
            {"skcalib_version": __version__, "reports": [r.to_dict() for r in reports]},
            f,
            indent=1,
            allow_nan=False,
        )
    written.append(json_path)

    from ..display._base import has_matplotlib

    if not has_matplotlib():
        return written, (
            "matplotlib is not installed, so no reliability diagram was drawn "
            "(pip install matplotlib)"
        )
    from ._figures import classwise_figure

    if inputs is None:
        inputs = [None] * len(reports)
    used = set()
    for r, inp in zip(reports, inputs, strict=True):
        slug = _slug(r.title, used)
        path = os.path.join(out_dir, f"reliability_{slug}.png")
        save_reliability_diagram(r, path, inputs=inp, strategy=strategy, intervals=intervals)
        written.append(path)
        if classwise and (inp is not None or getattr(r, "_accumulators", None) is not None):
            model_slugs = set()
            for m in r.models:
                name = f"reliability_{slug}_{_slug(m, model_slugs)}_classwise.png"
                path = os.path.join(out_dir, name)
                fig, _ = classwise_figure(r, inp, m, strategy=strategy, interval=intervals)
                fig.savefig(path, dpi=100)
                written.append(path)
    return written, None


def save_reliability_diagram(report, path, *, inputs=None, strategy="quantile", intervals="wilson"):
    """Save the reliability diagrams of a report as a PNG: one panel per model.

    Each panel (:class:`~skcalib.display.ReliabilityDisplay`, on a
    :class:`matplotlib.figure.Figure` made directly: no pyplot, no GUI backend) has its
    per-bin intervals and the bin counts below; ``inputs`` are the predictions (binned
    with ``strategy``), else the report's accumulators or curves (equal-width bins).
    """
    from ._figures import reliability_figure

    fig, _ = reliability_figure(report, inputs, strategy=strategy, interval=intervals)
    fig.savefig(path, dpi=100)
