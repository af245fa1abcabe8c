"""Who is at the desk (issue 14): Streamlit's own OIDC login when `.streamlit/secrets.toml` has
an `[auth]` section, else local mode (a typed name, a banner, and only on 127.0.0.1).

With login, nothing but the sign-in screen renders before the identity provider has said who
this is, and the operator is `operator:<email>` from `st.user`, never a typed name (invariant
122). Roles come from the runtime (memory/access.py) and are enforced by the unit of work; the
pages only hide what a role cannot use.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Callable
from urllib.parse import quote, unquote

import streamlit as st
from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticError

from ..access import OperatorMode, Role
from ..errors import MemdeskError
from .safe import esc, md

log = logging.getLogger("memdesk.desk")

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def login_configured() -> bool:
    """An `[auth]` section in Streamlit's secrets turns login on (st.login validates the rest
    and names what is missing)."""
    try:
        auth = st.secrets.get("auth")
    except Exception:  # noqa: BLE001 - no secrets file at all (the local demo): no login
        return False
    return bool(auth)


def operator_mode() -> OperatorMode:
    return "login" if login_configured() else "local"


def is_loopback(address: str | None) -> bool:
    """Only this machine can reach the address. Unset or empty means every interface."""
    host = (address or "").strip().strip("[]")
    if not host:
        return False
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bound_address() -> str:
    return str(st.get_option("server.address") or "")


def signed_in_email() -> str | None:
    """The identity provider's email for this browser, or None when nobody is signed in. An
    address the provider marks unverified is no identity."""
    try:
        info = st.user.to_dict()
    except Exception:  # noqa: BLE001 - no script context
        return None
    if not info.get("is_logged_in"):
        return None
    email = str(info.get("email") or "").strip()
    if not email or info.get("email_verified") is False:
        return None
    return email


# Links between pages read as links (a colour and an underline), not as plain text (issue 34).
DESK_CSS = ("<style>[data-testid='stMain'] [data-testid='stPageLink'] p{color:#1565c0;"
            "text-decoration:underline}</style>")
RETURN_COOKIE = "memdesk_return"  # the desk page asked for before signing in (invariant 174)
RETURN_SECONDS = 900  # a sign-in that takes longer lands on the first page
RETURNED = "_memdesk_returned"  # session state: this session used (and clears) the cookie


class ReturnTo(BaseModel):
    """Where to go once signed in: a desk page by its name, never a URL, and its query."""

    page: str = Field(max_length=40)
    q: dict[str, str] = Field(default_factory=dict, max_length=20)


def return_target(raw: str | None) -> ReturnTo | None:
    """The return cookie read back: a known desk page with short string parameters, else None
    (a cookie anyone could have written names no place outside the desk's pages)."""
    from . import PAGES

    if not isinstance(raw, str) or not raw:
        return None
    try:
        target = ReturnTo.model_validate(json.loads(unquote(raw)))
    except (ValueError, PydanticError):
        return None
    if target.page not in PAGES or any(len(k) > 40 or len(v) > 400 for k, v in target.q.items()):
        return None
    return target


def _remember_return(path: str) -> None:
    """Invariant 174: the sign-in screen keeps the page and `?` parameters asked for in a short
    cookie, since Streamlit's login always ends at the desk's root. A bare root (which is also
    where a refused sign-in lands) leaves an earlier wish in place."""
    query = st.query_params.to_dict()
    if not path and not query:
        return
    value = quote(json.dumps({"page": path or "users", "q": query}), safe="")  # inert in JS
    st.html(f"<script>document.cookie = '{RETURN_COOKIE}={value}; path=/; "
            f"max-age={RETURN_SECONDS}; SameSite=Lax';</script>", unsafe_allow_javascript=True)


def return_after_sign_in(landed_on_root: bool) -> None:
    """Called by app.py once the pages are known: the first run of a signed-in session that
    landed on the root goes on to the page asked for before sign-in (invariant 174), and the
    cookie is cleared on the run after, so it is used once."""
    from . import PAGES

    try:
        raw = st.context.cookies.get(RETURN_COOKIE)
    except Exception:  # noqa: BLE001 - no browser context (AppTest): nothing was asked for
        return
    if not isinstance(raw, str) or not raw or signed_in_email() is None:
        return  # (AppTest's context hands a stand-in object, not a cookie)
    ss = st.session_state
    if ss.get(RETURNED):
        if ss[RETURNED] == "pending":  # the page asked for is drawn: forget the wish
            ss[RETURNED] = "cleared"
            st.html(f"<script>document.cookie = '{RETURN_COOKIE}=; path=/; max-age=0';</script>",
                    unsafe_allow_javascript=True)
        return
    ss[RETURNED] = "pending"
    target = return_target(raw)
    if target is not None and landed_on_root:
        st.switch_page(PAGES[target.page], query_params=target.q)


def _sign_in_screen() -> None:
    st.title("Memdesk")
    st.write("Sign in to use the desk. Who you are decides what you may see and change, and "
             "every change is recorded under your address.")
    st.button("Sign in", type="primary", key="auth_sign_in", on_click=st.login,
              icon=":material/login:")
    # Streamlit drops the provider's refusal on its way back here: say what a return to this
    # screen after signing in means, since the desk cannot tell it apart from a first visit.
    st.caption("Sent back here after signing in? The identity provider refused or the sign-in "
               "was cancelled (a wrong password, a denied consent): press Sign in to try again, "
               "or ask an admin if it keeps happening.")


def _no_role_screen(email: str) -> None:
    st.title("Memdesk")
    st.error(f"Signed in as {md(email)}, which has no role on this desk. Ask an admin to "
             "add your address (or your domain) to the roles file (MEMDESK_ROLES_FILE).")
    st.button("Log out", key="auth_log_out_norole", on_click=st.logout)


def _error_screen(text: str) -> Callable[[], None]:
    """A screen of one error (Markdown: callers escape what they quote with md())."""
    def error_screen() -> None:
        st.error(text)
    return error_screen


def _halt(render: Callable[[], None], at_start: bool) -> None:
    """Show only `render` and stop. From app.py the page list is replaced by hidden pages that
    all render it, so no other page is listed (or reachable) before access is granted. Every
    desk address answers with it (invariant 174): a bookmarked or shared /review reaches the
    sign-in screen, not Streamlit's "Page not found" dialog on top of it."""
    if at_start:
        from . import PAGES

        # One page object per address; each a distinct function, as Streamlit tells pages apart
        # by their callable.
        def screen(path: str) -> Callable[[], None]:
            def page() -> None:
                if render is _sign_in_screen:
                    _remember_return(path)
                render()
            page.__name__ = f"memdesk_{path}"
            return page

        pages = [st.Page(screen(""), title="Memdesk", default=True)]
        pages += [st.Page(screen(path), title="Memdesk", url_path=path) for path in PAGES]
        st.navigation(pages, position="hidden").run()
    else:
        render()
    st.stop()


def require_access(*, at_start: bool = False) -> None:
    """Stop the run unless someone may see the desk.

    Login on: not signed in shows the sign-in screen; signed in without a role, says so.
    Login off: at start (app.py), a desk bound beyond 127.0.0.1 refuses unless
    MEMDESK_ALLOW_ANONYMOUS=true, and the local-mode banner shows (invariant 122)."""
    from . import ensure_app_shell, runtime

    if at_start:
        ensure_app_shell()  # a first run in legacy page mode would list every page unguarded
    try:
        rt = runtime()
    except MemdeskError as exc:  # settings or the roles file are invalid: one message
        why = f"The desk cannot start: {md(exc)}"
        _halt(_error_screen(why), at_start)
        raise
    if rt.operators == "login":
        if rt.settings.roles_file == "":
            _halt(_error_screen("Login is on (secrets.toml has [auth]) but MEMDESK_ROLES_FILE "
                                "names no roles file, so no one has a role: set it and restart "
                                "the desk."), at_start)
        email = signed_in_email()
        if email is None:
            _halt(_sign_in_screen, at_start)
        elif rt.access.role_of(f"operator:{email}") is None:
            _halt(lambda: _no_role_screen(email), at_start)
        return
    if not at_start:
        return
    address = bound_address()
    if not is_loopback(address) and not rt.settings.allow_anonymous:
        where = address or "every interface"
        log.error("refusing to serve the desk without login on %s", where)
        _halt(_error_screen(
            f"The desk is bound to {md(where)} without login: anyone who reaches it could read "
            "and change every user's memory. Configure login ([auth] in .streamlit/secrets.toml),"
            " bind to 127.0.0.1 (server.address), or set MEMDESK_ALLOW_ANONYMOUS=true to accept "
            "that."), at_start)
    bound = "bound to 127.0.0.1" if is_loopback(address) else \
        f"bound to {address or 'every interface'} (MEMDESK_ALLOW_ANONYMOUS)"
    st.html(f"<div class='md-local'>Local mode — no login, {esc(bound)}. Every operator is "
            f"{esc(rt.access.roles.local.value)}; changes are audited under the typed name."
            "</div><style>.md-local{background:#fff3cd;color:#5d4200;border:1px solid #f0d27a;"
            "border-radius:6px;padding:.35em .8em;font-size:.9em}</style>" + DESK_CSS)


def role_label(role: Role | None) -> str:
    return role.value if role is not None else "no role"
