"""Stability of dropout (Jain et al. 2015, section 5) and dropout-based DP, on offline data.

Run with ``python benchmarks/dropout_stability.py`` (several minutes per data set on 2
cores) or with ``--quick`` (one repeat, fewer removal fractions); ``--only NAME`` runs one
data set and prints it without writing the results. Writes
``benchmarks/results/dropout_stability.json`` and ``.md``.

**Data**: a synthetic bag-of-words stand-in for the paper's Atheist set (``synthetic_text``;
20 newsgroups needs a download), breast cancer, digits and Adult.

**Stability** (paper section 5, "random" and "adversarial removal"). For each data set a
50/50 train/test split (Adult: a 6000-row sample of the training file, tested on the test
file). For rho in ``RHOS`` a model is trained on the training rows left after removing a
fraction rho: at random (mean over ``REPEATS`` draws), or adversarially, the rho n rows
with the smallest margin ``|<x, theta_full>|`` under the model trained on all rows (for
several classes, the gap between the two largest scores). Reported: the test error and the
marginal error ``|error(rho) - error(0)|``. Models: unregularised logistic regression, L2
logistic regression with C chosen by 3-fold cross-validation on the full training rows,
dropout SGD (keep_prob 0.5, sampled masks, about 2000 steps) and deterministic dropout (the expected
objective, Wager et al.'s approximation for the logistic loss). Features are scaled to
[0, 1] by public bounds (Adult: the data-independent preprocessor; digits: / 16; breast
cancer: by the training maxima, which a release would replace by public bounds).

**Privacy.** At epsilon in {0.5, 1, 2} (delta 1e-5), mean test accuracy over ``DP_SEEDS``
seeds of ``DPDropoutClassifier`` (defaults, ``bounds=(0, 1)``), of diffprivlib-style
output perturbation (L2 logistic regression with a fixed lambda = 0.01 on the mean loss,
rows clipped to norm 1, plus noise with density proportional to
``exp(-epsilon ||b|| / Delta)``, ``Delta = 2 / (n lambda)``, epsilon split over the
one-vs-rest models: the
vector mechanism of Chaudhuri et al. 2011, Algorithm 1, as diffprivlib's
``LogisticRegression``), and of ``DPLSSGDClassifier`` (defaults), beside the non-private
L2 model; ``DPDropoutClassifier`` is also run on the features mapped to ``2x - 1``
(``bounds=(-1, 1)``), a public map under which no feature is rare. The table also shows
the noisy statistic of the dropout test, ``lambda_noisy_``, which explains when the
dropout release carries useful signal.
"""

import argparse
import json
import pathlib
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.model_selection import train_test_split

from skprivate import DPLSSGDClassifier
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.dropout import DPDropoutClassifier, DropoutSGDClassifier
from skprivate.exceptions import PrivacyLeakWarning

RHOS = [0.0, 0.1, 0.3, 0.5, 0.7]
REPEATS = 3
EPSILONS = [0.5, 1.0, 2.0]
DP_SEEDS = 3
RESULTS = pathlib.Path(__file__).parent / "results"


def synthetic_text(n_docs=1427, vocab=2000, seed=0):
    """A stand-in for the paper's Atheist set (20 newsgroups, which needs a download).

    Two classes of documents (1427, as in the paper, split 50/50) drawn as bags of words
    over a Zipf vocabulary; each class uses 40 topical words four times as often. Features
    are word counts capped at 4 and divided by 4: a public bound, so every value is in
    [0, 1] and most are 0, as in a bag-of-words matrix. The paper's set has 22,178
    dimensions; 2,000 keep the exact solvers affordable on 2 cores.
    """
    rng = np.random.default_rng(seed)
    base = 1.0 / np.arange(1, vocab + 1) ** 1.1
    topical = rng.choice(np.arange(50, vocab), size=80, replace=False)
    y = rng.integers(0, 2, n_docs)
    lengths = rng.poisson(150, n_docs)
    X = np.zeros((n_docs, vocab))
    for label, words in ((0, topical[:40]), (1, topical[40:])):
        p = base.copy()
        p[words] *= 4.0
        rows = np.flatnonzero(y == label)
        X[rows] = rng.multinomial(lengths[rows], p / p.sum())
    X = np.minimum(X, 4.0) / 4.0
    return train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)


def datasets():
    Xtr, Xte, ytr, yte = synthetic_text()
    yield "synthetic_text", Xtr, Xte, ytr, yte
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    top = Xtr.max(axis=0)
    yield "breast_cancer", Xtr / top, np.clip(Xte / top, 0, 1), ytr, yte
    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=0.5, random_state=0,
                                          stratify=y)
    yield "digits", Xtr, Xte, ytr, yte
    X, y = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    prep = make_adult_preprocessor().fit(X[:1])  # data-independent: learns nothing
    X, X_test = prep.transform(X), prep.transform(X_test)
    yield "adult", X, X_test, y, y_test


def models(C_l2, sgd_epochs):
    return {
        "unregularised": lambda s: LogisticRegression(C=1e4, max_iter=500),
        "L2 (CV)": lambda s: LogisticRegression(C=C_l2, max_iter=2000),
        "dropout SGD": lambda s: DropoutSGDClassifier(keep_prob=0.5, max_iter=sgd_epochs,
                                                      random_state=s),
        "deterministic dropout": lambda s: DropoutSGDClassifier(
            keep_prob=0.5, dropout="deterministic", max_iter=5),
    }


def _margins(model, X):
    scores = model.decision_function(X)
    if scores.ndim == 1:
        return np.abs(scores)
    top2 = np.sort(scores, axis=1)[:, -2:]
    return top2[:, 1] - top2[:, 0]


def stability(name, Xtr, Xte, ytr, yte, rhos, repeats, n_stab):
    rng = np.random.default_rng(0)
    if len(ytr) > n_stab:
        keep = rng.choice(len(ytr), n_stab, replace=False)
        Xtr, ytr = Xtr[keep], ytr[keep]
    C_l2 = LogisticRegressionCV(Cs=[0.01, 0.1, 1, 10, 100], cv=3, max_iter=2000).fit(
        Xtr, ytr).C_[0]
    out = {}
    # about 2000 mini-batch steps on the full training rows
    sgd_epochs = int(np.clip(2000 * 32 // len(ytr), 5, 200))
    for mname, make in models(C_l2, sgd_epochs).items():
        full = make(0).fit(Xtr, ytr)
        base = 1 - full.score(Xte, yte)
        order = np.argsort(_margins(full, Xtr), kind="stable")
        rows = []
        for rho in rhos:
            n_remove = int(round(rho * len(ytr)))
            errs = []
            for r in range(repeats if rho > 0 else 1):
                keep = np.random.default_rng(r + 1).permutation(len(ytr))[n_remove:]
                errs.append(1 - make(r).fit(Xtr[keep], ytr[keep]).score(Xte, yte))
            keep = order[n_remove:]
            adv = 1 - make(0).fit(Xtr[keep], ytr[keep]).score(Xte, yte)
            err = float(np.mean(errs))
            rows.append(dict(rho=rho, random_error=err, random_marginal=abs(err - base),
                             adversarial_error=adv, adversarial_marginal=abs(adv - base)))
        out[mname] = rows
    return out, float(C_l2)


def output_perturbation(Xtr, ytr, epsilon, seed, lam=0.01):
    """diffprivlib-style: L2 logistic on rows of norm <= 1, vector-mechanism noise.

    Minimises mean log-loss + lam/2 ||w||^2 (sklearn's C = 1 / (n lam)); the minimiser's
    L2 sensitivity is 2 / (n lam) (Chaudhuri et al. 2011, Corollary 8, 1-Lipschitz loss).
    """
    rng = np.random.default_rng(seed)
    X = np.hstack([Xtr, np.ones((len(Xtr), 1))])
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # rows of norm <= 1
    n = len(ytr)
    C = 1.0 / (n * lam)
    classes = np.unique(ytr)
    targets = [classes[1]] if len(classes) == 2 else classes
    coefs = []
    for c in targets:
        w = LogisticRegression(C=C, fit_intercept=False, max_iter=2000).fit(
            X, (ytr == c).astype(int)).coef_[0]
        sens = 2.0 / (n * lam)
        # split epsilon over one-vs-rest models (basic composition)
        eps = epsilon / len(targets)
        direction = rng.normal(size=w.shape)
        direction /= np.linalg.norm(direction)
        coefs.append(w + direction * rng.gamma(len(w), sens / eps))
    return classes, np.array(coefs)


def _op_predict(classes, coefs, Xte):
    X = np.hstack([Xte, np.ones((len(Xte), 1))])
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    s = X @ coefs.T
    if len(classes) == 2:
        return classes[(s[:, 0] > 0).astype(int)]
    return classes[np.argmax(s, axis=1)]


def privacy(Xtr, Xte, ytr, yte, epsilons, seeds):
    rows = []
    nonpriv = LogisticRegression(max_iter=2000).fit(Xtr, ytr).score(Xte, yte)
    for eps in epsilons:
        acc = {"DPDropoutClassifier": [], "DPDropoutClassifier 2x-1": [],
               "output perturbation": [], "DPLSSGDClassifier": []}
        lam, lam_c = [], []
        for s in range(seeds):
            clf = DPDropoutClassifier(epsilon=eps, bounds=(0, 1), random_state=s).fit(Xtr, ytr)
            acc["DPDropoutClassifier"].append(clf.score(Xte, yte))
            lam.append(clf.lambda_noisy_)
            # the public affine map 2x - 1 turns rare (mostly zero) features into dense ones
            clf = DPDropoutClassifier(epsilon=eps, bounds=(-1, 1), random_state=s).fit(
                2 * Xtr - 1, ytr)
            acc["DPDropoutClassifier 2x-1"].append(clf.score(2 * Xte - 1, yte))
            lam_c.append(clf.lambda_noisy_)
            classes, coefs = output_perturbation(Xtr, ytr, eps, s)
            acc["output perturbation"].append(np.mean(_op_predict(classes, coefs, Xte) == yte))
            acc["DPLSSGDClassifier"].append(
                DPLSSGDClassifier(epsilon=eps, random_state=s).fit(Xtr, ytr).score(Xte, yte))
        rows.append(dict(epsilon=eps, non_private=float(nonpriv),
                         lambda_noisy=float(np.mean(lam)),
                         lambda_noisy_2x_1=float(np.mean(lam_c)),
                         **{k: float(np.mean(v)) for k, v in acc.items()}))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", help="run one data set and print it, writing nothing")
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a benchmark
    warnings.simplefilter("ignore", UserWarning)
    warnings.simplefilter("ignore", FutureWarning)
    rhos = [0.0, 0.3, 0.7] if args.quick else RHOS
    repeats = 1 if args.quick else REPEATS
    seeds = 1 if args.quick else DP_SEEDS
    results = {"rhos": rhos, "repeats": repeats, "dp_seeds": seeds, "datasets": {}}
    md = ["# Dropout stability and dropout-based DP", "",
          "Generated by `benchmarks/dropout_stability.py`" + (" --quick" if args.quick else "")
          + ".", ""]
    for name, Xtr, Xte, ytr, yte in datasets():
        if args.only and name != args.only:
            continue
        start = time.perf_counter()
        stab, C_l2 = stability(name, Xtr, Xte, ytr, yte, rhos, repeats, n_stab=6000)
        dp = privacy(Xtr, Xte, ytr, yte, EPSILONS, seeds)
        seconds = time.perf_counter() - start
        results["datasets"][name] = dict(n_train=len(ytr), n_features=Xtr.shape[1],
                                         C_l2=C_l2, stability=stab, privacy=dp,
                                         seconds=seconds)
        lines = [f"## {name} (n_train={len(ytr)}, p={Xtr.shape[1]}, L2 C={C_l2:g}, "
                 f"{seconds:.0f} s)", "",
                 "| model | rho | random error | random marginal | adversarial error | "
                 "adversarial marginal |", "|---|---|---|---|---|---|"]
        for mname, rows in stab.items():
            for r in rows:
                lines.append(f"| {mname} | {r['rho']:.1f} | {r['random_error']:.4f} | "
                             f"{r['random_marginal']:.4f} | {r['adversarial_error']:.4f} | "
                             f"{r['adversarial_marginal']:.4f} |")
        lines += ["", "| epsilon | non-private | DPDropout [0,1] | lambda_noisy | "
                  "DPDropout 2x-1 | lambda_noisy | output perturbation | DPLSSGD |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in dp:
            lines.append(f"| {r['epsilon']:g} | {r['non_private']:.4f} | "
                         f"{r['DPDropoutClassifier']:.4f} | {r['lambda_noisy']:.1f} | "
                         f"{r['DPDropoutClassifier 2x-1']:.4f} | {r['lambda_noisy_2x_1']:.1f} | "
                         f"{r['output perturbation']:.4f} | {r['DPLSSGDClassifier']:.4f} |")
        print("\n".join(lines) + "\n", flush=True)
        md += lines + [""]
    if args.only:
        return
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "dropout_stability.json").write_text(json.dumps(results, indent=1))
    (RESULTS / "dropout_stability.md").write_text("\n".join(md))


if __name__ == "__main__":
    main()
