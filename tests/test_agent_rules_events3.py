"""Events that never happened and hedged health suspicions (issue 12, agent25, invariants
369-374). Every phrasing here is new; none is a tuning sentence. Each rule has cases that must
write nothing: a question, a condition, an event not on record. The service clock stands at
2025-06-01."""

from __future__ import annotations

from datetime import date

from memory.models import FactState
from memory.understand.statements import understand

from .agent_support import active, one_supersede, turn

TODAY = date(2025, 6, 1)


def read(text):
    return [(s.act, s.rule) for s in understand(text, TODAY, []).statements]


def kept(t):
    return [w for w in t.writes() if w.status in ("applied", "review")]


def retracts(svc, text, old_text, *others):
    """`text` retracts the one fact `old_text`; `others` stay active."""
    old = svc.write_fact("ana", old_text, fact_type="world").fact
    rest = [svc.write_fact("ana", o, fact_type="world").fact for o in others]
    t = turn(svc, text)
    (w,) = kept(t)
    assert (w.op, w.old_id) == ("retract", old.id), (text, t.writes())
    assert svc.get_fact("ana", old.id).state != FactState.ACTIVE
    for o in rest:
        assert svc.get_fact("ana", o.id).state == FactState.ACTIVE, o.text
    return t


def writes_nothing(svc, text, *old_texts, user="ana"):
    olds = [svc.write_fact(user, o, fact_type="world").fact for o in old_texts]
    t = turn(svc, text, user=user)
    assert kept(t) == [], (text, t.writes())
    for o in olds:
        assert svc.get_fact(user, o.id).state == FactState.ACTIVE, o.text


# --- invariant 369: an event on record that never happened is retracted -------------------------
def test_inv369_an_event_that_never_went_ahead_is_retracted(service):
    retracts(service, "The Harrogate retreat never actually took place, the venue flooded.",
             "Yoga retreat in Harrogate from May 3 to May 5")


def test_inv369_a_possessor_names_the_event_and_the_person_stays(service):
    # "Noor" is in two facts: only the event (the visit, dated) is the one that never happened
    retracts(service, "Noor's visit in March didn't happen in the end, her flight got cancelled.",
             "Noor stays with us from March 10 to March 14", "Sister Noor lives in Oslo")


def test_inv369_the_event_asked_then_never_went(service):
    retracts(service, "That Porto holiday in April? We never went, the airline went bust.",
             "Holiday in Porto in April")


def test_inv369_someone_who_never_came_is_a_visit_that_never_was(service):
    retracts(service, "Gran never came in the end, her hip was playing up.",
             "Gran is coming to stay from 4 to 9 April", "Gran lives in Whitby")


def test_inv369_someone_who_never_came_is_never_their_other_plans(service):
    writes_nothing(service, "My brother never came, typical.", "Brother is going to Spain in July")
    writes_nothing(service, "Tom never came to my party.", "Tom visits in April", user="bo")


def test_inv369_another_month_on_record_is_not_the_event(service):
    writes_nothing(service, "The Harrogate retreat in October never happened.",
                   "Yoga retreat in Harrogate from May 3 to May 5")


def test_inv369_questions_and_conditions_write_nothing(service):
    for text in ("Did the Harrogate retreat never happen?",
                 "If the Harrogate retreat never happens I'll ask for a refund.",
                 "The Harrogate retreat never happened?"):
        writes_nothing(service, text, "Yoga retreat in Harrogate from May 3 to May 5")


def test_inv369_an_event_not_on_record_writes_nothing(service):
    writes_nothing(service, "The Whitby trip never happened, the car broke down.", "Trip to Porto in April")
    # no name said: too vague to pick a plan, even with one on record
    writes_nothing(service, "The trip never happened in the end.", "Trip to Porto in April", user="bo")


# --- invariant 370: a place the user never went to ----------------------------------------------
def test_inv370_never_went_to_a_place_on_record(service):
    retracts(service, "We never went to Madeira, we stayed home with the kids.", "Went to Madeira in February")


def test_inv370_didnt_go_with_a_called_off_cue(service):
    retracts(service, "I didn't go to Kraków in May, the whole thing got cancelled.", "Trip to Kraków in May")


def test_inv370_didnt_go_but_went_later_or_a_home_is_no_retraction(service):
    writes_nothing(service, "I didn't go to Kraków in May, we went in June instead.", "Trip to Kraków in May")
    writes_nothing(service, "I never went to Leeds, that's where my brother lives.", "Lives in Leeds", user="bo")
    assert read("If I never went to Madeira I'd regret it") == []


def test_inv370_a_trip_called_off_by_its_place(service):
    w = one_supersede(service, "We had to call off Lisbon because of the rail strike.",
                      "Trip to Lisbon from 3 to 7 October", "Lisbon", "cancelled")
    assert w.contradiction == "natural"


def test_inv370_a_place_called_off_that_is_no_trip_writes_nothing(service):
    writes_nothing(service, "We've cancelled Amazon Prime.", "Subscribes to Amazon Prime")
    writes_nothing(service, "Should we cancel Lisbon?", "Trip to Lisbon from 3 to 7 October", user="bo")
    # a subscription given up is still read as one (invariant 370 reads only what nothing else did)
    assert read("I cancelled Netflix.") != [("change", "plan:called-off")]


# --- invariant 371: an event held online replaces the plan on record ----------------------------
def test_inv371_an_event_gone_online_replaces_the_plan(service):
    w = one_supersede(service, "The Berlin summit has gone virtual, so no flights for me.",
                      "Summit in Berlin on 9 September", "Berlin", "online")
    assert w.contradiction == "natural"


def test_inv371_a_workshop_fully_online(service):
    one_supersede(service, "Our Glasgow workshop is fully online now.", "Workshop in Glasgow on 2 July", "online")


def test_inv371_nothing_on_record_or_a_question_writes_nothing(service):
    writes_nothing(service, "The Berlin summit has gone virtual.", "Lives in Berlin")
    writes_nothing(service, "Is the Glasgow workshop online only now?", "Workshop in Glasgow on 2 July",
                   user="bo")


# --- invariant 372: pulled out, the subject carried after "and" ---------------------------------
def test_inv372_hurt_and_pulled_out_of_a_race(service):
    one_supersede(service, "I tore a ligament and pulled out of the Bath Half.", "Running the Bath Half in March")


def test_inv372_withdrew_after_and(service):
    one_supersede(service, "We got food poisoning and withdrew from the Leeds 10k.",
                  "Entered the Leeds 10k in April")


def test_inv372_nothing_on_record_or_no_name_writes_nothing(service):
    writes_nothing(service, "I got injured and pulled out of the Leeds 10k.")
    writes_nothing(service, "I got burnt out and dropped out of uni.", user="bo")


# --- invariant 373: a pet or person suspected allergic, for review ------------------------------
def test_inv373_a_suspected_allergy_is_held_for_review(service):
    for text, user, word in (("I reckon my dog Pepper is allergic to beef, the vet wants to do tests.", "ana", "beef"),
                             ("Pretty sure Milo is intolerant to lactose but we haven't had him tested.", "bo",
                              "lactose"),
                             ("I suspect Juno is allergic to grass pollen.", "cy", "pollen")):
        (w,) = kept(turn(service, text, user=user))
        assert (w.op, w.status) == ("write", "review"), (text, w)
        assert word in (w.text or ""), (text, w.text)
        assert w.confidence is not None and w.confidence < 0.7


def test_inv373_other_hedges_are_held_for_review_too(service):
    for text, user, word in (("The vet thinks Pepper might be allergic to beef.", "ana", "beef"),
                             ("I wonder if I'm allergic to latex, my hands itch after work.", "bo", "latex"),
                             ("I have a feeling my son is lactose intolerant.", "cy", "lactose")):
        (w,) = kept(turn(service, text, user=user))
        assert (w.op, w.status) == ("write", "review"), (text, w)
        assert word in (w.text or ""), (text, w.text)


def test_inv373_a_question_a_denial_or_a_condition_writes_nothing(service):
    for text in ("Do you think Pepper is allergic to beef?",
                 "I don't think Pepper is allergic to beef.",
                 "If Pepper is allergic to beef we'll switch his food.",
                 "If I'm allergic to latex I'll need new gloves.",
                 "Could Pepper be allergic to beef?"):
        writes_nothing(service, text)
    assert active(service) == []


# --- invariant 374: a food or thing suspected of making the user ill, for review ----------------
def test_inv374_a_suspected_trigger_is_held_for_review(service):
    for text, user, word in (("I suspect dairy is giving me headaches, keeping a food diary to check.", "ana",
                              "dairy"),
                             ("I think the new washing powder is giving me a rash.", "bo", "washing powder"),
                             ("Not 100% sure, but I think onions are making me bloated.", "cy", "onions"),
                             ("I have a feeling oat milk disagrees with me.", "di", "oat milk")):
        (w,) = kept(turn(service, text, user=user))
        assert (w.op, w.status) == ("write", "review"), (text, w)
        assert word in (w.text or ""), (text, w.text)


def test_inv374_no_trigger_named_or_a_question_writes_nothing(service):
    for text in ("I think work is making me ill.",
                 "Do you think coffee gives me headaches?",
                 "If gluten is making me ill I'll cut it out."):
        writes_nothing(service, text)
    assert active(service) == []


def test_inv374_what_else_the_sentence_says_is_still_read():
    # the remark after the suspicion that it is unconfirmed is dropped; other news is read
    assert read("I think gluten is making me ill, the GP is running bloods.") == [("assert", "health:suspected")]
    got = read("I think gluten is making me ill. I moved to Leeds last month.")
    assert got[0] == ("assert", "health:suspected") and len(got) == 2
