"""Private quantiles and counts of the preprocessors: what the calibration and the count cost.

1. Exact expected rank error of one quantile (no sampling): the continuous exponential
   mechanism the preprocessors used before (its gap probabilities, kept here as
   :func:`exponential_gaps`), calibrated to 1 and to the rank utility's sensitivity
   ``max(q, 1 - q)``, against today's permute-and-flip over the 4097 points of the public
   grid (:func:`skprivate.preprocessing._common.grid_quantiles`; its exact output
   distribution from the arrival-time integral ``P(r) = p_r int_0^1 prod_{s != r} (1 - t
   p_s) dt``), for the median and the first quartile, on uniform and normal values with
   tight and loose bounds.
2. ``RobustScaler`` on breast cancer (569 rows, bounds known to an order of magnitude) and
   Adult's numeric columns (32,561 rows, codebook bounds): error of ``center_`` and
   ``scale_`` against the exact median and interquartile range, in units of the bounds'
   width, 10 seeds, today's mechanism (run the script at commit fd61f70 for the
   calibration to 1: breast cancer at epsilon 10, 0.0028 and 0.0212; Adult at epsilon 0.1,
   0.0231 and 0.0899; the continuous exponential mechanism calibrated to ``max(q, 1 - q)``
   gave breast cancer 0.3841/0.2730, 0.2608/0.3121, 0.0015/0.0050 and Adult 0.0130/0.0360,
   0.0093/0.0180, 0.0086/0.0167 at epsilon 0.1, 1 and 10).
3. ``StandardScaler``'s count: one more coordinate of its Gaussian release (what it does)
   against a separate discrete-Laplace count at 5 % of epsilon
   (:func:`skprivate._row_count.release_row_count`) with the sums at 95 %: RMSE of the
   released mean and standard deviation (units of the half-width), 400 draws.

Runs in about a minute on two cores. Run: nice -n 10 python benchmarks/private_quantiles.py
"""

import math
import sys
import time
import warnings

import numpy as np
from scipy.special import softmax
from sklearn.datasets import load_breast_cancer

from _results import markdown_table, versions, write

from skprivate._row_count import release_row_count
from skprivate.datasets import load_adult
from skprivate.datasets._adult_codebook import NUMERIC_BOUNDS
from skprivate.mechanisms import gaussian_sigma
from skprivate.preprocessing import RobustScaler
from skprivate.preprocessing._common import quantile_candidates, rank_utility_sensitivity


def exponential_gaps(x, lower, upper, q, epsilon):
    """Log-probabilities of the gaps of the former continuous exponential mechanism (one
    column ``x``): ``log length_k + epsilon u_k / (2 max(q, 1 - q))``, ``u_k = -|k - q n|``,
    without the 2 at q = 0 or 1."""
    z = np.concatenate([[lower], np.sort(x), [upper]]) / 2.0  # half units never overflow
    rank = np.arange(len(x) + 1)
    factor = 1.0 if q in (0.0, 1.0) else 0.5
    with np.errstate(divide="ignore"):
        return np.log(np.diff(z)) - factor * epsilon * np.abs(rank - q * len(x)) / \
            rank_utility_sensitivity(q)


def grid_rank_error(x, lower, upper, q, epsilon):
    """Expected rank error of today's permute-and-flip quantile, exact up to quadrature."""
    c = quantile_candidates(np.array([lower]), np.array([upper]))[:, 0]
    z = np.sort(x)
    below, at = np.searchsorted(z, c, "left"), np.searchsorted(z, c, "right")
    u = -np.maximum(np.maximum(below - q * len(z), q * len(z) - at), 0.0)
    p = np.exp(-epsilon * (u.max() - u) / (2 * rank_utility_sensitivity(q)))
    t, w = np.polynomial.legendre.leggauss(300)
    t, w = (t + 1) / 2, w / 2
    logs = np.log1p(-t[:, None] * p[None, :])
    probs = p * (w[:, None] * np.exp(logs.sum(1, keepdims=True) - logs)).sum(0)
    return float(probs @ -u / probs.sum())


def rank_errors():
    rng = np.random.default_rng(0)
    rows = []
    for n in (1000, 32561):
        for data, bounds in (("uniform", (0.0, 1.0)), ("normal", (-10.0, 10.0)),
                             ("normal", (-1e4, 1e4))):
            x = rng.uniform(size=n) if data == "uniform" else rng.normal(size=n)
            x = np.clip(x, *bounds)[:, None]
            lo, hi = np.array([bounds[0]]), np.array([bounds[1]])
            for q in (0.5, 0.25):
                for eps in (0.02, 0.1):
                    err = []
                    for factor in (rank_utility_sensitivity(q), 1.0):  # to 1, to max(q, 1-q)
                        logw = exponential_gaps(x[:, 0], *bounds, q, eps * factor)
                        err.append(float(softmax(logw) @ np.abs(np.arange(n + 1) - q * n)))
                    rows.append(dict(n=n, data=data, bounds=bounds, q=q, epsilon=eps,
                                     before=err[0], exponential=err[1],
                                     today=grid_rank_error(x[:, 0], *bounds, q, eps)))
    return rows


def robust_errors():
    bc = load_breast_cancer().data
    cols = list(NUMERIC_BOUNDS)
    ad = load_adult(subset="train", as_frame=True).data[cols].to_numpy(float)
    sets = {
        "breast_cancer": (bc, np.zeros(30), 10.0 ** np.ceil(np.log10(bc.max(0)))),
        "adult": (ad, np.array([NUMERIC_BOUNDS[c][0] for c in cols], float),
                  np.array([NUMERIC_BOUNDS[c][1] for c in cols], float)),
    }
    rows = []
    for name, (X, lo, hi) in sets.items():
        Xc = np.clip(X, lo, hi)
        med = np.median(Xc, 0)
        iqr = np.percentile(Xc, 75, 0) - np.percentile(Xc, 25, 0)
        for eps in (0.1, 1.0, 10.0):
            ec, es = [], []
            for seed in range(10):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # seeded noise
                    sc = RobustScaler(epsilon=eps, bounds=(lo, hi), random_state=seed).fit(X)
                ec.append(np.abs(sc.center_ - med) / (hi - lo))
                es.append(np.abs(sc.scale_ - iqr) / (hi - lo))
            rows.append(dict(data=name, epsilon=eps, center=float(np.mean(ec)),
                             scale=float(np.mean(es))))
    return rows


def count_errors(draws=400):
    rng = np.random.default_rng(0)
    rows = []
    for eps in (0.02, 0.1, 0.5):
        for d in (1, 6, 30):
            for n in (300, 1000, 32561):
                U = np.clip(rng.normal(0.2, 0.3, size=(n, d)), -1, 1)
                true_m, true_s = U.mean(0), U.std(0)
                S1, S2 = U.sum(0), (U * U - 0.5).sum(0)
                sj = gaussian_sigma(math.sqrt(1 + 1.25 * d), eps, 1e-6)
                ss = gaussian_sigma(math.sqrt(1.25 * d), 0.95 * eps, 1e-6)
                err = {"joint": [[], []], "separate": [[], []]}
                for _ in range(draws):
                    for how in err:
                        if how == "joint":
                            N, s = n + rng.normal(0, sj), sj
                        else:
                            N, s = release_row_count(n, eps, public=False, rng=rng).n_plan, ss
                        N = max(N, 1.0)
                        m = np.clip((S1 + rng.normal(0, s, d)) / N, -1, 1)
                        sec = np.clip((S2 + rng.normal(0, s, d)) / N + 0.5, 0, 1)
                        v = np.clip(sec - m**2, s / N, 1)
                        err[how][0].append(np.mean((m - true_m) ** 2))
                        err[how][1].append(np.mean((np.sqrt(v) - true_s) ** 2))
                rows.append(dict(epsilon=eps, d=d, n=n, **{
                    f"{how}_{stat}": math.sqrt(np.mean(e[i]))
                    for how, e in err.items() for i, stat in enumerate(("mean", "std"))}))
    return rows


def main():
    start = time.perf_counter()
    ranks, robust, counts = rank_errors(), robust_errors(), count_errors()
    seconds = time.perf_counter() - start
    md = ["# Private quantiles and counts of the preprocessors", "",
          "## Expected rank error of one quantile (exact): exponential mechanism calibrated "
          "to 1, to max(q, 1 - q), and today's permute-and-flip on the 4097-point grid", ""]
    md += markdown_table(
        ["n", "values", "bounds", "q", "epsilon", "EM to 1", "EM", "today"],
        [[r["n"], r["data"], f"{r['bounds'][1]:g}", r["q"], r["epsilon"],
          f"{r['before']:.0f}", f"{r['exponential']:.0f}", f"{r['today']:.0f}"]
         for r in ranks])
    md += ["", "## RobustScaler: error / width of the bounds, 10 seeds (today)", ""]
    md += markdown_table(["data", "epsilon", "center_", "scale_"],
                         [[r["data"], r["epsilon"], f"{r['center']:.4f}", f"{r['scale']:.4f}"]
                          for r in robust])
    md += ["", "## StandardScaler's count: joint Gaussian coordinate vs separate 5 % count",
           "", "RMSE in units of the half-width.", ""]
    md += markdown_table(
        ["epsilon", "d", "n", "mean joint", "mean separate", "std joint", "std separate"],
        [[r["epsilon"], r["d"], r["n"], f"{r['joint_mean']:.4f}", f"{r['separate_mean']:.4f}",
          f"{r['joint_std']:.4f}", f"{r['separate_std']:.4f}"] for r in counts])
    md += ["", f"{seconds:.0f} s."]
    write("private_quantiles", dict(versions=versions("numpy", "scikit-learn"), ranks=ranks,
                                    robust=robust, counts=counts, seconds=seconds), md)
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
