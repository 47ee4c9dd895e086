"""The respond prompt's token budget: what to drop when the turn does not fit (pure logic, no I/O).

Order, from the agent issue: the short-term window goes first (oldest entries first), then memories (lowest
ranked first). The system prompt and the user's message are never dropped; if they alone exceed the budget the
plan keeps nothing else and says it is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class BudgetPlan:
    window_kept: int  # the newest this-many window entries stay
    memories_kept: int  # the top this-many memories stay
    tokens: int  # prompt tokens of the plan
    budget: int

    @property
    def over(self) -> bool:
        return self.tokens > self.budget


def fit_budget(fixed: int, window: Sequence[int], memories: Sequence[int], budget: int, *,
               window_budget: int | None = None) -> BudgetPlan:
    """Keep as much as fits in ``budget``: token counts of the fixed part, window entries (oldest first) and
    memories (best first). Window entries are dropped oldest first, then memories lowest ranked first.
    ``window_budget`` caps the window on its own (older context reaches the prompt as memories)."""
    if budget <= 0:
        raise ValueError(f"budget must be > 0, got {budget}")
    if any(t < 0 for t in (fixed, *window, *memories)):
        raise ValueError("token counts cannot be negative")
    mem_total = sum(memories)
    room = budget - fixed - mem_total
    window_room = room if window_budget is None else min(room, window_budget)
    kept = 0
    used = 0
    for tokens in reversed(window):  # newest first
        if used + tokens > window_room:
            break
        used += tokens
        kept += 1
    if room >= 0:
        return BudgetPlan(kept, len(memories), fixed + mem_total + used, budget)
    # The window is gone entirely (room < 0): now drop memories from the bottom.
    total = fixed
    kept_mem = 0
    for tokens in memories:
        if total + tokens > budget:
            break
        total += tokens
        kept_mem += 1
    return BudgetPlan(0, kept_mem, total, budget)
