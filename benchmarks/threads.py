"""Native threads on a shared machine: the quickstart's net fit after a scikit-learn fit.

Run with ``python benchmarks/threads.py`` (about a minute on 2 cores with the defaults;
several minutes on the code before the nets bounded their threads, which it catches). The
case of issue 30: beside ``--busy`` busy processes (``python -c "while True: pass"``, two by
default, on a machine of two cores), one Python process fits scikit-learn's
``LogisticRegression`` on Adult and then the quickstart's network
(``DPLSSGDNeuralNetClassifier``, a 32-unit tanh MLP, epsilon 1), and the net fit's wall and
CPU time are compared with the same process started under ``OMP_NUM_THREADS=1``. Torch's
OpenMP runtime and scikit-learn's (two libgomp and two OpenBLAS copies) each start one
thread per core; threads that busy-wait at the end of each small parallel region compete
with each other and with the busy processes. The target: the net fit within 1.5 times its
``OMP_NUM_THREADS=1`` time. Each setting runs in a fresh interpreter (the environment
variable is read when the runtimes load), the settings alternate, and every row reports the
median of ``--repeats`` runs. ``--rows`` fits on the first rows of the training set only;
``--max-epochs`` sets the net's epochs: one by default (an epoch is 254 steps), ``auto`` for
the quickstart's whole fit (ten epochs). The busy processes are ended (by their process id)
however the run ends. Writes ``benchmarks/results/threads.json`` and ``.md``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TARGET_RATIO = 1.5


def child(rows, max_epochs):
    """One process: a scikit-learn fit, then the net fit; print the timings as JSON."""
    import warnings

    import torch
    from sklearn.linear_model import LogisticRegression

    from skprivate.datasets import load_adult, make_adult_preprocessor
    from skprivate.exceptions import PrivacyLeakWarning
    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    warnings.simplefilter("ignore", PrivacyLeakWarning)
    X, y = load_adult(subset="train", return_X_y=True)
    X, y = X[:rows], y[:rows]
    X = make_adult_preprocessor().fit(X[:1]).transform(X)
    start = time.perf_counter()
    LogisticRegression(max_iter=1000).fit(X, y)
    sklearn_s = time.perf_counter() - start
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(X.shape[1], 32), torch.nn.Tanh(),
                              torch.nn.Linear(32, 2))
    net = DPLSSGDNeuralNetClassifier(mlp, epsilon=1.0, delta=1e-6, classes=[0, 1],
                                     max_epochs=max_epochs, random_state=0)
    threads_before = torch.get_num_threads()
    wall, cpu = time.perf_counter(), time.process_time()
    net.fit(X.astype("float32"), y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"sklearn_s": sklearn_s, "net_wall_s": wall, "net_cpu_s": cpu,
                      "torch_threads_before": threads_before,
                      "torch_threads_after": torch.get_num_threads()}))


def run_child(rows, max_epochs, omp_one):
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    if omp_one:
        env["OMP_NUM_THREADS"] = "1"
    command = [sys.executable, __file__, "--child", "--rows", str(rows),
               "--max-epochs", str(max_epochs)]
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--max-epochs", default="1")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = args.rows if args.rows is not None else 10**9
    max_epochs = args.max_epochs if args.max_epochs == "auto" else int(args.max_epochs)
    if args.child:
        child(rows, max_epochs)
        return
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.busy)]
    runs = {"default": [], "OMP_NUM_THREADS=1": []}
    try:
        time.sleep(1.0)  # let the busy processes take their cores
        for _ in range(args.repeats):
            for name in runs:
                runs[name].append(run_child(rows, max_epochs, omp_one=name != "default"))
                print(name, runs[name][-1], flush=True)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    medians = {name: {key: statistics.median(run[key] for run in found)
                      for key in ("sklearn_s", "net_wall_s", "net_cpu_s")}
               for name, found in runs.items()}
    ratio = medians["default"]["net_wall_s"] / medians["OMP_NUM_THREADS=1"]["net_wall_s"]
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _results import markdown_table, versions, write

    lines = [
        "# Net fit after a scikit-learn fit, beside busy processes",
        "",
        f"{args.busy} busy processes on {os.cpu_count()} cores; medians of {args.repeats} "
        f"runs; rows: {'all' if args.rows is None else args.rows}; max_epochs: "
        f"{args.max_epochs}.",
        "",
        *markdown_table(
            ["environment", "LogisticRegression (s)", "net fit wall (s)", "net fit CPU (s)"],
            [[name, f"{m['sklearn_s']:.2f}", f"{m['net_wall_s']:.1f}", f"{m['net_cpu_s']:.1f}"]
             for name, m in medians.items()],
        ),
        "",
        f"default / OMP_NUM_THREADS=1: {ratio:.2f} (target at most {TARGET_RATIO})",
    ]
    write("threads", {"busy": args.busy, "cores": os.cpu_count(), "rows": args.rows,
                      "max_epochs": args.max_epochs,
                      "runs": runs, "medians": medians, "ratio": ratio,
                      "target": TARGET_RATIO, "versions": versions("torch", "scikit-learn",
                                                                   "threadpoolctl")}, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
