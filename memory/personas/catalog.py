"""The shared catalog: product and help documents with no owner, which every persona's recall can mix in.

Rows are (slug, title, space-separated tags, text). Topics follow what the personas ask about.
"""

from __future__ import annotations

CATALOG_DOCS: list[tuple[str, str, str, str]] = [
    # smart home -----------------------------------------------------------------------------
    ("zigbee_rejoin", "Reconnecting a Zigbee sensor that shows as unavailable", "smart-home zigbee sensors",
     ("Battery sensors drop off a Zigbee network when their parent router disappears or the battery "
     "sags. Re-seat the battery, press the pairing button until the LED flashes, and pair close to "
     "the coordinator. Add mains-powered routers such as smart plugs to strengthen the mesh.")),
    ("zigbee_mesh", "How a Zigbee mesh works: coordinators, routers and end devices", "smart-home zigbee",
     ("The coordinator is your hub or dongle. Mains-powered devices (bulbs, plugs) act as routers and "
     "relay traffic; battery devices are end devices that sleep. After moving house, give the mesh "
     "a few minutes to rebuild before re-pairing anything.")),
    ("hue_power_on", "Hue bulbs: choosing power-on behaviour after an outage", "smart-home hue lighting",
     ("In the Hue app, open a light's settings and pick Power-on behaviour: Hue default (bright warm "
     "white), Last on state, or Custom. Last on state stops every bulb returning at full brightness "
     "after a power cut. Requires a recent firmware.")),
    ("hue_reset", "Factory-resetting Philips Hue bulbs before moving", "smart-home hue",
     ("Remove bulbs from the Bridge in the app before you move, or reset them with a Hue dimmer switch "
     "by holding the on and off buttons close to the bulb for ten seconds. Pack bulbs in their "
     "original boxes or wrap them individually.")),
    ("homey_pro", "Homey Pro overview: Zigbee, Z-Wave, Matter and Flows", "smart-home homey hub",
     ("Homey Pro includes Zigbee, Z-Wave, Thread, infrared and 433 MHz radios, so no USB sticks are "
     "needed. Automations are called Flows: when this happens, and if these conditions hold, then do "
     "that. Moving to a new address keeps your devices paired.")),
    ("ha_green", "Home Assistant Green: getting started", "smart-home home-assistant hub",
     ("Home Assistant Green is a ready-made box running Home Assistant OS. Plug in power and ethernet, "
     "open homeassistant.local:8123, and add a Zigbee dongle such as SkyConnect for ZHA. Migrating "
     "from another hub usually means re-pairing Zigbee devices.")),
    ("ha_backups", "Backing up Home Assistant automatically", "smart-home home-assistant backup",
     ("Settings, System, Backups creates full snapshots of configuration and add-ons. Schedule them "
     "nightly and store a copy off the device, for example with the Google Drive backup add-on, so a "
     "dead SD card or SSD never costs you your automations.")),
    ("zha_vs_z2m", "ZHA or Zigbee2MQTT?", "smart-home home-assistant zigbee",
     ("ZHA is built into Home Assistant and needs no extra services: the easiest start. Zigbee2MQTT "
     "runs separately with an MQTT broker and supports more exotic devices and finer options. You can "
     "switch later, at the cost of re-pairing.")),
    ("matter_buying", "Buying smart home devices that support Matter", "smart-home matter",
     ("Matter is a shared standard: a certified device works with Apple Home, Google Home, Alexa, "
     "SmartThings and Home Assistant. Look for the Matter logo and check whether it runs over Wi-Fi "
     "or Thread. You are not tied to one vendor's app.")),
    ("aqara_batteries", "Aqara sensor batteries: types and lifetime", "smart-home aqara batteries",
     ("Aqara door and window sensors use a CR1632 coin cell; motion sensors use CR2450. Expect one to "
     "two years. A sensor that will not re-pair and shows no LED usually has a flat cell. Buy from a "
     "reputable brand; cheap cells sag early.")),
    ("pet_cables", "Pet-proofing cables", "smart-home pets",
     ("Puppies chew cables at floor level. Use split loom or spiral wrap, run cables behind heavy "
     "furniture, and mount power strips off the floor. Bitter sprays help some dogs but not all. Give "
     "chew toys as an alternative and supervise young dogs near electronics.")),
    ("pet_cameras", "Indoor cameras and privacy at home", "smart-home cameras privacy",
     ("Use presence detection so indoor cameras record only when everyone is out. Prefer local "
     "storage on an SD card or NVR to cloud plans, and disable audio if you do not need it. Tell "
     "guests and cleaners where cameras are.")),
    ("robot_vacuum", "Scheduling a robot vacuum around pets and people", "smart-home vacuum",
     ("Run the vacuum when the house is empty by linking it to presence in your hub, avoid night runs, "
     "and set no-go zones around water bowls and cables. Some dogs fear robot vacuums; start with short "
     "runs while someone is home.")),
    ("leak_sensors", "Water leak sensors under appliances", "smart-home leak",
     ("Place a leak sensor under the fridge, dishwasher and washing machine. An ice maker line is a "
     "common source of slow leaks. Link the alarm to a phone notification and, if you have one, a "
     "smart water valve.")),
    ("ups_home", "A small UPS for the router and smart home hub", "smart-home power ups",
     ("A 600 VA UPS keeps a router and a low-power hub running for an hour or more during a power "
     "cut, so automations and the Zigbee coordinator never reboot mid-storm. Replace the battery every "
     "three to five years.")),
    ("smart_meter_cad", "Reading your smart meter in real time", "smart-home energy",
     ("A consumer access device (CAD) pairs with your smart meter and publishes electricity and gas "
     "readings every few seconds or half hour. Integrations for Home Assistant show daily costs and "
     "usage per appliance group.")),
    ("smart_thermostat_rental", "Smart thermostats in rented homes", "smart-home heating renting",
     ("Ask your landlord before replacing a wired thermostat. Battery room sensors and smart radiator "
     "valves need no rewiring and can be removed when you leave. Temperature sensors in each room "
     "show where heat goes first.")),
    ("video_doorbell", "Choosing a video doorbell that works locally", "smart-home doorbell",
     ("PoE doorbells take power and data over one ethernet cable and need no subscription. Check "
     "support for RTSP or ONVIF so Home Assistant can show the feed, and play the chime through an "
     "existing speaker.")),
    ("moving_smart_home", "Moving house with a smart home", "smart-home moving",
     ("List what belongs to you and what stays with the landlord. Set up the hub first at the new "
     "address, then the lights, then sensors. Check broadband availability for the new street before "
     "signing a contract.")),
    # developer --------------------------------------------------------------------------------
    ("flaky_ci_db", "Flaky CI: database service containers that start slowly", "dev ci postgres",
     ("When integration tests time out at the database step, the service container is often not "
     "ready. Add a health check with retries to the service definition and rerun failed jobs only. "
     "Raising test timeouts hides real deadlocks.")),
    ("disk_full_runbook", "Runbook: disk full on a Linux host", "dev ops on-call",
     ("Find the volume with df -h and the big directories with du. Remove unused container images "
     "(docker system prune), rotate or truncate logs, and configure logrotate so it does not recur. "
     "Grow the volume if the data is legitimate.")),
    ("lazy_restore", "lazy.nvim: restoring plugins from the lockfile", "dev neovim editor",
     ("lazy-lock.json records each plugin's commit. :Lazy restore returns every plugin to those "
     "commits after a bad update. Clear ~/.local/share/nvim/lazy if a plugin is corrupted, then "
     "update one plugin at a time and pin the culprit.")),
    ("lazyvim", "LazyVim: a Neovim starter configuration", "dev neovim editor",
     ("LazyVim bundles sensible defaults, LSP, treesitter and a plugin manager. Extras add language "
     "support. Use it as a base and override options in lua/config; run :LazyHealth when something "
     "misbehaves.")),
    ("zed_editor", "Zed editor: vim mode and settings sync", "dev zed editor",
     ("Zed is a fast native editor with built-in collaboration. Enable vim_mode in settings.json. "
     "Settings live in ~/.config/zed and can be kept in your dotfiles repository to share between "
     "macOS and Linux.")),
    ("chezmoi", "Managing dotfiles with chezmoi", "dev dotfiles",
     ("chezmoi keeps dotfiles in a git repository and applies them to each machine. Templates vary "
     "files per host, for example a different git email on work laptops. Secrets can come from a "
     "password manager.")),
    ("wezterm_fonts", "WezTerm: fonts, italics and Lua configuration", "dev terminal",
     ("WezTerm is configured in ~/.wezterm.lua. font_rules pick a different font for italic or bold "
     "text. Colour schemes such as Gruvbox are built in: config.color_scheme = 'GruvboxDark'.")),
    ("fish_shell", "fish shell basics", "dev shell",
     ("fish offers autosuggestions and syntax highlighting without plugins. Functions live in "
     "~/.config/fish/functions. It is not POSIX compatible, so scripts should keep a bash shebang.")),
    ("go_errors", "Go: wrapping errors with context", "dev go",
     ("Wrap with fmt.Errorf(\"loading config: %w\", err) and test with errors.Is or errors.As. Add "
     "context once per layer; do not log and return the same error.")),
    ("go_context", "Go: contexts, deadlines and cancellation", "dev go",
     ("context.WithTimeout returns a context that is cancelled after the deadline. Pass it as the "
     "first argument to every call that may block, and select on ctx.Done() in goroutines so they "
     "stop when the caller gives up.")),
    ("k8s_crashloop", "Kubernetes: debugging CrashLoopBackOff", "dev kubernetes",
     ("kubectl describe pod shows events and the last exit code; kubectl logs --previous shows the "
     "crashed container's output. Common causes: bad configuration, missing secrets, failing "
     "liveness probes, out-of-memory kills.")),
    ("k8s_objects", "Deployments versus StatefulSets", "dev kubernetes",
     ("A Deployment runs interchangeable pods; a StatefulSet gives each pod a stable name and its own "
     "persistent volume, for databases and queues. Both are reconciled by controllers.")),
    ("terraform_envs", "Terraform: modules and environments", "dev terraform",
     ("Keep one module per service and call it from thin environment roots, or use workspaces with "
     "per-workspace variables. Store state remotely with locking.")),
    ("cka_exam", "Certified Kubernetes Administrator (CKA) exam", "dev kubernetes certification",
     ("The CKA is a two-hour, hands-on exam in a remote terminal covering cluster setup, workloads, "
     "networking, storage and troubleshooting. Practise with kubectl imperative commands.")),
    ("pihole", "Pi-hole: network-wide ad blocking", "dev homelab",
     ("Pi-hole runs on a Raspberry Pi and answers DNS for your network, blocking ad domains. If an app "
     "breaks, check the query log and add the domain to the allowlist.")),
    ("postgres_mac", "Running PostgreSQL locally on Apple silicon", "dev postgres macos",
     ("Postgres.app is a native macOS application with several versions side by side and low memory "
     "use. Docker Desktop works too but reserves a virtual machine's worth of RAM.")),
    ("pagerduty_notify", "PagerDuty: notification rules for on-call", "dev on-call",
     ("Under My Profile, Notification Rules, choose how and when you are contacted for high-urgency "
     "incidents: push, phone call, SMS or email, with delays between them.")),
    ("blue_card_de", "EU Blue Card in Germany: changing employer", "dev relocation germany",
     ("During the first 12 months a new job needs approval; afterwards you must notify the foreigners "
     "authority (Ausländerbehörde) of the change. Bring the new contract and a job description.")),
    ("split_keyboard", "Programming on a split keyboard", "dev keyboard",
     ("Put symbols on a layer under the home row, use thumb keys for space, backspace and layer "
     "switches, and learn gradually. ZSA's Oryx configurator flashes Moonlander layouts.")),
    # travel ------------------------------------------------------------------------------------
    ("eu261", "EU261: compensation for delays and cancellations", "travel flights rights",
     ("For flights from the EU or on EU airlines, a cancellation with less than 14 days' notice can "
     "give 250 to 600 euros, unless caused by extraordinary circumstances such as weather or air "
     "traffic control. Airlines must offer rerouting and care: meals and a hotel if needed.")),
    ("cancel_rebook", "What to do when your flight is cancelled", "travel flights",
     ("Call the airline or your status hotline rather than waiting in the app queue, ask for the "
     "earliest alternative including partner airlines, keep receipts, and claim compensation "
     "afterwards.")),
    ("mm_tiers", "Miles & More status levels", "travel loyalty lufthansa",
     ("Frequent Traveller gives business lounge access and priority check-in. Senator adds Senator "
     "lounges, fast lane, upgrade eVouchers and a status valid for the rest of the year plus the next "
     "full year. HON Circle is the top tier.")),
    ("tap_milesgo", "TAP Miles&Go", "travel loyalty tap",
     ("TAP Air Portugal's programme, a Star Alliance member: miles earned on TAP can also be credited "
     "to Miles & More. Status tiers are Silver, Gold and Gold Plus.")),
    ("allergy_flying", "Flying with a food allergy", "travel health allergy",
     ("Tell the airline when booking and again at the gate. Airlines cannot guarantee a nut-free "
     "cabin. Pre-order a special meal at least 24 to 48 hours ahead, carry safe food, keep "
     "auto-injectors in the cabin, and carry a translated allergy card.")),
    ("epipen_rules", "Carrying adrenaline auto-injectors through security", "travel health",
     ("Auto-injectors are allowed in hand luggage; carry a doctor's letter or prescription. Keep them "
     "with you, not in the hold, where temperature and delays can make them useless.")),
    ("allergy_cards", "Translated allergy cards", "travel health allergy",
     ("A card in the local language explains your allergy, cross-contamination and what to do in an "
     "emergency. Use the regional variant: European and Brazilian Portuguese differ.")),
    ("jetlag_west", "Jet lag: adjusting before you fly", "travel health jetlag",
     ("Shift sleep an hour a day towards the destination for a few days, avoid alcohol on board, seek "
     "morning light after flying west and avoid it after flying east. Low-dose melatonin at local "
     "bedtime helps. Eastbound trips are harder.")),
    ("esim_travel", "Mobile data abroad with an eSIM", "travel phone",
     ("Travel eSIMs such as Airalo sell data packages per country or region. Install before you fly "
     "and switch on arrival. Inside the EU, roaming is usually included; the UK is not in the EU.")),
    ("esta", "ESTA for travel to the United States", "travel documents usa",
     ("An ESTA is valid for two years or until your passport expires, whichever comes first. A new "
     "passport needs a new ESTA.")),
    ("passport_abroad", "Renewing a German passport while living abroad", "travel documents",
     ("Apply at the German embassy or consulate responsible for your residence. Book an appointment "
     "early, bring the old passport, a biometric photo and proof of residence.")),
    ("yellow_fever", "Yellow fever vaccination for Brazil", "travel health brazil",
     ("Recommended for many regions of Brazil. A single dose gives lifelong protection; the "
     "International Certificate of Vaccination should travel with your passport.")),
    ("pets_cabin", "Pets in the cabin", "travel pets",
     ("Lufthansa accepts cats and small dogs in the cabin up to 8 kg including the carrier, in a "
     "soft bag under the seat. Within the EU the animal needs a microchip, an EU pet passport and a "
     "valid rabies vaccination.")),
    ("portugal_move", "Moving to Portugal as an EU citizen", "travel relocation portugal",
     ("Get a NIF tax number, register your residence with the local council after three months, and "
     "register with a health centre to get an SNS number for prescriptions.")),
    ("hand_luggage", "Travelling with carry-on only", "travel luggage",
     ("Check the airline's cabin size and weight limits; regional airlines are stricter. Liquids in "
     "100 ml containers. Tools and heavy safety equipment usually have to go in the hold.")),
    ("regional_bags", "Baggage limits on regional turboprops", "travel luggage",
     ("Small aircraft on island routes have tight weight limits for checked bags, often 15 to 20 kg, "
     "and may offload bags in bad weather. Check before packing heavy equipment.")),
    ("travel_insurance", "Annual travel insurance through a credit card", "travel insurance",
     ("Many premium cards include annual travel cover for medical costs abroad and trip cancellation. "
     "Check whether pre-existing conditions such as allergies are covered and how to claim.")),
    ("lounge_access", "Airport lounge access with Star Alliance status", "travel lounges",
     ("Star Alliance Gold members (including Miles & More Senator) can use partner lounges when flying "
     "Star Alliance. Frequent Traveller is Star Alliance Silver: no lounge access on partners.")),
]
