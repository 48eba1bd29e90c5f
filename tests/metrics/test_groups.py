"""calibration_by_group and multicalibration_error: every group's numbers equal the
batch functions on the group's rows; golden values of MCGrad; multiplicity."""

import itertools
from functools import partial

import numpy as np
import pandas as pd
import pytest

from skcalib.metrics import (
    GroupCalibrationResult,
    MulticalibrationResult,
    brier_score,
    calibration_by_group,
    cumulative_calibration_error,
    cumulative_calibration_test,
    expected_calibration_error,
    multicalibration_error,
    static_calibration_error,
)
from skcalib.metrics._groups._by_group import adjust_pvalues


def _data(kind, seed=0, n=3000):
    rng = np.random.default_rng(seed)
    if kind == "binary":
        P = rng.random(n)
        y = (rng.random(n) < P**1.1).astype(int)
    else:
        P = rng.dirichlet(np.ones(3), n)
        y = np.array([rng.choice(3, p=r) for r in P])
    g = rng.choice(["a", "b", "c", "d"], n, p=[0.4, 0.3, 0.29, 0.01])
    return y, P, g, rng.random(n) * 2


@pytest.mark.parametrize(
    ("kind", "multiclass"),
    [("binary", "auto"), ("multiclass", "auto"), ("multiclass", "classwise")],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_each_group_equals_the_batch_functions(kind, multiclass, weighted):
    y, P, g, w = _data(kind, seed=1)
    kw = {"sample_weight": w} if weighted else {}
    labels = np.unique(y)
    table = calibration_by_group(y, P, g, multiclass=multiclass, n_bins=10, **kw)
    ece = static_calibration_error if multiclass == "classwise" else expected_calibration_error
    for key in ["a", "b", "c", "d", "(overall)"]:
        rows = np.ones(len(y), bool) if key == "(overall)" else g == key
        wk = {"sample_weight": w[rows]} if weighted else {}
        row = table.loc[key]
        assert row["n"] == rows.sum()
        assert row["weight"] == pytest.approx(w[rows].sum() if weighted else rows.sum())
        yr, Pr = y[rows], P[rows]
        opts = {"labels": labels, **wk}
        assert row["ece"] == pytest.approx(ece(yr, Pr, n_bins=10, **opts), rel=1e-10)
        assert row["ecce"] == pytest.approx(
            cumulative_calibration_error(yr, Pr, multiclass=multiclass, **opts), rel=1e-9
        )
        test = cumulative_calibration_test(yr, Pr, multiclass=multiclass, **opts)
        assert row["pvalue"] == pytest.approx(test.pvalue, rel=1e-8, abs=1e-300)
        assert row["ecce_sigma"] == pytest.approx(test.sigma, rel=1e-9)
        if multiclass == "classwise":
            assert np.isnan(row["bias"])
            continue
        conf = Pr if kind == "binary" else Pr.max(axis=1)
        out = yr if kind == "binary" else (Pr.argmax(axis=1) == yr)
        ww = w[rows] if weighted else np.ones(rows.sum())
        d = conf - out
        bias = np.average(d, weights=ww)
        assert row["bias"] == pytest.approx(bias, rel=1e-10)
        m = rows.sum()
        se = np.sqrt(np.sum(ww**2 * (d - bias) ** 2) * m / (m - 1)) / ww.sum()
        assert row["bias_se"] == pytest.approx(se, rel=1e-9)
        assert row["bias_high"] - row["bias"] == pytest.approx(1.959963984540054 * se)
    # the small group is flagged and not part of the adjusted family
    assert table.loc["d", "small"] and np.isnan(table.loc["d", "pvalue_adjusted"])
    tested = table.loc[["a", "b", "c"], "pvalue"].to_numpy()
    np.testing.assert_allclose(
        table.loc[["a", "b", "c"], "pvalue_adjusted"], adjust_pvalues(tested, "holm")
    )


def test_tied_probabilities_in_groups():
    """Rounded probabilities (many ties): each group's ECCE equals the function on its
    rows, which reads the walk at the ends of the runs of ties only."""
    rng = np.random.default_rng(9)
    p = np.round(rng.random(2000), 1)
    y = (rng.random(2000) < p).astype(int)
    g = rng.integers(0, 7, 2000)
    w = rng.random(2000)
    t = calibration_by_group(y, p, g, metrics=["ecce"], sample_weight=w)
    for key in range(7):
        rows = g == key
        expected = cumulative_calibration_error(y[rows], p[rows], sample_weight=w[rows])
        assert t.loc[key, "ecce"] == pytest.approx(expected, rel=1e-10)
    res = multicalibration_error(y, p, g, sample_weight=w)
    assert res.segment_ecce[0] == pytest.approx(
        cumulative_calibration_error(y, p, sample_weight=w), rel=1e-10
    )
    assert res.segment_ecce[1] == pytest.approx(t.loc[0, "ecce"], rel=1e-10)


def test_keys_nulls_and_intersections():
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0.2, 0.7, 0.9, 0.4, 0.6, 0.3, 0.8, 0.5])
    g = pd.Series(["x", None, "y", "x", np.nan, "y", "x", "y"], name="site")
    t = calibration_by_group(y, p, g)
    assert list(t.index[:2]) == ["x", "y"] and t.index.name == "site"
    assert pd.isna(t.index[2]) and t.loc[t.index[2], "n"] == 2  # None and NaN: one group
    # several columns: the combinations that occur, keys are tuples of values
    df = pd.DataFrame({"a": [1, 1, 2, 2, 1, 2, 1, 2], "b": list("uvuvuvuu")})
    t2 = calibration_by_group(y, p, df, metrics=["ece"])
    assert list(t2.index) == [(1, "u"), (1, "v"), (2, "u"), (2, "v"), "(overall)"]
    assert t2.index.name == ("a", "b")
    assert list(t2.columns) == ["n", "weight", "ece", "small"]
    # a 2-D array gives the same groups
    t3 = calibration_by_group(y, p, df.to_numpy(), metrics=["ece"])
    np.testing.assert_array_equal(t3["ece"].to_numpy(), t2["ece"].to_numpy())
    # a categorical and integer codes give the same numbers as strings
    t4 = calibration_by_group(y, p, pd.Categorical(["x", "z", "y", "x", "z", "y", "x", "y"]))
    t5 = calibration_by_group(y, p, np.array([0, 2, 1, 0, 2, 1, 0, 1]))
    np.testing.assert_allclose(t4["ecce"].to_numpy(), t5["ecce"].to_numpy())


def test_without_pandas_result_and_custom_metrics():
    y, P, g, w = _data("binary", seed=2, n=600)
    res = calibration_by_group(
        y, P, g, metrics=["ecce", brier_score], sample_weight=w, as_frame=False
    )
    assert isinstance(res, GroupCalibrationResult)
    groups, columns = res
    assert groups == ["a", "b", "c", "d", "(overall)"]
    for i, key in enumerate(groups[:-1]):
        rows = g == key
        assert columns["brier_score"][i] == pytest.approx(
            brier_score(y[rows], P[rows], sample_weight=w[rows])
        )
    assert columns["brier_score"][-1] == pytest.approx(brier_score(y, P, sample_weight=w))
    frame = calibration_by_group(y, P, g, metrics=["ecce", brier_score], sample_weight=w)
    np.testing.assert_array_equal(frame["brier_score"].to_numpy(), columns["brier_score"])


def test_fairlearn_metric_frame_agrees():
    """fairlearn's MetricFrame computes skcalib metrics by group (by a loop over the
    groups); calibration_by_group gives the same numbers in one pass."""
    fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
    y, P, g, w = _data("binary", seed=3, n=2000)
    mf = fairlearn_metrics.MetricFrame(
        metrics={
            "ece": partial(expected_calibration_error, n_bins=15),
            "ecce": cumulative_calibration_error,
        },
        y_true=y,
        y_pred=P,
        sensitive_features=pd.Series(g, name="g"),
    )
    table = calibration_by_group(y, P, g)
    for col in ("ece", "ecce"):
        np.testing.assert_allclose(
            table[col].iloc[:-1].to_numpy(), mf.by_group[col].to_numpy(), rtol=1e-10
        )
        assert table[col].iloc[-1] == pytest.approx(mf.overall[col], rel=1e-10)


def test_adjust_pvalues_against_the_definitions():
    rng = np.random.default_rng(0)
    p = rng.random(12) ** 3
    m = len(p)
    order = np.argsort(p)
    holm = np.empty(m)
    bh = np.empty(m)
    for rank, i in enumerate(order):
        holm[i] = min(1.0, max((m - j) * p[order[j]] for j in range(rank + 1)))
        bh[i] = min(1.0, min(m / (j + 1) * p[order[j]] for j in range(rank, m)))
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), holm)
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), bh)
    assert np.isnan(adjust_pvalues([np.nan, 0.01])[0])
    assert adjust_pvalues([np.nan, 0.01])[1] == 0.01


def test_by_group_bad_input():
    with pytest.raises(ValueError, match="groups"):
        calibration_by_group([0, 1, 1], [0.2, 0.5, 0.7], ["a", "b"])
    with pytest.raises(ValueError, match="groups"):
        calibration_by_group([0, 1], [0.2, 0.5], ["(overall)", "b"])
    with pytest.raises(ValueError, match="metrics"):
        calibration_by_group([0, 1], [0.2, 0.5], ["a", "b"], metrics=["bogus"])
    with pytest.raises(ValueError, match="p_adjust"):
        calibration_by_group([0, 1], [0.2, 0.5], ["a", "b"], p_adjust="bonf")
    with pytest.raises(ValueError, match="y_proba"):
        calibration_by_group([0, 1], [0.2, np.nan], ["a", "b"])
    g = np.array(["a", "b"])
    calibration_by_group([0, 1], [0.2, 0.5], g)
    np.testing.assert_array_equal(g, ["a", "b"])


# ---- multicalibration_error -------------------------------------------------------


def _segment_data(seed=7, n=3000):
    rng = np.random.default_rng(seed)
    a = rng.choice(5, n, p=[0.4, 0.25, 0.15, 0.12, 0.08])
    b = rng.choice(["u", "v", "x"], n, p=[0.5, 0.3, 0.2])
    c = rng.choice(4, n, p=[0.1, 0.2, 0.3, 0.4])
    p = rng.uniform(0.02, 0.98, n)
    truth = np.where((a == 1) & (b == "v"), np.clip(p + 0.15, 0, 1), p)
    y = (rng.random(n) < truth).astype(int)
    w = 0.5 + rng.random(n)
    return y, p, pd.DataFrame({"a": a, "b": b, "c": c}), w


# MCGrad 0.1.5, MulticalibrationError(df, "y", "p", weight_column=None or "w",
# categorical_segment_columns=["a", "b", "c"], max_depth=2,
# max_values_per_segment_feature=mv, min_samples_per_segment=10, max_n_segments=None,
# precision_dtype="float64") on _segment_data(): mce_sigma, mce, mce_pvalue, mde,
# number of segments, sum of segments_ecce_sigma
MCGRAD = {
    (False, 3): (5.680905588726805, 0.04314749809308036, 5.359336963106642e-08,
                 0.03797589787330941, 37, 57.559120916928734),
    (False, 10): (5.680905588726805, 0.04314749809308036, 5.359336963106642e-08,
                  0.03797589787330941, 60, 102.8077509690154),
    (True, 3): (5.608978219078438, 0.044413090401394344, 8.14098534140939e-08,
                0.03959107048261232, 37, 56.72445589832984),
    (True, 10): (5.608978219078438, 0.044413090401394344, 8.14098534140939e-08,
                 0.03959107048261232, 60, 98.86634202897636),
}  # fmt: skip


@pytest.mark.parametrize(("weighted", "max_values"), sorted(MCGRAD))
def test_multicalibration_mcgrad_golden_values(weighted, max_values):
    y, p, X, w = _segment_data()
    sigma, mce, pvalue, mde, n_seg, total = MCGRAD[weighted, max_values]
    res = multicalibration_error(
        y, p, X, max_values_per_feature=max_values, sample_weight=w if weighted else None
    )
    assert isinstance(res, MulticalibrationResult)
    assert res.sigma == pytest.approx(sigma, rel=1e-12)
    assert res.mce == pytest.approx(mce, rel=1e-12)
    assert res.mde == pytest.approx(mde, rel=1e-12)
    assert res.pvalue_unadjusted == pytest.approx(pvalue, rel=1e-6)  # MCGrad: 1 - CDF
    assert res.n_segments == n_seg
    assert res.segment_sigma.sum() == pytest.approx(total, rel=1e-12)
    assert res.pvalue == pytest.approx(min(1.0, n_seg * res.pvalue_unadjusted))
    assert res.worst_segment == {"a": 1, "b": "v"}
    mce_, pvalue_ = res
    assert (mce_, pvalue_) == (res.mce, res.pvalue)


@pytest.mark.parametrize("multiclass", ["auto", "classwise"])
def test_multicalibration_equals_a_loop_over_segment_masks(multiclass):
    rng = np.random.default_rng(5)
    n = 1500
    X = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 4, n), rng.integers(0, 2, n)])
    P = rng.dirichlet(np.ones(3), n)
    y = np.array([rng.choice(3, p=r) for r in P])
    w = rng.random(n) + 0.2
    res = multicalibration_error(y, P, X, multiclass=multiclass, sample_weight=w, min_group_size=40)
    k = 3 if multiclass == "classwise" else 1
    sigmas, sizes, segs = [], [], []
    masks = [({}, np.ones(n, bool))]
    for depth in (1, 2):
        for cols in itertools.combinations(range(3), depth):
            values = [np.unique(X[:, c]) for c in cols]
            for combo in itertools.product(*values):
                mask = np.all([X[:, c] == v for c, v in zip(cols, combo, strict=True)], axis=0)
                masks.append(({f"x{c}": int(v) for c, v in zip(cols, combo, strict=True)}, mask))
    for seg, mask in masks:
        if mask.sum() < 40:
            continue
        t = cumulative_calibration_test(
            y[mask], P[mask], multiclass=multiclass, sample_weight=w[mask], labels=[0, 1, 2]
        )
        sigmas.append(t.sigma)
        sizes.append(mask.sum())
        segs.append(seg)
    np.testing.assert_allclose(res.segment_sigma, sigmas, rtol=1e-9)
    np.testing.assert_array_equal(res.segment_size, sizes)
    assert res.segments == segs
    assert res.pvalue == pytest.approx(min(1.0, len(sigmas) * k * res.pvalue_unadjusted))


def test_multicalibration_finds_a_planted_five_percent_segment():
    rng = np.random.default_rng(21)
    n = 40000
    X = pd.DataFrame({f"f{j}": rng.integers(0, 5, n) for j in range(4)})
    # one cell of two features holds 4% of the samples ((1/5)^2), plus noise
    bad = ((X["f1"] == 3) & (X["f2"] == 0)).to_numpy()
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < np.where(bad, np.clip(p - 0.12, 0, 1), p)).astype(int)
    res = multicalibration_error(y, p, X)
    assert res.worst_segment == {"f1": 3, "f2": 0}
    assert res.pvalue < 1e-6
    assert res.n_segments == 1 + 20 + 6 * 25


def test_multicalibration_pvalue_is_valid_for_many_segments():
    """Calibrated data, 4 features of 4 values at depth 2 (113 segments): MCGrad's
    unadjusted smallest p-value is below 5% far more often than 5% of the time; the
    Bonferroni p-value stays below its level."""
    rng = np.random.default_rng(8)
    n, sims = 1500, 150
    X = rng.integers(0, 4, (n, 4))
    unadjusted, adjusted = [], []
    for _ in range(sims):
        p = rng.uniform(0.05, 0.95, n)
        y = (rng.random(n) < p).astype(int)
        res = multicalibration_error(y, p, X, min_group_size=20)
        unadjusted.append(res.pvalue_unadjusted < 0.05)
        adjusted.append(res.pvalue < 0.05)
    assert res.n_segments == 1 + 16 + 6 * 16
    assert np.mean(unadjusted) > 0.3
    assert np.mean(adjusted) <= 0.05


def test_multicalibration_options():
    y, p, X, _ = _segment_data(n=2000)
    res = multicalibration_error(y, p, X, max_depth=0)
    assert res.n_segments == 1 and res.worst_segment == {}
    assert res.mce == pytest.approx(cumulative_calibration_error(y, p), rel=1e-12)
    first = multicalibration_error(y, p, X, max_segments=5)
    full = multicalibration_error(y, p, X)
    assert first.n_segments == 5
    np.testing.assert_array_equal(first.segment_sigma, full.segment_sigma[:5])
    folded = multicalibration_error(y, p, X[["a"]], max_values_per_feature=2)
    # the most frequent value of a (0) and the others folded together
    assert [s for s in folded.segments] == [{}, {"a": 0}, {"a": "(other)"}]
    one = multicalibration_error(y, p, X["a"])
    assert one.segments[1] == {"a": 0}
    with pytest.raises(ValueError, match="segments"):
        multicalibration_error(y, p, X.iloc[:10])
    with pytest.raises(ValueError, match="max_depth"):
        multicalibration_error(y, p, X, max_depth=-1)
