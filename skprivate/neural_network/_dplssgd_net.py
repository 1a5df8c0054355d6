"""DP-LSSGD for PyTorch networks: skorch nets trained with DP-SGD and Laplacian smoothing.

The nets plan a fit as the linear estimators do (:mod:`skprivate._dpsgd`: the plan, the runs
of several calls and the end of a fit); what is net-specific is split by concern:

- here, :class:`_DPLSSGDNetMixin`: the parameters, the ``"auto"`` epochs and learning rate,
  ``fit``/``partial_fit`` and the epoch loop over Poisson-sampled batches, which records the
  epsilon spent so far after each epoch;
- :mod:`._private_step`: the noisy, smoothed training step, where the privacy argument is
  stated (the sampled Gaussian mechanism, then post-processing);
- :mod:`._inputs`: the checks of the data and the module before training.
"""

from numbers import Integral, Real

import numpy as np
import torch
from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)
from skorch import NeuralNetClassifier, NeuralNetRegressor

from .. import _caveats
from .._dpsgd._plan import (
    DPSGDPlanMixin,
    auto_batch_size,
    auto_steps,
    epoch_steps,
    spread_total_step,
)
from .._dpsgd._distributed import refuse_dask
from .._dpsgd._release import describe_release, gaussian_release
from .._dpsgd._runs import DPSGDFitMixin
from .._forecast import warn_rows_epsilon
from ..base import DPEstimatorMixin
from ..utils._docstrings import Substitution
from ..utils._progress import progress_counter
from ..utils._threads import bounded_threads
from ._docstrings import NET_DOCS
from ._inputs import _count_rows, _is_plain_array, _NetInputsMixin
from ._private_step import _PrivateStepMixin, _Run, _seeded_torch_rng
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
# The classifier's forecast (skprivate._forecast): rows (the count planned on) x epsilon per
# trainable weight. Measured with benchmarks/net_forecast.py (one hidden layer of 32 tanh
# units, defaults, 2 seeds; accuracy of the network against DPLSSGDClassifier's defaults
# on the same features): at 0.36 to 1.50 per weight (German-credit-like, breast cancer,
# digits, 2,000 Adult rows at epsilon 1; German-credit-like and breast cancer at 4) the
# network trailed by 2.5 to 32 points, and predicted the majority class on breast cancer
# at both epsilons (0.626 / 0.658 against 0.947 / 0.956) and on German-credit-like at 1;
# at 2.09 to 9.3 (digits and 2,000 Adult rows at 4, 8,000 Adult rows at 1 and 4) it was
# within 1.3 points. A policy constant chosen on those tables.
_FORECAST_ROWS_EPSILON_PER_WEIGHT = 2.0
# Batch size of predict and validation for batch_size="auto" (no privacy role).
_PREDICT_BATCH_SIZE = 512

# Torch's intra-op threads in the training loop. A step of a small net is a few short
# parallel regions; torch's OpenMP threads busy-wait after each one, and on cores shared with
# other processes (or with scikit-learn's and NumPy's pools, each one thread per core) a
# region ends only when every thread has been scheduled. benchmarks/threads.py (the
# quickstart's net, 3,426 weights, batch 128, one epoch of 254 steps, after a
# LogisticRegression fit, beside two busy processes on two cores that other work shared too):
# 167 s (CPU 29 s) with the pools left as they were, 19 s under OMP_NUM_THREADS=1, 20 s with
# the bounds below (medians of 3; at a quieter time 63 s, 7.4 s and 5.3 s). Per step on that
# shared machine, one thread beat two at every size tried, 4.6e5 to 1.2e8 numbers per step
# (1.6 against 43 ms, 106 against 205 ms at 2.9e7). Below this many numbers per step
# (expected batch x trainable weights) the loop runs on one torch thread; above it, where a
# region's work (tens of ms on one thread) outweighs waking the threads on a machine with
# free cores, torch keeps its own setting (torch.set_num_threads, OMP_NUM_THREADS). The
# bound was not calibrated on an idle machine (none was available); it errs towards torch's
# own setting only for nets far larger than tabular ones.
_PARALLEL_STEP_SIZE = 2**24

# DataLoader arguments that would replace the Poisson sampling.
_SAMPLING_ARGUMENTS = ("batch_size", "shuffle", "sampler", "batch_sampler", "drop_last")


def _describe_noise(run):
    """The ``privacy_report_["noise"]`` entry of a call that trains with ``run``."""
    if run.release is not None:
        return describe_release(run.release)
    source = ("torch.randn, from a torch generator seeded from the fit's generator"
              if run.generator is not None else
              "NumPy standard_normal from the fit's generator, moved to the device")
    return (f"floating-point Gaussian ({source}), set_config(secure_noise=False): its low "
            "bits can reveal the exact sums (Mironov 2012)")


def _bounded_pools():
    """One thread in every BLAS and OpenMP pool for the whole fit, torch's count kept.

    The fit's own NumPy and SciPy work (the noise calibration, the batch sampling, the
    accounting) is too small to share between threads. Torch's OpenMP is one of the pools
    that threadpoolctl bounds, so its count is set back to what it was, until the training
    loop decides it (``_DPLSSGDNetMixin._bounded_threads``).
    """
    count = torch.get_num_threads()
    return bounded_threads(1, runtimes=[(torch.get_num_threads, torch.set_num_threads, count)])


class _DPLSSGDNetMixin(_NetInputsMixin, _PrivateStepMixin, DPSGDFitMixin, DPEstimatorMixin):
    """The DP-LSSGD training of a skorch net, shared by the classifier and the regressor.

    The checks of its inputs come from :class:`._inputs._NetInputsMixin`, the private step
    from :class:`._private_step._PrivateStepMixin`, the plan and the end of the fit from the
    DP-SGD core (:class:`skprivate._dpsgd._runs.DPSGDFitMixin`).
    """

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

    def _epochs(self, n_samples, batch_size):
        """``max_epochs`` with ``"auto"`` resolved: about ``auto_steps`` steps in whole epochs,
        so that the plan's steps are exactly the ``epochs x steps per epoch`` the fit runs."""
        if self.max_epochs != "auto":
            return self.max_epochs
        batch = auto_batch_size(n_samples) if batch_size == "auto" else batch_size
        return max(1, round(auto_steps(n_samples, batch) / epoch_steps(n_samples, batch)))

    def _learning_rate(self, plan, n_samples):
        """``lr`` with ``"auto"`` resolved: total step ``_AUTO_TOTAL_STEP n epsilon`` on the
        number of rows planned on (public, or the noisy count)."""
        if self.lr != "auto":
            return float(self.lr)
        return spread_total_step(
            _AUTO_TOTAL_STEP, n_samples, plan.epsilon, plan.n_steps, float(self.max_grad_norm)
        )

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
        self._dp_calls_ = []  # the spend of each of those calls
        self._dp_steps_ = 0
        self._dp_epochs_ = 0
        return super().initialize()

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
        with _bounded_pools():
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
        with _bounded_pools():
            return self._private_fit(X, y, not self.initialized_, fit_params)

    def _private_fit(self, X, y, fresh, fit_params):
        fit_params = dict(fit_params)
        fit_params.pop("_routing_method", None)
        self._validate_dp_params()
        refuse_dask(type(self).__name__, X, y)  # the nets train in memory only
        self._begin_private_fit(X)  # before any value of X is read
        n_samples = _count_rows(X)
        rng = self._noise_rng()
        # the first draw, before any value of X is read: everything below plans on it
        count = self._row_count(n_samples, rng)
        X, y = self._check_fit_inputs(X, y, fresh)
        plan, call_spend = self._count_plan(count)  # cached calibration
        self._reserve_rest(count, plan)
        learning_rate = self._learning_rate(plan, count.n_plan)
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
            release = gaussian_release()  # the configuration, read once per call
            run = _Run(plan, n_samples, rng, generator, smoother, release)
            self._release_noise = _describe_noise(run)
            run.count, run.call_spend = count, call_spend
            run.count_epsilon = count.epsilon
            run.epochs_planned = plan.n_steps // plan.steps_per_epoch
            if run.release is not None:  # a batched noise stream: no more than the steps
                run.release.expect(run.epochs_planned * plan.steps_per_epoch)
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

    # The rows x epsilon per weight below which a fit warns (None: no forecast).
    _FORECAST_PER_WEIGHT = None

    def _forecast(self, n_plan):
        """Warn when rows x epsilon per trainable weight is below ``_FORECAST_PER_WEIGHT``
        (:mod:`skprivate._forecast`).

        Reads the count planned on (released, or declared public), ``epsilon`` and the
        module's number of trainable weights (its architecture and the number of
        features: public): post-processing, no privacy cost. No forecast without an
        ``epsilon`` or with an explicit ``noise_multiplier``, as for the linear models.
        """
        threshold = self._FORECAST_PER_WEIGHT
        if threshold is None or self.epsilon is None or self.noise_multiplier is not None:
            return
        epsilon = float(self.epsilon)
        weights = sum(p.numel() for p in self.module_.parameters() if p.requires_grad)
        warn_rows_epsilon(
            self, n_plan, epsilon, weights, threshold,
            finding=(f"{{n_plan:,}} rows (the count planned on) x epsilon={epsilon:g} is "
                     f"{{ratio:.3g}} per trainable weight for {weights:,} weights, below "
                     f"{threshold:g}"),
            outcome="a network 2.5 to 32 points below DPLSSGDClassifier's defaults, or the "
            "majority class",
            alternative="DPLSSGDClassifier (a linear model: one weight per feature and "
            "class), or a smaller network",
        )

    def _bounded_threads(self, plan, n_plan):
        """The native threads of the training loop (restored after it, see Notes, "Threads").

        The other pools already run one thread (``_bounded_pools``, for the whole fit).
        Torch's intra-op pool gets one thread too when a step's per-example gradients are
        smaller than ``_PARALLEL_STEP_SIZE`` numbers, and keeps its setting otherwise. Called
        once lazy parameters are materialized, so that every weight counts.
        """
        n_weights = sum(p.numel() for p in self.module_.parameters() if p.requires_grad)
        step_size = plan.sample_rate * n_plan * n_weights
        torch_limit = torch.get_num_threads() if step_size >= _PARALLEL_STEP_SIZE else 1
        return bounded_threads(
            1, runtimes=[(torch.get_num_threads, torch.set_num_threads, torch_limit)]
        )

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
        self._forecast(run.count.n_plan)  # every weight counts, none trained yet
        # The expected batch size: the rate times the number of rows planned on (the noisy
        # count, or a public number), never the realised one; dividing the noisy sum by it
        # is post-processing. A train_split leaves a fraction of the rows for validation
        # (unprotected, a caveat of the fit), and the divisor follows that fraction. (The
        # product n_plan x len / n is exactly len when n_plan = n: the public fit's divisor.)
        n_train = run.count.n_plan * len(dataset_train) / run.n_samples
        run.divisor = run.plan.sample_rate * n_train
        on_epoch = {"dataset_train": dataset_train, "dataset_valid": dataset_valid}
        iterator_train = self.get_iterator(dataset_train, training=True)
        iterator_valid = None
        if dataset_valid is not None:
            iterator_valid = self.get_iterator(dataset_valid, training=False)
        # verbose=1: a bar over the steps (counts and time only) beside skorch's epoch table.
        n_steps = run.epochs_planned * run.plan.steps_per_epoch
        with self._bounded_threads(run.plan, run.count.n_plan), progress_counter(
            total=n_steps, desc=f"{type(self).__name__} steps", verbose=self.verbose
        ) as bar:
            for _ in range(run.epochs_planned):
                self.notify("on_epoch_begin", **on_epoch)
                for batch in iterator_train:
                    self.notify("on_batch_begin", batch=batch, training=True)
                    step = self.train_step(batch, **fit_params)
                    self.notify("on_batch_end", batch=batch, training=True, **step)
                    bar.update()
                run.epochs += 1
                # progress for the history (the guarantee is the plan's, see _finish_run)
                spent = run.epsilon_so_far(self._dp_runs_, float(self.delta), self.accounting)
                self.history.record("epsilon", spent)
                self.run_single_epoch(
                    iterator_valid,
                    training=False,
                    prefix="valid",
                    step_fn=self.validation_step,
                    **fit_params,
                )
                self.notify("on_epoch_end", **on_epoch)
        return self

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
                _PREDICT_BATCH_SIZE if self.batch_size == "auto" else self.batch_size
            )
        return self.iterator_valid(dataset, **kwargs)

    # --- the spend ----------------------------------------------------------------------------

    def _finish_run(self, run, n_samples):
        plan = run.plan
        # Every call is accounted at its plan, not at the steps that ran (see
        # skprivate._dpsgd._runs): the weights cost the composition of every call's plan.
        self._dp_runs_.append((plan.noise_multiplier, plan.sample_rate, plan.n_steps))
        self._dp_calls_.append(run.call_spend)
        self._dp_steps_ += run.steps
        self._dp_epochs_ += run.epochs
        caveats = []
        if self.train_split:
            caveats.append(_caveats.validation_rows_unprotected(self.train_split))
        if self._labels_read_from_data():
            caveats.append(_caveats.labels_from_data(self.classes_))
        self._finish_dpsgd_fit(
            plan,
            n_samples,
            count=run.count,
            call_spend=run.call_spend,
            calls=self._dp_calls_,
            gradients="all trainable parameters together",
            n_steps=self._dp_steps_,
            n_iter=self._dp_epochs_,
            steps_run=run.steps,
            runs=self._dp_runs_,
            caveats=caveats,
            epochs=self._dp_epochs_,
            learning_rate=self.lr_,
            average=(
                "none" if run.average_from is None
                else f"mean of the iterates after step {run.average_from} of {plan.n_steps}"
            ),
        )

    def _labels_read_from_data(self):
        return False


@Substitution(**NET_DOCS)
class DPLSSGDNeuralNetClassifier(_DPLSSGDNetMixin, NeuralNetClassifier):
    """Differentially private neural-network classifier trained by DP-LSSGD (skorch).

    %(net_classifier_body)s
    """

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

    _FORECAST_PER_WEIGHT = _FORECAST_ROWS_EPSILON_PER_WEIGHT

    # The classifier's and the regressor's __init__ repeat each other on purpose:
    # scikit-learn and skorch read an estimator's parameters from its own __init__
    # signature (the classifier adds ``classes``, the criteria differ).
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
        n_samples_public=False,
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
        self.n_samples_public = n_samples_public


@Substitution(**NET_DOCS)
class DPLSSGDNeuralNetRegressor(_DPLSSGDNetMixin, NeuralNetRegressor):
    """Differentially private neural-network regressor trained by DP-LSSGD (skorch).

    %(net_regressor_body)s
    """

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
        n_samples_public=False,
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
        self.n_samples_public = n_samples_public

    def _prepare_y(self, y):
        # skorch wants y of shape (n, n_outputs); a 1-d y against outputs of shape (n, 1)
        # would broadcast to an (n, n) loss in a batch.
        if isinstance(y, (np.ndarray, torch.Tensor)) and y.ndim == 1:
            return y.reshape(-1, 1)
        return y
