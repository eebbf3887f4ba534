"""The odds of a pushed roll as odds_pushed.py computed them before issue 21's large pools
(FAB-31): every class of the rerolled dice by its sixes, a 1 among the pool dice, a 1 among
the stress dice, replayed once per number of fresh protection sixes up to the damage. Kept
here, uncapped, as the reference the counted method must equal exactly."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from math import comb
from typing import Any

from app.engine.contract import RulesVersion
from app.engine.odds import Odds, outcome_odds
from app.engine.rulesets.fabulae.odds import PANIC_NOTE, counted, ordered, over_codes
from app.engine.rulesets.fabulae.odds_push import PRICE_NOTE, SECOND_PUSH_NOTE, rerolled
from app.engine.rulesets.fabulae.odds_pushed import (
    BLANK,
    READINGS,
    Reading,
    _FreshSixes,
    _outcome,
    not_computed,
)
from app.engine.rulesets.fabulae.pools import FabulaeDice
from app.engine.rulesets.fabulae.push import FabulaePushRequest, replay_plan
from app.engine.rulesets.fabulae.pushed import PushedDice, Replay


def reference_odds(request: FabulaePushRequest, version: RulesVersion) -> Odds:
    plan = replay_plan(request, version)
    kind = plan.pushable.kind
    reading = READINGS[kind.name]
    why_not = reading.not_read(plan)
    if why_not is not None:
        raise not_computed(kind.name, why_not)
    side, start = plan.side, plan.pushable.start(plan.first.result)
    pool = [start + i for i, face in enumerate(side.dice) if face not in (1, 6)]
    stress = [start + len(side.dice) + i for i, f in enumerate(side.stress_dice) if f not in (1, 6)]
    fresh = reading.fresh_sixes(plan)
    codes = reading.outcomes(plan)
    face_die = reading.face_die(plan)
    whole = 6 ** (len(pool) + len(stress) + fresh) * max(1, face_die)
    outcomes: dict[str, int] = defaultdict(int)
    laws: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for faces, rerolled_ways in _stand_ins(pool, stress).items():
        for result, ways in _replays(plan, reading, dict(faces), fresh, face_die, version):
            code = _outcome(plan, result, codes)
            new_side = plan.pushable.side(result)
            assert new_side is not None
            _tally(outcomes, laws, rerolled_ways * ways, code, new_side, request.absorb)
            for name, value in reading.values(result, new_side).items():
                laws[name][value] += rerolled_ways * ways
    return Odds(
        outcomes=outcome_odds(ordered(codes, over_codes(outcomes, whole))),
        distributions=[counted(name, law, whole) for name, law in laws.items()],
        notes=[SECOND_PUSH_NOTE, PANIC_NOTE, PRICE_NOTE, *reading.notes],
    )


def _replays(
    plan: Replay,
    reading: Reading,
    faces: dict[int, int],
    fresh: int,
    face_die: int,
    version: RulesVersion,
) -> Iterator[tuple[Any, int]]:
    kind = plan.pushable.kind
    for face in range(1, face_die + 1) if face_die else (0,):
        sixes = 0
        while sixes <= fresh:
            source = _FreshSixes(fresh, sixes, (face_die, face), reading.later_unread, kind.name)
            result = kind.resolve(plan.request, PushedDice(plan.recorded, faces, source), version)
            if source.drawn == 0:
                last = fresh
            elif source.drawn >= fresh:
                absorbed = reading.absorbs(result.result)
                last = fresh if absorbed is not None and sixes >= absorbed else sixes
            else:
                raise not_computed(kind.name, "it now draws part of its protection dice")
            ways = sum(comb(fresh, k) * 5 ** (fresh - k) for k in range(sixes, last + 1))
            yield result.result, ways * (1 if source.face_drawn else max(1, face_die))
            sixes = last + 1
        if not source.face_drawn:
            return


def _stand_ins(pool: list[int], stress: list[int]) -> dict[tuple[tuple[int, int], ...], int]:
    classes: dict[tuple[int, bool, bool], tuple[dict[int, int] | None, int]] = {}
    for (pool_sixes, pool_one), pool_ways in rerolled(len(pool)).items():
        for (stress_sixes, stress_one), stress_ways in rerolled(len(stress)).items():
            key = (pool_sixes + stress_sixes, pool_one, stress_one)
            faces, ways = classes.get(key, (None, 0))
            if faces is None:
                faces = {
                    **_stand_in(pool, pool_sixes, pool_one),
                    **_stand_in(stress, stress_sixes, stress_one),
                }
            classes[key] = (faces, ways + pool_ways * stress_ways)
    return {tuple(sorted(f.items())): w for f, w in classes.values() if f is not None}


def _stand_in(positions: list[int], sixes: int, one: bool) -> dict[int, int]:
    faces = [6] * sixes + [1] * int(one)
    faces += [BLANK] * (len(positions) - len(faces))
    return dict(zip(positions, faces, strict=True))


def _tally(
    outcomes: dict[str, int],
    laws: dict[str, dict[int, int]],
    ways: int,
    code: str,
    side: FabulaeDice,
    absorb: bool,
) -> None:
    outcomes[code] += ways
    one = any(face == 1 for face in [*side.dice, *side.stress_dice])
    laws["destiny_spent"][2 if absorb and one else 1] += ways
    if not absorb:
        laws["state_price"][int(one)] += ways
