"""Matrix decompositions whose fitted statistics are differentially private."""

from ._pca import PCA

__all__ = ["PCA"]
