"""Secrets by phrasing (issue 30): the held-out table tests/data/secrets_heldout.jsonl (written
before the detector was changed), the fresh one (written after tuning), the blind one
(tests/data/secrets_blind.jsonl, written blind) — all three tuning data since the scan of
invariant 460 — tests/data/secrets_blind2.jsonl (written blind, measured once after the detector
was frozen, tuning data since issue 30's third pass), tests/data/secrets_blind3.jsonl (written
blind, measured once, tuning data since the fourth pass) and the passes' probes, one group per
mechanism (tests/data/secrets_mechanisms.jsonl, written before the detector changed for them),
the fifth, sixth and seventh passes' probes (tests/data/secrets_probes5.jsonl,
secrets_probes6.jsonl, secrets_probes7.jsonl, in rounds, each written before the detector changed
for it), tests/data/secrets_blind4.jsonl
(written blind, run twice with counts only; tuning data since the sixth pass: its rows are
shown), tests/data/secrets_blind5.jsonl (written blind, run twice with counts only; tuning data
since the seventh pass: its rows are shown), tests/data/secrets_blind6.jsonl (written blind for
the next measured change; counts only) and tests/data/secrets_blind7.jsonl (written blind for the
change after it; counts only), through
the episode path (`memory.sensitive.masked`, what a message is stored as) and the fact
door (`secret_in`).

    python bench/bench_secrets.py                 # every table
    python bench/bench_secrets.py --skip-blind    # all but the tables nobody may tune on

Prints: secret-handing messages whose secret survives in the stored episode (target 0), and
ordinary sentences changed by masking (target at most 2%), with the failing rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.sensitive import masked, secret_in  # noqa: E402

TABLES = [ROOT / "tests" / "data" / "secrets_heldout.jsonl",  # written first, then tuned on
          ROOT / "tests" / "data" / "secrets_fresh.jsonl",  # written after, then tuned on
          ROOT / "tests" / "data" / "secrets_blind.jsonl",  # written blind, then tuned on
          ROOT / "tests" / "data" / "secrets_blind2.jsonl",  # written blind, then tuned on
          ROOT / "tests" / "data" / "secrets_mechanisms.jsonl",  # probes per mechanism
          ROOT / "tests" / "data" / "secrets_blind3.jsonl",  # written blind, then tuned on
          ROOT / "tests" / "data" / "secrets_probes5.jsonl",  # the fifth pass's probes
          ROOT / "tests" / "data" / "secrets_probes6.jsonl",  # the sixth pass's probes
          ROOT / "tests" / "data" / "secrets_blind4.jsonl",  # written blind, tuned on since pass 6
          ROOT / "tests" / "data" / "secrets_blind5.jsonl",  # written blind, tuned on since pass 7
          ROOT / "tests" / "data" / "secrets_probes7.jsonl",  # the seventh pass's probes
          ROOT / "tests" / "data" / "secrets_blind6.jsonl",  # written blind, never run yet
          ROOT / "tests" / "data" / "secrets_blind7.jsonl"]  # written blind, never run yet


# A table nobody tuned on prints counts only: a failing row printed would be read, then tuned on.
# secrets_blind3.jsonl was measured once blind and is tuning data since issue 30's fourth pass;
# secrets_blind4.jsonl (written blind, run twice counts-only) is tuning data since the sixth pass:
# its rows are shown. secrets_blind5.jsonl (written blind, run twice counts-only) is tuning data
# since the seventh pass: its rows are shown too. secrets_blind6.jsonl and secrets_blind7.jsonl
# (written for the next measured changes, never run) are counts only and skipped with --skip-blind.
COUNTS_ONLY: frozenset[str] = frozenset({"secrets_blind6.jsonl", "secrets_blind7.jsonl"})


def main(argv: list[str] | None = None) -> None:
    skip = "--skip-blind" in (sys.argv[1:] if argv is None else argv)
    for table in TABLES:
        if skip and table.name in COUNTS_ONLY or not table.exists():
            continue  # a helper tuning the detector never scores the blind table (issue 30)
        print(f"== {table.name}")
        report([json.loads(line) for line in table.read_text(encoding="utf-8").splitlines()
                if line], rows_shown=table.name not in COUNTS_ONLY)


def report(rows: list[dict], rows_shown: bool = True) -> None:
    secret_rows = [r for r in rows if r["secrets"]]
    ordinary = [r for r in rows if not r["secrets"]]
    stored = [r for r in secret_rows if any(s in masked(r["text"]) for s in r["secrets"])]
    unflagged = [r for r in secret_rows if not secret_in(r["text"])]
    wrong = [r for r in ordinary if masked(r["text"]) != r["text"]]
    flagged = [r for r in ordinary if secret_in(r["text"])]
    print(f"secret-handing messages: {len(secret_rows)}; secret kept in the episode: "
          f"{len(stored)}; not recognised as holding a secret: {len(unflagged)}")
    print(f"ordinary sentences: {len(ordinary)}; changed by masking: {len(wrong)} "
          f"({100 * len(wrong) / len(ordinary):.1f}%); flagged as a secret: {len(flagged)} "
          f"({100 * len(flagged) / len(ordinary):.1f}%)")
    if not rows_shown:
        return
    for r in stored:
        print(f"  KEPT   {r['text']!r} -> {masked(r['text'])!r}")
    for r in wrong:
        print(f"  WRONG  {r['text']!r} -> {masked(r['text'])!r}")


if __name__ == "__main__":
    main()
