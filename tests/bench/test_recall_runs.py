"""bench recall --save keeps a history of runs (the goals must hold run after run) and the figures before issue
26; the report shows both."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

import bench.recall as recall_bench
import bench.report as report


def _result(search_p95: float, total_p95: float) -> dict[str, Any]:
    figures = {"search_p50_ms": 5.0, "search_p95_ms": search_p95, "search_p99_ms": search_p95 + 1,
               "embed_p50_ms": 20.0, "total_p50_ms": 25.0, "total_p95_ms": total_p95, "total_p99_ms": total_p95 + 2,
               "queries": 200, "stages": {}}
    return {"default": "edge", "engines": {"edge": {"10000": figures}}, "search_top_k": 50}


def test_saved_runs_accumulate_and_keep_the_before_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    (tmp_path / "recall.json").write_text(json.dumps({**_result(22.6, 48.3), "before": {"commit": "5bb9588"}}))
    figures = iter([_result(8.7, 32.4), _result(14.2, 43.2), _result(25.0, 61.0), _result(9.0, 30.0)])
    monkeypatch.setattr(recall_bench, "run", lambda *a, **k: next(figures))
    parser = argparse.ArgumentParser()
    recall_bench.add_arguments(parser)
    for _ in range(3):
        recall_bench.main(parser.parse_args(["--save"]))
    saved = json.loads((tmp_path / "recall.json").read_text())
    assert saved["before"] == {"commit": "5bb9588"}
    assert [run["sizes"]["edge 10000"]["search_p95_ms"] for run in saved["runs"]] == [8.7, 14.2, 25.0]
    assert all(run["commit"] and run["at"] and len(run["load"]) == 2 for run in saved["runs"])
    recall_bench.main(parser.parse_args([]))  # not saved: nothing changes
    assert json.loads((tmp_path / "recall.json").read_text())["runs"] == saved["runs"]


def test_the_history_is_bounded() -> None:
    runs = [{"sizes": {}, "commit": str(i), "at": None, "load": None} for i in range(recall_bench.RUNS_KEPT + 3)]
    assert len([*runs, recall_bench.headline(_result(1, 2))][-recall_bench.RUNS_KEPT:]) == recall_bench.RUNS_KEPT
