"""Steps of a pipeline that learn from the private rows outside every privacy guarantee.

A differentially private estimator's ``epsilon_`` covers its own fit. A ``StandardScaler``
or a ``OneHotEncoder(categories="auto")`` placed before it in a Pipeline is fitted on the
same private rows with no noise: its means, variances and category lists are released
exactly (they are in the fitted pipeline, and they shape every prediction). No epsilon
covers them. :func:`leaking_steps` names such steps so that every place a user reads a
pipeline's privacy (:func:`~skprivate.accounting.total_privacy_cost`, the private searches,
the displays) can say so.

A skprivate differentially private step is no better when it read its clipping bounds or
its label set from the rows (``StandardScaler(bounds=None)``, ``classes=None``): those are
published exactly, and the epsilon_ it reports does not cover them. Such a step is a leak
too, named with the caveats of its own report (the codes in
:data:`skprivate._caveats.GUARANTEE_VOID`, read from ``privacy_report_.caveat_codes``, never
from warning text) or, before it is fitted, with those its parameters decide
(:func:`parameter_caveats`).

The rule is conservative: a step is silent only if it is known to learn nothing from the
rows (``"passthrough"``, ``FunctionTransformer``, an encoder whose categories are declared,
a transformer that declares ``_skprivate_data_independent = True``) or if it is a skprivate
differentially private estimator whose own ``epsilon_`` covers it (no caveat that voids its
guarantee). Every other fitted step, including transformers this module has never heard of,
is reported.
"""

from dataclasses import dataclass, field

from .. import _caveats

__all__ = [
    "DATA_INDEPENDENT_MARKER",
    "LeakingStep",
    "dp_steps",
    "leaking_steps",
    "parameter_caveats",
    "void_caveats",
]

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
REMEDY_BINS = (
    "bin with edges from declared public ranges: skprivate.preprocessing."
    "BoundedKBinsDiscretizer(bounds=(low, high)) or make_bounded_preprocessor(numeric="
    "{column: (low, high)}, n_bins=16)"
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
    "KBinsDiscretizer": ("bin edges from the rows", REMEDY_BINS),
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
    caveats : tuple of Caveat, default=()
        For a differentially private step whose guarantee is void: the caveats that void
        it (from its report once fitted, from its parameters before). Empty for a step
        that is not differentially private.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skprivate.accounting import leaking_steps
    >>> from skprivate.linear_model import DPLSSGDClassifier
    >>> pipe = make_pipeline(StandardScaler(), DPLSSGDClassifier(classes=[0, 1]))
    >>> [step] = leaking_steps(pipe)
    >>> step.path, step.name
    ('standardscaler', 'StandardScaler')
    """

    path: str
    name: str
    learns: str
    remedy: str
    fitted: bool = False
    estimator: object = field(default=None, compare=False, repr=False)
    caveats: tuple = field(default=(), compare=False, repr=False)

    @property
    def caveat(self):
        """The caveat for a privacy report (a ``skprivate._caveats.Caveat``).

        It names the step, what it learns and the alternative. Its code is
        ``"preprocessing_learned"`` for a step that is not differentially private; for a
        private step whose guarantee is void, the code of the first caveat that voids it
        (``"bounds_from_data"``, ...), whose sentences it repeats.
        """
        if self.caveats:
            return _caveats.Caveat(
                self.caveats[0].code,
                f"step '{self.path}' ({self.name}) is differentially private, but "
                f"{self.learns}, outside its epsilon_: " + "; ".join(self.caveats),
            )
        return _caveats.preprocessing_learned(
            f"step '{self.path}' ({self.name}, which learns {self.learns})", self.remedy
        )


def dp_steps(estimator, path=""):
    """``(path, step)`` of every differentially private step inside ``estimator``.

    Walks Pipelines, ColumnTransformers (fitted ``transformers_`` when present) and
    FeatureUnions; a DP estimator (a private search included) is one step, covered by its
    own ``epsilon_`` unless its guarantee is void (:func:`void_caveats`).
    """
    if estimator is None or isinstance(estimator, str):
        return []
    if hasattr(estimator, "_privacy_plan"):
        return [(path or type(estimator).__name__.lower(), estimator)]
    join = (lambda name: f"{path}/{name}" if path else name)
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list):  # a Pipeline: every DP step reads the training rows
        return [p for name, step in steps for p in dp_steps(step, join(name))]
    if hasattr(estimator, "transformers") and hasattr(estimator, "remainder"):
        transformers = getattr(estimator, "transformers_", None)
        if transformers is None:
            transformers = [*estimator.transformers, ("remainder", estimator.remainder, None)]
        return [p for name, step, _ in transformers for p in dp_steps(step, join(name))]
    if hasattr(estimator, "transformer_list"):
        return [p for name, step in estimator.transformer_list
                for p in dp_steps(step, join(name))]
    return []



# What a differentially private step published outside its epsilon_, by caveat code.
_VOID_LEARNS = {
    "bounds_from_data": "its clipping bounds come from the rows",
    "labels_from_data": "its set of classes comes from the labels",
    "preprocessing_learned": "a step inside it learns from the rows without noise",
    "data_dependent_epsilon": "it publishes an epsilon computed from the rows",
    "validation_rows_unprotected": "it scores held-out rows without noise",
}


def _spends(step):
    """Whether ``step`` costs privacy with its current parameters (declared encoders do not)."""
    try:
        return step._privacy_plan(10_000).epsilon > 0
    except Exception:  # a plan that needs fitted state: assume it spends
        return True


def parameter_caveats(step, classes=None, *, planned=True):
    """The caveats that void ``step``'s guarantee, decided from its parameters alone.

    skprivate's estimators decide these from their parameters, before any data is read:
    ``classes=None`` on a classifier reads the label set from ``y``; a net's ``train_split``
    scores held-out private rows without noise; ``bounds``/``data_norm`` (and ``y_bound``)
    left None read the clipping bounds from the data (one of ``bounds``/``data_norm``
    given makes both public; a private preprocessor that spends nothing, such as
    ``SimpleImputer(strategy="constant")``, reads none); ``min_categories=None`` reads the
    number of categories of each feature.

    Parameters
    ----------
    step : estimator
        A skprivate differentially private estimator.
    classes : array-like, default=None
        The label set, when already known (a search's ``classes_``), for the sentence.
    planned : bool, default=True
        Whether the sentences speak of an unfitted ``step`` ("will be read") or of a fit
        that happened (a search's candidates: "were read"; the label caveat is then stated
        only with the ``classes`` the fit read).

    Returns
    -------
    caveats : list of Caveat
    """
    from sklearn.base import is_classifier

    params = step.get_params(deep=False)
    caveats = []
    if "classes" in params and params["classes"] is None and is_classifier(step):
        if planned or classes is not None:
            caveats.append(_caveats.labels_from_data(classes))
    if params.get("train_split"):
        caveats.append(_caveats.validation_rows_unprotected(params["train_split"]))
    # bounds_X and bounds_y: diffprivlib's names, kept by the AdaSSP regressions
    present = [k for k in ("data_norm", "bounds", "bounds_X") if k in params]
    # an estimator that releases its range privately when bounds=None (the boosting
    # estimators: skprivate.ensemble._range) reads nothing from the rows there
    private_range = getattr(step, "_PRIVATE_RANGE_WHEN_NONE", False)
    read = [k for k in present if params[k] is None and not (k == "bounds" and private_range)]
    read_y = [k for k in ("y_bound", "bounds_y") if k in params and params[k] is None]
    if len(read) == 2:  # either one, given, makes both public
        fix = (f"public bounds ({' or '.join(read)}"
               + (f", and {read_y[0]}" if read_y else "") + ")")
        caveats.append(_caveats.bounds_from_data(read + read_y, fix, planned=planned))
    else:
        if read and read == present == ["bounds"] and _spends(step):
            # a private scaler, imputer or boosting estimator that reads its range from X
            caveats.append(_caveats.bounds_from_data(read, "bounds=(lower, upper)",
                                                       planned=planned))
        if read_y:  # the target's range, read from y whatever X's bounds are
            caveats.append(_caveats.bounds_from_data(read_y, read_y[0], planned=planned))
    if "min_categories" in params and params["min_categories"] is None and _spends(step):
        # CategoricalNB reads the number of categories of each feature from the rows
        caveats.append(_caveats.bounds_from_data(
            ["min_categories"], "min_categories=[...] (the number of categories of each "
            "feature)", planned=planned))
    return caveats


def void_caveats(step):
    """The caveats that void a differentially private ``step``'s guarantee (none: covered).

    A fitted step: those of its ``privacy_report_`` whose code is in
    :data:`skprivate._caveats.GUARANTEE_VOID`. Before it is fitted: :func:`parameter_caveats`.
    """
    report = getattr(step, "privacy_report_", None)
    if report is None:
        return parameter_caveats(step)
    return [c for c in report.get("caveats", ())
            if getattr(c, "code", None) in _caveats.GUARANTEE_VOID]


def _is_dp(est):
    """A skprivate differentially private estimator: its own epsilon_ covers its fit.

    Every ``DPEstimatorMixin`` (and a private search) has ``_privacy_plan``; reading the
    attribute, not the class, keeps this module below ``skprivate.base``."""
    return hasattr(est, "_privacy_plan")


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
            # Its candidates are walked instead of its report: the report restates their
            # caveats, and each is named once, at the step that causes it.
            best = getattr(est, "best_estimator_", None)
            _walk(best if best is not None else inner, _join(path, "estimator"), fitted, out)
            return
        void = tuple(void_caveats(est))
        if void:  # its own epsilon_ does not cover what it read from the rows
            learns = " and ".join(dict.fromkeys(
                _VOID_LEARNS.get(c.code, "its guarantee does not hold") for c in void))
            remedy = "; ".join(void)
            out.append(LeakingStep(here, name, learns, remedy, fitted, est, void))
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
    skprivate's differentially private estimators and preprocessors whose guarantee holds,
    and any step whose class (or instance) sets ``_skprivate_data_independent = True``.

    A skprivate differentially private step is reported when its guarantee is void: its
    report's caveat codes (``privacy_report_.caveat_codes``) include one of
    :data:`skprivate._caveats.GUARANTEE_VOID` (bounds or norms read from the rows, the set
    of classes read from the labels, rows scored without noise, ...), or, before it is
    fitted, its parameters decide one (:func:`parameter_caveats`: ``bounds=None``,
    ``data_norm=None``, ``classes=None``, ``train_split``). Caveats that qualify a
    guarantee that holds (a fixed seed, a large delta) do not make a leak. A private
    search is judged through its candidates, each cause named once, at its step.

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
    ...     DPLSSGDClassifier(epsilon=1.0, classes=[0, 1]),
    ... )
    >>> [step.path for step in leaking_steps(pipe)]
    ['columntransformer/standardscaler']
    >>> caveat = leaking_steps(pipe)[0].caveat
    >>> caveat.code
    'preprocessing_learned'
    >>> print(caveat[:56])
    step 'columntransformer/standardscaler' (StandardScaler,

    A private step is covered by its own ``epsilon_`` only if it reads nothing outside it:
    the private scaler with ``bounds=None`` and a classifier with ``classes=None`` read their
    bounds and label set from the rows.

    >>> from skprivate.preprocessing import StandardScaler as PrivateScaler
    >>> pipe = make_pipeline(PrivateScaler(), DPLSSGDClassifier())
    >>> [(step.path, step.caveat.code) for step in leaking_steps(pipe)]
    [('standardscaler', 'bounds_from_data'), ('dplssgdclassifier', 'labels_from_data')]
    """
    out = []
    _walk(estimator, "", False, out)
    return out
