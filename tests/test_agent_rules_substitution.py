"""A change said as the part of a fact that changed (issue 12, invariants 375, 376): the one fact
on record that says the old part keeps its own words with the new part in its place; with no such
fact, or two that fit alike, nothing is written. Real store, real agent; phrasings of their own,
none from the evaluation sets."""

from __future__ import annotations

from memory.understand.substitution import aligned_value, replace_count, replace_value

from .agent_support import active, one_supersede, turn

# --- pure rewriting --------------------------------------------------------------------------


def test_inv375_the_old_value_is_put_right_inside_the_fact():
    assert replace_value("Newsletter is sent with Mailchimp every Friday", "Mailchimp",
                         "Buttondown") == "Newsletter is sent with Buttondown every Friday"
    # the fact's possessive stays; a new value's own article replaces the fact's
    assert replace_value("Keeps spare keys in her desk drawer", "desk drawer",
                         "a lockbox by the door") == "Keeps spare keys in a lockbox by the door"
    # the user's "my" is the fact's voice
    assert replace_value("Parks his van at the depot", "depot", "my mate's yard") == \
        "Parks his van at his mate's yard"
    # a fact that says the old value twice, or not at all, is not rewritten
    assert replace_value("Trello for work, Trello for home", "Trello", "Notion") is None
    assert replace_value("Uses Todoist for tasks", "Trello", "Notion") is None


def test_inv375_a_rival_the_fact_named_goes_when_it_becomes_the_value():
    assert replace_value("Uses Dropbox rather than iCloud for now", "Dropbox", "iCloud") == "Uses iCloud"
    assert replace_value("Prefers tea over coffee, mornings", "tea", "coffee") == "Prefers coffee, mornings"


def test_inv375_the_new_value_is_found_by_the_word_before_the_old_one():
    assert aligned_value("Photos sync to iCloud overnight", "iCloud",
                         "The photos sync to a Nextcloud box now") == \
        "Photos sync to a Nextcloud box overnight"
    # the user's words do not hold the fact's word before the old value: no guess
    assert aligned_value("Photos sync to iCloud overnight", "iCloud", "Nextcloud has them now") is None


def test_inv376_the_one_count_of_that_unit_takes_the_new_number():
    assert replace_count("Keeps six hens in the back garden", "nine hens", "hens", "x") == \
        "Keeps nine hens in the back garden"
    assert replace_count("Gym membership costs 30 euros a month at FitX", "35 euros", "euros",
                         "FitX put the membership up to 35 euros") == \
        "Gym membership costs 35 euros a month at FitX"
    # a unit as common as "days" needs a topic word in common
    assert replace_count("Works from home two days a week", "three days", "days",
                         "the piano lessons went up to three days") is None
    # the same number is no change
    assert replace_count("Keeps six hens", "six hens", "hens", "x") is None


# --- turns on the real store ------------------------------------------------------------------


def test_inv375_from_x_to_y_said_of_a_thing_replaces_the_fact_naming_x(service):
    w = one_supersede(service, "Our band switched its rehearsals from the Half Moon to Rockfield Studios.",
                      "Band rehearses at the Half Moon on Thursdays", "Rockfield")
    assert w.text == "Band rehearses at Rockfield Studios on Thursdays"


def test_inv375_a_dated_substitution_keeps_its_date_out_of_the_value(service):
    w = one_supersede(service, "The allotment society moved our plot from Bed 4 to Bed 11 last month.",
                      "Allotment plot is Bed 4 at Hillside", "11")
    assert "last month" not in w.text and str(w.valid_from) == "2025-05-01"  # the tests' today: 2025-06-01


def test_inv375_instead_of_and_not_any_more_find_the_new_value(service):
    one_supersede(service, "The kids' swimming is at the leisure centre now instead of Clissold.",
                  "Kids have swimming lessons at Clissold on Saturdays", "leisure")
    turn(service, "hello", user="bo")
    old = service.write_fact("bo", "Bins go out on the pavement on Sunday night").fact
    (w,) = turn(service, "The bins don't go on the pavement any more, they go in the back lane.",
                user="bo").writes()
    assert w.old_id == old.id and "back lane" in w.text


def test_inv375_nothing_on_record_naming_the_old_value_writes_nothing(service):
    service.write_fact("ana", "Band rehearses at the Half Moon on Thursdays")
    t = turn(service, "The choir moved from St Mary's to the town hall.")
    assert t.writes() == []
    assert active(service) == ["Band rehearses at the Half Moon on Thursdays"]
    assert "nothing on record" in t.reply


def test_inv375_a_hypothetical_or_someone_elses_switch_writes_nothing(service):
    service.write_fact("ana", "Newsletter is sent with Mailchimp every Friday")
    for said in ("We might move the newsletter from Mailchimp to Buttondown.",
                 "If the newsletter moved from Mailchimp to Buttondown, would it break?",
                 "My brother switched his newsletter from Mailchimp to Substack."):
        assert turn(service, said).writes() == [], said
    assert active(service) == ["Newsletter is sent with Mailchimp every Friday"]


def test_inv376_a_count_said_as_up_to_or_raised_to_replaces_the_count(service):
    w = one_supersede(service, "We're up to nine hens now after the market.",
                      "Keeps six hens in the back garden", "nine")
    assert w.text == "Keeps nine hens in the back garden"
    service.write_fact("bo", "Parking permit at the station costs 40 pounds a month")
    service.write_fact("bo", "Dog walker charges 12 pounds a walk")
    (w,) = turn(service, "The council raised the station parking permit to 55 pounds.", user="bo").writes()
    assert w.text == "Parking permit at the station costs 55 pounds a month"
    assert sorted(active(service, "bo")) == ["Dog walker charges 12 pounds a walk",
                                            "Parking permit at the station costs 55 pounds a month"]


def test_inv375_a_team_changed_is_no_move_and_needs_the_team_on_record(service):
    # nothing on record names the hockey team: nothing is written (and no home is touched)
    home = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    assert turn(service, "I moved from the hockey team to the netball team").writes() == []
    old = service.write_fact("ana", "Plays goalkeeper for the hockey team").fact
    (w,) = turn(service, "I moved from the hockey team to the netball team").writes()
    assert (w.old_id, w.text) == (old.id, "Plays goalkeeper for the netball team")
    assert service.get_fact("ana", home.id).state.value == "active"


# --- invariant 393: a switch names what it is of, the fact another word for it ---------------


def test_inv393_a_switch_replaces_the_one_fact_holding_another_name_for_that_thing(service):
    old = service.write_fact("ana", "Phone contract with Vodafone, 30 GB a month").fact
    (w,) = turn(service, "I switched my mobile provider to Lebara.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Lebara" in w.text


def test_inv393_two_facts_that_could_be_it_are_neither_replaced(service):
    a = service.write_fact("ana", "Phone contract with Vodafone").fact
    b = service.write_fact("ana", "Work phone is on EE through the office").fact
    (w,) = turn(service, "I switched my mobile provider to Lebara.").writes()
    assert w.op == "write" and w.old_id is None
    assert {f.id for f in service.facts("ana", states=["active"])} >= {a.id, b.id}


def test_inv393_a_fact_about_something_else_is_not_replaced(service):
    service.write_fact("ana", "Banks with Monzo")
    (w,) = turn(service, "We switched energy supplier to Octopus.").writes()
    assert w.op == "write" and w.old_id is None


# --- invariant 394: the sentence dating a change -----------------------------------------------


def test_inv394_a_sentence_saying_when_the_change_happened_dates_it():
    from datetime import date

    from memory.understand.statements import understand
    today = date(2026, 12, 1)
    (st,) = understand("We moved our mortgage from Nationwide to Halifax. The switch went through "
                       "on Monday.", today).statements
    assert st.valid_from == date(2026, 11, 30) and "Monday" not in (st.text or "")
    (st,) = understand("I've switched the broadband to Plusnet. It all happened last week.", today).statements
    assert st.valid_from == date(2026, 11, 24)
    # a sentence with no date, or one about something else, dates nothing
    (st,) = understand("I moved to Leeds. It happened so fast.", today).statements
    assert st.valid_from is None
    (st,) = understand("I've switched the broadband to Plusnet. The party was on Monday.", today).statements
    assert st.valid_from is None


# --- invariant 395: what a thing of the user's does, changed ----------------------------------


def test_inv395_a_things_new_object_replaces_the_old_one_in_its_fact(service):
    from memory.understand.substitution import replace_object
    assert replace_object("Boiler runs on the Nest schedule, 19 degrees", "the boiler", "runs",
                          "on a smart timer") == "Boiler runs on a smart timer, 19 degrees"
    # a preposition that differs, a subject not named, or the same object: no rewrite
    assert replace_object("Boiler runs on the Nest schedule", "the boiler", "runs", "hot") is None
    assert replace_object("Boiler runs on the Nest schedule", "the car", "runs", "on diesel") is None
    assert replace_object("Blog runs on Hugo", "the blog", "runs", "on Hugo") is None
    # a group names no one thing: the platform team's tool is not what "the team uses" now
    assert replace_object("Platform team uses Terraform, one module per service", "The team", "uses",
                          "Linear") is None
    old = service.write_fact("ana", "Book club meets at the Red Lion on the first Monday").fact
    (w,) = turn(service, "The book club meets at the library now.").writes()
    assert (w.old_id, w.text) == (old.id, "Book club meets at the library")


def test_inv395_a_person_or_nothing_on_record_writes_no_substitution(service):
    service.write_fact("ana", "Book club meets at the Red Lion on the first Monday")
    for said in ("It rains every day now.", "The choir meets at the library now.",
                 "Everyone meets at the library now."):
        assert [w for w in turn(service, said).writes() if w.op == "supersede"] == [], said
    assert active(service) == ["Book club meets at the Red Lion on the first Monday"]


def test_inv375_a_substitution_said_again_is_already_known(service):
    service.write_fact("ana", "Keeps six hens in the back garden")
    assert len(turn(service, "We're up to nine hens now.").writes()) == 1
    t = turn(service, "We're up to nine hens now.")
    assert t.writes() == [] and t.reply.startswith("I already have that: you keep nine hens")
    assert active(service) == ["Keeps nine hens in the back garden"]


def test_inv376_a_count_closing_its_fact_is_found():
    assert replace_count("Season ticket covers 38 matches", "19 matches", "matches",
                         "the club cut the season ticket to 19 matches") == "Season ticket covers 19 matches"


def test_inv375_the_rest_of_the_message_says_which_of_two_facts_is_meant(service):
    service.write_fact("ana", "Lives in Bath")
    trip = service.write_fact("ana", "Easter with the cousins in Bath, three nights").fact
    (w,) = turn(service, "Easter plans have changed. We're going to the cousins in Wells instead "
                         "of Bath this year.").writes()
    assert (w.old_id, w.text) == (trip.id, "Easter with the cousins in Wells, three nights")
    assert w.valid_from is None  # "this year" says which Easter, not since when
    assert "Lives in Bath" in active(service)


# --- invariant 396: someone's or something's name is not the user's -----------------------------


def test_inv396_a_possessed_name_never_replaces_the_users_own(service):
    own = service.write_fact("ana", "Her name is Ana Ribeiro", fact_type="identity").fact
    for said in ("My dog's name is Pepper.", "My line manager's name is Tomasz, note that.",
                 "Our landlord's name is Mr Adeyemi."):
        (w,) = turn(service, said).writes()
        assert w.op == "write" and w.old_id is None, (said, w)
    assert service.get_fact("ana", own.id).state.value == "active"
    # the same phrase said again with a new name replaces that name only
    old = next(f for f in service.facts("ana", states=["active"]) if f.text.startswith("Dog's name"))
    (w,) = turn(service, "My dog's name is Biscuit now, we renamed him.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert service.get_fact("ana", own.id).state.value == "active"


# --- invariant 397: "the X is Jan's, not mine" ---------------------------------------------------


def test_inv397_a_thing_said_to_be_someone_elses_is_taken_back(service):
    old = service.write_fact("ana", "Owns a Brompton folding bike").fact
    t = turn(service, "The Brompton is my flatmate's, not mine.")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)
    assert active(service) == []
    # with a name, and nothing written as "X is Jan's"
    old = service.write_fact("bo", "Has a Kindle Paperwhite").fact
    (w,) = turn(service, "The Kindle is Priya's, not mine.", user="bo").writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv397_nothing_on_record_or_a_question_retracts_nothing(service):
    service.write_fact("ana", "Owns a Brompton folding bike")
    assert turn(service, "The Vespa is my brother's, not mine.").writes() == []
    assert turn(service, "Is the Brompton my flatmate's, not mine?").writes() == []
    assert active(service) == ["Owns a Brompton folding bike"]


# --- invariant 398: a move for a new job; "at the X Hospital" is an employer ---------------------


def test_inv398_a_move_for_a_new_job_is_a_move_and_an_employer():
    from datetime import date

    from memory.understand.statements import understand
    today = date(2026, 12, 1)
    said = [(st.act, st.text) for st in understand(
        "We're relocating to Glasgow next month for a new role with Baillie Gifford.", today).statements]
    assert ("change", "Works at Baillie Gifford") in said and all("I'm" not in (t or "") for _, t in said)
    # the reason alone, or someone else's job, is no employer of the user's
    for m in ("I'm moving to Cork in March for work.", "We moved to Bath for my husband's job."):
        assert all("Works" not in (st.text or "") for st in understand(m, today).statements), m
    # "I'm" is never a person who moved
    assert all("I'm lives" not in (st.text or "")
               for st in understand("I'm moving to Lyon in January for the new job at Sanofi.", today).statements)


def test_inv398_a_job_at_the_named_hospital_is_replaced_by_the_new_employer(service):
    old = service.write_fact("ana", "Works as a staff nurse at the Royal Infirmary", fact_type="identity").fact
    (w,) = turn(service, "I've started at the Western General as a staff nurse.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Western General" in w.text


# --- invariant 399: a texter's message with an acronym is still typed in lower case ------------


def test_inv399_an_acronym_does_not_make_a_message_capitalised():
    from memory.understand.canon import is_lowercase_message
    assert is_lowercase_message("tomas got a job at the NHS, moved to york")
    assert is_lowercase_message("i think it's the BBC")
    assert not is_lowercase_message("Tomas got a job at the NHS")
    assert not is_lowercase_message("NHS BBC ITV")  # no plain word at all: not a texter's


def test_inv399_a_relative_named_in_lower_case_beside_an_acronym_is_read(service):
    old = service.write_fact("ana", "Brother Tomas lives in Leeds", fact_type="identity").fact
    w, job = turn(service, "tomas has moved to york, he got a job with the NHS").writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "York" in w.text
    assert (job.op, job.text) == ("write", "Brother Tomas got a job with the NHS")  # invariant 408


def test_inv399_a_lower_case_name_before_moved_to_is_someone_else(service):
    home = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    t = turn(service, "tomas has moved to york")
    assert all(w.old_id != home.id for w in t.writes())
    assert service.get_fact("ana", home.id).state.value == "active"
    # the user's own move, said in lower case, is still the user's
    (w,) = turn(service, "we've moved to york").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", home.id, "Lives in York")


# --- invariant 400: a journey or a change of something else is no move ---------------------------


def test_inv400_a_journey_from_a_to_b_is_no_switch_and_no_move(service):
    home = service.write_fact("ana", "Lives in Glasgow", fact_type="identity").fact
    for said in ("I went from Glasgow to Inverness by train.", "I changed buses from Glasgow to Stirling.",
                 "We travelled from Glasgow to Oban on foot, mostly."):
        assert [w for w in turn(service, said).writes() if w.old_id == home.id] == [], said
    assert service.get_fact("ana", home.id).state.value == "active"


def test_inv400_what_the_change_is_of_must_be_what_the_fact_speaks_of(service):
    from memory.understand.substitution import about_the_fact
    assert about_the_fact("Helio the whole platform", "Helio's platform runs on GKE", "GKE")
    assert about_the_fact("I trains", "Commutes on trains from Leeds", "Leeds")  # trains named
    assert not about_the_fact("the choir", "Band rehearses at the Half Moon", "Half Moon")
    assert not about_the_fact("I", "Lives in Leeds", "Leeds")  # nothing named: never the home
    assert about_the_fact("I", "Plays goalkeeper for the hockey team", "hockey team")


# --- invariant 401: a dated move that names the home it leaves ----------------------------------


def test_inv401_a_move_naming_the_home_it_leaves_replaces_it_from_its_date(service):
    home = service.write_fact("ana", "Lives in Clifton, Bristol", fact_type="identity").fact
    t = turn(service, "Got the keys to our new place! Moving from Clifton to Redland on 3 July.")
    sup = [w for w in t.writes() if w.op == "supersede"]
    assert [(w.old_id, w.text, str(w.valid_from)) for w in sup] == [(home.id, "Lives in Redland", "2025-07-03")]


def test_inv401_a_move_from_a_place_not_on_record_stays_a_plan(service):
    home = service.write_fact("ana", "Lives in Clifton, Bristol", fact_type="identity").fact
    t = turn(service, "Got the keys to our new place! Moving from Bath to Redland on 3 July.")
    assert all(w.op == "write" for w in t.writes())
    assert service.get_fact("ana", home.id).state.value == "active"


# --- invariant 402: "she" is the one relative the sentence before named -------------------------


def test_inv402_a_pronoun_is_the_one_relative_named_just_before():
    from datetime import date

    from memory.understand.statements import understand
    today = date(2026, 12, 1)
    texts = [st.text for st in understand("I drive my gran to the shops on Fridays. She has dementia.",
                                          today).statements]
    assert "Gran has dementia" in texts
    # two relatives named, or a pronoun that fits neither: nobody is guessed
    assert understand("I drove my gran and my uncle to the shops. She has dementia.", today).statements == []
    assert all("dementia" not in (st.text or "") for st in
               understand("I drive my gran to the shops. He has dementia.", today).statements)


def test_inv402_the_relatives_condition_is_theirs_not_the_users(service):
    t = turn(service, "I look after my dad on Sundays. He has Parkinson's.")
    texts = [w.text for w in t.writes()]
    assert "Dad has Parkinson's" in texts and "Has Parkinson's" not in texts


# --- invariant 427: something begun is no job title ----------------------------------------------


def test_inv427_starting_a_treatment_or_class_is_no_job():
    from datetime import date

    from memory.understand.statements import understand
    today = date(2026, 12, 1)
    for said in ("I'm starting physio on the 14th.", "I'm beginning chemo next week.",
                 "I'm taking driving lessons from January."):
        assert all(not (st.text or "").startswith("Works as") for st in understand(said, today).statements), said
    # a job title with a gerund in it is still a job
    (st,) = understand("I'm a managing director at Halden now.", today).statements
    assert st.text == "Works as a managing director at Halden"
