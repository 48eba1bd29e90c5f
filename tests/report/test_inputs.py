"""Inputs of ``skcalib report``: pandas' index column, non-probability columns, separators,
and labels encoded once (the fast pandas reader and the reference ``csv`` reader agree)."""

import sys

import numpy as np
import pytest

import skcalib.metrics as M
from skcalib.streaming import CalibrationAccumulator

from .test_cli import assert_one_line_error, read_csv_rows, run

pd = pytest.importorskip("pandas")

NAMES = np.array(["ant", "bee", "cat"])


@pytest.fixture(scope="module")
def string_predictions():
    rng = np.random.default_rng(3)
    n = 300
    L = rng.standard_normal((n, 3)) * 2
    P = np.exp(L - L.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = (P.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(0, 2)
    return y, P


def _frame(y, P):
    df = pd.DataFrame(P, columns=list(NAMES))
    df.insert(0, "y", NAMES[y])
    return df


def _expected(y, P, n_bins=15):
    return {
        "expected_calibration_error": M.expected_calibration_error(y, P, n_bins=n_bins),
        "max_calibration_error": M.max_calibration_error(y, P, n_bins=n_bins),
        "static_calibration_error": M.static_calibration_error(y, P, n_bins=n_bins),
        # the equal-mass edges of the report are taken on the accumulator's fine histogram
        "root_mean_squared_calibration_error": CalibrationAccumulator(
            n_bins=n_bins, labels=[0, 1, 2]
        )
        .update(y, P)
        .compute()["root_mean_squared_calibration_error"],
        "brier_score": M.brier_score(y, P),
        "negative_log_likelihood": M.negative_log_likelihood(y, P),
        "accuracy": float(np.mean(P.argmax(axis=1) == y)),
    }


def _assert_row(row, y, P):
    for key, value in _expected(y, P).items():
        assert float(row[key]) == pytest.approx(value, rel=1e-12, abs=1e-15), key


@pytest.fixture
def reader():
    """The one reader (pyarrow.dataset) of CSV and Parquet tables."""
    return "pyarrow"


# ------------------------------------------------------------------------ index column
@pytest.mark.parametrize("proba_cols", [None, "ant,bee,cat"])
def test_csv_with_pandas_default_index_is_accepted(
    tmp_path, string_predictions, reader, proba_cols
):
    y, P = string_predictions
    _frame(y, P).to_csv(tmp_path / "p.csv")  # index=True: a first column without a name
    with open(tmp_path / "p.csv") as f:
        assert f.readline().startswith(",y,ant")
    argv = ["report", str(tmp_path / "p.csv"), "--out", str(tmp_path)]
    if proba_cols:
        argv += ["--proba-cols", proba_cols]
    rc, out, err = run(argv)
    assert rc == 0, err
    assert "300 samples, 3 classes [ant, bee, cat]" in out
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    _assert_row(row, y, P)


def test_unnamed_column_other_than_the_first_is_still_an_error(tmp_path, reader):
    path = tmp_path / "u.csv"
    path.write_text(",y,,1\n0,0,0.5,0.5\n")
    rc, out, err = run(["report", str(path)])
    assert_one_line_error(rc, out, err, "column 3 of the header has no name")


# ------------------------------------------------------------------------ id column
def test_id_column_is_named_with_a_proba_cols_suggestion(tmp_path, string_predictions, reader):
    y, P = string_predictions
    df = _frame(y, P)
    df.insert(0, "id", np.arange(len(df)))
    df.to_csv(tmp_path / "id.csv", index=False)
    rc, out, err = run(["report", str(tmp_path / "id.csv")])
    # row 2 (id 2.0) is line 4 of the file; rows 0 and 1 have ids 0 and 1, inside [0, 1]
    assert_one_line_error(
        rc,
        out,
        err,
        "probability column 'id' has 2.0 at line 4, outside [0, 1]",
        "--proba-cols (e.g. --proba-cols ant,bee,cat)",
    )
    assert "y_proba[" not in err
    rc, out, err = run(
        ["report", str(tmp_path / "id.csv"), "--proba-cols", "ant,bee,cat", "--out", str(tmp_path)]
    )
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    _assert_row(row, y, P)


def test_out_of_range_probability_names_its_column(tmp_path, reader):
    path = tmp_path / "r.csv"
    path.write_text("y,a,b\na,0.5,0.5\nb,0.25,0.75\nb,-0.5,1.5\n")
    rc, out, err = run(["report", str(path), "--proba-cols", "a,b"])
    # with --proba-cols given there is nothing to suggest
    assert_one_line_error(rc, out, err, "probability column 'a' has -0.5 at line 4")
    assert "--proba-cols" not in err


# ------------------------------------------------------------------------ separators
@pytest.mark.parametrize("sep", [";", "\t"])
def test_separator_is_detected(tmp_path, string_predictions, reader, sep):
    y, P = string_predictions
    _frame(y, P).to_csv(tmp_path / "s.csv", sep=sep, index=False)
    rc, out, err = run(["report", str(tmp_path / "s.csv"), "--out", str(tmp_path)])
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    _assert_row(row, y, P)


@pytest.mark.parametrize("sep_arg, sep", [(";", ";"), ("\\t", "\t"), ("tab", "\t"), ("|", "|")])
def test_sep_option(tmp_path, string_predictions, reader, sep_arg, sep):
    y, P = string_predictions
    _frame(y, P).to_csv(tmp_path / "s.csv", sep=sep, index=False)
    rc, out, err = run(
        ["report", str(tmp_path / "s.csv"), "--sep", sep_arg, "--out", str(tmp_path)]
    )
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    _assert_row(row, y, P)


def test_pipe_separator_is_not_guessed(tmp_path):
    path = tmp_path / "pipe.csv"
    path.write_text("y|0|1\n0|0.8|0.2\n")
    rc, out, err = run(["report", str(path)])
    # read with ',' the header is one column named 'y|0|1'
    assert_one_line_error(rc, out, err, "no label column 'y'")


def test_semicolon_file_with_commas_in_quoted_cells(tmp_path, reader):
    path = tmp_path / "q.csv"
    path.write_text('y;0;1;note\n0;0.8;0.2;"a, b, c"\n1;0.3;0.7;"d, e"\n')
    rc, out, err = run(["report", str(path), "--proba-cols", "0,1"])
    assert rc == 0, err
    assert "2 samples, 2 classes [0, 1]" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--sep", "ab"], "--sep must be one character"),
        (["--sep", "1"], "--sep must be one character"),
    ],
)
def test_bad_sep(tmp_path, argv, fragment):
    path = tmp_path / "c.csv"
    path.write_text("y,0,1\n0,0.8,0.2\n")
    rc, out, err = run(["report", str(path), *argv])
    assert_one_line_error(rc, out, err, fragment)


def test_sep_rejected_for_npz(tmp_path):
    np.savez(tmp_path / "p.npz", y_true=[0, 1], y_proba=[0.2, 0.7])
    rc, out, err = run(["report", str(tmp_path / "p.npz"), "--sep", ";"])
    assert_one_line_error(rc, out, err, "--sep applies to .csv files")


# ------------------------------------------------------------------------ encoding once
def test_labels_are_encoded_once(tmp_path, string_predictions, monkeypatch):
    """No call sorts the n string labels: they are factorised once, and the metrics get
    integer codes (before, np.unique ran on the string column 16 times)."""
    y, P = string_predictions
    _frame(y, P).to_csv(tmp_path / "p.csv", index=False)
    calls = []
    real_unique = np.unique

    def spy(ar, *args, **kwargs):
        a = np.asarray(ar)
        if a.size >= len(y):
            calls.append(a.dtype)
        return real_unique(ar, *args, **kwargs)

    monkeypatch.setattr(np, "unique", spy)
    rc, out, err = run(["report", str(tmp_path / "p.csv"), "--out", str(tmp_path)])
    assert rc == 0, err
    assert [d for d in calls if d.kind in "OUS"] == []
    monkeypatch.undo()
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    _assert_row(row, y, P)


def test_binary_string_labels_keep_the_positive_class(tmp_path, reader):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=100)
    y = np.where(rng.uniform(size=100) < p, "spam", "ham")
    pd.DataFrame({"y": y, "spam": p}).to_csv(tmp_path / "b.csv", index=False)
    rc, out, err = run(["report", str(tmp_path / "b.csv"), "--out", str(tmp_path)])
    assert rc == 0, err
    assert "binary: calibration of P(class spam)" in out
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    ref = M.expected_calibration_error(y, p, pos_label="spam")
    assert float(row["expected_calibration_error"]) == ref


def test_single_column_with_one_label_present(tmp_path, reader):
    path = tmp_path / "one.csv"
    path.write_text("y,1\n0,0.2\n0,0.4\n0,0.1\n")
    rc, out, err = run(["report", str(path), "--out", str(tmp_path)])
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    ref = M.expected_calibration_error([0, 0, 0], [0.2, 0.4, 0.1], pos_label=1, labels=[0, 1])
    assert float(row["expected_calibration_error"]) == ref


def test_labels_with_spaces_and_leading_zeros_merge(tmp_path, reader):
    path = tmp_path / "s.csv"
    path.write_text("y,0,1\n 1,0.2,0.8\n01,0.4,0.6\n0 ,0.9,0.1\n+0,0.7,0.3\n")
    rc, out, err = run(["report", str(path), "--out", str(tmp_path)])
    assert rc == 0, err
    assert "4 samples, 2 classes [0, 1]" in out
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    y, p = [1, 1, 0, 0], [0.8, 0.6, 0.1, 0.3]
    assert float(row["expected_calibration_error"]) == M.expected_calibration_error(y, p)


# ------------------------------------------------------------------------ fast reader
def test_fast_reader_error_names_the_file_line_after_blank_lines(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("y,0,1\n\n0,0.5,0.5\n\n\n1,0.5,0.6\n")
    rc, out, err = run(["report", str(path)])
    assert_one_line_error(rc, out, err, "row 1 sums to 1.1", "(row 1 is line 6 of the file)")


def test_fast_reader_nan_cell_names_the_file_line(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("y,0,1\n0,0.5,0.5\n\n1,nan,0.5\n")
    rc, out, err = run(["report", str(path)])
    assert_one_line_error(rc, out, err, "NaN", "line 4 of the file")


def test_fast_and_reference_readers_agree(tmp_path, string_predictions, monkeypatch):
    y, P = string_predictions
    df = _frame(y, P)
    df["model"] = np.where(np.arange(len(df)) % 3 == 0, "A", "B")
    df.to_csv(tmp_path / "m.csv", sep=";")
    argv = ["report", str(tmp_path / "m.csv"), "--model-col", "model"]
    fast = run(argv)
    monkeypatch.setitem(sys.modules, "pandas", None)
    reference = run(argv)
    assert fast[0] == 0 and fast == reference
    assert "A      100" in fast[1] and "B      200" in fast[1]
