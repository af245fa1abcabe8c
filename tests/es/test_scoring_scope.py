"""How Elasticsearch scores one user's recall (issue 17): request shapes, no cluster needed.

The user scope is a `bool.filter` (it narrows, never scores); term statistics are the shard's,
shared by every user on it — the embedded store's per-user statistics (invariant 101) have no
Elasticsearch equivalent short of an index per user. The optional `context` clause mirrors the
embedded store's session context window."""

from __future__ import annotations

import json

from memory.stores.base import RecallFilter
from memory.stores.elasticsearch import queries
from memory.stores.elasticsearch.indices import MAPPINGS_DIR
from memory.stores.elasticsearch.results import DERIVED_FIELDS

FLT = RecallFilter(user_id="ana")


def test_user_scope_filters_and_never_scores():
    body = queries.bm25_query(FLT, "green tea")
    assert body["bool"]["must"] == [{"match": {"search_text": {"query": "green tea",
                                                               "operator": "or"}}}]
    assert body["bool"]["filter"] == [queries.scope_filter(FLT)]
    assert "should" not in body["bool"]  # nothing but the text contributes to the score


def test_context_clause_weights_neighbouring_turns_below_the_turn_itself():
    body = queries.bm25_query(FLT, "vet beagle", context_boost=0.5)
    own, ctx = body["bool"]["should"]
    assert own == {"match": {"search_text": {"query": "vet beagle", "operator": "or"}}}
    assert ctx == {"match": {"context": {"query": "vet beagle", "operator": "or", "boost": 0.5}}}
    assert body["bool"]["minimum_should_match"] == 1
    assert body["bool"]["filter"] == [queries.scope_filter(FLT)]


def test_episodic_mapping_has_the_context_field_and_results_drop_it():
    props = json.loads((MAPPINGS_DIR / "episodic.json").read_text())["mappings"]["properties"]
    assert props["context"] == {"type": "text", "analyzer": "memdesk_text"}
    assert "context" in DERIVED_FIELDS  # a stored context never reaches the Episode model


def test_inv169_lexicon_expansions_are_plain_words_at_their_weight():
    # Invariant 169 on Elasticsearch: the analysed expansions come back as the groups' plain
    # words (Elasticsearch's own analyser stems them), one clause per weight, below the query.
    from memory.lexical import analyse
    from memory.lexicon import expansions, words_of
    extra = words_of(expansions(analyse("what vehicle do I drive"), 0.5))
    assert extra == {0.5: "automobile car"}
    body = queries.bm25_query(FLT, "what vehicle do I drive", extra_words=extra)
    assert body["bool"]["should"] == [
        {"match": {"search_text": {"query": "what vehicle do I drive", "operator": "or"}}},
        {"match": {"search_text": {"query": "automobile car", "operator": "or", "boost": 0.5}}}]
    assert body["bool"]["minimum_should_match"] == 1
    assert body["bool"]["filter"] == [queries.scope_filter(FLT)]
    # no expansion: the body is exactly the plain one
    assert queries.bm25_query(FLT, "green tea", extra_words={}) == queries.bm25_query(FLT, "green tea")
