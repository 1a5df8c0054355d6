"""Score against epsilon: what a privacy budget costs in accuracy, with its spread."""

import numbers
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring

from ..utils._docstrings import Substitution
from ._matplotlib import AX_PLOT_DOC, FIGURE_ATTRIBUTES_DOC, axes

__all__ = ["PrivacyUtilityDisplay"]


def _privacy_prefix(estimator):
    """The ``set_params`` prefix of the step that owns ``epsilon`` (a Pipeline's last step)."""
    if "epsilon" in estimator.get_params(deep=False):
        return ""
    steps = getattr(estimator, "steps", None)
    if steps and "epsilon" in steps[-1][1].get_params(deep=False):
        return f"{steps[-1][0]}__"
    raise TypeError(
        f"PrivacyUtilityDisplay: {type(estimator).__name__} has no epsilon parameter, so its "
        "score cannot be drawn against epsilon. Pass a skprivate estimator, or a Pipeline "
        "whose last step is one; for a score you computed yourself, use from_results."
    )


def _privacy_shares(estimator):
    """``[(prefix, share)]``: every private step's ``set_params`` prefix and its share of
    the pipeline's total epsilon (its epsilon over the sum), so that the x axis is the
    total epsilon of the fit, preprocessing included."""
    from ..accounting._total import dp_steps

    if "epsilon" in estimator.get_params(deep=False) or not hasattr(estimator, "steps"):
        return [(_privacy_prefix(estimator), 1.0)]
    parts = [(path.replace("/", "__") + "__", step.epsilon) for path, step in
             dp_steps(estimator) if "epsilon" in step.get_params(deep=False)]
    parts = [(prefix, eps) for prefix, eps in parts if _spends(estimator, prefix)]
    if len(parts) <= 1:
        return [(_privacy_prefix(estimator), 1.0)]
    total = sum(eps for _, eps in parts)
    return [(prefix, eps / total) for prefix, eps in parts]


def _spends(estimator, prefix):
    step = estimator.get_params()[prefix[:-2]]
    try:
        return step._privacy_plan(10_000).epsilon > 0
    except Exception:  # a plan that needs fitted state: assume it spends
        return True


def _fit_and_score(estimator, params, X_train, y_train, X_test, y_test, scoring):
    model = clone(estimator).set_params(**params).fit(X_train, y_train)
    scorer = check_scoring(model, scoring=scoring)
    return scorer(model, X_test, y_test)


@Substitution(figure_attributes=FIGURE_ATTRIBUTES_DOC)
class PrivacyUtilityDisplay:
    """Privacy-utility curve: a score against epsilon, with its spread and a baseline.

    Build it with :meth:`from_estimator` (fits the estimator at each epsilon) or
    :meth:`from_results` (scores you computed); both draw it unless ``plot=False``.

    Parameters
    ----------
    epsilons : array-like of shape (n_epsilons,)
        The privacy budgets, increasing.
    scores : array-like of shape (n_epsilons, n_repeats)
        The score of each repeat at each epsilon.
    baseline_score : float, default=None
        The non-private score, drawn as a horizontal line.
    name : str, default=None
        Legend label of the curve.
    score_name : str, default="score"
        Label of the y axis.
    leaks : list of str, default=()
        Steps of the estimator that learned from the rows without a guarantee: the x
        axis's epsilon does not cover them, and the axis label says so.

    Attributes
    ----------
    %(figure_attributes)s
    line_ : matplotlib Line2D
        The mean score.
    band_ : matplotlib PolyCollection or None
        The spread (minimum to maximum over repeats); None with one repeat.
    baseline_line_ : matplotlib Line2D or None
        The baseline.

    See Also
    --------
    PrivacyBudgetDisplay : What a budget has been spent on.

    Notes
    -----
    **Drawing the curve spends privacy.** :meth:`from_estimator` fits ``len(epsilons) *
    n_repeats`` models; on private data their epsilons add up (pass the estimator an
    ``accountant`` to have them recorded, and see
    :func:`~skprivate.accounting.total_privacy_cost`). Draw it on public data that
    resembles yours, or on a split you are prepared to spend, not on the data you will
    release a model from.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skprivate.plotting import PrivacyUtilityDisplay
    >>> display = PrivacyUtilityDisplay.from_results(
    ...     [0.5, 1, 2], [[0.70, 0.72], [0.78, 0.80], [0.82, 0.83]], baseline_score=0.85,
    ...     name="DPLSSGDClassifier", score_name="accuracy")
    >>> display.scores.mean(axis=1).round(3).tolist()
    [0.71, 0.79, 0.825]
    """

    def __init__(self, epsilons, scores, *, baseline_score=None, name=None, score_name="score",
                 leaks=()):
        self.leaks = list(leaks)
        self.epsilons = np.asarray(epsilons, dtype=np.float64)
        self.scores = np.asarray(scores, dtype=np.float64)
        self.baseline_score = baseline_score
        self.name = name
        self.score_name = score_name

    @classmethod
    @Substitution(ax_plot=AX_PLOT_DOC)
    def from_estimator(
        cls,
        estimator,
        X_train,
        y_train,
        X_test,
        y_test,
        *,
        epsilons=(0.25, 0.5, 1.0, 2.0, 4.0),
        n_repeats=3,
        scoring=None,
        baseline=None,
        name=None,
        n_jobs=None,
        random_state=None,
        ax=None,
        plot=True,
    ):
        """Fit ``estimator`` at each epsilon ``n_repeats`` times and draw its test score.

        Parameters
        ----------
        estimator : estimator
            A skprivate estimator, or a Pipeline whose last step is one (not fitted).
            When the Pipeline has private preprocessing too
            (:func:`~skprivate.preprocessing.make_private_pipeline`), each epsilon on the
            x axis is the total of the fit, split across the private steps in the
            proportions they have in ``estimator``. Steps that learn from the rows without
            a guarantee are named in a warning and in the figure.
        X_train, y_train : array-like
            Training data.
        X_test, y_test : array-like
            Data the scores are computed on.
        epsilons : array-like of float > 0, default=(0.25, 0.5, 1, 2, 4)
            The budgets to fit at.
        n_repeats : int, default=3
            Fits per budget (different noise), to show the spread.
        scoring : str or callable, default=None
            A scikit-learn scorer; None uses the estimator's ``score``.
        baseline : estimator or float, default=None
            A non-private estimator fitted on the same data and scored the same way, or its
            score; drawn as a horizontal line.
        name : str, default=None
            Legend label; None uses the class name of the private step.
        n_jobs : int, default=None
            Fits run in parallel through joblib (an ``accountant`` shared by the estimator
            only works with threads, ``n_jobs=None`` or a threading backend).
        random_state : None or int, default=None
            None keeps the estimator's own ``random_state``; an int gives each fit a seed
            drawn from it (reproducible figures; such noise protects no one).
        %(ax_plot)s

        Returns
        -------
        display : PrivacyUtilityDisplay
        """
        shares = _privacy_shares(estimator)
        prefix = shares[-1][0]
        grid = np.asarray(epsilons, dtype=np.float64)
        if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) or (grid <= 0).any():
            raise ValueError(
                f"epsilons must be a non-empty list of finite budgets > 0; got {epsilons!r}."
            )
        if not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
            raise ValueError(f"n_repeats must be an integer >= 1; got {n_repeats!r}.")
        grid = np.sort(grid)
        seeds = None
        if random_state is not None:
            seeds = np.random.default_rng(random_state).integers(
                np.iinfo(np.int32).max, size=(grid.size, n_repeats)
            )
        jobs = []
        for i, eps in enumerate(grid):
            for r in range(n_repeats):
                params = {f"{p}epsilon": float(eps) * share for p, share in shares}
                if seeds is not None:
                    params.update({f"{p}random_state": int(seeds[i, r]) for p, _ in shares})
                jobs.append(params)
        scores = Parallel(n_jobs=n_jobs)(
            delayed(_fit_and_score)(estimator, params, X_train, y_train, X_test, y_test,
                                    scoring)
            for params in jobs
        )
        baseline_score = baseline
        if baseline is not None and not isinstance(baseline, numbers.Real):
            baseline_score = _fit_and_score(baseline, {}, X_train, y_train, X_test, y_test,
                                            scoring)
        if name is None:
            step = estimator.steps[-1][1] if prefix else estimator
            name = type(step).__name__
        if scoring is None:
            score_name = "accuracy" if is_classifier(estimator) else "R^2"
        else:
            score_name = scoring if isinstance(scoring, str) else "score"
        from ..accounting import leaking_steps

        leaks = [step.path for step in leaking_steps(estimator)]
        if leaks:
            from ..exceptions import PrivacyLeakWarning

            warnings.warn(
                "PrivacyUtilityDisplay: the epsilons drawn do not cover "
                + "; ".join(step.caveat for step in leaking_steps(estimator)) + ".",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        display = cls(grid, np.reshape(scores, (grid.size, n_repeats)),
                      baseline_score=baseline_score, name=name, score_name=score_name,
                      leaks=leaks)
        return display.plot(ax=ax) if plot else display

    @classmethod
    def from_results(cls, epsilons, scores, *, baseline_score=None, name=None,
                     score_name="score", ax=None, plot=True):
        """Draw scores computed elsewhere.

        Parameters
        ----------
        epsilons : array-like of shape (n_epsilons,)
            The budgets.
        scores : array-like of shape (n_epsilons,) or (n_epsilons, n_repeats)
            Score(s) at each budget.
        baseline_score : float, default=None
            Non-private score, drawn as a horizontal line.
        name : str, default=None
            Legend label.
        score_name : str, default="score"
            Label of the y axis.
        ax : matplotlib Axes, default=None
            Where to draw.
        plot : bool, default=True
            Draw now.

        Returns
        -------
        display : PrivacyUtilityDisplay
        """
        eps = np.asarray(epsilons, dtype=np.float64)
        values = np.asarray(scores, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        if eps.ndim != 1 or values.ndim != 2 or values.shape[0] != eps.size:
            raise ValueError(
                f"scores must have one row per epsilon: {eps.size} epsilons but scores of "
                f"shape {np.shape(scores)}."
            )
        order = np.argsort(eps)
        display = cls(eps[order], values[order], baseline_score=baseline_score, name=name,
                      score_name=score_name)
        return display.plot(ax=ax) if plot else display

    def plot(self, ax=None, *, name=None, **line_kwargs):
        """Draw the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; None makes a new figure.
        name : str, default=None
            Legend label; None keeps :attr:`name`.
        **line_kwargs : dict
            Passed to ``Axes.plot`` for the mean line.

        Returns
        -------
        display : PrivacyUtilityDisplay
            ``self``, with the drawn artists.
        """
        ax = axes(ax, type(self).__name__)
        label = name if name is not None else self.name
        mean = self.scores.mean(axis=1)
        (self.line_,) = ax.plot(self.epsilons, mean, marker="o", label=label, **line_kwargs)
        self.band_ = None
        if self.scores.shape[1] > 1:
            self.band_ = ax.fill_between(self.epsilons, self.scores.min(axis=1),
                                         self.scores.max(axis=1), alpha=0.2,
                                         color=self.line_.get_color())
        self.baseline_line_ = None
        if self.baseline_score is not None:
            self.baseline_line_ = ax.axhline(self.baseline_score, linestyle="--", color="grey",
                                             label="non-private")
        ax.set_xscale("log")
        xlabel = "epsilon (smaller is more private)"
        if self.leaks:
            xlabel += "\nnot covered (learned from the rows, no guarantee): " + ", ".join(
                self.leaks)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(self.score_name)
        if label is not None or self.baseline_line_ is not None:
            ax.legend(loc="lower right")
        self.ax_, self.figure_ = ax, ax.figure
        return self
