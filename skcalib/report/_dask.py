"""Reports of Parquet predictions computed on a Dask cluster (``--scheduler``, ``--dask``).

The dataset is read by the workers with ``dask.dataframe.read_parquet``; each partition
is encoded as in the streamed report (labels to the codes of :func:`make_spec`, the same
range checks, the same group names), and :func:`skcalib.dask.accumulate_dataframe`
reduces the accumulators of the partitions in a tree.  The client reads the schema only;
the labels are found by the workers.  The report is built by
:func:`report_from_accumulators`, so its fixed-bin numbers equal the streamed report's.
"""

from __future__ import annotations

import os

import numpy as np

from ._io import PredictionsFileError, _one_line, code_dtype
from ._stream import (
    _codes,
    _groups,
    _proba,
    _pyarrow,
    make_spec,
    open_dataset,
    report_from_accumulators,
)

__all__ = ["dask_report"]

#: the columns of an encoded partition
LABEL, GROUP = "__skcalib_y", "__skcalib_group"

#: seconds to wait for the scheduler at ``--scheduler ADDRESS``
CONNECT_TIMEOUT = 30


def _proba_name(j):
    return f"__skcalib_p{j}"


def _encode(part, spec, n_classes):
    """A pandas partition as label codes, probabilities and group names."""
    import pandas as pd

    pa, pc, _ = _pyarrow()
    table = pa.Table.from_pandas(part[spec.read], preserve_index=False).combine_chunks()
    batches = table.to_batches()
    batch = batches[0] if batches else None
    if batch is None or len(batches) > 1:
        batch = pa.RecordBatch.from_arrays(
            [table.column(c).combine_chunks() for c in spec.read], names=list(spec.read)
        )
    where = "a partition"
    k = len(spec.proba_cols)
    out = {}
    if batch.num_rows:
        out[LABEL] = _codes(pa, pc, batch, spec, where, 0)
        P = _proba(pa, batch, spec, where, 0)
        if spec.renormalize and P.ndim == 2:
            from ._io import _renormalize

            P = _renormalize(P)
    else:
        out[LABEL] = np.array([], dtype=np.int8 if n_classes else object)
        P = np.empty((0, k) if k > 1 else 0)
    for j in range(k):
        out[_proba_name(j)] = P[:, j] if k > 1 else P
    group_cols = [*spec.by, *([spec.model_col] if spec.model_col else [])]
    if group_cols:
        names = np.empty(batch.num_rows, dtype=object)
        if batch.num_rows:
            for name, rows in _groups(pa, pc, batch, group_cols, spec.model_col):
                names[rows] = name
        out[GROUP] = names
    return pd.DataFrame(out)


def _distinct(parts):
    values = [np.asarray(p.dropna() if hasattr(p, "dropna") else p).ravel() for p in parts]
    values = [v for v in values if v.size]
    return np.unique(np.concatenate(values)) if values else np.array([])


def _present_labels(dask, ddf, label_col):
    """The distinct labels, found on the workers (a tree of ``np.unique``)."""
    task = dask.delayed(_distinct, pure=True)
    level = [task([p]) for p in ddf[label_col].to_delayed()]
    while len(level) > 1:
        level = [task(level[i : i + 8]) for i in range(0, len(level), 8)]
    (values,) = dask.compute(level[0])
    return values


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
):
    """The report of a Parquet file, directory or glob, computed on a Dask cluster.

    Parameters
    ----------
    path : str
        The dataset, readable by the workers (a shared file system or object store).
    scheduler : str, default=None
        Address of the scheduler (``tcp://host:8786``); None starts a local cluster of
        one worker process per core for the duration of the call.
    label_col, proba_cols, model_col, by, labels, renormalize, n_bins
        As :func:`~skcalib.report._stream.stream_report`.

    Returns
    -------
    CalibrationReport
    """
    import dask
    import dask.dataframe as dd

    from ..dask import accumulate_dataframe

    dataset, title = open_dataset(path)
    label_col = "y" if label_col is None else label_col
    source = os.fspath(path)
    client, cluster = _connect(scheduler)
    try:
        with dask.config.set(scheduler=client):
            try:
                read = dd.read_parquet(source)
            except (OSError, ValueError) as exc:
                raise PredictionsFileError(
                    f"not a readable Parquet dataset: {_one_line(exc)}"
                ) from exc
            if labels is None and label_col in read.columns:
                present = _present_labels(dask, read, label_col)
                if present.size == 0:
                    raise PredictionsFileError("the dataset has no rows")
                labels = [str(v) for v in present.tolist()]
            spec = make_spec(
                dataset,
                label_col=label_col,
                proba_cols=proba_cols,
                model_col=model_col,
                by=by,
                labels=labels,
                renormalize=renormalize,
                n_bins=n_bins,
            )
            n_classes = None if spec.classes is None else len(spec.classes)
            k = len(spec.proba_cols)
            meta = {LABEL: np.array([], dtype=code_dtype(n_classes) if n_classes else object)}
            meta.update({_proba_name(j): np.array([], dtype=np.float64) for j in range(k)})
            grouped = bool(spec.by or spec.model_col)
            if grouped:
                meta[GROUP] = np.array([], dtype=object)
            import pandas as pd

            encoded = read[spec.read].map_partitions(
                _encode, spec, n_classes, meta=pd.DataFrame(meta)
            )
            if n_classes is None:
                params = {"n_bins": n_bins, "pos_label": spec.pos_label}
            else:
                params = {
                    "n_bins": n_bins,
                    "labels": np.arange(n_classes),
                    "pos_label": spec.pos_index,
                }
            probas = [_proba_name(j) for j in range(k)]
            try:
                accs = accumulate_dataframe(
                    encoded,
                    label_col=LABEL,
                    proba_cols=probas if k > 1 else probas[0],
                    by=GROUP if grouped else None,
                    **params,
                )
            except PredictionsFileError:
                raise
            except ValueError as exc:
                raise PredictionsFileError(_one_line(exc)) from exc
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    if not grouped:
        accs = {"model": accs}
    accs = {name: acc for name, acc in accs.items() if acc.n_samples_}
    if not accs:
        raise PredictionsFileError("the dataset has no rows")
    return report_from_accumulators(accs, n_bins=n_bins, title=title, classes=spec.classes)
