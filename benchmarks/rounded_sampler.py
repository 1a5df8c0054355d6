"""Speed of the exact rounded Gaussian sampler, the package's against the previous one.

Run with ``python benchmarks/rounded_sampler.py`` (about a minute on 2 cores). For each
variance ``S`` (in grid units), ``sample_rounded_gaussian(S, n, rng)`` with the default
ChaCha20 generator, old (``_rounded_old.py``, the integer-only sampler the package used
before) and new in interleaved rounds; each keeps its fastest round, the time least
disturbed by other processes on a shared machine. The DP-SGD row is the plan
``rounded_gaussian_plan(1.0, 1.1, 1000)`` (a standard deviation of about 36,000 grid
units), the one a fit draws for every weight at every step. For scale: one 64-bit ChaCha20
word and one NumPy ``standard_normal`` on the same generator. Writes
``benchmarks/results/rounded_sampler.json`` and ``.md``.
"""

import time
from fractions import Fraction

import numpy as np
from _results import markdown_table, versions, write
from _rounded_old import sample_rounded_gaussian as old_sampler

from skprivate.mechanisms import rounded_gaussian_plan
from skprivate.mechanisms._rng import check_rng
from skprivate.mechanisms._rounded import sample_rounded_gaussian as new_sampler

ROUNDS = 3
CASES = {
    "DP-SGD plan (S = 1301766401)": (rounded_gaussian_plan(1.0, 1.1, 1000).scale, 1 << 18),
    "S = 1/4": (Fraction(1, 4), 1 << 18),
    "S = 2": (Fraction(2), 1 << 18),
    "S = 1000": (Fraction(1000), 1 << 18),
    "S = 10**12": (Fraction(10**12), 1 << 16),  # the old sampler is slow here
}


def _best(fn, n):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / n * 1e9


def main():
    rng = check_rng(None)
    rows = []
    for name, (S, n) in CASES.items():
        old_sampler(S, 1000, rng), new_sampler(S, 1000, rng)  # warm up
        old = new = np.inf
        for _ in range(ROUNDS):
            old = min(old, _best(lambda: old_sampler(S, n, rng), n))
            new = min(new, _best(lambda: new_sampler(S, n, rng), n))
        rows.append({"case": name, "values": n, "old (ns/value)": old, "new (ns/value)": new,
                     "speed-up": old / new})
        print(f"{name}: old {old:.0f} ns/value, new {new:.0f} ns/value, x{old / new:.1f}",
              flush=True)
    word = normal = np.inf
    for _ in range(ROUNDS):
        word = min(word, _best(lambda: rng.integers(0, 2**64, size=1 << 20, dtype=np.uint64),
                               1 << 20))
        normal = min(normal, _best(lambda: rng.standard_normal(1 << 20), 1 << 20))
    print(f"one ChaCha20 word {word:.1f} ns, one standard_normal {normal:.1f} ns")
    lines = ["# Exact rounded Gaussian sampler: ns per value (ChaCha20)", ""]
    lines += markdown_table(
        ["case", "values", "old (ns/value)", "new (ns/value)", "speed-up"],
        [[r["case"], r["values"], f"{r['old (ns/value)']:.0f}", f"{r['new (ns/value)']:.0f}",
          f"{r['speed-up']:.1f}x"] for r in rows])
    lines += ["", f"For scale: one 64-bit ChaCha20 word {word:.1f} ns, one "
              f"`standard_normal` {normal:.1f} ns."]
    write("rounded_sampler", {"rows": rows, "chacha20_word_ns": word,
                              "standard_normal_ns": normal,
                              "versions": versions("skprivate", "numpy", "randomgen")}, lines)


if __name__ == "__main__":
    main()
