"""Tests of skprivate.smoothing against a dense solve with the explicit periodic stencil."""

import numpy as np
import pytest

from skprivate.smoothing import laplacian_smooth, smoothing_symbol


def periodic_laplacian(m):
    """The periodic 1-D Laplacian built entry by entry from its stencil [1, -2, 1].

    Entries are accumulated, so that for m = 2 both neighbours of a coordinate land on the
    same entry ([[-2, 2], [2, -2]]) and for m = 1 the stencil sums to the zero matrix.
    """
    L = np.zeros((m, m))
    for i in range(m):
        L[i, i] += -2.0
        L[i, (i + 1) % m] += 1.0
        L[i, (i - 1) % m] += 1.0
    return L


def dense_smooth(g, sigma, order):
    m = g.shape[-1]
    A = np.eye(m) + (-1) ** order * sigma * np.linalg.matrix_power(periodic_laplacian(m), order)
    return np.linalg.solve(A, g)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("order", [1, 2, 3])
@pytest.mark.parametrize("sigma", [0.3, 1.0, 3.0])
def test_matches_dense_solve(m, order, sigma):
    g = np.random.default_rng(m * 100 + order).normal(size=m)
    expected = dense_smooth(g, sigma, order)
    np.testing.assert_allclose(laplacian_smooth(g, sigma, order), expected, atol=1e-12)


def test_stencils_of_higher_orders():
    # The spec's check of the authors' stencils: L^2 = [6, -4, 1, ..., 1, -4], L^3 starts
    # [-20, 15, -6, 1].
    L = periodic_laplacian(9)
    np.testing.assert_array_equal(np.linalg.matrix_power(L, 2)[0], [6, -4, 1, 0, 0, 0, 0, 1, -4])
    np.testing.assert_array_equal(np.linalg.matrix_power(L, 3)[0][:4], [-20, 15, -6, 1])


def test_length_two_by_hand():
    # L = [[-2, 2], [2, -2]], so (I - L) = [[3, -2], [-2, 3]] and its inverse maps e_0 to
    # (3, 2) / 5; the authors' stencil [-2, 1] would give a different answer and lose the sum.
    np.testing.assert_allclose(laplacian_smooth([1.0, 0.0], 1.0), [0.6, 0.4], atol=1e-15)
    np.testing.assert_allclose(smoothing_symbol(2, 1.0), [1.0, 5.0])


def test_length_one_is_identity():
    np.testing.assert_array_equal(laplacian_smooth([2.5], 7.0, order=3), [2.5])


@pytest.mark.parametrize("m", [2, 5, 64, 101])
def test_preserves_sum_and_is_non_expansive(m):
    rng = np.random.default_rng(m)
    g = rng.normal(size=(50, m)) + rng.normal(size=(50, 1))
    for order in (1, 2, 3):
        d = laplacian_smooth(g, 2.0, order)
        np.testing.assert_allclose(d.sum(axis=1), g.sum(axis=1), rtol=1e-10, atol=1e-10)
        assert np.all(np.linalg.norm(d, axis=1) <= np.linalg.norm(g, axis=1) * (1 + 1e-12))


def test_constant_vector_passes_unchanged():
    np.testing.assert_allclose(laplacian_smooth(np.full(16, 3.0), 5.0), np.full(16, 3.0))


def test_sigma_zero_is_an_exact_copy():
    g = np.random.default_rng(0).normal(size=(3, 10))
    d = laplacian_smooth(g, 0.0, order=2)
    np.testing.assert_array_equal(d, g)
    assert d is not g and not np.shares_memory(d, g)


def test_batched_leading_axes():
    g = np.random.default_rng(1).normal(size=(2, 3, 11))
    d = laplacian_smooth(g, 1.5, order=2)
    assert d.shape == g.shape
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(d[i, j], dense_smooth(g[i, j], 1.5, 2), atol=1e-12)


def test_does_not_modify_input_and_keeps_float32():
    g = np.arange(8, dtype=np.float32)
    before = g.copy()
    d = laplacian_smooth(g, 1.0)
    np.testing.assert_array_equal(g, before)
    assert d.dtype == np.float32
    assert laplacian_smooth([1, 2, 3], 1.0).dtype == np.float64


@pytest.mark.parametrize("sigma, ratio", [(1.0, 0.268), (2.0, 0.185), (3.0, 0.149)])
def test_white_noise_variance_ratio_of_the_slides(sigma, ratio):
    # E||A^{-1} z||^2 / E||z||^2 = (1/m) sum_k lambda_k^{-2}, the slide table at m = 7840.
    m = 7840
    k = np.arange(m)
    lam = 1 + 4 * sigma * np.sin(np.pi * k / m) ** 2
    assert np.mean(lam**-2) == pytest.approx(ratio, abs=5e-4)
    # The operator realises that factor exactly: (1/m) ||A^{-1}||_F^2, from smoothing the
    # identity's rows (smaller m, where the factor is the same to 3 decimals).
    m = 512
    frob = np.sum(laplacian_smooth(np.eye(m), sigma) ** 2) / m
    assert frob == pytest.approx(ratio, abs=1e-3)


@pytest.mark.parametrize("sigma", [-1.0, np.nan, np.inf])
def test_bad_sigma(sigma):
    with pytest.raises(ValueError, match="sigma"):
        laplacian_smooth(np.ones(4), sigma)


@pytest.mark.parametrize("sigma", ["1", None, True])
def test_sigma_of_wrong_type(sigma):
    with pytest.raises(TypeError, match="sigma"):
        laplacian_smooth(np.ones(4), sigma)


@pytest.mark.parametrize(
    "order, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_bad_order(order, error):
    with pytest.raises(error, match="order"):
        laplacian_smooth(np.ones(4), 1.0, order=order)


def test_scalar_and_complex_input():
    with pytest.raises(ValueError, match="at least one axis"):
        laplacian_smooth(3.0, 1.0)
    with pytest.raises(TypeError, match="real"):
        laplacian_smooth(np.ones(4, dtype=complex), 1.0)


@pytest.mark.parametrize("m", [2, 3, 100, 256, 257, 1000])
@pytest.mark.parametrize("order", [1, 3])
def test_prepared_smoother_matches(m, order):
    # Training loops use a prepared operator (a circulant matrix up to 256 coordinates, the
    # FFT beyond): the same operator as laplacian_smooth.
    from skprivate.smoothing import _make_smoother

    g = np.random.default_rng(m).normal(size=m)
    apply = _make_smoother(m, 1.5, order)
    np.testing.assert_allclose(apply(g), laplacian_smooth(g, 1.5, order), atol=1e-12)
    assert _make_smoother(m, 0.0, order) is None and _make_smoother(1, 1.5, order) is None
