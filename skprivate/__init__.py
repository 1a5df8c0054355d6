"""skprivate: differentially private machine learning with the scikit-learn API.

Estimators are imported on first use, so ``import skprivate`` stays fast and never imports
torch; the neural-network estimators live in :mod:`skprivate.neural_network`.
"""

import importlib

from ._config import config_context, get_config, set_config
from ._version import __version__

# public name -> module that defines it
_LAZY = {
    "DPLSSGDClassifier": "skprivate.linear_model",
    "DPLSSGDRegressor": "skprivate.linear_model",
    "laplacian_smooth": "skprivate.smoothing",
    "PATEClassifier": "skprivate.pate",
    "DropoutSGDClassifier": "skprivate.dropout",
    "DropoutSGDRegressor": "skprivate.dropout",
    "DPDropoutClassifier": "skprivate.dropout",
    "DPDropoutRegressor": "skprivate.dropout",
    "GEMSCombiner": "skprivate.gems",
}
_SUBMODULES = [
    "accounting", "audit", "base", "cluster", "datasets", "decomposition", "dropout",
    "ensemble", "exceptions", "gems", "mechanisms", "model_selection", "naive_bayes",
    "plotting", "preprocessing", "stats", "utils",
]

__all__ = [
    "__version__", "config_context", "get_config", "set_config", *_LAZY, *_SUBMODULES
]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"skprivate.{name}")
    raise AttributeError(f"module 'skprivate' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
