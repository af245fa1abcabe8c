"""Evals: the latest recall, LoCoMo and stress reports; run the recall eval or stress scenarios."""

import pandas as pd
import streamlit as st

from memory.eval.recall_eval import QUESTIONS_PATH, load_questions, run_recall_eval
from memory.eval.recall_eval import render_markdown as recall_markdown
from memory.eval.reports import latest, write_reports
from memory.eval.stress import SCENARIOS, run_stress
from memory.eval.stress import render_markdown as stress_markdown
from memory.ui import clear_errors, page_link, pick_user, service

st.title("Evals")
st.caption("The same reports `memdesk eval recall | locomo | stress` write under `reports/`. "
           "Eval recalls are read-only: running one never changes what it measures.")
svc = service()
pick_user()  # keeps ?user= in the URL; the reports span every user

left, right = st.columns(2)
with left.form("evals_recall_form"):
    questions = st.text_input("Questions file", value=str(QUESTIONS_PATH), key="evals_questions")
    run_recall = st.form_submit_button("Run recall eval", type="primary")
with right.form("evals_stress_form"):
    chosen = st.multiselect("Scenarios", list(SCENARIOS), default=list(SCENARIOS),
                            key="evals_scenarios")
    run_stress_now = st.form_submit_button("Run stress scenarios")
    st.caption("Each on a throwaway store. The concurrency scenario embeds ~2,000 texts: "
               "minutes with MiniLM.")

if run_recall:
    with clear_errors(), st.spinner("Asking every question, then the isolation sweep…"):
        report = run_recall_eval(svc, load_questions(questions))
        write_reports(report, recall_markdown(report), "recall-default")
if run_stress_now:
    with clear_errors(), st.spinner("Running scenarios on throwaway stores…"):
        if not chosen:
            st.warning("Pick at least one scenario.")
        else:
            report = run_stress(svc.embedder, only=chosen)
            write_reports(report, stress_markdown(report), "stress")

for kind, title, how in [("recall", "Recall eval", "memdesk eval recall"),
                         ("stress", "Stress scenarios", "memdesk eval stress"),
                         ("locomo", "LoCoMo benchmark", "memdesk eval locomo --data PATH")]:
    st.subheader(title)
    found = latest(kind)
    if found is None:
        st.info(f"No {title.lower()} report yet. Run `{how}` (or the button above).")
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
        miss = st.selectbox("Open a miss in the recall debugger", list(by_id),
                            format_func=lambda i, m=by_id: f"{i} · {m[i]['user_id']} · "
                                                           f"{m[i]['question'][:80]}",
                            key="evals_miss")
        page_link("recall", "Recall debugger for this question", user=by_id[miss]["user_id"],
                  q=by_id[miss]["question"])
