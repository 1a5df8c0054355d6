import warnings

import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from skprivate.pate import PATEClassifier
from skprivate.utils._progress import progress, progress_counter


def test_quiet_progress_is_the_iterable_itself():
    items = [1, 2, 3]
    assert progress(items, total=3, desc="x", verbose=0) is items


def test_without_tqdm_a_line_every_tenth(without_tqdm, capsys):
    assert list(progress(range(20), total=20, desc="work", verbose=1)) == list(range(20))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 10 and err[-1].startswith("work: 20/20")


def test_pate_verbose_reports_teachers_on_stderr_only(capsys):
    X, y = load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PATEClassifier(DecisionTreeClassifier(max_depth=2), n_teachers=10, n_queries=30,
                       verbose=1, random_state=0).fit(X[:300], y[:300], X_public=X[300:400])
    out = capsys.readouterr()
    assert out.out == "" and "PATE teachers" in out.err


def test_quiet_counter_prints_nothing(capsys):
    with progress_counter(total=None, desc="search", verbose=0) as bar:
        bar.update()
        bar.set_total(5)
    assert capsys.readouterr() == ("", "")


def test_counter_learns_its_total_on_the_way(capsys):
    pytest.importorskip("tqdm")
    with progress_counter(total=None, desc="search", verbose=1) as bar:
        bar.update(3)
        bar.set_total(7)
        bar.update(2)
        assert (bar._bar.n, bar._bar.total) == (5, 7)
    assert "search" in capsys.readouterr().err


def test_counter_without_tqdm_ends_on_the_last_count(without_tqdm, capsys):
    with progress_counter(total=None, desc="search", verbose=1) as bar:
        for _ in range(3):
            bar.update()
        bar.set_total(40)  # ends after 7 of at most 40: the last line still says 7
        for _ in range(4):
            bar.update()
    err = capsys.readouterr().err.splitlines()
    assert [line.split()[1] for line in err] == ["1", "2", "3", "4/40", "7/40"]
