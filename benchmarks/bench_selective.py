"""Benchmarks of the selective-prediction metrics (AURC, rejection curve).

Each row: median time of the skcalib call (input validation included) as a ratio to a
"floor" -- ``np.argsort`` of the confidences, the one sort that ranking the predictions
needs -- and the peak extra memory (tracemalloc) as a fraction of the input size.  The
call and the floor run alternately and each keeps its *minimum* time over the
repetitions (``_common.report``): on a shared machine the minimum is the run least
disturbed by other load.  The
metrics sort once (without weights: one ``np.sort`` of keys packing the score and the
error bit; with weights: one ``np.argsort``) and then make linear passes.

Run: python benchmarks/bench_selective.py [--quick] [--repeat N]
"""

import numpy as np
from _common import parse_args, report

from skcalib.metrics import area_under_risk_coverage, rejection_curve


def main():
    args = parse_args(__doc__)
    quick = args.quick
    repeat = args.repeat or (3 if quick else 5)
    rng = np.random.default_rng(0)

    n = 100_000 if quick else 10_000_000
    target = None if quick else 1.5

    # binary 1-D probabilities (8 bytes a sample) and integer labels
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    conf = np.maximum(p, 1 - p)
    w = rng.random(n)
    u = -(p * np.log(p) + (1 - p) * np.log1p(-p))  # the entropy as the uncertainty
    P4 = rng.dirichlet(np.ones(4), size=n // 10 if not quick else n).astype(np.float32)
    y4 = rng.integers(0, 4, P4.shape[0])
    conf4 = P4.max(axis=1)

    def floor():
        return np.argsort(conf)

    report(
        f"AURC binary n={n}",
        lambda: area_under_risk_coverage(y, p),
        floor,
        p.nbytes,
        repeat,
        target=target,
    )
    report(
        f"rejection_curve binary n={n}",
        lambda: rejection_curve(y, p),
        floor,
        p.nbytes,
        repeat,
        target=target,
    )
    report(
        f"AURC binary n={n}, uncertainty=entropy",
        lambda: area_under_risk_coverage(y, p, uncertainty=u),
        floor,
        p.nbytes + u.nbytes,
        repeat,
        target=target,
    )
    report(
        f"AURC binary n={n}, sample_weight (argsort path)",
        lambda: area_under_risk_coverage(y, p, sample_weight=w),
        floor,
        p.nbytes + w.nbytes,
        repeat,
    )
    report(
        f"AURC {P4.shape[0]}x4 float32",
        lambda: area_under_risk_coverage(y4, P4),
        lambda: np.argsort(conf4),
        P4.nbytes,
        repeat,
    )


if __name__ == "__main__":
    main()
