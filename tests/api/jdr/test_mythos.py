"""[C] The Mythos and forbidden knowledge through the API (JDR-40..42); no spells (JDR-43)."""

from __future__ import annotations

import pytest

from tests.api.helpers import (
    assert_refused,
    last_seq,
    new_session,
    post_roll,
    sheet_of,
)
from tests.api.jdr.fights import (
    CTHULHU,
    mythos,
)
from tests.conftest import assert_problem

# The Cthulhu campaign of these tests: Arkham.


@pytest.fixture
def cthulhu(make_campaign, player, other_player):
    # These exercise the rules; who sets the difficulty (JDR-40) is tested on its own.
    options = {"players_set_difficulty": True}
    return make_campaign(CTHULHU, players=(player, other_player), name="Arkham", options=options)


# --- JDR-40 / JDR-41 / JDR-42: Mythos and forbidden knowledge [C] ---------------------------


@pytest.fixture
def penhaligon(cthulhu, player, make_character):
    return make_character(
        cthulhu,
        player,
        name="Dr. Penhaligon",
        sheet={"traits": {"mental": 3, "physique": 1, "social": 2}},
    )


def test_JDR_41_mythos_success_leaves_an_uncounted_mark(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(4, 5)  # 9 + Mental 3 = 12
    response = mythos(
        client,
        cthulhu,
        player,
        penhaligon,
        12,
        "grimoire en latin",
        detail="murmure des mots latins en dormant",
    )
    assert response.status_code == 201, response.text
    entry = response.json()
    result = entry["result"]
    assert result["total"] == 12 and result["difficulty"] == 12 and result["mental"] == 3
    assert result["outcome"] == "success" and result["label"] == "Réussite"
    mark = {"description": "murmure des mots latins en dormant", "counted": False, "scene": 1}
    assert result["mark"] == mark and result["counted_marks"] == 0
    assert sheet_of(client, player, penhaligon)["marks"] == [mark]
    assert [e["rule"] for e in entry["effects"]] == ["JDR-41"]


def test_JDR_41_a_success_without_wording_waits_for_the_players_words(
    client, gm, player, other_player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 3)  # 9 against a letter's 9
    entry = mythos(client, cthulhu, player, penhaligon, 9, "lettre énigmatique").json()
    assert entry["result"]["outcome"] == "success" and entry["result"]["mark_pending"] is True
    assert "mark" not in entry["result"] and entry["effects"] == []
    assert sheet_of(client, player, penhaligon)["marks"] == []  # no generic wording
    # Another player does not word it; its player does, once.
    seq = entry["seq"]
    stranger = {"kind": "jdr.mark", "follows": seq, "wording": "x"}
    assert_problem(post_roll(client, cthulhu, other_player, stranger), 403)
    body = {"kind": "jdr.mark", "follows": seq, "wording": "ne dort plus sans lumière"}
    worded = post_roll(client, cthulhu, player, body)
    assert worded.status_code == 201, worded.text
    assert worded.json()["result"]["mark"] == {
        "description": "ne dort plus sans lumière",
        "counted": False,
        "scene": 1,
    }
    (mark,) = sheet_of(client, player, penhaligon)["marks"]
    assert mark["description"] == "ne dort plus sans lumière" and mark["counted"] is False
    assert_refused(post_roll(client, cthulhu, gm, {**body, "wording": "encore"}), "JDR-41")


def test_JDR_41_a_success_with_the_gms_detail_marks_at_once(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 3)
    detail = "un mot en aklo lui revient"
    entry = mythos(client, cthulhu, player, penhaligon, 9, "lettre", detail=detail).json()
    assert entry["result"]["mark"]["description"] == detail
    assert "mark_pending" not in entry["result"]
    (mark,) = sheet_of(client, player, penhaligon)["marks"]
    assert mark == {"description": detail, "counted": False, "scene": 1}


def test_JDR_40_a_talent_counts_on_the_mythos_test(
    client, gm, player, cthulhu, scholar, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(4, 4)  # 8 + mental 2 + talent 2 = 12 against a grimoire's 12
    entry = mythos(
        client, cthulhu, player, scholar, 12, "grimoire latin", talent="Langues mortes"
    ).json()
    result = entry["result"]
    assert result["talent_bonus"] == 2 and result["total"] == 12 and result["outcome"] == "success"
    unknown = mythos(client, cthulhu, player, scholar, 12, "grimoire", talent="Pêche")
    assert_problem(unknown, 422, "not on the sheet")


def test_JDR_41_mythos_failure_leaves_the_cost_to_the_gm(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(3, 4)  # 10 against 15
    entry = mythos(client, cthulhu, player, penhaligon, 15, "fragment du Necronomicon").json()
    assert entry["result"]["outcome"] == "failure" and entry["result"]["label"] == "Échec"
    assert "mark" not in entry["result"] and entry["effects"] == []
    assert sheet_of(client, player, penhaligon)["marks"] == []


def test_JDR_41_mythos_critical_failure_marks_at_once(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 1)  # 2 + 3 = 5
    entry = mythos(
        client,
        cthulhu,
        player,
        penhaligon,
        9,
        "statuette de R'lyeh",
        detail="entend une cloche sous l'eau",
    ).json()
    result = entry["result"]
    assert result["total"] == 5 and result["outcome"] == "critical_failure"
    assert result["label"] == "Échec critique"
    mark = {"description": "entend une cloche sous l'eau", "counted": True, "scene": 1}
    assert result["mark"] == mark and result["counted_marks"] == 1
    assert sheet_of(client, player, penhaligon)["marks"] == [mark]


def test_JDR_40_mythos_with_advantage_and_the_difficulty_range(
    client, gm, player, cthulhu, penhaligon, forced_dice
):
    new_session(client, cthulhu, gm)
    forced_dice.push(1, 6, 6)
    result = mythos(client, cthulhu, player, penhaligon, 15, "Necronomicon", advantage=True).json()[
        "result"
    ]
    assert result["mode"] == "advantage" and result["total"] == 15
    assert result["outcome"] == "success"
    assert_problem(mythos(client, cthulhu, player, penhaligon, 1, "x"), 422)
    assert_problem(mythos(client, cthulhu, player, penhaligon, 41, "x"), 422)
    assert_problem(mythos(client, cthulhu, player, penhaligon, 9, ""), 422)


def test_JDR_40_mythos_belongs_to_the_cthulhu_setting(client, gm, player, dracula, hunter):
    new_session(client, dracula, gm)
    assert_problem(mythos(client, dracula, player, hunter, 9, "lettre"), 422)


# --- JDR-43: no spells -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["jdr.spell", "jdr.sort", "jdr.ritual", "spell"])
def test_JDR_43_there_is_no_spell_kind(client, gm, player, cthulhu, penhaligon, kind):
    new_session(client, cthulhu, gm)
    before = last_seq(client, cthulhu, gm)
    response = post_roll(
        client,
        cthulhu,
        player,
        {"kind": kind, "character_id": penhaligon["id"], "spell": "Signe des Anciens"},
    )
    assert_problem(response, 422, "kind")
    assert last_seq(client, cthulhu, gm) == before
