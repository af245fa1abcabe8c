"""Shared set-up for the secret detector's tests: its tables are data, so a test may run it on a
copy with one table edited and show that a row, not code, made the difference."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memory import secret_frames, sensitive


@contextmanager
def frames_edited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  edit: Callable[[dict], None]) -> Iterator[None]:
    """The detector reading a copy of its tables whose frames.json `edit` changed; the real
    tables again afterwards."""
    frames = json.loads((secret_frames.HERE / "frames.json").read_text(encoding="utf-8"))
    edit(frames)
    for name in ("nouns.jsonl", "platform_nouns.jsonl"):
        (tmp_path / name).write_text((secret_frames.HERE / name).read_text(encoding="utf-8"),
                                     encoding="utf-8")
    (tmp_path / "frames.json").write_text(json.dumps(frames), encoding="utf-8")
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    sensitive.reload_tables()
    try:
        yield
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()
