"""Accounting: skprivate against dp-accounting and Opacus, on the DP-SGD range that matters.

For noise multipliers 0.6 to 4, sample rates 0.001 to 0.1 and 100 to 10,000 steps (delta
1e-5) it prints skprivate's RDP and PLD epsilons next to dp-accounting's (default orders)
and Opacus's PRV accountant, then the time to calibrate the noise for a target epsilon,
next to Opacus's ``get_noise_multiplier``. Writes ``benchmarks/results/accounting_speed.json``
and ``.md``.
"""

import itertools
import time

from _results import markdown_table, versions, write
from dp_accounting import pld, rdp

from skprivate.accounting import dpsgd_epsilon, dpsgd_event, dpsgd_noise_multiplier

DELTA = 1e-5
NOISE_MULTIPLIERS = [0.6, 1.0, 2.0, 4.0]
SAMPLE_RATES = [0.001, 0.01, 0.1]
STEPS = [100, 1000, 10_000]
CALIBRATIONS = [(0.5, 0.001, 10_000), (1.0, 0.01, 1000), (2.0, 0.004, 5000),
                (8.0, 0.1, 100), (4.0, 0.05, 10_000)]  # (target epsilon, q, steps)


def timed(fun, *args, **kwargs):
    start = time.perf_counter()
    value = fun(*args, **kwargs)
    return value, time.perf_counter() - start


def reference(z, q, steps):
    a = rdp.RdpAccountant()
    a.compose(dpsgd_event(z, q, steps))
    b = pld.PLDAccountant()
    b.compose(dpsgd_event(z, q, steps))
    return a.get_epsilon(DELTA), b.get_epsilon(DELTA)


def epsilon_rows(PRVAccountant):
    """Print and return the epsilons of every (z, q, steps) of the grid."""
    print(f"{'z':>4} {'q':>6} {'steps':>6} | {'ours rdp':>9} {'dp-acc rdp':>10} {'ratio':>6} | "
          f"{'ours pld':>9} {'dp-acc pld':>10} {'opacus prv':>10}")
    rows = []
    for z, q, steps in itertools.product(NOISE_MULTIPLIERS, SAMPLE_RATES, STEPS):
        ours_rdp = dpsgd_epsilon(z, q, steps, DELTA)
        ours_pld = dpsgd_epsilon(z, q, steps, DELTA, accounting="pld")
        ref_rdp, ref_pld = reference(z, q, steps)
        prv = float("nan")
        if PRVAccountant is not None:
            acc = PRVAccountant()
            acc.history = [(z, q, steps)]
            try:
                prv = acc.get_epsilon(DELTA)
            except Exception:  # PRV's own domain limits at extreme settings
                pass
        print(f"{z:>4} {q:>6} {steps:>6} | {ours_rdp:>9.4g} {ref_rdp:>10.4g} "
              f"{ours_rdp / ref_rdp:>6.3f} | {ours_pld:>9.4g} {ref_pld:>10.4g} {prv:>10.4g}")
        rows.append({
            "noise_multiplier": z, "sample_rate": q, "steps": steps,
            "skprivate_rdp": ours_rdp, "dp_accounting_rdp": ref_rdp,
            "rdp_ratio": ours_rdp / ref_rdp,
            "skprivate_pld": ours_pld, "dp_accounting_pld": ref_pld,
            "pld_ratio": ours_pld / ref_pld,  # not printed; the JSON keeps it for the summary
            "opacus_prv": prv,  # None in the JSON where Opacus is missing or out of its domain
        })
    return rows


def calibration_rows(get_noise_multiplier):
    """Print and return the time to calibrate the noise for each target of ``CALIBRATIONS``."""
    print(f"\nCalibration time (s) for delta={DELTA}")
    print(f"{'target':>6} {'q':>6} {'steps':>6} | {'rdp':>6} {'pld':>6} {'opacus rdp':>10} "
          f"{'opacus prv':>10}")
    rows = []
    for target, q, steps in CALIBRATIONS:
        z_rdp, t_rdp = timed(dpsgd_noise_multiplier, target, q, steps, DELTA)
        z_pld, t_pld = timed(dpsgd_noise_multiplier, target, q, steps, DELTA, accounting="pld")
        t_orp = t_oprv = float("nan")
        if get_noise_multiplier is not None:
            _, t_orp = timed(get_noise_multiplier, target_epsilon=target, target_delta=DELTA,
                             sample_rate=q, steps=steps, accountant="rdp")
            _, t_oprv = timed(get_noise_multiplier, target_epsilon=target, target_delta=DELTA,
                              sample_rate=q, steps=steps, accountant="prv")
        print(f"{target:>6} {q:>6} {steps:>6} | {t_rdp:>6.2f} {t_pld:>6.2f} {t_orp:>10.2f} "
              f"{t_oprv:>10.2f}   (z: rdp {z_rdp:.4f}, pld {z_pld:.4f})")
        rows.append({
            "target_epsilon": target, "sample_rate": q, "steps": steps,
            "skprivate_rdp_seconds": t_rdp, "skprivate_pld_seconds": t_pld,
            "opacus_rdp_seconds": t_orp, "opacus_prv_seconds": t_oprv,
            "noise_multiplier_rdp": z_rdp, "noise_multiplier_pld": z_pld,
        })
    return rows


def _markdown(epsilons, calibrations):
    lines = ["# Accounting against dp-accounting and Opacus (benchmarks/accounting_speed.py)",
             "", f"DP-SGD epsilon at delta={DELTA:g}; ratio = skprivate RDP / dp-accounting RDP "
             "(below 1: skprivate's bound is tighter).", ""]
    lines += markdown_table(
        ["z", "q", "steps", "ours rdp", "dp-acc rdp", "ratio", "ours pld", "dp-acc pld",
         "opacus prv"],
        [[r["noise_multiplier"], r["sample_rate"], r["steps"],  # as printed: 1.0, not 1
          f"{r['skprivate_rdp']:.4g}", f"{r['dp_accounting_rdp']:.4g}", f"{r['rdp_ratio']:.3f}",
          f"{r['skprivate_pld']:.4g}", f"{r['dp_accounting_pld']:.4g}",
          f"{r['opacus_prv']:.4g}"] for r in epsilons],
    )
    lines += ["", f"Calibration time (s) for delta={DELTA:g}, and the noise multipliers found.",
              ""]
    lines += markdown_table(
        ["target", "q", "steps", "rdp", "pld", "opacus rdp", "opacus prv", "z rdp", "z pld"],
        [[r["target_epsilon"], r["sample_rate"], r["steps"],
          f"{r['skprivate_rdp_seconds']:.2f}", f"{r['skprivate_pld_seconds']:.2f}",
          f"{r['opacus_rdp_seconds']:.2f}", f"{r['opacus_prv_seconds']:.2f}",
          f"{r['noise_multiplier_rdp']:.4f}", f"{r['noise_multiplier_pld']:.4f}"]
         for r in calibrations],
    )
    return lines


def main():
    try:
        from opacus.accountants import PRVAccountant
        from opacus.accountants.utils import get_noise_multiplier
    except ImportError:  # opacus is a test extra
        PRVAccountant = get_noise_multiplier = None

    start = time.perf_counter()
    epsilons = epsilon_rows(PRVAccountant)
    calibrations = calibration_rows(get_noise_multiplier)
    payload = {
        "benchmark": "accounting_speed",
        "settings": {"delta": DELTA, "noise_multipliers": NOISE_MULTIPLIERS,
                     "sample_rates": SAMPLE_RATES, "steps": STEPS,
                     "calibrations": [dict(zip(("target_epsilon", "sample_rate", "steps"), c))
                                      for c in CALIBRATIONS]},
        "seeds": None,  # deterministic: no randomness to seed
        "versions": versions("skprivate", "dp-accounting", "opacus"),
        "epsilons": epsilons,
        "calibration": calibrations,
        "seconds": time.perf_counter() - start,
    }
    write("accounting_speed", payload, _markdown(epsilons, calibrations))


if __name__ == "__main__":
    main()
