"""What the benchmark scripts share to write ``results/<name>.json`` and ``results/<name>.md``.

Not a benchmark: ``run_all.py`` skips the files of this folder whose name starts with ``_``.
"""

import importlib.metadata
import json
import math
import pathlib
import platform

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def versions(*packages):
    """Python's version and each named distribution's, None for one that is not installed."""
    found = {"python": platform.python_version()}
    for name in packages:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def plain(value):
    """``value`` as strict JSON: NumPy values as Python ones, NaN and infinity as None."""
    if hasattr(value, "tolist"):  # NumPy arrays and scalars
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def markdown_table(header, rows):
    """The lines of a Markdown table; the cells are formatted by the caller."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def write(name, payload, markdown_lines):
    """Write ``results/<name>.json`` and ``results/<name>.md``; return their paths."""
    RESULTS.mkdir(exist_ok=True)
    json_path, md_path = RESULTS / f"{name}.json", RESULTS / f"{name}.md"
    json_path.write_text(json.dumps(plain(payload), indent=2, allow_nan=False) + "\n")
    md_path.write_text("\n".join(markdown_lines).rstrip("\n") + "\n")
    return json_path, md_path
