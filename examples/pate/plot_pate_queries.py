"""
PATE on Adult: accuracy and privacy against the number of queries
=================================================================

A PATE student learns only from the public points the teachers label by noisy vote, so the
number of queries sets both its accuracy and its privacy cost. This example fits
:class:`~skprivate.pate.PATEClassifier` on the bundled Adult data for a growing number of
queries, with decision-tree teachers so that it runs in seconds, and plots the student's
test accuracy next to the publishable (data-independent) epsilon and the papers'
data-dependent epsilon, against a non-private model trained on all private rows.
"""

# %%
# Data: the training split is private; the first 2,000 test rows play the public,
# unlabelled points; the rest evaluates. The preprocessing is data-independent.
import warnings

import matplotlib.pyplot as plt
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from skprivate.datasets import load_adult, make_adult_preprocessor
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.pate import PATEClassifier

X, y = load_adult(subset="train", return_X_y=True)
X_test, y_test = load_adult(subset="test", return_X_y=True)
prep = make_adult_preprocessor().fit(X[:1])  # learns nothing from the rows
X, X_test = prep.transform(X), prep.transform(X_test)
X_public, X_eval, y_eval = X_test[:2000], X_test[2000:], y_test[2000:]

baseline = RandomForestClassifier(100, random_state=0).fit(X, y).score(X_eval, y_eval)

# %%
# One fit per number of queries. ``random_state=0`` makes the page reproducible; a release
# uses ``random_state=None`` (skprivate warns about fixed seeds, silenced here).
warnings.simplefilter("ignore", PrivacyLeakWarning)
queries = [50, 100, 200, 400, 800]
accuracy, eps, eps_dd = [], [], []
for n_queries in queries:
    clf = PATEClassifier(
        teacher=DecisionTreeClassifier(max_depth=8),
        student=RandomForestClassifier(100),
        n_teachers=100,
        aggregator="gnmax",
        noise_scale=20.0,
        n_queries=n_queries,
        epsilon=None,  # no budget: the queries are set here, and epsilon_ follows from them
        # The student learns from the noisy labels only: the data-dependent analysis covers
        # those, not the noisy counts that soft labels read (with soft labels,
        # epsilon_data_dependent_ is epsilon_).
        soft_labels=False,
        random_state=0,
        verbose=1,  # the teachers' progress, on stderr
    ).fit(X, y, X_public=X_public)
    accuracy.append(clf.score(X_eval, y_eval))
    eps.append(clf.epsilon_)
    eps_dd.append(clf.epsilon_data_dependent_)
    print(f"{n_queries:>4} queries: accuracy {accuracy[-1]:.4f}, epsilon_ {clf.epsilon_:.2f}, "
          f"data-dependent {clf.epsilon_data_dependent_:.2f}")

# %%
# More queries buy accuracy with privacy. The data-dependent epsilon grows much more slowly
# than the publishable bound because the teachers mostly agree; remember that it is
# computed from the private votes and must not be published as is.
fig, (ax_acc, ax_eps) = plt.subplots(1, 2, figsize=(10, 4))
ax_acc.plot(queries, accuracy, "o-", label="PATE student (GNMax, 100 teachers)")
ax_acc.axhline(baseline, color="grey", linestyle="--", label="non-private random forest")
ax_acc.set_xscale("log")
ax_acc.set_xlabel("queries answered by the teachers")
ax_acc.set_ylabel("test accuracy")
ax_acc.legend(loc="lower right")
ax_eps.plot(queries, eps, "o-", label="epsilon_ (data-independent, publishable)")
ax_eps.plot(queries, eps_dd, "s--", label="data-dependent (do not publish)")
ax_eps.set_xscale("log")
ax_eps.set_xlabel("queries answered by the teachers")
ax_eps.set_ylabel("epsilon at delta = 1e-5")
ax_eps.legend(loc="upper left")
fig.tight_layout()
plt.show()
