"""Run every benchmark script in this folder, one after another (``make bench``).

Each script writes its results to ``results/<script>.json`` and its tables to
``results/<script>.md``; its printed output is also kept in ``results/<script>.log``, with the
time and status of each script in ``results/run_all.json`` (a run of named scripts updates
their entries only). Last, ``summarize.py`` (not a
benchmark) collects the headline of every JSON in ``results/summary.md``, whether or not
this run refreshed it. ``docs/benchmarks.rst`` shows the Markdown tables.
"""

import json
import pathlib
import subprocess
import sys
import time

here = pathlib.Path(__file__).parent
NOT_BENCHMARKS = {pathlib.Path(__file__).name, "summarize.py"}  # helpers start with "_"
results = here / "results"
results.mkdir(exist_ok=True)
summary, failed = [], []
only = set(sys.argv[1:])  # optional: names of the scripts to run
for script in sorted(here.glob("*.py")):
    if script.name in NOT_BENCHMARKS or script.name.startswith("_"):
        continue
    if only and script.stem not in only and script.name not in only:
        continue
    print(f"\n=== {script.name} ===", flush=True)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:  # echo as it comes, keep a copy
        print(line, end="", flush=True)
        lines.append(line)
    code = proc.wait()
    seconds = time.perf_counter() - start
    (results / f"{script.stem}.log").write_text("".join(lines))
    summary.append({"script": script.name, "seconds": round(seconds, 1), "returncode": code})
    if code != 0:
        failed.append(script.name)
# A partial run (script names given) updates its scripts' entries and keeps the others'.
ledger = results / "run_all.json"
kept = json.loads(ledger.read_text()) if only and ledger.exists() else []
ran = {s["script"] for s in summary}
merged = sorted([s for s in kept if s["script"] not in ran] + summary, key=lambda s: s["script"])
ledger.write_text(json.dumps(merged, indent=2))
print("\n=== summarize.py ===", flush=True)
if subprocess.run([sys.executable, str(here / "summarize.py")], check=False).returncode:
    failed.append("summarize.py")
print("\n" + "\n".join(f"{s['script']:<28} {s['seconds']:>8.1f} s  "
                       f"{'ok' if s['returncode'] == 0 else 'FAILED'}" for s in summary))
if failed:
    sys.exit(f"benchmarks failed: {', '.join(failed)}")
