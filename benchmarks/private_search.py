"""Private hyperparameter search against a naive search and against the defaults.

Run with ``python benchmarks/private_search.py`` (about 5 minutes on 2 cores), or
``python benchmarks/private_search.py --quick`` for a smoke run (one seed, one epsilon).
Writes ``benchmarks/results/private_search.json`` and ``.md``.

Data, preprocessed with public constants only:

* **digits**: pixels divided by their public bound 16 and centred by 0.5; a stratified
  75/25 split per seed (1347 private training rows).
* **Adult**: ``load_adult`` train (32,561 private rows) and test, encoded by
  ``make_adult_preprocessor()`` (data-independent: codebook one-hot and fixed ranges).

For each total budget ``E`` (delta = 1e-5) and seed, on the same grid ``GRID`` of
``DPLSSGDClassifier`` hyperparameters (8 candidates):

(a) ``PrivateRandomSearchCV(DPLSSGDClassifier(), GRID, epsilon=E)``: a Poisson number of
    runs (mean 10), noisy validation scores, only the best released; the whole search,
    selection included, is ``(E, delta)``-DP.
(a2) the same with a logarithmic number of runs of mean 3 (Papernot and Steinke,
    Theorem 2 with eta = 0): fewer runs, a smaller selection cost, more epsilon per run.
(b) scikit-learn's ``GridSearchCV`` (3 folds, refit) over ``DPLSSGDClassifier`` with every
    fit at ``E / 25``: the naive total (``total_privacy_cost``, the sum over the 24 fold
    fits and the refit) is ``E``, but the choice of the best candidate reads noiseless
    validation scores and is not private at all.
(b') the same with every fit at ``E``: what a user who forgets the search's cost gets;
    its naive total is ``25 E`` (and the selection is still not private).
(c) ``DPLSSGDClassifier(epsilon=E)``: the defaults, no search.

Accuracy is on the held-out test rows, mean and standard deviation over ``SEEDS``. Seeds are
fixed so the numbers can be reproduced; a release would use ``random_state=None``.
"""

import argparse
import json
import pathlib
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, train_test_split

from skprivate.accounting import total_privacy_cost
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.model_selection import PrivateRandomSearchCV

EPSILONS = (0.5, 2.0)
QUICK_EPSILONS = (1.0,)
SEEDS = (0, 1)
DELTA = 1e-5
GRID = {"learning_rate": [0.1, 0.3, 1.0, 3.0], "max_iter": [5, 20]}
CV = 3
N_NAIVE_FITS = CV * 8 + 1  # every candidate on every fold, plus the refit

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "results"


def _digits(seed):
    X, y = load_digits(return_X_y=True)
    X = X / 16.0 - 0.5
    return train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)


_ADULT = {}


def _adult(seed):
    if not _ADULT:
        X_train, y_train = load_adult("train", return_X_y=True)
        X_test, y_test = load_adult("test", return_X_y=True)
        pre = make_adult_preprocessor().fit(X_train)  # data-independent: reads nothing
        _ADULT["data"] = (pre.transform(X_train), pre.transform(X_test), y_train, y_test)
    return _ADULT["data"]


DATASETS = {"digits": _digits, "adult": _adult}


def _methods(epsilon, seed):
    per_fit = epsilon / N_NAIVE_FITS
    return {
        "(a) PrivateRandomSearchCV": lambda: PrivateRandomSearchCV(
            DPLSSGDClassifier(), GRID, epsilon=epsilon, delta=DELTA, random_state=seed
        ),
        "(a2) same, logarithmic, mean 3": lambda: PrivateRandomSearchCV(
            DPLSSGDClassifier(), GRID, epsilon=epsilon, delta=DELTA,
            n_candidates="logarithmic", mean_candidates=3, random_state=seed,
        ),
        "(b) GridSearchCV, naive total E": lambda: GridSearchCV(
            DPLSSGDClassifier(epsilon=per_fit, delta=DELTA, random_state=seed), GRID, cv=CV
        ),
        "(b') GridSearchCV, each fit E": lambda: GridSearchCV(
            DPLSSGDClassifier(epsilon=epsilon, delta=DELTA, random_state=seed), GRID, cv=CV
        ),
        "(c) defaults, no search": lambda: DPLSSGDClassifier(
            epsilon=epsilon, delta=DELTA, random_state=seed
        ),
    }


def _total(model, X, y):
    if hasattr(model, "cv_results_") and not hasattr(model, "epsilon_"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            return total_privacy_cost(model, X, y)[0], "naive sum; selection not private"
    return model.epsilon_, "whole release"


def run(epsilons, seeds):
    rows = []
    for name, load in DATASETS.items():
        for epsilon in epsilons:
            for method, make in _methods(epsilon, 0).items():
                accs, totals, seconds, chosen = [], [], [], []
                for seed in seeds:
                    X_train, X_test, y_train, y_test = load(seed)
                    model = _methods(epsilon, seed)[method]()
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        # fixed seeds, for reproducible numbers: each fit says so
                        warnings.simplefilter("ignore", PrivacyLeakWarning)
                        model.fit(X_train, y_train)
                    seconds.append(time.perf_counter() - start)
                    accs.append(model.score(X_test, y_test))
                    total, what = _total(model, X_train, y_train)
                    totals.append(total)
                    chosen.append(getattr(model, "best_params_", None))
                row = {
                    "dataset": name,
                    "epsilon": epsilon,
                    "method": method,
                    "accuracy_mean": float(np.mean(accs)),
                    "accuracy_std": float(np.std(accs)),
                    "total_epsilon": float(max(totals)),
                    "total_is": what,
                    "seconds_per_fit": float(np.mean(seconds)),
                    "chosen": chosen,
                }
                rows.append(row)
                print(
                    f"{name:7s} E={epsilon:<4g} {method:34s} acc {row['accuracy_mean']:.4f} "
                    f"+- {row['accuracy_std']:.4f}  total eps {row['total_epsilon']:7.3f} "
                    f"({what})  {row['seconds_per_fit']:.1f} s",
                    flush=True,
                )
    return rows


def _markdown(rows, seeds):
    lines = [
        "# Private hyperparameter search (benchmarks/private_search.py)",
        "",
        f"DPLSSGDClassifier, grid {GRID}, delta={DELTA:g}, seeds {list(seeds)}; test "
        "accuracy mean +- std. (b) and (b') choose with noiseless validation scores: their "
        "selection is not private whatever their total says.",
        "",
        "| data | E | method | accuracy | total epsilon | total is |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['dataset']} | {r['epsilon']:g} | {r['method']} | "
            f"{r['accuracy_mean']:.4f} +- {r['accuracy_std']:.4f} | "
            f"{r['total_epsilon']:.3f} | {r['total_is']} |"
        )
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed, one epsilon")
    args = parser.parse_args()
    epsilons, seeds = (QUICK_EPSILONS, SEEDS[:1]) if args.quick else (EPSILONS, SEEDS)
    start = time.perf_counter()
    rows = run(epsilons, seeds)
    print(f"total time {time.perf_counter() - start:.0f} s")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "private_search.json").write_text(
        json.dumps({"grid": GRID, "delta": DELTA, "seeds": list(seeds), "rows": rows},
                   indent=2, default=str)
    )
    (RESULTS / "private_search.md").write_text(_markdown(rows, seeds))


if __name__ == "__main__":
    main()
