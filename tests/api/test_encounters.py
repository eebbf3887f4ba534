"""Combat encounters through the API: one full fight per system, with forced dice.

Initiative draws dice too (JDR 2D6 each, Fabulae cards as dice with as many faces as cards
left, Vampire 1D10 each), so every fight scripts them with `forced_dice` before /initiative.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import API, DRACULA_SHEET, FABULAE_SHEET, VAMPIRE_SHEET, assert_problem

DRACULA = "jdr-express-dracula"
FAB = "fabulae-tenebris"
VAMPIRE = "vampire"


# --- helpers -----------------------------------------------------------------------------------


def start_session(client, campaign, gm) -> None:
    response = client.post(
        f"{API}/campaigns/{campaign['id']}/sessions", json={}, headers=gm.headers
    )
    assert response.status_code == 201, response.text


def fighter(character: dict[str, Any], side: str, **flags: bool) -> dict[str, Any]:
    return {"character_id": character["id"], "side": side, **flags}


def create(client, campaign, caller, name: str, *combatants: dict[str, Any]):
    return client.post(
        f"{API}/campaigns/{campaign['id']}/encounters",
        json={"name": name, "combatants": list(combatants)},
        headers=caller.headers,
    )


def created(client, campaign, gm, name: str, *combatants: dict[str, Any]) -> dict[str, Any]:
    response = create(client, campaign, gm, name, *combatants)
    assert response.status_code == 201, response.text
    return response.json()


def enc_url(encounter: dict[str, Any], tail: str = "") -> str:
    return f"{API}/encounters/{encounter['id']}{tail}"


def post(client, encounter, tail: str, caller, body: Any = None, **headers: str):
    return client.post(enc_url(encounter, tail), json=body, headers={**caller.headers, **headers})


def ok(response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    return response.json()


def initiative(client, encounter, gm) -> dict[str, Any]:
    return ok(post(client, encounter, "/initiative", gm))


def next_turn(client, encounter, caller) -> dict[str, Any]:
    return ok(post(client, encounter, "/next", caller))


def act(client, encounter, caller, actor, kind: str, **body: Any):
    payload = {"actor_id": actor["id"], "kind": kind, **body}
    return post(client, encounter, "/actions", caller, payload)


def acted(client, encounter, caller, actor, kind: str, **body: Any) -> dict[str, Any]:
    return ok(act(client, encounter, caller, actor, kind, **body), 201)


def get(client, encounter, caller) -> dict[str, Any]:
    return ok(client.get(enc_url(encounter), headers=caller.headers))


def sheet(client, character, caller) -> dict[str, Any]:
    response = client.get(f"{API}/characters/{character['id']}", headers=caller.headers)
    return ok(response)["sheet"]


def order(encounter: dict[str, Any]) -> list[str]:
    return [c["name"] for c in encounter["combatants"]]


def current(encounter: dict[str, Any]) -> str | None:
    return encounter["current"]["name"] if encounter["current"] else None


def by_name(encounter: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in encounter["combatants"]}


def verify_ok(client, campaign, gm) -> None:
    report = ok(client.get(f"{API}/campaigns/{campaign['id']}/log/verify", headers=gm.headers))
    assert report["ok"] is True, report
    assert report["first_failure"] is None


# --- JDR Express -------------------------------------------------------------------------------


def jdr_sheet(mental: int, physique: int, social: int) -> dict[str, Any]:
    return {**DRACULA_SHEET, "traits": {"mental": mental, "physique": physique, "social": social}}


@pytest.fixture
def jdr_fight(client, gm, player, other_player, make_campaign, make_character):
    campaign = make_campaign(DRACULA, players=(player, other_player))
    start_session(client, campaign, gm)
    mihail = make_character(campaign, player, sheet=jdr_sheet(3, 2, 1), name="Mihail")
    ilona = make_character(campaign, other_player, sheet=jdr_sheet(3, 2, 1), name="Ilona")
    strigoi = make_character(campaign, gm, sheet=jdr_sheet(2, 3, 1), kind="npc", name="Strigoi")
    loup = make_character(campaign, gm, sheet=jdr_sheet(1, 2, 1), kind="npc", name="Loup")
    return campaign, mihail, ilona, strigoi, loup


def test_jdr_express_full_fight(client, gm, player, other_player, outsider, forced_dice, jdr_fight):
    campaign, mihail, ilona, strigoi, loup = jdr_fight
    # A player sets up no encounter; the GM does.
    assert_problem(create(client, campaign, player, "Col", fighter(mihail, "pcs")), 403, "GM")
    encounter = created(
        client,
        campaign,
        gm,
        "Col de Borgo",
        fighter(strigoi, "foes", surprise=True),
        fighter(mihail, "pcs", off_guard=True),
        fighter(ilona, "pcs"),
    )
    assert (encounter["status"], encounter["round"], encounter["current"]) == ("setup", 0, None)
    assert order(encounter) == ["Strigoi", "Mihail", "Ilona"]
    listed = ok(client.get(f"{API}/campaigns/{campaign['id']}/encounters", headers=player.headers))
    assert listed["count"] == 1 and listed["data"][0]["id"] == encounter["id"]
    # FAIR-18: the NPC's surprise is the GM's (+2 to its initiative); the PCs' are shown.
    seen = {c["name"]: c for c in listed["data"][0]["combatants"]}
    assert seen["Strigoi"]["surprise"] is None and seen["Mihail"]["off_guard"] is True
    assert by_name(encounter)["Strigoi"]["surprise"] is True  # the GM's view

    # Nothing happens before initiative; outsiders see nothing.
    assert_problem(
        act(
            client,
            encounter,
            gm,
            strigoi,
            "jdr.action",
            character_id=strigoi["id"],
            trait="physique",
        ),
        409,
        "initiative",
    )
    assert_problem(post(client, encounter, "/next", gm), 409)
    assert_problem(client.get(enc_url(encounter), headers=outsider.headers), 404)
    assert_problem(post(client, encounter, "/initiative", outsider), 404)
    assert_problem(post(client, encounter, "/initiative", player), 403, "GM")

    # JDR-30a/31a: 2D6 + physique, in the listed order. Strigoi 4+3+3 +2 surprise = 12,
    # Mihail 6+6+2 = 14 but off guard (last in round 1), Ilona 4+4+2 = 10.
    forced_dice.push(4, 3, 6, 6, 4, 4)
    encounter = initiative(client, encounter, gm)
    assert (encounter["status"], encounter["round"]) == ("active", 1)
    assert order(encounter) == ["Strigoi", "Ilona", "Mihail"]
    assert current(encounter) == "Strigoi"
    rolls = {c["name"]: c["initiative"] for c in encounter["combatants"]}
    assert (rolls["Strigoi"]["dice"], rolls["Strigoi"]["surprise"], rolls["Strigoi"]["total"]) == (
        [4, 3],
        2,
        12,
    )
    assert (rolls["Mihail"]["total"], rolls["Mihail"]["off_guard"]) == (14, True)
    assert rolls["Ilona"]["total"] == 10
    # JDR-31: once per scene.
    assert_problem(post(client, encounter, "/initiative", gm), 409, "once")

    # Refusals on Strigoi's turn.
    swing = {"character_id": mihail["id"], "trait": "physique"}
    assert_problem(act(client, encounter, player, mihail, "jdr.action", **swing), 409, "turn")
    assert_problem(
        act(
            client,
            encounter,
            player,
            ilona,
            "jdr.action",
            character_id=ilona["id"],
            trait="physique",
        ),
        403,
    )
    assert_problem(
        act(client, encounter, player, mihail, "jdr.action", override=True, **swing), 403, "GM"
    )
    assert_problem(
        act(
            client,
            encounter,
            gm,
            strigoi,
            "fabulae.action",
            character_id=strigoi["id"],
            attribute="physique",
        ),
        422,
        "jdr",
    )
    assert_problem(
        act(
            client,
            encounter,
            gm,
            strigoi,
            "vampire.action",
            character_id=strigoi["id"],
            attribute="force",
        ),
        422,
    )
    assert_problem(act(client, encounter, outsider, strigoi, "jdr.action"), 404)

    # JDR-30/33: Strigoi's claws: 5+4 + physique 3 + 1 = 13 against Ilona's Defense 6: margin 7,
    # a serious wound on her sheet.
    claws = {"name": "griffes", "bonus": 1}
    forced_dice.push(5, 4)
    body = {"attacker_id": strigoi["id"], "target_id": ilona["id"], "weapon": claws}
    headers = {"Idempotency-Key": "strigoi-claws-1"}
    first = post(
        client,
        encounter,
        "/actions",
        gm,
        {"actor_id": strigoi["id"], "kind": "jdr.attack", **body},
        **headers,
    )
    hit = ok(first, 201)
    assert hit["entry"]["kind"] == "jdr.attack"
    assert (hit["entry"]["result"]["margin"], hit["entry"]["result"]["severity"]) == (
        7,
        "serious",
    )
    wounds = sheet(client, ilona, other_player)["wounds"]
    assert [w["severity"] for w in wounds] == ["serious"]
    # The same Idempotency-Key gets the stored answer: no new dice, no new history.
    again = post(
        client,
        encounter,
        "/actions",
        gm,
        {"actor_id": strigoi["id"], "kind": "jdr.attack", **body},
        **headers,
    )
    assert again.status_code == 201
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == hit
    assert len(get(client, encounter, gm)["history"]) == 1
    assert len(sheet(client, ilona, gm)["wounds"]) == 1
    assert hit["encounter"]["history"] == [
        {
            "round": 1,
            "actor_id": strigoi["id"],
            "kind": "jdr.attack",
            "seq": hit["entry"]["seq"],
        }
    ]

    # Ilona's player passes her turn.
    assert_problem(post(client, encounter, "/next", player), 403)
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Ilona"
    encounter = next_turn(client, encounter, other_player)
    assert (current(encounter), encounter["round"]) == ("Mihail", 1)

    # JDR-31a: off guard, Mihail gets no talent bonus in round 1.
    forced_dice.push(3, 3)
    prayer = {"character_id": mihail["id"], "trait": "mental", "talent": "Théologie"}
    entry = acted(client, encounter, player, mihail, "jdr.action", **prayer)["entry"]
    assert (entry["result"]["talent_bonus"], entry["result"]["total"]) == (0, 9)

    # The GM acts out of turn with override.
    forced_dice.push(1, 2)
    out_of_turn = acted(
        client,
        encounter,
        gm,
        strigoi,
        "jdr.action",
        override=True,
        character_id=strigoi["id"],
        trait="social",
    )
    assert out_of_turn["encounter"]["current"]["name"] == "Mihail"
    assert_problem(
        act(
            client, encounter, gm, strigoi, "jdr.action", character_id=strigoi["id"], trait="social"
        ),
        409,
        "Mihail",
    )

    # Round 2: the surprise and off-guard modifiers lapse. Mihail 14, Ilona 10, Strigoi 10
    # (a PC before an NPC on a tie).
    encounter = next_turn(client, encounter, player)
    assert encounter["round"] == 2
    assert order(encounter) == ["Mihail", "Ilona", "Strigoi"]
    assert current(encounter) == "Mihail"
    # The talent bonus is back.
    forced_dice.push(3, 3)
    entry = acted(client, encounter, player, mihail, "jdr.action", **prayer)["entry"]
    assert (entry["result"]["talent_bonus"], entry["result"]["total"]) == (2, 11)
    # One action a turn (JDR-30a): a second is the GM's to allow.
    stake = {"attacker_id": mihail["id"], "target_id": strigoi["id"]}
    again = act(client, encounter, player, mihail, "jdr.attack", **stake)
    assert assert_problem(again, 409, "one action a turn")["rule"] == "JDR-30a"
    # Mihail's fists: 6+5 + 2 = 13 against Strigoi's Defense 6: margin 7, serious.
    forced_dice.push(6, 5)
    hit = acted(client, encounter, gm, mihail, "jdr.attack", override=True, **stake)
    assert hit["entry"]["result"]["severity"] == "serious"
    assert [w["severity"] for w in sheet(client, strigoi, gm)["wounds"]] == ["serious"]

    # A newcomer mid-fight gets initiative: Loup 4+3+2 = 9, after Ilona (10), before nobody
    # who already acted.
    assert_problem(post(client, encounter, "/combatants", player, fighter(loup, "foes")), 403)
    forced_dice.push(4, 3)
    encounter = ok(post(client, encounter, "/combatants", gm, fighter(loup, "foes")), 201)
    newcomer = by_name(encounter)["Loup"]
    assert (newcomer["initiative"]["dice"], newcomer["initiative"]["total"]) == ([4, 3], 9)
    assert order(encounter) == ["Mihail", "Ilona", "Strigoi", "Loup"]
    assert current(encounter) == "Mihail"
    assert_problem(post(client, encounter, "/combatants", gm, fighter(loup, "foes")), 409)

    # What each sees: the GM every condition, a player no NPC's.
    as_gm, as_player = get(client, encounter, gm), get(client, encounter, player)
    gm_view, player_view = by_name(as_gm), by_name(as_player)
    assert [w["severity"] for w in gm_view["Strigoi"]["condition"]["wounds"]] == ["serious"]
    assert gm_view["Loup"]["condition"]["wounds"] == []
    assert player_view["Strigoi"]["condition"] is None
    assert player_view["Loup"]["condition"] is None
    assert player_view["Mihail"]["condition"]["wounds"] == []
    assert player_view["Mihail"]["condition"]["status"] == "active"
    assert [w["severity"] for w in player_view["Ilona"]["condition"]["wounds"]] == ["serious"]
    assert as_player["current"]["name"] == "Mihail"
    assert [c["initiative"]["total"] for c in as_gm["combatants"]] == [14, 10, 12, 9]
    # FAIR-21: a player sees an NPC's place in the order, not the attributes it rolled with.
    assert (
        player_view["Strigoi"]["initiative"] is None and player_view["Loup"]["initiative"] is None
    )
    assert player_view["Mihail"]["initiative"] == gm_view["Mihail"]["initiative"]
    # The actions among the history's steps (turn passes and roster changes are listed too).
    assert len([h for h in as_player["history"] if "." in h["kind"]]) == 5

    # The turn goes round: Ilona, Strigoi, Loup, then round 3 from the top.
    assert current(next_turn(client, encounter, player)) == "Ilona"
    assert current(next_turn(client, encounter, gm)) == "Strigoi"
    assert current(next_turn(client, encounter, gm)) == "Loup"
    encounter = next_turn(client, encounter, gm)
    assert (encounter["round"], current(encounter)) == (3, "Mihail")

    # A combatant leaves; the turn skips them.
    encounter = ok(
        client.delete(enc_url(encounter, f"/combatants/{ilona['id']}"), headers=gm.headers)
    )
    assert by_name(encounter)["Ilona"]["active"] is False
    assert current(next_turn(client, encounter, gm)) == "Strigoi"
    assert_problem(
        act(
            client,
            encounter,
            other_player,
            ilona,
            "jdr.action",
            character_id=ilona["id"],
            trait="mental",
            override=False,
        ),
        422,
        "not fighting",
    )

    # The end: no more actions, turns or roster changes.
    assert_problem(post(client, encounter, "/end", player), 403)
    encounter = ok(post(client, encounter, "/end", gm))
    assert (encounter["status"], encounter["current"]) == ("ended", None)
    assert_problem(
        act(
            client,
            encounter,
            gm,
            strigoi,
            "jdr.action",
            character_id=strigoi["id"],
            trait="physique",
            override=True,
        ),
        409,
        "ended",
    )
    assert_problem(post(client, encounter, "/next", gm), 409)
    assert_problem(post(client, encounter, "/end", gm), 409)
    assert_problem(post(client, encounter, "/combatants", gm, fighter(ilona, "pcs")), 409)

    # JDR-31: the same characters in a new encounter in the same scene keep their totals:
    # no dice are drawn for them (forced_dice would fail on an unscripted die).
    second = created(
        client,
        campaign,
        gm,
        "La crypte",
        fighter(mihail, "pcs"),
        fighter(ilona, "pcs"),
        fighter(strigoi, "foes"),
    )
    second = initiative(client, second, gm)
    kept = {c["name"]: c["initiative"] for c in second["combatants"]}
    # The 2D6 + physique stand; the first fight's surprise (+2, JDR-31a) does not.
    assert {name: row["total"] for name, row in kept.items()} == {
        "Mihail": 14,
        "Ilona": 10,
        "Strigoi": 10,
    }
    assert all(row["carried"] for row in kept.values())
    assert kept["Mihail"]["dice"] == [6, 6]
    assert ok(post(client, second, "/end", gm))["status"] == "ended"

    verify_ok(client, campaign, gm)


# --- Fabulae Tenebris --------------------------------------------------------------------------


@pytest.fixture
def fab_fight(client, gm, player, other_player, make_campaign, make_character):
    campaign = make_campaign(FAB, players=(player, other_player))
    start_session(client, campaign, gm)
    ada = make_character(campaign, player, sheet=FABULAE_SHEET, name="Ada")
    thug = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Thug")
    # Bruno carries 4 stress and no cool_head: his panic score is 1D6 + 4 (FAB-44).
    bruno = make_character(
        campaign,
        gm,
        sheet={**FABULAE_SHEET, "talents": ["tinkerer"], "stress": 4},
        name="Bruno",
        owner_id=other_player.id,
    )
    return campaign, ada, thug, bruno


def observe(character: dict[str, Any], action_type: str = "slow") -> dict[str, Any]:
    """Intellect 3 + Observation 2: five dice, plus the character's stress dice."""
    return {
        "character_id": character["id"],
        "attribute": "intellect",
        "skill": "observation",
        "action_type": action_type,
    }


def melee(attacker, target, defense: str | None = None) -> dict[str, Any]:
    """Physique 3 + Combat 2 − 1 bare hands: four dice; a parry rolls Physique + Combat.
    Without `defense` the defender chooses (FAB-62)."""
    chosen = {} if defense is None else {"defense": defense}
    return {
        "attacker_id": attacker["id"],
        "target_id": target["id"],
        "mode": "melee",
        "weapon": "bare_hands",
        **chosen,
    }


def test_fabulae_tenebris_full_fight(
    client, gm, player, other_player, outsider, forced_dice, fab_fight, make_character
):
    campaign, ada, thug, bruno = fab_fight
    encounter = created(
        client,
        campaign,
        gm,
        "L'usine",
        fighter(ada, "pcs"),
        fighter(thug, "foes"),
        fighter(bruno, "pcs"),
    )
    assert_problem(
        act(client, encounter, player, ada, "fabulae.action", **observe(ada)), 409, "initiative"
    )

    # FAB-61: cards without replacement, a die with as many faces as cards left.
    # Ada d10 face 1: card 1; Thug d9 face 2 of 2..10: card 3; Bruno d8 face 4 of 2,4..10: 6.
    forced_dice.push(1, 2, 4)
    encounter = initiative(client, encounter, gm)
    assert order(encounter) == ["Ada", "Thug", "Bruno"]
    assert [c["initiative"]["card"] for c in encounter["combatants"]] == [1, 3, 6]
    assert all(c["initiative"]["deck"] == 1 for c in encounter["combatants"])
    assert (encounter["round"], current(encounter)) == (1, "Ada")
    assert_problem(post(client, encounter, "/initiative", gm), 409)

    # Out of turn, for someone else's character, another system's kind.
    assert_problem(
        act(client, encounter, other_player, bruno, "fabulae.action", **observe(bruno)),
        409,
        "Ada",
    )
    assert_problem(act(client, encounter, player, bruno, "fabulae.action", **observe(bruno)), 403)
    assert_problem(
        act(client, encounter, player, ada, "jdr.action", character_id=ada["id"], trait="physique"),
        422,
        "fabulae",
    )
    assert_problem(act(client, encounter, outsider, ada, "fabulae.action", **observe(ada)), 404)

    # FAB-62: Ada attacks; Ada's player may not choose Thug's defense, so the attack waits
    # for the GM's choice, shown on the encounter, and no die falls until it comes.
    parry_for_him = act(
        client, encounter, player, ada, "fabulae.attack", **melee(ada, thug, "parry")
    )
    assert assert_problem(parry_for_him, 403, "Thug")["rule"] == "FAB-62"
    waiting = acted(client, encounter, player, ada, "fabulae.attack", **melee(ada, thug))
    assert waiting["entry"]["draws"] == [] and waiting["entry"]["effects"] == []
    (wait,) = waiting["encounter"]["awaiting"]
    assert (wait["kind"], wait["character_ids"], wait["seq"]) == (
        "fabulae.defend",
        [thug["id"]],
        waiting["entry"]["seq"],
    )
    assert by_name(waiting["encounter"])["Ada"]["spent"] == {"slow": 1, "fast": 0}
    # The GM answers for Thug out of turn: he parries and spends his fast action. Ada
    # 6,6,6,2 against 6,2,2,2,2: net 2, one feat, damage 1 + 1 = 2, no armor: Épuisé and
    # Meurtri land now.
    forced_dice.push(6, 6, 6, 2, 6, 2, 2, 2, 2)
    answer = {"follows": waiting["entry"]["seq"], "character_id": thug["id"], "defense": "parry"}
    # Answered outside the fight, the parry would not spend Thug's fast action.
    outside = client.post(
        f"{API}/campaigns/{campaign['id']}/rolls",
        json={"kind": "fabulae.defend", **answer},
        headers=gm.headers,
    )
    assert_problem(outside, 409, "/actions")
    hit = acted(client, encounter, gm, thug, "fabulae.defend", **answer)
    result = hit["entry"]["result"]["attack"]
    assert result["attacks"][0]["hit"] is True
    assert (result["attacks"][0]["damage"], result["attacks"][0]["through"]) == (2, 2)
    assert hit["encounter"]["awaiting"] == []
    twice = act(client, encounter, gm, thug, "fabulae.defend", **answer)
    assert_problem(twice, 409)
    fighters = by_name(get(client, encounter, player))
    assert fighters["Ada"]["spent"] == {"slow": 1, "fast": 0}
    assert fighters["Thug"]["spent"] == {}  # FAIR-21: nor what an NPC spent
    assert by_name(hit["encounter"])["Thug"]["spent"] == {"slow": 0, "fast": 1}
    assert sheet(client, thug, gm)["states"] == ["epuise", "meurtri"]
    assert fighters["Thug"]["condition"] is None  # Ada's player sees no NPC's condition

    # FAB-60: a second slow action this round is refused; a fast one is allowed.
    refused = act(client, encounter, player, ada, "fabulae.action", **observe(ada))
    assert assert_problem(refused, 409, "slow")["rule"] == "FAB-60"
    forced_dice.push(6, 2, 2, 2, 2)
    quick = acted(client, encounter, player, ada, "fabulae.action", **observe(ada, "fast"))
    assert quick["entry"]["result"]["outcome"] == "success"
    assert by_name(quick["encounter"])["Ada"]["spent"] == {"slow": 1, "fast": 1}
    refused = act(client, encounter, player, ada, "fabulae.action", **observe(ada, "fast"))
    assert assert_problem(refused, 409)["rule"] == "FAB-60"

    # Thug's turn: a slow action left after the parry. Meurtri costs him a die: 3 dice. Ada
    # has no fast action left, so she is attacked undefended at once (FAB-62 corrected).
    encounter = next_turn(client, encounter, player)
    assert current(encounter) == "Thug"
    forced_dice.push(2, 2, 2)
    miss = acted(client, encounter, gm, thug, "fabulae.attack", **melee(thug, ada))
    assert miss["entry"]["result"]["defense"] == "none"
    assert miss["entry"]["result"]["attacks"][0]["hit"] is False
    assert by_name(miss["encounter"])["Thug"]["spent"] == {"slow": 1, "fast": 1}

    # Bruno's turn. Bruno's player does not choose Thug's defense either (FAB-62).
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Bruno"
    refused = act(
        client, encounter, other_player, bruno, "fabulae.attack", **melee(bruno, thug, "parry")
    )
    assert assert_problem(refused, 403, "Thug")["rule"] == "FAB-62"

    # FAB-42/44: a 1 on one of his four stress dice is Panic; the panic die 6 + stress 4 = 10:
    # frozen, he loses his turn.
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3, 3)
    forced_dice.push(6)
    panicked = acted(client, encounter, other_player, bruno, "fabulae.action", **observe(bruno))
    assert panicked["entry"]["result"]["outcome"] == "panic"
    (panic,) = panicked["entry"]["triggered"]
    assert panic["kind"] == "fabulae.panic"
    assert (panic["result"]["score"], panic["result"]["code"]) == (10, "frozen")
    assert by_name(panicked["encounter"])["Bruno"]["conditions"] == [
        # Struck on his own turn: the turn ends now and the next one is lost too.
        {"code": "frozen", "rule": "FAB-44", "skip_turns": 1, "armed": False, "seq": panic["seq"]}
    ]
    refused = act(
        client, encounter, other_player, bruno, "fabulae.action", **observe(bruno, "fast")
    )
    assert assert_problem(refused, 409, "frozen")["rule"] == "FAB-44"
    # The GM may still move him out of turn.
    forced_dice.push(2, 2, 2, 2, 2, 2, 2, 2, 2)
    forced = acted(
        client, encounter, gm, bruno, "fabulae.action", override=True, **observe(bruno, "fast")
    )
    assert forced["entry"]["result"]["outcome"] == "failure"

    # What each sees.
    as_gm, as_player = get(client, encounter, gm), get(client, encounter, player)
    assert as_gm["current"]["name"] == as_player["current"]["name"] == "Bruno"
    gm_view, player_view = by_name(as_gm), by_name(as_player)
    assert gm_view["Thug"]["condition"]["states"] == ["epuise", "meurtri"]
    assert player_view["Thug"]["condition"] is None
    assert player_view["Ada"]["condition"]["states"] == []
    assert player_view["Ada"]["condition"]["stress"] == 0
    assert player_view["Bruno"]["condition"]["stress"] == 4
    assert player_view["Bruno"]["conditions"][0]["code"] == "frozen"
    assert [h["kind"] for h in as_player["history"] if "." in h["kind"]] == [
        "fabulae.attack",
        "fabulae.defend",
        "fabulae.action",
        "fabulae.attack",
        "fabulae.action",
        "fabulae.action",
    ]

    # A new round resets the budget: Ada may take her slow action again.
    encounter = next_turn(client, encounter, gm)
    assert (encounter["round"], current(encounter)) == (2, "Ada")
    assert all(c["spent"] == {} for c in encounter["combatants"])
    assert order(encounter) == ["Ada", "Thug", "Bruno"]
    forced_dice.push(2, 2, 2, 2, 2)
    again = acted(client, encounter, player, ada, "fabulae.action", **observe(ada))
    assert by_name(again["encounter"])["Ada"]["spent"] == {"slow": 1, "fast": 0}

    # FAB-61: a newcomer draws from what is left of the deck (2, 4, 5, 7..10: a d7); face 1 is
    # card 2, so the Rat acts before Thug (card 3), after Ada whose turn it is.
    rat = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Rat")
    forced_dice.push(1)
    encounter = ok(post(client, encounter, "/combatants", gm, fighter(rat, "foes")), 201)
    assert by_name(encounter)["Rat"]["initiative"]["card"] == 2
    assert order(encounter) == ["Ada", "Rat", "Thug", "Bruno"]
    assert current(encounter) == "Ada"
    assert current(next_turn(client, encounter, player)) == "Rat"

    encounter = ok(post(client, encounter, "/end", gm))
    assert encounter["status"] == "ended"
    assert_problem(
        act(client, encounter, player, ada, "fabulae.action", **observe(ada, "fast")), 409, "ended"
    )
    verify_ok(client, campaign, gm)


def test_FAB_44_frozen_loses_the_next_turn(client, gm, other_player, forced_dice, fab_fight):
    campaign, _ada, thug, bruno = fab_fight
    encounter = created(
        client, campaign, gm, "Le quai", fighter(bruno, "pcs"), fighter(thug, "foes")
    )
    forced_dice.push(1, 1)  # Bruno card 1, Thug card 2
    encounter = initiative(client, encounter, gm)
    assert order(encounter) == ["Bruno", "Thug"]
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3, 3, 6)  # a stress 1, then panic 6 + 4 = 10
    panicked = acted(client, encounter, other_player, bruno, "fabulae.action", **observe(bruno))
    assert panicked["entry"]["triggered"][0]["result"]["code"] == "frozen"
    next_turn(client, encounter, other_player)  # the panicking turn ends
    assert by_name(get(client, encounter, gm))["Bruno"]["conditions"][0]["code"] == "frozen"
    # Frozen: round 2 is the turn he loses, and the turn passes him by (FAB-23 corrected).
    encounter = next_turn(client, encounter, gm)  # Thug's turn ends; round 2
    assert (encounter["round"], current(encounter)) == (2, "Thug")
    skipped = [item["actor_id"] for item in encounter["history"] if item["kind"] == "turn_skipped"]
    assert skipped == [bruno["id"]]
    # The binding was spent with that turn.
    assert by_name(get(client, encounter, gm))["Bruno"]["conditions"] == []
    # Once that turn has passed he acts again.
    encounter = next_turn(client, encounter, gm)
    assert (encounter["round"], current(encounter)) == (3, "Bruno")
    forced_dice.push(2, 2, 2, 2, 2, 2, 2, 2, 2)
    acted(client, encounter, other_player, bruno, "fabulae.action", **observe(bruno))


def test_FAB_61_a_newcomer_acts_in_card_order_from_the_next_round(
    client, gm, forced_dice, fab_fight, make_character
):
    campaign, ada, thug, _bruno = fab_fight
    encounter = created(
        client, campaign, gm, "La ruelle", fighter(ada, "pcs"), fighter(thug, "foes")
    )
    forced_dice.push(1, 4)  # Ada card 1, Thug card 5
    encounter = initiative(client, encounter, gm)
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Thug"
    rat = make_character(campaign, gm, sheet=FABULAE_SHEET, kind="npc", name="Rat")
    forced_dice.push(1)  # card 2, from 2, 3, 4, 6..10
    encounter = ok(post(client, encounter, "/combatants", gm, fighter(rat, "foes")), 201)
    assert by_name(encounter)["Rat"]["initiative"]["card"] == 2
    assert order(encounter) == ["Ada", "Thug", "Rat"]  # this round: after the turn
    assert current(next_turn(client, encounter, gm)) == "Rat"
    encounter = next_turn(client, encounter, gm)
    assert encounter["round"] == 2
    assert order(encounter) == ["Ada", "Rat", "Thug"]


# --- Vampire -----------------------------------------------------------------------------------


def vampire_sheet(dexterite: int, astuce: int) -> dict[str, Any]:
    attributes = {**VAMPIRE_SHEET["attributes"], "dexterite": dexterite, "astuce": astuce}
    return {**VAMPIRE_SHEET, "attributes": attributes}


def athletics(character: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "character_id": character["id"],
        "attribute": "dexterite",
        "ability": "athletisme",
        **extra,
    }


def test_vampire_full_fight(
    client, gm, player, other_player, outsider, forced_dice, make_campaign, make_character
):
    campaign = make_campaign(VAMPIRE, players=(player, other_player))
    start_session(client, campaign, gm)
    lucien = make_character(campaign, player, sheet=vampire_sheet(3, 4), name="Lucien")
    ghoul = make_character(campaign, gm, sheet=vampire_sheet(2, 2), kind="npc", name="Ghoul")
    marta = make_character(campaign, other_player, sheet=vampire_sheet(4, 3), name="Marta")
    encounter = created(
        client,
        campaign,
        gm,
        "Le parking",
        fighter(lucien, "kindred"),
        fighter(ghoul, "foes"),
        fighter(marta, "kindred"),
    )
    assert_problem(
        act(client, encounter, player, lucien, "vampire.action", **athletics(lucien)), 409
    )

    # 1D10 + Dextérité + Astuce: Lucien 5+7 = 12, Ghoul 10+4 = 14, Marta 5+7 = 12; Lucien and
    # Marta tie on total and traits: a 1D10 roll-off, Lucien 3, Marta 8.
    forced_dice.push(5, 10, 5, 3, 8)
    encounter = initiative(client, encounter, gm)
    assert order(encounter) == ["Ghoul", "Marta", "Lucien"]
    rows = {c["name"]: c["initiative"] for c in encounter["combatants"]}
    assert (rows["Ghoul"]["die"], rows["Ghoul"]["traits"], rows["Ghoul"]["total"]) == (10, 4, 14)
    assert (rows["Marta"]["rolloff"], rows["Lucien"]["rolloff"]) == ([8], [3])
    assert (encounter["round"], current(encounter)) == (1, "Ghoul")
    assert_problem(post(client, encounter, "/initiative", gm), 409)

    # VAM-20: an action in combat is tense, so no automatic success even when pool ≥ difficulty.
    refused = act(
        client,
        encounter,
        gm,
        ghoul,
        "vampire.action",
        **athletics(ghoul, difficulty=4, take_automatic=True),
    )
    assert assert_problem(refused, 409, "combat")["rule"] == "VAM-20"
    forced_dice.push(7, 8, 2, 3)  # Dextérité 2 + Athlétisme 2: two successes
    rolled = acted(client, encounter, gm, ghoul, "vampire.action", **athletics(ghoul))
    assert rolled["entry"]["request"]["tense"] is True
    assert (rolled["entry"]["result"]["net"], rolled["entry"]["result"]["automatic"]) == (2, False)

    # Refusals on the Ghoul's turn.
    assert_problem(
        act(client, encounter, player, lucien, "vampire.action", **athletics(lucien)), 409, "Ghoul"
    )
    assert_problem(act(client, encounter, player, marta, "vampire.action", **athletics(marta)), 403)
    assert_problem(
        act(client, encounter, gm, ghoul, "jdr.action", character_id=ghoul["id"], trait="physique"),
        422,
    )
    assert_problem(
        act(client, encounter, outsider, ghoul, "vampire.action", **athletics(ghoul)), 404
    )

    # VAM-21: Willpower once per round. Marta's Dextérité 4 + Athlétisme 2 = 6 dice.
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Marta"
    forced_dice.push(2, 3, 4, 5, 2, 3)
    spent = acted(
        client, encounter, other_player, marta, "vampire.action", **athletics(marta, willpower=True)
    )
    assert spent["entry"]["result"]["willpower_spent"] is True
    assert spent["entry"]["result"]["outcome"] == "success"
    assert sheet(client, marta, other_player)["willpower"] == {"max": 5, "current": 4}
    assert by_name(spent["encounter"])["Marta"]["spent"] == {"action": True, "willpower": True}
    # One action a turn (VAM-40); the GM's override allows another, never a second Willpower.
    again = act(client, encounter, other_player, marta, "vampire.action", **athletics(marta))
    assert assert_problem(again, 409, "one action a turn")["rule"] == "VAM-40"
    twice = act(
        client,
        encounter,
        gm,
        marta,
        "vampire.action",
        override=True,
        **athletics(marta, willpower=True),
    )
    assert assert_problem(twice, 409, "Willpower")["rule"] == "VAM-21"
    assert sheet(client, marta, gm)["willpower"]["current"] == 4
    forced_dice.push(6, 6, 1, 2, 2, 2)  # without Willpower, the GM's second roll is fine
    acted(client, encounter, gm, marta, "vampire.action", override=True, **athletics(marta))

    # The GM acts out of turn for the Ghoul.
    forced_dice.push(9, 9, 9, 9)
    acted(client, encounter, gm, ghoul, "vampire.action", override=True, **athletics(ghoul))

    encounter = next_turn(client, encounter, other_player)
    assert current(encounter) == "Lucien"
    forced_dice.push(10, 10, 10, 1, 1)  # Dextérité 3 + Athlétisme 2
    acted(client, encounter, player, lucien, "vampire.action", **athletics(lucien, willpower=True))
    assert sheet(client, lucien, player)["willpower"]["current"] == 4

    # Round 2: initiative is rolled again (VAM-40), in the standing order: Ghoul 1+4 = 5,
    # Marta 2+7 = 9, Lucien 9+7 = 16. Willpower is available again.
    forced_dice.push(1, 2, 9)
    encounter = next_turn(client, encounter, player)
    assert (encounter["round"], current(encounter)) == (2, "Lucien")
    assert order(encounter) == ["Lucien", "Marta", "Ghoul"]
    assert all(c["spent"] == {} for c in encounter["combatants"])
    encounter = next_turn(client, encounter, player)
    forced_dice.push(6, 6, 6, 6, 6, 6)
    again = acted(
        client, encounter, other_player, marta, "vampire.action", **athletics(marta, willpower=True)
    )
    assert again["entry"]["result"]["willpower_spent"] is True
    assert sheet(client, marta, gm)["willpower"]["current"] == 3

    # What each sees: the Ghoul's condition is the GM's alone.
    as_gm, as_player = get(client, encounter, gm), get(client, encounter, player)
    assert by_name(as_gm)["Ghoul"]["condition"] == {
        "willpower": {"max": 5, "current": 5},
        "health": {"bashing": 0, "lethal": 0, "aggravated": 0},
    }
    assert by_name(as_player)["Ghoul"]["condition"] is None
    assert by_name(as_player)["Lucien"]["condition"] == {
        "willpower": {"max": 5, "current": 4},
        "health": {"bashing": 0, "lethal": 0, "aggravated": 0},
    }
    assert by_name(as_player)["Marta"]["condition"] == {
        "willpower": {"max": 5, "current": 3},
        "health": {"bashing": 0, "lethal": 0, "aggravated": 0},
    }
    assert as_player["current"]["name"] == "Marta"
    assert [h["round"] for h in as_player["history"] if "." in h["kind"]] == [1, 1, 1, 1, 1, 2]

    encounter = ok(post(client, encounter, "/end", gm))
    assert encounter["status"] == "ended"
    assert_problem(
        act(client, encounter, other_player, marta, "vampire.action", **athletics(marta)),
        409,
        "ended",
    )
    verify_ok(client, campaign, gm)


# --- newcomers and later rounds ----------------------------------------------------------------


def test_JDR_30a_a_newcomer_keeps_their_place_in_later_rounds(client, gm, forced_dice, jdr_fight):
    campaign, mihail, _ilona, strigoi, loup = jdr_fight
    encounter = created(
        client, campaign, gm, "Le pont", fighter(mihail, "pcs"), fighter(strigoi, "foes")
    )
    forced_dice.push(6, 6, 1, 1)  # Mihail 12 + 2 = 14, Strigoi 2 + 3 = 5
    encounter = initiative(client, encounter, gm)
    assert order(encounter) == ["Mihail", "Strigoi"]
    forced_dice.push(4, 4)  # Loup 8 + 2 = 10: between them
    encounter = ok(post(client, encounter, "/combatants", gm, fighter(loup, "foes")), 201)
    assert order(encounter) == ["Mihail", "Loup", "Strigoi"]
    next_turn(client, encounter, gm)
    next_turn(client, encounter, gm)
    encounter = next_turn(client, encounter, gm)
    assert encounter["round"] == 2
    assert order(encounter) == ["Mihail", "Loup", "Strigoi"]


def test_JDR_31a_a_later_encounter_in_the_scene_does_not_reapply_first_round_modifiers(
    client, gm, player, forced_dice, jdr_fight
):
    campaign, mihail, ilona, strigoi, _loup = jdr_fight
    first = created(
        client,
        campaign,
        gm,
        "Col de Borgo",
        fighter(strigoi, "foes", surprise=True),
        fighter(mihail, "pcs", off_guard=True),
        fighter(ilona, "pcs"),
    )
    forced_dice.push(4, 3, 6, 6, 4, 4)  # Strigoi 10 + 2, Mihail 14 off guard, Ilona 10
    assert order(initiative(client, first, gm)) == ["Strigoi", "Ilona", "Mihail"]
    ok(post(client, first, "/end", gm))
    second = created(
        client,
        campaign,
        gm,
        "La crypte",
        fighter(mihail, "pcs"),
        fighter(ilona, "pcs"),
        fighter(strigoi, "foes"),
    )
    second = initiative(client, second, gm)  # JDR-31: no dice, the totals carry over
    # Nobody is surprised or off guard in this fight: Mihail 14, Ilona 10, Strigoi 10.
    assert order(second) == ["Mihail", "Ilona", "Strigoi"]


def test_a_combatant_who_left_and_rejoins_does_not_shift_the_turn(
    client, gm, forced_dice, jdr_fight
):
    campaign, mihail, ilona, strigoi, _loup = jdr_fight
    encounter = created(
        client,
        campaign,
        gm,
        "Le pont",
        fighter(mihail, "pcs"),
        fighter(ilona, "pcs"),
        fighter(strigoi, "foes"),
    )
    forced_dice.push(6, 6, 4, 4, 1, 1)  # Mihail 14, Ilona 10, Strigoi 5
    encounter = initiative(client, encounter, gm)
    assert order(encounter) == ["Mihail", "Ilona", "Strigoi"]
    next_turn(client, encounter, gm)
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Strigoi"
    encounter = ok(
        client.delete(enc_url(encounter, f"/combatants/{ilona['id']}"), headers=gm.headers)
    )
    assert current(encounter) == "Strigoi"
    # Ilona comes back (JDR-31: her total carries over, no dice): still Strigoi's turn.
    encounter = ok(post(client, encounter, "/combatants", gm, fighter(ilona, "pcs")), 201)
    assert by_name(encounter)["Ilona"]["initiative"]["total"] == 10
    assert current(encounter) == "Strigoi"


def apply_held(client, campaign, gm, seq: int) -> dict[str, Any]:
    return ok(
        client.post(f"{API}/campaigns/{campaign['id']}/log/{seq}/apply", headers=gm.headers), 201
    )


def test_FAIR_21_a_catatonia_from_a_blind_roll_is_not_told_by_the_next_refusal(
    client, gm, player, other_player, forced_dice, fab_fight
):
    campaign, _, thug, bruno = fab_fight
    response = client.patch(
        f"{API}/characters/{bruno['id']}", json={"sheet": {"stress": 9}}, headers=gm.headers
    )
    assert response.status_code == 200, response.text
    encounter = created(
        client, campaign, gm, "L'usine", fighter(bruno, "pcs"), fighter(thug, "foes")
    )
    forced_dice.push(1, 2)  # Bruno card 1, Thug card 3
    encounter = initiative(client, encounter, gm)
    # Five dice and nine stress dice, one showing 1. Rolled blind.
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3, 3, 3, 3, 3, 3, 3)
    blind = acted(
        client,
        encounter,
        other_player,
        bruno,
        "fabulae.action",
        visibility="blind",
        **observe(bruno),
    )
    # The GM applies it: panic 6 + 9 = 15, catatonia (FAB-44), which forbids every action.
    forced_dice.push(6)
    (panic,) = apply_held(client, campaign, gm, blind["entry"]["seq"])["triggered"]
    assert by_name(get(client, encounter, gm))["Bruno"]["conditions"][0]["code"] == "catatonia"
    encounter = next_turn(client, encounter, gm)
    encounter = next_turn(client, encounter, gm)
    assert current(encounter) == "Bruno"
    # The refusal the table reads is the wait for the GM, not « Bruno is catatonic ».
    refused = act(client, encounter, other_player, bruno, "fabulae.action", **observe(bruno))
    body = assert_problem(refused, 409, f"hidden entry {panic['seq']}")
    assert body["rule"] == "FAIR-21" and "catatonic" not in body["detail"]


def test_FAIR_21_the_binding_of_a_blind_rolls_panic_shows_only_to_the_gm(
    client, gm, player, other_player, forced_dice, fab_fight
):
    campaign, _, thug, bruno = fab_fight
    encounter = created(
        client, campaign, gm, "L'usine", fighter(bruno, "pcs"), fighter(thug, "foes")
    )
    forced_dice.push(1, 2)  # Bruno card 1, Thug card 3
    encounter = initiative(client, encounter, gm)
    assert current(encounter) == "Bruno"
    # A 1 on a stress die, rolled blind: the table must not know, so the panic waits for
    # the GM, and nothing binds Bruno yet.
    forced_dice.push(2, 2, 2, 2, 2, 1, 3, 3, 3)
    blind = acted(
        client,
        encounter,
        other_player,
        bruno,
        "fabulae.action",
        visibility="blind",
        **observe(bruno),
    )
    assert blind["entry"]["redacted"] is True
    assert by_name(get(client, encounter, gm))["Bruno"]["conditions"] == []
    kinds = f"{API}/campaigns/{campaign['id']}/log?kind=fabulae.panic"
    assert ok(client.get(kinds, headers=gm.headers))["data"] == []
    # The GM applies it: panic 6 + 4 = 10, frozen, during Thug's turn.
    encounter = next_turn(client, encounter, gm)
    forced_dice.push(6)
    (panic,) = apply_held(client, campaign, gm, blind["entry"]["seq"])["triggered"]
    assert (panic["kind"], panic["visibility"]) == ("fabulae.panic", "blind")
    gm_sees = by_name(get(client, encounter, gm))["Bruno"]["conditions"]
    assert [(c["code"], c["seq"]) for c in gm_sees] == [("frozen", panic["seq"])]
    for caller in (player, other_player):
        assert by_name(get(client, encounter, caller))["Bruno"]["conditions"] == []
    # Once the GM applies the panic too, its binding is told (the next action's refusal
    # would say it): the view says it, though the panic's dice stay blind.
    apply_held(client, campaign, gm, panic["seq"])
    for caller in (player, other_player):
        seen = by_name(get(client, encounter, caller))["Bruno"]["conditions"]
        assert [c["code"] for c in seen] == ["frozen"]


def test_FAIR_21_a_willpower_spent_in_a_blind_action_is_not_shown_to_the_table(
    client, gm, player, other_player, make_campaign, make_character, forced_dice
):
    campaign = make_campaign(VAMPIRE, players=(player, other_player))
    lucien = make_character(campaign, player, sheet=VAMPIRE_SHEET, name="Lucien")
    encounter = created(client, campaign, gm, "L'Elysium", fighter(lucien, "pcs"))
    forced_dice.push(5)
    encounter = initiative(client, encounter, gm)
    forced_dice.push(2, 2, 2, 2, 2)  # Dextérité 3 + Athlétisme 2
    body = {"character_id": lucien["id"], "attribute": "dexterite", "ability": "athletisme"}
    acted(
        client,
        encounter,
        player,
        lucien,
        "vampire.action",
        willpower=True,
        visibility="blind",
        **body,
    )
    assert by_name(get(client, encounter, gm))["Lucien"]["spent"] == {"willpower": True}
    assert by_name(get(client, encounter, other_player))["Lucien"]["spent"] == {}


def test_JDR_30a_a_combatants_roll_goes_through_the_encounter(
    client, gm, player, other_player, forced_dice, jdr_fight
):
    campaign, mihail, ilona, strigoi, _loup = jdr_fight
    encounter = created(
        client, campaign, gm, "Col", fighter(mihail, "pcs"), fighter(strigoi, "foes")
    )
    forced_dice.push(6, 6, 1, 1)  # Mihail 14, Strigoi 5
    encounter = initiative(client, encounter, gm)
    rolls = f"{API}/campaigns/{campaign['id']}/rolls"
    prayer = {"kind": "jdr.action", "character_id": mihail["id"], "trait": "mental"}
    # Through POST .../rolls a combatant would escape its turn and its one action.
    bypass = client.post(rolls, json=prayer, headers=player.headers)
    assert_problem(bypass, 409, "is fighting in the encounter")
    forced_dice.push(3, 3)
    acted(
        client, encounter, player, mihail, "jdr.action", character_id=mihail["id"], trait="mental"
    )
    # A character outside the fight rolls as before.
    forced_dice.push(3, 3)
    elsewhere = {**prayer, "character_id": ilona["id"]}
    assert client.post(rolls, json=elsewhere, headers=other_player.headers).status_code == 201
