"""The Painless multiplier script: exactly `memory.ranking.multipliers`, computed in the cluster.

Branches on `_index` (episodic decays on `timestamp`, semantic on `last_used_at`, procedural
not at all; use boost on facts; prior on catalog), reads `now` from params as epoch millis
(Painless has no clock), computes in doubles and gives 1.0 for a missing field (invariant 17,
invariant 21). tests/es/test_painless.py mirrors it line by line against the pure function.
"""

from __future__ import annotations

from datetime import datetime

from ...clock import as_utc
from ...models import MemoryKind
from ...ranking import DAY_MS, RankingParams
from .indices import IndexNames

MULTIPLIER_SCRIPT = """
String idx = doc['_index'].value;
double m = 1.0;
String f = null;
if (idx.startsWith(params.episodic_index)) { f = 'timestamp'; }
else if (idx.startsWith(params.semantic_index)) { f = 'last_used_at'; }
if (params.use_decay && f != null && doc.containsKey(f) && doc[f].size() > 0) {
  double t = (double) doc[f].value.toInstant().toEpochMilli();
  double ageDays = ((double) params.now - t) / (double) params.day_ms;
  double distance = Math.max(0.0, Math.abs(ageDays) - (double) params.offset_days);
  double ratio = distance / (double) params.scale_days;
  m *= Math.exp(Math.log((double) params.decay_at_scale) * (ratio * ratio));
}
if (params.use_boost && idx.startsWith(params.semantic_index)
    && doc.containsKey('use_count') && doc['use_count'].size() > 0) {
  double uses = Math.max(0.0, (double) doc['use_count'].value);
  m *= 1.0 + Math.log10(1.0 + uses) * (double) params.boost_weight;
}
if (idx.startsWith(params.catalog_index)) { m *= (double) params.catalog_prior; }
return m;
""".strip()


def epoch_millis(when: datetime) -> int:
    """Epoch milliseconds, the resolution of an Elasticsearch `date` field."""
    return int(as_utc(when).timestamp() * 1000)


def script_params(names: IndexNames, now: datetime, params: RankingParams) -> dict:
    return {
        "now": epoch_millis(now),
        "day_ms": DAY_MS,
        "offset_days": float(params.decay_offset_days),
        "scale_days": float(params.decay_scale_days),
        "decay_at_scale": float(params.decay_at_scale),
        "boost_weight": float(params.use_boost_weight),
        "catalog_prior": float(params.catalog_prior),
        "use_decay": bool(params.use_decay),
        "use_boost": bool(params.use_boost),
        "episodic_index": names.concrete_prefix(MemoryKind.EPISODIC),
        "semantic_index": names.concrete_prefix(MemoryKind.SEMANTIC),
        "catalog_index": names.concrete_prefix(MemoryKind.CATALOG),
    }


def script(names: IndexNames, now: datetime, params: RankingParams) -> dict:
    return {"source": MULTIPLIER_SCRIPT, "lang": "painless",
            "params": script_params(names, now, params)}
