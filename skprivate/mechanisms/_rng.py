"""Random-number generators for the noise samplers.

Every sampler in :mod:`skprivate.mechanisms` draws from a :class:`numpy.random.Generator`
obtained through :func:`check_rng`, so that ``random_state`` means the same thing everywhere.
With ``random_state=None`` that is NumPy's PCG64 seeded from 128 bits of operating-system
entropy: an unguessable seed, but not a cryptographically secure generator.
"""

from numbers import Integral

import numpy as np

__all__ = ["check_rng", "is_reproducible"]

_ALLOWED = (
    "None (a generator seeded from the operating system's entropy, the only choice that "
    "keeps the privacy guarantee), an int >= 0 (reproducible noise, for tests and docs only), "
    "a numpy.random.Generator or a numpy.random.RandomState"
)


def _describe(obj):
    text = repr(obj)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} (of type {type(obj).__name__})"


def _validate(random_state):
    """Return the kind of ``random_state`` or raise an error naming it."""
    if random_state is None:
        return "none"
    if isinstance(random_state, np.random.Generator):
        return "generator"
    if isinstance(random_state, np.random.RandomState):
        return "randomstate"
    if isinstance(random_state, (bool, np.bool_)):
        raise TypeError(
            f"random_state must be {_ALLOWED}; got {_describe(random_state)}. A bool is not a "
            "seed: pass None for private noise or an int such as 0 for reproducible noise."
        )
    if isinstance(random_state, Integral):
        if int(random_state) < 0:
            raise ValueError(
                f"random_state must be {_ALLOWED}; got the negative int {int(random_state)}. "
                "Use a seed >= 0, or None for private noise."
            )
        return "int"
    raise TypeError(
        f"random_state must be {_ALLOWED}; got {_describe(random_state)}. Pass None for "
        "private noise or an int such as 0 for reproducible noise."
    )


def check_rng(random_state=None):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Source of randomness for the noise.

        - ``None``: a fresh generator seeded from the operating system's entropy.
          :func:`numpy.random.default_rng` called without a seed takes 128 bits from the
          operating system (Python's :mod:`secrets`) through
          :class:`numpy.random.SeedSequence` and seeds a :class:`numpy.random.PCG64`
          generator with them, so the seed cannot be guessed. PCG64 is a statistical
          generator, not a cryptographically secure one: its state can in principle be
          recovered from enough of its raw outputs, which a released model does not contain
          (see the security page of the documentation). This is the only choice under which
          the differential-privacy guarantee holds against everyone who does not see the
          generator's outputs.
        - ``int`` (>= 0): ``numpy.random.default_rng(random_state)``, reproducible noise.
          Use it for tests and documentation only: anyone who knows the seed knows the
          noise and can subtract it, so the privacy guarantee does not hold against them.
        - :class:`numpy.random.Generator`: returned as is (not copied), so successive calls
          continue its stream.
        - :class:`numpy.random.RandomState` (legacy): 128 bits are drawn from it (which
          advances it) and seed a new ``default_rng`` generator; the result is as
          reproducible as the ``RandomState`` itself.

    Returns
    -------
    rng : numpy.random.Generator
        The generator to draw noise from.

    Raises
    ------
    TypeError
        If ``random_state`` is of any other type (a bool included).
    ValueError
        If ``random_state`` is a negative int.

    See Also
    --------
    is_reproducible : Whether ``random_state`` makes the noise predictable.

    Notes
    -----
    The privacy guarantee of every mechanism assumes that the adversary cannot predict the
    noise. A seeded generator (an int, a user's ``Generator`` or ``RandomState``) gives
    noise that whoever knows or can recover the seed can reproduce.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.mechanisms import check_rng
    >>> rng = check_rng(0)
    >>> isinstance(rng, np.random.Generator)
    True
    >>> float(rng.random()) == float(np.random.default_rng(0).random())
    True
    >>> check_rng(rng) is rng
    True
    """
    kind = _validate(random_state)
    if kind == "none":
        return np.random.default_rng()
    if kind == "generator":
        return random_state
    if kind == "randomstate":
        seed = random_state.randint(0, 2**32, size=4, dtype=np.uint64)
        return np.random.default_rng(seed)
    return np.random.default_rng(int(random_state))


def is_reproducible(random_state):
    """Whether noise drawn with ``random_state`` can be reproduced by someone else.

    Estimators use it to warn that a fixed seed voids the privacy guarantee.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        The value an estimator received. ``None`` means a generator seeded from the
        operating system's entropy; an int means reproducible noise for tests and docs
        only (no privacy against whoever knows the seed).

    Returns
    -------
    reproducible : bool
        ``False`` only for ``None``. ``True`` for an int, a ``RandomState`` and a
        ``Generator``: a generator supplied by the user may have been seeded with a known
        value, and this function cannot tell.

    Raises
    ------
    TypeError, ValueError
        If ``random_state`` is not accepted by :func:`check_rng`.

    See Also
    --------
    check_rng : Turn ``random_state`` into a generator.

    Examples
    --------
    >>> from skprivate.mechanisms import is_reproducible
    >>> is_reproducible(None)
    False
    >>> is_reproducible(0)
    True
    """
    return _validate(random_state) != "none"
