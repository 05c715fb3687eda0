"""Scope's per-origin memo gives exactly the answer of parsing every URL."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from crawlers.page.urls import Scope, site_of

SEEDS = ["http://a.test/", "http://127.0.0.1:8001/p0.html", "https://[::1]:8443/x"]

_URLS = st.builds(
    lambda scheme, auth, tail: scheme + auth + tail,
    st.sampled_from(["http://", "https://", "HTTP://", "ftp://", "http:/", "", " http://",
                     "\thttp://", "http:\\\\"]),
    st.sampled_from(["a.test", "A.Test", "a.test:80", "a.test:8001", "127.0.0.1:8001",
                     "127.0.0.1:80", "u:p@a.test", "a.test:99999", "a.test:x", "[::1]:8443",
                     "[::1", "a.te\tst", "a.test\n", "", "b.test", "a.test.", "é.test"]),
    st.sampled_from(["", "/", "/p.html", "?q=1", "#f", "/a b", "\t/x", ":80/y"]))


def _parsed(scope: Scope, url: str) -> bool:
    try:
        return site_of(url) in scope.sites
    except ValueError:
        return False


@given(st.lists(_URLS, min_size=1, max_size=20))
@example(["https://a.te\tst", "https://a.te\tst:80/y"])  # a tab inside the authority
def test_membership_with_the_memo_equals_parsing_each_url(urls):
    scope = Scope(SEEDS)
    for url in urls + urls:  # the second pass answers from the memo
        assert (url in scope) == _parsed(scope, url), url


def test_the_memo_is_bounded_and_answers_stay_right():
    scope = Scope(SEEDS)
    scope.memo_size = 3
    urls = [f"http://h{i}.test/p.html" for i in range(10)] + ["http://a.test/q.html"]
    assert [u in scope for u in urls] == [False] * 10 + [True]
    assert len(scope._inside) + len(scope._outside) == 3
    assert "http://a.test:80/again" in scope and "http://a.test:81/" not in scope


def test_a_known_prefix_is_answered_from_the_frozen_memo_without_replacing_it():
    # readers take no lock: they only test membership in the frozensets they find, which are
    # replaced (never changed) when a prefix is learnt
    scope = Scope(SEEDS)
    assert "http://a.test/x.html" in scope and "http://b.test/y.html" not in scope
    inside, outside = scope._inside, scope._outside
    assert isinstance(inside, frozenset) and isinstance(outside, frozenset)
    assert "http://a.test/z.html" in scope and "http://b.test/w.html" not in scope
    assert scope._inside is inside and scope._outside is outside


def test_anywhere_accepts_everything_without_parsing():
    scope = Scope([], anywhere=True)
    assert "http://z.test/" in scope and "not a url" in scope
