"""Who is at the desk (issue 14): Streamlit's own OIDC login when `.streamlit/secrets.toml` has
an `[auth]` section, else local mode (a typed name, a banner, and only on 127.0.0.1).

With login, nothing but the sign-in screen renders before the identity provider has said who
this is, and the operator is `operator:<email>` from `st.user`, never a typed name (invariant
122). Roles come from the runtime (memory/access.py) and are enforced by the unit of work; the
pages only hide what a role cannot use.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable

import streamlit as st

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
                render()
            page.__name__ = f"memdesk_{path}"
            return page

        pages = [st.Page(render, title="Memdesk", default=True)]
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
            "border-radius:6px;padding:.35em .8em;font-size:.9em}</style>")


def role_label(role: Role | None) -> str:
    return role.value if role is not None else "no role"
