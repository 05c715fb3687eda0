"""The directory site's file cache: served bytes always match the file on disk, never a
file outside the root, and the cache stays within its bounds."""

from __future__ import annotations

import os

import pytest

from crawlers.web.httpd import DirectorySite
from crawlers.web.server import WebServer
from tests.helpers import raw_get


@pytest.fixture()
def root(tmp_path):
    site = tmp_path / "root"
    site.mkdir()
    (site / "page.html").write_text("<a href='x.html'>first</a>")
    (tmp_path / "outside.html").write_text("OUTSIDE THE ROOT")
    return site


def _rewrite(path, text: str) -> None:
    """Write ``text`` to ``path`` with a modification time different from before."""
    before = os.stat(path).st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_a_page_asked_again_comes_from_the_cache(root):
    site = DirectorySite(0, str(root))
    first = site.respond("/page.html", "")
    again = site.respond("/page.html", "")
    assert first.status == again.status == 200
    assert again is first  # the same response object: no second read
    assert again.content_type == "text/html; charset=utf-8"


def test_an_edited_file_is_served_fresh(root):
    site = DirectorySite(0, str(root))
    assert site.respond("/page.html", "").body == b"<a href='x.html'>first</a>"
    _rewrite(root / "page.html", "<a href='y.html'>second, longer</a>")
    assert site.respond("/page.html", "").body == b"<a href='y.html'>second, longer</a>"
    _rewrite(root / "page.html", "<a href='z.html'>third!!, longer</a>")  # same size
    assert site.respond("/page.html", "").body == b"<a href='z.html'>third!!, longer</a>"


def test_a_deleted_file_is_404_again(root):
    site = DirectorySite(0, str(root))
    assert site.respond("/page.html", "").status == 200
    (root / "page.html").unlink()
    assert site.respond("/page.html", "").status == 404
    assert site._cached_bytes == 0


def test_a_cached_file_swapped_for_a_link_outside_is_refused(root):
    site = DirectorySite(0, str(root))
    assert site.respond("/page.html", "").status == 200
    (root / "page.html").unlink()
    (root / "page.html").symlink_to(root.parent / "outside.html")
    response = site.respond("/page.html", "")
    assert response.status == 403
    assert b"OUTSIDE" not in response.body


def test_large_files_are_served_but_not_kept(root):
    site = DirectorySite(0, str(root))
    site.cache_max_file = 10
    first = site.respond("/page.html", "")
    again = site.respond("/page.html", "")
    assert first.body == again.body == (root / "page.html").read_bytes()
    assert again is not first and site._cached_bytes == 0


def test_the_cache_stays_within_its_total(root):
    for i in range(10):
        (root / f"p{i}.html").write_text("x" * 100)
    site = DirectorySite(0, str(root))
    site.cache_max_total = 350
    for i in range(10):
        assert site.respond(f"/p{i}.html", "").body == b"x" * 100
    assert site._cached_bytes == 300 and len(site._cache) == 3
    for i in range(10):  # files that did not fit are still served from disk
        assert site.respond(f"/p{i}.html", "").body == b"x" * 100


def test_cached_pages_over_http_keep_their_headers(root):
    (root / "big.html").write_bytes(b"<p>" + b"y" * 200_000 + b"</p>")
    with WebServer(dirs=[str(root)], mode="thread") as server:
        port = server.ports[0]
        for _ in range(3):
            status, body = raw_get(port, "/big.html")
            assert status == 200 and body == (root / "big.html").read_bytes()
        _rewrite(root / "big.html", "<p>small now</p>")
        assert raw_get(port, "/big.html") == (200, b"<p>small now</p>")
        assert raw_get(port, "/missing.html")[0] == 404


def test_a_retargeted_link_serves_its_new_target(root):
    """The cache must check the file the request path names now, not the one it named when
    it was read: a link (to a file, or a directory on the way) pointed elsewhere changes the
    answer, even though the old target is untouched."""
    (root / "c").mkdir()
    (root / "d").mkdir()
    (root / "c" / "x.html").write_text("<p>old target</p>")
    (root / "d" / "x.html").write_text("<p>new target</p>")
    (root / "dir").symlink_to(root / "c")
    (root / "file.html").symlink_to(root / "c" / "x.html")
    site = DirectorySite(0, str(root))
    assert site.respond("/dir/x.html", "").body == b"<p>old target</p>"
    assert site.respond("/file.html", "").body == b"<p>old target</p>"
    for link, new in (("dir", root / "d"), ("file.html", root / "d" / "x.html")):
        (root / link).unlink()
        (root / link).symlink_to(new)
    assert site.respond("/dir/x.html", "").body == b"<p>new target</p>"
    assert site.respond("/file.html", "").body == b"<p>new target</p>"
    (root / "file.html").unlink()
    (root / "file.html").symlink_to(root.parent / "outside.html")
    assert site.respond("/file.html", "").status == 403
