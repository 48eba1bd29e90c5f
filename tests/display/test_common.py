"""What every display shares: style keywords with aliases, and one validation."""

import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import same_color, to_rgb  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from skcalib._core import _validation  # noqa: E402
from skcalib.display import (  # noqa: E402
    ConfidenceHistogramDisplay,
    PITDisplay,
    RegressionCalibrationDisplay,
    RejectionDisplay,
    ReliabilityDisplay,
    _base,
)
from skcalib.utils import _sklearn_compat as compat  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=200)
    P = rng.dirichlet(np.ones(3), size=200)
    return y, P


# ------------------------------------------------------------------ style keywords
def _reliability_line(data, **kw):
    y, P = data
    disp = ReliabilityDisplay.from_predictions(y, P, **kw)
    return disp, disp.line_


def _reliability_bars(data, **kw):
    y, P = data
    disp = ReliabilityDisplay.from_predictions(y, P, kind="bar", **kw)
    return disp, disp.bars_.patches[0]


def _confidence_histogram(data, **kw):
    y, P = data
    disp = ConfidenceHistogramDisplay.from_predictions(y, P, **kw)
    return disp, disp.hist_


def _rejection(data, **kw):
    y, P = data
    disp = RejectionDisplay.from_predictions(y, P, **kw)
    return disp, disp.line_


def _pit_histogram(data, **kw):
    y, _ = data
    disp = PITDisplay.from_predictions(y.astype(float), 1.0, 1.0, **kw)
    return disp, disp.hist_


def _pit_curve(data, **kw):
    y, _ = data
    disp = PITDisplay.from_predictions(y.astype(float), 1.0, 1.0, **kw)
    return disp, disp.line_


def _regression_calibration(data, **kw):
    y, _ = data
    from scipy import stats

    disp = RegressionCalibrationDisplay.from_predictions(
        y.astype(float), stats.norm(np.ones(len(y)), 1.0), **kw
    )
    return disp, disp.line_


DRAWERS = [
    _reliability_line,
    _reliability_bars,
    _confidence_histogram,
    _rejection,
    _pit_histogram,
    _pit_curve,
    _regression_calibration,
]

# (user keywords, {property getter: expected value})
COMBOS = [
    ({"ls": "--"}, {"linestyle": "--"}),
    ({"linestyle": ":"}, {"linestyle": ":"}),
    ({"lw": 3.5}, {"linewidth": 3.5}),
    ({"linewidth": 0.5}, {"linewidth": 0.5}),
    ({"ls": "-.", "lw": 2.5}, {"linestyle": "-.", "linewidth": 2.5}),
    ({"c": "tab:green"}, {"color": "tab:green"}),
    ({"color": "tab:purple", "ls": "--"}, {"color": "tab:purple", "linestyle": "--"}),
    ({"c": "tab:orange", "linestyle": ":", "lw": 1.5}, {"color": "tab:orange", "lw": 1.5}),
]


def _main_color(artist):
    """The colour the user sets: a line's colour, a filled patch's face, else its edge."""
    if isinstance(artist, Line2D):
        return artist.get_color()
    return artist.get_facecolor() if artist.get_fill() else artist.get_edgecolor()


def _check(artist, expected):
    for prop, value in expected.items():
        if prop == "linestyle":
            assert artist.get_linestyle() == value, (artist, prop)
        elif prop in ("linewidth", "lw"):
            assert artist.get_linewidth() == value, (artist, prop)
        else:  # the colour, whatever the alpha
            assert same_color(to_rgb(_main_color(artist)), value), (artist, prop)


@pytest.mark.parametrize("draw", DRAWERS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize(("kwargs", "expected"), COMBOS, ids=lambda v: repr(v))
def test_style_aliases_override_the_defaults(data, draw, kwargs, expected):
    user = dict(kwargs)
    _, artist = draw(data, **user)
    _check(artist, expected)
    assert user == kwargs  # the caller's keywords are not modified


def test_alias_keeps_the_other_defaults(data):
    y, P = data
    disp = ReliabilityDisplay.from_predictions(y, P, ls="--", lw=3)
    assert disp.line_.get_linestyle() == "--" and disp.line_.get_linewidth() == 3
    assert disp.line_.get_marker() == "s" and disp.line_.get_markersize() == 5  # defaults
    bars = ReliabilityDisplay.from_predictions(y, P, kind="bar", ec="tab:red", show_histogram=True)
    rect = bars.bars_.patches[0]
    assert same_color(to_rgb(rect.get_edgecolor()), "tab:red")
    assert same_color(rect.get_facecolor(), "tab:blue") and rect.get_linewidth() == 0.8
    # the histogram below the bars takes the bars' colour
    coloured = ReliabilityDisplay.from_predictions(
        y, P, kind="bar", c="tab:green", show_histogram=True
    )
    assert same_color(coloured.bars_.patches[0].get_facecolor(), "tab:green")
    assert same_color(coloured.hist_.get_facecolor()[:3], "tab:green")
    # the rejection curve's references take the curve's colour, given by alias
    rej = RejectionDisplay.from_predictions(y, P, c="k", lw=1)
    assert same_color(rej.oracle_line_.get_color(), "k")
    assert same_color(rej.random_line_.get_color(), "k")
    assert rej.line_.get_linewidth() == 1


@pytest.mark.parametrize("draw", DRAWERS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize(
    "kwargs", [{"ls": "--", "linestyle": ":"}, {"c": "r", "color": "b"}, {"lw": 1, "linewidth": 2}]
)
def test_an_alias_and_its_long_name_together_is_a_value_error(data, draw, kwargs):
    with pytest.raises(ValueError, match=r"kwargs: .*aliases"):
        draw(data, **kwargs)


def test_plot_accepts_aliases_when_drawing_again(data):
    y, P = data
    disp = ReliabilityDisplay.from_predictions(y, P)
    disp.plot(ls=":", c="tab:red")
    assert disp.line_.get_linestyle() == ":" and same_color(disp.line_.get_color(), "tab:red")
    pit = PITDisplay.from_predictions(y.astype(float), 1.0, 1.0)
    pit.plot(kind="quantile", ls="--")
    assert pit.line_.get_linestyle() == "--" and pit.hist_ is None


def test_compat_reexports_scikit_learns_merge():
    from sklearn.utils import _plotting

    assert compat.validate_style_kwargs is getattr(_plotting, "_validate_style_kwargs", None)
    assert "validate_style_kwargs" in compat.__all__


FALLBACK_CASES = [
    ({"linestyle": "-", "color": "b"}, {"ls": "--"}, {"linestyle": "--", "color": "b"}),
    (
        {"linestyle": "-", "color": "b"},
        {"c": "r", "lw": 2},
        {"linestyle": "-", "color": "r", "linewidth": 2},
    ),
    ({"edgecolor": "k", "linewidth": 0.8}, {"ec": "r"}, {"edgecolor": "r", "linewidth": 0.8}),
    (
        {"marker": "s"},
        {"ms": 3, "mec": "k"},
        {"marker": "s", "markersize": 3, "markeredgecolor": "k"},
    ),
    ({"label": "a"}, {"label": "b", "alpha": 0.5}, {"label": "b", "alpha": 0.5}),
]


@pytest.mark.parametrize(("defaults", "user", "expected"), FALLBACK_CASES)
def test_fallback_merge_equals_scikit_learns(defaults, user, expected):
    d, u = dict(defaults), dict(user)
    assert _base.merge_style_fallback(d, u) == expected
    assert (d, u) == (defaults, user)  # not modified
    if compat.validate_style_kwargs is not None:
        assert compat.validate_style_kwargs(defaults, user) == expected
    with pytest.raises(TypeError, match="aliases"):
        _base.merge_style_fallback(defaults, {"ls": "--", "linestyle": ":"})


def test_displays_use_the_fallback_without_scikit_learns_merge(data, monkeypatch):
    monkeypatch.setattr(_base, "validate_style_kwargs", None)
    y, P = data
    disp = ReliabilityDisplay.from_predictions(y, P, ls="--", c="tab:green", lw=2)
    assert disp.line_.get_linestyle() == "--" and disp.line_.get_linewidth() == 2
    assert same_color(disp.line_.get_color(), "tab:green")
    hist = ConfidenceHistogramDisplay.from_predictions(y, P, ec="tab:red", lw=3)
    assert same_color(to_rgb(hist.hist_.get_edgecolor()), "tab:red")
    assert hist.hist_.get_linewidth() == 3
    with pytest.raises(ValueError, match=r"kwargs: .*aliases"):
        ReliabilityDisplay.from_predictions(y, P, ls="--", linestyle=":")


# ------------------------------------------------------------------ one validation
@pytest.fixture
def validations(monkeypatch):
    """Count the validations of classification input, wherever skcalib imported them.

    Every ``check_classification*`` function of the validation module is counted, and
    a call made inside another one counts as part of it.
    """
    calls = []
    depth = [0]

    def counting(func):
        def wrapper(*args, **kwargs):
            if depth[0] == 0:
                calls.append(func.__name__)
            depth[0] += 1
            try:
                return func(*args, **kwargs)
            finally:
                depth[0] -= 1

        return wrapper

    originals = {
        name: getattr(_validation, name)
        for name in dir(_validation)
        if name.startswith("check_classification") and callable(getattr(_validation, name))
    }
    assert "check_classification_input" in originals
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("skcalib"):
            continue
        for name, func in originals.items():
            if getattr(module, name, None) is func:
                monkeypatch.setattr(module, name, counting(func))
    return calls


@pytest.mark.parametrize(
    "make",
    [
        lambda y, P: ReliabilityDisplay.from_predictions(y, P),
        lambda y, P: ReliabilityDisplay.from_predictions(y, P, multiclass="classwise"),
        lambda y, P: ReliabilityDisplay.from_predictions(
            y, P, strategy="quantile", confidence_level=0.9, show_histogram=True
        ),
        lambda y, P: ConfidenceHistogramDisplay.from_predictions(y, P),
        lambda y, P: RejectionDisplay.from_predictions(y, P),
    ],
    ids=["reliability", "classwise", "quantile", "confidence_histogram", "rejection"],
)
def test_from_predictions_validates_once(data, validations, make):
    y, P = data
    make(y, P)
    assert len(validations) == 1


def test_bad_probabilities_still_rejected(data):
    y, P = data
    bad = P.copy()
    bad[3, 0] = np.nan
    for make in (
        ReliabilityDisplay.from_predictions,
        ConfidenceHistogramDisplay.from_predictions,
        RejectionDisplay.from_predictions,
    ):
        with pytest.raises(ValueError, match="y_proba"):
            make(y, bad)
    with pytest.raises(ValueError, match="y_proba"):
        ReliabilityDisplay.from_predictions(y, P * 2, multiclass="classwise")
