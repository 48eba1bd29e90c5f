"""normal_negative_log_likelihood: scipy golden values, weights, errors."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import norm

from skcalib.metrics import normal_negative_log_likelihood as nll


@pytest.mark.parametrize("seed", range(3))
def test_equals_minus_scipy_logpdf(seed):
    rng = np.random.RandomState(seed)
    n = 50
    y, mu, sd = rng.normal(size=n), rng.normal(size=n), rng.uniform(0.1, 3, n)
    expected = -norm.logpdf(y, loc=mu, scale=sd)
    assert_allclose(nll(y, mu, sd, aggregate=False), expected, rtol=1e-13)
    assert nll(y, mu, sd) == pytest.approx(expected.mean(), rel=1e-13)
    w = rng.randint(0, 4, n)
    w[0] = 1
    assert nll(y, mu, sd, sample_weight=w) == pytest.approx(
        np.average(expected, weights=w), rel=1e-13
    )
    # weight = repetition
    assert nll(y, mu, sd, sample_weight=w) == pytest.approx(
        nll(np.repeat(y, w), np.repeat(mu, w), np.repeat(sd, w)), rel=1e-13
    )


def test_closed_form_values_and_scalars():
    assert nll([0.0], [0.0], [1.0]) == pytest.approx(0.5 * np.log(2 * np.pi), rel=1e-15)
    # (y - mu) / sd = 2, sd = e: 0.5 log(2 pi) + 1 + 2
    assert nll([2 * np.e], 0.0, np.e) == pytest.approx(0.5 * np.log(2 * np.pi) + 3, rel=1e-14)
    assert nll([1.0, 2.0], 1.5, 0.5) == pytest.approx(-norm.logpdf(1.0, 1.5, 0.5), rel=1e-14)
    assert isinstance(nll([1.0], [1.0], [1.0]), float)


def test_float32_and_inputs_not_modified():
    y = np.array([0.1, 0.5, -1.0], dtype=np.float32)
    mu = np.zeros(3, dtype=np.float32)
    sd = np.ones(3, dtype=np.float32)
    copies = [a.copy() for a in (y, mu, sd)]
    value = nll(y, mu, sd)
    assert value == pytest.approx(
        nll(y.astype(float), mu.astype(float), sd.astype(float)), rel=1e-6
    )
    for a, c in zip((y, mu, sd), copies, strict=True):
        assert np.array_equal(a, c)


@pytest.mark.parametrize(
    "args, match",
    [
        (([0.0, 1.0], [0.0], [1.0, 1.0]), "y_mean"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, 0.0]), "y_std must be strictly positive"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, -1.0]), "y_std"),
        (([0.0, np.nan], [0.0, 0.0], [1.0, 1.0]), "y_true contains NaN"),
        (([0.0, 1.0], [0.0, np.inf], [1.0, 1.0]), "y_mean contains infinity"),
        (([0.0, 1.0], [0.0, 0.0], [1.0, np.nan]), "y_std contains NaN"),
        (([], [], []), "empty"),
        (([[0.0, 1.0], [1.0, 2.0]], [0.0, 0.0], [1.0, 1.0]), "1-D"),
    ],
)
def test_errors(args, match):
    with pytest.raises(ValueError, match=match):
        nll(*args)


def test_weight_errors():
    with pytest.raises(ValueError, match="sample_weight"):
        nll([0.0, 1.0], [0.0, 0.0], [1.0, 1.0], sample_weight=[1.0])
