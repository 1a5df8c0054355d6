"""Docstring fragments of the DP-LSSGD nets, filled by :class:`skprivate.utils._docstrings.Substitution`.

One text, two classes: ``NET_DOCS`` holds every fragment of the nets by its placeholder name,
the package-wide ones (``SHARED_DOCS``) included.
"""

from ..utils._docstrings import SHARED_DOCS, fragment

NET_PARAMETERS_HEAD = fragment(
    """
    optimizer : torch.optim.Optimizer class, default=torch.optim.SGD
        The update rule. It receives the smoothed noisy gradient as each parameter's
        ``.grad``; momentum, weight decay (``optimizer__weight_decay``) and adaptive
        optimizers such as Adam only post-process it, so they cost no privacy. It is stepped
        without a closure, so optimizers that need one (LBFGS) are not supported.

    lr : float or "auto", default="auto"
        Learning rate of the optimizer. The gradient it scales is an average over the
        expected batch of gradients clipped to ``max_grad_norm``. ``"auto"``: the total step
        length ``lr x steps x max_grad_norm`` is ``0.04 x n_samples x epsilon`` (the plan's
        epsilon), spread over the planned steps; public numbers only (see Notes,
        "Defaults"). The rate used is ``lr_``. ``optimizer__lr`` overrides it.

    max_epochs : int or "auto", default="auto"
        Epochs per call of ``fit`` (or ``partial_fit``). An epoch is
        ``round(n_samples / batch_size)`` steps (at least one), where ``n_samples`` is the
        noisy count of rows the call plans on (the exact number with
        ``n_samples_public=True``), so the number of steps, and the privacy cost, depend
        only on released or public values. ``"auto"``: the whole number of
        epochs closest to ten epochs kept within 2,000 to 5,000 steps (as
        :class:`~skprivate.linear_model.DPLSSGDClassifier`); the epochs run are ``n_iter_``.

    batch_size : int or "auto", default="auto"
        Expected size of a training batch. Batches are Poisson samples: every row enters
        each batch independently with probability ``batch_size / n_samples``, so their sizes
        vary and can be zero (an empty batch still takes a step, with noise only).
        ``"auto"`` is ``max(128, n_samples / 256)``, at most ``n_samples``. Also the batch size of
        ``predict`` and of validation (512 for ``"auto"``), unless
        ``iterator_valid__batch_size`` is set.

    train_split : callable or None, default=None
        None: every row trains, and there is no internal validation. A skorch splitter (such
        as ``skorch.dataset.ValidSplit(5)``) holds out private rows and records losses and
        scores computed on them without noise in ``history_``: that is outside the guarantee,
        and the fit emits a :class:`~skprivate.exceptions.PrivacyLeakWarning`. (skorch's own
        nets split off 20 % for validation by default.)
    """
)

NET_PARAMETERS_TAIL = fragment(
    """
    verbose : int, default=0
        0 prints nothing. 1 shows a progress bar over the steps on stderr (tqdm when
        installed) and prints skorch's table after every epoch: the epoch, the ``epsilon``
        spent so far and the duration (never a loss or score of the training rows, which
        would be computed on private data without noise).

    epsilon : float, default=1.0
        Target privacy budget of one call of ``fit``, > 0: the noise multiplier is the
        smallest one whose epsilon at ``delta`` is at most this. Ignored when
        ``noise_multiplier`` is given.

    %(delta)s

    smoothing : float, default=0.0
        Strength ``sigma >= 0`` of the Laplacian smoothing ``(I + (-1)^n sigma L^n)^{-1}``
        applied to the noisy gradient of every parameter tensor. ``0`` is plain DP-SGD. The
        DP-LSSGD authors use 0.1 to 1.5. It damps the high-frequency part of the noise and
        favours neighbouring coordinates of a tensor (flattened row-major) being alike, which
        suits weights on ordered inputs (pixels, time series). The default is 0: under
        the "auto" plan it was not measured to help the nets.

    smoothing_order : int, default=1
        Power ``n >= 1`` of the periodic one-dimensional Laplacian ``L``.

    smoothing_blocks : {"per_tensor", "global"}, default="per_tensor"
        ``"per_tensor"``: each parameter tensor, flattened row-major, is one vector to smooth
        (as the authors do), so the smoothing never joins two tensors; tensors of one element
        pass unchanged. ``"global"``: all trainable parameters, concatenated in the order of
        ``module_.named_parameters()``, are one vector.

    max_grad_norm : float, default=0.3
        Each example's gradient with respect to all trainable parameters together is scaled
        down to at most this Euclidean norm: the sensitivity ``C``. 0.3 clips most
        examples, so each counts the same (measured on digits: 2 points above 1.0).

    %(noise_multiplier)s

    %(accounting)s

    average : bool or "auto", default="auto"
        Weights returned by each call: ``"auto"``, the mean of the iterates of the second
        half of its steps (a tail average, which averages out much of the noise of the last
        steps); True, the mean of all its iterates; False, the last iterate. Averaging only
        post-processes the noisy steps, so it costs no privacy.

    accountant : BudgetAccountant, default=None
        A budget shared by several fits. Each call of ``fit`` or ``partial_fit`` records its
        planned spend in it before reading any value of ``X`` (refused if it does not fit),
        and that record is final: a call stopped early is charged its plan.

    random_state : None, int, or numpy.random.Generator, default=None
        Source of the noise and of the batches; within the fit it also seeds torch's
        generators for weight initialisation and dropout (restored afterwards). None (use
        this for a release): ChaCha20, a cryptographically secure generator keyed from the
        operating system, which draws the DP-SGD noise too (see
        :func:`skprivate.set_config`). An int or a
        Generator makes the fit reproducible, for tests and documentation only; anyone who
        knows the seed can remove the noise, so the fit then emits a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`.

    %(n_samples_public)s

    iterator_train : class, default=torch.utils.data.DataLoader
        Builds the training batches. It is called with a ``batch_sampler`` that draws the
        Poisson batches; ``iterator_train__*`` options that would change the sampling
        (``batch_size``, ``shuffle``, ``sampler``, ``batch_sampler``, ``drop_last``) are
        refused, others (``num_workers``, ``collate_fn``, ...) are passed on.

    iterator_valid : class, default=torch.utils.data.DataLoader
        Builds the batches of ``predict`` and of validation.

    dataset : class, default=skorch.dataset.Dataset
        skorch's wrapper of ``X`` and ``y``; see skorch.

    callbacks : list or None, default=None
        skorch callbacks, run after skorch's defaults (epoch timer, validation scores, print
        log; there is no training-loss callback). A callback that reads the training data
        (for example ``EpochScoring(on_train=True)``) publishes a value outside the
        guarantee. A callback that stops training (``EarlyStopping``) chooses when from the
        data, so the fit costs its plan (``max_epochs`` epochs) however early it stops.

    predict_nonlinearity : callable, None or "auto", default="auto"
        Applied to the module's output by ``predict_proba``; see skorch.

    warm_start : bool, default=False
        If True, ``fit`` continues from the current weights instead of re-initializing, like
        ``partial_fit``, and ``epsilon_`` composes every call since the initialization.

    device : str or torch.device, default="cpu"
        Where the module, the data batches, the per-example gradients and the noise live,
        for example ``"cuda"``.

    compile : bool, default=False
        Whether to ``torch.compile`` the module; see skorch.

    use_caching : bool or "auto", default="auto"
        skorch's caching of predictions for scoring callbacks; see skorch.

    torch_load_kwargs : dict or None, default=None
        Keyword arguments of ``torch.load`` when unpickling; see skorch.

    **kwargs : dict
        Parameters of the components, prefixed by their name as in skorch:
        ``module__hidden=32``, ``criterion__weight=...``, ``optimizer__momentum=0.9``,
        ``iterator_train__num_workers=2``, ``callbacks__print_log__...``.
    """
)

NET_ATTRIBUTES_HEAD = fragment(
    """
    module_ : torch.nn.Module
        The trained network.

    criterion_ : torch.nn.Module
        The instantiated loss.

    optimizer_ : torch.optim.Optimizer
        The instantiated optimizer.

    history_ : skorch.history.History
        One entry per epoch with ``epoch``, ``epsilon`` (the epsilon of the steps run once
        that epoch ended, increasing to ``epsilon_`` if every planned epoch runs: a progress
        measure, not the guarantee of a fit stopped early) and ``dur``; ``valid_*``
        entries only with a ``train_split``. Batch entries are empty: per-batch losses and
        sizes are not kept.
    """
)

NET_ATTRIBUTES_TAIL = fragment(
    """
    epsilon_ : float
        The epsilon of the fitted model at ``delta_``: the planned one of this fit (at most
        ``epsilon`` when the noise was calibrated, and within 1 % of it), also when a callback
        stopped training early, or, after ``partial_fit`` or a warm-started ``fit``, the
        composition of every call's plan since the module was initialized. The fixed-seed,
        ``delta`` and ``epsilon > 10`` caveats are checked on this composed value.

    %(delta_)s

    noise_multiplier_ : float
        The noise multiplier of the last call.

    sample_rate_ : float
        The Poisson sampling rate ``batch_size / n_samples`` of the last call.

    n_steps_ : int
        Number of noisy steps run since the module was initialized (fewer than planned if a
        callback stopped training early).

    n_iter_ : int
        Number of epochs run since the module was initialized.

    lr_ : float
        The learning rate of the last call (``lr``, or its ``"auto"`` value).

    %(privacy_report_)s
    """
)

NET_NOTES = fragment(
    """
    **Guarantee.** The fitted network (``module_``, the optimizer's state, and the
    ``history_`` without ``train_split``) is ``(epsilon_, delta_)``-differentially private
    with respect to adding or removing one row of ``(X, y)``: the unit protected is one row,
    which is one person only if each person contributes one row.

    **Mechanism.** Each of the ``n_steps_`` steps draws a Poisson sample of the rows (rate
    ``sample_rate_``), computes each sampled example's gradient of its own loss with respect
    to all trainable parameters (``torch.func``: ``functional_call``, ``grad`` and ``vmap``;
    each example runs through the module alone), clips that whole vector to norm
    ``max_grad_norm`` and adds ``N(0, (noise_multiplier_ * max_grad_norm)^2)`` to every
    coordinate of their sum: the sampled Gaussian mechanism [2]_. By default
    (``skprivate.set_config(secure_noise=True)``) no floating-point noise is added: each
    clipped example is rounded to a power-of-two grid (``2**-10`` of the noise and of the
    per-coordinate clip), the integer vectors are summed exactly, and exact rounded Gaussian
    integer noise is added (:func:`~skprivate.mechanisms.rounded_gaussian_mechanism`), a
    post-processing of that mechanism with the same noise multiplier, so ``epsilon_`` is
    unchanged; ``privacy_report_["noise"]`` says which noise a fit used. The steps compose in
    privacy loss distributions (``accounting="pld"``, the default) or Renyi DP, with
    dp-accounting. Dividing by the expected batch size, the smoothing and the optimizer step only transform that noisy sum, so by
    post-processing [3]_ they leave the guarantee unchanged: for every ``smoothing`` and
    every optimizer the cost is that of DP-SGD with the same noise, rate and steps. The
    privacy step is the net's own ``train_step``, not a callback.

    **The number of rows.** It differs between neighbours, so each call first releases
    ``n + Z`` with ``Z`` discrete Laplace noise (5 % of ``epsilon``) and plans on that
    count: the batch and sampling rate, the epochs and steps, the "auto" learning rate and
    the divisor of the noisy sum (the expected batch size). The training is calibrated to
    the remaining ``0.95 epsilon``; the two compose by basic composition (the plan is chosen
    from the count), so ``epsilon_`` is their sum. ``n_samples_public=True`` reads the
    number exactly when everyone knows it (the report then says "treated as public").

    **What must be public.** The architecture, the initial weights of a module instance, and every
    hyperparameter, chosen without looking at the private data (a search on the private
    rows costs privacy too: see :func:`~skprivate.accounting.total_privacy_cost`); and every
    preprocessing: scale inputs with bounds known without looking at the data (for example
    ``X / 16`` for 4-bit pixels), not with a scaler fitted on the private rows.

    **Stopping early.** A callback that ends training early (skorch's ``EarlyStopping``
    raises ``KeyboardInterrupt``) decides when from the data, for example from validation
    scores of the noisy weights, so the time it stops is itself released. The guarantee is
    therefore the planned one: ``epsilon_`` and the spend an ``accountant`` records are
    those of ``max_epochs`` epochs, whatever ran; ``privacy_report_["stopped_early"]`` says
    how many steps did.

    **partial_fit and warm_start.** Each call trains ``max_epochs`` more epochs and spends
    its own planned budget, which an ``accountant`` records before the call;
    ``epsilon_`` is the composition of all calls since the module was initialized, a valid
    bound whether or not the calls saw the same rows, and the caveats and the warning of
    each call are those of that composed value. With ``n_samples_public=True`` the calls
    compose in PLD or Renyi DP; otherwise each call planned on its own noisy count and the
    calls compose by basic composition (epsilons and deltas added).

    **Randomness.** With ``random_state=None`` the noise and the batches come from
    ChaCha20 keyed with 256 bits from the operating system, a cryptographically secure
    generator. The default noise (exact integers on a grid) is drawn from the fit's
    generator on the CPU, in batches of steps, and moved to the module's device with the
    step's release. Under ``skprivate.set_config(secure_noise=False)`` the noise is
    floating-point, as in earlier versions: drawn by NumPy from ChaCha20 and moved to the
    device, or, under ``set_config(secure_generator=False)`` and with an int
    ``random_state`` (reproducible, and therefore not private, results), by ``torch.randn``
    from a torch generator on the module's device, seeded from the fit's generator with 63
    random bits.

    **Devices.** The per-example gradients, their rounding to the grid, their integer sum
    and the smoothing (``torch.fft``) run on the module's device; the batch indices and the
    noise are drawn on the CPU (each step's sum is copied to the CPU and its release back to
    the device). The exact sampler costs about 1 to 2 microseconds per parameter and step on
    one core: a modest part of a step of a small tabular net on the CPU, but for a large net
    on a GPU it can be most of the step (a net of 530,000 weights takes 16 ms a step on an
    H200 with the noise drawn on the device). ``set_config(secure_noise=False,
    secure_generator=False)`` draws with ``torch.randn`` on the device again, with the
    guarantee its report then states.

    **Threads.** During a fit every BLAS and OpenMP pool of the process (scikit-learn's,
    NumPy's, SciPy's) runs one thread, and so does torch when a step's per-example
    gradients are small (expected batch x trainable weights under 2**24, as for most
    tabular networks); above that torch keeps its own setting. Their threads busy-wait
    after each short parallel region, which on cores shared with other work costs more
    than it saves (after a scikit-learn fit, beside two busy processes on two cores, an
    epoch of the quickstart's network took 167 s instead of 19 s). Every setting is
    restored when the fit ends, and a lower bound that you set (``OMP_NUM_THREADS``,
    ``torch.set_num_threads``, ``threadpoolctl``) is kept.
    """
)

REFERENCE_TANH = fragment(
    """
    .. [4] N. Papernot, A. Thakurta, S. Song, S. Chien and U. Erlingsson, "Tempered sigmoid
       activations for deep learning with differential privacy", AAAI 2021.
    """
)

CLASSIFIER_BODY = fragment(
    """
    A :class:`skorch.NeuralNetClassifier` whose training step is DP-SGD (Poisson-sampled
    batches, per-example clipping of the whole gradient, Gaussian noise) with the noisy
    gradient Laplacian-smoothed before the optimizer step, as in Wang et al. [1]_.
    ``smoothing=0`` is plain DP-SGD. The privacy budget ``(epsilon, delta)`` is met by
    calibrating the noise; read the Notes for what it protects.

    The module must return **logits**: the default criterion is
    :class:`torch.nn.CrossEntropyLoss` and ``predict_proba`` applies the softmax. skorch's
    own ``NeuralNetClassifier`` defaults to ``NLLLoss`` on probabilities, so a module
    written for it ends in a softmax; remove it here (or pass ``criterion=torch.nn.NLLLoss``,
    which skorch then applies to the log of the output).

    Parameters
    ----------
    module : torch.nn.Module class or instance
        The network, returning one logit per class. A class is instantiated (with the
        ``module__*`` parameters) at each fresh fit; an instance is copied, so that every
        fresh fit starts from the weights it was given, which must not depend on the private
        data. Layers that mix the examples of a batch are refused: batch normalisation (use
        :class:`torch.nn.GroupNorm` or :class:`torch.nn.LayerNorm`) and instance
        normalisation with running statistics. Dropout works: every example draws its own
        mask (``vmap(randomness="different")``). Lazy layers take their input size from the
        shape of ``X``.

    criterion : torch loss class or instance, default=torch.nn.CrossEntropyLoss
        The loss. In training it is evaluated on each example alone, with
        ``reduction="none"`` (so that per-class weights apply) and averaged over that
        example's outputs (summed if the criterion's reduction is ``"sum"``).

    %(net_parameters_head)s

    %(net_classes)s

    %(net_parameters_tail)s

    Attributes
    ----------
    %(net_attributes_head)s

    %(net_classes_)s

    %(net_attributes_tail)s

    See Also
    --------
    DPLSSGDNeuralNetRegressor : The regression counterpart.
    skprivate.linear_model.DPLSSGDClassifier : DP-LSSGD for linear models (numpy).
    skprivate.laplacian_smooth : The smoothing operator.
    skorch.NeuralNetClassifier : The non-private net.

    Notes
    -----
    %(net_notes)s

    **Labels.** As in skorch, ``y`` holds the class indices ``0, ..., K - 1`` of the
    module's ``K`` outputs (int64), and ``predict`` returns those indices. With
    ``classes=None`` the set of labels, ``classes_``, is read from ``y`` without noise (a
    label only one row holds reveals that row), and the report says so in a caveat; pass
    ``classes`` (known without looking at the data) to avoid it.

    **Defaults.** The "auto" plan is a function of public numbers only (the noisy count
    of rows ``n_samples``, ``epsilon``, ``delta``, ``max_grad_norm``): batch ``max(128, n_samples / 256)``, about
    ten epochs kept within 2,000 to 5,000 steps, a total step length ``lr x steps x
    max_grad_norm = 0.04 x n_samples x epsilon``, PLD accounting, no smoothing, and the
    tail average of the iterates. It was chosen on sklearn's digits (70/30 split,
    StandardScaler, a 64-unit ReLU MLP, SGD): total step factors 0.01 / 0.03 / 0.05 / 0.1 /
    0.3 gave 0.77 / 0.89 / 0.90 / 0.85 / 0.66 test accuracy at ``epsilon=1``. See the
    DP-LSSGD user guide for the measurements against the former defaults and Opacus.
    Bounded activations (tanh, the example below) often do better than ReLU under
    DP-SGD [4]_.

    %(dpsgd_references_section)s
    %(reference_tanh)s

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.model_selection import train_test_split
    >>> from skprivate.neural_network import DPLSSGDNeuralNetClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> X = (X / 16.0).astype(np.float32)  # 4-bit pixels: a public bound
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    >>> class MLP(torch.nn.Module):
    ...     def __init__(self, hidden=64):
    ...         super().__init__()
    ...         self.layers = torch.nn.Sequential(
    ...             torch.nn.Linear(64, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 10)
    ...         )
    ...
    ...     def forward(self, X):
    ...         return self.layers(X)  # logits
    >>> clf = DPLSSGDNeuralNetClassifier(  # the ten digits: a public label set
    ...     MLP, epsilon=2.0, classes=list(range(10)), random_state=0
    ... )
    >>> clf = clf.fit(X_train, y_train)
    >>> 0.99 * 2.0 <= clf.epsilon_ <= 2.0
    True
    >>> clf.score(X_test, y_test) > 0.85
    True
    >>> len(clf.history) == clf.n_iter_, clf.history[-1, "epsilon"] <= clf.epsilon_
    (True, True)
    """
)

REGRESSOR_BODY = fragment(
    """
    A :class:`skorch.NeuralNetRegressor` whose training step is DP-SGD (Poisson-sampled
    batches, per-example clipping of the whole gradient, Gaussian noise) with the noisy
    gradient Laplacian-smoothed before the optimizer step, as in Wang et al. [1]_.
    ``smoothing=0`` is plain DP-SGD. The privacy budget ``(epsilon, delta)`` is met by
    calibrating the noise; read the Notes for what it protects.

    Parameters
    ----------
    module : torch.nn.Module class or instance
        The network, returning ``n_outputs`` values per example. A class is instantiated
        (with the ``module__*`` parameters) at each fresh fit; an instance is copied, so
        that every fresh fit starts from the weights it was given, which must not depend on
        the private data. Layers that mix the examples of a batch are refused: batch
        normalisation (use :class:`torch.nn.GroupNorm` or :class:`torch.nn.LayerNorm`) and
        instance normalisation with running statistics. Dropout works: every example draws
        its own mask (``vmap(randomness="different")``).

    criterion : torch loss class or instance, default=torch.nn.MSELoss
        The loss. In training it is evaluated on each example alone, with
        ``reduction="none"``, and averaged over that example's outputs (summed if the
        criterion's reduction is ``"sum"``).

    %(net_parameters_head)s

    %(net_parameters_tail)s

    Attributes
    ----------
    %(net_attributes_head)s

    %(net_attributes_tail)s

    See Also
    --------
    DPLSSGDNeuralNetClassifier : The classification counterpart.
    skprivate.linear_model.DPLSSGDRegressor : DP-LSSGD for linear models (numpy).
    skorch.NeuralNetRegressor : The non-private net.

    Notes
    -----
    %(net_notes)s

    **Targets.** As in skorch, ``y`` has shape ``(n_samples, n_outputs)``; a 1-d ``y`` is
    read as one column, and ``predict`` returns shape ``(n_samples, n_outputs)``. Scale the
    targets with public bounds to about unit range: per-example clipping bounds each row's
    influence whatever its values, but targets far from zero make almost every gradient
    clipped and learning slow.

    **Defaults.** The classifier's "auto" plan (see its Notes); it was measured on
    classification only, so check it on public data of the same shape.

    %(dpsgd_references_section)s

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from skprivate.neural_network import DPLSSGDNeuralNetRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(2000, 3)).astype(np.float32)  # public bounds [-1, 1]
    >>> y = np.sin(2 * X[:, :1]) + X[:, 1:2] * X[:, 2:]
    >>> module = torch.nn.Sequential(
    ...     torch.nn.Linear(3, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1)
    ... )
    >>> reg = DPLSSGDNeuralNetRegressor(module, epsilon=1.0, max_epochs=10, random_state=0)
    >>> reg = reg.fit(X, y)
    >>> reg.predict(X).shape
    (2000, 1)
    >>> reg.score(X, y) > 0.5
    True
    """
)

CLASSES_PARAMETER = fragment(
    """
    classes : array-like or None, default=None
        The class labels, one per output of the module, reported as ``classes_``; ``y``
        then holds indices into them, and an index outside is refused with an error naming
        ``classes``. None (skorch's default): read from ``y`` without noise, with a caveat
        in ``privacy_report_`` and in the fit's :class:`~skprivate.exceptions.PrivacyLeakWarning`.
    """
)

CLASSES_ATTRIBUTE = fragment(
    """
    classes_ : ndarray of shape (n_classes,)
        The class labels (the indices of the module's outputs), from ``classes`` or ``y``.
    """
)

#: Every fragment of the nets' docstrings by its placeholder name.
NET_DOCS = {
    **SHARED_DOCS,
    "net_parameters_head": NET_PARAMETERS_HEAD,
    "net_classes": CLASSES_PARAMETER,
    "net_parameters_tail": NET_PARAMETERS_TAIL,
    "net_attributes_head": NET_ATTRIBUTES_HEAD,
    "net_classes_": CLASSES_ATTRIBUTE,
    "net_attributes_tail": NET_ATTRIBUTES_TAIL,
    "net_notes": NET_NOTES,
    "reference_tanh": REFERENCE_TANH,
    "net_classifier_body": CLASSIFIER_BODY,
    "net_regressor_body": REGRESSOR_BODY,
}
