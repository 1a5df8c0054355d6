"""
Quickstart: private models on the UCI Adult census data
=======================================================

Fits every skprivate estimator available so far on the bundled Adult data (predict whether
income exceeds 50K from 14 census attributes) and prints test accuracy with the privacy
guarantee of each, next to non-private scikit-learn baselines. Each row is printed as soon as
its model is fitted; the long fit, the network's, passes ``verbose=1``: a bar over its steps
on stderr and a line per epoch (with the epsilon spent so far) as it goes.

The preprocessing is data-independent: its categories and numeric ranges come from the
public codebook, so fitting it reveals nothing about the private rows. The first 2,000 test
rows play the public, unlabelled points that PATE's teachers label; every model is scored on
the remaining 14,281 test rows.
"""

import time
import warnings

from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from skprivate import DPLSSGDClassifier
from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.pate import PATEClassifier

X_train, y_train = load_adult(subset="train", return_X_y=True)
X_test, y_test = load_adult(subset="test", return_X_y=True)
prep = make_adult_preprocessor().fit(X_train[:1])  # learns nothing from the rows
X_train, X_test = prep.transform(X_train), prep.transform(X_test)
X_public, X_eval, y_eval = X_test[:2000], X_test[2000:], y_test[2000:]
print(f"Adult: {X_train.shape[0]} private training rows, {X_train.shape[1]} columns after "
      f"preprocessing, {len(X_public)} public points, {len(y_eval)} evaluation rows\n")

# random_state=0 makes this demo reproducible. A fixed seed means anyone who knows it knows
# the noise, so skprivate warns once per fit; a real release uses random_state=None.
warnings.simplefilter("ignore", PrivacyLeakWarning)

models = [
    ("LogisticRegression (non-private)", LogisticRegression(max_iter=1000), {}),
    ("RandomForest (non-private)", RandomForestClassifier(100, random_state=0), {}),
]
# DPLSSGDClassifier's defaults need no tuning: steps, batch, learning rate, clipping and
# averaging are chosen from public numbers (rows, epsilon, delta), and the rows are centred
# and scaled with private estimates that are part of epsilon_. Tuning on the private rows
# would spend privacy.
for epsilon in (0.5, 1.0, 4.0):
    models.append((f"DPLSSGDClassifier(epsilon={epsilon:g})",
                   DPLSSGDClassifier(epsilon=epsilon, delta=1e-6, classes=[0, 1],
                                     random_state=0), {}))
# PATE chooses its noise and number of queries from epsilon and public numbers alone.
models.append((
    "PATEClassifier(epsilon=2, 100 teachers)",
    PATEClassifier(DecisionTreeClassifier(max_depth=8), RandomForestClassifier(100),
                   n_teachers=100, epsilon=2.0, delta=1e-6, classes=[0, 1], random_state=0),
    {"X_public": X_public},
))

try:  # the network estimator needs torch, an optional dependency
    import torch

    from skprivate.neural_network import DPLSSGDNeuralNetClassifier

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(X_train.shape[1], 32), torch.nn.Tanh(),
                              torch.nn.Linear(32, 2))
    models.append(("DPLSSGDNeuralNetClassifier(epsilon=1)",
                   DPLSSGDNeuralNetClassifier(mlp, epsilon=1.0, delta=1e-6, classes=[0, 1],
                                              random_state=0, verbose=1),
                   {}))
except ImportError:
    print("(torch is not installed: skipping DPLSSGDNeuralNetClassifier)\n")

header = f"{'estimator':<45} {'test accuracy':>13} {'epsilon_':>9} {'delta_':>8} {'fit (s)':>8}"
print(header)
print("-" * len(header), flush=True)
for name, model, fit_params in models:
    X_fit = X_train.astype("float32") if "NeuralNet" in name else X_train
    start = time.perf_counter()
    model.fit(X_fit, y_train, **fit_params)
    seconds = time.perf_counter() - start
    X_score = X_eval.astype("float32") if "NeuralNet" in name else X_eval
    accuracy = (model.predict(X_score) == y_eval).mean()
    epsilon = getattr(model, "epsilon_", float("inf"))
    eps = "inf" if epsilon == float("inf") else f"{epsilon:.3f}"
    delta = getattr(model, "delta_", 0.0)
    # flush: each row appears when its model is done, not when the last one is
    print(f"{name:<45} {accuracy:>13.4f} {eps:>9} {delta:>8.0e} {seconds:>8.2f}", flush=True)
print("\nepsilon_ = inf: no privacy guarantee. Each private model's (epsilon_, delta_) is its "
      "guarantee for one row of the training data (add/remove-one neighbouring).")
