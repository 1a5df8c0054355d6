"""DP-SGD, in one place: what the linear estimators and the nets share.

- :mod:`._plan`: the plan from public numbers (batch, steps, noise, learning rate, the
  ``"auto"`` policy) and :class:`DPSGDPlanMixin`, which resolves it for an estimator.
- :mod:`._sampling`: Poisson batches (the sampling the accountant assumes).
- :mod:`._numpy_loop`: the numpy step (losses, clipped gradient sums, smoothing, averaging)
  of the linear estimators; the torch step lives with the nets
  (:mod:`skprivate.neural_network`), where the backends differ.
- :mod:`._private_scaling`: the private centring and scaling of the rows (``"auto"`` clip).
- :mod:`._accounting`: the epsilon of several runs (``partial_fit``, warm starts), cached
  per ``(noise, rate)`` so that it can be reported after every epoch.

The accountant itself (RDP and PLD of the sampled Gaussian mechanism) is public API in
:mod:`skprivate.accounting`.
"""
