"""Vector and matrix scaling (Guo et al. 2017): multinomial logistic regression on the
logits."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg
from scipy.special import log_softmax
from sklearn.exceptions import ConvergenceWarning

from ..utils._sklearn_compat import Interval
from ._base import BaseCalibrator, softmax_rows

__all__ = ["MatrixScaling", "VectorScaling"]


def _cg(H, b, maxiter):
    """Conjugate gradients to a relative residual of 1e-12 (``rtol`` is named ``tol``
    before scipy 1.12)."""
    try:
        return cg(H, b, rtol=1e-12, atol=0.0, maxiter=maxiter)[0]
    except TypeError:  # pragma: no cover - scipy < 1.12
        return cg(H, b, tol=1e-12, atol=0.0, maxiter=maxiter)[0]


class _AffineScaling(BaseCalibrator):
    """``softmax(Z @ W.T + b)`` (or ``softmax(w * Z + b)``) fitted by weighted maximum
    likelihood: L-BFGS, then Newton-CG with exact Hessian-vector products to polish
    the (convex) optimum to machine precision."""

    _diagonal = False

    def _problem(self, Z, Y, w, alpha):
        n, k = Z.shape
        eye = np.eye(k)
        diag = self._diagonal

        def scores(theta):
            if diag:
                return Z * theta[:k] + theta[k:]
            V = theta.reshape(k, k + 1)
            return Z @ V[:, :k].T + V[:, k]

        def penalty_vec(theta):
            if diag:
                return np.concatenate([theta[:k] - 1, theta[k:]])
            D = theta.reshape(k, k + 1).copy()
            D[:, :k] -= eye
            return D.ravel()

        def back(R):
            """Gradient in theta of sum_ij R_ij S_ij (R already weighted)."""
            if diag:
                return np.concatenate([(R * Z).sum(axis=0), R.sum(axis=0)])
            return np.column_stack([R.T @ Z, R.sum(axis=0)]).ravel()

        state = {}

        def fun(theta):
            logP = log_softmax(scores(theta), axis=1)
            P = np.exp(logP)
            state["theta"], state["P"] = theta, P
            D = penalty_vec(theta)
            loss = -float(np.einsum("i,ij,ij->", w, Y, logP)) + alpha * float(D @ D)
            grad = back((P - Y) * w[:, None]) + 2 * alpha * D
            return loss, grad

        def hessp(theta, v):
            if state.get("theta") is not theta and not np.array_equal(state.get("theta"), theta):
                fun(theta)
            P = state["P"]
            if diag:
                dS = Z * v[:k] + v[k:]
            else:
                Vv = v.reshape(k, k + 1)
                dS = Z @ Vv[:, :k].T + Vv[:, k]
            Dv = v
            AdS = P * dS - P * (P * dS).sum(axis=1, keepdims=True)
            return back(AdS * w[:, None]) + 2 * alpha * Dv

        if diag:
            theta0 = np.concatenate([np.ones(k), np.zeros(k)])
        else:
            theta0 = np.column_stack([eye, np.zeros(k)]).ravel()
        return fun, hessp, theta0

    def _fit(self, data):
        Z = data.Z.astype(np.float64, copy=False)
        n, k = Z.shape
        Y = np.zeros((n, k))
        Y[np.arange(n), data.y] = 1.0
        sw = data.sample_weight
        w = np.full(n, 1.0 / n) if sw is None else sw / sw.sum()
        alpha = float(self.alpha)
        fun, hessp, theta0 = self._problem(Z, Y, w, alpha)
        res = minimize(
            fun,
            theta0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": 1e-8, "ftol": 1e-13},
        )
        theta, loss = res.x, res.fun
        n_iter = int(res.nit)
        # Newton polish: exact Hessian-vector products, conjugate gradients
        for _ in range(20):
            loss, g = fun(theta)
            if np.max(np.abs(g)) <= 1e-15:
                break
            H = LinearOperator((theta.size, theta.size), matvec=lambda v, t=theta: hessp(t, v))
            step = _cg(H, -g, maxiter=10 * theta.size)
            size = 1.0
            g_norm = np.max(np.abs(g))
            while size > 1e-8:
                new_loss, new_g = fun(theta + size * step)
                # near the optimum the loss changes below its rounding: accept a step
                # that does not increase it beyond that and reduces the gradient
                if new_loss <= loss or (
                    new_loss <= loss + 1e-14 * abs(loss) and np.max(np.abs(new_g)) < g_norm
                ):
                    break
                size /= 2
            else:
                break
            theta = theta + size * step
            n_iter += 1
            if np.max(np.abs(size * step)) <= 1e-14 * max(1.0, np.max(np.abs(theta))):
                break
        _, g = fun(theta)
        if not res.success and np.max(np.abs(g)) > 1e-6:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={self.max_iter} "
                "iterations; increase max_iter",
                ConvergenceWarning,
                stacklevel=4,  # fit, its fit_context, the caller
            )
        if self._diagonal:
            self.coef_, self.intercept_ = theta[:k].copy(), theta[k:].copy()
        else:
            V = theta.reshape(k, k + 1)
            self.coef_, self.intercept_ = V[:, :k].copy(), V[:, k].copy()
        self.n_iter_ = n_iter

    def _predict_native(self, Z):
        W = self.coef_.astype(Z.dtype)
        b = self.intercept_.astype(Z.dtype)
        S = Z * W + b if self._diagonal else Z @ W.T + b
        return softmax_rows(S, out=S)


class VectorScaling(_AffineScaling):
    r"""Vector scaling: one scale and one bias per class on the logits (Guo et al. 2017).

    .. math::

        \hat p(y = j \mid z) = \operatorname{softmax}(w \odot z + b)_j,

    with :math:`w, b \in \mathbb{R}^K` minimising the weighted mean negative
    log-likelihood of the calibration data plus :math:`\alpha (\lVert w - 1
    \rVert^2 + \lVert b \rVert^2)` (a penalty towards the identity that keeps the
    optimum finite on separable data and for classes absent from the calibration
    data; ``alpha=0`` is the unpenalised estimate of the paper).  Fitted with
    L-BFGS from the identity :math:`w = 1, b = 0`, then polished with Newton-CG and
    exact Hessian-vector products (the problem is convex).  Unlike temperature
    scaling it can change the predicted class.  A 1-D binary ``X`` (log-odds ``x``)
    is read as the logits ``[0, x]``, so that vector scaling is then Platt scaling of
    ``x``.

    Parameters
    ----------
    alpha : float, default=1e-3
        Strength of the penalty, >= 0.
    input : {"auto", "proba", "logits"}, default="auto"
        How ``X`` is read; see :class:`TemperatureScaling`.
    max_iter : int, default=1000
        Maximum number of L-BFGS iterations.

    classes : array-like of shape (n_classes,), default=None
        The classes, in the column order of ``X`` (for a 1-D ``X``: the two classes,
        the positive one, whose output ``X`` holds, last).  Default: the sorted labels
        of ``y``, which must then hold one class per column.  Pass it when the
        calibration data miss a class (:class:`RecalibratedClassifier` passes its
        classifier's ``classes_``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes,)
        The scales :math:`w`.
    intercept_ : ndarray of shape (n_classes,)
        The biases :math:`b`.
    n_iter_ : int
        Number of L-BFGS and Newton-CG iterations.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    References
    ----------
    C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017). On calibration of modern
    neural networks. ICML, PMLR 70, 1321-1330.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.recalibration import VectorScaling
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 1000)
    >>> logits = rng.standard_normal((1000, 3))
    >>> logits[np.arange(1000), y] += 1.0
    >>> vs = VectorScaling().fit(3 * logits, y)  # overconfident by a factor of 3
    >>> bool(np.all((vs.coef_ > 0.25) & (vs.coef_ < 0.45)))  # about 1 / 3
    True
    """

    _diagonal = True
    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, alpha=1e-3, input="auto", max_iter=1000, classes=None):
        self.alpha = alpha
        self.input = input
        self.classes = classes
        self.max_iter = max_iter


class MatrixScaling(_AffineScaling):
    r"""Matrix scaling: an affine map of the logits (Guo et al. 2017), L2-regularised.

    .. math::

        \hat p(y \mid z) = \operatorname{softmax}(W z + b),
        \qquad (W, b) = \arg\min\; -\frac{1}{\sum_i w_i}\sum_i w_i
        \log \hat p(y_i \mid z_i)
        + \alpha \left(\lVert W - I \rVert_F^2 + \lVert b \rVert^2\right).

    With :math:`K^2 + K` parameters matrix scaling overfits easily (Guo et al. 2017);
    the penalty (the L2 regularisation of Kull et al. 2019, centred on the identity
    so that a large ``alpha`` leaves the logits unchanged) controls it.  Fitted with
    L-BFGS and the exact gradient, started at the identity.  A 1-D binary ``X`` is read
    as the logits ``[0, x]``.

    Parameters
    ----------
    alpha : float, default=1e-3
        Strength of the penalty, >= 0 (0: no regularisation).
    input : {"auto", "proba", "logits"}, default="auto"
        How ``X`` is read; see :class:`TemperatureScaling`.
    max_iter : int, default=1000
        Maximum number of L-BFGS iterations.

    classes : array-like of shape (n_classes,), default=None
        The classes, in the column order of ``X`` (for a 1-D ``X``: the two classes,
        the positive one, whose output ``X`` holds, last).  Default: the sorted labels
        of ``y``, which must then hold one class per column.  Pass it when the
        calibration data miss a class (:class:`RecalibratedClassifier` passes its
        classifier's ``classes_``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_classes)
        The matrix :math:`W`.
    intercept_ : ndarray of shape (n_classes,)
        The bias :math:`b`.
    n_iter_ : int
        Number of L-BFGS and Newton-CG iterations.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    input_type_ : {"proba", "logits"}
        How ``X`` was read.
    n_features_in_ : int
        Number of columns of ``X``.

    References
    ----------
    C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017). On calibration of modern
    neural networks. ICML, PMLR 70, 1321-1330.

    M. Kull, M. Perello-Nieto, M. Kängsepp, T. Silva Filho, H. Song and P. Flach
    (2019). Beyond temperature scaling: obtaining well-calibrated multiclass
    probabilities with Dirichlet calibration. NeurIPS 32.

    Examples
    --------
    >>> import numpy as np
    >>> from skcalib.recalibration import MatrixScaling
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 1000)
    >>> logits = rng.standard_normal((1000, 3))
    >>> logits[np.arange(1000), y] += 1.0
    >>> ms = MatrixScaling().fit(logits, y)
    >>> ms.coef_.shape
    (3, 3)
    >>> bool(np.allclose(ms.predict_proba(logits).sum(axis=1), 1.0))
    True
    """

    _parameter_constraints: dict = {
        **BaseCalibrator._parameter_constraints,
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(self, *, alpha=1e-3, input="auto", max_iter=1000, classes=None):
        self.alpha = alpha
        self.input = input
        self.classes = classes
        self.max_iter = max_iter
