"""The outputs of a fitted linear model, shared by the private and non-private dropout learners.

Every dropout estimator ends with ``coef_`` and ``intercept_`` of the same shapes (one row
for two classes), so prediction, one-vs-rest scores and the encoding of the class labels
into one-vs-rest targets are written once here.
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from ..utils._linear import labels_from_scores, linear_scores


def _encode_classes(estimator, y):
    """Set ``estimator.classes_`` from ``y`` and return each label's index in it."""
    check_classification_targets(y)
    estimator.classes_, y_index = np.unique(y, return_inverse=True)
    if len(estimator.classes_) < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least 2 classes in the data, but "
            f"the data contain only one class: {estimator.classes_[0]!r}."
        )
    return y_index


def _one_vs_rest_targets(y_index, n_classes, negative):
    """``1`` for the row's class and ``negative`` for the rest; one column for two classes."""
    if n_classes == 2:
        return np.where(y_index == 1, 1.0, negative)[:, None]
    T = np.full((len(y_index), n_classes), negative)
    T[np.arange(len(y_index)), y_index] = 1.0
    return T


# The methods below are one line each (``skprivate.utils._linear``); what they repeat is
# the numpydoc form of their own docstrings, which the API reference renders per method.
class _LinearRegressorOutput:
    """``predict`` of a fitted ``coef_`` of shape (n_features,) and float ``intercept_``."""

    def predict(self, X):
        """Predict with the fitted linear model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted values.
        """
        return linear_scores(self, X)


class _LinearClassifierOutput:
    """One-vs-rest ``decision_function`` and ``predict`` of a fitted linear classifier."""

    def decision_function(self, X):
        """Confidence scores: the one-vs-rest linear outputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, the score of ``classes_[1]`` (positive: predicted).
        """
        return linear_scores(self, X)

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        scores = self.decision_function(X)  # checks the fit before classes_ is read
        return labels_from_scores(self.classes_, scores)
