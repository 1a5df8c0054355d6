"""
Which private model for my table: additive shapes or an interaction
===================================================================

Two small synthetic tables with the same eight features, uniform on a public range
``[-1, 1]``:

* **additive**: the log-odds of the label is a sum of one-feature shapes (a sine, a
  parabola, a step), none of them linear;
* **interaction**: the label is 1 when the first two features have the same sign, which
  no sum of one-feature shapes can express.

On each, the main private classifiers are fitted with their defaults (only ``epsilon``,
the classes and the declared range are given) at several budgets:
:class:`~skprivate.linear_model.DPLSSGDClassifier` on scaled features and on public bins
(``make_bounded_preprocessor(..., n_bins=16)``), the private
:class:`~skprivate.ensemble.HistGradientBoostingClassifier`, and
:class:`~skprivate.pate.PATEClassifier` (its public points are rows whose labels it never
sees). Non-private gradient boosting marks what the table allows.
``benchmarks/nonlinear.py`` runs the same comparison on real and larger tables (see the
"Which model, when" page of the user guide).
"""

# %%
# The two tables
# --------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier as NonPrivateBoosting
from sklearn.pipeline import make_pipeline
from threadpoolctl import threadpool_limits

from skprivate.ensemble import HistGradientBoostingClassifier
from skprivate.exceptions import PrivacyLeakWarning, UtilityWarning
from skprivate.linear_model import DPLSSGDClassifier
from skprivate.pate import PATEClassifier
from skprivate.preprocessing import make_bounded_preprocessor


def additive_table(n, rng):
    X = rng.uniform(-1.0, 1.0, size=(n, 8))
    log_odds = (2.0 * np.sin(3.0 * X[:, 0]) + 4.0 * (X[:, 1] ** 2 - 1.0 / 3.0)
                - 3.0 * (np.abs(X[:, 2]) - 0.5) + 2.0 * (X[:, 3] > 0.3) - 0.6)
    return X, (rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-log_odds))).astype(int)


def interaction_table(n, rng):
    X = rng.uniform(-1.0, 1.0, size=(n, 8))
    return X, (X[:, 0] * X[:, 1] > 0).astype(int)


rng = np.random.default_rng(0)
tables = {}
for name, make in (("additive", additive_table), ("interaction", interaction_table)):
    X, y = make(6_000, rng)
    X_public, _ = make(1_000, rng)  # unlabelled public points, for PATE only
    X_test, y_test = make(4_000, rng)
    tables[name] = X, y, X_public, X_test, y_test

# The declared range of every feature: nothing is read from the rows.
declared = {"numeric": {j: (-1.0, 1.0) for j in range(8)}}


# %%
# The candidates at several budgets
# ---------------------------------
#
# ``random_state=0`` makes the page reproducible; leave it at None for a release (each fit
# warns that a fixed seed voids the guarantee, silenced here, as are the warnings that a
# PATE budget is small).
def candidates(epsilon):
    common = dict(epsilon=epsilon, classes=[0, 1], random_state=0)
    return {
        "DP-LSSGD": make_pipeline(make_bounded_preprocessor(**declared),
                                  DPLSSGDClassifier(**common)),
        "DP-LSSGD, 16 public bins": make_pipeline(
            make_bounded_preprocessor(**declared, n_bins=16), DPLSSGDClassifier(**common)),
        "private boosting": HistGradientBoostingClassifier(bounds=(-1.0, 1.0), **common),
        "PATE": PATEClassifier(**common),
    }


epsilons = [0.5, 1.0, 2.0, 4.0]
scores = {name: {model: [] for model in candidates(1.0)} for name in tables}
reference = {}
# One thread: on a few thousand rows, OpenMP's threads only spin (scikit-learn's boosting
# took ten times longer with them on a busy two-core machine).
with warnings.catch_warnings(), threadpool_limits(1):
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    warnings.simplefilter("ignore", UtilityWarning)
    for name, (X, y, X_public, X_test, y_test) in tables.items():
        reference[name] = NonPrivateBoosting(random_state=0).fit(X, y).score(X_test, y_test)
        for epsilon in epsilons:
            for model, clf in candidates(epsilon).items():
                fit_params = {"X_public": X_public} if model == "PATE" else {}
                clf.fit(X, y, **fit_params)
                scores[name][model].append(clf.score(X_test, y_test))

for name in tables:
    print(f"{name} table (non-private boosting {reference[name]:.3f})")
    print(f"{'epsilon':>8} " + " ".join(f"{model:>25}" for model in scores[name]))
    for i, epsilon in enumerate(epsilons):
        print(f"{epsilon:>8g} " + " ".join(f"{scores[name][model][i]:>25.3f}"
                                          for model in scores[name]))

# %%
# Accuracy against the budget
# ---------------------------
#
# On the additive table the public bins turn the linear model into an additive one, and
# boosting learns the same shapes; on the interaction table only the trees (private
# boosting, and PATE's teachers and student) learn anything, and a linear model, binned
# or not, stays at chance.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
markers = dict(zip(scores["additive"], "osD^"))
for ax, name in zip(axes, tables):
    for model, values in scores[name].items():
        ax.plot(epsilons, values, marker=markers[model], label=model)
    ax.axhline(reference[name], color="gray", linestyle="--", label="non-private boosting")
    ax.axhline(0.5, color="lightgray", linestyle=":", label="chance")
    ax.set_xscale("log")
    ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
    ax.set_xlabel("epsilon")
    ax.set_title(f"{name} table, 6,000 rows")
axes[0].set_ylabel("test accuracy")
axes[1].legend(loc="lower right", fontsize="small")
fig.tight_layout()
plt.show()
