"""Figures for the drawings: off-screen or pyplot, and text sized for the image it ends in.

TensorBoard shows an image in a card about 350 pixels wide (230 in Time Series), so a figure's
fonts are chosen in pixels of the final image, not in points of a printed page: at 100 dpi a
point is 100/72 pixels.

>>> round(points(14), 2)
10.08
"""

from __future__ import annotations

import contextvars
from typing import Any, Optional

# set while render_image draws: figures are then off-screen Agg figures, unknown to pyplot
OFFSCREEN = contextvars.ContextVar("lightning_metrics_offscreen", default=False)
DPI = 100


def points(pixels: float) -> float:
    """The font size in points that is ``pixels`` tall in a figure drawn at :data:`DPI`."""
    return pixels * 72.0 / DPI


def subplots(
    ax: Any = None,
    nrows: int = 1,
    ncols: int = 1,
    figsize: Optional[tuple] = None,
    **gridspec: Any,
) -> tuple[Any, Any]:
    """The figure of ``ax``, or a new figure: off-screen Agg inside ``render_image``, pyplot otherwise.

    New figures use matplotlib's constrained layout, which keeps titles, colour bars and tick
    labels inside the image without the guesswork of ``tight_layout``."""
    if ax is not None:
        return ax.get_figure(), ax
    options: dict = {"gridspec_kw": gridspec} if gridspec else {}
    if OFFSCREEN.get():
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        return fig, fig.subplots(nrows, ncols, squeeze=True, **options)
    import matplotlib.pyplot as plt

    return plt.subplots(nrows, ncols, figsize=figsize, layout="constrained", **options)


def ink_for(rgba: Any) -> str:
    """Black or white text, whichever reads better on a cell of colour ``rgba``."""
    red, green, blue = rgba[:3]
    return "black" if 0.299 * red + 0.587 * green + 0.114 * blue > 0.5 else "white"
