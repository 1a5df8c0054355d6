"""Hyperparameter search whose privacy cost, selection included, is part of the guarantee.

:class:`PrivateRandomSearchCV` and :class:`PrivateGridSearchCV` run a DP estimator a random
number of times on private data, score each run with noise on held-out private rows, and
release only the best run; the whole search meets one ``(epsilon, delta)`` budget
(Papernot and Steinke 2022; Liu and Talwar 2019). See the user guide, "Tuning without
leaking".
"""

from ._search import PrivateGridSearchCV, PrivateRandomSearchCV, RelativeToAuto

__all__ = ["PrivateGridSearchCV", "PrivateRandomSearchCV", "RelativeToAuto"]
