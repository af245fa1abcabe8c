"""Invariant 65 on Elasticsearch: the contradicted-episode lookup is one filtered search over the
user's dead facts citing the recall's candidates, with no refresh (request shape)."""

from __future__ import annotations

from tests.es.conftest import search_answer, source_hit


def test_inv65_elasticsearch_asks_only_for_dead_facts_citing_the_candidates(
        cluster, es_store):
    dead = {"id": "fact_x", "user_id": "u", "source_episode_ids": ["ep_1", "ep_9"], "flags": []}
    merged = {"id": "fact_m", "user_id": "u", "source_episode_ids": ["ep_2"],
              "flags": ["merged_into:fact_a"]}
    other = {"id": "fact_o", "user_id": "v", "source_episode_ids": ["ep_3"], "flags": []}
    cluster.on("POST", "/memdesk-semantic/_search", lambda req: (200, search_answer(
        req, [source_hit("memdesk-semantic-v1", s) for s in (dead, merged, other)])))
    assert es_store.contradicted_sources("u", ["ep_1", "ep_2", "ep_3"]) == {"ep_1"}
    (req,) = cluster.find("POST", "/memdesk-semantic/_search")
    assert req.body["query"] == {"bool": {"filter": [
        {"term": {"user_id": "u"}}, {"terms": {"state": ["rejected", "retracted"]}},
        {"terms": {"source_episode_ids": ["ep_1", "ep_2", "ep_3"]}}]}}
    assert req.params == {"_source_includes": "user_id,source_episode_ids,flags"}
    assert not cluster.find("POST", r"/.*/_refresh")  # recall never forces a refresh (inv. 24)
