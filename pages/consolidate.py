"""Consolidate: plan one user's new episodes as a reviewable changeset (dry run), choose the
operations to apply, apply them, or undo an applied plan. Calls memory.consolidation only."""

import pandas as pd
import streamlit as st

from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.planner import make_plan
from memory.ui import clear_errors, operator_actor, pick_user, runtime, service

PLAN = "consolidate_plan"  # the dry-run plan kept across reruns until applied or re-planned

st.title("Consolidate")
user = pick_user()
svc = service()
with clear_errors():
    rt = runtime()
    llm, policy = rt.llm, rt.policy
    st.caption(f"LLM: `{llm.mode}` · policy: {policy.describe()}")
    if st.button("Plan (dry run)", type="primary", key="consolidate_plan_btn",
                 help="one extraction call; nothing is written"):
        st.session_state[PLAN] = make_plan(svc, user, llm, policy=policy)

with st.expander("Undo an applied plan"):
    undo_id = st.text_input("Plan id", key="consolidate_undo_id", placeholder="plan_…")
    if st.button("Undo plan", key="consolidate_undo_btn"):
        with clear_errors():
            if not undo_id.strip():
                st.error("Enter the id of an applied plan (see the audit log or the apply message).")
            else:
                res = undo_plan(svc, user, undo_id.strip(), actor=operator_actor())
                st.session_state.pop(PLAN, None)
                st.success(f"Plan {res.plan_id} undone: {len(res.reverted)} memories reverted.")

plan = st.session_state.get(PLAN)
if plan is None or plan.user_id != user:
    st.info("Press **Plan (dry run)** to see what consolidation would change for "
            f"{user}. Nothing is written until you apply.")
    st.stop()

st.subheader(f"Plan {plan.id}")
st.code(plan.render_diff(), language=None)
actionable = plan.actionable()
if not actionable:
    st.info("Nothing to apply: no new episodes past the watermark, or every item was dropped.")
    st.stop()
labels = {op.id: f"{op.kind.value}: {(op.fact.text if op.fact else op.playbook.name)}"
          + (" (to review)" if op.review else "") for op in actionable}
chosen = st.multiselect("Operations to apply (partial approval)", list(labels),
                        default=list(labels), format_func=labels.get, key="consolidate_ops")
with st.expander(f"Gate decisions ({len(plan.gates)})"):
    st.dataframe(pd.DataFrame([g.model_dump() for g in plan.gates]), hide_index=True,
                 use_container_width=True)
if st.button("Apply selected", type="primary", key="consolidate_apply_btn"):
    with clear_errors():
        if not chosen:
            st.error("Choose at least one operation to apply.")
        else:
            res = apply_plan(svc, plan, op_ids=chosen, actor=operator_actor())
            st.success(f"Applied {len(res.applied)} operations ({len(res.already)} already "
                       f"applied, {len(res.declined)} declined). Undo with plan id `{plan.id}`.")
