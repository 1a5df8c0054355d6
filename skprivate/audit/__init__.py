"""Empirical privacy audits: lower bounds on epsilon from a mechanism's observed outputs.

A differentially private mechanism run many times on two neighbouring data sets must
produce output distributions whose every event has probability ratio at most ``e^epsilon``
(up to ``delta``). Counting how often an event happens on each side gives, with
Clopper-Pearson intervals, a lower bound on the epsilon the mechanism can have: if it
exceeds the claimed epsilon, the claim is false (Jagielski, Ullman and Oprea 2020; Nasr,
Song, Thakurta, Papernot and Carlini 2021). A bound below the claim proves nothing more
than "no violation found": audits find bugs, they do not certify.
"""

from ._bounds import AuditResult, audit_outcomes, audit_scores, epsilon_lower_bound

__all__ = ["AuditResult", "audit_outcomes", "audit_scores", "epsilon_lower_bound"]
