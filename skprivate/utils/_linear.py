"""Prediction from a fitted ``coef_`` and ``intercept_``, shared by every linear estimator.

The dropout learners and DP-LSSGD end with the same attributes (``coef_`` of shape
``(n_features,)`` for a regressor, ``(1, n_features)`` for two classes, ``(n_classes,
n_features)`` otherwise), so their scores and labels are computed once here; each estimator
keeps its own public method and docstring.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._validation import validate_numeric


def linear_scores(estimator, X, *, accept_sparse=False):
    """``X @ coef_.T + intercept_`` for a fitted ``estimator``, one column raveled.

    ``X`` is validated against the fit (``reset=False``); ``accept_sparse="csr"`` lets a
    CSR matrix through without densifying.
    """
    check_is_fitted(estimator)
    X = validate_numeric(estimator, X, accept_sparse=accept_sparse, dtype=np.float64, reset=False)
    scores = np.asarray(X @ estimator.coef_.T) + estimator.intercept_
    return scores.ravel() if scores.ndim == 2 and scores.shape[1] == 1 else scores


def labels_from_scores(classes, scores):
    """The label of each row: ``classes[1]`` where a 1-d score is positive, else the argmax."""
    index = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
    return classes[index]
