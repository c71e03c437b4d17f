"""What answer a question wants: its kind, the noun it asks for, one thing or several.

The typed reader (:mod:`remem.answer.typed`) looks in the evidence for a span of the
wanted kind, so the kind is read finer than ``words.answer_type`` (which routes the
pipeline): a person, a place, an organisation, a number, a duration, a frequency, a
time of day, a thing (the noun a "what"/"which" asks for, when it asks for one), or
nothing typed (yes/no and dates, which other readers answer). The rules are the
question's asking words; the noun after "what"/"which" comes from the parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .. import words
from ..question import Question
from .kinds import is_a, known_noun
from .nlp import parse

#: entity labels (spaCy's OntoNotes set) that answer each kind
LABELS: dict[str, frozenset[str]] = {
    "person": frozenset({"PERSON"}),
    "place": frozenset({"GPE", "LOC", "FAC"}),
    "org": frozenset({"ORG"}),
    # a count of time units ("How many days did he tell me to rest?": "three days",
    # which the tagger calls a date) is read by ``spans._fits``
    "number": frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME"}),
    "money": frozenset({"MONEY", "CARDINAL", "DATE"}),  # "1050 a month" is tagged a date
    "age": frozenset({"DATE", "CARDINAL"}),
    "duration": frozenset({"DATE", "TIME", "QUANTITY", "CARDINAL"}),
    "frequency": frozenset({"DATE", "TIME", "CARDINAL"}),
    "time": frozenset({"TIME"}),
    # "Which day is my show on now?": a day of the week ("Sunday mornings")
    "weekday": frozenset({"DATE", "TIME"}),
    "distance": frozenset({"QUANTITY", "CARDINAL"}),
    # "How long is the loop?": a distance or a duration, which English does not tell
    "length": frozenset({"DATE", "TIME", "QUANTITY", "CARDINAL"}),
    # "Where does Omar work?": an organisation, or the place it is ("Hospital Sao Joao")
    "workplace": frozenset({"ORG", "GPE", "LOC", "FAC"}),
    # a place in a ranking ("Where did our band finish in the contest?": "third")
    "rank": frozenset({"ORDINAL"}),
    "thing": frozenset(),
    "reason": frozenset(),
}

#: kinds whose answer must be an entity of their labels (a thing may be any phrase)
STRICT = frozenset(LABELS) - {"thing", "reason"}

_ASKS = (
    (
        "money",
        re.compile(
            r"^\W*how\s+much\s+(?:money|did|does|do|is|was|are|were|would|will|can)\b", re.I
        ),
    ),
    (  # "How much (monthly) rent do I pay...?", "How much rent am I paying?": a price
        "money",
        re.compile(
            r"^\W*how\s+much\s+(?:[a-z]+\s+){1,3}(?:do|does|did|is|was|will|would|am|are|were)\b.*"
            r"\b(?:pay|pays|paid|paying|cost|costs|spend|spent|charge|charges|charged)\b",
            re.I,
        ),
    ),
    (  # "What do I charge for a country loaf?", "What did the repair cost?": a sum
        "money",
        re.compile(
            r"^\W*what\s+(?:do|does|did|will|would)\s+(?:[\w'-]+\s+){1,6}?"
            r"(?:pay|charge|cost)\b(?!\s+(?:attention|a\s+visit|tribute|respects?|off)\b)",
            re.I,
        ),
    ),
    # a rate by the time it is paid for ("my tutor's hourly rate"; not a heart rate)
    ("money", re.compile(r"\b(?:hourly|daily|weekly|nightly|day|going)\s+rates?\b", re.I)),
    ("number", re.compile(r"^\W*(?:(?:by|for|in|to|with|at|of)\s+)?how\s+(?:many|much)\b", re.I)),
    ("age", re.compile(r"^\W*(?:how\s+old|(?:at\s+)?what\s+age)\b", re.I)),
    (
        "length",
        re.compile(
            r"^\W*how\s+long\s+(?:is|was|are|were)\s+(?:the|your|my|his|her|their|our)\b", re.I
        ),
    ),
    ("duration", re.compile(r"^\W*how\s+long\b|\bfor\s+how\s+long\b", re.I)),
    ("frequency", re.compile(r"^\W*how\s+often\b", re.I)),
    # a measure: "How far...?", "How heavy was Pepper?" ("23 kilos")
    ("distance", re.compile(r"^\W*how\s+(?:far|heavy|tall|wide|deep)\b", re.I)),
    # a score, asked by its verb ("What did I score on the mock paper?": "142")
    ("number", re.compile(r"^\W*what\s+(?:did|do|does)\s+(?:[\w'-]+\s+){1,3}?score\b", re.I)),
    ("time", re.compile(r"^\W*(?:at\s+)?what\s+time\b", re.I)),
    # a habit's day: "days", or "now", "usually"... ("What day is the van booked
    # for?" asks a date); a part of the day asked in the present ("Which evening does
    # Lorcan have his lesson?") is a weekday's
    (
        "weekday",
        re.compile(
            r"^\W*(?:on\s+)?(?:what|which)\s+(?:days\s+(?:is|are|do|does)\b|day\s+(?:is|are|do|does)"
            r"\b.*\b(?:now|usually|normally|these\s+days|nowadays|every|each|regularly)\b"
            r"|(?:night|evening|morning|afternoon)s?\s+(?:is|are|do|does)\b"
            r"|(?:day|night|evening|morning|afternoon)\s+of\s+the\s+week\b)",
            re.I,
        ),
    ),
    ("person", re.compile(r"^\W*(?:who|whom|whose)\b", re.I)),
    (  # a place in a ranking: "Where did our band finish in the striking contest?",
        # "What position did I finish in?" ("What position does Otto play?" is none)
        "rank",
        re.compile(
            r"^\W*(?:where|(?:what|which)\s+(?:position|place))\s+(?:did|do|does|will|has|"
            r"have|had)\s+(?:[\w'-]+\s+){1,4}?(?:finish|come|end\s+up|place|rank)"
            r"(?:\s+(?:in|at|on|overall)\b|\W*$)",
            re.I,
        ),
    ),
    ("place", re.compile(r"^\W*where\b", re.I)),
)

#: a word that hedges the question before it asks ("Roughly how many...?", "So
#: where...?"), which the rules of :data:`_ASKS` read past
_HEDGE = re.compile(
    r"^\W*(?:(?:roughly|approximately|about|around|exactly|so|and|but|then|ok|okay)\b[,\s]*)+",
    re.I,
)

#: "the number of" things, counted ("the maximum number of people"; not "the number
#: of my allotment plot", which names one)
_COUNT_OF = re.compile(
    r"\bnumber\s+of\s+(?:(?:the|my|our|your|his|her|their)\s+)?(?:[a-z]+s|people|children)\b",
    re.I,
)

#: the noun after "what"/"which" that names the kind
_HEAD_KINDS = {
    "name": "person",
    "city": "place",
    "country": "place",
    "town": "place",
    "hometown": "place",
    "birthplace": "place",
    "village": "place",
    "island": "place",
    "neighbourhood": "place",
    "neighborhood": "place",
    "state": "place",
    "place": "place",
    "location": "place",
    **dict.fromkeys(("port", "harbour", "harbor", "suburb", "county", "district"), "place"),
    # a street by its name ("Which street is the new flat on?": "Cavendish Road")
    **dict.fromkeys(("street", "road", "avenue"), "place"),
    "company": "org",
    # a maker, asked by its goods ("What make of piano...?", "Which brand of trainers?")
    **dict.fromkeys(BRAND_NOUNS := ("brand", "make"), "org"),
    "organization": "org",
    "organisation": "org",
    "employer": "org",
    "firm": "org",
    "university": "org",
    "college": "org",
    # places of business, named as organisations are ("Which bakery does Marta work
    # at?": "Levain House", which the tagger labels an organisation)
    **dict.fromkeys(
        BUSINESSES := (
            "bakery",
            "restaurant",
            "cafe",
            "café",
            "shop",
            "store",
            "hospital",
            "clinic",
            "bank",
            "agency",
            "studio",
            "startup",
            "school",
            "airline",
            "charity",
            "publisher",
            "library",
            "museum",
            "gallery",
            "theatre",
            "theater",
            "hotel",
        ),
        "org",
    ),
    # bodies people belong to, asked by kind and not always named ("a book club")
    **dict.fromkeys(("club", "society", "association", "gym", "practice"), "org"),
    # a centre has a name of its own ("the Hawkridge Birds of Prey Centre")
    **dict.fromkeys(("centre", "center"), "org"),
    # a group that sings, named as organisations are ("the Kestrel Street
    # Singers"), though no one answers "Who...?" by it (a band, often unlabelled as
    # one, stays a thing: LoCoMo's "What bands has Melanie seen?")
    **dict.fromkeys(ENSEMBLES := ("choir", "group", "orchestra", "ensemble"), "org"),
    "time": "duration",
    # what is asked by its sum ("What's the total budget now?": "61,500", not "the
    # budget's holding")
    **dict.fromkeys(
        MONEY_NOUNS := ("budget", "price", "cost", "rent", "fee", "salary", "wage", "deposit"),
        "money",
    ),
    # what is asked by a number ("What number is my plot?", "What score did I get?",
    # "What is her chess rating?")
    **dict.fromkeys(NUMBER_NOUNS := ("number", "score", "rating"), "number"),
    # a count or a measure asked by its noun ("What was my record count of bats?",
    # "What's the length of my boat in feet?")
    **dict.fromkeys(("count", "tally", "headcount", "capacity"), "number"),
    "length": "length",
    **dict.fromkeys(("height", "width", "depth", "weight"), "distance"),
    # what is asked as a share ("What alcohol percentage...?"): a percentage only
    **dict.fromkeys(PERCENT_NOUNS := ("percentage", "percent", "abv"), "number"),
}

#: the nouns of a place of business, which has a name ("Which airline?" is not
#: answered by "the weekend")
BUSINESS_NOUNS = frozenset(BUSINESSES)
#: the nouns an organisation is asked by, and named beside ("my employer, Acme")
ORG_NOUNS = frozenset(
    {n for n, kind in _HEAD_KINDS.items() if kind == "org" and n not in (*ENSEMBLES, *BRAND_NOUNS)}
    | {"employer", "company", "business"}
)

#: "What's my manager called?", "What did Tom name his cat?": a name asked
_CALLED = re.compile(
    r"^\W*what(?:'s|\s+is|\s+was|\s+are|\s+were)\s+.+\s+called"
    r"(?:\s+(?:now|nowadays|these\s+days|at\s+the\s+moment|currently|today))?\W*$"
    r"|^\W*what\s+(?:did|do|does|will|has|have|had)\s+\S+(?:\s+\S+)?\s+(?:call|name)\s+(?!.*\bafter\W*$)",
    re.I,
)
#: "why" and "how did she feel": a reason or a manner, which a sentence tells better
#: than any one span of it
_WHY = re.compile(r"^\W*why\b", re.I)
_REASON = re.compile(
    r"^\W*(?:why|how\s+(?!many|much|old|long|often|far|heavy|tall|wide|deep)\w+)\b", re.I
)
_ASKING = re.compile(r"^\W*(?:what|which|who|whom|whose|where|how|name|tell)\b", re.I)
#: "What does Sam do for a living?", "What is Ana's job?": an occupation is asked
_OCCUPATION = re.compile(
    r"^\W*what\s+(?:does|did|do)\s+.+?\s+do\s+for\s+(?:a\s+)?(?:living|work)\b"
    r"|^\W*what\s+(?:is|was)\s+.+?'s\s+(?:job|occupation|profession)\b",
    re.I,
)
#: "Where does Omar work now?": the place of work is an organisation ("Northbridge
#: Cycles"), not a town
_WORKPLACE = re.compile(r"^\W*where\s+(?:do|does|did|is|was)\s+.+?\s+work(?:s|ed|ing)?\b", re.I)
#: "what kind of", "which type of": the noun after them is the one asked for
_KIND_OF = frozenset({"kind", "kinds", "type", "types", "sort", "sorts", "form", "forms"})


@dataclass(frozen=True)
class Want:
    """What the question wants: ``kind`` (a key of :data:`LABELS`, or "" for none the
    typed reader answers), ``head`` (the noun asked for: "movie" of "What movie did
    Sam watch?"; "" when none), ``many`` (a list: "What are Joanna's hobbies?")."""

    kind: str
    head: str = ""
    many: bool = False
    #: it asks what kind or type ("What kind of online group?"): a modifier answers
    kind_of: bool = False
    #: the part the asked thing plays: (the verb's key, its role, the preposition)
    #: ("What did Maria donate?" -> ("donate", "object", "")); empty when none is read
    role: tuple[str, str, str] = ("", "", "")
    #: the keys of the asked noun's phrase in the question ("rowing club" of "Which
    #: rowing club did Tomas join?"): an answer may repeat them ("Millbrook Rowing Club")
    head_keys: frozenset[str] = frozenset()
    #: it asks what someone does for a living ("What does Sam do for work?", "What is
    #: Ana's job?"): the answer names an occupation
    occupation: bool = False


def wanted(question: Question) -> Want:
    """What ``question`` wants (:class:`Want`)."""
    if _WHY.search(question.text):
        return Want("reason")
    if question.answer_type in ("date", "yes/no") or _REASON.search(question.text):
        return Want("")
    if "?" not in question.text and not _ASKING.search(question.text):
        return Want("")  # words to look up ("Ezekiel bassoon jazz quartet"), no question
    # "Roughly how many singers...?" asks a number; "Remind me, what's..." what follows
    text = _HEDGE.sub("", words.asking_part(question.text))
    head, many, head_keys = _asked_noun(question)
    role = _role(question)
    if _WORKPLACE.search(text):
        return Want("workplace", "workplace", many, role=role)
    for kind, rule in _ASKS:
        if rule.search(text):
            head = _unit_counted(text) if kind == "number" else head
            head = "" if kind == "rank" else head  # "What place...?" asks no venue
            kind = "duration" if kind == "length" and _lasts(text) else kind
            if kind == "person" and not head and (who := _who_is(question)):
                keys = frozenset({words.word_key(who)})
                return Want(kind, who, many, role=role, head_keys=keys)
            return Want(kind, head, many and kind in ("person", "place"), role=role)
    called = named_noun_of(question) or head if _CALLED.search(text) else None
    if called is not None and _someone(called):
        # "What's my manager called?" asks a person's name; a thing's or a pet's is
        # read as a thing named ("What is my cat called?": "He's called Biscotti")
        head, head_keys = "name", frozenset({words.word_key("name")})
    elif called is not None and called in _HEAD_KINDS:
        head, head_keys = called, frozenset({words.word_key(called)})  # "my business called?"
    if head == "name":  # "the name of the studio" asks an organisation, not a person
        owner = named_noun_of(question)
        if _HEAD_KINDS.get(owner, "person") != "person":
            keys = frozenset({words.word_key(owner)})
            return Want(_HEAD_KINDS[owner], owner, many, role=role, head_keys=keys)
    if head == "number" and _COUNT_OF.search(text):
        return Want("number", "", False, role=role)  # "the number of people": a count
    if head in _HEAD_KINDS:
        return Want(_HEAD_KINDS[head], head, many, role=role, head_keys=head_keys)
    if re.search(r"\b(?:sur|first\s+|last\s+|full\s+)?name\b", text, re.I):
        return Want("person", "name", many, role=role)
    kind_of = bool(re.search(r"\b(?:kind|kinds|type|types|sort|sorts)\s+of\b", text, re.I))
    owned = bool(head) and re.search(rf"\b{re.escape(head)}s?'", text, re.I) is not None
    if head and not kind_of and not owned and _someone(head):
        # "Which electrician redid the wiring?" asks who, by their trade: "Piotr
        # Nowacki", not "every single cable" (the noun's first sense is a person's);
        # not "Which beekeepers' association...?", read by the tagger as of beekeepers
        return Want("person", head, many, role=role, head_keys=head_keys)
    return Want("thing", head, many, kind_of, role, head_keys, bool(_OCCUPATION.search(text)))


def _who_is(question: Question) -> str:
    """The person noun a "Who is the ...?" question asks by ("farmer" of "Who is the
    old farmer who's been mentoring me?", "supervisor" of "Who is my supervisor?"):
    the one asked is named beside it ("A retired dairy farmer, Walt Merriman");
    "" for another question."""
    doc = parse(question.text)
    if len(doc) < 3 or doc[0].lower_ != "who" or doc[1].lemma_ != "be":
        return ""
    noun = next((t for t in doc[1].children if t.dep_ in ("attr", "nsubj") and t.i > 1), None)
    if noun is None or noun.pos_ != "NOUN" or not is_a(noun.lemma_, "person", senses=1):
        return ""
    return str(noun.lemma_.lower())


def _someone(noun: str) -> bool:
    """Whether what is called something is someone ("my new manager"; none named:
    "What did you call her?")."""
    return not noun or is_a(noun, "person", senses=1)


#: the units of time a "how many" question may count
TIME_UNITS = frozenset({"second", "minute", "hour", "day", "night", "week", "month", "year"})
_HOW_MANY = re.compile(r"^\W*how\s+many\s+(?:more\s+)?([a-z]+)", re.I)


#: "how long is" and the noun whose length is asked
_LONG_IS = re.compile(
    r"^\W*how\s+long\s+(?:is|was|are|were)\s+(?:the|your|my|his|her|their|our)\s+(.+)", re.I
)


def _lasts(text: str) -> bool:
    """Whether "how long is the X" asks how long X lasts: X an event or a stretch of
    time ("our trip to Japan", "the course", "the film"), not a thing with a length
    ("the boat", "the trail")."""
    m = _LONG_IS.match(text)
    noun = next((t for t in parse(m.group(1)) if t.pos_ == "NOUN"), None) if m else None
    if noun is None:
        return False
    lemma = noun.lemma_.lower()
    return is_a(lemma, "event") or is_a(lemma, "time period")


def _unit_counted(text: str) -> str:
    """The unit of time a "how many" question counts ("days" of "How many days did he
    tell me to rest?": "day"), else ""."""
    m = _HOW_MANY.match(text)
    unit = m.group(1).lower().rstrip("s") if m else ""
    return unit if unit in TIME_UNITS else ""


_NO_ROLE = ("", "", "")
#: dependency labels by the role they play for their verb
ROLES = {
    "subject": frozenset({"nsubj", "nsubjpass", "csubj"}),
    "object": frozenset({"dobj", "dative", "attr", "oprd", "xcomp", "ccomp", "acomp"}),
    "prep": frozenset({"pobj"}),
}


def _role(question: Question) -> tuple[str, str, str]:
    """The verb the asking word (or the noun it picks: "What movie") hangs on, the
    role it plays there, and its preposition ("What was her audition for?" ->
    ("audition", "prep", "for")); empty strings when the parse gives none."""
    doc = parse(question.text)
    wh = next((t for t in doc if t.lower_ in ("what", "which", "who", "whom")), None)
    if wh is None:
        return _NO_ROLE
    x = wh.head if wh.dep_ == "det" else wh  # "What movie": the noun plays the part
    prep = ""
    head = x.head.head if x.head.dep_ == "aux" else x.head  # "What is she lending me?"
    if x.dep_ == "pobj":
        prep, head = head.lower_, head.head
    head = _chosen_doing(head)
    stranded = _stranded(head) if head.lemma_ == "be" and x.dep_ == "attr" else None
    if stranded is not None:  # "What is my dog allergic to?": the object of "allergic to"
        return words.word_key(stranded.head.lemma_.lower()), "prep", stranded.lower_
    if head is x or head.lemma_ in ("be", "do"):
        # a copula's subject and attribute are read in typed.py; what "do" takes
        # ("What was Sam doing?") is an activity, a verb phrase of its own
        return _NO_ROLE
    dep = "dobj" if _fronted_object(x) else x.dep_
    for name, deps in ROLES.items():
        if dep in deps or (prep and name == "prep"):
            return words.word_key(head.lemma_.lower()), name, prep
    return _NO_ROLE


def _fronted_object(x: Any) -> bool:
    """Whether the asked phrase, parsed as a subject, is an object asked first: its
    verb has another subject after a helping verb ("Which road bike did I end up
    buying?", "Which town will Rafe be commuting to?", read by the small parser as two
    subjects of one verb); a question asking its subject has none ("Which bike
    broke?")."""
    if x.dep_ not in ("nsubj", "nsubjpass"):
        return False
    kids = list(x.head.children)
    other = next((c for c in kids if c.dep_ == "nsubj" and c.i != x.i), None)
    # the helping verb stands before that subject: "did I", "will Rafe" (not "What
    # fuels Calvin's soul?", which the parser may read with two subjects too)
    return other is not None and any(c.dep_ == "aux" and c.i < other.i for c in kids)


#: verbs that say a doing was chosen or came about, the doing in the verb they take
#: ("Which car did I end up buying?": bought; "decide to go": went)
_CHOOSING = frozenset({"end", "decide", "choose", "manage", "opt"})


def _chosen_doing(head: Any) -> Any:
    """The verb a verb of choosing takes ("end up buying" -> "buying", "decide to go"
    -> "go"; "end" only with "up"), else ``head``: the asked thing is what the
    doing takes, and the parse hangs it on "end"."""
    if head.lemma_ not in _CHOOSING:
        return head
    up = any(c.dep_ == "prt" and c.lower_ == "up" for c in head.children)
    if head.lemma_ == "end" and not up:
        return head
    inner = [c for c in head.children if c.pos_ == "VERB" and c.dep_ in ("xcomp", "dobj", "ccomp")]
    return inner[0] if inner else head


#: the nouns that ask for a colour (``classes``), also right after "what" or
#: "which", before the noun coloured ("What colour glaze...?")
COLOUR_NOUNS = frozenset({"colour", "color", "shade"})


def _asked_noun(question: Question) -> tuple[str, bool, frozenset[str]]:
    """The noun the question asks for, whether it is plural, and the keys of its
    phrase (with the nouns and adjectives that modify it): the noun after
    "what"/"which" ("What movie ...", "What kind of books ..."), else the subject or
    attribute of "What is/are ..." ("What are Joanna's hobbies?"); ("", False, {})."""
    doc = parse(question.text)
    wh = next((t for t in doc if t.lower_ in ("what", "which", "who", "where", "how")), None)
    if wh is None:
        return "", False, frozenset()
    noun = None
    after = doc[wh.i + 1] if wh.i + 1 < len(doc) else None
    if after is not None and wh.dep_ != "det" and _describes_next(after):
        after = after.head  # "Which Japanese city does he come from?" asks a city
    if wh.dep_ != "det" and after is not None and after.pos_ == "NOUN" and wh.lower_ != "how":
        noun = after  # "In which city does she live?": the parser hangs "city" elsewhere
    elif wh.lower_ == "which" and after is not None and after.lower_ == "of":
        # "Which of my breads sells quickest?" asks one of the breads
        one = next((c for c in after.children if c.dep_ == "pobj" and c.pos_ == "NOUN"), None)
        if one is not None:  # one of them, though they are many
            return one.lemma_.lower(), False, frozenset({words.word_key(one.lower_)})
    elif wh.dep_ == "det" and (
        wh.head.pos_ in ("NOUN", "PROPN") or _nominal(wh.head) or _determined(wh)
    ):
        noun = wh.head
        if noun.dep_ == "poss" and noun.tag_ == "NNS" and noun.head.pos_ == "NOUN":
            # "Which boaters' club...?" asks a club, for boaters ("Which college's
            # students...?" asks a college)
            noun = noun.head
        if noun.lower_ in _KIND_OF:
            inner = [c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"]
            objs = [g for p in inner for g in p.children if g.dep_ == "pobj"]
            noun = _verbless(objs[0]) if objs else noun
    elif (
        wh.lower_ == "what"
        and wh.head.lemma_ == "be"
        and wh.head.dep_ != "aux"  # "What is my gran lending me?" asks what is lent
        and not _predicated(wh.head)
    ):
        subj = [c for c in wh.head.children if c.dep_ in ("nsubj", "attr") and c != wh]
        noun = subj[0] if subj and subj[0].pos_ == "NOUN" else None
    if noun is None:
        return "", False, frozenset()
    shade = next((c for c in noun.children if c.lower_ in COLOUR_NOUNS and c.i == wh.i + 1), None)
    if shade is not None:  # "What colour glaze did I use?" asks a colour, of the glaze
        return shade.lower_, False, frozenset({words.word_key(shade.lower_)})
    phrase = [noun] + [c for c in noun.children if c.dep_ in ("compound", "amod")]
    keys = frozenset(words.word_key(t.lower_) for t in phrase)
    return noun.lemma_.lower(), noun.tag_ in ("NNS", "NNPS"), keys


#: the parts a noun plays in a sentence
_NOMINAL = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "attr", "dative"})


def _describes_next(token: Any) -> bool:
    """Whether ``token`` is a word describing the noun right after it ("Japanese" of
    "Which Japanese city...?", which the parser hangs off "which" no better)."""
    nxt = token.head
    return (
        token.pos_ == "ADJ" and token.dep_ == "amod" and nxt.i == token.i + 1 and nxt.pos_ == "NOUN"
    )


def _determined(wh: Any) -> bool:
    """Whether the word "what"/"which" determines is a noun though the tagger calls it
    something else: "present" of "What present did the committee give her?" (an
    adverb to the tagger), right after the asking word, a noun to WordNet, and no
    noun after it ("Which fencing club...?" asks a club)."""
    word = wh.head
    nxt = word.doc[word.i + 1] if word.i + 1 < len(word.doc) else None
    if nxt is not None and nxt.pos_ in ("NOUN", "PROPN"):
        return False
    return word.i == wh.i + 1 and word.pos_ in ("ADV", "ADJ", "VERB") and known_noun(word.lower_)


def _nominal(token: Any) -> bool:
    """Whether a word the tagger calls a verb is a noun by its part: "Which workmate
    found me my bike?" ("workmate", tagged a verb, is the subject)."""
    return token.pos_ == "VERB" and token.dep_ in _NOMINAL


def _predicated(be: Any) -> bool:
    """Whether "what is X" says more of X than that it is what is asked: an
    adjective or a stranded preposition ("What is my dog allergic to?", "What is
    the frame made of?") asks what X is allergic to or made of, not a kind of X."""
    return any(c.dep_ == "acomp" and c.pos_ == "ADJ" for c in be.children) or (
        _stranded(be) is not None
    )


def _stranded(be: Any) -> Any:
    """The preposition left without its object under a copula ("to" of "What is my
    dog allergic to?"): the asking word is its object; None when there is none. Not
    one of a relative clause ("What's the name of the choir I sing with?": "with"
    is the choir's)."""
    return next(
        (
            t
            for t in be.subtree
            if t.dep_ == "prep"
            and not any(c.dep_ in ("pobj", "pcomp") for c in t.children)
            and not _in_clause(t, be)
        ),
        None,
    )


def _in_clause(token: Any, top: Any) -> bool:
    """Whether ``token`` sits in a relative clause below ``top``."""
    for a in token.ancestors:
        if a == top:
            return False
        if a.dep_ == "relcl":  # not "made" of "the frame made of", read as a clause
            return True
    return False


def asks_called(question: Question) -> bool:
    """Whether the question asks what someone or something is called ("What's my dog
    called now?")."""
    return bool(_CALLED.search(question.text))


def named_noun_of(question: Question) -> str:
    """The noun whose name a question asks ("cousin" of "What is the name of June's
    cousin?" and of "my cousin's name", "studio" of "the name of the studio where I
    take my pottery course", "cat" of "What name did Tom give his cat?" and of "What's
    my cat called?"); "" when it names none."""
    for t in parse(question.text):
        if t.lemma_.lower() in ("call", "name") and t.pos_ == "VERB":
            # "What's my cat called?", "What did Tom call his cat?"
            if t.dep_ == "acl" and t.head.pos_ == "NOUN" and _someone(t.head.lemma_.lower()):
                return str(t.head.lemma_.lower())  # "the new vicar at our church called"
            roles = ("nsubjpass", "nsubj") if t.lower_ == "called" else ("dobj",)
            noun = next((c for c in t.children if c.dep_ in roles and _common(c)), None)
            if noun is not None:
                return str(noun.lemma_.lower())
            if t.dep_ == "acl" and t.lower_ == "called" and t.head.pos_ == "NOUN":
                return str(t.head.lemma_.lower())  # "What's Hamish's goshawk called?"
            if t.lower_ == "called" and t.head.lemma_ == "be":  # "What's the vicar at
                # St Aldhelm's called?", the parser hangs "called" on "is"
                subject = next((c for c in t.head.children if c.dep_ == "nsubj"), None)
                if subject is not None and _common(subject):
                    return str(subject.lemma_.lower())
        if t.lemma_.lower() != "name":
            continue
        if t.head.lemma_.lower() == "give" and t.head.i != t.i:  # "give his cat"
            given = [c for c in t.head.children if c.dep_ in ("dobj", "dative") and c.i != t.i]
            if given and given[0].pos_ == "NOUN":
                return str(given[0].lemma_.lower())
        for c in t.children:
            if c.dep_ == "poss" and c.pos_ == "NOUN":
                return str(c.lemma_.lower())
            if c.dep_ == "prep" and c.lower_ == "of":
                obj = next((_compound_noun(o) for o in c.children if o.dep_ == "pobj"), None)
                if obj is not None and obj.pos_ == "NOUN":
                    return str(obj.lemma_.lower())
    return ""


def _compound_noun(token: Any) -> Any:
    """``token``, or the last common noun compounded to it when the parser took a
    name after it for the head ("the ringers' association Gideon got me to join":
    "association", not "Gideon")."""
    if token.pos_ != "PROPN":
        return token
    nouns = [c for c in token.children if c.dep_ == "compound" and c.pos_ == "NOUN"]
    return nouns[-1] if nouns else token


def _common(noun: Any) -> bool:
    """Whether ``noun`` is a common noun, also one the tagger calls proper for its
    capital that names a kind ("Rosalind's Malinois", a breed: WordNet knows it)."""
    return bool(noun.pos_ == "NOUN" or (noun.pos_ == "PROPN" and known_noun(noun.lower_)))


def _verbless(noun: Any) -> Any:
    """The noun a kind is asked of when the parse hangs it on the question's verb:
    in "What sort of animal shares Priya's home?" the tagger reads "shares" as a
    verb but the parser as the object of "of", with "animal" before it; then
    "animal" is the noun asked for."""
    if noun.pos_ != "VERB":
        return noun
    compounds = [c for c in noun.children if c.dep_ == "compound" and c.pos_ == "NOUN"]
    return compounds[0] if compounds else noun


def possessions(question: Question) -> list[str]:
    """The nouns the question says someone has: "father" of "What does Dana's father
    do?", "cousin" of "my cousin's name" (a noun with a possessive before it)."""
    out = []
    doc = parse(question.text)
    verb = misread_verb(doc)
    for t in doc:
        owner = [c for c in t.children if c.dep_ == "poss"]
        if t.pos_ == "NOUN" and owner and (owner[0].pos_ == "PROPN" or owner[0].lower_ == "my"):
            if verb is not None and t.i == verb.i:  # "my honey harvest fill?": the harvest
                had = [c for c in t.children if c.dep_ == "compound" and c.pos_ == "NOUN"]
                if not had:
                    continue
                t = had[-1]
            out.append(t.lemma_.lower())
    return out


def misread_verb(doc: Any) -> Any | None:
    """The question's main verb where the tagger read it as a noun: the last word of
    a question whose only verb is the "do" that asks, after a noun ("How many jars
    did my first honey harvest fill?", "How much did my new boiler cost?": the
    small English pipeline tags "fill" and "cost" nouns of the phrase before them).
    None when the question has a verb of its own."""
    said = [t for t in doc if not t.is_punct]
    if len(said) < 3 or not doc.text.rstrip().endswith("?"):
        return None
    last = said[-1]
    asks = [t for t in said if t.pos_ in ("VERB", "AUX")]
    if last.pos_ != "NOUN" or len(asks) != 1 or asks[0].lemma_ != "do":
        return None
    before = doc[last.i - 1]
    return last if asks[0].i < last.i - 1 and before.pos_ in ("NOUN", "PROPN", "ADJ") else None
