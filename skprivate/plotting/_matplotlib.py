"""The one place that imports matplotlib, with an error that says how to get it."""


def pyplot(caller):
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is installed in the test environment
        raise ImportError(
            f"{caller} needs matplotlib to draw. Install it with "
            "`pip install matplotlib` (or `pip install skprivate[plot]`)."
        ) from None
    return plt


def axes(ax, caller):
    """``ax`` or a new figure's axes."""
    plt = pyplot(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax
