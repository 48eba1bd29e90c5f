"""Vector and matrix scaling (Guo et al. 2017): multinomial logistic regression on the
logits."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.exceptions import ConvergenceWarning

from .._core._array_api import (
    get_namespace_and_device,
    into,
    max_float_dtype,
    namespace_and_device,
    namespace_name,
    to_numpy,
    work_array,
)
from ..utils._sklearn_compat import Interval
from ._base import BaseCalibrator, detach
from ._temperature import _xp_row_chunks

__all__ = ["MatrixScaling", "VectorScaling"]


def _cg(H, b, maxiter):
    """Conjugate gradients to a relative residual of 1e-12 (``rtol`` is named ``tol``
    before scipy 1.12)."""
    try:
        return cg(H, b, rtol=1e-12, atol=0.0, maxiter=maxiter)[0]
    except TypeError:  # pragma: no cover - scipy < 1.12
        return cg(H, b, tol=1e-12, atol=0.0, maxiter=maxiter)[0]


#: Stopping tolerances of the fit: float64 (numpy and every device that has it), and the
#: float32 ones of a device without float64, where the loss and gradient carry rounding errors
#: of about 1e-7 (relative) that no iteration can go below.
_TOLERANCES = {
    "float64": {"gtol": 1e-8, "ftol": 1e-13, "g_floor": 1e-15, "slack": 1e-14, "warn": 1e-6},
    "float32": {"gtol": 1e-5, "ftol": 1e-7, "g_floor": 1e-6, "slack": 1e-6, "warn": 1e-4},
}


def _on_host(a):
    """A fitted parameter array as numpy, from any namespace and device (an explicit
    transfer of its few numbers; works with dispatch off too)."""
    if isinstance(a, np.ndarray):
        return a
    a = detach(a)  # PyTorch: to the CPU
    namespace = getattr(a, "__array_namespace__", None)
    return to_numpy(a, namespace()) if namespace is not None else np.asarray(a)


def _in_namespace(a, xp, device, dtype):
    """The fitted parameter array ``a`` in the namespace ``xp``, on ``device``, in
    ``dtype``: cast where it is (fitted there), else through the host."""
    a_xp, a_device = get_namespace_and_device(a)
    if a_xp is not None and namespace_name(a_xp) == namespace_name(xp) and a_device == device:
        return xp.astype(a, dtype)
    host = _on_host(a).astype(np.float32 if dtype == xp.float32 else np.float64)
    return xp.asarray(host, device=device)


class _AffineScaling(BaseCalibrator):
    """``softmax(Z @ W.T + b)`` (or ``softmax(w * Z + b)``) fitted by weighted maximum
    likelihood: L-BFGS, then Newton-CG with exact Hessian-vector products to polish
    the (convex) optimum to machine precision.

    On the array API path the parameters (``2 k`` or ``k^2 + k`` numbers) and the
    iteration stay on the host; every pass over the logits (loss and gradient, or a
    Hessian-vector product) runs in the namespace and on the device of ``X``, in
    chunks of rows, and sends ``1 + len(theta)`` numbers back.
    """

    _diagonal = False
    _array_api = True

    def _penalty_vec(self, theta, k):
        """``theta`` minus the identity map (the penalty is ``alpha * ||.||^2``)."""
        if self._diagonal:
            return np.concatenate([theta[:k] - 1, theta[k:]])
        D = theta.reshape(k, k + 1).copy()
        D[:, :k] -= np.eye(k)
        return D.ravel()

    def _theta0(self, k):
        if self._diagonal:
            return np.concatenate([np.ones(k), np.zeros(k)])
        return np.column_stack([np.eye(k), np.zeros(k)]).ravel()

    def _problem(self, Z, y, sw, alpha, xp, device):
        """The objective of the fit for logits ``Z`` of the namespace ``xp`` (numpy's
        array API namespace for numpy input): the weighted mean negative
        log-likelihood plus the penalty, its gradient and its Hessian-vector
        products, each a chunked pass over ``Z`` on its device in the largest float
        dtype of the device (float64; float32 where the device has no float64).  The
        probabilities of the last ``theta`` are kept for the Hessian-vector products,
        and float32 logits on a device with float64 are cast once to a float64 copy.
        ``theta`` and ``v`` are host arrays; only ``1 + len(theta)`` numbers come back
        per pass."""
        n, k = Z.shape
        diag = self._diagonal
        top = max_float_dtype(xp, device)
        host_dtype = np.float32 if top == xp.float32 else np.float64
        chunks = _xp_row_chunks(n, k, top, xp, device)
        cols = xp.reshape(xp.arange(k, dtype=y.dtype, device=device), (1, -1))
        if sw is None:
            weights = [1.0 / n] * len(chunks)
        else:
            w = sw / xp.sum(sw)
            weights = [xp.reshape(w[start:stop], (-1, 1)) for start, stop in chunks]

        def on_device(theta):
            t = xp.asarray(theta.astype(host_dtype), device=device)
            if diag:
                return t[:k], t[k:]
            V = xp.reshape(t, (k, k + 1))
            return V[:, :k], V[:, k]

        def scores(Zc, A, b):
            return Zc * A + b if diag else Zc @ A.T + b

        def back(R, Zc):
            if diag:
                return xp.concat([xp.sum(R * Zc, axis=0), xp.sum(R, axis=0)])
            G = xp.concat([R.T @ Zc, xp.reshape(xp.sum(R, axis=0), (-1, 1))], axis=1)
            return xp.reshape(G, (-1,))

        # the chunks of Z in the dtype of the computation: views of Z, or (float32 logits
        # on a device with float64) one cast copy rather than a cast in every pass
        blocks = [xp.astype(Z[start:stop, :], top, copy=False) for start, stop in chunks]
        state = {}

        def fun(theta):
            A, b = on_device(theta)
            total, probas = None, []
            for (start, stop), w_c, Zc in zip(chunks, weights, blocks, strict=True):
                S = scores(Zc, A, b)
                S = S - xp.max(S, axis=1, keepdims=True)
                E = xp.exp(S)
                s = xp.sum(E, axis=1, keepdims=True)
                P = E / s
                Y = xp.astype(xp.reshape(y[start:stop], (-1, 1)) == cols, top)
                nll = -xp.sum((S - xp.log(s)) * Y * w_c)
                part = xp.concat([xp.reshape(nll, (1,)), back((P - Y) * w_c, Zc)])
                total = part if total is None else total + part
                probas.append(P)
            state["theta"], state["P"] = theta.copy(), probas
            sums = to_numpy(total, xp).astype(np.float64)
            D = self._penalty_vec(theta, k)
            return float(sums[0]) + alpha * float(D @ D), sums[1:] + 2 * alpha * D

        def hessp(theta, v):
            if not np.array_equal(state.get("theta"), theta):
                fun(theta)
            dA, db = on_device(v)
            total = None
            for w_c, Zc, P in zip(weights, blocks, state["P"], strict=True):
                PdS = P * scores(Zc, dA, db)
                AdS = PdS - P * xp.sum(PdS, axis=1, keepdims=True)
                part = back(AdS * w_c, Zc)
                total = part if total is None else total + part
            return to_numpy(total, xp).astype(np.float64) + 2 * alpha * v

        return fun, hessp

    def _fit(self, data):
        alpha = float(self.alpha)
        n, k = data.Z.shape
        xp, device = data.xp, data.device  # numpy's array API namespace for numpy input
        fun, hessp = self._problem(data.Z, data.y, data.sample_weight, alpha, xp, device)
        tol = _TOLERANCES["float32" if max_float_dtype(xp, device) == xp.float32 else "float64"]
        res = minimize(
            fun,
            self._theta0(k),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": self.max_iter, "gtol": tol["gtol"], "ftol": tol["ftol"]},
        )
        theta, loss = res.x, res.fun
        n_iter = int(res.nit)
        # Newton polish: exact Hessian-vector products, conjugate gradients
        for _ in range(20):
            loss, g = fun(theta)
            if np.max(np.abs(g)) <= tol["g_floor"]:
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
                    new_loss <= loss + tol["slack"] * abs(loss) and np.max(np.abs(new_g)) < g_norm
                ):
                    break
                size /= 2
            else:
                break
            theta = theta + size * step
            n_iter += 1
            if np.max(np.abs(size * step)) <= tol["slack"] * max(1.0, np.max(np.abs(theta))):
                break
        _, g = fun(theta)
        if not res.success and np.max(np.abs(g)) > tol["warn"]:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={self.max_iter} "
                "iterations; increase max_iter",
                ConvergenceWarning,
                stacklevel=4,  # fit, its fit_context, the caller
            )
        if self._diagonal:
            coef, intercept = theta[:k].copy(), theta[k:].copy()
        else:
            V = theta.reshape(k, k + 1)
            coef, intercept = V[:, :k].copy(), V[:, k].copy()
        # fitted arrays follow X (numpy arrays for numpy input), as scikit-learn's
        # estimators do
        host_dtype = np.float32 if max_float_dtype(xp, device) == xp.float32 else np.float64
        coef, intercept = (
            xp.asarray(a.astype(host_dtype), device=device) for a in (coef, intercept)
        )
        self.coef_, self.intercept_ = coef, intercept
        self.n_iter_ = n_iter

    def _predict_native(self, Z):
        # computed in the widest float of the device, as the fit, chunk by chunk, and
        # returned in the dtype of Z (no float64 copy of float32 logits): a float32
        # matrix product on a GPU may run at reduced precision (JAX's default on NVIDIA
        # GPUs is TF32, about 1e-3 relative)
        xp, device = namespace_and_device(Z)
        top = max_float_dtype(xp, device)
        W = _in_namespace(self.coef_, xp, device, top)
        b = _in_namespace(self.intercept_, xp, device, top)
        n, k = Z.shape
        # written into the output where the namespace writes in place (numpy), else
        # concatenated (JAX arrays are immutable)
        out = work_array(Z.shape, Z.dtype, xp, device)
        parts = []
        for start, stop in _xp_row_chunks(n, k, top, xp, device):
            c = xp.astype(Z[start:stop, :], top, copy=False)
            S = c * W + b if self._diagonal else c @ W.T + b
            S = xp.exp(S - xp.max(S, axis=1, keepdims=True))
            o = None if out is None else out[start:stop, :]
            P = into(o, xp.divide, S, xp.sum(S, axis=1, keepdims=True))  # o: in its dtype
            parts.append(xp.astype(P, Z.dtype, copy=False))
        if out is not None:
            return out
        return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)


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
        With ``array_api_dispatch=True`` and ``X`` of another array API namespace,
        an array of that namespace on the device of ``X`` (as ``intercept_``);
        ``predict_proba`` moves both to the namespace and device of its own ``X``.
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
        With ``array_api_dispatch=True`` and ``X`` of another array API namespace,
        an array of that namespace on the device of ``X`` (as ``intercept_``);
        ``predict_proba`` moves both to the namespace and device of its own ``X``.
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
