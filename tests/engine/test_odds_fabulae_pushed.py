"""Issue 21: the exact odds of pushing a roll with consequences (FAB-31/33/37 corrected)
against a brute force of every face sequence through the push's own `resolve`: the roll
replayed with its new dice, the other side's dice and the dice drawn after them kept, fresh
protection dice drawn where a push turns a miss into a hit (FAB-67)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from app.engine.contract import to_json
from app.engine.dice import Draw, HmacDiceStream
from app.engine.errors import RuleRefusal
from app.engine.odds import Odds
from app.engine.rulesets.fabulae.damage import ATTACK
from app.engine.rulesets.fabulae.dangers import DANGER
from app.engine.rulesets.fabulae.defense import DEFEND
from app.engine.rulesets.fabulae.grappling import BREAK_FREE, GRAPPLE
from app.engine.rulesets.fabulae.powers import POWER
from app.engine.rulesets.fabulae.push import PUSH
from app.engine.rulesets.fabulae.pushed import PUSHABLE
from app.engine.rulesets.fabulae.recovery import RECOVER
from app.engine.rulesets.fabulae.sequelae import DEATH_TEST, STABILIZE
from app.services.stats import chi_square_survival
from tests.engine.fabulae import combat
from tests.engine.fabulae.core import ALLY, PC, char, clock, entry, follow, make_sheet
from tests.engine.fabulae.pushed_reference import reference_odds
from tests.engine.test_odds_fabulae import ATTACK_COUNTED, Counted, broken, exact
from tests.engine.test_odds_fabulae import assert_agrees as brute_agrees
from tests.engine.test_odds_fabulae_power_push import PRICED, PUSH_COUNTED, caster

P = pytest.param
CORRECTED = 2
LEATHER = {"armor": {"id": "leather_coat", "value": 1}}


class Faces:
    """The faces given, in order, each as a draw of the sides asked; records what was used."""

    def __init__(self, faces: list[int]):
        self._faces = list(faces)
        self.draws: list[Draw] = []

    def roll(self, sides: int) -> int:
        face = self._faces[len(self.draws)]
        self.draws.append(Draw(sides=sides, face=face))
        return face


def assert_agrees(kind: Any, body: dict[str, Any], version: int, counted: Counted) -> Odds:
    """The odds agree with the brute force and, for a push, equal exactly the odds replayed
    once per class of sixes, pool 1s and stress 1s and per fresh six (the method before
    issue 21's large pools, tests/engine/fabulae/pushed_reference.py)."""
    odds = brute_agrees(kind, body, version, counted)
    if kind is PUSH:
        assert odds == reference_odds(PUSH.request.model_validate(body), version)
    return odds


def pushing(
    kind: Any, body: dict[str, Any], faces: list[int], *, absorb: bool = False, **more: Any
) -> dict[str, Any]:
    """The push of the entry `kind` resolves with these faces, by the roll's roller, the
    sheets as the roll left them (as the service records them in `now`)."""
    request = kind.request.model_validate(body)
    source = Faces(faces)
    resolution = kind.resolve(request, source, CORRECTED)
    assert len(source.draws) == len(faces), "every face given is drawn"
    pushable = PUSHABLE[kind.name]
    now = []
    for who in pushable.characters(request):
        sheet = who.sheet.model_dump(mode="json")
        for change in resolution.effects:
            if change.character_id == who.id:
                sheet[change.field] = to_json(change.after)
        now.append({**who.model_dump(mode="json"), "sheet": sheet})
    roller = pushable.roller(request).id
    pusher = next(character for character in now if character["id"] == roller)
    followed = {**entry(kind.name, request.dump(), {}), "draws": [dict(d) for d in source.draws]}
    return {
        **clock(),
        "character": pusher,
        "action": followed,
        "follow_ups": more.get("follow_ups", []),
        "state": None,
        "absorb": absorb,
        "now": now,
    }


def price(absorb: bool) -> Counted:
    spent = {"destiny_spent": PUSH_COUNTED["destiny_spent"]}
    return spent if absorb else {**spent, **PRICED}


def attacked(result: Any) -> Any:
    return result.attack if result.attack is not None else result.defend.attack


PUSHED_ATTACK: Counted = {
    name: (lambda r, count=count: count(attacked(r))) for name, count in ATTACK_COUNTED.items()
}


# --- an attack (FAB-62..67) -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "mode", "weapon", "inputs", "faces", "absorb"),
    [
        P({}, "ranged", "revolver", {}, [2, 3], False, id="FAB-31-a-miss-rerolled"),
        P(LEATHER, "ranged", "revolver", {}, [2, 4], False, id="FAB-67-fresh-protection"),
        P(LEATHER, "ranged", "revolver", {}, [6, 3, 5], False, id="FAB-67-protection-replayed"),
        P(LEATHER, "ranged", "revolver", {}, [6, 6, 6], False, id="FAB-31-nothing-rerolled"),
        P({}, "ranged", "revolver", {}, [1, 4], True, id="FAB-34-a-one-absorbed"),
        P(
            {},
            "melee",
            "wrench",
            {"defense": "parry"},
            [3, 2, 6],
            False,
            id="FAB-37-against-the-kept-parry",
        ),
    ],
)
def test_FAB_31_pushed_attack_odds_match_brute_force(
    target: dict[str, Any],
    mode: str,
    weapon: str,
    inputs: dict[str, Any],
    faces: list[int],
    absorb: bool,
) -> None:
    shooter = combat.attacker_sheet(destiny=2)
    body = combat.attack_req(
        shooter, combat.make_sheet(**target), mode, weapon, target_kind="pc", **inputs
    )
    push = pushing(ATTACK, body, faces, absorb=absorb)
    odds = assert_agrees(PUSH, push, CORRECTED, {**PUSHED_ATTACK, **price(absorb)})
    assert [o.code for o in odds.outcomes] == ["impossible", "miss", "hit"]


def test_FAB_42_a_pushed_attack_with_a_stress_die_matches_brute_force() -> None:
    shooter = combat.attacker_sheet(destiny=2, stress=1)
    body = combat.attack_req(shooter, combat.make_sheet(**LEATHER), "ranged", "revolver")
    push = pushing(ATTACK, body, [3, 2, 5])  # two dice and a stress die, against an NPC
    assert_agrees(PUSH, push, CORRECTED, {**PUSHED_ATTACK, **price(False)})


@pytest.mark.parametrize(
    ("target", "faces"),
    [P({}, [6, 2], id="a-hit-pushed"), P(LEATHER, [2, 3], id="a-miss-pushed-fresh-states")],
)
def test_FAB_68_a_pushed_attack_on_an_npc_reads_no_state_die(
    target: dict[str, Any], faces: list[int]
) -> None:
    """An NPC's states are rolled after the damage (FAB-68): the odds leave them out, and
    the damage and panics they read are those of every state die."""
    shooter = combat.attacker_sheet(destiny=2)
    body = combat.attack_req(shooter, combat.make_sheet(**target), "ranged", "revolver")
    request = ATTACK.request.model_validate(body)
    assert request.target.kind == "npc"
    push = pushing(ATTACK, body, faces)
    assert_agrees(PUSH, push, CORRECTED, {**PUSHED_ATTACK, **price(False)})


def test_FAB_33_a_second_pushed_attack_starts_from_the_first() -> None:
    shooter = combat.attacker_sheet(destiny=3, talents=["double_push_habilete"])
    body = combat.attack_req(
        shooter, combat.make_sheet(**LEATHER), "ranged", "revolver", target_kind="pc"
    )
    push = pushing(ATTACK, body, [2, 3])
    faces = [6, 4, 5]  # one six: a hit, and its protection die
    first = PUSH.resolve(PUSH.request.model_validate(push), Faces(faces), CORRECTED)
    assert first.result.attack is not None
    now = [changed(who, first.effects) for who in push["now"]]
    draws = [{"sides": 6, "face": face} for face in faces]
    again = {
        **push,
        "character": changed(push["character"], first.effects),
        "follow_ups": [follow("fabulae.push", {}, 41) | {"draws": draws}],
        "now": now,
    }
    assert_agrees(PUSH, again, CORRECTED, {**PUSHED_ATTACK, **price(False)})


def changed(character: dict[str, Any], effects: Any) -> dict[str, Any]:
    """The character as these effects leave it."""
    sheet = dict(character["sheet"])
    for change in effects:
        if change.character_id == character["id"]:
            sheet[change.field] = to_json(change.after)
    return {**character, "sheet": sheet}


def test_FAB_62_a_pushed_defense_is_the_attackers_push() -> None:
    """The defense's entry holds the attacker's roll: the attacker pushes it (FAB-37), and
    its odds run worst to best for the attacker."""
    shooter = combat.attacker_sheet(destiny=2)
    attack = combat.attack_req(
        shooter,
        combat.make_sheet(**LEATHER),
        "melee",
        "wrench",
        target_kind="pc",
        defense="dodge",
    )
    push = pushing(DEFEND, {**combat.clock(), "attack": attack}, [2, 6, 6, 4])
    odds = assert_agrees(PUSH, push, CORRECTED, {**PUSHED_ATTACK, **price(False)})
    assert [o.code for o in odds.outcomes] == ["impossible", "miss", "hit"]


# --- a death test, a stabilisation, a care (FAB-51, FAB-52, FAB-80, FAB-81) ------------------

TEST_PUSHED: Counted = {
    "sixes": lambda r: r.sixes,
    "prouesses": lambda r: r.feats,
    "panics": lambda r: int(r.outcome == "panic"),
}


def lethal() -> dict[str, Any]:
    return {
        "kind": "physical",
        "code": "impaled",
        "lethal": True,
        "delay": "immediate",
        "stabilised": False,
    }


@pytest.mark.parametrize(
    ("physique", "faces"), [P(2, [2, 5], id="two-rerolled"), P(3, [1, 3, 4], id="a-one-kept")]
)
def test_FAB_51_pushed_death_test_odds_match_brute_force(physique: int, faces: list[int]) -> None:
    sheet = make_sheet({"physique": physique}, destiny=2, sequelae=[lethal()])
    body = {**clock(), "character": char(sheet), "sequela": 0}
    odds = assert_agrees(
        PUSH, pushing(DEATH_TEST, body, faces), CORRECTED, {**TEST_PUSHED, **price(False)}
    )
    assert [o.code for o in odds.outcomes] == ["impossible", "dead", "survived"]


def test_FAB_52_pushed_stabilisation_odds_match_brute_force() -> None:
    healer = make_sheet({"intellect": 2}, destiny=1, stress=1)
    patient = make_sheet(sequelae=[{**lethal(), "delay": "round"}])
    body = {**clock(), "healer": char(healer, ALLY), "patient": char(patient), "sequela": 0}
    push = pushing(STABILIZE, body, [4, 2, 3])
    assert_agrees(PUSH, push, CORRECTED, {**TEST_PUSHED, **price(False)})


@pytest.mark.parametrize("absorb", [False, True])
def test_FAB_80_pushed_care_odds_match_brute_force(absorb: bool) -> None:
    medic = make_sheet({"intellect": 3}, destiny=2)
    patient = make_sheet(states=["epuise", "meurtri"])
    body = {
        **clock(),
        "mode": "care",
        "healer": char(medic, ALLY),
        "track": "physical",
        "patient": char(patient),
    }
    push = pushing(RECOVER, body, [5, 1, 3], absorb=absorb)
    assert_agrees(PUSH, push, CORRECTED, {**TEST_PUSHED, **price(absorb)})


def test_FAB_81_pushed_broken_resistance_odds_match_brute_force() -> None:
    """The Résistance roll of a Broken character (FAB-81), pushed by the patient."""
    body = {
        **clock(),
        "mode": "broken_resistance",
        "patient": char(broken("physical", 4, destiny=1, stress=1)),
    }
    push = pushing(RECOVER, body, [6, 2, 5])
    assert_agrees(PUSH, push, CORRECTED, {**TEST_PUSHED, **price(False)})


# --- a grapple, breaking free (FAB-63), a danger's save (FAB-73) ------------------------------

HOLD_PUSHED: Counted = {
    "net": lambda r: r.net,
    "prouesses": lambda r: r.feats,
    # FAB-37, FAB-42: a push sets off its pusher's panic alone; the other side's dice stay.
    "panics": lambda r: int(r.active.outcome == "panic"),
}


def holder(physique: int = 1, cid: str = ALLY, **over: Any) -> dict[str, Any]:
    return char(make_sheet({"physique": physique}, **over), cid, "pc")


@pytest.mark.parametrize(
    ("defense", "faces"),
    [P("none", [2, 3], id="undefended"), P("parry", [2, 6, 6], id="FAB-37-against-the-parry")],
)
def test_FAB_63_pushed_grapple_odds_match_brute_force(defense: str, faces: list[int]) -> None:
    body = {
        **clock(),
        "attacker": holder(2, PC, destiny=1),
        "target": holder(),
        "defense": defense,
    }
    odds = assert_agrees(
        PUSH, pushing(GRAPPLE, body, faces), CORRECTED, {**HOLD_PUSHED, **price(False)}
    )
    assert [o.code for o in odds.outcomes] == ["impossible", "failure", "grappled"]


def test_FAB_62_a_pushed_grapple_through_its_defense_matches_brute_force() -> None:
    grapple = {
        **clock(),
        "attacker": holder(2, PC, destiny=1),
        "target": holder(),
        "defense": "parry",
    }
    push = pushing(DEFEND, {**clock(), "grapple": grapple}, [3, 6, 6])
    odds = assert_agrees(PUSH, push, CORRECTED, {**HOLD_PUSHED, **price(False)})
    assert [o.code for o in odds.outcomes] == ["impossible", "failure", "grappled"]


def test_FAB_63_pushed_break_free_odds_match_brute_force() -> None:
    body = {
        **clock(),
        "character": holder(2, PC, destiny=1, grappled_by=ALLY),
        "holder": holder(),
    }
    odds = assert_agrees(
        PUSH, pushing(BREAK_FREE, body, [3, 6, 6]), CORRECTED, {**HOLD_PUSHED, **price(False)}
    )
    assert [o.code for o in odds.outcomes] == ["impossible", "held", "freed"]


DANGER_PUSHED: Counted = {
    "damage": lambda r: r.danger.damage or 0,
    "panics": lambda r: int((r.active or r).outcome == "panic"),
}


@pytest.mark.parametrize(
    ("sheet", "danger", "kind", "inputs", "faces", "counted"),
    [
        P(
            {"stress": 1},
            "drowning",
            "pc",
            {},
            [2, 3],
            {"sinks": lambda r: int(bool(r.danger.sinks))},
            id="drowning-float",
        ),
        P({}, "drowning", "pc", {"phase": "sink"}, [4], {}, id="drowning-sink"),
        P({"attributes": {"physique": 2}}, "poison", "pc", {}, [6, 4, 6, 2, 2], {}, id="poison"),
        P({"stress": 1}, "cold", "npc", {}, [2, 5], {}, id="FAB-68-cold-on-an-npc"),
    ],
)
def test_FAB_73_pushed_danger_save_odds_match_brute_force(
    sheet: dict[str, Any],
    danger: str,
    kind: str,
    inputs: dict[str, Any],
    faces: list[int],
    counted: Counted,
) -> None:
    body = combat.danger_req(combat.make_sheet(destiny=1, **sheet), danger, kind, **inputs)
    push = pushing(DANGER, body, faces)
    odds = assert_agrees(PUSH, push, CORRECTED, {**DANGER_PUSHED, **counted, **price(False)})
    assert [o.code for o in odds.outcomes] == ["impossible", "panic", "failure", "success"]


# --- a power's caster roll (FAB-100..102) --------------------------------------------------

POWER_PUSHED: Counted = {
    "sixes": lambda r: r.sixes,
    "prouesses": lambda r: r.feats,
    "panics": lambda r: int(r.outcome == "panic"),
    "stress_gained": lambda r: r.power.stress_gained,
}


@pytest.mark.parametrize(
    ("power", "target", "faces", "counted"),
    [
        P("bolt", LEATHER, [2, 3, 4], {"through": "through"}, id="FAB-67-bolt-fresh-armor"),
        P("bolt", LEATHER, [6, 3, 4, 5], {"through": "through"}, id="bolt-armor-replayed"),
        P("bolt", {}, [3, 1, 6], {"through": "through"}, id="FAB-32-bolt-a-kept-one"),
        P("light_dark", {}, [2, 5, 3], {"malus": "malus"}, id="FAB-102-light-dark"),
        P("silence_noise", {}, [6, 4, 2], {"malus": "malus"}, id="FAB-102-silence-noise"),
    ],
)
def test_FAB_102_pushed_power_odds_match_brute_force(
    power: str, target: dict[str, Any], faces: list[int], counted: dict[str, str]
) -> None:
    """Intellect 1 + Connaissance 1 and the PP's stress die (FAB-100, corrected)."""
    sheet = caster(power, destiny=1)
    targets = [char(combat.make_sheet(**target), ALLY, "pc")] if power == "bolt" else []
    body = combat.power_req(sheet, power, 1, targets)
    read: Counted = {"through": bolt_through, "malus": lambda r: r.power.malus or 0}
    laws = {**POWER_PUSHED, **{name: read[name] for name in counted}, **price(False)}
    odds = assert_agrees(PUSH, pushing(POWER, body, faces), CORRECTED, laws)
    assert [o.code for o in odds.outcomes] == ["impossible", "panic", "failure", "success"]


def bolt_through(result: Any) -> int:
    return sum(hit.through for hit in (result.power.targets or {}).values())


@pytest.mark.parametrize(
    ("target_pp", "faces"),
    [
        P(2, [2, 3, 4, 6], id="FAB-101-a-loss-pushed-draws-its-1d3"),
        P(1, [6, 6, 3, 6, 2], id="FAB-101-a-win-pushed-keeps-its-1d3"),
    ],
)
def test_FAB_101_pushed_drain_odds_match_brute_force(target_pp: int, faces: list[int]) -> None:
    """The caster's two dice and the PP's stress die against the target's Intellect die."""
    body = combat.power_req(
        caster("drain", destiny=1), "drain", 1, [char(combat.make_sheet(pp=target_pp), ALLY, "pc")]
    )
    laws: Counted = {
        "net": lambda r: r.net,
        "prouesses": lambda r: r.feats,
        # FAB-37, FAB-42: a push sets off its pusher's panic alone; the other side's dice stay.
        "panics": lambda r: int(r.active.outcome == "panic"),
        "stolen": lambda r: r.power.stolen or 0,
        "stress_gained": lambda r: r.power.stress_gained,
        **price(False),
    }
    odds = assert_agrees(PUSH, pushing(POWER, body, faces), CORRECTED, laws)
    assert [o.code for o in odds.outcomes] == ["impossible", "panic", "failure", "success"]


def test_FAB_31_a_pushed_power_without_a_casters_roll_is_refused() -> None:
    """A blast rolls its targets' saves, not the caster's: nothing to push, nor odds of it."""
    body = combat.power_req(
        caster("blast", destiny=1), "blast", 1, [char(combat.make_sheet(), ALLY, "pc")]
    )
    push = PUSH.request.model_validate(pushing(POWER, body, [2]))
    assert PUSH.odds is not None
    with pytest.raises(RuleRefusal) as said:
        PUSH.odds(push, CORRECTED)
    assert said.value.rule == "FAB-31" and "no roll" in said.value.detail


def test_pushed_attack_odds_agree_with_the_real_stream() -> None:
    """10,000 pushes of one missed shot from the campaign stream against the exact odds
    (FAB-31): hit or miss, and the damage through the target's armor die drawn fresh
    (FAB-67)."""
    shooter = combat.attacker_sheet(destiny=2)
    body = combat.attack_req(
        shooter, combat.make_sheet(**LEATHER), "ranged", "revolver", target_kind="pc"
    )
    request = PUSH.request.model_validate(pushing(ATTACK, body, [2, 3]))
    assert PUSH.odds is not None
    outcomes, laws = exact(PUSH.odds(request, CORRECTED))
    draws = 10_000
    seen: dict[str, Counter[int | str]] = {"outcome": Counter(), "damage": Counter()}
    for nonce in range(draws):
        stream = HmacDiceStream(bytes(range(32)), "fabulae-pushed-odds", 1, "chi", nonce)
        result = PUSH.resolve(request, stream, CORRECTED).result
        assert PUSH.outcome is not None
        seen["outcome"][PUSH.outcome(result).code] += 1
        seen["damage"][PUSHED_ATTACK["damage"](result)] += 1
    for name, law in (("outcome", outcomes), ("damage", laws["damage"])):
        live = {value: p for value, p in law.items() if p}
        assert set(seen[name]) <= set(live)
        statistic = sum(
            (seen[name][v] - draws * float(p)) ** 2 / (draws * float(p)) for v, p in live.items()
        )
        assert chi_square_survival(len(live) - 1, statistic) > 0.001, (name, statistic, seen)
