"""Differentially private neural networks: PyTorch modules trained with DP-LSSGD via skorch.

This subpackage imports torch and skorch, so ``import skprivate`` does not import it: use
``from skprivate.neural_network import DPLSSGDNeuralNetClassifier``.
"""

from ._dplssgd_net import DPLSSGDNeuralNetClassifier, DPLSSGDNeuralNetRegressor

__all__ = ["DPLSSGDNeuralNetClassifier", "DPLSSGDNeuralNetRegressor"]
