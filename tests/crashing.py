"""A server process whose search fails unexpectedly, for the tests that check what
the logs of such a failure may show (HTTP: tests/serve/test_http_logs.py, MCP over
stdio: tests/serve/test_mcp.py)."""

SECRET = "80417723"
#: what a log of the failure must never show: the message's words (a memory's, a
#: key-shaped text) and the traceback that would quote it
LEAKS = (SECRET, "PIN", "rmm_0123", "date value", "Traceback")


def crashing(entry: str) -> str:
    """A ``python -c`` script: ``TenantMemory.search`` raises an error whose message
    holds a memory's words and a key-shaped text, then ``entry``'s ``main`` runs
    (``remem.cli`` or ``remem.serve.mcp``). A ``-c`` script has no source lines a
    traceback could quote, so only the message can leak."""
    return f"""
import sys
from remem.serve.tenant import TenantMemory

def crash(self, *args, **kwargs):
    raise OverflowError("date value out of range near 'my PIN is {SECRET}' rmm_0123")

TenantMemory.search = crash
from {entry} import main
sys.exit(main(sys.argv[1:]))
"""
