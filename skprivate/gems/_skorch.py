"""skorch networks as local models of deep GEMS; torch is imported only when one is used."""

import numpy as np

__all__ = ["is_skorch_net", "fit_skorch", "skorch_weights"]

_ACTIVATIONS = {"ReLU": "relu", "Tanh": "tanh", "Sigmoid": "logistic"}


def is_skorch_net(estimator):
    """True for a skorch net (checked by module name: skorch itself is not imported)."""
    return type(estimator).__module__.split(".")[0] == "skorch" and hasattr(estimator, "module")


def fit_skorch(net, X, y, seed):
    """Fit a skorch classifier on float32 rows and class indices, seeding torch first."""
    import torch

    torch.manual_seed(int(seed))
    return net.fit(np.asarray(X, dtype=np.float32), np.asarray(y, dtype=np.int64))


def skorch_weights(net):
    """(coefs, intercepts, activation) of a fitted net with one hidden layer.

    The module must contain exactly two ``torch.nn.Linear`` layers (input to hidden, hidden
    to output) and at most one elementwise activation among ReLU, Tanh and Sigmoid between
    them; a final softmax or log-softmax is allowed. The output layer's values are read as
    the logits of the classes.
    """
    import torch

    linears = [m for m in net.module_.modules() if isinstance(m, torch.nn.Linear)]
    names = [type(m).__name__ for m in net.module_.modules()]
    activations = [_ACTIVATIONS[n] for n in names if n in _ACTIVATIONS]
    if len(linears) != 2 or len(activations) > 1:
        raise ValueError(
            "GEMS: a skorch module for deep GEMS must have exactly two Linear layers and "
            f"one activation (ReLU, Tanh or Sigmoid); got the modules {names}."
        )
    first, second = linears
    coefs = [first.weight.detach().cpu().numpy().T.astype(float),
             second.weight.detach().cpu().numpy().T.astype(float)]
    intercepts = [first.bias.detach().cpu().numpy().astype(float),
                  second.bias.detach().cpu().numpy().astype(float)]
    return coefs, intercepts, activations[0] if activations else "identity"
