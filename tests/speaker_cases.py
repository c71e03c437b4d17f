"""Conversations the speaker-prior tests of both engines share."""

from __future__ import annotations

#: two people; Ben ran the charity race and says what he realised after it, Ana only
#: cheered: "What did Ana realize after her charity race?" (:data:`BORROWED`) borrows
#: Ben's words (LoCoMo's category 5), and the prior weighs his turn down below hers
CHARITY_RACE = [
    ("Ana", "The charity race route passed my street, so I cheered for the runners."),
    ("Ben", "After my charity race I realized how much my family means to me."),
    ("Ana", "I baked muffins for the charity race volunteers at the finish."),
    ("Ana", "My sister wants to join the charity race next spring."),
    ("Ben", "Thanks Ana, the muffins were great."),
]
BORROWED = "What did Ana realize after her charity race?"
