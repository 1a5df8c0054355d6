"""Utilities for users and for skprivate's own tests."""

from .discovery import all_estimators

__all__ = ["all_estimators"]
