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
Writes benchmarks/results/audit_canary.json and .md.
"""

import argparse
import json
import pathlib
import time
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import MinMaxScaler
from sklearn.tree import DecisionTreeClassifier

from skprivate import DPLSSGDClassifier
from skprivate.audit import audit_scores
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.pate import PATEClassifier

RESULTS = pathlib.Path(__file__).parent / "results"


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
    clf = DPLSSGDClassifier(epsilon=epsilon, delta=1e-5).fit(X_fit, y_fit)
    return -float(clf.decision_function(canary_x)[0]), clf.epsilon_


def _pate_statistic(with_canary, noise_scale, X, y, canary_x, canary_y, X_public):
    X_fit, y_fit = (np.vstack([X, canary_x]), np.append(y, canary_y)) if with_canary else (X, y)
    clf = PATEClassifier(DecisionTreeClassifier(), n_teachers=2, n_queries=40,
                         noise_scale=noise_scale, student=KNeighborsClassifier(1))
    # the canary's point is one of the public queries; the 1-NN student returns its label
    clf.fit(X_fit, y_fit, X_public=np.vstack([canary_x, X_public[:39]]))
    return float(clf.predict(canary_x)[0] == canary_y[0]), clf.epsilon_


def audit(name, statistic, n_runs, n_jobs, **kwargs):
    start = time.perf_counter()
    runs = Parallel(n_jobs=n_jobs)(
        delayed(statistic)(with_canary, **kwargs)
        for with_canary in [True] * n_runs + [False] * n_runs
    )
    scores = np.array([s for s, _ in runs])
    claimed = max(e for _, e in runs)
    rng = np.random.default_rng(0)  # the halves of audit_scores must not follow the run order
    with_c, without_c = rng.permutation(scores[:n_runs]), rng.permutation(scores[n_runs:])
    result = audit_scores(with_c, without_c, delta=1e-5)
    return {
        "estimator": name,
        "claimed_epsilon": claimed,
        "empirical_epsilon_lower_bound": result.epsilon_lower_bound,
        "event": result.event,
        "runs_per_side": n_runs,
        "seconds": time.perf_counter() - start,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    X, y, canary_x, canary_y = _data()
    X_priv, y_priv, X_public = X[:300], y[:300], X[300:]
    rows = []
    for eps in (1.0, 4.0):
        rows.append(audit(f"DPLSSGDClassifier(epsilon={eps:g})", _dplssgd_statistic, args.runs,
                          args.n_jobs, epsilon=eps, X=X_priv, y=y_priv, canary_x=canary_x,
                          canary_y=canary_y))
    for b in (0.5, 2.0):
        rows.append(audit(f"PATEClassifier(lnmax, b={b:g})", _pate_statistic, args.runs,
                          args.n_jobs, noise_scale=b, X=X_priv, y=y_priv, canary_x=canary_x,
                          canary_y=canary_y, X_public=X_public))
    header = "| estimator | claimed epsilon_ | empirical lower bound (95%) | runs per side |"
    lines = [header, "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['estimator']} | {r['claimed_epsilon']:.3f} | "
                     f"{r['empirical_epsilon_lower_bound']:.3f} | {r['runs_per_side']} |")
    table = "\n".join(lines)
    print(table)
    bad = [r for r in rows if r["empirical_epsilon_lower_bound"] > r["claimed_epsilon"]]
    print("\nEvery lower bound is below its claim." if not bad else
          f"\nVIOLATION: {[r['estimator'] for r in bad]}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "audit_canary.json").write_text(json.dumps(rows, indent=2))
    (RESULTS / "audit_canary.md").write_text(table + "\n")
    if bad:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
