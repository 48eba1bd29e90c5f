"""Tests of the ``skcalib report`` command (in-process through ``main`` and as a subprocess)."""

import csv
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

import skcalib.metrics as M
from skcalib.__main__ import main
from skcalib.report._demo import demo_predictions
from skcalib.streaming import CalibrationAccumulator

METRIC_FUNCS = {
    "expected_calibration_error": M.expected_calibration_error,
    "max_calibration_error": M.max_calibration_error,
    "root_mean_squared_calibration_error": M.root_mean_squared_calibration_error,
    "static_calibration_error": M.static_calibration_error,
    "brier_score": getattr(M, "brier_score", None),
    "negative_log_likelihood": getattr(M, "negative_log_likelihood", None),
}


def run(argv):
    """Run ``main(argv)`` in-process; return (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse errors, --help
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def read_csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


def direct(y, P, keys, n_bins=15, streamed=True, **kw):
    """Metric values computed by calling skcalib.metrics directly."""
    out = {}
    for key in keys:
        if key == "accuracy":
            continue
        func = METRIC_FUNCS[key]
        if key == "root_mean_squared_calibration_error" and streamed:
            # the report streams its input: equal-mass edges on the accumulator's histogram
            acc = CalibrationAccumulator(
                n_bins=n_bins, labels=kw.get("labels", np.unique(y)), pos_label=kw.get("pos_label")
            )
            out[key] = acc.update(y, P).compute()[key]
        elif key in ("brier_score", "negative_log_likelihood"):
            out[key] = func(y, P, **kw)
        else:
            out[key] = func(y, P, n_bins=n_bins, **kw)
    return out


def assert_one_line_error(rc, out, err, *fragments):
    assert rc == 2
    assert out == ""
    assert err.startswith("skcalib: error: "), err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.fixture(scope="module")
def fitted_multiclass():
    X, y = make_classification(
        n_samples=400, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    clf = LogisticRegression(max_iter=500).fit(X[:200], y[:200])
    return y[200:], clf.predict_proba(X[200:])


# ---------------------------------------------------------------------------- --demo
@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo_out")
    rc, out, err = run(["report", "--demo", "--out", str(out_dir)])
    return rc, out, err, out_dir


def test_demo_prints_the_table(demo_run):
    rc, out, err, _ = demo_run
    assert rc == 0, err
    for text in (
        "breast_cancer: 143 samples, 2 classes",
        "digits: 450 samples, 10 classes",
        "LogisticRegression",
        "GaussianNB",
        "RandomForestClassifier",
        "accuracy",
        "ECE",
        "MCE",
        "RMSCE",
        "SCE",
    ):
        assert text in out
    assert "Brier" in out
    assert "NLL" in out


def test_demo_values_equal_direct_metric_calls(demo_run):
    rc, out, _, out_dir = demo_run
    assert rc == 0
    rows = read_csv_rows(out_dir / "calibration_report.csv")
    sections = demo_predictions()
    assert [(r["report"], r["model"]) for r in rows] == [
        (title, model) for title, _, proba in sections for model in proba
    ]
    by_key = {(r["report"], r["model"]): r for r in rows}
    for title, y, proba in sections:
        for model, P in proba.items():
            row = by_key[title, model]
            keys = [k for k in row if k in METRIC_FUNCS and row[k] != ""]
            assert len(keys) >= 3 + (P.shape[1] > 2)
            for key, value in direct(y, P, keys, streamed=False).items():
                assert float(row[key]) == value, (title, model, key)
                assert f"{value:.4f}" in out
            assert float(row["accuracy"]) == np.mean(P.argmax(axis=1) == y)
            assert int(row["n_samples"]) == len(y)


def test_demo_writes_json_and_png(demo_run):
    rc, out, err, out_dir = demo_run
    data = json.loads((out_dir / "calibration_report.json").read_text())
    assert [r["title"] for r in data["reports"]] == ["breast_cancer", "digits"]
    curve = data["reports"][0]["reliability_curves"]["GaussianNB"]
    assert len(curve["bin_edges"]) == 16 and len(curve["prob_true"]) == 15
    assert f"wrote {out_dir / 'calibration_report.csv'}" in out
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in err
        return
    for name in ("reliability_breast_cancer.png", "reliability_digits.png"):
        png = (out_dir / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
        assert f"wrote {out_dir / name}" in out


def test_demo_as_a_module_subprocess(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "skcalib", "report", "--demo"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "digits: 450 samples" in proc.stdout and "GaussianNB" in proc.stdout
    assert "Warning" not in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written without --out


def test_console_script_entry_point():
    from importlib.metadata import PackageNotFoundError, entry_points

    try:
        eps = entry_points(group="console_scripts", name="skcalib")
    except PackageNotFoundError:  # pragma: no cover
        pytest.skip("skcalib is not installed")
    if not eps:
        pytest.skip("skcalib is not installed with its entry points")
    (ep,) = eps
    assert ep.value == "skcalib.__main__:main"
    assert ep.load() is main


def test_imports_do_not_import_matplotlib():
    code = (
        "import sys, skcalib, skcalib.report, skcalib.__main__; "
        "from skcalib.report import _cli, _io; "
        "sys.exit('matplotlib' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0


# ---------------------------------------------------------------------------- FILE input
def test_csv_round_trip_multiclass(tmp_path, fitted_multiclass):
    y, P = fitted_multiclass
    src = write_csv(
        tmp_path / "preds.csv",
        ["y", "0", "1", "2"],
        [[int(t), *map(repr, p)] for t, p in zip(y, P.tolist(), strict=True)],
    )
    out_dir = tmp_path / "out"
    rc, out, err = run(["report", src, "--out", str(out_dir), "--n-bins", "10"])
    assert rc == 0, err
    (row,) = read_csv_rows(out_dir / "calibration_report.csv")
    assert row["report"] == "preds" and row["model"] == "model"
    keys = [k for k in row if k in METRIC_FUNCS]
    assert "static_calibration_error" in keys
    for key, value in direct(y, P, keys, n_bins=10).items():
        assert float(row[key]) == pytest.approx(value, rel=1e-12, abs=1e-15), key
        assert f"{value:.4f}" in out
    assert float(row["accuracy"]) == np.mean(P.argmax(axis=1) == y)
    assert "10 equal-width bins" in out
    if "matplotlib" not in err:
        assert (out_dir / "reliability_preds.png").exists()


def test_csv_written_by_pandas(tmp_path, fitted_multiclass):
    pd = pytest.importorskip("pandas")
    y, P = fitted_multiclass
    df = pd.DataFrame(P, columns=[0, 1, 2])
    df.insert(0, "target", y)
    df.to_csv(tmp_path / "p.csv", index=False)
    rc, out, err = run(
        ["report", str(tmp_path / "p.csv"), "--label-col", "target", "--out", str(tmp_path)]
    )
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    ref = direct(y, P, ["expected_calibration_error", "static_calibration_error"])
    for key, value in ref.items():
        assert float(row[key]) == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_string_labels_in_any_column_order(tmp_path, fitted_multiclass):
    y, P = fitted_multiclass
    names = np.array(["cat", "dog", "fish"])
    # columns in a different order than the sorted classes
    src = write_csv(
        tmp_path / "s.csv",
        ["fish", "label", "cat", "dog"],
        [
            [repr(p[2]), names[t], repr(p[0]), repr(p[1])]
            for t, p in zip(y, P.tolist(), strict=True)
        ],
    )
    rc, out, err = run(["report", src, "--label-col", "label", "--out", str(tmp_path)])
    assert rc == 0, err
    assert "3 classes [cat, dog, fish]" in out
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    keys = [k for k in row if k in METRIC_FUNCS]
    for key, value in direct(names[y], P, keys, labels=list(names)).items():
        assert float(row[key]) == pytest.approx(value, rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("pos", ["1", "0"])
def test_binary_single_probability_column(tmp_path, pos):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    src = write_csv(
        tmp_path / "b.csv", ["y", pos], [[t, repr(v)] for t, v in zip(y, p.tolist(), strict=True)]
    )
    rc, out, err = run(["report", src, "--out", str(tmp_path)])
    assert rc == 0, err
    assert f"binary: calibration of P(class {pos})" in out
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    assert float(row["expected_calibration_error"]) == M.expected_calibration_error(
        y, p, pos_label=int(pos)
    )
    two_col = np.column_stack([1 - p, p]) if pos == "1" else np.column_stack([p, 1 - p])
    assert float(row["accuracy"]) == np.mean(two_col.argmax(axis=1) == y)
    if "negative_log_likelihood" in row:
        from sklearn.metrics import log_loss

        assert float(row["negative_log_likelihood"]) == pytest.approx(
            log_loss(y, two_col), rel=1e-10
        )


@pytest.mark.parametrize(
    "label_fmt, col_names",
    [
        ("{}", ["0.0", "1.0", "2.0"]),  # int labels, float-looking column names
        ("{}.0", ["0", "1", "2"]),  # float labels, int column names
    ],
)
def test_numeric_labels_match_column_names_by_value(
    tmp_path, fitted_multiclass, label_fmt, col_names
):
    y, P = fitted_multiclass
    src = write_csv(
        tmp_path / "n.csv",
        ["y", *col_names],
        [[label_fmt.format(t), *map(repr, p)] for t, p in zip(y, P.tolist(), strict=True)],
    )
    rc, out, err = run(["report", src, "--out", str(tmp_path)])
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    assert float(row["expected_calibration_error"]) == M.expected_calibration_error(y, P)


def test_proba_cols_and_model_col(tmp_path, fitted_multiclass):
    y, P = fitted_multiclass
    Q = P**2 / (P**2).sum(axis=1, keepdims=True)
    pairs_a = zip(y, P.tolist(), strict=True)
    pairs_b = zip(y[:150], Q[:150].tolist(), strict=True)
    rows = [["A", i, int(t), *map(repr, p)] for i, (t, p) in enumerate(pairs_a)]
    rows += [["B", i, int(t), *map(repr, p)] for i, (t, p) in enumerate(pairs_b)]
    src = write_csv(tmp_path / "m.csv", ["model", "id", "y", "0", "1", "2"], rows)
    # the id column is not a class: without --proba-cols it is an error
    rc, out, err = run(["report", src, "--model-col", "model"])
    assert_one_line_error(rc, out, err, "probability column 'id' does not name a class")
    rc, out, err = run(
        ["report", src, "--model-col", "model", "--proba-cols", "0,1,2", "--out", str(tmp_path)]
    )
    assert rc == 0, err
    rows = read_csv_rows(tmp_path / "calibration_report.csv")
    assert [(r["model"], r["n_samples"]) for r in rows] == [("A", "200"), ("B", "150")]
    assert float(rows[0]["expected_calibration_error"]) == M.expected_calibration_error(y, P)
    assert float(rows[1]["expected_calibration_error"]) == M.expected_calibration_error(
        y[:150], Q[:150]
    )


def test_error_names_the_file_line_of_a_model_row(tmp_path):
    src = write_csv(
        tmp_path / "mm.csv",
        ["model", "y", "0", "1"],
        [["A", 0, 0.8, 0.2], ["B", 1, 0.3, 0.7], ["A", 1, 0.4, 0.6], ["B", 0, 0.9, 0.3]],
    )
    rc, out, err = run(["report", src, "--model-col", "model"])
    # model B's second row (row 3 of the file's data rows) is line 5 of the file
    assert_one_line_error(
        rc,
        out,
        err,
        "model 'B': y_proba rows must sum to 1",
        "row 3 sums to 1.2",
        "(row 3 is line 5 of the file)",
    )


def test_renormalize_rounded_probabilities(tmp_path, fitted_multiclass):
    y, P = fitted_multiclass
    R = np.round(P, 3)
    src = write_csv(
        tmp_path / "r.csv",
        ["y", "0", "1", "2"],
        [[int(t), *(f"{v:.3f}" for v in p)] for t, p in zip(y, R, strict=True)],
    )
    rc, out, err = run(["report", src])
    assert_one_line_error(rc, out, err, "rows must sum to 1", "--renormalize", "line ")
    rc, out, err = run(["report", src, "--renormalize", "--out", str(tmp_path)])
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    Rn = R / R.sum(axis=1, keepdims=True)
    assert float(row["expected_calibration_error"]) == M.expected_calibration_error(y, Rn)


def test_npz_round_trip(tmp_path, fitted_multiclass):
    y, P = fitted_multiclass
    names = np.array(["a", "b", "c"])
    np.savez(tmp_path / "p.npz", y_true=names[y], y_proba=P, labels=names)
    rc, out, err = run(["report", str(tmp_path / "p.npz"), "--out", str(tmp_path)])
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    assert float(row["expected_calibration_error"]) == M.expected_calibration_error(y, P)
    assert float(row["static_calibration_error"]) == M.static_calibration_error(y, P)


def test_parquet(tmp_path, fitted_multiclass):
    pd = pytest.importorskip("pandas")
    y, P = fitted_multiclass
    df = pd.DataFrame(P, columns=["0", "1", "2"])
    df["y"] = y
    path = tmp_path / "p.parquet"
    try:
        df.to_parquet(path)
    except ImportError:
        path.write_bytes(b"PAR1 not really")
        rc, out, err = run(["report", str(path)])
        assert_one_line_error(rc, out, err, "pyarrow")
        return
    rc, out, err = run(["report", str(path), "--out", str(tmp_path)])
    assert rc == 0, err
    (row,) = read_csv_rows(tmp_path / "calibration_report.csv")
    assert float(row["expected_calibration_error"]) == M.expected_calibration_error(y, P)


def test_parquet_without_pyarrow(tmp_path, monkeypatch):
    path = tmp_path / "p.parquet"
    path.write_bytes(b"PAR1")
    for name in ("pyarrow", "pyarrow.compute", "pyarrow.dataset"):
        monkeypatch.setitem(sys.modules, name, None)
    rc, out, err = run(["report", str(path)])
    assert_one_line_error(rc, out, err, "needs pyarrow", "skcalib[parquet]")


def test_csv_needs_no_pandas(tmp_path, monkeypatch):
    src = write_csv(tmp_path / "c.csv", ["y", "0", "1"], [[0, 0.8, 0.2], [1, 0.3, 0.7]])
    monkeypatch.setitem(sys.modules, "pandas", None)
    rc, out, err = run(["report", src])
    assert rc == 0, err
    assert "2 samples, 2 classes [0, 1]" in out


# ---------------------------------------------------------------------------- --out
def test_nothing_written_without_out(tmp_path, monkeypatch):
    src = write_csv(tmp_path / "c.csv", ["y", "0", "1"], [[0, 0.8, 0.2], [1, 0.3, 0.7]])
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(["report", src])
    assert rc == 0 and err == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv"]
    assert "wrote" not in out


def test_out_without_matplotlib(tmp_path, monkeypatch):
    src = write_csv(tmp_path / "c.csv", ["y", "0", "1"], [[0, 0.8, 0.2], [1, 0.3, 0.7]])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    rc, out, err = run(["report", src, "--out", str(tmp_path / "o")])
    assert rc == 0
    assert err.startswith("skcalib: note: matplotlib is not installed") and err.count("\n") == 1
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == [
        "calibration_report.csv",
        "calibration_report.json",
    ]


def test_out_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    src = write_csv(
        tmp_path / "my preds.csv", ["y", "0", "1"], [[0, 0.8, 0.2], [1, 0.3, 0.7], [1, 0.45, 0.55]]
    )
    rc, out, err = run(["report", src, "--out", str(tmp_path / "new" / "dir")])
    assert rc == 0, err
    png = tmp_path / "new" / "dir" / "reliability_my_preds.png"
    assert png.read_bytes().startswith(b"\x89PNG")


def test_out_is_a_file(tmp_path):
    src = write_csv(tmp_path / "c.csv", ["y", "0", "1"], [[0, 0.8, 0.2], [1, 0.3, 0.7]])
    rc, out, err = run(["report", src, "--out", src])
    assert rc == 2 and err.startswith("skcalib: error: cannot write to") and err.count("\n") == 1


# ---------------------------------------------------------------------------- bad input
BAD_CSV = {
    "empty": ("", "the file is empty"),
    "blank lines only": ("\n\n  \n", "the file is empty"),
    "header only": ("y,0,1\n", "header but no data rows"),
    "no label column": ("label,0,1\n0,0.5,0.5\n", "no label column 'y'"),
    "non-numeric probability": (
        "y,0,1\n0,0.5,0.5\n1,abc,0.5\n",
        "probability column '0' is not numeric: 'abc' at line 3",
    ),
    "empty probability cell": ("y,0,1\n0,,0.5\n", "an empty cell at line 2"),
    "empty label": ("y,0,1\n,0.5,0.5\n", "label column 'y' is empty at line 2"),
    "rows not summing to 1": ("y,0,1\n0,0.5,0.5\n1,0.5,0.6\n", "rows must sum to 1"),
    "label not among the columns": (
        "y,0,1\n0,0.5,0.5\n2,0.5,0.5\n",
        "labels in column 'y' without a probability column: 2",
    ),
    "string label not among the columns": (
        "y,cat,dog\ncat,0.5,0.5\nemu,0.5,0.5\n",
        "without a probability column: emu",
    ),
    "nan probability": ("y,0,1\n0,0.5,0.5\n1,nan,0.5\n", "NaN"),
    "negative probability": ("y,0,1\n0,1.5,-0.5\n", "[0, 1]"),
    "ragged row": ("y,0,1\n0,0.5,0.5\n1,0.5\n", "line 3 has 2 fields but the header has 3"),
    "duplicate column": ("y,0,0\n0,0.5,0.5\n", "two columns named '0'"),
    "unnamed column": ("y,,1\n0,0.5,0.5\n", "column 2 of the header has no name"),
    "no probability columns": ("y\n0\n", "no probability columns"),
    "single column not a class": ("y,p\n0,0.5\n1,0.5\n", "'p' does not name a class"),
    "single column, string labels": (
        "y,p\na,0.5\nb,0.5\n",
        "must be named after the positive class",
    ),
    "single column, three labels": ("y,1\n0,0.5\n1,0.5\n2,0.5\n", "has 3 labels"),
    "two columns for one class": ("y,1,1.0\n1,0.5,0.5\n", "name the same class"),
}


@pytest.mark.parametrize("case", list(BAD_CSV))
def test_bad_csv_one_line_error(tmp_path, case):
    content, fragment = BAD_CSV[case]
    path = tmp_path / "bad.csv"
    path.write_text(content)
    rc, out, err = run(["report", str(path)])
    assert_one_line_error(rc, out, err, f"skcalib: error: {path}: ", fragment)


def _npz_missing_key(path):
    np.savez(path, y_true=[0, 1])


def _npz_object_array(path):
    np.savez(
        path, y_true=np.array([0, 1], dtype=object), y_proba=np.array([[0.5, 0.5], [0.5, 0.5]])
    )


def _npy_renamed(path):
    with open(path, "wb") as f:
        np.save(f, np.zeros(3))


def _npz_bad_proba(path):
    np.savez(path, y_true=[0, 1], y_proba=np.array([[0.5, 0.7], [0.5, 0.5]]))


def _npz_text_proba(path):
    np.savez(path, y_true=[0, 1], y_proba=np.array(["a", "b"]))


BAD_FILES = {
    "missing file": (None, "no such file"),
    "directory": ("dir", "is a directory"),
    "unsupported extension": (lambda p: p.write_text("y,0\n"), "unsupported file type '.txt'"),
    "not utf-8": (lambda p: p.write_bytes(b"y,0,1\n0,\xff\xfe,0.5\n"), "not a UTF-8 text"),
    "garbage npz": (lambda p: p.write_bytes(b"hello world"), "not a .npz file"),
    "npy named npz": (_npy_renamed, "single .npy array"),
    "npz missing y_proba": (_npz_missing_key, "missing array 'y_proba'"),
    "npz object array": (_npz_object_array, "not a readable .npz file"),
    "npz rows not summing to 1": (_npz_bad_proba, "rows must sum to 1"),
    "npz text probabilities": (_npz_text_proba, "not numeric"),
}
_SUFFIX = {"unsupported extension": ".txt", "not utf-8": ".csv"}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_one_line_error(tmp_path, case):
    make, fragment = BAD_FILES[case]
    path = tmp_path / ("f" + _SUFFIX.get(case, ".npz" if "npz" in case else ".csv"))
    if make == "dir":
        path.mkdir()
    elif make is not None:
        make(path)
    rc, out, err = run(["report", str(path)])
    assert_one_line_error(rc, out, err, fragment)


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--model-col", "m"], "no model column 'm'"),
        (["--proba-cols", "0,2"], "no probability column '2'"),
        (["--proba-cols", "y,0"], "cannot be both a probability column and the label column"),
        (["--label-col", "z"], "no label column 'z'"),
    ],
)
def test_bad_column_options(tmp_path, argv, fragment):
    src = write_csv(tmp_path / "c.csv", ["y", "0", "1"], [[0, 0.8, 0.2], [1, 0.3, 0.7]])
    rc, out, err = run(["report", src, *argv])
    assert_one_line_error(rc, out, err, fragment)


def test_table_options_rejected_for_npz(tmp_path):
    np.savez(tmp_path / "p.npz", y_true=[0, 1], y_proba=[0.2, 0.7])
    rc, out, err = run(["report", str(tmp_path / "p.npz"), "--label-col", "y"])
    assert_one_line_error(rc, out, err, "--label-col applies to .csv and .parquet")


def test_bad_file_subprocess_exit_code(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("y,0,1\n0,0.9,0.9\n")
    proc = subprocess.run(
        [sys.executable, "-m", "skcalib", "report", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("skcalib: error: ") and proc.stderr.count("\n") == 1


# ---------------------------------------------------------------------------- command line
@pytest.mark.parametrize(
    "argv",
    [
        ["report"],  # neither a file nor --demo
        ["report", "x.csv", "--demo"],  # both
        ["report", "--demo", "--n-bins", "0"],
        ["report", "--demo", "--n-bins", "many"],
        ["report", "--demo", "--bogus"],
    ],
)
def test_usage_errors_exit_2(argv):
    rc, out, err = run(argv)
    assert rc == 2
    assert err.startswith("usage: skcalib") and "error:" in err


def test_no_command_prints_help_and_returns_2():
    rc, out, err = run([])
    assert rc == 2 and "report" in err


def test_help_documents_out_and_formats():
    rc, out, err = run(["report", "--help"])
    assert rc == 0
    text = " ".join(out.split())
    assert "--out DIR" in text and "Without --out nothing is written" in text
    assert ".npz" in text and "--label-col" in text and "--demo" in text


def test_version():
    import skcalib

    rc, out, _ = run(["--version"])
    assert rc == 0
    assert out.strip() == f"skcalib {skcalib.__version__}"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--n-bins", "0", "argument --n-bins: expected a positive integer, got '0'"),
        ("--n-bins", "2.5", "argument --n-bins: expected a positive integer, got '2.5'"),
        ("--seed", "-1", "argument --seed: expected an integer >= 0, got '-1'"),
        ("--seed", "x", "argument --seed: expected an integer >= 0, got 'x'"),
    ],
)
def test_integer_options_name_the_bad_value(option, value, message):
    rc, _, err = run(["report", "--demo", option, value])
    assert rc == 2
    assert message in err
