"""FAIR-14: a generic roll's replay (the stored result, no model) is exactly what resolving
it again and dumping the result gives, on every operation, cap and label of the notation."""

from __future__ import annotations

import pytest

from app.engine.dice import HmacDiceStream, ReplayDice
from app.engine.errors import EngineError
from app.engine.rulesets.dice import DICE, DiceRequest

NOTATIONS = [
    "3d6kh2",
    "4d6dl1",
    "1d20+5 # attack",
    "1d20+5 Attack the guard",
    "5d10>6",
    "8d10<3",
    "6d6=6",
    "3d6!",
    "3d6!>4",
    "3d6e6",
    "3d6!!",
    "3d6!!>5",
    "4dF",
    "1d%",
    "2d6rr1",
    "2d6ro<3",
    "4d6ra6",
    "3d6kh1kl1",
    "4d6p>4",
    "10d6mi2ma5",
    "(1d4+2)*3",
    "-1d6/2",
    "2d20kh1-1d4",
    "20d2!!",
    "60d2!",
    "100d2rr<2",
    "2d2!",  # explodes on half its faces: the explosion cap is reached
    "2d2!!",
]


SEED = bytes(range(32))


def _resolves(notation: str, version: int) -> bool:
    stream = HmacDiceStream(SEED, "replay", 1, "", 0)
    try:
        DICE.resolve(DiceRequest(notation=notation), stream, version)
    except EngineError:  # a notation this version refuses: nothing to replay
        return False
    return True


CASES = [(n, v) for n in NOTATIONS for v in (1, 2, 3) if _resolves(n, v)]


def test_the_cases_cover_every_notation_under_version_3_and_some_under_1_and_2():
    assert {n for n, v in CASES if v == 3} == set(NOTATIONS)
    assert any(v == 1 for _, v in CASES) and any(v == 2 for _, v in CASES)


@pytest.mark.parametrize(("notation", "version"), CASES)
def test_FAIR_14_a_dice_replay_is_the_dumped_resolution(notation, version):
    assert DICE.replay is not None
    for label in (None, "the guard"):
        request = DiceRequest(notation=notation, label=label)
        for nonce in range(1, 41):
            stream = HmacDiceStream(SEED, "replay", 1, "", nonce)
            logged = DICE.resolve(request, stream, version).result.dump()
            replayed = ReplayDice(stream.draws)
            assert DICE.replay(request, replayed, version) == logged
            replayed.assert_consumed()
            again = DICE.resolve(request, ReplayDice(stream.draws), version).result.dump()
            assert again == logged
