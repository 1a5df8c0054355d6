"""Displays for privacy-utility trade-offs and privacy budgets (scikit-learn's Display API).

matplotlib is an optional dependency, imported only when a display draws.
"""

from ._budget_display import PrivacyBudgetDisplay
from ._privacy_utility import PrivacyUtilityDisplay

__all__ = ["PrivacyBudgetDisplay", "PrivacyUtilityDisplay"]
