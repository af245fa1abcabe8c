"""The architecture as tests (issue 10): the import layers hold, every module has a layer, pages
stay above the store, and only the unit of work and the stores build store operations or audit
events (invariant 8's one door)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from memory.unit_of_work import DIRECT_WRITES, STORE_WRITES

ROOT = Path(__file__).resolve().parents[1]

# Store operations and audit events: built only by memory/stores/ and memory/unit_of_work.py.
DOOR_ONLY = {"PutMemory", "UpdateMemory", "DeleteMemory", "PutTombstone", "AppendAudit",
             "SetWatermark", "AuditEvent"}
DOOR = ("memory/stores/", "memory/unit_of_work.py")
# Receivers that are no store: a unit-of-work batch, and the reader's hints (`hint.apply`).
NOT_STORES = {"b", "batch", "hint"}
PRODUCT = ("memory", "review", "pages", "bench", "app.py")


def _python_files(*roots: str) -> list[Path]:
    out: list[Path] = []
    for name in roots:
        path = ROOT / name
        out += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return out


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_import_layers_hold():
    """`lint-imports` with the contract in pyproject.toml; the same command `make test` runs."""
    tool = Path(sys.executable).with_name("lint-imports")
    assert tool.exists(), f"{tool} is missing: pip install -e '.[dev]' (import-linter)"
    run = subprocess.run([str(tool), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


def test_every_module_has_a_layer():
    """A new top-level module must be placed in the contract, or it would escape it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    placed = {m.strip() for layer in contract["layers"]
              for m in layer.replace("|", ":").split(":")}
    modules = {f"memory.{p.stem}" for p in (ROOT / "memory").glob("*.py") if p.stem != "__init__"}
    modules |= {f"memory.{p.parent.name}" for p in (ROOT / "memory").glob("*/__init__.py")}
    modules.add("review")
    assert modules - placed == set(), "modules with no layer in pyproject.toml"
    assert placed - modules == set(), "layers naming modules that do not exist"


def test_pages_never_reach_the_store_or_the_unit_of_work():
    """Pages are thin: they call the service, review and desk helpers (memory/ui)."""
    bad = []
    for path in _python_files("pages", "app.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bad += [f"{_rel(path)}:{node.lineno} imports {n}" for n in names
                    if n.startswith(("memory.stores", "memory.unit_of_work"))]
    assert bad == []


def _door_only_constructions(where: str, source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        # Op(...) or ops.Op(...), and Op.model_validate / model_construct / model_validate_json
        if isinstance(func, ast.Attribute) and func.attr.startswith("model_"):
            func = func.value
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else None
        if name in DOOR_ONLY:
            found.append(f"{where}:{node.lineno} builds {name}")
    return found


def _receiver(node: ast.expr) -> str | None:
    """The name a method is called on: `store` for store.x(), svc.store.x(); `Batch` for
    Batch(...).x() and svc.batch(...).x()."""
    if isinstance(node, ast.Call):
        inner = node.func
        name = inner.id if isinstance(inner, ast.Name) else \
            inner.attr if isinstance(inner, ast.Attribute) else None
        return "batch" if name in ("Batch", "batch", "catalog_batch") else name
    return node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else None


def _store_write_calls(where: str, source: str) -> list[tuple[str, str, int]]:
    """Invariant 451: calls of a store's writing method (and value_key(create=True)) on anything
    that is not a batch, as (file, method, line)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method = node.func.attr
        creates = method == "value_key" and any(
            k.arg == "create" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in node.keywords)
        if (method in STORE_WRITES or creates) and _receiver(node.func.value) not in NOT_STORES:
            found.append((where, method, node.lineno))
    return found


def test_every_store_write_goes_through_the_unit_of_work_or_is_a_named_exception():
    """Invariant 451: outside the stores and the unit of work, no store writing method is called
    except the exceptions listed in memory/unit_of_work.py (DIRECT_WRITES), each still used."""
    calls = [hit for path in _python_files(*PRODUCT) if not _rel(path).startswith(DOOR)
             for hit in _store_write_calls(_rel(path), path.read_text(encoding="utf-8"))]
    stray = [f"{f}:{line} calls {m}" for f, m, line in calls if (f, m) not in DIRECT_WRITES]
    assert stray == []
    assert set(DIRECT_WRITES) - {(f, m) for f, m, _ in calls} == set(), "stale exceptions"


def test_the_store_write_check_sees_a_call():
    source = ("svc.store.redact('ana', erasure)\n"
              "store.value_key(create=True)\n"
              "store.value_key()\n"
              "dst.adopt_value_key(key)\n"
              "self.store.bump_usage('ana', [], now)\n"
              "b.erase_user(after={})\n"
              "svc.batch('cli', 'ana').erase_text(e)\n"
              "x.erase_user('ana', event)\n")
    found = [(m, line) for _, m, line in _store_write_calls("probe.py", source)]
    assert found == [("redact", 1), ("value_key", 2), ("adopt_value_key", 4),
                     ("bump_usage", 5), ("erase_user", 8)]


def test_only_the_unit_of_work_and_the_stores_build_operations_or_audit_events():
    """Invariant 8 by construction: a mutation can be audited only if there is one door."""
    found = [hit for path in _python_files(*PRODUCT) if not _rel(path).startswith(DOOR)
             for hit in _door_only_constructions(_rel(path), path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_door_check_sees_a_construction():
    """The check above can fail: it finds each way of building one."""
    source = ("from memory.stores.base import AppendAudit, PutMemory\n"
              "from memory.models import AuditEvent\n"
              "import memory.stores.base as base\n"
              "a = PutMemory(doc=None)\n"
              "b = base.AppendAudit(event=None)\n"
              "c = AuditEvent.model_validate({})\n"
              "isinstance(a, PutMemory)  # a reference, not a construction\n")
    found = _door_only_constructions("probe.py", source)
    assert sorted(found) == ["probe.py:4 builds PutMemory", "probe.py:5 builds AppendAudit",
                             "probe.py:6 builds AuditEvent"]
