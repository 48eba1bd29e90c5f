"""Benchmarks of the PIT curves and of the per-bin Wilson intervals.

Per workload: the minimum time over the repeats (the machine is shared, so the minimum
is the least noisy statistic) as a ratio to a numpy floor that reads the same input
once, and the peak extra memory measured with tracemalloc.

    python benchmarks/bench_pit_and_intervals.py            # full sizes
    python benchmarks/bench_pit_and_intervals.py --quick    # smoke test
"""

import time

import numpy as np
from _common import parse_args, peak_memory

from skcalib.metrics import pit_histogram, quantile_calibration_curve, reliability_curve


def min_time(func, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return best


def row(name, func, floor, input_bytes, repeat):
    func()
    floor()
    t_floor = min_time(floor, repeat)
    t = min_time(func, repeat)
    mem = peak_memory(func)
    print(
        f"{name:<58s} {t * 1e3:9.2f} ms  floor {t_floor * 1e3:8.2f} ms  "
        f"ratio {t / t_floor:5.2f}x  peak extra {mem / 2**20:8.2f} MiB "
        f"({100 * mem / input_bytes:5.1f}% of input)"
    )


def main():
    args = parse_args(__doc__)
    n = 100_000 if args.quick else 10_000_000
    repeat = args.repeat or (2 if args.quick else 7)
    rng = np.random.default_rng(0)
    pit = rng.uniform(size=n)
    w = rng.uniform(0, 2, size=n)
    print(f"n = {n:,}, min over {repeat} repeats")
    row(
        "pit_histogram, 10 bins",
        lambda: pit_histogram(pit, n_bins=10),
        lambda: np.sum(pit),
        pit.nbytes,
        repeat,
    )
    row(
        "pit_histogram, 10 bins, sample_weight",
        lambda: pit_histogram(pit, n_bins=10, sample_weight=w),
        lambda: np.dot(pit, w),
        pit.nbytes + w.nbytes,
        repeat,
    )
    row(
        "quantile_calibration_curve, 21 levels, band",
        lambda: quantile_calibration_curve(pit, confidence_level=0.95),
        lambda: np.sum(pit),
        pit.nbytes,
        repeat,
    )
    y = (rng.uniform(size=n) < pit).astype(np.int64)
    row(
        "reliability_curve, binary, 15 bins",
        lambda: reliability_curve(y, pit),
        lambda: np.sum(pit),
        pit.nbytes + y.nbytes,
        repeat,
    )
    row(
        "reliability_curve, binary, 15 bins, Wilson intervals",
        lambda: reliability_curve(y, pit, confidence_level=0.95),
        lambda: np.sum(pit),
        pit.nbytes + y.nbytes,
        repeat,
    )


if __name__ == "__main__":
    main()
