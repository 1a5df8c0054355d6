"""What a DP-LSSGD net is given, checked before its privacy plan meets the data.

- The data, in any form skorch accepts: the number of rows read from lengths alone (the
  plan needs it before any value is read), arrays refused with a message where torch would
  fail (sparse, complex, non-numeric, 1-d, no feature), NaN and infinity refused (one makes
  the whole noisy sum NaN), feature names and counts checked as scikit-learn does, floating
  inputs cast to the module's dtype.
- The module: one trainable module, copied rather than trained in place, with no layer
  that mixes examples (batch normalisation breaks the per-example clipping), no trainable
  criterion, and lazy layers materialised from the shape of one example (a public value).
"""

import copy
from collections.abc import Mapping

import numpy as np
import torch
from skorch.dataset import get_len, unpack_data
from skorch.utils import is_dataset, to_tensor
from torch.nn.parameter import UninitializedParameter

from ..base import _n_rows
from ..utils._compat import check_feature_names as _check_feature_names
from ..utils._compat import torch_cross_example_norms
from ..utils._validation import ENCODE_CATEGORICAL
from ._per_sample import tree_map

__all__ = []


def _count_rows(X):
    """Number of rows of anything skorch accepts as ``X``, read from lengths, never values."""
    if is_dataset(X):
        return len(X)
    if hasattr(X, "shape"):
        return _n_rows(X)
    if isinstance(X, (Mapping, list, tuple)):
        # a dict or a list of arrays, one per input of the module (skorch's convention)
        try:
            return int(get_len(X))
        except (TypeError, ValueError):
            return _n_rows(X)
    return _n_rows(X)


def _is_plain_array(X):
    """A numpy array, pandas frame or scipy sparse matrix: skorch's other forms pass as they are."""
    if isinstance(X, (np.ndarray, np.generic)) or hasattr(X, "to_numpy"):
        return True
    return hasattr(X, "tocsr") and hasattr(X, "nnz")


def _check_plain_array(X, owner):
    """Refuse, with a message, array input that would otherwise fail inside torch.

    Returns a numeric numpy array (pandas frames converted); dicts, lists, tensors and
    Datasets are returned unchanged, as skorch takes them.
    """
    if not _is_plain_array(X):
        return X
    if hasattr(X, "tocsr"):
        raise TypeError(
            f"{owner} does not take scipy sparse X: torch modules need dense input. Pass "
            "X.toarray() if it fits in memory, or a torch Dataset that densifies each row."
        )
    values = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    if not values.flags.writeable:  # torch warns on read-only arrays (pandas views are)
        values = values.copy()
    if values.dtype.kind == "c":
        raise ValueError(f"{owner}: complex data not supported; got X of dtype {values.dtype}.")
    if values.dtype.kind not in "biuf":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{owner}: X must be numeric; got dtype {values.dtype} whose values cannot be "
                f"converted to float. {ENCODE_CATEGORICAL}"
            ) from None
    if values.ndim < 2:
        raise ValueError(
            f"{owner}: expected 2D array, got {values.ndim}D array instead. Reshape your "
            "data with X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if "
            "it is a single sample."
        )
    if values.ndim == 2 and values.shape[1] == 0:
        raise ValueError(
            f"{owner}: 0 feature(s) (shape={values.shape}) while a minimum of 1 is required."
        )
    return values


def _check_finite(data, name, owner):
    """Raise if a floating array or tensor in ``data`` holds NaN or infinity.

    One such value makes that example's gradient, hence the whole noisy sum, NaN.
    """
    if isinstance(data, Mapping):
        for value in data.values():
            _check_finite(value, name, owner)
        return
    if isinstance(data, (list, tuple)):
        for value in data:
            _check_finite(value, name, owner)
        return
    if isinstance(data, torch.Tensor):
        bad = data.is_floating_point() and not bool(torch.isfinite(data).all())
    elif isinstance(data, np.ndarray) or hasattr(data, "to_numpy"):
        values = data if isinstance(data, np.ndarray) else data.to_numpy()
        bad = values.dtype.kind in "fc" and not np.isfinite(values).all()
    else:
        return
    if bad:
        raise ValueError(
            f"Input {name} contains NaN or infinity; {owner} cannot use it (remove or impute "
            "those values with a rule that does not look at the private data)."
        )


def _cast(t, dtype):
    """``t`` in ``dtype``, its finite values clamped to the largest finite value of ``dtype``.

    A finite float64 value above float32's range (3.4e38) would become inf in a float32
    module, and the example's gradient NaN: the model would then tell whether that row was
    in the data. Clamped, the example stays finite (a rule on each value on its own, so the
    guarantee is unchanged) and is clipped like any other, or contributes zero where the
    module overflows on it (:func:`._per_sample.clipped_gradient_sum`). NaN and inf are
    left as they are, for the finiteness checks to refuse.
    """
    big = torch.finfo(dtype).max
    if torch.finfo(t.dtype).max > big:
        t = torch.where(torch.isfinite(t), t.clamp(-big, big), t)
    return t.to(dtype)


class _NetInputsMixin:
    """The checks of a DP-LSSGD net's data and module (see the module docstring)."""

    def _check_fit_inputs(self, X, y, fresh):
        """``(X, y)`` checked for training; a ``fresh`` model takes its features from ``X``.

        Call after the plan was reserved (``_begin_private_fit``): these checks read values.
        """
        owner = type(self).__name__
        if _is_plain_array(X):
            _check_feature_names(self, X, reset=fresh)
        X = _check_plain_array(X, owner)
        if isinstance(X, np.ndarray):
            if fresh:
                self.n_features_in_ = int(X.shape[1])
            else:
                self._check_n_features(X)
        _check_finite(X, "X", owner)
        _check_finite(y, "y", owner)
        return X, self._prepare_y(self._check_targets(y))

    def _begin_private_fit(self, X):
        # skorch takes dicts, lists of arrays and Datasets, whose len() is not always the
        # number of rows; otherwise this is DPEstimatorMixin's: plan, then reserve it.
        n_samples = _count_rows(X)
        if n_samples is None:
            raise ValueError(
                f"{type(self).__name__}: cannot tell the number of rows of X (got "
                f"{type(X).__name__}). Pass an array, a tensor, a dict of them, or a torch "
                "Dataset with a length: the privacy plan needs the number of rows before "
                "any value is read."
            )
        if n_samples < 1:
            raise ValueError(
                f"{type(self).__name__}: X has 0 rows; at least one row is needed to fit."
            )
        return self._reserve_plan(n_samples)

    def initialize_module(self):
        """Initialize the module; a module *instance* is copied, never trained in place.

        skorch trains a module instance in place, so a second ``fit`` would start from the
        weights of the first and carry its privacy cost unaccounted. The copy makes every
        fresh fit start from the instance as it was given.
        """
        if isinstance(self.module, torch.nn.Module) and not self.get_params_for("module"):
            self.module_ = copy.deepcopy(self.module)
            return self
        return super().initialize_module()

    def _check_module(self):
        name = type(self).__name__
        if list(self._modules) != ["module"]:
            raise NotImplementedError(
                f"{name} trains one module (module_); this net has {list(self._modules)}. "
                "Combine them into one torch.nn.Module."
            )
        batch_norms, instance_norms = torch_cross_example_norms()
        for path, sub in self.module_.named_modules():
            mixes = isinstance(sub, batch_norms) or (
                isinstance(sub, instance_norms) and sub.track_running_stats
            )
            if mixes:
                where = f"module_.{path}" if path else "module_"
                raise ValueError(
                    f"{name}: the module contains {type(sub).__name__} at {where!r}. Batch "
                    "normalisation computes statistics across the examples of a batch (and "
                    "keeps running statistics of the private data), so one example's gradient "
                    "depends on the others and per-example clipping no longer bounds its "
                    "influence. Replace it with torch.nn.GroupNorm or torch.nn.LayerNorm "
                    "(or InstanceNorm with track_running_stats=False)."
                )
        for criterion in self._criteria:
            module = getattr(self, criterion + "_", None)
            if isinstance(module, torch.nn.Module) and any(
                p.requires_grad for p in module.parameters()
            ):
                raise NotImplementedError(
                    f"{name}: the criterion {type(module).__name__} has trainable parameters, "
                    "which DP-LSSGD does not train; move them into the module."
                )
        if not any(p.requires_grad for p in self.module_.parameters()):
            raise ValueError(f"{name}: the module has no trainable parameters.")

    def _module_float_dtype(self):
        for p in self.module_.parameters():
            if p.is_floating_point():
                return p.dtype
        return None

    def _as_module_input(self, X):
        """``X`` as tensors on the net's device, floating ones in the module's dtype.

        numpy's default float64 would otherwise meet float32 weights and fail.
        """
        X = to_tensor(X, device=self.device)
        dtype = self._module_float_dtype()
        if dtype is None:
            return X
        return tree_map(lambda t: _cast(t, dtype) if t.is_floating_point() else t, X)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        """The criterion's loss, with floating targets cast to the prediction's dtype."""
        y_true = to_tensor(y_true, device=self.device)
        if (
            isinstance(y_pred, torch.Tensor)
            and isinstance(y_true, torch.Tensor)
            and y_pred.is_floating_point()
            and y_true.is_floating_point()
        ):
            y_true = y_true.to(y_pred.dtype)
        return super().get_loss(y_pred, y_true, X=X, training=training)

    def _prepare_y(self, y):
        return y

    def _check_targets(self, y):
        return y

    def _check_n_features(self, X):
        expected = getattr(self, "n_features_in_", None)
        if expected is not None and X.ndim == 2 and X.shape[1] != expected:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{expected} features as input."
            )

    def forward_iter(self, X, training=False, device="cpu"):
        """Run the module over ``X`` batch by batch (after checking array input)."""
        if _is_plain_array(X):  # names checked as scikit-learn does: a warning or an error
            _check_feature_names(self, X, reset=False)
        X = _check_plain_array(X, type(self).__name__)
        if isinstance(X, np.ndarray):
            self._check_n_features(X)
        return super().forward_iter(X, training=training, device=device)

    def infer(self, x, **fit_params):
        """Run the module on a batch (after casting floating inputs to the module's dtype)."""
        x = self._as_module_input(x)
        _check_finite(x, "X", type(self).__name__)
        return super().infer(x, **fit_params)

    def _materialize_lazy_parameters(self, dataset):
        # Lazy layers (torch.nn.LazyLinear, ...) take their sizes from the first forward pass,
        # and per-example gradients need materialized parameters. One pass on zeros shaped
        # like one example sets them from the shape alone, a public value.
        if not any(isinstance(p, UninitializedParameter) for p in self.module_.parameters()):
            return
        Xi, _ = unpack_data(dataset[0])
        probe = tree_map(
            lambda t: torch.zeros_like(t).unsqueeze(0), to_tensor(Xi, device=self.device)
        )
        with torch.no_grad():
            self.infer(probe)

