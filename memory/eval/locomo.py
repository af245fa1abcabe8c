"""LoCoMo retrieval eval: fractional evidence recall at k over dialog turns, per category.

The data (CC BY-NC 4.0) is read in place from ../shared and never copied into the repository
(invariant 57). Each conversation becomes its own user; every turn an episode "Speaker: text"
dated by its session; every question is asked as that user with Purpose.EVAL.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from ..clock import fixed_clock, utcnow
from ..embeddings import Embedder
from ..errors import ValidationError
from ..search_config import Purpose, RecallConfig
from ..service import MemoryService
from ..stores.base import Store
from ..stores.embedded import EmbeddedStore
from ..stores.user_view import IndexParams
from .metrics import fractional_recall, mean

KS = (5, 10, 25, 50)
# Map by numeric id (the README beside the data: the paper's order differs from the file's).
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DRAGON = {5: 0.567, 10: 0.662, 25: 0.767, 50: 0.827}  # paper, Table 3, dialog turns
# Issue 17: ranking choices are made on conversations 1-5 (file order) and reported on 6-10.
TUNE_CONVERSATIONS = 5
SPLITS = ("tune", "test")


def split_of(index: int) -> str:
    """Split of the conversation at 0-based file position `index`."""
    return "tune" if index < TUNE_CONVERSATIONS else "test"
_SESSION = re.compile(r"^session_(\d+)$")


class Turn(BaseModel):
    dia_id: str
    speaker: str
    text: str
    caption: str | None = None
    timestamp: datetime

    def episode_text(self, with_captions: bool = True) -> str:
        """The paper replaced each shared image with its caption; so do we (when asked)."""
        text = f"{self.speaker}: {self.text}"
        if with_captions and self.caption:
            text += f" [shares a photo: {self.caption}]"
        return text


class QA(BaseModel):
    question: str
    category: int
    evidence: list[str]


class Conversation(BaseModel):
    sample_id: str
    split: str = "tune"
    turns: list[Turn]
    qa: list[QA]

    @property
    def user_id(self) -> str:
        return f"locomo-{self.sample_id}"

    @property
    def last_time(self) -> datetime:
        return max(t.timestamp for t in self.turns)


def parse_session_time(raw: str) -> datetime:
    """"1:56 pm on 8 May, 2023" -> an aware UTC datetime."""
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except ValueError:
        raise ValidationError(f"unparseable LoCoMo session date {raw!r}") from None


def normalise_evidence(raw: Iterable[str]) -> list[str]:
    """Split joined ids ("D8:6; D9:17"), fix "D:11:26" and "D30:05", drop bare "D"."""
    out: list[str] = []
    for item in raw:
        for part in re.split(r"[;\s]+", str(item)):
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
            if m:
                ref = f"D{int(m.group(1))}:{int(m.group(2))}"
                if ref not in out:
                    out.append(ref)
    return out


def load_locomo(path: str | Path, *, limit_conversations: int | None = None,
                limit_questions: int | None = None) -> list[Conversation]:
    path = Path(path)
    if not path.exists():
        raise ValidationError(f"no LoCoMo data at {path}: pass --data "
                              "../shared/benchmarks/locomo/locomo10.json")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"malformed LoCoMo file {path}: {exc}") from None
    if not isinstance(raw, list):
        raise ValidationError(f"{path}: a LoCoMo file is a JSON list of conversations, got "
                              f"{type(raw).__name__}")
    convs: list[Conversation] = []
    for n, item in enumerate(raw[:limit_conversations], 1):
        # Invariant 458: a bad record is named (its number and what is wrong), never a KeyError.
        try:
            convs.append(_conversation(item, len(convs), limit_questions))
        except KeyError as exc:
            raise ValidationError(f"{path}: record {n} is not a LoCoMo conversation: it has no "
                                  f"{exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError, IndexError, ValidationError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ValidationError(f"{path}: record {n} is not a LoCoMo conversation: "
                                  f"{why}") from None
    return convs


def _conversation(item: dict, index: int, limit_questions: int | None) -> Conversation:
    conv = item["conversation"]
    turns: list[Turn] = []
    sessions = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)))
    for n in sessions:
        start = parse_session_time(conv[f"session_{n}_date_time"])
        for i, t in enumerate(conv[f"session_{n}"]):
            # Seconds apart so turns keep their order inside a session.
            turns.append(Turn(dia_id=t["dia_id"], speaker=t["speaker"], text=t["text"],
                              caption=t.get("blip_caption"),
                              timestamp=start + timedelta(seconds=i)))
    if not turns:
        raise ValueError("it holds no session turns")
    known = {t.dia_id for t in turns}
    qa = [QA(question=q["question"], category=int(q["category"]),
             evidence=[e for e in normalise_evidence(q.get("evidence", [])) if e in known])
          for q in item["qa"]]
    return Conversation(sample_id=item["sample_id"], split=split_of(index), turns=turns,
                        qa=qa[:limit_questions])


class Corpus(BaseModel):
    """An ingested LoCoMo store: where it is and which episode id is which dialog turn."""

    store_url: str
    episode_to_turn: dict[str, dict[str, str]] = Field(description="user -> episode id -> dia_id")


def ingest(store: Store, convs: Sequence[Conversation], *, with_captions: bool = True) -> Corpus:
    """One user per conversation; every turn an episode dated by its session (one batch each)."""
    service = MemoryService(store)
    mapping: dict[str, dict[str, str]] = {}
    for conv in convs:
        items = [(t.episode_text(with_captions), t.timestamp, f"{conv.sample_id}:{t.dia_id.split(':')[0]}")
                 for t in conv.turns]
        episodes = service.write_episodes(conv.user_id, items, actor="migrate")
        mapping[conv.user_id] = {ep.id: t.dia_id for ep, t in zip(episodes, conv.turns, strict=False)}
    return Corpus(store_url=store.url, episode_to_turn=mapping)


class CachedEmbedder:
    """Same vectors as the wrapped embedder, memoised: questions are embedded once, in a batch,
    instead of once per ablation (the eval would otherwise spend most of its time re-embedding)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.dims = inner, inner.name, inner.dims
        self._memo: dict[str, np.ndarray] = {}

    def warm(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            self._memo.update(zip(todo, self.inner.embed(todo), strict=False))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) != 1 or texts[0] not in self._memo:
            return self.inner.embed(texts)
        return self._memo[texts[0]][None, :]


class VariantResult(BaseModel):
    label: str
    overall: dict[int, float] = Field(description="k -> mean fractional recall, all 5 categories")
    without_adversarial: dict[int, float]
    per_category: dict[str, dict[int, float]]
    n: int
    per_split: dict[str, dict[int, float]] = Field(
        default_factory=dict, description="conversations 1-5 (tune) and 6-10 (test)")
    per_split_category: dict[str, dict[str, dict[int, float]]] = Field(default_factory=dict)
    n_split: dict[str, int] = Field(default_factory=dict)


class LocomoReport(BaseModel):
    kind: str = "locomo"
    created_at: datetime
    data: str
    embedder: str
    conversations: int
    turns: int
    questions: int
    with_captions: bool
    ingest_seconds: float
    reused_store: bool = False
    variants: list[VariantResult]
    baseline_dragon: dict[int, float] = DRAGON


def evaluate(service_for: Callable[[Conversation], MemoryService], convs: Sequence[Conversation], corpus: Corpus, config: RecallConfig,
             label: str) -> VariantResult:
    """Ask every question as its conversation's user; score fractional recall at each k."""
    config = config.model_copy(update={"k": max(KS)})
    scores: dict[int, list[tuple[int, float]]] = {k: [] for k in KS}
    splits: list[str] = []
    for conv in convs:
        service = service_for(conv)
        ep_to_turn = corpus.episode_to_turn[conv.user_id]
        for qa in conv.qa:
            hits = service.recall(conv.user_id, qa.question, config=config, purpose=Purpose.EVAL).hits
            turns = [ep_to_turn.get(h.id, "") for h in hits]
            splits.append(conv.split)
            for k in KS:
                scores[k].append((qa.category, fractional_recall(turns, qa.evidence, k)))
    by_cat: dict[str, dict[int, float]] = defaultdict(dict)
    for k in KS:
        for cat, name in CATEGORIES.items():
            vals = [s for c, s in scores[k] if c == cat]
            if vals:
                by_cat[name][k] = round(mean(vals), 4)
    per_split: dict[str, dict[int, float]] = {}
    per_split_cat: dict[str, dict[str, dict[int, float]]] = {}
    for sp in SPLITS:
        rows = {k: [(c, x) for (c, x), s_ in zip(scores[k], splits, strict=False) if s_ == sp] for k in KS}
        if rows[KS[0]]:
            per_split[sp] = {k: round(mean([x for _, x in rows[k]]), 4) for k in KS}
            per_split_cat[sp] = {name: {k: round(mean([x for c, x in rows[k] if c == cat]), 4)
                                        for k in KS}
                                 for cat, name in CATEGORIES.items()
                                 if any(c == cat for c, _ in rows[KS[0]])}
    return VariantResult(
        per_split=per_split, per_split_category=per_split_cat,
        n_split={sp: splits.count(sp) for sp in SPLITS if sp in splits},
        label=label, n=len(scores[KS[0]]),
        overall={k: round(mean([s for _, s in scores[k]]), 4) for k in KS},
        without_adversarial={k: round(mean([s for c, s in scores[k] if c != 5]), 4) for k in KS},
        per_category=dict(by_cat))


def run_locomo(data: str | Path, embedder: Embedder, variants: dict[str, RecallConfig], *,
               store_path: str | Path | None = None, with_captions: bool = True,
               limit_conversations: int | None = None, limit_questions: int | None = None,
               split: str = "all", index_params: dict[str, IndexParams] | None = None,
               ) -> LocomoReport:
    """Ingest into a throwaway store (or store_path, reused when its mapping exists), ask all.

    `split` keeps only the tuning ("tune": conversations 1-5) or held-out ("test": 6-10)
    conversations. `index_params` maps a variant label to the store's context-window choices
    for that variant (default: the store's defaults)."""
    if split not in ("all", *SPLITS):
        raise ValidationError(f"unknown split {split!r}; choose all, tune or test")
    convs = load_locomo(data, limit_conversations=limit_conversations,
                        limit_questions=limit_questions)
    if split != "all":
        convs = [c for c in convs if c.split == split]
    cached = CachedEmbedder(embedder)
    with tempfile.TemporaryDirectory(prefix="memdesk-locomo-") as tmp:
        path = Path(store_path) if store_path else Path(tmp) / "locomo.db"
        sidecar = path.with_suffix(".turns.json")
        store = EmbeddedStore(path, cached)  # the eval sweeps the embedded index's own knobs
        try:
            started, reused = utcnow(), sidecar.exists()
            if reused:
                corpus = Corpus.model_validate_json(sidecar.read_text())
                missing = {c.user_id for c in convs} - set(corpus.episode_to_turn)
                if missing:
                    raise ValidationError(f"store {path} lacks conversations {sorted(missing)}: "
                                          "use a new --store-path")
            else:
                corpus = ingest(store, convs, with_captions=with_captions)
                sidecar.write_text(corpus.model_dump_json())
            ingest_seconds = (utcnow() - started).total_seconds()
            cached.warm([qa.question for c in convs for qa in c.qa])
            # "Now" is the day after each conversation ends: questions are asked after it.
            services = {c.user_id: MemoryService(store, clock=fixed_clock(c.last_time + timedelta(days=1)))
                        for c in convs}
            results = []
            for name, cfg in variants.items():
                store.set_index_params((index_params or {}).get(name, IndexParams()))
                results.append(evaluate(lambda c: services[c.user_id], convs, corpus, cfg, name))
        finally:
            store.close()
    return LocomoReport(
        created_at=utcnow(), data=str(data), embedder=embedder.name, conversations=len(convs),
        turns=sum(len(c.turns) for c in convs), questions=sum(len(c.qa) for c in convs),
        with_captions=with_captions, ingest_seconds=round(ingest_seconds, 1), reused_store=reused,
        variants=results)


def render_markdown(report: LocomoReport) -> str:
    ks = " | ".join(f"R@{k}" for k in KS)
    sep = "|---" * (len(KS) + 1) + "|"
    lines = [f"# LoCoMo evidence recall ({report.created_at:%Y-%m-%d %H:%M} UTC)", "",
             (f"{report.conversations} conversations, {report.turns} turns, {report.questions} "
              f"questions; embedder `{report.embedder}`; captions "
              f"{'on' if report.with_captions else 'off'}; "
              + ("ingested store reused. " if report.reused_store
                 else f"ingest {report.ingest_seconds:.0f} s. ")
              + "Fractional recall of evidence turns in the top k, averaged over questions "
              "(no evidence counts 1)."), "",
             "## Overall (all 5 categories)", "", f"| variant | {ks} |", sep]
    lines.append("| DRAGON (paper) | " + " | ".join(f"{report.baseline_dragon[k] * 100:.1f}" for k in KS) + " |")
    lines += [f"| {v.label} | " + " | ".join(f"{v.overall[k] * 100:.1f}" for k in KS) + " |"
              for v in report.variants]
    lines += ["", "## Without category 5 (adversarial)", "", f"| variant | {ks} |", sep]
    lines += [f"| {v.label} | " + " | ".join(f"{v.without_adversarial[k] * 100:.1f}" for k in KS) + " |"
              for v in report.variants]
    if any(v.per_split for v in report.variants):
        lines += ["", "## By split (tune: conversations 1-5, test: 6-10)", "",
                  f"| variant | split | n | {ks} |", "|---|---|---" + "|---" * len(KS) + "|"]
        lines += [f"| {v.label} | {sp} | {v.n_split.get(sp, 0)} | "
                  + " | ".join(f"{vals[k] * 100:.1f}" for k in KS) + " |"
                  for v in report.variants for sp, vals in v.per_split.items()]
    for v in report.variants:
        lines += ["", f"## Per category: {v.label}", "", f"| category | {ks} |", sep]
        lines += [f"| {cat} | " + " | ".join(f"{vals[k] * 100:.1f}" for k in KS) + " |"
                  for cat, vals in v.per_category.items()]
    return "\n".join(lines) + "\n"
