"""``crawlab lab hostile-web`` runs each crawl as a child: a child stopped by Ctrl-C or SIGTERM
(status EXIT_INTERRUPTED, its report printed) stops the lab as an interrupt, and any other
failure is the lab's one-line error, never a traceback."""

from __future__ import annotations

import pytest

from crawlers.args import EXIT_INTERRUPTED
from crawlers.web.webgen import generate
from labs import lab_hostile_web as lab
from labs.harness import LabError


@pytest.fixture(scope="module")
def web():
    return generate(n_pages=20, n_sites=1, seed=1)


def test_an_interrupted_child_crawl_interrupts_the_lab(web, monkeypatch):
    monkeypatch.setattr(lab, "_peak_run", lambda cmd, timeout: (EXIT_INTERRUPTED, b"{}", b"", 1.0))
    with pytest.raises(KeyboardInterrupt):
        lab.crawl(web, traps=False, flags=[], timeout=60)


def test_a_failed_child_crawl_is_the_lab_s_one_line_error(web, monkeypatch):
    monkeypatch.setattr(lab, "_peak_run", lambda cmd, timeout: (1, b"", b"boom\n", 1.0))
    with pytest.raises(LabError, match=r"^crawl failed \(1\): boom$"):
        lab.crawl(web, traps=False, flags=[], timeout=60)
