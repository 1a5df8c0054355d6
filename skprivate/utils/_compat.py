"""Everything that depends on an upstream version, in one place.

skprivate uses the public APIs of scikit-learn, dp-accounting and torch. Where it needs
something an upstream package does not publish (or published only in recent releases), the
call goes through this module: the public name first, a guarded fallback second, and a
:class:`~skprivate.exceptions.UpstreamAPIError` naming the package, the installed version and
the fix when neither exists. ``tests/utils/test_compat.py`` checks every entry on a tiny input,
so an upstream release that removes or changes one fails there, loudly, not deep inside a fit.

scikit-learn's ``_param_validation`` and ``sklearn.base._fit_context`` are the two private
scikit-learn modules the house style allows estimators to import directly (scikit-learn's
own contrib projects use them); the compatibility test checks them too.

torch is imported only inside the functions that need it, so ``import skprivate`` stays fast.
"""

from importlib import metadata

import numpy as np
from sklearn.utils import get_tags as _sklearn_get_tags
from sklearn.utils.validation import validate_data

# Defined with the package's other exceptions; importable from here too.
from ..exceptions import UpstreamAPIError

__all__ = [
    "UpstreamAPIError",
    "check_feature_names",
    "get_tags",
    "rdp_curve",
    "safe_indexing",
    "torch_cross_example_norms",
    "zcdp_dp_event",
]


def _installed(distribution):
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:  # pragma: no cover - the package imported
        return "unknown"


def _missing(distribution, what, supported):
    return UpstreamAPIError(
        f"skprivate needs {what} from {distribution}, which the installed {distribution} "
        f"{_installed(distribution)} does not provide. Install a supported version "
        f"(pip install '{distribution}{supported}') or upgrade skprivate."
    )


def zcdp_dp_event(rho):
    """``dp_accounting.ZCDpEvent(rho)``, or None where the installed dp-accounting has none.

    ``ZCDpEvent`` exists from dp-accounting 0.5.1 on; with an older release the spend carries
    no event, so it composes with others by basic composition (always valid, looser).
    """
    import dp_accounting

    event = getattr(dp_accounting, "ZCDpEvent", None)
    return None if event is None else event(float(rho))


def get_tags(estimator):
    """scikit-learn's estimator tags (public ``sklearn.utils.get_tags``, scikit-learn >= 1.6).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skprivate.utils._compat import get_tags
    >>> get_tags(LogisticRegression()).estimator_type
    'classifier'
    """
    return _sklearn_get_tags(estimator)


def check_feature_names(estimator, X, *, reset):
    """Set (``reset=True``) or check ``feature_names_in_`` as scikit-learn does, nothing else.

    Goes through the public ``validate_data`` with its array checks and the feature-count
    check switched off, so only the feature names are read or compared: a mismatch warns
    or raises exactly as in a scikit-learn estimator.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.base import BaseEstimator
    >>> from skprivate.utils._compat import check_feature_names
    >>> est = BaseEstimator()
    >>> check_feature_names(est, pd.DataFrame({"age": [1.0], "hours": [2.0]}), reset=True)
    >>> est.feature_names_in_.tolist()
    ['age', 'hours']
    """
    # y="no_validation" skips the "y is required" tag check; ensure_2d=False skips the
    # n_features check (the callers count features themselves, on their own input forms).
    validate_data(
        estimator, X, y="no_validation", reset=reset, skip_check_array=True, ensure_2d=False
    )


def safe_indexing(X, indices):
    """Rows ``indices`` of ``X`` (array, sparse matrix, DataFrame or list), in its own type.

    scikit-learn documents ``sklearn.utils._safe_indexing`` in its API reference for
    third-party estimators, under its private name; this is the one place that imports it.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._compat import safe_indexing
    >>> safe_indexing(np.arange(6).reshape(3, 2), [2, 0]).tolist()
    [[4, 5], [0, 1]]
    """
    try:
        from sklearn.utils import _safe_indexing
    except ImportError as exc:  # pragma: no cover - depends on the installed scikit-learn
        raise _missing("scikit-learn", "sklearn.utils._safe_indexing", ">=1.6,<1.10") from exc
    return _safe_indexing(X, indices)


def rdp_curve(accountant):
    """The RDP curve, one value per order, of a ``dp_accounting.rdp.RdpAccountant``.

    dp-accounting publishes it as the ``rdp`` property in recent releases; older ones keep it
    only in ``_rdp``. Anything else (an attribute of the wrong length, neither name) raises
    :class:`UpstreamAPIError` rather than guess: a wrong curve would be a wrong epsilon.

    Examples
    --------
    >>> import dp_accounting
    >>> from dp_accounting import rdp
    >>> from skprivate.utils._compat import rdp_curve
    >>> accountant = rdp.RdpAccountant([2.0, 4.0])
    >>> _ = accountant.compose(dp_accounting.GaussianDpEvent(1.0))
    >>> rdp_curve(accountant).tolist()  # alpha / (2 sigma^2)
    [1.0, 2.0]
    """
    curve = getattr(accountant, "rdp", None)
    if curve is None or callable(curve):
        curve = getattr(accountant, "_rdp", None)
    orders = getattr(accountant, "orders", None)
    if orders is None or callable(orders):
        orders = getattr(accountant, "_orders", None)
    if curve is None or orders is None or np.shape(curve) != np.shape(orders):
        raise _missing(
            "dp-accounting",
            "the RDP curve of RdpAccountant (its 'rdp' or '_rdp' array, one value per order)",
            ">=0.4.4,<0.7",
        )
    return np.array(curve, dtype=float, copy=True)


def torch_cross_example_norms():
    """The torch normalisation layer types that mix examples of a batch.

    Returns ``(batch_norms, instance_norms)``, two tuples of classes: every batch
    normalisation (torch's private base ``_BatchNorm`` where it exists, else the public
    layers), and every instance normalisation (which mixes examples only when it tracks
    running statistics). torch is imported here, not at module import.

    Examples
    --------
    >>> import torch
    >>> from skprivate.utils._compat import torch_cross_example_norms
    >>> batch_norms, instance_norms = torch_cross_example_norms()
    >>> isinstance(torch.nn.BatchNorm1d(3), batch_norms)
    True
    >>> isinstance(torch.nn.LayerNorm(3), batch_norms + instance_norms)
    False
    """
    import torch

    nn = torch.nn
    try:
        from torch.nn.modules.batchnorm import _BatchNorm

        batch_norms = (_BatchNorm,)
    except ImportError:
        names = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm",
                 "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d")
        batch_norms = tuple(getattr(nn, n) for n in names if hasattr(nn, n))
    try:
        from torch.nn.modules.instancenorm import _InstanceNorm

        instance_norms = (_InstanceNorm,)
    except ImportError:
        names = ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                 "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d")
        instance_norms = tuple(getattr(nn, n) for n in names if hasattr(nn, n))
    if not batch_norms or not instance_norms:  # pragma: no cover - depends on torch
        raise _missing("torch", "torch.nn.BatchNorm1d and torch.nn.InstanceNorm1d", "")
    return batch_norms, instance_norms
