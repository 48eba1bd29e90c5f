"""skcalib.compat.uncertainty_metrics carries every public name of uncertainty_metrics 0.0.82.

Golden values are copied from the 0.0.82 test files of google/uncertainty-metrics:
``uncertainty_metrics/tensorflow/calibration_test.py`` (testECEBinaryClassification,
testECEBinaryClassificationBinningRule, testECEMulticlassClassification),
``uncertainty_metrics/tensorflow/accuracy_test.py`` (OracleCollaborativeAccuracy),
``uncertainty_metrics/tensorflow/auc_test.py``, ``scoring_rules_test.py``,
``uncertainty_metrics/numpy/semiparametric_calibration_error_test.py``,
``censored_calibration_error_test.py`` and ``visualization_test.py``; values marked
"reference code" come from running the reference's formulas on the given input.
"""

import inspect

import numpy as np
import pytest

import skcalib.metrics as skm
from skcalib.compat import uncertainty_metrics as um
from tests.metrics._result_checks import check_unpackable_result

# uncertainty_metrics/numpy/__init__.py and uncertainty_metrics/tensorflow/__init__.py
# of 0.0.82: __all__ without the submodules and the version strings
NUMPY_ALL = [
    "ace", "adaptive_calibration_error", "CCE", "cce", "cce_conf_int",
    "compute_all_metrics", "ece", "gce", "general_calibration_error",
    "GeneralCalibrationError", "plot_confidence_vs_accuracy_diagram",
    "plot_rejection_classification_diagram", "reliability_diagram", "rmsce",
    "root_mean_squared_calibration_error", "sce", "semiparametric_calibration_error",
    "semiparametric_calibration_error_conf_int", "SemiparametricCalibrationError", "SPCE",
    "spce", "spce_conf_int", "static_calibration_error", "tace",
    "thresholded_adaptive_calibration_error",
]  # fmt: skip
TENSORFLOW_ALL = [
    "average_pairwise_diversity", "AUC", "bayesian_expected_calibration_error",
    "brier_decomposition", "brier_score", "cosine_distance", "crps_normal_score",
    "crps_score", "disagreement", "double_fault", "ensemble_cross_entropy",
    "ExpectedCalibrationError", "gibbs_cross_entropy", "importance_sampling_cross_validation",
    "kl_divergence", "logit_kl_divergence", "lp_distance", "model_uncertainty",
    "negative_waic", "OracleCollaborativeAccuracy", "variance_bound",
]  # fmt: skip

# the 0.0.82 signatures (parameter names in order, with defaults)
SIGNATURES = {
    "gce": "(labels, probs, binning_scheme, max_prob, class_conditional, norm, num_bins=30, "
    "threshold=0.0, datapoints_per_bin=None)",
    "ece": "(labels, probs, num_bins=30)",
    "rmsce": "(labels, probs, num_bins=30, datapoints_per_bin=None)",
    "sce": "(labels, probs, num_bins=30)",
    "ace": "(labels, probs, num_bins=30)",
    "tace": "(labels, probs, num_bins=30, threshold=0.01)",
    "compute_all_metrics": "(labels, probs)",
    "GeneralCalibrationError": "(binning_scheme, max_prob, class_conditional, norm, "
    "num_bins=30, threshold=0.0, datapoints_per_bin=None, distribution=None)",
    "SPCE": "(folds=5, weight_trunc=0.05, weights='constant', bootstrap_size=500, "
    "orthogonal=False, normalize=False, smoothing='kernel', hyperparam_attempts=50, "
    "default_hyperparam_range=None, verbose=False, fold_generator=None)",
    "spce": "(probs, labels, hyperparam_range=None, **class_kwargs)",
    "spce_conf_int": "(probs, labels, hyperparam_range=None, **class_kwargs)",
    "CCE": "(end_time, folds=5, weight_trunc=0.05, weights='constant', "
    "survival_aggregation='Kaplan-Meier', kernel_fn='rbf', bootstrap_size=200, "
    "orthogonal=False, num_repeats=4, normalize=False, hyperparam_attempts=20, "
    "default_hyperparam_range=None, verbose=False)",
    "cce": "(probs, times, event, end_time, hyperparam_range=None, **class_kwargs)",
    "cce_conf_int": "(probs, times, event, end_time, hyperparam_range=None, **class_kwargs)",
    "reliability_diagram": "(labels, probs, class_conditional=False, y_axis='accuracy', img=False)",
    "plot_confidence_vs_accuracy_diagram": "(in_probs, in_labels, out_probs, "
    "num_thresholds=20, ax=None, **plot_kwargs)",
    "plot_rejection_classification_diagram": "(in_probs, in_labels, out_probs, "
    "num_thresholds=100, plot_theoretical_max=True, ax=None, **plot_kwargs)",
    "ExpectedCalibrationError": "(num_bins=15, name=None, dtype=None)",
    "OracleCollaborativeAccuracy": "(fraction=0.01, num_bins=100, name=None, dtype=None)",
    "AUC": "(num_thresholds=200, curve='ROC', summation_method='interpolation', name=None, "
    "dtype=None, thresholds=None, multi_label=False, num_labels=None, label_weights=None, "
    "from_logits=False)",
    "bayesian_expected_calibration_error": "(num_bins, logits=None, probabilities=None, "
    "labels_true=None, labels_predicted=None, num_ece_samples=500)",
    "brier_score": "(labels=None, logits=None, probabilities=None, aggregate=True)",
    "brier_decomposition": "(labels=None, logits=None, probabilities=None)",
    "crps_score": "(labels=None, predictive_samples=None)",
    "crps_normal_score": "(labels=None, means=None, stddevs=None)",
    "negative_waic": "(logp, waic_type='waic1')",
    "importance_sampling_cross_validation": "(logp)",
    "ensemble_cross_entropy": "(labels, logits, binary=False, aggregate=True)",
    "gibbs_cross_entropy": "(labels, logits, binary=False, aggregate=True)",
    "model_uncertainty": "(logits)",
    "disagreement": "(logits_1, logits_2)",
    "double_fault": "(logits_1, logits_2, labels)",
    "kl_divergence": "(p, q, clip=False)",
    "logit_kl_divergence": "(logits_1, logits_2)",
    "lp_distance": "(x, y, p=1)",
    "cosine_distance": "(x, y)",
    "average_pairwise_diversity": "(probs, num_models, error=None)",
    "variance_bound": "(probs, labels, num_models)",
}

# data of calibration_test.py / accuracy_test.py
PRED = np.array([0.51, 0.45, 0.39, 0.66, 0.68, 0.29, 0.81, 0.85])
LAB = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0])
PM = np.array(
    [
        [0.31, 0.32, 0.27],
        [0.37, 0.33, 0.30],
        [0.30, 0.31, 0.39],
        [0.61, 0.38, 0.01],
        [0.10, 0.65, 0.25],
        [0.91, 0.05, 0.04],
    ]
)
LM = np.array([1.0, 0, 0.0, 1.0, 0.0, 0.0])


def test_every_public_name_is_importable():
    names = set(dir(um))
    missing = [n for n in NUMPY_ALL + TENSORFLOW_ALL if n not in names]
    assert missing == []
    assert set(NUMPY_ALL + TENSORFLOW_ALL) <= set(um.__all__)
    for name in NUMPY_ALL + TENSORFLOW_ALL:
        assert callable(getattr(um, name)), name
    exec("from skcalib.compat.uncertainty_metrics import *", {})


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_are_the_reference_ones(name):
    assert str(inspect.signature(getattr(um, name))) == SIGNATURES[name]


def test_aliases_of_the_reference():
    assert um.SPCE is um.SemiparametricCalibrationError
    assert um.spce is um.semiparametric_calibration_error
    assert um.spce_conf_int is um.semiparametric_calibration_error_conf_int


# --------------------------------------------------------------------------------------
# ExpectedCalibrationError: tensorflow/calibration_test.py
# --------------------------------------------------------------------------------------

EXPECTED_COUNTS = [0, 0, 0, 0, 0, 2, 3, 1, 2, 0]
EXPECTED_CORRECT = [0, 0, 0, 0, 0, 1, 2, 0, 2, 0]
EXPECTED_PROBS = [0, 0, 0, 0, 0, 0.51 + 0.55, 0.61 + 0.66 + 0.68, 0.71, 0.81 + 0.85, 0]


def _check_state(metric, counts, correct, probs):
    np.testing.assert_allclose(metric.counts, counts)
    np.testing.assert_allclose(metric.correct_sums, correct)
    np.testing.assert_allclose(metric.prob_sums, probs, rtol=1e-12)


def test_ece_binary_classification():
    metric = um.ExpectedCalibrationError(num_bins=10, dtype="float64")
    assert len(metric.variables) == 3
    value = metric(LAB, PRED)
    assert value == pytest.approx(0.145, abs=1e-12)
    assert metric.result() == value
    _check_state(metric, EXPECTED_COUNTS, EXPECTED_CORRECT, EXPECTED_PROBS)
    # streaming with reshaped inputs gives the same state and value
    metric.reset_states()
    assert metric.result() == 0.0 and metric.counts.sum() == 0
    metric.update_state(LAB[:2], PRED[:2])
    metric.update_state(LAB[2:6].reshape(2, 2), PRED[2:6].reshape(2, 2))
    metric.update_state(LAB[6:7], PRED[6:7])
    assert metric(LAB[7:, None], PRED[7:, None]) == pytest.approx(0.145, abs=1e-12)
    _check_state(metric, EXPECTED_COUNTS, EXPECTED_CORRECT, EXPECTED_PROBS)
    # the bin statistics are skcalib's BinStats
    assert isinstance(metric.bin_stats, skm.BinStats)
    assert metric.bin_stats.total_weight == 8


def test_ece_binary_classification_float32_default():
    metric = um.ExpectedCalibrationError(num_bins=10)
    assert metric.counts.dtype == np.float32
    assert metric(LAB, PRED) == pytest.approx(0.145, abs=1e-6)
    np.testing.assert_array_equal(metric.counts, EXPECTED_COUNTS)
    np.testing.assert_allclose(metric.prob_sums, EXPECTED_PROBS, rtol=1e-6)


def test_ece_binning_rule():
    score = np.array([0.05, 0.11, 0.37, 0.52, 0.26, 0.47, 0.73, 0.23])
    counts = [1, 1, 2, 1, 1, 1, 0, 1, 0, 0]
    correct = [0, 1, 1, 1, 0, 1, 0, 1, 0, 0]
    probs = [0.51, 1 - 0.45, 0.68 + 0.85, 1 - 0.39, 1 - 0.29, 0.66, 0, 0.81, 0, 0]
    metric = um.ExpectedCalibrationError(num_bins=10, dtype="float64")
    assert metric(LAB, PRED, custom_binning_score=score) == pytest.approx(0.39, abs=1e-12)
    _check_state(metric, counts, correct, probs)
    metric.reset_state()
    metric.update_state(LAB[:1], PRED[:1], custom_binning_score=score[:1])
    metric.update_state(
        LAB[1:5].reshape(2, 2), PRED[1:5].reshape(2, 2), custom_binning_score=score[1:5]
    )
    metric.update_state(LAB[5:7], PRED[5:7], custom_binning_score=score[5:7])
    value = metric(LAB[7:, None], PRED[7:, None], custom_binning_score=score[7:])
    assert value == pytest.approx(0.39, abs=1e-12)
    _check_state(metric, counts, correct, probs)


def test_ece_multiclass_classification():
    metric = um.ExpectedCalibrationError(num_bins=10, dtype=np.float64)
    metric.update_state(LM[:4], PM[:4])
    assert metric(LM[4:], PM[4:]) == pytest.approx(0.3783333333333333, rel=1e-14)
    _check_state(
        metric,
        [0, 0, 0, 3, 0, 0, 2, 0, 0, 1],
        [0, 0, 0, 2, 0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0.32 + 0.37 + 0.39, 0, 0, 0.61 + 0.65, 0, 0, 0.91],
    )
    # the numpy backend's ece gives the same number on this data
    assert um.ece(LM, PM, num_bins=10) == pytest.approx(0.3783333333333333, rel=1e-14)


def test_ece_tf_bins_put_one_in_the_last_bin():
    # TF rule: one bin with acc 0.5, conf 0.975; the numpy backend's extra bin: 0.525
    metric = um.ExpectedCalibrationError(num_bins=10, dtype="float64")
    assert metric([0, 1], [1.0, 0.95]) == pytest.approx(0.475, rel=1e-14)
    assert um.ece([0, 1], [1.0, 0.95], num_bins=10) == pytest.approx(0.525, rel=1e-14)


@pytest.mark.parametrize("seed", range(3))
def test_ece_streaming_equals_batch_and_skcalib(seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(4), size=300)
    y = rng.integers(0, 4, size=300)
    batch = um.ExpectedCalibrationError(num_bins=15, dtype="float64")
    batch.update_state(y, P)
    stream = um.ExpectedCalibrationError(num_bins=15, dtype="float64")
    for chunk in np.array_split(np.arange(300), 7):
        stream.update_state(y[chunk], P[chunk])
    assert stream.result() == pytest.approx(batch.result(), rel=1e-12)
    np.testing.assert_array_equal(stream.counts, batch.counts)
    # continuous probabilities: no value on an edge, so skcalib's right-closed bins agree
    assert batch.result() == pytest.approx(
        skm.expected_calibration_error(y, P, labels=np.arange(4)), rel=1e-12
    )


def test_ece_sample_weight_ignored_as_reference():
    metric = um.ExpectedCalibrationError(num_bins=10, dtype="float64")
    assert metric(LAB, PRED, sample_weight=np.arange(8)) == pytest.approx(0.145, abs=1e-12)


# --------------------------------------------------------------------------------------
# OracleCollaborativeAccuracy: tensorflow/accuracy_test.py
# --------------------------------------------------------------------------------------


def test_oracle_collaborative_accuracy():
    metric = um.OracleCollaborativeAccuracy(fraction=0.4, num_bins=10, dtype="float64")
    assert len(metric.variables) == 4
    assert metric(LAB, PRED) == pytest.approx(0.7916666666666666, rel=1e-14)
    _check_state(metric, EXPECTED_COUNTS, EXPECTED_CORRECT, EXPECTED_PROBS)
    np.testing.assert_allclose(
        metric.collab_correct_sums, [0, 0, 0, 0, 0, 2, 1 + 2 * (2 / 3), 0, 2, 0], rtol=1e-14
    )
    # side-branch test of the non-iterative result: fraction 0.15 -> 0.6875
    metric = um.OracleCollaborativeAccuracy(fraction=0.15, num_bins=10, dtype="float64")
    assert metric(LAB, PRED) == pytest.approx(0.6875, rel=1e-14)
    # fraction 0 is the accuracy; streaming equals one update
    metric = um.OracleCollaborativeAccuracy(fraction=0.0, num_bins=10, dtype="float64")
    metric.update_state(LAB[:3], PRED[:3])
    assert metric(LAB[3:], PRED[3:]) == pytest.approx(5 / 8)
    metric.reset_states()
    assert metric.result() == 0.0


# --------------------------------------------------------------------------------------
# AUC: tensorflow/auc_test.py
# --------------------------------------------------------------------------------------


def test_auc():
    metric = um.AUC(num_thresholds=3)
    metric.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    assert metric.result() == pytest.approx(0.75, rel=1e-14)
    np.testing.assert_array_equal(metric.true_positives, [2, 1, 0])
    np.testing.assert_array_equal(metric.false_positives, [2, 0, 0])
    np.testing.assert_array_equal(metric.false_negatives, [0, 1, 2])
    np.testing.assert_array_equal(metric.true_negatives, [0, 2, 2])
    # reference code on the same data: the other curves and summation methods
    expected = {
        ("ROC", "minoring"): 0.5,
        ("ROC", "majoring"): 1.0,
        ("PR", "interpolation"): 0.8206993734577657,
        ("PR", "minoring"): 0.25,
        ("PR", "majoring"): 1.0,
    }
    for (curve, method), value in expected.items():
        m = um.AUC(num_thresholds=3, curve=curve, summation_method=method)
        assert m([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]) == pytest.approx(value, rel=1e-12)
    assert um.AUC()([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]) == pytest.approx(0.75)


def test_auc_streams_and_weights():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=400)
    s = np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1)
    w = rng.integers(0, 3, size=400)
    one = um.AUC(num_thresholds=50)
    one.update_state(y, s, sample_weight=w)
    two = um.AUC(num_thresholds=50)
    two.update_state(y[:150], s[:150], sample_weight=w[:150])
    two.update_state(y[150:], s[150:], sample_weight=w[150:])
    assert two.result() == pytest.approx(one.result(), rel=1e-6)
    rep = um.AUC(num_thresholds=50)
    rep.update_state(np.repeat(y, w), np.repeat(s, w))
    assert rep.result() == pytest.approx(one.result(), rel=1e-6)
    # with many thresholds the interpolated ROC area approaches the exact one
    from sklearn.metrics import roc_auc_score

    fine = um.AUC(num_thresholds=2000)
    assert fine(y, s) == pytest.approx(roc_auc_score(y, s), abs=2e-3)


# MultiAUCTest of TensorFlow's tensorflow/python/keras/metrics_test.py (the semantics of
# tf.keras.metrics.AUC's multi_label/label_weights, which the reference's AUC inherits);
# the Keras test states the values to 1e-3 and derives them from these counts; the exact
# fractions are written here.
_ML_PRED = np.array([[0, 0.5, 0.3, 0.9], [0.1, 0.2, 0.3, 0.4]]).T
_ML_GOOD = np.array([[0, 0, 1, 1], [0, 0, 1, 1]]).T
_ML_BAD = np.array([[0, 0, 1, 1], [1, 1, 0, 0]]).T


def test_auc_multi_label():
    m = um.AUC(num_thresholds=5, multi_label=True)
    assert m(_ML_GOOD, _ML_PRED) == pytest.approx((0.875 + 1.0) / 2, rel=1e-12)
    # tp = [[2, 2, 1, 1, 0], [2, 2, 0, 0, 0]] (thresholds by row, labels by column)
    np.testing.assert_array_equal(m.true_positives, [[2, 2], [2, 2], [1, 0], [1, 0], [0, 0]])
    np.testing.assert_array_equal(m.true_negatives, [[0, 0], [1, 2], [2, 2], [2, 2], [2, 2]])
    m.reset_states()
    np.testing.assert_array_equal(m.true_positives, np.zeros((5, 2)))
    assert um.AUC(multi_label=True)(_ML_GOOD, _ML_GOOD) == 1.0
    assert um.AUC(multi_label=False)(_ML_GOOD, _ML_GOOD) == 1.0
    # flat: tpr = [1, 1, 1/4, 1/4, 0], fpr = [1, 1/4, 0, 0, 0]
    flat = um.AUC(num_thresholds=5)(_ML_GOOD, _ML_PRED)
    assert flat == pytest.approx(1 - 3 / 32, rel=1e-12)
    # flat, sample_weight per example [1, 2, 3, 4]: tpr [1, 1, 2/7, 2/7, 0], fpr [1, 1/3, 0..]
    sw = um.AUC(num_thresholds=5)(_ML_GOOD, _ML_PRED, sample_weight=[1, 2, 3, 4])
    assert sw == pytest.approx(1 - (1 / 3) * (1 - 2 / 7) / 2, rel=1e-6)
    # flat, a weight per prediction: tpr [1, 1, 3/11, 3/11, 0], fpr [1, 1/3, 0, 0, 0]
    full = um.AUC(num_thresholds=5)(_ML_GOOD, _ML_PRED, sample_weight=np.arange(8).reshape(4, 2))
    assert full == pytest.approx(1 - (1 / 3) * (1 - 3 / 11) / 2, rel=1e-6)
    # label_weights: weighted mean of the per-label AUCs
    lw = um.AUC(num_thresholds=5, multi_label=True, label_weights=[0.75, 0.25])
    assert lw(_ML_GOOD, _ML_PRED) == pytest.approx(0.875 * 0.75 + 1.0 * 0.25, rel=1e-7)
    # label_weights, flat: each prediction of column l weighted by label_weights[l];
    # tpr [1, 1, 3/8, 3/8, 0], fpr [1, 3/8, 0, 0, 0]
    lwf = um.AUC(num_thresholds=5, label_weights=[0.75, 0.25])(_ML_GOOD, _ML_PRED)
    assert lwf == pytest.approx(1 - (1 - 0.375) * 0.375 / 2, rel=1e-7)
    # manual thresholds: per-label AUCs 0.75 and 0.5
    man = um.AUC(num_thresholds=2, thresholds=[0.5], multi_label=True)
    assert man.num_thresholds == 3
    assert man(_ML_GOOD, _ML_PRED) == pytest.approx((0.75 + 0.5) / 2, rel=1e-12)
    # weighted ROC: tpr [[1, 1, 4/7, 4/7, 0], [1, 1, 0, 0, 0]], fpr [[1, 2/3, 0..], [1, 0..]]
    wroc = um.AUC(num_thresholds=5, multi_label=True)
    label0 = (1 / 3) * 1 + (2 / 3) * (1 + 4 / 7) / 2
    value = wroc(_ML_GOOD, _ML_PRED, sample_weight=[1, 2, 3, 4])
    assert value == pytest.approx((label0 + 1.0) / 2, rel=1e-6)
    # PR interpolation: per-label 0.91667 and 1.0 (good), then the bad labels accumulated
    # on the same metric (as the Keras test does), 0.91667 and 0.5; stated to 1e-1.  The
    # interpolated per-label values are 0.887327 (label 0, both times) and 1.0, 0.5.
    pr = um.AUC(num_thresholds=5, curve="PR", multi_label=True)
    assert pr(_ML_GOOD, _ML_PRED) == pytest.approx((0.91667 + 1.0) / 2, abs=0.1)
    assert pr(_ML_BAD, _ML_PRED) == pytest.approx((0.91667 + 0.5) / 2, abs=0.1)
    label0 = um.AUC(num_thresholds=5, curve="PR")(_ML_GOOD[:, 0], _ML_PRED[:, 0])
    assert pr.result() == pytest.approx((label0 + 0.5) / 2, rel=1e-12)
    # from_logits: the sigmoid of the logits gives the same counts
    logits = np.log(np.clip(_ML_PRED, 1e-12, None) / np.clip(1 - _ML_PRED, 1e-12, None))
    fl = um.AUC(num_thresholds=5, multi_label=True, from_logits=True)
    assert fl(_ML_GOOD, logits) == pytest.approx(0.9375, rel=1e-12)


def test_auc_multi_label_is_the_mean_of_single_label_aucs():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=(300, 3))
    s = np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1)
    w = rng.uniform(size=300)
    lw = np.array([0.2, 0.0, 1.3])
    single = []
    for j in range(3):
        one = um.AUC(num_thresholds=40, curve="PR", dtype="float64")
        one.update_state(y[:150, j], s[:150, j], sample_weight=w[:150])
        one.update_state(y[150:, j], s[150:, j], sample_weight=w[150:])
        single.append(one.result())
    multi = um.AUC(num_thresholds=40, curve="PR", dtype="float64", multi_label=True, num_labels=3)
    assert multi.true_positives.shape == (40, 3)
    multi.update_state(y[:150], s[:150], sample_weight=w[:150])
    multi.update_state(y[150:], s[150:], sample_weight=w[150:])
    assert multi.result() == pytest.approx(np.mean(single), rel=1e-12)
    weighted = um.AUC(
        num_thresholds=40, curve="PR", dtype="float64", multi_label=True, label_weights=lw
    )
    weighted.update_state(y, s, sample_weight=w)
    assert weighted.result() == pytest.approx(np.dot(single, lw) / lw.sum(), rel=1e-12)
    zero = um.AUC(multi_label=True, label_weights=[0.0, 0.0, 0.0])
    assert zero(y, s) == 0.0  # div_no_nan
    # flat with label_weights = flat with the weights repeated per prediction
    a = um.AUC(num_thresholds=40, dtype="float64", label_weights=lw)(y, s)
    b = um.AUC(num_thresholds=40, dtype="float64")(y, s, sample_weight=np.broadcast_to(lw, y.shape))
    assert a == pytest.approx(b, rel=1e-12)


def test_auc_multi_label_bad_input():
    with pytest.raises(ValueError, match="num_labels"):
        um.AUC(num_labels=3)
    with pytest.raises(ValueError, match="non-negative"):
        um.AUC(label_weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="num_labels"):
        um.AUC(multi_label=True, num_labels=3, label_weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="shape"):
        um.AUC(multi_label=True).update_state([0, 1, 1], [0.1, 0.5, 0.7])
    with pytest.raises(ValueError, match="labels"):
        um.AUC(multi_label=True, num_labels=3).update_state(_ML_GOOD, _ML_PRED)
    with pytest.raises(ValueError, match="label_weights"):
        um.AUC(label_weights=[1.0, 2.0, 3.0]).update_state(_ML_GOOD, _ML_PRED)
    m = um.AUC(multi_label=True)
    assert m.true_positives is None and m.result() == 0.0
    m.update_state(_ML_GOOD, _ML_PRED)
    with pytest.raises(ValueError, match="labels"):
        m.update_state(np.zeros((4, 3)), np.zeros((4, 3)))


# --------------------------------------------------------------------------------------
# GeneralCalibrationError accumulates (the reference keeps only the last call)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["even", "adaptive"])
@pytest.mark.parametrize("max_prob, cc", [(True, False), (False, True), (False, False)])
@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_gce_class_accumulates(scheme, max_prob, cc, norm):
    rng = np.random.default_rng(1)
    members = rng.dirichlet(np.ones(3), size=(4, 40))
    labels = rng.integers(0, 3, size=40)
    metric = um.GeneralCalibrationError(scheme, max_prob, cc, norm, num_bins=8)
    assert metric.result() is None
    for probs in members:
        metric.update_state(labels, probs)
    expected = um.gce(np.tile(labels, 4), members.reshape(-1, 3), scheme, max_prob, cc, norm, 8)
    assert metric.result() == expected
    n_values = 160 if max_prob else 480
    assert metric.counts.sum() == pytest.approx(n_values if not cc else 480)
    if not cc:
        assert metric.counts.shape == (8,)
        # the per-bin arrays reproduce the number
        w = (metric.counts + 2.220446049250313e-16) / metric.counts.sum()
        gaps = np.abs(metric.calibration_errors)
        value = np.sum(w * gaps) if norm == "l1" else np.sqrt(np.sum(w * gaps**2))
        assert value == pytest.approx(expected, rel=1e-12)
    else:
        assert metric.counts.shape == (3, 8)
    np.testing.assert_allclose(metric.calibration_errors, metric.accuracies - metric.confidences)
    # the last member alone is what the reference's update_state would report
    last = um.gce(labels, members[-1], scheme, max_prob, cc, norm, 8)
    assert metric.result() != pytest.approx(last, rel=1e-9)
    metric.reset_state()
    assert metric.result() is None and metric.counts is None


def test_gce_class_golden_and_datapoints_per_bin():
    metric = um.GeneralCalibrationError("even", True, False, "l1", num_bins=30)
    metric.update_state([0, 1, 2, 1, 2][:2], np.eye(3)[:2] * 0.5 + 0.1)
    metric.reset_state()
    metric.update_state([1, 0, 1, 1, 0, 1, 0, 0], [0.91, 0.32, 0.66, 0.67, 0.57, 0.98, 0.41, 0.19])
    assert metric.result() == pytest.approx(0.18125, rel=1e-14)  # test_binary_1d
    metric = um.GeneralCalibrationError("adaptive", True, False, "l2", datapoints_per_bin=100)
    metric.update_state([0, 1, 1], [0.2, 0.7, 0.9])
    assert metric.result() == pytest.approx(0.2000000000000001, rel=1e-14)
    assert metric.num_bins == 0
    with pytest.raises(ValueError, match="adaptive"):
        um.GeneralCalibrationError("even", True, False, "l2", datapoints_per_bin=2)
    with pytest.raises(ValueError, match="binning_scheme"):
        um.GeneralCalibrationError("uniform", True, False, "l2")
    metric = um.GeneralCalibrationError("even", True, False, "l1")
    metric.update_state([0, 1], [[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match="columns"):
        metric.update_state([0], [[0.2, 0.3, 0.5]])


# --------------------------------------------------------------------------------------
# scoring rules: tensorflow/scoring_rules_test.py and the reference code
# --------------------------------------------------------------------------------------


def test_brier_score_and_decomposition():
    probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]])
    y = [0, 1, 2, 1]
    np.testing.assert_allclose(
        um.brier_score(y, probabilities=probs, aggregate=False),
        [-0.86, -0.94, -0.46, -0.38],
        rtol=1e-14,
    )
    assert um.brier_score(y, probabilities=probs) == pytest.approx(-0.66, rel=1e-14)
    # the conventional Brier score is this plus 1
    assert skm.brier_score(y, probs) == pytest.approx(1 - 0.66, rel=1e-14)
    assert um.brier_score(y, logits=np.log(probs)) == pytest.approx(-0.66, rel=1e-12)
    unc, res, rel = um.brier_decomposition(y, probabilities=probs)
    assert unc == pytest.approx(-0.375, abs=1e-7)
    assert res == pytest.approx(0.37499993125, abs=1e-7)
    assert rel == pytest.approx(0.18999995750, abs=1e-7)
    for bad in (
        lambda: um.brier_score(y),
        lambda: um.brier_score(y, logits=probs, probabilities=probs),
        lambda: um.brier_score(y, probabilities=probs[:, 0]),
        lambda: um.brier_score([0, 1, 3, 1], probabilities=probs),
    ):
        with pytest.raises(ValueError):
            bad()


def test_brier_decomposition_statistical():
    # test_brier_decomposition: |unc - res + rel - brier| <= 0.01, res, rel >= 0
    rng = np.random.default_rng(1)
    for temperature in (0.01, 1.0, 5.0):
        for k in (2, 4):
            logits = rng.normal(size=(8192, k)) / temperature
            y = rng.integers(0, k, size=8192)
            unc, res, rel = um.brier_decomposition(y, logits=logits)
            assert res >= 0 and rel >= 0
            assert abs(unc - res + rel - um.brier_score(y, logits=logits)) <= 0.01


def test_crps():
    np.testing.assert_allclose(
        um.crps_score([0, 1], [[-1, 0, 1, 2], [0.5, 0.5, 1.5, 3]]), [0.25, 0.25], rtol=1e-14
    )
    np.testing.assert_allclose(
        um.crps_normal_score([0, 1, -2], [0, 0, 0.5], [1, 2, 0.5]),
        [0.2336949773, 0.6628070625, 2.2179052617],
        atol=1e-10,
    )
    assert um.crps_normal_score([0.3], [0.1], [0.7])[0] == pytest.approx(
        skm.crps_normal([0.3], [0.1], [0.7]), rel=1e-12
    )
    # test_normal_predictive_agreement_analytic_vs_sampling_approx
    rng = np.random.default_rng(1)
    y = rng.normal(size=100)
    samples = rng.normal(size=(100, 10000))
    gap = um.crps_score(y, samples) - um.crps_normal_score(y, np.zeros(100), np.ones(100))
    assert np.max(np.abs(gap)) <= 0.05
    with pytest.raises(ValueError, match="rank 1"):
        um.crps_score([[0.0]], [[1.0]])
    with pytest.raises(ValueError, match="same shape"):
        um.crps_normal_score([0.0], [0.0, 1.0], [1.0, 1.0])


def test_bayesian_ece():
    # statistical tests of 0.0.5's calibration_test.py (the helper survived in 0.0.82)
    np.random.seed(1)
    rng = np.random.default_rng(1)
    logits = 2 * rng.normal(size=(5000, 2))
    P = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    y = (rng.uniform(size=5000) < P[:, 1]).astype(int)
    good = um.bayesian_expected_calibration_error(10, probabilities=P, labels_true=y,
                                                  num_ece_samples=200)  # fmt: skip
    assert good.shape == (200,) and np.percentile(good, 99) < 0.05
    other = 2 * rng.normal(size=(5000, 2))
    bad = um.bayesian_expected_calibration_error(10, logits=other, labels_true=y,
                                                 num_ece_samples=200)  # fmt: skip
    assert np.percentile(bad, 1) > 0.1
    small = um.bayesian_expected_calibration_error(
        10, probabilities=P[:50], labels_true=y[:50], labels_predicted=np.argmax(P[:50], 1)
    )
    assert ((small >= 0) & (small <= 1)).all()
    with pytest.raises(ValueError, match="exactly one"):
        um.bayesian_expected_calibration_error(10, labels_true=y)
    with pytest.raises(ValueError, match="K >= 2"):
        um.bayesian_expected_calibration_error(10, probabilities=P[:, 1], labels_true=y)


# --------------------------------------------------------------------------------------
# SPCE / CCE: numpy/semiparametric_calibration_error_test.py, censored_..._test.py
# --------------------------------------------------------------------------------------


def _spce_data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    probs = rng.uniform(size=n)
    a_true = 0.7 * probs**2 + 0.3 * probs
    labels = (rng.uniform(size=n) <= a_true).astype(float)
    return probs, labels, a_true


def test_spce():
    from sklearn.model_selection import KFold

    probs, labels, a_true = _spce_data()
    truth = 0.7 * np.sqrt(1 / 30)  # sqrt(E[(p - a(p))^2]) with p ~ U(0, 1)
    est = um.SPCE(smoothing="spline").rms_calibration_error(probs, labels)
    assert 0 <= est <= 1 and est == pytest.approx(truth, abs=0.04)
    assert um.spce(probs, labels, smoothing="spline") == est
    np.random.seed(0)
    low, mid, high = um.spce_conf_int(probs, labels, smoothing="spline")
    assert 0 <= low <= mid <= high <= 1 and mid == est
    spline_kfold = um.SPCE(smoothing="spline", fold_generator=KFold(5, shuffle=True))
    plug_in = spline_kfold.rms_calibration_error(probs, a_true)
    assert 0 <= plug_in <= 1 and plug_in == pytest.approx(truth, abs=0.02)
    kernel = um.spce(probs[:500], labels[:500])
    assert kernel == pytest.approx(truth, abs=0.06)
    with pytest.raises(ValueError, match="alpha"):
        um.SPCE().rms_calibration_error_conf_int(probs, labels, alpha=1.5)
    with pytest.raises(ValueError, match="weights"):
        um.SPCE(weights="uniform")
    with pytest.raises(ValueError, match="probs"):
        um.spce(probs[:5], labels[:6])


def test_cce():
    probs, labels, _ = _spce_data(600, seed=1)
    times, event = 1.5 - labels, labels
    kwargs = {"folds": 3, "bootstrap_size": 10, "num_repeats": 2}
    est = um.CCE(end_time=1, **kwargs).rms_calibration_error(probs, times, event)
    assert 0 <= est <= 1
    # squared scale, about 0.49 / 30 here (the data have no censoring before end_time)
    assert est == pytest.approx(0.49 / 30, abs=0.01)
    assert um.cce(probs, times, event, end_time=1, **kwargs) == est
    low, mid, high = um.cce_conf_int(probs, times, event, end_time=1, **kwargs)
    assert 0 <= low <= mid <= high <= 1
    assert mid == pytest.approx(np.sqrt(max(est, 0)), rel=1e-12)
    with pytest.raises(ValueError, match="survival_aggregation"):
        um.CCE(end_time=1, survival_aggregation="kaplan")


# --------------------------------------------------------------------------------------
# visualisation: numpy/visualization_test.py (figure width > 1) and the curves
# --------------------------------------------------------------------------------------


@pytest.fixture
def plt():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_reliability_diagram(plt):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=10000)
    y = (rng.uniform(size=10000) < p).astype(int)
    for probs in (p, p.reshape(-1, 1)):
        fig = um.reliability_diagram(y, probs)
        assert fig.get_figwidth() > 1
    curve = fig.curve_
    assert curve.confidence.shape == (20000 - 200,)  # windows of int(20000 / 100) pairs
    # pooled pairs of [1 - p, p]: the curve of a calibrated model hugs the diagonal
    assert np.max(np.abs(curve.error)) < 0.15
    image = um.reliability_diagram(y, p, img=True)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    P3 = np.array([[0.4, 0.4, 0.2], [0.4, 0.5, 0.1], [0.2, 0.1, 0.7]])
    fig = um.reliability_diagram([0, 1, 2], P3, class_conditional=True, y_axis="error")
    assert len(fig.axes) == 3
    with pytest.raises(ValueError, match="y_axis"):
        um.reliability_diagram(y, p, y_axis="gap")


def test_pooled_curve_by_hand():
    curve = um.pooled_reliability_curve([0, 1, 1], [0.2, 0.6, 0.9])
    # pairs (0.8, 1), (0.2, 0), (0.4, 0), (0.6, 1), (0.1, 0), (0.9, 1) sorted, window 1,
    # windows 0..n-w-1 (the last pair has no window, as in the reference)
    np.testing.assert_allclose(curve.confidence, [0.1, 0.2, 0.4, 0.6, 0.8])
    np.testing.assert_allclose(curve.accuracy, [0, 0, 0, 1, 1])


def test_compat_curves_unpack_as_their_main_arrays():
    """Regression: the curves were Bunches, whose unpacking gave their keys."""
    curve = um.pooled_reliability_curve([0, 1, 1], [0.2, 0.6, 0.9])
    values = check_unpackable_result(
        curve, um.PooledReliabilityCurveResult, ("accuracy", "confidence")
    )
    accuracy, confidence = values  # observed, then predicted, as reliability_curve
    np.testing.assert_allclose(accuracy, [0, 0, 0, 1, 1])
    np.testing.assert_allclose(confidence, [0.1, 0.2, 0.4, 0.6, 0.8])
    np.testing.assert_allclose(curve.error, accuracy - confidence)
    short = um.confidence_vs_accuracy_curve([0.9, 0.3, 0.8], [1, 1, 0], [0.6], 3)
    thresholds, accuracy = check_unpackable_result(
        short, um.ConfidenceAccuracyCurveResult, ("thresholds", "accuracy")
    )
    np.testing.assert_allclose(thresholds, [0.0, 0.495, 0.99])
    np.testing.assert_allclose(accuracy, [0.25, 0.25])
    small = um.rejection_classification_curve([0.9, 0.3, 0.8], [1, 1, 0], [0.6], 3)
    names = ("rejection_rate", "accuracy", "thresholds")
    rate, accuracy, thresholds = check_unpackable_result(
        small, um.RejectionClassificationCurveResult, names
    )
    np.testing.assert_allclose(rate, [0.0, 0.495, 0.99])
    np.testing.assert_allclose(accuracy, [0.25, 0.5, 1.0], rtol=1e-5)
    assert np.all(np.diff(thresholds) >= 0) and thresholds.shape == (3,)
    np.testing.assert_allclose(small.theoretical_max, [0.75, 1.0, 1.0])


def test_confidence_vs_accuracy(plt):
    rng = np.random.default_rng(0)
    p_in, p_out = rng.uniform(size=10000), rng.uniform(size=10000)
    y_in = (rng.uniform(size=10000) < p_in).astype(int)
    ax = um.plot_confidence_vs_accuracy_diagram(p_in, y_in, p_out)
    assert ax.figure.get_figwidth() > 1
    curve = ax.curve_
    conf_in = np.maximum(p_in, 1 - p_in)
    correct = (p_in > 0.5) == (y_in == 1)
    conf_out = np.maximum(p_out, 1 - p_out)
    tau = curve.thresholds[5]
    expected = np.sum(correct & (conf_in >= tau)) / (
        np.sum(conf_in >= tau) + np.sum(conf_out >= tau)
    )
    assert curve.accuracy[5] == pytest.approx(expected, rel=1e-14)
    assert len(curve.accuracy) == 20
    # stops at the first threshold no example reaches
    short = um.confidence_vs_accuracy_curve([0.9, 0.3, 0.8], [1, 1, 0], [0.6], 3)
    np.testing.assert_allclose(short.accuracy, [0.25, 0.25])


def test_rejection_diagram(plt):
    rng = np.random.default_rng(0)
    p_in, p_out = rng.uniform(size=2000), rng.uniform(size=2000)
    y_in = (rng.uniform(size=2000) < p_in).astype(int)
    ax = um.plot_rejection_classification_diagram(p_in, y_in, p_out)
    assert ax.figure.get_figwidth() > 1
    curve = ax.curve_
    assert len(curve.accuracy) == 100 and curve.theoretical_max[0] == pytest.approx(0.5)
    assert ax.get_title() == "Rejection Classification Diagram"
    small = um.rejection_classification_curve([0.9, 0.3, 0.8], [1, 1, 0], [0.6], 3)
    np.testing.assert_allclose(small.accuracy, [0.25, 0.5, 1.0], rtol=1e-5)
    np.testing.assert_allclose(small.theoretical_max, [0.75, 1.0, 1.0])
    # rates no threshold reaches are dropped (the reference crashes): confidences of 1
    ones = um.rejection_classification_curve([1.0] * 5, [1] * 5, [0.9] * 5, 10)
    assert len(ones.accuracy) == len(ones.rejection_rate) < 10


def test_import_skcalib_does_not_import_matplotlib():
    import subprocess
    import sys

    code = (
        "import sys, skcalib; from skcalib.compat import uncertainty_metrics; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
