"""One user's memory is never visible to, nor changed by, another user's calls."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem import Memory
from remem.validation import is_blank

WORDS = [
    "apple",
    "river",
    "guitar",
    "lisbon",
    "coffee",
    "garden",
    "piano",
    "winter",
    "doctor",
    "kayak",
    "the",
    "and",
    "my",
]

# Any unicode except lone surrogates (those are rejected by design).
_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")  # NUL: refused
user_ids = st.text(_chars, min_size=1, max_size=12).filter(lambda s: not is_blank(s))
word_texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
# texts a reader could see (invisible-only texts are refused as empty: test_validation)
free_texts = st.text(_chars, min_size=1, max_size=25).filter(lambda s: not is_blank(s))
texts = st.one_of(word_texts, word_texts, free_texts)

spaces = st.dictionaries(user_ids, st.lists(texts, min_size=1, max_size=3), min_size=2, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(space=spaces, query=st.one_of(word_texts, free_texts), data=st.data())
def test_users_are_isolated(embedder, space, query, data):
    with Memory(":memory:", engine="bm25", embedder=embedder) as m:
        owned: dict[str, list[str]] = {}
        for user, items in space.items():
            owned[user] = m.add_many(items, user_id=user)
        assert sorted(m.users()) == sorted(space)

        for user, ids in owned.items():
            # search never returns another user's memory
            hits = m.search(query, user_id=user, k=50)
            assert {h.id for h in hits} <= set(ids)
            # every text matches exactly what this user stored
            assert [h.text for h in m.memories(user)] == space[user]
            for other, other_ids in owned.items():
                if other == user:
                    continue
                for oid in other_ids:
                    assert m.get(oid, user_id=user) is None
                    assert m.delete(oid, user_id=user) is False
        # all the failed cross-user deletes changed nothing
        for user, ids in owned.items():
            assert [h.id for h in m.memories(user)] == ids

        # a real delete by one user affects only that user
        victim = data.draw(st.sampled_from(sorted(owned)))
        gone = owned[victim][0]
        assert m.delete(gone, user_id=victim) is True
        for user, ids in owned.items():
            expected = ids[1:] if user == victim else ids
            assert [h.id for h in m.memories(user)] == expected
            assert m.count(user) == len(expected)
            assert {h.id for h in m.search(query, user_id=user, k=50)} <= set(expected)

        # erasing a user leaves every other user intact
        removed = m.delete_user(victim)
        assert removed == len(owned[victim]) - 1
        assert victim not in m.users()
        for user, ids in owned.items():
            if user != victim:
                assert [h.id for h in m.memories(user)] == ids
                assert [h.text for h in m.memories(user)] == space[user]


def test_same_text_for_two_users_is_two_memories(open_memory):
    m = open_memory(":memory:", "hybrid")
    a = m.add("my locker code is 4812", user_id="alice")
    b = m.add("my locker code is 4812", user_id="bob")
    assert a != b
    assert [h.id for h in m.search("locker code", user_id="alice", k=10)] == [a]
    assert [h.id for h in m.search("locker code", user_id="bob", k=10)] == [b]


@pytest.mark.parametrize("engine", ["dense", "bm25", "hybrid"])
def test_cross_user_get_and_delete_leave_memory_intact(open_memory, db_path, engine):
    m = open_memory(db_path, engine)
    secret = m.add(
        "alice's bank PIN hint is her cat's birthday", user_id="alice", metadata={"private": True}
    )
    m.add("bob likes trains", user_id="bob")
    assert m.get(secret, user_id="bob") is None
    assert m.delete(secret, user_id="bob") is False
    assert m.delete_user("mallory") == 0
    assert all(h.id != secret for h in m.search("bank PIN hint cat birthday", user_id="bob", k=10))
    assert m.get(secret, user_id="alice").metadata == {"private": True}
    assert m.search("bank PIN hint", user_id="alice", k=1)[0].id == secret
    assert m.count("alice") == 1 and m.count("bob") == 1


def test_user_ids_differing_only_by_case_or_spacing_are_distinct(open_memory):
    # (NUL is refused in every id, so it can no longer hide a difference)
    m = open_memory(":memory:", "bm25")
    users = ["Ana", "ana", "ana ", " ana", "ana\t", "ana\u00a0"]
    ids = {u: m.add(f"apple from {u!r}", user_id=u) for u in users}
    for u in users:
        assert [h.id for h in m.search("apple", user_id=u, k=10)] == [ids[u]]
        assert m.count(u) == 1
