"""Which model for my table: every classifier at its defaults on linear and non-linear tables.

Six tables, each with public ranges (and categories) declared, nothing read from the rows:

* Adult (``skprivate.datasets.load_adult``, the shipped train and test files): its codebook's
  ranges and categories (capital amounts as ``log1p``), ``fnlwgt`` dropped;
* German-credit-like (**synthetic**: there is no offline copy of German credit here): 1,000
  rows, 7 numeric features with declared ranges and 13 categorical ones, 30 % positives, a
  label linear in the features (a new table per seed, 30 % of it held out);
* breast cancer (scikit-learn's): each feature's range known to an order of magnitude,
  70 / 30 stratified split;
* a wide imbalanced table (KDD-census-like, **synthetic**, ``make_classification``): 200,000
  training rows, 50 features (10 informative, 10 redundant), 94 % majority, 1 % label
  noise, clipped to the declared range ``[-10, 10]``; 16,000 test rows;
* additive shapes (synthetic): 8 features uniform on ``[-1, 1]``, a logistic label whose
  log-odds is a sum of non-monotone one-feature shapes (``public_bins.py``'s table),
  15,000 training and 5,000 test rows;
* the interaction table (synthetic): 8 features uniform on ``[-1, 1]``, label ``x1 x2 > 0``,
  40,000 training and 10,000 test rows (``boosting.py``'s table).

Models (private ones at their defaults, given only ``epsilon``, ``classes`` and the declared
ranges): ``DPLSSGDClassifier`` on ``make_bounded_preprocessor`` (scaled) and on its public
bins (``n_bins=16``), ``skprivate.ensemble.HistGradientBoostingClassifier`` on the raw
features with the declared bounds and categories, ``PATEClassifier`` (its public points
are training rows whose labels it never sees: a fifth of the training rows, at least 100
and at most 6,000; its teachers learn from the others), the DP network
(``DPLSSGDNeuralNetClassifier``, one hidden layer of 32 tanh units, on the scaled
features; skipped on the 200,000-row table, where one fit takes minutes), and, not
private, scikit-learn's logistic regression (scaled features), its
``HistGradientBoostingClassifier`` (raw features, categories declared) and the majority
class. Accuracy (threshold 0.5), ROC AUC of ``predict_proba``, the share predicted
positive and the fit time (one thread for every model: scikit-learn's OpenMP threads spin
against the other work of a shared machine).

Run: ``python benchmarks/nonlinear.py`` (epsilon 0.5, 1, 2, 4; 3 seeds; about an hour on 2
idle cores, more on a busy machine: DP-LSSGD takes one to two minutes per fit on the
200,000-row table) or ``--quick`` (epsilon 1, one seed, breast cancer, German-credit-like,
additive and interaction tables; about 3 minutes); ``--tables``, ``--epsilons``, ``--seeds``
and ``--output`` select a part. Writes ``benchmarks/results/nonlinear.json`` and ``.md``
(``--quick`` writes ``nonlinear_quick.json`` and ``.md``, so a check never overwrites the
full run).
"""

import argparse
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import HistGradientBoostingClassifier as SklearnHGB
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from skprivate.datasets import load_adult
from skprivate.datasets._adult_codebook import (
    CATEGORICAL_FEATURES,
    CATEGORIES,
    NUMERIC_BOUNDS,
    NUMERIC_FILL,
)
from skprivate.ensemble import HistGradientBoostingClassifier
from skprivate.exceptions import (
    PrivacyLeakWarning,
    RepeatedFitWarning,
    UtilityWarning,
)
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.pate import PATEClassifier
from skprivate.preprocessing import make_bounded_preprocessor

EPSILONS = (0.5, 1.0, 2.0, 4.0)
SEEDS = (0, 1, 2)
QUICK_TABLES = ("breast cancer", "German-credit-like", "additive", "interaction")
N_BINS = 16
# The DP network is skipped above this many training rows: one fit takes minutes there.
NET_MAX_ROWS = 50_000


def _codes(frame, declared):
    """A table as numbers for the boosting models: numerics as they are (log1p where
    declared), categories as their index in the declared list (NaN for any other value)."""
    columns, lower, upper, categories = [], [], [], []
    for name, (low, high) in declared["numeric"].items():
        values = np.asarray(frame[name], dtype=float)
        if name in declared.get("log1p", ()):
            values, low, high = np.log1p(values), np.log1p(low), np.log1p(high)
        columns.append(values)
        lower.append(low)
        upper.append(high)
    for name, levels in declared.get("categorical", {}).items():
        code = {level: k for k, level in enumerate(levels)}
        columns.append(np.array([code.get(v, np.nan) for v in np.asarray(frame[name])]))
        categories.append(list(range(len(levels))))
        lower.append(0.0)
        upper.append(1.0)  # not used: the feature is categorical
    n_numeric = len(declared["numeric"])
    params = {"bounds": (np.array(lower), np.array(upper))}
    if categories:
        params["categorical_features"] = list(range(n_numeric, n_numeric + len(categories)))
        params["categories"] = categories
    return np.column_stack(columns), params


def adult(seed):
    train = load_adult(subset="train", as_frame=True)
    test = load_adult(subset="test", as_frame=True)
    declared = dict(
        numeric=dict(NUMERIC_BOUNDS),
        categorical={c: list(CATEGORIES[c]) for c in CATEGORICAL_FEATURES},
        log1p=["capital-gain", "capital-loss"],
        fill_value=dict(NUMERIC_FILL),
    )
    return (train.data, train.target.to_numpy(), test.data, test.target.to_numpy(),
            declared)


def german_credit_like(seed):
    """Synthetic, German-credit-shaped: 1,000 rows, 7 numeric and 13 categorical features."""
    import pandas as pd

    rng = np.random.default_rng(1000 + seed)
    n = 1000
    ranges = {"duration": (4, 72), "amount": (250, 20000), "rate": (1, 4),
              "residence": (1, 4), "age": (19, 75), "credits": (1, 4), "liable": (1, 2)}
    levels = [2, 3, 4, 5, 4, 3, 2, 4, 3, 5, 10, 4, 2]
    frame, logit = {}, np.zeros(n)
    for name, (low, high) in ranges.items():
        values = rng.uniform(low, high, n)
        if name == "amount":  # heavy-tailed, as credit amounts are
            values = np.minimum(low + rng.exponential(3000, n), high)
        frame[name] = values
        logit += rng.normal(0, 1.0) * (values - low) / (high - low)
    categorical = {}
    for j, k in enumerate(levels):
        name = f"cat{j}"
        values = rng.integers(0, k, n)
        frame[name] = values
        categorical[name] = list(range(k))
        logit += rng.normal(0, 0.6, k)[values]
    logit -= np.quantile(logit, 0.7)  # about 30 % positives
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-2.0 * logit))).astype(int)
    X = pd.DataFrame(frame)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                        random_state=seed, stratify=y)
    declared = dict(numeric=ranges, categorical=categorical, log1p=["amount"])
    return X_train, y_train, X_test, y_test, declared


def breast_cancer(seed):
    X, y = load_breast_cancer(return_X_y=True)
    upper = 10.0 ** np.ceil(np.log10(X.max(axis=0)))  # known to an order of magnitude
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                        random_state=seed, stratify=y)
    return X_train, y_train, X_test, y_test, dict(
        numeric={j: (0.0, u) for j, u in enumerate(upper)})


def wide_imbalanced(seed):
    X, y = make_classification(n_samples=216_000, n_features=50, n_informative=10,
                               n_redundant=10, weights=[0.94, 0.06], flip_y=0.01,
                               random_state=seed)
    X = np.clip(X, -10.0, 10.0)  # the declared range: a public transformation
    return X[:200_000], y[:200_000], X[200_000:], y[200_000:], dict(
        numeric={j: (-10.0, 10.0) for j in range(50)})


def additive(seed):
    rng = np.random.default_rng(seed)
    n, d = 20_000, 8
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    f = (2.0 * np.sin(3.0 * X[:, 0]) + 4.0 * (X[:, 1] ** 2 - 1.0 / 3.0)
         - 3.0 * (np.abs(X[:, 2]) - 0.5) + 2.0 * (X[:, 3] > 0.3) - 0.6 + 1.5 * X[:, 4])
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-f))).astype(int)
    return X[:15_000], y[:15_000], X[15_000:], y[15_000:], dict(
        numeric={j: (-1.0, 1.0) for j in range(d)})


def interaction(seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(50_000, 8))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    return X[:40_000], y[:40_000], X[40_000:], y[40_000:], dict(
        numeric={j: (-1.0, 1.0) for j in range(8)})


TABLES = {
    "Adult": adult,
    "German-credit-like": german_credit_like,
    "breast cancer": breast_cancer,
    "wide imbalanced (200k)": wide_imbalanced,
    "additive": additive,
    "interaction": interaction,
}


def _net(n_features, epsilon, seed):
    import torch

    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    torch.manual_seed(seed)
    module = torch.nn.Sequential(torch.nn.Linear(n_features, 32), torch.nn.Tanh(),
                                 torch.nn.Linear(32, 2))
    return DPLSSGDNeuralNetClassifier(module, epsilon=epsilon, classes=[0, 1],
                                      random_state=seed)


def evaluate(model, X, y, X_test, y_test, **fit_params):
    start = time.perf_counter()
    with threadpool_limits(1):
        model.fit(X, y, **fit_params)
    seconds = time.perf_counter() - start
    proba = model.predict_proba(X_test)[:, 1]
    return {
        "accuracy": float(np.mean((proba >= 0.5) == y_test)),
        "auc": float(roc_auc_score(y_test, proba)),
        "positive share": float(np.mean(proba >= 0.5)),
        "fit seconds": seconds,
    }


class _Majority:
    def fit(self, X, y):
        self.p_ = float(np.mean(y) > 0.5)
        return self

    def predict_proba(self, X):
        return np.column_stack([np.full(len(X), 1 - self.p_), np.full(len(X), self.p_)])


def run_table(name, seed, epsilons, record):
    X, y, X_test, y_test, declared = TABLES[name](seed)
    scaler = make_bounded_preprocessor(**declared).fit(X[:1])  # reads nothing from the rows
    binner = make_bounded_preprocessor(**declared, n_bins=N_BINS).fit(X[:1])
    Z, Z_test = scaler.transform(X), scaler.transform(X_test)
    B, B_test = binner.transform(X), binner.transform(X_test)
    if hasattr(X, "iloc"):
        codes, params = _codes(X, declared)
        codes_test, _ = _codes(X_test, declared)
    else:
        codes, codes_test = np.asarray(X, dtype=float), np.asarray(X_test, dtype=float)
        low = np.array([declared["numeric"][j][0] for j in range(codes.shape[1])])
        high = np.array([declared["numeric"][j][1] for j in range(codes.shape[1])])
        params = {"bounds": (low, high)}
    # PATE's public points: training rows whose labels it never sees.
    n_public = min(6000, max(100, len(y) // 5))
    order = np.random.default_rng(seed).permutation(len(y))
    public, private = order[:n_public], order[n_public:]
    sklearn_categories = {k: v for k, v in params.items() if k == "categorical_features"}

    record(name, seed, "majority class", None, evaluate(_Majority(), Z, y, Z_test, y_test))
    record(name, seed, "logistic regression (not private)", None,
           evaluate(LogisticRegression(max_iter=2000), Z, y, Z_test, y_test))
    record(name, seed, "sklearn HGB (not private)", None,
           evaluate(SklearnHGB(random_state=seed, **sklearn_categories), codes, y,
                    codes_test, y_test))
    for eps in epsilons:
        common = dict(epsilon=eps, classes=[0, 1], random_state=seed)
        record(name, seed, "DP-LSSGD defaults", eps,
               evaluate(DPLSSGDClassifier(**common), Z, y, Z_test, y_test))
        record(name, seed, f"DP-LSSGD, {N_BINS} public bins", eps,
               evaluate(DPLSSGDClassifier(**common), B, y, B_test, y_test))
        record(name, seed, "private boosting", eps,
               evaluate(HistGradientBoostingClassifier(**common, **params), codes, y,
                        codes_test, y_test))
        try:
            result = evaluate(PATEClassifier(**common), Z[private], y[private], Z_test,
                              y_test, X_public=Z[public])
        except ValueError as exc:  # an infeasible budget (too few rows for the epsilon)
            result = {"error": str(exc)[:200]}
        record(name, seed, "PATE", eps, result)
        if len(y) <= NET_MAX_ROWS:
            record(name, seed, "DP network", eps,
                   evaluate(_net(Z.shape[1], eps, seed), Z.astype(np.float32), y,
                            Z_test.astype(np.float32), y_test))


def summarise(records, epsilons, seeds):
    keys = []
    for r in records:
        key = (r["table"], r["model"], r["epsilon"])
        if key not in keys:
            keys.append(key)
    rows = []
    for table, model, eps in keys:
        group = [r for r in records if (r["table"], r["model"], r["epsilon"]) == (
            table, model, eps) and "accuracy" in r]
        if not group:
            rows.append([table, model, "-" if eps is None else f"{eps:g}",
                         "infeasible", "", "", ""])
            continue

        def cell(key, group=group):
            values = [r[key] for r in group]
            if len(values) == 1:
                return f"{values[0]:.3f}"
            return f"{np.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"

        seconds = np.mean([r["fit seconds"] for r in group])
        rows.append([table, model, "-" if eps is None else f"{eps:g}", cell("accuracy"),
                     cell("auc"), f"{np.mean([r['positive share'] for r in group]):.3f}",
                     f"{seconds:.2f}"])
    lines = [
        "# Which model for my table (benchmarks/nonlinear.py)", "",
        f"Defaults only, public ranges and categories declared; epsilon "
        f"{', '.join(f'{e:g}' for e in epsilons)}; {len(seeds)} seed(s): mean (min-max). "
        "Accuracy at a 0.5 threshold, ROC AUC of predict_proba, share of test rows "
        "predicted positive, fit seconds (one thread). German-credit-like, the wide "
        "imbalanced, additive and interaction tables are synthetic (see the script). PATE "
        "learns from four fifths of the training rows and asks about the rest, unlabelled. "
        f"The DP network is not run above {NET_MAX_ROWS:,} training rows (minutes per "
        "fit).", "",
    ]
    lines += markdown_table(["table", "model", "eps", "accuracy", "ROC AUC",
                             "positive share", "fit s"], rows)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="epsilon 1, one seed, the four small tables (~3 minutes)")
    parser.add_argument("--tables", nargs="*", choices=list(TABLES), default=None)
    parser.add_argument("--epsilons", nargs="*", type=float, default=None)
    parser.add_argument("--seeds", type=int, default=None, help="number of seeds")
    parser.add_argument("--output", default=None,
                        help="results/<output>.json and .md (default: nonlinear, or "
                             "nonlinear_quick with --quick)")
    args = parser.parse_args()
    epsilons, seeds = ((1.0,), (0,)) if args.quick else (EPSILONS, SEEDS)
    epsilons = tuple(args.epsilons) if args.epsilons else epsilons
    seeds = tuple(range(args.seeds)) if args.seeds else seeds
    tables = args.tables or (QUICK_TABLES if args.quick else tuple(TABLES))
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # the fixed seeds of a benchmark
    warnings.simplefilter("ignore", UtilityWarning)  # measured, not heeded
    warnings.simplefilter("ignore", RepeatedFitWarning)  # the same rows, on purpose
    records = []

    def record(table, seed, model, eps, result):
        records.append({"table": table, "seed": seed, "model": model, "epsilon": eps,
                        **result})
        print(records[-1], flush=True)

    for table in tables:
        for seed in seeds:
            run_table(table, seed, epsilons, record)
    lines = summarise(records, epsilons, seeds)
    print("\n".join(lines))
    write(args.output or ("nonlinear_quick" if args.quick else "nonlinear"), {
        "benchmark": "nonlinear",
        "settings": {"tables": list(tables), "epsilons": list(epsilons),
                     "n_bins": N_BINS, "net_max_rows": NET_MAX_ROWS},
        "seeds": list(seeds),
        "versions": versions("skprivate", "scikit-learn", "torch"),
        "rows": records,
    }, lines)


if __name__ == "__main__":
    main()
