"""
GEMS in a 2-D weight space: three hospitals' balls and the model they share
============================================================================

Three hospitals each train a logistic regression on their own patients and describe the
models that are good enough for them by a ball in weight space: every model in the ball
keeps the hospital's validation loss below a threshold. A coordinator who sees only the
balls returns the point that lies deepest inside all of them.

To draw the balls, the model has two weights: two standardised features of the bundled
breast-cancer data and no intercept. The hospitals hold different patients (split by tumour
size), so their local models differ. :class:`~skprivate.gems.GEMSCombiner` finds the smallest
threshold at which the three balls meet (``epsilon=None``), which is the number the GEMS
paper reports. Its ``epsilon`` is a loss threshold, not a privacy budget: GEMS gives no
differential-privacy guarantee.
"""

# %%
# Data: three hospitals, split by tumour area, so each sees a different range of patients.
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Circle
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from skprivate.gems import GEMSCombiner, good_enough_space

data = load_breast_cancer()
features = ["mean concave points", "worst smoothness"]
X = data.data[:, [list(data.feature_names).index(f) for f in features]]
y = data.target
area = data.data[:, list(data.feature_names).index("mean area")]
X_train, X_test, y_train, y_test, area_train, _ = train_test_split(
    X, y, area, test_size=0.3, random_state=0, stratify=y
)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
hospital = np.digitize(area_train, np.quantile(area_train, [0.4, 0.7]))
print("patients per hospital:", np.bincount(hospital))

# %%
# Fit: every hospital trains its model on its own rows; the coordinator intersects the balls.
model = LogisticRegression(fit_intercept=False)
gems = GEMSCombiner(model, random_state=0).fit(X_train, y_train, hospital)
local = [LogisticRegression(fit_intercept=False).fit(X_train[hospital == k],
                                                     y_train[hospital == k])
         for k in range(3)]
pooled = LogisticRegression(fit_intercept=False).fit(X_train, y_train)
print(f"smallest threshold at which the balls meet: epsilon_ = {gems.epsilon_:.3f}")
print("radii:", np.round(gems.radii_, 3), f"margin: {gems.intersection_margin_:.4f}")
for k, m in enumerate(local):
    print(f"hospital {k} alone: test accuracy {m.score(X_test, y_test):.3f}")
print(f"GEMS: {gems.score(X_test, y_test):.3f}   all rows pooled (not allowed): "
      f"{pooled.score(X_test, y_test):.3f}")

# %%
# The federated path gives the same model: each hospital computes its space with the seed
# GEMSCombiner would give it, and sends only centres and radii.
seeds = np.random.default_rng(0).integers(2**31 - 1, size=3)
spaces = [good_enough_space(model, X_train[hospital == k], y_train[hospital == k],
                            gems.epsilon_, random_state=seeds[k]) for k in range(3)]
federated = GEMSCombiner().combine(spaces)
print("same model:", np.allclose(federated.coef_, gems.coef_))

# %%
# The picture: each ball, the hospitals' own models at its centre, and the combined model.
# The shaded contour is where each hospital's loss on all its rows equals ``epsilon_``: the ball
# is the sampled, round approximation of that set, estimated on the validation rows only.
fig, ax = plt.subplots(figsize=(6.5, 6))
colors = ["tab:blue", "tab:orange", "tab:green"]
centers, radii = np.vstack([s.centers for s in gems.spaces_]), gems.radii_
low = (centers - radii[:, None]).min(axis=0) - 0.5
high = (centers + radii[:, None]).max(axis=0) + 0.5
W1, W2 = np.meshgrid(np.linspace(low[0], high[0], 200), np.linspace(low[1], high[1], 200))
grid = np.stack([W1.ravel(), W2.ravel()], axis=1)
for k, space in enumerate(gems.spaces_):
    center, radius = space.centers[0], space.radii[0]
    ax.add_patch(Circle(center, radius, fill=False, lw=2, color=colors[k]))
    ax.plot(*center, "o", color=colors[k], label=f"hospital {k}: centre and ball")
    Xk, yk = X_train[hospital == k], y_train[hospital == k]
    z = Xk @ grid.T
    loss = np.mean(np.logaddexp(0, z) - yk[:, None] * z, axis=0).reshape(W1.shape)
    ax.contour(W1, W2, loss, levels=[gems.epsilon_], colors=colors[k], linestyles=":")
ax.plot(*gems.coef_[0], "*", ms=16, color="black", label="GEMS model (intersection)")
ax.plot(*pooled.coef_[0], "x", ms=10, color="gray", label="model on pooled rows")
ax.set_xlabel(f"weight of '{features[0]}'")
ax.set_ylabel(f"weight of '{features[1]}'")
ax.set_title(f"Good-enough balls at epsilon = {gems.epsilon_:.3f} (loss threshold)")
ax.set_xlim(low[0], high[0])
ax.set_ylim(low[1], high[1])
ax.set_aspect("equal")
ax.legend(loc="lower left", fontsize=8)
fig.tight_layout()
plt.show()
