"""Loader for the UCI Adult (census income) data set shipped with skprivate.

The raw files are stored gzip-compressed in ``skprivate/datasets/data`` and read with plain
Python, so loading never touches the network and pandas stays optional.
"""

import functools
import gzip
import math
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from ._adult_codebook import (
    CATEGORICAL_FEATURES,
    CATEGORIES,
    CLASS_NAMES,
    FEATURE_NAMES,
    NUMERICAL_FEATURES,
)

__all__ = ["load_adult"]

_SUBSETS = ("train", "test", "all")
_FILES = {"train": "adult.data.gz", "test": "adult.test.gz"}
_N_ROWS = {"train": 32561, "test": 16281}
TARGET_NAME = "income_above_50k"

# The test file writes its labels with a trailing dot ("<=50K."); both spellings map here.
_LABELS = {"<=50K": 0, ">50K": 1, "<=50K.": 0, ">50K.": 1}
_MISSING = "?"

DESCR = """\
UCI Adult (census income) data set
----------------------------------

**Data Set Characteristics:**

:Number of Instances: 48,842 (train: 32,561; test: 16,281)
:Number of Attributes: 14 (6 numeric, 8 categorical) and a binary target
:Target: ``income_above_50k``: 1 if the person earns more than 50,000 US dollars a
    year, 0 otherwise (train: 7,841 positives, 24.08%; test: 3,846 positives, 23.62%)
:Attribute Information:
    - age: continuous (17 to 90)
    - workclass: 8 categories
    - fnlwgt: continuous, the census "final weight" (a survey sampling weight)
    - education: 16 categories
    - education-num: continuous (1 to 16), the education level as a number
    - marital-status: 7 categories
    - occupation: 14 categories
    - relationship: 6 categories
    - race: 5 categories
    - sex: 2 categories
    - capital-gain: continuous (US dollars)
    - capital-loss: continuous (US dollars)
    - hours-per-week: continuous (1 to 99)
    - native-country: 41 categories
:Missing Attribute Values: written "?" in the raw files and returned as NaN. Only
    workclass (train 1,836; test 963), occupation (train 1,843; test 966) and
    native-country (train 583; test 274) have any; 30,162 train and 15,060 test rows
    are complete.
:Creator: Barry Becker, who extracted the data from the 1994 US Census database
:Donors: Ronny Kohavi and Barry Becker, Data Mining and Visualization, Silicon Graphics
:Licence: Creative Commons Attribution 4.0 International (CC BY 4.0),
    https://creativecommons.org/licenses/by/4.0/
:Date: 1996 (donated to the UCI Machine Learning Repository)

The task is to predict whether a person's yearly income exceeds 50,000 dollars from
census attributes. The records were kept from the 1994 census database when
``(AAGE > 16) && (AGI > 100) && (AFNLWGT > 1) && (HRSWK > 0)``, and split at random into
a training file (2/3) and a test file (1/3) with MLC++ GenCVFiles. The category lists
are those of the codebook ``adult.names``.

skprivate ships gzip-compressed, otherwise unmodified copies of ``adult.data``,
``adult.test`` and ``adult.names``. When loading, it drops the first line of
``adult.test`` ("|1x3 Cross validator"), removes the trailing dot of the test labels,
turns "?" into NaN and encodes the label as 0/1.

The rows describe real people. skprivate uses them as a realistic stand-in for private
data: a model fitted on them is only covered by a differential-privacy guarantee if the
preprocessing is data independent as well (see ``make_adult_preprocessor``).

.. rubric:: References

- Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C5XW20
- Kohavi, R. (1996). Scaling up the accuracy of Naive-Bayes classifiers: a
  decision-tree hybrid. Proceedings of the Second International Conference on
  Knowledge Discovery and Data Mining (KDD-96), 202-207.
"""


def _raise_invalid(name, allowed, value):
    raise ValueError(
        f"The {name!r} parameter of load_adult must be one of {allowed}; got {value!r} instead."
    )


def _check_params(subset, return_X_y, as_frame):
    if not isinstance(subset, str) or subset not in _SUBSETS:
        _raise_invalid("subset", "{'train', 'test', 'all'}", subset)
    # Only real booleans: a string such as "False" would otherwise be silently truthy.
    for name, value in (("return_X_y", return_X_y), ("as_frame", as_frame)):
        if not isinstance(value, (bool, np.bool_)):
            _raise_invalid(name, "{True, False}", value)


def _read_lines(filename):
    with resources.files(__package__).joinpath("data", filename).open("rb") as raw:
        with gzip.open(raw, "rt", encoding="ascii") as text:
            return text.read().splitlines()


def _parse_value(value, name, filename, line_no):
    if value == _MISSING:
        return math.nan
    if name in CATEGORIES:
        # Checked here so that a damaged file fails loudly instead of turning unknown
        # strings into NaN when the frame's categorical dtype is built.
        if value not in CATEGORIES[name]:
            raise ValueError(
                f"{filename}, line {line_no}: {value!r} is not a {name} category of the "
                "codebook; the shipped data file is damaged, reinstall skprivate."
            )
        return value
    return float(value)


@functools.lru_cache(maxsize=None)
def _load_split(split):
    """Parse one shipped file into a read-only object array X and int64 array y.

    Cached for the life of the process; callers must copy before handing out.
    """
    filename = _FILES[split]
    rows, labels = [], []
    for line_no, line in enumerate(_read_lines(filename), start=1):
        # Blank lines end both files and "|" starts adult.test's junk first line.
        if not line or line.startswith("|"):
            continue
        fields = line.split(", ")
        if len(fields) != len(FEATURE_NAMES) + 1 or fields[-1] not in _LABELS:
            raise ValueError(
                f"{filename}, line {line_no}: expected 14 features and a label, got "
                f"{line!r}; the shipped data file is damaged, reinstall skprivate."
            )
        rows.append(
            [
                _parse_value(value, name, filename, line_no)
                for name, value in zip(FEATURE_NAMES, fields)
            ]
        )
        labels.append(_LABELS[fields[-1]])
    if len(rows) != _N_ROWS[split]:
        raise ValueError(
            f"{filename} holds {len(rows)} rows instead of {_N_ROWS[split]}; the shipped "
            "data file is damaged, reinstall skprivate."
        )
    X = np.empty((len(rows), len(FEATURE_NAMES)), dtype=object)
    X[:] = rows
    y = np.array(labels, dtype=np.int64)
    # Read-only so that a bug that returns the cached arrays fails instead of corrupting them.
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


def _load_arrays(subset):
    # Fresh, writable arrays every call: the cache itself is never handed out.
    if subset == "all":
        parts = [_load_split("train"), _load_split("test")]
        return (
            np.concatenate([X for X, _ in parts]),
            np.concatenate([y for _, y in parts]),
        )
    X, y = _load_split(subset)
    return X.copy(), y.copy()


def _import_pandas():
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(
            "load_adult(as_frame=True) requires pandas, which is not installed. Install it "
            "with `pip install pandas`, or call load_adult(as_frame=False) to get numpy arrays."
        ) from exc
    return pd


def _to_frame(X, y):
    pd = _import_pandas()
    columns = {}
    for j, name in enumerate(FEATURE_NAMES):
        if name in CATEGORIES:
            # The full codebook list, not the categories seen, so train and test frames agree.
            dtype = pd.CategoricalDtype(categories=list(CATEGORIES[name]))
            columns[name] = pd.Series(X[:, j], dtype=dtype)
        else:
            columns[name] = pd.Series(X[:, j].astype(np.float64))
    data = pd.DataFrame(columns)
    target = pd.Series(y, name=TARGET_NAME)
    frame = pd.concat([data, target], axis=1)
    return data, target, frame


def load_adult(subset="train", return_X_y=False, as_frame=False):
    """Load the UCI Adult (census income) data set (binary classification).

    The data are shipped with skprivate; nothing is downloaded. Each row describes one
    person from the 1994 US census; the target says whether their income exceeds 50,000
    dollars a year.

    =================   ==========================================
    Samples             32,561 (train), 16,281 (test), 48,842 (all)
    Features            14: 6 numeric, 8 categorical
    Classes             2 (1: income >50K, 0: income <=50K)
    Positive fraction   0.241 (train), 0.236 (test)
    =================   ==========================================

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        Which rows to load: the original training file (``adult.data``), the original
        test file (``adult.test``), or both, training rows first.

    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    as_frame : bool, default=False
        If True, ``data`` is a pandas DataFrame with float64 numeric columns and
        ``category`` columns whose categories are the codebook's complete lists (so
        frames of different subsets have identical dtypes), ``target`` is an int64
        Series named ``"income_above_50k"`` and ``frame`` holds both. Requires pandas.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : ndarray of shape (n_samples, 14), dtype=object, or DataFrame
            The features in the codebook's order. As an array, numeric columns hold
            Python floats and categorical columns hold str; missing values ("?" in the
            raw files) are ``np.nan`` in both.
        target : ndarray of shape (n_samples,), dtype=int64, or Series
            1 if the income is above 50K, 0 otherwise.
        feature_names : list of str
            The 14 feature names, e.g. ``"age"``, ``"workclass"``, ``"education-num"``.
        target_names : ndarray of shape (2,)
            The raw labels ``["<=50K", ">50K"]``, indexed by the target value.
        frame : DataFrame of shape (n_samples, 15) or None
            Features and target together when ``as_frame=True``, otherwise None.
        categorical_features : list of str
            Names of the 8 categorical features.
        numerical_features : list of str
            Names of the 6 numeric features.
        DESCR : str
            Description of the data set: provenance, credits and licence.

    (data, target) : tuple if ``return_X_y`` is True
        The ``data`` and ``target`` described above.

    See Also
    --------
    make_adult_preprocessor : Data-independent encoding of ``data`` into a float matrix.

    Notes
    -----
    The data set was extracted from the 1994 US Census database by Barry Becker and
    donated by Ronny Kohavi and Barry Becker (Data Mining and Visualization, Silicon
    Graphics) to the UCI Machine Learning Repository, which distributes it under the
    Creative Commons Attribution 4.0 International licence (CC BY 4.0).

    The parsed arrays are cached for the life of the process; every call returns fresh
    copies, so modifying a result never affects later calls.

    References
    ----------
    .. [1] Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning
           Repository. https://doi.org/10.24432/C5XW20

    Examples
    --------
    >>> from skprivate.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.data.shape
    (32561, 14)
    >>> adult.feature_names[:4]
    ['age', 'workclass', 'fnlwgt', 'education']
    >>> adult.data[0]
    array([39.0, 'State-gov', 77516.0, 'Bachelors', 13.0, 'Never-married',
           'Adm-clerical', 'Not-in-family', 'White', 'Male', 2174.0, 0.0, 40.0,
           'United-States'], dtype=object)
    >>> round(float(adult.target.mean()), 3)
    0.241
    >>> X_test, y_test = load_adult(subset="test", return_X_y=True)
    >>> X_test.shape, int(y_test.sum())
    ((16281, 14), 3846)
    >>> load_adult(subset="all").data.shape
    (48842, 14)
    """
    _check_params(subset, return_X_y, as_frame)
    X, y = _load_arrays(subset)
    frame = None
    if as_frame:
        X, y, frame = _to_frame(X, y)
    if return_X_y:
        return X, y
    return Bunch(
        data=X,
        target=y,
        feature_names=list(FEATURE_NAMES),
        target_names=np.array(CLASS_NAMES),
        frame=frame,
        categorical_features=list(CATEGORICAL_FEATURES),
        numerical_features=list(NUMERICAL_FEATURES),
        DESCR=DESCR,
    )
