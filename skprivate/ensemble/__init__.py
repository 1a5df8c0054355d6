"""Differentially private ensembles: gradient-boosted trees on public bins."""

from ._gradient_boosting import HistGradientBoostingClassifier, HistGradientBoostingRegressor

__all__ = ["HistGradientBoostingClassifier", "HistGradientBoostingRegressor"]
