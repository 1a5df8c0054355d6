"""Model-level privacy audit: a canary row, many fits with and without it, and the empirical
lower bound on epsilon (Clopper-Pearson; Jagielski et al. 2020, Nasr et al. 2021) beside the
claimed ``epsilon_``, for DPLSSGDClassifier and PATEClassifier.

The canary is the strongest a model's user can plant (Nasr et al. 2021's "dirac" canary):
one extra column, public by design, that is zero on every real row and one on the canary.
The attack statistic is the released model's output at the canary: DPLSSGD's decision
function at a canary that is zero except in its column (the weight of that column plus
the intercept), and the PATE student's label there (a 1-nearest-
neighbour student reads back the noisy vote on the canary's query; fully grown teachers
memorise the canary). A lower bound above the claim would prove the claim wrong; a bound
below it only says no violation was found.

The dirac canary's decision value is a black-box statistic, and too weak to show anything
for DP-LSSGD. So DP-LSSGD is also audited white-box with a gradient canary (Nasr et al.
2021): a row ``10 e_c`` on the canary's column, whose gradient is clipped to the full
``max_grad_norm`` in (nearly) the direction ``e_c``, which no real row's gradient has; the
statistic is the ``e_c`` component of the released parameters with the (public, invertible)
Laplacian smoothing undone, which is the sum of the canary's clipped gradients and the noise.
A control shows that this audit has power: the same fit with its Gaussian noise replaced by
zeros (in this benchmark only), whose ``epsilon_`` still claims 1, must be caught.
Writes benchmarks/results/audit_canary.json and .md; exits non-zero if a bound exceeds its
claim or the control is not caught.
"""

import argparse
import time
import warnings
from unittest import mock

import numpy as np
from _results import markdown_table, versions, write
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier

from skprivate import DPLSSGDClassifier
from skprivate.audit import audit_scores
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import _dplssgd_base
from skprivate._dpsgd._numpy_loop import make_block_smoother
from skprivate.pate import PATEClassifier

DELTA = 1e-5
# Thresholds audit_scores tries on its first half: with a few hundred runs per side, its
# default 50 often picks a tail event that holds on the first half only, and the bound on the
# second half then swings between 0.5 and 1.5 for the same model; 10 is steadier.
N_THRESHOLDS = 10


def _data():
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)  # public bounds in a release; a benchmark here
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    X = np.hstack([X, np.zeros((len(y), 1))])  # the canary's own column, zero on real rows
    canary_x = X[y == 1][:1].copy()  # looks like a class-1 row ...
    canary_x[0, -1] = 1.0  # ... except for its column
    canary_y = np.array([0])  # and carries the other label
    return X, y, canary_x, canary_y


def _dplssgd_statistic(with_canary, epsilon, X, y, canary_x, canary_y):
    # all of the canary on its own column: its whole clipped gradient lands there
    canary_x = np.zeros_like(canary_x)
    canary_x[0, -1] = 1.0
    X_fit, y_fit = (np.vstack([X, canary_x]), np.append(y, canary_y)) if with_canary else (X, y)
    clf = DPLSSGDClassifier(epsilon=epsilon, delta=DELTA).fit(X_fit, y_fit)
    return -float(clf.decision_function(canary_x)[0]), clf.epsilon_


def _no_noise():
    """A release without noise: the bug the control stands for."""
    return lambda value, sensitivity, noise_multiplier, rng: np.array(value, dtype=float)


def _gradient_statistic(with_canary, epsilon, X, y, noiseless=False):
    d = X.shape[1]
    # 10 e_c: a gradient norm of at least 10 * |residual| > max_grad_norm = 1, so every step
    # that samples it adds the full clipped gradient, nearly all of it on e_c
    canary = np.zeros((1, d))
    canary[0, -1] = 10.0
    X_fit, y_fit = (np.vstack([X, canary]), np.append(y, 0)) if with_canary else (X, y)
    clf = DPLSSGDClassifier(epsilon=epsilon, delta=DELTA)
    if noiseless:  # the control: a bug that drops the noise, under the same claim
        with mock.patch.object(_dplssgd_base, "gaussian_release", _no_noise):
            clf.fit(X_fit, y_fit)
    else:
        clf.fit(X_fit, y_fit)
    # Smoothing is linear and public: undoing it gives the sum of the noisy gradients, on
    # which the canary's whole contribution sits in one coordinate.
    smooth = make_block_smoother(d, d + 1, clf.smoothing, clf.smoothing_order,
                                 clf.smoothing_blocks)
    S = np.eye(d + 1)
    for column in S.T:  # views: smoothed in place
        smooth(column)
    raw = np.linalg.solve(S, np.append(clf.coef_[0], clf.intercept_))
    return -float(raw[d - 1]), clf.epsilon_


def _pate_statistic(with_canary, noise_scale, X, y, canary_x, canary_y, X_public):
    X_fit, y_fit = (np.vstack([X, canary_x]), np.append(y, canary_y)) if with_canary else (X, y)
    clf = PATEClassifier(DecisionTreeClassifier(), n_teachers=2, n_queries=40,
                         noise_scale=noise_scale, aggregator="lnmax", epsilon=None,
                         student=KNeighborsClassifier(1))
    # the canary's point is one of the public queries; the 1-NN student returns its label
    clf.fit(X_fit, y_fit, X_public=np.vstack([canary_x, X_public[:39]]))
    return float(clf.predict(canary_x)[0] == canary_y[0]), clf.epsilon_


def _quietly(statistic, *args, **kwargs):
    # in the worker: its warning filters are not the parent's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed budgets of an audit
        return statistic(*args, **kwargs)


def audit(name, canary, statistic, n_runs, n_jobs, control=False, **kwargs):
    start = time.perf_counter()
    runs = Parallel(n_jobs=n_jobs)(
        delayed(_quietly)(statistic, with_canary, **kwargs)
        for with_canary in [True] * n_runs + [False] * n_runs
    )
    scores = np.array([s for s, _ in runs])
    claimed = max(e for _, e in runs)
    rng = np.random.default_rng(0)  # the halves of audit_scores must not follow the run order
    with_c, without_c = rng.permutation(scores[:n_runs]), rng.permutation(scores[n_runs:])
    result = audit_scores(with_c, without_c, delta=DELTA, n_thresholds=N_THRESHOLDS)
    row = {
        "estimator": name,
        "canary": canary,
        "control": control,
        "claimed_epsilon": claimed,
        "empirical_epsilon_lower_bound": result.epsilon_lower_bound,
        "event": result.event,
        "runs_per_side": n_runs,
        "seconds": time.perf_counter() - start,
    }
    print(f"{name} ({canary}): claimed {claimed:.3f}, lower bound "
          f"{result.epsilon_lower_bound:.3f}, {row['seconds']:.1f} s", flush=True)
    return row


def _verdict(r):
    above = r["empirical_epsilon_lower_bound"] > r["claimed_epsilon"]
    if r["control"]:
        return "control: caught" if above else "control: NOT caught"
    return "CLAIM VIOLATED" if above else "below the claim"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--gradient-runs", type=int, default=1500,
                        help="runs per side of the gradient-canary audits (fits are cheap)")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    X, y, canary_x, canary_y = _data()
    X_priv, y_priv, X_public = X[:300], y[:300], X[300:]
    dirac, gradient = "dirac, black-box", "gradient, white-box"
    rows = []
    for eps in (1.0, 4.0):
        rows.append(audit(f"DPLSSGDClassifier(epsilon={eps:g})", dirac, _dplssgd_statistic,
                          args.runs, args.n_jobs, epsilon=eps, X=X_priv, y=y_priv,
                          canary_x=canary_x, canary_y=canary_y))
    for eps in (1.0, 4.0):
        rows.append(audit(f"DPLSSGDClassifier(epsilon={eps:g})", gradient,
                          _gradient_statistic, args.gradient_runs, args.n_jobs, epsilon=eps,
                          X=X_priv, y=y_priv))
    # 500 runs per side can prove up to about 4.2, which is enough to catch a claim of 1
    rows.append(audit("control: DPLSSGDClassifier(epsilon=1), noise removed", gradient,
                      _gradient_statistic, args.runs, args.n_jobs, control=True,
                      epsilon=1.0, X=X_priv, y=y_priv, noiseless=True))
    for b in (0.5, 2.0):
        rows.append(audit(f"PATEClassifier(lnmax, b={b:g})", dirac, _pate_statistic,
                          args.runs, args.n_jobs, noise_scale=b, X=X_priv, y=y_priv,
                          canary_x=canary_x, canary_y=canary_y, X_public=X_public))
    lines = markdown_table(
        ["estimator", "canary", "claimed epsilon_", "empirical lower bound (95%)",
         "runs per side", "verdict"],
        [[r["estimator"], r["canary"], f"{r['claimed_epsilon']:.3f}",
          f"{r['empirical_epsilon_lower_bound']:.3f}", r["runs_per_side"], _verdict(r)]
         for r in rows])
    lines += ["", "A control is a deliberately broken fit: its lower bound must exceed its "
              "claim, which shows the audit would catch such a bug."]
    print("\n" + "\n".join(lines))
    failed = [r["estimator"] for r in rows
              if _verdict(r) in ("CLAIM VIOLATED", "control: NOT caught")]
    print("\nEvery bound is below its claim and the control is caught." if not failed else
          f"\nFAILED: {failed}")
    payload = {"benchmark": "audit_canary",
               "settings": {"delta": DELTA, "confidence": 0.95, "private_rows": len(y_priv)},
               "versions": versions("skprivate", "numpy", "scikit-learn"),
               "rows": rows, "failed": failed}
    write("audit_canary", payload, lines)
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
