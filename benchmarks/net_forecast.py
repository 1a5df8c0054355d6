"""Where the DP network trails the linear model: rows x epsilon per trainable weight.

Calibrates ``_FORECAST_ROWS_EPSILON_PER_WEIGHT`` of
``skprivate.neural_network._dplssgd_net``: ``DPLSSGDNeuralNetClassifier`` at its defaults
with one hidden layer of 32 tanh units, against ``DPLSSGDClassifier``'s defaults on the same
features and the majority class, on breast cancer (398 training rows, 30 features),
digits (1,257 rows, 64 features, 10 classes), the German-credit-like table of
``nonlinear.py`` (700 rows) and random samples of 2,000 and 8,000 Adult rows (one-hot by
the codebook), epsilon 1 and 4, 2 seeds. Features scaled from public ranges
(``make_bounded_preprocessor``; digits by 16). About 10 minutes on 2 cores.

Run: cd benchmarks && PYTHONPATH=.. python net_forecast.py
"""

import time
import warnings

import numpy as np
import torch
from _results import markdown_table, versions, write
from nonlinear import TABLES
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from skprivate.linear_model import DPLSSGDClassifier
from skprivate.neural_network import DPLSSGDNeuralNetClassifier
from skprivate.preprocessing import make_bounded_preprocessor

warnings.simplefilter("ignore")  # the seed caveat and the forecast itself, on every fit

TABLE_NAMES = ("breast cancer", "German-credit-like", "digits", "Adult:2000", "Adult:8000")
EPSILONS = (1.0, 4.0)
SEEDS = (0, 1)
HIDDEN = 32


def load(name, seed):
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, test_size=0.3,
                                                            random_state=seed)
        return X_train, y_train, X_test, y_test
    base, _, rows = name.partition(":")
    X, y, X_test, y_test, declared = TABLES[base](seed)
    scaler = make_bounded_preprocessor(**declared).fit(X[:1])  # reads nothing from rows
    Z, Z_test = np.asarray(scaler.transform(X)), np.asarray(scaler.transform(X_test))
    if rows:
        keep = np.random.default_rng(seed).choice(len(y), int(rows), replace=False)
        Z, y = Z[keep], y[keep]
    return Z, y, Z_test, y_test


def main():
    cells, payload = [], {"versions": versions("numpy", "scikit-learn", "torch"), "rows": []}
    for name in TABLE_NAMES:
        for eps in EPSILONS:
            results = []
            for seed in SEEDS:
                Z, y, Z_test, y_test = load(name, seed)
                k = len(np.unique(y))
                torch.manual_seed(seed)
                module = torch.nn.Sequential(torch.nn.Linear(Z.shape[1], HIDDEN),
                                             torch.nn.Tanh(), torch.nn.Linear(HIDDEN, k))
                weights = sum(p.numel() for p in module.parameters())
                start = time.perf_counter()
                with threadpool_limits(1):
                    net = DPLSSGDNeuralNetClassifier(
                        module, epsilon=eps, classes=list(range(k)), random_state=seed,
                    ).fit(Z.astype(np.float32), y)
                    seconds = time.perf_counter() - start
                    linear = DPLSSGDClassifier(epsilon=eps, classes=list(range(k)),
                                               random_state=seed).fit(Z, y)
                row = {
                    "table": name, "epsilon": eps, "seed": seed, "rows": len(y),
                    "weights": weights, "ratio": len(y) * eps / weights,
                    "net": float(np.mean(net.predict(Z_test.astype(np.float32)) == y_test)),
                    "linear": float(np.mean(linear.predict(Z_test) == y_test)),
                    "majority": float(np.mean(y_test == np.bincount(y).argmax())),
                    "net seconds": seconds,
                }
                payload["rows"].append(row)
                results.append(row)
                print(row, flush=True)
            mean = {key: np.mean([r[key] for r in results])
                    for key in ("ratio", "net", "linear", "majority")}
            cells.append([name, f"{eps:g}", results[0]["rows"], results[0]["weights"],
                          f"{mean['ratio']:.2f}", f"{mean['net']:.3f}",
                          f"{mean['linear']:.3f}", f"{mean['majority']:.3f}",
                          f"{mean['net'] - mean['linear']:+.3f}"])
    cells.sort(key=lambda c: float(c[4]))
    lines = [
        "# DP network against the linear model, by rows x epsilon per weight "
        "(benchmarks/net_forecast.py)", "",
        "DPLSSGDNeuralNetClassifier defaults, one hidden layer of 32 tanh units; "
        f"DPLSSGDClassifier defaults; {len(SEEDS)} seeds, mean test accuracy; sorted by "
        "rows x epsilon / weights.", "",
        *markdown_table(["table", "epsilon", "rows", "weights", "rows x eps / weight", "net",
                         "linear", "majority", "net - linear"], cells),
    ]
    print("\n".join(lines))
    write("net_forecast", payload, lines)


if __name__ == "__main__":
    main()
