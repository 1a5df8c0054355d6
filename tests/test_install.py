"""The packaging choices a user meets on installing (issue 30): tested from the clone only."""

import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

pytestmark = pytest.mark.skipif(not PYPROJECT.exists(), reason="needs the clone's pyproject.toml")


def extras():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    return tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]


def test_progress_extra_draws_widgets_in_notebooks():
    # tqdm.auto needs ipywidgets for a notebook bar; without it, a TqdmWarning and text bars
    names = {req.split(">")[0].split("=")[0].split("[")[0].strip() for req in extras()["progress"]}
    assert {"tqdm", "ipywidgets"} <= names


def test_editable_install_imports_from_the_folder_above_the_clone(tmp_path):
    # The case, replayed: a clone named skprivate, installed in editable mode, and a
    # script in the folder above it. setuptools' editable wheel (PEP 660, no network) says
    # how the install will find the package; the script then imports with that path.
    pytest.importorskip("setuptools")
    clone = tmp_path / "skprivate"
    (clone / "skprivate").mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, clone / name)
    for name in ("__init__.py", "_version.py"):
        shutil.copy(ROOT / "skprivate" / name, clone / "skprivate" / name)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-c",
         "import sys, setuptools.build_meta as b; b.build_editable(sys.argv[1])", str(wheels)],
        cwd=clone, check=True, capture_output=True, text=True,
    )
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as contents:
        pth = [name for name in contents.namelist() if name.endswith(".pth")]
        entries = [contents.read(name).decode().strip() for name in pth]
    # a path entry: no import finder, which Python would consult after the namespace folder
    assert [pathlib.Path(entry) for entry in entries] == [clone]
    script = (
        "import importlib.util, sys; sys.path.append(sys.argv[1]); "
        "print(importlib.util.find_spec('skprivate').origin)"
    )
    # -S -E: this environment's own skprivate (site-packages, PYTHONPATH) stays out of it
    found = subprocess.run([sys.executable, "-S", "-E", "-c", script, entries[0]], cwd=tmp_path,
                           check=True, capture_output=True, text=True).stdout.strip()
    assert pathlib.Path(found) == clone / "skprivate" / "__init__.py"
