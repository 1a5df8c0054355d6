import gzip
import hashlib
import pickle
import socket
import sys
from importlib import resources

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.datasets import _adult

FEATURE_NAMES = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country",
]  # fmt: skip
NUMERIC = [0, 2, 4, 10, 11, 12]
CATEGORICAL = [1, 3, 5, 6, 7, 8, 9, 13]

# Known facts about the UCI files: row counts, positives, complete rows (all from the
# codebook adult.names) and "?" counts per column.
N_ROWS = {"train": 32561, "test": 16281, "all": 48842}
N_POSITIVE = {"train": 7841, "test": 3846, "all": 7841 + 3846}
N_COMPLETE = {"train": 30162, "test": 15060}
MISSING = {
    "train": {"workclass": 1836, "occupation": 1843, "native-country": 583},
    "test": {"workclass": 963, "occupation": 966, "native-country": 274},
}
# 99 codebook categories + age, education-num, capital-gain, capital-loss, hours-per-week.
WIDTH = 99 + 5

# Digests of the uncompressed UCI files, as listed in data/CREDITS.txt.
SHA256 = {
    "adult.data.gz": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test.gz": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "adult.names.gz": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
}


def _is_nan(value):
    return isinstance(value, float) and value != value


@pytest.fixture(scope="module")
def train():
    return load_adult(subset="train", return_X_y=True)


@pytest.fixture(scope="module")
def test():
    return load_adult(subset="test", return_X_y=True)


@pytest.mark.parametrize("filename", sorted(SHA256))
def test_shipped_files_are_unmodified_uci_files(filename):
    path = resources.files("skprivate.datasets").joinpath("data", filename)
    with path.open("rb") as raw:
        content = gzip.decompress(raw.read())
    assert hashlib.sha256(content).hexdigest() == SHA256[filename]
    credits = resources.files("skprivate.datasets").joinpath("data", "CREDITS.txt")
    assert SHA256[filename] in credits.read_text(encoding="utf-8")


@pytest.mark.parametrize("subset", ["train", "test", "all"])
def test_shapes_target_and_metadata(subset):
    bunch = load_adult(subset=subset)
    assert isinstance(bunch, Bunch)
    n = N_ROWS[subset]
    assert bunch.data.shape == (n, 14)
    assert bunch.data.dtype == object
    assert bunch.target.shape == (n,)
    assert bunch.target.dtype == np.int64
    assert set(np.unique(bunch.target)) == {0, 1}
    assert int(bunch.target.sum()) == N_POSITIVE[subset]
    assert bunch.feature_names == FEATURE_NAMES
    assert list(bunch.target_names) == ["<=50K", ">50K"]
    assert bunch.frame is None
    assert bunch.numerical_features == [FEATURE_NAMES[j] for j in NUMERIC]
    assert bunch.categorical_features == [FEATURE_NAMES[j] for j in CATEGORICAL]


def test_positive_rates(train, test):
    assert train[1].mean() == pytest.approx(7841 / 32561)
    assert test[1].mean() == pytest.approx(3846 / 16281)


def test_first_rows_match_raw_files(train, test):
    # First data line of adult.data and of adult.test (after its junk first line).
    assert list(train[0][0]) == [
        39.0, "State-gov", 77516.0, "Bachelors", 13.0, "Never-married", "Adm-clerical",
        "Not-in-family", "White", "Male", 2174.0, 0.0, 40.0, "United-States",
    ]  # fmt: skip
    assert list(test[0][0]) == [
        25.0, "Private", 226802.0, "11th", 7.0, "Never-married", "Machine-op-inspct",
        "Own-child", "Black", "Male", 0.0, 0.0, 40.0, "United-States",
    ]  # fmt: skip
    assert train[1][0] == 0 and test[1][0] == 0


@pytest.mark.parametrize("subset", ["train", "test"])
def test_missing_values_are_nan(subset):
    X, _ = load_adult(subset=subset, return_X_y=True)
    nan = np.array([[_is_nan(v) for v in row] for row in X])
    expected = [MISSING[subset].get(name, 0) for name in FEATURE_NAMES]
    assert nan.sum(axis=0).tolist() == expected
    assert int((~nan.any(axis=1)).sum()) == N_COMPLETE[subset]
    assert not any(v == "?" for v in X[:, CATEGORICAL].ravel())


@pytest.mark.parametrize("subset", ["train", "test"])
def test_value_types_and_clean_strings(subset):
    X, _ = load_adult(subset=subset, return_X_y=True)
    for value in X[:, NUMERIC].ravel():
        assert type(value) is float and value == value
    for value in X[:, CATEGORICAL].ravel():
        assert _is_nan(value) or (
            type(value) is str and value == value.strip() and not value.endswith(".")
        )


def test_test_split_labels_have_no_trailing_dot(test):
    # adult.test writes "<=50K." and ">50K."; both must map to the same 0/1 as the train
    # file's "<=50K" and ">50K", not to new classes or strings.
    _, y = test
    assert y.dtype == np.int64
    assert np.bincount(y).tolist() == [12435, 3846]
    assert load_adult(subset="test").target_names.tolist() == ["<=50K", ">50K"]


def test_all_is_train_then_test(train, test):
    X, y = load_adult(subset="all", return_X_y=True)
    np.testing.assert_array_equal(y, np.concatenate([train[1], test[1]]))
    for got, expected in ((X[: N_ROWS["train"]], train[0]), (X[N_ROWS["train"] :], test[0])):
        both_nan = np.vectorize(_is_nan)(got) & np.vectorize(_is_nan)(expected)
        same = (got == expected) | both_nan
        assert same.all()


def test_every_category_is_in_the_codebook(train, test):
    frame_dtypes = load_adult(as_frame=True).data.dtypes
    for X in (train[0], test[0]):
        for j in CATEGORICAL:
            seen = {v for v in X[:, j] if not _is_nan(v)}
            categories = set(frame_dtypes.iloc[j].categories)
            assert seen <= categories


@pytest.mark.parametrize("subset", ["train", "test", "all"])
def test_frame_agrees_with_arrays(subset):
    pd = pytest.importorskip("pandas")
    arrays = load_adult(subset=subset)
    frames = load_adult(subset=subset, as_frame=True)
    data, target = frames.data, frames.target
    assert isinstance(data, pd.DataFrame) and isinstance(target, pd.Series)
    assert list(data.columns) == FEATURE_NAMES
    assert target.name == "income_above_50k"
    assert target.dtype == np.int64
    np.testing.assert_array_equal(target.to_numpy(), arrays.target)
    for j, name in enumerate(FEATURE_NAMES):
        column = data[name]
        if j in NUMERIC:
            assert column.dtype == np.float64
            np.testing.assert_array_equal(column.to_numpy(), arrays.data[:, j].astype(float))
        else:
            assert isinstance(column.dtype, pd.CategoricalDtype)
            missing = np.vectorize(_is_nan)(arrays.data[:, j])
            np.testing.assert_array_equal(column.isna().to_numpy(), missing)
            np.testing.assert_array_equal(
                column.astype(object).to_numpy()[~missing], arrays.data[~missing, j]
            )
    assert frames.frame.shape == (N_ROWS[subset], 15)
    assert list(frames.frame.columns) == FEATURE_NAMES + ["income_above_50k"]


def test_frame_categories_are_the_codebook_lists_for_every_subset():
    pytest.importorskip("pandas")
    train = load_adult(subset="train", as_frame=True).data
    test = load_adult(subset="test", as_frame=True).data
    assert (train.dtypes == test.dtypes).all()
    # Holand-Netherlands occurs once in the train file and never in the test file, yet
    # it is a category of both frames.
    country = test["native-country"]
    assert "Holand-Netherlands" in country.cat.categories
    assert not (country == "Holand-Netherlands").any()
    assert len(country.cat.categories) == 41
    assert list(train["sex"].cat.categories) == ["Female", "Male"]


def test_return_X_y_as_frame():
    pd = pytest.importorskip("pandas")
    X, y = load_adult(subset="test", return_X_y=True, as_frame=True)
    assert isinstance(X, pd.DataFrame) and X.shape == (16281, 14)
    assert isinstance(y, pd.Series) and int(y.sum()) == 3846


def test_as_frame_without_pandas_raises_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(ImportError, match="pip install pandas"):
        load_adult(as_frame=True)
    assert load_adult().data.shape == (32561, 14)  # arrays need no pandas


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"subset": "validation"}, "subset"),
        ({"subset": "TRAIN"}, "subset"),
        ({"subset": None}, "subset"),
        ({"return_X_y": "yes"}, "return_X_y"),
        ({"as_frame": 1}, "as_frame"),
    ],
)
def test_invalid_parameters(kwargs, name):
    with pytest.raises(ValueError) as info:
        load_adult(**kwargs)
    message = str(info.value)
    assert repr(name) in message
    assert repr(kwargs[name]) in message
    if name == "subset":
        assert all(repr(s) in message for s in ("train", "test", "all"))


def test_results_are_copies():
    X, y = load_adult(return_X_y=True)
    X[0, 0], X[0, 1], y[0] = -1.0, "corrupted", 7
    X2, y2 = load_adult(return_X_y=True)
    assert X2[0, 0] == 39.0 and X2[0, 1] == "State-gov" and y2[0] == 0
    assert X2.flags.writeable and y2.flags.writeable
    assert not np.shares_memory(X, X2)


def test_frame_results_are_copies():
    pytest.importorskip("pandas")
    first = load_adult(as_frame=True)
    first.data.loc[0, "age"] = -1.0
    first.target.iloc[0] = 7
    second = load_adult(as_frame=True)
    assert second.data.loc[0, "age"] == 39.0 and second.target.iloc[0] == 0
    assert load_adult().data[0, 0] == 39.0


def test_loading_is_offline(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("load_adult tried to open a network connection")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    _adult._load_split.cache_clear()  # force a real read of the shipped files
    assert load_adult(subset="all").data.shape == (48842, 14)


def test_descr_gives_provenance_and_licence():
    descr = load_adult().DESCR
    for text in ("CC BY 4.0", "Kohavi", "Becker", "Silicon Graphics", "1994", "10.24432/C5XW20"):
        assert text in descr


# ---------------------------------------------------------------------------- preprocessor


def test_preprocessor_is_unfitted():
    preprocessor = make_adult_preprocessor()
    with pytest.raises(NotFittedError):
        check_is_fitted(preprocessor)


@pytest.mark.parametrize("data_independent", [True, False])
def test_preprocessor_output_is_finite_dense_float(train, test, data_independent):
    preprocessor = make_adult_preprocessor(data_independent=data_independent)
    Xt_train = preprocessor.fit_transform(train[0])
    Xt_test = preprocessor.transform(test[0])
    for Xt, n in ((Xt_train, N_ROWS["train"]), (Xt_test, N_ROWS["test"])):
        assert isinstance(Xt, np.ndarray) and Xt.dtype == np.float64
        assert np.isfinite(Xt).all()
        assert Xt.shape[0] == n and Xt.shape[1] == Xt_train.shape[1]
    assert len(preprocessor.get_feature_names_out()) == Xt_train.shape[1]
    if data_independent:
        assert Xt_train.shape[1] == WIDTH
        assert Xt_train.min() >= 0.0 and Xt_train.max() <= 1.0
    else:
        # Fitted on the data: one column per category seen, plus one for "missing" in
        # each of the 3 columns that have missing values.
        assert Xt_train.shape[1] == WIDTH + 3
        np.testing.assert_allclose(Xt_train[:, -5:].mean(axis=0), 0.0, atol=1e-9)


def test_data_independent_preprocessor_learns_nothing_from_the_data(train, test):
    fitted_on_train = make_adult_preprocessor().fit(train[0])
    fitted_on_test = make_adult_preprocessor().fit(test[0])
    fitted_on_one_row = make_adult_preprocessor().fit(test[0][:1])
    for X in (train[0], test[0]):
        expected = fitted_on_train.transform(X)
        np.testing.assert_array_equal(fitted_on_test.transform(X), expected)
        np.testing.assert_array_equal(fitted_on_one_row.transform(X), expected)


def test_data_dependent_preprocessor_does_depend_on_the_data(train, test):
    # The contrast that makes the previous test meaningful.
    on_train = make_adult_preprocessor(data_independent=False).fit(train[0])
    on_test = make_adult_preprocessor(data_independent=False).fit(test[0])
    assert not np.array_equal(on_train.transform(test[0]), on_test.transform(test[0]))


def test_preprocessor_accepts_arrays_and_frames_alike():
    pytest.importorskip("pandas")
    arrays = load_adult(subset="test")
    frames = load_adult(subset="test", as_frame=True)
    from_array = make_adult_preprocessor().fit_transform(arrays.data)
    preprocessor = make_adult_preprocessor().fit(frames.data)
    np.testing.assert_array_equal(preprocessor.transform(frames.data), from_array)
    np.testing.assert_array_equal(
        preprocessor.get_feature_names_out(),
        make_adult_preprocessor().fit(arrays.data).get_feature_names_out(arrays.feature_names),
    )


def test_preprocessor_feature_names():
    X, _ = load_adult(subset="test", return_X_y=True)
    preprocessor = make_adult_preprocessor().fit(X)
    names = list(preprocessor.get_feature_names_out(FEATURE_NAMES))
    assert len(names) == WIDTH and len(set(names)) == WIDTH
    assert names[:2] == ["workclass_Private", "workclass_Self-emp-not-inc"]
    assert names[-5:] == ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    assert "fnlwgt" not in names
    assert sum(name.startswith("native-country_") for name in names) == 41


def test_preprocessor_encodes_missing_as_zeros_and_clips_to_public_bounds():
    X, _ = load_adult(subset="test", return_X_y=True)
    preprocessor = make_adult_preprocessor().fit(X)
    names = list(preprocessor.get_feature_names_out(FEATURE_NAMES))
    row = X[:1].copy()
    row[0, 1] = np.nan  # workclass missing
    row[0, 13] = "Atlantis"  # a country the codebook does not list
    row[0, 0], row[0, 12] = 150.0, 0.0  # age above, hours below the public bounds
    row[0, 10], row[0, 11] = 99999.0, np.nan  # capital-gain at its bound, loss missing
    out = dict(zip(names, preprocessor.transform(row)[0]))
    assert all(v == 0 for k, v in out.items() if k.startswith(("workclass_", "native-country_")))
    assert sum(v for k, v in out.items() if k.startswith("education_")) == 1
    assert out["age"] == 1.0 and out["hours-per-week"] == 0.0
    assert out["capital-gain"] == 1.0 and out["capital-loss"] == 0.0
    assert out["education-num"] == pytest.approx((7 - 1) / 15)


def test_preprocessor_pickles(test):
    preprocessor = make_adult_preprocessor().fit(test[0])
    clone = pickle.loads(pickle.dumps(preprocessor))
    np.testing.assert_array_equal(clone.transform(test[0]), preprocessor.transform(test[0]))


def test_preprocessor_rejects_invalid_flag():
    with pytest.raises(ValueError, match="'data_independent'.*'yes'"):
        make_adult_preprocessor(data_independent="yes")


def test_logistic_regression_pipeline_accuracy(train, test):
    model = make_pipeline(make_adult_preprocessor(), LogisticRegression(max_iter=1000))
    model.fit(*train)
    assert model.score(*test) >= 0.84


def test_preprocessor_is_the_generic_bounded_one_and_matches_the_codebook_function(test):
    # make_adult_preprocessor is make_bounded_preprocessor with the codebook: the numeric
    # block equals the hand-written codebook function, missing and out-of-range values too.
    from skprivate.accounting import leaking_steps
    from skprivate.datasets._adult_preprocessing import (
        _NUMERIC_COLUMNS,
        _scale_to_public_ranges,
    )

    X = test[0][:200].copy()
    X[0, 0], X[1, 10], X[2, 12], X[3, 4] = np.nan, 1e7, -3.0, 40.0  # missing, too large, ...
    Xt = make_adult_preprocessor().fit_transform(X)
    np.testing.assert_allclose(Xt[:, -5:], _scale_to_public_ranges(X[:, _NUMERIC_COLUMNS]))
    assert leaking_steps(make_adult_preprocessor()) == []
    paths = [s.path for s in leaking_steps(make_adult_preprocessor(data_independent=False))]
    assert paths == ["categorical", "numeric/simpleimputer", "numeric/standardscaler"]
