"""The one place that imports matplotlib, with an error that says how to get it."""

from ..utils._docstrings import fragment

#: The ``ax`` and ``plot`` parameters of the displays' ``from_*`` constructors.
AX_PLOT_DOC = fragment(
    """
    ax : matplotlib Axes, default=None
        Where to draw; None makes a new figure.
    plot : bool, default=True
        Draw now.
    """
)

#: The attributes every display sets when it draws.
FIGURE_ATTRIBUTES_DOC = fragment(
    """
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure.
    """
)


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
