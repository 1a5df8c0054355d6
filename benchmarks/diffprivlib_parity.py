"""Every diffprivlib counterpart against skprivate's, on identical splits and public bounds.

diffprivlib (IBM, 0.6.6) does not import with scikit-learn 1.8 or later, so its side runs in
a separate virtual environment through ``_diffprivlib_parity_worker.py``; point
``DIFFPRIVLIB_PYTHON`` at that environment's Python (made with
``python -m venv dpl && dpl/bin/pip install diffprivlib "scikit-learn<1.8"``). Without it
the script measures skprivate alone and says so. Both sides get the same arrays, the same
declared bounds, ``epsilon`` 0.1 / 0.5 / 1 / 4 and 5 seeds. Each pair, with its measure:

* ``linear_model.DPLSSGDClassifier`` (defaults) / ``models.LogisticRegression``: test
  accuracy on Adult (one-hot categories and numeric columns scaled to [0, 1] by the
  codebook's ranges, ``data_norm=sqrt(13)``) and breast cancer (scaled to [0, 1] by its
  public ranges, ``data_norm=sqrt(30)``).
* ``naive_bayes.GaussianNB`` / ``models.GaussianNB``: test accuracy on breast cancer (each
  feature in ``[0, 10**ceil(log10(max))]``, a range known to an order of magnitude), digits
  (pixels in [0, 16]) and Adult's five numeric columns (codebook ranges); classes public.
* ``decomposition.PCA`` / ``models.PCA``: the test-set variance captured by the top 10
  components (digits, ``bounds=(0, 16)``, ``data_norm=128``) and 5 (breast cancer scaled to
  [0, 1] by its public ranges, ``data_norm=sqrt(30)``), relative to non-private PCA's.
* ``cluster.KMeans`` / ``models.KMeans``: test-set k-means cost relative to scikit-learn's
  ``KMeans(n_init=3)``: 100,000 rows of blobs (k = 10, d = 2, bounds (-15, 15)) and digits
  (k = 10, bounds (0, 16)).
* ``linear_model.LinearRegression`` / ``models.LinearRegression``: test R2 on diabetes
  (``bounds_X=(-0.2, 0.2)``, ``bounds_y=(0, 400)``: the data's documented scaling and the
  target's clinical range).
* ``stats.mean``, ``stats.var``, ``stats.median`` / ``tools.*``: absolute error on Adult's
  ages (32,561 rows, bounds (17, 90)) against the exact value.

The guarantees differ and the table says how: diffprivlib's models are pure epsilon-DP (its
PCA, k-means and naive Bayes divide by the exact number of rows, which they treat as
public); skprivate's naive Bayes and statistics are pure epsilon-DP too, its PCA, k-means
and regression are (epsilon, delta)-DP with ``delta`` 1e-5 (1e-6 for k-means) and a private
row count. Results go to ``results/diffprivlib_parity.{json,md}``.

Run: DIFFPRIVLIB_PYTHON=/path/to/dpl/bin/python nice -n 10 python benchmarks/diffprivlib_parity.py
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans as SkKMeans
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, make_blobs
from sklearn.decomposition import PCA as SkPCA
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from _results import markdown_table, versions, write
from skprivate import stats
from skprivate.cluster import KMeans
from skprivate.datasets import load_adult
from skprivate.datasets._adult_codebook import NUMERIC_BOUNDS
from skprivate.decomposition import PCA
from skprivate.datasets._adult_preprocessing import make_adult_preprocessor
from skprivate.linear_model import DPLSSGDClassifier, LinearRegression
from skprivate.naive_bayes import GaussianNB

EPSILONS = (0.1, 0.5, 1.0, 4.0)
SEEDS = tuple(range(5))
WORKER = pathlib.Path(__file__).resolve().parent / "_diffprivlib_parity_worker.py"


# --- data ------------------------------------------------------------------------------------
def _breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    upper = 10.0 ** np.ceil(np.log10(X.max(axis=0)))
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y), \
        (np.zeros(X.shape[1]), upper)


def _digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y), (0.0, 16.0)


def _adult_numeric():
    train, test = load_adult("train", as_frame=True), load_adult("test", as_frame=True)
    cols = list(NUMERIC_BOUNDS)
    lower, upper = np.array([NUMERIC_BOUNDS[c] for c in cols]).T
    split = (train.data[cols].to_numpy(float), test.data[cols].to_numpy(float),
             train.target.to_numpy(), test.target.to_numpy())
    return split, (lower, upper)


# --- measures ---------------------------------------------------------------------------------
def _captured(components, X_test):
    centred = X_test - X_test.mean(axis=0)
    return float(np.sum((centred @ np.asarray(components).T) ** 2))


def _kmeans_cost(centers, X_test):
    d2 = ((X_test[:, None, :] - np.asarray(centers)[None, :, :]) ** 2).sum(axis=2)
    return float(d2.min(axis=1).sum())


# --- the pairs --------------------------------------------------------------------------------
def _adult_onehot():
    train, test = load_adult("train"), load_adult("test")
    prep = make_adult_preprocessor().fit(train.data)
    dense = [prep.transform(part.data) for part in (train, test)]
    dense = [m.toarray() if hasattr(m, "toarray") else np.asarray(m) for m in dense]
    return dense[0], dense[1], train.target, test.target


def _tasks():
    tasks = []
    (B_tr, B_te, b_tr, b_te), (_, upper) = _breast_cancer()
    for name, (A_tr, A_te, y_tr, y_te), norm in (
        ("Adult one-hot", _adult_onehot(), float(np.sqrt(13))),
        ("breast cancer (public scaling)",
         (np.clip(B_tr / upper, 0, 1), np.clip(B_te / upper, 0, 1), b_tr, b_te),
         float(np.sqrt(30))),
    ):
        tasks.append(dict(
            pair="DPLSSGDClassifier / LogisticRegression", data=name, measure="accuracy",
            ours=lambda e, s, A_tr=A_tr, y_tr=y_tr, A_te=A_te:
                DPLSSGDClassifier(epsilon=e, random_state=s).fit(A_tr, y_tr).predict(A_te),
            theirs=("models.LogisticRegression", {"data_norm": norm}, "predict"),
            arrays=(A_tr, y_tr, A_te),
            score=lambda out, y_te=y_te: float(np.mean(out == y_te)),
        ))
    for name, loader in (("breast cancer", _breast_cancer), ("digits", _digits),
                         ("Adult numeric", _adult_numeric)):
        (X_tr, X_te, y_tr, y_te), bounds = loader()
        classes = np.unique(y_tr)
        tasks.append(dict(
            pair="GaussianNB", data=name, measure="accuracy",
            ours=lambda e, s, X_tr=X_tr, y_tr=y_tr, X_te=X_te, b=bounds, c=classes:
                GaussianNB(epsilon=e, bounds=b, classes=c, random_state=s).fit(X_tr, y_tr)
                .predict(X_te),
            theirs=("models.GaussianNB", {"bounds": [np.broadcast_to(v, X_tr.shape[1]).tolist()
                                                     for v in bounds]}, "predict"),
            arrays=(X_tr, y_tr, X_te),
            score=lambda out, y_te=y_te: float(np.mean(out == y_te)),
        ))
    (X_tr, X_te, _, _), _ = _digits()
    (B_tr, B_te, _, _), (_, upper) = _breast_cancer()
    B_tr, B_te = np.clip(B_tr / upper, 0, 1), np.clip(B_te / upper, 0, 1)
    for name, A_tr, A_te, k, bounds, norm in (
        ("digits", X_tr, X_te, 10, (0.0, 16.0), 128.0),
        ("breast cancer (public scaling)", B_tr, B_te, 5, (0.0, 1.0), float(np.sqrt(30))),
    ):
        reference = _captured(SkPCA(k).fit(A_tr).components_, A_te)
        tasks.append(dict(
            pair="PCA", data=name, measure="captured variance / non-private",
            ours=lambda e, s, A_tr=A_tr, k=k, b=bounds:
                PCA(k, epsilon=e, bounds=b, random_state=s).fit(A_tr).components_,
            theirs=("models.PCA", {"n_components": k, "data_norm": norm,
                                   "bounds": list(bounds)}, "components"),
            arrays=(A_tr, np.zeros(len(A_tr)), A_te),
            score=lambda out, A_te=A_te, ref=reference: _captured(out, A_te) / ref,
        ))
    blobs, _ = make_blobs(125_000, n_features=2, centers=10, center_box=(-10, 10),
                          random_state=0)
    blobs = np.clip(blobs, -15, 15)
    for name, A_tr, A_te, bounds in (
        ("blobs 100k, d=2", blobs[:100_000], blobs[100_000:], (-15.0, 15.0)),
        ("digits", X_tr, X_te, (0.0, 16.0)),
    ):
        reference = _kmeans_cost(SkKMeans(10, n_init=3, random_state=0).fit(A_tr)
                                 .cluster_centers_, A_te)
        d = A_tr.shape[1]
        tasks.append(dict(
            pair="KMeans", data=name, measure="test cost / non-private (lower is better)",
            ours=lambda e, s, A_tr=A_tr, b=bounds:
                KMeans(10, epsilon=e, bounds=b, random_state=s).fit(A_tr).cluster_centers_,
            theirs=("models.KMeans", {"n_clusters": 10, "bounds": [[bounds[0]] * d,
                                                                   [bounds[1]] * d]},
                    "centers"),
            arrays=(A_tr, np.zeros(len(A_tr)), A_te),
            score=lambda out, A_te=A_te, ref=reference: _kmeans_cost(out, A_te) / ref,
        ))
    X, y = load_diabetes(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    tasks.append(dict(
        pair="LinearRegression", data="diabetes", measure="R2",
        ours=lambda e, s: LinearRegression(epsilon=e, bounds_X=(-0.2, 0.2),
                                           bounds_y=(0.0, 400.0), random_state=s)
            .fit(X_tr, y_tr).predict(X_te),
        theirs=("models.LinearRegression", {"bounds_X": [-0.2, 0.2], "bounds_y": [0.0, 400.0]},
                "predict"),
        arrays=(X_tr, y_tr, X_te),
        score=lambda out: float(r2_score(y_te, out)),
    ))
    ages = load_adult("train", as_frame=True).data["age"].to_numpy(float)
    for func in ("mean", "var", "median"):
        exact = float(getattr(np, func)(ages))
        tasks.append(dict(
            pair=f"stats.{func}", data="Adult ages", measure="absolute error (lower is better)",
            ours=lambda e, s, f=func: float(getattr(stats, f)(ages, bounds=(17, 90), epsilon=e,
                                                             random_state=s).value),
            theirs=(f"tools.{func}", {"bounds": [17, 90]}, "value"),
            arrays=(ages, np.zeros(1), np.zeros(1)),
            score=lambda out, exact=exact: abs(float(out) - exact),
        ))
    return tasks


def _run_theirs(python, task):
    model, params, output = task["theirs"]
    X_tr, y_tr, X_te = task["arrays"]
    spec = {"model": model, "params": params, "epsilons": list(EPSILONS),
            "seeds": list(SEEDS), "output": output}
    with tempfile.TemporaryDirectory() as tmp:
        task_path, result_path = os.path.join(tmp, "task.npz"), os.path.join(tmp, "out.npz")
        np.savez(task_path, X_train=X_tr, y_train=y_tr, X_test=X_te, spec=json.dumps(spec))
        subprocess.run([python, str(WORKER), task_path, result_path], check=True)
        out = np.load(result_path)
        scores, errors = [], set()
        for i in range(len(EPSILONS)):
            row = []
            for j in range(len(SEEDS)):
                value = out[f"out_{i}_{j}"]
                if value.dtype.kind == "U":  # the worker's record of a failed fit
                    errors.add(str(value)[:160])
                    row.append(float("nan"))
                else:
                    row.append(task["score"](value))
            scores.append(row)
        return scores, sorted(errors)


def main():
    python = os.environ.get("DIFFPRIVLIB_PYTHON")
    results, rows = [], []
    for task in _tasks():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fixed seeds, repeated fits: a benchmark's own
            ours = [[task["score"](task["ours"](e, s)) for s in SEEDS] for e in EPSILONS]
        ours_time = time.perf_counter() - start
        theirs, errors = _run_theirs(python, task) if python else (None, [])
        results.append({"pair": task["pair"], "data": task["data"], "measure": task["measure"],
                        "epsilons": EPSILONS, "skprivate": ours, "diffprivlib": theirs,
                        "skprivate_seconds": ours_time, "diffprivlib_errors": errors})
        lower_better = "lower is better" in task["measure"]
        for i, e in enumerate(EPSILONS):
            a = np.asarray(ours[i])
            cell_b, verdict = "not run", ""
            if theirs is not None and np.isnan(theirs[i]).any():
                cell_b = f"failed {int(np.isnan(theirs[i]).sum())}/{len(SEEDS)} fits"
                verdict = "better (diffprivlib fails)"
            elif theirs is not None:
                b = np.asarray(theirs[i])
                cell_b = f"{b.mean():.3f} ± {b.std():.3f}"
                gap = (b.mean() - a.mean()) if lower_better else (a.mean() - b.mean())
                spread = max(a.std(), b.std())
                verdict = ("better" if gap > spread else "worse" if gap < -spread
                           else "within spread")
            rows.append([task["pair"], task["data"], task["measure"], f"{e:g}",
                         f"{a.mean():.3f} ± {a.std():.3f}", cell_b, verdict])
        print(rows[-1], flush=True)
    header = ["pair", "data", "measure", "epsilon", "skprivate", "diffprivlib",
              "skprivate is"]
    lines = ["# skprivate against diffprivlib, pair by pair", "",
             f"{len(SEEDS)} seeds, mean ± standard deviation; \"better\"/\"worse\": the gap "
             "exceeds the larger of the two spreads. diffprivlib "
             + ("ran in " + python if python else "was not run (set DIFFPRIVLIB_PYTHON)") + ".",
             ""] + markdown_table(header, rows)
    failures = [f"- {r['pair']} on {r['data']}: {e}" for r in results
                for e in r["diffprivlib_errors"]]
    if failures:
        lines += ["", "diffprivlib's failed fits:", ""] + failures
    if python:
        found = subprocess.run(
            [python, "-c", "import diffprivlib, sklearn; print(diffprivlib.__version__, "
             "sklearn.__version__)"], capture_output=True, text=True).stdout.split()
        lines += ["", f"diffprivlib {found[0]} with scikit-learn {found[1]}."]
    write("diffprivlib_parity", {"versions": versions("scikit-learn", "numpy"),
                                 "results": results}, lines)


if __name__ == "__main__":
    sys.exit(main())
