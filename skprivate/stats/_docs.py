"""Docstring fragments shared by the private statistics (``%(name)s`` placeholders)."""

from ..utils._docstrings import fragment

__all__ = []

STATS_DOCS = {
    "a": fragment("""
    a : array-like
        The private values. Rows are the entries along the reduced axes; each row is the
        unit protected (add/remove one row)."""),
    "axis": fragment("""
    axis : None, int or tuple of ints, default=None
        Axes to reduce. ``None``: every element is a row and one number is released.
        Otherwise one value per entry of the kept axes, all covered together by
        ``epsilon`` (a row adds to each of them: their sensitivities add up)."""),
    "dtype": fragment("""
    dtype : data-type, default=None
        Type of the returned value (NumPy's meaning); the computation is in float64."""),
    "keepdims": fragment("""
    keepdims : bool, default=False
        Keep the reduced axes with length one, as NumPy does."""),
    "bounds": fragment("""
    bounds : tuple (lower, upper) or None, default=None
        Public range of the values: two numbers, or two arrays broadcastable to the
        output's shape, known without looking at the data. Values are clipped to it.
        ``None`` reads the minimum and maximum from the data: the result then has no
        privacy guarantee, a :class:`~skprivate.exceptions.PrivacyLeakWarning` says so and
        the result's ``caveats`` record it."""),
    "epsilon": fragment("""
    epsilon : float, default=1.0
        Privacy budget of the whole call (every output entry together), ``> 0``."""),
    "delta": fragment("""
    delta : float, default=0.0
        0 (the default): pure epsilon-DP with discrete Laplace noise. ``> 0``: discrete
        Gaussian noise (granular Gaussian on the sums) calibrated in zero-concentrated DP
        and converted once to ``(epsilon, delta)``; it pays off for many output columns
        (the L2 sensitivity grows like ``sqrt(k)``, the L1 like ``k``). Keep it well below
        ``1 / n``."""),
    "random_state": fragment("""
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` (for releases) draws the noise from a cryptographically secure generator
        seeded by the operating system; an int makes it reproducible (tests and
        documentation only: whoever knows the seed can remove the noise)."""),
    "accountant": fragment("""
    accountant : BudgetAccountant, default=None
        Budget to spend from; the call is refused before any value is read if it does not
        fit."""),
    "returns": fragment("""
    result : PrivateResult
        The released value (``result.value``; ``float(result)`` and ``np.asarray(result)``
        work) with its ``epsilon``, ``delta``, ``mechanism`` and ``caveats``."""),
}
