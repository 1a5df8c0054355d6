"""Regression from private sufficient statistics (AdaSSP) on diabetes: test R2.

Run with ``python benchmarks/adassp.py`` (five seeds, under a minute on 2 busy cores).

scikit-learn's diabetes table (442 rows, 10 features; 309 training rows per 70/30 split).
Public bounds stand-in: each feature's and the target's minimum and maximum over the whole
table. Compared, for the same splits: non-private ``sklearn.linear_model.LinearRegression``,
:class:`skprivate.linear_model.LinearRegression` and ``Ridge(alpha=1)`` with
``bounds_X``/``bounds_y``, and ``DPLSSGDRegressor`` with its defaults on the features and
target scaled to [-1, 1] by the same bounds (its predictions mapped back). A second table:
20,000 synthetic rows, 10 features uniform in [-1, 1] (the public bounds), a linear target
with unit Gaussian noise (bounds: its range rounded out to integers). Writes
``benchmarks/results/adassp.json`` and ``.md``.
"""

import argparse
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression as NonPrivateLinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from skprivate.linear_model import DPLSSGDRegressor, LinearRegression, Ridge

EPSILONS = (0.1, 0.5, 1.0, 4.0)


def _tables():
    X, y = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(0)
    X_synthetic = rng.uniform(-1, 1, size=(20000, 10))
    y_synthetic = X_synthetic @ rng.normal(size=10) + rng.normal(0, 1.0, size=20000)
    return [("diabetes", X, y, X.min(axis=0), X.max(axis=0), float(y.min()), float(y.max())),
            ("synthetic, 20,000 rows", X_synthetic, y_synthetic, -1.0, 1.0,
             float(np.floor(y_synthetic.min())), float(np.ceil(y_synthetic.max())))]


def main(seeds):
    results, rows = [], []
    start = time.time()
    for table, X, y, lower, upper, y_lower, y_upper in _tables():
        centre, half = (upper + lower) / 2, (upper - lower) / 2
        y_centre, y_half = (y_upper + y_lower) / 2, (y_upper - y_lower) / 2
        for epsilon in EPSILONS:
            scores = {"non-private OLS": [], "LinearRegression": [], "Ridge(alpha=1)": [],
                      "DPLSSGDRegressor": []}
            for seed in range(seeds):
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, test_size=0.3, random_state=seed)
                scores["non-private OLS"].append(
                    NonPrivateLinearRegression().fit(X_train, y_train).score(X_test, y_test))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # seeded noise: a benchmark
                    for name, est in (("LinearRegression", LinearRegression),
                                      ("Ridge(alpha=1)", lambda **kw: Ridge(alpha=1.0, **kw))):
                        model = est(epsilon=epsilon, bounds_X=(lower, upper),
                                    bounds_y=(y_lower, y_upper), random_state=1000 + seed)
                        scores[name].append(model.fit(X_train, y_train).score(X_test, y_test))
                    sgd = DPLSSGDRegressor(epsilon=epsilon, random_state=1000 + seed).fit(
                        (X_train - centre) / half, (y_train - y_centre) / y_half)
                    predicted = y_centre + y_half * sgd.predict((X_test - centre) / half)
                    scores["DPLSSGDRegressor"].append(r2_score(y_test, predicted))
            entry = {"table": table, "epsilon": epsilon, "seeds": seeds,
                     **{f"{k}_mean": float(np.mean(v)) for k, v in scores.items()},
                     **{f"{k}_std": float(np.std(v)) for k, v in scores.items()}}
            results.append(entry)
            rows.append([table, epsilon,
                         *(f"{np.mean(v):.3f} ± {np.std(v):.3f}" for v in scores.values())])
            print(*rows[-1], sep=" | ", flush=True)
    payload = {"results": results, "seconds": time.time() - start,
               "versions": versions("numpy", "scikit-learn")}
    lines = ["# AdaSSP regression", "", "Test R2, mean ± std over seeds.", ""]
    lines += markdown_table(["table", "epsilon", *scores], rows)
    print(*write("adassp", payload, lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    main(parser.parse_args().seeds)
