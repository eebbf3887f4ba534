"""Issue 21 through the API with the service's own rulesets: the odds endpoint, the luck of
a logged roll and the statistics, for generic dice (ranked by their total) and Vampire."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import fmpz_poly

from tests.api.helpers import rolled, url
from tests.conftest import FABULAE_SHEET, VAMPIRE_SHEET


def _odds(client, campaign, caller, body):
    response = client.post(url(campaign, "/odds"), json=body, headers=caller.headers)
    assert response.status_code == 200, response.text
    return response.json()


def _distribution(odds, name):
    found = next(d for d in odds["distributions"] if d["name"] == name)
    return {item["value"]: Fraction(item["exact"]) for item in found["values"]}


def test_generic_dice_odds_are_exact_and_ranked_by_total(client, make_campaign, gm):
    campaign = make_campaign()
    answer = _odds(client, campaign, gm, {"kind": "dice", "notation": "3d6kh2"})
    assert answer["kind"] == "dice" and answer["odds"]["ranked_by"] == "total"
    total = _distribution(answer["odds"], "total")
    assert total[12] == Fraction(16, 216) and total[2] == Fraction(1, 216)
    assert sum(total.values()) == 1


def test_odds_whose_fractions_would_pass_their_digits_are_floats_and_every_page_answers(
    client, make_campaign, gm
):
    """A success count has few values but its denominator may run to thousands of digits
    (rerolls: 1000^2100 here): beyond EXACT_DIGITS the odds are floats, and the pages that
    read them (luck, statistics) answer instead of failing (found fuzzing the live API)."""
    campaign = make_campaign()
    body = {"kind": "dice", "notation": "99d999rr100=20"}
    answer = _odds(client, campaign, gm, body)
    values = answer["odds"]["distributions"][0]["values"]
    assert values and all("exact" not in item for item in values)
    assert abs(sum(item["probability"] for item in values) - 1) <= 1e-12
    entry = rolled(client, campaign, gm, body)
    lucky = client.get(url(campaign, f"/rolls/{entry['seq']}?with_odds=true"), headers=gm.headers)
    assert lucky.status_code == 200 and 0 <= lucky.json()["luck"]["percentile"] <= 100
    listed = client.get(url(campaign, "/log?with_odds=true"), headers=gm.headers)
    assert listed.status_code == 200
    stats = client.get(url(campaign, "/stats"), headers=gm.headers)
    assert stats.status_code == 200 and stats.json()["rolls"] == 1


def test_a_dice_roll_shows_its_luck_by_its_total_when_asked(client, make_campaign, gm, forced_dice):
    campaign = make_campaign()
    forced_dice.push(6, 6, 6)
    entry = rolled(client, campaign, gm, {"kind": "dice", "notation": "3d6kh2"})
    plain = client.get(url(campaign, f"/rolls/{entry['seq']}"), headers=gm.headers).json()
    assert "luck" not in plain
    view = client.get(
        url(campaign, f"/rolls/{entry['seq']}"), params={"with_odds": "true"}, headers=gm.headers
    ).json()
    twelve = Fraction(16, 216)
    assert view["luck"]["outcome"] == "12"
    assert view["luck"]["probability"] == float(twelve)
    # Within 1e-12 of the exact mid-rank, as issue 21 asks of floats.
    assert view["luck"]["percentile"] == pytest.approx(float(1 - twelve / 2) * 100, abs=1e-12)


def _law_of_100d100() -> dict[int, Fraction]:
    coefficients = (fmpz_poly([1] * 100) ** 100).coeffs()
    return {100 + i: Fraction(int(c), 100**100) for i, c in enumerate(coefficients)}


def test_the_largest_generic_dice_give_floats_within_1e_12_and_no_fraction(
    client, make_campaign, gm
):
    """Past 400 values a distribution writes floats within 1e-12 of the exact values, without
    `exact`, and leaves out the ends whose probabilities add up to less than 2.5e-13."""
    campaign = make_campaign()
    answer = _odds(client, campaign, gm, {"kind": "dice", "notation": "100d100+2"})
    (total,) = answer["odds"]["distributions"]
    assert all("exact" not in item for item in total["values"])
    law = {value + 2: p for value, p in _law_of_100d100().items()}
    listed = {item["value"]: item["probability"] for item in total["values"]}
    assert max(abs(listed.get(value, 0.0) - p) for value, p in law.items()) <= 1e-12
    assert sum(p for value, p in law.items() if value not in listed) < 5e-13
    assert total["mean"] == 5052


def test_a_100d100_roll_shows_its_luck_within_1e_12_even_in_an_end_left_out(
    client, make_campaign, gm, forced_dice
):
    campaign = make_campaign()
    law = _law_of_100d100()
    forced_dice.push(*[50, 51] * 50)  # 5050, the middle
    middle = rolled(client, campaign, gm, {"kind": "dice", "notation": "100d100"})
    forced_dice.push(*[1] * 100)  # 100, the least: far in an end left out
    least = rolled(client, campaign, gm, {"kind": "dice", "notation": "100d100"})
    lucks = []
    for entry in (middle, least):
        view = client.get(
            url(campaign, f"/rolls/{entry['seq']}"),
            params={"with_odds": "true"},
            headers=gm.headers,
        ).json()
        lucks.append(view["luck"])
    below = sum(p for value, p in law.items() if value < 5050)
    assert lucks[0]["outcome"] == "5050"
    assert abs(lucks[0]["probability"] - law[5050]) <= 1e-12
    assert abs(lucks[0]["percentile"] / 100 - (below + law[5050] / 2)) <= 1e-12
    assert lucks[1]["outcome"] == "100"
    assert lucks[1]["probability"] == 0 and lucks[1]["percentile"] == 0


def test_VAM_odds_of_an_action_name_every_outcome_worst_to_best(
    client, make_campaign, make_character, gm
):
    campaign = make_campaign("vampire")
    character = make_character(campaign, gm, sheet=VAMPIRE_SHEET)
    body = {"kind": "vampire.action", "character_id": character["id"], "attribute": "force"}
    answer = _odds(client, campaign, gm, body)
    outcomes = answer["odds"]["outcomes"]
    assert [o["code"] for o in outcomes] == ["botch", "failure", "marginal", "moderate", "complete"]
    assert sum(Fraction(o["exact"]) for o in outcomes) == 1
    assert answer["rules"].startswith("vampire@")


def _vampire_table(client, make_campaign, make_character, gm, player):
    campaign = make_campaign("vampire", players=(player,))
    character = make_character(campaign, player, sheet=VAMPIRE_SHEET, owner_id=player.id)
    return campaign, character


def _action(character, **extra):
    return {
        "kind": "vampire.action",
        "character_id": character["id"],
        "attribute": "force",
        **extra,
    }


def test_VAM_5_a_player_may_ask_the_odds_at_a_difficulty_the_GM_decides(
    client, make_campaign, make_character, gm, player
):
    campaign, character = _vampire_table(client, make_campaign, make_character, gm, player)
    # Rolling it, the player may not set the difficulty (VAM-5): asking decides nothing.
    refused = client.post(
        url(campaign, "/rolls"), json=_action(character, difficulty=8), headers=player.headers
    )
    assert refused.status_code == 403
    at_8 = _odds(client, campaign, player, _action(character, difficulty=8))
    at_6 = _odds(client, campaign, player, _action(character))
    assert at_8["odds"]["outcomes"] != at_6["odds"]["outcomes"]
    assert at_8 == _odds(client, campaign, gm, _action(character, difficulty=8))


@pytest.mark.parametrize(
    "supposed",
    [
        {"explosive": True},  # VAM-14
        {"waive_retry_penalty": True},  # VAM-30
        {"new_action": True},  # VAM-30
        {"take_automatic": True},  # VAM-20
    ],
)
def test_VAM_14_20_30_a_player_may_suppose_what_the_Storyteller_alone_rules(
    client, make_campaign, make_character, gm, player, supposed
):
    campaign, character = _vampire_table(client, make_campaign, make_character, gm, player)
    body = _action(character, **supposed)
    refused = client.post(url(campaign, "/rolls"), json=body, headers=player.headers)
    assert refused.status_code == 403  # rolling it, the Storyteller's ruling is needed
    # Asking, the player is answered as the Storyteller is (VAM-20 still needs a pool of 6).
    as_player, as_gm = (
        client.post(url(campaign, "/odds"), json=body, headers=caller.headers)
        for caller in (player, gm)
    )
    assert as_player.status_code == as_gm.status_code != 403
    assert as_player.json() == as_gm.json()


def test_the_odds_of_an_answer_to_a_roll_request_take_the_GM_values(
    client, make_campaign, make_character, gm, player
):
    campaign, character = _vampire_table(client, make_campaign, make_character, gm, player)
    request = client.post(
        url(campaign, "/roll-requests"),
        json={
            "kind": "vampire.action",
            "character_ids": [character["id"]],
            "values": {"difficulty": 8},
        },
        headers=gm.headers,
    )
    assert request.status_code == 201, request.text
    answered = client.post(
        url(campaign, "/odds"),
        params={"request_id": request.json()["id"]},
        json=_action(character),
        headers=player.headers,
    )
    assert answered.status_code == 200, answered.text
    assert answered.json() == _odds(client, campaign, gm, _action(character, difficulty=8))
    changed = client.post(
        url(campaign, "/odds"),
        params={"request_id": request.json()["id"]},
        json=_action(character, difficulty=6),
        headers=player.headers,
    )
    assert changed.status_code == 422 and "the GM's request sets it" in changed.json()["detail"]


def _knife_fight(make_campaign, make_character, player, other_player):
    """A Fabulae campaign, and the body of a knife attack by one player's PC on another's."""
    campaign = make_campaign("fabulae-tenebris", players=(player, other_player))
    armed = {**FABULAE_SHEET, "weapons": [{"id": "knife"}]}
    mine = make_character(campaign, player, sheet=armed, owner_id=player.id, name="Élise")
    theirs = make_character(campaign, other_player, owner_id=other_player.id, name="Marc")
    attack = {
        "kind": "fabulae.attack",
        "attacker_id": mine["id"],
        "target_id": theirs["id"],
        "mode": "melee",
        "weapon": "knife",
    }
    return campaign, attack


def test_FAB_62_an_attackers_odds_may_suppose_the_defenders_choice(
    client, make_campaign, make_character, gm, player, other_player
):
    campaign, attack = _knife_fight(make_campaign, make_character, player, other_player)
    dodge = _odds(client, campaign, player, {**attack, "defense": "dodge"})
    undefended = _odds(client, campaign, player, {**attack, "defense": "none"})
    hit = {o["code"]: Fraction(o["exact"]) for o in dodge["odds"]["outcomes"]}["hit"]
    bare = {o["code"]: Fraction(o["exact"]) for o in undefended["odds"]["outcomes"]}["hit"]
    assert hit < bare  # a dodge makes the hit less likely
    assert [o["code"] for o in dodge["odds"]["outcomes"]] == ["impossible", "miss", "hit"]


def test_FAB_62_an_attack_awaiting_its_defense_counts_no_outcome_in_the_statistics(
    client, make_campaign, make_character, gm, player, other_player
):
    campaign, attack = _knife_fight(make_campaign, make_character, player, other_player)
    waiting = rolled(client, campaign, player, attack)
    assert waiting["result"]["awaiting"]["choice"] == "defense"
    answer = client.get(url(campaign, "/stats"), headers=gm.headers).json()
    (attacks,) = [k for k in answer["kinds"] if k["kind"] == "fabulae.attack"]
    assert attacks["rolls"] == 1
    assert [o["code"] for o in attacks["outcomes"] if o["observed"]] == []
    # Counted, and said why it is not compared: the answer is the roll that counts.
    (left_out,) = attacks["not_compared"]
    assert (left_out["reason"], left_out["rolls"]) == ("awaiting", 1)
    assert answer["not_compared"] == [left_out]


VAM_TRACK = ["bruised", "hurt", "injured", "wounded", "mauled", "crippled", "incapacitated"]


@pytest.mark.parametrize("first", ["hazard", "attack"])
def test_VAM_40_the_statistics_list_damage_outcomes_in_one_order_whichever_roll_came_first(
    client, make_campaign, make_character, gm, player, first
):
    campaign, lucien = _vampire_table(client, make_campaign, make_character, gm, player)
    npc = make_character(campaign, gm, sheet=VAMPIRE_SHEET, kind="npc", name="Prévôt")
    damage = {"kind": "vampire.damage", "target_id": lucien["id"], "damage_type": "bashing"}
    hazard = {**damage, "pool": 2}  # worst to best for the target: incapacitated first
    attack = {**damage, "attacker_id": npc["id"]}  # for the attacker: unhurt first
    for body in [hazard, attack] if first == "hazard" else [attack, hazard]:
        rolled(client, campaign, gm, body)
    answer = client.get(url(campaign, "/stats"), headers=gm.headers).json()
    (damages,) = [k for k in answer["kinds"] if k["kind"] == "vampire.damage"]
    assert damages["rolls"] == 2 and damages["rolls_with_odds"] == 2
    # Their odds order the levels in opposite ways: the track's order, unhurt first.
    assert [o["code"] for o in damages["outcomes"]] == ["unhurt", *VAM_TRACK]
    assert sum(o["observed"] for o in damages["outcomes"]) == 2
    assert sum(o["expected"] for o in damages["outcomes"]) == pytest.approx(2.0)
