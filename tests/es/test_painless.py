"""The Painless multiplier script, mirrored line by line in Python, agrees with the pure
ranking function for a table of documents (invariant 17, invariant 21)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memory.models import CatalogDoc, Episode, Fact, Playbook
from memory.ranking import RankingParams, multipliers
from memory.stores.elasticsearch.indices import IndexNames
from memory.stores.elasticsearch.painless import MULTIPLIER_SCRIPT, epoch_millis, script_params
from memory.stores.elasticsearch.results import to_source

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
NAMES = IndexNames("memdesk")
DATE_FIELDS = ("timestamp", "last_used_at")


def doc_values(src: dict) -> dict[str, list]:
    """What `doc[...]` sees: dates as epoch millis (ES stores millisecond dates), numbers as is,
    an absent or null field as an empty list."""
    out: dict[str, list] = {}
    for f in (*DATE_FIELDS, "use_count"):
        v = src.get(f)
        if v is None:
            continue
        out[f] = [epoch_millis(datetime.fromisoformat(v))
                  if f in DATE_FIELDS else v]
    return out


def run_script(index: str, doc: dict[str, list], p: dict) -> float:
    """MULTIPLIER_SCRIPT, statement by statement (see the `assert ... in MULTIPLIER_SCRIPT`)."""
    idx = index
    m = 1.0
    f = None
    if idx.startswith(p["episodic_index"]):
        f = "timestamp"
    elif idx.startswith(p["semantic_index"]):
        f = "last_used_at"
    if p["use_decay"] and f is not None and f in doc and len(doc[f]) > 0:
        t = float(doc[f][0])
        age_days = (float(p["now"]) - t) / float(p["day_ms"])
        distance = max(0.0, abs(age_days) - float(p["offset_days"]))
        ratio = distance / float(p["scale_days"])
        m *= math.exp(math.log(float(p["decay_at_scale"])) * (ratio * ratio))
    if p["use_boost"] and idx.startswith(p["semantic_index"]) and "use_count" in doc \
            and len(doc["use_count"]) > 0:
        uses = max(0.0, float(doc["use_count"][0]))
        m *= 1.0 + math.log10(1.0 + uses) * float(p["boost_weight"])
    if idx.startswith(p["catalog_index"]):
        m *= float(p["catalog_prior"])
    return m


def test_script_has_the_statements_the_mirror_runs():
    for line in [
        "String idx = doc['_index'].value;",
        "if (idx.startsWith(params.episodic_index)) { f = 'timestamp'; }",
        "else if (idx.startsWith(params.semantic_index)) { f = 'last_used_at'; }",
        "if (params.use_decay && f != null && doc.containsKey(f) && doc[f].size() > 0) {",
        "double t = (double) doc[f].value.toInstant().toEpochMilli();",
        "double ageDays = ((double) params.now - t) / (double) params.day_ms;",
        "double distance = Math.max(0.0, Math.abs(ageDays) - (double) params.offset_days);",
        "double ratio = distance / (double) params.scale_days;",
        "m *= Math.exp(Math.log((double) params.decay_at_scale) * (ratio * ratio));",
        "&& doc.containsKey('use_count') && doc['use_count'].size() > 0) {",
        "double uses = Math.max(0.0, (double) doc['use_count'].value);",
        "m *= 1.0 + Math.log10(1.0 + uses) * (double) params.boost_weight;",
        "if (idx.startsWith(params.catalog_index)) { m *= (double) params.catalog_prior; }",
        "return m;",
    ]:
        assert line in MULTIPLIER_SCRIPT, line
    assert "new Date" not in MULTIPLIER_SCRIPT and "System.currentTimeMillis" not in MULTIPLIER_SCRIPT


def _fact(**kw) -> Fact:
    return Fact(id="fact_1", user_id="u", text="Likes tea", recorded_at=NOW - timedelta(days=900), **kw)


CASES = [
    ("episode today", Episode(id="ep_1", user_id="u", text="hi", timestamp=NOW)),
    ("episode inside offset", Episode(id="ep_1", user_id="u", text="hi", timestamp=NOW - timedelta(days=179))),
    ("episode one scale out", Episode(id="ep_1", user_id="u", text="hi",
                                      timestamp=NOW - timedelta(days=180 + 1825))),
    ("episode ten years", Episode(id="ep_1", user_id="u", text="hi", timestamp=NOW - timedelta(days=3650))),
    ("episode in the future", Episode(id="ep_1", user_id="u", text="hi", timestamp=NOW + timedelta(days=400))),
    ("episode odd millis", Episode(id="ep_1", user_id="u", text="hi",
                                   timestamp=NOW - timedelta(days=731, seconds=7, milliseconds=123))),
    ("fact never used (missing field)", _fact()),
    ("fact used long ago", _fact(last_used_at=NOW - timedelta(days=1200), use_count=3)),
    ("fact used 10 times", _fact(last_used_at=NOW - timedelta(days=2), use_count=10)),
    ("fact used 100 times", _fact(last_used_at=NOW - timedelta(days=500), use_count=100)),
    ("playbook: no decay, no boost", Playbook(id="pb_1", user_id="u", name="Reset", trigger="x",
                                             steps=["a"], use_count=50,
                                             last_used_at=NOW - timedelta(days=3000))),
    ("catalog prior", CatalogDoc(id="cat_1", title="Guide", text="Hold 10 s",
                                 recorded_at=NOW - timedelta(days=4000))),
]
PARAMS = [
    RankingParams(),
    RankingParams(use_decay=False),
    RankingParams(use_boost=False),
    RankingParams(decay_offset_days=30, decay_scale_days=365, decay_at_scale=0.25,
                  use_boost_weight=0.5, catalog_prior=0.5),
]


@pytest.mark.parametrize("params", PARAMS, ids=["default", "no_decay", "no_boost", "custom"])
@pytest.mark.parametrize("label,doc", CASES, ids=[c[0] for c in CASES])
def test_script_arithmetic_matches_ranking_multipliers(label, doc, params):
    src = to_source(doc, np.zeros(4, np.float32))
    p = script_params(NAMES, NOW, params)
    got = run_script(NAMES.concrete(doc.kind.value), doc_values(src), p)
    want = multipliers(doc, NOW, params).total
    # Dates are stored to the millisecond; everything else is the same double arithmetic.
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12), label


def test_params_are_epoch_millis_and_doubles():
    p = script_params(NAMES, NOW, RankingParams())
    assert p["now"] == 1748779200000 and isinstance(p["now"], int)
    assert all(isinstance(p[k], float) for k in ("day_ms", "offset_days", "scale_days",
                                                  "decay_at_scale", "boost_weight", "catalog_prior"))
    # The _index branches are whole concrete-name prefixes, so semantic never matches episodic.
    assert (p["episodic_index"], p["semantic_index"], p["catalog_index"]) == (
        "memdesk-episodic-v", "memdesk-semantic-v", "memdesk-catalog-v")
