"""skcalib.dask on a real two-process LocalCluster: Dask's tree reductions of the core's
statistics give the batch metrics' numbers (to 1e-12), for any chunking, weights, binary
and multiclass predictions, classes found in the same pass, and per-group (``by=``)
calibration; bad inputs raise clear ValueErrors."""

import subprocess
import sys

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from skcalib.dask import accumulate, accumulate_dataframe  # noqa: E402
from skcalib.metrics import (  # noqa: E402
    brier_score,
    expected_calibration_error,
    max_calibration_error,
    negative_log_likelihood,
    reliability_curve,
    static_calibration_error,
)
from skcalib.streaming import CalibrationAccumulator  # noqa: E402

RTOL = 1e-12


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(
        n_workers=2,
        processes=True,
        threads_per_worker=1,
        dashboard_address=None,
        worker_dashboard_address=None,
    ) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def _case(kind, n, rng):
    if kind == "binary_1d":
        p = rng.random(n)
        p[: n // 10] = rng.integers(0, 16, n // 10) / 15  # values on bin edges
        return (rng.random(n) < p).astype(int), p, None
    k = 2 if kind == "binary_2d" else 4
    P = rng.dirichlet(np.ones(k) * 0.5, size=n)
    cum = P.cumsum(axis=1)
    y = (rng.random((n, 1)) > cum).sum(axis=1).clip(0, k - 1)
    return y, P, np.arange(k)


def _batch(y, P, w, labels):
    kw = {"sample_weight": w, "labels": labels}
    out = {
        "expected_calibration_error": expected_calibration_error(y, P, **kw),
        "max_calibration_error": max_calibration_error(y, P, **kw),
        "brier_score": brier_score(y, P, **kw),
        "negative_log_likelihood": negative_log_likelihood(y, P, **kw),
    }
    if P.ndim == 2 and P.shape[1] > 2:
        out["static_calibration_error"] = static_calibration_error(y, P, **kw)
    return out


def _assert_equals_batch(acc, y, P, w, labels):
    got = acc.compute()
    for key, value in _batch(y, P, w, labels).items():
        assert_allclose(got[key], value, rtol=RTOL, atol=1e-15, err_msg=key)
    assert got["n_samples"] == len(y)
    # the equal-mass number equals one accumulator fed every row at once
    one = CalibrationAccumulator(labels=labels).update(y, P, sample_weight=w).compute()
    for key in got:
        assert_allclose(got[key], one[key], rtol=RTOL, atol=1e-15, err_msg=key)
    curve = acc.reliability_curve()
    want = reliability_curve(y, P, sample_weight=w, labels=labels)
    for key in ("prob_true", "prob_pred", "bin_count", "bin_edges"):
        assert_allclose(getattr(curve, key), getattr(want, key), rtol=RTOL, atol=1e-15, err_msg=key)


# row chunks of unequal sizes (with a one-row chunk), and different for y_true and weights
ROW_CHUNKS = (700, 1, 1300, 450, 549)
OTHER_CHUNKS = (1000, 1000, 1000)


@pytest.mark.parametrize("kind", ["binary_1d", "binary_2d", "multiclass"])
@pytest.mark.parametrize("weighted", [False, True])
def test_array_tree_reduction_equals_batch(client, kind, weighted):
    rng = np.random.default_rng(0)
    n = sum(ROW_CHUNKS)
    y, P, labels = _case(kind, n, rng)
    w = rng.random(n) * 3 if weighted else None
    Pd = da.from_array(P, chunks=(ROW_CHUNKS,) + ((P.shape[1],) if P.ndim == 2 else ()))
    yd = da.from_array(y, chunks=(OTHER_CHUNKS,))
    wd = None if w is None else da.from_array(w, chunks=(OTHER_CHUNKS,))
    params = {} if kind != "multiclass" else {"labels": labels}
    acc = accumulate(yd, Pd, sample_weight=wd, **params)
    assert isinstance(acc, CalibrationAccumulator)
    _assert_equals_batch(acc, y, P, w, labels)
    if kind == "multiclass":
        cw = acc.reliability_curve(multiclass="classwise")
        want = reliability_curve(y, P, labels=labels, sample_weight=w, multiclass="classwise")
        assert_allclose(cw.prob_true, want.prob_true, rtol=RTOL)


def test_many_chunks_make_a_deep_tree(client):
    rng = np.random.default_rng(1)
    y, p, _ = _case("binary_1d", 2000, rng)
    # 30 chunks: two levels of merges of fan-in 8
    acc = accumulate(da.from_array(y, chunks=101), da.from_array(p, chunks=67), n_bins=7)
    assert acc.n_bins == 7
    _assert_equals_batch_binned(acc, y, p, n_bins=7)


def _assert_equals_batch_binned(acc, y, p, n_bins):
    got = acc.compute()
    assert_allclose(
        got["expected_calibration_error"],
        expected_calibration_error(y, p, n_bins=n_bins),
        rtol=RTOL,
    )
    assert_array_equal(
        acc.reliability_curve().bin_count, reliability_curve(y, p, n_bins=n_bins).bin_count
    )


def test_numpy_inputs_are_wrapped(client):
    rng = np.random.default_rng(2)
    y, P, labels = _case("multiclass", 500, rng)
    acc = accumulate(y, P, labels=labels)
    _assert_equals_batch(acc, y, P, None, labels)
    # a NumPy y_true follows the chunks of a Dask y_proba
    acc = accumulate(y, da.from_array(P, chunks=(120, 4)), labels=labels)
    _assert_equals_batch(acc, y, P, None, labels)


def test_binary_chunks_with_one_class_share_the_classes(client):
    # every chunk holds one class only: the classes come from all the rows
    y = np.array(["no"] * 50 + ["yes"] * 50)
    P = np.column_stack([np.linspace(0.9, 0.1, 100), np.linspace(0.1, 0.9, 100)])
    acc = accumulate(da.from_array(y, chunks=50), da.from_array(P, chunks=(50, 2)))
    assert list(acc.classes_) == ["no", "yes"]
    _assert_equals_batch(acc, y, P, None, None)


def test_generated_on_the_workers(client):
    rng = da.random.default_rng(3)
    p = rng.random(30_000, chunks=7_000)
    y = (rng.random(30_000, chunks=7_000) < p).astype(np.int8)
    acc = accumulate(y, p, labels=[0, 1])
    y_np, p_np = da.compute(y, p)
    _assert_equals_batch(acc, y_np, p_np, None, [0, 1])


def test_array_errors(client):
    y = da.zeros(100, chunks=50, dtype=int)
    P = da.full((100, 3), 1 / 3, chunks=(50, 2))
    with pytest.raises(ValueError, match=r"y_proba is split along the class axis.*rechunk"):
        accumulate(y, P, labels=[0, 1, 2])
    P = P.rechunk({1: -1})
    with pytest.raises(ValueError, match="labels is required for 3 classes"):
        accumulate(y, P)
    with pytest.raises(ValueError, match="labels has 2 classes but there are 3"):
        accumulate(y, P, labels=[0, 1])
    with pytest.raises(ValueError, match="y_true has 99 rows, expected 100"):
        accumulate(y[:99], P, labels=[0, 1, 2])
    with pytest.raises(ValueError, match="unknown accumulator parameter 'bins'"):
        accumulate(y, P, bins=3)
    with pytest.raises(ValueError, match="n_bins"):
        accumulate(y, P, labels=[0, 1, 2], n_bins=0)
    # unknown chunk sizes (e.g. from a DataFrame) cannot be rechunked
    y_unknown = y[y >= 0]
    P20 = P.rechunk({0: 20})
    P_unknown = P20[P20[:, 0] >= 0]
    with pytest.raises(ValueError, match=r"y_true has 2 row chunks and y_proba has 5"):
        accumulate(y_unknown, P_unknown, labels=[0, 1, 2])
    with pytest.raises(ValueError, match="sample_weight is a Series"):
        accumulate(y, P, sample_weight=dd.from_pandas(pd.Series(np.ones(100)), npartitions=2))
    with pytest.raises(ValueError, match="y_proba must be 1-D or 2-D"):
        accumulate(y, da.zeros((100, 2, 2), chunks=50), labels=[0, 1])
    # a bad chunk is reported by its worker's validation
    bad = da.from_array(np.full(100, 1.5), chunks=50)
    with pytest.raises(ValueError, match="y_proba"):
        accumulate(y, bad, labels=[0, 1])


def test_unknown_chunks_with_equal_counts_are_accepted(client):
    rng = np.random.default_rng(4)
    y, p, _ = _case("binary_1d", 400, rng)
    yd, pd_ = da.from_array(y, chunks=100), da.from_array(p, chunks=100)
    keep = pd_ >= 0
    acc = accumulate(yd[keep], pd_[keep])
    _assert_equals_batch(acc, y, p, None, None)


# --------------------------------------------------------------------------------------
# classes found in the same pass
# --------------------------------------------------------------------------------------

_BLOCKS_READ = []


def _count_block(block):
    _BLOCKS_READ.append(block.shape[0])
    return block


def test_labels_are_read_once():
    """Without labels the classes come from the pass that computes the statistics: every
    block of y_true is computed once (in-process scheduler, so the calls can be counted)."""
    import dask

    rng = np.random.default_rng(13)
    y, p, _ = _case("binary_1d", 1000, rng)
    y_counted = da.from_array(y, chunks=100).map_blocks(_count_block, meta=np.empty(0, y.dtype))
    _BLOCKS_READ.clear()
    with dask.config.set(scheduler="synchronous"):
        acc = accumulate(y_counted, da.from_array(p, chunks=100))
    assert _BLOCKS_READ == [100] * 10
    _assert_equals_batch(acc, y, p, None, None)


def _binary_batch(y, P, w, pos_label):
    kw = {"sample_weight": w, "pos_label": pos_label}
    return {
        "expected_calibration_error": expected_calibration_error(y, P, **kw),
        "max_calibration_error": max_calibration_error(y, P, **kw),
        "brier_score": brier_score(y, P, **kw),
        "negative_log_likelihood": negative_log_likelihood(y, P, **kw),
    }


@pytest.mark.parametrize(
    "labels, two_columns, pos_label",
    [
        ((-1, 1), False, None),  # 1-D, the negative class -1
        ((0, 1), False, 0),  # 1-D, y_proba is the probability of class 0
        (("no", "yes"), True, None),
        (("no", "yes"), True, "no"),
    ],
)
def test_binary_blocks_of_one_label_find_the_classes(client, labels, two_columns, pos_label):
    """Blocks holding one label keep both of its possible codes until the tree meets the
    other label; ties at 0.5 make the top-label accuracy depend on the code too."""
    rng = np.random.default_rng(14)
    n = 1200
    p = rng.integers(0, 9, n) / 8  # many values at 0.5 and on bin edges
    positive = rng.random(n) < p
    order = np.argsort(positive, kind="stable")  # the labels sorted: one label a block
    p = p[order]
    y = np.where(positive[order], labels[1], labels[0])
    w = rng.random(n)
    P = np.column_stack([1 - p, p]) if two_columns else p
    chunks = (250,) if not two_columns else (250, 2)
    kw = {} if pos_label is None else {"pos_label": pos_label}
    acc = accumulate(
        da.from_array(y, chunks=250), da.from_array(P, chunks=chunks), sample_weight=w, **kw
    )
    assert len(np.unique(y[:250])) == 1 and len(np.unique(y[-250:])) == 1
    assert list(acc.classes_) == sorted(labels)
    got = acc.compute()
    for key, value in _binary_batch(y, P, w, pos_label).items():
        assert_allclose(got[key], value, rtol=RTOL, atol=1e-15, err_msg=key)
    one = CalibrationAccumulator(**kw).update(y, P, sample_weight=w).compute()
    for key in got:
        assert_allclose(got[key], one[key], rtol=RTOL, atol=1e-15, err_msg=key)


def test_one_label_in_all_the_data(client):
    """All the rows have one label: the batch rule places it (1-D: 1 is positive)."""
    p = np.linspace(0.05, 0.95, 400)
    y = np.ones(400, dtype=int)
    acc = accumulate(da.from_array(y, chunks=100), da.from_array(p, chunks=100))
    assert list(acc.classes_) == [0, 1]
    _assert_equals_batch(acc, y, p, None, None)
    y0 = np.zeros(400, dtype=int)
    acc = accumulate(da.from_array(y0, chunks=100), da.from_array(p, chunks=100))
    assert_allclose(acc.compute()["brier_score"], brier_score(y0, p), rtol=RTOL)


@pytest.mark.parametrize(
    "y, two_columns",
    [
        ([0] * 50 + [1] * 50 + [2] * 50 + [1] * 50, True),  # three classes, no block has all
        (["a"] * 100 + [7] * 100, True),  # a mix of strings and numbers
        ([2] * 100 + [3] * 100, False),  # 1-D: not {0, 1} or {-1, 1}, no pos_label
        (["spam"] * 200, True),  # 2-D: one class for two columns
    ],
)
def test_labels_that_are_not_the_classes_raise_the_batch_error(client, y, two_columns):
    y = np.asarray(y, dtype=object if any(isinstance(v, str) for v in y) else None)
    n = len(y)
    p = np.linspace(0.1, 0.9, n)
    P = np.column_stack([1 - p, p]) if two_columns else p
    with pytest.raises(ValueError) as batch:
        brier_score(y, P)
    chunks = (100, 2) if two_columns else 100
    with pytest.raises(ValueError) as streamed:
        accumulate(da.from_array(y, chunks=100), da.from_array(P, chunks=chunks))
    assert str(streamed.value) == str(batch.value)


def test_blocks_of_zero_weight_add_nothing(client):
    rng = np.random.default_rng(15)
    y, P, labels = _case("multiclass", 1000, rng)
    w = rng.random(1000)
    w[200:400] = 0.0  # one whole block
    yd, Pd = da.from_array(y, chunks=200), da.from_array(P, chunks=(200, 4))
    acc = accumulate(yd, Pd, sample_weight=w, labels=labels)
    got = acc.compute()
    assert got["n_samples"] == 800  # as the accumulator: a block of zero weight is a no-op
    for key, value in _batch(y, P, w, labels).items():
        assert_allclose(got[key], value, rtol=RTOL, atol=1e-15, err_msg=key)


def test_partials_travel_small():
    """A block's statistics pickle with the non-empty cells of their fine histogram only."""
    import pickle

    from skcalib.dask._reduce import Problem, block_partial

    rng = np.random.default_rng(16)
    y, p, _ = _case("binary_1d", 300, rng)
    problem = Problem(n_bins=15, labels=np.array([0, 1]), pos_label=None, ndim=1, n_columns=1)
    part = block_partial(problem, y, p)
    data = pickle.dumps(part)
    assert len(data) < 40_000  # the dense fine histogram alone is 262 KB
    back = pickle.loads(data)
    for name in back.stats.summed_fields():
        assert_array_equal(getattr(back.stats, name), getattr(part.stats, name))


# --------------------------------------------------------------------------------------
# DataFrames
# --------------------------------------------------------------------------------------


def _frame(n, rng, k=3):
    y, P, labels = _case("multiclass" if k > 2 else "binary_2d", n, rng)
    if k > 2:
        P = P[:, :k] / P[:, :k].sum(axis=1, keepdims=True)
        y = y.clip(0, k - 1)
    pdf = pd.DataFrame({f"p{j}": P[:, j] for j in range(P.shape[1])})
    pdf["y"] = y
    pdf["w"] = rng.random(n) * 2
    pdf["shop"] = rng.choice(["north", "south", "east"], n, p=[0.6, 0.3, 0.1])
    pdf["day"] = rng.integers(0, 2, n)
    return pdf


def test_dataframe_equals_batch_multiclass_weighted(client):
    rng = np.random.default_rng(5)
    pdf = _frame(3000, rng, k=4)
    df = dd.from_pandas(pdf, npartitions=7)
    cols = ["p0", "p1", "p2", "p3"]
    acc = accumulate_dataframe(
        df, label_col="y", proba_cols=cols, weight_col="w", labels=[0, 1, 2, 3]
    )
    _assert_equals_batch(
        acc, pdf["y"].to_numpy(), pdf[cols].to_numpy(), pdf["w"].to_numpy(), np.arange(4)
    )


def test_dataframe_binary_single_column(client):
    rng = np.random.default_rng(6)
    n = 2500
    y, p, _ = _case("binary_1d", n, rng)
    df = dd.from_pandas(pd.DataFrame({"label": y, "score": p}), npartitions=5)
    acc = accumulate_dataframe(df, label_col="label", proba_cols="score", n_bins=10)
    _assert_equals_batch_binned(acc, y, p, n_bins=10)
    _assert_equals_batch(
        accumulate_dataframe(df, label_col="label", proba_cols="score"), y, p, None, None
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_by_groups_equal_batch_metrics_of_each_group(client, weighted):
    rng = np.random.default_rng(7)
    pdf = _frame(4000, rng, k=3)
    df = dd.from_pandas(pdf, npartitions=6)
    cols = ["p0", "p1", "p2"]
    groups = accumulate_dataframe(
        df,
        label_col="y",
        proba_cols=cols,
        weight_col="w" if weighted else None,
        by="shop",
        labels=[0, 1, 2],
    )
    assert list(groups) == ["east", "north", "south"]  # sorted by key
    for shop, acc in groups.items():
        rows = pdf[pdf["shop"] == shop]
        w = rows["w"].to_numpy() if weighted else None
        _assert_equals_batch(acc, rows["y"].to_numpy(), rows[cols].to_numpy(), w, np.arange(3))


def test_by_groups_held_by_different_partitions(client):
    """Partitions holding different groups (sorted data, a group spanning partitions):
    each codes its own keys, and the merges place them in the sorted union."""
    rng = np.random.default_rng(17)
    pdf = _frame(3000, rng, k=2).sort_values(["shop", "day"], kind="stable")
    pdf = pdf.reset_index(drop=True)
    df = dd.from_pandas(pdf, npartitions=9)
    groups = accumulate_dataframe(
        df, label_col="y", proba_cols=["p0", "p1"], weight_col="w", by="day", n_bins=10
    )
    assert list(groups) == [0, 1]
    groups = accumulate_dataframe(df, label_col="y", proba_cols="p1", by="shop", n_bins=10)
    assert list(groups) == ["east", "north", "south"]
    for shop, acc in groups.items():
        rows = pdf[pdf["shop"] == shop]
        _assert_equals_batch_binned(acc, rows["y"].to_numpy(), rows["p1"].to_numpy(), 10)


def test_null_keys_are_a_group_of_their_own(client):
    rng = np.random.default_rng(18)
    n = 1200
    pdf = _frame(n, rng, k=2)
    pdf["shop"] = pdf["shop"].astype(object)
    pdf.loc[pdf.index % 7 == 0, "shop"] = None
    pdf.loc[pdf.index % 7 == 1, "shop"] = "None"  # a string, not a null
    pdf["day"] = pdf["day"].astype(float)
    pdf.loc[pdf.index % 5 == 0, "day"] = np.nan
    df = dd.from_pandas(pdf, npartitions=4)
    cols = ["p0", "p1"]
    groups = accumulate_dataframe(df, label_col="y", proba_cols=cols, by="shop")
    assert list(groups) == ["None", "east", "north", "south", None]  # nulls last
    masks = {None: pdf["shop"].isna(), "None": pdf["shop"] == "None"}
    for key in (None, "None"):
        rows = pdf[masks[key]]
        acc = groups[key]
        _assert_equals_batch(acc, rows["y"].to_numpy(), rows[cols].to_numpy(), None, None)
        assert acc.n_samples_ == len(rows)
    groups = accumulate_dataframe(df, label_col="y", proba_cols=cols, by=["day", "shop"])
    want = pdf.groupby(["day", "shop"], dropna=False).size()
    keys = [tuple(None if pd.isna(v) else v for v in k) for k in want.index]
    assert set(groups) == set(keys)
    assert list(groups)[-1] == (None, None)
    for key in keys:
        day_rows = pdf["day"].isna() if key[0] is None else pdf["day"] == key[0]
        shop_rows = pdf["shop"].isna() if key[1] is None else pdf["shop"] == key[1]
        assert groups[key].n_samples_ == int((day_rows & shop_rows).sum())


def test_a_group_of_zero_weight_in_a_partition_adds_nothing(client):
    rng = np.random.default_rng(19)
    pdf = _frame(1600, rng, k=3)
    first = pdf.index < 400  # the first partition
    pdf.loc[first & (pdf["shop"] == "north"), "w"] = 0.0
    pdf.loc[pdf["shop"] == "east", "w"] = 0.0  # a group without weight anywhere
    df = dd.from_pandas(pdf, npartitions=4)
    cols = ["p0", "p1", "p2"]
    groups = accumulate_dataframe(
        df, label_col="y", proba_cols=cols, weight_col="w", by="shop", labels=[0, 1, 2]
    )
    assert list(groups) == ["east", "north", "south"]
    assert groups["east"].n_samples_ == 0  # known group, no data
    with pytest.raises(ValueError, match="seen no data"):
        groups["east"].compute()
    for shop in ("north", "south"):
        rows = pdf[pdf["shop"] == shop]
        acc = groups[shop]
        got = acc.compute()
        y, P, w = rows["y"].to_numpy(), rows[cols].to_numpy(), rows["w"].to_numpy()
        want = _batch(y, P, w, np.arange(3))
        for key, value in want.items():
            assert_allclose(got[key], value, rtol=RTOL, atol=1e-15, err_msg=key)
    assert groups["north"].n_samples_ == int(((pdf["shop"] == "north") & ~first).sum())


def test_by_several_columns_gives_tuple_keys(client):
    rng = np.random.default_rng(8)
    pdf = _frame(2000, rng, k=2)
    df = dd.from_pandas(pdf, npartitions=4)
    groups = accumulate_dataframe(df, label_col="y", proba_cols=["p0", "p1"], by=["shop", "day"])
    assert set(groups) == set(pdf.groupby(["shop", "day"]).groups)
    for (shop, day), acc in groups.items():
        rows = pdf[(pdf["shop"] == shop) & (pdf["day"] == day)]
        _assert_equals_batch(
            acc, rows["y"].to_numpy(), rows[["p0", "p1"]].to_numpy(), None, np.arange(2)
        )


def test_dataframe_errors(client):
    pdf = _frame(100, np.random.default_rng(9), k=3)
    df = dd.from_pandas(pdf, npartitions=2)
    ok = {"label_col": "y", "proba_cols": ["p0", "p1", "p2"], "labels": [0, 1, 2]}
    with pytest.raises(ValueError, match=r"label_col='target' is not a column of df; the col"):
        accumulate_dataframe(df, **{**ok, "label_col": "target"})
    with pytest.raises(ValueError, match=r"proba_cols='p9' is not a column of df"):
        accumulate_dataframe(df, **{**ok, "proba_cols": ["p0", "p9", "p2"]})
    with pytest.raises(ValueError, match=r"weight_col='weight' is not a column"):
        accumulate_dataframe(df, **ok, weight_col="weight")
    with pytest.raises(ValueError, match=r"by='region' is not a column"):
        accumulate_dataframe(df, **ok, by="region")
    with pytest.raises(ValueError, match=r"by='y' is also the label column"):
        accumulate_dataframe(df, **ok, by="y")
    with pytest.raises(ValueError, match="proba_cols must be a list of two or more"):
        accumulate_dataframe(df, **{**ok, "proba_cols": []})
    with pytest.raises(ValueError, match="proba_cols names a column twice"):
        accumulate_dataframe(df, **{**ok, "proba_cols": ["p0", "p0", "p1"]})
    with pytest.raises(ValueError, match="labels is required for 3 classes"):
        accumulate_dataframe(df, label_col="y", proba_cols=["p0", "p1", "p2"])
    with pytest.raises(ValueError, match="df must be a Dask DataFrame"):
        accumulate_dataframe(pdf.to_numpy(), **ok)
    with pytest.raises(ValueError, match="by names a column twice"):
        accumulate_dataframe(df, **ok, by=["shop", "shop"])


def test_pandas_frame_is_wrapped():
    pdf = _frame(300, np.random.default_rng(10), k=2)
    with __import__("dask").config.set(scheduler="synchronous"):
        acc = accumulate_dataframe(pdf, label_col="y", proba_cols=["p0", "p1"])
    _assert_equals_batch(acc, pdf["y"].to_numpy(), pdf[["p0", "p1"]].to_numpy(), None, None)


def test_import_skcalib_does_not_import_dask():
    code = (
        "import sys, skcalib, skcalib.metrics, skcalib.streaming, skcalib.report; "
        "assert not [m for m in sys.modules if m == 'dask' or m.startswith('dask.')]"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------------------
# skcalib report --scheduler ADDRESS
# --------------------------------------------------------------------------------------


def _report_cases(tmp_path):
    pytest.importorskip("pyarrow")
    from tests.report.test_stream import dyadic_predictions, write_parquet

    y, P = dyadic_predictions(3000, seed=11)
    idx = np.arange(3000)
    region = np.where(idx % 3 == 0, "EU", "US")
    model = np.where(idx % 2 == 0, "A", "B")
    extra = {"region": region.tolist(), "model": model.tolist()}
    (tmp_path / "parts").mkdir()
    for i, rows in enumerate(np.array_split(idx, 3)):
        write_parquet(
            tmp_path / "parts" / f"part-{i}.parquet",
            y[rows],
            P[rows],
            row_group_size=400,
            extra={k: [v[r] for r in rows] for k, v in extra.items()},
        )
    return str(tmp_path / "parts")


def test_report_on_the_cluster_equals_the_streamed_report(client, tmp_path):
    from skcalib.report._stream import stream_report
    from tests.report.test_cli import read_csv_rows, run
    from tests.report.test_stream import FIXED

    path = _report_cases(tmp_path)
    address = client.scheduler.address
    for options in ({}, {"model_col": "model", "by": ["region"]}):
        argv = ["report", path, "--scheduler", address, "--out", str(tmp_path / "o")]
        argv += ["--proba-cols", "ant,bee,cat"]
        if options:
            argv += ["--model-col", "model", "--by", "region"]
        rc, out, err = run(argv)
        assert rc == 0, err
        ref = stream_report(path, proba_cols=["ant", "bee", "cat"], **options)
        rows = {r["model"]: r for r in read_csv_rows(tmp_path / "o" / "calibration_report.csv")}
        assert set(rows) == set(ref.models)
        if options:
            assert {"region=EU, A", "region=US, B", "region=US, A", "region=EU, B"} <= set(rows)
        for name in ref.models:
            assert int(rows[name]["n_samples"]) == ref.n_samples[name]
            for key in FIXED:
                assert_allclose(float(rows[name][key]), ref.values[name][key], rtol=RTOL)
        assert out.splitlines()[0] == ref.to_string().splitlines()[0]


def _same_accumulators(got, ref):
    """The same rows (names in the same order), classes, counts, and sums equal up to the
    order of the additions (Dask's tree merges what the streamed report adds in turn)."""
    assert list(got._accumulators) == list(ref._accumulators)
    for name, acc in ref._accumulators.items():
        mine = got._accumulators[name]
        assert mine.n_samples_ == acc.n_samples_, name
        assert_array_equal(mine.classes_, acc.classes_)
        st, want = mine._stats, acc._stats
        assert_array_equal(st.n_samples, want.n_samples)
        for field in st.summed_fields():
            assert_allclose(getattr(st, field), getattr(want, field), rtol=RTOL, err_msg=field)


def test_report_on_the_cluster_is_the_streamed_report(client, tmp_path):
    """The row groups are read and their batches accumulated on the workers, and merged
    by Dask's tree in file order: the accumulators are those of the streamed report (up
    to the order of additions), with groups, Hive partitions, string labels found by the
    workers' pass and wide rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from skcalib.report._dask import dask_report
    from skcalib.report._stream import stream_report

    path = _report_cases(tmp_path)
    address = client.scheduler.address
    for options in ({}, {"model_col": "model", "by": ["region"]}):
        got = dask_report(path, scheduler=address, proba_cols=["ant", "bee", "cat"], **options)
        _same_accumulators(got, stream_report(path, proba_cols=["ant", "bee", "cat"], **options))
    rng = np.random.default_rng(5)
    for i, day in enumerate(["d1", "d2"]):
        (tmp_path / "hive" / f"day={day}").mkdir(parents=True)
        p = rng.random(900)
        y = np.where(rng.random(900) < p, "spam", "ham")
        pq.write_table(
            pa.table({"y": y, "ham": 1 - p, "spam": p}),
            tmp_path / "hive" / f"day={day}" / "part.parquet",
            row_group_size=250 + 100 * i,
        )
    hive = str(tmp_path / "hive")
    got = dask_report(hive, scheduler=address, by=["day"], proba_cols=["ham", "spam"])
    ref = stream_report(hive, by=["day"], proba_cols=["ham", "spam"])
    assert list(got._accumulators)[:2] == ["day=d1", "day=d2"]
    _same_accumulators(got, ref)
    # the labels as Hive partitions (directories y=0 and y=1): found by the workers too
    for label in (0, 1):
        (tmp_path / "by-label" / f"y={label}").mkdir(parents=True)
        pq.write_table(
            pa.table({"1": rng.random(500)}),
            tmp_path / "by-label" / f"y={label}" / "part.parquet",
            row_group_size=200,
        )
    by_label = str(tmp_path / "by-label")
    got = dask_report(by_label, scheduler=address)
    ref = stream_report(by_label)
    assert got.n_samples["model"] == 1000
    _same_accumulators(got, ref)


def test_report_on_the_cluster_groups_held_by_different_row_groups(client, tmp_path):
    """Row groups holding different --by groups (a null among them): each task codes its
    own keys and the tree adds them at their places in the union."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from skcalib.report._dask import dask_report
    from skcalib.report._stream import stream_report

    rng = np.random.default_rng(20)
    n = 1200
    p = rng.random(n)
    y = (rng.random(n) < p).astype(np.int8)
    shop = np.array(["b"] * 500 + [None] * 200 + ["a"] * 300 + ["None"] * 200, dtype=object)
    pq.write_table(
        pa.table({"y": y, "1": p, "shop": shop}), tmp_path / "g.parquet", row_group_size=250
    )
    src = str(tmp_path / "g.parquet")
    got = dask_report(src, scheduler=client.scheduler.address, by=["shop"], n_bins=10)
    ref = stream_report(src, by=["shop"], n_bins=10)
    assert got.models == ref.models
    assert got.groups == ref.groups
    _same_accumulators(got, ref)


def test_report_on_the_cluster_errors_name_the_first_bad_row_in_file_order(client, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from skcalib.report._dask import dask_report
    from skcalib.report._io import PredictionsFileError

    p = np.full(1000, 0.25)
    p[[830, 120]] = [1.5, 2.0]  # bad in row groups 0 and 4 (of 200 rows)
    y = np.arange(1000) % 2
    pq.write_table(pa.table({"y": y, "1": p}), tmp_path / "b.parquet", row_group_size=200)
    address = client.scheduler.address
    with pytest.raises(PredictionsFileError, match=r"row 120 of b\.parquet"):
        dask_report(str(tmp_path / "b.parquet"), scheduler=address)
    (tmp_path / "two").mkdir()
    pq.write_table(pa.table({"y": y[:200], "1": np.full(200, 0.5)}), tmp_path / "two" / "a.parquet")
    (tmp_path / "two" / "b.parquet").write_bytes(b"PAR1 not a parquet file PAR1")
    with pytest.raises(PredictionsFileError, match="not a readable Parquet dataset"):
        dask_report(str(tmp_path / "two" / "*.parquet"), scheduler=address)
    y = np.array([0, 1, None, 1] * 50, dtype=object)
    pq.write_table(pa.table({"y": y, "1": np.full(200, 0.5)}), tmp_path / "n.parquet")
    with pytest.raises(PredictionsFileError, match=r"label column 'y' is empty at row 2 of n"):
        dask_report(str(tmp_path / "n.parquet"), scheduler=address)


def test_report_on_the_cluster_shows_its_progress(client, tmp_path):
    from skcalib.report._dask import dask_report
    from skcalib.report._progress import Progress
    from tests.report.test_stream import FakeTTY, dyadic_predictions, write_parquet

    y, P = dyadic_predictions(1000, seed=11)
    path = write_parquet(tmp_path / "p.parquet", y, P, row_group_size=250)
    stream = FakeTTY()
    progress = Progress(stream=stream, delay=0.0, interval=0.0)
    dask_report(path, scheduler=client.scheduler.address, progress=progress)
    lines = stream.getvalue().split("\r")[1:]
    assert len(lines) == 5  # one per row group of 250 rows, then the final count
    assert lines[0].startswith("skcalib report: 250 rows of 1,000 (25%), ")
    assert lines[-1].startswith("skcalib report: 1,000 rows of 1,000 (100%), ")


def test_report_on_the_cluster_binary_single_column(client, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from skcalib.report._dask import dask_report
    from skcalib.report._stream import stream_report

    rng = np.random.default_rng(12)
    p = rng.integers(0, 1025, 5000) / 1024
    y = (rng.random(5000) < p).astype(np.int8)
    pq.write_table(pa.table({"y": y, "1": p}), tmp_path / "b.parquet", row_group_size=700)
    src = str(tmp_path / "b.parquet")
    got = dask_report(src, scheduler=client.scheduler.address, n_bins=10)
    ref = stream_report(src, n_bins=10)
    assert got.positive_class == ref.positive_class == {"model": 1}
    for key in ("expected_calibration_error", "max_calibration_error", "brier_score"):
        assert_allclose(got.values["model"][key], ref.values["model"][key], rtol=RTOL)
    assert_array_equal(got.curves["model"].bin_count, ref.curves["model"].bin_count)


def test_report_cli_dask_errors(client, tmp_path):
    from tests.report.test_cli import assert_one_line_error, run
    from tests.report.test_stream import write_parquet

    y = np.array([0, 1, 2, 1])
    P = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.0, 0.5, 1.5], [0.25, 0.5, 0.25]])
    path = write_parquet(tmp_path / "bad.parquet", y, P)
    address = client.scheduler.address
    rc, out, err = run(["report", path, "--scheduler", address])
    assert_one_line_error(rc, out, err, "outside [0, 1]", "'cat'")
    rc, out, err = run(["report", path, "--scheduler", address, "--by", "nope"])
    assert_one_line_error(rc, out, err, "no --by column 'nope'")
    rc, out, err = run(["report", path, "--scheduler", address, "--dask"])
    assert_one_line_error(rc, out, err, "either --scheduler ADDRESS or --dask")
    (tmp_path / "p.csv").write_text("y,0,1\n0,0.5,0.5\n")
    rc, out, err = run(["report", str(tmp_path / "p.csv"), "--scheduler", address])
    assert_one_line_error(rc, out, err, "apply to Parquet files and datasets")
