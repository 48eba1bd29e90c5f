"""skcalib.metrics: the one core metrics module of skcalib.

Calibration errors, reliability curves and the binning core they share, proper scoring
rules, information criteria, selective prediction (rejection curves, risk-coverage areas,
oracle-collaborative accuracy, uncertainty AUC) and the scorers.  Within skcalib this
package depends only on the scikit-learn compatibility layer (:mod:`skcalib.utils._sklearn_compat`);
everything else in skcalib depends on it.
"""

from .._core._binning import BinStats, compute_bin_stats, quantile_bin_edges, uniform_bin_edges
from ._calibration._binned import (
    adaptive_calibration_error,
    calibration_error_from_bin_stats,
    expected_calibration_error,
    general_calibration_error,
    max_calibration_error,
    monotonic_sweep_calibration_error,
    reliability_curve,
    root_mean_squared_calibration_error,
    static_calibration_error,
    thresholded_adaptive_calibration_error,
)
from ._calibration._quantiles import expected_calibration_error_quantiles
from ._calibration._semiparametric import (
    censored_calibration_error,
    censored_calibration_error_ci,
    semiparametric_calibration_error,
    semiparametric_calibration_error_ci,
)
from ._calibration._smooth import smooth_calibration_error, smooth_reliability_curve
from ._calibration._statistical import (
    bayesian_expected_calibration_error,
    calibration_error_ci,
    consistency_resampling_test,
    hosmer_lemeshow_test,
    spiegelhalter_test,
)

# ensembles: PSIS-LOO, uncertainty decomposition, diversity, member log-likelihoods
from ._ensembles._diversity import (
    average_pairwise_diversity,
    cosine_distance,
    disagreement,
    double_fault,
    kl_divergence,
    lp_distance,
    variance_bound,
)
from ._ensembles._information_criteria import (
    PSISWarning,
    importance_sampling_cross_validation,
    negative_waic,
    psis_loo,
)
from ._ensembles._members import member_log_likelihood, member_probabilities
from ._ensembles._uncertainty import (
    ensemble_cross_entropy,
    gibbs_cross_entropy,
    knowledge_uncertainty,
    model_uncertainty,
)
from ._groups._by_group import calibration_by_group
from ._groups._cumulative import cumulative_calibration_error, cumulative_calibration_test
from ._groups._multicalibration import multicalibration_error
from ._groups._sequential import SequentialCalibrationTest
from ._registration import register_scorers, unregister_scorers
from ._regression._forms import PredictionInterval, PredictiveQuantiles, PredictiveSamples
from ._regression._metrics import (
    RegressionCalibrationCurveResult,
    crps,
    expected_normalized_calibration_error,
    interval_coverage,
    log_score,
    mean_interval_width,
    miscalibration_area,
    pit,
    regression_calibration_curve,
    regression_calibration_error,
    sharpness,
    uncertainty_calibration_error,
    weighted_interval_score,
)
from ._regression._pit import pit_histogram, quantile_calibration_curve
from ._regression._scores import (
    crps_ensemble,
    crps_normal,
    interval_score,
    normal_negative_log_likelihood,
    pit_ensemble,
    pit_normal,
    quantile_score,
)
from ._results import (
    BootstrapConfidenceInterval,
    BrierDecompositionResult,
    CalibrationErrorQuantilesResult,
    CalibrationTestResult,
    ConfidenceInterval,
    ConsistencyResamplingResult,
    CumulativeCalibrationTestResult,
    GroupCalibrationResult,
    HosmerLemeshowResult,
    InformationCriterionResult,
    MulticalibrationResult,
    PairwiseDiversityResult,
    PITHistogramResult,
    PSISLOOResult,
    QuantileCalibrationCurveResult,
    RejectionCurveResult,
    ReliabilityCurveResult,
    ScoreDecompositionResult,
    SmoothReliabilityCurveResult,
    SquaredErrorConfidenceInterval,
    UncertaintyDecompositionResult,
)
from ._scorer import get_scorer, get_scorer_names
from ._scoring._scoring_rules import (
    brier_decomposition,
    brier_score,
    negative_log_likelihood,
    score_decomposition,
)
from ._selective import (
    area_under_generalized_risk_coverage,
    area_under_risk_coverage,
    excess_area_under_risk_coverage,
    oracle_collaborative_accuracy,
    out_of_distribution_auc,
    rejection_curve,
    risk_at_coverage,
    uncertainty_auc,
)

__all__ = [
    "get_scorer",
    "get_scorer_names",
    "register_scorers",
    "unregister_scorers",
    "importance_sampling_cross_validation",
    "member_probabilities",
    "negative_waic",
    "normal_negative_log_likelihood",
    "brier_decomposition",
    "brier_score",
    "crps_ensemble",
    "crps_normal",
    "interval_coverage",
    "interval_score",
    "negative_log_likelihood",
    "pit_ensemble",
    "pit_normal",
    "quantile_score",
    "score_decomposition",
    "BinStats",
    "adaptive_calibration_error",
    "calibration_error_from_bin_stats",
    "compute_bin_stats",
    "expected_calibration_error",
    "expected_calibration_error_quantiles",
    "general_calibration_error",
    "max_calibration_error",
    "monotonic_sweep_calibration_error",
    "quantile_bin_edges",
    "reliability_curve",
    "root_mean_squared_calibration_error",
    "static_calibration_error",
    "thresholded_adaptive_calibration_error",
    "uniform_bin_edges",
    # calibration of regression from PIT values (drawn by skcalib.display.PITDisplay)
    "pit_histogram",
    "quantile_calibration_curve",
    # forms of a predictive distribution for regression
    "PredictiveSamples",
    "PredictiveQuantiles",
    "PredictionInterval",
    # regression metrics of any predictive distribution
    "crps",
    "log_score",
    "pit",
    "regression_calibration_curve",
    "RegressionCalibrationCurveResult",
    "regression_calibration_error",
    "miscalibration_area",
    "sharpness",
    "mean_interval_width",
    "weighted_interval_score",
    "expected_normalized_calibration_error",
    "uncertainty_calibration_error",
    # statistical calibration
    "bayesian_expected_calibration_error",
    "calibration_error_ci",
    "consistency_resampling_test",
    "hosmer_lemeshow_test",
    "spiegelhalter_test",
    "smooth_calibration_error",
    "smooth_reliability_curve",
    "censored_calibration_error",
    "censored_calibration_error_ci",
    "semiparametric_calibration_error",
    "semiparametric_calibration_error_ci",
    # calibration across groups and over time
    "calibration_by_group",
    "cumulative_calibration_error",
    "cumulative_calibration_test",
    "multicalibration_error",
    "SequentialCalibrationTest",
    # results of the statistical functions (unpack as scipy.stats results do)
    "BootstrapConfidenceInterval",
    "CalibrationTestResult",
    "ConfidenceInterval",
    "ConsistencyResamplingResult",
    "CumulativeCalibrationTestResult",
    "GroupCalibrationResult",
    "HosmerLemeshowResult",
    "MulticalibrationResult",
    "SquaredErrorConfidenceInterval",
    # results of the other functions that return several values (they unpack as their
    # main values, as the sklearn and scipy counterparts; the rest are attributes)
    "BrierDecompositionResult",
    "CalibrationErrorQuantilesResult",
    "InformationCriterionResult",
    "PairwiseDiversityResult",
    "PITHistogramResult",
    "PSISLOOResult",
    "QuantileCalibrationCurveResult",
    "RejectionCurveResult",
    "ReliabilityCurveResult",
    "ScoreDecompositionResult",
    "SmoothReliabilityCurveResult",
    "UncertaintyDecompositionResult",
    # ensembles: PSIS-LOO, uncertainty decomposition, diversity, member log-likelihoods
    "PSISWarning",
    "average_pairwise_diversity",
    "cosine_distance",
    "disagreement",
    "double_fault",
    "ensemble_cross_entropy",
    "gibbs_cross_entropy",
    "kl_divergence",
    "knowledge_uncertainty",
    "lp_distance",
    "member_log_likelihood",
    "model_uncertainty",
    "psis_loo",
    "variance_bound",
    # selective prediction and uncertainty AUC
    "area_under_generalized_risk_coverage",
    "area_under_risk_coverage",
    "excess_area_under_risk_coverage",
    "oracle_collaborative_accuracy",
    "out_of_distribution_auc",
    "rejection_curve",
    "risk_at_coverage",
    "uncertainty_auc",
]
