"""Exact odds of pushing a roll with consequences (FAB-31/33/37 corrected; issue 21): an
attack (or the defense entry that rolled it or a grapple), a grapple, breaking free, a death
test, a stabilisation, a care or FAB-81's Résistance roll, a danger's save, and a power's
caster roll (bolt, light_dark, silence_noise, drain).

The push keeps the roller's 1s and 6s and rerolls every 2..5 (FAB-31); the roll is then
replayed by its own kind's resolve (pushed.py's PushedDice): the other side's dice and the
dice the roll drew after them stay as recorded (FAB-37), and fresh dice are drawn only where
the roll now needs more. A roll reads its dice by their sixes and a stress die's 1 alone
(FAB-11, FAB-42); a 1 anywhere is the push's price (FAB-32), counted apart. So the rerolled
dice count by class (how many sixes, a Panic or not), one face standing for each class's
ways, and the classes are swept by their sixes (odds_sweep.py): a run of classes whose ends
read alike is read from its ends. The fresh dice a roll may now need are counted the same
way: an attack's or a bolt's protection dice by their sixes (FAB-67), the binomial ways
C(n,s)·5^(n−s), each lowering the damage read from one replay where they all show no six;
a drain's 1D3 by each face (FAB-101). Any other fresh die is refused rather than guessed,
unless what the odds count is read before it (the state dice after an attack's damage,
FAB-68).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from math import comb
from typing import TYPE_CHECKING, Any, Final

from app.engine.contract import RulesVersion
from app.engine.errors import refusal
from app.engine.odds import Odds, outcome_odds
from app.engine.rulesets.fabulae.damage import FabulaeAttackRequest, protection_dice
from app.engine.rulesets.fabulae.odds import (
    PANIC_NOTE,
    TEST_OUTCOMES,
    counted,
    ordered,
    over_codes,
)
from app.engine.rulesets.fabulae.odds_attack import (
    ATTACK_OUTCOMES,
    BREAK_FREE_OUTCOMES,
    GRAPPLE_OUTCOMES,
)
from app.engine.rulesets.fabulae.odds_danger import STATES_NOTE as DANGER_STATES_NOTE
from app.engine.rulesets.fabulae.odds_power import STATES_NOTE as POWER_STATES_NOTE
from app.engine.rulesets.fabulae.odds_push import PRICE_NOTE, SECOND_PUSH_NOTE
from app.engine.rulesets.fabulae.odds_sequelae import DEATH_OUTCOMES
from app.engine.rulesets.fabulae.odds_sweep import BLANK, Reads, read_classes, stand_in, swept
from app.engine.rulesets.fabulae.pools import FabulaeDice
from app.engine.rulesets.fabulae.powers import DRAIN_DIE
from app.engine.rulesets.fabulae.pushed import PushedDice, Replay

if TYPE_CHECKING:
    from app.engine.rulesets.fabulae.push import FabulaePushRequest

STATES_NOTE: Final = (
    "the states, sequelae and duration dice that follow the damage (FAB-68, FAB-50) are not "
    "part of these odds"
)


class _FreshSixes:
    """The fresh dice of one class: the first `sixes` of the `counted` fresh d6 show 6, the
    others a blank; the die after them shows `face` when the kind reads it by its face (a
    drain's 1D3); a fresh die past those is refused unless the kind's reading says the odds
    read nothing of it (the state dice drawn after an attack's protection)."""

    def __init__(
        self, counted_dice: int, sixes: int, face: tuple[int, int], later_unread: bool, kind: str
    ):
        self._counted = counted_dice
        self._sixes = sixes
        self._face_die, self._face = face
        self._later_unread = later_unread
        self._kind = kind
        self.drawn = 0
        self.face_drawn = False

    def roll(self, sides: int) -> int:
        index = self.drawn
        self.drawn += 1
        if index < self._counted and sides == 6:
            return 6 if index < self._sixes else BLANK
        if index == self._counted and self._face_die and sides == self._face_die:
            self.face_drawn = True
            return self._face
        if index >= self._counted and self._later_unread:
            return 1 if sides < BLANK else BLANK
        raise not_computed(self._kind, "it now draws a die these odds do not count")

    @property
    def draws(self) -> list[Any]:
        return []


@dataclass(frozen=True)
class Reading:
    """What the odds of a kind's pushed roll read: its outcomes (worst to best for the
    roller), the values its own odds count, the fresh d6 that count by their sixes alone,
    whether any die drawn after those is unread by the odds, why a request is not read
    (None when it is), the damage the fresh sixes absorb at most (FAB-67), and the values
    each six it absorbs lowers by one."""

    outcomes: Callable[[Replay], tuple[str, ...]]
    values: Callable[[Any, FabulaeDice], Mapping[str, int]]
    fresh_sixes: Callable[[Replay], int] = lambda replay: 0
    later_unread: bool = False
    notes: tuple[str, ...] = ()
    not_read: Callable[[Replay], str | None] = lambda replay: None
    absorbs: Callable[[Any], int | None] = lambda result: None
    lowered: tuple[str, ...] = ()
    per_six: frozenset[str] = frozenset()
    face_die: Callable[[Replay], int] = lambda replay: 0


def _attack_values(result: Any) -> dict[str, int]:
    """As the attack odds count them: damage through armor and cover; and the panic the push
    sets off, the pusher's alone: the other side's dice stay as rolled (FAB-37), so a panic
    of theirs was set off by the roll pushed, not by the push (after_push, FAB-42)."""
    attacks = result.attacks or []
    active = any(a.roll.active.outcome == "panic" for a in attacks) or bool(result.panic)
    return {"damage": sum(a.through or 0 for a in attacks if a.hit), "panics": int(active)}


def _hit_damage(result: Any) -> int | None:
    """The damage a hit brings to its protection dice (FAB-66), which absorb it at most."""
    hits = [a.damage for a in result.attacks or [] if a.hit]
    return hits[0] if len(hits) == 1 else None


def _protection(request: Any, result: Any) -> int:
    """FAB-67: the protection dice a pushed hit draws fresh: none when the roll as it stands
    hit already (its protection dice were drawn, and are replayed), else armor and cover's."""
    if any(a.hit for a in result.attacks or []):
        return 0
    return protection_dice(request.target.sheet, request.cover)


def _defended(replay: Replay) -> tuple[Any, Any]:
    """A defense entry's attack or grapple: its request and its result as they stand."""
    request: Any = replay.request
    result = replay.first.result
    if request.attack is not None:
        return request.attack, result.attack
    return request.grapple, result.grapple


def _attacked(replay: Replay) -> bool:
    return isinstance(_defended(replay)[0], FabulaeAttackRequest)


def _defense_values(result: Any, side: FabulaeDice) -> Mapping[str, int]:
    if result.attack is not None:
        return _attack_values(result.attack)
    return _opposed_values(result.grapple, side)


def _test_values(result: Any, side: FabulaeDice) -> dict[str, int]:
    """As a test's odds count it (FAB-11, FAB-42): sixes, Prouesses, panics."""
    panic = side.outcome == "panic"
    return {"sixes": side.sixes, "prouesses": side.feats, "panics": int(panic)}


def _opposed_values(result: Any, side: FabulaeDice) -> dict[str, int]:
    """As an opposed roll's odds count it (FAB-36): net sixes, Prouesses; and the pusher's
    panic, the only one a push sets off (FAB-37, FAB-42)."""
    roll = result.roll
    return {
        "net": roll.net,
        "prouesses": roll.feats,
        "panics": int(roll.active.outcome == "panic"),
    }


def _danger_values(result: Any, side: FabulaeDice) -> dict[str, int]:
    """As a danger's odds count it (FAB-73): the damage, the save's panic, and whether a
    floater sinks."""
    values = {"damage": result.damage or 0, "panics": int(side.outcome == "panic")}
    if result.danger == "drowning" and result.sinks is not None:
        values["sinks"] = int(result.sinks)
    return values


# FAB-102: the powers whose caster's roll a push replays with odds: a test, and what it
# decides, counted as their own odds count it.
PUSHED_POWERS: Final = ("bolt", "light_dark", "silence_noise", "drain")


def _power_values(result: Any, side: FabulaeDice) -> dict[str, int]:
    if result.power == "drain":  # FAB-101: an opposed roll, and the PP it steals
        values = {**_opposed_values(result, side), "stolen": result.stolen or 0}
        return {**values, "stress_gained": result.stress_gained}
    values = {**_test_values(result, side), "stress_gained": result.stress_gained}
    if result.power == "bolt":
        values["through"] = sum(hit.through for hit in (result.targets or {}).values())
    else:
        values["malus"] = result.malus or 0
    return values


def _bolt_protection(replay: Replay) -> int:
    """FAB-67 through FAB-102: a bolt that now strikes draws its target's armor dice fresh,
    unless the roll as it stands struck already (its armor dice are replayed)."""
    request: Any = replay.request
    if request.power != "bolt" or replay.first.result.targets:
        return 0
    return protection_dice(request.targets[0].sheet, 0)


def _bolt_damage(result: Any) -> int | None:
    return max((hit.damage for hit in (result.targets or {}).values()), default=None)


def _drain_die(replay: Replay) -> int:
    """FAB-101: a drain that now wins draws its 1D3 fresh, unless it won already."""
    request: Any = replay.request
    if request.power != "drain" or replay.first.result.stolen is not None:
        return 0
    return DRAIN_DIE


def _power_not_read(replay: Replay) -> str | None:
    power = replay.request.power  # type: ignore[attr-defined]
    if power in PUSHED_POWERS:
        return None
    return f"{power} rolls no caster's roll these odds replay"


# FAB-11, FAB-36, FAB-66: the values a six moves by one at most, within one outcome.
TEST_SIXES: Final = frozenset({"sixes", "prouesses"})
NET_SIXES: Final = frozenset({"net", "prouesses"})

READINGS: Final[dict[str, Reading]] = {
    "fabulae.attack": Reading(
        outcomes=lambda replay: ATTACK_OUTCOMES,
        values=lambda result, side: _attack_values(result),
        fresh_sixes=lambda replay: _protection(replay.request, replay.first.result),
        absorbs=lambda result: _hit_damage(result),
        lowered=("damage",),
        per_six=frozenset({"damage"}),
        later_unread=True,
        notes=(STATES_NOTE,),
    ),
    "fabulae.defend": Reading(
        outcomes=lambda replay: ATTACK_OUTCOMES if _attacked(replay) else GRAPPLE_OUTCOMES,
        values=_defense_values,
        fresh_sixes=lambda replay: _protection(*_defended(replay)) if _attacked(replay) else 0,
        absorbs=lambda result: _hit_damage(result.attack) if result.attack is not None else None,
        lowered=("damage",),
        per_six=NET_SIXES | {"damage"},
        later_unread=True,
        notes=(STATES_NOTE,),
    ),
    "fabulae.grapple": Reading(
        outcomes=lambda replay: GRAPPLE_OUTCOMES, values=_opposed_values, per_six=NET_SIXES
    ),
    "fabulae.break_free": Reading(
        outcomes=lambda replay: BREAK_FREE_OUTCOMES, values=_opposed_values, per_six=NET_SIXES
    ),
    "fabulae.danger": Reading(
        outcomes=lambda replay: TEST_OUTCOMES,
        values=_danger_values,
        later_unread=True,
        notes=(DANGER_STATES_NOTE,),
    ),
    "fabulae.power": Reading(
        outcomes=lambda replay: TEST_OUTCOMES,
        values=_power_values,
        fresh_sixes=_bolt_protection,
        absorbs=lambda result: max(
            (hit.damage for hit in (result.targets or {}).values()), default=None
        ),
        lowered=("through",),
        # FAB-102: a bolt's damage is 2 + its Prouesses; a malus jumps from −2 to −4.
        per_six=TEST_SIXES | NET_SIXES | {"through"},
        later_unread=True,
        notes=(POWER_STATES_NOTE,),
        not_read=_power_not_read,
        face_die=lambda replay: _drain_die(replay),
    ),
    "fabulae.death_test": Reading(
        outcomes=lambda replay: DEATH_OUTCOMES, values=_test_values, per_six=TEST_SIXES
    ),
    "fabulae.stabilize": Reading(
        outcomes=lambda replay: TEST_OUTCOMES, values=_test_values, per_six=TEST_SIXES
    ),
    "fabulae.recover": Reading(
        outcomes=lambda replay: TEST_OUTCOMES, values=_test_values, per_six=TEST_SIXES
    ),
}


# Replays of a pushed roll one odds request may ask for, each running the kind's own
# resolve: a sweep asks a few dozen at most for the largest pools a sheet allows; a push
# that would ask more is refused with the reason rather than answered in seconds.
MAX_REPLAYS = 80


def not_computed(kind: str, why: str) -> Exception:
    return refusal(
        "FAB-31",
        f"the odds of pushing this {kind} are not computed: {why}; the push itself is still "
        "made with POST .../rolls. Odds cover pushes of fabulae.action, fabulae.stress_resist, "
        f"fabulae.opposed, fabulae.oppose and, replayed, {', '.join(sorted(READINGS))}",
    )


def replayed_odds(request: FabulaePushRequest, version: RulesVersion) -> Odds:
    """The odds, kept for the same request (its JSON) and rules version: a large pool
    replays its roll a few hundred times."""
    return _odds_of_request(request.model_dump_json(), version)


@lru_cache(maxsize=128)
def _odds_of_request(request: str, version: RulesVersion) -> Odds:
    from app.engine.rulesets.fabulae.push import FabulaePushRequest

    return computed_odds(FabulaePushRequest.model_validate_json(request), version)


def computed_odds(request: FabulaePushRequest, version: RulesVersion) -> Odds:
    """The classes of the rerolled dice swept by their sixes, each replayed through the
    kind's own resolve (or read from the ends of its run), weighted by the faces it stands
    for; the fresh protection dice's sixes counted after the replay (FAB-67)."""
    from app.engine.rulesets.fabulae.push import replay_plan

    plan = replay_plan(request, version)  # the refusals the push makes before any die
    kind = plan.pushable.kind
    reading = READINGS.get(kind.name)
    if reading is None:
        raise not_computed(
            kind.name,
            "its new dice are replayed through what the roll decides (a hold, a power's "
            "effects, a danger's harm), drawing fresh dice where it now needs more",
        )
    why_not = reading.not_read(plan)
    if why_not is not None:
        raise not_computed(kind.name, why_not)
    side, start = plan.side, plan.pushable.start(plan.first.result)
    pool = [start + i for i, face in enumerate(side.dice) if face not in (1, 6)]
    stress = [start + len(side.dice) + i for i, f in enumerate(side.stress_dice) if f not in (1, 6)]
    kept_one = any(face == 1 for face in [*side.dice, *side.stress_dice])
    fresh = reading.fresh_sixes(plan)
    codes = reading.outcomes(plan)
    whole = 6 ** (len(pool) + len(stress) + fresh)
    outcomes: dict[str, int] = defaultdict(int)
    laws: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    face_die = reading.face_die(plan)
    if face_die and fresh:  # no kind draws both; their classes would not be counted apart
        raise not_computed(kind.name, "it now draws protection dice and a die read by its face")
    whole *= max(1, face_die)
    classes = read_classes(len(pool), len(stress))
    replays = 0

    def spend() -> None:
        nonlocal replays
        replays += 1
        if replays > MAX_REPLAYS:
            raise not_computed(
                kind.name,
                f"its {len(pool) + len(stress)} rerolled dice and {fresh + face_die} fresh "
                f"ones need more replays of the roll than the {MAX_REPLAYS} answered at once",
            )

    def replay(sixes: int, panic: bool) -> Reads:
        faces = stand_in(pool, stress, sixes, panic)
        return [
            (_outcome(plan, result, codes), reading.values(result, _read_side(plan, result)), ways)
            for result, ways in _replays(plan, reading, faces, fresh, face_die, version, spend)
        ]

    for panic in (False, True):  # FAB-42: a Panic is an outcome of its own, swept apart
        counts = sorted(sixes for sixes, panicked in classes if panicked == panic)
        read = swept(counts, partial(replay, panic=panic), reading.per_six)
        for sixes, reads in read.items():
            by_one = classes[(sixes, panic)]
            rerolled_ways = sum(by_one.values())
            for code, values, fresh_ways in reads:
                fresh_ways_all = sum(fresh_ways.values())
                for one, ways in by_one.items():  # the price reads the 1s, the rest not
                    count = ways * fresh_ways_all
                    _tally(outcomes, laws, count, code, kept_one or one, request.absorb)
                for absorbed, ways in fresh_ways.items():
                    for name, value in _lowered(reading, values, absorbed).items():
                        laws[name][value] += rerolled_ways * ways
    return Odds(
        outcomes=outcome_odds(ordered(codes, over_codes(outcomes, whole))),
        distributions=[counted(name, law, whole) for name, law in laws.items()],
        notes=[SECOND_PUSH_NOTE, PANIC_NOTE, PRICE_NOTE, *reading.notes],
    )


def _read_side(plan: Replay, result: Any) -> FabulaeDice:
    new_side = plan.pushable.side(result)
    if new_side is None:  # the same roll, its dice changed: always a side
        raise not_computed(plan.pushable.kind.name, "its replay read no roll")
    return new_side


def _lowered(reading: Reading, values: Mapping[str, int], absorbed: int) -> Mapping[str, int]:
    """FAB-67: the values as they read with `absorbed` more damage stopped by fresh sixes."""
    if not absorbed:
        return values
    return {
        name: value - absorbed if name in reading.lowered else value
        for name, value in values.items()
    }


def _replays(
    plan: Replay,
    reading: Reading,
    faces: dict[int, int],
    fresh: int,
    face_die: int,
    version: RulesVersion,
    spend: Callable[[], None],
) -> Iterator[tuple[Any, dict[int, int]]]:
    """The roll replayed with one class of its rerolled dice, for each face of the face
    die, with the ways of the fresh dice (out of 6^fresh times the face die's sides) by the
    damage their sixes absorb beyond the replay's, which drew them all blank."""
    kind = plan.pushable.kind

    def replayed(sixes: int, face: int) -> tuple[Any, _FreshSixes]:
        spend()
        source = _FreshSixes(fresh, sixes, (face_die, face), reading.later_unread, kind.name)
        result = kind.resolve(plan.request, PushedDice(plan.recorded, faces, source), version)
        return result.result, source

    for face in range(1, face_die + 1) if face_die else (0,):
        result, source = replayed(0, face)
        # A face die not drawn: every one of its faces gives this result.
        scale = 1 if source.face_drawn else max(1, face_die)
        damage = reading.absorbs(result)
        if source.drawn == 0:  # no fresh die: every face of them gives this result
            yield result, {0: 6**fresh * scale}
        elif source.drawn < fresh:  # protection dice are drawn all together (FAB-67)
            raise not_computed(kind.name, "it now draws part of its protection dice")
        elif damage is not None and reading.lowered:
            # FAB-67: s sixes absorb min(damage, s), the blank replay min(damage, 0).
            by_absorbed: dict[int, int] = defaultdict(int)
            for sixes in range(fresh + 1):
                absorbed = min(damage, sixes) - min(damage, 0)
                by_absorbed[absorbed] += comb(fresh, sixes) * 5 ** (fresh - sixes) * scale
            yield result, dict(by_absorbed)
        else:  # what the sixes change is not read by a count: each replayed
            yield result, {0: 5**fresh * scale}
            for sixes in range(1, fresh + 1):
                again, _ = replayed(sixes, face)
                yield again, {0: comb(fresh, sixes) * 5 ** (fresh - sixes) * scale}
        if not source.face_drawn:
            return


def _outcome(plan: Replay, result: Any, codes: tuple[str, ...]) -> str:
    """The replayed roll's outcome as its kind reads it, one of the odds' codes."""
    read = plan.pushable.kind.outcome
    found = read(result) if read is not None else None
    if found is None or found.code not in codes:
        raise not_computed(plan.pushable.kind.name, "its outcome is not one its odds count")
    return str(found.code)


def _tally(
    outcomes: dict[str, int],
    laws: dict[str, dict[int, int]],
    ways: int,
    code: str,
    one: bool,
    absorb: bool,
) -> None:
    """The outcome and the push's price (FAB-31, FAB-32, FAB-34): a 1 in the final set."""
    outcomes[code] += ways
    laws["destiny_spent"][2 if absorb and one else 1] += ways
    if not absorb:
        laws["state_price"][int(one)] += ways
