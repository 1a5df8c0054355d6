"""Fine-tuning a linear (output) layer on public data, warm-started at the GEMS point."""

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, softmax

# Strength of the pull back towards the GEMS point, per public row: a small public set must
# not undo what the parties' spaces agreed on (Guha et al. 2018, Section 3.4, describe
# fine-tuning as "optimizing within the intersection"; a proximal penalty approximates it).
PROXIMAL_STRENGTH = 1e-2
_MAX_ITER = 200


def fine_tune_linear(features, y, coef, intercept, loss, strength=PROXIMAL_STRENGTH,
                     fit_intercept=True):
    """Minimise mean loss + strength / 2 * ||coef - coef0||^2 from (coef0, intercept0).

    Parameters
    ----------
    features : ndarray of shape (n, p)
    y : ndarray of shape (n,)
        Class indices (log loss) or targets (squared error).
    coef : ndarray of shape (n_outputs, p)
    intercept : ndarray of shape (n_outputs,)
    loss : {"log_loss", "squared_error"}
    strength : float
    fit_intercept : bool
        False keeps the intercepts fixed.

    Returns
    -------
    coef, intercept : ndarray
        The tuned layer.
    """
    coef0 = np.asarray(coef, dtype=float)
    n_out, p = coef0.shape
    n = features.shape[0]
    if loss == "log_loss" and n_out > 1:
        target = np.zeros((n, n_out))
        target[np.arange(n), y] = 1.0
    else:
        target = np.asarray(y, dtype=float).reshape(n, -1)

    def objective(theta):
        W = theta[: n_out * p].reshape(n_out, p)
        b = theta[n_out * p :]
        scores = features @ W.T + b
        if loss == "squared_error":
            residual = scores - target
            value = np.mean(residual**2)
            d_scores = 2.0 * residual / residual.size
        elif n_out == 1:
            z = scores[:, 0]
            value = np.mean(np.logaddexp(0.0, z) - target[:, 0] * z)
            d_scores = ((expit(z) - target[:, 0]) / n)[:, None]
        else:
            shifted = scores - scores.max(axis=1, keepdims=True)
            log_norm = np.log(np.exp(shifted).sum(axis=1))
            value = np.mean(log_norm - (shifted * target).sum(axis=1))
            d_scores = (softmax(scores, axis=1) - target) / n
        diff = W - coef0
        value += 0.5 * strength * np.sum(diff**2)
        grad_W = d_scores.T @ features + strength * diff
        grad_b = d_scores.sum(axis=0) if fit_intercept else np.zeros(n_out)
        return value, np.concatenate([grad_W.ravel(), grad_b])

    theta0 = np.concatenate([coef0.ravel(), np.asarray(intercept, dtype=float)])
    result = minimize(objective, theta0, jac=True, method="L-BFGS-B",
                      options={"maxiter": _MAX_ITER})
    theta = result.x
    return theta[: n_out * p].reshape(n_out, p), theta[n_out * p :]
