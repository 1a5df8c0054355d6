"""The private searches' releases, checked against exact Renyi divergences (issue 15, items 1, 4,
5 and 8): nothing a run releases may have a noise scale or a sampling rate that depends on the
realised sizes of the random training and validation parts."""

import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.datasets import load_breast_cancer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, StandardScaler

from skprivate import _caveats
from tests._doubles import NoisyMajorityClassifier
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.model_selection import PrivateGridSearchCV, PrivateRandomSearchCV
from skprivate.model_selection import _runs as _search  # one run of a search
from skprivate.model_selection import _tuning_accounting as ta

DELTA = 1e-5
ACCURACY = _search.RowTerms("accuracy", _search.PER_ROW_TERMS["accuracy"])


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y  # a test: in a release, scale with public bounds


def _quiet_fit(search, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return search.fit(X, y)


def gaussian_renyi(mu1, s1, mu2, s2, order):
    """D_order(N(mu1, s1^2) || N(mu2, s2^2)), closed form (Gil, Alajaji and Linder 2013).

    Infinite where ``order * s2^2 + (1 - order) * s1^2 <= 0``.
    """
    order = np.asarray(order, dtype=float)
    var = order * s2**2 + (1 - order) * s1**2
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (
            np.log(s2 / s1)
            + np.log(s2**2 / var) / (2 * (order - 1))
            + order * (mu1 - mu2) ** 2 / (2 * var)
        )
    return np.where(var > 0, out, np.inf)


def test_the_closed_form_matches_numerical_integration():
    # second method: D = log(int p^a q^(1-a)) / (a - 1) by quadrature
    for mu1, s1, mu2, s2, a in [(0.0, 1.0, 0.3, 1.2, 3.0), (0.5, 0.04, 0.49, 0.041, 7.0)]:
        p, q = stats.norm(mu1, s1), stats.norm(mu2, s2)

        def f(x):
            return np.exp(a * p.logpdf(x) + (1 - a) * q.logpdf(x))

        lo, hi = min(mu1, mu2) - 12 * max(s1, s2), max(mu1, mu2) + 12 * max(s1, s2)
        value, _ = integrate.quad(f, lo, hi, limit=200, points=[mu1, mu2])
        assert gaussian_renyi(mu1, s1, mu2, s2, a) == pytest.approx(
            np.log(value) / (a - 1), rel=1e-6
        )


def _old_score_curve(z, n_val):
    """Exact RDP of the old release (mean accuracy + N(0, (z / n_val)^2)) over neighbours
    that differ in one validation row, worst case over the other rows and both directions."""
    curve = np.zeros(ta.ORDERS.size)
    for k in range(n_val + 1):  # correct predictions among the other rows
        for t in (0, 1):  # the added row's term
            m1, s1 = k / n_val, z / n_val
            m2, s2 = (k + t) / (n_val + 1), z / (n_val + 1)
            curve = np.maximum(curve, gaussian_renyi(m1, s1, m2, s2, ta.ORDERS))
            curve = np.maximum(curve, gaussian_renyi(m2, s2, m1, s1, ta.ORDERS))
    return curve


@pytest.mark.parametrize("n_val, expected", [(100, 1.1889), (300, 1.0613)])
def test_the_old_score_release_spent_more_than_it_charged(n_val, expected):
    # per-run budget 1: the charge is lambda / (2 z^2), epsilon 1.00 at delta 1e-5
    z = ta.gaussian_noise_multiplier(1.0, DELTA)
    charged = ta.gaussian_rdp(z)
    assert ta.rdp_to_epsilon(charged, DELTA) == pytest.approx(1.0, abs=1e-3)
    true = _old_score_curve(z, n_val)
    assert np.all(true >= charged * (1 - 1e-12))  # never below the charge ...
    assert np.any(true > charged * 1.01)  # ... above it, and infinite at high orders
    assert np.isinf(true[-1])
    assert ta.rdp_to_epsilon(true, DELTA) == pytest.approx(expected, abs=1e-3)
    if n_val == 100:  # the whole search's score term (geometric, mean 10): 2.13 charged
        zero = np.zeros(ta.ORDERS.size)
        assert ta.tuning_epsilon([zero], charged, 1.0, 10, DELTA) == pytest.approx(2.129, abs=1e-3)
        assert ta.tuning_epsilon([zero], true, 1.0, 10, DELTA) == pytest.approx(2.438, abs=1e-3)


def test_the_released_score_is_within_its_charge_at_every_order(cancer):
    X, y = cancer
    search = _quiet_fit(PrivateGridSearchCV(
        DPLSSGDClassifier(classes=[0, 1], max_iter=2), {}, epsilon=1.0,
        n_candidates_distribution="geometric", mean_candidates=3, random_state=0,
    ), X, y)
    report = search.privacy_report_
    z = search.score_noise_ / report["score_sensitivity"]
    # the noise on the released sum, fixed before the split from public numbers
    noise_std = search.score_noise_ * report["expected_validation_rows"]
    assert noise_std == pytest.approx(z * 0.5)
    charged = ta.gaussian_rdp(z)
    model = search.best_estimator_
    pred = model.predict(X)
    right, wrong = np.flatnonzero(pred == y), np.flatnonzero(pred != y)
    # neighbouring validation parts: the same rows, with or without one more row (right or
    # wrong), at several sizes; the released statistic is computed by the search's own code
    for n_val in (5, 40, 100):
        val = np.concatenate([right[: n_val // 2], wrong[: n_val - n_val // 2]])
        base = _search._released_score(model, X[val], y[val], ACCURACY, 0.0, 1.0)
        for extra in (right[-1], wrong[-1]):
            more = np.append(val, extra)
            other = _search._released_score(model, X[more], y[more], ACCURACY, 0.0, 1.0)
            assert abs(other - base) <= 0.5 + 1e-9
            for a, b in ((base, other), (other, base)):
                exact = gaussian_renyi(a, noise_std, b, noise_std, ta.ORDERS)
                assert np.all(exact <= charged * (1 + 1e-9))


def test_noise_scale_and_run_plans_do_not_depend_on_the_split(cancer):
    X, y = cancer
    seen = set()
    for seed in range(4):
        search = _quiet_fit(PrivateRandomSearchCV(
            DPLSSGDClassifier(classes=[0, 1]), {"batch_size": [64], "max_iter": [2]},
            epsilon=1.0, n_candidates_distribution="geometric", mean_candidates=2, random_state=seed,
            n_samples_public=True,  # the split alone varies (the count: test_search_row_count)
        ), X, y)
        model = search.best_estimator_
        n_public = search.privacy_report_["planned_training_rows"]
        assert n_public == round(0.8 * len(y))
        assert model.sample_rate_ == 64 / n_public
        seen.add((search.score_noise_, search.per_run_epsilon_, model.sample_rate_,
                  model.noise_multiplier_, model.n_steps_))
        # the public size served the search's fit only: a refit plans on its own rows
        assert not hasattr(model, "_public_n_samples")
        assert "n_train" not in search.privacy_report_
        assert "n_validation" not in search.privacy_report_
    assert len(seen) == 1  # four different splits, one noise scale and one plan


_PureDPClassifier = NoisyMajorityClassifier


def test_caveats_come_from_the_runs_reports_whole(cancer):
    X, y = cancer
    # a caveat whose sentence contains "; " stays one item
    caveat = _caveats.bounds_from_data(["bounds"], "bounds=(0, 1); or scale first")

    class _WithCaveat(_PureDPClassifier):
        pass

    _WithCaveat.caveat = caveat
    search = _quiet_fit(PrivateGridSearchCV(
        _WithCaveat(), {}, epsilon=1.0, delta=0.01, n_candidates_distribution="geometric",
        mean_candidates=2, n_samples_public=True,
    ), X, y)
    caveats = search.privacy_report_["caveats"]
    assert caveats.count(caveat) == 1
    # delta >= 1/n: stated once, whole, from the public n (the runs' own delta caveat named
    # the realised size of their training part, which is private)
    assert caveats.count(_caveats.delta_protects_no_one(0.01, len(y))) == 1
    assert sorted(_caveats.caveat_codes(caveats)) == ["bounds_from_data", "delta_protects_no_one"]
    assert search.best_estimator_.privacy_report_["caveats"] == [caveat]


def test_a_plan_that_depends_on_the_number_of_rows_is_refused(cancer):
    X, y = cancer

    class _PerRow(_PureDPClassifier):
        def _privacy_plan(self, n_samples):
            return self._privacy_spend(self.epsilon * min(1.0, 100 / n_samples), 0.0)

    search = PrivateGridSearchCV(_PerRow(), {}, n_candidates_distribution="geometric", mean_candidates=2)
    with pytest.raises(TypeError, match="depends on the number of rows"):
        search.fit(X, y)


def test_best_score_is_shown_clipped_and_kept_noisy(cancer):
    X, y = cancer
    outside = 0
    for seed in range(6):
        search = _quiet_fit(PrivateGridSearchCV(
            _PureDPClassifier(), {}, epsilon=1.0, n_candidates_distribution="geometric",
            mean_candidates=3, score_epsilon=0.02, random_state=seed,  # a loud score
        ), X, y)
        noisy = search.best_score_noisy_
        assert search.best_score_ == min(max(noisy, 0.0), 1.0)
        assert search.privacy_report_["best_score_noisy"] == noisy
        assert search.cv_results_["mean_test_score"].tolist() == [search.best_score_]
        outside += not 0.0 <= noisy <= 1.0
    assert outside > 0  # the clipping was exercised


def test_a_pipeline_step_that_learns_from_the_rows_is_named_once(cancer):
    X, y = cancer
    space = {"dplssgdclassifier__learning_rate": [1.0]}
    leaky = make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1], max_iter=2))
    search = PrivateGridSearchCV(leaky, space, n_candidates_distribution="geometric", mean_candidates=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    privacy = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(privacy) == 1 and "standardscaler" in str(privacy[0].message)
    [caveat] = search.privacy_report_["caveats"]
    assert caveat.code == "preprocessing_learned"
    assert "StandardScaler" in caveat and "make_bounded_preprocessor" in caveat
    # a step with fixed parameters learns nothing: silent
    quiet = make_pipeline(FunctionTransformer(), DPLSSGDClassifier(classes=[0, 1], max_iter=2))
    search = PrivateGridSearchCV(quiet, space, n_candidates_distribution="geometric", mean_candidates=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    assert not [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert search.privacy_report_["caveats"] == []


def test_the_caveats_do_not_depend_on_which_or_how_many_runs_happened(cancer, monkeypatch):
    # classes=None reads the labels (a caveat), declared classes do not: a union over the
    # runs that happened stated the caveat only when a classes=None candidate ran, which told
    # something about the secret number of runs. The caveats now come from the whole space.
    from skprivate.model_selection import _search_base

    X, y = cancer
    ran = []  # the candidates each fit ran (the test may see them; a user may not)
    fit_and_score = _search_base._fit_and_score

    def spy(estimator, *args):
        ran[-1].append(estimator.classes is None)
        return fit_and_score(estimator, *args)

    monkeypatch.setattr(_search_base, "_fit_and_score", spy)
    lists = []
    for seed in range(8):
        ran.append([])
        search = _quiet_fit(PrivateGridSearchCV(
            DPLSSGDClassifier(max_iter=2), {"classes": [None, [0, 1]]}, epsilon=2.0,
            n_candidates_distribution="geometric", mean_candidates=2, random_state=seed,
        ), X, y)
        caveats = search.privacy_report_["caveats"]
        lists.append([c for c in caveats if c.code != "seed_fixed"])  # names the seed
    # the draws differed: some fits ran no classes=None candidate, others did, and the
    # numbers of runs differed
    assert {any(r) for r in ran} == {True, False}
    assert len({len(r) for r in ran}) > 1
    assert all(caveats == lists[0] for caveats in lists)
    assert _caveats.caveat_codes(lists[0]) == ["labels_from_data"]


def test_a_space_caveat_is_stated_even_when_its_candidate_never_ran(cancer):
    X, y = cancer
    # one candidate in a thousand reads the labels: it almost never runs, yet the search's
    # guarantee covers it, so its caveat is stated from the space, without running it
    space = [{"learning_rate": [1.0] * 999}, {"classes": [None], "learning_rate": [1.0]}]
    search = _quiet_fit(PrivateGridSearchCV(
        DPLSSGDClassifier(max_iter=2, classes=[0, 1]), space, epsilon=2.0,
        n_candidates_distribution="geometric", mean_candidates=2, random_state=0,
    ), X, y)
    assert search.best_params_ == {"learning_rate": 1.0}
    assert "labels_from_data" in search.privacy_report_.caveat_codes


@pytest.mark.parametrize("scoring", ["f1", "roc_auc", "balanced_accuracy", "r2", "precision"])
def test_a_scorer_that_is_not_a_per_row_mean_is_refused(cancer, scoring):
    # One row moves an F1 or an AUC by far more than half the range of one row's term: the
    # noise calibrated for a per-row mean would not cover it (before: accepted silently).
    X, y = cancer
    search = PrivateRandomSearchCV(
        DPLSSGDClassifier(classes=[0, 1]), {"learning_rate": ["auto"]}, scoring=scoring,
        score_range=(0, 1), random_state=0,
    )
    with pytest.raises(ValueError, match=rf"scoring='{scoring}' is not a mean of one term"):
        _quiet_fit(search, X, y)
    assert not hasattr(search, "epsilon_")


def test_a_callable_scorer_is_taken_on_trust_and_says_so(cancer):
    X, y = cancer

    def accuracy(estimator, X, y):
        return float(np.mean(estimator.predict(X) == y))

    search = PrivateRandomSearchCV(
        DPLSSGDClassifier(classes=[0, 1]), {"learning_rate": ["auto"]}, scoring=accuracy,
        score_range=(0, 1), mean_candidates=2, n_candidates_distribution="geometric", random_state=0,
    )
    _quiet_fit(search, X, y)
    codes = search.privacy_report_.caveat_codes
    assert "score_vouched" in codes
    vouched = search.privacy_report_["caveats"][codes.index("score_vouched")]
    assert vouched.startswith("scoring=accuracy is a callable")
    assert "score_range=(0.0, 1.0)" in vouched


def test_space_caveats_name_every_bound_a_candidate_reads_from_the_rows():
    # The search states the caveats of its candidates' parameters with the same rules as
    # accounting.leaking_steps: a target bound left None (bounds_y of the AdaSSP regression,
    # y_bound of the dropout regressor) is read from the rows, and so are the categories of
    # CategoricalNB with min_categories=None. (A copy of those rules that only knew
    # data_norm and bounds once left these out of the search's report.)
    from skprivate.dropout import DPDropoutRegressor
    from skprivate.linear_model import LinearRegression
    from skprivate.model_selection._candidates import space_caveats
    from skprivate.naive_bayes import CategoricalNB

    cases = [
        (LinearRegression(bounds_X=(0, 1), bounds_y=None), [{}], "bounds_y"),
        (DPDropoutRegressor(y_bound=None), [{}], "y_bound"),
        (CategoricalNB(min_categories=None), [{}], "min_categories"),
    ]
    for estimator, support, name in cases:
        caveats = space_caveats(estimator, support, None)
        said = [c for c in caveats if _caveats.caveat_codes([c]) == ["bounds_from_data"]]
        assert any(name in str(c) and "were read" in str(c) for c in said), (name, caveats)
    # a classifier search states the label set it read, in the past tense
    caveats = space_caveats(DPLSSGDClassifier(), [{}], np.array([0, 1]))
    assert "labels_from_data" in _caveats.caveat_codes(caveats)


def test_planned_caveats_name_x_and_y_bounds_both_read_from_the_rows():
    # bounds=None and bounds_y=None on the AdaSSP regression: both ranges are read from the
    # rows, and the caveats decided from the parameters say so for each. The boosting
    # regressor releases its features' range privately: only bounds_y is read.
    from skprivate.accounting._leaks import parameter_caveats
    from skprivate.ensemble import HistGradientBoostingRegressor
    from skprivate.linear_model import LinearRegression

    caveats = parameter_caveats(LinearRegression(bounds_X=None, bounds_y=None))
    text = " ".join(str(c) for c in caveats)
    assert "bounds_X" in text and "bounds_y" in text, caveats
    caveats = parameter_caveats(HistGradientBoostingRegressor(bounds=None, bounds_y=None))
    text = " ".join(str(c) for c in caveats)
    assert "bounds_y was None" in text and "bounds was None" not in text, caveats
