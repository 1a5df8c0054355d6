"""
Private PCA: captured variance against the privacy budget on digits
===================================================================

Fits :class:`~skprivate.decomposition.PCA` on scikit-learn's 8x8 handwritten digits
(pixels in [0, 16], a public range) at several privacy budgets, and measures the
variance of held-out rows that its 10 components capture, relative to non-private PCA's
10 components.
"""

# %%
# Data and the non-private baseline
# ---------------------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA as NonPrivatePCA
from sklearn.model_selection import train_test_split

from skprivate.decomposition import PCA

X, _ = load_digits(return_X_y=True)
X_train, X_test = train_test_split(X, test_size=0.3, random_state=0)
baseline = NonPrivatePCA(n_components=10).fit(X_train)


def captured(components):
    """Variance of the held-out rows along the components (about the non-private mean)."""
    return float((((X_test - baseline.mean_) @ components.T) ** 2).sum())


reference = captured(baseline.components_)

# %%
# Private PCA at several budgets
# ------------------------------
# The bounds (0, 16) are the pixels' public range. A fixed ``random_state`` makes the
# example reproducible; it is a privacy caveat (the warning is silenced here), so leave it
# at None for a release.
epsilons = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0]
ratios = []
for epsilon in epsilons:
    scores = []
    for seed in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pca = PCA(n_components=10, epsilon=epsilon, bounds=(0, 16), random_state=seed)
            pca.fit(X_train)
        scores.append(captured(pca.components_) / reference)
    ratios.append(np.mean(scores))
    print(f"epsilon={epsilon:<5} captured {ratios[-1]:.3f} of non-private PCA's variance")

# %%
# Privacy-utility curve
# ---------------------
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogx(epsilons, ratios, "o-", label="skprivate PCA")
ax.axhline(1.0, color="gray", linestyle="--", label="non-private PCA")
ax.set_xlabel("epsilon")
ax.set_ylabel("test variance captured (relative)")
ax.set_ylim(0, 1.05)
ax.legend()
plt.show()
