"""The servers: the HTTP API (:mod:`.http`, ``remem serve``) and the MCP server
(:mod:`.mcp`, ``remem mcp``), both thin faces over one tenant's view of a Memory
(:mod:`.tenant`), configured by one :class:`~.settings.Settings`.

Nothing is imported here, so ``remem --help`` needs neither FastAPI nor the MCP SDK.
"""
