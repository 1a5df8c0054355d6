"""GEMS on scikit-learn's digits: the paper's Tables 5 and 1, and five non-i.i.d. parties.

Offline stand-in for the MNIST experiments of Guha et al. (2018): sklearn's 8x8 digits
(1,797 images), a stratified 70/30 train/test split, every score on the pooled test set.

* Table 5, shallow parity: logistic regression (C=0.1) predicts even/odd; party 1 holds the
  training digits 0-4, party 2 digits 5-9. Features: the 64 standardised pixels, and, as in
  the paper, the 50 ReLU units of the first layer of an MLP trained on all training
  images (which sees every party's rows: the paper's featurisation, not a private one).
  GEMS uses epsilon=None (the smallest threshold at which the two balls meet, which the
  paper reports). "GEMS+FT" is fine-tuned on 100 public labelled training images.
* Table 1, deep: party 1 has original images, party 2 pixel-permuted images (disjoint
  halves of the training split, minus the public images); one hidden layer of 50 ReLU units,
  independent initialisations; 100 public labelled images of each kind. Baselines: the
  local nets, naive weight averaging, averaging then fine-tuning the output layer, a net
  trained on the 200 public images alone, and the gold net trained on all parties' rows.
  Also the hidden width against epsilon (the paper's Figure 2).
* Five parties, non-i.i.d.: 10-class logistic regression, class shares per party drawn from
  Dirichlet(0.5).

Issue #5 targets: shallow GEMS at least 5 points above the better local model and within
3 points of gold; deep fine-tuned GEMS at least 10 points above naive averaging, at least 4
above averaging-then-fine-tuning and above public-only, with fewer than 100 hidden units.

Writes benchmarks/results/gems_digits.json and gems_digits.md.
Run: python benchmarks/gems_digits.py [--seeds 3] [--n-jobs 1]
"""

import argparse
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from skprivate.gems import GEMSCombiner
from skprivate.gems._fine_tune import fine_tune_linear

RESULTS = Path(__file__).resolve().parent / "results"


def _relu_net(coefs, intercepts, X):
    return np.maximum(X @ coefs[0] + intercepts[0], 0) @ coefs[1] + intercepts[1]


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _metrics(proba, y):
    labels = np.arange(proba.shape[1])
    return float(np.mean(proba.argmax(axis=1) == y)), float(log_loss(y, proba, labels=labels))


def _split(seed):
    X, digit = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, digit, test_size=0.3, random_state=seed, stratify=digit)


# --- Table 5 -----------------------------------------------------------------------------------

def shallow_parity(seed, n_jobs):
    X_train, X_test, d_train, d_test = _split(seed)
    public = np.random.default_rng(seed).permutation(len(d_train))[:100]
    private = np.setdiff1d(np.arange(len(d_train)), public)
    rows = {}
    for features in ("pixels", "MLP features"):
        if features == "pixels":
            A, B = X_train, X_test
        else:
            net = MLPClassifier(50, max_iter=500, random_state=seed).fit(X_train, d_train)
            A, B = (np.maximum(Z @ net.coefs_[0] + net.intercepts_[0], 0)
                    for Z in (X_train, X_test))
        scaler = StandardScaler().fit(A)
        A, B = scaler.transform(A), scaler.transform(B)
        y, y_test = d_train % 2, d_test % 2
        groups = (d_train >= 5).astype(int)
        P, y_pub = A[public], y[public]
        A, y, groups = A[private], y[private], groups[private]
        result = {}
        for k in (0, 1):
            model = LogisticRegression(C=0.1).fit(A[groups == k], y[groups == k])
            result[f"h{k + 1}"] = _metrics(model.predict_proba(B), y_test)
        result["Gold"] = _metrics(LogisticRegression(C=0.1).fit(A, y).predict_proba(B), y_test)
        start = time.perf_counter()
        gems = GEMSCombiner(LogisticRegression(C=0.1), n_jobs=n_jobs, random_state=seed)
        gems.fit(A, y, groups)
        elapsed = time.perf_counter() - start
        result["GEMS"] = _metrics(gems.predict_proba(B), y_test)
        tuned = GEMSCombiner(LogisticRegression(C=0.1)).combine(gems.spaces_, P, y_pub)
        result["GEMS+FT"] = _metrics(tuned.predict_proba(B), y_test)
        result["epsilon"] = gems.epsilon_
        result["seconds"] = elapsed
        rows[features] = result
    return rows


# --- Table 1 -----------------------------------------------------------------------------------

def deep_permuted(seed, n_jobs, epsilons, alpha=1e-3):
    X_train, X_test, d_train, d_test = _split(seed)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(64)
    order = rng.permutation(len(d_train))
    pub1, pub2, rest = order[:100], order[100:200], order[200:]
    half1, half2 = rest[: len(rest) // 2], rest[len(rest) // 2 :]
    X = np.vstack([X_train[half1], X_train[half2][:, perm]])
    y = np.r_[d_train[half1], d_train[half2]]
    groups = np.r_[np.zeros(len(half1), int), np.ones(len(half2), int)]
    X_pub = np.vstack([X_train[pub1], X_train[pub2][:, perm]])
    y_pub = np.r_[d_train[pub1], d_train[pub2]]
    X_test = np.vstack([X_test, X_test[:, perm]])
    y_test = np.r_[d_test, d_test]

    def mlp(s):
        return MLPClassifier(50, alpha=alpha, max_iter=400, random_state=s)

    result = {}
    # Independent initialisations: each party seeds its own network.
    local = [mlp(seed * 10 + k + 1).fit(X[groups == k], y[groups == k]) for k in (0, 1)]
    for k, net in enumerate(local):
        result[f"h{k + 1}"] = _metrics(net.predict_proba(X_test), y_test)
    coefs = [(a + b) / 2 for a, b in zip(local[0].coefs_, local[1].coefs_)]
    intercepts = [(a + b) / 2 for a, b in zip(local[0].intercepts_, local[1].intercepts_)]
    result["Averaged"] = _metrics(_softmax(_relu_net(coefs, intercepts, X_test)), y_test)
    hidden = np.maximum(X_pub @ coefs[0] + intercepts[0], 0)
    W2, b2 = fine_tune_linear(hidden, y_pub, coefs[1].T, intercepts[1], "log_loss")
    result["Averaged+FT"] = _metrics(
        _softmax(_relu_net([coefs[0], W2.T], [intercepts[0], b2], X_test)), y_test)
    result["Public only"] = _metrics(mlp(seed).fit(X_pub, y_pub).predict_proba(X_test), y_test)
    result["Gold"] = _metrics(mlp(seed).fit(X, y).predict_proba(X_test), y_test)

    widths = {}
    for epsilon in epsilons:
        start = time.perf_counter()
        gems = GEMSCombiner(mlp(None), epsilon=epsilon, fine_tune=False, n_jobs=n_jobs,
                            random_state=seed).fit(X, y, groups)
        elapsed = time.perf_counter() - start
        tuned = GEMSCombiner(mlp(None)).combine(gems.spaces_, X_pub, y_pub)
        widths[epsilon] = {
            "GEMS": _metrics(gems.predict_proba(X_test), y_test),
            "GEMS+FT": _metrics(tuned.predict_proba(X_test), y_test),
            "n_hidden": gems.n_hidden_,
            "n_matched": gems.n_matched_,
            "seconds": elapsed,
        }
    result["by_epsilon"] = widths
    return result


# --- five parties ------------------------------------------------------------------------------

def five_parties(seed, n_jobs):
    X_train, X_test, y_train, y_test = _split(seed)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y_train))
    public, private = order[:100], order[100:]
    P, y_pub = X_train[public], y_train[public]
    X, y = X_train[private], y_train[private]
    share = rng.dirichlet(np.full(5, 0.5), size=10)  # class c's rows spread over parties
    groups = np.array([rng.choice(5, p=share[c]) for c in y])
    for c in range(10):  # every party needs two rows of every class
        for k in range(5):
            if np.sum((y == c) & (groups == k)) < 2:
                groups[np.flatnonzero(y == c)[2 * k : 2 * k + 2]] = k
    result = {}
    local = [LogisticRegression(C=0.1).fit(X[groups == k], y[groups == k]) for k in range(5)]
    scores = [_metrics(m.predict_proba(X_test), y_test) for m in local]
    result["best local"] = max(scores)
    result["mean local"] = tuple(np.mean(scores, axis=0).tolist())
    coef = np.mean([m.coef_ for m in local], axis=0)
    intercept = np.mean([m.intercept_ for m in local], axis=0)
    result["Averaged"] = _metrics(_softmax(X_test @ coef.T + intercept), y_test)
    result["Gold"] = _metrics(LogisticRegression(C=0.1).fit(X, y).predict_proba(X_test), y_test)
    start = time.perf_counter()
    gems = GEMSCombiner(LogisticRegression(C=0.1), n_directions=200, n_jobs=n_jobs,
                        random_state=seed).fit(X, y, groups)
    result["seconds"] = time.perf_counter() - start
    result["GEMS"] = _metrics(gems.predict_proba(X_test), y_test)
    tuned = GEMSCombiner(LogisticRegression(C=0.1)).combine(gems.spaces_, P, y_pub)
    result["GEMS+FT"] = _metrics(tuned.predict_proba(X_test), y_test)
    result["epsilon"] = gems.epsilon_
    result["party sizes"] = np.bincount(groups).tolist()
    return result


# --- reporting ---------------------------------------------------------------------------------

def _mean(values):
    return tuple(np.mean(values, axis=0).tolist())


def _table(title, columns, rows):
    lines = [f"**{title}**", "", "| metric | " + " | ".join(columns) + " |",
             "|---|" + "---|" * len(columns)]
    for name, index in (("accuracy", 0), ("loss (CE)", 1)):
        cells = [f"{rows[c][index]:.3f}" for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    seeds = list(range(args.seeds))
    epsilons = [0.005, 0.02, 0.05, 0.1]
    default_epsilon = 0.02
    start = time.perf_counter()

    shallow = [shallow_parity(s, args.n_jobs) for s in seeds]
    deep = [deep_permuted(s, args.n_jobs, epsilons) for s in seeds]
    five = [five_parties(s, args.n_jobs) for s in seeds]

    md = [f"# GEMS on digits ({len(seeds)} seeds, means; 2 CPU cores)", ""]
    summary = {"shallow": {}, "deep": {}, "five_parties": {}}
    for features in ("pixels", "MLP features"):
        cols = ["h1", "h2", "Gold", "GEMS", "GEMS+FT"]
        rows = {c: _mean([r[features][c] for r in shallow]) for c in cols}
        eps = float(np.mean([r[features]["epsilon"] for r in shallow]))
        secs = float(np.mean([r[features]["seconds"] for r in shallow]))
        summary["shallow"][features] = {**rows, "epsilon": eps, "seconds": secs}
        md += [_table(f"Table 5 (shallow parity, {features}); GEMS at the smallest "
                      f"intersecting epsilon (mean {eps:.3f}), fit {secs:.1f} s", cols, rows),
               ""]
    cols = ["h1", "h2", "Averaged", "Averaged+FT", "Public only", "Gold"]
    rows = {c: _mean([r[c] for r in deep]) for c in cols}
    for epsilon in epsilons:
        rows[f"GEMS eps={epsilon}"] = _mean([r["by_epsilon"][epsilon]["GEMS"] for r in deep])
        rows[f"GEMS+FT eps={epsilon}"] = _mean(
            [r["by_epsilon"][epsilon]["GEMS+FT"] for r in deep])
    widths = {e: float(np.mean([r["by_epsilon"][e]["n_hidden"] for r in deep]))
              for e in epsilons}
    secs = {e: float(np.mean([r["by_epsilon"][e]["seconds"] for r in deep])) for e in epsilons}
    summary["deep"] = {**rows, "n_hidden": widths, "seconds": secs}
    main_cols = cols[:3] + ["Gold", f"GEMS eps={default_epsilon}",
                            f"GEMS+FT eps={default_epsilon}", "Averaged+FT", "Public only"]
    md += [_table(f"Table 1 (deep, original vs permuted pixels); GEMS at the default "
                  f"epsilon={default_epsilon}: {widths[default_epsilon]:.1f} hidden units "
                  f"of 100, fit {secs[default_epsilon]:.1f} s", main_cols, rows), ""]
    md += ["**Hidden width against epsilon (the paper's Figure 2)**", "",
           "| epsilon (loss rise) | hidden units | GEMS acc | GEMS+FT acc |", "|---|---|---|---|"]
    for e in epsilons:
        md.append(f"| {e} | {widths[e]:.1f} | {rows[f'GEMS eps={e}'][0]:.3f} | "
                  f"{rows[f'GEMS+FT eps={e}'][0]:.3f} |")
    md.append("")
    cols = ["best local", "mean local", "Averaged", "Gold", "GEMS", "GEMS+FT"]
    rows = {c: _mean([r[c] for r in five]) for c in cols}
    eps = float(np.mean([r["epsilon"] for r in five]))
    secs5 = float(np.mean([r["seconds"] for r in five]))
    summary["five_parties"] = {**rows, "epsilon": eps, "seconds": secs5}
    md += [_table(f"Five non-i.i.d. parties (Dirichlet 0.5), 10 classes; GEMS at the "
                  f"smallest intersecting epsilon (mean {eps:.3f}), fit {secs5:.1f} s",
                  cols, rows), ""]

    sh = summary["shallow"]["MLP features"]
    dp = summary["deep"]
    ft = dp[f"GEMS+FT eps={default_epsilon}"][0]
    targets = {
        "shallow: GEMS - better local >= 0.05":
            sh["GEMS"][0] - max(sh["h1"][0], sh["h2"][0]),
        "shallow: Gold - GEMS <= 0.03": sh["Gold"][0] - sh["GEMS"][0],
        "shallow: Gold - GEMS+FT <= 0.03": sh["Gold"][0] - sh["GEMS+FT"][0],
        "deep: GEMS+FT - Averaged >= 0.10": ft - dp["Averaged"][0],
        "deep: GEMS+FT - Averaged+FT >= 0.04": ft - dp["Averaged+FT"][0],
        "deep: GEMS+FT - Public only >= 0.04": ft - dp["Public only"][0],
        "deep: hidden units < 100": widths[default_epsilon],
    }
    md += ["**Targets (MLP-feature shallow table, deep at the default epsilon)**", "",
           "| target | measured |", "|---|---|"]
    md += [f"| {k} | {v:+.3f} |" if "hidden" not in k else f"| {k} | {v:.1f} |"
           for k, v in targets.items()]
    total = time.perf_counter() - start
    md += ["", f"Total run time {total:.0f} s; Python {platform.python_version()}, "
               f"scikit-learn {sklearn.__version__}."]
    text = "\n".join(md)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "gems_digits.md").write_text(text + "\n", encoding="utf-8")
    payload = {"seeds": seeds, "summary": summary, "targets": targets,
               "per_seed": {"shallow": shallow, "deep": deep, "five_parties": five},
               "seconds": total}
    (RESULTS / "gems_digits.json").write_text(
        json.dumps(payload, indent=2, default=lambda o: str(o)), encoding="utf-8")


if __name__ == "__main__":
    main()
