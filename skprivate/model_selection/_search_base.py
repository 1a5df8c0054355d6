"""What the private random and grid searches share: the runs, the release, the routing.

The privacy argument (which theorem, why a run's cost is the larger of its training and
scoring costs) is stated in ``_tuning_accounting``, next to the code that computes it; the
per-run epsilon is solved for in ``_calibration``; the candidate space is read in
``_candidates``; the prediction methods that delegate to the released model are in
``_delegation``.
"""

import sys
import time
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import indexable

from .._caveats import score_vouched
from .._dpsgd._plan import PUBLIC_N_SAMPLES
from .._repeated_fits import IN_PRIVATE_SEARCH
from .._row_count import count_report, release_row_count, rest_epsilon
from ..base import DPEstimatorMixin, _n_rows
from ..mechanisms import check_rng
from ..mechanisms._rng import derived_generator, describe_generator, draw_seed_words
from ..utils._compat import get_tags
from ..utils._compat import safe_indexing as _safe_indexing
from ..utils._deprecation import deprecated_option, renamed_value
from . import _calibration
from . import _tuning_accounting as ta
from ._candidates import (
    check_space,
    dp_objects,
    dp_step,
    resolve_relative,
    run_dp_steps,
    space_caveats,
    split_run_budget,
)
from ._delegation import _DelegateToBestMixin
from ._runs import (
    PER_ROW_METHOD,
    PER_ROW_TERMS,
    RowTerms,
    _check_no_sample_weight,
    _check_score_range,
    _fit_and_score,
    _split_rows,
)

__all__ = []

_DISTRIBUTIONS = {"poisson": "poisson", "geometric": 1.0, "logarithmic": 0.0}
# scikit-learn's scorers that are a mean over the rows of one term per row, computed row by
# row and clipped (_runs.PER_ROW_TERMS; the released sum's sensitivity argument needs that;
# all but accuracy need score_range). Any other named scorer is refused (_score_spec).
PER_ROW_MEAN_SCORERS = frozenset(PER_ROW_TERMS)
# Why a commonly asked-for scorer is refused, and what to use instead.
_REFUSED_SCORER_FIX = {
    "r2": (
        " r2 is 1 - SSE / SST, and SST is a sum over all the rows (no per-row term). Use "
        "'neg_mean_squared_error' with score_range (SSE / n, the same ranking on one split)."
    ),
    "neg_root_mean_squared_error": (
        " A square root of a mean has no per-row term; 'neg_mean_squared_error' ranks the "
        "runs the same way."
    ),
    "balanced_accuracy": " Each class's recall divides by that class's (private) count.",
}


@dataclass
class _Plan:
    """Everything a search decides before reading a value of the data (public numbers only)."""

    support: list
    picks: np.ndarray
    seeds: np.ndarray
    is_val: np.ndarray
    n_train_public: int
    n_val_public: float
    eps_run: float
    spend: object
    spends: list
    scorer: object
    low: float
    high: float
    noise_std: float
    plan_on_public: bool
    count: object
    total: float


class _BasePrivateSearch(
    _DelegateToBestMixin, DPEstimatorMixin, MetaEstimatorMixin, BaseEstimator
):
    """What the private random and grid searches share.

    A subclass states its candidate space through :meth:`_support` (every candidate a run
    can draw, with its probability); the rest is here.
    """

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "estimator": [HasMethods(["fit"])],
        "n_candidates_distribution": [
            StrOptions(set(_DISTRIBUTIONS)),
            Interval(Real, -1, None, closed="neither"),
        ],
        "mean_candidates": [Interval(Real, 1, None, closed="left")],
        "scoring": [str, callable, None],
        "score_range": [tuple, list, Real, None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "score_epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "n_samples_public": ["boolean"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        # The names before 0.1, kept for one release (FutureWarning).
        "n_candidates": [
            StrOptions(set(_DISTRIBUTIONS)),
            Interval(Real, -1, None, closed="neither"),
            deprecated_option(),
        ],
        # The old name of validation_fraction. A float is the one form the privacy
        # argument covers; an int or a splitter (scikit-learn's folds) gets an error that
        # says why (_renamed_params).
        "cv": [
            Interval(Real, 0, 1, closed="neither"), Integral, HasMethods(["split"]),
            deprecated_option(),
        ],
    }

    # --- parameters --------------------------------------------------------------------
    def _renamed_params(self, warn=False):
        """``(n_candidates_distribution, validation fraction)``, the old names applied.

        ``warn=True`` (once per fit, from :meth:`_check_params`) emits the FutureWarning of
        an old name.
        """
        name = type(self).__name__
        distribution = renamed_value(
            self.n_candidates_distribution, self.n_candidates,
            new="n_candidates_distribution", old="n_candidates", default="poisson",
            owner=name, warn=warn,
        )
        if isinstance(self.cv, Integral) or (
            not isinstance(self.cv, str) and hasattr(self.cv, "split")
        ):
            # scikit-learn's cv (folds or a splitter), refused whatever else is passed
            raise ValueError(
                f"{name}: cv={self.cv!r}, but the private search validates on one random "
                "split, given as the fraction of rows held out: validation_fraction=0.2 "
                "holds out each row with probability 0.2. Folds (an int) or a splitter "
                "would train every candidate several times on overlapping rows, which the "
                "search's privacy argument does not cover. Remove cv= and pass "
                "validation_fraction=, a float in (0, 1)."
            )
        fraction = renamed_value(
            self.validation_fraction, self.cv, new="validation_fraction", old="cv",
            default=0.2, owner=name, warn=warn,
        )
        return distribution, float(fraction)

    def _distribution(self):
        value = self._renamed_params()[0]
        return _DISTRIBUTIONS[value] if isinstance(value, str) else float(value)

    def _support(self):
        """Every candidate a run can draw, with its probability (public, data-independent)."""
        raise NotImplementedError

    def _check_params(self):
        name = type(self).__name__
        self._renamed_params(warn=True)
        dp = dp_step(self.estimator)
        for path, step in run_dp_steps(self.estimator):
            if getattr(step, "accountant", None) is not None:
                raise ValueError(
                    f"{name}: the step '{path}' ({type(step).__name__}) has its own "
                    "accountant; the search spends the budget once for all its runs and "
                    "steps. Pass accountant= to the search and leave the steps' "
                    "accountant=None."
                )
        support, probs = self._support()
        check_space(name, self.estimator, support)
        return dp, support, probs

    def _score_spec(self):
        """``(score, low, high)``: how each run's validation rows are scored.

        ``score`` is a :class:`._runs.RowTerms` for a named scorer (its per-row terms, each
        clipped to ``[low, high]`` before the sum: the sum's sensitivity is then what the
        noise covers whatever the rows hold), or the callable ``scoring`` itself, taken on
        trust (its caveat says so). Checked before any data is read.
        """
        name = type(self).__name__
        scoring = self.scoring
        if scoring is None:
            if not is_classifier(self.estimator):
                # The estimator's own score (r2 for a regressor) is not a mean of one term
                # per row: its denominator is a sum over all the rows.
                raise ValueError(
                    f"{name}: scoring=None on a non-classifier would use the estimator's own "
                    "score (r2 for a regressor), which is not a mean of one term per "
                    "validation row, so one row could move it by more than the noise "
                    "covers. Pass scoring='neg_mean_squared_error' or "
                    "'neg_mean_absolute_error' with score_range=(low, high), the interval "
                    "each row's term is clipped to."
                )
            scoring = "accuracy"
        if isinstance(scoring, str):
            if scoring not in PER_ROW_MEAN_SCORERS:
                # The noise covers one row moving the released sum by (high - low) / 2: true
                # of a sum of one clipped term per row only. One row moves an F1, an AUC or a
                # balanced accuracy by far more (a search with scoring="f1" released a sum
                # that one added row moved by 33, against the 0.5 its noise was calibrated
                # for).
                hint = _REFUSED_SCORER_FIX.get(scoring, "")
                raise ValueError(
                    f"{name}: scoring={scoring!r} is not a mean of one term per validation "
                    "row, so one row can move it by more than the score's noise covers and "
                    f"the search would not be private.{hint} Use one of "
                    f"{sorted(PER_ROW_MEAN_SCORERS)} (with score_range for all but "
                    "accuracy), or a callable that is such a mean (you vouch for it)."
                )
            method = PER_ROW_METHOD[scoring]
            if not hasattr(self.estimator, method):
                raise ValueError(
                    f"{name}: scoring={scoring!r} scores each validation row with "
                    f"{method}, which {type(self.estimator).__name__} does not have. Use "
                    "scoring='accuracy' (a classifier) or 'neg_mean_squared_error' (a "
                    "regressor), with score_range."
                )
            score = RowTerms(scoring, PER_ROW_TERMS[scoring])
        else:
            score = check_scoring(self.estimator, scoring=scoring)
        if self.score_range is not None:
            low, high = _check_score_range(name, self.score_range)
        elif scoring == "accuracy":
            low, high = 0.0, 1.0  # accuracy: terms in {0, 1} by construction
        else:
            raise ValueError(
                f"{name}: scoring={scoring!r} has per-row terms with no natural bound (or, "
                "for a callable, none known), so the noise for the validation score cannot "
                "be calibrated. Pass score_range=(low, high): each validation row's term is "
                "clipped to it before the sum (for a callable, you vouch that every term "
                "lies in it). For example (0, 1) for accuracy, (-1, 0) for the Brier score "
                "of two classes, (-2 * B, 0) for the negated absolute error of targets and "
                "predictions within [-B, B]; a narrower range means less noise, and rows "
                "beyond it count as its end."
            )
        return score, low, high

    def _calibrate(self, support, n_train, epsilon=None, rtol=0.02):
        """``(eps_run, total, z, spends)`` within ``epsilon`` (default: the search's
        ``epsilon``): see :func:`._calibration.calibrate`."""
        epsilon = self.epsilon if epsilon is None else epsilon
        return _calibration.calibrate(self, support, n_train, epsilon, rtol=rtol)

    # --- metadata routing ------------------------------------------------------------------
    def get_metadata_routing(self):
        """Get metadata routing of this object.

        The search routes ``fit``'s metadata to the estimator's ``fit`` only, as
        scikit-learn's searches do; the validation score takes none (a per-row weight in it
        would change the score's sensitivity). ``sample_weight`` is refused either way (see
        ``fit``). Please check :ref:`User Guide <metadata_routing>` on how the routing
        mechanism works.

        Returns
        -------
        routing : MetadataRouter
            A :class:`~sklearn.utils.metadata_routing.MetadataRouter` encapsulating
            routing information.
        """
        return MetadataRouter(owner=type(self).__name__).add(
            estimator=self.estimator,
            method_mapping=MethodMapping().add(caller="fit", callee="fit"),
        )

    def _route(self, params):
        """The runs' fit arguments, and whether those with one entry per row follow the rows.

        With ``sklearn.set_config(enable_metadata_routing=True)``: what the estimator
        requested (:func:`~sklearn.utils.metadata_routing.process_routing`, which refuses
        what nobody requested), a value with one entry per row later restricted to the
        training part, as scikit-learn's searches do. Without routing (scikit-learn's
        default), every argument goes to the estimator's ``fit`` unchanged: skprivate's
        estimators take no per-row fit argument (the nets' extra ``forward`` arguments are
        the same for every example), so nothing is guessed from lengths.
        """
        if not get_config().get("enable_metadata_routing", False):
            return dict(params), False
        return dict(process_routing(self, "fit", **params)["estimator"]["fit"]), True

    # --- fit -------------------------------------------------------------------------------
    def _privacy_plan(self, n_samples):
        # Whatever the split, the count and the candidates, the search never spends more
        # than this (it does not read n_samples).
        return self._privacy_spend(self.epsilon, self.delta)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None, **params):
        """Run the private search and keep the best run's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows, scaled with public bounds as the estimator requires.
        y : array-like of shape (n_samples,), default=None
            Targets.
        **params : dict
            Passed to every run's ``fit``. With metadata routing enabled
            (``sklearn.set_config(enable_metadata_routing=True)``), only what the estimator
            requested, values with one entry per row split with the rows; otherwise every
            argument as given. ``sample_weight`` is refused: a weight above 1 would scale one
            row's contribution beyond the bound the noise covers.

        Returns
        -------
        self : object
            The fitted search.
        """
        name = type(self).__name__
        dp, support, probs = self._check_params()
        _check_no_sample_weight(name, params)
        # Lengths and container types only: sparse matrices become CSR, lists arrays.
        X, y = indexable(X, y)
        n_samples = _n_rows(X)
        if n_samples is None or n_samples < 2:
            raise ValueError(
                f"{name}: found n_samples={n_samples}; the search needs at least 2 rows "
                "(a training part and a validation part)."
            )
        run_params, per_row = self._route(params)  # refused before anything is spent
        plan = self._plan(dp, support, probs, n_samples)
        train_idx = np.flatnonzero(~plan.is_val)
        if per_row:
            run_params = _split_rows(run_params, n_samples, train_idx)
        results = self._run(plan, X, y, train_idx, run_params)
        self._release(plan, results, dp, y, n_samples)
        return self

    def _plan(self, dp, support, probs, n_samples):
        """Count, split, number of runs, candidates, seeds and calibration: no value of the data.

        Every size the runs plan on comes from the number of rows the search plans on: a
        noisy count of the rows (:func:`skprivate._row_count.release_row_count`, drawn first
        from the search's generator), or ``n_samples`` itself with
        ``n_samples_public=True``. The rest is drawn from that number, the parameters and
        the search's generator. The accountant, if any, is charged the whole search here,
        before anything derived from the data is used.
        """
        name = type(self).__name__
        rng = check_rng(self.random_state)
        scorer, low, high = self._score_spec()
        count = release_row_count(
            n_samples, self.epsilon, public=self.n_samples_public, rng=rng
        )
        # Planned sizes: every noise scale and sampling rate of a run comes from these, never
        # from the realised sizes of the random parts, which depend on the private rows (a
        # row that is added lands in one part and changes its size), nor from the exact
        # number of rows, which differs between neighbours too (unless declared public).
        p = self._renamed_params()[1]
        n_train_public = max(1, int(round((1.0 - p) * count.n_plan)))
        is_val = rng.random(n_samples) < p
        if is_val.all():
            # Probability cv ** n_samples: negligible beside delta for any data set a
            # search is meant for.
            raise ValueError(
                f"{name}: the random split with validation_fraction={p!r} left no "
                "training row. Use more rows or a smaller validation_fraction."
            )
        n_runs = ta.sample_n_runs(rng, self._distribution(), self.mean_candidates)
        if n_runs == 0:
            raise ValueError(
                f"{name}: the Poisson number of runs (mean {self.mean_candidates!r}) came out "
                f"0, which happens with probability exp(-{self.mean_candidates!r}); nothing "
                "was trained and no data was read, so nothing was spent. Fit again (with "
                "random_state=None, or another seed)."
            )
        picks = rng.choice(len(support), size=n_runs, p=probs)
        # ChaCha20 keys from a cryptographic generator: the runs are as secure as the search
        seeds = draw_seed_words(rng, (n_runs, 2))
        if not self.n_samples_public:
            # From here on, what is computed (the calibration, its errors, the plans) is
            # chosen by the count, so the charge must not be: the search's bound, (epsilon,
            # delta) whatever the count, booked before anything derived from the count is
            # used or can be seen (the errors above and a refusal here do not depend on it).
            self._reserve_plan(n_samples)  # _privacy_plan reads no n: (epsilon, delta)
        # The runs and their selection share what the count left (basic composition).
        rest = rest_epsilon(self.epsilon, count.epsilon)
        eps_run, total, z, spends = self._calibrate(support, n_train_public, rest)
        if total > rest * (1 + 1e-12):  # pragma: no cover - calibrate guarantees it
            raise RuntimeError(f"{name}: calibration overshot the budget; please report.")
        plan_on_public = _calibration.check_public_plans(
            self, dp, support, eps_run, n_train_public, spends
        )
        if self.n_samples_public:
            # raises BudgetExceededError before any data
            spend = self._reserve(self._privacy_spend(total, self.delta))
        else:
            # Dwork, Rothblum and Vadhan (2010), Theorem III.3 with k = 2 (see
            # skprivate._row_count): the count is epsilon_n-DP and, whatever its value, the
            # runs and their selection are (rest, delta)-DP (calibrate never overshoots).
            # The bound is `rest`, not this count's `total`: `total` is chosen by the count,
            # and a guarantee must hold for every value the count can take.
            spend = self._privacy_spend(count.epsilon + rest, self.delta)
        return _Plan(
            support=support, picks=picks, seeds=seeds, is_val=is_val,
            n_train_public=n_train_public, n_val_public=p * count.n_plan, eps_run=eps_run,
            spend=spend, spends=spends, scorer=scorer, low=low, high=high,
            # noise on each run's score sum: sensitivity (high - low) / 2 whatever the split
            noise_std=z * 0.5 * (high - low), plan_on_public=plan_on_public, count=count,
            total=total,
        )

    def _make_run(self, plan, i):
        """The estimator of run ``i``: its candidate, the per-run budget, its own generator."""
        est = clone(self.estimator).set_params(**plan.support[plan.picks[i]])
        # the run's budget split between its DP steps as in the plan (_calibration)
        steps = split_run_budget(est, plan.eps_run, self.delta)
        step = steps[-1][1]
        step.set_params(random_state=derived_generator(plan.seeds[i, 0]))
        for k, (_, pre) in enumerate(steps[:-1]):  # one generator per step, from the seed
            pre.set_params(
                random_state=derived_generator(plan.seeds[i, 0], k + 1)
            )
        if plan.plan_on_public:
            # The run plans (sampling rate, steps, noise) and divides by this public
            # number, not by the realised size of its training part.
            setattr(step, PUBLIC_N_SAMPLES, plan.n_train_public)
        resolve_relative(step, plan.n_train_public)  # as it was planned (_calibration)
        for _, dp in run_dp_steps(est):  # their spends are inside the search's epsilon_
            setattr(dp, IN_PRIVATE_SEARCH, True)
        # A run's progress output would count the runs, which must stay secret.
        loud = {k: False for k, v in est.get_params().items()
                if k.split("__")[-1] == "verbose" and v}
        return est.set_params(**loud)

    def _run(self, plan, X, y, train_idx, run_params):
        """Fit and score every run in parallel; check each spent exactly its plan."""
        name = type(self).__name__
        val_idx = np.flatnonzero(plan.is_val)
        X_train, X_val = _safe_indexing(X, train_idx), _safe_indexing(X, val_idx)
        y_train = None if y is None else _safe_indexing(y, train_idx)
        y_val = None if y is None else _safe_indexing(y, val_idx)
        start = time.perf_counter()
        if self.verbose:
            print(f"{name}: training a secret number of runs (mean {self.mean_candidates:g}) "
                  f"on about {plan.n_train_public} rows", file=sys.stderr, flush=True)
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_and_score)(
                self._make_run(plan, i), X_train, y_train, X_val, y_val, run_params,
                plan.scorer, plan.low, plan.high, plan.noise_std,
                derived_generator(plan.seeds[i, 1]),
            )
            for i in range(len(plan.picks))
        )
        if self.verbose:
            print(f"{name}: done in {time.perf_counter() - start:.1f} s (the time grows with "
                  "the number of runs: do not publish it)", file=sys.stderr, flush=True)
        for i, (fitted, _, _) in enumerate(results):
            records = {
                path: getattr(step, "_privacy_spend_record", None)
                for path, step in run_dp_steps(fitted)
            }
            for path, planned in plan.spends[plan.picks[i]]:
                record = records.get(path)
                if record is None or record.event != planned.event or (
                    record.epsilon > planned.epsilon * (1 + 1e-9)
                ):  # pragma: no cover - a fit must spend what its plan said
                    raise RuntimeError(
                        f"{name}: run {i}'s step '{path}' spent {record!r}, not its plan "
                        f"{planned!r}; please report."
                    )
        return results

    def _release(self, plan, results, dp, y, n_samples):
        """Keep the best run alone, and state the search's guarantee and caveats."""
        sums = np.array([released for _, released, _ in results])
        best = int(np.argmax(sums))  # one validation part for all runs: the best mean too
        # The released run alone: the others, and their number, stay secret (class Notes).
        self.best_index_ = 0
        self.best_estimator_ = results[best][0]
        # Its generator, left where its noise ended, would go wherever the model goes (a
        # pickle): PCG64 can be stepped back to the start of the fit, and the noise replayed
        # and removed. The released model keeps None, the value that refits from fresh
        # operating-system entropy.
        source = describe_generator(self.random_state)
        for step in dp_objects(self.best_estimator_):  # every step's noise, and templates
            step.set_params(random_state=None)
            report = getattr(step, "privacy_report_", None)
            if report is not None:  # it drew from a generator the search derived from its own
                report["generator"] = f"{source}; this run's own generator was keyed from it"
            # a refit of the released model is the user's own fit, outside the search
            step.__dict__.pop(IN_PRIVATE_SEARCH, None)
        self.best_params_ = dict(plan.support[plan.picks[best]])
        # The noisy sum shown as a mean over the expected (public) number of validation rows;
        # dividing by the realised number would publish it.
        center = 0.5 * (plan.low + plan.high)
        self.best_score_noisy_ = float(center + sums[best] / plan.n_val_public)
        self.best_score_ = float(np.clip(self.best_score_noisy_, plan.low, plan.high))
        self.per_run_epsilon_ = float(plan.eps_run)
        self.score_noise_ = float(plan.noise_std / plan.n_val_public)
        self.cv_results_ = self._results(self.best_params_, self.best_score_)
        if getattr(dp_step(self.best_estimator_), "classes", None) is not None:
            self.classes_ = self.best_estimator_.classes_  # declared: no label is read
        elif hasattr(self.best_estimator_, "classes_"):
            # Read from the labels, as each run did (their caveat says so); the released
            # model saw only its training part, which may lack a rare class.
            self.classes_ = np.unique(np.concatenate([
                np.unique(np.asarray(y)), self.best_estimator_.classes_
            ]))
        if hasattr(self.best_estimator_, "n_features_in_"):
            self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        # n_plan: the delta check's caveat names the number it compares with, and the exact
        # number of rows is private unless declared public.
        self._finish_private_fit(
            plan.spend, self._report(plan, dp), plan.count.n_plan,
            self._caveats(plan, results[best][2]),
        )

    def _caveats(self, plan, released_run_caveats):
        """The search's caveats, from public information only: never from the other runs.

        Those of the whole candidate space (:func:`._candidates.space_caveats`: whether a
        candidate ran, and how many runs there were, plays no part), then any caveat the
        released run stated that the space did not (a kind the parameter rules do not know,
        or the same kind in other words): it is public already, in
        ``best_estimator_.privacy_report_``, and its candidate is ``best_params_``. The
        other runs' caveats are not read: a caveat stated only when some candidate ran
        would tell which ran, and so something about their secret number.
        """
        caveats = space_caveats(self.estimator, plan.support, getattr(self, "classes_", None))
        if callable(self.scoring):
            caveats.append(score_vouched(self.scoring, self._score_spec()[1:]))
        return caveats + [c for c in released_run_caveats if c not in caveats]

    def _report(self, plan, dp):
        dist = self._distribution()
        dist = (
            "Poisson" if dist == "poisson"
            else f"truncated negative binomial (eta={dist:g}, Papernot-Steinke Thm 2)"
        )
        return {
            "mechanism": (
                f"private hyperparameter search: a secret {dist} number of runs (mean "
                f"{self.mean_candidates:g}), each training "
                f"{type(dp).__name__} at epsilon={plan.eps_run:.4g} on the training part and "
                "releasing the sum of its validation scores with Gaussian noise; only the "
                "best run is released"
            ),
            "accountant": (
                "RDP: each run is the larger of its training and scoring curves (disjoint "
                "parts), then the tuning theorem, then Canonne-Kamath-Steinke conversion"
                + ("" if plan.count.public else
                   "; plus the noisy count of the rows by basic composition")
            ),
            "split": (
                f"each row to validation independently with probability "
                f"{self._renamed_params()[1]:g}; the realised sizes of the parts are "
                "private (neither shown nor used)"
            ),
            **count_report(plan.count),
            "epsilon_split": self._split_report(plan),
            "runs_epsilon": float(plan.total),
            "per_run_epsilon": float(plan.eps_run),
            "run_steps": self._steps_report(),
            "planned_training_rows": plan.n_train_public,
            "expected_validation_rows": float(plan.n_val_public),
            "score_range": f"[{plan.low:g}, {plan.high:g}] (each validation row's term, " + (
                f"{plan.scorer.name} computed row by row and clipped to it)"
                if isinstance(plan.scorer, RowTerms) else "vouched for by the callable scorer)"
            ),
            "score_noise_std": self.score_noise_,
            "score_sensitivity": float(0.5 * (plan.high - plan.low) / plan.n_val_public),
            "best_score_noisy": self.best_score_noisy_,
            "reference": (
                "Papernot and Steinke, Hyperparameter tuning with Renyi DP (ICLR 2022), "
                "Theorems 2 and 6; Liu and Talwar, Private selection from private "
                "candidates (STOC 2019)"
            ),
        }

    def _split_report(self, plan):
        count = plan.count
        runs = (
            f"the runs and their selection {plan.total:.4g} (runs_epsilon, calibrated on "
            f"{plan.n_train_public} planned training rows)"
        )
        if count.public:
            return f"{runs}; the number of rows treated as public, nothing spent on it"
        return (
            f"the noisy count of the rows {count.epsilon:.4g}, {runs} within the rest "
            f"{self.epsilon - count.epsilon:.4g}; epsilon_ adds the count to that rest, not "
            "to this plan's calibrated value: the plan was chosen by the count, and the "
            "guarantee must hold for every plan it could choose (basic composition, Dwork, "
            "Rothblum and Vadhan 2010, Theorem III.3)"
        )

    def _steps_report(self):
        paths = [path for path, _ in run_dp_steps(self.estimator)]
        if len(paths) == 1:
            return f"one DP step, {paths[0]}, with the whole per-run budget"
        return (
            f"DP steps {', '.join(paths)}, fitted on the same training part: each run's "
            "budget split as make_private_pipeline splits one (the private preprocessing "
            "steps that spend share 20 %), the run's Renyi-DP curve the sum of the steps' "
            "planned curves"
        )

    @staticmethod
    def _results(params, score):
        """cv_results_ of the released run alone, in scikit-learn's layout."""
        results = {"params": [params]}
        for key in sorted(params):
            column = np.empty(1, dtype=object)
            column[0] = params[key]
            results[f"param_{key}"] = np.ma.MaskedArray(column, mask=False)
        results["mean_test_score"] = np.array([score])
        results["rank_test_score"] = np.array([1], dtype=np.int32)
        return results

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.regressor_tags = sub.regressor_tags
        tags.input_tags.sparse = sub.input_tags.sparse
        tags.input_tags.pairwise = sub.input_tags.pairwise
        return tags


