"""Helpers shared by the desk's pages: the service for this session and error translation."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from ..errors import MemdeskError, ValidationError
from ..models import check_actor
from ..runtime import Runtime, build_runtime
from ..service import MemoryService

OPERATOR_KEY = "operator_name"  # the sidebar's operator name (app.py renders the input)


def ensure_app_shell() -> None:
    """Run every page inside app.py's navigation (sidebar status, operator name, page list).

    Streamlit treats a folder named pages/ beside app.py as a legacy multipage app until
    app.py's st.navigation has run once in the server process: a first visitor who deep-links
    (e.g. /facts) would get the bare page, with app.py itself listed as a page. Leave legacy
    mode and rerun, so app.py runs and resolves the same page by its URL."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


@st.cache_resource(show_spinner="Opening the store and loading the embedder…")
def runtime() -> Runtime:
    """The desk's runtime: settings read once per server, shared by every session."""
    return build_runtime()


def service() -> MemoryService:
    """The desk's service (cached per store URL across reruns and sessions)."""
    ensure_app_shell()  # every page calls service(): one place for the whole desk
    try:
        svc = runtime().service
    except (MemdeskError, OSError) as exc:
        # OSError: the store's directory cannot be created (a file in the way, no permission);
        # the operator gets the same one message as for any other unreachable store.
        st.error(f"Cannot open the store: {exc}")
        st.stop()
        raise
    return svc


def describe(exc: MemdeskError) -> str:
    """The one line an operator reads for a product error, e.g. "Validation: query is empty"."""
    return f"{type(exc).__name__.removesuffix('Error')}: {exc}"


@contextmanager
def clear_errors():
    """Translate product errors into one st.error, once, for every page (style 7)."""
    try:
        yield
    except MemdeskError as exc:
        st.error(describe(exc))


def pick_user(key: str = "user") -> str:
    """Sidebar user picker; the chosen user is the scope of everything on the page.

    `?user=NAME` in the URL preselects a user; an unknown one is reported, never guessed at.
    The choice is mirrored in `KEY__last` so it survives visits to pages without the picker."""
    try:
        users = [u.user_id for u in service().users()]
    except MemdeskError as exc:  # e.g. the store went away after opening
        st.error(describe(exc))
        st.stop()
    if not users:
        st.info("No users yet. Run `memdesk seed` (or `make demo`) to load the demo personas.")
        st.stop()
    wanted = st.query_params.get("user")
    if wanted and wanted not in users:
        st.error(f"Unknown user {wanted!r}: pick one of the {len(users)} users in the sidebar.")
        wanted = None
    current = st.session_state.get(key) or wanted or st.session_state.get(f"{key}__last")
    index = users.index(current) if current in users else 0
    chosen = st.sidebar.selectbox("User", users, index=index, key=key)
    st.session_state[f"{key}__last"] = chosen
    return chosen


def operator_actor() -> str:
    """The audit actor for a desk mutation: `operator:NAME` from the sidebar's operator name."""
    name = str(st.session_state.get(OPERATOR_KEY) or "").strip()
    if not name:
        raise ValidationError("enter your operator name in the sidebar first; "
                              "every desk change is audited under it")
    try:
        return check_actor(f"operator:{name}")
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def llm_mode() -> str:
    """The language model in use (offline or anthropic:MODEL), for the sidebar and chat."""
    try:
        return runtime().llm.mode
    except MemdeskError as exc:
        return f"unavailable ({exc})"


def review_badge(svc: MemoryService, user_id: str | None = None) -> int | None:
    """Items waiting in the review queue (review.queue.pending_count), or None without it."""
    try:
        from review.queue import pending_count
    except ImportError:
        return None
    try:
        return pending_count(svc, user_id)
    except MemdeskError:  # a badge must never break the page it decorates
        return None


def sidebar_status() -> None:
    """Store URL, embedder, LLM mode, review badge and the operator name (app.py, every page)."""
    sb = st.sidebar
    sb.text_input("Operator", key=OPERATOR_KEY, placeholder="your name (audited)",
                  help="Desk changes are audited as operator:NAME")
    try:
        svc = runtime().service
    except (MemdeskError, OSError) as exc:  # see service(): one message for any open failure
        sb.error(f"Store unavailable: {exc}")
        return
    sb.caption(f"Store: `{svc.store.url}`")
    sb.caption(f"Embedder: `{svc.embedder.name}` · LLM: `{llm_mode()}`")
    pending = review_badge(svc)
    if pending is not None:
        sb.caption(f"Review queue: **{pending}** waiting" if pending else "Review queue: empty")
