"""``skcalib report`` on tables as they come: unnamed binary columns, text columns, group
keys with nulls and separators, new output folders, progress on CSV input, and many
groups, each equal to its rows alone."""

import io
import re

import numpy as np
import pytest

import skcalib.metrics as M
from skcalib.report._progress import Progress
from skcalib.report._stream import stream_report

from .test_cli import assert_one_line_error, run

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _binary(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.integers(0, 65, n) / 64  # dyadic: sums are exact in any order
    y = (rng.random(n) < p).astype(np.int64)
    return y, p


def _csv(path, header, columns):
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(header) + "\n")
        for row in zip(*columns, strict=True):
            f.write(",".join("" if v is None else str(v) for v in row) + "\n")
    return str(path)


@pytest.mark.parametrize("name", ["score", "p"])
def test_unnamed_binary_column_with_proba_cols(tmp_path, name):
    y, p = _binary()
    src = _csv(tmp_path / "b.csv", ["y", name], [y, p.tolist()])
    rc, out, err = run(["report", src])
    # the message suggests --proba-cols, and the suggestion works
    assert_one_line_error(rc, out, err, "does not name a class", f"--proba-cols {name}")
    rc, out, err = run(["report", src, "--proba-cols", name])
    assert rc == 0, err
    assert "binary: calibration of P(class 1)" in out
    report = stream_report(src, proba_cols=[name])
    ece = M.expected_calibration_error(y, p)  # skcalib's own batch metric, pos_label=1
    assert report.values["model"]["expected_calibration_error"] == pytest.approx(ece, rel=1e-12)
    # labels other than 0/1 or -1/1: the column must be named after the positive class
    src = _csv(tmp_path / "c.csv", ["y", name], [y + 1, p.tolist()])
    rc, out, err = run(["report", src, "--proba-cols", name])
    assert_one_line_error(rc, out, err, f"probability column {name!r} does not name a class")
    assert f"--proba-cols {name};" not in err


def test_text_column_is_never_a_probability_column(tmp_path):
    y, p = _binary(300, seed=1)
    day = np.array(["mon", "tue", "wed"])[np.arange(300) % 3]
    src_csv = _csv(tmp_path / "d.csv", ["y", "1", "day"], [y, p.tolist(), day])
    src_pq = tmp_path / "d.parquet"
    pq.write_table(pa.table({"y": y, "1": p, "day": day}), src_pq)
    outs = []
    for src in (src_csv, str(src_pq)):
        rc, out, err = run(["report", src])
        assert rc == 0, err
        outs.append(out.split("\n", 1)[1])  # the table, below the title line
    assert outs[0] == outs[1]
    messages = []
    for src in (src_csv, str(src_pq)):
        rc, out, err = run(["report", src, "--proba-cols", "1,day"])
        assert_one_line_error(rc, out, err, "probability column 'day' is not numeric")
        messages.append(err)
    assert "'mon' at line 2" in messages[0] and "(type string)" in messages[1]


def test_group_keys_are_values(tmp_path):
    """A null is its own group (not the text "None" or "null"); two columns make a tuple,
    whose row names cannot collide however the values hold ", " or "="."""
    n = 8
    y, p = _binary(n * 50, seed=2)
    a = ["x, b=y", "x", None, "None", "null", "x", "x, b=y", None] * 50
    b = ["z", "y, z", "z", "z", "z", "y, z", "z", "q"] * 50
    path = tmp_path / "g.parquet"
    pq.write_table(pa.table({"y": y, "1": p, "a": a, "b": b}), path)
    report = stream_report(path, by=["a", "b"])
    keys = [report.groups[m] for m in report.models]
    want = sorted({(u, v) for u, v in zip(a, b, strict=True)}, key=lambda k: (k[0] is None, k))
    assert keys == [*want, None]  # sorted by key, nulls last, then the overall row
    assert len(set(report.models)) == len(report.models)
    assert report.models[-1] == "overall" and report.n_samples["overall"] == n * 50
    assert "a='x, b=y', b=z" in report.models and "a=x, b='y, z'" in report.models
    assert "a=null, b=z" in report.models and "a=None, b=z" in report.models
    assert "a='null', b=z" in report.models
    A, B = np.array(a, dtype=object), np.array(b, dtype=object)
    for m, key in zip(report.models, keys, strict=True):
        if key is None:
            continue
        rows = np.array([u == key[0] for u in A]) & (B == key[1])
        assert report.n_samples[m] == rows.sum()
        ece = M.expected_calibration_error(y[rows], p[rows], labels=[0, 1])
        assert report.values[m]["expected_calibration_error"] == pytest.approx(ece, rel=1e-12)
    # a null cell of a CSV file is a null group too
    src = _csv(tmp_path / "g.csv", ["y", "1", "a"], [y[:6], p[:6].tolist(), [None, "u"] * 3])
    rc, out, err = run(["report", src, "--by", "a"])
    assert rc == 0, err
    assert re.search(r"^a=u +3 ", out, re.M) and re.search(r"^a=null +3 ", out, re.M)
    assert re.search(r"^overall +6 ", out, re.M)


def test_html_creates_its_folder(tmp_path):
    pytest.importorskip("matplotlib")
    y, p = _binary(100, seed=4)
    src = tmp_path / "h.parquet"  # streamed: a page without the resampled sections
    pq.write_table(pa.table({"y": y, "1": p}), src)
    page = tmp_path / "new" / "deeper" / "r.html"
    rc, out, err = run(["report", str(src), "--html", str(page)])
    assert rc == 0, err
    assert page.exists() and page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


class _TTY(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_csv_input(tmp_path, monkeypatch):
    import skcalib.report._cli as cli

    y, p = _binary(500, seed=5)
    src = _csv(tmp_path / "p.csv", ["y", "1"], [y, p.tolist()])
    stream = _TTY()
    monkeypatch.setattr(
        cli, "Progress", lambda **kw: Progress(stream=stream, delay=0.0, interval=0.0, **kw)
    )
    rc, out, err = run(["report", src])
    assert rc == 0, err
    lines = stream.getvalue().split("\r")[1:]
    assert lines[-1].startswith("skcalib report: 500 rows, ") and lines[-1].endswith("\n")


def test_accumulate_dataframe_takes_a_list_of_one_column():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("dask.dataframe")
    from skcalib.dask import accumulate_dataframe

    y, p = _binary(200, seed=6)
    df = pd.DataFrame({"y": y, "1": p})
    one = accumulate_dataframe(df, label_col="y", proba_cols=["1"], n_bins=5)
    name = accumulate_dataframe(df, label_col="y", proba_cols="1", n_bins=5)
    assert one.to_dict() == name.to_dict()
    assert one.compute()["expected_calibration_error"] == pytest.approx(
        M.expected_calibration_error(y, p, n_bins=5), rel=1e-12
    )


def test_groups_equal_their_rows_alone(tmp_path):
    """Each group's statistics, added at the cells its rows occupy, are those of the
    group's rows read alone; the overall row is that of every row."""
    y, p = _binary(900, seed=7)
    g = np.random.default_rng(7).integers(0, 10, 900)
    path = tmp_path / "b.parquet"
    pq.write_table(pa.table({"y": y, "1": p, "g": g}), path)
    one = stream_report(path, by=["g"], proba_cols=["1"])
    assert len(one.models) == 11
    for code in (0, 3, 9):
        alone = tmp_path / f"g{code}.parquet"
        m = g == code
        pq.write_table(pa.table({"y": y[m], "1": p[m]}), alone)
        want = stream_report(alone, proba_cols=["1"])._accumulators["model"].compute()
        got = one._accumulators[f"g={code}"].compute()
        assert got.keys() == want.keys()
        for name in want:
            assert got[name] == pytest.approx(want[name], rel=1e-12, abs=1e-15), name
    want = stream_report(path, proba_cols=["1"])._accumulators["model"].compute()
    got = one._accumulators["overall"].compute()
    for name in want:
        assert got[name] == pytest.approx(want[name], rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_csv_dialects(tmp_path, sep):
    """A byte-order mark, quoted headers and cells, CRLF line ends, blank lines and the
    index column pandas writes: the numbers of the plain file."""
    y, p = _binary(200, seed=8)
    plain = _csv(tmp_path / "plain.csv", ["y", "1"], [y, p.tolist()])
    rows = [f'{i}{sep}"{t}"{sep}{v!r}' for i, (t, v) in enumerate(zip(y, p.tolist(), strict=True))]
    text = "\ufeff" + f'{sep}"y"{sep}" 1"\r\n' + "\r\n".join(rows[:50]) + "\r\n\r\n"
    text += "\r\n".join(rows[50:]) + "\r\n"
    (tmp_path / "odd.csv").write_bytes(text.encode("utf-8"))
    want = stream_report(plain).values["model"]
    got = stream_report(tmp_path / "odd.csv").values["model"]
    assert got == want
