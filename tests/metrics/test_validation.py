"""The one input-validation routine: what it accepts and the errors it raises."""

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal
from sklearn import config_context
from sklearn.metrics import log_loss

from skcalib._core._validation import (
    PROBA_TOLERANCE,
    check_classification_input,
    check_sample_weight,
    row_sum_tolerance,
)
from skcalib.metrics import (
    brier_score,
    expected_calibration_error,
    negative_log_likelihood,
    static_calibration_error,
)

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
    d = check_classification_input(pd.Categorical(["a", "b", "a"]), [0.1, 0.9, 0.3], pos_label="b")
    assert_array_equal(d.classes, ["a", "b"])
    assert d.pos_index == 1


def test_no_copy_of_float_input():
    P = np.ascontiguousarray(P3)
    d = check_classification_input([0, 1, 2], P)
    assert np.shares_memory(d.proba, P)
    P32 = P.astype(np.float32)
    assert np.shares_memory(check_classification_input([0, 1, 2], P32).proba, P32)


def test_labels_fix_order_and_missing_classes():
    d = check_classification_input(["a", "a", "a"], P3, labels=["c", "b", "a"])
    assert_array_equal(d.y, [2, 2, 2])
    # integer labels with fewer observed classes than columns: the classes cannot be
    # inferred (labels 1..3 of a model, class 3 missing, would be read one column off)
    with pytest.raises(ValueError, match=r"3 columns but y_true has 2 classes \[0, 2\].*labels="):
        check_classification_input([0, 0, 2], P3)
    d = check_classification_input([0, 0, 2], P3, labels=[0, 1, 2])
    assert_array_equal(d.classes, [0, 1, 2])
    assert_array_equal(d.y, [0, 0, 2])


def test_missing_class_in_an_evaluation_slice_needs_labels():
    # the reported bug: a model of classes 1, 2, 3 evaluated on a slice without class 3
    # was scored with the classes inferred as [1, 2], reading the columns one off
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.2, 0.5, 0.3], [0.5, 0.1, 0.4]])
    y = [1, 2, 2, 1]
    for metric in (negative_log_likelihood, brier_score, expected_calibration_error):
        with pytest.raises(
            ValueError, match=r"3 columns but y_true has 2 classes \[1, 2\].*pass labels="
        ):
            metric(y, P)
    assert negative_log_likelihood(y, P, labels=[1, 2, 3]) == pytest.approx(
        log_loss(y, P, labels=[1, 2, 3]), rel=1e-12
    )
    # binary: a single observed class with two columns raises, as log_loss does
    P2 = np.array([[0.3, 0.7], [0.4, 0.6], [0.1, 0.9], [0.8, 0.2]])
    with pytest.raises(ValueError, match=r"2 columns but y_true has 1 classes \[1\]"):
        negative_log_likelihood([1, 1, 1, 1], P2)
    with pytest.raises(ValueError):
        log_loss([1, 1, 1, 1], P2)
    assert negative_log_likelihood([1, 1, 1, 1], P2, labels=[0, 1]) == pytest.approx(
        log_loss([1, 1, 1, 1], P2, labels=[0, 1]), rel=1e-12
    )


def test_float16_softmax_rows_pass_with_float16_tolerance():
    # half-precision softmax outputs: each entry rounded to float16 moves a row sum by
    # up to ~5e-4, more than PROBA_TOLERANCE; such rows pass when given as float16
    row = np.array([[0.32470703125, 0.1534423828125, 0.521484375]], dtype=np.float16)
    assert row.astype(np.float64).sum() == pytest.approx(0.99964, abs=1e-5)
    assert 1 - row.astype(np.float64).sum() > PROBA_TOLERANCE
    assert row_sum_tolerance(np.float16) == np.finfo(np.float16).eps
    d = check_classification_input([2], row, labels=[0, 1, 2])
    assert d.tolerance == row_sum_tolerance(np.float16)
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((2_000, 3)) * 2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    P16 = (e / e.sum(axis=1, keepdims=True)).astype(np.float16)
    dev = np.abs(P16.astype(np.float64).sum(axis=1) - 1)
    assert dev.max() > PROBA_TOLERANCE  # some rows would fail the float32 tolerance
    y = rng.integers(0, 3, 2_000)
    for metric in (negative_log_likelihood, brier_score, expected_calibration_error):
        assert np.isfinite(metric(y, P16, labels=[0, 1, 2]))
    # the same numbers claimed to be float32 get the float32 tolerance
    with pytest.raises(ValueError, match="rows must sum to 1"):
        check_classification_input(y, P16.astype(np.float32), labels=[0, 1, 2])
    # float16 rows that are far from summing to 1 are still rejected
    with pytest.raises(ValueError, match="rows must sum to 1"):
        check_classification_input(y, (P16 * np.float16(0.99)).astype(np.float16))


def test_binary_default_positive_class():
    # 1-D y_proba: as scikit-learn's _check_pos_label_consistency, the positive class is
    # 1 only for labels in {0, 1} or {-1, 1}; any other labels need pos_label (no more
    # silent "greater label" for strings or {1, 2})
    for y in (["no", "yes", "no"], [1, 2, 1], [0, 2, 0]):
        with pytest.raises(ValueError, match=r"takes values in \{.*\} and pos_label is not"):
            check_classification_input(y, [0.2, 0.7, 0.1])
        with pytest.raises(ValueError, match="pass pos_label="):
            expected_calibration_error(y, [0.2, 0.7, 0.1])
    d = check_classification_input(["no", "yes", "no"], [0.2, 0.7, 0.1], pos_label="yes")
    assert d.classes[d.pos_index] == "yes"
    d = check_classification_input(["no", "yes", "no"], [0.2, 0.7, 0.1], pos_label="no")
    assert d.classes[d.pos_index] == "no"
    d = check_classification_input([1, 2, 1], [0.2, 0.7, 0.1], pos_label=2)
    assert d.classes[d.pos_index] == 2
    for y in ([1, 1], [0, 0], [0, 1], [-1, 1], [-1, -1]):
        d = check_classification_input(y, [0.2, 0.7])
        assert d.classes[d.pos_index] == 1
    # 2-D y_proba: the greater of the two classes (the second column) is the positive
    P2 = [[0.8, 0.2], [0.3, 0.7], [0.9, 0.1]]
    d = check_classification_input(["no", "yes", "no"], P2)
    assert d.classes[d.pos_index] == "yes"


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
        (["a", "a"], [0.1, 0.2], {}, r"takes values in \{'a'\} and pos_label"),
        ([0, 1], [0.1, 0.2], {"labels": [0, 0]}, "duplicates"),
        ([0.0, np.nan], [0.1, 0.2], {}, "y_true contains NaN"),
        ([0, 1], ["a", "b"], {}, "y_proba must contain real numbers"),
        ([0, 1], np.array(["0.2", "0.7"]), {}, "y_proba must contain real numbers"),
        ([0, 1], np.array(["0.2", 0.7], dtype=object), {}, "y_proba must contain real numbers"),
        ([0, 1], np.array([0.2 + 0j, 0.7]), {}, "y_proba must contain real numbers, got complex"),
        ([0, 1], [0.1, 0.2], {"sample_weight": ["1", "2"]}, "sample_weight must contain real"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1 + 1j, 2]}, "sample_weight must contain real"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, -1]}, r"non-negative; sample_weight\[1\]"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, np.nan]}, "sample_weight contains NaN"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 2, 3]}, "sample_weight has 3 elements"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [0, 0]}, "sums to zero"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1e308, 1e308]}, "too large"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 5e-324]}, r"below 1e-150.*sample_weight\[1\]"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 1e-200]}, r"below 1e-150.*sample_weight\[1\]"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 1e151]}, "too large"),
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


def _float32_softmax(logits):
    """Softmax computed in float32, as a GPU framework computes it."""
    z = logits.astype(np.float32)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True, dtype=np.float32)


def test_row_sum_tolerance_is_float32_precision_for_any_dtype():
    assert PROBA_TOLERANCE == row_sum_tolerance(np.float64) == row_sum_tolerance(np.float32)
    assert PROBA_TOLERANCE == pytest.approx(np.sqrt(np.finfo(np.float32).eps))
    rng = np.random.default_rng(0)
    for k in (2, 10, 1000, 20_000):
        P32 = _float32_softmax(rng.standard_normal((40, k)) * 4)
        y = rng.integers(0, k, 40)
        # float32 probabilities pass, as float32 and stored as float64 (the row sums of
        # the float64 copy miss 1 by float32 rounding: ~1e-7, far above float64's 1.5e-8)
        ref = expected_calibration_error(y, P32, labels=np.arange(k))
        P64 = P32.astype(np.float64)
        assert np.abs(P64.sum(axis=1) - 1).max() > 1.5e-8 or k == 2
        assert expected_calibration_error(y, P64, labels=np.arange(k)) == pytest.approx(
            ref, abs=1e-6
        )
        assert static_calibration_error(y, P64, labels=np.arange(k)) >= 0
        assert negative_log_likelihood(y, P64, labels=np.arange(k)) > 0
        assert brier_score(y, P64, labels=np.arange(k)) > 0
    # logits, unnormalised scores and rows summing to 0.999 or 0.99 are rejected
    logits = rng.standard_normal((20, 4))
    y4 = rng.integers(0, 4, 20)
    P = rng.dirichlet(np.ones(4), size=20)
    for bad in (logits, np.abs(logits), P * 0.999, P * 0.99, P * 1.001):
        for dtype in (np.float64, np.float32):
            with pytest.raises(ValueError, match="sum to 1|probabilities in"):
                expected_calibration_error(y4, bad.astype(dtype), labels=range(4))
            with pytest.raises(ValueError, match="sum to 1|probabilities in"):
                negative_log_likelihood(y4, bad.astype(dtype), labels=range(4))


def test_assume_finite_keeps_range_and_row_sum_checks():
    # as for scikit-learn's log_loss, assume_finite skips a finiteness scan only: the
    # range and row-sum checks of the probabilities are always made
    from skcalib.metrics import brier_score, compute_bin_stats

    y = [0, 1, 2]
    P = P3.copy()
    P[0, 0] = 0.25  # row sum 1.05
    out_of_range = np.array([[2.0, -1.0], [0.5, 0.5]])
    with config_context(assume_finite=True):
        for func in (expected_calibration_error, brier_score, negative_log_likelihood):
            with pytest.raises(ValueError, match="row 0 sums to 1.05"):
                func(y, P)
            with pytest.raises(ValueError, match=r"y_proba\[0, 0\] = 2.0"):
                func([0, 1], out_of_range)
            with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
                func([0, 1], [0.5, 1.5])
        for mc in ("top_label", "classwise"):
            with pytest.raises(ValueError, match="row 0 sums to 1.05"):
                compute_bin_stats(y, P, multiclass=mc)
            with pytest.raises(ValueError, match=r"y_proba\[0, 0\] = 2.0"):
                compute_bin_stats([0, 1], out_of_range, multiclass=mc)
        with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
            compute_bin_stats([0, 1], [0.5, 1.5], strategy="quantile")
        with pytest.raises(ValueError, match="different numbers"):
            expected_calibration_error([0, 1], P)
        P[0, 0] = 0.2
        assert expected_calibration_error(y, P) >= 0


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
    with pytest.raises(ValueError, match="sample_weight must contain real numbers"):
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


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda P: P.__setitem__((50_001, 2), -1e-3), r"y_proba\[50001, 2\] = -0\.001"),
        (lambda P: P.__setitem__((50_001, 2), np.inf), "infinity \\(first at index 50001, 2\\)"),
        (lambda P: P.__setitem__((50_001, slice(None)), P[50_001] * 1.01), "row 50001 sums to"),
        (lambda P: P.__setitem__((50_001, slice(None)), P[50_001] * 0.99), "row 50001 sums to"),
        (lambda P: P.__setitem__((9, 0), np.nan), "NaN \\(first at index 9, 0\\)"),
    ],
)
def test_top_label_check_reports_first_bad_entry(order, dtype, corrupt, message):
    # the top-label pass checks each chunk of rows as it reads it (checked_rows): the
    # error names the same entry as the standalone check, in any memory layout, and two
    # bad rows report the first one
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(6), size=60_000).astype(dtype)
    corrupt(P)
    P[59_990] *= 1.5  # a later bad row must not be the one reported
    P = np.asarray(P, order=order)
    before = P.copy()
    y = rng.integers(0, 6, 60_000)
    with pytest.raises(ValueError, match=message):
        expected_calibration_error(y, P, multiclass="top_label")
    with pytest.raises(ValueError, match=message):
        check_classification_input(y, P)
    np.testing.assert_array_equal(P, before)  # never written to


def test_top_label_check_accepts_float32_precision_rows():
    # rows off by float32 rounding pass the chunked check of the top-label pass
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((3_000, 1_000)).astype(np.float32) * 3
    P32 = np.exp(logits - logits.max(axis=1, keepdims=True))
    P32 /= P32.sum(axis=1, keepdims=True)
    y = rng.integers(0, 1_000, 3_000)
    got = expected_calibration_error(
        y, P32.astype(np.float64), multiclass="top_label", labels=np.arange(1_000)
    )
    conf = P32.max(axis=1).astype(np.float64)
    assert 0 < got < 1
    np.testing.assert_allclose(
        got,
        expected_calibration_error(
            (P32.argmax(axis=1) == y).astype(int), conf, pos_label=1, labels=[0, 1]
        ),
        rtol=1e-12,
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_negative_zero_entries_are_zero(dtype):
    # -0.0 is a valid probability (>= 0): the top-label pass, whose predicted class is
    # the argmax of the bit patterns (where -0.0 sorts above every positive value),
    # gives the numbers of the same input with +0.0, and the binary check accepts it
    rng = np.random.default_rng(4)
    P = rng.dirichlet(np.ones(5), size=5_000)
    P[P < 0.1] = 0.0
    P = (P / P.sum(axis=1, keepdims=True)).astype(dtype)
    y = rng.integers(0, 5, 5_000)
    negative_zero = np.where(P == 0, dtype(-0.0), P)
    assert np.signbit(negative_zero).sum() > 1_000
    assert expected_calibration_error(y, negative_zero) == expected_calibration_error(y, P)
    p = P[:, 0] / P[:, :2].sum(axis=1).clip(1e-12)
    y01 = (y == 0).astype(int)
    assert expected_calibration_error(y01, np.where(p == 0, dtype(-0.0), p)) == (
        expected_calibration_error(y01, p)
    )


def test_integer_binary_labels_checked_in_the_binning_pass():
    # integer labels of a 1-D y_proba are read once, in the chunks of the binning pass:
    # the same numbers as labels checked first (other dtypes, {-1, 1}, labels=), and
    # the same errors, the labels' before those of the probabilities and weights, also
    # when the bad label is in the last chunk
    rng = np.random.default_rng(5)
    n = 100_000  # four chunks
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int64)
    want = expected_calibration_error(y, p, labels=[0, 1])
    for yy, kwargs in [
        (y, {}),
        (y.astype(np.uint8), {}),
        (y.astype(np.int32), {"pos_label": 1}),
        (y.astype(bool), {}),
        (2 * y - 1, {}),
        (np.zeros(n, dtype=np.int64) + y * 0, {"labels": None}),
    ]:
        got = expected_calibration_error(yy, p, **kwargs)
        if yy.any():
            assert got == want
        else:
            assert got == expected_calibration_error(yy.astype(float), p)
    assert expected_calibration_error(y, p, multiclass="classwise") == (
        expected_calibration_error(y, p, multiclass="classwise", labels=[0, 1])
    )
    three = y.copy()
    three[-1] = 3
    bad_p = p.copy()
    bad_p[10] = 1.5
    bad_w = np.ones(n)
    bad_w[7] = -1.0
    cases = [
        (three, p, None, "has 3 classes"),
        (three, bad_p, None, "has 3 classes"),
        (three, p, bad_w, "has 3 classes"),
        (y - 1, p, None, r"values in \{-1, 0\}"),
        (y, bad_p, None, r"y_proba\[10\] = 1.5"),
        (y, p, bad_w, r"sample_weight\[7\] = "),
    ]
    for yy, pp, w, message in cases:
        with pytest.raises(ValueError, match=message):
            expected_calibration_error(yy, pp, sample_weight=w)
        with pytest.raises(ValueError, match=message):
            check_classification_input(yy, pp, sample_weight=w)


@pytest.mark.parametrize("metric", ["ece", "sce", "brier", "nll"])
def test_bad_row_caught_in_every_chunk(metric):
    # the hot metrics check each chunk as they read it: a bad row at the start, the end
    # or a chunk boundary of a multi-chunk input is named, and good input passes
    from skcalib.metrics import (
        brier_score,
        negative_log_likelihood,
        static_calibration_error,
    )

    func = {
        "ece": lambda y, P: expected_calibration_error(y, P, multiclass="top_label"),
        "sce": static_calibration_error,
        "brier": brier_score,
        "nll": negative_log_likelihood,
    }[metric]
    rng = np.random.default_rng(3)
    n = 40_000  # 16384 rows of 4 float64 per chunk: three chunks
    y = rng.integers(0, 4, n)
    y[:4] = np.arange(4)
    for bad in (0, 16383, 16384, 32768, n - 1):
        P = rng.dirichlet(np.ones(4), size=n)
        P[bad] *= 1.01
        with pytest.raises(ValueError, match=f"row {bad} sums to"):
            func(y, P)
    P = rng.dirichlet(np.ones(4), size=n)
    assert np.isfinite(func(y, P))
