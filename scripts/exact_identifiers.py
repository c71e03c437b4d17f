"""How often the memory that holds a query's identifier verbatim ranks first (issue 34, 3).

    .venv/bin/python scripts/exact_identifiers.py --engines hybrid,synapse,ilstma,dense,bm25

Each family is 300 memories of one template that differ only in their identifier and
in six ordinary words ("Order A035X: a note about ..."), added one at a time, the look-alikes an
identifier lookup must see through. Every ``--every``-th identifier is looked up in
three phrasings (the identifier alone, with a word, in a question) through
``Memory.search``; the table gives, per engine and family, the share of lookups whose
memory is first and the share where it is in the top 5. Seeded: the same figures on
every run.

    .venv/bin/python scripts/exact_identifiers.py --locomo ../shared/data/locomo/locomo10.json

counts instead the LoCoMo questions (raw categories 1-4) that hold an identifier rare
in their conversation, and how often their evidence holds it: with ``min_share`` 0 (the
default: any share of the question's weight) and 0.5 (``engines/exact.py``). A
development script: it reads the stage's helpers on a bare BM25 index.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from remem import Memory
from remem.embed import create_embedder
from remem.embed.base import MemoEmbedder
from remem.engines.exact import ExactConfig, rare_identifiers
from remem.index.cache import UserIndex
from remem.question import read_question
from remem.types import index_text
from remem_bench.locomo import load_locomo, retrieval_questions

WORDS = (
    "garden", "invoice", "weekend", "river", "budget", "dentist", "kitchen", "guitar",
    "holiday", "printer", "shipment", "refund", "meeting", "coffee", "parcel", "ticket",
    "window", "laptop", "flight", "hotel", "dinner", "warranty", "camera", "bicycle",
    "library", "painting", "recipe", "weather", "concert", "jacket", "battery", "delivery",
    "schedule", "lesson", "museum", "parking", "sofa", "insurance", "subscription",
    "charger", "blender", "keyboard",
)  # fmt: skip
SYLLABLES = (
    "ka", "lo", "mi", "zu", "ra", "ve", "thi", "dor", "qua", "bex", "ny", "sol", "tem",
    "fi", "gra", "wen", "xo", "lu", "ped", "rin",
)  # fmt: skip

#: family -> (memory text for identifier and filler words, identifier, query phrasings)
Family = tuple[Callable[[str, str], str], Callable[[int, random.Random], str], list[str]]
FAMILIES: dict[str, Family] = {
    "order": (
        lambda i, w: f"Order {i}: a note about {w}",
        lambda n, r: f"A{n:03d}X",
        ["{}", "order {}", "what about order {}?"],
    ),
    "phone": (
        lambda i, w: f"Call Dana at {i} about the {w}",
        lambda n, r: f"+1 415 555 {n:04d}",
        ["{}", "number {}", "who is at {}?"],
    ),
    "code": (
        lambda i, w: f"Locker code {i} holds the {w}",
        lambda n, r: f"ZX-{r.randrange(10_000):04d}",
        ["{}", "code {}", "what is in {}?"],
    ),
    "email": (
        lambda i, w: f"Write to {i} about the {w}",
        lambda n, r: f"{r.choice(SYLLABLES)}{r.choice(SYLLABLES)}.{n}@example.com",
        ["{}", "email {}", "what did I write to {}?"],
    ),
    "name": (
        lambda i, w: f"{i} told me about the {w}",
        lambda n, r: "".join(r.choice(SYLLABLES) for _ in range(3)).capitalize(),
        ["{}", "{} said", "what did {} tell me?"],
    ),
}


def family_texts(name: str, n: int, seed: int) -> tuple[list[str], list[str]]:
    """(memory texts, their identifiers): ``n`` distinct identifiers of one family."""
    text, ident, _ = FAMILIES[name]
    r = random.Random(f"{name}/{seed}")
    ids: list[str] = []
    while len(ids) < n:
        i = ident(len(ids), r)
        if i not in ids:
            ids.append(i)
    texts = [text(i, " ".join(r.sample(WORDS, 6))) for i in ids]
    return texts, ids


def measure(engine: str, embedder: MemoEmbedder, n: int, every: int, seed: int) -> dict:
    out = {}
    for name, (_, _, phrasings) in FAMILIES.items():
        texts, ids = family_texts(name, n, seed)
        first = top5 = asked = 0
        with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
            mids = [mem.add(t, user_id="u") for t in texts]  # one at a time, as a chat grows
            for j in range(0, n, every):
                for phrasing in phrasings:
                    hits = [h.id for h in mem.search(phrasing.format(ids[j]), "u", k=5)]
                    asked += 1
                    first += bool(hits) and hits[0] == mids[j]
                    top5 += mids[j] in hits
        out[name] = (first / asked, top5 / asked, asked)
    return out


def locomo_counts(path: str) -> None:
    """Questions with a rare identifier, and whether their evidence holds it."""
    for cfg in (ExactConfig(min_share=0.0), ExactConfig(min_share=0.5)):
        asked = held = 0
        for conv in load_locomo(path):
            idx = UserIndex(dim=1)  # the BM25 part is all the stage reads
            idx.bm25.add([index_text(t.text, t.speaker) for t in conv.turns])
            idx.ids = [t.dia_id for t in conv.turns]
            at = {t.dia_id: i for i, t in enumerate(conv.turns)}
            for q in retrieval_questions(conv):
                rare = rare_identifiers(idx, read_question(q.question, None, names=cfg.names), cfg)
                if rare:
                    asked += 1
                    held += any(idx.bm25.held_terms(at[e], rare) for e in q.evidence)
        print(f"min_share {cfg.min_share}: {asked} questions, evidence holds it in {held}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="hybrid,synapse,ilstma,dense,bm25")
    ap.add_argument("--n", type=int, default=300, help="memories per family")
    ap.add_argument("--every", type=int, default=5, help="look up every n-th identifier")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--locomo", help="count LoCoMo's questions with identifiers instead")
    args = ap.parse_args()
    if args.locomo:
        locomo_counts(args.locomo)
        return
    embedder = MemoEmbedder(create_embedder("minilm"))
    print("engine   | " + " | ".join(f"{f:>13}" for f in FAMILIES) + "  (first / top 5)")
    for engine in args.engines.split(","):
        res = measure(engine, embedder, args.n, args.every, args.seed)
        cells = " | ".join(f"{a:.2f} / {b:.2f}" for a, b, _ in res.values())
        print(f"{engine:8} | {cells}")
    print(f"lookups per cell: {next(iter(res.values()))[2]}")


if __name__ == "__main__":
    main()
