"""A privacy budget shared across fits, and the record of one spend."""

import copy
import math
import threading
from dataclasses import dataclass, field
from numbers import Real


from ..exceptions import AccountantDetachedError, BudgetExceededError
from dp_accounting import rdp

from ._sgm import DEFAULT_RDP_ORDERS, _quiet_dp_accounting

__all__ = ["BudgetAccountant", "PrivacySpend"]


@dataclass(frozen=True)
class PrivacySpend:
    """What one release cost: ``(epsilon, delta)`` and, where known, its ``dp_accounting`` event.

    Parameters
    ----------
    epsilon : float
        Epsilon of the release (an upper bound), >= 0.
    delta : float
        Delta of the release, in [0, 1).
    event : dp_accounting.DpEvent or None, default=None
        The mechanism as a ``dp_accounting`` event (for example the composed sampled Gaussian
        of DP-SGD). With events, a :class:`BudgetAccountant` can compose spends in Renyi DP,
        which is tighter than adding epsilons.
    label : str, default=""
        Who spent it, for reports (usually the estimator's class name).

    Examples
    --------
    Every fit with an ``accountant`` records one (labelled with the estimator's class
    name); a release made outside skprivate can be recorded by hand:

    >>> from skprivate.accounting import BudgetAccountant, PrivacySpend
    >>> spend = PrivacySpend(epsilon=0.5, delta=1e-6, label="median income")
    >>> spend
    PrivacySpend(epsilon=0.5, delta=1e-06, event=None, label='median income')
    >>> accountant = BudgetAccountant(epsilon=1.0, delta=1e-5)
    >>> accountant.spend(spend)
    >>> [(s.label, s.epsilon, s.delta) for s in accountant.spends]
    [('median income', 0.5, 1e-06)]
    """

    epsilon: float
    delta: float
    event: object = field(default=None, compare=False)
    label: str = ""

    def __post_init__(self):
        _check_pair(self.epsilon, self.delta, "PrivacySpend", allow_zero=True)


def _check_pair(epsilon, delta, where, allow_zero=False):
    ok_eps = isinstance(epsilon, Real) and not math.isnan(epsilon)
    ok_eps = ok_eps and (epsilon >= 0 if allow_zero else epsilon > 0)
    if not ok_eps:
        raise ValueError(
            f"{where}: epsilon must be a number {'>=' if allow_zero else '>'} 0; got "
            f"{epsilon!r}."
        )
    if not (isinstance(delta, Real) and 0 <= delta < 1):
        raise ValueError(f"{where}: delta must be a number in [0, 1); got {delta!r}.")


class BudgetAccountant:
    """A privacy budget ``(epsilon, delta)`` shared by several fits.

    Pass the same accountant as ``accountant=`` to every differentially private estimator that
    reads the same private data. Each fit asks the accountant whether its planned spend fits in
    what remains *before* it reads any data, raises
    :class:`~skprivate.exceptions.BudgetExceededError` if not, and records its spend after it
    succeeds.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon budget, > 0. ``inf`` records spends without limiting them.
    delta : float, default=1.0
        Total delta budget, in (0, 1]. ``1.0`` means no limit on delta.
    composition : {"auto", "basic"}, default="auto"
        How spends add up. ``"basic"``: epsilons and deltas add (Dwork and Roth 2014, Thm 3.16).
        ``"auto"``: also compose, in Renyi DP, the spends that carry a ``dp_accounting`` event
        (Mironov 2017, Prop. 1; converted at their summed delta with Canonne, Kamath and
        Steinke 2020, Prop. 12), add the rest by basic composition, and report the smaller of
        the two totals. Both totals are valid guarantees at the same delta, so the smaller one
        is too.

    Attributes
    ----------
    spends : list of PrivacySpend
        Every recorded spend, in order (read it; record spends with :meth:`spend`).

    Notes
    -----
    ``sklearn.base.clone`` and ``copy.deepcopy`` return the accountant itself, so that
    ``GridSearchCV`` and ``cross_validate`` clones all spend from the one budget the user
    created. A copy that reaches another process (a joblib ``loky`` worker, a pickle loaded
    elsewhere) cannot report back, so it refuses to be spent from and raises
    :class:`~skprivate.exceptions.AccountantDetachedError`; a ledger that you saved on purpose
    and loaded in a new session can be taken over with :meth:`reattach`. For searches run in
    parallel, :func:`~skprivate.accounting.total_privacy_cost` recomputes what every fit spent.

    All neighbouring relations are add/remove-one row, the relation every skprivate estimator
    states its guarantee in.

    A fit records its *planned* spend, computed from public numbers before it reads any
    value, and that record is final: nothing is refunded when a fit stops early (an
    early-stopping callback), fails a private test, or fails on a value of the data. When a
    fit ends is read from the data, so it is itself released, and only the plan fixed in
    advance bounds what was released (Dwork and Roth 2014, Thm 3.16, composes the plans). A
    charge lowered after the fact would be a data-dependent privacy loss, which needs a
    privacy filter or odometer (Rogers, Roth, Ullman and Vadhan 2016; Feldman and Zrnic
    2021); this accountant is the simpler filter whose every budget is fixed before its
    mechanism runs.

    Examples
    --------
    >>> from skprivate.accounting import BudgetAccountant, PrivacySpend
    >>> acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    >>> acc.spend(0.5, 0.0)
    >>> acc.spend(1.0, 1e-6)
    >>> acc.total()
    (1.5, 1e-06)
    >>> acc.remaining()
    (0.5, 9e-06)
    >>> acc.check(PrivacySpend(1.0, 0.0))
    Traceback (most recent call last):
    ...
    skprivate.exceptions.BudgetExceededError: ...
    """

    def __init__(self, epsilon=math.inf, delta=1.0, composition="auto"):
        if not (isinstance(epsilon, Real) and epsilon > 0 and not math.isnan(epsilon)):
            raise ValueError(
                f"BudgetAccountant: epsilon must be a number > 0 (inf for no limit); got "
                f"{epsilon!r}."
            )
        if not (isinstance(delta, Real) and 0 < delta <= 1):
            raise ValueError(
                f"BudgetAccountant: delta must be a number in (0, 1] (1 for no limit); got "
                f"{delta!r}."
            )
        if composition not in ("auto", "basic"):
            raise ValueError(
                f"BudgetAccountant: composition must be 'auto' or 'basic'; got {composition!r}."
            )
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.composition = composition
        self.spends = []
        # Events are composed once, as they are recorded, so totals cost one conversion.
        self._rdp_ledger = rdp.RdpAccountant(list(DEFAULT_RDP_ORDERS))
        self._lock = threading.RLock()
        self._detached = False

    # --- sharing: clones and deep copies are the same ledger ---------------------------------
    def __sklearn_clone__(self):
        return self

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()
        # An unpickled accountant is a copy (in a joblib worker, or a saved model loaded
        # again): spends recorded on it would never reach the original ledger.
        self._detached = True

    def reattach(self):
        """Make this copy the ledger of record, after loading a saved accountant on purpose.

        Only call this on an accountant you restored from disk to continue a budget; never
        inside parallel workers, whose spends would then be lost to the original.
        """
        with self._lock:
            self._detached = False
        return self

    def _ensure_attached(self):
        if self._detached:
            raise AccountantDetachedError(
                "This BudgetAccountant is a pickled copy, for example one sent to another "
                "process (a joblib worker of GridSearchCV(n_jobs=2) or cross_validate(n_jobs=2)) "
                "or saved with a model and loaded again: spends recorded here would never reach "
                "your accountant, so the fit is refused before reading any data. Run the search with n_jobs=1 or inside "
                "`with joblib.parallel_config(backend='threading'):`, or fit without an "
                "accountant and use skprivate.accounting.total_privacy_cost(search, X, y). If "
                "you restored this accountant from disk on purpose, call its reattach()."
            )

    # --- the ledger -------------------------------------------------------------------------
    def _record(self, spend):
        # Caller holds the lock (or owns the object alone).
        self.spends.append(spend)
        if spend.event is not None:
            with _quiet_dp_accounting():
                self._rdp_ledger.compose(spend.event)

    def _total(self, extra=None):
        """Total of the recorded spends, plus ``extra`` if given (without recording it)."""
        spends = self.spends if extra is None else [*self.spends, extra]
        eps_basic = math.fsum(s.epsilon for s in spends)
        delta = min(math.fsum(s.delta for s in spends), 1.0)
        with_event = [s for s in spends if s.event is not None]
        # RDP composition only pays for two or more mechanisms.
        if self.composition == "basic" or len(with_event) < 2:
            return eps_basic, delta
        delta_events = min(math.fsum(s.delta for s in with_event), 1 - 1e-12)
        if delta_events <= 0:
            return eps_basic, delta
        ledger = self._rdp_ledger
        if extra is not None and extra.event is not None:
            ledger = copy.deepcopy(ledger)
            with _quiet_dp_accounting():
                ledger.compose(extra.event)
        with _quiet_dp_accounting():
            eps_rdp = float(ledger.get_epsilon(delta_events))
        eps_rest = math.fsum(s.epsilon for s in spends if s.event is None)
        return min(eps_basic, eps_rest + eps_rdp), delta

    def total(self):
        """The ``(epsilon, delta)`` spent so far, composed as ``composition`` says."""
        with self._lock:
            return self._total()

    def remaining(self):
        """Budget left ``(epsilon, delta)``: any spend within it is accepted by basic composition.

        With RDP composition a spend larger than this may still fit: :meth:`check` decides.
        """
        eps, delta = self.total()
        return max(self.epsilon - eps, 0.0), max(self.delta - delta, 0.0)

    def check(self, spend):
        """Raise :class:`~skprivate.exceptions.BudgetExceededError` if ``spend`` does not fit.

        Parameters
        ----------
        spend : PrivacySpend
            The planned spend.
        """
        self._ensure_attached()
        with self._lock:
            self._check_locked(spend)

    def _check_locked(self, spend):
        eps, delta = self._total(spend)
        # A relative slack of 1e-9 absorbs float rounding in sums that meet the budget exactly.
        if eps > self.epsilon * (1 + 1e-9) or delta > self.delta * (1 + 1e-9):
            spent_eps, spent_delta = self._total()
            what = f" by {spend.label}" if spend.label else ""
            raise BudgetExceededError(
                f"A spend of epsilon={spend.epsilon:.6g}, delta={spend.delta:.3g}{what} would "
                f"take the total to epsilon={eps:.6g}, delta={delta:.3g}, over the budget "
                f"epsilon={self.epsilon:.6g}, delta={self.delta:.3g} (already spent: "
                f"epsilon={spent_eps:.6g}, delta={spent_delta:.3g}). Nothing was spent. Lower "
                "the estimator's epsilon/delta or start a new BudgetAccountant for new data."
            )

    def spend(self, epsilon, delta=0.0, *, event=None, label=""):
        """Check that a spend fits and record it, in one step (safe across threads).

        Parameters
        ----------
        epsilon : float or PrivacySpend
            The epsilon spent, or a complete :class:`PrivacySpend` (then the other
            arguments are ignored).
        delta : float, default=0.0
            The delta spent.
        event : dp_accounting.DpEvent, default=None
            The mechanism, for RDP composition.
        label : str, default=""
            Who spent it.
        """
        record = epsilon if isinstance(epsilon, PrivacySpend) else PrivacySpend(
            epsilon, delta, event, label
        )
        self._ensure_attached()
        with self._lock:
            self._check_locked(record)
            self._record(record)

    def __repr__(self):
        eps, delta = self.total()
        return (
            f"BudgetAccountant(epsilon={self.epsilon:g}, delta={self.delta:g}; spent "
            f"epsilon={eps:.4g}, delta={delta:.3g} in {len(self.spends)} spend(s))"
        )
