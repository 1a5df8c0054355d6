"""Scale: fit time and peak memory of DPLSSGDClassifier and PATEClassifier on synthetic data
of 25,000 to 200,000 rows (50 features), against the size of the data.

Targets (issue 8): peak memory of a fit under twice the data size, and time growing
linearly with the number of rows. Peak memory is what ``tracemalloc`` sees allocated during
the fit (NumPy reports its buffers to it), beyond the data already in memory. Writes
benchmarks/results/scale.json and .md.
"""

import json
import pathlib
import time
import tracemalloc
import warnings

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from skprivate import DPLSSGDClassifier
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.pate import PATEClassifier

RESULTS = pathlib.Path(__file__).parent / "results"
SIZES = (25_000, 50_000, 100_000, 200_000)


def _data(n, rng):
    X = rng.uniform(-1, 1, size=(n, 50))
    w = rng.normal(size=50)
    y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _measure(fit):
    tracemalloc.start()
    start = time.perf_counter()
    fit()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak


def main():
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    rng = np.random.default_rng(0)
    X_public, _ = _data(1000, rng)
    rows = []
    for n in SIZES:
        X, y = _data(n, rng)
        fits = {
            "DPLSSGDClassifier": lambda: DPLSSGDClassifier(epsilon=1.0, random_state=0).fit(X, y),
            "PATEClassifier (50 trees)": lambda: PATEClassifier(
                DecisionTreeClassifier(max_depth=8), n_teachers=50, n_queries=500,
                noise_scale=20.0, random_state=0).fit(X, y, X_public=X_public),
        }
        for name, fit in fits.items():
            seconds, peak = _measure(fit)
            rows.append({"estimator": name, "n_rows": n, "data_mb": X.nbytes / 2**20,
                         "seconds": seconds, "peak_mb": peak / 2**20,
                         "peak_over_data": peak / X.nbytes})
            print(f"{name:<28} n={n:>7} time {seconds:7.2f} s  peak {peak / 2**20:7.1f} MB "
                  f"({peak / X.nbytes:.2f} x data)", flush=True)
    lines = ["| estimator | rows | data (MB) | time (s) | time per 100k rows (s) | "
             "peak memory (MB) | peak / data |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['estimator']} | {r['n_rows']:,} | {r['data_mb']:.0f} | "
                     f"{r['seconds']:.2f} | {r['seconds'] / r['n_rows'] * 1e5:.2f} | "
                     f"{r['peak_mb']:.0f} | {r['peak_over_data']:.2f} |")
    table = "\n".join(lines)
    print("\n" + table)
    for name in {r["estimator"] for r in rows}:
        mine = [r for r in rows if r["estimator"] == name]
        growth = mine[-1]["seconds"] / mine[0]["seconds"]
        print(f"{name}: time x{growth:.1f} for rows x{SIZES[-1] / SIZES[0]:.0f}; worst peak "
              f"{max(r['peak_over_data'] for r in mine):.2f} x data (target < 2)")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(rows, indent=2))
    (RESULTS / "scale.md").write_text(table + "\n")


if __name__ == "__main__":
    main()
