"""What a command opens of the agent: its settings, stores and models. The model boundary is
:data:`make_models`: tests swap in a scripted model there; everything else stays real."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from zoneinfo import ZoneInfo

from doors import present

if TYPE_CHECKING:
    from graph.deps import Deps
    from graph.models import ModelProvider
    from graph.resources import Resources
    from graph.settings import Settings


def settings(args: argparse.Namespace) -> Settings:
    from graph.settings import get_settings

    overrides: dict[str, object] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    return get_settings(**overrides)


def resources(settings: Settings) -> Resources:
    from graph.resources import Resources

    return Resources(settings)


def deps(settings: Settings, res: Resources, models: ModelProvider | None = None) -> Deps:
    from graph.deps import Deps

    return Deps(settings, resources=res, models=models)


def _openai_models(settings: Settings) -> ModelProvider:
    from graph.models import OpenAIModels

    return OpenAIModels(settings)


# The model boundary: tests swap in a scripted model here; everything else stays real.
make_models: Callable[[Settings], ModelProvider] = _openai_models

T = TypeVar("T")


def show(args: argparse.Namespace, operation: Callable[[Deps], T], lines: Callable[[T, tzinfo], list[str]]) -> int:
    """Run one operation on the stores (no model) and show its result: its JSON shape with --json, else the
    presenter's ``lines`` in the user's zone."""
    settings_ = settings(args)
    with resources(settings_) as res:
        value = operation(deps(settings_, res))
    present.show(args, value, lambda: lines(value, ZoneInfo(settings_.timezone)))
    return 0
