"""The house style of every lab's figure, written once (:meth:`labs.harness.Lab.figure` and
:meth:`~labs.harness.Lab.save` apply it; a lab script only names its series).

* **Colours**: the Okabe-Ito palette (safe for the common colour-vision deficiencies), without
  its yellow, which is faint on white.
* **Each series its own identity**: :func:`look` gives a series (a frontier, a baseline, an
  interpreter, a parser...) a marker *and* a line style that no other series has, the same in
  every lab, so a reader follows ``lockfree`` from figure to figure (and in grey). A series the
  style does not know (a student's frontier) gets the next identity after the known ones.
* **Colours per axes**: within one axes the series get distinct colours while the palette has
  one left (:func:`colours`, which :func:`look` with ``ax=`` and :func:`labs.harness.series`
  use): each keeps its *home* colour when no other series of that axes has it, the others take
  the colours nobody there uses. With more series than colours on one axes, a colour is shared
  only by series of different line styles. :func:`clashes` and :func:`shared_colours` check a
  drawn figure for both rules.
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
           "colours", "enforce_readable", "identity", "look", "runs_note", "shared_colours",
           "spread"]

#: Okabe & Ito, "Color Universal Design" (2008): blue, orange, bluish green, vermillion,
#: reddish purple, sky blue, black (yellow left out: too faint as a line on white).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
#: Twelve markers that differ in outline.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "p", "d")
LINESTYLES = ("-", "--", "-.", ":")


def _identities() -> tuple[tuple[str, str], ...]:
    # Series i < 28: marker i mod 12, line style (i div 7) mod 4 (the looks the figures always
    # had); then the (marker, line style) pairs not taken yet: 48 series, each its own pair.
    first = [(MARKERS[i % len(MARKERS)], LINESTYLES[(i // 7) % len(LINESTYLES)])
             for i in range(28)]
    rest = [(m, ls) for ls in LINESTYLES for m in MARKERS if (m, ls) not in first]
    return (*first, *rest)


#: Every series' (marker, line style), in the order of :data:`KNOWN` then of first asking.
IDENTITIES = _identities()
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


def identity(key: Any) -> tuple[str, str]:
    """The marker and line style of the series ``key``: its own in every lab (the first 48
    series each have a pair no other has)."""
    return IDENTITIES[_index(key) % len(IDENTITIES)]


def home(key: Any) -> str:
    """The colour ``key`` has wherever no other series of its axes has it: colour ``i mod 7``
    of the palette for series ``i`` of the fixed order."""
    return PALETTE[_index(key) % len(PALETTE)]


def colours(ax: Any, keys: Iterable[Any]) -> dict[Any, str]:
    """Give the series ``keys`` drawn on ``ax`` their colours there and return ``{key: colour}``
    for every series the axes has been given. A key given before keeps its colour; of the new
    ones, those whose :func:`home` colour nobody on ``ax`` has keep it, the others take a
    colour nobody there has yet (the palette's order from their home colour), and when every
    colour is taken, the least used one that no series of the same line style has."""
    given: dict[Any, str] = ax.__dict__.setdefault("_house_colours", {})
    new = [k for k in dict.fromkeys(keys) if k not in given]
    for key in new:  # home colours first, in the order asked
        if home(key) not in given.values():
            given[key] = home(key)
    for key in new:
        if key in given:
            continue
        ls = identity(key)[1]
        used = list(given.values())
        pairs = {(c, identity(k)[1]) for k, c in given.items()}
        start = PALETTE.index(home(key))
        given[key] = min(
            (PALETTE[(start + j) % len(PALETTE)] for j in range(len(PALETTE))),
            key=lambda c: (c in used, (c, ls) in pairs, used.count(c)))
    return dict(given)


def look(key: Any, ax: Any = None) -> dict[str, Any]:
    """The colour, marker and line style of the series ``key`` (matplotlib keywords): its own
    marker and line style (:func:`identity`), and its colour on ``ax`` (:func:`colours`; its
    :func:`home` colour without ``ax``). Draw every series of one axes with ``ax=`` so that
    they get distinct colours."""
    marker, ls = identity(key)
    colour = colours(ax, [key])[key] if ax is not None else home(key)
    return {"color": colour, "marker": marker, "ls": ls}


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


def spread(ax: Any, points: Iterable[dict], x: str, color: str, **kw: Any) -> None:
    """Min-max bars around each point's median, drawn only where the point is the median of
    :data:`MIN_RUNS_FOR_SPREAD` runs or more (fewer say nothing about spread). ``points`` are
    dicts with ``x``, ``median``, ``min``, ``max`` and ``runs``; ``kw`` goes to ``errorbar``
    (``capsize``, ``lw``)."""
    wide = [p for p in points if p["runs"] >= MIN_RUNS_FOR_SPREAD]
    if wide:
        ax.errorbar([p[x] for p in wide], [p["median"] for p in wide],
                    yerr=[[p["median"] - p["min"] for p in wide],
                          [p["max"] - p["median"] for p in wide]],
                    fmt="none", ecolor=color, **kw)


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


def _is_series(line: Any) -> bool:
    from matplotlib.colors import to_hex

    return (not line.get_label().startswith("_") and line.get_marker() not in ("", "None", None)
            and to_hex(line.get_color()).upper() in PALETTE)


def shared_colours(fig) -> list[tuple[str, str]]:
    """Pairs of labelled series of one axes of ``fig`` with one colour of the palette where
    they need not share it: while a colour of the palette is unused on that axes, or with the
    same line style. A series is a marked line of a palette colour (reference lines in grey or
    without markers are not); lines of one colour *and* one marker are one series drawn in
    variants (a line style per setting) and share their colour on purpose."""
    from matplotlib.colors import to_hex

    found = []
    for ax in fig.axes:
        lines = [line for line in ax.get_lines() if _is_series(line)]
        spare = len({to_hex(line.get_color()) for line in lines}) < len(PALETTE)
        for i, a in enumerate(lines):
            for b in lines[i + 1:]:
                if to_hex(a.get_color()) != to_hex(b.get_color()):
                    continue
                if a.get_marker() == b.get_marker():
                    continue
                if spare or a.get_linestyle() == b.get_linestyle():
                    found.append((a.get_label(), b.get_label()))
    return found
