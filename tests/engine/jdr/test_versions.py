"""Rules version 4 changed results (the corrections of 2026-11-30); an entry made under
version 3 replays under version 3's rules. The same request, resolved by each."""

from __future__ import annotations

from typing import Any

from tests.engine.jdr.requests import (
    C,
    D,
    action_req,
    attack_req,
    cthulhu_sheet,
    dice,
    dracula_sheet,
    make_weapon,
    mythos_req,
)
from tests.engine.rules import Resolved, resolve

V3, V4 = "jdr-express@3", "jdr-express@4"


def both(kind: str, request: dict[str, Any], faces: tuple[int, ...]) -> tuple[Resolved, Resolved]:
    return (
        resolve(kind, request, dice(faces), rules=V3),
        resolve(kind, request, dice(faces), rules=V4),
    )


def test_JDR_13_a_difficulty_roll_kept_its_tier_before_version_4() -> None:
    request = action_req(C, cthulhu_sheet(), difficulty=12)  # mental 3
    old, new = both("jdr.action", request, (4, 4))  # 11
    assert old.result["tier"] == "success" and old.result["label"] == "Succès complet"
    assert "tier" not in new.result and new.result["label"] == "Échec"
    assert old.result["success"] is new.result["success"] is False
    assert "modifier" not in old.result and new.result["modifier"] == 0


def test_JDR_33_labels_and_the_critical_burden_by_version() -> None:
    target = dracula_sheet(traits={"mental": 1, "physique": 1, "social": 1})
    request = attack_req(D, dracula_sheet(), target)  # physique 3 against Defense 3
    old, new = both("jdr.attack", request, (3, 3))  # 9: margin 6
    assert old.result["label"] == "Blessure grave" and new.result["label"] == "Blessure sérieuse"
    assert "wound_effect" not in old.result
    critical = [{"severity": "critical", "note": "", "cared": False}]
    wounded = action_req(D, dracula_sheet(wounds=critical))
    old, new = (
        resolve("jdr.action", wounded, dice((3, 3)), rules=V3),
        resolve("jdr.action", wounded, dice((3, 3, 3)), rules=V4),
    )
    assert old.result["auto_disadvantage"] == [] and old.result["mode"] == "normal"
    assert new.result["auto_disadvantage"] == ["critical_wound"]


def test_JDR_36_a_sleeping_vampire_was_opposed_by_its_defense_before_version_4() -> None:
    vampire = dracula_sheet(traits={"mental": 2, "physique": 3, "social": 1}, tags=["vampire"])
    stake = make_weapon("Pieu de frêne", tags=["ash_stake"])
    request = attack_req(D, dracula_sheet(), vampire, weapon=stake, sleeping=True)
    old, new = both("jdr.attack", request, (3, 3))  # 6 + 3 + 1 = 10: partial
    assert old.result["severity"] == "light" and old.effects[0]["field"] == "wounds"
    assert new.result["label"] == "Réveillé, indemne" and new.effects == []


def test_JDR_37_silver_and_werewolves_by_version() -> None:
    wolf = dracula_sheet(traits={"mental": 1, "physique": 4, "social": 0}, tags=["werewolf"])
    sabre = make_weapon(damage=1)
    old, new = both("jdr.attack", attack_req(D, dracula_sheet(), wolf, weapon=sabre), (6, 6))
    assert old.result["severity"] == "critical" and old.effects
    assert new.result["severity"] is None and new.result["wound_effect"] == "only_silver"
    assert new.effects == []
    silver = make_weapon("Lame d'argent", damage=2, tags=["silver"])
    old, new = both("jdr.attack", attack_req(D, dracula_sheet(), wolf, weapon=silver), (1, 1))
    assert old.result["creature_bonuses"] == [{"rule": "JDR-37", "steps": 1}]
    assert new.result["creature_bonuses"] == [{"rule": "JDR-37", "steps": 2}]


def test_JDR_41_a_mythos_success_marked_at_once_before_version_4() -> None:
    request = mythos_req(cthulhu_sheet(), 9)  # mental 2
    old, new = both("jdr.mythos", request, (4, 3))
    assert old.result["mark"]["description"] == "Savoir interdit : Grimoire latin"
    assert new.result["mark_pending"] is True and new.effects == []
