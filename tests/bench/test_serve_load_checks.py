"""bench serve-load's check of what a user said against what was stored (pure logic; the runs are in tests/e2e)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from bench.serve_load import _kept, _statement


@given(st.integers(0, 15), st.integers(0, 11), st.integers(0, 10_000),
       st.sampled_from(["The user's {rest}.", "User's {rest}", "{rest}"]))
def test_a_statement_is_kept_as_said_or_reworded_with_its_values(i: int, k: int, seed: int, shape: str) -> None:
    """The bundled model's extraction rewords "My locker code z0x1 is 6340" ("The user's locker code z0x1 is
    6340."): the fact is kept when a memory holds its code's name and its number; a memory with another number,
    or another code's, does not keep it (the first bundled-model run counted 63 reworded facts as lost)."""
    said = _statement(i, k, random.Random(seed))
    rest = said.removeprefix("My ")
    assert _kept(said, [said])
    assert _kept(said, ["I drink tea.", shape.format(rest=rest)])
    number = said.rsplit(" ", 1)[1]
    wrong = str(int(number) + 1) if number != "9999" else "1000"
    assert not _kept(said, [shape.format(rest=rest.replace(number, wrong))])
    assert not _kept(said, [shape.format(rest=rest.replace(f"z{i}x{k}", f"z{i}x{k + 1}"))])
    assert not _kept(said, [])
    assert _kept(said, [shape.format(rest=rest.replace(number, f"{number[0]},{number[1:]}"))])  # "5,430"
