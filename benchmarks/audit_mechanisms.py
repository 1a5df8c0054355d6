"""Mechanism-level privacy audits: each mechanism PATE and DP-LSSGD rely on, run a million
times on two neighbouring inputs, and the empirical lower bound on epsilon (Clopper-Pearson,
``skprivate.audit``) beside the claimed epsilon.

The same audits as ``tests/audit/test_mechanism_audits.py``, with 2.5 times the runs and
repeated on independent seeds, so the table shows how far below its claim each mechanism's
measured loss sits and how much the bound varies between audits. The last row is a control
that must fail: the DP-SGD step without clipping, whose canary gradient exceeds the
sensitivity the noise was calibrated for. Writes benchmarks/results/audit_mechanisms.json
and .md; exits non-zero if a bound exceeds its claim or the control is not caught.
"""

import time
import warnings

import numpy as np
from _results import markdown_table, versions, write
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import MinMaxScaler

from skprivate import DPLSSGDClassifier
from skprivate.accounting import pate_epsilon
from skprivate.audit import audit_outcomes, audit_scores
from skprivate.exceptions import PrivacyLeakWarning
from skprivate._dpsgd._numpy_loop import (
    clipped_gradient_sum,
    residual_function,
)
from skprivate.pate._aggregation import confident_gnmax, noisy_argmax

N_RUNS = 1_000_000  # per side and audit; the tests use 400,000
SEEDS = (0, 1, 2, 3, 4)
DELTA = 1e-5


def _repeat(row):
    return np.tile(np.asarray(row, dtype=np.int64), (N_RUNS, 1))


def _pate_claim(noise_scale, **gnmax):
    # one query, data-independent: the claim holds for every vote histogram
    return pate_epsilon(np.zeros((1, 2), dtype=int), mechanism="gaussian",
                        noise_scale=noise_scale, delta=DELTA, data_dependent=False,
                        **gnmax).epsilon_data_independent


def _dpsgd_step():
    """A one-step DP-SGD (the estimator's own calibration at epsilon 2) and its two outputs.

    The outputs are the noisy clipped gradient sums at zero projected on the direction that
    separates the neighbours; the projection of isotropic noise is one Gaussian, so a million
    steps cost a million draws, not a million fits.
    """
    X, y = load_breast_cancer(return_X_y=True)
    X, y = MinMaxScaler().fit_transform(X)[:50], y[:50].astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        clf = DPLSSGDClassifier(epsilon=2.0, delta=DELTA, batch_size=50, max_iter=1,
                                random_state=0).fit(X, y.astype(int))
    canary = np.full((1, X.shape[1]), 5.0)  # far outside the data: a large raw gradient
    X_prime, y_prime = np.vstack([X, canary]), np.append(y, 0.0)
    residual = residual_function("log_loss", 1)
    coef, intercept = np.zeros((1, X.shape[1])), np.zeros(1)

    def gradient(A, b, clip):
        g, g0 = clipped_gradient_sum(A, b, coef, intercept, residual, clip, True)
        return np.concatenate([g.ravel(), g0])

    def outputs(rng, clip=1.0):
        g, g_prime = gradient(X, y, clip), gradient(X_prime, y_prime, clip)
        u = (g_prime - g) / np.linalg.norm(g_prime - g)
        scale = clf.noise_multiplier_ * 1.0  # max_grad_norm = 1, whatever the clip used
        return (u @ g_prime + scale * rng.standard_normal(N_RUNS),
                u @ g + scale * rng.standard_normal(N_RUNS))

    return clf.epsilon_, outputs


def mechanisms():
    """(name, claimed epsilon, run(rng) -> AuditResult, is_control) per mechanism."""
    b, sigma = 2.0, 1.0
    step_epsilon, step = _dpsgd_step()
    return [
        # one teacher moves its vote: gaps 6 and 4, where the tail ratio nears e^(2/b)
        ("LNMax, b = 2, votes (6, 0) against (5, 1)", 2.0 / b, lambda rng: audit_outcomes(
            noisy_argmax(_repeat([6, 0]), "laplace", b, rng),
            noisy_argmax(_repeat([5, 1]), "laplace", b, rng)), False),
        ("GNMax, sigma = 1, votes (2, 0) against (1, 1)", _pate_claim(sigma),
         lambda rng: audit_outcomes(noisy_argmax(_repeat([2, 0]), "gaussian", sigma, rng),
                                    noisy_argmax(_repeat([1, 1]), "gaussian", sigma, rng),
                                    delta=DELTA), False),
        ("Confident-GNMax, T = 4, sigma_1 = sigma_2 = 1, votes (4, 0) against (3, 1)",
         _pate_claim(1.0, threshold=4.0, threshold_noise_scale=1.0),
         lambda rng: audit_outcomes(confident_gnmax(_repeat([4, 0]), 4.0, 1.0, 1.0, rng),
                                    confident_gnmax(_repeat([3, 1]), 4.0, 1.0, 1.0, rng),
                                    delta=DELTA), False),
        ("one DP-SGD step at epsilon 2 (the estimator's calibration), a far-away canary",
         step_epsilon, lambda rng: audit_scores(*step(rng), delta=DELTA), False),
        ("control: the same step without clipping (must be caught)", step_epsilon,
         lambda rng: audit_scores(*step(rng, clip=1e12), delta=DELTA), True),
    ]


def main():
    rows = []
    for name, claimed, run, control in mechanisms():
        start = time.perf_counter()
        bounds = [run(np.random.default_rng(seed)).epsilon_lower_bound for seed in SEEDS]
        rows.append({"mechanism": name, "control": control, "claimed_epsilon": claimed,
                     "lower_bounds": bounds, "median_lower_bound": float(np.median(bounds)),
                     "seconds": time.perf_counter() - start})
        print(f"{name}: claimed {claimed:.3f}, lower bounds "
              f"{', '.join(f'{e:.3f}' for e in bounds)}", flush=True)
    # A control must exceed its claim in every audit; every other bound must stay below.
    failed = [r["mechanism"] for r in rows
              if (min(r["lower_bounds"]) <= r["claimed_epsilon"]) == r["control"]]
    lines = [
        f"Each mechanism run {N_RUNS:,} times on each of two neighbouring inputs, "
        f"{len(SEEDS)} independent audits; 95 % Clopper-Pearson lower bounds on epsilon "
        f"(delta = {DELTA:g} where the claim has one).",
        "",
    ]
    lines += markdown_table(
        ["mechanism (one release)", "claimed epsilon", "lower bound, median",
         "lower bounds, min to max", "verdict"],
        [[r["mechanism"], f"{r['claimed_epsilon']:.3f}", f"{r['median_lower_bound']:.3f}",
          f"{min(r['lower_bounds']):.3f} to {max(r['lower_bounds']):.3f}",
          ("caught: above the claim" if r["control"] else "claim violated")
          if max(r["lower_bounds"]) > r["claimed_epsilon"] else
          ("NOT caught" if r["control"] else "below the claim")] for r in rows])
    print("\n" + "\n".join(lines))
    payload = {"benchmark": "audit_mechanisms",
               "settings": {"runs_per_side": N_RUNS, "delta": DELTA, "confidence": 0.95},
               "seeds": list(SEEDS), "versions": versions("skprivate", "numpy", "scipy"),
               "rows": rows, "failed": failed}
    write("audit_mechanisms", payload, lines)
    if failed:
        raise SystemExit(f"audit failed: {failed}")


if __name__ == "__main__":
    main()
