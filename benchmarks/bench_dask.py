"""skcalib.dask on a LocalCluster of 1, 2 (4, 8) worker processes and in one process.

Two workloads, their data generated on the workers and held in their memory first
(``Client.persist``, not timed), as for a dataset already loaded on a cluster; then only
the skcalib call is timed (the median of ``--repeat`` runs):

* ``accumulate``: binary rows (float64 probabilities, int8 labels) in chunks of 1,000,000
  rows, reduced by ``dask.array.reduction``;
* ``accumulate_dataframe(by="g")``: rows of 3-class predictions in 32 groups, in
  partitions of 500,000 rows, reduced by ``DataFrame.reduction`` (one call of the
  statistics kernel a partition fills every group).

"In process" is the same work without a cluster, on the same data in the client's
memory: :class:`~skcalib.streaming.CalibrationAccumulator` fed chunk after chunk (arrays),
and ``accumulate_dataframe`` on Dask's synchronous scheduler (frame).  Prints rows per
second, the ratios to one worker (target: >= 1.6x with 2 workers, on a machine of at least
4 cores) and to the process, and the peak resident memory of the process and of the
workers together (MiB).  4 and 8 workers are measured on machines of at least 10 cores
(``--workers`` chooses).  ``--malloc default`` starts the workers without the allocator
setting that Dask's nannies give them (``distributed.nanny.pre-spawn-environ``:
``MALLOC_TRIM_THRESHOLD_=65536``, which makes glibc hand freed memory back at once, so
that every chunk-sized temporary faults its pages in again).
"""

import os
import resource
import time

import numpy as np
from _common import cpu_model, local_cluster, parse_args

GROUPS = 32


def _array_chunk(seed, rows):
    rng = np.random.default_rng(seed)
    p = rng.random(rows)
    return (rng.random(rows) < p).astype(np.int8), p


def _frame_part(seed, rows):
    import pandas as pd

    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(3), size=rows)
    y = (rng.random((rows, 1)) > P.cumsum(axis=1)).sum(axis=1).clip(0, 2).astype(np.int8)
    frame = pd.DataFrame(P, columns=["p0", "p1", "p2"])
    frame["y"] = y
    frame["g"] = rng.integers(0, GROUPS, rows).astype(np.int16)
    return frame


def _dask_arrays(n, chunk):
    import dask
    import dask.array as da

    parts = [dask.delayed(_array_chunk)(i, chunk) for i in range(n // chunk)]
    y = da.concatenate([da.from_delayed(d[0], (chunk,), np.int8) for d in parts])
    p = da.concatenate([da.from_delayed(d[1], (chunk,), np.float64) for d in parts])
    return y, p


def _dask_frame(n, rows):
    import dask.dataframe as dd

    return dd.from_map(_frame_part, range(n // rows), rows=rows)


def _median_rate(func, n, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return n / float(np.median(times))


def _maxrss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def in_process(sizes, repeat):
    """Rows per second of the work in one process, and the process's peak RSS (MiB)."""
    import dask

    from skcalib.dask import accumulate_dataframe
    from skcalib.streaming import CalibrationAccumulator

    (n, chunk), (n_frame, rows) = sizes
    chunks = [_array_chunk(i, chunk) for i in range(n // chunk)]

    def arrays():
        acc = CalibrationAccumulator(labels=[0, 1])
        for y, p in chunks:
            acc.update(y, p)
        assert acc.n_samples_ == n

    rate_arrays = _median_rate(arrays, n, repeat)
    chunks.clear()
    import dask.dataframe as dd

    parts = [_frame_part(i, rows) for i in range(n_frame // rows)]
    frame = dd.from_map(lambda i: parts[i], range(len(parts)))

    def by_group():
        with dask.config.set(scheduler="synchronous"):
            groups = _frame_call(accumulate_dataframe, frame)
        assert sum(acc.n_samples_ for acc in groups.values()) == n_frame

    rate_frame = _median_rate(by_group, n_frame, repeat)
    return rate_arrays, rate_frame, _maxrss_mib()


def _frame_call(accumulate_dataframe, frame):
    return accumulate_dataframe(
        frame, label_col="y", proba_cols=["p0", "p1", "p2"], by="g", labels=[0, 1, 2]
    )


def on_cluster(n_workers, sizes, repeat, malloc="dask"):
    """Rows per second on a cluster of ``n_workers``, and the workers' peak RSS (MiB)."""
    import dask
    from distributed import Client, wait

    from skcalib.dask import accumulate, accumulate_dataframe

    (n, chunk), (n_frame, rows) = sizes
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    if malloc == "default":
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    with (
        dask.config.set({"distributed.nanny.pre-spawn-environ": environ}),
        local_cluster(n_workers) as cluster,
        Client(cluster) as client,
    ):
        y, p = client.persist(list(_dask_arrays(n, chunk)))
        frame = client.persist(_dask_frame(n_frame, rows))
        wait([y, p, frame])
        accumulate(y, p, labels=[0, 1])  # warm up: imports on the workers

        def arrays():
            assert accumulate(y, p, labels=[0, 1]).n_samples_ == n

        def by_group():
            groups = _frame_call(accumulate_dataframe, frame)
            assert sum(acc.n_samples_ for acc in groups.values()) == n_frame

        rates = (_median_rate(arrays, n, repeat), _median_rate(by_group, n_frame, repeat))
        rss = sum(client.run(_maxrss_mib).values())
    return (*rates, rss)


def _options(parser):
    parser.add_argument("--workers", default=None, help="numbers of workers, e.g. 1,2,4")
    parser.add_argument("--malloc", choices=["dask", "default"], default="dask")


def main():
    args = parse_args(__doc__.splitlines()[0], _options)
    if args.quick:
        sizes = ((400_000, 100_000), (200_000, 50_000))
    else:
        sizes = ((20_000_000, 1_000_000), (4_000_000, 500_000))
    repeat = args.repeat or (1 if args.quick else 3)
    (n, chunk), (n_frame, rows) = sizes
    print(
        f"{cpu_model()}, {os.cpu_count()} cores; accumulate: {n:,} binary rows in "
        f"chunks of {chunk:,}; accumulate_dataframe(by=g): {n_frame:,} rows of 3 classes, "
        f"{GROUPS} groups, partitions of {rows:,}"
    )
    results = {"in process": in_process(sizes, repeat)}
    workers = [1, 2] + ([4, 8] if (os.cpu_count() or 1) >= 10 and not args.quick else [])
    if args.workers:
        workers = sorted({1, 2, *(int(w) for w in args.workers.split(","))})
    print(f"worker allocator setting: {args.malloc}")
    for w in workers:
        results[f"{w} worker(s)"] = on_cluster(w, sizes, repeat, args.malloc)
    one, alone = results["1 worker(s)"], results["in process"]
    print(f"{'run':<12s} {'arrays, M rows/s':<36s} {'frame by g, M rows/s':<36s} peak RSS")
    for name, (ra, rf, rss) in results.items():
        print(
            f"{name:<12s} {ra / 1e6:8.2f} ({ra / one[0]:.2f}x 1 worker, {ra / alone[0]:.2f}x proc)"
            f" {rf / 1e6:8.2f} ({rf / one[1]:.2f}x 1 worker, {rf / alone[1]:.2f}x proc)"
            f" {rss:7.0f} MiB"
        )
    two = results["2 worker(s)"]
    print(
        f"ratio 2 workers / 1 worker: arrays {two[0] / one[0]:.2f}x, frame "
        f"{two[1] / one[1]:.2f}x (target >= 1.6x on >= 4 cores)"
    )


if __name__ == "__main__":
    main()
