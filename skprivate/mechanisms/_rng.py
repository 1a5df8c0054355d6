"""Random-number generators for the noise samplers.

Every sampler in :mod:`skprivate.mechanisms` draws from a :class:`numpy.random.Generator`
obtained through :func:`check_rng`, so that ``random_state`` means the same thing everywhere.
With ``random_state=None`` that is, by default, a cryptographically secure generator:
ChaCha20 (Bernstein, "ChaCha, a variant of Salsa20", 2008; RFC 8439), keyed with 256 bits
from the operating system, through the ``randomgen`` package's ``ChaCha`` bit generator.
``skprivate.set_config(secure_generator=False)`` gives back NumPy's PCG64 seeded from 128
bits of operating-system entropy: an unguessable seed, but a statistical generator.

Why ChaCha20 (benchmarks/secure_generator.py measures both candidates): it is a stream
cipher whose output, under the standard assumption that it is a pseudo-random function,
cannot be told from uniform bits nor extended by anyone who does not hold the key, however
many outputs they see; that is the property the privacy proofs assume of their noise (a
noise the adversary cannot predict). ``randomgen``'s ``AESCounter`` is as secure and faster
where the CPU has AES-NI, but falls back to table-based software AES without it, whose
memory accesses depend on the key (a cache-timing channel); ChaCha20 is add-rotate-xor only,
constant-time in software on every CPU, and its cost is a small part of a fit.
"""

import secrets
from numbers import Integral

import numpy as np

from .._config import get_config

__all__ = ["check_rng", "is_reproducible"]

# ChaCha with 20 rounds, the cipher's standard strength (RFC 8439); fewer rounds are faster
# and have no security proof margin.
_CHACHA_ROUNDS = 20
_KEY_BYTES = 32  # ChaCha20's full 256-bit key, read from the OS (not stretched from less)

_ALLOWED = (
    "None (a generator keyed from the operating system's entropy, the only choice that "
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


def _secure_generator():
    """A ChaCha20 generator keyed with 256 fresh bits from the operating system."""
    from randomgen import ChaCha  # lazy: import skprivate stays fast

    key = int.from_bytes(secrets.token_bytes(_KEY_BYTES), "little")
    return np.random.Generator(ChaCha(key=key, counter=0, rounds=_CHACHA_ROUNDS))


def is_cryptographic(rng):
    """Whether ``rng`` (a :class:`numpy.random.Generator`) runs on a cryptographic generator.

    True for ``randomgen``'s ``ChaCha`` with at least 20 rounds and its ``AESCounter``. The
    samplers that derive keyed streams from the fit's generator (the Poisson batches, PATE's
    partition) and the nets' noise use it to keep a secure fit secure, and to keep every
    other fit (an int ``random_state`` above all) on the exact stream it always drew.
    """
    bits = rng.bit_generator
    kind = type(bits)
    if kind.__module__.split(".")[0] != "randomgen":
        return False
    if kind.__name__ == "AESCounter":
        return True
    return kind.__name__ == "ChaCha" and int(bits.state["state"]["rounds"]) >= _CHACHA_ROUNDS


def describe_generator(random_state):
    """One sentence naming the generator a fit with ``random_state`` draws from now.

    It reads the current :func:`skprivate.get_config`, so call it during the fit; it is the
    ``"generator"`` entry of every ``privacy_report_``.
    """
    kind = _validate(random_state)
    if kind == "none":
        if get_config()["secure_generator"]:
            return (
                "ChaCha20, 256-bit key from the operating system (cryptographically secure)"
            )
        return (
            "PCG64 seeded from the operating system (statistical, not cryptographically "
            "secure; set_config(secure_generator=False))"
        )
    if kind == "int":
        return f"PCG64 from random_state={int(random_state)} (reproducible)"
    if kind == "randomstate":
        return "PCG64 seeded from the user's RandomState (reproducible)"
    name = type(random_state.bit_generator).__name__
    secure = "cryptographic" if is_cryptographic(random_state) else "statistical"
    return f"{name} ({secure}) from the user's Generator (as secret as its seed)"


def check_rng(random_state=None):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Source of randomness for the noise.

        - ``None``: a fresh, cryptographically secure generator: ChaCha20 (``randomgen``'s
          ``ChaCha`` with 20 rounds) keyed with 256 bits from the operating system
          (:func:`secrets.token_bytes`), so that no number of its outputs reveals the
          others. Under ``skprivate.set_config(secure_generator=False)``,
          :func:`numpy.random.default_rng` without a seed instead: a
          :class:`numpy.random.PCG64` seeded with 128 bits from the operating system, an
          unguessable seed but a statistical generator whose state can in principle be
          recovered from enough of its raw outputs (see the security page of the
          documentation). ``None`` is the only choice under which the
          differential-privacy guarantee holds against everyone who does not hold the key.
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
    >>> type(check_rng().bit_generator).__name__
    'ChaCha'
    """
    kind = _validate(random_state)
    if kind == "none":
        if get_config()["secure_generator"]:
            return _secure_generator()
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
        The value an estimator received. ``None`` means a generator keyed from the
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


# --- Keyed streams: random draws addressable by (block, step) -------------------------------
#
# The Poisson batches of DP-SGD (skprivate._dpsgd._sampling) and PATE's partition
# (skprivate.pate._partition) draw the randomness of each block of rows from its own stream,
# a function of (key, block, step) only, so that a Dask chunk draws exactly what an in-memory
# fit draws. The key is drawn from the fit's generator, and the streams inherit its kind:
#
# - a cryptographic fit generator (the default) gives a 256-bit ChaCha20 key, and stream
#   (block, step) is ChaCha20 started at the 128-bit counter (step * 2**32 + block) * 2**64:
#   the high 64 bits name the stream, the low 64 bits count its 32-bit words, so no stream
#   reaches the next before 2**66 bytes. ChaCha20 keyed with a secret key is a pseudo-random
#   function of the counter (Bernstein 2008; RFC 8439, Section 2.3), so the streams are
#   jointly indistinguishable from independent uniform bits to anyone without the key, and
#   the key is as secret as the fit's generator.
# - any other generator (an int random_state, secure_generator=False) gives a 128-bit Philox
#   key and stream (block, step) is Philox4x64-10 started at the counter (0, 0, block, step)
#   (Salmon, Moraes, Dror and Shaw, SC 2011): the streams such fits have always drawn, so an
#   int random_state gives the same batches and partitions as before.

_STREAM_WORDS = 2**32  # blocks per step in the ChaCha counter layout (2**52 rows at 2**20)


def draw_stream_key(rng):
    """A secret key for :class:`KeyedStreams`, drawn from the fit's generator ``rng``.

    Four 64-bit words (a ChaCha20 key) when ``rng`` is cryptographic (:func:`is_cryptographic`),
    two (a Philox key, the draw every other fit has always made) otherwise.
    """
    words = 4 if is_cryptographic(rng) else 2
    return rng.integers(0, 2**64, size=words, dtype=np.uint64)


class KeyedStreams:
    """Generators of the streams ``(block, step)`` under one key (see the comment above).

    Not thread-safe: one instance per thread or task (an instance is cheap). Each call of
    :meth:`generator` moves the one underlying bit generator to the start of the stream
    (setting its state is several times cheaper than constructing one), so a generator
    returned before is repositioned too.

    Parameters
    ----------
    key : ndarray of 2 or 4 uint64
        From :func:`draw_stream_key`: 4 words select ChaCha20, 2 words Philox.
    """

    def __init__(self, key):
        self.key = np.asarray(key, dtype=np.uint64)
        if self.key.shape == (4,):
            from randomgen import ChaCha  # lazy: import skprivate stays fast

            self._secure = True
            words = [int(w) for w in self.key]
            self._bits = ChaCha(key=sum(w << (64 * i) for i, w in enumerate(words)),
                                rounds=_CHACHA_ROUNDS)
        elif self.key.shape == (2,):
            self._secure = False
            self._bits = np.random.Philox(key=self.key)
            self._counter = np.zeros(4, dtype=np.uint64)
        else:  # pragma: no cover - a library bug: keys come from draw_stream_key
            raise ValueError(f"a stream key has 2 or 4 uint64 words; got shape {self.key.shape}")
        self._generator = np.random.Generator(self._bits)
        self._state = self._bits.state

    def generator(self, block, step=0):
        """The generator positioned at the start of stream ``(block, step)``."""
        state = self._state
        if self._secure:
            if not 0 <= block < _STREAM_WORDS:  # pragma: no cover - 2**52 rows
                raise ValueError(f"block {block} is beyond the ChaCha stream layout")
            state["state"]["ctr"] = np.array([0, step * _STREAM_WORDS + block], dtype=np.uint64)
        else:
            self._counter[2], self._counter[3] = block, step
            state["state"] = {"counter": self._counter, "key": self.key}
            state["buffer_pos"], state["has_uint32"], state["uinteger"] = 4, 0, 0
        self._bits.state = state
        return self._generator


# --- Generators derived from a fit's generator (one per run of a search) --------------------
#
# A fit that trains other estimators (a search's runs) gives each one its own generator from
# secret words drawn from the fit's generator. From a cryptographic generator the words are a
# 256-bit ChaCha20 key and the derived streams are ChaCha20 under that key at distinct
# counters (high counter word = the stream number): as secure as the parent. From any other
# generator they are the 4 x 63-bit seeds of NumPy's default_rng that such fits always drew.


def draw_seed_words(rng, shape):
    """Secret words of shape ``shape + (4,)`` for :func:`derived_generator`, from ``rng``.

    ``uint64`` words (a ChaCha20 key each) when ``rng`` is cryptographic, ``int64`` seeds
    below ``2**63 - 1`` otherwise (the draw every other fit has always made).
    """
    size = (*tuple(shape), 4)
    if is_cryptographic(rng):
        return rng.integers(0, 2**64, size=size, dtype=np.uint64)
    return rng.integers(0, 2**63 - 1, size=size, dtype=np.int64)


def derived_generator(words, stream=0):
    """The generator number ``stream`` derived from ``words`` (see :func:`draw_seed_words`)."""
    words = np.asarray(words)
    if words.dtype == np.uint64:
        from randomgen import ChaCha  # lazy: import skprivate stays fast

        key = sum(int(w) << (64 * i) for i, w in enumerate(words))
        return np.random.Generator(
            ChaCha(key=key, counter=int(stream) << 64, rounds=_CHACHA_ROUNDS)
        )
    return np.random.default_rng(words if stream == 0 else np.append(words, stream))
