"""Steps of a pipeline that learn from the private rows outside every privacy guarantee.

A differentially private estimator's ``epsilon_`` covers its own fit. A ``StandardScaler``
or a ``OneHotEncoder(categories="auto")`` placed before it in a Pipeline is fitted on the
same private rows with no noise: its means, variances and category lists are released
exactly (they are in the fitted pipeline, and they shape every prediction). No epsilon
covers them. :func:`leaking_steps` names such steps so that every place a user reads a
pipeline's privacy (:func:`~skprivate.accounting.total_privacy_cost`, the private searches,
the displays) can say so.

The rule is conservative: a step is silent only if it is known to learn nothing from the
rows (``"passthrough"``, ``FunctionTransformer``, an encoder whose categories are declared,
a transformer that declares ``_skprivate_data_independent = True``) or if it is a skprivate
differentially private estimator, whose own ``epsilon_`` covers it. Every other fitted step,
including transformers this module has never heard of, is reported.
"""

from dataclasses import dataclass, field

__all__ = ["LeakingStep", "leaking_steps", "DATA_INDEPENDENT_MARKER"]

# A transformer class (or instance) with this attribute set to True declares that its fit
# reads nothing from the rows but their number of columns (and names): fixed, public
# parameters only. skprivate's bounded preprocessors set it; a user's own stateless
# transformer can set it too, and then stays silent here.
DATA_INDEPENDENT_MARKER = "_skprivate_data_independent"

# What the data-independent alternatives are, named once so that every report says the same.
REMEDY_NUMERIC = (
    "use skprivate.preprocessing.StandardScaler (or another private scaler in "
    "skprivate.preprocessing) with public bounds, or scale with declared public ranges: "
    "skprivate.preprocessing.make_bounded_preprocessor(numeric={column: (low, high)})"
)
REMEDY_CATEGORICAL = (
    "declare the categories (OneHotEncoder(categories=[[...], ...]) or "
    "skprivate.preprocessing.make_bounded_preprocessor(categorical={column: [...]})), or use "
    "skprivate.preprocessing.OneHotEncoder, which finds frequent categories privately"
)
REMEDY_IMPUTER = (
    "fill with a declared constant (SimpleImputer(strategy='constant', fill_value=...)) or "
    "use skprivate.preprocessing.SimpleImputer, whose fill value is private"
)
REMEDY_MODEL = (
    "fit a skprivate differentially private estimator instead, or fit this step on public "
    "data only"
)
REMEDY_SEARCH = (
    "use skprivate.model_selection.PrivateRandomSearchCV or PrivateGridSearchCV, whose "
    "choice of the best candidate is private"
)
REMEDY_UNKNOWN = (
    "replace it by a step with fixed public parameters (skprivate.preprocessing."
    "make_bounded_preprocessor, FunctionTransformer) or by a private one from "
    "skprivate.preprocessing; if it truly learns nothing from the rows, give its class the "
    "attribute _skprivate_data_independent = True"
)

# scikit-learn transformers whose fit reads nothing but the shape of X.
_STATELESS = {
    "FunctionTransformer",
    "Normalizer",  # row-wise: each row scaled by its own norm
    "Binarizer",
    "PolynomialFeatures",
    "FeatureHasher",
    "HashingVectorizer",
}

# scikit-learn's learning transformers: (what they learn, the alternative).
_KNOWN = {
    "StandardScaler": ("the mean and variance of each feature", REMEDY_NUMERIC),
    "MinMaxScaler": ("the minimum and maximum of each feature", REMEDY_NUMERIC),
    "MaxAbsScaler": ("the largest absolute value of each feature", REMEDY_NUMERIC),
    "RobustScaler": ("the median and quantiles of each feature", REMEDY_NUMERIC),
    "QuantileTransformer": ("the quantiles of each feature", REMEDY_NUMERIC),
    "PowerTransformer": ("a power per feature and the mean and variance", REMEDY_NUMERIC),
    "KBinsDiscretizer": ("bin edges from the rows", REMEDY_NUMERIC),
    "SplineTransformer": ("knots at quantiles of the rows", REMEDY_NUMERIC),
    "OneHotEncoder": ("the categories present in the rows", REMEDY_CATEGORICAL),
    "OrdinalEncoder": ("the categories present in the rows", REMEDY_CATEGORICAL),
    "TargetEncoder": ("the mean target of each category", REMEDY_CATEGORICAL),
    "LabelEncoder": ("the labels present in the rows", REMEDY_CATEGORICAL),
    "LabelBinarizer": ("the labels present in the rows", REMEDY_CATEGORICAL),
    "MultiLabelBinarizer": ("the labels present in the rows", REMEDY_CATEGORICAL),
    "SimpleImputer": ("a fill value per feature (mean, median or mode)", REMEDY_IMPUTER),
    "KNNImputer": ("a copy of the rows themselves", REMEDY_IMPUTER),
    "IterativeImputer": ("a regression model of each feature", REMEDY_IMPUTER),
    "MissingIndicator": ("which features have missing values", REMEDY_IMPUTER),
    "VarianceThreshold": ("the variance of each feature", REMEDY_NUMERIC),
}


@dataclass(frozen=True)
class LeakingStep:
    """One step that learns from the private rows with no differential privacy guarantee.

    Parameters
    ----------
    path : str
        Where the step is, as the names that lead to it joined by ``"/"``
        (``"columntransformer/num/standardscaler"``); the lower-cased class name for a
        step that is not inside anything.
    name : str
        The step's class name.
    learns : str
        What it learns from the rows.
    remedy : str
        The data-independent (or private) alternative.
    fitted : bool, default=False
        Whether the step was already fitted (False: it will learn when fitted).
    estimator : object, default=None
        The step itself (not compared, not shown).

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.accounting import leaking_steps
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> [step] = leaking_steps(make_pipeline(StandardScaler(), DPLSSGDClassifier()))
    >>> step.path, step.name
    ('standardscaler', 'StandardScaler')
    """

    path: str
    name: str
    learns: str
    remedy: str
    fitted: bool = False
    estimator: object = field(default=None, compare=False, repr=False)

    @property
    def caveat(self):
        """The caveat for a privacy report (a ``skprivate._caveats.Caveat``, kind
        ``"preprocessing_learned"``): names the step, what it learns, and the alternative."""
        from .._caveats import preprocessing_learned

        return preprocessing_learned(
            f"step '{self.path}' ({self.name}, which learns {self.learns})", self.remedy
        )


def _is_dp(est):
    """A skprivate differentially private estimator: its own epsilon_ covers its fit."""
    from ..base import DPEstimatorMixin

    return isinstance(est, DPEstimatorMixin) or hasattr(est, "_privacy_plan")


def _declares_data_independent(est):
    return getattr(est, DATA_INDEPENDENT_MARKER, False) is True


def _is_fitted(est):
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(est)
    except Exception:  # NotFittedError, or an object check_is_fitted cannot judge
        return False
    return True


def _encoder_learns(est):
    """What an OneHotEncoder/OrdinalEncoder learns, or None if its categories are declared."""
    params = est.get_params(deep=False)
    if isinstance(params.get("categories"), str):  # "auto"
        return "the categories present in the rows"
    if params.get("min_frequency") is not None or params.get("max_categories") is not None:
        return "how often each declared category occurs (min_frequency/max_categories)"
    return None


def _learns(est):
    """What ``est`` learns without a guarantee, and the remedy; None if it learns nothing."""
    name = type(est).__name__
    if _declares_data_independent(est) or _is_dp(est):
        return None
    if name in _STATELESS:
        return None
    if name in ("OneHotEncoder", "OrdinalEncoder"):
        learns = _encoder_learns(est)
        return None if learns is None else (learns, REMEDY_CATEGORICAL)
    if name == "SimpleImputer" and est.get_params(deep=False).get("strategy") == "constant":
        return None
    if name == "MissingIndicator" and est.get_params(deep=False).get("features") == "all":
        return None
    if name in _KNOWN:
        return _KNOWN[name]
    try:
        from sklearn.base import is_classifier, is_regressor

        predictor = is_classifier(est) or is_regressor(est)
    except Exception:  # an object without tags
        predictor = False
    if predictor:
        return "a model of the rows (not differentially private)", REMEDY_MODEL
    return "parameters from the rows (an unknown transformer, assumed to)", REMEDY_UNKNOWN


def _join(prefix, name):
    return f"{prefix}/{name}" if prefix else name


def _walk(est, path, fitted_above, out):
    if est is None or isinstance(est, str):  # "passthrough", "drop", None
        return
    name = type(est).__name__
    here = path or name.lower()
    fitted = fitted_above or _is_fitted(est)

    steps = getattr(est, "steps", None)
    if name == "Pipeline" or (isinstance(steps, list) and hasattr(est, "named_steps")):
        for step_name, step in steps:
            _walk(step, _join(path, step_name), fitted, out)
        return
    if hasattr(est, "transformers") and hasattr(est, "remainder"):  # ColumnTransformer
        transformers = getattr(est, "transformers_", None)
        if transformers is None:
            transformers = [*est.transformers, ("remainder", est.remainder, None)]
        for step_name, step, _ in transformers:
            _walk(step, _join(path, step_name), fitted, out)
        return
    if hasattr(est, "transformer_list"):  # FeatureUnion
        for step_name, step in est.transformer_list:
            _walk(step, _join(path, step_name), fitted, out)
        return
    if _is_dp(est):
        # A private search runs its candidates (Pipelines with preprocessing) on the rows;
        # only their DP step is covered. Other DP estimators' inner models (PATE teachers)
        # are inside the DP estimator's own guarantee.
        inner = getattr(est, "estimator", None)
        searches = hasattr(est, "param_distributions") or hasattr(est, "param_grid")
        if inner is not None and searches:
            best = getattr(est, "best_estimator_", None)
            _walk(best if best is not None else inner, _join(path, "estimator"), fitted, out)
        return
    if hasattr(est, "cv_results_") or (
        hasattr(est, "estimator") and hasattr(est, "cv") and hasattr(est, "refit")
    ):  # a scikit-learn search: noiseless choice, then the candidates' steps
        out.append(LeakingStep(
            here, name, "the best candidate from noiseless validation scores",
            REMEDY_SEARCH, fitted, est,
        ))
        best = getattr(est, "best_estimator_", None)
        _walk(best if best is not None else est.estimator, _join(path, "estimator"),
              fitted, out)
        return
    if name == "TransformedTargetRegressor":
        regressor = getattr(est, "regressor_", None) or est.regressor
        transformer = getattr(est, "transformer_", None) or est.transformer
        _walk(regressor, _join(path, "regressor"), fitted, out)
        if transformer is not None:
            _walk(transformer, _join(path, "transformer"), fitted, out)
        return
    learns = _learns(est)
    if learns is not None:
        out.append(LeakingStep(here, name, learns[0], learns[1], fitted, est))


def leaking_steps(estimator):
    """The steps of ``estimator`` that learn from the private rows without a DP guarantee.

    Walks Pipelines, ColumnTransformers (including ``remainder``), FeatureUnions,
    ``TransformedTargetRegressor``, scikit-learn searches (whose choice of the best candidate
    is itself a leak) and skprivate's private searches (into their candidate estimator),
    fitted or not.

    Parameters
    ----------
    estimator : estimator, "passthrough" or None
        What to inspect: a Pipeline, a single step, a search.

    Returns
    -------
    steps : list of LeakingStep
        One entry per leaking step, in the order the steps are fitted; empty when every
        step is either differentially private or learns nothing from the rows.

    See Also
    --------
    total_privacy_cost : Names these steps and warns about them.
    skprivate.preprocessing.make_bounded_preprocessor : A data-independent preprocessor.

    Notes
    -----
    Silent (learns nothing from the rows, or is covered by its own ``epsilon_``):
    ``"passthrough"``, ``"drop"``, ``FunctionTransformer``, ``Normalizer``, ``Binarizer``,
    ``PolynomialFeatures``, ``OneHotEncoder``/``OrdinalEncoder`` with declared category lists
    (and no ``min_frequency``/``max_categories``), ``SimpleImputer(strategy="constant")``,
    skprivate's differentially private estimators and preprocessors, and any step whose
    class (or instance) sets ``_skprivate_data_independent = True``.

    Everything else is reported, including unknown transformers and non-private
    predictors. A leaking step's statistics are released exactly, inside the fitted
    pipeline: the pipeline's privacy is not the DP step's ``epsilon_``, it has none.

    Examples
    --------
    >>> from sklearn.compose import make_column_transformer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import OneHotEncoder, StandardScaler
    >>> from skprivate.accounting import leaking_steps
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> pipe = make_pipeline(
    ...     make_column_transformer(
    ...         (StandardScaler(), [0, 1]),
    ...         (OneHotEncoder(categories=[["a", "b"]]), [2]),
    ...     ),
    ...     DPLSSGDClassifier(epsilon=1.0),
    ... )
    >>> [step.path for step in leaking_steps(pipe)]
    ['columntransformer/standardscaler']
    >>> caveat = leaking_steps(pipe)[0].caveat
    >>> caveat.code
    'preprocessing_learned'
    >>> print(caveat[:56])
    step 'columntransformer/standardscaler' (StandardScaler,
    """
    out = []
    _walk(estimator, "", False, out)
    return out
