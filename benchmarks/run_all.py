"""Run every benchmark script in this folder, one after another (``make bench``)."""

import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).parent
failed = []
for script in sorted(here.glob("*.py")):
    if script.name == pathlib.Path(__file__).name or script.name.startswith("_"):
        continue
    print(f"\n=== {script.name} ===", flush=True)
    if subprocess.run([sys.executable, str(script)]).returncode != 0:
        failed.append(script.name)
if failed:
    sys.exit(f"benchmarks failed: {', '.join(failed)}")
