"""On a free-threaded CPython (3.13t, 3.14t): nothing the project imports turns the GIL back on.

An extension module that does not declare free-threading support makes CPython re-enable the
GIL when it is imported, with a warning that is easy to miss; every later measurement then runs
under the GIL while the machine stamp of a lab may still say "free-threaded". These tests import
everything the crawler and the labs use, in a fresh interpreter whose environment does not force
the GIL off (no ``PYTHON_GIL``), and fail naming the first module that turned the GIL on.
On a build with the GIL they are skipped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

import pytest

FREE_THREADED = sysconfig.get_config_var("Py_GIL_DISABLED") == 1

pytestmark = pytest.mark.skipif(
    not FREE_THREADED, reason="needs a free-threaded CPython build (3.13t or later)"
)

# Third-party modules the crawler, the BSP mode and the labs load, some only inside functions
# (so walking the packages would not import them): each is imported explicitly.
THIRD_PARTY = [
    "cereggii",
    "numpy",
    "matplotlib",
    "matplotlib.pyplot",
    "lxml.etree",
    "lxml.html",
    "bs4",
    "requests",
    "rich",
    "rich.console",
    "kahypar",
    "mpi4py",
    "mpi4py.MPI",
    "sqlite3",
    "lxml.etree",  # last: on 3.13t it turns the GIL on (below); everything above is checked first
    "lxml.html",
]
PACKAGES = ["frontier", "crawlers", "labs"]

# Extension modules known to turn the GIL on, on one series only, and why. On any other series
# the same import fails the test.
KNOWN_GIL_ONLY = {
    (3, 13): {
        "lxml.etree": "lxml has no free-threaded wheel for 3.13t, and its source build does not "
                      "declare free-threading support (lxml publishes free-threaded wheels "
                      "for 3.14t); run the suite with PYTHON_GIL=0 on 3.13t, or use 3.14t",
    },
}

_PROBE = r"""
import importlib, json, pkgutil, sys, warnings
warnings.simplefilter("ignore")
modules, packages = json.loads(sys.argv[1]), json.loads(sys.argv[2])
first = None
imported = []

def check(name):
    global first
    imported.append(name)
    if first is None and sys._is_gil_enabled():
        first = name

for name in modules:
    importlib.import_module(name)
    check(name)
for name in packages:  # walk_packages imports a package right after yielding it
    importlib.import_module(name)
    check(name)
    pkg = sys.modules[name]
    for info in pkgutil.walk_packages(pkg.__path__, name + "."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
            check(info.name)
print(json.dumps({"gil": sys._is_gil_enabled(), "first": first, "imported": imported}))
"""


def _probe(modules: list[str], packages: list[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    env["MPLBACKEND"] = "Agg"
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(modules), json.dumps(packages)],
        capture_output=True, text=True, env=env, timeout=100,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_gil_stays_off_after_importing_everything_the_crawler_and_labs_use():
    result = _probe(THIRD_PARTY, PACKAGES)
    # the walk really reached the lab modules and the crawler's subpackages
    assert "labs.lab_frontier_bench" in result["imported"]
    assert "crawlers.crawl" in result["imported"]
    assert "frontier.lockfree" in result["imported"]
    known = KNOWN_GIL_ONLY.get(sys.version_info[:2], {})
    if result["first"] in known:
        pytest.xfail(f"{result['first']} turned the GIL on, known on this series: "
                     f"{known[result['first']]}")
    assert not result["gil"], (
        f"importing {result['first']} re-enabled the GIL: that extension has no free-threading "
        "support (install a release with a free-threaded wheel, see scripts/free-threaded-python)"
    )


def test_the_probe_sees_an_extension_that_turns_the_gil_on():
    # The test above must be able to fail: on a series with a known GIL-only extension, the
    # probe names it (and not a module imported before it).
    known = KNOWN_GIL_ONLY.get(sys.version_info[:2])
    if not known:
        pytest.skip("no extension known to turn the GIL on for this series")
    name = next(iter(known))
    result = _probe(["json", "numpy", name], [])
    assert result["gil"] and result["first"] == name


def test_this_run_is_really_without_the_gil():
    # The suite is meant to run with PYTHON_GIL=0 on a free-threaded build (scripts and CI do);
    # a run that imported a GIL-only extension without it would test nothing new.
    if os.environ.get("PYTHON_GIL") != "0":
        pytest.skip("PYTHON_GIL=0 not set: this run may have the GIL on")
    assert not sys._is_gil_enabled()
