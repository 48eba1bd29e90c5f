"""Selective prediction: rejection curve, risk-coverage areas, oracle-collaborative
accuracy, uncertainty AUC.

Golden values: google/uncertainty-metrics' ``uncertainty_metrics/tensorflow/accuracy_test.py``
(OracleCollaborativeAccuracy) and ``uncertainty_metrics/tensorflow/auc_test.py`` (AUC);
scikit-learn's ``roc_auc_score`` / ``average_precision_score``; the closed forms of
Geifman et al. 2019 (E-AURC) and Traub et al. 2024 (AUGRC and AUROC).  The invariances
shared by every metric (permutation, weight = repetition, label encodings, pandas,
float32, bad input) run in tests/metrics/test_common.py.
"""

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import GaussianNB

import skcalib  # noqa: F401  (registers the scorer names with scikit-learn)
from skcalib import metrics as M
from skcalib.metrics import (
    RejectionCurveResult,
    area_under_generalized_risk_coverage,
    area_under_risk_coverage,
    excess_area_under_risk_coverage,
    get_scorer,
    oracle_collaborative_accuracy,
    out_of_distribution_auc,
    rejection_curve,
    risk_at_coverage,
    uncertainty_auc,
)

from . import _slow_selective as slow
from ._result_checks import check_unpackable_result

#: uncertainty_metrics' binary example (tensorflow/calibration_test.py, accuracy_test.py)
UM_PROBS = [0.51, 0.45, 0.39, 0.66, 0.68, 0.29, 0.81, 0.85]
UM_LABELS = [0, 0, 0, 1, 0, 1, 1, 1]

SCALARS = {
    "aurc": area_under_risk_coverage,
    "eaurc": excess_area_under_risk_coverage,
    "augrc": area_under_generalized_risk_coverage,
    "risk_at_0.7": lambda *a, **k: risk_at_coverage(*a, coverage=0.7, **k),
    "oca_binned": lambda *a, **k: oracle_collaborative_accuracy(*a, fraction=0.2, **k),
    "oca_exact": lambda *a, **k: oracle_collaborative_accuracy(*a, fraction=0.2, n_bins=None, **k),
    "auroc": uncertainty_auc,
    "auprc": lambda *a, **k: uncertainty_auc(*a, curve="pr", **k),
}
#: functions for which only the order of the uncertainty matters
ORDER_ONLY = [k for k in SCALARS if k != "oca_binned"]


def _data(seed, n=300, k=4, ties=False):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k) * 0.7, size=n)
    if ties:  # many tied confidences and uncertainties
        P = np.round(P * 4) + 0.25
        P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=r) for r in P])
    y[: n // 5] = rng.integers(0, k, n // 5)  # some extra errors
    return y, P


def _wrong(y, P):
    return P.argmax(axis=1) != y


# --------------------------------------------------------------------------------------
# golden values
# --------------------------------------------------------------------------------------


def test_oca_golden_values_of_uncertainty_metrics():
    # uncertainty_metrics/tensorflow/accuracy_test.py: fraction=0.4, num_bins=10
    v = oracle_collaborative_accuracy(UM_LABELS, UM_PROBS, fraction=0.4, n_bins=10)
    assert v == 0.7916666666666666
    # the same test on the side branch 09ac723 of fagan2888/uncertainty-metrics
    v = oracle_collaborative_accuracy(UM_LABELS, UM_PROBS, fraction=0.15, n_bins=10)
    assert v == 0.6875
    # 2-D input of the same predictions, and float32 (the test's default dtype)
    P2 = np.column_stack([1 - np.array(UM_PROBS), UM_PROBS])
    assert oracle_collaborative_accuracy(UM_LABELS, P2, fraction=0.4, n_bins=10) == pytest.approx(
        0.7916666666666666, abs=1e-15
    )
    assert oracle_collaborative_accuracy(
        UM_LABELS, P2.astype(np.float32), fraction=0.4, n_bins=10
    ) == pytest.approx(0.7916666666666666, abs=1e-7)


def test_oca_exact_hand_computed():
    # confidences 0.51 .. 0.85 with correctness F T T T F F T T: the oracle takes the
    # 3 (fraction 0.4) least confident, the model gets 3 of the other 5 right
    assert oracle_collaborative_accuracy(UM_LABELS, UM_PROBS, fraction=0.4, n_bins=None) == 0.75
    # fraction 0.15: the oracle takes 0.51 (wrong), the model 5 of 7
    v = oracle_collaborative_accuracy(UM_LABELS, UM_PROBS, fraction=0.15, n_bins=None)
    assert v == 0.75
    # fraction 0 is the accuracy, fraction 1 a perfect team
    acc = np.mean(np.array([0, 1, 1, 1, 0, 0, 1, 1], bool))
    for n_bins in (None, 10):
        assert oracle_collaborative_accuracy(UM_LABELS, UM_PROBS, fraction=0, n_bins=n_bins) == acc
        assert oracle_collaborative_accuracy(UM_LABELS, UM_PROBS, fraction=1, n_bins=n_bins) == 1


def test_uncertainty_auc_golden_value_of_keras_auc():
    # uncertainty_metrics/tensorflow/auc_test.py: AUC(num_thresholds=3) on labels
    # [0, 0, 1, 1] and scores [0, 0.5, 0.3, 0.9] is 0.75, which is also the exact AUC
    v = out_of_distribution_auc(None, None, uncertainty_in=[0, 0.5], uncertainty_out=[0.3, 0.9])
    assert v == 0.75


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_uncertainty_auc_equals_sklearn(seed, ties, weighted):
    y, P = _data(seed, ties=ties)
    w = np.random.default_rng(seed).random(len(y)) if weighted else None
    wrong = _wrong(y, P)
    u = 1 - P.max(axis=1)
    assert uncertainty_auc(y, P, sample_weight=w) == pytest.approx(
        roc_auc_score(wrong, u, sample_weight=w), abs=1e-12
    )
    assert uncertainty_auc(y, P, curve="pr", sample_weight=w) == pytest.approx(
        average_precision_score(wrong, u, sample_weight=w), abs=1e-12
    )
    # a user's score, e.g. the entropy
    ent = -(P * np.log(P)).sum(axis=1)
    assert uncertainty_auc(y, P, uncertainty=ent, sample_weight=w) == pytest.approx(
        roc_auc_score(wrong, ent, sample_weight=w), abs=1e-12
    )


def test_ood_auc_equals_sklearn():
    rng = np.random.default_rng(3)
    P_in = rng.dirichlet(np.ones(5) * 0.3, size=200)
    P_out = rng.dirichlet(np.ones(5) * 2.0, size=120)
    w_in, w_out = rng.random(200), rng.random(120)
    u = np.concatenate([1 - P_in.max(axis=1), 1 - P_out.max(axis=1)])
    y = np.r_[np.zeros(200), np.ones(120)]
    assert out_of_distribution_auc(P_in, P_out) == pytest.approx(roc_auc_score(y, u), abs=1e-12)
    w = np.r_[w_in, w_out]
    v = out_of_distribution_auc(
        P_in, P_out, curve="pr", sample_weight_in=w_in, sample_weight_out=w_out
    )
    assert v == pytest.approx(average_precision_score(y, u, sample_weight=w), abs=1e-12)
    # uncertainties given directly (an ensemble's mutual information, say)
    v = out_of_distribution_auc(
        None, None, uncertainty_in=u[:200], uncertainty_out=u[200:], sample_weight_out=w_out
    )
    assert v == pytest.approx(
        roc_auc_score(y, u, sample_weight=np.r_[np.ones(200), w_out]), abs=1e-12
    )
    # 1-D binary probabilities: confidence max(p, 1 - p)
    p_in, p_out = rng.random(50), 0.5 + 0.1 * rng.standard_normal(40).clip(-4, 4)
    u1 = np.r_[1 - np.maximum(p_in, 1 - p_in), 1 - np.maximum(p_out, 1 - p_out)]
    assert out_of_distribution_auc(p_in, p_out) == pytest.approx(
        roc_auc_score(np.r_[np.zeros(50), np.ones(40)], u1), abs=1e-12
    )


def test_ood_auc_with_uncertainties_only_needs_no_probabilities():
    # the documented call without y_proba_in / y_proba_out (a TypeError before)
    u_in, u_out = [0.1, 0.4, 0.2], [0.5, 0.3]
    v = out_of_distribution_auc(uncertainty_in=u_in, uncertainty_out=u_out)
    assert v == pytest.approx(5 / 6, abs=1e-15)
    assert v == out_of_distribution_auc(None, None, uncertainty_in=u_in, uncertainty_out=u_out)
    assert out_of_distribution_auc(
        uncertainty_in=u_in, uncertainty_out=u_out, curve="pr"
    ) == pytest.approx(average_precision_score([0, 0, 0, 1, 1], u_in + u_out), abs=1e-15)
    # one side from probabilities, the other from its uncertainties
    P_in = np.array([[0.9, 0.1], [0.6, 0.4], [0.8, 0.2]])  # uncertainties 0.1, 0.4, 0.2
    # (compared on the scale of the default, 1 - confidence)
    assert out_of_distribution_auc(P_in, uncertainty_out=u_out) == pytest.approx(5 / 6)
    v = out_of_distribution_auc(uncertainty_in=[0.45, 0.05], y_proba_out=P_in)
    assert v == pytest.approx(3 / 6)


def test_aurc_hand_computed():
    P = [[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.4, 0.6]]
    y = [0, 1, 1, 1]  # correct, wrong, correct, correct in order of confidence
    assert area_under_risk_coverage(y, P) == pytest.approx((0 + 1 / 2 + 1 / 3 + 1 / 4) / 4)
    r = 1 / 4
    assert excess_area_under_risk_coverage(y, P) == pytest.approx(
        (0 + 1 / 2 + 1 / 3 + 1 / 4) / 4 - (r + (1 - r) * math.log(1 - r))
    )
    assert area_under_generalized_risk_coverage(y, P) == pytest.approx(5 / 32)
    assert risk_at_coverage(y, P, coverage=0.5) == 0.5
    assert risk_at_coverage(y, P, coverage=0.25) == 0.0
    assert risk_at_coverage(y, P, coverage=1.0) == 0.25
    # coverage 3/8: the 2nd prediction (wrong) is half kept -> 0.5 / 1.5
    assert risk_at_coverage(y, P, coverage=0.375) == pytest.approx(1 / 3)
    # ties: one tie group of two (one of them wrong) is a single step of the curve
    P = [[0.9, 0.1], [0.7, 0.3], [0.3, 0.7], [0.4, 0.6]]
    y = [0, 1, 1, 1]  # 0.9 correct; 0.7 wrong and 0.7 correct (tied); 0.6 correct
    assert area_under_risk_coverage(y, P) == pytest.approx((0 + 2 * (1 / 3) + 1 / 4) / 4)


@pytest.mark.parametrize("seed", range(4))
def test_augrc_equals_the_auroc_identity(seed):
    # Traub et al. 2024: AUGRC = (1 - AUROC) a (1 - a) + (1 - a)^2 / 2, with AUROC of
    # the uncertainty against the errors (ties: one half) and a the accuracy
    y, P = _data(seed, ties=seed % 2 == 1)
    w = None if seed < 2 else np.random.default_rng(seed).random(len(y))
    wrong = _wrong(y, P)
    auroc = roc_auc_score(wrong, 1 - P.max(axis=1), sample_weight=w)
    a = np.average(~wrong, weights=w)
    expected = (1 - auroc) * a * (1 - a) + (1 - a) ** 2 / 2
    v = area_under_generalized_risk_coverage(y, P, sample_weight=w)
    assert v == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------------------------
# slow references on random data
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_aurc_without_ties_is_the_mean_over_k(seed):
    y, P = _data(seed, n=120)
    conf, wrong = slow.top_label(y.tolist(), P.tolist())
    u = [1 - c for c in conf]
    assert area_under_risk_coverage(y, P) == pytest.approx(slow.aurc_no_ties(u, wrong), abs=1e-12)


def test_rejection_curve_unpacks_as_x_y_thresholds():
    """Regression: the curve was a Bunch, whose unpacking gave its six keys.  It unpacks
    as ``roc_curve`` does: x values, y values, thresholds."""
    y, P = _data(4, n=200, ties=True)
    _, wrong = slow.top_label(y.tolist(), P.tolist())
    u = 1.0 - P.max(axis=1)
    loop = slow.thresholds_curve(u.tolist(), wrong)[::-1]  # (kept, errors), all kept first
    curve = rejection_curve(y, P)
    fraction_rejected, accuracy, thresholds = curve
    assert_allclose(fraction_rejected, [1 - k / len(y) for k, _ in loop], atol=1e-12)
    assert_allclose(accuracy, [1 - e / k for k, e in loop], atol=1e-12)
    assert_allclose(thresholds, np.unique(u)[::-1], atol=1e-12)
    names = ("fraction_rejected", "accuracy", "thresholds")
    check_unpackable_result(curve, RejectionCurveResult, names)
    assert curve.base_accuracy == pytest.approx(1 - np.mean(wrong))
    assert_allclose(curve.coverage, 1 - fraction_rejected, atol=1e-12)
    assert curve.oracle_accuracy.shape == accuracy.shape


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_curves_against_threshold_loops(seed, weighted):
    y, P = _data(seed, n=150, ties=True)
    rng = np.random.default_rng(seed)
    w = rng.random(len(y)) if weighted else None
    u = np.round(rng.random(len(y)) * 8) / 8 + 0.1 * (rng.random(len(y)) < 0.1)
    _, wrong = slow.top_label(y.tolist(), P.tolist())
    ul, wl = u.tolist(), None if w is None else w.tolist()
    kw = dict(uncertainty=u, sample_weight=w)
    assert area_under_risk_coverage(y, P, **kw) == pytest.approx(
        slow.aurc_thresholds(ul, wrong, wl), abs=1e-12
    )
    assert area_under_generalized_risk_coverage(y, P, **kw) == pytest.approx(
        slow.augrc_thresholds(ul, wrong, wl), abs=1e-12
    )
    curve = rejection_curve(y, P, **kw)
    loop = slow.thresholds_curve(ul, wrong, wl)[::-1]  # from all kept on
    total = loop[0][0]
    assert_allclose(curve.fraction_rejected, [1 - k / total for k, _ in loop], atol=1e-12)
    assert_allclose(curve.accuracy, [1 - e / k for k, e in loop], atol=1e-12)
    correct = total - loop[0][1]
    assert_allclose(curve.oracle_accuracy, [min(correct, k) / k for k, _ in loop], atol=1e-12)
    assert_allclose(curve.coverage, 1 - curve.fraction_rejected, atol=1e-12)
    assert_array_equal(curve.thresholds, np.unique(u)[::-1])
    assert curve.base_accuracy == pytest.approx(correct / total)
    # AURC is the area under 1 - accuracy against the coverage, right endpoints
    steps = -np.diff(np.r_[curve.coverage, 0.0])
    assert area_under_risk_coverage(y, P, **kw) == pytest.approx(
        np.dot(steps, 1 - curve.accuracy), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(6))
def test_tie_handling_is_the_expectation_over_tie_breaking(seed):
    # small data with heavy ties: every tie-breaking is enumerated
    rng = np.random.default_rng(seed)
    n = 8
    P = rng.dirichlet(np.ones(3), size=n)
    y = rng.integers(0, 3, n)
    u = rng.integers(0, 3, n) / 2.0
    _, wrong = slow.top_label(y.tolist(), P.tolist())
    kw = {"uncertainty": u, "labels": [0, 1, 2]}  # a class may be missing from y
    for k in range(1, n + 1):
        assert risk_at_coverage(y, P, coverage=k / n, **kw) == pytest.approx(
            slow.risk_at_k_expected(u.tolist(), wrong, k), abs=1e-12
        )
    for fraction in (0.1, 0.25, 0.4, 0.6, 0.9):
        v = oracle_collaborative_accuracy(y, P, fraction=fraction, n_bins=None, **kw)
        assert v == pytest.approx(slow.oca_exact_expected(u.tolist(), wrong, fraction), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_bins", [1, 7, 10, 100])
def test_oca_binned_against_the_reference_walk(seed, n_bins):
    y, P = _data(seed, n=200, ties=seed % 2 == 1)
    conf, wrong = slow.top_label(y.tolist(), P.tolist())
    w = None if seed < 2 else np.random.default_rng(seed).integers(0, 4, len(y))
    wl = None if w is None else w.astype(float).tolist()
    for fraction in (0.0, 0.01, 0.13, 0.5, 0.97):
        v = oracle_collaborative_accuracy(y, P, fraction=fraction, n_bins=n_bins, sample_weight=w)
        ref = slow.oca_binned_reference(conf, wrong, fraction, n_bins, wl)
        assert v == pytest.approx(ref, abs=1e-12)
    # a user's uncertainty in [0, 1] is binned, the most uncertain bin first
    u = np.random.default_rng(seed).random(len(y))
    u[:10] = [0, 1, 0.5, 0.25, 0.1, 0.2, 0.3, 0.7, 0.9, 1]  # edges
    for fraction in (0.05, 0.3):
        v = oracle_collaborative_accuracy(y, P, fraction=fraction, n_bins=n_bins, uncertainty=u)
        ref = slow.oca_binned_reference(u.tolist(), wrong, fraction, n_bins, uncertainty=True)
        assert v == pytest.approx(ref, abs=1e-12)


def test_exact_oca_is_the_limit_of_fine_bins():
    y, P = _data(5, n=400)
    exact = oracle_collaborative_accuracy(y, P, fraction=0.1, n_bins=None)
    fine = oracle_collaborative_accuracy(y, P, fraction=0.1, n_bins=10**7)
    assert fine == pytest.approx(exact, abs=1e-12)
    assert oracle_collaborative_accuracy(y, P, fraction=0.1, n_bins=5) != exact


def test_oracle_curve_is_reached_by_the_oracle_ranking():
    y, P = _data(6)
    wrong = _wrong(y, P)
    # ranking the errors last (with distinct scores) reaches the oracle curve
    u = wrong + 1e-3 * np.random.default_rng(6).random(len(y))
    best = rejection_curve(y, P, uncertainty=u)
    assert_allclose(best.accuracy, best.oracle_accuracy, atol=1e-12)
    assert excess_area_under_risk_coverage(y, P, uncertainty=u) < 0.01
    curve = rejection_curve(y, P)
    assert np.all(curve.accuracy <= curve.oracle_accuracy + 1e-12)
    assert curve.fraction_rejected[0] == 0 and curve.accuracy[0] == curve.base_accuracy


@pytest.mark.parametrize("seed", range(5))
def test_eaurc_is_non_negative_and_zero_for_trivial_models(seed):
    y, P = _data(seed, n=60, ties=seed % 2 == 0)
    u = np.random.default_rng(seed).random(len(y))
    assert excess_area_under_risk_coverage(y, P, uncertainty=u) >= 0
    assert excess_area_under_risk_coverage(y, P) >= 0
    # all correct: AURC 0; all wrong: AURC 1; both have E-AURC 0
    Pc = np.eye(3)[[0, 1, 2, 0]] * 0.7 + 0.1
    assert area_under_risk_coverage([0, 1, 2, 0], Pc) == 0
    assert excess_area_under_risk_coverage([0, 1, 2, 0], Pc) == 0
    assert area_under_risk_coverage([1, 2, 0, 1], Pc) == 1
    assert excess_area_under_risk_coverage([1, 2, 0, 1], Pc) == 0


# --------------------------------------------------------------------------------------
# invariances specific to these functions
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ORDER_ONLY)
def test_invariant_to_monotone_transformations_of_the_uncertainty(name):
    metric = SCALARS[name]
    y, P = _data(7, ties=True)
    u = np.round(np.random.default_rng(7).random(len(y)) * 20) / 20  # ties
    ref = metric(y, P, uncertainty=u)
    for f in (lambda x: np.exp(3 * x), lambda x: 5 + x**3, lambda x: np.log(x + 1e-3) * 10):
        assert metric(y, P, uncertainty=f(u)) == pytest.approx(ref, abs=1e-12)
    # negative scores (the argsort path) rank as their shifted positive copies
    assert metric(y, P, uncertainty=u - 7.0) == pytest.approx(ref, abs=1e-12)
    # float32 scores with the same ties
    assert metric(y, P, uncertainty=u.astype(np.float32)) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_default_uncertainty_is_one_minus_max_probability(name):
    metric = SCALARS[name]
    y, P = _data(8)
    assert metric(y, P) == pytest.approx(metric(y, P, uncertainty=1 - P.max(axis=1)), abs=1e-12)


@pytest.mark.parametrize("name", sorted(SCALARS))
@pytest.mark.parametrize("ties", [False, True])
def test_sample_order_with_ties_and_weights(name, ties):
    metric = SCALARS[name]
    y, P = _data(9, ties=ties)
    rng = np.random.default_rng(9)
    u = np.round(rng.random(len(y)) * 10) / 10
    w = rng.integers(1, 4, len(y)).astype(float)
    for kw in ({}, {"uncertainty": u}):
        ref = metric(y, P, **kw)
        ref_w = metric(y, P, sample_weight=w, **kw)
        for seed in range(3):
            perm = np.random.default_rng(seed).permutation(len(y))
            kp = {k: v[perm] for k, v in kw.items()}
            assert metric(y[perm], P[perm], **kp) == ref  # exact, without weights
            assert metric(y[perm], P[perm], sample_weight=w[perm], **kp) == pytest.approx(
                ref_w, abs=1e-12
            )


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_weight_paths_agree(name):
    # the packed-key sort (no weights) and the argsort path (weights) give the same
    metric = SCALARS[name]
    y, P = _data(10, ties=True)
    assert metric(y, P, sample_weight=np.ones(len(y))) == pytest.approx(metric(y, P), abs=1e-12)
    w = np.random.default_rng(10).integers(0, 4, len(y))
    rep = metric(np.repeat(y, w), np.repeat(P, w, axis=0))
    assert metric(y, P, sample_weight=w) == pytest.approx(rep, abs=1e-12)
    u = np.random.default_rng(11).integers(0, 5, len(y)) / 4
    rep = metric(np.repeat(y, w), np.repeat(P, w, axis=0), uncertainty=np.repeat(u, w))
    assert metric(y, P, sample_weight=w, uncertainty=u) == pytest.approx(rep, abs=1e-12)


def test_rejection_curve_weights_repetition_and_order():
    y, P = _data(12, ties=True)
    w = np.random.default_rng(12).integers(0, 4, len(y))
    a = rejection_curve(y, P, sample_weight=w)
    b = rejection_curve(np.repeat(y, w), np.repeat(P, w, axis=0))
    for key in ("fraction_rejected", "accuracy", "oracle_accuracy", "coverage", "thresholds"):
        assert_allclose(getattr(a, key), getattr(b, key), atol=1e-12, err_msg=key)
    perm = np.random.default_rng(0).permutation(len(y))
    c = rejection_curve(y[perm], P[perm])
    d = rejection_curve(y, P)
    for key in ("fraction_rejected", "accuracy", "oracle_accuracy", "thresholds"):
        assert_array_equal(getattr(c, key), getattr(d, key))


def test_string_labels_pandas_and_float32():
    y, P = _data(13)
    names = np.array(["ant", "bee", "cat", "dog"])
    ref = rejection_curve(y, P)
    got = rejection_curve(pd.Series(names[y]), pd.DataFrame(P))
    assert_array_equal(got.accuracy, ref.accuracy)
    got32 = rejection_curve(y, P.astype(np.float32))
    assert got32.accuracy.shape == ref.accuracy.shape
    assert_allclose(got32.accuracy, ref.accuracy, atol=1e-12)
    v = out_of_distribution_auc(pd.DataFrame(P[:100]), P[100:].astype(np.float32).tolist())
    assert 0 <= v <= 1


def test_binary_1d_input_is_top_label():
    rng = np.random.default_rng(14)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    P2 = np.column_stack([1 - p, p])
    for name, metric in SCALARS.items():
        assert metric(y, p) == pytest.approx(metric(y, P2), abs=1e-12), name


def test_inputs_not_modified():
    y, P = _data(15)
    u = np.random.default_rng(15).random(len(y))
    w = np.random.default_rng(16).random(len(y))
    for a in (y, P, u, w):
        a.setflags(write=False)
    rejection_curve(y, P, uncertainty=u, sample_weight=w)
    for metric in SCALARS.values():
        metric(y, P, uncertainty=u, sample_weight=w)
        metric(y, P, sample_weight=w)
    out_of_distribution_auc(P[:10], P[10:], sample_weight_in=w[:10])


def test_oca_weights_count_as_samples():
    # the oracle's budget is floor(fraction * total weight): a whole number of samples
    y, P = _data(17)
    w = np.random.default_rng(17).integers(0, 4, len(y))
    for n_bins in (None, 10):
        rep = oracle_collaborative_accuracy(
            np.repeat(y, w), np.repeat(P, w, axis=0), fraction=0.3, n_bins=n_bins
        )
        v = oracle_collaborative_accuracy(y, P, fraction=0.3, n_bins=n_bins, sample_weight=w)
        assert v == pytest.approx(rep, abs=1e-12)
        ones = oracle_collaborative_accuracy(
            y, P, fraction=0.3, n_bins=n_bins, sample_weight=np.ones(len(y))
        )
        assert ones == oracle_collaborative_accuracy(y, P, fraction=0.3, n_bins=n_bins)


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------


def test_bad_uncertainty():
    y, P = _data(18, n=20)
    for metric in [rejection_curve, *SCALARS.values()]:
        with pytest.raises(ValueError, match="uncertainty.*different numbers of samples"):
            metric(y, P, uncertainty=np.ones(19))
        u = np.ones(20)
        u[4] = np.nan
        with pytest.raises(ValueError, match="uncertainty contains NaN"):
            metric(y, P, uncertainty=u)
        u[4] = np.inf
        with pytest.raises(ValueError, match="uncertainty contains infinity"):
            metric(y, P, uncertainty=u)
        with pytest.raises(ValueError, match="uncertainty must be a 1-D array"):
            metric(y, P, uncertainty=np.ones((20, 2)))
        with pytest.raises(ValueError, match="uncertainty must contain real numbers"):
            metric(y, P, uncertainty=np.array(["a"] * 20))
        with pytest.raises(ValueError, match="sum to 1"):
            metric(y, P * 0.5)
        with pytest.raises(ValueError, match="different numbers of samples"):
            metric(y[:-1], P)
        with pytest.raises(ValueError, match="sample_weight must be non-negative"):
            metric(y, P, sample_weight=-np.ones(20))


def test_bad_options():
    y, P = _data(19, n=20)
    with pytest.raises(ValueError, match="uncertainty must lie in \\[0, 1\\].*n_bins=None"):
        oracle_collaborative_accuracy(y, P, uncertainty=np.linspace(0, 2, 20))
    # any score works for the exact version
    oracle_collaborative_accuracy(y, P, uncertainty=np.linspace(0, 2, 20), n_bins=None)
    with pytest.raises(ValueError, match="'fraction' parameter"):
        oracle_collaborative_accuracy(y, P, fraction=1.5)
    with pytest.raises(ValueError, match="'n_bins' parameter"):
        oracle_collaborative_accuracy(y, P, n_bins=0)
    with pytest.raises(ValueError, match="'coverage' parameter"):
        risk_at_coverage(y, P, coverage=0)
    with pytest.raises(ValueError, match="'curve' parameter"):
        uncertainty_auc(y, P, curve="det")


def test_auc_undefined_without_errors_or_without_correct_predictions():
    P = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
    with pytest.raises(ValueError, match="every prediction is correct"):
        uncertainty_auc([0, 1, 0], P)
    with pytest.raises(ValueError, match="every prediction is correct or every one is wrong"):
        uncertainty_auc([1, 0, 1], P, curve="pr")
    # an error of weight 0 does not count
    with pytest.raises(ValueError, match="every prediction is correct"):
        uncertainty_auc([0, 1, 1], P, sample_weight=[1, 1, 0])
    with pytest.raises(ValueError, match=r"needs y_proba_in \(.*\) or uncertainty_in"):
        out_of_distribution_auc(None, P)
    with pytest.raises(ValueError, match=r"needs y_proba_out \(.*\) or uncertainty_out"):
        out_of_distribution_auc(uncertainty_in=[0.1, 0.2])
    with pytest.raises(ValueError, match="y_proba_out rows must sum to 1"):
        out_of_distribution_auc(P, P * 0.5)
    with pytest.raises(ValueError, match="y_proba_in and uncertainty_in have different"):
        out_of_distribution_auc(P, P, uncertainty_in=[0.1, 0.2])
    with pytest.raises(ValueError, match="uncertainty_out contains NaN"):
        out_of_distribution_auc(P, None, uncertainty_out=[0.1, np.nan])
    with pytest.raises(ValueError, match="sample_weight_out must be non-negative"):
        out_of_distribution_auc(P, P, sample_weight_out=[1, -1, 1])
    with pytest.raises(ValueError, match="sample_weight_out sums to zero"):
        out_of_distribution_auc(P, P, sample_weight_out=[0, 0, 0])


# --------------------------------------------------------------------------------------
# scorers
# --------------------------------------------------------------------------------------


def test_scorers_aurc_and_oca():
    X, y = load_iris(return_X_y=True)
    cv = KFold(3, shuffle=True, random_state=0)
    clf = LogisticRegression(max_iter=1000)
    scores = cross_val_score(clf, X, y, cv=cv, scoring="aurc")
    expected = []
    for train, test in cv.split(X):
        proba = clf.fit(X[train], y[train]).predict_proba(X[test])
        expected.append(-area_under_risk_coverage(y[test], proba))
    assert_allclose(scores, expected, rtol=1e-12, atol=1e-15)
    assert np.all(scores <= 0)
    # OCA is an accuracy (greater is better, not negated), options through get_scorer
    scorer = get_scorer("oca", fraction=0.1, n_bins=None)
    scores = cross_val_score(GaussianNB(), X, y, cv=cv, scoring=scorer)
    expected = []
    for train, test in cv.split(X):
        proba = GaussianNB().fit(X[train], y[train]).predict_proba(X[test])
        expected.append(oracle_collaborative_accuracy(y[test], proba, fraction=0.1, n_bins=None))
    assert_allclose(scores, expected, rtol=1e-12)
    assert np.all(scores > 0.9)
    assert get_scorer("neg_area_under_risk_coverage")(clf, X, y) == pytest.approx(
        -area_under_risk_coverage(y, clf.predict_proba(X))
    )
    assert get_scorer("oracle_collaborative_accuracy")(clf, X, y) == pytest.approx(
        oracle_collaborative_accuracy(y, clf.predict_proba(X))
    )


def test_scorer_options_validated():
    with pytest.raises(ValueError, match="'fraction' parameter"):
        get_scorer("oca", fraction=2.0)
    # the uncertainty is per-sample data, not an option fixed for every fold
    with pytest.raises(ValueError, match="does not accept the option"):
        get_scorer("aurc", uncertainty=[0.1, 0.2])
    # the metric function is not a scorer: get_scorer names the scorer to use
    with pytest.raises(ValueError, match="scoring='aurc'"):
        get_scorer(M.area_under_risk_coverage)


def test_aurc_scorer_on_string_binary_labels():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::3, :5], np.array(["malignant", "benign"])[y[::3]]
    cv = KFold(3, shuffle=True, random_state=1)
    clf = GaussianNB()
    scores = cross_val_score(clf, X, y, cv=cv, scoring="aurc")
    for score, (train, test) in zip(scores, cv.split(X), strict=True):
        proba = clf.fit(X[train], y[train]).predict_proba(X[test])
        assert score == pytest.approx(-area_under_risk_coverage(y[test], proba), abs=1e-15)


def test_signed_zeros_are_one_tie_group():
    y, P = _data(20, n=40)
    u = np.round(np.random.default_rng(20).random(40) * 3) / 3
    u_signed = u.copy()
    u_signed[np.flatnonzero(u == 0)[::2]] = -0.0
    assert np.signbit(u_signed).any()
    for metric in SCALARS.values():
        assert metric(y, P, uncertainty=u_signed) == metric(y, P, uncertainty=u)
    assert_array_equal(
        rejection_curve(y, P, uncertainty=u_signed).accuracy,
        rejection_curve(y, P, uncertainty=u).accuracy,
    )


def test_ensemble_mutual_information_as_the_uncertainty():
    # every function takes model_uncertainty(...).model of an ensemble's members
    rng = np.random.default_rng(21)
    members = rng.dirichlet(np.ones(3), size=(5, 80))
    P = members.mean(axis=0)
    y = rng.integers(0, 3, 80)
    mi = M.model_uncertainty(members).model
    wrong = _wrong(y, P)
    assert uncertainty_auc(y, P, uncertainty=mi) == pytest.approx(roc_auc_score(wrong, mi))
    assert area_under_risk_coverage(y, P, uncertainty=mi) == pytest.approx(
        slow.aurc_thresholds(mi.tolist(), wrong.tolist())
    )
