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

    def streamed():
        acc = CalibrationAccumulator(labels=labels)
        for start in range(0, n, CHUNK):
            acc.update(y[start : start + CHUNK], P[start : start + CHUNK])
        return acc.compute()

    def batch():
        return [
            f(y, P, labels=labels)
            for f in (
                expected_calibration_error,
                max_calibration_error,
                root_mean_squared_calibration_error,
                static_calibration_error,
                brier_score,
                negative_log_likelihood,
            )
        ]

    report(
        f"accumulator {n}x{k} in {CHUNK}-row chunks vs batch metrics",
        streamed,
        batch,
        P.nbytes,
        repeat,
        target=None if quick else 1.5,
    )


if __name__ == "__main__":
    main()
