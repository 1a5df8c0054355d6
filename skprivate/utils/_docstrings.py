"""The one way skprivate shares docstring text: named fragments and ``Substitution``.

A docstring that shares text writes a placeholder ``%(name)s`` where the fragment goes and
is decorated with ``@Substitution(name=FRAGMENT, ...)``, in the manner of
imbalanced-learn's decorator of the same name. Unlike ``str.__mod__`` the substitution
here

- re-indents every line of a fragment after the first to the column of its placeholder,
  so one fragment serves a class docstring (parameters at 4 spaces) and a method's
  (8 spaces) alike;
- leaves every other ``%`` alone (no ``%%`` to write in the prose);
- refuses, at import, a placeholder it was given no fragment for, so a misspelt name
  cannot reach the rendered documentation.

Fragments are written flush left: the first line is a numpydoc entry ``name : type``,
the description below it is indented by four spaces. The fragments shared across
subpackages are the ``*_DOC`` constants below; those of one family of estimators live
next to them (``skprivate.neural_network._docstrings``).
"""

import re
import textwrap

__all__ = ["Substitution", "fragment"]

_PLACEHOLDER = re.compile(r"%\((?P<name>[A-Za-z_][A-Za-z0-9_]*)\)s")


def fragment(text):
    """A fragment from an indented triple-quoted string: dedented, outer blank lines cut."""
    return textwrap.dedent(text).strip("\n")


def _reindent(text, column):
    lines = text.split("\n")
    pad = " " * column
    return "\n".join([lines[0], *((pad + line) if line else "" for line in lines[1:])])


class Substitution:
    """Decorator filling the ``%(name)s`` placeholders of a docstring with fragments.

    Parameters
    ----------
    **fragments : str
        The text of each placeholder, by name, passed through :func:`fragment` (so it may
        be written indented like the docstring around it). A fragment may itself hold
        placeholders, filled from the same keywords.

    Examples
    --------
    >>> from skprivate.utils._docstrings import Substitution
    >>> @Substitution(seed="seed : int, default=0\\n    The seed.")
    ... def draw(seed=0):
    ...     '''Draw a number.
    ...
    ...     Parameters
    ...     ----------
    ...     %(seed)s
    ...     '''
    >>> print(draw.__doc__.strip())
    Draw a number.
    <BLANKLINE>
        Parameters
        ----------
        seed : int, default=0
            The seed.
    """

    def __init__(self, **fragments):
        self.fragments = fragments

    def fill(self, doc, _depth=0):
        """``doc`` with its placeholders replaced; a KeyError names a missing fragment."""
        if _depth > 5:
            raise RecursionError("docstring fragments nest more than five deep")

        def replace(match):
            name = match["name"]
            if name not in self.fragments:
                raise KeyError(
                    f"the docstring has a placeholder %({name})s but Substitution got no "
                    f"fragment {name!r} (it got {sorted(self.fragments)})"
                )
            start = doc.rfind("\n", 0, match.start()) + 1
            column = len(doc[start:match.start()])
            text = self.fill(fragment(self.fragments[name]), _depth + 1)
            return _reindent(text, column)

        return _PLACEHOLDER.sub(replace, doc)

    def __call__(self, obj):
        if obj.__doc__ is not None:  # None under python -OO
            obj.__doc__ = self.fill(obj.__doc__)
        return obj


# --- fragments shared across subpackages ------------------------------------------------

EPSILON_DPSGD_DOC = fragment(
    """
    epsilon : float, default=1.0
        Target privacy budget, > 0: the noise multiplier is the smallest one whose epsilon at
        ``delta`` is at most this. Ignored when ``noise_multiplier`` is given.
    """
)

DELTA_DOC = fragment(
    """
    delta : float, default=1e-5
        Target delta, in (0, 1); use well below ``1 / n_samples``.
    """
)

ACCOUNTING_DOC = fragment(
    """
    accounting : {"rdp", "pld"}, default="pld"
        The accounting method for the composition over steps: privacy loss distributions
        (tight: about 7 % less noise than RDP on typical plans; calibrated in about a
        second) or Renyi DP (fast, slightly loose). See
        :func:`~skprivate.accounting.dpsgd_epsilon`.
    """
)

DPSGD_BATCH_SIZE_DOC = fragment(
    """
    batch_size : int or "auto", default="auto"
        Expected size of a batch. Batches are Poisson samples: every row enters
        independently with probability ``batch_size / n_samples``, where ``n_samples`` is
        the number of rows the fit plans on (a noisy count, or the exact number with
        ``n_samples_public=True``). ``"auto"`` is ``max(128, n_samples / 256)``, at most
        ``n_samples``. ``n_samples`` uses every row at every step (noisy full-batch gradient
        descent); a number above a noisy count is capped at it.
    """
)

DPSGD_MAX_ITER_DOC = fragment(
    """
    max_iter : int or "auto", default="auto"
        Number of epochs. An epoch is ``round(n_samples / batch_size)`` steps (at least one),
        ``n_samples`` the number of rows planned on, so the number of steps ``n_steps_``
        depends only on released or public values. ``"auto"``: ten
        epochs, but at least 2,000 and at most 5,000 steps.
    """
)

DPSGD_ALPHA_DOC = fragment(
    """
    alpha : float, default=0.0
        L2 penalty ``alpha / 2 * ||coef_||^2`` (the intercept is not penalised). Its gradient
        depends on no data, so it is added after the noise and the smoothing.
    """
)

DPSGD_AVERAGE_DOC = fragment(
    """
    average : bool or "auto", default="auto"
        ``"auto"``: ``coef_`` and ``intercept_`` are the mean of the iterates of the last
        half of the steps (a tail average: it averages out the noise of the last steps
        and forgets the start at zero). True: the mean of every iterate (the averaged
        output of the convex analysis in [1]_), False: the last iterate. Averaging is
        post-processing and costs no privacy.
    """
)

RANDOM_STATE_DOC = fragment(
    """
    random_state : None, int, or numpy.random.Generator, default=None
        Source of the noise and of the batches. None (use this for a release): ChaCha20, a
        cryptographically secure generator keyed from the operating system (see
        :func:`skprivate.set_config`). An int or a Generator makes the fit reproducible,
        for tests and documentation only; anyone who knows the seed can remove the noise,
        so the fit then emits a :class:`~skprivate.exceptions.PrivacyLeakWarning`.
    """
)

RANDOM_STATE_MECHANISM_DOC = fragment(
    """
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        ``None`` (recommended) draws from a generator seeded from the operating system's
        entropy. An int gives reproducible noise, for tests and documentation only: whoever
        knows the seed knows the noise, and the privacy guarantee does not hold against
        them. See :func:`~skprivate.mechanisms.check_rng`.
    """
)

ACCOUNTANT_FIT_DOC = fragment(
    """
    accountant : BudgetAccountant, default=None
        A budget shared by several fits. The fit checks its planned spend against it before
        reading any value of ``X`` and records ``(epsilon_, delta_)`` when it succeeds.
    """
)

NOISE_MULTIPLIER_DOC = fragment(
    """
    noise_multiplier : float, default=None
        Standard deviation of the Gaussian noise divided by ``max_grad_norm``. None: the
        smallest one that meets ``(epsilon, delta)``. Given: used as is, ``epsilon`` is
        ignored, and ``epsilon_`` reports what it achieves.
    """
)

SMOOTHING_ORDER_DOC = fragment(
    """
    smoothing_order : int, default=1
        Power ``n >= 1`` of the Laplacian ``L``.
    """
)

VERBOSE_STEPS_DOC = fragment(
    """
    verbose : int, default=0
        0 prints nothing; 1 or more shows a progress bar over the steps on stderr (tqdm when
        installed, else a line every tenth of the way): steps done and time, never a value
        computed from the data.
    """
)

CLASSES_PUBLIC_DOC = fragment(
    """
    classes : array-like of shape (n_classes,), default=None
        The class labels, known without looking at the data (for example from a codebook);
        ``classes_`` is their sorted set, and a label of ``y`` outside it is an error. None:
        the labels present in ``y`` are read and published as ``classes_``, which is outside
        the guarantee (a caveat in ``privacy_report_`` and the fit's
        :class:`~skprivate.exceptions.PrivacyLeakWarning` say so).
    """
)

N_FEATURES_IN_DOC = fragment(
    """
    n_features_in_ : int
        Number of features seen during fit.
    """
)

FEATURE_NAMES_IN_DOC = fragment(
    """
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.
    """
)

DELTA_ATTRIBUTE_DOC = fragment(
    """
    delta_ : float
        The delta of the guarantee.
    """
)

PRIVACY_REPORT_DOC = fragment(
    """
    privacy_report_ : PrivacyReport
        The mechanism, its parameters, the guarantee and any caveats.
    """
)

DPSGD_TRAINING_ATTRIBUTES_DOC = fragment(
    """
    noise_multiplier_ : float
        The noise multiplier used.

    sample_rate_ : float
        The Poisson sampling rate ``batch_size / n_samples``, ``n_samples`` the number of
        rows planned on (``privacy_report_["number of rows"]``).

    n_steps_ : int
        Number of noisy steps taken.

    n_iter_ : int
        Number of epochs run (``max_iter``; with ``"auto"``, ``n_steps_`` over the steps
        of an epoch, rounded up).

    batch_size_ : int
        The expected batch size used.

    learning_rate_ : float
        The learning rate used.

    max_grad_norm_ : float
        The clipping norm used (with ``max_grad_norm="auto"``, in the units of the
        privately centred and scaled rows).
    """
)

DPSGD_REFERENCES_DOC = fragment(
    """
    .. [1] B. Wang, Q. Gu, M. Boedihardjo, F. Barekat and S. Osher, "DP-LSSGD: A stochastic
       optimization method to lift the utility in privacy-preserving ERM", MSML 2020,
       arXiv:1906.12056.
    .. [2] I. Mironov, K. Talwar and L. Zhang, "Renyi differential privacy of the sampled
       Gaussian mechanism", arXiv:1908.10530, 2019.
    .. [3] C. Dwork and A. Roth, "The algorithmic foundations of differential privacy",
       Foundations and Trends in TCS 9(3-4), 2014, Proposition 2.1.
    """
)

DROPOUT_REFERENCE_DOC = fragment(
    """
    .. [1] P. Jain, V. Kulkarni, A. Thakurta and O. Williams, "To drop or not to drop:
       robustness, consistency and differential privacy properties of dropout",
       arXiv:1503.02031, 2015.
    """
)

DPSGD_REFERENCES_SECTION_DOC = fragment(
    """
    References
    ----------
    %(dpsgd_references)s
    """
)

DROPOUT_REFERENCE_SECTION_DOC = fragment(
    """
    References
    ----------
    %(dropout_reference)s
    """
)

ACCOUNTANT_RENAMED_DOC = fragment(
    """
    accountant : {"rdp", "pld"}, default="deprecated"
        The old name of ``accounting``.

        .. deprecated:: 0.1
           ``accountant`` was renamed ``accounting`` (``accountant`` is the
           :class:`~skprivate.accounting.BudgetAccountant` everywhere else); it warns
           and will be removed in 0.2.
    """
)

N_SAMPLES_PUBLIC_DOC = fragment(
    """
    n_samples_public : bool, default=False
        Whether the number of training rows is public. False (use this unless you know
        otherwise): the fit first releases a noisy count of the rows (exact discrete Laplace
        noise, 5 % of ``epsilon``, part of ``epsilon_``) and plans on it, so nothing in the
        fitted model reads the exact number, which differs between add/remove-one-row
        neighbours. True: the plan reads the exact number of rows and spends nothing on it;
        correct only when everyone who sees the model already knows that number (a
        published table size, a fixed-size extract). ``privacy_report_`` then says "treated
        as public".
    """
)

#: Every shared fragment by its placeholder name, for ``Substitution(**SHARED_DOCS)``.
SHARED_DOCS = {
    "epsilon_dpsgd": EPSILON_DPSGD_DOC,
    "delta": DELTA_DOC,
    "accounting": ACCOUNTING_DOC,
    "dpsgd_batch_size": DPSGD_BATCH_SIZE_DOC,
    "dpsgd_max_iter": DPSGD_MAX_ITER_DOC,
    "dpsgd_alpha": DPSGD_ALPHA_DOC,
    "dpsgd_average": DPSGD_AVERAGE_DOC,
    "random_state": RANDOM_STATE_DOC,
    "random_state_mechanism": RANDOM_STATE_MECHANISM_DOC,
    "accountant": ACCOUNTANT_FIT_DOC,
    "accountant_renamed": ACCOUNTANT_RENAMED_DOC,
    "noise_multiplier": NOISE_MULTIPLIER_DOC,
    "smoothing_order": SMOOTHING_ORDER_DOC,
    "verbose_steps": VERBOSE_STEPS_DOC,
    "classes_public": CLASSES_PUBLIC_DOC,
    "n_samples_public": N_SAMPLES_PUBLIC_DOC,
    "n_features_in_": N_FEATURES_IN_DOC,
    "feature_names_in_": FEATURE_NAMES_IN_DOC,
    "delta_": DELTA_ATTRIBUTE_DOC,
    "privacy_report_": PRIVACY_REPORT_DOC,
    "dpsgd_training_attributes": DPSGD_TRAINING_ATTRIBUTES_DOC,
    "dpsgd_references": DPSGD_REFERENCES_DOC,
    "dpsgd_references_section": DPSGD_REFERENCES_SECTION_DOC,
    "dropout_reference": DROPOUT_REFERENCE_DOC,
    "dropout_reference_section": DROPOUT_REFERENCE_SECTION_DOC,
}
