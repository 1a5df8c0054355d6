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
    # Every DPLSSGDClassifier variant is ours; the rest (Opacus, non-private) are peers.
    ours_methods = ("DP-LSSGD", "smoothing=1", "old defaults")
    rows = []
    for name, record in data["datasets"].items():
        methods = record["methods"]

        def accuracy(method):
            m = methods.get(method)
            return "n/a" if m is None else f"{100 * m['mean'][i]:.1f} %"

        ours = [f"{'defaults' if m == 'DP-LSSGD' else m} {accuracy(m)}"
                for m in ours_methods if m in methods]
        peers = [f"{m} {accuracy(m)}" for m in methods if m not in ours_methods]
        if record.get("majority_class") is not None:
            peers.append(f"majority {100 * record['majority_class']:.1f} %")
        leads = [f"defaults - {m} {lead[i]:+.1f} points"
                 for m, lead in record["lead_points"].items()]
        rows.append((f"{name}: test accuracy at epsilon={epsilons[i]:g}, mean over {n_seeds} "
                     f"seed{'s' if n_seeds > 1 else ''}", _join(ours), _join(peers),
                     _join(leads)))
    checks = [c for c in data["targets"] if c["met"] is not None]
    met = sum(c["met"] for c in checks)
    worst = min((c for c in checks if "Opacus" in c["check"]), key=lambda c: c["value"],
                default=None)
    rows.append((
        f"targets (defaults within 1 point of Opacus on digits and breast cancer, "
        f"both scalings; Adult), epsilon {', '.join(f'{e:g}' for e in epsilons)}",
        f"{met} of {len(checks)} met",
        "Opacus's learning rate chosen on a validation carve-out (unaccounted, so favoured)",
        NONE if worst is None else
        f"worst defaults - Opacus {worst['value']:+.1f} points ({worst['dataset']}, "
        f"epsilon {worst['epsilon']:g})"))
    return rows


def _mean_by(rows, *keys):
    groups = {}
    for r in rows:
        if r.get("accuracy") is not None:
            groups.setdefault(tuple(r.get(k) for k in keys), []).append(r)
    return {k: (sum(r["accuracy"] for r in g) / len(g),
                sum(r["epsilon"] or 0.0 for r in g) / len(g)) for k, g in groups.items()}


def pate_adult(data):
    means = _mean_by(data["rows"], "model", "target_epsilon")
    forest = means[("forest (non-private)", None)][0]
    # "PATE (calibrated)", with the default options in brackets since issue 17's last round
    calibrated = {t: a for (m, t), (a, _) in means.items() if m.startswith("PATE (calibrated")}
    ours = [f"eps {t:g}: {a:.3f}" for t, a in calibrated.items()]
    old = means[("defaults before issue 17 (LNMax b=20, 500 queries)", None)]
    lssgd = [f"eps {t:g}: {a:.3f}" for (m, t), (a, _) in means.items()
             if m == "DPLSSGDClassifier defaults"]
    at_two = [a for t, a in calibrated.items() if t <= 2.0]
    return [(
        f"Adult student accuracy, {data['settings']['teachers']} teachers, "
        f"{len(data['seeds'])} seeds (noise and queries calibrated from epsilon)",
        _join(ours),
        f"non-private forest {forest:.3f}; DPLSSGD {_join(lssgd)}; old defaults "
        f"{old[0]:.3f} at epsilon_ {old[1]:.1f}",
        f"best PATE at epsilon <= 2: {max(at_two):.3f}; target: {data['targets']}"
        if at_two else data["targets"],
    )]


def pate_small(data):
    means = _mean_by(data["rows"], "dataset", "model", "target_epsilon")
    rows = []
    for dataset in dict.fromkeys(r["dataset"] for r in data["rows"]):
        pate = {t: a for (d, m, t), (a, _) in means.items()
                if d == dataset and m == "PATE defaults"}
        lssgd = {t: a for (d, m, t), (a, _) in means.items()
                 if d == dataset and m == "DPLSSGDClassifier defaults"}
        forest = means.get((dataset, "forest (non-private)", None), (float("nan"),))[0]
        major = means.get((dataset, "majority class", None), (float("nan"),))[0]
        t = min(pate, key=lambda e: abs(e - 2.0)) if pate else None
        rows.append((
            f"{dataset}: accuracy of PATE's defaults at a stated epsilon, "
            f"{len(data['seeds'])} seeds",
            _join([f"PATE eps {e:g}: {a:.3f}" for e, a in pate.items()]),
            _join([f"forest {forest:.3f}", f"majority {major:.3f}"]
                  + [f"DPLSSGD eps {e:g}: {a:.3f}" for e, a in lssgd.items()]),
            NONE if t is None else
            f"at eps {t:g}: PATE - forest {100 * (pate[t] - forest):+.1f} points, "
            f"PATE - majority {100 * (pate[t] - major):+.1f} points"))
    rows.append(("targets", data["targets"], NONE, "see results/pate_small.md"))
    return rows


def audit_estimators(data):
    settings = data["settings"]
    rows = []
    for name in dict.fromkeys(r["estimator"] for r in data["rows"]):
        audits = [r for r in data["rows"] if r["estimator"] == name and not r["control"]]
        controls = [r for r in data["rows"] if r["estimator"] == name and r["control"]]
        verdict = []
        if audits:
            above = any(r["epsilon_lower_bound"] > r["claimed_epsilon"] for r in audits)
            verdict.append("CLAIM VIOLATED" if above else "bound below the claim")
        if controls:
            caught = all(r["fixed_event_bound"] > r["claimed_epsilon"] for r in controls)
            verdict.append("control caught" if caught else "control NOT caught")
        rows.append((
            f"{name}: real fit with a gradient canary, bound (95 %) vs claimed epsilon_, "
            f"{'/'.join(str(r['runs_per_side']) for r in audits)} runs per side",
            _join(f"{r['epsilon_lower_bound']:.3f} vs {r['claimed_epsilon']:.3f}"
                  for r in audits),
            _join(f"control, noise / 4 under the same claim: {r['fixed_event_bound']:.3f} vs "
                  f"{r['claimed_epsilon']:.3f}" for r in controls),
            _join(verdict)))
    if data.get("failed"):
        rows.append((f"epsilon {settings['epsilon']:g}", "FAILED", NONE,
                     "; ".join(data["failed"])))
    return rows


def _mean_accuracy(rows, **where):
    values = [r["accuracy"] for r in rows
              if r.get("accuracy") is not None and all(r[k] == v for k, v in where.items())]
    return sum(values) / len(values) if values else None


def private_preprocessing(data):
    rows_in = data["rows"]
    epsilons = data["settings"]["epsilons"]
    e = epsilons[_closest(epsilons, 1.0)]
    rows = []
    for name in dict.fromkeys(r["data"] for r in rows_in):

        def acc(variant, scaling="raw"):
            return _mean_accuracy(rows_in, data=name, variant=variant, epsilon=e,
                                  scaling=scaling)

        private, leaky = acc("private"), acc("leaky")
        others = [(v, acc(v)) for v in ("leaky", "none", "codebook")]
        rows.append((
            f"{name} (raw inputs): test accuracy at total epsilon {e:g}, "
            f"{len(data['settings']['seeds'])} seeds",
            _join([f"private StandardScaler + DPLSSGD {_num(private)}"]
                  + ([f"with private OneHotEncoder {_num(acc('private+discovery'))}"]
                     if acc("private+discovery") is not None else [])),
            _join(f"{'sklearn StandardScaler (leaky)' if v == 'leaky' else v} {_num(a)}"
                  for v, a in others if a is not None),
            "n/a" if private is None or leaky is None else
            f"private - leaky {100 * (private - leaky):+.1f} points (the leaky scaler's "
            "mean and variance are outside the guarantee)"))

    def spread(variant):
        worst = 0.0
        for name in {r["data"] for r in rows_in}:
            for eps in epsilons:
                values = [a for s in data["settings"]["scalings"]
                          if (a := _mean_accuracy(rows_in, data=name, variant=variant,
                                                  epsilon=eps, scaling=s)) is not None]
                if len(values) > 1:
                    worst = max(worst, max(values) - min(values))
        return worst

    rows.append((
        f"scaling invariance: largest accuracy spread across input scalings "
        f"({'/'.join(data['settings']['scalings'])}), every data set and epsilon",
        f"private {100 * spread('private'):.1f} points",
        f"leaky {100 * spread('leaky'):.1f} points; none {100 * spread('none'):.1f} points",
        "0 means the private pipeline ignores how the table was scaled"))
    return rows


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


def dropout_regime(data):
    rows = []
    results = data["results"]
    for name in sorted({r["data"] for r in results}):
        cells = [r for r in results if r["data"] == name]
        count = {k: sum(r["region"] == k for r in cells)
                 for k in ("learns", "between", "chance")}
        full = max(r["n"] for r in cells)
        at = min((r for r in cells if r["n"] == full), key=lambda r: abs(r["epsilon"] - 1.0))
        others = (f"majority {at['majority']:.3f}; output perturbation "
                  f"{at['output perturbation']:.3f}")
        if at.get("dplssgd") is not None:
            others += f"; DPLSSGD {at['dplssgd']:.3f}"
        rows.append((
            f"{name}: cells learning / between / at chance; accuracy at n={full:,}, "
            f"epsilon={at['epsilon']:g}",
            f"{count['learns']} / {count['between']} / {count['chance']}; DPDropout "
            f"{at['dpdropout']:.3f}", others,
            f"DPDropout - non-private {at['dpdropout'] - at['non-private']:+.3f}",
        ))
    silent = data["silent chance cells"]
    rows.append(("cells at chance without a warning", str(len(silent)), NONE,
                 "0 required" if not silent else "NOT 0"))
    return rows


def dask_scale(data):
    res, settings = data["results"], data["settings"]
    mem, small, big = res["memory_1M"], res["dask_1M"], res["dask_big"]
    peak = max(big["peak_rss_gb_per_worker"].values())
    return [
        (f"DP-SGD seconds per step, {settings['n_workers']} Dask workers (LocalCluster), "
         f"{settings['timed_steps']} steps timed",
         _join([f"Dask {small['n_rows']:,} rows: {small['step_s']:.3f} s",
                f"Dask {big['n_rows']:,} rows: {big['step_s']:.3f} s"]),
         f"in memory {mem['n_rows']:,} rows: {mem['step_s']:.5f} s",
         f"scheduler round trip {small['round_trip_s']:.3f} s ({small['n_rows']:,}) / "
         f"{big['round_trip_s']:.3f} s ({big['n_rows']:,}); loaded 2-core machine"),
        (f"memory per worker at {big['n_rows']:,} rows ({big['table_gb']:.1f} GB table)",
         f"peak resident {peak:.2f} GB", NONE,
         "bounded by the worker's chunks plus the interpreter"),
    ]


def pate_label_ceiling(data):
    groups = {}
    for r in data["rows"]:  # no epsilon here (true labels): _mean_by does not apply
        groups.setdefault((r["dataset"], r["queries"]), []).append(r["accuracy"])
    rows = []
    for dataset in dict.fromkeys(r["dataset"] for r in data["rows"]):
        cells = [f"k={k}: {sum(a) / len(a):.3f}" for (d, k), a in groups.items() if d == dataset]
        rows.append((f"{dataset}: forest on the TRUE labels of k k-means public points, "
                     f"{len(data['seeds'])} seeds", _join(cells), NONE,
                     "an upper bound for PATE's student with k answers"))
    return rows


def pate_student(data):
    groups = {}
    for r in data["rows"]:
        groups.setdefault((r["classes"], r["target_epsilon"], r["student"]), []).append(r)
    rows = []
    for n_classes in dict.fromkeys(r["classes"] for r in data["rows"]):
        cells, gaps = [], []
        for (c, eps, student), group in groups.items():
            if c != n_classes or student != "gradient boosting":
                continue
            boost = sum(r["accuracy"] for r in group) / len(group)
            forest = groups[(c, eps, "forest")]
            forest = sum(r["accuracy"] for r in forest) / len(forest)
            cells.append(f"{group[0]['answers']} answers: {boost:.3f}")
            gaps.append(f"{group[0]['answers']}: {100 * (boost - forest):+.1f}")
        rows.append((f"synthetic, {n_classes} classes: PATE's gradient-boosting student, "
                     f"{len(data['seeds'])} seeds", _join(cells), "forest student",
                     "boosting - forest, points, by answers: " + _join(gaps)))
    return rows


def nonlinear(data):
    """Per table at epsilon 1 (or the run's first epsilon): the best private model's accuracy
    against non-private gradient boosting on the same features."""
    rows = data["rows"]
    eps = 1.0 if any(r["epsilon"] == 1.0 for r in rows) else data["settings"]["epsilons"][0]
    out = []
    for table in dict.fromkeys(r["table"] for r in rows):
        means = {}
        for model in dict.fromkeys(r["model"] for r in rows if r["table"] == table):
            values = [r["accuracy"] for r in rows if r["table"] == table
                      and r["model"] == model and r["epsilon"] in (eps, None)]
            if values:
                means[model] = sum(values) / len(values)
        private = {m: v for m, v in means.items() if "not private" not in m
                   and m != "majority class"}
        if not private:
            continue
        best = max(private, key=private.get)
        reference = means.get("sklearn HGB (not private)")
        out.append((
            f"{table}: best private classifier at epsilon {eps:g}, {len(data['seeds'])} seeds",
            f"{best} {private[best]:.3f}",
            f"non-private boosting {_num(reference)}",
            f"{100 * (private[best] - reference):+.1f} points" if reference is not None
            else NONE,
        ))
    return out


def rounded_sampler(data):
    rows = data["rows"]
    return [(
        "exact rounded Gaussian sampler, ns per value",
        _join(f"{r['case']}: {r['new (ns/value)']:.0f}" for r in rows),
        f"previous exact sampler; NumPy standard_normal {data['standard_normal_ns']:.0f}",
        "speed-up " + _join(f"{r['speed-up']:.1f}x" for r in rows),
    )]


RULES = {
    "accounting_speed": accounting_speed,
    "audit_canary": audit_canary,
    "audit_estimators": audit_estimators,
    "audit_mechanisms": audit_mechanisms,
    "dask_scale": dask_scale,
    "dplssgd_speed": dplssgd_speed,
    "dplssgd_utility": dplssgd_utility,
    "dropout_stability": dropout_stability,
    "dropout_regime": dropout_regime,
    "gems_digits": gems_digits,
    "nonlinear": nonlinear,
    "pate_adult": pate_adult,
    "pate_label_ceiling": pate_label_ceiling,
    "pate_small": pate_small,
    "pate_student": pate_student,
    "private_preprocessing": private_preprocessing,
    "private_search": private_search,
    "rounded_sampler": rounded_sampler,
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
