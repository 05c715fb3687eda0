"""One crawl at a time in a journal folder (``crawlab crawl --state DIR``): the folder is locked
while a journal holds it (``DIR/crawl.lock``, an ``flock``); a second crawl is refused at once
in one line, and the folder opens again once its holder closed it or died, even by SIGKILL.

Two crawls on one journal once both ran to the end: 602 fetches for 400 pages, ``refetched``
202 over a ``refetch_bound`` of 72. The witness here is :class:`tests.countserver.CountingWeb`.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from crawlers.crawl.journal import LOCK, Journal, JournalError
from tests.countserver import CountingWeb
from tests.test_journal import crawl_cmd, finish

# a process that holds a crawl journal in argv[1], says so, and waits for its standard input
HOLD_JOURNAL = ("import sys; from crawlers.crawl.journal import Journal; "
                "j = Journal(sys.argv[1]); print('held', flush=True); sys.stdin.read()")


def child_holding(code: str, folder: Path) -> subprocess.Popen:
    """A child process running ``code`` on ``folder``, once it printed ``held`` (a bounded
    wait on its output: 60 s)."""
    proc = subprocess.Popen([sys.executable, "-c", code, str(folder)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    line = proc.stdout.readline() if ready else b""
    if line != b"held\n":
        proc.kill()
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"the holder never held {folder}: {line!r} {err.decode()[-2000:]}")
    return proc


def kill_9(proc: subprocess.Popen) -> None:
    """SIGKILL ``proc`` and reap it (a bounded wait)."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdin.close()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def test_a_held_folder_is_refused_and_opens_again_once_closed(tmp_path):
    state = tmp_path / "state"
    first = Journal(state)
    try:
        with pytest.raises(JournalError) as refused:
            Journal(state)
        said = str(refused.value)
        assert "\n" not in said and str(state) in said and "in use by another crawl" in said
        assert (state / LOCK).exists()
    finally:
        first.close()
    Journal(state).close()  # closed: the folder is free again, lock file and all
    with Journal(state):
        pass


def test_a_folder_whose_holder_was_killed_opens_again(tmp_path):
    state = tmp_path / "state"
    holder = child_holding(HOLD_JOURNAL, state)
    try:
        with pytest.raises(JournalError, match="in use by another crawl"):
            Journal(state)
    finally:
        kill_9(holder)
    with Journal(state):  # the kernel dropped the dead process's lock: nothing stale
        pass


def test_a_lock_file_that_is_not_a_regular_file_is_refused_without_waiting(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / LOCK)
    with pytest.raises(JournalError, match="not a regular file"):
        Journal(state)
    (state / LOCK).unlink()
    (state / LOCK).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(JournalError, match="not a regular file"):
        Journal(state)
    assert not (tmp_path / "elsewhere").exists()


def test_a_second_crawl_on_the_same_state_is_refused_at_once_and_fetches_nothing(tmp_path):
    """The first crawl is held mid-way by the server; the second, given the same --state, is
    one line and exit 2 with no request made; the first then ends with each page once."""
    state = tmp_path / "state"
    with CountingWeb(pages=120, sites=3) as web:
        web.hold(after=10)
        first = subprocess.Popen(crawl_cmd(web, state), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            # 10 answered, then each of its 4 robots waits on one held request: it makes no more
            assert web.wait_requests(10 + 4, timeout=60), "the first crawl never got going"
            before = web.total
            second = subprocess.run(crawl_cmd(web, state), capture_output=True, text=True,
                                    timeout=60)
            assert second.returncode == 2, second.stderr
            lines = second.stderr.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in second.stderr
            assert str(state) in lines[0] and "in use by another crawl" in lines[0]
            assert web.total == before  # refused before it fetched anything
        finally:
            web.release()
            out, err = first.communicate(timeout=90)
        assert first.returncode == 0, err
        once = web.counts
        assert set(once) == web.urls and set(once.values()) == {1}  # each page once
        again = finish(crawl_cmd(web, state))  # the first ended: the folder is free
        assert again["resumed"] == len(web.urls) and again["refetched"] == 0
        assert web.counts == once
