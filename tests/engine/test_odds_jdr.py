"""JDR Express's exact odds (issue 21) against the brute force: every face sequence the 2D6
(or 3D6 keeping two) can draw, run through the kind's own `resolve`, must give exactly the
odds' fractions, outcomes and totals; a sample from the real stream must agree with them."""

from __future__ import annotations

import copy
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

import pytest

from app.engine.dice import HmacDiceStream, ReplayDice
from app.engine.errors import EngineError
from app.engine.odds import Odds, enumerate_paths
from app.engine.registry import DEFAULT_REGISTRY
from app.engine.rulesets.jdr import RULESET
from app.engine.rulesets.jdr.action import ACTION
from app.engine.rulesets.jdr.combat import ATTACK
from app.engine.rulesets.jdr.cthulhu import EFFLEUREMENT
from app.engine.rulesets.jdr.dracula import HOLY_WATER, TALISMAN, TALISMAN_RULING
from app.engine.rulesets.jdr.initiative import INITIATIVE
from app.engine.rulesets.jdr.joker import JOKER
from app.engine.rulesets.jdr.mythos import MYTHOS_TEST
from app.services.stats import chi_square_survival
from tests.engine.jdr.requests import (
    ACTION_SEQ,
    NPC,
    PC,
    PC2,
    PC3,
    SCENE,
    SERIOUS,
    C,
    D,
    action_req,
    attack_req,
    char,
    clock,
    cthulhu_sheet,
    dracula_sheet,
    effleurement_req,
    follow,
    follow_req,
    make_weapon,
    mythos_req,
    rolled,
    run,
    shaken_sheet,
    sheet_for,
    talisman_req,
)

VERSION = RULESET.version
TIERS = ["critical_failure", "failure", "partial_success", "success", "critical_success"]
AGAINST = ["critical_failure", "failure", "success"]
NPC2 = "0b5e0000-0000-4000-8000-0000000000ab"
CRITICAL = {"severity": "critical", "note": "griffes", "cared": False}


def exact(odds: Odds) -> dict[str, Fraction]:
    return {item.code: Fraction(item.exact) for item in odds.outcomes}


def values(odds: Odds, name: str) -> dict[int, Fraction]:
    (found,) = [d for d in odds.distributions if d.name == name]
    return {item.value: Fraction(item.exact) for item in found.values}


def check(kind: Any, raw: dict[str, Any], version: int = VERSION, **numbers: Any) -> Odds:
    """The odds equal the brute force of every face sequence through `resolve`: each
    outcome's probability, and each number counted (`name=reader of the result`)."""
    request = kind.parse_request(raw)
    odds = kind.odds(request, version)
    outcomes: dict[str, Fraction] = defaultdict(Fraction)
    counted: dict[str, dict[int, Fraction]] = {name: defaultdict(Fraction) for name in numbers}
    for weight, resolution in enumerate_paths(
        lambda dice: kind.resolve(request, dice, version), max_dice=3
    ):
        assert resolution is not None  # 2 or 3 dice: nothing is cut
        outcomes[kind.outcome(resolution.result).code] += weight
        for name, reader in numbers.items():
            counted[name][reader(resolution.result)] += weight
    found = exact(odds)
    assert sum(found.values()) == 1
    assert {code: p for code, p in found.items() if p} == dict(outcomes)
    for name in numbers:
        assert values(odds, name) == dict(counted[name]), name
    return odds


def total(result: Any) -> int:
    return int(result.total)


# --- JDR-10..14: the action roll -----------------------------------------------------------

MODES = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("system", [D, C])
@pytest.mark.parametrize(("advantage", "disadvantage"), MODES)
@pytest.mark.parametrize("modifier", [-4, 0, 3])
@pytest.mark.parametrize("trait", ["mental", "physique", "social"])
def test_JDR11_12_tiers_equal_the_brute_force(system, advantage, disadvantage, modifier, trait):
    raw = action_req(
        system,
        sheet_for(system),
        trait=trait,
        modifier=modifier,
        advantage=advantage,
        disadvantage=disadvantage,
    )
    odds = check(ACTION, raw, total=total)
    assert [item.code for item in odds.outcomes] == TIERS


@pytest.mark.parametrize("difficulty", [2, 5, 6, 8, 10, 12, 14, 18])
@pytest.mark.parametrize(("advantage", "disadvantage"), MODES)
@pytest.mark.parametrize("version", [3, 4])
def test_JDR13_against_a_difficulty_equals_the_brute_force(
    difficulty, advantage, disadvantage, version
):
    raw = action_req(
        D,
        dracula_sheet(),
        difficulty=difficulty,
        advantage=advantage,
        disadvantage=disadvantage,
        talent="Escrime",
    )
    odds = check(ACTION, raw, version, total=total)
    assert [item.code for item in odds.outcomes] == AGAINST


@pytest.mark.parametrize("version", [1, 3, 4])
@pytest.mark.parametrize(
    ("sheet", "context", "burdened"),
    [
        pytest.param(dracula_sheet(wounds=[SERIOUS]), {}, True, id="serious-wound"),
        pytest.param(dracula_sheet(wounds=[CRITICAL]), {}, None, id="critical-wound"),
        pytest.param(
            dracula_sheet(wounds=[{**SERIOUS, "cared": True}]), {}, False, id="cared-wound"
        ),
        pytest.param(
            shaken_sheet(),
            {"supernatural": True, "protection": True},
            True,
            id="faith-shaken-protection",
        ),
        pytest.param(shaken_sheet(), {"supernatural": True}, False, id="faith-shaken-no-roll"),
    ],
)
@pytest.mark.parametrize("advantage", [False, True])
def test_JDR3_24_33_burdens_put_the_odds_at_disadvantage(
    version, sheet, context, burdened, advantage
):
    raw = action_req(D, sheet, advantage=advantage, **context)
    odds = check(ACTION, raw, version, total=total)
    if burdened is None:  # JDR-33 (corrected): a critical wound burdens from version 4
        burdened = version >= 4
    # Burdened, the roll is at Disadvantage, which cancels an Advantage (JDR-12).
    mode = {"disadvantage": True} if burdened else {}
    same = action_req(D, dracula_sheet(), advantage=advantage, **mode)
    assert odds.outcomes == ACTION.odds(ACTION.parse_request(same), version).outcomes
    assert ("Disadvantage from" in odds.notes[0]) is burdened


@pytest.mark.parametrize("no_talent_bonus", [False, True])
def test_JDR31a_a_withheld_talent_is_not_counted(no_talent_bonus):
    raw = action_req(C, cthulhu_sheet(), talent="Bibliothécaire")
    raw["no_talent_bonus"] = no_talent_bonus
    odds = check(ACTION, raw, total=total)
    assert min(values(odds, "total")) == 2 + 3 + (0 if no_talent_bonus else 2)


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        pytest.param(action_req(D, dracula_sheet(destroyed=True)), "JDR-36", id="destroyed"),
        pytest.param(action_req(D, dracula_sheet(), talent="Jonglage"), None, id="no-talent"),
    ],
)
def test_odds_refuse_what_the_action_refuses(raw, error):
    request = ACTION.parse_request(raw)
    with pytest.raises(EngineError) as rolled_:
        ACTION.resolve(request, HmacDiceStream(bytes(32), "c", 1, "", 1), VERSION)
    with pytest.raises(EngineError) as odds:
        ACTION.odds(request, VERSION)
    assert (type(odds.value), odds.value.rule, str(odds.value)) == (
        type(rolled_.value),
        rolled_.value.rule,
        str(rolled_.value),
    )
    assert odds.value.rule == error


# --- JDR-40: the Mythos test ---------------------------------------------------------------


@pytest.mark.parametrize("difficulty", [4, 7, 9, 11, 16])
@pytest.mark.parametrize(("advantage", "disadvantage"), MODES)
@pytest.mark.parametrize("version", [3, 4])
@pytest.mark.parametrize("wounds", [[], [SERIOUS], [CRITICAL]])
def test_JDR40_the_mythos_test_equals_the_brute_force(
    difficulty, advantage, disadvantage, version, wounds
):
    raw = mythos_req(
        cthulhu_sheet(wounds=wounds),
        difficulty,
        advantage=advantage,
        disadvantage=disadvantage,
        detail="Une voix",
    )
    raw["talent"] = "Bibliothécaire"  # counts from version 4 (JDR-40, corrected)
    odds = check(MYTHOS_TEST, raw, version, total=total)
    assert [item.code for item in odds.outcomes] == AGAINST


def test_JDR40_the_mythos_test_is_cthulhus():
    raw = {**mythos_req(cthulhu_sheet(), 8), **clock(D)}
    request = MYTHOS_TEST.parse_request(raw)
    with pytest.raises(EngineError) as caught:
        MYTHOS_TEST.odds(request, VERSION)
    assert caught.value.rule == "JDR-40"


# --- JDR-30..38: the attack ----------------------------------------------------------------


def margin(result: Any) -> int:
    return int(result.margin)


ATTACKS = [
    pytest.param(D, {}, {}, {}, id="plain"),
    pytest.param(C, {"bonus": 2, "damage": 3}, {}, {"advantage": True}, id="strong-weapon"),
    pytest.param(D, {}, {"traits": {"mental": 4, "physique": 4, "social": 4}}, {}, id="tough"),
    pytest.param(D, {"damage": 2, "tags": ["silver"]}, {"tags": ["werewolf"]}, {}, id="silver"),
    pytest.param(D, {"damage": 1}, {"tags": ["werewolf"]}, {}, id="werewolf-no-silver"),
    pytest.param(C, {"damage": 1}, {"tags": ["werewolf"]}, {}, id="cthulhu-werewolf"),
    pytest.param(D, {"tags": ["ash_stake"]}, {"tags": ["vampire"]}, {}, id="stake-awake"),
    pytest.param(
        D, {"tags": ["ash_stake"]}, {"tags": ["vampire"]}, {"sleeping": True}, id="stake-asleep"
    ),
    pytest.param(
        D, {}, {"tags": ["vampire"]}, {"disadvantage": True, "advantage": True}, id="cancel"
    ),
]


@pytest.mark.parametrize(("system", "weapon", "target", "flags"), ATTACKS)
@pytest.mark.parametrize("version", [3, 4])
@pytest.mark.parametrize("attacker", [{}, {"wounds": [SERIOUS]}])
def test_JDR33_36_37_attack_odds_equal_the_brute_force(
    system, weapon, target, flags, version, attacker
):
    raw = attack_req(
        system,
        sheet_for(system, **attacker),
        sheet_for(system, **target),
        weapon=make_weapon(**weapon),
        **flags,
    )
    request = ATTACK.parse_request(raw)
    asleep = flags.get("sleeping") and version >= 4 and system == D
    numbers: dict[str, Any] = {"total": total} if asleep else {"total": total, "margin": margin}
    odds = check(ATTACK, raw, version, **numbers)
    codes = [item.code for item in odds.outcomes]
    if asleep:
        assert codes == ["woken", "destroyed"]
    elif "werewolf" in request.target.sheet.tags and system == D and version >= 4:
        assert codes == (
            ["miss", "light", "serious", "critical"]
            if weapon.get("tags")
            else ["miss", "no_effect"]
        )
    else:
        assert codes[:4] == ["miss", "light", "serious", "critical"]


# --- JDR-25: the Joker's reroll ------------------------------------------------------------


@pytest.mark.parametrize("difficulty", [None, 9])
@pytest.mark.parametrize("wounded_since", [False, True])
def test_JDR25_a_jokers_reroll_of_an_action_equals_the_brute_force(difficulty, wounded_since):
    entry = rolled(action_req(D, dracula_sheet(), direct_peril=True, difficulty=difficulty), (1, 2))
    # The reroll reads the sheet as it is now: a serious wound since burdens it (JDR-3).
    now = dracula_sheet(wounds=[SERIOUS] if wounded_since else [])
    odds = check(JOKER, follow_req(entry, now), total=lambda r: r.as_action().total)
    assert ("Disadvantage from" in odds.notes[0]) is wounded_since


def test_JDR25_the_joker_refuses_as_its_roll_refuses():
    entry = rolled(action_req(D, dracula_sheet()), (1, 2))  # no direct peril
    request = JOKER.parse_request(follow_req(entry))
    with pytest.raises(EngineError) as caught:
        JOKER.odds(request, VERSION)
    assert caught.value.rule == "JDR-25"
    spent = JOKER.parse_request(
        follow_req(
            rolled(action_req(D, dracula_sheet(), direct_peril=True), (1, 2)),
            dracula_sheet(joker="spent"),
        )
    )
    with pytest.raises(EngineError) as caught:
        JOKER.odds(spent, VERSION)
    assert caught.value.rule == "JDR-26"
    talisman = follow_req(
        rolled(action_req(D, dracula_sheet(), direct_peril=True), (1, 2)),
        follow_ups=[follow("jdr.talisman", {"status": "pending"}, ACTION_SEQ + 1)],
    )
    with pytest.raises(EngineError) as caught:
        JOKER.odds(JOKER.parse_request(talisman), VERSION)
    assert caught.value.rule == "JDR-27"


def test_JDR25_a_jokers_reroll_of_an_attack_equals_the_brute_force():
    attack = attack_req(D, dracula_sheet(), dracula_sheet(), weapon=make_weapon(damage=2))
    faces = (6, 6)
    first = run("jdr.attack", attack, faces)
    assert first.result["severity"] is not None  # the wound the reroll undoes
    target = dracula_sheet(wounds=[first.effects[0]["after"][-1]])
    entry = {
        "seq": ACTION_SEQ,
        "kind": "jdr.attack",
        "request": attack,
        "draws": [{"sides": 6, "face": f} for f in faces],
    }
    raw = {
        **clock(D),
        "character": char(dracula_sheet()),
        "action": entry,
        "follow_ups": [],
        "other": char(target, kind="npc", cid=NPC),
    }
    odds = check(JOKER, raw, total=lambda r: r.attack.total, margin=lambda r: r.attack.margin)
    assert min(values(odds, "total")) == 2 + 3 + 2  # 2D6 + physique + the damage step
    assert [item.code for item in odds.outcomes] == ["miss", "light", "serious", "critical"]


def test_JDR25_a_jokers_reroll_of_a_mythos_test_equals_the_brute_force():
    raw = {**mythos_req(cthulhu_sheet(), 9, detail="Une voix"), "direct_peril": True}
    first = run("jdr.mythos", raw, (1, 1))
    assert first.result["outcome"] == "critical_failure"
    entry = {
        "seq": ACTION_SEQ,
        "kind": "jdr.mythos",
        "request": raw,
        "result": first.result,
        "effects": first.effects,
    }
    marked = cthulhu_sheet(marks=first.effects[0]["after"])  # the sheet after the first test
    request = {**clock(C), "character": char(marked), "action": entry, "follow_ups": []}
    odds = check(JOKER, request, total=lambda r: r.mythos.total)
    assert [item.code for item in odds.outcomes] == AGAINST


def attack_joker(
    spender: str, *, attacker_now: dict[str, Any] | None = None, **over: Any
) -> dict[str, Any]:
    """A Joker on an NPC's attack against the PC (spender "target") or on the PC's attack
    against an NPC (spender "attacker"), after a first attack that wounded its target."""
    pc, npc = dracula_sheet(), dracula_sheet(defense_bonus=0)
    attack = attack_req(D, pc, npc, weapon=make_weapon(damage=1))
    if spender == "target":
        attack["attacker"], attack["target"] = (
            char(npc, kind="npc", cid=NPC),
            char(pc),
        )
    faces = (6, 5)
    first = run("jdr.attack", attack, faces)
    wounded = first.effects[0]
    assert first.result["severity"] is not None  # the wound the reroll undoes
    # The fighters as they are now: copies, the attack's own snapshots stay as logged.
    now = {who["id"]: copy.deepcopy(who) for who in (attack["attacker"], attack["target"])}
    target = now[wounded["character_id"]]
    target["sheet"] = {**target["sheet"], "wounds": wounded["after"]}
    if attacker_now is not None:  # the attacker as they are now, since the attack
        attacker = now[attack["attacker"]["id"]]
        attacker["sheet"] = {**attacker["sheet"], **attacker_now}
    entry = {
        "seq": ACTION_SEQ,
        "kind": "jdr.attack",
        "request": attack,
        "draws": [{"sides": 6, "face": f} for f in faces],
    }
    return {
        **clock(D),
        "character": now[PC],
        "action": entry,
        "follow_ups": [],
        "other": now[NPC],
        **over,
    }


@pytest.mark.parametrize("spender", ["attacker", "target"])
@pytest.mark.parametrize("wounded_since", [False, True])
def test_JDR25_a_jokers_reroll_of_an_attack_reads_both_fighters_as_the_reroll_does(
    spender, wounded_since
):
    # The first attack's wound is undone; a serious wound the attacker took since burdens
    # the reroll (JDR-3), as `resolve_joker` reads it.
    since = {"wounds": [SERIOUS]} if wounded_since else None
    raw = attack_joker(spender, attacker_now=since)
    odds = check(JOKER, raw, total=lambda r: r.attack.total, margin=lambda r: r.attack.margin)
    assert ("Disadvantage from" in odds.notes[0]) is wounded_since
    assert [item.code for item in odds.outcomes] == ["miss", "light", "serious", "critical"]


def mythos_joker(
    *,
    follow_ups: Any = (),
    test: dict[str, Any] | None = None,
    sheet: dict[str, Any] | None = None,
    cid: str = PC,
    **over: Any,
) -> dict[str, Any]:
    """A Joker on a Mythos test (of direct peril unless `test` says otherwise) whose first
    result marked the PC; `sheet` is what changed on it since, `cid` who spends the Joker."""
    raw = {
        **mythos_req(cthulhu_sheet(), 9, detail="Une voix"),
        "direct_peril": True,
        **(test or {}),
    }
    first = run("jdr.mythos", raw, (1, 1))
    entry = {
        "seq": ACTION_SEQ,
        "kind": "jdr.mythos",
        "request": raw,
        "result": first.result,
        "effects": first.effects,
    }
    marked = cthulhu_sheet(marks=first.effects[0]["after"], **(sheet or {}))
    return {
        **clock(C),
        "character": char(marked, cid=cid),
        "action": entry,
        "follow_ups": list(follow_ups),
        **over,
    }


def test_JDR25_41_a_jokers_reroll_of_a_mythos_test_with_a_worded_mark_equals_the_brute_force():
    worded = follow("jdr.mark", {"mark": "Une voix dans le puits"}, ACTION_SEQ + 1)
    raw = mythos_joker(follow_ups=[worded])
    odds = check(JOKER, raw, total=lambda r: r.mythos.total)
    assert [item.code for item in odds.outcomes] == AGAINST


JOKED_ATTACK = follow("jdr.joker", {"rerolls": ACTION_SEQ}, ACTION_SEQ + 1)
OTHER_REFUSALS = [
    pytest.param(lambda: attack_joker("attacker", scene=SCENE + 1), VERSION, "JDR-25", id="scene"),
    pytest.param(
        lambda: attack_joker("target", follow_ups=[JOKED_ATTACK]), VERSION, "JDR-25", id="twice"
    ),
    pytest.param(
        lambda: {**attack_joker("attacker"), "character": char(dracula_sheet(), cid=PC3)},
        VERSION,
        None,
        id="not-a-fighter",
    ),
    pytest.param(lambda: attack_joker("attacker", other=None), VERSION, None, id="no-other"),
    pytest.param(lambda: attack_joker("attacker"), 3, None, id="attack-before-v4"),
    pytest.param(
        lambda: mythos_joker(sheet={"joker": "spent"}), VERSION, "JDR-26", id="mythos-spent"
    ),
    pytest.param(
        lambda: mythos_joker(test={"direct_peril": False}), VERSION, "JDR-25", id="no-peril"
    ),
    pytest.param(lambda: mythos_joker(cid=PC2), VERSION, None, id="another-pcs-test"),
    pytest.param(lambda: mythos_joker(scene=SCENE + 1), VERSION, "JDR-25", id="mythos-scene"),
]


@pytest.mark.parametrize(("make", "version", "rule"), OTHER_REFUSALS)
def test_JDR25_the_jokers_odds_on_an_attack_or_a_mythos_test_refuse_as_its_reroll_does(
    make, version, rule
):
    request = JOKER.parse_request(make())
    with pytest.raises(EngineError) as refused_odds:
        JOKER.odds(request, version)
    source = ReplayDice([{"sides": 6, "face": 6}] * 3)
    with pytest.raises(EngineError) as refused_roll:
        JOKER.resolve(request, source, version)
    assert source.draws == []  # refused before any die
    assert type(refused_odds.value) is type(refused_roll.value)
    assert str(refused_odds.value) == str(refused_roll.value)
    assert refused_odds.value.rule == rule


# --- the real stream -----------------------------------------------------------------------


@pytest.mark.parametrize("advantage", [False, True])
def test_JDR11_12_sampled_from_the_real_stream_agrees_with_the_odds(advantage):
    stream = HmacDiceStream(bytes(range(32)), "odds-jdr", 1, f"sample-{advantage}", 1)
    request = ACTION.parse_request(action_req(D, dracula_sheet(), advantage=advantage))
    odds = ACTION.odds(request, VERSION)
    rolls = 10_000
    observed = Counter(
        ACTION.outcome(ACTION.resolve(request, stream, VERSION).result).code for _ in range(rolls)
    )
    expected = {code: float(p) * rolls for code, p in exact(odds).items() if p}
    assert set(observed) <= set(expected)
    statistic = sum((observed[code] - e) ** 2 / e for code, e in expected.items())
    assert chi_square_survival(len(expected) - 1, statistic) > 0.001


def test_every_kind_that_draws_dice_with_an_outcome_gives_odds():
    drawing = {"jdr.action", "jdr.attack", "jdr.mythos", "jdr.joker"}
    drawing |= {"vampire.action", "vampire.damage"}
    with_odds = {kind.name for _, kind in DEFAULT_REGISTRY.kinds() if kind.odds is not None}
    assert drawing <= with_odds


# --- kinds that draw no die: their outcome is certain ------------------------------------


def certain(kind: Any, raw: dict[str, Any], version: int = VERSION) -> str:
    """The one outcome the odds make certain, which is the one `resolve` gives."""
    request = kind.parse_request(raw)
    odds = kind.odds(request, version)
    resolution = kind.resolve(request, HmacDiceStream(bytes(32), "c", 1, "", 1), version)
    code = kind.outcome(resolution.result).code
    assert {item.code: Fraction(item.exact) for item in odds.outcomes if item.exact != "0/1"} == {
        code: 1
    }
    assert odds.notes[0].startswith("no dice")
    return code


def test_JDR35_holy_water_is_certain_and_refused_as_the_rules_refuse():
    kind = HOLY_WATER
    splash = {**clock(D), "attacker": char(dracula_sheet())}
    vampire = {**splash, "target": char(dracula_sheet(tags=["vampire"]), kind="npc", cid=NPC)}
    wolf = {**splash, "target": char(dracula_sheet(tags=["werewolf"]), kind="npc", cid=NPC)}
    assert certain(kind, vampire) == "light"
    assert certain(kind, wolf) == "no_effect"
    assert [item.code for item in kind.odds(kind.parse_request(wolf), VERSION).outcomes] == [
        "no_effect",
        "light",
    ]
    with pytest.raises(EngineError) as caught:
        kind.odds(kind.parse_request(wolf), 1)  # version 1 refused it
    assert caught.value.rule == "JDR-35"


@pytest.mark.parametrize("sincere", [False, True])
def test_JDR21_the_gms_ruling_is_certain(sincere):
    kind = TALISMAN_RULING
    pending = {"status": "pending", "words": "Seigneur", "tier": "partial_success"}
    raw = {
        **clock(D),
        "character": char(dracula_sheet()),
        "invocation": {"seq": ACTION_SEQ + 1, "kind": "jdr.talisman", "result": pending},
        "rulings": [],
        "sincere": sincere,
    }
    assert certain(kind, raw) == ("sincere" if sincere else "insincere")


def test_JDR20_22_the_talisman_is_certain_on_a_partial_success_and_refused_on_a_failure():
    kind = TALISMAN
    assert certain(kind, talisman_req()) == "pending"
    with pytest.raises(EngineError) as caught:
        kind.odds(kind.parse_request(talisman_req(tier="failure")), VERSION)
    assert caught.value.rule == "JDR-22"


def test_JDR28_the_effleurement_is_certain():
    kind = EFFLEUREMENT
    assert certain(kind, effleurement_req()) == "applied"


def test_every_kind_with_an_outcome_gives_odds():
    for _, kind in DEFAULT_REGISTRY.kinds():
        if kind.name.startswith(("jdr.", "vampire.")) and kind.outcome is not None:
            assert kind.odds is not None, kind.name


# --- JDR-30a, JDR-31a: initiative ----------------------------------------------------------


def test_JDR30a_31a_each_initiative_total_equals_the_brute_force():
    # Two NPCs of the same physique: a tie goes to a roll-off (JDR-30a), which may chain.
    combatants = [
        {"id": NPC2, "name": "Strigoi", "kind": "npc", "physique": 3, "surprise": True},
        {"id": NPC, "name": "Moroi", "kind": "npc", "physique": 3, "wounds": [SERIOUS]},
    ]
    raw = {**clock(D), "combatants": combatants}
    request = INITIATIVE.parse_request(raw)
    odds = INITIATIVE.odds(request, VERSION)
    seen: dict[str, dict[int, Fraction]] = {c["id"]: defaultdict(Fraction) for c in combatants}
    cut = Fraction(0)
    for weight, resolution in enumerate_paths(
        lambda dice: INITIATIVE.resolve(request, dice, VERSION), max_dice=9
    ):
        if resolution is None:  # a roll-off still tied when the enumeration stops
            cut += weight
            continue
        assert INITIATIVE.outcome(resolution.result).code == "initiative_rolled"
        for row in resolution.result.order:
            seen[row.character_id][row.total] += weight
    assert 0 < cut < Fraction(1, 100)
    assert exact(odds) == {"initiative_rolled": 1}
    for combatant in combatants:
        expected = values(odds, f"total:{combatant['id']}")
        assert set(seen[combatant["id"]]) <= set(expected)
        for value, p in expected.items():
            assert 0 <= p - seen[combatant["id"]][value] <= cut
    assert min(values(odds, f"total:{NPC2}")) == 2 + 3 + 2  # JDR-31a: surprise +2
