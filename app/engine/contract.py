"""The contract between the service and a ruleset: what a roll kind is, what a ruleset is,
and the one port (`Table`) through which a kind reads its campaign while preparing a roll.

A roll kind goes through four typed steps:

1. `body`: what a client posts (`POST .../rolls`), validated at the JSON boundary;
2. `prepare(body, table) -> Prepared[request]`: who may send it, and every input the rules
   will read (sheets as they are now, the entries it follows), read through the `Table`;
3. `resolve(request, dice, version) -> Resolution[result]`: the rules themselves, pure and
   deterministic; the request is stored in the log, so the entry replays without a database;
4. `summary(request, result, language)`: one line a player reads at the table.

Requests and results are pydantic models; the log stores `dump()` of each, and the
verifier parses the stored request back into the model of the kind and replays it.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from app.engine.dice import DiceSource
from app.engine.errors import EngineError, RuleRefusal
from app.engine.hidden import CharacterValue

if TYPE_CHECKING:  # odds.py builds on this module's Model
    from app.engine.odds import Odds

Visibility = Literal["public", "gm", "blind", "self"]
# Who may read an entry, narrowest last: gm and self both reach the roller and the GM.
_HIDDENNESS: dict[str, int] = {"public": 0, "gm": 1, "self": 1, "blind": 2}


def at_least_as_hidden(own: Visibility, other: Visibility) -> Visibility:
    """FAIR-21: `own`, or `other` when it reaches fewer members (an entry set off by, or
    carrying, a hidden one)."""
    return other if _HIDDENNESS[other] > _HIDDENNESS[own] else own


CharacterKind = Literal["pc", "npc"]
Language = Literal["en", "fr"]
# A ruleset's rules version: every entry records the one that resolved it (e.g.
# "vampire@1"), and replays with it. A fix that changes any result bumps it.
RulesVersion = int


class Model(BaseModel):
    """A request, result or sheet part: unknown keys are refused, so a shape never drifts
    unnoticed. Fields that are absent in some cases are the ones with a default; `dump()`
    leaves them out unless they were set, exactly as the rules left them."""

    model_config = ConfigDict(extra="forbid")

    def dump(self, exclude: set[str] | None = None) -> dict[str, Any]:
        """The JSON the log stores."""
        return self.model_dump(mode="json", exclude_unset=True, exclude=exclude)


class TableOptions(Model):
    """The campaign options every ruleset has; each ruleset's options extend them. Strict:
    an option is true or false, not "yes"."""

    model_config = ConfigDict(extra="forbid", strict=True)

    players_set_difficulty: bool = Field(
        default=False,
        title="Players set difficulty",
        description="Players may set a roll's difficulty, modifiers and tense themselves "
        "and take an automatic success unprompted (VAM-5, VAM-20); off, the GM decides "
        "them, through roll requests",
    )


def to_json(value: object) -> JsonValue:
    """A sheet value as JSON: models dumped, everything else copied."""
    if isinstance(value, Model):
        return value.dump()
    if isinstance(value, BaseModel):
        dumped: JsonValue = value.model_dump(mode="json", exclude_unset=True)
        return dumped
    if isinstance(value, list | tuple):
        return [to_json(item) for item in value]
    return copy.deepcopy(value)  # type: ignore[return-value]


class Effect(Model):
    """A change the rules make to a character's sheet: the field, what it held, what it
    holds now, and the rule that changed it."""

    character_id: str
    field: str = Field(description="the sheet field; a dotted path for a nested one")
    before: JsonValue = Field(description="the value the rules expected to replace")
    after: JsonValue
    rule: str | None = Field(default=None, description="the rule id that made the change")


def effect(character_id: str, field: str, before: object, after: object, rule: str) -> Effect:
    """A change a rule makes to a sheet: the field, what it held, what it holds, and why."""
    return Effect(
        character_id=str(character_id),
        field=field,
        before=to_json(before),
        after=to_json(after),
        rule=rule,
    )


RequestT = TypeVar("RequestT", bound=Model)
ResultT = TypeVar("ResultT", bound=Model)
BodyT = TypeVar("BodyT", bound=BaseModel)
SnapshotT = TypeVar("SnapshotT", bound="Snapshot")


@dataclass(frozen=True)
class Resolution(Generic[ResultT]):
    """What the rules decided: the result, and the changes to sheets."""

    result: ResultT
    effects: list[Effect] = field(default_factory=list)


# --- what a kind reads of its campaign ---------------------------------------------------


class Snapshot(Model):
    """A character as a rule read it, recorded in the request so the entry replays.

    Each ruleset subclasses it with its typed sheet (`sheet: VampireSheet`)."""

    id: str
    name: str
    kind: CharacterKind


class LoggedEntry(Model):
    """An earlier entry of the campaign's log, as a follow-up reads it."""

    seq: int
    kind: str
    visibility: Visibility
    actor_id: str
    character_id: str | None
    request: dict[str, JsonValue]
    result: dict[str, JsonValue]
    effects: list[dict[str, JsonValue]]
    draws: list[dict[str, int]] = Field(
        default_factory=list, description="the dice it drew, in order: {sides, face}"
    )


class FollowUpRecord(Model):
    """An entry that follows up another one (FAIR-9), as the next follow-up reads it."""

    seq: int
    kind: str
    character_id: str | None
    result: dict[str, JsonValue]


class Settling(Model):
    """A follow-up as the entry it follows reads it to know where it finally stands: the
    follow-up, and what followed it in turn (the GM's ruling on an invocation)."""

    seq: int
    kind: str
    result: dict[str, JsonValue]
    follow_ups: list[FollowUpRecord] = Field(default_factory=list)


@dataclass(frozen=True)
class Settled:
    """Where an entry stands once its follow-ups are counted, and the entry that settled it."""

    outcome: Outcome
    by: int


class Table(Protocol):
    """The campaign as a roll kind may read it while preparing a request.

    The service implements it over the database, for the caller, inside the roll's
    transaction. Its lookups raise the service's own errors (404 for an unknown character,
    403 for a character the caller may not act for, 409 for an entry hidden from them).
    """

    @property
    def system(self) -> str: ...
    @property
    def session(self) -> int: ...
    @property
    def scene(self) -> int: ...
    @property
    def options(self) -> Mapping[str, JsonValue]: ...
    @property
    def is_gm(self) -> bool: ...
    @property
    def gm_set(self) -> frozenset[str]:
        """The body fields the GM's roll request set: a player's answer carries them as
        the GM's (VAM-14's explosive, VAM-30's waived penalty)."""
        ...

    def require_gm(self, action: str) -> None:
        """Refuse (403) unless the caller is the GM; `action` completes "only the GM may"."""
        ...

    def acting(self, character_id: uuid.UUID | str, model: type[SnapshotT]) -> SnapshotT:
        """A character the caller acts for: their own PC, or any for the GM."""
        ...

    def character(self, character_id: uuid.UUID | str, model: type[SnapshotT]) -> SnapshotT:
        """Any character of the campaign (a target, a patient, an ally)."""
        ...

    def chooses_for(self, character_id: str, hidden: bool) -> bool:
        """Whether the caller makes that character's own choices in a roll (FAB-62's
        defense): a player for their characters; the GM for NPCs, and for a player's
        character only in a roll hidden from its player."""
        ...

    def find(self, character_id: uuid.UUID | str, model: type[SnapshotT]) -> SnapshotT | None:
        """A character of the campaign, or None when it has none by that id."""
        ...

    def entry(self, seq: int) -> LoggedEntry:
        """An entry of the log the caller may see (a follow-up acts on it)."""
        ...

    def follow_ups(self, seq: int) -> list[FollowUpRecord]:
        """The entries that follow up `seq`, in order."""
        ...

    def fighting(self, character_id: str) -> bool:
        """Whether the character fights in a running encounter of the campaign."""
        ...

    def allies(self, character_id: str) -> list[str]:
        """In an encounter, the characters fighting on this one's side (FAB-44: a panic's
        jolt and scream reach them); elsewhere, none."""
        ...

    def scene_entries(self, kind: str) -> list[LoggedEntry]:
        """The entries of one kind made in the current scene that the caller may see, in
        order (JDR-31), listed without being read: a rule that uses what one holds reads it
        through `entry(seq)` (FAIR-21)."""
        ...

    def latest_scene_entries(self, kind: str, character_id: str) -> Iterator[LoggedEntry]:
        """`scene_entries` of one kind made for this one character (its `character_id`),
        newest first, found as the caller goes on: a rule that wants the latest one
        (VAM-30) stops there."""
        ...


@dataclass(frozen=True)
class Prepared(Generic[RequestT]):
    """A request ready for the rules, and how its entry is filed."""

    request: RequestT
    character_id: str | None = None
    visibility: Visibility = "public"
    follows: int | None = None
    # What the roll is for, as its roller named it: the entry's top-level `label`, hashed.
    label: str | None = None


@dataclass(frozen=True)
class FollowOn:
    """An entry a roll sets off at once, in its transaction (FAB-42's panic roll).

    `prepare` runs once the triggering entry's effects are applied, so it reads the sheets
    as they are after it; the follow-on follows the triggering entry (FAIR-9).
    """

    kind: str
    prepare: Callable[[Table], Prepared[Any]]


@dataclass(frozen=True)
class Aftermath:
    """What a roll sets off once recorded: follow-on entries, and a refusal that keeps the
    attempt in the log (FAB-14's impossible action: recorded, then answered 409)."""

    follow_ons: Sequence[FollowOn] = ()
    refusal: RuleRefusal | None = None
    # The other side's choice the entry waits for (FAB-62's defense): asked of whoever
    # controls that character as a roll request the answer follows.
    awaits: Awaiting | None = None


@dataclass(frozen=True)
class Awaiting:
    """A choice an entry waits for: which character makes it, with which follow-up kind."""

    character_id: str
    kind: str
    rule: str
    note: str


# --- labels -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    """A code's label in each language the API speaks; French keeps the source's words."""

    en: str
    fr: str

    def text(self, language: Language) -> str:
        return self.fr if language == "fr" else self.en


# Label group ("tier", "outcome", "state"…) → code → label.
Labels = Mapping[str, Mapping[str, Label]]


@dataclass(frozen=True)
class Outcome:
    """The outcome an entry reads as: a code of one of its ruleset's label groups."""

    group: str
    code: str


# --- roll kinds -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionCost:
    """What an action takes from a combatant's round (FAB-60: slow and fast actions)."""

    slow: int = 0
    fast: int = 0


@dataclass(frozen=True, eq=False)
class RollKind(Generic[BodyT, RequestT, ResultT]):
    """One kind of entry a ruleset resolves: its typed contract, its rules, its words."""

    name: str
    title: str
    request: type[RequestT]
    result: type[ResultT]
    resolve: Callable[[RequestT, DiceSource, RulesVersion], Resolution[ResultT]]
    summary: Callable[[RequestT, ResultT, Language], str]
    # What clients post (POST .../rolls), and how it becomes a request. None for kinds the
    # service makes itself (initiative through an encounter, the clock).
    body: type[BodyT] | None = None
    prepare: Callable[[BodyT, Table], Prepared[RequestT]] | None = None
    # A roll draws from the campaign's stream: it freezes the client seed (FAIR-3) and is
    # listed by GET /rolls. Other kinds are events the rules still resolve and replay.
    is_roll: bool = True
    # Set when only the GM sends it: completes "only the campaign's GM may …".
    gm_only: str | None = None
    # It answers something already rolled: in an encounter it may come out of turn.
    reaction: bool = False
    # An answer the encounter charges (FAB-62's parry spends a fast action): to an action of
    # an encounter that is still running, it goes through that encounter's actions.
    answered_in_encounter: bool = False
    # What it takes from an encounter round, given the body and the actor's sheet.
    cost: Callable[[BodyT, Mapping[str, JsonValue]], ActionCost] | None = None
    # The systems of its ruleset it runs in; None for all of them.
    systems: frozenset[str] | None = None
    # The refusal in another system of its ruleset, given that system; None for the
    # registry's own "runs only in …" (a setting rule keeps its wording and rule id).
    wrong_system: Callable[[str], EngineError] | None = None
    # What the entry sets off once recorded (given its seq): follow-ons, a kept refusal;
    # `triggers` names the kinds its follow-ons may be (the API types `triggered` by it).
    after: Callable[[Prepared[RequestT], Resolution[ResultT], int], Aftermath] | None = None
    triggers: frozenset[str] = frozenset()
    outcome: Callable[[ResultT], Outcome | None] | None = None
    # Issue 21: the exact odds of every outcome `outcome` gives, worst to best, before the
    # roll; None: the API refuses odds for this kind with a clear error.
    odds: Callable[[RequestT, RulesVersion], Odds] | None = None
    # FAIR-14: the result as the log stores it, exactly `resolve(...).result.dump()` for a
    # kind that makes no effects, worked out without the result model: verification replays
    # thousands of these. None: replays go through `resolve`.
    replay: Callable[[RequestT, DiceSource, RulesVersion], dict[str, Any]] | None = None
    # FAIR-18: the values its result shows that were read from a character's sheet; an
    # NPC's are committed, like its sheet, for whoever may not read that sheet.
    npc_values: tuple[CharacterValue, ...] = ()
    # The body's fields the GM decides (path, rule): a player sets them only answering the
    # GM's roll request, or where the campaign lets players (`players_set_difficulty`).
    gm_decides: tuple[tuple[str, str], ...] = ()
    # Body fields the GM alone sets, whatever the campaign's options, which the kind's own
    # `prepare` checks (path, rule): VAM-14's explosive tens. Odds may suppose them too.
    gm_rules_on: tuple[tuple[str, str], ...] = ()
    # The other side's choices (path, path of that side's character id, rule): whoever
    # controls that character makes them, never the roller of the other side.
    other_side: tuple[tuple[str, str, str], ...] = ()
    # The roller's own choices, which spend its resources (path, rule): a GM's roll request
    # may not make them for the player who answers (VAM-21's Willpower, FAB-90's talents).
    roller_decides: tuple[tuple[str, str], ...] = ()
    # Where an entry stands after its follow-ups (a Talisman's ruling, a Joker's reroll), for
    # views only: the hashed entry never changes.
    settle: Callable[[Sequence[Settling]], Settled | None] | None = None
    # Those of its `other_side` paths the roll itself asks that side for (FAB-62's defense
    # waits for an answer; FAB-34's Absorb waits as pending states): left out, the roll asks.
    asks_other_side: frozenset[str] = frozenset()

    def parse_request(self, raw: Mapping[str, Any]) -> RequestT:
        """A stored request, read back into the kind's model (replay, views)."""
        return self.request.model_validate(raw)

    def parse_result(self, raw: Mapping[str, Any]) -> ResultT:
        return self.result.model_validate(raw)


AnyKind = RollKind[Any, Any, Any]


def acting_character_id(body: BaseModel) -> str | None:
    """The character a roll body acts for, by the fields bodies name it with."""
    for name in ("attacker_id", "healer_id", "character_id"):
        value = getattr(body, name, None)
        if value is not None:
            return str(value)
    active = getattr(body, "active", None)
    character_id = getattr(active, "character_id", None)
    return str(character_id) if character_id is not None else None


# --- the clock ----------------------------------------------------------------------------


class ClockCharacter(Model):
    """A live character at a session or scene start: what the recharge rules read."""

    character_id: str
    kind: CharacterKind
    sheet: dict[str, JsonValue] = Field(description="the sheet fields its ruleset recharges")
    recollected: bool = Field(default=False, description="JDR-24: the PC could recollect")
    slept_safely: bool = Field(default=False, description="JDR-29a: a safe night of sleep")


class ClockRequest(Model):
    """A session or scene start: the new clock, the GM's facts, the sheets recharged."""

    system: str
    family: str = Field(description="the ruleset, as entries before rules versions named it")
    session: int
    scene: int
    new_session: bool
    night_passed: bool
    characters: list[ClockCharacter]


class ClockResult(Model):
    session: int
    scene: int


Recharges = Callable[[ClockRequest, RulesVersion], list[Effect]]


# --- systems and rulesets ----------------------------------------------------------------


SheetHook = Callable[[Mapping[str, Any] | None, dict[str, Any], int], dict[str, Any]]


class SheetCheck(Protocol):
    """A rule about a sheet that needs the rest of the campaign (JDR-23's instructor)."""

    def __call__(
        self,
        table: Table,
        character_id: str | None,
        before: Mapping[str, JsonValue] | None,
        sheet: Mapping[str, JsonValue],
    ) -> None: ...


@dataclass(frozen=True, eq=False)
class System:
    """One game a campaign can play: its sheet and its campaign options."""

    id: str
    name: str
    sheet: type[Model]
    options: type[Model]
    # Fields the rules manage (readOnly in the sheet's schema): only rule actions or a GM
    # override change them.
    protected_fields: frozenset[str]
    # Protected fields a player still chooses when creating their character.
    creation_choices: frozenset[str] = frozenset()
    # Fields the rules derive when a sheet is created or edited, given the current scene.
    on_sheet_edit: SheetHook | None = None
    # A check of a sheet against the rest of the campaign.
    check_sheet: SheetCheck | None = None
    # Sheet fields the clock's recharge rules read (recorded in session and scene entries).
    clock_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class InitiativeRow:
    """One combatant's place in an initiative result."""

    character_id: str
    row: dict[str, JsonValue]


class Combat(Protocol):
    """A ruleset's part in an encounter: initiative, the order of turns, what an action
    costs and what a combatant's state forbids. The encounter service runs the rest."""

    @property
    def initiative_kind(self) -> str: ...
    @property
    def initiative_row(self) -> type[Model]:
        """One combatant's row of the initiative result, as the encounter keeps it."""
        ...

    @property
    def condition(self) -> type[Model]:
        """What an encounter shows of a combatant's condition: its fields are sheet fields."""
        ...

    @property
    def initiative_each_round(self) -> bool:
        """Whether initiative is rolled again at each new round (Vampire's classic rule)."""
        ...

    def initiative(
        self, table: Table, state: Mapping[str, JsonValue], combatants: Sequence[Combatant]
    ) -> Model:
        """The request of the initiative roll for these combatants."""
        ...

    def initiative_state(self, result: Model) -> dict[str, JsonValue] | None:
        """What the encounter keeps of an initiative result for later draws (FAB-61's deck)."""
        ...

    def initiative_rows(self, result: Model) -> list[InitiativeRow]:
        """The combatants in the order the result gives them."""
        ...

    def standing_key(self, combatant: Combatant, position: int) -> tuple[Any, ...]:
        """The order from the second round on, newcomers included."""
        ...

    def acts_before(self, newcomer: Combatant, other: Combatant) -> bool:
        """Whether a newcomer mid-fight acts before a combatant already placed."""
        ...

    def check_action(self, action: CombatAction) -> None:
        """Refuse what the combatant may not do now (a lost turn, an exhausted round)."""
        ...

    def prepare_action(self, action: CombatAction) -> BaseModel:
        """The body as the encounter amends it (a tense roll, a combat malus)."""
        ...

    def after_action(self, action: CombatAction, entries: Sequence[RecordedEntry]) -> None:
        """Bookkeeping once the action is recorded: conditions it set or lifted."""
        ...

    def after_turn(self, combatant: Combatant) -> None:
        """Bookkeeping when the combatant's turn passes."""
        ...

    def sits_out(self, combatant: Combatant, sheet: Mapping[str, JsonValue]) -> str | None:
        """Why the combatant, with this sheet, loses its turn now (dead, Broken, a lost
        turn…), or None."""
        ...

    def new_round(self, combatants: Sequence[Combatant]) -> BaseModel | None:
        """The body of the entry a new round records (the time it passes), or None."""
        ...

    def unsettled(self, table: Table, seq: int) -> dict[str, int]:
        """What an action's entry still waits for from a character before the turn may
        pass (FAB-34's pending states), as a count per character id."""
        ...


class PlainTurns:
    """The parts of `Combat` a ruleset leaves plain: nobody sits a turn out, a new round
    records nothing, and an action leaves nothing that holds the turn."""

    initiative_each_round = False

    def sits_out(self, combatant: Combatant, sheet: Mapping[str, JsonValue]) -> str | None:
        return None

    def new_round(self, combatants: Sequence[Combatant]) -> BaseModel | None:
        return None

    def unsettled(self, table: Table, seq: int) -> dict[str, int]:
        return {}


class Condition(Model):
    """Something binding a combatant in an encounter (FAB-44's panic results)."""

    code: str
    rule: str
    skip_turns: int | None = None
    armed: bool | None = None
    seq: int | None = Field(default=None, description="the entry that set it")


class Combatant(Model):
    """A character in an encounter, as the encounter keeps it."""

    character_id: str
    name: str
    kind: CharacterKind
    side: str
    surprise: bool
    off_guard: bool
    active: bool
    initiative: dict[str, JsonValue] | None
    spent: dict[str, int | bool]
    conditions: list[Condition]

    def rank_value(self, key: str, default: int = 0) -> int:
        """A number of the combatant's initiative row (its total, card…), or `default`."""
        value = (self.initiative or {}).get(key, default)
        return value if isinstance(value, int) else default


@dataclass(frozen=True)
class RecordedEntry:
    """An entry an action recorded, as the encounter's bookkeeping reads it."""

    seq: int
    kind: str
    character_id: str | None
    result: dict[str, JsonValue]
    # The typed request the rules resolved (None for an entry the rules did not resolve).
    request: Model | None = None


@dataclass
class CombatAction:
    """An action taken in an encounter, for the ruleset's checks and bookkeeping."""

    kind: AnyKind
    body: BaseModel
    actor: Combatant
    combatants: list[Combatant]
    round: int
    override: bool
    reaction: bool
    sheet: Mapping[str, JsonValue]
    # Whose turn it is (a reaction or the GM's override acts in another's turn).
    turn_of: str | None = None
    # The entries behind bindings the table may not know of yet (FAIR-21).
    untold: frozenset[int] = frozenset()


@dataclass(frozen=True, eq=False)
class Ruleset:
    """One ruleset: its systems, roll kinds, rules version, clock, combat and words."""

    id: str
    name: str
    version: RulesVersion
    systems: tuple[System, ...]
    kinds: tuple[AnyKind, ...]
    labels: Labels
    # The rule ids it owns ("JDR" for JDR-12) and its rules reference in docs/rules/.
    rule_prefixes: tuple[str, ...] = ()
    document: str | None = None
    recharges: Recharges | None = None
    combat: Combat | None = None
    # Open to every campaign, whatever its system (the generic dice).
    generic: bool = False
    # How entries from before rules versions named this ruleset in clock requests.
    legacy_family: str | None = None

    @property
    def rules_id(self) -> str:
        """What an entry resolved by this ruleset records under `rules`."""
        return f"{self.id}@{self.version}"
