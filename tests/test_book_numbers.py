"""The book's numbers come from the committed CSVs through one generation step (issue 16, 6).

``docs/regenerate_figures.py --render-only`` renders ``docs/results/numbers.inc`` (the numbers
the prose quotes, :mod:`book_numbers`) and ``docs/results/papers-table.inc`` from the CSVs;
these tests render them again and compare, and check that the pages quote numbers only
through the generated substitutions.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = DOCS / "results"


@pytest.fixture(scope="module")
def book_numbers():
    sys.path.insert(0, str(DOCS))
    try:
        import book_numbers
        import regenerate_figures
    finally:
        sys.path.remove(str(DOCS))
    book_numbers.regenerate = regenerate_figures
    return book_numbers


def test_committed_generated_text_is_what_the_committed_csvs_give(book_numbers):
    for path, text in book_numbers.regenerate.render(RESULTS).items():
        assert path.read_text() == text, (
            f"{path.name} is stale: run python docs/regenerate_figures.py --render-only")


def test_the_free_threaded_row_names_are_the_labs(book_numbers):
    """The book finds frontier-bench's rows by name (it mirrors the lab's constants rather than
    import the lab at start-up): a row renamed in the lab must not leave the book reading
    none."""
    from labs import lab_frontier_bench as fb
    from labs import lockfree_handles as lh

    mirrors = {"FT_CEILING": fb.PRIVATE, "FT_LINKED": fb.RETAINING,
               "FT_SHARED_READ": fb.SHARED_READ, "FT_SHARED_CAS": fb.SHARED_CAS,
               "FT_SHARED_OBJECT": fb.SHARED_OBJECT, "FT_SLICED_SHARED": fb.SLICED_SHARED,
               "FT_HANDLED": lh.HANDLED, "FT_NO_TAIL": lh.NO_TAIL}
    for name, row in mirrors.items():
        assert getattr(book_numbers, name) == row, name
    assert book_numbers.FB_BASELINES == fb.BASELINES
    never_judged = (*fb.BASELINES, *fb.LOCKFREE_DIAGNOSTICS, *fb.SLICED_DIAGNOSTICS)
    assert sorted(book_numbers.FT_BASELINES) == sorted(never_judged)


def test_a_number_in_the_prose_follows_its_csv(book_numbers, tmp_path):
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "pq-comparisons" / "pq-comparisons.csv"
    rows = list(csv.DictReader(path.open(newline="")))
    for value, shown in (("0.123", "0.12"), ("2.456", "2.46")):
        next(r for r in rows if r["R"] == "1000")["QH/BH"] = value
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        text = book_numbers.render(copy)
        assert f".. |pqc_qh_bh_1000| replace:: {shown}\n" in text
        assert text != (RESULTS / "numbers.inc").read_text()


def book_pages() -> list[str]:
    return sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.rst") if "_build" not in p.parts)


def test_every_page_quotes_only_generated_numbers(book_numbers):
    """A decimal, ratio or percentage typed by hand on any page of the book fails, unless the
    page's entry in book_numbers.PAGES says why it is no measurement (a setting, a version, a
    paper's number): measured numbers come from the CSVs, as substitutions or generated
    tables."""
    names = {n.name for n in book_numbers.NUMBERS}
    assert len(book_pages()) > 30 and set(book_numbers.PAGES) <= set(book_pages())
    for page in book_pages():
        allowed = book_numbers.PAGES.get(page, {})
        text = (DOCS / page).read_text()
        used = set(re.findall(r"\|([a-z0-9_]+)\|", text))
        assert used <= names, (page, used - names)
        if used:
            assert re.search(r"^\.\. include:: (\.\./)*results/numbers\.inc$", text, re.M), page
        typed = [t for t in book_numbers.typed_numbers(text) if t not in allowed]
        assert typed == [], f"{page} types measured-looking numbers by hand: {typed}"


BOGUS = ("\nThe ``lockfree`` frontier scales linearly: 123456 pairs per second at one thread,\n"
         "12,345 at two, twice as fast as ``coarse``; the counts were 3/249/254/461\n"
         "interleavings, and past 64 robots every frontier plunges (they all lose).\n")


# The student kit has no instructor pages: the pages tried are those of this copy of the book.
@pytest.mark.parametrize("page", [p for p in ["scheduler.rst", "free-threaded.rst",
                                               "handouts/frontier-bench.rst",
                                               "instructor/answers.rst"] if (DOCS / p).is_file()])
def test_a_bogus_sentence_on_a_page_fails_the_check(book_numbers, page):
    """Mutation: a sentence of hand-typed whole numbers and shape words added to a page that
    passes is caught, each number and word of it, whatever the page's allowances."""
    allowed = book_numbers.PAGES.get(page, {})
    text = (DOCS / page).read_text()
    assert [t for t in book_numbers.typed_numbers(text) if t not in allowed] == []
    typed = [t for t in book_numbers.typed_numbers(text + BOGUS) if t not in allowed]
    assert typed == ["scales linearly", "123456", "12,345", "twice as fast", "3/249/254/461",
                     "plunges", "all lose"], typed


def test_settings_code_and_references_are_not_counts(book_numbers):
    text = ("Run ``crawlab crawl --pages 5000 --threads 16`` at R = 1,000 and K = 64 with\n"
            "16 threads and 32 robots, 10^6 URLs, 10\\ :sup:`6` keys, in 2026, Figure 10 of\n"
            "the paper, issue 27, :pep:`779`, |fb_rise|, cpython#134761, 2**63::\n\n"
            "   $ crawlab explore lockfree --bound 12345\n\n"
            ".. code-block:: text\n\n   536 interleavings\n\n"
            ".. image:: x.png\n   :alt: a line that plunges at 64\n         and 128 threads\n\n"
            "but 15 pages are 15.\n")
    assert book_numbers.typed_numbers(text) == ["15", "15"]


def test_a_hand_typed_number_is_found(book_numbers):
    text = ("QH/BH is |pqc_qh_bh_10| at R = 10 and 0.87 at R = 1,000, ``3.4 R`` in code;\n"
            "the CBT ran at 0.74x, and 43 % fewer.\n.. image:: results/x-1.5.png\n"
            "SimpleQueue ran 25 to 200 times as fast, waits reached ~10 per run,\n"
            "and 3 times; |fb_simple| the rate.\n")
    assert book_numbers.typed_numbers(text) == ["0.87", "0.74x", "43 %", "25 to 200 times",
                                                "~10", "3 times"]


def test_every_number_names_an_existing_csv_column(book_numbers):
    values = book_numbers.values(RESULTS)
    assert set(values) == {n.name for n in book_numbers.NUMBERS}
    assert all(v.strip() for v in values.values())


def test_render_only_takes_no_lab_and_bad_input_is_one_line(tmp_path):
    script = DOCS / "regenerate_figures.py"
    for argv in (["--render-only", "pq-time"], ["no-such-lab"]):
        run = subprocess.run([sys.executable, str(script), *argv], capture_output=True,
                             text=True, timeout=60, cwd=ROOT)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr


def test_book_numbers_script_reports_a_missing_csv_in_one_line(tmp_path):
    run = subprocess.run([sys.executable, str(DOCS / "book_numbers.py"), "--results",
                          str(tmp_path), "--out", str(tmp_path / "n.inc")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "missing" in run.stderr and "Traceback" not in run.stderr


@pytest.fixture(scope="module")
def book_tables():
    sys.path.insert(0, str(DOCS))
    try:
        import book_tables
    finally:
        sys.path.remove(str(DOCS))
    return book_tables


@pytest.mark.parametrize("cell, ratio, percent, shown", [
    ("0.8002358665314719", True, False, "0.8×"), ("1.3412", True, False, "1.34×"),
    ("15416.8", False, False, "15,417"), ("15429", False, False, "15,429"),
    ("8", False, False, "8"), ("0.0056", False, True, "0.56"), ("0.9117", False, True, "91.2"),
    ("2.3e-07", False, False, "2.3e-07"), ("monitor", False, False, "monitor"),
    ("False", False, False, "False"), ("nan", True, False, "n/a"),
])
def test_a_cell_is_rounded_to_three_significant_digits(book_tables, cell, ratio, percent, shown):
    assert book_tables.number(cell, ratio, percent) == shown


def test_no_page_shows_a_results_csv_raw():
    raw = re.compile(r"csv-table::[^\n]*(?:\n[ \t]+[^\n]*)*?\n[ \t]+:file:[^\n]*results/")
    assert [p for p in book_pages() if raw.search((DOCS / p).read_text())] == []


def test_generated_tables_are_rounded_narrow_and_say_where_they_came_from(book_tables):
    def too_precise(cell: str) -> bool:  # more than 3 significant digits, not a 1,234 integer
        return any(len(m.replace(".", "").lstrip("0")) > 3
                   for m in re.findall(r"(?<![\w.,])\d+\.?\d*(?![\d,])", cell))

    for path, text in book_tables.render(RESULTS).items():
        rows = text.split("\n   * - ")[1:]
        widths = {row.count("\n     - ") + 1 for row in rows}
        assert max(widths) <= book_tables.MAX_COLUMNS + 1, path
        cells = [c for row in rows for c in row.split("\n     - ")]
        assert [c for c in cells if too_precise(c.split("\n")[0])] == [], path
        assert re.search(r"^From ``[^`]+\.csv``: (measured on|model)", text, re.M), path
        included = any(f"results/{path.relative_to(RESULTS)}" in (DOCS / p).read_text()
                       for p in book_pages())
        assert included, f"{path} is rendered but no page includes it"


def test_every_generated_ratio_is_written_with_the_multiplication_sign(book_numbers):
    regenerate = book_numbers.regenerate
    assert regenerate.times_sign("1.29x (0.45-0.46x), 16x; 2 x cores, 0x10") == \
        "1.29× (0.45-0.46×), 16×; 2 x cores, 0x10"
    for path, text in regenerate.render(RESULTS).items():
        assert not regenerate.RATIO.search(text), path


def _rewrite(path: Path, change) -> None:
    rows = list(csv.DictReader(path.open(newline="")))
    for row in rows:
        change(row)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_a_shape_sentence_follows_its_csv(book_numbers, tmp_path):
    """The free-threaded page's 'which frontiers gain' and the threads handout's zero-latency
    shape are computed: make every frontier lose (or gain) in a copy of the CSV and the
    sentence says so."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    _rewrite(copy / "free-threaded" / "frontier-bench" / "scaling.csv",
             lambda r: r.update(median="0.9"))
    _rewrite(copy / "crawl-threads" / "frontier-bound.csv",
             lambda r: r.update(vs_one_robot="1.5" if r["threads"] != "1" else "1.0"))
    values = book_numbers.values(copy)
    assert values["ft_gainers"].startswith("no frontier gains from the second thread")
    assert values["ct_bound_shape"].count("none below") == 2
    assert book_numbers.values(RESULTS)["ft_gainers"] != values["ft_gainers"]


def test_the_frontier_bench_answers_follow_their_csv(book_numbers, tmp_path):
    """The instructor's answers said 'no line rises', 'unsynchronized is wrong (races_detected)'
    and 'two locks are just more acquisitions' over a CSV where unsynchronized caught no race
    and fine beat coarse: those sentences are now computed. A copy of the CSV in which a line
    rises and unsynchronized races says so."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    before = book_numbers.values(copy)
    assert before["fb_unsync_races"].startswith("caught no race") or \
        before["fb_unsync_races"].startswith("caught races")

    def change(row):
        if row["frontier"] == "unsynchronized":
            row["races_detected"] = "7"
            if row["threads"] == "4":
                row["pairs_per_second"] = str(10 * float(row["pairs_per_second"]))
    _rewrite(copy / "frontier-bench" / "frontier-bench.csv", change)
    after = book_numbers.values(copy)
    assert after["fb_rise"].startswith("some lines rise") and "``unsynchronized``" in \
        after["fb_rise"]
    assert after["fb_unsync_races"].startswith("caught races in this run: ``races_detected``")
    _rewrite(copy / "frontier-bench" / "frontier-bench.csv",
             lambda r: r.update(races_detected="0", pairs_per_second="1000",
                                duplicates_handed_out="0" if r["duplicates_handed_out"] else "",
                                urls_overwritten="0" if r["urls_overwritten"] else ""))
    flat = book_numbers.values(copy)
    assert flat["fb_rise"].startswith("no line rises")
    assert flat["fb_unsync_races"].startswith("caught no race")


def test_a_comparison_of_two_csvs_follows_both(book_numbers, tmp_path):
    """'Without the GIL the crawls vary less' compares the free-threaded rounds with the GIL
    build's (Number.beside): spread the free-threaded rounds wider and it says so."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "free-threaded" / "crawl-timelines" / "timeline-overhead.csv"
    _rewrite(path, lambda r: r.update(pages_per_second=str(
        float(r["pages_per_second"]) * (100 if r["round"] == "0" else 1))))
    assert book_numbers.values(copy)["tl_vary"].startswith("Without the GIL the crawls vary as "
                                                           "much")
    assert book_numbers.values(RESULTS)["tl_vary"] != book_numbers.values(copy)["tl_vary"]


def test_the_ceiling_target_says_cannot_judge_when_other_work_voids_it(book_numbers, tmp_path):
    """crawl-parsers: 'the target is met' beside 'no verdict' contradicted itself. A round in
    which other processes took more than 10% of the machine, or one not measured, gives
    'cannot judge'; a quiet run is judged on its share; rows from before the lab read other
    work fall back to the load rule."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "crawl-parsers" / "crawl-ceiling.csv"
    _rewrite(path, lambda r: r.update(others_cpu_share="0.02", of_ceiling="0.9"))
    assert book_numbers.values(copy)["cc_gil_target"] == "met in this run"
    _rewrite(path, lambda r: r.update(of_ceiling="0.5"))
    quiet = book_numbers.values(copy)
    assert quiet["cc_gil_target"] == "missed in this run"
    assert quiet["cc_shared"].startswith("other processes took 0.02 of the machine")
    _rewrite(path, lambda r: r.update(others_cpu_share="0.3" if r["round"] == "2" else "0.0"))
    busy = book_numbers.values(copy)
    assert busy["cc_gil_target"].startswith("cannot judge (other work took 30% of the machine")
    assert busy["cc_shared"].endswith("so these wall-clock ratios are no verdict")
    _rewrite(path, lambda r: r.update(others_cpu_share=""))
    assert "not measured" in book_numbers.values(copy)["cc_gil_target"]
    _rewrite(path, lambda r: r.pop("others_cpu_share"))
    _rewrite(path, lambda r: r.update(load_avg="2.5"))
    assert book_numbers.values(copy)["cc_gil_target"].startswith("cannot judge (machine too busy")


def test_the_ceiling_sentence_explains_a_starved_round(book_numbers, tmp_path):
    """free-threaded: a round whose 1-thread ceiling cell had less than one CPU is named, with
    its CPUs, from frontier-bench.csv; with no starved 1-thread cell the explanation names none."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "free-threaded" / "frontier-bench" / "frontier-bench.csv"
    _rewrite(path, lambda r: r.update(cpu_seconds=r["seconds"] if r["threads"] == "1" else
                                      r["cpu_seconds"]))
    text = book_numbers.values(copy)["ft_judged"]
    rounds = len({r["repeat"] for r in csv.DictReader(path.open(newline=""))})
    assert f"median of {rounds} rounds" in text and "overstates" not in text

    def starve_round_3(r):  # the ceiling's 1-thread cell of round 3 had half a CPU
        if r["frontier"] == "deque per thread" and r["threads"] == "1" and r["repeat"] == "3":
            r.update(cpu_seconds=str(float(r["seconds"]) / 2))
    _rewrite(path, starve_round_3)
    text = book_numbers.values(copy)["ft_judged"]
    assert "overstates" in text and "round 3: " in text and "its one thread having had 0.50" \
        in text


def test_the_scrapy_target_follows_whether_the_csv_has_a_scrapy_row(book_numbers, tmp_path):
    assert book_numbers.values(RESULTS)["bsp_scrapy"].startswith("this run has no Scrapy row")
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "bsp-speedup" / "summary.csv"
    rows = list(csv.DictReader(path.open(newline="")))
    rows.append({**rows[0], "crawler": "scrapy", "P": "1", "pages_per_s_median": "1"})
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert book_numbers.values(copy)["bsp_scrapy"].startswith("Scrapy ran at 1 pages/s")


def test_the_gil_table_verdict_is_the_labs_verdict_of_today(book_numbers):
    inc = (RESULTS / "gil-side-by-side" / "gil-side-by-side.inc").read_text()
    assert "cannot judge" in inc and "goal of 1.4" not in inc


def test_the_days_runs_count_the_verdicts_of_every_run(book_numbers, tmp_path):
    """ft_runs reads the main run and every repeat: a verdict changed in one repeat changes
    the count, and a run too busy to judge is left out of the runs judged."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    runs = [copy / "free-threaded" / "frontier-bench" / "scaling.csv",
            *sorted((copy / "free-threaded" / "repeats").glob("run-*/frontier-bench/scaling.csv"))]
    n = len(book_numbers.FT_REPEATS) + 1
    assert len(runs) == n

    def lockfree(verdict):
        return lambda r: r.update(verdict=verdict) if r["frontier"] == "lockfree" else None
    for path in runs:
        _rewrite(path, lockfree("is below the goal of 0.74 of the ceiling"))
    assert f"goal met in 0 of the {n} runs" in book_numbers.values(copy)["ft_runs"]
    _rewrite(runs[3], lockfree("meets the goal of 0.74 of the ceiling"))
    _rewrite(runs[4], lockfree("too busy to judge (ceiling 1.20x < 1.6x)"))
    _rewrite(runs[5], lockfree("cannot judge: 4 rounds, fewer than 5"))
    _rewrite(runs[6], lockfree("no ceiling measured: cannot judge"))
    text = book_numbers.values(copy)["ft_runs"]
    assert f"over the {n} runs of" in text and f"goal met in 1 of the {n - 3} runs" in text


def test_the_days_runs_say_how_many_rounds_each_had(book_numbers, tmp_path):
    """ft_runs counts the runs by their rounds (the ceiling row's), and the comparison of two
    runs says the rounds of each."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    runs = [copy / "free-threaded" / "frontier-bench" / "scaling.csv",
            *sorted((copy / "free-threaded" / "repeats").glob("run-*/frontier-bench/scaling.csv"))]
    for i, path in enumerate(runs):
        _rewrite(path, lambda r, i=i: r.update(rounds="7" if i < 3 else "5"))
    values = book_numbers.values(copy)
    assert f"{len(runs) - 3} of 5 rounds, 3 of 7 rounds; 1-minute load" in values["ft_runs"]
    assert "(5 and 7 rounds, 1-minute loads" in values["ft_apart"]  # run-15, then the main run


def test_sliced_since_its_handles_is_counted_from_the_runs_that_measured_them(book_numbers,
                                                                              tmp_path):
    """A run measured sliced through handles if it has the shared-calls row beside it: ft_runs
    counts those runs apart, and ft_apart does not compare sliced across the change."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    before = copy / book_numbers.FT_BEFORE / "scaling.csv"
    values = book_numbers.values(copy)
    handled = re.search(r"in the (\d+) of those runs since ``sliced`` has had per-thread handles",
                        values["ft_runs"])
    assert handled and int(handled[1]) >= 2
    assert re.search(r"``sliced``'s \d\.\d\d then \d\.\d\d \(\d+% apart: (within|beyond) 15%\)",
                     values["ft_apart"])
    rows = [r for r in csv.DictReader(before.open(newline=""))
            if r["frontier"] != book_numbers.FT_SLICED_SHARED]
    with before.open("w", newline="") as f:  # the run before, as if measured without handles
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    values = book_numbers.values(copy)
    assert (f"in the {int(handled[1]) - 1} of those runs since ``sliced`` has had per-thread "
            "handles") in values["ft_runs"]
    assert "not a comparison: it was given per-thread handles" in values["ft_apart"]


@pytest.mark.parametrize("two, said", [
    (1.0, "about as much with one thread as with two, so what the shared calls cost was work"),
    (2.0, "they gained more with two threads than with one: the shared calls had cost "
          "contention"),
    (0.5, "they gained less with two threads than with one"),
])
def test_what_the_handles_gained_is_read_round_by_round(book_numbers, tmp_path, two, said):
    """ft_shared_object divides sliced's pairs per second by the shared calls' in each round,
    at one thread and at two, and says which gained more from the medians."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    fb = copy / "free-threaded" / "frontier-bench" / "frontier-bench.csv"

    def rate(row):  # the handles: 1.5 times the shared calls at 1 thread, 1.5 * two at 2
        if row["frontier"] == book_numbers.FT_SLICED_SHARED:
            row["pairs_per_second"] = "100.0"
        elif row["frontier"] == "sliced":
            row["pairs_per_second"] = str(150.0 * (two if row["threads"] == "2" else 1.0))
    _rewrite(fb, rate)
    text = book_numbers.values(copy)["ft_shared_object"]
    assert "1.50× (1.50) the pairs per second of the shared calls at one thread" in text
    assert said in text


def _set_run(path: Path, date: str, lockfree_share: str) -> None:
    """A run's scaling.csv rewritten: every row dated ``date``, ``lockfree``'s share set."""
    def change(row):
        row["date"] = date
        if row["frontier"] == "lockfree":
            row["of_ceiling"] = lockfree_share
    _rewrite(path, change)


def test_two_runs_apart_are_compared_from_their_own_rows(book_numbers, tmp_path):
    """ft_apart computes the hours between the two main runs from their dates, and says
    within or beyond 15% from the two shares themselves."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    now = copy / "free-threaded" / "frontier-bench" / "scaling.csv"
    before = copy / book_numbers.FT_BEFORE / "scaling.csv"
    _set_run(before, "2026-11-26T00:00:00Z", "0.60")
    _set_run(now, "2026-11-27T06:00:00Z", "0.66")
    text = book_numbers.values(copy)["ft_apart"]
    assert "made 30.0 hours after" in text
    assert "``lockfree``'s share 0.60 then 0.66 (10% apart: within 15%)" in text
    assert "goal of 0.74 lies between" not in text
    _set_run(now, "2026-11-27T06:00:00Z", "0.70")
    assert "0.60 then 0.70 (17% apart: beyond 15%)" in book_numbers.values(copy)["ft_apart"]


def test_the_run_after_the_main_run_is_compared_with_it(book_numbers, tmp_path):
    """ft_again reads the main run first and the run after it second, and says when a goal
    lies between the two readings (no verdict yet), from the shares themselves."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    main = copy / "free-threaded" / "frontier-bench" / "scaling.csv"
    later = copy / book_numbers.FT_AGAIN / "scaling.csv"
    _set_run(main, "2026-11-27T10:00:00Z", "0.70")
    _set_run(later, "2026-11-28T10:30:00Z", "0.78")
    text = book_numbers.values(copy)["ft_again"]
    assert (f"({book_numbers._run_name(book_numbers.FT_AGAIN)}, the same command), made 24.5 "
            "hours later") in text
    assert "``lockfree``'s share 0.70 then 0.78 (11% apart: within 15%)" in text
    assert "``lockfree``'s goal of 0.74 lies between its two readings" in text
    _set_run(later, "2026-11-28T10:30:00Z", "0.72")
    assert "``lockfree``'s goal" not in book_numbers.values(copy)["ft_again"]
    _set_run(later, "2026-11-28T10:30:00Z", "0.74")  # one meets the goal exactly, one not
    assert "``lockfree``'s goal of 0.74 lies" in book_numbers.values(copy)["ft_again"]
    _set_run(main, "2026-11-27T10:00:00Z", "0.74")  # both meet it
    _set_run(later, "2026-11-28T10:30:00Z", "0.78")
    assert "``lockfree``'s goal" not in book_numbers.values(copy)["ft_again"]


def test_the_bsp_reason_follows_the_cores_and_the_bound(book_numbers, tmp_path):
    """The handout's measured reason is computed from cpu.csv: P = 1's cores against one,
    and whether the 2-core bound rules 1.6x out."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "bsp-speedup" / "cpu.csv"

    def set_p1(cores, rate):
        def change(row):
            if row["P"] == "1":
                row.update(cores_busy=str(cores), pages_per_s=str(rate))
        _rewrite(path, change)

    set_p1(1.4, 200.0)  # more than a core, and a P=1 fast enough that 1.6x is out of reach
    got = book_numbers.values(copy)
    assert got["bsp_cores1"].startswith("1.40 cores: more than one")
    assert got["bsp_reason"].startswith("That is the reason, measured: P = 1 is already more")
    set_p1(0.95, 200.0)  # one core, still out of reach: the other process's CPU is why
    got = book_numbers.values(copy)
    assert got["bsp_cores1"] == "0.95 cores: no more than one"
    assert "more than two cores can give" in got["bsp_reason"]
    set_p1(0.95, 50.0)  # a slow P=1: 1.6x is within the bound
    got = book_numbers.values(copy)
    assert float(got["bsp_bound"]) >= 1.6 and got["bsp_bound_verdict"] == "within"
    assert got["bsp_reason"].startswith("So the target is not ruled out by CPU seconds")


def test_the_profile_sentence_adds_up_the_counting_functions_from_growth_csv(book_numbers,
                                                                               tmp_path):
    """ft_profile sums the growth of the functions growth.csv marks as reference counting, and
    says it is most of the cost only while it is."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    path = copy / "free-threaded" / "ft-profile" / "growth.csv"

    def only(counting_growth, cas_growth):
        def change(row):
            if row["frontier"] != "lockfree":
                return
            if row["function"] == "(all)":
                row.update(growth_ns="1000")
            elif row["function"] == "AtomicRef_CompareAndSet":
                row.update(growth_ns=str(cas_growth))
            elif row["function"] == "_PyEval_EvalFrameDefault":
                row.update(growth_ns="0")
            elif row["counting"] == "True":
                row.update(growth_ns="0")
            if row["function"] == "_Py_DecRefShared":
                row.update(growth_ns=str(counting_growth))
        _rewrite(path, change)
    only(600, 100)
    text = book_numbers.values(copy)["ft_profile"]
    assert "grew by 600 ns between them (60% of the growth)" in text
    assert "mostly reference counting, not the compare-and-set" in text
    only(100, 600)
    text = book_numbers.values(copy)["ft_profile"]
    assert "reference counting is not most of the second thread's cost" in text


@pytest.mark.parametrize("handle, no_tail, said", [
    ("0.65", "0.65", "Neither variant's median lies outside ``lockfree``'s range"),
    ("0.90", "0.65", "the handle's median lies above ``lockfree``'s range"),
    ("0.90", "0.30", "the handle's median lies above ``lockfree``'s range; the tail-less get's "
                     "median lies below ``lockfree``'s range"),
])
def test_lockfree_handle_rows_are_read_over_the_runs_that_measured_them(
        book_numbers, tmp_path, handle, no_tail, said):
    """ft_lf_handles reads the handle rows of every run that has them: each row's median and
    range over the runs, the goal reached in the runs the lab could judge, and whether a row's
    median lies outside lockfree's range; the handle's 1-thread rate from frontier-bench.csv."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    main = copy / "free-threaded" / "frontier-bench"
    runs = [path for path in [main / "scaling.csv", *(copy / "free-threaded" / "repeats").glob(
        "run-*/frontier-bench/scaling.csv")]
        if book_numbers.FT_HANDLED in path.read_text()]
    assert len(runs) >= 2

    def share(row):
        row["of_ceiling"] = {"lockfree": "0.65", book_numbers.FT_HANDLED: handle,
                             book_numbers.FT_NO_TAIL: no_tail}.get(row["frontier"],
                                                                   row["of_ceiling"])
        row["verdict"] = "" if row["frontier"] != "lockfree" else "is below the goal"

    def rate(row):
        if row["threads"] == "1" and row["frontier"] in ("lockfree", book_numbers.FT_HANDLED):
            row["pairs_per_second"] = "300.0" if row["frontier"] == "lockfree" else "450.0"
    for path in runs:
        _rewrite(path, share)
    _rewrite(main / "frontier-bench.csv", rate)
    text = book_numbers.values(copy)["ft_lf_handles"]
    assert said in text and "ran 1.50× its pairs per second at one thread" in text
    assert f"Over the {len(runs)} runs that measured these rows" in text
    assert f"through a handle {handle} ({handle})" in text
    reached = [len(runs) * (float(x) >= 0.74) for x in ("0.65", handle, no_tail)]
    assert (f"of the {len(runs)} the lab could judge, the goal of 0.74 was reached in "
            f"{reached[0]}, {reached[1]} and {reached[2]} respectively") in text


def test_the_day_apart_check_is_made_on_one_machine(book_numbers, tmp_path):
    """ft_day compares the main run with the main run it replaced when a day or more apart
    (naming both machines when they differ), and on one machine with the latest run of the
    same command (rounds, threads, interpreter) on the same CPU and cores a day or more before
    it: "not made yet" while there is none (hours, machines and commands read from the runs'
    own rows), then whether the two agree within 15%, naming what moved beyond it."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    now = copy / "free-threaded" / "frontier-bench" / "scaling.csv"
    before = copy / book_numbers.FT_BEFORE / "scaling.csv"
    other = copy / book_numbers.FT_AGAIN / "scaling.csv"  # any kept run will do
    repeats = [copy / where / "scaling.csv" for where, _ in book_numbers.FT_REPEATS]

    def on(cpu, rounds="15", gil="False"):
        def change(row):
            row["machine_cpu"], row["machine_cores"], row["rounds"] = cpu, "2", rounds
            row["machine_gil"] = gil
            if row["frontier"] == book_numbers.FT_CEILING:
                row["median"] = "1.80"
            if row["frontier"] == "sliced":
                row["of_ceiling"] = "1.00"
        return change
    for path in repeats:
        _rewrite(path, on("Old CPU"))
    _rewrite(now, on("New CPU"))
    _rewrite(other, on("New CPU"))
    _set_run(now, "2026-11-28T01:00:00Z", "0.76")
    _set_run(before, "2026-11-27T00:00:00Z", "0.40")
    _set_run(other, "2026-11-27T02:00:00Z", "0.70")  # 23 hours before: not a day
    text = book_numbers.values(copy)["ft_day"]
    replaced = book_numbers._run_name(book_numbers.FT_BEFORE)
    assert text.startswith(f"made: the run above and the main run it replaced ({replaced}) are "
                           "25.0 hours apart, on Old CPU (2 cores), then New CPU (2 cores); "
                           "they do not agree within 15%: ``lockfree``'s share moved 90%. "
                           "Not made yet on one machine: no run of the same command (15 rounds) "
                           "on New CPU (2 cores) was made a day"), text
    for rounds, gil in (("5", "False"), ("15", "True")):  # a day before, another command
        _rewrite(other, on("New CPU", rounds=rounds, gil=gil))
        _set_run(other, "2026-11-27T00:30:00Z", "0.70")
        assert "Not made yet on one machine" in book_numbers.values(copy)["ft_day"]
    _rewrite(other, on("New CPU"))
    older = repeats[0]  # on the same machine too, but earlier: the latest is compared
    _rewrite(older, on("New CPU"))
    _set_run(older, "2026-11-20T00:00:00Z", "0.10")
    text = book_numbers.values(copy)["ft_day"]
    name = book_numbers._run_name(book_numbers.FT_AGAIN)
    assert (f". On one machine (New CPU (2 cores)), the run above and {name} (15 rounds each) "
            "are 24.5 hours apart; they agree within 15%") in text, text
    _set_run(now, "2026-11-28T01:00:00Z", "0.90")  # 0.70 -> 0.90: 29%
    text = book_numbers.values(copy)["ft_day"]
    assert "apart; they do not agree within 15%: ``lockfree``'s share moved 29%" in text
    _set_run(before, "2026-11-27T12:00:00Z", "0.40")  # the replaced run less than a day before
    _set_run(other, "2026-11-27T23:00:00Z", "0.70")
    _set_run(older, "2026-11-27T23:00:00Z", "0.10")
    text = book_numbers.values(copy)["ft_day"]
    assert text.startswith("not made yet on one machine: ") and "made:" not in text, text
    assert "(the main run it replaced is 13.0 hours before it, less than a day)" in text


def test_the_runs_with_more_rounds_are_read_from_their_rows(book_numbers, tmp_path):
    """ft_more_rounds names the kept runs (and the main run) with more rounds than the
    fewest, from their own rows."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    repeats = [copy / where / "scaling.csv" for where, _ in book_numbers.FT_REPEATS]
    for i, path in enumerate(repeats):
        _rewrite(path, lambda r, i=i: r.update(rounds="9" if i in (2, 4) else "5"))
    _rewrite(copy / "free-threaded" / "frontier-bench" / "scaling.csv",
             lambda r: r.update(rounds="5"))
    assert (book_numbers.values(copy)["ft_more_rounds"]
            == "``run-2`` and ``run-4`` (9 rounds; the others 5)")


def test_the_machines_of_two_main_runs_are_compared_from_their_rows(book_numbers, tmp_path):
    """ft_machines names both runs' CPUs (the main run's and FT_ACROSS's) and what share each
    row kept, or says the two runs were made on one machine."""
    copy = tmp_path / "results"
    shutil.copytree(RESULTS, copy)
    now = copy / "free-threaded" / "frontier-bench" / "scaling.csv"
    before = copy / book_numbers.FT_ACROSS / "scaling.csv"
    _rewrite(now, lambda r: r.update(machine_cpu="New CPU"))
    _rewrite(before, lambda r: r.update(machine_cpu="Old CPU"))
    _set_run(before, "2026-11-27T00:00:00Z", "0.80")
    _set_run(now, "2026-11-28T01:00:00Z", "0.40")
    text = book_numbers.values(copy)["ft_machines"]
    assert text.startswith("on Old CPU (2 cores) (") and "and New CPU (2 cores) (the run" in text
    assert "``lockfree`` 0.80 and 0.40 (it kept 0.50 of its share)" in text
    _rewrite(now, lambda r: r.update(machine_cpu="Old CPU"))
    assert book_numbers.values(copy)["ft_machines"].startswith(
        "both were made on machines that say the same CPU (Old CPU (2 cores))")
