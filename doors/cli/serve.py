"""``palace serve`` and ``palace mcp``: the agent served over HTTP, and its memory tools on stdio."""

from __future__ import annotations

import argparse

from doors.cli import agent
from doors.cli.options import Subparsers, add_user


def cmd_serve(args: argparse.Namespace) -> int:
    from doors.serve import serve

    return serve(agent.settings(args).data_dir, host=args.host, port=args.port)


def cmd_mcp(args: argparse.Namespace) -> int:
    from doors.mcp_stdio import run_stdio

    code: int = run_stdio(agent.settings(args), args.user)
    return code


def add_serve(sub: Subparsers) -> None:
    """``palace serve`` and ``palace mcp``."""
    serve = sub.add_parser("serve", help="the LangGraph server with the memory API, MCP and the web inspector",
                           description="Runs the LangGraph API server (langgraph dev, offline) with the project's "
                                       "langgraph.json; it owns the data directory's stores while it runs and other "
                                       "palace commands go through it.")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2024, help="the port to listen on (default: 2024)")
    serve.set_defaults(func=cmd_serve, local_only=True)
    mcp = sub.add_parser("mcp", help="the memory tools over MCP on stdio, for one user",
                         description="Through the running palace serve when there is one, else on the stores.")
    add_user(mcp, "whose memories the tools read and change (never a tool argument)")
    mcp.set_defaults(func=cmd_mcp, local_only=True)
