"""Noise samplers for differentially private estimators.

Continuous noise (:func:`laplace_noise`, :func:`gaussian_noise`) with the mechanisms that
calibrate it (:func:`laplace_mechanism`; :func:`gaussian_mechanism` with the analytic
calibration :func:`gaussian_sigma` of Balle and Wang 2018), and exact integer-valued noise for
counting queries (:func:`discrete_laplace_noise`, :func:`discrete_gaussian_noise`, after
Canonne, Kamath and Steinke 2020). Every sampler takes ``random_state``, resolved by
:func:`check_rng`: ``None`` (the default, and the only choice that keeps the privacy guarantee)
draws from a cryptographically secure generator (ChaCha20) keyed from the operating system's
entropy (see :func:`skprivate.set_config`); an int gives reproducible noise for tests and
documentation only.
"""

from ._continuous import (
    gaussian_mechanism,
    gaussian_noise,
    gaussian_sigma,
    laplace_mechanism,
    laplace_noise,
)
from ._discrete import (
    discrete_gaussian_noise,
    discrete_gaussian_pmf,
    discrete_gaussian_rational_sigma2,
    discrete_laplace_noise,
    discrete_laplace_pmf,
    discrete_laplace_rational_scale,
)
from ._rng import check_rng, is_reproducible

# Listed in full (repeating the submodules' __all__) so tools that read the package's
# public names without importing it see them all.
__all__ = [
    "check_rng",
    "discrete_gaussian_noise",
    "discrete_gaussian_pmf",
    "discrete_gaussian_rational_sigma2",
    "discrete_laplace_noise",
    "discrete_laplace_pmf",
    "discrete_laplace_rational_scale",
    "gaussian_mechanism",
    "gaussian_noise",
    "gaussian_sigma",
    "is_reproducible",
    "laplace_mechanism",
    "laplace_noise",
]
