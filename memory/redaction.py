"""What forgetting removes from the records that outlive a memory (invariant 66). Pure: no I/O;
both stores apply these functions to their own rows.

- An audit event that mentions a forgotten memory keeps its id, time, actor, action and
  targets; each `before`/`after` snapshot *of* that memory (or a snapshot without an id holding
  a text, in an event aimed at it) becomes a stub: its id, kind and revision, the SHA-256 of its text and
  `"forgotten": true`. A snapshot, reason or comment that quotes a forgotten text loses it too.
- A tombstone of a forgotten fact (or quoting its text) keeps its id, kind and who made it; its
  text becomes empty and its match key becomes `hmac-sha256:HEX`, a keyed hash of the normalised
  value under a secret of the store, so the exact value stays refused without being readable.
  Its vector is dropped by the store.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from .models import Memory, Playbook
from .text import TOKEN_RE, normalise, term_set

KEYED_PREFIX = "hmac-sha256:"
REDACTED = "[forgotten]"
# A forgotten text shorter than this is matched only as a whole value, never as a substring:
# forgetting "ok" must not blank every snapshot that contains the letters "ok".
MIN_SUBSTRING = 8
MIN_WORD = 3  # words shorter than this ("in", "at") are never scrubbed on their own


class Erasure(BaseModel):
    """The memories being forgotten for one user: their ids and every text they held."""

    model_config = ConfigDict(frozen=True)
    user_id: str
    ids: frozenset[str]
    texts: tuple[str, ...]

    def quotes(self, value: str) -> bool:
        return any(value == t or (len(t) >= MIN_SUBSTRING and t in value) for t in self.texts)

    def scrub(self, value: str) -> str:
        for t in sorted(self.texts, key=len, reverse=True):
            if value == t:
                return REDACTED
            if len(t) >= MIN_SUBSTRING:
                value = value.replace(t, REDACTED)
        return value

    @property
    def stems(self) -> frozenset[str]:
        """The content words of the forgotten texts (folded, stemmed, no stop words, 3+
        characters): what a note about one of them may repeat without quoting it whole."""
        return _stems(self.texts)

    def scrub_words(self, value: str) -> str:
        """`value` with every word of a forgotten text replaced (invariant 66): a reason or
        comment written about the forgotten memory ("no cat named Qzx", "re Qzx") keeps its
        other words, never the forgotten ones, in whatever case or accents they were typed."""
        stems = self.stems

        def one(m: re.Match[str]) -> str:
            return REDACTED if term_set(m.group(), min_len=MIN_WORD) & stems else m.group()
        return TOKEN_RE.sub(one, self.scrub(value))


@lru_cache(maxsize=64)
def _stems(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(t for text in texts for t in term_set(text, min_len=MIN_WORD))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def keyed_value(key: bytes, text: str) -> str:
    """The match key a forgotten tombstone keeps: HMAC-SHA256 of the normalised value."""
    return KEYED_PREFIX + hmac.new(key, normalise(text).encode("utf-8"), hashlib.sha256).hexdigest()


def _visible(text: str) -> str:
    """The text without format characters (zero-width space and joiners, soft hyphen, word
    joiner, bidi marks): "Bri\u200bstol" is "Bristol" to a reader, so it is to a keyed hash."""
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


def keyed_claim(key: bytes, text: str) -> str:
    """The second key a forgotten tombstone keeps (invariant 176): HMAC-SHA256 of the value's
    canonical claim (slot, value, polarity: memory/values.py `canonical_key`, under its
    KEY_VERSION), so "I live in Bristol", "Based in Bristol" and "Peanut allergy" are refused
    after "Lives in Bristol" / "Allergic to peanuts" was retracted and then forgotten."""
    from .values import KEY_VERSION, canonical_key  # values imports models; keep this pure

    claim = f"{KEY_VERSION}:{canonical_key(_visible(text))}"
    return KEYED_PREFIX + hmac.new(key, claim.encode("utf-8"), hashlib.sha256).hexdigest()


def forgotten_keys(key: bytes, text: str) -> tuple[set[str], str]:
    """(exact-value keys, claim key) a new text is compared with (invariants 66 and 176)."""
    return {keyed_value(key, text), keyed_value(key, _visible(text))}, keyed_claim(key, text)


def is_stub(snapshot: Any) -> bool:
    return isinstance(snapshot, dict) and snapshot.get("forgotten") is True


def snapshot_text(snapshot: dict) -> str:
    """The text a snapshot held, as the memory's search text would read."""
    if "name" in snapshot and "steps" in snapshot:  # a playbook
        return f"{snapshot['name']}. {snapshot.get('trigger', '')}. {' '.join(snapshot['steps'])}"
    if "title" in snapshot:
        return f"{snapshot['title']}. {snapshot.get('text', '')}"
    return str(snapshot.get("text", "")) if "text" in snapshot else _strings(snapshot)


def _strings(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(_strings(v) for v in value)
    return ""


def _quotes_anywhere(value: Any, erasure: Erasure) -> bool:
    if isinstance(value, str):
        return erasure.quotes(value)
    if isinstance(value, dict):
        return any(_quotes_anywhere(v, erasure) for v in value.values())
    if isinstance(value, list):
        return any(_quotes_anywhere(v, erasure) for v in value)
    return False


def stub(snapshot: dict) -> dict:
    out: dict[str, Any] = {k: snapshot[k] for k in ("id", "kind", "rev") if k in snapshot}
    out["text_sha256"] = sha256(snapshot_text(snapshot))
    out["forgotten"] = True
    return out


def redact_event(event: dict, erasure: Erasure, also_ids: frozenset[str] = frozenset()) -> dict | None:
    """The event with forgotten text removed, or None when it holds none of it."""
    ids = erasure.ids | also_ids
    aimed = bool(ids.intersection(event.get("target_ids") or ()))
    changed = dict(event)
    for side in ("before", "after"):
        snap = event.get(side)
        if not isinstance(snap, dict) or is_stub(snap):
            continue
        own = snap.get("id")
        # An id-less snapshot aimed at a forgotten memory (a refused restatement) goes if it
        # holds a text; bookkeeping (a plan's watermarks, op ids, counts) stays.
        if (own in ids) or (own is None and aimed and "text" in snap) \
                or _quotes_anywhere(snap, erasure):
            changed[side] = stub(snap)
    for field in ("reason", "comment"):
        value = event.get(field)
        if not isinstance(value, str):
            continue
        # A note in an event aimed at the forgotten memory is about it: its words go too.
        scrubbed = erasure.scrub_words(value) if aimed else erasure.scrub(value)
        if scrubbed != value:
            changed[field] = scrubbed
    return None if changed == event else changed


def redact_tombstone(tomb: dict, erasure: Erasure, key: bytes) -> dict | None:
    """The tombstone with its value replaced by a keyed hash, or None when it is not one of the
    forgotten values (or was hashed already)."""
    if tomb.get("forgotten"):
        return None
    if tomb.get("source_fact_id") not in erasure.ids and not erasure.quotes(tomb.get("text", "")):
        return None
    out = hash_tombstone(tomb, key)
    if isinstance(out.get("reason"), str):  # the reason is about the forgotten value
        out["reason"] = erasure.scrub_words(out["reason"])
    return out


def hash_tombstone(tomb: dict, key: bytes) -> dict:
    """A tombstone reduced to its keyed hash (erasing a whole user: its reason goes too)."""
    if tomb.get("forgotten"):
        return tomb
    text = tomb.get("text", "")
    return {**tomb, "text": "", "normalized": keyed_value(key, text),
            "claim_key": keyed_claim(key, text) if text else None, "forgotten": True}


def texts_of(doc: Memory) -> list[str]:
    """Every text a memory holds, as it appears in audit snapshots and tombstones."""
    if isinstance(doc, Playbook):
        return [t for t in (doc.name, doc.trigger, *doc.steps, doc.search_text()) if t]
    return [doc.text] if getattr(doc, "text", None) else [doc.search_text()]
