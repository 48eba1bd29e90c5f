"""Benchmark of the streaming accumulator against the batch metrics.

10,000,000 x 10 multiclass probabilities in memory, fed to
``skcalib.streaming.CalibrationAccumulator`` in chunks of 65,536 rows, then
``compute()``; the reference is the batch functions of the same numbers on the whole
array (ECE, MCE, RMSCE, SCE, Brier score, NLL: what ``calibration_report`` computes).
Target: within 1.5x of the batch metrics.

Run: python benchmarks/bench_streaming.py [--quick]
"""

import numpy as np
from _common import parse_args, report

from skcalib.metrics import (
    brier_score,
    expected_calibration_error,
    max_calibration_error,
    negative_log_likelihood,
    root_mean_squared_calibration_error,
    static_calibration_error,
)
from skcalib.streaming import CalibrationAccumulator

CHUNK = 65_536


def main():
    args = parse_args(__doc__)
    quick = args.quick
    repeat = args.repeat or (2 if quick else 3)
    rng = np.random.default_rng(0)
    n, k = (200_000, 10) if quick else (10_000_000, 10)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    labels = np.arange(k)

    w = rng.random(n) * 2
    p1 = P[:, 0] / (P[:, 0] + P[:, 1])
    y1 = (rng.random(n) < p1).astype(np.int8)
    cases = [
        # (name, y, probabilities, weights, labels): multiclass and binary, with and
        # without weights (one kernel builds the statistics of every kind of chunk)
        (f"{n}x{k}", y, P, None, labels),
        (f"{n}x{k} weighted", y, P, w, labels),
        (f"{n} binary", y1, p1, None, [0, 1]),
        (f"{n} binary weighted", y1, p1, w, [0, 1]),
    ]
    for name, yy, PP, ww, lab in cases:

        def streamed(yy=yy, PP=PP, ww=ww, lab=lab):
            acc = CalibrationAccumulator(labels=lab)
            for start in range(0, n, CHUNK):
                sw = None if ww is None else ww[start : start + CHUNK]
                acc.update(yy[start : start + CHUNK], PP[start : start + CHUNK], sample_weight=sw)
            return acc.compute()

        def batch(yy=yy, PP=PP, ww=ww, lab=lab):
            metrics = [
                expected_calibration_error,
                max_calibration_error,
                root_mean_squared_calibration_error,
                brier_score,
                negative_log_likelihood,
            ]
            if PP.ndim == 2:
                metrics.append(static_calibration_error)
            return [f(yy, PP, labels=lab, sample_weight=ww) for f in metrics]

        report(
            f"accumulator {name} in {CHUNK}-row chunks vs batch metrics",
            streamed,
            batch,
            PP.nbytes,
            repeat,
            target=None if quick else 1.5,
        )


if __name__ == "__main__":
    main()
