"""remem's benchmark harness: LoCoMo, LongMemEval and MemoryBank retrieval and answers,
load, scale, ingest and the hand-labelled time sets, with their metrics and reports.

It lives beside the package, not in it (issue 41): the installed ``remem`` carries no
benchmark code, and the harness uses remem's public API (what ``remem`` exports, and
the embedder and engine interfaces docs/answers.md and docs/plugins.md document),
with a listed few exceptions that benchmarks/tests/test_public_api.py checks.
``remem-bench --help`` lists the commands; docs/benchmarks.md gives the command
behind every table.
"""

__version__ = "0.1.0"
