"""Differentially private linear models."""

from ._adassp import LinearRegression, Ridge
from ._dplssgd import DPLSSGDClassifier, DPLSSGDRegressor

__all__ = ["DPLSSGDClassifier", "DPLSSGDRegressor", "LinearRegression", "Ridge"]
