"""The exact odds of pushing an attack (FAB-31 corrected; issue 21), timed in process.

A pushed roll with consequences is replayed through its kind's own resolve for the classes
of its rerolled dice (swept by their sixes, odds_sweep.py), the fresh protection dice
counted after the replay. This measures cold answers (each request distinct, so none comes
from the cache) of a repeating-rifle shot that missed with every die showing 3, at a target
in factory plate behind cover, for growing pools: Habileté 5 + Tir 3 + aimed, plus 0..10
modifiers of +6, and stress dice on top up to the sheet's most (99, FAB-40).

    python -m bench.pushed_odds [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from app.engine.contract import to_json
from app.engine.errors import RuleRefusal
from app.engine.rulesets.fabulae.damage import ATTACK
from app.engine.rulesets.fabulae.push import PUSH
from app.engine.rulesets.fabulae.sheet import FabulaeSheet

CORRECTED = 2
SHOOTER = {
    "attributes": {"physique": 5, "habilete": 5, "intellect": 5, "empathie": 5},
    "skills": {"combat": 3, "tir": 3},
    "destiny": 3,
    "weapons": [{"id": "repeating_rifle", "ammo": 8}],
}
PLATED = {
    "attributes": {"physique": 5, "habilete": 5, "intellect": 5, "empathie": 5},
    "armor": {"id": "factory_plate"},
}


def _character(sheet: dict[str, Any], cid: str) -> dict[str, Any]:
    valid = FabulaeSheet.model_validate(sheet, context={"options": {"powers_allowed": True}})
    return {"id": cid, "name": cid, "kind": "pc", "sheet": valid.model_dump(mode="json")}


class _Threes:
    """Every die a 3: a miss with every die of the pool rerolled by the push."""

    def __init__(self) -> None:
        self.draws: list[dict[str, int]] = []

    def roll(self, sides: int) -> int:
        self.draws.append({"sides": sides, "face": 3})
        return 3


def push_request(modifiers: int, cover: int, session: int, stress: int = 0) -> tuple[Any, int]:
    """A distinct request for each session number: none is answered from the cache."""
    shooter = {**SHOOTER, "stress": stress}
    attack = {
        "system": "fabulae-tenebris",
        "session": session,
        "scene": 1,
        "attacker": _character(shooter, "fab00000-0000-4000-8000-000000000001"),
        "target": _character(PLATED, "fab00000-0000-4000-8000-000000000002"),
        "mode": "ranged",
        "weapon": "repeating_rifle",
        "defense": "none",
        "aimed": True,
        "cover": cover,
        "modifiers": [{"source": f"bench {n}", "dice": 6} for n in range(modifiers)],
    }
    request = ATTACK.request.model_validate(attack)
    dice = _Threes()
    resolution = ATTACK.resolve(request, dice, CORRECTED)
    now = []
    for who in (request.attacker, request.target):  # the sheets as the roll left them
        sheet = who.sheet.model_dump(mode="json")
        for change in resolution.effects:
            if change.character_id == who.id:
                sheet[change.field] = to_json(change.after)
        now.append({**who.model_dump(mode="json"), "sheet": sheet})
    followed = {"seq": 3, "kind": "fabulae.attack", "request": request.dump(), "result": {}}
    push = {
        "system": "fabulae-tenebris",
        "session": session,
        "scene": 1,
        "character": now[0],
        "action": {**followed, "draws": dice.draws},
        "now": now,
    }
    return PUSH.request.model_validate(push), len(dice.draws)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="distinct requests per pool")
    repeat = parser.parse_args().repeat
    assert PUSH.odds is not None
    covers = (0, 3, 4, 5, 6, 8)
    print("modifiers  stress  dice  p50 ms  max ms  refused")
    for modifiers, stress in ((0, 0), (2, 0), (5, 0), (10, 0), (10, 10), (10, 99)):
        times, refused = [], 0
        for index in range(repeat):
            cover = covers[index % len(covers)]
            request, dice = push_request(modifiers, cover, index + 1, stress)
            started = time.perf_counter()
            try:
                PUSH.odds(request, CORRECTED)
            except RuleRefusal:  # past the replays one request may ask for (MAX_REPLAYS)
                refused += 1
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(
            f"{modifiers:9d}  {stress:6d}  {dice:4d}  {times[len(times) // 2]:6.0f}  "
            f"{times[-1]:6.0f}  {refused:7d}"
        )


if __name__ == "__main__":
    main()
