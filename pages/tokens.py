"""MCP tokens (issue 15): every bearer token — whose, what it may do, when it expires, who
revoked it — and revocation. Secrets are never shown (only their id: they exist nowhere but with
whoever was handed the token); minting stays on the command line, `memdesk mcp token create`."""

import pandas as pd
import streamlit as st

from memory import tokens
from memory.ui import (
    can,
    clear_errors,
    mark_changed,
    md,
    operator_actor,
    page_guard,
    service,
    user_summaries,
)

ALL = "(every user)"

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("MCP tokens")
# Desk text, not stored text: its code spans render as code (issue 34: no literal backticks).
st.caption("A token acts for one user over `memdesk mcp serve --transport http`. Mint one with "
           "`memdesk mcp token create --user U [--read-only] [--expires 30d]`; it is printed "
           "once and stored only as a hash.")
svc = service()
if not can("token_revoke"):  # tokens are an admin's business (invariant 121; the layer refuses too)
    st.info("Only an admin sees and revokes MCP tokens.")
    st.stop()
with clear_errors():
    now = svc.clock()
    creds = tokens.list_tokens(svc)
    # The sidebar's user, as on every page: `?user=` selects it and is kept (issue 34). Tokens
    # may name users with no memories yet, so the choice is over both.
    users = sorted({c.user_id for c in creds} | {u.user_id for u in user_summaries(svc)})
    options = [ALL, *users]
    wanted = st.query_params.get("user") or st.session_state.get("user__last")
    if "tokens_user" not in st.session_state and wanted in options:
        st.session_state["tokens_user"] = wanted
    who = st.sidebar.selectbox("User", options, key="tokens_user")
    if who != ALL:
        st.session_state["user__last"] = who
        if st.query_params.get("user") != who:
            st.query_params["user"] = who
    shown = [c for c in creds if who == ALL or c.user_id == who]
    if not shown:
        st.info(f"No tokens yet for {md(who)}." if who != ALL else "No tokens yet.")
        st.stop()
    rows = [{"token": c.id, "user": c.user_id, "status": c.status(now),
             "mode": "read-only" if c.read_only else "read-write", "label": c.label or "",
             "created": c.created_at, "by": c.created_by, "expires": c.expires_at,
             "revoked": c.revoked_at, "revoked by": c.revoked_by or ""} for c in shown]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"{sum(r['status'] == 'active' for r in rows)} active of {len(rows)}")

    active = [c.id for c in shown if c.status(now) == "active"]
    if active:
        with st.form("tokens_revoke"):
            target = st.selectbox("Token to revoke", active, key="tokens_target")
            reason = st.text_input("Reason", key="tokens_reason")
            revoke = st.form_submit_button("Revoke", type="primary")
        if revoke:
            cred = tokens.revoke_token(svc, target, actor=operator_actor(), reason=reason)
            mark_changed()
            st.success(md(f"Token {cred.id} of {cred.user_id} revoked: its next request is "
                          "refused."))
