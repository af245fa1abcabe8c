"""Which reader proposed a memory, with its version (issue 32): the name a review decision's
label is counted under (invariant 490).

The offline reader is code: its version is a digest of the source files that read a message
(the one reader with its tables, the slot vocabulary, the date reader, the offline agent and
extractor), so any change to them starts a new
version and a day of operators' decisions is never pooled across two readers. A model's version
is its id (`anthropic:MODEL`)."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_ROOT = Path(__file__).resolve().parent
# The files whose change changes what the offline reader proposes.
_READING = ("reading", "slots.py", "when.py", "agents/offline.py", "llm/offline.py",
            "values.py", "lexicon.py")
OFFLINE = "offline-reader"


@lru_cache(maxsize=1)
def offline_digest() -> str:
    """12 hex digits of SHA-256 over the reading code's files, by path and content."""
    h = hashlib.sha256()
    for name in _READING:
        path = _ROOT / name
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".py", ".json", ".jsonl")
                       and "__pycache__" not in p.parts) if path.is_dir() else [path]
        for f in files:
            if f.is_file():
                h.update(str(f.relative_to(_ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def reader_version(mode: str | None) -> str | None:
    """The reader name of an agent or model mode: `offline` -> `offline-reader@DIGEST`;
    a model (`anthropic:MODEL`) is named by its id; None stays None."""
    if not mode:
        return None
    if mode == "offline":
        return f"{OFFLINE}@{offline_digest()}"
    return mode
