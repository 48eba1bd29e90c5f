"""skcalib.dask.accumulate: throughput of a LocalCluster of 2 worker processes vs 1.

The predictions (binary, 1-D) are generated on the workers with ``dask.array.random``, so
no data crosses from the client; each chunk becomes a CalibrationAccumulator on its worker
and the accumulators are merged in a tree.  Prints rows per second for 1 and 2 workers
(one thread each) and their ratio (target >= 1.6x on a machine with 2 free cores); on a
machine with at least 10 cores, also 4 and 8 workers.
"""

import os
import time

import numpy as np
from _common import cpu_model, parse_args


def _data(n, chunk, seed):
    import dask.array as da

    rng = da.random.default_rng(seed)
    p = rng.random(n, chunks=chunk)
    y = (rng.random(n, chunks=chunk) < p).astype(np.int8)
    return y, p


def throughput(n_workers, n, chunk, repeat):
    from distributed import Client, LocalCluster

    from skcalib.dask import accumulate

    with (
        LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            worker_dashboard_address=None,
        ) as cluster,
        Client(cluster),
    ):
        accumulate(*_data(chunk, chunk, 0), labels=[0, 1])  # warm up the workers
        times = []
        for r in range(repeat):
            y, p = _data(n, chunk, r + 1)
            t0 = time.perf_counter()
            acc = accumulate(y, p, labels=[0, 1])
            times.append(time.perf_counter() - t0)
            assert acc.n_samples_ == n
    return n / float(np.median(times))


def main():
    args = parse_args(__doc__.splitlines()[0])
    n, chunk = (400_000, 100_000) if args.quick else (20_000_000, 1_000_000)
    repeat = args.repeat or (1 if args.quick else 3)
    print(f"{n:,} binary rows in chunks of {chunk:,}, generated on the workers; CPU: {cpu_model()}")
    one = throughput(1, n, chunk, repeat)
    two = throughput(2, n, chunk, repeat)
    print(f"1 worker : {one / 1e6:8.2f} M rows/s")
    print(f"2 workers: {two / 1e6:8.2f} M rows/s")
    print(f"ratio 2 workers / 1 worker: {two / one:.2f}x (target >= 1.6x)")
    if (os.cpu_count() or 1) >= 10 and not args.quick:
        for workers in (4, 8):
            rate = throughput(workers, n, chunk, repeat)
            print(f"{workers} workers: {rate / 1e6:8.2f} M rows/s, {rate / one:.2f}x 1 worker")


if __name__ == "__main__":
    main()
