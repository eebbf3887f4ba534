"""JDR Express's exact odds (issue 21): the action's tiers, or success against a difficulty
(JDR-10..14), the Mythos test (JDR-40), an attack's wound (JDR-30..38) and a Joker's reroll
(JDR-25), with Advantage and Disadvantage (JDR-12) and the burdens that impose it (JDR-3,
JDR-24, JDR-33).

Every input is read from the request the way the kind's `resolve` reads it, and every
refusal it makes before a die is drawn is made here too. The 2D6 (or 3D6 keeping two) are
enumerated: 36 or 216 equally likely face combinations, so every probability is exact.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Final

from app.engine.contract import RulesVersion
from app.engine.errors import refusal
from app.engine.odds import Odds, distribution, outcome_odds
from app.engine.rulesets.jdr.action import (
    JdrActionRequest,
    talent_bonus,
)
from app.engine.rulesets.jdr.combat import (
    CREATURE_TAGS,
    JdrAttackRequest,
    carried,
    creature_bonuses,
    defense_of,
    severity_of,
    wounds_werewolf,
)
from app.engine.rulesets.jdr.core import (
    CTHULHU,
    DRACULA,
    Burden,
    Mode,
    check_setting,
    destroyed,
    faith_shaken_applies,
    require_pc,
    tier_of,
    uncared_serious_wound,
    wound_burdens,
)
from app.engine.rulesets.jdr.initiative import JdrInitiativeRequest
from app.engine.rulesets.jdr.joker import (
    JdrFollowedAttack,
    JdrFollowedMythos,
    JdrJokerRequest,
    action_reroll,
    attack_reroll,
    mythos_reroll,
)
from app.engine.rulesets.jdr.mythos import JdrMythosRequest

# Worst to best.
TIERS: Final = ("critical_failure", "failure", "partial_success", "success", "critical_success")
AGAINST: Final = ("critical_failure", "failure", "success")  # JDR-13, and the Mythos test
WOUNDS: Final = ("miss", "light", "serious", "critical")  # JDR-33, the attacker's view
# What a player may still choose once the action's dice are seen: left out of the odds.
LATER_CHOICES: Final = {
    DRACULA: "left out: a Joker's reroll (JDR-25) or the Talisman (JDR-20) the player may "
    "still choose after the dice",
    CTHULHU: "left out: a Joker's reroll (JDR-25) or the Effleurement (JDR-28) the player "
    "may still choose after the dice",
}


@lru_cache(maxsize=3)
def kept_sums(mode: Mode) -> dict[int, Fraction]:
    """JDR-12: the sum of the two dice kept: 2D6, or 3D6 keeping the two highest
    (advantage) or lowest (disadvantage)."""
    if mode == "normal":
        rolls: Iterable[tuple[int, ...]] = product(range(1, 7), repeat=2)
        whole = 36
    else:
        rolls = product(range(1, 7), repeat=3)
        whole = 216
    counts: dict[int, int] = defaultdict(int)
    for faces in rolls:
        ordered = sorted(faces, reverse=mode == "advantage")
        counts[ordered[0] + ordered[1]] += 1
    return {total: Fraction(n, whole) for total, n in counts.items()}


def mode_of(advantage: bool, disadvantage: bool) -> Mode:
    """JDR-12: Advantage and Disadvantage cancel each other."""
    if advantage == disadvantage:
        return "normal"
    return "advantage" if advantage else "disadvantage"


def totals(mode: Mode, shift: int) -> dict[int, Fraction]:
    return {kept + shift: p for kept, p in kept_sums(mode).items()}


def read(
    totals_: dict[int, Fraction], codes: tuple[str, ...], code_of: Callable[[int], str]
) -> list[tuple[str, Fraction]]:
    """The probability of each code, in the order of `codes`, the totals read by `code_of`."""
    found: dict[str, Fraction] = defaultdict(Fraction)
    for total, p in totals_.items():
        found[code_of(total)] += p
    if unlisted := set(found) - set(codes):
        raise ValueError(f"outcomes {sorted(unlisted)} are missing from {codes}")
    return [(code, found[code]) for code in codes]


def against(difficulty: int) -> Callable[[int], str]:
    """JDR-13 and JDR-40: 5 or less fails critically; the difficulty reached succeeds."""

    def code_of(total: int) -> str:
        if total <= 5:
            return "critical_failure"
        return "success" if total >= difficulty else "failure"

    return code_of


def mode_note(mode: Mode, burdens: list[Burden], shift: int) -> str:
    which = "highest" if mode == "advantage" else "lowest"
    dice = "2d6" if mode == "normal" else f"3d6 keeping the two {which}"
    note = f"{dice} {shift:+d}"
    if burdens:
        note += f", at Disadvantage from {', '.join(burdens)} (JDR-3, JDR-24, JDR-33)"
    return note


# --- JDR-10..14: the action roll ---------------------------------------------------------


def action_odds(request: JdrActionRequest, version: RulesVersion) -> Odds:
    """JDR-11 tiers, or JDR-13's success, failure and critical failure."""
    character = request.character
    sheet = character.sheet
    if sheet.destroyed:
        raise destroyed(character.name)
    context = request.context
    bonus = 0 if request.no_talent_bonus else talent_bonus(sheet, request.talent)
    burdens = wound_burdens(sheet.wounds, version)
    if context.protection and faith_shaken_applies(sheet, request.scene, context.supernatural):
        burdens.append("faith_shaken")
    mode = mode_of(request.advantage, request.disadvantage or bool(burdens))
    shift = getattr(sheet.traits, request.trait) + bonus + request.modifier
    found = totals(mode, shift)
    if request.difficulty is None:
        outcomes = read(found, TIERS, tier_of)
    else:
        outcomes = read(found, AGAINST, against(request.difficulty))
    return Odds(
        outcomes=outcome_odds(outcomes),
        distributions=[distribution("total", found)],
        notes=[mode_note(mode, burdens, shift), LATER_CHOICES[request.system]],
    )


# --- JDR-40: the Mythos test -------------------------------------------------------------


def mythos_odds(request: JdrMythosRequest, version: RulesVersion) -> Odds:
    """JDR-40: Mental (+ talent from version 4) against the difficulty."""
    check_setting(request.system, CTHULHU, "JDR-40")
    sheet = request.character.sheet
    burdens = wound_burdens(sheet.wounds, version)
    bonus = talent_bonus(sheet, request.talent) if version >= 4 else 0
    mode = mode_of(request.advantage, request.disadvantage or bool(burdens))
    shift = sheet.traits.mental + bonus
    found = totals(mode, shift)
    notes = [mode_note(mode, burdens, shift), "a failure's cost is the GM's (JDR-41)"]
    if request.direct_peril:
        notes.append("a Joker's reroll the player may still spend (JDR-25) is left out")
    return Odds(
        outcomes=outcome_odds(read(found, AGAINST, against(request.difficulty))),
        distributions=[distribution("total", found)],
        notes=notes,
    )


# --- JDR-30..38: the attack --------------------------------------------------------------


def attack_odds(request: JdrAttackRequest, version: RulesVersion) -> Odds:
    """JDR-33: the wound the margin over the target's Defense reads; JDR-36's stake in a
    sleeping vampire and JDR-37's werewolf, as `resolve_attack` reads them."""
    attacker, target = request.attacker, request.target
    for who in (attacker, target):
        if who.sheet.destroyed:
            raise destroyed(who.name)
    dracula = request.system == DRACULA
    weapon = carried(request.weapon, attacker)
    target_tags: set[str] = set(target.sheet.tags)
    supernatural = bool(target_tags & CREATURE_TAGS) or request.context.supernatural
    burdens = wound_burdens(attacker.sheet.wounds, version)
    if dracula and faith_shaken_applies(attacker.sheet, request.scene, supernatural):
        burdens.append("faith_shaken")
    mode = mode_of(request.advantage, request.disadvantage or bool(burdens))
    bonuses = creature_bonuses(weapon, target_tags, version) if dracula else []
    steps = weapon.damage_bonus + sum(bonus.steps for bonus in bonuses)
    shift = attacker.sheet.traits.physique + weapon.bonus + steps
    found = totals(mode, shift)
    staking = (
        dracula
        and request.sleeping_target
        and "ash_stake" in weapon.tags
        and "vampire" in target_tags
    )
    notes = [mode_note(mode, burdens, shift), "a Joker's reroll (JDR-25) is left out"]
    nailed = ("success", "critical_success")
    if staking and version >= 4:
        # JDR-36 (corrected): no Defense; a success or better nails it, less wakes it.
        outcomes = read(
            found,
            ("woken", "destroyed"),
            lambda total: "destroyed" if tier_of(total) in nailed else "woken",
        )
        return Odds(
            outcomes=outcome_odds(outcomes),
            distributions=[distribution("total", found)],
            notes=notes,
        )
    defense = defense_of(target.sheet)
    codes: tuple[str, ...] = WOUNDS
    no_effect = version >= 4 and dracula and "werewolf" in target_tags
    no_effect = no_effect and not wounds_werewolf(weapon)
    if no_effect:
        codes = ("miss", "no_effect")  # JDR-37 (corrected): only silver wounds a werewolf
    elif staking:
        codes = (*WOUNDS, "destroyed")  # JDR-36 before version 4

    def code_of(total: int) -> str:
        if staking and tier_of(total) in nailed:
            return "destroyed"
        severity = severity_of(total - defense)
        if severity is None:
            return "miss"
        return "no_effect" if no_effect else severity

    margins = {total - defense: p for total, p in found.items()}
    return Odds(
        outcomes=outcome_odds(read(found, codes, code_of)),
        distributions=[distribution("total", found), distribution("margin", margins)],
        notes=[*notes, f"against Defense {defense}"],
    )


# --- JDR-25: the Joker's reroll ----------------------------------------------------------


def joker_odds(request: JdrJokerRequest, version: RulesVersion) -> Odds:
    """The odds of the reroll, as `resolve_joker` makes it: the roll again, with its inputs
    read as the reroll reads them. Its refusals are the Joker's own."""
    found = reroll_odds(request, version)
    found.notes = [found.notes[0], "the reroll is final (JDR-25)"]
    return found


def reroll_odds(request: JdrJokerRequest, version: RulesVersion) -> Odds:
    require_pc(request.character, "JDR-25", "the Joker")
    rerolled = request.action
    if version >= 4 and isinstance(rerolled, JdrFollowedMythos):
        test, _ = mythos_reroll(request, rerolled, version)
        return mythos_odds(test, version)
    if version >= 4 and isinstance(rerolled, JdrFollowedAttack):
        again, _ = attack_reroll(request, rerolled, version)
        return attack_odds(again, version)
    _, reroll = action_reroll(request, version)
    return action_odds(reroll, version)


# --- JDR-30a, JDR-31, JDR-31a: initiative ------------------------------------------------


def initiative_odds(request: JdrInitiativeRequest, version: RulesVersion) -> Odds:
    """Initiative always reads "initiative_rolled"; what it counts is each combatant's total:
    2D6 (at Disadvantage with a serious wound, JDR-3) + physique (+2 surprise, JDR-31a)."""
    already = set(request.already_rolled)
    repeated = [combatant.name for combatant in request.combatants if combatant.id in already]
    if repeated:
        raise refusal(
            "JDR-31", f"initiative is rolled once per scene; already rolled: {', '.join(repeated)}"
        )
    distributions = []
    for combatant in request.combatants:
        mode = mode_of(False, uncared_serious_wound(combatant.wounds))
        shift = combatant.physique + (2 if combatant.surprise else 0)
        distributions.append(distribution(f"total:{combatant.id}", totals(mode, shift)))
    return Odds(
        outcomes=outcome_odds([("initiative_rolled", Fraction(1))]),
        distributions=distributions,
        notes=[
            "each combatant's total is the distribution 'total:<character id>'; the order "
            "and its tie-breaks (JDR-30a) are not given"
        ],
    )
