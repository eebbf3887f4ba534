"""Issue 23: on PostgreSQL the JSON columns are written by orjson (`json_for_postgres`, the
engine's `json_serializer`), and what they hold reads back as it did with json.dumps."""

from __future__ import annotations

import datetime
import enum
import json
import math
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import JSON, Engine, bindparam, text
from sqlalchemy.exc import DBAPIError

from app.core.database import json_for_postgres

# The parts of an audited roll's entry as the append writes them, and what else the
# columns hold: text outside ASCII, nesting, null, booleans, a finite float.
ENTRY_PARTS: dict[str, Any] = {
    "request": {"kind": "dice", "notation": "3d6kh2", "label": "Fuite — l'égout", "n": None},
    "draws": [{"sides": 6, "face": 4}, {"sides": 6, "face": 1}, {"sides": 6, "face": 6}],
    "result": {"total": 10, "kept": [6, 4], "critical": False, "line\u2028break": True},
    "effects": [],
    "odds": {"probability": 0.125, "deviation": -0.0},
    "largest": 2**63 - 1,
}


class Rank(enum.IntEnum):
    FIRST = 1


class Name(enum.StrEnum):
    ALICE = "Alice"


@pytest.mark.parametrize(
    "value",
    [
        ENTRY_PARTS,
        *ENTRY_PARTS.values(),
        None,
        "é",
        0.1,
        1e-05,
        1e300,
        5e-324,
        2**53 + 1,
        2**64 - 1,
        -(2**63),
        {"rank": Rank.FIRST, Name.ALICE: [Name.ALICE]},
        (1, "tuple"),
    ],
)
def test_what_orjson_writes_reads_back_as_what_json_dumps_wrote(value: Any) -> None:
    assert json.loads(json_for_postgres(value)) == json.loads(json.dumps(value))


class Colour(enum.Enum):
    RED = "red"


class Ratio(float):
    pass


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "value",
    [
        {1: "a key that is not a string"},
        {"past 64 bits": 2**70},
        {"x": math.nan},
        [None, math.inf],
        {"a": None, "b": [-math.inf]},
        {"low": -(2**63) - 1},
        {"text": "a lone \ud800 surrogate"},
        _nested(300),
        [Ratio(0.5)],
    ],
)
def test_what_orjson_would_write_otherwise_is_written_by_json_dumps(value: Any) -> None:
    assert json_for_postgres(value) == json.dumps(value)


@dataclass
class Point:
    x: float


@pytest.mark.parametrize(
    "value",
    [
        {"at": datetime.datetime(2026, 12, 3, tzinfo=datetime.UTC)},
        [datetime.date(2026, 12, 3)],
        {"when": datetime.time(12, 0)},
        {"point": Point(math.nan)},
    ],
)
def test_what_json_dumps_refuses_is_still_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        json_for_postgres(value)


def test_a_uuid_or_a_plain_enum_is_written_as_text_where_json_dumps_refused_it() -> None:
    """The one difference, said in json_for_postgres's docstring: no column gets either, or
    the suite would fail on SQLite, whose engine keeps json.dumps."""
    value = {"id": uuid.UUID(int=1), "colour": Colour.RED}
    with pytest.raises(TypeError):
        json.dumps(value)
    assert json.loads(json_for_postgres(value)) == {"id": str(uuid.UUID(int=1)), "colour": "red"}


def test_a_finite_float_beside_a_null_stays_with_orjson() -> None:
    assert json_for_postgres({"a": None, "p": 0.25}) == b'{"a":null,"p":0.25}'


def _postgres(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("the serializer is the PostgreSQL engine's (SQLite keeps json.dumps)")


def test_the_postgres_engine_writes_json_with_it(db_engine: Engine) -> None:
    _postgres(db_engine)
    assert db_engine.dialect._json_serializer is json_for_postgres  # type: ignore[attr-defined]
    read = text("SELECT CAST(:value AS jsonb)").bindparams(bindparam("value", type_=JSON))
    with db_engine.connect() as connection:
        assert connection.execute(read, {"value": ENTRY_PARTS}).scalar_one() == ENTRY_PARTS


def test_postgres_still_refuses_a_nan_in_a_json_column(db_engine: Engine) -> None:
    _postgres(db_engine)
    read = text("SELECT CAST(:value AS jsonb)").bindparams(bindparam("value", type_=JSON))
    with db_engine.connect() as connection, pytest.raises(DBAPIError, match="NaN"):
        connection.execute(read, {"value": {"x": math.nan}})
