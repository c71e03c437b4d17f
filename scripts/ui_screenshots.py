#!/usr/bin/env python3
"""The memory explorer's screenshots in docs/img/, made from the demo conversation.

    .venv/bin/python scripts/ui_screenshots.py          # needs '.[dev]' and chromium

For each of SYNAPSE and ILSTMA: the demo conversation (src/remem/demo) is stored in
a throwaway database, ``remem ui`` serves it, and Debian's Chromium (driven by
Playwright, as the page tests do) opens Priya, asks one question and is
photographed. Nothing is tuned: the page shows what the engines return.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from remem import Memory
from remem.demo import load_demo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browser import ARGS, CHROMIUM  # noqa: E402 - the page tests' browser, the same flags

SHOTS = {
    "synapse": "What is the name of Priya's greyhound?",
    "ilstma": "What sort of animal shares Priya's home these days?",
}


def build(db: Path, engine: str) -> None:
    raw, sessions, _ = load_demo()
    with Memory(db, engine=engine, llm="none") as mem:
        for items in sessions:
            mem.add_many(items, user_id=raw["user_id"])
        mem.add_many(["Sam is learning to bake sourdough.", "Sam's oven runs hot."], "sam")
        mem.consolidate(raw["user_id"])


def serve(db: Path, engine: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "remem.cli", "--db", str(db), "--engine", engine]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [*cmd, "ui", "--port", str(port)], stdout=out, stderr=subprocess.STDOUT, env=env
        )
    deadline = time.monotonic() + 120
    while "remem ui: http" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(log.read_text())
        time.sleep(0.1)
    while True:  # the line comes just before uvicorn listens
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/ui/", timeout=5).close()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(log.read_text()) from None
            time.sleep(0.1)


def shoot(browser, url: str, engine: str, question: str, out: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(url + "?user=priya")
    page.wait_for_selector("#memories tr")
    page.fill("#query", question)
    page.fill("#k", "5")
    page.click("#search-form button")
    page.wait_for_selector("#hits li")
    if engine == "synapse":
        page.wait_for_selector("#graph g[data-kind]")
        page.screenshot(path=str(out))
    else:
        page.wait_for_selector("#short-term:not([hidden])")
        page.locator("#short-term").scroll_into_view_if_needed()
        page.screenshot(path=str(out), full_page=True, clip=_clip(page))
    page.close()


def _clip(page) -> dict[str, float]:
    """From the top of the page to the end of the short-term memory section."""
    box = page.locator("#short-term").bounding_box()
    scroll = page.evaluate("window.scrollY")
    return {"x": 0, "y": 0, "width": 1280, "height": box["y"] + scroll + box["height"] + 16}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    p.add_argument("--port", type=int, default=8097)
    args = p.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for i, (engine, question) in enumerate(SHOTS.items()):
            db = Path(tmp) / f"{engine}.db"
            build(db, engine)
            proc = serve(db, engine, args.port + i, Path(tmp) / f"{engine}.log")
            try:
                out = args.out / f"explorer-{engine}.png"
                shoot(browser, f"http://127.0.0.1:{args.port + i}/ui/", engine, question, out)
                print(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out)
            finally:
                proc.terminate()
                proc.wait(30)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
