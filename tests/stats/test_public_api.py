"""Every function of skprivate.stats: its guarantee on the result, its accountant charge."""

import numpy as np
import pytest

from skprivate import stats
from skprivate.accounting import BudgetAccountant

pytestmark = pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")

X = np.random.default_rng(0).uniform(0, 10, size=(200, 2))
CALLS = {
    "mean": lambda **kw: stats.mean(X, bounds=(0, 10), **kw),
    "nanmean": lambda **kw: stats.nanmean(X, bounds=(0, 10), **kw),
    "var": lambda **kw: stats.var(X, bounds=(0, 10), **kw),
    "nanvar": lambda **kw: stats.nanvar(X, bounds=(0, 10), **kw),
    "std": lambda **kw: stats.std(X, bounds=(0, 10), **kw),
    "nanstd": lambda **kw: stats.nanstd(X, bounds=(0, 10), **kw),
    "sum": lambda **kw: stats.sum(X, bounds=(0, 10), **kw),
    "nansum": lambda **kw: stats.nansum(X, bounds=(0, 10), **kw),
    "count_nonzero": lambda **kw: stats.count_nonzero(X, **kw),
    "quantile": lambda **kw: stats.quantile(X, 0.3, bounds=(0, 10), **kw),
    "nanquantile": lambda **kw: stats.nanquantile(X, 0.3, bounds=(0, 10), **kw),
    "percentile": lambda **kw: stats.percentile(X, 30, bounds=(0, 10), **kw),
    "nanpercentile": lambda **kw: stats.nanpercentile(X, 30, bounds=(0, 10), **kw),
    "median": lambda **kw: stats.median(X, bounds=(0, 10), **kw),
    "nanmedian": lambda **kw: stats.nanmedian(X, bounds=(0, 10), **kw),
    "histogram": lambda **kw: stats.histogram(X, range=(0, 10), **kw)[0],
    "histogram2d": lambda **kw: stats.histogram2d(X[:, 0], X[:, 1],
                                                  range=[(0, 10), (0, 10)], **kw)[0],
    "histogramdd": lambda **kw: stats.histogramdd(X, range=[(0, 10), (0, 10)], **kw)[0],
}


def test_every_public_function_is_covered():
    assert set(CALLS) == set(stats.__all__) - {"PrivateResult"}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_result_states_the_guarantee_and_the_accountant_is_charged(name):
    accountant = BudgetAccountant(epsilon=1.0)
    result = CALLS[name](epsilon=0.4, random_state=0, accountant=accountant)
    assert isinstance(result, stats.PrivateResult)
    assert (result.epsilon, result.delta, result.name) == (0.4, 0.0, name)
    assert [(s.label, s.epsilon, s.delta) for s in accountant.spends] == \
        [(f"stats.{name}", 0.4, 0.0)]
    assert "seed_fixed" in [c.code for c in result.caveats]
    assert np.all(np.isfinite(np.asarray(result, dtype=float)))
    # a second call of the same cost does not fit: refused, nothing recorded
    with pytest.raises(ValueError, match="budget"):
        CALLS[name](epsilon=0.7, accountant=accountant)
    assert len(accountant.spends) == 1
