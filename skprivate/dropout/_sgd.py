"""Dropout as a regulariser: mini-batch SGD with sampled dropout, or its expected objective.

Jain, Kulkarni, Thakurta and Williams (2015), Algorithm 1: at every step each input
coordinate of each row of the mini-batch is kept with probability ``q`` and rescaled by
``1 / q`` (so the prediction is unbiased), and the gradient of the loss at the dropped-out
input is followed. ``dropout="deterministic"`` minimises the expected dropout objective
instead: exactly for the squared loss (``_regression``: squared loss plus
``c sum_j x_j^2 theta_j^2``, ``c = (1 - q) / q``, paper Lemma 4), and through the
second-order approximation of Wager, Wang and Liang (2013) for the logistic loss, whose
expectation has no closed form. No differential-privacy claim is made here.
"""

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from ..utils._docstrings import SHARED_DOCS, Substitution, fragment
from ..utils._validation import validate_numeric
from ._linear_output import (
    _encode_classes,
    _LinearClassifierOutput,
    _LinearRegressorOutput,
    _one_vs_rest_targets,
)
from ._regression import dropout_penalty_factor

__all__ = ["DropoutSGDClassifier", "DropoutSGDRegressor"]


def _residual(loss, scores, targets):
    """Derivative of the per-row loss in the scores: squared ``(z - y)``, logistic ``p - t``."""
    if loss == "squared_error":
        return scores - targets
    return expit(scores) - targets


def _sgd(X, T, *, loss, keep_prob, alpha, fit_intercept, max_iter, batch_size,
         learning_rate, shuffle, rng):
    """Dropout mini-batch SGD; loops over batches, never over rows. ``T`` is (n, K)."""
    n, p = X.shape
    K = T.shape[1]
    W = np.zeros((p, K))
    b = np.zeros(K)
    batch = min(batch_size, n)
    for _ in range(max_iter):
        order = rng.permutation(n) if shuffle else np.arange(n)
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            Xb = X[idx]
            if keep_prob < 1:
                Xb = Xb * (rng.random(Xb.shape) < keep_prob) / keep_prob
            r = _residual(loss, Xb @ W + b, T[idx])
            step = learning_rate
            if loss == "squared_error":
                # Normalised LMS: the squared loss diverges once step * ||x||^2 > 2, and
                # dropout's 1/q rescaling makes ||x||^2 large; scaling by the batch's mean
                # squared norm keeps unscaled data stable (a no-op for small inputs).
                step /= max(1.0, float(np.einsum("ij,ij->", Xb, Xb)) / len(idx) + 1.0)
            W -= step * (Xb.T @ r / len(idx) + alpha * W)
            if fit_intercept:
                b -= step * r.mean(axis=0)
    return W, b


def _expected_squared(X, T, c, alpha, fit_intercept):
    """Exact minimiser of mean 1/2 (y - <x,w> - b)^2 + c/(2n) sum x_j^2 w_j^2 + alpha/2 ||w||^2."""
    n, p = X.shape
    col_sq = np.einsum("ij,ij->j", X, X)
    A = X.T @ X
    A[np.diag_indices_from(A)] += c * col_sq + n * alpha
    rhs = X.T @ T
    if fit_intercept:
        s = X.sum(axis=0)
        A = np.block([[A, s[:, None]], [s[None, :], np.array([[float(n)]])]])
        rhs = np.vstack([rhs, T.sum(axis=0, keepdims=True)])
    sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
    if fit_intercept:
        return sol[:-1], sol[-1]
    return sol, np.zeros(T.shape[1])


def _expected_logistic(X, T, c, alpha, fit_intercept, max_iter):
    """Wager et al. (2013) approximation of the expected dropout logistic loss, per output.

    Mean of ``log(1 + e^z) - t z + c/2 * p (1 - p) * sum_j x_j^2 w_j^2`` plus
    ``alpha/2 ||w||^2``, minimised with L-BFGS.
    """
    n, p = X.shape
    X2 = X * X
    Ws, bs, n_iter = [], [], 1

    for k in range(T.shape[1]):
        t = T[:, k]

        def fun(v, t=t):
            w, b0 = v[:p], (v[p] if fit_intercept else 0.0)
            z = X @ w + b0
            prob = expit(z)
            s = prob * (1 - prob)
            q = X2 @ (w * w)
            value = np.mean(np.logaddexp(0, z) - t * z + 0.5 * c * s * q) + 0.5 * alpha * w @ w
            dz = (prob - t + 0.5 * c * s * (1 - 2 * prob) * q) / n
            gw = X.T @ dz + c * (X2.T @ s) * w / n + alpha * w
            grad = np.append(gw, dz.sum()) if fit_intercept else gw
            return value, grad

        v0 = np.zeros(p + int(fit_intercept))
        res = minimize(fun, v0, jac=True, method="L-BFGS-B", options={"maxiter": max_iter * 10})
        Ws.append(res.x[:p])
        bs.append(res.x[p] if fit_intercept else 0.0)
        n_iter = max(n_iter, int(res.nit))
    return np.column_stack(Ws), np.array(bs), n_iter


class _BaseDropoutSGD:
    _parameter_constraints = {
        "keep_prob": [Interval(Real, 0, 1, closed="right")],
        "dropout": [StrOptions({"random", "deterministic"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def _fit_targets(self, X, T, loss):
        keep = float(self.keep_prob)
        c = dropout_penalty_factor(keep)
        if self.dropout == "deterministic":
            if loss == "squared_error":
                W, b = _expected_squared(X, T, c, float(self.alpha), self.fit_intercept)
                self.n_iter_ = 1
            else:
                W, b, self.n_iter_ = _expected_logistic(
                    X, T, c, float(self.alpha), self.fit_intercept, self.max_iter
                )
            return W, b
        W, b = _sgd(
            X, T, loss=loss, keep_prob=keep, alpha=float(self.alpha),
            fit_intercept=self.fit_intercept, max_iter=self.max_iter,
            batch_size=self.batch_size, learning_rate=float(self.learning_rate),
            shuffle=self.shuffle, rng=check_random_state(self.random_state),
        )
        self.n_iter_ = self.max_iter
        return W, b


_COMMON_PARAMS = fragment(
    """
    keep_prob : float, default=0.5
        Probability ``q`` in (0, 1] of keeping each input coordinate; kept coordinates are
        rescaled by ``1 / q``. ``1`` is plain SGD.

    dropout : {"random", "deterministic"}, default="random"
        ``"random"``: sample a fresh mask for every row of every mini-batch (paper
        Algorithm 1). ``"deterministic"``: minimise the expected dropout objective,
        ``loss + c/(2n) sum_ij x_ij^2 coef_j^2`` with ``c = (1 - q) / q`` for the squared
        loss (exact, paper Lemma 4); for the logistic loss the penalty is weighted by
        ``p_i (1 - p_i)``, the second-order approximation of Wager et al. (2013).

    alpha : float, default=0.0
        L2 penalty ``alpha / 2 * ||coef_||^2`` on top of dropout (the intercept is not
        penalised).

    fit_intercept : bool, default=True
        Whether to fit an intercept; it is never dropped out.

    max_iter : int, default=50
        Number of epochs of ``dropout="random"`` (L-BFGS iterations / 10 for the
        deterministic logistic loss).

    batch_size : int, default=32
        Rows per mini-batch (at most ``n_samples``).

    learning_rate : float, default=0.05
        Constant step size of the mini-batch steps (gradients are batch means).

    shuffle : bool, default=True
        Whether to reshuffle the rows before every epoch.

    random_state : int, RandomState instance or None, default=None
        Seed of the shuffles and the dropout masks.
    """
)

_EXAMPLES_NOTE = fragment(
    """
    This estimator makes no differential-privacy claim: dropout is used as a regulariser,
    which Jain et al. show also makes the model stable to the removal of training rows.
    For a private model see :class:`DPDropoutRegressor` / :class:`DPDropoutClassifier`.
    """
)

_DOCS = {
    **SHARED_DOCS,
    "dropout_sgd_parameters": _COMMON_PARAMS,
    "dropout_sgd_note": _EXAMPLES_NOTE,
}


@Substitution(**_DOCS)
class DropoutSGDRegressor(_BaseDropoutSGD, _LinearRegressorOutput, RegressorMixin, BaseEstimator):
    """Linear regression trained by dropout SGD (non-private).

    Mini-batch SGD on the squared loss ``1/2 (y - <x, coef> - intercept)^2`` where each input
    coordinate is dropped with probability ``1 - keep_prob`` (Jain et al. [1]_,
    Algorithm 1), or the exact minimiser of the expected dropout objective.

    Read more in the :ref:`User Guide <dropout>`.

    Parameters
    ----------
    %(dropout_sgd_parameters)s

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Coefficients.

    intercept_ : float
        Intercept.

    n_iter_ : int
        Epochs run (1 for the closed form).

    %(n_features_in_)s

    %(feature_names_in_)s

    See Also
    --------
    DropoutSGDClassifier : The classification counterpart.
    DPDropoutRegressor : Differentially private dropout least squares.

    Notes
    -----
    %(dropout_sgd_note)s

    %(dropout_reference_section)s

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.dropout import DropoutSGDRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=500)
    >>> reg = DropoutSGDRegressor(dropout="deterministic", keep_prob=0.8).fit(X, y)
    >>> reg.coef_.round(1)
    array([ 0.8, -1.6,  0.4])
    """

    # The regressor's and the classifier's __init__ repeat each other on purpose:
    # scikit-learn reads an estimator's parameters from its own __init__ signature.
    def __init__(
        self,
        *,
        keep_prob=0.5,
        dropout="random",
        alpha=0.0,
        fit_intercept=True,
        max_iter=50,
        batch_size=32,
        learning_rate=0.05,
        shuffle=True,
        random_state=None,
    ):
        self.keep_prob = keep_prob
        self.dropout = dropout
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.shuffle = shuffle
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        self : DropoutSGDRegressor
            The fitted regressor.
        """
        X, y = validate_numeric(self, X, y, dtype=np.float64, y_numeric=True)
        W, b = self._fit_targets(X, np.asarray(y, dtype=float)[:, None], "squared_error")
        self.coef_ = W[:, 0]
        self.intercept_ = float(b[0])
        return self


@Substitution(**_DOCS)
class DropoutSGDClassifier(
    _BaseDropoutSGD, _LinearClassifierOutput, ClassifierMixin, BaseEstimator
):
    """Linear classifier trained by dropout SGD (non-private).

    One-vs-rest (a single output for two classes) mini-batch SGD on the logistic loss, or on
    the squared loss of ``+1/-1`` targets, where each input coordinate is dropped with
    probability ``1 - keep_prob`` (Jain et al. [1]_, Algorithm 1); or the minimiser of the
    expected dropout objective.

    Read more in the :ref:`User Guide <dropout>`.

    Parameters
    ----------
    loss : {"log_loss", "squared_error"}, default="log_loss"
        ``"log_loss"``: logistic regression per class (``predict_proba`` available).
        ``"squared_error"``: least squares on ``+1/-1`` targets, the model of
        :class:`DPDropoutClassifier`.

    %(dropout_sgd_parameters)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.

    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients; one row for two classes (the decision function of ``classes_[1]``).

    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.

    n_iter_ : int
        Epochs run (1 for the closed form; L-BFGS iterations for the deterministic
        logistic loss).

    %(n_features_in_)s

    %(feature_names_in_)s

    See Also
    --------
    DropoutSGDRegressor : The regression counterpart.
    DPDropoutClassifier : Differentially private dropout classification.

    Notes
    -----
    %(dropout_sgd_note)s

    %(dropout_reference_section)s

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.dropout import DropoutSGDClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = DropoutSGDClassifier(keep_prob=0.5, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _parameter_constraints = {
        **_BaseDropoutSGD._parameter_constraints,
        "loss": [StrOptions({"log_loss", "squared_error"})],
    }

    def __init__(
        self,
        loss="log_loss",
        *,
        keep_prob=0.5,
        dropout="random",
        alpha=0.0,
        fit_intercept=True,
        max_iter=50,
        batch_size=32,
        learning_rate=0.05,
        shuffle=True,
        random_state=None,
    ):
        self.loss = loss
        self.keep_prob = keep_prob
        self.dropout = dropout
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.shuffle = shuffle
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : DropoutSGDClassifier
            The fitted classifier.
        """
        X, y = validate_numeric(self, X, y, dtype=np.float64)
        y_index = _encode_classes(self, y)
        # 0/1 targets for the logistic loss, +1/-1 for least squares.
        negative = -1.0 if self.loss == "squared_error" else 0.0
        T = _one_vs_rest_targets(y_index, len(self.classes_), negative)
        W, b = self._fit_targets(X, T, self.loss)
        self.coef_ = W.T
        self.intercept_ = b
        return self

    def _has_proba(self):
        return self.loss == "log_loss"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (one-vs-rest sigmoids, normalised for three or more classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities of ``classes_``.
        """
        prob = expit(self.decision_function(X))
        if prob.ndim == 1:
            return np.column_stack([1 - prob, prob])
        return prob / prob.sum(axis=1, keepdims=True)
