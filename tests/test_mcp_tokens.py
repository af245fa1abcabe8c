"""Bearer tokens for MCP (issue 15): hashed in the store, shown once, audited, refused when
missing, wrong, expired or revoked; erased and migrated with their user. Real embedded stores;
the Elasticsearch request shapes are in tests/es/test_credentials.py."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from memory import tokens
from memory.cli import main
from memory.clock import fixed_clock
from memory.credentials import Credential, parse_token
from memory.errors import ConflictError, NotFoundError, ValidationError
from memory.forgetting import erase_user
from memory.migration import migrate
from memory.service import MemoryService
from memory.stores import open_store
from memory.stores.base import PutCredential
from memory.tokens import AuthError, authenticate, create_token, parse_lifetime, revoke_token


@pytest.fixture
def svc(tmp_path, hash_embedder):
    store = open_store(f"embedded:{tmp_path / 'store.db'}", hash_embedder)
    yield MemoryService(store)
    store.close()


def _file_bytes(tmp_path) -> bytes:
    return b"".join(p.read_bytes() for p in tmp_path.glob("store.db*"))


def test_inv131_a_token_is_stored_as_a_hash_and_audited_without_it(svc, tmp_path):
    issued = create_token(svc, "alice", actor="cli", lifetime=timedelta(days=30), label="laptop")
    token_id, secret = parse_token(issued.token)
    cred = svc.store.get_credential(token_id)
    assert cred is not None and cred.user_id == "alice" and cred.label == "laptop"
    assert secret not in cred.model_dump_json()  # only the hash is kept
    assert len(cred.secret_sha256) == 64 and cred.secret_sha256 not in repr(cred)
    raw = _file_bytes(tmp_path)
    assert secret.encode() not in raw and issued.token.encode() not in raw
    (event,) = svc.audit("alice")
    assert (event.actor, event.action, event.target_ids) == ("cli", "token_create", [token_id])
    dumped = event.model_dump_json()
    assert secret not in dumped and cred.secret_sha256 not in dumped
    assert event.after["expires_at"] and event.after["read_only"] is False
    listed = [c.public() for c in tokens.list_tokens(svc)]
    assert listed == [cred.public()] and "secret_sha256" not in listed[0]


def test_inv132_authenticate_refuses_every_bad_token(svc):
    good = create_token(svc, "alice", actor="cli").token
    assert authenticate(svc, good).user_id == "alice"
    token_id, secret = parse_token(good)
    other = create_token(svc, "bob", actor="cli").token
    wrong_secret = f"mdk_{token_id}.{parse_token(other)[1]}"  # bob's secret under alice's id
    for bad in (None, "", "Bearer " + good, good[:-1], good + "x", "mdk_tok_0000000000000000."
                + secret, wrong_secret, good.replace("mdk_", "mdk-")):
        with pytest.raises(AuthError):
            authenticate(svc, bad)
    # An unknown id and a wrong secret get the same answer: nothing says which ids exist.
    with pytest.raises(AuthError, match="^invalid token$"):
        authenticate(svc, wrong_secret)


def test_inv132_expired_and_revoked_tokens_are_refused(svc):
    past = MemoryService(svc.store, clock=fixed_clock(datetime.now(UTC) - timedelta(days=2)))
    expired = create_token(past, "alice", actor="cli", lifetime=timedelta(days=1))
    with pytest.raises(AuthError, match="expired"):
        authenticate(svc, expired.token)
    assert authenticate(past, expired.token).id == expired.credential.id  # valid at its time
    live = create_token(svc, "alice", actor="cli", lifetime=None)
    assert live.credential.expires_at is None and authenticate(svc, live.token)
    revoked = revoke_token(svc, live.credential.id, actor="cli", reason="laptop stolen")
    assert revoked.revoked_by == "cli" and revoked.rev == 2
    with pytest.raises(AuthError, match="revoked"):
        authenticate(svc, live.token)
    events = [e for e in svc.audit("alice") if e.action == "token_revoke"]
    assert len(events) == 1 and events[0].reason == "laptop stolen"
    assert events[0].before["revoked_at"] is None and events[0].after["revoked_at"]
    revoke_token(svc, live.credential.id, actor="cli")  # again: nothing changes, no new event
    assert len([e for e in svc.audit("alice") if e.action == "token_revoke"]) == 1
    with pytest.raises(NotFoundError):
        revoke_token(svc, "tok_0123456789abcdef", actor="cli")


def test_inv23_a_stale_revocation_conflicts_and_writes_nothing(svc):
    cred = create_token(svc, "alice", actor="cli").credential
    revoke_token(svc, cred.id, actor="cli")
    stale = cred.model_copy(update={"label": "renamed", "rev": 2})
    with pytest.raises(ConflictError):
        svc.store.apply([PutCredential(credential=stale, expected_rev=1)])
    with pytest.raises(ConflictError):  # a second token under an existing id
        svc.store.apply([PutCredential(credential=cred)])
    assert svc.store.get_credential(cred.id).revoked_at is not None


def test_a_token_needs_a_user_and_a_sane_lifetime(svc):
    with pytest.raises(ValidationError):
        create_token(svc, "", actor="cli")
    with pytest.raises(ValidationError):
        create_token(svc, "alice", actor="someone else")
    assert parse_lifetime("30d") == timedelta(days=30)
    assert parse_lifetime(" 12H ") == timedelta(hours=12)
    assert parse_lifetime("never") is None
    for bad in ("", "30", "d", "-1d", "0h", "3651d", "1y", "30 days", "١٢h"):
        with pytest.raises(ValidationError):
            parse_lifetime(bad)


def test_inv131_erasing_a_user_deletes_its_tokens(svc):
    alice = create_token(svc, "alice", actor="cli")
    bob = create_token(svc, "bob", actor="cli")
    erase_user(svc, "alice", actor="cli")
    assert tokens.list_tokens(svc, "alice") == [] and svc.store.get_credential(
        alice.credential.id) is None
    with pytest.raises(AuthError):
        authenticate(svc, alice.token)
    assert authenticate(svc, bob.token).user_id == "bob"


def test_inv131_migrating_a_store_moves_its_tokens(svc, tmp_path, hash_embedder):
    live = create_token(svc, "alice", actor="cli")
    gone = create_token(svc, "alice", actor="cli", read_only=True)
    revoke_token(svc, gone.credential.id, actor="cli")
    dst = open_store(f"embedded:{tmp_path / 'moved.db'}", hash_embedder)
    try:
        rows = migrate(svc.store, dst)
        assert any(r.index == "credentials" and r.source == r.target == 2 for r in rows)
        moved = MemoryService(dst)
        assert authenticate(moved, live.token).user_id == "alice"
        with pytest.raises(AuthError, match="revoked"):
            authenticate(moved, gone.token)
        migrate(svc.store, dst)  # re-running converges
        assert len(dst.list_credentials("alice")) == 2
    finally:
        dst.close()


def test_credential_refuses_an_expiry_before_its_creation():
    now = datetime.now(UTC)
    with pytest.raises(ValueError):
        Credential(id="tok_0123456789abcdef", user_id="u", secret_sha256="0" * 64,
                   created_at=now, created_by="cli", expires_at=now - timedelta(seconds=1))


# --- the CLI --------------------------------------------------------------------------------
def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_token_create_list_revoke(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    store = f"embedded:{tmp_path / 'cli.db'}"
    code, out, _ = _cli(capsys, "--store", store, "--json", "mcp", "token", "create", "--user",
                        "alice", "--read-only", "--expires", "12h", "--label", "Claude Desktop")
    assert code == 0
    made = json.loads(out)
    assert made["token"].startswith("mdk_tok_") and made["read_only"] is True
    assert "secret_sha256" not in made and made["label"] == "Claude Desktop"
    code, out, _ = _cli(capsys, "--store", store, "mcp", "token", "create", "--user", "bob")
    assert code == 0 and "shown only now" in out and out.startswith("mdk_tok_")
    code, out, _ = _cli(capsys, "--store", store, "--json", "mcp", "token", "list")
    listed = json.loads(out)
    assert [r["user_id"] for r in listed] == ["alice", "bob"]
    assert all("secret_sha256" not in r and "token" not in r for r in listed)
    assert made["token"] not in out
    code, out, _ = _cli(capsys, "--store", store, "mcp", "token", "list", "--user", "alice")
    assert code == 0 and made["id"] in out and "read-only" in out and "bob" not in out
    code, out, _ = _cli(capsys, "--store", store, "mcp", "token", "revoke", made["id"],
                        "--reason", "rotated")
    assert code == 0 and "revoked" in out
    code, out, _ = _cli(capsys, "--store", store, "--json", "mcp", "token", "list", "--user",
                        "alice")
    assert json.loads(out)[0]["status"] == "revoked"


@pytest.mark.parametrize("argv, code, message", [
    (["mcp", "token", "create", "--user", "alice", "--expires", "forever"], 2, "invalid expiry"),
    (["mcp", "token", "create"], 2, "--user"),
    (["mcp", "token", "revoke", "alice"], 2, "invalid token id"),
    (["mcp", "token", "revoke", "tok_0123456789abcdef"], 3, "no token"),
    (["mcp", "serve"], 2, "needs --user"),
    (["mcp", "serve", "--transport", "http", "--user", "alice"], 2, "come from each request"),
    (["mcp", "serve", "--transport", "http", "--port", "70000"], 2, "port"),
])
def test_cli_bad_token_and_serve_input_is_one_clear_line(tmp_path, capsys, monkeypatch, argv,
                                                         code, message):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    got, _, err = _cli(capsys, "--store", f"embedded:{tmp_path / 'cli.db'}", *argv)
    assert got == code and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
