"""Data sets shipped with skprivate, and helpers to preprocess them without leaking privacy.

The data files live inside the package (``skprivate/datasets/data``), so loading works
offline; see ``data/CREDITS.txt`` for their provenance and licence.
"""

from ._adult import load_adult
from ._adult_preprocessing import make_adult_preprocessor

__all__ = ["load_adult", "make_adult_preprocessor"]
