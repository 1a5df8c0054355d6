"""Differentially private linear models."""

from ._dplssgd import DPLSSGDClassifier, DPLSSGDRegressor

__all__ = ["DPLSSGDClassifier", "DPLSSGDRegressor"]
