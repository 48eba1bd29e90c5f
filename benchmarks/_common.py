"""Shared helpers of the benchmark scripts: timing as a ratio to a numpy floor (best of
interleaved runs), and peak extra memory measured with tracemalloc."""

import argparse
import platform
import time
import tracemalloc

import numpy as np

import skcalib


def cpu_model():
    """The CPU model, from /proc/cpuinfo where there is one."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def parse_args(description, extra=None):
    """The options of every script (``--quick``, ``--repeat``); ``extra(parser)`` adds a
    script's own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test in CI")
    parser.add_argument("--repeat", type=int, default=None, help="timing repetitions")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time by the CPU time of the process (time.process_time) instead of the wall "
        "clock: on a machine shared with other work, the time the process was not running "
        "is left out; only for single-threaded code (threads add their CPU time)",
    )
    if extra is not None:
        extra(parser)
    args = parser.parse_args()
    global _clock
    _clock = time.process_time if args.cpu_time else time.perf_counter
    clock = "CPU time of the process" if args.cpu_time else "wall clock"
    print(f"skcalib {skcalib.__version__}, numpy {np.__version__}, CPU: {cpu_model()}, {clock}")
    return args


#: the clock of :func:`_timed` (``--cpu-time``: the process's CPU time)
_clock = time.perf_counter


def median_time(func, repeat):
    times = []
    for _ in range(repeat):
        t0 = _clock()
        func()
        times.append(_clock() - t0)
    return float(np.median(times))


def peak_memory(func):
    """Peak memory (bytes) allocated by numpy/python during one call of ``func``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    func()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def _timed(func):
    t0 = _clock()
    func()
    return _clock() - t0


def report(name, func, floor, input_bytes, repeat, target=None):
    """Print one benchmark row: time ratio to the floor, and peak extra memory.

    The call and its floor run alternately ``repeat`` times and each keeps its best
    (minimum) time: on a machine shared with other work, a burst of load then slows
    both sides of the ratio alike, and the minimum is the run least disturbed by it.
    """
    func()  # warm up
    floor()
    t_floor, t = np.inf, np.inf
    for _ in range(repeat):
        t_floor = min(t_floor, _timed(floor))
        t = min(t, _timed(func))
    mem = peak_memory(func)
    ratio = t / t_floor
    tgt = ""
    if target is not None:
        tgt = f"  target <= {target:.1f}x  {'OK' if ratio <= target else 'MISS'}"
    print(
        f"{name:<58s} {t * 1e3:9.2f} ms  floor {t_floor * 1e3:8.2f} ms  "
        f"ratio {ratio:5.2f}x  peak extra {mem / 2**20:8.2f} MiB "
        f"({100 * mem / input_bytes:5.1f}% of input){tgt}"
    )
    return ratio, mem


def compare(name, func, peer, repeat, at_least=None):
    """Print how many times faster ``func`` is than a peer's call on the same input
    (best of interleaved runs); ``at_least`` is the target speed-up."""
    func()
    peer()
    t_peer, t = np.inf, np.inf
    for _ in range(repeat):
        t_peer = min(t_peer, _timed(peer))
        t = min(t, _timed(func))
    speedup = t_peer / t
    tgt = ""
    if at_least is not None:
        tgt = f"  target >= {at_least:.1f}x  {'OK' if speedup >= at_least else 'MISS'}"
    print(
        f"{name:<58s} {t * 1e3:9.2f} ms  peer {t_peer * 1e3:9.2f} ms  {speedup:5.2f}x faster{tgt}"
    )
    return speedup


def local_cluster(n_workers):
    """A ``distributed.LocalCluster`` of ``n_workers`` worker processes of one thread
    each, without dashboards."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        worker_dashboard_address=None,
    )
