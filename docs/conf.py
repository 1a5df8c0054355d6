"""Sphinx configuration for the skprivate documentation.

The build needs no network: no intersphinx, no remote images, fonts or analytics. Build with
``make html`` in this directory (warnings are errors); ``make clean`` removes every generated
file.
"""

import os
import re
import sys
from pathlib import Path

# Headless plotting for the gallery examples. sphinx-gallery also selects Agg, but examples
# imported outside its scraper (or by autodoc) must not try to open a window either.
os.environ.setdefault("MPLBACKEND", "Agg")
try:
    import matplotlib

    matplotlib.use("Agg")
except ImportError:  # the gallery has nothing to plot without matplotlib
    pass

# Document the checkout this file belongs to, even where the package is not installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skprivate._version import __version__  # noqa: E402

# -- Project -------------------------------------------------------------------------------

project = "skprivate"
author = "The skprivate developers"
copyright = "The skprivate developers"
release = __version__
version = ".".join(__version__.split(".")[:2])

# -- General -------------------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"
language = "en"
# ``code`` in reStructuredText is literal text, not a cross-reference.
default_role = "literal"

# Citations: :cite:p:`key` cites an entry of references.bib, numbered in the order of first
# citation; the references page lists them all.
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "unsrt"
bibtex_reference_style = "label"

# -- autodoc / autosummary -----------------------------------------------------------------

autosummary_generate = True  # writes stub pages into generated/ (see api.rst)
autosummary_imported_members = False
autodoc_default_options = {"inherited-members": False}
autodoc_typehints = "none"  # the numpydoc "Parameters" sections carry the types
add_module_names = False

# -- numpydoc ------------------------------------------------------------------------------

numpydoc_show_class_members = False  # the class template lists the methods instead
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_validation_checks = set()  # docstring style is checked by the test suite, not here

# -- sphinx-gallery ------------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # Only plot_*.py scripts are executed; every other script (quickstart.py, ...) is
    # rendered with its code but not run.
    "filename_pattern": r"/plot_",
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("skprivate",),
    # Back-references are filed under the shortest name that reaches an object
    # (skprivate.PATEClassifier) unless the full name matches here. The API pages are named
    # after the public subpackage (skprivate.pate.PATEClassifier), so that path is kept too;
    # private modules (skprivate.pate._classifier) still shorten.
    "prefer_full_module": {r"^skprivate\.[a-z]\w*\.[A-Za-z]"},
    "reference_url": {"skprivate": None},
    "download_all_examples": False,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "show_memory": False,
    "line_numbers": False,
    "min_reported_time": 5,
    # The timing pages load jQuery and DataTables from CDNs: not written, nothing remote.
    "write_computation_times": False,
}

# -- HTML ----------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"skprivate {release}"
html_theme_options = {
    # Nothing that needs a remote resource: no icon links, no version switcher, no analytics.
    "icon_links": [],
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "show_prev_next": True,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None

# -- Docstrings inherited from scikit-learn ------------------------------------------------

# Methods such as ``score`` or ``set_params`` come from scikit-learn, whose docstrings use
# ``:ref:`` labels of scikit-learn's own user guide. Without intersphinx (the build is
# offline) those labels cannot resolve, so they are turned into plain text. Their ``:math:``
# (a regressor's R^2) would load MathJax from a CDN, so it becomes literal text.
_REF_ROLE = re.compile(r":ref:`(?:([^`<]*?)\s*<[^`>]*>|([^`]*))`")
_MATH_ROLE = re.compile(r":math:`([^`]*)`")
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")


def _unlink_foreign_refs(app, what, name, obj, options, lines):
    module = getattr(obj, "__module__", None) or ""
    if module.split(".")[0] == "skprivate":
        return
    for i, line in enumerate(lines):
        line = _REF_ROLE.sub(lambda m: (m.group(1) or m.group(2) or "").strip(), line)
        lines[i] = _MATH_ROLE.sub(lambda m: "``" + _FRAC.sub(r"\1/\2", m.group(1)) + "``", line)


# Sphinx renders math with MathJax from a CDN; the pages load nothing remote, so math markup
# is an error (-W) and formulas are written as literal text.
def _forbid_math(app, doctree, docname):
    from docutils import nodes
    from sphinx.util import logging

    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        logging.getLogger(__name__).warning(
            "math markup loads MathJax from a CDN: write the formula as literal text",
            location=node,
        )


# In a numpydoc "name : type" line, a bare fitted-attribute name in the type, as in
# ``ndarray of shape (n_features_in_,)``, is reStructuredText for a link to a target
# "n_features_in" that does not exist. Such names are set in literal text instead. Runs before
# numpydoc (lower priority number), on the raw docstring.
_TYPE_LINE = re.compile(r"^(\s*[\w*][\w, *]* : )(.*)$")
_TRAILING_UNDERSCORE_NAME = re.compile(r"(?<![`\w])([A-Za-z]\w*_)(?![`\w])")


def _literal_attribute_names_in_types(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        match = _TYPE_LINE.match(line)
        if match:
            head, type_text = match.groups()
            lines[i] = head + _TRAILING_UNDERSCORE_NAME.sub(r"``\1``", type_text)


# Constants such as ``DEFAULT_RDP_ORDERS`` are assigned, with their ``#:`` doc comment, in a
# private module (``skprivate.accounting._sgm``) and imported into the public one that
# documents them. autodoc reads doc comments only in the public module and would show the
# docstring of ``tuple`` instead, so the comment is read where the value is assigned.
def _doc_comment_of_imported_data(app, what, name, obj, options, lines):
    if what != "data":
        return
    from sphinx.errors import PycodeError
    from sphinx.pycode import ModuleAnalyzer

    def comment_in(modname):
        try:
            return ModuleAnalyzer.for_module(modname).find_attr_docs().get(("", attr))
        except PycodeError:
            return None

    public, _, attr = name.rpartition(".")
    if comment_in(public):  # documented where it is documented: autodoc found it
        return
    for modname, module in sorted(sys.modules.items()):
        if modname.startswith(public + ".") and getattr(module, attr, None) is obj:
            comment = comment_in(modname)
            if comment:
                lines[:] = list(comment)
                return


# The class pages list the public methods (see _templates/autosummary/class.rst). Left out:
# methods inherited from built-in types (``dict.get`` on PrivacyReport, ``with_traceback`` on
# the exceptions), which are implemented in C and have no ``__module__``, and scikit-learn's
# metadata-routing helpers, which say nothing about privacy.
def _skip_foreign_members(app, what, name, obj, skip, options):
    # autodoc passes the parent's type ("class"), autosummary the member's ("method").
    if what not in ("class", "exception", "method"):
        return None
    if getattr(obj, "__module__", None) in (None, "builtins"):
        return True
    if name == "get_metadata_routing" or (name.startswith("set_") and name.endswith("_request")):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _doc_comment_of_imported_data, priority=90)
    app.connect("autodoc-process-docstring", _literal_attribute_names_in_types, priority=100)
    app.connect("autodoc-process-docstring", _unlink_foreign_refs)
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("doctree-resolved", _forbid_math)
