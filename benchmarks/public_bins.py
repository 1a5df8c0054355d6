"""Public bins: one-hot bins of the declared ranges in front of DP-LSSGD, against scaling.

On three tables, at epsilon 0.5, 1 and 2 (delta 1e-5), test accuracy of
``DPLSSGDClassifier`` with its defaults (classes declared) behind

* ``scaled``: today's data-independent preprocessor (numeric columns clipped and mapped
  to [0, 1] from their declared ranges, :class:`~skprivate.preprocessing.BoundedScaler`);
* ``bins K`` (K = 8, 16, 32): the numeric columns one-hot encoded in K bins of their
  declared ranges (``make_bounded_preprocessor(n_bins=K)``; ``log1p`` columns get bins
  uniform in ``log1p``);
* ``bins 16 + scaled``: both (``keep_scaled=True``);

and non-private ``LogisticRegression`` (scikit-learn's defaults, ``max_iter=5000``) on each
of the same feature sets: the ceiling of a linear model on them.

Tables and their public ranges:

* Adult (``load_adult``, train/test files): the codebook's ranges and categories, as
  ``make_adult_preprocessor`` declares them (capital amounts in ``log1p``).
* Breast cancer (sklearn, 70/30 stratified split, seed 0): no codebook, so each feature gets
  ``[0, 10**ceil(log10(max))]``, a range known to an order of magnitude, as
  ``benchmarks/private_preprocessing.py`` declares it (a stand-in for domain knowledge).
* ``additive``: 20,000 synthetic rows (15,000 train, 5,000 test), 8 features uniform on
  the declared range [-1, 1], label Bernoulli(sigmoid(f)) with f a sum of non-monotone
  shapes (``sin``, squares, a step) and one linear term: what a linear model on scaled
  columns cannot fit.

The preprocessors read nothing from the rows (their fit is a function of the declared
parameters), so each feature matrix is computed once and the classifier is fitted on it
with each seed; the privacy totals of full pipelines are checked once per variant (no leak,
total = epsilon). 3 seeds (noise; the splits are fixed). About eight minutes on a busy
two-core machine (breast cancer's small-data plans take most of it).

Run: nice -n 10 python benchmarks/public_bins.py
"""

import subprocess
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from _results import markdown_table, versions, write

from skprivate.accounting import total_privacy_cost
from skprivate.datasets import load_adult
from skprivate.datasets._adult_codebook import (
    CATEGORICAL_FEATURES,
    CATEGORIES,
    NUMERIC_BOUNDS,
    NUMERIC_FILL,
)
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import make_bounded_preprocessor

EPSILONS = (0.5, 1.0, 2.0)
SEEDS = (0, 1, 2)
DELTA = 1e-5
VARIANTS = {  # name -> keyword arguments of make_bounded_preprocessor
    "scaled": {},
    "bins 8": {"n_bins": 8},
    "bins 16": {"n_bins": 16},
    "bins 32": {"n_bins": 32},
    "bins 16 + scaled": {"n_bins": 16, "keep_scaled": True},
}


def _adult():
    train = load_adult(subset="train", as_frame=True)
    test = load_adult(subset="test", as_frame=True)
    declared = dict(
        numeric=dict(NUMERIC_BOUNDS),
        categorical={c: list(CATEGORIES[c]) for c in CATEGORICAL_FEATURES},
        log1p=["capital-gain", "capital-loss"],
        fill_value=dict(NUMERIC_FILL),
    )
    return (train.data, train.target.to_numpy(), test.data, test.target.to_numpy()), declared


def _breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    # no codebook: each feature's range known to an order of magnitude
    upper = 10.0 ** np.ceil(np.log10(X.max(axis=0)))
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    return (Xtr, ytr, Xte, yte), dict(numeric={j: (0.0, u) for j, u in enumerate(upper)})


def _additive(n=20_000, d=8):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(n, d))
    f = (2.0 * np.sin(3.0 * X[:, 0]) + 4.0 * (X[:, 1] ** 2 - 1.0 / 3.0)
         - 3.0 * (np.abs(X[:, 2]) - 0.5) + 2.0 * (X[:, 3] > 0.3) - 0.6 + 1.5 * X[:, 4])
    y = (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-f))).astype(int)
    split = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    Xtr, Xte, ytr, yte = split
    return (Xtr, ytr, Xte, yte), dict(numeric={j: (-1.0, 1.0) for j in range(d)})


TABLES = {"adult": _adult, "breast_cancer": _breast_cancer, "additive": _additive}


def _clf(eps, seed):
    return DPLSSGDClassifier(epsilon=eps, delta=DELTA, classes=[0, 1], random_state=seed)


def main():
    start = time.perf_counter()
    rows, ceilings, checks = [], [], []
    for table, load in TABLES.items():
        (Xtr, ytr, Xte, yte), declared = load()
        for variant, options in VARIANTS.items():
            prep = make_bounded_preprocessor(**declared, **options)
            Ztr = prep.fit_transform(Xtr)
            Zte = prep.transform(Xte)
            lr = LogisticRegression(max_iter=5000).fit(Ztr, ytr)
            ceilings.append(dict(data=table, variant=variant, n_features=Ztr.shape[1],
                                 accuracy=float(lr.score(Zte, yte))))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the seeded noise warns, by design
                pipe = make_pipeline(make_bounded_preprocessor(**declared, **options),
                                     _clf(1.0, 0)).fit(Xtr, ytr)
                cost = total_privacy_cost(pipe)
            checks.append(dict(data=table, variant=variant, total_epsilon=cost.basic_epsilon,
                               leaks=[s.path for s in cost.leaks]))
            for eps in EPSILONS:
                for seed in SEEDS:
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        clf = _clf(eps, seed).fit(Ztr, ytr)
                    rows.append(dict(data=table, variant=variant, epsilon=eps, seed=seed,
                                     accuracy=float(clf.score(Zte, yte)),
                                     epsilon_=float(clf.epsilon_),
                                     fit_seconds=time.perf_counter() - t0))
        print(f"{table} done at {time.perf_counter() - start:.0f} s", flush=True)
    seconds = time.perf_counter() - start

    def mean_sd(sel):
        a = np.array([r["accuracy"] for r in sel])
        return f"{a.mean():.3f} ± {a.std():.3f}"

    md = ["# Public bins in front of DP-LSSGD", "",
          "Test accuracy, mean ± sd over seeds " + str(list(SEEDS)) + ", of "
          "`DPLSSGDClassifier` defaults (classes declared, delta 1e-5) behind "
          "`make_bounded_preprocessor` with the declared ranges: `scaled` (today's default, "
          "BoundedScaler), `bins K` (numeric columns one-hot in K bins of their ranges, "
          "`n_bins=K`), `bins 16 + scaled` (`keep_scaled=True`). `LR`: non-private "
          "LogisticRegression on the same features. Every pipeline's total is its "
          "classifier's epsilon, with no leaking step (checked below).", ""]
    for table in TABLES:
        md += [f"## {table}", ""]
        body = []
        for variant in VARIANTS:
            ceiling = next(c for c in ceilings if c["data"] == table and c["variant"] == variant)
            cells = [mean_sd([r for r in rows if r["data"] == table and r["variant"] == variant
                              and r["epsilon"] == e]) for e in EPSILONS]
            body.append([variant, ceiling["n_features"], *cells, f"{ceiling['accuracy']:.3f}"])
        md += markdown_table(["features", "columns", *[f"E = {e:g}" for e in EPSILONS], "LR"],
                             body)
        md.append("")
    leaky = [c for c in checks if c["leaks"]]
    md += ["Privacy totals of the fitted pipelines at epsilon 1: "
           + ("no leaking step, total epsilon "
              + ", ".join(sorted({f"{c['total_epsilon']:.4g}" for c in checks}))
              if not leaky else f"LEAKS: {leaky}") + ".", ""]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=__file__.rsplit("/", 2)[0]).stdout.strip()
    md += [f"Code: commit {commit} plus the working tree at the time of the run; "
           f"{seconds:.0f} s on a shared two-core machine."]
    payload = dict(settings=dict(epsilons=EPSILONS, seeds=SEEDS, delta=DELTA,
                                 variants=VARIANTS),
                   rows=rows, ceilings=ceilings, checks=checks, seconds=seconds,
                   versions=versions("numpy", "scikit-learn"))
    for path in write("public_bins", payload, md):
        print(path)
    print("\n".join(md))


if __name__ == "__main__":
    main()
