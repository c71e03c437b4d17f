"""The HTTP API's routes, one :class:`fastapi.APIRouter` per area; ``http.create_app``
includes them in the order the API has always listed them.

* ``ops``: health (no key), the engine's features, and the Prometheus metrics
* ``memories``: add, add many, list, read and delete a user's memories
* ``users``: a tenant's users, erasing one, and export and import of a user's table
* ``retrieval``: search, recall, trace, short-term memory and answer
* ``deps``: the tenant dependency and the checks every request passes
* ``models``: the response models of the OpenAPI schema

A route is a thin call on the request's :class:`~remem.serve.tenant.TenantMemory`:
tenant scoping, validation and the shape of results live there, shared with MCP.
"""
