"""What the CLI prints for a person, from the JSON shapes of the memory operations (``doors.door``): a command run
in process and the same command through a running ``palace serve`` (``doors.client``) hand the same JSON to the
same function here, so they print the same bytes. Times are in the user's zone (PALACE_TIMEZONE).

Standard library only: the CLI's client mode imports this and httpx, nothing of the agent stack.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, tzinfo
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from doors.cli.io import dumps
from memory.errors import ConfigurationError

JSON = Mapping[str, Any]


def user_timezone() -> tzinfo:
    """PALACE_TIMEZONE (default UTC), read as the settings read it, for the client mode (which loads no
    settings)."""
    name = os.environ.get("PALACE_TIMEZONE") or "UTC"
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigurationError(f"invalid setting PALACE_TIMEZONE: unknown time zone {name!r}") from None


def count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def when(ms: int | None, tz: tzinfo) -> str:
    """A time in milliseconds since the epoch, as the CLI shows it: ``2026-12-04 21:39`` in ``tz``."""
    return "" if ms is None else datetime.fromtimestamp(ms / 1000, tz).strftime("%Y-%m-%d %H:%M")


def when_iso(text: str | None, tz: tzinfo) -> str:
    """An ISO 8601 time (the JSON of the history and task events) as :func:`when` shows it."""
    return "" if not text else datetime.fromisoformat(text).astimezone(tz).strftime("%Y-%m-%d %H:%M")


def happened(r: JSON, tz: tzinfo) -> str:
    """When a recalled memory happened, and when it was told if that was another day: "I sold the Civic last week
    and bought a Tesla", told today, happened a week ago, yet follows "I drive a Civic" told this morning (what
    follows what is the order of telling)."""
    told = when(r["timestamp"], tz)
    if not r.get("event_time"):
        return told
    at = when(r["event_time"], tz)
    return at if at[:10] == told[:10] else f"{at[:10]}, told {told}"


def memory_row(m: JSON, tz: tzinfo) -> str:
    """One memory: its id, when it was told, its marks (important; disputed, superseded, or followed by a newer
    memory about its subject that did not supersede it), its text."""
    status = {"active": "~" if m.get("followed_by") else " ", "disputed": "?"}.get(m["status"], "-")
    flags = ("*" if m["decay_weight"] > 1 else " ") + status
    return f"{m['id'][:8]}  {when(m['timestamp'], tz)}  {flags}  {m['text']}"


def memory_list(listed: Sequence[JSON], user: str, status: str, tz: tzinfo) -> list[str]:
    """``palace memories list``."""
    legend = "* important, ? disputed, - superseded, ~ a newer memory follows it"
    return [*(memory_row(m, tz) for m in listed),
            f"{count(len(listed), 'memory', 'memories')} of {user} ({status}; {legend})"]


def search_lines(found: Sequence[JSON], tz: tzinfo) -> list[str]:
    """``palace memories search``: rank, score, when it happened, the text, its id, and its place among memories
    about one subject."""
    lines = []
    for i, r in enumerate(found, 1):
        held = f"  [{r['chain']}]" if r.get("chain") else ""
        lines.append(f"{i}. {r['score']:.3f}  [{happened(r, tz)}] {r['text']}  "
                     f"({r['id']}){held}")
    return lines or ["no memories found"]


def memory_lines(memory: JSON, tz: tzinfo) -> list[str]:
    """``palace memories show``: one field a line, then the memories about the same subject, oldest first."""
    lines = []
    for key, value in memory.items():
        if key == "chain":
            continue
        if key in ("timestamp", "event_time", "last_accessed", "invalid_at") and value is not None:
            value = f"{when(value, tz)} ({value})"
        lines.append(f"{key:>15}: {value}")
    chain = memory.get("chain") or []
    if chain:
        lines.append(f"{'same subject':>15}: (oldest first; the newest holds now)")
    for other in chain:
        lines.append(f"{'':>15}  {other['relation']:<7} {other['id'][:8]}  {when(other['timestamp'], tz)}  "
                     f"{other['status']:<10} {other['text']}")
    return lines


def history_lines(events: Sequence[JSON], tz: tzinfo) -> list[str]:
    """``palace memories history``: every change, with the verifier's decision and reason."""
    lines = []
    for e in events:
        related = e.get("related_id")
        other = f" ({'by' if e['event'] == 'superseded' else 'into' if e['event'] == 'merged' else 'with'} " \
                f"{related[:8]})" if related else ""
        reason = e.get("reason") or ""
        # the verifier's decision leads, unless a rule decided (its reason names the verifier after the rule:
        # nodes/write.py) or the verifier was not asked
        decided = e.get("decision") not in (None, "", "none") and "; the verifier said " not in reason
        verdict = f" verifier: {e['decision']};" if decided else ""
        why = f"{verdict} {reason}".strip()
        lines.append(f"{when_iso(e.get('at'), tz)}  {e['memory_id'][:8]}  {e['event']:<10}{other} {e['text']!r}"
                     + (f"  [{why}]" if why else ""))
    return lines or ["no recorded changes (the memory predates the history)"]


def disputed_lines(found: Sequence[JSON], user: str) -> list[str]:
    """``palace memories review``: each disputed memory with the one it contradicts, and how to decide."""
    lines = []
    for d in found:
        lines.append(f"{d['id'][:8]}  {d['text']}")
        other = d.get("conflicts_with_text")
        lines.append(f"    contradicts {str(d.get('conflicts_with'))[:8]}: {other}" if other is not None
                     else "    (could not be checked)")
    lines.append(f"{len(found)} disputed; decide with: palace memories review --user {user} --accept ID (keep it, "
                 "retire the other) | --reject ID (forget it) | --both ID (keep both)")
    return lines


def forgot_line(gone: JSON, asked: int, user: str) -> str:
    """``palace memories forget ID...``, when some were forgotten."""
    return (f"forgot {gone['memories']} of {count(asked, 'memory', 'memories')} of {user}, {gone['derived']} derived "
            f"from the same messages, "
            f"{count(gone['short_term_entries'], 'short-term entry', 'short-term entries')}")


def forgot_all_line(everything: JSON) -> str:
    """``palace memories forget --all``."""
    return f"forgot everything of {everything['user_id']}: " + ", ".join(
        f"{k.replace('_', ' ')} {v}" for k, v in everything.items() if k != "user_id")


def restored_line(done: JSON) -> str:
    return f"restored {done['id'][:8]} (was {done['was']}): {done['text']}"


def task_row(t: JSON) -> str:
    return f"{t['id'][:8]}  {t['title']}: {t['progress']}"  # the short id: any 4+ leading characters name the task


def task_list(tasks: Sequence[JSON], user: str) -> list[str]:
    """``palace tasks list``."""
    return [*(task_row(t) for t in tasks), f"{count(len(tasks), 'task', 'tasks')} of {user}"]


def task_lines(task: JSON, tz: tzinfo) -> list[str]:
    """``palace tasks show``: the task, its steps, and the steps done as progress says them."""
    lines = [task_row(task)]
    steps = task["steps"]
    for i, step in enumerate(steps, 1):
        lines.append(f"  [{'x' if i <= task['current_step'] else ' '}] {i}. {step}")
    for e in task.get("history") or []:  # "0 -> 1 of 2 steps done", not "step 0"
        done = f"{e['to_step']} of {len(steps)} steps done" if e.get("from_step") is None else \
            f"{e['from_step']} -> {e['to_step']} of {len(steps)} steps done"
        lines.append(f"  {when_iso(e['at'], tz)}  {e['event']}: {done}" + (f"  ({e['note']})" if e.get("note") else ""))
    return lines


def _money(value: float | str | Decimal) -> Decimal:
    """A cost from the JSON as the decimal it was (a float's shortest text, so 0.00005 rounds as 0.00005)."""
    return value if isinstance(value, Decimal) else Decimal(repr(value) if isinstance(value, float) else value)


def saving_text(saving: float) -> str:
    if saving >= 0:
        return f"{saving}% fewer"
    return (f"{-saving}% more: the memory work (extraction, verification, summaries) costs more than the history "
            "it replaces while sessions are short; the saving comes as a session grows")


def usage_lines(report: JSON) -> list[str]:
    """``palace usage``: one row per day, session, node or model, then the saving against sending the full session
    history to each answer."""
    lines = [f"{report['by']:<20}{'calls':>7}{'prompt':>11}{'completion':>12}{'cost $':>12}{'full-history prompt':>21}"]
    for r in report["rows"]:
        lines.append(f"{r['key'][:20]:<20}{r['calls']:>7}{r['prompt_tokens']:>11,}{r['completion_tokens']:>12,}"
                     f"{_money(r['cost_usd']):>12.4f}{r['baseline_prompt_tokens']:>21,}")
    ours, full, saving = report["prompt_tokens"], report["full_history_prompt_tokens"], report["saving_pct"]
    if not report["rows"]:
        lines.append("(no model calls recorded)")
    elif full and saving is not None:
        lines.append(f"\nprompt tokens: {ours:,} (every call) against {full:,} sending the full session history to "
                     f"each answer: {saving_text(saving)}; cost ${_money(report['cost_usd']):.4f} against "
                     f"${_money(report['full_history_cost_usd']):.4f}")
    return lines


def show(args: argparse.Namespace, value: Any, lines: Callable[[], list[str]]) -> None:
    """A command's result: its JSON shape with --json, else the presenter's lines (the same in both CLI modes)."""
    print(dumps(value) if getattr(args, "json", False) else "\n".join(lines()))


def turn_changes(state: dict[str, Any]) -> list[str]:
    """What a turn did to memory, one line each: stored, merged, superseded, disputed (with the gates' notes)."""
    lines = []
    for v in state.get("verdicts") or []:
        text, short = v["candidate"]["text"], v["memory_id"][:8]
        target = (v.get("target") or "")[:8]
        note = ("" if not v.get("note") else f"  (verifier said {v['said']}: {v['note']})" if v.get("said")
                else f"  ({v['note']})")
        if v["decision"] == "duplicate":
            lines.append(f"merged {short} into {target} {v['target_text']!r}: {text!r}{note}")
        elif v["decision"] == "update":
            lines.append(f"stored {short} {text!r}; superseded {target} {v['target_text']!r}{note}")
        elif v["decision"] in ("conflict", "unverified"):
            other = f" (contradicts {target} {v['target_text']!r})" if v.get("target_text") else ""
            lines.append(f"disputed {short} {text!r}{other}: asks you to confirm{note}")
        else:
            lines.append(f"stored {short} {text!r}{note}")
    return lines


def confirmation_lines(confirmations: list[dict[str, object]]) -> list[str]:
    said = {"accepted": "kept {new!r} and retired {old!r}", "rejected": "forgot {new!r}, kept {old!r}",
            "kept both": "kept both {new!r} and {old!r}", "gone": "{new!r} was already reviewed or forgotten"}
    out = []
    for c in confirmations:
        pattern = said.get(str(c.get("outcome")), "{new!r}: {outcome}")
        if c.get("other") is None:
            pattern = pattern.replace(" and retired {old!r}", "").replace(", kept {old!r}", "").replace(
                " and {old!r}", "")
        out.append(pattern.format(new=c.get("text"), old=c.get("other"), outcome=c.get("outcome")))
    return out


def print_turn(state: dict[str, Any], args: argparse.Namespace, tz: tzinfo) -> None:
    """A turn for the user, from its JSON shape (:func:`turn_json`): the same output whether the turn ran here or
    in a running server."""
    if args.json:
        print(dumps({**state, "answer": ""} if args.resume is not None else state))
        return
    if args.resume is not None:  # the answer of the turn was printed then; now say what the confirmation did
        for line in confirmation_lines(state.get("confirmations") or []):
            print(line)
    elif not getattr(args, "answer_printed", False):  # streamed already, as it was generated
        print(state["answer"])
    if args.explain and args.resume is None:
        window = state.get("time_window")
        head = f"recalled memories (about {window['phrase']}: {window['start']} to {window['end']}, no decay " \
               f"inside):" if window else "recalled memories:"
        print(f"\n{head}")
        for n, r in enumerate(state.get("recalled") or [], 1):
            at = happened(r, tz)
            lexical = "-" if r.get("lexical") is None else f"{r['lexical']:.2f}"
            product = r["relevance"] * r["decay"] * r["weight"] * r["boost"]
            # a follower ranks right above the memory it follows (and, asked what came before a thing, the memory
            # the naming one follows right above it): its score is lifted to just above that one's
            lifted = ", lifted above a memory it is linked to" if r["score"] > product * 1.0005 + 1e-9 else ""
            # the prompt marks it so too: an older word on a subject a recalled newer one follows
            lifted += ", earlier: a newer memory follows it" if r.get("chain") == "earlier" else ""
            print(f"  {n}. score {r['score']:.3f} = relevance {r['relevance']:.3f} (cosine {r['cosine']:.3f}, "
                  f"bm25 {lexical}) x decay {r['decay']:.3f} x weight {r['weight']:.1f} x boost {r['boost']:.2f}"
                  f"{lifted}  [{at}] {r['text']}")
        if not state.get("recalled"):
            print("  (none)")
        if state.get("answer_changes"):  # what the answer check did to a small model's answer
            print("\nanswer checked:")
            for line in state["answer_changes"]:
                print(f"  {line}")
        changes = turn_changes(state)
        print("\nmemory changes:" if changes else "\nmemory changes: none")
        for line in changes:
            print(f"  {line}")
    for i in state.get("interrupts") or []:
        print(f"\nconfirm: {i.get('question', i)}", file=sys.stderr)
        answers = "|".join(i.get("answers") or ["yes", "no", "both"])
        print(f"  answer with: palace chat --user {state['user_id']} --session {state['session_id']} --resume "
              f"{answers}", file=sys.stderr)


def print_checks(checks: list[dict[str, Any]], as_json: bool, server: str | None = None) -> int:
    """``palace doctor``'s output from the checks' JSON shape, run here or by the running ``server``; the exit code:
    3 when a check failed."""
    if as_json:
        print(dumps(checks))
    else:
        for c in checks:
            state = "ok  " if c["ok"] else "FAIL"
            print(f"{state} {c['name']:<11} {c['where'] or '-'}: {c['detail']} ({c['ms']:.0f} ms)")
        if server:
            print(f"(checked by the palace server at {server}, on the stores and models it has open)")
    return 0 if all(c["ok"] for c in checks) else 3
