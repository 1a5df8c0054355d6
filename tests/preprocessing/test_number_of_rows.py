"""The private preprocessors publish no function of the exact number of rows.

Under add/remove-one-row neighbours the number of rows ``n`` is private. No preprocessor
plans on it; what each publishes that depends on ``n`` (a divisor, the ``delta >= 1/n``
caveat of the report, whose sentence prints ``1/n``) must come from a released count.
"""

import warnings

import numpy as np
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.preprocessing import OneHotEncoder, SimpleImputer, StandardScaler


def _delta_caveat(est, X, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        est.set_params(random_state=seed).fit(X)
    (caveat,) = [c for c in est.privacy_report_["caveats"]
                 if getattr(c, "code", None) == "delta_protects_no_one"]
    return str(caveat)


@pytest.mark.parametrize("est, X", [
    (StandardScaler(epsilon=1.0, delta=0.05, bounds=(0, 1)),
     np.random.default_rng(0).uniform(size=(100, 2))),
    (SimpleImputer(epsilon=1.0, delta=0.05, bounds=(0, 1)),
     np.random.default_rng(0).uniform(size=(100, 2))),
    (OneHotEncoder(epsilon=1.0, delta=0.05, sparse_output=False),
     np.repeat([["a"], ["b"]], 50, axis=0)),
], ids=["StandardScaler", "SimpleImputer-mean", "OneHotEncoder"])
def test_the_delta_caveat_reads_a_released_count_not_n(est, X):
    """delta = 0.05 >= 1/100: every fit carries the caveat, but its sentence (which prints
    1/n) varies with the noise instead of stating the exact n = 100 every time."""
    texts = {_delta_caveat(est, X, seed) for seed in range(6)}
    assert len(texts) > 1  # on the exact n: one sentence, "1/n_samples=0.01", every time
