"""Compare time-expression extractors on the hand-labelled sets (issue 36).

    PYTHONPATH=src python scripts/time_extractors.py [--site SITE_PACKAGES] [--markdown OUT]

Candidates: remem's ``event_times`` as it is now and, when importable, dateparser
(``search_dates`` with ``RELATIVE_BASE`` and each ``PREFER_DATES_FROM``), ctparse,
timefhuman and parsedatetime. Libraries give points in time, which are scored as the day they fall
on (a range from ctparse as its days); none of them gives weeks, months or
granularities. (The reading ``event_times`` replaced, ``timeexpr.mentioned_windows``,
scored 17% on the development set; it was removed with ``timeexpr.py`` when questions
moved onto the same rules,
docs/notes/benchmark-history.md#time-and-change-first-round-issue-36.) ``--site`` adds a scratch
environment's site-packages (the libraries are not remem's dependencies) after
remem's own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any


def _day(d: date, said: datetime) -> Any:
    from remem_bench.timeset import Guess

    start = datetime.combine(d, time(0), said.tzinfo)
    return Guess(start, start + timedelta(days=1))


def dateparser_with(prefer: str) -> Callable[[str, datetime], list[Any]]:
    from dateparser.search import search_dates

    def run(text: str, said: datetime) -> list[Any]:
        base = said.replace(tzinfo=None)
        settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer}
        found = search_dates(text, languages=["en"], settings=settings) or []
        return [_day(d.date(), said) for _, d in found]

    return run


def ctparse_run(text: str, said: datetime) -> list[Any]:
    from ctparse import ctparse
    from ctparse.types import Interval, Time

    from remem_bench.timeset import Guess

    r = ctparse(text, ts=said.replace(tzinfo=None), timeout=1.0)
    if r is None:
        return []
    res = r.resolution
    if isinstance(res, Time) and res.year and res.month and res.day:
        return [_day(date(res.year, res.month, res.day), said)]
    if isinstance(res, Interval) and res.t_from and res.t_to and res.t_from.year and res.t_to.year:
        a, b = res.t_from, res.t_to
        start = datetime.combine(date(a.year, a.month, a.day), time(0), said.tzinfo)
        end = datetime.combine(date(b.year, b.month, b.day), time(0), said.tzinfo)
        return [Guess(start, end + timedelta(days=1))]
    return []


def timefhuman_run(text: str, said: datetime) -> list[Any]:
    from timefhuman import tfhConfig, timefhuman

    out = []
    for _, _, value in timefhuman(
        text, config=tfhConfig(now=said.replace(tzinfo=None), return_matched_text=True)
    ):
        if isinstance(value, (datetime, date)):
            out.append(
                _day(
                    value
                    if isinstance(value, date) and not isinstance(value, datetime)
                    else value.date(),
                    said,
                )
            )
        elif isinstance(value, tuple) and len(value) == 2:
            from remem_bench.timeset import Guess

            a, b = (v.date() if isinstance(v, datetime) else v for v in value)
            start = datetime.combine(a, time(0), said.tzinfo)
            out.append(Guess(start, datetime.combine(b, time(0), said.tzinfo) + timedelta(days=1)))
    return out


def parsedatetime_run(text: str, said: datetime) -> list[Any]:
    import parsedatetime

    found = parsedatetime.Calendar().nlp(text, sourceTime=said.replace(tzinfo=None)) or ()
    return [_day(d.date(), said) for d, *_ in found]


def candidates() -> dict[str, Callable[[str, datetime], list[Any]]]:
    from remem_bench.timeset import remem_extractor

    out: dict[str, Callable[[str, datetime], list[Any]]] = {
        "remem event_times (issue 36)": remem_extractor,
    }
    for name, make in (
        ("dateparser current_period", lambda: dateparser_with("current_period")),
        ("dateparser future", lambda: dateparser_with("future")),
        ("dateparser past", lambda: dateparser_with("past")),
        ("ctparse", lambda: ctparse_run),
        ("timefhuman", lambda: timefhuman_run),
        ("parsedatetime", lambda: parsedatetime_run),
    ):
        try:
            fn = make()
            fn("on Saturday", datetime(2024, 5, 6))
        except ImportError as e:
            print(f"skipped {name}: {e}", file=sys.stderr)
            continue
        out[name] = fn
    return out


def speed(cases: list[Any]) -> list[str]:
    """µs per memory of remem's ``event_times`` on short (about 15 words) and long
    (about 400 words) texts, with and without time words."""
    import timeit

    from remem.time.events import event_times

    said = datetime(2024, 5, 6, 10)
    timed = " ".join(c.text for c in cases if c.expected).split()
    plain = [
        "the",
        "cat",
        "sat",
        "on",
        "a",
        "mat",
        "and",
        "we",
        "talked",
        "about",
        "books",
        "music",
        "food",
        "work",
        "family",
        "plans",
        "the",
        "garden",
        "the",
        "car",
        "and",
        "whatever",
        "else",
        "came",
        "up",
        "while",
        "the",
        "kettle",
        "boiled",
    ]
    texts = {
        "short, names a time": " ".join(timed[:15]),
        "short, names none": " ".join(plain[:15]),
        "long, names times (dense: ~50)": " ".join(timed[:400]),
        "long, typical (4 times)": " ".join(
            (plain * 5)[:95] + timed[:5] + (plain * 5)[:95] + timed[5:10] + (plain * 10)[:200]
        ),
        "long, names none": " ".join((plain * 20)[:400]),
    }
    out = ["| text | words | µs per memory |", "|---|---|---|"]
    for name, text in texts.items():
        n = 2000 if "short" in name else 200
        us = 1e6 * min(timeit.repeat(lambda t=text: event_times(t, said), number=n, repeat=3)) / n
        out.append(f"| {name} | {len(text.split())} | {us:.1f} |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", help="extra site-packages with the candidate libraries")
    ap.add_argument("--markdown", help="write the table here")
    ns = ap.parse_args()
    if ns.site:
        sys.path.append(ns.site)
    from remem_bench.timeset import DEV, HELDOUT, load, score

    sets = {"dev": load(DEV), "held-out": load(HELDOUT)}
    # the fair ground for libraries: lines naming only single days, and absolute dates
    days = [
        c for c in sets["dev"] if c.expected and all(e["granularity"] == "day" for e in c.expected)
    ]
    absolute = [c for c in sets["dev"] if c.family == "absolute"]
    lines = [
        "| extractor | dev exact | dev P | dev R | held-out exact | day-only dev lines "
        "| absolute dates | µs/line |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, fn in candidates().items():
        dev, held = score(sets["dev"], fn), score(sets["held-out"], fn)
        day, ab = score(days, fn), score(absolute, fn)
        lines.append(
            f"| {name} | {dev['exact']}/{dev['lines']} ({100 * dev['accuracy']:.1f}%) | "
            f"{dev['precision']:.2f} | {dev['recall']:.2f} | "
            f"{held['exact']}/{held['lines']} ({100 * held['accuracy']:.1f}%) | "
            f"{day['exact']}/{day['lines']} | {ab['exact']}/{ab['lines']} | "
            f"{dev['us_per_line']:.0f} |"
        )
        print(lines[-1], flush=True)
    lines += ["", *speed(sets["dev"])]
    print("\n".join(lines[-6:]))
    if ns.markdown:
        with open(ns.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
