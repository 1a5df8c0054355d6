"""The coordinator's side of GEMS: one model from the parties' good-enough spaces.

For linear models, the point of weight space that lies deepest inside one ball of every
party (``_threshold._best_linear_point``); for networks, the neurons matched across parties
(``_deep``). Then, with public labelled rows, the output layer is fine-tuned
(``_fine_tune``). Nothing here reads a party's rows: only their spaces.
"""

import numpy as np

from ._deep import assemble_network, match_neurons
from ._fine_tune import fine_tune_linear
from ._intersection import NoIntersectionError
from ._threshold import _best_linear_point, _no_intersection_message


class _CoordinatorMixin:
    """GEMSCombiner's ``_combine``: the fitted attributes from a list of spaces."""

    def _combine(self, spaces, X_public, y_public):
        name = type(self).__name__
        first = spaces[0]
        for attr in ("coef_", "intercept_", "coefs_", "intercepts_", "n_hidden_",
                     "n_matched_", "groups_", "classes_"):
            if hasattr(self, attr):
                delattr(self, attr)
        self._loss = first.loss
        self._kind = first.kind
        self.preprocessing_ = first.preprocessing
        if first.classes is not None:
            self.classes_ = np.asarray(first.classes)
        self.n_parties_ = len(spaces)
        epsilons = np.array([s.epsilon for s in spaces])
        self.epsilon_ = float(epsilons[0]) if np.all(epsilons == epsilons[0]) else epsilons
        self.spaces_ = spaces
        if first.kind == "linear":
            point, margin, chosen = _best_linear_point(spaces, self.intersection)
            if margin < 0:
                raise NoIntersectionError(
                    _no_intersection_message(spaces, np.arange(len(spaces)), self.epsilon_)
                )
            self.radii_ = np.array([s.radii[i] for s, i in zip(spaces, chosen)])
            self.intersection_margin_ = margin
            # width of the model's input: the features after any preprocessing
            p = (first.centers.shape[1] - first.fit_intercept * first.n_outputs) // first.n_outputs
            coef = point[: first.n_outputs * p].reshape(first.n_outputs, p)
            intercept = point[first.n_outputs * p :]
            if not first.fit_intercept:
                intercept = np.zeros(first.n_outputs)
        else:
            groups, points, margins = match_neurons(
                [s.centers for s in spaces], [s.radii for s in spaces], self.intersection
            )
            self.coefs_, self.intercepts_ = assemble_network(spaces, groups, points)
            self._activation = first.network["activation"]
            self.n_hidden_ = self.coefs_[0].shape[1]
            self.n_matched_ = len(groups)
            self.groups_ = groups
            self.radii_ = np.array([s.radii for s in spaces])
            self.intersection_margin_ = float(min(margins)) if margins else float("nan")
            coef, intercept = self.coefs_[1].T, self.intercepts_[1]
        self._log(f"combined {self.n_parties_} parties, margin {self.intersection_margin_:.4g}")

        if X_public is not None and self.fine_tune:
            if y_public is None:
                raise ValueError(f"{name}: X_public was given without y_public; pass both.")
            X_public, y_public = self._model_input(X_public, y_public, dtype="numeric")
            if first.classes is not None:
                unseen = np.setdiff1d(np.unique(y_public), self.classes_)
                if unseen.size:
                    raise ValueError(
                        f"{name}: y_public holds classes {unseen.tolist()} that no party "
                        f"trained on (classes_: {self.classes_.tolist()}). Drop those rows "
                        "or give the parties rows of those classes."
                    )
                target = np.searchsorted(self.classes_, y_public)
            else:
                target = np.asarray(y_public, dtype=float)
            features = X_public if first.kind == "linear" else self._hidden(X_public)
            coef, intercept = fine_tune_linear(
                features.astype(float), target, coef, intercept, first.loss,
                fit_intercept=first.fit_intercept,
            )
        elif y_public is not None and X_public is None:
            raise ValueError(f"{name}: y_public was given without X_public; pass both.")

        if first.kind == "linear":
            self._set_linear(coef, intercept, first)
        else:
            self.coefs_[1] = coef.T
            self.intercepts_[1] = np.asarray(intercept)

    def _set_linear(self, coef, intercept, space):
        if space.classes is None and space.n_outputs == 1:
            # A single-target regressor: coef_ (n_features,), intercept_ a float, like Ridge.
            self.coef_, self.intercept_ = coef[0], float(intercept[0])
        else:
            self.coef_, self.intercept_ = coef, np.asarray(intercept)
