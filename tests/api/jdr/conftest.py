"""The campaigns and characters of the JDR Express API tests."""

from __future__ import annotations

import pytest

from tests.api.jdr.fights import npc
from tests.api.jdr.plays import (
    CTHULHU,
    DRACULA,
)

# These exercise the rules; who may set the difficulty (JDR-13, JDR-40) is tested on its own.
PLAYERS_SET = {"players_set_difficulty": True}


@pytest.fixture
def dracula(make_campaign, player, other_player):
    return make_campaign(DRACULA, players=(player, other_player), options=PLAYERS_SET)


@pytest.fixture
def cthulhu(make_campaign, player, other_player):
    return make_campaign(
        CTHULHU, players=(player, other_player), name="Innsmouth", options=PLAYERS_SET
    )


@pytest.fixture
def mihail(dracula, player, make_character):
    """A believer with a sacred object established at creation, before any scene."""
    return make_character(dracula, player, name="Père Mihail")


@pytest.fixture
def penhaligon(cthulhu, player, make_character):
    return make_character(cthulhu, player, name="Dr. Penhaligon")


# JDR-32/36/37 (corrected): what Jonathan carries, from the Dracula setting's weapons.
HUNTER_WEAPONS = ["cavalry_sabre", "lumberjack_axe", "ash_stake", "silver_blade"]


@pytest.fixture
def hunter(dracula, player, make_character):
    """Jonathan: physique 3, a believer with a sacred object, armed from the catalog."""
    return make_character(
        dracula,
        player,
        name="Jonathan Harker",
        sheet={
            "traits": {"mental": 2, "physique": 3, "social": 1},
            "faith": "believer",
            "sacred_object": "crucifix de l'aubergiste",
            "weapons": [{"id": weapon} for weapon in HUNTER_WEAPONS],
        },
    )


@pytest.fixture
def brigand(dracula, gm, make_character):
    """A mundane foe: Defense 1 + 2 + 1 + 1 = 5."""
    return npc(make_character, dracula, gm, "Brigand", defense_bonus=1)


@pytest.fixture
def vampire(dracula, gm, make_character):
    """Defense 2 + 3 + 1 = 6."""
    return npc(make_character, dracula, gm, "Vampire mineur", (2, 3, 1), tags=["vampire", "undead"])


@pytest.fixture
def scholar(cthulhu, player, make_character):
    """Pr. Armitage: mental 2, and a talent for dead languages (+2)."""
    return make_character(
        cthulhu,
        player,
        name="Pr. Armitage",
        sheet={
            "traits": {"mental": 2, "physique": 1, "social": 2},
            "talents": [{"name": "Langues mortes", "bonus": 2}],
        },
    )
