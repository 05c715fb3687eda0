"""A history drawn as a timeline, Porcupine-style: one row per thread, each operation a bar from
its invocation to its response, the operations that could not be linearized in red."""

from __future__ import annotations

from pathlib import Path

from frontier.check.linearize import Check, Op, _label

__all__ = ["draw"]


def draw(history: list[Op], result: Check, path: Path, *, title: str) -> Path:
    """Write the timeline of ``history`` to ``path`` (PNG); returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = min(op.invoke for op in history)
    threads = sorted({op.thread for op in history})
    bad = set(result.offending)
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.6 * len(threads)))
    for i, op in enumerate(history):
        x, w = (op.invoke - t0) / 1e3, max((op.response - op.invoke) / 1e3, 0.5)
        colour = "tab:red" if i in bad else ("tab:blue" if op.kind == "put" else "tab:green")
        ax.barh(op.thread, w, left=x, height=0.6, color=colour, alpha=0.85 if i in bad else 0.5,
                edgecolor="black", linewidth=0.4)
        if i in bad:
            ax.annotate(_label(op), (x, op.thread - 0.32), fontsize=9, color="tab:red",
                        va="bottom")
    ax.set_yticks(threads, [f"thread {t}" for t in threads])
    ax.invert_yaxis()
    ax.set_xlabel("time since the first invocation (microseconds)")
    ax.set_title(title, fontsize=10)
    legend = [Patch(facecolor="tab:blue", alpha=0.5, edgecolor="black", label="put"),
              Patch(facecolor="tab:green", alpha=0.5, edgecolor="black", label="get"),
              Patch(facecolor="tab:red", alpha=0.85, edgecolor="black",
                    label="none of these can be linearized next")]
    fig.legend(handles=legend, loc="lower center", ncol=3, fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.1 + 0.1 / len(threads), 1, 1))
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return Path(path)
