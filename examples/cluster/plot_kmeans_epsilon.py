"""
Private k-means: cost against the privacy budget
================================================

Fits :class:`~skprivate.cluster.KMeans` on 20,000 rows of four well-separated blobs at
several privacy budgets ε, with the bounds of the features declared (the box the blobs were
drawn in), and compares the k-means cost of held-out rows with that of scikit-learn's
non-private :class:`~sklearn.cluster.KMeans`. (``benchmarks/kmeans.py`` compares it with
private Lloyd iterations from a random start, the method of diffprivlib's ``KMeans``.)
"""

# %%
# Data and public bounds
# ----------------------
#
# The features lie in [-10, 10] by construction: that range is known without looking at
# the rows, so it can be declared as ``bounds``.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.cluster import KMeans as PublicKMeans
from sklearn.datasets import make_blobs
from sklearn.model_selection import train_test_split

from skprivate.cluster import KMeans

centres = [[-6, -6], [-6, 6], [6, -6], [6, 6]]
X, _ = make_blobs(25_000, centers=centres, cluster_std=1.5, random_state=0)
X = np.clip(X, -10, 10)
X_train, X_test = train_test_split(X, test_size=5_000, random_state=0)
bounds = (-10.0, 10.0)
public = -PublicKMeans(4, n_init=3, random_state=0).fit(X_train).score(X_test)

# %%
# Private fits over a range of budgets
# ------------------------------------
#
# ``random_state=seed`` makes the page reproducible; anyone who knows the seed can remove
# the noise, so skprivate warns about it (silenced here). A release uses the default
# ``random_state=None``.
epsilons = [0.05, 0.1, 0.25, 0.5, 1.0]
ours = []
for epsilon in epsilons:
    costs = []
    for seed in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            km = KMeans(4, epsilon=epsilon, bounds=bounds, random_state=seed).fit(X_train)
        costs.append(-km.score(X_test) / public)
    ours.append(costs)
    print(f"epsilon {epsilon:<5}: cost / non-private {np.mean(costs):.3f} "
          f"(epsilon_ {km.epsilon_:.3g}, {km.n_iter_} Lloyd iterations)")

# %%
# The privacy report says what was released and what it cost.
print(km.privacy_report_)

# %%
# Cost against epsilon
# --------------------
fig, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(epsilons, np.mean(ours, axis=1), yerr=np.std(ours, axis=1), marker="o",
            label="skprivate KMeans")
ax.axhline(1.0, color="gray", linestyle="--", label="non-private k-means")
ax.set_xscale("log")
ax.set_xlabel("epsilon")
ax.set_ylabel("test cost / non-private test cost")
ax.legend()
ax.set_title("Private k-means on four blobs (20,000 rows)")
plt.show()

# %%
# The centres of the last fit beside the non-private ones.
print(np.round(km.cluster_centers_[np.argsort(km.cluster_centers_[:, 0])], 2))
