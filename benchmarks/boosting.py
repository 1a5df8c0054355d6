"""Private gradient boosting against DP-LSSGD and non-private boosting.

Run with ``python benchmarks/boosting.py`` (about 3 minutes on 2 idle cores; an integer
argument runs that many seeds). Two tables:

* Adult (``skprivate.datasets.load_adult``, train / test files): the 5 numeric features of
  ``make_adult_preprocessor`` with its public ranges (capital amounts as ``log1p``) and the 8
  categorical features as codes of the codebook's categories, declared to the estimator;
  ``fnlwgt`` dropped. DP-LSSGD runs with its defaults on ``make_adult_preprocessor``'s
  output (104 columns).
* the interaction table: 8 features uniform on ``[-1, 1]``, label ``x1 * x2 > 0``, 40,000
  training and 10,000 test rows, bounds ``(-1, 1)`` declared;
* breast cancer (scikit-learn's, 569 rows, 30 features): scaled to ``[0, 1]`` by the range of
  the whole table, taken as public as in the other benchmarks (``bounds=(0, 1)``), split
  70 / 30 stratified.
* a wide synthetic table (``make_classification``: 20,000 rows, 30 features, 10
  informative, 20 % positives), scaled and split as breast cancer (14,000 training rows).

Every private estimator runs with its defaults (only the public ranges, categories and
classes are given) at epsilon 0.5, 1 and 2, 3 seeds; accuracy, ROC AUC, the share of test
rows predicted positive (a usable probability gives about the true share at threshold 0.5)
and the fit time (one thread for every model). Writes ``benchmarks/results/boosting.json``
and ``.md``.

``python benchmarks/boosting.py regression`` (about a minute) measures the regressor
instead: test R2 of ``HistGradientBoostingRegressor`` against ``DPLSSGDRegressor`` (features
scaled to [-1, 1] and the target to [-1, 1] by the same public ranges), scikit-learn's
non-private regressor and the zero predictor (R2 about 0), at epsilon 0.5, 1 and 2, 3 seeds,
on a synthetic table (``y = sin(3 x1) + x2 x3 + 0.3 noise``, 6 features uniform on
[-1, 1], 15,000 training rows, target range (-3, 3)) and diabetes (331 training rows, the
features' ranges taken as public, target range (25, 346)). Writes
``benchmarks/results/boosting_regression.json`` and ``.md``.
"""

import sys
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer, load_diabetes, make_classification
from sklearn.ensemble import HistGradientBoostingClassifier as SklearnHGB
from sklearn.ensemble import HistGradientBoostingRegressor as SklearnHGBRegressor
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from threadpoolctl import threadpool_limits

from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.datasets._adult_codebook import (
    CATEGORICAL_FEATURES,
    CATEGORIES,
    FEATURE_NAMES,
    NUMERIC_BOUNDS,
)
from skprivate.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier, DPLSSGDRegressor

EPSILONS = (0.5, 1.0, 2.0)
SEEDS = (0, 1, 2)
_LOG = ("capital-gain", "capital-loss")


def adult_codes(X):
    """Adult as numbers: public-range numerics (log1p amounts), categories as codebook codes."""
    columns, lower, upper = [], [], []
    for name in NUMERIC_BOUNDS:
        values = X[:, FEATURE_NAMES.index(name)].astype(float)
        low, high = NUMERIC_BOUNDS[name]
        if name in _LOG:
            values, low, high = np.log1p(values), np.log1p(low), np.log1p(high)
        columns.append(values)
        lower.append(low)
        upper.append(high)
    categories = []
    for name in CATEGORICAL_FEATURES:
        code = {category: k for k, category in enumerate(CATEGORIES[name])}
        columns.append(np.array([code.get(v, np.nan) for v in X[:, FEATURE_NAMES.index(name)]]))
        categories.append(list(range(len(CATEGORIES[name]))))
        lower.append(0.0)
        upper.append(1.0)  # not used: the feature is categorical
    n_numeric = len(NUMERIC_BOUNDS)
    params = {
        "bounds": (np.array(lower), np.array(upper)),
        "categorical_features": list(range(n_numeric, n_numeric + len(categories))),
        "categories": categories,
    }
    return np.column_stack(columns), params


def interaction_table(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 8))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


def evaluate(model, X, y, X_test, y_test):
    start = time.perf_counter()
    # One thread for every model: scikit-learn's OpenMP threads spin against the other work
    # of a shared machine (a 62 s Adult fit with its default threads on 2 busy cores).
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the fixed seeds of a benchmark
        model.fit(X, y)
    seconds = time.perf_counter() - start
    proba = model.predict_proba(X_test)[:, 1]
    predicted = model.predict(X_test)
    return {
        "accuracy": float(np.mean(predicted == y_test)),
        "auc": float(roc_auc_score(y_test, proba)),
        "positive share": float(np.mean(predicted == 1)),
        "fit seconds": seconds,
    }


def tables():
    X, y = load_adult(return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    codes, params = adult_codes(X)
    codes_test, _ = adult_codes(X_test)
    onehot = make_adult_preprocessor().fit(X)
    yield "Adult", {
        "boosting": (codes, y, codes_test, y_test, params),
        "linear": (onehot.transform(X), y, onehot.transform(X_test), y_test),
        "sklearn": (codes, y, codes_test, y_test,
                    {"categorical_features": params["categorical_features"]}),
    }
    X, y = interaction_table(40_000, 0)
    X_test, y_test = interaction_table(10_000, 1)
    yield "interaction", {
        "boosting": (X, y, X_test, y_test, {"bounds": (-1.0, 1.0)}),
        "linear": (X, y, X_test, y_test),
        "sklearn": (X, y, X_test, y_test, {}),
    }
    X, y = load_breast_cancer(return_X_y=True)
    X, X_test, y, y_test = train_test_split(MinMaxScaler().fit_transform(X), y,
                                            test_size=0.3, stratify=y, random_state=0)
    yield "breast cancer", {
        "boosting": (X, y, X_test, y_test, {"bounds": (0.0, 1.0)}),
        "linear": (X, y, X_test, y_test),
        "sklearn": (X, y, X_test, y_test, {}),
    }
    X, y = make_classification(n_samples=20_000, n_features=30, n_informative=10,
                               weights=[0.8], random_state=0)
    X, X_test, y, y_test = train_test_split(MinMaxScaler().fit_transform(X), y,
                                            test_size=0.3, stratify=y, random_state=0)
    yield "wide synthetic", {
        "boosting": (X, y, X_test, y_test, {"bounds": (0.0, 1.0)}),
        "linear": (X, y, X_test, y_test),
        "sklearn": (X, y, X_test, y_test, {}),
    }


def main(epsilons=EPSILONS, seeds=SEEDS):
    rows = []
    for table, data in tables():
        X, y, X_test, y_test, params = data["sklearn"]
        result = evaluate(SklearnHGB(random_state=0, **params), X, y, X_test, y_test)
        rows.append({"table": table, "model": "sklearn HGB (not private)", "epsilon": None,
                     **result})
        print(rows[-1], flush=True)
        for epsilon in epsilons:
            for name, make in (
                ("boosting", lambda s, p: HistGradientBoostingClassifier(
                    epsilon=epsilon, classes=[0, 1], random_state=s, **p)),
                ("DP-LSSGD", lambda s, p: DPLSSGDClassifier(
                    epsilon=epsilon, classes=[0, 1], random_state=s)),
            ):
                runs = []
                for seed in seeds:
                    if name == "boosting":
                        X, y, X_test, y_test, params = data["boosting"]
                    else:
                        X, y, X_test, y_test = data["linear"]
                        params = {}
                    runs.append(evaluate(make(seed, params), X, y, X_test, y_test))
                mean = {key: float(np.mean([r[key] for r in runs])) for key in runs[0]}
                mean["accuracy std"] = float(np.std([r["accuracy"] for r in runs]))
                rows.append({"table": table, "model": name, "epsilon": epsilon, **mean})
                print(rows[-1], flush=True)
    header = ["table", "model", "epsilon", "accuracy", "ROC AUC", "share predicted positive",
              "fit (s)"]
    lines = [
        "# Private gradient boosting (benchmarks/boosting.py)",
        "",
        f"Defaults, {len(seeds)} seeds (mean); test sets: Adult's test file, 10,000 fresh "
        "rows of the interaction table, 30 % of breast cancer and of the wide synthetic table.",
        "",
        *markdown_table(header, [[
            r["table"], r["model"], "-" if r["epsilon"] is None else f"{r['epsilon']:g}",
            f"{r['accuracy']:.4f}", f"{r['auc']:.4f}", f"{r['positive share']:.3f}",
            f"{r['fit seconds']:.2f}"] for r in rows]),
    ]
    write("boosting", {"versions": versions("scikit-learn", "numpy"), "rows": rows}, lines)
    print("\n".join(lines))


def regression_tables(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.uniform(-1.0, 1.0, size=(20_000, 6))
    y = np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=20_000)
    yield ("sin(3 x1) + x2 x3", *train_test_split(X, y, test_size=0.25, random_state=seed),
           (-np.ones(6), np.ones(6)), (-3.0, 3.0))
    X, y = load_diabetes(return_X_y=True)
    yield ("diabetes", *train_test_split(X, y, test_size=0.25, random_state=seed),
           (X.min(axis=0), X.max(axis=0)), (25.0, 346.0))


def _timed_r2(model, X, y, X_test, y_test, scale_y=None):
    start = time.perf_counter()
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the fixed seeds of a benchmark
        if scale_y is None:
            model.fit(X, y)
            predicted = model.predict(X_test)
        else:  # DP-LSSGD on the target scaled to [-1, 1] by its public range
            centre, half = scale_y
            model.fit(X, (y - centre) / half)
            predicted = centre + half * model.predict(X_test)
    return float(r2_score(y_test, predicted)), time.perf_counter() - start


def regression(epsilons=EPSILONS, seeds=SEEDS):
    results = {}
    for seed in seeds:
        for table, X, X_test, y, y_test, (lower, upper), bounds_y in regression_tables(seed):
            def scaled(A):
                return 2 * (np.clip(A, lower, upper) - lower) / (upper - lower) - 1

            scale_y = (0.5 * (bounds_y[0] + bounds_y[1]), 0.5 * (bounds_y[1] - bounds_y[0]))
            runs = {("scikit-learn HGB (not private)", None): _timed_r2(
                SklearnHGBRegressor(random_state=0), X, y, X_test, y_test)}
            for epsilon in epsilons:
                runs["boosting", epsilon] = _timed_r2(HistGradientBoostingRegressor(
                    epsilon=epsilon, bounds=(lower, upper), bounds_y=bounds_y,
                    random_state=seed), X, y, X_test, y_test)
                runs["DP-LSSGD", epsilon] = _timed_r2(
                    DPLSSGDRegressor(epsilon=epsilon, random_state=seed), scaled(X), y,
                    scaled(X_test), y_test, scale_y)
            for key, value in runs.items():
                results.setdefault((table, *key), []).append(value)
            print(table, seed, {k: round(v[0], 3) for k, v in runs.items()}, flush=True)
    rows = [{"table": table, "model": model, "epsilon": epsilon,
             "r2": float(np.mean([r for r, _ in values])),
             "r2 std": float(np.std([r for r, _ in values])),
             "fit seconds": float(np.mean([t for _, t in values]))}
            for (table, model, epsilon), values in results.items()]
    lines = [
        "# Private gradient-boosted regression (benchmarks/boosting.py regression)",
        "",
        f"Defaults, {len(seeds)} seeds (mean); test R2 on a held-out quarter. The zero "
        "predictor scores about 0.",
        "",
        *markdown_table(["table", "model", "epsilon", "R2", "R2 std", "fit (s)"], [[
            r["table"], r["model"], "-" if r["epsilon"] is None else f"{r['epsilon']:g}",
            f"{r['r2']:.3f}", f"{r['r2 std']:.3f}", f"{r['fit seconds']:.2f}"] for r in rows]),
    ]
    write("boosting_regression", {"versions": versions("scikit-learn", "numpy"),
                                  "rows": rows}, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "regression":
        regression(seeds=SEEDS[: int(sys.argv[2])] if len(sys.argv) > 2 else SEEDS)
    else:
        main(seeds=SEEDS[: int(sys.argv[1])] if len(sys.argv) > 1 else SEEDS)
