"""What every roll body shares: the bodies of POST .../rolls that the rulesets extend."""

from __future__ import annotations

import unicodedata
import uuid
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from app.engine.contract import Visibility

MAX_SEQ = 2**31 - 1  # the log's seq column is a 32-bit integer: a larger one names no entry

# Characters that change how the rest of a line reads or hide themselves: controls (Cc),
# format characters (Cf: bidirectional overrides, zero-width spaces) and line or paragraph
# separators. In a label they would make what one member reads differ from what another sees.
_UNSHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
LABEL_LENGTH = 100  # characters, once composed (the log's label column holds as many)


def readable_text(value: str) -> str:
    """A label as the log keeps it: NFC, trimmed, on one line, every character visible.

    Raises ValueError saying which character is refused, or that nothing is left."""
    value = unicodedata.normalize("NFC", value).strip()
    bad = next((c for c in value if unicodedata.category(c) in _UNSHOWN_CATEGORIES), None)
    if bad is not None:
        raise ValueError(
            f"a label is shown on one line as written: U+{ord(bad):04X} "
            f"({unicodedata.name(bad, 'unnamed')}) is not allowed"
        )
    if not value:
        raise ValueError("a label needs at least one visible character")
    if len(value) > LABEL_LENGTH:  # a few characters decompose under NFC (U+0958: 2)
        raise ValueError(f"a label holds at most {LABEL_LENGTH} characters once composed (NFC)")
    return value


# What a roll is for, as its roller names it (issue 21): ≤ 100 characters on one line.
RollLabel = Annotated[
    str, StringConstraints(max_length=LABEL_LENGTH), AfterValidator(readable_text)
]
LABEL_DESCRIPTION = (
    "what the roll is for, as the table reads it (e.g. 'Attack the guard'); hashed with the "
    "entry as its top-level `label`"
)


class RollBody(BaseModel):
    """A roll: for a character, at a visibility."""

    model_config = ConfigDict(extra="forbid")

    character_id: uuid.UUID | None = Field(
        default=None, description="the character rolling; players roll only for their own"
    )
    visibility: Visibility = Field(
        default="public",
        description="public: everyone; gm and self: the roller and the GM; blind: the GM only",
    )
    label: RollLabel | None = Field(default=None, description=LABEL_DESCRIPTION)


class FollowUpBody(BaseModel):
    """A follow-up: it acts on an entry already in the log (FAIR-9)."""

    model_config = ConfigDict(extra="forbid")

    follows: int = Field(ge=1, le=MAX_SEQ, description="seq of the entry this follows up (FAIR-9)")
    visibility: Visibility | None = Field(
        default=None, description="defaults to the visibility of the entry it follows"
    )
    label: RollLabel | None = Field(default=None, description=LABEL_DESCRIPTION)
