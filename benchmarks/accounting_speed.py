"""Accounting: skprivate against dp-accounting and Opacus, on the DP-SGD range that matters.

For noise multipliers 0.6 to 4, sample rates 0.001 to 0.1 and 100 to 10,000 steps (delta
1e-5) it prints skprivate's RDP and PLD epsilons next to dp-accounting's (default orders)
and Opacus's PRV accountant, then the time to calibrate the noise for a target epsilon,
next to Opacus's ``get_noise_multiplier``.
"""

import itertools
import time

from dp_accounting import pld, rdp

from skprivate.accounting import dpsgd_epsilon, dpsgd_event, dpsgd_noise_multiplier

DELTA = 1e-5


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


def main():
    try:
        from opacus.accountants import PRVAccountant
        from opacus.accountants.utils import get_noise_multiplier
    except ImportError:  # opacus is a test extra
        PRVAccountant = get_noise_multiplier = None

    print(f"{'z':>4} {'q':>6} {'steps':>6} | {'ours rdp':>9} {'dp-acc rdp':>10} {'ratio':>6} | "
          f"{'ours pld':>9} {'dp-acc pld':>10} {'opacus prv':>10}")
    for z, q, steps in itertools.product([0.6, 1.0, 2.0, 4.0], [0.001, 0.01, 0.1],
                                         [100, 1000, 10_000]):
        ours_rdp = dpsgd_epsilon(z, q, steps, DELTA)
        ours_pld = dpsgd_epsilon(z, q, steps, DELTA, accountant="pld")
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

    print(f"\nCalibration time (s) for delta={DELTA}")
    print(f"{'target':>6} {'q':>6} {'steps':>6} | {'rdp':>6} {'pld':>6} {'opacus rdp':>10} "
          f"{'opacus prv':>10}")
    for target, q, steps in [(0.5, 0.001, 10_000), (1.0, 0.01, 1000), (2.0, 0.004, 5000),
                             (8.0, 0.1, 100), (4.0, 0.05, 10_000)]:
        z_rdp, t_rdp = timed(dpsgd_noise_multiplier, target, q, steps, DELTA)
        z_pld, t_pld = timed(dpsgd_noise_multiplier, target, q, steps, DELTA, accountant="pld")
        t_orp = t_oprv = float("nan")
        if get_noise_multiplier is not None:
            _, t_orp = timed(get_noise_multiplier, target_epsilon=target, target_delta=DELTA,
                             sample_rate=q, steps=steps, accountant="rdp")
            _, t_oprv = timed(get_noise_multiplier, target_epsilon=target, target_delta=DELTA,
                              sample_rate=q, steps=steps, accountant="prv")
        print(f"{target:>6} {q:>6} {steps:>6} | {t_rdp:>6.2f} {t_pld:>6.2f} {t_orp:>10.2f} "
              f"{t_oprv:>10.2f}   (z: rdp {z_rdp:.4f}, pld {z_pld:.4f})")


if __name__ == "__main__":
    main()
