import builtins
import warnings

from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from skprivate.pate import PATEClassifier
from skprivate.utils._progress import progress


def test_quiet_progress_is_the_iterable_itself():
    items = [1, 2, 3]
    assert progress(items, total=3, desc="x", verbose=0) is items


def test_without_tqdm_a_line_every_tenth(monkeypatch, capsys):
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
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
