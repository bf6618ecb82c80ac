"""What every speedbench figure shares: files only (the Agg backend), PNG and SVG written alike
and reproducibly, a log-scaled ratio axis, and the star that marks a ratio still clear of 1x
once its p-value is adjusted for the many comparisons beside it (q < 0.05)."""
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

# An SVG with no date (see save) and fixed element ids: a figure drawn again from the same
# records is the same file, as a PNG already is, so a redraw changes only the changed figures.
matplotlib.rcParams["svg.hashsalt"] = "speedbench"

# A ratio whose interval still excludes 1x once adjusted for the comparisons drawn with it.
DISCOVERY_MARK = " *"


def save(fig, folder, name, written):
    if fig.get_layout_engine() is None:  # a figure laid out its own way (constrained) keeps it
        fig.tight_layout()
    os.makedirs(folder, exist_ok=True)  # here, so that a folder with nothing to draw gets none
    for ext in ("png", "svg"):
        path = os.path.join(folder, f"{name}.{ext}")
        fig.savefig(path, dpi=120, metadata={"Date": None} if ext == "svg" else None)
        written.append(path)
    plt.close(fig)


def ratio_axis(ax, y, labels, xlabel):
    """A log-scaled ratio axis with a line at 1x, and one labelled row per y."""
    ax.axvline(1.0, color="grey", lw=1)
    ax.set_xscale("log")  # ratios: 2x faster and 2x slower sit equally far from 1
    low, high = ax.get_xlim()
    ticks = (1 / 16, 1 / 8, 0.25, 0.5, 0.8, 0.9, 1, 1.1, 1.25, 2, 4, 8, 16, 32)
    shown = [t for t in ticks if low <= t <= high]
    if high / low > 3:  # a wide axis: powers of two only, or the labels collide
        shown = [t for t in shown if t in (1 / 16, 1 / 8, 0.25, 0.5, 1, 2, 4, 8, 16, 32)]
    ax.set_xticks(shown)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel(xlabel)
