"""Bad input: a clear exception type and message, and the store left exactly as it was."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import (
    InvalidInputError,
    InvalidTypeError,
    Memory,
    RememError,
    StoreError,
    TextTooLongError,
    UnknownComponentError,
)
from remem.validation import (
    DEFAULT_MAX_TEXT_CHARS,
    MAX_BATCH,
    MAX_COUNT,
    MAX_ID_CHARS,
    MAX_USER_ID_CHARS,
    check_id,
    check_k,
    check_metadata,
    check_text,
    is_blank,
    parse_timestamp,
)


@pytest.fixture
def seeded(open_memory):
    """A Memory holding two memories of user u and one of user v."""
    m = open_memory(":memory:", "hybrid")
    m.add("the first memory", user_id="u")
    m.add("the second memory", user_id="u")
    m.add("someone else", user_id="v")
    return m


def _snapshot(m: Memory) -> tuple:
    return (m.users(), {u: [h.id for h in m.memories(u)] for u in m.users()})


def _unchanged(m: Memory, before: tuple) -> None:
    assert _snapshot(m) == before
    assert m.count("u") == 2


BAD_TEXTS = [
    ("", InvalidInputError, "empty"),
    ("   \n\t ", InvalidInputError, "empty"),
    (None, InvalidTypeError, "str"),
    (123, InvalidTypeError, "str"),
    (b"bytes", InvalidTypeError, "str"),
    (["a list"], InvalidTypeError, "str"),
    ("bad \ud800 surrogate", InvalidInputError, "UTF-8"),
    ("\udc80", InvalidInputError, "UTF-8"),
    # nothing a reader could see: zero-width characters, a byte order mark, marks
    # that combine with nothing, fillers that render as blank
    ("\u200b", InvalidInputError, "empty"),
    ("\ufeff", InvalidInputError, "empty"),
    ("\u0301\u0308", InvalidInputError, "empty"),
    (" \u200b\u200c\u200d\u2060\ufeff\u00ad\n", InvalidInputError, "empty"),
    ("\ufe0f\u180e\u3164\u2800\u115f", InvalidInputError, "empty"),
]


@pytest.mark.parametrize(("text", "error", "message"), BAD_TEXTS)
def test_bad_text_in_add(seeded, text, error, message):
    before = _snapshot(seeded)
    with pytest.raises(error, match=message):
        seeded.add(text, user_id="u")
    _unchanged(seeded, before)


@pytest.mark.parametrize(("text", "error", "message"), BAD_TEXTS)
def test_bad_text_in_add_many_item_3_stores_none(seeded, text, error, message):
    before = _snapshot(seeded)
    items = [{"text": "ok zero"}, {"text": "ok one"}, "ok two", {"text": text}, {"text": "ok four"}]
    with pytest.raises(error, match=message) as info:
        seeded.add_many(items, user_id="u")
    assert "item 3" in str(info.value)
    _unchanged(seeded, before)


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("speaker", "\ud800", InvalidInputError),
        ("speaker", 42, InvalidTypeError),
        ("speaker", "   ", InvalidInputError),
        ("speaker", "x" * (MAX_ID_CHARS + 1), InvalidInputError),
        ("session_id", "\ud800", InvalidInputError),
        ("session_id", 7, InvalidTypeError),
        ("timestamp", "not a date", InvalidInputError),
        ("metadata", {"k": "\ud800"}, InvalidInputError),
        ("metadata", {"k": {1, 2}}, InvalidTypeError),
    ],
)
def test_bad_fields_in_add_and_add_many(seeded, field, value, error):
    before = _snapshot(seeded)
    with pytest.raises(error, match=field):
        seeded.add("valid text", user_id="u", **{field: value})
    with pytest.raises(error, match=field) as info:
        seeded.add_many(["a", "b", "c", {"text": "valid", field: value}], user_id="u")
    assert "item 3" in str(info.value)
    _unchanged(seeded, before)


@pytest.mark.parametrize(
    ("user_id", "error"),
    [
        ("\ud800", InvalidInputError),
        ("user\udfffname", InvalidInputError),
        ("", InvalidInputError),
        ("  ", InvalidInputError),
        ("u" * (MAX_USER_ID_CHARS + 1), InvalidInputError),
        (None, InvalidTypeError),
        (17, InvalidTypeError),
        (b"u", InvalidTypeError),
    ],
)
def test_bad_user_id_everywhere(seeded, user_id, error):
    before = _snapshot(seeded)
    mid = seeded.memories("u")[0].id
    calls = [
        lambda: seeded.add("valid", user_id=user_id),
        lambda: seeded.add_many(["valid"], user_id=user_id),
        lambda: seeded.search("valid", user_id=user_id),
        lambda: seeded.get(mid, user_id=user_id),
        lambda: seeded.delete(mid, user_id=user_id),
        lambda: seeded.delete_user(user_id),
        lambda: seeded.memories(user_id),
        lambda: seeded.count(user_id),
    ]
    for call in calls:
        with pytest.raises(error, match="user_id"):
            call()
    _unchanged(seeded, before)


@pytest.mark.parametrize(
    ("memory_id", "error"),
    [
        (None, InvalidTypeError),
        (5, InvalidTypeError),
        ("", InvalidInputError),
        ("\ud800", InvalidInputError),
    ],
)
def test_bad_memory_id(seeded, memory_id, error):
    before = _snapshot(seeded)
    with pytest.raises(error, match="memory id"):
        seeded.get(memory_id, user_id="u")
    with pytest.raises(error, match="memory id"):
        seeded.delete(memory_id, user_id="u")
    _unchanged(seeded, before)


def test_max_length_user_id_accepted(seeded):
    uid = "u" * MAX_ID_CHARS
    mid = seeded.add("long user id", user_id=uid)
    assert seeded.get(mid, user_id=uid).text == "long user id"


@pytest.mark.parametrize(
    ("k", "error"),
    [
        (0, InvalidInputError),
        (-1, InvalidInputError),
        (-100, InvalidInputError),
        (1.5, InvalidTypeError),
        (2.0, InvalidTypeError),
        ("3", InvalidTypeError),
        (None, InvalidTypeError),
        (True, InvalidTypeError),
    ],
)
def test_bad_k(seeded, k, error):
    before = _snapshot(seeded)
    with pytest.raises(error, match="k must"):
        seeded.search("memory", user_id="u", k=k)
    _unchanged(seeded, before)


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("", InvalidInputError),
        ("  ", InvalidInputError),
        (None, InvalidTypeError),
        (3, InvalidTypeError),
        ("\ud800", InvalidInputError),
    ],
)
def test_bad_query(seeded, query, error):
    before = _snapshot(seeded)
    with pytest.raises(error, match="query"):
        seeded.search(query, user_id="u", k=3)
    _unchanged(seeded, before)


def test_text_too_long_rejected_with_documented_limit(seeded):
    assert DEFAULT_MAX_TEXT_CHARS == 100_000
    before = _snapshot(seeded)
    megabyte = "memory " * 150_000  # ~1 MB
    with pytest.raises(TextTooLongError, match="100,000") as info:
        seeded.add(megabyte, user_id="u")
    assert isinstance(info.value, InvalidInputError) and isinstance(info.value, ValueError)
    assert "max_text_chars" in str(info.value)
    with pytest.raises(TextTooLongError, match="item 1"):
        seeded.add_many(["fine", megabyte], user_id="u")
    with pytest.raises(TextTooLongError):
        seeded.search(megabyte, user_id="u")
    _unchanged(seeded, before)


def test_text_at_the_limit_accepted(seeded):
    text = "z" * (DEFAULT_MAX_TEXT_CHARS - 4) + " end"
    assert len(text) == DEFAULT_MAX_TEXT_CHARS
    mid = seeded.add(text, user_id="u")
    assert seeded.get(mid, user_id="u").text == text
    with pytest.raises(TextTooLongError):
        seeded.add(text + "!", user_id="u")


def test_raised_limit_accepts_megabyte_text(open_memory, db_path):
    m = open_memory(db_path, "hybrid", max_text_chars=2_000_000)
    megabyte = "lighthouse keeper notes " * 43_000  # > 1 MB
    assert len(megabyte) > 1_000_000
    mid = m.add(megabyte, user_id="u")
    assert m.get(mid, user_id="u").text == megabyte
    assert m.search("lighthouse keeper", user_id="u", k=1)[0].id == mid
    with pytest.raises(TextTooLongError, match="2,000,000"):
        m.add("x" * 2_000_001, user_id="u")


def test_unknown_engine_rejected_before_any_file_is_created(tmp_path, embedder):
    path = tmp_path / "never.db"
    with pytest.raises(UnknownComponentError, match="nope") as info:
        Memory(path, engine="nope", embedder=embedder)
    for name in ("dense", "bm25", "hybrid"):
        assert name in str(info.value)
    with pytest.raises(UnknownComponentError):
        Memory(path, engine=None, embedder=embedder)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_unknown_embedder_name_rejected(tmp_path):
    with pytest.raises(UnknownComponentError, match="embedder"):
        Memory(tmp_path / "x.db", engine="bm25", embedder="no-such-model")
    assert list(tmp_path.iterdir()) == []


def test_bad_path_type(embedder):
    with pytest.raises(InvalidTypeError, match="path"):
        Memory(123, engine="bm25", embedder=embedder)  # type: ignore[arg-type]


def test_unreachable_postgres_url_is_a_store_error_without_the_password(embedder):
    with pytest.raises(StoreError, match="PostgreSQL") as err:
        Memory("postgresql://bob:s3cret@127.0.0.1:1/db", engine="bm25", embedder=embedder)
    assert "s3cret" not in str(err.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.add("a\x00b", user_id="u"),
        lambda m: m.add("text", user_id="u\x00"),
        lambda m: m.add("text", user_id="u", speaker="A\x00"),
        lambda m: m.add("text", user_id="u", metadata={"k": "v\x00"}),
        lambda m: m.add("text", user_id="u", metadata={"k\x00": "v"}),
        lambda m: m.add_many([{"text": "ok"}, {"text": "b\x00"}], user_id="u"),
        lambda m: m.search("q\x00", user_id="u"),
    ],
)
def test_nul_characters_are_refused_before_anything_is_stored(embedder, call):
    # PostgreSQL cannot store NUL in text: every backend refuses it the same way
    with Memory(":memory:", engine="bm25", embedder=embedder, llm="none") as m:
        with pytest.raises(InvalidInputError, match="NUL"):
            call(m)
        assert m.count("u") == 0


@pytest.mark.parametrize("engine", ["dense", "bm25", "hybrid"])
def test_unknown_engine_option_rejected(embedder, engine):
    with pytest.raises(InvalidInputError, match="bogus"):
        Memory(":memory:", engine=engine, embedder=embedder, engine_options={"bogus": 1})


@pytest.mark.parametrize(
    ("items", "error", "message"),
    [
        ("a single string", InvalidTypeError, "list"),
        ({"text": "a dict"}, InvalidTypeError, "list"),
        (b"bytes", InvalidTypeError, "list"),
        (42, InvalidTypeError, "list"),
        (["ok", 5], InvalidTypeError, "item 1"),
        (["ok", None], InvalidTypeError, "item 1"),
        (["ok", {"txt": "typo"}], InvalidInputError, "unknown keys"),
        (["ok", {"speaker": "A"}], InvalidInputError, "no 'text'"),
        (["ok", "ok", "ok", {"text": "x", "user_id": "v"}], InvalidInputError, "item 3"),
    ],
)
def test_bad_add_many_container(seeded, items, error, message):
    before = _snapshot(seeded)
    with pytest.raises(error, match=message):
        seeded.add_many(items, user_id="u")
    _unchanged(seeded, before)


def test_add_many_batch_limit(seeded):
    before = _snapshot(seeded)
    with pytest.raises(InvalidInputError, match="at most"):
        seeded.add_many(["x"] * (MAX_BATCH + 1), user_id="u")
    _unchanged(seeded, before)


def test_errors_are_catchable_as_builtins_and_base():
    assert issubclass(InvalidInputError, ValueError) and issubclass(InvalidInputError, RememError)
    assert issubclass(InvalidTypeError, TypeError) and issubclass(InvalidTypeError, RememError)
    assert issubclass(TextTooLongError, InvalidInputError)
    assert issubclass(UnknownComponentError, ValueError)


# -- the validation functions directly --------------------------------------------


def test_check_text_returns_text_unchanged():
    assert check_text("  padded  ") == "  padded  "
    with pytest.raises(TextTooLongError):
        check_text("abcd", max_chars=3)
    with pytest.raises(InvalidInputError, match="query"):
        check_text("", what="query")


@pytest.mark.parametrize(
    "text",
    [
        "e\u0301",  # a letter and its combining accent
        "\u200bhi",  # a zero-width space before a word
        "\ufeffbom first",
        "\U0001f469\u200d\U0001f4bb",  # an emoji joined by a zero-width joiner
        "\u2764\ufe0f",  # a symbol and its variation selector
        "\u200f\u05e9\u05dc\u05d5\u05dd",  # a right-to-left mark and Hebrew
        "\u0e01",  # Thai, with no spaces and no Latin
    ],
)
def test_text_with_invisible_characters_and_a_visible_one_is_kept(text):
    assert check_text(text) == text


def test_check_id_and_k():
    assert check_id("x", "user_id") == "x"
    assert check_k(1) == 1 and check_k(10**6) == 10**6
    with pytest.raises(InvalidTypeError):
        check_k(False)


def test_check_metadata_none_is_empty_dict():
    assert check_metadata(None) == {}
    assert check_metadata({"a": [1]}) == {"a": [1]}


def test_parse_timestamp_none_is_aware_now():
    ts = parse_timestamp(None)
    assert ts.tzinfo is not None


def test_metadata_nesting_is_bounded(embedder):
    from remem.validation import MAX_METADATA_DEPTH

    def nest(levels: int) -> dict:
        value: dict = {"leaf": 1}
        for _ in range(levels):
            value = {"k": value}
        return value

    with Memory(":memory:", engine="bm25", embedder=embedder, llm="none") as m:
        ok = nest(MAX_METADATA_DEPTH - 1)
        mid = m.add("fine", user_id="u", metadata=ok)
        assert m.get(mid, "u").metadata == ok
        with pytest.raises(InvalidInputError, match="nested deeper"):
            m.add("too deep", user_id="u", metadata=nest(MAX_METADATA_DEPTH + 1))
        with pytest.raises(InvalidInputError, match="nested deeper"):
            m.add("too deep", user_id="u", metadata={"a": json.loads("[" * 34 + "1" + "]" * 34)})
        assert m.count("u") == 1


def test_user_ids_may_hold_a_tenant_prefix(embedder):
    from remem.validation import MAX_USER_ID_CHARS

    with Memory(":memory:", engine="bm25", embedder=embedder, llm="none") as m:
        long_user = "t" * 64 + ":" + "u" * 256
        m.add("hello", user_id=long_user)
        assert m.count(long_user) == 1 and len(long_user) <= MAX_USER_ID_CHARS


# -- counts: k, limit and offset are bounded (a typo like 10**20 is an error, not a crash) --


@pytest.mark.parametrize(
    "huge", [MAX_COUNT + 1, 2**63, 10**20, 10**5000], ids=["bound+1", "2^63", "1e20", "1e5000"]
)
def test_huge_k_limit_and_offset_are_clear_errors(seeded, huge):
    before = _snapshot(seeded)
    with pytest.raises(InvalidInputError, match=r"offset must be at most 1,000,000,000"):
        seeded.memories("u", offset=huge)
    with pytest.raises(InvalidInputError, match=r"limit must be at most 1,000,000,000"):
        seeded.memories("u", limit=huge)
    for call in (seeded.search, seeded.recall, seeded.answer):
        with pytest.raises(InvalidInputError, match=r"k must be at most 1,000,000,000"):
            call("memory", user_id="u", k=huge)
    _unchanged(seeded, before)


def test_huge_negative_counts_are_clear_errors_too(seeded):
    with pytest.raises(InvalidInputError, match="offset must not be negative, got a number"):
        seeded.memories("u", offset=-(10**5000))
    with pytest.raises(InvalidInputError, match="k must be positive, got -3"):
        seeded.search("memory", user_id="u", k=-3)


def test_counts_at_the_bound_are_accepted(seeded):
    assert seeded.memories("u", offset=MAX_COUNT) == []
    assert len(seeded.memories("u", limit=MAX_COUNT)) == 2
    assert len(seeded.search("memory", user_id="u", k=MAX_COUNT)) == 2
    with pytest.raises(InvalidInputError, match="limit must be positive"):
        seeded.memories("u", limit=0)


# -- the constructor: every argument checked at the call, before anything is opened --------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"embedder": None}, InvalidTypeError, "embedder must be a name or an Embedder"),
        ({"embedder": 5}, InvalidTypeError, "embedder must be a name or an Embedder"),
        ({"max_text_chars": "x"}, InvalidTypeError, "max_text_chars must be an int"),
        ({"max_text_chars": 2.5}, InvalidTypeError, "max_text_chars must be an int"),
        ({"max_text_chars": True}, InvalidTypeError, "max_text_chars must be an int"),
        ({"max_text_chars": -1}, InvalidInputError, "max_text_chars must be positive"),
        ({"max_text_chars": 0}, InvalidInputError, "max_text_chars must be positive"),
        ({"max_cached_users": "many"}, InvalidTypeError, "max_cached_users must be an int"),
        ({"max_cached_users": 0}, InvalidInputError, "max_cached_users must be positive"),
        ({"llm": "nope"}, UnknownComponentError, "unknown llm 'nope'"),
        ({"llm": 5}, InvalidTypeError, "llm must be a name or an LLM"),
        ({"llm_options": ["url"]}, InvalidTypeError, "llm_options must be a mapping"),
        ({"engine_options": [("depth", 5)]}, InvalidTypeError, "engine_options must be a mapping"),
        ({"store_options": "wal"}, InvalidTypeError, "store_options must be a mapping"),
        ({"answer_options": 3}, InvalidTypeError, "answer_options must be a mapping"),
    ],
)
def test_bad_constructor_arguments_fail_at_the_call(tmp_path, embedder, kwargs, error, message):
    path = tmp_path / "never.db"
    kwargs = {"embedder": embedder, "llm": "none", **kwargs}
    with pytest.raises(error, match=message):
        Memory(path, engine="hybrid", **kwargs)
    assert list(tmp_path.iterdir()) == []  # refused before the database was created


def test_llm_names_are_checked_without_loading_a_model(tmp_path, embedder):
    with Memory(tmp_path / "m.db", engine="bm25", embedder=embedder, llm="local") as mem:
        assert not mem._llm.loaded  # named and known, loaded only on first use


def test_max_text_chars_is_the_limit_from_the_first_add(embedder):
    with Memory(":memory:", engine="bm25", embedder=embedder, llm="none", max_text_chars=5) as m:
        m.add("12345", user_id="u")
        with pytest.raises(TextTooLongError, match="limit is 5"):
            m.add("123456", user_id="u")
        assert m.count("u") == 1


@pytest.mark.parametrize("engine", ["dense", "bm25", "hybrid", "synapse", "ilstma"])
def test_a_bad_now_is_refused_by_every_read_of_every_engine(embedder, engine):
    with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
        mem.add("I keep my passport in the blue drawer", user_id="u")
        for call in (mem.search, mem.recall, mem.answer):
            with pytest.raises(InvalidInputError, match="now 'bad' is not ISO-8601"):
                call("where is my passport?", user_id="u", now="bad")
            with pytest.raises(InvalidTypeError, match="now must be"):
                call("where is my passport?", user_id="u", now=5)


# -- texts and ids that look blank (issue 34, finding 10) ----------------------------------

#: categories of code points that show nothing on their own: controls, formats, marks
#: with nothing to combine with, separators, unassigned and private use (surrogates
#: are refused as invalid UTF-8, BAD_TEXTS above)
_SHOW_NOTHING = ["Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp", "Cn", "Co"]


@pytest.mark.parametrize(
    "text",
    [
        "\U0001d159",  # MUSICAL SYMBOL NULL NOTEHEAD: drawn as nothing
        "\uffff",  # a noncharacter
        "\ufdd0",  # a noncharacter in the BMP's block of them
        "\U0010fffe",  # the last plane's noncharacter
        "\u0378",  # unassigned
        "\ue000",  # private use
        "\U000f0000",  # supplementary private use
        " \u200b\ue000\u0378 ",
    ],
    ids=ascii,
)
def test_texts_that_look_blank_are_refused_everywhere(seeded, text):
    before = _snapshot(seeded)
    with pytest.raises(InvalidInputError, match="empty"):
        seeded.add(text, user_id="u")
    with pytest.raises(InvalidInputError, match="item 1: text must not be empty"):
        seeded.add_many(["fine", text], user_id="u")
    with pytest.raises(InvalidInputError, match="query must not be empty"):
        seeded.search(text, user_id="u")
    _unchanged(seeded, before)


@given(st.text(st.characters(categories=_SHOW_NOTHING), min_size=1, max_size=8))
@settings(max_examples=200, deadline=None)
def test_any_text_of_code_points_that_show_nothing_is_blank(text):
    assert is_blank(text)
    with pytest.raises(InvalidInputError, match="empty"):
        check_text(text)


@given(
    st.text(st.characters(categories=_SHOW_NOTHING), max_size=4),
    st.characters(categories=["L", "N", "P", "S"]).filter(
        lambda c: not is_blank(c)  # the few letters and symbols that render as blank
    ),
)
@settings(max_examples=200, deadline=None)
def test_one_visible_code_point_makes_a_text_not_blank(invisible, visible):
    assert not is_blank(invisible + visible + invisible)


def test_the_blank_letters_are_the_documented_few():
    """Letters, numbers, punctuation and symbols are visible, but for the few that
    render as blank space: listed, so that a new one is a decision."""
    import sys

    blank = [
        chr(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c))[0] in "LNPS" and is_blank(chr(c))
    ]
    assert blank == ["\u115f", "\u1160", "\u2800", "\u3164", "\uffa0", "\U0001d159"]


@pytest.mark.parametrize("value", ["\u200b", " \ufeff ", "\u3164", "\ue000", "\u2800\u200d"])
def test_ids_of_invisible_characters_only_are_refused_like_empty_ones(seeded, value):
    before = _snapshot(seeded)
    with pytest.raises(InvalidInputError, match="user_id must not be empty"):
        seeded.add("a fact", user_id=value)
    with pytest.raises(InvalidInputError, match="session_id must not be empty"):
        seeded.add("a fact", user_id="u", session_id=value)
    with pytest.raises(InvalidInputError, match="speaker must not be empty"):
        seeded.add("a fact", user_id="u", speaker=value)
    with pytest.raises(InvalidInputError, match="memory id must not be empty"):
        seeded.get(value, user_id="u")
    _unchanged(seeded, before)


# -- metadata integers (issue 34, finding 9) ------------------------------------------------


@pytest.mark.parametrize(
    "metadata",
    [
        {"n": 10**5000},  # more digits than Python turns into text
        {"n": 10**640},
        {"n": -(10**640)},
        {"deep": [1, {"n": 10**4300}]},
    ],
    ids=["5000 digits", "641 digits", "-641 digits", "nested"],
)
def test_metadata_integers_of_over_640_digits_are_refused(seeded, metadata):
    before = _snapshot(seeded)
    with pytest.raises(InvalidInputError, match=r"metadata.* has more than 640 digits"):
        seeded.add("a fact", user_id="u", metadata=metadata)
    with pytest.raises(InvalidInputError, match=r"item 0: metadata.* has more than 640 digits"):
        seeded.add_many([{"text": "a fact", "metadata": metadata}], user_id="u")
    _unchanged(seeded, before)


def test_metadata_integers_of_640_digits_round_trip(seeded):
    metadata = {"big": 10**640 - 1, "small": -(10**640) + 1, "list": [0, -1, 2**64]}
    mid = seeded.add("a fact", user_id="w", metadata=metadata)
    assert seeded.get(mid, user_id="w").metadata == metadata


# -- every *_options checked at construction (issue 34, finding 9) ------------------------


_IN, _TYPE = InvalidInputError, InvalidTypeError
_OPENAI = {"llm": "openai"}


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"store_options": {"bogus": 1}}, _IN, r"store_options has no options \['bogus'\]"),
        ({"store_options": {"timeout_ms": "x"}}, _TYPE, "store_options: timeout_ms must be an int"),
        ({"llm_options": {"bogus": 1}}, _IN, r"llm_options has no options \['bogus'\]"),
        ({**_OPENAI, "llm_options": {"bogus": 1}}, _IN, "llm_options has no options"),
        ({**_OPENAI, "llm_options": {"timeout_s": "x"}}, _TYPE, "llm_options: timeout_s must be"),
        ({"answer_options": {"mode": "zzz"}}, _IN, "answer_options: mode must be one of"),
        ({"answer_options": {"order": "best"}}, _IN, "answer_options: order must be one of"),
        ({"answer_options": {"max_context_tokens": -5}}, _IN, "max_context_tokens must be an int"),
        ({"answer_options": {"max_answer_tokens": 2.5}}, _IN, "max_answer_tokens must be an int"),
        ({"answer_options": {"temperature": "x"}}, _IN, "temperature must be a number"),
        ({"answer_options": {"grounding": 1.5}}, _IN, "grounding must be a number >= 0 and <= 1"),
        ({"answer_options": {"premise": 1}}, _IN, "premise must be True or False"),
        ({"answer_options": {"bogus": 1}}, _IN, r"answer_options has no options \['bogus'\]"),
    ],
    ids=lambda v: str(v)[:40] if isinstance(v, dict) else "",
)  # fmt: skip
def test_bad_options_fail_at_the_call_naming_the_option(tmp_path, embedder, kwargs, error, message):
    path = tmp_path / "never.db"
    kwargs = {"embedder": embedder, "llm": "none", **kwargs}
    with pytest.raises(error, match=message):
        Memory(path, engine="hybrid", **kwargs)
    assert list(tmp_path.iterdir()) == []  # refused before the database was created


def test_llm_options_with_an_llm_object_are_refused(tmp_path, embedder):
    from remem.llm import create_llm

    with pytest.raises(InvalidInputError, match="llm_options apply to an llm given by name"):
        Memory(tmp_path / "x.db", embedder=embedder, llm=create_llm("none"), llm_options={"n": 1})


def test_good_options_are_still_taken(tmp_path, embedder):
    with Memory(
        tmp_path / "ok.db",
        engine="bm25",
        embedder=embedder,
        llm="openai",
        llm_options={"base_url": "http://127.0.0.1:9/v1", "timeout_s": 5, "retries": 0},
        store_options={"timeout_ms": 2000},
        answer_options={"mode": "extract", "max_context_tokens": 500, "temperature": 0},
    ) as mem:
        mem.add("the cellar door squeaks", user_id="u")
        assert mem.count("u") == 1


def test_answer_options_declare_every_setting_of_the_answerer_with_its_default():
    import inspect
    from dataclasses import fields

    from remem.answer.reader import Answerer, AnswerOptions
    from remem.options import declared

    declared(AnswerOptions)  # each one has a type and a rule
    params = inspect.signature(Answerer.__init__).parameters
    taken = {n: p.default for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert {f.name: f.default for f in fields(AnswerOptions)} == taken
