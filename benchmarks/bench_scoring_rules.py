"""Benchmarks of the proper scoring rules: Brier score, negative log-likelihood, CRPS.

Each row: best time of the skcalib call (input validation included), over runs interleaved
with the floor's, as a ratio to the best time of a
"floor" -- the cheapest numpy/scipy operation that does the unavoidable work on the same
input -- and the peak extra memory (tracemalloc) as a fraction of the input size.

Workloads and targets:

* crps_ensemble, 100,000 obs x 100 draws; floor ``np.sort(S, axis=1)``; target <= 2x
  (properscoring with numba takes 2.5x, scoringrules 4-12x).
* crps_normal, 10,000,000 forecasts; floor ``scipy.special.ndtr(z)`` on an array of that
  size; target <= 1.7x (properscoring and scoringrules take 2.2x).
* multiclass Brier, 1,000,000 x 10; floor ``np.sum(P)``; target <= 6x with input
  validation (sklearn's brier_score_loss takes 51x, log_loss 28x).

Run: python benchmarks/bench_scoring_rules.py [--quick] [--compare-sklearn]
"""

import sys

import numpy as np
from _common import median_time, parse_args, report
from scipy.special import ndtr

from skcalib.metrics import brier_score, crps_ensemble, crps_normal, negative_log_likelihood


def bench_crps_ensemble(rng, quick, repeat):
    n, m = (2_000, 100) if quick else (100_000, 100)
    S = rng.standard_normal((n, m))
    y = rng.standard_normal(n)
    report(
        f"crps_ensemble {n}x{m}",
        lambda: crps_ensemble(y, S),
        lambda: np.sort(S, axis=1),
        S.nbytes,
        repeat,
        target=2.0,
    )
    report(
        f"crps_ensemble {n}x{m} fair",
        lambda: crps_ensemble(y, S, fair=True),
        lambda: np.sort(S, axis=1),
        S.nbytes,
        repeat,
        target=2.0,
    )
    S32 = S.astype(np.float32)
    report(
        f"crps_ensemble {n}x{m} float32 (floor: sort float32)",
        lambda: crps_ensemble(y, S32),
        lambda: np.sort(S32, axis=1),
        S32.nbytes,
        repeat,
    )


def bench_crps_normal(rng, quick, repeat):
    n = 100_000 if quick else 10_000_000
    y = rng.standard_normal(n)
    mu = rng.standard_normal(n) * 0.1
    sd = rng.random(n) + 0.5
    z = (y - mu) / sd
    report(
        f"crps_normal n={n}",
        lambda: crps_normal(y, mu, sd),
        lambda: ndtr(z),
        y.nbytes,
        repeat,
        target=1.7,
    )
    report(
        f"crps_normal n={n} aggregate=False",
        lambda: crps_normal(y, mu, sd, aggregate=False),
        lambda: ndtr(z),
        y.nbytes,
        repeat,
    )


def bench_brier(rng, quick, repeat, compare):
    n, k = (20_000, 10) if quick else (1_000_000, 10)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    report(
        f"multiclass brier_score {n}x{k}",
        lambda: brier_score(y, P),
        lambda: np.sum(P),
        P.nbytes,
        repeat,
        target=6.0,
    )
    w = rng.random(n)
    report(
        f"multiclass brier_score {n}x{k} sample_weight",
        lambda: brier_score(y, P, sample_weight=w),
        lambda: np.sum(P),
        P.nbytes,
        repeat,
    )
    P32 = P.astype(np.float32)
    report(
        f"multiclass brier_score {n}x{k} float32 (floor: sum float32)",
        lambda: brier_score(y, P32),
        lambda: np.sum(P32),
        P32.nbytes,
        repeat,
    )
    report(
        f"negative_log_likelihood {n}x{k}",
        lambda: negative_log_likelihood(y, P),
        lambda: np.sum(P),
        P.nbytes,
        repeat,
    )
    if compare:
        from sklearn.metrics import brier_score_loss, log_loss

        t_floor = median_time(lambda: np.sum(P), repeat)
        for name, f in [
            ("sklearn brier_score_loss", lambda: brier_score_loss(y, P)),
            ("sklearn log_loss", lambda: log_loss(y, P)),
        ]:
            print(f"{name:<58s} ratio {median_time(f, 3) / t_floor:5.2f}x")


def main():
    compare = "--compare-sklearn" in sys.argv
    if compare:
        sys.argv.remove("--compare-sklearn")
    args = parse_args(__doc__)
    quick = args.quick
    repeat = args.repeat or (3 if quick else 7)
    rng = np.random.default_rng(0)
    bench_crps_ensemble(rng, quick, repeat)
    bench_crps_normal(rng, quick, repeat)
    bench_brier(rng, quick, repeat, compare)


if __name__ == "__main__":
    main()
