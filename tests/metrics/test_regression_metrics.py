"""Regression metrics of any predictive distribution: golden values of the peers,
agreement with slow obviously-correct implementations, invariances."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skcalib.metrics import (
    PredictionInterval,
    PredictiveQuantiles,
    PredictiveSamples,
    crps,
    crps_ensemble,
    crps_normal,
    expected_normalized_calibration_error,
    interval_coverage,
    interval_score,
    log_score,
    mean_interval_width,
    miscalibration_area,
    pit,
    regression_calibration_curve,
    regression_calibration_error,
    sharpness,
    uncertainty_calibration_error,
    weighted_interval_score,
)

# 16 Gaussian forecasts (rounded draws; the golden values below were computed on them)
MU = np.array(
    [0.001, 0.299, -0.274, -0.891, -0.455, -0.992, 0.06, 1.34, -0.492, -0.62, 0.49, 0.357]
    + [0.105, -0.93, -0.029, 0.695]
)
SD = np.array(
    [1.992, 1.648, 1.358, 1.981, 0.666, 0.572, 1.341, 0.375, 0.361, 1.175, 1.093, 1.859]
    + [1.37, 1.174, 1.145, 0.721]
)
Y = np.array(
    [0.61, -1.759, -1.612, 2.251, -1.008, -0.818, 1.92, 1.234, -0.348, -0.238, 0.788]
    + [-2.631, 0.451, 1.503, -2.309, 1.762]
)
# five draws per row
S = np.array(
    [
        [0.239, -1.277, 3.986, 1.519, -2.388],
        [0.422, 1.249, -0.012, 1.424, 0.189],
        [0.632, 1.68, -1.192, 0.002, -0.903],
        [-0.639, -3.243, -2.039, -1.28, 0.889],
        [0.308, -1.336, -0.984, -0.024, -1.782],
        [-1.257, -1.048, -0.273, -0.598, -1.179],
        [-0.434, -0.276, 2.103, -0.514, -0.347],
        [1.472, 1.295, 1.266, 0.922, 1.336],
        [-0.652, -0.071, -0.256, -0.501, -0.251],
        [-1.019, 0.616, -0.626, 0.065, -2.137],
        [0.869, -1.355, -1.735, 0.157, -0.494],
        [0.662, 4.53, -1.189, -0.803, 0.739],
        [0.78, -0.137, -0.177, 1.067, 0.817],
        [-2.144, -1.023, -0.889, -2.168, -0.625],
        [-1.011, 1.084, 0.192, 0.073, -0.706],
        [0.609, -0.745, -0.121, 0.957, -0.84],
    ]
)
LEVELS = np.array([0.1, 0.25, 0.5, 0.75, 0.9])
# the normal quantiles of MU, SD at LEVELS, rounded to 3 decimals
Q = np.round(stats.norm.ppf(LEVELS[None, :], MU[:, None], SD[:, None]), 3)


def _mean(values):
    return float(np.mean(values))


# ------------------------------------------------------------------- golden values


def test_uncertainty_toolbox_golden_values():
    # uncertainty-toolbox 0.1.1, its defaults (num_bins=100, prop_type="interval"):
    # mean_absolute_calibration_error, root_mean_squared_calibration_error,
    # miscalibration_area, sharpness of (MU, SD, Y)
    pred = stats.norm(MU, SD)
    assert regression_calibration_error(Y, pred) == pytest.approx(0.09960858585858592, abs=1e-15)
    assert regression_calibration_error(Y, pred, norm="l2") == pytest.approx(
        0.11512898088256165, abs=1e-15
    )
    assert miscalibration_area(Y, pred) == pytest.approx(0.10018760418798074, abs=1e-15)
    assert sharpness(pred) == pytest.approx(1.2847581727702688, abs=1e-15)
    # its prop_type="quantile" counts y_pred - y_true below the quantiles of the
    # standardised residual: skcalib's quantile curve of the reflected problem
    # (mean_absolute_calibration_error 0.06830808080808082, miscalibration_area
    # 0.06875275724108555)
    reflected = stats.norm(-MU, SD)
    assert regression_calibration_error(-Y, reflected, kind="quantile") == pytest.approx(
        0.06830808080808082, abs=1e-15
    )
    assert miscalibration_area(-Y, reflected, kind="quantile") == pytest.approx(
        0.06875275724108555, abs=1e-14
    )


def test_crps_golden_values_scoringrules_properscoring():
    # scoringrules 0.10.0 crps_normal, properscoring 0.1 crps_gaussian (equal to 1e-15)
    normal = [
        0.5392243864009336, 1.2953729268899636, 0.8045331963712526, 2.119493003690207,
        0.3289828606343375, 0.15462823295136757, 1.204610068333489, 0.09951003246148243,
        0.10698022646835567, 0.32370468002109176, 0.2876425458851043, 2.0241056533401793,
        0.3548391446480213, 1.7870267391281862, 1.6539063813824364, 0.7044552655505947,
    ]  # fmt: skip
    np.testing.assert_allclose(crps(Y, stats.norm(MU, SD), aggregate=False), normal, rtol=1e-13)
    assert crps(Y, stats.norm(MU, SD)) == pytest.approx(np.mean(normal), rel=1e-13)
    # scoringrules 0.10.0 crps_ensemble and properscoring 0.1 crps_ensemble
    ensemble = [
        0.66468, 2.09884, 1.07348, 2.74028, 0.24584, 0.15508, 1.45544, 0.0554, 0.07164,
        0.3178, 0.7944, 2.3804, 0.23004, 2.52552, 1.82836, 1.39416,
    ]  # fmt: skip
    np.testing.assert_allclose(crps(Y, PredictiveSamples(S), aggregate=False), ensemble, 1e-12)
    assert crps(Y, PredictiveSamples(S)) == pytest.approx(np.mean(ensemble), rel=1e-12)
    # scoringrules 0.10.0 crps_quantile(Y, Q, LEVELS)
    quantile = [
        0.59484, 1.18136, 0.7588, 2.06232, 0.31032, 0.17064, 1.12912, 0.11028, 0.11444,
        0.35548, 0.31908, 1.97496, 0.39448, 1.793, 1.65616, 0.67412,
    ]  # fmt: skip
    np.testing.assert_allclose(
        crps(Y, PredictiveQuantiles(Q, LEVELS), aggregate=False), quantile, rtol=1e-12
    )


@pytest.mark.parametrize(
    "dist, y, golden",
    [
        # scoringrules 0.10.0 crps_t(Y, 4.5, MU, SD)
        (
            lambda: stats.t(4.5, MU, SD),
            lambda: Y,
            [
                0.5874383699424631,
                1.2756156305530335,
                0.8082471289964734,
                2.052340874700474,
                0.335545617684809,
                0.16848468423447535,
                1.1768495829780017,
                0.1086995557203659,
                0.11518296806457026,
                0.3518231189519618,
                0.3145616588814256,
                1.9584302675734708,
                0.3888994360206955,
                1.7099121572621423,
                1.5844545756089399,
                0.6851358922261641,
            ],
        ),
        # scoringrules 0.10.0 crps_logistic(Y, MU, SD)
        (
            lambda: stats.logistic(MU, SD),
            lambda: Y,
            [
                0.8158645274917817,
                1.2412494729211612,
                0.8416344435490503,
                1.8989412302172717,
                0.36891160646269894,
                0.23414218491651284,
                1.1170794143292408,
                0.15232624630598596,
                0.1537181685991908,
                0.4848077581631094,
                0.44246912010945433,
                1.8081877378987496,
                0.5510114465745521,
                1.5373968507465603,
                1.428058393826632,
                0.6417719648048038,
            ],
        ),
        # scoringrules 0.10.0 crps_lognormal(|Y| + 0.1, MU, SD) (log-scale parameters)
        (
            lambda: stats.lognorm(SD, 0.0, np.exp(MU)),
            lambda: np.abs(Y) + 0.1,
            [
                0.8384423803746738,
                0.7995227913749954,
                0.5597457048771696,
                1.140353137627201,
                0.267453043707208,
                0.3762124759754014,
                0.6242969043493504,
                1.9071092271474468,
                0.10278680850743466,
                0.20692250782856428,
                0.6353466194972548,
                1.2089076807768384,
                0.5589602096826445,
                0.7513021168025154,
                0.80464441640686,
                0.36755191732259906,
            ],
        ),
        # scoringrules 0.10.0 crps_gamma(|Y| + 0.1, 2.5, scale=SD)
        (
            lambda: stats.gamma(2.5, 0.0, SD),
            lambda: np.abs(Y) + 0.1,
            [
                2.586755396334214,
                1.099720684557493,
                0.8006104129229143,
                1.2511660224680747,
                0.2790635778008905,
                0.2503432860834203,
                0.6352376469515122,
                0.29385286312227216,
                0.21675310910728984,
                1.6043314611532993,
                0.9754466296185413,
                0.9088532915575986,
                1.7189090582585995,
                0.6288365201744437,
                0.3952629180245729,
                0.2791110768191568,
            ],
        ),
    ],
)
def test_crps_scipy_families_match_scoringrules_closed_forms(dist, y, golden):
    np.testing.assert_allclose(crps(y(), dist(), aggregate=False), golden, rtol=1e-9, atol=1e-12)


def test_log_score_golden_values():
    # scoringrules 0.10.0 logs_normal(Y, MU, SD) and logs_t(Y, 4.5, MU, SD)
    normal = [
        1.6548109355808984, 2.1982347108037446, 1.7103324720650412, 2.860345584379973,
        0.8571971534961624, 0.4065897892474996, 2.1742727697980544, -0.021940497584831284,
        -0.020381386872150728, 1.1330537609275493, 1.0450321447071997, 2.8307092199837327,
        1.2656412225358886, 3.226780371205512, 3.036914059400632, 1.6868581812970553,
    ]  # fmt: skip
    student = [
        1.7197331606119453, 2.291870569679874, 1.8172600446254314, 2.878828420407165,
        0.9596076482696606, 0.47142005062107983, 2.2463064732129694, 0.041631062533504196,
        0.05074057896469728, 1.199172842730961, 1.1080426055597146, 2.841734937218914,
        1.3275768130529102, 2.97722203044851, 2.8471335867660237, 1.7374492837801414,
    ]  # fmt: skip
    np.testing.assert_allclose(log_score(Y, stats.norm(MU, SD), aggregate=False), normal, 1e-12)
    np.testing.assert_allclose(
        log_score(Y, stats.t(4.5, MU, SD), aggregate=False), student, rtol=1e-12
    )
    assert log_score(Y, stats.norm(MU, SD)) == pytest.approx(np.mean(normal), rel=1e-13)


def _netcal_data():
    rng = np.random.default_rng(3)
    mu = np.round(rng.normal(size=400), 4)
    sd = np.round(rng.uniform(0.2, 3.0, size=400), 4)
    y = np.round(mu + rng.normal(size=400) * sd * np.where(sd > 1.5, 0.7, 1.3), 4)
    # the data the golden values were computed on (a changed random stream fails here)
    assert (mu.sum(), sd.sum(), y.sum()) == pytest.approx((13.5752, 612.0004, 22.6116), abs=1e-9)
    return mu, sd, y


def test_netcal_golden_values():
    mu, sd, y = _netcal_data()
    pred = stats.norm(mu, sd)
    # netcal 1.4.0 ENCE(bins=10) and UCE(bins=10): equal-width bins between the smallest
    # and the largest predicted standard deviation (variance)
    assert expected_normalized_calibration_error(y, pred, strategy="uniform") == pytest.approx(
        0.2747767658003714, abs=1e-14
    )
    assert uncertainty_calibration_error(y, pred) == pytest.approx(1.4634642414999997, 1e-13)
    # netcal 1.4.0 PICP(bins=10).measure(..., q=0.9, reduction="mean"): picp, mpiw
    assert interval_coverage(y, pred, coverage=0.9) == 0.8975
    assert mean_interval_width(pred, coverage=0.9) == pytest.approx(5.03325538817876, rel=1e-13)


# ------------------------------------------------------------------- weighted interval score


def test_weighted_interval_score_definition():
    # Bracher et al. (2021): y = 2, median 2.5, one 50% interval [1, 3]:
    # (1/2 * 0.5 + 0.25 * IS_0.5) / 1.5 with IS_0.5 = 2 gives 0.5 (scoringrules 0.10's
    # numpy backend gives 1.1667: it adds w0 * median, not w0 * |y - median|)
    pred = PredictiveQuantiles([[1.0, 2.5, 3.0]], [0.25, 0.5, 0.75])
    assert weighted_interval_score([2.0], pred) == pytest.approx(0.5, abs=1e-15)
    # the definition with interval_score, on the quantile set of LEVELS
    pred = PredictiveQuantiles(Q, LEVELS)
    by_def = (
        0.5 * np.abs(Y - Q[:, 2])
        + 0.1 * interval_score(Y, Q[:, 0], Q[:, 4], alpha=0.2, aggregate=False)
        + 0.25 * interval_score(Y, Q[:, 1], Q[:, 3], alpha=0.5, aggregate=False)
    ) / 2.5
    np.testing.assert_allclose(weighted_interval_score(Y, pred, aggregate=False), by_def)
    # equal to the quantile approximation of the CRPS on the same quantiles
    np.testing.assert_allclose(by_def, crps(Y, pred, aggregate=False))


def test_weighted_interval_score_of_distributions():
    pred = stats.norm(MU, SD)
    alphas = np.array([0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    median = MU
    total = 0.5 * np.abs(Y - median)
    for a in alphas:
        lo, hi = stats.norm.interval(1 - a, MU, SD)
        total += a / 2 * interval_score(Y, lo, hi, alpha=a, aggregate=False)
    want = total / (len(alphas) + 0.5)
    np.testing.assert_allclose(weighted_interval_score(Y, pred, aggregate=False), want)
    # the same on the quantile set of those levels
    levels = np.sort(np.concatenate([alphas / 2, [0.5], 1 - alphas / 2]))
    qs = PredictiveQuantiles(stats.norm.ppf(levels[None, :], MU[:, None], SD[:, None]), levels)
    np.testing.assert_allclose(weighted_interval_score(Y, qs, aggregate=False), want)
    # many levels: close to the CRPS
    wis = weighted_interval_score(Y, pred, alphas=np.linspace(0.001, 0.999, 999))
    assert wis == pytest.approx(crps(Y, pred), rel=2e-3)
    with pytest.raises(ValueError, match="symmetric about it"):
        weighted_interval_score(Y, PredictiveQuantiles(Q[:, :3], LEVELS[:3]))
    with pytest.raises(ValueError, match="no median|has none"):
        weighted_interval_score(Y, PredictionInterval(Q[:, 0], Q[:, 4], 0.8))
    with pytest.raises(ValueError, match="alphas must lie"):
        weighted_interval_score(Y, pred, alphas=[0.0, 0.5])


# ------------------------------------------------------------------- calibration curve


def _slow_curve(y, dist, n_levels, kind):
    """Observed proportions level by level from scipy's intervals and quantiles."""
    tau = np.linspace(0, 1, n_levels)
    out = []
    for p in tau:
        if kind == "interval":
            lo, hi = dist.interval(p)
            out.append(np.mean((lo <= y) & (y <= hi)))
        else:
            out.append(np.mean(y <= dist.ppf(p)))
    return tau, np.array(out)


@pytest.mark.parametrize("kind", ["interval", "quantile"])
def test_curve_matches_level_by_level_loop(kind):
    rng = np.random.default_rng(1)
    n = 500
    mu, sd = rng.normal(size=n), rng.uniform(0.5, 2, size=n)
    y = mu + rng.standard_t(3, size=n) * sd
    for dist in (stats.norm(mu, sd), stats.t(3.0, mu, 1.3 * sd), stats.logistic(mu, sd)):
        expected, observed = regression_calibration_curve(y, dist, n_levels=37, kind=kind)
        tau, slow = _slow_curve(y, dist, 37, kind)
        np.testing.assert_array_equal(expected, tau)
        np.testing.assert_allclose(observed, slow, atol=1e-15)
        d = slow - tau
        assert regression_calibration_error(y, dist, n_levels=37, kind=kind) == pytest.approx(
            np.abs(d).mean()
        )
        assert regression_calibration_error(
            y, dist, n_levels=37, kind=kind, norm="max"
        ) == pytest.approx(np.abs(d).max())
        # the area by fine integration of the piecewise-linear curve
        x = np.linspace(0, 1, 370_001)
        area = np.trapezoid(np.abs(np.interp(x, tau, slow) - x), x)
        assert miscalibration_area(y, dist, n_levels=37, kind=kind) == pytest.approx(area, abs=1e-8)


def test_curve_of_samples_and_quantiles():
    rng = np.random.default_rng(2)
    n, m = 4000, 30
    mu = rng.normal(size=n)
    draws = mu[:, None] + rng.normal(size=(n, m))
    y = mu + rng.normal(size=n)
    # exchangeable draws: the randomised PIT is exactly uniform, the curve near the diagonal
    assert regression_calibration_error(y, PredictiveSamples(draws), random_state=0) < 0.02
    # over-dispersed draws: observed above expected for central intervals
    expected, observed = regression_calibration_curve(
        y, PredictiveSamples(3 * draws - 2 * mu[:, None]), random_state=0
    )
    assert np.all(observed[10:-10] > expected[10:-10])
    # the curve of a quantile set is the one of its piecewise-linear CDF
    levels = np.linspace(0.05, 0.95, 19)
    qs = PredictiveQuantiles(stats.norm.ppf(levels[None, :], mu[:, None], 1.0), levels)
    _, observed = regression_calibration_curve(y, qs, n_levels=11, kind="quantile")
    tau = np.linspace(0, 1, 11)
    cdf = qs.cdf(y)
    np.testing.assert_allclose(observed, [(cdf <= t).mean() for t in tau])
    # the PIT of a PredictionInterval is not defined
    with pytest.raises(ValueError, match="not PIT values"):
        regression_calibration_curve(y, PredictionInterval(mu - 1, mu + 1, 0.68))


def test_pit_of_forms():
    assert pit(Y, stats.norm(MU, SD)) == pytest.approx(stats.norm.cdf(Y, MU, SD), rel=1e-14)
    p = pit(Y, PredictiveSamples(S), random_state=0)
    rank = (S < Y[:, None]).sum(axis=1)
    assert np.all((p >= rank / 6) & (p <= (rank + 1) / 6))
    np.testing.assert_array_equal(p, pit(Y, PredictiveSamples(S), random_state=0))


# ------------------------------------------------------------------- intervals, sharpness


def test_interval_coverage_both_calls():
    pred = stats.norm(MU, SD)
    lo, hi = stats.norm.interval(0.8, MU, SD)
    assert interval_coverage(Y, pred, coverage=0.8) == interval_coverage(Y, lo, hi)
    assert interval_coverage(Y, PredictionInterval(lo, hi, 0.8)) == interval_coverage(Y, lo, hi)
    w = np.arange(16.0)
    assert interval_coverage(Y, pred, coverage=0.8, sample_weight=w) == pytest.approx(
        np.dot((lo <= Y) & (Y <= hi), w) / w.sum()
    )
    with pytest.raises(ValueError, match="leave coverage out"):
        interval_coverage(Y, lo, hi, coverage=0.8)
    with pytest.raises(ValueError, match="only its central 0.8 interval"):
        interval_coverage(Y, PredictionInterval(lo, hi, 0.8), coverage=0.9)
    # the default coverage: 0.9
    lo9, hi9 = stats.norm.interval(0.9, MU, SD)
    assert interval_coverage(Y, pred) == interval_coverage(Y, lo9, hi9)
    assert mean_interval_width(pred) == pytest.approx(np.mean(hi9 - lo9))
    assert mean_interval_width(PredictionInterval(lo, hi, 0.8)) == pytest.approx(np.mean(hi - lo))


def test_sharpness_of_forms():
    assert sharpness(PredictiveSamples(S)) == pytest.approx(np.sqrt(np.mean(S.var(axis=1))))
    w = np.linspace(1, 2, 16)
    assert sharpness(stats.norm(MU, SD), sample_weight=w) == pytest.approx(
        np.sqrt(np.dot(SD**2, w) / w.sum())
    )
    with pytest.raises(ValueError, match="not a variance"):
        sharpness(PredictionInterval(MU - 1, MU + 1, 0.5))


# ------------------------------------------------------------------- ENCE / UCE


def _slow_ence_uce(y, mu, sd, n_bins):
    """Levi et al.'s ENCE on equal-count bins of the sorted std; UCE on equal-width bins."""
    order = np.argsort(sd, kind="stable")
    ence = []
    for idx in np.array_split(order, n_bins):
        rmv = np.sqrt(np.mean(sd[idx] ** 2))
        rmse = np.sqrt(np.mean((mu[idx] - y[idx]) ** 2))
        ence.append(abs(rmv - rmse) / rmv)
    var = sd**2
    edges = np.linspace(var.min(), var.max(), n_bins + 1)
    b = np.clip(np.searchsorted(edges[1:], var, side="left"), 0, n_bins - 1)
    uce = 0.0
    for k in range(n_bins):
        sel = b == k
        if sel.any():
            uce += sel.mean() * abs(var[sel].mean() - np.mean((mu[sel] - y[sel]) ** 2))
    return np.mean(ence), uce


def test_ence_uce_match_slow():
    rng = np.random.default_rng(5)
    n = 1000  # a multiple of n_bins: equal-count bins are array_split's
    mu, sd = rng.normal(size=n), rng.uniform(0.2, 2, size=n)
    y = mu + rng.normal(size=n) * sd * 1.3
    ence, uce = _slow_ence_uce(y, mu, sd, 10)
    pred = stats.norm(mu, sd)
    assert expected_normalized_calibration_error(y, pred) == pytest.approx(ence, rel=1e-12)
    assert uncertainty_calibration_error(y, pred) == pytest.approx(uce, rel=1e-12)
    # samples and quantile sets read through their mean and variance
    draws = PredictiveSamples(mu[:, None] + sd[:, None] * np.array([[-1.0, 1.0]]))
    assert expected_normalized_calibration_error(y, draws) == pytest.approx(ence, rel=1e-12)
    with pytest.raises(ValueError, match="no variance"):
        uncertainty_calibration_error(y, PredictionInterval(mu - sd, mu + sd, 0.68))


# ------------------------------------------------------------------- invariances


def _metric_calls():
    pred = stats.norm(MU, SD)
    return {
        "crps": lambda y, p, **kw: crps(y, p, **kw),
        "log_score": lambda y, p, **kw: log_score(y, p, **kw),
        "mace": lambda y, p, **kw: regression_calibration_error(y, p, **kw),
        "area": lambda y, p, **kw: miscalibration_area(y, p, kind="quantile", **kw),
        "wis": lambda y, p, **kw: weighted_interval_score(y, p, **kw),
        "ence": lambda y, p, **kw: expected_normalized_calibration_error(
            y, p, strategy="uniform", n_bins=4, **kw
        ),
        "uce": lambda y, p, **kw: uncertainty_calibration_error(y, p, n_bins=4, **kw),
    }, pred


@pytest.mark.parametrize("name", list(_metric_calls()[0]))
def test_weight_is_repetition_and_inputs_untouched(name):
    calls, _ = _metric_calls()
    f = calls[name]
    w = np.array([1, 2, 0, 3] * 4)
    rep = np.repeat(np.arange(16), w)
    weighted = f(Y, stats.norm(MU, SD), sample_weight=w)
    repeated = f(Y[rep], stats.norm(MU[rep], SD[rep]))
    assert weighted == pytest.approx(repeated, rel=1e-12)
    # pandas and float32 inputs, inputs never modified
    y32 = pd.Series(Y.astype(np.float32))
    before = y32.copy()
    value = f(y32, stats.norm(MU, SD))
    pd.testing.assert_series_equal(y32, before)
    assert value == pytest.approx(f(Y.astype(np.float32).astype(np.float64), stats.norm(MU, SD)))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: crps([0.0, np.nan], stats.norm([0.0, 0.0], 1.0)), "y_true contains NaN"),
        (lambda: crps([0.0, 1.0, 2.0], stats.norm([0.0, 0.0], 1.0)), "different numbers"),
        (lambda: crps([0.0], [0.0]), "must be a predictive distribution"),
        (lambda: crps([0.0], stats.norm([0.0], 1.0), sample_weight=[-1.0]), "non-negative"),
        (lambda: log_score([0.0], PredictiveSamples([[0.0, 1.0]])), "no density"),
        (lambda: crps([0.0], PredictionInterval([0.0], [1.0], 0.5)), "not a CRPS"),
        (lambda: regression_calibration_error([0.0], stats.norm(0, [1.0]), norm="l3"), "norm"),
        (lambda: regression_calibration_curve([0.0], stats.norm(0, [1.0]), n_levels=1), "n_levels"),
        (lambda: regression_calibration_curve([0.0], stats.norm(0, [1.0]), kind="x"), "kind"),
        (lambda: mean_interval_width(stats.norm(0, [1.0]), coverage=1.0), "coverage"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_shortcuts_agree_with_general_functions():
    assert crps(Y, stats.norm(MU, SD)) == pytest.approx(crps_normal(Y, MU, SD), rel=1e-15)
    assert crps(Y, PredictiveSamples(S)) == pytest.approx(crps_ensemble(Y, S), rel=1e-15)
    # scalar parameters broadcast to y_true
    assert crps(Y, stats.norm(0.0, 1.0)) == pytest.approx(crps_normal(Y, 0.0, 1.0), rel=1e-15)
