"""Exact odds of an environmental danger (FAB-73, FAB-55; issue 21): the save's outcome where
there is one, else the danger itself, and the damage (and whether one sinks) it leads to."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from app.engine.contract import RulesVersion
from app.engine.errors import invalid, refusal
from app.engine.odds import Odds, outcome_odds
from app.engine.rulesets.fabulae.acting import check_may_act
from app.engine.rulesets.fabulae.damage import effects_sum
from app.engine.rulesets.fabulae.dangers import HEAVY_METAL_ARMOR, SAVE, FabulaeDangerRequest
from app.engine.rulesets.fabulae.odds import (
    PANIC_NOTE,
    TEST_OUTCOMES,
    binomial_row,
    counted,
    side_counts,
)
from app.engine.rulesets.fabulae.pools import CORRECTED, pool_of
from app.engine.rulesets.fabulae.tables import CORRECTED_DANGERS

STATES_NOTE = "the states and sequelae the damage checks (FAB-68) follow it and are left out"


def certain(code: str, damage: int, notes: list[str]) -> Odds:
    return Odds(
        outcomes=outcome_odds([(code, Fraction(1))]),
        distributions=[counted("damage", {damage: 1}, 1), counted("panics", {0: 1}, 1)],
        notes=notes,
    )


def dice_only(code: str, damage: dict[int, int], whole: int) -> Odds:
    """A danger that rolls only its own dice: its code is certain, its damage is not."""
    return Odds(
        outcomes=outcome_odds([(code, Fraction(1))]),
        distributions=[counted("damage", damage, whole), counted("panics", {0: whole}, whole)],
        notes=[STATES_NOTE],
    )


def danger_odds(request: FabulaeDangerRequest, version: RulesVersion) -> Odds:
    """FAB-73: the same branches as `resolve_danger`, over every face."""
    check_may_act(request.character, "fabulae.danger", version)
    danger = request.danger
    character = request.character
    sheet = character.sheet
    if danger in CORRECTED_DANGERS:
        if version < CORRECTED:
            raise invalid("FAB-73", f"{danger} is a danger of the corrected rules only")
        if danger == "phobia":
            if not any(s.kind == "mental" and s.code == "phobic" for s in sheet.sequelae):
                raise refusal(
                    "FAB-55",
                    f"{character.name} carries no Phobique sequela: only a phobic character "
                    "takes 1 mental damage a round near the source of the phobia",
                )
            return certain(danger, 1, [STATES_NOTE])
        if danger == "horror":
            if request.damage < 1:
                raise invalid("FAB-73", "a horror deals 1 mental damage or more (damage)")
            return certain(danger, request.damage, [STATES_NOTE])
        if danger == "hunger":
            if request.damage > 1:
                raise invalid(
                    "FAB-73", "hunger deals 1 damage a week (damage 1), 0 at the first 24 h"
                )
            return certain(danger, request.damage, [STATES_NOTE])
        return certain(danger, 0, [])  # sleep
    if danger == "fire":
        intensity = 3 if request.intensity is None else request.intensity
        if not 3 <= intensity <= 9:
            raise invalid("FAB-73", "a fire's intensity is 3..9 dice")
        count = intensity + max(0, request.round - 1)
        return dice_only(danger, dict(enumerate(binomial_row(count, 5))), 6**count)
    if danger == "explosion":
        intensity = 6 if request.intensity is None else request.intensity
        count = max(0, intensity - (6 if request.medium_range else 0))
        armor = sheet.armor
        protection = max(0, (armor.value if armor else 0) + effects_sum(sheet, "armor"))
        base = request.damage
        damage: dict[int, int] = defaultdict(int)
        for blast, ways in enumerate(binomial_row(count, 5)):
            for sixes, saved in enumerate(binomial_row(protection, 5)):
                damage[base - min(base, sixes) + max(0, blast - 1)] += ways * saved
        return dice_only(danger, damage, 6 ** (count + protection))
    armor = sheet.armor
    if (
        danger == "drowning"
        and request.phase == "float"
        and armor
        and armor.id in HEAVY_METAL_ARMOR
    ):
        odds = certain(danger, 0, [f"{armor.id} sinks at once (FAB-73)"])
        odds.distributions.append(counted("sinks", {1: 1}, 1))
        return odds
    return save_odds(request)


def save_odds(request: FabulaeDangerRequest) -> Odds:
    """Drowning, poison, disease, cold: Physique + Résistance (FAB-73); the damage follows a
    failed save. Against venom or disease the save is opposed to the potency's dice: it
    succeeds only by scoring more sixes (FAB-36), and that is its outcome too."""
    danger = request.danger
    potency = 0
    if danger in ("poison", "disease"):
        potency = 3 if request.intensity is None else request.intensity
        if not 3 <= potency <= 9:
            raise invalid("FAB-73", "toxicity and virulence are 3..9 dice")
    pool = pool_of(request.character, SAVE, request.session)
    # (outcome, sixes it scores, panicked) -> ways, out of 6^dice.
    rows: list[tuple[str, int, int]] = []
    dice = 0
    if pool.pool <= 0:
        rows.append(("impossible", 0, 1))
    else:
        calm, panic = side_counts(pool.pool, pool.stress_dice)
        dice = pool.pool + pool.stress_dice
        rows.append(("panic", 0, sum(panic)))
        rows += [("success" if k else "failure", k, ways) for k, ways in enumerate(calm)]
    venom = binomial_row(potency, 5) if potency else [1]
    whole = 6 ** (dice + potency)
    outcomes: dict[str, int] = defaultdict(int)
    damage: dict[int, int] = defaultdict(int)
    sinks: dict[int, int] = defaultdict(int)
    panics: dict[int, int] = defaultdict(int)
    for code, scored, ways in rows:
        for against, odds in enumerate(venom):
            both = ways * odds
            failed = code != "success"
            read = code
            if potency:
                if code in ("success", "failure"):  # a panicked save scores nothing
                    read = "success" if scored - against >= 1 else "failure"
                hurt = int(read != "success")
            else:
                hurt = int(failed) if danger != "drowning" or request.phase != "float" else 0
            outcomes[read] += both
            damage[hurt] += both
            sinks[int(failed)] += both
            panics[int(code == "panic")] += both
    distributions = [counted("damage", damage, whole), counted("panics", panics, whole)]
    if danger == "drowning" and request.phase == "float":
        distributions.append(counted("sinks", sinks, whole))
    return Odds(
        outcomes=outcome_odds([(c, Fraction(outcomes[c], whole)) for c in TEST_OUTCOMES]),
        distributions=distributions,
        notes=[PANIC_NOTE, STATES_NOTE],
    )
