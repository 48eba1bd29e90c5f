"""skcalib.dask.accumulate: throughput of a LocalCluster of 2 worker processes vs 1.

The predictions (binary, 1-D) are generated on the workers with ``dask.array.random``, so
no data crosses from the client; each chunk becomes a CalibrationAccumulator on its worker
and the accumulators are merged in a tree.  Two timings per cluster:

* "end to end": the generation of the data is part of the graph that is timed;
* "persisted": the data is first generated and held in the workers' memory
  (``Client.persist``, not timed), then only ``accumulate`` is timed, as for a dataset
  already loaded on a cluster.

Prints rows per second for 1 and 2 workers (one thread each) and their ratios (target
>= 1.6x on a machine with 2 free cores); on a machine with at least 10 cores, also 4 and
8 workers.
"""

import os
import time

import numpy as np
from _common import cpu_model, local_cluster, parse_args


def _data(n, chunk, seed):
    import dask.array as da

    rng = da.random.default_rng(seed)
    p = rng.random(n, chunks=chunk)
    y = (rng.random(n, chunks=chunk) < p).astype(np.int8)
    return y, p


def throughput(n_workers, n, chunk, repeat):
    """Rows per second, (end to end, persisted), the median of ``repeat`` runs each."""
    from distributed import Client, wait

    from skcalib.dask import accumulate

    with local_cluster(n_workers) as cluster, Client(cluster) as client:
        accumulate(*_data(chunk, chunk, 0), labels=[0, 1])  # warm up the workers
        end_to_end, persisted = [], []
        for r in range(repeat):
            y, p = _data(n, chunk, r + 1)
            t0 = time.perf_counter()
            acc = accumulate(y, p, labels=[0, 1])
            end_to_end.append(time.perf_counter() - t0)
            assert acc.n_samples_ == n
            y, p = client.persist(list(_data(n, chunk, repeat + r + 1)))  # other keys
            wait([y, p])
            t0 = time.perf_counter()
            acc = accumulate(y, p, labels=[0, 1])
            persisted.append(time.perf_counter() - t0)
            assert acc.n_samples_ == n
            del y, p
    return n / float(np.median(end_to_end)), n / float(np.median(persisted))


def main():
    args = parse_args(__doc__.splitlines()[0])
    n, chunk = (400_000, 100_000) if args.quick else (20_000_000, 1_000_000)
    repeat = args.repeat or (1 if args.quick else 3)
    print(f"{n:,} binary rows in chunks of {chunk:,}, generated on the workers; CPU: {cpu_model()}")
    rates = {1: throughput(1, n, chunk, repeat), 2: throughput(2, n, chunk, repeat)}
    if (os.cpu_count() or 1) >= 10 and not args.quick:
        for workers in (4, 8):
            rates[workers] = throughput(workers, n, chunk, repeat)
    for i, what in enumerate(("end to end", "persisted")):
        one = rates[1][i]
        for workers, rate in rates.items():
            print(
                f"{what:>10s}, {workers} worker(s): {rate[i] / 1e6:8.2f} M rows/s, "
                f"{rate[i] / one:.2f}x 1 worker"
            )
    print(
        f"ratio 2 workers / 1 worker: end to end {rates[2][0] / rates[1][0]:.2f}x, "
        f"persisted {rates[2][1] / rates[1][1]:.2f}x (target >= 1.6x)"
    )


if __name__ == "__main__":
    main()
