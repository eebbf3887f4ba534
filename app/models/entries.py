"""API shapes of log entries that do not depend on the rulesets, and the fairness view.

Every entry kind's own schema (its request, result and effects) is built from the
registry in `app.models.typed`; this module holds what they share, and the entries the
service writes itself (epochs, sheet edits, encounters).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from app.engine.bodies import MAX_SEQ
from app.engine.contract import Effect, Visibility
from app.engine.odds import Luck

HASH_PATTERN = r"^[0-9a-f]{64}$"


class DrawPublic(BaseModel):
    sides: int
    face: int


class FollowUpPublic(BaseModel):
    seq: int
    kind: str
    status: str | None = Field(description="e.g. pending, sincere, applied, refused")


class FinalPublic(BaseModel):
    """Where an entry finally stands, and which follow-up settled it."""

    code: str
    label: str
    by: int = Field(description="seq of the entry that settled it")


class OutcomePublic(BaseModel):
    """What the entry's outcome reads as: a stable code and its label in your language."""

    code: str = Field(description="stable English code, e.g. partial_success")
    label: str = Field(description="the label in the language asked with Accept-Language")


class DisclosurePublic(BaseModel):
    """FAIR-18: a committed value, opened: SHA-256(salt ‖ RFC 8785 JSON of value) is the
    `{"$commit": hex}` found at `path` in the entry."""

    path: str = Field(description="RFC 6901 JSON pointer in the entry, e.g. /request/target/sheet")
    salt: str = Field(description="16 bytes, hex")
    value: JsonValue


class EntryBase(BaseModel):
    """FAIR-10: what every entry holds, whatever its kind."""

    seq: int
    epoch: int
    created_at: str = Field(description="RFC 3339 UTC with microseconds")
    actor_id: str
    character_id: str | None
    visibility: Visibility
    follows: int | None = Field(default=None, description="seq of the entry this follows up")
    rules: str | None = Field(
        default=None,
        description="the rules version that resolved the entry, e.g. vampire@1; absent on "
        "entries the service writes itself and on entries older than rules versions",
        examples=["fabulae-tenebris@1"],
    )
    fairness: int | None = Field(
        default=None,
        description="the fairness rules the entry was made under: 2 for FAIR-16..21; absent "
        "on entries older than hidden-roll keys (FAIR-1..15)",
    )
    label: str | None = Field(
        default=None,
        description="what the roll is for, as its roller named it (the body's `label`); "
        "hashed with the entry, absent when none was given",
    )
    draws: list[DrawPublic] = Field(description="dice in the order the rules drew them")
    prev_hash: str
    content_hash: str
    hash: str
    entry_key: str | None = Field(
        default=None,
        pattern=HASH_PATTERN,
        description="FAIR-17, not hashed: a hidden entry's own key, given to whoever may see "
        "it; its dice are the stream of this key instead of the epoch's seed",
    )
    proof: list[str] | None = Field(
        default=None,
        description="FAIR-17, not hashed: the 12 sibling hashes, bottom-up, that lead from "
        "entry_key to the hidden_root its epoch published when it opened",
    )
    disclosures: list[DisclosurePublic] | None = Field(
        default=None,
        description="FAIR-18, not hashed: what opens each commitment of the entry, for the "
        "GM (and every member once the GM disclosed the entry)",
    )
    session: int | None = Field(
        default=None,
        description="not hashed: the session the entry was made in (0 before the first), "
        "recorded beside it",
    )
    scene: int | None = Field(
        default=None,
        description="not hashed: the scene the entry was made in (0 before the first), "
        "recorded beside it",
    )
    luck: Luck | None = Field(
        default=None,
        description="derived for the API, not hashed, with ?with_odds=true: the exact "
        "probability of the roll's outcome given its own inputs and its mid-rank percentile "
        "(50 ordinary, near 100 lucky); absent when the kind has no odds yet or the entry "
        "reads values you may not see",
    )
    summary: str = Field(
        description="derived for the API, not hashed: one line a player reads at the table, "
        "in the language asked with Accept-Language (en or fr)"
    )
    outcome: OutcomePublic | None = Field(
        default=None, description="derived for the API, not hashed: the outcome's code and label"
    )
    effects_held: bool | None = Field(
        default=None,
        description="derived for the API, not hashed: true while the GM holds this hidden "
        "roll's changes to player characters' sheets (FAIR-21), until POST "
        ".../log/{seq}/apply",
    )
    follow_ups: list[FollowUpPublic] = Field(
        default_factory=list,
        description="derived for the API, not part of the hashed entry: the entries that "
        "follow this one up, with their status (e.g. a Talisman invocation pending a ruling)",
    )
    final: FinalPublic | None = Field(
        default=None,
        description="derived for the API, not hashed: where the entry finally stands once "
        "its follow-ups count (a Talisman's ruling, an Effleurement, a Joker's reroll), and "
        "the entry that settled it; absent or null while nothing changed it",
    )


class RedactedEntryPublic(BaseModel):
    """FAIR-13: an entry the caller may not see: enough to check the chain, no content."""

    seq: int
    epoch: int
    kind: str
    visibility: Visibility
    created_at: str
    prev_hash: str
    content_hash: str
    hash: str
    redacted: Literal[True]


class UnfitEntryPublic(BaseModel):
    """A stored entry that no longer fits its kind's contract: changed outside the service
    (FAIR-12 keeps the log append-only), so served as stored, untyped, and marked `unfit`.
    GET .../log/verify says where the log stops verifying (FAIR-14)."""

    model_config = ConfigDict(extra="allow")

    seq: int
    kind: str
    unfit: Literal[True] = Field(
        description="the entry as stored does not fit its kind's schema: the log was changed "
        "outside the service; GET .../log/verify names the first entry that fails"
    )

    @model_validator(mode="before")
    @classmethod
    def _mark(cls, value: Any) -> Any:
        # Reached only when the entry failed its kind's schema (first_fitting tries it last).
        return {**value, "unfit": True} if isinstance(value, dict) else value


# --- entries the service writes itself ----------------------------------------------------


class Empty(BaseModel):
    """An empty object."""

    model_config = ConfigDict(extra="forbid")


class EpochOpenedResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    campaign_id: str | None = None
    commitment: str = Field(description="SHA-256 of the epoch's secret seed (FAIR-2)")
    hidden_root: str | None = Field(
        default=None,
        description="FAIR-16: Merkle root of the keys of the epoch's hidden entries; absent "
        "on epochs opened before hidden-roll keys",
    )


class ClientSeed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    client_seed: str


class EpochClosedResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server_seed: str = Field(description="the seed, revealed (FAIR-4)")
    commitment: str


class SheetFields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fields: list[str] = Field(description="the sheet fields the edit changed")


class SheetChange(BaseModel):
    """A sheet field a player or the GM changed by hand."""

    model_config = ConfigDict(extra="forbid")

    character_id: str
    field: str
    before: JsonValue
    after: JsonValue


class OptionsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    options: dict[str, JsonValue]


class OptionsChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: Literal["options"]
    before: dict[str, JsonValue]
    after: dict[str, JsonValue]


class EncounterEventRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    encounter_id: str
    name: str | None = None
    combatants: list[str] | None = None
    character_id: str | None = None
    turn: int | None = None
    skipped: list[str] | None = Field(
        default=None, description="the combatants the turn passed by: they sit out (FAB-23)"
    )


class EncounterEventResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["setup", "active", "ended"]
    round: int


class DisclosedRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seqs: list[int] = Field(description="the hidden entries the GM disclosed (FAIR-19)")


class DisclosedKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seq: int
    epoch: int
    entry_key: str | None = Field(default=None, description="FAIR-17; none on older entries")
    proof: list[str] | None = None
    disclosures: list[DisclosurePublic] | None = Field(
        default=None, description="FAIR-18: what opens the entry's commitments"
    )


class DisclosedResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entries: list[DisclosedKey] = Field(
        description="each disclosed entry's key and proof, checked against its epoch's root"
    )


class AppliedRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seq: int = Field(description="the hidden roll whose held effects the GM applied (FAIR-21)")


class RollRequestedRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="the roll kind the GM asks for")
    character_ids: list[str]
    values: dict[str, Any] = Field(description="the body fields the GM set; answers keep them")
    visibility: Visibility
    note: str


class RollRequestCancelledRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: str


# kind → (request, result, effect) of every entry the service writes itself.
STRUCTURAL_SHAPES: dict[str, tuple[type[BaseModel], type[BaseModel], type[BaseModel]]] = {
    "epoch_opened": (Empty, EpochOpenedResult, SheetChange),
    "client_seed_set": (ClientSeed, ClientSeed, SheetChange),
    "epoch_closed": (Empty, EpochClosedResult, SheetChange),
    "sheet_edit": (SheetFields, Empty, SheetChange),
    "sheet_override": (SheetFields, Empty, SheetChange),
    "options_changed": (OptionsRequest, Empty, OptionsChange),
    "encounter.created": (EncounterEventRequest, EncounterEventResult, SheetChange),
    "encounter.joined": (EncounterEventRequest, EncounterEventResult, SheetChange),
    "encounter.left": (EncounterEventRequest, EncounterEventResult, SheetChange),
    "encounter.turn": (EncounterEventRequest, EncounterEventResult, SheetChange),
    "encounter.ended": (EncounterEventRequest, EncounterEventResult, SheetChange),
    "disclosed": (DisclosedRequest, DisclosedResult, SheetChange),
    "effects_applied": (AppliedRequest, Empty, Effect),
    "roll_requested": (RollRequestedRequest, Empty, SheetChange),
    "roll_request_cancelled": (RollRequestCancelledRequest, Empty, SheetChange),
}


# --- fairness -------------------------------------------------------------------------------


class EpochPublic(BaseModel):
    epoch: int
    commitment: str = Field(description="SHA-256 of the server seed, published before any roll")
    client_seed: str
    first_seq: int = Field(description="seq of the epoch_opened entry")
    first_roll_seq: int | None
    hidden_root: str | None = Field(
        default=None, description="FAIR-16: root of the epoch's hidden-entry keys"
    )
    last_seq: int | None = Field(description="seq of the epoch_closed entry; null while open")
    server_seed: str | None = Field(description="revealed once the epoch is closed")


class FairnessPublic(BaseModel):
    campaign_id: uuid.UUID
    current: EpochPublic
    past: list[EpochPublic]


class ClientSeedUpdate(BaseModel):
    client_seed: str = Field(
        max_length=64, pattern=r"^[A-Za-z0-9_-]*$", description="FAIR-1: 0..64 of [A-Za-z0-9_-]"
    )


class DisclosureCreate(BaseModel):
    """FAIR-19: the hidden entries to disclose: a list, a range (a scene, an encounter), or
    both."""

    model_config = ConfigDict(extra="forbid")

    seqs: list[Annotated[int, Field(ge=1, le=MAX_SEQ)]] = Field(
        default_factory=list, max_length=1000
    )
    from_seq: int | None = Field(default=None, ge=1, le=MAX_SEQ, description="first of a range")
    to_seq: int | None = Field(default=None, ge=1, le=MAX_SEQ, description="last of a range")


class FailurePublic(BaseModel):
    seq: int | None
    reason: str


class VerifyPublic(BaseModel):
    ok: bool
    entries_checked: int
    rederived: int = Field(
        description="entries whose draws were re-derived: from a revealed seed, or for a "
        "hidden entry from its entry key (FAIR-17)"
    )
    replayed: int = Field(description="entries replayed through the rules to the same result")
    not_rederived: dict[str, int] = Field(
        default_factory=dict,
        description="entries with draws that could not be re-derived (yet), counted by reason",
    )
    chain_only: dict[str, int] = Field(
        default_factory=dict,
        description="entries checked by their hashes only, counted by reason (redacted: "
        "hidden from whoever verifies)",
    )
    first_failure: FailurePublic | None
