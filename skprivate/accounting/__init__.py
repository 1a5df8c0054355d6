from ._sgm import DEFAULT_RDP_ORDERS, dpsgd_epsilon, dpsgd_event, dpsgd_noise_multiplier
