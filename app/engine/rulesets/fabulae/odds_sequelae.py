"""Exact odds of the sequela rolls (issue 21): the death test (FAB-51: Physique +
Résistance, survived on any six; without stress dice from the corrections on, FAB-42
corrected, so no Panic there) and the sequela tables (FAB-50 2D6 + modifiers, FAB-55 1D12)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from app.engine.contract import RulesVersion
from app.engine.errors import invalid, refusal
from app.engine.odds import Odds, distribution, outcome_odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.odds import PUSH_NOTE, test_odds
from app.engine.rulesets.fabulae.pools import (
    CORRECTED,
    FabulaeDiceModifier,
    FabulaeRollInputs,
    has_talent,
    pool_of,
)
from app.engine.rulesets.fabulae.sequelae import (
    MENTAL_TABLE,
    PHYSICAL_TABLE,
    FabulaeDeathTestRequest,
    FabulaeSequelaRequest,
    lethal_sequela,
)

DEATH_OUTCOMES = ("impossible", "dead", "survived")


def death_test_odds(request: FabulaeDeathTestRequest, version: RulesVersion) -> Odds:
    """FAB-51: a failure or a Panic is death; FAB-14: an impossible pool is refused after."""
    check_may_act(request.character, "fabulae.death_test", version)
    character = request.character
    sheet = character.sheet
    if sheet.dead:
        raise refusal("FAB-51", f"{character.name} is already dead")
    sequela = lethal_sequela(sheet, request.sequela)
    if sequela.stabilised and sequela.delay == "quart":
        raise refusal("FAB-52", "this sequela is stabilised: the character no longer risks death")
    modifiers = (
        [FabulaeDiceModifier(source="iron_will", dice=2)] if has_talent(sheet, "iron_will") else []
    )
    roll = FabulaeRollInputs(attribute="physique", skill="resistance", modifiers=modifiers)
    pool = pool_of(character, roll, request.session)
    stress = pool.stress_dice if version < CORRECTED else 0
    test = test_odds(pool.pool, stress)
    chances = {o.code: Fraction(o.exact) for o in test.outcomes}
    outcomes = [
        ("impossible", chances["impossible"]),
        ("dead", chances["panic"] + chances["failure"]),
        ("survived", chances["success"]),
    ]
    # FAB-42 (corrected): no stress die, so no Panic to note.
    notes = test.notes if stress or pool.pool <= 0 else [PUSH_NOTE]
    return test.model_copy(update={"outcomes": outcome_odds(outcomes), "notes": notes})


def sequela_odds(request: FabulaeSequelaRequest, version: RulesVersion) -> Odds:
    """FAB-50: 2D6 + weapon + Prouesses (+2 butcher), the better (lower) of two 2D6 with
    tough_luck, read on the physical table; FAB-55: 1D12 on the mental table. The
    codes run from the table's gravest row (its last) to its mildest."""
    check_may_act(request.character, "fabulae.sequela", version)
    weights: dict[str, Fraction] = defaultdict(Fraction)
    notes = ["the duration dice a sequela rolls after its row are left out"]
    if request.table == "mental":
        twelfth = Fraction(1, 12)
        for face in range(1, 13):
            weights[MENTAL_TABLE[face][0]] += twelfth
        codes = [MENTAL_TABLE[face][0] for face in range(12, 0, -1)]
        return Odds(
            outcomes=outcome_odds([(code, weights[code]) for code in dict.fromkeys(codes)]),
            distributions=[distribution("die", dict.fromkeys(range(1, 13), twelfth))],
            notes=notes,
        )
    modifier = request.weapon_mod + request.feats + (2 if request.butcher else 0)
    if 12 + modifier > PHYSICAL_TABLE[-1][0]:
        raise invalid("FAB-50", f"a modifier of {modifier} may score past the table's last row")
    pair: dict[int, Fraction] = defaultdict(Fraction)
    for first in range(1, 7):
        for second in range(1, 7):
            pair[first + second] += Fraction(1, 36)
    if has_talent(request.character.sheet, "tough_luck"):  # FAB-90 tough_luck: the better (lower)
        lower: dict[int, Fraction] = defaultdict(Fraction)
        for a, p in pair.items():
            for b, q in pair.items():
                lower[min(a, b)] += p * q
        pair = lower
    scores = {total + modifier: p for total, p in pair.items()}
    for score, p in scores.items():
        weights[next(row for row in PHYSICAL_TABLE if score <= row[0])[1]] += p
    codes = [row[1] for row in reversed(PHYSICAL_TABLE)]
    return Odds(
        outcomes=outcome_odds([(code, weights[code]) for code in codes]),
        distributions=[distribution("score", scores)],
        notes=notes,
    )
