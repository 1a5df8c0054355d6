"""Clustering with differentially private centres.

:class:`KMeans` is a counterpart of :class:`sklearn.cluster.KMeans` whose centres are
released with differential privacy: a private start from the dense cells of a tree of noisy
counts, then noisy Lloyd iterations, all exact discrete noise accounted in zCDP.
"""

from ._kmeans import KMeans

__all__ = ["KMeans"]
