"""Tests of skcalib.report.calibration_report: every number equals the metric called directly."""

import json

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, log_loss

import skcalib.metrics as M
from skcalib.report import CalibrationReport, calibration_report


def _random_multiclass(seed, n=400, k=4):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * rng.uniform(0.5, 3)
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    # labels drawn from a tempered version of P: miscalibrated on purpose
    Q = P**0.7
    Q /= Q.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=q) for q in Q])
    return y, P


def _random_binary(seed, n=300):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, size=n)
    y = (rng.uniform(size=n) < p**1.3).astype(int)
    return y, p


def _expected(y, P, n_bins=15, **kw):
    """The report's row computed by calling the public metrics one by one."""
    out = {
        "expected_calibration_error": M.expected_calibration_error(y, P, n_bins=n_bins, **kw),
        "max_calibration_error": M.max_calibration_error(y, P, n_bins=n_bins, **kw),
        "root_mean_squared_calibration_error": M.root_mean_squared_calibration_error(
            y, P, n_bins=n_bins, **kw
        ),
    }
    if np.ndim(P) == 2 and np.shape(P)[1] > 2:
        out["static_calibration_error"] = M.static_calibration_error(y, P, n_bins=n_bins, **kw)
    out["brier_score"] = M.brier_score(y, P, **kw)
    out["negative_log_likelihood"] = M.negative_log_likelihood(y, P, **kw)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_bins", [5, 15])
def test_values_equal_direct_metric_calls_multiclass(seed, n_bins):
    y, P = _random_multiclass(seed)
    report = calibration_report(y, {"a": P, "b": P[:, ::-1][:, [3, 0, 1, 2]]}, n_bins=n_bins)
    assert report.models == ["a", "b"]
    for name, proba in (("a", P), ("b", P[:, ::-1][:, [3, 0, 1, 2]])):
        row = report.values[name]
        for key, value in _expected(y, proba, n_bins=n_bins).items():
            assert row[key] == value, key
        assert row["accuracy"] == accuracy_score(y, proba.argmax(axis=1))
        assert report.n_samples[name] == len(y)
    keys = [c.key for c in report.columns]
    assert keys[:5] == [
        "accuracy",
        "expected_calibration_error",
        "max_calibration_error",
        "root_mean_squared_calibration_error",
        "static_calibration_error",
    ]


@pytest.mark.parametrize("seed", [0, 1])
def test_values_equal_direct_metric_calls_binary(seed):
    y, p = _random_binary(seed)
    report = calibration_report(y, p)
    row = report.values["model"]
    for key, value in _expected(y, p).items():
        assert row[key] == value, key
    assert row["accuracy"] == accuracy_score(y, (p > 0.5).astype(int))
    # binary: no class-wise column
    assert "static_calibration_error" not in [c.key for c in report.columns]
    assert report.positive_class["model"] == 1
    # 2-D input with the same probabilities gives the same numbers
    report2 = calibration_report(y, np.column_stack([1 - p, p]))
    for key in row:
        assert report2.values["model"][key] == pytest.approx(row[key], rel=1e-12, abs=1e-15)


def test_sample_weight_is_forwarded_and_equals_repetition():
    y, P = _random_multiclass(3, n=120, k=3)
    w = np.random.default_rng(0).integers(0, 4, size=len(y))
    weighted = calibration_report(y, P, sample_weight=w).values["model"]
    repeated = calibration_report(np.repeat(y, w), np.repeat(P, w, axis=0)).values["model"]
    for key, value in weighted.items():
        assert value == pytest.approx(repeated[key], rel=1e-10, abs=1e-12), key
    assert weighted["accuracy"] == pytest.approx(
        accuracy_score(y, P.argmax(axis=1), sample_weight=w)
    )
    assert weighted["expected_calibration_error"] == M.expected_calibration_error(
        y, P, sample_weight=w
    )


def test_pos_label_of_a_1d_vector():
    y, p = _random_binary(4)
    report = calibration_report(y, p, pos_label=0)
    row = report.values["model"]
    assert report.positive_class["model"] == 0
    assert row["expected_calibration_error"] == M.expected_calibration_error(y, p, pos_label=0)
    assert row["accuracy"] == accuracy_score(y == 0, p > 0.5)
    if "negative_log_likelihood" in row:
        # p is the probability of class 0
        assert row["negative_log_likelihood"] == pytest.approx(
            log_loss(y, np.column_stack([p, 1 - p])), rel=1e-12
        )


def test_string_labels_and_explicit_label_order():
    y, P = _random_multiclass(5, n=200, k=3)
    names = np.array(["cat", "dog", "fish"])
    report = calibration_report(names[y], P[:, [2, 0, 1]], labels=["fish", "cat", "dog"])
    row = report.values["model"]
    ref = calibration_report(y, P).values["model"]
    for key, value in ref.items():
        assert row[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    assert list(report.classes["model"]) == ["fish", "cat", "dog"]


def test_models_on_different_samples():
    y1, P1 = _random_multiclass(6, n=100, k=3)
    y2, P2 = _random_multiclass(7, n=150, k=3)
    report = calibration_report({"m1": y1, "m2": y2}, {"m1": P1, "m2": P2}, labels=[0, 1, 2])
    assert report.n_samples == {"m1": 100, "m2": 150}
    assert report.values["m2"]["expected_calibration_error"] == (
        M.expected_calibration_error(y2, P2)
    )
    with pytest.raises(ValueError, match="y_true is a dict without an entry for model 'm2'"):
        calibration_report({"m1": y1}, {"m1": P1, "m2": P2})


def test_curves_are_reliability_curve():
    y, P = _random_multiclass(9, n=300, k=3)
    report = calibration_report(y, P, n_bins=7)
    curve = report.curves["model"]
    ref = M.reliability_curve(y, P, n_bins=7)
    for attr in ("prob_true", "prob_pred", "bin_count", "bin_edges"):
        np.testing.assert_array_equal(getattr(curve, attr), getattr(ref, attr))


def test_to_string_is_an_aligned_table():
    y, P = _random_multiclass(10, n=100, k=3)
    report = calibration_report(y, {"short": P, "a much longer name": P}, title="toy")
    text = report.to_string(digits=3)
    lines = text.splitlines()
    assert lines[0].startswith("toy: 100 samples, 3 classes [0, 1, 2]; top-label calibration")
    header, rule, row1, row2 = lines[1:5]
    assert header.split()[:4] == ["model", "n", "accuracy", "ECE"]
    assert set(rule.replace(" ", "")) == {"-"}
    # every column ends at the same position in the header and the rows
    ends = [
        i + 1
        for i, ch in enumerate(rule)
        if ch == "-" and (i + 1 == len(rule) or rule[i + 1] == " ")
    ]
    for line in (header, row1, row2):
        for end in ends[1:]:
            assert line[end - 1] != " ", (line, end)
    ece = report.values["short"]["expected_calibration_error"]
    assert f"{ece:.3f}" in row1 and row2.startswith("a much longer name")
    assert "Lower is better, except accuracy." in text
    assert "15 equal-width bins" in text and "15 equal-mass bins" in text
    assert str(report) == report.to_string()
    assert "CalibrationReport" in repr(report) and "'toy'" in repr(report)


def test_to_dict_is_json_with_none_for_empty_bins():
    y, p = _random_binary(11, n=40)
    report = calibration_report(y, {"m": p}, n_bins=50)
    d = report.to_dict()
    text = json.dumps(d, allow_nan=False)  # no NaN: empty bins became null
    back = json.loads(text)
    curve = back["reliability_curves"]["m"]
    assert len(curve["prob_true"]) == 50 and None in curve["prob_true"]
    assert (
        back["rows"][0]["expected_calibration_error"]
        == (report.values["m"]["expected_calibration_error"])
    )
    assert back["positive_class"] == {"m": 1}


def test_rows_and_frame():
    y, p = _random_binary(12, n=60)
    report = calibration_report(y, {"m": p, "n": p})
    rows = report.rows()
    assert [r["model"] for r in rows] == ["m", "n"] and rows[0]["n_samples"] == 60
    pd = pytest.importorskip("pandas")
    frame = report.to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame.index) == ["m", "n"]
    assert frame.loc["m", "accuracy"] == report.values["m"]["accuracy"]


def test_inputs_not_modified():
    y, P = _random_multiclass(13, n=50, k=3)
    P.setflags(write=False)
    y_copy = y.copy()
    calibration_report(y, P)
    np.testing.assert_array_equal(y, y_copy)


def test_errors():
    y, P = _random_multiclass(14, n=30, k=3)
    with pytest.raises(ValueError, match="empty dict"):
        calibration_report(y, {})
    bad = P.copy()
    bad[3, 0] += 0.2
    with pytest.raises(ValueError, match=r"^model 'bad': y_proba rows must sum to 1"):
        calibration_report(y, {"good": P, "bad": bad})
    with pytest.raises(ValueError, match="y_proba rows must sum to 1"):
        calibration_report(y, bad)
    with pytest.raises(ValueError, match="n_bins"):
        calibration_report(y, P, n_bins=0)
    with pytest.raises(ValueError, match="equal as strings"):
        calibration_report(y, {1: P, "1": P})


def test_plot_draws_the_reliability_curves():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    y, P = _random_multiclass(15, n=200, k=3)
    report = calibration_report(y, {"a": P}, n_bins=10)
    ax = Figure().subplots()
    assert report.plot(ax=ax) is ax
    curve = M.reliability_curve(y, P, n_bins=10)
    keep = curve.bin_count > 0
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("a (ECE")]
    np.testing.assert_array_equal(line.get_xdata(), curve.prob_pred[keep])
    np.testing.assert_array_equal(line.get_ydata(), curve.prob_true[keep])
    assert ax.get_ylabel() == "Accuracy"


def test_report_class_is_public():
    y, p = _random_binary(16, n=20)
    assert isinstance(calibration_report(y, p), CalibrationReport)
