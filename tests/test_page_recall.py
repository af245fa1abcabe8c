"""The Recall debugger runs for real (AppTest): toggles beside presets, pictures of the ranking,
state on every hit, "why not?", and a recall shared by URL (invariant 85)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.search_config import PRESETS
from memory.ui.recall_views import (
    LEG_COLOURS,
    MULTIPLIER_COLOURS,
    STAGES,
    RecallToggles,
    build_config,
    from_query_params,
    to_query_params,
    toggles_of,
)
from memory.ui.why_not import why_not
from tests.desk_support import html_bodies, html_table, plain
from tests.test_pages import seeded_desk, store_service

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    yield from seeded_desk(tmp_path, monkeypatch)


def page(**query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "recall.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def table(at: AppTest, name: str):
    """A table by a column only it has: hits (state; issue 34: a plain HTML table), filters
    (removed), why-not (note)."""
    if name == "recall_hits":
        return html_table(at, "rc-hits")
    col = {"recall_filters": "removed", "recall_whynot_legs": "note"}[name]
    return next(d for d in at.dataframe if col in d.value.columns).value


def open_tab(at: AppTest, name: str) -> AppTest:
    """Issue 34: the debugger's tabs draw only when opened."""
    at.session_state["recall_tabs"] = name
    return at.run()


def recall(at: AppTest, query: str, preset: str | None = None, **toggles) -> AppTest:
    at.text_input(key="recall_query").input(query)
    if preset:
        at.selectbox(key="recall_preset").select(preset).run()
    chips = at.pills(key="recall_use")  # issue 34: one row of chips, not seven toggles
    for name, value in toggles.items():
        (chips.select if value else chips.unselect)(name)
    return at.button(key="recall_run").click().run()


def on(at: AppTest, name: str) -> bool:
    """Whether the leg, multiplier or inclusion `name` is switched on (its chip highlighted)."""
    return name in at.pills(key="recall_use").value


def test_hits_carry_state_and_the_two_pictures(desk):
    at = page()
    assert "Type a query" in at.info[0].value
    recall(at, "where does ana live Edinburgh")
    assert not at.error and not at.exception
    hits = table(at, "recall_hits")
    assert list(hits.columns[:6]) == ["rank", "state", "text", "bm25", "dense", "fused"]
    assert hits.iloc[0]["text"] == "Lives in Edinburgh" and hits.iloc[0]["state"] == "active"
    # the catalog is in default recall since issue 17 (measured prior)
    assert set(hits["state"]) <= {"active", "episodic", "procedural", "catalog"}
    assert "Lives in Bristol" not in set(hits["text"])  # superseded: not in default recall
    assert "Lisbon" not in " ".join(hits["text"])  # another user's memories never appear
    assert not html_bodies(at, "rc-contrib")  # issue 34: pictures draw in their own tab
    open_tab(at, "Pictures")
    assert not at.get("plotly_chart")  # issue 34: escaped HTML and SVG, no chart library
    picture = html_bodies(at, "rc-contrib")[0]
    for name in ("bm25 share", "dense share", "decay", "use boost", "catalog prior"):
        assert name in picture
    # The stacked shares are the RRF terms: 1 / (k + leg rank); the fused score is their sum.
    first_row = picture.split("class='rc-lab'")[1]
    shares = [float(x) for x in re.findall(r"title='(?:bm25|dense) rank \d+ · share ([0-9.]+)'",
                                           first_row)]
    assert len(shares) == 2 and sum(shares) == pytest.approx(hits.iloc[0]["fused"], abs=2e-5)
    # The query side is explained too: this query's dense weight (invariant 154).
    assert any("dense weight" in c.value for c in at.caption)
    assert all(f">{stage}</span>" in picture for stage in STAGES)  # the rank shift, by stage
    assert "title='#1 Lives in Edinburgh · final: 1'" in picture
    open_tab(at, "Filters and config")
    filters = table(at, "recall_filters").set_index("filter")
    assert filters.loc["state:superseded", "removed"] == 1
    # Purpose.EXPLAIN is read-only (invariant 15): no usage was bumped by the debugger.
    assert store_service().get_fact("ana", desk["edinburgh"]).use_count == 0


def test_toggles_beside_presets(desk):
    at = page()
    recall(at, "Lumio hub wifi", preset="bm25_only", catalog=True)
    assert on(at, "dense") is False  # the preset set it
    hits = table(at, "recall_hits")
    assert "catalog" in set(hits["state"]) and hits["dense"].isna().all()
    recall(at, "Bristol", preset="history", catalog=False)
    assert on(at, "superseded") is True
    hits = table(at, "recall_hits")
    bristol = hits.set_index("text").loc["Lives in Bristol"]
    assert bristol["state"] == "superseded"
    recall(at, "Bristol", superseded=False)
    assert "Lives in Bristol" not in set(table(at, "recall_hits")["text"])
    recall(at, "Bristol", bm25=False, dense=False)
    assert "at least one leg" in plain(at.error[0].value)


@pytest.mark.parametrize("query, message", [("", "query is empty"),
                                            ("x" * 40_000, "the limit is 32768")])
def test_bad_query_is_one_clear_error(desk, query, message):
    at = page()
    recall(at, query)
    assert len(at.error) == 1 and message in plain(at.error[0].value)
    assert not at.exception


def test_recall_is_shared_by_url(desk):
    at = page()
    recall(at, "Lumio hub wifi", preset="default", superseded=True, decay=False)
    url = dict(at.query_params)
    assert url["q"] == "Lumio hub wifi" and url["on"] == "superseded"
    assert url["off"] == "decay" and url["user"] == "ana"  # differences from the preset only
    opened = page(**url)  # a new session opens the link
    assert not opened.exception and not opened.error
    assert opened.text_input(key="recall_query").value == "Lumio hub wifi"
    assert on(opened, "catalog") is True  # the preset's own
    assert on(opened, "superseded") is True
    assert on(opened, "decay") is False
    assert list(table(opened, "recall_hits")["text"]) == list(
        table(at, "recall_hits")["text"])
    bob = page(user="bob", q="jazz vinyl")
    assert bob.selectbox(key="user").value == "bob"
    assert "I like jazz on vinyl" in set(table(bob, "recall_hits")["text"])


def test_why_not_names_the_filter_or_the_ranks(desk):
    at = page()
    recall(at, "cat Miso pet")
    open_tab(at, "Why not?")
    at.text_input(key="recall_whynot_find").input("Miso").run()
    assert plain(at.selectbox(key="recall_whynot_pick").options[0]).startswith("[candidate]")
    verdict = plain(at.warning[0].value)
    assert "state:candidate filter" in verdict and "wait in review" in verdict
    at.text_input(key="recall_whynot_find").input("Bristol").run()
    at.selectbox(key="recall_whynot_pick").set_value(desk["bristol"]).run()
    assert "state:superseded filter" in plain(at.warning[0].value)
    at.pills(key="recall_use").select("superseded").run()
    legs = table(at, "recall_whynot_legs").set_index("leg")
    assert legs.loc["dense", "rank"] >= 1 and "candidates" in legs.loc["dense", "note"]
    assert legs.loc["bm25", "note"] == "no query term matches it"  # "Bristol" is not in the query


def test_why_not_below_the_cut_and_in_results(desk):
    svc = store_service()
    for n in range(12):
        svc.write_fact("ana", f"Visited Lumio store number {n}", actor="cli")
    cfg = build_config("default", RecallToggles(k=3))
    hits = svc.recall("ana", "Lumio store", config=cfg).hits
    inside = why_not(svc, "ana", hits[0].id, "Lumio store", cfg)
    assert inside.final_rank == 1 and "in the results at rank 1" in inside.verdict
    below = next(f for f in svc.facts("ana") if f.text.startswith("Visited")
                 and f.id not in {h.id for h in hits})
    answer = why_not(svc, "ana", below.id, "Lumio store", cfg)
    assert answer.final_rank > 3 and "below the cut at k = 3" in answer.verdict
    assert {s.leg for s in answer.legs} == {"bm25", "dense"} and answer.multipliers is not None


def test_toggles_and_url_round_trip_are_pure():
    for name in PRESETS:
        t = toggles_of(name)
        assert build_config(name, t) == PRESETS[name].model_copy(update={"k": t.k})
        q, preset, back = from_query_params(to_query_params("q", name, t))
        assert (q, preset, back) == ("q", name, t)
    assert from_query_params({"q": " "}) is None
    assert from_query_params({"q": "x", "preset": "nope", "k": "lots"})[1:] == (
        "default", toggles_of("default"))
    # A link with only a question (the Evals page's misses) runs the preset as it is: the
    # default recall includes the catalog, so the debugger does too.
    _, _, plain_link = from_query_params({"q": "x"})
    assert plain_link.catalog and build_config("default", plain_link) == PRESETS["default"]
    # Switching something off against the preset survives the round trip.
    t = toggles_of("default").model_copy(update={"catalog": False, "decay": False})
    assert to_query_params("x", "default", t)["off"] == "decay,catalog"
    assert from_query_params(to_query_params("x", "default", t))[2] == t
    no_prior = build_config("with_catalog", RecallToggles(prior=False, catalog=True))
    assert no_prior.ranking.catalog_prior == 1.0 and no_prior.include_catalog


def test_hit_columns_explain_themselves_and_colours_mean_one_thing(desk):
    """An engineer reading the hits table gets each column's meaning as the header's tooltip,
    sees the multipliers applied after fusion beside the per-leg ones, and the multipliers'
    picture uses no colour a leg's bar uses."""
    at = page()
    recall(at, "where does ana live Edinburgh")
    hits = table(at, "recall_hits")
    assert "× after fusion" in hits.columns and "× mult" in hits.columns
    helped = set(hits.attrs["titles"])
    assert {"rank", "state", "bm25", "dense", "fused", "× mult", "× after fusion", "id"} <= helped
    assert not at.dataframe  # issue 34: no data grid on the first screen
    open_tab(at, "Pictures")
    picture = html_bodies(at, "rc-contrib")[0]
    legs = set(LEG_COLOURS.values())
    marks = list(MULTIPLIER_COLOURS.values())
    assert len(marks) == len(set(marks)) == 4
    assert all(f"background:{c}" in picture for c in [*legs, *marks])

    def hue(colour: str) -> float:
        import colorsys

        r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
        return colorsys.rgb_to_hsv(r, g, b)[0] * 360

    for leg in legs:  # a mark never passes for a leg's bar (the lift mark was the dense orange)
        assert all(min(abs(hue(m) - hue(leg)), 360 - abs(hue(m) - hue(leg))) > 20 for m in marks)


def test_switching_tabs_does_not_recompute_the_recall(desk, monkeypatch):
    """Issue 34: the explain recall is kept in the session while nothing it depends on changes;
    a new query, or a write to the store, computes it again."""
    from memory.service import MemoryService

    calls: list[str] = []
    real = MemoryService.recall

    def counting(self, user_id, query, **kw):
        calls.append(query)
        return real(self, user_id, query, **kw)

    monkeypatch.setattr(MemoryService, "recall", counting)
    at = page()
    recall(at, "where does ana live Edinburgh")
    first = list(table(at, "recall_hits")["text"])
    assert calls == ["where does ana live Edinburgh"]
    open_tab(at, "Filters and config")
    open_tab(at, "Hits")
    assert calls == ["where does ana live Edinburgh"]
    assert list(table(at, "recall_hits")["text"]) == first
    store_service().write_fact("ana", "Lives in Edinburgh near the castle")
    at.run()  # the store changed: the same question is answered again
    assert len(calls) == 2
    recall(at, "Lumio hub wifi")
    assert calls[-1] == "Lumio hub wifi" and len(calls) == 3
