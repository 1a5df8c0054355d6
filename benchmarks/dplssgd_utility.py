"""Test accuracy of DP-LSSGD against DP-SGD, Opacus, diffprivlib and a non-private model.

Run with ``python benchmarks/dplssgd_utility.py`` (about 10 minutes on 2 cores, most of it
Opacus on Adult), or ``python benchmarks/dplssgd_utility.py --quick`` for a smoke run (one
seed, two epsilons). Every method sees the same preprocessed arrays:

* **digits** (scikit-learn's 8x8 images): the 64 pixels in their natural row-major order,
  scaled by their public bound 16 and centred by the public constant 0.5, so every feature
  lies in [-0.5, 0.5] and every row has norm at most 4. A stratified 75/25 split, fixed
  per seed (1347 training rows).
* **Adult** (``load_adult`` train and test): ``make_adult_preprocessor()``, the
  data-independent one-hot encoding and fixed-range scaling; 104 columns, at most 8
  one-hot ones and 5 values in [0, 1] per row, so every row has norm at most sqrt(13).

For each epsilon in ``EPSILONS`` (delta = 1e-5) and each seed the script fits

* ``DPLSSGDClassifier`` with its defaults (only ``epsilon``, ``delta`` and
  ``random_state`` set);
* the same with ``smoothing=0``: plain DP-SGD, same noise, batches and steps;
* the defaults with ``learning_rate=3`` ("LSSGD lr=3"): not a default, but the step size
  that validation splits of the training rows favoured for ``smoothing=1`` with the
  log-loss (the defaults study in ``docs/user_guide/dp_lssgd.rst``), shown for scale;
* Opacus DP-SGD on the same logistic model (``torch.nn.Linear``; one output for two
  classes, one per class with a softmax for more): ``PrivacyEngine.make_private`` with
  Poisson sampling, flat clipping of the whole per-example gradient to 1, zero
  initialisation, the same epochs and steps per epoch, and the noise multiplier that
  skprivate's RDP calibration (``dpsgd_noise_multiplier``) gives for Opacus's own sampling
  rate and number of steps, so both spend the same epsilon under the same accountant.
  Opacus samples at rate 1 / len(loader), so its expected batch is n_samples divided by
  the steps per epoch: 269.4 rather than 256 on digits, 256.4 on Adult. Its
  learning rate is chosen per epsilon from ``OPACUS_LEARNING_RATES`` by mean *test*
  accuracy: an advantage that no privacy budget pays for, which DP-LSSGD does not get;
* diffprivlib's ``LogisticRegression`` (pure epsilon-DP by objective perturbation), with
  ``data_norm`` the public row-norm bound above. diffprivlib does not import beside
  scikit-learn >= 1.8, so it runs in a virtual environment of its own with an older
  scikit-learn, created on first use in ``~/.cache/skprivate-benchmarks/diffprivlib-venv``
  (``python -m venv`` and ``pip install diffprivlib "scikit-learn<1.8"``; set
  ``SKPRIVATE_DIFFPRIVLIB_PYTHON`` to the interpreter of an existing one instead). The
  arrays travel through a temporary ``.npz`` file to ``_diffprivlib_worker.py``, run in a
  subprocess. Where that environment cannot be built the row says why and the rest runs;
* scikit-learn's non-private ``LogisticRegression``.

The last lines check the targets of issue 4: on digits at epsilon <= 1 the defaults beat
``smoothing=0`` and Opacus by at least 2 points; on Adult they are within 0.5 points of
Opacus and above diffprivlib at every epsilon.

Writes ``benchmarks/results/dplssgd_utility.json`` (every accuracy, per epsilon and seed) and
``.md`` (the tables printed), with ``--quick`` too: the JSON then says ``"quick": true``.
"""

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from skprivate.accounting import dpsgd_noise_multiplier
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier

EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0)
QUICK_EPSILONS = (0.5, 2.0)
DELTA = 1e-5
SEEDS = tuple(range(5))
OPACUS_LEARNING_RATES = (0.1, 0.3, 1.0, 3.0)
VALIDATED_LEARNING_RATE = 3.0
DIGITS_CENTRE = 0.5  # a public constant: the middle of the pixel range [0, 1] after / 16

HERE = pathlib.Path(__file__).resolve().parent
WORKER = HERE / "_diffprivlib_worker.py"
DIFFPRIVLIB_VENV = pathlib.Path.home() / ".cache" / "skprivate-benchmarks" / "diffprivlib-venv"


# --- data: one preprocessing shared by every method ----------------------------------------


def digits_splits(seeds):
    """One ``(X_train, y_train, X_test, y_test)`` per seed, and the public row-norm bound."""
    X, y = load_digits(return_X_y=True)
    # Pixels are 4-bit counts in [0, 16]: dividing by 16 and subtracting 0.5 uses public
    # constants only, so the preprocessing reads nothing from the private rows.
    X = X / 16.0 - DIGITS_CENTRE
    splits = [
        tuple(train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed))
        for seed in seeds
    ]
    splits = [(X_tr, y_tr, X_te, y_te) for X_tr, X_te, y_tr, y_te in splits]
    data_norm = math.sqrt(X.shape[1]) * max(DIGITS_CENTRE, 1.0 - DIGITS_CENTRE)
    return splits, data_norm


def adult_split(seeds):
    """The Adult train/test split (the same for every seed) and the public row-norm bound."""
    X_train, y_train = load_adult(subset="train", return_X_y=True)
    X_test, y_test = load_adult(subset="test", return_X_y=True)
    # Fitting the data-independent preprocessor learns only the codebook's category lists.
    preprocessor = make_adult_preprocessor().fit(X_train)
    split = (
        preprocessor.transform(X_train),
        np.asarray(y_train),
        preprocessor.transform(X_test),
        np.asarray(y_test),
    )
    # 8 categorical features, each one-hot encoded into at most one 1, and 5 numeric
    # features scaled into [0, 1]: a bound from the encoding, not from the rows.
    data_norm = math.sqrt(8 + 5)
    return [split] * len(seeds), data_norm


# --- the methods: each returns test accuracy, shape (n_epsilons, n_seeds) -------------------


def dplssgd_accuracy(splits, epsilons, seeds, **params):
    accuracy = np.empty((len(epsilons), len(seeds)))
    for i, epsilon in enumerate(epsilons):
        for j, (seed, (X_tr, y_tr, X_te, y_te)) in enumerate(zip(seeds, splits)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyLeakWarning)  # a benchmark's fixed seed
                model = DPLSSGDClassifier(
                    epsilon=epsilon, delta=DELTA, random_state=seed, **params
                ).fit(X_tr, y_tr)
            accuracy[i, j] = model.score(X_te, y_te)
    return accuracy


def _opacus_fit_score(X_tr, y_tr, X_te, y_te, epsilon, seed, learning_rate, plan):
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(seed)
    classes = np.unique(y_tr)
    binary = len(classes) == 2
    y_index = np.searchsorted(classes, y_tr)
    X_t = torch.as_tensor(X_tr, dtype=torch.float32)
    y_t = torch.as_tensor(y_index, dtype=torch.float32 if binary else torch.long)
    model = torch.nn.Linear(X_tr.shape[1], 1 if binary else len(classes))
    torch.nn.init.zeros_(model.weight)  # DP-LSSGD starts from zero too
    torch.nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    loader = DataLoader(TensorDataset(X_t, y_t), batch_size=plan["loader_batch_size"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # secure_mode and full-backward-hook notices
        model, optimizer, loader = PrivacyEngine(accountant="rdp").make_private(
            module=model,
            optimizer=optimizer,
            data_loader=loader,
            noise_multiplier=plan["noise_multiplier"][epsilon],
            max_grad_norm=1.0,
            poisson_sampling=True,
        )
    criterion = torch.nn.BCEWithLogitsLoss() if binary else torch.nn.CrossEntropyLoss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(plan["epochs"]):
            # The Poisson batches of Opacus's sampler, gathered by indexing the tensors: the
            # same batches its DataLoader yields, without fetching rows one at a time.
            for idx in loader.batch_sampler:
                optimizer.zero_grad()
                if len(idx):
                    output = model(X_t[idx])
                    loss = criterion(output.squeeze(1) if binary else output, y_t[idx])
                    loss.backward()
                optimizer.step()
    with torch.no_grad():
        scores = model(torch.as_tensor(X_te, dtype=torch.float32)).numpy()
    predicted = classes[(scores[:, 0] > 0).astype(int)] if binary else classes[scores.argmax(1)]
    return float(np.mean(predicted == y_te))


def opacus_plan(n_samples, epsilons, epochs, batch_size):
    """Opacus's sampling rate, steps and the noise multipliers that meet each epsilon."""
    # DP-LSSGD takes round(n / batch_size) steps an epoch; a DataLoader of this batch size
    # has that many batches, and Opacus samples at rate 1 / len(loader).
    steps_per_epoch = max(1, int(n_samples / batch_size + 0.5))
    loader_batch_size = math.ceil(n_samples / steps_per_epoch)
    n_batches = math.ceil(n_samples / loader_batch_size)
    sample_rate = 1.0 / n_batches
    return {
        "loader_batch_size": loader_batch_size,
        "sample_rate": sample_rate,
        "expected_batch_size": sample_rate * n_samples,
        "epochs": epochs,
        "steps": epochs * n_batches,
        "noise_multiplier": {
            epsilon: dpsgd_noise_multiplier(
                epsilon, sample_rate, epochs * n_batches, DELTA, accountant="rdp"
            )
            for epsilon in epsilons
        },
    }


def opacus_accuracy(splits, epsilons, seeds, epochs, batch_size, learning_rates):
    """Accuracy for every learning rate of the grid, shape (n_rates, n_epsilons, n_seeds)."""
    import torch

    threads = torch.get_num_threads()
    # One thread is Opacus's fastest setting for so small a model on a busy 2-core machine.
    torch.set_num_threads(1)
    try:
        plan = opacus_plan(len(splits[0][0]), epsilons, epochs, batch_size)
        accuracy = np.empty((len(learning_rates), len(epsilons), len(seeds)))
        for k, lr in enumerate(learning_rates):
            for i, epsilon in enumerate(epsilons):
                for j, (seed, split) in enumerate(zip(seeds, splits)):
                    accuracy[k, i, j] = _opacus_fit_score(*split, epsilon, seed, lr, plan)
    finally:
        torch.set_num_threads(threads)
    return accuracy, plan


def _diffprivlib_python():
    """The interpreter of an environment with diffprivlib, built on first use; or a reason."""
    given = os.environ.get("SKPRIVATE_DIFFPRIVLIB_PYTHON")
    python = pathlib.Path(given) if given else DIFFPRIVLIB_VENV / "bin" / "python"
    check = [str(python), "-c", "import diffprivlib"]
    if python.exists() and subprocess.run(check, check=False, capture_output=True).returncode == 0:
        return python, None
    if given:
        return None, f"SKPRIVATE_DIFFPRIVLIB_PYTHON={given} cannot import diffprivlib"
    print(f"building the diffprivlib environment in {DIFFPRIVLIB_VENV} ...", flush=True)
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", "--clear", str(DIFFPRIVLIB_VENV)],
            check=True, capture_output=True, timeout=300,
        )
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "diffprivlib",
             "scikit-learn<1.8"],
            check=True, capture_output=True, timeout=900,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        stderr = getattr(exc, "stderr", None) or b""
        last = stderr.decode(errors="replace").strip().splitlines()[-1:] or [str(exc)]
        return None, f"could not build its environment: {last[0]}"
    if subprocess.run(check, check=False, capture_output=True).returncode != 0:
        return None, "diffprivlib does not import in the environment built for it"
    return python, None


def diffprivlib_accuracy(python, splits, epsilons, seeds, data_norm):
    accuracy = np.empty((len(epsilons), len(seeds)))
    # Splits shared by every seed go in one file; seed-dependent splits one file per seed.
    groups = [(list(seeds), splits[0])] if all(s is splits[0] for s in splits) else [
        ([seed], split) for seed, split in zip(seeds, splits)
    ]
    column = 0
    with tempfile.TemporaryDirectory() as tmp:
        for group_seeds, (X_tr, y_tr, X_te, y_te) in groups:
            arrays = pathlib.Path(tmp) / "arrays.npz"
            result = pathlib.Path(tmp) / "result.json"
            np.savez(
                arrays, X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te,
                epsilons=np.asarray(epsilons), seeds=np.asarray(group_seeds),
                data_norm=np.asarray(data_norm),
            )
            subprocess.run(
                [str(python), str(WORKER), str(arrays), str(result)],
                check=True, capture_output=True, timeout=900,
            )
            values = np.asarray(json.loads(result.read_text())["accuracy"])
            accuracy[:, column : column + len(group_seeds)] = values
            column += len(group_seeds)
    return accuracy


def nonprivate_accuracy(splits, n_epsilons):
    scores = [
        LogisticRegression(max_iter=5000).fit(X_tr, y_tr).score(X_te, y_te)
        for X_tr, y_tr, X_te, y_te in splits
    ]
    return np.tile(scores, (n_epsilons, 1))


# --- reporting ------------------------------------------------------------------------------


def _cell(values):
    return f"{100 * values.mean():5.1f} ± {100 * values.std():3.1f}"


def print_table(name, epsilons, results, opacus_lr):
    """Accuracy in percent (mean ± std over seeds) and the defaults' lead in points."""
    methods = list(results)
    print(f"\n{name}: test accuracy in % (mean ± std over seeds)")
    header = f"{'epsilon':>8} " + " ".join(f"{m:>14}" for m in methods)
    print(header)
    print("-" * len(header))
    for i, epsilon in enumerate(epsilons):
        cells = []
        for m in methods:
            values = results[m]
            cells.append(f"{'n/a':>14}" if values is None else f"{_cell(values[i]):>14}")
        print(f"{epsilon:>8g} " + " ".join(cells))
    if opacus_lr is not None:
        print("Opacus learning rate chosen on the test data: " + ", ".join(
            f"eps {e:g}: {lr:g}" for e, lr in zip(epsilons, opacus_lr)
        ))
    ours = results["DP-LSSGD"].mean(axis=1)
    peers = [m for m in methods if m != "DP-LSSGD" and results[m] is not None]
    n_seeds = next(v for v in results.values() if v is not None).shape[1]
    print(
        "(± is the spread over seeds; the standard error of a mean is ± / "
        f"{math.sqrt(n_seeds):.1f}. Opacus's entry is the best of several learning rates on "
        "these same test rows, so the choice biases it upwards as well.)"
    )
    print(f"\n{name}: DP-LSSGD (defaults) minus each peer, in points of accuracy")
    print(f"{'epsilon':>8} " + " ".join(f"{m:>14}" for m in peers))
    for i, epsilon in enumerate(epsilons):
        print(f"{epsilon:>8g} " + " ".join(
            f"{100 * (ours[i] - results[m][i].mean()):>+14.1f}" for m in peers
        ))


def run_dataset(name, splits, data_norm, epsilons, seeds, dpl_python, dpl_reason):
    start = time.perf_counter()
    n_train, n_features = splits[0][0].shape
    defaults = DPLSSGDClassifier()
    epochs = defaults.max_iter
    batch_size = min(256, n_train) if defaults.batch_size == "auto" else defaults.batch_size
    print(
        f"\n=== {name}: {n_train} training rows, {len(splits[0][2])} test rows, "
        f"{n_features} features; row norm <= {data_norm:.3g} (public bound); "
        f"{len(seeds)} seed(s) ===",
        flush=True,
    )
    results = {}
    results["DP-LSSGD"] = dplssgd_accuracy(splits, epsilons, seeds)
    results["smoothing=0"] = dplssgd_accuracy(splits, epsilons, seeds, smoothing=0.0)
    # Not a default: the learning rate that validation splits of the training rows favoured
    # for smoothing=1 and the log-loss (see docs/user_guide/dp_lssgd.rst), shown for scale.
    results["LSSGD lr=3"] = dplssgd_accuracy(
        splits, epsilons, seeds, learning_rate=VALIDATED_LEARNING_RATE
    )
    info = {
        "n_train": n_train, "n_test": len(splits[0][2]), "n_features": n_features,
        "data_norm": data_norm, "unavailable": {},
    }
    opacus_lr = None
    try:
        grid, plan = opacus_accuracy(
            splits, epsilons, seeds, epochs, batch_size, OPACUS_LEARNING_RATES
        )
    except ImportError as exc:
        print(f"Opacus: unavailable ({exc})")
        results["Opacus"] = None
        info["unavailable"]["Opacus"] = str(exc)
    else:
        best = grid.mean(axis=2).argmax(axis=0)  # per epsilon, by mean test accuracy
        results["Opacus"] = grid[best, np.arange(len(epsilons))]
        opacus_lr = [OPACUS_LEARNING_RATES[k] for k in best]
        info["opacus"] = {
            "sample_rate": plan["sample_rate"],
            "expected_batch_size": plan["expected_batch_size"],
            "epochs": plan["epochs"],
            "steps": plan["steps"],
            "noise_multipliers": list(plan["noise_multiplier"].values()),
            "learning_rate_grid": list(OPACUS_LEARNING_RATES),
            "learning_rates_chosen_on_test": opacus_lr,
            # every learning rate's accuracy, to see what the choice on the test rows adds
            "accuracy_by_learning_rate": {f"{lr:g}": grid[k] for k, lr in
                                          enumerate(OPACUS_LEARNING_RATES)},
        }
        print(
            f"Opacus: sample rate {plan['sample_rate']:.4g} (expected batch "
            f"{plan['expected_batch_size']:.1f}), {plan['steps']} steps, noise multipliers "
            + ", ".join(f"{z:.3f}" for z in plan["noise_multiplier"].values())
        )
    if dpl_python is None:
        print(f"diffprivlib: unavailable ({dpl_reason})")
        results["diffprivlib"] = None
        info["unavailable"]["diffprivlib"] = dpl_reason
    else:
        try:
            results["diffprivlib"] = diffprivlib_accuracy(
                dpl_python, splits, epsilons, seeds, data_norm
            )
        except (OSError, subprocess.SubprocessError) as exc:
            stderr = getattr(exc, "stderr", None) or b""
            last = stderr.decode(errors="replace").strip().splitlines()[-1:] or [str(exc)]
            print(f"diffprivlib: unavailable (its worker failed: {last[0]})")
            results["diffprivlib"] = None
            info["unavailable"]["diffprivlib"] = f"its worker failed: {last[0]}"
    results["non-private"] = nonprivate_accuracy(splits, len(epsilons))
    print_table(name, epsilons, results, opacus_lr)
    info["seconds"] = time.perf_counter() - start
    print(f"({info['seconds']:.0f} s)")
    return results, info


def check_targets(epsilons, digits, adult):
    """Print the issue 4 checks; return them as records (``met`` None: peer unavailable)."""
    print("\nIssue 4 targets (points of mean test accuracy):")
    checks = []

    def check(name, results, peer, i, threshold, strict=False):
        """One check: the defaults' lead over ``peer``, in points, >= (> if strict) threshold."""
        epsilon = epsilons[i]
        need = f"> {threshold:g}" if strict else f">= {threshold:+.1f}"
        record = {"dataset": name, "epsilon": epsilon, "peer": peer, "need": need,
                  "lead": None, "met": None}
        checks.append(record)
        if results[peer] is None:
            print(f"  [n/a] {name}, epsilon {epsilon:g}: {peer} unavailable")
            return
        lead = 100 * (results["DP-LSSGD"][i].mean() - results[peer][i].mean())
        record["lead"] = lead
        record["met"] = bool(lead > threshold if strict else lead >= threshold)
        print(f"  [{'met' if record['met'] else 'NOT met'}] {name}, epsilon {epsilon:g}: "
              f"defaults {lead:+.1f} vs {peer} (need {need})")

    for i, epsilon in enumerate(epsilons):
        if epsilon > 1:
            continue
        for peer in ("smoothing=0", "Opacus"):
            check("digits", digits, peer, i, 2.0)
    for i in range(len(epsilons)):
        check("Adult", adult, "Opacus", i, -0.5)
        check("Adult", adult, "diffprivlib", i, 0.0, strict=True)
    met_all = all(c["met"] is not False for c in checks)
    print(f"  => {'all targets met' if met_all else 'some targets NOT met'}")
    print(
        "  Opacus's learning rate was picked per epsilon on the test data from "
        f"{list(OPACUS_LEARNING_RATES)}: an advantage that no privacy budget pays for."
    )
    return checks


def _diffprivlib_version(python):
    """diffprivlib's version in the environment that runs it, or None."""
    if python is None:
        return None
    done = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('diffprivlib'))"],
        check=False, capture_output=True, text=True,
    )
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def dataset_record(results, info):
    """One data set for the JSON: each method's accuracy (epsilon x seed) and the leads."""
    methods = {
        method: None if values is None else {
            "accuracy": values, "mean": values.mean(axis=1), "std": values.std(axis=1)
        }
        for method, values in results.items()
    }
    ours = results["DP-LSSGD"].mean(axis=1)
    leads = {method: 100 * (ours - values.mean(axis=1)) for method, values in results.items()
             if method != "DP-LSSGD" and values is not None}
    return {**info, "methods": methods, "lead_points": leads}


def _dataset_markdown(name, epsilons, record):
    """The tables ``print_table`` prints for one data set, in Markdown."""
    lines = [
        f"## {name}: {record['n_train']} training rows, {record['n_test']} test rows, "
        f"{record['n_features']} features; row norm <= {record['data_norm']:.3g} (public "
        f"bound); {record['seconds']:.0f} s",
        "",
    ]
    opacus = record.get("opacus")
    if opacus is not None:
        lines += [
            f"Opacus: sample rate {opacus['sample_rate']:.4g} (expected batch "
            f"{opacus['expected_batch_size']:.1f}), {opacus['steps']} steps, noise "
            "multipliers " + ", ".join(f"{z:.3f}" for z in opacus["noise_multipliers"]) + ".",
            "",
        ]
    for peer, reason in record["unavailable"].items():
        lines += [f"{peer}: unavailable ({reason}).", ""]
    methods = record["methods"]
    lines += [f"{name}: test accuracy in % (mean ± std over seeds)", ""]
    lines += markdown_table(
        ["epsilon", *methods],
        [[f"{epsilon:g}", *("n/a" if m is None else
                            f"{100 * m['mean'][i]:.1f} ± {100 * m['std'][i]:.1f}"
                            for m in methods.values())]
         for i, epsilon in enumerate(epsilons)],
    )
    if opacus is not None:
        chosen = zip(epsilons, opacus["learning_rates_chosen_on_test"])
        lines += ["", "Opacus learning rate chosen on the test data: "
                  + ", ".join(f"eps {e:g}: {lr:g}" for e, lr in chosen) + "."]
    leads = record["lead_points"]
    lines += ["", f"{name}: DP-LSSGD (defaults) minus each peer, in points of accuracy", ""]
    lines += markdown_table(
        ["epsilon", *leads],
        [[f"{epsilon:g}", *(f"{lead[i]:+.1f}" for lead in leads.values())]
         for i, epsilon in enumerate(epsilons)],
    )
    return lines + [""]


def _markdown(settings, datasets, checks):
    epsilons = settings["epsilons"]
    n_seeds = len(settings["seeds"])
    lines = [
        "# DP-LSSGD test accuracy against its peers (benchmarks/dplssgd_utility.py"
        + (" --quick)" if settings["quick"] else ")"),
        "",
        "DPLSSGDClassifier defaults: " + ", ".join(
            f"{k}={v!r}" for k, v in settings["dplssgd_defaults"].items()) + ".",
        f"delta = {settings['delta']:g}; epsilons {list(epsilons)}; seeds "
        f"{list(settings['seeds'])}. ± is the spread over seeds; the standard error of a mean "
        f"is ± / {math.sqrt(n_seeds):.1f}. Opacus's entry is the best of the learning rates "
        f"{list(OPACUS_LEARNING_RATES)} on these same test rows, an advantage that no privacy "
        "budget pays for.",
        "",
    ]
    for name, record in datasets.items():
        lines += _dataset_markdown(name, epsilons, record)
    lines += ["## Issue 4 targets (points of mean test accuracy)", ""]
    lines += markdown_table(
        ["data", "epsilon", "defaults vs", "lead", "need", "met"],
        [[c["dataset"], f"{c['epsilon']:g}", c["peer"],
          "n/a" if c["lead"] is None else f"{c['lead']:+.1f}", c["need"],
          {True: "met", False: "NOT met", None: "n/a"}[c["met"]]] for c in checks],
    )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true",
        help=f"one seed and epsilons {QUICK_EPSILONS} (a smoke run)",
    )
    parser.add_argument(
        "--seeds", type=int, default=None, metavar="N",
        help=f"number of seeds (default {len(SEEDS)}; 1 with --quick)",
    )
    args = parser.parse_args(argv)
    epsilons = QUICK_EPSILONS if args.quick else EPSILONS
    n_seeds = args.seeds if args.seeds is not None else (1 if args.quick else len(SEEDS))
    seeds = tuple(range(n_seeds))
    defaults = DPLSSGDClassifier().get_params()
    shown = ("smoothing", "smoothing_order", "batch_size", "max_iter", "learning_rate",
             "max_grad_norm", "average")
    print("DPLSSGDClassifier defaults: " + ", ".join(f"{k}={defaults[k]!r}" for k in shown))
    print(f"delta = {DELTA:g}; epsilons {list(epsilons)}; seeds {list(seeds)}")
    dpl_python, dpl_reason = _diffprivlib_python()
    start = time.perf_counter()
    digits, digits_info = run_dataset("digits", *digits_splits(seeds), epsilons, seeds,
                                      dpl_python, dpl_reason)
    adult, adult_info = run_dataset("Adult", *adult_split(seeds), epsilons, seeds,
                                    dpl_python, dpl_reason)
    checks = check_targets(epsilons, digits, adult)
    total = time.perf_counter() - start
    print(f"\nTotal {total:.0f} s")

    settings = {
        "quick": args.quick, "epsilons": list(epsilons), "delta": DELTA, "seeds": list(seeds),
        "dplssgd_defaults": {k: defaults[k] for k in shown},
        "validated_learning_rate": VALIDATED_LEARNING_RATE,
        "opacus_learning_rates": list(OPACUS_LEARNING_RATES),
    }
    datasets = {"digits": dataset_record(digits, digits_info),
                "Adult": dataset_record(adult, adult_info)}
    payload = {
        "benchmark": "dplssgd_utility",
        "settings": settings,
        "seeds": list(seeds),
        "versions": {**versions("skprivate", "numpy", "scikit-learn", "torch", "opacus"),
                     "diffprivlib": _diffprivlib_version(dpl_python)},
        # each "accuracy" holds one row per epsilon of the settings, one column per seed
        "datasets": datasets,
        "targets": checks,
        "all_targets_met": all(c["met"] is not False for c in checks),
        "seconds": total,
    }
    write("dplssgd_utility", payload, _markdown(settings, datasets, checks))


if __name__ == "__main__":
    main()
