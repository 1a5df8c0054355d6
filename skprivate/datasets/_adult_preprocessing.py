"""Turn the Adult features returned by ``load_adult`` into a numeric matrix."""

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from ._adult_codebook import (
    CATEGORICAL_FEATURES,
    CATEGORIES,
    FEATURE_NAMES,
    NUMERIC_BOUNDS,
    NUMERIC_FILL,
)

__all__ = ["make_adult_preprocessor"]

# Columns are selected by position so that the object array and the DataFrame of
# load_adult both work. fnlwgt (position 2) is left out: see make_adult_preprocessor.
_SCALED = tuple(NUMERIC_BOUNDS)
_NUMERIC_COLUMNS = [FEATURE_NAMES.index(name) for name in _SCALED]
_CATEGORICAL_COLUMNS = [FEATURE_NAMES.index(name) for name in CATEGORICAL_FEATURES]

# Heavy-tailed dollar amounts: almost all are 0 and a few reach 99 999, so a linear map
# would squeeze every non-zero amount but the largest next to 0.
_LOG_SCALED = np.array([name in ("capital-gain", "capital-loss") for name in _SCALED])
_LOW = np.array([NUMERIC_BOUNDS[name][0] for name in _SCALED])
_HIGH = np.array([NUMERIC_BOUNDS[name][1] for name in _SCALED])
_FILL = np.array([NUMERIC_FILL[name] for name in _SCALED])


def _scale_to_public_ranges(X):
    """Map the 5 kept numeric columns to [0, 1] using only the fixed public bounds.

    Missing values get the fixed fill values, values outside the bounds are clipped, and
    the capital amounts are log1p-transformed first. No longer used by
    :func:`make_adult_preprocessor` (a BoundedScaler does the same); kept so that models
    saved by earlier versions still load, and as the reference the tests compare with.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(_SCALED):
        raise ValueError(
            f"Expected the {len(_SCALED)} numeric Adult columns {list(_SCALED)}, "
            f"got an array of shape {X.shape}."
        )
    X = np.where(np.isnan(X), _FILL, X)
    X = np.clip(X, _LOW, _HIGH)
    low = np.where(_LOG_SCALED, np.log1p(_LOW), _LOW)
    high = np.where(_LOG_SCALED, np.log1p(_HIGH), _HIGH)
    X = np.where(_LOG_SCALED, np.log1p(X), X)
    return (X - low) / (high - low)


def make_adult_preprocessor(data_independent=True):
    """Make an unfitted transformer that encodes Adult features as a float matrix.

    The transformer accepts the ``data`` returned by :func:`load_adult`, either the
    object array or the DataFrame (``as_frame=True``): columns are selected by position.
    It one-hot encodes the 8 categorical features, scales 5 numeric features and drops
    ``fnlwgt``. The output is a dense float64 array.

    Parameters
    ----------
    data_independent : bool, default=True
        If True, every parameter of the transformer is fixed in advance from the public
        codebook, so fitting it reads nothing from the data (see Notes): 99 one-hot
        columns from the codebook's category lists followed by the 5 numeric columns
        scaled to [0, 1] with fixed bounds, 104 columns in all. If False, the encoder
        and the scaler are fitted on the data, as in an ordinary non-private pipeline.

    Returns
    -------
    ColumnTransformer
        The unfitted transformer. Its output feature names are the input column names
        for numeric features and ``"<feature>_<category>"`` for one-hot columns. With an
        object array as input, pass ``load_adult().feature_names`` to
        ``get_feature_names_out`` to get those names instead of ``x0``, ``x1``, ...

    See Also
    --------
    load_adult : Load the Adult data set.
    skprivate.preprocessing.make_bounded_preprocessor : The same for any table.
    skprivate.preprocessing.StandardScaler : Private statistics, without a codebook.
    sklearn.preprocessing.OneHotEncoder : The categorical encoder used in both modes.

    Notes
    -----
    With ``data_independent=True`` (the default) the transformer learns nothing from the
    rows it is fitted on, so fitting it on private data reveals nothing about them and
    does not use any privacy budget; its output on a row depends on that row alone:

    - Categorical features are one-hot encoded with ``OneHotEncoder(categories=...)``
      using the codebook's complete category lists (hard-coded, in the codebook's order)
      and ``handle_unknown="ignore"``. A missing value (NaN) or a category the codebook
      does not list is encoded as all zeros in that feature's block.
    - Numeric features are imputed, clipped and scaled to [0, 1] by a fixed function
      (a :class:`~skprivate.preprocessing.BoundedScaler`; the whole transformer is
      :func:`~skprivate.preprocessing.make_bounded_preprocessor` with the codebook's
      ranges and categories, the helper to use for other tables): age over [17, 90],
      education-num over [1, 16], hours-per-week over [1, 99], and capital-gain and
      capital-loss as ``log1p`` of the amount over [0, 99999]. Missing values are
      replaced by fixed conventional values (age 40, education-num 9, no capital
      income, 40 hours). The bounds come from the codebook's extraction rule and field
      definitions, never from the rows; in particular the largest capital loss in the
      training file (4,356) is not used as a bound.
    - ``fnlwgt`` is dropped: it is a census sampling weight rather than an attribute of
      the person, it carries almost no signal about income, and no public bound exists.

    Fitting it on the training rows or on any other rows gives the same transformer.
    Together with a differentially private estimator, the whole pipeline is then
    covered by that estimator's guarantee.

    With ``data_independent=False`` it uses ``OneHotEncoder(handle_unknown="ignore")``,
    whose categories are those found in the data (missing values become a category of
    their own), and a median ``SimpleImputer`` followed by a ``StandardScaler`` fitted on
    the data. These read statistics from the (possibly private) training rows, which
    leak through the fitted transformer and every model trained on its output, so such a
    pipeline is NOT covered by any estimator's privacy guarantee. The number of output
    columns then depends on the data. Use it only as a non-private baseline.

    Examples
    --------
    >>> from skprivate.datasets import load_adult, make_adult_preprocessor
    >>> X, y = load_adult(return_X_y=True)
    >>> preprocessor = make_adult_preprocessor()
    >>> Xt = preprocessor.fit_transform(X)
    >>> Xt.shape
    (32561, 104)
    >>> float(Xt.min()), float(Xt.max())
    (0.0, 1.0)
    >>> names = preprocessor.get_feature_names_out(load_adult().feature_names)
    >>> list(names[:3]), list(names[-2:])
    (['workclass_Private', 'workclass_Self-emp-not-inc', 'workclass_Self-emp-inc'],
     ['capital-loss', 'hours-per-week'])

    A non-private model of income on the preprocessed features:

    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> model = make_pipeline(make_adult_preprocessor(), LogisticRegression(max_iter=1000))
    >>> X_test, y_test = load_adult(subset="test", return_X_y=True)
    >>> model.fit(X, y).score(X_test, y_test) > 0.84
    True
    """
    if not isinstance(data_independent, (bool, np.bool_)):
        raise ValueError(
            "The 'data_independent' parameter of make_adult_preprocessor must be one of "
            f"{{True, False}}; got {data_independent!r} instead."
        )
    if data_independent:
        from ..preprocessing import make_bounded_preprocessor  # the generic helper

        position = FEATURE_NAMES.index
        return make_bounded_preprocessor(
            numeric={position(name): NUMERIC_BOUNDS[name] for name in _SCALED},
            categorical={position(name): list(CATEGORIES[name])
                         for name in CATEGORICAL_FEATURES},
            log1p=[position(name) for name in ("capital-gain", "capital-loss")],
            fill_value={position(name): NUMERIC_FILL[name] for name in _SCALED},
        )
    else:
        categorical = OneHotEncoder(
            handle_unknown="ignore", sparse_output=False, dtype=np.float64
        )
        numeric = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    return ColumnTransformer(
        [
            ("categorical", categorical, _CATEGORICAL_COLUMNS),
            ("numeric", numeric, _NUMERIC_COLUMNS),
        ],
        remainder="drop",
        sparse_threshold=0.0,
        # The input names ("age", "workclass_Private", ...) are already unique; the
        # transformer prefixes would only make them longer.
        verbose_feature_names_out=False,
    )
