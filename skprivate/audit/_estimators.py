"""Gradient-canary audits of the DP-SGD estimators' own ``fit`` (white-box; Nasr et al. 2021).

The audit runs the estimator exactly as a user calls it, many times, on a data set ``D`` and
on ``D' = D + {canary}``, and reads one number from each released model. It does not
re-implement any part of the training loop, so a wrong noise scale, a sampler that does not
match the accountant, or a smoothing applied before the noise would show up in it.

The canary (Nasr, Song, Thakurta, Papernot and Carlini 2021, "gradient canary") is the row
``x = 10 e_c`` on a column ``c`` that is zero on every real row, with label 0. Its gradient
``r (x, 1)`` has norm at least ``10 |r|``, more than ``max_grad_norm = 1`` while the model
gives it a probability of class 1 above about 0.07, so at every step that samples it the
canary adds its whole clipped gradient, ``10 / sqrt(101) = 0.995`` of ``max_grad_norm``, to
coordinate ``c`` (the weight of column ``c``), which no real row touches. The released weights
are ``-learning_rate / (q n) * S^-1 (sum of the noisy clipped gradient sums)``, where ``S^-1``
is the Laplacian smoothing (``S = I + sigma L^p`` on each flattened tensor, ``L`` the periodic
second difference): public and linear, so the statistic below undoes it and reads the
canary's coordinate of the summed noisy gradients, divided by the noise the estimator
*claims* (``noise_multiplier_ * max_grad_norm * sqrt(n_steps_)``). On ``D`` it is
``N(0, 1)``; on ``D'`` with every row in every batch (``batch_size = n_samples``) it is
``N(0.995 sqrt(T) / z, 1)``, the Gaussian mechanism that the claimed epsilon covers. If the
estimator's real noise were smaller than it claims, both sides would be narrower and the
event ``{score > t}`` would separate them by more than ``e^epsilon`` allows.
"""

import numpy as np

from ._bounds import audit_scores, epsilon_lower_bound

__all__ = [
    "CANARY_NORM",
    "CONTROL_THRESHOLD",
    "linear_canary_score",
    "net_canary_score",
    "summarise_runs",
    "with_gradient_canary",
]

CANARY_NORM = 10.0
# The event {score > 0.625}, fixed before any run. In the Gaussian model above at a claim of
# epsilon 2 (z = 2.15 at q = 1, delta = 1e-5, mean shift 0.46) and noise 4x smaller than
# claimed, it is the likelihood-ratio event 2.5 control standard deviations above D's mean;
# with 1000 runs per side its Clopper-Pearson bound exceeds 2 in more than 99.9% of
# simulated audits (median 2.9), while a correct fit's bound stays below 0.6.
CONTROL_THRESHOLD = 0.625


def with_gradient_canary(X, y):
    """``X`` with a zero canary column appended, and ``(X', y')`` with the canary row added.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Binary labels 0 and 1.

    Returns
    -------
    X, y : the data set ``D`` (the canary's column is zero on every row).
    X_prime, y_prime : ``D'``, the same plus the row ``10 e_c`` with label 0.
    """
    X = np.hstack([np.asarray(X), np.zeros((len(X), 1), dtype=np.asarray(X).dtype)])
    canary = np.zeros((1, X.shape[1]), dtype=X.dtype)
    canary[0, -1] = CANARY_NORM
    y = np.asarray(y)
    return X, y, np.vstack([X, canary]), np.append(y, np.zeros(1, dtype=y.dtype))


def _unsmooth(flat, sigma, order):
    """``(I + sigma L^p) flat``: undo the Laplacian smoothing of one flattened tensor."""
    out = np.asarray(flat, dtype=np.float64)
    if sigma == 0 or out.size <= 1:
        return out
    second = out
    for _ in range(int(order)):
        second = 2.0 * second - np.roll(second, 1) - np.roll(second, -1)
    return out + sigma * second


def _gradient_sum(weights, estimator, n_rows, learning_rate):
    """The summed noisy gradients behind released weights (one flattened tensor)."""
    if estimator.smoothing_blocks != "per_tensor":
        raise ValueError("the canary audit reads smoothing_blocks='per_tensor' fits only.")
    raw = _unsmooth(np.ravel(weights), float(estimator.smoothing), estimator.smoothing_order)
    expected_batch = estimator.sample_rate_ * n_rows
    return -raw * expected_batch / float(learning_rate)


def _claimed_std(estimator):
    clip = getattr(estimator, "max_grad_norm_", estimator.max_grad_norm)  # the norm used
    return float(estimator.noise_multiplier_) * float(clip) * np.sqrt(estimator.n_steps_)


def linear_canary_score(estimator, n_rows):
    """The canary statistic of a fitted binary ``DPLSSGDClassifier`` (``alpha=0``, no averaging).

    Parameters
    ----------
    estimator : DPLSSGDClassifier
        Fitted on ``n_rows`` rows whose last column is the canary's.
    n_rows : int
        Rows it was fitted on (the expected batch size is ``sample_rate_ * n_rows``).

    Returns
    -------
    score : float
        The canary's coordinate of the summed noisy gradients, in units of the claimed noise.
    """
    if estimator.alpha != 0 or estimator.average:
        raise ValueError("the canary audit reads fits with alpha=0 and average=False only.")
    grad = _gradient_sum(estimator.coef_[0], estimator, n_rows, estimator.learning_rate)
    return float(grad[-1] / _claimed_std(estimator))


def net_canary_score(net, n_rows, weight):
    """The canary statistic of a fitted two-class ``DPLSSGDNeuralNetClassifier``.

    The module must be a zero-initialised linear layer (logits ``X W^T + b``, ``W`` of shape
    ``(2, n_features)``) trained by plain SGD (no momentum, no weight decay): the canary's
    clipped gradient on ``W[:, c]`` is ``0.995 C (-1, 1) / sqrt(2)``.

    Parameters
    ----------
    net : DPLSSGDNeuralNetClassifier
        Fitted on ``n_rows`` rows whose last column is the canary's.
    n_rows : int
        Rows it was fitted on.
    weight : str
        Name of ``W`` in ``net.module_.named_parameters()``.

    Returns
    -------
    score : float
    """
    if net.average is not False and net.n_steps_ > 1:
        # An average of the iterates is not the sum of the steps the statistic undoes.
        raise ValueError("the canary audit reads net fits with average=False (or one step) only.")
    W = dict(net.module_.named_parameters())[weight].detach().cpu().double().numpy()
    grad = _gradient_sum(W, net, n_rows, getattr(net, "lr_", net.lr)).reshape(W.shape)
    return float((grad[1, -1] - grad[0, -1]) / np.sqrt(2.0) / _claimed_std(net))


def summarise_runs(scores, scores_prime, claimed, *, delta, seed=0):
    """Both bounds of an audit: the fixed event ``{score > CONTROL_THRESHOLD}`` on every run,
    and :func:`audit_scores`'s event chosen on half of the runs.

    Parameters
    ----------
    scores, scores_prime : array-like of shape (n_runs,)
        Statistics of the runs on ``D'`` (with the canary) and on ``D``.
    claimed : float
        The largest ``epsilon_`` the runs reported.
    delta : float
        The delta of the claim.
    seed : int, default=0
        Shuffles the runs before ``audit_scores`` splits them in halves.

    Returns
    -------
    summary : dict
        ``claimed_epsilon``, ``fixed_event_bound``, ``chosen_event_bound``, ``chosen_event``,
        ``runs_per_side`` and ``epsilon_lower_bound`` (the larger bound; each holds with
        probability 95%, so the larger with probability 90%).
    """
    a, b = np.asarray(scores, dtype=float), np.asarray(scores_prime, dtype=float)
    fixed = epsilon_lower_bound(int((a > CONTROL_THRESHOLD).sum()), a.size,
                                int((b > CONTROL_THRESHOLD).sum()), b.size, delta=delta)
    rng = np.random.default_rng(seed)
    chosen = audit_scores(rng.permutation(a), rng.permutation(b), delta=delta, n_thresholds=10)
    return {
        "claimed_epsilon": float(claimed),
        "fixed_event_bound": fixed,
        "chosen_event_bound": chosen.epsilon_lower_bound,
        "chosen_event": chosen.event,
        "runs_per_side": int(min(a.size, b.size)),
        "epsilon_lower_bound": max(fixed, chosen.epsilon_lower_bound),
    }
