"""Conventions shared by skprivate's differentially private estimators.

A DP estimator composes :class:`DPEstimatorMixin` with scikit-learn's public ``BaseEstimator``
and task mixins. Its ``fit`` follows one order, the order in which privacy can go wrong least:

1. ``plan = self._begin_private_fit(X)``: validate the privacy parameters, compute the planned
   spend from the *shape* of ``X`` alone, and ask the accountant; nothing has read a value yet.
2. ``rng = self._noise_rng()``: the generator all noise comes from.
3. Validate the data, clip to public bounds, train with noise.
4. ``self._finish_private_fit(spend, report)``: set ``epsilon_``, ``delta_``,
   ``privacy_report_``, record the spend, and warn once if the guarantee is weakened.
"""

import html
import os
import sys
import warnings
from numbers import Integral, Real

import numpy as np
import sklearn
from sklearn.utils._param_validation import Interval

from .accounting._budget import BudgetAccountant, PrivacySpend
from .exceptions import PrivacyLeakWarning

__all__ = ["DPEstimatorMixin", "PrivacyReport"]


class PrivacyReport(dict):
    """What a fitted estimator released and what it cost: a dict with a readable display.

    Keys always present: ``"mechanism"``, ``"neighbouring"``, ``"unit"``, ``"epsilon"``,
    ``"delta"``, ``"accountant"``, ``"reference"``; estimators add their noise parameters
    (noise multiplier, sample rate, steps, queries, ...) and ``"caveats"``. It prints as an
    aligned text table, and Jupyter renders it as an HTML table.

    Examples
    --------
    >>> from skprivate.base import PrivacyReport
    >>> print(PrivacyReport(mechanism="Gaussian", epsilon=1.0, delta=1e-5))
    mechanism : Gaussian
    epsilon   : 1
    delta     : 1e-05
    """

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


# Above this the formal guarantee says little (e^10 is about 22,000): the documented line
# between "common in practice" and "report it, but do not call it private" (choosing_epsilon).
_WEAK_EPSILON = 10.0

_LIBRARY_DIRS = tuple(
    os.path.dirname(module.__file__) + os.sep for module in (sys.modules["skprivate"], sklearn)
)


def _user_stacklevel():
    """Stack level of the first caller outside skprivate and scikit-learn, for warnings.

    Fits are wrapped by scikit-learn (``_fit_context``, Pipeline, GridSearchCV), so a fixed
    level would point into library code; the user's line is what the warning should name.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
        frame, level = frame.f_back, level + 1
    return level


def _n_rows(X):
    """Number of rows from the container's shape, without reading any value."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        return None


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
    mechanism    : Gaussian
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
        return self._reserve_plan(n_samples)

    def _reserve_plan(self, n_samples):
        """Plan a fit on ``n_samples`` rows and reserve it in the accountant, if any."""
        plan = self._privacy_plan(n_samples)
        # Reserve the planned spend (check and record in one step), so that concurrent fits
        # sharing the accountant cannot both pass the check; settled in _finish_private_fit.
        self._reserved_spend = plan
        if self.accountant is not None:
            self.accountant.spend(plan)
        return plan

    def _noise_rng(self):
        """The generator every noise draw of this fit must come from (see ``random_state``)."""
        from .mechanisms import check_rng  # lazy: mechanisms import numpy/scipy only

        return check_rng(self.random_state)

    def _finish_private_fit(self, spend, report, n_samples, caveats=()):
        """Set the fitted privacy attributes, record the spend and warn once if needed.

        Parameters
        ----------
        spend : PrivacySpend
            What the fit actually spent (never more than the plan).
        report : dict
            Estimator-specific report entries (noise parameters, steps, queries, ...).
        n_samples : int
            Number of private rows, for the ``delta >= 1/n`` check.
        caveats : sequence of str
            Reasons the guarantee is weaker than stated (bounds read from the data, ...).
        """
        from .mechanisms import is_reproducible

        caveats = list(caveats)
        if is_reproducible(self.random_state):
            kept = ""
            if not isinstance(self.random_state, Integral):  # a Generator or RandomState
                kept = (", and the fitted estimator keeps the generator where the noise "
                        "ended, from which it can be replayed: whoever gets the saved model "
                        "knows it")
            caveats.append(
                f"random_state={self.random_state!r} fixes the noise: anyone who knows the "
                f"seed can remove it{kept}, so the guarantee does not hold against them (use "
                "random_state=None for a release)"
            )
        if spend.delta > 0 and n_samples and spend.delta >= 1.0 / n_samples:
            caveats.append(
                f"delta={spend.delta:.3g} >= 1/n_samples={1.0 / n_samples:.3g}: a mechanism "
                "that publishes one random row outright meets this delta, so it protects no "
                "one; use delta well below 1/n_samples (for example 1/(10 n))"
            )
        if spend.epsilon > _WEAK_EPSILON:
            caveats.append(
                f"epsilon={spend.epsilon:.4g} > {_WEAK_EPSILON:g}: one row may change the "
                f"probability of any outcome by a factor of up to e^{spend.epsilon:.4g}, which "
                "protects little in practice; report it as such, or lower epsilon"
            )
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
        )
        full.update(report)
        full["caveats"] = caveats
        self.privacy_report_ = full
        if self.accountant is not None:
            self.accountant._settle(getattr(self, "_reserved_spend", None), spend)
        if caveats:
            warnings.warn(
                f"{type(self).__name__}: the privacy guarantee (epsilon={self.epsilon_:.4g}, "
                f"delta={self.delta_:.3g}) is weaker than stated: " + "; ".join(caveats) + ".",
                PrivacyLeakWarning,
                stacklevel=_user_stacklevel(),
            )

    def _privacy_spend(self, epsilon, delta, event=None):
        return PrivacySpend(
            float(epsilon), float(delta), event=event, label=type(self).__name__
        )
