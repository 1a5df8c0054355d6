"""Whether a value is a Dask collection, without importing Dask (one floor below every
module that takes Dask input)."""

import sys

__all__ = []


def is_dask_collection(obj):
    """Whether ``obj`` is a Dask collection, without importing Dask when it is not loaded."""
    if "dask" not in sys.modules:  # nothing can be a Dask collection before dask is imported
        return False
    from dask import is_dask_collection as _is_dask

    return _is_dask(obj)
