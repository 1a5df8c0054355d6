"""Differentially private statistics with NumPy's names: means, counts, quantiles, histograms.

Each function reads like its NumPy namesake (``a``, ``axis``, ``keepdims``, ``dtype``) and adds
the privacy parameters of diffprivlib's ``tools`` (``bounds``, ``epsilon``, ``random_state``,
``accountant``). Each returns a :class:`PrivateResult`: the value, which behaves like a number
or an array, with the ``epsilon``, ``delta``, ``mechanism`` and ``caveats`` it was released
under. Every release is pure epsilon-DP under add/remove one row, with exact integer noise
(granular Laplace for real values, discrete Laplace for counts, permute-and-flip for quantiles);
the number of rows is never treated as public.
"""

from ._histograms import histogram, histogram2d, histogramdd
from ._moments import (
    count_nonzero,
    mean,
    nanmean,
    nanstd,
    nansum,
    nanvar,
    std,
    sum,
    var,
)
from ._quantiles import (
    median,
    nanmedian,
    nanpercentile,
    nanquantile,
    percentile,
    quantile,
)
from ._result import PrivateResult

__all__ = [
    "PrivateResult",
    "count_nonzero",
    "histogram",
    "histogram2d",
    "histogramdd",
    "mean",
    "median",
    "nanmean",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "percentile",
    "quantile",
    "std",
    "sum",
    "var",
]
