"""The calibrators of skcalib.recalibration: values, references and invariances."""

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn
from scipy.special import log_softmax, softmax
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skcalib._core._validation import PROBA_TOLERANCE
from skcalib.metrics import (
    brier_score,
    expected_calibration_error,
    negative_log_likelihood,
    reliability_curve,
)
from skcalib.recalibration import (
    BetaCalibration,
    EnsembleTemperatureScaling,
    HistogramBinning,
    IsotonicCalibration,
    MatrixScaling,
    PlattScaling,
    ScalingBinning,
    TemperatureScaling,
    VectorScaling,
)
from skcalib.utils._sklearn_compat import InvalidParameterError

from ._slow_recalibration import (
    nll_at_temperature,
    slow_histogram_binary,
    slow_logistic,
    slow_temperature,
    slow_vector_scaling,
)

ALL = [
    TemperatureScaling,
    VectorScaling,
    MatrixScaling,
    EnsembleTemperatureScaling,
    HistogramBinning,
    IsotonicCalibration,
    BetaCalibration,
    ScalingBinning,
    PlattScaling,
]
IDS = [c.__name__ for c in ALL]


def synthetic(n, k, temperature=2.5, seed=0):
    """True logits L, labels drawn from softmax(L), and an overconfident model's
    logits ``temperature * L`` (so the known best temperature is ``temperature``)."""
    rng = np.random.default_rng(seed)
    L = rng.standard_normal((n, k)) * 1.5
    P_true = softmax(L, axis=1)
    y = (rng.random(n)[:, None] > np.cumsum(P_true, axis=1)).sum(axis=1)
    y = np.minimum(y, k - 1)
    return temperature * L, y, P_true


# --------------------------------------------------------------------------------------
# the synthetic problem: every method improves held-out NLL and ECE
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_every_method_lowers_held_out_nll_and_ece(cls, k):
    Z, y, _ = synthetic(16_000, k, seed=k)
    Zc, yc, Zt, yt = Z[:8000], y[:8000], Z[8000:], y[8000:]
    if k == 2:  # binary: the 1-D decision function (log-odds of class 1)
        Zc, Zt = Zc[:, 1] - Zc[:, 0], Zt[:, 1] - Zt[:, 0]
        P0 = np.column_stack([1 - 1 / (1 + np.exp(-Zt)), 1 / (1 + np.exp(-Zt))])
    else:
        P0 = softmax(Zt, axis=1)
    cal = cls(input="logits").fit(Zc, yc)
    P1 = cal.predict_proba(Zt)
    assert negative_log_likelihood(yt, P1) < negative_log_likelihood(yt, P0) - 0.02
    # (Platt scaling's one-vs-rest sigmoids see one logit at a time, not the softmax:
    # with 4 classes it removes less of the ECE: 0.202 -> 0.128)
    factor = 0.7 if cls is PlattScaling and k > 2 else 0.5
    assert expected_calibration_error(yt, P1) < factor * expected_calibration_error(yt, P0)


def test_temperature_recovers_the_known_temperature():
    Z, y, _ = synthetic(40_000, 5, temperature=2.5)
    ts = TemperatureScaling().fit(Z, y)
    assert ts.input_type_ == "logits"
    assert abs(ts.temperature_ - 2.5) < 0.06
    assert ts.n_iter_ <= 10


# --------------------------------------------------------------------------------------
# temperature scaling
# --------------------------------------------------------------------------------------


def test_fitted_temperature_minimises_negative_log_likelihood():
    Z, y, _ = synthetic(3000, 4, temperature=1.7, seed=3)
    sw = np.random.default_rng(1).integers(0, 4, 3000).astype(float)
    ts = TemperatureScaling().fit(Z, y, sample_weight=sw)
    T = ts.temperature_

    def nll(t):
        return negative_log_likelihood(y, softmax(Z / t, axis=1), sample_weight=sw)

    best = nll(T)
    for factor in (1 - 1e-4, 1 + 1e-4, 1 - 1e-6, 1 + 1e-6):
        assert best <= nll(T * factor)
    # the calibrated probabilities are those of that temperature
    np.testing.assert_allclose(ts.predict_proba(Z), softmax(Z / T, axis=1), rtol=1e-12)


def test_temperature_equals_slow_reference():
    Z, y, _ = synthetic(300, 3, temperature=0.6, seed=5)
    w = np.random.default_rng(2).random(300)
    for weights in (None, w):
        T = TemperatureScaling().fit(Z, y, sample_weight=weights).temperature_
        assert T == pytest.approx(slow_temperature(Z.tolist(), y.tolist(), weights), rel=1e-7)
        # and the loop NLL is minimal there
        ref = nll_at_temperature(Z.tolist(), y.tolist(), T, weights)
        assert ref <= nll_at_temperature(Z.tolist(), y.tolist(), T * 1.001, weights)


def test_temperature_warns_when_out_of_steps():
    Z, y, _ = synthetic(500, 3, temperature=3.0, seed=1)
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter"):
        ts = TemperatureScaling(max_iter=1).fit(Z, y)
    assert ts.n_iter_ == 1


def test_temperature_keeps_the_argmax():
    Z, y, _ = synthetic(2000, 7, seed=9)
    P = TemperatureScaling().fit(Z, y).predict_proba(Z)
    np.testing.assert_array_equal(P.argmax(axis=1), Z.argmax(axis=1))


def test_temperature_stops_at_its_bound_on_separable_data():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((500, 4))
    y = Z.argmax(axis=1)  # the argmax is always right: the NLL decreases as T -> 0
    with pytest.warns(ConvergenceWarning, match="lower bound 0.0001"):
        ts = TemperatureScaling().fit(Z, y)
    assert ts.temperature_ == pytest.approx(1e-4)
    assert ts.n_iter_ < 30
    assert np.isfinite(ts.predict_proba(Z)).all()
    assert ts.n_iter_ == 1  # recognised before any Newton step
    # large margins (a small calibration fold of an easy problem): Newton steps on
    # 1 / T would only creep towards the bound, a fixed step per pass, and used to run
    # out of max_iter far from it
    rng = np.random.default_rng(1)
    y20 = rng.integers(0, 3, 20)
    Z20 = rng.standard_normal((20, 3))
    Z20[np.arange(20), y20] += 15.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ts = TemperatureScaling().fit(Z20, y20)
    assert [str(w.message) for w in caught if "lower bound" not in str(w.message)] == []
    assert ts.temperature_ == pytest.approx(1e-4) and ts.n_iter_ == 1
    # one error among them: a finite temperature, reached by Newton steps
    y20[0] = (y20[0] + 1) % 3
    ts = TemperatureScaling().fit(Z20, y20)
    assert 1e-4 < ts.temperature_ < 1e4
    assert ts.temperature_ == pytest.approx(slow_temperature(Z20.tolist(), y20.tolist()), rel=1e-6)
    # equal logits: the NLL does not depend on the temperature, which stays 1
    ts = TemperatureScaling(input="logits").fit(np.zeros((6, 3)), [0, 1, 2, 0, 1, 2])
    assert ts.temperature_ == 1.0
    # logits pointing the wrong way: the upper bound
    with pytest.warns(ConvergenceWarning, match="upper bound 10000"):
        ts = TemperatureScaling().fit(-Z, y)
    assert ts.temperature_ == pytest.approx(1e4)


def test_temperature_converges_on_1000_near_one_hot_classes():
    rng = np.random.default_rng(0)
    n, k = 3000, 1000
    y = rng.integers(0, k, n)
    Z = rng.standard_normal((n, k))
    pred = np.where(rng.random(n) < 0.9, y, rng.integers(0, k, n))
    Z[np.arange(n), pred] += 40.0  # probabilities within 1e-15 of one-hot
    P = softmax(Z, axis=1)
    assert (P.max(axis=1) > 1 - 1e-12).mean() > 0.99
    # (some of the 1000 classes have no sample: the classes are given)
    ts = TemperatureScaling(classes=np.arange(k)).fit(P, y)  # read through their logarithm
    assert ts.input_type_ == "proba"
    assert ts.n_iter_ <= 20
    logP = np.log(np.maximum(P, np.finfo(float).eps))  # the documented clipping
    t_ref = slow_temperature(logP[:200].tolist(), y[:200].tolist())
    t_sub = TemperatureScaling(input="logits", classes=np.arange(k))
    t_sub = t_sub.fit(logP[:200], y[:200]).temperature_
    assert t_sub == pytest.approx(t_ref, rel=1e-6)
    assert np.isfinite(ts.temperature_) and ts.temperature_ > 1


def test_temperature_float32_stays_float32_and_needs_no_copy():
    Z, y, _ = synthetic(20_000, 200, seed=4)
    Z32 = Z.astype(np.float32)
    t64 = TemperatureScaling().fit(Z, y).temperature_
    ts = TemperatureScaling().fit(Z32, y)
    assert ts.temperature_ == pytest.approx(t64, rel=1e-4)
    assert ts.predict_proba(Z32).dtype == np.float32
    for arr in (Z, Z32):
        tracemalloc.start()
        TemperatureScaling().fit(arr, y)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        # two chunk buffers (2 MiB each) and a few per-row vectors, no n x k copy
        assert peak < 4 * 2**20 + 64 * arr.shape[0] < 0.5 * arr.nbytes, peak


def test_probabilities_and_their_logarithms_give_the_same_temperature():
    Z, y, _ = synthetic(2000, 3, seed=8)
    P = softmax(Z, axis=1)
    t_proba = TemperatureScaling().fit(P, y)
    t_logp = TemperatureScaling(input="logits").fit(log_softmax(Z, axis=1), y)
    t_raw = TemperatureScaling(input="logits").fit(Z, y)
    assert t_proba.input_type_ == "proba"
    assert t_proba.temperature_ == pytest.approx(t_raw.temperature_, rel=1e-9)
    assert t_logp.temperature_ == pytest.approx(t_raw.temperature_, rel=1e-9)
    # binary: 1-D positive-class probability, two columns, and the log-odds agree
    d = Z[:, 1] - Z[:, 0]
    yb = (y == 1).astype(int)
    p = 1 / (1 + np.exp(-d))
    a = TemperatureScaling().fit(p, yb)
    b = TemperatureScaling().fit(np.column_stack([1 - p, p]), yb)
    c = TemperatureScaling().fit(d, yb)
    assert a.input_type_ == "proba" and c.input_type_ == "logits"
    assert a.temperature_ == pytest.approx(c.temperature_, rel=1e-7)
    assert b.temperature_ == pytest.approx(c.temperature_, rel=1e-7)


def test_input_proba_rejects_logits_with_the_metrics_tolerance():
    Z, y, _ = synthetic(100, 3)
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\].*input='proba' says"):
        TemperatureScaling(input="proba").fit(Z, y)
    P = softmax(Z, axis=1)
    # a row off by less than the tolerance of skcalib.metrics passes
    P2 = P.copy()
    P2[0, 0] += 0.5 * PROBA_TOLERANCE
    TemperatureScaling(input="proba").fit(P2, y)
    P2[0, 0] += PROBA_TOLERANCE
    with pytest.raises(ValueError, match="row 0 sums to"):
        TemperatureScaling(input="proba").fit(P2, y)


# --------------------------------------------------------------------------------------
# histogram binning: the bins of reliability_curve
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("multiclass", ["auto", "top_label", "classwise"])
@pytest.mark.parametrize("k", [2, 4])
def test_histogram_bin_values_equal_reliability_curve(strategy, multiclass, k):
    Z, y, _ = synthetic(3000, k, seed=k)
    P = softmax(Z, axis=1)
    sw = np.random.default_rng(0).integers(0, 3, 3000).astype(float)
    hb = HistogramBinning(n_bins=10, strategy=strategy, multiclass=multiclass)
    hb.fit(P, y, sample_weight=sw)
    curve = reliability_curve(
        y, P, n_bins=10, strategy=strategy, multiclass=multiclass, sample_weight=sw
    )
    filled = ~np.isnan(curve.prob_true)
    np.testing.assert_array_equal(hb.bin_edges_, curve.bin_edges)
    np.testing.assert_array_equal(hb.bin_counts_, curve.bin_count)
    np.testing.assert_array_equal(hb.bin_values_[filled], curve.prob_true[filled])
    mid = (curve.bin_edges[..., :-1] + curve.bin_edges[..., 1:]) / 2
    np.testing.assert_array_equal(hb.bin_values_[~filled], mid[~filled])


def test_histogram_binary_equals_slow_loop_and_explicit_edges():
    rng = np.random.default_rng(3)
    p = rng.random(500)
    y = (rng.random(500) < p**2).astype(int)
    edges = np.array([0.0, 0.1, 0.25, 0.5, 0.5000001, 0.9, 1.0])
    hb = HistogramBinning(bins=edges).fit(p, y)
    ref = slow_histogram_binary(p, y, edges)
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(hb.bin_values_[ok], ref[ok], rtol=1e-14)
    # prediction: the value of each probability's bin (right-closed)
    q = np.array([0.0, 0.1, 0.1000001, 0.5, 0.95, 1.0])
    expected = hb.bin_values_[[0, 0, 1, 2, 5, 5]]
    np.testing.assert_array_equal(hb.predict_proba(q)[:, 1], expected)


def test_histogram_top_label_and_classwise_predictions():
    Z, y, _ = synthetic(4000, 4, seed=2)
    P = softmax(Z, axis=1)
    top = HistogramBinning(n_bins=8).fit(P, y)
    Q = top.predict_proba(P)
    np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-12)
    conf_bin = np.searchsorted(top.bin_edges_[1:-1], P.max(axis=1), side="left")
    np.testing.assert_allclose(Q[np.arange(4000), P.argmax(axis=1)], top.bin_values_[conf_bin])
    # the other classes keep their proportions
    rest = P.copy()
    rest[np.arange(4000), P.argmax(axis=1)] = 0
    qrest = Q.copy()
    qrest[np.arange(4000), P.argmax(axis=1)] = 0
    np.testing.assert_allclose(
        qrest / qrest.sum(axis=1, keepdims=True), rest / rest.sum(axis=1, keepdims=True)
    )
    cw = HistogramBinning(n_bins=8, multiclass="classwise").fit(P, y)
    Qc = cw.predict_proba(P)
    raw = np.column_stack(
        [
            cw.bin_values_[j][np.searchsorted(cw.bin_edges_[j][1:-1], P[:, j], side="left")]
            for j in range(4)
        ]
    )
    np.testing.assert_allclose(Qc, raw / raw.sum(axis=1, keepdims=True), rtol=1e-12)


def test_histogram_bad_edges():
    with pytest.raises(ValueError, match="bins must be strictly increasing"):
        HistogramBinning(bins=[0, 0.5, 0.4, 1]).fit([0.2, 0.7], [0, 1])
    with pytest.raises(ValueError, match="bins must cover"):
        HistogramBinning(bins=[0.1, 1]).fit([0.2, 0.7], [0, 1])


# --------------------------------------------------------------------------------------
# golden values of reference packages
# --------------------------------------------------------------------------------------

# betacal 1.1.0 (Kull et al.'s package), BetaCalibration(parameters="abm") fitted on
# these 30 points: predictions at Q_BETA.  betacal fits with lbfgs at its default
# tolerance; skcalib solves the same likelihood to machine precision, hence atol 5e-4.
P_BETA = [0.62, 0.881, 0.765, 0.236, 0.308, 0.859, 0.025, 0.808, 0.785, 0.469, 0.311,
          0.287, 0.265, 0.447, 0.504, 0.551, 0.976, 0.781, 0.617, 0.969, 0.227, 0.174,
          0.608, 0.062, 0.054, 0.514, 0.468, 0.9, 0.624, 0.514]  # fmt: skip
Y_BETA = [0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1,
          0, 1, 0, 0]  # fmt: skip
Q_BETA = [0.05, 0.2, 0.5, 0.8, 0.95]
BETACAL_PRED = [0.0008843607511407724, 0.015112982433055934, 0.18762858899136012,
                0.8160671866529523, 0.9933504029430312]  # fmt: skip

# uncertainty-calibration 0.1.4 (Kumar et al.'s package, calibration/calibrators.py),
# PlattBinnerCalibrator(40, num_bins=4).train_calibration(P_SB, Y_SB), calibrate(P_SB)
P_SB = [0.052, 0.213, 0.352, 0.47, 0.89, 0.689, 0.346, 0.036, 0.173, 0.977, 0.461, 0.683,
        0.072, 0.053, 0.832, 0.584, 0.316, 0.325, 0.106, 0.186, 0.044, 0.826, 0.468,
        0.142, 0.73, 0.208, 0.079, 0.594, 0.88, 0.046, 0.793, 0.203, 0.109, 0.037, 0.301,
        0.718, 0.493, 0.839, 0.229, 0.323]  # fmt: skip
Y_SB = [0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0,
        1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0]  # fmt: skip
SB_LEVELS = [0.006090172827108813, 0.05031068866395767, 0.22368682926406516,
             0.7200641156314977]  # fmt: skip
SB_PRED_LEVEL = [0, 1, 2, 2, 3, 3, 2, 0, 1, 3, 2, 2, 0, 0, 3, 2, 1, 2, 0, 1, 0, 3, 2, 1,
                 3, 1, 0, 2, 3, 0, 3, 1, 0, 0, 1, 3, 2, 3, 1, 1]  # fmt: skip


def test_beta_calibration_matches_betacal():
    bc = BetaCalibration().fit(P_BETA, Y_BETA)
    np.testing.assert_allclose(bc.predict_proba(Q_BETA)[:, 1], BETACAL_PRED, atol=5e-4)
    a, b, _ = bc.coef_[0]
    assert a > 0 and b > 0


def test_beta_calibration_equals_slow_logistic_fit():
    p = np.array(P_BETA)
    F = np.column_stack([np.log(p), -np.log1p(-p), np.ones(30)])
    ref = slow_logistic(F, np.array(Y_BETA, float))
    np.testing.assert_allclose(BetaCalibration().fit(p, Y_BETA).coef_[0], ref, rtol=1e-5)


def test_beta_calibration_drops_a_negative_coefficient():
    # outcomes from a beta map with a < 0 (not monotone): the unconstrained fit has
    # a < 0, so a is dropped (set to 0) and b, c refitted, as betacal does
    rng = np.random.default_rng(0)
    p = rng.uniform(0.001, 0.999, 5000)
    s = -0.8 * np.log(p) + 2.0 * np.log1p(-p) * -1 - 1.0
    y = (rng.random(5000) < 1 / (1 + np.exp(-s))).astype(int)
    coef = BetaCalibration().fit(p, y).coef_[0]
    assert coef[0] == 0.0 and coef[1] > 0
    F = np.column_stack([-np.log1p(-p), np.ones(5000)])
    np.testing.assert_allclose(coef[1:], slow_logistic(F, y.astype(float)), rtol=1e-5)


def test_scaling_binning_matches_uncertainty_calibration():
    sb = ScalingBinning(n_bins=4).fit(P_SB, Y_SB)
    expected = np.array(SB_LEVELS)[SB_PRED_LEVEL]
    np.testing.assert_allclose(sb.predict_proba(P_SB)[:, 1], expected, atol=5e-4)
    assert np.unique(sb.predict_proba(P_SB)[:, 1]).size == 4


def test_vector_scaling_equals_slow_reference():
    Z, y, _ = synthetic(150, 3, seed=1)
    vs = VectorScaling(alpha=0.01).fit(Z, y)
    ref = slow_vector_scaling(Z, y, 0.01)
    np.testing.assert_allclose(np.concatenate([vs.coef_, vs.intercept_]), ref, atol=1e-5)


def test_unpenalised_scaling_equals_sklearn_logistic_regression():
    # matrix scaling with alpha=0 is multinomial logistic regression on the logits;
    # binary vector scaling of a 1-D log-odds is logistic regression on it (Platt)
    Z, y, _ = synthetic(3000, 3, seed=6)
    lr = LogisticRegression(penalty=None, tol=1e-12, max_iter=10_000).fit(Z, y)
    ms = MatrixScaling(alpha=0.0).fit(Z, y)
    np.testing.assert_allclose(ms.predict_proba(Z), lr.predict_proba(Z), atol=1e-6)
    d = Z[:, 1] - Z[:, 0]
    yb = (y == 1).astype(int)
    lr = LogisticRegression(penalty=None, tol=1e-12, max_iter=10_000).fit(d[:, None], yb)
    vs = VectorScaling(alpha=0.0).fit(d, yb)
    np.testing.assert_allclose(vs.predict_proba(d), lr.predict_proba(d[:, None]), atol=1e-6)


def test_matrix_scaling_penalty_shrinks_to_identity():
    Z, y, _ = synthetic(500, 3, seed=2)
    ms = MatrixScaling(alpha=1e6).fit(Z, y)
    np.testing.assert_allclose(ms.coef_, np.eye(3), atol=1e-4)
    np.testing.assert_allclose(ms.intercept_, 0, atol=1e-4)


@pytest.mark.parametrize("loss", ["mse", "nll"])
def test_ensemble_temperature_scaling_weights(loss):
    Z, y, _ = synthetic(3000, 4, seed=3)
    ets = EnsembleTemperatureScaling(loss=loss).fit(Z, y)
    assert ets.weights_.min() >= 0 and ets.weights_.sum() == pytest.approx(1)
    assert ets.temperature_ == pytest.approx(TemperatureScaling().fit(Z, y).temperature_)
    ts = TemperatureScaling().fit(Z, y).predict_proba(Z)
    P = ets.predict_proba(Z)
    expected = (
        ets.weights_[0] * softmax(Z / ets.temperature_, axis=1)
        + ets.weights_[1] * softmax(Z, axis=1)
        + ets.weights_[2] / 4
    )
    np.testing.assert_allclose(P, expected, rtol=1e-12)
    # (1, 0, 0) is feasible: the fitted mixture is at least as good on its loss
    if loss == "nll":
        assert negative_log_likelihood(y, P) <= negative_log_likelihood(y, ts) + 1e-10
    else:
        assert brier_score(y, P) <= brier_score(y, ts) + 1e-10


def test_isotonic_is_monotone_and_renormalised():
    Z, y, _ = synthetic(3000, 3, seed=4)
    P = softmax(Z, axis=1)
    iso = IsotonicCalibration().fit(P, y)
    Q = iso.predict_proba(P)
    np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-12)
    for j, reg in enumerate(iso.calibrators_):
        order = np.argsort(P[:, j])
        assert (np.diff(reg.predict(P[order, j])) >= 0).all()


# --------------------------------------------------------------------------------------
# invariances every calibrator honours
# --------------------------------------------------------------------------------------


def _data(k, n=400, seed=0):
    Z, y, _ = synthetic(n, k, seed=seed)
    return softmax(Z, axis=1), y


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_fit_returns_self_rows_sum_to_one_clone_and_pickle(cls):
    P, y = _data(3)
    est = cls()
    assert est.fit(P, y) is est
    Q = est.predict_proba(P)
    assert Q.shape == (400, 3)
    assert (Q >= 0).all()
    np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-12)
    np.testing.assert_array_equal(est.predict(P), est.classes_[Q.argmax(axis=1)])
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_proba(P), Q)
    fresh = clone(est)
    assert not hasattr(fresh, "classes_")
    np.testing.assert_array_equal(fresh.fit(P, y).predict_proba(P), Q)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_sample_weight_is_repetition(cls, k):
    P, y = _data(k, n=300, seed=k)
    sw = np.random.default_rng(5).integers(0, 4, 300)
    a = cls().fit(P, y, sample_weight=sw).predict_proba(P)
    b = cls().fit(np.repeat(P, sw, axis=0), np.repeat(y, sw)).predict_proba(P)
    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_float32_stays_float32(cls):
    P, y = _data(3)
    P32 = P.astype(np.float32)
    est = cls().fit(P32, y)
    Q = est.predict_proba(P32)
    assert Q.dtype == np.float32
    np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-5)
    Q64 = cls().fit(P, y).predict_proba(P)
    assert np.abs(Q - Q64).mean() < 1e-3


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_bad_input_gives_a_clear_value_error(cls):
    P, y = _data(3)
    est = cls().fit(P, y)
    with pytest.raises(ValueError, match="X has 2 features, but .* is expecting 3"):
        est.predict_proba(P[:, :2])
    with pytest.raises(ValueError, match="Reshape your data"):
        est.predict_proba(P[:, 0])
    # labels the columns cannot hold
    with pytest.raises(ValueError, match="X has 3 columns but y has 4 classes"):
        cls().fit(P, np.where(np.arange(400) == 0, 7, y))
    with pytest.raises(ValueError, match="X has 3 columns but y has 4 classes"):
        cls().fit(P, np.array(["a", "b", "c", "d"])[np.arange(400) % 4])
    bad = P.copy()
    bad[5, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN \(first at index 5, 1\)"):
        cls().fit(bad, y)
    with pytest.raises(ValueError, match="NaN"):
        est.predict_proba(bad)
    with pytest.raises(ValueError, match="y and X have different numbers of samples"):
        cls().fit(P, y[:-1])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        cls().fit(P, y, sample_weight=-np.ones(400))
    with pytest.raises(ValueError, match="input"):
        cls(input="probabilities").fit(P, y)
    # probabilities at fit, logits at predict time: rejected, never misread
    with pytest.raises(ValueError, match="probabilities.*fitted on probabilities"):
        est.predict_proba(np.log(P))


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_labels_pandas_and_inputs_untouched(cls):
    pd = pytest.importorskip("pandas")
    P, y = _data(3)
    names = np.array(["cat", "dog", "emu"])
    P_before = P.copy()
    est = cls().fit(pd.DataFrame(P), pd.Series(names[y]))
    np.testing.assert_array_equal(P, P_before)
    np.testing.assert_array_equal(est.classes_, names)
    ref = cls().fit(P, y)
    np.testing.assert_allclose(est.predict_proba(P), ref.predict_proba(P), rtol=1e-12)
    assert set(est.predict(P)) <= set(names)
    # binary 1-D input: the positive class is the greater label
    pb, yb = _data(2)
    est = cls().fit(pb[:, 1], np.array(["no", "yes"])[yb])
    np.testing.assert_array_equal(est.classes_, ["no", "yes"])
    assert est.predict_proba(pb[:, 1]).shape == (400, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict_proba(pb[:, 1].tolist())


# --------------------------------------------------------------------------------------
# Platt scaling: scikit-learn's sigmoid calibration
# --------------------------------------------------------------------------------------

# sklearn 1.9.1, sklearn/calibration.py: _sigmoid_calibration(S_PLATT, Y_PLATT) (and with
# sample_weight=W_PLATT, and on 100 * S_PLATT, which it rescales) returned (a, b) with
# P(y=1 | s) = 1 / (1 + exp(a * s + b)); its L-BFGS stops at gtol=1e-6, hence rtol 1e-6
S_PLATT = [-2.1, -1.7, -1.2, -0.9, -0.4, -0.3, 0.0, 0.2, 0.5, 0.8, 1.1, 1.3, 1.9, 2.4, 3.0,
           -0.6, 0.4, 1.6, -1.4, 2.2]  # fmt: skip
Y_PLATT = [0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1]
W_PLATT = [1, 2, 1, 1, 3, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1]
SKLEARN_AB = (-1.0458260274918052, 0.3365764871590143)
SKLEARN_AB_WEIGHTED = (-1.2386570966808519, 0.7527223942788426)
SKLEARN_AB_SCALED = (-0.010458258718277855, 0.3365763303839017)


def test_platt_scaling_equals_sklearn_sigmoid_calibration():
    s, y = np.array(S_PLATT), np.array(Y_PLATT)
    for scores, weights, ab in [
        (s, None, SKLEARN_AB),
        (s, W_PLATT, SKLEARN_AB_WEIGHTED),
        (100 * s, None, SKLEARN_AB_SCALED),
    ]:
        platt = PlattScaling().fit(scores, y, sample_weight=weights)
        assert platt.input_type_ == "logits"
        np.testing.assert_allclose(-platt.coef_[0], ab, rtol=1e-6)
        expected = 1 / (1 + np.exp(ab[0] * scores + ab[1]))
        np.testing.assert_allclose(platt.predict_proba(scores)[:, 1], expected, atol=1e-7)


def test_platt_scaling_fits_platt_targets_exactly():
    # the optimum of the cross-entropy against the smoothed targets: zero gradient
    s, y = np.array(S_PLATT), np.array(Y_PLATT)
    n_pos, n_neg = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    F = np.column_stack([s, np.ones(20)])
    np.testing.assert_allclose(PlattScaling().fit(s, y).coef_[0], slow_logistic(F, t), rtol=1e-6)


def test_platt_scaling_reads_scores_as_given():
    Z, y, _ = synthetic(2000, 3, seed=12)
    P = softmax(Z, axis=1)
    # multiclass: one sigmoid per column, rows renormalised
    for X in (Z, P):
        platt = PlattScaling().fit(X, y)
        raw = np.column_stack(
            [1 / (1 + np.exp(-(c[0] * X[:, j] + c[1]))) for j, c in enumerate(platt.coef_)]
        )
        np.testing.assert_allclose(
            platt.predict_proba(X), raw / raw.sum(axis=1, keepdims=True), rtol=1e-12
        )
    # binary: probabilities -> their column 1 (not a logit of it); logits -> the log-odds
    yb = (y == 1).astype(int)
    Pb = softmax(Z[:, :2], axis=1)
    one = PlattScaling().fit(Pb[:, 1], yb)
    two = PlattScaling().fit(Pb, yb)
    assert two.input_type_ == "proba"
    np.testing.assert_allclose(two.coef_, one.coef_, rtol=1e-12)
    d = Z[:, 1] - Z[:, 0]
    np.testing.assert_allclose(
        PlattScaling(input="logits").fit(Z[:, :2], yb).coef_,
        PlattScaling().fit(d, yb).coef_,
        rtol=1e-12,
    )


# --------------------------------------------------------------------------------------
# the classes parameter
# --------------------------------------------------------------------------------------


def test_classes_parameter_gives_the_columns_their_labels():
    # a 3-class model with labels 1..3, calibrated on a slice without class 3
    Z, y, _ = synthetic(3000, 3, seed=13)
    P = softmax(Z, axis=1)
    labels = np.array([1, 2, 3])
    keep = y != 2
    ts = TemperatureScaling(classes=[1, 2, 3]).fit(P[keep], labels[y][keep])
    np.testing.assert_array_equal(ts.classes_, [1, 2, 3])
    np.testing.assert_array_equal(ts.predict(P), labels[P.argmax(axis=1)])
    # the temperature is that of the column indices 0..2, and of the slow reference
    ref = TemperatureScaling(classes=[0, 1, 2]).fit(P[keep], y[keep])
    assert ts.temperature_ == ref.temperature_
    logP = np.log(P[keep][:300])
    small = TemperatureScaling(input="logits", classes=[1, 2, 3])
    small.fit(logP, labels[y][keep][:300])
    assert small.temperature_ == pytest.approx(
        slow_temperature(logP.tolist(), y[keep][:300].tolist()), rel=1e-6
    )
    # without classes, y's two labels cannot name 3 columns: a ValueError (it read
    # them as the classes 0, 1, 2 before, and predicted label 3 as 2)
    msg = r"X has 3 columns but y has 2 classes \[1, 2\]; .*classes="
    with pytest.raises(ValueError, match=msg):
        TemperatureScaling().fit(P[keep], labels[y][keep])
    # the order of classes is the column order, whatever the sort order
    rev = TemperatureScaling(classes=["c", "b", "a"]).fit(P, np.array(["c", "b", "a"])[y])
    np.testing.assert_array_equal(rev.classes_, ["c", "b", "a"])
    np.testing.assert_array_equal(rev.predict(P), np.array(["c", "b", "a"])[P.argmax(axis=1)])
    # a 1-D X: the two classes, the positive one last
    p1 = P[:, 1] / (P[:, 0] + P[:, 1])
    yb = np.where(y == 1, "yes", "no")
    a = BetaCalibration(classes=["yes", "no"]).fit(1 - p1, yb)
    b = BetaCalibration().fit(p1, yb)
    np.testing.assert_allclose(a.predict_proba(1 - p1)[:, ::-1], b.predict_proba(p1), atol=1e-9)
    single = IsotonicCalibration(classes=["no", "yes"]).fit(p1[:5], ["no"] * 5)
    np.testing.assert_array_equal(single.predict_proba(p1[:3])[:, 1], 0.0)


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_every_calibrator_fits_with_a_class_missing(cls):
    Z, y, _ = synthetic(2000, 3, seed=14)
    P = softmax(Z, axis=1)
    labels = np.array(["a", "b", "c"])
    keep = y != 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls(classes=labels).fit(P[keep], labels[y][keep])
    np.testing.assert_array_equal(est.classes_, labels)
    Q = est.predict_proba(P)
    assert Q.shape == (2000, 3) and np.isfinite(Q).all() and (Q >= 0).all()
    np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-12)
    assert set(est.predict(P)) <= set(labels)


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_bad_classes_name_the_argument(cls):
    P, y = _data(3)
    with pytest.raises(ValueError, match="classes has 2 labels but X has 3 columns"):
        cls(classes=[0, 1]).fit(P, y)
    with pytest.raises(ValueError, match=r"y contains labels not in classes \[0, 1, 5\]: \[2\]"):
        cls(classes=[0, 1, 5]).fit(P, y)
    with pytest.raises(ValueError, match="classes contains duplicates"):
        cls(classes=[0, 1, 1]).fit(P, y)
    with pytest.raises(ValueError, match="classes must be a 1-D array-like"):
        cls(classes=[[0, 1, 2]]).fit(P, y)
    with pytest.raises(ValueError, match="y holds the single class 1 and X is 1-D: pass classes="):
        cls().fit(P[:5, 1], [1] * 5)


# --------------------------------------------------------------------------------------
# parameter validation as scikit-learn estimators do it
# --------------------------------------------------------------------------------------


def test_skip_parameter_validation_is_honoured():
    Z, y, _ = synthetic(300, 3, seed=15)
    bad = TemperatureScaling(max_iter=50.0)  # a float: not an Integral
    with pytest.raises(InvalidParameterError, match="max_iter"):
        bad.fit(Z, y)
    with sklearn.config_context(skip_parameter_validation=True):
        T = bad.fit(Z, y).temperature_
    assert T == TemperatureScaling(max_iter=50).fit(Z, y).temperature_


def test_messages_name_x_at_the_source():
    P, y = _data(3)
    bad = P.copy()
    bad[7, 2] = -0.25
    with pytest.raises(ValueError) as exc:
        TemperatureScaling(input="proba").fit(bad, y)
    assert str(exc.value) == (
        "X must contain probabilities in [0, 1]; X[7, 2] = -0.25 (input='proba' says X "
        "holds probabilities)"
    )
    bad = P.copy()
    bad[3] = 0.2
    with pytest.raises(ValueError, match=r"^X rows must sum to 1 .*; row 3 sums to 0.6"):
        IsotonicCalibration(input="proba").fit(bad, y)
    msg = r"^X must contain probabilities in \[0, 1\]; X\[4\] = 1.5"
    with pytest.raises(ValueError, match=msg):
        PlattScaling(input="proba").fit(np.where(np.arange(400) == 4, 1.5, P[:, 0]), y % 2)
    assert "y_proba" not in str(exc.value)


class _GradTensor:
    """A stand-in of a PyTorch tensor on a GPU that requires grad: numpy cannot
    convert it until it is detached and moved to the CPU (as with torch)."""

    __module__ = "torch"

    def __init__(self, a, requires_grad=True, device="cuda"):
        self.a, self.requires_grad, self.device = np.asarray(a), requires_grad, device
        self.ndim = self.a.ndim

    def __array__(self, dtype=None, copy=None):
        if self.requires_grad or self.device != "cpu":
            raise RuntimeError("Can't call numpy() on Tensor that requires grad.")
        return self.a if dtype is None else self.a.astype(dtype)

    def __len__(self):
        return len(self.a)

    def detach(self):
        return _GradTensor(self.a, False, self.device)

    def cpu(self):
        return _GradTensor(self.a, self.requires_grad, "cpu")


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_tensors_are_detached(cls):
    Z, y, _ = synthetic(300, 3, seed=16)
    P = softmax(Z, axis=1)
    with pytest.raises(RuntimeError):
        np.asarray(_GradTensor(P))
    est = cls().fit(_GradTensor(P), _GradTensor(y, requires_grad=False))
    ref = cls().fit(P, y)
    np.testing.assert_array_equal(est.predict_proba(_GradTensor(P)), ref.predict_proba(P))
    w = np.random.default_rng(0).random(300)
    est = cls(classes=_GradTensor([0, 1, 2], requires_grad=False))
    est.fit(_GradTensor(P), y, sample_weight=_GradTensor(w))
    ref = cls().fit(P, y, sample_weight=w)
    np.testing.assert_array_equal(est.predict_proba(P), ref.predict_proba(P))


def test_torch_tensors_that_require_grad():
    torch = pytest.importorskip("torch")
    Z, y, _ = synthetic(500, 3, seed=16)
    t = torch.tensor(Z, requires_grad=True)
    ts = TemperatureScaling().fit(t * 1.0, torch.tensor(y))
    assert ts.temperature_ == TemperatureScaling().fit(Z, y).temperature_
    np.testing.assert_array_equal(ts.predict_proba(t * 1.0), ts.predict_proba(Z))


# --------------------------------------------------------------------------------------
# beta calibration keeps its slopes >= 0; the temperature's bound warnings
# --------------------------------------------------------------------------------------


def test_beta_calibration_stays_monotone_on_anti_correlated_scores():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.01, 0.99, 2000)
    y = (rng.random(2000) < 1 - p).astype(int)  # the scores point the wrong way
    F = np.column_stack([np.log(p), -np.log1p(-p), np.ones(2000)])
    # betacal's rule alone (drop a, refit) leaves a negative b here
    assert slow_logistic(F, y.astype(float))[0] < 0
    assert slow_logistic(F[:, 1:], y.astype(float))[0] < -1
    bc = BetaCalibration().fit(p, y)
    a, b, c = bc.coef_[0]
    assert a == 0.0 and b == 0.0  # the maximum over a, b >= 0: a constant
    assert 1 / (1 + np.exp(-c)) == pytest.approx(y.mean(), rel=1e-9)
    q = np.linspace(0.01, 0.99, 50)
    assert (np.diff(bc.predict_proba(q)[:, 1]) >= 0).all()
    # betacal's own rule where its refitted slope is >= 0: b dropped, a refitted
    s = 2.0 * np.log(p) + 1.0 * np.log1p(-p)  # (a, b) = (2, -1)
    y2 = (rng.random(2000) < 1 / (1 + np.exp(-s))).astype(int)
    assert slow_logistic(F, y2.astype(float))[1] < 0
    coef = BetaCalibration().fit(p, y2).coef_[0]
    assert coef[1] == 0.0 and coef[0] > 0
    np.testing.assert_allclose(
        coef[[0, 2]], slow_logistic(F[:, [0, 2]], y2.astype(float)), rtol=1e-5
    )


@pytest.mark.parametrize(
    "scale, bound", [(1e-6, "lower bound 0.0001"), (1e11, "upper bound 10000")]
)
def test_temperature_bound_warnings_say_what_happened(scale, bound):
    # informative logits of a tiny or a huge scale: the best temperature is about
    # 2.5 * scale, outside [1e-4, 1e4]; neither separated nor uninformative
    Z, y, _ = synthetic(2000, 3, temperature=2.5, seed=17)
    with pytest.warns(ConvergenceWarning) as record:
        TemperatureScaling(input="logits").fit(scale * Z, y)
    (message,) = [str(w.message) for w in record]
    assert f"the temperature reached its {bound}" in message
    assert "scale" in message and "separated" not in message
    assert "carry no information" not in message
    assert record[0].filename == __file__  # points at the caller
    # rescaled as the warning says, the fit recovers the temperature
    assert TemperatureScaling(input="logits").fit(Z, y).temperature_ == pytest.approx(2.5, rel=0.1)


def test_auto_input_refuses_rounded_probabilities():
    # probabilities exported with 2 decimals: rows sum to 0.99-1.01.  Read as logits they
    # would be softmaxed again (a silently different model); input="auto" asks instead
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=200)
    y = np.array([rng.choice(3, p=row) for row in P])
    y[:3] = [0, 1, 2]
    rounded = np.round(P, 2)
    assert np.abs(rounded.sum(axis=1) - 1).max() > 1e-3
    with pytest.raises(
        ValueError,
        match=r"cannot tell whether X holds probabilities.*"
        r"input='proba'.*input='logits'",
    ):
        TemperatureScaling().fit(rounded, y)
    # both explicit readings work, and differ
    normalised = rounded / rounded.sum(axis=1, keepdims=True)
    as_proba = TemperatureScaling(input="proba").fit(normalised, y)
    as_logits = TemperatureScaling(input="logits").fit(rounded, y)
    assert as_proba.input_type_ == "proba" and as_logits.input_type_ == "logits"
    assert not np.allclose(as_proba.predict_proba(normalised), as_logits.predict_proba(rounded))
    # exact probabilities and real logits are still read without asking
    assert TemperatureScaling().fit(P, y).input_type_ == "proba"
    assert TemperatureScaling().fit(np.log(P) * 2, y).input_type_ == "logits"
