"""One table of every benchmark's headline result: ``benchmarks/results/summary.md``.

Reads each ``results/<name>.json`` a benchmark script wrote (not ``run_all.json`` nor
``summary.json``) and writes one Markdown table with a few rows per benchmark: skprivate's
numbers, its peers' (or the non-private baseline's) on the same data and seeds, and the
comparison the benchmark is about. The full tables are each script's ``results/<name>.md``.
A JSON without a rule below, or not of the shape its rule expects, gets one row that names
it and points to its own table. ``run_all.py`` runs this script last.

Run: python benchmarks/summarize.py
"""

import json
import math

from _results import RESULTS, markdown_table

SKIP = {"run_all", "summary"}  # JSON files in results/ that no benchmark wrote
NONE = "—"


# --- formatting -------------------------------------------------------------------------------


def _num(value, digits=3):
    """A number with ``digits`` decimals, or n/a where it was not measured (null in the JSON)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def _join(parts):
    return "; ".join(parts) if parts else NONE


def _closest(values, target):
    """Index of the value closest to ``target``: the headline setting, or the nearest run."""
    return min(range(len(values)), key=lambda i: abs(values[i] - target))


# --- one function per benchmark: the rows (measure, skprivate, peers, comparison) ----------------


def accounting_speed(data):
    rows = data["epsilons"]
    rdp = [r["rdp_ratio"] for r in rows]
    pld = [r["pld_ratio"] for r in rows]
    # Opacus's PRV and skprivate's PLD both estimate the tight epsilon: compare them directly.
    prv = [r["opacus_prv"] - r["skprivate_pld"] for r in rows if r["opacus_prv"] is not None]
    tightness = (
        f"DP-SGD epsilon at delta={data['settings']['delta']:g}, {len(rows)} settings",
        f"RDP / dp-accounting's RDP {min(rdp):.3f} to {max(rdp):.3f}; "
        f"PLD / dp-accounting's PLD {min(pld):.3f} to {max(pld):.3f}",
        "dp-accounting (RDP, PLD); Opacus PRV",
        f"Opacus PRV - skprivate PLD {min(prv):+.3f} to {max(prv):+.3f} "
        f"({len(prv)} settings)" if prv else "Opacus PRV n/a",
    )

    def total(key):
        values = [r[key] for r in data["calibration"] if r[key] is not None]
        return f"{sum(values):.1f} s" if values else "n/a"

    calibration = data["calibration"]
    speed = (
        f"time to calibrate the noise, {len(calibration)} targets (total)",
        f"RDP {total('skprivate_rdp_seconds')}; PLD {total('skprivate_pld_seconds')}",
        f"Opacus RDP {total('opacus_rdp_seconds')}; Opacus PRV {total('opacus_prv_seconds')}",
        "same targets, delta and sample rates",
    )
    return [tightness, speed]


def dplssgd_speed(data):
    seconds = {r["method"]: r["seconds"] for r in data["seconds_per_epoch"]}
    ours = [f"{m} {_num(s, 4)} s" for m, s in seconds.items() if "DP-LSSGD" in m]
    peers = [f"{m} {_num(s, 4)} s" for m, s in seconds.items() if "DP-LSSGD" not in m]
    ratios = [f"{name} {r['value']:.3g} (target {r['target']})"
              for name, r in data["ratios"].items() if r["target"] is not None]
    return [(f"seconds per epoch on Adult, batch {data['settings']['batch_size']}",
             _join(ours), _join(peers), _join(ratios))]


def dplssgd_utility(data):
    epsilons = data["settings"]["epsilons"]
    i = _closest(epsilons, 1.0)
    n_seeds = len(data["settings"]["seeds"])
    ours_methods = ("DP-LSSGD", "smoothing=0", "LSSGD lr=3")  # all DPLSSGDClassifier
    rows = []
    for name, record in data["datasets"].items():
        methods = record["methods"]

        def accuracy(method):
            m = methods.get(method)
            return "n/a" if m is None else f"{100 * m['mean'][i]:.1f} %"

        ours = [f"{'defaults' if m == 'DP-LSSGD' else m} {accuracy(m)}"
                for m in ours_methods if m in methods]
        peers = [f"{m} {accuracy(m)}" for m in methods if m not in ours_methods]
        leads = [f"defaults - {m} {lead[i]:+.1f} points"
                 for m, lead in record["lead_points"].items() if m not in ours_methods]
        rows.append((f"{name}: test accuracy at epsilon={epsilons[i]:g}, mean over {n_seeds} "
                     f"seed{'s' if n_seeds > 1 else ''}", _join(ours), _join(peers),
                     _join(leads)))
    checks = [c for c in data["targets"] if c["met"] is not None]
    met = sum(c["met"] for c in checks)
    rows.append(("issue 4 targets (defaults against smoothing=0, Opacus, diffprivlib)",
                 f"{met} of {len(checks)} met", NONE,
                 "Opacus's learning rate picked on the test rows"))
    return rows


def pate_adult(data):
    rows = data["rows"]
    base = next(r for r in rows if r["model"].startswith("RandomForest"))
    settings = data["settings"]
    out = []
    for r in rows:
        if r is base:
            continue
        out.append((
            f"Adult student accuracy, {settings['teachers']} teachers, "
            f"{settings['n_queries']} queries",
            f"{r['model']}: {_num(r['accuracy'])} at epsilon_ {_num(r['epsilon'], 2)} "
            f"(data-dependent {_num(r['epsilon_data_dependent'], 2)}), "
            f"{r['answered']} answered",
            f"non-private forest {_num(base['accuracy'])}",
            f"{_num(r['relative_accuracy'])} of the non-private accuracy",
        ))
    return out


def gems_digits(data):
    summary = data["summary"]
    shallow = summary["shallow"]["MLP features"]
    deep = summary["deep"]
    five = summary["five_parties"]

    def acc(table, key):
        return table[key][0]  # (accuracy, log-loss)

    # 0.02 is the script's default epsilon for the deep table; other runs may lack it.
    deep_keys = [k for k in deep if k.startswith("GEMS+FT eps=")]
    ft_key = "GEMS+FT eps=0.02" if "GEMS+FT eps=0.02" in deep else deep_keys[0]
    epsilon = ft_key.split("=", 1)[1]
    return [
        ("shallow parity (MLP features, 2 parties), accuracy",
         f"GEMS {acc(shallow, 'GEMS'):.3f}; GEMS+FT {acc(shallow, 'GEMS+FT'):.3f}",
         f"local h1 {acc(shallow, 'h1'):.3f}; h2 {acc(shallow, 'h2'):.3f}; "
         f"Gold {acc(shallow, 'Gold'):.3f}",
         f"GEMS - better local "
         f"{acc(shallow, 'GEMS') - max(acc(shallow, 'h1'), acc(shallow, 'h2')):+.3f}"),
        (f"deep (original vs permuted pixels), accuracy at epsilon={epsilon}",
         f"GEMS+FT {acc(deep, ft_key):.3f}; GEMS {acc(deep, 'GEMS eps=' + epsilon):.3f}",
         f"Averaged {acc(deep, 'Averaged'):.3f}; Averaged+FT {acc(deep, 'Averaged+FT'):.3f}; "
         f"public only {acc(deep, 'Public only'):.3f}; Gold {acc(deep, 'Gold'):.3f}",
         f"GEMS+FT - Averaged+FT {acc(deep, ft_key) - acc(deep, 'Averaged+FT'):+.3f}"),
        ("five non-i.i.d. parties, accuracy",
         f"GEMS {acc(five, 'GEMS'):.3f}; GEMS+FT {acc(five, 'GEMS+FT'):.3f}",
         f"best local {acc(five, 'best local'):.3f}; Averaged {acc(five, 'Averaged'):.3f}; "
         f"Gold {acc(five, 'Gold'):.3f}",
         f"GEMS+FT - Averaged {acc(five, 'GEMS+FT') - acc(five, 'Averaged'):+.3f}"),
    ]


def dropout_stability(data):
    rows = []
    datasets = data["datasets"]
    for name, record in datasets.items():
        privacy = record["privacy"]
        r = privacy[_closest([p["epsilon"] for p in privacy], 1.0)]
        best = max(r["DPDropoutClassifier"], r["DPDropoutClassifier 2x-1"])
        rows.append((
            f"{name}: test accuracy at epsilon={r['epsilon']:g}",
            f"DPDropout [0,1] {r['DPDropoutClassifier']:.3f}; DPDropout 2x-1 "
            f"{r['DPDropoutClassifier 2x-1']:.3f}; DPLSSGD {r['DPLSSGDClassifier']:.3f}",
            f"output perturbation {r['output perturbation']:.3f}; non-private "
            f"{r['non_private']:.3f}",
            f"best DPDropout - output perturbation {best - r['output perturbation']:+.3f}",
        ))
    # Stability: the adversarial marginal error at half the rows removed (or the nearest
    # fraction the run measured), where the models differ most without collapsing.
    rhos = data["rhos"]
    rho = rhos[_closest(rhos, 0.5)]

    def marginal(model):
        values = []
        for record in datasets.values():
            at = [s for s in record["stability"][model] if s["rho"] == rho]
            values.append(f"{at[0]['adversarial_marginal']:.3f}" if at else "n/a")
        return f"{model} " + " / ".join(values)

    rows.append((
        f"adversarial marginal error at rho={rho:g} ({' / '.join(datasets)})",
        _join([marginal("dropout SGD"), marginal("deterministic dropout")]),
        _join([marginal("unregularised"), marginal("L2 (CV)")]),
        "lower is more stable",
    ))
    return rows


def private_search(data):
    rows = []
    cases = {}
    for r in data["rows"]:
        cases.setdefault((r["dataset"], r["epsilon"]), []).append(r)
    for (name, epsilon), methods in cases.items():
        # (b) and (b') are scikit-learn's GridSearchCV around a private estimator: the peers.
        ours = [m for m in methods if not m["method"].startswith("(b")]
        peers = [m for m in methods if m["method"].startswith("(b")]

        def cell(m):
            label = m["method"].split(" ", 1)[0]
            return f"{label} {m['accuracy_mean']:.3f} (total epsilon {m['total_epsilon']:.3f})"

        best = max(ours, key=lambda m: m["accuracy_mean"])
        naive = next((m for m in peers if m["method"].startswith("(b)")), None)
        comparison = NONE if naive is None else (
            f"best private {best['method'].split(' ', 1)[0]} - (b) "
            f"{best['accuracy_mean'] - naive['accuracy_mean']:+.3f}; "
            "(b), (b') select without privacy")
        rows.append((f"{name}: test accuracy, total budget E={epsilon:g}",
                     _join(map(cell, ours)), _join(map(cell, peers)), comparison))
    return rows


def audit_canary(data):
    rows = data["rows"]
    audits = [r for r in rows if not r["control"]]
    controls = [r for r in rows if r["control"]]

    def bound(r):
        return (f"{r['estimator']} ({r['canary'].split(',')[0]}): "
                f"{r['empirical_epsilon_lower_bound']:.3f} vs {r['claimed_epsilon']:.3f}")

    above = [r["estimator"] for r in audits
             if r["empirical_epsilon_lower_bound"] > r["claimed_epsilon"]]
    missed = [r["estimator"] for r in controls
              if r["empirical_epsilon_lower_bound"] <= r["claimed_epsilon"]]
    runs = sorted({r["runs_per_side"] for r in rows})
    verdict = ["claim violated by " + ", ".join(above) if above else "no claim violated"]
    if controls:
        verdict.append("control NOT caught" if missed else "control caught")
    return [(f"empirical epsilon lower bound (95 %) vs claimed epsilon_, "
             f"{'/'.join(map(str, runs))} runs per side", _join(map(bound, audits)),
             _join(map(bound, controls)), _join(verdict))]


def audit_mechanisms(data):
    rows = data["rows"]

    def bound(r):
        return (f"{r['mechanism'].split(',')[0]}: {r['median_lower_bound']:.3f} vs "
                f"{r['claimed_epsilon']:.3f}")

    audits = [r for r in rows if not r["control"]]
    controls = [r for r in rows if r["control"]]
    return [(f"mechanism lower bound (95 %, median of {len(data['seeds'])}) vs claimed "
             f"epsilon, {data['settings']['runs_per_side']:,} runs per side",
             _join(map(bound, audits)),
             _join(f"control, the DP-SGD step without clipping: {r['median_lower_bound']:.3f} "
                   f"vs {r['claimed_epsilon']:.3f}" for r in controls),
             "failed: " + ", ".join(data["failed"]) if data["failed"] else
             "no claim violated; control caught")]


def scale(data):
    rows, largest = data["rows"], max(data["settings"]["sizes"])
    at = [r for r in rows if r["n_rows"] == largest]
    ours = [f"{r['estimator']}: {r['seconds']:.2f} s, {r['peak_over_data']:.2f} x data"
            for r in at if r["private"]]
    peers = [f"{r['estimator']}: {r['seconds']:.2f} s" for r in at if not r["private"]]
    ratios = next(r for r in data["ratios"] if r["n_rows"] == largest)
    checks = [f"{c['estimator']} time slope {c['time_slope']:.2f} (<= {c['slope_max']:g}), "
              f"peak <= {c['worst_peak_over_data']:.2f} x data (< {c['memory_max']:g})"
              for c in data["checks"]]
    return [
        (f"fit time and peak memory at {largest:,} rows", _join(ours), _join(peers),
         _join(f"{name} {value:.2f}" for name, value in ratios.items() if name != "n_rows")),
        (f"scaling over {len(data['settings']['sizes'])} sizes, "
         f"{min(data['settings']['sizes']):,} to {largest:,} rows", _join(checks), NONE,
         "targets met" if all(c["met"] for c in data["checks"]) else "TARGET MISSED"),
    ]


RULES = {
    "accounting_speed": accounting_speed,
    "audit_canary": audit_canary,
    "audit_mechanisms": audit_mechanisms,
    "dplssgd_speed": dplssgd_speed,
    "dplssgd_utility": dplssgd_utility,
    "dropout_stability": dropout_stability,
    "gems_digits": gems_digits,
    "pate_adult": pate_adult,
    "private_search": private_search,
    "scale": scale,
}


# --- the table --------------------------------------------------------------------------------


def summarize(path):
    """The rows of one result file; a generic row where no rule reads it."""
    name = path.stem
    see = f"see results/{name}.md"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        return [(name, "(unreadable JSON)", NONE, NONE, f"{type(exc).__name__}; {see}")]
    rule = RULES.get(name)
    if rule is None:
        return [(name, "(no summary rule)", NONE, NONE, see)]
    try:
        rows = rule(data)
    # A result written by an older or newer version of its script: say so, and go on.
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, StopIteration,
            ZeroDivisionError) as exc:
        return [(name, "(JSON not in the expected shape)", NONE, NONE,
                 f"{type(exc).__name__}: {exc}; {see}")]
    return [(name, *row) for row in rows]


def _cell(text):
    return str(text).replace("|", "/").replace("\n", " ")  # nothing may break the table


def main():
    paths = [p for p in sorted(RESULTS.glob("*.json")) if p.stem not in SKIP]
    rows = [row for path in paths for row in summarize(path)]
    lines = [
        "# Benchmark summary (benchmarks/summarize.py)",
        "",
        "The headline of each results/<name>.json: skprivate beside its peers or the "
        "non-private baseline, on the same data and seeds in the same run. Accuracies are "
        "on held-out test rows. Each benchmark's results/<name>.md has the full tables.",
        "",
    ]
    lines += markdown_table(
        ["benchmark", "measure", "skprivate", "peers and baselines", "comparison"],
        [[_cell(cell) for cell in row] for row in rows],
    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
