"""The group axis of the kernels (used by the streaming accumulator): per-group sums
in one pass equal the kernel on each group's rows."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skcalib._core._binning import accumulate_pairs, probability_outcome, uniform_bin_edges
from skcalib._core._validation import check_classification_input
from skcalib.metrics._scoring._scoring_rules import _binned_totals, _brier_sum, _log_loss_sum


def _input(rng, n, k, weighted, dtype=np.float64):
    if k == 1:  # binary, 1-D positive-class probability
        P = rng.random(n)
        y = (rng.random(n) < P).astype(np.int64)
    else:
        P = rng.dirichlet(np.ones(k), size=n)
        y = rng.integers(0, k, n)
        y[:k] = np.arange(k)
    w = rng.random(n) * 3 if weighted else None
    return check_classification_input(
        y, P.astype(dtype), sample_weight=w, labels=np.arange(max(k, 2))
    )


def _subset(data, rows):
    return check_classification_input(
        data.classes[data.y[rows]],
        data.proba[rows],
        sample_weight=None if data.sample_weight is None else data.sample_weight[rows],
        labels=data.classes,
    )


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_group_sums_equal_the_kernel_on_each_group(k, weighted, dtype):
    rng = np.random.default_rng(k + 10 * weighted)
    n, n_groups = 5_000, 5
    data = _input(rng, n, k, weighted, dtype)
    groups = rng.integers(0, n_groups - 1, n)  # the last group is empty
    brier = _brier_sum(data, groups, n_groups)
    nll = _log_loss_sum(data, "auto", groups, n_groups)
    ff, fo = _binned_totals(data, groups, n_groups)
    for result in (brier, nll, ff, fo):
        assert isinstance(result, np.ndarray)
        assert result.shape == (n_groups,) and result.dtype == np.float64
    assert brier[-1] == nll[-1] == ff[-1] == fo[-1] == 0.0
    for g in range(n_groups - 1):
        part = _subset(data, groups == g)
        assert brier[g] == pytest.approx(_brier_sum(part), rel=1e-10)
        assert nll[g] == pytest.approx(_log_loss_sum(part, "auto"), rel=1e-10)
        part_ff, part_fo = _binned_totals(part)
        assert ff[g] == pytest.approx(part_ff, rel=1e-10)
        assert fo[g] == pytest.approx(part_fo, rel=1e-10)
    assert brier.sum() == pytest.approx(_brier_sum(data), rel=1e-10)
    assert isinstance(_brier_sum(data), float)


@pytest.mark.parametrize("mode", ["binary", "top_label"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("threshold", [0.0, 0.3])
def test_accumulate_pairs_by_group(mode, weighted, threshold):
    rng = np.random.default_rng(3)
    n, n_groups = 70_000, 4  # more than one chunk of pairs
    data = _input(rng, n, 2 if mode == "binary" else 5, weighted)
    conf, outcome = probability_outcome(data, mode)
    groups = rng.integers(0, n_groups, n)
    edges = uniform_bin_edges(10)
    sw = data.sample_weight
    sums = accumulate_pairs(conf, outcome, sw, edges, threshold, groups=groups, n_groups=n_groups)
    assert sums.shape == (4, n_groups, 10)
    for g in range(n_groups):
        rows = groups == g
        expected = accumulate_pairs(
            conf[rows], outcome[rows], None if sw is None else sw[rows], edges, threshold
        )
        assert_allclose(sums[:, g, :], expected, rtol=1e-12, atol=1e-9)
    assert_allclose(
        sums.sum(axis=1), accumulate_pairs(conf, outcome, sw, edges, threshold), rtol=1e-12
    )


@pytest.mark.parametrize("threshold", [0.0, 0.3])
@pytest.mark.parametrize("n_groups", [30, 40_000])  # fewer / more cells than a chunk's rows
def test_accumulate_pairs_out_adds_at_occupied_cells(threshold, n_groups):
    """``out=``: the sums added in place equal the dense per-group kernel, also with
    probabilities a rounding error above 1 (folded into the last bin) and a
    non-uniform grid."""
    rng = np.random.default_rng(4)
    n = 70_000
    data = _input(rng, n, 2, True)
    conf, outcome = probability_outcome(data, "binary")
    conf = conf.copy()
    conf[:7] = 1.0 + 1e-13
    groups = rng.integers(0, n_groups, n)
    sw = data.sample_weight
    for edges in (uniform_bin_edges(10), np.array([0.0, 0.1, 0.5, 0.55, 1.0])):
        want = accumulate_pairs(
            conf, outcome, sw, edges, threshold, groups=groups, n_groups=n_groups
        )
        out = np.full((n_groups, 4, edges.shape[0] - 1), 1.0)
        got = accumulate_pairs(conf, outcome, sw, edges, threshold, groups=groups, out=out)
        assert got is out
        assert_allclose(out - 1.0, np.moveaxis(want, 0, 1), rtol=1e-12, atol=1e-9)
    with pytest.raises(ValueError, match="out must be a C-contiguous"):
        accumulate_pairs(conf, outcome, sw, edges, groups=groups, out=out[:, :, ::2])


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_chunk_statistics_out_equals_each_group_alone(k, weighted):
    """``chunk_statistics(groups=, out=)`` adds each chunk at the cells its rows occupy:
    the statistics of every group equal those of its rows alone, over two chunks."""
    from skcalib.metrics._statistics import chunk_statistics

    rng = np.random.default_rng(k + 10 * weighted)
    n, n_groups = 6_000, 40
    data = _input(rng, n, k, weighted, np.float32 if k == 4 else np.float64)
    groups = rng.integers(0, n_groups - 1, n)  # the last group is empty
    half = n // 2
    st = chunk_statistics(_subset(data, np.arange(half)), 7, groups[:half], n_groups)
    again = chunk_statistics(_subset(data, np.arange(half, n)), 7, groups[half:], n_groups, out=st)
    assert again is st and st.n_groups == n_groups
    for g in range(n_groups):
        rows = groups == g
        for name in st.summed_fields():
            mine = getattr(st, name)[g]
            if not rows.any():
                assert not mine.any(), name
                continue
            alone = getattr(chunk_statistics(_subset(data, rows), 7), name)[0]
            assert_allclose(mine, alone, rtol=1e-10, atol=1e-9, err_msg=name)
    with pytest.raises(ValueError, match="out holds statistics of n_bins=7"):
        chunk_statistics(data, 5, groups, n_groups, out=st)
