"""Noise samplers for differentially private estimators.

Continuous noise (:func:`laplace_noise`, :func:`gaussian_noise`) with the mechanisms that
calibrate it (:func:`laplace_mechanism`; :func:`gaussian_mechanism` with the analytic
calibration :func:`gaussian_sigma` of Balle and Wang 2018), and exact integer-valued noise for
counting queries (:func:`discrete_laplace_noise`, :func:`discrete_gaussian_noise`, after
Canonne, Kamath and Steinke 2020). Real-valued statistics are released without floating-point
exposure by :func:`granular_laplace_mechanism` and :func:`granular_gaussian_mechanism`: the
statistic rounded to a power-of-two grid plus exact integer noise on it;
:func:`rounded_gaussian_mechanism` adds exact *rounded* Gaussian noise, a post-processing of
the continuous Gaussian mechanism, so that every Gaussian plan's accounting carries over. Every sampler takes
``random_state``, resolved by :func:`check_rng`: ``None`` (the default, and the only choice
that keeps the privacy guarantee) draws from a cryptographically secure generator (ChaCha20)
keyed from the operating system's entropy (see :func:`skprivate.set_config`); an int gives
reproducible noise for tests and documentation only.
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
from ._secure import (
    granular_gaussian_mechanism,
    granular_gaussian_plan,
    granular_laplace_mechanism,
    granular_laplace_plan,
    rounded_gaussian_mechanism,
    rounded_gaussian_plan,
)

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
    "granular_gaussian_mechanism",
    "granular_gaussian_plan",
    "granular_laplace_mechanism",
    "granular_laplace_plan",
    "is_reproducible",
    "laplace_mechanism",
    "laplace_noise",
    "rounded_gaussian_mechanism",
    "rounded_gaussian_plan",
]
