"""Issue 21 through the API with the service's own rulesets: the odds endpoint, the luck of
a logged roll and the statistics, for generic dice (ranked by their total) and Vampire."""

from __future__ import annotations

from fractions import Fraction

from tests.api.helpers import rolled, url
from tests.conftest import VAMPIRE_SHEET


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
    assert view["luck"]["percentile"] == float(1 - twelve + twelve / 2) * 100


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
