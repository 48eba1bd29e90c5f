"""Streamed reports of Parquet files, directories and globs."""

import io
import re
import tracemalloc

import numpy as np
import pytest

import skcalib.metrics as M
from skcalib.report import calibration_report
from skcalib.report._progress import Progress
from skcalib.report._stream import stream_report
from skcalib.streaming import CalibrationAccumulator

from .test_cli import assert_one_line_error, read_csv_rows, run

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

NAMES = np.array(["ant", "bee", "cat"])
FIXED = [
    "accuracy",
    "expected_calibration_error",
    "max_calibration_error",
    "static_calibration_error",
    "brier_score",
]


def dyadic_predictions(n, seed=0, k=3):
    """Probabilities that are multiples of 1/256 (rows summing to exactly 1): every sum
    of them (and of their squares) is exact in float64, whatever the order of the
    additions, so the streamed numbers must equal the in-memory ones exactly."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, 257, size=(n, k - 1)), axis=1)
    counts = np.diff(np.concatenate([np.zeros((n, 1)), cuts, np.full((n, 1), 256)], axis=1))
    P = counts / 256.0
    y = (P.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(0, k - 1)
    return y, P


def write_parquet(path, y, P, *, names=NAMES, row_group_size=None, extra=None, dtype=None):
    cols = {"y": pa.array(names[y].tolist() if names is not None else y)}
    for j in range(P.shape[1]):
        col = P[:, j] if dtype is None else P[:, j].astype(dtype)
        cols[str(names[j]) if names is not None else str(j)] = pa.array(col)
    for key, values in (extra or {}).items():
        cols[key] = pa.array(values)
    pq.write_table(pa.table(cols), path, row_group_size=row_group_size)
    return str(path)


@pytest.mark.parametrize("row_group_size", [None, 1000, 77])
def test_streamed_fixed_bin_numbers_equal_the_in_memory_report(tmp_path, row_group_size):
    y, P = dyadic_predictions(5000)
    path = write_parquet(tmp_path / "p.parquet", y, P, row_group_size=row_group_size)
    streamed = stream_report(path, n_bins=10)
    memory = calibration_report(NAMES[y], P, n_bins=10, labels=NAMES)
    s, m = streamed.values["model"], memory.values["model"]
    for key in FIXED:
        assert s[key] == m[key], key
    assert s["negative_log_likelihood"] == pytest.approx(m["negative_log_likelihood"], rel=1e-12)
    # equal-mass bins: edges on the accumulator's fine histogram, whose cells are narrower
    # than the gaps between the 257 values k / 256: the edges are the in-memory ones
    # (measured: equal to the last bit for seeds 0-7 and each row group size here; the
    # bound leaves room for the order of the additions)
    assert s["root_mean_squared_calibration_error"] == pytest.approx(
        m["root_mean_squared_calibration_error"], rel=1e-12
    )
    cs, cm = streamed.curves["model"], memory.curves["model"]
    np.testing.assert_array_equal(cs.bin_count, cm.bin_count)
    np.testing.assert_array_equal(cs.prob_true, cm.prob_true)
    np.testing.assert_array_equal(cs.prob_pred, cm.prob_pred)
    assert streamed.classes["model"].tolist() == ["ant", "bee", "cat"]
    assert streamed.n_samples["model"] == 5000


def test_random_float32_probabilities_agree_to_rounding(tmp_path):
    rng = np.random.default_rng(1)
    p = rng.random(20000).astype(np.float32)
    y = (rng.random(20000) < p).astype(np.int8)
    pq.write_table(pa.table({"y": y, "1": p}), tmp_path / "b.parquet", row_group_size=3000)
    streamed = stream_report(str(tmp_path / "b.parquet")).values["model"]
    for key, func in (
        ("expected_calibration_error", M.expected_calibration_error),
        ("max_calibration_error", M.max_calibration_error),
        ("brier_score", M.brier_score),
        ("negative_log_likelihood", M.negative_log_likelihood),
    ):
        assert streamed[key] == pytest.approx(func(y, p), rel=1e-9), key


def test_directory_and_glob_equal_one_file(tmp_path):
    y, P = dyadic_predictions(3000, seed=2)
    one = write_parquet(tmp_path / "all.parquet", y, P)
    (tmp_path / "parts").mkdir()
    for i, rows in enumerate(np.array_split(np.arange(3000), 4)):
        write_parquet(tmp_path / "parts" / f"part-{i}.parquet", y[rows], P[rows])
    (tmp_path / "parts" / "_SUCCESS").write_text("")  # not a Parquet file: ignored
    ref = stream_report(one).values["model"]
    for src in (tmp_path / "parts", str(tmp_path / "parts" / "part-*.parquet")):
        got = stream_report(src)
        for key in FIXED:
            assert got.values["model"][key] == ref[key], (src, key)
        assert got.n_samples["model"] == 3000


def test_cli_streams_a_directory(tmp_path):
    y, P = dyadic_predictions(600, seed=3)
    (tmp_path / "d").mkdir()
    for i, rows in enumerate(np.array_split(np.arange(600), 3)):
        write_parquet(tmp_path / "d" / f"{i}.parquet", y[rows], P[rows])
    rc, out, err = run(["report", str(tmp_path / "d"), "--out", str(tmp_path / "o")])
    assert rc == 0, err
    assert out.startswith("d: 600 samples, 3 classes [ant, bee, cat]; top-label calibration")
    assert "(streamed: edges on a fine histogram)" in out
    (row,) = read_csv_rows(tmp_path / "o" / "calibration_report.csv")
    ref = M.expected_calibration_error(NAMES[y], P, labels=NAMES)
    assert float(row["expected_calibration_error"]) == ref


def test_by_and_model_columns(tmp_path):
    y, P = dyadic_predictions(2000, seed=4)
    region = np.where(np.arange(2000) % 3 == 0, "EU", "US")
    model = np.where(np.arange(2000) % 2 == 0, "A", "B")
    path = write_parquet(
        tmp_path / "g.parquet",
        y,
        P,
        row_group_size=300,
        extra={"region": region.tolist(), "model": model.tolist()},
    )
    report = stream_report(path, model_col="model", by=["region"])
    # groups sorted by key, then the overall row of each model
    groups = ["region=EU, A", "region=EU, B", "region=US, A", "region=US, B"]
    assert report.models == [*groups, "A", "B"]
    assert report.groups["region=US, A"] == ("US", "A") and report.groups["A"] is None
    for name in report.models:
        r, m = name.split(", ") if ", " in name else ("region=" + "|".join(region), name)
        rows = np.isin(region, r.split("=")[1].split("|")) & (model == m)
        assert report.n_samples[name] == rows.sum()
        ref = calibration_report(NAMES[y[rows]], P[rows], labels=NAMES).values["model"]
        for key in FIXED:
            assert report.values[name][key] == ref[key], (name, key)
    # the in-memory CSV path groups the same way
    import csv

    with open(tmp_path / "g.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["region", "model", "y", *NAMES])
        for i in range(2000):
            w.writerow([region[i], model[i], NAMES[y[i]], *map(repr, P[i].tolist())])
    rc, out, err = run(
        ["report", str(tmp_path / "g.csv"), "--model-col", "model", "--by", "region"]
    )
    assert rc == 0, err
    for name in report.models:
        assert re.search(rf"^{name} +{report.n_samples[name]} ", out, re.M), name


def test_binary_single_column_int8_labels_and_labels_option(tmp_path):
    rng = np.random.default_rng(5)
    p = (rng.integers(0, 1025, 4000) / 1024).astype(np.float32)
    y = (rng.random(4000) < p).astype(np.int8)
    pq.write_table(pa.table({"y": y, "1": p}), tmp_path / "b.parquet", row_group_size=500)
    for labels in (None, ["0", "1"]):
        report = stream_report(str(tmp_path / "b.parquet"), labels=labels)
        assert report.positive_class["model"] == 1
        got = report.values["model"]
        assert got["expected_calibration_error"] == M.expected_calibration_error(y, p)
        assert got["brier_score"] == M.brier_score(y, p)


def test_labels_option_rejects_an_unlisted_label(tmp_path):
    y, P = dyadic_predictions(100, seed=6)
    path = write_parquet(tmp_path / "p.parquet", y, P, names=None)
    rc, out, err = run(["report", path, "--labels", "0,1"])
    assert_one_line_error(
        rc, out, err, "label 2 at row ", "is not among the classes 0, 1 (given with --labels)"
    )
    # labels that are all listed but one value missing from a row group
    rc, out, err = run(["report", path, "--labels", "0,1,2", "--proba-cols", "0,1,2"])
    assert rc == 0, err


def test_pandas_index_columns_are_not_probabilities(tmp_path):
    pd = pytest.importorskip("pandas")
    y, P = dyadic_predictions(200, seed=7)
    df = pd.DataFrame(P, columns=list(NAMES), index=np.arange(1000, 1200))
    df.insert(0, "y", NAMES[y])
    df.to_parquet(tmp_path / "i.parquet")  # stores the index as __index_level_0__
    report = stream_report(str(tmp_path / "i.parquet"))
    assert report.classes["model"].tolist() == list(NAMES)


def test_id_column_named_in_the_error(tmp_path):
    y, P = dyadic_predictions(300, seed=8)
    path = write_parquet(tmp_path / "id.parquet", y, P, extra={"id": np.arange(300)})
    rc, out, err = run(["report", path])
    assert_one_line_error(
        rc,
        out,
        err,
        "probability column 'id' has 2.0 at row 2 of id.parquet, outside [0, 1]",
        "--proba-cols (e.g. --proba-cols ant,bee,cat)",
    )


def test_bad_row_is_located_in_its_file(tmp_path):
    y, P = dyadic_predictions(1000, seed=9)
    P[700] = [0.5, 0.5, 0.5]
    (tmp_path / "d").mkdir()
    write_parquet(tmp_path / "d" / "a.parquet", y[:400], P[:400])
    write_parquet(tmp_path / "d" / "b.parquet", y[400:], P[400:], row_group_size=100)
    rc, out, err = run(["report", str(tmp_path / "d")])
    assert_one_line_error(rc, out, err, "row 300 sums to 1.5", "(rows of b.parquet)")


def test_first_bad_batch_in_file_order_raises(tmp_path):
    """Of several bad batches, the error names the first one in the file, however the
    batches are computed."""
    y, P = dyadic_predictions(2000, seed=9)
    for row in (1300, 1900, 650):
        P[row] = [0.5, 0.5, 0.5]
    path = write_parquet(tmp_path / "b.parquet", y, P, row_group_size=50)
    rc, out, err = run(["report", path])
    assert_one_line_error(rc, out, err, "row 650 sums to 1.5", "(rows of b.parquet)")


def test_batches_accumulate_as_a_loop_of_updates(tmp_path):
    """The statistics of a streamed file equal, to the last bit, those of a loop that
    updates one accumulator with the batches of the reader in file order."""
    from skcalib.report._io import BATCH_ROWS, open_table
    from skcalib.streaming import CalibrationAccumulator

    rng = np.random.default_rng(3)
    n = 2 * BATCH_ROWS + 12345
    p = rng.random(n, dtype=np.float32)
    y = (rng.random(n) < p).astype(np.int8)
    path = tmp_path / "b.parquet"
    pq.write_table(pa.table({"y": y, "1": p}), path, row_group_size=BATCH_ROWS + BATCH_ROWS // 2)
    report = stream_report(path)
    expected = CalibrationAccumulator(labels=[0, 1], pos_label=1)
    batches = [b for b, _ in open_table(path).batches(["y", "1"])]
    for batch in batches:
        expected.update(batch.column("y").to_numpy(), batch.column("1").to_numpy())
    assert sum(b.num_rows for b in batches) == n and len(batches) >= 2
    assert report._accumulators["model"].to_dict() == expected.to_dict()


@pytest.mark.parametrize(
    "make, fragment",
    [
        (lambda d: None, "is a directory without .parquet or .csv files"),
        (lambda d: str(d / "nothing-*.parquet"), "no file matches the glob"),
        (lambda d: (d / "x.parquet").write_bytes(b"PAR1 nope") and None, "not a readable"),
    ],
)
def test_bad_datasets(tmp_path, make, fragment):
    src = make(tmp_path) or str(tmp_path)
    rc, out, err = run(["report", src])
    assert_one_line_error(rc, out, err, fragment)


def test_string_probability_column_is_rejected(tmp_path):
    pq.write_table(pa.table({"y": [0, 1], "0": ["a", "b"], "1": [0.5, 0.5]}), tmp_path / "s.pq")
    rc, out, err = run(["report", str(tmp_path / "s.pq"), "--proba-cols", "0,1"])
    assert_one_line_error(rc, out, err, "probability column '0' is not numeric (type string)")


def test_memory_is_bounded_independently_of_the_number_of_row_groups(tmp_path, monkeypatch):
    """Peak numpy memory (tracemalloc) and arrow memory (sampled at every batch) of the
    streamed report of 4 and of 32 row groups of the same size: the same, not 8 times
    more, and far below the size of the data."""
    from skcalib.report._io import Table

    real = Table.batches
    arrow_peak = [0]

    def sampled(*args, **kwargs):
        for item in real(*args, **kwargs):
            arrow_peak[0] = max(arrow_peak[0], pa.total_allocated_bytes())
            yield item

    monkeypatch.setattr(Table, "batches", sampled)
    peaks = []
    for n_groups in (4, 32):
        y, P = dyadic_predictions(20000 * n_groups, seed=10)
        path = write_parquet(
            tmp_path / f"m{n_groups}.parquet", y, P, row_group_size=20000, dtype=np.float32
        )
        arrow_peak[0] = 0
        tracemalloc.start()
        report = stream_report(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert report.n_samples["model"] == 20000 * n_groups
        peaks.append((peak, arrow_peak[0]))
    (np_small, pa_small), (np_big, pa_big) = peaks
    assert np_big < 1.3 * np_small + 2**20, peaks
    assert pa_big < 1.3 * pa_small + 2**20, peaks
    # far below what the 32 row groups hold (32 x 20000 x 3 float32 = 7.7 MB)
    assert max(np_big, pa_big) < 32 * 20000 * 3 * 4 / 2, peaks


def test_hive_partitions_are_columns(tmp_path):
    y, P = dyadic_predictions(900, seed=12)
    for i, region in enumerate(["EU", "US", "ASIA"]):
        d = tmp_path / "ds" / f"region={region}"
        d.mkdir(parents=True)
        rows = slice(300 * i, 300 * (i + 1))
        write_parquet(d / "part.parquet", y[rows], P[rows])
    report = stream_report(tmp_path / "ds", by=["region"])
    assert report.models == ["region=ASIA", "region=EU", "region=US", "overall"]
    for i, region in enumerate(["EU", "US", "ASIA"]):
        rows = slice(300 * i, 300 * (i + 1))
        ref = calibration_report(NAMES[y[rows]], P[rows], labels=NAMES).values["model"]
        got = report.values[f"region={region}"]
        assert got["expected_calibration_error"] == ref["expected_calibration_error"]


# ------------------------------------------------------------------------ progress
class FakeTTY(io.StringIO):
    def isatty(self):
        return True


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_progress_drawn_on_a_terminal_after_the_delay():
    clock = FakeClock()
    stream = FakeTTY()
    p = Progress(total=4_000_000, stream=stream, clock=clock)
    p.update(1_000_000)
    clock.now += 1.0
    p.update(1_000_000)
    assert stream.getvalue() == ""  # under 2 s: quiet
    clock.now += 1.5
    p.update(1_000_000)
    assert stream.getvalue() == "\rskcalib report: 3,000,000 rows of 4,000,000 (75%), 1.2M rows/s"
    clock.now += 0.05
    p.update(500_000)  # redrawn at most every 0.2 s
    assert stream.getvalue().count("\r") == 1
    clock.now += 0.45
    p.update(500_000).close()
    assert stream.getvalue().endswith("4,000,000 rows of 4,000,000 (100%), 1.3M rows/s\n")


def test_progress_quiet_when_not_a_terminal():
    clock = FakeClock()
    stream = io.StringIO()
    p = Progress(total=10, stream=stream, clock=clock)
    clock.now += 60
    p.update(10).close()
    assert stream.getvalue() == ""


def test_progress_quiet_for_a_short_run():
    clock = FakeClock()
    stream = FakeTTY()
    p = Progress(stream=stream, clock=clock)
    clock.now += 1.9
    p.update(10).close()
    assert stream.getvalue() == ""


def test_cli_progress_goes_to_a_terminal_stderr_only(tmp_path, monkeypatch):
    import skcalib.report._cli as cli

    y, P = dyadic_predictions(1000, seed=11)
    path = write_parquet(tmp_path / "p.parquet", y, P, row_group_size=100)
    stream = FakeTTY()
    monkeypatch.setattr(
        cli, "Progress", lambda **kw: Progress(stream=stream, delay=0.0, interval=0.0, **kw)
    )
    rc, out, err = run(["report", path])
    assert rc == 0, err
    assert err == ""
    lines = stream.getvalue().split("\r")[1:]
    assert len(lines) == 11  # one per batch of 100 rows, then the final count
    assert lines[0].startswith("skcalib report: 100 rows of 1,000 (10%), ")
    assert lines[-1].startswith("skcalib report: 1,000 rows of 1,000 (100%), ")
    # the final line ends the progress line; a shorter redraw is padded with spaces to
    # cover the previous text, whose length depends on the measured rate
    assert lines[-1].endswith("\n")
    assert lines[-1].rstrip("\n").rstrip(" ").endswith("rows/s")


# ------------------------------------------------------------------- labels, one pass
def _binary_file(path, y, p, label_type):
    table = pa.table({"y": pa.array(y, type=label_type), "1": pa.array(p, type=pa.float32())})
    pq.write_table(table, path, row_group_size=700)
    return str(path)


@pytest.mark.parametrize("label_type", [pa.int8(), pa.uint8(), pa.int64(), pa.string()])
def test_binary_labels_are_read_in_one_pass(tmp_path, monkeypatch, label_type):
    from skcalib.report._io import Table

    rng = np.random.default_rng(3)
    p = rng.random(5000).astype(np.float32)
    y = (rng.random(5000) < p).astype(np.int64)
    labels = y.astype(str) if label_type == pa.string() else y
    path = _binary_file(tmp_path / "b.parquet", labels, p, label_type)
    calls = []
    real = Table.batches
    monkeypatch.setattr(Table, "batches", lambda *a, **k: calls.append(1) or real(*a, **k))
    got = stream_report(path)
    assert calls == [1]  # one pass over the file
    ref = CalibrationAccumulator(labels=[0, 1], pos_label=1).update(y, p).compute()
    assert got.n_samples["model"] == 5000
    for key in FIXED:
        if key in ref:
            assert got.values["model"][key] == pytest.approx(ref[key], rel=1e-12), key
    assert got.classes["model"].tolist() == ([0, 1] if label_type != pa.string() else ["0", "1"])
    assert got.positive_class == {"model": 1 if label_type != pa.string() else "1"}


@pytest.mark.parametrize("labels", ["ones", "minus_one", "late_two", "late_zero"])
def test_binary_stream_whose_first_batch_has_one_class(tmp_path, labels):
    """The classes of a single probability column are found as the batches come: a first
    batch of one class never decides them (no message about --labels)."""
    rng = np.random.default_rng(4)
    p = rng.random(3000).astype(np.float32)
    y = (rng.random(3000) < p).astype(np.int64)
    if labels == "ones":
        y[:] = 1
    elif labels == "minus_one":
        y[y == 0] = -1
    elif labels == "late_zero":
        y[:2000] = 1  # the first row groups hold the positive class only
    else:
        y[-1] = 2
    path = _binary_file(tmp_path / "b.parquet", y, p, pa.int32())
    if labels == "late_two":
        with pytest.raises(Exception, match="column 'y' has 3 labels") as info:
            stream_report(path)
        assert "--labels" not in str(info.value)
        return
    got = stream_report(path)
    classes = {"ones": [0, 1], "minus_one": [-1, 1], "late_zero": [0, 1]}[labels]
    assert got.classes["model"].tolist() == classes and got.positive_class == {"model": 1}
    ref = M.expected_calibration_error(y, p, labels=classes, pos_label=1)
    assert got.values["model"]["expected_calibration_error"] == pytest.approx(ref, rel=1e-12)
