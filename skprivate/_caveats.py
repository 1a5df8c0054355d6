"""The one caveat vocabulary of skprivate: why a guarantee is weaker than it is stated.

A caveat is a :class:`Caveat`: a ``str`` (the sentence users read in
``privacy_report_["caveats"]`` and in the fit's one
:class:`~skprivate.exceptions.PrivacyLeakWarning`) that also carries a stable ``code``, one
of :data:`CAVEAT_KINDS`. Code that reads caveats (the private searches, pipeline reports,
``total_privacy_cost``) compares codes, never the wording, and never parses warning text: a
sentence may contain ``"; "`` and may be reworded, a code does not change.

Every caveat an estimator emits is built here, by the function of its kind, so the wording of
each kind lives in one place. ``DPEstimatorMixin._finish_private_fit`` refuses anything else.

Examples
--------
>>> from skprivate._caveats import Caveat, caveat_codes, seed_fixed
>>> caveat = seed_fixed(0)
>>> caveat.code
'seed_fixed'
>>> caveat.startswith("random_state=0 fixes the noise")
True
>>> caveat_codes([caveat, "a plain sentence"])
['seed_fixed', None]
"""

from numbers import Integral

__all__ = [
    "CAVEAT_KINDS",
    "GUARANTEE_VOID",
    "Caveat",
    "bounds_from_data",
    "caveat_codes",
    "data_dependent_epsilon",
    "delta_protects_no_one",
    "epsilon_from_count",
    "epsilon_weak",
    "labels_from_data",
    "no_budget",
    "preprocessing_learned",
    "score_vouched",
    "seed_fixed",
    "validation_rows_unprotected",
]

# code -> what the kind means (the docs list these; the sentences add the specifics).
CAVEAT_KINDS = {
    "seed_fixed": "random_state fixes the noise: whoever knows the seed can remove it",
    "delta_protects_no_one": "delta >= 1/n_samples: a mechanism that publishes one row meets it",
    "epsilon_weak": "epsilon > 10: the formal guarantee protects little in practice",
    "bounds_from_data": "clipping bounds or norms were read from the private data",
    "labels_from_data": "the set of classes was read from the private labels",
    "preprocessing_learned": "a step before the estimator learned from the private rows",
    "data_dependent_epsilon": "a reported epsilon depends on the private data",
    "epsilon_from_count": (
        "epsilon_ is that of the plan chosen from the noisy row count, not a bound over "
        "every count"
    ),
    "validation_rows_unprotected": "private rows held out for validation, scored without noise",
    "no_budget": "epsilon=None: no budget bounded the fit; epsilon_ is what it turned out to cost",
    "score_vouched": "a callable scorer is taken on trust to be a mean of bounded per-row terms",
}

# The kinds that void the guarantee for what was released, rather than weaken it: something
# was published exactly, computed from the private rows outside every mechanism (bounds, the
# label set, noiseless validation scores, a preprocessing step's statistics, a data-dependent
# epsilon). A differentially private step whose report holds one of these is not covered by
# its own epsilon_, and every total (leaking_steps, total_privacy_cost, the displays,
# make_private_pipeline) lists it as a leak. The other kinds qualify a guarantee that does
# hold: a seed known to someone, a delta or an epsilon too large to protect much, a budget
# not set in advance, a scorer taken on trust; they are shown, not counted as leaks.
GUARANTEE_VOID = frozenset({
    "bounds_from_data",
    "labels_from_data",
    "preprocessing_learned",
    "data_dependent_epsilon",
    "epsilon_from_count",
    "validation_rows_unprotected",
})

# Above this the formal guarantee says little (e^10 is about 22,000): the documented line
# between "common in practice" and "report it, but do not call it private" (choosing_epsilon).
WEAK_EPSILON = 10.0


class Caveat(str):
    """A reason the privacy guarantee is weaker than stated: its sentence and a stable code.

    It is the sentence (a ``str``: it prints, compares and joins as one), with the attribute
    ``code``, one of :data:`CAVEAT_KINDS`, for programs. Build caveats with the functions of
    this module, one per kind.

    Parameters
    ----------
    code : str
        The kind, a key of :data:`CAVEAT_KINDS`.
    text : str
        The sentence shown to users: what happened, why it weakens the guarantee, the fix.

    Examples
    --------
    >>> from skprivate._caveats import Caveat
    >>> c = Caveat("labels_from_data", "the classes were read from y")
    >>> c, c.code
    ('the classes were read from y', 'labels_from_data')
    """

    def __new__(cls, code, text):
        if code not in CAVEAT_KINDS:
            raise ValueError(
                f"Unknown caveat code {code!r}; the vocabulary is {sorted(CAVEAT_KINDS)} "
                "(skprivate._caveats.CAVEAT_KINDS)."
            )
        self = super().__new__(cls, text)
        self.code = code
        return self

    def __getnewargs__(self):  # pickle and deepcopy rebuild it with its code
        return (self.code, str(self))

    def __repr__(self):
        return str.__repr__(self)


def caveat_codes(caveats):
    """The code of each caveat (None for a plain string that is not a :class:`Caveat`)."""
    return [getattr(c, "code", None) for c in caveats]


# --- one function per kind: the sentence of each kind lives here only ----------------------


def seed_fixed(random_state):
    """``random_state`` is an int, a Generator or a RandomState: the noise can be replayed."""
    kept = ""
    if not isinstance(random_state, Integral):  # a Generator or RandomState
        kept = (", and the fitted estimator keeps the generator where the noise "
                "ended, from which it can be replayed: whoever gets the saved model "
                "knows it")
    return Caveat(
        "seed_fixed",
        f"random_state={random_state!r} fixes the noise: anyone who knows the "
        f"seed can remove it{kept}, so the guarantee does not hold against them (use "
        "random_state=None for a release)",
    )


def delta_protects_no_one(delta, n_samples):
    """``delta >= 1 / n_samples``."""
    return Caveat(
        "delta_protects_no_one",
        f"delta={delta:.3g} >= 1/n_samples={1.0 / n_samples:.3g}: a mechanism "
        "that publishes one random row outright meets this delta, so it protects no "
        "one; use delta well below 1/n_samples (for example 1/(10 n))",
    )


def epsilon_weak(epsilon):
    """``epsilon > WEAK_EPSILON``."""
    return Caveat(
        "epsilon_weak",
        f"epsilon={epsilon:.4g} > {WEAK_EPSILON:g}: one row may change the "
        f"probability of any outcome by a factor of up to e^{epsilon:.4g}, which "
        "protects little in practice; report it as such, or lower epsilon",
    )


def bounds_from_data(read, fix, *, planned=False):
    """Bounds or norms named in ``read`` were None and read from the data; ``fix`` says how.

    ``planned=True`` says it of an unfitted estimator, from its parameters: they will be.
    """
    read = list(read)
    were = "will be" if planned else "were"
    return Caveat(
        "bounds_from_data",
        f"{', '.join(read)} {'was' if len(read) == 1 else 'were'} None, so the "
        f"bounds {were} read from the private data; pass {fix} known without looking "
        "at the data",
    )


def labels_from_data(classes=None):
    """``classes=None``: the label set (``classes_``) was read from the private ``y``.

    ``classes`` is the set read, or None before a fit (the set will be read).
    """
    if classes is None:  # said of an unfitted estimator, from its parameters
        return Caveat(
            "labels_from_data",
            "classes=None, so the set of classes will be read from the private labels and "
            "published as classes_ (a label held by one row reveals that row); pass "
            "classes=[...] known without looking at the data",
        )
    shown = [c.item() if hasattr(c, "item") else c for c in classes]  # numpy scalars
    if len(shown) > 6:
        shown = [*shown[:5], "..."]
    return Caveat(
        "labels_from_data",
        f"classes=None, so the set of classes {shown} was read from the private labels "
        "and is published as classes_ (a label held by one row reveals that row); pass "
        "classes=[...] known without looking at the data",
    )


def preprocessing_learned(step, alternative):
    """The step ``step`` (a name) learned from the private rows; ``alternative`` is the fix."""
    return Caveat(
        "preprocessing_learned",
        f"{step} learned from the private rows before the private fit, without noise, so "
        f"what it learned (and the model through it) is not protected; {alternative}",
    )


def data_dependent_epsilon(what):
    """A reported epsilon (``what``) is a function of the private data."""
    return Caveat(
        "data_dependent_epsilon",
        f"{what} depends on the private data and is not itself differentially private; "
        "publish only the data-independent epsilon_ (or a sanitised estimate)",
    )


def epsilon_from_count(fixed):
    """Noise fixed by the user (``fixed``, e.g. ``"noise_multiplier=1.0"``) with a private
    number of rows: ``epsilon_`` is the realised plan's, chosen from the noisy count (a
    privacy odometer, not a filter)."""
    return Caveat(
        "epsilon_from_count",
        f"{fixed} fixes the noise, so the epsilon of what follows the noisy count of rows "
        "(its sampling rate, steps or queries were planned on it) is this plan's, not a "
        "bound over every count the release could have drawn (Rogers, Roth, Ullman and "
        "Vadhan 2016: adaptively chosen costs add up only under a budget fixed in advance); "
        "pass epsilon instead, or n_samples_public=True if the number of rows is public",
    )


def validation_rows_unprotected(train_split):
    """A net's ``train_split`` scores held-out private rows without noise."""
    return Caveat(
        "validation_rows_unprotected",
        f"train_split={train_split!r} holds out private rows for validation and "
        "records losses and scores computed on them without noise in history_; those "
        "rows and scores are not protected (use train_split=None and validate on "
        "public or separately accounted data)",
    )


def no_budget(epsilon, what):
    """``epsilon=None``: nothing bounded the fit in advance; ``what`` says what was released."""
    return Caveat(
        "no_budget",
        f"epsilon=None set no budget, so nothing bounded this fit's privacy loss in advance: "
        f"epsilon_={epsilon:.4g} is the data-independent bound of {what}; pass epsilon=... to "
        "have the fit chosen to meet a budget",
    )


def score_vouched(scoring, score_range):
    """A callable ``scoring`` is trusted to be a mean of per-row terms in ``score_range``."""
    shown = getattr(scoring, "__name__", None) or repr(scoring)
    return Caveat(
        "score_vouched",
        f"scoring={shown} is a callable, taken on trust to be a mean over the validation "
        f"rows of one term per row within score_range={tuple(score_range)!r}; a score that "
        "is not (an F1, an AUC, a median) moves by more than the noise covers when one row "
        "changes, and the search's epsilon_ does not hold (use a string scorer the search "
        "knows, such as 'accuracy' or 'neg_mean_absolute_error')",
    )
