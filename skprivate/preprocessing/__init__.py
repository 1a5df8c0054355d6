"""Preprocessing for private rows: private statistics, or parameters declared in advance.

A scikit-learn ``StandardScaler`` or ``OneHotEncoder(categories="auto")`` in front of a
differentially private estimator learns from the private rows with no guarantee. The
transformers here either release their statistics with differential privacy
(:class:`StandardScaler`, :class:`RobustScaler`, :class:`OneHotEncoder` with
``categories="auto"``, :class:`SimpleImputer`), each with ``epsilon``, ``delta``,
``epsilon_`` and ``privacy_report_`` like the estimators, or learn nothing at all
(:class:`BoundedScaler`, :class:`BoundedKBinsDiscretizer`, :func:`make_bounded_preprocessor`,
declared categories).
:func:`make_private_pipeline` splits one budget across a pipeline's private steps.
"""

from ._binning import BoundedKBinsDiscretizer
from ._bounded import BoundedScaler, make_bounded_preprocessor
from ._encoders import OneHotEncoder
from ._imputers import SimpleImputer
from ._pipeline import DEFAULT_PREPROCESSING_SHARE, make_private_pipeline
from ._scalers import RobustScaler, StandardScaler

__all__ = [
    "DEFAULT_PREPROCESSING_SHARE",
    "BoundedKBinsDiscretizer",
    "BoundedScaler",
    "OneHotEncoder",
    "RobustScaler",
    "SimpleImputer",
    "StandardScaler",
    "make_bounded_preprocessor",
    "make_private_pipeline",
]
