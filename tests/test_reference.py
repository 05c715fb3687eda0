"""``--reference FILE``: coverage against a list of URLs, for the threaded and the BSP crawl
(what real sites need, whose size nobody knows), and its bad input."""

from __future__ import annotations

import json

import pytest

from crawlers.bsp import BspConfig, run_bsp
from crawlers.cli import main
from crawlers.crawl.targets import WebOptions, load_reference
from crawlers.web.webgen import generate

PAGES, SITES, SEED = 300, 10, 3
SIM = ["--sim", "--pages", str(PAGES), "--sites", str(SITES), "--seed", str(SEED),
       "--latency", "0"]


def web_pages() -> list[str]:
    w = generate(n_pages=PAGES, n_sites=SITES, seed=SEED)
    addressing = w.logical()
    return [addressing.url(p) for p in range(w.size)]


def write_list(path, urls) -> str:
    path.write_text("# the pages we want\n\n" + "\n".join(urls) + "\n")
    return str(path)


def fetched_of(out_dir) -> set[str]:
    with open(out_dir / "pages.jsonl") as f:
        return {json.loads(line)["url"] for line in f}


def listed(tmp_path) -> tuple[str, set[str]]:
    """Every other page of the web, written in a non-canonical spelling (upper-case host,
    default port, a fragment), and two URLs that are not on it."""
    pages = web_pages()[::2]
    spelled = [u.replace("http://", "HTTP://").replace(".test/", ".test:80/", 1) + "#top"
               for u in pages]
    strangers = ["http://elsewhere.example/a", "http://elsewhere.example/b"]
    return write_list(tmp_path / "ref.txt", spelled + strangers), set(pages) | set(strangers)


def test_the_threaded_crawl_measures_coverage_against_the_list(tmp_path, capsys):
    ref, urls = listed(tmp_path)
    out = tmp_path / "out"
    assert main(["crawl", *SIM, "--threads", "2", "--max-pages", "90", "--json",
                 "--out", str(out), "--reference", ref]) == 0
    report = json.loads(capsys.readouterr().out)
    fetched = fetched_of(out)
    assert len(fetched) == report["unique_pages"] == 90
    assert report["coverage_basis"] == "reference" and report["web_size"] == len(urls)
    assert report["coverage"] == pytest.approx(len(fetched & urls) / len(urls))
    assert 0 < report["coverage"] < 90 / len(urls)  # only the listed pages count


def test_the_bsp_crawl_measures_coverage_against_the_list(tmp_path):
    ref, urls = listed(tmp_path)
    web = WebOptions(kind="sim", pages=PAGES, sites=SITES, seed=SEED, latency=0.0)
    report = run_bsp(BspConfig(web=web, procs=2, robots=2, R=8, max_pages=120, timeout=60.0,
                               reference=ref))
    fetched = set(report.fetched_urls)
    assert report.coverage_basis == "reference" and report.web_size == len(urls)
    assert report.coverage == pytest.approx(len(fetched & urls) / len(urls))
    assert 0 < report.coverage < len(fetched) / len(urls)


def test_a_whole_crawl_covers_every_listed_page_of_the_web(tmp_path, capsys):
    ref = write_list(tmp_path / "ref.txt", web_pages())
    assert main(["crawl", *SIM, "--threads", "2", "--json", "--reference", ref]) == 0
    assert json.loads(capsys.readouterr().out)["coverage"] == 1.0


@pytest.mark.parametrize("content, message", [
    (None, "cannot read it"),
    ("# nothing but a comment\n\n", "holds no URL"),
    ("http://a.example/\nmailto:x@y.z\n", "line 2 is not an http(s) URL"),
])
@pytest.mark.parametrize("command", [["crawl"], ["bsp", "--R", "8"]])
def test_a_bad_list_is_one_line_and_exit_2(tmp_path, capsys, content, message, command):
    path = tmp_path / "ref.txt"
    if content is not None:
        path.write_text(content)
    try:
        code = main([*command, *SIM, "--reference", str(path)])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2 and not captured.out
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err
    assert str(path) in captured.err


def test_the_list_is_normalized_as_the_crawler_normalizes_links(tmp_path):
    ref = load_reference(write_list(tmp_path / "r.txt", [
        "HTTP://Example.COM:80/a/./b/../c#frag", "http://example.com/a/c"]))
    assert ref.urls == {"http://example.com/a/c"} and ref.size == 1
