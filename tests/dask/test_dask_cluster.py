"""DP-SGD on a real Dask cluster (worker processes): the fit equals the in-memory fit, and a
worker killed in the middle of the fit changes nothing (issue 20).

A lost worker takes its chunks of the persisted table and its running tasks with it. Dask
recomputes them from the collection's lineage; the chunk task is a pure function of (rows,
sampling key, step, coefficients), so the recomputed sums are the sums the lost worker
would have returned: no row skipped or counted twice, and no noise drawn twice (the driver
draws the noise once per step, after the sum has arrived).
"""

import os
import signal
import threading

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
