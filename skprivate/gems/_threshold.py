"""The loss threshold at which the parties' good-enough sets meet, and the point they share.

``GEMSCombiner.fit`` (the whole federation simulated on one machine) either keeps the user's
``epsilon`` and retries from new initialisations when the balls do not meet (Guha et al.
2018, Section 4), or searches the smallest threshold at which they meet: doubling from the
largest local loss, then bisection. ``_best_linear_point`` solves the intersection over one
ball per party.
"""

import itertools
import math

import numpy as np
from joblib import delayed

from ..utils._progress import progress_counter
from ._intersection import NoIntersectionError, ball_intersection
from ._local_model import _label
from ._space import _check_epsilon_reachable

# Retries with new initialisations when the sets do not meet (the paper retries without a
# bound; skprivate stops after this many, then raises).
_MAX_RETRIES = 2
# Searching the smallest threshold: relative precision, and bound on doubling steps.
_EPSILON_RTOL = 1e-3
_MAX_DOUBLINGS = 40


def _party_radii(party, epsilon, indices):
    return [party.radii(epsilon, i) for i in indices]


def _first_model_spaces(members, epsilon, names, parallel):
    """Each party's space at ``epsilon``, from the balls of its first model only."""
    radii = parallel(delayed(_party_radii)(m, epsilon, [0]) for m in members)
    return [m.space(epsilon, r, names) for m, r in zip(members, radii)]


def _party_add_init(party):
    added = party.add_init()
    return party, added


class _ThresholdSearchMixin:
    """GEMSCombiner's two ways to a threshold: the user's ``epsilon``, or the smallest one."""

    def _fixed_epsilon(self, members, parties, names, parallel):
        epsilon = float(self.epsilon)
        for k, member in enumerate(members):
            _check_epsilon_reachable([m["loss"] for m in member.models], epsilon,
                                     f"party {_label(parties[k])}")
        radii = self._over_parties(
            (delayed(_party_radii)(m, epsilon, [0]) for m in members), len(members),
            "GEMS radius search",
        )
        for attempt in range(_MAX_RETRIES + 1):
            spaces = [m.space(epsilon, r, names) for m, r in zip(members, radii)]
            _, margin, _ = _best_linear_point(spaces, self.intersection)
            self._log(f"epsilon={epsilon:.6g}, attempt {attempt}: margin {margin:.4g}")
            if margin >= 0 or attempt == _MAX_RETRIES:
                break
            # The paper's retry: every party trains from a new initialisation and adds the
            # new ball to its set.
            out = parallel(delayed(_party_add_init)(m) for m in members)
            members = [m for m, _ in out]
            if not any(added for _, added in out):
                break
            radii = [
                r + (_party_radii(m, epsilon, [len(m.models) - 1]) if added else [])
                for (m, added), r in zip(out, radii)
            ]
        if margin < 0:
            raise NoIntersectionError(_no_intersection_message(spaces, parties, epsilon))
        return spaces

    def _smallest_epsilon(self, members, losses, names, parallel):
        with progress_counter(total=None, desc="GEMS epsilon search",
                              verbose=self.verbose) as bar:
            return self._search_epsilon(members, losses, names, parallel, bar)

    def _search_epsilon(self, members, losses, names, parallel, bar):
        def spaces_at(epsilon):
            spaces = _first_model_spaces(members, epsilon, names, parallel)
            bar.update()
            return spaces, _best_linear_point(spaces, self.intersection)[1]

        # Below the largest local loss some party's set is empty; above it the radii grow
        # with epsilon, so the margin does too and bisection applies.
        low = float(losses.max())
        gap = max(0.05 * low, 1e-6)
        for doublings in range(1, _MAX_DOUBLINGS + 1):
            high = low + gap
            spaces, margin = spaces_at(high)
            self._log(f"epsilon={high:.6g}: margin {margin:.4g}")
            if margin >= 0:
                break
            low, gap = high, 2 * gap
        else:
            raise NoIntersectionError(
                f"GEMSCombiner: the parties' balls do not meet even at epsilon={high:.4g}. "
                "The parties' models may be too different for one linear model; try a "
                "different estimator, or fewer, more similar parties."
            )
        # Bisection halves high - low until it is within _EPSILON_RTOL * high, and high
        # stays above low: that many steps at most.
        if low > 0:
            bisections = math.ceil(math.log2((high - low) / (_EPSILON_RTOL * low)))
            bar.set_total(doublings + max(bisections, 0))
        best = spaces
        while high - low > _EPSILON_RTOL * high:
            mid = 0.5 * (low + high)
            spaces, margin = spaces_at(mid)
            self._log(f"epsilon={mid:.6g}: margin {margin:.4g}")
            if margin >= 0:
                high, best = mid, spaces
            else:
                low = mid
        return best


def _best_linear_point(spaces, method):
    """The best intersection over one ball per party (the sets may be unions of balls).

    The choice of balls, and whether they meet, is decided by the exact minimax problem;
    ``method="hinge"`` then finds its own point in the chosen balls.
    """
    choices = [np.flatnonzero(s.radii > 0) for s in spaces]
    best = (None, -np.inf, None)
    if any(c.size == 0 for c in choices):
        return best
    for combo in itertools.product(*choices):
        centers = np.array([s.centers[i] for s, i in zip(spaces, combo)])
        radii = np.array([s.radii[i] for s, i in zip(spaces, combo)])
        point, margin = ball_intersection(centers, radii)
        if margin > best[1]:
            best = (point, margin, combo)
    point, margin, combo = best
    if method == "hinge" and margin >= 0:
        centers = np.array([s.centers[i] for s, i in zip(spaces, combo)])
        radii = np.array([s.radii[i] for s, i in zip(spaces, combo)])
        point, margin = ball_intersection(centers, radii, "hinge")
    return point, margin, combo


def _no_intersection_message(spaces, parties, epsilon):
    # Name the pair of parties whose nearest balls are furthest apart, relative to radii.
    worst, pair = -np.inf, (0, 1)
    for i, j in itertools.combinations(range(len(spaces)), 2):
        a, b = spaces[i], spaces[j]
        ok_a, ok_b = a.radii > 0, b.radii > 0
        if not ok_a.any() or not ok_b.any():
            ratio = np.inf
        else:
            dist = np.linalg.norm(a.centers[ok_a][:, None] - b.centers[ok_b][None], axis=2)
            ratio = float((dist / (a.radii[ok_a][:, None] + b.radii[ok_b][None])).min())
        if ratio > worst:
            worst, pair = ratio, (i, j)
    i, j = pair
    return (
        f"GEMSCombiner: the parties' good-enough sets do not intersect at epsilon={epsilon}. "
        f"Parties {_label(parties[i])} and {_label(parties[j])} are furthest apart: the "
        f"distance between their balls' centres is {worst:.3g} times the sum of their radii "
        "(at most 1 is needed). Raise epsilon, use epsilon=None to find the smallest "
        "threshold at which the sets meet, or use an estimator whose training depends on "
        "random_state so that retries from new initialisations can find other balls."
    )
