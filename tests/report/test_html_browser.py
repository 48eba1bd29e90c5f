"""The HTML report in headless Chromium at 1400 px: what a reader sees.

Chromium (Debian's ``chromium`` package) is driven over the DevTools protocol on a pipe
(``tests/_cdp.py``); the page is asked about its own layout: nothing wider than the
window, every plotted curve inside its Axes (the SVG path of each line against the
background of its Axes), the verdict first, the summary of a grouped report sorted worst
first and re-sorted by a click.  Skipped when chromium is not installed, except where
SKCALIB_REQUIRE_CHROMIUM is set (CI).
"""

import io
import json

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from tests._cdp import chromium_or_skip, visit  # noqa: E402
from tests.report.test_html import parse, run, tables_of  # noqa: E402

WIDTH = 1400

# every element (SVG content included) whose box leaves the window horizontally
_OVERFLOW = """JSON.stringify((() => {
  const w = document.documentElement.clientWidth, out = [];
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > w + 0.5 || r.left < -0.5)) {
      out.push(e.tagName + "#" + e.id + "." + e.getAttribute("class") + ": " + Math.round(r.left)
               + ".." + Math.round(r.right));
    }
  }
  return {width: w, scrollWidth: document.documentElement.scrollWidth, outside: out};
})())"""

# every line of every figure against the background of its Axes, in SVG units: the
# points of the path (not the marker shapes kept in <defs>) inside the Axes' box
_CURVES = """JSON.stringify((() => {
  let checked = 0;
  const outside = [];
  for (const bg of document.querySelectorAll("figure svg [id*='-axes-bg-']")) {
    const [prefix, i] = bg.id.split("-axes-bg-");
    const box = bg.getBBox();
    const svg = bg.ownerSVGElement;
    for (const line of svg.querySelectorAll(`[id^='${prefix}-curve-${i}-']`)) {
      for (const path of line.querySelectorAll("path")) {
        if (path.closest("defs")) continue;
        const b = path.getBBox();
        checked++;
        if (b.x < box.x - 1 || b.y < box.y - 1 || b.x + b.width > box.x + box.width + 1
            || b.y + b.height > box.y + box.height + 1) {
          outside.push(line.id);
        }
      }
    }
  }
  return {checked: checked, outside: outside};
})())"""

_VERDICT = """JSON.stringify((() => {
  const v = document.getElementById("verdict");
  const first = document.querySelector("h1 ~ section");
  return {text: v ? v.innerText : null, first: first === v,
          top: v ? v.getBoundingClientRect().top : null};
})())"""

# the summary table: its ECE column as loaded, then the n column after one and two
# clicks on its heading (descending, then ascending)
_SORT = """JSON.stringify((() => {
  const t = document.querySelector("table.summary");
  const heads = Array.from(t.tHead.rows[0].cells).map(c => c.textContent);
  const col = name => Array.from(t.tBodies[0].rows).map(
    r => parseFloat(r.cells[heads.indexOf(name)].dataset.value));
  const initial = col("ECE");
  t.tHead.rows[0].cells[heads.indexOf("n")].click();
  const desc = col("n");
  t.tHead.rows[0].cells[heads.indexOf("n")].click();
  const asc = col("n");
  t.tHead.rows[0].cells[heads.indexOf("ECE")].click();
  return {heads: heads, initial: initial, desc: desc, asc: asc, again: col("ECE")};
})())"""


def _look(path, tmp_path, expressions):
    chromium_or_skip()
    seen = visit(path.resolve().as_uri(), tmp_path / "profile", expressions, width=WIDTH)
    assert seen.errors == []
    assert seen.remote_requests() == []
    values = {k: json.loads(v) for k, v in seen.values.items()}
    import matplotlib.image

    img = matplotlib.image.imread(io.BytesIO(seen.screenshot), format="png")
    assert img.shape[1] == WIDTH
    rgb = (img[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    assert len(np.unique(rgb, axis=0)) > 50  # text, tables and plots, not a blank page
    return values


def _check_layout(values):
    layout = values["layout"]
    assert layout["outside"] == [] and layout["scrollWidth"] <= layout["width"] == WIDTH
    curves = values["curves"]
    assert curves["checked"] > 0 and curves["outside"] == []


def test_digits_page_at_1400_pixels(tmp_path):
    """The demo's digits data (10 classes) with its weakest model: the class-wise grid of
    10 panels, the rejection curves (the model's, the oracle's, random rejection), the
    decompositions and an infinite Hosmer-Lemeshow statistic.  (Several models on one
    Axes of rejection curves: tests/display/test_rejection.py.)"""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    from skcalib.report import calibration_report, write_html

    chromium_or_skip()
    X, y = load_digits(return_X_y=True)  # the split of skcalib report --demo
    X_train, X_test, y_train, y = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    proba = {"GaussianNB": GaussianNB().fit(X_train, y_train).predict_proba(X_test)}
    report = calibration_report(y, proba, title="digits")
    page = tmp_path / "digits.html"
    write_html(report, page, inputs={"y_true": y, "y_proba": proba}, classwise=True)
    text, _ = parse(page)
    assert "GaussianNB (AURC" in text and "class-wise reliability diagrams of GaussianNB" in text
    values = _look(page, tmp_path, {"layout": _OVERFLOW, "curves": _CURVES, "verdict": _VERDICT})
    _check_layout(values)
    verdict = values["verdict"]
    assert verdict["first"] and verdict["top"] < 200  # at the top of the page
    assert "digits: ECE of GaussianNB: 0.15" in verdict["text"]
    assert "in-sample estimates" in verdict["text"]
    # GaussianNB's probabilities of exactly 1: the infinite statistic is explained
    assert ">inf</td>" in text and "refuted by a single counter-example" in text


@pytest.fixture(scope="module")
def days_csv(tmp_path_factory):
    """40 days of 60 binary predictions, miscalibrated more and more towards the end."""
    rng = np.random.default_rng(0)
    days = np.repeat(np.arange("2024-03-01", "2024-04-10", dtype="datetime64[D]"), 60)
    p = rng.uniform(0.05, 0.95, size=len(days))
    drift = np.linspace(0.0, 0.3, len(days))
    y = (rng.uniform(size=len(days)) < np.clip(p - drift, 0, 1)).astype(int)
    path = tmp_path_factory.mktemp("days") / "days.csv"
    with open(path, "w", encoding="utf-8") as f:
        f.write("y,1,day\n")
        for row in zip(y, p, days.astype(str), strict=True):
            f.write(f"{row[0]},{float(row[1])!r},{row[2]}\n")
    return path, len(days)


def test_grouped_page_summary_trend_and_worst_groups(tmp_path, days_csv, monkeypatch):
    from skcalib.report import _html

    monkeypatch.setattr(_html, "N_DETAILED", 1)  # one detailed group: a faster test
    src, n = days_csv
    page = tmp_path / "days.html"
    rc, _, err = run(["report", str(src), "--by", "day", "--html", str(page)])
    assert rc == 0, err
    text, parsed = parse(page)
    # a summary, one chart, the overall data and the worst day: not 40 sections
    titles = [h.split("</h2>")[0] for h in text.split("<h2>")[1:]]
    assert titles[:4] == ["Verdict", "40 groups by day", "All 40 groups together",
                          "The worst group"]  # fmt: skip
    assert len(titles) == 4 + 1 + 1 and titles[-1] == "Provenance"
    assert "the other 39 are in the summary table above" in text
    assert text.count('class="metrics"') == 2
    assert "ECE of every group: trend over day" in text
    assert len(text) < 1_000_000
    values = _look(
        page,
        tmp_path,
        {"layout": _OVERFLOW, "curves": _CURVES, "verdict": _VERDICT, "sort": _SORT},
    )
    _check_layout(values)
    sort = values["sort"]
    assert len(sort["initial"]) == 40
    assert sort["initial"] == sorted(sort["initial"], reverse=True)  # worst first
    assert sort["desc"] == sorted(sort["desc"], reverse=True)
    assert sort["asc"] == sorted(sort["asc"])
    assert sort["again"] == sort["initial"]
    # the detailed group is the first row of the summary
    (summary,) = tables_of(parsed, "summary sortable")
    assert titles[4] == summary[1][0]["text"]
    # the drift makes the last days the worst: the verdict names one of them
    verdict = values["verdict"]["text"]
    assert "Noise alone: a perfectly calibrated model would show" in verdict
    worst_day = verdict.split("the worst is day=")[1][:10]
    assert worst_day >= "2024-03-21"  # in the second half
    assert f"{n} (samples" in text
