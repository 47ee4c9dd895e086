"""The CLI's client mode: when the data directory names a live ``palace serve`` (``graph.endpoint``), ``palace
memories ...``, ``tasks``, ``usage`` and ``chat`` go through its HTTP API instead of opening the stores (the
server owns them). httpx and the standard library only: this path never imports the agent stack.

:class:`PalaceClient` is also the :class:`doors.mcp_server.MemoryDoor` of ``palace mcp`` when a server runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import httpx

from doors import present
from doors.cli.progress import AnswerStream, Spinner
from graph import endpoint
from memory.errors import InvalidInputError, NotFoundError, PalaceError, ServiceUnavailableError

JSON = dict[str, Any]
# The commands the server answers; the rest (serve, mcp, services, sweep) run locally.
REMOTE = {"chat", "memories", "tasks", "usage", "doctor"}


class RemoteError(PalaceError):
    """An error the server answered with (its message, and the CLI's exit code for its HTTP status)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def exit_code(status: int) -> int:
    """The CLI's exit code for an HTTP status the server answered with."""
    return {404: NotFoundError.exit_code, 503: 3}.get(status, 2 if status < 500 else 1)


def _remote_error(r: httpx.Response) -> RemoteError:
    try:
        detail = r.json().get("detail", r.text)
    except (ValueError, AttributeError):
        detail = r.text
    return RemoteError(str(detail), exit_code(r.status_code))


def sse_events(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """``(event, data)`` of a server-sent event stream whose data are JSON (comment lines skipped)."""
    event, data = "message", list[str]()
    for line in lines:
        if not line:
            if data:
                yield event, json.loads("\n".join(data))
            event, data = "message", list[str]()
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


class PalaceClient:
    """The memory HTTP API of one server (``/palace/api``)."""

    def __init__(self, url: str, *, token: str | None = None, timeout_s: float = 120.0) -> None:
        self.url = url.rstrip("/")
        token = token if token is not None else os.environ.get("PALACE_API_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=self.url + "/palace/api", headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            r = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ServiceUnavailableError("palace server", self.url, str(exc) or type(exc).__name__,
                                          fix="is palace serve still running?") from exc
        if r.status_code >= 400:
            raise _remote_error(r)
        if r.headers.get("content-type", "").startswith("application/json"):
            return r.json()
        return r.text

    @staticmethod
    def _u(user_id: str) -> str:
        return "/users/" + quote(user_id, safe="")

    # --- the MemoryDoor ------------------------------------------------------------------------------------
    def add(self, user_id: str, text: str, *, important: bool = False, at: str | None = None) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/memories",
                              json={"text": text, "important": important, "at": at})
        return out

    def search(self, user_id: str, query: str, *, limit: int | None = None, now: str | None = None) -> list[JSON]:
        params = {k: v for k, v in {"q": query, "limit": limit, "now": now}.items() if v is not None}
        out: list[JSON] = self.call("GET", self._u(user_id) + "/memories/search", params=params)
        return out

    def memories(self, user_id: str, status: str = "active") -> list[JSON]:
        out: list[JSON] = self.call("GET", self._u(user_id) + "/memories", params={"status": status})
        return out

    def forget(self, user_id: str, ids: list[str]) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/memories/forget", json={"ids": ids})
        return out

    def disputed(self, user_id: str) -> list[JSON]:
        out: list[JSON] = self.call("GET", self._u(user_id) + "/review")
        return out

    def review(self, user_id: str, *, accept: list[str], reject: list[str], both: list[str] | None = None) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/review",
                              json={"accept": accept, "reject": reject, "both": both or []})
        return out

    def history(self, user_id: str, memory_id: str) -> list[JSON]:
        out: list[JSON] = self.call("GET", self._u(user_id) + "/memories/" + quote(memory_id, safe="") + "/history")
        return out

    def restore(self, user_id: str, memory_id: str) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/memories/" + quote(memory_id, safe="") + "/restore")
        return out

    # --- the rest of the CLI ---------------------------------------------------------------------------------
    def show(self, user_id: str, memory_id: str) -> JSON:
        out: JSON = self.call("GET", self._u(user_id) + "/memories/" + quote(memory_id, safe=""))
        return out

    def pin(self, user_id: str, memory_id: str) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/memories/" + quote(memory_id, safe="") + "/pin")
        return out

    def forget_all(self, user_id: str) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/forget-all")
        return out

    def export(self, user_id: str) -> str:
        return str(self.call("GET", self._u(user_id) + "/memories/export"))

    def import_(self, user_id: str, text: str) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/memories/import", content=text.encode())
        return out

    def tasks(self, user_id: str, *, session: str | None = None, status: str | None = None) -> list[JSON]:
        params = {k: v for k, v in {"session": session, "status": status}.items() if v}
        out: list[JSON] = self.call("GET", self._u(user_id) + "/tasks", params=params)
        return out

    def task(self, user_id: str, task_id: str) -> JSON:
        out: JSON = self.call("GET", self._u(user_id) + "/tasks/" + quote(task_id, safe=""))
        return out

    def usage(self, user_id: str, by: str) -> JSON:
        out: JSON = self.call("GET", self._u(user_id) + "/usage", params={"by": by})
        return out

    def doctor(self) -> list[JSON]:
        out: list[JSON] = self.call("GET", "/doctor")
        return out

    def chat(self, user_id: str, body: JSON) -> JSON:
        out: JSON = self.call("POST", self._u(user_id) + "/chat", json=body)
        return out

    def chat_stream(self, user_id: str, body: JSON, *, on_token: Callable[[str], None] | None = None,
                    on_answer: Callable[[], None] | None = None) -> JSON:
        """One turn through ``POST .../chat/stream``: ``on_token`` gets the answer as the server generates it,
        ``on_answer`` is called once it is complete; returns what ``chat`` returns. An error the server reports
        before or during the stream is a :class:`RemoteError` with the CLI's exit code for its status."""
        try:
            with self.http.stream("POST", self._u(user_id) + "/chat/stream", json=body,
                                  headers={"Accept": "text/event-stream"}) as r:
                if r.status_code >= 400:
                    r.read()
                    raise _remote_error(r)
                for event, data in sse_events(r.iter_lines()):
                    if event == "token" and on_token is not None:
                        on_token(str(data["text"]))
                    elif event == "answered" and on_answer is not None:
                        on_answer()
                    elif event == "result":
                        out: JSON = data
                        return out
                    elif event == "error":
                        raise RemoteError(str(data["detail"]), exit_code(int(data["status"])))
        except httpx.HTTPError as exc:
            raise ServiceUnavailableError("palace server", self.url, str(exc) or type(exc).__name__,
                                          fix="is palace serve still running?") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise ServiceUnavailableError("palace server", self.url, f"a chat stream it sent is not valid: {exc}",
                                          fix="are the server and this CLI the same version?") from exc
        raise ServiceUnavailableError("palace server", self.url, "the chat stream ended before the turn did",
                                      fix="see the server's log")


def server_for(args: argparse.Namespace) -> str | None:
    """The URL of the live server of the command's data directory, if the command is one it answers."""
    if getattr(args, "command", None) not in REMOTE:
        return None
    if args.command == "tasks" and args.action not in ("list", "show"):
        return None  # tasks add / advance / done: PostgreSQL only, which the server shares; there is no route
    found = endpoint.live(endpoint.data_dir(getattr(args, "data_dir", None)))
    return found.url if found else None


def run_remote(url: str, args: argparse.Namespace) -> int:
    """Run the parsed command through the server at ``url``; prints what the local command prints: the server
    answers with the JSON shapes the local command has, and the same presenters (``doors.present``) print them."""
    client = PalaceClient(url)
    try:
        return _dispatch(client, args)
    finally:
        client.close()


def _dispatch(c: PalaceClient, args: argparse.Namespace) -> int:
    cmd, action = args.command, getattr(args, "action", None)
    as_json = getattr(args, "json", False)
    if cmd == "doctor":
        return present.print_checks(c.doctor(), as_json, server=c.url)
    tz = present.user_timezone()
    if cmd == "chat":
        if args.resume is None and args.message is None:
            raise InvalidInputError("a message is required (or --resume yes|no|both to answer a pending confirmation)")
        body = {"message": args.message, "session": args.session, "at": args.at, "important": args.important,
                "resume": args.resume}
        with Spinner("recalling") as spinner:
            answer = AnswerStream(spinner, stream=not as_json and args.resume is None)
            try:
                out = c.chat_stream(args.user, body, on_token=answer.on_token, on_answer=answer.on_answer)
            except PalaceError:
                if answer.started and not answer.answered:
                    print(flush=True)  # end the partial answer's line: the error's one line follows on stderr
                raise
        args.answer_printed = answer.started
        present.print_turn(out, args, tz)  # the same output as a turn run here
        return 0
    if cmd == "usage":
        if args.user is None:
            raise InvalidInputError("through a running server, usage is per user: give --user")
        report = c.usage(args.user, args.by)
        present.show(args, report, lambda: present.usage_lines(report))
        return 0
    if cmd == "tasks":
        if action == "list":
            tasks = c.tasks(args.user, session=args.session, status=args.status)
            present.show(args, tasks, lambda: present.task_list(tasks, args.user))
        elif action == "show":
            task = c.task(args.user, args.id)
            present.show(args, task, lambda: present.task_lines(task, tz))
        else:
            raise InvalidInputError(f"tasks {action} is not served through a running server: stop it, or use the "
                                    "task tools of a chat turn")
        return 0
    # memories
    user = str(args.user)
    if action == "add":
        m = c.add(user, args.text, important=args.important, at=args.at)
        present.show(args, m, lambda: [m["id"]])
    elif action == "search":
        found = c.search(user, args.query, limit=args.limit, now=args.now)
        present.show(args, found, lambda: present.search_lines(found, tz))
    elif action == "list":
        listed = c.memories(user, args.status)
        present.show(args, listed, lambda: present.memory_list(listed, user, args.status, tz))
    elif action == "show":
        shown = c.show(user, args.id)
        present.show(args, shown, lambda: present.memory_lines(shown, tz))
    elif action == "pin":
        pinned = c.pin(user, args.id)
        present.show(args, pinned, lambda: [f"pinned {pinned['id']}: {pinned['text']}"])
    elif action == "forget":
        if args.all and args.ids:
            raise InvalidInputError("give memory ids or --all, not both")
        if args.all:
            everything = c.forget_all(user)
            present.show(args, everything, lambda: [present.forgot_all_line(everything)])
            return 0
        gone = c.forget(user, list(args.ids))
        present.show(args, gone, lambda: [present.forgot_line(gone, len(set(args.ids)), user)])
    elif action == "review":
        if args.accept or args.reject or args.both:
            out = c.review(user, accept=list(args.accept), reject=list(args.reject), both=list(args.both))
            present.show(args, out, lambda: [f"{i}: {o}" for i, o in out.items()])
        else:
            disputed = c.disputed(user)
            present.show(args, disputed, lambda: present.disputed_lines(disputed, user))
    elif action == "history":
        events = c.history(user, args.id)
        present.show(args, events, lambda: present.history_lines(events, tz))
    elif action == "restore":
        done = c.restore(user, args.id)
        present.show(args, done, lambda: [present.restored_line(done)])
    elif action == "export":
        text = c.export(user)
        sys.stdout.write(text)
        print(f"palace: exported {present.count(text.count(chr(10)), 'memory', 'memories')} of {user}",
              file=sys.stderr)
    elif action == "import":
        raise InvalidInputError("import is not served through a running server by the CLI (it may name several "
                                "users): POST the file to /palace/api/users/<user>/memories/import")
    else:
        raise InvalidInputError(f"{cmd} {action} is not served through a running server")
    return 0
