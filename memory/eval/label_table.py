"""The labels measure as rows and as text: the Evals page and `memdesk eval labels` show the same
table (issue 32, invariant 491)."""

from __future__ import annotations

from review.label_source import LabelTables
from review.labels import MeasureRow

COLUMNS = ("reader", "kind", "day", "decided", "precision", "accepted", "edited",
           "mean edit distance", "merged", "rejected", "retracted", "corrected",
           "rejected by reason")  # the free-text column last: the figures stay aligned


def reasons(row: MeasureRow) -> str:
    return "; ".join(f"{r} ×{n}" for r, n in row.rejected_by_reason.items())


def table_rows(rows: list[MeasureRow]) -> list[dict]:
    """One dict per measure row, keyed by COLUMNS (a DataFrame's records). Pure."""
    return [{"reader": r.reader, "kind": r.kind, "day": r.day.isoformat() if r.day else "all",
             "decided": r.decided, "precision": r.precision, "accepted": r.accepted,
             "edited": r.edited, "mean edit distance": r.mean_edit_distance, "merged": r.merged,
             "rejected": r.rejected, "retracted": r.retracted, "corrected": r.corrected,
             "rejected by reason": reasons(r)} for r in rows]


def _text(rows: list[MeasureRow]) -> list[str]:
    recs = table_rows(rows)
    cells = [[("" if v is None else str(v)) for v in rec.values()] for rec in recs]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(COLUMNS)]
    line = lambda vals: "  ".join(v.ljust(w) for v, w in zip(vals, widths, strict=True))  # noqa: E731
    return [line(list(COLUMNS)), line(["-" * w for w in widths]), *(line(c) for c in cells)]


def render_tables(tables: LabelTables) -> str:
    """Both tables as aligned text; precision is right / decided over the `decided` count."""
    if not tables.labels:
        return (f"no decided proposals for {len(tables.users)} user(s) yet: approve, edit or "
                "reject items in the review queue (pending items are not counted)")
    return "\n".join([f"{len(tables.labels)} labels over {len(tables.users)} user(s)", "",
                      "By reader version", *_text(tables.by_reader), "",
                      "By reader version, kind and day", *_text(tables.by_reader_kind_day)])
