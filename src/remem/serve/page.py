"""The memory explorer page (``/ui``): three static files shipped in the package
(``serve/ui/``), served by the HTTP API and calling nothing but its JSON routes.

Choices, and why:

* The page holds no data and no logic of remem's own: users, memories, search hits,
  explanations, the activated graph and ILSTMA's short-term memory all come from the
  ``/v1`` routes, so what it shows is what any API client gets (no second search).
* The files are package data, read from the installed package; nothing is loaded
  from another host (a strict Content-Security-Policy says so to the browser too),
  so the page works offline like the rest of remem.
* Under ``remem serve`` the page itself is public (it is the same for everyone and
  holds nothing) and asks for an API key, which it sends in a header to the keyed
  routes: every user it lists is the key's tenant's. ``remem ui`` serves the same
  page for one person on this machine without keys (:func:`keyless_guard`).
"""

from __future__ import annotations

import ipaddress
from importlib import resources

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response

from ..errors import InvalidInputError, NotFoundError

FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
"""The page's files (``serve/ui/``) and their media types: nothing else is served."""

HEADERS = {
    # nothing from elsewhere, no inline script or style, no framing by other sites
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def read(name: str) -> bytes:
    """One of the page's files, from the installed package."""
    return resources.files("remem.serve").joinpath("ui").joinpath(name).read_bytes()


def add_page(app: FastAPI, *, at_root: bool = False) -> None:
    """Serve the page at ``/ui/`` (``/ui`` redirects there, keeping ``?user=``), and
    with ``at_root`` (``remem ui``, where the page is the point) redirect ``/`` too.
    ``remem serve`` keeps its root an API's: a JSON 404, so a client with a wrong
    base URL learns so, rather than getting a page (docs/deploy.md)."""

    def to_page(request: Request) -> RedirectResponse:
        # relative, so a proxy's path prefix stays; no data, so no guard
        query = request.url.query
        return RedirectResponse("ui/" + (f"?{query}" if query else ""), status_code=307)

    app.get("/ui", include_in_schema=False)(to_page)
    if at_root:
        app.get("/", include_in_schema=False)(to_page)

    @app.get("/ui/", include_in_schema=False)
    def page_index() -> Response:
        return page_file("index.html")

    @app.get("/ui/{name}", include_in_schema=False)
    def page_file(name: str) -> Response:
        if name not in FILES:
            raise NotFoundError(f"the page has no file {name!r}")
        return Response(read(name), media_type=FILES[name], headers=HEADERS)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) names this machine only."""
    host = host.strip().strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_loopback(host: str) -> str:
    """``remem ui`` answers without keys, so it listens on this machine only."""
    if not is_loopback(host):
        raise InvalidInputError(
            f"remem ui serves without API keys, so only on loopback (127.0.0.1, ::1, "
            f"localhost), not {host!r}; to share the page, run remem serve (keyed) and "
            "open /ui there"
        )
    return host


def host_of(header: str) -> str:
    """The host part of a ``Host`` header (``[::1]:8080`` -> ``::1``)."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def keyless_guard(request: Request) -> bool:
    """Whether a keyless request may be answered: only when the browser addressed this
    machine by a loopback name. A web page elsewhere cannot read a loopback server's
    answers (same-origin policy) unless it rebinds its own name to 127.0.0.1; the
    ``Host`` it then sends is that name, which this refuses."""
    return is_loopback(host_of(request.headers.get("host", "")))
