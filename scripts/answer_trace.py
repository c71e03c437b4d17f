"""Trace one check-set question through the offline reader: what it wants, the
memories recalled, the best sentence (a "when" question's answer is read from it),
the typed reader's candidates with their features, and the step of
``typed_candidates`` that drops a phrase. The loop behind most mends of issue 37,
kept so it outlives a session.

    .venv/bin/python scripts/answer_trace.py SET.json USER "question" [--find PHRASE]
        [--engine synapse] [--top 6] [--candidates 8]

The conversation is filled as ``remem-bench answers`` fills it
(``remem_bench.answercheck.fill``). ``--find``: each filtering step of
``typed_candidates`` reports whether a candidate holding PHRASE is still there (it
wraps the steps for this run only).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from remem import Memory
from remem.answer import classes, now, reader, typed
from remem.answer.want import wanted
from remem.embed import create_embedder
from remem_bench.answercheck import fill, load

#: the steps of ``typed_candidates`` whose output ``--find`` reports, by module
_STEPS: dict[Any, tuple[str, ...]] = {
    typed: ("_candidates", "_own_words_first", "_kinds_first", "_objects_first"),
    classes: ("narrowed",),
    now: ("left_asked", "not_left", "not_dropped", "newest_value"),
}


def _watch(module: Any, name: str, phrase: str) -> None:
    """Wrap ``module.name`` to print how many candidates it gives and those holding
    ``phrase``."""
    step: Callable[..., Any] = getattr(module, name)

    def watched(*args: Any, **kwargs: Any) -> Any:
        out = step(*args, **kwargs)
        spans = out[0] if isinstance(out, tuple) else out
        if isinstance(spans, list):
            held = [s.text for s in spans if phrase.lower() in getattr(s, "text", "").lower()]
            print(f"  step {name}: {len(spans)} candidates; holding {phrase!r}: {held[:3]}")
        return out

    setattr(module, name, watched)


def _watch_dates() -> None:
    """Print the best sentence (a date question's answer is read from it; another
    question's reader starts from it)."""
    best = reader.best_sentence

    def watched(question: Any, evidence: Any, stale: Any = None, talk: Any = None) -> Any:
        sentence, hit = best(question, evidence, stale, talk)
        said = hit.timestamp.date() if hit is not None and hit.timestamp else ""
        print(f"  best sentence ({said}): {sentence[:160]!r}")
        return sentence, hit

    reader.best_sentence = watched


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("set")
    p.add_argument("user")
    p.add_argument("question")
    p.add_argument("--find", default="", help="report the steps that keep or drop PHRASE")
    p.add_argument("--engine", default="synapse")
    p.add_argument("--top", type=int, default=6, help="memories shown")
    p.add_argument("--candidates", type=int, default=8, help="candidates shown")
    args = p.parse_args()
    conv = next(c for c in load(args.set) if c["user_id"] == args.user)
    if args.find:
        for module, names in _STEPS.items():
            for name in names:
                _watch(module, name, args.find)
    _watch_dates()
    with Memory(
        ":memory:", engine=args.engine, embedder=create_embedder("minilm"), llm="none"
    ) as mem:
        at = fill(mem, args.user, conv["sessions"])
        answer = mem.answer(args.question, args.user, now=at)
        read, _, _ = mem._question(args.question, args.user, 10, at, what="question")
        want = wanted(read)
        print(f"want: {want}")
        print(f"answer: {answer.text!r}{' (refused)' if answer.refused else ''}")
        for i, h in enumerate(answer.evidence[: args.top]):
            when = h.timestamp.date() if h.timestamp else ""
            print(f"  memory {i} {h.speaker} {when}: {h.text[:160]}")
        around = mem._recaller.around(args.user)
        found = typed.typed_candidates(read, want, answer.evidence, around) if want.kind else None
        for s in (found or [])[: args.candidates]:
            feats = {k: round(v, 2) for k, v in s.features.items() if v}
            print(f"  {s.score:5.2f} {s.text!r} {feats}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
