"""General rules learned from the misses of tuning set 4a (issue 12, agent17): secrets named in
more words, only the user's own move, names in a cased message, kin words and abbreviations,
commute and noun-led facts, endings said in other shapes, a role's old and new holder, one verb
in two senses. Every phrasing here is new; none is a tune4a sentence."""

from __future__ import annotations

from datetime import date

from memory.models import FactState
from memory.sensitive import secret_in
from memory.understand.canon import canonical
from memory.understand.matching import _abbreviates, slots_of
from memory.understand.statements import understand

from .agent_support import one_supersede, turn

TODAY = date(2026, 12, 1)


def said(text):
    return [s for s in understand(text, TODAY).statements if s.act in ("assert", "change")]


def no_write(svc, text, *old_texts):
    olds = [svc.write_fact("ana", o).fact for o in old_texts]
    t = turn(svc, text)
    assert [w for w in t.writes() if w.status in ("applied", "review")] == [], (text, t.writes())
    for o in olds:
        assert svc.get_fact("ana", o.id).state == FactState.ACTIVE


# --- invariant 285: a secret named as a token, a card number or a security answer ---------------

def test_inv285_named_secrets_are_seen():
    assert secret_in("my Stripe token is abc123xyz") == "a key or recovery phrase"
    assert secret_in("Note my Visa card number is 4000 1111 2222 3333") == "a card number"
    assert secret_in("the answer to my security question is Whiskers") == "a security answer"
    # a value that starts with a word like "correct" or "new" is still the value
    assert secret_in("the admin password is correct-staple-99") == "a password"
    assert secret_in("my wifi password is new-moon-42") == "a password"


def test_inv285_no_secret_is_left_alone():
    for text in ["my password is correct", "The token is expired", "My card number changed",
                 "My favourite card game is Uno", "Wears a token of luck", "My password is in Bitwarden"]:
        assert secret_in(text) is None, text


def test_inv285_a_token_is_never_written(service):
    t = turn(service, "Please remember my Vercel token is vc_9f8e7d6c5b")
    assert [w for w in t.writes() if w.status in ("applied", "review")] == []


# --- invariant 286: only the user's own move from one place to another --------------------------

def test_inv286_someone_elses_move_from_a_to_b_is_no_home_of_mine():
    for text in ["Priya moved from Leeds to York for her PhD.",
                 "My notes moved from Evernote to Obsidian last month.",
                 "The office moved from Camden to Kings Cross."]:
        assert not any(s.slot == "home" for s in said(text)), text


def test_inv286_my_own_move_from_a_to_b_still_reads():
    (st,) = said("We moved from Leeds to York in June.")
    assert (st.text, st.previous) == ("Lives in York", "Leeds")


def test_inv286_a_colleagues_move_writes_nothing(service):
    no_write(service, "Kofi has moved from Oslo to Bergen for a new role.", "Lives in Oslo")


# --- invariant 287: in a message written with capitals, a place has one ---------------------------

def test_inv287_a_lowercase_word_is_no_place_in_a_cased_message():
    for text in ["I moved to night shifts on the ward from Monday.",
                 "We moved to weekly sprints in October.",
                 "I moved to early starts since the new rota came out, Tuesday to Friday."]:
        assert not any((s.text or "").startswith("Lives in") for s in said(text)), text


def test_inv287_a_texter_still_moves():
    (st,) = said("moved to leeds last week")
    assert st.text == "Lives in Leeds"


def test_inv287_moving_to_a_shift_replaces_no_home(service):
    no_write(service, "I moved to late shifts at the depot from Thursday.", "Lives in Derby")


# --- invariant 288: a place before "and I" stays; "her" alone names no one -----------------------

def test_inv288_a_place_before_and_i_is_kept():
    assert "Kraków and I" in canonical("My dad lives in Kraków and I see him at Easter")
    assert canonical("Tom and I moved to Leeds").startswith("we moved")
    (st,) = said("My gran lives in Łódź and I ring her on Sundays.")
    assert st.text == "Gran lives in Łódź"


def test_inv288_a_habit_about_her_alone_is_not_written():
    assert said("I visit her every summer.") == []
    assert said("I call him on Fridays.") == []


def test_inv288_a_relatives_home_is_written_whole(service):
    t = turn(service, "My sister lives in Gdynia and I see her at Christmas.")
    texts = [w.text for w in t.writes() if w.status == "applied"]
    assert texts == ["Sister lives in Gdynia"], texts


# --- invariant 289: a diet explained is one diet -------------------------------------------------

def test_inv289_a_diets_gloss_is_no_second_fact():
    for text in ["I'm vegetarian, I eat eggs and cheese though.",
                 "I'm vegan and I eat a lot of lentils."]:
        sts = said(text)
        assert [s.text for s in sts] == [next(s.text for s in sts if s.text.startswith("Is "))], text


def test_inv289_a_change_of_diet_keeps_both_readings():
    texts = [s.text for s in said("I eat fish now, I'm pescatarian")]
    assert "Eats fish" in texts


def test_inv289_one_write_for_a_diet_and_its_gloss(service):
    t = turn(service, "I'm pescatarian, I eat seafood but no meat.")
    texts = [w.text for w in t.writes() if w.status == "applied"]
    assert texts == ["Is pescatarian"], texts


# --- invariant 290: kin words and abbreviations name the fact ------------------------------------

def test_inv290_abbreviations_are_spelled_by_initials():
    assert _abbreviates("PS5", "Has a PlayStation 5")
    assert _abbreviates("MBA", "Owns a MacBook Air")
    assert not _abbreviates("PS5", "Has a PlayStation 4")
    assert not _abbreviates("Kindle", "Has a Kobo")


def test_inv290_my_dad_moved_replaces_father_lives(service):
    one_supersede(service, "My dad moved from Porto to Braga in May.", "Father lives in Porto", "Braga",
                  fact_type="identity")


def test_inv290_sold_the_abbreviation_replaces_the_full_name(service):
    one_supersede(service, "I sold my old MBP and bought a Framework 13.", "Owns a MacBook Pro", "Framework")


def test_inv290_an_unrelated_abbreviation_replaces_nothing(service):
    old = service.write_fact("ana", "Owns a PlayStation 4").fact
    turn(service, "I sold my old XPS and bought a Framework 13.")
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE


# --- invariant 291: a commute and a noun-led fact are found by their slot -------------------------

def test_inv291_commute_facts_fill_the_commute_slot():
    assert "commute" in slots_of("Takes the 28 bus to the office, twenty minutes")
    assert "commute" in slots_of("Cycles to work along the canal")
    assert "commute" not in slots_of("Takes magnesium at night")
    assert "commute" not in slots_of("Walks the dog before work")


def test_inv291_a_new_commute_replaces_the_old(service):
    one_supersede(service, "I take the train to work now, the bus is too slow.",
                  "Takes the 28 bus to the office, twenty minutes", "train", fact_type="preference")


def test_inv291_a_noun_led_fact_is_that_nouns(service):
    one_supersede(service, "My on-call is one week in five now.", "On-call at Acme one week in three", "five")


# --- invariant 292: endings said as "went to", "the X is Y now", a named thing now ---------------

def test_inv292_a_thing_given_away_ends_ownership():
    sts = said("I've got a Garmin Forerunner now, the Fitbit went to my niece.")
    assert len(sts) == 1 and sts[0].previous == "Fitbit" and "Garmin" in sts[0].text


def test_inv292_the_router_is_x_now_replaces_the_one_given_away(service):
    one_supersede(service, "The router is a Fritzbox 7590 now, I gave the old Netgear to Sam.",
                  "Router is a Netgear Nighthawk", "Fritzbox")


def test_inv292_sold_then_a_named_thing_in_use_now(service):
    one_supersede(service, "Sold the Surface, I write on an iPad Air now.", "Owns a Surface Pro 7", "iPad")


def test_inv292_a_habit_after_selling_is_two_facts():
    sts = said("sold the Clio, I walk everywhere now")
    assert len(sts) == 2


# --- invariant 293: a prescriber's switch; "report to X since ..."; a role's holders -------------

def test_inv293_a_switch_without_from_names_what_stopped():
    (st,) = said("I came off sertraline in October, the GP switched me to citalopram.")
    assert (st.text, st.previous) == ("Takes citalopram", "sertraline")


def test_inv293_report_to_since_names_the_manager():
    assert canonical("I report to Ines since the restructure").startswith("my manager is now Ines, since")
    assert "manager" not in canonical("I report to the board since May")


def test_inv293_old_holder_and_new_is_one_change(service):
    one_supersede(service, "Marco isn't my boss any more, I report to Ines since the restructure in September.",
                  "Manager is Marco", "Ines", fact_type="identity")


# --- invariant 294: one verb, two senses; a second act; a qualification's date -------------------

def test_inv294_a_habit_does_not_replace_a_named_thing_run(service):
    old = service.write_fact("ana", "Runs Arch Linux on the desktop", fact_type="preference").fact
    t = turn(service, "I've started running along the canal on Saturday mornings.")
    assert all(w.old_id != old.id for w in t.writes())
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE


def test_inv294_a_second_act_is_no_part_of_the_value():
    (st,) = said("I got a Dutch driving licence in October and handed in my Polish one.")
    assert st.text == "Has a Dutch driving licence"
    assert st.valid_from == date(2026, 10, 1)


def test_inv294_a_plain_qualification_has_no_date():
    (st,) = said("I have a PhD in marine biology")
    assert st.valid_from is None


def test_inv289_an_exception_to_the_diet_is_kept():
    texts = [s.text for s in said("I'm vegetarian, I eat fish now and then")]
    assert texts[0] == "Is vegetarian" and len(texts) == 2, texts
