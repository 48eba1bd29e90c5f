"""Benchmarks of the calibration-error core.

Each row: best time of the skcalib call (input validation included), over runs interleaved
with the floor's, as a ratio to the best time of a
"floor" -- the cheapest numpy operation that reads the same input once -- and the peak
extra memory (tracemalloc) as a fraction of the input size.

The binary ECE is also timed against relplot's ``binnedECE`` (same data, 15 bins;
target: >= 1.25x faster) when relplot imports; it is not a dependency: pass the
site-packages directory of an environment where it is installed with ``--relplot-path``.

Run: python benchmarks/bench_calibration.py [--quick] [--relplot-path DIR]
"""

import sys

import numpy as np
from _common import compare, parse_args, report
from sklearn import config_context
from sklearn.calibration import calibration_curve

from skcalib.metrics import (
    brier_score,
    expected_calibration_error,
    general_calibration_error,
    static_calibration_error,
)


def _relplot(path):
    """relplot's ``binnedECE``, or None where relplot does not import."""
    if path:
        sys.path.append(path)
    try:
        import relplot.metrics
    except ImportError:
        return None
    return relplot.metrics.binnedECE


def main():
    def options(parser):
        parser.add_argument("--relplot-path", default=None, help="site-packages with relplot")

    args = parse_args(__doc__, options)
    quick = args.quick
    repeat = args.repeat or (3 if quick else 7)
    rng = np.random.default_rng(0)

    # 1. top-label ECE, 15 bins, 100,000 x 1,000, float64 and float32
    n, k = (2_000, 100) if quick else (100_000, 1_000)
    logits = rng.standard_normal((n, k)) * 3
    P = np.exp(logits - logits.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    del logits
    y = rng.integers(0, k, n)
    for dtype in (np.float64, np.float32):
        Pd = P.astype(dtype)
        labels = np.arange(k)

        def ece(Pd=Pd, labels=labels):
            return expected_calibration_error(y, Pd, labels=labels)

        def floor(Pd=Pd):
            return Pd.max(axis=1)

        report(
            f"top-label ECE {n}x{k} {np.dtype(dtype).name}",
            ece,
            floor,
            Pd.nbytes,
            repeat,
            target=None if quick else 1.8,
        )
        # assume_finite skips no probability check (range and row sums are always
        # checked): the same target as without it
        with config_context(assume_finite=True):
            report(
                f"top-label ECE {n}x{k} {np.dtype(dtype).name} assume_finite",
                ece,
                floor,
                Pd.nbytes,
                repeat,
                target=None if quick else 1.8,
            )

    # the same float64 probabilities in Fortran order (a pandas DataFrame's values);
    # floor: numpy's own maximum over the rows of that array; no target
    PF = np.asfortranarray(P)
    report(
        f"top-label ECE {n}x{k} float64 Fortran-ordered",
        lambda PF=PF: expected_calibration_error(y, PF, labels=np.arange(k)),
        lambda PF=PF: PF.max(axis=1),
        PF.nbytes,
        repeat,
    )

    # 2. binary ECE, 15 bins, n = 10,000,000
    n = 100_000 if quick else 10_000_000
    p = rng.random(n)
    yb = (rng.random(n) < p).astype(np.int64)
    report(
        f"binary ECE n={n}",
        lambda: expected_calibration_error(yb, p),
        lambda: np.sum(p),
        p.nbytes,
        repeat,
        target=None if quick else 20.0,
    )
    # the peer: scikit-learn's reliability curve of the same data and bins (what an ECE
    # computed from it costs at least)
    compare(
        f"binary ECE n={n} vs sklearn calibration_curve",
        lambda: expected_calibration_error(yb, p),
        lambda: calibration_curve(yb, p, n_bins=15),
        max(3, repeat // 2),
        at_least=None if quick else 8.0,
    )
    binned_ece = _relplot(args.relplot_path)
    if binned_ece is None:
        print("relplot not found (--relplot-path): no relplot row")
    else:
        compare(
            f"binary ECE n={n} vs relplot binnedECE(p, y, nbins=15)",
            lambda: expected_calibration_error(yb, p),
            lambda: binned_ece(p, yb, nbins=15),
            max(3, repeat // 2),
            at_least=None if quick else 1.25,
        )

    # 3. static (class-wise) CE, 100,000 x 100
    n, k = (5_000, 100) if quick else (100_000, 100)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    report(
        f"static CE {n}x{k}",
        lambda: static_calibration_error(y, P),
        lambda: np.sum(P),
        P.nbytes,
        repeat,
        target=None if quick else 20.0,
    )

    # 4. top-label equal-mass ECE, 1,000,000 x 10
    n, k = (20_000, 10) if quick else (1_000_000, 10)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(0, k, n)
    report(
        f"top-label equal-mass ECE {n}x{k}",
        lambda: general_calibration_error(y, P, strategy="quantile"),
        lambda: P.max(axis=1),
        P.nbytes,
        repeat,
        target=None if quick else 3.5,
    )

    # 5. multiclass Brier score, 1,000,000 x 10
    report(
        f"multiclass Brier {n}x{k}",
        lambda: brier_score(y, P),
        lambda: np.sum(P),
        P.nbytes,
        repeat,
        target=None if quick else 10.0,
    )


if __name__ == "__main__":
    main()
