"""Audit of the real fit with an overflowing canary row: the full-strength version of
tests/audit/test_overflow_canary.py.

A finite row may be as large as the largest double. Before the fix, a row of norm 1e200 made
the default DPLSSGDClassifier NaN on most fits that contained it and on none that did not
(the issue: 2,895 of 3,000 against 0 of 3,000, epsilon >= 6.66 at 95 % against a claimed
0.997). Each setting here fits ``--runs`` times on D (60 rows of 3 standard normal features)
and on D plus one canary (1e200 in every coordinate, or 1e300 in one), records whether any
fitted value is not finite, and bounds epsilon with :func:`skprivate.audit.audit_outcomes`
(Clopper-Pearson, 95 %). A fixed fit must show the event on neither side, so its bound is 0.

Writes benchmarks/results/audit_overflow.json and .md; exits non-zero if any fit is not
finite or a bound exceeds its claim.

Run: python benchmarks/audit_overflow.py [--runs 1000] [--net-runs 150]
"""

import argparse
import sys
import time
import warnings

import numpy as np
from _results import markdown_table, versions, write

from skprivate.audit import audit_outcomes
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.linear_model import DPLSSGDClassifier, DPLSSGDRegressor


def _data(n=60, d=3):
    X = np.random.default_rng(0).normal(size=(n, d))
    return X, (X[:, 0] > 0).astype(int)


def _with_canary(X, y, canary):
    row = np.zeros((1, X.shape[1]))
    if canary == "row 1e200":
        row[:] = 1e200
    else:
        row[0, 1] = 1e300
    return np.vstack([X, row]), np.append(y, 1)


def _not_finite(values):
    return not all(np.isfinite(np.asarray(v, dtype=float)).all() for v in values
                   if v is not None)


def _linear(make, regressor):
    def fit(X, y, seed):
        model = make(seed).fit(X, X[:, 0] if regressor else y)
        return model.epsilon_, [model.coef_, model.intercept_, getattr(model, "offset_", None),
                                getattr(model, "row_scale_", None)]

    return fit


def _net(X, y, seed):
    import torch

    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                                              torch.nn.Linear(4, 2))

        def forward(self, X):
            return self.layers(X)

    net = DPLSSGDNeuralNetClassifier(Small, max_epochs=1, batch_size=len(y), epsilon=1.0,
                                     random_state=seed).fit(X, y)
    return net.epsilon_, [p.detach().numpy() for p in net.module_.parameters()]


SETTINGS = {
    "DPLSSGDClassifier()": _linear(
        lambda s: DPLSSGDClassifier(epsilon=1.0, max_iter=5, random_state=s), False),
    "DPLSSGDClassifier(loss='hinge', max_grad_norm=1)": _linear(
        lambda s: DPLSSGDClassifier(epsilon=1.0, loss="hinge", max_grad_norm=1.0, max_iter=5,
                                    random_state=s), False),
    "DPLSSGDRegressor()": _linear(
        lambda s: DPLSSGDRegressor(epsilon=1.0, max_iter=5, random_state=s), True),
    "DPLSSGDNeuralNetClassifier (float32 MLP)": _net,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--net-runs", type=int, default=150)
    args = parser.parse_args()
    X, y = _data()
    rows, results, ok = [], [], True
    for name, fit in SETTINGS.items():
        runs = args.net_runs if "Net" in name else args.runs
        for canary in ("row 1e200", "one coordinate 1e300"):
            Xc, yc = _with_canary(X, y, canary)
            start, claimed, events = time.perf_counter(), 0.0, []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds of an audit
                for first, (A, b) in ((0, (X, y)), (runs, (Xc, yc))):
                    side = []
                    for seed in range(first, first + runs):
                        epsilon, values = fit(A, b, seed)
                        claimed = max(claimed, epsilon)
                        side.append(_not_finite(values))
                    events.append(np.array(side))
            bound = audit_outcomes(events[0], events[1]).epsilon_lower_bound
            counts = (int(events[0].sum()), int(events[1].sum()))
            ok &= counts == (0, 0) and bound <= claimed
            results.append({"setting": name, "canary": canary, "runs": runs,
                            "not_finite_on_D": counts[0], "not_finite_on_D_prime": counts[1],
                            "epsilon_lower_bound": bound, "claimed_epsilon": claimed,
                            "seconds": time.perf_counter() - start})
            rows.append([name, canary, runs, f"{counts[0]} / {counts[1]}", f"{bound:.3f}",
                         f"{claimed:.3f}"])
            print(*rows[-1], sep=" | ", flush=True)
    lines = ["# Overflowing canary audit", "",
             "Fits whose released values are not finite, on D / on D plus the canary, and the "
             "95 % lower bound on epsilon from that event.", ""]
    lines += markdown_table(["setting", "canary", "runs per side", "not finite",
                             "epsilon lower bound", "claimed epsilon"], rows)
    payload = {"results": results,
               "versions": versions("skprivate", "numpy", "scipy", "torch", "skorch")}
    write("audit_overflow", payload, lines)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
