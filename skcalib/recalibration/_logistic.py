"""Weighted logistic regression by Newton's method (Platt scaling, beta calibration)."""

from __future__ import annotations

import numpy as np

__all__ = ["L2", "fit_logistic", "logistic_predict"]

#: Default ridge on the slopes (not the intercept) of the logistic fits, relative to the
#: mean log loss.
L2 = 1e-10


def _linear(F, coef):
    """``F @ coef`` column by column: the same bits whatever the number of rows (a
    matrix product may round differently for different sizes)."""
    s = F[:, 0] * coef[0]
    for j in range(1, F.shape[1]):
        s = s + F[:, j] * coef[j]
    return s


def _loss_grad_hess(F, t, w, coef, l2):
    s = _linear(F, coef)
    # log(1 + exp(s)) - t * s, stably
    loss = float(w @ (np.logaddexp(0.0, s) - t * s))
    p = np.empty_like(s)
    neg = s < 0
    e = np.exp(-np.abs(s))
    p[:] = 1 / (1 + e)
    p[neg] = e[neg] / (1 + e[neg])
    g = F.T @ (w * (p - t))
    H = (F * (w * p * (1 - p))[:, None]).T @ F
    slopes = coef.copy()
    slopes[-1] = 0.0  # the intercept (last column) is not penalised
    loss += 0.5 * l2 * float(slopes @ slopes)
    g = g + l2 * slopes
    H = H + l2 * np.diag((np.arange(coef.shape[0]) < coef.shape[0] - 1).astype(float))
    return loss, g, H


def fit_logistic(F, t, sample_weight=None, *, l2=L2, max_iter=500):
    """Coefficients minimising the weighted mean log loss of ``sigmoid(F @ coef)``
    plus ``l2 / 2`` times the squared norm of the slopes.

    ``F`` (n, d) holds the features and, last, a column of ones for the intercept;
    ``t`` the 0/1 targets.  Newton's method with backtracking.  The tiny default
    penalty makes the minimum unique and finite on separable data (where the
    unpenalised log loss has no minimum), and changes nothing measurable otherwise.
    """
    n, d = F.shape
    w = np.full(n, 1.0 / n) if sample_weight is None else sample_weight / sample_weight.sum()
    t = t.astype(np.float64)
    coef = np.zeros(d)
    loss, g, H = _loss_grad_hess(F, t, w, coef, l2)
    for _ in range(max_iter):
        ridge = 1e-12 * max(np.trace(H), 1e-300)
        try:
            step = np.linalg.solve(H + ridge * np.eye(d), g)
        except np.linalg.LinAlgError:  # pragma: no cover - the ridge prevents it
            step = g
        size = 1.0
        while True:
            new = coef - size * step
            new_loss, new_g, new_H = _loss_grad_hess(F, t, w, new, l2)
            if new_loss <= loss + 1e-4 * size * float(g @ -step) or size < 1e-10:
                break
            # near the optimum the decrease of the loss is below its rounding: a step
            # that does not increase it beyond that and reduces the gradient is taken
            # (the last, quadratically convergent Newton steps)
            if new_loss <= loss + 4 * np.finfo(float).eps * max(1.0, abs(loss)) and np.max(
                np.abs(new_g)
            ) < np.max(np.abs(g)):
                break
            size /= 2
        converged = abs(loss - new_loss) <= 1e-15 * max(1.0, abs(loss)) and np.max(
            np.abs(size * step)
        ) <= 1e-10 * max(1.0, np.max(np.abs(coef)))
        coef, loss, g, H = new, new_loss, new_g, new_H
        if converged or np.max(np.abs(g)) <= 1e-14:
            break
    return coef


def logistic_predict(F, coef):
    """``sigmoid(F @ coef)`` without overflow."""
    s = _linear(F, coef)
    e = np.exp(-np.abs(s))
    return np.where(s >= 0, 1 / (1 + e), e / (1 + e))
