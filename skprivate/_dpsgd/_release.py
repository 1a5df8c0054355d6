"""How DP-SGD's Gaussian releases are drawn: one callable for the steps and the row statistics.

Each release is ``release(value, sensitivity, noise_multiplier, rng)``: the exact statistic
``value`` (the clipped sum of a step, the private row statistics' counts and sums) plus
Gaussian noise of standard deviation ``noise_multiplier * sensitivity``. The accounting of a
fit (``skprivate._dpsgd._plan``) is that of the continuous Gaussian mechanism with these
noise multipliers, subsampled for the steps; both releases below keep it:

- secure (``set_config(secure_noise=True)``, the default): the rounded Gaussian release of
  :func:`skprivate.mechanisms.rounded_gaussian_mechanism`, a post-processing of the
  continuous Gaussian mechanism with the same noise multiplier on the statistic rounded to
  a dyadic grid (its sensitivity there is accounted for in the grid units), drawn with
  integer arithmetic: no floating-point noise is ever added to the exact sum (Mironov
  2012);
- floating point (``secure_noise=False``): ``value + N(0, sigma**2)`` from NumPy's sampler,
  the textbook mechanism, whose low bits can depend on ``value``.
"""

import numpy as np

from .._config import get_config
from ..mechanisms import gaussian_noise, rounded_gaussian_plan
from ..mechanisms._rounded import sample_rounded_gaussian
from ..mechanisms._secure import _release, _round_to_grid

__all__ = []

# Values drawn per batch once a release repeats (a fit's steps): one call of the exact
# sampler has a fixed cost of many small rounds, so drawing a step's few hundred values at
# a time would cost more than the values themselves.
_BATCH_VALUES = 1 << 18


class SecureGaussianRelease:
    """Rounded Gaussian releases (:func:`~skprivate.mechanisms.rounded_gaussian_mechanism`),
    with the integer noise of repeated releases of one shape drawn in batches.

    The first release of a (sensitivity, noise multiplier, size) draws its own noise; from
    the second on, the noise of up to ``2**18`` values' worth of further releases is drawn
    at once and used in order, never more releases than :meth:`expect` declared. The noise is independent of the data, so when it is drawn
    changes nothing about its distribution; unused draws are discarded with the object.
    One object per fit.
    """

    def __init__(self):
        self._streams = {}
        self._expected = None

    def expect(self, releases):
        """Declare how many releases of one shape the fit will make (its steps), so that a
        batch never draws noise the fit will not use (a short fit stays short)."""
        self._expected = int(releases)

    def __call__(self, value, sensitivity, noise_multiplier, rng):
        value = np.asarray(value, dtype=np.float64)
        key = (float(sensitivity), float(noise_multiplier), value.size)
        stream = self._streams.get(key)
        if stream is None:
            plan = rounded_gaussian_plan(sensitivity, noise_multiplier, max(value.size, 1))
            stream = self._streams[key] = [plan, np.empty((0, value.size), np.int64), 0, 0]
            rows = 1
        else:
            rows = max(1, _BATCH_VALUES // max(value.size, 1))
            if self._expected is not None:  # never more than the fit still needs
                rows = max(1, min(rows, self._expected - stream[3]))
        plan, buffer, used, served = stream
        if used == buffer.shape[0]:
            draws = sample_rounded_gaussian(plan.scale, rows * value.size, rng)
            buffer, used = draws.reshape(rows, value.size), 0
        noise = buffer[used].reshape(value.shape)
        stream[1:] = [buffer, used + 1, served + 1]
        return _release(_round_to_grid(value, plan.gamma), noise, plan.gamma)


def _float_release(value, sensitivity, noise_multiplier, rng):
    return value + gaussian_noise(noise_multiplier * sensitivity, size=value.shape,
                                  random_state=rng)


def gaussian_release():
    """The release callable the current configuration asks for (read once per fit)."""
    return SecureGaussianRelease() if get_config()["secure_noise"] else _float_release


def describe_release(release):
    """The ``privacy_report_["noise"]`` entry of a fit that used ``release``."""
    if isinstance(release, SecureGaussianRelease):
        return ("rounded Gaussian on a power-of-two grid, exact integer sampler "
                "(rounded_gaussian_mechanism): no floating-point noise")
    return ("floating-point Gaussian (NumPy), set_config(secure_noise=False): its low bits "
            "can reveal the exact sums (Mironov 2012)")
