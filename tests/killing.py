"""A ``python -c`` script run in a real process and SIGKILLed part-way, for the tests
that show a key rotation or a rekey killed at any point loses nothing
(tests/store/test_sqlite_encrypted.py, test_postgres_encrypted.py). The script
prints "go" when it starts its work: the time to kill counts from there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time


def run_or_kill(
    script: str, args: list[str], keys: dict[str, str], kill_after: float | None
) -> tuple[bool, float]:
    """``script`` with ``args``, ``keys`` in its environment, SIGKILLed ``kill_after``
    seconds after its "go" (None: run to the end, which must succeed); whether it
    finished, and how long it ran."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **keys}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, env=env, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "go\n"
    start = time.monotonic()
    if kill_after is None:
        assert proc.wait(timeout=120) == 0
        return True, time.monotonic() - start
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    return proc.returncode == 0, time.monotonic() - start
