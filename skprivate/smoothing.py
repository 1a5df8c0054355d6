"""Laplacian smoothing of gradients, the operator of LS-SGD and DP-LSSGD.

Let ``L`` be the one-dimensional discrete Laplacian on ``m`` coordinates with periodic
boundary (stencil ``[1, -2, 1]``, coordinate ``m - 1`` next to coordinate ``0``). Laplacian
smoothing of order ``n`` with strength ``sigma`` replaces a vector ``g`` by the solution ``d``
of ``(I + (-1)^n sigma L^n) d = g`` (Osher et al., "Laplacian smoothing gradient descent",
2018; Wang et al., "DP-LSSGD", 2019). The matrix is circulant, so the solve is a division in
Fourier space by its symbol ``1 + sigma (4 sin^2(pi k / m))^n``, ``k = 0, ..., m - 1``.

The symbol is written down analytically rather than taken as the FFT of a stencil vector:
building the stencil ``c[0] = -2, c[1] = c[-1] = 1`` breaks for ``m = 1`` (index error) and
``m = 2`` (the two neighbours of a coordinate are the same coordinate, so the stencil must
read ``[-2, 2]``; writing ``[-2, 1]`` loses the preservation of the sum). The analytic symbol
is exact for every ``m``, including the bias vectors of length 1 or 2 that linear models have.
"""

import math
from numbers import Integral, Real

import numpy as np

__all__ = ["laplacian_smooth", "smoothing_symbol"]

# Up to this length a training loop applies the inverse as a precomputed circulant matrix: a
# matrix-vector product then costs a few microseconds, less than the fixed cost of numpy's
# FFT calls (about 20 microseconds), which would otherwise dominate a small model's step.
_DENSE_MAX_LENGTH = 256


def _check_sigma_order(sigma, order):
    if isinstance(sigma, bool) or not isinstance(sigma, Real):
        raise TypeError(
            f"sigma must be a real number >= 0 (the smoothing strength); got {sigma!r} of type "
            f"{type(sigma).__name__}."
        )
    if not (math.isfinite(sigma) and sigma >= 0):
        raise ValueError(
            f"sigma must be a finite number >= 0 (the smoothing strength; 0 means no "
            f"smoothing); got {sigma!r}."
        )
    if isinstance(order, bool) or not isinstance(order, Integral):
        raise TypeError(
            f"order must be a positive integer (the power of the Laplacian); got {order!r} of "
            f"type {type(order).__name__}."
        )
    if order < 1:
        raise ValueError(
            f"order must be a positive integer (1 for the Laplacian, 2 for the bi-Laplacian, "
            f"...); got {order!r}."
        )


def smoothing_symbol(m, sigma, order=1):
    """Compute the eigenvalues of ``I + (-1)^order sigma L^order`` (periodic ``L``, ``m`` points).

    Parameters
    ----------
    m : int >= 1
        Length of the vectors to smooth.
    sigma : float >= 0
        Smoothing strength.
    order : int >= 1, default=1
        Power of the Laplacian.

    Returns
    -------
    symbol : ndarray of shape (m // 2 + 1,)
        ``1 + sigma (4 sin^2(pi k / m))^order`` for ``k = 0, ..., m // 2``: the frequencies of
        a real FFT of length ``m`` (the symbol is even in ``k``, so these are all of them).
        Every entry is >= 1 and the first is exactly 1.

    Examples
    --------
    >>> from skprivate.smoothing import smoothing_symbol
    >>> smoothing_symbol(4, 1.0)
    array([1., 3., 5.])
    """
    _check_sigma_order(sigma, order)
    if isinstance(m, bool) or not isinstance(m, Integral) or m < 1:
        raise ValueError(f"m must be a positive integer (a vector length); got {m!r}.")
    k = np.arange(int(m) // 2 + 1)
    eig = 4.0 * np.sin(np.pi * k / int(m)) ** 2  # eigenvalues of -L
    symbol = 1.0 + float(sigma) * eig ** int(order)
    symbol[0] = 1.0  # sin(0) is exactly 0 already; kept explicit: the mean must pass unchanged
    return symbol


def laplacian_smooth(g, sigma, order=1):
    """Apply ``(I + (-1)^order sigma L^order)^{-1}`` along the last axis of ``g``.

    ``L`` is the periodic one-dimensional discrete Laplacian (stencil ``[1, -2, 1]``) on the
    ``m = g.shape[-1]`` coordinates of the last axis; leading axes are independent vectors
    smoothed in one batch. The solve is a division by the analytic symbol in Fourier space
    (real FFT), exact to rounding for every ``m >= 1``.

    Parameters
    ----------
    g : array-like of shape (..., m)
        Vectors to smooth, for example a noisy gradient. Real values.
    sigma : float >= 0
        Smoothing strength. ``0`` returns an exact copy of ``g`` (no FFT is done).
    order : int >= 1, default=1
        Power ``n`` of the Laplacian: ``1`` solves ``(I - sigma L) d = g``, ``2`` solves
        ``(I + sigma L^2) d = g``, and so on.

    Returns
    -------
    d : ndarray of shape (..., m)
        The smoothed vectors, float32 for float32 input and float64 otherwise. The operator
        preserves the sum of each vector (the mean passes unchanged) and is non-expansive
        (``||d|| <= ||g||`` in the Euclidean norm, since every eigenvalue of the inverse lies
        in ``(0, 1]``); a vector of length 1 is returned unchanged.

    See Also
    --------
    smoothing_symbol : The eigenvalues divided by.
    skprivate.linear_model.DPLSSGDClassifier : DP-SGD with this smoothing of the noisy gradient.

    Notes
    -----
    For white noise ``z`` the smoothing shrinks the expected squared norm by the factor
    ``(1/m) sum_k symbol_k^{-2}``, about 0.268, 0.185 and 0.149 for ``sigma`` 1, 2 and 3 at
    order 1 and large ``m``, while it leaves the component along the constant vector intact.

    References
    ----------
    .. [1] S. Osher, B. Wang, P. Yin, X. Luo, F. Barekat, M. Pham and A. Lin, "Laplacian
       smoothing gradient descent", arXiv:1806.06317, 2018.
    .. [2] B. Wang, Q. Gu, M. Boedihardjo, F. Barekat and S. Osher, "DP-LSSGD: A stochastic
       optimization method to lift the utility in privacy-preserving ERM", arXiv:1906.12056,
       2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.smoothing import laplacian_smooth
    >>> g = np.array([0.0, 0.0, 4.0, 0.0, 0.0, 0.0])
    >>> d = laplacian_smooth(g, sigma=1.0)
    >>> np.round(d, 3)
    array([0.3, 0.7, 1.8, 0.7, 0.3, 0.2])
    >>> round(float(d.sum()), 10)
    4.0
    """
    _check_sigma_order(sigma, order)
    g = np.asarray(g)
    if g.ndim == 0:
        raise ValueError(
            "g must have at least one axis (the coordinates to smooth are its last axis); got "
            "a scalar."
        )
    if np.iscomplexobj(g):
        raise TypeError("g must be real; got a complex array.")
    dtype = np.float32 if g.dtype == np.float32 else np.float64
    m = g.shape[-1]
    if sigma == 0 or m <= 1 or g.size == 0:
        # The operator is exactly the identity here; copying avoids FFT round-off, so that
        # sigma=0 reproduces unsmoothed DP-SGD bit for bit.
        return np.array(g, dtype=dtype, copy=True)
    symbol = smoothing_symbol(m, sigma, order)
    spectrum = np.fft.rfft(g.astype(dtype, copy=False), axis=-1)
    return np.fft.irfft(spectrum / symbol.astype(dtype), n=m, axis=-1).astype(dtype, copy=False)


def _make_smoother(m, sigma, order=1):
    """Prepare ``laplacian_smooth(., sigma, order)`` for vectors of length ``m``, applied often.

    Returns None when the operator is the identity (``sigma == 0`` or ``m == 1``), else a
    function of a 1-D array of length ``m``. The symbol is computed once. For
    ``m <= _DENSE_MAX_LENGTH`` the inverse is applied as the circulant matrix whose first
    column is the inverse FFT of ``1 / symbol`` (the same operator, built from the analytic
    symbol, to rounding error); for longer vectors by real FFT.
    """
    _check_sigma_order(sigma, order)
    if sigma == 0 or m <= 1:
        return None
    inverse_symbol = 1.0 / smoothing_symbol(m, sigma, order)
    if m <= _DENSE_MAX_LENGTH:
        column = np.fft.irfft(inverse_symbol, n=m)  # A^{-1} e_0
        offsets = (np.arange(m)[:, None] - np.arange(m)[None, :]) % m
        matrix = np.ascontiguousarray(column[offsets])  # circulant: M[i, j] = c[(i - j) % m]
        return matrix.__matmul__

    def apply(v):
        return np.fft.irfft(np.fft.rfft(v) * inverse_symbol, n=m)

    return apply
