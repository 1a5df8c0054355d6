"""
Choosing epsilon: what a budget buys on census data
===================================================

Before fitting on private rows, look at how accuracy grows with ε on data like yours.
Here the bundled Adult census training set plays that role: :class:`~skprivate.plotting.
PrivacyUtilityDisplay` fits :class:`~skprivate.DPLSSGDClassifier` at several budgets,
three times each (fresh noise), and draws the test accuracy with its spread beside a
non-private logistic regression.

Every fit of such a curve spends privacy on the rows it is drawn from; draw it on public
or proxy data, then fit your model once on the private rows.
"""

# %%
import warnings

import matplotlib.pyplot as plt
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skprivate import DPLSSGDClassifier
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.plotting import PrivacyUtilityDisplay

warnings.simplefilter("ignore", PrivacyLeakWarning)  # fixed seeds: a reproducible example
X, y = load_adult(return_X_y=True)
X_test, y_test = load_adult(subset="test", return_X_y=True)

model = make_pipeline(make_adult_preprocessor(), DPLSSGDClassifier(delta=1e-6))
baseline = make_pipeline(make_adult_preprocessor(), LogisticRegression(max_iter=500))

fig, ax = plt.subplots(figsize=(7, 4))
display = PrivacyUtilityDisplay.from_estimator(
    model, X, y, X_test, y_test, epsilons=[0.05, 0.1, 0.25, 0.5, 1, 2, 4], n_repeats=3,
    baseline=baseline, random_state=0, ax=ax,
)
ax.set_title("Adult: DP-LSSGD test accuracy against the privacy budget")
fig.tight_layout()
plt.show()

# %%
# The numbers behind the curve
# ----------------------------
for eps, scores in zip(display.epsilons, display.scores):
    print(f"epsilon {eps:>5g}: accuracy {scores.mean():.3f} (min {scores.min():.3f}, "
          f"max {scores.max():.3f})")
print(f"non-private: {display.baseline_score:.3f}")
