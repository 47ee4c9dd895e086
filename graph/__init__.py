"""The agent: settings, resources, models, the graph builder, the turn API and the LangGraph server entry. Its
doors (the CLI, the HTTP API, MCP, the web inspector) are the ``doors`` package."""
