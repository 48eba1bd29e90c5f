"""Benchmarks of the recalibrators.

W9: ``TemperatureScaling().fit`` on 50,000 x 1,000 float64 logits (and float32).  Each
row reports the time of the fit (the minimum over the repeats: the machine is shared,
the minimum is the least noisy figure), the number of passes over the logits, the
ratio to a numpy floor (``logits.max(axis=1)``, one read of the input) and the ratio
to scikit-learn's ``CalibratedClassifierCV(FrozenEstimator(model),
method="temperature")`` on the same logits, measured in the same run (scikit-learn >=
1.8), and the peak extra memory (tracemalloc).

Run: python benchmarks/bench_recalibration.py [--quick] [--repeat N]
"""

import time

import numpy as np
import sklearn
from _common import parse_args, peak_memory
from sklearn.base import BaseEstimator, ClassifierMixin

from skcalib.recalibration import TemperatureScaling


class LogitsModel(ClassifierMixin, BaseEstimator):
    """A fitted "model" whose decision_function returns its input: the logits."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return X

    def predict(self, X):
        return self.classes_[np.argmax(X, axis=1)]


def min_time(func, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return best


def sklearn_temperature(Z, y):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    model = LogitsModel().fit(Z[:1], np.arange(Z.shape[1]))
    return CalibratedClassifierCV(FrozenEstimator(model), method="temperature").fit(Z, y)


def main():
    args = parse_args(__doc__)
    quick = args.quick
    repeat = args.repeat or (2 if quick else 3)
    n, k = (2_000, 100) if quick else (50_000, 1_000)
    rng = np.random.default_rng(0)
    y = rng.integers(0, k, n)
    Z = rng.standard_normal((n, k)) * 3
    Z[np.arange(n), np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n))] += 8.0
    has_temperature = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 8)
    t_sk = None
    if has_temperature:
        t_sk = min_time(lambda: sklearn_temperature(Z, y), 1)
        T_sk = 1 / float(sklearn_temperature(Z, y).calibrated_classifiers_[0].calibrators[0].beta_)
    for dtype in (np.float64, np.float32):
        Zd = Z.astype(dtype)
        ts = TemperatureScaling(input="logits").fit(Zd, y)  # warm-up
        t = min_time(lambda Zd=Zd: TemperatureScaling(input="logits").fit(Zd, y), repeat)
        t_floor = min_time(lambda Zd=Zd: Zd.max(axis=1), repeat)
        mem = peak_memory(lambda Zd=Zd: TemperatureScaling(input="logits").fit(Zd, y))
        passes = ts.n_iter_ + 1  # the validation pass, then one per Newton step
        line = (
            f"W9 TemperatureScaling.fit {n}x{k} {np.dtype(dtype).name:<8s} "
            f"{t * 1e3:9.1f} ms  passes {passes:2d}  floor ratio {t / t_floor:6.1f}x  "
            f"peak extra {mem / 2**20:7.2f} MiB ({100 * mem / Zd.nbytes:4.1f}% of input)  "
            f"T={ts.temperature_:.6f}"
        )
        if t_sk is not None:
            line += f"  sklearn {t_sk * 1e3:9.1f} ms (T={T_sk:.6f})  ratio {t_sk / t:5.1f}x"
            if not quick and dtype is np.float64:
                line += f"  target >= 6x {'OK' if t_sk / t >= 6 else 'MISS'}"
        else:
            line += "  (sklearn < 1.8 has no temperature method: ratio n/a)"
        print(line)


if __name__ == "__main__":
    main()
