"""Tests of the self-contained HTML report (``write_html``, ``skcalib report --html``)."""

import base64
import io
import re
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from skcalib.__main__ import main  # noqa: E402
from skcalib.report import calibration_report, write_html  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    """Collect the tables (rows of cells, with their attributes), images and links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.imgs, self.refs, self.tags = [], [], [], []
        self.table_classes = []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        for name in ("src", "href"):
            if name in attrs:
                self.refs.append(attrs[name])
        if tag == "table":
            self.tables.append([])
            self.table_classes.append(attrs.get("class"))
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = {"attrs": attrs, "text": ""}
            self.tables[-1][-1].append(self._cell)
        elif tag == "svg":
            self.imgs.append(attrs)

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def parse(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    page = _Page()
    page.feed(text)
    page.close()
    return text, page


def decode_png(uri):
    assert uri.startswith("data:image/png;base64,")
    data = base64.b64decode(uri.split(",", 1)[1], validate=True)
    assert data.startswith(PNG_MAGIC)
    import matplotlib.image

    img = matplotlib.image.imread(io.BytesIO(data), format="png")
    assert img.shape[0] > 50 and img.shape[1] > 50
    return img


def tables_of(page, cls):
    return [t for t, c in zip(page.tables, page.table_classes, strict=True) if c == cls]


def metrics_tables(page):
    return tables_of(page, "metrics")


SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def svgs(text):
    """The inline SVG figures of a page, parsed as XML (each must be well formed)."""
    return [ET.fromstring(block) for block in SVG.findall(text)]


def check_self_contained(text, page, *, grouped=False):
    """One file: no request of anything, figures as inline SVG, ids unique, and a script
    only to sort the summary table of a grouped page."""
    assert text.startswith("<!DOCTYPE html>")
    assert page.tags.count("html") == 1 and "body" in page.tags
    assert page.tags.count("script") == (1 if grouped else 0)
    assert not re.search(r"<script[^>]*\bsrc", text)
    for tag in ("link", "iframe", "object", "embed", "audio", "video", "source", "img"):
        assert tag not in page.tags
    for ref in page.refs:
        assert ref.startswith(("data:", "#")), ref
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*(https?:)?//", text, re.I)
    assert "@import" not in text
    assert set(re.findall(r"url\(([^)]*)\)", text)) <= {
        f"#{i}" for i in re.findall(r'\bid="([^"]+)"', text)
    }  # only references to the page's own clip paths
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))  # figures do not share ids
    figures = svgs(text)
    assert figures and len(figures) == len(page.imgs)
    for svg, attrs in zip(figures, page.imgs, strict=True):
        assert attrs["role"] == "img" and attrs["aria-label"]
        assert float(svg.get("viewBox").split()[2]) > 100


def check_values(page, reports):
    tables = metrics_tables(page)
    assert len(tables) == len(reports)
    for table, report in zip(tables, reports, strict=True):
        rows = table[1:]
        assert [r[0]["text"] for r in rows] == report.models
        for row, m in zip(rows, report.models, strict=True):
            assert int(row[1]["text"]) == report.n_samples[m]
            cells = {c["attrs"]["data-key"]: c for c in row if "data-key" in c["attrs"]}
            assert list(cells) == [c.key for c in report.columns]
            for key, cell in cells.items():
                expected = report.values[m][key]
                got = float(cell["attrs"]["data-value"])
                assert got == expected or (np.isnan(got) and np.isnan(expected))
                assert cell["text"] == ("nan" if np.isnan(expected) else f"{expected:.4f}")


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def binary_data():
    rng = np.random.default_rng(0)
    n = 400
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    return y, {"good": p, "<script>alert(1)</script> & co": np.clip(p * 1.3 - 0.1, 0, 1)}


@pytest.fixture(scope="module")
def demo_html(tmp_path_factory):
    path = tmp_path_factory.mktemp("html") / "demo.html"
    rc, out, err = run(["report", "--demo", "--html", str(path), "--n-bins", "10"])
    assert rc == 0, err
    assert f"wrote {path}" in out
    return path


def test_write_html_in_memory(tmp_path, binary_data):
    y, proba = binary_data
    report = calibration_report(y, proba, n_bins=10, title="<b>set</b>")
    path = tmp_path / "r.html"
    assert (
        write_html(
            report, path, inputs={"y_true": y, "y_proba": proba}, source="a<b>.csv", command="x <y>"
        )
        == path
    )
    text, page = parse(path)
    check_self_contained(text, page)
    check_values(page, [report])
    # user strings are escaped: no tag of them survives
    assert "<script>" not in text and "<b>set" not in text and "a<b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in text
    assert "&lt;b&gt;set&lt;/b&gt;" in text and "a&lt;b&gt;.csv" in text
    # one figure of reliability diagrams (a panel per model), one of rejection curves
    assert [i["aria-label"] for i in page.imgs] == [
        "reliability diagrams, one panel per model",
        "rejection curves",
    ]
    # 400 samples: min(10, max(5, 400 // 50)) = 8 equal-mass bins
    assert "good: 8 equal-mass bins" in text
    assert "Spiegelhalter" in text and "Hosmer-Lemeshow" in text
    assert "Wilson" in text and "equal-mass" in text
    for heading in ("Confidence intervals", "Score decompositions", "What recalibration"):
        assert heading in text
    assert "random_state=0" in text and "200 resamples" in text
    import sklearn

    import skcalib

    for version in (skcalib.__version__, sklearn.__version__, np.__version__):
        assert version in text
    assert "800 (samples" in text  # two models of 400 rows
    # the verdict comes first and names the best calibrated model with its interval
    verdict = text[text.index('id="verdict"') : text.index("</section>")]
    assert text.index('id="verdict"') < text.index('class="metrics"')
    assert "best calibrated: <b>good</b>" in verdict and "paired bootstrap" in verdict
    assert "in-sample estimates" in verdict and "temperature scaling" in verdict


def test_calibration_tests_table_values(tmp_path, binary_data):
    from skcalib.metrics import hosmer_lemeshow_test, spiegelhalter_test

    y, proba = binary_data
    report = calibration_report(y, proba)
    path = write_html(report, tmp_path / "t.html", inputs={"y_true": y, "y_proba": proba})
    _, page = parse(path)
    (tests,) = tables_of(page, "tests")
    for row, m in zip(tests[1:], report.models, strict=True):
        s = spiegelhalter_test(y, proba[m])
        h = hosmer_lemeshow_test(y, proba[m])
        got = [c["text"] for c in row[1:]]
        assert got == [
            f"{s.statistic:.4f}",
            f"{s.pvalue:.4f}",
            f"{h.statistic:.4f}",
            str(h.df),
            f"{h.pvalue:.4f}",
        ]


def test_write_html_without_inputs_uses_the_report_curves(tmp_path, binary_data):
    y, proba = binary_data
    report = calibration_report(y, proba, n_bins=5)
    text, page = parse(write_html(report, tmp_path / "n.html"))
    check_self_contained(text, page)
    check_values(page, [report])
    assert len(page.imgs) == 1
    assert "equal-width" in text and "Spiegelhalter" not in text
    assert "Intervals and the recalibration preview need the predictions" in text
    assert "Confidence intervals" not in text and "recalibration would" not in text


def test_write_html_validates_its_arguments(tmp_path, binary_data):
    y, proba = binary_data
    report = calibration_report(y, proba)
    with pytest.raises(ValueError, match="one per report"):
        write_html([report, report], tmp_path / "x.html", inputs=[None])
    with pytest.raises(ValueError, match="y_true and y_proba"):
        write_html(report, tmp_path / "x.html", inputs={"y": y})
    with pytest.raises(TypeError, match="CalibrationReport"):
        write_html(["report"], tmp_path / "x.html")
    with pytest.raises(ValueError, match="empty"):
        write_html([], tmp_path / "x.html")


def test_demo_html(demo_html):
    from skcalib.report._demo import demo_predictions

    reports = [calibration_report(y, p, n_bins=10, title=t) for t, y, p in demo_predictions()]
    text, page = parse(demo_html)
    check_self_contained(text, page)
    check_values(page, reports)
    (command,) = re.findall(r"<code>(.*?)</code>", text)
    # an absolute path outside the working directory is shown by its file name
    assert command == "skcalib report --demo --n-bins 10 --html demo.html"
    assert str(demo_html.parent) not in text
    assert "breast_cancer" in text and "digits" in text
    # a verdict for each data set, before the sections
    verdict = text[text.index('id="verdict"') : text.index("</section>")]
    assert "<b>breast_cancer</b>: best calibrated:" in verdict
    assert "<b>digits</b>: best calibrated: <b>LogisticRegression</b>" in verdict
    # the forest, more accurate but over-confident, is the best after temperature scaling
    assert "Worth trying: <b>RandomForestClassifier</b> with temperature scaling" in verdict


def _summary(page):
    """The rows of the summary table of a grouped page: {heading: text} per row."""
    (table,) = tables_of(page, "summary sortable")
    heads = [c["text"] for c in table[0]]
    return heads, [dict(zip(heads, row, strict=True)) for row in table[1:]]


def test_multiclass_and_by_from_csv(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    proba = rng.dirichlet([1, 1, 1], size=n)
    y = np.array([rng.choice(3, p=row) for row in proba])
    group = rng.choice(["a", "<script>b"], size=n)
    path = tmp_path / "p<1>.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("y,cat,dog,eel,g\n")
        names = np.array(["cat", "dog", "eel"])
        for yi, row, g in zip(y, proba, group, strict=True):
            f.write(f"{names[yi]},{row[0]:.17g},{row[1]:.17g},{row[2]:.17g},{g}\n")
    html_path = tmp_path / "m.html"
    rc, out, err = run(["report", str(path), "--by", "g", "--html", str(html_path)])
    assert rc == 0, err
    text, page = parse(html_path)
    check_self_contained(text, page, grouped=True)
    assert "<script>b" not in text and "g=&lt;script&gt;b" in text
    # the summary: one row per group, worst ECE first, the numbers of the printed table
    heads, rows = _summary(page)
    assert heads[:3] == ["group", "n", "accuracy"] and "ECE 95% CI" in heads
    assert sorted(r["group"]["text"] for r in rows) == ["g=<script>b", "g=a"]
    eces = [float(r["ECE"]["attrs"]["data-value"]) for r in rows]
    assert eces == sorted(eces, reverse=True)
    for r in rows:
        line = next(ln for ln in out.splitlines() if ln.startswith(r["group"]["text"] + " "))
        assert r["ECE"]["text"] in line.split() and r["n"]["text"] in line.split()
        low, high = (float(v) for v in r["ECE 95% CI"]["text"].strip("[]").split(", "))
        assert low < high
        # the ECE of outcomes drawn from the group's own predictions: noise alone
        floor = float(r["ECE if calibrated"]["attrs"]["data-value"])
        assert 0 < floor < 0.5
    # details: the overall data (all rows), then both groups (fewer than 3 groups)
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    assert headings[:3] == ["Verdict", "2 groups by g", "All 2 groups together"]
    assert headings[-1] == "Provenance"
    tables = metrics_tables(page)
    assert len(tables) == 3 and int(tables[0][1][1]["text"]) == n
    for name in ("ci", "decomposition", "tests", "recalibration"):
        assert len(tables_of(page, name)) == 3
    # the chart of the groups, then diagrams and rejection curves of each section
    assert page.imgs[0]["aria-label"] == "ECE of every group: g"
    assert len(page.imgs) == 1 + 3 * 2
    assert "p&lt;1&gt;.csv" in text and f"{n} (samples" in text


def test_streamed_parquet_html(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(2)
    n = 500
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    src = tmp_path / "preds.parquet"
    pd.DataFrame({"y": y, "1": p, "g": rng.choice(["u", "v"], n)}).to_parquet(src)
    html_path = tmp_path / "s.html"
    rc, out, err = run(["report", str(src), "--by", "g", "--html", str(html_path)])
    assert rc == 0, err
    text, page = parse(html_path)
    check_self_contained(text, page, grouped=True)
    # the overall data and the two groups, a diagram figure each, after the group chart
    assert len(metrics_tables(page)) == 3 and len(page.imgs) == 1 + 3
    assert "equal-width" in text and "Wilson" in text
    assert text.count("Not available for streamed predictions") == 3
    assert "bootstrap confidence intervals" in text and "recalibration preview" in text
    # the Brier decomposition of each group, from its accumulator: the in-memory one
    from skcalib.metrics import brier_decomposition

    tables = tables_of(page, "decomposition")
    assert len(tables) == 3
    g = pd.read_parquet(src)["g"].to_numpy()
    for table in tables:
        ((model, cells),) = _rows_by_model(table).items()
        rows = np.ones(n, bool) if "=" not in model else g == model.split("=")[1]
        d = brier_decomposition(y[rows], p[rows], n_bins=15)
        got = [float(c["text"]) for c in cells]
        assert len(got) == 6  # no log-score decomposition
        want = [d.reliability, d.resolution, d.uncertainty]
        want += [d.within_bin_variance, d.within_bin_covariance]
        assert got[1:] == pytest.approx(want, abs=5e-5)
        brier, rel, res, unc, wbv, wbc = got
        assert rel - res + unc + wbv - wbc == pytest.approx(brier, abs=3e-4)
    assert "the decomposition of the log score needs the predictions in memory" in text
    _, rows = _summary(page)
    eces = [float(r["ECE"]["attrs"]["data-value"]) for r in rows]
    assert len(rows) == 2 and eces == sorted(eces, reverse=True)
    assert "ECE 95% CI" not in [c["text"] for c in tables_of(page, "summary sortable")[0][0]]


def test_html_write_error_is_reported(tmp_path):
    (tmp_path / "a_file").write_text("x")
    bad = tmp_path / "a_file" / "r.html"  # its directory is a file
    rc, _, err = run(["report", "--demo", "--html", str(bad)])
    assert rc == 2 and err.startswith("skcalib: error: cannot write to")


def test_write_html_fails_before_the_work(tmp_path, monkeypatch, binary_data):
    """An unwritable path fails at once, and a failed page leaves no file behind."""
    from skcalib.report import _html

    y, proba = binary_data
    report = calibration_report(y, proba)
    calls = []
    monkeypatch.setattr(_html, "render_html", lambda *a, **k: calls.append(1) or "")
    with pytest.raises(OSError):
        write_html(report, tmp_path / "no" / "r.html", inputs={"y_true": y, "y_proba": proba})
    assert calls == []

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(_html, "render_html", broken)
    with pytest.raises(RuntimeError, match="boom"):
        write_html(report, tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("n_samples", "n_bins", "expected"),
    [
        (1, 15, 1),
        (3, 15, 3),  # fewer samples than 5: one bin per sample
        (143, 15, 5),  # the demo's breast_cancer test split: 5 bins of about 29
        (450, 15, 9),  # digits: 9 bins of 50
        (749, 15, 14),
        (750, 15, 15),
        (10**6, 15, 15),  # capped by --n-bins
        (450, 4, 4),
    ],
)
def test_diagram_n_bins_rule(n_samples, n_bins, expected):
    from skcalib.report._figures import diagram_n_bins

    assert diagram_n_bins(n_samples, n_bins) == expected


def _rows_by_model(table):
    return {row[0]["text"]: row[1:] for row in table[1:]}


@pytest.fixture(scope="module")
def multiclass_data():
    rng = np.random.default_rng(3)
    n = 300
    logits = rng.normal(size=(n, 3)) * 2.0
    proba = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in proba])
    # an overconfident model: the same logits, sharpened
    sharp = np.exp(3 * logits) / np.exp(3 * logits).sum(1, keepdims=True)
    return y, {"calibrated": proba, "overconfident": sharp}


@pytest.mark.parametrize("data", ["binary_data", "multiclass_data"])
def test_confidence_intervals_are_those_of_calibration_error_ci(tmp_path, data, request):
    from skcalib.metrics import (
        brier_score,
        calibration_error_ci,
        expected_calibration_error,
        negative_log_likelihood,
    )

    y, proba = request.getfixturevalue(data)
    report = calibration_report(y, proba, n_bins=10)
    path = write_html(
        report, tmp_path / "c.html", inputs={"y_true": y, "y_proba": proba}, random_state=7
    )
    _, page = parse(path)
    (table,) = tables_of(page, "ci")
    for m, cells in _rows_by_model(table).items():
        p = proba[m]
        if p.ndim == 1:  # the table's positive-class probability, as two columns
            p = np.c_[1 - p, p]
        for cell, func in zip(
            cells, (expected_calibration_error, brier_score, negative_log_likelihood), strict=True
        ):
            kw = {"n_bins": 10} if func is expected_calibration_error else {}
            ci = calibration_error_ci(func, y, p, n_resamples=200, random_state=7, **kw)
            assert float(cell["attrs"]["data-low"]) == ci.low
            assert float(cell["attrs"]["data-high"]) == ci.high
            assert ci.low < ci.high
            # the estimate is the table's number
            assert cell["text"].split()[0] == f"{report.values[m][cell['attrs']['data-key']]:.4f}"


def test_decompositions_add_up_to_the_table(tmp_path, binary_data):
    y, proba = binary_data
    report = calibration_report(y, proba, n_bins=10)
    _, page = parse(write_html(report, tmp_path / "d.html", inputs={"y_true": y, "y_proba": proba}))
    (table,) = tables_of(page, "decomposition")
    (log_table,) = tables_of(page, "log-decomposition")
    logs = _rows_by_model(log_table)
    for m, cells in _rows_by_model(table).items():
        v = [float(c["text"]) for c in cells + logs[m]]
        brier, rel, res, unc, wbv, wbc, log, mcb, dsc, log_unc = v
        assert brier == pytest.approx(report.values[m]["brier_score"], abs=1e-4)
        # Murphy (1973) with the within-bin terms (Stephenson et al. 2008): exact
        assert rel - res + unc + wbv - wbc == pytest.approx(brier, abs=5e-4)
        # CORP (Dimitriadis et al. 2021): exact; binary log score = NLL
        assert mcb - dsc + log_unc == pytest.approx(log, abs=5e-4)
        assert log == pytest.approx(report.values[m]["negative_log_likelihood"], abs=1e-4)
        assert mcb >= 0 and dsc >= 0
        # the base rate's uncertainty, y.mean() * (1 - y.mean())
        assert unc == pytest.approx(y.mean() * (1 - y.mean()), abs=1e-4)


def test_recalibration_preview_is_cross_fitted(tmp_path, multiclass_data):
    """Slow re-implementation: fit each fold by hand, compare the out-of-fold metrics."""
    from sklearn.model_selection import StratifiedKFold

    from skcalib.metrics import expected_calibration_error, negative_log_likelihood
    from skcalib.recalibration import IsotonicCalibration, TemperatureScaling

    y, proba = multiclass_data
    report = calibration_report(y, proba, n_bins=10)
    _, page = parse(write_html(report, tmp_path / "r.html", inputs={"y_true": y, "y_proba": proba}))
    (table,) = tables_of(page, "recalibration")
    got = {m: [float(c["text"]) for c in cells] for m, cells in _rows_by_model(table).items()}
    for m, p in proba.items():
        expected_ece = [expected_calibration_error(y, p, n_bins=10)]
        expected_nll = [negative_log_likelihood(y, p)]
        for cls in (TemperatureScaling, IsotonicCalibration):
            out = np.zeros_like(p)
            for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(p, y):
                cal = cls(input="proba", classes=[0, 1, 2]).fit(p[train], y[train])
                out[test] = cal.predict_proba(p[test])
            expected_ece.append(expected_calibration_error(y, out, n_bins=10))
            expected_nll.append(negative_log_likelihood(y, out))
        assert got[m] == pytest.approx(expected_ece + expected_nll, abs=1e-4)
    # the overconfident model gains from temperature scaling, in NLL and ECE
    ece, ece_t, _, nll, nll_t, _ = got["overconfident"]
    assert nll_t < nll - 0.1 and ece_t < ece


def _spy_curves(monkeypatch):
    from skcalib.report import _figures

    calls = []
    original = _figures._metrics.reliability_curve

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(_figures._metrics, "reliability_curve", spy)
    return calls


@pytest.mark.parametrize(
    ("options", "strategy", "interval"),
    [
        ([], "quantile", "wilson"),
        (["--strategy", "uniform", "--intervals", "clopper_pearson"], "uniform", "clopper_pearson"),
        (["--intervals", "none"], "quantile", None),
    ],
)
def test_strategy_and_intervals_reach_png_and_html(
    tmp_path, monkeypatch, options, strategy, interval
):
    calls = _spy_curves(monkeypatch)
    rng = np.random.default_rng(4)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    src = tmp_path / "p.csv"
    np.savetxt(src, np.c_[y, p], delimiter=",", header="y,1", comments="", fmt=["%d", "%.17g"])
    out_dir, page = tmp_path / "out", tmp_path / "p.html"
    argv = ["report", str(src), "--out", str(out_dir), "--html", str(page), *options]
    rc, _, err = run(argv)
    assert rc == 0, err
    calls = [kw for kw in calls if "strategy" in kw]  # not the table's curves
    assert len(calls) == 2  # the PNG file and the page
    for kw in calls:
        assert kw["strategy"] == strategy and kw["n_bins"] == 5  # 200 // 50 -> 5 bins
        if interval is None:
            assert kw["confidence_level"] is None
        else:
            assert kw["confidence_level"] == 0.95 and kw["interval"] == interval
    decode_png(
        "data:image/png;base64,"
        + base64.b64encode((out_dir / "reliability_p.png").read_bytes()).decode()
    )
    text, _ = parse(page)
    what = "equal-mass" if strategy == "quantile" else "equal-width"
    assert f"model: 5 {what} bins" in text


def test_classwise_diagrams(tmp_path, multiclass_data):
    from skcalib.metrics import reliability_curve
    from skcalib.report._figures import classwise_figure

    y, proba = multiclass_data
    report = calibration_report(y, proba, n_bins=10)
    inputs = {"y_true": y, "y_proba": proba}
    text, page = parse(write_html(report, tmp_path / "w.html", inputs=inputs, classwise=True))
    alts = [i["aria-label"] for i in page.imgs]
    assert alts.count("class-wise reliability diagrams of calibrated") == 1
    assert len(alts) == 2 + len(proba)
    fig, caption = classwise_figure(report, inputs, "overconfident")
    assert caption == "overconfident, class-wise: 6 equal-mass bins per class"
    curve = reliability_curve(
        y,
        proba["overconfident"],
        n_bins=6,
        strategy="quantile",
        multiclass="classwise",
        confidence_level=0.95,
    )
    panels = [a for a in fig.axes if a.get_title().startswith("class ")]
    assert [a.get_title() for a in panels] == ["class 0", "class 1", "class 2"]
    for k, ax in enumerate(panels):
        line = next(ln for ln in ax.get_lines() if ln.get_linestyle() == "-")
        keep = curve.bin_count[k] > 0
        np.testing.assert_allclose(line.get_xdata(), curve.prob_pred[k][keep])
        np.testing.assert_allclose(line.get_ydata(), curve.prob_true[k][keep])


def test_streamed_diagrams_come_from_the_accumulators(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from skcalib.report._figures import reliability_figure
    from skcalib.streaming import CalibrationAccumulator

    rng = np.random.default_rng(5)
    n = 600
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    src = tmp_path / "s.parquet"
    pd.DataFrame({"y": y, "1": p}).to_parquet(src)
    from skcalib.report._stream import stream_report

    report = stream_report(src, n_bins=8)
    fig, captions = reliability_figure(report, None, interval="clopper_pearson")
    assert captions == ["model: 8 equal-width bins"]
    acc = CalibrationAccumulator(n_bins=8).update(y, p)
    curve = acc.reliability_curve(confidence_level=0.95, interval="clopper_pearson")
    ax = fig.axes[0]
    line = next(ln for ln in ax.get_lines() if ln.get_linestyle() == "-")
    np.testing.assert_allclose(line.get_ydata(), curve.prob_true[curve.bin_count > 0])
    # the error bars span the Clopper-Pearson intervals
    (bars,) = [c for c in ax.collections if len(c.get_segments()) == (curve.bin_count > 0).sum()]
    segs = np.array(bars.get_segments())
    np.testing.assert_allclose(segs[:, 0, 1], curve.prob_true_low[curve.bin_count > 0])
    np.testing.assert_allclose(segs[:, 1, 1], curve.prob_true_high[curve.bin_count > 0])


def test_bad_options(tmp_path, binary_data):
    y, proba = binary_data
    report = calibration_report(y, proba)
    with pytest.raises(ValueError, match="strategy must be one of"):
        write_html(report, tmp_path / "x.html", strategy="kmeans")
    with pytest.raises(ValueError, match="intervals must be one of"):
        write_html(report, tmp_path / "x.html", intervals="normal")
    with pytest.raises(ValueError, match="random_state must be an int"):
        write_html(report, tmp_path / "x.html", random_state=None)
    with pytest.raises(ValueError, match="random_state must be an int >= 0"):
        write_html(report, tmp_path / "x.html", random_state=-1)
    rc, _, err = run(["report", "--demo", "--strategy", "kmeans"])
    assert rc == 2 and "--strategy" in err
    rc, _, err = run(["report", "--demo", "--seed", "-3"])
    assert rc == 2 and "--seed" in err and "integer >= 0" in err


def test_by_sections_with_a_model_column(tmp_path):
    rng = np.random.default_rng(6)
    n = 240
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    model = rng.choice(["A", "B, c"], size=n)  # a model name with the separator in it
    group = rng.choice(["u", "v"], size=n)
    src = tmp_path / "m.csv"
    with open(src, "w", encoding="utf-8") as f:
        f.write("y,1,model,g\n")
        for row in zip(y, p, model, group, strict=True):
            f.write('{},{!r},"{}",{}\n'.format(row[0], float(row[1]), *row[2:]))
    page = tmp_path / "m.html"
    rc, out, err = run(
        ["report", str(src), "--model-col", "model", "--by", "g", "--html", str(page)]
    )
    assert rc == 0, err
    text, parsed = parse(page)
    check_self_contained(text, parsed, grouped=True)
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    assert headings[:3] == ["Verdict", "2 groups by g", "All 2 groups together"]
    assert sorted(headings[4:6]) == ["g=u", "g=v"] and headings[-1] == "Provenance"
    # the summary: a row per (group, model), the worst group first
    heads, rows = _summary(parsed)
    assert heads[:3] == ["group", "model", "n"]
    assert sorted((r["group"]["text"], r["model"]["text"]) for r in rows) == [
        ("g=u", "A"),
        ("g=u", "B, c"),
        ("g=v", "A"),
        ("g=v", "B, c"),
    ]
    for r in rows:  # the numbers are those of the printed table
        name = f"{r['group']['text']}, {r['model']['text']}"
        line = next(ln for ln in out.splitlines() if ln.startswith(name + " "))
        assert r["ECE"]["text"] in line.split() and r["NLL"]["text"] == line.split()[-3]
        assert r["HL p"]["text"] == line.split()[-2]
        assert r["HL p (Holm)"]["text"].removesuffix(" *") == line.split()[-1]
    first = rows[0]["group"]["text"]
    assert float(rows[0]["ECE"]["attrs"]["data-value"]) == max(
        float(r["ECE"]["attrs"]["data-value"]) for r in rows
    )
    assert [r["group"]["text"] for r in rows[:2]] == [first, first]  # a group's rows together
    # the overall rows: one per model, over both groups, in the first metrics table
    overall = [r[0]["text"] for r in metrics_tables(parsed)[0][1:]]
    assert sorted(overall) == ["A", "B, c"]
    assert sum(int(r[1]["text"]) for r in metrics_tables(parsed)[0][1:]) == n
    # the verdict compares the models overall (different rows: no paired interval)
    verdict = text[text.index('id="verdict"') : text.index("</section>")]
    assert "best calibrated" in verdict and "paired" not in verdict


def test_grouped_report_object(tmp_path):
    """A report that carries ``groups`` (row name -> group key, None for the overall
    rows) and ``group_columns`` is drawn as one grouped page from its own rows: the
    overall row is the report's, not recomputed."""
    rng = np.random.default_rng(8)
    sizes = {"r=a": 120, "r=b": 180}
    y, proba = {}, {}
    for name, n in sizes.items():
        p = rng.uniform(size=n)
        y[name], proba[name] = (rng.uniform(size=n) < p).astype(int), p
    y["overall"] = np.concatenate([y[k] for k in sizes])
    proba["overall"] = np.concatenate([proba[k] for k in sizes])
    report = calibration_report(y, proba, n_bins=10, title="t")
    report.groups = {"r=a": ("a",), "r=b": ("b",), "overall": None}
    report.group_columns = ["r"]
    text, page = parse(
        write_html(report, tmp_path / "g.html", inputs={"y_true": y, "y_proba": proba})
    )
    check_self_contained(text, page, grouped=True)
    heads, rows = _summary(page)
    assert sorted(r["group"]["text"] for r in rows) == list(sizes)
    for r in rows:
        assert (
            r["ECE"]["text"]
            == f"{report.values[r['group']['text']]['expected_calibration_error']:.4f}"
        )
    overall_table = metrics_tables(page)[0]
    assert [c["text"] for c in overall_table[1][:2]] == ["overall", "300"]
    assert "300 (samples" in text  # the groups' rows, counted once
    assert "ECE of every group: r" in text  # categories: no trend
