"""The grading channel: a pytest plugin that reports each check to the judge as it happens.

The judge (:mod:`exercises.judge`, another process) starts pytest with ``-p exercises.channel``
and the write end of a pipe whose number is in ``CRAWLAB_GRADE_FD``. For every test this plugin
writes one JSON line when it starts and one with its outcome when it ends; a check that wants the
judge to verify what it saw (:func:`send_evidence`) writes that too. Nothing else writes to the
pipe: the submission's code has no name to reach a file descriptor with (the static check allows
no ``os``, ``sys``, ``open`` ...), and what it prints goes to the child's stdout, which the judge
reads apart.

Thread-safety: lines are written under a lock, each with one ``os.write`` call.
"""

from __future__ import annotations

import json
import os
import threading

import pytest

_FD = int(os.environ.get("CRAWLAB_GRADE_FD", "-1"))
_lock = threading.Lock()
_phases: dict[str, list] = {}
_current: dict[str, str] = {}  # "id": the check running now
TEXT_LIMIT = 6000  # characters of a failure's text sent to the judge


def _send(event: dict) -> None:
    if _FD < 0:
        return
    line = (json.dumps(event, default=str) + "\n").encode()
    with _lock:
        os.write(_FD, line)


def send_evidence(data: dict) -> None:
    """Hand ``data`` (what a check asked the submission and what it answered) to the judge,
    which checks it itself. Called by the judge's own checks, never by a submission."""
    _send({"event": "evidence", "id": _current.get("id"), "data": data})


def pytest_collection_finish(session: pytest.Session) -> None:
    _send({"event": "collected", "ids": [item.nodeid for item in session.items]})


def pytest_runtest_logstart(nodeid: str, location: tuple) -> None:
    _current["id"] = nodeid
    _phases[nodeid] = []
    _send({"event": "start", "id": nodeid})


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _phases.setdefault(report.nodeid, []).append(report)


def pytest_runtest_logfinish(nodeid: str, location: tuple) -> None:
    reports = _phases.pop(nodeid, [])
    outcome, message, text, seconds = "passed", "", "", 0.0
    for r in reports:
        seconds += r.duration
        if r.failed or (r.skipped and outcome == "passed"):
            outcome = "failed" if r.failed else "skipped"
            crash = getattr(r.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(r.longrepr).splitlines()[-1:]
            text = r.longreprtext
            for title, content in r.sections:
                if title == "threads still alive":
                    text += f"\n--- {title} ---\n{content}"
    if not reports:
        outcome = "failed"
    if isinstance(message, list):
        message = message[0] if message else ""
    if len(text) > TEXT_LIMIT:  # the head (what was run) and the tail (what broke)
        text = f"{text[:TEXT_LIMIT // 3]}\n[...]\n{text[-2 * TEXT_LIMIT // 3:]}"
    _send({"event": "result", "id": nodeid, "outcome": outcome, "message": str(message),
           "text": text, "seconds": round(seconds, 3)})


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _send({"event": "finished", "status": int(exitstatus)})
