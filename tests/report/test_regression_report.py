"""``skcalib report`` on regression predictions: numbers, streaming, detection, errors, HTML."""

import csv
import importlib.util
import io
import json
import math
import os
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from scipy import stats

import skcalib.metrics as M
from skcalib.__main__ import main
from skcalib.report._io import PredictionsFileError
from skcalib.report._regression import regression_spec

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

N = 900
LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    mu = rng.normal(size=N)
    std = rng.uniform(0.5, 2.0, size=N)
    y = rng.normal(mu, 1.3 * std)
    region = np.array(["b", "a", None], dtype=object)[rng.integers(0, 3, size=N)]
    return {"y": y, "mean": mu, "std": std, "region": region}


def write_csv(path, cols):
    names = list(cols)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        for row in zip(*(cols[c] for c in names), strict=True):
            w.writerow(["" if v is None else (repr(float(v)) if not isinstance(v, str) else v)
                        for v in row])  # fmt: skip


def write_parquet(path, cols, rows=200):
    table = pa.table({c: pa.array(list(v)) for c, v in cols.items()})
    pq.write_table(table, path, row_group_size=rows)


def report_rows(tmp_path, argv):
    out = tmp_path / "out"
    rc, stdout, err = run([*argv, "--out", str(out)])
    assert rc == 0, err
    with open(out / "regression_report.csv", newline="") as f:
        rows = {r["model"]: r for r in csv.DictReader(f)}
    return rows, stdout


def expected(y, pred, *, ence=True):
    out = {
        "crps": M.crps(y, pred),
        "log_score": M.log_score(y, pred),
        "miscalibration_area": M.miscalibration_area(y, pred),
        "sharpness": M.sharpness(pred),
    }
    for c in (0.5, 0.9):
        out[f"interval_coverage_{c:g}"] = M.interval_coverage(y, pred, coverage=c)
        out[f"mean_interval_width_{c:g}"] = M.mean_interval_width(pred, coverage=c)
    if ence:
        out["expected_normalized_calibration_error"] = M.expected_normalized_calibration_error(
            y, pred, n_bins=10
        )
    return out


def check(row, want, rtol=1e-12):
    for k, v in want.items():
        assert float(row[k]) == pytest.approx(v, rel=rtol, abs=1e-14), k


def test_normal_csv_equals_batch_metrics_and_closed_forms(tmp_path, data):
    write_csv(tmp_path / "p.csv", {k: data[k] for k in ("y", "mean", "std")})
    rows, stdout = report_rows(tmp_path, ["report", str(tmp_path / "p.csv")])  # detected
    assert "Normal predictive distributions" in stdout
    y, mu, s = data["y"], data["mean"], data["std"]
    check(rows["model"], expected(y, stats.norm(mu, s)))
    # independent closed forms: Gneiting and Raftery (2007) CRPS of a Normal, coverage
    z = (y - mu) / s
    crps = np.mean(
        s * (z * (2 * stats.norm.cdf(z) - 1) + 2 * stats.norm.pdf(z) - 1 / np.sqrt(np.pi))
    )
    assert float(rows["model"]["crps"]) == pytest.approx(crps, rel=1e-12)
    cover = np.mean(np.abs(z) <= stats.norm.ppf(0.95))
    assert float(rows["model"]["interval_coverage_0.9"]) == pytest.approx(cover, abs=1e-15)
    assert int(rows["model"]["n_samples"]) == N


def test_streamed_parquet_by_groups_equals_csv_and_batch(tmp_path, data):
    write_csv(tmp_path / "p.csv", data)
    write_parquet(tmp_path / "p.parquet", data, rows=200)  # 5 row groups
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    rows_csv, _ = report_rows(tmp_path / "a", ["report", str(tmp_path / "p.csv"), "--by", "region"])
    rows_pq, out = report_rows(
        tmp_path / "b", ["report", str(tmp_path / "p.parquet"), "--by", "region"]
    )
    # keys as values, sorted, the null group of its own, then the overall row
    assert list(rows_pq) == ["region=a", "region=b", "region=null", "overall"]
    assert list(rows_csv) == list(rows_pq)
    assert "ENCE: n/a on streamed data" in " ".join(out.split())
    y, mu, s, g = data["y"], data["mean"], data["std"], data["region"]
    for name, key in (("region=a", "a"), ("region=b", "b"), ("region=null", None), ("overall", 0)):
        rows = np.ones(N, bool) if key == 0 else np.array([v == key for v in g])
        want = expected(y[rows], stats.norm(mu[rows], s[rows]))
        check(rows_csv[name], want)
        want.pop("expected_normalized_calibration_error")
        check(rows_pq[name], want)
        assert rows_pq[name]["expected_normalized_calibration_error"] == ""


def test_quantile_columns_detected_and_sorted(tmp_path, data):
    y = data["y"]
    q = stats.norm(data["mean"][:, None], data["std"][:, None]).ppf(np.array(LEVELS))
    cols = {"y": y, **{f"q{t:g}": q[:, j] for j, t in list(enumerate(LEVELS))[::-1]}}
    write_parquet(tmp_path / "q.parquet", cols, rows=128)
    rows, stdout = report_rows(tmp_path, ["report", str(tmp_path / "q.parquet")])
    assert "predictive quantiles at 5 levels (q0.05, q0.25, q0.5, q0.75, q0.95)" in stdout
    pred = M.PredictiveQuantiles(q, LEVELS)
    want = expected(y, pred, ence=False)
    for k, v in want.items():
        got = float(rows["model"][k]) if rows["model"][k] != "" else math.nan
        if math.isinf(v):
            assert got == v, k
        else:
            assert got == pytest.approx(v, rel=1e-12, abs=1e-14), k


def test_interval_columns_need_coverage(tmp_path, data):
    lo, hi = data["mean"] - 1.6 * data["std"], data["mean"] + 1.6 * data["std"]
    write_csv(tmp_path / "i.csv", {"y": data["y"], "lower": lo, "upper": hi})
    rc, _, err = run(["report", str(tmp_path / "i.csv")])
    assert rc == 2 and "--coverage" in err and "'lower', 'upper'" in err
    rows, stdout = report_rows(tmp_path, ["report", str(tmp_path / "i.csv"), "--coverage", "0.8"])
    assert "central 0.8 prediction intervals" in stdout
    row = rows["model"]
    cover = M.interval_coverage(data["y"], lo, hi)
    assert float(row["interval_coverage_0.8"]) == pytest.approx(cover, abs=1e-15)
    assert float(row["mean_interval_width_0.8"]) == pytest.approx(np.mean(hi - lo), rel=1e-12)
    for k in ("crps", "log_score", "miscalibration_area", "sharpness"):
        assert row[k] == ""  # not defined for intervals
    if importlib.util.find_spec("matplotlib") is not None:
        page = tmp_path / "i.html"
        rc, _, err = run(
            ["report", str(tmp_path / "i.csv"), "--coverage", "0.8", "--html", str(page)]
        )
        assert rc == 0, err
        text = page.read_text(encoding="utf-8")
        assert text.count("<svg") == 1 and "No calibration curve" in text
        assert "Central 0.8 intervals" in text


def test_named_columns_and_errors(tmp_path, data):
    cols = {"target": data["y"], "mu": data["mean"], "sigma": data["std"],
            "mean": data["mean"], "std": data["std"], "lower": data["mean"] - 1,
            "upper": data["mean"] + 1}  # fmt: skip
    write_csv(tmp_path / "m.csv", cols)
    f = str(tmp_path / "m.csv")
    # several forms: ambiguous, the message names the columns and options
    rc, _, err = run(["report", f, "--label-col", "target", "--regression"])
    assert rc == 2 and "ambiguous" in err and "mean, std" in err and "lower, upper" in err
    rows, _ = report_rows(
        tmp_path, ["report", f, "--label-col", "target", "--mean-col", "mu", "--std-col", "sigma"]
    )
    check(rows["model"], expected(data["y"], stats.norm(data["mean"], data["std"])))
    rc, _, err = run(
        ["report", f, "--label-col", "target", "--mean-col", "nope", "--std-col", "std"]
    )
    assert rc == 2 and "no column 'nope'" in err
    rc, _, err = run(["report", f, "--label-col", "target", "--mean-col", "mu",
                      "--quantile-cols", "q0.1,q0.9"])  # fmt: skip
    assert rc == 2 and "one form" in err
    rc, _, err = run(["report", f, "--regression"])  # no label column "y"
    assert rc == 2 and "no label column 'y'" in err
    with pytest.raises(PredictionsFileError, match="no regression prediction columns"):
        regression_spec(["y", "a", "b"])
    assert regression_spec(["y", "a", "b"], required=False) is None
    with pytest.raises(PredictionsFileError, match="same level"):
        regression_spec(["y", "q0.5", "0.5"], quantile_cols=["q0.5", "0.5"])
    with pytest.raises(PredictionsFileError, match="not named by its level"):
        regression_spec(["y", "q0.5", "x"], quantile_cols=["q0.5", "x"])


def test_bad_values_are_located(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("y,mean,std\n1.0,0.0,1.0\n2.0,0.5,-1.0\n")
    rc, _, err = run(["report", str(path)])
    assert rc == 2 and "'std' must be > 0" in err and "line 3" in err
    path.write_text("y,mean,std\n1.0,0.0,1.0\n,0.5,1.0\n")
    rc, _, err = run(["report", str(path)])
    assert rc == 2 and "missing value" in err and "line 3" in err


def test_classification_files_are_not_detected(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("y,0,1\n0,0.8,0.2\n1,0.3,0.7\n1,0.4,0.6\n")
    rc, out, err = run(["report", str(path)])
    assert rc == 0, err
    assert "ECE" in out and "CRPS" not in out


def test_html_section_and_json(tmp_path, data):
    pytest.importorskip("matplotlib")
    sub = {k: v[:300] for k, v in data.items()}
    write_parquet(tmp_path / "p.parquet", sub, rows=100)
    page = tmp_path / "r.html"
    rc, _, err = run(["report", str(tmp_path / "p.parquet"), "--by", "region", "--html",
                      str(page), "--out", str(tmp_path / "o")])  # fmt: skip
    assert rc == 0, err
    text = page.read_text(encoding="utf-8")
    assert '<section id="regression">' in text and "<script" not in text
    assert text.count("<svg") == 2  # the calibration curves and the intervals
    assert "Calibration curves" in text and "Prediction intervals" in text
    assert "region=null" in text
    js = json.loads((tmp_path / "o" / "regression_report.json").read_text())
    rep = js["reports"][0]
    assert rep["task"] == "regression" and rep["form"] == "normal"
    assert [r["model"] for r in rep["rows"]][-1] == "overall"
    curve = rep["calibration_curves"]["overall"]
    res = M.regression_calibration_curve(sub["y"], stats.norm(sub["mean"], sub["std"]))
    np.testing.assert_allclose(curve["observed"], res.observed, rtol=0, atol=1e-15)
    assert os.path.exists(tmp_path / "o" / "regression_calibration_p.png")


def test_plot_rows_and_messages(tmp_path, data):
    from skcalib.report._io import open_table
    from skcalib.report._regression import PLOT_ROWS, RegressionTableReport

    write_parquet(tmp_path / "p.parquet", data, rows=100)
    table = open_table(str(tmp_path / "p.parquet"))
    run_ = RegressionTableReport(table, regression_spec(table.names), by=["region"]).run()
    report = run_.report()
    # the overall row draws the first rows of the table, a group its own first rows
    y, (mean, std) = report.samples["overall"]
    np.testing.assert_array_equal(y, data["y"][:PLOT_ROWS])
    np.testing.assert_array_equal(std, data["std"][:PLOT_ROWS])
    in_a = np.array([v == "a" for v in data["region"]])
    np.testing.assert_array_equal(report.samples["region=a"][0], data["y"][in_a][:PLOT_ROWS])
    assert report.curves["overall"].observed.shape == (100,)
    rc, _, err = run(["report", "--demo", "--regression"])
    assert rc == 2 and "--regression needs a predictions file" in err
    path = tmp_path / "bad.csv"
    path.write_text("y,mean,std\n1.0,0.0,abc\n")
    rc, _, err = run(["report", str(path)])
    assert rc == 2 and "column 'std' is not numeric: 'abc' at line 2" in err
    assert "probability" not in err
