"""Deep GEMS with a skorch network as the local model (torch imported only here)."""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_digits

from skprivate.gems import GEMSCombiner, good_enough_space

torch = pytest.importorskip("torch")
skorch = pytest.importorskip("skorch")


class _OneHidden(torch.nn.Module):
    def __init__(self, hidden=6):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10)
        )

    def forward(self, X):
        return self.layers(X)


def _net(**params):
    return skorch.NeuralNetClassifier(
        _OneHidden, criterion=torch.nn.CrossEntropyLoss, max_epochs=8, lr=0.2, verbose=0,
        train_split=None, **params,
    )


@pytest.fixture(scope="module")
def permuted():
    X, y = load_digits(return_X_y=True)
    X, y = (X[:600] / 16.0).astype(np.float32), y[:600]
    perm = np.random.default_rng(0).permutation(64)
    X = np.vstack([X[:300], X[300:, perm]])
    return X, y, np.r_[np.zeros(300, int), np.ones(300, int)]


def test_skorch_net_is_combined_and_the_federated_path_agrees(permuted):
    X, y, groups = permuted
    gems = GEMSCombiner(_net(), epsilon=0.05, random_state=0)
    gems.fit(X[60:], y[60:], groups[60:], X_public=X[:60], y_public=y[:60])
    assert gems.n_hidden_ == 12 - gems.n_matched_
    assert gems.coefs_[0].shape == (64, gems.n_hidden_)
    assert gems.predict_proba(X[:3]).shape == (3, 10)
    seeds = np.random.default_rng(0).integers(2**31 - 1, size=2)
    spaces = [good_enough_space(_net(), X[60:][groups[60:] == k], y[60:][groups[60:] == k],
                                0.05, random_state=seeds[k]) for k in (0, 1)]
    combined = GEMSCombiner().combine(spaces, X[:60], y[:60])
    for a, b in zip(combined.coefs_, gems.coefs_):
        np.testing.assert_array_equal(a, b)


def test_skorch_module_with_two_hidden_layers_is_refused(permuted):
    X, y, groups = permuted

    class TwoHidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.Sequential(
                torch.nn.Linear(64, 4), torch.nn.ReLU(), torch.nn.Linear(4, 4),
                torch.nn.ReLU(), torch.nn.Linear(4, 10),
            )

        def forward(self, X):
            return self.layers(X)

    net = skorch.NeuralNetClassifier(TwoHidden, criterion=torch.nn.CrossEntropyLoss,
                                     max_epochs=1, verbose=0, train_split=None)
    with pytest.raises(ValueError, match="exactly two Linear layers"):
        GEMSCombiner(net, epsilon=0.1, random_state=0).fit(X, y, groups)


def test_importing_gems_does_not_import_torch():
    code = "import sys, skprivate.gems; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
