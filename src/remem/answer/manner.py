"""How something went or is done: the sentence that tells it, not the one that names it.

Asked "How did John overcome his ankle injury?", the sentence sharing most words is
"Last season, I had a major challenge when I hurt my ankle." and the answer is the
next one: "I stayed focused on recovery and worked hard to strengthen my body." A
question of manner asks what is said *about* the event the question names, and a
speaker says it after naming it; when the sentence naming it is a question ("How did
they handle the accident?"), the other speaker's reply tells it.

So the extractive answer to a "how" question (one the typed reader gives no kind:
not "how many", "how long"...) is the best sentence and the one after it in the same
memory, or, for a sentence that asks, the first sentence of the reply that says more
than a few words. Every word is still a memory's. Measured on LoCoMo's 96 "how"
questions of categories 1-4 (synapse): containment 0.172 -> 0.285, token F1 0.082 ->
0.109 (docs/results/stop65/NOTE.md).
"""

from __future__ import annotations

from ..index.tokenize import sentences
from ..question import Question
from ..types import Hit
from .candidate import Around
from .want import wanted

#: a reply's sentence of this many words or fewer says how nothing went ("Thanks!",
#: "Oh, it was fine.")
_SHORT = 3


def asks_manner(question: Question) -> bool:
    """Whether ``question`` asks how something went or is done ("How did Melanie's
    son handle the accident?"), not a measure ("How many...?") nor a date."""
    text = question.text.lstrip().lower()
    return (
        text.startswith("how ")
        and question.answer_type not in ("date", "yes/no")
        and not wanted(question).kind
    )


def told_how(sentence: str, hit: Hit, around: Around) -> tuple[str, Hit]:
    """The answer to a question of manner from the extractive ``sentence`` of ``hit``
    (module notes): the sentence and the next of its memory; the reply's first
    sentence of some length when the sentence asks; the sentence alone when nothing
    follows it."""
    if sentence.rstrip().endswith("?"):
        reply = around.neighbours([hit]).get(hit.id) if around.neighbours else None
        if reply is None or reply.speaker == hit.speaker:
            return sentence, hit
        said = [s.strip() for s in sentences(reply.text) if len(s.split()) > _SHORT]
        return (said[0], reply) if said else (sentence, hit)
    parts = [p.strip() for p in sentences(hit.text)]
    at = parts.index(sentence) if sentence in parts else -1
    if 0 <= at < len(parts) - 1:
        return f"{sentence} {parts[at + 1]}", hit
    return sentence, hit
