"""Private hyperparameter search: a random number of DP runs, noisy validation, best one released.

The privacy argument (which theorem, why a run's cost is the larger of its training and
scoring costs) is stated in ``_tuning_accounting``, next to the code that computes it.
"""

import itertools
import math
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context, clone, is_classifier
from sklearn.metrics import accuracy_score, check_scoring
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils._tags import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, indexable

from ..base import DPEstimatorMixin, _n_rows
from ..exceptions import InfeasiblePrivacyError, PrivacyLeakWarning
from ..mechanisms import check_rng, gaussian_noise
from . import _tuning_accounting as ta

__all__ = ["PrivateGridSearchCV", "PrivateRandomSearchCV"]

_DISTRIBUTIONS = {"poisson": "poisson", "geometric": 1.0, "logarithmic": 0.0}
_MAX_SUPPORT = 10_000  # candidates whose privacy plans are computed at each calibration step
_PRIVACY_PARAMS = ("epsilon", "delta", "accountant", "random_state")


# --- the DP estimator inside a (possibly nested) Pipeline -----------------------------------
def _dp_step(estimator):
    """The one differentially private estimator in ``estimator`` (itself or the last step)."""
    if hasattr(estimator, "_privacy_plan"):
        return estimator
    steps = getattr(estimator, "steps", None)
    if steps:
        others = [name for name, step in steps[:-1] if _contains_dp(step)]
        last = _dp_step(steps[-1][1]) if steps[-1][1] not in (None, "passthrough") else None
        if others or last is None:
            where = others or ["none of them"]
            raise TypeError(
                f"The Pipeline's differentially private estimator must be its last step, and "
                f"the only one; DP steps found before the last: {', '.join(where)}. Put the "
                "DP estimator last (preprocessing with public parameters before it), or tune "
                "each DP step separately."
            )
        return last
    raise TypeError(
        f"{type(estimator).__name__} is not a differentially private estimator (it has no "
        "privacy plan), so tuning it on private data has no privacy guarantee to compute. "
        "Pass a skprivate DP estimator (for example DPLSSGDClassifier), or a Pipeline whose "
        "last step is one."
    )


def _contains_dp(step):
    if hasattr(step, "_privacy_plan"):
        return True
    return any(_contains_dp(s) for _, s in getattr(step, "steps", None) or [])


def _plan_curve(spend, name):
    """RDP curve of a planned spend: its event, or pure DP; approximate DP is refused."""
    if spend.event is not None:
        return ta.event_rdp(spend.event)
    if spend.delta == 0:
        return ta.pure_dp_rdp(spend.epsilon)
    raise TypeError(
        f"{name}'s privacy plan states only (epsilon={spend.epsilon:.4g}, "
        f"delta={spend.delta:.3g}), without a Renyi-DP curve (a dp_accounting event). The "
        "tuning theorems this search uses (Papernot and Steinke 2022, Theorems 2 and 6) need "
        "the Renyi-DP curve of one run; the approximate-DP route (Liu and Talwar 2019) is "
        "not implemented, because its bound is far weaker and its constants could not be "
        "checked here. Tune an estimator whose plan has an event (DP-LSSGD linear models "
        "and nets), or spend part of your budget on a fixed choice of hyperparameters."
    )


def _is_per_row(value, n_samples):
    try:
        return not np.isscalar(value) and len(value) == n_samples
    except TypeError:
        return False


def _caveats_of(caught):
    """Caveats of the runs' PrivacyLeakWarnings, except the seeded-generator one (ours)."""
    caveats = []
    for w in caught:
        if not issubclass(w.category, PrivacyLeakWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        text = str(w.message)
        _, _, tail = text.partition("weaker than stated: ")
        caveats += _without_seed_caveat(item for item in tail.rstrip(".").split("; ") if item)
    return caveats


def _without_seed_caveat(caveats):
    # A run's noise comes from a generator the search derived from its own random_state;
    # the search states that caveat itself, once.
    return [c for c in caveats if not c.startswith("random_state=")]


def _fit_and_score(estimator, X_train, y_train, X_val, y_val, fit_params, scorer, sigma, rng):
    """One run: fit on the training part, score on the validation part, add Gaussian noise."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        if y_train is None:
            estimator.fit(X_train, **fit_params)
        else:
            estimator.fit(X_train, y_train, **fit_params)
    score = float(scorer(estimator, X_val, y_val))
    noisy = score + float(gaussian_noise(sigma, random_state=rng))
    return estimator, noisy, _caveats_of(caught)


def _accuracy(estimator, X, y):
    return accuracy_score(y, estimator.predict(X))


# --- the search ------------------------------------------------------------------------------
class _BasePrivateSearch(DPEstimatorMixin, MetaEstimatorMixin, BaseEstimator):
    """What the private random and grid searches share."""

    _parameter_constraints = {
        **DPEstimatorMixin._dp_parameter_constraints,
        "estimator": [HasMethods(["fit"])],
        "n_candidates": [
            StrOptions(set(_DISTRIBUTIONS)),
            Interval(Real, -1, None, closed="neither"),
        ],
        "mean_candidates": [Interval(Real, 1, None, closed="left")],
        "scoring": [str, callable, None],
        "score_range": [Interval(Real, 0, None, closed="neither"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "score_epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    # --- parameters --------------------------------------------------------------------
    def _distribution(self):
        value = self.n_candidates
        return _DISTRIBUTIONS[value] if isinstance(value, str) else float(value)

    def _support(self):
        """Every candidate a run can draw, with its probability (public, data-independent)."""
        raise NotImplementedError

    def _check_params(self):
        name = type(self).__name__
        dp = _dp_step(self.estimator)
        if dp.accountant is not None:
            raise ValueError(
                f"{name}: the estimator {type(dp).__name__} has its own accountant; the search "
                "spends the budget once for all its runs. Pass accountant= to the search and "
                "leave the estimator's accountant=None."
            )
        support, probs = self._support()
        if not support:
            raise ValueError(
                f"{name}: the search space is empty; give at least one value for each "
                "parameter."
            )
        if len(support) > _MAX_SUPPORT:
            raise ValueError(
                f"{name}: the search space has {len(support)} candidates, more than "
                f"{_MAX_SUPPORT}; the privacy plan of every candidate is checked, so use "
                "fewer values."
            )
        touched = sorted(
            {k for params in support for k in params if k.rsplit("__", 1)[-1] in _PRIVACY_PARAMS}
        )
        if touched:
            raise ValueError(
                f"{name}: the search space sets {touched}; the privacy parameters (epsilon, "
                "delta, accountant, random_state) belong to the search, which calibrates "
                "them for every run. Remove them from the space."
            )
        for params in support:  # unknown names fail here, before any data is read
            clone(self.estimator).set_params(**params)
        return dp, support, probs

    def _scorer_and_sensitivity(self, n_val):
        name = type(self).__name__
        bounded = self.scoring in (None, "accuracy") and is_classifier(self.estimator)
        # A mean over n_val rows of terms within a range of width w moves by at most
        # w / (n_val + 1) <= w / n_val when one validation row is added or removed.
        if self.score_range is not None:
            sensitivity = float(self.score_range) / n_val
        elif bounded:
            sensitivity = 1.0 / n_val  # accuracy: terms in {0, 1}
        else:
            raise ValueError(
                f"{name}: scoring={self.scoring!r} on a "
                f"{'classifier' if is_classifier(self.estimator) else 'non-classifier'} is "
                "not known to be bounded, so the noise for the validation score cannot be "
                "calibrated. Use scoring='accuracy' with a classifier, or a scorer that is a "
                "mean over the validation rows of bounded terms, and pass score_range= (the "
                "width of the interval holding every row's term: 1 for accuracy, 2 * B for "
                "the absolute error of predictions clipped to, and targets within, [-B, B]); "
                "you vouch for that bound."
            )
        if self.scoring is None and is_classifier(self.estimator):
            scorer = _accuracy
        else:
            scorer = check_scoring(self.estimator, scoring=self.scoring)
        return scorer, sensitivity

    # --- calibration (public numbers only) ------------------------------------------------
    def _candidate_spends(self, support, eps_run, n_train):
        spends = []
        for params in support:
            est = clone(self.estimator).set_params(**params)
            dp = _dp_step(est)
            dp.set_params(epsilon=eps_run, delta=self.delta, accountant=None)
            spends.append(dp._privacy_plan(n_train))
        return spends

    def _total(self, support, eps_run, n_train, cache):
        """Whole-search epsilon if every run trains with ``eps_run`` (inf if infeasible)."""
        try:
            spends = self._candidate_spends(support, eps_run, n_train)
        except InfeasiblePrivacyError:
            return math.inf, None, None
        name = type(_dp_step(self.estimator)).__name__
        curves = []
        for spend in spends:
            key = (spend.epsilon, spend.delta, spend.event)
            if key not in cache:
                cache[key] = _plan_curve(spend, name)
            curves.append(cache[key])
        if self.score_epsilon is not None:
            z = self._fixed_score_z
        else:
            z = ta.gaussian_noise_multiplier(eps_run, self.delta)
        total = ta.tuning_epsilon(
            curves, ta.gaussian_rdp(z), self._distribution(), self.mean_candidates, self.delta
        )
        return total, z, spends

    def _calibrate(self, support, n_train, rtol=0.02):
        """Largest per-run epsilon whose whole search stays within ``epsilon`` (to rtol)."""
        if self.n_candidates != "poisson" and self.mean_candidates <= 1:
            # gamma = 1: the truncated negative binomial is then one run for sure
            raise ValueError(
                f"{type(self).__name__}: mean_candidates={self.mean_candidates!r} with "
                f"n_candidates={self.n_candidates!r} means exactly one run, with no choice to "
                "make: fit the estimator itself, or use mean_candidates > 1."
            )
        target = float(self.epsilon)
        if self.score_epsilon is not None:
            self._fixed_score_z = ta.gaussian_noise_multiplier(self.score_epsilon, self.delta)
        cache, results = {}, {}

        def f(eps_run):
            results[eps_run] = self._total(support, eps_run, n_train, cache)
            return results[eps_run][0]

        def answer(eps_run):
            total, z, spends = results[eps_run]
            return eps_run, total, z, spends

        # The selection alone (runs that cost nothing) already costs this much.
        zero = np.zeros(ta.ORDERS.size)
        floor = ta.tuning_epsilon([zero], zero, self._distribution(), self.mean_candidates,
                                  self.delta)
        if floor >= target:
            raise self._too_small(n_train, floor)
        # bracket: lo feasible (total <= target), hi infeasible
        x = target / 3.0
        if f(x) <= target:
            lo, hi = x, None
            while hi is None:
                x = min(2 * x, target)
                if f(x) > target:
                    hi = x
                else:
                    lo = x
                    if x >= target:  # a run can never cost more than the whole search
                        return answer(x)
        else:
            hi, lo = x, None
            while lo is None:
                x /= 2
                if x < target * 1e-3:
                    raise self._too_small(n_train, floor)
                if f(x) <= target:
                    lo = x
                else:
                    hi = x
        # Illinois false position on log(total) against log(eps_run).
        goal = math.log(target * (1 - rtol / 2))

        def g(v):
            total = results[v][0]
            return math.log(total) - goal if math.isfinite(total) else 50.0

        g_lo, g_hi, side = g(lo), g(hi), 0
        for _ in range(30):
            if (1 - rtol) * target <= results[lo][0] or hi / lo - 1 < 1e-6:
                break
            a, b = math.log(lo), math.log(hi)
            x_new = b - g_hi * (b - a) / (g_hi - g_lo) if g_hi != g_lo else 0.5 * (a + b)
            if not a < x_new < b:
                x_new = 0.5 * (a + b)
            x = math.exp(x_new)
            if f(x) <= target:
                lo, g_lo = x, g(x)
                if side == 1:
                    g_hi /= 2
                side = 1
            else:
                hi, g_hi = x, g(x)
                if side == -1:
                    g_lo /= 2
                side = -1
        return answer(lo)

    def _too_small(self, n_train, floor):
        return InfeasiblePrivacyError(
            f"{type(self).__name__}: epsilon={self.epsilon!r} (delta={self.delta!r}) is too "
            "small to train even one candidate. Releasing the best of a random number of "
            f"runs (n_candidates={self.n_candidates!r}, mean_candidates="
            f"{self.mean_candidates!r}) costs epsilon {floor:.3g} even for runs that spend "
            "nothing, and the estimator must train within what is left (on "
            f"{n_train} training rows; a fixed noise_multiplier spends what it spends). "
            "Raise epsilon, lower mean_candidates, or use more rows."
        )

    # --- fit -------------------------------------------------------------------------------
    def _privacy_plan(self, n_samples):
        # Whatever the split and the candidates, the search never spends more than this.
        return self._privacy_spend(self.epsilon, self.delta)

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None, **fit_params):
        """Run the private search and keep the best run's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows, scaled with public bounds as the estimator requires.
        y : array-like of shape (n_samples,), default=None
            Targets.
        **fit_params : dict
            Passed to every run's ``fit``. Values with one entry per row (such as
            ``sample_weight``) are split with the rows; others (such as PATE's
            ``X_public``) are passed as given.

        Returns
        -------
        self : object
            The fitted search.
        """
        name = type(self).__name__
        dp, support, probs = self._check_params()
        # Lengths and container types only: sparse matrices become CSR, lists arrays.
        X, y = indexable(X, y)
        n_samples = _n_rows(X)
        if n_samples is None or n_samples < 2:
            raise ValueError(
                f"{name}: found n_samples={n_samples}; the search needs at least 2 rows "
                "(a training part and a validation part)."
            )
        # Everything below until the runs is drawn from public numbers (n_samples, the
        # parameters) and the search's generator; no value of X or y is read.
        rng = check_rng(self.random_state)
        is_val = rng.random(n_samples) < self.validation_fraction
        n_val = int(is_val.sum())
        n_train = n_samples - n_val
        if n_val == 0 or n_train == 0:
            raise ValueError(
                f"{name}: the random split of {n_samples} rows with validation_fraction="
                f"{self.validation_fraction!r} left {n_train} training and {n_val} validation "
                "rows; both parts need rows. Use more rows or a validation_fraction nearer "
                "0.5."
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
        seeds = rng.integers(0, 2**63 - 1, size=(n_runs, 2, 4), dtype=np.int64)
        scorer, sensitivity = self._scorer_and_sensitivity(n_val)
        eps_run, total, z, spends = self._calibrate(support, n_train)
        if total > self.epsilon * (1 + 1e-12):  # pragma: no cover - _calibrate guarantees it
            raise RuntimeError(f"{name}: calibration overshot the budget; please report.")
        spend = self._privacy_spend(total, self.delta)
        self._reserved_spend = spend
        if self.accountant is not None:
            self.accountant.spend(spend)  # raises BudgetExceededError before any data is read

        train_idx, val_idx = np.flatnonzero(~is_val), np.flatnonzero(is_val)
        X_train, X_val = _safe_indexing(X, train_idx), _safe_indexing(X, val_idx)
        y_train = None if y is None else _safe_indexing(y, train_idx)
        y_val = None if y is None else _safe_indexing(y, val_idx)
        run_params = {
            k: (_safe_indexing(v, train_idx) if _is_per_row(v, n_samples) else v)
            for k, v in fit_params.items()
        }
        sigma = z * sensitivity
        runs = []
        for i in range(n_runs):
            est = clone(self.estimator).set_params(**support[picks[i]])
            _dp_step(est).set_params(
                epsilon=eps_run,
                delta=self.delta,
                accountant=None,
                random_state=np.random.default_rng(seeds[i, 0]),
            )
            # A run's progress output would count the runs, which must stay secret.
            loud = {k: False for k, v in est.get_params().items()
                    if k.split("__")[-1] == "verbose" and v}
            est.set_params(**loud)
            runs.append(est)
        start = time.perf_counter()
        if self.verbose:
            print(f"{name}: training a secret number of runs (mean {self.mean_candidates:g}) "
                  f"on {n_train} rows", file=sys.stderr, flush=True)
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_and_score)(
                est, X_train, y_train, X_val, y_val, run_params, scorer, sigma,
                np.random.default_rng(seeds[i, 1]),
            )
            for i, est in enumerate(runs)
        )
        if self.verbose:
            print(f"{name}: done in {time.perf_counter() - start:.1f} s (the time grows with "
                  "the number of runs: do not publish it)", file=sys.stderr, flush=True)
        for i, (fitted, _, _) in enumerate(results):
            record = getattr(_dp_step(fitted), "_privacy_spend_record", None)
            planned = spends[picks[i]]
            if record is None or record.event != planned.event or (
                record.epsilon > planned.epsilon * (1 + 1e-9)
            ):  # pragma: no cover - a fit must spend what its plan said
                raise RuntimeError(
                    f"{name}: run {i} spent {record!r}, not its plan {planned!r}; please report."
                )
        scores = np.array([score for _, score, _ in results])
        best = int(np.argmax(scores))
        # The released run alone: the others, and their number, stay secret (class Notes).
        self.best_index_ = 0
        self.best_estimator_ = results[best][0]
        # Its generator, left where its noise ended, would go wherever the model goes (a
        # pickle): PCG64 can be stepped back to the start of the fit, and the noise replayed
        # and removed. The released model keeps None, the value that refits from fresh
        # operating-system entropy.
        released = _dp_step(self.best_estimator_).set_params(random_state=None)
        report = getattr(released, "privacy_report_", None)
        if report is not None:
            report["caveats"] = _without_seed_caveat(report.get("caveats", []))
        self.best_params_ = dict(support[picks[best]])
        self.best_score_ = float(scores[best])
        self.per_run_epsilon_ = float(eps_run)
        self.score_noise_ = float(sigma)
        self.cv_results_ = self._results(self.best_params_, self.best_score_)
        if hasattr(self.best_estimator_, "classes_"):
            # The set of labels is treated as public (as by every classifier here); the
            # released model saw only its training part, which may lack a rare class.
            self.classes_ = np.unique(np.concatenate([
                np.unique(np.asarray(y)), self.best_estimator_.classes_
            ]))
        if hasattr(self.best_estimator_, "n_features_in_"):
            self.n_features_in_ = self.best_estimator_.n_features_in_
        if hasattr(self.best_estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.best_estimator_.feature_names_in_
        caveats = list(dict.fromkeys(c for _, _, cs in results for c in cs))
        dist = self._distribution()
        dist = (
            "Poisson" if dist == "poisson"
            else f"truncated negative binomial (eta={dist:g}, Papernot-Steinke Thm 2)"
        )
        report = {
            "mechanism": (
                f"private hyperparameter search: a secret {dist} number of runs (mean "
                f"{self.mean_candidates:g}), each training "
                f"{type(dp).__name__} at epsilon={eps_run:.4g} on the training part and "
                "scoring it on the validation part with Gaussian noise; only the best run "
                "is released"
            ),
            "accountant": (
                "RDP: each run is the larger of its training and scoring curves (disjoint "
                "parts), then the tuning theorem, then Canonne-Kamath-Steinke conversion"
            ),
            "per_run_epsilon": float(eps_run),
            "score_noise_std": float(sigma),
            "score_sensitivity": float(sensitivity),
            "n_train": n_train,
            "n_validation": n_val,
            "reference": (
                "Papernot and Steinke, Hyperparameter tuning with Renyi DP (ICLR 2022), "
                "Theorems 2 and 6; Liu and Talwar, Private selection from private "
                "candidates (STOC 2019)"
            ),
        }
        self._finish_private_fit(spend, report, n_samples, caveats)
        return self

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

    # --- delegation to the best run's model ---------------------------------------------------
    def _has(attr):
        def check(self):
            if hasattr(self, "best_estimator_"):
                return hasattr(self.best_estimator_, attr)
            return hasattr(self.estimator, attr)

        return check

    @available_if(_has("predict"))
    def predict(self, X):
        """Predict with the released model ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities from ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self._all_classes(self.best_estimator_.predict_proba(X), 0.0)

    @available_if(_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities from ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self._all_classes(self.best_estimator_.predict_log_proba(X), -np.inf)

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        """Decision function of ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        scores : ndarray
        """
        check_is_fitted(self)
        scores = self.best_estimator_.decision_function(X)
        seen = self.best_estimator_.classes_
        if len(seen) == len(self.classes_) or scores.ndim != 1:
            return self._all_classes(scores, -np.inf) if scores.ndim == 2 else scores
        # a binary model among more classes: +d for its positive class, -d for the other
        return self._all_classes(np.column_stack([-scores, scores]), -np.inf)

    def _all_classes(self, columns, missing):
        """Columns of the released model placed under ``classes_``; ``missing`` elsewhere."""
        seen = self.best_estimator_.classes_
        if len(seen) == len(self.classes_):
            return columns
        full = np.full((columns.shape[0], len(self.classes_)), missing, dtype=np.float64)
        full[:, np.searchsorted(self.classes_, seen)] = columns
        return full

    @available_if(_has("transform"))
    def transform(self, X):
        """Transform with ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input.

        Returns
        -------
        X_new : ndarray
        """
        check_is_fitted(self)
        return self.best_estimator_.transform(X)

    @available_if(_has("score"))
    def score(self, X, y=None):
        """Score of ``best_estimator_`` on ``X`` (its own ``score``; use public test data).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test rows.
        y : array-like of shape (n_samples,), default=None
            Targets.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        return self.best_estimator_.score(X, y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.regressor_tags = sub.regressor_tags
        tags.input_tags.sparse = sub.input_tags.sparse
        tags.input_tags.pairwise = sub.input_tags.pairwise
        return tags


def _check_values(name, key, values):
    if hasattr(values, "rvs"):
        raise TypeError(
            f"{name}: {key!r} is a distribution ({type(values).__name__}). The privacy cost "
            "of a search is bounded over every value a run can draw, so each parameter needs "
            f"a finite list of values; give a list, for example np.geomspace(1e-3, 1, 8)."
        )
    if isinstance(values, str) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(
            f"{name}: the values of {key!r} must be a list or array; got "
            f"{type(values).__name__} {values!r}."
        )
    if len(values) == 0:
        raise ValueError(f"{name}: {key!r} has an empty list of values; give at least one.")
    return list(values)


def _as_dicts(name, space, what):
    dicts = [space] if isinstance(space, Mapping) else space
    if not isinstance(dicts, (list, tuple)) or not all(isinstance(d, Mapping) for d in dicts):
        raise TypeError(f"{name}: {what} must be a dict or a list of dicts; got {space!r}.")
    if len(dicts) == 0:
        raise ValueError(f"{name}: {what} is empty; give at least one candidate.")
    return dicts


def _grid_points(name, grid):
    points = []
    for values in grid:
        keys = sorted(values)
        lists = [_check_values(name, k, values[k]) for k in keys]
        points.extend(dict(zip(keys, combo)) for combo in itertools.product(*lists))
    return points


_COMMON_PARAMS = """epsilon : float, default=1.0
        Privacy budget of the whole search (all runs and the selection), > 0.
    delta : float, default=1e-5
        Delta of the whole search, in (0, 1); use well below ``1 / n_samples``.
    n_candidates : {"poisson", "geometric", "logarithmic"} or float, default="poisson"
        Distribution of the random number of runs. ``"poisson"``: Poisson with mean
        ``mean_candidates`` (Papernot and Steinke 2022, Theorem 6; with probability
        ``exp(-mean_candidates)`` no run is drawn and ``fit`` raises without reading the
        data). ``"geometric"`` (the random stopping of Liu and Talwar 2019),
        ``"logarithmic"``, or a float ``eta > -1``: the truncated negative binomial with
        shape ``eta`` (Papernot and Steinke 2022, Theorem 2; geometric is ``eta = 1``,
        logarithmic ``eta = 0``).
    mean_candidates : float, default=10
        Expected number of runs, >= 1.
    scoring : str, callable or None, default=None
        Validation score, higher is better. ``None`` with a classifier: accuracy, whose
        sensitivity is ``1 / n_validation``. Any other scorer needs ``score_range``.
    score_range : float, default=None
        For a score that is a mean over the validation rows of one term per row: the width
        of the interval that holds every term (1 for accuracy; ``2 * B`` for the absolute
        error of predictions clipped to, and targets within, ``[-B, B]``). The score's
        sensitivity is then ``score_range / n_validation``. Required unless the score is
        accuracy; you vouch for the bound.
    validation_fraction : float, default=0.2
        Probability with which each row is held out for validation (rows are assigned
        independently, so one row is in exactly one part).
    score_epsilon : float, default=None
        Epsilon (at ``delta``) of the Gaussian noise on each run's validation score. ``None``:
        the same per-run epsilon as training, which costs almost nothing extra because a row
        is either in the training or in the validation part.
    accountant : BudgetAccountant, default=None
        Budget shared with other fits: the whole search's ``(epsilon_, delta_)`` is
        reserved before any data is read. The estimator's own accountant must be None.
    n_jobs : int, default=None
        Runs fitted in parallel by joblib. Seeds are drawn before the runs, so results do
        not depend on ``n_jobs``.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the split, the number of runs, the candidates and all noise. ``None``
        (the only choice that keeps the guarantee): seeded from the operating system. An
        int: reproducible, for tests and documentation only (a ``PrivacyLeakWarning`` says
        so).
    verbose : int, default=0
        0 prints nothing; 1 writes a line on stderr when the search starts and when it ends.
        Nothing shows the number of runs: the guarantee keeps it secret (see Notes), so the
        runs are trained with ``verbose=0`` whatever the estimator says."""

_COMMON_ATTRIBUTES = """best_estimator_ : estimator
        The released model: the run with the highest noisy validation score.
    best_params_ : dict
        Its hyperparameters.
    best_score_ : float
        Its noisy validation score (the only score released).
    best_index_ : int
        Its position in ``cv_results_``: 0.
    cv_results_ : dict of arrays
        The released run only, in scikit-learn's layout: ``"params"``,
        ``"param_<name>"``, ``"mean_test_score"`` (its noisy score) and ``"rank_test_score"``,
        one entry each. The other runs, and how many there were, are not released (see
        Notes).
    per_run_epsilon_ : float
        Epsilon (at ``delta``) each run's training was calibrated to.
    score_noise_ : float
        Standard deviation of the Gaussian noise added to each validation score.
    epsilon_ : float
        Epsilon of the whole search, never above ``epsilon``.
    delta_ : float
        Its delta.
    privacy_report_ : PrivacyReport
        Mechanism, budget split, references and caveats.
    classes_ : ndarray of shape (n_classes,)
        Classes of ``best_estimator_`` (classifiers only).
    n_features_in_ : int
        Number of features seen by ``best_estimator_``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` had string column names."""

_NOTES = """Guarantee: the whole search, including the choice of the best run, is
    ``(epsilon_, delta_)``-DP for add/remove-one-row neighbouring datasets (one row of ``X``;
    one person only if each person has one row). Rows are assigned independently to a
    training part (fraction ``1 - validation_fraction``) and a validation part. One run draws
    hyperparameters uniformly at random (independently of the data), trains the estimator
    with per-run epsilon ``per_run_epsilon_`` on the training part and adds Gaussian noise to
    its score on the validation part. A row is in one part only, so a run's Renyi-DP curve
    is, order by order, the larger of the training curve (largest over the candidates) and
    the Gaussian score's curve. The number of runs is random and only the best run is
    released, which costs far less than the sum over runs: Papernot and Steinke [1]_,
    Theorem 6 (Poisson) or Theorem 2 (truncated negative binomial; the geometric case is
    Liu and Talwar's [2]_ random stopping). The per-run epsilon is the largest (to 2 %) for
    which the total, converted from RDP with Canonne, Kamath and Steinke (2020), Prop. 12,
    stays within ``epsilon``.

    Public: the number of rows (as everywhere in skprivate) and the search space. The
    estimator's plan must carry a Renyi-DP curve (a ``dp_accounting`` event) or be pure DP;
    estimators that state only ``(epsilon, delta)`` (PATE, propose-test-release) are
    refused. Only the estimator is private: a preprocessing step fitted on the private rows
    (a ``StandardScaler``, say) is outside the guarantee; scale with public bounds.
    Only the best run is covered by the theorems, and only it is kept: not the other runs'
    scores, nor their hyperparameters, nor their number. The random number of runs is what
    makes the search cheap, and it must stay secret: were it known to be ``k``, the search
    would be the best of ``k`` fixed runs, whose privacy loss can reach ``k`` times a run's
    (for a run that is epsilon-DP, the event "no run succeeds" has probability ratio
    ``e^(k epsilon)``). The wall-clock time of the search grows with the number of runs:
    do not publish it either."""

_REFERENCES = """.. [1] N. Papernot and T. Steinke, "Hyperparameter tuning with Renyi differential
       privacy", ICLR 2022 (arXiv:2110.03620).
    .. [2] J. Liu and K. Talwar, "Private selection from private candidates", STOC 2019.
    .. [3] C. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for differential
       privacy", NeurIPS 2020, Proposition 12."""


class PrivateRandomSearchCV(_BasePrivateSearch):
    """Differentially private random search over the hyperparameters of a DP estimator.

    A random number of runs (Poisson or truncated negative binomial), each drawing
    hyperparameters at random, training the DP estimator on a training part and scoring it
    with noise on a held-out part of the private data; only the best run is released. The
    whole search, selection included, meets the one budget ``(epsilon, delta)``: the search
    calibrates each run's epsilon from it. Read the Notes for the guarantee.

    Parameters
    ----------
    estimator : estimator object
        A skprivate DP estimator (its plan must carry a Renyi-DP curve), or a Pipeline whose
        last step is one. Its ``epsilon``, ``delta`` and ``random_state`` are set by the
        search for every run.
    param_distributions : dict or list of dicts
        Parameter names (as for ``set_params``) mapped to finite lists of values. Each run
        picks a dict uniformly, then each value uniformly. Distributions (objects with
        ``rvs``) are refused: the privacy cost is bounded over every value a run can draw.
    {common}

    Attributes
    ----------
    {attributes}

    See Also
    --------
    PrivateGridSearchCV : The same search, candidates drawn uniformly from a grid.
    skprivate.accounting.total_privacy_cost : The naive total of a non-private search.

    Notes
    -----
    {notes}

    References
    ----------
    {references}

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> from skprivate.model_selection import PrivateRandomSearchCV
    >>> X, y = load_digits(return_X_y=True)
    >>> X = X / 16.0  # pixel values lie in [0, 16]: a public bound
    >>> search = PrivateRandomSearchCV(
    ...     DPLSSGDClassifier(max_iter=5),
    ...     {{"learning_rate": [0.1, 0.3, 1.0], "alpha": [0.0, 1e-3]}},
    ...     epsilon=2.0, mean_candidates=5, random_state=0,
    ... )
    >>> search = search.fit(X, y)
    >>> bool(0.95 * 2.0 <= search.epsilon_ <= 2.0)
    True
    >>> sorted(search.best_params_)
    ['alpha', 'learning_rate']
    """

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "param_distributions": [dict, list],
    }

    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        epsilon=1.0,
        delta=1e-5,
        n_candidates="poisson",
        mean_candidates=10,
        scoring=None,
        score_range=None,
        validation_fraction=0.2,
        score_epsilon=None,
        accountant=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.epsilon = epsilon
        self.delta = delta
        self.n_candidates = n_candidates
        self.mean_candidates = mean_candidates
        self.scoring = scoring
        self.score_range = score_range
        self.validation_fraction = validation_fraction
        self.score_epsilon = score_epsilon
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _support(self):
        name = type(self).__name__
        dicts = _as_dicts(name, self.param_distributions, "param_distributions")
        support, probs = [], []
        for d in dicts:
            points = _grid_points(name, [d])
            # a dict is picked uniformly, then each value uniformly: the point's probability
            # is 1 / (n_dicts * product of list lengths), repeated values adding up.
            support.extend(points)
            probs.extend([1.0 / (len(dicts) * max(len(points), 1))] * len(points))
        probs = np.asarray(probs, dtype=float)
        return support, probs / probs.sum() if len(probs) else probs


class PrivateGridSearchCV(_BasePrivateSearch):
    """Differentially private search over a parameter grid of a DP estimator.

    The grid's points are candidates; each of a random number of runs draws one uniformly,
    trains the DP estimator on a training part and scores it with noise on a held-out part
    of the private data; only the best run is released. A grid is not searched exhaustively:
    exhausting it would cost the sum over the points, while random runs with the best one
    released cost about one run plus a logarithmic term. The whole search meets the one
    budget ``(epsilon, delta)``. Read the Notes for the guarantee.

    Parameters
    ----------
    estimator : estimator object
        A skprivate DP estimator (its plan must carry a Renyi-DP curve), or a Pipeline whose
        last step is one. Its ``epsilon``, ``delta`` and ``random_state`` are set by the
        search for every run.
    param_grid : dict or list of dicts
        As for scikit-learn's ``GridSearchCV``: parameter names mapped to lists of values;
        every point of the grid (of every dict) is drawn with the same probability.
    {common}

    Attributes
    ----------
    {attributes}

    See Also
    --------
    PrivateRandomSearchCV : The same search with values drawn parameter by parameter.

    Notes
    -----
    {notes}

    References
    ----------
    {references}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import MinMaxScaler
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> from skprivate.model_selection import PrivateGridSearchCV
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> # MinMaxScaler fitted here learns bounds from the private rows, outside the
    >>> # guarantee; in a release, scale with public bounds (FunctionTransformer).
    >>> search = PrivateGridSearchCV(
    ...     make_pipeline(MinMaxScaler(clip=True), DPLSSGDClassifier(max_iter=5)),
    ...     {{"dplssgdclassifier__learning_rate": [0.3, 1.0, 3.0]}},
    ...     epsilon=2.0, n_candidates="geometric", mean_candidates=4, random_state=0,
    ... )
    >>> search = search.fit(X, y)
    >>> bool(search.epsilon_ <= 2.0), sorted(search.best_params_)
    (True, ['dplssgdclassifier__learning_rate'])
    >>> bool(search.score(X, y) > 0.75)
    True
    """

    _parameter_constraints = {
        **_BasePrivateSearch._parameter_constraints,
        "param_grid": [dict, list],
    }

    def __init__(
        self,
        estimator,
        param_grid,
        *,
        epsilon=1.0,
        delta=1e-5,
        n_candidates="poisson",
        mean_candidates=10,
        scoring=None,
        score_range=None,
        validation_fraction=0.2,
        score_epsilon=None,
        accountant=None,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.delta = delta
        self.n_candidates = n_candidates
        self.mean_candidates = mean_candidates
        self.scoring = scoring
        self.score_range = score_range
        self.validation_fraction = validation_fraction
        self.score_epsilon = score_epsilon
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _support(self):
        name = type(self).__name__
        points = _grid_points(name, _as_dicts(name, self.param_grid, "param_grid"))
        return points, np.full(len(points), 1.0 / max(len(points), 1))


for _cls in (PrivateRandomSearchCV, PrivateGridSearchCV):
    _cls.__doc__ = _cls.__doc__.format(
        common=_COMMON_PARAMS,
        attributes=_COMMON_ATTRIBUTES,
        notes=_NOTES,
        references=_REFERENCES,
    )
