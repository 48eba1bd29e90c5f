"""The statistics object of the streamed metrics: one kernel with a group axis, merges
field by field, validated construction (a corrupted state read from disk is a ValueError
naming the field), and the bound of the fine histogram's cells."""

import copy
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skcalib._core._validation import check_classification_input
from skcalib.metrics import expected_calibration_error
from skcalib.metrics._statistics import (
    FINE_CELLS,
    CalibrationStatistics,
    chunk_statistics,
    fine_bin_edges,
    fine_cell,
)
from skcalib.streaming import CalibrationAccumulator


def _data(kind, n, rng, weighted=False):
    if kind == "binary":
        p = rng.random(n)
        y = (rng.random(n) < p).astype(int)
        labels = [0, 1]
    else:
        p = rng.dirichlet(np.ones(4) * 0.7, size=n)
        y = np.array([rng.choice(4, p=row) for row in p])
        labels = [0, 1, 2, 3]
    w = rng.random(n) * 3 if weighted else None
    return check_classification_input(y, p, sample_weight=w, labels=labels)


def _subset(data, rows):
    w = None if data.sample_weight is None else data.sample_weight[rows]
    return check_classification_input(
        data.y[rows], data.proba[rows], sample_weight=w, labels=np.arange(data.n_classes)
    )


def _assert_same(a, b, rtol=1e-12):
    assert (a.n_bins, a.mode, a.weighted) == (b.n_bins, b.mode, b.weighted)
    for name in CalibrationStatistics.summed_fields():
        assert_allclose(getattr(a, name), getattr(b, name), rtol=rtol, atol=1e-12, err_msg=name)


# --------------------------------------------------------------------------------------
# the kernel
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
@pytest.mark.parametrize("weighted", [False, True])
def test_group_axis_equals_the_statistics_of_each_group(kind, weighted):
    # one pass with group codes fills every group as the kernel on that group's rows
    rng = np.random.default_rng(0)
    data = _data(kind, 3000, rng, weighted)
    n_groups = 7
    groups = rng.integers(0, n_groups - 1, data.n_samples)  # the last group is empty
    both = chunk_statistics(data, 10, groups=groups, n_groups=n_groups)
    assert both.n_groups == n_groups
    for g in range(n_groups - 1):
        one = chunk_statistics(_subset(data, groups == g), 10)
        if not weighted:  # a group's unweighted statistics are exact counts
            assert_array_equal(both.group(g).bins[:, 0], one.bins[:, 0])
        _assert_same(both.group(g), one)
    empty = both.group(n_groups - 1)
    assert empty.n_samples[0] == 0 and empty.total_weight[0] == 0
    assert not empty.bins.any() and not empty.fine.any() and not empty.brier_sum.any()


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_merge_is_the_statistics_of_the_union(kind):
    rng = np.random.default_rng(1)
    data = _data(kind, 2000, rng, weighted=True)
    whole = chunk_statistics(data, 15)
    first = chunk_statistics(_subset(data, slice(0, 700)), 15)
    kept = first.copy()
    first.merge(chunk_statistics(_subset(data, slice(700, None)), 15))
    _assert_same(first, whole)
    # merge adds in place; a copy keeps its own arrays
    assert not np.array_equal(kept.bins, first.bins)
    with pytest.raises(ValueError, match="binary"):
        other = "binary" if kind != "binary" else "multiclass"
        whole.merge(chunk_statistics(_data(other, 10, rng), 15))
    with pytest.raises(TypeError, match="CalibrationStatistics"):
        whole.merge({"bins": 1})


# --------------------------------------------------------------------------------------
# validated construction: every malformed state is a ValueError naming the field
# --------------------------------------------------------------------------------------


def _state(kind="multiclass"):
    rng = np.random.default_rng(2)
    acc = CalibrationAccumulator(n_bins=5, labels=[0, 1] if kind == "binary" else [0, 1, 2, 3])
    data = _data(kind, 500, rng)
    acc.update(np.asarray(data.y), data.proba)
    return json.loads(json.dumps(acc.to_dict()))


def _corrupt(path, value, kind="multiclass"):
    d = _state(kind)
    target = d
    for key in path[:-1]:
        target = target[key]
    if callable(value):
        target[path[-1]] = value(copy.deepcopy(target[path[-1]]))
    else:
        target[path[-1]] = value
    return d


def _set(index, value):
    def apply(table):
        t = table
        for i in index[:-1]:
            t = t[i]
        t[index[-1]] = value
        return table

    return apply


def _both(index, value):
    """Set a count and its sum of squared weights (an unweighted state keeps them equal)."""

    def apply(table):
        table[0][0][index[1]] = value
        table[0][3][index[1]] = value
        return table

    return apply


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("statistics", "fine_cells"), lambda c: [-1] + c[1:], "fine_cells must lie in"),
        (("statistics", "fine_cells"), lambda c: c[:1] + c[:-1], "strictly increasing"),
        (("statistics", "fine_cells"), lambda c: c[:-1] + [FINE_CELLS + 2], "must lie in"),
        (("statistics", "fine_cells"), lambda c: [0.5] * len(c), "integer cell indices"),
        (("statistics", "total_weight"), [-500.0], "total_weight contains a negative"),
        (("statistics", "total_weight"), 500.0, "total_weight must be a 1-D array"),
        (("n_bins",), 4, "n_bins=4 disagrees with the tables"),
        (("n_bins",), 10**12, r"n_bins must be in \[1, 100000\]"),
        (("n_bins",), 2.5, "n_bins must be an int"),
        (("statistics", "n_bins"), 10**12, r"n_bins must be in \[1, 100000\]"),
        (("statistics", "bins"), 3.0, "bins must be an array of shape"),
        (("statistics", "bins"), _set((0, 0, 0), float("nan")), "bins contains NaN"),
        (("statistics", "bins"), _set((0, 0, 0), -1.0), "bins contains a negative"),
        (("statistics", "bins"), _set((0, 2, 1), 1e9), "a sum of outcomes exceeds its count"),
        (("statistics", "bins"), _set((0, 1, 1), 1e9), "probabilities exceeds its count"),
        (("statistics", "bins"), _both((0, 1), 1e9), "do not add up to total_weight"),
        (("statistics", "classwise"), lambda t: [t[0][:3]], "classwise must be an array of shape"),
        (("statistics", "brier_sum"), ["x"], "brier_sum must be an array of numbers"),
        (("statistics", "log_loss_sum"), [float("inf")], "log_loss_sum contains NaN"),
        (("statistics", "correct"), [1e9], "correct exceeds total_weight"),
        (("statistics", "n_samples"), [-3], "n_samples must hold non-negative integers"),
        (("statistics", "mode"), "sideways", "mode must be 'binary' or 'top_label'"),
        (("statistics", "weighted"), "yes", "weighted must be a bool"),
        (("statistics", "fine"), lambda t: [[row[:-1] for row in t[0]]], "fine must have shape"),
        (("n_samples",), 7, "n_samples=7 disagrees with the statistics"),
        (("classes",), [0, 1, 2], "classes has 3 labels but the class-wise tables have 4"),
        (("pos_index",), 1, "pos_index must be 0 or 1 for a binary problem and None"),
        (("statistics", "sum_ff"), [1e9], "sum_ff or sum_fo exceeds"),
    ],
)
def test_from_dict_refuses_every_malformed_state(path, value, message):
    with pytest.raises(ValueError, match=message):
        CalibrationAccumulator.from_dict(_corrupt(path, value))


def test_from_dict_refuses_missing_and_unknown_fields_and_binary_mismatches():
    d = _state()
    del d["statistics"]["bins"]
    with pytest.raises(ValueError, match=r"lack the fields \['bins'\]"):
        CalibrationAccumulator.from_dict(d)
    d = _state()
    d["statistics"]["extra"] = 1
    with pytest.raises(ValueError, match=r"unknown fields \['extra'\]"):
        CalibrationAccumulator.from_dict(d)
    d = _state("binary")
    d["statistics"]["mode"] = "top_label"
    with pytest.raises(ValueError, match="does not fit 2 classes"):
        CalibrationAccumulator.from_dict(d)
    d = _state("binary")
    d["statistics"]["weighted"] = False
    d["statistics"]["bins"][0][3][0] += 1.0
    with pytest.raises(ValueError, match="sums of squares = counts"):
        CalibrationAccumulator.from_dict(d)
    # the valid state round-trips
    good = CalibrationAccumulator.from_dict(_state())
    assert good.compute()["n_samples"] == 500


def test_a_version_2_state_is_read():
    # the layout before the group axis: one group, scalars and tables without it
    rng = np.random.default_rng(3)
    data = _data("multiclass", 400, rng)
    acc = CalibrationAccumulator(n_bins=5, labels=[0, 1, 2, 3]).update(data.y, data.proba)
    v3 = acc.to_dict()
    st = v3["statistics"]
    v2 = {k: v3[k] for k in ("n_bins", "labels", "pos_label", "classes", "n_samples")}
    v2["version"] = 2
    v2["state"] = {
        "pos_index": None,
        "mode": st["mode"],
        "weighted": st["weighted"],
        "total_weight": st["total_weight"][0],
        "stats": st["bins"][0],
        "fine_cells": st["fine_cells"],
        "fine": st["fine"][0],
        "classwise": st["classwise"][0],
        **{k: st[k][0] for k in ("brier_sum", "log_loss_sum", "correct", "sum_ff", "sum_fo")},
    }
    back = CalibrationAccumulator.from_dict(json.loads(json.dumps(v2)))
    assert back.compute() == acc.compute()
    del v2["state"]["stats"]
    with pytest.raises(ValueError, match="version-2 state lacks the field 'stats'"):
        CalibrationAccumulator.from_dict(v2)


# --------------------------------------------------------------------------------------
# zero weights
# --------------------------------------------------------------------------------------


def test_a_chunk_of_zero_weights_changes_nothing():
    rng = np.random.default_rng(4)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    acc = CalibrationAccumulator(n_bins=10).update(y, p, sample_weight=rng.random(100))
    before = acc.to_dict()
    acc.update(y[:10], p[:10], sample_weight=np.zeros(10))
    assert acc.to_dict() == before
    # a zero-weight chunk is still validated
    with pytest.raises(ValueError, match=r"y_proba must contain probabilities in \[0, 1\]"):
        acc.update([0, 1], [0.5, 1.5], sample_weight=[0.0, 0.0])
    with pytest.raises(ValueError, match="sample_weight has 3 elements"):
        acc.update([0, 1], [0.5, 0.5], sample_weight=[0.0, 0.0, 0.0])
    # an accumulator that saw only zero weights has no data
    empty = CalibrationAccumulator().update([0, 1], [0.2, 0.6], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="no data"):
        empty.compute()


def test_zero_weight_chunks_keep_streamed_equal_to_batch():
    rng = np.random.default_rng(5)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    w = rng.random(300)
    w[100:200] = 0.0
    acc = CalibrationAccumulator(n_bins=10)
    for a, b in ((0, 100), (100, 200), (200, 300)):
        acc.update(y[a:b], p[a:b], sample_weight=w[a:b])
    got = acc.compute()["expected_calibration_error"]
    assert got == pytest.approx(expected_calibration_error(y, p, n_bins=10, sample_weight=w))


# --------------------------------------------------------------------------------------
# the fine histogram's cells
# --------------------------------------------------------------------------------------


def test_the_documented_bound_of_the_fine_cells():
    # inside the log-odds range a cell spans at most 0.49% of p (1 - p) at any of its
    # points (2L/M e^(2L/M) with L = 20, M = 8192)
    edges = fine_bin_edges()
    inner = edges[1:-1]  # sigma(-20) .. sigma(20)
    width = np.diff(inner)
    lo, hi = inner[:-1], inner[1:]
    spread = np.minimum(lo * (1 - lo), hi * (1 - hi))
    assert (width <= 0.0049 * spread).all()
    assert (width >= 0.0048 * spread).all()  # and the bound is close to tight
    # the two end cells hold everything within sigma(-20) = 2.06e-9 of 0 or 1
    assert edges[1] == pytest.approx(2.0611536e-9, rel=1e-7)
    near_zero = np.array([0.0, 1e-300, 1e-15, 1e-12, 2.0e-9])
    near_one = np.array([1 - 2.0e-9, 1 - 1e-12, 1 - 1e-15, 1.0])
    assert_array_equal(fine_cell(near_zero), 0)
    assert_array_equal(fine_cell(near_one), FINE_CELLS + 1)
    assert fine_cell(np.nextafter(edges[1:2], 1.0))[0] == 1
