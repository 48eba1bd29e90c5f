"""The one input-validation routine: what it accepts and the errors it raises."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn import config_context

from skcalib.metrics import check_classification_input, expected_calibration_error
from skcalib.metrics._validation import check_sample_weight, row_sum_tolerance

P3 = np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])


def test_accepts_lists_strings_bools_pandas_float32():
    d = check_classification_input(["b", "a", "c"], P3.tolist())
    assert_array_equal(d.classes, ["a", "b", "c"])
    assert_array_equal(d.y, [1, 0, 2])
    d = check_classification_input(pd.Series([True, False, True]), pd.Series([0.9, 0.2, 0.6]))
    assert_array_equal(d.classes, [False, True])
    assert d.pos_index == 1 and d.binary_1d
    df = pd.DataFrame(P3, columns=["x", "y", "z"])
    d = check_classification_input(pd.Series(["y", "x", "z"]), df, labels=["x", "y", "z"])
    assert_array_equal(d.y, [1, 0, 2])
    d = check_classification_input([0, 1, 2], P3.astype(np.float32))
    assert d.proba.dtype == np.float32
    d = check_classification_input(pd.Categorical(["a", "b", "a"]), [0.1, 0.9, 0.3])
    assert_array_equal(d.classes, ["a", "b"])


def test_no_copy_of_float_input():
    P = np.ascontiguousarray(P3)
    d = check_classification_input([0, 1, 2], P)
    assert np.shares_memory(d.proba, P)
    P32 = P.astype(np.float32)
    assert np.shares_memory(check_classification_input([0, 1, 2], P32).proba, P32)


def test_labels_fix_order_and_missing_classes():
    d = check_classification_input(["a", "a", "a"], P3, labels=["c", "b", "a"])
    assert_array_equal(d.y, [2, 2, 2])
    # integer labels with fewer observed classes than columns: classes 0..k-1
    d = check_classification_input([0, 0, 2], P3)
    assert_array_equal(d.classes, [0, 1, 2])
    assert_array_equal(d.y, [0, 0, 2])


def test_binary_default_positive_class_is_the_greater_label():
    d = check_classification_input(["no", "yes", "no"], [0.2, 0.7, 0.1])
    assert d.classes[d.pos_index] == "yes"
    d = check_classification_input(["no", "yes", "no"], [0.2, 0.7, 0.1], pos_label="no")
    assert d.classes[d.pos_index] == "no"
    d = check_classification_input([1, 1], [0.2, 0.7])
    assert d.classes[d.pos_index] == 1
    d = check_classification_input([0, 0], [0.2, 0.7])
    assert d.classes[d.pos_index] == 1


@pytest.mark.parametrize(
    "y, P, kwargs, match",
    [
        ([0, 1], [0.2, np.nan], {}, r"y_proba contains NaN \(first at index 1\)"),
        ([0, 1], [0.2, np.inf], {}, "y_proba contains infinity"),
        ([0, 1], [0.2, 1.5], {}, r"y_proba must contain probabilities in \[0, 1\]"),
        ([0, 1], [-0.1, 0.5], {}, r"y_proba\[0\] = -0.1"),
        (
            [0, 1, 2],
            [[0.2, 0.3, 0.5], [0.1, 0.8, 0.2], [0.3, 0.3, 0.4]],
            {},
            "rows must sum to 1.*row 1 sums to 1.1",
        ),
        ([0, 1, 2], [[0.2, 0.3, 0.5], [0.1, np.nan, 0.1], [0.3, 0.3, 0.4]], {}, "NaN.*index 1, 1"),
        ([0, 1, 2], [[-0.2, 0.7, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]], {}, r"\[0, 1\]"),
        ([0, 1], [0.2, 0.3, 0.5], {}, "different numbers of samples: 2 and 3"),
        ([0, 1, 3], P3, {"labels": [0, 1, 2]}, "labels not in labels.*3"),
        (["a", "b", "z"], P3, {"labels": ["a", "b", "c"]}, "not in labels.*z"),
        ([0, 1, 2], P3[:, :2] / P3[:, :2].sum(1, keepdims=True), {}, "2 columns but y_true has 3"),
        ([0, 1, 2], P3, {"labels": [0, 1]}, "3 columns but labels has 2"),
        ([], [], {}, "empty"),
        ([0, 1, 2], P3[None], {}, "shape"),
        ([[0, 1], [1, 0]], [0.1, 0.2], {}, "y_true must be a 1-D"),
        ([0, 1, 2], [0.1, 0.2, 0.3], {}, "1-D .binary. but y_true has 3 classes"),
        ([0, 1, 2], P3, {"pos_label": 1}, "only meaningful for binary"),
        ([0, 1], [0.1, 0.2], {"pos_label": 7}, "pos_label=7 is not one of the classes"),
        (["a", "a"], [0.1, 0.2], {}, "single class 'a'.*pos_label"),
        ([0, 1], [0.1, 0.2], {"labels": [0, 0]}, "duplicates"),
        ([0.0, np.nan], [0.1, 0.2], {}, "y_true contains NaN"),
        ([0, 1], ["a", "b"], {}, "y_proba must contain numbers"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, -1]}, r"non-negative; sample_weight\[1\]"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, np.nan]}, "sample_weight contains NaN"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 2, 3]}, "sample_weight has 3 elements"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [0, 0]}, "sums to zero"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1e308, 1e308]}, "too large"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 5e-324]}, r"subnormal.*sample_weight\[1\]"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [[1, 2]]}, "sample_weight must be 1-D"),
        ([0, 1], [[0.1], [0.2], [0.3]], {}, "different numbers"),
        ([0, 1], np.zeros((2, 0)), {}, "0 columns"),
        ([0, "a"], [0.1, 0.2], {"labels": [0, 1]}, "labels"),
    ],
)
def test_errors_name_the_problem(y, P, kwargs, match):
    with pytest.raises(ValueError, match=match):
        check_classification_input(y, P, **kwargs)
    # and through a public metric
    with pytest.raises(ValueError):
        expected_calibration_error(y, P, **kwargs)


def test_row_sum_tolerance_scales_with_dtype():
    assert row_sum_tolerance(np.float64) == pytest.approx(np.sqrt(np.finfo(np.float64).eps))
    assert row_sum_tolerance(np.float32) == pytest.approx(np.sqrt(np.finfo(np.float32).eps))
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(1000), size=50).astype(np.float32)  # float32 rounding
    y = rng.integers(0, 1000, 50)
    expected_calibration_error(y, P, labels=np.arange(1000))
    # an error of 1e-5 is fine in float32 and not in float64
    P64 = rng.dirichlet(np.ones(4), size=20)
    P64[:, 0] += 1e-5
    y4 = rng.integers(0, 4, 20)
    expected_calibration_error(y4, P64.astype(np.float32), labels=range(4))
    with pytest.raises(ValueError, match="sum to 1"):
        expected_calibration_error(y4, P64, labels=range(4))


def test_assume_finite_skips_value_checks_only():
    y = [0, 1, 2]
    P = P3.copy()
    P[0, 0] = 0.25  # row sum 1.05
    with pytest.raises(ValueError):
        expected_calibration_error(y, P)
    with config_context(assume_finite=True):
        expected_calibration_error(y, P)
        with pytest.raises(ValueError, match="different numbers"):
            expected_calibration_error([0, 1], P)


def test_inputs_not_modified():
    y = np.array([0, 1, 2, 1])
    P = np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.5, 0.0]])
    w = np.array([1.0, 2.0, 0.0, 1.0])
    copies = y.copy(), P.copy(), w.copy()
    for mc in ("auto", "top_label", "classwise"):
        for strategy in ("uniform", "quantile"):
            expected_calibration_error(y, P, sample_weight=w, multiclass=mc)
            from skcalib.metrics import general_calibration_error

            general_calibration_error(
                y, P, sample_weight=w, multiclass=mc, strategy=strategy, threshold=0.2
            )
    assert_array_equal(y, copies[0])
    assert_array_equal(P, copies[1])
    assert_array_equal(w, copies[2])


def test_check_sample_weight_scalar_and_types():
    assert_array_equal(check_sample_weight(2, 3), [2.0, 2.0, 2.0])
    assert check_sample_weight(None, 3) is None
    with pytest.raises(ValueError, match="numeric"):
        check_sample_weight(["a", "b"], 2)


def test_chunk_boundaries_error_index():
    # error index is reported in global coordinates even deep into a chunked pass
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(5), size=100_000)
    P[77_777, 3] = np.nan
    y = rng.integers(0, 5, 100_000)
    with pytest.raises(ValueError, match="index 77777, 3"):
        expected_calibration_error(y, P)
    with pytest.raises(ValueError, match="index 77777, 3"):
        expected_calibration_error(y, P, multiclass="classwise")
