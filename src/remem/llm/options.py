"""What each built-in LLM backend takes as ``llm_options``, declared
(``remem/options.py``) and checked when the Memory is made, without importing the
backend or loading a model; tests hold each class's defaults to its backend's. None,
where a field allows it, is the backend's own choice (an environment variable, the
bundled model)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..options import NoOptions, choice, number, path, switch, text

#: how the OpenAI-compatible backend asks for JSON (``OpenAILLM(schema_mode=...)``)
SCHEMA_MODES = ("auto", "json_schema", "json_object", "off")
_DAY_S = 86_400


@dataclass(frozen=True)
class LocalOptions:
    """``llm_options`` of ``llm="local"`` (SmolLM2 in process, ``llm/local.py``)."""

    model_path: str | os.PathLike[str] | None = path(None)
    """a .gguf file; None: ``REMEM_LLM_MODEL_PATH``, else the bundled SmolLM2-135M."""
    n_ctx: int = number(2048, low=1, high=1_000_000)
    """the context window in tokens: SmolLM2's trained length, which the reader's
    900-token memory budget, its instructions and the reply fit in."""
    n_threads: int | None = number(None, low=0, high=1024)
    """decode threads; None or 0: the machine's cores, at most 4 (more contend with
    everything else for a model this small)."""
    seed: int = number(0, low=0, high=2**32 - 1)
    """the sampling seed (llama.cpp's is 32 bits), mixed with the prompt so a sampled
    call repeats too; greedy calls do not use it."""
    reuse_prefix: bool = switch(False)
    """llama.cpp's prompt cache: off, because re-reading a shared prefix in another
    batch shape can change a greedy reply; on for speed where many prompts share a
    long prefix (the full-context baseline)."""


@dataclass(frozen=True)
class OpenAIOptions:
    """``llm_options`` of ``llm="openai"`` (any OpenAI-compatible endpoint,
    ``llm/openai.py``)."""

    model: str | None = text(None, empty=True)
    """the model's name; None or "": ``REMEM_LLM_MODEL``."""
    base_url: str | None = text(None, empty=True)
    """the endpoint; None or "": ``OPENAI_BASE_URL``, else OpenAI's, as OpenAI's own
    clients do."""
    api_key: str | None = text(None, empty=True)
    """the key; None: ``OPENAI_API_KEY``; "": none (local servers need none)."""
    timeout_s: float = number(60.0, low=0, high=_DAY_S)
    """seconds one request may take: a minute, a long reply of a slow local server."""
    retries: int = number(2, low=0, high=100)
    """tries after a failed request (a dropped connection, a 429 or 5xx): two ride
    out a server's brief hiccup without hiding a dead one for long."""
    backoff_s: float = number(0.5, low=0, high=_DAY_S)
    """seconds before the first retry, doubled at each: half a second, short enough
    for an interactive call."""
    context_window: int | None = number(None, low=0, high=100_000_000)
    """the model's window in tokens; None or 0: ``REMEM_LLM_CONTEXT``."""
    schema_mode: str = choice("auto", *SCHEMA_MODES)
    """how a structured reply is asked for: "auto" tries a JSON schema, then a JSON
    object, then plain text, keeping the first form the server accepts (servers
    differ in what they support)."""
    seed: int | None = number(None, low=-(2**63), high=2**63 - 1)
    """the sampling seed sent to the server (64 bits, as OpenAI's API takes); None:
    none sent."""


#: each built-in backend's options; "none" takes none
BUILTIN = {"local": LocalOptions, "openai": OpenAIOptions, "none": NoOptions}
