"""BoundedKBinsDiscretizer and make_bounded_preprocessor(n_bins=): bins from declared ranges."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer

from skprivate.accounting import leaking_steps, total_privacy_cost
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import (
    BoundedKBinsDiscretizer,
    BoundedScaler,
    make_bounded_preprocessor,
    make_private_pipeline,
)

rng = np.random.default_rng(0)


def test_edges_are_exactly_the_declared_ones():
    X = rng.normal(size=(50, 3))
    uniform = BoundedKBinsDiscretizer(bounds=([0, -1, 2], [10, 1, 3]), n_bins=[5, 4, 2]).fit(X)
    for e, lo, hi, k in zip(uniform.bin_edges_, [0, -1, 2], [10, 1, 3], [5, 4, 2]):
        assert_array_equal(e, np.linspace(lo, hi, k + 1))
    assert_array_equal(uniform.n_bins_, [5, 4, 2])

    log = BoundedKBinsDiscretizer(bounds=(0, 99999), n_bins=4, strategy="log").fit(X[:, :1])
    expected = np.expm1(np.linspace(0.0, np.log1p(99999.0), 5))
    assert_allclose(log.bin_edges_[0], expected, rtol=1e-12)
    assert log.bin_edges_[0][0] == 0.0 and log.bin_edges_[0][-1] == 99999.0  # exact ends

    given = [[17, 25, 35, 50, 65, 90], [0.0, 0.5, 1.0]]
    edges = BoundedKBinsDiscretizer(strategy="edges", edges=given).fit(X[:, :2])
    assert [e.tolist() for e in edges.bin_edges_] == given
    assert_array_equal(edges.n_bins_, [5, 2])

    mixed = BoundedKBinsDiscretizer(bounds=([0, 0], [99, 99]), n_bins=3,
                                    strategy=["log", "uniform"]).fit(X[:, :2])
    assert_array_equal(mixed.bin_edges_[1], [0, 33, 66, 99])
    assert mixed.bin_edges_[0][1] < 33  # narrow low bins in log1p


def test_nothing_is_read_from_the_rows():
    # Fitted on two unrelated tables (one entirely outside the range) with the same
    # parameters: the same edges, and the same output on any third table.
    params = dict(bounds=([0, 0], [100, 10]), n_bins=[4, 8], strategy=["log", "uniform"])
    a = BoundedKBinsDiscretizer(**params).fit(rng.uniform(0, 100, size=(300, 2)))
    b = BoundedKBinsDiscretizer(**params).fit(np.full((2, 2), 1e9))
    for ea, eb in zip(a.bin_edges_, b.bin_edges_):
        assert_array_equal(ea, eb)
    Z = np.column_stack([rng.uniform(-10, 200, 100), rng.uniform(-1, 20, 100)])
    assert_array_equal(a.transform(Z).toarray(), b.transform(Z).toarray())
    assert pickle.loads(pickle.dumps(a)).transform(Z).nnz == a.transform(Z).nnz
    assert BoundedKBinsDiscretizer._skprivate_data_independent is True


def test_out_of_range_values_edges_and_missing_values():
    binner = BoundedKBinsDiscretizer(bounds=(0, 100), n_bins=4, encode="ordinal",
                                     fill_value=80.0).fit([[0.0]])
    X = np.array([[-1e9], [0.0], [24.999], [25.0], [75.0], [99.9], [100.0], [1e9], [np.nan]])
    assert_array_equal(binner.transform(X).ravel(), [0, 0, 0, 1, 3, 3, 3, 3, 3])
    middle = BoundedKBinsDiscretizer(bounds=(0, 100), n_bins=4, encode="ordinal").fit([[0.0]])
    assert middle.transform([[np.nan]])[0, 0] == 2  # default fill: the middle of the range
    with pytest.raises(ValueError, match="infinity|Input X contains"):
        binner.transform([[np.inf]])


def test_onehot_matches_ordinal_and_names():
    X = rng.uniform(-2, 12, size=(40, 2))
    kw = dict(bounds=([0, 0], [10, 10]), n_bins=[3, 5])
    ordinal = BoundedKBinsDiscretizer(encode="ordinal", **kw).fit(X).transform(X)
    sparse = BoundedKBinsDiscretizer(**kw).fit(X).transform(X)
    dense = BoundedKBinsDiscretizer(sparse_output=False, **kw).fit(X).transform(X)
    assert sp.issparse(sparse) and sparse.format == "csr" and isinstance(dense, np.ndarray)
    assert_array_equal(sparse.toarray(), dense)
    assert_array_equal(dense.sum(axis=1), 2)  # one bin per feature
    assert_array_equal(dense[:, :3].argmax(axis=1), ordinal[:, 0])
    assert_array_equal(dense[:, 3:].argmax(axis=1), ordinal[:, 1])
    names = BoundedKBinsDiscretizer(**kw).fit(X).get_feature_names_out(["a", "b"])
    assert names.tolist() == ["a_0", "a_1", "a_2", "b_0", "b_1", "b_2", "b_3", "b_4"]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["u", "v"])
    fitted = BoundedKBinsDiscretizer(encode="ordinal", **kw).fit(frame)
    assert fitted.get_feature_names_out().tolist() == ["u", "v"]


@pytest.mark.parametrize("encode", ["ordinal", "onehot"])
def test_inverse_transform_gives_bin_centres(encode):
    X = rng.uniform(-5, 105, size=(200, 1))
    binner = BoundedKBinsDiscretizer(bounds=(0, 100), n_bins=8, encode=encode).fit(X)
    back = binner.inverse_transform(binner.transform(X))
    centres = (np.arange(8) + 0.5) * 12.5
    assert set(np.unique(back)) <= set(centres)
    assert np.all(np.abs(back - np.clip(X, 0, 100)) <= 12.5 / 2 + 1e-12)


@pytest.mark.parametrize("params, match", [
    (dict(), "needs bounds"),
    (dict(bounds=(0, 1), strategy="edges", edges=[[0, 0.5, 1]]), "bounds must be None"),
    (dict(strategy="edges"), "needs edges"),
    (dict(strategy="edges", edges=[[0, 1, 2]]), "one array per feature"),
    (dict(strategy="edges", edges=[[0, 1, 2], [0, 1]]), "at least 3"),
    (dict(strategy="edges", edges=[[0, 1, 2], [0, 2, 1]]), "strictly increasing"),
    (dict(bounds=(0, 1), edges=[[0, 0.5, 1]]), "only with strategy='edges'"),
    (dict(bounds=(1, 1)), "below its upper bound"),
    (dict(bounds=(-2, 1), strategy="log"), "lower bounds > -1"),
    (dict(bounds=(0, 1), strategy=["log", "quantile"]), "'uniform' or 'log'"),
    (dict(bounds=(0, 1), n_bins=[2, 1]), "n_bins must be an integer >= 2"),
    (dict(bounds=(0, 1), n_bins=1), "n_bins"),
    (dict(bounds=(0, 1), fill_value=[1, 2, 3]), "fill_value"),
])
def test_bad_parameters_are_refused_by_name(params, match):
    with pytest.raises(ValueError, match=match):
        BoundedKBinsDiscretizer(**params).fit(np.zeros((3, 2)))


def test_in_a_private_pipeline_it_costs_nothing_and_leaks_nothing():
    X = rng.uniform(-1, 1, size=(500, 2))
    y = (X[:, 0] ** 2 > 1 / 3).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pipe = make_private_pipeline(BoundedKBinsDiscretizer(bounds=(-1, 1), n_bins=8),
                                     DPLSSGDClassifier(classes=[0, 1], random_state=0),
                                     epsilon=1.0)
    assert pipe[-1].epsilon == 1.0  # no share taken by the binning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixed seed's caveat
        pipe.fit(X, y)
    assert leaking_steps(pipe) == []
    cost = total_privacy_cost(pipe)
    assert cost.leaks == [] and cost.basic_epsilon == pytest.approx(1.0)


def test_bins_let_a_private_linear_model_learn_a_shape():
    # y depends on x0 through a U shape: scaled, a linear model is near the majority class;
    # one-hot bins of the declared range fit it. Numbers on these rows at epsilon 1:
    # about 0.67 scaled (the majority share) against about 0.95 binned.
    X = rng.uniform(-1, 1, size=(4000, 2))
    y = (X[:, 0] ** 2 > 1 / 3).astype(int)
    Xte = rng.uniform(-1, 1, size=(2000, 2))
    yte = (Xte[:, 0] ** 2 > 1 / 3).astype(int)
    scores = {}
    for name, prep in [("scaled", BoundedScaler(bounds=(-1, 1))),
                       ("binned", BoundedKBinsDiscretizer(bounds=(-1, 1), n_bins=8))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipe = make_private_pipeline(prep, DPLSSGDClassifier(classes=[0, 1],
                                                                 random_state=0),
                                         epsilon=1.0).fit(X, y)
        scores[name] = pipe.score(Xte, yte)
    assert scores["scaled"] < 0.75 < 0.9 < scores["binned"], scores


def test_bounded_preprocessor_bins_numeric_columns():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": [20.0, 95.0, np.nan], "gain": [0.0, 1e6, 10.0],
                       "sex": ["F", "M", "?"]})
    declared = dict(numeric={"age": (17, 90), "gain": (0, 99999)},
                    categorical={"sex": ["F", "M"]}, log1p=["gain"])
    default = make_bounded_preprocessor(**declared).fit(df)
    assert default.get_feature_names_out().tolist() == ["sex_F", "sex_M", "age", "gain"]

    binned = make_bounded_preprocessor(**declared, n_bins=4).fit(df)
    names = binned.get_feature_names_out().tolist()
    assert names == ["sex_F", "sex_M", *[f"age_{i}" for i in range(4)],
                     *[f"gain_{i}" for i in range(4)]]
    binner = binned.named_transformers_["binned"]
    assert_array_equal(binner.bin_edges_[0], np.linspace(17, 90, 5))
    assert_allclose(binner.bin_edges_[1], np.expm1(np.linspace(0, np.log1p(99999), 5)))
    Z = binned.transform(df)
    assert isinstance(Z, np.ndarray) and Z.dtype == np.float64
    # age 20 -> bin 0, 95 -> clipped into the last, NaN -> the middle of [17, 90] (bin 2)
    assert_array_equal(Z[:, 2:6].argmax(axis=1), [0, 3, 2])

    some = make_bounded_preprocessor(**declared, n_bins={"age": 3}, keep_scaled=True).fit(df)
    assert some.get_feature_names_out().tolist() == [
        "sex_F", "sex_M", "age", "gain", "age_0", "age_1", "age_2"]
    assert leaking_steps(some) == []

    with pytest.raises(ValueError, match="not in numeric"):
        make_bounded_preprocessor(**declared, n_bins={"height": 4})
    with pytest.raises(ValueError, match="n_bins must be an integer >= 2"):
        make_bounded_preprocessor(**declared, n_bins=1)


def test_bounded_preprocessor_with_bins_in_a_private_pipeline():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"age": rng.uniform(17, 90, 300), "sex": rng.choice(["F", "M"], 300)})
    y = (df["age"] > 50).to_numpy().astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        pipe = make_private_pipeline(
            make_bounded_preprocessor(numeric={"age": (17, 90)},
                                      categorical={"sex": ["F", "M"]}, n_bins=8),
            DPLSSGDClassifier(classes=[0, 1], random_state=0), epsilon=0.5)
    assert pipe[-1].epsilon == 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(df, y)
    cost = total_privacy_cost(pipe)
    assert cost.leaks == [] and cost.basic_epsilon == pytest.approx(0.5)


def test_scikit_learns_discretizer_is_a_leak_whose_remedy_is_this_one():
    leaky = make_pipeline(KBinsDiscretizer(n_bins=4), DPLSSGDClassifier(classes=[0, 1]))
    [step] = leaking_steps(leaky)
    assert "bin edges from the rows" in step.learns
    assert "BoundedKBinsDiscretizer" in step.remedy
    free = make_pipeline(BoundedKBinsDiscretizer(bounds=(0, 10), n_bins=4),
                         DPLSSGDClassifier(classes=[0, 1]))
    assert leaking_steps(free) == []
