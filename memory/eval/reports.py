"""Report files under reports/: NAME-<UTC timestamp>.json beside the same report in Markdown."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from ..clock import utcnow

REPORTS_DIR = Path("reports")


def write_reports(report: BaseModel, markdown: str, name: str,
                  out_dir: str | Path = REPORTS_DIR) -> tuple[Path, Path]:
    """Write NAME-<timestamp>.json and .md under out_dir; return both paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stamp = utcnow().strftime("%Y%m%dT%H%M%S")
    base, n = f"{name}-{stamp}", 1
    while (out / f"{base}.json").exists():  # two runs in one second must not overwrite
        n += 1
        base = f"{name}-{stamp}-{n}"
    json_path, md_path = out / f"{base}.json", out / f"{base}.md"
    json_path.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    return json_path, md_path


class LatestReport(BaseModel):
    path: str
    data: dict
    markdown: str


def latest(kind: str, out_dir: str | Path = REPORTS_DIR) -> LatestReport | None:
    """The newest report of one kind (recall, locomo, stress), or None when there is none."""
    out = Path(out_dir)
    if not out.is_dir():
        return None
    for path in sorted(out.glob(f"{kind}-*.json"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):  # a half-written or foreign file: skip it
            continue
        md = path.with_suffix(".md")
        return LatestReport(path=str(path), data=data,
                            markdown=md.read_text(encoding="utf-8") if md.exists() else "")
    return None
