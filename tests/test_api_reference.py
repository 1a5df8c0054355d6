"""Every public object is in the API reference (docs/api.rst), with a runnable example.

The public objects are the names in ``__all__`` of ``skprivate`` and of each of its public
subpackages (``skprivate._SUBMODULES``, ``skprivate.neural_network``, and any other
top-level submodule whose name does not start with an underscore). A class, function or
constant is in the reference when an ``autosummary`` entry (or an ``auto*`` directive) of
api.rst names it, under its own module or another public module that exports the same
object. Classes and functions must also have a numpydoc "Examples" section with a doctest.
"""

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import skprivate

API_RST = Path(__file__).resolve().parent.parent / "docs" / "api.rst"

# What api.rst must cover at least; _public_modules() adds any other public submodule.
REQUIRED_MODULES = [
    "skprivate",
    *(f"skprivate.{name}" for name in skprivate._SUBMODULES),
    "skprivate.neural_network",
]
# Submodules that need an optional import, and that import.
OPTIONAL_IMPORTS = {"skprivate.neural_network": "torch"}
NOT_DOCUMENTED = {"__version__"}

_DIRECTIVE = re.compile(r"^\.\. (currentmodule|autosummary|auto\w+)::\s*(\S*)\s*$")
_EXAMPLES = re.compile(
    r"^Examples\n-{8,}\n(?P<body>.*?)(?=^\S[^\n]*\n-{3,}$|\Z)", re.MULTILINE | re.DOTALL
)


def _public_modules():
    found = {
        f"skprivate.{info.name}"
        for info in pkgutil.iter_modules(skprivate.__path__)
        if not info.name.startswith("_")
    }
    return ["skprivate", *sorted(found | set(REQUIRED_MODULES) - {"skprivate"})]


def _import(modname):
    if modname in OPTIONAL_IMPORTS:
        pytest.importorskip(OPTIONAL_IMPORTS[modname])
    return importlib.import_module(modname)


def _documented_names(text):
    """Fully qualified names that api.rst documents, in order."""
    names = []
    module = "skprivate"
    in_autosummary = False
    for line in text.splitlines():
        match = _DIRECTIVE.match(line)
        if match:
            directive, argument = match.groups()
            in_autosummary = directive == "autosummary"
            if directive == "currentmodule":
                module = argument
            elif directive not in ("autosummary", "automodule") and argument:
                names.append(_qualify(argument, module))
            continue
        if not in_autosummary or not line.strip() or line.lstrip().startswith(":"):
            continue
        if not line.startswith(" "):  # the end of the autosummary block
            in_autosummary = False
            continue
        names.append(_qualify(line.strip().lstrip("~"), module))
    return names


def _qualify(name, module):
    return name if name.split(".")[0] == "skprivate" else f"{module}.{name}"


def _resolve(qualified):
    """The object a fully qualified name stands for (the longest importable module prefix)."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        modname = ".".join(parts[:cut])
        try:
            obj = _import(modname)
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualified)


def _is_class_or_function(obj):
    return inspect.isclass(obj) or inspect.isroutine(obj)


def _public_objects(modname):
    module = _import(modname)
    assert hasattr(module, "__all__"), f"{modname} defines no __all__"
    for name in module.__all__:
        obj = getattr(module, name)
        if name in NOT_DOCUMENTED or inspect.ismodule(obj):
            continue
        yield name, obj


@pytest.fixture(scope="module")
def documented():
    """{qualified name: object} of everything api.rst documents."""
    out = {}
    for qualified in _documented_names(API_RST.read_text(encoding="utf-8")):
        try:
            out[qualified] = _resolve(qualified)
        except pytest.skip.Exception:  # an optional dependency is missing
            continue
    return out


def test_parser_reads_api_rst():
    names = _documented_names(API_RST.read_text(encoding="utf-8"))
    assert "skprivate.DPLSSGDClassifier" in names
    assert "skprivate.accounting.DEFAULT_RDP_ORDERS" in names
    assert "skprivate.exceptions.BudgetExceededError" in names
    assert len(names) == len(set(names)), "api.rst lists a name twice"


def test_required_modules_are_public_modules():
    assert set(REQUIRED_MODULES) <= set(_public_modules())


def test_every_api_rst_entry_exists(documented):
    for qualified in _documented_names(API_RST.read_text(encoding="utf-8")):
        if qualified not in documented:  # skipped for a missing optional dependency
            continue
        assert not inspect.ismodule(documented[qualified]), qualified


@pytest.mark.parametrize("modname", _public_modules())
def test_every_public_object_is_in_api_rst(modname, documented):
    documented_ids = {id(obj) for obj in documented.values()}
    missing = [
        name
        for name, obj in _public_objects(modname)
        if f"{modname}.{name}" not in documented and id(obj) not in documented_ids
    ]
    assert not missing, (
        f"{modname}.__all__ has objects that docs/api.rst does not list: {missing}. Add "
        "them to an autosummary block there (under the right currentmodule)."
    )


@pytest.mark.parametrize("modname", _public_modules())
def test_every_public_class_and_function_has_examples(modname):
    missing = []
    for name, obj in _public_objects(modname):
        if not _is_class_or_function(obj):
            continue
        # The object's own docstring: a class without one would show its parent's.
        match = _EXAMPLES.search(inspect.cleandoc(obj.__doc__ or ""))
        if match is None or ">>>" not in match.group("body"):
            missing.append(name)
    assert not missing, (
        f"{modname}: these public objects have no numpydoc 'Examples' section with a "
        f"doctest (>>>) in their docstring: {missing}"
    )


def test_examples_check_sees_a_missing_section():
    def documented(x):
        """Do it.

        Examples
        --------
        >>> documented(1)
        """

    def undocumented(x):
        """Do it.

        Examples
        --------
        Nothing runnable.

        Notes
        -----
        >>> not an example
        """

    def found(obj):
        match = _EXAMPLES.search(inspect.cleandoc(obj.__doc__))
        return match is not None and ">>>" in match.group("body")

    assert found(documented)
    assert not found(undocumented)
