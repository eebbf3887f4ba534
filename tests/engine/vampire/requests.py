"""Vampire requests as the service records them (clock, options, character snapshot),
written by hand for the engine tests; the kinds' request models check every shape."""

from __future__ import annotations

from typing import Any

from app.engine.dice import ReplayDice

SYSTEM = "vampire"
PC = "7a3e0000-0000-4000-8000-000000000001"
SESSION, SCENE = 3, 5
FACES = range(1, 11)
POOLS = (1, 2, 3, 4)
DIFFICULTIES = range(2, 11)
# VAM-11, written out.
DIFFICULTY_LABELS = {
    2: None,
    3: "Routinier",
    4: "Facile",
    5: "Simple",
    6: "Moyen",
    7: "Exigeant",
    8: "Difficile",
    9: "Très difficile",
    10: "Extrêmement difficile",
}
OPTIONS = {"blank_botch": False, "retry_penalty": True}  # VampireOptions' defaults


def make_sheet(
    attribute: str = "astuce",
    value: int = 3,
    abilities: dict[str, int] | None = None,
    willpower: tuple[int, int] = (5, 5),
    blank_botch_session: int | None = None,
) -> dict[str, Any]:
    attributes = {
        name: 2
        for name in (
            "force",
            "dexterite",
            "vigueur",
            "charisme",
            "manipulation",
            "apparence",
            "perception",
            "intelligence",
            "astuce",
        )
    }
    attributes[attribute] = value
    return {
        "attributes": attributes,
        "abilities": dict(abilities or {}),
        "willpower": {"max": willpower[0], "current": willpower[1]},
        "blank_botch_session": blank_botch_session,
    }


def d10(*faces: int) -> ReplayDice:
    return ReplayDice([{"sides": 10, "face": face} for face in faces])
