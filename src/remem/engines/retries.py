"""How an engine's LLM job survives a dead or confused endpoint.

SYNAPSE's concept extraction and ILSTMA's summaries both call an LLM in the
background of ``add``. A failure must never lose a memory (it is stored before the
job runs) and must not make every later ``add`` wait on a dead endpoint: the batch
stays queued for the next round, and after ``attempts`` failures in a row the engine
uses its offline method for it instead. One count per user, reset by a success.
"""

from __future__ import annotations

import logging

from ..errors import LLMError
from ..redact import failure


class LLMFailures:
    """Consecutive LLM failures of one job, per user (see the module notes)."""

    def __init__(self, job: str, fallback: str, attempts: int, log: logging.Logger):
        self.job = job  # "concept extraction", "LLM summary": what the logs name
        self.fallback = fallback  # what runs instead once attempts are spent
        self.attempts = attempts
        self.log = log  # the engine's own logger
        self._counts: dict[str, int] = {}

    def succeeded(self, user_id: str) -> None:
        self._counts.pop(user_id, None)

    def queue(self, user_id: str, exc: LLMError, what: str = "") -> bool:
        """Count a failure: True = leave the batch queued for the next round, False =
        attempts spent, run the fallback now (the count starts again). ``what`` says
        what failed ("for 12 memories"); the log never holds the endpoint's words."""
        n = self._counts.get(user_id, 0) + 1
        self._counts[user_id] = n
        if n < self.attempts:
            self.log.warning(
                "%s failed%s (%s); queued, attempt %d/%d",
                self.job,
                f" {what}" if what else "",
                failure(exc),
                n,
                self.attempts,
            )
            return True
        self.log.warning("%s failed %d times (%s); %s", self.job, n, failure(exc), self.fallback)
        self._counts.pop(user_id, None)
        return False
