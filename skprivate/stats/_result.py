"""The value a private statistic returns, with the guarantee it was released under."""

import operator

import numpy as np

from ..accounting import PrivacySpend

__all__ = ["PrivateResult"]


class PrivateResult:
    """A differentially private value and the guarantee it was released under.

    Every function of :mod:`skprivate.stats` returns one. It behaves like its value in
    arithmetic and in NumPy (``float(r)``, ``np.asarray(r)``, ``r + 1``, ``np.sqrt(r)``,
    ``r[0]``): what such an operation returns is a plain number or array, post-processing
    of the release that costs nothing more and carries no guarantee object of its own.

    Parameters
    ----------
    value : float, int or ndarray
        The released value.
    epsilon : float
        The privacy loss of the release (pure epsilon-DP when ``delta`` is 0).
    delta : float
        Its delta.
    mechanism : str
        How it was released (noise, sensitivity, what was public).
    caveats : list of str, default=()
        Reasons the guarantee is weaker than stated (codes in
        ``skprivate._caveats.CAVEAT_KINDS``): bounds read from the data, a fixed
        ``random_state``, a large epsilon.
    name : str, default=""
        The function that released it, for example ``"mean"``.

    Attributes
    ----------
    spend : PrivacySpend
        ``(epsilon, delta)`` as a :class:`~skprivate.accounting.PrivacySpend`, labelled
        with the function's name (with its ``dp_accounting`` zCDP event for a Gaussian
        release, so that a :class:`~skprivate.accounting.BudgetAccountant` can compose it
        in Renyi DP).

    Notes
    -----
    The guarantee is add/remove-one-row differential privacy, where a row is one entry of
    the input along the reduced axes (one element for ``axis=None``; one slice ``a[i]`` for
    ``axis=0``): every output entry of one call is covered together by ``epsilon``.
    Caveats of the kinds in ``skprivate._caveats.GUARANTEE_VOID`` (bounds or a range read
    from the data) mean the value is *not* covered by ``epsilon``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import stats
    >>> ages = np.array([23, 35, 41, 52, 67] * 200)
    >>> result = stats.mean(ages, bounds=(17, 90), epsilon=1.0, random_state=0)
    >>> round(float(result), 1)
    43.6
    >>> result.epsilon, result.delta
    (1.0, 0.0)
    >>> round(result - 40, 1)
    3.6
    """

    __array_priority__ = 100  # numpy defers binary operators to us (we return plain values)

    def __init__(self, value, epsilon, delta, mechanism, caveats=(), name=""):
        self.value = value
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.caveats = list(caveats)
        self.name = name

    _event = None  # the dp_accounting event of a Gaussian release (a ZCDpEvent), if any

    @property
    def spend(self):
        return PrivacySpend(float(self.epsilon), float(self.delta), event=self._event,
                            label=f"stats.{self.name}" if self.name else "stats")

    # --- the value, as NumPy and Python see it ------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype=dtype)

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return operator.index(self.value)

    def __bool__(self):
        return bool(self.value)

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return iter(self.value)

    def __getitem__(self, key):
        return self.value[key]

    def __round__(self, ndigits=None):
        return round(self.value, ndigits) if np.ndim(self.value) == 0 else \
            np.round(self.value, ndigits or 0)

    def __format__(self, spec):
        return format(self.value, spec)

    @property
    def shape(self):
        return np.shape(self.value)

    def __repr__(self):
        value = np.array2string(np.asarray(self.value), precision=6, threshold=20) \
            if np.ndim(self.value) else repr(self.value)
        flags = f", caveats={len(self.caveats)}" if self.caveats else ""
        name = f"{self.name}: " if self.name else ""
        kind = "pure DP" if self.delta == 0 else "approximate DP"
        return (f"PrivateResult({name}{value}; epsilon={self.epsilon:.4g}, "
                f"delta={self.delta:.3g} ({kind}){flags})")


def _value_of(other):
    return other.value if isinstance(other, PrivateResult) else other


def _binary(op, reflected=False):
    if reflected:
        def method(self, other):
            return op(_value_of(other), self.value)
    else:
        def method(self, other):
            return op(self.value, _value_of(other))
    return method


for _name, _op in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow)]:
    setattr(PrivateResult, f"__{_name}__", _binary(_op))
    setattr(PrivateResult, f"__r{_name}__", _binary(_op, reflected=True))
# Compared by value, like a number (so unhashable, as equality is not identity).
for _name, _op in [("lt", operator.lt), ("le", operator.le), ("gt", operator.gt),
                   ("ge", operator.ge), ("eq", operator.eq), ("ne", operator.ne)]:
    setattr(PrivateResult, f"__{_name}__", _binary(_op))
PrivateResult.__hash__ = None
PrivateResult.__neg__ = lambda self: -self.value
PrivateResult.__pos__ = lambda self: +self.value
PrivateResult.__abs__ = lambda self: abs(self.value)
del _name, _op
