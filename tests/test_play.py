"""The page "Play the scheduler": its levels come from the explorer, and in headless Chromium a
student's clicks through the lost-update schedule reach the violation, and the exported
schedule replays with ``crawlab explore --replay`` and breaks the same way.

The Chromium test is skipped, with the reason, when ``chromium`` is not installed (the book is
built as tests/test_book.py builds it); the data tests need frontrun.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.test_book import book, chromium, profile  # noqa: F401 - fixtures used below

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ROOT / "docs" / "results" / "play" / "levels.html"

# Runs in the page once it has loaded: level 1, the button of each step of the first
# interleaving that breaks the invariant, clicked in order; then "export"; the outcome is
# written into the DOM for --dump-dom.
DRIVER = """<script>
window.addEventListener("load", function () {
  var out = {clicks: []};
  try {
    PLAY.choose(0);
    var lv = PLAY.levels[0];
    var bad = lv.runs.filter(function (r) { return r.b; })[0];
    bad.s.forEach(function (id) {
      out.clicks.push(PLAY.steps[id].t);
      document.querySelector('#play-threads [data-step="' + id + '"]').click();
    });
    out.status = document.getElementById("play-status").textContent;
    out.history = document.getElementById("play-history").children.length;
    out.state = document.getElementById("play-state").textContent;
    document.getElementById("play-export").click();
    out.exported = document.getElementById("play-exported").textContent;
    out.expected = bad.b;
  } catch (e) { out.error = String(e); }
  document.body.setAttribute("data-play", JSON.stringify(out));
});
</script>"""


def _levels() -> dict:
    text = LEVELS.read_text()
    return json.loads(re.search(r"var PLAY_LEVELS = (.*);\n</script>", text, re.S).group(1))


def test_the_levels_are_the_explorers_interleavings():
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    from frontier.check.explore import replay

    data = _levels()
    assert [lv["frontier"] for lv in data["levels"]] == [
        "unsynchronized", "tanenbaum", "monitor", "monitor-if"]
    by = {lv["key"]: lv for lv in data["levels"]}
    assert any(r["b"] for r in by["lost-update"]["runs"])
    assert any(r["b"] for r in by["lost-wakeup"]["runs"])
    assert any(r["b"] for r in by["if-monitor"]["runs"])
    assert not any(r["b"] for r in by["monitor"]["runs"]) and by["monitor"]["whole"]
    # each interleaving's ending is what the explorer's replay of its schedule says
    for r in by["lost-update"]["runs"]:
        schedule = [t for t, n in r["sch"] for _ in range(n)]
        assert (replay("unsynchronized", "lost-update", schedule).broken or "") == r["b"]


def test_clicking_the_lost_update_breaks_it_and_the_export_replays(book, profile, tmp_path,  # noqa: F811
                                                                   capsys):
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    from crawlers.cli import main

    page = book / "play.html"
    assert page.is_file(), "the book has no play.html"
    driven = page.with_name("play.driven.html")
    driven.write_text(page.read_text().replace("</body>", DRIVER + "</body>", 1))
    dom = chromium(["--dump-dom", driven.as_uri()], profile)
    import lxml.html

    found = lxml.html.fromstring(dom).xpath("//body/@data-play")
    assert found, "the page did not run its driver (no data-play in the DOM)"
    out = json.loads(found[0])
    assert "error" not in out, out.get("error")
    assert out["status"] == "VIOLATION: " + out["expected"] and "lost" in out["expected"]
    assert out["history"] == len(out["clicks"]) and "RingBuffer.count" in out["state"]
    trace = tmp_path / "schedule.json"
    trace.write_text(out["exported"])
    assert main(["explore", "unsynchronized", "--replay", str(trace)]) == 1
    shown = capsys.readouterr().out
    assert f"broken: {out['expected']}" in shown
