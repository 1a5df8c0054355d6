"""What the noisy row count costs DPLSSGDClassifier's accuracy (finding 3: n is private).

Run with ``python benchmarks/row_count.py`` (ten seeds, five on the full Adult table; about
two minutes on 2 busy cores), ``--seeds 3`` for fewer, or ``--quick`` for a smoke run.

By default a DP-SGD fit first releases ``n + Z`` (``Z`` discrete Laplace noise, 5 % of
epsilon) and plans on it (batch and sampling rate, steps, learning rate, divisors), with the
training calibrated to the remaining 95 % of the budget; ``n_samples_public=True`` reads
``n`` exactly and spends nothing on it. This compares the two on the default
``DPLSSGDClassifier(epsilon=1, delta=1e-5)``, nothing else set, for the same splits and seeds:

* **Adult** (``load_adult`` through ``make_adult_preprocessor()``, data-independent
  encoding): random subsets of 300, 500 and 1,000 rows of the training file (a new subset
  per seed) and the full training file (32,561 rows); the test file (16,281 rows) is the test
  set of all four;
* **breast cancer** (scikit-learn): a stratified 70/30 split per seed (398 training rows),
  the features divided by their largest absolute value on the training rows (a stand-in for
  public bounds).

For each table: the test accuracy (mean and standard deviation over seeds) with the count
and with ``n`` public, and the paired difference (count - public, the same split and seed)
with its standard error. A third arm, ``n`` public at epsilon 0.95 (what the training keeps
after the count), splits the difference into its two causes: the 5 % of the budget the
count takes, and planning on a noisy ``n`` (count - third arm). The two fits of a pair draw different noise (the count is the first
draw of the generator), so a pair differs by the seed-to-seed spread even with no cost; a
cost is "measurable" when the mean paired difference is below minus twice its standard
error. Expectation (issue text): no measurable difference at n >= 500. Writes
``benchmarks/results/row_count.json`` and ``.md``.
"""

import argparse
import math
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from skprivate._row_count import COUNT_SHARE
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.linear_model import DPLSSGDClassifier

EPSILON, DELTA = 1.0, 1e-5
ADULT_SIZES = (300, 500, 1000)


def adult_tables(seeds, full_seeds):
    X_train, y_train = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    pre = make_adult_preprocessor().fit(X_train)  # the codebook's categories only
    X_all, X_te = pre.transform(X_train), pre.transform(X_test)
    X_all = X_all.toarray() if hasattr(X_all, "toarray") else np.asarray(X_all)
    X_te = X_te.toarray() if hasattr(X_te, "toarray") else np.asarray(X_te)
    y_all, y_te = np.asarray(y_train), np.asarray(y_test)
    tables = {}
    for size in ADULT_SIZES:
        splits = []
        for seed in seeds:
            idx = np.random.default_rng(1000 + seed).choice(len(y_all), size, replace=False)
            splits.append((X_all[idx], X_te, y_all[idx], y_te))
        tables[f"Adult, {size} rows"] = splits
    tables[f"Adult, all {len(y_all)} rows"] = [(X_all, X_te, y_all, y_te) for _ in full_seeds]
    return tables


def cancer_table(seeds):
    X, y = load_breast_cancer(return_X_y=True)
    splits = []
    for seed in seeds:
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed,
                                                  stratify=y)
        top = np.abs(X_tr).max(axis=0)
        top[top == 0] = 1.0
        splits.append((X_tr / top, X_te / top, y_tr, y_te))
    return {f"breast cancer, {len(splits[0][2])} rows": splits}


ARMS = {  # name: (n_samples_public, epsilon)
    "count": (False, EPSILON),
    "public": (True, EPSILON),
    "public_0.95": (True, (1 - COUNT_SHARE) * EPSILON),
}


def score(split, seed, arm):
    X_tr, X_te, y_tr, y_te = split
    public, epsilon = ARMS[arm]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a benchmark's fixed seed and classes read from y
        model = DPLSSGDClassifier(epsilon=epsilon, delta=DELTA, random_state=seed,
                                  n_samples_public=public).fit(X_tr, y_tr)
    assert model.epsilon_ <= epsilon
    return float(model.score(X_te, y_te))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--full-seeds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="two seeds, one on full Adult")
    args = parser.parse_args()
    n_seeds, n_full = (2, 1) if args.quick else (args.seeds, min(args.full_seeds, args.seeds))
    seeds, full_seeds = list(range(n_seeds)), list(range(n_full))
    tables = {**adult_tables(seeds, full_seeds), **cancer_table(seeds)}
    results, rows = [], []
    start = time.perf_counter()
    for name, splits in tables.items():
        acc = {arm: [score(split, seed, arm) for seed, split in enumerate(splits)]
               for arm in ARMS}
        entry = {"table": name, "n_train": len(splits[0][2]), "seeds": len(splits)}
        for arm, values in acc.items():
            entry[arm] = values
            entry[f"{arm}_mean"], entry[f"{arm}_std"] = float(np.mean(values)), float(np.std(values))
        for key, other in (("paired", "public"), ("plan", "public_0.95")):
            diff = np.subtract(acc["count"], acc[other])
            se = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.nan
            entry[f"{key}_difference"], entry[f"{key}_se"] = float(diff.mean()), se
            entry[f"{key}_measurable"] = (
                bool(diff.mean() < -2 * se) if math.isfinite(se) else None
            )
        results.append(entry)
        yes = {True: "yes", False: "no", None: "n/a"}
        rows.append([
            name, entry["seeds"],
            *(f"{entry[f'{arm}_mean']:.4f} ± {entry[f'{arm}_std']:.4f}" for arm in ARMS),
            f"{entry['paired_difference']:+.4f} ± {entry['paired_se']:.4f} "
            f"({yes[entry['paired_measurable']]})",
            f"{entry['plan_difference']:+.4f} ± {entry['plan_se']:.4f} "
            f"({yes[entry['plan_measurable']]})",
        ])
        print(" | ".join(str(cell) for cell in rows[-1]), flush=True)
    seconds = time.perf_counter() - start
    header = ["table", "seeds", "noisy count (default)", "n public",
              "n public, epsilon 0.95", "count - public (measurable?)",
              "count - public at 0.95 (measurable?)"]
    lines = [
        "# The noisy row count: accuracy of DPLSSGDClassifier's default, epsilon 1",
        "",
        "`DPLSSGDClassifier(epsilon=1, delta=1e-5)`, nothing else set: with the default the "
        "fit releases a noisy count of the rows (discrete Laplace, 5 % of epsilon) and plans "
        "on it, the training keeping 95 % of the budget; `n_samples_public=True` plans on "
        "the exact n; the third arm plans on the exact n with the 95 % of epsilon the "
        "training keeps, so the last column is the cost of planning on a noisy n alone. Test "
        "accuracy, mean ± standard deviation over seeds; the differences are paired (same "
        "split and seed), ± their standard error; \"measurable\": mean below minus twice "
        "its standard error.",
        "",
        *markdown_table(header, rows),
        "",
        f"{seconds:.0f} s in all. Produced by `benchmarks/row_count.py`.",
    ]
    payload = {"epsilon": EPSILON, "delta": DELTA, "results": results,
               "seconds": seconds, "quick": args.quick,
               "versions": versions("numpy", "scikit-learn", "dp-accounting")}
    for path in write("row_count", payload, lines):
        print("wrote", path)


if __name__ == "__main__":
    main()
