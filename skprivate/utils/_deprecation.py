"""Renamed parameters and classes: the old names keep working for one release, with a warning.

scikit-learn's pattern: the old parameter stays in the signature with the sentinel default
``"deprecated"`` and is read where the parameter is used (in ``fit``, never in
``__init__``, which stores its arguments verbatim); a renamed class stays as a subclass
whose ``__init__`` warns. The warning is a :class:`FutureWarning`, which Python shows to
users by default, pointing at the user's line.
"""

import warnings

from sklearn.utils._param_validation import Hidden, StrOptions

from ._stacklevel import _user_stacklevel

__all__ = ["DEPRECATED", "deprecated_option", "renamed_value", "warn_renamed"]

#: The default of a parameter kept under its old name.
DEPRECATED = "deprecated"

#: The release that removes the old names.
REMOVED_IN = "0.2"


def deprecated_option():
    """The constraint that admits the sentinel without showing it in error messages."""
    return Hidden(StrOptions({DEPRECATED}))


def _is_unset(value):
    return isinstance(value, str) and value == DEPRECATED


def warn_renamed(old, new, *, owner):
    """Warn that ``old`` is now called ``new`` (both as the user writes them)."""
    warnings.warn(
        f"{owner}: {old} was renamed {new} in 0.1 and the old name will be removed in "
        f"{REMOVED_IN}. Write {new} instead; it means the same.",
        FutureWarning,
        stacklevel=_user_stacklevel(),
    )


def renamed_value(new_value, old_value, *, new, old, default, owner, warn=True):
    """The value of a renamed parameter: the new one, or the old one with a FutureWarning.

    Parameters
    ----------
    new_value : object
        What was passed under the new name (``default`` if nothing).
    old_value : object
        What was passed under the old name (``"deprecated"`` if nothing).
    new, old : str
        The two names.
    default : object
        The default of the new name, to tell whether both were given.
    owner : str
        The class or function, for the messages.
    warn : bool, default=True
        False resolves the value without warning (for a second reading in the same fit).

    Returns
    -------
    value : object
        The value to use.

    Examples
    --------
    >>> import warnings
    >>> from skprivate.utils._deprecation import renamed_value
    >>> renamed_value("pld", "deprecated", new="accounting", old="accountant",
    ...               default="rdp", owner="f")
    'pld'
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     renamed_value("rdp", "pld", new="accounting", old="accountant",
    ...                   default="rdp", owner="f")
    'pld'
    >>> caught[0].category.__name__
    'FutureWarning'
    """
    if _is_unset(old_value):
        return new_value
    if not _same(new_value, default):
        raise TypeError(
            f"{owner}: got both {new}={new_value!r} and {old}={old_value!r}, its old name. "
            f"Pass {new}= only."
        )
    if warn:
        warn_renamed(f"{old}=", f"{new}=", owner=owner)
    return old_value


def _same(value, default):
    if value is default:
        return True
    if isinstance(default, (str, int, float)) and isinstance(value, (str, int, float)):
        return type(value) is type(default) and value == default
    return False
