"""
Linear regression from private sufficient statistics on diabetes
=================================================================

Fits :class:`~skprivate.linear_model.LinearRegression` (AdaSSP: noisy ``X^T X`` and
``X^T y``) on scikit-learn's diabetes table at several privacy budgets and compares its
test R2 with scikit-learn's non-private ordinary least squares.
"""

# %%
# Data and public bounds
# ----------------------
# The bounds stand in for public knowledge: here the whole table's range (in a real
# release they must come from a codebook or the measurement's definition, not the rows).
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression as NonPrivateLinearRegression
from sklearn.model_selection import train_test_split

from skprivate.linear_model import LinearRegression

X, y = load_diabetes(return_X_y=True)
bounds_X = (X.min(axis=0), X.max(axis=0))
bounds_y = (float(y.min()), float(y.max()))
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
baseline = NonPrivateLinearRegression().fit(X_train, y_train).score(X_test, y_test)

# %%
# Private fits at several budgets
# -------------------------------
# A fixed ``random_state`` makes the example reproducible (a privacy caveat, silenced
# here); leave it at None for a release.
epsilons = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
scores = []
for epsilon in epsilons:
    runs = []
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = LinearRegression(epsilon=epsilon, bounds_X=bounds_X, bounds_y=bounds_y,
                                     random_state=seed).fit(X_train, y_train)
        runs.append(model.score(X_test, y_test))
    scores.append(np.mean(runs))
    print(f"epsilon={epsilon:<5} test R2 {scores[-1]:.3f} (non-private {baseline:.3f})")

# %%
# Privacy-utility curve
# ---------------------
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(epsilons, scores, "o-", label="skprivate LinearRegression (AdaSSP)")
ax.axhline(baseline, color="gray", linestyle="--", label="non-private OLS")
ax.set_xlabel("epsilon")
ax.set_ylabel("test R2")
ax.legend()
plt.show()
