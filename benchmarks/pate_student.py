"""PATE's default student: a forest or gradient boosting, by number of answers and classes.

``PATEClassifier(student=None, teacher=None)`` trains a random forest, or, for two classes
and 1,000 queries or more, ``HistGradientBoostingClassifier`` (``_BOOSTING_FROM_QUERIES`` in
``skprivate/pate/_labelling.py``, a policy constant chosen on Adult,
``benchmarks/pate_adult.py``). This benchmark checks the rule away from Adult: synthetic
problems from ``make_classification`` (20 features, 8 informative, 5 % label noise, two
clusters per class) with two and with five classes, 30,000 private rows, 5,000 public
points and 5,000 to evaluate, 250 teachers (forests of 30 trees), soft labels, at epsilon
0.5, 1, 2 and 4; both students are given explicitly, so both see the same teachers and
the same noisy answers.

Run: python benchmarks/pate_student.py [--seeds 3] [--n-jobs 2]
Writes benchmarks/results/pate_student.json and .md.
"""

import argparse
import time
import warnings

import numpy as np
from _pate_common import shared_teachers
from _results import markdown_table, versions, write
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.pate import PATEClassifier

EPSILONS = (0.5, 1.0, 2.0, 4.0)
CLASSES = (2, 5)
STUDENTS = {"forest": lambda: RandomForestClassifier(100),
            "gradient boosting": lambda: HistGradientBoostingClassifier()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a benchmark
    records = []
    for n_classes in CLASSES:
        for seed in range(args.seeds):
            X, y = make_classification(
                n_samples=40000, n_features=20, n_informative=8, n_redundant=4, flip_y=0.05,
                class_sep=0.8, n_classes=n_classes, n_clusters_per_class=2, random_state=seed)
            X_private, y_private = X[:30000], y[:30000]
            X_public, X_eval, y_eval = X[30000:35000], X[35000:], y[35000:]
            with shared_teachers():
                for eps in EPSILONS:
                    for name, student in STUDENTS.items():
                        start = time.perf_counter()
                        clf = PATEClassifier(RandomForestClassifier(30), student=student(),
                                             n_teachers=250, epsilon=eps, random_state=seed,
                                             n_jobs=args.n_jobs)
                        clf.fit(X_private, y_private, X_public=X_public)
                        records.append({
                            "classes": n_classes, "seed": seed, "target_epsilon": eps,
                            "student": name, "accuracy": clf.score(X_eval, y_eval),
                            "epsilon": clf.epsilon_, "answers": clf.n_answered_,
                            "seconds": time.perf_counter() - start})
                        print(records[-1], flush=True)
    rows = []
    for n_classes in CLASSES:
        for eps in EPSILONS:
            acc = {}
            for name in STUDENTS:
                group = [r for r in records if (r["classes"], r["target_epsilon"],
                                                r["student"]) == (n_classes, eps, name)]
                acc[name] = np.mean([r["accuracy"] for r in group])
                answers = group[0]["answers"]
            rows.append([n_classes, f"{eps:g}", answers, f"{acc['forest']:.4f}",
                         f"{acc['gradient boosting']:.4f}",
                         f"{100 * (acc['gradient boosting'] - acc['forest']):+.1f}"])
    lines = ["# PATE's default student on synthetic data (benchmarks/pate_student.py)", "",
             f"{args.seeds} seeds; mean accuracy of the student on 5,000 evaluation rows; "
             "250 teachers, soft labels, the same answers for both students.", ""]
    lines += markdown_table(["classes", "epsilon", "answers", "forest", "gradient boosting",
                             "boosting - forest (points)"], rows)
    lines += ["", "The rule (two classes and >= 1,000 queries: gradient boosting) was chosen "
              "on Adult; this table checks it on other data."]
    print("\n".join(lines))
    write("pate_student", {"benchmark": "pate_student", "seeds": list(range(args.seeds)),
                           "settings": {"epsilons": EPSILONS, "classes": CLASSES,
                                        "teachers": 250, "delta": 1e-5},
                           "versions": versions("skprivate", "scikit-learn"),
                           "rows": records}, lines)


if __name__ == "__main__":
    main()
