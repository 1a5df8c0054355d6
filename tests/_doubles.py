"""Minimal differentially private estimators used to test the shared machinery on their own.

:class:`NoisyMeanRegressor` releases the mean of the labels (clipped to [0, 1]) over a Poisson subsample, with
Gaussian noise on the sum: one step of the sampled Gaussian mechanism, so its cost depends on
the number of rows and it carries a dp-accounting event, like DP-SGD.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from skprivate.accounting import dpsgd_epsilon, dpsgd_event
from skprivate.base import DPEstimatorMixin


class NoisyMeanRegressor(DPEstimatorMixin, RegressorMixin, BaseEstimator):
    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "noise_multiplier": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, noise_multiplier=2.0, batch_size=20, epsilon=1.0, delta=1e-5,
                 accountant=None, random_state=None):
        self.noise_multiplier = noise_multiplier
        self.batch_size = batch_size
        self.epsilon = epsilon  # unused by the mechanism: the noise is given
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state

    def _privacy_plan(self, n_samples):
        q = min(1.0, self.batch_size / n_samples)
        eps = dpsgd_epsilon(self.noise_multiplier, q, 1, self.delta)
        return self._privacy_spend(eps, self.delta, dpsgd_event(self.noise_multiplier, q, 1))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        plan = self._begin_private_fit(X)
        X, y = validate_data(self, X, y, y_numeric=True)
        rng = self._noise_rng()
        n = X.shape[0]
        q = min(1.0, self.batch_size / n)
        chosen = rng.random(n) < q
        total = np.clip(y[chosen], 0, 1).sum() + rng.normal(0, self.noise_multiplier)
        self.mean_ = total / (q * n)
        self._finish_private_fit(plan, {"mechanism": "sampled Gaussian"}, n)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.full(X.shape[0], self.mean_)


class NoisyMajorityClassifier(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Report-noisy-max of the class counts: pure epsilon-DP, with no dp-accounting event.

    One row changes one count by 1, so Laplace(2 / epsilon) noise on each count and the arg
    max is epsilon-DP (Dwork and Roth 2014, Claim 3.9 with sensitivity 1 per count). A
    subclass may set ``caveat`` (reported by every fit) or ``seen`` (a list that records the
    number of rows and the ``extra`` fit argument of each fit).
    """

    _parameter_constraints = {**DPEstimatorMixin._dp_parameter_constraints}
    caveat = None
    seen = None

    def __init__(self, epsilon=1.0, delta=1e-5, accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state

    def _privacy_plan(self, n_samples):
        return self._privacy_spend(self.epsilon, 0.0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, extra=None):
        plan = self._begin_private_fit(X)
        X, y = validate_data(self, X, y)
        if self.seen is not None:
            self.seen.append((len(X), extra))
        self.classes_, counts = np.unique(y, return_counts=True)
        noisy = counts + self._noise_rng().laplace(0, 2 / self.epsilon, counts.size)
        self.label_ = self.classes_[np.argmax(noisy)]
        caveats = [] if self.caveat is None else [self.caveat]
        self._finish_private_fit(plan, {"mechanism": "report noisy max"}, len(y), caveats)
        return self

    def predict(self, X):
        check_is_fitted(self)
        return np.full(len(X), self.label_)


class NoContinuousNoiseGenerator(np.random.Generator):
    """A generator that refuses continuous draws: passed as ``random_state``, it shows that a
    fit releases no floating-point noise (the samplers of the granular mechanisms and of
    the integer noise draw integers only)."""

    def _refuse(self, *args, **kwargs):
        raise AssertionError("a continuous noise sample was drawn")

    normal = standard_normal = laplace = gumbel = exponential = _refuse
