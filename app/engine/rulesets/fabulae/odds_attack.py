"""Exact odds of an attack (FAB-60..68, issue 21): hit or miss, the damage that gets through
armor and cover, and the panics it sets off, for the defense the request gives.

Each attack of a burst (FAB-65) is an opposed roll (FAB-36): the attacker hits with strictly
more sixes than the defense (none when it panics or cannot act), and deals the weapon's
damage + its Prouesses (FAB-66). The armor and cover dice then remove one damage per six
(FAB-67); armor that lets damage through loses a point for the next attack. An attacker who
panics ends the burst. A dynamic programme over (armor left, damage through, hit, panics)
follows the burst attack by attack.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from math import comb

from app.engine.contract import RulesVersion
from app.engine.errors import InvalidInput, invalid, refusal
from app.engine.odds import Odds, distribution, outcome_odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.damage import (
    AMMO_DIE,
    FabulaeAttackRequest,
    attack_roll,
    damage_of,
    defense_roll,
    effects_sum,
)
from app.engine.rulesets.fabulae.odds import PANIC_NOTE, PUSH_NOTE, side
from app.engine.rulesets.fabulae.pools import CORRECTED, pool_of

ATTACK_OUTCOMES = ("impossible", "miss", "hit")
# One attack: (attacker panicked, defender panicked, Prouesses of a hit or None) -> p.
Swing = dict[tuple[bool, bool, int | None], Fraction]
# The burst so far: (armor value left, damage through, a hit, attacker panicked, defender
# panicked) -> p.
State = tuple[int | None, int, bool, bool, bool]


@lru_cache(maxsize=256)
def sixes_law(count: int) -> tuple[Fraction, ...]:
    """The number of sixes on `count` D6, exactly (FAB-67's protection dice)."""
    return tuple(Fraction(comb(count, k) * 5 ** (count - k), 6**count) for k in range(count + 1))


def swing(request: FabulaeAttackRequest, version: RulesVersion, attack: int, stress: int) -> Swing:
    """FAB-36, FAB-62: one attack's opposed roll against the request's defense."""
    rolled = side(attack, stress)
    assert rolled is not None
    defense = request.defense
    answer: dict[tuple[bool, int], Fraction] = {(False, 0): Fraction(1)}
    if defense == "parry" or defense == "dodge":
        target = request.target
        parry = pool_of(target, defense_roll(target, defense, version), request.session)
        passive = side(parry.pool, parry.stress_dice)
        if passive is not None:
            answer = defaultdict(Fraction)
            for (panic, sixes), p in passive.items():
                answer[(panic, 0 if panic else sixes)] += p
    law: Swing = defaultdict(Fraction)
    for (attacker_panic, sixes), p in rolled.items():
        scored = 0 if attacker_panic else sixes
        for (defender_panic, against), q in answer.items():
            net = scored - against
            feats = net - 1 if not attacker_panic and net >= 1 else None
            law[(attacker_panic, defender_panic, feats)] += p * q
    return law


def attack_odds(request: FabulaeAttackRequest, version: RulesVersion) -> Odds:
    """FAB-60..68: the attack's outcome (impossible, miss, hit), the damage through armor
    and cover (summed over a burst) and the panics it sets off."""
    check_may_act(request.attacker, "fabulae.attack", version)
    attacker, target = request.attacker, request.target
    for who in (attacker, target):
        if who.sheet.dead:
            raise refusal("FAB-51", f"{who.name} is dead")
    weapon, carried, roll = attack_roll(request, version)
    pool = pool_of(attacker, roll, request.session)
    if pool.pool <= 0:
        certain = {0: Fraction(1)}
        return Odds(
            outcomes=outcome_odds(
                [(code, Fraction(code == "impossible")) for code in ATTACK_OUTCOMES]
            ),
            distributions=[distribution(n, certain) for n in ("damage", "panics")],
            notes=["FAB-14: the pool is 0 or less, so the attack is impossible; no die is drawn"],
        )
    defense = request.defense
    if defense is None:
        # FAB-62: resolve waits for the defender's choice; its odds depend on it.
        raise InvalidInput(
            "FAB-62: the defender has not chosen parry, dodge or none yet: give `defense` to "
            "get the odds of the attack against that defense"
        )
    ranged = carried is not None and weapon.ammo is not None
    if ranged and defense != "none":
        raise invalid("FAB-62", "parry and dodge answer melee attacks; cover protects from shots")
    burst = request.burst
    if (burst > 1 or request.burst_fire) and not weapon.burst:
        raise invalid("FAB-65", f"the {weapon.id} cannot fire in bursts")
    # How many attacks the burst makes, with their probabilities (FAB-65).
    attacks: dict[int, Fraction] = {burst: Fraction(1)}
    if ranged:
        assert carried is not None
        if not carried.ammo:
            raise refusal("FAB-71", f"the {weapon.id} is empty; reload before firing")
        if weapon.burst and request.burst_fire:
            die = AMMO_DIE[burst]
            attacks = defaultdict(Fraction)
            for face in range(1, die + 1):
                attacks[min(burst, min(carried.ammo, face))] += Fraction(1, die)
        elif burst > 1:
            raise invalid("FAB-65", "repeated attacks need burst_fire: true")
    one = swing(request, version, pool.pool, pool.stress_dice)
    sheet = attacker.sheet
    armor = target.sheet.armor
    extra = effects_sum(target.sheet, "armor")  # FAB-102 barrier
    net_bonus = effects_sum(sheet, "net_damage")  # FAB-102 enchant_weapon
    start: State = (armor.value if armor else None, 0, False, False, False)
    states: dict[State, Fraction] = {start: Fraction(1)}
    ended: dict[State, Fraction] = defaultdict(Fraction)
    for number in range(1, max(attacks) + 1):
        following: dict[State, Fraction] = defaultdict(Fraction)
        for (value, through, hit, _, defender_panicked), p in states.items():
            for (attacker_panic, defender_panic, feats), q in one.items():
                fear = defender_panicked or defender_panic
                if feats is None:
                    after: State = (value, through, hit, attacker_panic, fear)
                    (ended if attacker_panic else following)[after] += p * q
                    continue
                damage = damage_of(request, weapon, sheet, feats)
                count = max(0, (value or 0) + extra) + request.cover
                for sixes, r in enumerate(sixes_law(count)):
                    gets = damage - min(damage, sixes)
                    worn = value - 1 if gets > 0 and value else value
                    if gets > 0 or version >= CORRECTED:
                        gets += net_bonus
                    following[(worn, through + gets, True, False, fear)] += p * q * r
        # Bursts that stop after this attack.
        stop = attacks.get(number, Fraction(0))
        left = sum((w for n, w in attacks.items() if n >= number), Fraction(0))
        for key, p in following.items():
            ended[key] += p * stop / left
        states = {key: p * (left - stop) / left for key, p in following.items() if stop != left}
    weights: dict[str, Fraction] = defaultdict(Fraction)
    damage_law: dict[int, Fraction] = defaultdict(Fraction)
    panics: dict[int, Fraction] = defaultdict(Fraction)
    for (_, through, hit, attacker_panicked, defender_panicked), p in ended.items():
        weights["hit" if hit else "miss"] += p
        damage_law[through] += p
        panics[int(attacker_panicked) + int(defender_panicked)] += p
    notes = [
        PUSH_NOTE,
        PANIC_NOTE,
        "the states and sequelae the damage checks (FAB-68, FAB-50), and the defender's "
        "choice to absorb them (FAB-34), follow the damage and are not part of these odds",
    ]
    return Odds(
        outcomes=outcome_odds([(code, weights.get(code, Fraction(0))) for code in ATTACK_OUTCOMES]),
        distributions=[distribution("damage", damage_law), distribution("panics", panics)],
        notes=notes,
    )
