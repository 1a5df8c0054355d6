"""The private search over a skorch DP-LSSGD net (skipped without torch)."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("skorch")

from sklearn.datasets import load_digits  # noqa: E402

from skprivate.exceptions import PrivacyLeakWarning  # noqa: E402
from skprivate.model_selection import PrivateGridSearchCV  # noqa: E402
from skprivate.neural_network import DPLSSGDNeuralNetClassifier  # noqa: E402


class _Linear(torch.nn.Module):
    def __init__(self, n_out=10):
        super().__init__()
        self.layer = torch.nn.LazyLinear(n_out)

    def forward(self, X):
        return self.layer(X)


def test_search_over_a_skorch_net():
    X, y = load_digits(return_X_y=True)
    X = (X[:600] / 16.0).astype(np.float32)
    y = y[:600].astype(np.int64)
    # the nets' former defaults (the "auto" plan needs its many steps to learn)
    net = DPLSSGDNeuralNetClassifier(_Linear, max_epochs=1, batch_size=64, max_grad_norm=1.0,
                                     smoothing=1.0, average=False, accounting="rdp")
    search = PrivateGridSearchCV(
        net, {"lr": [0.1, 0.5]}, epsilon=3.0, n_candidates_distribution="geometric", mean_candidates=2,
        random_state=3,  # a seed whose runs draw lr=0.5 (one epoch at lr=0.1 learns little)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        search.fit(X, y)
    assert search.epsilon_ <= 3.0
    assert search.best_estimator_.epsilon == search.per_run_epsilon_
    # planned on the expected training size of the noisy count, not the realised one (issue 15)
    planned = search.privacy_report_["planned_training_rows"]
    assert search.best_estimator_.sample_rate_ == 64 / planned
    assert not hasattr(search.best_estimator_, "_public_n_samples")
    assert search.predict(X).shape == (600,)
    # Ten classes (chance 0.10); one epoch of this linear net at epsilon 3 scores 0.13 to
    # 0.32 over seeds, with floating-point or exact noise alike (0.23 here).
    assert search.score(X, y) > 0.15
