"""PATE: private aggregation of teacher ensembles (Papernot et al. 2017 and 2018)."""

from ._classifier import PATEClassifier

__all__ = ["PATEClassifier"]
