"""Review queue: candidates wait here with their evidence until a named operator decides."""

from datetime import timedelta

import pandas as pd
import streamlit as st

from memory.errors import MemdeskError
from memory.models import FactType
from memory.ui import clear_errors, describe, operator_actor, pick_user, service
from review import (
    Decision,
    ItemKind,
    QueueFilter,
    StaleItemError,
    decide,
    decide_many,
    history,
    list_queue,
    show_item,
)

COLOR = {"previously_rejected": "red", "contradiction": "orange", "low_confidence": "blue",
         "candidate": "gray"}
st.title("Review queue")
svc = service()
user = pick_user()
everyone = st.sidebar.checkbox("All users (explicit scope)", key="review_all")
with clear_errors():
    users = [u.user_id for u in svc.users()] if everyone else [user]
    with st.expander("Filters"):
        kinds = st.multiselect("Kind", [k.value for k in ItemKind], key="review_kinds")
        types = st.multiselect("Fact type", [t.value for t in FactType], key="review_types")
        lo, hi = st.slider("Confidence", 0.0, 1.0, (0.0, 1.0), 0.05, key="review_conf")
        min_days = st.number_input("Waiting at least (days)", 0.0, value=0.0, key="review_min_age")
        newest = st.toggle("Newest first", key="review_newest")
    listing = list_queue(svc, QueueFilter(
        users=users, kinds=set(kinds) or None, fact_types=set(types) or None,
        min_confidence=lo, max_confidence=hi,
        min_age=timedelta(days=min_days) if min_days else None, newest_first=newest))
    totals = {k.value: sum(c[k.value] for c in listing.counts.values()) for k in ItemKind}
    st.markdown("  ".join(f":{COLOR[k]}-badge[{k.replace('_', ' ')}: {n}]"
                          for k, n in totals.items()))
    if flash := st.session_state.pop("review_flash", None):
        st.success(flash)
    # Optimistic concurrency (invariant 43): a decision names the revision rendered on the
    # previous run, i.e. what the operator actually looked at, not what this rerun re-read.
    shown = dict(st.session_state.get("review_shown", {}))
    st.session_state["review_shown"] = {i.id: i.rev for i in listing.items}
    if not listing.items:
        st.info(f"Nothing waiting for {', '.join(users) or 'anyone'} with these filters.")
    else:
        st.dataframe(pd.DataFrame([{
            "kind": i.kind.value, "user": i.user_id, "text": i.text, "type": i.fact_type,
            "confidence": i.confidence, "waiting since": i.recorded_at} for i in listing.items]),
            hide_index=True, width="stretch")
        by_id = {i.id: i for i in listing.items}
        label = lambda i: f"[{by_id[i].kind.value}] {by_id[i].user_id}: {by_id[i].text}"
        comment = st.text_input("Comment (optional, audited)", key="review_comment")
        reason = st.text_input("Reason (required to reject)", key="review_reason")

        def act(fn):
            """Run one decision call; errors become one st.error, a conflict shows fresh state."""
            try:
                operator = operator_actor().removeprefix("operator:")
                st.session_state["review_flash"] = fn(operator)
                st.rerun()
            except StaleItemError as exc:
                st.error(describe(exc))
                if exc.fresh is not None:
                    st.caption("Current state of the item:")
                    st.json(exc.fresh.model_dump(mode="json"), expanded=False)
            except MemdeskError as exc:
                st.error(describe(exc))

        with st.expander("Bulk approve / reject"):
            chosen = st.multiselect("Items", list(by_id), format_func=label, key="review_bulk")
            c1, c2 = st.columns(2)
            picks = [(by_id[i].user_id, i, shown.get(i, by_id[i].rev)) for i in chosen]

            def bulk(decision):
                def run(operator):
                    out = decide_many(svc, picks, decision, operator=operator, reason=reason,
                                      comment=comment)
                    failed = [f"{o.fact_id}: {o.error}" for o in out if not o.ok]
                    return f"{decision}: {len(out) - len(failed)} done" + (
                        "; not decided: " + "; ".join(failed) if failed else "")
                return run
            if c1.button("Approve selected", key="review_bulk_approve", disabled=not picks):
                act(bulk("approve"))
            if c2.button("Reject selected", key="review_bulk_reject", disabled=not picks):
                act(bulk("reject"))

        item = by_id[st.selectbox("Item", list(by_id), format_func=label, key="review_item")]
        detail = show_item(svc, item.user_id, item.id)
        ev = detail.evidence
        st.markdown(f":{COLOR[item.kind.value]}-badge[{item.kind.value}] **{item.text}** · "
                    f"{item.fact_type} · confidence {item.confidence:.2f} · rev {item.rev} · "
                    f"from {item.origin}")
        if ev.replaces is not None:
            old, new = st.columns(2)
            old.markdown(f"**Now believed** ({ev.replaces.state.value})\n\n{ev.replaces.text}")
            new.markdown(f"**Proposed** ({item.contradiction or 'natural'})\n\n{item.text}")
            st.caption("Chain: " + " → ".join(f.text for f in ev.chain))
        for t in ev.tombstones:
            st.warning(f"Previously {t.kind.value} by {t.actor} on {t.created_at:%Y-%m-%d}: "
                       f"{t.text!r} — {t.reason or 'no reason given'}")
        st.markdown("**Source episodes**\n" + ("\n".join(f"- {e.text}" for e in ev.episodes)
                                                or "\n_none_"))
        st.markdown("**Nearest facts**\n" + ("\n".join(
            f"- {n.fact.text} ({n.fact.state.value}, {n.similarity:.2f})" for n in ev.nearest)
            or "\n_none_"))
        if ev.plan_id:
            st.caption(f"Plan {ev.plan_id}: " + "; ".join(
                f"{e.action} by {e.actor}" for e in ev.plan_events))
        rev = shown.get(item.id, item.rev)
        new_text = st.text_input("Edited text", value=item.text, key=f"review_text_{item.id}")
        targets = {n.fact.id: n.fact.text for n in ev.nearest if n.fact.state.value == "active"}
        into = st.selectbox("Merge into", list(targets), format_func=targets.get,
                            key=f"review_into_{item.id}", index=None)
        buttons = [Decision.APPROVE, Decision.REJECT, Decision.EDIT, Decision.MERGE]
        if item.supersedes:
            buttons.insert(1, Decision.KEEP_BOTH)
        for col, decision in zip(st.columns(len(buttons)), buttons):
            name = "Accept" if decision == Decision.APPROVE and item.supersedes else decision.value
            if col.button(name.capitalize(), key=f"review_{decision.value}"):
                act(lambda op, d=decision: "{}: now {}".format(item.id, decide(
                    svc, item.user_id, item.id, d, operator=op, expected_rev=rev, text=new_text,
                    into=into, reason=reason, comment=comment).fact.state.value))
    with st.expander("Decided items"):
        past = history(svc, users, limit=50)
        st.dataframe(pd.DataFrame([h.model_dump() for h in past]) if past else pd.DataFrame(),
                     hide_index=True, width="stretch")
