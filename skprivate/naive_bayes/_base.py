"""What the private naive Bayes classifiers share: prediction, priors and the budget split.

Both classifiers release every statistic they need in one fit (noisy counts, and for
:class:`~skprivate.naive_bayes.GaussianNB` noisy sums and sums of squares) and predict by
post-processing alone, so nothing here touches the private rows.
"""

from fractions import Fraction

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..base import DPEstimatorMixin
from ..mechanisms._validation import exact_fraction

__all__ = []


def exact_rest(epsilon, part):
    """``epsilon - part`` stepped down until ``part + rest <= epsilon`` in exact arithmetic.

    Two mechanisms at ``part`` and ``rest`` compose to ``part + rest`` (basic composition,
    Dwork and Roth 2014, Theorem 3.16); the floats' real values must not exceed the
    ``epsilon`` charged, which a rounded float subtraction alone does not ensure.
    """
    epsilon, part = float(epsilon), float(part)
    rest = epsilon - part
    while Fraction(part) + Fraction(rest) > Fraction(epsilon):
        rest = np.nextafter(rest, 0.0)
    return float(rest)


def check_priors(priors, n_classes, owner, name):
    """``priors`` as a float array of ``n_classes`` non-negative numbers summing to 1."""
    priors = np.asarray(priors, dtype=float)
    if priors.ndim != 1 or priors.shape[0] != n_classes:
        raise ValueError(
            f"{owner}: {name} must hold one probability per class ({n_classes} classes); got "
            f"{name}={priors.tolist()!r}. Pass one prior per label of classes_, in sorted "
            "order."
        )
    if np.any(priors < 0) or not np.isclose(priors.sum(), 1.0):
        raise ValueError(
            f"{owner}: {name} must be non-negative and sum to 1; got {name}="
            f"{priors.tolist()!r} (sum {priors.sum():.6g}). Normalise them."
        )
    return priors


class _PrivateNB(DPEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Prediction from ``_joint_log_likelihood``: post-processing of the released model."""

    # The number of rows is never read into the model: the class counts are released with
    # noise and every other statistic is a noisy sum (skprivate.accounting.public_inputs).
    _skprivate_row_count_unused = (
        "not published: the class counts are released with noise, and no noise or plan "
        "depends on the number of rows"
    )

    def _privacy_plan(self, n_samples):
        # One pure epsilon-DP release whatever the number of rows (see each class's Notes).
        return self._privacy_spend(self.epsilon, 0.0)

    def predict_log_proba(self, X):
        """Log-probability of each class, from the private model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to classify.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        jll = self._joint_log_likelihood(self._check_predict_X(X))
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Probability of each class, from the private model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to classify.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples to classify.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        jll = self._joint_log_likelihood(self._check_predict_X(X))
        return self.classes_[np.argmax(jll, axis=1)]


def exact_scale(sensitivity, epsilon):
    """The discrete Laplace scale ``sensitivity / epsilon`` as an exact rational.

    The float quotient can fall an ulp below the real one; the sampler takes a Fraction and
    rounds up only, so the release is ``epsilon``-DP for the float ``epsilon`` charged.
    """
    return Fraction(sensitivity) / exact_fraction(epsilon)
