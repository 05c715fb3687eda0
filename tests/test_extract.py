"""Link extractors: lxml and bs4 agree; base href, relative links, fragments, schemes."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crawlers.page import extract
from crawlers.page.extract import (
    EXTRACTORS,
    MalformedPage,
    extract_bs4,
    extract_lxml,
    get_extractor,
    page_info,
)
from crawlers.page.urls import normalize
from crawlers.web import render
from crawlers.web.webgen import generate

URL = "http://site.test/docs/guide/page.html"

PAGES = {
    "relative": (b"<html><body><a href='a.html'>a</a> <a href='../b.html'>b</a>"
                 b"<a href='/c.html'>c</a><a href='./d/e.html?x=1'>d</a></body></html>",
                 ["http://site.test/docs/guide/a.html", "http://site.test/docs/b.html",
                  "http://site.test/c.html", "http://site.test/docs/guide/d/e.html?x=1"]),
    "fragments and duplicates": (
        b"<a href='a.html#one'>1</a><a href='a.html#two'>2</a><a href='#top'>top</a>"
        b"<a href='a.html'>again</a>",
        ["http://site.test/docs/guide/a.html", URL]),
    "rejected schemes": (
        b"<a href='mailto:x@y.z'>m</a><a href='javascript:void(0)'>j</a>"
        b"<a href='data:text/html,hi'>d</a><a href='file:///etc/passwd'>f</a>"
        b"<a href='tel:123'>t</a><a href='ok.html'>ok</a>",
        ["http://site.test/docs/guide/ok.html"]),
    "base href": (
        b"<html><head><base href='http://other.test/root/'></head><body>"
        b"<a href='x.html'>x</a><a href='/y.html'>y</a><a href='http://abs.test/z'>z</a>"
        b"</body></html>",
        ["http://other.test/root/x.html", "http://other.test/y.html", "http://abs.test/z"]),
    "relative base href": (
        b"<head><base href='../../v2/'></head><a href='x.html'>x</a>",
        ["http://site.test/v2/x.html"]),
    "first base wins": (
        b"<head><base target='_blank'><base href='/one/'><base href='/two/'></head>"
        b"<a href='x'>x</a>",
        ["http://site.test/one/x"]),
    "area, absolute, case, whitespace": (
        b"<map><area href='HTTP://Map.TEST:80/m'></map><A HREF='  spaced.html '>s</A>"
        b"<a>no href</a><a href=''>self</a><link href='style.css'><img src='i.png'>",
        ["http://map.test/m", "http://site.test/docs/guide/spaced.html", URL]),
    "sloppy html": (
        b"<html><body><p>unclosed <a href=a.html>a<div><a href=\"b.html\">b</p></span>"
        b"<a href='c.html'", ["http://site.test/docs/guide/a.html",
                               "http://site.test/docs/guide/b.html"]),
    "entities and utf-8": (
        "<meta charset='utf-8'><a href='q.html?a=1&amp;b=2'>é</a><a href='caf\u00e9.html'>c</a>"
        .encode(), ["http://site.test/docs/guide/q.html?a=1&b=2",
                    "http://site.test/docs/guide/caf%C3%A9.html"]),
}


@pytest.mark.parametrize("extractor", [extract_lxml, extract_bs4], ids=["lxml", "bs4"])
@pytest.mark.parametrize("case", list(PAGES))
def test_expected_links(extractor, case):
    import lxml.etree

    if case == "sloppy html" and lxml.etree.LIBXML_VERSION < (2, 14):
        # lxml built from source against an older system libxml2 (as on free-threaded 3.13t)
        pytest.skip("libxml2 before 2.14 (no HTML5 tokenizer) keeps a tag cut off by the end "
                    f"of input; this lxml uses libxml2 {lxml.etree.LIBXML_VERSION}")
    body, expected = PAGES[case]
    assert extractor(body, URL) == expected


def test_lxml_and_bs4_agree_on_generated_pages():
    web = generate(n_pages=200, n_sites=4, seed=9)
    served = web.served([9000 + s for s in range(4)])
    for page in range(0, 200, 7):
        body = render.page_html(served, page)
        links = extract_lxml(body, served.url(page))
        assert links == extract_bs4(body, served.url(page))
        assert links == served.links(page)  # exactly the graph's links, in order


@pytest.mark.parametrize("body", [b"", b"   \n", render.MALFORMED_BODY, b"\x00\x01binary"])
@pytest.mark.parametrize("extractor", [extract_lxml, extract_bs4], ids=["lxml", "bs4"])
def test_malformed(extractor, body):
    with pytest.raises(MalformedPage):
        extractor(body, URL)


def test_registry():
    assert set(EXTRACTORS) >= {"lxml", "bs4"}
    assert get_extractor("lxml") is extract_lxml
    with pytest.raises(ValueError, match="unknown parser"):
        get_extractor("regex")


def test_page_info():
    body = (b"<html><head><title> Hello </title><base href='/b/'>"
            b"<meta name='ROBOTS' content='NoIndex, nofollow'></head>"
            b"<body><script>var x=1;</script><p>Some text</p></body></html>")
    info = page_info(body)
    assert info.title == "Hello"
    assert info.base_href == "/b/"
    assert info.noindex and info.nofollow
    assert info.text_length == len("Hello Some text")
    plain = page_info(b"<p>x</p>")
    assert plain.title is None and not plain.nofollow


def test_scrapy_extractor_agrees_when_installed():
    pytest.importorskip("scrapy")
    body, expected = PAGES["base href"]
    assert EXTRACTORS["scrapy"](body, URL) == expected


@given(st.lists(st.sampled_from([
    "a.html", "../b.html", "./c/d.html", "/root.html", "?q=1", "#frag", "", " ", "  e.html ",
    "//other.test/x", "http://Abs.TEST:80/y", "mailto:x@y", "dir/", "..", ".", ";p", "?", None,
]), max_size=12), st.sampled_from([
    "http://h.test/d/page.html", "http://h.test/", "http://h.test/d/?q=1",
    "http://h.test:8000/a/b/c", "http://h.test/d/page.html#top",
]))
def test_resolving_with_the_directory_cache_equals_plain_normalization(hrefs, page):
    extract.clear_cache()
    expected: dict[str, None] = {}
    for href in hrefs:
        link = normalize(href, page) if href is not None else None
        if link is not None:
            expected.setdefault(link, None)
    assert extract.resolve_links(hrefs, page, None) == list(expected)
    # and again with a warm cache, as the next page of the directory would see it
    assert extract.resolve_links(hrefs, page, None) == list(expected)


def test_every_thread_parses_with_its_own_parser():
    """lxml releases the GIL only for a parser no other thread uses (see crawlers.page.extract)."""
    import threading

    seen = []

    def grab():
        seen.append((extract._thread_parser(), extract._thread_parser()))

    threads = [threading.Thread(target=grab) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert len(seen) == 3
    assert all(a is b for a, b in seen)  # one per thread, kept
    assert len({id(a) for a, _ in seen}) == 3  # never shared


# -- the plain-reference fast path must give exactly what normalize gives ----------------------

_SEGMENTS = st.sampled_from(["a", "B.html", "x-y_z~", ".", "..", "", ".hidden", "%41", "%2e",
                             "%7E", "c%20d", "é", "sp ace", "semi;p", "col:on", "q?x=1",
                             "index.html", ";", ";x"])
_PAGE_URLS = st.builds(
    lambda scheme, host, port, segments, tail: f"{scheme}://{host}{port}/"
    + "/".join(segments) + tail,
    st.sampled_from(["http", "HTTP", "https"]),
    st.sampled_from(["h.test", "H.Test", "127.0.0.1", "[::1]"]),
    st.sampled_from(["", ":80", ":8000", ":443"]),
    st.lists(_SEGMENTS, max_size=4),
    st.sampled_from(["", "/", "?q=1", "#top", "?", ";p"]))
_HREFS = st.one_of(
    st.none(),
    st.builds(lambda lead, segments, tail: lead + "/".join(segments) + tail,
              st.sampled_from(["", "/", "../", "../../", "../../../../../", "./", "//",
                               " ", "\t", "\x01", ";", "http://Other.TEST:80/", "mailto:",
                               "?", "#", "http:", "HTTP:/", "https:", "a:"]),
              st.lists(_SEGMENTS, max_size=4),
              st.sampled_from(["", "/", "#frag", "#", "?q=1", "?q=1#f", "#a b", " ", "\n"])),
    st.text(alphabet="abc./#?%:;@ \t\x01\u3000", max_size=12))


@given(st.lists(_HREFS, max_size=10), _PAGE_URLS, st.one_of(st.none(), _HREFS))
def test_resolving_equals_plain_normalization_for_any_reference(hrefs, page, base_href):
    """The plain-reference fast path and the directory cache change no link."""
    extract.clear_cache()
    base = normalize(base_href, page) if base_href else None
    against = base or page
    expected: dict[str, None] = {}
    for href in hrefs:
        link = normalize(href, against) if href is not None else None
        if link is not None:
            expected.setdefault(link, None)
    assert extract.resolve_links(hrefs, page, base_href) == list(expected)
    assert extract.resolve_links(hrefs, page, base_href) == list(expected)


@pytest.mark.parametrize(("base", "href", "expected"), [
    ("http://h.test/a/b/page.html", "c.html#x", "http://h.test/a/b/c.html"),
    ("http://h.test/a/b/page.html", "../c/d.html", "http://h.test/a/c/d.html"),
    ("http://h.test/a/b/page.html", "../../../../c.html", "http://h.test/c.html"),
    ("http://h.test/a/b/page.html", "/c.html", "http://h.test/c.html"),
    ("http://h.test/a/b/page.html", "#top", "http://h.test/a/b/page.html"),
    ("http://h.test/a/b/page.html", "", "http://h.test/a/b/page.html"),
])
def test_plain_resolver_resolves_plain_references(base, href, expected):
    resolver = extract._PlainResolver.for_base(base)
    assert resolver is not None
    assert resolver.resolve(href) == expected == normalize(href, base)


@pytest.mark.parametrize("base", ["http://H.test/a/", "http://h.test/a//b/p.html",
                                  "http://h.test/a/?q=1", "http://h.test/a/p.html#x",
                                  "http://h.test:80/a/"])
def test_plain_resolver_refuses_bases_it_cannot_concatenate_onto(base):
    assert extract._PlainResolver.for_base(base) is None


@pytest.mark.parametrize("href", ["./c.html", "c/./d.html", "c//d.html", "%41.html", "c d.html",
                                  " c.html", "?q=1", "c.html?q", "..", "../", "//other/x",
                                  "http://h.test/x", "..c/../d"])
def test_plain_resolver_leaves_other_references_to_normalize(href):
    resolver = extract._PlainResolver.for_base("http://h.test/a/b/page.html")
    assert resolver is not None and resolver.resolve(href) is None


def _crowded_page(n: int, kind: str = "valued") -> bytes:
    """A page whose second link's tag has ``n`` attributes: ``x0=1 ...``, boolean ones
    ``x0 x1 ...``, or valued ones with a quoted ``>`` every hundred (a ``>`` inside a value
    does not end a tag)."""
    def attribute(i: int) -> bytes:
        if kind == "boolean":
            return b"x%d" % i
        return (b"x%d='>'" % i) if kind == "quoted" and i % 100 == 0 else b"x%d=1" % i
    attributes = b" ".join(attribute(i) for i in range(n - 1))
    return (b'<html><body><a href="/before">b</a><a ' + attributes + b' href="/inside">i</a>'
            b'<a href="/after">a</a></body></html>')


@pytest.mark.parametrize("kind", ["valued", "boolean", "quoted"])
@pytest.mark.parametrize("n", [extract.MAX_ATTRIBUTES, extract.MAX_ATTRIBUTES + 1])
def test_a_page_with_a_tag_of_too_many_attributes_goes_to_the_linear_parser(n, kind):
    """libxml2's cost for one tag grows with the square of its attributes (190,000 of them in
    a 1.8 MB page held a robot for 3 minutes, out of reach of every time limit): a page that
    may hold a tag of more than MAX_ATTRIBUTES is parsed by BeautifulSoup (linear there) and
    marked ``crowded``; every link is kept either way, and a tag of that many is lxml's.
    Boolean attributes and a quoted ``>`` do not hide a crowded tag (an adversarial reading
    found both)."""
    links = extract.extract_lxml(_crowded_page(n, kind), "http://a.test/")
    assert links == ["http://a.test/before", "http://a.test/inside", "http://a.test/after"]
    assert links.crowded is (n > extract.MAX_ATTRIBUTES) and not links.truncated


def test_a_script_full_of_assignments_is_not_a_crowded_tag():
    """``i<n){v0=0;v1=1;...}`` in a script: no whitespace, so no attributes (an earlier
    count of ``=`` signs cut every link after such a script)."""
    script = b"".join(b"v%d=%d;" % (i, i) for i in range(1100))
    body = b"<html><script>if(i<n){" + script + b"}</script><a href='/after'>a</a></html>"
    links = extract.extract_lxml(body, "http://a.test/")
    assert links == ["http://a.test/after"] and not links.crowded


# -- which encoding: the header's charset wins over a <meta> (extract.html_encoding) ----------

def _declared_page(label: str, form: str, links: int = 20) -> bytes:
    """An ASCII page of ``links`` links whose ``<meta>`` declares ``label`` (``form``: the
    ``charset`` attribute or the ``http-equiv`` one)."""
    meta = (f'<meta charset="{label}">' if form == "charset" else
            f'<meta http-equiv="Content-Type" content="text/html; charset={label}">')
    anchors = "".join(f'<a href="/p{i}.html">page {i}</a>' for i in range(links))
    return (f"<!doctype html><html><head>{meta}<title>t</title></head>"
            f"<body>{anchors}</body></html>").encode()


EVERY_LINK = [f"http://site.test/p{i}.html" for i in range(20)]


@pytest.mark.parametrize("extractor", ["lxml", "bs4"])
@pytest.mark.parametrize("form", ["charset", "http-equiv"])
@pytest.mark.parametrize("label", ["utf-16", "UTF-16LE", "utf-16be", "utf-32", "utf-7"])
@pytest.mark.parametrize("header", ["utf-8", None])
def test_a_meta_declaring_a_wide_unicode_form_or_utf7_keeps_every_link(extractor, form, label,
                                                                       header):
    """Served as ``text/html; charset=utf-8`` (the header wins), or with no charset (such a
    meta means UTF-8): every link, none counted as cut. Both parsers lost them all."""
    links = get_extractor(extractor)(_declared_page(label, form), URL, header)
    assert links == EVERY_LINK
    assert not links.truncated


@pytest.mark.parametrize("extractor", ["lxml", "bs4"])
@pytest.mark.parametrize("label", ["bogus", "utf-32", "x-user-defined"])
def test_an_encoding_name_the_parser_does_not_take_is_not_counted_as_a_cut(extractor, label):
    """No link lost, so no ``parse_truncated``: libxml2's 'unsupported encoding' stops nothing."""
    links = get_extractor(extractor)(_declared_page(label, "charset"), URL)
    assert links == EVERY_LINK
    assert not links.truncated


@pytest.mark.parametrize("extractor", ["lxml", "bs4"])
def test_the_header_charset_wins_over_the_meta(extractor):
    """A UTF-8 href on a page whose meta says windows-1252, served as UTF-8: read as UTF-8
    (the meta alone read it as 'Ã©')."""
    body = ('<html><head><meta charset="windows-1252"></head><body>'
            '<a href="/caf\u00e9.html">x</a></body></html>').encode()
    extract_ = get_extractor(extractor)
    assert extract_(body, URL, "utf-8") == ["http://site.test/caf%C3%A9.html"]
    assert extract_(body, URL, '"UTF-8"') == ["http://site.test/caf%C3%A9.html"]
    assert extract_(body, URL) == ["http://site.test/caf%C3%83%C2%A9.html"]  # the meta's
    assert extract_(body, URL, "bogus") == ["http://site.test/caf%C3%83%C2%A9.html"]
    assert extract_(body, URL, "utf-16") == ["http://site.test/caf%C3%83%C2%A9.html"]


def test_html_encoding_follows_the_standard():
    meta16 = _declared_page("utf-16", "charset")
    assert extract.html_encoding(meta16, "UTF-8") == "utf-8"
    assert extract.html_encoding(meta16) == "utf-8"
    assert extract.html_encoding(_declared_page("x-user-defined", "charset")) == "windows-1252"
    assert extract.html_encoding(_declared_page("bogus", "charset")) is None
    assert extract.html_encoding(b"\xef\xbb\xbf" + meta16, "latin1") is None  # the BOM first
    assert extract.html_encoding(meta16, "shift_jis") == "shift_jis"


@pytest.mark.parametrize("parser", ["lxml", "bs4"])
@pytest.mark.parametrize("label", ["utf-16", "utf-32", "utf-7", "bogus"])
def test_a_served_page_with_such_a_meta_keeps_its_links_and_counts_nothing(parser, label):
    """Through the HTTP fetcher, from a server on 127.0.0.1 that sends
    ``Content-Type: text/html; charset=utf-8``: the header's charset reaches the extractor."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from crawlers.page.fetch import HttpFetcher

    body = _declared_page(label, "charset")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as httpd:
        served = threading.Thread(target=httpd.serve_forever, daemon=True)
        served.start()
        try:
            site = f"http://127.0.0.1:{httpd.server_address[1]}"
            with HttpFetcher(timeout=(5.0, 5.0), parser=parser) as fetcher:
                result = fetcher.fetch(site + "/index.html")
                counted = fetcher.counters.as_dict()
        finally:
            httpd.shutdown()
            served.join(timeout=30)
    assert result.ok, result
    assert result.links == [f"{site}/p{i}.html" for i in range(20)]
    assert counted["parse_truncated"] == 0 and counted["parse_failed"] == 0, counted
