"""Private preprocessing: one epsilon for the whole Pipeline, against the leaky StandardScaler.

On Adult, digits and breast cancer, at total epsilon 0.5, 1 and 2, test accuracy of

* ``private``: ``make_private_pipeline(skprivate.preprocessing.StandardScaler(bounds),
  DPLSSGDClassifier(), epsilon=E)``: the scaler gets 20 % of ``E``
  (``DEFAULT_PREPROCESSING_SHARE``), the classifier the rest; the pipeline is
  ``(E, 1e-5)``-DP as a whole;
* ``leaky``: ``make_pipeline(sklearn StandardScaler(), DPLSSGDClassifier(epsilon=E))``:
  the scaler's mean and variance are released exactly, outside the guarantee;
* ``none``: ``DPLSSGDClassifier(epsilon=E)`` on the features as given (no scaler);
* ``codebook``: the data-independent preprocessor where a public codebook exists (Adult:
  ``make_adult_preprocessor``; digits: pixels over their public range [0, 16]);
* Adult only, ``private+discovery``: the private scaler and a private ``OneHotEncoder``
  that finds the categories by a thresholded noisy histogram (both share the 20 %).

Each at three input scalings of the raw table, to test that the private scaler's accuracy
does not depend on how the user's table happened to be scaled: ``raw`` (the features as
loaded), ``max`` (each feature divided by its maximum) and ``std`` (standardised). The
public bounds are transformed the same way as the features. Public bounds: Adult, the
codebook's ranges (age [17, 90], ...); digits, [0, 16]; breast cancer has no codebook, so
each feature gets ``[0, 10**ceil(log10(max))]``, a range known to an order of magnitude
(an assumption standing in for domain knowledge; it is read from the data here).

A second table measures the preprocessing share (5, 10, 20, 30 %) at total epsilon 1 on
the raw inputs: the basis of the default share.

diffprivlib's scaler numbers are not included: diffprivlib imports scikit-learn modules
removed in scikit-learn 1.8, and this environment (scikit-learn 1.9) cannot install an
older one without downloading.

Seeds: 3 per setting (noise and the Adult split are fixed per seed; digits and breast
cancer use one stratified 70/30 split). Classes are passed as public (``classes=``).
Runs in about five minutes on two cores.

Run: nice -n 10 python benchmarks/private_preprocessing.py
"""

import subprocess
import sys
import time
import warnings

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder as SkOneHotEncoder
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from _results import markdown_table, versions, write

from skprivate.accounting import total_privacy_cost
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.datasets._adult_codebook import CATEGORIES, CATEGORICAL_FEATURES, NUMERIC_BOUNDS
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.preprocessing import (
    BoundedScaler,
    OneHotEncoder,
    StandardScaler,
    make_private_pipeline,
)

EPSILONS = (0.5, 1.0, 2.0)
SEEDS = (0, 1, 2)
SCALINGS = ("raw", "max", "std")
SHARES = (0.05, 0.1, 0.2, 0.3)
DELTA = 1e-5


def _rescale(X, lower, upper, how, ref):
    """The table and its bounds in another unit (statistics of the reference rows ``ref``)."""
    if how == "raw":
        return X, lower, upper
    if how == "max":
        m = np.abs(ref).max(axis=0)
        m = np.where(m > 0, m, 1.0)
        return X / m, lower / m, upper / m
    mu, sd = ref.mean(axis=0), ref.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (X - mu) / sd, (lower - mu) / sd, (upper - mu) / sd


def _clf(seed, n_classes):
    return DPLSSGDClassifier(random_state=seed, classes=list(range(n_classes)))


# --- digits and breast cancer: all columns numeric ------------------------------------------
def _dense_data(name):
    X, y = (load_digits if name == "digits" else load_breast_cancer)(return_X_y=True)
    if name == "digits":
        lower, upper = np.zeros(X.shape[1]), np.full(X.shape[1], 16.0)
    else:  # no codebook: each feature's range known to an order of magnitude
        lower = np.zeros(X.shape[1])
        upper = 10.0 ** np.ceil(np.log10(X.max(axis=0)))
    split = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    return split, lower, upper, len(np.unique(y))


def _dense_models(variant, eps, seed, lower, upper, k, share=None):
    if variant == "private":
        kw = {} if share is None else {"preprocessing_share": share}
        return make_private_pipeline(StandardScaler(bounds=(lower, upper), random_state=seed),
                                     _clf(seed, k), epsilon=eps, delta=DELTA, **kw)
    if variant == "leaky":
        return make_pipeline(SkStandardScaler(), _clf(seed, k).set_params(epsilon=eps))
    if variant == "none":
        return _clf(seed, k).set_params(epsilon=eps)
    if variant == "codebook":
        return make_pipeline(BoundedScaler(bounds=(lower, upper)),
                             _clf(seed, k).set_params(epsilon=eps))
    raise ValueError(variant)


# --- Adult: the raw DataFrame ---------------------------------------------------------------
ADULT_NUMERIC = list(NUMERIC_BOUNDS)  # fnlwgt is left out, as by the codebook preprocessor


def _adult_data(seed):
    train = load_adult(subset="train", as_frame=True)
    test = load_adult(subset="test", as_frame=True)
    return train.data, train.target.to_numpy(), test.data, test.target.to_numpy()


def _adult_scaled(df, how, ref):
    lower = np.array([NUMERIC_BOUNDS[c][0] for c in ADULT_NUMERIC])
    upper = np.array([NUMERIC_BOUNDS[c][1] for c in ADULT_NUMERIC])
    num, lower, upper = _rescale(df[ADULT_NUMERIC].to_numpy(float), lower, upper, how,
                                 ref[ADULT_NUMERIC].to_numpy(float))
    out = df.copy()
    out[ADULT_NUMERIC] = num
    return out, lower, upper


def _adult_models(variant, eps, seed, lower, upper, share=None):
    declared = [list(CATEGORIES[c]) for c in CATEGORICAL_FEATURES]
    cat = list(CATEGORICAL_FEATURES)
    kw = {} if share is None else {"preprocessing_share": share}
    if variant in ("private", "private+discovery"):
        encoder = OneHotEncoder(
            categories=declared if variant == "private" else "auto",
            sparse_output=False, random_state=seed,
        )
        ct = ColumnTransformer([
            ("num", StandardScaler(bounds=(lower, upper), random_state=seed), ADULT_NUMERIC),
            ("cat", encoder, cat),
        ])
        return make_private_pipeline(ct, _clf(seed, 2), epsilon=eps, delta=DELTA, **kw)
    if variant == "leaky":
        ct = ColumnTransformer([
            ("num", SkStandardScaler(), ADULT_NUMERIC),
            ("cat", SkOneHotEncoder(handle_unknown="ignore", sparse_output=False), cat),
        ])
        return make_pipeline(ct, _clf(seed, 2).set_params(epsilon=eps))
    if variant == "none":
        ct = ColumnTransformer([
            ("num", "passthrough", ADULT_NUMERIC),
            ("cat", OneHotEncoder(categories=declared, sparse_output=False), cat),
        ])
        return make_pipeline(ct, _clf(seed, 2).set_params(epsilon=eps))
    if variant == "codebook":
        return make_pipeline(make_adult_preprocessor(), _clf(seed, 2).set_params(epsilon=eps))
    raise ValueError(variant)


def _score(model, Xtr, ytr, Xte, yte):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded noise and leaky variants warn, by design
        model.fit(Xtr, ytr)
        cost = total_privacy_cost(model)
    pre = sum(s.epsilon for s in cost.spends[:-1])
    return float(model.score(Xte, yte)), cost.basic_epsilon, pre, [s.path for s in cost.leaks]


def main():
    start = time.perf_counter()
    rows, shares = [], []
    for name in ("breast_cancer", "digits"):
        (Xtr0, Xte0, ytr, yte), lower0, upper0, k = _dense_data(name)
        for how in SCALINGS:
            Xtr, lower, upper = _rescale(Xtr0, lower0, upper0, how, Xtr0)
            Xte = _rescale(Xte0, lower0, upper0, how, Xtr0)[0]
            variants = ("private", "leaky", "none") + (("codebook",) if name == "digits" else ())
            for variant in variants:
                for eps in EPSILONS:
                    for seed in SEEDS:
                        acc, total, pre, leaks = _score(
                            _dense_models(variant, eps, seed, lower, upper, k),
                            Xtr, ytr, Xte, yte)
                        rows.append(dict(data=name, scaling=how, variant=variant,
                                         epsilon=eps, seed=seed, accuracy=acc,
                                         total_epsilon=total, preprocessing_epsilon=pre,
                                         leaks=leaks))
        for share in SHARES:
            for seed in SEEDS:
                acc, total, pre, _ = _score(
                    _dense_models("private", 1.0, seed, lower0, upper0, k, share),
                    Xtr0, ytr, Xte0, yte)
                shares.append(dict(data=name, share=share, seed=seed, accuracy=acc))
        print(f"{name} done at {time.perf_counter() - start:.0f} s", flush=True)

    Xtr0, ytr, Xte0, yte = _adult_data(0)
    for how in ("raw", "std"):
        Xtr, lower, upper = _adult_scaled(Xtr0, how, Xtr0)
        Xte = _adult_scaled(Xte0, how, Xtr0)[0]
        variants = ("private", "leaky", "none")
        if how == "raw":
            variants += ("codebook", "private+discovery")
        for variant in variants:
            for eps in EPSILONS:
                for seed in SEEDS:
                    acc, total, pre, leaks = _score(
                        _adult_models(variant, eps, seed, lower, upper), Xtr, ytr, Xte, yte)
                    rows.append(dict(data="adult", scaling=how, variant=variant, epsilon=eps,
                                     seed=seed, accuracy=acc, total_epsilon=total,
                                     preprocessing_epsilon=pre, leaks=leaks))
        print(f"adult {how} done at {time.perf_counter() - start:.0f} s", flush=True)
    lower = np.array([NUMERIC_BOUNDS[c][0] for c in ADULT_NUMERIC])
    upper = np.array([NUMERIC_BOUNDS[c][1] for c in ADULT_NUMERIC])
    for share in SHARES:
        for seed in SEEDS:
            acc, *_ = _score(_adult_models("private", 1.0, seed, lower, upper, share),
                             Xtr0, ytr, Xte0, yte)
            shares.append(dict(data="adult", share=share, seed=seed, accuracy=acc))
    seconds = time.perf_counter() - start

    # --- tables ---------------------------------------------------------------------------
    def mean_sd(sel):
        a = np.array([r["accuracy"] for r in sel])
        return f"{a.mean():.3f} ± {a.std():.3f}" if len(a) else "n/a"

    md = ["# Private preprocessing: one epsilon for the whole Pipeline", "",
          "Test accuracy, mean ± sd over seeds " + str(list(SEEDS)) + ". `private`: "
          "skprivate StandardScaler (20 % of the budget) + DPLSSGDClassifier, (E, 1e-5)-DP "
          "as a whole. `leaky`: scikit-learn's StandardScaler (not covered by E). `none`: no "
          "scaler. `codebook`: data-independent preprocessing from public ranges.", ""]
    for name in ("adult", "digits", "breast_cancer"):
        md += [f"## {name}", ""]
        table = []
        for how in SCALINGS:
            for variant in ("private", "private+discovery", "leaky", "none", "codebook"):
                cells = [mean_sd([r for r in rows if r["data"] == name and r["scaling"] == how
                                  and r["variant"] == variant and r["epsilon"] == e])
                         for e in EPSILONS]
                if any(c != "n/a" for c in cells):
                    table.append([how, variant, *cells])
        md += markdown_table(["input", "pipeline", *[f"E = {e:g}" for e in EPSILONS]], table)
        md.append("")
    md += ["## Preprocessing share at total E = 1 (raw inputs)", ""]
    md += markdown_table(
        ["data", *[f"share {s:g}" for s in SHARES]],
        [[name, *[mean_sd([r for r in shares if r["data"] == name and r["share"] == s])
                  for s in SHARES]] for name in ("adult", "digits", "breast_cancer")],
    )
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=__file__.rsplit("/", 2)[0]).stdout.strip()
    md += ["", f"Code: commit {commit} plus the working tree at the time of the run; "
           f"{seconds:.0f} s. diffprivlib: not run (needs scikit-learn < 1.8)."]
    payload = dict(settings=dict(epsilons=EPSILONS, seeds=SEEDS, scalings=SCALINGS,
                                 delta=DELTA, shares=SHARES, commit=commit,
                                 seconds=seconds),
                   versions=versions("scikit-learn", "numpy"), rows=rows, shares=shares)
    write("private_preprocessing", payload, md)
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
