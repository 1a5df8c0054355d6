"""Differentially private naive Bayes classifiers.

:class:`GaussianNB` (numeric features with declared bounds) and :class:`CategoricalNB`
(coded categorical features with declared numbers of categories) release, once, noisy
counts and sums with exact discrete noise, and predict by post-processing. Both are pure
epsilon-DP for add/remove-one-row neighbours.
"""

from ._categorical import CategoricalNB
from ._gaussian import GaussianNB

__all__ = ["CategoricalNB", "GaussianNB"]
