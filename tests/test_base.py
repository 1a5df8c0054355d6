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
