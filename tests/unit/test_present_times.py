"""What the CLI shows of a recalled memory's time: when it happened, and when it was told if another day."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from doors.present import happened, memory_list, search_lines


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def _hit(text: str, told: str, at: str | None, chain: str = "") -> dict[str, Any]:
    return {"id": text[:4], "text": text, "score": 0.9, "timestamp": _ms(told),
            "event_time": _ms(at) if at else None, "chain": chain}


def test_a_memory_told_today_about_last_week_shows_both() -> None:
    tesla = _hit("I sold the Civic last week and bought a Tesla", "2026-12-05T13:12", "2026-11-28T00:00", "now")
    civic = _hit("I drive a blue Honda Civic", "2026-12-05T09:00", None, "earlier")
    assert happened(tesla, UTC) == "2026-11-28, told 2026-12-05 13:12"
    assert happened(civic, UTC) == "2026-12-05 09:00"
    assert happened(_hit("Lunch at noon", "2026-12-05T13:12", "2026-12-05T12:00"), UTC) == "2026-12-05 12:00"
    lines = search_lines([tesla, civic], UTC)
    assert lines[0].startswith("1. 0.900  [2026-11-28, told 2026-12-05 13:12] I sold the Civic") and "[now]" in lines[0]


def test_explain_says_when_a_score_was_lifted_above_what_it_follows(capsys: Any) -> None:
    import argparse

    from doors.present import print_turn

    def recalled(text: str, score: float, relevance: float, chain: str) -> dict[str, Any]:
        return {**_hit(text, "2026-12-05T13:12", None, chain), "score": score, "relevance": relevance,
                "cosine": 0.85, "lexical": None, "decay": 1.0, "weight": 1.0, "boost": 1.0}

    state = {"answer": "You drive a Tesla.", "recalled": [recalled("Tesla", 0.91, 0.5, "now"),
                                                          recalled("Civic", 0.9, 0.9, "earlier")]}
    print_turn(state, argparse.Namespace(json=False, resume=None, explain=True, answer_printed=True), UTC)
    out = [line for line in capsys.readouterr().out.splitlines() if "score" in line]
    assert "lifted above a memory it is linked to" in out[0] and "lifted" not in out[1]
    # the older of the two says so (a new user's trial read it as a current memory ranked out of order)
    assert "earlier: a newer memory follows it" in out[1] and "earlier" not in out[0]


def test_the_list_marks_a_memory_a_newer_one_follows() -> None:
    """A fifth new user's trial: five memories a newer one followed (not superseded) looked current in `palace
    memories list`. Such a memory is marked "~", and the legend says so."""
    told = _ms("2026-12-05T09:00")
    rows = [{"id": "aaaaaaaa1", "text": "我上个月搬到汉堡了", "timestamp": told, "decay_weight": 1.0,
             "status": "active", "followed_by": ["bbbbbbbb2"]},
            {"id": "bbbbbbbb2", "text": "I moved to Berlin", "timestamp": told, "decay_weight": 2.0, "status": "active",
             "followed_by": []},
            {"id": "cccccccc3", "text": "I live in Graz", "timestamp": told, "decay_weight": 1.0,
             "status": "superseded", "followed_by": ["bbbbbbbb2"]}]
    lines = memory_list(rows, "lena", "all", UTC)
    assert lines[0] == "aaaaaaaa  2026-12-05 09:00   ~  我上个月搬到汉堡了"
    assert lines[1] == "bbbbbbbb  2026-12-05 09:00  *   I moved to Berlin"
    assert lines[2].split()[3] == "-"  # superseded says so, whatever follows it
    assert "~ a newer memory follows it" in lines[-1]
