"""Benchmarks of the information criteria of ensembles: WAIC, ISCV and PSIS-LOO.

Workload W7: a log-likelihood matrix ``log_lik`` of 100,000 samples x 100 members
(float64, ``N(-1, 0.5)`` entries).  Each row: the **minimum** time over the repeats of
the skcalib call (input validation included) as a ratio to the floor, one
``scipy.special.logsumexp(log_lik, axis=1)`` (the minimum as well, the two run
alternately: on a shared machine the minimum is the run least disturbed by other load),
and the peak extra memory (tracemalloc) as a fraction of the input size.

Targets: negative_waic <= 3x, importance_sampling_cross_validation <= 3x, psis_loo <= 15x
and at least 5x faster than ArviZ's ``loo`` on the same matrix.  ArviZ is not a
dependency: ``--arviz-python /path/to/python`` times ``arviz.loo`` and ``arviz.waic`` in
another environment (on the same matrix, regenerated from the same seed).

Run: python benchmarks/bench_ensembles.py [--quick] [--repeat N] [--arviz-python PATH]
"""

import argparse
import subprocess
import sys
import time
import warnings

import numpy as np
from _common import peak_memory
from scipy.special import logsumexp

from skcalib.metrics import (
    PSISWarning,
    importance_sampling_cross_validation,
    negative_waic,
    psis_loo,
)

SEED = 7


def make_log_lik(n, m):
    return np.random.default_rng(SEED).normal(-1.0, 0.5, (n, m))


def _timed(func):
    t0 = time.perf_counter()
    func()
    return time.perf_counter() - t0


def report_min(name, func, floor, input_bytes, repeat, target=None):
    """One row: the call and its floor run alternately ``repeat`` times, each keeps its
    minimum (as ``_common.report``); returns the call's minimum time in seconds."""
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
        tgt = f"  target <= {target:.0f}x  {'OK' if ratio <= target else 'MISS'}"
    print(
        f"{name:<44s} {t * 1e3:9.1f} ms  floor {t_floor * 1e3:7.1f} ms  ratio {ratio:5.2f}x  "
        f"peak extra {mem / 2**20:7.1f} MiB ({100 * mem / input_bytes:5.1f}% of input){tgt}"
    )
    return t


_ARVIZ = """
import sys, time, warnings
import numpy as np
import arviz as az
n, m, seed, repeat = (int(v) for v in sys.argv[1:5])
L = np.random.default_rng(seed).normal(-1.0, 0.5, (n, m))
idata = az.from_dict(log_likelihood={"y": L.T[None]})
warnings.simplefilter("ignore")
for name, f in (("loo", az.loo), ("waic", az.waic)):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(idata, pointwise=True, **({"reff": 1.0} if name == "loo" else {}))
        ts.append(time.perf_counter() - t0)
    print(name, min(ts), az.__version__)
"""


def arviz_times(python, n, m, repeat):
    out = subprocess.run(
        [python, "-c", _ARVIZ, str(n), str(m), str(SEED), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    times = {}
    for line in out.splitlines():
        name, t, version = line.split()
        times[name] = float(t)
    return times, version


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--repeat", type=int, default=None, help="timing repetitions")
    parser.add_argument("--arviz-python", default=None, help="a python with arviz installed")
    args = parser.parse_args()
    n, m = (2_000, 100) if args.quick else (100_000, 100)
    repeat = args.repeat or (2 if args.quick else 7)
    L = make_log_lik(n, m)

    def floor():
        return logsumexp(L, axis=1)

    print(f"W7: log_lik {n} x {m} float64; times are minima over {repeat} repeats")
    report_min("negative_waic (waic1)", lambda: negative_waic(L), floor, L.nbytes, repeat, 3)
    report_min(
        "negative_waic (waic2)",
        lambda: negative_waic(L, waic_type="waic2"),
        floor,
        L.nbytes,
        repeat,
        3,
    )
    report_min(
        "importance_sampling_cross_validation",
        lambda: importance_sampling_cross_validation(L),
        floor,
        L.nbytes,
        repeat,
        3,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PSISWarning)
        t_psis = report_min("psis_loo", lambda: psis_loo(L), floor, L.nbytes, repeat, 15)
    if args.arviz_python:
        times, version = arviz_times(args.arviz_python, n, m, max(1, min(repeat, 3)))
        print(
            f"ArviZ {version} loo(pointwise=True): {times['loo'] * 1e3:.1f} ms; psis_loo is "
            f"{times['loo'] / t_psis:.1f}x faster (target >= 5x); "
            f"ArviZ waic: {times['waic'] * 1e3:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
