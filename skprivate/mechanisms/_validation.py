"""Parameter checks shared by the noise samplers; every message names the parameter, says what
was received and how to fix it."""

import math
from fractions import Fraction
from numbers import Rational, Real

import numpy as np


def _describe(obj):
    text = repr(obj)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} (of type {type(obj).__name__})"


def check_real(value, name, *, hint):
    """Return ``value`` if it is a real number (not a bool), else raise a ``TypeError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number; got {_describe(value)}. {hint}")
    return value


def check_positive(value, name, *, hint, upper=None):
    """Validate a finite real ``value > 0`` (and ``<= upper``); return it unchanged."""
    check_real(value, name, hint=hint)
    if not math.isfinite(float(value)) or not value > 0:
        raise ValueError(
            f"{name} must be a finite number > 0; got {value!r}. {hint}"
        )
    if upper is not None and value > upper:
        raise ValueError(f"{name} must be at most {upper!r}; got {value!r}. {hint}")
    return value


def check_delta(delta):
    """Validate ``0 < delta < 1``."""
    hint = (
        "delta is the probability that the epsilon guarantee fails; use a value much smaller "
        "than 1/n_samples, such as 1e-5 or 1e-6."
    )
    check_real(delta, "delta", hint=hint)
    if not (math.isfinite(float(delta)) and 0 < delta < 1):
        raise ValueError(f"delta must lie strictly between 0 and 1; got {delta!r}. {hint}")
    return float(delta)


EPSILON_HINT = (
    "epsilon is the privacy budget: smaller means more private and noisier; typical values "
    "lie between 0.1 and 10."
)
SENSITIVITY_HINT = (
    "The sensitivity is the most one person's data can change the query's value; bound it "
    "(for example by clipping) and pass that bound."
)


def check_size(size):
    """Validate ``size`` as numpy does (None, an int >= 0 or a tuple of such ints)."""
    if size is None:
        return None
    shape = (size,) if isinstance(size, (Real, np.integer)) else size
    try:
        shape = tuple(shape)
    except TypeError:
        raise TypeError(
            f"size must be None, an int >= 0 or a tuple of ints; got {_describe(size)}."
        ) from None
    for dim in shape:
        if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
            raise TypeError(
                f"size must be None, an int >= 0 or a tuple of ints; got {_describe(size)}."
            )
        if dim < 0:
            raise ValueError(f"size must contain no negative dimension; got {size!r}.")
    return tuple(int(d) for d in shape)


def exact_fraction(value):
    """The exact rational value of a real number (a float is converted without rounding)."""
    if isinstance(value, Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    return Fraction(float(value))
