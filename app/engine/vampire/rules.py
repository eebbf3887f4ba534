"""Vampire rules (VAM-1..30): D10 pools against a difficulty, pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from app.engine.dice import DiceSource, roll_off
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.kinds import Effect, Resolution, register
from app.engine.kinds import effect as _effect

SYSTEM: Final = "vampire"
DEFAULT_DIFFICULTY: Final = 6
# VAM-11: the named difficulties (2 has no name in the source).
DIFFICULTY_LABELS: Final[dict[int, str]] = {
    3: "Routinier",
    4: "Facile",
    5: "Simple",
    6: "Moyen",
    7: "Exigeant",
    8: "Difficile",
    9: "Très difficile",
    10: "Extrêmement difficile",
}
QUALITY_LABELS: Final[dict[str, str]] = {
    "marginal": "Réussite marginale",
    "moderate": "Réussite modérée",
    "complete": "Réussite complète",
}
OUTCOME_LABELS: Final[dict[str, str]] = {"failure": "Échec", "botch": "Échec critique"}
EXPLOSIVE_ABOVE: Final = 4  # VAM-14: explosive by default when the attribute is above 4


def _refuse(rule: str, detail: str) -> RuleRefusal:
    return RuleRefusal(f"{rule}: {detail}", rule=rule)


def count_dice(faces: Sequence[int], difficulty: int, explosive: bool) -> dict[str, int]:
    """VAM-12..14: successes (a 10 always, twice when explosive) and ones."""
    successes = 0
    for face in faces:
        if face == 10:
            successes += 2 if explosive else 1
        elif face >= difficulty:
            successes += 1
    return {"successes": successes, "ones": sum(1 for face in faces if face == 1)}


def quality_of(net: int) -> str:
    """VAM-15: 1 marginal, 2 moderate, 3 or more complete."""
    return "marginal" if net == 1 else "moderate" if net == 2 else "complete"


def read_roll(
    faces: Sequence[int], difficulty: int, explosive: bool, willpower: bool
) -> dict[str, Any]:
    """VAM-12..15, VAM-21: the outcome of the dice, a Willpower success included."""
    counted = count_dice(faces, difficulty, explosive)
    successes, ones = counted["successes"], counted["ones"]
    net = successes - ones
    if willpower:
        # VAM-21: one automatic success no 1 can cancel: never a botch, at least marginal.
        net = max(0, net) + 1
    if net >= 1:
        outcome, quality = "success", quality_of(net)
        label = QUALITY_LABELS[quality]
    else:
        quality = None
        outcome = "failure" if successes or not ones else "botch"
        label = OUTCOME_LABELS[outcome]
    return {
        "successes": successes,
        "ones": ones,
        "net": net,
        "outcome": outcome,
        "quality": quality,
        "label": label,
    }


def _difficulty(request: Mapping[str, Any]) -> tuple[int, int]:
    """VAM-11 and VAM-30: the base difficulty and the one rolled after retries."""
    retry = request.get("retry")
    if retry:
        # VAM-30: the penalty counts from the action's first attempt.
        base = int(retry["chain"][0].get("difficulty") or DEFAULT_DIFFICULTY)
    else:
        base = int(request.get("difficulty") or DEFAULT_DIFFICULTY)
    if not 2 <= base <= 10:
        raise InvalidInput(f"VAM-11: difficulty is 2..10, got {base}", rule="VAM-11")
    if not retry:
        return base, base
    failures = sum(1 for attempt in retry["chain"] if attempt["outcome"] in ("failure", "botch"))
    if not request["options"].get("retry_penalty", True) or retry.get("waived"):
        return base, base
    return base, min(10, base + failures)  # VAM-30: never above 10


def resolve_action(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """VAM-10..30: attribute + ability (+ modifier) D10 against a difficulty."""
    if request["system"] != SYSTEM:
        raise InvalidInput(f"a Vampire rule cannot run in a {request['system']} campaign")
    character = request["character"]
    sheet = character["sheet"]
    attribute, ability = request["attribute"], request.get("ability")
    if attribute not in sheet["attributes"]:
        raise InvalidInput(f"unknown attribute {attribute!r}; VAM-1 lists the nine attributes")
    attribute_value = int(sheet["attributes"][attribute])
    ability_value = int(sheet.get("abilities", {}).get(ability, 0)) if ability else 0
    modifier = int(request.get("modifier", 0))
    pool = attribute_value + ability_value + modifier
    if pool <= 0:
        raise _refuse("VAM-10", f"the pool is {pool} dice; nothing can be rolled")
    base, difficulty = _difficulty(request)
    retry = request.get("retry")
    if retry and retry["chain"][-1]["outcome"] == "success":
        raise _refuse("VAM-30", "only a failed action is retried")
    explosive = request.get("explosive")
    if explosive is None:
        explosive = attribute_value > EXPLOSIVE_ABOVE
    character_id = str(character["id"])
    effects: list[Effect] = []
    result: dict[str, Any] = {
        "pool": pool,
        "attribute_value": attribute_value,
        "ability_value": ability_value,
        "modifier": modifier,
        "difficulty": difficulty,
        "difficulty_label": DIFFICULTY_LABELS.get(difficulty),
        "explosive": bool(explosive),
        "retry_penalty": difficulty - base,
        "automatic": False,
        "willpower_spent": False,
        "botch_absorbed": False,
    }
    if request.get("take_automatic"):
        # VAM-20: no dice when the pool reaches the difficulty and nothing is at stake.
        if request.get("tense"):
            raise _refuse("VAM-20", "no automatic success in combat or a tense situation")
        if pool < difficulty:
            raise _refuse(
                "VAM-20", f"an automatic success needs a pool ({pool}) of at least {difficulty}"
            )
        result.update(
            {
                "dice": [],
                "automatic": True,
                "successes": 1,
                "ones": 0,
                "net": 1,
                "outcome": "success",
                "quality": "marginal",
                "label": QUALITY_LABELS["marginal"],
            }
        )
        return Resolution(result, effects)
    willpower = bool(request.get("willpower"))
    if willpower:
        current = int(sheet["willpower"]["current"])
        if current <= 0:
            raise _refuse("VAM-21", f"{character['name']} has no Willpower left")
        if request.get("willpower_spent_this_turn"):
            raise _refuse("VAM-21", "Willpower is spent at most once per turn")
        after = {**sheet["willpower"], "current": current - 1}
        effects.append(_effect(character_id, "willpower", sheet["willpower"], after, "VAM-21"))
        result["willpower_spent"] = True
    faces = [dice.roll(10) for _ in range(pool)]
    result.update({"dice": faces, **read_roll(faces, difficulty, bool(explosive), willpower)})
    session = int(request["session"])
    if (
        result["outcome"] == "botch"
        and request["options"].get("blank_botch")
        and sheet.get("blank_botch_session") != session
    ):
        # VAM-16: the first botch of each participant in each session is a simple failure.
        result.update(
            {"outcome": "failure", "label": OUTCOME_LABELS["failure"], "botch_absorbed": True}
        )
        before = sheet.get("blank_botch_session")
        effects.append(_effect(character_id, "blank_botch_session", before, session, "VAM-16"))
    return Resolution(result, effects)


def resolve_willpower_restore(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """VAM-3: the Storyteller restores Willpower, never above its max."""
    character = request["character"]
    willpower = character["sheet"]["willpower"]
    amount = int(request["amount"])
    current = min(int(willpower["max"]), int(willpower["current"]) + amount)
    if current == int(willpower["current"]):
        raise _refuse("VAM-3", f"{character['name']}'s Willpower is already full")
    after = {**willpower, "current": current}
    effect = _effect(str(character["id"]), "willpower", willpower, after, "VAM-3")
    return Resolution(
        {"restored": current - int(willpower["current"]), "current": current}, [effect]
    )


register("vampire.action", resolve_action, is_roll=True)
register("vampire.willpower_restore", resolve_willpower_restore, is_roll=False)


def resolve_initiative(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """No initiative rule in the source: the classic one, 1D10 + Dextérité + Astuce.

    Highest first; ties go to the higher Dextérité + Astuce, then to a 1D10 roll-off.
    """
    if request["system"] != SYSTEM:
        raise InvalidInput(f"a Vampire rule cannot run in a {request['system']} campaign")
    rows = []
    for combatant in request["combatants"]:
        traits = int(combatant["dexterite"]) + int(combatant["astuce"])
        die = dice.roll(10)
        rows.append(
            {
                "character_id": combatant["id"],
                "name": combatant["name"],
                "kind": combatant["kind"],
                "die": die,
                "traits": traits,
                "total": die + traits,
                "rolloff": [],
            }
        )
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((-row["total"], -row["traits"]), []).append(row)
    ordered: list[dict[str, Any]] = []
    for key in sorted(groups):
        ordered.extend(_roll_off(groups[key], dice))
    for rank, row in enumerate(ordered, start=1):
        row["rank"] = rank
    return Resolution({"order": ordered})


def _roll_off(tied: list[dict[str, Any]], dice: DiceSource) -> list[dict[str, Any]]:
    return roll_off(tied, dice, 10)


register("vampire.initiative", resolve_initiative, is_roll=True)
