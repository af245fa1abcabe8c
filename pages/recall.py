"""Recall debugger: why recall ranked what it ranked for one user, as pictures, and why a memory
is missing (read-only: Purpose.EXPLAIN). The URL carries the query, preset and toggles."""

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from memory.errors import MemdeskError
from memory.rerank import RERANKERS
from memory.search_config import PRESETS
from memory.ui import esc, explain_recall, md, page_guard, pick_user, service, show_error
from memory.ui.recall_views import (
    RecallToggles,
    build_config,
    contribution_html,
    debugger_rows,
    from_query_params,
    hits_table_html,
    rank_shift_html,
    to_query_params,
    toggles_of,
)
from memory.ui.views import filter_rows
from memory.ui.why_not import memory_choices, why_not

TOGGLES = {"bm25": "BM25", "dense": "Dense", "decay": "Decay", "boost": "Boost",
           "prior": "Prior", "superseded": "Superseded", "catalog": "Catalog"}
HELP = {"bm25": "the lexical leg (FTS5 / BM25)", "dense": "the embedding leg",
        "decay": "time decay multiplier", "boost": "use-count boost multiplier",
        "prior": "catalog prior multiplier (off: catalog documents rank like the user's own)",
        "superseded": "include superseded facts (history)",
        "catalog": "include the shared catalog documents"}
ss = st.session_state

page_guard()  # issue 14: inside the desk's navigation, and nothing before login
st.title("Recall debugger")
user = pick_user()
svc = service()


def set_toggles(t: RecallToggles) -> None:
    ss["recall_use"] = [name for name in TOGGLES if getattr(t, name)]
    ss["recall_rerank"] = t.rerank if t.rerank in ("none", *RERANKERS) else "none"
    ss["recall_k"] = t.k


def on_preset() -> None:
    set_toggles(toggles_of(ss["recall_preset"]).model_copy(update={"k": ss.get("recall_k", 10)}))


# A shared link (or a reload) names a recall: it fills the form once per distinct URL.
shared = from_query_params(st.query_params)
if shared is not None and ss.get("recall_url_seen") != st.query_params.to_dict():
    query0, preset0, toggles0 = shared
    ss["recall_query"], ss["recall_preset"] = query0, preset0
    set_toggles(toggles0)
    ss["recall_ran"] = True  # a shared recall shows its results straight away
if "recall_use" not in ss:
    ss.setdefault("recall_preset", "default")
    set_toggles(toggles_of(ss["recall_preset"]))

q1, q2, q3, q4 = st.columns([5, 2, 1, 2])
query = q1.text_input("Query", key="recall_query", placeholder="e.g. where does she live")
preset = q2.selectbox("Preset", list(PRESETS), key="recall_preset", on_change=on_preset,
                      help="named recall configurations (memory.search_config); picking one "
                           "resets the legs and multipliers to it")
k = q3.number_input("k", min_value=1, max_value=200, key="recall_k")
rerank = q4.selectbox("Rerank", ["none", *RERANKERS], key="recall_rerank",
                      disabled=not RERANKERS, help="rerankers registered in memory.rerank")
# One row of chips for the legs, multipliers and what is included, no label cut ("Superse…"):
# seven toggles in nine columns under two captions cost the browser ~20 elements (issue 34).
used = st.pills("Legs, multipliers and what is included (highlighted: on)", list(TOGGLES),
                selection_mode="multi", key="recall_use", format_func=TOGGLES.__getitem__,
                help="  \n".join(f"{TOGGLES[n]}: {HELP[n]}" for n in TOGGLES)) or []
run = st.button("Recall", type="primary", key="recall_run")

if not (run or ss.get("recall_ran")):
    st.info("Type a query and press Recall. Explain recalls never touch usage counts; the URL "
            "then carries the query, preset and toggles, so the view can be shared.")
    st.stop()
ss["recall_ran"] = True
toggles = RecallToggles(**{n: n in used for n in TOGGLES}, rerank=rerank, k=int(k))
try:
    config = build_config(preset, toggles)
    result = explain_recall(svc, user, query, config)  # kept across this session's reruns
except MemdeskError as exc:
    show_error(exc)
    st.stop()

params = {"user": user, **to_query_params(query, preset, toggles)}
if st.query_params.to_dict() != params:
    st.query_params.from_dict(params)
ss["recall_url_seen"] = params
ex = result.explain
assert ex is not None  # explain=True always fills it
st.caption(md(f"Path: {ex.path} · candidates per leg: "
              + (", ".join(f"{leg} {n}" for leg, n in ex.candidates.items()) or "none")
              + f" · preset {preset} · "
              + (f"RRF k {config.ranking.rrf_k}" if config.ranking.fusion == "rrf"
                 else "score fusion")
              + (f" · dense weight {ex.dense_weight:.2f}" if ex.dense_weight is not None else "")
              + (f", facts, playbooks and catalog {ex.distilled_dense_weight:.2f}"
                 if ex.distilled_dense_weight is not None else "")
              + (f" (the best BM25 hits hold {ex.lexical_coverage:.0%} of the query's words)"
                 if ex.lexical_coverage is not None else "")))
if ex.lexical_query and ex.lexical_query != ex.query:
    st.caption(md(f"BM25 query, the user's own name dropped: “{ex.lexical_query}”"))
if ex.lexical_extra:  # invariant 169: the general lexicon's other words, below the asked ones
    st.caption(md("BM25 lexicon words: " + ", ".join(
        f"{t} ×{w:g}" for t, w in sorted(ex.lexical_extra.items()))))
here = st.context.url if isinstance(st.context.url, str) else ""  # None outside a browser
share = f"{here.split('?')[0]}?{urlencode(params)}"
# Plain escaped HTML, one click selects it all: st.code's highlighter cost the browser ~0.3 s
# for one line (issue 34).
st.html(f"<div class='rc-share'>Share: <code>{esc(share)}</code></div><style>.rc-share code"
        "{user-select:all;overflow-wrap:anywhere;background:#f5f5f5;padding:.2em .4em;"
        "border-radius:4px}.rc-share{font-size:.9em}</style>")

# Lazy tabs (issue 34): only the open tab is drawn. The two Plotly pictures, Why not?'s second
# recall and the filter table cost the browser several seconds when all were drawn at once.
hits_tab, pictures_tab, why_tab, filters_tab = st.tabs(
    ["Hits", "Pictures", "Why not?", "Filters and config"], key="recall_tabs", on_change="rerun")
if hits_tab.open:
    with hits_tab:
        if not result.hits:
            st.warning(md(f"No hits for “{query}” in {user}'s memories under these settings."))
        else:
            if result.contradicted:
                st.caption(f"{len(result.contradicted)} contradicted episode(s): each is the "
                           "source of a retracted or rejected fact, so agent recall never "
                           "returns it.")
            # One escaped HTML table, not a data grid: the grid's mount was the largest part
            # of this page's time in the browser (issue 34); headers carry each column's help.
            st.html(hits_table_html(debugger_rows(result.hits, config.ranking.rrf_k,
                                                  result.contradicted)))
            st.caption("The Pictures tab draws each hit's score by leg, its multipliers and its "
                       "rank at each stage.")

if pictures_tab.open:
    with pictures_tab:
        if not result.hits:
            st.warning(md(f"No hits for “{query}” in {user}'s memories under these settings."))
        else:
            # Escaped HTML and SVG, not Plotly: the chart library alone cost the browser
            # seconds to load and draw (issue 34).
            st.html(contribution_html(result.hits) + rank_shift_html(result.hits))

if why_tab.open:
    with why_tab:
        st.caption("Pick any memory of this user (text or id): its rank in each leg and its "
                   "multipliers, or the filter that removed it.")
        needle = st.text_input("Find a memory", key="recall_whynot_find",
                               placeholder="a few words of its text, or its id")
        choices = memory_choices(svc, user, needle)
        if needle and not choices:
            st.info(md(f"No memory of {user} contains “{needle}”."))
        if choices:
            picked = st.selectbox("Memory", list(choices), format_func=choices.__getitem__,
                                  key="recall_whynot_pick")
            try:
                answer = why_not(svc, user, picked, query, config)
            except MemdeskError as exc:
                show_error(exc)
            else:
                (st.success if answer.final_rank and answer.final_rank <= config.k
                 else st.warning)(md(answer.verdict))
                if answer.legs:
                    st.dataframe(pd.DataFrame([s.model_dump() for s in answer.legs]),
                                 hide_index=True, width="stretch", key="recall_whynot_legs")
                if answer.multipliers is not None:
                    m = answer.multipliers
                    st.caption(f"Multipliers: decay ×{m.decay:.3f} · use boost "
                               f"×{m.use_boost:.3f} · catalog prior ×{m.prior:.3f}")

if filters_tab.open:
    with filters_tab:
        st.caption("How many of this user's documents each filter removed before ranking.")
        st.dataframe(pd.DataFrame(filter_rows(ex.filters)), hide_index=True,
                     key="recall_filters")
        st.json(ex.config, expanded=False)
