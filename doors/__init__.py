"""The doors into the agent (``graph/``): the ``palace`` CLI, the memory HTTP API, MCP over HTTP and stdio, the web
inspector, the client of a running server, ``palace serve`` and ``palace doctor``. Each is a thin adapter over the
same operations (``graph.api``, ``graph.manage``); the agent never imports a door."""
