"""Package-wide settings, in scikit-learn's style (``set_config``, ``get_config``,
``config_context``).

The settings are thread-local, as scikit-learn's: a thread starts from the global defaults
below, and ``config_context`` restores the previous values on exit, exceptions included.
This module imports nothing from the package, so every layer (the mechanisms included) may
read it.
"""

import threading
from contextlib import contextmanager

__all__ = ["config_context", "get_config", "set_config"]

_GLOBAL_CONFIG = {"secure_generator": True, "secure_noise": True}
_THREAD = threading.local()


def _thread_config():
    if not hasattr(_THREAD, "config"):
        _THREAD.config = _GLOBAL_CONFIG.copy()
    return _THREAD.config


def get_config():
    """The current values of the package's settings.

    Returns
    -------
    config : dict
        A copy of the settings of the calling thread (changing it changes nothing); the
        keys are the arguments of :func:`set_config`.

    See Also
    --------
    set_config : Change the settings.
    config_context : Change the settings within a ``with`` block.

    Examples
    --------
    >>> import skprivate
    >>> skprivate.get_config()["secure_generator"]
    True
    """
    return _thread_config().copy()


def set_config(secure_generator=None, secure_noise=None):
    """Change the package's settings for the calling thread.

    Parameters
    ----------
    secure_generator : bool, default=None
        Which generator draws the noise, the batches, the partitions and the tie-breaks of a
        fit with ``random_state=None`` (an int ``random_state`` is not affected: it always
        gives NumPy's reproducible PCG64 stream).

        - ``True`` (the default setting): ChaCha20, a cryptographically secure generator,
          keyed with 256 bits from the operating system (:mod:`secrets`); the nets' DP-SGD
          noise is drawn through it too. Nothing an adversary sees, however many draws,
          lets them predict the other draws (see the security page of the documentation).
        - ``False``: NumPy's PCG64 seeded with 128 bits from the operating system, and
          ``torch.randn`` for the nets' noise, as skprivate 0.1 drew them, for speed. These
          are statistical generators, whose state follows from enough of their raw
          outputs; the fit's ``privacy_report_["generator"]`` says so.

        ``None`` leaves the setting unchanged.
    secure_noise : bool, default=None
        How the Gaussian noise of DP-SGD's steps and of its private row statistics is
        released (the linear DP-LSSGD estimators, in memory and on Dask, and the DP-LSSGD
        networks).

        - ``True`` (the default setting): the exact sum is rounded to a power-of-two grid
          and exact *rounded* Gaussian noise is added with integer arithmetic
          (:func:`~skprivate.mechanisms.rounded_gaussian_mechanism`): a post-processing of
          the continuous Gaussian mechanism, so the same accounting holds, and the released
          bits cannot reveal the exact sum (Mironov 2012).
        - ``False``: floating-point Gaussian noise (NumPy's sampler; for the networks,
          NumPy's or ``torch.randn`` as ``secure_generator`` says), as skprivate 0.1 drew
          it, a few times faster per coordinate; the fit's ``privacy_report_["noise"]``
          says so.

        ``None`` leaves the setting unchanged.

    Raises
    ------
    TypeError
        If ``secure_generator`` or ``secure_noise`` is not a bool or None.

    See Also
    --------
    get_config : The current settings.
    config_context : Change the settings within a ``with`` block, restored on exit.

    Examples
    --------
    >>> import skprivate
    >>> skprivate.set_config(secure_generator=False)
    >>> skprivate.get_config()["secure_generator"]
    False
    >>> skprivate.set_config(secure_generator=True)
    """
    config = _thread_config()
    for name, value in (("secure_generator", secure_generator), ("secure_noise", secure_noise)):
        if value is None:
            continue
        if not isinstance(value, bool):
            raise TypeError(
                f"set_config: {name} must be True, False or None (unchanged); got "
                f"{value!r} of type {type(value).__name__}. Pass {name}=True for the "
                "secure default."
            )
        config[name] = value


@contextmanager
def config_context(*, secure_generator=None, secure_noise=None):
    """Change the package's settings within a ``with`` block, and restore them on exit.

    Parameters
    ----------
    secure_generator : bool, default=None
        As in :func:`set_config`; ``None`` leaves the setting unchanged.
    secure_noise : bool, default=None
        As in :func:`set_config`; ``None`` leaves the setting unchanged.

    Yields
    ------
    None

    See Also
    --------
    set_config : Change the settings for the rest of the thread.
    get_config : The current settings.

    Examples
    --------
    >>> import skprivate
    >>> with skprivate.config_context(secure_generator=False):
    ...     skprivate.get_config()["secure_generator"]
    False
    >>> skprivate.get_config()["secure_generator"]
    True
    """
    previous = get_config()
    set_config(secure_generator=secure_generator, secure_noise=secure_noise)
    try:
        yield
    finally:
        set_config(**previous)
