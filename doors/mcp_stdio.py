"""``palace mcp --user U``: the memory tools (``doors.mcp_server``) over stdio for one user, through the running
``palace serve`` when the data directory names one (it owns the stores), else on the stores directly."""

from __future__ import annotations

import logging

import anyio

from doors.mcp_server import MemoryDoor, build_mcp
from graph import endpoint
from graph.settings import Settings
from memory.validation import check_id


def run_stdio(settings: Settings, user_id: str) -> int:
    check_id("user id", user_id, max_length=settings.max_id_length)
    found = endpoint.live(endpoint.data_dir(settings.data_dir))
    door: MemoryDoor
    if found is not None:
        from doors.client import PalaceClient

        client = PalaceClient(found.url)
        door, closer = client, client.close
    else:
        from doors.door import LocalDoor
        from graph.deps import Deps
        from graph.resources import Resources

        resources = Resources(settings)
        door, closer = LocalDoor(Deps(settings, resources=resources)), resources.close
    try:
        mcp = build_mcp(door, lambda ctx: user_id)
        # the MCP SDK logs at INFO on stderr (every request it handles, and httpx every request to the server): the
        # client that started this process shows stderr to its user, who needs our warnings and errors only
        logging.getLogger().setLevel(logging.WARNING)
        anyio.run(mcp.run_stdio_async)
    finally:
        closer()
    return 0
