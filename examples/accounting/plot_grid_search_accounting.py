"""
Accounting a grid search
========================

Tuning on private data costs privacy twice: every candidate fit spends its budget, and
picking the best one by unnoised validation scores leaks on top. This example tunes the
learning rate of :class:`~skprivate.DPLSSGDClassifier` on the breast-cancer data three
ways and shows what each costs:

1. scikit-learn's ``GridSearchCV`` with a shared
   :class:`~skprivate.accounting.BudgetAccountant`: every fit is recorded, the total is
   their composition, and the selection is *not* covered;
2. :class:`~skprivate.model_selection.PrivateGridSearchCV`: one budget for the whole
   search, selection included (Papernot and Steinke 2022);
3. no search: the defaults, fitted once.
"""

# %%
# Data, scaled with public bounds
# -------------------------------
#
# ``MinMaxScaler`` fitted on all rows reads them outside any guarantee; here the bounds
# stand in for public ones (a real study would take them from a codebook).
import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import MinMaxScaler

from skprivate import DPLSSGDClassifier
from skprivate.accounting import BudgetAccountant, total_privacy_cost
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.model_selection import PrivateGridSearchCV
from skprivate.plotting import PrivacyBudgetDisplay

warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a reproducible example
X, y = load_breast_cancer(return_X_y=True)
X = MinMaxScaler().fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
grid = {"learning_rate": [0.3, 1.0, 3.0]}

# %%
# 1. GridSearchCV: each of 3 candidates x 3 folds, plus the refit, spends ε = 0.5
# -------------------------------------------------------------------------------
budget = BudgetAccountant()
search = GridSearchCV(DPLSSGDClassifier(epsilon=0.5, accountant=budget, random_state=0),
                      grid, cv=3).fit(X_train, y_train)
epsilon, delta = budget.total()
print(f"GridSearchCV: {len(budget.spends)} fits, total epsilon {epsilon:.2f} "
      f"(basic composition: {sum(s.epsilon for s in budget.spends):.2f}), "
      f"test accuracy {search.score(X_test, y_test):.3f}")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", PrivacyLeakWarning)  # "the selection is not private"
    # recomputed from the search alone: the same fits, composed the same way
    print("total_privacy_cost:", total_privacy_cost(search, X_train, y_train,
                                                    composition="auto"))

# %%
# 2. PrivateGridSearchCV: the same total, spent as one private search
# --------------------------------------------------------------------
private = PrivateGridSearchCV(DPLSSGDClassifier(), grid, epsilon=epsilon, delta=1e-5,
                              random_state=0).fit(X_train, y_train)
print(f"PrivateGridSearchCV: epsilon {private.epsilon_:.2f} covers a secret number of runs "
      f"(mean {private.mean_candidates}) and the choice {private.best_params_}, "
      f"test accuracy {private.score(X_test, y_test):.3f}")

# %%
# 3. The defaults, once, at the same total budget
# -----------------------------------------------
default = DPLSSGDClassifier(epsilon=epsilon, random_state=0).fit(X_train, y_train)
print(f"defaults: epsilon {default.epsilon_:.2f}, test accuracy "
      f"{default.score(X_test, y_test):.3f}")

# %%
# Where the budget of the plain grid search went
# ----------------------------------------------
# Ten fits of ε = 0.5 compose, in Rényi DP, to less than their sum; but none of it covers
# which candidate won.
fig, ax = plt.subplots(figsize=(7, 4))
PrivacyBudgetDisplay.from_accountant(budget, ax=ax)
fig.tight_layout()
plt.show()
