"""Review queue: one item at a time with its evidence (Focus), a selectable list for bulk
decisions (List), and what was decided (Decided). Every decision names the item and revision
that were on screen (invariant 81); stored text is shown as text (invariant 80)."""

from datetime import timedelta
from typing import Literal

import pandas as pd
import streamlit as st

from memory.errors import MemdeskError
from memory.llm.judge import JudgeNote, second_opinion
from memory.models import FactState, FactType
from memory.ui import (
    REVIEW_CLAIMED,
    can,
    current_operator,
    describe,
    esc,
    mark_changed,
    md,
    operator_actor,
    operator_role,
    page_guard,
    page_link,
    pick_user,
    role_label,
    runtime,
    service,
    show_error,
    user_summaries,
)
from memory.ui.review_flow import (
    button_key,
    decided_meanwhile,
    describe_filter,
    item_keys,
)
from memory.ui.views import plain_table_html
from review import (
    Decision,
    ItemKind,
    QueueFilter,
    StaleItemError,
    decide,
    decide_many,
    history,
    leases,
    list_queue,
    show_item,
)
from review.queue import replaced_facts
from review.undo import undo_last

COLOR = {"retraction": "#6a1b9a", "previously_rejected": "#c62828", "contradiction": "#ef6c00", "low_confidence": "#1565c0",
         "candidate": "#616161"}
NOTICE, TOAST = "review_notice", "review_toast"  # shown once on the next run
CURSOR, SKIPPED, CONFIRM = "review_cursor", "review_skipped", "review_confirm"
ASKED, CLAIMED = "review_asked", REVIEW_CLAIMED  # an item asked for by id; the one I hold
PAGE = 200  # list rows per page
NEVER_TRUE = "The user may have said this was never true: "  # a proposed retraction (inv. 591)
FILTERS = {"review_kinds": [], "review_types": [], "review_newest": False,
           "review_conf": (0.0, 1.0), "review_min_age": 0.0, "review_text": ""}  # widget defaults

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Review queue")
user = pick_user()
svc = service()
ss = st.session_state
everyone = st.sidebar.checkbox("All users (explicit scope)", key="review_all")
users = [u.user_id for u in user_summaries(svc)] if everyone else [user]

if msg := ss.pop(TOAST, None):
    st.toast(md(msg), icon=":material/check_circle:")
if note := ss.pop(NOTICE, None):
    level, text = note
    {"warning": st.warning, "info": st.info}.get(level, st.error)(md(text))

if (named := st.query_params.get("decided")) and ss.get("review_decided_seen") != named:
    ss["review_decided_seen"] = named  # issue 32: the decisions behind an Evals figure
    ss["review_view"] = "Decided"
if (linked := st.query_params.get("item")) and ss.get("review_url_seen") != linked:
    ss["review_url_seen"] = linked  # a link names an item (e.g. from Facts): show it in focus
    ss[CURSOR], ss[ASKED], ss["review_view"] = linked, linked, "Focus"

# The filters' widgets are drawn only while their expander is open (issue 34: six widgets
# fewer on every visit); their values are kept here meanwhile, so closing it filters on.
kept: dict = ss.setdefault("review_filters_kept", dict(FILTERS))
in_force = sum(kept[k] != v for k, v in FILTERS.items())
# A fixed label: a changing one would close the box at every change of a filter.
box = st.expander("Filters", key="review_filters_open", on_change="rerun")
if in_force and not box.open:
    st.caption(f"{in_force} filter{'s' if in_force > 1 else ''} in force (open Filters to "
               "change them)")
if box.open:
    for k in FILTERS:
        ss.setdefault(k, kept[k])  # back from the kept values after the box was closed
    with box:
        f1, f2, f3 = st.columns(3)
        f1.multiselect("Kind", [k.value for k in ItemKind], key="review_kinds")
        f2.multiselect("Fact type", [t.value for t in FactType], key="review_types")
        f3.toggle("Newest first", key="review_newest")
        f1.slider("Confidence", 0.0, 1.0, step=0.05, key="review_conf")
        f2.number_input("Waiting at least (days)", 0.0, key="review_min_age")
        f3.text_input("Search text", key="review_text", placeholder="words in the item")
    kept.update({k: ss[k] for k in FILTERS})
kinds, types, newest, (lo, hi), min_days, text = (kept[k] for k in FILTERS)
try:
    flt = QueueFilter(users=users, kinds=set(kinds) or None, fact_types=set(types) or None,
                      min_confidence=lo, max_confidence=hi, newest_first=newest, text=text or None,
                      min_age=timedelta(days=min_days) if min_days else None, limit=None)
    listing = list_queue(svc, flt)
except MemdeskError as exc:
    show_error(exc)
    st.stop()
totals = {k.value: sum(c[k.value] for c in listing.counts.values()) for k in ItemKind}
st.html("<div class='rv-badges'>" + "".join(
    f"<span style='background:{COLOR[k]}'>{esc(k.replace('_', ' '))}: {n}</span>"
    for k, n in totals.items()) + "</div><style>.rv-badges span{color:#fff;border-radius:.8em;"
    "padding:.1em .7em;margin-right:.4em;font-size:.85em}</style>")


def operator() -> str:
    return operator_actor().removeprefix("operator:")


# actions (callbacks: they run before the rerun, with the arguments bound when the buttons were
# drawn, i.e. exactly the item and revision on screen) ----------------------------------------------
def on_decide(user_id: str, item_id: str, rev: int, decision: Decision, next_id: str | None):
    keys = item_keys(item_id)
    try:
        res = decide(svc, user_id, item_id, decision, operator=operator(), expected_rev=rev,
                     text=ss.get(keys.text), into=ss.get(keys.into), reason=ss.get(keys.reason),
                     comment=ss.get(keys.comment))
    except StaleItemError as exc:
        fresh = exc.fresh
        if fresh is not None and fresh.state == FactState.CANDIDATE and fresh.rev == rev:
            ss[NOTICE] = ("warning", str(exc))  # the item is as shown: its fact moved on
            return
        said = decided_meanwhile(svc, user_id, item_id, fresh.state.value if fresh else None,
                                 fresh.rev if fresh else 0, operator=operator())
        ss[NOTICE] = ("info" if said.startswith("You already") else "warning", said)
        if fresh is None or fresh.state != FactState.CANDIDATE:
            let_go(user_id, item_id)
            ss[CURSOR] = next_id
        return
    except MemdeskError as exc:
        ss[NOTICE] = ("error", describe(exc))  # the item and what was typed stay on screen
        return
    for key in keys.all():
        ss.pop(key, None)
    let_go(user_id, item_id)
    ss[CURSOR] = next_id
    if res.event.action == "review_retract":
        ss[TOAST] = f"Retracted “{res.fact.text[:60]}”: never true, tombstoned"
    elif res.event.action == "review_keep":
        ss[TOAST] = f"Kept “{res.fact.text[:60]}” as it is: nothing retracted"
    else:
        ss[TOAST] = f"{decision.value}: “{res.fact.text[:60]}” is now {res.fact.state.value}"
    mark_changed()


def let_go(user_id: str, item_id: str) -> None:
    """Release my lease on an item I leave (decided, skipped, stepped past): free at once for
    the others instead of when the lease would end."""
    ss.pop(ASKED, None)
    if ss.get(CLAIMED) == (user_id, item_id):
        ss.pop(CLAIMED, None)
    if current_operator():
        try:
            leases.release(svc, user_id, item_id, operator=operator())
        except MemdeskError:
            pass  # an unreleased lease ends by itself within leases.LEASE_SECONDS


def on_skip(user_id: str, item_id: str, next_id: str | None):
    ss.setdefault(SKIPPED, []).append(item_id)
    let_go(user_id, item_id)
    ss[CURSOR] = next_id


def on_step(user_id: str, item_id: str, to: str | None):
    """Previous / next: move to another free item without marking this one skipped."""
    let_go(user_id, item_id)
    ss[CURSOR] = to


def on_undo():
    try:
        res = undo_last(svc, users, operator=operator())
    except MemdeskError as exc:
        ss[NOTICE] = ("error", describe(exc))
        return
    item = res.restored[0]
    ss[CURSOR] = item.id
    ss[SKIPPED] = [i for i in ss.get(SKIPPED, []) if i != item.id]
    ss[TOAST] = (f"Undid your {res.decision.action.removeprefix('review_')} of “{item.text[:60]}”:"
                 " it waits again")
    mark_changed()


def on_bulk(picks: list[tuple[str, str, int]], decision: str, reason_key: str, comment_key: str,
            contradictions: bool = False):
    try:
        out = decide_many(svc, picks, decision, operator=operator(), reason=ss.get(reason_key),
                          comment=ss.get(comment_key), contradictions=contradictions)
    except MemdeskError as exc:
        ss[NOTICE] = ("error", describe(exc))
        return False
    done = sum(o.ok for o in out)
    failed = [f"{o.fact_id}: {o.error}" for o in out if not o.ok]
    ss[TOAST] = f"{decision}: {done} of {len(out)} decided"
    if failed:
        ss[NOTICE] = ("warning", f"{len(failed)} not decided (nothing written for them): "
                      + "; ".join(failed))
    for key in (reason_key, comment_key):
        ss.pop(key, None)
    mark_changed()
    return True


def open_confirm(decision: str):
    """Capture what "everything matching this filter" is now: the dialog shows that count and
    exactly those items (with their revisions) are decided on confirmation."""
    everything = list_queue(svc, flt)
    ss[CONFIRM] = {"decision": decision, "filter": describe_filter(flt),
                   "picks": [(i.user_id, i.id, i.rev) for i in everything.items
                             if decision != "approve" or not i.supersedes],
                   "contra": [(i.user_id, i.id, i.rev) for i in everything.items
                              if decision == "approve" and i.supersedes
                              and i.kind != ItemKind.RETRACTION]}


@st.dialog("Confirm a bulk decision", on_dismiss=lambda: ss.pop(CONFIRM, None))
def confirm_dialog(req: dict):
    decision, contra = req["decision"], req.get("contra", [])
    # Invariant 512: contradictions replace believed facts; they are approved in bulk only by
    # this separate, ticked choice.
    with_contra = bool(contra) and st.checkbox(
        f"Also accept the {len(contra)} contradiction{'s' if len(contra) != 1 else ''}: each "
        "replaces a fact believed now (see “would replace” in the list)",
        key="review_confirm_contra")
    picks = req["picks"] + (contra if with_contra else [])
    n = len(picks)
    if contra and not with_contra:
        st.caption(f"{len(contra)} contradiction{'s' if len(contra) != 1 else ''} held back.")
    st.markdown(f"**{decision.capitalize()} {n} item{'s' if n != 1 else ''}** matching: "
                f"{md(req['filter'])}")
    st.caption("Each item is decided at the revision it had when this dialog opened; an item "
               "changed meanwhile is skipped and reported.")
    st.text_input("Reason (required to reject)", key="review_confirm_reason")
    st.text_input("Comment (optional, audited)", key="review_confirm_comment")
    c1, c2 = st.columns(2)
    if c1.button(f"{decision.capitalize()} {n}", type="primary", key="review_confirm_ok"):
        if on_bulk(picks, decision, "review_confirm_reason", "review_confirm_comment",
                   with_contra):
            ss.pop(CONFIRM, None)
            st.rerun()
        show_error_text = ss.pop(NOTICE, ("error", ""))[1]
        st.error(md(show_error_text))
    if c2.button("Cancel", key="review_confirm_cancel"):
        ss.pop(CONFIRM, None)
        st.rerun()


# views ------------------------------------------------------------------------------------------
def card(title: str, text: str, sub: str = "", colour: str = "#e0e0e0") -> None:
    st.html(f"<div class='rv-card' style='border-left:6px solid {colour}'>"
            f"<div class='rv-t'>{esc(title)}</div><div class='rv-x'>{esc(text)}</div>"
            f"<div class='rv-s'>{esc(sub)}</div></div><style>.rv-card{{padding:.5em .9em;"
            "background:#fafafa;border-radius:6px;margin-bottom:.4em}.rv-t{font-size:.8em;"
            "color:#555;text-transform:uppercase;letter-spacing:.04em}.rv-x{font-size:1.15em;"
            "white-space:pre-wrap;overflow-wrap:anywhere}.rv-s{font-size:.8em;color:#666}</style>")


def assignment() -> tuple[leases.Assignment, bool]:
    """The item handed to me, and whether I hold it. A reviewer the desk knows by name holds a
    lease on it (others are handed other items); a viewer or a nameless desk only reads."""
    skipped, name = ss.get(SKIPPED, []), current_operator()
    if deciding and name:
        try:
            got = leases.take(svc, listing.items, operator=name, cursor=ss.get(CURSOR),
                              skipped=skipped, asked=ss.get(ASKED))
        except MemdeskError as exc:
            show_error(exc)
        else:
            mine = (got.item.user_id, got.item.id) if got.item and got.held_by is None else None
            if (old := ss.get(CLAIMED)) and old != mine:
                let_go(*old)  # e.g. an item of another user in an all-users scope
            if mine:
                ss[CLAIMED] = mine
            return got, mine is not None
    return leases.assign(listing.items, leases.leases(svc, users), name or "", svc.clock(),
                         cursor=ss.get(CURSOR), skipped=skipped, asked=ss.get(ASKED)), False


@st.fragment(run_every=leases.RENEW_SECONDS)
def keep_lease(user_id: str, item_id: str) -> None:
    """Renew my lease while the item is on screen; a closed tab stops renewing."""
    try:
        leases.claim(svc, user_id, item_id, operator=operator())
    except MemdeskError:
        pass  # the next full run reports what is wrong


def on_ask(key: str) -> None:
    if picked := ss.get(key):
        ss[CURSOR] = ss[ASKED] = picked


def team_line() -> None:
    try:
        today = leases.decided_today(svc, users)
    except MemdeskError:
        return
    if today:
        st.caption("Decided today: " + md(" · ".join(f"{op} {n}" for op, n in today.items())))


def focus_view() -> None:
    got, holding = assignment()
    if got.item is None:
        if got.busy:
            names = ", ".join(sorted(set(got.busy.values())))
            st.info(md(f"All {len(got.busy)} waiting items are being reviewed by {names}."))
            held = {i.id: i.text for i in listing.items if i.id in got.busy}
            st.selectbox("Open one anyway", list(held), index=None, key="review_ask",
                         format_func=lambda i: f"{held[i][:80]} (being reviewed by "
                                               f"{got.busy[i]})",
                         on_change=on_ask, args=("review_ask",))
        else:
            st.success(f"Nothing waiting for {', '.join(users)} with these filters.")
        team_line()
        if deciding:
            st.button("Undo my last decision", key="review_undo", on_click=on_undo,
                      icon=":material/undo:", shortcut="U")
        return
    item = got.item
    ss[CURSOR] = item.id  # what is on screen stays on screen while it waits
    if holding:
        keep_lease(item.user_id, item.id)
    skipped = ss.get(SKIPPED, [])
    n_skipped = sum(i.id in set(skipped) for i in listing.items)
    others = len(got.busy) - (got.held_by is not None)
    st.progress((got.index + 1) / listing.total,
                text=f"Item {got.index + 1} of {listing.total}"
                     + (f" · {n_skipped} skipped" if n_skipped else "")
                     + (f" · {others} being reviewed by others" if others else ""))
    if got.held_by:
        st.warning(md(f"Being reviewed by {got.held_by}: you asked for this item. If you both "
                      "decide it, the second decision is refused and nothing is lost."))
    elif deciding and not holding:
        st.caption("Enter your operator name in the sidebar to be handed items nobody else is "
                   "reviewing.")
    detail = show_item(svc, item.user_id, item.id)
    ev = detail.evidence
    note = second_opinion(runtime().llm, detail)  # invariant 440: advice, never a decision
    retraction = item.kind == ItemKind.RETRACTION
    card(f"{item.kind.value.replace('_', ' ')} · {item.user_id}",
         (NEVER_TRUE if retraction else "") + item.text,
         f"{item.fact_type} · confidence {item.confidence:.2f} · revision {item.rev} · from "
         f"{item.origin}" + (f" ({detail.fact.reader})" if detail.fact.reader else "")
         + f" · waiting since {item.recorded_at:%Y-%m-%d %H:%M}", COLOR[item.kind.value])
    replaces_block(item, ev)
    p1, p2, p3 = st.columns([1, 1, 4])
    p1.button("Previous", key=button_key("prev", item.id, item.rev), shortcut="P",
              on_click=on_step, args=(item.user_id, item.id, got.prev_id),
              disabled=got.prev_id is None, icon=":material/arrow_back:", width="stretch")
    p2.button("Next", key=button_key("next", item.id, item.rev), shortcut="N",
              on_click=on_step, args=(item.user_id, item.id, got.next_id),
              disabled=got.next_id is None, icon=":material/arrow_forward:", width="stretch")
    with p3:
        team_line()

    keys = item_keys(item.id)
    if not deciding:  # issue 14: a viewer reads the item and its evidence, nothing to press
        st.caption(f"Your role ({role_label(operator_role())}) reads the queue; deciding needs "
                   "the reviewer role.")
        evidence(item, ev, note)
        return
    args = (item.user_id, item.id, item.rev)
    if retraction:  # invariant 591: two outcomes, said as what they do
        retraction_buttons(item, keys, args, got.next_id)
        evidence(item, ev, note)
        return
    r1, r2 = st.columns(2)
    r1.text_input("Reason (required to reject)", key=keys.reason)
    r2.text_input("Comment (optional, audited)", key=keys.comment)
    e1, e2 = st.columns(2)
    e1.text_input("Edited text (for Edit)", value=item.text, key=keys.text)
    targets = {n.fact.id: n.fact.text for n in ev.nearest if n.fact.state == FactState.ACTIVE}
    e2.selectbox("Merge into (for Merge)", list(targets), index=None, key=keys.into,
                 format_func=lambda i: targets.get(i, i), placeholder="an active fact of this user")

    buttons: list[tuple[Decision, str, str, Literal["primary", "secondary"]]] = [(Decision.APPROVE, "Accept" if item.supersedes else "Approve", "A", "primary")]
    if item.supersedes:
        buttons.append((Decision.KEEP_BOTH, "Keep both", "K", "secondary"))
    buttons += [(Decision.REJECT, "Reject", "X", "secondary"),
                (Decision.EDIT, "Edit", "E", "secondary"),
                (Decision.MERGE, "Merge", "M", "secondary")]
    cols = st.columns(len(buttons) + 2)
    for col, (decision, label, key, kind) in zip(cols, buttons, strict=False):
        col.button(label, key=button_key(decision.value, item.id, item.rev), type=kind,
                   shortcut=key, on_click=on_decide, args=(*args, decision, got.next_id),
                   width="stretch")
    cols[-2].button("Skip", key=button_key("skip", item.id, item.rev), shortcut="S",
                    on_click=on_skip, args=(item.user_id, item.id, got.next_id),
                    width="stretch")
    cols[-1].button("Undo mine", key="review_undo", shortcut="U", on_click=on_undo,
                    help="undo your own last decision in this scope", width="stretch")
    st.caption("Keys: A approve/accept · K keep both · X reject · E edit · M merge · S skip · "
               "P previous · N next · U undo. A decision applies to the item shown, at the revision shown.")
    evidence(item, ev, note)


def retraction_buttons(item, keys, args: tuple[str, str, int], next_id: str | None) -> None:
    """Retract or Keep a proposed retraction (invariant 591); nothing else applies to it."""
    r1, r2 = st.columns(2)
    r1.text_input("Reason (optional)", key=keys.reason)
    r2.text_input("Comment (optional, audited)", key=keys.comment)
    c1, c2, c3, c4 = st.columns(4)
    c1.button("Retract", key=button_key(Decision.RETRACT.value, item.id, item.rev),
              type="primary", shortcut="A", on_click=on_decide,
              args=(*args, Decision.RETRACT, next_id), width="stretch",
              help="the fact was never true: take it back for good (tombstoned)")
    c2.button("Keep", key=button_key(Decision.KEEP.value, item.id, item.rev), shortcut="K",
              on_click=on_decide, args=(*args, Decision.KEEP, next_id), width="stretch",
              help="the fact stays as it is; nothing is tombstoned")
    c3.button("Skip", key=button_key("skip", item.id, item.rev), shortcut="S",
              on_click=on_skip, args=(item.user_id, item.id, next_id), width="stretch")
    c4.button("Undo mine", key="review_undo", shortcut="U", on_click=on_undo,
              help="undo your own last decision in this scope", width="stretch")
    st.caption("Keys: A retract (the fact was never true; tombstoned) · K keep (the fact stays "
               "as it is, nothing tombstoned) · S skip · P previous · N next · U undo.")


def replaces_block(item, ev) -> None:
    """A contradiction shows the fact it would replace and its chain beside the item, above
    the buttons (invariant 512), and says so when that fact is gone. A proposed retraction
    shows the fact it would retract, the user's words and the reader's reason (inv. 591)."""
    if item.kind == ItemKind.RETRACTION:
        if ev.replaces is not None:
            card(f"Would retract — on record now ({ev.replaces.state.value})", ev.replaces.text,
                 f"recorded {ev.replaces.recorded_at:%Y-%m-%d} · {ev.replaces.id}", "#2e7d32")
        for e in ev.episodes:
            card(f"The user said · {e.timestamp:%Y-%m-%d %H:%M}", f"“{e.text}”")
        if ev.reason:
            st.caption("Why proposed: " + md(ev.reason))
        if ev.stale:
            st.warning(md(f"This proposal no longer applies: {ev.stale}. Retract is refused; "
                          "Keep closes it."))
        return
    if ev.replaces is not None:
        card(f"Would replace — now believed ({ev.replaces.state.value})", ev.replaces.text,
             f"recorded {ev.replaces.recorded_at:%Y-%m-%d} · this is a "
             f"{item.contradiction or 'natural'} contradiction", "#2e7d32")
        st.html("<div class='rv-chain'>Chain: " + " → ".join(
            f"<span>{esc(c.text)}</span> <small>({esc(c.state.value)})</small>" for c in ev.chain)
            + "</div><style>.rv-chain{overflow-wrap:anywhere;font-size:.9em}</style>")
    elif item.supersedes:
        st.warning(md(f"It would replace {item.supersedes}, which no longer exists: keep both "
                      "or reject."))


def evidence(item, ev, note: JudgeNote | None = None) -> None:
    """What the operator judges by: tombstones, sources, nearest facts, the plan, and for a
    doubtful item the model's second opinion (or that there is no judge offline)."""
    if note is not None:
        st.info(md(note.text))  # quotes stored text: shown as text
    page_link("facts", "Open in Facts", user=item.user_id, fact=(ev.replaces.id if ev.replaces
                                                                  else item.id))
    for t in ev.tombstones:
        st.warning(md(f"Previously {t.kind.value} by {t.actor} on {t.created_at:%Y-%m-%d}: "
                      f"“{t.text}” — {t.reason or 'no reason given'}"))
    left, right = st.columns(2)
    with left:
        st.markdown("**Source episodes**")
        if ev.episodes:
            # Plain tables (issue 34): two data grids cost the browser more than the card.
            st.html(plain_table_html([{"said": e.timestamp, "text": e.text}
                                      for e in ev.episodes], "rv-sources", when="%Y-%m-%d %H:%M"))
        else:
            st.caption("none")
        if ev.missing_episode_ids:
            st.caption("Missing (forgotten): " + md(", ".join(ev.missing_episode_ids)))
    with right:
        st.markdown("**Nearest facts**")
        if ev.nearest:
            st.html(plain_table_html([{"text": n.fact.text, "state": n.fact.state.value,
                                       "similarity": n.similarity} for n in ev.nearest],
                                     "rv-nearest"))
        else:
            st.caption("none")
    if ev.plan_id:
        st.caption(md(f"Plan {ev.plan_id}: " + "; ".join(
            f"{e.action} by {e.actor}" for e in ev.plan_events)))


def list_view() -> None:
    pages = max(1, -(-listing.total // PAGE))
    page_no = 1
    if pages > 1:
        page_no = int(st.number_input(f"Page (of {pages})", 1, pages, 1, key="review_page"))
    rows = listing.items[(page_no - 1) * PAGE: page_no * PAGE]
    if not rows:
        st.info(f"Nothing waiting for {', '.join(users)} with these filters.")
        return
    # The table's key names its rows: when the rows change (someone decided, a filter moved), an
    # old selection is dropped instead of landing on whichever rows took its place (inv. 81).
    sig = abs(hash(tuple((i.id, i.rev) for i in rows)))
    busy = leases.holders(leases.leases(svc, users), current_operator() or "", svc.clock())
    replaces = replaced_facts(svc, rows)
    event = st.dataframe(pd.DataFrame([{
        "kind": i.kind.value, "user": i.user_id,
        "text": (NEVER_TRUE if i.kind == ItemKind.RETRACTION else "") + i.text,
        "would replace": replaces[i.id].text if i.id in replaces
        and i.kind != ItemKind.RETRACTION else "", "type": i.fact_type,
        "confidence": i.confidence, "waiting since": i.recorded_at,
        "being reviewed by": busy.get(i.id, "")} for i in rows]),
        hide_index=True, width="stretch", on_select="rerun", selection_mode="multi-row",
        key=f"review_table_{sig:x}", height=min(38 + 35 * len(rows), 520))
    everything = st.checkbox(f"Select all {len(rows)} shown", key="review_select_all")
    chosen = rows if everything else [rows[n] for n in event.selection.rows if n < len(rows)]
    picks = [(i.user_id, i.id, i.rev) for i in chosen]
    if not deciding:  # issue 14: bulk decisions are a reviewer's
        st.caption("Bulk decisions need the reviewer role.")
        return
    c1, c2 = st.columns(2)
    c1.text_input("Reason (required to reject)", key="review_bulk_reason")
    c2.text_input("Comment (optional, audited)", key="review_bulk_comment")
    # Invariant 512: a contradiction is approved in bulk only by a separate, ticked choice; a
    # proposed retraction never (invariant 591: retract it on its own).
    contra = [(i.user_id, i.id, i.rev) for i in chosen
              if i.supersedes and i.kind != ItemKind.RETRACTION]
    with_contra = bool(contra) and st.checkbox(
        f"Also accept the {len(contra)} selected contradiction{'s' if len(contra) != 1 else ''}"
        ": each replaces the fact in “would replace”", key="review_bulk_contra")
    approving = [p for p, i in zip(picks, chosen, strict=True) if i.kind != ItemKind.RETRACTION
                 and (not i.supersedes or with_contra)]
    b1, b2, b3, b4 = st.columns(4)
    for col, decision, these in ((b1, "approve", approving), (b2, "reject", picks)):
        col.button(f"{decision.capitalize()} selected ({len(these)})",
                   key=f"review_bulk_{decision}", disabled=not these, on_click=on_bulk,
                   width="stretch", args=(these, decision, "review_bulk_reason",
                                          "review_bulk_comment", with_contra))
    for col, decision in ((b3, "approve"), (b4, "reject")):
        col.button(f"{decision.capitalize()} all {listing.total} matching…", width="stretch",
                   key=f"review_all_{decision}", on_click=open_confirm, args=(decision,))
    for i in chosen[:1]:
        page_link("facts", "Open the first selected in Facts", user=i.user_id, fact=i.id)


def show_every_decision() -> None:
    st.query_params.pop("decided", None)


def decided_view() -> None:
    named = {i for i in (st.query_params.get("decided") or "").split(",") if i}
    past = history(svc, users, limit=1000 if named else 100)
    if named:  # invariant 491: only the decisions behind the figure that linked here
        past = [h for h in past if h.fact_id in named]
        st.caption(f"The decisions on {len(named)} item(s) linked from Evals.")
        st.button("Show every decision", key="review_decided_all", on_click=show_every_decision)
    if not past:
        st.info("No decisions yet in this scope.")
    else:
        st.dataframe(pd.DataFrame([h.model_dump() for h in past]), hide_index=True,
                     width="stretch")
    if deciding:
        st.button("Undo my last decision", key="review_undo_hist", on_click=on_undo,
                  icon=":material/undo:")


deciding = can("review_approve")  # issue 14: viewers see no decide buttons (the layer refuses)
view = st.radio("View", ["Focus", "List", "Decided"], horizontal=True, key="review_view",
                label_visibility="collapsed")
{"Focus": focus_view, "List": list_view, "Decided": decided_view}[view]()
if ss.get(CONFIRM):
    confirm_dialog(ss[CONFIRM])
