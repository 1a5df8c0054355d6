"""The getting-started page's code runs as written, in order."""

import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).parent.parent / "docs"


def _python_blocks(page):
    text = (DOCS / page).read_text()
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text)
    return ["\n".join(line[3:] for line in block.splitlines()) for block in blocks]


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")
def test_getting_started_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    blocks = _python_blocks("getting_started.rst")
    assert len(blocks) == 5
    namespace = {}
    for block in blocks:
        exec(compile(block, "getting_started.rst", "exec"), namespace)
    assert (tmp_path / "privacy_utility.png").stat().st_size > 10_000
    assert namespace["model"].score(namespace["X_test"], namespace["y_test"]) > 0.78
    assert namespace["display"].scores.shape == (4, 2)
    assert namespace["budget"].total()[0] < 20.0
    # every search is shown with its total: scikit-learn's five fits, the private one's budget
    assert namespace["private_search"].epsilon_ <= 1.0
    out = capsys.readouterr().out
    assert out.count("PrivacyCost(") >= 3


def test_getting_started_explains_its_budget_and_totals_every_search():
    text = (DOCS / "getting_started.rst").read_text()
    assert "BudgetAccountant(epsilon=20.0" in text and "Why 20" in text
    searches = [b for b in _python_blocks("getting_started.rst") if "SearchCV(" in b]
    assert searches, "getting started shows a search"
    for block in searches:
        for line in block.splitlines():
            if "SearchCV(" in line:
                name = line.split("=")[0].strip()
                assert f"total_privacy_cost({name}" in block, name


def test_front_page_says_which_estimator_and_how_many_rows():
    index = (DOCS / "index.rst").read_text()
    assert "Which estimator for my table" in index and "Rows needed for epsilon" in index
    # the PATE page opens with when to use it, and what to do without public data
    pate = (DOCS / "user_guide" / "pate.rst").read_text()
    sections = re.findall(r"\n([^\n=][^\n]*)\n=+\n", pate)  # the title has an overline
    assert sections[1] == "When to use it", sections[:3]
    first = pate.split("How it works")[0]
    assert "Without public data" in first
