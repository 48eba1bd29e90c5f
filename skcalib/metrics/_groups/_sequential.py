"""An anytime-valid test of calibration by betting (e-values)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..._core._validation import check_classification_input
from ...utils._sklearn_compat import Interval, StrOptions, validate_params
from ._kernels import calibration_pairs

__all__ = ["SequentialCalibrationTest"]

#: intercepts and slopes of the recalibrations ``q = sigmoid(a + b * logit(p))`` that the
#: mixture bets on (Cox 1958): miscalibration in the large (a) and over- or
#: under-confidence (b), fine steps near the null (a = 0, b = 1)
INTERCEPTS = (-0.6, -0.3, -0.1, 0.0, 0.1, 0.3, 0.6)
SLOPES = (0.6, 0.8, 1.0, 1.25, 1.6)
#: probabilities are clipped to [_CLIP, 1 - _CLIP] inside the logarithms
_CLIP = 1e-15
#: rows of a block: the (rows x bets) work arrays stay small
_BLOCK = 4096


def _log_ratios(p, outcome, a, b):
    """Log-likelihood ratios (rows x bets) of the recalibrated forecasts
    ``q = sigmoid(a + b logit p)`` against ``p`` at the outcomes:
    ``-softplus(-z) - log p`` for ``y = 1`` and ``-softplus(z) - log(1 - p)`` for
    ``y = 0``, with ``z = a + b logit p``."""
    pc = np.clip(p, _CLIP, 1.0 - _CLIP)
    log_p, log_1p = np.log(pc), np.log1p(-pc)
    y = outcome.astype(bool)
    sign = np.where(y, -1.0, 1.0)
    # x = -z (y = 1) or z (y = 0); softplus(x) = max(x, 0) + log1p(exp(-|x|))
    x = (sign * (log_p - log_1p))[:, None] * b[None, :]
    x += sign[:, None] * a[None, :]
    out = np.abs(x)
    np.negative(out, out=out)
    np.exp(out, out=out)
    np.log1p(out, out=out)
    np.maximum(x, 0.0, out=x)
    out += x
    np.negative(out, out=out)
    out -= np.where(y, log_p, log_1p)[:, None]
    return out


def _logmeanexp_rows(x):
    """``log(mean(exp(x), axis=1))`` of a 2-D array."""
    m = x.max(axis=1)
    e = np.exp(x - m[:, None])
    return np.log(e.sum(axis=1)) + m - math.log(x.shape[1])


def _exp(x):
    """``exp(x)``, infinite beyond the float range."""
    return math.inf if x > 709.0 else math.exp(x)


class SequentialCalibrationTest:
    r"""Anytime-valid test of calibration by betting: look at it as often as you like.

    Calibration is checked on a stream of predictions (a model in production), chunk by
    chunk.  A test that is re-run at every look inflates its false alarms; this one
    does not: the probability that it *ever* rejects a calibrated stream is at most
    ``alpha``, however often it is looked at and whenever the stream is stopped
    (Arnold, Henzi and Ziegel 2023, "Sequentially valid tests for forecast
    calibration", Annals of Applied Statistics 17(3)).

    It bets against the forecasts.  Each bet is a recalibration
    :math:`q = \sigma(a + b\,\mathrm{logit}\,p)` (Cox 1958) fixed in advance, whose
    wealth after :math:`t` outcomes is the likelihood ratio

    .. math::

        E_t^{(a, b)} = \prod_{s \le t} \Bigl(\frac{q_s}{p_s}\Bigr)^{y_s}
            \Bigl(\frac{1 - q_s}{1 - p_s}\Bigr)^{1 - y_s},

    a nonnegative martingale of mean 1 when every outcome is Bernoulli with its
    forecast probability; the e-value is the average over a grid of 35 bets
    (intercepts :math:`a` from -0.6 to 0.6, slopes :math:`b` from 0.6 to 1.6, the null
    included), again a test martingale.  Ville's inequality gives
    :math:`P(\sup_t E_t \ge 1/\alpha) \le \alpha` under calibration; the test rejects
    at the first time :math:`E_t \ge 1/\alpha` and stays rejected.  Against a
    miscalibrated stream whose miscalibration is close to one of the bets the wealth
    grows exponentially, and the rejection comes after a number of outcomes inversely
    proportional to the Kullback-Leibler divergence of the recalibration.  The bets do
    not learn from the past (a mixture rather than the plug-in estimates of Arnold et
    al.), so the e-value does not depend on how the stream is cut into chunks, and the
    running maximum within each chunk is tracked: a rejection inside a chunk is found
    at its sample.

    Binary forecasts are tested on the positive-class probability; multiclass ones on
    the top-label confidence against the correctness of the prediction
    (``multiclass="auto"`` or ``"top_label"``), or class by class (``"classwise"``: the
    average of the classes' e-values, an e-process under calibration of every class).
    Probabilities are clipped to :math:`[10^{-15}, 1 - 10^{-15}]` in the logarithms (an
    outcome with forecast probability 0 gives a finite, enormous ratio).

    Parameters
    ----------
    alpha : float, default=0.05
        Level: the probability of ever rejecting a calibrated stream is at most
        ``alpha``.
    multiclass : {"auto", "top_label", "classwise"}, default="auto"
        What is tested.
    labels : array-like, default=None
        The classes, in the column order of ``y_proba``; by default those of the first
        chunk (pass them when a chunk may miss a class).
    pos_label : label, default=None
        Positive class of a binary problem.

    Attributes
    ----------
    evalue : float
        The e-value of the stream so far (1 before any data).
    max_evalue : float
        Its largest value so far (after any sample, not only at the looks).
    pvalue : float
        Anytime-valid p-value ``min(1, 1 / max_evalue)``.
    rejected : bool
        Whether the e-value has reached ``1 / alpha``.
    rejection_time : int or None
        Number of samples seen when it first did.
    n_samples : int
        Number of samples seen.

    See Also
    --------
    cumulative_calibration_test : A test of a fixed sample.

    References
    ----------
    .. [1] S. Arnold, A. Henzi and J. F. Ziegel, "Sequentially valid tests for
       forecast calibration", Annals of Applied Statistics 17(3), 2023.
    .. [2] G. Shafer, "Testing by betting: a strategy for statistical and scientific
       communication", JRSS A 184(2), 2021.
    .. [3] D. R. Cox, "Two further applications of a model for binary regression",
       Biometrika 45, 1958.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.metrics import SequentialCalibrationTest
    >>> rng = np.random.default_rng(0)
    >>> test = SequentialCalibrationTest(alpha=0.05)
    >>> for day in range(30):  # calibrated for 10 days, then over-confident
    ...     p = rng.uniform(0.05, 0.95, 200)
    ...     truth = p if day < 10 else 0.5 + 0.7 * (p - 0.5)
    ...     y = (rng.random(200) < truth).astype(int)
    ...     test = test.update(y, p)
    >>> test.rejected, test.rejection_time > 2000
    (True, True)
    """

    @validate_params(
        {
            "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
            "multiclass": [StrOptions({"auto", "top_label", "classwise"})],
            "labels": ["array-like", None],
            "pos_label": [numbers.Integral, str, numbers.Real, np.bool_, bool, None],
        },
        prefer_skip_nested_validation=True,
    )
    def __init__(self, *, alpha=0.05, multiclass="auto", labels=None, pos_label=None):
        self.alpha = alpha
        self.multiclass = multiclass
        self.labels = labels
        self.pos_label = pos_label
        a, b = np.meshgrid(np.array(INTERCEPTS), np.array(SLOPES), indexing="ij")
        self._a, self._b = a.ravel(), b.ravel()
        self._log_wealth = None  # (n_classes_tested, n_bets)
        self._classes = None
        self._log_max = 0.0
        self.rejection_time = None
        self.n_samples = 0

    @property
    def evalue(self):
        """The e-value of the stream so far (1 before any data)."""
        return _exp(self._log_evalue())

    @property
    def max_evalue(self):
        """The largest e-value so far, over every sample seen."""
        return _exp(self._log_max)

    @property
    def rejected(self):
        """Whether the e-value has reached ``1 / alpha`` (then it stays rejected)."""
        return self.rejection_time is not None

    @property
    def pvalue(self):
        """Anytime-valid p-value ``min(1, 1 / max_evalue)``."""
        return min(1.0, math.exp(-self._log_max))

    def _log_evalue(self, log_wealth=None):
        w = self._log_wealth if log_wealth is None else log_wealth
        if w is None:
            return 0.0
        return float(_logmeanexp_rows(w.reshape(1, -1))[0])

    def update(self, y_true, y_proba):
        """Bet on a chunk of outcomes.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels of the chunk.
        y_proba : array-like of shape (n_samples,) or (n_samples, n_classes)
            Their forecast probabilities.

        Returns
        -------
        self : SequentialCalibrationTest
            The test, with the chunk's outcomes bet on.
        """
        labels = self.labels if self._classes is None else self._classes
        data = check_classification_input(y_true, y_proba, labels=labels, pos_label=self.pos_label)
        if self._classes is None:
            self._classes = data.classes
        p, outcome, _, classes, k = calibration_pairs(data, self.multiclass)
        if self._log_wealth is None:
            self._log_wealth = np.zeros((k, self._a.shape[0]))
        threshold = -math.log(self.alpha)
        log_max = self._log_max
        n = data.n_samples
        rows = max(1, _BLOCK // k)
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            pairs = slice(start * k, stop * k)
            llr = _log_ratios(p[pairs], outcome[pairs], self._a, self._b)
            llr = llr.reshape(stop - start, k, -1)
            path = self._log_wealth[None] + np.cumsum(llr, axis=0)
            log_e = _logmeanexp_rows(path.reshape(stop - start, -1))
            if self.rejection_time is None:
                hit = np.flatnonzero(log_e >= threshold)
                if hit.shape[0]:
                    self.rejection_time = self.n_samples + start + int(hit[0]) + 1
            log_max = max(log_max, float(log_e.max()))
            self._log_wealth = path[-1]
        self.n_samples += n
        self._log_max = log_max
        return self

    def __repr__(self):
        return (
            f"SequentialCalibrationTest(alpha={self.alpha!r}, n_samples={self.n_samples}, "
            f"evalue={self.evalue:.4g}, rejected={self.rejected})"
        )
