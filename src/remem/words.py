"""The word rules every stage shares, in one place.

A question is read once (``question.py``) with these rules, and a memory's sentences
are keyed with the same ones, so what the verdict, the reader and the stages call "the
same word" is one thing. Before, the verdict borrowed the reply-settling rules'
``word_key``/``content_keys`` (``answer/settle.py``) and read the question again.
The English word lists are data (``remem/data/*.txt``: one word a line, "#" starts a
comment).
"""

from __future__ import annotations

import re
from importlib import resources

from .index.tokenize import stem, tokenize
from .time.patterns import CALENDAR_WORDS


def word_list(name: str, package: str = "remem.data", folder: str = "") -> tuple[str, ...]:
    """The words of ``<package>/<folder>/<name>``, in order: one word or phrase a
    line; "#" starts a comment; blank lines are skipped."""
    root = resources.files(package)
    text = (root / folder / name if folder else root / name).read_text("utf-8")
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return tuple(line for line in lines if line)


#: irregular past form -> base form (``data/irregular_past.txt``)
#: and irregular plural -> singular (``data/irregular_plural.txt``): "feet" meets "foot"
_IRREGULAR = dict(
    line.split()
    for name in ("irregular_past.txt", "irregular_plural.txt")
    for line in word_list(name)
)


def word_key(token: str) -> str:
    """A word's light stem with a final "e" dropped, so "move" meets "moved" and
    "name" meets "named" (the stemmer leaves "move" and cuts "moved" to "mov"); an
    irregular past form is its base's ("won" meets "win": ``data/irregular_past.txt``),
    and a past in "-ied" its base's in "-y" ("applied" meets "apply", "married"
    "marry"; the stemmer cuts "applied" to "appli" and leaves "apply")."""
    token = _IRREGULAR.get(token.lower(), token)
    if _SHORT_PLURAL.match(token) and token.lower() not in _SHORT_SINGULAR:
        token = token[:-1]  # "mugs" meets "mug": the stemmer leaves four letters alone
    if len(token) >= 5 and token.endswith("ied"):
        return token[:-3] + "y"
    key = stem(token).rstrip("e") or token
    if token.endswith(("ing", "ed")) and _DOUBLED.search(key):
        return key[:-1]  # "digging" meets "dig", "planned" "plan"
    return key


#: the fewest letters of the shorter of two keys of one family (:func:`one_family`)
_FAMILY = 5


def one_family(a: str, b: str) -> bool:
    """Whether two keys (:func:`word_key`) are words of one family: one starts with
    the other, the shorter of five letters or more ("teacher" and "teach" of
    "teaching", "cater" of "caterer" and "catering", which the stemmer keeps apart;
    not "company" and "compare")."""
    return min(len(a), len(b)) >= _FAMILY and (a.startswith(b) or b.startswith(a))


#: a plural of four letters, which the stemmer keeps whole ("mugs", "pots", "hens");
#: not "this", "plus", "less"
_SHORT_PLURAL = re.compile(r"^[A-Za-z]{2}[a-hj-rtvw-zA-HJ-RTVW-Z][sS]$")
#: words of four letters in "s" that are no plural; and "days", a count of them, which
#: says no day ("Eight days, hut to hut" tells no "first day")
_SHORT_SINGULAR = frozenset({"news", "lens", "does", "goes", "gets", "says", "ages", "days"})

#: a stem ending in a doubled consonant, as "-ing" and "-ed" leave one ("digg" of
#: "digging", "plann" of "planned"); not "ll", "ss", "zz" or "ff", which the base has
#: ("filled", "dressed"), nor a stem of three letters ("add" of "added")
_DOUBLED = re.compile(r"^\w{2,}([b-dghj-km-np-rtv-y])\1$")


#: words that tie a question to any sentence about the same person ("my", "did")
PERSONAL = frozenset(word_list("personal_words.txt"))

#: the keys of the words that ask ("what", "where", "how"...): what kind of answer a
#: question wants, not what it is about, so no sentence is expected to hold them
ASKING = frozenset(
    word_key(w) for w in ("what", "which", "when", "where", "who", "whom", "whose", "why", "how")
)


def content_keys(text: str) -> set[str]:
    """The keys (:func:`word_key`) of ``text``'s content words, personal words aside:
    what a question and a sentence must share to speak of the same thing."""
    return {word_key(t) for t in tokenize(text) if t not in PERSONAL}


# -- what a question is about ---------------------------------------------------------

FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.I)

#: "my" and what follows it up to the end of the clause: the thing a question
#: presupposes the user has ("my favourite film", "my cat", "my brother's name")
_MY = re.compile(r"\bmy\s+(?=([^?.,!;:]*))", re.I)

#: a capitalised word that does not start the question or a sentence: a name
_NAME = re.compile(r"(?<!^)(?<![.?!] )(?<![.?!]\n)\b([A-Z](?:[^\W\d_]|['&-])*)")

_PHRASE_ENDS = frozenset(word_list("phrase_ends.txt"))
_AUXILIARIES = frozenset(word_list("auxiliaries.txt"))
#: what anyone has, said of as "we", "home" or not at all rather than by its word: no
#: premise a memory must hold ("How long was Callum's family without hot water?",
#: "What did my husband give me for my birthday?", "delivered to my house")
EVERYONE_HAS = frozenset({"family", "household", "birthday", "home", "house", "life"})
#: adverbs a verb takes after its object ("bring it round", "was it away"): after the
#: first word of a phrase after "my", the phrase has ended ("my back" is a thing)
_PARTICLES = frozenset(
    {"away", "round", "around", "back", "out", "off", "over", "down", "along", "home",
     "together", "apart", "aside"}
)  # fmt: skip

#: capitalised words that are not names of anything memory could hold
NOT_NAMES = frozenset({"i", "i'm", "i've", "i'd", "i'll"}) | CALENDAR_WORDS


def possessed(question: str) -> list[str]:
    """Each thing the question says the user has (a word as the index reads it,
    lower case): the last of the (at most
    three) words after "my" ("my favourite film" -> "film", "my dog" -> "dog"). The
    phrase ends at a word the index does not keep ("is", "the"), a personal or asking
    word, a closed-class word (``data/phrase_ends.txt``: "my grandma than me"), a
    possessive's "'s" ("my brother's name" -> "brother") or a sign; its last word is
    dropped when it is the question's verb: after an auxiliary (``data/auxiliaries.txt``:
    "Where did my sister move?" -> "sister") or as a participle ending in "-ed" ("What
    are my cats called?" -> "cats") or an irregular past ("How many of my pieces
    broke?" -> "pieces"). Without a parser this is what the words allow."""
    heads = []
    for m in _MY.finditer(question):
        words: list[str] = []
        for w in m.group(1).split()[:3]:
            toks = tokenize(w)
            if not toks or toks[0] in PERSONAL or toks[0] in _PHRASE_ENDS:
                break
            if word_key(toks[0]) in ASKING or (words and toks[0] in _PARTICLES):
                break  # "my sister bring round", "my cabinet away": a verb's particle
            words.append(toks[0])
            if w.lower().endswith(("'s", "\u2019s")):
                break
        before = question[: m.start()].split()
        verb_next = bool(before) and before[-1].lower() in _AUXILIARIES
        if len(words) > 1 and (verb_next or words[-1].endswith("ed") or words[-1] in _IRREGULAR):
            words.pop()
        if words:
            heads.append(words[-1])
    return heads


def names(question: str) -> list[str]:
    """The names in a question: its capitalised words inside a sentence, days,
    months and "I" aside ("What did Xiomara say?" -> ["Xiomara"])."""
    return [n for n in _NAME.findall(question) if n.lower() not in NOT_NAMES]


# -- what kind of answer it wants -----------------------------------------------------

_TEMPORAL = re.compile(
    r"\b(when|what (?:date|day|year|month|time|week)|which (?:date|day|year|month)|"
    r"how long|how many (?:days|weeks|months|years)|ago|since|until)\b",
    re.I,
)
#: a day of its own, the thing asked ("my first day", "the opening date")
_OWN_DAY_WORDS = r"(?:first|last|final|start|starting|opening|closing)\s+(?:date|day)\b"
_DATE_QUESTION = re.compile(
    # not "Which day is my show on now?": a day of the week, asked of a habit; nor
    # "Which day of the week does she go now?", a weekday whatever follows
    r"^\W*(?:when\b|(?:what|which|(?:on|in) (?:what|which))\s+(?:date|year|month|week|"
    r"day(?!\s+of\s+the\s+week\b)"
    r"(?!\s+(?:is|are|do|does)\b.*\b(?:now|usually|normally|nowadays|every|each|regularly)\b)"
    # not "Which day centre did we settle on?": a noun the unit only describes
    r")\b(?!\s+(?!(?:is|are|was|were|do|does|did|will|would|shall|should|can|could|has|have|"
    r"had|of|in|on|at|for|this|that|last|next)\b)[a-z]+\s+(?:did|do|does|is|was|were|are)\b)"
    # "What was the date of Dad's party?"
    r"|what(?:'s|\s+is|\s+was|\s+were)\s+the\s+(?:date|day)\s+(?:of|that|when)\b"
    # "What was my first day at the startup?": a day of its own, not a kind of day
    r"|^\W*what(?:'s|\s+is|\s+was|\s+will\s+be)\s+(?:my|our|his|her|their|the|\w+'s)\s+"
    rf"{_OWN_DAY_WORDS}"
    # "What's my hawk's hatch date?", "What is our due date?": the noun asked is a
    # date, whatever it is the date of; not "date night", a noun the word describes
    r"|^\W*what(?:'s|\s+is|\s+was|\s+will\s+be)\s+(?:my|our|his|her|their|the)\s+"
    r"(?:[\w'-]+\s+){0,3}?(?:date|birthday)\s*(?:\?|$|\b(?:of|for|again)\b))",
    re.I,
)
#: a day of its own asked by a date question ("What was my first day at the startup?")
_OWN_DAY = re.compile(rf"\b{_OWN_DAY_WORDS}", re.I)
_NUMBER_QUESTION = re.compile(
    r"^\W*(?:(?:by|for|in|to|with|at|of)\s+)?how\s+(?:many|much|often|old|long|far)\b", re.I
)
_PERSON_QUESTION = re.compile(r"^\W*(?:who|whom|whose)\b|\bwhat(?:'s| is)\b.*\bname\b", re.I)
_PLACE_QUESTION = re.compile(r"^\W*where\b|\b(?:which|what)\s+(?:city|country|town|place)\b", re.I)
_YES_NO = re.compile(
    r"^\W*(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|should)\b", re.I
)

#: the kinds of answer a question can want (``answer_type``)
ANSWER_TYPES = ("date", "number", "person", "place", "yes/no", "thing")


def is_temporal(question: str) -> bool:
    """Whether the question is about time at all (a date, a duration, "ago")."""
    return bool(_TEMPORAL.search(question))


def asks_for_date(question: str) -> bool:
    """ "When ...?" / "Which year ...?": the answer is a point in time (unlike "how
    long", whose answer is a duration)."""
    return bool(_DATE_QUESTION.search(question))


def date_unit(question: str) -> frozenset[str]:
    """The key of the unit a date question asks by ("day" of "On what day did he pick
    it up?"): it asks, like "when", and says nothing of the thing asked ("Saturday's our
    busiest day" is no answer for sharing it). Empty for any other question."""
    m = _DATE_QUESTION.search(question)
    if m and _OWN_DAY.search(m.group(0)):
        return frozenset()  # "my first day" is the thing asked: "Monday was day one"
    units = re.findall(r"\b(date|year|month|week|day)\b", m.group(0), re.I) if m else []
    return frozenset({word_key(units[-1].lower())}) if units else frozenset()


#: words a question may open with before it asks ("Remind me, what's the date of
#: the wedding?", "Quick question: who...?", "Out of interest, how many...?")
_PREAMBLE = re.compile(
    r"^\W*(?:(?:remind\s+me|quick\s+question|sorry|hey|hi|also|by\s+the\s+way|"
    r"out\s+of\s+(?:interest|curiosity)|just\s+(?:wondering|checking)|one\s+more\s+thing|"
    r"i\s+forg[eo]t|tell\s+me\s+again)\s*[,:;.\u2013\u2014-]\s*)+",
    re.I,
)


def asking_part(question: str) -> str:
    """``question`` without the words it opens with before it asks (:data:`_PREAMBLE`):
    the rules that read a question's first words read what asks."""
    return _PREAMBLE.sub("", question)


def answer_type(question: str) -> str:
    """What kind of answer the question wants (one of :data:`ANSWER_TYPES`), from its
    asking words: a date ("when", "which year"), a number ("how many", "how old"), a
    person ("who", "what is the name"), a place ("where", "which city"), yes or no (it
    starts with an auxiliary), else a thing."""
    question = asking_part(question)
    for kind, rule in (
        ("date", _DATE_QUESTION),
        ("number", _NUMBER_QUESTION),
        ("person", _PERSON_QUESTION),
        ("place", _PLACE_QUESTION),
        ("yes/no", _YES_NO),
    ):
        if rule.search(question):
            return kind
    return "thing"
