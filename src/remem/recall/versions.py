"""The versions stage: a question about a value that changes reads more than one telling.

"How many hours have I spent on my sculpture?", "What time do I wake up on Saturdays
now?", "How many issues have I finished?": the answer is the newest telling of a
value, and the tellings before it say that it changed. People tell such a value in
different conversations, weeks apart, and the engine ranks the newest conversation's
turns (its other questions about the same thing, the assistant's replies) above the
earlier telling: hybrid's misses on the knowledge-update questions of long assistant
histories were the older of two evidence turns, just below the cut, under the newer
one's session.

So when a question asks for a count or an amount (answer type "number") or for the
current or former state of something (an order word: "now", "currently", "still",
"initially", "used to"), and its top ``k`` holds the memories of one session only, the
best memory of another session within the engine's deeper list takes the last place.
Any other question, a top ``k`` already spanning sessions, or memories given no session
are left as they are.

Measured: docs/notes/benchmark-history.md#time-and-change-fourth-round-issue-36.
"""

from __future__ import annotations

from ..engines.base import Scored
from ..index.cache import IndexCache
from ..question import Question

#: choice: how deep the engine's list is read for another session's memory (the
#: older telling sat at ranks 5 to 8 in every miss looked at)
DEPTH = 20
#: the fewest results the stage acts on: one place for the newest telling's session,
#: one for another's, and at least one more of the first
MIN_K = 3


def asks_value(question: Question) -> bool:
    """Whether ``question`` asks for a value that may have changed: a count or amount,
    or the current or former state of something."""
    return question.answer_type == "number" or question.order is not None


class VersionsStage:
    """Gives a value question a second session's telling (module notes)."""

    name = "versions"
    #: handed the earlier stages' output and the rest of the engine's candidates
    deep = True

    def __init__(self, indexes: IndexCache, depth: int = DEPTH):
        self._indexes = indexes
        self._depth = depth

    def depth(self, question: Question, k: int) -> int:
        return max(k, self._depth) if asks_value(question) else k

    def __call__(
        self, user_id: str, question: Question, hits: list[Scored], k: int
    ) -> list[Scored]:
        """``hits`` cut to ``k``, its last place another session's best memory when
        the question asks a value and the first ``k`` are all of one session."""
        if k < MIN_K or len(hits) <= k or not asks_value(question):
            return hits[:k]
        with self._indexes.use(user_id) as idx:
            sessions = [int(idx.session[idx.pos[h.id]]) if h.id in idx.pos else -1 for h in hits]
        first = set(sessions[:k])
        if len(first) != 1 or -1 in first:
            return hits[:k]
        for i in range(k, len(hits)):
            if sessions[i] not in first and sessions[i] != -1:
                other = hits[i].noted("another conversation's telling of a value asked")
                return [*hits[: k - 1], other]
        return hits[:k]

    def forget(self, user_id: str, ids: list[str]) -> None:
        pass  # it keeps nothing of memories

    def forget_user(self, user_id: str) -> None:
        pass
