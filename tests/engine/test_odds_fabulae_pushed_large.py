"""Issue 21: the odds of large pushes of rolls with consequences (FAB-31 corrected), counted
once per class of what the roll reads (its sixes, a stress die's 1) with the fresh
protection sixes counted after the replay (FAB-67), equal exactly the odds replayed once
per class of sixes, pool 1s and stress 1s and per fresh six (pushed_reference.py) on pools
too large for the brute force; past the replays a request may ask, still refused."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from app.engine.errors import RuleRefusal
from app.engine.rulesets.fabulae import odds_pushed
from app.engine.rulesets.fabulae.damage import ATTACK
from app.engine.rulesets.fabulae.dangers import DANGER
from app.engine.rulesets.fabulae.defense import DEFEND
from app.engine.rulesets.fabulae.grappling import BREAK_FREE, GRAPPLE
from app.engine.rulesets.fabulae.odds_push import rerolled
from app.engine.rulesets.fabulae.odds_pushed import computed_odds
from app.engine.rulesets.fabulae.odds_sweep import read_classes
from app.engine.rulesets.fabulae.powers import POWER
from app.engine.rulesets.fabulae.push import PUSH
from app.engine.rulesets.fabulae.recovery import RECOVER
from app.engine.rulesets.fabulae.sequelae import STABILIZE
from tests.engine.fabulae import combat
from tests.engine.fabulae.core import ALLY, PC, char, clock, make_sheet
from tests.engine.fabulae.pushed_reference import reference_odds
from tests.engine.test_odds_fabulae_power_push import caster
from tests.engine.test_odds_fabulae_pushed import LEATHER, lethal, pushing

P = pytest.param
CORRECTED = 2
PLATE = {"armor": {"id": "factory_plate"}}


def plus(count: int, dice: int = 2) -> list[dict[str, Any]]:
    return [{"source": f"bonus {n}", "dice": dice} for n in range(count)]


class Drawn:
    """The `head` faces, then `face` on every die after them, counting what is drawn."""

    def __init__(self, head: list[int], face: int) -> None:
        self.faces: list[int] = []
        self.head, self.face = head, face

    def roll(self, sides: int) -> int:
        index = len(self.faces)
        self.faces.append(self.head[index] if index < len(self.head) else min(self.face, sides))
        return self.faces[-1]

    @property
    def draws(self) -> list[Any]:
        return []


def faces_of(kind: Any, body: dict[str, Any], head: list[int], face: int = 3) -> list[int]:
    """`head`, then `face` on every die the roll draws after them."""
    source = Drawn(head, face)
    kind.resolve(kind.request.model_validate(body), source, CORRECTED)
    return source.faces


def attack(target: dict[str, Any], **inputs: Any) -> dict[str, Any]:
    shooter = combat.attacker_sheet(destiny=2, stress=inputs.pop("stress", 0))
    return combat.attack_req(
        shooter, combat.make_sheet(**target), "ranged", "revolver", target_kind="pc", **inputs
    )


def grapple(stress: int) -> dict[str, Any]:
    attacker = char(make_sheet({"physique": 2}, destiny=1, stress=stress), PC, "pc")
    target = char(make_sheet({"physique": 2}), ALLY, "pc")
    return {
        **clock(),
        "attacker": attacker,
        "target": target,
        "defense": "parry",
        "modifiers": plus(3),
    }


def cases() -> list[Any]:
    medic = make_sheet({"intellect": 3}, destiny=2, stress=2)
    care = {
        **clock(),
        "mode": "care",
        "healer": char(medic, ALLY),
        "track": "physical",
        "patient": char(make_sheet(states=["epuise", "meurtri"])),
        "helpers": 3,
        "modifiers": plus(2),
    }
    healer = make_sheet({"intellect": 5}, {"soin": 3}, destiny=1, stress=2)
    patient = make_sheet(sequelae=[{**lethal(), "delay": "round"}])
    stabilise = {
        **clock(),
        "healer": char(healer, ALLY),
        "patient": char(patient),
        "sequela": 0,
    }
    holder = char(make_sheet({"physique": 2}), ALLY, "pc")
    free = {
        **clock(),
        "character": char(make_sheet({"physique": 5}, destiny=1, stress=3, grappled_by=ALLY)),
        "holder": holder,
    }
    danger = combat.danger_req(
        combat.make_sheet({"physique": 5}, destiny=1, stress=2), "cold", "pc"
    )
    wise = {"intellect": 5}
    bolt = combat.power_req(
        caster("bolt", destiny=1, skill=3, attributes=wise),
        "bolt",
        1,
        [char(combat.make_sheet(**PLATE), ALLY, "pc")],
    )
    drain = combat.power_req(
        caster("drain", destiny=1, skill=3, attributes=wise),
        "drain",
        1,
        [char(combat.make_sheet(pp=3), ALLY, "pc")],
    )
    parried = combat.attack_req(
        combat.attacker_sheet(destiny=2, stress=1),
        combat.make_sheet(**PLATE),
        "melee",
        "wrench",
        target_kind="pc",
        defense="parry",
        modifiers=plus(4),
    )
    return [
        P(ATTACK, attack(PLATE, cover=6, modifiers=plus(5)), [], id="FAB-67-fresh-plate-cover"),
        P(ATTACK, attack(PLATE, stress=3, modifiers=plus(4)), [], id="FAB-42-stress-fresh"),
        P(ATTACK, attack(PLATE, cover=3, modifiers=plus(5)), [6, 6], id="FAB-67-replayed"),
        P(ATTACK, attack({}, modifiers=plus(6)), [1, 6], id="FAB-32-kept-one-unarmored"),
        P(ATTACK, parried, [], id="FAB-37-against-the-kept-parry"),
        P(DEFEND, {**clock(), "attack": parried}, [], id="FAB-62-defend"),
        P(GRAPPLE, grapple(2), [], id="FAB-63-grapple"),
        P(BREAK_FREE, free, [], id="FAB-63-break-free"),
        P(RECOVER, care, [], id="FAB-80-care"),
        P(STABILIZE, stabilise, [5, 1], id="FAB-52-stabilise"),
        P(DANGER, danger, [], id="FAB-73-cold"),
        P(POWER, bolt, [], id="FAB-102-bolt-fresh-plate"),
        P(POWER, drain, [], id="FAB-101-drain"),
    ]


@pytest.mark.parametrize(("kind", "body", "head"), cases())
def test_FAB_31_counted_pushes_equal_the_replay_of_every_class(
    kind: Any, body: dict[str, Any], head: list[int]
) -> None:
    push = PUSH.request.model_validate(pushing(kind, body, faces_of(kind, body, head)))
    counted = computed_odds(push, CORRECTED)
    assert counted == reference_odds(push, CORRECTED)
    assert sum(d.mean for d in counted.distributions if d.name == "destiny_spent") >= 1


def test_FAB_31_a_sixty_two_dice_push_is_answered_as_every_class_replayed() -> None:
    """Refused before issue 21's counted classes: 62 rerolled dice against a fresh armor die
    (FAB-67)."""
    body = attack(LEATHER, modifiers=plus(10, 6))
    push = PUSH.request.model_validate(pushing(ATTACK, body, [3] * 62))
    assert computed_odds(push, CORRECTED) == reference_odds(push, CORRECTED)


def test_FAB_42_a_large_push_with_stress_dice_is_answered_as_every_class_replayed() -> None:
    """62 pool dice and 30 stress dice (FAB-42): a Panic swept apart from the rest."""
    body = attack(LEATHER, stress=30, modifiers=plus(10, 6))
    push = PUSH.request.model_validate(pushing(ATTACK, body, [3] * 92))
    assert computed_odds(push, CORRECTED) == reference_odds(push, CORRECTED)


def large_cases() -> list[Any]:
    medic = make_sheet({"intellect": 5}, {"soin": 3}, destiny=2, stress=4)
    care = {
        **clock(),
        "mode": "care",
        "healer": char(medic, ALLY),
        "track": "physical",
        "patient": char(make_sheet(states=["epuise", "meurtri"])),
        "helpers": 3,
        "modifiers": plus(10, 6),
    }
    strong = make_sheet({"physique": 5}, {"combat": 3}, destiny=1, stress=3)
    hold = {
        **clock(),
        "attacker": char(strong, PC, "pc"),
        "target": char(make_sheet({"physique": 3}), ALLY, "pc"),
        "defense": "parry",
        "modifiers": plus(10, 6),
    }
    dimming = combat.power_req(
        caster("light_dark", destiny=1, skill=3, attributes={"intellect": 5}, stress=6),
        "light_dark",
        3,
    )
    hardy = combat.make_sheet({"physique": 5}, {"resistance": 3}, destiny=1, stress=5)
    poison = combat.danger_req(hardy, "poison", "pc", intensity=9)
    drowning = combat.danger_req(hardy, "drowning", "pc")
    return [
        P(DANGER, poison, id="FAB-73-poison-against-its-dice"),
        P(DANGER, drowning, id="FAB-73-drowning-sinks"),
        P(RECOVER, care, id="FAB-80-a-large-care"),
        P(GRAPPLE, hold, id="FAB-63-a-large-grapple"),
        P(POWER, dimming, id="FAB-102-light-dark-malus-jumps"),
    ]


@pytest.mark.parametrize(("kind", "body"), large_cases())
def test_FAB_31_large_pushes_of_every_reading_are_answered_as_every_class_replayed(
    kind: Any, body: dict[str, Any]
) -> None:
    """Tests, opposed rolls and a power whose malus jumps from −2 to −4 at its first
    Prouesse (FAB-102): the runs of sixes whose ends do not agree are halved."""
    push = PUSH.request.model_validate(pushing(kind, body, faces_of(kind, body, [])))
    assert computed_odds(push, CORRECTED) == reference_odds(push, CORRECTED)


def test_FAB_31_a_push_past_the_replays_one_request_may_ask_is_refused_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each replay runs the roll's own rules: a push whose classes would need more replays
    than a request may ask is refused with the reason (the push itself is still made)."""
    monkeypatch.setattr(odds_pushed, "MAX_REPLAYS", 4)
    body = attack(PLATE, cover=8, modifiers=plus(3))
    push = PUSH.request.model_validate(pushing(ATTACK, body, faces_of(ATTACK, body, [])))
    with pytest.raises(RuleRefusal, match="than the 4 answered at once") as said:
        computed_odds(push, CORRECTED)
    assert said.value.rule == "FAB-31" and "8 rerolled dice and 12 fresh ones" in said.value.detail


@pytest.mark.parametrize(("pool", "stress"), [(0, 3), (4, 0), (3, 2), (5, 4)])
def test_FAB_42_read_classes_count_every_reroll(pool: int, stress: int) -> None:
    """Each class's ways by a 1 among the rerolled dice sum to 6^n, and match the pool's
    and the stress dice's own counts (FAB-11, FAB-32, FAB-42)."""
    classes = read_classes(pool, stress)
    assert sum(sum(by_one.values()) for by_one in classes.values()) == 6 ** (pool + stress)
    panics = sum(ways for (_, panic), by in classes.items() if panic for ways in by.values())
    assert panics == sum(w for (_, one), w in rerolled(stress).items() if one) * 6**pool
    for (sixes, panic), by_one in classes.items():
        assert 0 <= sixes <= pool + stress - int(panic)
        assert not panic or set(by_one) == {True}


def test_FAB_42_the_largest_push_a_sheet_allows_is_answered_in_few_replays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Habileté 5 + Tir 3 + aimed + ten modifiers of +6 and 99 stress dice (FAB-40), every
    die a 3, at factory plate behind a fortification (FAB-67): 171 rerolled dice, swept in
    fewer than 30 replays. Its Panic is a stress die's 1 among 99 (FAB-42), and its price a
    1 among all 171 (FAB-32)."""
    monkeypatch.setattr(odds_pushed, "MAX_REPLAYS", 30)
    shooter = combat.make_sheet(
        {"habilete": 5},
        {"tir": 3},
        destiny=2,
        stress=99,
        weapons=[{"id": "repeating_rifle", "ammo": 8}],
    )
    body = combat.attack_req(
        shooter,
        combat.make_sheet(**PLATE),
        "ranged",
        "repeating_rifle",
        target_kind="pc",
        aimed=True,
        cover=8,
        modifiers=plus(10, 6),
    )
    faces = faces_of(ATTACK, body, [])
    push = PUSH.request.model_validate(pushing(ATTACK, body, faces))
    odds = computed_odds(push, CORRECTED)
    laws = {d.name: {v.value: Fraction(v.exact) for v in d.values} for d in odds.distributions}
    calm = Fraction(5, 6) ** 99
    assert laws["panics"] == {0: calm, 1: 1 - calm}
    assert laws["state_price"] == {0: Fraction(5, 6) ** 171, 1: 1 - Fraction(5, 6) ** 171}
    assert sum(Fraction(o.exact) for o in odds.outcomes) == 1


class Drawing:
    """Seeded faces, a 6 and a 1 twice as likely as in play so that kept dice show up."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        face = self.rng.choice([1, 2, 3, 4, 5, 6, 6]) if sides == 6 else self.rng.randint(1, sides)
        self.faces.append(face)
        return face


def drawn_body(rng: random.Random) -> tuple[Any, dict[str, Any]]:
    """An attack, a power's caster roll or a danger's save, its pools and sheets drawn."""
    pick = rng.random()
    if pick < 0.5:
        armor = rng.choice([{}, LEATHER, PLATE])
        mode = rng.choice(["ranged", "melee"])
        extra: dict[str, Any] = {"modifiers": plus(rng.randint(0, 4))}
        if mode == "ranged":
            extra["cover"] = rng.choice([0, 3, 5])
        else:
            extra["defense"] = rng.choice(["none", "parry", "dodge"])
        talents = ["cogneur"] if rng.random() < 0.3 else []
        shooter = combat.attacker_sheet(destiny=2, stress=rng.choice([0, 1, 3]), talents=talents)
        weapon = "revolver" if mode == "ranged" else "wrench"
        target = combat.make_sheet(**armor)
        kind = rng.choice(["pc", "npc"])
        return ATTACK, combat.attack_req(shooter, target, mode, weapon, target_kind=kind, **extra)
    if pick < 0.75:
        power = rng.choice(["bolt", "light_dark", "silence_noise", "drain"])
        target = rng.choice([{}, LEATHER, PLATE, {"pp": 1}, {"pp": 3}])
        targets = [char(combat.make_sheet(**target), ALLY, "pc")]
        wise = {"intellect": rng.randint(1, 5)}
        sheet = caster(power, destiny=1, skill=rng.randint(0, 3), attributes=wise)
        sheet["stress"] = rng.choice([0, 1, 3])
        chosen = targets if power in ("bolt", "drain") else []
        return POWER, combat.power_req(sheet, power, rng.randint(1, 2), chosen)
    danger = rng.choice(["cold", "poison", "disease", "drowning"])
    sheet = combat.make_sheet(
        {"physique": rng.randint(1, 5)},
        {"resistance": rng.randint(0, 3)},
        destiny=1,
        stress=rng.choice([0, 1, 3]),
    )
    phase = rng.choice(["float", "sink"])
    return DANGER, combat.danger_req(
        sheet, danger, rng.choice(["pc", "npc"]), intensity=rng.randint(3, 6), phase=phase
    )


@pytest.mark.parametrize("seed", range(8))
def test_FAB_31_drawn_pushes_equal_the_replay_of_every_class(seed: int) -> None:
    """Seeded attacks, caster rolls and saves, each pushed from faces drawn at random: the
    counted odds equal the replay of every class, or both refuse (a panicked roll)."""
    rng = random.Random(seed)
    answered = 0
    for _ in range(12):
        kind, body = drawn_body(rng)
        drawing = Drawing(rng)
        kind.resolve(kind.request.model_validate(body), drawing, CORRECTED)
        push = PUSH.request.model_validate(pushing(kind, body, drawing.faces))
        try:
            expected = reference_odds(push, CORRECTED)
        except RuleRefusal:
            with pytest.raises(RuleRefusal):
                computed_odds(push, CORRECTED)
            continue
        assert computed_odds(push, CORRECTED) == expected
        answered += 1
    assert answered >= 6
