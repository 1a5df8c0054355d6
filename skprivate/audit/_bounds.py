"""Clopper-Pearson lower bounds on epsilon from event counts on neighbouring data sets."""

from dataclasses import dataclass

import numpy as np
from scipy.stats import beta as beta_distribution

from ..utils._docstrings import Substitution, fragment

__all__ = ["AuditResult", "audit_outcomes", "audit_scores", "epsilon_lower_bound"]

#: The claim audited and the level, as audit_outcomes and audit_scores document them.
_AUDIT_CLAIM_DOC = fragment(
    """
    delta : float, default=0.0
        The delta of the claim being audited.
    confidence : float, default=0.95
        Probability that the bound holds.
    """
)


def _check_counts(hits, trials, name):
    if not (isinstance(trials, (int, np.integer)) and trials >= 1):
        raise ValueError(f"{name} trials must be an integer >= 1; got {trials!r}.")
    if not (isinstance(hits, (int, np.integer)) and 0 <= hits <= trials):
        raise ValueError(f"{name} hits must be an integer in [0, trials={trials}]; got {hits!r}.")


def _bounds(hits, trials, hits_prime, trials_prime, delta, alpha):
    """``epsilon_lower_bound`` for counts, scalars or arrays (no checks).

    ``P[E | D]`` is bounded below and ``P[E | D']`` above by Clopper-Pearson, each at level
    ``1 - alpha``; no hit gives 0 below, all hits 1 above.
    """
    hits, hits_prime = np.asarray(hits), np.asarray(hits_prime)
    p_low = np.where(hits == 0, 0.0, beta_distribution.ppf(
        alpha, np.maximum(hits, 1), trials - hits + 1))
    q_high = np.where(hits_prime == trials_prime, 1.0, beta_distribution.ppf(
        1 - alpha, hits_prime + 1, np.maximum(trials_prime - hits_prime, 1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log((p_low - delta) / q_high)
    return np.where((p_low > delta) & (q_high > 0), np.maximum(eps, 0.0), 0.0)


def epsilon_lower_bound(hits, trials, hits_prime, trials_prime, *, delta=0.0, confidence=0.95):
    """Lower confidence bound on epsilon from one event's frequency on ``D`` and ``D'``.

    An ``(epsilon, delta)``-DP mechanism satisfies ``P[E | D] <= e^epsilon P[E | D'] + delta``
    for every event ``E``, so ``epsilon >= log((P[E | D] - delta) / P[E | D'])``. Replacing
    ``P[E | D]`` by its Clopper-Pearson lower bound and ``P[E | D']`` by its upper bound, each
    at level ``1 - (1 - confidence) / 2``, gives a bound that holds with probability at least
    ``confidence``.

    Parameters
    ----------
    hits, trials : int
        How often ``E`` happened in ``trials`` independent runs on ``D``.
    hits_prime, trials_prime : int
        The same on the neighbour ``D'``.
    delta : float in [0, 1), default=0.0
        The delta of the claim being audited.
    confidence : float in (0, 1), default=0.95
        Probability that the bound holds.

    Returns
    -------
    epsilon : float
        The lower bound (0 when the counts show nothing).

    Examples
    --------
    >>> from skprivate.audit import epsilon_lower_bound
    >>> round(epsilon_lower_bound(7000, 10000, 3000, 10000), 3)  # true log(7/3) = 0.847
    0.804
    """
    _check_counts(hits, trials, "")
    _check_counts(hits_prime, trials_prime, "prime")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1); got {delta!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}.")
    return float(_bounds(hits, trials, hits_prime, trials_prime, delta, (1 - confidence) / 2))


@dataclass(frozen=True)
class AuditResult:
    """The outcome of an audit.

    Attributes
    ----------
    epsilon_lower_bound : float
        Lower bound on epsilon, valid with probability ``confidence`` (all events tried
        are accounted for by a Bonferroni correction).
    event : str
        The event that gave the bound.
    confidence : float
        The confidence level.
    n_events : int
        Number of events tried.

    Examples
    --------
    Audit the Laplace mechanism with sensitivity 1 and scale 1, whose claim is epsilon = 1:

    >>> import numpy as np
    >>> from skprivate.audit import audit_scores
    >>> rng = np.random.default_rng(0)
    >>> result = audit_scores(rng.laplace(1.0, 1.0, 50_000), rng.laplace(0.0, 1.0, 50_000))
    >>> bool(0.9 < result.epsilon_lower_bound <= 1.0), result.event.startswith("score")
    (True, True)
    >>> result.confidence, result.n_events
    (0.95, 1)
    >>> result.epsilon_lower_bound <= 1.0  # the claim is not refuted
    True
    """

    epsilon_lower_bound: float
    event: str
    confidence: float
    n_events: int


# audit_outcomes and audit_scores share their claim parameters (above); their Returns and
# Examples headers stay in each docstring, which must run on its own as a doctest.
@Substitution(audit_claim=_AUDIT_CLAIM_DOC)
def audit_outcomes(outcomes, outcomes_prime, *, delta=0.0, confidence=0.95):
    """Audit a mechanism with discrete outputs (a label, a noisy count, "no answer", ...).

    Every output value ``v`` seen is tried as the event ``{v}``, in both directions
    (``D`` against ``D'`` and ``D'`` against ``D``), with a Bonferroni correction over all
    of them.

    Parameters
    ----------
    outcomes : array-like of shape (n_trials,)
        Outputs of independent runs on ``D``.
    outcomes_prime : array-like of shape (n_trials_prime,)
        Outputs of independent runs on the neighbour ``D'``.
    %(audit_claim)s

    Returns
    -------
    result : AuditResult

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.audit import audit_outcomes
    >>> rng = np.random.default_rng(0)
    >>> p = 1 / (1 + np.exp(-1.0))  # randomised response, epsilon = log(p / (1 - p)) = 1
    >>> on_d, on_d_prime = rng.random(100_000) < p, rng.random(100_000) < 1 - p
    >>> result = audit_outcomes(on_d, on_d_prime)
    >>> bool(0.95 < result.epsilon_lower_bound <= 1.0)
    True
    """
    a, b = np.asarray(outcomes).ravel(), np.asarray(outcomes_prime).ravel()
    if a.size == 0 or b.size == 0:
        raise ValueError("outcomes and outcomes_prime must each hold at least one run.")
    values = np.unique(np.concatenate([a, b]))
    n_events = 2 * values.size
    level = 1 - (1 - confidence) / n_events
    best, where = 0.0, "none"
    count_a = {v: int(c) for v, c in zip(*np.unique(a, return_counts=True))}
    count_b = {v: int(c) for v, c in zip(*np.unique(b, return_counts=True))}
    for v in values:  # one pass over distinct outputs, not over runs
        for (hits, n, name), (hits2, n2) in (
            ((count_a.get(v, 0), a.size, f"output == {v!r} (D vs D')"), (count_b.get(v, 0), b.size)),
            ((count_b.get(v, 0), b.size, f"output == {v!r} (D' vs D)"), (count_a.get(v, 0), a.size)),
        ):
            eps = epsilon_lower_bound(hits, n, hits2, n2, delta=delta, confidence=level)
            if eps > best:
                best, where = eps, name
    return AuditResult(best, where, confidence, n_events)


@Substitution(audit_claim=_AUDIT_CLAIM_DOC)
def audit_scores(scores, scores_prime, *, delta=0.0, confidence=0.95, n_thresholds=50):
    """Audit a mechanism with real-valued outputs (a noisy gradient, a canary's loss, ...).

    Events are ``{score > t}`` and ``{score <= t}`` for thresholds ``t``. The runs are split
    in two halves: the first chooses the event with the largest empirical bound among
    ``n_thresholds`` quantile thresholds, the second, untouched by that choice, bounds
    epsilon for it (no correction for the choice is then needed).

    Parameters
    ----------
    scores : array-like of shape (n_trials,)
        Outputs of independent runs on ``D`` (one number per run).
    scores_prime : array-like of shape (n_trials_prime,)
        The same on ``D'``.
    %(audit_claim)s
    n_thresholds : int, default=50
        Thresholds tried on the first half.

    Returns
    -------
    result : AuditResult

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.audit import audit_scores
    >>> rng = np.random.default_rng(0)  # Gaussian mechanism, sensitivity 1, sigma 1
    >>> result = audit_scores(rng.normal(1, 1, 200_000), rng.normal(0, 1, 200_000),
    ...                       delta=1e-5)
    >>> bool(0.5 < result.epsilon_lower_bound < 4.4)  # the claim: epsilon 4.4 at 1e-5
    True
    """
    a = np.asarray(scores, dtype=np.float64).ravel()
    b = np.asarray(scores_prime, dtype=np.float64).ravel()
    if a.size < 4 or b.size < 4:
        raise ValueError("scores and scores_prime must each hold at least 4 runs.")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("scores and scores_prime must be finite numbers; got NaN or inf.")
    half_a, half_b = a.size // 2, b.size // 2
    choose_a, test_a, choose_b, test_b = a[:half_a], a[half_a:], b[:half_b], b[half_b:]
    thresholds = np.quantile(np.concatenate([choose_a, choose_b]),
                             np.linspace(0.0, 1.0, n_thresholds + 2)[1:-1])
    # The event is chosen by the bound it would give, not by the empirical ratio: an event
    # that never happens on one side (a perfect separation, a strong leak) has an infinite
    # ratio but a finite, and often the largest, Clopper-Pearson bound.
    alpha = (1 - confidence) / 2
    na, nb = choose_a.size, choose_b.size
    above_a = (choose_a[:, None] > thresholds).sum(axis=0)
    above_b = (choose_b[:, None] > thresholds).sum(axis=0)
    candidates = np.stack([
        _bounds(above_a, na, above_b, nb, delta, alpha),            # {> t}, D vs D'
        _bounds(above_b, nb, above_a, na, delta, alpha),            # {> t}, D' vs D
        _bounds(na - above_a, na, nb - above_b, nb, delta, alpha),  # {<= t}, D vs D'
        _bounds(nb - above_b, nb, na - above_a, na, delta, alpha),  # {<= t}, D' vs D
    ])
    kind, index = np.unravel_index(int(np.argmax(candidates)), candidates.shape)
    t = thresholds[index]
    hits_a = int((test_a > t).sum()) if kind in (0, 1) else int((test_a <= t).sum())
    hits_b = int((test_b > t).sum()) if kind in (0, 1) else int((test_b <= t).sum())
    sign = ">" if kind in (0, 1) else "<="
    if kind in (0, 2):
        eps = epsilon_lower_bound(hits_a, test_a.size, hits_b, test_b.size, delta=delta,
                                  confidence=confidence)
        name = f"score {sign} {t:.4g} (D vs D')"
    else:
        eps = epsilon_lower_bound(hits_b, test_b.size, hits_a, test_a.size, delta=delta,
                                  confidence=confidence)
        name = f"score {sign} {t:.4g} (D' vs D)"
    return AuditResult(eps, name, confidence, 1)
