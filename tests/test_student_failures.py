"""A student's frontier that raises is blamed, with its file and line, whatever the command:
never a PASS, never "bad input". (An adversarial fuzzing of the command line found a
linearize run that printed the threads' tracebacks and then "all histories linearizable",
a crawl whose robots all died that reported "errors: none", and a student's ValueError
reported as a flag's error, exit 2.)"""

from __future__ import annotations

import pytest

from crawlers.cli import main

RAISES = '''from frontier.monitor import MonitorFrontier


class Broken(MonitorFrontier):
    name = "{name}"

    def {method}(self, *args, **kwargs):
        raise {error}("{method} boom")
'''


def _spec(tmp_path, method: str, error: str) -> str:
    path = tmp_path / f"broken_{method}_{error.lower()}.py"
    path.write_text(RAISES.format(name=f"broken-{method}-{error.lower()}", method=method,
                                  error=error))
    return f"{path}:Broken"


def _blamed(err: str, method: str, error: str) -> None:
    last = err.splitlines()[-1]  # one line (a crawl's header comes before it)
    assert "your frontier failed at" in last and f"{error}: " in last, err
    assert f"{method} boom" in last, err
    assert f"broken_{method}_{error.lower()}.py:8:" in last, err  # the raise is line 8


@pytest.mark.parametrize(("method", "error"), [("put", "ValueError"), ("get", "KeyError")])
def test_linearize_fails_a_frontier_whose_operations_raise(registry, tmp_path, capsys,
                                                          method, error):
    assert main(["linearize", _spec(tmp_path, method, error), "--runs", "1"]) == 1
    captured = capsys.readouterr()
    assert "linearizable" not in captured.out
    _blamed(captured.err, method, error)


def test_a_crawl_whose_robots_die_fails_and_blames_the_frontier(registry, tmp_path, capsys):
    argv = ["crawl", "--frontier", _spec(tmp_path, "get", "KeyError"), "--sim",
            "--max-pages", "50"]
    assert main(argv) == 1
    _blamed(capsys.readouterr().err, "get", "KeyError")


def test_a_students_value_error_is_their_failure_not_a_bad_flag(registry, tmp_path, capsys):
    argv = ["crawl", "--frontier", _spec(tmp_path, "put", "ValueError"), "--sim",
            "--max-pages", "20"]  # the seeds' put raises, in the command's own thread
    assert main(argv) == 1
    _blamed(capsys.readouterr().err, "put", "ValueError")
    # a ValueError of crawlab's own checks is still a bad flag
    assert main(["crawl", "--sim", "--max-url-length", "5"]) == 2
    assert "has no effect with --sim" in capsys.readouterr().err


def test_a_class_whose_own_code_fails_while_it_is_checked_is_blamed(registry, tmp_path,
                                                                    capsys):
    """The contract check reads the class's attributes: a metaclass (or a property) that
    raises there is the student's code failing, named with its line, not a traceback."""
    path = tmp_path / "meta.py"
    path.write_text("class Meta(type):\n"
                    "    def __getattribute__(cls, name):\n"
                    "        raise RuntimeError('meta')\n\n\n"
                    "class C(metaclass=Meta):\n    pass\n")
    assert main(["linearize", f"{path}:C", "--runs", "1"]) == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert "your frontier failed at" in last and "meta.py:3: RuntimeError: meta" in last
