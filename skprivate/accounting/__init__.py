"""Privacy accounting: what a release costs, noise calibration, and budgets shared by fits.

All guarantees are stated for add/remove-one-row neighbouring datasets.
"""

from ._budget import BudgetAccountant, PrivacySpend
from ._leaks import LeakingStep, leaking_steps
from ._pate import DEFAULT_PATE_ORDERS, PATEPrivacy, pate_epsilon
from ._public import PublicInput, public_inputs
from ._pate_smooth import PATESanitized, gnss_rdp, pate_sanitized_epsilon
from ._sgm import DEFAULT_RDP_ORDERS, dpsgd_epsilon, dpsgd_event, dpsgd_noise_multiplier
from ._total import PrivacyCost, total_privacy_cost

__all__ = [
    "DEFAULT_PATE_ORDERS",
    "DEFAULT_RDP_ORDERS",
    "BudgetAccountant",
    "LeakingStep",
    "PATEPrivacy",
    "PATESanitized",
    "PrivacyCost",
    "PrivacySpend",
    "PublicInput",
    "dpsgd_epsilon",
    "dpsgd_event",
    "dpsgd_noise_multiplier",
    "gnss_rdp",
    "leaking_steps",
    "pate_epsilon",
    "pate_sanitized_epsilon",
    "public_inputs",
    "total_privacy_cost",
]
