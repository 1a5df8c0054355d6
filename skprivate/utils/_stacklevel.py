"""The stack level of the user's own line, for warnings raised deep inside a fit.

One floor below :mod:`skprivate.base`, so that modules :mod:`skprivate.base` itself imports
(the accountants, the deprecation helpers) can name the user's line without importing it.
"""

import os
import sys

import joblib
import sklearn

__all__ = []

# skprivate's own directory is this file's grandparent: sys.modules["skprivate"] may still be
# initialising when this module is first imported.
_LIBRARY_DIRS = tuple(
    os.path.dirname(path) + os.sep
    for path in (os.path.dirname(os.path.abspath(__file__)),  # skprivate/utils -> skprivate
                 sklearn.__file__, joblib.__file__)  # joblib runs sklearn's fits
)


def _user_stacklevel():
    """Stack level of the first caller outside skprivate and scikit-learn, for warnings.

    Fits are wrapped by scikit-learn (``_fit_context``, Pipeline, GridSearchCV), so a fixed
    level would point into library code; the user's line is what the warning should name.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
        frame, level = frame.f_back, level + 1
    return level
