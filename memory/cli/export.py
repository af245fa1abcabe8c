"""`memdesk export --user U [--format json|md] [--out FILE]` and `memdesk import FILE`: one
user's memory as a data-subject export, and back into a store without that user (issue 14,
memory/export.py). The CLI acts as a local admin (cli:<os user>)."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from ..access import cli_actor
from ..errors import ValidationError
from ..export import export_user, import_user, parse, render_markdown, to_json
from . import CommandParser, Subcommands, emit, out


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("export", parents=[common],
                       help="one user's memory (facts with chains and both clocks, episodes, "
                            "playbooks, tombstones as hashes, audit) as JSON or Markdown")
    p.add_argument("--user", required=True, help="whose memory")
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.add_argument("--out", help="write to this file (default: standard output)")
    p.set_defaults(func=cmd_export)
    p = sub.add_parser("import", parents=[common],
                       help="load an export (JSON) into a store that holds no memory of its user, "
                            "with the same ids")
    p.add_argument("file", help="an export written by `memdesk export --format json`")
    p.set_defaults(func=cmd_import)


def _check_out(path: Path) -> None:
    """Refuse an unusable --out before anything is read (or the export audited)."""
    if path.is_dir():
        raise ValidationError(f"--out {path} is a directory: name a file")
    if not path.parent.is_dir():
        raise ValidationError(f"--out {path}: the folder {path.parent} does not exist")


def _write_private(path: Path, text: str) -> None:
    """A personal-data file readable by its owner only, written whole or not at all."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def cmd_export(args: argparse.Namespace) -> int:
    if args.out:
        _check_out(Path(args.out))
    export = export_user(args.runtime.service, args.user, actor=cli_actor())
    text = to_json(export) if args.format == "json" else render_markdown(export)
    if args.out:
        _write_private(Path(args.out), text)
        c = export.counts()
        out(f"exported {export.user_id} to {args.out}: {c['facts']} facts, {c['episodes']} "
            f"episodes, {c['playbooks']} playbooks, {c['tombstones']} tombstones, "
            f"{c['audit_events']} audit events")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    raw = Path(args.file).read_bytes()
    # Invariant 178: the import's own event names the file by its hash.
    res = import_user(args.runtime.service, parse(raw), actor=cli_actor(),
                      file_sha256=hashlib.sha256(raw).hexdigest())

    def render(p: dict[str, Any]) -> str:
        lines = [(f"imported {p['user_id']}: {p['facts']} facts, {p['episodes']} episodes, "
                 f"{p['playbooks']} playbooks, {p['audit_events']} audit events, "
                 f"{len(p['tombstones_restored'])} tombstones restored")]
        if p["tombstones_kept"]:
            lines.append(f"{len(p['tombstones_kept'])} tombstones already here under the same id "
                         "were kept as they are (they still refuse their value)")
        if p["tombstones_not_restored"]:
            lines.append("not restored (no fact in the export holds their value): "
                         + ", ".join(p["tombstones_not_restored"]))
        return "\n".join(lines)

    emit(args, res.model_dump(mode="json"), render)
    return 0
