"""The canary audit of HistGradientBoostingClassifier.fit at full strength.

``tests/ensemble/test_audit.py`` runs it with 300 (control: 600) runs per side so that
``make test`` stays fast; this script runs 2,000 per side for the fit and for the control
whose noise is 4x smaller than the noise its ``epsilon_`` was computed for, at epsilon 2, and
reports both Clopper-Pearson lower bounds (the fixed event of the test and
``audit_scores``'s chosen one). Run with ``python benchmarks/audit_boosting.py`` (about 2
minutes on 2 cores). The same for ``HistGradientBoostingRegressor`` (the test's regressor
canary, whose statistic reads the residual sum alone: its shift is ``1 / sqrt(2)`` of what
the sensitivity allows). Writes ``benchmarks/results/audit_boosting.json`` and ``.md``.
"""

import sys
import time
from pathlib import Path

import numpy as np
from _results import markdown_table, versions, write

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from skprivate.audit import audit_scores  # noqa: E402
from tests.ensemble import test_audit  # noqa: E402  (the test's canary and statistic)

N_RUNS = 2000


def main():
    rows = []
    for label, quieter in (("the fit", False), ("4x less noise than claimed", True)):
        start = time.perf_counter()
        on_prime, on_d, claimed, _, chosen = test_audit._audit(quieter=quieter,
                                                               n_runs=N_RUNS)
        rows.append({
            "run": label, "claimed epsilon": claimed, "runs per side": N_RUNS,
            "fixed-event bound": test_audit._bound(on_prime, on_d),
            "chosen-event bound": chosen,
            "canary shift (claimed noise units)": float(np.mean(on_d) - np.mean(on_prime)),
            "spread on D": float(np.std(on_d)), "seconds": time.perf_counter() - start,
        })
        print(rows[-1], flush=True)
    for label, quieter in (("regressor: the fit", False),
                           ("regressor: 4x less noise than claimed", True)):
        start = time.perf_counter()
        on_prime, on_d, reg = test_audit._regressor_runs(N_RUNS, quieter=quieter)
        # the canary pushes the statistic up: the test's events and scores, sign flipped
        rng = np.random.default_rng(0)
        chosen = audit_scores(rng.permutation(-on_prime), rng.permutation(-on_d),
                              delta=test_audit.DELTA, n_thresholds=10).epsilon_lower_bound
        rows.append({
            "run": label, "claimed epsilon": reg.epsilon_, "runs per side": N_RUNS,
            "fixed-event bound": test_audit._bound(-on_prime, -on_d),
            "chosen-event bound": chosen,
            "canary shift (claimed noise units)": float(np.mean(on_prime) - np.mean(on_d)),
            "spread on D": float(np.std(on_d)), "seconds": time.perf_counter() - start,
        })
        print(rows[-1], flush=True)
    header = list(rows[0])
    lines = [
        "# Canary audits of the boosting estimators' fit (benchmarks/audit_boosting.py)",
        "",
        "A bound above the claimed epsilon refutes the claim (95 % confidence each).",
        "",
        *markdown_table(header, [[
            r["run"], f"{r['claimed epsilon']:g}", str(r["runs per side"]),
            f"{r['fixed-event bound']:.3f}", f"{r['chosen-event bound']:.3f}",
            f"{r['canary shift (claimed noise units)']:.3f}", f"{r['spread on D']:.3f}",
            f"{r['seconds']:.0f}"] for r in rows]),
    ]
    write("audit_boosting", {"versions": versions("scikit-learn", "numpy"), "rows": rows},
          lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
