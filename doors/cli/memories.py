"""``palace memories ...``: the user's long-term memories."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from zoneinfo import ZoneInfo

from doors import present
from doors.cli import agent
from doors.cli.io import dumps
from doors.cli.options import Subparsers, add_json, add_user, positive_int
from doors.present import count as _count
from memory.errors import InvalidInputError, NotFoundError


def cmd_memories_add(args: argparse.Namespace) -> int:
    from graph.api import add_memory

    settings = agent.settings(args)
    with agent.resources(settings) as res:
        memory = add_memory(agent.deps(settings, res), args.user, args.text, at=args.at,
                            important=args.important)
    if args.json:
        print(dumps(memory.model_dump()))
    else:
        print(memory.id)
    return 0


def cmd_memories_search(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.search(deps, args.user, args.query, now=args.now, limit=args.limit),
                      present.search_lines)


def cmd_memories_forget(args: argparse.Namespace) -> int:
    settings = agent.settings(args)
    if args.all and args.ids:
        raise InvalidInputError("give memory ids or --all, not both")
    from graph.api import forget_memories, forget_user

    with agent.resources(settings) as res:
        deps = agent.deps(settings, res)  # no model: forgetting loads no model stack
        if args.all:
            everything = forget_user(deps, args.user)
            out = {"user_id": args.user, **vars(everything)}
            present.show(args, out, lambda: [present.forgot_all_line(out)])
            return 0
        gone = forget_memories(deps, args.user, list(args.ids))
    n = gone.named
    if args.json:
        print(dumps({"user_id": args.user, "memories": n, "derived": gone.derived,
                     "short_term_entries": gone.short_term_entries}))
    elif n:  # nothing forgotten: the error below says so, without a "forgot 0 of 1" that reads like success
        print(present.forgot_line({"memories": n, "derived": gone.derived,
                                   "short_term_entries": gone.short_term_entries}, len(set(args.ids)), args.user))
    if n < len(set(args.ids)):
        missing = len(set(args.ids)) - n
        raise NotFoundError(f"{missing} of the ids {'is' if missing == 1 else 'are'} not a memory of {args.user!r}")
    return 0


def cmd_memories_list(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.list_(deps, args.user, status=args.status),
                      lambda found, tz: present.memory_list(found, args.user, args.status, tz))


def cmd_memories_show(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.show(deps, args.user, args.id), present.memory_lines)


def cmd_memories_pin(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.pin(deps, args.user, args.id),
                      lambda m, _: [f"pinned {m['id']}: {m['text']}"])


def cmd_memories_review(args: argparse.Namespace) -> int:
    from graph.manage import Choice, resolve_disputed, resolve_id

    settings = agent.settings(args)
    with agent.resources(settings) as res:
        deps = agent.deps(settings, res)
        if args.accept or args.reject or args.both:
            ltm = deps.long_term()
            now_ms = int(datetime.now(ZoneInfo(settings.timezone)).timestamp() * 1000)
            choices: list[tuple[str, Choice]] = [*((i, "yes") for i in args.accept), *((i, "no") for i in args.reject),
                                                 *((i, "both") for i in args.both)]
            resolved = [(resolve_id(deps, args.user, i), c) for i, c in choices]
            out = {i: resolve_disputed(ltm, args.user, i, c, now_ms, events=deps.events()) for i, c in resolved}
            print(dumps(out) if args.json else "\n".join(f"{i}: {o}" for i, o in out.items()))
            if "gone" in out.values():
                raise NotFoundError("some ids are not disputed memories of this user (see 'gone' above)")
            return 0
        from doors import door

        disputed = door.disputed(deps, args.user)
    present.show(args, disputed, lambda: present.disputed_lines(disputed, args.user))
    return 0


def cmd_memories_history(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.history(deps, args.user, args.id), present.history_lines)


def cmd_memories_restore(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.restore(deps, args.user, args.id),
                      lambda done, _: [present.restored_line(done)])


def cmd_memories_export(args: argparse.Namespace) -> int:
    from graph.manage import export_lines

    settings = agent.settings(args)
    with agent.resources(settings) as res:
        count = 0
        for line in export_lines(agent.deps(settings, res), args.user):
            print(line)
            count += 1
    print(f"palace: exported {_count(count, 'memory', 'memories')} of {args.user}", file=sys.stderr)
    return 0


def cmd_memories_import(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from graph.manage import import_lines

    settings = agent.settings(args)
    try:
        handle = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise InvalidInputError(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    with handle, agent.resources(settings) as res:
        lines = handle.read().splitlines()
        progress = tqdm(lines, desc="importing", unit="line", file=sys.stderr, disable=not sys.stderr.isatty())
        report = import_lines(agent.deps(settings, res), progress)
    for error in report.errors:
        print(f"palace: warning: {args.file}: {error}", file=sys.stderr)
    if args.json:
        print(dumps({"imported": report.imported, "lines": report.lines, "errors": report.errors}))
    else:
        print(f"imported {_count(report.imported, 'memory', 'memories')} from {_count(report.lines, 'line', 'lines')}")
    if report.errors:
        bad = len(report.errors)
        raise InvalidInputError(f"{bad} line{' was' if bad == 1 else 's were'} not imported (listed above); the rest "
                                "were")
    return 0


def add_memories(sub: Subparsers) -> None:
    """``palace memories ACTION``."""
    memories = sub.add_parser("memories", help="the user's long-term memories")
    msub = memories.add_subparsers(dest="action", required=True, metavar="ACTION", help="one of:")
    add = msub.add_parser("add", help="store a memory directly (the user is the authority: no fact-check)")
    add.add_argument("text", help="the memory, as the user would say it")
    add_user(add, "whose memory it is")
    add.add_argument("--at", help="when it was said, ISO 8601; default: now")
    add.add_argument("--important", action="store_true", help="decay weight 2.0: ranks as if twice as relevant")
    add_json(add, "print the stored memory as JSON")
    add.set_defaults(func=cmd_memories_add)
    search = msub.add_parser("search", help="ranked memories for a query (time intent, decay, importance)")
    search.add_argument("query", help="what to look for, in words (\"where do I live\", \"上周的会议\")")
    add_user(search, "whose memories to search")
    search.add_argument("--now", help="rank as of this time, ISO 8601; default: now")
    search.add_argument("--limit", type=positive_int, help="how many (default: PALACE_RECALL_TOP_K)")
    add_json(search, "a JSON array with the score breakdown of each")
    search.set_defaults(func=cmd_memories_search)
    forget = msub.add_parser("forget", help="delete memories by id, or --all: everything of the user in every store")
    forget.add_argument("ids", nargs="*", metavar="ID", help="memory ids (from search or add)")
    add_user(forget, "whose memories to forget")
    forget.add_argument("--all", action="store_true",
                        help="everything of the user: memories, short-term lists, tasks, usage, outbox, CLI threads")
    add_json(forget, "print the counts as JSON")
    forget.set_defaults(func=cmd_memories_forget)
    lst = msub.add_parser("list", help="the user's memories, newest first")
    add_user(lst, "whose memories to list")
    lst.add_argument("--status", default="active", choices=["active", "disputed", "superseded", "all"],
                     help="which memories: active (recalled), disputed (waiting for the user), superseded "
                          "(replaced by a newer one) or all (default: active)")
    add_json(lst, "a JSON array of the stored memories")
    lst.set_defaults(func=cmd_memories_list)
    for name, func, text in (("show", cmd_memories_show, "one memory with every field"),
                             ("pin", cmd_memories_pin, "mark a memory important (decay weight 2.0)"),
                             ("history", cmd_memories_history, "every change to a memory, with the verdicts and "
                                                                "their reasons"),
                             ("restore", cmd_memories_restore, "bring back a superseded or merged memory")):
        p = msub.add_parser(name, help=text)
        p.add_argument("id", help="the memory's id or a prefix of it (at least 4 characters, as memories list shows)")
        add_user(p, "whose memory it is (another user's id is not found)")
        add_json(p, "print the memory (or its history) as JSON")
        p.set_defaults(func=func)
    review = msub.add_parser("review", help="disputed memories: list them, or accept / reject them by id")
    add_user(review, "whose disputed memories")
    review.add_argument("--accept", action="append", default=[], metavar="ID", help="make it active (repeatable)")
    review.add_argument("--reject", action="append", default=[], metavar="ID", help="delete it (repeatable)")
    review.add_argument("--both", action="append", default=[], metavar="ID",
                        help="keep it and the memory it contradicts, as separate memories (repeatable)")
    add_json(review, "the disputed memories (or, with --accept / --reject / --both, each id's outcome) as JSON")
    review.set_defaults(func=cmd_memories_review)
    export = msub.add_parser("export", help="every memory of the user as JSON lines on stdout")
    add_user(export, "whose memories to export")
    export.set_defaults(func=cmd_memories_export)
    imp = msub.add_parser("import", help="memories from an export (JSON lines; - for stdin); idempotent")
    imp.add_argument("file", help="an export file (each line names its user), or - to read stdin")
    add_json(imp, "print the counts and errors as JSON")
    imp.set_defaults(func=cmd_memories_import)
