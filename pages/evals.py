"""Evals: review decisions as labels (precision per reader version), the latest recall, LoCoMo
and stress reports; run the recall eval or stress scenarios."""

import pandas as pd
import streamlit as st

from memory.errors import MemdeskError
from memory.eval.desk_runs import question_files, run_recall, run_stress_scenarios
from memory.eval.label_table import table_rows
from memory.eval.reports import latest
from memory.eval.stress import SCENARIOS
from memory.ui import (
    acting_operator,
    can,
    clear_errors,
    labels_measure,
    md,
    page_guard,
    page_link,
    pick_user,
    service,
    show_error,
    user_summaries,
)
from review.labels import Outcome

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Evals")
st.caption("The same reports `memdesk eval recall | locomo | stress` write under `reports/`. "
           "Eval recalls are read-only: running one never changes what it measures.")
svc = service()
user = pick_user()  # keeps ?user= in the URL; the reports span every user


def labels_section() -> None:
    """Issue 32: every review decision is a label; the measure per reader version, and the
    decisions behind any figure of it (invariant 491)."""
    st.subheader("Review decisions as labels")
    st.caption("What readers proposed and what operators made of it. Precision = (accepted as "
               "is + merged) / decided; edits, rejections and an operator's retraction or "
               "correction of an active write count against the reader. Pending items are not "
               "counted; an undone decision is no label. Same table: `memdesk eval labels`.")
    mine = st.toggle("Only the user in the sidebar", key="evals_labels_mine")
    users = [user] if mine else [u.user_id for u in user_summaries(svc)]
    try:
        tables = labels_measure(svc, users)
    except MemdeskError as exc:
        show_error(exc)
        return
    if not tables.labels:
        st.info("No decided proposals yet: approve, edit or reject items in the Review queue.")
        return
    st.markdown(f"**By reader version** · {len(tables.labels)} labels")
    st.dataframe(pd.DataFrame(table_rows(tables.by_reader)), hide_index=True, width="stretch")
    st.markdown("**By reader version, kind and day**")
    rows = tables.by_reader_kind_day
    st.dataframe(pd.DataFrame(table_rows(rows)), hide_index=True, width="stretch")
    # Click-through: a row and one of its figures -> the decisions behind that figure.
    pick, fig = st.columns([3, 1])
    if st.session_state.get("evals_labels_row") not in range(len(rows)):
        st.session_state.pop("evals_labels_row", None)  # fewer rows now (another scope)
    n = pick.selectbox("Decisions behind a row", range(len(rows)), key="evals_labels_row",
                       format_func=lambda i: f"{rows[i].reader} · {rows[i].kind} · "
                                             f"{rows[i].day} · {rows[i].decided} decided")
    figure = fig.selectbox("Figure", ["decided", *(o.value for o in Outcome)],
                           key="evals_labels_figure")
    row = rows[n if n is not None else 0]
    keys = set(row.labels)
    behind = [lb for lb in tables.labels if (lb.user_id, lb.fact_id) in keys
              and (figure == "decided" or lb.outcome.value == figure)]
    # Drawn when opened (issue 34): a third table on every visit cost the browser its time.
    # A fixed label: the expander stays open while the row and figure change.
    box = st.expander("The decisions behind this figure", key="evals_behind_open",
                      on_change="rerun")
    if not box.open:
        return
    with box:
        st.caption(f"{len(behind)} decision(s) behind “{figure}” of this row")
        if not behind:
            st.caption("none")
            return
        st.dataframe(pd.DataFrame([{
            "user": lb.user_id, "fact": lb.fact_id, "decision": lb.decision,
            "outcome": lb.outcome.value, "operator": lb.operator, "at": lb.at,
            "proposed": lb.proposed, "final": lb.final, "edit distance": lb.edit_distance,
            "reason": lb.reason} for lb in behind]), hide_index=True, width="stretch")
        for u in dict.fromkeys(lb.user_id for lb in behind):
            ids = ",".join(lb.fact_id for lb in behind if lb.user_id == u)
            page_link("review", f"Open {md(u)}'s decisions in Review → Decided", user=u,
                      decided=ids)


labels_section()


def run_section() -> None:
    """An admin runs the recall eval or stress scenarios (the layer checks and audits it too)."""
    left, right = st.columns(2)
    with left.form("evals_recall_form"):
        # Only the project's own question sets: the desk never reads a path typed into it.
        files = question_files()
        questions = st.selectbox("Questions file", files, key="evals_questions",
                                 format_func=lambda p: p.name,
                                 help="question sets in the project's data folders")
        run_recall_now = st.form_submit_button("Run recall eval", type="primary")
    with right.form("evals_stress_form"):
        chosen = st.multiselect("Scenarios", list(SCENARIOS), default=list(SCENARIOS),
                                key="evals_scenarios")
        run_stress_now = st.form_submit_button("Run stress scenarios")
        st.caption("Each on a throwaway store. The concurrency scenario embeds ~2,000 texts: "
                   "minutes with MiniLM.")
    actor = acting_operator() or "operator:local"  # local mode: every name has the same role
    if run_recall_now:
        with clear_errors(), st.spinner("Asking every question, then the isolation sweep…"):
            if questions is None:
                st.warning("No question set in the project's data folders.")
            else:
                run_recall(svc, actor, questions)
    if run_stress_now:
        with clear_errors(), st.spinner("Running scenarios on throwaway stores…"):
            if not chosen:
                st.warning("Pick at least one scenario.")
            else:
                run_stress_scenarios(svc, actor, chosen)


if can("run_eval"):  # issue 14: eval runs are an admin's
    # Drawn when opened (issue 34): two forms and a multiselect on every visit cost the browser
    # more than the reports below; a fixed label keeps it open while a run reruns the page.
    runs = st.expander("Run an eval", key="evals_run_open", on_change="rerun")
    if runs.open:
        with runs:
            run_section()
else:
    st.caption("Running evals needs the admin role; the latest reports are below.")

for kind, title, how in [("recall", "Recall eval", "memdesk eval recall"),
                         ("stress", "Stress scenarios", "memdesk eval stress"),
                         ("locomo", "LoCoMo benchmark", "memdesk eval locomo --data PATH")]:
    st.subheader(title)
    found = latest(kind)
    if found is None:
        st.info(f"No {title.lower()} report yet: run `{how}` on the command line.")
        continue
    passed = found.data.get("passed")
    if passed is True:
        st.success(f"Passed · `{found.path}`")
    elif passed is False:
        st.error(f"Failed · `{found.path}`")
    else:
        st.caption(f"`{found.path}`")
    # The report's own H1 repeats the subheader: show from its first line on. Misses quote
    # questions and are listed below as a table with links instead (stored text stays text).
    st.markdown(found.markdown.split("\n", 1)[-1].split("\n## Misses")[0])
    misses = found.data.get("misses") or []
    if kind == "recall" and misses:
        st.markdown(f"**Misses (gold not in top 10): {len(misses)}**")
        st.dataframe(pd.DataFrame([{k: m.get(k) for k in ("id", "user_id", "gold_kind", "rank",
                                                          "question")} for m in misses]),
                     hide_index=True, width="stretch")
        by_id = {m["id"]: m for m in misses}
        miss_labels = {i: f"{i} · {m['user_id']} · {m['question'][:80]}" for i, m in by_id.items()}
        miss = st.selectbox("Open a miss in the recall debugger", list(by_id),
                            format_func=miss_labels.__getitem__,
                            key="evals_miss")
        page_link("recall", "Recall debugger for this question", user=by_id[miss]["user_id"],
                  q=by_id[miss]["question"])
