"""Private PCA: held-out variance captured, relative to non-private PCA, and downstream accuracy.

Run with ``python benchmarks/pca.py`` (five seeds, about a minute on 2 busy cores) or
``--seeds 2`` for fewer. For each seed, a 70/30 split; non-private
:class:`sklearn.decomposition.PCA` and :class:`skprivate.decomposition.PCA` are fitted on
the training rows with the same number of components, and the score is the variance of the
test rows (about the non-private mean) along the private components over that along the
non-private ones. A k-nearest-neighbours classifier on the components gives the downstream
accuracy (the non-private PCA's in the last column).

* **digits** (1,257 training rows, 64 pixels in [0, 16], 10 components), with
  ``bounds=(0, 16)`` and with ``data_norm=128`` (the largest norm a row can have);
* **breast cancer** (398 training rows, 30 features scaled to [0, 1] by the full table's
  minimum and maximum, a stand-in for public bounds, 5 components), ``bounds=(0, 1)``.

Writes ``benchmarks/results/pca.json`` and ``.md``.
"""

import argparse
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.decomposition import PCA as NonPrivatePCA
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from skprivate.decomposition import PCA

EPSILONS = (0.1, 0.5, 1.0, 4.0)


def _tables():
    X_digits, y_digits = load_digits(return_X_y=True)
    X_cancer, y_cancer = load_breast_cancer(return_X_y=True)
    low, high = X_cancer.min(axis=0), X_cancer.max(axis=0)
    X_cancer = (X_cancer - low) / (high - low)
    return [
        ("digits, bounds=(0, 16)", X_digits, y_digits, 10, {"bounds": (0, 16)}),
        ("digits, data_norm=128", X_digits, y_digits, 10, {"data_norm": 128.0}),
        ("breast cancer, bounds=(0, 1)", X_cancer, y_cancer, 5, {"bounds": (0, 1)}),
    ]


def _accuracy(Z_train, y_train, Z_test, y_test):
    return KNeighborsClassifier().fit(Z_train, y_train).score(Z_test, y_test)


def main(seeds):
    results, rows = [], []
    start = time.time()
    for name, X, y, k, params in _tables():
        for epsilon in EPSILONS:
            captured, accuracy, baseline_accuracy = [], [], []
            for seed in range(seeds):
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, test_size=0.3, random_state=seed, stratify=y)
                reference = NonPrivatePCA(k).fit(X_train)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # seeded noise: a benchmark
                    private = PCA(k, epsilon=epsilon, random_state=1000 + seed,
                                  **params).fit(X_train)
                centred = X_test - reference.mean_
                captured.append(((centred @ private.components_.T) ** 2).sum()
                                / ((centred @ reference.components_.T) ** 2).sum())
                accuracy.append(_accuracy(private.transform(X_train), y_train,
                                          private.transform(X_test), y_test))
                baseline_accuracy.append(_accuracy(reference.transform(X_train), y_train,
                                                   reference.transform(X_test), y_test))
            entry = {
                "table": name, "epsilon": epsilon, "n_components": k, "seeds": seeds,
                "captured_mean": float(np.mean(captured)),
                "captured_std": float(np.std(captured)),
                "accuracy_mean": float(np.mean(accuracy)),
                "accuracy_std": float(np.std(accuracy)),
                "non_private_accuracy": float(np.mean(baseline_accuracy)),
            }
            results.append(entry)
            rows.append([name, epsilon,
                         f"{entry['captured_mean']:.3f} ± {entry['captured_std']:.3f}",
                         f"{entry['accuracy_mean']:.3f} ± {entry['accuracy_std']:.3f}",
                         f"{entry['non_private_accuracy']:.3f}"])
            print(*rows[-1], sep=" | ", flush=True)
    payload = {"results": results, "seconds": time.time() - start,
               "versions": versions("numpy", "scikit-learn")}
    lines = ["# Private PCA", "",
             "Held-out variance captured relative to non-private PCA (same number of "
             "components), and 5-NN accuracy on the components.", ""]
    lines += markdown_table(
        ["table", "epsilon", "captured (relative)", "5-NN accuracy", "non-private accuracy"],
        rows)
    print(*write("pca", payload, lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    main(parser.parse_args().seeds)
