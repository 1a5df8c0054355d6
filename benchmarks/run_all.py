"""Run every benchmark script in this folder, one after another (``make bench``).

Each script's printed tables are also kept in ``results/<script>.log`` with a JSON summary
(``results/run_all.json``: time and status per script); scripts that write their own
``results/<script>.json`` and ``.md`` keep them. ``docs/benchmarks.rst`` shows the tables.
"""

import json
import pathlib
import subprocess
import sys
import time

here = pathlib.Path(__file__).parent
results = here / "results"
results.mkdir(exist_ok=True)
summary, failed = [], []
only = set(sys.argv[1:])  # optional: names of the scripts to run
for script in sorted(here.glob("*.py")):
    if script.name == pathlib.Path(__file__).name or script.name.startswith("_"):
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
(results / "run_all.json").write_text(json.dumps(summary, indent=2))
print("\n" + "\n".join(f"{s['script']:<28} {s['seconds']:>8.1f} s  "
                       f"{'ok' if s['returncode'] == 0 else 'FAILED'}" for s in summary))
if failed:
    sys.exit(f"benchmarks failed: {', '.join(failed)}")
