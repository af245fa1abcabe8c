"""Index names, mappings (JSON files beside this module) and the mapping check. Pure: no I/O
except reading the packaged JSON files.

Every index is reached through an alias `{prefix}-{name}` pointing at a concrete, versioned index
`{prefix}-{name}-v{MAPPING_VERSION}`, so a mapping change is a reindex plus an atomic alias swap
(`reindex_actions`), never a rebuild by hand (invariant 22).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

from ...models import MemoryKind
from ...text import STOP_WORDS

# 2 (issue 17): the episodic `context` field, filled on write; `memdesk es reindex` moves a
# version-1 store and computes every session's contexts.
# 3 (issue 31): text fields analysed like the embedded store's FTS5 index (ANALYZER).
MAPPING_VERSION = 3
ANALYZER = "memdesk_text"
MAPPINGS_DIR = Path(__file__).with_name("mappings")
MEMORY_INDICES = ("episodic", "semantic", "procedural", "catalog")
# "usage" (issue 31, invariant 24): recall's use counts, one small document per fact or
# playbook used, so a bump rewrites no memory (and no vector). A new index needs no mapping
# version: a store opened without it creates it, and `memdesk es reindex` moves it like the rest.
OTHER_INDICES = ("audit", "tombstones", "state", "usage")
ALL_INDICES = MEMORY_INDICES + OTHER_INDICES
USER_KINDS = (MemoryKind.EPISODIC, MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)


@cache
def _raw(name: str) -> dict:
    return json.loads((MAPPINGS_DIR / f"{name}.json").read_text())


class IndexNames:
    """Aliases and concrete names for one prefix."""

    def __init__(self, prefix: str) -> None:
        if not prefix or prefix != prefix.lower() or any(c in prefix for c in ' "*\\<|,>/?#:'):
            raise ValueError(f"invalid index prefix {prefix!r}: lowercase, no spaces or , * : / ?")
        self.prefix = prefix

    def alias(self, name: str | MemoryKind) -> str:
        return f"{self.prefix}-{MemoryKind(name).value if isinstance(name, MemoryKind) else name}"

    def concrete(self, name: str, version: int = MAPPING_VERSION) -> str:
        return f"{self.alias(name)}-v{version}"

    def concrete_prefix(self, name: str | MemoryKind) -> str:
        """What every concrete index of `name` starts with (the Painless `_index` branch)."""
        return self.alias(name) + "-v"


def analysis() -> dict:
    """Invariant 60: text is analysed as the embedded store's FTS5 `porter unicode61` index
    and memory/text.py do it — tokens are runs of letters, digits and combining marks (so
    "don't" is "don" + "t"), lowercased, diacritics folded, the project's one stop list
    (memory.text.STOP_WORDS, ~150 words against Lucene's 33 English ones) dropped, then the
    original Porter stemmer (Lucene's PorterStemFilter, as FTS5 and PyStemmer's "porter").
    Elasticsearch reference (8.15): analysis-stop-tokenfilter.html,
    analysis-porterstem-tokenfilter.html, analysis-pattern-tokenizer.html."""
    return {"tokenizer": {"memdesk_words": {"type": "pattern",
                                            "pattern": "[^\\p{L}\\p{N}\\p{M}]+"}},
            "filter": {"memdesk_stop": {"type": "stop", "stopwords": sorted(STOP_WORDS)}},
            "analyzer": {ANALYZER: {"type": "custom", "tokenizer": "memdesk_words",
                                    "filter": ["lowercase", "asciifolding", "memdesk_stop",
                                               "porter_stem"]}}}


def index_body(name: str, embedder_name: str, dims: int) -> dict:
    """The create-index body: settings + mappings with the embedder's dims and a _meta stamp."""
    body = copy.deepcopy(_raw(name))
    body["settings"]["analysis"] = analysis()
    props = body["mappings"]["properties"]
    if "vector" in props:
        props["vector"]["dims"] = dims
    body["mappings"]["_meta"].update(
        {"mapping_version": MAPPING_VERSION, "embedder": embedder_name, "dims": dims})
    return body


# Field attributes whose difference changes what the store can do with a field.
_COMPARED = ("type", "dims", "similarity", "analyzer", "index", "enabled")


def _field_view(spec: dict) -> dict:
    view = {k: spec.get(k) for k in _COMPARED if k in spec}
    # A field without a type is an object: ES may or may not echo "type": "object" back.
    view["type"] = spec.get("type", "object")
    if "index_options" in spec and isinstance(spec["index_options"], dict):
        view["index_options.type"] = spec["index_options"].get("type")
    for sub, sub_spec in (spec.get("fields") or {}).items():
        view[f"fields.{sub}"] = sub_spec.get("type")
    return view


def mapping_differences(name: str, expected: dict, actual_mappings: dict) -> list[str]:
    """Human-readable differences between the expected body's mappings and a live mapping."""
    want = expected["mappings"]
    diffs = []
    meta_want, meta_have = want.get("_meta", {}), actual_mappings.get("_meta", {}) or {}
    for key in ("embedder", "dims"):
        if meta_have.get(key) != meta_want.get(key):
            diffs.append(f"_meta.{key}: index has {meta_have.get(key)!r}, "
                         f"this store needs {meta_want.get(key)!r}")
    have_props = actual_mappings.get("properties", {}) or {}
    for field, spec in want["properties"].items():
        if field not in have_props:
            diffs.append(f"{field}: missing")
            continue
        w, h = _field_view(spec), _field_view(have_props[field])
        for key, value in w.items():
            # ES omits defaults it was given explicitly (e.g. index: true); only compare
            # attributes the live mapping reports.
            if key in h and h[key] != value or key not in h and key in ("type", "dims"):
                diffs.append(f"{field}.{key}: index has {h.get(key)!r}, expected {value!r}")
    return diffs


def reindex_actions(names: IndexNames, name: str, old: str, new: str) -> dict:
    """The `_aliases` body that moves an alias from the old concrete index to the new one in one
    atomic step, after `_reindex` copied the documents (invariant 22)."""
    return {"actions": [{"remove": {"index": old, "alias": names.alias(name)}},
                        {"add": {"index": new, "alias": names.alias(name), "is_write_index": True}}]}
