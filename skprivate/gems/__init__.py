"""GEMS: one model from models that separate parties trained, via good-enough model spaces.

Guha et al. 2018 and Guha & Smith 2019. Not differentially private: ``epsilon`` here is a
loss threshold, not a privacy budget.
"""

from ._combiner import GEMSCombiner
from ._intersection import NoIntersectionError
from ._space import GoodEnoughSpace, good_enough_space

__all__ = ["GEMSCombiner", "GoodEnoughSpace", "NoIntersectionError", "good_enough_space"]
