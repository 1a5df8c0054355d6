"""Dropout learners and dropout-based differential privacy.

Non-private dropout SGD (:class:`DropoutSGDClassifier`, :class:`DropoutSGDRegressor`), the
private dropout least squares of Jain, Kulkarni, Thakurta and Williams (2015)
(:class:`DPDropoutRegressor`, :class:`DPDropoutClassifier`), and their private selection of
a simplex vertex for binary data (:func:`private_argmin_simplex`).
"""

from ._dp_estimators import DPDropoutClassifier, DPDropoutRegressor
from ._simplex import private_argmin_simplex
from ._sgd import DropoutSGDClassifier, DropoutSGDRegressor

__all__ = [
    "DPDropoutClassifier",
    "DPDropoutRegressor",
    "DropoutSGDClassifier",
    "DropoutSGDRegressor",
    "private_argmin_simplex",
]
