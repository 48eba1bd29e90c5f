"""Reports of Parquet predictions computed on a Dask cluster (``--scheduler``, ``--dask``).

The streamed report's reader, spread over the workers by :mod:`skcalib.dask`: one task
per row group reads it (:meth:`~skcalib.report._io.Table.batches` on that row group) and
runs :class:`~skcalib.report._stream.TableReport` on its batches, which gives the
statistics of every group of the row group (one group axis), the group keys and the
labels it met.  Dask's tree reduction merges these states in file order -- the
statistics added at the places of their keys in the union of the keys, the labels
joined -- and only the root reaches the client, which turns it into the report as the
streamed command does.  The numbers are the streamed report's up to the order of
floating-point additions.  The client reads the files' metadata (the row groups) only.
"""

from __future__ import annotations

import contextlib
import functools
import os

from ..dask._reduce import merge_grouped, reduce_items
from ._io import BATCH_ROWS, PredictionsFileError, Table, _pyarrow, one_line, open_table
from ._stream import TableReport

__all__ = ["dask_report"]

#: seconds to wait for the scheduler at ``--scheduler ADDRESS``
CONNECT_TIMEOUT = 30


class _RowGroupTable(Table):
    """One row group of a Parquet dataset, read as a table (the input of a task).

    Its rows are numbered as rows of their file, so that messages name the row of the
    file.
    """

    def __init__(self, table, fragment, first_row, n_rows):
        ds = _pyarrow()[3]
        dataset = ds.FileSystemDataset(
            [fragment], table.dataset.schema, table.dataset.format, fragment.filesystem
        )
        super().__init__(dataset, table.title, table.fmt, table.names)
        self.fragment, self.first_row, self.n_rows = fragment, first_row, n_rows

    def batches(self, columns, *, text=(), floats=(), rows=BATCH_ROWS):
        """``(batch, (file name, first row in the file))`` of the row group, as
        :meth:`Table.batches` reads a Parquet file."""
        pa, _, _, ds = _pyarrow()
        scanner = ds.Scanner.from_fragment(
            self.fragment,
            schema=self.dataset.schema,
            columns={c: ds.field(c) for c in columns},
            batch_size=rows,
            use_threads=True,
            batch_readahead=1,
            fragment_readahead=0,
        )
        where, offset = os.path.basename(self.fragment.path), self.first_row
        try:
            for batch in scanner.to_batches():
                if batch.num_rows:
                    yield batch, (where, offset)
                    offset += batch.num_rows
        except pa.ArrowInvalid as exc:
            raise PredictionsFileError(f"not a readable table: {one_line(exc)}") from exc


@contextlib.contextmanager
def _arrow_errors():
    """pyarrow's errors while reading the metadata, as the report words them."""
    pa = _pyarrow()[0]
    try:
        yield
    except (OSError, pa.ArrowException) as exc:
        raise PredictionsFileError(f"not a readable Parquet dataset: {one_line(exc)}") from exc


def _row_groups(table):
    """A :class:`_RowGroupTable` for every non-empty row group of a table, in file order
    (the files' metadata only)."""
    pieces = []
    with _arrow_errors():
        for fragment in table.dataset.get_fragments():
            fragment.ensure_complete_metadata()
            first = 0
            for rg in fragment.row_groups:
                if rg.num_rows:
                    part = fragment.subset(row_group_ids=[rg.id])
                    pieces.append(_RowGroupTable(table, part, first, rg.num_rows))
                first += rg.num_rows
    return pieces


# --------------------------------------------------------------------------------------
# the tasks
# --------------------------------------------------------------------------------------


def _state(piece, options):
    """What the reader found in one row group: statistics (one group axis), group keys,
    labels, the class codes and the rows (a task)."""
    run = TableReport(piece, **options).run()
    keys = list(run.groups.keys) if run.groups.columns else None
    return {
        "keys": keys,
        "stats": run.stats,
        "values": dict(run.labels.values),
        "data": run.data,
        "n_rows": run.n_rows,
    }


def _merge_states(states):
    """The state of consecutive row groups (in file order; inputs left unchanged)."""
    states = list(states)
    if not states:
        return None
    keys, stats = merge_grouped([(s["keys"], s["stats"]) for s in states])
    values = {}
    for s in states:
        for k, v in s["values"].items():
            values.setdefault(k, v)
    return {
        "keys": keys,
        "stats": stats,
        "values": values,
        "data": next((s["data"] for s in states if s["data"] is not None), None),
        "n_rows": sum(s["n_rows"] for s in states),
    }


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
            f"cannot connect to the Dask scheduler at {scheduler!r}: {one_line(exc)}"
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
        of each row group when the workers have read it).

    Returns
    -------
    CalibrationReport
    """
    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() == ".csv":
        raise PredictionsFileError("--scheduler and --dask apply to Parquet files and datasets")
    table = open_table(path)
    if table.fmt != "parquet":
        raise PredictionsFileError("--scheduler and --dask apply to Parquet files and datasets")
    options = {
        "label_col": label_col,
        "proba_cols": proba_cols,
        "model_col": model_col,
        "by": by,
        "labels": labels,
        "renormalize": renormalize,
        "n_bins": n_bins,
    }
    run = TableReport(table, **options)  # the columns checked before any task
    pieces = _row_groups(table)
    if progress is not None:
        progress.total = sum(piece.n_rows for piece in pieces)
    done = None if progress is None else (lambda i: progress.update(pieces[i].n_rows))
    client, cluster = _connect(scheduler)
    try:
        leaf = functools.partial(_state, options=options)
        state = reduce_items(pieces, leaf, _merge_states, client=client, done=done)
    finally:
        if progress is not None:
            progress.close()
        client.close()
        if cluster is not None:
            cluster.close()
    if state is None or state["n_rows"] == 0:
        raise PredictionsFileError("the table has no rows")
    # the reader's state, as one pass over every row group would leave it
    run.labels.values = state["values"]
    run.labels._check()  # labels of different row groups that fit no column together
    if state["keys"] is not None:
        run.groups.keys = state["keys"]
        run.groups.index = {k: i for i, k in enumerate(state["keys"])}
    run.stats, run.data, run.n_rows = state["stats"], state["data"], state["n_rows"]
    return run.report()
