"""DP-SGD and PATE on a real Dask cluster (worker processes): the fit equals the in-memory
fit, and a worker killed in the middle of the fit changes nothing (issue 20).

A lost worker takes its chunks of the persisted table and its running tasks with it. Dask
recomputes them from the collection's lineage; the chunk task is a pure function of (rows,
sampling key, step, coefficients), so the recomputed sums are the sums the lost worker
would have returned: no row skipped or counted twice, and no noise drawn twice (the driver
draws the noise once per step, after the sum has arrived).
"""

import os
import signal
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from skprivate._dpsgd import _distributed
from skprivate.linear_model import DPLSSGDClassifier

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

PARAMS = dict(batch_size=64, max_iter=3, random_state=0)  # about 27 steps


@pytest.fixture(scope="module")
def client(local_cluster):
    return local_cluster


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def _dask(X, y):
    return da.from_array(X, chunks=(60, 30)), da.from_array(y, chunks=60)


def test_cluster_fit_equals_in_memory_fit(client, data):
    X, y = data
    mem = DPLSSGDClassifier(**PARAMS).fit(X, y)
    with distributed.get_task_stream(client) as tasks:
        dsk = DPLSSGDClassifier(**PARAMS).fit(*_dask(X, y))
    assert len({task["worker"] for task in tasks.data}) == 2  # the chunks ran on both
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dsk.intercept_, mem.intercept_, rtol=1e-9, atol=1e-12)
    assert dsk.epsilon_ == mem.epsilon_


def test_worker_killed_mid_fit_gives_the_undisturbed_result(client, data, monkeypatch):
    X, y = data
    undisturbed = DPLSSGDClassifier(**PARAMS).fit(*_dask(X, y))
    pids = client.run(os.getpid)  # worker address -> process id
    victim_address, victim_pid = sorted(pids.items())[0]
    killed = threading.Event()
    make_step_sum = _distributed.dask_gradient_sum

    def with_a_kill(*args, **kwargs):
        step_sum = make_step_sum(*args, **kwargs)

        def step(t, coef, intercept):
            if t == 10:
                # SIGKILL the worker just after this step's tasks were sent: it loses its
                # chunks of the persisted table and the tasks it was running.
                timer = threading.Timer(0.02, os.kill, (victim_pid, signal.SIGKILL))
                timer.start()
                result = step_sum(t, coef, intercept)
                timer.join()
                killed.set()
                return result
            return step_sum(t, coef, intercept)

        return step

    monkeypatch.setattr(_distributed, "dask_gradient_sum", with_a_kill)
    disturbed = DPLSSGDClassifier(**PARAMS).fit(*_dask(X, y))
    assert killed.is_set()
    assert victim_pid not in client.run(os.getpid).values()  # the worker did die
    np.testing.assert_allclose(disturbed.coef_, undisturbed.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(disturbed.intercept_, undisturbed.intercept_, rtol=1e-12,
                               atol=1e-14)
    assert disturbed.epsilon_ == undisturbed.epsilon_
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it for the next tests


def test_pate_worker_killed_while_teachers_train_gives_the_undisturbed_result(client, data,
                                                                               monkeypatch):
    # PATE's tasks (split a chunk by teacher, pick a piece, train a teacher and predict the
    # public points) are pure functions of (rows, partition key, seeds): a teacher retrained
    # on another worker gives the same votes, so the answers, the student and epsilon_ are
    # those of an undisturbed fit.
    from sklearn.ensemble import RandomForestClassifier

    from skprivate.pate import PATEClassifier, _dask

    X, y = data
    X_priv, y_priv, X_pub, X_test = X[:400], y[:400], X[400:500], X[500:]

    def fit():
        clf = PATEClassifier(RandomForestClassifier(30), n_teachers=20, epsilon=4.0,
                             classes=[0, 1], random_state=0)
        return clf.fit(da.from_array(X_priv, chunks=(100, 30)), da.from_array(y_priv, 100),
                       X_public=X_pub)

    undisturbed = fit()
    pids = client.run(os.getpid)
    victim_address, victim_pid = sorted(pids.items())[0]
    times = {}
    predictions = _dask.dask_teacher_predictions

    def kill_when_a_teacher_trains_on_the_victim():
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline and "returned" not in times:
            running = client.processing().get(victim_address, ())
            if any("pate-teacher" in str(task) for task in running):
                os.kill(victim_pid, signal.SIGKILL)
                times["killed"] = time.perf_counter()
                return
            time.sleep(0.002)

    def with_a_kill(*args, **kwargs):
        watcher = threading.Thread(target=kill_when_a_teacher_trains_on_the_victim)
        watcher.start()
        result = predictions(*args, **kwargs)
        times["returned"] = time.perf_counter()
        watcher.join()
        return result

    monkeypatch.setattr(_dask, "dask_teacher_predictions", with_a_kill)
    disturbed = fit()
    assert times["killed"] < times["returned"]  # killed while a teacher trained on it
    assert victim_pid not in client.run(os.getpid).values()  # the worker did die
    np.testing.assert_array_equal(disturbed.predict_proba(X_test),
                                  undisturbed.predict_proba(X_test))
    assert (disturbed.n_queries_, disturbed.epsilon_) == (undisturbed.n_queries_,
                                                          undisturbed.epsilon_)
    client.wait_for_workers(2, timeout=60)
