"""PATE's student on an imbalanced wide table: does it rank, and what share does it call positive?

A synthetic table from ``make_classification``: 50 features (10 informative, 10 redundant,
two clusters per class), 94 % in the majority class, 1 % label noise, a new table per seed.
50,000 rows are private (``--rows``: 200,000 is the issue's KDD-like table), 6,000 are the
public pool, 10,000 evaluate.
Every model at its defaults at epsilon 1 (and 2): PATE with the teacher it had before
(forests of 100 trees, patched in as the default teacher, so the default student is kept)
and with today's default teacher, a few other teachers of ``pate_teachers.py``,
``DPLSSGDClassifier``, non-private ``HistGradientBoostingClassifier`` and the majority class.

Columns: accuracy, ROC AUC of ``predict_proba``, the share of evaluation rows predicted
positive (threshold 0.5; the true share is about 0.065), the teachers' vote gap (the mean
share of teachers voting for the minority class on the asked public points that are
positive, minus that on the negative ones: the signal each noisy answer carries about the
minority class, read here from the labels of the public points, which PATE never sees),
two ceilings of the student (``ensemble AUC``: the ROC AUC of the teachers' share of
minority votes on all public points, without noise: what a student that learnt the votes
exactly could rank at best on such points; ``answer AUC``: the ROC AUC of the noisy count
difference on the asked points: how much of that ranking each answer still carries after
the noise) and the fit seconds (epsilon 1; the epsilon 2 fit reuses the teachers' votes).

Run: python benchmarks/pate_imbalanced.py [--seeds 3] [--rows 50000] [--candidates NAME ...]
Writes benchmarks/results/pate_imbalanced.json and .md (``pate_imbalanced_<rows>`` for
another ``--rows``).
"""

import argparse
import time
import warnings
from unittest import mock

import numpy as np
from _pate_common import shared_teachers
from _results import markdown_table, versions, write
from pate_teachers import CANDIDATES
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.tree import DecisionTreeClassifier

from skprivate.exceptions import PrivacyLeakWarning, RepeatedFitWarning, UtilityWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.pate import PATEClassifier, _teachers

EPSILONS = (1.0, 2.0)
DEFAULT = "default teacher (tree of depth 6)"
N_PRIVATE = 50_000
# Teachers measured here besides pate_teachers.py's: a class-balanced tree votes for the
# minority class far more often (its votes rank better), at a cost on Adult's accuracy.
EXTRA = {"tree of depth 6, class-balanced":
         lambda: DecisionTreeClassifier(max_depth=6, class_weight="balanced")}


def table(seed, n_private=N_PRIVATE):
    X, y = make_classification(
        n_samples=n_private + 16000, n_features=50, n_informative=10, n_redundant=10,
        weights=[0.94, 0.06], flip_y=0.01, random_state=seed)
    a, b = n_private, n_private + 6000
    return X[:a], y[:a], X[a:b], y[a:b], X[b:], y[b:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=N_PRIVATE, help="private rows")
    parser.add_argument("--candidates", nargs="*",
                        default=["forest, 100 trees (before)", DEFAULT])
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a benchmark
    warnings.simplefilter("ignore", UtilityWarning)
    warnings.simplefilter("ignore", RepeatedFitWarning)  # the same rows, on purpose
    records = []

    def record(seed, model, eps, proba, y_eval, seconds, **extra):
        records.append({
            "seed": seed, "model": model, "epsilon": eps,
            "accuracy": float(np.mean((proba >= 0.5) == y_eval)),
            "auc": float(roc_auc_score(y_eval, proba)),
            "positive_share": float(np.mean(proba >= 0.5)), "seconds": seconds, **extra,
        })
        print(records[-1], flush=True)

    for seed in range(args.seeds):
        X, y, X_public, y_public, X_eval, y_eval = table(seed, args.rows)
        start = time.perf_counter()
        boosting = HistGradientBoostingClassifier(random_state=seed).fit(X, y)
        record(seed, "HistGradientBoosting (non-private)", None,
               boosting.predict_proba(X_eval)[:, 1], y_eval, time.perf_counter() - start)
        record(seed, "majority class", None, np.full(len(y_eval), float(np.mean(y) > 0.5)),
               y_eval, 0.0)
        for eps in EPSILONS:
            start = time.perf_counter()
            lssgd = DPLSSGDClassifier(epsilon=eps, random_state=seed).fit(X, y)
            record(seed, "DPLSSGDClassifier defaults", eps, lssgd.predict_proba(X_eval)[:, 1],
                   y_eval, time.perf_counter() - start)
        for name in args.candidates:
            teacher = (_teachers._DEFAULT_TEACHER if name == DEFAULT
                       else {**CANDIDATES, **EXTRA}[name])
            votes = {}
            original = PATEClassifier._ask

            def ask(self, teacher_labels, X_public, n_queries, rng):
                asked, labels, counts = original(self, teacher_labels, X_public, n_queries,
                                                 rng)
                minority = (teacher_labels[:, asked] == 1).mean(axis=0)
                positive = y_public[asked] == 1
                votes["gap"] = float(minority[positive].mean() - minority[~positive].mean())
                share = (teacher_labels == 1).mean(axis=0)
                votes["ensemble_auc"] = float(roc_auc_score(y_public, share))
                answered = labels >= 0
                votes["answer_auc"] = float(roc_auc_score(
                    positive[answered], counts[answered, 1] - counts[answered, 0]))
                return asked, labels, counts

            with shared_teachers(), mock.patch.object(_teachers, "_DEFAULT_TEACHER", teacher), \
                    mock.patch.object(PATEClassifier, "_ask", ask):
                for eps in EPSILONS:
                    start = time.perf_counter()
                    clf = PATEClassifier(epsilon=eps, random_state=seed).fit(
                        X, y, X_public=X_public)
                    seconds = time.perf_counter() - start if eps == EPSILONS[0] else None
                    record(seed, f"PATE, {name}", eps, clf.predict_proba(X_eval)[:, 1], y_eval,
                           seconds, vote_gap=votes["gap"],
                           ensemble_auc=votes["ensemble_auc"],
                           answer_auc=votes["answer_auc"], queries=clf.n_queries_,
                           student=type(clf.student_).__name__)

    keys = []
    for r in records:
        if (r["model"], r["epsilon"]) not in keys:
            keys.append((r["model"], r["epsilon"]))
    rows = []
    for model, eps in keys:
        group = [r for r in records if (r["model"], r["epsilon"]) == (model, eps)]

        def spread(key, group=group):
            values = [r[key] for r in group]
            return f"{np.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"

        seconds = [r["seconds"] for r in group if r["seconds"] is not None]
        def mean(key, group=group):
            values = [r[key] for r in group if key in r]
            return f"{np.mean(values):.3f}" if values else "-"

        rows.append([model, "-" if eps is None else f"{eps:g}", spread("accuracy"),
                     spread("auc"), spread("positive_share"), mean("vote_gap"),
                     mean("ensemble_auc"), mean("answer_auc"),
                     f"{np.mean(seconds):.1f}" if seconds else "-"])
    lines = [
        "# PATE on an imbalanced wide table (benchmarks/pate_imbalanced.py)", "",
        f"make_classification, {args.rows:,} private rows x 50 features, 94 % majority, 6,000 "
        f"public points, 10,000 evaluation rows, {args.seeds} seeds (a new table each). "
        "Mean (min-max). Positive share: evaluation rows predicted positive at a threshold "
        "of 0.5 (true share about 0.065). Vote gap: share of teachers voting for the "
        "minority class on the asked positive public points minus on the negative ones. "
        "Ensemble AUC: the teachers' share of minority votes on all public points, without "
        "noise, against their labels; answer AUC: the noisy count difference on the answered "
        "queries, against their labels (both read labels PATE never sees).", "",
    ]
    lines += markdown_table(["model", "eps", "accuracy", "ROC AUC", "positive share",
                             "vote gap", "ensemble AUC", "answer AUC", "fit s"], rows)
    print("\n".join(lines))
    name = "pate_imbalanced" if args.rows == N_PRIVATE else f"pate_imbalanced_{args.rows}"
    write(name, {
        "benchmark": "pate_imbalanced",
        "settings": {"n_private": args.rows, "n_public": 6000, "n_eval": 10000,
                     "n_features": 50, "weights": [0.94, 0.06], "epsilons": EPSILONS},
        "seeds": list(range(args.seeds)),
        "versions": versions("skprivate", "scikit-learn"),
        "rows": records,
    }, lines)


if __name__ == "__main__":
    main()
