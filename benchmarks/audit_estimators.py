"""Audit of the real fit: DPLSSGDClassifier.fit and DPLSSGDNeuralNetClassifier.fit, called as
users call them, thousands of times on D and on D + a gradient canary (Nasr et al. 2021),
with Clopper-Pearson lower bounds on epsilon beside the claimed ``epsilon_``.

Nothing of the training loop is re-implemented: the statistic is read from the released
weights (``skprivate.audit._estimators``: the canary's coordinate of the summed noisy
gradients, the public smoothing undone, in units of the claimed noise). Each audited setting
has a control: the same fits with the noise multiplier the estimator uses divided by 4 after
calibration, so that ``epsilon_`` still claims the same value. The control's bound must exceed
its claim, which shows the audit has the power to catch such a bug; a real fit's bound must
stay below its claim. Two bounds per audit: the event ``{score > 0.625}`` fixed before the
runs, on all runs (the stronger), and ``audit_scores``'s event chosen on half of them.

Settings: 50 rows of breast cancer (5 features, min-max scaled) plus the canary's column,
epsilon 2, delta 1e-5; every parameter passed explicitly so that changed defaults do not
change the audit. ``batch_size = n_samples`` (every row in every step, the Gaussian
mechanism without amplification) is where the audit is tightest; a Poisson-sampled setting
(expected batch 25, rate about 1/2, 8 steps) audits the sampler and the amplified accounting.
Writes benchmarks/results/audit_estimators.json and .md; exits non-zero if a bound exceeds
its claim or a control is not caught.

Run: python benchmarks/audit_estimators.py [--runs 3000] [--net-runs 1500] [--n-jobs 2]
"""

import argparse
import time
import warnings
from unittest import mock

import numpy as np
import torch
from _results import markdown_table, versions, write
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate import DPLSSGDClassifier
from skprivate.audit._estimators import (
    linear_canary_score,
    net_canary_score,
    summarise_runs,
    with_gradient_canary,
)
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import _dplssgd_base
from skprivate.neural_network import DPLSSGDNeuralNetClassifier

EPSILON, DELTA = 2.0, 1e-5
CHUNK = 250  # fits per joblib task: a task is then long against its overhead


def _data(dtype=np.float64):
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X[:50, :5]).astype(dtype)  # a benchmark: bounds known
    return with_gradient_canary(X, y[:50])


class ZeroLogistic(torch.nn.Module):
    """Logits of one linear layer started at zero: the audit reads its weight."""

    def __init__(self, n_features=6):
        super().__init__()
        self.linear = torch.nn.Linear(n_features, 2)
        torch.nn.init.zeros_(self.linear.weight)
        torch.nn.init.zeros_(self.linear.bias)

    def forward(self, X):
        return self.linear(X)


class QuieterNet(DPLSSGDNeuralNetClassifier):
    """The control: each step draws its noise with the multiplier divided by 4; the plan the
    accounting reads (``epsilon_``, ``noise_multiplier_``) keeps the calibrated one."""

    def train_step_single(self, batch, **fit_params):
        run = self._active_run()
        plan = run.plan
        run.plan = plan._replace(noise_multiplier=plan.noise_multiplier / 4)
        try:
            return super().train_step_single(batch, **fit_params)
        finally:
            run.plan = plan


def _quieter(run):
    def run_quieter(*args, **kwargs):
        return run(*args, **{**kwargs, "noise_multiplier": kwargs["noise_multiplier"] / 4})

    return run_quieter


def _linear_chunk(X, y, seeds, batch_size, max_iter, quieter):
    scores, claimed = [], 0.0
    patch = mock.patch.object(_dplssgd_base, "run_dplssgd", _quieter(_dplssgd_base.run_dplssgd))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the fixed seeds of an audit
        if quieter:
            patch.start()
        try:
            for seed in seeds:
                clf = DPLSSGDClassifier(
                    epsilon=EPSILON, delta=DELTA, batch_size=min(batch_size, len(y)),
                    max_iter=max_iter, learning_rate=0.1, alpha=0.0, smoothing=1.0,
                    smoothing_order=1, smoothing_blocks="per_tensor", max_grad_norm=1.0,
                    average=False, random_state=seed,
                ).fit(X, y)
                scores.append(linear_canary_score(clf, len(y)))
                claimed = max(claimed, clf.epsilon_)
        finally:
            if quieter:
                patch.stop()
    return scores, claimed, (clf.noise_multiplier_, clf.sample_rate_, clf.n_steps_)


def _net_chunk(X, y, seeds, batch_size, max_iter, quieter):
    torch.set_num_threads(1)  # in the worker: thousands of tiny fits
    cls = QuieterNet if quieter else DPLSSGDNeuralNetClassifier
    scores, claimed = [], 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for seed in seeds:
            net = cls(
                ZeroLogistic, module__n_features=X.shape[1], epsilon=EPSILON, delta=DELTA,
                batch_size=min(batch_size, len(y)), max_epochs=max_iter, lr=0.1,
                optimizer=torch.optim.SGD, smoothing=1.0, smoothing_order=1,
                smoothing_blocks="per_tensor", max_grad_norm=1.0, train_split=None,
                average=False, random_state=seed,
            ).fit(X, y)
            scores.append(net_canary_score(net, len(y), "linear.weight"))
            claimed = max(claimed, net.epsilon_)
    return scores, claimed, (net.noise_multiplier_, net.sample_rate_, net.n_steps_)


def audit(name, chunk, n_runs, n_jobs, *, batch_size, max_iter, quieter, dtype=np.float64):
    start = time.perf_counter()
    X, y, X_prime, y_prime = _data(dtype)
    tasks = [(X_prime, y_prime, range(s, min(s + CHUNK, n_runs))) for s in range(0, n_runs, CHUNK)]
    tasks += [(X, y, range(s, min(s + CHUNK, 2 * n_runs)))
              for s in range(n_runs, 2 * n_runs, CHUNK)]
    out = Parallel(n_jobs=n_jobs)(
        delayed(chunk)(A, b, seeds, batch_size, max_iter, quieter) for A, b, seeds in tasks
    )
    n_prime_tasks = len(range(0, n_runs, CHUNK))
    on_prime = np.concatenate([o[0] for o in out[:n_prime_tasks]])
    on_d = np.concatenate([o[0] for o in out[n_prime_tasks:]])
    claimed = max(o[1] for o in out)
    z, rate, steps = out[0][2]  # D' side
    row = summarise_runs(on_prime, on_d, claimed, delta=DELTA)
    row.update({
        "estimator": name,
        "control": quieter,
        "noise_multiplier": z,
        "sample_rate": rate,
        "n_steps": steps,
        "std_on_d": float(np.std(on_d)),
        "mean_shift": float(np.mean(on_prime) - np.mean(on_d)),
        # exact when every step holds the canary (rate 1); its mean otherwise
        "expected_shift": float(10 / np.sqrt(101) * rate * steps / (z * np.sqrt(steps))),
        "seconds": time.perf_counter() - start,
    })
    print(f"{name}{' [control: noise / 4]' if quieter else ''}: claimed {claimed:.3f}, bounds "
          f"{row['fixed_event_bound']:.3f} (fixed event), {row['chosen_event_bound']:.3f} "
          f"(chosen event); std on D {row['std_on_d']:.3f}, shift {row['mean_shift']:.3f} "
          f"(expected {row['expected_shift']:.3f}); {row['seconds']:.0f} s", flush=True)
    return row


def _verdict(r):
    if r["control"]:
        return "control: caught" if r["fixed_event_bound"] > r["claimed_epsilon"] else \
            "control: NOT caught"
    above = r["epsilon_lower_bound"] > r["claimed_epsilon"]
    return "CLAIM VIOLATED" if above else "below the claim"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000, help="linear fits per side")
    parser.add_argument("--net-runs", type=int, default=1500, help="net fits per side")
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    settings = [
        ("DPLSSGDClassifier, batch = all rows, 2 steps", _linear_chunk, args.runs,
         {"batch_size": 10**6, "max_iter": 2}),
        ("DPLSSGDClassifier, Poisson batch 25 (q ~ 1/2), 8 steps", _linear_chunk, args.runs,
         {"batch_size": 25, "max_iter": 4}),
        ("DPLSSGDNeuralNetClassifier, batch = all rows, 1 step", _net_chunk, args.net_runs,
         {"batch_size": 10**6, "max_iter": 1, "dtype": np.float32}),
    ]
    rows, failed = [], []
    for name, chunk, n_runs, kwargs in settings:
        for quieter in (False, True):
            row = audit(name, chunk, n_runs, args.n_jobs, quieter=quieter, **kwargs)
            rows.append(row)
            verdict = _verdict(row)
            if verdict in ("CLAIM VIOLATED", "control: NOT caught"):
                failed.append(f"{name}: {verdict}")
    lines = markdown_table(
        ["estimator", "noise", "claimed epsilon_", "bound, fixed event", "bound, chosen event",
         "std on D (1 = claimed)", "canary shift (expected)", "runs per side", "verdict"],
        [[r["estimator"], "control: / 4" if r["control"] else "as fitted",
          f"{r['claimed_epsilon']:.3f}", f"{r['fixed_event_bound']:.3f}",
          f"{r['chosen_event_bound']:.3f}", f"{r['std_on_d']:.3f}",
          f"{r['mean_shift']:.3f} ({r['expected_shift']:.3f})", r["runs_per_side"],
          _verdict(r)]
         for r in rows])
    lines += ["", "Bounds are 95% Clopper-Pearson lower bounds on epsilon (delta = 1e-5). A "
              "control is the same fit with its noise divided by 4 under the same claim: its "
              "bound must exceed the claim. The statistic is in units of the claimed noise, so "
              "a correct fit has standard deviation 1 on D."]
    print("\n" + "\n".join(lines))
    print("\nEvery bound is below its claim and every control is caught."
          if not failed else f"\nFAILED: {failed}")
    payload = {"benchmark": "audit_estimators",
               "settings": {"epsilon": EPSILON, "delta": DELTA, "confidence": 0.95,
                            "private_rows": 50, "runs_per_side": args.runs,
                            "net_runs_per_side": args.net_runs},
               "versions": versions("skprivate", "numpy", "scikit-learn", "torch", "skorch"),
               "rows": rows, "failed": failed}
    write("audit_estimators", payload, lines)
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
