"""API keys (``remem.keys``) and ``remem keys create|list|revoke``, over real SQLite files."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import sqlite3
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import Memory
from remem.cli import main
from remem.errors import InvalidInputError, InvalidTypeError
from remem.keys import KeyInfo, KeyRing, check_tenant, scoped_user, unscoped_user

KEY_RE = re.compile(r"rmm_([0-9a-f]{12})_([A-Za-z0-9_-]{20,128})")
TENANT_RE = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"


@pytest.fixture
def kmem(open_memory, db_path: Path) -> Memory:
    return open_memory(db_path, "hybrid")


@pytest.fixture
def ring(kmem: Memory) -> KeyRing:
    return KeyRing.of(kmem)


def _split(key: str) -> tuple[str, str]:
    m = KEY_RE.fullmatch(key)
    assert m is not None, key
    return m.group(1), m.group(2)


# -- create: the format, and only a digest on disk ----------------------------------------


def test_create_returns_a_well_formed_key_and_its_info(ring: KeyRing):
    key, info = ring.create("acme", label="ci runner")
    key_id, secret = _split(key)
    assert len(secret) >= 40  # 32 random bytes, url-safe base64
    assert isinstance(info, KeyInfo)
    assert info.key_id == key_id and info.tenant == "acme" and info.label == "ci runner"
    assert info.revoked is None and info.active
    assert abs(info.created - time.time()) < 60
    # every key is new: ids and secrets never repeat
    keys = [ring.create("acme")[0] for _ in range(20)]
    assert len({_split(k)[0] for k in keys}) == 20
    assert len({_split(k)[1] for k in keys}) == 20


def test_only_a_sha256_digest_of_the_secret_is_stored(kmem: Memory, db_path: Path, raw_bytes):
    key, info = KeyRing.of(kmem).create("acme", label="prod")
    key_id, secret = _split(key)
    con = sqlite3.connect(db_path)
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(api_keys)")]
        rows = con.execute("SELECT * FROM api_keys").fetchall()
    finally:
        con.close()
    assert len(rows) == 1
    row = dict(zip(cols, rows[0], strict=True))
    assert row["key_id"] == key_id and row["tenant"] == "acme" and row["label"] == "prod"
    assert row["digest"] == hashlib.sha256(secret.encode("ascii")).hexdigest()
    for value in row.values():
        assert secret not in str(value)
        assert key not in str(value)
    kmem.close()  # flush everything to the file before reading its bytes
    blob = raw_bytes(db_path)
    assert key_id.encode() in blob  # sanity: the file does hold the key's row
    assert secret.encode() not in blob
    assert key.encode() not in blob


# -- verify ---------------------------------------------------------------------------------


def test_verify_a_valid_key_gives_its_tenant(ring: KeyRing):
    a, _ = ring.create("acme")
    g, _ = ring.create("globex")
    assert ring.verify(a) == "acme"
    assert ring.verify(g) == "globex"
    assert ring.verify(f"  {a}\n") == "acme"  # surrounding whitespace of a header value


def test_verify_refuses_anything_but_a_live_key(ring: KeyRing):
    key, info = ring.create("acme")
    key_id, secret = _split(key)
    other_secret = ("A" if secret[0] != "A" else "B") + secret[1:]
    unknown_id = ("0" if key_id[0] != "0" else "1") + key_id[1:]
    # an id of digits only (1 in ~280) has no case: put an uppercase hex letter in it
    upper_id = key_id.upper() if key_id.upper() != key_id else "A" + key_id[1:]
    bad = [
        f"rmm_{key_id}_{other_secret}",  # wrong secret
        f"rmm_{unknown_id}_{secret}",  # unknown id, right secret
        f"rmm_{key_id}_{secret}x",  # longer secret
        f"rmm_{key_id}_{secret[:-1]}",  # shorter secret
        f"rmm_{upper_id}_{secret}",  # the id is lowercase hex
        f"RMM_{key_id}_{secret}",
        f"rmm_{key_id}{secret}",
        f"rmm_{key_id}_",
        f"rmm__{secret}",
        secret,
        key_id,
        f"Bearer {key}",
        key + " " + key,
        "",
        "rmm_",
        "rmm_" + "0" * 12 + "_" + "a" * 129,  # secret longer than any format allows
        "rmm_" + "0" * 12 + "_" + "a" * 43 + "\x00",
        "rmm_" + "0" * 12 + "_" + "é" * 43,
    ]
    for b in bad:
        assert ring.verify(b) is None, b
    for not_a_str in (None, 5, 1.5, b"rmm_x", key.encode(), [key], {"key": key}):
        assert ring.verify(not_a_str) is None
    assert ring.verify(key) == "acme"  # the key itself still works after all that


def test_a_revoked_key_stops_verifying(ring: KeyRing):
    key, info = ring.create("acme")
    keep, _ = ring.create("acme")
    assert ring.verify(key) == "acme"
    assert ring.revoke(info.key_id) is True
    assert ring.verify(key) is None
    assert ring.verify(keep) == "acme"  # only that key
    (listed,) = [i for i in ring.list("acme") if i.key_id == info.key_id]
    assert listed.revoked is not None and not listed.active
    assert listed.revoked >= listed.created


def test_revoke_by_full_key_and_twice(ring: KeyRing):
    key, info = ring.create("acme")
    assert ring.revoke(key) is True  # the whole key names its id
    assert ring.verify(key) is None
    assert ring.revoke(key) is False
    assert ring.revoke(info.key_id) is False  # already revoked
    key2, info2 = ring.create("acme")
    assert ring.revoke(f"  {info2.key_id} ") is True
    assert ring.verify(key2) is None


def test_revoke_unknown_or_bad_ids(ring: KeyRing):
    key, info = ring.create("acme")
    for unknown in ("", "nope", "0" * 12, "'; DROP TABLE api_keys; --", "%", "_"):
        assert ring.revoke(unknown) is False
    for not_a_str in (None, 12, b"abc"):
        with pytest.raises(InvalidTypeError):
            ring.revoke(not_a_str)  # type: ignore[arg-type]
    assert ring.verify(key) == "acme"  # no bad revoke touched a real key
    assert [i.key_id for i in ring.list()] == [info.key_id]


def test_verify_and_revoke_across_rings_and_memories(open_memory, db_path: Path):
    """Keys live in the database: another Memory over the file (another worker) sees
    a key created here and a revocation made there at its next verify."""
    m1 = open_memory(db_path, "hybrid")
    m2 = open_memory(db_path, "bm25")
    key, info = KeyRing.of(m1).create("acme")
    assert KeyRing.of(m2).verify(key) == "acme"
    assert KeyRing.of(m2).revoke(info.key_id) is True
    assert KeyRing.of(m1).verify(key) is None


# -- list -----------------------------------------------------------------------------------


def test_list_per_tenant_and_never_secrets(ring: KeyRing):
    k1, i1 = ring.create("acme", label="one")
    k2, i2 = ring.create("globex")
    k3, i3 = ring.create("acme", label="three")
    ring.revoke(i3.key_id)
    assert [i.key_id for i in ring.list("acme")] == [i1.key_id, i3.key_id]
    assert [i.key_id for i in ring.list("globex")] == [i2.key_id]
    assert ring.list("initech") == []
    assert {i.key_id for i in ring.list()} == {i1.key_id, i2.key_id, i3.key_id}
    fields = {f.name for f in dataclasses.fields(KeyInfo)}
    assert fields == {"key_id", "tenant", "label", "created", "revoked"}
    for info in ring.list():
        d = info.to_dict()
        assert set(d) == fields | {"active"}
        assert d["active"] == (info.key_id != i3.key_id)
        text = repr(info) + json.dumps(d)
        for key in (k1, k2, k3):
            assert _split(key)[1] not in text
        assert "digest" not in text
    with pytest.raises(InvalidInputError):
        ring.list("bad:tenant")


# -- tenants and labels ---------------------------------------------------------------------


@pytest.mark.parametrize("tenant", ["a", "acme", "Acme-EU_2.prod", "0", "x" * 64])
def test_tenant_names_accepted(ring: KeyRing, tenant: str):
    key, info = ring.create(tenant)
    assert info.tenant == tenant and ring.verify(key) == tenant
    assert check_tenant(tenant) == tenant


@pytest.mark.parametrize(
    "tenant",
    [
        "",
        " ",
        "a:b",
        ":",
        "acme:",
        ":acme",
        "x" * 65,
        "-acme",
        ".acme",
        "_acme",
        "ac me",
        "acme\n",
        "acme/..",
        "acmé",
        "acme\x00",
        "'; DROP TABLE api_keys; --",
    ],
)
def test_tenant_names_refused(ring: KeyRing, tenant: str):
    with pytest.raises(InvalidInputError):
        ring.create(tenant)
    with pytest.raises(InvalidInputError):
        check_tenant(tenant)
    assert ring.list() == []


@pytest.mark.parametrize("tenant", [None, 5, b"acme", ["acme"]])
def test_tenant_must_be_a_str(ring: KeyRing, tenant):
    with pytest.raises(InvalidTypeError):
        ring.create(tenant)


def test_label_limits(ring: KeyRing):
    _, info = ring.create("acme", label="l" * 200)
    assert info.label == "l" * 200
    with pytest.raises(InvalidInputError):
        ring.create("acme", label="l" * 201)
    with pytest.raises((InvalidInputError, InvalidTypeError)):
        ring.create("acme", label=5)  # type: ignore[arg-type]
    assert len(ring.list()) == 1


# -- the per-process cache ------------------------------------------------------------------


def test_cache_keeps_a_verdict_until_it_expires(kmem: Memory):
    cached = KeyRing.of(kmem, cache_s=0.5)
    key, info = KeyRing.of(kmem).create("acme")
    assert cached.verify(key) == "acme"
    # revoked through another ring (another process): this ring may answer from its cache
    assert KeyRing.of(kmem).revoke(info.key_id) is True
    assert KeyRing.of(kmem).verify(key) is None  # an uncached ring sees it at once
    assert cached.verify(key) == "acme"
    time.sleep(0.6)
    assert cached.verify(key) is None  # ... but never longer than cache_s


def test_revoke_clears_this_rings_cache(kmem: Memory):
    cached = KeyRing.of(kmem, cache_s=60)
    key, info = cached.create("acme")
    other, _ = cached.create("acme")
    assert cached.verify(key) == "acme" and cached.verify(other) == "acme"
    assert cached.revoke(info.key_id) is True
    assert cached.verify(key) is None
    assert cached.verify(other) == "acme"


def test_cache_does_not_turn_a_wrong_key_right(kmem: Memory):
    cached = KeyRing.of(kmem, cache_s=60)
    key, _ = cached.create("acme")
    key_id, secret = _split(key)
    wrong = f"rmm_{key_id}_{'A' if secret[0] != 'A' else 'B'}{secret[1:]}"
    assert cached.verify(wrong) is None
    assert cached.verify(key) == "acme"
    assert cached.verify(wrong) is None


# -- user scoping ---------------------------------------------------------------------------


def test_scoped_and_unscoped_users():
    assert scoped_user("acme", "bob") == "acme:bob"
    assert scoped_user("acme", "globex:bob") == "acme:globex:bob"
    assert unscoped_user("acme", "acme:bob") == "bob"
    assert unscoped_user("acme", "acme:globex:bob") == "globex:bob"
    assert unscoped_user("acme", "acme:") == ""
    assert unscoped_user("acme", "globex:bob") is None
    assert unscoped_user("acme", "acme.eu:bob") is None
    assert unscoped_user("acme", "acmebob") is None
    assert unscoped_user("acme", "bob") is None
    assert unscoped_user("acme", "acme") is None
    assert unscoped_user("ac", "acme:bob") is None


@settings(max_examples=200, deadline=None)
@given(
    t1=st.from_regex(TENANT_RE, fullmatch=True),
    t2=st.from_regex(TENANT_RE, fullmatch=True),
    u1=st.text(min_size=1, max_size=20),
    u2=st.text(min_size=1, max_size=20),
)
def test_no_tenant_can_name_another_tenants_user(t1, t2, u1, u2):
    """Tenant names hold no ':', so the first ':' of a stored id splits tenant from
    user: whatever user id tenant t2 picks, it never lands on a user of t1."""
    assert check_tenant(t1) == t1
    s1, s2 = scoped_user(t1, u1), scoped_user(t2, u2)
    assert s1.split(":", 1) == [t1, u1]
    assert unscoped_user(t1, s1) == u1
    if t1 != t2:
        assert s1 != s2
        assert unscoped_user(t2, s1) is None
    else:
        assert (s1 == s2) == (u1 == u2)


# -- the command line -----------------------------------------------------------------------


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_create_prints_the_key_on_stdout_only(capsys, db_path: Path, open_memory):
    code, out, err = _cli(
        capsys, "--db", str(db_path), "keys", "create", "--tenant", "acme", "--label", "l"
    )
    assert code == 0
    key = out.strip()
    assert out == key + "\n"
    key_id, secret = _split(key)
    assert key_id in err and "acme" in err
    assert secret not in err and key not in err
    mem = open_memory(db_path, "hybrid")
    assert KeyRing.of(mem).verify(key) == "acme"
    (info,) = KeyRing.of(mem).list()
    assert info.label == "l" and info.key_id == key_id


def test_cli_list_and_revoke(capsys, db_path: Path):
    db = str(db_path)
    keys = {}
    for tenant, label in (("acme", "web"), ("globex", None), ("acme", "batch")):
        argv = ["--db", db, "keys", "create", "--tenant", tenant]
        if label:
            argv += ["--label", label]
        code, out, _ = _cli(capsys, *argv)
        assert code == 0
        keys[(tenant, label)] = out.strip()
    ids = {k: _split(v)[0] for k, v in keys.items()}
    secrets = [_split(v)[1] for v in keys.values()]

    code, out, err = _cli(capsys, "--db", db, "keys", "list")
    assert code == 0 and err == ""
    lines = out.strip().splitlines()
    assert len(lines) == 3
    assert f"{ids[('acme', 'web')]}  acme  active  web" in lines
    assert f"{ids[('globex', None)]}  globex  active" in lines

    code, out, _ = _cli(capsys, "--db", db, "keys", "list", "--json")
    rows = [json.loads(line) for line in out.strip().splitlines()]
    assert {r["key_id"] for r in rows} == set(ids.values())
    for r in rows:
        assert set(r) == {"key_id", "tenant", "label", "created", "revoked", "active"}
        assert r["active"] is True and r["revoked"] is None

    code, out, _ = _cli(capsys, "--db", db, "keys", "list", "--tenant", "globex", "--json")
    assert [json.loads(x)["key_id"] for x in out.strip().splitlines()] == [ids[("globex", None)]]

    victim = ids[("acme", "web")]
    assert _cli(capsys, "--db", db, "keys", "revoke", victim)[0] == 0
    code, out, err = _cli(capsys, "--db", db, "keys", "revoke", victim)
    assert code == 1 and victim in err
    code, out, err = _cli(capsys, "--db", db, "keys", "revoke", "0123456789ab")
    assert code == 1 and "no active key" in err

    code, out, _ = _cli(capsys, "--db", db, "keys", "list", "--tenant", "acme")
    assert f"{victim}  acme  revoked  web" in out.splitlines()
    code, out, _ = _cli(capsys, "--db", db, "keys", "list", "--tenant", "acme", "--json")
    state = {json.loads(x)["key_id"]: json.loads(x) for x in out.strip().splitlines()}
    assert state[victim]["active"] is False and state[victim]["revoked"] is not None
    assert state[ids[("acme", "batch")]]["active"] is True

    everything = ""
    for argv in (["list"], ["list", "--json"], ["list", "--tenant", "acme"]):
        everything += "".join(_cli(capsys, "--db", db, "keys", *argv)[1:])
    for s in secrets:
        assert s not in everything


def test_cli_refuses_a_bad_tenant(capsys, db_path: Path):
    code, out, err = _cli(capsys, "--db", str(db_path), "keys", "create", "--tenant", "a:b")
    assert code == 2 and out == "" and "tenant" in err
    code, out, err = _cli(capsys, "--db", str(db_path), "keys", "list", "--tenant", "")
    assert code == 2 and out == ""
