"""Docstrings against signatures: every parameter documented, in order, with its default.

The model is scikit-learn's ``sklearn/tests/test_docstring_parameters.py``: each public
class and function of the API reference (``docs/api.rst``) is parsed with
``numpydoc.docscrape`` and its "Parameters" section compared with the signature (of
``__init__`` for a class). A parameter must

- be documented, and the documented parameters must follow the signature's order (a
  signature with ``**kwargs`` may document more, the keywords it passes on);
- have a type, and for a parameter with a default, a type line ending in ``default=<value>``
  whose value is the real default (compared as Python values, not as text: ``1e-5`` and
  ``0.00001`` agree, ``"auto"`` and ``'auto'`` too);
- and nothing may be documented that the signature lacks.
"""

import dataclasses
import inspect
import math
import sys
import warnings

import pytest

numpydoc_docscrape = pytest.importorskip("numpydoc.docscrape")

from skprivate.utils import all_estimators  # noqa: E402
from tests.test_api_reference import API_RST, _documented_names, _resolve  # noqa: E402

_DEFAULT = "default="


def _documented_objects():
    out = []
    for qualified in _documented_names(API_RST.read_text(encoding="utf-8")):
        try:
            obj = _resolve(qualified)
        except pytest.skip.Exception:  # an optional dependency (torch) is missing
            continue
        if inspect.isclass(obj) or inspect.isroutine(obj):
            out.append(pytest.param(obj, id=qualified))
    return out


def _signature(obj):
    target = obj.__init__ if inspect.isclass(obj) else obj
    if inspect.isclass(obj) and not inspect.isfunction(target):
        # object's, an exception's or a dict's __init__: nothing of ours to document.
        return []
    params = list(inspect.signature(target).parameters.values())
    return [p for p in params if p.name not in ("self", "cls")]


def _parse(obj):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc's notes on sections it does not know
        if inspect.isclass(obj):
            return numpydoc_docscrape.ClassDoc(obj, config={"show_class_members": False})
        return numpydoc_docscrape.FunctionDoc(obj)


def _doc_names(entry):
    """The names of one numpydoc entry: ``a, b : float`` documents ``a`` and ``b``."""
    return [name.strip().lstrip("*") for name in entry.name.split(",") if name.strip()]


def _default_matches(text, default, namespace):
    """Whether the text after ``default=`` in a type line is the value ``default``."""
    text = text.strip().rstrip(".")
    try:
        value = eval(text, namespace)  # noqa: S307 (our own docstrings)
    except Exception:
        # A name the module does not import (``torch.nn.MSELoss`` in a module that imports
        # torch under another name): compare the last dotted part with the object's name.
        return text.rsplit(".", 1)[-1] == getattr(default, "__name__", object())
    if value is default:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return value is default
    if isinstance(default, (int, float)) and isinstance(value, (int, float)):
        return math.isclose(value, default, rel_tol=1e-12, abs_tol=0.0)
    try:
        return bool(value == default)
    except Exception:
        return False


def _is_record(cls):
    return dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields"))


def docstring_problems(obj):
    """What the "Parameters" section of ``obj`` gets wrong about its signature, as text."""
    name = getattr(obj, "__qualname__", repr(obj))
    params = _signature(obj)
    doc = _parse(obj)
    section = "Parameters"
    if inspect.isclass(obj) and not doc["Parameters"] and _is_record(obj):
        # A result record (named tuple, dataclass) users read but do not build: its fields
        # are documented as "Attributes", and are checked there, defaults aside.
        section = "Attributes"
    entries = {}
    documented = []
    for entry in doc[section]:
        for doc_name in _doc_names(entry):
            entries[doc_name] = entry
            documented.append(doc_name)
    sig_names = [p.name for p in params]
    has_kwargs = any(p.kind is p.VAR_KEYWORD for p in params)
    problems = []
    missing = [n for n in sig_names if n not in entries]
    if missing:
        problems.append(f"{name}: parameters not documented: {missing}")
    extra = [n for n in documented if n not in sig_names]
    if extra and not has_kwargs:
        problems.append(f"{name}: documented but not in the signature: {extra}")
    in_both = [n for n in documented if n in sig_names]
    expected = [n for n in sig_names if n in entries]
    if in_both != expected:
        problems.append(
            f"{name}: parameters documented in the order {in_both}, the signature's is "
            f"{expected}"
        )
    namespace = {"inf": math.inf, "nan": math.nan}
    if obj.__module__ in sys.modules:
        namespace.update(vars(sys.modules[obj.__module__]))
    for param in params:
        entry = entries.get(param.name)
        if entry is None:
            continue
        kind = entry.type.strip()
        if not kind:
            problems.append(f"{name}: parameter {param.name!r} has no type")
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or section != "Parameters":
            continue
        has_doc_default = _DEFAULT in kind
        if param.default is param.empty:
            if has_doc_default:
                problems.append(
                    f"{name}: parameter {param.name!r} is required but its type line says "
                    f"{kind!r}"
                )
            continue
        if not has_doc_default:
            problems.append(
                f"{name}: parameter {param.name!r} has default {param.default!r} but its "
                f"type line {kind!r} has no 'default={param.default!r}'"
            )
            continue
        text = kind.rsplit(_DEFAULT, 1)[1]
        if not _default_matches(text, param.default, namespace):
            problems.append(
                f"{name}: parameter {param.name!r} documents default={text.strip()}, the "
                f"signature's is {param.default!r}"
            )
    return problems


@pytest.mark.parametrize("obj", _documented_objects())
def test_parameters_match_the_signature(obj):
    problems = docstring_problems(obj)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "cls", [pytest.param(cls, id=name) for name, cls in all_estimators()]
)
def test_estimators_have_the_sections_of_scikit_learns_docstrings(cls):
    # The sections a reader looks for, each non-empty: numpydoc parses them, so a heading
    # misspelt or underlined too short counts as missing.
    doc = _parse(cls)
    missing = [
        section
        for section in ("Parameters", "Attributes", "Notes", "Examples")
        if not doc[section]
    ]
    assert not missing, f"{cls.__name__} docstring lacks {missing}"


def test_the_api_reference_yields_objects():
    ids = [p.id for p in _documented_objects()]
    assert "skprivate.DPLSSGDClassifier" in ids
    assert "skprivate.accounting.dpsgd_epsilon" in ids
    assert len(ids) > 40


# --- the checker itself can fail ---------------------------------------------------------


def _good(epsilon, *, delta=1e-5, accounting="pld", average=True, bounds=None):
    """Toy.

    Parameters
    ----------
    epsilon : float
        Budget.
    delta : float, default=0.00001
        Delta.
    accounting : {"rdp", "pld"}, default='pld'
        Method.
    average : bool, default=True
        Averaging.
    bounds : tuple or None, default=None
        Bounds.

    Examples
    --------
    >>> _good(1.0)
    """


def _variant(doc):
    def toy(epsilon, *, delta=1e-5, accounting="pld", average=True, bounds=None):
        pass

    toy.__doc__ = doc
    toy.__module__ = __name__
    return toy


def test_a_correct_docstring_has_no_problem():
    assert docstring_problems(_good) == []


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("    average : bool, default=True\n        Averaging.\n", "", "not documented"),
        ("delta : float, default=0.00001", "delta : float", "has no 'default="),
        ("delta : float, default=0.00001", "delta : float, default=1e-6", "documents default"),
        ("default='pld'", "default='rdp'", "documents default"),
        ("average : bool, default=True", "average : bool, default=False", "documents default"),
        ("bounds : tuple or None, default=None", "bounds : tuple, default=()", "documents"),
        ("epsilon : float", "epsilon : float, default=1.0", "is required"),
        ("    epsilon : float\n", "    epsilon\n", "has no type"),
        (
            "    bounds : tuple or None, default=None\n        Bounds.\n",
            "    bounds : tuple or None, default=None\n        Bounds.\n"
            "    n_samples : int, default=3\n        Gone.\n",
            "not in the signature",
        ),
        (
            "    delta : float, default=0.00001\n        Delta.\n"
            "    accounting : {\"rdp\", \"pld\"}, default='pld'\n        Method.\n",
            "    accounting : {\"rdp\", \"pld\"}, default='pld'\n        Method.\n"
            "    delta : float, default=0.00001\n        Delta.\n",
            "in the order",
        ),
    ],
)
def test_the_checker_catches_each_kind_of_mistake(old, new, message):
    doc = _good.__doc__
    assert old in doc
    problems = docstring_problems(_variant(doc.replace(old, new)))
    assert any(message in p for p in problems), problems


def test_a_class_is_checked_against_its_init():
    class Toy:
        """Toy.

        Parameters
        ----------
        alpha : float, default=1.0
            Penalty.
        """

        def __init__(self, alpha=2.0):
            self.alpha = alpha

    problems = docstring_problems(Toy)
    assert len(problems) == 1 and "alpha" in problems[0] and "2.0" in problems[0]


# --- the one docstring-fragment mechanism ------------------------------------------------


def test_substitution_indents_fragments_to_their_placeholder():
    from skprivate.utils._docstrings import Substitution

    fragment = """
    seed : int, default=0
        The seed; 12 % of the time, %(inner)s.
    """

    class Toy:
        """Toy.

        Parameters
        ----------
        %(seed)s
        """

    Substitution(seed=fragment, inner="nested")(Toy)
    assert "        seed : int, default=0\n            The seed; 12 % of the time, nested." in (
        Toy.__doc__
    )


def test_substitution_refuses_a_placeholder_without_fragment():
    from skprivate.utils._docstrings import Substitution

    def toy():
        """%(missing)s"""

    with pytest.raises(KeyError, match="missing"):
        Substitution(other="x")(toy)


def test_no_docstring_keeps_a_placeholder_or_an_old_template():
    # Every placeholder was filled, and none of the old mechanisms' markers remain.
    import re

    for param in _documented_objects():
        doc = param.values[0].__doc__ or ""
        assert not re.search(r"%\(\w+\)s|\{(parameters|attributes|common|notes)\}", doc), (
            param.id
        )
