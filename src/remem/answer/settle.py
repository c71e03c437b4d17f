"""Settling a reader's reply into the answer: English rules, applied after the reader.

A reply is settled by :func:`settle`, the one rule the benchmark's replay reuses
(``python scripts/replay_answers.py replay`` runs saved drafts through this same
function, so a replay is the live rule). Its checks are switches on
:class:`~remem.answer.Answerer` (``answer_options`` on Memory):

- the framing small readers wrap answers in is stripped (:func:`clean`), and a
  reply saying in any words that memory does not hold the answer is the refusal
  (:func:`is_refusal`);
- the verification rule is enforced, not only asked for: a reply whose own content
  words (those not already in the question; numbers, dates and stopwords aside) are
  mostly absent from the evidence is replaced by the refusal (``grounding``, the
  share that must be present; 0 turns the check off; :func:`grounded_share`), and so
  is one resting only on what memory says of someone other than the person asked
  about (``premise``; :func:`misattributed`);
- a question asking for a date gets the reply's date (``date_answers``;
  :func:`asks_for_date`, :func:`date_span`), others lose a restatement of the
  question (``trim_restatement``; :func:`drop_restatement`).

Small readers ignore the rule and name things memory never held, or answer a false
premise from the right line about the wrong person; the checks catch that, at a
false-refusal cost the QA benchmark reports. The rules were written from the drafts
of one benchmark run and are measured on that same run, as
docs/notes/benchmark-history.md#how-the-answer-rules-moved-the-numbers-the-same-drafts-settled-again
says.

The rules are English. Their grammar (dates, preambles, question shapes) is the
regular expressions here; their vocabularies (refusal marks, the words a reply may
add freely, personal words, pronouns, copulas) are plain word lists in
``remem/answer/data/``, each saying what it is for, read once when this module is
imported, so a list can be read, reviewed and extended without reading code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta

from .. import words
from ..index.tokenize import sentences, tokenize
from ..question import Question, as_question
from ..time.events import EventTime, read_times
from ..time.resolve import VAGUE
from ..time.tense import PAST, Clauses, opens_in_past, tense_of
from ..words import ASKING, PERSONAL, content_keys, word_key
from . import nlp

# The answer that says memory does not hold one: the phrase the prompts ask for, and
# what every refusal (the gate's, these rules', the extractive reader's) returns. It
# lives with the rules that produce it, so the reader imports from here, not back.
REFUSAL = "Not mentioned in the conversation"


def word_list(name: str) -> tuple[str, ...]:
    """The words of ``remem/answer/data/<name>`` (``words.word_list``)."""
    return words.word_list(name, "remem.answer", "data")


def _any_word(name: str) -> str:
    """A regular expression matching any word of the list ``data/<name>``."""
    return "(?:" + "|".join(re.escape(w) for w in word_list(name)) + ")"


# How readers say "the notes do not hold it" besides the requested phrase; a reply
# containing one is the refusal.
_REFUSAL_MARKS = word_list("refusal_marks.txt")
# Words a grounded answer may add without the evidence saying them (dates, yes/no,
# numbers as words, the reader's framing).
_FREE_WORDS = frozenset(word_list("free_words.txt"))
_NUMBERISH = re.compile(r"^\d+(?:st|nd|rd|th|s)?$")


def is_refusal(text: str) -> bool:
    low = text.lower()
    return not low.strip() or any(m in low for m in _REFUSAL_MARKS)


def note_date(ts: datetime) -> str:
    """A date as the notes write it ("8 May 2023"): the reader's context dates every
    memory so, and :func:`date_span` answers with dates so."""
    return f"{ts.day} {ts:%B %Y}"


def date_forms(day: date) -> list[str]:
    """How an answer may write ``day``: "8 March 2025", "March 8, 2025", "March 8
    2025", "2025-03-08" (what a grade by content looks for)."""
    month = day.strftime("%B")
    return [
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}, {day.year}",
        f"{month} {day.day} {day.year}",
        day.isoformat(),
    ]


def named_day(text: str) -> date | None:
    """The day ``text`` writes out in full ("Saturday 8 March 2025", "2025-03-08"),
    or None (a month alone, a relative time: no day)."""
    span = date_span(text)
    for fmt in ("%d %B %Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(span, fmt).date()
        except ValueError:
            continue
    return None


def say_event(event: EventTime, said_at: datetime | None = None) -> str:
    """An event time as an answer states it, as precise as it is: "Saturday 8 March
    2025", "the week of 3 March 2025", "March 2025", "summer 2023", "2025", "9 to 21
    May 2024". A time said with a vague quantity ("a few years ago") is stated in its
    own words from the day it was said ("a few years before 8 February 2023"): the
    likeliest interval would claim a precision nobody gave."""
    start = event.start
    if said_at is not None and event.confidence <= VAGUE:
        return vague_words(event.words, said_at)
    if event.granularity == "season":
        return season_name(event)
    if event.granularity == "day":
        return f"{start:%A} {note_date(start)}"
    if event.granularity == "week":
        return f"the week of {note_date(start)}"
    if event.granularity == "month":
        return f"{start:%B %Y}"
    if event.granularity == "year":
        return str(start.year)
    last = event.end - timedelta(microseconds=1)
    return f"{note_date(start)} to {note_date(last)}"


def vague_words(words: str, said_at: datetime) -> str:
    """ "a few years ago" said 8 February 2023 -> "a few years before 8 February
    2023"; "in a few weeks" -> "a few weeks after 8 February 2023"."""
    text = " ".join(words.split())
    if text.lower().endswith(" ago"):
        return f"{text[:-4]} before {note_date(said_at)}"
    if text.lower().startswith("in "):
        return f"{text[3:]} after {note_date(said_at)}"
    return f"{text} (said {note_date(said_at)})"


#: the American word for autumn, as a speaker says it
_FALL = re.compile(r"\bfall\b", re.I)


def season_name(event: EventTime) -> str:
    """ "summer 2023"; a winter names both its years ("winter 2023-24"); an autumn is
    named in the speaker's word ("last fall" -> "fall 2026"): an answer says no word
    its memory does not."""
    name = {2: "spring", 5: "summer", 8: "autumn", 11: "winter"}.get(event.start.month - 1)
    if name == "autumn" and _FALL.search(event.words):
        name = "fall"
    if name is None:  # clamped at the calendar's edge: say the months
        return f"{event.start:%B %Y} to {event.end - timedelta(days=1):%B %Y}"
    if name == "winter":
        return f"winter {event.start.year}-{(event.start.year + 1) % 100:02d}"
    return f"{name} {event.start.year}"


def unwritten(found: Sequence[EventTime], question: Question | str) -> list[EventTime]:
    """The times of ``found`` the question does not itself write: a time the question
    names is not its answer ("When did James try Cyberpunk 2077?": not 2077). Nor,
    for a question asking when something already happened, a time that begins after
    the moment it is asked ("When did Callum get back from Iceland?": not the trip
    he leads "next year")."""
    asked = as_question(question)
    written = asked.text.lower()
    found = [e for e in found if e.words.lower() not in written]
    if asked.asks_past and asked.now is not None:
        found = [e for e in found if not _after(e.start, asked.now)]
    return found


def _after(when: datetime, now: datetime) -> bool:
    """Whether ``when`` lies after ``now``; False when one is naive and the other is
    not (no order can be told)."""
    if (when.tzinfo is None) != (now.tzinfo is None):
        return False
    return when > now


def event_date(
    sentence: str, said_at: datetime, question: Question | str | None = None, back: bool = False
) -> str:
    """The time ``sentence`` talks about, resolved against when it was said
    (``time/events.py``: "on Saturday", said Monday 3 March 2025, is Saturday 8 March),
    as :func:`say_event` states it; "" when it names none. Of several, the one whose
    clause shares most words with ``question`` ("Tomorrow is my last day, and I start
    next Monday" asked when they start: next Monday), else the first. ``back``: a
    time with no tense of its own points back, as in a question (the reply "Sunday!"
    to "When did you do the assessment?")."""
    found = [t for t, _ in read_times(sentence, said_at, asking=back)]
    if question is not None:
        found = unwritten(found, question)
    if not found:
        return ""
    if question is None or len(found) == 1:
        return say_event(found[0], said_at)
    asked = as_question(question).keys - ASKING
    clauses = Clauses(sentence)

    def shared(event: EventTime) -> int:
        at = sentence.find(event.words)
        lo, hi = clauses.around(at, at + len(event.words)) if at >= 0 else (0, 0)
        return len(asked & content_keys(sentence[lo:hi]))

    return say_event(max(found, key=shared), said_at)  # ties: the first


def memory_date(
    text: str, sentence: str, said_at: datetime, question: Question | str | None = None
) -> str:
    """The time ``sentence`` of the memory ``text`` talks about (:func:`event_date`),
    else the one its neighbour names ("Guess what I did this week? I applied to
    adoption agencies!": the week; "I finally wrapped that up. It took until last
    month"): people give the time and the thing in one breath but often not in one
    sentence. The neighbour that shares more of the question's words first ("My
    passport arrived yesterday. And Hana had her baby! A little girl called Mina, born
    on Saturday." asked when the baby was born: Saturday), else the one before. Further
    off, only a sentence sharing a word of what the question asks about is read ("A
    rescue. Kettleby Reptile Rescue. I drove up and collected her last Saturday."
    asked when the tortoise was collected), so a time told of something else is not
    taken; "" when none names one."""
    parts = [p.strip() for p in sentences(text)]
    at = parts.index(sentence.strip()) if sentence.strip() in parts else -1
    found = event_date(sentence, said_at, question, back=at >= 0 and _among_past(parts, at))
    if found or at < 0:
        return found
    near = [i for i in (at - 1, at + 1) if 0 <= i < len(parts)]
    if question is not None:
        asked = as_question(question).keys - ASKING
        near.sort(key=lambda i: -len(asked & content_keys(parts[i])))  # stable: before first
    for i in near:
        found = event_date(parts[i], said_at, question, back=_among_past(parts, i))
        if found:
            return found
    if question is None:
        return ""
    topic = as_question(question).topic_keys
    farther = sorted((i for i in range(len(parts)) if abs(i - at) > 1), key=lambda i: abs(i - at))
    for i in farther:
        if topic & content_keys(parts[i]) and (
            found := event_date(parts[i], said_at, question, back=_among_past(parts, i))
        ):
            return found
    return ""


def _among_past(parts: list[str], at: int) -> bool:
    """Whether sentence ``at`` of a memory (its sentences ``parts``) has no verb and
    the sentence after it (else the one before) tells the past: "Hill reps with the
    Gazelles on Monday. On the fifth rep I felt something ping": the Monday just gone.
    Not a sentence with a verb in the present ("Gordon's picking her up on
    Saturday"), which tells what is ahead; nor without the English pipeline, which
    tells verbs apart (asked only when a neighbour tells the past)."""
    sentence = parts[at]
    if tense_of(sentence) or not nlp.available():
        return False
    beside = (tense_of(parts[i]) for i in (at + 1, at - 1) if 0 <= i < len(parts))
    if next((kind for kind in beside if kind), 0) != PAST:
        return False
    return not any(t.pos_ in ("VERB", "AUX") for t in nlp.parse(sentence))


def settle(
    draft: str,
    question: Question | str,
    context: str,
    grounding: float,
    *,
    date_answers: bool = True,
    lines: Sequence[tuple[str | None, str]] = (),
    premise: bool = True,
    trim_restatement: bool = True,
) -> tuple[str, bool]:
    """The reader's ``draft`` made the answer: cleaned, cut to its date when the
    question asks for one (``date_answers``) or else without the question restated
    before it (``trim_restatement``), and replaced by the refusal when it says
    it is not in memory, fails the grounding check (``grounding`` is the share of its
    own content words the context must hold; 0 turns it off) or, with ``premise``,
    rests on what memory says of someone other than the person asked about (see
    :func:`misattributed`; ``lines`` are the evidence as (speaker, text)). Returns
    (text, refused). The QA benchmark replays saved drafts through this same
    function, so a replay is the live rule."""
    q = as_question(question)
    text = clean(draft, keep_date=q.temporal)
    refused = (
        is_refusal(text)
        or (grounding > 0 and grounded_share(text, q, context) < grounding)
        or (premise and misattributed(text, q, lines))
    )
    if refused:
        return REFUSAL, True
    if date_answers and q.answer_type == "date":
        text = date_span(text) or text
    elif trim_restatement:
        text = drop_restatement(text, q)
    return text, False


_COPULA = re.compile(rf"\s{_any_word('copulas.txt')}\s+", re.I)


def drop_restatement(text: str, question: Question | str) -> str:
    """The answer without the question restated before it: "The name of Ana's
    teacher is Ines Duarte." asked "What is the name of Ana's teacher?" is "Ines
    Duarte". Only when everything before the first "is"/"was"/"are" is words of the
    question (so "No, she is not" or "Ana's sister is in Paris" asked who lives
    there stay whole)."""
    if re.match(r"\W*(?:yes|no)\b", text, re.I):  # "No, the cat is ..." answers yes/no
        return text
    asked = as_question(question).all_keys
    # the last "is" whose head is all question words ("The name of the pup that was
    # adopted by James is Ned": the second one)
    for m in reversed(list(_COPULA.finditer(text))):
        head, rest = text[: m.start()], text[m.end() :].strip()
        said = [_key(t) for t in tokenize(head) if t not in PERSONAL]  # "she" says nothing
        if rest and said and all(w in asked for w in said):
            return rest
    return text


_FIRST_PERSON = re.compile(rf"\b{_any_word('first_person.txt')}\b", re.I)
_SECOND_PERSON = re.compile(rf"\b{_any_word('second_person.txt')}\b", re.I)


def about(speaker: str | None, text: str, speakers: set[str]) -> str | None:
    """Whose the line's content is, when its pronouns say so: the speaker's in the
    first person ("my grandma") or with the "I" left out ("Got the keys on Saturday",
    ``time.tense.opens_in_past``), the other one's in the second person between two
    people ("what got you into running?"); None when mixed or third person."""
    first = bool(_FIRST_PERSON.search(text)) or opens_in_past(text)
    second = bool(_SECOND_PERSON.search(text))
    if first and not second:
        return speaker
    if second and not first and speaker in speakers and len(speakers) == 2:
        return next(p for p in speakers if p != speaker)
    return None


def misattributed(
    answer: str, question: Question | str, lines: Sequence[tuple[str | None, str]]
) -> bool:
    """True when the answer comes from what memory says of someone else than the one
    person the question asks about: the question names exactly one of the evidence's
    speakers, and every evidence line that best supports the answer's own words is,
    by its pronouns, about another person. A false premise is the usual shape of an
    unanswerable question ("What is Melanie's grandma's country?" when Caroline said
    "a gift from my grandma in Sweden"), and small readers answer it from the line
    anyway. Answers without content words of their own (yes/no, dates, numbers) and
    lines whose owner is unclear are never judged."""
    speakers = {sp for sp, _ in lines if sp}
    q = as_question(question)
    named = [p for p in speakers if re.search(rf"\b{re.escape(p)}\b", q.text, re.I)]
    if len(named) != 1:
        return False
    asked = q.all_keys
    own = {
        _key(t) for t in tokenize(answer) if not _NUMBERISH.match(t) and t not in _FREE_WORDS
    } - asked
    if not own:
        return False
    support = [(len(own & {_key(t) for t in tokenize(text)}), sp, text) for sp, text in lines]
    best = max((n for n, _, _ in support), default=0)
    if best == 0:
        return False
    owners = {about(sp, text, speakers) for n, sp, text in support if n == best}
    return None not in owners and named[0] not in owners


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]|20)\d{2}"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DATE_SPAN = re.compile(
    # an optional relative lead ("the week before", "last Sunday of"), then the date
    rf"(?:(?:the\s+)?(?:(?:first|second|third|last|next|same|previous|following)\s+)?"
    rf"(?:day|week|weekend|month|year|{_WEEKDAY})s?\s+(?:before|after|of|prior\s+to)\s+)?"
    rf"(?:{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
    rf"|(?:(?:early|mid|late)[-\s]+)?(?:{_MONTH}|spring|summer|autumn|fall|winter)"
    rf"(?:\s+of)?,?\s+{_YEAR}"
    rf"|(?<=\bin\s){_MONTH}"  # "in July"
    rf"|(?P<iso>{_YEAR}-\d{{2}}-\d{{2}})"
    rf"|{_YEAR})\b",
    re.I,
)


#: a bare year right after "a" or "an" names a thing's make, not a time ("a 1974
#: Honda", "a 2015 Rioja")
_MODEL_YEAR = re.compile(r"\b(?:a|an)\s+\d{4}$", re.I)


def date_span(text: str, question: Question | str | None = None) -> str:
    """The first date in ``text`` with its relative lead ("the week before 9 June
    2023"), an ISO date written as the notes write dates; "" when there is none.
    Readers answer "When did Ana move?" with a sentence around the date ("Ana moved
    to Paris on 8 May 2023."); the date is the answer. A date the ``question`` itself
    writes is not its answer ("When did James try Cyberpunk 2077?": not "2077"), nor
    is a thing's make year ("a 1974 Honda")."""
    asked = (as_question(question).text if question is not None else "").lower()
    m = next(
        (
            m
            for m in _DATE_SPAN.finditer(text)
            if m.group(0).lower() not in asked and not _MODEL_YEAR.search(text, 0, m.end())
        ),
        None,
    )
    if not m:
        return ""
    if m.group("iso"):
        try:
            when = datetime.strptime(m.group("iso"), "%Y-%m-%d")
        except ValueError:
            return m.group(0)
        return text[m.start() : m.start("iso")] + note_date(when)
    return m.group(0)


def grounded_share(answer: str, question: Question | str, context: str) -> float:
    """Share of the answer's own content words (stemmed) that occur in the context;
    1.0 when it has none (a yes/no, a number, a date)."""
    asked = as_question(question).all_keys
    known = {_key(t) for t in tokenize(context)}
    own = [
        w
        for t in _words(answer)
        if not _NUMBERISH.match(t) and t not in _FREE_WORDS and (w := _key(t)) not in asked
    ]
    if not own:
        return 1.0
    return sum(w in known for w in own) / len(own)


def _words(text: str) -> list[str]:
    """Content words plus yes/no, which the BM25 stopword list would drop."""
    low = text.lower()
    extra = [w for w in ("yes", "no") if re.search(rf"\b{w}\b", low)]
    return tokenize(text) + extra


# What a reader puts before its answer: "The answer to the question is:", "A:", a
# note's "[8 May 2023]" or "Ana:" echoed from the context's format.
_PREAMBLE = re.compile(
    r"^(?:(?:the\s+)?(?:final\s+)?answer(?:\s+to\s+(?:the|this|your)\s+question)?"
    r"(?:\s+is)?\s*(?::\s*|\s+(?=\S))"
    r"|a\s*:\s*)",
    re.I,
)
_ECHOED_LABEL = re.compile(r"^(?:\[[^\]\n]{1,40}\]\s*|[A-Z][\w'.-]{0,30}:(?:\s+|$))")
_WRAPPERS = "\"'*`“”‘’ "


def clean(text: str, *, keep_date: bool = True) -> str:
    """The reader's first line without the framing small models add around an answer
    (a preamble, an echoed note date or speaker label, quotes, markdown bold). Left
    in, the framing dilutes token F1 and, having no support in the notes, trips the
    grounding check on answers that are in fact grounded. A note date alone in
    brackets ("[15 July 2023]") is the answer to a question about time
    (``keep_date``), and an echo with nothing to say otherwise; a speaker label alone
    ("Ana:") says nothing."""
    text = text.strip()
    line = text.splitlines()[0].strip() if text else ""
    for _ in range(8):  # a reply may stack them: "The answer is: [date] Ana: ..."
        before = line
        line = _PREAMBLE.sub("", line, count=1).strip()
        label = _ECHOED_LABEL.match(line)
        if label:
            rest = line[label.end() :].strip()
            lone_date = label.group(0).startswith("[") and keep_date
            line = rest or (label.group(0).strip().strip("[]") if lone_date else "")
        line = line.strip(_WRAPPERS)
        if line == before:
            break
    return line


_key = word_key


def asked_keys(question: Question | str, names: str = "") -> set[str]:
    """What ``question`` asks about: its content keys, the words that ask and the
    words of ``names`` (the speakers') aside."""
    return set(as_question(question).keys - ASKING - content_keys(names))


# -- degenerate replies --------------------------------------------------------------

_LABEL_TOKEN = re.compile(r"^[A-Z][\w'.-]{0,30}:$")
_REPLY_WORD = re.compile(r"\S+")


def degenerate(reply: str, question: Question | str) -> str:
    """Why the reader's ``reply`` is no answer at all, or "" when it is one.

    Small readers sometimes emit nothing, loop ("and then and then and then ..."),
    echo the context's speaker labels ("Me: Me: Me: Me:") or hand the question back.
    Such a reply says nothing about memory, so it is neither an answer nor a refusal:
    the reader replaces it with the extractive answer, which may itself refuse.

    - ``"empty"``: no word once the framing is stripped (a reply that is only
      punctuation, quotes or a lone label);
    - ``"labels"``: two or more of its words are speaker labels ("Me:", "Ana:");
    - ``"loop"``: a run of one to four words repeated three times in a row, or, in a
      reply of eight words or more, fewer than half of them distinct;
    - ``"question"``: it ends with a question mark, or is the question's own content
      words (two or more, at least two thirds of them) and nothing else.

    A short choice from the question ("coffee" to "Tea or coffee?"), a yes/no, a
    date or a number is an answer, not a restatement.
    """
    text = reply.strip()
    words = _REPLY_WORD.findall(text)
    if sum(bool(_LABEL_TOKEN.match(w)) for w in words) >= 2:
        return "labels"
    low = [w.lower().strip(_WRAPPERS + ".,;:!?") for w in words]
    low = [w for w in low if w]
    for n in range(1, 5):
        for i in range(len(low) - 3 * n + 1):
            if low[i : i + n] == low[i + n : i + 2 * n] == low[i + 2 * n : i + 3 * n]:
                return "loop"
    if len(low) >= 8 and len(set(low)) < len(low) / 2:
        return "loop"
    cleaned = clean(text)
    if not re.search(r"\w", cleaned):
        return "empty"
    if cleaned.rstrip(_WRAPPERS).endswith("?"):
        return "question"
    asked = as_question(question).keys
    said = content_keys(cleaned)
    if len(said) >= 2 and said <= asked and len(said) >= 2 * len(asked) / 3:
        return "question"
    return ""
