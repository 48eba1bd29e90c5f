"""Benchmarks of the array API path: numpy vs PyTorch CPU vs PyTorch CUDA (when a GPU is
available), measured in the same run.

* top-label ECE (``expected_calibration_error``) of 1,000,000 x 1,000 float32
  probabilities;
* binary ECE of 100,000,000 float32 probabilities;
* multiclass ``brier_score`` of 10,000,000 x 10 float64 probabilities;
* ``TemperatureScaling().fit`` on 50,000 x 1,000 logits (float64 and float32), against
  scikit-learn's ``CalibratedClassifierCV(FrozenEstimator(model),
  method="temperature")`` on the same arrays (numpy, and its own array API path on the
  same tensors; scikit-learn >= 1.8);
* ``VectorScaling().fit`` on 50,000 x 100 logits and ``MatrixScaling().fit`` on
  50,000 x 30 logits (float64 and float32; 3,100 and 930 parameters), whose
  optimiser runs on the host while every pass over the logits runs on the device.

Without a GPU the metric sizes are reduced (so that the numpy path fits beside other
work in the memory of a small machine); the sizes run are printed.  The numpy rows give
the ratio to a numpy floor (one read of the input); the PyTorch rows how many times
faster they are than the numpy path (best of interleaved repeats).  PyTorch runs with
``sklearn.config_context(array_api_dispatch=True)``; the script sets
``SCIPY_ARRAY_API=1`` before scipy is imported, as scikit-learn requires.

The PyTorch CPU rows of the metrics have targets: within 1.5x of the numpy path's time
(ECE; "x faster" at least 0.67) and within 2x (Brier score; at least 0.5).
``--metrics-only`` runs the metric rows alone.

Run: python benchmarks/bench_array_api.py [--quick] [--repeat N] [--metrics-only]
"""

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before scipy and scikit-learn load

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from _common import _timed, compare, parse_args, report  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402

from skcalib._core._array_api import to_numpy  # noqa: E402
from skcalib.metrics import brier_score, expected_calibration_error  # noqa: E402
from skcalib.recalibration import MatrixScaling, TemperatureScaling, VectorScaling  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None


class LogitsModel(ClassifierMixin, BaseEstimator):
    """A fitted "model" whose decision_function returns its input: the logits."""

    def fit(self, X, classes):
        self.classes_ = classes  # in the namespace of the logits
        return self

    def decision_function(self, X):
        return X

    def predict(self, X):  # pragma: no cover - not called by the calibration
        return self.classes_[np.argmax(X, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True
        return tags


def devices():
    """The PyTorch devices to run on: CPU, and CUDA when a GPU is there."""
    if torch is None:
        return []
    out = ["cpu"]
    if torch.cuda.is_available():
        out.append("cuda")
    return out


def describe(devs):
    line = f"scikit-learn {sklearn.__version__}"
    if torch is None:
        return line + ", PyTorch not installed: numpy rows only"
    line += f", PyTorch {torch.__version__} ({torch.get_num_threads()} CPU threads)"
    if "cuda" in devs:
        line += f", GPU: {torch.cuda.get_device_name(0)}"
    else:
        line += ", no GPU"
    return line


def on(device, *arrays):
    return [torch.asarray(a, device=device) for a in arrays]


def dispatched(func):
    """``func`` run with array_api_dispatch=True."""

    def run():
        with sklearn.config_context(array_api_dispatch=True):
            return func()

    return run


def bench_ece(label, y, P, devs, repeat, target=None):
    def ece_numpy():
        return expected_calibration_error(y, P)

    floor = (lambda: P.max(axis=1)) if P.ndim == 2 else (lambda: P.max())
    report(f"{label}: numpy", ece_numpy, floor, P.nbytes + y.nbytes, repeat)
    ref = ece_numpy()
    for dev in devs:
        ty, tP = on(dev, y, P)
        run = dispatched(lambda ty=ty, tP=tP: expected_calibration_error(ty, tP))
        value = float(run())
        compare(
            f"{label}: torch {dev}  (ECE {value:.6f}, numpy {ref:.6f})",
            run,
            ece_numpy,
            repeat,
            at_least=target if dev == "cpu" else None,
        )
        del ty, tP


def bench_brier(label, y, P, devs, repeat, target=None):
    def brier_numpy():
        return brier_score(y, P)

    report(f"{label}: numpy", brier_numpy, lambda: np.sum(P), P.nbytes + y.nbytes, repeat)
    ref = brier_numpy()
    for dev in devs:
        ty, tP = on(dev, y, P)
        run = dispatched(lambda ty=ty, tP=tP: brier_score(ty, tP))
        value = float(run())
        compare(
            f"{label}: torch {dev}  (Brier {value:.6f}, numpy {ref:.6f})",
            run,
            brier_numpy,
            repeat,
            at_least=target if dev == "cpu" else None,
        )
        del ty, tP


def compare_once(name, func, peer, repeat):
    """``compare`` for a slow peer: ``func`` best of ``repeat`` runs after a warm-up,
    the peer one run (it is several times slower: one run is its figure)."""
    func()
    t = min(_timed(func) for _ in range(repeat))
    t_peer = _timed(peer)
    print(f"{name:<58s} {t * 1e3:9.2f} ms  peer {t_peer * 1e3:9.2f} ms  {t_peer / t:5.2f}x faster")


def sklearn_temperature(Z, y, classes):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    model = LogitsModel().fit(Z[:1], classes)
    cal = CalibratedClassifierCV(FrozenEstimator(model), method="temperature").fit(Z, y)
    return 1 / float(cal.calibrated_classifiers_[0].calibrators[0].beta_)


def bench_temperature(n, k, devs, repeat):
    rng = np.random.default_rng(0)
    y = rng.integers(0, k, n)
    Z = rng.standard_normal((n, k)) * 3
    Z[np.arange(n), np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n))] += 8.0
    has_sklearn = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 8)
    for dtype in ("float64", "float32"):
        Zd = Z.astype(dtype)
        label = f"TemperatureScaling.fit {n}x{k} {dtype}"

        def fit_numpy(Zd=Zd):
            return TemperatureScaling(input="logits").fit(Zd, y).temperature_

        T = fit_numpy()
        report(
            f"{label}: numpy (T={T:.6f})",
            fit_numpy,
            lambda Zd=Zd: Zd.max(axis=1),
            Zd.nbytes,
            repeat,
        )
        if has_sklearn:
            T_sk = sklearn_temperature(Zd, y, np.arange(k))
            compare_once(
                f"{label}: numpy vs sklearn numpy (T={T_sk:.6f})",
                fit_numpy,
                lambda Zd=Zd: sklearn_temperature(Zd, y, np.arange(k)),
                repeat,
            )
        for dev in devs:
            tZ, ty = on(dev, Zd, y)
            fit_xp = dispatched(
                lambda tZ=tZ, ty=ty: TemperatureScaling(input="logits").fit(tZ, ty).temperature_
            )
            T_xp = fit_xp()
            compare(
                f"{label}: torch {dev} vs numpy (T={T_xp:.6f}, rel. diff {T_xp / T - 1:.1e})",
                fit_xp,
                fit_numpy,
                repeat,
            )
            if has_sklearn:
                classes = torch.arange(k, device=dev)
                sk_xp = dispatched(lambda tZ=tZ, ty=ty, c=classes: sklearn_temperature(tZ, ty, c))
                compare_once(
                    f"{label}: torch {dev} vs sklearn torch {dev}",
                    fit_xp,
                    sk_xp,
                    repeat,
                )
            del tZ, ty
        if not has_sklearn:
            print(f"{label}: scikit-learn < 1.8 has no temperature method: no peer")


def _parameters(est):
    """``coef_`` and ``intercept_`` as one numpy vector (from any namespace)."""
    with sklearn.config_context(array_api_dispatch=True):
        host = [
            to_numpy(a, None if isinstance(a, np.ndarray) else torch)
            for a in (est.coef_, est.intercept_)
        ]
    return np.concatenate([host[0].ravel(), host[1]])


def bench_scaling(cls, n, k, devs, repeat):
    rng = np.random.default_rng(0)
    y = rng.integers(0, k, n)
    Z = rng.standard_normal((n, k)) * 3
    Z[np.arange(n), np.where(rng.random(n) < 0.8, y, rng.integers(0, k, n))] += 8.0
    for dtype in ("float64", "float32"):
        Zd = Z.astype(dtype)
        label = f"{cls.__name__}.fit {n}x{k} {dtype}"

        def fit_numpy(Zd=Zd):
            return cls(input="logits").fit(Zd, y)

        ref = fit_numpy()
        theta = _parameters(ref)
        report(
            f"{label}: numpy ({ref.n_iter_} iterations)",
            fit_numpy,
            lambda Zd=Zd: Zd.max(axis=1),
            Zd.nbytes,
            repeat,
        )
        for dev in devs:
            tZ, ty = on(dev, Zd, y)
            fit_xp = dispatched(lambda tZ=tZ, ty=ty: cls(input="logits").fit(tZ, ty))
            diff = np.max(np.abs(_parameters(fit_xp()) - theta)) / np.max(np.abs(theta))
            compare(
                f"{label}: torch {dev} vs numpy (parameters to {diff:.0e})",
                fit_xp,
                fit_numpy,
                repeat,
            )
            del tZ, ty


def main():
    def options(parser):
        parser.add_argument(
            "--metrics-only", action="store_true", help="the metric rows alone (no fits)"
        )

    args = parse_args(__doc__, options)
    devs = devices()
    print(describe(devs))
    full = "cuda" in devs and not args.quick
    repeat = args.repeat or (1 if args.quick else 3)
    if args.quick:
        (n_top, k_top), n_bin, (n_ts, k_ts) = (2_000, 100), 100_000, (2_000, 100)
        n_brier = 20_000
    elif full:
        (n_top, k_top), n_bin, (n_ts, k_ts) = (1_000_000, 1_000), 100_000_000, (50_000, 1_000)
        n_brier = 10_000_000
    else:  # no GPU: metric sizes reduced by 10x
        (n_top, k_top), n_bin, (n_ts, k_ts) = (100_000, 1_000), 10_000_000, (50_000, 1_000)
        n_brier = 1_000_000
    print(
        f"sizes: top-label {n_top}x{k_top}, binary {n_bin}, Brier {n_brier}x10, "
        f"temperature {n_ts}x{k_ts}"
        + ("" if full or args.quick else " (metric sizes reduced 10x: no GPU)")
    )
    ece_target, brier_target = (None, None) if args.quick else (1 / 1.5, 1 / 2)
    rng = np.random.default_rng(0)
    P = rng.random((n_top, k_top), dtype=np.float32) ** 4
    P /= P.sum(axis=1, keepdims=True)
    y = rng.integers(0, k_top, n_top)
    bench_ece(f"top-label ECE {n_top}x{k_top} float32", y, P, devs, repeat, ece_target)
    del P, y
    p = rng.random(n_bin, dtype=np.float32)
    yb = (rng.random(n_bin, dtype=np.float32) < p).astype(np.int64)
    bench_ece(f"binary ECE {n_bin} float32", yb, p, devs, repeat, ece_target)
    del p, yb
    P = rng.dirichlet(np.ones(10), size=n_brier)
    y = rng.integers(0, 10, n_brier)
    bench_brier(f"multiclass Brier {n_brier}x10 float64", y, P, devs, repeat, brier_target)
    del P, y
    if args.metrics_only:
        return
    bench_temperature(n_ts, k_ts, devs, repeat)
    n_sc, k_vs, k_ms = (2_000, 10, 5) if args.quick else (50_000, 100, 30)
    bench_scaling(VectorScaling, n_sc, k_vs, devs, repeat)
    bench_scaling(MatrixScaling, n_sc, k_ms, devs, repeat)


if __name__ == "__main__":
    main()
