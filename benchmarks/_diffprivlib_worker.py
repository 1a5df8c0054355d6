"""diffprivlib's LogisticRegression on arrays prepared by ``dplssgd_utility.py``.

Not a benchmark of its own: run without arguments (as ``run_all.py`` runs every script in
this folder) it says so and exits successfully. diffprivlib
imports private scikit-learn modules that scikit-learn 1.8 removed, so it cannot run in
skprivate's environment; ``dplssgd_utility.py`` runs this script with the Python of a
separate virtual environment (diffprivlib and ``scikit-learn<1.8``) as

    python _diffprivlib_worker.py ARRAYS.npz RESULT.json

``ARRAYS.npz`` holds ``X_train``, ``y_train``, ``X_test``, ``y_test`` (one data set, already
preprocessed by the parent), ``epsilons``, ``seeds`` and ``data_norm``, the public bound on
the Euclidean norm of a row that the preprocessing guarantees. For every epsilon and seed the
worker fits ``LogisticRegression(epsilon=..., data_norm=..., random_state=seed)`` and writes
the test accuracies as ``{"epsilons": [...], "seeds": [...], "accuracy": [[...], ...]}``
(one row per epsilon). A data set whose split depends on the seed is passed as one file per
seed, with ``seeds`` of length one.

diffprivlib's guarantee is pure epsilon-DP (delta = 0) under the same add/remove-one-row
relation, by objective perturbation with the Vector mechanism; with more than two classes
it fits one-vs-rest models, each with ``epsilon / n_classes``.
"""

import json
import sys
import warnings

import numpy as np


def main(arrays_path, result_path):
    from diffprivlib.models import LogisticRegression

    data = np.load(arrays_path)
    epsilons = [float(e) for e in data["epsilons"]]
    seeds = [int(s) for s in data["seeds"]]
    data_norm = float(data["data_norm"])
    accuracy = []
    for epsilon in epsilons:
        row = []
        for seed in seeds:
            with warnings.catch_warnings():
                # diffprivlib warns about a fixed random_state: the seed of a benchmark.
                warnings.simplefilter("ignore")
                model = LogisticRegression(
                    epsilon=epsilon, data_norm=data_norm, random_state=seed
                ).fit(data["X_train"], data["y_train"])
            row.append(float(model.score(data["X_test"], data["y_test"])))
        accuracy.append(row)
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump({"epsilons": epsilons, "seeds": seeds, "accuracy": accuracy}, handle)


if __name__ == "__main__":
    if len(sys.argv) == 1:
        print("helper of dplssgd_utility.py (run that script instead); nothing to do")
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit("usage: python _diffprivlib_worker.py ARRAYS.npz RESULT.json")
