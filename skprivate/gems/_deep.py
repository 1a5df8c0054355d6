"""Deep GEMS: match neurons across parties, merge each group at its intersection point.

Each hidden neuron is a ball in the space of its incoming weights and bias (and outgoing
weights, as in Guha et al. 2018, Section 4.2). Neurons of different parties whose balls
share a point are merged into one neuron at that point; the others are kept unchanged, so
the width of the result is the number of matched groups plus the leftovers.

Matching replaces the paper's "all intersecting pairs" (ambiguous when a neuron meets
several) and the authors' k-means (2019) by an explicit assignment: for two parties, the
Hungarian assignment on the cost ||c_i - c_j|| / (r_i + r_j), a cost <= 1 being exactly "the
two balls meet"; for more parties, greedy groups with at most one neuron per party, grown
while the group's minimax ratio t* stays <= 1 (pairwise intersection is not enough for a
common point of three balls).
"""

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from ._intersection import ball_intersection

# Greedy matching for more than two parties tries only this many of the best candidates
# (by pairwise cost) when growing a group: each try solves a small minimax problem.
_CANDIDATES = 5


def _pair_cost(c1, r1, c2, r2):
    with np.errstate(divide="ignore", invalid="ignore"):
        cost = cdist(c1, c2) / (r1[:, None] + r2[None, :])
    return np.where(np.isfinite(cost), cost, np.inf)


def match_neurons(centers, radii, method="minimax"):
    """Groups of neurons (at most one per party) whose balls share a point.

    Parameters
    ----------
    centers : list of ndarray of shape (n_hidden_k, n_dims)
        Each party's neuron centres.
    radii : list of ndarray of shape (n_hidden_k,)
        Their radii (0 for a neuron whose ball is empty; it is never matched).
    method : {"minimax", "hinge"}
        How the group's point is found.

    Returns
    -------
    groups : list of list of (party, neuron)
        Matched groups, each of two or more neurons.
    points : list of ndarray
        Each group's intersection point.
    margins : list of float
        Each group's margin (>= 0).
    """
    n_parties = len(centers)
    groups = []
    if n_parties == 2:
        cost = _pair_cost(centers[0], radii[0], centers[1], radii[1])
        finite = np.where(np.isfinite(cost), cost, 1e300)
        rows, cols = linear_sum_assignment(finite)
        groups = [[(0, int(i)), (1, int(j))] for i, j in zip(rows, cols) if cost[i, j] <= 1]
    else:
        groups = _greedy_groups(centers, radii)
    points, margins = [], []
    kept = []
    for group in groups:
        c = np.array([centers[k][h] for k, h in group])
        r = np.array([radii[k][h] for k, h in group])
        point, margin = ball_intersection(c, r, method)
        if margin < -1e-9:  # the hinge descent may stop outside on hard groups
            continue
        kept.append(group)
        points.append(point)
        margins.append(margin)
    return kept, points, margins


def _greedy_groups(centers, radii):
    n_parties = len(centers)
    owner = np.concatenate([np.full(len(c), k) for k, c in enumerate(centers)])
    index = np.concatenate([np.arange(len(c)) for c in centers])
    all_c = np.vstack(centers)
    all_r = np.concatenate(radii)
    cost = _pair_cost(all_c, all_r, all_c, all_r)
    cost[owner[:, None] == owner[None, :]] = np.inf
    free = np.ones(len(all_r), dtype=bool)
    groups = []
    order = np.dstack(np.unravel_index(np.argsort(cost, axis=None), cost.shape))[0]
    for i, j in order:
        if cost[i, j] > 1:
            break
        if i >= j or not (free[i] and free[j]):
            continue
        members = [i, j]
        while len(members) < n_parties:
            taken = set(owner[members])
            candidates = np.flatnonzero(free & ~np.isin(owner, list(taken)))
            candidates = candidates[~np.isin(candidates, members)]
            if candidates.size == 0:
                break
            worst = cost[np.ix_(members, candidates)].max(axis=0)
            ok = worst <= 1
            candidates, worst = candidates[ok], worst[ok]
            best, best_t = None, np.inf
            for cand in candidates[np.argsort(worst)[:_CANDIDATES]]:
                trial = members + [cand]
                _, margin = ball_intersection(all_c[trial], all_r[trial])
                if 1 - margin <= 1 and 1 - margin < best_t:
                    best, best_t = cand, 1 - margin
            if best is None:
                break
            members.append(best)
        free[members] = False
        groups.append([(int(owner[m]), int(index[m])) for m in members])
    return groups


def assemble_network(spaces, groups, points):
    """The combined one-hidden-layer network: merged groups first, then the leftovers.

    Returns
    -------
    coefs : list of two ndarray
        Input-to-hidden (n_features, n_hidden) and hidden-to-output (n_hidden, n_outputs).
    intercepts : list of two ndarray
        Hidden biases and output biases (the mean of the parties' output biases; the output
        bias is in no neuron's space).
    """
    nets = [s.network for s in spaces]
    p = nets[0]["coefs"][0].shape[0]
    incoming_outgoing = nets[0]["neuron_space"] == "incoming_outgoing"
    W1_cols, b1, W2_rows = [], [], []
    used = [np.zeros(net["coefs"][0].shape[1], dtype=bool) for net in nets]
    for group, point in zip(groups, points):
        W1_cols.append(point[:p])
        b1.append(point[p])
        if incoming_outgoing:
            W2_rows.append(point[p + 1 :])
        else:  # the outgoing weights are in no space: average the group's
            W2_rows.append(np.mean([nets[k]["coefs"][1][h] for k, h in group], axis=0))
        for k, h in group:
            used[k][h] = True
    for k, net in enumerate(nets):
        W1, W2 = net["coefs"]
        b = net["intercepts"][0]
        for h in np.flatnonzero(~used[k]):
            W1_cols.append(W1[:, h])
            b1.append(b[h])
            W2_rows.append(W2[h])
    coefs = [np.column_stack(W1_cols), np.vstack(W2_rows)]
    intercepts = [np.asarray(b1), np.mean([net["intercepts"][1] for net in nets], axis=0)]
    return coefs, intercepts
