"""PATE's default teacher: accuracy and fit time of candidate teachers on UCI Adult.

The split of ``pate_adult.py`` (32,561 private rows, the first 4,999 test rows as the public
pool, the last 11,282 to evaluate). Each candidate replaces the default teacher
(``skprivate.pate._teachers._DEFAULT_TEACHER``), so every other default is kept: the
number of teachers (``"auto"``: 250 here, about 130 rows each), the calibrated noise and
queries, k-means queries, soft labels and the default student (a forest of 100 trees below
1,000 queries, gradient boosting from 1,000: the student is not a clone of the teacher).

Per seed and candidate, the fit at epsilon 1 trains the teachers and is timed (``fit s``:
the whole fit, count, teachers, queries and student); the fit at epsilon 2 reuses its
teachers' votes (``_pate_common.shared_teachers``: same partition and seeds, so the same
votes) and is not timed. ``n_jobs`` is PATEClassifier's default (None: one process), as a
user's default fit runs. Scikit-learn's non-private ``HistGradientBoostingClassifier`` on
the same private rows is timed in the same run, as the yardstick of the speed target
(PATE's default Adult fit at epsilon 1 within 10 times it).

Run: OMP_NUM_THREADS=1 python benchmarks/pate_teachers.py [--seeds 3] [--candidates NAME ...]
[--output NAME] (one thread per native pool: on a shared machine the yardstick's OpenMP
threads otherwise spin against the other processes). Writes benchmarks/results/NAME.json
and .md (default NAME: pate_teachers).
"""

import argparse
import time
import warnings
from unittest import mock

import numpy as np
from _pate_common import shared_teachers
from _results import markdown_table, versions, write
from sklearn.ensemble import (
    ExtraTreesClassifier, HistGradientBoostingClassifier, RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.exceptions import PrivacyLeakWarning, RepeatedFitWarning, UtilityWarning
from skprivate.pate import PATEClassifier, _teachers

N_PUBLIC = 4999
N_EVAL = 11282
EPSILONS = (1.0, 2.0)
CANDIDATES = {
    "forest, 100 trees (before)": lambda: RandomForestClassifier(100),
    "forest, 20 trees": lambda: RandomForestClassifier(20),
    "forest, 10 trees": lambda: RandomForestClassifier(10),
    "extra trees, 20": lambda: ExtraTreesClassifier(20),
    "tree, depth 4": lambda: DecisionTreeClassifier(max_depth=4),
    "tree, depth 6": lambda: DecisionTreeClassifier(max_depth=6),
    "tree, depth 8": lambda: DecisionTreeClassifier(max_depth=8),
    "tree, unlimited depth": lambda: DecisionTreeClassifier(),
    "gradient boosting, 20 iterations": lambda: HistGradientBoostingClassifier(max_iter=20),
    "logistic regression": lambda: LogisticRegression(),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--candidates", nargs="*", default=list(CANDIDATES),
                        help="names of CANDIDATES to run (default: all)")
    parser.add_argument("--output", default="pate_teachers",
                        help="name of the results files (default: pate_teachers)")
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a benchmark
    warnings.simplefilter("ignore", UtilityWarning)
    warnings.simplefilter("ignore", RepeatedFitWarning)  # the same rows, on purpose

    X, y = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    prep = make_adult_preprocessor().fit(X[:1])  # data-independent: learns nothing
    X, X_test, y, y_test = prep.transform(X), prep.transform(X_test), np.asarray(y), \
        np.asarray(y_test)
    X_public, X_eval, y_eval = X_test[:N_PUBLIC], X_test[-N_EVAL:], y_test[-N_EVAL:]

    records = []
    for seed in range(args.seeds):
        start = time.perf_counter()
        boosting = HistGradientBoostingClassifier(random_state=seed).fit(X, y)
        records.append({"seed": seed, "teacher": "HistGradientBoosting (non-private)",
                        "epsilon": None, "accuracy": boosting.score(X_eval, y_eval),
                        "seconds": time.perf_counter() - start})
        print(records[-1], flush=True)
        for name in args.candidates:
            with shared_teachers(), mock.patch.object(_teachers, "_DEFAULT_TEACHER",
                                                      CANDIDATES[name]):
                for eps in EPSILONS:
                    clf = PATEClassifier(epsilon=eps, random_state=seed)
                    start = time.perf_counter()
                    clf.fit(X, y, X_public=X_public)
                    records.append({
                        "seed": seed, "teacher": name, "epsilon": eps,
                        "accuracy": clf.score(X_eval, y_eval),
                        "n_teachers": clf.n_teachers_, "queries": clf.n_queries_,
                        "student": type(clf.student_).__name__,
                        # The first fit trained the teachers; the second reused their votes.
                        "seconds": time.perf_counter() - start if eps == EPSILONS[0] else None,
                    })
                    print(records[-1], flush=True)

    rows = []
    boost_s = np.mean([r["seconds"] for r in records if r["epsilon"] is None])
    names = ["HistGradientBoosting (non-private)"] + args.candidates
    for name in names:
        group = [r for r in records if r["teacher"] == name]
        cells = [name]
        for eps in (None,) if name == names[0] else EPSILONS:
            acc = [r["accuracy"] for r in group if r["epsilon"] == eps]
            cells.append(f"{np.mean(acc):.4f} ({min(acc):.3f}-{max(acc):.3f})")
        if name == names[0]:
            cells.append("-")
        seconds = [r["seconds"] for r in group if r["seconds"] is not None]
        cells += [f"{np.mean(seconds):.1f}", f"{np.mean(seconds) / boost_s:.1f}x"]
        rows.append(cells)
    lines = [
        "# PATE's default teacher on Adult (benchmarks/pate_teachers.py)", "",
        f"{len(y)} private rows, {N_PUBLIC} public points, {len(y_eval)} evaluation rows, "
        f"{args.seeds} seeds, every PATEClassifier default but the teacher (250 teachers). "
        "Accuracy: mean (min-max). Fit seconds: the epsilon 1 fit, teachers included, on a "
        "shared 2-core machine; 'x HGB': against non-private HistGradientBoostingClassifier "
        "fitted on the same rows in the same run.", "",
    ]
    lines += markdown_table(["teacher", "accuracy eps 1", "accuracy eps 2", "fit s (eps 1)",
                             "x HGB"], rows)
    print("\n".join(lines))
    payload = {
        "benchmark": "pate_teachers",
        "settings": {"n_public": N_PUBLIC, "n_private": len(y), "n_eval": len(y_eval),
                     "epsilons": EPSILONS, "delta": 1e-5},
        "seeds": list(range(args.seeds)),
        "versions": versions("skprivate", "scikit-learn"),
        "rows": records,
    }
    write(args.output, payload, lines)


if __name__ == "__main__":
    main()
