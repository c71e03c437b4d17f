"""Sending one :class:`~remem.client.exchange.Request` over httpx: the API key, the
503 retries (``failures.Retry``), and the answer read back as JSON or as the
library's error. A sync and an async twin, which differ only in what they await.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from ..errors import RemoteError
from .exchange import Request
from .failures import Retry, error_for, unreachable


def headers(api_key: str | None) -> dict[str, str]:
    """The headers of every request: the key as a bearer token (never in the URL,
    which servers and proxies log; the server refuses a key there)."""
    out = {"Accept": "application/json"}
    if api_key is not None:
        out["Authorization"] = f"Bearer {api_key}"
    return out


def answer(request: Request, response: httpx.Response) -> Any:
    """A final response as the exchange receives it: the decoded JSON of a success,
    None for a missing memory the request allows (``Request.missing``), else the
    library's error for it raised."""
    if response.is_success:
        return response.text if request.raw else _json(response)
    payload = _json(response, strict=False)
    if request.missing and response.status_code == 404 and _code(payload) == "not_found":
        return None
    raise error_for(response.status_code, payload)


def sent(request: Request) -> dict[str, Any]:
    """httpx's arguments for a request's query and body (JSON, or raw bytes)."""
    if request.content is None:
        return {"params": request.params, "json": request.body}
    headers = {"Content-Type": request.content_type}
    return {"params": request.params, "content": request.content, "headers": headers}


def _json(response: httpx.Response, *, strict: bool = True) -> Any:
    try:
        return response.json() if response.content else None
    except ValueError:
        if not strict:
            return None
        raise RemoteError(
            f"the server answered HTTP {response.status_code} with a body that is not JSON",
            status=response.status_code,
        ) from None


def _code(payload: Any) -> str:
    err = payload.get("error") if isinstance(payload, dict) else None
    return str(err.get("code", "")) if isinstance(err, dict) else ""


class Sender:
    """Sends a request with ``httpx.Client``, retrying a 503 as ``retry`` allows."""

    def __init__(self, http: httpx.Client, retry: Retry):
        self.http = http
        self.retry = retry

    def __call__(self, request: Request) -> Any:
        retried = 0
        while True:
            response = self._once(request)
            wait = self.retry.delay(
                response.status_code, response.headers.get("Retry-After"), retried
            )
            if wait is None:
                return answer(request, response)
            retried += 1
            time.sleep(wait)

    def _once(self, request: Request) -> httpx.Response:
        try:
            return self.http.request(request.method, request.path, **sent(request))
        except httpx.TransportError as exc:
            raise unreachable(str(self.http.base_url), exc) from exc


class AsyncSender:
    """:class:`Sender` over ``httpx.AsyncClient``."""

    def __init__(self, http: httpx.AsyncClient, retry: Retry):
        self.http = http
        self.retry = retry

    async def __call__(self, request: Request) -> Any:
        retried = 0
        while True:
            response = await self._once(request)
            wait = self.retry.delay(
                response.status_code, response.headers.get("Retry-After"), retried
            )
            if wait is None:
                return answer(request, response)
            retried += 1
            await asyncio.sleep(wait)

    async def _once(self, request: Request) -> httpx.Response:
        try:
            return await self.http.request(request.method, request.path, **sent(request))
        except httpx.TransportError as exc:
            raise unreachable(str(self.http.base_url), exc) from exc
