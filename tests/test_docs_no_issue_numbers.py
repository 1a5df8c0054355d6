"""No internal issue numbers in what a user reads: the documentation pages and the
package's docstrings say what a thing does and why, not which ticket asked for it."""

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).parent.parent
# "issue 17", "issues 16 and 17", "issue #17", "(#17)", "#17's": an internal tracker's
# number. Other projects' references name the project ("scikit-learn's PR #31529") and
# are allowed.
_ISSUE = re.compile(r"\bissues?\s+#?\d+|(?<![\w/&])#\d+\b", re.IGNORECASE)
_EXTERNAL = re.compile(r"(PR|pull request|scikit-learn|numpy|torch|skorch|opacus)\S*\s+#?\d+$",
                       re.IGNORECASE)


def _hits(text):
    found = []
    for match in _ISSUE.finditer(text):
        before = text[max(0, match.start() - 40):match.end()]
        if not _EXTERNAL.search(before):
            found.append(match.group(0))
    return found


def _pages():
    return sorted((ROOT / "docs").rglob("*.rst")) + [ROOT / "README.md"]


def _docstrings(path):
    tree = ast.parse(path.read_text())
    nodes = [tree] + [
        node for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    return [ast.get_docstring(node) or "" for node in nodes]


def test_the_pattern_catches_what_the_issue_quoted():
    assert _hits("issue 17's targets") == ["issue 17"]
    assert _hits("Opacus, tuned MLP (issue #16)") == ["issue #16"]
    assert _hits("see #16 for the numbers") == ["#16"]
    assert _hits("scikit-learn's PR #31529 of January 2026") == []
    assert _hits("the issue is that 17 rows") == []


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_issue_numbers_in_the_docs(page):
    # whats_new may say what changed; it does not cite tickets either
    assert _hits(page.read_text()) == [], page


def test_no_issue_numbers_in_docstrings():
    found = {
        str(path.relative_to(ROOT)): hits
        for path in sorted((ROOT / "skprivate").rglob("*.py"))
        for doc in _docstrings(path)
        if (hits := _hits(doc))
    }
    assert found == {}
