"""The runs of a DP-SGD fit: what each call spends, and the end of every fit.

A DP-SGD model is the output of one or more *runs*, one per call since its weights were
initialised (``fit``; each ``partial_fit`` or warm-started ``fit`` of a net adds one). A run
is ``T`` compositions of the Poisson-subsampled Gaussian mechanism at its plan's rate ``q``
and noise multiplier ``z`` (Mironov, Talwar and Zhang 2019). The weights depend on every
run, so their guarantee is the composition of all of them, in RDP or PLD
(:func:`._accounting.composed_epsilon`; Mironov 2017, Prop. 1, for RDP).

Each run is charged its *plan*, never the steps that ran: a callback that stops training
early decides when from the private data, so the stopping time is released too, and only
the plan, fixed before any value was read, bounds the run (the reservation in
:meth:`skprivate.base.DPEstimatorMixin._reserve_plan`).

- :class:`Run`: what one call tracks while it trains, and the epsilon of the steps run so
  far (a progress figure for a net's history, not the guarantee).
- :class:`DPSGDFitMixin`: the end of a DP-SGD fit, shared by the linear estimators and the
  nets: the fitted attributes, the privacy report, and the spend handed to
  :meth:`~skprivate.base.DPEstimatorMixin._finish_private_fit` (this call's plan, or the
  composition of every run), which nothing changes afterwards.
"""

from .. import _caveats
from ._accounting import _step_pld, composed_epsilon, pld_grid, runs_event
from ._plan import DPSGDPlanMixin

__all__ = []


class Run:
    """What one call of ``fit``/``partial_fit`` tracks while it trains (public values only).

    ``plan`` is the call's :class:`._plan.DPSGDPlan`; ``rng`` the generator its batches come
    from. ``steps`` and ``epochs`` count what ran; ``average_from`` is the step after which
    the iterates are averaged (None: no averaging).
    """

    def __init__(self, plan, n_samples, rng):
        self.plan = plan
        self.n_samples = n_samples
        self.rng = rng
        self.steps = 0
        self.epochs = 0
        self.epochs_planned = 0
        self.average_from = None
        self.pld = None  # the PLD of the steps so far (epsilon_so_far, accounting="pld")
        self.pld_steps = 0
        self.pld_width = None  # the PLD grid of the plan (0.0: the RDP bound is reported)
        self.pld_blocks = {}
        self.count_epsilon = 0.0  # this call's noisy count, added (basic composition)

    def epsilon_so_far(self, earlier, delta, accounting):
        """Epsilon of the ``earlier`` runs (``(z, q, steps)`` each) and this run's steps so far.

        Progress, not the guarantee (that is the plan's, see :class:`DPSGDFitMixin`). With no
        earlier run, once every planned step ran it is the plan's own epsilon, so that the
        last value reported equals ``epsilon_``.
        """
        return self.count_epsilon + self._steps_epsilon(earlier, delta, accounting)

    def _steps_epsilon(self, earlier, delta, accounting):
        plan = self.plan
        if not earlier and self.steps == plan.n_steps:
            return plan.epsilon
        z, q = float(plan.noise_multiplier), float(plan.sample_rate)
        if not earlier and accounting == "pld" and self.pld_width is None:
            # the grid of the whole plan (None: its RDP bound is reported, as dpsgd_epsilon does)
            self.pld_width = pld_grid([(z, q, plan.n_steps)], delta) or 0.0
        if not earlier and accounting == "pld" and self.pld_width:
            # The PLD of the steps so far, composed on with each epoch's: one composition
            # an epoch instead of a self-composition of every step so far (7x faster over
            # the hundreds of epochs of an "auto" plan on small data).
            new = self.steps - self.pld_steps
            if new > 0:
                step = _step_pld(z, q, self.pld_width)
                block = self.pld_blocks.get(new)
                if block is None:
                    block = self.pld_blocks[new] = step.self_compose(new)
                self.pld = block if self.pld is None else self.pld.compose(block)
                self.pld_steps = self.steps
            return 0.0 if self.pld is None else float(self.pld.get_epsilon_for_delta(delta))
        runs = [*earlier, (plan.noise_multiplier, plan.sample_rate, self.steps)]
        return composed_epsilon(runs, delta, accounting)


class DPSGDFitMixin(DPSGDPlanMixin):
    """The plan (:class:`._plan.DPSGDPlanMixin`) and the end of a DP-SGD estimator's fit.

    :meth:`_finish_dpsgd_fit` is the last call of every DP-SGD fit, linear or net.
    """

    def _dpsgd_report(self, plan, *, gradients, steps, **extra):
        """Privacy-report entries of a DP-LSSGD fit; ``gradients`` names what is clipped."""
        report = {
            "mechanism": (
                "DP-SGD: Poisson-subsampled Gaussian mechanism on per-example gradients of "
                f"{gradients}, clipped to max_grad_norm; Laplacian smoothing of the noisy "
                "gradient (post-processing)"
            ),
            "accountant": f"{self.accounting.upper()} (dp-accounting), composed over steps",
            # how the Gaussian noise was released (skprivate._dpsgd._release), where recorded
            **({"noise": self._release_noise} if "_release_noise" in self.__dict__ else {}),
            "noise_multiplier": plan.noise_multiplier,
            "sample_rate": plan.sample_rate,
            "expected_batch_size": plan.batch_size,
            "steps": steps,
            **extra,
            # the resolved clip of an "auto" plan, when the estimator keeps one
            "max_grad_norm": float(getattr(self, "max_grad_norm_", self.max_grad_norm)),
            "smoothing": (
                f"sigma={float(self.smoothing):g}, order={self.smoothing_order}, "
                f"blocks={self.smoothing_blocks}"
            ),
            "reference": (
                "Wang, Gu, Boedihardjo, Barekat and Osher, DP-LSSGD (2019); Mironov, Talwar "
                "and Zhang, Renyi DP of the sampled Gaussian mechanism (2019)"
            ),
        }
        if self.noise_multiplier is not None:
            report["note"] = (
                "noise_multiplier was given, so the epsilon parameter was not used; epsilon "
                "is what this noise achieves"
            )
        return report

    def _finish_dpsgd_fit(
        self, plan, n_samples, *, count, call_spend, gradients, n_steps, n_iter,
        steps_run=None, runs=(), calls=(), caveats=(), **extra,
    ):
        """Set the fitted attributes, assemble the report and hand the spend to
        ``_finish_private_fit``.

        ``plan`` is this call's plan, made on ``count`` (:meth:`_row_count`) with spend
        ``call_spend`` (:meth:`_count_plan`); ``n_steps`` and ``n_iter`` the steps and epochs
        the model has been trained for (``n_steps_``, ``n_iter_``); ``steps_run`` the steps
        this call ran, when it may have stopped before its plan; ``runs`` the ``(z, q,
        planned steps)`` and ``calls`` the spends of every call since the weights were
        initialised, this one included (empty for an estimator trained by one call);
        ``extra`` further report entries. Any fitted attribute the report reads
        (``max_grad_norm_``) must be set before.
        """
        self.noise_multiplier_ = plan.noise_multiplier
        self.sample_rate_ = plan.sample_rate
        self.n_steps_ = n_steps
        self.n_iter_ = n_iter
        report = self._dpsgd_report(plan, gradients=gradients, steps=n_steps, **extra)
        report.update(self._count_report(count))
        if not count.public:
            bound = call_spend.epsilon - count.epsilon
            report["composition"] = (
                f"basic: the noisy count (epsilon {count.epsilon:.4g}) plus the training "
                f"(epsilon {bound:.4g}, the bound of every plan a count could choose; this "
                f"plan's own: {plan.epsilon:.4g}), whose plan was chosen from the count; no "
                "dp-accounting event is kept, so accountants add this fit's epsilon"
            )
            if self.noise_multiplier is not None:
                caveats = [*caveats, _caveats.epsilon_from_count(f"noise_multiplier={self.noise_multiplier!r}")]
        if steps_run is not None and steps_run < plan.n_steps:
            report["stopped_early"] = (
                f"{steps_run} of {plan.n_steps} planned steps ran; epsilon is the planned "
                "one, because when training stopped was read from the data"
            )
        if count.public:
            # The reservation made before any value was read is this very plan: keep the
            # one object of record (a private count reserved a bound, see _reservation).
            call_spend = getattr(self, "_reserved_spend", None) or call_spend
        spend = call_spend
        if len(runs) > 1:
            # The weights depend on every call since initialization: the guarantee, the
            # warning and the caveats are those of their composition; the accountant
            # records each call's own spend.
            report["calls"] = len(runs)
            report["epsilon_this_call"] = call_spend.epsilon
            if all(call.event is not None for call in calls):
                # every plan read a public number of rows: RDP or PLD over all runs
                delta = float(self.delta)
                total = composed_epsilon(runs, delta, self.accounting)
                spend = self._privacy_spend(total, delta, event=runs_event(runs))
            else:
                # A call planned on its own noisy count: its runs' parameters were chosen
                # from it, so the calls compose by basic (adaptive) composition, epsilons
                # and deltas added (Dwork and Roth 2014, Theorem 3.16), as in
                # skprivate._row_count.
                spend = self._privacy_spend(
                    sum(call.epsilon for call in calls), sum(call.delta for call in calls)
                )
        # The spend of record: epsilon_, delta_ and the report are set from it there, and
        # nothing may change them afterwards.
        # the delta >= 1/n check prints n: the number planned on, never the exact private one
        self._finish_private_fit(spend, report, count.n_plan, caveats, recorded=call_spend)
