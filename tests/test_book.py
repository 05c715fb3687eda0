"""The course book renders: its index, a lab handout, the API page and an exercise page, opened
in headless Chromium.

The book is ``docs/_build/html`` (or ``$CRAWLAB_BOOK_HTML``) when CI built it first and it is
newer than every source page; otherwise it is built here (``sphinx-build -W``) into a temporary
folder. Each page is copied with a small probe script that, once the page has loaded, writes
into the DOM how many images Chromium decoded and which failed; ``chromium --dump-dom``
returns that DOM. One screenshot of the lab handout is checked for being a real page (many
colours, not blank). Every subprocess has a timeout. The Chromium tests are skipped, with the
reason, when ``chromium`` is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PREBUILT = Path(os.environ.get("CRAWLAB_BOOK_HTML") or DOCS / "_build" / "html")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=10000"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BUILD_SECONDS = 900
"""What one ``sphinx-build`` of the book may take (a busy 2-core machine: minutes)."""
TEST_SECONDS = BUILD_SECONDS + 300
"""pytest-timeout's limit for every test here (pyproject's default is 120 s): the module's
``book`` fixture builds the book inside the first test that asks for it, and that test must
outlive the build's own timeout, so that a slow build fails with sphinx's message, not
with pytest-timeout's; plus Chromium's runs (90 s each at most)."""
SOURCES = ("*.rst", "*.inc", "*.py", "*.html", "*.txt", "*.json", "*.csv", "*.png", "*.svg")
"""What a book page is made from: pages, included tables and texts, the JSON and HTML the
page "Play the scheduler" embeds, the scripts and ``conf.py``, the figures."""

pytestmark = pytest.mark.timeout(TEST_SECONDS)

PROBE = """<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  document.body.setAttribute("data-probe", JSON.stringify({
    images: imgs.length,
    failed: bad.map(function (i) { return i.getAttribute("src"); }),
    widths: imgs.map(function (i) { return i.naturalWidth; }),
    details: document.querySelectorAll("details").length,
    open_details: document.querySelectorAll("details[open]").length
  }));
});
</script>"""

def _fresh(html: Path) -> bool:
    """Whether ``html`` was built after every source of the book (:data:`SOURCES`: pages,
    included files, scripts, data, images) was written."""
    index = html / "index.html"
    if not index.is_file():
        return False
    built = index.stat().st_mtime
    sources = [p for pattern in SOURCES for p in DOCS.rglob(pattern)]
    return all(p.stat().st_mtime <= built for p in sources
               if "_build" not in p.parts and "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    """A copy of the built book (the probes are written next to the pages)."""
    out = tmp_path_factory.mktemp("book")
    if _fresh(PREBUILT):
        shutil.copytree(PREBUILT, out / "html")
    else:
        run = subprocess.run(
            [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS),
             str(out / "html")], capture_output=True, text=True, timeout=BUILD_SECONDS)
        assert run.returncode == 0, f"sphinx-build -W failed:\n{run.stderr[-3000:]}"
    return out / "html"


def chromium(args: list[str], profile: Path, timeout: float = 90) -> str:
    run = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                         capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0, f"chromium failed ({run.returncode}): {run.stderr[-2000:]}"
    return run.stdout


def open_page(book: Path, page: str, profile: Path):
    """Load ``page`` with the probe; return (the dumped DOM as an lxml tree, the probe dict)."""
    import lxml.html

    source = book / page
    assert source.is_file(), f"the book has no {page}"
    probe = source.with_name(source.stem + ".probe.html")
    probe.write_text(source.read_text().replace("</body>", PROBE + "</body>", 1))
    dom = chromium(["--dump-dom", probe.as_uri()], profile)
    tree = lxml.html.fromstring(dom)
    data = tree.xpath("//body/@data-probe")
    assert data, f"{page}: the page did not finish loading (no probe result in the DOM)"
    return tree, json.loads(data[0])


def check_images(book: Path, page: str, tree, probe: dict) -> list[Path]:
    """Every <img> decoded in Chromium; every local one a non-empty file (PNGs: real PNGs)."""
    assert not probe["failed"], f"{page}: images Chromium could not load: {probe['failed']}"
    files = []
    for src in tree.xpath("//img/@src"):
        if src.startswith(("data:", "http:", "https:")):
            continue
        path = ((book / page).parent / src.split("#")[0].split("?")[0]).resolve()
        assert path.is_file() and path.stat().st_size > 0, f"{page}: {src} missing or empty"
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG_MAGIC, f"{page}: {src} is not a PNG"
        files.append(path)
    return files


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> Path:
    """Chromium's throw-away profile folder; skips the test when Chromium is missing."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (CI installs Debian's chromium)")
    return tmp_path_factory.mktemp("chromium-profile")


def test_index_renders_with_its_table_of_contents(book, profile):
    tree, probe = open_page(book, "index.html", profile)
    assert "crawlab" in tree.findtext(".//title")
    check_images(book, "index.html", tree, probe)
    links = [a for a in tree.xpath("//div[contains(@class,'toctree-wrapper')]//a/@href")
             if not a.startswith(("http", "#"))]
    assert len(links) >= 5, links
    for href in links:
        assert (book / href.split("#")[0]).is_file(), f"index links to a missing page {href}"


def test_lab_handout_renders_with_its_plot(book, profile):
    page = "handouts/crawl-threads.html"
    tree, probe = open_page(book, page, profile)
    files = check_images(book, page, tree, probe)
    plots = [f for f in files if f.suffix == ".png"]
    assert plots, f"{page}: no plot"
    assert all(w > 200 for w in probe["widths"][-len(plots):]), probe["widths"]
    text = tree.text_content()
    assert "crawlab lab crawl-threads --quick" in text, "the command that made the plot"


def test_api_page_renders_the_documented_classes(book, profile):
    page = "api/frontier.html"
    tree, probe = open_page(book, page, profile)
    check_images(book, page, tree, probe)
    documented = tree.xpath("//dl[contains(@class,'py')]/dt/@id")
    assert "frontier.contract.Frontier" in documented, documented[:10]
    assert "frontier.locked.LockedFrontier" in documented


def test_exercise_hints_are_folded(book, profile):
    page = "exercises/ex1-bounded-fifo.html"
    tree, probe = open_page(book, page, profile)
    assert probe["details"] == 3 and probe["open_details"] == 0, probe
    assert "YOUR CODE HERE" in tree.text_content()  # the starter file, pulled in


def test_instructor_edition_builds_without_warnings(tmp_path):
    """``-t instructor`` adds the answers and solutions; it too builds with ``-W``."""
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-t", "instructor", "-b", "html",
         str(DOCS), str(tmp_path / "html")], capture_output=True, text=True,
        timeout=BUILD_SECONDS)
    assert run.returncode == 0, f"sphinx-build -W -t instructor failed:\n{run.stderr[-3000:]}"
    assert (tmp_path / "html" / "instructor" / "plunge-and-gil.html").is_file()


def test_student_book_has_no_instructor_pages(book):
    assert not (book / "instructor").exists()
    assert "plunge-and-gil" not in (book / "searchindex.js").read_text()


def test_screenshot_of_the_lab_handout_is_a_rendered_page(book, profile, tmp_path):
    from PIL import Image

    shot = tmp_path / "crawl-threads.png"
    chromium(["--window-size=1280,2400", f"--screenshot={shot}",
              (book / "handouts" / "crawl-threads.html").as_uri()], profile)
    assert shot.is_file() and shot.stat().st_size > 10_000
    with Image.open(shot) as img:
        assert img.size == (1280, 2400)
        small = img.convert("RGB").resize((320, 600))
        colours = small.getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 50, "a blank or nearly blank screenshot"
        extrema = small.convert("L").getextrema()
        assert extrema[1] - extrema[0] > 100, "no contrast: nothing was drawn"
    shutil.copy(shot, Path(tmp_path.parent) / "last-book-screenshot.png")


def _book_sources() -> str:
    return "\n".join(p.read_text() for p in [*DOCS.rglob("*.rst"), *DOCS.rglob("*.inc")]
                     if "_build" not in p.parts)


def test_every_lab_plot_is_in_the_book_with_the_command_that_made_it():
    text = _book_sources()
    for png in sorted((DOCS / "results").glob("*/*.png")):
        lab = png.parent.name
        assert f"results/{lab}/{png.name}" in text, f"{png.name} is in no page of the book"
        # a lab's plots, or a book script's (docs/explore_results.py writes results/explore)
        made_by = (f"crawlab lab {lab}", f"docs/{lab}_results.py")
        assert any(c in text for c in made_by), f"the book never shows the command of {lab}"


def test_results_against_the_papers_is_up_to_date():
    """docs/results/papers-table.inc is what ``python docs/papers_table.py`` writes now."""
    sys.path.insert(0, str(DOCS))
    try:
        import papers_table
    finally:
        sys.path.remove(str(DOCS))
    assert papers_table.OUT.read_text() == papers_table.render(), (
        "docs/results/papers-table.inc is stale: run python docs/papers_table.py")


def test_the_explore_table_is_up_to_date():
    """docs/results/explore/explore-table.inc is what ``docs/explore_results.py`` renders from
    explore.csv now (its source line included: dates, commits, load)."""
    sys.path.insert(0, str(DOCS))
    try:
        import explore_results
    finally:
        sys.path.remove(str(DOCS))
    assert (explore_results.OUT / "explore-table.inc").read_text() == \
        explore_results.table_text(), ("docs/results/explore/explore-table.inc is stale: run "
                                       "python docs/explore_results.py --table")
