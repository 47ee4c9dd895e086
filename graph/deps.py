"""What the graph's nodes need: settings, the stores and the models, opened on first use.

``Deps()`` with no arguments reads the settings only when a node first runs, so importing the server module opens
nothing and needs no key (STYLE.md rule 3). The CLI and tests pass their own settings, stores and models.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from graph.settings import Settings, get_settings
from memory.language.gates import GateConfig, gates_for
from memory.language.links import LinkConfig, links_for
from memory.ranking import RankingConfig

if TYPE_CHECKING:  # the stores and models load on first use: a CLI command imports only what it touches

    from graph.models import ModelProvider
    from graph.resources import Resources
    from memory.embeddings import Embedder
    from memory.events import MemoryEvents
    from memory.long_term import LongTermMemory
    from memory.outbox import Outbox
    from memory.postgres import TaskStore, UsageLedger
    from memory.short_term import ShortTermMemory

T = TypeVar("T")


class Deps:
    def __init__(self, settings: Settings | None = None, *, resources: Resources | None = None,
                 models: ModelProvider | None = None) -> None:
        self._settings = settings
        self._resources = resources
        self._models = models
        self._lock = threading.RLock()  # the server runs sync nodes in threads
        self._memo: dict[str, Any] = {}
        # palace serve sets this (graph.priority.install): a thread about to run a turn's work lowers its priority
        self.on_turn_thread: Callable[[], None] | None = None

    @property
    def settings(self) -> Settings:
        with self._lock:
            if self._settings is None:
                self._settings = self._resources.settings if self._resources else get_settings()
            return self._settings

    @property
    def resources(self) -> Resources:
        with self._lock:
            if self._resources is None:
                from graph.resources import Resources

                self._resources = Resources(self.settings)
            return self._resources

    @property
    def models(self) -> ModelProvider:
        with self._lock:
            if self._models is None:
                from graph.models import OpenAIModels

                self._models = OpenAIModels(self.settings)
            return self._models

    def short_term(self) -> ShortTermMemory:
        with self._lock:
            return self.resources.short_term()

    def long_term(self) -> LongTermMemory:
        with self._lock:
            return self.resources.long_term()

    @property
    def embeddings(self) -> Embedder:
        with self._lock:
            return self.resources.embeddings

    def tasks(self) -> TaskStore:
        with self._lock:
            return self.resources.tasks()

    def ledger(self) -> UsageLedger:
        with self._lock:
            return self.resources.ledger()

    def outbox(self) -> Outbox:
        with self._lock:
            return self.resources.outbox()

    def events(self) -> MemoryEvents:
        with self._lock:
            return self.resources.events()

    def gates(self) -> GateConfig:
        """The verdict gates calibrated for the embedder in use."""
        s = self.settings
        base = gates_for(s.embedding_model or "e5")
        return GateConfig(duplicate_cosine=s.gate_duplicate_cosine or base.duplicate_cosine,
                          topic_cosine=s.gate_topic_cosine or base.topic_cosine,
                          slot_cosine=s.gate_slot_cosine or base.slot_cosine)

    def links(self) -> LinkConfig:
        """The link thresholds calibrated for the embedder in use (memory/language/links.py)."""
        return links_for(self.settings.embedding_model or "e5")

    def ranking(self) -> RankingConfig:
        s = self.settings
        return RankingConfig(half_life_days=s.decay_half_life_days, stale_after_days=s.stale_after_days,
                             stale_factor=s.stale_factor, ref_boost_max=s.ref_boost_max,
                             ref_boost_half_refs=s.ref_boost_half_refs, decay_floor=s.decay_floor,
                             dense_weight=s.dense_weight, lexical_power=s.lexical_power,
                             context_weight=s.context_weight,
                             context_window_ms=int(s.context_window_s * 1000),
                             present_lexical_share=s.present_lexical_share,
                             present_cosine_margin=s.present_cosine_margin, present_cosine_tie=s.present_cosine_tie,
                             link_cosine_margin=s.link_cosine_margin, link_named_margin=s.link_named_margin)

    def enter_turn_thread(self) -> None:
        """Called by a thread before it runs a turn's work (a node, a prefetch): ``on_turn_thread``, if set."""
        hook = self.on_turn_thread
        if hook is not None:
            hook()

    def memo(self, name: str, factory: Callable[[], T]) -> T:
        """``factory()`` once per ``Deps`` (e.g. the compiled graph: building its tool schemas takes ~0.2 s)."""
        with self._lock:
            if name not in self._memo:
                self._memo[name] = factory()
            value: T = self._memo[name]
            return value

    def close(self) -> None:
        with self._lock:
            if self._resources is not None:
                self._resources.close()


class _ProcessDeps:
    """Holder of :func:`process_deps`' one instance."""

    lock = threading.Lock()
    deps: Deps | None = None


def process_deps() -> Deps:
    """The server process's one :class:`Deps`, shared by every entry ``langgraph.json`` names: the graph, the store
    and the HTTP app. The LangGraph server loads each from its file path, under a module name of its own (the
    graph's and the store's file is run twice), so a module-level ``Deps()`` would open a second (and third) set of
    Redis clients, PostgreSQL pools and embedders in the same process. ``graph.deps`` itself is imported normally,
    once: its instance is the process's. Opens nothing until first used, like ``Deps()``."""
    with _ProcessDeps.lock:
        if _ProcessDeps.deps is None:
            _ProcessDeps.deps = Deps()
        return _ProcessDeps.deps
