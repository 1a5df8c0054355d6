import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from skprivate import DPLSSGDClassifier
from skprivate.accounting import BudgetAccountant
from skprivate.plotting import PrivacyBudgetDisplay, PrivacyUtilityDisplay

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

X, y = load_breast_cancer(return_X_y=True)
X = MinMaxScaler().fit_transform(X)  # a test: in a release, scale with public bounds
X_train, y_train, X_test, y_test = X[:400], y[:400], X[400:], y[400:]


def test_privacy_utility_from_estimator_scores_rise_with_epsilon_and_are_drawn():
    budget = BudgetAccountant()
    est = DPLSSGDClassifier(accountant=budget)
    display = PrivacyUtilityDisplay.from_estimator(
        est, X_train, y_train, X_test, y_test, epsilons=[0.05, 4.0], n_repeats=3,
        baseline=LogisticRegression(), random_state=0,
    )
    assert display.scores.shape == (2, 3)
    assert display.scores[1].mean() > display.scores[0].mean()
    assert display.scores[1].mean() > 0.85
    assert 0.9 < display.baseline_score <= 1
    assert len(budget.spends) == 6  # every fit spent, and was recorded
    assert display.ax_.get_xscale() == "log"
    assert display.line_.get_ydata().tolist() == pytest.approx(display.scores.mean(axis=1))
    assert display.band_ is not None and display.baseline_line_ is not None
    assert display.score_name == "accuracy" and display.name == "DPLSSGDClassifier"


def test_privacy_utility_with_a_pipeline_and_a_scorer():
    pipe = make_pipeline(MinMaxScaler(), DPLSSGDClassifier())
    display = PrivacyUtilityDisplay.from_estimator(
        pipe, X_train, y_train, X_test, y_test, epsilons=[1.0], n_repeats=1,
        scoring="balanced_accuracy", random_state=0,
    )
    assert display.scores.shape == (1, 1) and display.band_ is None
    assert display.score_name == "balanced_accuracy"


def test_privacy_utility_refuses_an_estimator_without_epsilon():
    with pytest.raises(TypeError, match="has no epsilon parameter"):
        PrivacyUtilityDisplay.from_estimator(LogisticRegression(), X_train, y_train, X_test,
                                             y_test, plot=False)
    with pytest.raises(ValueError, match="epsilons must be"):
        PrivacyUtilityDisplay.from_estimator(DPLSSGDClassifier(), X_train, y_train, X_test,
                                             y_test, epsilons=[0.0, 1.0], plot=False)


def test_from_results_sorts_and_checks_shapes():
    display = PrivacyUtilityDisplay.from_results([2, 1], [0.9, 0.8], plot=False)
    assert display.epsilons.tolist() == [1, 2] and display.scores[:, 0].tolist() == [0.8, 0.9]
    with pytest.raises(ValueError, match="one row per epsilon"):
        PrivacyUtilityDisplay.from_results([1, 2, 3], [0.8, 0.9])


def test_budget_display_shows_each_spend_and_the_rest():
    budget = BudgetAccountant(epsilon=2.0, delta=1e-4)
    for _ in range(2):
        # n public: the spends keep their events (a noisy count's fit is added, basic)
        DPLSSGDClassifier(epsilon=0.5, delta=1e-5, accountant=budget,
                          n_samples_public=True).fit(X_train, y_train)
    display = PrivacyBudgetDisplay.from_accountant(budget)
    assert display.labels == ["DPLSSGDClassifier", "DPLSSGDClassifier"]
    assert display.epsilons.sum() == pytest.approx(1.0, rel=0.02)
    # RDP composition of two DP-SGD runs costs less than the sum
    assert display.total_epsilon < display.epsilons.sum()
    assert display.remaining_epsilon == pytest.approx(2.0 - display.total_epsilon)
    assert len(display.bars_) == 3
    with pytest.raises(TypeError, match="BudgetAccountant"):
        PrivacyBudgetDisplay.from_accountant({"epsilon": 1})


def test_budget_display_from_a_pipeline_names_each_step_and_the_leak():
    from sklearn.preprocessing import StandardScaler as SkStandardScaler

    from skprivate.exceptions import PrivacyLeakWarning
    from skprivate.preprocessing import StandardScaler, make_private_pipeline

    private = make_private_pipeline(StandardScaler(bounds=(0, 1)),
                                    DPLSSGDClassifier(classes=[0, 1]),
                                    epsilon=1.0).fit(X_train, y_train)
    display = PrivacyBudgetDisplay.from_estimator(private, budget_epsilon=2.0)
    assert display.labels == ["standardscaler", "dplssgdclassifier"]
    assert display.leaks == [] and display.epsilons.sum() == pytest.approx(1.0, abs=0.02)
    leaky = make_pipeline(SkStandardScaler(), DPLSSGDClassifier(classes=[0, 1]))
    leaky.fit(X_train, y_train)
    with pytest.warns(PrivacyLeakWarning, match="'standardscaler'"):
        display = PrivacyBudgetDisplay.from_estimator(leaky)
    assert display.leaks == ["standardscaler"]
    assert "not covered" in display.ax_.get_title()
    assert [t.get_text() for t in display.ax_.get_yticklabels()][-1] == (
        "standardscaler (not covered)")


def test_privacy_utility_x_axis_is_the_total_of_a_private_pipeline():
    from skprivate.accounting import BudgetAccountant
    from skprivate.exceptions import PrivacyLeakWarning
    from skprivate.preprocessing import StandardScaler, make_private_pipeline

    budget = BudgetAccountant()
    pipe = make_private_pipeline(StandardScaler(bounds=(0, 1)),
                                 DPLSSGDClassifier(classes=[0, 1]),
                                 epsilon=1.0, accountant=budget)
    display = PrivacyUtilityDisplay.from_estimator(
        pipe, X_train, y_train, X_test, y_test, epsilons=[2.0], n_repeats=1, random_state=0,
    )
    assert [s.label for s in budget.spends] == ["StandardScaler", "DPLSSGDClassifier"]
    assert budget.spends[0].epsilon == pytest.approx(0.4)  # 20 % of the total 2
    assert sum(s.epsilon for s in budget.spends) == pytest.approx(2.0, abs=0.02)
    assert display.leaks == []
    with pytest.warns(PrivacyLeakWarning, match="'minmaxscaler'"):
        display = PrivacyUtilityDisplay.from_estimator(
            make_pipeline(MinMaxScaler(), DPLSSGDClassifier()), X_train, y_train, X_test,
            y_test, epsilons=[1.0], n_repeats=1, random_state=0,
        )
    assert "minmaxscaler" in display.ax_.get_xlabel()


def test_displays_show_a_private_step_whose_bounds_were_read_as_not_covered():
    """Finding 4: a private scaler left at bounds=None reads its range from the rows; the
    displays drew it as a covered step with its epsilon."""
    from skprivate.exceptions import PrivacyLeakWarning
    from skprivate.preprocessing import StandardScaler, make_private_pipeline

    pipe = make_private_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1]),
                                 epsilon=1.0).fit(X_train, y_train)
    with pytest.warns(PrivacyLeakWarning, match="'standardscaler'"):
        display = PrivacyBudgetDisplay.from_estimator(pipe)
    assert display.leaks == ["standardscaler"]
    assert "standardscaler (not covered)" in [t.get_text() for t in display.ax_.get_yticklabels()]
    with pytest.warns(PrivacyLeakWarning, match="'standardscaler'"):
        display = PrivacyUtilityDisplay.from_estimator(
            pipe, X_train, y_train, X_test, y_test, epsilons=[1.0], n_repeats=1,
            random_state=0, plot=False,
        )
    assert display.leaks == ["standardscaler"]
