"""How much of each evaluation question is copied from its gold document (invariant 54).

Overlap of a question = the fraction of its content words (stop words removed, porter
stemming so "batteries" meets "battery") that also occur in the gold document's search text.
A question that scores 1.0 could be answered by string matching alone; the eval needs
paraphrases. `python -m memory.personas.overlap` prints the distribution.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel

from ..stores.base import PutMemory
from ..text import STOP_WORDS, term_set
from . import DATA_DIR, QUESTIONS_FILE
from .loader import data_files, read_ops

# The one stop list plus the words every question is made of ("want", "like", "know").
STOP = STOP_WORDS | frozenset(["get", "got", "still", "ever", "much", "many", "one", "two", "way", "thing", "things", "want", "like", "come", "make", "take", "use", "go", "know", "need", "new", "old", "really"])
MAX_MEAN = 0.35  # invariant 54: questions are paraphrases, not copies of the gold text


def content_words(text: str) -> set[str]:
    """Stemmed content words (memory/text.py's tokenizer and porter stemmer)."""
    return set(term_set(text, stop=STOP, min_len=2))


def overlap(question: str, gold_text: str) -> float:
    q = content_words(question)
    return len(q & content_words(gold_text)) / len(q) if q else 0.0


class OverlapReport(BaseModel):
    questions: int
    mean: float
    median: float
    p90: float
    max: float
    zero_share: float  # questions sharing no content word with their gold document
    histogram: dict[str, int]  # overlap bucket -> questions
    by_kind: dict[str, float]  # mean overlap per gold kind


def gold_texts(data_dir: Path = DATA_DIR) -> dict[str, str]:
    """Search text of every document in the persona data, by id."""
    out = {}
    for path in data_files(data_dir):
        for op in read_ops(path):
            if isinstance(op, PutMemory):
                out[op.doc.id] = op.doc.search_text()
    return out


def measure(questions: list[dict], texts: dict[str, str]) -> OverlapReport:
    scores = [overlap(q["question"], texts[q["gold_id"]]) for q in questions]
    kinds: dict[str, list[float]] = defaultdict(list)
    for q, s in zip(questions, scores, strict=False):
        kinds[q["gold_kind"]].append(s)
    hist = {f"{lo / 10:.1f}-{(lo + 1) / 10:.1f}": 0 for lo in range(10)}
    for s in scores:
        lo = min(int(s * 10), 9)
        hist[f"{lo / 10:.1f}-{(lo + 1) / 10:.1f}"] += 1
    ordered = sorted(scores)
    return OverlapReport(
        questions=len(scores), mean=round(statistics.fmean(scores), 4),
        median=round(statistics.median(scores), 4),
        p90=round(ordered[int(0.9 * (len(ordered) - 1))], 4), max=round(max(scores), 4),
        zero_share=round(sum(1 for s in scores if s == 0) / len(scores), 4), histogram=hist,
        by_kind={k: round(statistics.fmean(v), 4) for k, v in sorted(kinds.items())})


def load_questions(path: Path = QUESTIONS_FILE) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def main() -> int:
    report = measure(load_questions(), gold_texts())
    print(json.dumps(report.model_dump(), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
