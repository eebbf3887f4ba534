"""Destiny (FAB-30..35): the GM's award, pushing a roll (FAB-31..35, FAB-37), and the free
reroll of a street rat (FAB-90)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from pydantic import ConfigDict, Field, JsonValue

from app.engine.contract import (
    Aftermath,
    Effect,
    Language,
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
from app.engine.errors import InvalidInput, refusal
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.bodies import (
    FabulaeDestinyAwardCreate,
    FabulaePushCreate,
    FabulaeStreetRatCreate,
)
from app.engine.rulesets.fabulae.damage import FabulaeAttackResult
from app.engine.rulesets.fabulae.dangers import FabulaeDangerResult
from app.engine.rulesets.fabulae.defense import FabulaeDefendResult
from app.engine.rulesets.fabulae.grappling import FabulaeBreakFreeResult, FabulaeGrappleResult
from app.engine.rulesets.fabulae.labels import text
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    PUSH_REPLACES_RESISTANCE,
    SYSTEM,
    FabulaeClock,
    FabulaeDice,
    FabulaePool,
    FabulaeRerolledFrom,
    FabulaeRollInputs,
    RollOutcome,
    dice_text,
    has_talent,
    opposition,
    read_dice,
)
from app.engine.rulesets.fabulae.powers import FabulaePowerResult
from app.engine.rulesets.fabulae.pushed import (
    NPC_VALUES,
    PUSHABLE,
    Replay,
    opposition_of,
    push_again,
    replay,
    roller_id,
    touched,
)
from app.engine.rulesets.fabulae.recovery import FabulaeRecoverResult
from app.engine.rulesets.fabulae.sequelae import FabulaeDeathTestResult, FabulaeStabilizeResult
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter, FabulaeSheet
from app.engine.rulesets.fabulae.states import (
    SETTLING_KINDS,
    FabulaeFollowUp,
    FabulaePending,
    check_chosen_state,
)
from app.engine.rulesets.fabulae.stress import SETS_OFF_PANIC, aftermath, stress_change

if TYPE_CHECKING:  # odds_push.py builds on this module
    from app.engine.odds import Odds

# An opposed roll answered by its passive side (fabulae.oppose) is the active side's roll.
OPPOSED_KINDS: Final = frozenset({"fabulae.opposed", "fabulae.oppose"})
PUSHABLE_KINDS: Final = frozenset({"fabulae.action", "fabulae.stress_resist", *OPPOSED_KINDS})
REROLLS: Final = ("fabulae.push", "fabulae.street_rat")
DOUBLE_PUSH: Final[dict[str, str]] = {
    "physique": "double_push_physique",
    "habilete": "double_push_habilete",
    "intellect": "double_push_intellect",
    "empathie": "double_push_empathie",
}


class FabulaeFollowed(Model):
    """The entry a follow-up acts on, as its request records it. A roll with consequences
    is replayed from its request and dice, so its result is not copied (an NPC's numbers
    in it are the GM's, FAIR-18)."""

    seq: int
    kind: str
    request: dict[str, JsonValue]
    result: dict[str, JsonValue]
    draws: list[dict[str, int]] | None = Field(
        default=None, description="a roll with consequences: its dice, {sides, face}, in order"
    )


class _RollOf(Model):
    model_config = ConfigDict(extra="ignore")
    roll: FabulaeRollInputs


class _ActiveRollOf(Model):
    model_config = ConfigDict(extra="ignore")
    active: _RollOf


class _RollView(Model):
    """A roll as it stands, whatever kind made it: its dice, or an opposition's sides."""

    model_config = ConfigDict(extra="ignore")
    pool: FabulaePool | None = None
    dice: list[int] = Field(default_factory=list)
    stress_dice: list[int] = Field(default_factory=list)
    outcome: RollOutcome
    active: FabulaeDice | None = None
    passive: bool | FabulaeDice = False
    stress_lowered: int = 0


def followed_entry(table: Table, follows: int) -> tuple[FabulaeFollowed, FabulaeCharacter, str]:
    """The entry followed up, the character who rolled it (whom the caller must control),
    and its visibility."""
    entry = table.entry(follows)
    if entry.character_id is None:
        raise InvalidInput(f"follows: entry {follows} ({entry.kind}) concerns no character")
    if entry.result.get("awaiting") is not None:
        raise InvalidInput(
            f"follows: entry {follows} ({entry.kind}) drew no die: it waited for the other "
            "side, whose answer, once given, is the roll to follow up"
        )
    roller = roller_id(entry.kind, entry.request) or entry.character_id
    theirs = entry.kind in PUSHABLE or entry.kind in OPPOSED_KINDS
    if theirs and not table.is_gm and not table.chooses_for(roller, False):
        # A defense's entry is the defender's, its roll the attacker's (FAB-37).
        name = table.character(roller, FabulaeCharacter).name
        raise refusal(
            "FAB-37", f"only the active side pushes: entry {follows} is {name}'s roll to push"
        )
    character = table.acting(roller, FabulaeCharacter)
    if entry.kind in PUSHABLE:
        followed = FabulaeFollowed(
            seq=entry.seq, kind=entry.kind, request=entry.request, result={}, draws=entry.draws
        )
    else:
        followed = FabulaeFollowed(
            seq=entry.seq, kind=entry.kind, request=entry.request, result=entry.result
        )
    return followed, character, entry.visibility


def follow_ups(table: Table, follows: int, *, results: bool = True) -> list[FabulaeFollowUp]:
    """What followed the entry; without `results`, only which kinds did (FAIR-18) and the
    dice of its pushes, from which a roll with consequences is replayed as it stands."""
    followed = []
    for f in table.follow_ups(follows):
        draws = table.entry(f.seq).draws if not results and f.kind == "fabulae.push" else None
        followed.append(
            FabulaeFollowUp(
                seq=f.seq,
                kind=f.kind,
                character_id=f.character_id,
                result=f.result if results else {},
                draws=draws,
            )
        )
    return followed


def roll_of(action: FabulaeFollowed) -> FabulaeRollInputs:
    """The roller's own roll inputs: the active side's in an opposed roll."""
    if action.kind in OPPOSED_KINDS:
        return _ActiveRollOf.model_validate(action.request).active.roll
    return _RollOf.model_validate(action.request).roll


# --- fabulae.push (FAB-31..35, FAB-37) ----------------------------------------------------

# FAIR-18: the pools a push shows, and those of the roll it carries in its request (with
# the rerolls before it), each read from the character that rolled it.
_FOLLOWED_POOLS: Final = (
    ("/pool", "/character"),
    ("/active/pool", "/action/request/active/character"),
    ("/passive/pool", "/action/request/passive/character"),
)
PUSHED_NPC_VALUES: Final = (
    *_FOLLOWED_POOLS,
    *((f"/request/action/result{value}", who) for value, who in _FOLLOWED_POOLS),
    *((f"/request/follow_ups/*/result{value}", who) for value, who in _FOLLOWED_POOLS),
    # A roll with consequences: the pusher rolled the active side, the other side is the
    # replayed request's target or holder.
    ("/active/pool", "/character"),
    *(
        ("/passive/pool", f"/action/request{other}")
        for other in ("/target", "/attack/target", "/grapple/target", "/holder", "/targets/*")
    ),
    *NPC_VALUES,
)


class FabulaePushRequest(FabulaeClock):
    character: FabulaeCharacter
    action: FabulaeFollowed
    follow_ups: list[FabulaeFollowUp] = Field(default_factory=list)
    state: str | None = None
    absorb: bool = False
    now: list[FabulaeCharacter] | None = Field(
        default=None, description="a roll with consequences: the sheets it changes, as they are"
    )


class FabulaeStatePrice(Model):
    """FAB-32: the state a 1 cost, or FAB-34's Destiny that absorbed it."""

    rule: str
    state: str | None = None
    absorbed: bool | None = None


class FabulaePushResult(Model):
    """The roll pushed (FAB-31): the side itself, or for an opposed roll the opposition
    against the passive side's unchanged dice (FAB-37)."""

    pool: FabulaePool | None = None
    dice: list[int] | None = None
    stress_dice: list[int] | None = None
    sixes: int | None = None
    feats: int
    panic: bool | None = None
    outcome: RollOutcome
    label: str
    rerolled_from: FabulaeRerolledFrom | None = None
    active: FabulaeDice | None = None
    passive: bool | FabulaeDice
    net: int | None = None
    winner: Literal["active", "passive"] | None = None
    push: int = Field(description="1 for the first push, 2 for a second (FAB-33)")
    state_price: FabulaeStatePrice | None = None
    pending_states: list[FabulaePending] | None = None
    stress_lowered: int | None = None
    # A roll with consequences, replayed with the pushed dice (FAB-31 corrected).
    attack: FabulaeAttackResult | None = None
    defend: FabulaeDefendResult | None = None
    grapple: FabulaeGrappleResult | None = None
    break_free: FabulaeBreakFreeResult | None = None
    death_test: FabulaeDeathTestResult | None = None
    recover: FabulaeRecoverResult | None = None
    power: FabulaePowerResult | None = None
    danger: FabulaeDangerResult | None = None
    stabilize: FabulaeStabilizeResult | None = None


def current_roll(request: FabulaePushRequest) -> tuple[_RollView, int]:
    """The roll as it stands: the last push replaced it for good (FAB-33)."""
    result = request.action.result
    pushes = 0
    for follow in request.follow_ups:
        if follow.kind in REROLLS:
            result = follow.result
            pushes += follow.kind == "fabulae.push"
    return _RollView.model_validate(result), pushes


def prepare_push(body: FabulaePushCreate, table: Table) -> Prepared[FabulaePushRequest]:
    action, character, visibility = followed_entry(table, body.follows)
    replayed = action.kind in PUSHABLE
    request = FabulaePushRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        action=action,
        follow_ups=follow_ups(table, body.follows, results=not replayed),
        state=body.state,
        absorb=body.absorb,
    )
    if replayed:
        request.now = [
            table.character(who, FabulaeCharacter) for who in touched(action.kind, action.request)
        ]
    return Prepared(
        request,
        character_id=character.id,
        visibility=body.visibility or visibility,  # type: ignore[arg-type]
        follows=body.follows,
    )


def resolve_push(
    request: FabulaePushRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaePushResult]:
    """FAB-31..35: 1 Destiny rerolls every 2..5 (stress dice too); 1s and 6s stay."""
    action = request.action
    if version >= CORRECTED and action.kind in PUSHABLE:
        # Its roller was free to act when it rolled; the replay checks that, and a push
        # can undo what the roll did (a death test that killed).
        return push_replayed(request, dice, version)
    plan = push_plan(request, version)
    side = plan.side
    faces = [face if face in (1, 6) else dice.roll(6) for face in side.dice]
    stress = [face if face in (1, 6) else dice.roll(6) for face in side.stress_dice]
    rolled = read_dice(faces, stress)
    pushed = FabulaeDice(
        pool=side.pool,
        **rolled.model_dump(exclude_unset=True),
        rerolled_from=FabulaeRerolledFrom(dice=side.dice, stress_dice=side.stress_dice),
    )
    if plan.passive is not None:
        fields = opposition(pushed, plan.passive, version).model_dump(exclude_unset=True)
    else:
        fields = {**pushed.model_dump(exclude_unset=True), "passive": False}
    result = FabulaePushResult(**fields, push=plan.pushes + 1)
    effects = paid(request, result, version)
    if action.kind == "fabulae.stress_resist":
        effects += stress_resisted(request.character, plan.lowered, result, version)
    return Resolution(result, effects)


@dataclass(frozen=True)
class PushPlan:
    """What a push of a roll without consequences rerolls (FAB-31), read before any die:
    the roller's side as it stands, the passive side it is opposed to (kept, FAB-37), the
    pushes before it and the stress a Résistance test lowered already (FAB-43)."""

    side: FabulaeDice
    passive: FabulaeDice | None
    pushes: int
    lowered: int


def push_plan(request: FabulaePushRequest, version: RulesVersion) -> PushPlan:
    """The roll a push rerolls, after every refusal made before the dice (FAB-14, 31..34,
    FAB-42): resolve and its odds read it alike."""
    action = request.action
    check_may_act(request.character, action.kind, version)
    if action.kind not in PUSHABLE_KINDS:
        if version >= CORRECTED:
            raise InvalidInput(
                f"a {action.kind} is not a roll its roller may push: passive rolls and table "
                "rolls (panic, sequela, protection) are not pushed (FAB-31)"
            )
        raise InvalidInput(f"follows must name an action roll, not {action.kind}")
    character = request.character
    current, pushes = current_roll(request)
    passive: FabulaeDice | None = None
    if action.kind in OPPOSED_KINDS:
        assert current.active is not None and isinstance(current.passive, FabulaeDice)
        side, passive = current.active, current.passive
    else:
        side = FabulaeDice(
            pool=current.pool,
            dice=current.dice,
            stress_dice=current.stress_dice,
            outcome=current.outcome,
        )
    roll = roll_of(action)
    if roll.passive:
        raise refusal("FAB-33", "a passive roll imposed by the GM cannot be pushed")
    if side.outcome == "impossible":
        raise refusal("FAB-14", "an impossible action rolled no dice; there is nothing to push")
    if side.outcome == "panic":
        raise refusal("FAB-42", "a panicked action is interrupted and cannot be pushed")
    check_pushes_left(character, pushes, roll.attribute)
    check_price(request)
    return PushPlan(side, passive, pushes, current.stress_lowered)


def check_pushes_left(character: FabulaeCharacter, pushes: int, attribute: str) -> None:
    """FAB-33: one push a roll; a second with the talent of its attribute; never a third."""
    if pushes >= 2:
        raise refusal(
            "FAB-33",
            "this roll was pushed twice already; a talent allows a second push, none a third",
        )
    if pushes >= 1:
        talent = DOUBLE_PUSH[attribute]
        if not has_talent(character.sheet, talent):
            raise refusal(
                "FAB-33",
                f"one push per action; a second needs the talent {talent}, "
                f"on a roll based on {attribute}",
            )


def check_price(request: FabulaePushRequest) -> None:
    """FAB-31/32/34: what the push will cost, checked before any die: a request refused
    after drawing would let the caller see what the next entry's dice hold for free."""
    character, absorb, state = request.character, request.absorb, request.state
    if absorb and state is not None:
        raise InvalidInput(
            "FAB-32/FAB-34: name a state to check or absorb it, not both", rule="FAB-32"
        )
    if state is not None:
        check_chosen_state(character, state, "FAB-32")
    destiny = character.sheet.destiny
    if destiny < (2 if absorb else 1):
        raise refusal(
            "FAB-34" if absorb else "FAB-31",
            f"pushing costs 1 Destiny point{' and absorbing one more' if absorb else ''}; "
            f"{character.name} has {destiny}",
        )


def paid(
    request: FabulaePushRequest, result: FabulaePushResult, version: RulesVersion
) -> list[Effect]:
    """FAB-31: 1 Destiny; FAB-32: a 1 anywhere in the final set costs a state of the
    player's choice, or one more Destiny that absorbs it (FAB-34); left to choose, it is
    pending on the character (from the corrections on)."""
    character, absorb, state = request.character, request.absorb, request.state
    cost = 1
    effects: list[Effect] = []
    if any(face == 1 for face in [*(result.dice or []), *(result.stress_dice or [])]) or (
        result.active is not None
        and any(face == 1 for face in [*result.active.dice, *result.active.stress_dice])
    ):
        if absorb:
            cost = 2
            result.state_price = FabulaeStatePrice(rule="FAB-32", absorbed=True)
        elif state is not None:
            effects += check_chosen_state(character, state, "FAB-32")
            result.state_price = FabulaeStatePrice(rule="FAB-32", state=state)
        else:
            result.pending_states = [FabulaePending(rule="FAB-32", choice="any")]
            waiting = character.sheet.states_pending
            if version >= CORRECTED:
                effects.append(
                    effect(character.id, "states_pending", waiting, waiting + 1, "FAB-32")
                )
    destiny = character.sheet.destiny
    effects.insert(0, effect(character.id, "destiny", destiny, destiny - cost, "FAB-31"))
    return effects


def replay_plan(request: FabulaePushRequest, version: RulesVersion) -> Replay:
    """A roll with consequences as it stands before its push, after every refusal made
    before the dice (FAB-14, 31, 33, 34, 42): resolve and its odds read it alike."""
    action, now = request.action, request.now or []
    pushes = [f.draws or [] for f in request.follow_ups if f.kind == "fabulae.push"]
    if any(f.kind in SETTLING_KINDS for f in request.follow_ups):
        raise refusal("FAB-31", "its states were settled already: a roll is pushed before they are")
    pushable = PUSHABLE[action.kind]
    attribute = pushable.attribute(pushable.kind.parse_request(action.request))
    check_pushes_left(request.character, len(pushes), attribute)
    first = replay(action.kind, action.request, action.draws or [], now, version, pushes)
    check_price(request)
    return first


def push_replayed(
    request: FabulaePushRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaePushResult]:
    """FAB-31/33/37 (corrected): a roll with consequences, pushed once by its roller; the
    roll is replayed with the new dice and what it decided follows them."""
    now = request.now or []
    pushes = [f for f in request.follow_ups if f.kind == "fabulae.push"]
    first = replay_plan(request, version)
    pushed = push_again(first, now, dice, version)
    side = pushed.side.model_copy(
        update={
            "rerolled_from": FabulaeRerolledFrom(
                dice=first.side.dice, stress_dice=first.side.stress_dice
            )
        }
    )
    opposed = opposition_of(pushed.result)
    if opposed is not None:
        # FAB-37: against the other side's dice, kept; the winner says how it went.
        fields = opposed.model_copy(update={"active": side}).model_dump(exclude_unset=True)
    else:
        fields = {**side.model_dump(exclude_unset=True), "passive": False}
    result = FabulaePushResult(**fields, push=len(pushes) + 1)
    setattr(result, pushed.field, pushed.result)
    # The price is paid on the sheet as the replayed roll leaves it (a danger's save pushed
    # by its own target changes both), so each change follows the one before.
    sheet = request.character.sheet.model_dump(mode="json")
    for change in pushed.changes:
        if change.character_id == request.character.id:
            sheet[change.field] = change.after
    payer = request.character.model_copy(update={"sheet": FabulaeSheet.model_validate(sheet)})
    price = paid(request.model_copy(update={"character": payer}), result, version)
    return Resolution(result, [*pushed.changes, *price])


def stress_resisted(
    character: FabulaeCharacter, lowered: int, after: FabulaePushResult, version: RulesVersion
) -> list[Effect]:
    """FAB-43 after a push: the sixes the new roll adds lower stress further; from version 3,
    a push that panics gives back the stress the roll it replaced had lowered."""
    stress = character.sheet.stress
    total = lowered_after_push(lowered, stress, after.outcome, after.sixes or 0, version)
    after.stress_lowered = total
    more = total - lowered
    return stress_change(character, -more, "FAB-43") if more else []


def lowered_after_push(
    lowered: int, stress: int, outcome: str, sixes: int, version: RulesVersion
) -> int:
    """FAB-43: the stress a pushed Résistance test has lowered in all (`lowered` by the roll
    it pushed, `stress` as that roll left it): on a success, the sixes beyond those counted
    already lower it further, never below 0. On a Panic the action fails (FAB-42) and the
    new result replaces the old (FAB-33): from version 3 nothing is lowered; before, what
    the pushed roll lowered stayed lowered. Its odds count it the same way."""
    if outcome != "success":
        return 0 if version >= PUSH_REPLACES_RESISTANCE else lowered
    return lowered + max(0, min(stress, sixes - lowered))


def after_push(
    prepared: Prepared[FabulaePushRequest], resolution: Resolution[FabulaePushResult], seq: int
) -> Aftermath:
    result = resolution.result
    side = result.active or result
    if side.outcome != "panic":
        return aftermath([], prepared.visibility)
    return aftermath([prepared.request.character.id], prepared.visibility)


def push_summary(request: FabulaePushRequest, result: FabulaePushResult, language: Language) -> str:
    """« Ada — Poussée : 6 6 1 → Succès », or how the pushed roll's consequences went
    (« → Touché », « → Toujours agrippé »)."""
    what = "Poussée" if language == "fr" else "Push"
    colon = " :" if language == "fr" else ":"
    side = result.active or FabulaeDice(
        dice=result.dice or [], stress_dice=result.stress_dice or [], outcome=result.outcome
    )
    outcome = push_outcome(result)
    return (
        f"{request.character.name} — {what}{colon} {dice_text(side)} → "
        f"{text(outcome.group, outcome.code, language)}"
    )


def push_odds_of(request: FabulaePushRequest, version: RulesVersion) -> Odds:
    """Issue 21: the exact odds (odds_push.py, which builds on this module)."""
    from app.engine.rulesets.fabulae.odds_push import push_odds

    return push_odds(request, version)


def push_outcome(result: FabulaePushResult) -> Outcome:
    """The roll's outcome; for a roll with consequences, its kind's (a hit, still held)."""
    for pushable in PUSHABLE.values():
        replayed = getattr(result, pushable.field, None)
        if replayed is not None and pushable.kind.outcome is not None:
            found: Outcome | None = pushable.kind.outcome(replayed)
            if found is not None:
                return found
    return Outcome("outcome", result.outcome)


PUSH: RollKind[FabulaePushCreate, FabulaePushRequest, FabulaePushResult] = RollKind(
    name="fabulae.push",
    npc_values=PUSHED_NPC_VALUES,
    title="Push",
    body=FabulaePushCreate,
    request=FabulaePushRequest,
    result=FabulaePushResult,
    prepare=prepare_push,
    resolve=resolve_push,
    summary=push_summary,
    reaction=True,
    after=after_push,
    triggers=SETS_OFF_PANIC,
    outcome=push_outcome,
    odds=push_odds_of,
)


# --- fabulae.street_rat (FAB-90) ------------------------------------------------------------


class FabulaeStreetRatRequest(FabulaeClock):
    character: FabulaeCharacter
    action: FabulaeFollowed
    follow_ups: list[FabulaeFollowUp] = Field(default_factory=list)
    die: int = Field(description="index of the die to reroll")


class FabulaeStreetRatResult(FabulaeDice):
    passive: bool
    rerolled_die: int


def prepare_street_rat(
    body: FabulaeStreetRatCreate, table: Table
) -> Prepared[FabulaeStreetRatRequest]:
    action, character, visibility = followed_entry(table, body.follows)
    request = FabulaeStreetRatRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        action=action,
        follow_ups=follow_ups(table, body.follows),
        die=body.die,
    )
    return Prepared(
        request,
        character_id=character.id,
        visibility=body.visibility or visibility,  # type: ignore[arg-type]
        follows=body.follows,
    )


def resolve_street_rat(
    request: FabulaeStreetRatRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeStreetRatResult]:
    """FAB-90 street_rat: in a city, reroll one failed die of a Furtivité or flight roll, free."""
    check_may_act(request.character, request.action.kind, version)
    if not has_talent(request.character.sheet, "street_rat"):
        raise InvalidInput("street_rat is a talent this character does not have")
    action = request.action
    if action.kind != "fabulae.action":
        raise InvalidInput(f"follows must name a fabulae.action entry, not {action.kind}")
    if roll_of(action).skill not in ("furtivite", "athletisme"):
        raise refusal("FAB-90", "street_rat rerolls Furtivité or flight (Athlétisme) rolls only")
    if any(f.kind == "fabulae.street_rat" for f in request.follow_ups):
        raise refusal("FAB-90", "street_rat rerolls one die once per roll")
    if any(f.kind == "fabulae.push" for f in request.follow_ups):
        raise refusal("FAB-33", "the push replaced this roll for good; reroll before pushing")
    current = _RollView.model_validate(action.result)
    if current.outcome in ("panic", "impossible"):
        raise refusal("FAB-42", "a panicked or impossible action cannot be rerolled")
    index = request.die
    if not 0 <= index < len(current.dice):
        raise InvalidInput(f"die must index the roll's {len(current.dice)} dice")
    if current.dice[index] == 6:
        raise InvalidInput("street_rat rerolls a failed die, not a 6")
    faces = list(current.dice)
    faces[index] = dice.roll(6)
    rolled = read_dice(faces, current.stress_dice)
    result = FabulaeStreetRatResult(
        pool=current.pool,
        **rolled.model_dump(exclude_unset=True),
        passive=current.passive if isinstance(current.passive, bool) else False,
        rerolled_die=index,
    )
    return Resolution(result)


def street_rat_summary(
    request: FabulaeStreetRatRequest, result: FabulaeStreetRatResult, language: Language
) -> str:
    what = "Rat des rues" if language == "fr" else "Street rat"
    colon = " :" if language == "fr" else ":"
    return (
        f"{request.character.name} — {what}{colon} {dice_text(result)} → "
        f"{text('outcome', result.outcome, language)}"
    )


STREET_RAT: RollKind[FabulaeStreetRatCreate, FabulaeStreetRatRequest, FabulaeStreetRatResult] = (
    RollKind(
        name="fabulae.street_rat",
        npc_values=(
            ("/pool", "/character"),
            ("/request/action/result/pool", "/character"),
            ("/request/follow_ups/*/result/pool", "/character"),
        ),
        title="Street rat reroll",
        body=FabulaeStreetRatCreate,
        request=FabulaeStreetRatRequest,
        result=FabulaeStreetRatResult,
        prepare=prepare_street_rat,
        resolve=resolve_street_rat,
        summary=street_rat_summary,
        reaction=True,
        outcome=lambda result: Outcome("outcome", result.outcome),
    )
)


# --- fabulae.destiny_award (FAB-30) ---------------------------------------------------------


class FabulaeDestinyAwardRequest(FabulaeClock):
    character: FabulaeCharacter
    reason: str = ""


class FabulaeDestinyAwardResult(Model):
    destiny: int
    reason: str


def prepare_destiny_award(
    body: FabulaeDestinyAwardCreate, table: Table
) -> Prepared[FabulaeDestinyAwardRequest]:
    character = table.character(body.character_id, FabulaeCharacter)
    request = FabulaeDestinyAwardRequest(
        system=SYSTEM,
        session=table.session,
        scene=table.scene,
        character=character,
        reason=body.reason,
    )
    return Prepared(request, character_id=character.id, visibility=body.visibility)


def resolve_destiny_award(
    request: FabulaeDestinyAwardRequest, dice: DiceSource, version: RulesVersion
) -> Resolution[FabulaeDestinyAwardResult]:
    """FAB-30: the GM awards 1 Destiny point for a narrative feat."""
    character = request.character
    check_may_act(character, "fabulae.destiny_award", version)  # not to the dead
    destiny = character.sheet.destiny
    award = effect(character.id, "destiny", destiny, destiny + 1, "FAB-30")
    return Resolution(
        FabulaeDestinyAwardResult(destiny=destiny + 1, reason=request.reason), [award]
    )


def destiny_award_summary(
    request: FabulaeDestinyAwardRequest, result: FabulaeDestinyAwardResult, language: Language
) -> str:
    word = "Destin" if language == "fr" else "Destiny"
    return f"{request.character.name} — {word} +1 → {result.destiny}"


DESTINY_AWARD: RollKind[
    FabulaeDestinyAwardCreate, FabulaeDestinyAwardRequest, FabulaeDestinyAwardResult
] = RollKind(
    name="fabulae.destiny_award",
    title="Destiny awarded",
    body=FabulaeDestinyAwardCreate,
    request=FabulaeDestinyAwardRequest,
    result=FabulaeDestinyAwardResult,
    prepare=prepare_destiny_award,
    resolve=resolve_destiny_award,
    summary=destiny_award_summary,
    is_roll=False,
    gm_only="award Destiny",
)
