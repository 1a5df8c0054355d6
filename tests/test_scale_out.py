"""Work spread over a real dask cluster (worker processes) gives the results of n_jobs=1."""


import numpy as np
import pytest
from joblib import parallel_config
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from skprivate.pate import PATEClassifier

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")


@pytest.fixture(scope="module")
def cluster_client(local_cluster):
    return local_cluster


def test_pate_teachers_on_dask_workers_match_a_single_process(cluster_client):
    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]

    def fit(n_jobs):
        return PATEClassifier(DecisionTreeClassifier(max_depth=3), n_teachers=12, n_queries=60,
                              noise_scale=2.0, epsilon=None, release_data_dependent=True,
                              n_jobs=n_jobs, random_state=0
                              ).fit(X[:400], y[:400], X_public=X[400:480])

    local = fit(1)
    with distributed.get_task_stream(cluster_client) as tasks:
        with parallel_config(backend="dask"):
            spread = fit(2)
    ran_on = {task["worker"] for task in tasks.data}
    assert len(tasks.data) > 0 and len(ran_on) == 2  # the teachers ran on both workers
    np.testing.assert_array_equal(local.predict(X[480:]), spread.predict(X[480:]))
    assert local.epsilon_ == spread.epsilon_
    assert local.epsilon_data_dependent_ == spread.epsilon_data_dependent_
    assert local.epsilon_sanitized_ == spread.epsilon_sanitized_


def test_gems_parties_on_dask_workers_match_a_single_process(cluster_client):
    from skprivate.gems import GEMSCombiner

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))  # a test: public bounds in use
    groups = np.arange(len(y)) % 3

    def fit(n_jobs):
        return GEMSCombiner(n_jobs=n_jobs, random_state=0).fit(X, y, groups)

    local = fit(1)
    with distributed.get_task_stream(cluster_client) as tasks:
        with parallel_config(backend="dask"):
            spread = fit(2)
    assert len(tasks.data) > 0  # the parties' work ran on the cluster
    np.testing.assert_array_equal(local.coef_, spread.coef_)
    np.testing.assert_array_equal(local.radii_, spread.radii_)
    assert local.epsilon_ == spread.epsilon_
