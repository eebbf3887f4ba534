"""Pushing a roll that carries consequences (FAB-31/33/37 corrected): the attacker's attack
or grapple (answered or not), breaking free, care and FAB-81's Résistance roll, a death
test, a power's roll, a danger's save. The roll is replayed from the dice its entry drew,
with the roller's 2..5 rerolled: what the other side rolled stays (FAB-37), and what the
roll decides (damage, protection, states, a hold, a death) follows from the new dice. The
first result's changes to the sheets are undone and the second's applied."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, JsonValue

from app.engine.contract import Effect, Resolution, RollKind, RulesVersion, effect, to_json
from app.engine.dice import DiceSource, Draw, ReplayDice, check_sides
from app.engine.errors import refusal
from app.engine.rulesets.fabulae.damage import ATTACK, FabulaeAttackResult
from app.engine.rulesets.fabulae.dangers import DANGER
from app.engine.rulesets.fabulae.defense import DEFEND, FabulaeDefendResult
from app.engine.rulesets.fabulae.grappling import (
    BREAK_FREE,
    GRAPPLE,
)
from app.engine.rulesets.fabulae.pools import FabulaeDice, FabulaeOpposition, read_dice
from app.engine.rulesets.fabulae.powers import POWER
from app.engine.rulesets.fabulae.recovery import RECOVER
from app.engine.rulesets.fabulae.sequelae import DEATH_TEST, STABILIZE
from app.engine.rulesets.fabulae.sheet import FabulaeCharacter

# What a push's price changes on its pusher's sheet (FAB-31/32/34).
PRICE_FIELDS: Final = ("destiny", "states", "states_pending")


class PushedDice:
    """The dice of a pushed roll: the entry's recorded draws, the roller's rerolled faces
    put in their places, then fresh dice once the rules ask for more than the entry drew
    (a hit that now needs protection dice) or for another die than it drew."""

    def __init__(self, recorded: Sequence[Draw], faces: Mapping[int, int], fresh: DiceSource):
        self._recorded = list(recorded)
        self._faces = dict(faces)
        self._fresh = fresh
        self._position = 0
        self._diverged = False

    def roll(self, sides: int) -> int:
        check_sides(sides)
        position = self._position
        self._position += 1
        if not self._diverged and position < len(self._recorded):
            if self._recorded[position]["sides"] == sides:
                return self._faces.get(position, self._recorded[position]["face"])
            self._diverged = True
        return self._fresh.roll(sides)

    @property
    def draws(self) -> list[Draw]:
        return self._fresh.draws


# --- what each kind pushes ------------------------------------------------------------------


def _side(roll: object) -> FabulaeDice | None:
    """The active side of a roll as a result records it."""
    if isinstance(roll, FabulaeOpposition):
        return roll.active
    if isinstance(roll, FabulaeDice):
        return roll
    active = getattr(roll, "active", None)  # an attempt that never happened (FAB-14)
    return active if isinstance(active, FabulaeDice) else None


def _flat(result: Any) -> FabulaeDice | None:
    """A result that is the roll itself (a death test, care, a Résistance roll)."""
    if result.outcome is None or not result.dice:
        return None
    read = read_dice(result.dice, result.stress_dice or [])
    return FabulaeDice(pool=result.pool, **read.model_dump(exclude_unset=True))


def opposition_of(result: Any) -> FabulaeOpposition | None:
    """The opposition a pushed roll is part of, if any (FAB-36/37): its winner, not the
    roller's sixes alone, says how the push went."""
    rolls = [getattr(result, "roll", None)]
    rolls += [attack.roll for attack in getattr(result, "attacks", None) or []]
    for found in rolls:
        if isinstance(found, FabulaeOpposition):
            return found
    for nested in (getattr(result, "attack", None), getattr(result, "grapple", None)):
        if nested is not None:
            return opposition_of(nested)
    return None


def _attack_side(result: FabulaeAttackResult) -> FabulaeDice | None:
    attacks = result.attacks or []
    if len(attacks) != 1:
        return None  # a burst's attacks are not pushed (below)
    return attacks[0].roll.active


def _defended_side(result: FabulaeDefendResult) -> FabulaeDice | None:
    if result.attack is not None:
        return _attack_side(result.attack)
    return _side(result.grapple.roll) if result.grapple is not None else None


def _ammo_die(result: FabulaeAttackResult) -> int:
    return 1 if result.ammo is not None and result.ammo.die is not None else 0


@dataclass(frozen=True)
class Pushable:
    """A kind whose roll a push replays: who rolled, the roller's dice and where they start
    among the entry's draws, whose sheets it changes, and where the push keeps its result."""

    kind: RollKind[Any, Any, Any]
    roller: Callable[[Any], FabulaeCharacter]
    side: Callable[[Any], FabulaeDice | None]
    characters: Callable[[Any], list[FabulaeCharacter]]
    field: str
    attribute: Callable[[Any], str] = lambda request: "physique"
    start: Callable[[Any], int] = lambda result: 0


def _shooting(request: Any) -> str:
    """FAB-62/64: melee rolls Physique, a shot Habileté."""
    return "physique" if request.mode == "melee" else "habilete"


def _recovering(request: Any) -> str:
    """FAB-80/81: Soin with Intellect (body) or Empathie (mind); FAB-81's Résistance roll
    with Physique or Empathie, after the track that broke the character."""
    if request.mode == "care":
        return "intellect" if request.track == "physical" else "empathie"
    broken = request.patient.sheet.broken_track or "physical"
    return "physique" if broken == "physical" else "empathie"


def _defended(request: Any) -> Any:
    return request.attack if request.attack is not None else request.grapple


PUSHABLE: Final[dict[str, Pushable]] = {
    p.kind.name: p
    for p in (
        Pushable(
            ATTACK,
            lambda r: r.attacker,
            _attack_side,
            lambda r: [r.attacker, r.target],
            "attack",
            _shooting,
            _ammo_die,
        ),
        Pushable(
            DEFEND,
            lambda r: _defended(r).attacker,
            _defended_side,
            lambda r: [_defended(r).attacker, _defended(r).target],
            "defend",
            lambda r: _shooting(r.attack) if r.attack is not None else "physique",
        ),
        Pushable(
            GRAPPLE,
            lambda r: r.attacker,
            lambda result: _side(result.roll),
            lambda r: [r.attacker, r.target],
            "grapple",
        ),
        Pushable(
            BREAK_FREE,
            lambda r: r.character,
            lambda result: _side(result.roll),
            lambda r: [r.character, r.holder],
            "break_free",
        ),
        Pushable(DEATH_TEST, lambda r: r.character, _flat, lambda r: [r.character], "death_test"),
        Pushable(
            STABILIZE,
            lambda r: r.healer,
            _flat,
            lambda r: [r.healer, r.patient],
            "stabilize",
            lambda r: "intellect",
        ),
        Pushable(
            RECOVER,
            lambda r: r.healer if r.mode == "care" and r.healer is not None else r.patient,
            _flat,
            lambda r: [r.patient] if r.healer is None else [r.patient, r.healer],
            "recover",
            _recovering,
        ),
        Pushable(
            POWER,
            lambda r: r.caster,
            lambda result: _side(result.roll),
            lambda r: [r.caster, *r.targets],
            "power",
            lambda r: "intellect",
        ),
        Pushable(
            DANGER,
            lambda r: r.character,
            lambda result: _side(result.roll),
            lambda r: [r.character],
            "danger",
        ),
    )
}
# FAIR-18: the values a replayed result shows from an NPC's sheet, where the push keeps the
# result, each read from the character the replayed request names (under /action/request).
NPC_VALUES: Final = tuple(
    (f"/{p.field}{value}", f"/action/request{character}")
    for p in PUSHABLE.values()
    for value, character in p.kind.npc_values
)


def roller_id(kind: str, request: Mapping[str, JsonValue]) -> str | None:
    """Who rolled the entry's active roll, the one who may push it (FAB-37), from its
    recorded request; None for a kind a push does not replay."""
    pushable = PUSHABLE.get(kind)
    if pushable is None:
        return None
    return pushable.roller(pushable.kind.parse_request(request)).id


def touched(kind: str, request: Mapping[str, JsonValue]) -> list[str]:
    """The characters whose sheets the entry's roll may change."""
    pushable = PUSHABLE[kind]
    return [c.id for c in pushable.characters(pushable.kind.parse_request(request))]


class Recording:
    """A dice source that keeps what it handed out, in order."""

    def __init__(self, source: DiceSource) -> None:
        self._source = source
        self._seen: list[Draw] = []

    def roll(self, sides: int) -> int:
        face = self._source.roll(sides)
        self._seen.append(Draw(sides=sides, face=face))
        return face

    @property
    def draws(self) -> list[Draw]:
        return list(self._seen)


def rerolled_faces(side: FabulaeDice, start: int, dice: DiceSource) -> dict[int, int]:
    """FAB-31: the roller's dice in their places among the draws, each 2..5 drawn again."""
    rolled = [*side.dice, *side.stress_dice]
    return {
        start + index: face if face in (1, 6) else dice.roll(6) for index, face in enumerate(rolled)
    }


@dataclass(frozen=True)
class Replay:
    """A roll with consequences about to be pushed: how it went the first time."""

    pushable: Pushable
    request: BaseModel
    recorded: list[Draw]
    first: Resolution[Any]
    side: FabulaeDice  # the roller's dice, as the first roll drew them


def replay(
    kind: str,
    request: Mapping[str, JsonValue],
    draws: Sequence[Mapping[str, int]],
    now: Sequence[FabulaeCharacter],
    version: RulesVersion,
    pushes: Sequence[Sequence[Mapping[str, int]]] = (),
) -> Replay:
    """The roll replayed as it stands (after the `pushes` before this one, each by its own
    dice), and every refusal before a die is drawn (FAB-14, 31, 42): a roll that rolled
    nothing of its roller's, or sheets changed since it."""
    pushable = PUSHABLE[kind]
    parsed = pushable.kind.parse_request(request)
    recorded = [Draw(sides=draw["sides"], face=draw["face"]) for draw in draws]
    first = pushable.kind.resolve(parsed, ReplayDice(recorded), version)
    for earlier in pushes:
        stood = pushable.side(first.result)
        assert stood is not None  # it was pushed, so it rolled
        its_dice = ReplayDice([Draw(sides=d["sides"], face=d["face"]) for d in earlier])
        faces = rerolled_faces(stood, pushable.start(first.result), its_dice)
        recording = Recording(PushedDice(recorded, faces, its_dice))
        first = pushable.kind.resolve(parsed, recording, version)
        recorded = recording.draws
    side = pushable.side(first.result)
    if side is None:
        raise refusal(
            "FAB-31",
            "this entry holds no roll of its roller's to push (a rest, a power or danger that "
            "rolls nothing, or a burst, whose attacks are not pushed)",
        )
    if side.outcome == "impossible":
        raise refusal("FAB-14", "an impossible action rolled no dice; there is nothing to push")
    if side.outcome == "panic":
        raise refusal("FAB-42", "a panicked action is interrupted and cannot be pushed")
    pusher = pushable.roller(parsed).id if pushes else None
    unchanged_since(pushable.characters(parsed), now, first.effects, pusher)
    return Replay(pushable, parsed, recorded, first, side)


def unchanged_since(
    then: Sequence[FabulaeCharacter],
    now: Sequence[FabulaeCharacter],
    changes: Sequence[Effect],
    pusher: str | None = None,
) -> None:
    """The sheets are as the roll left them: a push comes right after its roll is read.
    After an earlier push, its price on the pusher's sheet is not the roll's to compare."""
    current = {character.id: character for character in now}
    for character in then:
        expected = character.sheet.model_dump(mode="json")
        for change in changes:
            if change.character_id == character.id:
                expected[change.field] = change.after
        found = current.get(character.id)
        actual = found.sheet.model_dump(mode="json") if found is not None else None
        if actual is not None and character.id == pusher:
            for field in PRICE_FIELDS:
                actual[field] = expected[field]
        if actual != expected:
            raise refusal(
                "FAB-31",
                f"{character.name}'s sheet changed since the roll (a state settled, a panic, "
                "another action): a roll is pushed right after it is read",
            )


@dataclass(frozen=True)
class Pushed:
    """The pushed roll replayed: the roller's new dice, the new result, and the changes
    that take the sheets from the first result to the second."""

    side: FabulaeDice
    result: BaseModel
    field: str
    changes: list[Effect]


def push_again(
    first: Replay, now: Sequence[FabulaeCharacter], dice: DiceSource, version: RulesVersion
) -> Pushed:
    """FAB-31: the roller's 2..5 rerolled in their places; the rest replayed or drawn."""
    pushable, side = first.pushable, first.side
    faces = rerolled_faces(side, pushable.start(first.first.result), dice)
    second = pushable.kind.resolve(first.request, PushedDice(first.recorded, faces, dice), version)
    new_side = pushable.side(second.result)
    assert new_side is not None  # the same roll, its dice changed
    return Pushed(
        side=new_side,
        result=second.result,
        field=pushable.field,
        changes=settled(now, first.first.effects, second.effects),
    )


def settled(
    now: Sequence[FabulaeCharacter], first: Sequence[Effect], second: Sequence[Effect]
) -> list[Effect]:
    """The changes from the sheets as the first result left them to the sheets as the
    second leaves them: what only the first changed goes back."""
    sheets = {character.id: character for character in now}
    fields: dict[tuple[str, str], dict[str, Any]] = {}
    for name, changes in (("first", first), ("second", second)):
        for change in changes:
            slot = fields.setdefault((change.character_id, change.field), {})
            slot.setdefault(f"{name}_before", change.before)
            slot[f"{name}_after"] = change.after
            slot[f"{name}_rule"] = change.rule
    out = []
    for (character_id, field), slot in fields.items():
        current = to_json(getattr(sheets[character_id].sheet, field))
        target = slot["second_after"] if "second_after" in slot else slot["first_before"]
        if current != target:
            rule = slot.get("second_rule") or "FAB-31"
            out.append(effect(character_id, field, current, target, str(rule)))
    return out
