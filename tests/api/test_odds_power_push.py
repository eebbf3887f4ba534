"""Issue 21 through the API: the exact odds of a Fabulae power (FAB-100..102) and of a push
(FAB-31..35), and the luck of each once logged (?with_odds=true)."""

from __future__ import annotations

from fractions import Fraction

from tests.api.helpers import rolled, url
from tests.conftest import FABULAE_SHEET


def _odds(client, campaign, caller, body):
    response = client.post(url(campaign, "/odds"), json=body, headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()["odds"]


def _outcomes(odds):
    return {o["code"]: Fraction(o["exact"]) for o in odds["outcomes"]}


def _luck(client, campaign, caller, entry):
    path = url(campaign, f"/rolls/{entry['seq']}")
    view = client.get(path, params={"with_odds": "true"}, headers=caller.headers)
    assert view.status_code == 200, view.text
    return view.json()["luck"]


def _assert_luck(luck, odds, outcome):
    """The luck of an entry is read from the odds of its own request: P(its outcome), and
    P(worse) + P(same) / 2 as its percentile."""
    chances = _outcomes(odds)
    codes = [o["code"] for o in odds["outcomes"]]
    below = sum((chances[c] for c in codes[: codes.index(outcome)]), Fraction(0))
    assert luck["outcome"] == outcome
    assert luck["probability"] == float(chances[outcome])
    assert luck["percentile"] == float(below + chances[outcome] / 2) * 100


def test_FAB_102_a_bolts_odds_and_the_luck_of_the_one_cast(
    client, make_campaign, make_character, gm, forced_dice
):
    campaign = make_campaign("fabulae-tenebris", options={"powers_allowed": True})
    sheet = {**FABULAE_SHEET, "powers": ["bolt"], "pp": 3, "pp_max": 3}
    ada = make_character(campaign, gm, sheet=sheet, name="Ada")
    carl = make_character(campaign, gm, name="Carl")
    body = {
        "kind": "fabulae.power",
        "character_id": ada["id"],
        "power": "bolt",
        "pp": 1,
        "targets": [carl["id"]],
        "states": "pending",
    }
    odds = _odds(client, campaign, gm, body)
    assert [o["code"] for o in odds["outcomes"]] == ["impossible", "panic", "failure", "success"]
    assert sum(_outcomes(odds).values()) == 1
    names = {d["name"] for d in odds["distributions"]}
    assert {"sixes", "prouesses", "panics", "through", "stress_gained"} <= names
    # Intellect 3 and no Connaissance, one stress die from the PP spent (FAB-100, corrected).
    forced_dice.push(6, 2, 3, 4)
    entry = rolled(client, campaign, gm, body)
    assert entry["outcome"]["code"] == "success"
    _assert_luck(_luck(client, campaign, gm, entry), odds, "success")


def test_FAB_31_a_pushs_odds_and_the_luck_of_the_push(
    client, make_campaign, make_character, gm, forced_dice
):
    campaign = make_campaign("fabulae-tenebris")
    ada = make_character(campaign, gm, sheet=FABULAE_SHEET, name="Ada")
    action = {
        "kind": "fabulae.action",
        "character_id": ada["id"],
        "attribute": "physique",
        "skill": "combat",
    }
    forced_dice.push(2, 3, 4, 5, 1)  # Physique 3 + Combat 2: no six
    first = rolled(client, campaign, gm, action)
    assert first["outcome"]["code"] == "failure"
    push = {"kind": "fabulae.push", "follows": first["seq"], "absorb": True}
    odds = _odds(client, campaign, gm, push)
    chances = _outcomes(odds)
    # FAB-31: the four dice showing 2..5 are rolled again; the 1 stays (a sixth die none).
    assert chances["failure"] == Fraction(5, 6) ** 4
    assert chances["success"] == 1 - Fraction(5, 6) ** 4 and chances["panic"] == 0
    spent = next(d for d in odds["distributions"] if d["name"] == "destiny_spent")
    assert [v["value"] for v in spent["values"]] == [2]  # the kept 1 is absorbed (FAB-34)
    forced_dice.push(6, 2, 2, 2)
    pushed = rolled(client, campaign, gm, push)
    assert pushed["outcome"]["code"] == "success"
    _assert_luck(_luck(client, campaign, gm, pushed), odds, "success")


def test_FAB_31_a_pushed_attacks_odds_and_the_luck_of_the_push(
    client, make_campaign, make_character, gm, forced_dice
):
    """Corrected, the push replays the attack with its new dice (FAB-31): its odds are the
    replayed attack's, hit or miss and the damage through, and the push's luck reads them."""
    campaign = make_campaign("fabulae-tenebris")
    armed = {**FABULAE_SHEET, "weapons": [{"id": "knife"}]}
    ada = make_character(campaign, gm, sheet=armed, name="Ada")
    carl = make_character(campaign, gm, kind="npc", name="Carl")
    attack = {
        "kind": "fabulae.attack",
        "attacker_id": ada["id"],
        "target_id": carl["id"],
        "mode": "melee",
        "weapon": "knife",
        "defense": "none",
    }
    forced_dice.push(2, 3, 4, 5, 2, 3)  # Physique 3 + Combat 2 + the knife's die: a miss
    first = rolled(client, campaign, gm, attack)
    assert first["outcome"]["code"] == "miss"
    push = {"kind": "fabulae.push", "follows": first["seq"]}
    odds = _odds(client, campaign, gm, push)
    assert [o["code"] for o in odds["outcomes"]] == ["impossible", "miss", "hit"]
    chances = _outcomes(odds)
    # The six dice are rolled again against no defense and no armor: a hit on any six.
    assert chances["miss"] == Fraction(5, 6) ** 6 and chances["hit"] == 1 - chances["miss"]
    damage = next(d for d in odds["distributions"] if d["name"] == "damage")
    unhurt = sum(Fraction(v["exact"]) for v in damage["values"] if v["value"] == 0)
    assert unhurt == chances["miss"]  # a hit without armor always gets through (FAB-66)
    forced_dice.push(6, 2, 2, 2, 2, 2)
    pushed = rolled(client, campaign, gm, push)
    assert pushed["outcome"]["code"] == "hit"
    _assert_luck(_luck(client, campaign, gm, pushed), odds, "hit")
