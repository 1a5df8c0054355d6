"""
Private statistics of census ages: mean, quartiles and a histogram
==================================================================

:mod:`skprivate.stats` releases NumPy's statistics with differential privacy. Each call
takes public ``bounds`` (or a histogram's ``range``), an ``epsilon``, and returns a
:class:`~skprivate.stats.PrivateResult`: the value, which behaves like a number or an
array, with the guarantee it was released under.

Here the ages of the bundled Adult census training set (32,561 people; ages 17 to 90) are
summarised at several budgets and compared with the exact, non-private values.
"""

# %%
import warnings

import matplotlib.pyplot as plt
import numpy as np

from skprivate import stats
from skprivate.accounting import BudgetAccountant
from skprivate.datasets import load_adult
from skprivate.exceptions import PrivacyLeakWarning

warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a reproducible example
age = load_adult(as_frame=True).frame["age"].to_numpy(float)

# %%
# One release, and what it carries
# --------------------------------
# Ages lie in [0, 128) by any census codebook; with the default 1024 grid steps the
# quantile candidates are every eighth of a year, so whole-year ages are candidates.
mean = stats.mean(age, bounds=(0, 128), epsilon=0.5, random_state=0)
print(mean)
print(f"private mean {float(mean):.2f}, exact {age.mean():.2f}")
print(mean.mechanism)

# %%
# A budget for the whole summary
# ------------------------------
# A :class:`~skprivate.accounting.BudgetAccountant` is charged before each call reads the
# data, and refuses a call that would overspend.
accountant = BudgetAccountant(epsilon=1.0)
summary = {
    "mean": stats.mean(age, bounds=(0, 128), epsilon=0.25, accountant=accountant,
                       random_state=1),
    "std": stats.std(age, bounds=(0, 128), epsilon=0.25, accountant=accountant,
                     random_state=2),
    "quartiles": stats.quantile(age, [0.25, 0.5, 0.75], bounds=(0, 128), epsilon=0.5,
                                accountant=accountant, random_state=3),
}
exact = {"mean": age.mean(), "std": age.std(),
         "quartiles": np.quantile(age, [0.25, 0.5, 0.75])}
for name, result in summary.items():
    print(f"{name:>9}: private {np.round(np.asarray(result), 2)}, exact "
          f"{np.round(exact[name], 2)}, epsilon {result.epsilon}")
print("spent:", accountant.total())

# %%
# Error against the budget
# ------------------------
# Ten releases per budget; the mean's error falls like ``1 / epsilon``.
epsilons = [0.01, 0.03, 0.1, 0.3, 1.0]
errors = {"mean": [], "median": []}
for eps in epsilons:
    errors["mean"].append(np.mean([
        abs(float(stats.mean(age, bounds=(0, 128), epsilon=eps, random_state=s)) - age.mean())
        for s in range(10)]))
    errors["median"].append(np.mean([
        abs(float(stats.median(age, bounds=(0, 128), epsilon=eps, random_state=s))
            - np.median(age)) for s in range(10)]))

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
for name, values in errors.items():
    ax1.loglog(epsilons, values, "o-", label=name)
ax1.set_xlabel("epsilon")
ax1.set_ylabel("mean absolute error (years)")
ax1.set_title("Adult ages: error of private statistics")
ax1.legend()

# %%
# A private histogram beside the exact one
# ----------------------------------------
hist, edges = stats.histogram(age, bins=15, range=(15, 90), epsilon=0.1, random_state=0)
exact_hist, _ = np.histogram(age, bins=edges)
centres = (edges[:-1] + edges[1:]) / 2
ax2.bar(centres, exact_hist, width=4.5, alpha=0.5, label="exact")
ax2.step(centres, np.asarray(hist), where="mid", color="k", label="private, epsilon 0.1")
ax2.set_xlabel("age")
ax2.set_ylabel("people")
ax2.legend()
fig.tight_layout()
plt.show()
