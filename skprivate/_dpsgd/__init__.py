"""DP-SGD, in one place: what the linear estimators and the nets share.

- :mod:`._plan`: the plan from public numbers (batch, steps, noise, learning rate, the
  ``"auto"`` policy, the tail average) and :class:`DPSGDPlanMixin`, which resolves it for
  an estimator on the number of rows it may read: a noisy count released first
  (:mod:`skprivate._row_count`), or the exact number when it is declared public.
- :mod:`._runs`: the runs of a fit (one per call since the weights were initialised, each
  charged its plan), the epsilon of the steps run so far, and :class:`DPSGDFitMixin`, the
  end of every DP-SGD fit (fitted attributes, privacy report, the spend of record).
- :mod:`._sampling`: Poisson batches (the sampling the accountant assumes), and the
  blockwise sampler addressable by row range that the linear loop uses.
- :mod:`._kernels`: the per-row kernels of the linear step (losses' residuals, row norms,
  clipped gradient and row sums), one floor below the in-memory and the Dask loops.
- :mod:`._numpy_loop`: the numpy step (batches, noise, smoothing, averaging) of the linear
  estimators; the torch step lives with the nets
  (:mod:`skprivate.neural_network._private_step`), where the backends differ.
- :mod:`._private_scaling`: the private centring and scaling of the rows (``"auto"`` clip).
- :mod:`._distributed`: the same sums computed per chunk of a Dask collection (the linear
  estimators' ``fit`` on Dask arrays and DataFrames; the trust model is stated there).
- :mod:`._accounting`: the epsilon of several runs (``partial_fit``, warm starts), cached
  per ``(noise, rate)`` so that it can be reported after every epoch.

The accountant itself (RDP and PLD of the sampled Gaussian mechanism) is public API in
:mod:`skprivate.accounting`.
"""
