"""States (FAB-20..23, FAB-32, FAB-34): the two tracks, a state landing on its track (Broken
and a sequela on a full one), states pending for a player to accept or absorb, and the two
follow-ups that settle them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import ConfigDict, Field, JsonValue

from app.engine.contract import (
    Effect,
    Language,
    LoggedEntry,
    Model,
    Outcome,
    Prepared,
    Resolution,
    RollKind,
    RulesVersion,
    Table,
    effect,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, invalid, refusal
from app.engine.rulesets.fabulae.bodies import FabulaeAbsorbCreate, FabulaeStateChoiceCreate
from app.engine.rulesets.fabulae.body import Body
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import CORRECTED, SYSTEM, FabulaeClock
from app.engine.rulesets.fabulae.sequelae import (
    FabulaeSequelaContext,
    FabulaeSequelaRoll,
    roll_sequela,
)
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet
from app.engine.rulesets.fabulae.tables import (
    EXTRA_BOX,
    MENTAL_TRACK,
    PHYSICAL_TRACK,
    STATE_LABELS,
    Track,
)

StatesChoice = Literal["auto", "now", "pending"]
SETTLING_KINDS = ("fabulae.state_choice", "fabulae.absorb")


class FabulaePending(Model):
    """A state about to be checked: the rule that threatens it, and how it lands — a state
    of the player's choice (FAB-32), the next box of a track (FAB-68) or a named state
    (FAB-102)."""

    model_config = ConfigDict(extra="allow")

    rule: str
    choice: Literal["any"] | None = None
    track: Track | None = None
    state: str | None = None
    sequela: FabulaeSequelaContext | None = None


class FabulaeLanded(Model):
    """A state checked on a track, or the character Broken with the sequela rolled."""

    track: Track | None = None
    state: str | None = None
    label: str | None = None
    broken: bool | None = None
    sequela: FabulaeSequelaRoll | None = None


class FabulaeThreatened(Model):
    """What damage does to states: pending for the player, or checked at once."""

    pending_states: list[FabulaePending] | None = Field(
        default=None, description="FAB-34: states the target's player accepts or absorbs"
    )
    states_checked: list[FabulaeLanded] | None = Field(
        default=None, description="states checked at once (an NPC's)"
    )


def track_of(sheet: FabulaeSheet, track: str) -> list[str]:
    """FAB-20/FAB-22: a track's boxes in checking order, with the extra box if taken."""
    boxes = list(PHYSICAL_TRACK if track == "physical" else MENTAL_TRACK)
    if sheet.extra_box_track == track:
        boxes.append(EXTRA_BOX[track])
    return boxes


def check_chosen_state(character: FabulaeCharacter, state: str, rule: str) -> list[Effect]:
    """Check the state the player chose (FAB-32); it must be an unchecked box of theirs."""
    sheet = character.sheet
    boxes = track_of(sheet, "physical") + track_of(sheet, "mental")
    if state not in boxes:
        raise InvalidInput(f"state must be one of {', '.join(boxes)}, got {state!r}")
    states = list(sheet.states)
    if state in states:
        raise InvalidInput(f"{STATE_LABELS[state]} is already checked; choose an unchecked state")
    return [effect(character.id, "states", states, [*states, state], rule)]


def land_state(
    body: Body, track: Track, dice: DiceSource, sequela: FabulaeSequelaContext | None
) -> FabulaeLanded:
    """FAB-22/FAB-23: check the next box of the track; on a full track, Broken and a sequela
    (none when `sequela` is None: the attack rolled its one already, FAB-23 corrected)."""
    states = list(body.sheet.states)
    free = [box for box in track_of(body.sheet, track) if box not in states]
    if free:
        body.sheet.states = [*states, free[0]]  # type: ignore[list-item]
        return FabulaeLanded(track=track, state=free[0], label=STATE_LABELS[free[0]])
    body.sheet.broken = True
    body.sheet.broken_track = body.sheet.broken_track or track
    if sequela is None:
        return FabulaeLanded(track=track, broken=True)
    rolled = roll_sequela(body, track, dice, sequela)
    return FabulaeLanded(track=track, broken=True, sequela=rolled)


def settle_now(choice: StatesChoice, target: FabulaeCharacter) -> bool:
    """States land at once on NPCs; a player's character decides on each (FAB-34)."""
    if choice == "auto":
        return target.kind != "pc"
    return choice == "now"


def threats(
    body: Body,
    count: int,
    track: Track,
    rule: str,
    dice: DiceSource,
    sequela: FabulaeSequelaContext,
    now: bool,
    *,
    version: RulesVersion,
) -> FabulaeThreatened:
    """Each damage checks a state: pending for the player to absorb or accept, or landed now.
    From the corrections on, the damage of one attack rolls one sequela at most (FAB-23)."""
    if count <= 0:
        return FabulaeThreatened()
    if not now:
        threat = FabulaePending(rule=rule, track=track, sequela=sequela)
        if version >= CORRECTED:
            body.sheet.states_pending += count  # FAB-34: shown on the character
        return FabulaeThreatened(pending_states=[threat] * count)
    landed: list[FabulaeLanded] = []
    for _ in range(count):
        rolled = any(state.sequela is not None for state in landed)
        context = None if rolled and version >= CORRECTED else sequela
        landed.append(land_state(body, track, dice, context))
    return FabulaeThreatened(states_checked=landed)


# --- settling a pending state (FAB-22/23/32/34) ----------------------------------------


class FabulaeThreatResult(Model):
    pending_states: list[FabulaePending]


class FabulaeThreat(Model):
    """The entry whose pending states a follow-up settles: only its states for this
    character."""

    seq: int
    kind: str
    result: FabulaeThreatResult


class FabulaeFollowUp(Model):
    """An entry that followed another, as a later follow-up reads it (FAIR-9)."""

    seq: int
    kind: str
    character_id: str | None = None
    result: dict[str, JsonValue]
    draws: list[dict[str, int]] | None = Field(
        default=None, description="an earlier push of a roll with consequences: its dice"
    )


class FabulaeAbsorbRequest(FabulaeClock):
    character: FabulaeCharacter
    threat: FabulaeThreat
    settled: list[FabulaeFollowUp] = Field(default_factory=list)


class FabulaeStateChoiceRequest(FabulaeAbsorbRequest):
    state: str | None = None


class FabulaeStateChoiceResult(FabulaeLanded):
    settles: FabulaePending


class FabulaeAbsorbResult(Model):
    absorbed: FabulaePending


def pending(threat: FabulaeThreat, settled: Sequence[FabulaeFollowUp]) -> list[FabulaePending]:
    """The states still pending: those settled by earlier follow-ups are off, in order."""
    done = sum(1 for follow in settled if follow.kind in SETTLING_KINDS)
    return threat.result.pending_states[done:]


class _Hit(Model):
    model_config = ConfigDict(extra="ignore")
    pending_states: list[FabulaePending] = Field(default_factory=list)


class _PowerThreats(Model):
    model_config = ConfigDict(extra="ignore")
    targets: dict[str, _Hit] = Field(default_factory=dict)


class _Someone(Model):
    model_config = ConfigDict(extra="ignore")
    id: str


class _Target(Model):
    model_config = ConfigDict(extra="ignore")
    target: _Someone


class _Threats(Model):
    model_config = ConfigDict(extra="ignore")
    pending_states: list[FabulaePending] = Field(default_factory=list)


class _Defended(Model):
    """A defense's entry (FAB-62): the attack it resolved, where the states wait."""

    model_config = ConfigDict(extra="ignore")
    attack: _Threats | None = None


class _Pushed(Model):
    """A push of a roll with consequences (FAB-31 corrected): its price's states are the
    pusher's, the replayed roll's are its target's."""

    model_config = ConfigDict(extra="ignore")
    pending_states: list[FabulaePending] = Field(default_factory=list)
    attack: _Threats | None = None
    defend: _Defended | None = None
    danger: _Threats | None = None
    power: _PowerThreats | None = None


def _struck(kind: str, request: Mapping[str, Any]) -> str | None:
    """Whom a roll's damage lands on, from its recorded request."""
    if kind in ("fabulae.attack", "fabulae.strangle"):
        return _Target.model_validate(request).target.id
    if kind == "fabulae.defend":
        waited = request.get("attack")
        return _Target.model_validate(waited).target.id if isinstance(waited, Mapping) else None
    character = request.get("character")
    return str(character.get("id")) if isinstance(character, Mapping) else None


def threats_by_owner(entry: LoggedEntry) -> dict[str, list[FabulaePending]]:
    """The states an entry threatens, per character whose player settles them."""
    if entry.kind == "fabulae.power":
        targets = _PowerThreats.model_validate(entry.result).targets
        return {target: hit.pending_states for target, hit in targets.items() if hit.pending_states}
    if entry.kind == "fabulae.push":
        pushed = _Pushed.model_validate(entry.result)
        owners: dict[str, list[FabulaePending]] = {}
        if pushed.pending_states:
            owners[str(entry.character_id)] = list(pushed.pending_states)
        action = entry.request.get("action")
        followed = action if isinstance(action, Mapping) else {}
        request = followed.get("request")
        struck = _struck(str(followed.get("kind")), request if isinstance(request, Mapping) else {})
        nested = pushed.attack or pushed.danger
        if pushed.defend is not None and pushed.defend.attack is not None:
            nested = pushed.defend.attack
        if nested is not None and nested.pending_states and struck is not None:
            owners[struck] = [*owners.get(struck, []), *nested.pending_states]
        for target, hit in (pushed.power.targets if pushed.power else {}).items():
            if hit.pending_states:
                owners[target] = [*owners.get(target, []), *hit.pending_states]
        return owners
    if entry.kind == "fabulae.defend":
        attack = _Defended.model_validate(entry.result).attack
        states = attack.pending_states if attack is not None else []
    else:
        states = _Threats.model_validate(entry.result).pending_states
    owner = _struck(entry.kind, entry.request) if entry.kind != "fabulae.danger" else None
    return {owner or str(entry.character_id): states} if states else {}


def pushed_by(table: Table, seq: int) -> int | None:
    """The push that replaced a roll with consequences (FAB-31 corrected), if any."""
    pushes = [f.seq for f in table.follow_ups(seq) if f.kind == "fabulae.push"]
    return pushes[-1] if pushes else None


def superseded(table: Table, entry: LoggedEntry) -> bool:
    """A push a later push of the same roll replaced: only its own price still stands."""
    action = entry.request.get("action")
    followed = action.get("seq") if isinstance(action, Mapping) else None
    return isinstance(followed, int) and pushed_by(table, followed) not in (None, entry.seq)


def standing_threats(table: Table, entry: LoggedEntry) -> dict[str, list[FabulaePending]]:
    """The states an entry threatens that still stand: a superseded push keeps its price
    only (its pusher's), a roll its push replaced none."""
    owners = threats_by_owner(entry)
    if entry.kind == "fabulae.push":
        if superseded(table, entry):
            price = _Pushed.model_validate(entry.result).pending_states
            return {str(entry.character_id): list(price)} if price else {}
        return owners
    if owners and (push := pushed_by(table, entry.seq)) is not None:
        raise InvalidInput(
            f"entry {entry.seq} was pushed (seq {push}): the push's states are the ones to settle"
        )
    return owners


def threatened(
    table: Table, follows: int, named: str | None
) -> tuple[FabulaeThreat, str, str, list[FabulaeFollowUp]]:
    """Whose states an entry threatens, those threats (FAB-32, FAB-68, FAB-102), the
    entry's visibility and what this character already settled."""
    entry = table.entry(follows)
    owners = standing_threats(table, entry)
    if named is not None:
        owner = named
    elif len(owners) == 1:
        owner = next(iter(owners))
    elif owners:
        raise InvalidInput("this entry threatens several characters: name character_id")
    else:
        owner = _struck(entry.kind, entry.request) or str(entry.character_id)
    if named is not None and owners and named not in owners:
        raise InvalidInput(
            f"entry {entry.seq} threatens character {', '.join(owners)}, not {named}"
        )
    threat = FabulaeThreat(
        seq=entry.seq,
        kind=entry.kind,
        result=FabulaeThreatResult(pending_states=owners.get(owner, [])),
    )
    settled = [
        FabulaeFollowUp(seq=f.seq, kind=f.kind, character_id=f.character_id, result=dict(f.result))
        for f in table.follow_ups(follows)
        if f.character_id == owner
    ]
    return threat, owner, entry.visibility, settled


def unsettled(table: Table, seq: int) -> dict[str, int]:
    """FAB-34: how many states an entry still holds pending, per character who must settle
    them (its player accepts or absorbs each; the GM may accept for them); a roll replaced
    by its push holds the push's."""
    entry = table.entry(seq)
    pushes = [f.seq for f in table.follow_ups(seq) if f.kind == "fabulae.push"]
    left: dict[str, int] = {}
    if not pushes:
        for owner in standing_threats(table, entry):
            threat, _, _, settled = threatened(table, seq, owner)
            if count := len(pending(threat, settled)):
                left[owner] = count
    for push in pushes:  # pushed through POST .../rolls, their states are the roll's too
        for owner, count in unsettled(table, push).items():
            left[owner] = left.get(owner, 0) + count
    return left


def prepare_absorb(body: FabulaeAbsorbCreate, table: Table) -> Prepared[FabulaeAbsorbRequest]:
    named = str(body.character_id) if body.character_id is not None else None
    threat, owner, visibility, settled = threatened(table, body.follows, named)
    character = table.acting(owner, FabulaeCharacter)
    request = FabulaeAbsorbRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        threat=threat,
        settled=settled,
    )
    return Prepared(
        request,
        character_id=character.id,
        visibility=body.visibility or visibility,  # type: ignore[arg-type]
        follows=body.follows,
    )


def prepare_state_choice(
    body: FabulaeStateChoiceCreate, table: Table
) -> Prepared[FabulaeStateChoiceRequest]:
    named = str(body.character_id) if body.character_id is not None else None
    threat, owner, visibility, settled = threatened(table, body.follows, named)
    character = table.acting(owner, FabulaeCharacter)
    request = FabulaeStateChoiceRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        threat=threat,
        settled=settled,
        state=body.state,
    )
    return Prepared(
        request,
        character_id=character.id,
        visibility=body.visibility or visibility,  # type: ignore[arg-type]
        follows=body.follows,
    )


def resolve_absorb(
    request: FabulaeAbsorbRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeAbsorbResult]:
    """FAB-34: spend 1 Destiny to cancel a state about to be checked."""
    left = pending(request.threat, request.settled)
    if not left:
        raise refusal("FAB-34", "no state is about to be checked on that entry")
    character = request.character
    destiny = character.sheet.destiny
    if destiny < 1:
        raise refusal("FAB-34", f"absorbing costs 1 Destiny point; {character.name} has none")
    spent = [effect(character.id, "destiny", destiny, destiny - 1, "FAB-34")]
    spent += settled_one(character, version)
    return Resolution(FabulaeAbsorbResult(absorbed=left[0]), spent)


def settled_one(character: FabulaeCharacter, version: RulesVersion) -> list[Effect]:
    """FAB-34: one state less pending on the character, accepted or absorbed."""
    waiting = character.sheet.states_pending
    if version < CORRECTED or waiting < 1:
        return []
    return [effect(character.id, "states_pending", waiting, waiting - 1, "FAB-34")]


def resolve_state_choice(
    request: FabulaeStateChoiceRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeStateChoiceResult]:
    """FAB-32 (a state of the player's choice) or FAB-68 (the next box of a track)."""
    left = pending(request.threat, request.settled)
    if not left:
        raise refusal("FAB-34", "no state is about to be checked on that entry")
    threat = left[0]
    body = Body(request.character)
    state = request.state
    context: FabulaeSequelaContext | None = threat.sequela or FabulaeSequelaContext()
    if version >= CORRECTED and any(
        f.kind == "fabulae.state_choice" and f.result.get("sequela") for f in request.settled
    ):
        context = None  # FAB-23 (corrected): one sequela per attack, rolled already
    landed: FabulaeLanded
    if threat.choice == "any" and state in ("physical", "mental"):
        # The player picks a track: its next box, or Broken when it is full (FAB-23).
        landed = land_state(body, "physical" if state == "physical" else "mental", dice, context)
    elif threat.choice == "any":
        if state is None:
            raise invalid("FAB-32", "name the state to check, e.g. 'epuise' or 'enerve'")
        boxes = track_of(body.sheet, "physical") + track_of(body.sheet, "mental")
        if state not in boxes:
            raise InvalidInput(f"state must be one of {', '.join(boxes)}, got {state!r}")
        if state in body.sheet.states:
            raise InvalidInput(f"{STATE_LABELS[state]} is already checked; choose another")
        body.sheet.states = [*body.sheet.states, state]  # type: ignore[list-item]
        landed = FabulaeLanded(state=state, label=STATE_LABELS[state])
    elif threat.state is not None:
        # A power names the state (FAB-102 blast: Meurtri); already checked, the track's next.
        named = threat.state
        if named not in body.sheet.states:
            body.sheet.states = [*body.sheet.states, named]  # type: ignore[list-item]
            landed = FabulaeLanded(state=named, label=STATE_LABELS[named])
        else:
            landed = land_state(body, "physical", dice, context)
    else:
        track: Track = threat.track or "physical"
        free = [b for b in track_of(body.sheet, track) if b not in body.sheet.states]
        if state is not None and (not free or state != free[0]):
            expected = free[0] if free else "none: the track is full"
            raise invalid("FAB-22", f"damage checks the next box of its track ({expected})")
        landed = land_state(body, track, dice, context)
    result = FabulaeStateChoiceResult(**landed.model_dump(exclude_unset=True), settles=threat)
    return Resolution(result, body.effects(threat.rule) + settled_one(request.character, version))


def state_choice_summary(
    request: FabulaeStateChoiceRequest, result: FabulaeStateChoiceResult, language: Language
) -> str:
    """« Ada — Épuisé »."""
    if result.broken:
        what = text("result", "broken", language)
        if result.sequela is not None:
            what += ", " + text("sequela", result.sequela.code, language)
    else:
        what = text("state", result.state or "", language)
    return f"{request.character.name} — {what}"


def absorb_summary(
    request: FabulaeAbsorbRequest, result: FabulaeAbsorbResult, language: Language
) -> str:
    word = "absorbe un état (Destin −1)" if language == "fr" else "absorbs a state (Destiny −1)"
    return f"{request.character.name} {word}"


def state_choice_outcome(result: FabulaeStateChoiceResult) -> Outcome | None:
    """Settled, whatever it checked: on an NPC, what landed is the GM's to read (FAIR-18),
    and the summary says it to whoever may read it."""
    return Outcome("result", "settled")


STATE_CHOICE: RollKind[
    FabulaeStateChoiceCreate, FabulaeStateChoiceRequest, FabulaeStateChoiceResult
] = RollKind(
    name="fabulae.state_choice",
    npc_values=(
        ("/request/state", "/character"),
        ("/track", "/character"),
        ("/state", "/character"),
        ("/label", "/character"),
        ("/broken", "/character"),
        ("/sequela", "/character"),
    ),
    title="State checked",
    body=FabulaeStateChoiceCreate,
    request=FabulaeStateChoiceRequest,
    result=FabulaeStateChoiceResult,
    prepare=prepare_state_choice,
    resolve=resolve_state_choice,
    summary=state_choice_summary,
    reaction=True,
    outcome=state_choice_outcome,
)

ABSORB: RollKind[FabulaeAbsorbCreate, FabulaeAbsorbRequest, FabulaeAbsorbResult] = RollKind(
    name="fabulae.absorb",
    title="State absorbed",
    body=FabulaeAbsorbCreate,
    request=FabulaeAbsorbRequest,
    result=FabulaeAbsorbResult,
    prepare=prepare_absorb,
    resolve=resolve_absorb,
    summary=absorb_summary,
    is_roll=False,
    reaction=True,
    outcome=lambda result: Outcome("result", "absorbed"),
)
