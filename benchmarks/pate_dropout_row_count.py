"""What the noisy count of the rows costs PATE and the dropout classifier.

Every fit that plans on the number of rows first releases a noisy count of them (5 % of
epsilon, ``skprivate._row_count``) unless ``n_samples_public=True``. This compares the two
at the same epsilon, seeds and data:

* ``PATEClassifier(epsilon=1)`` at its defaults except the teachers (forests of 20 trees
  instead of 100, to keep the run short on two cores), on 300 and 1,000 random Adult
  training rows and on all 32,561, with 500 random test rows public and 5,000 more the
  evaluation set (the splits of ``pate_small.py``), and on breast cancer (60 % private,
  20 % public, 20 % evaluation);
* ``DPDropoutClassifier(bounds=(-1, 1))`` on Adult mapped to ``2x - 1`` (all rows, epsilon
  8, where it learns) and on breast cancer divided by its public maxima (epsilon 4).

Seeds: ``--seeds`` on all of Adult (3), ``--small-seeds`` on the rest (60: on a few hundred
rows the seed-to-seed spread is several points, far above what the count changes).

Run: python benchmarks/pate_dropout_row_count.py [--seeds 3] [--small-seeds 60]
Writes benchmarks/results/pate_dropout_row_count.json and .md.
"""

import argparse
import time
import warnings

import numpy as np
from _pate_common import small_data_splits
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.dropout import DPDropoutClassifier
from skprivate.pate import PATEClassifier


def _pate(name, seed, adult):
    if name == "adult_32561":
        X, y, X_test, y_test = adult
        test = np.random.default_rng(seed).permutation(len(y_test))
        return X, y, X_test[test[:500]], X_test[test[500:5500]], y_test[test[500:5500]]
    X, y, X_pub, _, X_eval, y_eval = small_data_splits(name, seed, adult)
    return X, y, X_pub, X_eval, y_eval


def _dropout(name, seed, adult):
    if name == "adult_32561":
        X, y, X_test, y_test = adult
        return 2 * X - 1, y, 2 * X_test - 1, y_test, 8.0
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=seed, stratify=y)
    top = Xtr.max(axis=0)
    return Xtr / top, ytr, np.clip(Xte / top, 0, 1), yte, 4.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--small-seeds", type=int, default=60)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    X, y = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    prep = make_adult_preprocessor().fit(X[:1])  # data-independent: learns nothing
    adult = (prep.transform(X), np.asarray(y), prep.transform(X_test), np.asarray(y_test))
    if hasattr(adult[0], "toarray"):
        adult = (adult[0].toarray(), adult[1], adult[2].toarray(), adult[3])
    records = []
    def seeds(name):
        return range(args.seeds if name == "adult_32561" else args.small_seeds)

    for name in ("adult_300", "adult_1000", "adult_32561", "breast_cancer"):
        for seed in seeds(name):
            X, y, X_pub, X_eval, y_eval = _pate(name, seed, adult)
            for public in (False, True):
                start = time.perf_counter()
                clf = PATEClassifier(RandomForestClassifier(20), epsilon=1.0, classes=[0, 1],
                                     random_state=seed, n_samples_public=public)
                clf.fit(X, y, X_public=X_pub)
                records.append(dict(
                    model="PATE, epsilon 1", dataset=name, seed=seed, public=public,
                    n=len(y), accuracy=clf.score(X_eval, y_eval), epsilon=clf.epsilon_,
                    n_teachers=clf.n_teachers_, queries=clf.n_queries_,
                    seconds=time.perf_counter() - start))
    for name in ("adult_32561", "breast_cancer"):
        for seed in seeds(name):
            X, y, X_eval, y_eval, eps = _dropout(name, seed, adult)
            for public in (False, True):
                start = time.perf_counter()
                clf = DPDropoutClassifier(epsilon=eps, bounds=(-1, 1), classes=[0, 1],
                                          random_state=seed, n_samples_public=public)
                clf.fit(X, y)
                records.append(dict(
                    model=f"dropout, epsilon {eps:g}", dataset=name, seed=seed, public=public,
                    n=len(y), accuracy=clf.score(X_eval, y_eval), epsilon=clf.epsilon_,
                    n_teachers=None, queries=None, seconds=time.perf_counter() - start))
    rows = []
    for model, name in dict.fromkeys((r["model"], r["dataset"]) for r in records):
        cells = [model, name, len({r["seed"] for r in records if r["dataset"] == name})]
        for public in (False, True):
            acc = [r["accuracy"] for r in records
                   if (r["model"], r["dataset"], r["public"]) == (model, name, public)]
            cells.append(f"{np.mean(acc):.3f} ({np.min(acc):.3f} to {np.max(acc):.3f})")
        rows.append(cells)
    lines = [
        "# The noisy count of the rows: PATE and the dropout classifier",
        "",
        "Accuracy on the evaluation rows, mean (min to max) over the seeds; the same seeds, "
        "data and epsilon with the count (default) and with n_samples_public=True. PATE's "
        "teachers are forests of 20 trees.",
        "",
        *markdown_table(["model", "data", "seeds", "noisy count (default)",
                         "n_samples_public=True"], rows),
    ]
    print("\n".join(lines))
    payload = {"records": records, "versions": versions("skprivate", "scikit-learn")}
    write("pate_dropout_row_count", payload, lines)


if __name__ == "__main__":
    main()
