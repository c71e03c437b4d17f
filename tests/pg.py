"""PostgreSQL fixtures: one real server (pgserver: PostgreSQL 16 with pgvector) per test
session, a fresh database per test. Registered by ``tests/conftest.py``; tests that
use them are skipped where pgserver is not installed.

* ``pg_url``: a database where pgvector is available but not yet installed, opened as
  the superuser, so ``PostgresStore(vector="auto")`` installs it (the common setup).
* ``pg_url_plain``: a database opened as a role that may create tables but not
  extensions, so pgvector cannot be installed (a managed server without it).
* ``pg_sql``: runs SQL as the superuser in a test's database, to look behind the store.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

PLAIN_ROLE = "remem_plain"
PLAIN_PASSWORD = "plain-secret-pw"


@dataclass
class PgServer:
    datadir: Path
    socket_dir: str
    admin_url: str
    counter: itertools.count

    def url(self, dbname: str, user: str = "postgres", password: str = "") -> str:
        auth = f"{user}:{quote(password, safe='')}@" if password else f"{user}@"
        return f"postgresql://{auth}/{dbname}?host={quote(self.socket_dir, safe='/')}"

    def sql(self, query: str, params: tuple = (), dbname: str = "postgres") -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url(dbname), autocommit=True) as con:
            cur = con.execute(query, params)
            return cur.fetchall() if cur.description else []

    def new_database(self) -> str:
        name = f"remem_test_{next(self.counter)}"
        self.sql(f"CREATE DATABASE {name}")
        return name

    def drop_database(self, name: str) -> None:
        self.sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    pgserver = pytest.importorskip("pgserver")
    from psycopg.conninfo import conninfo_to_dict

    # Not under pytest's basetemp: run as root, pgserver starts PostgreSQL as its own
    # system user, which must traverse the path, while every pytest session resets
    # /tmp/pytest-of-<user> to 0700 (a concurrent session would lock the server out).
    datadir = Path(tempfile.mkdtemp(prefix="remem-pg-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR not set
        srv = pgserver.get_server(datadir, cleanup_mode="stop")
    try:
        uri = srv.get_uri()
        server = PgServer(datadir, str(conninfo_to_dict(uri)["host"]), uri, itertools.count())
        server.sql(f"CREATE ROLE {PLAIN_ROLE} LOGIN PASSWORD '{PLAIN_PASSWORD}'")
        yield server
    finally:
        srv.cleanup()
        shutil.rmtree(datadir, ignore_errors=True)


@pytest.fixture
def pg_db(pg_server: PgServer) -> Iterator[str]:
    """The name of a fresh, empty database, dropped after the test."""
    name = pg_server.new_database()
    yield name
    pg_server.drop_database(name)


@pytest.fixture
def pg_url(pg_server: PgServer, pg_db: str) -> str:
    return pg_server.url(pg_db)


@pytest.fixture
def pg_url_plain(pg_server: PgServer, pg_db: str) -> str:
    """The fresh database for a role without the right to install pgvector."""
    pg_server.sql(f"GRANT CREATE, USAGE ON SCHEMA public TO {PLAIN_ROLE}", dbname=pg_db)
    return pg_server.url(pg_db, PLAIN_ROLE, PLAIN_PASSWORD)


@pytest.fixture
def pg_sql(pg_server: PgServer, pg_db: str) -> Callable[..., list[tuple]]:
    """``pg_sql(query, params=())``: SQL as the superuser in this test's database."""

    def run(query: str, params: tuple = ()) -> list[tuple]:
        return pg_server.sql(query, params, dbname=pg_db)

    return run
