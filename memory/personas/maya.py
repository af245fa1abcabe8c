"""Maya Okafor: a paediatric nurse with a smart home, a cable-chewing beagle and a move to Bristol."""

from __future__ import annotations

from .spec import PersonaSpec, parse_episodes, parse_facts, playbook

EPISODES = parse_episodes("""
06-01 08:12 #intro Hi! I'm Maya. I've got a flat in Headingley in Leeds full of gadgets that half work, hoping you can help me keep track of it all.
06-01 08:20 #hub_st The brain of it all is an old SmartThings v3 hub stuck behind the TV, it runs the lights and a couple of sensors.
06-01 21:44 Is it normal for the SmartThings app to take ten seconds to turn a lamp on? Feels slow.
06-02 07:05 #nurse I'm a paediatric nurse at Leeds General, so my hours are all over the place and I need the house to sort itself out when I'm not thinking.
06-02 19:30 #nights This month I'm on nights, 8pm to 8am, four on and four off.
06-03 09:15 #blackout_blinds Because of the nights I sleep during the day, so the bedroom blinds have to stay shut until 3pm no matter what.
06-03 16:02 What's a good way to get the kettle to boil by itself when I wake up mid-afternoon?
06-04 08:40 #biscuit We've got a beagle puppy called Biscuit, he's five months old and he is pure chaos.
06-04 08:43 #biscuit_cables Biscuit has already chewed through the cable of the landing lamp and the phone charger by the sofa.
06-05 12:10 #tom My partner Tom works from home most days so he ends up being the one who notices when things break.
06-05 12:14 Tom says the hallway motion light keeps turning on when Biscuit walks past. Can it ignore small dogs?
06-06 10:30 #hue_bulbs Most of our lights are Philips Hue, twelve bulbs in total, plus two Hue Go lamps in the lounge.
06-06 10:41 #warm_evening In the evenings I only want warm white light, around 2700K, anything colder keeps me awake.
06-07 15:22 I tried setting a sunset routine but the lights came on at 9:40pm which is way too late in June.
06-08 09:05 #aqara I've got four Aqara door sensors and two Aqara motion sensors, all Zigbee.
06-08 22:17 #sensor_drop_1 The back door sensor has dropped off again, it just says unavailable in the app.
06-09 11:30 #zigbee_steps Tom found the fix for a dropped sensor: pull the battery for ten seconds, hold the reset button until the LED blinks blue, put the hub in pairing mode and keep the sensor within two metres of the hub.
06-09 11:52 #zigbee_ok_1 We did the battery and reset thing on the back door sensor and that worked, it's reporting again.
06-10 18:03 Can you remind me which lamp is on the smart plug in the lounge? I always forget.
06-11 07:45 #plug_lounge The smart plug in the lounge runs the old brass floor lamp my gran gave me, please don't let anything switch it off at night.
06-12 13:20 How much electricity does a Hue bulb use when it's off but still connected?
06-13 20:12 #cat_wrong Just so you know I'm looking after my sister's cat Pepper this week, so if the motion sensors go mad that's why.
06-14 10:02 The cat is hiding under the bed and the motion sensors are bored. Good.
06-15 09:10 #broadband_virgin Our internet is Virgin Media, the 350 Mb package, and the router is in the hallway cupboard.
06-15 09:25 Why does the wifi in the bedroom drop to two bars at night?
06-16 17:45 #amara My sister Amara lives in Manchester, she's the one who got me into all this smart home stuff.
06-17 08:30 Is there a way to see which devices are on the 2.4GHz band and which are on 5GHz?
06-18 22:05 #biscuit_crate Biscuit sleeps in his crate in the hallway, so anything in the hallway at night needs to be dim.
06-19 14:12 What's the cheapest way to protect cables from a puppy? He's eaten another one.
06-20 11:00 #cable_wrap_plan Plan for the cables: spiral cable wrap on everything at floor level, bitter apple spray on the wrap, route the rest behind the bookcase, and a chew toy by the sofa as a decoy.
06-20 20:15 #pepper_gone Pepper went home to Amara today. To be clear, we never had a cat, she was only ever visiting.
06-21 19:40 Had a lovely day off, we walked Biscuit round Golden Acre Park and he slept for six hours after.
06-22 08:15 #homey_curious Thinking about replacing the SmartThings hub with a Homey Pro, I keep reading good things about it.
06-23 16:30 Does Homey Pro support Zigbee and Z-Wave at the same time, or do I need sticks?
06-24 21:10 #cable_wrap_fail We wrapped the TV cables and sprayed them, but the bitter spray didn't work, Biscuit licked it off and chewed the end of the HDMI lead.
06-25 10:25 Any ideas for a puppy proof way to hide the router cables?
06-26 13:05 #fridge_alarm I want a leak sensor under the fridge, the ice maker leaked last winter and ruined the floor.
06-27 09:40 What's the difference between a Zigbee repeater and a router device? Do Hue bulbs count?
06-28 11:11 Tom made a Sunday morning scene that opens the blinds slowly at 10. He's very proud.
06-29 18:20 #vegan_no Not vegan by the way, it was Tom's sister who was doing Veganuary, I eat everything.
06-30 07:50 Nights are finished for this rota, I'm so tired. Back to days next week.
07-01 12:00 #rotating From July 1 my rota is rotating, two days, two nights, then four off.
07-02 08:45 Can you make the blinds rule depend on whether I worked a night shift? Last night was a day shift and the blinds stayed shut till three.
07-03 20:30 #homey_bought Ordered the Homey Pro! Arrives Friday. Goodbye SmartThings.
07-05 14:40 #homey_setup The Homey Pro is set up and running everything now, took me all Saturday to move the Hue bulbs and the Aqara sensors over.
07-05 22:02 The Aqara motion sensor in the hallway didn't want to pair with the Homey at first, but it's fine now.
07-06 10:15 What does the Homey "Flow" thing mean, is it like a routine?
07-07 19:55 #flow_kettle Made a Homey Flow that turns the kettle plug on when my phone alarm goes off after a night shift.
07-08 09:30 Is there a way to get the Homey to tell me if a window is open when it starts raining?
07-09 17:10 #sensor_drop_2 The bedroom window sensor went unavailable overnight, same as the back door did in June.
07-09 17:35 #zigbee_ok_2 Battery out, reset till blue, pairing mode, sensor right next to the Homey: that worked again, took two minutes.
07-10 13:25 Should I move the Homey somewhere more central? It's still behind the TV.
07-11 08:05 #homey_moved Moved the Homey onto the shelf in the hallway, it's much more central now.
07-12 16:00 Biscuit had his second vaccinations today, the vet says he's healthy and very loud.
07-14 09:45 How do I stop the Hue bulbs turning on at full brightness after a power cut?
07-15 08:40 #power_cut_1 There was a power cut at 3am while I was on nights, came home this morning and every light in the flat was blazing at 100% and the hallway ones didn't respond at all.
07-15 15:20 #power_steps What we do after a power cut: turn the Homey off at the wall, wait thirty seconds, turn it on, give the Zigbee mesh five minutes to rebuild, then run the Restore scene that puts every bulb back to its last level.
07-15 15:45 #power_ok_1 Did the restart and the Restore scene, that worked, everything is back to normal brightness.
07-16 11:05 Hue has a "power-on behaviour" setting per bulb, where is it in the app?
07-18 10:40 #no_coffee I don't drink coffee at all, it's tea all the way, so the morning routine should boil the kettle, not the coffee machine. The coffee machine is Tom's.
07-19 20:10 We're thinking about moving down south, Tom got a job offer in Bristol.
07-20 18:45 What questions should I ask about broadband when viewing a flat?
07-22 22:30 #cable_fail_2 We put the spiral wrap on the lamp cables, but it didn't work either, Biscuit just chewed through the wrap.
07-24 09:15 #bday My birthday is August 19th, Tom has been hinting about a present and I suspect it's a robot hoover.
07-25 14:50 How long does a Hue bulb last if it's on most of the night?
07-26 13:30 #camera_bought Bought an indoor camera for the lounge so we can check on Biscuit while we're both at work.
07-27 10:00 #camera_eufy Camera is a Eufy indoor cam, 2K, it records to its own SD card, no subscription.
07-28 17:25 #privacy I don't want the camera recording when either of us is home. It only needs to be on when the flat is empty.
07-29 08:40 Can the Homey tell when both phones have left the house?
07-30 19:15 #bristol_decided Decided. We're moving to Bristol, Tom accepted the job. Eek.
07-31 21:05 I need a list of everything smart in this flat so we know what to take and what belongs to the landlord.
08-01 11:20 #lease_end Our lease on the Headingley flat ends on August 31, the landlord wants us out by then.
08-02 09:35 #landlord_thermostat The Nest thermostat belongs to the landlord so it stays in Leeds.
08-03 16:10 Is there a guide for factory resetting Hue bulbs before a move?
08-04 12:45 #storage Between August 31 and moving into the Bristol flat we'll stay with Tom's parents in Stroud for a couple of weeks.
08-05 20:20 #bristol_flat Found a flat in Bristol! Two bedrooms in Bishopston, with a tiny garden for Biscuit.
08-06 09:00 Will my Homey Pro work fine in a different house or does it need a full reset?
08-07 18:30 Biscuit is six months old today. Celebrated with a carrot.
08-08 13:15 What's the best way to pack smart bulbs so they don't break?
08-09 10:05 #sensor_drop_3 The front door sensor dropped off and this time the whole pairing thing with the battery and reset button is still broken, the LED doesn't even blink.
08-09 18:40 #sensor_battery Turns out the front door sensor's battery was completely dead, a new CR1632 sorted it.
08-10 11:30 Should I buy spare CR1632 batteries in bulk? How long do they last in Aqara sensors?
08-11 15:55 #chew_toy_ok Moved the cables behind the bookcase and left his rope toy by the sofa every evening, and that worked, three weeks without a chewed cable.
08-12 09:20 Can you keep a packing list for the gadgets? Hub, 12 bulbs, 2 Hue Go, 6 Aqara sensors, camera, the smart plug.
08-13 21:45 The Hue Go lamps are going in the car, not the van. Too precious.
08-14 10:10 What do I need to tell Virgin Media when we move? Can we take the contract with us?
08-15 13:35 #virgin_no Virgin Media doesn't cover the Bishopston street, so we'll have to cancel and find someone else.
08-16 18:00 Should I set the Homey to do anything while the flat is empty for two weeks?
08-17 12:20 Looking at full fibre in Bristol. Who is good there?
08-19 09:00 #bday_gift It's my birthday and Tom got me a Roborock S8 robot vacuum! Biscuit hates it already.
08-19 14:30 Can the Roborock talk to the Homey? I want it to run when we both leave.
08-20 19:50 Biscuit barked at the Roborock for twenty minutes. I think they'll be enemies forever.
08-22 10:15 #roborock_rule Set the Roborock to only run when nobody is home and never at night, Biscuit can't cope.
08-24 16:40 Packing is chaos. Tom has labelled a box "misc cables" and it has forty cables in it.
08-26 11:25 Where do I even start with resetting the Homey for a new address?
08-28 20:05 Last night in Headingley. Weirdly emotional about a flat.
08-31 12:30 Keys handed back. Off to Stroud with a car full of bulbs and a beagle.
09-02 09:45 #stroud At Tom's parents in Stroud, all our stuff is in storage and the Homey is in a box.
09-04 15:20 #alexa Tom's mum has Alexa everywhere. I forgot how much I hate saying "Alexa".
09-06 11:00 Can you help me plan the order to set things up in the new flat? Hub first?
09-08 08:50 #zen_ordered Ordered Zen Full Fibre 900 for the Bristol flat, install booked for September 15.
09-10 17:35 Do I need a mesh system for a two bedroom flat or is the Zen router enough?
09-12 10:00 #moved_in We moved into the Bristol flat on September 12! Bishopston, Bristol, new home.
09-12 19:40 Everything is in boxes but the kettle works and Biscuit has found the garden.
09-13 13:10 Homey is plugged in at the new place and it found all the Hue bulbs, which feels like magic.
09-14 20:25 Two of the Aqara sensors didn't come back after the move, the kitchen door and the bedroom window.
09-15 12:30 #zen_live Zen came on September 15 as planned, 900 down, and the router is in the lounge this time.
09-16 08:10 #bristol_job I've started at the Bristol Children's Hospital, still paediatrics.
09-16 20:45 #days_only New job is days only, 7:30 to 8pm, three long days a week. No more nights!
09-17 21:00 #sensor_drop_4 The kitchen door sensor is still offline, so I tried the usual re-pair and that worked, it's back.
09-18 07:30 Can you get rid of the blinds rule? I don't sleep in the day any more.
09-19 18:55 #blinds_new Now I want the bedroom blinds to open at 6:45 on work days and 8:30 on days off.
09-20 14:10 The bedroom window sensor is the last one still offline.
09-21 10:20 #sensor_window_fail Tried the battery, the reset button and pairing right by the hub on the bedroom window sensor, still broken, I think it's dead.
09-22 16:40 Ordered a replacement Aqara window sensor. Eleven pounds, fine.
09-24 19:05 #bin_raid Biscuit has learned to open the kitchen bin. Genuinely impressed.
09-25 11:45 #bin_sensor Put a spare door sensor on the kitchen bin lid so we get a ping when Biscuit raids it.
09-27 09:30 The Bristol flat has a gas boiler with an old dial thermostat. What smart thermostat works without rewiring?
09-28 15:15 #tado_no Landlord said no to a smart thermostat, so the dial stays. Annoying.
09-30 20:30 How do I measure the temperature in each room without a smart thermostat?
10-01 10:05 #temp_sensors Put three Aqara temperature sensors in the bedroom, lounge and the spare room.
10-02 18:20 #spare_room_cold The spare room is 16 degrees. That explains why nobody wants to sit in there.
10-03 12:00 #amara_visit Amara is coming to stay from October 3 to October 10, she'll be in the spare room.
10-03 21:10 Amara wants to control the lights from her phone while she's here. Guest access?
10-05 17:30 Amara says the Homey app is nicer than hers, she uses Home Assistant.
10-06 13:45 #ha_curious Amara showed me her Home Assistant dashboards and I'm jealous. The Homey can't do half of that.
10-07 22:15 Is it possible to move from Homey to Home Assistant without re-pairing every Zigbee device?
10-08 19:00 #power_cut_2 Another power cut in the new flat, short one this time. Did the Homey restart and Restore scene but no luck, half the bulbs came back at full brightness.
10-09 10:30 #power_bulb_setting Set every bulb's power-on behaviour to "last state" in the Hue app so power cuts matter less.
10-10 16:20 Amara went home. The spare room is back to being a storage room.
10-12 11:10 #ha_green_bought Bought a Home Assistant Green and a SkyConnect dongle. Amara is coaching me.
10-14 20:00 #ha_green_live Moved everything from the Homey to the Home Assistant Green this weekend, it's now the only hub we use.
10-15 09:25 #homey_sell Going to sell the Homey Pro on eBay, it's in good nick.
10-16 18:35 How do I back up Home Assistant? I don't want to lose all this work.
10-17 08:15 #ha_backup Set up automatic nightly backups of Home Assistant to Google Drive.
10-18 14:40 What's ZHA versus Zigbee2MQTT and which one should a normal person use?
10-19 12:00 #zha Going with ZHA for now, Amara says Zigbee2MQTT can wait until I'm braver.
10-20 21:30 #sensor_drop_5 The hallway motion sensor dropped off the new Home Assistant network, did the battery and reset routine and held it next to the dongle: that worked.
10-22 10:50 Can Home Assistant show me the battery level of every sensor on one card?
10-23 17:05 #battery_card Made a dashboard card with all the sensor batteries. The bin sensor is already at 40%.
10-24 09:40 Biscuit is ten months old and finally sleeps through the night.
10-25 19:25 #biscuit_bed Biscuit doesn't sleep in the crate any more, he's on the rug at the foot of our bed.
10-26 11:30 Can the hallway night light be brighter now? Biscuit isn't in the hallway.
10-27 20:15 #cool_evening Tried a cool daylight scene in the evening for working on my laptop and honestly I liked it.
10-28 08:00 Back to warm light tonight though, the daylight one gave me a headache by ten.
10-29 16:45 Is there a way to get Home Assistant to warn me before the bin sensor battery dies?
10-30 13:30 #doorbell I want a video doorbell, the postman never knocks loud enough and Biscuit loses his mind anyway.
10-31 18:50 #doorbell_local Any doorbell that works locally with Home Assistant and doesn't need a subscription?
11-01 10:20 #reolink_doorbell Ordered a Reolink PoE doorbell, Tom is going to run the cable through the porch.
11-02 15:05 #matter_pref From now on I want to buy Matter devices where I can, so I'm never stuck with one app again.
11-03 20:40 Why does my Hue bridge show up twice in Home Assistant?
11-04 09:10 #doorbell_live The doorbell is up and the chime plays through the kitchen speaker.
11-05 22:00 #fireworks Bonfire night next week, Biscuit is terrified of fireworks, can we make the house calm?
11-06 17:15 #calm_scene Made a calm scene: warm dim lights, the telly on, blinds closed. For firework nights.
11-07 12:30 The camera spotted Biscuit sleeping on the sofa, which he is not allowed on. Caught.
11-08 19:45 #power_cut_3 Third power cut, storm this time. Restarted the HA Green, waited for the mesh and ran Restore, that worked, and the "last state" setting helped too.
11-09 10:55 What's a UPS and should I get one for the Home Assistant Green and the router?
11-10 14:25 #ups Bought a small APC UPS for the router and the HA Green, no more power cut drama hopefully.
11-11 21:05 #smart_lock Would love a smart lock for the front door, but the landlord will probably say no again.
11-12 08:35 Morning routine is perfect now: blinds at 6:45, kettle on, hallway light at 30%.
11-13 18:10 Can Home Assistant tell me how much the heating costs per day?
11-14 20:50 #energy_meter Added the smart meter's consumer access device to HA, now I can see the gas and electric every half hour.
11-15 11:40 Biscuit chewed the Roborock's side brush. The war continues.
11-16 16:30 #christmas_lights I want the Christmas tree lights on a smart plug that comes on at sunset and goes off at 11pm.
11-17 09:20 Is there a way to see which automations fired today? Something turned the lounge lamp off.
11-18 19:35 #lamp_mystery Found it, the Roborock rule was turning off the brass lamp plug. Fixed.
11-19 12:15 #xmas_leeds We're going back up to Leeds for Christmas, December 23 to December 28, staying with friends.
11-20 21:00 #jarvis Tom wants to name the Home Assistant "Jarvis". I have vetoed this.
""")

FACTS = parse_facts("""
# key | type | text | source episode labels | key words (_ joins one) [| flags]
name | identity | Her name is Maya | intro | Maya
city_leeds | identity | Lives in a flat in Headingley, Leeds | intro | Headingley Leeds
city_bristol | identity | Lives in Bishopston, Bristol | moved_in | Bishopston Bristol | supersedes=city_leeds valid_from=2026-09-12
hub_st | world | Her smart home hub is a SmartThings v3 hub | hub_st | SmartThings hub
hub_homey | world | Her smart home hub is a Homey Pro | homey_setup | Homey_Pro | supersedes=hub_st
hub_ha | world | Her smart home hub is a Home Assistant Green | ha_green_live | Home_Assistant Green hub | supersedes=hub_homey
job_leeds | identity | Works as a paediatric nurse at Leeds General | nurse | paediatric nurse Leeds_General
job_bristol | identity | Works as a paediatric nurse at the Bristol Children's Hospital | bristol_job | paediatric Bristol_Children's_Hospital | supersedes=job_leeds
shifts_nights | constraint | Works nights, 8pm to 8am, four on and four off | nights | nights 8pm 8am
shifts_rotating | constraint | Works a rotating rota of two days, two nights, then four off | rotating | rotating two_days two_nights | supersedes=shifts_nights valid_from=2026-07-01
shifts_days | constraint | Works days only: three long days a week, 7:30 to 8pm | days_only | days three long_days 7:30 | supersedes=shifts_rotating
blinds_day | constraint | The bedroom blinds stay shut until 3pm so she can sleep after nights | blackout_blinds | bedroom blinds shut 3pm
blinds_morning | preference | Bedroom blinds open at 6:45 on work days and 8:30 on days off | blinds_new | blinds 6:45 8:30 | supersedes=blinds_day
dog | world | Has a beagle called Biscuit who chews cables | biscuit biscuit_cables | beagle Biscuit cable
partner | identity | Her partner Tom works from home most days | tom | Tom works home
hue | world | Has twelve Philips Hue bulbs and two Hue Go lamps | hue_bulbs | twelve Hue Hue_Go
warm_light | preference | Wants only warm white light (about 2700K) in the evenings | warm_evening | warm white 2700K evenings
aqara | world | Has four Aqara door sensors and two Aqara motion sensors on Zigbee | aqara | four Aqara door motion Zigbee
brass_lamp | constraint | The lounge smart plug runs gran's brass floor lamp; never switch it off at night | plug_lounge | smart_plug brass floor_lamp gran
cat | world | Has a cat called Pepper | cat_wrong | cat Pepper | retracted_in=pepper_gone
isp_virgin | world | Broadband is Virgin Media 350 Mb, router in the hallway cupboard | broadband_virgin | Virgin_Media 350 router
isp_zen | world | Broadband is Zen Full Fibre 900, router in the lounge | zen_ordered zen_live | Zen Full_Fibre 900 router | supersedes=isp_virgin valid_from=2026-09-15
sister | identity | Her sister Amara lives in Manchester and got her into smart homes | amara | Amara Manchester
crate | world | Biscuit sleeps in his crate in the hallway, so hallway light at night must be dim | biscuit_crate | Biscuit crate hallway dim
leak | preference | Wants a leak sensor under the fridge after the ice maker leaked | fridge_alarm | leak sensor fridge ice_maker
diet | world | Is not vegan; she eats everything | vegan_no | vegan everything
tea | preference | Drinks tea, never coffee; the coffee machine is Tom's | no_coffee | tea coffee Tom
kettle_flow | world | A Flow turns the kettle plug on when her phone alarm goes off after nights | flow_kettle | Flow kettle alarm
birthday | identity | Her birthday is August 19 | bday | birthday August 19
camera | world | Has a Eufy 2K indoor camera in the lounge recording to an SD card | camera_bought camera_eufy | Eufy indoor camera SD
camera_privacy | constraint | The camera must only record when the flat is empty, never when either of them is home | privacy | camera only flat empty home
lease | world | The lease on the Headingley flat ends on August 31 | lease_end | lease Headingley August_31 | valid_to=2026-08-31
thermostat_landlord | world | The Nest thermostat in Leeds belongs to the landlord and stays behind | landlord_thermostat | Nest thermostat landlord
roborock | world | Has a Roborock S8 robot vacuum, a birthday present from Tom | bday_gift | Roborock S8 robot vacuum birthday Tom
roborock_rule | constraint | The Roborock only runs when nobody is home and never at night | roborock_rule | Roborock nobody home night
battery_type | world | The Aqara door sensors take CR1632 batteries | sensor_battery | CR1632 door_sensor
thermostat_no | constraint | The Bristol landlord refused a smart thermostat; the dial thermostat stays | tado_no | landlord smart thermostat dial
temp_sensors | world | Has Aqara temperature sensors in the bedroom, lounge and spare room | temp_sensors | Aqara temperature sensors bedroom lounge spare_room
amara_visit | world | Amara stays in the spare room from October 3 to October 10 | amara_visit | Amara spare_room | valid_from=2026-10-03 valid_to=2026-10-10
backup | world | Home Assistant backs up nightly to Google Drive | ha_backup | nightly Google_Drive Home_Assistant
zha | preference | Uses ZHA rather than Zigbee2MQTT for now | zha | ZHA Zigbee2MQTT
doorbell | world | Has a Reolink PoE video doorbell whose chime plays through the kitchen speaker | reolink_doorbell doorbell_live | Reolink doorbell chime kitchen speaker
matter | preference | Prefers to buy Matter devices so she is never tied to one app | matter_pref | Matter devices app
fireworks | constraint | Biscuit is terrified of fireworks; use the calm scene on firework nights | fireworks calm_scene | Biscuit fireworks calm scene
ups | world | A small APC UPS powers the router and the Home Assistant Green | ups | APC UPS router
energy | world | The smart meter's consumer access device feeds gas and electric usage into Home Assistant | energy_meter | smart_meter consumer_access_device gas electric
xmas | world | Back in Leeds for Christmas from December 23 to December 28, staying with friends | xmas_leeds | Leeds Christmas friends | valid_from=2026-12-23 valid_to=2026-12-28
bin_sensor | world | A spare door sensor on the kitchen bin lid pings when Biscuit raids it | bin_sensor | sensor kitchen bin Biscuit
# waiting in review: candidates (never in agent recall until an operator accepts them)
c_stroud | world | Stayed with Tom's parents in Stroud between Leeds and Bristol | storage stroud | Tom's parents Stroud | candidate
c_homey_sell | world | Plans to sell the Homey Pro on eBay | homey_sell | Homey eBay | candidate
c_doorbell_pref | preference | Wants doorbells that work locally without a subscription | doorbell_local | doorbell | candidate
c_smart_lock | preference | Would like a smart lock for the front door | smart_lock | smart_lock front_door | candidate
c_xmas_plug | preference | Wants the Christmas tree lights on a smart plug from sunset to 11pm | christmas_lights | Christmas tree smart_plug sunset 11pm | candidate
c_battery_card | world | A Home Assistant dashboard card shows every sensor battery | battery_card | card sensor | candidate
c_garden | world | The Bristol flat has a tiny garden for Biscuit | bristol_flat | garden Biscuit | candidate
c_ha_curious | preference | Is jealous of Amara's Home Assistant dashboards | ha_curious | Amara Home_Assistant dashboards | candidate
c_camera_name | world | The indoor camera is used to check on Biscuit while they are both at work | camera_bought | camera Biscuit work | candidate
c_lamp_mystery | world | A Roborock rule was turning off the brass lamp plug | lamp_mystery | Roborock brass lamp plug | candidate
# proposed contradictions: would replace the active fact named in `supersedes`
p_cool_light | preference | Prefers cool daylight light in the evenings | cool_evening | cool daylight evening | candidate supersedes=warm_light
p_biscuit_bed | world | Biscuit sleeps on the rug at the foot of their bed, not in the hallway crate | biscuit_bed | Biscuit rug bed crate | candidate supersedes=crate
""")

PLAYBOOKS = (
    playbook("zigbee_repair", "Re-pair a dropped Zigbee sensor",
             "an Aqara door, window or motion sensor shows as unavailable",
             ["Pull the battery out for ten seconds and put it back",
              "Hold the reset button until the LED blinks blue",
              "Put the hub in pairing mode",
              "Keep the sensor within two metres of the hub until it reports"],
             "zigbee_steps",
             "zigbee_ok_1 zigbee_ok_2 sensor_drop_3 sensor_drop_4 sensor_window_fail sensor_drop_5"),
    playbook("power_cut", "Bring the lights back after a power cut",
             "bulbs come back at full brightness or stop responding after an outage",
             ["Switch the hub off at the wall and wait thirty seconds",
              "Switch it back on and give the Zigbee mesh five minutes to rebuild",
              "Run the Restore scene to put every bulb back to its last level"],
             "power_steps", "power_ok_1 power_cut_2 power_cut_3"),
    playbook("puppy_cables", "Keep Biscuit off the cables",
             "the puppy has chewed, or is going for, a cable at floor level",
             ["Put spiral cable wrap on every cable at floor level",
              "Spray the wrap with bitter apple spray",
              "Route the rest of the cables behind the bookcase",
              "Leave his rope toy by the sofa every evening as a decoy"],
             "cable_wrap_plan", "cable_wrap_fail cable_fail_2 chew_toy_ok"),
)

QUESTIONS = (
    ("fact:city_bristol", "Which Bristol neighbourhood is her home these days?",
     "Where did she end up settling after the move to Bristol?"),
    ("fact:hub_ha", "Which hub runs all her gadgets right now?",
     "What replaced the Homey as the hub for her automations?"),
    ("fact:job_bristol", "Which hospital employs her since she left Leeds?",
     "Which children's ward does she currently work for?"),
    ("fact:shifts_days", "What does her work schedule look like at the moment?",
     "Does she still do overnight rotas, or is it daytime work now?"),
    ("fact:blinds_morning", "At what time should the bedroom shades go up in the morning?",
     "When do the window coverings rise on a weekday versus a day off?"),
    ("fact:dog", "What breed of pet does she have, and what does it damage?",
     "Which pet keeps gnawing through the cables in her home?"),
    ("fact:partner", "Who is usually at home during office hours?",
     "Which member of the household is based at home for his job?"),
    ("fact:warm_light", "What colour temperature does she want after dark?",
     "Which light colour in the evening helps her sleep?"),
    ("fact:aqara", "How many contact and presence detectors does she own?",
     "Which brand of Zigbee sensors is installed around the place?"),
    ("fact:brass_lamp", "Which light must never be cut off overnight?",
     "What heirloom lamp is connected to the outlet in the living room?"),
    ("fact:isp_zen", "Who provides her internet connection now?",
     "What fibre package did she sign up for at the new address?"),
    ("fact:sister", "Which relative introduced her to home automation?",
     "Where does her sibling live?"),
    ("fact:tea", "What hot drink should the morning routine make for her?",
     "Whose is the espresso maker, and what does she prefer instead?"),
    ("fact:birthday", "When does she celebrate turning a year older?",
     "Which date in late summer is special for her?"),
    ("fact:camera_privacy", "Under which conditions may the lounge recorder capture footage?",
     "Is it okay to film while they're in the flat?"),
    ("fact:roborock", "What cleaning gadget did she receive as a gift?",
     "Which automatic hoover do they own?"),
    ("fact:roborock_rule", "When is the floor-cleaning robot allowed to run?",
     "Should the vacuum ever clean at night or with people in?"),
    ("fact:battery_type", "Which coin cells do her door contacts need?",
     "What should she buy to replace a dead cell in a door contact?"),
    ("fact:thermostat_no", "Is she allowed to install a connected thermostat in the rented flat?",
     "Why is there still an old-fashioned boiler dial?"),
    ("fact:temp_sensors", "Which rooms have climate monitors?",
     "How does she track how warm each room is?"),
    ("fact:backup", "Where do her Home Assistant snapshots go?",
     "How often is the home server's configuration saved, and to what cloud?"),
    ("fact:zha", "Did she go with ZHA or the MQTT option?",
     "Is she running the Zigbee2MQTT bridge or the built-in option?"),
    ("fact:doorbell", "What does the visitor at the porch press, and where does it ring?",
     "Which video bell was installed at the porch?"),
    ("fact:matter", "Which interoperability standard does she want in new devices?",
     "Which interoperability label does she look for when shopping for gear?"),
    ("fact:fireworks", "How should the house respond on bonfire night?",
     "What frightens the beagle on bonfire night, and what soothes him?"),
    ("fact:ups", "What keeps the router and the hub alive during power cuts?",
     "Which UPS battery backup did she install?"),
    ("fact:energy", "How can she see half-hourly gas and electricity consumption?",
     "What links the household meter to her dashboards?"),
    ("fact:xmas", "Where will they be over the festive break?",
     "What are her plans for the end of December?"),
    ("fact:bin_sensor", "How do they find out the pup has raided the rubbish?",
     "What alert is fitted to the kitchen waste container?"),
    ("fact:amara_visit", "When was her sister staying over in October?",
     "Who slept in the spare bedroom in early October?"),
    ("pb:zigbee_repair", "A contact sensor says it's offline, how do I get it back?",
     "What's the routine for reconnecting an unreachable Zigbee detector?"),
    ("pb:power_cut", "The electricity went off and every bulb is blazing, what now?",
     "How do we recover the lights after an outage?"),
    ("pb:puppy_cables", "How do we stop the dog from gnawing wires?",
     "What's the plan to puppy-proof the leads on the floor?"),
    ("ep:hub_st", "What hub ran her lights before she bought anything new?",
     "Where was the original controller hidden?"),
    ("ep:homey_curious", "When did she first consider swapping SmartThings for something else?",
     "What device was she reading reviews about in June?"),
    ("ep:power_cut_1", "What happened when she got home after the 3am outage?",
     "Which night shift ended with every bulb at maximum after an outage?"),
    ("ep:cable_wrap_fail", "What went wrong with the deterrent spray?",
     "Which TV lead got damaged by the puppy?"),
    ("ep:bristol_decided", "When did they commit to relocating?",
     "What was the moment they said yes to the new job down south?"),
    ("ep:virgin_no", "Why couldn't they keep their Virgin contract after the move?",
     "Which broadband provider doesn't serve their new street?"),
    ("ep:bday_gift", "What present from Tom arrived on her birthday?",
     "How did the beagle react to the robot hoover from Tom?"),
    ("ep:stroud", "Where did they stay with Tom's family in early September?",
     "Where was the Homey while they were between homes?"),
    ("ep:ha_curious", "What made her jealous of Amara's setup?",
     "Why did she start looking beyond the Homey?"),
    ("ep:homey_sell", "What is the plan for the Homey now that it's retired?",
     "Where is she selling her previous controller?"),
    ("ep:cool_evening", "Did she ever try bluish lighting for laptop work?",
     "What happened when she experimented with a daylight scene?"),
    ("ep:lamp_mystery", "What was switching off the brass heirloom light?",
     "Why did the living room lamp keep going dark?"),
    ("ep:reolink_doorbell", "Which bell did she order and who is wiring it?",
     "Who is running the ethernet through the porch?"),
    ("ep:spare_room_cold", "How chilly is the spare room?",
     "Why does everyone avoid sitting in the third room?"),
    ("ep:alexa", "What voice assistant does Tom's mother use everywhere?",
     "Which wake word does she dislike saying?"),
    ("ep:jarvis", "What did Tom want to call the controller?",
     "Which nickname for the home server did she veto?"),
    ("ep:bin_raid", "What new trick did the beagle learn in September?",
     "What can the pup open in the kitchen now?"),
)

PERSONA = PersonaSpec(
    user_id="maya-smart-home", slug="maya", name="Maya Okafor",
    summary="Paediatric nurse; smart-home tinkerer; beagle puppy Biscuit; moves Leeds → Bristol.",
    episodes=EPISODES, facts=FACTS, playbooks=PLAYBOOKS, questions=QUESTIONS)
