"""Every setting in one declared table, with its default and a help line (read from MEMDESK_*).

An unknown MEMDESK_* variable fails at start-up: a typo must not silently fall back to a default.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ValidationError


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str
    parse: Callable[[str], Any] = str


def _bool(v: str) -> bool:
    return v.strip().lower() in {"1", "true", "yes", "on"}


def _every(v: str) -> str:
    """manual | every_turn | every_N (issue 12: when the chat agent consolidates)."""
    value = v.strip().lower()
    if value in {"manual", "every_turn"} or (value.startswith("every_")
                                            and value[6:].isdigit() and int(value[6:]) >= 1):
        return value
    raise ValueError(v)


SETTINGS: tuple[Setting, ...] = (
    Setting("store", f"embedded:{Path('.memdesk') / 'memdesk.db'}",
            "where memories live: embedded:PATH (default) or elasticsearch:URL"),
    Setting("embedder", "minilm", "sentence embedder: minilm (default), static (distilled, fast) or hash (unit tests only)"),
    Setting("tombstone_similarity", 0.85,
            "cosine at or above which a write restates a tombstoned value (when its names, "
            "numbers and half its terms also agree; memory/values.py)", float),
    Setting("harsh_confidence_penalty", 0.2,
            "confidence subtracted from a fact that harshly contradicts (retracts) another", float),
    Setting("llm", "auto", "auto (Anthropic when ANTHROPIC_API_KEY is set, else offline), "
            "anthropic or offline"),
    Setting("anthropic_model", "claude-sonnet-4-6", "Anthropic model for extraction and chat"),
    Setting("max_retire_per_run", 3,
            "most facts one consolidation run may supersede; the rest go to review", int),
    Setting("review_confidence", 0.7, "facts below this confidence wait in review", float),
    Setting("es_url", "", "Elasticsearch URL for the live contract tests (MEMDESK_ES_URL)"),
    Setting("es_prefix", "memdesk", "index name prefix on Elasticsearch"),
    Setting("minilm_dir", "", "override the directory holding the MiniLM weights"),
    Setting("agent_consolidation", "manual", "when the chat agent runs consolidation: manual "
            "(default), every_turn, or every_N (once N new episodes wait)", _every),
)
_BY_NAME = {s.name: s for s in SETTINGS}


def load_settings(env: dict[str, str] | None = None) -> dict[str, Any]:
    env = dict(os.environ if env is None else env)
    values = {s.name: s.default for s in SETTINGS}
    for key, raw in env.items():
        if not key.startswith("MEMDESK_"):
            continue
        name = key.removeprefix("MEMDESK_").lower()
        if name not in _BY_NAME:
            known = ", ".join(f"MEMDESK_{s.name.upper()}" for s in SETTINGS)
            raise ValidationError(f"unknown setting {key}; known settings: {known}")
        try:
            values[name] = _BY_NAME[name].parse(raw)
        except ValueError:
            raise ValidationError(f"{key}={raw!r} is not a valid {name}") from None
    return values
