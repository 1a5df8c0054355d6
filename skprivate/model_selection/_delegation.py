"""The searches' prediction methods: each one delegates to the released ``best_estimator_``.

A method exists on the search only when the released model (or, before fit, the template
estimator) has it, as in scikit-learn's ``BaseSearchCV``; probability and score columns are
placed under the search's ``classes_`` when the released run saw fewer classes.
"""

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted


class _DelegateToBestMixin:
    """``predict``, ``predict_proba``, ... of ``best_estimator_``, for the private searches."""

    # --- delegation to the best run's model ---------------------------------------------------
    # Each delegating method keeps its own numpydoc docstring (the API reference and the
    # docstring test read them), as scikit-learn's BaseSearchCV does; the repeated shape
    # of these short methods is deliberate.
    def _has(attr):
        def check(self):
            if hasattr(self, "best_estimator_"):
                return hasattr(self.best_estimator_, attr)
            return hasattr(self.estimator, attr)

        return check

    @available_if(_has("predict"))
    def predict(self, X):
        """Predict with the released model ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities from ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self._all_classes(self.best_estimator_.predict_proba(X), 0.0)

    @available_if(_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities from ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self._all_classes(self.best_estimator_.predict_log_proba(X), -np.inf)

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        """Decision function of ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        scores : ndarray
        """
        check_is_fitted(self)
        scores = self.best_estimator_.decision_function(X)
        seen = self.best_estimator_.classes_
        if len(seen) == len(self.classes_) or scores.ndim != 1:
            return self._all_classes(scores, -np.inf) if scores.ndim == 2 else scores
        # a binary model among more classes: +d for its positive class, -d for the other
        return self._all_classes(np.column_stack([-scores, scores]), -np.inf)

    def _all_classes(self, columns, missing):
        """Columns of the released model placed under ``classes_``; ``missing`` elsewhere."""
        seen = self.best_estimator_.classes_
        if len(seen) == len(self.classes_):
            return columns
        full = np.full((columns.shape[0], len(self.classes_)), missing, dtype=np.float64)
        full[:, np.searchsorted(self.classes_, seen)] = columns
        return full

    @available_if(_has("transform"))
    def transform(self, X):
        """Transform with ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        X_new : ndarray
        """
        check_is_fitted(self)
        return self.best_estimator_.transform(X)

    @available_if(_has("score"))
    def score(self, X, y=None):
        """Score of ``best_estimator_`` on ``X`` (its own ``score``; use public test data).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test rows.
        y : array-like of shape (n_samples,), default=None
            Targets.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        return self.best_estimator_.score(X, y)
