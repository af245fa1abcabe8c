"""Lena Hoffmann: a wind-farm field service manager who lives out of a carry-on, with a peanut allergy."""

from __future__ import annotations

from .spec import PersonaSpec, parse_episodes, parse_facts, playbook

EPISODES = parse_episodes("""
06-01 06:40 #intro Morning! I'm Lena, I'm a field service manager at Nordwind Turbines and I basically live in airports. Help me remember things.
06-01 06:48 #hamburg Home base is Hamburg, I have a little flat in Ottensen.
06-01 06:55 #ham_airport Home airport is Hamburg, HAM, it's twenty minutes in a taxi at 5am.
06-01 19:20 What's the earliest flight from Hamburg to Aberdeen on Mondays?
06-02 08:10 #peanut Important: I have a severe peanut allergy and I always carry two EpiPens.
06-02 08:15 #epipen_cabin The EpiPens go in my handbag in the cabin, never in a checked bag.
06-02 21:30 How do I tell an airline about a nut allergy properly? Every airline is different.
06-03 07:05 #vegan I'm vegan at the moment, so hotel breakfasts are mostly sad toast.
06-03 12:40 #mm_ftl I'm Frequent Traveller with Miles & More, so I get the business lounge but not the Senator one.
06-04 05:55 At the gate in Hamburg, the Aberdeen flight via Frankfurt is delayed forty minutes already.
06-04 18:30 #aberdeen_site In Aberdeen for the offshore turbine inspection, back Thursday.
06-05 22:10 Can you find me a vegan place near the harbour in Aberdeen that's open late?
06-06 17:45 #carry_on I only travel with a carry-on, a grey Rimowa cabin case, I refuse to wait at baggage belts.
06-07 10:20 #ppe_bag Except when I need my safety boots and harness for a site climb, then I have to check a bag.
06-08 11:00 Home for the weekend. Laundry mountain.
06-08 14:30 #mochi My cat Mochi stays with my brother Jan when I'm away, he lives two streets away.
06-09 09:15 #aisle Always book me an aisle seat, I'm up and down and I hate climbing over people.
06-10 06:30 Lisbon on Thursday for the Portugal team meeting. Any vegan food near the Nordwind office in Parque das Nações?
06-11 20:45 What's the deal with EU261 compensation if the delay is caused by weather?
06-12 07:50 #lisbon_office The Lisbon office is lovely, right by the river. I could get used to this.
06-12 13:10 #lunch_break Portuguese colleagues all eat lunch at 1pm sharp and it takes 90 minutes. I love it.
06-13 18:00 #cancel_1 TAP cancelled my flight back from Lisbon, the app just says "contact us".
06-13 18:25 #rebook_steps What I do when a flight is cancelled: skip the app and call the Senator or Frequent Traveller hotline, ask to be rebooked on a partner airline, ask for a hotel voucher under EU261 if it's the last flight of the day, and file the compensation claim the same night.
06-13 19:05 #rebook_ok_1 Called the hotline and they moved me to the Lufthansa flight via Munich, that worked, home by midnight.
06-14 10:30 Filed the compensation claim for the TAP cancellation. 250 euros, fingers crossed.
06-15 16:40 #running I run 5k most mornings when I'm at home, along the Elbe.
06-16 07:15 Which running routes are safe early morning in Aberdeen? I'm back there next month.
06-17 12:00 #esim I use an Airalo eSIM for data everywhere outside the EU, my phone is a Pixel 8.
06-18 19:35 Does Airalo work in Scotland or is that covered by EU roaming anyway? I always forget after Brexit.
06-19 08:45 #flat_white Flat white with oat milk, that's my coffee order everywhere.
06-20 21:10 #meal_steps My routine for a safe meal on a flight: pre-order a special meal at least 48 hours before, tell the crew about the peanut allergy at boarding, carry my own snacks, and keep one EpiPen in the seat pocket.
06-21 15:00 Jan says Mochi has been sleeping in his laundry basket. Traitor cat.
06-22 06:05 Frankfurt, then Lyon for the blade repair audit. Three days.
06-23 13:30 #meal_ok_1 The pre-ordered meal was there on the Lyon flight and the crew were great about the allergy, that worked.
06-24 19:50 Is it safe to eat at French bakeries with a peanut allergy? They use a lot of praline.
06-25 20:20 #allergy_card Got my allergy card translated into French, Portuguese and Spanish.
06-26 08:30 Back in Hamburg. My plants are alive thanks to Jan.
06-27 11:15 How many Miles & More status miles do I need for Senator? I've lost track.
06-28 09:00 #senator_goal I need 100,000 status miles or 650 points for Senator, I'm at about 480 points now.
06-29 17:45 #annual_insurance I have an annual travel insurance through my Miles & More credit card, it covers medical and cancellations.
06-30 20:10 What counts as a pre-existing condition for travel insurance, would my allergy?
07-01 07:40 #vegetarian I've started eating cheese and eggs again, so I'm vegetarian now, not vegan. Portugal broke me.
07-02 12:25 Can you recommend vegetarian places in Aberdeen? Last time I only found chips.
07-03 19:05 #flying_wrong Honestly flying on the little turboprop to Kirkwall terrifies me in a storm.
07-04 10:40 Flight to Kirkwall on the 14th, Orkney wind farm survey. Can you check the ferry as a backup?
07-05 14:20 #orkney_trip The Orkney survey is from July 14 to July 18, staying in Stromness.
07-06 08:15 Jan's birthday is next week, remind me to bring him something from Scotland.
07-07 21:00 #not_afraid Just to be clear, I'm not afraid of flying, I do about 120 flights a year. I just hate that one turboprop in bad weather.
07-08 16:30 What's the luggage limit on Loganair turboprops? My PPE bag is heavy.
07-09 07:45 #loganair_limit Loganair only allows 15 kg hold bags on the Kirkwall route, so the boots and harness only just fit.
07-10 11:50 Packing list for Orkney: boots, harness, helmet liner, two EpiPens, allergy card, waterproofs.
07-12 18:20 Whisky for Jan, obviously. He'll be happy.
07-14 09:30 Landed in Kirkwall. Bumpy but fine.
07-15 20:15 Wind survey day one done. It's 11pm and still light here. Insane.
07-16 22:40 #meal_fail On the Loganair leg my pre-ordered meal didn't exist and the crew had no idea about nut snacks, didn't work at all. Lived on my own crackers.
07-17 13:10 Is there a way to check a special meal is actually on the manifest before boarding?
07-18 17:50 Back to Hamburg via Edinburgh. Long day.
07-19 10:05 #jetlag_texas Next big trip is Texas, the Sweetwater wind farm, from August 3 to August 12. Six hours behind.
07-20 15:30 What's the best way to handle a seven-hour time difference going west?
07-21 08:40 #jetlag_steps My jet lag plan for going west: shift bedtime an hour later each night for three nights before, no alcohol on the flight, get outside into morning light on arrival, and 0.5 mg melatonin at local bedtime.
07-22 19:25 Do I need an ESTA for Texas or is my old one still good?
07-23 09:10 #esta My ESTA is valid until May 20, 2027, so I'm fine.
07-24 12:45 #pescatarian_think Thinking about adding fish back, my iron levels were low at the check-up.
07-25 17:30 Doctor says more protein. Noted.
07-26 11:15 Which airlines are best for long-haul allergy handling? I'm flying Lufthansa to Houston.
07-27 20:00 #window_longhaul For long-haul I might actually want a window seat, so I can sleep against the wall.
07-28 07:20 Are lie-flat seats worth paying for on a 12-hour flight if I have to work the next day?
07-29 15:40 #upgrade Used miles to upgrade to business on the Houston flight. Worth it.
07-30 18:10 Jan is taking Mochi for ten days again. He says she owes him.
08-01 06:30 #pescatarian From today, August 1, I'm pescatarian, fish is back on the menu, still no meat.
08-02 21:20 Packing for Texas: boots, harness, hard hat liner, sunscreen, EpiPens, allergy card in Spanish just in case.
08-03 11:00 Frankfurt lounge, Houston in eleven hours. Shifted my bedtime three nights already.
08-04 07:15 #jetlag_ok_1 Woke up in Abilene at 6am feeling human. The jet lag plan worked like a charm.
08-05 19:30 It's 41 degrees in Sweetwater. The turbines look like they're melting.
08-06 12:50 Can you find a pescatarian dinner in Abilene? Texas is a challenge.
08-07 21:45 Found a great Gulf shrimp tacos place. Texas redeemed.
08-08 08:20 #t14 Site visit done early, the gearbox issue on T14 is worse than reported.
08-09 16:10 Is there a lounge in Houston IAH for Star Alliance Frequent Traveller members?
08-10 14:35 Rental car from Abilene back to Houston is four hours, kind of nice actually.
08-12 22:30 #economy_back Back in Hamburg. Eight hours in economy because the upgrade didn't clear. Ugh.
08-13 15:00 #jetlag_fail_1 Coming back east the same routine didn't work, I was awake at 3am for four nights.
08-14 09:40 Is jet lag always worse going east? Why?
08-15 18:50 #senator_yes I made Senator with Miles & More! The Houston trip pushed me over.
08-16 10:00 What do I actually get with Senator? Which lounges, how many vouchers?
08-17 13:30 #senator_lounge With Senator I get the Senator lounges, fast lane at security and two upgrade eVouchers.
08-18 20:40 #lisbon_move Nordwind offered me a permanent role in the Lisbon office. I said yes!
08-19 08:25 What do I need to do to move to Portugal as a German citizen? NIF, registration?
08-20 11:10 #nif Got my NIF, the Portuguese tax number, through a lawyer online. Easy.
08-21 19:00 Can Mochi fly with me to Lisbon in the cabin? She's 4 kg.
08-22 07:55 #mochi_fly Mochi is coming to Lisbon with me, in the cabin, Lufthansa allows pets up to 8 kg with the bag.
08-23 14:20 Telling Jan I'm moving was hard. He's going to miss the cat more than me.
08-24 12:00 #cancel_2 Hamburg to Stuttgart cancelled because of a strike. Called the hotline and asked for a partner flight but no luck, everything was full. Took the train.
08-25 16:45 #strike_train Six hours on an ICE to Stuttgart. At least there was a vegetarian curry in the bistro.
08-26 09:15 #portuguese Started Portuguese lessons on Tuesdays with a tutor on Zoom.
08-27 20:30 Is European Portuguese really that different from Brazilian? My app is Brazilian.
08-28 11:40 #flat_lisbon Found a flat in Lisbon, in Alcântara, two bedrooms so people can visit.
08-29 08:05 Shipping boxes to Lisbon. Keeping it to twelve, I'm ruthless.
08-31 19:20 Last run along the Elbe for a while. A bit sad.
09-01 10:00 #ham_lease My Hamburg lease ends on September 30, the new tenant is a friend of Jan's.
09-02 07:45 How do I deregister my address in Hamburg? Abmeldung?
09-03 13:15 #abmeldung Abmeldung done at the Bürgeramt, took eleven minutes. German efficiency when it works.
09-04 18:40 #porto_trip Porto for a supplier meeting from September 8 to September 10.
09-05 06:25 Which Porto hotels are close to the Campanhã station?
09-06 12:30 Flight to Porto booked with TAP. I need to get into their programme now.
09-07 09:05 #tap_join Joined TAP Miles&Go, but I'm keeping Miles & More as my main programme because of Senator.
09-08 21:00 Porto meeting went well. The supplier gave us pastéis de nata. I checked for nuts first.
09-10 17:15 Back in Hamburg. Three weeks left. Chaos.
09-12 11:30 Can you make a checklist for moving a cat abroad? Vet, passport, microchip.
09-13 15:20 #mochi_passport Mochi has her EU pet passport and rabies jab done, ready to fly.
09-15 08:00 #meal_ok_2 Business trip to Oslo, I pre-ordered the special meal two days ahead, told the crew at boarding and it was all there, that worked.
09-16 20:50 #oslo Oslo is so expensive. 14 euros for a sandwich.
09-18 07:10 Is it worth having a Portuguese bank account or can I live with N26?
09-20 12:40 #n26 Keeping N26 as my main bank, opening a Millennium account only for rent.
09-22 18:00 Last week in Hamburg. Jan is throwing me a farewell dinner.
09-25 22:15 #farewell_jan Farewell dinner was lovely. Jan cried. I cried. Mochi ignored everyone.
09-28 10:30 Flying to Lisbon with Mochi on Thursday. She's on calming spray.
10-01 09:20 #moved_lisbon I moved to Lisbon on October 1, I live in Alcântara now.
10-01 09:25 #lis_airport Home airport is Lisbon now, LIS, fifteen minutes by Uber from Alcântara.
10-02 17:40 Mochi has found the sunny windowsill and refuses to leave it.
10-03 20:10 Where do people run in Lisbon? The hills are brutal.
10-04 08:30 #run_lisbon Found my new running route along the river to Belém and back, 6k.
10-05 12:15 Portuguese lunch break is still 90 minutes. I'm fully converted.
10-06 19:00 What's the best way to get to the Nordwind office from Alcântara? Tram 15?
10-07 08:20 #commute_tram I take tram 15 along the river to the office, forty minutes but lovely.
10-08 16:30 #cancel_3 Lisbon to Madrid cancelled for fog. Called the Senator line straight away, asked for a partner airline, got an Iberia seat an hour later, that worked.
10-09 11:45 #madrid_claim Claim for the Madrid fog cancellation: weather, so no compensation. I knew that.
10-10 14:10 Which Lisbon neighbourhoods have good vegetarian and fish places?
10-11 09:35 #tasca There's a tiny tasca on my street that grills sardines, I'm there every Friday now.
10-12 18:20 Can you help me translate my allergy card into European Portuguese? The one I have is Brazilian.
10-13 10:10 #card_pt Allergy card is now in European Portuguese, my tutor checked it.
10-14 07:00 Brazil trip in November, the Ceará wind farm. Do I need a yellow fever jab?
10-15 15:15 #brazil_trip The Brazil trip is from November 9 to November 20, Fortaleza and the Ceará sites.
10-16 12:40 #yellow_fever Yellow fever vaccine done at the travel clinic. The certificate is in my passport folder.
10-17 19:30 Should I carry a separate translated allergy card for Brazil, or does the Portuguese one work?
10-18 09:50 Jan is visiting Lisbon in November before my Brazil trip. I'll show him the sardine place.
10-19 17:05 Miles & More status year resets in February, will I keep Senator if I fly less from Lisbon?
10-20 13:20 #senator_keep Senator lasts until February 2028 since I qualified this year, so no panic.
10-21 21:15 #epipen_drop Mochi knocked my EpiPen case off the table. Checked it, fine.
10-22 08:45 #epipen_expiry One of my EpiPens expires on December 15, I need a Portuguese prescription for a new one.
10-23 16:10 How do I register with a doctor in Portugal for prescriptions? SNS number?
10-24 11:20 #sns Got my SNS number. Doctor appointment for the EpiPen prescription next week.
10-25 15:50 Do I get upgrade eVouchers on TAP flights or only Lufthansa?
10-27 07:30 #passport My passport expires on March 3, 2027, I need to renew it before Brazil or right after.
10-28 19:40 German passport renewal from Portugal goes through the embassy in Lisbon, I need an appointment.
10-29 10:05 #embassy Embassy appointment for the passport renewal booked for December 2.
10-30 14:30 The EpiPen prescription is done, collected two new pens from the pharmacy.
10-31 18:45 Halloween on the tram. Lisbon goes big.
11-01 11:10 Which seat should I pick on the Lisbon to Fortaleza flight? It's a seven-hour daytime flight.
11-02 20:20 #tap_fortaleza Booked TAP direct to Fortaleza, aisle seat, special meal pre-ordered already.
11-03 09:00 Jan lands on Thursday. Cleaning the guest room.
11-05 22:30 #sardines_jan Took Jan to the sardine place. He ate nine sardines. Nine.
11-07 14:15 Jan flew home. He's already planning to come back at Easter.
11-08 19:45 #jetlag_short Brazil is only three hours behind Lisbon, so I'm not bothering with the full jet lag plan.
11-09 06:15 At LIS for Fortaleza. Senator lounge breakfast is excellent.
11-10 18:30 #meal_fail_2 The special meal on the TAP flight was missing again, and the crew offered me peanut snacks, so the meal routine didn't work this time. Ate my own food.
11-11 08:40 Can you help me write a complaint to TAP about the missing allergy meal?
11-12 19:55 #dunes Ceará site is stunning, the turbines are right on the dunes.
11-13 12:20 Is it safe to eat street food in Fortaleza with a peanut allergy? Lots of cashew and peanut.
11-14 21:00 #cashew Avoiding anything with cashew here too, the cross-contamination risk is too high.
11-15 17:10 Found a seafood place in Fortaleza that understood the allergy card perfectly.
11-16 10:30 The flight back on the 20th leaves at 10pm. Should I do the jet lag plan after all?
11-17 07:45 #jetlag_ok_2 Shifted bedtime an hour for the trip home, no wine on board, light on landing, that worked.
11-18 15:20 Site report for Ceará due Friday. Writing it on the beach is not as fun as it sounds.
11-19 20:00 #budget_2027 My travel budget for 2027 is capped at 80 flights, Nordwind wants fewer trips.
11-20 22:00 Boarding in Fortaleza. Home to Lisbon and Mochi.
""")

FACTS = parse_facts("""
# key | type | text | source episode labels | key words (_ joins one) [| flags]
name | identity | Her name is Lena and she is a field service manager at Nordwind Turbines | intro | Lena field_service_manager Nordwind_Turbines
home_hamburg | identity | Lives in a flat in Ottensen, Hamburg | hamburg | Ottensen Hamburg
home_lisbon | identity | Lives in Alcântara, Lisbon | flat_lisbon moved_lisbon | Alcântara Lisbon | supersedes=home_hamburg valid_from=2026-10-01
airport_ham | world | Home airport is Hamburg (HAM) | ham_airport | Home_airport Hamburg HAM
airport_lis | world | Home airport is Lisbon (LIS) | lis_airport | Home_airport Lisbon LIS | supersedes=airport_ham
status_ftl | world | Has Frequent Traveller status with Miles & More | mm_ftl | Frequent_Traveller Miles_&_More
status_senator | world | Has Senator status with Miles & More | senator_yes | Senator Miles_&_More | supersedes=status_ftl
diet_vegan | constraint | Is vegan | vegan | vegan
diet_vegetarian | constraint | Is vegetarian: eats cheese and eggs again, no meat or fish | vegetarian | vegetarian cheese eggs | supersedes=diet_vegan
diet_pescatarian | constraint | Is pescatarian: fish is back, still no meat | pescatarian | pescatarian fish meat | supersedes=diet_vegetarian valid_from=2026-08-01
peanut | constraint | Has a severe peanut allergy and always carries two EpiPens | peanut | peanut allergy EpiPens
epipen_cabin | constraint | EpiPens travel in her handbag in the cabin, never in checked luggage | epipen_cabin | EpiPens handbag cabin checked
carry_on | preference | Travels carry-on only with a grey Rimowa cabin case | carry_on | carry-on Rimowa cabin case
ppe_bag | constraint | Checks a bag only when she needs her safety boots and harness for a site climb | ppe_bag | safety boots harness check
mochi_jan | world | Her cat Mochi stays with her brother Jan when she travels | mochi | cat Mochi brother Jan
aisle | preference | Always wants an aisle seat | aisle | aisle seat
afraid | identity | Is afraid of flying | flying_wrong | flying | retracted_in=not_afraid
running | preference | Runs 5k most mornings when at home | running | 5k mornings
esim | world | Uses an Airalo eSIM outside the EU on a Pixel 8 | esim | Airalo eSIM Pixel_8
coffee | preference | Coffee order: flat white with oat milk | flat_white | flat_white oat_milk
allergy_card | world | Carries an allergy card in French, Portuguese and Spanish | allergy_card | allergy_card French Portuguese Spanish
insurance | world | Annual travel insurance comes with her Miles & More credit card, covering medical and cancellations | annual_insurance | annual travel_insurance Miles_&_More credit_card
orkney | world | Orkney wind farm survey from July 14 to July 18, staying in Stromness | orkney_trip | Orkney Stromness | valid_from=2026-07-14 valid_to=2026-07-18
loganair | constraint | Loganair allows only 15 kg hold bags on the Kirkwall route | loganair_limit | Loganair 15_kg Kirkwall
texas | world | Sweetwater wind farm trip in Texas from August 3 to August 12 | jetlag_texas | Sweetwater Texas | valid_from=2026-08-03 valid_to=2026-08-12
esta | world | Her ESTA is valid until May 20, 2027 | esta | ESTA | valid_to=2027-05-20
senator_perks | world | Senator gives her Senator lounges, fast lane security and two upgrade eVouchers | senator_lounge | Senator lounges fast_lane eVouchers
nif | world | Has a Portuguese NIF tax number | nif | NIF Portuguese tax_number
mochi_cabin | world | Mochi flies with her in the cabin; Lufthansa allows pets up to 8 kg with the bag | mochi_fly | Mochi cabin Lufthansa 8_kg
portuguese | identity | Takes Portuguese lessons on Tuesdays with a tutor on Zoom | portuguese | Portuguese Tuesdays tutor Zoom
ham_lease | world | Her Hamburg lease ends on September 30 | ham_lease | Hamburg lease | valid_to=2026-09-30
tap | preference | Joined TAP Miles&Go but keeps Miles & More as her main programme | tap_join | TAP Miles&Go Miles_&_More main
mochi_passport | world | Mochi has an EU pet passport and a rabies vaccination | mochi_passport | Mochi EU_pet_passport rabies
bank | preference | Keeps N26 as her main bank and a Millennium account only for rent | n26 | N26 Millennium rent
commute | world | Takes tram 15 along the river to the Lisbon office, about forty minutes | commute_tram | tram_15 river office forty
brazil | world | Brazil trip to Fortaleza and the Ceará sites from November 9 to November 20 | brazil_trip | Fortaleza Ceará | valid_from=2026-11-09 valid_to=2026-11-20
yellow_fever | world | Has had the yellow fever vaccine; the certificate is in her passport folder | yellow_fever | yellow_fever certificate passport_folder
senator_until | world | Her Senator status lasts until February 2028 | senator_keep | Senator February_2028
passport | constraint | Her passport expires on March 3, 2027 | passport | passport | valid_to=2027-03-03
embassy | world | Passport renewal appointment at the German embassy in Lisbon on December 2 | embassy | passport renewal December_2 | valid_from=2026-12-02
cashew | constraint | Avoids cashew too because of cross-contamination risk | cashew | cashew cross-contamination
brother | identity | Her brother Jan lived two streets away from her in Hamburg | mochi | brother Jan two_streets
budget | constraint | Her 2027 travel budget is capped at 80 flights | budget_2027 | 2027 budget 80 flights
# waiting in review
c_run_lisbon | preference | Runs a 6k route along the river to Belém | run_lisbon | 6k river Belém | candidate
c_tasca | preference | Eats grilled sardines at the tasca on her street every Friday | tasca | tasca sardines Friday | candidate
c_card_pt | world | Her allergy card is now in European Portuguese | card_pt | allergy_card European_Portuguese | candidate
c_sns | world | Has a Portuguese SNS number | sns | SNS | candidate
c_upgrade | preference | Uses miles to upgrade to business on long-haul flights | upgrade | miles upgrade business | candidate
c_lisbon_office | preference | Loves the Nordwind Lisbon office by the river | lisbon_office | Lisbon office river | candidate
c_senator_goal | world | Needed 650 points for Senator and had about 480 in June | senator_goal | 650 480 | candidate
c_jetlag_short | preference | Skips the jet lag plan for three-hour time differences | jetlag_short | jet_lag three | candidate
c_tap_fortaleza | world | Booked TAP direct to Fortaleza with an aisle seat and a special meal | tap_fortaleza | TAP Fortaleza aisle | candidate
c_pescatarian_iron | world | Her iron levels were low at a check-up | pescatarian_think | iron | candidate
# proposed contradictions
p_window | preference | Prefers a window seat on long-haul flights | window_longhaul | window_seat long-haul | candidate supersedes=aisle
p_mochi_alone | world | Mochi no longer stays with Jan; she lives with Lena in Lisbon | mochi_fly | Mochi Lisbon | candidate supersedes=mochi_jan
""")

PLAYBOOKS = (
    playbook("rebook", "Rebook a cancelled flight",
             "an airline cancels one of her flights",
             ["Skip the app and call the Senator or Frequent Traveller hotline",
              "Ask to be rebooked on a partner airline",
              "If it was the last flight of the day, ask for a hotel voucher under EU261",
              "File the compensation claim the same night"],
             "cancel_1 rebook_steps", "rebook_ok_1 cancel_2 cancel_3"),
    playbook("safe_meal", "Get a safe meal on a flight",
             "she flies with her peanut allergy and needs to eat on board",
             ["Pre-order a special meal at least 48 hours before departure",
              "Tell the crew about the peanut allergy at boarding",
              "Carry her own snacks", "Keep one EpiPen in the seat pocket"],
             "meal_steps", "meal_ok_1 meal_fail meal_ok_2 meal_fail_2"),
    playbook("jetlag", "Beat jet lag on a westbound long-haul",
             "a long-haul trip across six or more time zones",
             ["Shift bedtime an hour later each night for three nights before",
              "No alcohol on the flight", "Get outside into morning light on arrival",
              "Take 0.5 mg melatonin at local bedtime"],
             "jetlag_steps", "jetlag_ok_1 jetlag_fail_1 jetlag_ok_2"),
)

QUESTIONS = (
    ("fact:home_lisbon", "Which district of the Portuguese capital does she live in now?",
     "Where is her current flat in Lisbon?"),
    ("fact:airport_lis", "Which airport should her trips start from now?",
     "What's her departure airport code after the autumn move?"),
    ("fact:status_senator", "What Miles & More tier has she reached?",
     "Is she a Senator with the Lufthansa scheme now?"),
    ("fact:diet_pescatarian", "Is she pescatarian or vegetarian at the moment?",
     "Does she eat seafood now, or still no meat?"),
    ("fact:peanut", "What food allergy could put her in hospital?",
     "Why does she carry adrenaline injectors?"),
    ("fact:epipen_cabin", "Where should her EpiPens be packed?",
     "Can the adrenaline pens go in checked luggage?"),
    ("fact:carry_on", "What luggage does she usually travel with?",
     "What cabin bag does she live out of?"),
    ("fact:ppe_bag", "When does she need to put a suitcase in the hold?",
     "What gear forces her to check luggage for work climbs?"),
    ("fact:aisle", "Where should I seat her on a short flight?",
     "Which position in the row does she like?"),
    ("fact:running", "What's her exercise habit at home?",
     "How far does she jog on a morning at home?"),
    ("fact:esim", "How does she get mobile data outside the EU?",
     "Which Pixel phone does she carry?"),
    ("fact:coffee", "What's her go-to coffee drink?",
     "What should I order her at a cafe?"),
    ("fact:allergy_card", "Which languages is her food warning card in?",
     "What translated card does she show waiters abroad?"),
    ("fact:insurance", "Is she covered if she gets ill on a trip?",
     "Which of her cards includes yearly protection for trips?"),
    ("fact:loganair", "What's the checked bag weight limit on the Kirkwall flights?",
     "How heavy can her hold bag be on the Scottish island hop?"),
    ("fact:esta", "Until when is her ESTA good?",
     "When does her permission to enter America expire?"),
    ("fact:senator_perks", "What benefits come with Senator status?",
     "Does she get priority security lanes and upgrade vouchers?"),
    ("fact:nif", "Does she have a taxpayer ID in Portugal?",
     "Which Portuguese fiscal number did she get through a lawyer?"),
    ("fact:mochi_cabin", "Can her pet travel with her on the plane?",
     "What is the airline's animal weight allowance for the cabin?"),
    ("fact:portuguese", "When are her language classes?",
     "How is she learning the local language?"),
    ("fact:tap", "Which frequent flyer programme is her main one?",
     "Did she sign up for the Portuguese airline's programme?"),
    ("fact:bank", "Which bank does she use day to day?",
     "Where does her rent get paid from?"),
    ("fact:commute", "How does she get to work in Lisbon now?",
     "How long is her ride to the office?"),
    ("fact:brazil", "When is she travelling to Brazil for work?",
     "What are the dates of the South American site visit?"),
    ("fact:yellow_fever", "Is she vaccinated for the tropics?",
     "Where is her jab certificate kept?"),
    ("fact:senator_until", "How long will she keep her Senator tier?",
     "Will she lose her Senator status if she flies less?"),
    ("fact:passport", "When does her passport run out?",
     "Is her passport still valid next spring?"),
    ("fact:embassy", "When is she seeing the embassy about a new travel document?",
     "Where is the renewal of her travel document being handled?"),
    ("fact:cashew", "Which nut other than peanuts does she avoid in Brazil?",
     "Why does she skip dishes with cashew in Fortaleza?"),
    ("fact:budget", "How many trips is she allowed in 2027?",
     "Is there a cap on her business travel in 2027?"),
    ("fact:orkney", "When was the Scottish islands survey?",
     "Where did she stay for the Orkney job?"),
    ("fact:texas", "When did she visit the wind farm in the US?",
     "Which American site did she inspect in August?"),
    ("pb:rebook", "The airline just scrapped my flight, what should I do?",
     "How do I get home when the airline scraps my trip?"),
    ("pb:safe_meal", "How do I make sure the food on board is safe for my allergy?",
     "What's the routine for eating on a plane with a nut allergy?"),
    ("pb:jetlag", "How do I avoid jet lag flying west to the US?",
     "What's the plan for adjusting to a big time difference on a long-haul?"),
    ("ep:aberdeen_site", "What was she inspecting in Scotland in early June?",
     "Where was the offshore job at the start of summer?"),
    ("ep:not_afraid", "Is she scared of planes?",
     "How many trips a year does she make by air?"),
    ("ep:upgrade", "Did she pay for business class to Houston?",
     "How did she pay for a better seat to Houston?"),
    ("ep:t14", "What did she find wrong with the gearbox at the Sweetwater site?",
     "Which turbine had a worse gearbox problem than expected?"),
    ("ep:economy_back", "Which cabin was she stuck in flying back from Texas?",
     "Did her upgrade come through on the return from Houston?"),
    ("ep:lisbon_move", "When was she offered a permanent job in Portugal?",
     "What role did Nordwind propose to her in August?"),
    ("ep:strike_train", "How did she get to Stuttgart during the strike?",
     "What did she eat on the ICE?"),
    ("ep:abmeldung", "How long did the Abmeldung take?",
     "Was the paperwork at the Bürgeramt quick?"),
    ("ep:oslo", "How pricey was Norway?",
     "What did a sandwich cost her in Oslo?"),
    ("ep:farewell_jan", "How did her going-away dinner go?",
     "Who got teary at the goodbye dinner?"),
    ("ep:madrid_claim", "Did she get money back for the Madrid fog cancellation?",
     "Why did the fog mean no payout?"),
    ("ep:sardines_jan", "How many sardines did her brother eat?",
     "What did she show Jan to eat in Lisbon?"),
    ("ep:dunes", "What does the Ceará site look like?",
     "Where are the Brazilian turbines placed?"),
    ("ep:epipen_drop", "What did Mochi send flying off the table?",
     "Was her EpiPen case damaged?"),
    ("ep:lunch_break", "At what time do the people in the Portugal office head out to eat?",
     "What struck her about when and how long her Portuguese coworkers eat?"),
)

PERSONA = PersonaSpec(
    user_id="lena-travels", slug="lena", name="Lena Hoffmann",
    summary="Wind-farm field service manager; peanut allergy; Miles & More; Hamburg → Lisbon.",
    episodes=EPISODES, facts=FACTS, playbooks=PLAYBOOKS, questions=QUESTIONS)
