"""The house style of every lab's figure, written once (:meth:`labs.harness.Lab.figure` and
:meth:`~labs.harness.Lab.save` apply it; a lab script only names its series).

* **Colours**: the Okabe-Ito palette (safe for the common colour-vision deficiencies), without
  its yellow, which is faint on white.
* **Each series its own look**: :func:`look` gives a series (a frontier, a baseline, an
  interpreter, a parser...) a colour, a marker *and* a line style, the same in every lab; no two
  series share all three, and two of one colour differ in both marker and line style, so
  ``unsynchronized`` and ``cbt`` (or any two lines of the frontier benchmark) are told apart
  in grey too. A series the style does
  not know (a student's frontier) gets the next look after the known ones.
* **Readable at the book's width** (about 800 px): figures at most :data:`MAX_WIDTH` inches
  wide, saved at :data:`DPI`, and no text smaller than :data:`MIN_FONT` points.
* **Spread only from enough runs**: :func:`runs_note` says in the title how many runs a point is
  the median of; :func:`labs.harness.series` draws the min-max bars only where there are at
  least :data:`MIN_RUNS_FOR_SPREAD`.

Matplotlib is imported by the functions that draw, never at import time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["DPI", "MAX_WIDTH", "MIN_FONT", "MIN_RUNS_FOR_SPREAD", "PALETTE", "apply", "clashes",
           "enforce_readable", "look", "runs_note"]

#: Okabe & Ito, "Color Universal Design" (2008): blue, orange, bluish green, vermillion,
#: reddish purple, sky blue, black (yellow left out: too faint as a line on white).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
#: Twelve markers that differ in outline; a marker and the one 7 places on (the same colour)
#: differ clearly (``o`` and ``*``, ``D`` and ``p``...).
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "p", "d")
LINESTYLES = ("-", "--", "-.", ":")
#: The named series, in a fixed order: each keeps its look in every lab. The two interpreters
#: (blue against orange), the baselines of the frontier benchmark, the frontiers (the
#: registry's order, but ``fine`` before ``tanenbaum``: the five frontiers of the quick threads
#: lab then have five colours), then the parsers.
KNOWN = (
    "gil", "free-threaded",
    "queue.Queue", "queue.SimpleQueue", "deque per thread",
    "unsynchronized", "lockfree", "optimistic", "semaphore", "monitor", "fine", "coarse",
    "tanenbaum", "sliced", "heap", "cbt", "quickheap",
    "lxml", "bs4", "scrapy",
)
MAX_WIDTH = 10.5  # inches: at 100 dpi about 1,050 px, shown at about 800 px in the book
DPI = 100
MIN_FONT = 9.0  # points: about 9 px at 800 px across MAX_WIDTH inches
MIN_RUNS_FOR_SPREAD = 3

_extra: dict[str, int] = {}  # series the style did not know, in the order first asked


def _index(key: Any) -> int:
    name = str(key)
    if name in KNOWN:
        return KNOWN.index(name)
    return len(KNOWN) + _extra.setdefault(name, len(_extra))


def look(key: Any) -> dict[str, Any]:
    """The colour, marker and line style of the series ``key`` (matplotlib keywords).

    Series ``i`` of the fixed order gets colour ``i mod 7``, marker ``i mod 12`` and the line
    style ``(i div 7) mod 4``: the first seven solid, the next seven dashed...; two series of
    one colour differ in marker and line style, and two share all three only 84 apart."""
    i = _index(key)
    n = len(PALETTE)
    return {"color": PALETTE[i % n], "marker": MARKERS[i % len(MARKERS)],
            "ls": LINESTYLES[(i // n) % len(LINESTYLES)]}


def runs_note(runs: Iterable[int]) -> str:
    """What a title says about the points drawn from ``runs`` repeats each: ``1 run``,
    ``median of 2 runs`` or ``median of 5 runs, bars min-max`` (a range when points differ)."""
    counts = sorted(set(runs))
    if not counts:
        return "no run"
    if counts == [1]:
        return "1 run"
    many = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    note = f"median of {many} runs"
    if counts[-1] >= MIN_RUNS_FOR_SPREAD:
        note += ", bars min-max" + ("" if counts[0] >= MIN_RUNS_FOR_SPREAD
                                    else f" where {MIN_RUNS_FOR_SPREAD} or more")
    return note


def apply() -> None:
    """Set matplotlib's defaults to the house style: the palette with a marker and a line
    style per colour for the series a lab draws without :func:`look`, fonts, grid."""
    import matplotlib.pyplot as plt
    from cycler import cycler

    plt.style.use("seaborn-v0_8-whitegrid")
    n = len(PALETTE)
    plt.rcParams.update({
        "axes.prop_cycle": (cycler(color=PALETTE) + cycler(marker=MARKERS[:n])
                            + cycler(linestyle=[LINESTYLES[i % 4] for i in range(n)])),
        "font.size": 11, "axes.titlesize": 11, "axes.labelsize": 11, "legend.fontsize": 9,
        "xtick.labelsize": 10, "ytick.labelsize": 10, "lines.linewidth": 1.6,
        "lines.markersize": 5, "legend.frameon": True, "legend.framealpha": 0.85,
        "savefig.dpi": DPI, "figure.dpi": DPI,
    })


def enforce_readable(fig, skip: Iterable[Any] = ()) -> None:
    """No text of ``fig`` smaller than :data:`MIN_FONT` (a lab's ``fontsize=7`` included),
    except the artists in ``skip``; a figure wider than :data:`MAX_WIDTH` is narrowed to it."""
    from matplotlib.text import Text

    width, height = fig.get_size_inches()
    if width > MAX_WIDTH:
        fig.set_size_inches(MAX_WIDTH, height)
    skipped = set(map(id, skip))
    for text in fig.findobj(Text):
        if id(text) not in skipped and text.get_fontsize() < MIN_FONT:
            text.set_fontsize(MIN_FONT)


def clashes(fig) -> list[tuple[str, str]]:
    """Pairs of labelled series of one axes of ``fig`` that look the same (colour, marker and
    line style): a reader cannot tell them apart, in colour or in grey. Series whose values
    are the same everywhere are no clash (one line drawn over the other says so)."""
    from matplotlib.colors import to_hex

    found = []
    for ax in fig.axes:
        seen: dict[tuple, tuple[str, Any]] = {}
        for line in ax.get_lines():
            label = line.get_label()
            if label.startswith("_"):
                continue
            key = (to_hex(line.get_color()), line.get_marker(), line.get_linestyle())
            data = (tuple(line.get_xdata()), tuple(line.get_ydata()))
            if key in seen and seen[key][1] != data:
                found.append((seen[key][0], label))
            seen.setdefault(key, (label, data))
    return found
