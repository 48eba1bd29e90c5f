"""Reports of Parquet predictions computed on a Dask cluster (``--scheduler``, ``--dask``).

The work of the streamed report, spread over the workers by :mod:`skcalib.dask`: one
task per row group reads it (``ParquetFile.iter_batches``, the batches of
:func:`~skcalib.report._stream.batch_rows` rows) and accumulates its batches as the
streamed report does (:func:`~skcalib.report._stream.accumulate_batches`), and Dask's
tree reduction merges the accumulators of the row groups in file order, so that only
the root reaches the client.  The numbers are the streamed report's up to the order of
floating-point additions.  The client reads the files' metadata (the row groups); the
labels (a pass over the label column, which the streamed reader needs to encode them)
and the predictions are read by the workers only.
"""

from __future__ import annotations

import contextlib
import copy
import functools

from ..dask._reduce import reduce_items
from ._io import PredictionsFileError, _one_line
from ._stream import (
    _add_accumulator,
    _distinct_labels,
    _files,
    _open,
    _pyarrow,
    _row_group_batches,
    _sorted_labels,
    accumulate_batches,
    batch_rows,
    make_spec,
    open_dataset,
    report_from_accumulators,
)

__all__ = ["dask_report"]

#: seconds to wait for the scheduler at ``--scheduler ADDRESS``
CONNECT_TIMEOUT = 30


def _pieces(dataset):
    """``(path, file system, partition values, name, row group, first row, rows)`` of
    every row group of a dataset, in file order (the files' metadata only)."""
    pieces = []
    for path, filesystem, keys, where in _files(dataset):
        meta = _open(path, filesystem).metadata
        offset = 0
        for rg in range(meta.num_row_groups):
            n_rows = meta.row_group(rg).num_rows
            pieces.append((path, filesystem, keys, where, rg, offset, n_rows))
            offset += n_rows
    return pieces


def _piece_batches(piece, columns, rows):
    path, filesystem, keys, where, rg, offset, _ = piece
    return _row_group_batches(_open(path, filesystem), rg, columns, keys, rows, where, offset)


@contextlib.contextmanager
def _arrow_errors():
    """pyarrow's errors, as the streamed report words them."""
    pa, _, _ = _pyarrow()
    try:
        yield
    except pa.ArrowException as exc:
        raise PredictionsFileError(f"not a readable Parquet dataset: {_one_line(exc)}") from exc


def _piece_labels(piece, label_col, rows):
    """The distinct labels of a row group (a task)."""
    pa, pc, _ = _pyarrow()
    with _arrow_errors():
        return _distinct_labels(pa, pc, _piece_batches(piece, [label_col], rows))


def _merge_labels(parts):
    """The distinct labels of the distinct labels of some row groups (None: no rows)."""
    pa, pc, _ = _pyarrow()
    parts = [u for u in parts if u is not None]
    if not parts:
        return None
    return pc.unique(pa.concat_arrays([u.cast(parts[0].type) for u in parts]))


def _piece_accumulators(piece, spec, rows):
    """``{group: accumulator}`` of a row group, its batches merged in order (a task)."""
    with _arrow_errors():
        return accumulate_batches(_piece_batches(piece, spec.read, rows), spec)


def _merge_accumulators(parts):
    """``{group: accumulator}`` of the results of consecutive row groups (in order: the
    groups keep their order of first appearance); the inputs are left unchanged."""
    out = {}
    for part in parts:
        for name, acc in part.items():
            _add_accumulator(out, name, acc if name in out else copy.copy(acc))
    return out


def _connect(scheduler):
    """A ``distributed.Client`` (and the LocalCluster it owns, or None)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise PredictionsFileError(
            "--scheduler and --dask need dask and distributed: pip install 'skcalib[dask]'"
        ) from exc
    if scheduler is None:
        cluster = LocalCluster(processes=True, dashboard_address=None)
        return Client(cluster, set_as_default=False), cluster
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, ValueError, TypeError) as exc:
        raise PredictionsFileError(
            f"cannot connect to the Dask scheduler at {scheduler!r}: {_one_line(exc)}"
        ) from exc
    return client, None


def dask_report(
    path,
    *,
    scheduler=None,
    label_col=None,
    proba_cols=None,
    model_col=None,
    by=(),
    labels=None,
    renormalize=False,
    n_bins=15,
    progress=None,
):
    """The report of a Parquet file, directory or glob, computed on a Dask cluster.

    Parameters
    ----------
    path : str
        The dataset, readable by the workers (a shared file system or object store).
    scheduler : str, default=None
        Address of the scheduler (``tcp://host:8786``); None starts a local cluster of
        one worker process per core for the duration of the call.
    label_col, proba_cols, model_col, by, labels, renormalize, n_bins, progress
        As :func:`~skcalib.report._stream.stream_report` (the progress is told the rows
        of each row group when its accumulators are computed).

    Returns
    -------
    CalibrationReport
    """
    dataset, title = open_dataset(path)
    label_col = "y" if label_col is None else label_col
    with _arrow_errors():
        pieces = _pieces(dataset)
    if progress is not None:
        progress.total = sum(piece[-1] for piece in pieces)
    done = None if progress is None else (lambda i: progress.update(pieces[i][-1]))
    client, cluster = _connect(scheduler)
    try:
        present = None
        if labels is None and label_col in dataset.schema.names:
            rows = batch_rows(dataset.schema, [label_col])
            leaf = functools.partial(_piece_labels, label_col=label_col, rows=rows)
            present = _sorted_labels([reduce_items(pieces, leaf, _merge_labels, client=client)])
        spec = make_spec(
            dataset,
            label_col=label_col,
            proba_cols=proba_cols,
            model_col=model_col,
            by=by,
            labels=labels,
            renormalize=renormalize,
            n_bins=n_bins,
            present=present,
        )
        rows = batch_rows(dataset.schema, spec.read)
        leaf = functools.partial(_piece_accumulators, spec=spec, rows=rows)
        accs = reduce_items(pieces, leaf, _merge_accumulators, client=client, done=done)
    finally:
        if progress is not None:
            progress.close()
        client.close()
        if cluster is not None:
            cluster.close()
    if not accs:
        raise PredictionsFileError("the dataset has no rows")
    return report_from_accumulators(accs, n_bins=n_bins, title=title, classes=spec.classes)
