"""Private k-means: test-set cost relative to non-private k-means, against a DP Lloyd baseline.

Run with ``python benchmarks/kmeans.py`` (3 seeds, epsilon 0.1 / 0.5 / 1 / 4, and the time of
a fit on 1M rows against scikit-learn's; a few minutes on 2 busy cores), ``--quick`` for a
smoke run without the timing.

Compared, on the same splits, public bounds and seeds:

* ``skprivate``: :class:`skprivate.cluster.KMeans` with its defaults (private start from a
  tree of noisy counts, ``max_iter="auto"``, delta 1e-6, the number of rows private);
* ``dp-lloyd``: diffprivlib's method (Su et al. 2016), our own implementation: centres drawn
  uniformly within the bounds, then noisy Lloyd iterations, their number by diffprivlib's
  rule (``_calc_iters``: between 2 and 7), with the same noise and accounting as ours
  (discrete Gaussian counts, granular Gaussian sums, zCDP at the same epsilon and delta,
  the count's 5 % spent too): the gap is the start, not the noise. (diffprivlib itself does
  not import with scikit-learn >= 1.8.)

Metric: the k-means cost of the test rows (clipped to the bounds, as the fit sees them) on the
private centres, over the cost on scikit-learn's ``KMeans(n_init=3)`` centres fitted on the
same training rows without privacy (1.0: as good as non-private).

Data (bounds declared, not read from the rows): ``make_blobs`` with 120,000 rows, 10 centres,
2 and 10 features (100,000 training rows; centres drawn in [-10, 10], unit spread: bounds
(-15, 15)); digits (pixels in [0, 16], k = 10, 1,257 training rows); breast cancer
standardised with the full table's mean and deviation (a stand-in for public ones) and
clipped to [-3, 3], k = 3 (398 training rows). Writes ``benchmarks/results/kmeans.json`` and
``.md``.
"""

import argparse
import math
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.cluster import KMeans as PublicKMeans
from sklearn.datasets import load_breast_cancer, load_digits, make_blobs
from sklearn.model_selection import train_test_split

from skprivate._row_count import release_row_count, rest_epsilon
from skprivate.accounting._zcdp import gaussian_sigma_for_rho, zcdp_rho
from skprivate.cluster import KMeans
from skprivate.cluster import _lloyd
from skprivate.mechanisms import check_rng

EPSILONS = (0.1, 0.5, 1.0, 4.0)
DELTA = 1e-6


def tables(seed, blobs=True):
    out = {}
    for d in ((2, 10) if blobs else ()):
        X, _ = make_blobs(120_000, n_features=d, centers=10, random_state=seed)
        out[f"blobs d={d}"] = (X, (-15.0, 15.0), 10, 1 / 6)
    X, _ = load_digits(return_X_y=True)
    out["digits"] = (X, (0.0, 16.0), 10, 0.3)
    X, _ = load_breast_cancer(return_X_y=True)
    out["breast cancer"] = ((X - X.mean(0)) / X.std(0), (-3.0, 3.0), 3, 0.3)
    return out


def dp_lloyd(X, k, bounds, epsilon, seed):
    """diffprivlib's method with our noise: uniform start, 2 to 7 noisy Lloyd iterations."""
    rng = check_rng(seed)
    lower, upper = bounds
    centre, half = (upper + lower) / 2.0, (upper - lower) / 2.0
    U = (np.clip(X, lower, upper) - centre) / half
    n, d = U.shape
    count = release_row_count(n, epsilon, public=False, rng=rng)
    rho = zcdp_rho(rest_epsilon(epsilon, count.epsilon), DELTA)
    # diffprivlib 0.6's KMeans._calc_iters (Su et al. 2016's rule), on the noisy count
    epsilon_m = math.sqrt(500 * k**3 / count.n_plan**2 * (d + np.cbrt(4 * d * 0.225**2)) ** 3)
    n_iter = int(max(min(epsilon / epsilon_m, 7), 2))
    share = math.sqrt(d) / (math.sqrt(d) + 1.0)
    sigma_count = gaussian_sigma_for_rho(1.0, (1 - share) * rho / n_iter)
    sigma_sum = gaussian_sigma_for_rho(math.sqrt(d), share * rho / n_iter)
    C = rng.uniform(-1.0, 1.0, size=(k, d))
    for _ in range(n_iter):
        C, _ = _lloyd.lloyd_step(U, C, sigma_count, sigma_sum, math.sqrt(d) * sigma_sum, rng)
    return centre + half * C


def cost(X, centres):
    return float(((X - centres[_lloyd.nearest(X, centres)]) ** 2).sum())


def run(epsilons, seeds):
    results = {}
    for seed in seeds:
        for name, (X, bounds, k, test_size) in tables(seed).items():
            X_train, X_test = train_test_split(X, test_size=test_size, random_state=seed)
            X_test = np.clip(X_test, *bounds)
            base = cost(X_test, PublicKMeans(k, n_init=3, random_state=seed)
                        .fit(np.clip(X_train, *bounds)).cluster_centers_)
            for epsilon in epsilons:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the seed caveat
                    ours = KMeans(k, epsilon=epsilon, delta=DELTA, bounds=bounds,
                                  random_state=seed).fit(X_train)
                lloyd = dp_lloyd(X_train, k, bounds, epsilon, seed)
                entry = results.setdefault(name, {}).setdefault(epsilon, {
                    "skprivate": [], "dp-lloyd": []})
                entry["skprivate"].append(cost(X_test, ours.cluster_centers_) / base)
                entry["dp-lloyd"].append(cost(X_test, lloyd) / base)
            print(f"seed {seed} {name} done", flush=True)
    return results


def speed(n_rows=1_000_000, d=10, k=10):
    X, _ = make_blobs(n_rows, n_features=d, centers=k, random_state=0)
    start = time.perf_counter()
    PublicKMeans(k, n_init=1, random_state=0).fit(X)
    public = time.perf_counter() - start
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        KMeans(k, bounds=(-15, 15), random_state=0).fit(X)
    private = time.perf_counter() - start
    return {"rows": n_rows, "features": d, "clusters": k, "scikit-learn n_init=1 s": public,
            "skprivate s": private}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    epsilons = (1.0,) if args.quick else EPSILONS
    seeds = range(1 if args.quick else args.seeds)
    results = run(epsilons, seeds)
    rows = []
    for name, by_eps in results.items():
        for epsilon, arms in by_eps.items():
            ours, lloyd = np.array(arms["skprivate"]), np.array(arms["dp-lloyd"])
            rows.append([name, f"{epsilon:g}", f"{ours.mean():.3f} ± {ours.std():.3f}",
                         f"{lloyd.mean():.3f} ± {lloyd.std():.3f}"])
    lines = ["Test-set k-means cost over non-private k-means (mean ± std over seeds; 1.0 is "
             "non-private).", ""]
    lines += markdown_table(["data", "epsilon", "skprivate KMeans", "DP Lloyd (uniform start)"],
                            rows)
    payload = {"results": results, "delta": DELTA, "seeds": list(seeds),
               "versions": versions("numpy", "scikit-learn")}
    if not args.quick:
        payload["speed"] = timing = speed()
        lines += ["", f"Fit on {timing['rows']:,} rows, d = {timing['features']}, "
                      f"k = {timing['clusters']}: skprivate {timing['skprivate s']:.1f} s, "
                      f"scikit-learn (n_init=1) {timing['scikit-learn n_init=1 s']:.1f} s."]
    print("\n".join(lines))
    write("kmeans", payload, lines)


if __name__ == "__main__":
    main()
