import warnings

import numpy as np
import pytest

from skprivate.base import PrivacyReport
from skprivate.exceptions import PrivacyLeakWarning
from tests._doubles import NoisyMeanRegressor

rng = np.random.default_rng(1)
X = rng.normal(size=(100, 2))
y = rng.uniform(size=100)


def _privacy_warnings(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    return [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]


def test_no_warning_with_os_seeded_noise():
    assert _privacy_warnings(NoisyMeanRegressor(), X, y) == []


def test_one_warning_listing_every_caveat():
    # delta = 0.02 >= 1/100 and a fixed seed: both reasons, in one warning.
    caught = _privacy_warnings(NoisyMeanRegressor(delta=0.02, random_state=3), X, y)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "random_state=3" in message and "protects no" in message
    report = NoisyMeanRegressor(delta=0.02, random_state=3).fit(X, y).privacy_report_
    assert len(report["caveats"]) == 2


def test_a_generator_given_as_random_state_is_said_to_travel_with_the_model():
    generator = np.random.default_rng()  # OS-seeded, but kept by the fitted estimator
    est = NoisyMeanRegressor(random_state=generator)
    (caught,) = _privacy_warnings(est, X, y)
    assert "keeps the generator" in str(caught.message)
    assert est.random_state is generator  # what a pickle of the model would carry
    (caught,) = _privacy_warnings(NoisyMeanRegressor(random_state=3), X, y)
    assert "keeps the generator" not in str(caught.message)  # an int: the seed itself


def test_privacy_report_renders_as_text_and_html():
    est = NoisyMeanRegressor().fit(X, y)
    report = est.privacy_report_
    assert report["epsilon"] == est.epsilon_ and report["delta"] == est.delta_
    assert report["neighbouring"] == "add/remove one row"
    text = str(report)
    assert "epsilon" in text and "sampled Gaussian" in text
    page = report._repr_html_()
    assert page.startswith("<table") and "<th" in page and "sampled Gaussian" in page
    assert "&lt;b&gt;" in PrivacyReport(note="<b>")._repr_html_()  # escaped


def test_same_seed_same_noise_and_fresh_noise_without_seed():
    a = NoisyMeanRegressor(random_state=5)
    b = NoisyMeanRegressor(random_state=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert a.fit(X, y).mean_ == b.fit(X, y).mean_
    draws = {NoisyMeanRegressor().fit(X, y).mean_ for _ in range(5)}
    assert len(draws) == 5


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=float("inf")), "epsilon"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(accountant="budget"), "accountant"),
        (dict(random_state="seed"), "random_state"),
    ],
)
def test_privacy_parameters_are_validated_with_their_name(params, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter"):
        NoisyMeanRegressor(**params).fit(X, y)


# --- the caveat vocabulary ------------------------------------------------------------------


def test_a_caveat_is_its_sentence_with_a_stable_code():
    import copy
    import pickle

    from skprivate import _caveats

    caveat = _caveats.seed_fixed(3)
    assert isinstance(caveat, str) and caveat.code == "seed_fixed"
    assert caveat == str(caveat) and "; ".join([caveat, caveat]).count("random_state=3") == 2
    for again in (pickle.loads(pickle.dumps(caveat)), copy.deepcopy(caveat)):
        assert again == caveat and again.code == "seed_fixed"
    with pytest.raises(ValueError, match="Unknown caveat code"):
        _caveats.Caveat("made_up", "text")
    # The sentence may hold "; " (the delta caveat does): programs read codes, not text.
    delta = _caveats.delta_protects_no_one(0.02, 100)
    assert "; " in delta and _caveats.caveat_codes([delta]) == ["delta_protects_no_one"]


def test_reports_carry_codes_and_refuse_caveats_from_outside_the_vocabulary():
    est = NoisyMeanRegressor(delta=0.02, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        report = est.fit(X, y).privacy_report_
    assert report.caveat_codes == ["seed_fixed", "delta_protects_no_one"]
    assert report["caveats"][0].startswith("random_state=3 fixes the noise")

    class Sloppy(NoisyMeanRegressor):
        def fit(self, X, y):
            self._finish_private_fit(self._privacy_plan(len(X)), {}, len(X), ["a plain str"])

    with pytest.raises(TypeError, match="skprivate._caveats"):
        Sloppy().fit(X, y)


def test_every_caveat_any_estimator_emits_comes_from_the_vocabulary():
    # Fitted with a fixed seed, delta >= 1/n and (for classifiers) classes read from y: each
    # estimator's report holds only vocabulary caveats, and the report states its scope.
    from sklearn.base import is_classifier

    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import MinMaxScaler
    from sklearn.tree import DecisionTreeClassifier

    from skprivate._caveats import CAVEAT_KINDS, Caveat
    from skprivate.pate import PATEClassifier
    from tests.test_common import PRIVATE, _quick_instance

    rows, labels = load_breast_cancer(return_X_y=True)
    rows = MinMaxScaler().fit_transform(rows)  # a test: in a release, use public bounds
    every = dict(PRIVATE) | {"PATEClassifier": PATEClassifier}
    for name, cls in every.items():
        if name == "PATEClassifier":
            est = PATEClassifier(DecisionTreeClassifier(max_depth=2), n_teachers=10,
                                 n_queries=30, random_state=0, delta=0.01)
            extra = {"X_public": rows[400:]}
        else:
            est = _quick_instance(cls, random_state=0).set_params(delta=0.01)  # 0.01 >= 1/200
            extra = {}
        target = labels[:200] if is_classifier(est) else labels[:200] * 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(rows[:200], target, **extra)
        report = est.privacy_report_
        assert report["scope"].startswith("this fit only"), name
        caveats = report["caveats"]
        assert caveats and all(isinstance(c, Caveat) for c in caveats), (name, caveats)
        assert set(report.caveat_codes) <= set(CAVEAT_KINDS), name
        assert "seed_fixed" in report.caveat_codes, name
        if is_classifier(est) and not name.startswith("Private"):
            assert "labels_from_data" in report.caveat_codes, name


# --- classes= : the label set declared, not read from the data -----------------------------


def _classifiers():
    from sklearn.tree import DecisionTreeClassifier

    from skprivate.dropout import DPDropoutClassifier
    from skprivate.linear_model import DPLSSGDClassifier
    from skprivate.pate import PATEClassifier

    return {
        "DPLSSGDClassifier": lambda **kw: DPLSSGDClassifier(**kw),
        "DPDropoutClassifier": lambda **kw: DPDropoutClassifier(bounds=(-4, 4), **kw),
        "PATEClassifier": lambda **kw: PATEClassifier(
            DecisionTreeClassifier(max_depth=2), n_teachers=10, n_queries=30, **kw
        ),
    }


def _labelled(n=400):
    rows = np.random.default_rng(0).normal(size=(n, 3))
    labels = np.where(rows[:, 0] > 0, "yes", "no")
    return rows, labels


def _fit_classifier(name, est, rows, labels):
    extra = {"X_public": rows[:100]} if name == "PATEClassifier" else {}
    return est.fit(rows, labels, **extra)


@pytest.mark.parametrize("name", ["DPLSSGDClassifier", "DPDropoutClassifier", "PATEClassifier"])
def test_classes_read_from_y_are_a_caveat_and_declared_classes_are_not(name):
    make = _classifiers()[name]
    rows, labels = _labelled()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = _fit_classifier(name, make(), rows, labels)
    leaks = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    assert len(leaks) == 1 and "classes=None" in str(leaks[0].message)
    assert est.privacy_report_.caveat_codes == ["labels_from_data"]
    # Declared: silent, and a class absent from y is kept (the label set is public).
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est = _fit_classifier(name, make(classes=["yes", "no", "maybe"]), rows, labels)
    assert est.privacy_report_["caveats"] == []
    assert list(est.classes_) == ["maybe", "no", "yes"]
    assert set(est.predict(rows[:50])) <= {"maybe", "no", "yes"}


@pytest.mark.parametrize("name", ["DPLSSGDClassifier", "DPDropoutClassifier", "PATEClassifier"])
def test_a_label_outside_the_declared_classes_is_an_error_naming_classes(name):
    rows, labels = _labelled()
    with pytest.raises(ValueError, match=r"y holds labels \['yes'\].*classes=\['no'"):
        _fit_classifier(name, _classifiers()[name](classes=["no", "other"]), rows, labels)
    with pytest.raises(ValueError, match="classes"):
        _fit_classifier(name, _classifiers()[name](classes=["no"]), rows, labels)


def test_a_refused_reservation_leaves_no_record_that_a_later_finish_could_take_as_paid():
    from skprivate.accounting import BudgetAccountant
    from skprivate.exceptions import BudgetExceededError

    accountant = BudgetAccountant(epsilon=0.5, delta=1e-3)
    est = NoisyMeanRegressor(epsilon=1.0, accountant=accountant)
    with pytest.raises(BudgetExceededError):
        est._begin_private_fit(np.zeros((10, 2)))
    assert "_reserved_spend" not in est.__dict__
    assert accountant.total() == (0.0, 0.0)
