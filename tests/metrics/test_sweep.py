"""Tests of the monotonic-sweep calibration error (ECE_sweep, Roelofs et al. 2022)."""

import numpy as np
import pytest

from skcalib._core._validation import check_classification_input
from skcalib.metrics import general_calibration_error, monotonic_sweep_calibration_error
from skcalib.metrics._calibration._binned import _is_monotone, _monotonic_sweep

from ._slow_calibration import slow_gce, slow_groups, slow_stats


def slow_sweep(y, y_proba, *, norm="l1", multiclass="auto", sample_weight=None):
    """Loop over b = 1, 2, ...: the last b before the first non-monotone one."""
    groups = slow_groups(y, y_proba, multiclass=multiclass, sample_weight=sample_weight)
    n_pos = sum(1 for _, _, w in groups[0] if w > 0)
    chosen = 1
    for b in range(2, n_pos + 1):
        monotone = True
        for cnt, _, st, _, _ in slow_stats(groups, n_bins=b, strategy="quantile"):
            accs = [st[m] / cnt[m] for m in range(b) if cnt[m] > 0]
            if any(accs[i + 1] < accs[i] for i in range(len(accs) - 1)):
                monotone = False
        if not monotone:
            break
        chosen = b
    value = slow_gce(
        y,
        y_proba,
        n_bins=chosen,
        strategy="quantile",
        multiclass=multiclass,
        norm=norm,
        sample_weight=sample_weight,
    )
    return chosen, value


def test_toy_hand_computed():
    y = [0, 0, 1, 0, 1, 1]
    p = [0.1, 0.2, 0.3, 0.6, 0.7, 0.9]
    # b=1: [0.5]; b=2: [1/3, 2/3]; b=3: [0, 0.5, 1]; b=4: [0, 1, 0.5, 1] breaks -> b* = 3
    # bins {0.1, 0.2}, {0.3, 0.6}, {0.7, 0.9}: gaps 0.15, 0.05, 0.2, each 2/6 of the mass
    expected = (0.15 + 0.05 + 0.2) * 2 / 6
    assert monotonic_sweep_calibration_error(y, p) == pytest.approx(expected, abs=1e-12)
    assert monotonic_sweep_calibration_error(y, p, norm="max") == pytest.approx(0.2)
    l2 = np.sqrt((0.15**2 + 0.05**2 + 0.2**2) * 2 / 6)
    assert monotonic_sweep_calibration_error(y, p, norm="l2") == pytest.approx(l2)
    data = check_classification_input(y, p)
    b, _ = _monotonic_sweep(data, "auto")
    assert b == 3


def test_perfectly_separated_keeps_every_bin():
    y = [0, 0, 0, 1, 1, 1]
    p = [0.1, 0.2, 0.3, 0.6, 0.7, 0.9]
    b, _ = _monotonic_sweep(check_classification_input(y, p), "auto")
    assert b == 6
    gaps = [0.1, 0.2, 0.3, 0.4, 0.3, 0.1]
    assert monotonic_sweep_calibration_error(y, p) == pytest.approx(sum(gaps) / 6)


def _random(rng, n, k):
    if k == 1:
        p = rng.uniform(size=n)
        return (rng.uniform(size=n) < p).astype(int), p
    logits = rng.normal(size=(n, k)) * 2
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in P])
    return y, P


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_matches_slow_loop(seed, k, weighted, norm):
    rng = np.random.default_rng(seed)
    y, P = _random(rng, 50, k)
    sw = rng.integers(0, 4, size=50).astype(float) if weighted else None
    mc = "top_label" if k == 3 else "auto"
    b_slow, v_slow = slow_sweep(y, P.tolist(), norm=norm, multiclass=mc, sample_weight=sw)
    v = monotonic_sweep_calibration_error(y, P, norm=norm, multiclass=mc, sample_weight=sw)
    assert v == pytest.approx(v_slow, abs=1e-12)
    b, _ = _monotonic_sweep(check_classification_input(y, P, sample_weight=sw), mc)
    assert b == b_slow
    assert v == pytest.approx(
        general_calibration_error(
            y, P, n_bins=b, strategy="quantile", multiclass=mc, norm=norm, sample_weight=sw
        ),
        abs=1e-15,
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("multiclass", ["auto", "top_label", "classwise"])
def test_chosen_b_monotone_and_next_not(seed, multiclass):
    from skcalib._core._binning import bin_stats

    rng = np.random.default_rng(100 + seed)
    y, P = _random(rng, 300, 3)
    data = check_classification_input(y, P)
    b, stats = _monotonic_sweep(data, multiclass)
    assert _is_monotone(stats)
    assert stats.n_bins == b
    assert b < 300
    nxt = bin_stats(data, multiclass=multiclass, n_bins=b + 1, strategy="quantile")
    assert not _is_monotone(nxt)
    for smaller in range(1, b):
        s = bin_stats(data, multiclass=multiclass, n_bins=smaller, strategy="quantile")
        assert _is_monotone(s)


def test_weight_is_repetition():
    rng = np.random.default_rng(7)
    y, p = _random(rng, 80, 1)
    w = rng.integers(1, 4, size=80)
    a = monotonic_sweep_calibration_error(y, p, sample_weight=w)
    b = monotonic_sweep_calibration_error(np.repeat(y, w), np.repeat(p, w))
    assert a == pytest.approx(b, abs=1e-12)


def test_paper_bias_smaller_than_ece15_for_calibrated_model():
    # Roelofs et al. 2022: for a perfectly calibrated model (true calibration error 0),
    # ECE_sweep is less biased than the 15-bin ECE at small sample sizes.
    rng = np.random.default_rng(2022)
    for n in (200, 500, 1000):
        ece15, sweep = [], []
        for _ in range(200):
            p = rng.beta(2, 5, size=n)
            y = (rng.uniform(size=n) < p).astype(int)
            ece15.append(general_calibration_error(y, p, n_bins=15))
            sweep.append(monotonic_sweep_calibration_error(y, p))
        assert np.mean(sweep) < np.mean(ece15)


def test_invalid_options():
    with pytest.raises(ValueError, match="norm"):
        monotonic_sweep_calibration_error([0, 1], [0.2, 0.8], norm="l3")
    with pytest.raises(ValueError, match="multiclass"):
        monotonic_sweep_calibration_error([0, 1], [0.2, 0.8], multiclass="bad")
    with pytest.raises(ValueError, match="y_proba"):
        monotonic_sweep_calibration_error([0, 1], [0.2, 1.8])


def test_single_sample_and_zero_weights():
    assert monotonic_sweep_calibration_error([1], [0.75]) == pytest.approx(0.25)
    v = monotonic_sweep_calibration_error([0, 1, 1], [0.2, 0.9, 0.3], sample_weight=[1, 1, 0])
    assert v == pytest.approx(monotonic_sweep_calibration_error([0, 1], [0.2, 0.9]), abs=1e-15)
