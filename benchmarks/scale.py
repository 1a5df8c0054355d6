"""Scale: fit time and peak memory of DPLSSGDClassifier and PATEClassifier on synthetic data
of 25,000 to 200,000 rows (50 features), against the size of the data and beside the
non-private scikit-learn model doing the same training.

Targets (issue 8): peak memory of a fit under twice the data size at every size, and time
growing linearly with the number of rows. Peak memory is what ``tracemalloc`` sees allocated
during the fit (NumPy reports its buffers to it), beyond the data already in memory.
``tracemalloc`` doubles the time of DP-LSSGD's Python loop, so each model is fitted twice:
first traced, for the memory (DP-LSSGD's noise calibration included), then untraced, for the
time (DP-LSSGD's calibration, a fixed cost computed once per setting and cached, left out).

The peers: scikit-learn's ``SGDClassifier`` (logistic loss, the same 10 epochs, one row per
step) for DP-LSSGD, and for PATE the same 50 depth-8 scikit-learn trees fitted on disjoint
random n / 50 rows each, without privacy: the ratio is PATE's cost beyond training its
teachers (the noisy votes, the student). Not a ``BaggingClassifier`` or a random forest:
they fit every tree on all n rows, with zero weights on the rows left out, 50 times the work.
Writes benchmarks/results/scale.json and .md; exits non-zero if a target is missed.
"""

import time
import tracemalloc
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.base import clone
from sklearn.linear_model import SGDClassifier
from sklearn.tree import DecisionTreeClassifier

from skprivate import DPLSSGDClassifier
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.pate import PATEClassifier

SIZES = (25_000, 50_000, 100_000, 200_000)
N_FEATURES = 50
EPOCHS = 10  # DPLSSGDClassifier's default max_iter
N_TEACHERS, N_QUERIES, MAX_DEPTH = 50, 500, 8
SEED = 0
MEMORY_MAX = 2.0  # peak / data size
# Linear time: the least-squares slope of log time against log rows over the four sizes at
# most 1.25. A fit over all sizes spanning 8x lets one timing be 1.5x off (a shared 2-core
# machine) without crossing 1.25, while quadratic growth gives 2; the n log n of fitting trees
# gives about 1.1. No lower limit: fixed costs (PATE's 500 queries and student) weigh most at
# the smallest size and lower the slope without any scaling fault.
SLOPE_MAX = 1.25
DPLSSGD, PATE = "DPLSSGDClassifier", f"PATEClassifier ({N_TEACHERS} trees)"
PEERS = {DPLSSGD: f"SGDClassifier ({EPOCHS} epochs)",
         PATE: f"{N_TEACHERS} DecisionTreeClassifier on n/{N_TEACHERS} rows each"}


def _data(n, rng):
    X = rng.uniform(-1, 1, size=(n, N_FEATURES))
    w = rng.normal(size=N_FEATURES)
    y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _teachers(tree, X, y):
    for part in np.array_split(np.random.default_rng(SEED).permutation(len(y)), N_TEACHERS):
        clone(tree).fit(X[part], y[part])


def _fits(X, y, X_public):
    tree = DecisionTreeClassifier(max_depth=MAX_DEPTH)
    return {
        DPLSSGD: lambda: DPLSSGDClassifier(epsilon=1.0, max_iter=EPOCHS,
                                           random_state=SEED).fit(X, y),
        PEERS[DPLSSGD]: lambda: SGDClassifier(loss="log_loss", max_iter=EPOCHS, tol=None,
                                              random_state=SEED).fit(X, y),
        PATE: lambda: PATEClassifier(tree, n_teachers=N_TEACHERS, n_queries=N_QUERIES,
                                     noise_scale=20.0, aggregator="lnmax", epsilon=None,
                                     random_state=SEED).fit(
                                         X, y, X_public=X_public),
        PEERS[PATE]: lambda: _teachers(tree, X, y),
    }


def _peak(fit):
    tracemalloc.start()
    fit()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def _seconds(fit):
    start = time.perf_counter()
    fit()
    return time.perf_counter() - start


def _checks(rows):
    checks = []
    for name in (DPLSSGD, PATE):
        mine = [r for r in rows if r["estimator"] == name]
        slope = np.polyfit(np.log([r["n_rows"] for r in mine]),
                           np.log([r["seconds"] for r in mine]), 1)[0]
        worst = max(r["peak_over_data"] for r in mine)
        checks.append({"estimator": name, "time_slope": slope, "slope_max": SLOPE_MAX,
                       "worst_peak_over_data": worst, "memory_max": MEMORY_MAX,
                       "met": bool(slope <= SLOPE_MAX and worst < MEMORY_MAX)})
    return checks


def _ratios(rows):
    seconds = {(r["estimator"], r["n_rows"]): r["seconds"] for r in rows}
    return [{"n_rows": n, **{f"{name} / {peer}": seconds[name, n] / seconds[peer, n]
                             for name, peer in PEERS.items()}} for n in SIZES]


def _markdown(rows, checks, ratios):
    lines = markdown_table(
        ["estimator", "rows", "data (MB)", "time (s)", "time per 100k rows (s)",
         "peak memory (MB)", "peak / data"],
        [[r["estimator"], f"{r['n_rows']:,}", f"{r['data_mb']:.0f}", f"{r['seconds']:.2f}",
          f"{r['seconds'] / r['n_rows'] * 1e5:.2f}", f"{r['peak_mb']:.0f}",
          f"{r['peak_over_data']:.2f}"] for r in rows])
    lines += ["", f"Targets: time slope (log time against log rows, least squares over the "
              f"{len(SIZES)} sizes) at most {SLOPE_MAX}; peak memory under {MEMORY_MAX:g} x "
              "the data at every size.", ""]
    lines += markdown_table(
        ["estimator", "time slope", "worst peak / data", "targets met"],
        [[c["estimator"], f"{c['time_slope']:.2f}", f"{c['worst_peak_over_data']:.2f}",
          "yes" if c["met"] else "NO"] for c in checks])
    lines += ["", "Time against the non-private peer (same run, same data):", ""]
    names = [key for key in ratios[0] if key != "n_rows"]
    lines += markdown_table(["rows", *names],
                            [[f"{r['n_rows']:,}", *(f"{r[k]:.2f}" for k in names)]
                             for r in ratios])
    return lines


def main():
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # the fixed seed of a benchmark
    rng = np.random.default_rng(SEED)
    X_public, _ = _data(1000, rng)
    rows = []
    for n in SIZES:
        X, y = _data(n, rng)
        for name, fit in _fits(X, y, X_public).items():
            peak = _peak(fit)  # first: DP-LSSGD's calibration is then cached for the timing
            seconds = _seconds(fit)
            rows.append({"estimator": name, "private": name in PEERS, "n_rows": n,
                         "data_mb": X.nbytes / 2**20, "seconds": seconds,
                         "peak_mb": peak / 2**20, "peak_over_data": peak / X.nbytes})
            print(f"{name:<40} n={n:>7} time {seconds:7.2f} s  peak {peak / 2**20:7.1f} MB "
                  f"({peak / X.nbytes:.2f} x data)", flush=True)
    checks, ratios = _checks(rows), _ratios(rows)
    lines = _markdown(rows, checks, ratios)
    print("\n" + "\n".join(lines))
    payload = {
        "benchmark": "scale",
        "settings": {"sizes": list(SIZES), "n_features": N_FEATURES, "epochs": EPOCHS,
                     "n_teachers": N_TEACHERS, "n_queries": N_QUERIES, "max_depth": MAX_DEPTH,
                     "slope_max": SLOPE_MAX, "memory_max": MEMORY_MAX},
        "seeds": [SEED],
        "versions": versions("skprivate", "numpy", "scipy", "scikit-learn"),
        "peers": PEERS,
        "rows": rows,
        "checks": checks,
        "ratios": ratios,
    }
    write("scale", payload, lines)
    missed = [c["estimator"] for c in checks if not c["met"]]
    if missed:
        raise SystemExit(f"scale targets missed: {', '.join(missed)}")


if __name__ == "__main__":
    main()
