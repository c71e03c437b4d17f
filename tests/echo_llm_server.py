"""A real OpenAI-compatible HTTP server (stdlib, on 127.0.0.1) whose every reply
quotes the prompt (or the texts to embed) back, the way a small model parrots or a
server's error page echoes the request: what it sends is what a failing LLM call can
carry into an exception message. Modes: ``parrot`` (200, the first user message as
prose: no valid JSON) and ``echo_error`` (HTTP 400 whose body repeats the request)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _handler(mode: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            messages = body.get("messages", [])
            # a chat's messages, or an embedding request's texts
            prompt = " ".join(str(m.get("content", "")) for m in messages) or " ".join(
                map(str, body.get("input", []))
            )
            if mode == "parrot":  # the first user message holds the memories
                asked = next((m for m in messages if m.get("role") == "user"), {})
                text = f"{str(asked.get('content', ''))[-200:]} - hope that helps!"
                reply: Any = {
                    "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 10},
                }
                status = 200
            else:
                reply = {"error": {"message": f"cannot process: {prompt[-250:]}"}}
                status = 400
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:  # the test reads stderr: stay quiet
            pass

    return Handler


@contextmanager
def echo_llm_server(mode: str) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT/v1``) while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(mode))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
