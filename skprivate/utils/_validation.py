"""Input validation with messages that name the input and say how to fix it."""

import contextlib

import numpy as np
from sklearn.utils.validation import validate_data

__all__ = ["ENCODE_CATEGORICAL", "check_bounds_pair", "explain_non_numeric", "validate_numeric"]

ENCODE_CATEGORICAL = (
    "Encode categorical columns first, with categories fixed from public knowledge "
    "(reading them from the private data leaks them): for example a "
    "OneHotEncoder(categories=[...]) in a Pipeline, or "
    "skprivate.datasets.make_adult_preprocessor for the Adult data."
)


@contextlib.contextmanager
def explain_non_numeric(owner, where="X must be numeric", remedy=ENCODE_CATEGORICAL):
    """Turn NumPy's bare "could not convert string to float: 'b'" into a clear error.

    scikit-learn lets that message through, and it names neither the input nor the remedy;
    tabular data often reaches an estimator with a categorical column still in it.
    """
    try:
        yield
    except ValueError as error:
        if not str(error).startswith("could not convert"):
            raise
        raise ValueError(
            f"{owner}: {where}, but a value could not be read as a number ({error}). {remedy}"
        ) from None


def validate_numeric(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, with a clear error for non-numeric ``X``."""
    with explain_non_numeric(type(estimator).__name__):
        return validate_data(estimator, X, y, **kwargs)


def check_bounds_pair(bounds, n_features, owner, example):
    """``bounds=(lower, upper)`` as two finite float arrays of length ``n_features``.

    Each bound is one number or one per feature. How ``lower`` must compare with ``upper``
    is left to the caller (some allow a constant feature, some do not). ``example`` ends
    the error message: a concrete ``bounds=...`` the caller's users would pass.
    """
    try:
        lower, upper = bounds
        lower = np.broadcast_to(np.asarray(lower, dtype=float), (n_features,)).copy()
        upper = np.broadcast_to(np.asarray(upper, dtype=float), (n_features,)).copy()
    except (TypeError, ValueError):
        raise ValueError(
            f"{owner}: bounds must be a pair (lower, upper) of numbers or of arrays of length "
            f"n_features={n_features}; got {bounds!r}. Pass the public range of each "
            f"feature, {example}."
        ) from None
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError(f"{owner}: bounds must be finite; got {bounds!r}.")
    return lower, upper
