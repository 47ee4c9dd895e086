"""PostgreSQL schema and SQL shared by the task-state and token-ledger front ends.

Migrations are an append-only numbered list (never edit or reorder an entry: add a new one); ``setup()`` applies
those above the version recorded in ``palace_migrations``, under an advisory lock so two processes can run it.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 0: the version table itself
    """CREATE TABLE IF NOT EXISTS palace_migrations (
        v integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())""",
    # 1: structured task state ("expense approval is at step 2 of 4")
    """
    CREATE TABLE IF NOT EXISTS palace_tasks (
        id uuid PRIMARY KEY,
        user_id text NOT NULL,
        session_id text NOT NULL,
        title text NOT NULL,
        steps jsonb NOT NULL,
        current_step integer NOT NULL DEFAULT 0,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'cancelled')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (current_step >= 0 AND current_step <= jsonb_array_length(steps))
    );
    CREATE INDEX IF NOT EXISTS palace_tasks_user_status ON palace_tasks (user_id, status, updated_at DESC);
    CREATE INDEX IF NOT EXISTS palace_tasks_user_session ON palace_tasks (user_id, session_id);
    """,
    # 2: the history of every step change
    """
    CREATE TABLE IF NOT EXISTS palace_task_events (
        id bigserial PRIMARY KEY,
        task_id uuid NOT NULL REFERENCES palace_tasks (id) ON DELETE CASCADE,
        event text NOT NULL,
        from_step integer,
        to_step integer,
        note text,
        at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS palace_task_events_task ON palace_task_events (task_id, id);
    """,
    # 3: the token ledger
    """
    CREATE TABLE IF NOT EXISTS palace_usage (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        user_id text NOT NULL,
        session_id text NOT NULL,
        node text NOT NULL,
        model text NOT NULL,
        prompt_tokens integer NOT NULL CHECK (prompt_tokens >= 0),
        completion_tokens integer NOT NULL CHECK (completion_tokens >= 0),
        cost_usd numeric(14, 8) NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS palace_usage_user_at ON palace_usage (user_id, at);
    """,
    # 4: the outbox of long-term writes that could not reach Qdrant (flushed, in order, when it is back)
    """
    CREATE TABLE IF NOT EXISTS palace_outbox (
        id bigserial PRIMARY KEY,
        user_id text NOT NULL,
        session_id text NOT NULL,
        ops jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0,
        last_error text
    );
    CREATE INDEX IF NOT EXISTS palace_outbox_user ON palace_outbox (user_id, id);
    """,
    # 5: what each respond call would have sent with the full session history (the saving palace usage shows)
    """
    ALTER TABLE palace_usage ADD COLUMN IF NOT EXISTS baseline_prompt_tokens integer NOT NULL DEFAULT 0
        CHECK (baseline_prompt_tokens >= 0);
    ALTER TABLE palace_usage ADD COLUMN IF NOT EXISTS baseline_cost_usd numeric(14, 8) NOT NULL DEFAULT 0;
    """,
    # 6: every change to a memory (created, merged, superseded, disputed, accepted, ...), with the verdict and why
    """
    CREATE TABLE IF NOT EXISTS palace_memory_events (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        user_id text NOT NULL,
        memory_id text NOT NULL,
        event text NOT NULL,
        text text NOT NULL DEFAULT '',
        related_id text,
        decision text,
        reason text NOT NULL DEFAULT '',
        origin text NOT NULL DEFAULT ''
    );
    CREATE INDEX IF NOT EXISTS palace_memory_events_memory ON palace_memory_events (user_id, memory_id, id);
    CREATE INDEX IF NOT EXISTS palace_memory_events_related ON palace_memory_events (user_id, related_id);
    """,
]

MIGRATION_LOCK_ID = 0x70616C616365  # "palace"

SELECT_VERSION = "SELECT coalesce(max(v), -1) FROM palace_migrations"
RECORD_VERSION = "INSERT INTO palace_migrations (v) VALUES (%s) ON CONFLICT DO NOTHING"

TASK_COLUMNS = "id, user_id, session_id, title, steps, current_step, status, created_at, updated_at"
INSERT_TASK = f"""
INSERT INTO palace_tasks (id, user_id, session_id, title, steps) VALUES (%s, %s, %s, %s, %s)
RETURNING {TASK_COLUMNS}"""
SELECT_TASK = f"SELECT {TASK_COLUMNS} FROM palace_tasks WHERE id = %s AND user_id = %s"
SELECT_TASK_FOR_UPDATE = SELECT_TASK + " FOR UPDATE"
# the ids of a user's tasks that start with a prefix (short ids, as `palace tasks list` prints them)
SELECT_TASK_IDS_LIKE = "SELECT id FROM palace_tasks WHERE user_id = %s AND id::text LIKE %s ORDER BY id LIMIT 6"
UPDATE_TASK = f"""
UPDATE palace_tasks SET current_step = %s, status = %s, updated_at = now() WHERE id = %s AND user_id = %s
RETURNING {TASK_COLUMNS}"""
INSERT_EVENT = "INSERT INTO palace_task_events (task_id, event, from_step, to_step, note) VALUES (%s, %s, %s, %s, %s)"
SELECT_EVENTS = "SELECT event, from_step, to_step, note, at FROM palace_task_events WHERE task_id = %s ORDER BY id"
DELETE_USER_TASKS = "DELETE FROM palace_tasks WHERE user_id = %s"

INSERT_USAGE = """
INSERT INTO palace_usage (user_id, session_id, node, model, prompt_tokens, completion_tokens, cost_usd,
                          baseline_prompt_tokens, baseline_cost_usd)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"""
USAGE_GROUPS = {
    "day": "to_char(date_trunc('day', at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')",
    "session": "session_id",
    "node": "node",
    "model": "model",
}
DELETE_USER_USAGE = "DELETE FROM palace_usage WHERE user_id = %s"

INSERT_OUTBOX = "INSERT INTO palace_outbox (user_id, session_id, ops) VALUES (%s, %s, %s) RETURNING id"
SELECT_OUTBOX = "SELECT id, user_id, ops FROM palace_outbox {where} ORDER BY id LIMIT %s"
OUTBOX_MAX_ATTEMPTS = 5  # a row that fails for another reason than Qdrant being down is kept, not retried forever
LOCK_OUTBOX_ROW = "SELECT id FROM palace_outbox WHERE id = %s FOR UPDATE SKIP LOCKED"
DELETE_OUTBOX_ROW = "DELETE FROM palace_outbox WHERE id = %s"
FAIL_OUTBOX_ROW = "UPDATE palace_outbox SET attempts = attempts + 1, last_error = %s WHERE id = %s"
COUNT_OUTBOX = "SELECT count(*) FROM palace_outbox {where}"
DELETE_USER_OUTBOX = "DELETE FROM palace_outbox WHERE user_id = %s"

EVENT_COLUMNS = "at, user_id, memory_id, event, text, related_id, decision, reason, origin"
INSERT_MEMORY_EVENT = """
INSERT INTO palace_memory_events (at, user_id, memory_id, event, text, related_id, decision, reason, origin)
VALUES (coalesce(%s, now()), %s, %s, %s, %s, %s, %s, %s, %s)"""
SELECT_MEMORY_EVENTS = f"""
SELECT {EVENT_COLUMNS} FROM palace_memory_events
WHERE user_id = %s AND (memory_id = %s OR related_id = %s) ORDER BY id"""
SELECT_EVENT_IDS = """
SELECT DISTINCT memory_id FROM palace_memory_events WHERE user_id = %s AND memory_id LIKE %s LIMIT 20"""
DELETE_MEMORY_EVENTS = "DELETE FROM palace_memory_events WHERE user_id = %s AND memory_id = ANY(%s)"
DELETE_USER_MEMORY_EVENTS = "DELETE FROM palace_memory_events WHERE user_id = %s"


def select_tasks(*, session: bool, status: bool) -> str:
    clauses = ["user_id = %s"]
    if session:
        clauses.append("session_id = %s")
    if status:
        clauses.append("status = %s")
    return f"SELECT {TASK_COLUMNS} FROM palace_tasks WHERE {' AND '.join(clauses)} ORDER BY updated_at DESC, id"


def usage_summary_sql(group_by: str, *, user: bool) -> str:
    """Per key and model: calls, tokens and the costs recorded, then the tokens of the calls recorded at no cost
    (before any price applied to them), which a report prices at the prices it knows."""
    key = USAGE_GROUPS[group_by]
    where = "WHERE user_id = %s" if user else ""
    unpriced = "cost_usd = 0"
    unpriced_baseline = "baseline_cost_usd = 0 AND baseline_prompt_tokens > 0"
    return (
        f"SELECT {key} AS k, model, count(*), sum(prompt_tokens), sum(completion_tokens), sum(cost_usd), "
        f"sum(baseline_prompt_tokens), sum(baseline_cost_usd), "
        f"coalesce(sum(prompt_tokens) FILTER (WHERE {unpriced}), 0), "
        f"coalesce(sum(completion_tokens) FILTER (WHERE {unpriced}), 0), "
        f"coalesce(sum(baseline_prompt_tokens) FILTER (WHERE {unpriced_baseline}), 0), "
        f"coalesce(sum(completion_tokens) FILTER (WHERE {unpriced_baseline}), 0) "
        f"FROM palace_usage {where} GROUP BY k, model ORDER BY k, model"
    )
