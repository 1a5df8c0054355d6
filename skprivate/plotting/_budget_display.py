"""What a privacy budget has been spent on, and what is left."""

import numpy as np

from ..utils._docstrings import Substitution
from ._matplotlib import AX_PLOT_DOC, FIGURE_ATTRIBUTES_DOC, axes

__all__ = ["PrivacyBudgetDisplay"]


@Substitution(figure_attributes=FIGURE_ATTRIBUTES_DOC)
class PrivacyBudgetDisplay:
    """Bars of the epsilon each fit spent from a budget, and what remains.

    Build it with :meth:`from_accountant` or, for a fitted pipeline or search,
    :meth:`from_estimator`, which also shows the steps no epsilon covers.

    Parameters
    ----------
    labels : list of str
        Who spent each part (estimator class names).
    epsilons : array-like of shape (n_spends,)
        Epsilon of each spend.
    total_epsilon : float
        The composed total (it can be below the sum: RDP composition).
    budget_epsilon : float
        The budget (inf for none).
    leaks : list of str, default=()
        Steps that learned from the private rows with no guarantee (see
        :func:`~skprivate.accounting.leaking_steps`): drawn as red hatched bars marked
        "not covered", and named in the title.

    Attributes
    ----------
    %(figure_attributes)s
    bars_ : matplotlib BarContainer
        One bar per spend (and one for what remains).

    See Also
    --------
    skprivate.accounting.BudgetAccountant : The budget drawn.
    PrivacyUtilityDisplay : Score against epsilon.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skprivate.accounting import BudgetAccountant
    >>> from skprivate.plotting import PrivacyBudgetDisplay
    >>> budget = BudgetAccountant(epsilon=3.0)
    >>> budget.spend(1.0, label="first model")
    >>> budget.spend(0.5, label="second model")
    >>> display = PrivacyBudgetDisplay.from_accountant(budget)
    >>> display.labels, display.remaining_epsilon
    (['first model', 'second model'], 1.5)
    """

    def __init__(self, labels, epsilons, total_epsilon, budget_epsilon, leaks=()):
        self.labels = list(labels)
        self.epsilons = np.asarray(epsilons, dtype=np.float64)
        self.total_epsilon = float(total_epsilon)
        self.budget_epsilon = float(budget_epsilon)
        self.leaks = list(leaks)

    @property
    def remaining_epsilon(self):
        """Budget left (inf without a budget)."""
        return max(self.budget_epsilon - self.total_epsilon, 0.0)

    @classmethod
    @Substitution(ax_plot=AX_PLOT_DOC)
    def from_accountant(cls, accountant, *, ax=None, plot=True):
        """Read the spends of a :class:`~skprivate.accounting.BudgetAccountant`.

        Parameters
        ----------
        accountant : BudgetAccountant
            The budget.
        %(ax_plot)s

        Returns
        -------
        display : PrivacyBudgetDisplay
        """
        from ..accounting import BudgetAccountant

        if not isinstance(accountant, BudgetAccountant):
            raise TypeError(
                "accountant must be a skprivate.accounting.BudgetAccountant; got "
                f"{type(accountant).__name__}."
            )
        spends = list(accountant.spends)
        labels = [s.label or f"spend {i + 1}" for i, s in enumerate(spends)]
        display = cls(labels, [s.epsilon for s in spends], accountant.total()[0],
                      accountant.epsilon)
        return display.plot(ax=ax) if plot else display

    @classmethod
    @Substitution(ax_plot=AX_PLOT_DOC)
    def from_estimator(cls, fitted, X=None, y=None, groups=None, *, budget_epsilon=np.inf,
                       ax=None, plot=True):
        """The spends of a fitted estimator, Pipeline, search or ``cross_validate`` result.

        Reads :func:`~skprivate.accounting.total_privacy_cost` (one bar per private step,
        the composed total in the title) and shows the steps it does not cover.

        Parameters
        ----------
        fitted : estimator, list, fitted search or dict
            As for :func:`~skprivate.accounting.total_privacy_cost`.
        X, y, groups : array-like, default=None
            Only for scikit-learn searches, as for ``total_privacy_cost``.
        budget_epsilon : float, default=inf
            A budget to draw what remains of.
        %(ax_plot)s

        Returns
        -------
        display : PrivacyBudgetDisplay

        Warns
        -----
        PrivacyLeakWarning
            When a step learned from the rows without a guarantee, naming it.

        Examples
        --------
        >>> import warnings
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from sklearn.pipeline import make_pipeline
        >>> from sklearn.preprocessing import StandardScaler
        >>> from skprivate.linear_model import DPLSSGDClassifier
        >>> from skprivate.plotting import PrivacyBudgetDisplay
        >>> X = np.random.default_rng(0).normal(size=(200, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> pipe = make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1]))
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     display = PrivacyBudgetDisplay.from_estimator(pipe.fit(X, y), plot=False)
        >>> display.leaks
        ['standardscaler']
        """
        from ..accounting import total_privacy_cost

        cost = total_privacy_cost(fitted, X, y, groups)
        spends = cost.spends
        labels = [s.label or f"spend {i + 1}" for i, s in enumerate(spends)]
        display = cls(labels, [s.epsilon for s in spends], cost.epsilon, budget_epsilon,
                      leaks=[step.path for step in cost.leaks])
        return display.plot(ax=ax) if plot else display

    def plot(self, ax=None):
        """Draw the bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.

        Returns
        -------
        display : PrivacyBudgetDisplay
            ``self``, with the drawn artists.
        """
        ax = axes(ax, type(self).__name__)
        labels, values = list(self.labels), list(self.epsilons)
        colors = ["C0"] * len(values)
        if np.isfinite(self.budget_epsilon):
            labels.append("remaining")
            values.append(self.remaining_epsilon)
            colors.append("lightgrey")
        hatches = [""] * len(values)
        if self.leaks:  # no epsilon: a full-width bar, hatched, that no number stands for
            width = max([self.total_epsilon, *values, 1e-12])
            labels += [f"{path} (not covered)" for path in self.leaks]
            values += [width] * len(self.leaks)
            colors += ["none"] * len(self.leaks)
            hatches += ["//"] * len(self.leaks)
        self.bars_ = ax.barh(labels, values, color=colors)
        for patch, hatch in zip(self.bars_, hatches):
            if hatch:  # set per bar: a hatch list needs matplotlib >= 3.10
                patch.set_hatch(hatch)
                patch.set_edgecolor("C3")
        ax.invert_yaxis()  # first spend on top
        ax.set_xlabel("epsilon")
        title = f"spent epsilon = {self.total_epsilon:.3g}"
        if self.total_epsilon < self.epsilons.sum() - 1e-9:
            title += f" (RDP composition; the sum is {self.epsilons.sum():.3g})"
        if np.isfinite(self.budget_epsilon):
            title += f" of a budget of {self.budget_epsilon:.3g}"
        if self.leaks:
            title += "\nnot covered (learned from the rows, no guarantee): " + ", ".join(
                self.leaks)
        ax.set_title(title)
        self.ax_, self.figure_ = ax, ax.figure
        return self
