"""The Hosmer-Lemeshow p-values of a grouped report, raw and Holm-adjusted."""

import json

import numpy as np
import pytest

from skcalib.metrics import hosmer_lemeshow_test
from skcalib.report._stream import stream_report

from .test_cli import read_csv_rows, run
from .test_stream import NAMES, dyadic_predictions, write_parquet

pa = pytest.importorskip("pyarrow")


def slow_holm(pvalues):
    """Holm (1979) step-down, written out: the i-th smallest p-value times (m - i),
    made non-decreasing in that order and capped at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def test_multiclass_groups_equal_the_top_label_test_on_their_rows(tmp_path):
    y, P = dyadic_predictions(1500, seed=3)
    rng = np.random.default_rng(3)
    g = rng.choice(["a", "b", "c", "d"], size=y.size)
    # group d: overconfident (its top-label probabilities pushed towards 1)
    d = g == "d"
    P[d] = P[d] ** 3 / (P[d] ** 3).sum(axis=1, keepdims=True)
    path = write_parquet(tmp_path / "g.parquet", y, P, row_group_size=77, extra={"g": g})
    report = stream_report(path, by=["g"], n_bins=8)
    raw = []
    for k in "abcd":
        rows = g == k
        ref = hosmer_lemeshow_test(
            NAMES[y[rows]], P[rows], n_groups=8, strategy="uniform", labels=NAMES
        ).pvalue
        got = report.values[f"g={k}"]["hosmer_lemeshow_pvalue"]
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-12)
        raw.append(got)
    holm = [report.values[f"g={k}"]["hosmer_lemeshow_pvalue_holm"] for k in "abcd"]
    np.testing.assert_allclose(holm, slow_holm(raw), rtol=1e-12)
    assert holm[3] < 0.05  # the overconfident group is rejected
    overall = report.values["overall"]
    ref = hosmer_lemeshow_test(NAMES[y], P, n_groups=8, strategy="uniform", labels=NAMES)
    assert overall["hosmer_lemeshow_pvalue"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)
    assert np.isnan(overall["hosmer_lemeshow_pvalue_holm"])
    headers = [c.header for c in report.columns]
    assert headers[-2:] == ["HL p", "HL p (Holm)"]
    assert "HL p (Holm)" in report.to_string()


def test_binary_csv_with_a_model_column_adjusts_within_each_model(tmp_path):
    rng = np.random.default_rng(4)
    n = 900
    p = rng.uniform(size=n)
    model = rng.choice(["m1", "m2"], size=n)
    g = rng.choice(["x", "y", "z"], size=n)
    truth = np.where(model == "m2", p**2, p)  # m2 is miscalibrated
    y = (rng.uniform(size=n) < truth).astype(int)
    src = tmp_path / "b.csv"
    with open(src, "w", encoding="utf-8") as f:
        f.write("y,p,model,g\n")
        for row in zip(y, p, model, g, strict=True):
            f.write(f"{row[0]},{float(row[1])!r},{row[2]},{row[3]}\n")
    report = stream_report(str(src), proba_cols=["p"], model_col="model", by=["g"], n_bins=10)
    for m in ("m1", "m2"):
        raw = []
        for k in "xyz":
            rows = (model == m) & (g == k)
            ref = hosmer_lemeshow_test(y[rows], p[rows], n_groups=10, strategy="uniform")
            got = report.values[f"g={k}, {m}"]["hosmer_lemeshow_pvalue"]
            assert got == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-12)
            raw.append(got)
        holm = [report.values[f"g={k}, {m}"]["hosmer_lemeshow_pvalue_holm"] for k in "xyz"]
        np.testing.assert_allclose(holm, slow_holm(raw), rtol=1e-12)
        rows = model == m
        ref = hosmer_lemeshow_test(y[rows], p[rows], n_groups=10, strategy="uniform")
        assert report.values[m]["hosmer_lemeshow_pvalue"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert np.isnan(report.values[m]["hosmer_lemeshow_pvalue_holm"])


def test_ungrouped_report_has_no_pvalue_columns(tmp_path):
    y, P = dyadic_predictions(200, seed=5)
    report = stream_report(write_parquet(tmp_path / "p.parquet", y, P), n_bins=5)
    assert "hosmer_lemeshow_pvalue" not in {c.key for c in report.columns}


def _grouped_csv(tmp_path):
    rng = np.random.default_rng(7)
    n = 600
    p = rng.uniform(size=n)
    g = np.repeat(["good", "bad"], n // 2)
    y = (rng.uniform(size=n) < np.where(g == "bad", p**4, p)).astype(int)
    src = tmp_path / "c.csv"
    with open(src, "w", encoding="utf-8") as f:
        f.write("y,p,g\n")
        for row in zip(y, p, g, strict=True):
            f.write(f"{row[0]},{float(row[1])!r},{row[2]}\n")
    return str(src)


def test_cli_text_csv_and_json(tmp_path):
    src = _grouped_csv(tmp_path)
    out_dir = tmp_path / "out"
    argv = ["report", src, "--proba-cols", "p", "--by", "g", "--out", str(out_dir)]
    rc, out, err = run(argv)
    assert rc == 0, err
    header = next(ln for ln in out.splitlines() if ln.startswith("model "))
    assert header.endswith("HL p  HL p (Holm)")
    rows = {r["model"]: r for r in read_csv_rows(out_dir / "calibration_report.csv")}
    assert float(rows["g=bad"]["hosmer_lemeshow_pvalue_holm"]) < 0.05
    assert float(rows["g=good"]["hosmer_lemeshow_pvalue_holm"]) > 0.05
    assert rows["overall"]["hosmer_lemeshow_pvalue_holm"] in ("", "nan")
    doc = json.loads((out_dir / "calibration_report.json").read_text())
    (rep,) = doc["reports"]
    by_model = {r["model"]: r for r in rep["rows"]}
    assert by_model["overall"]["hosmer_lemeshow_pvalue_holm"] is None
    assert 0 <= by_model["overall"]["hosmer_lemeshow_pvalue"] <= 1
    assert by_model["g=bad"]["hosmer_lemeshow_pvalue"] == pytest.approx(
        float(rows["g=bad"]["hosmer_lemeshow_pvalue"])
    )


def test_html_summary_marks_rejected_groups(tmp_path):
    pytest.importorskip("matplotlib")
    from .test_html import _summary, parse

    src = _grouped_csv(tmp_path)
    page = tmp_path / "g.html"
    rc, out, err = run(["report", src, "--proba-cols", "p", "--by", "g", "--html", str(page)])
    assert rc == 0, err
    text, parsed = parse(page)
    heads, rows = _summary(parsed)
    assert heads[-2:] == ["HL p", "HL p (Holm)"]
    cells = {r["group"]["text"]: r["HL p (Holm)"] for r in rows}
    assert "reject" in cells["g=bad"]["attrs"]["class"] and cells["g=bad"]["text"].endswith("*")
    assert "reject" not in cells["g=good"]["attrs"]["class"]
    assert "Holm" in text
