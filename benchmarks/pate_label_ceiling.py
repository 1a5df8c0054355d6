"""PATE's student with perfect answers: how far the budget, not the calibration, limits it.

PATE's student learns from the noisy answers to ``k`` queries. This benchmark trains the
default student (a forest of 100 trees) on the *true* labels of ``k`` public points chosen
as ``query_strategy="kmeans"`` chooses them (``_representative_points``), for ``k`` = 16,
30, 50 and 100, on the splits of ``benchmarks/pate_small.py`` (same seeds, same public
pools and evaluation rows). No privacy is involved: it is an upper bound on what any
choice of noise and number of queries can reach with that many answers. At epsilon 2 the
calibration buys 30 answers on breast cancer, 30 on digits, 44 on 1,000 Adult rows and 135
on 3,000 (``benchmarks/results/pate_small.md``).

Run: python benchmarks/pate_label_ceiling.py [--seeds 5]
Writes benchmarks/results/pate_label_ceiling.json and .md.
"""

import argparse
import time

import numpy as np
from _pate_common import small_data_splits
from _results import markdown_table, versions, write
from sklearn.ensemble import RandomForestClassifier

from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.pate._labelling import _representative_points

DATASETS = ("breast_cancer", "digits", "adult_1000", "adult_3000")
QUERIES = (16, 30, 50, 100)


def _public_and_eval(name, seed, adult):
    """The public pool with its true labels and the evaluation rows of pate_small.py."""
    return small_data_splits(name, seed, adult)[2:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    X, y = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    prep = make_adult_preprocessor().fit(X[:1])  # data-independent: learns nothing
    adult = (prep.transform(X), np.asarray(y), prep.transform(X_test), np.asarray(y_test))
    records = []
    for name in DATASETS:
        for seed in range(args.seeds):
            X_pub, y_pub, X_eval, y_eval = _public_and_eval(name, seed, adult)
            for k in QUERIES:
                start = time.perf_counter()
                rng = np.random.default_rng(seed)
                asked = _representative_points(X_pub, k, rng.permutation(len(y_pub)), rng)
                accuracy = None
                if len(np.unique(y_pub[asked])) >= 2:
                    student = RandomForestClassifier(100, random_state=seed)
                    accuracy = student.fit(X_pub[asked], y_pub[asked]).score(X_eval, y_eval)
                records.append({"dataset": name, "seed": seed, "queries": k,
                                "accuracy": accuracy,
                                "seconds": time.perf_counter() - start})
    rows = []
    for name in DATASETS:
        for k in QUERIES:
            acc = [r["accuracy"] for r in records if r["dataset"] == name
                   and r["queries"] == k and r["accuracy"] is not None]
            rows.append([name, k, f"{np.mean(acc):.3f} ({min(acc):.3f}-{max(acc):.3f})",
                         args.seeds - len(acc)])
    lines = ["# PATE's student on true labels of the k-means queries "
             "(benchmarks/pate_label_ceiling.py)", "",
             f"{args.seeds} seeds; mean accuracy (min-max) of a 100-tree forest trained on the "
             "true labels of k public points chosen as query_strategy='kmeans' chooses them, "
             "on the splits of pate_small.py. An upper bound for PATE with k answers; "
             "'one class' counts seeds whose k points had a single label.", ""]
    lines += markdown_table(["data set", "k", "accuracy", "one class"], rows)
    print("\n".join(lines))
    write("pate_label_ceiling", {"benchmark": "pate_label_ceiling",
                                 "seeds": list(range(args.seeds)), "queries": QUERIES,
                                 "versions": versions("skprivate", "scikit-learn"),
                                 "rows": records}, lines)


if __name__ == "__main__":
    main()
