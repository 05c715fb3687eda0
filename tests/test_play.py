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

from tests.test_book import TEST_SECONDS, book, chromium, profile  # noqa: F401 - fixtures

# the Chromium test builds the book first (tests/test_book.py's fixture, once per module):
# minutes on a busy machine, more than pyproject's default timeout
pytestmark = pytest.mark.timeout(TEST_SECONDS)

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ROOT / "docs" / "results" / "play" / "levels.html"

# Runs in the page once it has loaded: for level 1 (the lost update) and level 4 (the
# if-monitor), the button of each step of the level's first interleaving that breaks the
# invariant, clicked in order; then "export"; the outcomes are written into the DOM for
# --dump-dom.
PLAYED = (0, 3)
DRIVER = """<script>
window.addEventListener("load", function () {
  var all = [];
  PLAYED.forEach(function (i) {
    var out = {level: i, clicks: []};
    try {
      document.getElementById("play-level").value = String(i);
      document.getElementById("play-level").dispatchEvent(new Event("change"));
      var lv = PLAY.levels[i];
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
    all.push(out);
  });
  document.body.setAttribute("data-play", JSON.stringify(all));
});
</script>""".replace("PLAYED", json.dumps(list(PLAYED)))


def _levels() -> dict:
    text = LEVELS.read_text()
    return json.loads(re.search(r"var PLAY_LEVELS = (.*);\n</script>", text, re.S).group(1))


def test_the_levels_are_the_explorers_interleavings():
    pytest.importorskip("frontrun", reason="frontrun (crawlab[explore]) is not installed here")
    from frontier.check.explore import replay
    from frontier.check.teaching import IF_MONITOR

    data = _levels()
    assert [lv["frontier"] for lv in data["levels"]] == [
        "unsynchronized", "tanenbaum", "monitor", "monitor-if"]
    # what the exported trace files name: something crawlab explore loads
    assert [lv["spec"] for lv in data["levels"]] == [
        "unsynchronized", "tanenbaum", "monitor", IF_MONITOR]
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
    lost, if_monitor = json.loads(found[0])
    for out in (lost, if_monitor):
        assert "error" not in out, out.get("error")
        assert out["status"] == "VIOLATION: " + out["expected"]
        assert out["history"] == len(out["clicks"])
    assert "lost" in lost["expected"] and "RingBuffer.count" in lost["state"]
    trace = tmp_path / "schedule.json"
    trace.write_text(lost["exported"])
    assert main(["explore", "unsynchronized", "--replay", str(trace)]) == 1
    shown = capsys.readouterr().out
    assert f"broken: {lost['expected']}" in shown
    # level 4: the exported file names the teaching class by the spec crawlab loads it by,
    # and typed as the file says, the replay breaks the same way
    from frontier.check.teaching import IF_MONITOR

    data = json.loads(if_monitor["exported"])
    assert data["frontier"] == IF_MONITOR and data["scenario"] == "lost-wakeup"
    trace.write_text(if_monitor["exported"])
    assert main(["explore", data["frontier"], "--replay", str(trace)]) == 1
    shown = capsys.readouterr().out
    assert f"broken: {if_monitor['expected']}" in shown
