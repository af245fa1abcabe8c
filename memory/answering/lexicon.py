"""Word lists the rule-based understander reads statements with (data only)."""

from __future__ import annotations

import re

ROLE_WORDS = frozenset(["nurse", "teacher", "engineer", "developer", "manager", "midwife", "doctor", "designer", "scientist", "analyst", "consultant", "lawyer", "solicitor", "accountant", "architect", "student", "chef", "cook", "pilot", "programmer", "researcher", "professor", "lecturer", "paramedic", "pharmacist", "dentist", "surgeon", "therapist", "writer", "journalist", "photographer", "electrician", "plumber", "carpenter", "mechanic", "technician", "administrator", "director", "officer", "assistant", "coordinator", "specialist", "founder", "ceo", "cto", "cfo", "intern", "apprentice", "cleaner", "driver", "librarian", "vet", "veterinarian", "firefighter", "soldier", "farmer", "baker", "barista", "waiter", "waitress", "cashier", "receptionist", "secretary", "translator", "interpreter", "tutor", "coach", "trainer", "physio", "physiotherapist", "counsellor", "psychologist", "psychiatrist", "carer", "caregiver", "freelancer", "contractor", "sre", "devops", "tester", "recruiter", "banker", "economist", "statistician", "mathematician", "physicist", "chemist", "biologist", "artist", "musician", "actor", "actress", "dancer", "singer", "composer", "producer", "headteacher", "principal", "radiographer", "optician", "hygienist", "sonographer", "clinician", "gp", "consultant", "lead", "engineer", "copywriter", "illustrator", "animator", "editor", "underwriter", "auditor", "actuary", "broker", "estate-agent", "landscaper", "gardener", "builder", "welder"])

RELATIONS = frozenset(["sister", "brother", "partner", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee", "mum", "mom", "mother", "dad", "father", "parents", "son", "daughter", "kids", "children", "child", "grandma", "grandmother", "grandpa", "grandfather", "gran", "nan", "aunt", "uncle", "cousin", "niece", "nephew", "boss", "manager", "lead", "colleague", "flatmate", "roommate", "housemate", "neighbour", "neighbor", "stepmother", "stepfather", "stepson", "stepdaughter", "twin", "twins", "in-laws"])
NAMED_ONLY_RELATIONS = frozenset({"friend", "colleague", "neighbour", "neighbor", "flatmate",
                                  "roommate", "housemate"})

PETS = frozenset(["dog", "puppy", "cat", "kitten", "beagle", "labrador", "whippet", "spaniel", "terrier", "poodle", "collie", "retriever", "dachshund", "greyhound", "pug", "husky", "rabbit", "bunny", "hamster", "guinea", "parrot", "budgie", "tortoise", "turtle", "snake", "lizard", "gecko", "fish", "goldfish", "horse", "pony", "ferret", "rat", "mouse", "chicken", "chickens", "hens"])

# Kinds of things people own (a possession needs one of these, a pet, or a name/model).
THINGS = frozenset(re.findall(r"\S+", """
phone smartphone laptop computer pc desktop tablet ipad kindle e-reader watch smartwatch tv
television monitor screen keyboard mouse headphones earbuds speaker speakers soundbar router
modem extender hub bridge stick dongle sensor sensors camera doorbell thermostat plug plugs bulb
bulbs lamp lamps light lights printer scanner console drone car van truck bike bicycle scooter
motorbike motorcycle moped boat caravan campervan ebike e-bike escooter e-scooter kayak
paddleboard surfboard skateboard snowboard skis house flat apartment cottage cabin garage
garden allotment desk chair sofa couch bed mattress table wardrobe fridge freezer oven cooker
hob microwave kettle toaster dishwasher washer dryer vacuum hoover robot mower heater boiler
fan purifier dehumidifier humidifier piano guitar violin cello drum drums keyboard ukulele
flute trumpet saxophone synth camera lens tripod server nas ups battery charger powerbank
watch ring necklace tent backpack suitcase case pram stroller cot treadmill rower
lock barbie bbq barbecue grill radiator
"""))

# Attributes one person has one of at a time: a new value replaces the old.
SLOT_NOUNS = frozenset(["editor", "terminal", "shell", "manager", "lead", "boss", "partner", "wife", "husband", "girlfriend", "boyfriend", "airport", "bank", "broadband", "internet", "isp", "phone", "car", "laptop", "hub", "coffee", "status", "headphones", "keyboard", "browser", "doctor", "dentist", "gp", "landlord", "employer", "address", "postcode", "band", "colour", "color", "team", "school", "university", "gym", "rota", "shift", "on-call", "standup", "name", "age", "pronouns", "diet", "tariff", "provider", "insurer", "mortgage", "router", "watch", "tablet", "console", "os", "order", "distro", "theme", "font", "religion", "nationality", "doorbell", "thermostat"])

DIETS = ("vegetarian", "vegan", "pescatarian", "gluten-free", "gluten free", "coeliac",
         "celiac", "lactose intolerant", "lactose-intolerant", "halal", "kosher", "keto",
         "dairy-free", "dairy free", "teetotal", "sober", "paleo")
# The one diet a person has at a time (how much meat, fish and dairy); the rest of DIETS are
# constraints beside it.
MEAT_DIETS = frozenset(["vegetarian", "vegan", "pescatarian"])
CONDITIONS = ("diabetes", "type 1 diabetes", "type 2 diabetes", "asthma", "epilepsy",
              "adhd", "autism", "dyslexia", "migraines", "arthritis", "high blood pressure",
              "hypertension", "coeliac disease", "celiac disease", "crohn's", "ibs",
              "a pacemaker", "hay fever", "eczema", "tinnitus", "long covid", "anaemia",
              "anemia", "a heart condition", "sleep apnoea", "sleep apnea", "hearing loss")
MARITAL = ("married", "divorced", "single", "widowed", "engaged", "separated")

# Nouns that are not possessions when someone "has" or "got" them.
NOT_THINGS = frozenset(["ticket", "tickets", "voucher", "refund", "receipt", "grade", "mark", "question", "problem", "issue", "idea", "moment", "minute", "second", "meeting", "week", "day", "deadline", "job", "plan", "lot", "flight", "trip", "headache", "cold", "break", "holiday", "party", "date", "talk", "chat", "word", "call", "feeling", "doubt", "bit", "few", "look", "go", "chance", "clue", "appointment", "sec", "quick", "good", "great", "nice", "lovely", "bad", "rough", "busy", "long", "hard", "fun", "time", "shower", "nap", "rest", "drink", "coffee", "tea", "lunch", "dinner", "breakfast", "meal", "snack", "look", "feeling", "point", "sense", "interview", "exam", "test", "cough", "fever", "baby", "feeling", "keys", "key", "results", "news"])

HEDGES = (r"\b(?:i think|i believe|maybe|perhaps|might be|probably|not sure|i guess|possibly|"
          r"pretty sure|could be|i suspect|apparently|kind of|sort of)\b")
# Actions that have not happened: nothing durable to remember yet.
# "may" the modal, never the month: "expires in May", "since May", "3 May 2027", "last May"
MAY_MODAL = (r"(?<!\bin\s)(?<!\bon\s)(?<!\bof\s)(?<!\bby\s)(?<!\bsince\s)(?<!\buntil\s)(?<!\btill\s)"
             r"(?<!\bfrom\s)(?<!\bearly\s)(?<!\blate\s)(?<!\blast\s)(?<!\bthis\s)(?<!\bnext\s)(?<!\bmid\s)"
             r"(?<!mid-)(?<!\d\s)(?<!\bto\s)(?<!\buntil\s)(?<!\bbefore\s)(?<!\bafter\s)(?<!\bduring\s)"
             r"(?<!\bend\s)may\s+(?!be\b)(?!\d)")
HYPOTHETICAL = (r"\b(?:thinking (?:about|of)|considering|might (?!be\b)\w+|" + MAY_MODAL + r"\w+|"
                r"maybe (?:i'?ll|we'?ll|i should|we should)|want to|wanna|would like to|"
                r"planning to|should (?:i|we)|if (?:i|we)|wondering|hoping to|tempted to|"
                r"could (?:i|we)|i'?d love to|we'?d love to|we should|i should|someday|"
                r"one day|at some point|i wish|we wish|if only|what if|suppose|imagine|in theory|"
                r"hypothetically|i'?d (?:like|want|rather|probably|maybe)|dreaming of|i dream of|"
                # make-believe and fiction are no facts about the user
                r"pretend(?:ing)?|let'?s say|say (?:i|we) (?:was|were|had|lived|worked)|"
                r"in (?:my|a|the) (?:novel|story|book|game|dream|script|screenplay|role-?play)|"
                r"role-?play(?:ing)?|as a joke|just kidding|jk)\b")
# The user says a stored value was never true.
HARSH_CUES = (r"\b(?:misdiagnos\w*|mistake\w*|mix-?up|mixed up|got (?:that|it) wrong|"
              r"(?:that'?s|that is|this is|it'?s) (?:wrong|not right|not true|incorrect)|"
              r"not right|incorrect|false positive|misread|misheard|typo|wrong(?:ly)?|"
              r"never (?:true|mine|ours|was|were|had|lived|owned|worked|been)|not mine|"
              r"not ours|confused|misunderstood|i never said|wasn'?t (?:mine|ours|me)|misspoke|"
              r"mis-?spoke|slip of the tongue|meant to say|i meant|"
              # "where did three come from??", "people always assume"
              r"where\s+did\s+(?:that|this|it|[\w'’-]+(?:\s+[\w'’-]+)?)\s+come\s+from|"
              r"no\s+idea\s+where\s+(?:that|this|it|[\w'’-]+(?:\s+[\w'’-]+)?)\s+came\s+from|"
              r"(?:people|everyone|everybody)\s+(?:always\s+)?assumes?|"
              # other ways to say the record was never right ("never said that",
              # "no idea where X came from", "always has been", "no no, ...")
              r"never said|never did|no idea where|not sure where (?:the idea|that|this|it)|"
              r"where did (?:you|that|this) (?:get|come)|always (?:has|have) been|always was|"
              # what is on record was said in jest ("that was a joke")
              r"(?:that|it|this) was (?:(?:just|only) )?(?:a joke|joking|banter|a wind-?up)|"
              r"^\W*no,? no)\b")
# Words that make a statement a change of something stored.
CHANGE_CUES = (r"\b(?:now|these days|nowadays|no longer|any ?more|instead|switched|changed|"
               r"moved|again|from now on|since|new|became|become|promoted|started|quit|stopped|"
               r"left|joined|replaced|upgraded|traded|sold|turned|got rid of|not any more)\b")

SYNONYMS = {
    "address": ("address", "lives", "live", "street", "road", "home", "flat", "house"),
    "home": ("lives", "live", "home", "flat", "house"),
    "job": ("works", "job", "role", "position", "title"),
    "birthday": ("birthday", "born"),
    "phone": ("phone", "mobile", "number"),
    "allergies": ("allergic", "allergy"),
    "allergy": ("allergic", "allergy"),
    "diet": ("vegetarian", "vegan", "pescatarian", "eats", "diet"),
    "devices": ("owns", "has", "hub", "sensor", "device", "bulbs", "camera", "speaker"),
    "device": ("owns", "has", "hub", "sensor", "device", "bulbs", "camera", "speaker"),
    "pets": ("dog", "cat", "pet", "beagle"),
    "pet": ("dog", "cat", "pet", "beagle"),
    "work": ("works", "job", "engineer", "team", "employer"),
    # "forget my commute" names how the user gets to work, never the job itself
    "commute": ("commute", "train", "bus", "tram", "tube", "bike", "cycles", "walks", "drives", "ferry"),
    # "I have no kids" names "Has three children"
    "kids": ("kids", "children", "child"),
    "kid": ("kid", "children", "child"),
    "children": ("children", "kids", "child"),
    "lived": ("lives", "lived", "home"),
    "live": ("lives", "lived", "home"),
}
# Words that say nothing about which memory is meant ("forget the note about ...").
GENERIC = frozenset(["info", "information", "note", "notes", "details", "detail", "stuff", "thing", "things", "everything", "anything", "data", "record", "records", "what", "know", "about", "memory", "memories", "fact", "facts", "bit", "part"])

# Values of one kind, one at a time: a new one replaces a stored one of the same set ("I prefer
# the window now" replaces "Always wants an aisle seat"), with no word in common.
CONTRASTS: tuple[frozenset[str], ...] = tuple(frozenset(s.split()) for s in (
    "window aisle", "tea coffee", "email phone texts calls whatsapp signal telegram post",
    "dark light", "mac windows linux", "iphone android pixel galaxy", "morning evening",
    "bus train tube tram car bike cycling walking driving", "vim emacs vscode helix zed neovim",
    "bash zsh fish", "spotify tidal deezer", "netflix disney", "chrome firefox safari edge brave",
    "cats dogs", "gas electric", "sweet savoury savory", "beach mountains", "summer winter",
    "early late", "hot cold", "red white rose", "beer wine", "paper kindle ebooks audiobooks",
    # units and habits a switch trades one for another
    "miles kilometres kilometers km", "celsius fahrenheit", "metric imperial",
    "smokes smoking cigarettes cigarette vaping vapes vape"))

# Kinds of pet: "our dog died" names the one fact about a beagle, a whippet, ...
PET_KINDS: tuple[frozenset[str], ...] = (
    frozenset("dog dogs puppy beagle labrador whippet spaniel terrier poodle collie retriever "
              "dachshund greyhound pug husky cockapoo cockerpoo lurcher springer".split()),
    frozenset("cat cats kitten tabby siamese".split()),
)

# Kinds of thing a person has one of at a time, named by a noun or by a brand or model ("a Kia
# Niro" is a car, "a ThinkPad" a laptop): a new one replaces the stored one of the same kind even
# when no word is shared.
_KIND_WORDS = {
    "car": """car cars tesla peugeot polestar volvo kia niro skoda octavia fabia golf polo
        volkswagen vw ford fiesta toyota prius yaris corolla honda nissan
        qashqai renault clio zoe bmw audi mercedes vauxhall corsa astra citroen fiat hyundai
        ioniq kona mazda subaru lexus dacia sandero jeep lotus porsche jaguar landrover
        byd mg cupra suv hatchback estate saloon""",
    "bike": "bike bikes bicycle e-bike ebike brompton trek",
    "motorbike": "motorbike motorcycle moped vespa ducati",
    "phone": """phone phones smartphone mobile iphone pixel galaxy fairphone oneplus nokia
        xperia motorola xiaomi""",
    "laptop": "laptop laptops macbook thinkpad chromebook xps notebook",
    "tablet": "tablet ipad",
    "e-reader": "e-reader ereader kindle kobo",
    "watch": "watch smartwatch garmin fitbit",
    "bank": """bank banks monzo starling barclays hsbc lloyds natwest santander revolut
        nationwide halifax n26 chase""",
    "editor": "editor vim neovim nvim helix emacs vscode zed sublime",
    "console": "console playstation ps5 xbox",
    # one password manager at a time ("moved everything to Bitwarden")
    "password manager": "1password bitwarden lastpass dashlane keepass keepassxc",
}
KIND_NAMES = frozenset(_KIND_WORDS)
KINDS: dict[str, str] = {w: kind for kind, ws in _KIND_WORDS.items() for w in ws.split()}
# Words after a brand that stay part of its model name ("Pixel 9 pro", "MacBook Air").
MODEL_WORDS = frozenset("""pro max plus mini air ultra lite carbon model se s x xl gt sport
    estate hybrid electric ev one note fold flip edge""".split())

# Employers a non-native speaker may say one "works in" ("I work in Siemens"); a place after
# "work in" stays a place ("I work in London"). Besides these, a name ending in an
# organisation word is an employer.
EMPLOYERS = frozenset("""siemens bosch tesco asda sainsbury's sainsburys morrisons aldi lidl
    waitrose amazon google microsoft apple meta ibm oracle sap accenture deloitte kpmg pwc ey
    capgemini infosys wipro tcs samsung philips unilever nestle nestlé shell bp ikea zara
    mckinsey airbus boeing volkswagen bmw mercedes audi toyota ericsson nokia spotify netflix
    uber deliveroo ocado primark argos boots nhs""".split()) | frozenset(
    w for w, k in KINDS.items() if k == "bank" and w not in {"bank", "banks", "chase"})
ORG_WORDS = frozenset("""bank group ltd limited inc plc gmbh ag sa llc co corp corporation
    company labs systems technologies solutions consulting insurance airlines airways motors
    pharma university hospital council ministry agency studio studios""".split())
# Apps and services people name alone ("Spotify now"): never read as a place.
SERVICES = frozenset("""spotify netflix tidal deezer youtube instagram tiktok twitter x bluesky
    mastodon threads facebook whatsapp signal telegram slack teams zoom notion obsidian evernote
    linux windows mac macos android ios chrome firefox safari brave edge duolingo strava peloton
    uber bolt lyft disney prime hulu audible kindle github gitlab""".split())
# Pastimes a person takes up: "took up pottery", "started yoga in January".
# Instruments are played; the rest are done.
INSTRUMENTS = frozenset("""guitar piano violin cello drums ukulele bass saxophone sax flute clarinet
trumpet harp banjo mandolin keyboard accordion harmonica trombone viola oboe""".split())
PASTIMES = frozenset("""pottery ceramics yoga pilates bouldering climbing running swimming knitting
crochet chess tennis golf boxing karate judo jiu-jitsu taekwondo salsa dance dancing painting
drawing photography gardening baking cycling rowing kayaking surfing skiing snowboarding archery
fencing sewing woodwork woodworking calligraphy meditation crossfit parkrun padel squash badminton
netball hockey rugby football footy cricket basketball volleyball singing choir birdwatching
fishing hiking sailing skating rollerblading weightlifting powerlifting triathlon spinning zumba
embroidery quilting origami juggling gymnastics aikido kickboxing muay thai capoeira lacrosse
ballet tap poetry bridge scrabble crosswords sudoku""".split()) | INSTRUMENTS
# More job words: trades and services a person says they work as.
ROLE_WORDS = ROLE_WORDS | frozenset("""planner barrister joiner surveyor courier postman postwoman
clerk counselor hairdresser barber butcher labourer trader instructor caretaker porter steward
stewardess bartender sommelier salesman saleswoman inspector supervisor foreman plasterer
decorator roofer tiler locksmith dev""".split())

# Medicines by the endings of their generic names or a few brands, and a dose:
# "I'm on 50mg sertraline", "started Ozempic 0.25 mg weekly", "GP upped my statin to 40mg".
DOSE = r"\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|ug|ml|iu|units?)\b"
MEDICINE = (r"(?:[a-z][\w-]*(?:statin|pril|sartan|olol|dipine|prazole|cillin|mycin|cycline|oxetine|traline|"
            r"talopram|zepam|triptan|formin|gliptin|glutide|tirzepatide|thyroxine|xetine|lukast|tadine|"
            r"ipramine|azepine|fenac|profen|pentin|gabalin)|ozempic|wegovy|mounjaro|saxenda|prozac|zoloft|"
            r"lexapro|ventolin|ritalin|elvanse|concerta|adderall|insulin|melatonin|hrt|warfarin|"
            r"apixaban|rivaroxaban|lithium|propranolol|antidepressants)\b")

# What a household buys from one provider at a time, so "switched the energy to
# Octopus" names the provider as surely as "switched my energy to Octopus" does.
SERVICE_NOUNS = frozenset("""energy electricity gas broadband internet wifi wi-fi fibre fiber
    phone phones mobile mobiles sim sims contract bank banking mortgage insurance pension
    savings tariff provider supplier water""".split())
