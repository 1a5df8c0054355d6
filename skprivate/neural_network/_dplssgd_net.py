"""DP-LSSGD for PyTorch networks: skorch nets trained with DP-SGD and Laplacian smoothing.

One training step (Wang, Gu, Boedihardjo, Barekat and Osher, "DP-LSSGD", 2019, without the
defects listed in the DP-LSSGD user guide, "What the authors' code did"), in
:meth:`train_step_single`:

1. The batch is a Poisson sample: every training row independently with probability ``q``
   (the training iterator, :class:`~skprivate.neural_network._sampling.PoissonBatchSampler`).
2. Each example's gradient of the loss with respect to all trainable parameters together is
   clipped to Euclidean norm ``C`` (``torch.func``: ``_per_sample.clipped_gradient_sum``).
3. The clipped gradients are summed, ``N(0, (z C)^2)`` is added to every coordinate, and the
   result is divided by the expected batch size ``q n``.
4. Each parameter tensor (or their concatenation) is smoothed with
   ``(I + (-1)^p sigma L^p)^{-1}`` and becomes the parameter's ``.grad``.
5. The optimizer steps (momentum, weight decay, Adam's moments: all allowed).

Privacy (add/remove-one-row neighbours): steps 1-3 are the sampled Gaussian mechanism of
Mironov, Talwar and Zhang (2019), with sensitivity ``C``, rate ``q`` and noise multiplier
``z``; ``T`` steps compose (accounted in RDP or PLD with dp-accounting). Steps 4-5 use only
the noisy sum and public values, so by the post-processing property (Dwork and Roth 2014,
Prop. 2.1; the "DP-LSSGD - Recap" slide of Osher's talk) they cost nothing more, whatever
the smoothing and the optimizer. The privacy step is part of the net's own ``train_step``,
not a callback that could be left out.
"""

import contextlib
import copy
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from skorch import NeuralNetClassifier, NeuralNetRegressor
from skorch.dataset import get_len, unpack_data
from skorch.utils import TeeGenerator, is_dataset, to_tensor
from torch.nn.parameter import UninitializedParameter

from .. import _caveats
from .._dpsgd._plan import (
    DPSGDPlanMixin,
    auto_batch_size,
    auto_steps,
    public_n_samples,
)
from ..base import DPEstimatorMixin, _n_rows
from ..utils._compat import check_feature_names as _check_feature_names
from ..utils._compat import torch_cross_example_norms
from ..utils._progress import progress_counter
from ..utils._validation import ENCODE_CATEGORICAL
from .._dpsgd._accounting import _step_pld, composed_epsilon, pld_grid, runs_event
from ._docstrings import CLASSIFIER_DOC, REGRESSOR_DOC, build_doc
from ._per_sample import clipped_gradient_sum, tree_map
from ._sampling import EmptySafeCollate, PoissonBatchSampler
from ._smoothing import BlockSmoother

__all__ = ["DPLSSGDNeuralNetClassifier", "DPLSSGDNeuralNetRegressor"]

# --- the "auto" plan of the nets: public numbers only (n, epsilon, delta, the clip) --------
#
# As for the linear models (skprivate._dpsgd._plan): batch max(128, n / 256), about ten
# epochs kept within 2,000 to 5,000 steps (rounded here to whole epochs, so that an epoch
# stays round(n / batch) steps), and a learning rate that spreads a total step length
# lr x steps x max_grad_norm = _AUTO_TOTAL_STEP x n x epsilon over the steps, with the second
# half of the iterates averaged (post-processing, free). Measured on sklearn's digits
# (StandardScaler, 70/30 split, a 64-unit ReLU MLP, SGD, clip 0.3, epsilon 1, seeds 0 / 1):
# total step factors 0.01 / 0.03 / 0.05 / 0.1 / 0.3 gave 0.77 / 0.885, 0.896 / 0.898 /
# 0.85 / 0.66 with the tail average, and the last iterate at 0.03 gave 0.86 (the old
# defaults: lr 3, 30 epochs of batch 512, clip 1, smoothing 1: 0.79 / 0.82). Clip 1 at the
# same total lost 2 points (0.865); momentum 0.9 at the same lr is a tenfold total (0.67).
# Opacus's tuned MLP reaches 0.804 / 0.881 / 0.906 at epsilon 0.5 / 1 / 2 here.
_AUTO_TOTAL_STEP = 0.04
_DEFAULT_CLIP = 0.3
# Batch size of predict and validation for batch_size="auto" (no privacy role).
_AUTO_BATCH_SIZE = 512

# DataLoader arguments that would replace the Poisson sampling.
_SAMPLING_ARGUMENTS = ("batch_size", "shuffle", "sampler", "batch_sampler", "drop_last")

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


@contextlib.contextmanager
def _seeded_torch_rng(device, seed):
    """Seed torch's global generators for the fit only, and restore them afterwards.

    Weight initialisation and dropout draw from torch's global generators; seeding them
    from the fit's generator makes ``random_state`` govern them too, without changing the
    state the user's own code sees after the fit.
    """
    dev = torch.device(device) if device is not None else torch.device("cpu")
    cuda = []
    if dev.type == "cuda":
        cuda = [dev.index if dev.index is not None else torch.cuda.current_device()]
    with torch.random.fork_rng(devices=cuda):
        torch.default_generator.manual_seed(seed)
        for index in cuda:
            with torch.cuda.device(index):
                torch.cuda.manual_seed(seed)
        yield


class _Run:
    """What one call of fit/partial_fit needs while it trains (public values and generators)."""

    def __init__(self, plan, n_samples, rng, generator, smoother):
        self.plan = plan
        self.n_samples = n_samples
        self.rng = rng
        self.generator = generator
        self.smoother = smoother
        self.divisor = plan.sample_rate * n_samples
        self.steps = 0
        self.epochs = 0
        self.reduction = None
        self.epochs_planned = 0
        self.average_from = None
        self.average_sum = None
        self.average_count = 0
        self.pld = None  # the PLD of the steps so far (history's epsilon, accounting="pld")
        self.pld_steps = 0
        self.pld_width = None  # the PLD grid of the plan (0.0: the RDP bound is reported)
        self.pld_blocks = {}


class _DPLSSGDNetMixin(DPSGDPlanMixin, DPEstimatorMixin):
    """The DP-LSSGD training of a skorch net, shared by the classifier and the regressor."""

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        **DPSGDPlanMixin._dpsgd_parameter_constraints,
        "max_epochs": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "lr": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"auto"})],
        "average": ["boolean", StrOptions({"auto"})],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        "train_split": [callable, None],
    }

    # --- parameters ---------------------------------------------------------------------------

    def _get_param_names(self):
        # skorch lists every attribute not ending in "_"; private bookkeeping (skorch's
        # _params_to_validate, the privacy spend record) is not a constructor argument.
        return [name for name in super()._get_param_names() if not name.startswith("_")]

    def _validate_dp_params(self):
        params = {name: getattr(self, name) for name in self._parameter_constraints}
        if params["train_split"] is False:
            params["train_split"] = None  # skorch reads False as "no split" too
        validate_parameter_constraints(
            self._parameter_constraints, params, caller_name=type(self).__name__
        )

    _EPOCHS_PARAM = "max_epochs"
    _AUTO_BATCH_SIZE = None  # batch_size="auto": _dpsgd._plan.auto_batch_size

    def _epochs(self, n_samples):
        """``max_epochs`` with ``"auto"`` resolved: about ``auto_steps`` steps in whole epochs,
        so that the plan's steps are exactly the ``epochs x steps per epoch`` the fit runs."""
        if self.max_epochs != "auto":
            return self.max_epochs
        batch = auto_batch_size(n_samples) if self.batch_size == "auto" else self.batch_size
        steps_per_epoch = max(1, int(n_samples / batch + 0.5))
        return max(1, round(auto_steps(n_samples, batch) / steps_per_epoch))

    def _learning_rate(self, plan, n_samples):
        """``lr`` with ``"auto"`` resolved: total step ``_AUTO_TOTAL_STEP n epsilon`` (public)."""
        if self.lr != "auto":
            return float(self.lr)
        n_samples = public_n_samples(self, n_samples)
        return float(
            _AUTO_TOTAL_STEP * n_samples * plan.epsilon
            / (plan.n_steps * float(self.max_grad_norm))
        )

    def _average_from(self, plan):
        """Step after which this call's iterates are averaged (None: no averaging)."""
        if self.average == "auto":
            return plan.n_steps // 2
        return 0 if self.average else None

    def get_params_for_optimizer(self, prefix, named_parameters):
        """skorch's, with ``lr="auto"`` replaced by the learning rate of the current plan."""
        args, kwargs = super().get_params_for_optimizer(prefix, named_parameters)
        if isinstance(kwargs.get("lr"), str):
            kwargs["lr"] = float(getattr(self, "_dp_auto_lr", 0.0))
        return args, kwargs

    def _set_auto_lr(self, lr):
        """Give every optimizer's parameter groups that follow ``lr="auto"`` the new rate."""
        previous = getattr(self, "_dp_auto_lr", None)
        self._dp_auto_lr = lr
        if self.lr != "auto":
            return
        for name in getattr(self, "_optimizers", ()):
            optimizer = getattr(self, name + "_", None)
            for group in getattr(optimizer, "param_groups", ()):
                if previous is None or group.get("lr") == previous:
                    group["lr"] = lr

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

    # --- components ---------------------------------------------------------------------------

    @property
    def _default_callbacks(self):
        # The training loss is computed on the private rows without noise: recording it in
        # the history (and printing it) would publish it outside the guarantee.
        return [(name, cb) for name, cb in super()._default_callbacks if name != "train_loss"]

    def initialize(self):
        """Initialize the module, criterion, optimizer and callbacks; forget earlier spends."""
        # (noise multiplier, sample rate, planned steps) of every call since this
        # initialization: what the weights cost
        self._dp_runs_ = []
        self._dp_steps_ = 0
        self._dp_epochs_ = 0
        return super().initialize()

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
        return tree_map(lambda t: t.to(dtype) if t.is_floating_point() else t, X)

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

    # --- fitting ------------------------------------------------------------------------------

    def fit(self, X, y=None, **fit_params):
        """Initialize the module (unless ``warm_start``) and train it with DP-LSSGD.

        Parameters
        ----------
        X : array-like, tensor, dict of them, or torch Dataset
            Training data, in any form skorch accepts, scaled with public bounds (see the
            class Notes). Floating inputs are cast to the module's dtype.
        y : array-like or tensor, default=None
            Targets; None when ``X`` is a Dataset that yields them.
        **fit_params : dict
            Extra keyword arguments for the module's ``forward`` (the same for every
            example).

        Returns
        -------
        self : object
            The fitted net.
        """
        fresh = not self.warm_start or not self.initialized_
        return self._private_fit(X, y, fresh, fit_params)

    def partial_fit(self, X, y=None, classes=None, **fit_params):
        """Train for ``max_epochs`` more epochs, without re-initializing the module.

        Every call spends privacy: its planned spend is checked against ``accountant``
        before any data is read and recorded there afterwards, and ``epsilon_`` becomes the
        composed cost of all calls since the module was initialized (the model depends on
        all of them).

        Parameters
        ----------
        X : array-like, tensor, dict of them, or torch Dataset
            Training data.
        y : array-like or tensor, default=None
            Targets.
        classes : array-like, default=None
            Unused, for scikit-learn compatibility.
        **fit_params : dict
            Extra keyword arguments for the module's ``forward``.

        Returns
        -------
        self : object
            The fitted net.
        """
        return self._private_fit(X, y, not self.initialized_, fit_params)

    def _private_fit(self, X, y, fresh, fit_params):
        fit_params = dict(fit_params)
        fit_params.pop("_routing_method", None)
        self._validate_dp_params()
        self._begin_private_fit(X)  # before any value of X is read
        n_samples = _count_rows(X)
        if _is_plain_array(X):
            _check_feature_names(self, X, reset=fresh)
        X = _check_plain_array(X, type(self).__name__)
        if isinstance(X, np.ndarray):
            if fresh:
                self.n_features_in_ = int(X.shape[1])
            else:
                self._check_n_features(X)
        _check_finite(X, "X", type(self).__name__)
        _check_finite(y, "y", type(self).__name__)
        y = self._prepare_y(self._check_targets(y))
        plan = self._plan(n_samples)  # cached: the numbers the accountant just checked
        learning_rate = self._learning_rate(plan, n_samples)
        rng = self._noise_rng()
        torch_seed, noise_seed = (int(s) for s in rng.integers(0, 2**63 - 1, size=2))
        with _seeded_torch_rng(self.device, torch_seed):
            previous_lr = getattr(self, "_dp_auto_lr", None)
            self._dp_auto_lr = learning_rate
            if fresh:
                self.initialize()
            else:
                self._dp_auto_lr = previous_lr
            self._set_auto_lr(learning_rate)
            self.lr_ = learning_rate
            self._check_module()
            device = next(p for p in self.module_.parameters() if p.requires_grad).device
            generator = torch.Generator(device=device)
            generator.manual_seed(noise_seed)
            smoother = BlockSmoother(self.smoothing, self.smoothing_order, self.smoothing_blocks)
            run = _Run(plan, n_samples, rng, generator, smoother)
            run.epochs_planned = plan.n_steps // plan.steps_per_epoch
            run.average_from = self._average_from(plan)
            self._dp_run_ = run
            try:
                self.notify("on_train_begin", X=X, y=y)
                try:
                    self.fit_loop(X, y, **fit_params)
                except KeyboardInterrupt:
                    pass  # skorch's way to stop early (EarlyStopping); the spend is the plan
                self._load_average(run)
                self.notify("on_train_end", X=X, y=y)
            finally:
                del self._dp_run_
                # Noisy steps that ran were released into the weights: record them even if
                # the fit failed afterwards.
                if run.steps > 0:
                    self._finish_run(run, n_samples)
        return self

    def _active_run(self):
        run = getattr(self, "_dp_run_", None)
        if run is None:
            raise RuntimeError(
                f"{type(self).__name__}: training steps run only inside fit or partial_fit, "
                "which plan and account for the privacy spend; call one of those."
            )
        return run

    def fit_loop(self, X, y=None, epochs=None, *, _routing_method="fit", **fit_params):
        """Train for ``max_epochs`` epochs of Poisson-sampled steps (inside fit only).

        Each epoch records ``epsilon``, the privacy spent so far, in ``history``. The training
        loss is not recorded: it is computed on the private rows without noise.
        """
        run = self._active_run()
        if epochs is not None and epochs != run.epochs_planned:
            raise ValueError(
                f"{type(self).__name__}: the privacy plan covers {run.epochs_planned} epochs "
                f"(max_epochs={self.max_epochs!r}); got epochs={epochs}. Set max_epochs "
                "instead."
            )
        self.check_data(X, y)
        self.check_training_readiness()
        dataset_train, dataset_valid = self.get_split_datasets(X, y, **fit_params)
        if len(dataset_train) > run.n_samples:
            raise ValueError(
                f"{type(self).__name__}: the training set has {len(dataset_train)} rows but X "
                f"has {run.n_samples}; the privacy plan was made for {run.n_samples}."
            )
        self._materialize_lazy_parameters(dataset_train)
        # The expected batch size is public (rate times the number of training rows).
        # (a private search's run divides by its public planned size, not the realised one)
        run.divisor = run.plan.sample_rate * public_n_samples(self, len(dataset_train))
        on_epoch = {"dataset_train": dataset_train, "dataset_valid": dataset_valid}
        iterator_train = self.get_iterator(dataset_train, training=True)
        iterator_valid = None
        if dataset_valid is not None:
            iterator_valid = self.get_iterator(dataset_valid, training=False)
        # verbose=1: a bar over the steps (counts and time only) beside skorch's epoch table.
        n_steps = run.epochs_planned * run.plan.steps_per_epoch
        with progress_counter(total=n_steps, desc=f"{type(self).__name__} steps",
                              verbose=self.verbose) as bar:
            for _ in range(run.epochs_planned):
                self.notify("on_epoch_begin", **on_epoch)
                for batch in iterator_train:
                    self.notify("on_batch_begin", batch=batch, training=True)
                    step = self.train_step(batch, **fit_params)
                    self.notify("on_batch_end", batch=batch, training=True, **step)
                    bar.update()
                run.epochs += 1
                self.history.record("epsilon", self._epsilon_with(run))
                self.run_single_epoch(
                    iterator_valid,
                    training=False,
                    prefix="valid",
                    step_fn=self.validation_step,
                    **fit_params,
                )
                self.notify("on_epoch_end", **on_epoch)
        return self

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

    def get_iterator(self, dataset, training=False):
        """Poisson-sampled batches for training; plain batches of ``batch_size`` otherwise."""
        if training:
            run = self._active_run()
            kwargs = self.get_params_for("iterator_train")
            conflicting = sorted(set(kwargs) & set(_SAMPLING_ARGUMENTS))
            if conflicting:
                names = ", ".join(f"iterator_train__{key}" for key in conflicting)
                raise ValueError(
                    f"{type(self).__name__}: {names} would replace the Poisson sampling that "
                    "the privacy accounting assumes; remove it (batch_size sets the expected "
                    "batch size)."
                )
            sampler = PoissonBatchSampler(
                len(dataset), run.plan.sample_rate, run.plan.steps_per_epoch, run.rng
            )
            collate = EmptySafeCollate(kwargs.pop("collate_fn", None))
            return self.iterator_train(
                dataset, batch_sampler=sampler, collate_fn=collate, **kwargs
            )
        kwargs = self.get_params_for("iterator_valid")
        if "batch_size" not in kwargs:
            kwargs["batch_size"] = (
                _AUTO_BATCH_SIZE if self.batch_size == "auto" else self.batch_size
            )
        return self.iterator_valid(dataset, **kwargs)

    def _example_loss(self, y_pred, y_true, X):
        loss = self.get_loss(y_pred, y_true, X=X, training=True)
        if loss.ndim == 0:
            return loss
        # The criterion ran with reduction="none": reduce over this example's outputs the
        # way the criterion was configured to.
        return loss.sum() if self._dp_run_.reduction == "sum" else loss.mean()

    @contextlib.contextmanager
    def _criterion_per_example(self):
        criterion = getattr(self, "criterion_", None)
        reduction = getattr(criterion, "reduction", None)
        self._dp_run_.reduction = reduction
        if not isinstance(reduction, str):
            yield
            return
        # reduction="none" keeps per-class weights (CrossEntropyLoss(weight=...)), which a
        # mean over a batch of one would divide out again.
        criterion.reduction = "none"
        try:
            yield
        finally:
            criterion.reduction = reduction

    def train_step_single(self, batch, **fit_params):
        """Set each parameter's ``.grad`` to the smoothed noisy gradient of one batch.

        The only place where the private data meet the model during training: per-example
        gradients clipped to ``max_grad_norm`` as one vector, summed, plus Gaussian noise.

        Parameters
        ----------
        batch : tuple or None
            One Poisson batch from the training iterator; None for an empty batch (which
            still takes a step: noise only).
        **fit_params : dict
            Extra keyword arguments for the module's ``forward``.

        Returns
        -------
        step : dict
            ``{"loss": mean unclipped loss of the batch, "y_pred": module output}``, for
            callbacks only; neither is recorded in the history.
        """
        run = self._active_run()
        self._set_training(True)
        named = dict(self.module_.named_parameters())
        params = {name: p.detach() for name, p in named.items() if p.requires_grad}
        if batch is None:
            grad_sum = {name: torch.zeros_like(p) for name, p in params.items()}
            loss, y_pred = torch.tensor(float("nan")), None
        else:
            Xi, yi = unpack_data(batch)
            Xi = self._as_module_input(Xi)
            yi = to_tensor(yi, device=self.device) if yi is not None else None
            constants = {name: p.detach() for name, p in named.items() if not p.requires_grad}
            constants.update(dict(self.module_.named_buffers()))
            with self._criterion_per_example():
                grad_sum, losses, y_pred, _ = clipped_gradient_sum(
                    self.module_,
                    params,
                    constants,
                    Xi,
                    yi,
                    example_loss=self._example_loss,
                    max_grad_norm=float(self.max_grad_norm),
                    fit_params=fit_params,
                    # Dropout draws a fresh mask for every example, as in a batched forward.
                    randomness="different",
                )
            loss = losses.mean()
        noise_std = float(run.plan.noise_multiplier) * float(self.max_grad_norm)
        noisy = {}
        for name, total in grad_sum.items():
            noise = torch.randn(
                total.shape, generator=run.generator, device=total.device, dtype=total.dtype
            )
            # Dividing by the expected batch size, a public number, keeps the step size
            # data-independent (dividing by the drawn batch size would make it private).
            noisy[name] = (total + noise_std * noise) / run.divisor
        run.steps += 1
        # From here on only the noisy sum and public values are used: post-processing (Dwork
        # and Roth 2014, Prop. 2.1; slide "DP-LSSGD - Recap"), so the smoothing and the
        # optimizer cost nothing beyond the sampled Gaussian mechanism above.
        smoothed = run.smoother(noisy)
        for name, g in smoothed.items():
            named[name].grad = g.to(named[name].dtype)
        return {"loss": loss, "y_pred": y_pred}

    def train_step(self, batch, **fit_params):
        """One DP-LSSGD step: the noisy smoothed gradient, then every optimizer's ``step()``.

        Optimizers are stepped without a closure: a closure would let them (LBFGS) evaluate
        the loss on the private batch again, outside the accounting.
        """
        self._zero_grad_optimizer()
        step = self.train_step_single(batch, **fit_params)
        self.notify(
            "on_grad_computed",
            named_parameters=TeeGenerator(self.get_all_learnable_params()),
            batch=batch,
            training=True,
        )
        for name in self._optimizers:
            getattr(self, name + "_").step()
        self._accumulate_average(self._active_run())
        return step

    def _accumulate_average(self, run):
        # The iterates are post-processing of the noisy steps: averaging them is free.
        if run.average_from is None or run.steps <= run.average_from:
            return
        with torch.no_grad():
            params = {
                name: p.detach() for name, p in self.module_.named_parameters() if p.requires_grad
            }
            if run.average_sum is None:
                run.average_sum = {name: p.clone() for name, p in params.items()}
            else:
                for name, p in params.items():
                    run.average_sum[name].add_(p)
        run.average_count += 1

    def _load_average(self, run):
        """Replace the trainable weights by the mean of the averaged iterates (if any)."""
        if run.average_sum is None:
            return
        named = dict(self.module_.named_parameters())
        with torch.no_grad():
            for name, total in run.average_sum.items():
                named[name].copy_(total / run.average_count)

    # --- the spend ----------------------------------------------------------------------------

    def _epsilon_with(self, run):
        """Epsilon of the steps run so far (for the history: progress, not the guarantee)."""
        if not self._dp_runs_ and run.steps == run.plan.n_steps:
            return run.plan.epsilon  # the plan's own number, so the last entry is epsilon_
        z, q = float(run.plan.noise_multiplier), float(run.plan.sample_rate)
        if not self._dp_runs_ and self.accounting == "pld" and run.pld_width is None:
            # the grid of the whole plan (None: its RDP bound is reported, as dpsgd_epsilon does)
            run.pld_width = pld_grid([(z, q, run.plan.n_steps)], float(self.delta)) or 0.0
        if not self._dp_runs_ and self.accounting == "pld" and run.pld_width:
            # The PLD of the steps so far, composed on with each epoch's: one composition
            # an epoch instead of a self-composition of every step so far (7x faster over
            # the hundreds of epochs of an "auto" plan on small data).
            new = run.steps - run.pld_steps
            if new > 0:
                step = _step_pld(z, q, run.pld_width)
                block = run.pld_blocks.get(new)
                if block is None:
                    block = run.pld_blocks[new] = step.self_compose(new)
                run.pld = block if run.pld is None else run.pld.compose(block)
                run.pld_steps = run.steps
            return 0.0 if run.pld is None else float(run.pld.get_epsilon_for_delta(self.delta))
        runs = [*self._dp_runs_, (run.plan.noise_multiplier, run.plan.sample_rate, run.steps)]
        return composed_epsilon(runs, float(self.delta), self.accounting)

    def _finish_run(self, run, n_samples):
        plan = run.plan
        # Every call is accounted at its plan, not at the steps that ran. A callback that
        # stops training early (skorch's EarlyStopping) decides when from the private data
        # (validation scores of the noisy weights), so the stopping time is itself released;
        # only the plan, fixed before any value was read, bounds the fit (the reservation in
        # DPEstimatorMixin._reserve_plan; see BudgetAccountant's Notes).
        this_call = (plan.noise_multiplier, plan.sample_rate, plan.n_steps)
        self._dp_runs_.append(this_call)
        self._dp_steps_ += run.steps
        self._dp_epochs_ += run.epochs
        delta = float(self.delta)
        # The spend reserved before the fit (the same plan, recomputed if none was reserved).
        call_spend = getattr(self, "_reserved_spend", None) or self._privacy_plan(n_samples)
        self.noise_multiplier_ = plan.noise_multiplier
        self.sample_rate_ = plan.sample_rate
        self.n_steps_ = self._dp_steps_
        self.n_iter_ = self._dp_epochs_
        report = self._dpsgd_report(
            plan,
            gradients="all trainable parameters together",
            steps=self.n_steps_,
            epochs=self.n_iter_,
            learning_rate=self.lr_,
            average=(
                "none" if run.average_from is None
                else f"mean of the iterates after step {run.average_from} of {plan.n_steps}"
            ),
        )
        if run.steps < plan.n_steps:
            report["stopped_early"] = (
                f"{run.steps} of {plan.n_steps} planned steps ran; epsilon is the planned "
                "one, because when training stopped was read from the data"
            )
        caveats = []
        if self.train_split:
            caveats.append(_caveats.validation_rows_unprotected(self.train_split))
        if self._labels_read_from_data():
            caveats.append(_caveats.labels_from_data(self.classes_))
        spend = call_spend
        if len(self._dp_runs_) > 1:
            # The weights depend on every call since initialization: the guarantee, the
            # warning and the caveats are those of their composition (RDP or PLD over all
            # runs, _accounting.composed_epsilon); the accountant has recorded each call's
            # own plan.
            report["calls"] = len(self._dp_runs_)
            report["epsilon_this_call"] = call_spend.epsilon
            total = composed_epsilon(self._dp_runs_, delta, self.accounting)
            spend = self._privacy_spend(total, delta, event=runs_event(self._dp_runs_))
        self._finish_private_fit(spend, report, n_samples, caveats, recorded=call_spend)

    def _labels_read_from_data(self):
        return False


class DPLSSGDNeuralNetClassifier(_DPLSSGDNetMixin, NeuralNetClassifier):
    __doc__ = build_doc(CLASSIFIER_DOC, classifier=True)

    def _labels_read_from_data(self):
        # skorch publishes classes_ from y when classes=None (classes_inferred_).
        return self.classes is None and hasattr(self, "classes_inferred_")

    def _check_targets(self, y):
        # Labels must be the module's output indices; refuse what would fail inside torch.
        if y is None or not (_is_plain_array(y) or isinstance(y, (list, tuple))):
            return y
        labels = y.to_numpy() if hasattr(y, "to_numpy") else np.asarray(y)
        name = type(self).__name__
        if labels.dtype.kind in "OUS":
            raise ValueError(
                f"{name}: y holds labels of dtype {labels.dtype} (for example "
                f"{labels.ravel()[:1].tolist()}); the net needs integer class indices 0 .. "
                "n_classes - 1. Encode them with sklearn.preprocessing.LabelEncoder and decode "
                "the predictions with its inverse_transform."
            )
        if labels.dtype.kind == "f":
            if not np.all(np.isfinite(labels)) or np.any(labels != np.round(labels)):
                raise ValueError(
                    f"Unknown label type: continuous. {name} needs integer class indices; "
                    "for a continuous target use DPLSSGDNeuralNetRegressor."
                )
            labels = labels.astype(np.int64)
        if self.classes is not None:
            n_classes = len(self.classes)
            outside = (labels < 0) | (labels >= n_classes)
            if np.any(outside):
                raise ValueError(
                    f"{name}: y holds {labels[outside].ravel()[:3].tolist()}, outside the "
                    f"class indices 0 .. {n_classes - 1} that classes={list(self.classes)!r} "
                    "declares (y holds indices into classes). Add the missing classes to "
                    "classes, or check the labels."
                )
        if self.classes is None and np.unique(labels).size < 2:
            raise ValueError(
                f"{name}: y has one class {np.unique(labels).tolist()}; a classifier "
                "needs at least two. Pass classes=[...] if the others are known but absent "
                "from this batch (for example in partial_fit)."
            )
        return labels

    def __init__(
        self,
        module,
        *,
        criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.SGD,
        lr="auto",
        max_epochs="auto",
        batch_size="auto",
        train_split=None,
        classes=None,
        verbose=0,
        epsilon=1.0,
        delta=1e-5,
        smoothing=0.0,
        smoothing_order=1,
        smoothing_blocks="per_tensor",
        max_grad_norm=_DEFAULT_CLIP,
        noise_multiplier=None,
        accounting="pld",
        average="auto",
        accountant=None,
        random_state=None,
        **kwargs,
    ):
        super().__init__(
            module,
            criterion=criterion,
            optimizer=optimizer,
            lr=lr,
            max_epochs=max_epochs,
            batch_size=batch_size,
            train_split=train_split,
            classes=classes,
            verbose=verbose,
            **kwargs,
        )
        self.epsilon = epsilon
        self.delta = delta
        self.smoothing = smoothing
        self.smoothing_order = smoothing_order
        self.smoothing_blocks = smoothing_blocks
        self.max_grad_norm = max_grad_norm
        self.noise_multiplier = noise_multiplier
        self.accounting = accounting
        self.average = average
        self.accountant = accountant
        self.random_state = random_state


class DPLSSGDNeuralNetRegressor(_DPLSSGDNetMixin, NeuralNetRegressor):
    __doc__ = build_doc(REGRESSOR_DOC, classifier=False)

    def __init__(
        self,
        module,
        *,
        criterion=torch.nn.MSELoss,
        optimizer=torch.optim.SGD,
        lr="auto",
        max_epochs="auto",
        batch_size="auto",
        train_split=None,
        verbose=0,
        epsilon=1.0,
        delta=1e-5,
        smoothing=0.0,
        smoothing_order=1,
        smoothing_blocks="per_tensor",
        max_grad_norm=_DEFAULT_CLIP,
        noise_multiplier=None,
        accounting="pld",
        average="auto",
        accountant=None,
        random_state=None,
        **kwargs,
    ):
        super().__init__(
            module,
            criterion=criterion,
            optimizer=optimizer,
            lr=lr,
            max_epochs=max_epochs,
            batch_size=batch_size,
            train_split=train_split,
            verbose=verbose,
            **kwargs,
        )
        self.epsilon = epsilon
        self.delta = delta
        self.smoothing = smoothing
        self.smoothing_order = smoothing_order
        self.smoothing_blocks = smoothing_blocks
        self.max_grad_norm = max_grad_norm
        self.noise_multiplier = noise_multiplier
        self.accounting = accounting
        self.average = average
        self.accountant = accountant
        self.random_state = random_state

    def _prepare_y(self, y):
        # skorch wants y of shape (n, n_outputs); a 1-d y against outputs of shape (n, 1)
        # would broadcast to an (n, n) loss in a batch.
        if isinstance(y, (np.ndarray, torch.Tensor)) and y.ndim == 1:
            return y.reshape(-1, 1)
        return y
