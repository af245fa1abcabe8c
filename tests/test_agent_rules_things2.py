"""Possessions, devices, vehicles, services and subscriptions that were got, replaced or ended,
said the way people say it (issue 12, invariants 320-324): one real agent turn on a real store."""

from __future__ import annotations

from memory.models import FactState
from memory.understand.belongings import belongings

from .agent_support import active, one_supersede, turn


def _old(svc, text, fact_type="world"):
    return svc.write_fact("ana", text, fact_type=fact_type).fact


# --- invariant 320: a thing that ended ---------------------------------------------------------

def test_inv320_a_thing_pinched_ends_the_fact_naming_it_dated(service):
    w = one_supersede(service, "My Garmin got pinched at the pool on Tuesday.",
                      "Has a Garmin Forerunner 255 watch", "Garmin")
    assert w.text.startswith("No longer owns") and w.valid_from is not None


def test_inv320_sold_to_someone_ends_it_without_the_buyer_in_its_name(service):
    w = one_supersede(service, "We sold the Peloton to a neighbour last month.", "Has a Peloton bike",
                      "Peloton")
    assert "neighbour" not in w.text


def test_inv320_given_away_with_a_remark_ends_it(service):
    w = one_supersede(service, "Gave my old iPad to my niece, she needs it for school.",
                      "Owns an iPad Air", "iPad")
    assert "niece" not in w.text


def test_inv320_it_is_the_thing_just_named(service):
    one_supersede(service, "I knocked my Kindle into the pool and it's beyond repair.", "Has a Kindle Oasis",
                  "Kindle")
    one_supersede(service, "A van reversed into my Clio outside work and it's been written off.",
                  "Drives a Renault Clio", "Clio")


def test_inv320_another_fact_about_it_is_no_reason_to_keep_it(service):
    has = _old(service, "Has a Vitamix blender")
    _old(service, "The Vitamix is only used at weekends", "preference")
    (w,) = turn(service, "We sold the Vitamix on eBay, it was gathering dust.").writes()
    assert (w.op, w.old_id) == ("supersede", has.id)


def test_inv320_a_thing_that_only_broke_for_a_moment_ends_nothing(service):
    phone = _old(service, "Has a Pixel 8")
    t = turn(service, "My phone died on the bus so I missed your call.")
    assert not t.writes()
    assert service.get_fact("ana", phone.id).state == FactState.ACTIVE
    assert not turn(service, "Gave the car a good wash yesterday.").writes()
    assert not turn(service, "Long day, my phone finally died at six.").writes()  # a flat battery
    assert belongings("My laptop broke down at work today.") == "My laptop broke down at work today."
    # a name said bare may be a person: it ends nothing without a replacement
    assert belongings("I finally dumped Marco, best decision ever.") == "I finally dumped Marco, best decision ever."
    for said in ("My passport was stolen in Rome yesterday.", "My brother's car got written off.",
                 "My back finally gave up the ghost."):
        assert belongings(said) == said  # papers, someone else's things, the body
    said = "The lift broke down on Monday, and I've finally booked Rome."
    assert belongings(said) == said  # not the user's, and "finally" is the booking's


def test_inv320_an_ending_with_nothing_on_record_writes_nothing(service):
    t = turn(service, "My scooter was nicked outside the library yesterday.")
    assert not t.writes()
    assert active(service) == []


# --- invariant 321: an ending and the thing that replaced it ----------------------------------

def test_inv321_died_so_got_another_instead(service):
    w = one_supersede(service, "The Nespresso machine packed in, so on Saturday we got a Sage Bambino instead.",
                      "Has a Nespresso Vertuo machine", "Sage Bambino")
    assert w.valid_from is not None


def test_inv321_took_one_down_and_put_another_in(service):
    one_supersede(service, "We took the router down and put a Netgear Orbi in the hallway instead.",
                  "Has a BT Smart Hub router", "Netgear Orbi")


def test_inv321_binned_them_names_the_things_said_before(service):
    w = one_supersede(service, "The Wyze plugs were flaky so I've binned them and gone for Meross plugs instead.",
                      "Has three Wyze plugs", "Meross plugs")
    assert w.text == "Owns Meross plugs"  # many things take no article


def test_inv321_a_service_ditched_for_one_used_now(service):
    w = one_supersede(service, "Ditched Spotify, I use Tidal now for everything.", "Uses Spotify Premium",
                      "Tidal", fact_type="preference")
    assert "Spotify" not in w.text


def test_inv321_a_policy_cancelled_for_another_provider(service):
    one_supersede(service, "Cancelled the Admiral policy and went with LV instead.",
                  "Car insurance is with Admiral", "LV")


def test_inv321_a_new_thing_with_no_ending_is_only_a_new_thing():
    said = "We got a Sage Bambino, so mornings are sorted."
    assert belongings(said) == said


# --- invariant 322: things got, said in other shapes -----------------------------------------

def test_inv322_a_new_one_of_a_kind_named_after_it_replaces_the_old_one(service):
    one_supersede(service, "got a new laptop, lenovo x1, the old one finally gave up",
                  "Has a Dell XPS 13 laptop", "x1")


def test_inv322_a_thing_given_to_us_is_ours(service):
    (w,) = turn(service, "Our landlord gave us his old Dyson fan, so the bedroom is cooler now.").writes()
    assert (w.op, w.text) == ("write", "Owns a Dyson fan")
    (w,) = turn(service, "Work gave me a company phone, a Pixel 9.", user="bo").writes()
    assert w.text == "Owns a Pixel 9"


def test_inv322_brought_home_from_a_shop(service):
    (w,) = turn(service, "Came home from Argos with a Ninja air fryer, tea's sorted.").writes()
    assert "Ninja air fryer" in w.text
    assert not turn(service, "Got back from the dentist with a sore jaw.", user="bo").writes()


def test_inv322_someone_and_i_and_we_have_finally_got(service):
    (w,) = turn(service, "Priya and I finally got a robot mower for the garden!").writes()
    assert w.text == "Owns a robot mower"
    (w,) = turn(service, "We've finally got a Meaco dehumidifier.", user="bo").writes()
    assert "Meaco dehumidifier" in w.text


def test_inv322_the_day_it_was_collected_dates_it(service):
    (w,) = turn(service, "Bought a Cube e-bike. Collected it on Saturday.").writes()
    assert "Cube e-bike" in w.text and w.valid_from is not None
    (w,) = turn(service, "We got a Sonos Era 100. It arrived yesterday.", user="bo").writes()
    assert w.valid_from is not None


def test_inv322_a_home_bought_replaces_the_one_rented(service):
    w = one_supersede(service, "We completed on the flat in Leith on Friday!", "Rents a room in Portobello",
                      "Leith", fact_type="identity")
    assert w.text == "Owns a flat in Leith"
    (w,) = turn(service, "Closed on the house in Tucson last week, so happy.", user="bo").writes()
    assert w.op == "write" and "Tucson" in w.text


# --- invariant 323: which fact a thing that went is -------------------------------------------

def test_inv323_a_word_inside_a_word_of_one_fact(service):
    one_supersede(service, "My QC45s were stolen at the airport.", "Has Bose QC45 headphones")
    svc = service
    gym = svc.write_fact("bo", "Has a GymBox membership").fact
    (w,) = turn(svc, "I've sacked off the gym membership, never went.", user="bo").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", gym.id, "No longer has a gym membership")


def test_inv323_a_thing_a_fact_only_mentions_is_not_what_it_holds(service):
    cam = _old(service, "Has a Reolink camera which records to the garage NAS")
    (w,) = turn(service, "I swapped the garage NAS for a Synology DS224.").writes()
    assert w.op == "write" and "Synology" in (w.text or "")
    assert service.get_fact("ana", cam.id).state == FactState.ACTIVE


# --- invariant 324: a wish met ------------------------------------------------------------------

def test_inv324_a_thing_wanted_and_now_got_fulfils_the_wish(service):
    one_supersede(service, "We've finally got a Meaco dehumidifier for the bedroom.",
                  "Wants a dehumidifier for the bedroom", "dehumidifier", fact_type="preference")


def test_inv324_would_like_is_a_wish_too(service):
    one_supersede(service, "We've just bought a Bosch dishwasher, no more washing up!",
                  "Would like a dishwasher", "Bosch", fact_type="preference")


def test_inv324_another_wish_stays(service):
    wish = _old(service, "Wants a standing desk", "preference")
    (w,) = turn(service, "I finally got a Meaco dehumidifier.").writes()
    assert w.op == "write"
    assert service.get_fact("ana", wish.id).state == FactState.ACTIVE


def test_inv320_the_rewrite_is_pure_and_keeps_other_news():
    said = belongings("My bike was stolen outside the station yesterday, and I start at Monzo in May.")
    assert said.startswith("Yesterday I got rid of the bike")
    assert "Monzo" in said


def test_inv321_a_provider_changed_at_renewal(service):
    one_supersede(service, "Renewed the home insurance early with LV instead of Aviva.",
                  "Home insurance with Aviva renews on March 3", "LV")
    svc = service
    old = svc.write_fact("bo", "Pet insurance is with Petplan").fact
    (w,) = turn(svc, "Renewed the pet insurance but went with ManyPets this time, much cheaper.",
                user="bo").writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "ManyPets" in w.text


def test_inv321_the_same_provider_renewed_changes_nothing(service):
    old = _old(service, "Home insurance is with Aviva")
    assert not turn(service, "Renewed the home insurance with Aviva again.").writes()
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE


def test_inv321_all_of_them_replaced_with_other_ones(service):
    one_supersede(service, "I replaced all the Wiz bulbs with Philips Hue ones after the app update.",
                  "Has eight Wiz bulbs", "Philips Hue bulbs")


def test_inv321_took_one_off_and_put_another_on(service):
    one_supersede(service, "Took Plex off the NAS and put Jellyfin on it instead.",
                  "The NAS runs Plex for films", "Jellyfin")


def test_inv320_a_remark_with_never_is_no_denial(service):
    one_supersede(service, "Gave my Xbox to my cousin, I never played it anyway.", "Has an Xbox Series X",
                  "Xbox")


def test_inv320_an_account_closed_is_dated_by_the_remark_about_it(service):
    w = one_supersede(service, "Closed the Barclaycard account, cleared it on 3 October.",
                      "Has a Barclaycard account", "Barclaycard")
    assert w.valid_from is not None and (w.valid_from.month, w.valid_from.day) == (10, 3)
    assert not turn(service, "Closed the window, it was freezing.", user="bo").writes()


def test_inv321_a_switch_is_dated_by_the_clause_that_says_it(service):
    w = one_supersede(service, "Ditched Bulb. We've been with Octopus since the start of October.",
                      "Energy supplier is Bulb", "Octopus")
    assert w.valid_from is not None and (w.valid_from.month, w.valid_from.day) == (10, 1)
