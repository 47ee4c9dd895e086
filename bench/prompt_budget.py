"""Prompt tokens per turn: the agent's budgeted prompt against sending the full history, same turns, same run.

200 scripted turns across one day in one session (a fact or a question every ~5 minutes, English and Chinese),
through the real graph on the configured (or embedded) Redis and PostgreSQL, Qdrant in memory, the real e5
embedder, and the scripted model at the model boundary. Per turn: the agent's respond prompt as sent, the agent's
prompt tokens over all of its calls (respond, extraction, verification, archive summaries), and the baseline
prompt (system prompt + every earlier message + the new one). Tokens are o200k_base counts.
"""

from __future__ import annotations

import argparse
import random
import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from qdrant_client import QdrantClient

import prompts
from bench.stats import percentile
from graph.api import run_turn
from graph.deps import Deps
from graph.resources import Resources
from graph.settings import get_settings
from graph.testing import ScriptedModels
from memory.tokens import count_chat

PLACES = ["Hangzhou", "Shanghai", "the office", "the gym", "Lujiazui", "West Lake", "the airport"]
PEOPLE = ["Wang", "Li", "Zhang", "Mei", "the manager", "the landlord", "Dr. Chen"]
ZH_PLACES = ["杭州", "上海", "公司", "健身房", "陆家嘴", "西湖", "机场"]
ZH_PEOPLE = ["王总", "李总", "张经理", "小美", "房东", "陈医生"]


def script(n: int, seed: int = 7) -> list[str]:
    """``n`` user messages: facts and questions, about half of them Chinese."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        zh = rng.random() < 0.5
        kind = rng.random()
        if zh:
            place, who = rng.choice(ZH_PLACES), rng.choice(ZH_PEOPLE)
            if kind < 0.6:
                out.append(rng.choice([
                    f"我今天在{place}见了{who}，讨论了第{i}版方案的预算和时间表。",
                    f"记一下：{who}说下周三之前要把{place}项目的报告发给他。",
                    f"我中午在{place}附近吃了牛肉面，味道不错，下次还想去。",
                ]))
            else:
                out.append(rng.choice([f"我上次和{who}聊了什么？", f"{place}那个项目进展到哪一步了？",
                                       "我今天都做了些什么？"]))
        else:
            place, who = rng.choice(PLACES), rng.choice(PEOPLE)
            if kind < 0.6:
                out.append(rng.choice([
                    f"I met {who} at {place} today and we went through draft {i} of the budget and timeline.",
                    f"Note: {who} wants the {place} report before next Wednesday, with the cost breakdown.",
                    f"I had noodles near {place} for lunch, they were good and I want to go back.",
                ]))
            else:
                out.append(rng.choice([f"What did I talk about with {who} last time?",
                                       f"Where is the {place} project at?", "What have I done today?"]))
    return out


def clean_up(resources: Resources, key_prefix: str, user: str) -> None:
    """Remove what a scripted-turn benchmark left in Redis (its key prefix) and PostgreSQL (its user), then close."""
    r = resources.redis
    keys = list(r.scan_iter(match=f"{key_prefix}:*", count=1000))
    if keys:
        r.delete(*keys)
    with resources.pool.connection() as conn:
        for table in ("palace_usage", "palace_tasks", "palace_outbox"):
            conn.execute(f"DELETE FROM {table} WHERE user_id = %s", (user,))
    resources.close()


def run(turns: int = 200) -> dict[str, Any]:
    settings = get_settings(key_prefix=f"bench{uuid.uuid4().hex[:8]}", timezone="Asia/Shanghai")
    client = QdrantClient(":memory:")
    resources = Resources(settings, _qdrant=client)
    models = ScriptedModels()
    deps = Deps(settings, resources=resources, models=models)
    tz = ZoneInfo(settings.timezone)
    start = datetime(2026, 9, 14, 8, 0, tzinfo=tz)
    step = timedelta(hours=14) / turns
    base_system = prompts.render("respond_system", {"now": "2026-09-14 08:00 (Monday)", "timezone": str(tz),
                                                    "time_hint": "", "memories": "(none)", "tasks": "(none)"})
    history: list[str] = []
    agent, agent_all, full = [], [], []
    session = "day"
    try:
        for i, message in enumerate(script(turns)):
            before = len(models.model.calls)
            result = run_turn(deps, "bench-user", session, message, at=(start + step * i).isoformat())
            calls = models.model.calls[before:]
            respond = [c for c in calls if "create_task" in c["tools"]]
            agent.append(respond[-1]["prompt_tokens"])
            agent_all.append(sum(c["prompt_tokens"] for c in calls))
            full.append(count_chat([base_system, *history, message]))
            history += [message, result.answer]
    finally:
        clean_up(resources, settings.key_prefix, "bench-user")
        client.close()

    def summary(values: list[int]) -> dict[str, int]:
        return {"p50": round(percentile(values, 50)), "p95": round(percentile(values, 95)), "max": max(values),
                "total": sum(values)}

    out: dict[str, Any] = {"agent": summary(agent), "full_history": summary(full),
                           "agent_all_calls": summary(agent_all), "turns": turns,
                           "budget": settings.prompt_token_budget}
    out["saving_pct"] = round(100 * (1 - out["agent"]["total"] / out["full_history"]["total"]), 1)
    out["saving_all_calls_pct"] = round(100 * (1 - out["agent_all_calls"]["total"] / out["full_history"]["total"]), 1)
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=int, default=200, help="scripted turns (default 200)")


def main(args: argparse.Namespace) -> dict[str, Any]:
    return run(args.turns)


def report(r: dict[str, Any]) -> str:
    rows = [f"prompt tokens per turn over {r['turns']} scripted turns (budget {r['budget']}):",
            f"{'':<18}{'p50':>8}{'p95':>8}{'max':>8}{'total':>10}"]
    for name in ("agent", "agent_all_calls", "full_history"):
        s = r[name]
        rows.append(f"{name:<18}{s['p50']:>8}{s['p95']:>8}{s['max']:>8}{s['total']:>10}")
    rows.append(f"saving: {r['saving_pct']}% of prompt tokens (respond prompt), {r['saving_all_calls_pct']}% "
                f"counting every agent call")
    return "\n".join(rows)
