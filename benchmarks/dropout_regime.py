"""Where dropout-based DP learns: accuracy over (n, epsilon) against its alternatives.

Run with ``nice -n 10 python benchmarks/dropout_regime.py`` (about ten minutes on 2 cores) or
with ``--quick`` (fewer cells, one seed). Writes ``benchmarks/results/dropout_regime.json``
and ``.md``.

**Data.** UCI Adult (bundled): random subsets of the training file of ``N_ADULT`` rows,
encoded with the data-independent preprocessor and mapped to ``2x - 1`` (``bounds=(-1, 1)``,
the public map under which no one-hot column is rare), tested on the test file. Synthetic
GLM data: ``P_SYNTH`` features uniform on ``{-1, 1}`` (every feature at full scale in every
row: the best case of the private test), labels from a logistic model ``P(y = 1 | x) =
sigmoid(<w, x>)`` with a fixed ``w`` (Bayes accuracy about 0.86), ``N_SYNTH`` rows up to
10^6, tested on 20,000 fresh rows.

**Methods**, all at the same ``(epsilon, delta=1e-5)``: ``DPDropoutClassifier`` (defaults
and the public bounds); the majority class of the training rows (not private, a floor);
output perturbation (Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 1: L2 logistic
regression with ``lambda = 0.01`` on the mean loss, rows ``[x, 1]`` clipped to norm 1
(Adult: the ``[0, 1]`` encoding), noise of density ``~ exp(-n lambda epsilon ||b|| /
2)``; pure epsilon-DP); ``DPLSSGDClassifier`` with its defaults (on Adult's ``[0, 1]``
encoding; on synthetic data up to ``MAX_LSSGD_ROWS`` rows, one seed, for time); and the
same dropout least squares without privacy (``DropoutSGDClassifier(loss="squared_error",
dropout="deterministic")``), the reference of "within 2 points", and non-private L2
logistic regression (scikit-learn's defaults), the best linear model without privacy.

**Reported per cell**: mean test accuracy over the seeds; the public forecast of the
noise-to-signal ratio (``forecast_noise_to_signal_``), the fit's ratio
(``noise_to_signal_``); how many fits warned (a ``UserWarning`` before reading the data, or
after the private test) and how many returned a constant through the private choice; and
the region: *learns* (within 2 points of non-private), *chance* (within 1 point of the
majority class, or below), or *between*. The last table lists every cell at chance that
did not warn (the issue's "done when": it must be empty).
"""

import argparse
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from skprivate import DPLSSGDClassifier
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.dropout import DPDropoutClassifier, DropoutSGDClassifier
from skprivate.exceptions import PrivacyLeakWarning, UtilityWarning

EPSILONS = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
N_ADULT = [1000, 2000, 4000, 8000, 16000, 32561]
N_SYNTH = [1000, 10_000, 100_000, 1_000_000]
P_SYNTH = 20
MAX_LSSGD_ROWS = 100_000
SEEDS = 2
DELTA = 1e-5
LAMBDA_OP = 0.01


def adult():
    X, y = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    prep = make_adult_preprocessor().fit(X[:1])  # data-independent: learns nothing
    return prep.transform(X), np.asarray(y), prep.transform(X_test), np.asarray(y_test)


def synthetic(n, seed):
    rng = np.random.default_rng(seed)
    w = np.linspace(1.0, -1.0, P_SYNTH) * 0.45
    X = rng.choice([-1.0, 1.0], size=(n, P_SYNTH))
    y = (rng.random(n) < expit(X @ w + 0.8)).astype(int)
    return X, y


def _unit_rows(X):
    """``[x, 1]`` scaled down to norm <= 1, row by row (row-local, so neighbours stay so)."""
    Xa = np.hstack([X, np.ones((len(X), 1))])
    return Xa / np.maximum(1.0, np.linalg.norm(Xa, axis=1))[:, None]


def output_perturbation(X, y, epsilons, seeds, X_test):
    """Chaudhuri et al. (2011) Algorithm 1 for every (epsilon, seed): one fit, many noises.

    Rows ``[x, 1]`` clipped to norm <= 1 make the logistic loss 1-Lipschitz, so the
    minimiser of ``mean loss + lambda/2 ||w||^2`` has L2 sensitivity ``2 / (n lambda)``
    (their Corollary 8).
    """
    classes = np.unique(y)
    Xa, Xt = _unit_rows(X), _unit_rows(X_test)
    n = len(y)
    w = LogisticRegression(C=1.0 / (n * LAMBDA_OP), fit_intercept=False, max_iter=2000).fit(
        Xa, (y == classes[1]).astype(int)).coef_[0]
    sens = 2.0 / (n * LAMBDA_OP)
    out = {}
    for eps in epsilons:
        preds = []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            direction = rng.normal(size=w.shape)
            direction /= np.linalg.norm(direction)
            noisy = w + direction * rng.gamma(len(w), sens / eps)
            preds.append(classes[(Xt @ noisy > 0).astype(int)])
        out[eps] = preds
    return out


def cells(name, X, y, X_test, y_test, bounds, op_data, epsilons, seeds, lssgd_data,
          lssgd_seeds):
    """Every method at every epsilon on one training set; one row per epsilon."""
    majority_label = np.bincount(y).argmax()
    majority = float(np.mean(y_test == majority_label))
    t = time.perf_counter()
    reference = DropoutSGDClassifier(loss="squared_error", dropout="deterministic").fit(X, y)
    non_private = float(reference.score(X_test, y_test))
    logistic = float(LogisticRegression(max_iter=2000).fit(X, y).score(X_test, y_test))
    op = output_perturbation(op_data[0], y, epsilons, seeds, op_data[1])
    rows = []
    for eps in epsilons:
        acc, ratio, forecast, warned, constant = [], [], None, 0, 0
        for seed in range(seeds):
            clf = DPDropoutClassifier(epsilon=eps, delta=DELTA, bounds=bounds,
                                      random_state=seed)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                clf.fit(X, y)
            warned += any(issubclass(w.category, UtilityWarning) for w in caught)
            constant += clf.selection_.startswith("constant")
            acc.append(clf.score(X_test, y_test))
            ratio.append(clf.noise_to_signal_)
            forecast = clf.forecast_noise_to_signal_
        lssgd = None
        if lssgd_data is not None:
            A, A_test = lssgd_data
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                lssgd = float(np.mean([
                    DPLSSGDClassifier(epsilon=eps, delta=DELTA, random_state=s)
                    .fit(A, y).score(A_test, y_test) for s in range(lssgd_seeds)
                ]))
        dropout = float(np.mean(acc))
        region = ("learns" if dropout >= non_private - 0.02 else
                  "chance" if dropout <= majority + 0.01 else "between")
        rows.append({
            "data": name, "n": len(y), "epsilon": eps, "dpdropout": dropout,
            "forecast ratio": forecast, "fit ratio": float(np.median(ratio)),
            "warned": warned, "constant": constant, "fits": seeds,
            "majority": majority, "output perturbation": float(np.mean(
                [np.mean(p == y_test) for p in op[eps]])),
            "dplssgd": lssgd, "non-private": non_private, "logistic": logistic,
            "region": region,
        })
        print(f"{name:9s} n={len(y):8d} eps={eps:5.1f} dropout={dropout:.3f} "
              f"forecast={forecast:8.3g} fit={np.median(ratio):8.3g} warned={warned}/{seeds} "
              f"const={constant} maj={majority:.3f} op={rows[-1]['output perturbation']:.3f} "
              f"lssgd={lssgd if lssgd is None else round(lssgd, 3)} np={non_private:.3f} "
              f"[{region}] ({time.perf_counter() - t:.0f} s)", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer cells, one seed")
    args = parser.parse_args()
    epsilons = [1.0, 4.0, 16.0] if args.quick else EPSILONS
    n_adult = [1000, 8000, 32561] if args.quick else N_ADULT
    n_synth = [1000, 100_000] if args.quick else N_SYNTH
    seeds = 1 if args.quick else SEEDS
    start = time.perf_counter()
    results = []
    X, y, X_test, y_test = adult()
    X2, X2_test = 2 * X - 1, 2 * X_test - 1
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    for n in n_adult:
        idx = np.sort(order[:n])
        results += cells("adult", X2[idx], y[idx], X2_test, y_test, (-1, 1),
                         (X[idx], X_test), epsilons, seeds, (X[idx], X_test), seeds)
    X_test_s, y_test_s = synthetic(20_000, 10**6)
    for n in n_synth:
        Xs, ys = synthetic(n, n)
        lssgd = (Xs, X_test_s) if n <= MAX_LSSGD_ROWS else None
        results += cells("synthetic", Xs, ys, X_test_s, y_test_s, (-1, 1),
                         (Xs, X_test_s), epsilons, seeds, lssgd, 1)
    silent = [r for r in results if r["region"] == "chance" and r["warned"] < r["fits"]]
    seconds = time.perf_counter() - start

    def fmt(v):
        return "-" if v is None else f"{v:.3f}"

    lines = [
        "# Dropout DP: the (n, epsilon) regime",
        "",
        f"`python benchmarks/dropout_regime.py{' --quick' if args.quick else ''}`, "
        f"{seconds:.0f} s, {seeds} seed(s) per cell, delta = {DELTA:g}. Test accuracy. "
        "Forecast: the public noise-to-signal ratio before the fit (a lower bound); fit: "
        "the ratio of the fit (median). Warned: fits that emitted the chance UserWarning; "
        "const: fits whose private choice returned a constant. Region: learns = within 2 "
        "points of the non-private dropout least squares (non-private); chance = within "
        "1 point of the "
        "majority class or below.",
        "",
    ]
    header = ["data", "n", "epsilon", "DPDropout", "forecast", "fit ratio", "warned",
              "const", "majority", "output pert.", "DPLSSGD", "non-private",
              "logistic", "region"]
    lines += markdown_table(header, [
        [r["data"], f"{r['n']:,}", f"{r['epsilon']:g}", fmt(r["dpdropout"]),
         f"{r['forecast ratio']:.3g}", f"{r['fit ratio']:.3g}",
         f"{r['warned']}/{r['fits']}", r["constant"], fmt(r["majority"]),
         fmt(r["output perturbation"]), fmt(r["dplssgd"]), fmt(r["non-private"]),
         fmt(r["logistic"]), r["region"]] for r in results
    ])
    lines += ["", "## Cells at chance without a warning", ""]
    lines += ([f"- {r['data']} n={r['n']:,} epsilon={r['epsilon']:g}" for r in silent]
              or ["None: every cell at chance warned in every fit."])
    payload = {
        "versions": versions("numpy", "scipy", "scikit-learn", "skprivate"),
        "quick": args.quick, "seconds": seconds, "seeds": seeds, "delta": DELTA,
        "results": results, "silent chance cells": silent,
    }
    json_path, md_path = write("dropout_regime", payload, lines)
    print("\n".join(lines))
    print(f"wrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
