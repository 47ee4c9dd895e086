"""``palace tasks ...`` and ``palace usage``: the task store and the token ledger (PostgreSQL)."""

from __future__ import annotations

import argparse

from doors import present
from doors.cli import agent
from doors.cli.options import Subparsers, add_json, add_user, positive_int
from memory.errors import InvalidInputError


def cmd_tasks_list(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.tasks(deps, args.user, session_id=args.session, status=args.status),
                      lambda tasks, _: present.task_list(tasks, args.user))


def cmd_tasks_show(args: argparse.Namespace) -> int:
    from doors import door

    return agent.show(args, lambda deps: door.task(deps, args.user, args.id), present.task_lines)


def cmd_tasks_add(args: argparse.Namespace) -> int:
    settings = agent.settings(args)
    steps = list(args.step) or [f"step {i}" for i in range(1, (args.steps or 1) + 1)]
    if args.step and args.steps and args.steps != len(args.step):
        raise InvalidInputError(f"--steps {args.steps} but {len(args.step)} --step texts given")
    with agent.resources(settings) as res:
        task = agent.deps(settings, res).tasks().create(args.user, args.session, args.title, steps)
    from doors.door import task_json

    out = task_json(task)
    present.show(args, out, lambda: [present.task_row(out)])
    return 0


def _cmd_task_change(args: argparse.Namespace, change: str) -> int:
    settings = agent.settings(args)
    with agent.resources(settings) as res:
        store = agent.deps(settings, res).tasks()
        task = store.advance(args.user, args.id, note=args.note) if change == "advance" else \
            store.complete(args.user, args.id, note=args.note)
    from doors.door import task_json

    out = task_json(task)
    present.show(args, out, lambda: [present.task_row(out)])
    return 0


def cmd_tasks_advance(args: argparse.Namespace) -> int:
    return _cmd_task_change(args, "advance")


def cmd_tasks_done(args: argparse.Namespace) -> int:
    return _cmd_task_change(args, "done")


def cmd_usage(args: argparse.Namespace) -> int:
    from doors import door

    settings = agent.settings(args)
    with agent.resources(settings) as res:
        report = door.usage(agent.deps(settings, res), args.user, args.by)
    present.show(args, report, lambda: present.usage_lines(report))
    return 0


def add_usage(sub: Subparsers) -> None:
    """``palace usage``."""
    usage = sub.add_parser("usage", help="tokens and cost from the ledger, and the saving against the full history")
    usage.add_argument("--user", default=None, help="one user's model calls (default: everyone's)")
    usage.add_argument("--by", default="day", choices=["day", "session", "node", "model"],
                       help="one row per day, session, graph node or model (default: day)")
    add_json(usage, "rows and totals as one JSON object (costs in USD, as numbers)")
    usage.set_defaults(func=cmd_usage)


def add_tasks(sub: Subparsers) -> None:
    """``palace tasks ACTION``."""
    tasks = sub.add_parser("tasks", help="the user's structured tasks (PostgreSQL)")
    tsub = tasks.add_subparsers(dest="action", required=True, metavar="ACTION", help="one of:")
    tlist = tsub.add_parser("list", help="tasks, most recently changed first")
    add_user(tlist, "whose tasks")
    tlist.add_argument("--session", default=None, help="only this session's tasks (default: every session)")
    tlist.add_argument("--status", default=None, choices=["active", "completed", "cancelled"],
                       help="only tasks in this state (default: all)")
    add_json(tlist, "a JSON array of the tasks")
    tlist.set_defaults(func=cmd_tasks_list)
    tshow = tsub.add_parser("show", help="one task with its steps and step history")
    tshow.add_argument("id", help="the task id (from tasks list)")
    add_user(tshow, "whose task it is (another user's id is not found)")
    add_json(tshow, "the task, its steps and history as JSON")
    tshow.set_defaults(func=cmd_tasks_show)
    tadd = tsub.add_parser("add", help="create a task (for models that do not call the task tools)")
    tadd.add_argument("title", help="what the task is")
    add_user(tadd, "whose task it is")
    tadd.add_argument("--session", default="default", help="the session the task belongs to (default: default)")
    tadd.add_argument("--steps", type=positive_int, default=None, metavar="N",
                      help="how many steps (named 'step 1' ... 'step N'; default 1)")
    tadd.add_argument("--step", action="append", default=[], metavar="TEXT", help="a named step, in order "
                      "(repeatable; instead of --steps)")
    add_json(tadd, "print the task as JSON")
    tadd.set_defaults(func=cmd_tasks_add)
    for name, func, text in (("advance", cmd_tasks_advance, "mark the task's current step done"),
                             ("done", cmd_tasks_done, "mark the whole task completed")):
        tp = tsub.add_parser(name, help=text)
        tp.add_argument("id", help="the task id (from tasks list)")
        add_user(tp, "whose task it is (another user's id is not found)")
        tp.add_argument("--note", default=None, help="a note kept in the task's step history")
        add_json(tp, "print the task as JSON")
        tp.set_defaults(func=func)
