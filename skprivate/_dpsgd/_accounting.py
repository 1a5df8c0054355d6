"""Epsilon of several runs of DP-SGD, cheap enough to report after every epoch.

A net's fit is ``T`` compositions of the Poisson-subsampled Gaussian mechanism (rate ``q``,
noise multiplier ``z``), and calls of ``partial_fit`` or warm-started fits add further runs,
possibly with another ``q`` or ``z``. Their composition is what the model has cost.

:func:`skprivate.accounting.dpsgd_epsilon` answers for one run but builds the accountant
from scratch each time (about half a second for RDP, because of the fractional Renyi
orders). Reporting the spend after every epoch would repeat that work for each epoch, so
this module computes the expensive part once per ``(z, q)``:

* RDP: the per-step RDP curve over :data:`skprivate.accounting.DEFAULT_RDP_ORDERS`. RDP
  composes additively (Mironov 2017, Prop. 1), so ``T`` steps cost ``T`` times that curve,
  converted to ``(epsilon, delta)`` with dp-accounting's ``compute_epsilon`` (Canonne, Kamath
  and Steinke 2020, Prop. 12). This is exactly what dp-accounting's ``RdpAccountant`` does
  for a self-composed event, so for one run the result equals ``dpsgd_epsilon``.
* PLD: the privacy loss distribution of one step, self-composed ``T`` times, as
  dp-accounting's ``PLDAccountant`` does for a self-composed event.
"""

import functools
from collections import Counter

import dp_accounting
import numpy as np
from dp_accounting import rdp
from dp_accounting.pld import privacy_loss_distribution as pld_lib

from ..accounting import DEFAULT_RDP_ORDERS, dpsgd_epsilon, dpsgd_event
from ..accounting._sgm import (
    _PLD_DISCRETIZATION,
    _PLD_MAX_EPSILON,
    _pld_discretization,
    _quiet_dp_accounting,
)

__all__ = []


@functools.lru_cache(maxsize=64)
def _step_rdp(noise_multiplier, sample_rate):
    """RDP curve of one step over DEFAULT_RDP_ORDERS, or None if it cannot be read."""
    accountant = rdp.RdpAccountant(list(DEFAULT_RDP_ORDERS))
    with _quiet_dp_accounting():
        accountant.compose(dpsgd_event(noise_multiplier, sample_rate, 1))
    curve = getattr(accountant, "_rdp", None)
    if not isinstance(curve, np.ndarray) or curve.shape != (len(DEFAULT_RDP_ORDERS),):
        return None  # a dp-accounting without the attribute: callers fall back
    curve = curve.copy()
    curve.setflags(write=False)
    return curve


@functools.lru_cache(maxsize=64)
def _step_pld(noise_multiplier, sample_rate, discretization=_PLD_DISCRETIZATION):
    return pld_lib.from_gaussian_mechanism(
        standard_deviation=noise_multiplier,
        value_discretization_interval=discretization,
        sampling_prob=sample_rate,
    )


def pld_grid(runs, delta):
    """The PLD grid width for ``runs``, or None where the RDP bound is reported instead.

    The rule of :func:`skprivate.accounting.dpsgd_epsilon`: above an RDP epsilon of
    ``_PLD_MAX_EPSILON`` the (looser) RDP bound is reported, since a PLD over privacy losses
    in the thousands needs gigabytes; below, the width follows the RDP epsilon. The
    pessimistic PLD is an upper bound at every width.
    """
    guide = composed_epsilon(runs, delta, "rdp")
    return None if guide > _PLD_MAX_EPSILON else _pld_discretization(guide)


def runs_event(runs):
    """The dp-accounting event of ``runs``, a sequence of ``(z, q, steps)``."""
    events = [dpsgd_event(z, q, steps) for (z, q), steps in _merge(runs).items()]
    return events[0] if len(events) == 1 else dp_accounting.ComposedDpEvent(events)


def _merge(runs):
    """``{(z, q): steps}``: runs with the same noise and rate are one longer run."""
    merged = Counter()
    for z, q, steps in runs:
        if steps > 0:
            merged[(float(z), float(q))] += int(steps)
    return dict(merged)


def composed_epsilon(runs, delta, accounting="rdp"):
    """Epsilon at ``delta`` of all ``runs`` (``(z, q, steps)`` each) composed, add/remove-one.

    Returns 0.0 when no step was taken. For a single ``(z, q)`` the value equals
    ``dpsgd_epsilon(z, q, total_steps, delta, accounting)``.
    """
    merged = _merge(runs)
    if not merged:
        return 0.0
    if accounting == "rdp":
        curves = [_step_rdp(z, q) for z, q in merged]
        if any(curve is None for curve in curves):
            if len(merged) == 1:
                ((z, q), steps), = merged.items()
                return dpsgd_epsilon(z, q, steps, delta)
            accountant = rdp.RdpAccountant(list(DEFAULT_RDP_ORDERS))
            with _quiet_dp_accounting():
                accountant.compose(runs_event(runs))
                return float(accountant.get_epsilon(delta))
        # The accumulation of dp-accounting's RdpAccountant: zeros plus count times the curve.
        total = np.zeros(len(DEFAULT_RDP_ORDERS))
        for curve, steps in zip(curves, merged.values(), strict=True):
            total += steps * curve
        with _quiet_dp_accounting():
            epsilon, _ = rdp.compute_epsilon(list(DEFAULT_RDP_ORDERS), total, delta)
        return float(epsilon)
    width = pld_grid(runs, delta)
    if width is None:
        return composed_epsilon(runs, delta, "rdp")
    loss = pld_lib.identity(value_discretization_interval=width)
    for (z, q), steps in merged.items():
        loss = loss.compose(_step_pld(z, q, width).self_compose(steps))
    return float(loss.get_epsilon_for_delta(delta))
