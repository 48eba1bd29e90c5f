"""Benchmarks of statistical calibration.

1. Bootstrap confidence interval of the binary ECE (15 bins) on 1,000,000 predictions
   with 1,000 resamples (bin-level resampling), as a ratio to ONE ECE computation on
   the same data.  Target: <= 20x.
2. smooth_calibration_error (smECE, automatic bandwidth) on 1,000,000 binary
   predictions, as a ratio to relplot's ``smECE`` measured in the same run (target:
   < 1, faster than relplot).  relplot is not a dependency: pass the site-packages
   directory of an environment where it is installed with ``--relplot-path``; it is
   appended to ``sys.path`` (so skcalib's numpy is the one imported).  Without it the
   row reports the ratio to ``np.sum(p)``.

Times are the minimum over ``--repeat`` runs (the machine is shared and noisy; the
minimum is the least disturbed run); peak extra memory by tracemalloc.

Run: python benchmarks/bench_statistical.py [--quick] [--relplot-path DIR]
"""

import argparse
import sys
import time

import numpy as np
from _common import peak_memory

from skcalib.metrics import (
    calibration_error_ci,
    expected_calibration_error,
    smooth_calibration_error,
    smooth_reliability_curve,
)


def min_time(func, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return best


def row(name, func, ref, ref_name, input_bytes, repeat, target):
    func()  # warm up
    ref()
    t_ref = min_time(ref, repeat)
    t = min_time(func, repeat)
    mem = peak_memory(func)
    ratio = t / t_ref
    verdict = "" if target is None else f"target <= {target:g}x  "
    verdict += "" if target is None else ("OK" if ratio <= target else "MISS")
    print(
        f"{name:<52s} {t * 1e3:9.2f} ms  {ref_name} {t_ref * 1e3:8.2f} ms  "
        f"ratio {ratio:6.2f}x  peak extra {mem / 2**20:8.2f} MiB "
        f"({100 * mem / input_bytes:5.1f}% of input)  {verdict}"
    )
    return ratio


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (CI smoke test)")
    parser.add_argument("--repeat", type=int, default=None, help="timing repetitions")
    parser.add_argument("--relplot-path", default=None, help="site-packages with relplot")
    args = parser.parse_args()
    quick = args.quick
    repeat = args.repeat or (2 if quick else 5)
    rng = np.random.default_rng(0)

    # 1. bootstrap CI of the binary ECE, bin-level resampling
    n = 20_000 if quick else 1_000_000
    n_resamples = 100 if quick else 1000
    p = rng.random(n)
    y = (rng.random(n) < p**1.2).astype(np.int64)
    row(
        f"bootstrap CI of binary ECE n={n}, {n_resamples} resamples",
        lambda: calibration_error_ci(
            expected_calibration_error, y, p, n_resamples=n_resamples, random_state=0
        ),
        lambda: expected_calibration_error(y, p),
        "one ECE",
        p.nbytes + y.nbytes,
        repeat,
        20.0,
    )

    # 2. smECE against relplot
    if args.relplot_path:
        sys.path.append(args.relplot_path)
    try:
        import relplot
    except ImportError:
        relplot = None
    yb = (rng.random(n) < p).astype(np.int64)
    if relplot is not None:
        yf = yb.astype(np.float64)
        version = getattr(relplot, "__version__", "installed")
        ref, ref_name, target = (lambda: relplot.smECE(p, yf)), f"relplot {version}", 1.0
        curve = smooth_reliability_curve(yb, p)
        theirs, width = relplot.smECE(p, yf, return_width=True)
        at_ours = float(relplot.smECE_sigma(p, yf, curve.bandwidth))
        print(
            f"smECE: skcalib {curve.smece:.6f} (bandwidth {curve.bandwidth:.6f}); relplot "
            f"{float(theirs):.6f} (bandwidth {width:.6f}, its bisection stops at a "
            f"resolution of 2^-10); relplot at skcalib's bandwidth {at_ours:.6f} "
            f"(rel. diff {curve.smece / at_ours - 1:+.2%})"
        )
    else:
        print("relplot not found (--relplot-path): smECE timed against np.sum(p)")
        ref, ref_name, target = (lambda: np.sum(p)), "np.sum(p)", None
    row(
        f"smooth ECE (auto bandwidth) binary n={n}",
        lambda: smooth_calibration_error(yb, p),
        ref,
        ref_name,
        p.nbytes + yb.nbytes,
        repeat,
        target,
    )


if __name__ == "__main__":
    main()
