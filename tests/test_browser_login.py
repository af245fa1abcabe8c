"""A real OpenID Connect login in headless Chromium (issue 14): `streamlit run app.py` with
`[auth]` secrets pointing at an identity provider this test starts on 127.0.0.1
(oidc-provider-mock: Authlib's authorization server with a registered client, nonces, signed ID
tokens and JWKS), Streamlit's own st.login/st.user on the desk's side. Nothing is mocked: the
browser follows every redirect.

A reviewer signs in, approves a review item and finds their address in the audit log; a viewer
signs in (another browser), finds no decide buttons, and a decision in their name is refused by
the layer and shows in the audit log as denied (invariants 121, 122)."""

from __future__ import annotations

import json
import re
import secrets
import threading
import urllib.request
from pathlib import Path

import pytest

from tests.test_browser_smoke import ARTIFACTS, CHROMIUM, FLAGS, free_port, running_desk
from tests.test_pages import seed

ROOT = Path(__file__).resolve().parent.parent
playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (dev extra)")
oidc = pytest.importorskip("oidc_provider_mock", reason="pip install oidc-provider-mock (dev extra)")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                       "(`apt-get install chromium`; .ci/run installs it)"),
]
ROLES = '[operators]\n"rita@example.com" = "reviewer"\n"vic@example.com" = "viewer"\n'


@pytest.fixture
def identity_provider():
    """The provider on 127.0.0.1, in a thread of this test; stopped after it."""
    import werkzeug.serving

    app = oidc.app(require_client_registration=True, require_nonce=True)
    server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(5)


def register_client(idp: str, redirect_uri: str) -> dict:
    body = json.dumps({"redirect_uris": [redirect_uri]}).encode()
    req = urllib.request.Request(f"{idp}/oauth2/clients", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


@pytest.fixture
def login_desk(tmp_path, identity_provider):
    db = tmp_path / "desk.db"
    seed(db)  # ana has one candidate waiting: "Owns a cat called Miso"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    client = register_client(identity_provider, f"{url}/oauth2callback")
    secrets_file = tmp_path / "secrets.toml"
    secrets_file.write_text(
        "[auth]\n"
        f'redirect_uri = "{url}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_hex(24)}"\n'
        f'client_id = "{client["client_id"]}"\n'
        f'client_secret = "{client["client_secret"]}"\n'
        f'server_metadata_url = "{identity_provider}/.well-known/openid-configuration"\n')
    roles = tmp_path / "roles.toml"
    roles.write_text(ROLES)
    log = tmp_path / "streamlit.log"
    with running_desk(f"embedded:{db}", log, port=port, env={"MEMDESK_ROLES_FILE": str(roles)},
                      args=("--secrets.files", str(secrets_file))):
        yield url, identity_provider, db, roles, log


def settle(page) -> None:
    page.wait_for_timeout(300)
    page.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=60_000)
    page.wait_for_timeout(400)


def sign_in(browser, url: str, idp: str, email: str, start: str = ""):
    """A fresh browser context: the desk's sign-in screen (at `start`), the provider's form,
    back."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url + start)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{idp}/oauth2/authorize**")
    page.fill("input[name=sub]", email)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{url}/**")
    # stored and identity text is shown as text: a word joiner keeps "@" from becoming a link
    page.get_by_text(re.compile(r"Signed in as " + re.escape(email).replace("@", "\u2060?@"))
                     ).wait_for()
    settle(page)
    return context, page


def test_oidc_login_reviewer_decides_viewer_is_refused(login_desk):
    from memory.errors import AccessDenied
    from memory.runtime import build_runtime
    from memory.settings import Settings
    from review import decide

    url, idp, db, roles, log = login_desk
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            # Before login: the sign-in screen and nothing else.
            anon = browser.new_page()
            anon.goto(f"{url}/facts?user=ana")
            anon.get_by_role("button", name="Sign in").wait_for()
            settle(anon)
            body = anon.inner_text("body")
            assert "Bristol" not in body and "Edinburgh" not in body and "ana" not in body
            anon.screenshot(path=str(ARTIFACTS / "login-0-sign-in.png"))
            # Another deep link in the same browser: the sign-in screen again, never a "Page
            # not found" dialog over it (invariant 174).
            anon.goto(f"{url}/review?user=ana")
            anon.get_by_role("button", name="Sign in").wait_for()
            settle(anon)
            assert "Page not found" not in anon.inner_text("body")
            # Refused at the provider (its "wrong password"): back at the sign-in screen, which
            # says what that means; nothing of the desk shows.
            anon.get_by_role("button", name="Sign in").click()
            anon.wait_for_url(f"{idp}/oauth2/authorize**")
            anon.fill("input[name=sub]", "rita@example.com")
            anon.get_by_role("button", name="Deny").click()
            anon.wait_for_url(f"{url}/**")
            anon.get_by_role("button", name="Sign in").wait_for()
            settle(anon)
            body = anon.inner_text("body")
            assert "refused or the sign-in was cancelled" in body and "Bristol" not in body
            assert "Page not found" not in body
            anon.screenshot(path=str(ARTIFACTS / "login-0-denied.png"))

            # The reviewer, signed out at a deep link: signing in returns to that page and its
            # ?user= (invariant 174; Streamlit's login itself ends at the root).
            ctx, page = sign_in(browser, url, idp, "rita@example.com", start="/facts?user=ana")
            page.wait_for_url(re.compile(r"/facts\?user=ana(&|$)"))  # Facts adds &fact=
            page.get_by_role("heading", name="Facts").wait_for()
            settle(page)
            assert "Lives in Edinburgh" in page.inner_text("[data-testid=stMain]")
            assert "· reviewer" in page.inner_text("[data-testid=stSidebar]")
            # The wish is used once: the cookie that carried it is gone.
            assert not [c for c in ctx.cookies() if c["name"] == "memdesk_return" and c["value"]]
            # Approve the waiting item; their address is in the audit log.
            page.goto(f"{url}/review?user=ana")
            settle(page)
            page.get_by_text("Owns a cat called Miso").first.wait_for()
            page.get_by_role("button", name="Approve").click()
            settle(page)
            page.goto(f"{url}/audit?user=ana")
            settle(page)
            page.get_by_text(re.compile("operator:rita\u2060?@example.com: review_approve ×1")
                             ).wait_for()
            page.screenshot(path=str(ARTIFACTS / "login-1-reviewer-audit.png"))
            # Log out, clicked: the sign-in screen and nothing of the desk, on this page and on
            # any other address.
            page.get_by_role("button", name="Log out").click()
            # The provider ends its session too (OIDC RP-initiated logout), then sends us back.
            page.wait_for_url(f"{idp}/oauth2/end_session**")
            page.get_by_role("button", name="End session").click()
            page.wait_for_url(f"{url}/**")
            page.get_by_role("button", name="Sign in").wait_for()
            settle(page)
            body = page.inner_text("body")
            assert "Signed in as" not in body and "review_approve" not in body
            assert "Log out" not in body
            page.goto(f"{url}/facts?user=ana")
            page.get_by_role("button", name="Sign in").wait_for()
            settle(page)
            assert "Edinburgh" not in page.inner_text("body")
            page.screenshot(path=str(ARTIFACTS / "login-1-logged-out.png"))
            ctx.close()

            # The viewer, in another browser: no decide buttons on the review queue.
            ctx, page = sign_in(browser, url, idp, "vic@example.com")
            assert "· viewer" in page.inner_text("[data-testid=stSidebar]")
            page.goto(f"{url}/review?user=ana")
            settle(page)
            assert page.get_by_role("button", name="Approve").count() == 0
            assert page.get_by_role("button", name="Reject").count() == 0
            page.goto(f"{url}/facts?user=ana")
            settle(page)
            assert page.get_by_text("Retract or forget this fact").count() == 0

            # ... and a decision in the viewer's name is refused at the layer, with this desk's
            # own settings, and audited as denied; the viewer's audit page shows it.
            settings = Settings.from_env({"MEMDESK_ROLES_FILE": str(roles),
                                          "MEMDESK_EMBEDDER": "hash"})
            rt = build_runtime(settings, store_url=f"embedded:{db}", operators="login")
            try:
                cat = next(f for f in rt.service.facts("ana") if "Miso" in f.text)
                email = next(f for f in rt.service.facts("ana") if "email" in f.text)
                assert cat.state.value == "active"  # rita's approval landed
                with pytest.raises(AccessDenied):
                    rt.service.retract("ana", email.id, actor="operator:vic@example.com")
                pending = rt.service.write_fact("ana", "Owns a bike", state="candidate",
                                                actor="cli").fact
                with pytest.raises(AccessDenied):
                    decide(rt.service, "ana", pending.id, "approve",
                           operator="vic@example.com", expected_rev=1)
            finally:
                rt.close()
            page.goto(f"{url}/audit?user=ana")
            settle(page)
            vic = re.compile("operator:vic\u2060?@example.com: ")
            page.get_by_text(vic).wait_for()
            line = page.get_by_text(vic).inner_text()
            assert "retract (denied) ×1" in line and "review_approve (denied) ×1" in line
            page.screenshot(path=str(ARTIFACTS / "login-2-viewer-denied.png"))
            ctx.close()
        finally:
            browser.close()
    assert "Traceback" not in log.read_text(errors="replace")
