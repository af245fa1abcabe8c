"""The desk with and without login (issue 14), for real under AppTest: Streamlit's own
`st.user` is what AppTest simulates (`at.user`), and `[auth]` in `at.secrets` turns login on.
With login nothing but the sign-in screen renders before an identity, the operator is the
identity provider's address, and roles hide what they cannot use while the layer refuses it
anyway (invariants 121, 122). The real OIDC round trip is tests/test_browser_login.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from memory.errors import AccessDenied
from memory.ui import runtime as desk_runtime
from review import decide, propose
from tests.desk_support import decide_button, html_bodies, html_table, plain, tables_shown
from tests.test_pages import _close_cached, seed

ROOT = Path(__file__).resolve().parent.parent
AUTH = {"auth": {"redirect_uri": "http://127.0.0.1:8501/oauth2callback",
                 "cookie_secret": "a-test-cookie-secret-of-some-length",
                 "client_id": "memdesk", "client_secret": "s3cret",
                 "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}}
ROLES = """default = "viewer"
[operators]
"rita@example.com" = "reviewer"
"ada@example.com" = "admin"
"@nowhere.example" = "viewer"
"""


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    ids = seed(db)
    from memory.embeddings import get_embedder
    from memory.service import MemoryService
    from memory.stores import open_store

    store = open_store(f"embedded:{db}", get_embedder("hash"))
    ids["jazz"] = propose(MemoryService(store), "ana", "Likes jazz", confidence=0.4).id
    store.close()
    roles = tmp_path / "roles.toml"
    roles.write_text(ROLES)
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    monkeypatch.setenv("MEMDESK_ROLES_FILE", str(roles))
    desk_runtime.clear()
    yield ids
    _close_cached()


def run(name: str, *, user: dict | None = None, login: bool = True, **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / name), default_timeout=60)
    if login:
        at.secrets = AUTH
    if user is not None:
        at.user = user
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def signed_in(email: str, **claims) -> dict:
    return {"is_logged_in": True, "email": email, "name": email.split("@")[0], **claims}


def everything_shown(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("title", "markdown", "caption", "error", "info",
                                       "warning", "success", "text") for e in at.get(kind)]
    parts += html_bodies(at)
    return " ".join(parts)


# login on ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["app.py", "pages/users.py", "pages/facts.py",
                                  "pages/review.py", "pages/audit.py", "pages/chat.py"])
def test_nothing_renders_before_login(desk, name):
    at = run(name, user={"is_logged_in": False})
    assert not at.exception
    assert [b.label for b in at.button] == ["Sign in"]
    assert not tables_shown(at) and not at.text_input and not at.selectbox and not at.chat_input
    shown = everything_shown(at)
    for secret in ("Bristol", "Edinburgh", "Lisbon", "jazz", "ana", "bob", "desk.db"):
        assert secret not in shown, (name, secret)


def test_signed_in_operator_is_the_identity_providers_address(desk):
    at = run("app.py", user=signed_in("rita@example.com"))
    assert not at.exception and not at.error
    side = " ".join(plain(c.value) for c in at.sidebar.caption)
    assert "Signed in as **rita@example.com** · reviewer" in side
    assert "operator_name" not in [t.key for t in at.text_input]  # no free-text identity
    assert "Log out" in [b.label for b in at.sidebar.button]
    assert not html_bodies(at, "md-local")  # no local-mode banner
    # a typed name in the session is ignored: the identity is the provider's
    at = run("pages/review.py", user=signed_in("rita@example.com"),
             operator_name="dev-ravi-himself")
    decide_button(at, "approve").click().run()
    assert not at.exception and not at.error
    svc = desk_runtime().service
    event = svc.audit("ana", action="review_approve", limit=1)[0]
    assert event.actor == "operator:rita@example.com"
    at.radio(key="review_view").set_value("Decided").run()
    history = at.dataframe[0].value
    assert history["operator"].iloc[0] == "rita@example.com"


def test_a_viewer_sees_no_decide_buttons_and_the_layer_refuses_anyway(desk):
    who = signed_in("vic@nowhere.example")
    at = run("pages/review.py", user=who)
    assert not at.exception and not at.error
    keys = {b.key.split("__")[0] for b in at.button}  # decide keys name the item (inv. 81)
    assert not keys & {"review_approve", "review_reject", "review_edit", "review_merge",
                       "review_keep-both", "review_undo"}
    assert "review_next" in keys  # a viewer still walks the queue (issue 34: previous, next)
    assert any("deciding needs the reviewer role" in plain(c.value) for c in at.caption)
    at.radio(key="review_view").set_value("List").run()
    assert not {b.key for b in at.button} & {"review_bulk_approve", "review_all_approve"}
    # The same runtime's layer refuses the decision and records who tried.
    svc = desk_runtime().service
    item = at.session_state["review_cursor"]
    with pytest.raises(AccessDenied, match="viewer, needs reviewer"):
        decide(svc, "ana", item, "approve", operator="vic@nowhere.example", expected_rev=1)
    denied = svc.audit("ana", action="denied", limit=1)[0]
    assert denied.actor == "operator:vic@nowhere.example"
    assert denied.after == {"attempted": "review_approve"}
    assert svc.get_fact("ana", item).state.value == "candidate"
    # ... and the audit page shows it, with who
    at = run("pages/audit.py", user=who, audit_outcomes=["denied"])
    rows = html_table(at, "audit-list")
    assert list(rows["who"]) == ["operator:vic@nowhere.example"]
    assert list(rows["attempted"]) == ["review_approve"]


@pytest.mark.parametrize("name, absent", [
    ("pages/facts.py", "facts_apply"),
    ("pages/users.py", "users_export_prepare"),
    ("pages/evals.py", "evals_questions"),
])
def test_a_viewer_gets_no_mutating_controls(desk, name, absent, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # reports/ is relative to where the desk runs: not the checkout's
    # Evals' run forms are drawn when their box is opened (issue 34): asked open here.
    at = run(name, user=signed_in("vic@nowhere.example"), evals_run_open=True)
    assert not at.exception and not at.error
    controls = {w.key for kind in ("button", "selectbox", "text_input") for w in at.get(kind)}
    assert absent not in controls


def test_a_viewer_cannot_chat_or_plan(desk):
    at = run("pages/chat.py", user=signed_in("vic@nowhere.example"))
    assert not at.exception and not at.chat_input
    at = run("pages/consolidate.py", user=signed_in("vic@nowhere.example"))
    assert at.button(key="consolidate_plan_btn").disabled


def test_a_reviewer_chats_under_their_own_address(desk):
    at = run("pages/chat.py", user=signed_in("rita@example.com"))
    at.chat_input(key="chat_input").set_value("We moved to Edinburgh").run()
    assert not at.exception
    episode = desk_runtime().service.audit("ana", action="write_episode", limit=1)[0]
    assert episode.actor == "operator:rita@example.com"


def test_an_admin_exports_from_the_desk_and_it_is_audited(desk):
    at = run("pages/users.py", user=signed_in("ada@example.com"))
    at.button(key="users_export_prepare").click().run()
    assert not at.exception and not at.error
    assert at.get("download_button")
    event = desk_runtime().service.audit("ana", action="export_user", limit=1)[0]
    assert event.actor == "operator:ada@example.com"


def test_a_signed_in_address_without_a_role_sees_nothing(desk, tmp_path, monkeypatch):
    roles = tmp_path / "only.toml"
    roles.write_text('[operators]\n"ada@example.com" = "admin"\n')  # no default
    monkeypatch.setenv("MEMDESK_ROLES_FILE", str(roles))
    desk_runtime.clear()
    at = run("app.py", user=signed_in("eve@elsewhere.org"))
    assert not at.exception and not tables_shown(at)
    assert "has no role on this desk" in plain(at.error[0].value)
    assert [b.label for b in at.button] == ["Log out"]


def test_an_unverified_address_is_no_identity(desk):
    at = run("app.py", user=signed_in("rita@example.com", email_verified=False))
    assert [b.label for b in at.button] == ["Sign in"] and not tables_shown(at)


def test_login_without_a_roles_file_says_so(desk, monkeypatch):
    monkeypatch.delenv("MEMDESK_ROLES_FILE")
    desk_runtime.clear()
    at = run("app.py", user=signed_in("rita@example.com"))
    assert "MEMDESK_ROLES_FILE" in plain(at.error[0].value) and not tables_shown(at)


# login off --------------------------------------------------------------------------------------
def _bound(address: str) -> Iterator[None]:
    before = st_config.get_option("server.address")
    st_config.set_option("server.address", address)
    yield
    st_config.set_option("server.address", before)


@pytest.fixture
def bound_loopback() -> Iterator[None]:
    # the desk's own .streamlit/config.toml binds 127.0.0.1; a test that changed directory may
    # have made Streamlit re-read its options without that file, so the binding is set here
    yield from _bound("127.0.0.1")


def test_local_mode_shows_its_banner_and_the_typed_name(desk, bound_loopback):
    at = run("app.py", login=False)
    assert not at.exception and not at.error, [plain(e.value) for e in at.error]
    banner = html_bodies(at, "md-local")
    assert banner and "Local mode — no login, bound to 127.0.0.1" in banner[0]
    assert at.sidebar.text_input(key="operator_name") is not None
    at.sidebar.text_input(key="operator_name").set_value("rita").run()
    at.switch_page("pages/review.py").run()
    decide_button(at, "approve").click().run()
    assert desk_runtime().service.audit("ana", action="review_approve",
                                        limit=1)[0].actor == "operator:rita"


@pytest.fixture
def bound_everywhere() -> Iterator[None]:
    yield from _bound("0.0.0.0")


def test_local_mode_beyond_loopback_refuses_to_serve(desk, bound_everywhere):
    at = run("app.py", login=False)
    assert not at.exception and not tables_shown(at) and not at.text_input
    assert "bound to 0.0.0.0 without login" in plain(at.error[0].value)


def test_allow_anonymous_says_so_in_the_banner(desk, bound_everywhere, monkeypatch):
    monkeypatch.setenv("MEMDESK_ALLOW_ANONYMOUS", "true")
    desk_runtime.clear()
    at = run("app.py", login=False)
    assert not at.exception and not at.error and tables_shown(at)
    assert "bound to 0.0.0.0 (MEMDESK_ALLOW_ANONYMOUS)" in html_bodies(at, "md-local")[0]


def test_error_details_never_reach_the_browser():
    """Desk hardening: an unexpected error shows its type only; the trace goes to the server
    log (Streamlit logs uncaught exceptions), never to the operator's screen."""
    import tomllib

    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["client"]["showErrorDetails"] == "type"


def test_an_admin_erases_a_user_from_the_desk_and_a_reviewer_cannot(desk):
    at = run("pages/users.py", user=signed_in("rita@example.com"))
    assert "users_erase" not in {b.key for b in at.button}  # a reviewer: no export, no erase
    at = run("pages/users.py", user=signed_in("ada@example.com"))
    assert at.button(key="users_erase").disabled  # until the user id is typed
    at.text_input(key="users_erase_confirm").set_value("ana").run()
    at.button(key="users_erase").click().run()
    assert not at.exception and not at.error
    svc = desk_runtime().service
    assert not svc.store.list_facts("ana")
    event = svc.audit("ana", limit=1)[0]
    assert (event.action, event.actor) == ("erase_user", "operator:ada@example.com")


def test_a_deep_link_before_login_reaches_the_sign_in_screen(desk):
    """Invariant 174: signed out, every address the signed-in desk serves (a bookmark, a link a
    colleague sent) answers with the sign-in screen; none is Streamlit's "Page not found"."""
    def addresses(at: AppTest) -> dict[str, str]:
        return {str(info.get("url_pathname") or ""): page_hash
                for page_hash, info in at._registered_pages.items()}

    desk_pages = set(addresses(run("app.py", user=signed_in("rita@example.com"))))
    at = run("app.py", user={"is_logged_in": False})
    served = addresses(at)
    assert desk_pages <= set(served), desk_pages - set(served)
    for path in ("review", "facts", "tokens"):
        at._page_hash = served[path]  # what the browser asks for at /review
        at.run()
        assert not at.exception and not at.error
        assert [b.label for b in at.button] == ["Sign in"]
        assert "Bristol" not in everything_shown(at) and not tables_shown(at)


def test_the_sign_in_screen_remembers_the_page_asked_for(desk):
    """Invariant 174: signed out at /facts?user=ana, the sign-in screen keeps the page and its
    parameters in a short cookie (Streamlit's login ends at the root), percent-encoded so no
    parameter can become markup or script; a bare root keeps an earlier wish."""
    from urllib.parse import quote

    at = run("app.py", user={"is_logged_in": False})
    served = {str(info.get("url_pathname") or ""): h for h, info in at._registered_pages.items()}
    assert not [b for b in at.get("html") if "memdesk_return" in b.proto.body]  # bare root
    at._page_hash = served["facts"]
    at.query_params["user"] = "ana</script><img src=x>"
    at.run()
    body = next(b.proto.body for b in at.get("html") if "memdesk_return" in b.proto.body)
    wish = quote(json.dumps({"page": "facts", "q": {"user": "ana</script><img src=x>"}}), safe="")
    assert f"memdesk_return={wish};" in body and "max-age=900" in body
    assert "<img" not in body and body.count("<script>") == 1


def test_only_a_desk_page_is_a_return_target():
    """Invariant 174: the cookie names a desk page and parameters, never a URL; anything else
    (another site, garbage, an unknown page) is ignored."""
    from urllib.parse import quote

    from memory.ui.auth import return_target

    def cookie(value) -> str:
        return quote(json.dumps(value), safe="")

    good = return_target(cookie({"page": "facts", "q": {"user": "ana", "fact": "fact_1"}}))
    assert good is not None and (good.page, good.q) == ("facts", {"user": "ana", "fact": "fact_1"})
    for bad in (cookie({"page": "https://evil.example/", "q": {}}), cookie({"page": "../x"}),
                cookie({"page": "facts", "q": {"user": 3}}), "%7Bnot json", "", None,
                cookie({"page": "facts", "q": {"user": "x" * 401}})):
        assert return_target(bad) is None, bad


@pytest.mark.parametrize("email, shown", [("ada@example.com", True),
                                          ("rita@example.com", False)])
def test_only_an_admin_finds_the_search_across_users(desk, email, shown):
    """Invariant 541 at the desk: the Users page offers the search across users to an admin
    only (the layer refuses anyone else anyway, tests/test_cross_user.py)."""
    at = run("pages/users.py", user=signed_in(email), users_across_open=True)
    assert not at.exception and not at.error
    labels = {e.label for e in at.expander}
    assert ("Search across all users (admin, audited)" in labels) is shown
    assert any(w.key == "users_across_text" for w in at.text_input) is shown
