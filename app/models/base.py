"""Shared column types and the metadata naming convention."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlmodel import Field, SQLModel

# Stable constraint names, so Alembic migrations can drop and rename them on every engine.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON documents (sheets, options, log payloads): JSONB on PostgreSQL, JSON text elsewhere.
JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


class UTCDateTime(sa.TypeDecorator[datetime]):
    """Timestamps stored in UTC and read back timezone-aware on every engine.

    SQLite keeps no offset and hands back naive values; they are UTC by construction.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("timestamps must be timezone-aware")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


Timestamp = UTCDateTime()


def utcnow() -> datetime:
    return datetime.now(UTC)


def json_field(**kwargs: Any) -> Any:
    return Field(sa_type=JSONType, **kwargs)


def timestamp_field(**kwargs: Any) -> Any:
    kwargs.setdefault("default_factory", utcnow)
    return Field(sa_type=Timestamp, **kwargs)


# Characters that reorder or hide text around them (bidirectional overrides and marks): in a
# name they make what one member reads differ from what another sees.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def display_name(value: Any) -> Any:
    """A name as it is stored: NFC-normalized, with no control or bidirectional-override
    character. A validator run before the field's own checks, so that its length is the
    composed name's (a few characters decompose: U+FB2C is three once composed)."""
    if isinstance(value, bytes | bytearray):  # what the field would read as text
        try:
            value = bytes(value).decode()
        except UnicodeDecodeError:
            return value  # the field's type refuses it
    if not isinstance(value, str):
        return value  # the field's type refuses it
    value = unicodedata.normalize("NFC", value)
    bad = next((c for c in value if unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS), None)
    if bad is not None:
        raise ValueError(f"a name may not hold the control character U+{ord(bad):04X}")
    return value
