"""Every released value that carries continuous (floating-point) noise, estimator by estimator.

Why. The privacy proofs assume real-valued noise; the code adds floating-point samples, and
Mironov (2012) and Jin, McMurtry, Rubinstein and Ohrimenko (2022) showed that a released
floating-point ``value + noise`` can reveal ``value``. The exact integer samplers of
:mod:`skprivate.mechanisms` (discrete Laplace and discrete Gaussian) have no such weakness;
everything else that a fitted estimator publishes and that depends on a continuous sample is
listed here, so that users can see, release by release, what is exposed to those attacks.

One source of truth. :data:`CONTINUOUS_RELEASES` is the list, and :data:`SECURE_RELEASES`
the values converted to exact integer noise (the granular mechanism of
:mod:`skprivate.mechanisms._secure`, or a choice made with exact integer noise), which the
test allows to vary like the listed ones; the security page
(``docs/security.rst``, between the ``noise-inventory`` markers) shows it as the table
:func:`render_table` writes (``python -m skprivate._noise_inventory`` prints it), and
``tests/test_noise_inventory.py`` keeps the two equal. The same test fits every estimator
three times with different seeds and fails on a fitted value that differs between the fits,
is not integer-valued and is not listed here for that estimator and its parameters
(:func:`listed`), and on a listed value that no longer varies.

Not listed, on purpose: values that vary only through integer noise (PATE's vote counts and
labels, the one-hot encoder's categories, the noisy number of rows of
:mod:`skprivate._row_count` and every plan chosen from it: the sampling rate, the steps, the
learning rate, the number of teachers), through which rows a Poisson batch or a random split
holds, or through timing (the networks' ``history_`` durations); values computed from the
rows without noise, which are not releases of a mechanism (PATE's
``epsilon_data_dependent_``); and fitted sub-estimators (a search's ``best_estimator_`` is listed
as one entry, its own releases under its class; PATE's ``student_`` learns from the public
points and the integer-noise votes only).
"""

from collections import namedtuple

__all__ = []

ContinuousRelease = namedtuple(
    "ContinuousRelease", "estimators attributes condition when what mechanism"
)
ContinuousRelease.__doc__ = """Released values that carry continuous noise, from one mechanism.

``estimators``: class names; ``attributes``: the fitted attributes, with ``["key"]`` for an
entry of a dict attribute; ``condition``: when the estimator releases them, in words (None:
always); ``when``: the same as a test on the estimator's ``get_params()`` (None: always);
``what``: what the values are; ``mechanism``: the continuous noise and its sampler.
"""


def _param_is(name, value):
    return lambda params: name in params and params[name] == value


def _optimizer_keeps_state(params):
    # torch's SGD keeps no state without momentum; every other optimizer may (Adam's moments)
    optimizer = getattr(params.get("optimizer"), "__name__", "SGD")
    return optimizer != "SGD" or bool(params.get("optimizer__momentum", 0))


_DPSGD_LINEAR = ("DPLSSGDClassifier", "DPLSSGDRegressor")
_NETS = ("DPLSSGDNeuralNetClassifier", "DPLSSGDNeuralNetRegressor")
_DROPOUT = ("DPDropoutClassifier", "DPDropoutRegressor")
_SEARCHES = ("PrivateGridSearchCV", "PrivateRandomSearchCV")
_BOOSTING = ("HistGradientBoostingClassifier", "HistGradientBoostingRegressor")
# The boosting estimators' parts by their start (``init``). Which applies under
# init="auto" depends on the rows planned on as well (the linear model alone below 1,500
# rows for the classifier, 6,000 for the regressor); the ``when`` tests say what the walking
# test's 400-row fits release.
_WITH_TREES = ('unless the fit is the private linear model alone (``init="auto"`` on a '
               "table too small for the trees)")
_FROM_PRIOR = ('``init="prior"``, or ``init="auto"`` (the default) on a table large enough '
               "for the trees")
_FROM_LINEAR = ('``init="linear"``, or ``init="auto"`` (the default) on a table too small '
                "for the trees")


def _with_trees(params):
    return params.get("init") != "auto"
_PERMUTE_AND_FLIP = (
    "permute-and-flip over the 4097 evenly spaced points of the public bounds, with exact "
    "Bernoulli(exp(-gamma)) coins on integer rank utilities "
    "(``skprivate.mechanisms._selection``): the release is one of those points"
)

#: Every released value that carries continuous noise (see the module docstring).
CONTINUOUS_RELEASES = ()


#: Released values that vary between seeds by non-integer amounts but carry no
#: floating-point noise: each is released by the granular mechanism of
#: :mod:`skprivate.mechanisms._secure` (the exact statistic rounded to a power-of-two grid
#: plus exact discrete noise on it), is a choice made from exact integer noise, or is a
#: function of such releases and public numbers only. Same fields as
#: :data:`CONTINUOUS_RELEASES`; ``mechanism`` names the discrete noise.
SECURE_RELEASES = (
    ContinuousRelease(
        _SEARCHES, ("best_estimator_",), None, None, "the released run's fitted estimator",
        "its own releases, as listed for its class in this table",
    ),
    ContinuousRelease(
        _DPSGD_LINEAR, ("coef_", "intercept_"), None, None, "the trained model",
        "DP-SGD with rounded Gaussian noise (``rounded_gaussian_mechanism``): each step's "
        "clipped sum rounded to a power-of-two grid plus exact rounded Gaussian integer "
        "noise, a post-processing of the subsampled Gaussian mechanism "
        "(``set_config(secure_noise=False)`` restores NumPy's floating-point "
        "``Generator.normal``)",
    ),
    ContinuousRelease(
        _DPSGD_LINEAR, ("offset_", "row_scale_"), '``max_grad_norm="auto"`` (the default)',
        _param_is("max_grad_norm", "auto"),
        "the private mean row and root mean squared centred norm (over 3) the rows were "
        "centred and scaled by",
        "rounded Gaussian mechanism on the histogram of row norms and on the sums of "
        "norm-clipped rows and of their squared norms (as the steps)",
    ),
    ContinuousRelease(
        _NETS, ("module_",), None, None, "the network's weights (``module_.state_dict()``)",
        "DP-SGD with rounded Gaussian noise (``rounded_gaussian_mechanism``): each clipped "
        "per-example gradient rounded to a power-of-two grid, the integer vectors summed "
        "exactly, exact rounded Gaussian integer noise added on the CPU and the release "
        "moved to the module's device; a post-processing of the subsampled Gaussian "
        "mechanism (``set_config(secure_noise=False)`` restores the floating-point noise: "
        "NumPy ``Generator.standard_normal``, or ``torch.randn`` under an int "
        "``random_state`` or ``set_config(secure_generator=False)``)",
    ),
    ContinuousRelease(
        _NETS, ("optimizer_",),
        "an optimizer that keeps state (``optimizer__momentum`` > 0, Adam, ...)",
        _optimizer_keeps_state,
        "the optimizer's state (momentum buffers, Adam's moments), saved with the model",
        "the same released gradients, accumulated (post-processing)",
    ),
    ContinuousRelease(
        ("PATEClassifier",),
        ("epsilon_sanitized_",
         'privacy_report_["epsilon (data-dependent, sanitised: publishable estimate)"]'),
        "``release_data_dependent=True``", _param_is("release_data_dependent", True),
        "the sanitised data-dependent epsilon",
        "smooth sensitivity (GNSS) on a power-of-two grid (about ``2**-20`` of the cap): "
        "one exact rounded Gaussian integer of scale ``sigma max(S(D) + gamma, gamma / "
        "sigma)``, a post-processing of GNSS, clipped to ``[0, worst case]``",
    ),
    ContinuousRelease(
        _DROPOUT, ("lambda_noisy_", 'privacy_report_["lambda_noisy"]'), None, None,
        "the noisy leave-one-out support of the rarest feature (propose-test-release)",
        "granular discrete Laplace (``granular_laplace_mechanism``): a multiple of the "
        "largest power of two at most ``2**-10 min(1, 1/epsilon1)``, exact integer noise, "
        "epsilon1-DP exactly",
    ),
    ContinuousRelease(
        _DROPOUT,
        ("lambda_bound_", "sensitivity_", "noise_std_", "noise_to_signal_",
         'privacy_report_["lambda lower bound"]', 'privacy_report_["sensitivity"]',
         'privacy_report_["noise std"]', 'privacy_report_["noise-to-signal ratio"]'),
        "the test's lower bound is positive (``lambda_bound_ > 0``)", None,
        "the lower bound ``lambda_noisy_ - margin`` and the release's sensitivity, noise and "
        "noise-to-signal ratio computed from it",
        "functions of ``lambda_noisy_`` and public numbers",
    ),
    ContinuousRelease(
        ("DPDropoutClassifier",), ("selection_", 'privacy_report_["selection"]'), None, None,
        "which candidate the private choice returned (the model, with an intercept shift "
        "from a public grid, or a constant predictor); not the noisy counts",
        "Report Noisy Max with exact discrete Laplace noise on integer counts of correctly "
        "classified rows (ties to the first candidate): only the choice is released",
    ),
    ContinuousRelease(
        ("stats.sum", "stats.nansum", "stats.mean", "stats.nanmean", "stats.var",
         "stats.nanvar", "stats.std", "stats.nanstd"),
        ("value",), None, None,
        "the returned statistic (``PrivateResult.value``), a function of noisy sums and "
        "counts",
        "granular Laplace (``delta=0``) or granular Gaussian (``delta>0``) on exact "
        "fixed-point sums of clipped values; discrete Laplace or discrete Gaussian on the "
        "counts",
    ),
    ContinuousRelease(
        ("stats.quantile", "stats.nanquantile", "stats.percentile", "stats.nanpercentile",
         "stats.median", "stats.nanmedian"),
        ("value",), None, None,
        "the returned quantiles: points of a public grid in the bounds",
        "permute-and-flip with exact Bernoulli(exp(-gamma)) coins on integer rank "
        "utilities (``skprivate.mechanisms._selection``)",
    ),
    ContinuousRelease(
        ("GaussianNB",), ("theta_", "var_", "var_floor_", "class_prior_"), None, None,
        "the private per-class means, the pooled variances, their noise floor and the "
        "priors (functions of the noisy counts and sums)",
        "exact discrete Laplace on the class counts; granular discrete Laplace "
        "(``granular_laplace_mechanism``) on the clipped sums and sums of squares",
    ),
    ContinuousRelease(
        ("CategoricalNB",), ("class_count_", "class_log_prior_", "feature_log_prob_[*]"), None,
        None, "the class counts (mean of the noisy category counts' sums), the priors and "
        "the category probabilities",
        "functions of the category counts, released with exact discrete Laplace noise",
    ),
    ContinuousRelease(
        ("KMeans",), ("cluster_centers_",), None, None,
        "the private cluster centres",
        "granular discrete Gaussian (``granular_gaussian_mechanism``) on each Lloyd "
        "iteration's sums (and, with more than 6 features, on the start's leaf sums), over "
        "exact discrete Gaussian counts; the start is chosen from discrete Gaussian counts",
    ),
    ContinuousRelease(
        ("PCA",),
        ("mean_", "components_", "explained_variance_", "explained_variance_ratio_",
         "singular_values_", "clip_radius_", 'privacy_report_["clip_radius"]'),
        None, None,
        "the private mean, the eigenvectors of the private second-moment matrix, the "
        "variances along them, and the variances' clipping radius (a public bin edge chosen "
        "from noisy counts)",
        "granular discrete Gaussian (``granular_gaussian_mechanism``, rho-zCDP) on the sum of "
        "the rows, the upper triangle of the unit-norm centred rows' second moments and the "
        "clipped variances; exact discrete Laplace counts for the radius",
    ),
    ContinuousRelease(
        ("LinearRegression", "Ridge"),
        ("coef_", "intercept_", "noise_ridge_", "clip_radius_", 'privacy_report_["noise_ridge"]',
         'privacy_report_["clip_radius"]', 'privacy_report_["l2_sensitivity"]["lambda_min"]',
         'privacy_report_["l2_sensitivity"]["Z^T Z"]', 'privacy_report_["l2_sensitivity"]["Z^T y"]',
         'privacy_report_["noise_std"]["lambda_min"]', 'privacy_report_["noise_std"]["Z^T Z"]',
         'privacy_report_["noise_std"]["Z^T y"]'),
        None, None,
        "the coefficients solved from the noisy sufficient statistics, AdaSSP's ridge, the "
        "rows' clipping radius (a public bin edge chosen from noisy counts) and the "
        "sensitivities and noise computed from it",
        "granular discrete Gaussian (``granular_gaussian_mechanism``, rho-zCDP) on the "
        "smallest eigenvalue of ``Z^T Z``, on ``Z^T Z`` and on ``Z^T y``; exact discrete "
        "Laplace counts for the radius",
    ),
    ContinuousRelease(
        ("HistGradientBoostingClassifier",), ("leaf_values_",), _WITH_TREES, _with_trees,
        "the trees' leaf values (Newton steps from each round's noisy leaf sums of gradients "
        "and Hessians)",
        "rounded Gaussian (``rounded_gaussian_mechanism``, Gaussian DP composed exactly) on "
        "each round's leaf sums; the values are functions of those releases and public "
        "numbers",
    ),
    ContinuousRelease(
        ("HistGradientBoostingClassifier",), ("baseline_prediction_",), _FROM_PRIOR,
        _param_is("init", "prior"), "the starting scores (from the noisy class counts)",
        "rounded Gaussian (``rounded_gaussian_mechanism``, Gaussian DP composed exactly with "
        "the rounds) on the class counts",
    ),
    ContinuousRelease(
        _BOOSTING, ("init_estimator_",), _FROM_LINEAR,
        lambda params: params.get("init") in ("auto", "linear"),
        "the private linear model the scores start from",
        "its own releases, as listed for ``DPLSSGDClassifier`` and ``DPLSSGDRegressor`` in "
        "this table",
    ),
    ContinuousRelease(
        _BOOSTING, ("bounds_[*]", "bin_edges_"),
        "``bounds=None`` (the default), with trees", lambda params: params.get(
            "bounds") is None and _with_trees(params),
        "each numeric feature's range (powers of two, or 0, from the public grid of binary "
        "exponents), and so the outer bin edges",
        "rounded Gaussian (``rounded_gaussian_mechanism``) on the numeric features' "
        "histograms over that grid, 10 % of the trees' Gaussian-DP budget, composed "
        "exactly with their other releases; the range is their post-processing",
    ),
    ContinuousRelease(
        _BOOSTING, ("bin_edges_",),
        '``binning="quantile"`` (the default), when the rows planned on are enough for the '
        "histograms to be released, " + _WITH_TREES,
        lambda params: params.get("binning") == "quantile" and _with_trees(params),
        "the numeric features' bin edges: quantiles of their noisy histograms on a public "
        "grid (equal-width edges where those histograms show balanced equal bins)",
        "rounded Gaussian (``rounded_gaussian_mechanism``, composed exactly with the fit's "
        "other Gaussian releases) on the histograms; the edges are their post-processing",
    ),
    ContinuousRelease(
        ("StandardScaler",), ("mean_", "var_", "scale_"), None, None,
        "the private mean and variance of each feature (the noisy number of rows they divide "
        "by, ``n_samples_seen_``, is an integer)",
        "exact rounded Gaussian on the count; rounded Gaussian (``rounded_gaussian_mechanism``) "
        "on the clipped sums and sums of squares; one Gaussian mechanism, analytic "
        "calibration (``GaussianDpEvent``)",
    ),
    ContinuousRelease(
        ("SimpleImputer",), ("statistics_",), '``strategy="mean"`` (the default)',
        _param_is("strategy", "mean"), "the private mean of each feature's present values",
        "exact rounded Gaussian on the counts; rounded Gaussian "
        "(``rounded_gaussian_mechanism``) on the clipped sums; one Gaussian mechanism, "
        "analytic calibration (``GaussianDpEvent``)",
    ),
    ContinuousRelease(
        ("RobustScaler",), ("center_", "scale_"), None, None,
        "the private median and quantile range of each feature", _PERMUTE_AND_FLIP,
    ),
    ContinuousRelease(
        ("SimpleImputer",), ("statistics_",), '``strategy="median"``',
        _param_is("strategy", "median"), "the private median of each feature's present values",
        _PERMUTE_AND_FLIP,
    ),
    ContinuousRelease(
        _SEARCHES,
        ("best_score_noisy_", "best_score_", 'cv_results_["mean_test_score"]',
         'privacy_report_["best_score_noisy"]'),
        None, None, "the released run's noisy validation score (``best_score_`` clipped to "
        "the score's range)",
        "granular discrete Gaussian (``granular_gaussian_mechanism``) on a sum of clipped "
        "per-row score terms, divided by the public expected validation size; accounted in "
        "Renyi DP as before",
    ),
    ContinuousRelease(
        _DROPOUT, ("coef_", "intercept_"), None, None, "the released model",
        "rounded Gaussian output perturbation (``rounded_gaussian_mechanism``) of the exact "
        "minimiser, a post-processing of the Gaussian mechanism with the analytic "
        "calibration to (epsilon2, delta2), projected onto the public ball",
    ),
    ContinuousRelease(
        ("HistGradientBoostingRegressor",), ("leaf_values_",), _WITH_TREES, _with_trees,
        "the trees' leaf values (Newton steps, mean clipped residuals, from each round's "
        "noisy leaf sums of residuals and row counts)",
        "rounded Gaussian (``rounded_gaussian_mechanism``, Gaussian DP composed exactly) on "
        "each round's leaf sums; the values are functions of those releases and public "
        "numbers",
    ),
    ContinuousRelease(
        ("HistGradientBoostingRegressor",), ("baseline_prediction_",), _FROM_PRIOR,
        _param_is("init", "prior"),
        "the starting score (the noisy sum of the scaled targets over the number of rows "
        "planned on)",
        "rounded Gaussian (``rounded_gaussian_mechanism``, Gaussian DP composed exactly with "
        "the rounds) on the sum of the targets",
    ),
)


def listed(name, params):
    """The attributes of estimator ``name`` that may vary by non-integer amounts between seeds.

    Those of :data:`CONTINUOUS_RELEASES` and of :data:`SECURE_RELEASES` that apply to the
    parameters ``params``.
    """
    return {
        attribute
        for release in CONTINUOUS_RELEASES + SECURE_RELEASES
        if name in release.estimators and (release.when is None or release.when(params))
        for attribute in release.attributes
    }


def render_table(releases=CONTINUOUS_RELEASES,
                 title="Released values that carry continuous noise"):
    """The security page's table of ``releases`` (reStructuredText).

    ``tests/test_noise_inventory.py`` checks that ``docs/security.rst`` holds exactly this
    text for :data:`CONTINUOUS_RELEASES` between its ``noise-inventory`` markers, and
    ``tests/mechanisms/test_secure.py`` the table of :data:`SECURE_RELEASES`
    (``render_table(SECURE_RELEASES, SECURE_TITLE)``) between its ``secure-inventory``
    markers.
    """
    if not releases:  # reStructuredText has no empty list-table
        return ("No fitted estimator releases a value that carries continuous noise with the "
                "default configuration\n(``set_config(secure_noise=True)``).\n")
    lines = [
        f".. list-table:: {title}",
        "   :header-rows: 1",
        "   :widths: 20 24 14 20 22",
        "",
        "   * - estimator",
        "     - attributes",
        "     - when",
        "     - what they are",
        "     - noise",
    ]
    for release in releases:
        lines += [
            "   * - " + ", ".join(f"``{name}``" for name in release.estimators),
            "     - " + ", ".join(f"``{attribute}``" for attribute in release.attributes),
            f"     - {release.condition or 'always'}",
            f"     - {release.what}",
            f"     - {release.mechanism}",
        ]
    return "\n".join(lines) + "\n"


#: The title of the granular releases' table on the security page.
SECURE_TITLE = "Released values drawn with exact integer noise (no floating-point noise)"

if __name__ == "__main__":
    print(render_table(), end="")
    print()
    print(render_table(SECURE_RELEASES, SECURE_TITLE), end="")
