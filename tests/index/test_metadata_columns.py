"""Metadata filters by coded columns (index/cache.py ``metadata_column``) give the
same mask as testing every memory's metadata one by one (``filters.metadata_passes``),
for every kind of JSON value, as memories are added."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.filters import check_filters, metadata_passes, value_key
from remem.index.cache import UserIndex
from remem.index.restrict import _metadata  # the mask's metadata part alone

VALUES = [1, 1.0, 2, True, False, 0, "1", "a", None, [1], {"x": 1}, float("nan"), 2.5]


def test_value_keys_follow_json_equality():
    assert value_key(1) == value_key(1.0) != value_key(True)
    assert value_key(0) != value_key(False) and value_key("1") != value_key(1)
    assert value_key([1]) is None and value_key({"a": 1}) is None
    assert value_key(float("nan")) is None and value_key(None) == ("null", None)


def _index(metadata: list[dict]) -> UserIndex:
    idx = UserIndex(4)
    idx.metadata.extend(metadata)
    return idx


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_coded_masks_equal_the_one_by_one_rule(seed: int) -> None:
    rng = random.Random(seed)
    keys = ["a", "b", "c"]
    metadata = [{k: rng.choice(VALUES) for k in keys if rng.random() < 0.7} for _ in range(60)]
    plain = [v for v in VALUES if value_key(v) is not None]
    wanted = {k: rng.sample(plain, rng.randint(1, 3)) for k in rng.sample(keys, 2)}
    checked = check_filters({"metadata": wanted})
    assert checked is not None
    idx = _index(metadata[:40])
    n = 40
    got = _metadata(idx, checked, n, np.ones(n, dtype=bool))
    assert got.tolist() == [metadata_passes(m, checked) for m in metadata[:40]]
    idx.metadata.extend(metadata[40:])  # memories added after the columns were coded
    got = _metadata(idx, checked, 60, np.ones(60, dtype=bool))
    assert got.tolist() == [metadata_passes(m, checked) for m in metadata]
