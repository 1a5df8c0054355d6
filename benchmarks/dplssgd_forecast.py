"""Where DPLSSGDClassifier is at chance: rows x epsilon per coefficient, n eps / (d K).

Calibrates ``_FORECAST_ROWS_EPSILON`` of ``skprivate.linear_model._dplssgd_base``:
DPLSSGDClassifier defaults on random subsets of the standardised breast cancer (d=30,
K=1 output) and digits (d=64, K=10) tables, 70/30 split, mean test accuracy over seeds
against the majority class. About 3 minutes on 2 cores.

Run: cd benchmarks && PYTHONPATH=.. python dplssgd_forecast.py
"""

import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from skprivate import DPLSSGDClassifier

warnings.simplefilter("ignore")  # the seed caveat and the forecast itself, on every fit

GRID = {
    "breast_cancer": (load_breast_cancer, [(n, e) for n in (50, 100, 200)
                                           for e in (0.05, 0.1, 0.25, 0.5)], 3),
    "digits": (load_digits, [(100, 0.5), (400, 0.25), (400, 0.5), (800, 0.25), (800, 0.5),
                             (400, 1.0), (1000, 1.0)], 2),
}

rows, payload = [], {"versions": versions("numpy", "scikit-learn"), "cells": []}
for name, (loader, cells, seeds) in GRID.items():
    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    majority = float(np.mean(yte == np.bincount(ytr).argmax()))
    d, k = X.shape[1], (1 if len(np.unique(y)) == 2 else len(np.unique(y)))
    for n, eps in cells:
        accs = []
        for seed in range(seeds):
            idx = np.random.default_rng(seed).choice(len(Xtr), n, replace=False)
            clf = DPLSSGDClassifier(epsilon=eps, random_state=seed).fit(Xtr[idx], ytr[idx])
            accs.append(clf.score(Xte, yte))
        q = n * eps / (d * k)
        payload["cells"].append({"data": name, "n": n, "epsilon": eps, "q": q,
                                 "accuracy": accs, "majority": majority})
        rows.append((name, n, eps, f"{q:.3f}", f"{np.mean(accs):.3f}", f"{majority:.3f}"))
        print(rows[-1], flush=True)
lines = [
    "# DPLSSGDClassifier near chance: rows x epsilon per coefficient "
    "(benchmarks/dplssgd_forecast.py)",
    "",
    "q = n epsilon / (n_features K); the forecast warns below 0.2.",
    "",
    *markdown_table(["data", "rows", "epsilon", "q", "accuracy", "majority"], rows),
]
write("dplssgd_forecast", payload, lines)
print("\n".join(lines))
