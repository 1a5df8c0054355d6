"""Conventions shared by skprivate's differentially private estimators.

A DP estimator composes :class:`DPEstimatorMixin` with scikit-learn's public ``BaseEstimator``
and task mixins. Its ``fit`` follows one order, the order in which privacy can go wrong least:

1. ``plan = self._begin_private_fit(X)``: validate the privacy parameters, compute the planned
   spend from the *shape* of ``X`` alone, and record it in the accountant (refused if it does
   not fit); nothing has read a value yet. That record is final: a fit that stops early,
   fails a private test or fails on a value is charged its plan, because when it ended was
   read from the data.
2. ``rng = self._noise_rng()``: the generator all noise comes from.
3. Validate the data, clip to public bounds, train with noise.
4. ``self._finish_private_fit(spend, report, n_samples, caveats)``: set ``epsilon_``,
   ``delta_`` and ``privacy_report_`` from ``spend`` (the plan, or the composition of every
   call for ``partial_fit``/``warm_start``), and warn once if the guarantee is weakened;
   the caveats come from :mod:`skprivate._caveats` and are checked on ``spend``.
"""

import html
import warnings
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from . import _caveats
from ._repeated_fits import note_fit
from .accounting._budget import BudgetAccountant, PrivacySpend
from .accounting._public import public_inputs
from .exceptions import PrivacyLeakWarning
from .utils._stacklevel import _user_stacklevel

__all__ = ["DPEstimatorMixin", "PrivacyReport"]


class PrivacyReport(dict):
    """What a fitted estimator released and what it cost: a dict with a readable display.

    Keys always present: ``"mechanism"``, ``"neighbouring"``, ``"unit"``, ``"scope"``,
    ``"epsilon"``, ``"delta"``, ``"accountant"``, ``"reference"``; estimators add their noise
    parameters (noise multiplier, sample rate, steps, queries, ...), ``"generator"`` (which
    random-number generator drew the noise, the batches and every other random choice:
    ChaCha20 keyed from the operating system by default, see :func:`skprivate.set_config`),
    ``"public"`` (what the guarantee takes as known without the rows: a list of
    :class:`~skprivate.accounting.PublicInput`) and ``"caveats"``. It
    prints as an aligned text table, and Jupyter renders it as an HTML table.

    ``"scope"`` says what the report covers: the one fit that produced it. A step fitted on
    the same rows before the estimator (a scaler in a Pipeline) is not covered.

    ``"caveats"`` is a list of :class:`skprivate._caveats.Caveat`: each prints as its
    sentence and carries a stable ``code``; :attr:`caveat_codes` lists the codes, for
    programs (never parse the sentences or the warning text).

    Examples
    --------
    >>> from skprivate.base import PrivacyReport
    >>> print(PrivacyReport(mechanism="Gaussian", epsilon=1.0, delta=1e-5))
    mechanism : Gaussian
    epsilon   : 1
    delta     : 1e-05
    """

    @property
    def caveat_codes(self):
        """The stable code of each caveat, in order (see :mod:`skprivate._caveats`)."""
        return _caveats.caveat_codes(self.get("caveats", ()))

    @staticmethod
    def _format(value):
        if isinstance(value, float):
            return f"{value:.6g}"
        if isinstance(value, (list, tuple)):
            return "; ".join(str(v) for v in value) if value else "none"
        return str(value)

    def __str__(self):
        width = max((len(str(k)) for k in self), default=0)
        return "\n".join(f"{str(k):<{width}} : {self._format(v)}" for k, v in self.items())

    def __repr__(self):
        return f"PrivacyReport(\n{self}\n)"

    def _repr_html_(self):
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
            f"<td style='text-align:left'>{html.escape(self._format(v))}</td></tr>"
            for k, v in self.items()
        )
        return f"<table class='skprivate-privacy-report'>{rows}</table>"


_WEAK_EPSILON = _caveats.WEAK_EPSILON

# What every report covers, and what it does not: one fit, the rows it was given.
_SCOPE = (
    "this fit only: a step fitted on the same rows before this estimator (a scaler or "
    "encoder in a Pipeline) and other releases from the same rows are not covered; add "
    "releases up with a BudgetAccountant or total_privacy_cost"
)

def _n_rows(X):
    """Number of rows from the container's shape, without reading any value."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        return None


def _resolve_classes(owner, classes, y):
    """The classes of a classifier's fit: ``(classes_, y_index, caveats)``.

    ``classes`` declared (array-like, known without looking at the data): ``classes_`` is
    its sorted unique values, and a label of ``y`` outside it is refused with an error that
    names ``classes``. ``classes=None``: ``classes_`` is read from ``y``, published without
    noise, and the caveat :func:`skprivate._caveats.labels_from_data` says so. ``y`` must
    already be a validated 1-d array.
    """
    if classes is None:
        classes_, y_index = np.unique(y, return_inverse=True)
        if len(classes_) < 2:
            raise ValueError(
                f"{owner} needs samples of at least 2 classes in the data, but the data "
                f"contain only one class: {classes_[0]!r}. Pass classes=[...] if the other "
                "classes are known but absent from these rows."
            )
        return classes_, y_index, [_caveats.labels_from_data(classes_)]
    declared = np.asarray(classes)
    if declared.ndim != 1 or declared.size < 2:
        raise ValueError(
            f"{owner}: classes must be a 1-d array-like of at least two labels, known "
            f"without looking at the data; got classes={classes!r}."
        )
    classes_ = np.unique(declared)
    if len(classes_) != declared.size:
        raise ValueError(f"{owner}: classes holds repeated labels; got classes={classes!r}.")
    try:
        known = np.isin(y, classes_)
    except TypeError:  # labels of types that cannot be compared with the declared ones
        known = np.zeros(len(y), dtype=bool)
    if not np.all(known):
        unknown = list(dict.fromkeys(np.asarray(y)[~known].tolist()))
        raise ValueError(
            f"{owner}: y holds labels {unknown[:3]!r}{' ...' if len(unknown) > 3 else ''} "
            f"that are not in classes={classes_.tolist()!r}. Add them to classes (the label "
            "set must be declared in full, without looking at the data), or drop those rows."
        )
    return classes_, np.searchsorted(classes_, y), []


class DPEstimatorMixin:
    """Mixin for differentially private estimators.

    Subclasses declare ``epsilon``, ``delta``, ``accountant`` and ``random_state`` in their
    ``__init__`` (stored verbatim), add :attr:`_dp_parameter_constraints` to their
    ``_parameter_constraints``, and implement ``_privacy_plan(n_samples)``: the spend of a fit
    on ``n_samples`` rows, computed from the parameters and that number alone. The plan is
    what the accountant checks before any data is read and what
    :func:`~skprivate.accounting.total_privacy_cost` adds up for searches; it must be an upper
    bound of the actual spend.

    Fitted attributes set by :meth:`_finish_private_fit`: ``epsilon_`` and ``delta_`` (the
    guarantee the fit achieved, add/remove-one neighbouring datasets) and ``privacy_report_``
    (a :class:`PrivacyReport`).

    Examples
    --------
    A minimal DP estimator: the sum of the rows, each clipped to L2 norm 1, released with
    the Gaussian mechanism.

    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from skprivate.accounting import BudgetAccountant
    >>> from skprivate.base import DPEstimatorMixin
    >>> from skprivate.mechanisms import gaussian_mechanism
    >>> class DPSum(DPEstimatorMixin, BaseEstimator):
    ...     _parameter_constraints = {**DPEstimatorMixin._dp_parameter_constraints}
    ...
    ...     def __init__(self, epsilon=1.0, delta=1e-5, accountant=None, random_state=None):
    ...         self.epsilon = epsilon
    ...         self.delta = delta
    ...         self.accountant = accountant
    ...         self.random_state = random_state
    ...
    ...     def _privacy_plan(self, n_samples):  # one release, whatever the number of rows
    ...         return self._privacy_spend(self.epsilon, self.delta)
    ...
    ...     def fit(self, X, y=None):
    ...         self._validate_params()
    ...         plan = self._begin_private_fit(X)  # asks the accountant; nothing read yet
    ...         rng = self._noise_rng()
    ...         X = np.asarray(X, dtype=float)
    ...         X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    ...         self.sum_ = gaussian_mechanism(X.sum(axis=0), 1.0, self.epsilon, self.delta,
    ...                                        random_state=rng)
    ...         self._finish_private_fit(plan, {"mechanism": "Gaussian"}, len(X))
    ...         return self
    >>> X = np.random.default_rng(0).normal(size=(1000, 3))
    >>> accountant = BudgetAccountant(epsilon=1.5, delta=1e-4)
    >>> est = DPSum(epsilon=1.0, accountant=accountant).fit(X)
    >>> est.epsilon_, est.delta_, est.sum_.shape
    (1.0, 1e-05, (3,))
    >>> print(est.privacy_report_)
    estimator    : DPSum
    epsilon      : 1
    delta        : 1e-05
    neighbouring : add/remove one row
    unit         : one row of X (one person only if each person has one row)
    scope        : this fit only: a step fitted on the same rows before this estimator ...
    mechanism    : Gaussian
    generator    : ChaCha20, 256-bit key from the operating system (cryptographically secure)
    public       : columns (their number and names: ...); number of rows (read exactly, ...)
    caveats      : none
    >>> DPSum(epsilon=1.0, accountant=accountant).fit(X)
    Traceback (most recent call last):
    ...
    skprivate.exceptions.BudgetExceededError: A spend of epsilon=1, delta=1e-05 by DPSum ...
    """

    _dp_parameter_constraints = {
        # inf is refused: a user who wants no privacy should use scikit-learn directly.
        "epsilon": [Interval(Real, 0, np.inf, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "accountant": [BudgetAccountant, None],
        "random_state": ["random_state", np.random.Generator],
    }

    def _privacy_plan(self, n_samples):  # pragma: no cover - every estimator overrides it
        raise NotImplementedError

    def _begin_private_fit(self, X):
        """Plan the spend from ``X``'s shape and reserve it in the accountant.

        Call after parameter validation and before reading any value of ``X``: a budget
        overrun raises :class:`~skprivate.exceptions.BudgetExceededError` here, before
        anything was spent. Returns the planned
        :class:`~skprivate.accounting.PrivacySpend` (None when ``X`` has no length, in which
        case data validation will raise).
        """
        n_samples = _n_rows(X)
        if n_samples is None or n_samples < 1:
            return None
        plan = self._reserve_plan(n_samples)
        # Clones refitted on overlapping rows without an accountant (scikit-learn's searches,
        # cross_validate): each epsilon_ is one fit's, the rows' loss their composition.
        note_fit(self, X, plan.epsilon, stacklevel=_user_stacklevel())
        return plan

    def _reserve_plan(self, n_samples):
        """Plan a fit on ``n_samples`` rows and reserve it in the accountant, if any."""
        return self._reserve(self._reservation(n_samples))

    def _reserve(self, spend):
        """Book ``spend`` in the accountant, if any, as this fit's spend of record."""
        # Reserve the planned spend (check and record in one step), so that concurrent fits
        # sharing the accountant cannot both pass the check. The reservation is the spend of
        # record: it is never refunded, whether the fit ends early, fails or completes. An
        # end chosen by the data (early stopping, a failed private test, an error on a value)
        # is itself an output, so only the plan, fixed before any value was read, bounds
        # what the fit released (a smaller charge decided after the fact would need a privacy
        # filter or odometer argument: Rogers, Roth, Ullman and Vadhan 2016; Feldman and
        # Zrnic 2021; Lecuyer 2021).
        # A stale record from an earlier, refused reservation must not stand in for this one
        # (_finish_private_fit would take it as paid): set it only once the spend is booked.
        self.__dict__.pop("_reserved_spend", None)
        if self.accountant is not None:
            self.accountant.spend(spend)
        self._reserved_spend = spend
        return spend

    def _reservation(self, n_samples):
        """The spend reserved before any value is read: the plan on ``n_samples`` rows.

        An estimator whose plan must not read a private number of rows overrides this with
        a bound that does not depend on it (see :mod:`skprivate._row_count`).
        """
        return self._privacy_plan(n_samples)

    def _spend_bound(self, n_samples):
        """What a fit on ``n_samples`` rows is charged, for those who cannot see the fit
        (``total_privacy_cost`` of a search that keeps no fitted model): the plan, or an
        estimator's bound when its fit plans on a noisy count (see :mod:`skprivate._row_count`).
        """
        return self._privacy_plan(n_samples)

    def _noise_rng(self):
        """The generator every noise draw of this fit must come from (see ``random_state``)."""
        from .mechanisms import check_rng  # lazy: mechanisms import numpy/scipy only

        return check_rng(self.random_state)

    def _finish_private_fit(self, spend, report, n_samples, caveats=(), *, recorded=None):
        """Set the fitted privacy attributes, record the spend and warn once if needed.

        Parameters
        ----------
        spend : PrivacySpend
            The guarantee of the fitted model, what ``epsilon_`` and ``delta_`` report: the
            planned spend of this fit or, for a model trained by several calls
            (``partial_fit``, ``warm_start``), the composition of all of them. Never less
            than the plan of each call: a fit that stopped early at a time read from the
            data (an early-stopping callback, a failed test) released that time too, so it
            costs its plan (see :meth:`_reserve_plan`).
        report : dict
            Estimator-specific report entries (noise parameters, steps, queries, ...).
        n_samples : int or None
            Number of rows for the ``delta >= 1/n`` check, whose caveat prints it: a
            released (noisy) count or a number declared public, never the exact private
            one; None skips the check.
        caveats : sequence of Caveat
            Reasons the guarantee is weaker than stated (bounds read from the data, ...),
            each built by :mod:`skprivate._caveats`. The checks below (fixed seed,
            ``delta >= 1/n``, ``epsilon > 10``) run on ``spend``, the composed value.
        recorded : PrivacySpend, default=None
            What this call adds to the accountant when nothing was reserved before the fit
            (default: ``spend``). A reservation made by :meth:`_reserve_plan` is the spend
            of record and is never replaced.
        """
        from .mechanisms import is_reproducible
        from .mechanisms._rng import describe_generator

        caveats = list(caveats)
        for caveat in caveats:
            if not isinstance(caveat, _caveats.Caveat):  # pragma: no cover - a library bug
                raise TypeError(
                    f"{type(self).__name__}: caveat {caveat!r} is not built by "
                    "skprivate._caveats; every caveat comes from that vocabulary."
                )
        if is_reproducible(self.random_state):
            caveats.append(_caveats.seed_fixed(self.random_state))
        if spend.delta > 0 and n_samples and spend.delta >= 1.0 / n_samples:
            caveats.append(_caveats.delta_protects_no_one(spend.delta, n_samples))
        if spend.epsilon > _WEAK_EPSILON:
            caveats.append(_caveats.epsilon_weak(spend.epsilon))
        self.epsilon_ = float(spend.epsilon)
        self.delta_ = float(spend.delta)
        # Kept with its dp-accounting event so that total_privacy_cost can compose in RDP.
        self._privacy_spend_record = spend
        full = PrivacyReport(
            estimator=type(self).__name__,
            epsilon=self.epsilon_,
            delta=self.delta_,
            neighbouring="add/remove one row",
            unit="one row of X (one person only if each person has one row)",
            scope=_SCOPE,
        )
        full.update(report)
        # Which generator drew every random bit of the fit: the one place it is stated, read
        # from random_state and skprivate.get_config() while the fit runs.
        full["generator"] = describe_generator(self.random_state)
        # What the guarantee takes as known without the rows (the columns, the number of
        # rows unless a noisy count was released, declared bounds and classes): stated in
        # every report, since add/remove-one-row protects nothing the reader is assumed to know.
        full["public"] = public_inputs(self, full)
        full["caveats"] = caveats
        self.privacy_report_ = full
        reserved = self.__dict__.pop("_reserved_spend", None)
        if self.accountant is not None and reserved is None:
            # Nothing was reserved (the fit did not go through _reserve_plan): record now.
            self.accountant.spend(recorded if recorded is not None else spend)
        if caveats:
            guarantee = f"(epsilon={self.epsilon_:.4g}, delta={self.delta_:.3g})"
            if getattr(self, "epsilon", 0.0) is None:  # nothing was stated: say what happened
                guarantee = f"no epsilon was stated; the privacy guarantee {guarantee}"
            else:
                guarantee = f"the privacy guarantee {guarantee} is weaker than stated"
            warnings.warn(
                f"{type(self).__name__}: {guarantee}: " + "; ".join(caveats) + ".",
                PrivacyLeakWarning,
                stacklevel=_user_stacklevel(),
            )

    def _privacy_spend(self, epsilon, delta, event=None):
        return PrivacySpend(
            float(epsilon), float(delta), event=event, label=type(self).__name__
        )
