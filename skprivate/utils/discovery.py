"""Find skprivate's public estimators, so common tests and docs cover every one of them."""

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator

__all__ = ["all_estimators"]

# Modules that import torch at import time: only walked when torch is installed.
_TORCH_MODULES = ("skprivate.neural_network",)


def _torch_available():
    return importlib.util.find_spec("torch") is not None


def all_estimators():
    """Every public estimator class defined in skprivate, as sorted ``(name, class)`` pairs.

    Private modules and classes (leading underscore) and test helpers are skipped; the
    neural-network estimators are included only when torch is installed.

    Returns
    -------
    estimators : list of (str, type)

    Examples
    --------
    >>> from skprivate.utils import all_estimators
    >>> names = [name for name, _ in all_estimators()]
    >>> "DPLSSGDClassifier" in names
    True
    """
    import skprivate

    found = {}
    for info in pkgutil.walk_packages(skprivate.__path__, prefix="skprivate."):
        name = info.name
        if any(part.startswith("_") for part in name.split(".")[1:]) and not info.ispkg:
            # private modules are reached through their public package below
            continue
        if name.startswith(_TORCH_MODULES) and not _torch_available():
            continue
        module = importlib.import_module(name)
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseEstimator)
                and cls.__module__.startswith("skprivate.")
                and not cls_name.startswith("_")
                and not inspect.isabstract(cls)
            ):
                found[cls_name] = cls
    return sorted(found.items())
