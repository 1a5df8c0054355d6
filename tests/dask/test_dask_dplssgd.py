"""DPLSSGDClassifier / DPLSSGDRegressor on Dask arrays: the in-memory fit, computed where the
rows live (issue 20).

For the same seed a Dask fit must draw the same batches and the same noise as the in-memory
fit, so its coefficients equal the in-memory ones up to the order in which floats are added,
and it must report the same plan and the same epsilon_.
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skprivate.accounting import BudgetAccountant
from skprivate.linear_model import DPLSSGDClassifier, DPLSSGDRegressor

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

# Few steps (batch 64, 2 epochs: about 20 steps on 569 rows): the tests time a Dask
# round trip per step.
FAST = dict(batch_size=64, max_iter=2, random_state=0)


@pytest.fixture(autouse=True)
def single_threaded():
    # The synchronous scheduler: the cheapest per step; test_threads_and_chunks_... and the
    # cluster tests (test_dask_cluster.py) run the other schedulers.
    with dask.config.set(scheduler="synchronous"):
        yield


def _standardised(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _assert_same_fit(mem, dsk):
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dsk.intercept_, mem.intercept_, rtol=1e-9, atol=1e-12)
    for name in ("epsilon_", "delta_", "noise_multiplier_", "sample_rate_", "n_steps_",
                 "batch_size_", "learning_rate_", "max_grad_norm_", "n_features_in_"):
        assert getattr(dsk, name) == getattr(mem, name), name
    if hasattr(mem, "offset_"):
        np.testing.assert_allclose(dsk.offset_, mem.offset_, rtol=1e-9, atol=1e-12)
        assert dsk.row_scale_ == pytest.approx(mem.row_scale_, rel=1e-12)


@pytest.mark.parametrize(
    "make, data, chunks",
    [
        # binary, private centring and scaling ("auto" clip), chunks not aligned to anything
        (lambda: DPLSSGDClassifier(**FAST), "cancer", (97, 30)),
        # multiclass, a fixed clip, smoothing, columns in two chunks (rechunked to rows)
        (lambda: DPLSSGDClassifier(max_grad_norm=1.0, smoothing=1.0, **FAST), "wine", (50, 7)),
        (lambda: DPLSSGDClassifier(loss="hinge", **FAST), "cancer", (569, 30)),
        # 5 passes: at 2 (14 steps) one seed in 10 has an R2 below 0.05, at 5 none of 40
        (lambda: DPLSSGDRegressor(loss="huber", **{**FAST, "max_iter": 5}), "diabetes",
         (120, 10)),
        # the number of rows read exactly: no count drawn on either side
        (lambda: DPLSSGDClassifier(n_samples_public=True, **FAST), "cancer", (97, 30)),
    ],
)
def test_dask_fit_equals_in_memory_fit(make, data, chunks):
    loader = {"cancer": load_breast_cancer, "wine": load_wine, "diabetes": load_diabetes}[data]
    X, y = loader(return_X_y=True)
    X = _standardised(X)
    if data == "diabetes":
        y = (y - y.mean()) / y.std()
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=chunks), da.from_array(y, chunks=chunks[0]))
    _assert_same_fit(mem, dsk)
    if hasattr(mem, "classes_"):
        np.testing.assert_array_equal(dsk.classes_, mem.classes_)
    np.testing.assert_allclose(dsk.predict(X), mem.predict(X), rtol=1e-9, atol=1e-12)
    assert dsk.score(X, y) > (0.85 if data != "diabetes" else 0.3)  # a real model
    # The same noisy count (the first draw of the same generator) planned both fits
    assert dsk.privacy_report_["number of rows"] == mem.privacy_report_["number of rows"]
    public = "treated as public" in mem.privacy_report_["number of rows"]
    assert public == mem.get_params()["n_samples_public"]
    assert mem.sample_rate_ == 64 / (len(y) if public else _planned_rows(mem))


def _planned_rows(est):
    return int(est.privacy_report_["number of rows"].rsplit(": ", 1)[1])


def test_threads_and_chunks_do_not_change_the_fit():
    X, y = load_breast_cancer(return_X_y=True)
    X = _standardised(X)
    fits = []
    for scheduler, chunks in (("synchronous", 569), ("threads", 41), ("threads", 200)):
        with dask.config.set(scheduler=scheduler):
            fits.append(DPLSSGDClassifier(**FAST).fit(
                da.from_array(X, chunks=(chunks, 30)), da.from_array(y, chunks=chunks)))
    for other in fits[1:]:
        _assert_same_fit(fits[0], other)


def test_accountant_is_charged_the_in_memory_spend():
    X, y = load_breast_cancer(return_X_y=True)
    X = _standardised(X)
    spends = []
    for data in ((X, y), (da.from_array(X, chunks=(100, 30)), da.from_array(y, chunks=100))):
        accountant = BudgetAccountant(epsilon=10.0, delta=1e-4)
        DPLSSGDClassifier(epsilon=1.0, accountant=accountant, **FAST).fit(*data)
        spends.append(accountant.total())
    assert spends[0] == spends[1]


def test_step_sums_without_noise_equal_the_in_memory_sums():
    # The data-dependent part alone (noise off): the chunks' clipped sums, added up, are the
    # in-memory clipped sum of the same batch, step after step, shifted and scaled rows too.
    from skprivate._dpsgd._distributed import dask_gradient_sum
    from skprivate._dpsgd._numpy_loop import memory_gradient_sum, residual_function

    rng = np.random.default_rng(0)
    X = 3.0 * rng.normal(size=(1000, 5)) + 1.0
    y = rng.integers(0, 3, size=1000)
    common = dict(key=np.array([7, 11], dtype=np.uint64), sample_rate=0.2,
                  residual=residual_function("log_loss", 3), max_grad_norm=0.5,
                  fit_intercept=True, scale=0.5, shift=np.full(5, 0.3))
    mem = memory_gradient_sum(X, y, **common)
    dsk = dask_gradient_sum(da.from_array(X, chunks=(137, 5)), da.from_array(y, chunks=137),
                            **common)
    for step in range(5):
        coef, intercept = rng.normal(size=(3, 5)), rng.normal(size=3)
        for got, want in zip(dsk(step, coef, intercept), mem(step, coef, intercept)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        # The sum is a sum over about q n rows, each clipped to 0.5: nothing else travels.
        assert np.linalg.norm(np.append(*mem(step, coef, intercept))) <= 0.5 * 1000


def test_pipeline_of_data_independent_steps_runs_lazily():
    X, y = load_breast_cancer(return_X_y=True)
    lower, upper = X.min(axis=0), X.max(axis=0)  # a test's stand-in for public bounds
    seen = []

    def rescale(Z):  # data-independent: fixed bounds, no statistic of the rows
        seen.append(type(Z))
        return (Z - lower) / (upper - lower)

    def make():
        return make_pipeline(FunctionTransformer(rescale), DPLSSGDClassifier(**FAST))

    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(100, 30)), da.from_array(y, chunks=100))
    assert seen[1] is da.Array  # the transformer got the Dask array: nothing gathered
    np.testing.assert_allclose(dsk[-1].coef_, mem[-1].coef_, rtol=1e-9, atol=1e-12)
    assert dsk[-1].epsilon_ == mem[-1].epsilon_


def test_unknown_chunk_sizes_are_refused():
    X, y = load_breast_cancer(return_X_y=True)
    Xd, yd = da.from_array(X, chunks=(100, 30)), da.from_array(y, chunks=100)
    keep = Xd[:, 0] > 0  # a filter leaves the chunk sizes unknown
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        DPLSSGDClassifier(**FAST).fit(Xd[keep], yd[keep])


def test_undeclared_label_is_refused_by_name():
    X, y = load_breast_cancer(return_X_y=True)
    Xd, yd = da.from_array(X, chunks=(100, 30)), da.from_array(y, chunks=100)
    with pytest.raises(ValueError, match="classes"):
        DPLSSGDClassifier(classes=[0, 2], **FAST).fit(Xd, yd)
    clf = DPLSSGDClassifier(classes=[0, 1], **FAST).fit(Xd, yd)
    np.testing.assert_array_equal(clf.classes_, [0, 1])


def test_non_finite_values_are_refused():
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        DPLSSGDClassifier(**FAST).fit(da.from_array(X, chunks=(100, 30)), y)


@pytest.mark.parametrize("max_grad_norm", ["auto", 1.0])
def test_overflowing_rows_give_the_finite_in_memory_fit(max_grad_norm):
    # A row of 1e200 and one with 1e300 in one coordinate, in different chunks: the chunks'
    # sums never square them (the old blockwise sums gave NaN), and the fit is the in-memory
    # one.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] > 0).astype(int)
    X[5] = 1e200
    X[300, 1] = -1e300
    make = lambda: DPLSSGDClassifier(max_grad_norm=max_grad_norm, batch_size=100, max_iter=2,
                                     random_state=0)  # noqa: E731
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=200))
    assert np.isfinite(dsk.coef_).all() and np.isfinite(dsk.intercept_).all()
    if max_grad_norm == "auto":  # the private scaling was read, not skipped
        assert np.isfinite(dsk.offset_).all() and np.isfinite(dsk.row_scale_)
    _assert_same_fit(mem, dsk)


def test_dask_dataframe_input():
    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    pd = pytest.importorskip("pandas")
    data = load_breast_cancer(as_frame=True)
    X = (data.data - data.data.mean()) / data.data.std(ddof=0)
    mem = DPLSSGDClassifier(**FAST).fit(X, data.target)
    dsk = DPLSSGDClassifier(**FAST).fit(dd.from_pandas(X, npartitions=4),
                                        dd.from_pandas(pd.Series(data.target), npartitions=4))
    _assert_same_fit(mem, dsk)
    np.testing.assert_array_equal(dsk.feature_names_in_, X.columns.to_numpy())


def test_nets_refuse_dask_input():
    torch = pytest.importorskip("torch")
    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    X, y = load_breast_cancer(return_X_y=True)
    net = DPLSSGDNeuralNetClassifier(torch.nn.Linear, module__in_features=30,
                                     module__out_features=2, max_epochs=1, random_state=0)
    with pytest.raises(TypeError, match="does not train on Dask"):
        net.fit(da.from_array(X.astype(np.float32), chunks=(100, 30)), y)
