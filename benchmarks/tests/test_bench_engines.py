"""Engine specs of the benchmarks: ``name@key=value+key=value``."""

from __future__ import annotations

import pytest

from remem import InvalidInputError
from remem_bench.engines import engine_spec, open_engine


def test_engine_spec_reads_options_as_json_else_text():
    assert engine_spec("hybrid") == ("hybrid", {})
    assert engine_spec("ilstma@hit_threshold=0.8+cache=false+spatial=printed") == (
        "ilstma",
        {"hit_threshold": 0.8, "cache": False, "spatial": "printed"},
    )
    with pytest.raises(InvalidInputError, match="key=value"):
        engine_spec("ilstma@hit_threshold")


def test_open_engine_applies_the_options(embedder):
    with open_engine("ilstma@hit_threshold=0.8", embedder, cache=False) as mem:
        assert mem._engine.cfg.hit_threshold == 0.8 and mem._engine.cfg.cache is False
    with pytest.raises(InvalidInputError):
        open_engine("hybrid@nope=1", embedder)
