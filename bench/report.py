"""The reading table of docs/benchmarks.md, regenerated from `memdesk eval agent` reports.

    .venv/bin/python bench/report.py                                 # print the rows
    .venv/bin/python bench/report.py --update docs/benchmarks.md     # write them into the doc

Every `memdesk eval agent` run leaves reports/agent-<UTC timestamp>.json. For each statements
file and split found there, the newest report's split becomes one row of the table under
"## Reading (the one reader, issue 28)": statements, labelled operations, active-write
precision, all-writes recall, the strict precision and recall, garbled values, denials handled
and relatives' news applied to the user (issue 28). With --update the table's rows are
replaced, except the "before issue 28" rows, which are history and stay as written; the
placeholder line goes. The reports used are printed to stderr with the time each was written,
so the section's date can be stated beside the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory.eval.agent_eval import AgentEvalReport, SplitScore

HEADING = "## Reading (the one reader, issue 28)"
HEADER = "| set | written |"
KEEP = "before issue 28"
PLACEHOLDER = "<!-- reading-table:"

# Which set a statements file (and split) is, and who wrote it when: the README beside each file.
SETS: dict[tuple[str, str], tuple[str, str]] = {
    ("statements", "tune"): ("tune", "by the rule writers while tuning (2026-12-01/02)"),
    ("statements", "heldout"): ("held out", "by the rule writers; split off by id hash, misses "
                                            "never listed"),
    ("statements_blind", "blind"): ("blind set 1", "2026-12-01, blind to the rules; tuning since "
                                                   "2026-12-02"),
    ("statements_blind2", "blind"): ("blind set 2", "2026-12-02, blind to the rules; tuning"),
    ("statements_blind3", "blind"): ("blind set 3", "2026-12-02, blind, users' plain voice; "
                                                    "tuning"),
    ("statements_blind4", "blind"): ("blind set 4", "2026-12-02, blind; frozen, aggregates only"),
    ("statements_tune4a", "tune"): ("tune4a", "2026-12-02, blind to the rules; tuning"),
    ("statements_tune4b", "tune"): ("tune4b", "2026-12-02, blind to the rules; tuning"),
    ("statements_unseen_dev", "tune"): ("unseen dev", "blind to the reader of issue 28; "
                                                      "development (tuning)"),
    ("statements_unseen_final", "blind"): ("unseen final", "blind to the reader of issue 28; "
                                                           "frozen, run once, aggregates only"),
}
ORDER = list(SETS)


def newest_splits(reports_dir: Path) -> dict[tuple[str, str], tuple[Path, AgentEvalReport]]:
    """(file stem, split) -> the newest report holding that split. Report names carry their UTC
    timestamp, so name order is time order; a file that is not an agent report is skipped."""
    found: dict[tuple[str, str], tuple[Path, AgentEvalReport]] = {}
    for path in sorted(reports_dir.glob("agent-*.json")):
        try:
            report = AgentEvalReport.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"skipped {path}: {str(exc).splitlines()[0]}", file=sys.stderr)
            continue
        stem = Path(report.data).stem
        for split in report.splits:
            if split != "all":
                found[(stem, split)] = (path, report)
    return found


def row(key: tuple[str, str], score: SplitScore) -> str:
    name, written = SETS.get(key, (f"{key[0]} ({key[1]})", "—"))
    c = score.reading
    cells = [name, written, str(score.statements), str(score.labelled_ops),
             f"{score.active_precision:.3f} ({c.active_right}/{c.active})",
             f"{score.all_recall:.3f} ({c.labels_met_any}/{c.labels})",
             f"{score.precision:.3f}", f"{score.recall:.3f}", str(c.garbled),
             f"{c.denials_handled}/{c.denials}", str(c.kin_on_user)]
    return "| " + " | ".join(cells) + " |"


def rows(found: dict[tuple[str, str], tuple[Path, AgentEvalReport]]) -> list[str]:
    keys = sorted(found, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))
    return [row(k, found[k][1].splits[k[1]]) for k in keys]


def update(doc: Path, new_rows: list[str]) -> None:
    """Replace the reading table's rows in doc, keeping its "before issue 28" rows."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    try:
        start = lines.index(HEADING)
        header = next(i for i in range(start, len(lines)) if lines[i].startswith(HEADER))
    except (ValueError, StopIteration):
        raise SystemExit(f"{doc}: no reading table under {HEADING!r}") from None
    first = header + 2  # the header, then the delimiter row
    end = first
    while end < len(lines) and lines[end].startswith(("|", PLACEHOLDER)):
        end += 1
    kept = [line for line in lines[first:end] if line.startswith("|") and KEEP in line]
    lines[first:end] = new_rows + kept
    doc.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=Path, default=Path("reports"),
                    help="directory of the eval reports (default: reports)")
    ap.add_argument("--update", type=Path, metavar="DOC",
                    help="write the rows into DOC's reading table instead of printing them")
    args = ap.parse_args(argv)
    found = newest_splits(args.reports)
    if not found:
        print(f"no agent reports under {args.reports}/ (run `memdesk eval agent` first)",
              file=sys.stderr)
        return 1
    for key in sorted(found):
        path, report = found[key]
        stamp = path.stem.removeprefix("agent-")  # the UTC time the report was written
        print(f"{key[0]} {key[1]}: {path} (written {stamp} UTC, {report.embedder}, "
              f"{report.mode}, {report.seconds:.0f} s)", file=sys.stderr)
    new_rows = rows(found)
    if args.update:
        update(args.update, new_rows)
    else:
        print("\n".join(new_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
