"""skprivate.set_config / get_config / config_context, and the generator each fit reports."""

import threading
import warnings

import numpy as np
import pytest

import skprivate
from skprivate import DPLSSGDClassifier, config_context, get_config, set_config
from skprivate.mechanisms import check_rng


def _bits(rng):
    return type(rng.bit_generator).__name__


def test_secure_generator_is_the_default():
    assert get_config() == {"secure_generator": True, "secure_noise": True}
    assert _bits(check_rng()) == "ChaCha"


def test_get_config_returns_a_copy():
    config = get_config()
    config["secure_generator"] = False
    assert get_config()["secure_generator"] is True


def test_set_config_changes_the_generator_until_set_back():
    try:
        set_config(secure_generator=False)
        assert get_config()["secure_generator"] is False
        assert _bits(check_rng()) == "PCG64"
        set_config()  # None leaves it unchanged
        assert get_config()["secure_generator"] is False
    finally:
        set_config(secure_generator=True)
    assert _bits(check_rng()) == "ChaCha"


def test_config_context_restores_on_exit_and_on_error():
    with config_context(secure_generator=False):
        assert _bits(check_rng()) == "PCG64"
        with config_context(secure_generator=True):
            assert _bits(check_rng()) == "ChaCha"
        assert get_config()["secure_generator"] is False
    assert get_config()["secure_generator"] is True
    with pytest.raises(RuntimeError, match="boom"):
        with config_context(secure_generator=False):
            raise RuntimeError("boom")
    assert get_config()["secure_generator"] is True


def test_config_is_thread_local():
    seen = []
    with config_context(secure_generator=False):
        thread = threading.Thread(target=lambda: seen.append(get_config()["secure_generator"]))
        thread.start()
        thread.join()
    assert seen == [True]


@pytest.mark.parametrize("bad", [1, 0, "yes", None.__class__])
def test_bad_value_is_refused_naming_the_parameter(bad):
    with pytest.raises(TypeError, match="secure_generator must be True, False or None"):
        set_config(secure_generator=bad)
    assert get_config()["secure_generator"] is True


def test_exported_from_the_package():
    assert {"set_config", "get_config", "config_context"} <= set(skprivate.__all__)


# --- privacy_report_["generator"] ----------------------------------------------------------


def _fit(**kw):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPLSSGDClassifier(epsilon=1.0, classes=[0, 1], max_iter=2, **kw).fit(X, y)


def test_report_names_the_generator_of_the_fit():
    assert _fit().privacy_report_["generator"] == (
        "ChaCha20, 256-bit key from the operating system (cryptographically secure)"
    )
    with config_context(secure_generator=False):
        report = _fit().privacy_report_
    assert report["generator"].startswith("PCG64 seeded from the operating system")
    assert "not cryptographically secure" in report["generator"]
    assert "secure_generator=False" in report["generator"]
    assert _fit(random_state=0).privacy_report_["generator"] == (
        "PCG64 from random_state=0 (reproducible)"
    )
    user = _fit(random_state=np.random.default_rng(1)).privacy_report_["generator"]
    assert user.startswith("PCG64 (statistical) from the user's Generator")
    # an int seed is not affected by the setting
    with config_context(secure_generator=False):
        assert _fit(random_state=0).privacy_report_["generator"].endswith("(reproducible)")
    # the report shows it
    assert "generator" in str(_fit().privacy_report_)


def test_int_random_state_unaffected_by_the_setting():
    with config_context(secure_generator=False):
        a = _fit(random_state=3).coef_
    np.testing.assert_array_equal(_fit(random_state=3).coef_, a)


# --- secure_noise: how DP-SGD's Gaussian noise is released ---------------------------------


def test_secure_noise_is_the_default_and_the_report_says_which():
    report = _fit(random_state=0).privacy_report_
    assert report["noise"].startswith("rounded Gaussian on a power-of-two grid")
    with config_context(secure_noise=False):
        report = _fit(random_state=0).privacy_report_
    assert report["noise"].startswith("floating-point Gaussian (NumPy)")
    assert "secure_noise=False" in report["noise"]


def test_secure_noise_changes_the_draws_not_the_plan():
    secure = _fit(random_state=4)
    with config_context(secure_noise=False):
        plain = _fit(random_state=4)
    assert secure.epsilon_ == plain.epsilon_
    assert secure.noise_multiplier_ == plain.noise_multiplier_
    assert secure.n_steps_ == plain.n_steps_
    assert not np.array_equal(secure.coef_, plain.coef_)
    # The rounded release's noise is as large, within the grid's 2**-10: the models agree
    # up to the noise.
    np.testing.assert_allclose(secure.offset_, plain.offset_, atol=1.0)


@pytest.mark.parametrize("bad", [1, "no"])
def test_secure_noise_bad_value_is_refused(bad):
    with pytest.raises(TypeError, match="secure_noise must be True, False or None"):
        set_config(secure_noise=bad)
    assert get_config()["secure_noise"] is True
