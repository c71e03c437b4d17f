"""The "not in memory" verdict's models (``answer/verdict.py`` reads the signals and
judges): what an engine declares as its ``Engine.verdict``, so it lives beside the
engine contract. A model is fitted, never chosen (``scripts/calibrate_verdict.py``);
the families here were each fitted on the engine they are named after, with that
engine's default settings. :class:`VerdictModel` and :func:`verdict_model` are public
(docs/plugins.md#its-not-in-memory-verdict)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import InvalidInputError, InvalidTypeError, UnknownComponentError

__all__ = [
    "CALIBRATED",
    "DEFAULT_FAMILY",
    "FAMILIES",
    "FEATURES",
    "MODELS",
    "VerdictModel",
    "verdict_model",
]

#: the model's inputs, in the order of each model's weights (``answer/verdict.py``)
FEATURES = ("own", "other", "coverage", "unseen", "missed")

# Fitted by scripts/calibrate_verdict.py, one engine and regime at a time
# (L2-regularised logistic regression, 1e-2), k=10: (bias, weights in the order of
# FEATURES, threshold), the threshold being the score at which the calibration
# questions' false refusal is 0.09. ``named``: the questions naming one speaker in
# half of a chat benchmark's conversations (its unanswerable questions the
# positives); ``self``: half of an assistant-history benchmark's first-person
# questions, each asked on its own history and as never said on another's (those
# and its abstention questions the positives; ``own`` and ``other`` are 0 there and
# get no weight). Which halves, and the other halves held out (`remem-bench verdict`):
# docs/notes/benchmark-history.md#the-verdict.
# Each is the model of an engine family (:data:`FAMILIES`), fitted on that engine
# with its default settings; an engine declares its family (``Engine.verdict``).
CALIBRATED: dict[str, dict[str, tuple[float, tuple[float, ...], float]]] = {
    "hybrid": {
        # fitted on 916 questions (hybrid; synapse 915), the positives of category 5;
        # refitted when "we" became the speaker's (answer/data/first_person.txt)
        "named": (-0.6841, (-2.2086, 1.8837, -0.0856, -0.0319, 0.0768), 0.3335),
        # fitted on 386 questions: 192 never said and 11 abstention, the positives
        "self": (0.4654, (0.0, 0.0, -2.4471, 1.7313, 0.6705), 0.6144),
    },
    "synapse": {
        # kept when hybrid's was refitted: refitted too, it refused "what did Bea
        # plant?" of "Bea planted row 6" (no pronoun says whose: the score at the
        # line) and lowered held-out F1 1-4
        # (docs/notes/benchmark-history.md#time-and-change-fourth-round-issue-36)
        "named": (-0.7525, (-2.1246, 1.8616, -0.0145, 0.0126, -0.0227), 0.3230),
        "self": (0.5248, (0.0, 0.0, -2.4466, 1.7543, 0.6012), 0.6137),
    },
}


#: a model's constants: bias, weights in the order of FEATURES, threshold
Constants = tuple[float, tuple[float, ...], float]

#: the models a :class:`VerdictModel` holds, one per fitted regime
MODELS = ("named", "self")


@dataclass(frozen=True)
class VerdictModel:
    """The verdict's fitted constants: ``models`` maps each of :data:`MODELS` to
    ``(bias, weights in the order of FEATURES, threshold)``, as
    ``scripts/calibrate_verdict.py`` prints them; ``family`` says where they came from
    (a name of :data:`FAMILIES`, or "custom"). Checked when made: both models, five
    finite weights, a finite bias, a threshold in [0, 1]."""

    models: Mapping[str, Constants]
    family: str = "custom"

    def __post_init__(self) -> None:
        if not isinstance(self.models, Mapping):
            raise InvalidTypeError(
                f"a verdict model is a mapping of {' and '.join(MODELS)} to "
                f"(bias, weights, threshold), not {type(self.models).__name__}"
            )
        if set(self.models) != set(MODELS):
            raise InvalidInputError(
                f"a verdict model needs exactly the models {', '.join(MODELS)}; "
                f"got {sorted(map(str, self.models))}"
            )
        checked = {m: _constants(self.models[m], m) for m in MODELS}
        object.__setattr__(self, "models", MappingProxyType(checked))
        if not isinstance(self.family, str) or not self.family:
            raise InvalidTypeError("a verdict model's family must be a non-empty str")

    def as_dict(self) -> dict[str, list[Any]]:
        """The constants as plain lists (what ``Memory(verdict=...)`` accepts, as JSON)."""
        return {m: [b, list(w), t] for m, (b, w, t) in self.models.items()}


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTypeError(f"{what} must be a number, not {type(value).__name__}")
    if not math.isfinite(value):
        raise InvalidInputError(f"{what} must be finite, not {value!r}")
    return float(value)


def _constants(value: object, model: str) -> Constants:
    """``(bias, weights, threshold)`` of ``model`` checked and made floats."""
    where = f"verdict model {model!r}"
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 3:
        raise InvalidInputError(f"{where} must be (bias, weights, threshold)")
    bias, weights, threshold = value
    if not isinstance(weights, Sequence) or isinstance(weights, str):
        raise InvalidTypeError(f"{where}: weights must be a sequence of numbers")
    if len(weights) != len(FEATURES):
        raise InvalidInputError(
            f"{where}: {len(weights)} weights; one per feature ({', '.join(FEATURES)})"
        )
    ws = tuple(_number(w, f"{where}: weight {f!r}") for w, f in zip(weights, FEATURES, strict=True))
    t = _number(threshold, f"{where}: threshold")
    if not 0.0 <= t <= 1.0:
        raise InvalidInputError(f"{where}: threshold {t} is not a probability in [0, 1]")
    return _number(bias, f"{where}: bias"), ws, t


#: the fitted families: each model fitted on the engine it is named after, with that
#: engine's default settings (``CALIBRATED``)
FAMILIES: dict[str, VerdictModel] = {
    name: VerdictModel(models, name) for name, models in CALIBRATED.items()
}

#: the family of an engine that declares none (``Engine.verdict`` None): hybrid's, the
#: default engine's. The signals read the recalled text, not the engine's scores, and
#: the two fits made (hybrid and synapse, rankers apart) differ by at most 0.13 in any
#: constant, so hybrid's serves an engine never fitted; ``scripts/calibrate_verdict.py``
#: fits an engine's own
DEFAULT_FAMILY = "hybrid"


def verdict_model(value: object = None, where: str = "verdict") -> VerdictModel:
    """The :class:`VerdictModel` ``value`` names: None, the default family's; a family
    name of :data:`FAMILIES`; a :class:`VerdictModel`; or a mapping of :data:`MODELS`
    to ``(bias, weights, threshold)`` (what ``scripts/calibrate_verdict.py`` prints).
    Raises a :class:`~remem.errors.RememError` saying what is wrong with any other."""
    if value is None:
        return FAMILIES[DEFAULT_FAMILY]
    if isinstance(value, VerdictModel):
        return value
    if isinstance(value, str):
        if value not in FAMILIES:
            raise UnknownComponentError(
                f"{where}: unknown verdict family {value!r}; choose one of "
                f"{', '.join(sorted(FAMILIES))}, or pass fitted constants "
                "(scripts/calibrate_verdict.py)"
            )
        return FAMILIES[value]
    if isinstance(value, Mapping):
        try:
            return VerdictModel(value)
        except (InvalidInputError, InvalidTypeError) as exc:
            raise type(exc)(f"{where}: {exc}") from None
    raise InvalidTypeError(
        f"{where} must be a verdict family name, a VerdictModel or a mapping of "
        f"{' and '.join(MODELS)} to (bias, weights, threshold), not {type(value).__name__}"
    )
