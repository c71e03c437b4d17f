"""A real browser for the page tests: Debian's ``chromium`` driven by Playwright (from
PyPI, in the ``dev`` extra) against the system browser, never a downloaded one.
Registered by ``tests/conftest.py``.

README's test command runs on a clean machine as root, where no browser is
installed: the ``browser`` fixture then installs Debian's ``chromium`` with apt-get
(once; an ``apt-get update`` first if the package lists are stale). Anywhere else
without /usr/bin/chromium the tests fail and say what to install: a page that was
never opened in a browser is not a tested page.

``live_app`` runs an app on a real loopback port in this process (uvicorn on a
thread), so a test can look behind it through the same Memory.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
"""Headless, as root in a container, and quiet: no call to any other host."""


def _apt_install() -> str:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "chromium"]
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:  # stale or missing package lists: refresh once, retry
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600)
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    return "" if done.returncode == 0 else (done.stderr or done.stdout)[-2000:]


def chromium() -> str:
    """The system Chromium's path, installed with apt-get when missing and allowed."""
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    why = "not running as root with apt-get"
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        why = _apt_install() or "apt-get reported success, yet it is missing"
        if os.path.exists(CHROMIUM):
            return CHROMIUM
    pytest.fail(
        f"the page tests need Debian's chromium at {CHROMIUM} (apt-get install -y "
        f"chromium, as root; the tests do it themselves when they can): {why}",
        pytrace=False,
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One browser per test module. Not per session: while Playwright's sync API is
    open it keeps its event loop current in this thread, and the async tests of
    later modules (anyio's runner) would find a loop already running."""
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh tab (own storage) that fails the test on any script error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.set_default_timeout(20_000)
    try:
        yield tab
    finally:
        context.close()
    assert not errors, errors


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_app(app: Any) -> Iterator[str]:
    """Serve ``app`` on a loopback port from a thread; yields its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the app did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
