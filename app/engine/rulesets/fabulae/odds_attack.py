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
from itertools import accumulate
from math import lcm
from typing import TYPE_CHECKING

from flint import fmpz_poly

from app.engine.contract import RulesVersion
from app.engine.errors import InvalidInput, invalid, refusal
from app.engine.odds import Odds, distribution, outcome_odds
from app.engine.rulesets.fabulae.acting import check_may_act, why_not
from app.engine.rulesets.fabulae.damage import (
    AMMO_DIE,
    FabulaeAttackRequest,
    attack_roll,
    damage_of,
    defense_roll,
    effects_sum,
)
from app.engine.rulesets.fabulae.grappling import (
    HOLD,
    FabulaeBreakFreeRequest,
    FabulaeGrappleRequest,
)
from app.engine.rulesets.fabulae.odds import (
    PANIC_NOTE,
    PUSH_NOTE,
    binomial_row,
    counted,
    impossible_odds,
    opposition_odds,
    poly_mul,
    side_counts,
)
from app.engine.rulesets.fabulae.pools import CORRECTED, FabulaeDiceModifier, pool_of

if TYPE_CHECKING:  # defense.py sets these odds on its kind
    from app.engine.rulesets.fabulae.defense import FabulaeDefendRequest

ATTACK_OUTCOMES = ("impossible", "miss", "hit")
# FAB-102: net_damage is at least −5, so a hit's damage through plus SHIFT is never negative;
# every attack's polynomial is indexed by its damage through + SHIFT.
SHIFT = 5
# An attack's ways, by what the burst keeps: (defender panicked, hit, armor wears) -> the
# ways by damage through + SHIFT; the attacker's Panic (which ends the burst) apart.
Poly = list[int]


def add_poly(
    into: dict[tuple[bool, bool, bool], Poly], key: tuple[bool, bool, bool], poly: Poly
) -> None:
    have = into.get(key)
    if have is None:
        into[key] = list(poly)
        return
    if len(have) < len(poly):
        have.extend([0] * (len(poly) - len(have)))
    for index, count in enumerate(poly):
        have[index] += count


def defense_sides(request: FabulaeAttackRequest, version: RulesVersion) -> tuple[Poly, Poly, int]:
    """The defense's scored sixes (FAB-62) as ways by count, calm and panicked, and its dice."""
    defense = request.defense
    if defense == "parry" or defense == "dodge":
        target = request.target
        parry = pool_of(target, defense_roll(target, defense, version), request.session)
        if parry.pool > 0:
            calm, panic = side_counts(parry.pool, parry.stress_dice)
            return list(calm), [sum(panic)], parry.pool + parry.stress_dice
    return [1], [0], 0  # no defense, or an impossible one: no six, no die


def attack_odds(request: FabulaeAttackRequest, version: RulesVersion) -> Odds:
    """The attack's odds, kept for the same request (its JSON) and rules version."""
    return odds_of_request(request.model_dump_json(), version)


@lru_cache(maxsize=256)
def odds_of_request(request: str, version: RulesVersion) -> Odds:
    return computed_odds(FabulaeAttackRequest.model_validate_json(request), version)


def computed_odds(request: FabulaeAttackRequest, version: RulesVersion) -> Odds:
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
        raise invalid(
            "FAB-62",
            "the defender has not chosen parry, dodge or none yet: give `defense` to get the "
            "odds of the attack against that defense",
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
    counts = burst_odds(request, version, pool.pool, pool.stress_dice, attacks)
    weights, damage_law, panics, whole = counts
    weights_f = {code: Fraction(count, whole) for code, count in weights.items()}
    notes = [
        PUSH_NOTE,
        PANIC_NOTE,
        "the states and sequelae the damage checks (FAB-68, FAB-50), and the defender's "
        "choice to absorb them (FAB-34), follow the damage and are not part of these odds",
    ]
    return Odds(
        outcomes=outcome_odds(
            [(code, weights_f.get(code, Fraction(0))) for code in ATTACK_OUTCOMES]
        ),
        distributions=[counted("damage", damage_law, whole), counted("panics", panics, whole)],
        notes=notes,
    )


def burst_odds(
    request: FabulaeAttackRequest,
    version: RulesVersion,
    pool: int,
    stress: int,
    attacks: dict[int, Fraction],
) -> tuple[dict[str, int], dict[int, int], dict[int, int], int]:
    """FAB-65..67 over every face: the ways of a hit or a miss, of each total damage through
    and of each number of panics, out of `whole`."""
    weapon, _, _ = attack_roll(request, version)
    sheet, target = request.attacker.sheet, request.target
    armor = target.sheet.armor
    extra = effects_sum(target.sheet, "armor")  # FAB-102 barrier
    bonus = effects_sum(sheet, "net_damage")  # FAB-102 enchant_weapon
    calm, panic = side_counts(pool, stress)
    attacker_panic = sum(panic)
    calm_rows, panic_rows, defense_dice = defense_sides(request, version)
    defender = {False: calm_rows, True: panic_rows}
    start = armor.value if armor else None
    most = max(0, (start or 0) + extra) + request.cover  # armor only wears: the most dice
    per_attack = 6 ** (pool + stress + defense_dice + most)
    # Each armor value's transition: ways by (defender panicked, hit, wears) and through.
    nets = {fear: poly_mul(list(calm), rows[::-1]) for fear, rows in defender.items()}
    # FAB-66: the damage of a hit by each number of Prouesses.
    damages = [damage_of(request, weapon, sheet, feats) for feats in range(len(calm))]
    transitions: dict[int | None, dict[tuple[bool, bool, bool], Poly]] = {}

    def transition(value: int | None) -> dict[tuple[bool, bool, bool], Poly]:
        if value in transitions:
            return transitions[value]
        count = max(0, (value or 0) + extra) + request.cover
        protection = binomial_row(count, 5)
        # tail[s]: the ways of s sixes or more, which absorb a damage of s whole (FAB-67).
        tail = [*reversed([*accumulate(reversed(protection))]), 0]
        scale = 6 ** (most - count)
        unhurt = bonus if version >= CORRECTED else 0  # FAB-102 enchant_weapon, corrected
        acc: dict[tuple[bool, bool, bool], dict[int, int]] = defaultdict(lambda: defaultdict(int))
        for fear, net in nets.items():
            shift = len(defender[fear]) - 1
            acc[(fear, False, False)][0] += sum(net[: shift + 1]) * 6**most
            hurting: dict[int, int] = defaultdict(int)  # ways by damage, before protection
            for index in range(shift + 1, len(net)):
                if not net[index]:
                    continue
                damage = damages[index - shift - 1]
                ways = net[index] * scale
                absorbed = tail[max(0, min(damage, count + 1))]
                acc[(fear, True, False)][unhurt] += ways * absorbed
                if damage > 0:
                    hurting[damage] += ways
            if not hurting:
                continue
            # Damage d less s sixes, for s < d: one product of the damage's ways by the
            # protection's reversed; an index at or below `count` is damage absorbed whole.
            low = min(hurting)
            rows = [hurting.get(d, 0) for d in range(low, max(hurting) + 1)]
            through = acc[(fear, True, bool(value))]
            for index, ways in enumerate(poly_mul(rows, protection[::-1])):
                left = low + index - count
                if left > 0 and ways:
                    through[left + bonus] += ways
        law = {
            key: [counts.get(g - SHIFT, 0) for g in range(max(counts) + SHIFT + 1)]
            for key, counts in acc.items()
        }
        transitions[value] = law
        return law

    # Hit, miss and panics do not hang on the armor, nor the damage on who panicked: the
    # outcome is followed as whole numbers of ways by (a hit, the defender panicked), and
    # the damage as polynomials by the armor left alone.
    sixes_all = sum(calm)
    struck = {fear: sum(net[len(defender[fear]) :]) * 6**most for fear, net in nets.items()}
    missed = {fear: sum(net[: len(defender[fear])]) * 6**most for fear, net in nets.items()}
    panicking = {fear: attacker_panic * sum(rows) * 6**most for fear, rows in defender.items()}
    assert sum(struck.values()) + sum(missed.values()) == sixes_all * 6 ** (defense_dice + most)
    merged: dict[int | None, dict[int | None, fmpz_poly]] = {}

    def worn(value: int | None) -> dict[int | None, fmpz_poly]:
        """The value's transitions summed by the armor value they leave."""
        if value not in merged:
            by_after: dict[int | None, Poly] = {}
            for (_, _, wears), gets in transition(value).items():
                after = value - 1 if wears and value else value
                have = by_after.get(after)
                by_after[after] = list(gets) if have is None else _sum(have, gets)
            merged[value] = {after: fmpz_poly(gets) for after, gets in by_after.items()}
        return merged[value]

    longest = max(attacks)
    denominator = lcm(*(f.denominator for f in attacks.values()))
    chances = {n: int(p * denominator) for n, p in attacks.items()}
    # Live bursts: (a hit, the defender panicked) -> ways; armor left -> ways by through + offset.
    # The damage stays in FLINT's polynomials from attack to attack: its coefficients run to
    # thousands of bits, and converting them to and from Python's integers at each product
    # cost as much as the products.
    live: dict[tuple[bool, bool], int] = {(False, False): 1}
    live_damage: dict[int | None, fmpz_poly] = {start: fmpz_poly([1])}
    ended: list[tuple[tuple[bool, bool, bool], int, int, int]] = []  # key, attacks, weight
    ended_damage: list[tuple[int, int, fmpz_poly]] = []  # attacks, weight, ways by through
    for number in range(1, longest + 1):
        reaching = sum(c for n, c in chances.items() if n >= number)
        following: dict[tuple[bool, bool], int] = defaultdict(int)
        for (hit, fear), ways in live.items():
            for defender_fear in (False, True):
                if attacker_panic:
                    # FAB-42: the attacker panics, misses and the burst ends (the defender
                    # still rolls, and may panic too).
                    key = (hit, True, fear or defender_fear)
                    ended.append((key, number, reaching, ways * panicking[defender_fear]))
                following[(True, fear or defender_fear)] += ways * struck[defender_fear]
                following[(hit, fear or defender_fear)] += ways * missed[defender_fear]
        following_damage: dict[int | None, fmpz_poly] = {}
        for value, poly in live_damage.items():
            if attacker_panic:
                stopped = attacker_panic * sum(sum(rows) for rows in defender.values()) * 6**most
                # No damage through this attack: through + SHIFT, the ways times `stopped`.
                ended_damage.append((number, reaching, poly * fmpz_poly([0] * SHIFT + [stopped])))
            for after, gets in worn(value).items():
                product = poly * gets
                have = following_damage.get(after)
                following_damage[after] = product if have is None else have + product
        stopping = chances.get(number, 0)
        if stopping:
            for (hit, fear), ways in following.items():
                ended.append(((hit, False, fear), number, stopping, ways))
            for poly in following_damage.values():
                ended_damage.append((number, stopping, poly))
        live, live_damage = dict(following), following_damage
        if reaching == stopping:
            break
    whole = per_attack**longest * denominator
    weights: dict[str, int] = defaultdict(int)
    damage_law: dict[int, int] = defaultdict(int)
    panics: dict[int, int] = defaultdict(int)
    for (hit, attacker_panicked, fear), number, weight, ways in ended:
        mass = ways * weight * per_attack ** (longest - number)
        weights["hit" if hit else "miss"] += mass
        panics[int(attacker_panicked) + int(fear)] += mass
    # Summed in FLINT by the number of attacks (which sets the offset), then read once each.
    by_number: dict[int, fmpz_poly] = {}
    for number, weight, poly in ended_damage:
        scaled = poly * (weight * per_attack ** (longest - number))
        have = by_number.get(number)
        by_number[number] = scaled if have is None else have + scaled
    for number, poly in by_number.items():
        for index, coefficient in enumerate(poly.coeffs()):
            if coefficient:
                damage_law[index - SHIFT * number] += int(coefficient)
    return dict(weights), dict(damage_law), dict(panics), whole


def _sum(a: Poly, b: Poly) -> Poly:
    if len(a) < len(b):
        a, b = b, a
    return [x + (b[i] if i < len(b) else 0) for i, x in enumerate(a)]


# --- fabulae.grapple (FAB-63), fabulae.defend (FAB-62) ---------------------------------------

GRAPPLE_OUTCOMES = ("impossible", "failure", "grappled")


def grapple_odds(request: FabulaeGrappleRequest, version: RulesVersion) -> Odds:
    """FAB-63: the hold is an opposed roll (FAB-36) against the defense the request gives;
    it holds on a win, and fails on a loss or the attacker's Panic."""
    check_may_act(request.attacker, "fabulae.grapple", version)
    attacker, target = request.attacker, request.target
    if target.sheet.dead and version >= CORRECTED:
        raise refusal("FAB-51", f"{target.name} is dead")
    modifiers = list(request.modifiers)
    against = effects_sum(target.sheet, "attacks_against")
    if against and version >= CORRECTED:
        modifiers.append(FabulaeDiceModifier(source="powers on the target", dice=against))
    pool = pool_of(attacker, HOLD.model_copy(update={"modifiers": modifiers}), request.session)
    defense = request.defense
    if pool.pool <= 0:
        return impossible_odds(
            ("net", "prouesses", "panics"),
            GRAPPLE_OUTCOMES,
            "FAB-14: the pool is 0 or less, so the grapple is impossible; no die is drawn",
        )
    if defense is None:
        raise invalid(
            "FAB-62",
            "the defender has not chosen parry, dodge or none yet: give `defense` to get the "
            "odds of the grapple against that defense",
        )
    passive, passive_stress = 0, 0
    if defense != "none":
        parry = pool_of(target, defense_roll(target, defense, version), request.session)
        passive, passive_stress = parry.pool, parry.stress_dice
    opposed = opposition_odds(pool.pool, pool.stress_dice, passive, passive_stress)
    chances = {o.code: Fraction(o.exact) for o in opposed.outcomes}
    return opposed.model_copy(
        update={
            "outcomes": outcome_odds(
                [
                    ("impossible", Fraction(0)),
                    ("failure", chances["failure"] + chances["panic"]),
                    ("grappled", chances["success"]),
                ]
            )
        }
    )


def defend_odds(request: FabulaeDefendRequest, version: RulesVersion) -> Odds:
    """FAB-62: the waiting attack or grapple, with the defense now chosen. The entry is the
    defender's: its outcomes run worst to best for the defender, the attacker's reversed,
    so its luck is the defender's."""
    if request.attack is not None:
        odds = attack_odds(request.attack, version)
    elif request.grapple is not None:
        odds = grapple_odds(request.grapple, version)
    else:
        raise InvalidInput("a defense answers an attack or a grapple")
    return odds.model_copy(update={"outcomes": list(reversed(odds.outcomes))})


BREAK_FREE_OUTCOMES = ("impossible", "held", "freed")


def break_free_odds(request: FabulaeBreakFreeRequest, version: RulesVersion) -> Odds:
    """FAB-63: the victim's opposed Combat roll against the hold; freed on a win. A holder
    who collapsed holds no one (FAB-23, corrected): freed without a roll."""
    check_may_act(request.character, "fabulae.break_free", version)
    victim, holder = request.character, request.holder
    if victim.sheet.grappled_by != holder.id:
        raise refusal("FAB-63", f"{victim.name} is not held by {holder.name}")
    names = ("net", "prouesses", "panics")
    down = why_not(holder, "fabulae.strangle") if version >= CORRECTED else None
    if down is not None and down[0] != "FAB-63":
        certain = {0: Fraction(1)}
        return Odds(
            outcomes=outcome_odds(
                [(code, Fraction(code == "freed")) for code in BREAK_FREE_OUTCOMES]
            ),
            distributions=[distribution(name, certain) for name in names],
            notes=[f"the holder holds no one: {down[1]}"],
        )
    pool = pool_of(victim, HOLD, request.session)
    if pool.pool <= 0:
        return impossible_odds(
            names,
            BREAK_FREE_OUTCOMES,
            "FAB-14: the pool is 0 or less, so breaking free is impossible; no die is drawn",
        )
    hold = pool_of(holder, HOLD, request.session)
    opposed = opposition_odds(pool.pool, pool.stress_dice, hold.pool, hold.stress_dice)
    chances = {o.code: Fraction(o.exact) for o in opposed.outcomes}
    held = chances["failure"] + chances["panic"]
    return opposed.model_copy(
        update={
            "outcomes": outcome_odds(
                [("impossible", Fraction(0)), ("held", held), ("freed", chances["success"])]
            )
        }
    )
