"""PATEClassifier on Dask collections: teachers trained where the rows live (issue 20).

For the same seed the Dask fit must give every teacher the rows the in-memory fit gives it
(the partition is a function of the secret key and the row index only), hence the same
votes, the same noisy answers, the same student and the same epsilon_; and it must never
gather the private rows on the driver.
"""

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.tree import DecisionTreeClassifier

from skprivate.pate import PATEClassifier
from skprivate.pate import _partition

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


@pytest.fixture(autouse=True)
def threaded():
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture
def no_gather(monkeypatch):
    """Fail if a Dask array of private rows is converted to NumPy on the driver (what the
    in-memory fit does to a Dask X through validate_data)."""

    def refuse(self, *args, **kwargs):
        raise AssertionError(f"a Dask array of shape {self.shape} was gathered on the driver")

    monkeypatch.setattr(da.Array, "__array__", refuse)


def _spy(monkeypatch):
    """Record the teachers' votes and the noisy answers of every fit."""
    seen = []
    labels, ask = PATEClassifier._teacher_labels, PATEClassifier._ask

    def teacher_labels(self, *args):
        out = labels(self, *args)
        seen.append(("votes", out))
        return out

    def asked(self, *args):
        out = ask(self, *args)
        seen.append(("answers", out))
        return out

    monkeypatch.setattr(PATEClassifier, "_teacher_labels", teacher_labels)
    monkeypatch.setattr(PATEClassifier, "_ask", asked)
    return seen


def _assert_same_fit(mem, dsk, X_test):
    for name in ("epsilon_", "delta_", "n_teachers_", "n_queries_", "n_answered_",
                 "noise_scale_", "n_features_in_", "epsilon_data_dependent_"):
        assert getattr(dsk, name) == getattr(mem, name), name
    np.testing.assert_array_equal(dsk.classes_, mem.classes_)
    np.testing.assert_array_equal(dsk.predict_proba(X_test), mem.predict_proba(X_test))


@pytest.mark.parametrize(
    "data, params, chunks",
    [
        # binary, "auto" teachers (30 for 400 rows), chunks aligned with nothing
        ("cancer", dict(epsilon=2.0), 97),
        # multiclass, fixed teachers, Confident-GNMax, columns split over chunks
        ("wine", dict(n_teachers=6, aggregator="confident_gnmax", epsilon=None,
                      noise_scale=2.0, n_queries=30), (40, 7)),
    ],
)
def test_dask_array_fit_equals_in_memory_fit(monkeypatch, no_gather, data, params, chunks):
    X, y = (load_breast_cancer if data == "cancer" else load_wine)(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    X, y = X[idx], y[idx]
    n = 400 if data == "cancer" else 120
    X_priv, y_priv, X_pub, X_test = X[:n], y[:n], X[n:n + 40], X[n + 40:]

    def make():
        return PATEClassifier(DecisionTreeClassifier(max_depth=4), random_state=0, **params)

    seen = _spy(monkeypatch)
    mem = make().fit(X_priv, y_priv, X_public=X_pub)
    dsk = make().fit(da.from_array(X_priv, chunks=chunks), da.from_array(y_priv, chunks=97),
                     X_public=X_pub)
    (_, votes_mem), (_, answers_mem), (_, votes_dsk), (_, answers_dsk) = seen
    np.testing.assert_array_equal(votes_dsk, votes_mem)  # the same teachers' votes
    for a, b in zip(answers_dsk, answers_mem):  # the same queries and noisy answers
        np.testing.assert_array_equal(a, b)
    _assert_same_fit(mem, dsk, X_test)
    assert (votes_mem >= 0).all()  # every teacher got rows and voted


def test_dask_dataframe_fit_equals_in_memory_fit(no_gather):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    X_priv, y_priv, X_pub, X_test = X[:400], y[:400], X[400:450], X[450:]
    make = lambda: PATEClassifier(DecisionTreeClassifier(max_depth=4), epsilon=2.0,  # noqa: E731
                                  classes=[0, 1], random_state=1)
    mem = make().fit(X_priv, y_priv, X_public=X_pub)
    dsk = make().fit(dd.from_pandas(X_priv, npartitions=3),
                     dd.from_pandas(pd.Series(y_priv), npartitions=3), X_public=X_pub)
    _assert_same_fit(mem, dsk, X_test)
    np.testing.assert_array_equal(dsk.feature_names_in_, X.columns)
    assert dsk.score(X_test, y[450:]) == mem.score(X_test, y[450:])


def test_dask_fit_on_a_distributed_client():
    distributed = pytest.importorskip("distributed")
    X, y = load_breast_cancer(return_X_y=True)
    make = lambda: PATEClassifier(DecisionTreeClassifier(max_depth=3), n_teachers=8,  # noqa: E731
                                  epsilon=None, noise_scale=3.0, n_queries=40,
                                  random_state=0)
    mem = make().fit(X[:300], y[:300], X_public=X[300:400])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        dsk = make().fit(da.from_array(X[:300], chunks=70), y[:300], X_public=X[300:400])
    _assert_same_fit(mem, dsk, X[400:])


def test_partition_does_not_depend_on_the_chunking(monkeypatch):
    # Small blocks, so that cuts fall inside and across block boundaries.
    monkeypatch.setattr(_partition, "PARTITION_BLOCK", 64)
    key = np.array([3, 9], dtype=np.uint64)
    whole = _partition.teacher_owners(key, 7, 0, 500)
    for cuts in ([0, 1, 63, 64, 65, 200, 499, 500], [0, 128, 192, 500], [0, 500]):
        pieces = [_partition.teacher_owners(key, 7, a, b) for a, b in zip(cuts, cuts[1:])]
        np.testing.assert_array_equal(np.concatenate(pieces), whole)
    assert _partition.teacher_owners(key, 7, 10, 10).size == 0


def test_partition_is_uniform_and_independent():
    # Each row's teacher is uniform and independent of its neighbour's (Monte Carlo over
    # 400,000 rows, one key; fixed, so the test is deterministic): chi-square tests at 1e-3.
    key = np.array([12345, 678], dtype=np.uint64)
    owners = _partition.teacher_owners(key, 10, 0, 400_000)
    assert stats.chisquare(np.bincount(owners, minlength=10)).pvalue > 1e-3
    pairs = np.bincount(owners[:-1] * 10 + owners[1:], minlength=100)
    assert stats.chisquare(pairs).pvalue > 1e-3
    other = _partition.teacher_owners(np.array([12346, 678], dtype=np.uint64), 10, 0, 1000)
    assert (other != owners[:1000]).mean() > 0.8  # another key, another partition


def test_dask_fit_refuses_what_it_cannot_do():
    X, y = load_breast_cancer(return_X_y=True)
    Xd = da.from_array(X[:300], chunks=100)
    clf = PATEClassifier(n_teachers=5, epsilon=2.0, random_state=0)
    with pytest.raises(TypeError, match="groups"):
        clf.fit(Xd, y[:300], X_public=X[300:], groups=np.arange(300) % 5)
    with pytest.raises(ValueError, match="X_public"):
        clf.fit(Xd, np.where(np.arange(300) < 250, y[:300], -1))
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        clf.fit(Xd[Xd[:, 0] > 0], y[:300], X_public=X[300:])
    with pytest.raises(ValueError, match="n_teachers=200"):
        PATEClassifier(n_teachers=200).fit(Xd, y[:300], X_public=X[300:])
