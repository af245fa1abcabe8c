"""Recall-quality sweeps and the held-out report (issue 17): LoCoMo by split and category,
persona questions by set (tuning, tuning-extra, frozen, frozen2, frozen3), one preset or
ablation per row.

Ranking choices were made with `--locomo-split tune --persona-sets tuning,tuning-extra` only;
the held-out figures (`--locomo-split test`, `--persona-sets frozen,frozen2,frozen3`) are
reported, never tuned; frozen2 and frozen3 were written by people who had seen no ranking
(invariant 100).
Embeddings are cached on disk (.cache/memdesk-eval), so only the first run calls the model.

    nice -n 10 .venv/bin/python bench/bench_recall_quality.py --grid final \\
        --locomo ../shared/benchmarks/locomo/locomo10.json --locomo-split all \\
        --persona-sets tuning,tuning-extra,frozen,frozen2,frozen3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.embeddings import get_embedder
from memory.eval.embed_cache import DiskCachedEmbedder
from memory.eval.locomo import KS, run_locomo
from memory.eval.metrics import summarise_ranks
from memory.eval.recall_eval import ask_all, data_clock, load_questions
from memory.personas.loader import seed
from memory.personas.overlap import gold_texts, overlap
from memory.ranking import RankingParams
from memory.search_config import PRESETS, RecallConfig
from memory.service import MemoryService
from memory.stores.embedded import EmbeddedStore
from memory.stores.user_view import IndexParams

D = PRESETS["default"]
LOW_OVERLAP = 0.2


def _r(**kw) -> RecallConfig:
    return D.model_copy(update={"ranking": RankingParams(**kw)})


OFF = {"source_lift": 1.0, "chain_lift": 1.0, "tail_from": 0}

# label -> (config, index params). "final" is what docs/benchmarks.md reports.
GRIDS: dict[str, dict[str, tuple[RecallConfig, IndexParams]]] = {
    "final": {
        "default": (D, IndexParams()),
        "legacy_rrf (issue 7 default, per-user BM25)": (PRESETS["legacy_rrf"], IndexParams()),
        "no context window": (D, IndexParams(window=0, dense_window=0)),
        "rrf k=10, dense 0.5 (weighted RRF)": (_r(fusion="rrf", rrf_k=10, dense_weight=0.5),
                                               IndexParams()),
        "no question down-weight": (_r(question_weight=1.0), IndexParams()),
        "no time in questions": (D.model_copy(update={"use_time": False}), IndexParams()),
        "diverse (adjacent turn x0.9)": (PRESETS["diverse"], IndexParams()),
        "bm25_only": (PRESETS["bm25_only"], IndexParams()),
        "dense_only": (PRESETS["dense_only"], IndexParams()),
    },
    # Second pass: lifts and the RRF tail, each against the issue-17 ranking (OFF) and together.
    "second": {
        "issue 17 (lifts and tail off)": (_r(**OFF), IndexParams()),
        **{f"source x{v}": (_r(**{**OFF, "source_lift": v}), IndexParams()) for v in (1.05, 1.1, 1.2)},
        **{f"source x{v} chain x1.1": (_r(**{**OFF, "source_lift": v, "chain_lift": 1.1}),
                                       IndexParams()) for v in (1.1, 1.15, 1.2, 1.3)},
        **{f"chain x{v}": (_r(**{**OFF, "chain_lift": v}), IndexParams()) for v in (1.05, 1.1, 1.2)},
        **{f"tail {f} k{k}": (_r(**{**OFF, "tail_from": f, "tail_rrf_k": k}), IndexParams())
           for f in (15, 25) for k in (10, 30, 60)},
        **{f"tail {f} k{k} mix{m}": (_r(**{**OFF, "tail_from": f, "tail_rrf_k": k, "tail_mix": m}),
                                     IndexParams())
           for f in (25,) for k in (10, 30) for m in (0.3, 0.5, 0.7)},
        **{f"dense centring {c}": (D, IndexParams(dense_centre=c)) for c in (0.0, 0.3, 0.5, 0.7, 1.0)},
        **{f"now: tail 25 k{k} mix{m}": (_r(tail_from=25, tail_rrf_k=k, tail_mix=m), IndexParams())
           for k in (10, 30) for m in (0.5, 1.0)},
        **{f"now: candidates {n}": (D.model_copy(update={"candidates": n}), IndexParams())
           for n in (60, 120, 160)},
        **{f"bm25 k1={k} b={b}": (D, IndexParams(k1=k, b=b)) for k in (0.9, 1.2, 1.6)
           for b in (0.5, 0.75, 0.9) if (k, b) != (1.2, 0.75)},
        **{f"sourced x{w} src x{s}": (_r(sourced_weight=w, source_lift=s), IndexParams())
           for w in (0.9, 0.8, 0.7, 0.6) for s in (1.0, 1.1, 1.15)},
        **{f"dense weight {w}": (_r(dense_weight=w), IndexParams()) for w in (0.5, 0.6, 0.7, 0.9, 1.0)},
        **{f"dense ctx {c}": (D, IndexParams(dense_context_weight=c)) for c in (0.2, 0.4)},
        **{f"retune catalog {c}": (_r(catalog_prior=c), IndexParams()) for c in (0.85, 0.95)},
        **{f"retune2 catalog {c} source x{v}": (_r(catalog_prior=c, source_lift=v), IndexParams())
           for c in (0.95, 1.0) for v in (1.15, 1.2, 1.25) if (c, v) != (0.95, 1.15)},
        **{f"retune question {q}": (_r(question_weight=q), IndexParams()) for q in (0.4, 0.6)},
        **{f"retune source x{v}": (_r(source_lift=v), IndexParams()) for v in (1.1, 1.2)},
        **{f"retune sourced x{v}": (_r(sourced_weight=v), IndexParams()) for v in (0.7, 0.9)},
        "default": (D, IndexParams()),
    },
    # The table of docs/benchmarks.md "Recall quality, second pass": before, after, ablations.
    "second_final": {
        "before (issue 17 ranking)": (_r(dense_weight=0.7, catalog_prior=0.9, **OFF,
                                         sourced_weight=1.0), IndexParams(dense_centre=0.0)),
        "after (default)": (D, IndexParams()),
        "no source lift": (_r(source_lift=1.0), IndexParams()),
        "no sourced-episode demotion": (_r(sourced_weight=1.0), IndexParams()),
        "no chain lift": (_r(chain_lift=1.0), IndexParams()),
        "no dense centring": (D, IndexParams(dense_centre=0.0)),
        "dense weight 0.7": (_r(dense_weight=0.7), IndexParams()),
        "catalog prior 0.9": (_r(catalog_prior=0.9), IndexParams()),
        "RRF tail from 25 (k=30)": (_r(tail_from=25, tail_rrf_k=30), IndexParams()),
    },
    # Third pass: paraphrase robustness (docs/benchmarks.md "Recall quality, third pass").
    "third": {
        "default": (D, IndexParams()),
        **{f"names {m}": (D.model_copy(update={"drop_names": m}), IndexParams())
           for m in ("off", "bm25", "both")},
        **{f"adaptive weak {w} full {c}": (_r(weak_dense_weight=w, coverage_full=c), IndexParams())
           for w in (1.2, 1.6, 2.4) for c in (0.34, 0.5, 0.75)},
        **{f"combo adaptive {w}/{c} src {sw}/{dv} lift x{x}": (
            _r(weak_dense_weight=w, coverage_full=c, source_lift=x),
            IndexParams(source_weight=sw, dense_source_weight=dv))
           for w, c in ((1.2, 0.34), (1.6, 0.5)) for sw, dv in ((0.3, 0.3), (0.5, 0.3), (0.5, 0.0))
           for x in (1.1, 1.25)},
        **{f"adaptive top{n} {w}/{c}": (_r(weak_dense_weight=w, coverage_full=c, coverage_hits=n),
                                        IndexParams())
           for n in (3, 5) for w, c in ((1.2, 0.34), (1.6, 0.5), (1.6, 0.75))},
        **{f"combo top3 {w}/{c} src {sw}/{dv} lift x{x}": (
            _r(weak_dense_weight=w, coverage_full=c, coverage_hits=3, source_lift=x),
            IndexParams(source_weight=sw, dense_source_weight=dv))
           for w, c in ((1.6, 0.75), (2.0, 0.75)) for sw, dv in ((0.3, 0.3),) for x in (1.1, 1.25)},
        **{f"source words {w}": (D, IndexParams(source_weight=w)) for w in (0.3, 0.5, 0.8, 1.0)},
        **{f"source vectors {w}": (D, IndexParams(dense_source_weight=w)) for w in (0.3, 0.5, 0.8, 1.0)},
        **{f"source both {w}/{v}": (D, IndexParams(source_weight=w, dense_source_weight=v))
           for w in (0.3, 0.5) for v in (0.3, 0.5)},
        **{f"src words {w} dense {v} lift x{x}": (_r(source_lift=x), IndexParams(
            source_weight=w, dense_source_weight=v)) for w in (0.5,) for v in (0.0, 0.3)
           for x in (1.0, 1.1, 1.15)},
    },
    "third_adaptive": {
        "default": (D, IndexParams()),
        **{f"weak {w} full {c} top{n}": (_r(weak_dense_weight=w, coverage_full=c, coverage_hits=n,
                                            coverage_context=False),
                                         IndexParams())
           for w in (2.4, 4.0, 8.0) for c in (0.75, 1.0) for n in (1, 3)},
        **{f"ctx weak {w} full {c} top{n}": (_r(weak_dense_weight=w, coverage_full=c,
                                                coverage_hits=n, coverage_context=True),
                                             IndexParams())
           for w in (1.6, 2.4, 4.0) for c in (0.75, 1.0) for n in (1, 3)},
    },
    # The table of docs/benchmarks.md "Recall quality, third pass": before, after, ablations.
    "third_final": {
        "before (second pass)": (D.model_copy(update={"drop_names": "off", "ranking": RankingParams(
            source_lift=1.25, weak_dense_weight=None)}), IndexParams(source_weight=0.0,
                                                                      dense_source_weight=0.0)),
        "after (default)": (D, IndexParams()),
        "no source words in facts": (D, IndexParams(source_weight=0.0)),
        "no source vectors in facts": (D, IndexParams(dense_source_weight=0.0)),
        "no source words or vectors (lift x1.25)": (_r(source_lift=1.25), IndexParams(
            source_weight=0.0, dense_source_weight=0.0)),
        "names kept in the query": (D.model_copy(update={"drop_names": "off"}), IndexParams()),
        "names dropped from the embedded text too": (D.model_copy(update={"drop_names": "both"}),
                                                     IndexParams()),
        "no adaptive fusion": (_r(weak_dense_weight=None), IndexParams()),
        "coverage of the best 3 hits": (_r(coverage_hits=3), IndexParams()),
        "coverage of the hit's own text (no context)": (_r(coverage_context=False), IndexParams()),
        "weak dense weight 2.4": (_r(weak_dense_weight=2.4), IndexParams()),
        "weak dense weight 4.0": (_r(weak_dense_weight=4.0), IndexParams()),
        "source lift x1.25": (_r(source_lift=1.25), IndexParams()),
        "bm25_only": (PRESETS["bm25_only"], IndexParams()),
        "dense_only": (PRESETS["dense_only"], IndexParams()),
    },
    # docs/benchmarks.md "Recall quality, fourth pass": history chains, IDF coverage.
    "fourth": {
        "default": (D, IndexParams()),
        "no chain resolution": (_r(chain_resolve=0.0), IndexParams()),
        **{f"idf coverage, weak {w} full {c}": (_r(coverage_idf=True, weak_dense_weight=w,
                                                   coverage_full=c), IndexParams())
           for w in (1.6, 2.4) for c in (0.4, 0.5, 0.6)},
        "plain coverage, weak 2.4": (_r(weak_dense_weight=2.4), IndexParams()),
    },
    # docs/benchmarks.md "Recall quality, fifth pass": LoCoMo multi-hop (session, speaker).
    "fifth": {
        "default": (D, IndexParams()),
        "no speaker lift (before)": (_r(speaker_lift=()), IndexParams()),
        **{f"speaker x{w}": (_r(speaker_lift=((0, w),)), IndexParams()) for w in (1.1, 1.2, 1.4)},
        **{f"speaker x{w} from {f}": (_r(speaker_lift=((f, w),)), IndexParams())
           for w in (1.2, 1.3, 1.4, 2.0) for f in (3, 5, 10)},
        **{f"speaker tiers {t}": (_r(speaker_lift=t), IndexParams())
           for t in (((5, 1.2), (10, 2.0)), ((5, 1.2), (10, 1.4), (25, 2.0)),
                     ((5, 1.1), (10, 1.4)), ((5, 1.2), (15, 1.4)))},
        **{f"dense window {w} ctx {c}": (D, IndexParams(dense_window=w, dense_context_weight=c))
           for w in (3, 4) for c in (0.3, 0.2)},
    },
    "fusion": {f"{f} d{w}": (_r(fusion=f, dense_weight=w, rrf_k=10), IndexParams())
               for f in ("rrf", "score") for w in (0.3, 0.5, 0.7, 1.0)},
    "context": {f"w{w} cw{cw} dw{dw}": (D, IndexParams(window=w, context_weight=cw, dense_window=dw))
                for w in (0, 1, 2, 3) for cw in (0.3, 0.5, 0.8) for dw in (0, 2)},
    "post": {f"qw{q} win{b} past{p} cat{c}": (_r(question_weight=q, window_boost=b, past_weight=p,
                                                 catalog_prior=c), IndexParams())
             for q in (1.0, 0.5) for b in (1.0, 1.3) for p in (1.0, 1.3) for c in (0.85, 0.9)},
}


def locomo_rows(data: str, emb, grid, split: str) -> None:
    print(f"\n## LoCoMo ({split}): R@5 / R@10 / R@25 / R@50, then R@5/10/25/50 per category",
          flush=True)
    store_path = Path(tempfile.mkdtemp(prefix="memdesk-rq-")) / f"locomo-{split}.db"
    for label, (cfg, ip) in grid.items():
        t = time.perf_counter()
        rep = run_locomo(data, emb, {label: cfg}, split=split, index_params={label: ip},
                         store_path=store_path)
        v = rep.variants[0]
        line = f"| {label} | all | {v.n} | " + " | ".join(f"{v.overall[k] * 100:.1f}" for k in KS)
        line += " | " + " ".join(f"{c}:" + "/".join(f"{x[k] * 100:.1f}" for k in KS)
                                 for c, x in v.per_category.items())
        print(line + f" | {time.perf_counter() - t:.0f} s", flush=True)
        for sp, vals in v.per_split.items():
            cats = v.per_split_category.get(sp, {})
            print(f"| {label} | {sp} | {v.n_split[sp]} | "
                  + " | ".join(f"{vals[k] * 100:.1f}" for k in KS) + " | "
                  + " ".join(f"{c}:" + "/".join(f"{x[k] * 100:.1f}" for k in KS)
                             for c, x in cats.items()),
                  flush=True)


def persona_rows(emb, grid, sets: list[str]) -> None:
    print("\n## Persona questions: R@1 / R@5 / R@10 / MRR (any answering id: R@10)", flush=True)
    store = EmbeddedStore(Path(tempfile.mkdtemp(prefix="memdesk-rq-")) / "p.db", emb)
    seed(store)
    questions = {s: load_questions(s) for s in sets}
    svc = MemoryService(store)
    svc.clock = data_clock(svc, [q for qs in questions.values() for q in qs])
    texts = gold_texts()
    # A paraphrase proxy on the tuning sets: questions sharing at most a fifth of their content
    # words with their gold document (memory.personas.overlap), pooled over the sets asked.
    low = {q.id for qs in questions.values() for q in qs
           if overlap(q.question, texts.get(q.gold_id, "")) <= LOW_OVERLAP}
    for label, (cfg, ip) in grid.items():
        store.set_index_params(ip)
        pooled: list = []
        for name, qs in questions.items():
            res = ask_all(svc, qs, cfg)
            pooled += [r.rank for r in res if r.id in low]
            s = summarise_ranks([r.rank for r in res])
            a = summarise_ranks([r.any_rank for r in res])
            tags: dict[str, list] = {}
            for r in res:
                tags.setdefault(r.tag or "-", []).append(r.rank)
            print(f"| {label} | {name} | {s.n} | {s.r1:.3f} | {s.r5:.3f} | {s.r10:.3f} | "
                  f"{s.mrr:.3f} | {a.r10:.3f} | "
                  + " ".join(f"{t}:{summarise_ranks(v).r10:.2f}" for t, v in tags.items()),
                  flush=True)
        if pooled and not {"frozen2", "frozen3"} & set(questions):  # held-out sets: no proxy
            s = summarise_ranks(pooled)
            print(f"| {label} | overlap <= {LOW_OVERLAP} (pooled) | {s.n} | {s.r1:.3f} | "
                  f"{s.r5:.3f} | {s.r10:.3f} | {s.mrr:.3f} | |", flush=True)
    store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--grid", default="final", choices=sorted(GRIDS))
    ap.add_argument("--locomo", help="path to locomo10.json (omit to skip LoCoMo)")
    ap.add_argument("--locomo-split", default="tune", choices=["tune", "test", "all"])
    ap.add_argument("--persona-sets", default="", help="comma list: tuning,tuning-extra,frozen,frozen2,frozen3")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--only", default="", help="comma list: keep rows whose label contains one")
    args = ap.parse_args()
    emb = DiskCachedEmbedder(get_embedder(args.embedder))
    grid = GRIDS[args.grid]
    if args.only:
        grid = {k: v for k, v in grid.items() if any(w in k for w in args.only.split(","))}
    if args.locomo:
        locomo_rows(args.locomo, emb, grid, args.locomo_split)
    if args.persona_sets:
        persona_rows(emb, grid, [s for s in args.persona_sets.split(",") if s])
    print(f"\nmodel calls for {emb.misses} texts (the rest came from the on-disk cache)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
