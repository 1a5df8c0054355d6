import builtins

import pytest


@pytest.fixture
def without_tqdm(monkeypatch):
    """Make ``import tqdm`` fail, as on a machine without it."""
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
