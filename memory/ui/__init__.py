"""Helpers shared by the desk's pages: the service, who is operating, the user in the URL, cached
sidebar counts, safe text and error translation. Pages stay thin by calling these."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

import streamlit as st

from ..access import Role
from ..errors import MemdeskError, ValidationError
from ..models import AuditEvent, check_actor
from ..runtime import Runtime, build_runtime
from ..service import MemoryService, RecallResult, UserSummary
from .auth import operator_mode, require_access, role_label, signed_in_email
from .safe import esc, md  # noqa: F401 - esc is re-exported for the pages

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from review.label_source import LabelTables

    from ..search_config import RecallConfig

OPERATOR_KEY = "operator_name"  # the sidebar's operator name (app.py renders the input)
OPERATOR_COOKIE = "memdesk_operator"  # a session cookie: the name survives a reload
CACHE_TTL_S = 30.0  # sidebar counts: the longest they stay stale after an unsignalled write

_desk_writes = 0  # bumped by mark_changed(): this process's writes (not seen by data_version)
_lock = threading.Lock()


# service and data version ------------------------------------------------------------------------
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
    """The desk's runtime: settings read once per server, shared by every session. Operators
    are known by login when secrets.toml configures it, else by a typed name (issue 14)."""
    return build_runtime(operators=operator_mode())


def page_guard() -> None:
    """First line of every page: inside app.py's navigation, and nothing before login."""
    ensure_app_shell()
    require_access()


def service() -> MemoryService:
    """The desk's service (cached per store URL across reruns and sessions)."""
    page_guard()  # every page calls service(): one place for the whole desk
    try:
        svc = runtime().service
    except (MemdeskError, OSError) as exc:
        # OSError: the store's directory cannot be created (a file in the way, no permission);
        # the operator gets the same one message as for any other unreachable store.
        st.error(f"Cannot open the store: {md(exc)}")
        st.stop()
        raise
    return svc


def mark_changed() -> None:
    """Call after every desk mutation: the cached sidebar counts are re-read on the next run."""
    global _desk_writes
    with _lock:
        _desk_writes += 1


def data_version(svc: MemoryService) -> tuple:
    """What the desk's caches are keyed on: the store, this process's writes, and the store's
    own change counter where it has one (the embedded store sees other processes' commits)."""
    return (svc.store.url, _desk_writes, svc.store.data_version())


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def _summaries(_svc: MemoryService, version: tuple) -> list[dict]:
    return [u.model_dump() for u in _svc.users()]


def user_summaries(svc: MemoryService) -> list[UserSummary]:
    """Every user with counts (svc.users), cached briefly on the data version: the sidebar and
    user picker do not re-count every user's documents on every rerun (issue 13, point 7)."""
    return [UserSummary.model_validate(u) for u in _summaries(svc, data_version(svc))]


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def _pending(_svc: MemoryService, version: tuple) -> int | None:
    from review.queue import pending_count

    try:
        return pending_count(_svc, None)
    except MemdeskError:  # a badge must never break the page it decorates
        return None


def review_badge(svc: MemoryService) -> int | None:
    """Items waiting in the review queue over every user, or None without review/."""
    return _pending(svc, data_version(svc))


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def _label_tables(_svc: MemoryService, users: tuple[str, ...], version: tuple) -> dict:
    from review.label_source import label_tables

    return label_tables(_svc, users).model_dump()


def labels_measure(svc: MemoryService, users: list[str]) -> LabelTables:
    """The labels tables (review.label_source.label_tables) for the Evals page, cached on the
    data version: a decision anywhere on the desk shows on the next run (issue 32)."""
    from review.label_source import LabelTables

    return LabelTables.model_validate(_label_tables(svc, tuple(users), data_version(svc)))


@st.cache_data(ttl=600, max_entries=16, show_spinner=False)
def _facts_listing(_svc: MemoryService, user_id: str, states: tuple[str, ...] | None,
                   fact_type: str | None, version: tuple, audited: int) -> list[dict]:
    from .views import listing_rows

    return listing_rows(_svc, user_id, states=states, fact_type=fact_type, valid_at=None,
                        recorded_at=None)


def facts_listing(svc: MemoryService, user_id: str, *, states: list[str] | None,
                  fact_type: str | None, valid_at: datetime | None,
                  recorded_at: datetime | None, needle: str = "") -> list[dict]:
    """The Facts page's listing (views.listing_rows). Without an as-of moment it is kept
    across sessions while the store, its data version and the user's audit count stay the
    same (issue 34: reading 5,000 facts was most of the page's server time; every change to a
    fact appends an audit event, as in explain_recall); as-of views are read as asked."""
    from .views import listing_rows, search_rows

    if valid_at is not None or recorded_at is not None:
        return listing_rows(svc, user_id, states=states, fact_type=fact_type,
                            valid_at=valid_at, recorded_at=recorded_at, needle=needle)
    rows = _facts_listing(svc, user_id, tuple(sorted(states)) if states else None, fact_type,
                          data_version(svc), svc.store.audit_count(user_id))
    return search_rows(rows, needle)


@st.cache_data(ttl=600, max_entries=64, show_spinner=False)
def _review_events(_svc: MemoryService, user_id: str, fact_id: str, version: tuple,
                   audited: int) -> list[AuditEvent]:
    from .views import review_events

    return review_events(_svc, user_id, fact_id)


def fact_review_events(svc: MemoryService, user_id: str, fact_id: str) -> list[AuditEvent]:
    """The review decisions naming a fact (views.review_events: one audit read per review
    action), kept like facts_listing: a new decision appends an audit event, so it shows on
    the next run (issue 34: eight audit reads on every Facts visit)."""
    return _review_events(svc, user_id, fact_id, data_version(svc),
                          svc.store.audit_count(user_id))


RECALL_KEPT = "recall_kept"  # session state: (what was asked, its explain recall)


def explain_recall(svc: MemoryService, user_id: str, query: str,
                   config: RecallConfig) -> RecallResult:
    """The recall debugger's explain recall (read-only, Purpose.EXPLAIN), kept in this session
    while the user, query, configuration and data version stay the same: switching tabs or
    asking "why not?" reruns the page without recomputing it (issue 34). Per session, so never
    shared between operators. The user's audit count is in the key: every mutation appends an
    audit event, so a write in this process that no page signalled still recomputes it."""
    from ..search_config import Purpose

    asked = (user_id, query, config.model_dump_json(), data_version(svc),
             svc.store.audit_count(user_id))
    kept = st.session_state.get(RECALL_KEPT)
    if kept is not None and kept[0] == asked:
        return kept[1]
    result = svc.recall(user_id, query, config=config, purpose=Purpose.EXPLAIN, explain=True)
    st.session_state[RECALL_KEPT] = (asked, result)
    return result


REVIEW_CLAIMED = "review_claimed"  # (user, item id) this session holds a review lease on


def leave_review(page_title: str) -> None:
    """Issue 34: leaving the Review queue for another page ends this session's lease on the
    item it showed at once, instead of when the lease would run out."""
    if page_title == "Review queue" or not (held := st.session_state.pop(REVIEW_CLAIMED, None)):
        return
    from review.leases import release

    name = current_operator()
    if name:
        try:
            release(runtime().service, held[0], held[1], operator=name)
        except MemdeskError:
            pass  # the lease ends by itself within review.leases.LEASE_SECONDS


# errors ------------------------------------------------------------------------------------------
def describe(exc: MemdeskError) -> str:
    """The one line an operator reads for a product error, e.g. "Validation: query is empty"."""
    return f"{type(exc).__name__.removesuffix('Error')}: {exc}"


def show_error(exc: MemdeskError) -> None:
    st.error(md(describe(exc)))  # messages quote stored text: never Markdown


@contextmanager
def clear_errors() -> Iterator[None]:
    """Translate product errors into one st.error, once, for every page (style 7)."""
    try:
        yield
    except MemdeskError as exc:
        show_error(exc)


# the user in the URL --------------------------------------------------------------------------
def pick_user(key: str = "user", *, allow_new: bool = False) -> str:
    """Sidebar user picker; the chosen user is the scope of everything on the page.

    `?user=NAME` in the URL selects a user on a reload or a link (a changed URL wins); an unknown
    one is reported, never guessed at. The choice is written back to the URL on every page, and
    mirrored in `KEY__last` so it survives visits to pages without the picker.

    With `allow_new` (the Chat page: talking is how a user's memory begins) the operator may
    also start a user the store does not know yet, by name in the sidebar or by `?user=`; the
    page then says that this user has no memories and what to do next (invariant 173)."""
    svc = service()
    try:
        users = [u.user_id for u in user_summaries(svc)]
    except MemdeskError as exc:  # e.g. the store went away after opening
        show_error(exc)
        st.stop()
    fresh_key = f"{key}__new"
    fresh: list[str] = [u for u in st.session_state.get(fresh_key, []) if u not in users]
    st.session_state[fresh_key] = fresh
    wanted = st.query_params.get("user")
    seen = f"{key}__url"
    if wanted and wanted != st.session_state.get(seen):  # a reload or a link names the user
        st.session_state[seen] = wanted
        if wanted in users or (allow_new and wanted in fresh):
            st.session_state[key] = wanted
        elif allow_new and _start_user(key, wanted):
            fresh = st.session_state[fresh_key]
        elif wanted in fresh:  # started on the Chat page, nothing said yet
            st.info(f"{md(wanted)} has no memories yet: chat as them on the Chat page first.")
        else:
            st.error(f"Unknown user {md(repr(wanted))}: pick one of the {len(users)} users in "
                     "the sidebar.")
    if allow_new:
        st.sidebar.text_input(
            "Start a new user", key=f"{key}__new_name", placeholder="a user id, e.g. sam",
            on_change=_on_new_user, args=(key,),
            help="Chat as someone the store does not know yet: their first message is their "
                 "first memory")
        if problem := st.session_state.pop(f"{key}__new_error", None):
            st.sidebar.error(md(problem))
    options = users + ([u for u in fresh if u not in users] if allow_new else [])
    if not options:
        if allow_new:
            st.info("No users yet. Type a name under **Start a new user** in the sidebar to chat "
                    "as someone new, or run `memdesk seed` (or `make demo`) to load the demo "
                    "personas.")
        else:
            st.info("No users yet. Run `memdesk seed` (or `make demo`) to load the demo personas"
                    ", or start one by chatting: the Chat page can talk as a new user.")
        st.stop()
    current = st.session_state.get(key) or st.session_state.get(f"{key}__last")
    if current not in options:
        current = options[0]
    st.session_state[key] = current
    chosen = st.sidebar.selectbox("User", options, key=key,
                                  format_func=lambda u: f"{u} (new)" if u not in users else u)
    st.session_state[f"{key}__last"] = chosen
    if st.query_params.get("user") != chosen:
        st.query_params["user"] = chosen
    st.session_state[seen] = chosen
    if chosen not in users:
        st.info(f"{md(chosen)} has no memories yet. Say something below: each message is stored "
                "as their episode, and what the agent learns shows up in Facts and the Review "
                "queue.")
    return chosen


def _start_user(key: str, name: str) -> bool:
    """Add `name` to this session's new users and select it; False (with the reason kept for
    the sidebar) when it is no valid user id."""
    from ..inputs import require_user

    try:
        user = require_user(name)
    except MemdeskError as exc:
        st.session_state[f"{key}__new_error"] = describe(exc)
        return False
    fresh = st.session_state.setdefault(f"{key}__new", [])
    if user not in fresh:
        fresh.append(user)
    st.session_state[key] = user
    return True


def _on_new_user(key: str) -> None:
    name = str(st.session_state.get(f"{key}__new_name") or "").strip()
    if name and _start_user(key, name):
        st.session_state[f"{key}__new_name"] = ""


# who is operating ---------------------------------------------------------------------------------
def login_on() -> bool:
    return runtime().operators == "login"


def current_operator() -> str | None:
    """Who is operating the desk, the only place the desk learns it. With login: the identity
    provider's email (st.user), never a typed name (invariant 122). Without: the sidebar's
    name, else the name this browser session kept (a session cookie), else None."""
    if login_on():
        return signed_in_email()
    name = st.session_state.get(OPERATOR_KEY)
    if name is None:
        name = _cookie_operator()
    name = str(name or "").strip()
    return name or None


def _cookie_operator() -> str | None:
    """The operator name this browser's session cookie holds, if any."""
    try:
        raw = st.context.cookies.get(OPERATOR_COOKIE, "")
    except Exception:  # noqa: BLE001 - no browser context (bare script run): no cookie
        raw = ""
    return (unquote(raw).strip() or None) if isinstance(raw, str) else None


def operator_actor() -> str:
    """The audit actor for a desk mutation: `operator:NAME` (see current_operator)."""
    name = current_operator()
    if not name and login_on():
        raise ValidationError("sign in first: every desk change is audited under your address")
    if not name:
        raise ValidationError("enter your operator name in the sidebar first; "
                              "every desk change is audited under it")
    try:
        return check_actor(f"operator:{name}")
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _keep_operator_cookie(name: str | None) -> None:
    """Write the operator's name into a session cookie (gone when the browser closes) once per
    change, so a reload prefills it. The name is JSON-quoted and URL-encoded: never markup.
    A new session starts from what the cookie already holds: a visit that changes no name
    draws no script element (issue 34: one element fewer on every visit)."""
    if "_operator_cookie" not in st.session_state:
        st.session_state["_operator_cookie"] = _cookie_operator()
    if st.session_state.get("_operator_cookie") == name:
        return
    st.session_state["_operator_cookie"] = name
    value = json.dumps(quote(name or ""))
    expiry = "" if name else "; max-age=0"
    st.html(f"<script>document.cookie = '{OPERATOR_COOKIE}=' + {value} + "
            f"'; path=/; SameSite=Strict{expiry}';</script>", unsafe_allow_javascript=True)


def acting_operator() -> str | None:
    """`operator:NAME` when the desk knows who operates it (always, with login), else None:
    a local desk without a typed name lets the agent act alone, as before issue 14."""
    if not login_on() and not current_operator():
        return None
    return operator_actor()


def require(action: str, user_id: str | None = None) -> None:
    """The layer's role check for what is no batch (a dry run, an eval run, an export):
    refused and audited as denied like any mutation (invariant 121)."""
    actor = acting_operator() or "operator:local"  # local: every name has the same role
    runtime().service.require(actor, action, user_id)


def operator_role() -> Role | None:
    """The operator's role (memory/access.py). Without login every name has the same role."""
    return runtime().access.role_of(f"operator:{current_operator() or 'local'}")


def can(action: str) -> bool:
    """Whether the operator's role allows `action`: pages hide what it does not; the unit of
    work refuses it anyway (invariant 121)."""
    return runtime().access.allows(f"operator:{current_operator() or 'local'}", action)


# sidebar ------------------------------------------------------------------------------------------
def llm_mode() -> str:
    """The language model in use (offline or anthropic:MODEL), for the sidebar and chat."""
    try:
        return runtime().llm.mode
    except MemdeskError as exc:
        return f"unavailable ({exc})"


def sidebar_status() -> None:
    """Operator name, store URL, embedder, LLM mode and review badge (app.py, every page)."""
    sb = st.sidebar
    if login_on():  # issue 14: the identity provider says who this is
        sb.caption(f"Signed in as **{md(current_operator() or '?')}** · "
                   f"{role_label(operator_role())}")
        sb.button("Log out", key="auth_log_out", on_click=st.logout, icon=":material/logout:")
    else:
        if OPERATOR_KEY not in st.session_state:
            st.session_state[OPERATOR_KEY] = current_operator() or ""
        sb.text_input("Operator", key=OPERATOR_KEY, placeholder="your name (audited)",
                      help="Desk changes are audited as operator:NAME; kept for this browser "
                           "session")
        with sb:
            _keep_operator_cookie(current_operator())
    try:
        svc = runtime().service
    except (MemdeskError, OSError) as exc:  # see service(): one message for any open failure
        sb.error(f"Store unavailable: {md(exc)}")
        return
    # One caption, not three: every element is drawn on every page (issue 34).
    lines = [f"Store: `{svc.store.url}`", f"Embedder: `{svc.embedder.name}` · LLM: `{llm_mode()}`"]
    pending = review_badge(svc)
    if pending is not None:
        lines.append(f"Review queue: **{pending}** waiting" if pending else "Review queue: empty")
    sb.caption("  \n".join(lines))


def warm_up() -> None:
    """Open the store and load the embedder in the background the first time app.py runs in a
    server process, so the first page paints while the model loads instead of after."""
    def work() -> None:
        try:
            svc = runtime().service
            svc.embedder.embed(["warm up"])
        except (MemdeskError, OSError):
            pass  # the page that needs the store reports it

    with _lock:
        if getattr(warm_up, "started", False):
            return
        warm_up.started = True  # type: ignore[attr-defined]
    threading.Thread(target=work, name="memdesk-warm-up", daemon=True).start()


# links between pages ---------------------------------------------------------------------------
PAGES = {"users": "pages/users.py", "chat": "pages/chat.py", "facts": "pages/facts.py",
         "review": "pages/review.py", "consolidate": "pages/consolidate.py",
         "recall": "pages/recall.py", "evals": "pages/evals.py", "tokens": "pages/tokens.py",
         "audit": "pages/audit.py"}


def page_link(page: str, label: str, *, container: DeltaGenerator | None = None,
              **params: str) -> None:
    """A link to another desk page carrying `?user=` and the given query parameters. `label`
    is desk text (callers pass stored text through md())."""
    where = container or st
    try:
        where.page_link(PAGES[page], label=label, query_params={k: v for k, v in params.items()
                                                                if v is not None})
    except st.errors.StreamlitAPIException:
        # The page runs outside app.py's navigation (a bare `streamlit run pages/x.py`): say where
        # to go instead of failing the page.
        where.caption(f"{label} → {page} page")
