"""The MCP tokens page (issue 15) over a real embedded store: listing without secrets, and
revocation by a named operator, audited (invariants 80, 131, 132)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store
from memory.tokens import AuthError, authenticate, create_token, revoke_token
from memory.ui import runtime as desk_runtime
from tests.desk_support import PAYLOADS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store)
    past = MemoryService(store, clock=fixed_clock(datetime.now(UTC) - timedelta(days=3)))
    made = {
        "ana": create_token(svc, "ana", actor="cli", label=" ".join(PAYLOADS)),
        "ana_ro": create_token(svc, "ana", actor="cli", read_only=True),
        "bob": create_token(svc, "bob", actor="cli"),
        "old": create_token(past, "bob", actor="cli", lifetime=timedelta(days=1)),
        "gone": create_token(svc, "bob", actor="cli"),
    }
    revoke_token(svc, made["gone"].credential.id, actor="cli")
    store.close()
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    desk_runtime.clear()
    yield made
    desk_runtime().service.store.close()
    desk_runtime.clear()


def page(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages/tokens.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_inv131_tokens_are_listed_with_status_and_never_a_secret(desk):
    at = page()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    by_id = table.set_index("token")
    assert set(by_id.index) == {t.credential.id for t in desk.values()}
    assert by_id.loc[desk["old"].credential.id, "status"] == "expired"
    assert by_id.loc[desk["gone"].credential.id, "status"] == "revoked"
    assert by_id.loc[desk["ana_ro"].credential.id, "mode"] == "read-only"
    assert by_id.loc[desk["ana"].credential.id, "label"] == " ".join(PAYLOADS)  # as text
    rendered = table.to_csv() + " ".join(str(e.value) for e in at.markdown) + str(at.caption)
    for issued in desk.values():
        assert issued.token.split(".")[1] not in rendered
        assert issued.credential.secret_sha256 not in rendered
    assert not any("<img" in str(m.value) for m in at.markdown)
    at.selectbox(key="tokens_user").select("ana").run()
    assert set(at.dataframe[0].value["user"]) == {"ana"}


def test_inv132_an_operator_revokes_a_token_and_the_next_request_is_refused(desk):
    target = desk["bob"].credential.id
    at = page(operator_name="rita")
    assert set(at.selectbox(key="tokens_target").options) == {
        desk[k].credential.id for k in ("ana", "ana_ro", "bob")}  # active ones only
    at.selectbox(key="tokens_target").select(target)
    at.text_input(key="tokens_reason").input("left the team")
    at.button[0].click().run()
    assert not at.exception and "revoked" in at.success[0].value
    svc = desk_runtime().service
    with pytest.raises(AuthError, match="revoked"):
        authenticate(svc, desk["bob"].token)
    (event,) = [e for e in svc.audit("bob") if e.action == "token_revoke"
                and e.target_ids == [target]]
    assert event.actor == "operator:rita" and event.reason == "left the team"


def test_revoking_without_an_operator_name_changes_nothing(desk):
    at = page()
    at.button[0].click().run()
    assert "operator name" in at.error[0].value
    svc = desk_runtime().service
    assert authenticate(svc, desk["ana"].token).user_id == "ana"


def test_the_user_in_the_url_is_picked_and_kept(desk):
    """Issue 34: `?user=` chooses whose tokens are listed, and the choice goes back in the URL;
    the how-to caption renders its commands as code, not literal backticks."""
    at = AppTest.from_file(str(ROOT / "pages/tokens.py"), default_timeout=60)
    at.query_params["user"] = "bob"
    at.run()
    assert not at.exception and set(at.dataframe[0].value["user"]) == {"bob"}
    assert at.sidebar.selectbox(key="tokens_user").value == "bob"
    assert "\\`" not in at.caption[0].value and "`memdesk mcp serve" in at.caption[0].value
    at.sidebar.selectbox(key="tokens_user").select("ana").run()
    assert at.query_params["user"] == ["ana"] or at.query_params["user"] == "ana"
