"""Benchmarks of the regression metrics of any predictive distribution.

Rows "ratio": best time of the skcalib call (validation included), over runs interleaved
with the floor's, as a ratio to a numpy floor that reads the same input once, and the
peak extra memory (tracemalloc).  Rows "faster": against the peers on the same input,
when they import (they are not dependencies: pass the site-packages directory of an
environment that has uncertainty-toolbox and scoringrules with ``--peers-path``):

* 1M Gaussian forecasts: MACE and RMSCE >= 10x faster than uncertainty-toolbox's
  ``mean_absolute_calibration_error`` / ``root_mean_squared_calibration_error`` (a scipy
  call per level); ``miscalibration_area`` no slower than its numpy loop over 100 levels
  (target >= 1x), for Normal forecasts, 10 draws and 9 quantiles per forecast alike;
* the CRPS of 1M Normal forecasts within 1.5x of scoringrules' numpy ``crps_normal``
  (target >= 0.67x "faster");
* the CRPS of 100,000 x 100 draws within 2x of ``np.sort`` of the draws (target
  >= 0.5x).

Run: python benchmarks/bench_regression.py [--quick] [--peers-path DIR]
"""

import sys

import numpy as np
from _common import compare, parse_args, report
from scipy import stats

from skcalib.metrics import (
    PredictiveQuantiles,
    PredictiveSamples,
    crps,
    miscalibration_area,
    regression_calibration_error,
)
from skcalib.streaming import RegressionAccumulator


def _peers(path):
    """``(uncertainty_toolbox, scoringrules)``, None for each one that does not import."""
    if path:
        sys.path.append(path)
    out = []
    for name in ("uncertainty_toolbox", "scoringrules"):
        try:
            out.append(__import__(name))
        except ImportError:
            out.append(None)
    return out


def main():
    def options(parser):
        parser.add_argument(
            "--peers-path", default=None, help="site-packages with uncertainty-toolbox"
        )

    args = parse_args(__doc__, options)
    quick = args.quick
    repeat = args.repeat or (2 if quick else 5)
    uct, sr = _peers(args.peers_path)
    rng = np.random.default_rng(0)
    n = 20_000 if quick else 1_000_000
    mu = rng.normal(size=n)
    sd = rng.uniform(0.5, 2.0, size=n)
    y = mu + rng.standard_t(5, size=n) * sd
    pred = stats.norm(mu, sd)
    draws = mu[:, None] + sd[:, None] * rng.normal(size=(n, 10))
    levels = np.linspace(0.1, 0.9, 9)
    Q = stats.norm.ppf(levels[None, :], mu[:, None], sd[:, None])
    print(f"n = {n:,} forecasts, best of {repeat} interleaved runs")

    def floor():
        return float(np.dot(y, mu) + sd.sum())

    in_bytes = y.nbytes * 3
    report("MACE (100 levels), scipy.stats.norm", lambda: regression_calibration_error(y, pred),
           floor, in_bytes, repeat)  # fmt: skip
    report("miscalibration_area, scipy.stats.norm", lambda: miscalibration_area(y, pred),
           floor, in_bytes, repeat)  # fmt: skip
    report(
        "miscalibration_area, 10 draws (PredictiveSamples)",
        lambda: miscalibration_area(y, PredictiveSamples(draws), random_state=0),
        lambda: draws.sum(),
        draws.nbytes,
        repeat,
    )
    report(
        "miscalibration_area, 9 quantiles (PredictiveQuantiles)",
        lambda: miscalibration_area(y, PredictiveQuantiles(Q, levels)),
        lambda: Q.sum(),
        Q.nbytes,
        repeat,
    )
    report("CRPS, scipy.stats.norm", lambda: crps(y, pred), floor, in_bytes, repeat)

    m = 2_000 if quick else 100_000
    S = mu[:m, None] + sd[:m, None] * rng.normal(size=(m, 100))
    compare(
        f"CRPS of {m:,} x 100 draws vs np.sort(draws, axis=1)",
        lambda: crps(y[:m], PredictiveSamples(S)),
        lambda: np.sort(S, axis=1),
        repeat,
        at_least=None if quick else 0.5,
    )
    report(
        "CRPS, scipy.stats.t (closed form)",
        lambda: crps(y, stats.t(5.0, mu, sd)),
        floor,
        in_bytes,
        repeat,
    )
    k = 500 if quick else 5_000
    z = np.abs(y[:k]) + 0.1
    report(
        f"CRPS, scipy.stats.lognorm (quadrature), n={k:,}",
        lambda: crps(z, stats.lognorm(sd[:k], 0.0, np.exp(mu[:k]))),
        lambda: stats.lognorm.cdf(z, sd[:k], 0.0, np.exp(mu[:k])),
        z.nbytes * 3,
        repeat,
    )

    def stream():
        acc = RegressionAccumulator()
        for part in np.array_split(np.arange(n), 10):
            acc.update(y[part], stats.norm(mu[part], sd[part]))
        return acc.compute()

    report("RegressionAccumulator, 10 chunks, scipy.stats.norm", stream, floor, in_bytes, repeat)

    if uct is None:
        print("uncertainty-toolbox not found (--peers-path): no uncertainty-toolbox rows")
    else:
        peer_repeat = 1 if not quick else repeat
        compare(
            "MACE vs uncertainty-toolbox mean_absolute_calibration_error",
            lambda: regression_calibration_error(y, pred),
            lambda: uct.mean_absolute_calibration_error(mu, sd, y),
            peer_repeat,
            at_least=None if quick else 10.0,
        )
        compare(
            "RMSCE vs uncertainty-toolbox root_mean_squared_calibration_error",
            lambda: regression_calibration_error(y, pred, norm="l2"),
            lambda: uct.root_mean_squared_calibration_error(mu, sd, y),
            peer_repeat,
            at_least=None if quick else 10.0,
        )
        for name, form in (
            ("scipy.stats.norm", lambda: pred),
            ("10 draws", lambda: PredictiveSamples(draws)),
            ("9 quantiles", lambda: PredictiveQuantiles(Q, levels)),
        ):
            compare(
                f"miscalibration_area ({name}) vs uncertainty-toolbox's",
                lambda form=form: miscalibration_area(y, form(), random_state=0),
                lambda: uct.miscalibration_area(mu, sd, y),
                repeat,
                at_least=None if quick else 1.0,
            )
    if sr is None:
        print("scoringrules not found (--peers-path): no scoringrules row")
    else:
        compare(
            "CRPS of Normal forecasts vs scoringrules crps_normal (numpy)",
            lambda: crps(y, pred),
            lambda: float(np.mean(sr.crps_normal(y, mu, sd, backend="numpy"))),
            repeat,
            at_least=None if quick else 1 / 1.5,
        )


if __name__ == "__main__":
    main()
