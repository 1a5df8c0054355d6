"""diffprivlib's counterparts of skprivate's estimators, on arrays prepared by ``diffprivlib_parity.py``.

Not a benchmark of its own: run without arguments (as ``run_all.py`` runs every script in
this folder) it says so and exits successfully. diffprivlib imports private scikit-learn
modules that scikit-learn 1.8 removed, so it runs in a separate virtual environment
(diffprivlib and ``scikit-learn<1.8``); ``diffprivlib_parity.py`` calls

    python _diffprivlib_parity_worker.py TASK.npz RESULT.npz

``TASK.npz`` holds the arrays (``X_train``, ``y_train``, ``X_test``) and ``spec``, a JSON
string: ``{"model": NAME, "params": {...}, "epsilons": [...], "seeds": [...], "output":
"predict" | "transform" | "centers" | "components" | "value"}``. For each epsilon and seed
the worker fits diffprivlib's ``NAME`` (``models.GaussianNB``, ``models.KMeans``,
``models.PCA``, ``models.LinearRegression``, or ``tools.mean`` / ``tools.var`` /
``tools.median``) with ``epsilon=...`` and ``random_state=seed`` and stores what ``output``
names, as ``out_<i>_<j>`` (epsilon index, seed index); the parent scores it.
"""

import json
import sys
import warnings

import numpy as np


def _bounds(params):
    # JSON has no tuples; diffprivlib takes bounds only as a (min, max) tuple.
    out = dict(params)
    for key in ("bounds", "bounds_X", "bounds_y"):
        if key in out:
            out[key] = tuple(np.asarray(v, dtype=float) if isinstance(v, list) else v
                             for v in out[key])
    return out


def _fit_one(name, params, epsilon, seed, data, output):
    import diffprivlib

    params = _bounds(params)

    if name.startswith("tools."):
        func = getattr(diffprivlib.tools, name.split(".", 1)[1])
        return np.asarray(func(data["X_train"], epsilon=epsilon, random_state=seed, **params))
    model = getattr(diffprivlib.models, name.split(".", 1)[1])(
        epsilon=epsilon, random_state=seed, **params
    )
    if output == "centers" or output == "components" or output == "transform":
        model.fit(data["X_train"])
    else:
        model.fit(data["X_train"], data["y_train"])
    if output == "predict":
        return np.asarray(model.predict(data["X_test"]))
    if output == "transform":
        return np.asarray(model.transform(data["X_test"]))
    if output == "centers":
        return np.asarray(model.cluster_centers_)
    if output == "components":
        return np.asarray(model.components_)
    raise ValueError(f"unknown output {output!r}")


def main(task_path, result_path):
    data = np.load(task_path)
    spec = json.loads(str(data["spec"]))
    outputs = {}
    for i, epsilon in enumerate(spec["epsilons"]):
        for j, seed in enumerate(spec["seeds"]):
            with warnings.catch_warnings():
                # diffprivlib warns about a fixed random_state: the seed of a benchmark.
                warnings.simplefilter("ignore")
                try:
                    outputs[f"out_{i}_{j}"] = _fit_one(
                        spec["model"], spec.get("params", {}), float(epsilon), int(seed),
                        data, spec["output"],
                    )
                except Exception as error:  # noqa: BLE001 - reported, not hidden
                    # diffprivlib's own failure (its median overflows on large tables):
                    # recorded as such, scored as a failure by the parent.
                    outputs[f"out_{i}_{j}"] = np.array(f"error: {type(error).__name__}: {error}")
    np.savez(result_path, **outputs)


if __name__ == "__main__":
    if len(sys.argv) == 1:
        print("helper of diffprivlib_parity.py (run that script instead); nothing to do")
    elif len(sys.argv) == 3:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit("usage: python _diffprivlib_parity_worker.py TASK.npz RESULT.npz")
