"""The API's shapes that depend on the rulesets, built once per registry.

Every roll kind's entry is its own schema (its request, result and effects), told apart
by `kind`; a redacted entry is its own schema; a roll's body, an encounter action and a
character are unions over the kinds and systems of the registry. A TypeScript client
generated from the OpenAPI document gets a type for everything it renders.
"""

from __future__ import annotations

import functools
import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, create_model

from app.engine.contract import CharacterKind, Condition, Effect
from app.engine.hidden import has_commitment
from app.engine.registry import Registry
from app.models.campaign import CampaignBase, Role
from app.models.encounter import EncounterStatus, ExpectedTurn
from app.models.entries import (
    STRUCTURAL_SHAPES,
    EntryBase,
    RedactedEntryPublic,
    UnfitEntryPublic,
)
from app.models.roll_request import RollRequestPublic


def pascal(name: str) -> str:
    """jdr.talisman_ruling → JdrTalismanRuling; jdr-express-dracula → JdrExpressDracula."""
    return "".join(part.capitalize() for part in re.split(r"[._-]", name) if part)


def literal(*values: str) -> Any:
    """`Literal[values]`, built at run time from the registry."""
    return Literal[values]


def list_of(item: Any) -> Any:
    return list[item]


def first_fitting(*members: Any) -> Any:
    """The first of these types a value fits, tried in order (JSON Schema: anyOf)."""
    return Annotated[Union[members], Field(union_mode="left_to_right")]  # noqa: UP007


def _union(members: list[Any], discriminator: str) -> Any:
    if len(members) == 1:
        return members[0]
    return Annotated[Union[tuple(members)], Field(discriminator=discriminator)]  # noqa: UP007


# The `triggered` of a kind that sets nothing off: always empty.
NOTHING_TRIGGERED: Any = list[RedactedEntryPublic]


def _entry_tag(value: Any) -> str:
    redacted = value.get("redacted") if isinstance(value, dict) else getattr(value, "redacted", 0)
    return "redacted" if redacted else "full"


class CommittedRequest(BaseModel):
    """A request holding values hidden from the caller, each hashed as `{"$commit": hex}`
    (FAIR-18): what the rules read of an NPC. The GM's views show them whole."""

    model_config = ConfigDict(extra="allow")


class CommittedResult(BaseModel):
    """A result holding values hidden from the caller, each hashed as `{"$commit": hex}`
    (FAIR-18): an NPC's initiative row. The GM's views show them whole."""

    model_config = ConfigDict(extra="allow")


def _committed_tag(value: Any) -> str:
    if isinstance(value, dict):  # validating the view
        return "committed" if has_commitment(value) else "typed"
    committed = isinstance(value, CommittedRequest | CommittedResult)  # serializing it
    return "committed" if committed else "typed"


def _any_of(schema: dict[str, Any]) -> None:
    """A typed request also fits the open committed shape: JSON Schema's oneOf, which wants
    exactly one match, would refuse it; anyOf says what the API does (FAIR-18)."""
    if "oneOf" in schema:
        schema["anyOf"] = schema.pop("oneOf")


def _or_committed(typed: type[BaseModel], committed: type[BaseModel]) -> Any:
    """A kind's request or result, typed; or, when it holds commitments, as hashed."""
    return Annotated[
        Union[Annotated[typed, Tag("typed")], Annotated[committed, Tag("committed")]],  # noqa: UP007
        Discriminator(_committed_tag),
    ]


class HiddenSheet(BaseModel):
    """A sheet the GM keeps hidden from the caller: an empty object."""

    model_config = ConfigDict(extra="forbid", title="HiddenSheet")


class CharacterPublicBase(BaseModel):
    id: uuid.UUID
    campaign_id: uuid.UUID
    name: str
    kind: CharacterKind
    owner_id: uuid.UUID | None
    sheet_hidden: bool = Field(
        default=False, description="true when the GM keeps this sheet hidden"
    )
    created_at: datetime
    updated_at: datetime = Field(
        description="moves whenever the character or its sheet changes; for a sheet hidden "
        "from the caller (an NPC read by a player), its creation time, since when the sheet "
        "changed would tell what hidden rolls did to it (FAIR-21)"
    )


class Spent(BaseModel):
    """What a combatant spent this round."""

    slow: int | None = Field(default=None, description="slow actions taken (FAB-60)")
    fast: int | None = Field(default=None, description="fast actions taken (FAB-60)")
    willpower: bool | None = Field(default=None, description="Willpower spent (VAM-21)")


class HistoryItem(BaseModel):
    """One step of an encounter: an action, a turn passed or passed by, a roster change."""

    round: int
    actor_id: str = Field(
        description="the combatant it is about: who acted, whose turn passed or was passed "
        "by, who joined or left"
    )
    kind: str = Field(
        description="the roll kind of an action; turn_passed: their turn ended (`to`: whose "
        "it is now); turn_skipped: the turn passed them by, they sit out; joined; left"
    )
    seq: int = Field(description="the log entry recording it")
    to: str | None = Field(default=None, description="turn_passed: whose turn it is now")
    reason: str | None = Field(
        default=None,
        description="turn_skipped: why they sit out (an NPC's, the GM's only); left: removed "
        "by the GM, or deleted",
    )


class PendingStates(BaseModel):
    """States an action left pending on a character (FAB-34): the turn waits for them."""

    character_id: str
    seq: int = Field(description="the entry holding them")
    count: int


class LogHead(BaseModel):
    """The campaign log's last entry: a client that holds it has seen the whole log."""

    seq: int
    hash: str


class CampaignPublicBase(CampaignBase):
    id: uuid.UUID
    gm_id: uuid.UUID
    current_session: int = Field(description="0 until the GM starts the first session")
    current_scene: int = Field(description="0 until the GM starts the first scene")
    created_at: datetime
    role: Role = Field(description="the caller's role in this campaign")
    log_head: LogHead = Field(
        description="the log's last entry (seq, hash): poll GET /log?after_seq= when it moves"
    )


@dataclass(frozen=True)
class ApiModels:
    """The registry's typed shapes, as the routers declare them."""

    roll_body: Any
    entry: Any
    entries: type[BaseModel]
    action: Any
    action_public: type[BaseModel]
    character: Any
    characters: type[BaseModel]
    campaign_create: type[BaseModel]
    campaign_public: Any
    campaigns: type[BaseModel]
    encounter: type[BaseModel]
    encounters: type[BaseModel]
    system_id: Any


@functools.cache
def api_models(registry: Registry) -> ApiModels:
    entry = _entry_union(registry)
    system_id = literal(*(system.id for _, system in registry.systems))
    character = _character_union(registry)
    encounter = _encounter_model(registry)
    campaign_public = _union(
        [
            create_model(
                f"{pascal(system.id)}CampaignPublic",
                __base__=CampaignPublicBase,
                __doc__=f"A {system.name} campaign.",
                system=(literal(system.id), ...),
                options=(system.options, Field(description="the system's campaign options")),
            )
            for _, system in registry.systems
        ],
        "system",
    )
    action_models = [
        create_model(
            f"{pascal(kind.name)}EncounterAction",
            __base__=kind.body,
            __doc__=f"{kind.title}, as an encounter action: `actor_id` and the roll's body.",
            actor_id=(uuid.UUID, Field(description="the combatant acting")),
            override=(bool, Field(default=False, description="the GM acts out of turn")),
            expected_turn=(
                ExpectedTurn | None,
                Field(default=None, description="409 unless it is still this turn"),
            ),
        )
        for ruleset in registry.rulesets
        if ruleset.combat is not None
        for kind in ruleset.kinds
        if kind.body is not None
    ]
    return ApiModels(
        roll_body=_union([kind.body for kind in registry.postable_kinds()], "kind"),
        entry=entry,
        entries=create_model(
            "EntriesPublic",
            data=(list_of(entry), ...),
            next_after_seq=(
                int | None,
                Field(description="pass as after_seq for the next page; null on the last page"),
            ),
        ),
        action=_union(action_models, "kind"),
        action_public=create_model(
            "EncounterActionPublic",
            encounter=(encounter, ...),
            entry=(entry, Field(description="the audit entry of the action")),
        ),
        character=character,
        characters=create_model(
            "CharactersPublic",
            data=(list_of(character), ...),
            count=(int, ...),
        ),
        campaign_create=create_model(
            "CampaignCreate",
            __base__=CampaignBase,
            system=(system_id, ...),
            options=(
                dict[str, Any],
                Field(
                    default_factory=dict,
                    description="the system's campaign options (GET /systems/{id})",
                ),
            ),
        ),
        campaign_public=campaign_public,
        campaigns=create_model(
            "CampaignsPublic",
            data=(list_of(campaign_public), ...),
            count=(int, ...),
        ),
        encounter=encounter,
        encounters=create_model(
            "EncountersPublic",
            data=(list_of(encounter), ...),
            count=(int, ...),
        ),
        system_id=system_id,
    )


def _entry_union(registry: Registry) -> Any:
    """Every entry kind's schema, told apart by `kind`, or the redacted entry.

    An entry the rules set off at once (FAB-42's panic) is shown under `triggered` in the
    response to the roll that set it off: typed by the kinds that roll may set off (its
    `triggers`), and empty for every other kind.
    """
    kinds = [kind for _, kind in registry.kinds()]
    plain = {
        kind.name: _entry_model(kind.name, kind.title, kind.request, kind.result, Effect)
        for kind in kinds
        if not kind.triggers
    }
    for name, (request, result, effect) in STRUCTURAL_SHAPES.items():
        plain[name] = _entry_model(
            name,
            f"An entry the service writes itself: {name}",
            request,
            result,
            effect,
            committed=False,  # it reads no NPC sheet: nothing to commit (FAIR-18)
        )
    full = dict(plain)
    # FAIR-21: what a hidden roll set off is rolled when the GM applies it.
    deferred = sorted({name for kind in kinds for name in kind.triggers})
    if deferred:
        request, result, effect = STRUCTURAL_SHAPES["effects_applied"]
        full["effects_applied"] = _entry_model(
            "effects_applied",
            "The GM applied a hidden roll: its held changes, then what it set off",
            request,
            result,
            effect,
            _shown([plain[name] for name in deferred]),
            committed=False,
        )
    for kind in kinds:
        if kind.triggers:
            set_off = [plain[name] for name in sorted(kind.triggers)]
            full[kind.name] = _entry_model(
                kind.name, kind.title, kind.request, kind.result, Effect, _shown(set_off)
            )
    visible = _union(list(full.values()), "kind")
    return _shown([visible])


def _shown(members: list[Any]) -> Any:
    """Entries as a member may see them: these kinds in full, or any entry redacted. A
    stored entry that fits none of its kind's schema (changed outside the service) is
    served as stored, marked unfit, rather than failing the whole response."""
    visible: Any = first_fitting(_union(members, "kind"), UnfitEntryPublic)
    redacted: Any = first_fitting(RedactedEntryPublic, UnfitEntryPublic)
    return Annotated[
        Union[Annotated[visible, Tag("full")], Annotated[redacted, Tag("redacted")]],  # noqa: UP007
        Discriminator(_entry_tag),
    ]


def _entry_model(
    name: str,
    title: str,
    request: type[BaseModel],
    result: type[BaseModel],
    effect: type[BaseModel],
    triggered: Any = None,
    *,
    committed: bool = True,
) -> Any:
    return create_model(
        f"{pascal(name)}Entry",
        __base__=EntryBase,
        __doc__=f"{title}: an entry of kind {name}.",
        kind=(literal(name), ...),
        request=(
            _or_committed(request, CommittedRequest) if committed else request,
            Field(
                description="every input the rules used; hidden values committed (FAIR-18)",
                json_schema_extra=_any_of,
            ),
        ),
        result=(
            _or_committed(result, CommittedResult) if committed else result,
            Field(json_schema_extra=_any_of),
        ),
        effects=(list_of(effect), Field(description="changes applied to sheets")),
        triggered=(
            list_of(triggered) if triggered is not None else NOTHING_TRIGGERED,
            Field(
                default_factory=list,
                max_length=None if triggered is not None else 0,
                description="in the response to a roll only: the entries its rules set off "
                "at once (FAB-42's panic roll), each its own entry in the log",
            ),
        ),
    )


def _character_union(registry: Registry) -> Any:
    members = [
        create_model(
            f"{pascal(system.id)}CharacterPublic",
            __base__=CharacterPublicBase,
            __doc__=f"A character of a {system.name} campaign.",
            system=(literal(system.id), ...),
            sheet=(
                first_fitting(HiddenSheet, system.sheet),
                Field(description="the sheet; an empty object when the GM keeps it hidden"),
            ),
        )
        for _, system in registry.systems
    ]
    return _union(members, "system")


def _encounter_model(registry: Registry) -> type[BaseModel]:
    rows = [r.combat.initiative_row for r in registry.rulesets if r.combat is not None]
    conditions = [r.combat.condition for r in registry.rulesets if r.combat is not None]
    initiative: Any = Union[tuple(rows)] if rows else dict[str, Any]  # noqa: UP007
    condition: Any = Union[tuple(conditions)] if conditions else dict[str, Any]  # noqa: UP007
    combatant = create_model(
        "CombatantPublic",
        character_id=(uuid.UUID, ...),
        name=(str, ...),
        kind=(CharacterKind, ...),
        side=(str, ...),
        surprise=(
            bool | None,
            Field(description="JDR-31a; null for an NPC seen by a player (the GM's, FAIR-18)"),
        ),
        off_guard=(bool, ...),
        active=(bool, Field(description="false once the combatant left the fight")),
        initiative=(
            initiative | None,
            Field(description="the system's initiative roll; null for an NPC seen by a player"),
        ),
        spent=(
            Spent,
            Field(
                description="what the combatant spent this round; empty for an NPC seen by a player"
            ),
        ),
        conditions=(
            list[Condition],
            Field(
                description="panic results binding them (FAB-44); empty for an NPC seen by a player"
            ),
        ),
        condition=(
            condition | None,
            Field(description="states, wounds, stress…; null for an NPC seen by a player"),
        ),
    )
    return create_model(
        "EncounterPublic",
        id=(uuid.UUID, ...),
        campaign_id=(uuid.UUID, ...),
        name=(str, ...),
        status=(EncounterStatus, ...),
        version=(
            str,
            Field(
                description="changes with every step (action, turn, roster, start, end); the "
                "ETag header carries it, quoted, for If-Match"
            ),
        ),
        round=(int, ...),
        current=(combatant | None, Field(description="whose turn it is")),
        combatants=(list_of(combatant), Field(description="in turn order once initiative is set")),
        history=(
            list[HistoryItem],
            Field(description="every step: actions, turns passed and passed by, who joined, left"),
        ),
        pending_states=(
            list[PendingStates],
            Field(
                default_factory=list,
                description="FAB-34: states the actions left pending, which their characters' "
                "players (or the GM) settle before the turn may pass",
            ),
        ),
        awaiting=(
            list[RollRequestPublic],
            Field(
                default_factory=list,
                description="what its actions wait for from the other side (FAB-62's defense), "
                "as roll requests; a player sees those of public entries",
            ),
        ),
        created_at=(datetime, ...),
    )
