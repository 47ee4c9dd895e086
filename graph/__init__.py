"""The agent: settings, resources, graph builder, server entry and the ``palace`` CLI."""
