"""
DP-LSSGD: accuracy against the privacy budget on digits
=======================================================

Trains :class:`~skprivate.DPLSSGDClassifier` on scikit-learn's 8x8 handwritten digits at
several privacy budgets ε, with Laplacian smoothing of the noisy gradient (``smoothing=1``,
the default) and without it (``smoothing=0``, plain DP-SGD), and compares both with a
non-private logistic regression. Smoothing is post-processing: at every ε both private
models spend exactly the same budget, with the same noise, batches and steps.

The pixels are used in their natural row-major order, so neighbouring coordinates of the
gradient are neighbouring pixels: the data where a smoothing prior has the best chance.
"""

# %%
# Data, scaled with public bounds only
# ------------------------------------
#
# Every pixel is a count between 0 and 16. Dividing by 16 and subtracting 0.5 uses
# constants known before seeing any row, so the preprocessing spends no privacy (a
# ``StandardScaler`` fitted on the private rows would read them outside the guarantee).
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from skprivate import DPLSSGDClassifier
from skprivate.exceptions import PrivacyLeakWarning

X, y = load_digits(return_X_y=True)
X = X / 16.0 - 0.5
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.25, stratify=y, random_state=0
)
print(f"{len(X_train)} training rows, {len(X_test)} test rows, {X.shape[1]} pixels")

# %%
# Private fits over a range of budgets
# ------------------------------------
#
# Three seeds per budget show the spread that the noise causes. ``random_state=seed``
# makes this page reproducible; anyone who knows the seed can remove the noise, so
# skprivate warns about it (silenced here). A real release uses ``random_state=None``,
# the default, which draws the noise from the operating system.
#
# The third curve keeps the smoothing and triples the step size: smoothing shrinks the
# high-frequency part of every step, signal included, so it needs a larger step than
# plain DP-SGD to make the same progress in the same number of epochs.
epsilons = [0.25, 0.5, 1.0, 2.0, 4.0]
seeds = [0, 1, 2]
settings = {
    "smoothing=1 (default)": {},
    "smoothing=0 (DP-SGD)": {"smoothing": 0.0},
    "smoothing=1, learning_rate=3": {"learning_rate": 3.0},
}

accuracy = {name: np.empty((len(epsilons), len(seeds))) for name in settings}
for name, params in settings.items():
    for i, epsilon in enumerate(epsilons):
        for j, seed in enumerate(seeds):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                clf = DPLSSGDClassifier(epsilon=epsilon, random_state=seed, **params)
                clf.fit(X_train, y_train)
            accuracy[name][i, j] = clf.score(X_test, y_test)

baseline = LogisticRegression(max_iter=2000).fit(X_train, y_train).score(X_test, y_test)

print(f"{'epsilon':>8}" + "".join(f"{name:>32}" for name in settings))
for i, epsilon in enumerate(epsilons):
    cells = [
        f"{acc[i].mean():.3f} ± {acc[i].std():.3f}".rjust(32) for acc in accuracy.values()
    ]
    print(f"{epsilon:>8g}" + "".join(cells))
print(f"non-private LogisticRegression: {baseline:.3f}")

# %%
# Privacy-utility curves
# ----------------------
#
# Lines are the mean test accuracy over the seeds, bands the range from the lowest to the
# highest seed.
fig, ax = plt.subplots(figsize=(7, 4.5))
styles = {
    "smoothing=1 (default)": {"color": "C0", "marker": "o"},
    "smoothing=0 (DP-SGD)": {"color": "C1", "marker": "s"},
    "smoothing=1, learning_rate=3": {"color": "C2", "marker": "^", "linestyle": "--"},
}
for name, acc in accuracy.items():
    ax.plot(epsilons, acc.mean(axis=1), label=name, **styles[name])
    ax.fill_between(
        epsilons, acc.min(axis=1), acc.max(axis=1), color=styles[name]["color"], alpha=0.15
    )
ax.axhline(baseline, color="k", linestyle=":", label="non-private LogisticRegression")
ax.set_xscale("log", base=2)
ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
ax.set_xlabel("privacy budget ε (δ = 1e-5)")
ax.set_ylabel("test accuracy")
ax.set_title("DPLSSGDClassifier on digits")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %%
# Reading the curves
# ------------------
#
# * Accuracy climbs steeply up to about ε = 1 and then flattens below the non-private
#   line: with only about 1,350 training rows, the noise needed for a small ε is large
#   compared with the signal.
# * At the default step size, smoothing costs a few points on these data compared with
#   plain DP-SGD. The 8x8 digit weights are hardly smoother along the pixel rows than
#   noise is, so the operator damps the signal almost as much as the noise, and the
#   smoothed steps are effectively shorter.
# * With ``learning_rate=3`` the smoothed model passes plain DP-SGD at its default step
#   from ε = 0.5 on, though not at ε = 0.25. Plain DP-SGD with a larger step does about
#   as well again: the :ref:`DP-LSSGD user guide <dp_lssgd>` measures both on validation
#   splits and finds that here smoothing acts mostly like a shorter step.
# * Choose such settings on public data or on a held-out part you are willing to spend
#   budget on, never by comparing test scores of private runs: every fit on the private
#   rows costs its ε.
