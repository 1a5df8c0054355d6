"""Private naive Bayes against the non-private model and the majority class.

Test accuracy of :class:`skprivate.naive_bayes.GaussianNB` at epsilon 0.1, 0.5, 1 and 4,
5 seeds each, beside scikit-learn's ``GaussianNB`` (no privacy) and always predicting the
majority class, on:

* breast cancer (569 rows, 30 features, one stratified 70/30 split). No codebook, so each
  feature gets ``[0, 10**ceil(log10(max))]``, a range known to an order of magnitude (the
  convention of ``private_preprocessing.py``; it is read from the data here, standing in for
  domain knowledge); and ``breast_cancer_tight``, each feature's own range over all rows
  (the tightest range a codebook could give, read from the data here: an upper reference);
* digits (1,797 rows, 64 pixels in [0, 16], one stratified 70/30 split);
* Adult's five numeric columns (the original train/test files, codebook bounds);

and of :class:`skprivate.naive_bayes.CategoricalNB` on Adult's eight categorical columns
(the codebook's categories, a missing value as one more category) beside scikit-learn's
``CategoricalNB``. Classes are passed as public. German credit is not bundled and is
skipped; diffprivlib is not installed in this environment (it does not import with
scikit-learn 1.8 or later), so its numbers are not here.

Runs in about a minute on two cores. Run: nice -n 10 python benchmarks/naive_bayes.py
"""

import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from _results import markdown_table, versions, write
from skprivate.datasets import load_adult
from skprivate.datasets._adult_codebook import CATEGORIES, NUMERIC_BOUNDS
from skprivate.exceptions import PrivacyLeakWarning, RepeatedFitWarning
from skprivate.naive_bayes import CategoricalNB, GaussianNB

EPSILONS = (0.1, 0.5, 1.0, 4.0)
SEEDS = range(5)


def _dense(name):
    X, y = (load_digits if name == "digits" else load_breast_cancer)(return_X_y=True)
    if name == "digits":
        lower, upper = np.zeros(X.shape[1]), np.full(X.shape[1], 16.0)
    elif name == "breast_cancer_tight":
        lower, upper = X.min(axis=0), X.max(axis=0)
    else:
        lower = np.zeros(X.shape[1])
        upper = 10.0 ** np.ceil(np.log10(X.max(axis=0)))
    split = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    return split, (lower, upper)


def _adult_numeric():
    train, test = load_adult("train", as_frame=True), load_adult("test", as_frame=True)
    cols = list(NUMERIC_BOUNDS)
    bounds = np.array([NUMERIC_BOUNDS[c] for c in cols]).T
    split = (train.data[cols].to_numpy(float), test.data[cols].to_numpy(float),
             train.target.to_numpy(), test.target.to_numpy())
    return split, (bounds[0], bounds[1])


def _adult_categorical():
    train, test = load_adult("train", as_frame=True), load_adult("test", as_frame=True)
    cols = list(CATEGORIES)

    def codes(frame):  # the codebook's order; a missing value is one more category
        out = np.column_stack([frame[c].cat.codes.to_numpy() for c in cols])
        sizes = np.array([len(CATEGORIES[c]) for c in cols])
        return np.where(out < 0, sizes, out), sizes + 1

    X_train, sizes = codes(train.data)
    X_test, _ = codes(test.data)
    return (X_train, X_test, train.target.to_numpy(), test.target.to_numpy()), sizes


def _run(make_private, baseline, split):
    X_train, X_test, y_train, y_test = split
    classes = np.unique(y_train)
    out = {"non-private": baseline.fit(X_train, y_train).score(X_test, y_test),
           "majority": float(max(np.mean(y_test == c) for c in classes))}
    for epsilon in EPSILONS:
        scores = [make_private(epsilon, classes, seed).fit(X_train, y_train).score(X_test, y_test)
                  for seed in SEEDS]
        out[epsilon] = (float(np.mean(scores)), float(np.std(scores)))
    return out


def main():
    start = time.time()
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the seed caveat
        warnings.simplefilter("ignore", RepeatedFitWarning)  # a benchmark refits on purpose
        for name, loader in (("breast_cancer", lambda: _dense("breast_cancer")),
                             ("breast_cancer_tight", lambda: _dense("breast_cancer_tight")),
                             ("digits", lambda: _dense("digits")),
                             ("adult_numeric", _adult_numeric)):
            split, bounds = loader()
            results[f"GaussianNB {name}"] = _run(
                lambda e, c, s: GaussianNB(epsilon=e, bounds=bounds, classes=c, random_state=s),
                SkGaussianNB(), split)
        split, sizes = _adult_categorical()
        results["CategoricalNB adult_categorical"] = _run(
            lambda e, c, s: CategoricalNB(epsilon=e, min_categories=sizes, classes=c,
                                          random_state=s),
            SkCategoricalNB(min_categories=sizes), split)
    header = ["estimator, data", "majority", "non-private",
              *[f"epsilon {e}" for e in EPSILONS]]
    rows = [[name, f"{r['majority']:.3f}", f"{r['non-private']:.3f}",
             *[f"{r[e][0]:.3f} +- {r[e][1]:.3f}" for e in EPSILONS]]
            for name, r in results.items()]
    lines = ["# Private naive Bayes: test accuracy (mean +- std over 5 seeds)", "",
             *markdown_table(header, rows), "",
             f"Run time {time.time() - start:.0f} s."]
    payload = {"epsilons": EPSILONS, "seeds": len(SEEDS), "results": {
        name: {str(k): v for k, v in r.items()} for name, r in results.items()},
        "versions": versions("scikit-learn", "numpy")}
    for path in write("naive_bayes", payload, lines):
        print(path)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
