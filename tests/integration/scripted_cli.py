"""``palace`` as a real process with the scripted model at the model boundary (everything else real).

``python -m tests.integration.scripted_cli ARGS...`` runs ``doors.cli.main.main()`` exactly as the ``palace`` entry
point does. A model call whose prompt contains ``PALACE_TEST_SLOW`` (the environment variable's value) writes
the call's tool names (or ``answer``) to the file named by ``PALACE_TEST_MARK`` and then blocks, so a test can
send SIGINT while the turn is inside that call. ``PALACE_TEST_SUMMARY=empty``: the summariser finds nothing worth
keeping (what a small local model often answers).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import doors.cli.agent
import doors.cli.main


def _models(settings: Any) -> Any:
    from graph.testing import ScriptedBrain, ScriptedModels, tool_call

    brain = ScriptedBrain()
    slow = os.environ.get("PALACE_TEST_SLOW")
    slow_in = os.environ.get("PALACE_TEST_SLOW_IN", "answer")  # answer | Extraction | VerifierVerdict | Summary
    mark = os.environ.get("PALACE_TEST_MARK")

    def respond(messages: Sequence[Any], tools: Sequence[str]) -> Any:
        kind = next((t for t in ("Extraction", "VerifierVerdict", "Summary") if t in tools), "answer")
        if slow and kind == slow_in and slow in messages[-1].text:
            if mark:
                with open(mark, "a") as handle:
                    handle.write(kind + "\n")
            time.sleep(600)
        if kind == "Summary" and os.environ.get("PALACE_TEST_SUMMARY") == "empty":
            return tool_call("Summary", {"memories": []})
        return brain(messages, tools)

    return ScriptedModels(respond)


if __name__ == "__main__":
    doors.cli.agent.make_models = _models
    sys.argv[0] = "palace"
    sys.exit(doors.cli.main.main())
