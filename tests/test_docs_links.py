"""Every Markdown link to a local path in README.md and docs/**/*.md points at a file
that exists, and a link's ``#anchor`` into a Markdown file names one of its headings
(as GitHub writes them). Issue 41 moved most of the README and the benchmark history
into docs/; a page moved again must not leave a link behind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"^(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`]*`")
# [text](target) and ![alt](target); the target ends at whitespace (a title may follow)
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _prose_lines(text: str, keep_code: bool = False) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with their numbers; inline code removed
    unless ``keep_code`` (a heading's anchor keeps the code's words)."""
    out, fenced = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, line if keep_code else _INLINE_CODE.sub("", line)))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in _prose_lines(path.read_text(encoding="utf-8"), keep_code=True):
        m = _HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.add(base if k == 0 else f"{base}-{k}")
    return out


def broken_links(page: Path) -> list[str]:
    """Each local link of ``page`` that points nowhere, as 'line: target (why)'."""
    bad = []
    for n, line in _prose_lines(page.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            dest = page if not path_part else (page.parent / path_part).resolve()
            if not dest.exists():
                bad.append(f"{n}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                bad.append(f"{n}: {target} (no heading '#{anchor}' in {dest.name})")
    return bad


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_local_link_resolves(page):
    assert broken_links(page) == []


def test_the_check_finds_a_broken_link(tmp_path):
    (tmp_path / "there.md").write_text("# Here it is\n\n## A `code` heading (1)\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#here-it-is) [ok](there.md#a-code-heading-1)\n"
        "[web](https://example.com/x.md) `[code](missing.md)`\n"
        "```\n[fenced](missing.md)\n```\n"
        "[gone](missing.md) ![img](img/none.png) [bad anchor](there.md#nowhere) [self](#top)\n"
    )
    assert broken_links(page) == [
        "6: missing.md (no such file)",
        "6: img/none.png (no such file)",
        "6: there.md#nowhere (no heading '#nowhere' in there.md)",
        "6: #top (no heading '#top' in page.md)",
    ]


def test_readme_and_benchmarks_stay_short():
    """Issue 41: the README is a front page and the benchmark page a results page."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150
    assert len((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()) <= 400


_CITED = re.compile(r"\b(docs/[\w/.-]+\.md)#([\w-]+)")


def broken_citations(source: Path) -> list[str]:
    """Each ``docs/<page>.md#<anchor>`` a source file cites (a default's reason in a
    docstring or comment, linking to its table) whose page or heading is missing, as
    'line: page#anchor'."""
    bad = []
    for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        for page, anchor in _CITED.findall(line):
            dest = ROOT / page
            if not dest.exists() or anchor not in anchors(dest):
                bad.append(f"{n}: {page}#{anchor}")
    return bad


#: where citations live: the package's source and its word lists (a list's header
#: says why it holds what it holds), the harness and the scripts (Python and shell)
CITING = [
    ("src/remem", "*.py"),
    ("src/remem", "*.txt"),
    ("benchmarks", "*.py"),
    ("scripts", "*.py"),
    ("scripts", "*.sh"),
]


def test_every_table_the_source_cites_resolves():
    sources = sorted(p for folder, glob in CITING for p in (ROOT / folder).rglob(glob))
    bad = [f"{s.relative_to(ROOT)}:{b}" for s in sources for b in broken_citations(s)]
    assert bad == []


def test_the_citation_check_finds_a_missing_heading(tmp_path):
    fake = tmp_path / "m.py"
    fake.write_text('"""docs/benchmarks.md#no-such-table, docs/benchmarks.md#answers"""')
    assert broken_citations(fake) == ["1: docs/benchmarks.md#no-such-table"]
