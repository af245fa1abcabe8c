"""Consolidate: plan one user's new episodes as a reviewable changeset (dry run), read it as a
coloured diff, choose the operations to apply, apply them, or undo an applied plan from its
history. Calls memory.consolidation only."""

import pandas as pd
import streamlit as st

from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.plan import OpKind
from memory.consolidation.planner import make_plan
from memory.errors import MemdeskError
from memory.ui import (
    can,
    clear_errors,
    describe,
    mark_changed,
    md,
    operator_actor,
    page_guard,
    pick_user,
    require,
    runtime,
    service,
    show_error,
)
from memory.ui.consolidate_views import (
    default_selection,
    diff_html,
    diff_lines,
    outcomes,
    plan_history,
    plan_summary,
    quotes,
)

ss = st.session_state
PLANS, CHOSEN = "consolidate_plans", "consolidate_chosen"  # per user; not widget state, so
UNDO = "consolidate_undo"                                   # they survive navigation
DONE = "consolidate_done"  # per user: {plan id: {op id: outcome}} after applying

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Consolidate")
user = pick_user()
svc = service()
plans: dict = ss.setdefault(PLANS, {})
chosen_by: dict = ss.setdefault(CHOSEN, {})
done_by: dict = ss.setdefault(DONE, {})
if msg := ss.pop("consolidate_toast", None):
    st.toast(md(msg), icon=":material/check_circle:")
if msg := ss.pop("consolidate_applied", None):
    st.success(msg)

with clear_errors():
    rt = runtime()
    llm, policy = rt.llm, rt.policy
    st.caption(md(f"LLM: {llm.mode} · policy: {policy.describe()}"))
    if st.button("Plan (dry run)", type="primary", key="consolidate_plan_btn",
                 help="one extraction call; nothing is written",
                 disabled=not can("consolidate_dry_run")):  # issue 14: reviewers and admins
        require("consolidate_dry_run", user)
        plans[user] = make_plan(svc, user, llm, policy=policy)
        chosen_by.pop(user, None)


@st.dialog("Undo an applied plan", on_dismiss=lambda: ss.pop(UNDO, None))
def confirm_undo(plan_id: str):
    st.markdown(f"Undo plan **{md(plan_id)}** for **{md(user)}**? Facts and playbooks it added "
                "are removed, facts it retired are restored, and the consolidation watermark "
                "moves back, all in one audited batch.")
    c1, c2 = st.columns(2)
    if c1.button("Undo plan", type="primary", key="consolidate_undo_ok"):
        try:
            res = undo_plan(svc, user, plan_id, actor=operator_actor())
        except MemdeskError as exc:
            show_error(exc)
        else:
            ss.pop(UNDO, None)
            plans.pop(user, None)
            mark_changed()
            ss["consolidate_toast"] = (f"Plan {res.plan_id} undone: {len(res.reverted)} "
                                       "memories reverted")
            st.rerun()
    if c2.button("Cancel", key="consolidate_undo_cancel"):
        ss.pop(UNDO, None)
        st.rerun()


def history_section() -> None:
    with clear_errors():
        past = plan_history(svc.audit(user, action="consolidate", limit=100),
                            svc.audit(user, action="consolidate_undo", limit=500))
    st.subheader("Applied plans")
    if not past:
        st.caption(f"No plan has been applied for {user} yet.")
        return
    st.dataframe(pd.DataFrame([p.model_dump() for p in past]), hide_index=True, width="stretch")
    live = [p for p in past if not p.undone][:5]
    for p in live:
        c1, c2 = st.columns([4, 1])
        c1.caption(md(f"{p.plan_id} · applied {p.applied_at:%Y-%m-%d %H:%M} by {p.actor} · "
                      f"{p.operations} operations"))
        if can("consolidate_undo"):  # issue 14: undoing a plan is an admin's
            c2.button("Undo…", key=f"consolidate_undo_{p.plan_id}", width="stretch",
                      on_click=lambda pid=p.plan_id: ss.__setitem__(UNDO, pid))
    if live:
        st.caption("Only the newest applied plan can be undone while a later one stands.")


plan = plans.get(user)
if plan is None:
    st.info(f"Press **Plan (dry run)** to see what consolidation would change for {md(user)}. "
            "Nothing is written until you apply.")
else:
    plan_id = plan.id
    st.subheader(f"Plan {plan_id}")
    st.caption(md(plan_summary(plan)))
    lines = diff_lines(plan)
    # Each change with the words that justify it, and after applying what became of it.
    episodes = {e.id: e for e in svc.episodes(user)} if any(x.evidence for x in lines) else {}
    done = done_by.get(user, {}).get(plan.id, {})
    lines = [x.model_copy(update={"quotes": quotes(x, episodes), "outcome": done.get(x.op_id)})
             for x in lines]
    st.html(diff_html(lines))
    with st.expander(f"Gate decisions ({len(plan.gates)})"):
        st.dataframe(pd.DataFrame([g.model_dump() for g in plan.gates]), hide_index=True,
                     width="stretch")
    actionable = plan.actionable()
    if not actionable:
        st.info("Nothing to apply: no new episodes past the watermark, or every item was dropped.")
    else:
        labels = {op.id: (f"propose retracting: {op.written}" if op.kind ==
                          OpKind.PROPOSE_RETRACTION else f"{op.kind.value}: {op.written}")
                  + (" (to review)" if op.review else "") for op in actionable}
        key = f"consolidate_ops__{user}"
        if key not in ss:  # back from another page or user: the selection made for this plan
            ss[key] = [i for i in chosen_by.get(user, {}).get(plan.id, default_selection(plan))
                       if i in labels]
        waiting = len(labels) - len(default_selection(plan))
        chosen = st.multiselect(
            "Operations to apply (partial approval)", list(labels), format_func=labels.__getitem__,
            key=key, on_change=lambda: chosen_by.__setitem__(user, {plan_id: ss[key]}),
            help="Pre-selected: what the policy would apply on its own. An operation marked "
                 "(to review) is added as a review candidate only if you choose it.")
        if waiting:
            st.caption(f"{waiting} operation{'s' if waiting != 1 else ''} the policy sends to "
                       "review not pre-selected: choose them to send them to the review queue.")
        chosen_by[user] = {plan.id: chosen}
        if not can("consolidate"):
            st.caption("Applying a plan needs the reviewer role.")
        elif st.button("Apply selected", type="primary", key="consolidate_apply_btn"):
            try:
                if not chosen:
                    st.error("Choose at least one operation to apply.")
                else:
                    res = apply_plan(svc, plan, op_ids=chosen, actor=operator_actor())
                    mark_changed()
                    done_by[user] = {plan.id: outcomes(plan, res.applied, res.already,
                                                       res.declined)}
                    ss["consolidate_applied"] = (
                        f"Applied {len(res.applied)} operations ({len(res.already)} already "
                        f"applied, {len(res.declined)} declined, {len(res.for_review)} of them sent to the "
                        f"review queue, {len(res.held)} playbook(s) kept for the next plan). "
                        "Each is marked in the plan "
                        "above; undo it from Applied plans below.")
                    st.rerun()
            except MemdeskError as exc:
                st.error(md(describe(exc)))

history_section()
if ss.get(UNDO):
    confirm_undo(ss[UNDO])
