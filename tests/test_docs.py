"""Docs stay true: every invariant is cited in code and in a test; every command and setting is
documented; the README keeps exactly two set-up commands and .ci/run calls the test one."""

from __future__ import annotations

import re
from pathlib import Path

from memory.cli import build_parser
from memory.settings import settings_table

ROOT = Path(__file__).resolve().parent.parent
CITE = re.compile(r"(?:invariants?|inv\.?)\s*(\d+(?:\s*(?:-|–|,|and)\s*\d+)*)", re.IGNORECASE)
TEST_NAME = re.compile(r"inv(\d+)_")


def _numbers(spec: str) -> set[int]:
    out: set[int] = set()
    for part in re.split(r"\s*(?:,|and)\s*", spec):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2:
            out.update(range(int(bounds[0]), int(bounds[1]) + 1))
        elif bounds[0]:
            out.add(int(bounds[0]))
    return out


def _cited(paths: list[Path], *, test_names: bool = False) -> set[int]:
    found: set[int] = set()
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for m in CITE.finditer(text):
            found |= _numbers(m.group(1))
        if test_names:
            found |= {int(n) for n in TEST_NAME.findall(text)}
    return found


def documented_invariants() -> set[int]:
    text = (ROOT / "docs" / "invariants.md").read_text(encoding="utf-8")
    return {int(n) for n in re.findall(r"^(\d+)\. \*\*", text, re.MULTILINE)}


def test_every_invariant_is_cited_in_code_and_tests():
    numbers = documented_invariants()
    assert set(range(1, 18)) <= numbers
    code = [p for d in ("memory", "review") for p in (ROOT / d).rglob("*.py")]
    tests = list((ROOT / "tests").rglob("test_*.py"))
    assert not (missing := numbers - _cited(code)), f"invariants not cited in code: {sorted(missing)}"
    assert not (untested := numbers - _cited(tests, test_names=True)), \
        f"invariants with no test citing them: {sorted(untested)}"


def test_every_cli_command_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    missing = [name for name in sub.choices if f"memdesk {name}" not in readme]
    assert not missing, f"commands missing from README: {missing}"


def test_every_setting_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [name for name, _, _ in settings_table() if f"`{name}`" not in readme]
    assert not missing, f"settings missing from README: {missing}"


def test_quick_start_has_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_the_invariants_index_names_every_number_in_use_once():
    """issue 33: the index at the top of docs/invariants.md covers every numbered rule, each in
    exactly one section row, and names no number that is not in use."""
    text = (ROOT / "docs" / "invariants.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[(?P<name>[^\]]+)\]\(#[^)]*\)(?! \(never reused\)) \| (?P<n>[\d–, -]+) \|$",
                      text, re.MULTILINE)
    seen: list[int] = [n for _, spec in rows for n in sorted(_numbers(spec))]
    assert len(seen) == len(set(seen)), "a number is in two index rows"
    assert set(seen) == documented_invariants()
