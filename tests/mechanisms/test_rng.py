import numpy as np
import pytest

from skprivate.mechanisms import (
    check_rng,
    discrete_gaussian_noise,
    discrete_laplace_noise,
    gaussian_mechanism,
    gaussian_noise,
    is_reproducible,
    laplace_mechanism,
    laplace_noise,
)

SAMPLERS = [
    lambda rs: laplace_noise(1.0, size=50, random_state=rs),
    lambda rs: gaussian_noise(1.0, size=50, random_state=rs),
    lambda rs: laplace_mechanism(np.zeros(50), 1.0, 1.0, random_state=rs),
    lambda rs: gaussian_mechanism(np.zeros(50), 1.0, 1.0, 1e-5, random_state=rs),
    lambda rs: discrete_laplace_noise(3.0, size=50, random_state=rs),
    lambda rs: discrete_gaussian_noise(3.0, size=50, random_state=rs),
]


def test_int_seed_is_default_rng():
    a = check_rng(42).random(5)
    b = np.random.default_rng(42).random(5)
    np.testing.assert_array_equal(a, b)
    assert isinstance(check_rng(np.int64(3)), np.random.Generator)


def test_generator_returned_as_is():
    rng = np.random.default_rng(0)
    assert check_rng(rng) is rng


def test_none_gives_fresh_os_seeded_generators():
    a, b = check_rng(None), check_rng(None)
    assert isinstance(a, np.random.Generator)
    assert a is not b
    assert not np.array_equal(a.integers(0, 2**62, size=4), b.integers(0, 2**62, size=4))


def test_random_state_is_converted_reproducibly():
    a = check_rng(np.random.RandomState(7))
    b = check_rng(np.random.RandomState(7))
    assert isinstance(a, np.random.Generator)
    np.testing.assert_array_equal(a.random(5), b.random(5))
    rs = np.random.RandomState(7)
    c, d = check_rng(rs), check_rng(rs)  # the RandomState advances
    assert not np.array_equal(c.random(5), d.random(5))


@pytest.mark.parametrize("bad", ["0", 1.5, [1, 2], object(), True, np.bool_(False)])
def test_bad_types_rejected(bad):
    with pytest.raises(TypeError, match="random_state") as info:
        check_rng(bad)
    message = str(info.value)
    assert "None" in message and "Generator" in message and "RandomState" in message
    with pytest.raises(TypeError, match="random_state"):
        is_reproducible(bad)


def test_negative_seed_rejected():
    with pytest.raises(ValueError, match="random_state.*-3"):
        check_rng(-3)


def test_is_reproducible():
    assert is_reproducible(None) is False
    assert is_reproducible(0) is True
    assert is_reproducible(np.random.default_rng()) is True
    assert is_reproducible(np.random.RandomState(0)) is True


@pytest.mark.parametrize("sample", SAMPLERS)
def test_samplers_reproducible_with_int_seed(sample):
    np.testing.assert_array_equal(sample(123), sample(123))
    assert not np.array_equal(sample(123), sample(124))


@pytest.mark.parametrize("sample", SAMPLERS)
def test_samplers_differ_without_seed(sample):
    assert not np.array_equal(sample(None), sample(None))


@pytest.mark.parametrize("sample", SAMPLERS)
def test_shared_generator_continues_its_stream(sample):
    rng = np.random.default_rng(5)
    first, second = sample(rng), sample(rng)
    assert not np.array_equal(first, second)
