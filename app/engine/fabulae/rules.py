"""Fabulae Tenebris core rules (FAB-1..44, FAB-80..82, the talents that change them), pure.

Pools of D6 where a 6 is a success, stress dice on top, pushes, states, opposed rolls,
stress and panic, recovery. Each resolver takes the entry's request (inputs, the sheets as
read, the clock, the entries it follows) and a dice source; it raises RuleRefusal naming
the rule when a rule forbids the action, and otherwise returns the result and effects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.fabulae.tables import (
    ATTRIBUTES,
    EXTRA_BOX,
    MENTAL_TRACK,
    PHYSICAL_TRACK,
    SKILL_BASE,
    STATE_LABELS,
    STATE_MALUS,
    allowed_attributes,
)
from app.engine.kinds import Effect, Resolution, register_all
from app.engine.kinds import effect as _effect

SYSTEM: Final = "fabulae-tenebris"
OUTCOME_LABELS: Final[dict[str, str]] = {
    "success": "Succès",
    "failure": "Échec",
    "panic": "Panique",
    "impossible": "Impossible",
}
DIFFICULTY_MALUS: Final[dict[str, int]] = {"hard": 0, "very_hard": 1, "almost_impossible": 2}
MAX_HELPERS: Final = 3  # FAB-13

# FAB-90: talents that add dice to a roll. Always-on ones apply by themselves; the others
# apply when the player invokes them for a roll they fit (the GM judges the fiction).
ALWAYS_ON_TALENTS: Final[dict[str, tuple[frozenset[str], int]]] = {
    "sharp_eye": (frozenset({"observation"}), 1),
}
INVOKED_TALENTS: Final[dict[str, tuple[frozenset[str], int, str]]] = {
    "tinkerer": (frozenset({"bricolage"}), 2, "to sabotage, repair, force or improvise"),
    "pickpocket": (frozenset({"dexterite", "bricolage"}), 2, "to steal or pick a lock"),
    "tracker": (frozenset({"observation", "furtivite"}), 2, "to track or erase tracks"),
    "orator": (frozenset({"mentir_convaincre"}), 1, "before a crowd or to persuade"),
    "artist": (frozenset({"performance"}), 1, "in your own art"),
    "expert": (frozenset({"connaissance"}), 1, "in your field, once per session"),
    "all_in": (frozenset({"combat"}), 1, "giving up your fast action this round"),
    "iron_will": (frozenset({"resistance"}), 2, "for death tests and resisting torture"),
}
DOUBLE_PUSH: Final[dict[str, str]] = {
    "physique": "double_push_physique",
    "habilete": "double_push_habilete",
    "intellect": "double_push_intellect",
    "empathie": "double_push_empathie",
}

# FAB-44: the panic table, from a score of 6 or less up to 15 or more.
PANIC_TABLE: Final[dict[int, tuple[str, str, str]]] = {
    6: ("cool", "Tête froide", "no effect"),
    7: ("jolt", "Secousse nerveuse", "you and allies at Short range gain +1 stress"),
    8: ("tremors", "Tremblements", "-2 dice on Habileté-based rolls"),
    9: ("drop", "Lâché d'objet", "drop your weapon or a crucial held object"),
    10: ("frozen", "Figé", "paralysed for 1 round, lose your next turn"),
    11: (
        "take_cover",
        "Mise à l'abri",
        "next action must be to flee to cover; -1 stress to you, +1 to nearby allies",
    ),
    12: ("scream", "Cri", "lose a round screaming; -1 stress to you; nearby allies roll panic"),
    13: ("flee", "Fuite", "flee to safety, cannot attack; witnesses roll panic"),
    14: ("berserk", "Folie meurtrière", "attack the nearest target in melee, ally or foe"),
    15: ("catatonia", "Catatonie", "collapse, unable to move, react or speak"),
}


def _refuse(rule: str, detail: str) -> RuleRefusal:
    return RuleRefusal(f"{rule}: {detail}", rule=rule)


def _system(request: Mapping[str, Any]) -> None:
    if request["system"] != SYSTEM:
        raise InvalidInput(f"a Fabulae Tenebris rule cannot run in a {request['system']} campaign")


def _sheet(character: Mapping[str, Any]) -> Mapping[str, Any]:
    sheet = character["sheet"]
    if not isinstance(sheet, Mapping):
        raise InvalidInput("the character's sheet is missing from the request")
    return sheet


def has_talent(sheet: Mapping[str, Any], talent: str) -> bool:
    return talent in sheet.get("talents", [])


# --- pools (FAB-10..15, FAB-21, FAB-90) --------------------------------------------------


def state_malus(sheet: Mapping[str, Any]) -> int:
    """FAB-21: each checked Meurtri, Blessé, Apeuré, Démoralisé takes one die, cumulatively."""
    return sum(STATE_MALUS.get(state, 0) for state in sheet.get("states", []))


def pool_of(character: Mapping[str, Any], roll: Mapping[str, Any], session: int) -> dict[str, Any]:
    """FAB-10..15: attribute + skill + helpers − difficulty − states + talents + modifiers."""
    sheet = _sheet(character)
    attribute, skill = roll["attribute"], roll.get("skill")
    if attribute not in ATTRIBUTES:
        raise InvalidInput(f"attribute must be one of {', '.join(ATTRIBUTES)}, got {attribute!r}")
    if skill is not None:
        if skill not in SKILL_BASE:
            raise InvalidInput(f"unknown skill {skill!r}; the skills are {', '.join(SKILL_BASE)}")
        allowed = allowed_attributes(skill)
        if attribute not in allowed:
            raise InvalidInput(
                f"FAB-4: {skill} is rolled with {' or '.join(sorted(allowed))}, not {attribute}",
                rule="FAB-4",
            )
    helpers = int(roll.get("helpers", 0))
    if not 0 <= helpers <= MAX_HELPERS:
        raise InvalidInput(f"FAB-13: helpers add at most {MAX_HELPERS} dice, got {helpers}")
    difficulty = roll.get("difficulty", "hard")
    if difficulty not in DIFFICULTY_MALUS:
        raise InvalidInput(
            f"difficulty must be hard, very_hard or almost_impossible, got {difficulty!r}"
        )
    talents = _talent_dice(sheet, attribute, skill, list(roll.get("talents", [])), session)
    modifiers: list[dict[str, Any]] = [
        {"source": str(m["source"]), "dice": int(m["dice"])}
        for m in roll.get("modifiers", [])
        # FAB-90 parkour: encumbered zones cost an acrobat nothing on Athlétisme.
        if not (
            m["source"] == "encumbered_zone"
            and skill == "athletisme"
            and has_talent(sheet, "parkour")
        )
    ]
    situation = situation_dice(sheet, attribute, skill, bool(roll.get("in_combat")))
    parts = {
        "attribute": int(sheet["attributes"][attribute]),
        "skill": int(sheet["skills"][skill]) if skill else 0,
        "helpers": helpers,
        "difficulty": -DIFFICULTY_MALUS[difficulty],
        "states": -state_malus(sheet),
        "talents": sum(t["dice"] for t in talents),
        "modifiers": sum(m["dice"] for m in modifiers),
        "situation": sum(s["dice"] for s in situation),
    }
    return {
        **parts,
        "talent_dice": talents,
        "modifier_dice": modifiers,
        "situation_dice": situation,
        "pool": sum(parts.values()),
        "stress_dice": int(sheet.get("stress", 0)),  # FAB-15: on top, recorded apart
    }


# FAB-50/FAB-55: what a carried sequela takes from the rolls it names.
SEQUELA_MALUS: Final[dict[str, tuple[str, frozenset[str], int]]] = {
    "bruise": ("attribute", frozenset({"physique"}), -1),
    "broken_limb": ("skill", frozenset({"athletisme"}), -2),
    "bleeding": ("skill", frozenset({"athletisme", "resistance"}), -2),
    "internal": ("all", frozenset(), -2),
    "tremor": ("skill", frozenset({"athletisme"}), -1),
    "anxious": ("attribute", frozenset({"intellect"}), -1),
    "sullen": ("attribute", frozenset({"empathie"}), -1),
}
# FAB-72: what an armor takes from the skills it hinders.
ARMOR_MALUS: Final[dict[str, tuple[str, int]]] = {
    "primitive_vest": ("furtivite", -1),
    "factory_plate": ("athletisme", -1),
}


def situation_dice(
    sheet: Mapping[str, Any], attribute: str, skill: str | None, in_combat: bool
) -> list[dict[str, Any]]:
    """Dice the character's own situation adds or takes: sequelae, armor, backpack, powers."""
    dice: list[dict[str, Any]] = []
    for sequela in sheet.get("sequelae", []):
        malus = SEQUELA_MALUS.get(sequela["code"])
        if malus is None:
            continue
        scope, names, value = malus
        if scope == "all" or (scope == "attribute" and attribute in names) or skill in names:
            dice.append({"source": f"sequela {sequela['code']}", "dice": value})
    armor = sheet.get("armor")
    if armor and armor["id"] in ARMOR_MALUS and ARMOR_MALUS[armor["id"]][0] == skill:
        dice.append({"source": f"armor {armor['id']}", "dice": ARMOR_MALUS[armor["id"]][1]})
    if in_combat and sheet.get("backpack") and skill in ("athletisme", "furtivite"):
        dice.append({"source": "backpack in combat", "dice": -2})  # FAB-75
    for effect in sheet.get("active_effects", []):
        value = int(effect.get("all_rolls", 0))
        value += int(effect.get("attributes", {}).get(attribute, 0))
        if skill is not None:
            value += int(effect.get("skills", {}).get(skill, 0))
        if value:
            dice.append({"source": f"power {effect['source']}", "dice": value})
    return dice


def _talent_dice(
    sheet: Mapping[str, Any],
    attribute: str,
    skill: str | None,
    invoked: list[str],
    session: int,
) -> list[dict[str, Any]]:
    dice = []
    for talent, (skills, bonus) in ALWAYS_ON_TALENTS.items():
        if has_talent(sheet, talent) and skill in skills:
            dice.append({"talent": talent, "dice": bonus})
    if len(set(invoked)) != len(invoked):
        raise InvalidInput("a talent is invoked once per roll")
    for talent in invoked:
        if talent not in INVOKED_TALENTS:
            raise InvalidInput(f"talent {talent!r} adds no dice to a roll you invoke it for")
        if not has_talent(sheet, talent):
            raise InvalidInput(f"talent {talent!r} is not on the sheet")
        skills, bonus, when = INVOKED_TALENTS[talent]
        if skill not in skills:
            raise InvalidInput(f"talent {talent} adds dice to {' or '.join(sorted(skills))} {when}")
        if talent == "iron_will" and attribute != "physique":
            raise InvalidInput("iron_will adds dice to Physique + Résistance only")
        if talent == "expert" and sheet.get("expert_session") == session:
            raise _refuse("FAB-90", "Expert was already used this session")
        dice.append({"talent": talent, "dice": bonus})
    return dice


def read_dice(faces: Sequence[int], stress: Sequence[int]) -> dict[str, Any]:
    """FAB-11, FAB-42: sixes anywhere succeed; a 1 on a stress die is Panic."""
    sixes = sum(1 for face in [*faces, *stress] if face == 6)
    panic = any(face == 1 for face in stress)
    if panic:
        outcome = "panic"
    elif sixes:
        outcome = "success"
    else:
        outcome = "failure"
    return {
        "dice": list(faces),
        "stress_dice": list(stress),
        "sixes": sixes,
        "feats": max(0, sixes - 1) if outcome == "success" else 0,
        "panic": panic,
        "outcome": outcome,
        "label": OUTCOME_LABELS[outcome],
    }


def roll_pool(dice: DiceSource, pool: Mapping[str, Any]) -> dict[str, Any]:
    """Draw the pool then the stress dice; a pool of 0 or less is impossible (FAB-14)."""
    if pool["pool"] <= 0:
        return {
            "dice": [],
            "stress_dice": [],
            "sixes": 0,
            "feats": 0,
            "panic": False,
            "outcome": "impossible",
            "label": OUTCOME_LABELS["impossible"],
        }
    faces = [dice.roll(6) for _ in range(pool["pool"])]
    stress = [dice.roll(6) for _ in range(pool["stress_dice"])]
    return read_dice(faces, stress)


def _expert_effect(
    character: Mapping[str, Any], pool: Mapping[str, Any], session: int
) -> list[Effect]:
    if any(t["talent"] == "expert" for t in pool["talent_dice"]):
        before = _sheet(character).get("expert_session")
        return [_effect(str(character["id"]), "expert_session", before, session, "FAB-90")]
    return []


def _action_roll(
    character: Mapping[str, Any], roll: Mapping[str, Any], session: int, dice: DiceSource
) -> tuple[dict[str, Any], list[Effect]]:
    pool = pool_of(character, roll, session)
    rolled = roll_pool(dice, pool)
    effects = [] if rolled["outcome"] == "impossible" else _expert_effect(character, pool, session)
    return {"pool": pool, **rolled}, effects


def resolve_action(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-10..15, FAB-42: an action roll; a 1 on a stress die is Panic."""
    _system(request)
    character, roll = request["character"], request["roll"]
    result, effects = _action_roll(character, roll, int(request["session"]), dice)
    result["passive"] = bool(roll.get("passive"))
    target = request.get("target")
    if (
        target is not None
        and result["outcome"] == "success"
        and has_talent(_sheet(character), "intimidator")
        and roll["attribute"] == "physique"
        and roll.get("skill") == "mentir_convaincre"
    ):
        # FAB-90 intimidator: the target flees, or takes +1 stress.
        if request.get("intimidation", "stress") == "flee":
            result["intimidated"] = {"character_id": target["id"], "flees": True}
        else:
            effects += _stress_change(target, stress_gain(_sheet(target), 1), "FAB-90")
            result["intimidated"] = {"character_id": target["id"], "stress": True}
    return Resolution(result, effects)


def resolve_opposed(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-36: both roll at once; the active side wins only with strictly more sixes."""
    _system(request)
    session = int(request["session"])
    active, active_effects = _action_roll(
        request["active"]["character"], request["active"]["roll"], session, dice
    )
    if active["outcome"] == "impossible":
        # FAB-14: the attempt never happens, so the defender rolls nothing either.
        passive: dict[str, Any] = {
            "outcome": "not_rolled",
            "sixes": 0,
            "dice": [],
            "stress_dice": [],
        }
        return Resolution(_opposition(active, passive), active_effects)
    passive, passive_effects = _action_roll(
        request["passive"]["character"], request["passive"]["roll"], session, dice
    )
    return Resolution(_opposition(active, passive), active_effects + passive_effects)


def _opposition(active: dict[str, Any], passive: dict[str, Any]) -> dict[str, Any]:
    """A side that panics or cannot act scores no six (FAB-14, FAB-42)."""
    active_sixes = active["sixes"] if active["outcome"] in ("success", "failure") else 0
    passive_sixes = passive["sixes"] if passive["outcome"] in ("success", "failure") else 0
    net = active_sixes - passive_sixes
    winner = "active" if net >= 1 else "passive"
    outcome = "success" if net >= 1 else "failure"
    if active["outcome"] in ("panic", "impossible"):
        outcome = active["outcome"]
    return {
        "active": active,
        "passive": passive,
        "net": net,
        "feats": max(0, net - 1),
        "winner": winner,
        "outcome": outcome,
        "label": OUTCOME_LABELS[outcome],
    }


# --- pushing the dice (FAB-31..35, FAB-37) -------------------------------------------------

PUSHABLE_KINDS: Final = frozenset({"fabulae.action", "fabulae.opposed", "fabulae.stress_resist"})


def _current_roll(request: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """The roll as it stands: the last push replaced it for good (FAB-33)."""
    result: dict[str, Any] = request["action"]["result"]
    pushes = 0
    for follow in request.get("follow_ups", []):
        if follow["kind"] in ("fabulae.push", "fabulae.street_rat"):
            result = follow["result"]
            pushes += follow["kind"] == "fabulae.push"
    return result, pushes


def resolve_push(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-31..35: 1 Destiny rerolls every 2..5 (stress dice too); 1s and 6s stay."""
    _system(request)
    action = request["action"]
    if action["kind"] not in PUSHABLE_KINDS:
        raise InvalidInput(f"follows must name an action roll, not {action['kind']}")
    character = request["character"]
    sheet = _sheet(character)
    current, pushes = _current_roll(request)
    opposed = action["kind"] == "fabulae.opposed"
    side = current["active"] if opposed else current
    roll_inputs = action["request"]["active"]["roll"] if opposed else action["request"]["roll"]
    if roll_inputs.get("passive"):
        raise _refuse("FAB-33", "a passive roll imposed by the GM cannot be pushed")
    if side["outcome"] == "impossible":
        raise _refuse("FAB-14", "an impossible action rolled no dice; there is nothing to push")
    if side["outcome"] == "panic":
        raise _refuse("FAB-42", "a panicked action is interrupted and cannot be pushed")
    if pushes >= 1:
        talent = DOUBLE_PUSH[roll_inputs["attribute"]]
        if pushes >= 2 or not has_talent(sheet, talent):
            raise _refuse(
                "FAB-33",
                f"one push per action; a second needs the talent {talent} on a "
                f"{roll_inputs['attribute']} roll",
            )
    absorb = bool(request.get("absorb"))
    state = request.get("state")
    if absorb and state is not None:
        raise InvalidInput("FAB-32/FAB-34: name a state to check or absorb it, not both")
    # Every refusal comes before the dice: a request refused after drawing would let the
    # caller see what the next entry's dice hold without paying for them.
    if state is not None:
        check_chosen_state(character, state, "FAB-32")
    if int(sheet["destiny"]) < (2 if absorb else 1):
        raise _refuse(
            "FAB-34" if absorb else "FAB-31",
            f"pushing costs 1 Destiny point{' and absorbing one more' if absorb else ''}; "
            f"{character['name']} has {sheet['destiny']}",
        )
    faces = [face if face in (1, 6) else dice.roll(6) for face in side["dice"]]
    stress = [face if face in (1, 6) else dice.roll(6) for face in side["stress_dice"]]
    rolled = read_dice(faces, stress)
    pushed = {
        "pool": side["pool"],
        **rolled,
        "rerolled_from": {"dice": side["dice"], "stress_dice": side["stress_dice"]},
    }
    result = _opposition(pushed, current["passive"]) if opposed else {**pushed, "passive": False}
    result["push"] = pushes + 1
    character_id = str(character["id"])
    destiny = int(sheet["destiny"])
    cost = 1
    effects: list[Effect] = []
    if any(face == 1 for face in [*faces, *stress]):
        # FAB-32: a 1 anywhere in the final set costs one state of the player's choice.
        if absorb:
            cost = 2  # FAB-34: one more Destiny cancels it
            result["state_price"] = {"rule": "FAB-32", "absorbed": True}
        elif state is not None:
            effects += check_chosen_state(character, state, "FAB-32")
            result["state_price"] = {"rule": "FAB-32", "state": state}
        else:
            result["pending_states"] = [{"rule": "FAB-32", "choice": "any"}]
    effects.insert(0, _effect(character_id, "destiny", destiny, destiny - cost, "FAB-31"))
    if action["kind"] == "fabulae.stress_resist":
        effects += _stress_resisted(character, current, result)
    return Resolution(result, effects)


def _stress_resisted(
    character: Mapping[str, Any], before: Mapping[str, Any], after: dict[str, Any]
) -> list[Effect]:
    """FAB-43 after a push: the sixes the new roll adds lower stress further."""
    lowered = int(before.get("stress_lowered", 0))
    if after["outcome"] != "success":
        after["stress_lowered"] = lowered
        return []
    stress = int(_sheet(character)["stress"])
    more = min(stress, int(after["sixes"]) - lowered)
    after["stress_lowered"] = lowered + max(0, more)
    return _stress_change(character, -more, "FAB-43") if more > 0 else []


# --- states (FAB-20..23, FAB-34) -----------------------------------------------------------


def track_of(sheet: Mapping[str, Any], track: str) -> list[str]:
    """FAB-20/FAB-22: a track's boxes in checking order, with the extra box if taken."""
    boxes = list(PHYSICAL_TRACK if track == "physical" else MENTAL_TRACK)
    if sheet.get("extra_box_track") == track:
        boxes.append(EXTRA_BOX[track])
    return boxes


def check_chosen_state(character: Mapping[str, Any], state: str, rule: str) -> list[Effect]:
    """Check the state the player chose (FAB-32); it must be an unchecked box of theirs."""
    sheet = _sheet(character)
    boxes = track_of(sheet, "physical") + track_of(sheet, "mental")
    if state not in boxes:
        raise InvalidInput(f"state must be one of {', '.join(boxes)}, got {state!r}")
    states = list(sheet.get("states", []))
    if state in states:
        raise InvalidInput(f"{STATE_LABELS[state]} is already checked; choose an unchecked state")
    return [_effect(str(character["id"]), "states", states, [*states, state], rule)]


def _pending(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    threat = request["threat"]
    pending = list(threat["result"].get("pending_states", []))
    settled = sum(
        1
        for follow in request.get("settled", [])
        if follow["kind"] in ("fabulae.state_choice", "fabulae.absorb")
    )
    return pending[settled:]


def resolve_absorb(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-34: spend 1 Destiny to cancel a state about to be checked."""
    _system(request)
    pending = _pending(request)
    if not pending:
        raise _refuse("FAB-34", "no state is about to be checked on that entry")
    character = request["character"]
    destiny = int(_sheet(character)["destiny"])
    if destiny < 1:
        raise _refuse("FAB-34", f"absorbing costs 1 Destiny point; {character['name']} has none")
    effect = _effect(str(character["id"]), "destiny", destiny, destiny - 1, "FAB-34")
    return Resolution({"absorbed": pending[0]}, [effect])


# --- stress and panic (FAB-40..44) ---------------------------------------------------------


def stress_gain(sheet: Mapping[str, Any], amount: int) -> int:
    """FAB-41: talent cool_head takes 1 off each external stress gain (min 0)."""
    return max(0, amount - 1) if has_talent(sheet, "cool_head") else amount


def resolve_stress(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-40/41: the GM gives stress for a critical situation."""
    _system(request)
    amount = int(request["amount"])
    if not 1 <= amount <= 10:
        raise InvalidInput(f"FAB-41: stress comes in +1..+3 steps (at most 10), got {amount}")
    effects, gains = [], []
    for character in request["characters"]:
        sheet = _sheet(character)
        gain = stress_gain(sheet, amount)
        gains.append({"character_id": character["id"], "gain": gain})
        if gain:
            before = int(sheet["stress"])
            effects.append(_effect(str(character["id"]), "stress", before, before + gain, "FAB-41"))
    return Resolution(
        {"amount": amount, "gains": gains, "reason": request.get("reason", "")}, effects
    )


def resolve_stress_resist(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-43: a Résistance roll; each six lowers current stress by one."""
    _system(request)
    roll = request["roll"]
    if roll.get("skill") != "resistance":
        raise InvalidInput("FAB-43: stress is resisted with the Résistance skill")
    character = request["character"]
    result, effects = _action_roll(character, roll, int(request["session"]), dice)
    result["passive"] = False
    if result["outcome"] == "success":
        before = int(_sheet(character)["stress"])
        after = max(0, before - result["sixes"])
        result["stress_lowered"] = before - after
        if after != before:
            effects.append(_effect(str(character["id"]), "stress", before, after, "FAB-43"))
    return Resolution(result, effects)


def panic_row(score: int) -> tuple[str, str, str]:
    """FAB-44: 6 or less is cool, 15 or more catatonia."""
    return PANIC_TABLE[min(15, max(6, score))]


def resolve_panic(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-44: 1D6 + current stress (cool_head −2); stress changes land on the sheets."""
    _system(request)
    character = request["character"]
    sheet = _sheet(character)
    die = dice.roll(6)
    stress = int(sheet["stress"])
    cool = -2 if has_talent(sheet, "cool_head") else 0
    modifier = int(request.get("modifier", 0))
    score = die + stress + cool + modifier
    code, label, text = panic_row(score)
    result: dict[str, Any] = {
        "die": die,
        "stress": stress,
        "cool_head": cool,
        "modifier": modifier,
        "score": score,
        "code": code,
        "label": label,
        "effect": text,
    }
    effects: list[Effect] = []
    allies = list(request.get("allies", []))
    own = str(character["id"])
    if code == "jolt":
        for who in [character, *allies]:
            effects += _stress_change(who, stress_gain(_sheet(who), 1), "FAB-44")
    elif code == "take_cover":
        effects += _stress_change(character, -1, "FAB-44")
        for ally in allies:
            effects += _stress_change(ally, stress_gain(_sheet(ally), 1), "FAB-44")
    elif code == "scream":
        effects += _stress_change(character, -1, "FAB-44")
        result["must_roll_panic"] = [str(a["id"]) for a in allies]
    elif code == "flee":
        result["must_roll_panic"] = [str(a["id"]) for a in allies]
    if code in (
        "tremors",
        "drop",
        "frozen",
        "take_cover",
        "scream",
        "flee",
        "berserk",
        "catatonia",
    ):
        result["condition"] = {"character_id": own, "code": code}
    return Resolution(result, effects)


def _stress_change(character: Mapping[str, Any], change: int, rule: str) -> list[Effect]:
    before = int(_sheet(character)["stress"])
    after = max(0, before + change)
    if after == before:
        return []
    return [_effect(str(character["id"]), "stress", before, after, rule)]


# --- recovery (FAB-80..82) ----------------------------------------------------------------

SOIN_ATTRIBUTE: Final[dict[str, str]] = {"physical": "intellect", "mental": "empathie"}
SELF_CARE_MALUS: Final = 2
REST_CLEARS: Final[dict[str, tuple[str, ...]]] = {
    "quart": ("epuise",),
    "tour": ("enerve",),
    "night": ("epuise", "enerve"),
}
REST_PP: Final[dict[str, int]] = {"quart": 1, "tour": 0, "night": 2}


def _clearable(sheet: Mapping[str, Any], track: str) -> list[str]:
    """States a Soin roll clears on a track, worst first (Épuisé and Énervé need rest)."""
    order = [s for s in reversed(track_of(sheet, track)) if s not in ("epuise", "enerve")]
    checked = set(sheet.get("states", []))
    return [state for state in order if state in checked]


def _clear_states(
    character: Mapping[str, Any], states: list[str], rule: str
) -> tuple[list[str], list[Effect]]:
    sheet = _sheet(character)
    before = list(sheet.get("states", []))
    after = [state for state in before if state not in states]
    if after == before:
        return [], []
    cleared = [state for state in before if state in states]
    return cleared, [_effect(str(character["id"]), "states", before, after, rule)]


def _unbroken(character: Mapping[str, Any], states_after: list[str]) -> list[Effect]:
    """FAB-81: a free box on the track that broke the character ends Broken."""
    sheet = _sheet(character)
    track = sheet.get("broken_track")
    if not sheet.get("broken") or track is None:
        return []
    if all(box in states_after for box in track_of(sheet, track)):
        return []
    character_id = str(character["id"])
    return [
        _effect(character_id, "broken", True, False, "FAB-81"),
        _effect(character_id, "broken_track", track, None, "FAB-81"),
    ]


def resolve_recover(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-80..82: rest, Soin by an ally or oneself, the broken character's Résistance."""
    _system(request)
    mode = request["mode"]
    patient = request["patient"]
    sheet = _sheet(patient)
    if mode == "rest":
        return _rest(patient, sheet, str(request["duration"]))
    if mode == "care":
        healer = request["healer"]
        track = str(request["track"])
        if track not in SOIN_ATTRIBUTE:
            raise InvalidInput("track must be physical or mental")
        self_care = str(healer["id"]) == str(patient["id"])
        if self_care and sheet.get("broken"):
            raise _refuse(
                "FAB-81",
                "a Broken character is helpless: alone, only a Résistance roll once per quart "
                "(mode broken_resistance)",
            )
        roll = {
            "attribute": SOIN_ATTRIBUTE[track],  # FAB-4, FAB-80
            "skill": "soin",
            "helpers": request.get("helpers", 0),
            "modifiers": [
                *request.get("modifiers", []),
                *([{"source": "self-treatment", "dice": -SELF_CARE_MALUS}] if self_care else []),
            ],
        }
        result, effects = _action_roll(healer, roll, int(request["session"]), dice)
        medic = has_talent(_sheet(healer), "medic")
        broken = bool(sheet.get("broken")) and sheet.get("broken_track") == track
        rule = "FAB-81" if broken else "FAB-80"
        if result["outcome"] == "success":
            if medic:
                count = 3 if result["feats"] else 2  # FAB-90 medic
            else:
                count = 2 if broken and result["feats"] else 1
            clearable = _clearable(sheet, track)[:count]
            cleared, state_effects = _clear_states(patient, clearable, rule)
            effects += state_effects
            states_after = [s for s in sheet.get("states", []) if s not in cleared]
            effects += _unbroken(patient, states_after)
            result["cleared"] = cleared
        result.update({"track": track, "self_care": self_care, "passive": False})
        return Resolution(result, effects)
    if mode == "broken_resistance":
        if not sheet.get("broken"):
            raise _refuse("FAB-81", f"{patient['name']} is not Broken")
        track = str(sheet["broken_track"])
        # FAB-4/FAB-43: Résistance with Physique for the body, Empathie for the mind.
        roll = {
            "attribute": "physique" if track == "physical" else "empathie",
            "skill": "resistance",
        }
        result, effects = _action_roll(patient, roll, int(request["session"]), dice)
        if result["outcome"] == "success":
            count = 2 if result["feats"] else 1
            cleared, state_effects = _clear_states(
                patient, _clearable(sheet, track)[:count], "FAB-81"
            )
            effects += state_effects
            effects += _unbroken(patient, [s for s in sheet.get("states", []) if s not in cleared])
            result["cleared"] = cleared
        result.update({"track": track, "passive": False})
        return Resolution(result, effects)
    raise InvalidInput(f"mode must be rest, care or broken_resistance, got {mode!r}")


def _rest(patient: Mapping[str, Any], sheet: Mapping[str, Any], duration: str) -> Resolution:
    if duration not in REST_CLEARS:
        raise InvalidInput("duration must be quart, tour or night")
    cleared, effects = _clear_states(patient, list(REST_CLEARS[duration]), "FAB-80")
    pp, pp_max = int(sheet.get("pp", 0)), int(sheet.get("pp_max", 0))
    pp_after = min(pp_max, pp + REST_PP[duration])  # FAB-82: never above pp_max
    if pp_after != pp:
        effects.append(_effect(str(patient["id"]), "pp", pp, pp_after, "FAB-82"))
    return Resolution(
        {"duration": duration, "cleared": cleared, "pp_gained": pp_after - pp}, effects
    )


# --- Destiny (FAB-30) ---------------------------------------------------------------------


def resolve_destiny_award(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """FAB-30: the GM awards 1 Destiny point for a narrative feat."""
    _system(request)
    character = request["character"]
    destiny = int(_sheet(character)["destiny"])
    effect = _effect(str(character["id"]), "destiny", destiny, destiny + 1, "FAB-30")
    return Resolution({"destiny": destiny + 1, "reason": request.get("reason", "")}, [effect])


ROLL_KINDS: Final[dict[str, Any]] = {
    "fabulae.action": resolve_action,
    "fabulae.opposed": resolve_opposed,
    "fabulae.push": resolve_push,
    "fabulae.stress_resist": resolve_stress_resist,
    "fabulae.panic": resolve_panic,
    "fabulae.recover": resolve_recover,
}
EVENT_KINDS: Final[dict[str, Any]] = {
    "fabulae.absorb": resolve_absorb,
    "fabulae.stress": resolve_stress,
    "fabulae.destiny_award": resolve_destiny_award,
}

register_all(ROLL_KINDS, EVENT_KINDS)
