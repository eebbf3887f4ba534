"""JDR Express rules (JDR-1..43): every roll kind, follow-up and recharge, pure.

Each resolver takes the entry's `request` — the inputs the player or GM gave, the sheets as
they were read, the scene and session, and for follow-ups the entries they follow — and a
dice source. It raises RuleRefusal (naming the rule) when a rule forbids the action, and
otherwise returns the result and the sheet effects. Replaying a request with its recorded
draws gives the same resolution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from app.engine.clock import RECHARGES
from app.engine.dice import DiceSource, roll_off
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.kinds import Effect, Resolution, register_all
from app.engine.kinds import effect as _effect
from app.engine.notation import kept_flags

DRACULA: Final = "jdr-express-dracula"
CTHULHU: Final = "jdr-express-cthulhu"
SYSTEMS: Final = (DRACULA, CTHULHU)

# JDR-11: the five tiers read on the total.
TIER_LABELS: Final[dict[str, str]] = {
    "critical_failure": "Échec critique",
    "failure": "Échec",
    "partial_success": "Succès partiel",
    "success": "Succès complet",
    "critical_success": "Succès critique",
}
WOUND_LABELS: Final[dict[str, str]] = {
    "light": "Blessure légère",
    "serious": "Blessure grave",
    "critical": "Blessure critique",
}
MYTHOS_LABELS: Final[dict[str, str]] = {
    "success": "Réussite",
    "failure": "Échec",
    "critical_failure": "Échec critique",
}
# JDR-29: the domains the Effleurement works on.
EFFLEUREMENT_DOMAINS: Final = frozenset(
    {"investigation", "erudition", "observation", "occult", "mythos"}
)
CREATURE_TAGS: Final = frozenset({"vampire", "undead", "werewolf", "possessed", "creature"})
MAX_COUNTED_MARKS: Final = 5  # JDR-42: more than five and the PC becomes an NPC


def tier_of(total: int) -> str:
    """JDR-11."""
    if total <= 5:
        return "critical_failure"
    if total <= 8:
        return "failure"
    if total <= 10:
        return "partial_success"
    if total <= 14:
        return "success"
    return "critical_success"


def roll_2d6(dice: DiceSource, advantage: bool, disadvantage: bool) -> dict[str, Any]:
    """JDR-12: 3D6 keep the two highest (advantage) or lowest (disadvantage); both cancel."""
    if advantage != disadvantage:
        faces = [dice.roll(6) for _ in range(3)]
        mode = "advantage" if advantage else "disadvantage"
        kept = kept_flags(faces, "h" if advantage else "l", 2)
    else:
        faces = [dice.roll(6), dice.roll(6)]
        mode = "normal"
        kept = [True, True]
    kept_sum = sum(face for face, keep in zip(faces, kept, strict=True) if keep)
    return {"mode": mode, "dice": faces, "kept": kept, "kept_sum": kept_sum}


def _refuse(rule: str, detail: str) -> RuleRefusal:
    return RuleRefusal(f"{rule}: {detail}", rule=rule)


def _system(request: Mapping[str, Any], *, only: str | None = None, rule: str = "") -> str:
    system = str(request["system"])
    if system not in SYSTEMS:
        raise InvalidInput(f"a JDR Express rule cannot run in a {system} campaign")
    if only is not None and system != only:
        setting = "Dracula" if only == DRACULA else "Cthulhu"
        raise InvalidInput(
            f"{rule} is a rule of the {setting} setting; this campaign plays {system}",
            rule=rule,
        )
    return system


def _sheet(character: Mapping[str, Any]) -> Mapping[str, Any]:
    sheet = character["sheet"]
    if not isinstance(sheet, Mapping):
        raise InvalidInput("the character's sheet is missing from the request")
    return sheet


def _require_pc(character: Mapping[str, Any], rule: str, what: str) -> None:
    if character.get("kind") != "pc":
        raise _refuse(rule, f"{what} belongs to player characters, not NPCs")


def _uncared_serious_wound(sheet: Mapping[str, Any]) -> bool:
    """JDR-3/JDR-33: a serious wound burdens every roll until medical care."""
    return any(w["severity"] == "serious" and not w.get("cared") for w in sheet.get("wounds", []))


def _faith_shaken_applies(sheet: Mapping[str, Any], scene: int, against_supernatural: bool) -> bool:
    """JDR-24: the next supernatural confrontation after the crack, and only that one."""
    shaken = sheet.get("faith_shaken")
    if not shaken or not against_supernatural:
        return False
    if scene <= int(shaken["cracked_scene"]):
        return False
    confrontation = shaken.get("confrontation_scene")
    return confrontation is None or int(confrontation) == scene


def _mark_confrontation(character_id: str, sheet: Mapping[str, Any], scene: int) -> list[Effect]:
    shaken = sheet["faith_shaken"]
    if shaken.get("confrontation_scene") is not None:
        return []
    after = {**shaken, "confrontation_scene": scene}
    return [_effect(character_id, "faith_shaken", shaken, after, "JDR-24")]


def _counted_marks(marks: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for mark in marks if mark.get("counted"))


def _npc_effect(
    character: Mapping[str, Any], sheet: Mapping[str, Any], marks_after: Sequence[Any]
) -> list[Effect]:
    """JDR-42: a PC with more than five counted marks becomes unplayable."""
    if (
        character.get("kind") == "pc"
        and sheet.get("status") == "active"
        and _counted_marks(marks_after) > MAX_COUNTED_MARKS
    ):
        return [_effect(str(character["id"]), "status", "active", "npc", "JDR-42")]
    return []


# --- action roll (JDR-10..14) -------------------------------------------------------------


def _talent_bonus(sheet: Mapping[str, Any], talent: str | None) -> int:
    if talent is None:
        return 0
    for entry in sheet.get("talents", []):
        if entry["name"] == talent:
            return int(entry["bonus"])
    names = ", ".join(t["name"] for t in sheet.get("talents", [])) or "none"
    raise InvalidInput(f"talent '{talent}' is not on the sheet (its talents: {names})")


def _action(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-10..14: 2D6 + trait + talent + modifier, tiers, difficulty."""
    character = request["character"]
    sheet = _sheet(character)
    if sheet.get("destroyed"):
        raise _refuse("JDR-36", f"{character.get('name', 'the creature')} was destroyed for good")
    trait = request["trait"]
    if trait not in ("mental", "physique", "social"):
        raise InvalidInput(f"trait must be mental, physique or social, got {trait!r}")
    context = request["context"]
    scene = int(request["scene"])
    bonus = 0 if request.get("no_talent_bonus") else _talent_bonus(sheet, request.get("talent"))
    burdens = []
    if _uncared_serious_wound(sheet):
        burdens.append("serious_wound")  # JDR-3, JDR-33
    shaken = bool(context.get("protection")) and _faith_shaken_applies(
        sheet, scene, bool(context.get("supernatural"))
    )
    if shaken:
        burdens.append("faith_shaken")  # JDR-24
    roll = roll_2d6(
        dice, bool(request["advantage"]), bool(request["disadvantage"]) or bool(burdens)
    )
    total = roll["kept_sum"] + int(sheet["traits"][trait]) + bonus + int(request["modifier"])
    tier = tier_of(total)
    result: dict[str, Any] = {
        "mode": roll["mode"],
        "dice": roll["dice"],
        "kept": roll["kept"],
        "trait_value": int(sheet["traits"][trait]),
        "talent_bonus": bonus,
        "auto_disadvantage": burdens,
        "total": total,
        "tier": tier,
        "label": TIER_LABELS[tier],
    }
    difficulty = request.get("difficulty")
    if difficulty is not None:
        # JDR-13: success against the difficulty; a total of 5 or less still fails critically.
        result["difficulty"] = int(difficulty)
        result["success"] = tier != "critical_failure" and total >= int(difficulty)
    effects = _mark_confrontation(str(character["id"]), sheet, scene) if shaken else []
    return Resolution(result, effects)


def resolve_action(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    _system(request)
    return _action(request, dice)


# --- follow-ups on an action (JDR-14, JDR-20..29) ---------------------------------------


def _followed_action(request: Mapping[str, Any], rule: str) -> Mapping[str, Any]:
    action = request["action"]
    if action["kind"] == "jdr.joker":
        if rule == "JDR-25":
            raise _refuse(rule, "a Joker reroll is final: the second result must be kept")
        raise _refuse("JDR-27", "the Joker was used on this action")
    if action["kind"] != "jdr.action":
        raise InvalidInput(f"follows must name a jdr.action entry, not {action['kind']}")
    if str(action["request"]["character"]["id"]) != str(request["character"]["id"]):
        raise InvalidInput("a follow-up applies to the character who rolled the action")
    return action  # type: ignore[no-any-return]


def _follow_kinds(request: Mapping[str, Any]) -> list[str]:
    return [str(f["kind"]) for f in request.get("follow_ups", [])]


def _effective_context(request: Mapping[str, Any]) -> Mapping[str, Any]:
    """JDR-14: the action's context, as the GM last amended it."""
    context: Mapping[str, Any] = request["action"]["request"]["context"]
    for follow in request.get("follow_ups", []):
        if follow["kind"] == "jdr.context":
            context = follow["result"]["context"]
    return context


def _same_scene(request: Mapping[str, Any], rule: str, what: str) -> None:
    rolled = int(request["action"]["request"]["scene"])
    if rolled != int(request["scene"]):
        raise _refuse(rule, f"{what} applies in the scene of its roll (scene {rolled})")


def _special_rule_used(request: Mapping[str, Any]) -> str | None:
    """JDR-27: the setting rule already applied on this action, if any (refusals undo it)."""
    kinds = _follow_kinds(request)
    if "jdr.talisman" in kinds:
        return "the Talisman"
    if kinds.count("jdr.effleurement") > kinds.count("jdr.effleurement_refusal"):
        return "the Effleurement"
    return None


def resolve_talisman(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-20..23 [D]: invoke the Talisman on a partial success against the supernatural."""
    _system(request, only=DRACULA, rule="JDR-20")
    character = request["character"]
    sheet = _sheet(character)
    _require_pc(character, "JDR-20", "the Talisman")
    action = _followed_action(request, "JDR-27")
    _same_scene(request, "JDR-20", "the Talisman")
    if not _effective_context(request).get("supernatural"):
        raise _refuse("JDR-22", "the Talisman works only in a proven supernatural confrontation")
    if action["result"]["tier"] != "partial_success":
        raise _refuse(
            "JDR-22", f"the Talisman turns a partial success, not a {action['result']['tier']}"
        )
    if "jdr.joker" in _follow_kinds(request):
        raise _refuse("JDR-27", "the Joker was used on this action")
    if "jdr.talisman" in _follow_kinds(request):
        raise _refuse("JDR-20", "the Talisman was already invoked on this action")
    if sheet["talisman"] != "ready":
        raise _refuse("JDR-22", f"the talisman is {sheet['talisman']}, not ready")
    if sheet.get("talisman_scene") == request["scene"]:
        raise _refuse("JDR-20", "the Talisman was already invoked in this scene")
    established = sheet.get("sacred_object_scene")
    if not sheet.get("sacred_object") or established is None or established >= request["scene"]:
        raise _refuse(
            "JDR-22", "no sacred object was established on the sheet before this scene started"
        )
    if sheet.get("faith") == "atheist" and not sheet.get("instructed_by"):
        raise _refuse("JDR-23", "an atheist invokes the Talisman only once a believer taught them")
    words = str(request["words"]).strip()
    if not words:
        raise InvalidInput("JDR-21: the player speaks a word of faith; words cannot be empty")
    used = _effect(
        str(character["id"]),
        "talisman_scene",
        sheet.get("talisman_scene"),
        request["scene"],
        "JDR-20",
    )
    return Resolution({"status": "pending", "words": words, "tier": "partial_success"}, [used])


def resolve_talisman_ruling(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-21: the GM rules on sincerity: upgrade and spend, or crack."""
    _system(request, only=DRACULA, rule="JDR-21")
    invocation = request["invocation"]
    if invocation["kind"] != "jdr.talisman":
        raise InvalidInput(f"follows must name a jdr.talisman entry, not {invocation['kind']}")
    if request.get("rulings"):
        raise _refuse("JDR-21", "this invocation was already ruled on")
    character = request["character"]
    sheet = _sheet(character)
    if sheet["talisman"] != "ready":
        raise _refuse("JDR-21", f"the talisman is {sheet['talisman']}, not ready")
    character_id = str(character["id"])
    if request["sincere"]:
        result = {
            "status": "sincere",
            "tier": "success",
            "label": TIER_LABELS["success"],
            "upgraded_from": "partial_success",
        }
        return Resolution(result, [_effect(character_id, "talisman", "ready", "spent", "JDR-21")])
    shaken = {"cracked_scene": int(request["scene"]), "confrontation_scene": None}
    effects = [
        _effect(character_id, "talisman", "ready", "cracked", "JDR-21"),
        _effect(character_id, "faith_shaken", sheet.get("faith_shaken"), shaken, "JDR-24"),
    ]
    result = {
        "status": "insincere",
        "tier": "partial_success",
        "label": TIER_LABELS["partial_success"],
    }
    return Resolution(result, effects)


def resolve_effleurement(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-28/29 [C]: accept a durable mark to turn a partial success into a success."""
    _system(request, only=CTHULHU, rule="JDR-28")
    character = request["character"]
    sheet = _sheet(character)
    _require_pc(character, "JDR-28", "the Effleurement")
    action = _followed_action(request, "JDR-27")
    _same_scene(request, "JDR-28", "the Effleurement")
    if action["result"]["tier"] != "partial_success":
        raise _refuse(
            "JDR-28", f"the Effleurement turns a partial success, not a {action['result']['tier']}"
        )
    domain = _effective_context(request).get("domain", "other")
    if domain not in EFFLEUREMENT_DOMAINS:
        raise _refuse(
            "JDR-29",
            f"the Effleurement works on investigation, erudition, observation, occult or "
            f"mythos rolls, not {domain}",
        )
    if "jdr.joker" in _follow_kinds(request):
        raise _refuse("JDR-27", "the Joker was used on this action")
    if _special_rule_used(request):
        raise _refuse("JDR-28", "the Effleurement was already used on this action")
    if sheet["effleurement"] != "ready":
        raise _refuse(
            "JDR-28", "the Effleurement is spent; it recharges with safe sleep or a sacrifice"
        )
    if sheet.get("effleurement_scene") == request["scene"]:
        raise _refuse("JDR-28", "the Effleurement was already used in this scene")
    description = str(request["mark"]).strip()
    if not description:
        raise InvalidInput("JDR-28: the player describes the mark; it cannot be empty")
    character_id = str(character["id"])
    mark = {"description": description, "counted": True, "scene": int(request["scene"])}
    marks_after = [*sheet["marks"], mark]
    effects = [
        _effect(character_id, "marks", sheet["marks"], marks_after, "JDR-28"),
        _effect(character_id, "effleurement", "ready", "spent", "JDR-28"),
        _effect(
            character_id,
            "effleurement_scene",
            sheet.get("effleurement_scene"),
            request["scene"],
            "JDR-28",
        ),
        *_npc_effect(character, sheet, marks_after),
    ]
    result = {
        "status": "applied",
        "tier": "success",
        "label": TIER_LABELS["success"],
        "upgraded_from": "partial_success",
        "mark": mark,
        "counted_marks": _counted_marks(marks_after),
    }
    return Resolution(result, effects)


def resolve_effleurement_refusal(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-29: the GM refuses an Effleurement (no link to a hidden truth); it is undone."""
    _system(request, only=CTHULHU, rule="JDR-29")
    effleurement = request["effleurement"]
    if effleurement["kind"] != "jdr.effleurement":
        raise InvalidInput(
            f"follows must name a jdr.effleurement entry, not {effleurement['kind']}"
        )
    if request.get("refusals"):
        raise _refuse("JDR-29", "this Effleurement was already refused")
    character = request["character"]
    sheet = _sheet(character)
    character_id = str(character["id"])
    mark = effleurement["result"]["mark"]
    marks = list(sheet["marks"])
    if mark not in marks:
        raise _refuse("JDR-29", "the mark of this Effleurement is no longer on the sheet")
    index = len(marks) - 1 - marks[::-1].index(mark)
    marks_after = marks[:index] + marks[index + 1 :]
    effects = [_effect(character_id, "marks", sheet["marks"], marks_after, "JDR-29")]
    if sheet["effleurement"] == "spent":
        effects.append(_effect(character_id, "effleurement", "spent", "ready", "JDR-29"))
    for used in effleurement.get("effects", []):
        # A refused Effleurement was never used: the scene's one use is given back.
        if (
            used.get("field") == "effleurement_scene"
            and sheet.get("effleurement_scene") != used["before"]
        ):
            effects.append(
                _effect(
                    character_id,
                    "effleurement_scene",
                    sheet.get("effleurement_scene"),
                    used["before"],
                    "JDR-29",
                )
            )
    became_npc = any(e.get("field") == "status" for e in effleurement.get("effects", []))
    if became_npc and sheet["status"] == "npc" and _counted_marks(marks_after) <= MAX_COUNTED_MARKS:
        effects.append(_effect(character_id, "status", "npc", "active", "JDR-42"))
    result = {
        "status": "refused",
        "tier": "partial_success",
        "label": TIER_LABELS["partial_success"],
        "reason": str(request.get("reason", "")),
    }
    return Resolution(result, effects)


def resolve_joker(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-25..27: reroll an action of direct peril once per session; the reroll is final."""
    _system(request)
    character = request["character"]
    sheet = _sheet(character)
    _require_pc(character, "JDR-25", "the Joker")
    action = _followed_action(request, "JDR-25")
    _same_scene(request, "JDR-25", "the Joker")
    context = _effective_context(request)
    if not context.get("direct_peril"):
        raise _refuse("JDR-25", "the Joker rerolls only an action that puts the PC in direct peril")
    if "jdr.joker" in _follow_kinds(request):
        raise _refuse("JDR-25", "this action was already rerolled; the second result is kept")
    used = _special_rule_used(request)
    if used:
        raise _refuse("JDR-27", f"{used} was used on this action; the Joker cannot be")
    if sheet["joker"] != "ready":
        raise _refuse("JDR-26", "the Joker was used this session; it recharges at the next one")
    # Same inputs as the action (JDR-25), read against the sheet as it is now.
    reroll = {**action["request"], "character": character, "context": context}
    rolled = _action(reroll, dice)
    result = {**rolled.result, "rerolls": int(action["seq"])}
    effects = [
        _effect(str(character["id"]), "joker", "ready", "spent", "JDR-25"),
        *rolled.effects,
    ]
    return Resolution(result, effects)


def resolve_context(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-14: the GM amends a disputed context before a follow-up applies."""
    _system(request)
    action = request["action"]
    if action["kind"] != "jdr.action":
        raise InvalidInput(f"follows must name a jdr.action entry, not {action['kind']}")
    before = _effective_context(request)
    return Resolution({"context": dict(request["context"]), "before": dict(before)})


# --- combat (JDR-30..38) -----------------------------------------------------------------


def defense_of(sheet: Mapping[str, Any]) -> int:
    """JDR-2/JDR-30: mental + physique + social + equipment bonus."""
    traits = sheet["traits"]
    return (
        int(traits["mental"])
        + int(traits["physique"])
        + int(traits["social"])
        + int(sheet.get("defense_bonus", 0))
    )


def severity_of(margin: int) -> str | None:
    """JDR-33: 1-4 light, 5-9 serious, 10+ critical, 0 or less a miss."""
    if margin <= 0:
        return None
    if margin <= 4:
        return "light"
    if margin <= 9:
        return "serious"
    return "critical"


def _creature_bonus(weapon: Mapping[str, Any], target_tags: set[str]) -> list[dict[str, Any]]:
    """JDR-36/37: an ash stake against the undead, silver against creatures."""
    bonuses = []
    tags = set(weapon.get("tags", []))
    if "ash_stake" in tags and target_tags & {"undead", "vampire"}:
        bonuses.append({"rule": "JDR-36", "steps": 1})
    if "silver" in tags and target_tags & CREATURE_TAGS:
        bonuses.append({"rule": "JDR-37", "steps": 1})
    return bonuses


def _wound_effect(target: Mapping[str, Any], wound: dict[str, Any], rule: str) -> Effect:
    sheet = _sheet(target)
    return _effect(str(target["id"]), "wounds", sheet["wounds"], [*sheet["wounds"], wound], rule)


def resolve_attack(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-30..38: 2D6 + physique + weapon against Defense; margin reads the wound."""
    system = _system(request)
    attacker, target = request["attacker"], request["target"]
    attacker_sheet, target_sheet = _sheet(attacker), _sheet(target)
    for who, sheet in ((attacker, attacker_sheet), (target, target_sheet)):
        if sheet.get("destroyed"):
            raise _refuse("JDR-36", f"{who.get('name', 'the creature')} was destroyed for good")
    weapon = request["weapon"]
    scene = int(request["scene"])
    target_tags = set(target_sheet.get("tags", []))
    supernatural = bool(target_tags & CREATURE_TAGS) or bool(request["context"].get("supernatural"))
    burdens = []
    if _uncared_serious_wound(attacker_sheet):
        burdens.append("serious_wound")  # JDR-33, JDR-34
    shaken = system == DRACULA and _faith_shaken_applies(attacker_sheet, scene, supernatural)
    if shaken:
        burdens.append("faith_shaken")  # JDR-24
    roll = roll_2d6(
        dice, bool(request["advantage"]), bool(request["disadvantage"]) or bool(burdens)
    )
    physique = int(attacker_sheet["traits"]["physique"])
    # JDR-35..38 belong to Dracula, where the supernatural is real.
    creature_bonuses = _creature_bonus(weapon, target_tags) if system == DRACULA else []
    steps = int(weapon.get("damage_bonus", 0)) + sum(b["steps"] for b in creature_bonuses)
    total = roll["kept_sum"] + physique + int(weapon.get("bonus", 0)) + steps  # JDR-32
    defense = defense_of(target_sheet)
    margin = total - defense
    severity = severity_of(margin)
    result: dict[str, Any] = {
        "mode": roll["mode"],
        "dice": roll["dice"],
        "kept": roll["kept"],
        "physique": physique,
        "weapon_bonus": int(weapon.get("bonus", 0)),
        "damage_steps": steps,
        "creature_bonuses": creature_bonuses,
        "auto_disadvantage": burdens,
        "total": total,
        "defense": defense,
        "margin": margin,
        "hit": severity is not None,
        "severity": severity,
        "label": WOUND_LABELS[severity] if severity else "Raté",
    }
    effects = _mark_confrontation(str(attacker["id"]), attacker_sheet, scene) if shaken else []
    if (
        system == DRACULA
        and request.get("sleeping_target")
        and "ash_stake" in weapon.get("tags", [])
        and "vampire" in target_tags
        and tier_of(total) in ("success", "critical_success")
    ):
        # JDR-36: a success or better in the heart of a sleeping vampire ends it for good.
        result["destroyed"] = True
        effects.append(_effect(str(target["id"]), "destroyed", False, True, "JDR-36"))
        return Resolution(result, effects)
    if severity is not None:
        note = f"{weapon['name']}, marge {margin}"
        effects.append(
            _wound_effect(target, {"severity": severity, "note": note, "cared": False}, "JDR-33")
        )
    return Resolution(result, effects)


def resolve_holy_water(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-35 [D]: holy water thrown by hand: a light wound to a vampire, no roll."""
    _system(request, only=DRACULA, rule="JDR-35")
    target = request["target"]
    sheet = _sheet(target)
    if "vampire" not in sheet.get("tags", []):
        raise _refuse("JDR-35", "holy water harms only vampires (tag the target 'vampire')")
    if sheet.get("destroyed"):
        raise _refuse("JDR-36", "the target was destroyed for good")
    wound = {"severity": "light", "note": "eau bénite", "cared": False}
    result = {"hit": True, "severity": "light", "label": WOUND_LABELS["light"]}
    return Resolution(result, [_wound_effect(target, wound, "JDR-35")])


def resolve_initiative(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-30a/31/31a: 2D6 + physique (+2 surprise); ties PC first, then the tie-breaks."""
    _system(request)
    combatants = request["combatants"]
    already = set(request.get("already_rolled", []))
    repeated = [c["name"] for c in combatants if c["id"] in already]
    if repeated:
        raise _refuse(
            "JDR-31", f"initiative is rolled once per scene; already rolled: {', '.join(repeated)}"
        )
    rows = []
    for combatant in combatants:
        # JDR-3: a serious wound burdens every roll of its bearer, initiative included.
        wounded = _uncared_serious_wound({"wounds": combatant.get("wounds", [])})
        roll = roll_2d6(dice, False, wounded)
        surprise = 2 if combatant.get("surprise") else 0
        row = {
            "character_id": combatant["id"],
            "name": combatant["name"],
            "kind": combatant["kind"],
            "dice": roll["dice"],
            "physique": int(combatant["physique"]),
            "surprise": surprise,
            "total": roll["kept_sum"] + int(combatant["physique"]) + surprise,
            "off_guard": bool(combatant.get("off_guard")),
            "rolloff": [],
        }
        if wounded:
            row.update({"kept": roll["kept"], "mode": roll["mode"]})
        rows.append(row)
    # JDR-31: who already rolled in this scene keeps their total (a newcomer joins them).
    for kept in request.get("carried", []):
        rows.append({**kept, "rolloff": list(kept.get("rolloff", [])), "carried": True})
    chosen = [str(x) for x in request.get("order") or []]
    # JDR-31a: whoever is caught off guard acts last in the first round.
    ordered = _order([r for r in rows if not r["off_guard"]], chosen, dice) + _order(
        [r for r in rows if r["off_guard"]], chosen, dice
    )
    for rank, row in enumerate(ordered, start=1):
        row["rank"] = rank
    # After the first round the surprise bonus and the off-guard penalty lapse (JDR-31a);
    # the totals stand for the whole scene (JDR-31), ties kept as first ruled.
    later = sorted(
        ordered, key=lambda r: (-(r["total"] - r["surprise"]), r["kind"] != "pc", r["rank"])
    )
    return Resolution({"order": ordered, "later_rounds": [r["character_id"] for r in later]})


def _order(rows: list[dict[str, Any]], chosen: list[str], dice: DiceSource) -> list[dict[str, Any]]:
    """Highest total first; on a tie PCs before NPCs, then the GM's order, physique, a roll-off."""
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((-row["total"], 0 if row["kind"] == "pc" else 1), []).append(row)
    ordered: list[dict[str, Any]] = []
    for key in sorted(groups):
        ordered.extend(_break_tie(groups[key], chosen, dice))
    return ordered


def _break_tie(
    tied: list[dict[str, Any]], chosen: list[str], dice: DiceSource
) -> list[dict[str, Any]]:
    if len(tied) == 1:
        return tied
    # The players choose, through the GM's explicit order (JDR-30a).
    ranked = [r for r in tied if r["character_id"] in chosen]
    ranked.sort(key=lambda r: chosen.index(r["character_id"]))
    rest = [r for r in tied if r["character_id"] not in chosen]
    by_physique: dict[int, list[dict[str, Any]]] = {}
    for row in rest:
        by_physique.setdefault(-row["physique"], []).append(row)
    for key in sorted(by_physique):
        ranked.extend(_roll_off(by_physique[key], dice))
    return ranked


def _roll_off(tied: list[dict[str, Any]], dice: DiceSource) -> list[dict[str, Any]]:
    return roll_off(tied, dice, 6)


# --- Mythos (JDR-40..43) -----------------------------------------------------------------


def resolve_mythos(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-40..42 [C]: a Mental test against forbidden knowledge, and its mandatory cost."""
    _system(request, only=CTHULHU, rule="JDR-40")
    character = request["character"]
    sheet = _sheet(character)
    burdens = ["serious_wound"] if _uncared_serious_wound(sheet) else []
    roll = roll_2d6(
        dice, bool(request["advantage"]), bool(request["disadvantage"]) or bool(burdens)
    )
    mental = int(sheet["traits"]["mental"])
    total = roll["kept_sum"] + mental
    difficulty = int(request["difficulty"])
    if total <= 5:
        outcome = "critical_failure"
    elif total >= difficulty:
        outcome = "success"
    else:
        outcome = "failure"
    result: dict[str, Any] = {
        "mode": roll["mode"],
        "dice": roll["dice"],
        "kept": roll["kept"],
        "mental": mental,
        "auto_disadvantage": burdens,
        "total": total,
        "difficulty": difficulty,
        "outcome": outcome,
        "label": MYTHOS_LABELS[outcome],
    }
    if outcome == "failure":
        result["cost"] = "the GM decides the cost (JDR-41)"
        return Resolution(result)
    source = str(request["source"])
    detail = request.get("detail") or f"Savoir interdit : {source}"
    # JDR-41: success leaves a narrative detail; a critical failure a durable, counted mark.
    mark = {
        "description": detail,
        "counted": outcome == "critical_failure",
        "scene": int(request["scene"]),
    }
    marks_after = [*sheet["marks"], mark]
    character_id = str(character["id"])
    effects = [
        _effect(character_id, "marks", sheet["marks"], marks_after, "JDR-41"),
        *_npc_effect(character, sheet, marks_after),
    ]
    result["mark"] = mark
    result["counted_marks"] = _counted_marks(marks_after)
    return Resolution(result, effects)


# --- GM-recorded events (JDR-3, JDR-24, JDR-29a) ----------------------------------------


def resolve_sacrifice(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-29a [C]: a voluntary sacrifice of knowledge recharges the Effleurement."""
    _system(request, only=CTHULHU, rule="JDR-29a")
    character = request["character"]
    sheet = _sheet(character)
    if sheet["effleurement"] != "spent":
        raise _refuse("JDR-29a", "the Effleurement is ready; there is nothing to recharge")
    effect = _effect(str(character["id"]), "effleurement", "spent", "ready", "JDR-29a")
    return Resolution(
        {"recharged": "effleurement", "description": request["description"]}, [effect]
    )


def resolve_penance(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-24 [D]: only a sincere penance scene restores a cracked talisman."""
    _system(request, only=DRACULA, rule="JDR-24")
    character = request["character"]
    sheet = _sheet(character)
    if sheet["talisman"] != "cracked":
        raise _refuse(
            "JDR-24", f"penance restores a cracked talisman; this one is {sheet['talisman']}"
        )
    character_id = str(character["id"])
    effects = [
        _effect(character_id, "talisman", "cracked", "ready", "JDR-24"),
        _effect(character_id, "faith_shaken", sheet.get("faith_shaken"), None, "JDR-24"),
    ]
    return Resolution({"restored": "talisman", "description": request["description"]}, effects)


def resolve_medical_care(request: Mapping[str, Any], dice: DiceSource) -> Resolution:
    """JDR-3/JDR-33: medical care lifts the Disadvantage of serious wounds."""
    _system(request)
    character = request["character"]
    sheet = _sheet(character)
    wounds = [dict(w) for w in sheet["wounds"]]
    treated = 0
    for wound in wounds:
        if wound["severity"] == "serious" and not wound.get("cared"):
            wound["cared"] = True
            treated += 1
    if not treated:
        raise _refuse("JDR-3", "no serious wound awaits medical care")
    effect = _effect(str(character["id"]), "wounds", sheet["wounds"], wounds, "JDR-3")
    return Resolution({"cared": treated, "description": request.get("description", "")}, [effect])


# --- clock recharges (JDR-24, JDR-26, JDR-29a) -------------------------------------------


def recharges(request: Mapping[str, Any]) -> list[Effect]:
    """What a session or scene start recharges, from the GM's facts and the sheets."""
    effects: list[Effect] = []
    new_session = bool(request.get("new_session"))
    night = bool(request.get("night_passed"))
    for character in request.get("characters", []):
        if character.get("kind") != "pc":
            continue
        sheet = character.get("sheet") or {}
        character_id = str(character["character_id"])
        if new_session and sheet.get("joker") == "spent":
            effects.append(_effect(character_id, "joker", "spent", "ready", "JDR-26"))
        if night and character.get("recollected") and sheet.get("talisman") == "spent":
            effects.append(_effect(character_id, "talisman", "spent", "ready", "JDR-24"))
        if night and character.get("slept_safely") and sheet.get("effleurement") == "spent":
            effects.append(_effect(character_id, "effleurement", "spent", "ready", "JDR-29a"))
    return effects


def on_sheet_edit(
    before: Mapping[str, Any] | None, after: dict[str, Any], scene: int
) -> dict[str, Any]:
    """JDR-22: the scene a sacred object was established in is the rules' to record.

    Whatever the edit sent for it, it is the current scene when the object changes and
    stays as it was otherwise, so nobody can backdate an object into an earlier scene.
    """
    if "sacred_object" not in after:
        return after
    if before is None or before.get("sacred_object") != after["sacred_object"]:
        after["sacred_object_scene"] = scene if after["sacred_object"] else None
    else:
        after["sacred_object_scene"] = before.get("sacred_object_scene")
    return after


ROLL_KINDS: Final[dict[str, Any]] = {
    "jdr.action": resolve_action,
    "jdr.talisman": resolve_talisman,
    "jdr.talisman_ruling": resolve_talisman_ruling,
    "jdr.effleurement": resolve_effleurement,
    "jdr.effleurement_refusal": resolve_effleurement_refusal,
    "jdr.joker": resolve_joker,
    "jdr.attack": resolve_attack,
    "jdr.holy_water": resolve_holy_water,
    "jdr.initiative": resolve_initiative,
    "jdr.mythos": resolve_mythos,
}
EVENT_KINDS: Final[dict[str, Any]] = {
    "jdr.context": resolve_context,
    "jdr.sacrifice": resolve_sacrifice,
    "jdr.penance": resolve_penance,
    "jdr.medical_care": resolve_medical_care,
}

register_all(ROLL_KINDS, EVENT_KINDS)
RECHARGES["jdr"] = recharges
