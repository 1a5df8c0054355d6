"""Every fitted estimator survives pickle and joblib with the same predictions and privacy."""

import io
import pickle

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from tests.test_common import CHECKED, ESTIMATORS, _quick_instance

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

X, y = load_breast_cancer(return_X_y=True)
X = MinMaxScaler().fit_transform(X)  # a test: in a release, scale with public bounds
_ORDER = np.random.default_rng(0).permutation(len(y))
X, y = X[_ORDER], y[_ORDER]
X_fit, y_fit, X_new = X[:400], y[:400], X[400:]

PRIVACY_ATTRIBUTES = ("epsilon_", "delta_", "epsilon_sanitized_")
# Computed from the private votes, so it stays on the machine that fitted (tested below).
STAYS_BEHIND = "epsilon_data_dependent_"


def _fitted(name, cls, teacher=None, random_state=0):
    est = _quick_instance(cls, random_state=random_state)
    if name == "PATEClassifier":
        from sklearn.tree import DecisionTreeClassifier

        teacher = DecisionTreeClassifier(max_depth=3) if teacher is None else teacher
        est.set_params(teacher=teacher, n_teachers=10, n_queries=50, noise_scale=2.0,
                       epsilon=None)
        return est.fit(X_fit[:300], y_fit[:300], X_public=X_fit[300:])
    if name == "GEMSCombiner":
        return est.fit(X_fit, y_fit, groups=np.arange(len(y_fit)) % 2)
    target = y_fit if "Classifier" in name or hasattr(est, "predict_proba") else y_fit * 1.0
    return est.fit(X_fit, target)


FITTABLE = [(n, c) for n, c in ESTIMATORS if (n, c) in CHECKED or n in ("PATEClassifier",
                                                                       "GEMSCombiner")]
# Predictors; the transformers of skprivate.preprocessing: tests/preprocessing/test_hostile.py.
FITTABLE = [(n, c) for n, c in FITTABLE if hasattr(c, "predict")]


@pytest.mark.parametrize("name, cls", FITTABLE)
def test_pickle_and_joblib_keep_predictions_and_privacy(name, cls):
    est = _fitted(name, cls)
    buffer = io.BytesIO()
    joblib.dump(est, buffer)
    buffer.seek(0)
    for copy in (pickle.loads(pickle.dumps(est)), joblib.load(buffer)):
        np.testing.assert_array_equal(copy.predict(X_new), est.predict(X_new))
        for attribute in PRIVACY_ATTRIBUTES:
            if hasattr(est, attribute):
                assert getattr(copy, attribute) == getattr(est, attribute), attribute
        if hasattr(est, "privacy_report_"):
            kept = {k: v for k, v in est.privacy_report_.items() if "do not publish" not in k}
            assert dict(copy.privacy_report_) == kept
        assert not hasattr(copy, STAYS_BEHIND)


def test_a_pickled_pate_classifier_holds_no_private_row_and_no_private_number():
    from sklearn.neighbors import KNeighborsClassifier

    # Nearest-neighbour teachers store their rows: a kept teacher would put them in the file.
    est = _fitted("PATEClassifier", dict(ESTIMATORS)["PATEClassifier"],
                  teacher=KNeighborsClassifier(n_neighbors=3))
    blob = pickle.dumps(est)
    private = X_fit[:300]
    # no private row's bytes (as float64, as validated) appear in the pickle
    assert not any(np.ascontiguousarray(row).tobytes() in blob for row in private)
    # ... while the public points the nearest-neighbour student learnt from do: the check
    # can see rows
    public = sum(np.ascontiguousarray(row).tobytes() in blob for row in X_fit[300:])
    assert public == est.n_answered_ > 0
    # the data-dependent epsilon reads the private votes: in memory, not in the file
    assert np.float64(est.epsilon_data_dependent_).tobytes() not in blob
    assert "do not publish" not in str(pickle.loads(blob).privacy_report_)
    assert hasattr(est, STAYS_BEHIND) and "do not publish" in str(est.privacy_report_)


@pytest.mark.parametrize("name, cls", FITTABLE)
def test_a_saved_model_carries_no_generator_of_its_noise(name, cls):
    # NumPy's generators can be stepped back: one left where the noise ended, inside the
    # file, would let whoever loads it replay the noise (torch's likewise).
    blob = pickle.dumps(_fitted(name, cls, random_state=None))
    assert b"PCG64" not in blob and b"numpy.random" not in blob
    assert b"torch._C.Generator" not in blob and b"get_state" not in blob
