"""Synthetic per-user memories for the embedded-store benchmark: varied, realistic-looking text.

Texts are built from a pool of unique sentences (first-person messages, fact statements and
playbook steps) drawn from templates over a few hundred words of everyday vocabulary, so BM25 sees
a real spread of term frequencies and the dense leg sees real MiniLM vectors. A document is one
or two pool sentences (8-40 words). Only the pool is embedded by the model; a two-sentence
document's vector is the normalised mean of its sentences' vectors (the documented shortcut that
makes 200,000 documents affordable on 2 shared cores: see docs/benchmarks.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

PEOPLE = [
    "Ana",
    "Ben",
    "Chloe",
    "Dev",
    "Elena",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kemi",
    "Luca",
    "Maya",
    "Nils",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Yara",
    "Zoe",
    "my-sister",
    "my-brother",
    "my-manager",
    "my-landlord",
    "my-dentist",
    "the-kids",
    "grandma",
    "the-neighbours",
    "my-flatmate",
]
PLACES = [
    "Bristol",
    "Edinburgh",
    "Lisbon",
    "Porto",
    "Berlin",
    "Leipzig",
    "Kyoto",
    "Osaka",
    "Montreal",
    "Toronto",
    "Valencia",
    "Seville",
    "Krakow",
    "Gdansk",
    "Dublin",
    "Galway",
    "Oslo",
    "Bergen",
    "Nairobi",
    "Accra",
    "Austin",
    "Denver",
    "Hanoi",
    "Cusco",
    "the-coast",
    "the-mountains",
    "the-lake-house",
    "the-office",
    "the-gym",
    "the-allotment",
    "the-clinic",
    "the-airport",
]
FOODS = [
    "sourdough",
    "ramen",
    "lentil-soup",
    "oat-milk",
    "espresso",
    "green-tea",
    "peanuts",
    "shellfish",
    "gluten",
    "dairy",
    "tofu",
    "risotto",
    "curry",
    "tacos",
    "kimchi",
    "halloumi",
    "falafel",
    "porridge",
    "dark-chocolate",
    "mango",
    "sushi",
    "pho",
    "paella",
    "spinach",
    "mushrooms",
    "eggs",
    "almond-butter",
    "rye-bread",
]
THINGS = [
    "laptop",
    "phone",
    "router",
    "e-bike",
    "car",
    "boiler",
    "dishwasher",
    "kettle",
    "headphones",
    "tablet",
    "camera",
    "printer",
    "keyboard",
    "monitor",
    "backpack",
    "tent",
    "passport",
    "insurance-card",
    "gym-membership",
    "train-pass",
    "guitar",
    "piano",
    "sewing-machine",
    "drone",
    "smartwatch",
    "thermostat",
    "hub-cable",
    "charger",
    "vpn",
    "password-manager",
]
HOBBIES = [
    "running",
    "climbing",
    "swimming",
    "chess",
    "pottery",
    "gardening",
    "birdwatching",
    "baking",
    "knitting",
    "photography",
    "cycling",
    "yoga",
    "salsa",
    "surfing",
    "sketching",
    "woodworking",
    "fishing",
    "hiking",
    "rowing",
    "tennis",
    "bouldering",
    "calligraphy",
    "origami",
    "podcasts",
    "board-games",
    "crosswords",
]
WORK = [
    "quarterly-report",
    "budget-review",
    "migration",
    "release",
    "standup",
    "interview",
    "onboarding",
    "audit",
    "roadmap",
    "invoice",
    "contract",
    "pitch-deck",
    "code-review",
    "offsite",
    "hackathon",
    "performance-review",
    "deadline",
    "sprint-planning",
    "client-call",
    "spreadsheet",
    "dashboard",
    "on-call-shift",
]
FEELINGS = [
    "tired",
    "excited",
    "anxious",
    "relieved",
    "annoyed",
    "calm",
    "overwhelmed",
    "proud",
    "curious",
    "bored",
    "hopeful",
    "frustrated",
    "grateful",
    "nervous",
    "restless",
    "content",
]
TIMES = [
    "yesterday",
    "last-week",
    "this-morning",
    "on-Monday",
    "on-Friday-night",
    "over-the-weekend",
    "in-March",
    "in-the-summer",
    "two-days-ago",
    "last-month",
    "before-lunch",
    "after-dinner",
    "at-dawn",
    "late-last-night",
    "during-the-holidays",
]
PETS = [
    "golden-retriever",
    "tabby-cat",
    "parrot",
    "hamster",
    "beagle",
    "rabbit",
    "tortoise",
    "goldfish",
    "greyhound",
    "border-collie",
]
HEALTH = [
    "migraines",
    "back-pain",
    "asthma",
    "a-sprained-ankle",
    "hay-fever",
    "insomnia",
    "high-blood-pressure",
    "a-knee-injury",
    "eczema",
    "a-gluten-intolerance",
]

EPISODE_TEMPLATES = [
    "I went to {place} {time} with {person} and we ended up eating {food} near the station",
    "{time} I finally fixed the {thing} after {person} told me to reset it twice",
    "Feeling {feeling} about the {work} because it moved again and nobody told me",
    "Can you remind me to call {person} about the {work} before the end of the week",
    "We are thinking about moving to {place} next year if the job with the {work} works out",
    "My {pet} knocked the {thing} off the table {time} so it needs fixing or replacing",
    "I started {hobby} {time} and honestly it is the best thing I did all year",
    "The doctor said my {health} is getting better but I should cut down on {food}",
    "{person} is coming to stay in {place} for a week so the spare room needs sorting",
    "Do not book anything with {food} for the team dinner because {person} cannot have it",
    "I lost my {thing} somewhere between {place} and home {time} and I am {feeling}",
    "Booked the train to {place} for the {work} and I still need to pack the {thing}",
    "Tried making {food} at home {time} and it came out better than at the restaurant",
    "I am {feeling} because {person} cancelled our {hobby} session again at the last minute",
    "The {thing} keeps dropping the connection whenever I am on a {work} call",
    "{person} recommended a {hobby} club in {place} that meets every Thursday evening",
    "My {health} flared up {time} so I skipped {hobby} and stayed in with {food}",
    "Remember that I paid {person} back for the {thing} we split in {place}",
    "Our {pet} has a vet appointment {time} because it stopped eating {food}",
    "Could you draft a note to {person} saying the {work} slipped to next Tuesday",
    "I switched my {thing} to the new plan {time} and it already feels faster",
    "Thinking of signing up for a {hobby} retreat near {place} in the autumn",
]
FACT_TEMPLATES = [
    "Prefers {food} over anything else for breakfast on weekdays",
    "Lives in {place} with {person} and a {pet}",
    "Is allergic to {food} and must avoid it in every meal suggestion",
    "Works on the {work} team and reports to {person}",
    "Owns a {thing} that is more than five years old",
    "Practises {hobby} at least twice a week near {place}",
    "Has {health} and takes medication for it every morning",
    "Does not drink coffee after two in the afternoon because of {health}",
    "Wants reminders about the {work} sent the evening before",
    "Is planning a trip to {place} with {person} next spring",
    "Dislikes {food} and finds the smell of it unbearable",
    "Keeps the {thing} password in the password manager, never in notes",
    "Has a {pet} called after a character from a {hobby} book",
    "Prefers short answers with bullet points when discussing the {work}",
    "Learned {hobby} from {person} while living in {place}",
    "Budget for the {thing} replacement is capped at four hundred pounds",
    "Usually visits {person} in {place} during the last week of the month",
    "Avoids {food} on training days before {hobby}",
]
STEP_TEMPLATES = [
    "Unplug the {thing} for thirty seconds and plug it back in",
    "Check the {thing} settings page and note the firmware version",
    "Message {person} with the summary of the {work} before noon",
    "Open the shared drive folder for the {work} and copy last month's template",
    "Book a table that offers {food} free options and confirm with {person}",
    "Look up the train times to {place} and pick the earliest direct one",
    "Set a calendar reminder two days before the {work} deadline",
    "Pack the {thing} charger and the spare cable in the front pocket",
    "Warm up for ten minutes before {hobby} and stretch the calves afterwards",
    "Ask {person} to confirm the booking in writing by email",
]
TRIGGER_TEMPLATES = [
    "When the {thing} stops working before a {work} call",
    "When planning a dinner with {person} who cannot eat {food}",
    "When a trip to {place} comes up at short notice",
    "When the {work} deadline is less than a week away",
    "When {health} flares up on a {hobby} day",
]
STATES = (
    ("active", 0.70),
    ("superseded", 0.15),
    ("candidate", 0.08),
    ("retracted", 0.04),
    ("rejected", 0.03),
)
QUERY_TEMPLATES = [
    "what did I say about the {thing}",
    "where is {person} staying and when",
    "any food I should avoid like {food}",
    "how do I fix the {thing} before a call",
    "when is the {work} due",
    "what happened with my {health}",
    "trip to {place} plans",
    "who recommended the {hobby} club",
    "what does my {pet} eat",
    "steps for the {work} deadline reminder",
    "did I lose something in {place}",
    "what do I usually have for breakfast",
]

_SLOTS = {
    "person": PEOPLE,
    "place": PLACES,
    "food": FOODS,
    "thing": THINGS,
    "hobby": HOBBIES,
    "work": WORK,
    "feeling": FEELINGS,
    "time": TIMES,
    "pet": PETS,
    "health": HEALTH,
}


def _fill(template: str, rng: random.Random) -> str:
    out = template.format(
        **{k: rng.choice(v) for k, v in _SLOTS.items() if "{" + k + "}" in template}
    )
    return out.replace("-", " ")


def _unique(templates: list[str], n: int, rng: random.Random, extra: float = 0.5) -> list[str]:
    # Optional short clauses give more distinct sentences than the slots alone (and vary length).
    tails = [
        " and {person} agreed",
        " which surprised {person}",
        " near {place}",
        " before the {work}",
        " after {hobby}",
        " {time}",
        " with {food} on the side",
    ]
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        s = _fill(rng.choice(templates), rng)
        if rng.random() < extra:
            s += _fill(rng.choice(tails), rng)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


@dataclass
class Pool:
    """Unique sentences; only these are embedded by the model."""

    episodes: list[str]
    facts: list[str]
    steps: list[str]
    triggers: list[str]

    def all(self) -> list[str]:
        return self.episodes + self.facts + self.steps + self.triggers


def make_pool(size: int = 20_000, seed: int = 7) -> Pool:
    rng = random.Random(seed)
    n_ep, n_fact = int(size * 0.6), int(size * 0.3)
    n_trig = max(50, size // 100)
    n_steps = max(10, size - n_ep - n_fact - n_trig)
    return Pool(
        _unique(EPISODE_TEMPLATES, n_ep, rng),
        _unique(FACT_TEMPLATES, n_fact, rng, 0.3),
        _unique(STEP_TEMPLATES, n_steps, rng, 0.2),
        _unique(TRIGGER_TEMPLATES, n_trig, rng, 0.2),
    )


@dataclass
class DocSpec:
    """One memory to write: its kind, fields and the pool sentences its vector is built from."""

    kind: str  # episodic | semantic | procedural
    fields: dict
    parts: list[str] = field(default_factory=list)


def user_docs(pool: Pool, user_index: int, n: int, now: datetime, seed: int = 11) -> list[DocSpec]:
    """n memories for one user: ~60% episodes, ~30% facts in various states, ~10% playbooks."""
    rng = random.Random(seed * 1_000_003 + user_index)
    n_fact, n_pb = int(n * 0.3), int(n * 0.1)
    n_ep = n - n_fact - n_pb
    docs: list[DocSpec] = []
    for _ in range(n_ep):
        parts = [rng.choice(pool.episodes)]
        if rng.random() < 0.4:
            parts.append(rng.choice(pool.episodes))
        ts = now - timedelta(days=rng.uniform(0, 3 * 365), seconds=rng.randrange(86_400))
        text = ". ".join(parts)
        docs.append(DocSpec("episodic", {"text": text, "timestamp": ts, "recorded_at": ts}, parts))
    states, weights = [s for s, _ in STATES], [w for _, w in STATES]
    for _ in range(n_fact):
        s = rng.choice(pool.facts)
        state = rng.choices(states, weights)[0]
        recorded = now - timedelta(days=rng.uniform(0, 3 * 365))
        f = {
            "text": s,
            "state": state,
            "recorded_at": recorded,
            "fact_type": rng.choice(["preference", "identity", "constraint", "world"]),
            "confidence": round(rng.uniform(0.5, 0.95), 2),
            "use_count": rng.choice([0, 0, 0, 1, 2, 5, 13]),
        }
        if f["use_count"]:
            f["last_used_at"] = recorded + (now - recorded) * rng.random()
        if state in ("superseded", "retracted"):
            f["superseded_at"] = recorded + (now - recorded) * rng.random()
        docs.append(DocSpec("semantic", f, [s]))
    for _ in range(n_pb):
        trig = rng.choice(pool.triggers)
        steps = rng.sample(pool.steps, rng.randint(2, 3))
        name = " ".join(trig.split()[1:4]).capitalize()
        docs.append(
            DocSpec(
                "procedural",
                {
                    "name": name,
                    "trigger": trig,
                    "steps": steps,
                    "success_count": rng.randint(0, 6),
                    "failure_count": rng.randint(0, 2),
                },
                [trig, *steps],
            )
        )
    rng.shuffle(docs)  # writes arrive interleaved, as in real use
    return docs


def queries(n: int, n_users: int, seed: int = 3) -> list[tuple[int, str]]:
    """(user index, query) pairs; queries are never pool sentences, so they are embedded live."""
    rng = random.Random(seed)
    return [(rng.randrange(n_users), _fill(rng.choice(QUERY_TEMPLATES), rng)) for _ in range(n)]


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
